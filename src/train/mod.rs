//! Training: gold text → block labels, dataset assembly, domain-grouped
//! cross-validation, the final fit, and the model file's metadata.
//!
//! Everything learned from labels that becomes a feature (the id/class token
//! odds) is fitted out of fold: inside each training set, the odds of a page
//! come from the other inner folds' pages, so the ensemble never trains on
//! odds that saw its own rows.

pub mod align;
pub mod cv;

use std::collections::HashMap;
use std::time::Instant;

use linfa::prelude::*;
use ndarray::{s, Array1, Array2};
use rayon::prelude::*;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::blocks::{self, word_tokens, Blocks};
use crate::config::{CetrConfig, TrainConfig};
use crate::corpus::AnnotatedPage;
use crate::error::{Error, Result};
use crate::eval::{prf_from_counts, Prf, WordReport};
use crate::features::css::PageTokenStats;
use crate::features::{CssOdds, FeatureSet, PageContext};
use crate::model::{Gbdt, Model, TrainingMeta};
use crate::parse::{self, ParseLimits};

/// A training page turned into features, labels and scoring tables.
pub struct PreparedPage {
    /// Page id.
    pub id: String,
    /// Site (fold group).
    pub domain: String,
    /// Page type.
    pub page_type: String,
    /// The page's blocks.
    pub blocks: Blocks,
    /// Feature matrix (the id/class columns are filled per fold).
    pub features: Array2<f32>,
    /// Matched share of each block's tokens.
    pub shares: Vec<f32>,
    /// Label per block.
    pub labels: Vec<bool>,
    /// id/class token statistics for fitting odds.
    pub token_stats: PageTokenStats,
    /// Token ids and counts per block (page-local ids).
    block_tokens: Vec<Vec<(u32, u32)>>,
    /// Gold token counts, indexed by page-local token id.
    gold_counts: Vec<u32>,
    /// Total gold tokens.
    gold_total: u64,
    /// SHA-256 of the page's bytes and gold text.
    hash: [u8; 32],
}

impl PreparedPage {
    /// Word P/R/F1 of the page when the blocks in `keep` are extracted.
    pub fn score(&self, keep: impl Fn(usize) -> bool) -> Prf {
        // Dense counts over the page's own token ids: called thousands of
        // times while thresholds are chosen, so no hashing here.
        let mut pred = vec![0u32; self.gold_counts.len()];
        let (mut total, mut overlap) = (0u64, 0u64);
        for (i, toks) in self.block_tokens.iter().enumerate() {
            if self.blocks.blocks[i].words > 0 && keep(i) {
                for &(t, c) in toks {
                    let (t, gold) = (t as usize, self.gold_counts[t as usize]);
                    let before = pred[t];
                    pred[t] += c;
                    overlap += (pred[t].min(gold) - before.min(gold)) as u64;
                    total += c as u64;
                }
            }
        }
        prf_from_counts(overlap, total, self.gold_total)
    }
}

/// Reads, parses, splits, featurises and labels one annotated page.
pub fn prepare_page(
    page: &AnnotatedPage,
    cfg: &TrainConfig,
    cetr: &CetrConfig,
) -> Result<PreparedPage> {
    let bytes = std::fs::read(&page.html_path).map_err(|e| Error::io(&page.html_path, e))?;
    let doc = parse::parse(&bytes, None, ParseLimits::default())?;
    let blocks = blocks::split(&doc);
    let empty = CssOdds::default();
    let ctx = PageContext {
        blocks: &blocks,
        cetr,
        css_odds: &empty,
    };
    let features = FeatureSet::standard().compute(&ctx);
    let mut interner = align::Interner::default();
    let shares = align::matched_shares(
        blocks.blocks.iter().map(|b| b.text.as_str()),
        &page.gold,
        &mut interner,
    );
    let labels: Vec<bool> = blocks
        .blocks
        .iter()
        .zip(&shares)
        .map(|(b, &s)| b.words > 0 && s >= cfg.label_threshold && s > 0.0)
        .collect();
    let block_tokens = blocks
        .blocks
        .iter()
        .map(|b| {
            let mut m: HashMap<u32, u32> = HashMap::new();
            for t in word_tokens(&b.text) {
                *m.entry(interner.id(t)).or_insert(0) += 1;
            }
            let mut v: Vec<(u32, u32)> = m.into_iter().collect();
            v.sort_unstable();
            v
        })
        .collect();
    let gold_ids: Vec<u32> = word_tokens(&page.gold).map(|t| interner.id(t)).collect();
    let mut gold_counts = vec![0u32; interner.len()];
    for &t in &gold_ids {
        gold_counts[t as usize] += 1;
    }
    let gold_total = gold_ids.len() as u64;
    let token_stats = PageTokenStats::collect(&blocks, &labels);
    let mut h = Sha256::new();
    h.update(page.id.as_bytes());
    h.update(&bytes);
    h.update(page.gold.as_bytes());
    Ok(PreparedPage {
        id: page.id.clone(),
        domain: page.domain.clone(),
        page_type: page.page_type.clone(),
        blocks,
        features,
        shares,
        labels,
        token_stats,
        block_tokens,
        gold_counts,
        gold_total,
        hash: h.finalize().into(),
    })
}

