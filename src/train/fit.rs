//! Final fits: the shipped model on every page, one model per fold, a
//! single stage with a fixed threshold; and a model's predictions on
//! prepared pages.

use std::time::Instant;

use sha2::{Digest, Sha256};

use super::cross_validation::{check_config, feasible_folds, score_out_of_fold, OutOfFold};
use super::cv;
use super::prepare::PreparedPage;
use super::report::CvReport;
use super::rows::{
    assemble, css_columns, fit_odds, page_matrix, predict_matrix, stacked_page_matrix,
};
use super::selection::{grid, Choice, ScoreTable};
use super::stages::{
    fit_ensemble, fit_first_ensemble, stage1_rows, training_pages, FirstEnsemble, Learner, Stage,
};
use crate::config::{CetrConfig, TrainConfig};
use crate::error::{Result, TrainingError};
use crate::features::{CssOdds, FeatureSet};
use crate::model::{LearnedSelection, Model, TrainingMeta};
use crate::par::prelude::*;

/// Fits the final model on all pages; `oof` are the cross-validated
/// probabilities: the second stage trains on their first stage, and the
/// shipped threshold is chosen on the last.
pub fn fit_final(
    pages: &[PreparedPage],
    oof: &OutOfFold,
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    cv: &CvReport,
) -> Result<Model> {
    fit_final_masked(pages, oof, cfg, cetr, cv, None)
}

pub(super) fn fit_final_masked(
    pages: &[PreparedPage],
    oof: &OutOfFold,
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    cv: &CvReport,
    active: Option<&[bool]>,
) -> Result<Model> {
    let all: Vec<&PreparedPage> = pages.iter().collect();
    let FirstEnsemble {
        css,
        ensemble,
        rows,
        relabelled,
    } = fit_first_ensemble(&all, cfg, cetr, active, cfg.seed)?;
    let fs = FeatureSet::for_training(cfg);
    let all = training_pages(&all, &relabelled);
    let stage2 = if cfg.stacking && oof.stage1.len() == pages.len() {
        let d2 = fs.stacked_names().len();
        let stacked = assemble(&all, d2, cfg, |k| {
            stacked_page_matrix(all[k], &css[k], None, &oof.stage1[k])
        });
        Some(fit_ensemble(cfg, Stage::Second, stacked)?)
    } else {
        None
    };
    // Without cross-validation (a corpus of one site) no out-of-fold
    // probabilities exist to choose the selection on: threshold 0.5, the
    // logistic loss's own boundary, and the default constants.
    let choice = if oof.last.len() == pages.len() {
        ScoreTable::new(pages, &oof.last, &oof.types(), grid(cfg, Learner::Ensemble))
            .best(pages, 0..pages.len())
            .0
    } else {
        no_cv_choice()
    };
    // The classifier learns from out-of-fold probabilities, as honest as
    // those it sees when extracting; without them there is none.
    let page_type = if cfg.page_type && oof.last.len() == pages.len() {
        super::page_type::fit(pages, &oof.last, cfg.seed)?
    } else {
        None
    };
    // The confidence model learns every word-scored page's out-of-fold
    // score from its out-of-fold inputs, as cross-validation measured them.
    let confidence = if cfg.confidence && cv.pages.len() == pages.len() {
        let inputs = super::confidence::input_rows(
            pages,
            &super::confidence::RowSources {
                probs: &oof.last,
                scores: &cv.pages,
                fold_thresholds: &cv.fold_thresholds,
                types: &oof.page_types,
            },
        );
        let every: Vec<usize> = (0..pages.len()).collect();
        super::confidence::fit_on(
            &inputs,
            &cv.pages,
            &every,
            &super::confidence::ensemble_config(cfg.seed),
        )?
    } else {
        None
    };
    assemble_model(
        &all,
        Fitted {
            ensemble,
            stage2,
            css_odds: fit_odds(&all, cfg),
            choice,
            page_type,
            confidence,
            rows,
        },
        cfg,
        cetr,
        serde_json::to_string(cv).unwrap_or_default(),
    )
}

/// The decision threshold of a model fitted without cross-validation.
pub const NO_CV_THRESHOLD: f32 = 0.5;

/// The selection of a model fitted without cross-validation:
/// [`NO_CV_THRESHOLD`] and the default learned constants.
pub fn no_cv_choice() -> Choice {
    Choice {
        threshold: NO_CV_THRESHOLD,
        learned: LearnedSelection::default(),
    }
}

