//! Structure features: where a block sits in the DOM and on the page.

use html5ever::local_name;
use ndarray::ArrayViewMut2;

use super::{FeatureFamily, PageContext};
use crate::blocks::{ancestry, heading_level};

/// Depth, owner tag, opening/closing, enclosing-element flags, relative
/// position by blocks and by words, share of the page's words, page size.
pub struct StructureFeatures;

const COLUMNS: &[&str] = &[
    "depth",
    "heading_level",
    "tag_p",
    "tag_list_item",
    "tag_cell",
    "tag_pre",
    "tag_div",
    "tag_quote",
    "tag_sectioning",
    "tag_body",
    "inline_owner",
    "after_close",
    "in_nav",
    "in_header",
    "in_footer",
    "in_aside",
    "in_form",
    "in_article",
    "in_main",
    "in_link",
    "in_list",
    "in_table",
    "in_hidden",
    "in_code",
    "in_quote",
    "in_noscript",
    "in_control",
    "word_share",
    "log_page_blocks",
    "log_page_words",
];

impl FeatureFamily for StructureFeatures {
    fn name(&self) -> &'static str {
        "structure"
    }

    fn columns(&self) -> &'static [&'static str] {
        COLUMNS
    }

    fn compute(&self, page: &PageContext<'_>, mut out: ArrayViewMut2<'_, f32>) {
        let bl = page.blocks;
        let n = bl.blocks.len();
        let total = bl.total_words.max(1) as f32;
        for (i, b) in bl.blocks.iter().enumerate() {
            let mut row = out.row_mut(i);
            let elem = bl.elements.get(b.element as usize);
            let owner = bl.elements.get(b.owner as usize);
            row[0] = elem.map_or(0.0, |e| e.depth as f32);
            if let Some(o) = owner {
                let t = &o.tag;
                row[1] = heading_level(t).map_or(0.0, f32::from);
                let flags = [
                    *t == local_name!("p"),
                    matches!(
                        *t,
                        local_name!("li") | local_name!("dt") | local_name!("dd")
                    ),
                    matches!(*t, local_name!("td") | local_name!("th")),
                    *t == local_name!("pre"),
                    *t == local_name!("div"),
                    *t == local_name!("blockquote"),
                    matches!(
                        *t,
                        local_name!("section") | local_name!("article") | local_name!("main")
                    ),
                    *t == local_name!("body"),
                ];
                for (k, f) in flags.into_iter().enumerate() {
                    row[2 + k] = f as u8 as f32;
                }
            }
            row[10] = (b.element != b.owner) as u8 as f32;
            row[11] = b.after_close as u8 as f32;
            let bits = elem.map_or(0, |e| e.ancestry);
            for k in 0..ancestry::COUNT {
                row[12 + k] = ((bits >> k) & 1) as f32;
            }
            // No position along the page: it taught the model that a long
            // text's end is chrome (docs/experiments.md, "Page type and
            // per-type selection"); the second stage's distance from the
            // main region (`stacking.rs`) tells the page's ends instead.
            let base = 12 + ancestry::COUNT;
            row[base] = b.words as f32 / total;
            row[base + 1] = (n as f32).ln_1p();
            row[base + 2] = (bl.total_words as f32).ln_1p();
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
    fn columns_line_up_with_ancestry_bits() {
        assert_eq!(COLUMNS.len(), 12 + ancestry::COUNT + 3);
        assert_eq!(COLUMNS[12], "in_nav");
        assert_eq!(COLUMNS[12 + ancestry::COUNT - 1], "in_control");
    }

    #[test]
    fn nav_heading_and_position() {
        let doc = parse(
            b"<nav><a href=/>Home</a></nav><h2>Head</h2><p>body text here</p>",
            None,
            ParseLimits::default(),
        )
        .unwrap();
        let blocks = crate::blocks::split(&doc);
        let (odds, cetr) = (CssOdds::default(), CetrConfig::default());
        let ctx = PageContext::new(&blocks, &cetr, &odds);
        let mut m = ndarray::Array2::zeros((blocks.blocks.len(), COLUMNS.len()));
        StructureFeatures.compute(&ctx, m.view_mut());
        let col = |name: &str| COLUMNS.iter().position(|c| *c == name).unwrap();
        assert_eq!(m[[0, col("in_nav")]], 1.0);
        assert_eq!(m[[0, col("in_link")]], 1.0);
        assert_eq!(m[[1, col("heading_level")]], 2.0);
        assert_eq!(m[[2, col("tag_p")]], 1.0);
        assert!(m[[2, col("word_share")]] > m[[0, col("word_share")]]);
    }
}
