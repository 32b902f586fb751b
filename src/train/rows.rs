//! Training rows: the id/class columns fitted out of fold, each page's
//! feature matrix (first and second stage) and the labelled, weighted
//! rows a stage is fitted on.

use ndarray::{s, Array1, Array2};

use super::cv;
use super::prepare::PreparedPage;
use crate::config::{CetrConfig, TrainConfig};
use crate::features::tree::ElementTree;
use crate::features::{stacking, CssOdds, FeatureSet, PageContext};

/// Fills the id/class columns of `pages` with odds fitted out of fold:
/// pages in inner fold j get odds learned from the other inner folds.
/// Returns per page the id/class columns.
pub(super) fn out_of_fold_css(
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

pub(super) fn fit_odds(pages: &[&PreparedPage], cfg: &TrainConfig) -> CssOdds {
    CssOdds::fit(
        pages.iter().map(|p| (p.domain.as_str(), &p.token_stats)),
        cfg.css_min_domains,
        cfg.css_smoothing,
    )
}

pub(super) fn css_columns(p: &PreparedPage, odds: &CssOdds, cetr: &CetrConfig) -> Array2<f32> {
    let fs = FeatureSet::standard();
    let range = fs.family_range("css").expect("standard set has css");
    let mut m = Array2::zeros((p.blocks.blocks.len(), fs.len()));
    let ctx = PageContext::new(&p.blocks, cetr, odds);
    fs.recompute_family("css", &ctx, &mut m);
    m.slice(s![.., range]).to_owned()
}

/// Writes block `i`'s feature row: the page's features with the id/class
/// columns from `css`, and every column outside `active` (if given) zeroed,
/// which takes a feature family out of the model (a constant never splits).
pub(super) fn fill_row(
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

/// The first-stage feature matrix of a page, with the id/class columns
/// from `css` and the columns outside `active` zeroed.
pub(super) fn page_matrix(
    page: &PreparedPage,
    css: &Array2<f32>,
    active: Option<&[bool]>,
) -> Array2<f32> {
    let d = page.features.ncols();
    let mut m = Array2::<f32>::zeros((page.blocks.blocks.len(), d));
    for (i, mut row) in m.rows_mut().into_iter().enumerate() {
        fill_row(
            row.as_slice_mut().expect("standard layout"),
            page,
            i,
            css,
            active,
        );
    }
    m
}

/// The second-stage matrix of a page from its first-stage probabilities.
pub(super) fn stacked_page_matrix(
    page: &PreparedPage,
    css: &Array2<f32>,
    active: Option<&[bool]>,
    probs: &[f32],
) -> Array2<f32> {
    let tree = ElementTree::build(&page.blocks);
    stacking::stacked_matrix(&page.blocks, &tree, &page_matrix(page, css, active), probs)
}

/// Training rows of `pages` (blocks with words) from each page's matrix
/// (`matrix(k)` for `pages[k]`, `d` columns). Returns features, labels and
/// weights.
/// Training rows: one per labelled block with words.
pub(crate) struct Rows {
    /// Features.
    pub x: Array2<f32>,
    /// Labels.
    pub y: Array1<bool>,
    /// Weights (tokens, page factor, corpus weight).
    pub w: Array1<f32>,
    /// Each row's page-size ratio, the pages' mean tokens over its page's:
    /// a bag member with another `page_weight_power` re-weights by it.
    pub page_ratio: Vec<f32>,
}

pub(super) fn assemble(
    pages: &[&PreparedPage],
    d: usize,
    cfg: &TrainConfig,
    matrix: impl Fn(usize) -> Array2<f32>,
) -> Rows {
    let n: usize = pages.iter().map(|p| p.labelled_rows()).sum();
    let mut x = Array2::<f32>::zeros((n, d));
    let mut y = Vec::with_capacity(n);
    let mut w = Vec::with_capacity(n);
    let mut page_ratio = Vec::with_capacity(n);
    let page_words: Vec<f64> = pages
        .iter()
        .map(|p| {
            p.blocks
                .blocks
                .iter()
                .map(|b| b.words as f64)
                .sum::<f64>()
                .max(1.0)
        })
        .collect();
    let mean_words = page_words.iter().sum::<f64>() / page_words.len().max(1) as f64;
    let pseudo_weight = cfg.self_training.as_ref().map_or(1.0, |st| st.weight);
    let mut r = 0;
    for (k, p) in pages.iter().enumerate() {
        let m = matrix(k);
        let ratio = (mean_words / page_words[k]) as f32;
        let page_factor = if cfg.page_weight_power == 0.0 {
            1.0
        } else {
            (mean_words / page_words[k]).powf(cfg.page_weight_power as f64) as f32
        };
        for (i, b) in p.blocks.blocks.iter().enumerate() {
            if b.words == 0 || !p.known[i] {
                continue;
            }
            x.row_mut(r).assign(&m.row(i));
            y.push(p.labels[i]);
            let base = if cfg.weight_by_tokens {
                b.words as f32
            } else {
                1.0
            };
            let pseudo = if p.pseudo.get(i) == Some(&true) {
                pseudo_weight
            } else {
                1.0
            };
            w.push(base * page_factor * p.weight * pseudo);
            page_ratio.push(ratio);
            r += 1;
        }
    }
    Rows {
        x,
        y: Array1::from(y),
        w: Array1::from(w),
        page_ratio,
    }
}

/// Probabilities of every block of a page's matrix (0 for blocks without
/// words, which are never content).
pub(super) fn predict_matrix(
    predict: &dyn Fn(&[f32]) -> f32,
    page: &PreparedPage,
    m: &Array2<f32>,
) -> Vec<f32> {
    page.blocks
        .blocks
        .iter()
        .zip(m.rows())
        .map(|(b, row)| {
            if b.words == 0 {
                0.0
            } else {
                predict(row.as_slice().expect("standard layout"))
            }
        })
        .collect()
}
