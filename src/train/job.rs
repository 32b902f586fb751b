//! The training job as one library call: read the corpora, prepare the
//! pages, cross-validate by domain, fit the final model, and report, as
//! `dechrome train`, the Python binding and the tests run it.

use std::path::PathBuf;
use std::time::Instant;

use serde::Serialize;

use super::ablation::{ablation, fit_ablation_row, AblationRow};
use super::cross_validation::{check_config, cross_validate_with, feasible_folds, OutOfFold};
use super::fit::{fit_final, fold_model};
use super::prepare::{prepare_all, read_corpora, PreparedPage};
use super::report::{no_cv_report, CvReport};
use super::stages::Learner;
use crate::config::{CetrConfig, ExtractorConfig, TrainConfig};
use crate::corpus::{corpus_name, Corpus};
use crate::error::{Error, Result, TrainingError};
use crate::extract::Extractor;
use crate::model::Model;

/// What to train and what to measure beside the model.
#[derive(Debug, Clone, Default)]
pub struct TrainJob {
    /// The training corpora, each read in its own layout
    /// ([`read_training_corpus`](crate::corpus::read_training_corpus)).
    pub corpora: Vec<PathBuf>,
    /// The training configuration (checked before anything is read).
    pub config: TrainConfig,
    /// Also cross-validate the reference baseline (one linfa-trees tree).
    pub baseline: bool,
    /// Also cross-validate with the feature families added one at a time.
    pub ablation: bool,
    /// With `ablation`: fit each row's model on all pages and score it on
    /// this snippet corpus, never a training corpus.
    pub ablation_snippets: Option<PathBuf>,
    /// Keep each cross-validation fold's model ([`TrainReport::fold_models`]):
    /// fitted without the fold's pages, with the fold's selection, so that
    /// a held-out page can be extracted as the report scored it.
    pub fold_models: bool,
}

/// Hooks a long training run reports through (every method defaults to
/// nothing).
pub trait TrainProgress: Sync {
    /// `pages` pages are about to be prepared.
    fn preparing(&self, _pages: usize) {}
    /// One page was prepared (or failed to be).
    fn page_done(&self) {}
    /// Preparation ended.
    fn prepared(&self) {}
    /// A line worth telling the user (a fallback taken, a step's figure).
    fn note(&self, _line: &str) {}
    /// A stage of the run begins (`cross-validation`, `baseline`,
    /// `ablation`, `final fit`, `fold models`): `folds` steps follow as
    /// [`fold_done`](Self::fold_done) calls (0: the stage has no steps).
    fn stage(&self, _name: &str, _folds: usize) {}
    /// One fold of the current stage ended (folds run in parallel: in any
    /// order, from any thread).
    fn fold_done(&self) {}
    /// The current stage ended.
    fn stage_done(&self) {}
}

/// A [`TrainProgress`] that reports nothing.
pub struct Quiet;

impl TrainProgress for Quiet {}

/// Seconds spent in each step of a run (not part of the model file, which
/// must not depend on the machine's speed).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Timings {
    /// Reading and preparing the pages.
    pub prepare: f64,
    /// Cross-validation (0 without).
    pub cross_validation: f64,
    /// The final fit.
    pub final_fit: f64,
    /// The whole run.
    pub total: f64,
}

/// What a training run produced.
pub struct TrainReport {
    /// The model, fitted on every page, with the selection chosen out of
    /// fold.
    pub model: Model,
    /// The configuration the run used (its folds lowered to what the
    /// pages' sites allow).
    pub config: TrainConfig,
    /// Domain-grouped cross-validation, as `extract` outputs the held-out
    /// pages (`None` when the pages come from too few sites).
    pub cv: Option<CvReport>,
    /// The baseline tree's cross-validation, when asked for.
    pub baseline: Option<CvReport>,
    /// The ablation table, when asked for.
    pub ablation: Option<Vec<AblationRow>>,
    /// Each fold's model, when asked for ([`TrainJob::fold_models`]).
    pub fold_models: Vec<Model>,
    /// Pages prepared.
    pub pages: usize,
    /// Blocks with words over the prepared pages.
    pub blocks_with_words: usize,
    /// Pages that could not be prepared, with why (left out of training).
    pub skipped: Vec<(String, Error)>,
    /// Where the time went.
    pub seconds: Timings,
}

