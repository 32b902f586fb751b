//! Domain-grouped cross-validation: out-of-fold probabilities of both
//! stages, each fold's selection chosen on the other folds, and the
//! out-of-fold scores of what extraction keeps.

use std::time::Instant;

use ndarray::Array2;

use super::confidence;
use super::cv;
use super::job::{Quiet, TrainProgress};
use super::page_type;
use super::prepare::PreparedPage;
use super::report::{CvReport, PageScore};
use super::rows::{assemble, css_columns, page_matrix, predict_matrix, stacked_page_matrix};
use super::selection::{grid, Choice, ScoreTable, SelectionEvidence};
use super::stages::{
    fit_learner, fit_stage1, out_of_fold_stage1, training_pages, FittedLearner, Learner, Stage,
};
use crate::config::{CetrConfig, TrainConfig};
use crate::error::{Result, TrainingError};
use crate::eval::{Prf, WordReport};
use crate::features::{CssOdds, FeatureSet};
use crate::model::PageType;
use crate::par::prelude::*;

/// Out-of-fold probabilities of every block of every page: the first
/// stage's, and the second stage's when `stacked` (else a copy of the
/// first). For the second stage of outer fold k, the training pages' first-
/// stage probabilities come from inner folds, so that stage learns from
/// probabilities as honest as those it will see on the held-out pages.
#[allow(clippy::too_many_arguments)]
pub(super) fn out_of_fold_probs(
    pages: &[PreparedPage],
    folds: &[usize],
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    learner: Learner,
    active: Option<&[bool]>,
    stacked: bool,
    progress: &dyn TrainProgress,
) -> Result<OutOfFold> {
    let fs = FeatureSet::for_training(cfg);
    let (d, d2) = (fs.len(), fs.stacked_names().len());
    type Both = (Vec<(usize, Vec<f32>, Vec<f32>)>, Option<FoldFit>);
    let per_fold: Vec<Result<Both>> = (0..cfg.folds)
        .into_par_iter()
        .map(|k| {
            let train: Vec<&PreparedPage> = pages
                .iter()
                .zip(folds)
                .filter(|(_, &f)| f != k)
                .map(|(p, _)| p)
                .collect();
            let test: Vec<usize> = (0..pages.len()).filter(|&i| folds[i] == k).collect();
            let seed = cfg.seed ^ (k as u64 + 1);
            let (stage1, relabelled) = fit_stage1(&train, cfg, cetr, learner, active, seed, true)?;
            let train = training_pages(&train, &relabelled);
            let test_css: Vec<Array2<f32>> = test
                .iter()
                .map(|&i| css_columns(&pages[i], &stage1.odds, cetr))
                .collect();
            let p1: Vec<Vec<f32>> = test
                .iter()
                .zip(&test_css)
                .map(|(&i, css)| {
                    predict_matrix(
                        &|r| stage1.fitted.predict(r),
                        &pages[i],
                        &page_matrix(&pages[i], css, active),
                    )
                })
                .collect();
            let fold_fit = |stage2: Option<&FittedLearner>| {
                Some(FoldFit {
                    train: (0..pages.len()).filter(|&i| folds[i] != k).collect(),
                    odds: stage1.odds.clone(),
                    stage1: stage1.fitted.ensemble()?.clone(),
                    stage2: match stage2 {
                        Some(s) => Some(s.ensemble()?.clone()),
                        None => None,
                    },
                })
            };
            if !stacked {
                let fit = fold_fit(None);
                return Ok((
                    test.into_iter()
                        .zip(p1)
                        .map(|(i, p)| (i, p.clone(), p))
                        .collect(),
                    fit,
                ));
            }
            let domains: Vec<&str> = train.iter().map(|p| p.domain.as_str()).collect();
            let inner = cv::assign_folds(&domains, cfg.inner_folds, seed);
            let inner_probs =
                out_of_fold_stage1(&train, &inner, cfg.inner_folds, cfg, cetr, active, seed)?;
            let rows = assemble(&train, d2, cfg, |j| {
                stacked_page_matrix(train[j], &stage1.css_train[j], active, &inner_probs[j])
            });
            debug_assert!(d2 > d);
            let stage2 = fit_learner(learner, cfg, Stage::Second, rows)?;
            let fit = fold_fit(Some(&stage2));
            Ok((
                test.into_iter()
                    .zip(test_css)
                    .zip(p1)
                    .map(|((i, css), p)| {
                        let m = stacked_page_matrix(&pages[i], &css, active, &p);
                        let p2 = predict_matrix(&|r| stage2.predict(r), &pages[i], &m);
                        (i, p, p2)
                    })
                    .collect(),
                fit,
            ))
        })
        .inspect(|_| progress.fold_done())
        .collect();
    let mut probs1 = vec![Vec::new(); pages.len()];
    let mut probs2 = vec![Vec::new(); pages.len()];
    let mut fits = Vec::new();
    for r in per_fold {
        let (predicted, fit) = r?;
        for (i, p1, p2) in predicted {
            probs1[i] = p1;
            probs2[i] = p2;
        }
        fits.extend(fit);
    }
    Ok(OutOfFold {
        stage1: probs1,
        last: probs2,
        fits,
        page_types: Vec::new(),
        page_type_fits: Vec::new(),
        confidence_fits: Vec::new(),
    })
}

