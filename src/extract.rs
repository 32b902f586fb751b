//! The one place where the stages are chained:
//! bytes → [`parse`] → [`blocks`] →
//! [`features`](crate::features) → [`model`](crate::model) →
//! [`select`].

mod decide;
pub mod places;
pub mod structure;

pub use places::{block_places, BlockPlace, MAX_PLACE_LEVELS};

use serde::{Deserialize, Serialize};

// `dechrome::extract::Algorithm`, where it lived first, still names it.
pub use crate::algorithm::Algorithm;
use crate::blocks::crunch::{self, CrunchSettings, DEFAULT_AD_HOSTS};
use crate::blocks::{self, Blocks};
use crate::config::ExtractorConfig;
use crate::error::{Error, Result};
use crate::features::page_signals::page_signals;
use crate::features::site::{PageKeys, SiteIndex};
use crate::features::FeatureSet;
use crate::metadata::PageHints;
use crate::model::gbdt::PackedEnsemble;
use crate::model::page_type::{self, PageType, PageTypeGuess};
use crate::model::{LearnedSelection, Model};
use crate::parse::{self, Document, ParseLimits, TimeBudget};
use crate::select::{self, SelectConfig};

/// The decision on one block.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BlockDecision {
    /// The block's text.
    pub text: String,
    /// Content probability (1 or 0 for unsupervised algorithms).
    pub probability: f32,
    /// Whether the block is kept.
    pub content: bool,
}

/// The result of extracting one page.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Extraction {
    /// The main text: kept blocks, one per line.
    pub text: String,
    /// Title, author, date, language, canonical URL, site name and
    /// description (flattened into the JSON output).
    #[serde(flatten)]
    pub metadata: crate::metadata::Metadata,
    /// The page's predicted type, when the model has a page-type
    /// classifier ([`Extractor::page_type`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_type: Option<PageType>,
    /// The probability of `page_type`, to four decimals (so that every
    /// output, text or a binding's value, shows the same number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_type_probability: Option<f64>,
    /// How good this extraction is likely to be: the model's estimate of
    /// its word F1 (0..=1, four decimals), when the model has a confidence
    /// model and the trained model decided ([`crate::model::confidence`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    /// True when `confidence` lay below
    /// [`ExtractorConfig::min_confidence`]: the text (and the structure)
    /// are then left empty; the blocks keep their decisions.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub low_confidence: bool,
    /// The algorithm that decided.
    pub algorithm: Algorithm,
    /// Every block with its decision, in page order.
    pub blocks: Vec<BlockDecision>,
    /// True when the page was cut at `max_bytes`.
    pub truncated: bool,
    /// The charset the page was decoded with.
    pub encoding: String,
    /// The kept content's structure, for Markdown and HTML output
    /// ([`Extraction::markdown`], [`Extraction::html`]); present only when
    /// [`ExtractorConfig::structure`] asked for it. Not serialised.
    #[serde(skip)]
    pub structure: Option<structure::Structure>,
}

impl Extraction {
    /// Number of kept blocks.
    pub fn kept(&self) -> usize {
        self.blocks.iter().filter(|b| b.content).count()
    }
}

/// A page's place in a batch read with site context.
#[derive(Debug, Clone, Copy)]
pub struct SiteContext<'a> {
    /// The batch's first-pass counts.
    pub index: &'a SiteIndex,
    /// The URL the page was fetched from, if known: its site is taken
    /// from it, else from the URL the page gives for itself ([`site_of`]).
    pub url: Option<&'a str>,
}

/// What the first pass of site context keeps of a page
/// ([`Extractor::site_page`]).
#[derive(Debug, Clone)]
pub struct SitePage {
    /// The keys of the page's blocks.
    pub keys: PageKeys,
    /// The URL the page gives for itself, if any.
    pub canonical_url: Option<String>,
}

