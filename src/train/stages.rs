//! The two stages' fits: the learner (ensemble, bagged members, the
//! baseline tree), the first stage with self-training, and first-stage
//! probabilities predicted out of fold for the second stage.

use linfa::prelude::*;
use ndarray::{Array1, Array2};

use super::prepare::PreparedPage;
use super::rows::{
    assemble, css_columns, fit_odds, out_of_fold_css, page_matrix, predict_matrix, Rows,
};
use crate::config::{CetrConfig, SelfTraining, TrainConfig};
use crate::error::{Result, TrainingError};
use crate::features::{CssOdds, FeatureSet};
use crate::par::prelude::*;

/// A fitted learner: the ensemble (which a model file can carry) or the
/// baseline tree.
pub(super) enum FittedLearner {
    Ensemble(crate::model::Gbdt),
    Tree(linfa_trees::DecisionTree<f32, bool>),
}

impl FittedLearner {
    /// The probability of a feature row (0 or 1 for the tree).
    pub(super) fn predict(&self, row: &[f32]) -> f32 {
        match self {
            FittedLearner::Ensemble(model) => model.predict_row(row),
            FittedLearner::Tree(tree) => {
                let a = Array2::from_shape_vec((1, row.len()), row.to_vec()).expect("one row");
                if tree.predict(&a)[0] {
                    1.0
                } else {
                    0.0
                }
            }
        }
    }

    /// The ensemble, if this is one.
    pub(super) fn ensemble(&self) -> Option<&crate::model::Gbdt> {
        match self {
            FittedLearner::Ensemble(model) => Some(model),
            FittedLearner::Tree(_) => None,
        }
    }
}

/// Out-of-fold probabilities of the test pages of one fold, by page index.
pub(super) type FoldPredictions = Vec<(usize, Vec<f32>)>;

/// What the learner is: the ensemble, or a single linfa-trees decision
/// tree (the reference baseline).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Learner {
    /// The gradient-boosted ensemble.
    Ensemble,
    /// linfa-trees `DecisionTree` (depth 8), probabilities 0 or 1.
    BaselineTree,
}

/// Which of the two stages a fit is for (they may have their own
/// ensemble parameters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Stage {
    First,
    Second,
}

/// Fits the ensemble of `stage` with the run's seed; with a bag
/// ([`TrainConfig::bag`]), each member on the same rows with its own page
/// weighting and seed, averaged into one ensemble ([`Gbdt::average`]).
///
/// [`Gbdt::average`]: crate::model::Gbdt::average
pub(super) fn fit_ensemble(
    cfg: &TrainConfig,
    stage: Stage,
    rows: Rows,
) -> Result<crate::model::Gbdt> {
    let mut ens = match stage {
        Stage::First => cfg.ensemble.clone(),
        Stage::Second => cfg.stage2_params().clone(),
    };
    ens.seed = cfg.seed;
    let Rows {
        x,
        y,
        w,
        page_ratio,
    } = rows;
    if cfg.bag.is_empty() {
        return ens.fit(&Dataset::new(x, y).with_weights(w));
    }
    let mut data = Dataset::new(x, y).with_weights(w.clone());
    let mut members = vec![ens.fit(&data)?];
    for m in &cfg.bag {
        let power = m.page_weight_power - cfg.page_weight_power;
        let wm: Array1<f32> = w
            .iter()
            .zip(&page_ratio)
            .map(|(&w, &r)| if power == 0.0 { w } else { w * r.powf(power) })
            .collect();
        data = data.with_weights(wm);
        let mut e = ens.clone();
        e.seed = cfg.seed.wrapping_add(m.seed_offset);
        members.push(e.fit(&data)?);
    }
    crate::model::Gbdt::average(&members)
        .ok_or_else(|| TrainingError::Other("bag members read different columns".into()).into())
}

