//! Site adaptation: a trained model carried on with one site's labelled
//! pages, in seconds, instead of a retraining.
//!
//! Two things change, nothing else:
//!
//! - **The id/class token odds** ([`CssOdds::with_site`]): the site's
//!   tokens get odds from the site's own labels, blended with the base
//!   odds. A token seen on this site only gets odds too (training's
//!   minimum number of domains is meant for a general model; this one is
//!   for this site).
//! - **The stage that decides gets more trees**: gradient boosting goes on
//!   from the base ensemble's log-odds on the site's blocks
//!   ([`boost_from`]), and the new trees are appended to it. On a stacked
//!   model that is the second stage; the first stays as trained (only its
//!   id/class columns read the new odds), so the second stage's inputs on
//!   the site's pages are first-stage probabilities as honest as the ones
//!   it was trained on. A single-stage model gets its trees in the first.
//!
//! No leakage within the site: the id/class columns a page's rows carry
//! while the new trees are fitted come from odds updated with the *other*
//! site pages only (with one page, the base odds), as training fits the
//! odds out of fold; the model written carries odds updated with all of
//! them. The decision threshold stays the base model's: the site's pages
//! are in-sample for the new trees, so a threshold chosen on them would be
//! chosen on over-confident probabilities.
//!
//! Everything is sequential over a fixed page order, so the same base,
//! pages and configuration give the same model bytes.

use std::path::PathBuf;

use ndarray::Array2;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::rows::{assemble, css_columns, page_matrix, predict_matrix, stacked_page_matrix, Rows};
use super::{prepare_all, read_corpora, PreparedPage};
use crate::config::{GbdtConfig, TrainConfig};
use crate::error::{Error, Result, TrainingError};
use crate::features::CssOdds;
use crate::model::gbdt::boost_from;
use crate::model::{Gbdt, Model};

/// How a model is adapted to a site. [`AdaptConfig::check`] names a bad
/// field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AdaptConfig {
    /// Trees added to the stage that decides (0: only the id/class odds
    /// are updated). 10 by default: leaving one page out on the WCXB and
    /// news sites with several pages (`examples/adapt_lab.rs`), 10 trees
    /// gained about as much as 30 where the adaptation pages had the
    /// page's type, and lost a third as much where they did not.
    pub trees: usize,
    /// Shrinkage of the added trees' leaves.
    pub learning_rate: f32,
    /// Depth of the added trees (shallow: a site gives few rows).
    pub max_depth: usize,
    /// Minimum hessian (weighted) in a child of an added tree.
    pub min_child_weight: f32,
    /// L2 regularisation of the added trees' leaves.
    pub lambda: f32,
    /// Share of the site's rows each added tree sees.
    pub subsample: f32,
    /// Share of the features each added tree may split on.
    pub colsample: f32,
    /// Seed of the added trees' row and feature sampling.
    pub seed: u64,
    /// Weight of the site's own evidence in the id/class odds, in domains.
    pub odds_site_weight: f32,
    /// Weight of a token's base odds in the update, in domains.
    pub odds_prior_weight: f32,
}

impl Default for AdaptConfig {
    fn default() -> Self {
        AdaptConfig {
            trees: 10,
            learning_rate: 0.1,
            max_depth: 3,
            min_child_weight: 1.0,
            lambda: 1.0,
            subsample: 1.0,
            colsample: 1.0,
            seed: 42,
            odds_site_weight: 5.0,
            odds_prior_weight: 5.0,
        }
    }
}