/// The site of a page: the registrable domain of its URL (the URL it was
/// fetched from, else the one it gives for itself), or `""` when neither is
/// known: the pages without a URL in a batch are taken as one site (a
/// folder of one site's saved pages).
pub fn site_of(url: Option<&str>, canonical_url: Option<&str>) -> String {
    url.and_then(crate::corpus::domain_of)
        .or_else(|| canonical_url.and_then(crate::corpus::domain_of))
        .unwrap_or_default()
}

/// Extracts main content from pages. Cheap to share across threads.
pub struct Extractor {
    config: ExtractorConfig,
    model: Option<Model>,
    features: FeatureSet,
    crunch: CrunchSettings,
    packed: Option<PackedEnsemble>,
    packed_stage2: Option<PackedEnsemble>,
}

impl Extractor {
    /// The extractor `config` describes: its algorithm, and for the
    /// `forest` its model, read from [`ExtractorConfig::model`] or, unset,
    /// the model embedded in this build. The one place that decides
    /// whether a model is needed and where it comes from; every front end
    /// (CLI, Python, WebAssembly) builds its extractors here or in
    /// [`Extractor::from_config_with_model`]. A model file given for an
    /// algorithm that uses none is an [`Error::Config`].
    pub fn from_config(config: ExtractorConfig) -> Result<Self> {
        config.check()?;
        if !config.algorithm.needs_model() {
            return Self::build(None, config);
        }
        let model = match &config.model {
            Some(path) => Model::load(path)?,
            None if config.fast => Model::embedded_fast()?,
            None => Model::embedded()?,
        };
        Self::build(Some(model), config)
    }

    /// The extractor `config` describes, over `model` (a model the caller
    /// holds, e.g. a model file's bytes in WebAssembly). The algorithm must
    /// be the `forest` and [`ExtractorConfig::model`] unset (a model given
    /// twice is an [`Error::Config`]).
    pub fn from_config_with_model(config: ExtractorConfig, model: Model) -> Result<Self> {
        config.check()?;
        if !config.algorithm.needs_model() {
            return Err(crate::config::bad(
                "model",
                &format!("{} uses no model", config.algorithm.name()),
            ));
        }
        if config.model.is_some() {
            return Err(crate::config::bad(
                "model",
                "a model file is set, and a model was given as well",
            ));
        }
        if config.fast {
            return Err(crate::config::bad(
                "fast",
                "picks the fast embedded model, and a model was given as well",
            ));
        }
        Self::build(Some(model), config)
    }

    /// An extractor using a trained model (`config`'s algorithm must be
    /// the `forest`): [`Extractor::from_config_with_model`].
    pub fn new(model: Model, config: ExtractorConfig) -> Result<Self> {
        Self::from_config_with_model(config, model)
    }

    /// An extractor using the model embedded in this build (`config`'s
    /// algorithm must be the `forest`, its model unset).
    pub fn with_embedded_model(config: ExtractorConfig) -> Result<Self> {
        Self::new(Model::embedded()?, config)
    }

    /// An extractor using CETR-KM, which needs no model.
    pub fn kmeans(config: ExtractorConfig) -> Result<Self> {
        Self::classic(Algorithm::Kmeans, config)
    }

    /// An extractor using one of the unsupervised algorithms (whatever
    /// `config.algorithm` says).
    pub fn classic(algorithm: Algorithm, config: ExtractorConfig) -> Result<Self> {
        if algorithm.needs_model() {
            return Err(crate::config::bad(
                "algorithm",
                &format!("{} is not an unsupervised algorithm", algorithm.name()),
            ));
        }
        Self::from_config(ExtractorConfig {
            algorithm,
            ..config
        })
    }

