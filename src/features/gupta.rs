//! Gupta, Kaiser, Neistadt & Grimm (2003, "DOM-based content extraction",
//! the Crunch proxy) as features: the link-list ratio of the containers
//! enclosing a block (links to non-linked words), near-empty containers,
//! and image and form-control counts. Crunch removes a container above a
//! fixed ratio; here the ratio is a feature and the model learns the cut,
//! with the fixed-ratio verdict beside it.

use ndarray::ArrayViewMut2;

use super::tree::ElementTree;
use super::{FeatureFamily, PageContext};

/// Crunch's default link-list ratio, for the verdict column.
pub const CRUNCH_RATIO: f32 = 0.3;

/// Link-list ratio, size and media of the block's containers.
pub struct GuptaFeatures;

const COLUMNS: &[&str] = &[
    "block_link_ratio",
    "container_link_ratio",
    "grandparent_link_ratio",
    "container_log_words",
    "container_near_empty",
    "container_log_images",
    "container_log_inputs",
    "block_images",
    "block_inputs",
    "verdict",
];

/// Crunch's link-list ratio: links per word not inside a link.
pub fn link_ratio(links: u32, words: u32, link_words: u32) -> f32 {
    links as f32 / words.saturating_sub(link_words).max(1) as f32
}

impl FeatureFamily for GuptaFeatures {
    fn name(&self) -> &'static str {
        "gupta"
    }

    fn columns(&self) -> &'static [&'static str] {
        COLUMNS
    }

    fn compute(&self, page: &PageContext<'_>, mut out: ArrayViewMut2<'_, f32>) {
        let bl = page.blocks;
        let t = page.tree();
        let ratio_of = |e: Option<u32>| {
            e.map_or(0.0, |e| {
                let e = e as usize;
                link_ratio(t.links[e], t.words[e], t.link_words[e])
            })
        };
        for (i, b) in bl.blocks.iter().enumerate() {
            // The container: the layout element owning the block's text.
            let container = ElementTree::ancestor(bl, b.owner, 0);
            let grandparent = ElementTree::ancestor(bl, b.owner, 1);
            let mut row = out.row_mut(i);
            row[0] = link_ratio(b.links, b.words, b.link_words).ln_1p();
            let cr = ratio_of(container);
            row[1] = cr.ln_1p();
            row[2] = ratio_of(grandparent).ln_1p();
            if let Some(c) = container.map(|c| c as usize) {
                row[3] = (t.words[c] as f32).ln_1p();
                row[4] = (t.words[c] <= 2) as u8 as f32;
                row[5] = (t.images[c] as f32).ln_1p();
                row[6] = (t.inputs[c] as f32).ln_1p();
            }
            row[7] = b.images.min(10) as f32;
            row[8] = b.inputs.min(10) as f32;
            row[9] = (cr > CRUNCH_RATIO) as u8 as f32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::CetrConfig;
    use crate::features::CssOdds;
    use crate::parse::{parse, ParseLimits};

    #[test]
    fn link_lists_score_high_and_prose_low() {
        let doc = parse(
            b"<ul><li><a href=1>Home</a></li><li><a href=2>News</a></li><li><a href=3>Sport</a></li></ul>\
              <p>Plain prose with one <a href=x>link</a> among many ordinary words here.</p>",
            None,
            ParseLimits::default(),
        )
        .unwrap();
        let blocks = crate::blocks::split(&doc);
        let (odds, cetr) = (CssOdds::default(), CetrConfig::default());
        let ctx = PageContext::new(&blocks, &cetr, &odds);
        let mut m = ndarray::Array2::zeros((blocks.blocks.len(), COLUMNS.len()));
        GuptaFeatures.compute(&ctx, m.view_mut());
        let last = blocks.blocks.len() - 1;
        assert!(m[[0, 2]] > m[[last, 1]], "the menu's list is a link list");
        assert_eq!(m[[last, 9]], 0.0, "prose is no link list");
        assert!(m[[0, 2]] > CRUNCH_RATIO.ln_1p());
        assert!((link_ratio(3, 3, 3) - 3.0).abs() < 1e-6);
    }
}
