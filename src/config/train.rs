//! Training settings: [`TrainConfig`] and its groups ([`GbdtConfig`],
//! [`SelfTraining`], [`BagMember`]).

use serde::{Deserialize, Serialize};

use super::bad;
use crate::error::{Error, Result};

/// Hyper-parameters of the gradient-boosted ensemble (the checked form of
/// `model::GbdtParams`, which re-exports it as `model::GbdtConfig`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GbdtConfig {
    /// Boosting rounds (trees).
    pub n_trees: usize,
    /// Maximum depth of each tree.
    pub max_depth: usize,
    /// Shrinkage applied to each tree's leaf values.
    pub learning_rate: f32,
    /// Minimum hessian (weighted) in a child for a split to count.
    pub min_child_weight: f32,
    /// L2 regularisation of the leaf values.
    pub lambda: f32,
    /// Share of rows sampled (without replacement) for each tree.
    pub subsample: f32,
    /// Share of features a tree may split on (drawn per tree). 0.5 by
    /// default: with 114 features, domain-grouped CV on WCXB dev gave the
    /// same first-stage F1 as 1.0 (0.8580 vs 0.8586) at about half the
    /// histogram work, which the nested fits of the second stage need.
    pub colsample: f32,
    /// Maximum histogram bins per feature (2..=256).
    pub max_bins: usize,
    /// Seed of the row and feature sampling.
    pub seed: u64,
}

impl Default for GbdtConfig {
    fn default() -> Self {
        GbdtConfig {
            n_trees: 100,
            max_depth: 6,
            learning_rate: 0.15,
            min_child_weight: 1.0,
            lambda: 1.0,
            subsample: 0.5,
            colsample: 0.5,
            max_bins: 64,
            seed: 42,
        }
    }
}

impl GbdtConfig {
    /// Checks every field; returns the first invalid one.
    pub fn check(&self) -> Result<()> {
        if self.n_trees == 0 || self.n_trees > 100_000 {
            return Err(bad("ensemble.n_trees", "must lie in 1..=100000"));
        }
        if self.max_depth == 0 || self.max_depth > 30 {
            return Err(bad("ensemble.max_depth", "must lie in 1..=30"));
        }
        if !(self.learning_rate > 0.0 && self.learning_rate <= 1.0) {
            return Err(bad("ensemble.learning_rate", "must lie in (0, 1]"));
        }
        if self.min_child_weight.is_nan() || self.min_child_weight < 0.0 {
            return Err(bad("ensemble.min_child_weight", "must be >= 0"));
        }
        if self.lambda.is_nan() || self.lambda < 0.0 {
            return Err(bad("ensemble.lambda", "must be >= 0"));
        }
        if !(self.subsample > 0.0 && self.subsample <= 1.0) {
            return Err(bad("ensemble.subsample", "must lie in (0, 1]"));
        }
        if !(self.colsample > 0.0 && self.colsample <= 1.0) {
            return Err(bad("ensemble.colsample", "must lie in (0, 1]"));
        }
        if !(2..=256).contains(&self.max_bins) {
            return Err(bad("ensemble.max_bins", "must lie in 2..=256"));
        }
        Ok(())
    }
}

