//! Readability (Arc90, 2009; the scoring of its Python port
//! readability-lxml) as features: the one container a news-oriented
//! heuristic picks as the article, and how each block relates to it.
//!
//! Every block of 25 characters or more is a paragraph worth one point, one
//! more per comma and one per hundred characters (at most three). It adds
//! its points to its container's parent and half of them to the
//! grandparent. Those candidates start from their tag (`div` +5; `pre`,
//! `td`, `blockquote` +3; lists, forms and addresses −3; headings and `th`
//! −5) and their id/class names (±25 for the word lists below), and end
//! scaled by one minus their link density. The best candidate is the
//! article; its siblings join it when they score a fifth of it (and at
//! least 10), or when they are long, link-poor paragraphs. Blocks are our
//! paragraphs (the heuristic turns text-only `div`s into paragraphs too),
//! link density counts words rather than characters, and commas include
//! the Arabic and CJK ones so the score means the same in those scripts.
//!
//! Columns: inside the best candidate, inside the article (it and its
//! joined siblings), the best candidate score on the block's path relative
//! to the article's, the block's own paragraph score, and three page-level
//! columns (the article's score and its share of the page's words). The
//! model learns when to trust the pick: the heuristic is strong on news
//! and blogs and wrong on listings and forums.

use std::sync::LazyLock;

use aho_corasick::AhoCorasick;
use html5ever::local_name;
use ndarray::ArrayViewMut2;

use super::tree::ElementTree;
use super::{FeatureFamily, PageContext};
use crate::blocks::{Blocks, ElementInfo};

/// Blocks shorter than this (in characters) are not paragraphs.
pub const MIN_PARAGRAPH_CHARS: u32 = 25;

/// Substrings of id/class tokens that lower a candidate by 25.
const NEGATIVE: &[&str] = &[
    "combx", "comment", "com-", "contact", "foot", "masthead", "media", "meta", "outbrain",
    "promo", "related", "scroll", "shoutbox", "sidebar", "sponsor", "shopping", "tags", "tool",
    "widget",
];

/// Substrings of id/class tokens that raise a candidate by 25.
const POSITIVE: &[&str] = &[
    "article",
    "body",
    "content",
    "entry",
    "hentry",
    "main",
    "page",
    "pagination",
    "post",
    "text",
    "blog",
    "story",
];

/// The block's relation to the container Readability picks.
pub struct ReadabilityFeatures;

const COLUMNS: &[&str] = &[
    "in_top",
    "in_article",
    "path_score_ratio",
    "paragraph_score",
    "log_top_score",
    "top_word_share",
    "article_word_share",
];

/// Readability's choice on one page.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReadabilityPick {
    /// Final score per element (`None` for elements no paragraph scored).
    pub scores: Vec<Option<f32>>,
    /// The best candidate, if any paragraph was scored.
    pub top: Option<u32>,
    /// Per element: the element is the best candidate or one of the
    /// siblings that join it.
    pub article_root: Vec<bool>,
    /// Per element: the element lies under (or is) the best candidate.
    pub in_top: Vec<bool>,
    /// Per element: the element lies under (or is) an article root.
    pub in_article: Vec<bool>,
    /// Per block: its paragraph points ([`paragraph_points`]).
    pub points: Vec<f32>,
}

impl ReadabilityPick {
    /// Per block: its text lies in the article (what the heuristic alone
    /// would output; blocks without words are never content).
    pub fn article_blocks(&self, bl: &Blocks) -> Vec<bool> {
        bl.blocks
            .iter()
            .map(|b| b.words > 0 && self.in_article.get(b.element as usize) == Some(&true))
            .collect()
    }
}

/// Points of a paragraph's text: 1, plus its commas, plus one per hundred
/// characters up to three; 0 below [`MIN_PARAGRAPH_CHARS`].
pub fn paragraph_points(text: &str, chars: u32) -> f32 {
    if chars < MIN_PARAGRAPH_CHARS {
        return 0.0;
    }
    let commas = text
        .chars()
        .filter(|c| matches!(c, ',' | '،' | '、' | '，'))
        .count();
    1.0 + commas as f32 + (chars / 100).min(3) as f32
}

fn tag_weight(e: &ElementInfo) -> f32 {
    match e.tag {
        local_name!("div") => 5.0,
        local_name!("pre") | local_name!("td") | local_name!("blockquote") => 3.0,
        local_name!("address")
        | local_name!("ol")
        | local_name!("ul")
        | local_name!("dl")
        | local_name!("dd")
        | local_name!("dt")
        | local_name!("li")
        | local_name!("form") => -3.0,
        local_name!("th") => -5.0,
        ref t if crate::blocks::is_heading(t) => -5.0,
        _ => 0.0,
    }
}

