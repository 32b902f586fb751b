//! Training the page-type classifier ([`crate::model::page_type`]) on the
//! pages whose corpus gives their type, from the blocks' out-of-fold
//! probabilities: the profile it reads is then as honest as the one it
//! sees when extracting. Its own out-of-fold predictions (folds grouped by
//! domain, the same folds as the block model's) feed the selection choice
//! and the report's confusion table.

use std::collections::BTreeMap;

use linfa::dataset::DatasetBase;
use linfa::traits::Fit;
use ndarray::{Array1, Array2};
use serde::Serialize;

use super::prepare::PreparedPage;
use crate::config::GbdtConfig;
use crate::error::Result;
use crate::model::page_type::{input_names, input_row};
use crate::model::{PageType, PageTypeGuess, PageTypeModel};
use crate::par::prelude::*;

/// The ensembles' parameters: small trees over a few thousand pages.
pub fn ensemble_config(seed: u64) -> GbdtConfig {
    GbdtConfig {
        n_trees: 150,
        max_depth: 3,
        learning_rate: 0.1,
        min_child_weight: 2.0,
        subsample: 0.8,
        colsample: 0.8,
        seed,
        ..GbdtConfig::default()
    }
}

/// An ensemble without trees whose probability is nil (sigmoid of −30):
/// the type no training page had.
fn never(n_features: usize) -> crate::model::Gbdt {
    crate::model::Gbdt {
        n_features,
        base_score: -30.0,
        trees: Vec::new(),
        importance: vec![0.0; n_features],
    }
}

/// The page's labelled type, when its corpus gives one of the seven.
pub fn label(page: &PreparedPage) -> Option<PageType> {
    PageType::from_name(&page.page_type)
}

/// Every page's input row from its blocks' probabilities.
fn input_rows(pages: &[PreparedPage], probs: &[Vec<f32>]) -> Vec<Vec<f32>> {
    pages
        .par_iter()
        .zip(probs)
        .map(|(p, probs)| input_row(&p.signals, &p.blocks, probs))
        .collect()
}

/// Fits a classifier on the labelled pages of `idx`; `None` when they hold
/// fewer than two types.
fn fit_on(
    pages: &[PreparedPage],
    rows: &[Vec<f32>],
    idx: &[usize],
    seed: u64,
) -> Result<Option<PageTypeModel>> {
    let labelled: Vec<(usize, PageType)> = idx
        .iter()
        .filter_map(|&i| label(&pages[i]).map(|t| (i, t)))
        .collect();
    let kinds: std::collections::BTreeSet<PageType> = labelled.iter().map(|(_, t)| *t).collect();
    if kinds.len() < 2 {
        return Ok(None);
    }
    let d = input_names().len();
    let mut x = Array2::<f32>::zeros((labelled.len(), d));
    for (r, (i, _)) in labelled.iter().enumerate() {
        for (c, v) in rows[*i].iter().enumerate() {
            x[[r, c]] = *v;
        }
    }
    // Unweighted: articles are most of the pages, and weighting the rarer
    // types up (by the square root of their rarity) kept WCXB dev's
    // accuracy but called 25 more of trafilatura-eval's 990 news and blog
    // pages something else (docs/experiments.md, "Page type").
    let ensembles = PageType::ALL
        .par_iter()
        .map(|&kind| {
            let y: Array1<bool> = labelled.iter().map(|(_, t)| *t == kind).collect();
            if !kinds.contains(&kind) {
                // No page of this type to learn from: it is never predicted.
                return Ok(never(d));
            }
            let data = DatasetBase::new(x.clone(), y);
            ensemble_config(seed ^ (kind.index() as u64 + 1) << 8).fit(&data)
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Some(PageTypeModel {
        inputs: input_names(),
        ensembles,
    }))
}

/// The classifier fitted on every labelled page, from `probs` (the blocks'
/// out-of-fold probabilities); `None` when the pages hold fewer than two
/// types.
pub fn fit(pages: &[PreparedPage], probs: &[Vec<f32>], seed: u64) -> Result<Option<PageTypeModel>> {
    let rows = input_rows(pages, probs);
    let all: Vec<usize> = (0..pages.len()).collect();
    fit_on(pages, &rows, &all, seed)
}

/// Each page's out-of-fold guess, and each fold's classifier (`None` for
/// a fold whose training part holds one type).
pub type OutOfFoldTypes = (Vec<Option<PageTypeGuess>>, Vec<Option<PageTypeModel>>);

/// Every page's predicted type out of fold, with each fold's classifier:
/// fold k's pages by a classifier fitted on the other folds' labelled
/// pages (`None` for the pages of a fold whose training part holds one
/// type).
pub fn out_of_fold(
    pages: &[PreparedPage],
    folds: &[usize],
    n_folds: usize,
    probs: &[Vec<f32>],
    seed: u64,
) -> Result<OutOfFoldTypes> {
    let rows = input_rows(pages, probs);
    let mut out = vec![None; pages.len()];
    let mut fits = Vec::with_capacity(n_folds);
    for k in 0..n_folds {
        let train: Vec<usize> = (0..pages.len()).filter(|&i| folds[i] != k).collect();
        let model = fit_on(pages, &rows, &train, seed ^ (k as u64 + 1))?;
        if let Some(model) = &model {
            for i in (0..pages.len()).filter(|&i| folds[i] == k) {
                out[i] = Some(model.guess(&rows[i]));
            }
        }
        fits.push(model);
    }
    Ok((out, fits))
}

/// How well the out-of-fold page types match the labelled ones.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PageTypeReport {
    /// Labelled pages with a prediction.
    pub pages: usize,
    /// Share predicted right, over the seven types.
    pub accuracy: f64,
    /// Among the pages labelled article or forum, the share whose
    /// prediction falls on the right side of article vs forum (a forum
    /// predicted for an article, or anything but forum for a forum, is
    /// wrong).
    pub article_vs_forum: f64,
    /// Per labelled type, the count of each predicted type.
    pub confusion: BTreeMap<String, BTreeMap<String, u32>>,
    /// Per corpus: typed pages and the share predicted right. The news
    /// corpora count as articles and are almost all predicted so; WCXB's
    /// seven types are the hard part.
    pub by_corpus: BTreeMap<String, CorpusTypeAccuracy>,
}