/// Settings of training: labels, cross-validation and the ensemble.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrainConfig {
    /// Seed of every random choice (fold assignment, row sampling).
    pub seed: u64,
    /// Number of domain-grouped cross-validation folds.
    pub folds: usize,
    /// Inner folds used to fit the id/class odds out of fold.
    pub inner_folds: usize,
    /// A block is labelled content when at least this share of its tokens
    /// aligns to the gold text.
    pub label_threshold: f32,
    /// Weight each training block by its token count (else every block weighs 1).
    pub weight_by_tokens: bool,
    /// Evens out the pages' shares of the training loss: a block's weight is
    /// multiplied by `(mean page tokens / page tokens) ^ power`. 0 leaves long
    /// pages dominant; 1 gives every page the same total weight, as the
    /// per-page averaged word F1 does.
    pub page_weight_power: f32,
    /// An id/class token gets odds only if it occurs on at least this many domains.
    pub css_min_domains: u32,
    /// Additive smoothing of the id/class odds (pseudo-count per class).
    pub css_smoothing: f32,
    /// The gradient-boosted ensemble's parameters (the first stage's, and
    /// the second's unless `stage2_ensemble` is set).
    pub ensemble: GbdtConfig,
    /// Feature columns (schema names, e.g. `shallow.date_like`) held
    /// at 0 in training, so the model never uses them: for measuring a
    /// column's worth, or dropping one that misleads. Not the id/class
    /// (`css.`) columns, which are refitted per fold. Left out of the JSON
    /// when empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub disabled_features: Vec<String>,
    /// The second stage's own parameters, if they differ. (Left out of the
    /// JSON when unset, so models trained before the field existed keep
    /// their bytes.)
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stage2_ensemble: Option<GbdtConfig>,
    /// Thresholds tried when choosing the decision threshold by cross-validation.
    pub threshold_grid: Vec<f32>,
    /// Low-prose shifts tried with each threshold
    /// ([`LearnedSelection::low_prose_shift`](crate::model::LearnedSelection));
    /// the first is kept on ties.
    pub low_prose_shift_grid: Vec<f32>,
    /// Comments' main shares tried with each threshold
    /// ([`LearnedSelection::comments_main_share`](crate::model::LearnedSelection)),
    /// in order of preference: training takes the first whose objective
    /// lies within one standard error of the best (with the forum pages'
    /// share), and chooses the shift and threshold with it by objective.
    pub comments_main_share_grid: Vec<f32>,
    /// Comments' main shares tried on the pages the page-type classifier
    /// takes for forums
    /// ([`LearnedSelection::forum_comments_main_share`](crate::model::LearnedSelection)),
    /// in order of preference, then the other pages' share (the type then
    /// makes no difference).
    pub forum_comments_main_share_grid: Vec<f32>,
    /// Train a page-type classifier ([`crate::model::page_type`]) on the
    /// out-of-fold probabilities of the pages whose corpus gives their type
    /// (needs cross-validation).
    pub page_type: bool,
    /// Train a confidence model ([`crate::model::confidence`]) on the
    /// out-of-fold page scores, nested in the folds (needs
    /// cross-validation).
    pub confidence: bool,
    /// Train a second stage that reads the first stage's probabilities of
    /// neighbouring blocks, enclosing elements, records and the page
    /// (features::stacking); its training rows use probabilities predicted
    /// out of fold (inner folds), so it never learns from leaked ones.
    pub stacking: bool,
    /// Weight of each corpus's training rows, by corpus name (its folder's
    /// name); corpora not named weigh 1. Left out of the JSON when empty.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub corpus_weights: std::collections::BTreeMap<String, f32>,
    /// Train with the site columns ([`crate::features::site`]): each
    /// block's recurrence across the other training pages of its domain.
    /// The model then reads them at extraction (`extract --site-context`).
    /// Left out of the JSON when off.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub site_context: bool,
    /// Train on each page twice: as written, and with every `class` and
    /// `id` attribute removed, as older markup names nothing. The copies
    /// form corpora of their own (`wcxb-dev/no-classes`, weighing what
    /// their corpus weighs), scored and reported out of fold like the
    /// rest and counted in the selection objective, so that the threshold
    /// and policies chosen hold on such markup too; they share their
    /// page's domain, hence its fold. Training takes about twice as long.
    /// See docs/experiments.md, "Markup without class names". Left out of
    /// the JSON when off.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub class_free_copies: bool,
    /// Further ensembles fitted beside the first at each stage, on the same
    /// rows, each with its own page weighting and seed. A stage's ensemble
    /// is then their mean in log-odds: one ensemble holding every member's
    /// trees with their leaves divided by the number of members, so a model
    /// file and extraction stay as they are, at the cost of the extra trees.
    /// Default: one member with `page_weight_power` 0.5 (a pair that
    /// raised the mean over the four training corpora on two seeds, see
    /// DESIGN.md, "Train"); `[]` fits one ensemble per stage, in half the
    /// time. Left out of the JSON when empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bag: Vec<BagMember>,
    /// Self-training on partially labelled pages: after the first stage is
    /// fitted, the blocks of snippet pages that no snippet decides get the
    /// label the fitted stage gives them when it is confident, and the
    /// stages are fitted again (the second stage then trains on the
    /// relabelled pages too). Off by default: it raised the small
    /// configuration's mean over the four training corpora on two seeds
    /// but not the shipped one's (DESIGN.md, "Train"). Left out of the JSON
    /// when off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub self_training: Option<SelfTraining>,
}