    /// The extractor over `model` (present exactly when the algorithm needs
    /// one) with a checked `config`.
    fn build(model: Option<Model>, config: ExtractorConfig) -> Result<Self> {
        if config.min_confidence.is_some() && model.as_ref().is_some_and(|m| m.confidence.is_none())
        {
            return Err(Error::Config {
                field: "min_confidence".into(),
                reason: "the model was trained without a confidence model (retrain it with this version)".into(),
            });
        }
        let list = match &config.classic.crunch_ad_hosts_file {
            Some(path) => std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?,
            None => DEFAULT_AD_HOSTS.to_string(),
        };
        Ok(Extractor {
            crunch: CrunchSettings::new(config.classic.crunch_link_ratio, &list),
            packed: model.as_ref().map(|m| PackedEnsemble::new(&m.ensemble)),
            packed_stage2: model
                .as_ref()
                .and_then(|m| m.stage2.as_ref())
                .map(PackedEnsemble::new),
            features: model.as_ref().map(Model::feature_set).unwrap_or_default(),
            config,
            model,
        })
    }

    /// This extractor with [`ExtractorConfig::structure`] set to
    /// `structure`, over the same model (copied, not read again): for front
    /// ends whose callers choose plain text or Markdown/HTML per page (the
    /// Python and WebAssembly bindings), so that plain text does not pay
    /// for recording the structure.
    pub fn with_structure(&self, structure: bool) -> Extractor {
        Extractor {
            config: ExtractorConfig {
                structure,
                ..self.config.clone()
            },
            model: self.model.clone(),
            features: self
                .model
                .as_ref()
                .map(Model::feature_set)
                .unwrap_or_default(),
            crunch: self.crunch.clone(),
            packed: self.packed.clone(),
            packed_stage2: self.packed_stage2.clone(),
        }
    }

    /// The algorithm in use.
    pub fn algorithm(&self) -> Algorithm {
        self.config.algorithm
    }

    /// The settings this extractor runs with.
    pub fn config(&self) -> &ExtractorConfig {
        &self.config
    }

    /// The model in use, if any.
    pub fn model(&self) -> Option<&Model> {
        self.model.as_ref()
    }

    /// Extracts from raw bytes (gzip allowed). `charset` is a charset label
    /// from an HTTP or WARC header, if known.
    ///
    /// Like every entry here that processes a page, it never panics: a
    /// fault inside is returned as [`PageError::Internal`](crate::PageError)
    /// (see [`crate::guard`]).
    pub fn extract_bytes(&self, bytes: &[u8], charset: Option<&str>) -> Result<Extraction> {
        crate::guard::page(|| {
            let budget = self.time_budget();
            let doc = parse::parse(bytes, charset, self.parse_limits(budget))?;
            self.extract_inner(&doc, budget, None, None, &PageHints::default())
        })
    }

    /// Extracts from raw bytes like [`Extractor::extract_bytes`], with what
    /// the caller knows of the page beyond its HTML: its URL (a date in its
    /// path) and a reference date for relative dates ("3 hours ago"), for
    /// the metadata ([`crate::metadata::extract_with`]); with `site`, the
    /// page's site context as in [`Extractor::extract_bytes_in_site`].
    pub fn extract_bytes_with(
        &self,
        bytes: &[u8],
        charset: Option<&str>,
        hints: &PageHints<'_>,
        site: Option<SiteContext<'_>>,
    ) -> Result<Extraction> {
        crate::guard::page(|| {
            let budget = self.time_budget();
            let doc = parse::parse(bytes, charset, self.parse_limits(budget))?;
            self.extract_inner(&doc, budget, None, site, hints)
        })
    }

    /// Extracts from raw bytes like [`Extractor::extract_bytes`], with the
    /// page's site context: each block's recurrence across the other pages
    /// of its site in `site.index` (built by a first pass over the batch
    /// with [`Extractor::site_page`]). Only a model trained with site
    /// context reads it; other models and algorithms ignore it.
    pub fn extract_bytes_in_site(
        &self,
        bytes: &[u8],
        charset: Option<&str>,
        site: SiteContext<'_>,
    ) -> Result<Extraction> {
        crate::guard::page(|| {
            let budget = self.time_budget();
            let doc = parse::parse(bytes, charset, self.parse_limits(budget))?;
            let hints = PageHints {
                url: site.url,
                reference_date: None,
            };
            self.extract_inner(&doc, budget, None, Some(site), &hints)
        })
    }

