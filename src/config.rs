//! Every threshold and switch of extraction and training, documented, with defaults.
//!
//! Parameters are plain serde structs; [`ExtractorConfig::check`] and
//! [`TrainConfig::check`] return a typed error naming the first bad field.
//! [`ExtractorConfig`] is the one settings surface of extraction: the CLI,
//! Python and WebAssembly read it by name through [`settings_from_value`].

use std::borrow::Cow;
use std::path::PathBuf;
use std::time::Duration;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

pub use crate::algorithm::Algorithm;
use crate::error::{Error, Result};

/// Settings of the CETR tag-ratio features and of the CETR-KM fallback.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CetrConfig {
    /// Standard deviation (in blocks) of the Gaussian that smooths tag ratios.
    pub sigma: f32,
    /// Blocks ahead averaged by the derivative (CETR's alpha).
    pub alpha: usize,
    /// Iterations of the per-page k-means.
    pub kmeans_iterations: u64,
}

impl Default for CetrConfig {
    fn default() -> Self {
        // Weninger et al. (2010) use sigma = 1 and alpha = 3.
        CetrConfig {
            sigma: 1.0,
            alpha: 3,
            kmeans_iterations: 50,
        }
    }
}

/// Settings of the classic (unsupervised) extractors: their parameters as
/// the papers give them, and Crunch's files and switches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ClassicConfig {
    /// CETR-TM keeps blocks whose smoothed tag ratio exceeds this many
    /// standard deviations (λ; 1 in the paper).
    pub cetr_lambda: f32,
    /// DANAg's boundary-search gap, in blocks (20 lines in the paper).
    pub danag_gap: usize,
    /// Crunch: links per non-linked word (5 characters) above which a
    /// container is a link list.
    pub crunch_link_ratio: f32,
    /// Crunch: a file of ad-server hosts (one per line) replacing the
    /// shipped list; a relative path is taken from the working directory.
    pub crunch_ad_hosts_file: Option<PathBuf>,
    /// Crunch: append the removed link lists' link texts to the extraction.
    pub crunch_retain_links: bool,
}

impl Default for ClassicConfig {
    fn default() -> Self {
        ClassicConfig {
            cetr_lambda: 1.0,
            danag_gap: 20,
            crunch_link_ratio: 0.3,
            crunch_ad_hosts_file: None,
            crunch_retain_links: false,
        }
    }
}

impl ClassicConfig {
    /// Checks every field; returns the first invalid one.
    pub fn check(&self) -> Result<()> {
        if !(self.cetr_lambda >= 0.0 && self.cetr_lambda <= 10.0) {
            return Err(bad("classic.cetr_lambda", "must lie in 0..=10"));
        }
        if self.danag_gap > 10_000 {
            return Err(bad("classic.danag_gap", "must lie in 0..=10000"));
        }
        if !(self.crunch_link_ratio > 0.0 && self.crunch_link_ratio.is_finite()) {
            return Err(bad(
                "classic.crunch_link_ratio",
                "must be a positive number",
            ));
        }
        Ok(())
    }
}

/// What extraction does with user-comment regions (a blog's comment thread,
/// Disqus, the reply form), recognised by `blocks::comments`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CommentMode {
    /// Keep comment text: comment-region blocks with real text (not link
    /// lists, not form labels) are kept even when the classifier dropped
    /// them.
    Include,
    /// Drop comment regions after the classifier's decision, unless they
    /// hold the page's main content (a forum thread, see
    /// [`ExtractorConfig::comments`]).
    Exclude,
    /// No override: the classifier alone decides.
    Model,
}

impl CommentMode {
    /// Every mode, in the order the command line lists them.
    pub const ALL: [CommentMode; 3] = [
        CommentMode::Include,
        CommentMode::Exclude,
        CommentMode::Model,
    ];

    /// The name used on the command line and in configuration files.
    pub fn name(self) -> &'static str {
        match self {
            CommentMode::Include => "include",
            CommentMode::Exclude => "exclude",
            CommentMode::Model => "model",
        }
    }

    /// The mode with this name (see [`CommentMode::name`]).
    pub fn from_name(name: &str) -> Option<CommentMode> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// Every setting of extraction: which algorithm and model, the page
