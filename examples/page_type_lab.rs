//! The page-type classifier's variants, compared on one draw: one
//! domain-grouped cross-validation of the block model over the four
//! training corpora (as `dechrome train` runs it), whose out-of-fold block
//! probabilities are cached, then the page-type classifier fitted out of
//! fold on the same folds in each variant, with its accuracy on WCXB dev's
//! seven types, over every typed page, and article vs forum.
//!
//! ```sh
//! cargo run --release --example page_type_lab -- --cache FILE [--corpora DIR] [--seed S]
//! ```
//!
//! `ONLY=NAME` runs one variant; `FOLD_SEED=S` draws the classifier's
//! folds with another seed; `ERRORS=1` lists WCXB dev's mistyped
//! pages (id, labelled, predicted, probability); `DROP=a,b` holds the
//! named inputs at 0 (an ablation).
//!
//! The cache (`FILE`, JSON) is written on the first run and read on the
//! next ones: the page signals are computed afresh on every run (they only
//! feed the page-type classifier), so a change to
//! `src/features/page_signals.rs` is measured without refitting the block
//! model.

mod common;

use std::path::PathBuf;

use dechrome::model::page_type::{input_names, input_row};
use dechrome::model::{PageType, PageTypeGuess};
use dechrome::train::{cross_validate, cv::assign_folds, Learner};
use dechrome::{CetrConfig, GbdtConfig, TrainConfig};
use linfa::dataset::DatasetBase;
use linfa::traits::Fit;
use ndarray::{Array1, Array2};

/// One way of fitting the classifier.
struct Variant {
    name: &'static str,
    /// Ensemble parameters.
    gbdt: GbdtConfig,
    /// Weight of each class's pages: `balanced` gives every type the same
    /// total weight (raised to this power; 0 = unweighted).
    balance: f32,
    /// Weight of the news corpora's pages (all articles).
    news_weight: f32,
}

