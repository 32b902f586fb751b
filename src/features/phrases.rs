//! Chrome labels: the short lines a site writes over what is not its
//! content ("Related articles", "Lesen Sie auch", "À lire aussi",
//! "Comments", "Share this", "Tags:"), in the languages of our corpora, and
//! the blocks that follow such a label in its section. Teaser lists and
//! comment threads are recognised first by their label; the words of the
//! teasers themselves look like any headline.
//!
//! The list is written from the common wording of site templates, not read
//! off the training corpora's pages. The model weighs the two columns:
//! "Comments" over a forum's thread, or "Read more" inside an article,
//! need not be chrome.

use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind, Anchored, Input, MatchKind, StartKind};
use ndarray::ArrayViewMut2;

use super::{FeatureFamily, PageContext};
use crate::blocks::Blocks;

/// Whether a block is a chrome label, and whether it follows one.
pub struct PhraseFeatures;

const COLUMNS: &[&str] = &["chrome_label", "after_chrome_label"];

/// Longest block, in words, that can be a label ("Read more: Looted
/// colonial art" is one; a paragraph that opens with "Related" is not).
const LABEL_MAX_WORDS: u32 = 12;

/// A block of this many words or more, mostly outside links, is prose: the
/// section a label opened has ended.
const PROSE_WORDS: u32 = 60;

/// The chrome labels, one a line (`#` starts a comment): lower-case
/// openings of labels, by language. A label starts with one, followed by
/// the end of the text or a character that is not a letter or digit
/// (scripts written without spaces need no boundary).
const LABELS: &str = include_str!("../../data/chrome-labels.txt");

/// The labels of [`LABELS`].
fn labels() -> impl Iterator<Item = &'static str> {
    LABELS
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
}

/// One automaton over [`LABELS`], anchored at the text's start, longest
/// opening first.
static AUTOMATON: LazyLock<Option<AhoCorasick>> = LazyLock::new(|| {
    AhoCorasick::builder()
        .match_kind(MatchKind::LeftmostLongest)
        .start_kind(StartKind::Anchored)
        .kind(Some(AhoCorasickKind::ContiguousNFA))
        .build(labels())
        .ok()
});

/// Characters of a block's opening compared with the labels: more than
/// the longest label has.
const OPENING_CHARS: usize = 36;

/// True when `text` (a block's text, of `words` words) opens with a chrome
/// label and is short enough to be one.
pub fn is_chrome_label(text: &str, words: u32) -> bool {
    is_chrome_label_in(text, words, &mut String::new())
}

/// [`is_chrome_label`] lower-casing the text's opening into `lower` (a
/// buffer reused across a page's blocks).
fn is_chrome_label_in(text: &str, words: u32, lower: &mut String) -> bool {
    if words == 0 || words > LABEL_MAX_WORDS {
        return false;
    }
    let Some(automaton) = AUTOMATON.as_ref() else {
        return false;
    };
    let text = text.trim_start_matches(|c: char| !c.is_alphanumeric());
    lower.clear();
    let mut opening = text.chars();
    for c in opening.by_ref().take(OPENING_CHARS) {
        if c.is_ascii() {
            lower.push(c.to_ascii_lowercase());
        } else {
            lower.extend(c.to_lowercase());
        }
    }
    let Ok(Some(m)) = automaton.try_find(Input::new(lower.as_str()).anchored(Anchored::Yes)) else {
        return false;
    };
    // The label ends where the text does, or before a character that is no
    // letter or digit; CJK labels run into the next word.
    let next = lower[m.end()..].chars().next().or_else(|| opening.next());
    let last = lower[..m.end()].chars().next_back();
    next.is_none_or(|c| !c.is_alphanumeric())
        || last.is_some_and(|c| !c.is_ascii() && c.len_utf8() == 3)
}

/// The heading level of a block's owner (1–6), or `None`.
fn heading_level(blocks: &Blocks, i: usize) -> Option<u8> {
    let owner = blocks.elements.get(blocks.blocks[i].owner as usize)?;
    crate::blocks::heading_level(&owner.tag)
}

