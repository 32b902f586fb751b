//! CETR-KM as an extractor: a block is content when the per-page k-means
//! puts it outside the cluster nearest the origin. Needs no trained model.

use crate::blocks::Blocks;
use crate::config::CetrConfig;
use crate::features::cetr;

/// Content verdict per block by CETR-KM (blocks without words are never content).
pub fn classify(blocks: &Blocks, cfg: &CetrConfig) -> Vec<bool> {
    let p = cetr::profile(blocks, cfg);
    blocks
        .blocks
        .iter()
        .zip(p.content)
        .map(|(b, c)| c && b.words > 0)
        .collect()
}
