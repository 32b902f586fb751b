//! Page context of a block: how it relates to the `<title>` and the first
//! `<h1>` (after it or not), which share
//! of the text under each of its five nearest ancestors it holds (the
//! grouping idea of Viveros-Jiménez et al., 2018, who keep the ancestor
//! holding most content), how often its DOM path repeats on the page, and
//! how much of its text the page repeats elsewhere.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use html5ever::local_name;
use ndarray::ArrayViewMut2;

use super::tree::{fnv, ElementTree, FNV_START};
use super::{FeatureFamily, PageContext};
use crate::text::word_tokens_borrowed;

/// Ancestor levels whose text shares are features.
pub const ANCESTOR_LEVELS: usize = 5;

/// Blocks longer than this are not compared with the title.
const TITLE_MAX_WORDS: u32 = 40;

/// Title and heading relations, ancestor shares, DOM-path repetition,
/// repeated text.
pub struct ContextFeatures;

const COLUMNS: &[&str] = &[
    "title_cover",
    "title_precision",
    "after_first_h1",
    "share_in_ancestor_1",
    "share_in_ancestor_2",
    "share_in_ancestor_3",
    "share_in_ancestor_4",
    "share_in_ancestor_5",
    "ancestor_1_page_share",
    "ancestor_2_page_share",
    "ancestor_3_page_share",
    "ancestor_4_page_share",
    "ancestor_5_page_share",
    "path_log_blocks",
    "path_block_share",
    "repeated_share",
    "repeated_earlier_share",
];

/// Words per shingle for the repeated-text columns.
const SHINGLE_WORDS: usize = 4;

/// Per block: the share of its word shingles that also occur in another
/// block of the page, and the share that occurred in an earlier block. A
/// hidden second copy of the article, a republish box or a raw-markdown
/// `pre` repeats text that the page already has; the gold text has it once.
/// Blocks shorter than a shingle count as one shingle of their whole text.
pub fn repeated_text(blocks: &[crate::blocks::Block]) -> Vec<(f32, f32)> {
    // Each distinct shingle of the page is a group: the first block that
    // holds it, the last block that counted it and how many blocks hold it.
    // Blocks come in order, so one look-up per shingle finds its group and
    // whether the block already counted it.
    struct Group {
        first: u32,
        last: u32,
        blocks: u32,
    }
    let mut index: HashMap<u64, u32, BuildHasherDefault<ShingleHasher>> = HashMap::default();
    let mut groups: Vec<Group> = Vec::new();
    // (group, block): each block's distinct shingles.
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    let mut add = |h: u64, i: u32| match index.entry(h) {
        Entry::Occupied(o) => {
            let g = *o.get();
            let group = &mut groups[g as usize];
            if group.last != i {
                group.last = i;
                group.blocks += 1;
                pairs.push((g, i));
            }
        }
        Entry::Vacant(v) => {
            let g = groups.len() as u32;
            v.insert(g);
            groups.push(Group {
                first: i,
                last: i,
                blocks: 1,
            });
            pairs.push((g, i));
        }
    };
    let mut hashes: Vec<u64> = Vec::with_capacity(SHINGLE_WORDS);
    for (i, b) in blocks.iter().enumerate() {
        if b.words == 0 {
            continue;
        }
        hashes.clear();
        let mut full = false;
        let mut push = |h: u64, hashes: &mut Vec<u64>| {
            if hashes.len() == SHINGLE_WORDS {
                hashes.remove(0);
            }
            hashes.push(h);
            if hashes.len() == SHINGLE_WORDS {
                add(shingle(hashes), i as u32);
                full = true;
            }
        };
        // Words are runs of alphanumeric characters, hashed lower-cased as
        // they are scanned: ASCII bytes without decoding (most text is),
        // other characters through their lower-case forms.
        let text = b.text.as_bytes();
        let (mut h, mut in_word) = (FNV_START, false);
        let mut at = 0;
        while at < text.len() {
            let byte = text[at];
            let (word_char, len) = if byte < 0x80 {
                let word_char = byte.is_ascii_alphanumeric();
                if word_char {
                    h = fnv(h, &[byte.to_ascii_lowercase()]);
                }
                (word_char, 1)
            } else {
                let c = b.text[at..]
                    .chars()
                    .next()
                    .expect("a char at a char boundary");
                let word_char = c.is_alphanumeric();
                if word_char {
                    let mut utf8 = [0u8; 4];
                    for l in c.to_lowercase() {
                        h = fnv(h, l.encode_utf8(&mut utf8).as_bytes());
                    }
                }
                (word_char, c.len_utf8())
            };
            if !word_char && in_word {
                push(h, &mut hashes);
                h = FNV_START;
            }
            in_word = word_char;
            at += len;
        }
        if in_word {
            push(h, &mut hashes);
        }
        if !full && !hashes.is_empty() {
            add(shingle(&hashes), i as u32);
        }
    }
    let mut counts = vec![(0u32, 0u32, 0u32); blocks.len()];
    for &(g, b) in &pairs {
        let group = &groups[g as usize];
        let c = &mut counts[b as usize];
        c.0 += 1;
        c.1 += (group.blocks > 1) as u32;
        c.2 += (b > group.first) as u32;
    }
    counts
        .into_iter()
        .map(|(n, shared, earlier)| {
            let n = n.max(1) as f32;
            (shared as f32 / n, earlier as f32 / n)
        })
        .collect()
}

/// A hasher for shingle hashes, which are well mixed already: one multiply
/// spreads them over the table's buckets and control bytes.
#[derive(Default)]
struct ShingleHasher(u64);

