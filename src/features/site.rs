//! Site-level template features: how many other pages of the same site hold
//! a block's text, or a block at the same place in the markup.
//!
//! The site-level family of the boilerplate literature: a block that
//! recurs across a site's pages (the menu, the footer, "Related posts", the
//! cookie notice) is template, whatever its own page says about it. A batch
//! is read twice: the first pass adds every page's [`PageKeys`] to a
//! [`SiteIndex`] under the page's site; the second gives each block its
//! recurrence shares over the *other* pages of its site ([`SiteRows`]),
//! which the [`SiteFeatures`] family writes as columns.
//!
//! A site is a registrable domain (`bbc.co.uk` for `news.bbc.co.uk`), the
//! same grouping cross-validation uses, so that training counts recurrence
//! within the pages of one fold group and never across folds.
//!
//! Without a site (a single page, or a model used without
//! `--site-context`), every block gets the "unknown" row: shares of -1 and
//! zero other pages, which is also what the pages of one-page sites look
//! like in training.

use std::collections::HashMap;
use std::hash::Hasher;

use ndarray::ArrayViewMut2;

use super::{FeatureFamily, PageContext};
use crate::blocks::Blocks;

/// The site family's columns.
pub const COLUMNS: &[&str] = &["text_share", "path_share", "log_other_pages"];

/// Value of a share column when the page has no other page of its site.
pub const UNKNOWN_SHARE: f32 = -1.0;

/// Recurrence of each block across the other pages of its site.
pub struct SiteFeatures;

impl FeatureFamily for SiteFeatures {
    fn name(&self) -> &'static str {
        "site"
    }

    fn columns(&self) -> &'static [&'static str] {
        COLUMNS
    }

    fn compute(&self, page: &PageContext<'_>, mut out: ArrayViewMut2<'_, f32>) {
        let n = page.blocks.blocks.len();
        match page.site {
            Some(rows) if rows.rows.len() == n => {
                for (i, r) in rows.rows.iter().enumerate() {
                    for (j, &v) in r.iter().enumerate() {
                        out[[i, j]] = v;
                    }
                }
            }
            _ => {
                for i in 0..n {
                    out[[i, 0]] = UNKNOWN_SHARE;
                    out[[i, 1]] = UNKNOWN_SHARE;
                    out[[i, 2]] = 0.0;
                }
            }
        }
    }
}

/// A block's two keys: its normalised text and its place in the markup.
/// A block without words has no text key (`0`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockKey {
    /// Hash of the text, lower-cased, digits folded to `0`, whitespace
    /// collapsed (so "Posted 3 May" and "Posted 14 May" are one line).
    pub text: u64,
    /// Hash of the tag and id/class path from the block's element up to
    /// `<html>` (digits folded too: `post-1234` and `post-99` are one).
    pub path: u64,
}

/// The keys of one page's blocks, in block order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageKeys {
    /// One key per block.
    pub blocks: Vec<BlockKey>,
}

impl PageKeys {
    /// The keys of a page's blocks.
    pub fn of(blocks: &Blocks) -> Self {
        PageKeys {
            blocks: blocks
                .blocks
                .iter()
                .map(|b| BlockKey {
                    text: if b.words == 0 { 0 } else { text_key(&b.text) },
                    path: path_key(blocks, b.element),
                })
                .collect(),
        }
    }
}

/// Folds a character for the keys: lower case, every digit to `0`.
fn fold(c: char, h: &mut impl Hasher) {
    if c.is_numeric() {
        h.write_u8(b'0');
    } else {
        for l in c.to_lowercase() {
            h.write_u32(l as u32);
        }
    }
}

fn text_key(text: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    let mut space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space {
            h.write_u8(b' ');
            space = false;
        }
        fold(c, &mut h);
    }
    // Keep 0 free for "no text".
    h.finish().max(1)
}

fn path_key(blocks: &Blocks, element: u32) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    if (element as usize) < blocks.elements.len() {
        for e in blocks.ancestors(element) {
            h.write(e.tag.as_bytes());
            for t in blocks.tokens_of(e) {
                t.chars().for_each(|c| fold(c, &mut h));
                h.write_u8(b'.');
            }
            h.write_u8(b'/');
        }
    }
    h.finish()
}

/// Per site, how many pages hold each text key and each path key.
#[derive(Debug, Default)]
pub struct SiteIndex {
    sites: HashMap<String, SiteCounts>,
}

#[derive(Debug, Default)]
struct SiteCounts {
    pages: u32,
    text: HashMap<u64, u32>,
    path: HashMap<u64, u32>,
}

impl SiteIndex {
    /// An empty index.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one page of `site`: each distinct key counts once per page.
    pub fn add(&mut self, site: &str, keys: &PageKeys) {
        let s = self.sites.entry(site.to_string()).or_default();
        s.pages += 1;
        let mut texts: Vec<u64> = keys
            .blocks
            .iter()
            .map(|k| k.text)
            .filter(|&t| t != 0)
            .collect();
        texts.sort_unstable();
        texts.dedup();
        for t in texts {
            *s.text.entry(t).or_insert(0) += 1;
        }
        let mut paths: Vec<u64> = keys.blocks.iter().map(|k| k.path).collect();
        paths.sort_unstable();
        paths.dedup();
        for p in paths {
            *s.path.entry(p).or_insert(0) += 1;
        }
    }

