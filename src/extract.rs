//! The one place where the stages are chained:
//! bytes → [`parse`](crate::parse) → [`blocks`](crate::blocks) →
//! [`features`](crate::features) → [`model`](crate::model) → selection.

use serde::{Deserialize, Serialize};

use crate::blocks::{self, Blocks};
use crate::config::ExtractorConfig;
use crate::error::Result;
use crate::features::{FeatureSet, PageContext};
use crate::model::{kmeans, Model};
use crate::parse::{self, Document, ParseLimits};

/// Which extractor decides what is content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    /// The trained gradient-boosted ensemble (default).
    Forest,
    /// CETR-KM: per-page k-means over tag ratios; needs no model.
    Kmeans,
}

impl Algorithm {
    /// The name used on the command line and in JSON output.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Forest => "forest",
            Algorithm::Kmeans => "kmeans",
        }
    }
}

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
    /// The page's `<title>`, if any.
    pub title: Option<String>,
    /// The algorithm that decided.
    pub algorithm: Algorithm,
    /// Every block with its decision, in page order.
    pub blocks: Vec<BlockDecision>,
    /// True when the page was cut at `max_bytes`.
    pub truncated: bool,
    /// The charset the page was decoded with.
    pub encoding: String,
}

impl Extraction {
    /// Number of kept blocks.
    pub fn kept(&self) -> usize {
        self.blocks.iter().filter(|b| b.content).count()
    }
}

/// Extracts main content from pages. Cheap to share across threads.
pub struct Extractor {
    config: ExtractorConfig,
    model: Option<Model>,
    features: FeatureSet,
    algorithm: Algorithm,
}

impl Extractor {
    /// An extractor using a trained model.
    pub fn new(model: Model, config: ExtractorConfig) -> Result<Self> {
        config.check()?;
        Ok(Extractor {
            config,
            model: Some(model),
            features: FeatureSet::standard(),
            algorithm: Algorithm::Forest,
        })
    }

    /// An extractor using the model embedded in this build.
    pub fn with_embedded_model(config: ExtractorConfig) -> Result<Self> {
        Self::new(Model::embedded()?, config)
    }

    /// An extractor using CETR-KM, which needs no model.
    pub fn kmeans(config: ExtractorConfig) -> Result<Self> {
        config.check()?;
        Ok(Extractor {
            config,
            model: None,
            features: FeatureSet::standard(),
            algorithm: Algorithm::Kmeans,
        })
    }

    /// The algorithm in use.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The model in use, if any.
    pub fn model(&self) -> Option<&Model> {
        self.model.as_ref()
    }

    /// Extracts from raw bytes (gzip allowed). `charset` is a charset label
    /// from an HTTP or WARC header, if known.
    pub fn extract_bytes(&self, bytes: &[u8], charset: Option<&str>) -> Result<Extraction> {
        let limits = ParseLimits {
            max_bytes: self.config.max_bytes,
            max_nodes: self.config.max_nodes,
            max_depth: self.config.max_depth,
        };
        let doc = parse::parse(bytes, charset, limits)?;
        Ok(self.extract_document(&doc))
    }

    /// Extracts from an already decoded HTML string.
    pub fn extract_str(&self, html: &str) -> Result<Extraction> {
        self.extract_bytes(html.as_bytes(), Some("utf-8"))
    }

    /// Extracts from a parsed document.
    pub fn extract_document(&self, doc: &Document) -> Extraction {
        let blocks = blocks::split(doc);
        let probs = self.classify(&blocks);
        let threshold = self.threshold();
        let decisions: Vec<BlockDecision> = blocks
            .blocks
            .into_iter()
            .zip(probs)
            .map(|(b, p)| BlockDecision {
                content: p >= threshold && b.words > 0,
                probability: p,
                text: b.text,
            })
            .collect();
        let text = join_kept(&decisions);
        Extraction {
            text,
            title: doc.title(),
            algorithm: self.algorithm,
            blocks: decisions,
            truncated: doc.truncated,
            encoding: doc.encoding.name().to_string(),
        }
    }

    /// The decision threshold in force.
    pub fn threshold(&self) -> f32 {
        match (&self.config.threshold, &self.model, self.algorithm) {
            (_, _, Algorithm::Kmeans) => 0.5,
            (Some(t), _, _) => *t,
            (None, Some(m), _) => m.threshold,
            (None, None, _) => 0.5,
        }
    }

    /// Content probability of every block.
    pub fn classify(&self, blocks: &Blocks) -> Vec<f32> {
        match (&self.model, self.algorithm) {
            (Some(model), Algorithm::Forest) => {
                let ctx = PageContext {
                    blocks,
                    cetr: &model.cetr,
                    css_odds: &model.css_odds,
                };
                let m = self.features.compute(&ctx);
                m.rows()
                    .into_iter()
                    .map(|r| {
                        model
                            .ensemble
                            .predict_row(r.as_slice().expect("standard layout"))
                    })
                    .collect()
            }
            _ => kmeans::classify(blocks, &self.config.cetr)
                .into_iter()
                .map(|c| if c { 1.0 } else { 0.0 })
                .collect(),
        }
    }
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
