//! The confidence model's inputs and parameters compared, out of fold: one
//! domain-grouped cross-validation over the training corpora (as `dechrome
//! train` runs it), then the confidence model fitted nested in the same
//! folds with each set of input columns and each parameter set, every
//! variant scored against the pages' true word F1 beside the baseline (the
//! mean probability of the kept blocks). The rows of `docs/confidence.md`.
//!
//! ```sh
//! cargo run --release --example confidence_lab -- [--corpora DIR] [--config FILE]
//! ```
//!
//! Columns left out of a variant are held at 0, so its trees never split
//! on them.

mod common;

use std::path::PathBuf;

use dechrome::config::GbdtConfig;
use dechrome::model::confidence::INPUT_NAMES;
use dechrome::train::confidence::{
    ensemble_config, input_rows, out_of_fold, ConfidenceReport, RowSources,
};
use dechrome::train::{cross_validate, Learner};
use dechrome::{CetrConfig, TrainConfig};

/// Which input columns a variant reads, by name.
type Columns = Box<dyn Fn(&str) -> bool>;

/// The sets of input columns compared.
fn column_sets() -> Vec<(&'static str, Columns)> {
    vec![
        ("all columns", Box::new(|_: &str| true)),
        (
            "mean kept probability alone",
            Box::new(|n: &str| n == "confidence.kept_mean_probability"),
        ),
        (
            "without the page type",
            Box::new(|n: &str| !n.starts_with("confidence.type_")),
        ),
    ]
}

/// The parameter sets compared, the shipped one first.
fn parameter_sets(seed: u64) -> Vec<(&'static str, GbdtConfig)> {
    let shipped = ensemble_config(seed);
    vec![
        ("150 depth-4 trees, rate 0.05, leaves of 5", shipped.clone()),
        (
            "200 depth-3 trees, rate 0.05, leaves of 2",
            GbdtConfig {
                n_trees: 200,
                max_depth: 3,
                min_child_weight: 2.0,
                ..shipped.clone()
            },
        ),
        (
            "400 depth-2 trees, rate 0.03, leaves of 10",
            GbdtConfig {
                n_trees: 400,
                max_depth: 2,
                learning_rate: 0.03,
                min_child_weight: 10.0,
                ..shipped
            },
        ),
    ]
}

/// The largest gap between a bin's mean estimate and mean F1, over the
/// bins of 50 pages or more.
fn worst_bin(report: &ConfidenceReport) -> f64 {
    report
        .model
        .calibration
        .iter()
        .filter(|b| b.pages >= 50)
        .map(|b| (b.mean_estimate - b.mean_f1).abs())
        .fold(0.0, f64::max)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut corpora = common::default_corpora();
    let mut cfg = TrainConfig::default();
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--corpora" => corpora = PathBuf::from(value),
            "--config" => cfg = serde_json::from_str(&std::fs::read_to_string(value)?)?,
            other => return Err(format!("unknown flag {other}").into()),
        }
    }
    let cetr = CetrConfig::default();
    let prepared = common::prepare_four(&corpora, &cfg, &cetr)?;
    let (cv, oof) = cross_validate(&prepared, &cfg, &cetr, Learner::Ensemble)?;
    let rows = input_rows(
        &prepared,
        &RowSources {
            probs: &oof.last,
            scores: &cv.pages,
            fold_thresholds: &cv.fold_thresholds,
            types: &oof.page_types,
        },
    );
    let baselines: Vec<f32> = cv.pages.iter().map(|p| p.mean_kept_probability).collect();
    println!("| inputs | parameters | Spearman | ROC AUC (F1 < 0.7) | mean abs. error | worst bin of 50+ | drop 10 %: WCXB / fundus / newspaper |");
    println!("|---|---|---|---|---|---|---|");
    let mut baseline_row = None;
    for (set, keep) in column_sets() {
        let masked: Vec<Vec<f32>> = rows
            .iter()
            .map(|r| {
                r.iter()
                    .zip(INPUT_NAMES)
                    .map(|(&v, n)| if keep(n) { v } else { 0.0 })
                    .collect()
            })
            .collect();
        for (name, params) in parameter_sets(cfg.seed) {
            let (estimates, _) = out_of_fold(&masked, &cv.pages, cfg.folds, &params)?;
            let report = ConfidenceReport::new(&cv.pages, &estimates, &baselines);
            let gain = |corpus: &str| {
                report
                    .model
                    .drop_lowest_tenth
                    .get(corpus)
                    .map_or(0.0, |d| d.mean_f1_kept - d.mean_f1)
            };
            println!(
                "| {set} | {name} | {:.4} | {:.4} | {:.4} | {:.3} | +{:.4} / +{:.4} / +{:.4} |",
                report.model.spearman,
                report.model.auc_bad,
                report.model.mean_absolute_error,
                worst_bin(&report),
                gain("wcxb-dev"),
                gain("fundus-news"),
                gain("newspaper-news"),
            );
            baseline_row.get_or_insert(report.baseline);
        }
    }
    if let Some(b) = baseline_row {
        let gain = |corpus: &str| {
            b.drop_lowest_tenth
                .get(corpus)
                .map_or(0.0, |d| d.mean_f1_kept - d.mean_f1)
        };
        println!(
            "| baseline: mean kept probability, no model | | {:.4} | {:.4} | {:.4} | | +{:.4} / +{:.4} / +{:.4} |",
            b.spearman,
            b.auc_bad,
            b.mean_absolute_error,
            gain("wcxb-dev"),
            gain("fundus-news"),
            gain("newspaper-news"),
        );
    }
    Ok(())
}
