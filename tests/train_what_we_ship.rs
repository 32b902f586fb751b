//! Training measures what `extract` ships: every page the cross-validation
//! held out, extracted by `Extractor` with the model of its fold, keeps the
//! blocks the training report says it kept, and scores the word F1 the
//! report (and so the metrics file) gives it.

mod common;

use dechrome::train::{Quiet, TrainJob};
use dechrome::{Extractor, ExtractorConfig};

#[test]
fn every_held_out_page_extracts_as_the_training_report_scored_it() {
    let job = TrainJob {
        corpora: vec![common::sample_dir()],
        config: common::small_config(),
        fold_models: true,
        ..TrainJob::default()
    };
    let report = dechrome::train::run(&job, &Quiet).unwrap();
    let cv = report.cv.as_ref().expect("the sample's sites allow folds");
    assert!(report.model.stage2.is_some(), "both stages are checked");
    assert_eq!(report.fold_models.len(), cv.folds);
    let pages = dechrome::corpus::read_wcxb(&common::sample_dir()).unwrap();
    assert_eq!(cv.pages.len(), pages.len());
    let extractors: Vec<Extractor> = report
        .fold_models
        .iter()
        .map(|m| Extractor::new(m.clone(), ExtractorConfig::default()).unwrap())
        .collect();
    let mut kept_blocks = 0;
    let mut confident_pages = 0;
    for score in &cv.pages {
        let page = pages.iter().find(|p| p.id == score.id).unwrap();
        let bytes = std::fs::read(&page.html_path).unwrap();
        let extraction = extractors[score.fold].extract_bytes(&bytes, None).unwrap();
        let kept: Vec<bool> = extraction.blocks.iter().map(|b| b.content).collect();
        assert_eq!(kept, score.kept, "page {}: kept blocks differ", score.id);
        kept_blocks += kept.iter().filter(|&&k| k).count();
        // The confidence too: the fold's confidence model, learned from
        // the other folds' pages, on the same inputs.
        let reported = score.confidence.map(|c| (f64::from(c) * 1e4).round() / 1e4);
        assert_eq!(
            extraction.confidence, reported,
            "page {}: confidence differs",
            score.id
        );
        confident_pages += usize::from(reported.is_some());
        let f1 = dechrome::eval::word_prf(&extraction.text, &page.gold).f1;
        let reported = score.word.expect("gold text").f1;
        assert!(
            (f1 - reported).abs() < 1e-9,
            "page {}: extract scores {f1}, the report {reported}",
            score.id
        );
    }
    assert!(kept_blocks > 0, "the comparison is not vacuous");
    assert!(confident_pages > 0, "nor is the confidence's");
}

#[test]
fn the_model_ships_the_selection_its_cross_validation_chose() {
    let job = TrainJob {
        corpora: vec![common::sample_dir()],
        config: common::small_config(),
        ..TrainJob::default()
    };
    let report = dechrome::train::run(&job, &Quiet).unwrap();
    let evidence = report
        .cv
        .as_ref()
        .and_then(|cv| cv.selection.as_ref())
        .expect("evidence in the report");
    assert_eq!(report.model.threshold, evidence.chosen.threshold);
    assert_eq!(report.model.selection, evidence.chosen.learned);
    // The one-standard-error rule: the choice is the best or lies within
    // one standard error of it.
    assert!(evidence.gap >= 0.0 && evidence.gap <= evidence.standard_error.max(0.0) + 1e-12);
    assert!(evidence
        .pairs
        .iter()
        .any(|p| p.learned == evidence.chosen.learned && p.gap <= p.standard_error + 1e-12));
    // The evidence lists every set of constants of the grid once: each
    // low-prose shift with each comments' share, and on forum pages that
    // share or each of the forum grid's others.
    let cfg = &report.config;
    let forum_options: usize = cfg
        .comments_main_share_grid
        .iter()
        .map(|s| {
            1 + cfg
                .forum_comments_main_share_grid
                .iter()
                .filter(|f| *f != s)
                .count()
        })
        .sum();
    assert_eq!(
        evidence.pairs.len(),
        cfg.low_prose_shift_grid.len() * forum_options
    );
    assert!(evidence
        .pairs
        .iter()
        .all(|p| p.objective <= evidence.objective + 1e-12));
    // The model file carries it, and extraction uses it.
    let bytes = report.model.to_bytes().unwrap();
    let loaded = dechrome::Model::from_bytes(&bytes).unwrap();
    assert_eq!(loaded.selection, report.model.selection);
    let ex = Extractor::new(loaded, ExtractorConfig::default()).unwrap();
    assert_eq!(
        ex.low_prose_shift(),
        evidence.chosen.learned.low_prose_shift
    );
}
