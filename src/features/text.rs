//! Kohlschütter et al. (2010) shallow text features: text density, link
//! density and word count of a block and of its two neighbours.

use ndarray::ArrayViewMut2;

use super::{FeatureFamily, PageContext};
use crate::blocks::Block;

/// Text density (words per 80-character line), link density and log word
/// count of the previous, current and next block.
pub struct TextFeatures;

const COLUMNS: &[&str] = &[
    "density_prev",
    "density",
    "density_next",
    "link_density_prev",
    "link_density",
    "link_density_next",
    "log_words_prev",
    "log_words",
    "log_words_next",
];

/// Words per wrapped line of 80 characters. Kohlschütter leaves the last,
/// partial line out when a block wraps; for a block longer than one line that
/// is, up to rounding, words per 80 characters.
pub fn text_density(b: &Block) -> f32 {
    if b.chars <= 80 {
        b.words as f32
    } else {
        b.words as f32 * 80.0 / b.chars as f32
    }
}

/// Share of the block's words (characters when it has none) inside links.
pub fn link_density(b: &Block) -> f32 {
    if b.words > 0 {
        b.link_words as f32 / b.words as f32
    } else if b.chars > 0 {
        b.link_chars as f32 / b.chars as f32
    } else {
        0.0
    }
}

impl FeatureFamily for TextFeatures {
    fn name(&self) -> &'static str {
        "text"
    }

    fn columns(&self) -> &'static [&'static str] {
        COLUMNS
    }

    fn compute(&self, page: &PageContext<'_>, mut out: ArrayViewMut2<'_, f32>) {
        let blocks = &page.blocks.blocks;
        let td: Vec<f32> = blocks.iter().map(text_density).collect();
        let ld: Vec<f32> = blocks.iter().map(link_density).collect();
        let lw: Vec<f32> = blocks.iter().map(|b| (b.words as f32).ln_1p()).collect();
        for i in 0..blocks.len() {
            for (k, col) in [&td, &ld, &lw].into_iter().enumerate() {
                out[[i, 3 * k]] = if i > 0 { col[i - 1] } else { 0.0 };
                out[[i, 3 * k + 1]] = col[i];
                out[[i, 3 * k + 2]] = col.get(i + 1).copied().unwrap_or(0.0);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn density_definitions() {
        let short = Block {
            words: 5,
            chars: 30,
            link_words: 5,
            link_chars: 30,
            ..Block::default()
        };
        assert_eq!(text_density(&short), 5.0);
        assert_eq!(link_density(&short), 1.0);
        let long = Block {
            words: 40,
            chars: 240,
            ..Block::default()
        };
        assert!((text_density(&long) - 40.0 / 3.0).abs() < 1e-6);
        assert_eq!(link_density(&long), 0.0);
    }
}