/// Prepares all pages in parallel. Pages that fail are returned as errors
/// beside the prepared ones, so one bad page does not stop training.
pub fn prepare_all(
    pages: &[AnnotatedPage],
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    progress: &(dyn Fn() + Sync),
) -> (Vec<PreparedPage>, Vec<(String, Error)>) {
    let results: Vec<Result<PreparedPage>> = pages
        .par_iter()
        .map(|p| {
            let r = prepare_page(p, cfg, cetr);
            progress();
            r
        })
        .collect();
    let mut ok = Vec::new();
    let mut failed = Vec::new();
    for (p, r) in pages.iter().zip(results) {
        match r {
            Ok(pp) => ok.push(pp),
            Err(e) => failed.push((p.id.clone(), e)),
        }
    }
    (ok, failed)
}

/// Fills the id/class columns of `pages` with odds fitted out of fold:
/// pages in inner fold j get odds learned from the other inner folds.
/// Returns per page the id/class columns.
fn out_of_fold_css(
    pages: &[&PreparedPage],
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    seed: u64,
) -> Vec<Array2<f32>> {
    let domains: Vec<&str> = pages.iter().map(|p| p.domain.as_str()).collect();
    let inner = cv::assign_folds(&domains, cfg.inner_folds, seed);
    let tables: Vec<CssOdds> = (0..cfg.inner_folds)
        .map(|j| {
            CssOdds::fit(
                pages
                    .iter()
                    .zip(&inner)
                    .filter(|(_, &f)| f != j)
                    .map(|(p, _)| (p.domain.as_str(), &p.token_stats)),
                cfg.css_min_domains,
                cfg.css_smoothing,
            )
        })
        .collect();
    pages
        .iter()
        .zip(&inner)
        .map(|(p, &f)| css_columns(p, &tables[f], cetr))
        .collect()
}

fn fit_odds(pages: &[&PreparedPage], cfg: &TrainConfig) -> CssOdds {
    CssOdds::fit(
        pages.iter().map(|p| (p.domain.as_str(), &p.token_stats)),
        cfg.css_min_domains,
        cfg.css_smoothing,
    )
}

fn css_columns(p: &PreparedPage, odds: &CssOdds, cetr: &CetrConfig) -> Array2<f32> {
    let fs = FeatureSet::standard();
    let range = fs.family_range("css").expect("standard set has css");
    let mut m = Array2::zeros((p.blocks.blocks.len(), fs.len()));
    let ctx = PageContext {
        blocks: &p.blocks,
        cetr,
        css_odds: odds,
    };
    fs.recompute_family("css", &ctx, &mut m);
    m.slice(s![.., range]).to_owned()
}

/// Writes block `i`'s feature row: the page's features with the id/class
/// columns from `css`, and every column outside `active` (if given) zeroed,
/// which takes a feature family out of the model (a constant never splits).
fn fill_row(
    row: &mut [f32],
    page: &PreparedPage,
    i: usize,
    css: &Array2<f32>,
    active: Option<&[bool]>,
) {
    let start = FeatureSet::standard()
        .family_range("css")
        .expect("standard set has css")
        .start;
    for (dst, v) in row.iter_mut().zip(page.features.row(i)) {
        *dst = *v;
    }
    for (dst, v) in row[start..].iter_mut().zip(css.row(i)) {
        *dst = *v;
    }
    if let Some(active) = active {
        for (dst, on) in row.iter_mut().zip(active) {
            if !on {
                *dst = 0.0;
            }
        }
    }
}

