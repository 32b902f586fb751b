//! Training: gold text → block labels, dataset assembly, domain-grouped
//! cross-validation, the final fit, and the model file's metadata.
//!
//! [`run`] is the one entry: a [`TrainJob`] in, a [`TrainReport`] out. The
//! steps, one file each: [`prepare`] (pages, labels), `rows` (feature
//! matrices and training rows), [`stages`] (the two stages' fits),
//! [`cross_validation`] (out-of-fold probabilities and scores),
//! [`selection`] (the threshold and selection constants, chosen out of fold
//! through the selection stage, so that the reported scores are what
//! `extract` outputs), [`report`], [`ablation`](mod@ablation), [`fit`] (the final model,
//! fold models) and [`job`] (the run itself).
//!
//! Everything learned from labels that becomes a feature (the id/class token
//! odds) is fitted out of fold: inside each training set, the odds of a page
//! come from the other inner folds' pages, so the ensemble never trains on
//! odds that saw its own rows.

pub mod ablation;
pub mod adapt;
pub mod align;
pub mod confidence;
pub mod cross_validation;
pub mod cv;
pub mod fit;
pub mod job;
pub mod length_report;
pub mod page_type;
pub mod prepare;
pub mod report;
mod rows;
pub mod selection;
pub mod stages;

pub use ablation::{ablation, fit_ablation_row, AblationRow, ABLATION_STEPS};
pub use cross_validation::{check_config, cross_validate, feasible_folds, FoldFit, OutOfFold};
pub use fit::{
    fit_final, fit_single_stage, fold_model, fold_models, no_cv_choice, predict_prepared,
    FoldModels, NO_CV_THRESHOLD,
};
pub use job::{run, Quiet, Timings, TrainJob, TrainProgress, TrainReport};
pub use prepare::{
    add_site_columns, prepare_all, prepare_page, read_corpora, snippet_labels, PreparedPage,
    CLASS_FREE_SUFFIX,
};
pub use report::{no_cv_report, CorpusScore, CvReport, PageScore};
pub use selection::{Choice, PairScore, SelectionEvidence};
pub use stages::Learner;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TrainConfig;
    use crate::error::Error;

    fn disabling(column: &str) -> TrainConfig {
        TrainConfig {
            disabled_features: vec![column.to_string()],
            ..TrainConfig::default()
        }
    }

    #[test]
    fn disabled_columns_are_checked_against_the_standard_schema() {
        assert!(check_config(&disabling("shallow.date_like")).is_ok());
        for bad in ["no.such_column", "css.own_mean"] {
            match check_config(&disabling(bad)) {
                Err(Error::Config { field, .. }) => assert_eq!(field, "disabled_features"),
                other => panic!("expected a config error for {bad}, got {other:?}"),
            }
        }
    }
}