    /// The first pass of site context over one page: its blocks' keys and
    /// the URL the page gives for itself (`<link rel=canonical>` or
    /// `og:url`), from which a caller without the page's URL can take its
    /// site ([`site_of`]).
    pub fn site_page(&self, bytes: &[u8], charset: Option<&str>) -> Result<SitePage> {
        crate::guard::page(|| {
            let doc = parse::parse(bytes, charset, self.parse_limits(self.time_budget()))?;
            let blocks = blocks::split(&doc);
            Ok(SitePage {
                keys: PageKeys::of(&blocks),
                canonical_url: crate::metadata::extract(&doc).canonical_url,
            })
        })
    }

    /// True when the model reads site columns, so that extracting with
    /// site context changes its decisions.
    pub fn uses_site_context(&self) -> bool {
        self.features.has_site() && self.algorithm() == Algorithm::Forest
    }

    /// Extracts from an already decoded HTML string.
    pub fn extract_str(&self, html: &str) -> Result<Extraction> {
        self.extract_bytes(html.as_bytes(), Some("utf-8"))
    }

    /// Extracts from a parsed document. Fails only when the page runs over
    /// [`ExtractorConfig::page_timeout`].
    pub fn extract_document(&self, doc: &Document) -> Result<Extraction> {
        crate::guard::page(|| {
            self.extract_inner(doc, self.time_budget(), None, None, &PageHints::default())
        })
    }

    /// The page's time budget, starting now: read only when a budget is
    /// set, so extraction without one needs no clock (wasm32-unknown-unknown
    /// has none: `Instant::now` panics there).
    fn time_budget(&self) -> Option<TimeBudget> {
        self.config.page_timeout.map(TimeBudget::from_now)
    }

    /// Extracts from raw bytes like [`Extractor::extract_bytes`], and also
    /// gives each block's [`BlockPlace`] (one per entry of
    /// [`Extraction::blocks`], in the same order).
    pub fn extract_with_places(
        &self,
        bytes: &[u8],
        charset: Option<&str>,
    ) -> Result<(Extraction, Vec<BlockPlace>)> {
        crate::guard::page(|| {
            let budget = self.time_budget();
            let doc = parse::parse(bytes, charset, self.parse_limits(budget))?;
            let mut places = Vec::new();
            let extraction =
                self.extract_inner(&doc, budget, Some(&mut places), None, &PageHints::default())?;
            Ok((extraction, places))
        })
    }

    /// The parse limits of this extractor, with the page's time budget:
    /// the parse itself stops when the budget is spent.
    fn parse_limits(&self, time_budget: Option<TimeBudget>) -> ParseLimits {
        ParseLimits {
            max_bytes: self.config.max_bytes,
            max_nodes: self.config.max_nodes,
            max_depth: self.config.max_depth,
            time_budget,
        }
    }

    /// Checks the page's time budget between stages. The parse checks it
    /// inside as well; every later stage is linear in the page, which
    /// `max_bytes`, `max_nodes` and `max_depth` bound, so checking between
    /// them keeps a page from running on.
    fn check_budget(&self, budget: Option<TimeBudget>, stage: &'static str) -> Result<()> {
        budget.map_or(Ok(()), |b| b.check(stage))
    }

