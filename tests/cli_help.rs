//! What `--help` offers: only values that work, and the output formats
//! described in the help itself (an installed binary has no docs folder).

mod common;

use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(common::bin()).args(args).output().unwrap()
}

/// The possible values `COMMAND --help` lists for `--algorithm`.
fn algorithm_values(command: &str) -> Vec<String> {
    let help = String::from_utf8(run(&[command, "--help"]).stdout).unwrap();
    let from = help
        .find("--algorithm <ALGORITHM>")
        .expect("an --algorithm option");
    let rest = &help[from..];
    let values = &rest[rest.find("[possible values:").expect("possible values")..];
    let values = &values["[possible values:".len()..values.find(']').unwrap()];
    values.split(',').map(|v| v.trim().to_string()).collect()
}

#[test]
fn algorithm_all_is_offered_only_where_it_works() {
    for command in ["extract", "annotate", "bench", "explain"] {
        let values = algorithm_values(command);
        assert!(
            values.contains(&"forest".to_string()),
            "{command}: {values:?}"
        );
        assert!(
            !values.contains(&"all".to_string()),
            "{command}: {values:?}"
        );
    }
    let help = String::from_utf8(run(&["eval", "--help"]).stdout).unwrap();
    assert!(
        help.contains("- all:") && help.contains("every algorithm in turn"),
        "{help}"
    );
    // Refused when parsing, with the values that work.
    let page = common::root().join("tests/fixtures/python-blog.html");
    let o = run(&["extract", "--algorithm", "all", page.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("invalid value 'all'"), "{err}");
    assert!(err.contains("kmeans"), "{err}");
}

#[test]
fn extract_help_describes_every_format_without_pointing_to_docs() {
    let help = String::from_utf8(run(&["extract", "--help"]).stdout).unwrap();
    assert!(!help.contains("docs/"), "{help}");
    for (format, words) in [
        ("text", "kept blocks, one per line"),
        ("json", "one JSON array"),
        ("jsonl", "One compact JSON object per line"),
        ("markdown", "Markdown"),
        ("html", "clean HTML document"),
    ] {
        let line = help
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("- {format}:")))
            .unwrap_or_else(|| panic!("no line for {format}: {help}"));
        let at = help.find(line).unwrap();
        assert!(help[at..].contains(words), "{format}");
    }
    for command in [
        "extract", "eval", "bench", "explain", "annotate", "train", "adapt",
    ] {
        let help = String::from_utf8(run(&[command, "--help"]).stdout).unwrap();
        assert!(
            !help.contains("docs/"),
            "{command} --help names a docs file: {help}"
        );
    }
}