impl FeatureFamily for PhraseFeatures {
    fn name(&self) -> &'static str {
        "phrases"
    }

    fn columns(&self) -> &'static [&'static str] {
        COLUMNS
    }

    fn compute(&self, page: &PageContext<'_>, mut out: ArrayViewMut2<'_, f32>) {
        let blocks = page.blocks;
        // The open label's heading level (7: a label that is no heading):
        // a heading at that level or above ends its section, as does prose.
        let mut open: Option<u8> = None;
        let mut lower = String::new();
        for (i, b) in blocks.blocks.iter().enumerate() {
            if b.words == 0 {
                continue;
            }
            let level = heading_level(blocks, i);
            if is_chrome_label_in(&b.text, b.words, &mut lower) {
                out[[i, 0]] = 1.0;
                open = Some(level.unwrap_or(7));
                continue;
            }
            let prose = b.words >= PROSE_WORDS && b.link_words * 2 < b.words;
            if prose || open.is_some_and(|l| level.is_some_and(|h| h <= l)) {
                open = None;
            }
            if open.is_some() {
                out[[i, 1]] = 1.0;
            }
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
    fn the_label_list_is_lower_case_and_shorter_than_the_opening_read() {
        let all: Vec<&str> = labels().collect();
        assert!(all.len() > 200, "{} labels", all.len());
        for l in all {
            assert_eq!(l, l.to_lowercase(), "{l:?}");
            assert!(l.chars().count() < OPENING_CHARS, "{l:?}");
        }
        assert!(AUTOMATON.is_some());
    }

    #[test]
    fn labels_in_several_languages_and_their_boundaries() {
        for (text, yes) in [
            ("Related articles", true),
            ("Read more: Looted colonial art", true),
            ("» Lesen Sie auch:", true),
            ("À lire aussi", true),
            ("Noticias relacionadas", true),
            ("Читайте также", true),
            ("関連記事", true),
            ("相关文章推荐", true),
            ("Tags: rust, html", true),
            // A word that only starts like a label.
            ("Relatedness of species", false),
            ("Shared memory", false),
            ("Sharepoint", false),
            // Prose that opens with a label's word.
            (
                "Related research in 2019 showed that the species spread north \
                 along the coast much faster than anyone had expected",
                false,
            ),
            ("", false),
        ] {
            let words = text.split_whitespace().count() as u32;
            assert_eq!(is_chrome_label(text, words), yes, "{text:?}");
        }
    }

    fn columns(html: &str) -> Vec<(String, [f32; 2])> {
        let doc = parse(html.as_bytes(), None, ParseLimits::default()).unwrap();
        let blocks = crate::blocks::split(&doc);
        let (cetr, odds) = (CetrConfig::default(), CssOdds::default());
        let ctx = PageContext::new(&blocks, &cetr, &odds);
        let mut m = ndarray::Array2::<f32>::zeros((blocks.blocks.len(), COLUMNS.len()));
        PhraseFeatures.compute(&ctx, m.view_mut());
        blocks
            .blocks
            .iter()
            .zip(m.rows())
            .filter(|(b, _)| b.words > 0)
            .map(|(b, r)| (b.text.clone(), [r[0], r[1]]))
            .collect()
    }

    #[test]
    fn a_label_opens_a_section_that_a_heading_or_prose_ends() {
        let prose = "word ".repeat(70);
        let html = format!(
            "<html><body><article><h1>The story</h1><p>{prose}</p>\
             <h2>Related stories</h2><h3><a href=/a>First teaser</a></h3><p>A summary line.</p>\
             <h3><a href=/b>Second teaser</a></h3>\
             <h2>Next chapter</h2><p>Back in the text.</p>\
             <p>Comments</p><p>ann: nice post</p><p>{prose}</p><p>after the prose</p>\
             </article></body></html>"
        );
        let cols = columns(&html);
        let of = |t: &str| {
            cols.iter()
                .find(|(text, _)| text.starts_with(t))
                .map(|(_, c)| *c)
                .unwrap_or_else(|| panic!("no block {t:?} in {cols:?}"))
        };
        assert_eq!(of("The story"), [0.0, 0.0]);
        assert_eq!(of("Related stories"), [1.0, 0.0]);
        assert_eq!(of("First teaser"), [0.0, 1.0], "an h3 under an h2 label");
        assert_eq!(of("A summary line."), [0.0, 1.0]);
        assert_eq!(of("Second teaser"), [0.0, 1.0]);
        assert_eq!(
            of("Next chapter"),
            [0.0, 0.0],
            "an h2 ends the h2 label's section"
        );
        assert_eq!(of("Back in the text."), [0.0, 0.0]);
        assert_eq!(of("Comments"), [1.0, 0.0]);
        assert_eq!(of("ann: nice post"), [0.0, 1.0]);
        assert_eq!(
            of("after the prose"),
            [0.0, 0.0],
            "prose ends a label's section"
        );
    }
}