/// What one fold's fit leaves for a model of its own (the ensemble
/// learner only): the pages it was fitted on, the id/class odds and both
/// stages' ensembles.
#[derive(Debug, Clone)]
pub struct FoldFit {
    /// Indices of the pages the fold was fitted on (every other fold's).
    pub train: Vec<usize>,
    /// The id/class odds fitted on those pages.
    pub odds: CssOdds,
    /// The first stage.
    pub stage1: crate::model::Gbdt,
    /// The second stage, when stacked.
    pub stage2: Option<crate::model::Gbdt>,
}

/// Out-of-fold probabilities kept from cross-validation: the final model's
/// second stage trains on `stage1`, its threshold is chosen on `last`.
#[derive(Debug, Clone, Default)]
pub struct OutOfFold {
    /// First-stage probabilities, per page and block.
    pub stage1: Vec<Vec<f32>>,
    /// The probabilities that decide: the second stage's when stacked,
    /// else the first's.
    pub last: Vec<Vec<f32>>,
    /// Each fold's fit, in fold order (empty for the baseline tree).
    pub fits: Vec<FoldFit>,
    /// Each page's type as the page-type classifier of its fold predicts
    /// it from `last` (empty without one: [`TrainConfig::page_type`]).
    pub page_types: Vec<Option<crate::model::PageTypeGuess>>,
    /// Each fold's page-type classifier, in fold order (empty without
    /// one; `None` for a fold whose training part holds one type).
    pub page_type_fits: Vec<Option<crate::model::PageTypeModel>>,
    /// Each fold's confidence model, in fold order (empty without one;
    /// `None` for a fold with too few word-scored pages to learn from).
    pub confidence_fits: Vec<Option<crate::model::ConfidenceModel>>,
}

impl OutOfFold {
    /// Each page's predicted type (empty without a classifier).
    pub fn types(&self) -> Vec<Option<crate::model::PageType>> {
        self.page_types.iter().map(|g| g.map(|g| g.kind)).collect()
    }
}

/// Checks a training configuration against this build: every field
/// ([`TrainConfig::check`]) and the disabled columns' names against the
/// standard feature schema ([`TrainConfig::check_columns`]).
pub fn check_config(cfg: &TrainConfig) -> Result<()> {
    cfg.check()?;
    cfg.check_columns(&FeatureSet::for_training(cfg).names())
}

/// Domain-grouped K-fold cross-validation. Each fold's threshold is chosen on
/// the other folds' out-of-fold predictions, never on the fold it scores.
pub fn cross_validate(
    pages: &[PreparedPage],
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    learner: Learner,
) -> Result<(CvReport, OutOfFold)> {
    let stacked = cfg.stacking && learner == Learner::Ensemble;
    cross_validate_with(pages, cfg, cetr, learner, None, stacked, &Quiet)
}

/// Out-of-fold probabilities scored as extraction keeps them.
pub(super) struct FoldScores {
    /// Word P/R/F1 over the pages with gold text.
    pub(super) word: WordReport,
    /// Each fold's choice, made on the other folds' pages.
    pub(super) choices: Vec<Choice>,
    /// Each page's score, with its kept blocks, in page order.
    pub(super) pages: Vec<PageScore>,
    /// The choice over all pages, with its evidence (the final model's).
    pub(super) evidence: SelectionEvidence,
    /// F1 and gold kept per third, per band of gold length.
    pub(super) by_length: std::collections::BTreeMap<String, super::length_report::LengthBand>,
}

/// Scores out-of-fold probabilities: the blocks of each fold's pages kept
/// by the selection stage ([`crate::select::keep`]) with the choice made on
/// the other folds' pages, never on the fold it scores.
pub(super) fn score_out_of_fold(
    pages: &[PreparedPage],
    folds: &[usize],
    probs: &[Vec<f32>],
    types: &[Option<PageType>],
    cfg: &TrainConfig,
    learner: Learner,
) -> FoldScores {
    let table = ScoreTable::new(pages, probs, types, grid(cfg, learner));
    let mut choices = Vec::new();
    let mut scores: Vec<(&str, Prf)> = Vec::new();
    let mut per_page = Vec::new();
    for k in 0..cfg.folds {
        let (choice, _) = table.best(pages, (0..pages.len()).filter(|&i| folds[i] != k));
        choices.push(choice);
        let select = choice.select_config();
        for i in (0..pages.len()).filter(|&i| folds[i] == k) {
            let p = &pages[i];
            let page_type = types.get(i).copied().flatten();
            let kept = crate::select::keep(&p.blocks, &probs[i], &select.for_page(page_type));
            let keep = |b: usize| kept[b];
            let (word, snippets) = if p.has_gold_text() {
                let word = p.score(keep);
                scores.push((p.page_type.as_str(), word));
                (Some(word), None)
            } else {
                (None, Some(p.snippet_counts(keep)))
            };
            per_page.push((
                i,
                PageScore {
                    id: p.id.clone(),
                    corpus: p.corpus.clone(),
                    language: p.language.clone(),
                    domain: p.domain.clone(),
                    page_type: p.page_type.clone(),
                    predicted_type: page_type.map(|t| t.name().to_string()),
                    fold: k,
                    comment_region: p.blocks.blocks.iter().any(|b| {
                        p.blocks
                            .elements
                            .get(b.element as usize)
                            .is_some_and(|e| e.comments)
                    }),
                    word,
                    snippets,
                    confidence: None,
                    mean_kept_probability: crate::model::confidence::kept_mean_probability(
                        &p.blocks, &probs[i], &kept,
                    ),
                    kept,
                },
            ));
        }
    }
    per_page.sort_by_key(|&(i, _)| i);
    let per_page: Vec<PageScore> = per_page.into_iter().map(|(_, s)| s).collect();
    FoldScores {
        word: WordReport::from_scores(scores),
        choices,
        by_length: super::length_report::by_length(pages, &per_page),
        pages: per_page,
        evidence: table.evidence(pages),
    }
}