/// The shipped ensembles' parameters.
fn base(seed: u64) -> GbdtConfig {
    dechrome::train::page_type::ensemble_config(seed)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut corpora = common::default_corpora();
    let mut cache: Option<PathBuf> = None;
    let mut seed = 42u64;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--corpora" => corpora = PathBuf::from(value),
            "--cache" => cache = Some(PathBuf::from(value)),
            "--seed" => seed = value.parse()?,
            other => return Err(format!("unknown flag {other}").into()),
        }
    }
    let cache = cache.ok_or("--cache FILE is required")?;
    let cfg = TrainConfig {
        seed,
        ..TrainConfig::default()
    };
    let cetr = CetrConfig::default();
    let prepared = common::prepare_four(&corpora, &cfg, &cetr)?;
    let probs: Vec<Vec<f32>> = if cache.exists() {
        serde_json::from_str(&std::fs::read_to_string(&cache)?)?
    } else {
        let (_, oof) = cross_validate(&prepared, &cfg, &cetr, Learner::Ensemble)?;
        std::fs::write(&cache, serde_json::to_string(&oof.last)?)?;
        oof.last
    };
    if probs.len() != prepared.len() {
        return Err("the cache holds another page set".into());
    }
    let domains: Vec<&str> = prepared.iter().map(|p| p.domain.as_str()).collect();
    // FOLD_SEED=S draws the classifier's folds and seeds anew (the block
    // probabilities stay out of fold whatever its folds).
    let fold_seed: u64 = std::env::var("FOLD_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(cfg.seed);
    let folds = assign_folds(&domains, cfg.folds, fold_seed);
    // DROP=name,name holds those inputs at 0 (an ablation without a
    // rebuild: a constant column is never split on).
    let dropped: Vec<usize> = std::env::var("DROP")
        .map(|d| {
            let names = input_names();
            d.split(',')
                .filter_map(|n| names.iter().position(|x| x == n.trim()))
                .collect()
        })
        .unwrap_or_default();
    let rows: Vec<Vec<f32>> = prepared
        .iter()
        .zip(&probs)
        .map(|(p, pr)| {
            let mut row = input_row(&p.signals, &p.blocks, pr);
            for &c in &dropped {
                row[c] = 0.0;
            }
            row
        })
        .collect();
    let labels: Vec<Option<PageType>> = prepared
        .iter()
        .map(|p| PageType::from_name(&p.page_type))
        .collect();
    let news: Vec<bool> = prepared.iter().map(|p| p.corpus != "wcxb-dev").collect();
    let wcxb: Vec<bool> = prepared.iter().map(|p| p.corpus == "wcxb-dev").collect();

    let variant = |name, gbdt, balance, news_weight| Variant {
        name,
        gbdt,
        balance,
        news_weight,
    };
    // "shipped" is `src/train/page_type.rs`'s configuration.
    let mut variants = vec![
        variant("shipped", base(0), 0.0, 1.0),
        variant("balanced 0.5", base(0), 0.5, 1.0),
        variant("balanced 0.75", base(0), 0.75, 1.0),
        variant("balanced 1", base(0), 1.0, 1.0),
        variant("news 0.3", base(0), 0.0, 0.3),
        variant(
            "300 trees lr 0.05",
            GbdtConfig {
                n_trees: 300,
                learning_rate: 0.05,
                ..base(0)
            },
            0.0,
            1.0,
        ),
        variant(
            "depth 4",
            GbdtConfig {
                max_depth: 4,
                ..base(0)
            },
            0.0,
            1.0,
        ),
        variant(
            "colsample 0.5",
            GbdtConfig {
                colsample: 0.5,
                ..base(0)
            },
            0.0,
            1.0,
        ),
    ];
    if let Ok(only) = std::env::var("ONLY") {
        variants.retain(|v| v.name == only);
    }
    let d = input_names().len();
    for v in &variants {
        let mut guesses: Vec<Option<PageTypeGuess>> = vec![None; prepared.len()];
        for k in 0..cfg.folds {
            let train: Vec<usize> = (0..prepared.len())
                .filter(|&i| folds[i] != k && labels[i].is_some())
                .collect();
            let mut count = [0f32; 7];
            for &i in &train {
                count[labels[i].map_or(0, |t| t.index())] += 1.0;
            }
            let weights: Vec<f32> = train
                .iter()
                .map(|&i| {
                    let t = labels[i].map_or(0, |t| t.index());
                    let class = (train.len() as f32 / (7.0 * count[t])).powf(v.balance);
                    class * if news[i] { v.news_weight } else { 1.0 }
                })
                .collect();
            let mut x = Array2::<f32>::zeros((train.len(), d));
            for (r, &i) in train.iter().enumerate() {
                for (c, val) in rows[i].iter().enumerate() {
                    x[[r, c]] = *val;
                }
            }
            let models = PageType::ALL
                .iter()
                .map(|&kind| {
                    let y: Array1<bool> = train.iter().map(|&i| labels[i] == Some(kind)).collect();
                    let data =
                        DatasetBase::new(x.clone(), y).with_weights(Array1::from(weights.clone()));
                    let seed = (fold_seed ^ (k as u64 + 1)) ^ (kind.index() as u64 + 1) << 8;
                    GbdtConfig {
                        seed,
                        ..v.gbdt.clone()
                    }
                    .fit(&data)
                })
                .collect::<Result<Vec<_>, _>>()?;
            for i in (0..prepared.len()).filter(|&i| folds[i] == k) {
                let mut raw = [0f32; 7];
                for (r, m) in raw.iter_mut().zip(&models) {
                    *r = m.predict_row(&rows[i]);
                }
                guesses[i] = Some(PageTypeGuess::from_probabilities(raw));
            }
        }
        report(v.name, &labels, &guesses, &wcxb);
        // Pages without a type (trafilatura-eval's news and blog pages):
        // how many are called articles.
        let mut untyped = [0u32; 7];
        for (l, g) in labels.iter().zip(&guesses) {
            if let (None, Some(g)) = (l, g) {
                untyped[g.kind.index()] += 1;
            }
        }
        println!("  untyped pages, predicted (in PageType::ALL order): {untyped:?}");
        if std::env::var("ERRORS").is_ok() {
            for (i, p) in prepared.iter().enumerate() {
                if let (Some(t), Some(g), true) = (labels[i], guesses[i], wcxb[i]) {
                    if t != g.kind {
                        println!(
                            "error\t{}\t{}\t{}\t{:.2}",
                            p.id,
                            t.name(),
                            g.kind.name(),
                            g.probability
                        );
                    }
                }
            }
        }
    }
    Ok(())
}

/// Prints accuracy on WCXB dev, over all typed pages, article vs forum
/// and WCXB dev's confusion rows.
fn report(
    name: &str,
    labels: &[Option<PageType>],
    guesses: &[Option<PageTypeGuess>],
    wcxb: &[bool],
) {
    let (mut right_w, mut n_w, mut right, mut n, mut af_right, mut af) = (0, 0, 0, 0, 0, 0);
    let mut confusion = [[0u32; 7]; 7];
    for i in 0..labels.len() {
        let (Some(t), Some(g)) = (labels[i], guesses[i]) else {
            continue;
        };
        n += 1;
        right += usize::from(t == g.kind);
        if wcxb[i] {
            n_w += 1;
            right_w += usize::from(t == g.kind);
            confusion[t.index()][g.kind.index()] += 1;
        }
        if matches!(t, PageType::Article | PageType::Forum) {
            af += 1;
            af_right += usize::from((t == PageType::Forum) == (g.kind == PageType::Forum));
        }
    }
    println!(
        "{name}: WCXB dev {:.4} ({right_w}/{n_w}), all typed {:.4}, article vs forum {:.4}",
        right_w as f64 / n_w.max(1) as f64,
        right as f64 / n.max(1) as f64,
        af_right as f64 / af.max(1) as f64
    );
    for t in PageType::ALL {
        let row = confusion[t.index()];
        let total: u32 = row.iter().sum();
        println!(
            "  {:<13} {:?} recall {:.3}",
            t.name(),
            row,
            row[t.index()] as f64 / total.max(1) as f64
        );
    }
}