/// limits and the selection's switches. The one settings surface: the CLI
/// (`--config FILE`, a JSON object of these fields, with its flags applied
/// on top), Python (`dechrome.Extractor(model, **settings)`) and
/// WebAssembly (the options object, keys in camelCase or snake_case) all
/// read it by these names through [`settings_from_value`], so they accept
/// the same keys and refuse an unknown one with the same message; and
/// [`Extractor::from_config`](crate::Extractor::from_config) builds the
/// extractor it describes. A new setting is a field here, with its doc
/// comment and default (and at most a CLI flag).
///
/// Layout: what a user of the trained model sets sits at the top level,
/// `fallback` and `fallback_margin` included (they decide when the
/// forest's answer is replaced, so they are the forest's, not the classic
/// algorithms'). Two groups stay nested, each the parameters of one family
/// of methods that a user of the forest never needs: [`cetr`](Self::cetr)
/// (CETR's smoothing and k-means, read by the CETR algorithms and the
/// fallback) and [`classic`](Self::classic) (the other unsupervised
/// algorithms' parameters and Crunch's files). Missing fields take their
/// defaults at every level; an unknown one is an error at every level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExtractorConfig {
    /// The algorithm that decides what is content (`forest`, the trained
    /// model, by default; the others need no model: see [`Algorithm`]).
    #[serde(deserialize_with = "crate::algorithm::deserialize_selectable")]
    pub algorithm: Algorithm,
    /// The model file of the `forest` algorithm; unset, the model embedded
    /// in this build (`embedded-model` feature). A relative path is taken
    /// from the working directory. Setting it for another algorithm is an
    /// error.
    pub model: Option<PathBuf>,
    /// Pages larger than this (after gzip decompression) are truncated to it.
    pub max_bytes: usize,
    /// Pages with more DOM nodes than this are rejected with an error; the
    /// parse stops as soon as it passes the limit. This is the page's
    /// memory budget: every later stage keeps a few hundred bytes per node
    /// at most (blocks, their features and probabilities), about 800 bytes
    /// on the densest pages (`<p>x</p>` repeated), so the default of one
    /// million nodes keeps a page under about 1 GB of memory. The largest
    /// page of the annotated corpora has about 22,000 tags.
    pub max_nodes: usize,
    /// Pages whose elements nest deeper than this are rejected with an
    /// error before parsing (html5ever is quadratic in nesting depth).
    pub max_depth: usize,
    /// Overrides the model's decision threshold when set (0..1). A page
    /// that is not prose is decided `low_prose_shift` below it.
    pub threshold: Option<f32>,
    /// Overrides the model's low-prose shift when set (0..1): how far the
    /// trained model's threshold falls on a page whose kept text is not
    /// prose: a listing, a shop's category or product page, a service
    /// page, where paragraphs hold under half of the words kept at the
    /// threshold (see [`page_threshold`](crate::select::page_threshold)).
    /// Unset, the model's own applies, chosen with its threshold out of
    /// fold ([`LearnedSelection`](crate::model::LearnedSelection)); 0
    /// decides every page at one threshold.
    pub low_prose_shift: Option<f32>,
    /// Wall-clock budget per page; a page over it is reported as an error.
    /// Checked inside the parse (every few thousand nodes and every 16 KiB
    /// of input) and between the later stages. Written as a number of
    /// seconds (`"page_timeout": 2.5`), at most [`MAX_PAGE_TIMEOUT_SECS`]
    /// ([`page_timeout_from_secs`]). Not on wasm32-unknown-unknown, which
    /// has no clock.
    #[serde(with = "page_timeout_secs")]
    pub page_timeout: Option<Duration>,
    /// Fall back to CETR-KM when the trained model keeps nothing on a page
    /// with text, or when all its probabilities lie within
    /// `fallback_margin` of the threshold. Off by default: on WCXB dev's
    /// cross-validated probabilities the forest's empty answer is right more
    /// often than CETR-KM's (the fallback costs 0.002–0.005 word F1 over
    /// four CV runs, DESIGN.md "The fallback"); a user's model trained on
    /// few pages may want it on.
    pub fallback: bool,
    /// See `fallback` (0..=0.5).
    pub fallback_margin: f32,
    /// CETR settings (the CETR algorithms and the fallback).
    pub cetr: CetrConfig,
    /// The other unsupervised algorithms' settings.
    pub classic: ClassicConfig,
    /// What to do with user-comment regions.
    pub comments: CommentMode,
    /// Keep the text of figure captions (`<figcaption>`) that the
    /// classifier keeps. Off by default: captions are dropped unless they
    /// are most of the kept text (a photo post, a captioned gallery; see
    /// [`CAPTIONS_ARE_MAIN`](crate::select::CAPTIONS_ARE_MAIN)).
    pub keep_captions: bool,
    /// Keep a block that repeats the text of an earlier kept block from a
    /// container of another shape. Off by default: the second copy (a
    /// mobile rendering, a pull quote, a quoted reply) is dropped (see
    /// [`exclude_repeats`](crate::select::exclude_repeats)).
    pub keep_repeats: bool,
    /// Pages with fewer blocks with words than this are "short": when the
    /// forest keeps nothing on one, the blocks within half of the page's
    /// best probability are kept instead (0 turns this off). The default,
    /// 10, lies below the first percentile (11) of WCXB dev's pages, the
    /// sizes the shipped model was trained on: on a smaller page the
    /// forest's ranking still holds (the menu scores lowest) but its
    /// probabilities are not calibrated. DESIGN.md, "Short pages".
    pub short_page_blocks: usize,
    /// Record the kept content's structure (`Extraction::structure`)
    /// so that it can be rendered as Markdown or clean HTML. Off by default:
    /// plain text does not pay for it.
    pub structure: bool,
}

