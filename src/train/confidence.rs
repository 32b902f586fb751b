//! Training the confidence model ([`crate::model::confidence`]): it learns
//! each page's word F1 as cross-validation scored it (out of fold, as
//! `extract` outputs the page), from the input row the page gives once
//! its fold's selection has decided. Nested: fold k's confidence model
//! learns from the other folds' pages only, so no page's estimate was
//! learned from its own score; the report's figures are those estimates.
//!
//! Only the pages scored by words teach it (trafilatura-eval's snippet
//! pages have no page F1 of the same kind); every page gets an estimate.

use std::collections::BTreeMap;

use linfa::dataset::DatasetBase;
use linfa::traits::Fit;
use ndarray::{Array1, Array2};
use serde::Serialize;

use super::prepare::PreparedPage;
use super::report::PageScore;
use crate::config::GbdtConfig;
use crate::error::{Error, Result, TrainingError};
use crate::model::confidence::{input_row, INPUT_NAMES};
use crate::model::{ConfidenceModel, PageTypeGuess};
use crate::par::prelude::*;

/// The ensemble's parameters: small trees over a few thousand pages
/// (`examples/confidence_lab.rs` compares others, `docs/confidence.md`).
pub fn ensemble_config(seed: u64) -> GbdtConfig {
    GbdtConfig {
        n_trees: 150,
        max_depth: 4,
        learning_rate: 0.05,
        min_child_weight: 5.0,
        subsample: 0.8,
        colsample: 0.8,
        seed,
        ..GbdtConfig::default()
    }
}

/// The fewest word-scored pages a confidence model is fitted on.
pub const MIN_PAGES: usize = 20;

/// Pages whose true F1 lies below this are the ones a user wants found
/// (the "bad extraction"): the report's ROC AUC is for finding them.
pub const BAD_F1: f64 = 0.7;

/// What the rows are computed from: the out-of-fold probabilities that
/// decide, each page's score (the blocks its fold's selection kept), the
/// folds' thresholds and the out-of-fold page-type guesses.
pub struct RowSources<'a> {
    /// The deciding probabilities, per page and block.
    pub probs: &'a [Vec<f32>],
    /// Each page's out-of-fold score, in page order.
    pub scores: &'a [PageScore],
    /// Each fold's threshold.
    pub fold_thresholds: &'a [f32],
    /// Each page's out-of-fold type guess (empty without a classifier).
    pub types: &'a [Option<PageTypeGuess>],
}

/// Every page's input row, as extraction would compute it with the model
/// of the page's fold.
pub fn input_rows(pages: &[PreparedPage], from: &RowSources<'_>) -> Vec<Vec<f32>> {
    pages
        .par_iter()
        .enumerate()
        .map(|(i, p)| {
            let s = &from.scores[i];
            let threshold = from.fold_thresholds.get(s.fold).copied().unwrap_or(0.5);
            let guess = from.types.get(i).copied().flatten();
            input_row(
                &p.blocks,
                &from.probs[i],
                &s.kept,
                threshold,
                guess.as_ref(),
            )
        })
        .collect()
}

