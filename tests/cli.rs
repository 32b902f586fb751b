//! The `dechrome` command, run as a user runs it.

mod common;

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn run(args: &[&str]) -> Output {
    Command::new(common::bin()).args(args).output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn fixture_path(name: &str) -> String {
    common::root()
        .join("tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn extract_prints_the_main_text() {
    let o = run(&["extract", &fixture_path("python-blog.html")]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = stdout(&o);
    assert!(text.contains("We hope you enjoy Python 3.6.0!"));
    assert!(!text.contains("Subscribe to Python Insider"));
}

#[test]
fn fast_extracts_with_the_fast_model_and_refuses_a_model_file_beside_it() {
    let o = run(&["extract", "--fast", &fixture_path("python-blog.html")]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = stdout(&o);
    assert!(text.contains("We hope you enjoy Python 3.6.0!"));
    assert!(!text.contains("Subscribe to Python Insider"));
    let model = common::root().join("models/dechrome-v1.model");
    let o = run(&[
        "extract",
        "--fast",
        "--model",
        &model.display().to_string(),
        &fixture_path("python-blog.html"),
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("fast"));
}

#[test]
fn jsonl_reports_a_failed_page_and_goes_on() {
    // One thread reads, extracts and writes in turn; two hand pages
    // between threads: the same lines either way.
    for threads in ["1", "2"] {
        let good = fixture_path("github-blog.html");
        let o = run(&[
            "extract",
            "--format",
            "jsonl",
            "--threads",
            threads,
            &good,
            "/no/such/page.html",
            &fixture_path("python-blog.html"),
        ]);
        assert_eq!(o.status.code(), Some(1), "a failed page makes exit code 1");
        let lines: Vec<serde_json::Value> = stdout(&o)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(
            lines.len(),
            3,
            "one line per input, in input order ({threads})"
        );
        assert_eq!(lines[0]["path"], good.as_str());
        assert!(lines[0]["text"]
            .as_str()
            .unwrap()
            .contains("Erin Spiceland"));
        assert_eq!(lines[1]["path"], "/no/such/page.html");
        assert!(lines[1]["error"].is_string());
        assert!(lines[1].get("text").is_none());
        assert!(lines[2]["text"].as_str().unwrap().contains("Python 3.6.0"));
    }
}

#[test]
fn stdin_json_and_kmeans() {
    let mut child = Command::new(common::bin())
        .args(["extract", "--format", "json", "--algorithm", "kmeans", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&common::fixture("python-blog.html"))
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["path"], "-");
    assert_eq!(v["algorithm"], "kmeans");
    assert!(v["blocks"].as_array().unwrap().len() > 10);
    assert!(v["text"].as_str().unwrap().contains("Python 3.6.0"));
}

#[test]
fn folder_input_and_output_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.jsonl");
    let fixtures = common::root().join("tests/fixtures");
    let o = run(&[
        "extract",
        "--format",
        "jsonl",
        "-o",
        out.to_str().unwrap(),
        fixtures.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    assert!(o.stdout.is_empty());
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        text.lines().count(),
        8,
        "the eight HTML fixtures, not the JSON, the licence or the golden files"
    );
    let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(leftovers.len(), 1, "no temporary file left behind");
}

#[test]
fn a_corrupt_model_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.model");
    std::fs::write(&bad, b"not a model at all").unwrap();
    let o = run(&[
        "extract",
        "--model",
        bad.to_str().unwrap(),
        &fixture_path("python-blog.html"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("not a dechrome model"), "{err}");
}

#[test]
fn train_twice_is_byte_identical_then_eval_and_inspect() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("cfg.json");
    std::fs::write(&cfg, serde_json::to_vec(&common::small_config()).unwrap()).unwrap();
    let sample = common::sample_dir();
    let mut files = Vec::new();
    for name in ["a.model", "b.model"] {
        let out = dir.path().join(name);
        let o = run(&[
            "train",
            "--corpus",
            sample.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--config",
            cfg.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let s = stdout(&o);
        assert!(
            s.contains("cross-validation") && s.contains("article"),
            "{s}"
        );
        files.push(std::fs::read(&out).unwrap());
        let metrics: serde_json::Value = serde_json::from_slice(
            &std::fs::read(format!("{}.metrics.json", out.display())).unwrap(),
        )
        .unwrap();
        assert!(
            metrics["cross_validation"]["word"]["overall"]["f1"]
                .as_f64()
                .unwrap()
                > 0.5
        );
    }
    assert_eq!(
        files[0], files[1],
        "same data and seed give the same model bytes"
    );

    let model = dir.path().join("a.model");
    let o = run(&[
        "eval",
        "--corpus",
        sample.to_str().unwrap(),
        "--model",
        model.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    assert!(stdout(&o).lines().any(|l| l.starts_with("forest")));

    let o = run(&["inspect", model.to_str().unwrap()]);
    assert!(o.status.success());
    let s = stdout(&o);
    assert!(
        s.contains("format version") && s.contains("dataset hash") && s.contains("top features"),
        "{s}"
    );
    let version = |s: &str| {
        s.lines()
            .find(|l| l.starts_with("format version"))
            .map(str::to_string)
            .unwrap()
    };
    let today = dechrome::model::FORMAT_VERSION;
    assert_eq!(version(&s), format!("format version   {today}"));
    // A file of an earlier format says which it is.
    let old = common::root().join("tests/fixtures/model-format-5.model");
    let o = run(&["inspect", old.to_str().unwrap()]);
    let s = stdout(&o);
    if o.status.success() {
        assert_eq!(
            version(&s),
            format!("format version   5 (this build writes {today})")
        );
    }
}

#[test]
fn eval_scores_snippets_like_the_reference_scorer() {
    // A tiny manifest in the trafilatura-eval layout over the fixtures.
    let dir = tempfile::tempdir().unwrap();
    let pages = dir.path().join("pages");
    std::fs::create_dir(&pages).unwrap();
    std::fs::copy(
        common::root().join("tests/fixtures/python-blog.html"),
        pages.join("p.html"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("manifest.jsonl"),
        r#"{"id": "p", "file": "pages/p.html", "with": ["You can download Python 3.6.0 here", "not on the page at all"], "without": ["Share to Facebook"]}"#,
    )
    .unwrap();
    let o = run(&["eval", "--corpus", dir.path().to_str().unwrap(), "--json"]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    let c = &v["results"][0]["snippets"]["counts"];
    assert_eq!(
        (
            c["tp"].as_u64(),
            c["fn_"].as_u64(),
            c["fp"].as_u64(),
            c["tn"].as_u64()
        ),
        (Some(1), Some(1), Some(0), Some(1))
    );
    assert_eq!(v["results"][0]["snippets"]["precision"].as_f64(), Some(1.0));
}

#[test]
fn eval_all_prints_one_row_per_algorithm() {
    let o = run(&[
        "eval",
        "--corpus",
        common::sample_dir().to_str().unwrap(),
        "--algorithm",
        "all",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = stdout(&o);
    for name in [
        "forest",
        "kmeans",
        "cetr-threshold",
        "danag",
        "crunch",
        "boilerpipe-rules",
        "boilerpipe-words",
        "readability",
    ] {
        assert!(
            s.lines().any(|l| l.starts_with(name)),
            "no row for {name}:\n{s}"
        );
    }
    assert!(
        s.contains("article") && s.contains("product"),
        "per-type columns:\n{s}"
    );
    let o = run(&[
        "extract",
        "--algorithm",
        "all",
        &fixture_path("python-blog.html"),
    ]);
    assert_eq!(o.status.code(), Some(2), "all is for eval only");
}

#[test]
fn extract_with_each_classic_algorithm() {
    for alg in [
        "danag",
        "crunch",
        "cetr-threshold",
        "boilerpipe-rules",
        "boilerpipe-words",
        "readability",
    ] {
        let o = run(&[
            "extract",
            "--format",
            "jsonl",
            "--algorithm",
            alg,
            &fixture_path("github-blog.html"),
        ]);
        assert!(o.status.success());
        let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
        assert_eq!(v["algorithm"], alg);
        assert!(v["text"].as_str().unwrap().contains("Erin Spiceland"));
    }
}

#[test]
fn unreadable_entries_are_reported_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(
        common::root().join("tests/fixtures/python-blog.html"),
        dir.path().join("a.html"),
    )
    .unwrap();
    std::os::unix::fs::symlink("/no/such/target.html", dir.path().join("b.html")).unwrap();
    std::fs::copy(
        common::root().join("tests/fixtures/github-blog.html"),
        dir.path().join("c.html"),
    )
    .unwrap();
    let o = run(&["extract", "--format", "jsonl", dir.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3, "every input gives a line");
    assert!(lines[1]["path"].as_str().unwrap().ends_with("b.html"));
    assert!(lines[1]["error"].is_string());
    assert!(lines[2]["text"].is_string());
}

#[test]
fn page_timeout_reports_pages_instead_of_hanging() {
    let o = run(&[
        "extract",
        "--format",
        "jsonl",
        "--page-timeout",
        "0.000000001",
        &fixture_path("python-blog.html"),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert!(v["error"].as_str().unwrap().contains("timed out"), "{v}");
}

#[test]
fn output_is_whole_or_absent() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("taken");
    std::fs::create_dir(&target).unwrap();
    std::fs::write(target.join("keep"), b"x").unwrap();
    let o = run(&[
        "extract",
        "--format",
        "jsonl",
        "-o",
        target.to_str().unwrap(),
        &fixture_path("python-blog.html"),
    ]);
    assert_eq!(o.status.code(), Some(2), "cannot replace a directory");
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["taken"], "no temporary file left behind");
}

/// `extract --format jsonl` of `n` copies of one fixture (enough output to
/// fill a pipe), started with piped output: the process, and a reader of
/// its standard output once its first line has come.
fn extract_many(
    n: usize,
) -> (
    std::process::Child,
    std::io::BufReader<std::process::ChildStdout>,
    String,
) {
    use std::io::BufRead;
    let mut args = vec!["extract".to_string(), "--format".into(), "jsonl".into()];
    args.extend(std::iter::repeat_n(fixture_path("github-blog.html"), n));
    let mut child = Command::new(common::bin())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut reader = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    reader.read_line(&mut first).unwrap();
    (child, reader, first)
}

#[test]
fn a_closed_stdout_exits_quietly() {
    let (child, reader, _) = extract_many(3000);
    drop(reader);
    let o = child.wait_with_output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!String::from_utf8_lossy(&o.stderr).contains("error"));
}

#[test]
fn sigint_leaves_whole_lines_and_exit_130() {
    use std::io::BufRead;
    let (child, mut reader, first) = extract_many(5000);
    let mut lines = vec![first];
    let mut line = String::new();
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    while reader.read_line(&mut line).unwrap() > 0 {
        lines.push(std::mem::take(&mut line));
    }
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130));
    assert!(lines.len() < 5000, "stopped early");
    for l in &lines {
        let v: serde_json::Value = serde_json::from_str(l).expect("every line is whole JSON");
        assert!(v["text"].is_string());
    }
    assert!(String::from_utf8_lossy(&o.stderr).contains("interrupted"));
}

#[test]
fn paths_from_stdin() {
    let list = format!(
        "{}\n\n{}\n/no/such.html\n",
        fixture_path("python-blog.html"),
        fixture_path("github-blog.html")
    );
    let mut child = Command::new(common::bin())
        .args(["extract", "--format", "jsonl", "--files-from", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(list.as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(1), "the missing page fails");
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert!(lines[0]["text"].as_str().unwrap().contains("Python 3.6.0"));
    assert!(lines[2]["error"].is_string());
}

#[test]
fn stdin_cannot_hold_both_the_list_and_a_page() {
    let o = run(&["extract", "--files-from", "-", "-"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("standard input"));
}

#[test]
fn a_closed_stdout_ends_the_report_commands_quietly() {
    // `dechrome inspect | head -0`: the reader is gone before the first
    // line is written (the child still loads its model then).
    let mut child = Command::new(common::bin())
        .arg("inspect")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(o.status.code(), Some(0), "{err}");
}

#[test]
fn a_misspelt_nested_training_setting_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("train.json");
    std::fs::write(&config, r#"{"ensemble": {"n_tree": 50}}"#).unwrap();
    let out = dir.path().join("never.model");
    let o = run(&[
        "train",
        "--corpus",
        fixture_path("").as_str(),
        "--config",
        config.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("unknown field `n_tree`"), "{err}");
    assert!(err.contains("n_trees"), "{err}");
    assert!(!out.exists());
}

#[test]
fn config_file_settings_with_the_flags_on_top() {
    let dir = tempfile::tempdir().unwrap();
    let page = fixture_path("github-blog.html");
    let file = |name: &str, json: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, json).unwrap();
        path.to_str().unwrap().to_string()
    };
    // An unknown key at any depth: exit 2, nothing extracted, the key named
    // in the library's words (the same text Python and WebAssembly give).
    for (json, key) in [
        (r#"{"classic": {"fallbak": true}}"#, "classic.fallbak"),
        (r#"{"treshold": 0.5}"#, "treshold"),
    ] {
        let bad = file("bad.json", json);
        let o = run(&["extract", "--config", &bad, &page]);
        assert_eq!(o.status.code(), Some(2));
        assert!(o.stdout.is_empty());
        let err = String::from_utf8_lossy(&o.stderr);
        let library = dechrome::config::settings_from_value(serde_json::from_str(json).unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            library.starts_with(&format!("invalid configuration: {key}: unknown field `")),
            "{library}"
        );
        assert!(err.contains(&library), "{err}");
        assert!(err.contains(&bad), "the file is named: {err}");
    }
    let o = run(&["extract", "--config", &file("broken.json", "{"), &page]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not JSON"));
    // The file's settings apply, and give what the same flags give.
    let good = file(
        "good.json",
        r#"{"algorithm": "danag", "comments": "include", "page_timeout": 30}"#,
    );
    let o = run(&["extract", "--format", "jsonl", "--config", &good, &page]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["algorithm"], "danag");
    let flags = run(&[
        "extract",
        "--format",
        "jsonl",
        "--algorithm",
        "danag",
        "--comments",
        "include",
        &page,
    ]);
    assert_eq!(stdout(&o), stdout(&flags));
    // A flag given goes on top of the file.
    let o = run(&[
        "extract",
        "--format",
        "jsonl",
        "--config",
        &good,
        "--algorithm",
        "kmeans",
        &page,
    ]);
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["algorithm"], "kmeans");
    // A value out of range is the library's check, naming the field.
    let o = run(&[
        "extract",
        "--config",
        &file("t.json", r#"{"threshold": 2}"#),
        &page,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr)
        .contains("invalid configuration: threshold: must lie in 0..=1"));
    // eval reads the same file.
    let o = run(&[
        "eval",
        "--corpus",
        common::sample_dir().to_str().unwrap(),
        "--config",
        &good,
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["results"][0]["algorithm"], "danag");
}

/// `--format markdown` starts with the page's title unless `--no-title`;
/// `--reference-date` dates "3 days ago" and refuses what is not a date.
#[test]
fn markdown_headline_and_reference_date() {
    let dir = std::env::temp_dir().join(format!("dechrome-headline-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let page = dir.join("gulls.html");
    std::fs::write(
        &page,
        "<html lang=en><head><title>Gulls nest on roofs</title></head><body><article>\
         <p class=byline>By Ann Lee · 3 days ago</p>\
         <p>Herring gulls have learned to nest on flat roofs in coastal towns, where foxes \
         cannot reach the eggs and the warm gravel keeps the clutch dry through cold nights.</p>\
         <p>Their colonies now grow faster on roofs than on the cliffs nearby, counts show.</p>\
         </article></body></html>",
    )
    .unwrap();
    let path = page.to_str().unwrap();
    let md = run(&["extract", "--format", "markdown", path]);
    assert!(md.status.success());
    let md = String::from_utf8(md.stdout).unwrap();
    assert!(md.starts_with("# Gulls nest on roofs\n\n"), "{md}");
    assert_eq!(md.matches("Gulls nest on roofs").count(), 1, "{md}");
    let bare = run(&["extract", "--format", "markdown", "--no-title", path]);
    let bare = String::from_utf8(bare.stdout).unwrap();
    assert!(!bare.contains("# Gulls nest on roofs"), "{bare}");
    // The same page with its headline: the byline's relative date is the
    // page's date once a reference date is known.
    let headed = dir.join("gulls-headed.html");
    let html = std::fs::read_to_string(&page).unwrap();
    std::fs::write(
        &headed,
        html.replace("<article>", "<article><h1>Gulls nest on roofs</h1>"),
    )
    .unwrap();
    let headed = headed.to_str().unwrap();
    let dated = |extra: &[&str]| {
        let mut args = vec!["extract", "--format", "jsonl", headed];
        args.extend_from_slice(extra);
        let out = run(&args);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["date"].as_str().map(str::to_string)
    };
    assert_eq!(dated(&[]), None);
    assert_eq!(
        dated(&["--reference-date", "2024-03-07"]).as_deref(),
        Some("2024-03-04")
    );
    let bad = run(&["extract", "--reference-date", "soon", path]);
    assert!(!bad.status.success());
    std::fs::remove_dir_all(&dir).ok();
}