/// Settings of self-training ([`TrainConfig::self_training`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SelfTraining {
    /// A block of unknown label at or below this probability becomes chrome.
    pub low: f32,
    /// A block of unknown label at or above this probability becomes content.
    pub high: f32,
    /// Factor on the weight of a block labelled so.
    pub weight: f32,
}

impl Default for SelfTraining {
    fn default() -> Self {
        SelfTraining {
            low: 0.1,
            high: 0.9,
            weight: 1.0,
        }
    }
}

/// One further member of a bagged ensemble ([`TrainConfig::bag`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BagMember {
    /// The member's [`TrainConfig::page_weight_power`].
    pub page_weight_power: f32,
    /// Added to the run's seed for the member's row and column sampling.
    pub seed_offset: u64,
}

impl Default for BagMember {
    fn default() -> Self {
        BagMember {
            page_weight_power: 0.0,
            seed_offset: 1,
        }
    }
}

/// Most points the three selection grids may make together (each page is
/// scored at every one).
pub const MAX_SELECTION_CHOICES: usize = 3000;

/// Most members a bag may add ([`TrainConfig::bag`]).
pub const MAX_BAG_MEMBERS: usize = 8;

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            seed: 42,
            folds: 5,
            inner_folds: 4,
            label_threshold: 0.3,
            weight_by_tokens: true,
            page_weight_power: 0.0,
            css_min_domains: 3,
            css_smoothing: 1.0,
            ensemble: GbdtConfig::default(),
            stage2_ensemble: None,
            disabled_features: Vec::new(),
            threshold_grid: (8..=30).map(|i| i as f32 / 50.0).collect(),
            // The shift extraction used before training chose it comes
            // first (kept on ties). The comments' shares are in order of
            // preference: training takes the first within one standard
            // error of the best (train::selection). A thread the comment
            // detector finds on a page that is not a forum is not its
            // content unless it holds 95% of the kept words (an article's
            // or blog post's comments; at 0.2 a short post under a long
            // thread kept the thread). On a page typed a forum the fifth
            // comes first, and 1 is not tried: a blog post under its thread
            // is often typed a forum (1 would keep any thread there whole),
            // and a forum's thread holds over four fifths of its kept
            // words anyway.
            low_prose_shift_grid: vec![0.08, 0.0, 0.04, 0.12],
            comments_main_share_grid: vec![0.05, 0.1, 0.2, 0.35, 0.5],
            forum_comments_main_share_grid: vec![0.2, 0.5],
            page_type: true,
            confidence: true,
            stacking: true,
            corpus_weights: std::collections::BTreeMap::new(),
            site_context: false,
            class_free_copies: false,
            bag: vec![BagMember {
                page_weight_power: 0.5,
                seed_offset: 1,
            }],
            self_training: None,
        }
    }
}

impl TrainConfig {
    /// The second stage's ensemble parameters.
    pub fn stage2_params(&self) -> &GbdtConfig {
        self.stage2_ensemble.as_ref().unwrap_or(&self.ensemble)
    }