/// Fits `learner` on rows.
pub(super) fn fit_learner(
    learner: Learner,
    cfg: &TrainConfig,
    stage: Stage,
    rows: Rows,
) -> Result<FittedLearner> {
    match learner {
        Learner::Ensemble => Ok(FittedLearner::Ensemble(fit_ensemble(cfg, stage, rows)?)),
        Learner::BaselineTree => {
            let data = Dataset::new(rows.x, rows.y).with_weights(rows.w);
            let tree = linfa_trees::DecisionTree::params()
                .max_depth(Some(8))
                .fit(&data)
                .map_err(|e| TrainingError::Other(e.to_string()))?;
            Ok(FittedLearner::Tree(tree))
        }
    }
}

/// A fitted first stage: the predictor and the id/class odds it reads.
pub(super) struct Stage1 {
    pub(super) fitted: FittedLearner,
    pub(super) odds: CssOdds,
    /// The id/class columns of the training pages, fitted out of fold.
    pub(super) css_train: Vec<Array2<f32>>,
}

/// Fits the first stage on `train`. With `self_train` and
/// [`TrainConfig::self_training`] set, the stage is fitted again after the
/// snippet pages of `train` were relabelled by it: `relabelled[j]` then
/// replaces `train[j]` (see [`training_pages`]); else no page is
/// relabelled. The baseline tree is never self-trained.
pub(super) fn fit_stage1(
    train: &[&PreparedPage],
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    learner: Learner,
    active: Option<&[bool]>,
    seed: u64,
    self_train: bool,
) -> Result<(Stage1, Vec<Option<PreparedPage>>)> {
    if learner == Learner::Ensemble && self_train && cfg.self_training.is_some() {
        let first = fit_first_ensemble(train, cfg, cetr, active, seed)?;
        let stage1 = Stage1 {
            fitted: FittedLearner::Ensemble(first.ensemble),
            odds: fit_odds(train, cfg),
            css_train: first.css,
        };
        return Ok((stage1, first.relabelled));
    }
    let (css_train, rows) = stage1_rows(train, cfg, cetr, active, seed);
    let stage1 = Stage1 {
        fitted: fit_learner(learner, cfg, Stage::First, rows)?,
        odds: fit_odds(train, cfg),
        css_train,
    };
    Ok((stage1, Vec::new()))
}

/// A fitted first-stage ensemble and what it was fitted on.
pub(super) struct FirstEnsemble {
    /// The id/class columns of the training pages, fitted out of fold.
    pub(super) css: Vec<Array2<f32>>,
    pub(super) ensemble: crate::model::Gbdt,
    /// Training rows of the (last) fit.
    pub(super) rows: usize,
    /// The relabelled snippet pages of a self-trained fit (else empty).
    pub(super) relabelled: Vec<Option<PreparedPage>>,
}

/// Fits the first-stage ensemble on `train`; with self-training
/// ([`TrainConfig::self_training`]) the snippet pages are relabelled by
/// the fitted ensemble ([`self_label`]) and it is fitted again. The id/class
/// columns stay those of the first fit: their odds learn from known labels
/// only.
pub(super) fn fit_first_ensemble(
    train: &[&PreparedPage],
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    active: Option<&[bool]>,
    seed: u64,
) -> Result<FirstEnsemble> {
    let (css, rows) = stage1_rows(train, cfg, cetr, active, seed);
    let mut n = rows.x.nrows();
    let mut ensemble = fit_ensemble(cfg, Stage::First, rows)?;
    let relabelled = match &cfg.self_training {
        Some(st) => self_label(train, &|r| ensemble.predict_row(r), &css, st, active),
        None => Vec::new(),
    };
    if relabelled.iter().any(Option::is_some) {
        let pages = training_pages(train, &relabelled);
        let rows = first_stage_rows(&pages, &css, cfg, active);
        n = rows.x.nrows();
        ensemble = fit_ensemble(cfg, Stage::First, rows)?;
    }
    Ok(FirstEnsemble {
        css,
        ensemble,
        rows: n,
        relabelled,
    })
}