/// Automata finding any [`NEGATIVE`] and any [`POSITIVE`] substring in one
/// pass each (31 substring searches per token cost 2 % of extraction).
static SIGNS: LazyLock<Option<(AhoCorasick, AhoCorasick)>> = LazyLock::new(|| {
    Some((
        AhoCorasick::new(NEGATIVE).ok()?,
        AhoCorasick::new(POSITIVE).ok()?,
    ))
});

fn class_weight(page: &Blocks, e: &ElementInfo) -> f32 {
    let (mut neg, mut pos) = (false, false);
    for tok in page.tokens_of(e) {
        match SIGNS.as_ref() {
            Some((negative, positive)) => {
                neg = neg || negative.is_match(tok);
                pos = pos || positive.is_match(tok);
            }
            None => {
                neg |= NEGATIVE.iter().any(|w| tok.contains(w));
                pos |= POSITIVE.iter().any(|w| tok.contains(w));
            }
        }
    }
    25.0 * (pos as u8 as f32 - neg as u8 as f32)
}

/// Scores a page's candidates and picks the article (`tree` holds the
/// page's per-element sums).
pub fn pick(bl: &Blocks, t: &ElementTree) -> ReadabilityPick {
    let n = bl.elements.len();
    let mut scores: Vec<Option<f32>> = vec![None; n];
    let add = |e: Option<u32>, points: f32, scores: &mut [Option<f32>]| {
        let Some(e) = e.filter(|&e| (e as usize) < n) else {
            return;
        };
        let info = &bl.elements[e as usize];
        let s = scores[e as usize].get_or_insert_with(|| tag_weight(info) + class_weight(bl, info));
        *s += points;
    };
    let points: Vec<f32> = bl
        .blocks
        .iter()
        .map(|b| paragraph_points(&b.text, b.chars))
        .collect();
    for (b, &points) in bl.blocks.iter().zip(&points) {
        if points == 0.0 {
            continue;
        }
        let parent = bl.elements.get(b.owner as usize).and_then(|e| e.parent);
        let grandparent = parent.and_then(|p| bl.elements.get(p as usize)?.parent);
        add(parent, points, &mut scores);
        add(grandparent, points / 2.0, &mut scores);
    }
    let mut top: Option<(u32, f32)> = None;
    for (e, s) in scores.iter_mut().enumerate() {
        if let Some(s) = s {
            let density = t.link_words[e] as f32 / t.words[e].max(1) as f32;
            *s *= 1.0 - density.min(1.0);
            if top.is_none_or(|(_, best)| *s > best) {
                top = Some((e as u32, *s));
            }
        }
    }
    let mut article_root = vec![false; n];
    if let Some((top_e, top_score)) = top {
        // Per element, over the blocks it owns: characters, and whether one
        // has a full stop followed by a space or the end.
        let mut own_chars = vec![0u32; n];
        let mut sentence = vec![false; n];
        for b in &bl.blocks {
            if let Some(c) = own_chars.get_mut(b.owner as usize) {
                *c += b.chars;
                sentence[b.owner as usize] |= b.text.contains(". ") || b.text.ends_with('.');
            }
        }
        article_root[top_e as usize] = true;
        let parent = bl.elements[top_e as usize].parent;
        let threshold = (top_score * 0.2).max(10.0);
        for (e, info) in bl.elements.iter().enumerate() {
            if info.parent != parent || parent.is_none() || e as u32 == top_e {
                continue;
            }
            let joins = match scores[e] {
                Some(s) if s >= threshold => true,
                _ if info.tag == local_name!("p") && t.words[e] > 0 => {
                    let density = t.link_words[e] as f32 / t.words[e] as f32;
                    (own_chars[e] > 80 && density < 0.25)
                        || (own_chars[e] <= 80 && density == 0.0 && sentence[e])
                }
                _ => false,
            };
            article_root[e] = joins;
        }
    }
    // Top-down (a parent's index is below its children's).
    let mut in_top = vec![false; n];
    let mut in_article = vec![false; n];
    let top = top.map(|(e, _)| e);
    for (e, info) in bl.elements.iter().enumerate() {
        let parent = info.parent.map(|q| q as usize).filter(|&q| q < e);
        in_top[e] = Some(e as u32) == top || parent.is_some_and(|q| in_top[q]);
        in_article[e] = article_root[e] || parent.is_some_and(|q| in_article[q]);
    }
    ReadabilityPick {
        scores,
        top,
        article_root,
        in_top,
        in_article,
        points,
    }
}