/// A corpus's page-type accuracy out of fold.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CorpusTypeAccuracy {
    /// Typed pages with a prediction.
    pub pages: usize,
    /// Share predicted right.
    pub accuracy: f64,
}

impl PageTypeReport {
    /// The report of `guesses` (one per page) against the pages' labels.
    pub fn new(pages: &[PreparedPage], guesses: &[Option<PageTypeGuess>]) -> PageTypeReport {
        let mut r = PageTypeReport::default();
        let (mut right, mut af, mut af_right) = (0usize, 0usize, 0usize);
        let mut per_corpus: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        for (p, g) in pages.iter().zip(guesses) {
            let (Some(truth), Some(g)) = (label(p), g) else {
                continue;
            };
            r.pages += 1;
            right += usize::from(g.kind == truth);
            let c = per_corpus.entry(p.corpus.as_str()).or_insert((0, 0));
            c.0 += 1;
            c.1 += usize::from(g.kind == truth);
            if matches!(truth, PageType::Article | PageType::Forum) {
                af += 1;
                af_right += usize::from((g.kind == PageType::Forum) == (truth == PageType::Forum));
            }
            *r.confusion
                .entry(truth.name().to_string())
                .or_default()
                .entry(g.kind.name().to_string())
                .or_default() += 1;
        }
        r.accuracy = right as f64 / r.pages.max(1) as f64;
        r.by_corpus = per_corpus
            .into_iter()
            .map(|(name, (pages, right))| {
                let accuracy = right as f64 / pages.max(1) as f64;
                (name.to_string(), CorpusTypeAccuracy { pages, accuracy })
            })
            .collect();
        r.article_vs_forum = af_right as f64 / af.max(1) as f64;
        r
    }

    /// The confusion table as Markdown: a row per labelled type, a column
    /// per predicted type.
    pub fn markdown(&self) -> String {
        let mut out = String::from("| labelled \\ predicted |");
        for t in PageType::ALL {
            out.push_str(&format!(" {} |", t.name()));
        }
        out.push_str(" recall |\n|---|");
        out.push_str(&"---|".repeat(PageType::ALL.len() + 1));
        out.push('\n');
        for truth in PageType::ALL {
            let Some(row) = self.confusion.get(truth.name()) else {
                continue;
            };
            let total: u32 = row.values().sum();
            out.push_str(&format!("| {} |", truth.name()));
            for t in PageType::ALL {
                out.push_str(&format!(" {} |", row.get(t.name()).copied().unwrap_or(0)));
            }
            let right = row.get(truth.name()).copied().unwrap_or(0);
            out.push_str(&format!(
                " {:.3} |\n",
                f64::from(right) / f64::from(total.max(1))
            ));
        }
        out
    }
}