/// Fits a confidence model on the word-scored pages of `idx`; `None` when
/// they are fewer than [`MIN_PAGES`] or all score alike.
///
/// Our GBDT learns a yes/no label, so a page of F1 `f` enters as two rows
/// with the same inputs: a "yes" weighing `f` and a "no" weighing `1 − f`.
/// Their logistic losses sum to the cross-entropy against the soft target
/// `f` (gradient `p − f`, hessian `p(1 − p)`), whose minimiser is the mean
/// F1 of the pages alike: the estimate is calibrated by construction.
pub fn fit_on(
    rows: &[Vec<f32>],
    scores: &[PageScore],
    idx: &[usize],
    params: &GbdtConfig,
) -> Result<Option<ConfidenceModel>> {
    let scored: Vec<(usize, f32)> = idx
        .iter()
        .filter_map(|&i| scores[i].word.map(|w| (i, w.f1.clamp(0.0, 1.0) as f32)))
        .collect();
    if scored.len() < MIN_PAGES {
        return Ok(None);
    }
    let n = scored.len();
    let d = INPUT_NAMES.len();
    let mut x = Array2::<f32>::zeros((2 * n, d));
    for (r, (i, _)) in scored.iter().enumerate() {
        for (c, v) in rows[*i].iter().enumerate() {
            x[[r, c]] = *v;
            x[[n + r, c]] = *v;
        }
    }
    let y: Array1<bool> = (0..2 * n).map(|r| r < n).collect();
    let w: Array1<f32> = scored
        .iter()
        .map(|(_, f)| *f)
        .chain(scored.iter().map(|(_, f)| 1.0 - *f))
        .collect();
    let data = DatasetBase::new(x, y).with_weights(w);
    match params.fit(&data) {
        Ok(ensemble) => Ok(Some(ConfidenceModel {
            inputs: INPUT_NAMES.iter().map(|s| s.to_string()).collect(),
            ensemble,
        })),
        Err(Error::Training(TrainingError::OneClass)) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Each page's out-of-fold estimate, and each fold's model (`None` for a
/// fold whose training part holds too few word-scored pages).
pub type OutOfFoldConfidence = (Vec<Option<f32>>, Vec<Option<ConfidenceModel>>);

/// Every page's estimate out of fold, with each fold's model: fold k's
/// pages estimated by a model fitted on the other folds' pages with
/// `params` (its seed varied per fold).
pub fn out_of_fold(
    rows: &[Vec<f32>],
    scores: &[PageScore],
    n_folds: usize,
    params: &GbdtConfig,
) -> Result<OutOfFoldConfidence> {
    let fits = (0..n_folds)
        .into_par_iter()
        .map(|k| {
            let train: Vec<usize> = (0..scores.len()).filter(|&i| scores[i].fold != k).collect();
            let params = GbdtConfig {
                seed: params.seed ^ ((k as u64 + 1) << 16),
                ..params.clone()
            };
            fit_on(rows, scores, &train, &params)
        })
        .collect::<Result<Vec<_>>>()?;
    let estimates = scores
        .iter()
        .zip(rows)
        .map(|(s, row)| Some(fits.get(s.fold)?.as_ref()?.estimate(row)))
        .collect();
    Ok((estimates, fits))
}

/// One bin of a reliability table: the pages whose estimate fell in
/// `[from, to)`, their mean estimate and their mean true F1.
#[derive(Debug, Clone, Serialize)]
pub struct CalibrationBin {
    /// Lower edge.
    pub from: f64,
    /// Upper edge (the last bin includes 1).
    pub to: f64,
    /// Pages in the bin.
    pub pages: usize,
    /// Their mean estimate.
    pub mean_estimate: f64,
    /// Their mean true word F1.
    pub mean_f1: f64,
}

/// What dropping a corpus's least confident tenth does to its mean F1.
#[derive(Debug, Clone, Serialize)]
pub struct DropTenth {
    /// Word-scored pages of the corpus.
    pub pages: usize,
    /// Their mean F1.
    pub mean_f1: f64,
    /// The mean F1 of the pages left after dropping the tenth with the
    /// lowest estimates.
    pub mean_f1_kept: f64,
}

/// How well one page-level signal tracks the pages' true word F1.
#[derive(Debug, Clone, Serialize)]
pub struct Agreement {
    /// Spearman's rank correlation with the true F1.
    pub spearman: f64,
    /// ROC AUC of the signal for finding the pages below [`BAD_F1`] (low
    /// signal, bad page).
    pub auc_bad: f64,
    /// Mean absolute difference between the signal and the true F1.
    pub mean_absolute_error: f64,
    /// The reliability table: ten bins of the signal.
    pub calibration: Vec<CalibrationBin>,
    /// Per corpus, the mean F1 before and after dropping the tenth of the
    /// pages with the lowest signal.
    pub drop_lowest_tenth: BTreeMap<String, DropTenth>,
}

impl Agreement {
    /// The agreement of `signal` with the true F1 over the word-scored
    /// pages of `scores` whose signal is known.
    pub fn of(scores: &[PageScore], signal: &[Option<f32>]) -> Agreement {
        let pairs: Vec<(&PageScore, f64, f64)> = scores
            .iter()
            .zip(signal)
            .filter_map(|(s, e)| Some((s, f64::from((*e)?), s.word?.f1)))
            .collect();
        let estimates: Vec<f64> = pairs.iter().map(|p| p.1).collect();
        let truths: Vec<f64> = pairs.iter().map(|p| p.2).collect();
        let n = pairs.len().max(1) as f64;
        let mut by_corpus: BTreeMap<&str, Vec<(f64, f64)>> = BTreeMap::new();
        for (s, e, f) in &pairs {
            by_corpus
                .entry(s.corpus.as_str())
                .or_default()
                .push((*e, *f));
        }
        Agreement {
            spearman: spearman(&estimates, &truths),
            auc_bad: auc(
                &estimates,
                &truths.iter().map(|&f| f < BAD_F1).collect::<Vec<_>>(),
            ),
            mean_absolute_error: pairs.iter().map(|p| (p.1 - p.2).abs()).sum::<f64>() / n,
            calibration: calibration(&estimates, &truths),
            drop_lowest_tenth: by_corpus
                .into_iter()
                .map(|(name, v)| (name.to_string(), drop_lowest_tenth(v)))
                .collect(),
        }
    }
}

/// The confidence model's out-of-fold quality beside the baseline's.
#[derive(Debug, Clone, Serialize)]
pub struct ConfidenceReport {
    /// Word-scored pages measured.
    pub pages: usize,
    /// The learned confidence, each page estimated by its fold's model.
    pub model: Agreement,
    /// The mean probability of the kept blocks.
    pub baseline: Agreement,
}

impl ConfidenceReport {
    /// The report over `scores` of the out-of-fold `estimates` and the
    /// `baselines`.
    pub fn new(scores: &[PageScore], estimates: &[Option<f32>], baselines: &[f32]) -> Self {
        let base: Vec<Option<f32>> = baselines.iter().map(|&b| Some(b)).collect();
        ConfidenceReport {
            pages: scores
                .iter()
                .zip(estimates)
                .filter(|(s, e)| s.word.is_some() && e.is_some())
                .count(),
            model: Agreement::of(scores, estimates),
            baseline: Agreement::of(scores, &base),
        }
    }

    /// The report as Markdown: the two signals' figures, then the model's
    /// reliability table.
    pub fn markdown(&self) -> String {
        let mut s = format!(
            "| signal | Spearman | ROC AUC (F1 < {BAD_F1}) | mean abs. error |\n|---|---|---|---|\n"
        );
        for (name, a) in [
            ("confidence", &self.model),
            ("mean kept probability", &self.baseline),
        ] {
            s.push_str(&format!(
                "| {name} | {:.3} | {:.3} | {:.3} |\n",
                a.spearman, a.auc_bad, a.mean_absolute_error
            ));
        }
        s.push_str(
            "\n| confidence | pages | mean confidence | mean true F1 |\n|---|---|---|---|\n",
        );
        for b in &self.model.calibration {
            s.push_str(&format!(
                "| {:.1}–{:.1} | {} | {:.3} | {:.3} |\n",
                b.from, b.to, b.pages, b.mean_estimate, b.mean_f1
            ));
        }
        s
    }
}

/// Average ranks (ties share the mean of their ranks), from 1.
fn ranks(v: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut out = vec![0.0; v.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && v[order[j + 1]] == v[order[i]] {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            out[k] = rank;
        }
        i = j + 1;
    }
    out
}

/// Spearman's rank correlation (Pearson's over average ranks); 0 when
/// either side is constant.
pub fn spearman(a: &[f64], b: &[f64]) -> f64 {
    let (ra, rb) = (ranks(a), ranks(b));
    let n = ra.len() as f64;
    if n < 2.0 {
        return 0.0;
    }
    let (ma, mb) = (ra.iter().sum::<f64>() / n, rb.iter().sum::<f64>() / n);
    let (mut cov, mut va, mut vb) = (0.0, 0.0, 0.0);
    for (x, y) in ra.iter().zip(&rb) {
        cov += (x - ma) * (y - mb);
        va += (x - ma) * (x - ma);
        vb += (y - mb) * (y - mb);
    }
    if va <= 0.0 || vb <= 0.0 {
        0.0
    } else {
        cov / (va * vb).sqrt()
    }
}

/// ROC AUC of a low `score` for finding the `bad` items: the chance that a
/// bad item scores below a good one (ties count half); 0.5 without both.
pub fn auc(score: &[f64], bad: &[bool]) -> f64 {
    let r = ranks(score);
    let n_bad = bad.iter().filter(|&&b| b).count() as f64;
    let n_good = bad.len() as f64 - n_bad;
    if n_bad == 0.0 || n_good == 0.0 {
        return 0.5;
    }
    // Mann-Whitney: the good items' rank sum counts the pairs a good item
    // outranks.
    let good_ranks: f64 = r.iter().zip(bad).filter(|(_, &b)| !b).map(|(r, _)| r).sum();
    (good_ranks - n_good * (n_good + 1.0) / 2.0) / (n_good * n_bad)
}

/// Ten equal bins of the estimate over 0..=1.
fn calibration(estimates: &[f64], truths: &[f64]) -> Vec<CalibrationBin> {
    let mut sums = [(0usize, 0f64, 0f64); 10];
    for (&e, &t) in estimates.iter().zip(truths) {
        let bin = ((e.clamp(0.0, 1.0) * 10.0) as usize).min(9);
        sums[bin].0 += 1;
        sums[bin].1 += e;
        sums[bin].2 += t;
    }
    sums.iter()
        .enumerate()
        .map(|(i, &(n, e, t))| CalibrationBin {
            from: i as f64 / 10.0,
            to: (i + 1) as f64 / 10.0,
            pages: n,
            mean_estimate: if n > 0 { e / n as f64 } else { 0.0 },
            mean_f1: if n > 0 { t / n as f64 } else { 0.0 },
        })
        .collect()
}

/// Mean F1 before and after dropping the tenth of `(estimate, f1)` pairs
/// with the lowest estimates (ties broken by order, the sort being stable).
fn drop_lowest_tenth(mut pairs: Vec<(f64, f64)>) -> DropTenth {
    let n = pairs.len();
    let mean = |v: &[(f64, f64)]| v.iter().map(|p| p.1).sum::<f64>() / v.len().max(1) as f64;
    let mean_f1 = mean(&pairs);
    pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let drop = n / 10;
    DropTenth {
        pages: n,
        mean_f1,
        mean_f1_kept: mean(&pairs[drop..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_statistics_agree_with_hand_counts() {
        assert!((spearman(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]) - 1.0).abs() < 1e-12);
        assert!((spearman(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]) + 1.0).abs() < 1e-12);
        assert_eq!(spearman(&[1.0, 1.0], &[1.0, 2.0]), 0.0);
        // Ties share ranks: 1, 2.5, 2.5, 4.
        assert_eq!(ranks(&[0.1, 0.5, 0.5, 0.9]), vec![1.0, 2.5, 2.5, 4.0]);
        // Bad pages all score lowest: AUC 1; all highest: 0; one tie: half.
        assert_eq!(auc(&[0.1, 0.2, 0.8, 0.9], &[true, true, false, false]), 1.0);
        assert_eq!(auc(&[0.9, 0.8, 0.1, 0.2], &[true, true, false, false]), 0.0);
        assert_eq!(auc(&[0.5, 0.5], &[true, false]), 0.5);
        assert_eq!(auc(&[0.5, 0.6], &[false, false]), 0.5);
    }

    #[test]
    fn calibration_bins_and_the_dropped_tenth() {
        let bins = calibration(&[0.05, 0.95, 1.0, 0.5], &[0.0, 1.0, 0.8, 0.4]);
        assert_eq!(bins.len(), 10);
        assert_eq!(bins[0].pages, 1);
        assert_eq!(bins[9].pages, 2);
        assert!((bins[9].mean_f1 - 0.9).abs() < 1e-12);
        let pairs: Vec<(f64, f64)> = (0..20).map(|i| (i as f64, i as f64 / 20.0)).collect();
        let d = drop_lowest_tenth(pairs);
        assert_eq!(d.pages, 20);
        assert!(d.mean_f1_kept > d.mean_f1);
        assert!(
            (d.mean_f1_kept - (2..20).map(|i| i as f64 / 20.0).sum::<f64>() / 18.0).abs() < 1e-12
        );
    }
}