    /// Checks every field but the names in `disabled_features`, which
    /// depend on the feature schema (see [`TrainConfig::check_columns`]);
    /// returns the first invalid one.
    pub fn check(&self) -> Result<()> {
        if self.folds < 2 {
            return Err(bad("folds", "needs at least 2 folds"));
        }
        if self.inner_folds < 2 {
            return Err(bad("inner_folds", "needs at least 2 folds"));
        }
        if self.class_free_copies && self.site_context {
            // A copy repeats every block of its page's domain, so the site
            // columns would count each block twice.
            return Err(bad(
                "class_free_copies",
                "cannot be combined with site_context",
            ));
        }
        if !(0.0..=1.0).contains(&self.label_threshold) {
            return Err(bad("label_threshold", "must lie in 0..=1"));
        }
        if !(0.0..=2.0).contains(&self.page_weight_power) {
            return Err(bad("page_weight_power", "must lie in 0..=2"));
        }
        if self.bag.len() > MAX_BAG_MEMBERS {
            return Err(bad("bag", "holds at most 8 members"));
        }
        if self
            .bag
            .iter()
            .any(|m| !(0.0..=2.0).contains(&m.page_weight_power))
        {
            return Err(bad("bag", "page_weight_power must lie in 0..=2"));
        }
        if let Some(st) = &self.self_training {
            if !(0.0 <= st.low && st.low < st.high && st.high <= 1.0) {
                return Err(bad(
                    "self_training",
                    "needs 0 <= low < high <= 1 (probabilities)",
                ));
            }
            if !(st.weight > 0.0 && st.weight <= 10.0) {
                return Err(bad("self_training.weight", "must lie in (0, 10]"));
            }
        }
        if self.css_smoothing.is_nan() || self.css_smoothing <= 0.0 {
            return Err(bad("css_smoothing", "must be positive"));
        }
        if self.threshold_grid.is_empty()
            || self.threshold_grid.iter().any(|t| !(0.0..=1.0).contains(t))
        {
            return Err(bad("threshold_grid", "must be non-empty values in 0..=1"));
        }
        if self.low_prose_shift_grid.is_empty()
            || self
                .low_prose_shift_grid
                .iter()
                .any(|t| !(0.0..=1.0).contains(t))
        {
            return Err(bad(
                "low_prose_shift_grid",
                "must be non-empty values in 0..=1",
            ));
        }
        if self.comments_main_share_grid.is_empty()
            || self
                .comments_main_share_grid
                .iter()
                .any(|t| !(0.0..=1.0).contains(t))
        {
            return Err(bad(
                "comments_main_share_grid",
                "must be non-empty values in 0..=1",
            ));
        }
        if self
            .forum_comments_main_share_grid
            .iter()
            .any(|t| !(0.0..=1.0).contains(t))
        {
            return Err(bad(
                "forum_comments_main_share_grid",
                "must be values in 0..=1",
            ));
        }
        if self.threshold_grid.len()
            * self.low_prose_shift_grid.len()
            * self.comments_main_share_grid.len()
            * (1 + self.forum_comments_main_share_grid.len())
            > MAX_SELECTION_CHOICES
        {
            return Err(bad(
                "threshold_grid",
                &format!("with the other selection grids, at most {MAX_SELECTION_CHOICES} choices"),
            ));
        }
        if let Some((name, w)) = self
            .corpus_weights
            .iter()
            .find(|(_, w)| !(w.is_finite() && **w >= 0.0 && **w <= 1000.0))
        {
            return Err(bad(
                "corpus_weights",
                &format!("{name}: weight {w} must lie in 0..=1000"),
            ));
        }
        if let Some(e) = &self.stage2_ensemble {
            e.check().map_err(|e| match e {
                Error::Config { field, reason } => Error::Config {
                    field: "stage2_ensemble".into(),
                    reason: format!("{field}: {reason}"),
                },
                other => other,
            })?;
        }
        self.ensemble.check()
    }

    /// Checks that every name in `disabled_features` is one of `columns`
    /// (the feature schema's names, e.g. `FeatureSet::names`) and not an
    /// id/class (`css.`) column. Training checks this with the standard
    /// schema (`train::check_config`).
    pub fn check_columns(&self, columns: &[String]) -> Result<()> {
        for f in &self.disabled_features {
            if f.starts_with("css.") || !columns.contains(f) {
                return Err(bad(
                    "disabled_features",
                    &format!("{f:?} is not a feature column that can be disabled (see `dechrome inspect`; css. columns cannot)"),
                ));
            }
        }
        Ok(())
    }
}