/// What a fit produced, before it becomes a [`Model`].
pub(super) struct Fitted {
    pub(super) ensemble: crate::model::Gbdt,
    pub(super) stage2: Option<crate::model::Gbdt>,
    pub(super) css_odds: CssOdds,
    pub(super) choice: Choice,
    pub(super) page_type: Option<crate::model::PageTypeModel>,
    pub(super) confidence: Option<crate::model::ConfidenceModel>,
    pub(super) rows: usize,
}

/// A validated model from a fit on `pages`, with its provenance.
pub(super) fn assemble_model(
    pages: &[&PreparedPage],
    fitted: Fitted,
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    metrics_json: String,
) -> Result<Model> {
    let fs = FeatureSet::for_training(cfg);
    let model = Model {
        schema: fs.names(),
        schema_hash: fs.schema_hash(),
        css_odds: fitted.css_odds,
        ensemble: fitted.ensemble,
        stage2: fitted.stage2,
        threshold: fitted.choice.threshold,
        selection: fitted.choice.learned,
        page_type: fitted.page_type,
        confidence: fitted.confidence,
        cetr: cetr.clone(),
        meta: TrainingMeta {
            dechrome_version: env!("CARGO_PKG_VERSION").to_string(),
            dataset_hash: dataset_hash(pages),
            pages: pages.len() as u64,
            blocks: fitted.rows as u64,
            seed: cfg.seed,
            train_config_json: serde_json::to_string(cfg).unwrap_or_default(),
            metrics_json,
        },
    };
    model.validate()?;
    Ok(model)
}

