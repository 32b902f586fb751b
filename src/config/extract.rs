//! Extraction settings: [`ExtractorConfig`], the one settings surface of
//! the CLI, Python and WebAssembly, with its groups ([`CetrConfig`],
//! [`ClassicConfig`]) and [`CommentMode`].

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::{bad, page_timeout_secs, MAX_PAGE_TIMEOUT_SECS, PAGE_TIMEOUT_RANGE};
use crate::algorithm::Algorithm;
use crate::error::Result;

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
/// read it by these names through [`settings_from_value`](super::settings_from_value), so they accept
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
    /// Use the fast model embedded in this build instead of the default
    /// one: one ensemble per stage instead of two (the default averages a
    /// second, differently weighted ensemble), for crawl-scale batches. Its
    /// speed and its out-of-fold cost against the default are in the
    /// README. Needs the `forest` algorithm and no `model` file.
    pub fast: bool,
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
    /// ([`page_timeout_from_secs`](super::page_timeout_from_secs)). Not on wasm32-unknown-unknown, which
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
    /// Keep the text of figure captions (`<figcaption>`, and on pages
    /// predicted articles elements whose id or class names a caption) that
    /// the classifier keeps. Off by default: captions are dropped unless
    /// they are most of the kept text (a photo post, a captioned gallery;
    /// see [`CAPTIONS_ARE_MAIN`](crate::select::CAPTIONS_ARE_MAIN)).
    pub keep_captions: bool,
    /// Keep a block that repeats the text of an earlier kept block from a
    /// container of another shape. Off by default: the second copy (a
    /// mobile rendering, a pull quote, a quoted reply) is dropped (see
    /// [`exclude_repeats`](crate::select::exclude_repeats)).
    pub keep_repeats: bool,
    /// Keep comment threads found by their shape alone on pages predicted
    /// articles (with `comments: exclude`). Off by default: repeated
    /// sibling records that read as posts (a date, a time or a "Reply"
    /// line beside prose, no headline link) under an article count as its
    /// comment thread even when the markup names none (see
    /// [`crate::select::threads`]).
    pub keep_unnamed_threads: bool,
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
    /// Pages whose confidence (the model's estimate of their extraction's
    /// word F1, [`crate::model::confidence`]) lies below this are output
    /// without text and marked `low_confidence`, rather than dropped: a
    /// batch keeps one record per input. Needs the `forest` algorithm and
    /// a model trained with a confidence model (0..=1; unset, none).
    pub min_confidence: Option<f64>,
}

impl Default for ExtractorConfig {
    fn default() -> Self {
        ExtractorConfig {
            algorithm: Algorithm::Forest,
            model: None,
            fast: false,
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
            keep_unnamed_threads: false,
            short_page_blocks: 10,
            structure: false,
            min_confidence: None,
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
        if self.fast {
            if self.algorithm != Algorithm::Forest {
                return Err(bad(
                    "fast",
                    &format!(
                        "is the fast trained model; {} uses none",
                        self.algorithm.name()
                    ),
                ));
            }
            if self.model.is_some() {
                return Err(bad(
                    "fast",
                    "picks the fast embedded model, and a model file is set as well",
                ));
            }
        }
        if let Some(c) = self.min_confidence {
            if !(0.0..=1.0).contains(&c) {
                return Err(bad("min_confidence", "must lie in 0..=1"));
            }
            if self.algorithm != Algorithm::Forest {
                return Err(bad(
                    "min_confidence",
                    &format!(
                        "{} gives no confidence: only the trained model does",
                        self.algorithm.name()
                    ),
                ));
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