impl TrainReport {
    /// The metrics file's content: the run's provenance, the
    /// cross-validation (with every page's out-of-fold score), the
    /// baseline and ablation when measured, the timings and the
    /// configuration. `command` is the command line that ran it.
    pub fn metrics_json(&self, command: &str) -> serde_json::Value {
        serde_json::json!({
            "command": command,
            "dechrome_version": env!("CARGO_PKG_VERSION"),
            "dataset_hash": self.model.meta.dataset_hash,
            "pages": self.pages,
            "pages_skipped": self.skipped.iter().map(|(id, e)| format!("{id}: {e}")).collect::<Vec<_>>(),
            "blocks": self.model.meta.blocks,
            "threshold": self.model.threshold,
            "selection": self.model.selection,
            "cross_validation": self.cv,
            "pages_out_of_fold": self.cv.as_ref().map(|cv| &cv.pages),
            "baseline_tree": self.baseline,
            "ablation": self.ablation,
            "seconds": self.seconds,
            "train_config": self.config,
        })
    }

    /// Writes [`TrainReport::metrics_json`] to `path`, whole or not at all.
    pub fn write_metrics(&self, path: &std::path::Path, command: &str) -> Result<()> {
        let json = serde_json::to_string_pretty(&self.metrics_json(command))
            .map_err(|e| TrainingError::Other(format!("metrics: {e}")))?;
        crate::model::artifact::write_atomically(path, json.as_bytes())
    }
}

/// Runs a training job: checks the configuration, reads and prepares the
/// corpora (a page that fails is skipped and reported), cross-validates
/// by domain with as many folds as the pages' sites allow (none below two
/// sites, three with stacking: then one stage, threshold 0.5), measures
/// what the job asks for beside, and fits the final model on every page.
pub fn run(job: &TrainJob, progress: &dyn TrainProgress) -> Result<TrainReport> {
    let start = Instant::now();
    let mut cfg = job.config.clone();
    check_config(&cfg)?;
    check_weights(&cfg, &job.corpora)?;
    let snippet_corpus = ablation_corpus(job)?;
    let cetr = CetrConfig::default();
    let pages = read_corpora(&job.corpora)?;
    progress.preparing(pages.len());
    let (prepared, skipped) = prepare_all(&pages, &cfg, &cetr, &|| progress.page_done());
    progress.prepared();
    if prepared.is_empty() {
        return Err(TrainingError::NoPages.into());
    }
    let prepare = start.elapsed().as_secs_f64();
    let blocks_with_words = prepared
        .iter()
        .map(|p| p.blocks.blocks.iter().filter(|b| b.words > 0).count())
        .sum();
    progress.note(&format!(
        "prepared {} pages, {blocks_with_words} blocks with words, in {prepare:.1} s",
        prepared.len()
    ));
    let feasible = feasible_folds(&prepared, &cfg);
    if feasible == 0 {
        if job.baseline || job.ablation || job.fold_models {
            return Err(TrainingError::NeedsCrossValidation.into());
        }
        progress.note(&format!(
            "the pages come from too few sites for cross-validation (it needs two sites, three with stacking): no cross-validation; fitting on all pages, one stage, threshold {}",
            super::fit::NO_CV_THRESHOLD
        ));
    } else if feasible < cfg.folds {
        progress.note(&format!(
            "{} folds asked for, but the pages come from {feasible} sites: cross-validating with {feasible} folds",
            cfg.folds
        ));
        cfg.folds = feasible;
    }
    let (cv, oof) = if feasible == 0 {
        (None, OutOfFold::default())
    } else {
        progress.stage("cross-validation", cfg.folds);
        let (cv, oof) = cross_validate_with(
            &prepared,
            &cfg,
            &cetr,
            Learner::Ensemble,
            None,
            cfg.stacking,
            progress,
        )?;
        progress.stage_done();
        (Some(cv), oof)
    };
    let baseline = match (job.baseline, &cv) {
        (true, Some(_)) => {
            progress.stage("baseline", cfg.folds);
            let (cv, _) = cross_validate_with(
                &prepared,
                &cfg,
                &cetr,
                Learner::BaselineTree,
                None,
                false,
                progress,
            )?;
            progress.stage_done();
            Some(cv)
        }
        _ => None,
    };
    let mut ablation_rows = match (job.ablation, &cv) {
        (true, Some(cv)) => {
            progress.stage("ablation", 0);
            let rows = ablation(&prepared, &cfg, &cetr, Some((cv, &oof)))?;
            progress.stage_done();
            Some(rows)
        }
        _ => None,
    };
    let fit_start = Instant::now();
    let report = cv.clone().unwrap_or_else(no_cv_report);
    progress.stage("final fit", 0);
    let model = fit_final(&prepared, &oof, &cfg, &cetr, &report)?;
    progress.stage_done();
    let final_fit = fit_start.elapsed().as_secs_f64();
    if let (Some(rows), Some(corpus)) = (ablation_rows.as_mut(), &snippet_corpus) {
        score_ablation_rows(rows, corpus, &model, &prepared, (&oof, &report), &cfg)?;
        for row in rows.iter() {
            progress.note(&format!(
                "ablation {}: snippet F1 {:.4}",
                row.name,
                row.snippets.map_or(0.0, |s| s.f1)
            ));
        }
    }
    let fold_models = match (&cv, job.fold_models) {
        (Some(cv), true) => (0..cfg.folds)
            .map(|k| fold_model(&prepared, &oof, cv, k, &cfg, &cetr))
            .collect::<Result<Vec<Model>>>()?,
        _ => Vec::new(),
    };
    Ok(TrainReport {
        model,
        seconds: Timings {
            prepare,
            cross_validation: cv.as_ref().map_or(0.0, |cv| cv.seconds),
            final_fit,
            total: start.elapsed().as_secs_f64(),
        },
        config: cfg,
        cv,
        baseline,
        ablation: ablation_rows,
        fold_models,
        pages: prepared.len(),
        blocks_with_words,
        skipped,
    })
}