/// Training rows of `pages` (blocks with words), with the id/class columns
/// replaced by `css`. Returns features, labels and weights.
fn assemble(
    pages: &[&PreparedPage],
    css: &[Array2<f32>],
    cfg: &TrainConfig,
    active: Option<&[bool]>,
) -> (Array2<f32>, Array1<bool>, Array1<f32>) {
    let fs = FeatureSet::standard();
    let n: usize = pages
        .iter()
        .map(|p| p.blocks.blocks.iter().filter(|b| b.words > 0).count())
        .sum();
    let d = fs.len();
    let mut x = Array2::<f32>::zeros((n, d));
    let mut y = Vec::with_capacity(n);
    let mut w = Vec::with_capacity(n);
    let mut r = 0;
    for (p, c) in pages.iter().zip(css) {
        for (i, b) in p.blocks.blocks.iter().enumerate() {
            if b.words == 0 {
                continue;
            }
            let mut row = x.row_mut(r);
            fill_row(
                row.as_slice_mut().expect("standard layout"),
                p,
                i,
                c,
                active,
            );
            y.push(p.labels[i]);
            w.push(if cfg.weight_by_tokens {
                b.words as f32
            } else {
                1.0
            });
            r += 1;
        }
    }
    (x, Array1::from(y), Array1::from(w))
}

/// Predicts every block of `page` with `model`, using `css` for the
/// id/class columns.
fn predict_page(model: &Gbdt, page: &PreparedPage, css: &Array2<f32>) -> Vec<f32> {
    let mut row = vec![0f32; FeatureSet::standard().len()];
    (0..page.blocks.blocks.len())
        .map(|i| {
            fill_row(&mut row, page, i, css, None);
            model.predict_row(&row)
        })
        .collect()
}

/// A fitted learner as a function from a feature row to a probability.
type Predictor = Box<dyn Fn(&[f32]) -> f32 + Send + Sync>;

/// Out-of-fold probabilities of the test pages of one fold, by page index.
type FoldPredictions = Vec<(usize, Vec<f32>)>;

/// What the learner is: the ensemble, or a single linfa-trees decision
/// tree (the reference baseline).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Learner {
    /// The gradient-boosted ensemble.
    Ensemble,
    /// linfa-trees `DecisionTree` (depth 8), probabilities 0 or 1.
    BaselineTree,
}

/// Fits `learner` on rows and returns a predictor of a row's probability.
fn fit_learner(
    learner: Learner,
    cfg: &TrainConfig,
    x: Array2<f32>,
    y: Array1<bool>,
    w: Array1<f32>,
) -> Result<Predictor> {
    match learner {
        Learner::Ensemble => {
            let data = Dataset::new(x, y).with_weights(w);
            let mut ens = cfg.ensemble.clone();
            ens.seed = cfg.seed;
            let model = ens.fit(&data)?;
            Ok(Box::new(move |row: &[f32]| model.predict_row(row)))
        }
        Learner::BaselineTree => {
            let data = Dataset::new(x, y).with_weights(w);
            let tree = linfa_trees::DecisionTree::params()
                .max_depth(Some(8))
                .fit(&data)
                .map_err(|e| Error::Training(e.to_string()))?;
            Ok(Box::new(move |row: &[f32]| {
                let a = Array2::from_shape_vec((1, row.len()), row.to_vec()).expect("one row");
                if tree.predict(&a)[0] {
                    1.0
                } else {
                    0.0
                }
            }))
        }
    }
}

/// Cross-validation results.
#[derive(Debug, Clone, Serialize)]
pub struct CvReport {
    /// Folds.
    pub folds: usize,
    /// Word P/R/F1 over all pages, each scored by the fold that held it out,
    /// at the threshold chosen on the other folds' out-of-fold predictions.
    pub word: WordReport,
    /// Threshold used for each fold.
    pub fold_thresholds: Vec<f32>,
    /// Word F1 with the gold block labels (the splitter's ceiling).
    pub oracle_f1: f64,
    /// Seconds spent (not serialised: the model file must not depend on
    /// the machine's speed; the metrics file records timings apart).
    #[serde(skip)]
    pub seconds: f64,
}