impl FeatureFamily for ReadabilityFeatures {
    fn name(&self) -> &'static str {
        "readability"
    }

    fn columns(&self) -> &'static [&'static str] {
        COLUMNS
    }

    fn compute(&self, page: &PageContext<'_>, mut out: ArrayViewMut2<'_, f32>) {
        let bl = page.blocks;
        let t = page.tree();
        let p = pick(bl, t);
        let Some(top) = p.top else {
            return;
        };
        let top_score = p.scores[top as usize].unwrap_or(0.0);
        let n = bl.elements.len();
        // Top-down: the best candidate score on each element's path.
        let mut best = vec![f32::NEG_INFINITY; n];
        let mut article_words = 0u32;
        for (e, info) in bl.elements.iter().enumerate() {
            let parent = info.parent.map(|q| q as usize).filter(|&q| q < e);
            let own = p.scores[e].unwrap_or(f32::NEG_INFINITY);
            best[e] = parent.map_or(own, |q| best[q].max(own));
            if p.article_root[e] {
                article_words += t.words[e];
            }
        }
        let page_words = bl.total_words.max(1) as f32;
        let log_top = top_score.max(0.0).ln_1p();
        let top_share = t.words[top as usize] as f32 / page_words;
        let article_share = article_words as f32 / page_words;
        for (i, b) in bl.blocks.iter().enumerate() {
            let e = b.element as usize;
            let mut row = out.row_mut(i);
            if e < n {
                row[0] = p.in_top[e] as u8 as f32;
                row[1] = p.in_article[e] as u8 as f32;
                row[2] = if top_score > 0.0 && best[e].is_finite() {
                    (best[e] / top_score).clamp(-1.0, 1.0)
                } else {
                    0.0
                };
            }
            row[3] = p.points[i];
            row[4] = log_top;
            row[5] = top_share;
            row[6] = article_share;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::CetrConfig;
    use crate::features::test_pages::{menu_article_menu, ARTICLE_START};
    use crate::features::CssOdds;

    #[test]
    fn points_count_commas_in_every_script_and_length() {
        assert_eq!(paragraph_points("short", 5), 0.0);
        let text = "a, b, c and more words to pass the minimum length";
        assert_eq!(paragraph_points(text, text.chars().count() as u32), 3.0);
        let ja = "これは、日本語の文章です、長さは二十五文字を超えていますか、はい。";
        assert_eq!(paragraph_points(ja, ja.chars().count() as u32), 4.0);
        let long = "x".repeat(450);
        assert_eq!(paragraph_points(&long, 450), 4.0);
    }

    #[test]
    fn picks_the_article_container_and_not_the_menus() {
        let blocks = menu_article_menu(30, 5);
        let odds = CssOdds::default();
        let cfg = CetrConfig::default();
        let ctx = PageContext::new(&blocks, &cfg, &odds);
        let p = pick(&blocks, ctx.tree());
        let top = p.top.expect("a paragraph was scored");
        assert_eq!(&*blocks.elements[top as usize].tag, "div");
        let mut m = ndarray::Array2::<f32>::zeros((blocks.blocks.len(), COLUMNS.len()));
        ReadabilityFeatures.compute(&ctx, m.view_mut());
        for (b, row) in blocks.blocks.iter().zip(m.rows()) {
            if b.words == 0 {
                continue;
            }
            let article = b.text.starts_with(ARTICLE_START);
            assert_eq!(row[0] == 1.0, article, "{:?}", b.text);
            assert_eq!(row[1] == 1.0, article, "{:?}", b.text);
            assert!(row[2] <= 1.0);
        }
    }

    #[test]
    fn a_page_without_paragraphs_has_no_pick() {
        let doc = crate::parse::parse(
            b"<body><a href=/>Home</a></body>",
            None,
            crate::parse::ParseLimits::default(),
        )
        .unwrap();
        let blocks = crate::blocks::split(&doc);
        let odds = CssOdds::default();
        let cfg = CetrConfig::default();
        let ctx = PageContext::new(&blocks, &cfg, &odds);
        assert_eq!(pick(&blocks, ctx.tree()).top, None);
    }
}