/// Checks that every corpus weight names one of the job's corpora, or
/// with [`TrainConfig::class_free_copies`] one of their copies'
/// (`NAME/no-classes`).
fn check_weights(cfg: &TrainConfig, corpora: &[PathBuf]) -> Result<()> {
    let mut names: Vec<String> = corpora.iter().map(|d| corpus_name(d)).collect();
    if cfg.class_free_copies {
        let copies: Vec<String> = names
            .iter()
            .map(|n| format!("{n}{}", super::CLASS_FREE_SUFFIX))
            .collect();
        names.extend(copies);
    }
    match cfg.corpus_weights.keys().find(|n| !names.contains(n)) {
        Some(name) => Err(TrainingError::UnknownCorpus {
            name: name.clone(),
            known: names,
        }
        .into()),
        None => Ok(()),
    }
}

/// The ablation's snippet corpus, opened and checked: a snippet corpus
/// that is not one of the training corpora (its figure would be in-sample).
fn ablation_corpus(job: &TrainJob) -> Result<Option<Corpus>> {
    let Some(dir) = &job.ablation_snippets else {
        return Ok(None);
    };
    if job
        .corpora
        .iter()
        .any(|c| corpus_name(c) == corpus_name(dir))
    {
        return Err(TrainingError::InSample(dir.clone()).into());
    }
    match Corpus::open(dir)? {
        c @ Corpus::Snippets(_) => Ok(Some(c)),
        _ => Err(TrainingError::NotASnippetCorpus(dir.clone()).into()),
    }
}

/// Fits each ablation row's model on all pages (the stacked row is the
/// final model) and scores it on the snippet corpus, as `extract` would.
fn score_ablation_rows(
    rows: &mut [AblationRow],
    corpus: &Corpus,
    model: &Model,
    prepared: &[PreparedPage],
    full: (&OutOfFold, &CvReport),
    cfg: &TrainConfig,
) -> Result<()> {
    for row in rows.iter_mut() {
        let m = if row.stacked {
            model.clone()
        } else {
            fit_ablation_row(prepared, row, full, cfg, &CetrConfig::default())?
        };
        let extractor = Extractor::new(m, ExtractorConfig::default())?;
        row.snippets = crate::eval::evaluate(&extractor, corpus, &|| {}).snippets;
    }
    Ok(())
}