    fn extract_inner(
        &self,
        doc: &Document,
        start: Option<TimeBudget>,
        places: Option<&mut Vec<BlockPlace>>,
        site: Option<SiteContext<'_>>,
        hints: &PageHints<'_>,
    ) -> Result<Extraction> {
        self.check_budget(start, "parsing")?;
        let (blocks, retained, removed) = if self.algorithm() == Algorithm::Crunch {
            let r = crunch::filter(doc, &self.crunch);
            (
                blocks::split_filtered(doc, |id| r.removed[id]),
                r.retained_links,
                Some(r.removed),
            )
        } else {
            (blocks::split(doc), Vec::new(), None)
        };
        self.check_budget(start, "splitting")?;
        if let Some(out) = places {
            *out = block_places(&blocks);
        }
        let mut metadata = crate::metadata::extract_with(doc, hints);
        let site_rows = site.filter(|_| self.uses_site_context()).map(|s| {
            let name = site_of(s.url, metadata.canonical_url.as_deref());
            s.index.rows(&name, &PageKeys::of(&blocks))
        });
        let (probs, algorithm) = self.decide_within(&blocks, site_rows.as_ref(), start)?;
        self.check_budget(start, "classification")?;
        let page_type = self.page_type(doc, &blocks, &probs, algorithm, &metadata);
        if let Some(guess) = page_type {
            metadata.settle_date_for(guess.kind);
        }
        let kept = self.keep(&blocks, &probs, algorithm, page_type.map(|g| g.kind));
        // Rounded first: the minimum is compared with the figure the
        // outputs show.
        let confidence = self
            .confidence(&blocks, &probs, &kept, algorithm, page_type.as_ref())
            .map(rounded_probability);
        let low_confidence = matches!(
            (confidence, self.config.min_confidence),
            (Some(c), Some(min)) if c < min
        );
        let structure = (self.config.structure && !low_confidence)
            .then(|| structure::build(doc, &blocks, &kept, removed.as_deref()));
        let decisions: Vec<BlockDecision> = blocks
            .blocks
            .into_iter()
            .zip(probs)
            .zip(kept)
            .map(|((b, p), content)| BlockDecision {
                content,
                probability: p,
                text: b.text,
            })
            .collect();
        let mut text = if low_confidence {
            String::new()
        } else {
            join_kept(&decisions)
        };
        if self.config.classic.crunch_retain_links && !retained.is_empty() && !low_confidence {
            for link in retained {
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(&link);
            }
        }
        Ok(Extraction {
            text,
            metadata,
            page_type: page_type.map(|g| g.kind),
            page_type_probability: page_type.map(|g| rounded_probability(g.probability)),
            confidence,
            low_confidence,
            algorithm,
            blocks: decisions,
            truncated: doc.truncated,
            encoding: doc.encoding.name().to_string(),
            structure,
        })
    }

    /// The decision threshold in force for the trained model (0.5 for the
    /// unsupervised algorithms, whose probabilities are 0 or 1).
    pub fn threshold(&self) -> f32 {
        match (&self.config.threshold, &self.model, self.algorithm()) {
            (Some(t), Some(_), Algorithm::Forest) => *t,
            (None, Some(m), Algorithm::Forest) => m.threshold,
            _ => 0.5,
        }
    }

    /// How far the threshold falls on a page that is not prose (see
    /// [`select::page_threshold`]): `ExtractorConfig::low_prose_shift` when
    /// set, else the model's own ([`LearnedSelection`]); 0 for the
    /// unsupervised algorithms (their probabilities are 0 or 1).
    pub fn low_prose_shift(&self) -> f32 {
        match (&self.model, self.algorithm()) {
            (Some(m), Algorithm::Forest) => self
                .config
                .low_prose_shift
                .unwrap_or(m.selection.low_prose_shift),
            _ => 0.0,
        }
    }

    /// The selection of the blocks whose probabilities `decide` gave with
    /// `algorithm`: the trained model's threshold and learned constants
    /// (each overridable in [`ExtractorConfig`]), or for the unsupervised
    /// algorithms (and the CETR-KM fallback), whose probabilities are 0 or
    /// 1, threshold 0.5 without a shift or the short-page rule; the
    /// comment, caption and repeat settings apply to every algorithm.
    pub fn select_config(&self, algorithm: Algorithm) -> SelectConfig {
        let learned = match (&self.model, algorithm) {
            (Some(m), Algorithm::Forest) => m.selection,
            _ => LearnedSelection::default(),
        };
        let forest = algorithm == Algorithm::Forest && self.model.is_some();
        SelectConfig {
            threshold: if forest { self.threshold() } else { 0.5 },
            low_prose_shift: if forest { self.low_prose_shift() } else { 0.0 },
            short_page_blocks: if forest {
                self.config.short_page_blocks
            } else {
                0
            },
            comments: self.config.comments,
            comments_main_share: f64::from(learned.comments_main_share),
            forum_comments_main_share: f64::from(learned.forum_comments_main_share),
            page_type: None,
            keep_captions: self.config.keep_captions,
            keep_repeats: self.config.keep_repeats,
            unnamed_threads: !self.config.keep_unnamed_threads,
        }
    }