/// [`cross_validate`] with the feature columns `active` alone (all
/// without), one stage or two (`stacked`), telling `progress` as each fold
/// ends ([`TrainProgress::fold_done`]).
#[allow(clippy::too_many_arguments)]
pub(super) fn cross_validate_with(
    pages: &[PreparedPage],
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    learner: Learner,
    active: Option<&[bool]>,
    stacked: bool,
    progress: &dyn TrainProgress,
) -> Result<(CvReport, OutOfFold)> {
    check_config(cfg)?;
    let start = Instant::now();
    let domains: Vec<&str> = pages.iter().map(|p| p.domain.as_str()).collect();
    let distinct: std::collections::BTreeSet<&str> = domains.iter().copied().collect();
    if distinct.len() < cfg.folds {
        return Err(TrainingError::TooFewSites {
            sites: distinct.len(),
            folds: cfg.folds,
        }
        .into());
    }
    let folds = cv::assign_folds(&domains, cfg.folds, cfg.seed);
    let mut oof = out_of_fold_probs(pages, &folds, cfg, cetr, learner, active, stacked, progress)?;
    let mut type_report = None;
    if cfg.page_type && learner == Learner::Ensemble {
        let (guesses, fits) =
            page_type::out_of_fold(pages, &folds, cfg.folds, &oof.last, cfg.seed)?;
        type_report = Some(page_type::PageTypeReport::new(pages, &guesses));
        oof.page_types = guesses;
        oof.page_type_fits = fits;
    }
    let types = oof.types();
    let scored = score_out_of_fold(pages, &folds, &oof.last, &types, cfg, learner);
    let stage1 =
        stacked.then(|| score_out_of_fold(pages, &folds, &oof.stage1, &types, cfg, learner).word);
    let gold_pages = pages.iter().filter(|p| p.has_gold_text());
    let oracle_f1 = gold_pages
        .clone()
        .map(|p| p.score(|b| p.labels[b]).f1)
        .sum::<f64>()
        / gold_pages.count().max(1) as f64;
    let mut report = CvReport::new(cfg.folds, scored, start);
    if cfg.confidence && learner == Learner::Ensemble {
        let rows = confidence::input_rows(
            pages,
            &confidence::RowSources {
                probs: &oof.last,
                scores: &report.pages,
                fold_thresholds: &report.fold_thresholds,
                types: &oof.page_types,
            },
        );
        let (estimates, fits) = confidence::out_of_fold(
            &rows,
            &report.pages,
            cfg.folds,
            &confidence::ensemble_config(cfg.seed),
        )?;
        for (page, e) in report.pages.iter_mut().zip(&estimates) {
            page.confidence = *e;
        }
        let baselines: Vec<f32> = report
            .pages
            .iter()
            .map(|p| p.mean_kept_probability)
            .collect();
        report.confidence = Some(confidence::ConfidenceReport::new(
            &report.pages,
            &estimates,
            &baselines,
        ));
        oof.confidence_fits = fits;
    }
    report.stage1 = stage1;
    report.oracle_f1 = oracle_f1;
    report.page_type = type_report;
    Ok((report, oof))
}

/// The number of cross-validation folds `pages` allow for `cfg`:
/// `cfg.folds`, or the number of distinct domains if fewer (a fold needs a
/// domain of its own); 0 (no cross-validation) below two domains, and,
/// when `cfg.stacking`, below three (the second stage's inner folds need
/// two domains in every training part).
pub fn feasible_folds(pages: &[PreparedPage], cfg: &TrainConfig) -> usize {
    let distinct: std::collections::BTreeSet<&str> =
        pages.iter().map(|p| p.domain.as_str()).collect();
    let least = if cfg.stacking { 3 } else { 2 };
    match cfg.folds.min(distinct.len()) {
        k if k < least => 0,
        k => k,
    }
}