impl Default for ExtractorConfig {
    fn default() -> Self {
        ExtractorConfig {
            algorithm: Algorithm::Forest,
            model: None,
            max_bytes: 20 * 1024 * 1024,
            max_nodes: 1_000_000,
            max_depth: 4096,
            threshold: None,
            low_prose_shift: None,
            page_timeout: None,
            fallback: false,
            fallback_margin: 0.05,
            cetr: CetrConfig::default(),
            classic: ClassicConfig::default(),
            comments: CommentMode::Exclude,
            keep_captions: false,
            keep_repeats: false,
            short_page_blocks: 10,
            structure: false,
        }
    }
}

impl ExtractorConfig {
    /// Checks every field; returns the first invalid one.
    pub fn check(&self) -> Result<()> {
        if !Algorithm::SELECTABLE.contains(&self.algorithm) {
            return Err(bad(
                "algorithm",
                &format!("{} is reported, not chosen", self.algorithm.name()),
            ));
        }
        if self.model.is_some() && !self.algorithm.needs_model() {
            return Err(bad(
                "model",
                &format!("{} uses no model", self.algorithm.name()),
            ));
        }
        if self.max_bytes == 0 {
            return Err(bad("max_bytes", "must be positive"));
        }
        if self.max_nodes == 0 {
            return Err(bad("max_nodes", "must be positive"));
        }
        if self.max_depth == 0 {
            return Err(bad("max_depth", "must be positive"));
        }
        if let Some(t) = self.page_timeout {
            if t.is_zero() || t.as_secs_f64() > MAX_PAGE_TIMEOUT_SECS {
                return Err(bad("page_timeout", PAGE_TIMEOUT_RANGE));
            }
            // `Instant::now` panics where there is no clock.
            if cfg!(all(target_arch = "wasm32", target_os = "unknown")) {
                return Err(bad(
                    "page_timeout",
                    "needs a clock, which wasm32-unknown-unknown has not",
                ));
            }
        }
        if !(0.0..=0.5).contains(&self.fallback_margin) {
            return Err(bad("fallback_margin", "must lie in 0..=0.5"));
        }
        if let Some(t) = self.threshold {
            if !(0.0..=1.0).contains(&t) {
                return Err(bad("threshold", "must lie in 0..=1"));
            }
        }
        if let Some(shift) = self.low_prose_shift {
            if !(0.0..=1.0).contains(&shift) {
                return Err(bad("low_prose_shift", "must lie in 0..=1"));
            }
        }
        self.cetr.check()?;
        self.classic.check()
    }
}