/// SHA-256 (hex) over the pages' own hashes (bytes, gold, labels), in order.
pub(super) fn dataset_hash(pages: &[&PreparedPage]) -> String {
    let mut h = Sha256::new();
    for p in pages {
        h.update(p.hash);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// One single-stage model per cross-validation fold, each fitted on the
/// other folds' pages, as [`cross_validate`](super::cross_validate) fits them: the same folds,
/// seeds, out-of-fold id/class columns and thresholds (each fold's chosen
/// on the other folds' out-of-fold probabilities), kept as whole models
/// so that a held-out page can be scored, or a held-out site adapted to,
/// by a model that never saw its domain.
pub struct FoldModels {
    /// The fold of each page (pages of a domain share one).
    pub folds: Vec<usize>,
    /// The model of each fold (fitted without that fold's pages).
    pub models: Vec<Model>,
    /// The cross-validation these models make (equal to
    /// [`cross_validate`](super::cross_validate)'s with `stacking` off).
    pub cv: CvReport,
}

/// Fits [`FoldModels`] over `pages` (`cfg.stacking` must be off: the fold
/// models have one stage).
pub fn fold_models(
    pages: &[PreparedPage],
    cfg: &TrainConfig,
    cetr: &CetrConfig,
) -> Result<FoldModels> {
    check_config(cfg)?;
    if cfg.stacking {
        return Err(TrainingError::Other(
            "fold models have one stage: set stacking to false".into(),
        )
        .into());
    }
    if feasible_folds(pages, cfg) != cfg.folds {
        let sites: std::collections::BTreeSet<&str> =
            pages.iter().map(|p| p.domain.as_str()).collect();
        return Err(TrainingError::TooFewSites {
            sites: sites.len(),
            folds: cfg.folds,
        }
        .into());
    }
    let start = Instant::now();
    let domains: Vec<&str> = pages.iter().map(|p| p.domain.as_str()).collect();
    let folds = cv::assign_folds(&domains, cfg.folds, cfg.seed);
    let fitted: Vec<Result<(Vec<&PreparedPage>, Fitted)>> = (0..cfg.folds)
        .into_par_iter()
        .map(|k| {
            let train: Vec<&PreparedPage> = pages
                .iter()
                .zip(&folds)
                .filter(|(_, &f)| f != k)
                .map(|(p, _)| p)
                .collect();
            let first = fit_first_ensemble(&train, cfg, cetr, None, cfg.seed ^ (k as u64 + 1))?;
            let (ensemble, rows) = (first.ensemble, first.rows);
            let css_odds = fit_odds(&train, cfg);
            Ok((
                train,
                Fitted {
                    ensemble,
                    stage2: None,
                    css_odds,
                    choice: no_cv_choice(),
                    page_type: None,
                    confidence: None,
                    rows,
                },
            ))
        })
        .collect();
    let fitted: Vec<(Vec<&PreparedPage>, Fitted)> = fitted.into_iter().collect::<Result<_>>()?;
    let probs: Vec<Vec<f32>> = pages
        .par_iter()
        .zip(&folds)
        .map(|(p, &f)| {
            let fit = &fitted[f].1;
            let css = css_columns(p, &fit.css_odds, cetr);
            let m = page_matrix(p, &css, None);
            predict_matrix(&|r: &[f32]| fit.ensemble.predict_row(r), p, &m)
        })
        .collect();
    let scored = score_out_of_fold(pages, &folds, &probs, &[], cfg, Learner::Ensemble);
    let choices = scored.choices.clone();
    let cv = CvReport::new(cfg.folds, scored, start);
    let models = fitted
        .into_iter()
        .zip(choices)
        .map(|((train, mut fit), choice)| {
            fit.choice = choice;
            assemble_model(&train, fit, cfg, cetr, String::new())
        })
        .collect::<Result<Vec<Model>>>()?;
    Ok(FoldModels { folds, models, cv })
}

/// Fits a single-stage model on `pages` with a fixed decision `threshold`
/// (and the default learned selection constants) and no cross-validation (each page weighs its [`PreparedPage::weight`]):
/// for experiments that refit a fold model with pages added.
pub fn fit_single_stage(
    pages: &[&PreparedPage],
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    seed: u64,
    threshold: f32,
) -> Result<Model> {
    check_config(cfg)?;
    let (_, stage1) = stage1_rows(pages, cfg, cetr, None, seed);
    let rows = stage1.x.nrows();
    let ensemble = fit_ensemble(cfg, Stage::First, stage1)?;
    let fitted = Fitted {
        ensemble,
        stage2: None,
        css_odds: fit_odds(pages, cfg),
        choice: Choice {
            threshold,
            learned: LearnedSelection::default(),
        },
        page_type: None,
        confidence: None,
        rows,
    };
    assemble_model(pages, fitted, cfg, cetr, String::new())
}

/// Predicts a prepared page's blocks with a finished model, both stages
/// (used by tests and analyses that hold prepared pages).
pub fn predict_prepared(model: &Model, page: &PreparedPage) -> Vec<f32> {
    let css = css_columns(page, &model.css_odds, &model.cetr);
    let m = page_matrix(page, &css, None);
    let p1 = predict_matrix(&|r: &[f32]| model.ensemble.predict_row(r), page, &m);
    match &model.stage2 {
        Some(s2) => {
            let m2 = stacked_page_matrix(page, &css, None, &p1);
            predict_matrix(&|r: &[f32]| s2.predict_row(r), page, &m2)
        }
        None => p1,
    }
}

/// The model of cross-validation fold `k`: the fold's fit ([`FoldFit`](super::FoldFit),
/// fitted without the fold's pages) with the fold's selection (chosen on
/// the other folds' out-of-fold probabilities) and page-type classifier, as a whole model that
/// `Extractor` can run on the fold's pages. Fails for the baseline tree,
/// which leaves no fits.
pub fn fold_model(
    pages: &[PreparedPage],
    oof: &OutOfFold,
    cv: &CvReport,
    k: usize,
    cfg: &TrainConfig,
    cetr: &CetrConfig,
) -> Result<Model> {
    let (Some(fit), Some(&threshold), Some(&learned)) = (
        oof.fits.get(k),
        cv.fold_thresholds.get(k),
        cv.fold_selection.get(k),
    ) else {
        return Err(TrainingError::Other(format!(
            "no fit for fold {k}: the cross-validation has {} fold fits",
            oof.fits.len()
        ))
        .into());
    };
    let train: Vec<&PreparedPage> = fit.train.iter().map(|&i| &pages[i]).collect();
    let rows = train.iter().map(|p| p.labelled_rows()).sum();
    let fitted = Fitted {
        ensemble: fit.stage1.clone(),
        stage2: fit.stage2.clone(),
        css_odds: fit.odds.clone(),
        choice: Choice { threshold, learned },
        page_type: oof.page_type_fits.get(k).cloned().flatten(),
        confidence: oof.confidence_fits.get(k).cloned().flatten(),
        rows,
    };
    assemble_model(&train, fitted, cfg, cetr, String::new())
}
