//! The `dechrome` command: glue between arguments and the library.

mod cli;

fn main() {
    std::process::exit(cli::run());
}
