//! Comment threads found by their structure, not by class names: repeated
//! sibling records (see [`super::tree`]) each holding a short name-like
//! line, a date or time written with digits, and a text body, or a signed
//! reply ("Anna says:", [`crate::blocks::comments::is_reply_signature`]).
//! Blog comments, guest books and forum posts share this shape; where the
//! run lies (after the page's other text, or making up the page) tells
//! them apart.

use std::collections::HashMap;

use ndarray::ArrayViewMut2;

use super::context::densest_centre;
use super::tree::MIN_RECORDS;
use super::{FeatureFamily, PageContext};
use crate::blocks::comments::{has_date_or_time, is_reply_signature};
use crate::blocks::Block;

/// Levels above a block's element searched for its comment record.
pub const THREAD_SEARCH_LEVELS: usize = 8;

/// Longest block, in words, read as a date line.
const DATE_MAX_WORDS: u32 = 20;

/// Longest block, in words, read as a name.
const NAME_MAX_WORDS: u32 = 4;

/// Shortest block, in words, read as a comment's body.
const BODY_MIN_WORDS: u32 = 8;

/// Cue bits of a block, and of an element (the union over its blocks).
mod cue {
    pub const DATE: u8 = 1;
    pub const NAME: u8 = 2;
    pub const BODY: u8 = 4;
    pub const SIGNED: u8 = 8;
}

/// Blocks on each side of the densest window's centre.
const DENSE_HALF_WINDOW: usize = 5;

/// Comment-like records around a block.
pub struct ThreadFeatures;

const COLUMNS: &[&str] = &[
    "in_comment_record",
    "run_comment_share",
    "run_log_size",
    "run_after_dense",
    "run_other_text_before",
    "page_comment_share",
];

/// The cue bits of one block.
fn block_cues(b: &Block) -> u8 {
    let mut bits = 0;
    if b.words == 0 {
        return 0;
    }
    if b.words <= DATE_MAX_WORDS && has_date_or_time(&b.text) {
        bits |= cue::DATE;
    }
    if b.words <= NAME_MAX_WORDS && b.chars <= 40 && !b.text.bytes().any(|c| c.is_ascii_digit()) {
        bits |= cue::NAME;
    }
    if b.words >= BODY_MIN_WORDS && b.link_words * 2 < b.words {
        bits |= cue::BODY;
    }
    if is_reply_signature(&b.text) {
        bits |= cue::SIGNED | cue::NAME;
    }
    bits
}

/// True when an element's cues make it a comment: a body with a name and
/// a date, or with a signed reply line.
fn is_comment(bits: u8) -> bool {
    bits & cue::BODY != 0
        && (bits & (cue::DATE | cue::NAME) == cue::DATE | cue::NAME || bits & cue::SIGNED != 0)
}