/// Out-of-fold probabilities of every block of every page.
fn out_of_fold_probs(
    pages: &[PreparedPage],
    folds: &[usize],
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    learner: Learner,
    active: Option<&[bool]>,
) -> Result<Vec<Vec<f32>>> {
    let per_fold: Vec<Result<FoldPredictions>> = (0..cfg.folds)
        .into_par_iter()
        .map(|k| {
            let train: Vec<&PreparedPage> = pages
                .iter()
                .zip(folds)
                .filter(|(_, &f)| f != k)
                .map(|(p, _)| p)
                .collect();
            let test: Vec<usize> = (0..pages.len()).filter(|&i| folds[i] == k).collect();
            let css_train = out_of_fold_css(&train, cfg, cetr, cfg.seed ^ (k as u64 + 1));
            let (x, y, w) = assemble(&train, &css_train, cfg, active);
            let odds = fit_odds(&train, cfg);
            let predict = fit_learner(learner, cfg, x, y, w)?;
            let mut row = vec![0f32; FeatureSet::standard().len()];
            Ok(test
                .into_iter()
                .map(|i| {
                    let p = &pages[i];
                    let css = css_columns(p, &odds, cetr);
                    let probs = (0..p.blocks.blocks.len())
                        .map(|b| {
                            fill_row(&mut row, p, b, &css, active);
                            predict(&row)
                        })
                        .collect();
                    (i, probs)
                })
                .collect())
        })
        .collect();
    let mut probs = vec![Vec::new(); pages.len()];
    for r in per_fold {
        for (i, p) in r? {
            probs[i] = p;
        }
    }
    Ok(probs)
}

fn mean_f1(pages: &[PreparedPage], probs: &[Vec<f32>], idx: &[usize], t: f32) -> f64 {
    let s: f64 = idx
        .iter()
        .map(|&i| pages[i].score(|b| probs[i][b] >= t).f1)
        .sum();
    s / idx.len().max(1) as f64
}

/// The grid threshold with the best mean F1 over pages `idx` (the first
/// one on ties, so the choice is deterministic).
fn best_threshold(
    pages: &[PreparedPage],
    probs: &[Vec<f32>],
    idx: impl Iterator<Item = usize>,
    grid: &[f32],
) -> f32 {
    let idx: Vec<usize> = idx.collect();
    let scores: Vec<f64> = grid
        .par_iter()
        .map(|&t| mean_f1(pages, probs, &idx, t))
        .collect();
    let mut best = (f64::MIN, 0.5f32);
    for (&t, &f) in grid.iter().zip(&scores) {
        if f > best.0 {
            best = (f, t);
        }
    }
    best.1
}

/// Domain-grouped K-fold cross-validation. Each fold's threshold is chosen on
/// the other folds' out-of-fold predictions, never on the fold it scores.
pub fn cross_validate(
    pages: &[PreparedPage],
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    learner: Learner,
) -> Result<(CvReport, Vec<Vec<f32>>)> {
    cross_validate_masked(pages, cfg, cetr, learner, None)
}

/// One row of an ablation: the feature families in use and their CV result.
#[derive(Debug, Clone, Serialize)]
pub struct AblationRow {
    /// Row label (`ST`, `+IC`, ...).
    pub name: String,
    /// Feature families in use.
    pub families: Vec<String>,
    /// Cross-validated word P/R/F1, overall and per page type.
    pub word: WordReport,
}

/// The ablation sequence: Kohlschütter shallow text (ST), then id/class
/// odds (IC), CETR, structure, each added in turn.
pub const ABLATION_STEPS: [(&str, &str); 4] = [
    ("ST", "text"),
    ("+IC", "css"),
    ("+CETR", "cetr"),
    ("+structure", "structure"),
];

/// Cross-validates with the feature families added one at a time (the
/// others zeroed), on the same folds; Dragnet's ablation table.
pub fn ablation(
    pages: &[PreparedPage],
    cfg: &TrainConfig,
    cetr: &CetrConfig,
) -> Result<Vec<AblationRow>> {
    let fs = FeatureSet::standard();
    let mut families: Vec<String> = Vec::new();
    let mut rows = Vec::new();
    for (name, family) in ABLATION_STEPS {
        families.push(family.to_string());
        let mut active = vec![false; fs.len()];
        for f in &families {
            let range = fs
                .family_range(f)
                .ok_or_else(|| Error::Training(format!("no feature family {f}")))?;
            for a in &mut active[range] {
                *a = true;
            }
        }
        let (cv, _) = cross_validate_masked(pages, cfg, cetr, Learner::Ensemble, Some(&active))?;
        rows.push(AblationRow {
            name: name.to_string(),
            families: families.clone(),
            word: cv.word,
        });
    }
    Ok(rows)
}

