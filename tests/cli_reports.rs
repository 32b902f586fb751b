//! `inspect`'s metrics table and `eval`'s word on in-sample figures, on a
//! model trained here on the sample corpus.

mod common;

use std::path::Path;
use std::process::{Command, Output};

fn run(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(common::bin()).args(args).output().unwrap()
}

/// Trains a small model on `corpus` into `dir/m.model`.
fn train(dir: &Path, corpus: &Path) -> std::path::PathBuf {
    let config = dir.join("small.json");
    std::fs::write(
        &config,
        r#"{"folds": 3, "inner_folds": 3, "css_min_domains": 2, "ensemble": {"n_trees": 20}}"#,
    )
    .unwrap();
    let model = dir.join("m.model");
    let o = Command::new(common::bin())
        .args(["train", "--quiet", "--corpus"])
        .arg(corpus)
        .arg("--config")
        .arg(&config)
        .arg("--out")
        .arg(&model)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    model
}

/// Copies a folder tree.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_tree(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

#[test]
fn eval_says_when_the_figure_is_in_sample_and_inspect_prints_a_table() {
    let dir = tempfile::tempdir().unwrap();
    let sample = dir.path().join("sample");
    copy_tree(&common::sample_dir(), &sample);
    let model = train(dir.path(), &sample);
    let m = model.as_os_str();
    let eval = |corpus: &Path, json: bool| {
        let mut args = vec![
            "eval".as_ref(),
            "--model".as_ref(),
            m,
            "--corpus".as_ref(),
            corpus.as_os_str(),
        ];
        if json {
            args.push("--json".as_ref());
        }
        let o = run(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let out = eval(&sample, false);
    assert!(
        out.contains("IN-SAMPLE: sample is one of this model's training corpora"),
        "{out}"
    );
    assert!(out.contains("dechrome inspect"), "{out}");
    let v: serde_json::Value = serde_json::from_str(&eval(&sample, true)).unwrap();
    assert_eq!(v["in_sample"]["corpus"], "sample");
    assert!(
        v["in_sample"]["out_of_fold"]["word"]["overall"]["f1"].is_f64(),
        "{v}"
    );
    // The same pages under another name were not trained on, by name.
    let other = dir.path().join("held-out");
    copy_tree(&sample, &other);
    let out = eval(&other, false);
    assert!(!out.contains("IN-SAMPLE"), "{out}");

    // inspect: a table, no line of raw JSON; --json keeps the raw form.
    let o = run(&["inspect".as_ref(), m]);
    let out = String::from_utf8(o.stdout).unwrap();
    assert!(out.contains("corpus / page type"), "{out}");
    assert!(
        out.lines().any(|l| l.trim_start().starts_with("sample ")),
        "{out}"
    );
    assert!(
        out.lines().all(|l| l.len() < 200 && !l.contains("{\"")),
        "{out}"
    );
    let o = run(&["inspect".as_ref(), m, "--json".as_ref()]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["metrics"]["corpora"]["sample"].is_object(), "{v}");
}