impl AdaptConfig {
    /// Checks every field; returns the first invalid one.
    pub fn check(&self) -> Result<()> {
        // The ensemble's checks, named by this struct's fields (0 trees:
        // the odds alone are updated).
        let ens = GbdtConfig {
            n_trees: self.trees.max(1),
            ..self.ensemble()
        };
        ens.check().map_err(|e| match e {
            Error::Config { field, reason } => Error::Config {
                field: match &*field {
                    "ensemble.n_trees" => "trees".into(),
                    "ensemble.max_depth" => "max_depth".into(),
                    "ensemble.learning_rate" => "learning_rate".into(),
                    "ensemble.min_child_weight" => "min_child_weight".into(),
                    "ensemble.lambda" => "lambda".into(),
                    "ensemble.subsample" => "subsample".into(),
                    "ensemble.colsample" => "colsample".into(),
                    _ => field,
                },
                reason,
            },
            other => other,
        })?;
        for (field, w) in [
            ("odds_site_weight", self.odds_site_weight),
            ("odds_prior_weight", self.odds_prior_weight),
        ] {
            if !(w.is_finite() && (0.0..=1000.0).contains(&w)) {
                return Err(Error::Config {
                    field: field.into(),
                    reason: format!("{w} must lie in 0..=1000"),
                });
            }
        }
        Ok(())
    }

    /// The added trees' ensemble parameters.
    pub fn ensemble(&self) -> GbdtConfig {
        GbdtConfig {
            n_trees: self.trees,
            max_depth: self.max_depth,
            learning_rate: self.learning_rate,
            min_child_weight: self.min_child_weight,
            lambda: self.lambda,
            subsample: self.subsample,
            colsample: self.colsample,
            seed: self.seed,
            ..GbdtConfig::default()
        }
    }
}

/// An adapted model and what adaptation did.
#[derive(Debug, Clone)]
pub struct Adapted {
    /// The model: the base with more trees and updated odds; an ordinary
    /// model file once saved.
    pub model: Model,
    /// The stage that got the trees (1 or 2).
    pub stage: u8,
    /// Site pages used.
    pub pages: usize,
    /// Training rows (labelled blocks with words) of the site's pages.
    pub rows: usize,
    /// id/class tokens whose odds the site set or moved.
    pub tokens_updated: usize,
}

/// The training configuration the base model was trained with (from its
/// metadata), so that site pages are labelled, featurised and weighted as
/// its training pages were, without class-free copies; the default when the
/// metadata has none.
pub fn base_train_config(base: &Model) -> TrainConfig {
    let mut cfg: TrainConfig =
        serde_json::from_str(&base.meta.train_config_json).unwrap_or_default();
    // The site's pages as written: class-free copies are a choice of the
    // base's training data, not of its columns.
    cfg.class_free_copies = false;
    cfg
}

