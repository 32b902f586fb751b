//! Quality gates over the full shared corpora (`../shared/corpora`). They
//! need the corpora beside the repository and a release build, so they are
//! ignored by a plain `cargo test`; `.ci/run` runs them with `--ignored`.
//! Floors are the acceptance figures of the issues; never lower one silently.

mod common;

use rayon::prelude::*;

use dechrome::corpus::{read_snippets, read_wcxb};
use dechrome::eval::{word_prf, SnippetCounts, WordReport};
use dechrome::train::{cross_validate, prepare_all, Learner};
use dechrome::{CetrConfig, Extractor, ExtractorConfig, TrainConfig};

fn corpora() -> std::path::PathBuf {
    common::shared_corpora().expect("../shared/corpora must be beside the repository")
}

fn snippet_f1(ex: &Extractor) -> f64 {
    let pages = read_snippets(&corpora().join("trafilatura-eval")).unwrap();
    let counts: Vec<SnippetCounts> = pages
        .par_iter()
        .map(|p| {
            let text = ex
                .extract_bytes(&std::fs::read(&p.html_path).unwrap(), None)
                .map(|e| e.text)
                .unwrap_or_default();
            let mut c = SnippetCounts::default();
            c.add_page(&text, &p.with, &p.without);
            c
        })
        .collect();
    let mut all = SnippetCounts::default();
    counts.into_iter().for_each(|c| all.merge(c));
    all.report().f1
}

#[test]
#[ignore = "needs ../shared/corpora; run by .ci/run"]
fn shipped_model_snippet_f1_on_trafilatura_eval() {
    let f1 = snippet_f1(&Extractor::with_embedded_model(ExtractorConfig::default()).unwrap());
    eprintln!("trafilatura-eval snippet F1, shipped model: {f1:.4}");
    assert!(f1 >= 0.85, "snippet F1 {f1}");
}

#[test]
#[ignore = "needs ../shared/corpora; run by .ci/run"]
fn kmeans_baseline_runs_on_both_corpora() {
    let ex = Extractor::kmeans(ExtractorConfig::default()).unwrap();
    let f1 = snippet_f1(&ex);
    eprintln!("trafilatura-eval snippet F1, kmeans: {f1:.4}");
    let pages = read_wcxb(&corpora().join("wcxb-dev")).unwrap();
    let scores: Vec<_> = pages
        .par_iter()
        .map(|p| {
            let text = ex
                .extract_bytes(&std::fs::read(&p.html_path).unwrap(), None)
                .map(|e| e.text)
                .unwrap_or_default();
            (p.page_type.as_str(), word_prf(&text, &p.gold))
        })
        .collect();
    let report = WordReport::from_scores(scores);
    eprintln!("wcxb-dev word F1, kmeans: {:.4}", report.overall.f1);
    // A baseline, no floor: it only has to produce text on most pages.
    assert!(f1 > 0.5 && report.overall.f1 > 0.5);
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
    assert!(
        cv.word.overall.f1 >= 0.81,
        "CV word F1 {}",
        cv.word.overall.f1
    );
}
