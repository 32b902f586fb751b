//! Page-level features and repeated records.
//!
//! Page statistics, the same for every block of a page, tell the model what
//! kind of page it looks at (a listing is made of lists and links, an
//! article of long paragraphs, a shop of images and controls). Repeated
//! records (sibling subtrees with one tag/class signature: the items of a
//! product grid, the posts of a thread, the teasers of a listing) tell it
//! which repeated structure a block belongs to, how big that structure is
//! and where in it the block lies.

use ndarray::ArrayViewMut2;

use super::tree::MIN_RECORDS;
use super::{FeatureFamily, PageContext};
use crate::blocks::ancestry;

/// Levels above a block's element searched for its record.
pub const RECORD_SEARCH_LEVELS: usize = 6;

/// Page statistics and the block's repeated record.
pub struct PageFeatures;

const COLUMNS: &[&str] = &[
    "page_link_density",
    "page_links_per_word",
    "page_list_share",
    "page_table_share",
    "page_article_share",
    "page_log_images",
    "page_log_inputs",
    "page_log_title_words",
    "page_largest_block_share",
    "page_log_record_groups",
    "page_largest_group_share",
    "in_record",
    "record_log_size",
    "record_position",
    "record_group_share",
    "share_in_record",
    "record_log_words",
    "record_levels_up",
];

impl FeatureFamily for PageFeatures {
    fn name(&self) -> &'static str {
        "page"
    }

    fn columns(&self) -> &'static [&'static str] {
        COLUMNS
    }

    fn compute(&self, page: &PageContext<'_>, mut out: ArrayViewMut2<'_, f32>) {
        let bl = page.blocks;
        if bl.blocks.is_empty() {
            return;
        }
        let t = page.tree();
        let total = bl.total_words.max(1) as f32;
        let (mut link_words, mut links, mut images, mut inputs) = (0u64, 0u64, 0u64, 0u64);
        let (mut list, mut table, mut article, mut largest) = (0u64, 0u64, 0u64, 0u32);
        for b in &bl.blocks {
            link_words += b.link_words as u64;
            links += b.links as u64;
            images += b.images as u64;
            inputs += b.inputs as u64;
            largest = largest.max(b.words);
            let bits = bl
                .elements
                .get(b.element as usize)
                .map_or(0, |e| e.ancestry);
            if bits & ancestry::LIST != 0 {
                list += b.words as u64;
            }
            if bits & ancestry::TABLE != 0 {
                table += b.words as u64;
            }
            if bits & (ancestry::ARTICLE | ancestry::MAIN) != 0 {
                article += b.words as u64;
            }
        }
        // Record groups: count each (parent, signature) group once, at its
        // first member.
        let (mut groups, mut largest_group) = (0u32, 0u32);
        for e in 0..t.group_size.len() {
            if t.group_size[e] >= MIN_RECORDS && t.group_index[e] == 0 {
                groups += 1;
                largest_group = largest_group.max(t.group_words[e]);
            }
        }
        let title_words = crate::blocks::word_tokens(&bl.title).count() as f32;
        let stats = [
            link_words as f32 / total,
            links as f32 / total,
            list as f32 / total,
            table as f32 / total,
            article as f32 / total,
            (images as f32).ln_1p(),
            (inputs as f32).ln_1p(),
            title_words.ln_1p(),
            largest as f32 / total,
            (groups as f32).ln_1p(),
            largest_group as f32 / total,
        ];
        for (i, b) in bl.blocks.iter().enumerate() {
            let mut row = out.row_mut(i);
            for (k, v) in stats.iter().enumerate() {
                row[k] = *v;
            }
            let Some(r) = t.record_of(bl, b.element, RECORD_SEARCH_LEVELS) else {
                continue;
            };
            let r = r as usize;
            let size = t.group_size[r] as f32;
            row[11] = 1.0;
            row[12] = size.ln_1p();
            row[13] = t.group_index[r] as f32 / (size - 1.0).max(1.0);
            row[14] = t.group_words[r] as f32 / total;
            row[15] = b.words as f32 / t.words[r].max(1) as f32;
            row[16] = (t.words[r] as f32).ln_1p();
            let depth = bl.elements.get(b.element as usize).map_or(0, |e| e.depth);
            row[17] = depth.saturating_sub(bl.elements[r].depth) as f32;
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
    fn records_carry_size_and_position() {
        let mut html = String::from("<body><p>Intro text of the listing page.</p><div class=list>");
        for i in 0..5 {
            html.push_str(&format!(
                "<div class=item><h2>Item {i}</h2><p>teaser words for item {i}</p></div>"
            ));
        }
        html.push_str("</div></body>");
        let doc = parse(html.as_bytes(), None, ParseLimits::default()).unwrap();
        let blocks = crate::blocks::split(&doc);
        let (odds, cetr) = (CssOdds::default(), CetrConfig::default());
        let ctx = PageContext::new(&blocks, &cetr, &odds);
        let mut m = ndarray::Array2::zeros((blocks.blocks.len(), COLUMNS.len()));
        PageFeatures.compute(&ctx, m.view_mut());
        let col = |name: &str| COLUMNS.iter().position(|c| *c == name).unwrap();
        assert_eq!(m[[0, col("in_record")]], 0.0, "the intro is no record");
        let last = blocks.blocks.len() - 1;
        assert_eq!(m[[last, col("in_record")]], 1.0);
        assert!((m[[last, col("record_log_size")]] - 5f32.ln_1p()).abs() < 1e-6);
        assert_eq!(m[[last, col("record_position")]], 1.0);
        assert_eq!(m[[1, col("record_position")]], 0.0);
        assert!(m[[0, col("page_log_record_groups")]] > 0.0);
        // Page statistics are the same on every row.
        assert_eq!(
            m[[0, col("page_largest_group_share")]],
            m[[last, col("page_largest_group_share")]]
        );
    }
}