    /// Merges another index into this one (the first pass runs in
    /// parallel, one index per worker).
    pub fn merge(&mut self, other: SiteIndex) {
        for (site, o) in other.sites {
            let s = self.sites.entry(site).or_default();
            s.pages += o.pages;
            for (k, v) in o.text {
                *s.text.entry(k).or_insert(0) += v;
            }
            for (k, v) in o.path {
                *s.path.entry(k).or_insert(0) += v;
            }
        }
    }

    /// Number of sites.
    pub fn sites(&self) -> usize {
        self.sites.len()
    }

    /// Pages counted for `site`.
    pub fn pages(&self, site: &str) -> u32 {
        self.sites.get(site).map_or(0, |s| s.pages)
    }

    /// The site rows of a page of `site` that was added to this index:
    /// each block's share of the site's *other* pages holding its text
    /// and its path. A page that was not added, or whose site has no other
    /// page, gets the unknown rows.
    pub fn rows(&self, site: &str, keys: &PageKeys) -> SiteRows {
        let unknown = [UNKNOWN_SHARE, UNKNOWN_SHARE, 0.0];
        let Some(s) = self.sites.get(site).filter(|s| s.pages >= 2) else {
            return SiteRows {
                rows: vec![unknown; keys.blocks.len()],
            };
        };
        let others = (s.pages - 1) as f32;
        // The page itself is counted in the index: take it out.
        let share = |m: &HashMap<u64, u32>, k: u64| {
            m.get(&k)
                .map_or(0.0, |&c| (c.saturating_sub(1) as f32 / others).min(1.0))
        };
        SiteRows {
            rows: keys
                .blocks
                .iter()
                .map(|k| {
                    let text = if k.text == 0 {
                        0.0
                    } else {
                        share(&s.text, k.text)
                    };
                    [text, share(&s.path, k.path), others.ln_1p()]
                })
                .collect(),
        }
    }
}

/// The site columns of one page's blocks (see [`SiteIndex::rows`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SiteRows {
    /// One row of [`COLUMNS`] per block.
    pub rows: Vec<[f32; 3]>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse, ParseLimits};

    fn page(body: &str) -> Blocks {
        let doc = parse(body.as_bytes(), None, ParseLimits::default()).unwrap();
        crate::blocks::split(&doc)
    }

    fn article(n: usize) -> String {
        format!(
            "<body><nav class=menu><a href=/>Home</a> <a href=/about>About us</a></nav>\
             <div class='post post-{n}'><p>Story number {n} is about thing {}.</p></div>\
             <footer>Posted {n} May, all rights reserved</footer></body>",
            ["apples", "boats", "clouds"][n % 3]
        )
    }

    #[test]
    fn template_blocks_recur_and_the_story_does_not() {
        let pages: Vec<Blocks> = (0..3).map(|n| page(&article(n))).collect();
        let keys: Vec<PageKeys> = pages.iter().map(PageKeys::of).collect();
        let mut index = SiteIndex::new();
        for k in &keys {
            index.add("example.org", k);
        }
        let rows = index.rows("example.org", &keys[0]);
        let text_of = |needle: &str| {
            let i = pages[0]
                .blocks
                .iter()
                .position(|b| b.text.contains(needle))
                .unwrap();
            rows.rows[i]
        };
        assert_eq!(text_of("Home")[0], 1.0, "the menu is on both other pages");
        assert_eq!(text_of("Posted")[0], 1.0, "digits are folded");
        assert_eq!(text_of("Story")[0], 0.0, "the story is this page's own");
        assert_eq!(text_of("Story")[1], 1.0, "but its place recurs");
        assert!((text_of("Home")[2] - 2f32.ln_1p()).abs() < 1e-6);
    }

    #[test]
    fn a_lone_page_gets_the_unknown_rows() {
        let p = page(&article(1));
        let keys = PageKeys::of(&p);
        let mut index = SiteIndex::new();
        index.add("a.org", &keys);
        let rows = index.rows("a.org", &keys);
        assert!(rows
            .rows
            .iter()
            .all(|r| *r == [UNKNOWN_SHARE, UNKNOWN_SHARE, 0.0]));
        assert_eq!(index.rows("elsewhere.org", &keys), rows);
    }

    #[test]
    fn merged_indexes_count_like_one() {
        let keys: Vec<PageKeys> = (0..4).map(|n| PageKeys::of(&page(&article(n)))).collect();
        let mut one = SiteIndex::new();
        keys.iter().for_each(|k| one.add("s", k));
        let (mut a, mut b) = (SiteIndex::new(), SiteIndex::new());
        keys[..1].iter().for_each(|k| a.add("s", k));
        keys[1..].iter().for_each(|k| b.add("s", k));
        a.merge(b);
        assert_eq!(a.pages("s"), 4);
        assert_eq!(a.rows("s", &keys[2]), one.rows("s", &keys[2]));
    }
}