impl CetrConfig {
    /// Checks every field; returns the first invalid one.
    pub fn check(&self) -> Result<()> {
        if !(self.sigma > 0.0 && self.sigma <= 50.0) {
            return Err(bad("cetr.sigma", "must lie in (0, 50]"));
        }
        if self.alpha == 0 || self.alpha > 100 {
            return Err(bad("cetr.alpha", "must lie in 1..=100"));
        }
        if self.kmeans_iterations == 0 {
            return Err(bad("cetr.kmeans_iterations", "must be positive"));
        }
        Ok(())
    }
}

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
    /// Feature columns (schema names, e.g. `shallow.log_char_offset`) held
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
    /// ([`LearnedSelection::comments_main_share`](crate::model::LearnedSelection));
    /// the first is kept on ties.
    pub comments_main_share_grid: Vec<f32>,
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
pub const MAX_SELECTION_CHOICES: usize = 1000;

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
            // The values extraction used before training chose them come
            // first, so that a tie keeps them.
            low_prose_shift_grid: vec![0.08, 0.0, 0.04, 0.12],
            comments_main_share_grid: vec![0.2, 0.1, 0.35, 0.5],
            stacking: true,
            corpus_weights: std::collections::BTreeMap::new(),
            site_context: false,
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
        if self.threshold_grid.len()
            * self.low_prose_shift_grid.len()
            * self.comments_main_share_grid.len()
            > MAX_SELECTION_CHOICES
        {
            return Err(bad(
                "threshold_grid",
                "with the two other grids, at most 1000 choices",
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

/// The longest page time budget accepted, in seconds: one day. A page
/// that needs longer is a fault, not a page; the bound also keeps the
/// budget within what a clock and `Duration` can hold.
pub const MAX_PAGE_TIMEOUT_SECS: f64 = 86_400.0;

const PAGE_TIMEOUT_RANGE: &str = "must be a positive number of seconds, at most 86400 (one day)";

/// A page time budget from a number of seconds as a user gives it (CLI,
/// Python, wasm): positive, finite and at most [`MAX_PAGE_TIMEOUT_SECS`],
/// else [`Error::Config`].
pub fn page_timeout_from_secs(secs: f64) -> Result<std::time::Duration> {
    if !(secs > 0.0 && secs <= MAX_PAGE_TIMEOUT_SECS) {
        return Err(bad("page_timeout", PAGE_TIMEOUT_RANGE));
    }
    std::time::Duration::try_from_secs_f64(secs)
        .map_err(|_| bad("page_timeout", PAGE_TIMEOUT_RANGE))
}

/// Worker threads allowed per core: more only adds memory (each thread
/// holds a page in flight) and start-up time, never speed.
pub const MAX_THREADS_PER_CORE: usize = 4;

/// The most worker threads a batch may ask for: [`MAX_THREADS_PER_CORE`]
/// times the cores this process may use.
pub fn max_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    cores.saturating_mul(MAX_THREADS_PER_CORE)
}

/// Checks a requested number of worker threads: at least 1 and at most
/// [`max_threads`], else [`Error::Config`] naming the range.
pub fn check_threads(threads: usize) -> Result<usize> {
    let max = max_threads();
    if threads == 0 || threads > max {
        return Err(Error::Config {
            field: "threads".into(),
            reason: format!(
                "must lie in 1..={max} ({MAX_THREADS_PER_CORE} per core on this machine), not {threads}"
            ),
        });
    }
    Ok(threads)
}

pub(crate) fn bad(field: &'static str, reason: &str) -> Error {
    Error::Config {
        field: field.into(),
        reason: reason.to_string(),
    }
}

/// Extraction settings read by name from a JSON value (an object of
/// [`ExtractorConfig`] fields, nested objects for the nested groups;
/// missing fields default), then checked ([`ExtractorConfig::check`]). The
/// one reader of settings by name: the CLI's `--config`, Python's keyword
/// arguments and WebAssembly's options object all go through it, so an
/// unknown key, a value of the wrong type or out of range gives each of
/// them the same [`Error::Config`], whose field is the key's path
/// (`classic.fallbak`) and whose reason is serde's ("unknown field
/// `fallbak`, expected one of ...").
pub fn settings_from_value(value: serde_json::Value) -> Result<ExtractorConfig> {
    let config: ExtractorConfig = from_value(value)?;
    config.check()?;
    Ok(config)
}

/// Any settings struct read by name from a JSON value, unchecked: an error
/// is an [`Error::Config`] whose field is the path of the key at fault
/// (`ensemble.n_tree`, `bag[1].power`; `settings` for the value as a
/// whole) and whose reason is serde's, with no line or column. See
/// [`settings_from_value`] for extraction settings.
pub fn from_value<T: DeserializeOwned>(value: serde_json::Value) -> Result<T> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        Error::Config {
            field: match path.as_str() {
                "." => Cow::Borrowed("settings"),
                _ => Cow::Owned(path),
            },
            reason: e.into_inner().to_string(),
        }
    })
}

