//! `dechrome train` tells how it is getting on: a line per stage and fold
//! on standard error (bars on a terminal), nothing with `--quiet`.

mod common;

use std::process::{Command, Output};

/// Trains on the sample corpus with a small configuration (3 folds, 20
/// trees), `extra` arguments added.
fn train(dir: &std::path::Path, extra: &[&str]) -> Output {
    let config = dir.join("small.json");
    std::fs::write(
        &config,
        r#"{"folds": 3, "inner_folds": 3, "css_min_domains": 2, "ensemble": {"n_trees": 20}}"#,
    )
    .unwrap();
    Command::new(common::bin())
        .arg("train")
        .arg("--corpus")
        .arg(common::sample_dir())
        .arg("--config")
        .arg(&config)
        .arg("--out")
        .arg(dir.join("m.model"))
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn train_prints_progress_per_fold_and_stage_and_nothing_when_quiet() {
    let dir = tempfile::tempdir().unwrap();
    let o = train(dir.path(), &[]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("cross-validation: 3 folds"), "{err}");
    for k in 1..=3 {
        assert!(
            err.contains(&format!("cross-validation: fold {k}/3 done after")),
            "fold {k}: {err}"
        );
    }
    assert!(err.contains("left"), "an estimate: {err}");
    assert!(err.contains("cross-validation: done in"), "{err}");
    assert!(err.contains("final fit: done in"), "{err}");

    let o = train(dir.path(), &["--quiet"]);
    assert!(o.status.success());
    assert_eq!(String::from_utf8_lossy(&o.stderr), "", "quiet");
    // The report still goes to standard output.
    assert!(String::from_utf8_lossy(&o.stdout).contains("final model"));
}
