//! Quality gates over the full shared corpora (`../shared/corpora`). They
//! need the corpora beside the repository and a release build, so they are
//! ignored by a plain `cargo test`; `.ci/run` runs them with `--ignored`.
//! Floors are the acceptance figures of the issues; never lower one silently.

mod common;

use dechrome::corpus::{read_wcxb, Corpus};
use dechrome::eval::Evaluation;
use dechrome::train::{cross_validate, prepare_all, Learner};
use dechrome::{CetrConfig, Extractor, ExtractorConfig, TrainConfig};

fn corpora() -> std::path::PathBuf {
    common::shared_corpora().expect("../shared/corpora must be beside the repository")
}

fn evaluate(ex: &Extractor, corpus: &str) -> Evaluation {
    dechrome::eval::evaluate(ex, &Corpus::open(&corpora().join(corpus)).unwrap(), &|| {})
}

#[test]
#[ignore = "needs ../shared/corpora; run by .ci/run"]
fn shipped_model_snippet_f1_on_trafilatura_eval() {
    let ex = Extractor::with_embedded_model(ExtractorConfig::default()).unwrap();
    let f1 = evaluate(&ex, "trafilatura-eval").snippets.unwrap().f1;
    eprintln!("trafilatura-eval snippet F1, shipped model: {f1:.4}");
    // 0.8777 before the issue-5 features and second stage, 0.9106 after.
    assert!(f1 >= 0.90, "snippet F1 {f1}");
}

#[test]
#[ignore = "needs ../shared/corpora; run by .ci/run"]
fn kmeans_baseline_runs_on_both_corpora() {
    let ex = Extractor::kmeans(ExtractorConfig::default()).unwrap();
    let f1 = evaluate(&ex, "trafilatura-eval").snippets.unwrap().f1;
    let word = evaluate(&ex, "wcxb-dev").word.unwrap().overall.f1;
    eprintln!("kmeans: trafilatura-eval snippet F1 {f1:.4}, wcxb-dev word F1 {word:.4}");
    // A baseline, no floor: it only has to produce text on most pages.
    assert!(f1 > 0.5 && word > 0.5);
}

#[test]
#[ignore = "needs ../shared/corpora; run by .ci/run"]
fn cross_validated_word_f1_on_wcxb_dev() {
    let cfg = TrainConfig::default();
    let pages = read_wcxb(&corpora().join("wcxb-dev")).unwrap();
    let (prepared, failed) = prepare_all(&pages, &cfg, &CetrConfig::default(), &|| {});
    assert!(
        failed.is_empty(),
        "{} pages failed to prepare",
        failed.len()
    );
    let (cv, _) =
        cross_validate(&prepared, &cfg, &CetrConfig::default(), Learner::Ensemble).unwrap();
    eprint!("{}", cv.word.table());
    // Floors: the folds and seed are fixed, so these figures are exact
    // reruns. Overall: 0.8731 measured with the stacked model and the repeated-text columns (0.8466 for the
    // core model). Per type: no page type may fall below the core model's
    // cross-validated F1 (issue 3's numbers).
    assert!(
        cv.word.overall.f1 >= 0.865,
        "CV word F1 {}",
        cv.word.overall.f1
    );
    let core = [
        ("article", 0.933),
        ("collection", 0.643),
        ("documentation", 0.939),
        ("forum", 0.772),
        ("listing", 0.680),
        ("product", 0.623),
        ("service", 0.838),
    ];
    for (t, floor) in core {
        let f1 = cv.word.by_type[t].1.f1;
        assert!(
            f1 >= floor,
            "{t}: CV word F1 {f1} below the core model's {floor}"
        );
    }
}

#[test]
#[ignore = "needs ../shared/corpora; run by .ci/run"]
fn every_page_of_every_corpus_gives_exactly_one_line() {
    let c = corpora();
    let dirs = [
        c.join("readability-pages"),
        c.join("wcxb-dev/html"),
        c.join("trafilatura-eval/pages"),
    ];
    let mut expected = 0;
    for d in &dirs {
        expected += std::fs::read_dir(d)
            .unwrap()
            .filter(|e| {
                let p = e.as_ref().unwrap().path();
                let n = p.to_string_lossy();
                n.ends_with(".html") || n.ends_with(".html.gz")
            })
            .count();
    }
    let mut args = vec!["extract".to_string(), "--format".into(), "jsonl".into()];
    args.extend(dirs.iter().map(|d| d.display().to_string()));
    let o = std::process::Command::new(common::bin())
        .args(&args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("whole JSON lines"))
        .collect();
    assert_eq!(lines.len(), expected, "one line per page");
    let failed: Vec<&serde_json::Value> =
        lines.iter().filter(|l| l.get("error").is_some()).collect();
    eprintln!(
        "{} pages, {} failed: {:?}",
        lines.len(),
        failed.len(),
        failed
    );
    assert_eq!(o.status.code(), Some(if failed.is_empty() { 0 } else { 1 }));
}
