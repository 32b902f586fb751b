//! `dechrome extract`'s output over one page and several: line breaks in
//! Markdown, one JSON array, separators between pages, `--out-dir`, and
//! binary input refused.

mod common;

use std::path::Path;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(common::bin()).args(args).output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Writes a news page holding `sentence` to `dir/name`; returns its path.
fn write_page(dir: &Path, name: &str, sentence: &str) -> String {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    let body = format!(
        "<p>{sentence}</p><p>{}</p><p>{}</p>",
        common::PARAGRAPHS[0],
        common::PARAGRAPHS[1]
    );
    std::fs::write(&path, common::page(&body)).unwrap();
    path.display().to_string()
}

#[test]
fn markdown_line_breaks_are_plain_unless_hard_breaks() {
    let dir = tempfile::tempdir().unwrap();
    let page = write_page(
        dir.path(),
        "breaks.html",
        "The ferry timetable changes on Monday<br>and the first boat leaves at six in the morning.",
    );
    let o = run(&["extract", "--format", "markdown", &page]);
    assert!(o.status.success(), "{}", stderr(&o));
    let md = stdout(&o);
    assert!(md.contains("on Monday\nand the first boat"), "{md}");
    assert!(!md.contains("Monday\\"), "{md}");
    let o = run(&["extract", "--format", "markdown", "--hard-breaks", &page]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("on Monday\\\nand the first boat"));
}