impl Hasher for ShingleHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u64(&mut self, n: u64) {
        let m = n.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = m ^ (m >> 32);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

fn shingle(hashes: &[u64]) -> u64 {
    hashes
        .iter()
        .enumerate()
        .fold(0u64, |acc, (k, &h)| acc ^ h.rotate_left(13 * k as u32 + 1))
}

impl FeatureFamily for ContextFeatures {
    fn name(&self) -> &'static str {
        "context"
    }

    fn columns(&self) -> &'static [&'static str] {
        COLUMNS
    }

    fn compute(&self, page: &PageContext<'_>, mut out: ArrayViewMut2<'_, f32>) {
        let bl = page.blocks;
        let n = bl.blocks.len();
        if n == 0 {
            return;
        }
        let t = page.tree();
        // Words compared by 64-bit hashes (sorting and searching strings
        // cost more than the rest of the family on pages of short blocks):
        // two different words of one page sharing a hash are too rare to
        // count.
        let word_hash = |w: &str| fnv(FNV_START, w.as_bytes());
        let mut title: Vec<u64> = word_tokens_borrowed(&bl.title)
            .map(|w| word_hash(&w))
            .collect();
        title.sort_unstable();
        title.dedup();
        let first_h1 = bl.blocks.iter().position(|b| {
            b.words > 0
                && bl
                    .elements
                    .get(b.owner as usize)
                    .is_some_and(|e| e.tag == local_name!("h1"))
        });
        let total = bl.total_words.max(1) as f32;
        let nf = n as f32;
        let mut block_tokens: Vec<u64> = Vec::new();
        let repeated = repeated_text(&bl.blocks);
        for (i, b) in bl.blocks.iter().enumerate() {
            let mut row = out.row_mut(i);
            if !title.is_empty() && b.words > 0 && b.words <= TITLE_MAX_WORDS {
                block_tokens.clear();
                block_tokens.extend(word_tokens_borrowed(&b.text).map(|w| word_hash(&w)));
                block_tokens.sort_unstable();
                block_tokens.dedup();
                let common = block_tokens
                    .iter()
                    .filter(|w| title.binary_search(w).is_ok())
                    .count() as f32;
                row[0] = common / title.len() as f32;
                row[1] = common / block_tokens.len().max(1) as f32;
            }
            // Whether the block follows the headline, not how far: a
            // distance along the page taught the model that a long text's
            // end is chrome (docs/experiments.md, "Page type and per-type
            // selection").
            if let Some(h) = first_h1 {
                row[2] = (i >= h) as u8 as f32;
            }
            for k in 1..=ANCESTOR_LEVELS {
                if let Some(a) = ElementTree::ancestor(bl, b.element, k) {
                    let under = t.words[a as usize];
                    row[2 + k] = b.words as f32 / under.max(1) as f32;
                    row[2 + ANCESTOR_LEVELS + k] = under as f32 / total;
                }
            }
            if b.words > 0 {
                if let Some(p) = t.path.get(b.element as usize) {
                    let same = t.path_blocks.get(p).copied().unwrap_or(0) as f32;
                    row[13] = same.ln_1p();
                    row[14] = same / nf;
                }
            }
            row[15] = repeated[i].0;
            row[16] = repeated[i].1;
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
    fn repeated_text_marks_the_second_copy() {
        let doc = parse(
            b"<body><p>The river rose in the spring of that year.</p><p>Menu</p>\
              <div hidden><p>The river rose in the spring of that year.</p></div><p>Menu</p>\
              <p>Something else entirely different here.</p></body>",
            None,
            ParseLimits::default(),
        )
        .unwrap();
        let bl = crate::blocks::split(&doc);
        let r = repeated_text(&bl.blocks);
        let idx = |t: &str| -> Vec<usize> {
            (0..bl.blocks.len())
                .filter(|&i| bl.blocks[i].text.starts_with(t))
                .collect()
        };
        let (river, menu, other) = (idx("The river"), idx("Menu"), idx("Something"));
        assert_eq!((river.len(), menu.len()), (2, 2));
        assert_eq!(r[river[0]], (1.0, 0.0), "first copy: shared, not earlier");
        assert_eq!(r[river[1]], (1.0, 1.0), "second copy repeats the first");
        assert_eq!(r[menu[1]], (1.0, 1.0), "a short block is one shingle");
        assert_eq!(r[other[0]], (0.0, 0.0));
    }

    #[test]
    fn title_heading_and_ancestors() {
        let doc = parse(
            b"<title>Rust 2.0 released | News</title><nav><a href=/>Home</a></nav>\
              <div><h1>Rust 2.0 released</h1><p>The long awaited release brings many changes to the language.</p></div>",
            None,
            ParseLimits::default(),
        )
        .unwrap();
        let blocks = crate::blocks::split(&doc);
        let (odds, cetr) = (CssOdds::default(), CetrConfig::default());
        let ctx = PageContext::new(&blocks, &cetr, &odds);
        let mut m = ndarray::Array2::zeros((blocks.blocks.len(), COLUMNS.len()));
        ContextFeatures.compute(&ctx, m.view_mut());
        let col = |name: &str| COLUMNS.iter().position(|c| *c == name).unwrap();
        let h1 = blocks
            .blocks
            .iter()
            .position(|b| b.text == "Rust 2.0 released")
            .unwrap();
        assert_eq!(m[[h1, col("title_precision")]], 1.0);
        assert!(m[[h1, col("title_cover")]] > 0.5);
        assert_eq!(m[[0, col("after_first_h1")]], 0.0);
        assert_eq!(m[[h1 + 1, col("after_first_h1")]], 1.0);
        // The paragraph holds most of its div's words.
        assert!(m[[h1 + 1, col("share_in_ancestor_1")]] > 0.5);
        assert_eq!(m[[h1 + 1, col("repeated_share")]], 0.0);
    }
}
