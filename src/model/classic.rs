//! The classic unsupervised extractors as block decisions: CETR-KM,
//! CETR-TM, DANAg, the boilerpipe rules and Readability's article. (Crunch filters the DOM before
//! splitting, so the extractor applies it; see `blocks::crunch`.)

use crate::blocks::Blocks;
use crate::config::{CetrConfig, ClassicConfig};
use crate::features::{boilerpipe, cetr, danag, readability, tree};

/// A block-level classic extractor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Classic {
    /// CETR-KM: per-page k-means over (smoothed tag ratio, derivative).
    CetrKmeans,
    /// CETR-TM: smoothed tag ratio above λ standard deviations.
    CetrThreshold,
    /// DANAg: the largest positive content-minus-code region.
    Danag,
    /// boilerpipe's text-density rules.
    BoilerpipeDensity,
    /// boilerpipe's word-count rules.
    BoilerpipeWords,
    /// Readability: the best-scoring container and the siblings joining it.
    Readability,
}

/// Content verdict per block (blocks without words are never content).
pub fn decide(
    method: Classic,
    blocks: &Blocks,
    cetr_cfg: &CetrConfig,
    cfg: &ClassicConfig,
) -> Vec<bool> {
    let verdicts = match method {
        Classic::CetrKmeans => {
            cetr::profile_with(blocks, cetr_cfg, cetr::Clustering::Linfa).content
        }
        Classic::CetrThreshold => {
            cetr::threshold_content(&cetr::profile(blocks, cetr_cfg), cfg.cetr_lambda)
        }
        Classic::Danag => danag::profile(blocks, cfg.danag_gap).in_region,
        Classic::BoilerpipeDensity => {
            boilerpipe::classify(blocks, boilerpipe::RuleVariant::Density)
        }
        Classic::BoilerpipeWords => boilerpipe::classify(blocks, boilerpipe::RuleVariant::Words),
        Classic::Readability => {
            readability::pick(blocks, &tree::ElementTree::build(blocks)).article_blocks(blocks)
        }
    };
    blocks
        .blocks
        .iter()
        .zip(verdicts)
        .map(|(b, c)| c && b.words > 0)
        .collect()
}