/// Adapts `base` to the site whose labelled pages are `pages` (prepared
/// with [`base_train_config`] and the base's CETR settings, as
/// [`adapt_corpora`] does). See the module documentation for what changes.
/// Errors: no pages, no labelled block with words among them, a bad
/// configuration, or a base model that does not validate against this
/// build's feature schema.
pub fn adapt(base: &Model, pages: &[PreparedPage], cfg: &AdaptConfig) -> Result<Adapted> {
    cfg.check()?;
    base.validate()?;
    if pages.is_empty() {
        return Err(TrainingError::NoPages.into());
    }
    let want = base.feature_set().len();
    if let Some(p) = pages.iter().find(|p| p.features.ncols() != want) {
        return Err(TrainingError::Other(format!(
            "page {} was prepared with {} feature columns, the model reads {want} \
             (prepare site pages with base_train_config)",
            p.id,
            p.features.ncols()
        ))
        .into());
    }
    let train_cfg = base_train_config(base);
    let stats = |skip: Option<usize>| {
        pages
            .iter()
            .enumerate()
            .filter(move |(j, _)| Some(*j) != skip)
            .map(|(_, p)| &p.token_stats)
    };
    let site_odds = |skip: Option<usize>| -> CssOdds {
        base.css_odds.with_site(
            stats(skip),
            cfg.odds_site_weight,
            cfg.odds_prior_weight,
            train_cfg.css_smoothing,
        )
    };
    // Each page's id/class columns from the odds of the other site pages.
    let css: Vec<Array2<f32>> = (0..pages.len())
        .map(|i| css_columns(&pages[i], &site_odds(Some(i)), &base.cetr))
        .collect();
    let refs: Vec<&PreparedPage> = pages.iter().collect();
    let (ensemble, stage) = match &base.stage2 {
        None => (&base.ensemble, 1u8),
        Some(s2) => (s2, 2u8),
    };
    let matrices: Vec<Array2<f32>> = refs
        .iter()
        .zip(&css)
        .map(|(p, css)| {
            let m1 = page_matrix(p, css, None);
            if stage == 1 {
                m1
            } else {
                let p1 = predict_matrix(&|r: &[f32]| base.ensemble.predict_row(r), p, &m1);
                stacked_page_matrix(p, css, None, &p1)
            }
        })
        .collect();
    let fs = base.feature_set();
    let d = if stage == 1 {
        fs.len()
    } else {
        fs.stacked_names().len()
    };
    let Rows { x, y, w, .. } = assemble(&refs, d, &train_cfg, |k| matrices[k].clone());
    if x.nrows() == 0 {
        return Err(TrainingError::NoRows.into());
    }
    let init: Vec<f32> = x
        .rows()
        .into_iter()
        .map(|r| ensemble.margin_row(r.as_slice().expect("standard layout")))
        .collect();
    let w = w.to_vec();
    let added = if cfg.trees == 0 {
        Gbdt {
            n_features: ensemble.n_features,
            base_score: 0.0,
            trees: Vec::new(),
            importance: vec![0.0; ensemble.n_features],
        }
    } else {
        boost_from(&cfg.ensemble(), &x, y.view(), &w, &init)?
    };
    let grown = Gbdt {
        n_features: ensemble.n_features,
        base_score: ensemble.base_score,
        trees: ensemble.trees.iter().chain(&added.trees).cloned().collect(),
        importance: ensemble
            .importance
            .iter()
            .zip(&added.importance)
            .map(|(a, b)| a + b)
            .collect(),
    };
    let css_odds = site_odds(None);
    let tokens_updated = {
        let mut toks: Vec<&str> = stats(None)
            .flat_map(|s| s.tokens.iter().filter(|t| t.2 > 0.0).map(|t| &*t.0))
            .collect();
        toks.sort_unstable();
        toks.dedup();
        toks.len()
    };
    let mut model = base.clone();
    model.css_odds = css_odds;
    match stage {
        1 => model.ensemble = grown,
        _ => model.stage2 = Some(grown),
    }
    let mut h = Sha256::new();
    h.update(base.meta.dataset_hash.as_bytes());
    h.update(b"adapt");
    for p in pages {
        h.update(p.hash);
    }
    model.meta.dataset_hash = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    model.meta.pages += pages.len() as u64;
    model.meta.blocks += x.nrows() as u64;
    let base_metrics: serde_json::Value =
        serde_json::from_str(&base.meta.metrics_json).unwrap_or_default();
    model.meta.metrics_json = serde_json::json!({
        "adapted": {
            "pages": pages.len(),
            "rows": x.nrows(),
            "stage": stage,
            "trees_added": added.trees.len(),
            "tokens_updated": tokens_updated,
            "config": cfg,
        },
        "base": base_metrics,
    })
    .to_string();
    model.validate()?;
    Ok(Adapted {
        model,
        stage,
        pages: pages.len(),
        rows: x.nrows(),
        tokens_updated,
    })
}

/// Reads the site's corpora (any layout `train --corpus` reads), prepares
/// their pages as the base was trained ([`base_train_config`], the base's
/// CETR settings) and [`adapt`]s. Pages that cannot be prepared are
/// returned beside the result, with why.
pub fn adapt_corpora(
    base: &Model,
    dirs: &[PathBuf],
    cfg: &AdaptConfig,
) -> Result<(Adapted, Vec<(String, Error)>)> {
    cfg.check()?;
    base.validate()?;
    let pages = read_corpora(dirs)?;
    let (prepared, skipped) = prepare_all(&pages, &base_train_config(base), &base.cetr, &|| {});
    if prepared.is_empty() {
        return Err(match skipped.first() {
            Some((id, e)) => {
                TrainingError::Other(format!("no site page could be prepared (page {id}: {e})"))
                    .into()
            }
            None => TrainingError::NoPages.into(),
        });
    }
    Ok((adapt(base, &prepared, cfg)?, skipped))
}