/// `train` with each page replaced by its relabelled copy where one exists.
pub(super) fn training_pages<'a>(
    train: &[&'a PreparedPage],
    relabelled: &'a [Option<PreparedPage>],
) -> Vec<&'a PreparedPage> {
    train
        .iter()
        .enumerate()
        .map(|(j, p)| relabelled.get(j).and_then(Option::as_ref).unwrap_or(p))
        .collect()
}

/// Copies of the snippet pages of `train` in which every block no snippet
/// decides takes the label the fitted first stage gives it where the stage
/// is confident (probability at most `low` or at least `high`); `None` for
/// the pages with gold text, which keep their labels.
pub(super) fn self_label(
    train: &[&PreparedPage],
    predict: &(dyn Fn(&[f32]) -> f32 + Sync),
    css_train: &[Array2<f32>],
    st: &SelfTraining,
    active: Option<&[bool]>,
) -> Vec<Option<PreparedPage>> {
    train
        .par_iter()
        .zip(css_train)
        .map(|(p, css)| {
            p.snippets.as_ref()?;
            let probs = predict_matrix(predict, p, &page_matrix(p, css, active));
            let mut q = (*p).clone();
            q.pseudo = vec![false; q.known.len()];
            for (i, &prob) in probs.iter().enumerate() {
                let sure = prob <= st.low || prob >= st.high;
                if !q.known[i] && q.blocks.blocks[i].words > 0 && sure {
                    q.known[i] = true;
                    q.labels[i] = prob >= st.high;
                    q.pseudo[i] = true;
                }
            }
            Some(q)
        })
        .collect()
}

/// The first stage's training rows of `train`: the id/class columns fitted
/// out of fold (inner folds seeded by `seed`), and the assembled features,
/// labels and weights.
pub(super) fn stage1_rows(
    train: &[&PreparedPage],
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    active: Option<&[bool]>,
    seed: u64,
) -> (Vec<Array2<f32>>, Rows) {
    let css_train = out_of_fold_css(train, cfg, cetr, seed);
    let rows = first_stage_rows(train, &css_train, cfg, active);
    (css_train, rows)
}

/// The first stage's training rows of `pages`, whose id/class columns are
/// `css`.
pub(super) fn first_stage_rows(
    pages: &[&PreparedPage],
    css: &[Array2<f32>],
    cfg: &TrainConfig,
    active: Option<&[bool]>,
) -> Rows {
    let d = FeatureSet::for_training(cfg).len();
    assemble(pages, d, cfg, |k| page_matrix(pages[k], &css[k], active))
}

/// First-stage probabilities of every block of `pages`, each page predicted
/// by a model fitted on the other folds (`folds[i]` in `0..k`).
pub(super) fn out_of_fold_stage1(
    pages: &[&PreparedPage],
    folds: &[usize],
    k: usize,
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    active: Option<&[bool]>,
    seed: u64,
) -> Result<Vec<Vec<f32>>> {
    let per_fold: Vec<Result<FoldPredictions>> = (0..k)
        .into_par_iter()
        .map(|j| {
            let train: Vec<&PreparedPage> = pages
                .iter()
                .zip(folds)
                .filter(|(_, &f)| f != j)
                .map(|(p, _)| *p)
                .collect();
            // The pages are already relabelled when self-training: these
            // inner fits give the second stage its inputs and fit once.
            let (stage1, _) = fit_stage1(
                &train,
                cfg,
                cetr,
                Learner::Ensemble,
                active,
                seed ^ (j as u64 + 1),
                false,
            )?;
            Ok((0..pages.len())
                .filter(|&i| folds[i] == j)
                .map(|i| {
                    let css = css_columns(pages[i], &stage1.odds, cetr);
                    let m = page_matrix(pages[i], &css, active);
                    (
                        i,
                        predict_matrix(&|r| stage1.fitted.predict(r), pages[i], &m),
                    )
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
