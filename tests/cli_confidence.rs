//! `dechrome extract` with the shipped model outputs each page's
//! confidence, and `--min-confidence` turns the pages below it into
//! records without text rather than dropping them.

mod common;

use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(common::bin()).args(args).output().unwrap()
}

fn fixture(name: &str) -> String {
    common::root()
        .join("tests/fixtures")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

#[test]
fn every_page_has_a_confidence_and_a_minimum_keeps_one_record_per_input() {
    let pages = [fixture("python-blog.html"), fixture("news-zh.html")];
    let missing = fixture("no-such-page.html");
    let args = |extra: &[&str]| {
        let mut a = vec!["extract", "--format", "jsonl"];
        a.extend_from_slice(extra);
        a.extend(pages.iter().map(String::as_str));
        a.push(&missing);
        a.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let lines = |extra: &[&str]| {
        let a = args(extra);
        let o = run(&a.iter().map(String::as_str).collect::<Vec<_>>());
        common::strict_json_lines(&o.stdout)
    };
    let plain = lines(&[]);
    assert_eq!(plain.len(), 3, "two pages and the missing one's error");
    for v in &plain[..2] {
        let c = v["confidence"].as_f64().expect("a confidence");
        assert!((0.0..=1.0).contains(&c), "{c}");
        assert!(!v["text"].as_str().unwrap().is_empty());
        assert!(v.get("low_confidence").is_none());
    }
    assert!(plain[2]["error"].is_string() && plain[2].get("confidence").is_none());

    let strict = lines(&["--min-confidence", "1"]);
    assert_eq!(strict.len(), 3, "no page is dropped");
    for (v, before) in strict[..2].iter().zip(&plain) {
        assert_eq!(v["low_confidence"], true);
        assert_eq!(v["text"], "");
        assert_eq!(v["confidence"], before["confidence"]);
        assert_eq!(v["title"], before["title"], "metadata stays");
    }
    let lenient = lines(&["--min-confidence", "0"]);
    for (v, before) in lenient[..2].iter().zip(&plain) {
        assert_eq!(v["text"], before["text"]);
    }

    // Plain text of a page below the minimum is empty.
    let o = run(&["extract", "--min-confidence", "1", &pages[0]]);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).trim().is_empty());
}

#[test]
fn a_minimum_without_a_confidence_or_out_of_range_is_refused() {
    let page = fixture("python-blog.html");
    for args in [
        vec![
            "extract",
            "--algorithm",
            "readability",
            "--min-confidence",
            "0.5",
            &page,
        ],
        vec!["extract", "--min-confidence", "1.5", &page],
    ] {
        let o = run(&args);
        assert!(!o.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("min_confidence"), "{args:?}: {err}");
    }
}