fn cross_validate_masked(
    pages: &[PreparedPage],
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    learner: Learner,
    active: Option<&[bool]>,
) -> Result<(CvReport, Vec<Vec<f32>>)> {
    cfg.check()?;
    let start = Instant::now();
    let domains: Vec<&str> = pages.iter().map(|p| p.domain.as_str()).collect();
    let distinct: std::collections::BTreeSet<&str> = domains.iter().copied().collect();
    if distinct.len() < cfg.folds {
        return Err(Error::Training(format!(
            "{} domains cannot fill {} folds",
            distinct.len(),
            cfg.folds
        )));
    }
    let folds = cv::assign_folds(&domains, cfg.folds, cfg.seed);
    let probs = out_of_fold_probs(pages, &folds, cfg, cetr, learner, active)?;
    let mut fold_thresholds = Vec::new();
    let mut scores: Vec<(&str, Prf)> = Vec::new();
    for k in 0..cfg.folds {
        let others = (0..pages.len()).filter(|&i| folds[i] != k);
        let t = if learner == Learner::Ensemble {
            best_threshold(pages, &probs, others, &cfg.threshold_grid)
        } else {
            0.5
        };
        fold_thresholds.push(t);
        for i in (0..pages.len()).filter(|&i| folds[i] == k) {
            scores.push((
                pages[i].page_type.as_str(),
                pages[i].score(|b| probs[i][b] >= t),
            ));
        }
    }
    let oracle_f1 = pages
        .iter()
        .map(|p| p.score(|b| p.labels[b]).f1)
        .sum::<f64>()
        / pages.len().max(1) as f64;
    Ok((
        CvReport {
            folds: cfg.folds,
            word: WordReport::from_scores(scores),
            fold_thresholds,
            oracle_f1,
            seconds: start.elapsed().as_secs_f64(),
        },
        probs,
    ))
}

/// Fits the final model on all pages; `oof` are the cross-validated
/// probabilities used to pick the shipped threshold.
pub fn fit_final(
    pages: &[PreparedPage],
    oof: &[Vec<f32>],
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    cv: &CvReport,
) -> Result<Model> {
    let all: Vec<&PreparedPage> = pages.iter().collect();
    let css = out_of_fold_css(&all, cfg, cetr, cfg.seed);
    let (x, y, w) = assemble(&all, &css, cfg, None);
    let rows = x.nrows();
    let data = Dataset::new(x, y).with_weights(w);
    let mut ens = cfg.ensemble.clone();
    ens.seed = cfg.seed;
    let ensemble = ens.fit(&data)?;
    let threshold = best_threshold(pages, oof, 0..pages.len(), &cfg.threshold_grid);
    let fs = FeatureSet::standard();
    let mut h = Sha256::new();
    for p in pages {
        h.update(p.hash);
    }
    let dataset_hash: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    let model = Model {
        schema: fs.names(),
        schema_hash: fs.schema_hash(),
        css_odds: fit_odds(&all, cfg),
        ensemble,
        threshold,
        cetr: cetr.clone(),
        meta: TrainingMeta {
            dechrome_version: env!("CARGO_PKG_VERSION").to_string(),
            dataset_hash,
            pages: pages.len() as u64,
            blocks: rows as u64,
            seed: cfg.seed,
            train_config_json: serde_json::to_string(cfg).unwrap_or_default(),
            metrics_json: serde_json::to_string(cv).unwrap_or_default(),
        },
    };
    model.validate()?;
    Ok(model)
}

/// Predicts a prepared page's blocks with a finished model (used by tests
/// and analyses that hold prepared pages).
pub fn predict_prepared(model: &Model, page: &PreparedPage) -> Vec<f32> {
    let css = css_columns(page, &model.css_odds, &model.cetr);
    predict_page(&model.ensemble, page, &css)
}