impl FeatureFamily for ThreadFeatures {
    fn name(&self) -> &'static str {
        "thread"
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
        let n = bl.elements.len();
        // Per element: cue bits and first block beneath it.
        let mut bits = vec![0u8; n];
        let mut first = vec![u32::MAX; n];
        for (i, b) in bl.blocks.iter().enumerate() {
            if let Some(e) = bits.get_mut(b.element as usize) {
                *e |= block_cues(b);
                let f = &mut first[b.element as usize];
                *f = (*f).min(i as u32);
            }
        }
        for e in (0..n).rev() {
            if let Some(p) = bl.elements[e].parent.map(|p| p as usize) {
                if p < e {
                    bits[p] |= bits[e];
                    first[p] = first[p].min(first[e]);
                }
            }
        }
        let is_record = |e: usize| t.group_size[e] >= MIN_RECORDS;
        // Record groups, keyed as the tree keys them: comment-like members
        // and the group's first block.
        let mut groups: HashMap<(u32, u64), (u32, u32)> = HashMap::new();
        for e in 0..n {
            if is_record(e) {
                let g = groups
                    .entry((bl.elements[e].parent.unwrap_or(u32::MAX), t.signature[e]))
                    .or_insert((0, u32::MAX));
                g.0 += is_comment(bits[e]) as u32;
                g.1 = g.1.min(first[e]);
            }
        }
        // Each block's comment record: the nearest enclosing record that
        // reads as a comment.
        let record: Vec<Option<usize>> = bl
            .blocks
            .iter()
            .map(|b| {
                let mut cur = Some(b.element);
                for _ in 0..=THREAD_SEARCH_LEVELS {
                    let e = cur? as usize;
                    if e >= n {
                        return None;
                    }
                    if is_record(e) && is_comment(bits[e]) {
                        return Some(e);
                    }
                    cur = bl.elements[e].parent;
                }
                None
            })
            .collect();
        // Words outside links: all, and those outside comment records.
        let plain: Vec<u32> = bl.blocks.iter().map(|b| b.words - b.link_words).collect();
        let centre = densest_centre(&plain, DENSE_HALF_WINDOW).unwrap_or(0);
        let mut other_before = vec![0u32; bl.blocks.len() + 1];
        let mut in_comments = 0u64;
        for (i, (&w, r)) in plain.iter().zip(&record).enumerate() {
            other_before[i + 1] = other_before[i] + if r.is_none() { w } else { 0 };
            if r.is_some() {
                in_comments += bl.blocks[i].words as u64;
            }
        }
        let other_total = other_before[bl.blocks.len()].max(1) as f32;
        let page_share = in_comments as f32 / bl.total_words.max(1) as f32;
        for (i, r) in record.iter().enumerate() {
            let mut row = out.row_mut(i);
            row[5] = page_share;
            let Some(e) = *r else { continue };
            let key = (bl.elements[e].parent.unwrap_or(u32::MAX), t.signature[e]);
            let Some(&(comments, start)) = groups.get(&key) else {
                continue;
            };
            let size = t.group_size[e] as f32;
            row[0] = 1.0;
            row[1] = comments as f32 / size;
            row[2] = size.ln_1p();
            let start = (start as usize).min(bl.blocks.len());
            row[3] = (start > centre) as u8 as f32;
            row[4] = other_before[start] as f32 / other_total;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::CetrConfig;
    use crate::features::CssOdds;
    use crate::parse::{parse, ParseLimits};

    fn features(html: &str) -> (crate::blocks::Blocks, ndarray::Array2<f32>) {
        let doc = parse(html.as_bytes(), None, ParseLimits::default()).unwrap();
        let blocks = crate::blocks::split(&doc);
        let (odds, cetr) = (CssOdds::default(), CetrConfig::default());
        let ctx = PageContext::new(&blocks, &cetr, &odds);
        let mut m = ndarray::Array2::zeros((blocks.blocks.len(), COLUMNS.len()));
        ThreadFeatures.compute(&ctx, m.view_mut());
        (blocks, m)
    }

    fn row(bl: &crate::blocks::Blocks, start: &str) -> usize {
        bl.blocks
            .iter()
            .position(|b| b.text.starts_with(start))
            .unwrap_or_else(|| panic!("no block {start}"))
    }

    fn col(name: &str) -> usize {
        COLUMNS.iter().position(|c| *c == name).unwrap()
    }

    /// A blog post followed by a thread whose markup names nothing.
    fn blog(comments: &[(&str, &str, &str)]) -> String {
        let mut html = String::from(
            "<body><div class=wrap><div class=entry><h1>Baking bread at home</h1>\
             <p>Bread needs flour, water, salt and time; the rest is patience and a hot oven.</p>\
             <p>Knead the dough for ten minutes, let it rise twice, and bake it for forty minutes.</p>\
             <p>The crust should sound hollow when you knock on the bottom of the loaf.</p>",
        );
        for _ in 0..8 {
            html.push_str("<p>Let the loaf cool on a rack for an hour before you cut it, or the crumb turns gummy and dense.</p>");
        }
        html.push_str("</div><ol class=list>");
        for (name, date, body) in comments {
            html.push_str(&format!(
                "<li class=item><div class=who><a href='http://{name}.example.org/'>{name}</a></div>\
                 <div class=when>{date}</div><p>{body}</p></li>"
            ));
        }
        html.push_str("</ol></div><div class=side><p>About me</p></div></body>");
        html
    }

    #[test]
    fn a_thread_after_the_post_is_found_without_class_names() {
        let (bl, m) = features(&blog(&[
            (
                "Anna",
                "May 3, 2012 at 4:15 pm",
                "Lovely recipe, I baked it on Sunday and it came out well.",
            ),
            (
                "Bob",
                "03.05.2012 16:20",
                "Mine did not rise at all, maybe the yeast was too old for it.",
            ),
            (
                "Chen",
                "2012年5月4日",
                "Thanks for sharing, the photos of the crust are a great help.",
            ),
        ]));
        for start in ["Lovely recipe", "Bob", "03.05.2012", "Thanks for sharing"] {
            let r = row(&bl, start);
            assert_eq!(m[[r, col("in_comment_record")]], 1.0, "{start}");
            assert_eq!(m[[r, col("run_comment_share")]], 1.0, "{start}");
            assert!((m[[r, col("run_log_size")]] - 3f32.ln_1p()).abs() < 1e-6);
            assert_eq!(m[[r, col("run_after_dense")]], 1.0, "{start}");
            assert!(m[[r, col("run_other_text_before")]] > 0.8, "{start}");
        }
        for start in ["Bread needs", "About me"] {
            assert_eq!(
                m[[row(&bl, start), col("in_comment_record")]],
                0.0,
                "{start}"
            );
        }
        assert!(m[[0, col("page_comment_share")]] > 0.1);
    }

    #[test]
    fn records_without_dates_or_bodies_are_no_thread() {
        // A teaser list: names and bodies, but no dates.
        let (bl, m) = features(&blog(&[
            (
                "Anna",
                "Read more",
                "Lovely recipe, I baked it on Sunday and it came out well.",
            ),
            (
                "Bob",
                "Read more",
                "Mine did not rise at all, maybe the yeast was too old for it.",
            ),
            (
                "Chen",
                "Read more",
                "Thanks for sharing, the photos of the crust are a great help.",
            ),
        ]));
        assert_eq!(
            m[[row(&bl, "Lovely recipe"), col("in_comment_record")]],
            0.0
        );
        // Dated link lines without a body.
        let (bl, m) = features(&blog(&[
            ("Anna", "May 3, 2012", "Short"),
            ("Bob", "May 4, 2012", "Short"),
            ("Chen", "May 5, 2012", "Short"),
        ]));
        assert_eq!(m[[row(&bl, "Anna"), col("in_comment_record")]], 0.0);
        assert_eq!(m[[0, col("page_comment_share")]], 0.0);
    }

    #[test]
    fn signed_replies_need_no_date() {
        let mut html = String::from(
            "<body><p>The post itself, with a few lines of its own text to read first.</p><div>",
        );
        for name in ["Anna", "Bob", "Chen"] {
            html.push_str(&format!(
                "<div class=c><p>{name} says:</p><p>I agree with every word of this post, thank you for writing it.</p></div>"
            ));
        }
        html.push_str("</div></body>");
        let (bl, m) = features(&html);
        assert_eq!(m[[row(&bl, "Bob says"), col("in_comment_record")]], 1.0);
        assert_eq!(m[[row(&bl, "The post"), col("in_comment_record")]], 0.0);
    }
}
