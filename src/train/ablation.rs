//! The ablation table: feature families added one at a time, on the
//! same folds.

use serde::Serialize;

use super::cross_validation::{cross_validate_with, OutOfFold};
use super::fit::{fit_final, fit_final_masked};
use super::job::Quiet;
use super::prepare::PreparedPage;
use super::report::CvReport;
use super::stages::Learner;
use crate::config::{CetrConfig, TrainConfig};
use crate::error::{Result, TrainingError};
use crate::eval::WordReport;
use crate::features::FeatureSet;
use crate::model::Model;

/// One row of an ablation: the feature families in use and their CV result.
#[derive(Debug, Clone, Serialize)]
pub struct AblationRow {
    /// Row label (`ST`, `+IC`, ...).
    pub name: String,
    /// Feature families in use.
    pub families: Vec<String>,
    /// Whether the second stage (post-processing) is on.
    pub stacked: bool,
    /// Cross-validated word P/R/F1, overall and per page type.
    pub word: WordReport,
    /// Snippet P/R/F1 on a held-out snippet corpus (trafilatura-eval) of
    /// a model fitted on all pages with these families, when measured.
    pub snippets: Option<crate::eval::SnippetReport>,
    /// Which feature columns are on (all for the stacked row).
    #[serde(skip)]
    pub active: Vec<bool>,
    /// The row's out-of-fold probabilities (the final fit's threshold is
    /// chosen on them).
    #[serde(skip)]
    pub out_of_fold: Vec<Vec<f32>>,
}

/// The ablation sequence (Dragnet's table, extended): Kohlschütter shallow
/// text (ST), then id/class odds (IC), CETR, boilerpipe's other shallow
/// features and rules, DANAg, Gupta (Crunch), structure, and page context
/// with page-level features and repeated records, Readability's pick, and
/// chrome labels, each added in turn; the last row of the table adds the second stage
/// (post-processing).
pub const ABLATION_STEPS: [(&str, &[&str]); 10] = [
    ("ST", &["text"]),
    ("+IC", &["css"]),
    ("+CETR", &["cetr"]),
    ("+Boilerpipe", &["shallow"]),
    ("+DANAg", &["danag"]),
    ("+Gupta", &["gupta"]),
    ("+structure", &["structure"]),
    ("+context", &["context", "page"]),
    ("+Readability", &["readability"]),
    ("+labels", &["phrases"]),
];

/// Cross-validates with the feature families added one at a time (the
/// others zeroed), on the same folds, first stage only; then, if
/// `full` (the cross-validation of the complete model) is given and
/// stacked, appends it as the `+post-processing` row. Dragnet's ablation
/// table.
pub fn ablation(
    pages: &[PreparedPage],
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    full: Option<(&CvReport, &OutOfFold)>,
) -> Result<Vec<AblationRow>> {
    let fs = FeatureSet::for_training(cfg);
    let mut families: Vec<String> = Vec::new();
    let mut rows = Vec::new();
    for (name, added) in ABLATION_STEPS {
        families.extend(added.iter().map(|f| f.to_string()));
        let mut active = vec![false; fs.len()];
        for f in &families {
            let range = fs
                .family_range(f)
                .ok_or_else(|| TrainingError::Other(format!("no feature family {f}")))?;
            for a in &mut active[range] {
                *a = true;
            }
        }
        let all = active.iter().all(|&a| a);
        let (word, out_of_fold) = match (all, full) {
            // All families on: the full model's first stage, already measured.
            (true, Some((f, oof))) if f.stage1.is_some() => (
                f.stage1.clone().unwrap_or_else(|| f.word.clone()),
                oof.stage1.clone(),
            ),
            _ => {
                let (cv, oof) = cross_validate_with(
                    pages,
                    cfg,
                    cetr,
                    Learner::Ensemble,
                    Some(&active),
                    false,
                    &Quiet,
                )?;
                (cv.word, oof.last)
            }
        };
        rows.push(AblationRow {
            name: name.to_string(),
            families: families.clone(),
            stacked: false,
            word,
            snippets: None,
            active,
            out_of_fold,
        });
    }
    if let Some((f, oof)) = full.filter(|(f, _)| f.stage1.is_some()) {
        rows.push(AblationRow {
            name: "+post-processing".to_string(),
            families: families.clone(),
            stacked: true,
            word: f.word.clone(),
            snippets: None,
            active: vec![true; fs.len()],
            out_of_fold: oof.last.clone(),
        });
    }
    Ok(rows)
}

/// Fits the model of one ablation row on all pages: the row's feature
/// columns only (the others zeroed, so no tree splits on them and the
/// model reads full feature rows like any other), the second stage only
/// on the stacked row. The threshold is chosen on the row's out-of-fold
/// probabilities.
pub fn fit_ablation_row(
    pages: &[PreparedPage],
    row: &AblationRow,
    full: (&OutOfFold, &CvReport),
    cfg: &TrainConfig,
    cetr: &CetrConfig,
) -> Result<Model> {
    if row.stacked {
        return fit_final(pages, full.0, cfg, cetr, full.1);
    }
    let oof = OutOfFold {
        stage1: Vec::new(),
        last: row.out_of_fold.clone(),
        ..OutOfFold::default()
    };
    let unstacked = TrainConfig {
        stacking: false,
        ..cfg.clone()
    };
    fit_final_masked(pages, &oof, &unstacked, cetr, full.1, Some(&row.active))
}