    /// The threshold this page's blocks are decided at, from `probs` as
    /// `decide` gave them with `algorithm` ([`select::page_threshold`]
    /// with [`Extractor::select_config`]).
    pub fn page_threshold(&self, blocks: &Blocks, probs: &[f32], algorithm: Algorithm) -> f32 {
        let cfg = self.select_config(algorithm);
        select::page_threshold(blocks, probs, cfg.threshold, cfg.low_prose_shift)
    }

    /// The blocks extraction outputs from `probs` (as `decide` gave them
    /// with `algorithm`) on a page of predicted type `page_type`
    /// ([`Extractor::page_type`]): the selection stage ([`select::keep`])
    /// with [`Extractor::select_config`].
    pub fn keep(
        &self,
        blocks: &Blocks,
        probs: &[f32],
        algorithm: Algorithm,
        page_type: Option<PageType>,
    ) -> Vec<bool> {
        select::keep(
            blocks,
            probs,
            &self.select_config(algorithm).for_page(page_type),
        )
    }

    /// [`Extractor::keep`], with for each block the selection rule that
    /// changed its decision from its threshold's ([`select::keep_with_rules`]).
    pub fn keep_with_rules(
        &self,
        blocks: &Blocks,
        probs: &[f32],
        algorithm: Algorithm,
        page_type: Option<PageType>,
    ) -> (Vec<bool>, Vec<Option<select::Rule>>) {
        select::keep_with_rules(
            blocks,
            probs,
            &self.select_config(algorithm).for_page(page_type),
        )
    }

    /// The page's predicted type, from the model's page-type classifier
    /// (`None` without one, and for the unsupervised algorithms), given the
    /// blocks' probabilities as `decide` gave them with `algorithm` and
    /// the page's metadata (its own URL, its dates and author).
    pub fn page_type(
        &self,
        doc: &Document,
        blocks: &Blocks,
        probs: &[f32],
        algorithm: Algorithm,
        metadata: &crate::metadata::Metadata,
    ) -> Option<PageTypeGuess> {
        let classifier = self.model.as_ref()?.page_type.as_ref()?;
        if algorithm != Algorithm::Forest {
            return None;
        }
        let signals = page_signals(doc, blocks, metadata);
        Some(classifier.guess(&page_type::input_row(&signals, blocks, probs)))
    }

    /// The page's confidence, from the model's confidence model (`None`
    /// without one, and for the unsupervised algorithms), given the blocks'
    /// probabilities as `decide` gave them with `algorithm`, the blocks the
    /// selection stage kept, and the page-type guess.
    pub fn confidence(
        &self,
        blocks: &Blocks,
        probs: &[f32],
        kept: &[bool],
        algorithm: Algorithm,
        page_type: Option<&PageTypeGuess>,
    ) -> Option<f32> {
        let estimator = self.model.as_ref()?.confidence.as_ref()?;
        if algorithm != Algorithm::Forest {
            return None;
        }
        let threshold = self.select_config(algorithm).threshold;
        Some(estimator.estimate(&crate::model::confidence::input_row(
            blocks, probs, kept, threshold, page_type,
        )))
    }
}

/// `p` to four decimals, as outputs show a probability.
fn rounded_probability(p: f32) -> f64 {
    (f64::from(p) * 10_000.0).round() / 10_000.0
}

/// Joins the kept blocks' text, one block per line.
pub fn join_kept(decisions: &[BlockDecision]) -> String {
    let mut out = String::new();
    for d in decisions.iter().filter(|d| d.content) {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&d.text);
    }
    out
}