/// A number as a settings value for [`settings_from_value`], for front
/// ends whose numbers are floats (JavaScript) or may not be finite
/// (Python): an integral one becomes a JSON integer (so that it reads as a
/// count), another finite one a JSON number; NaN and the infinities, which
/// JSON cannot hold, are an [`Error::Config`] naming `path` (the key's
/// path, as [`from_value`] names it).
pub fn number_value(path: &str, x: f64) -> Result<serde_json::Value> {
    // Integers up to 2^53 are exact in an f64.
    const EXACT: f64 = 9_007_199_254_740_992.0;
    if x.fract() == 0.0 && x.abs() <= EXACT {
        return Ok(serde_json::Value::from(x as i64));
    }
    serde_json::Number::from_f64(x)
        .map(serde_json::Value::Number)
        .ok_or_else(|| Error::Config {
            field: match path {
                "" => Cow::Borrowed("settings"),
                _ => Cow::Owned(path.to_string()),
            },
            reason: format!("must be a finite number, not {x}"),
        })
}

/// [`ExtractorConfig::page_timeout`] as a number of seconds in JSON,
/// checked by [`page_timeout_from_secs`].
mod page_timeout_secs {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(timeout: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        timeout.map(|t| t.as_secs_f64()).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        match Option::<f64>::deserialize(d)? {
            None => Ok(None),
            Some(secs) => super::page_timeout_from_secs(secs)
                .map(Some)
                .map_err(|_| serde::de::Error::custom(super::PAGE_TIMEOUT_RANGE)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field_of(r: Result<()>) -> String {
        match r {
            Err(Error::Config { field, .. }) => field.into_owned(),
            other => panic!("expected a config error, got {other:?}"),
        }
    }

    #[test]
    fn defaults_are_valid() {
        ExtractorConfig::default().check().unwrap();
        TrainConfig::default().check().unwrap();
    }

    fn ex(f: impl FnOnce(&mut ExtractorConfig)) -> Result<()> {
        let mut c = ExtractorConfig::default();
        f(&mut c);
        c.check()
    }

    fn tr(f: impl FnOnce(&mut TrainConfig)) -> Result<()> {
        let mut c = TrainConfig::default();
        f(&mut c);
        c.check()
    }

    #[test]
    fn each_extractor_rule() {
        assert_eq!(field_of(ex(|c| c.max_bytes = 0)), "max_bytes");
        assert_eq!(field_of(ex(|c| c.max_nodes = 0)), "max_nodes");
        assert_eq!(field_of(ex(|c| c.max_depth = 0)), "max_depth");
        assert_eq!(field_of(ex(|c| c.threshold = Some(1.5))), "threshold");
        assert_eq!(
            field_of(ex(|c| c.low_prose_shift = Some(-0.5))),
            "low_prose_shift"
        );
        assert_eq!(
            field_of(ex(|c| c.page_timeout = Some(std::time::Duration::ZERO))),
            "page_timeout"
        );
        assert_eq!(field_of(ex(|c| c.cetr.sigma = 0.0)), "cetr.sigma");
        assert_eq!(field_of(ex(|c| c.cetr.alpha = 0)), "cetr.alpha");
        assert_eq!(
            field_of(ex(|c| c.cetr.kmeans_iterations = 0)),
            "cetr.kmeans_iterations"
        );
    }

    #[test]
    fn each_train_rule() {
        assert_eq!(field_of(tr(|c| c.folds = 1)), "folds");
        assert_eq!(field_of(tr(|c| c.inner_folds = 1)), "inner_folds");
        assert_eq!(
            field_of(tr(|c| c.label_threshold = -0.1)),
            "label_threshold"
        );
        assert_eq!(field_of(tr(|c| c.css_smoothing = 0.0)), "css_smoothing");
        assert_eq!(field_of(tr(|c| c.threshold_grid.clear())), "threshold_grid");
        assert_eq!(field_of(tr(|c| c.ensemble.n_trees = 0)), "ensemble.n_trees");
        let columns = ["shallow.log_char_offset", "css.own_mean"].map(String::from);
        for bad_name in ["no.such_column", "css.own_mean"] {
            let c = TrainConfig {
                disabled_features: vec![bad_name.to_string()],
                ..Default::default()
            };
            assert_eq!(field_of(c.check_columns(&columns)), "disabled_features");
        }
        let ok = TrainConfig {
            disabled_features: vec!["shallow.log_char_offset".to_string()],
            ..Default::default()
        };
        assert!(ok.check().is_ok());
        assert!(ok.check_columns(&columns).is_ok());
        let bad_stage2 = GbdtConfig {
            max_depth: 0,
            ..Default::default()
        };
        assert_eq!(
            field_of(tr(|c| c.stage2_ensemble = Some(bad_stage2.clone()))),
            "stage2_ensemble"
        );
        assert_eq!(
            field_of(tr(|c| c.ensemble.max_depth = 0)),
            "ensemble.max_depth"
        );
        assert_eq!(
            field_of(tr(|c| c.ensemble.learning_rate = 0.0)),
            "ensemble.learning_rate"
        );
        assert_eq!(
            field_of(tr(|c| c.ensemble.min_child_weight = -1.0)),
            "ensemble.min_child_weight"
        );
        assert_eq!(
            field_of(tr(|c| c.ensemble.lambda = -1.0)),
            "ensemble.lambda"
        );
        assert_eq!(
            field_of(tr(|c| c.ensemble.subsample = 0.0)),
            "ensemble.subsample"
        );
        assert_eq!(
            field_of(tr(|c| c.ensemble.colsample = 1.5)),
            "ensemble.colsample"
        );
        assert_eq!(
            field_of(tr(|c| c.ensemble.max_bins = 1)),
            "ensemble.max_bins"
        );
        let member = |power| BagMember {
            page_weight_power: power,
            ..Default::default()
        };
        assert_eq!(field_of(tr(|c| c.bag = vec![member(2.5)])), "bag");
        assert_eq!(field_of(tr(|c| c.bag = vec![member(0.5); 9])), "bag");
        assert!(tr(|c| c.bag = vec![member(0.5); 8]).is_ok());
        let parsed: TrainConfig =
            serde_json::from_str(r#"{"bag": [{"page_weight_power": 0.5}]}"#).unwrap();
        assert_eq!(parsed.bag, vec![member(0.5)]);
        assert!(serde_json::from_str::<TrainConfig>(r#"{"bag": [{"power": 0.5}]}"#).is_err());
        // An empty bag leaves the JSON (and so model files) as before.
        let single = TrainConfig {
            bag: Vec::new(),
            ..Default::default()
        };
        assert!(!serde_json::to_string(&single).unwrap().contains("bag"));
        let st = |low, high, weight| Some(SelfTraining { low, high, weight });
        assert_eq!(
            field_of(tr(|c| c.self_training = st(0.6, 0.4, 1.0))),
            "self_training"
        );
        assert_eq!(
            field_of(tr(|c| c.self_training = st(0.1, 1.5, 1.0))),
            "self_training"
        );
        assert_eq!(
            field_of(tr(|c| c.self_training = st(0.1, 0.9, 0.0))),
            "self_training.weight"
        );
        assert!(tr(|c| c.self_training = st(0.0, 1.0, 10.0)).is_ok());
        assert!(serde_json::from_str::<TrainConfig>(r#"{"self_training": {"lo": 0.1}}"#).is_err());
    }

    /// The field and reason of a settings error.
    fn settings_error(json: serde_json::Value) -> (String, String) {
        match settings_from_value(json) {
            Err(Error::Config { field, reason }) => (field.into_owned(), reason),
            other => panic!("expected a config error, got {other:?}"),
        }
    }

    #[test]
    fn settings_by_name_read_every_level_and_default_the_rest() {
        use serde_json::json;
        let c = settings_from_value(json!({
            "algorithm": "kmeans",
            "threshold": 0.4,
            "page_timeout": 2.5,
            "fallback": true,
            "comments": "include",
            "classic": {"danag_gap": 7},
            "cetr": {"alpha": 5}
        }))
        .unwrap();
        assert_eq!(c.algorithm, Algorithm::Kmeans);
        assert_eq!(c.threshold, Some(0.4));
        assert_eq!(c.page_timeout, Some(Duration::from_millis(2500)));
        assert!(c.fallback);
        assert_eq!(c.comments, CommentMode::Include);
        assert_eq!(c.classic.danag_gap, 7);
        assert_eq!(c.classic.cetr_lambda, ClassicConfig::default().cetr_lambda);
        assert_eq!(c.cetr.alpha, 5);
        assert_eq!(c.max_nodes, ExtractorConfig::default().max_nodes);
        assert_eq!(
            settings_from_value(json!({})).unwrap(),
            ExtractorConfig::default()
        );
        // What serialises reads back the same, the page timeout in seconds.
        let written = ExtractorConfig {
            page_timeout: Some(Duration::from_millis(1500)),
            model: Some("my.model".into()),
            ..ExtractorConfig::default()
        };
        let value = serde_json::to_value(&written).unwrap();
        assert_eq!(value["page_timeout"], json!(1.5));
        assert_eq!(value["algorithm"], json!("forest"));
        assert_eq!(settings_from_value(value).unwrap(), written);
    }

    #[test]
    fn settings_by_name_name_the_key_at_fault() {
        use serde_json::json;
        let (field, reason) = settings_error(json!({"treshold": 0.5}));
        assert_eq!(field, "treshold");
        assert!(
            reason.starts_with("unknown field `treshold`, expected one of `algorithm`, `model`,"),
            "{reason}"
        );
        assert!(reason.contains("`threshold`"), "{reason}");
        let (field, reason) = settings_error(json!({"classic": {"fallbak": true}}));
        assert_eq!(field, "classic.fallbak");
        assert!(
            reason.starts_with("unknown field `fallbak`, expected one of `cetr_lambda`"),
            "{reason}"
        );
        assert_eq!(
            settings_error(json!({"cetr": {"sigma": 1.0, "beta": 2}})).0,
            "cetr.beta"
        );
        // The message as every front end shows it: key path, serde's words,
        // no line or column.
        let message = settings_from_value(json!({"classic": {"fallbak": true}}))
            .unwrap_err()
            .to_string();
        assert!(
            message.starts_with(
                "invalid configuration: classic.fallbak: unknown field `fallbak`, expected one of"
            ),
            "{message}"
        );
        assert!(!message.contains("line"), "{message}");
        // Wrong types.
        assert_eq!(
            settings_error(json!({"threshold": "high"})),
            (
                "threshold".into(),
                "invalid type: string \"high\", expected f32".into()
            )
        );
        assert_eq!(
            settings_error(json!({"keep_captions": 1})).0,
            "keep_captions"
        );
        assert_eq!(
            settings_error(json!({"classic": {"danag_gap": -1}})).0,
            "classic.danag_gap"
        );
        assert_eq!(settings_error(json!({"classic": true})).0, "classic");
        assert_eq!(settings_error(json!(5)).0, "settings");
        assert_eq!(
            settings_error(json!({"comments": "sometimes"})).0,
            "comments"
        );
        // Only the algorithms a user may choose, by name.
        let (field, reason) = settings_error(json!({"algorithm": "magic"}));
        assert_eq!(field, "algorithm");
        assert!(
            reason.starts_with("unknown variant `magic`, expected one of `forest`, `kmeans`"),
            "{reason}"
        );
        assert!(!reason.contains("kmeans-fallback"), "{reason}");
        assert_eq!(
            settings_error(json!({"algorithm": "kmeans-fallback"})).0,
            "algorithm"
        );
        // Out of range: the checks, by the same field names.
        for (json, field) in [
            (json!({"threshold": 1.5}), "threshold"),
            (json!({"low_prose_shift": -0.5}), "low_prose_shift"),
            (json!({"max_nodes": 0}), "max_nodes"),
            (json!({"fallback_margin": 0.9}), "fallback_margin"),
            (json!({"cetr": {"sigma": 0.0}}), "cetr.sigma"),
            (
                json!({"classic": {"danag_gap": 20000}}),
                "classic.danag_gap",
            ),
            (json!({"page_timeout": 0}), "page_timeout"),
            (json!({"page_timeout": -1}), "page_timeout"),
            (json!({"page_timeout": 86401}), "page_timeout"),
            (json!({"page_timeout": 1e300}), "page_timeout"),
            (json!({"algorithm": "danag", "model": "x.model"}), "model"),
        ] {
            assert_eq!(settings_error(json.clone()).0, field, "{json}");
        }
        let (_, reason) = settings_error(json!({"page_timeout": 0}));
        assert_eq!(reason, PAGE_TIMEOUT_RANGE);
        assert!(settings_from_value(json!({"page_timeout": null})).is_ok());
    }

    #[test]
    fn numbers_from_front_ends() {
        use serde_json::json;
        assert_eq!(number_value("max_nodes", 3.0).unwrap(), json!(3));
        assert_eq!(number_value("threshold", 0.25).unwrap(), json!(0.25));
        assert_eq!(number_value("x", -2.0).unwrap(), json!(-2));
        for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            match number_value("page_timeout", x) {
                Err(Error::Config { field, reason }) => {
                    assert_eq!(field, "page_timeout");
                    assert_eq!(reason, format!("must be a finite number, not {x}"));
                }
                other => panic!("{other:?}"),
            }
        }
        // A count given as a float reads as one.
        let c =
            settings_from_value(json!({"max_depth": number_value("max_depth", 100.0).unwrap()}));
        assert_eq!(c.unwrap().max_depth, 100);
    }

    #[test]
    fn train_settings_by_name_name_the_path() {
        let e = from_value::<TrainConfig>(serde_json::json!({"bag": [{}, {"power": 0.5}]}))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("invalid configuration: bag[1].power: unknown field `power`"),
            "{e}"
        );
    }

    #[test]
    fn unknown_keys_are_refused_at_every_depth_with_the_known_ones() {
        for (json, key, known) in [
            (r#"{"ensemble": {"n_tree": 50}}"#, "n_tree", "n_trees"),
            (r#"{"n_treez": 50}"#, "n_treez", "ensemble"),
            (
                r#"{"self_training": {"low": 0.1, "hi": 0.9}}"#,
                "hi",
                "high",
            ),
            (r#"{"stage2_ensemble": {"depth": 3}}"#, "depth", "max_depth"),
        ] {
            let e = serde_json::from_str::<TrainConfig>(json)
                .unwrap_err()
                .to_string();
            assert!(e.contains(&format!("unknown field `{key}`")), "{e}");
            assert!(e.contains(known), "{e}");
        }
        let e = serde_json::from_str::<ExtractorConfig>(r#"{"classic": {"fallbak": true}}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown field `fallbak`"), "{e}");
    }
}
