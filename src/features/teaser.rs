//! Teaser lists, read from link targets rather than words: "Most popular",
//! "Related", "More from …" boxes are runs of sibling blocks, each mostly
//! one link to another article of the same site (same host or a relative
//! URL, with an article-shaped path: see [`crate::blocks::targets`]).
//! Headlines in such a list look locally like short paragraphs; where they
//! point tells them apart, in every language.
//!
//! The page's own site is the one its `<head>` names (canonical link,
//! `og:url`, base URL); without one, the host most of its absolute links
//! point to.

use ndarray::ArrayViewMut2;

use super::page::RECORD_SEARCH_LEVELS;
use super::{FeatureFamily, PageContext};
use crate::blocks::targets::RELATIVE;
use crate::blocks::Blocks;

/// Longest block, in words, read as a teaser item.
pub const ITEM_MAX_WORDS: u32 = 30;

/// Share of a teaser item's words inside same-site article links.
pub const ITEM_MIN_SHARE: f32 = 0.6;

/// Most links a teaser item holds.
pub const ITEM_MAX_LINKS: u32 = 3;

/// Same-site article links of the block, of its container and of the page.
pub struct TeaserFeatures;

const COLUMNS: &[&str] = &[
    "article_link_share",
    "article_share_of_link_words",
    "item",
    "run_item_share",
    "run_log_items",
    "run_article_link_share",
    "page_article_link_share",
];

/// The site a page calls its own ([`Blocks::site`]), else the site most of
/// its absolute links point to (the first of equals in hash order), else
/// [`RELATIVE`].
pub fn page_site(bl: &Blocks) -> u64 {
    if bl.site != RELATIVE {
        return bl.site;
    }
    let mut sites: Vec<u64> = bl
        .link_spans
        .iter()
        .map(|s| s.target.site)
        .filter(|&s| s != RELATIVE)
        .collect();
    sites.sort_unstable();
    let (mut best, mut best_n) = (RELATIVE, 0usize);
    for run in sites.chunk_by(|a, b| a == b) {
        if run.len() > best_n {
            (best, best_n) = (run[0], run.len());
        }
    }
    best
}

/// Per block: its words inside links to another article of the page's own
/// site.
pub fn article_link_words(bl: &Blocks) -> Vec<u32> {
    let site = page_site(bl);
    let mut words = vec![0u32; bl.blocks.len()];
    for s in &bl.link_spans {
        if s.target.article && (s.target.site == RELATIVE || s.target.site == site) {
            if let Some(w) = words.get_mut(s.block as usize) {
                *w += s.words;
            }
        }
    }
    words
}

/// True when a block is a teaser item: short, with at most
/// [`ITEM_MAX_LINKS`] links, and mostly words of same-site article links.
pub fn is_item(words: u32, links: u32, article_words: u32) -> bool {
    words > 0
        && words <= ITEM_MAX_WORDS
        && links <= ITEM_MAX_LINKS
        && article_words as f32 >= ITEM_MIN_SHARE * words as f32
}

impl FeatureFamily for TeaserFeatures {
    fn name(&self) -> &'static str {
        "teaser"
    }

    fn columns(&self) -> &'static [&'static str] {
        COLUMNS
    }

    fn compute(&self, page: &PageContext<'_>, mut out: ArrayViewMut2<'_, f32>) {
        let bl = page.blocks;
        if bl.blocks.is_empty() {
            return;
        }
        let art = article_link_words(bl);
        let n = bl.elements.len();
        // Per element: teaser items and article-link words beneath it.
        let (mut items, mut art_under) = (vec![0u32; n], vec![0u32; n]);
        let mut page_art = 0u64;
        for (b, &a) in bl.blocks.iter().zip(&art) {
            page_art += a as u64;
            if let Some(e) = items.get_mut(b.element as usize) {
                *e += is_item(b.words, b.links, a) as u32;
                art_under[b.element as usize] += a;
            }
        }
        for e in (0..n).rev() {
            if let Some(p) = bl.elements[e].parent.map(|p| p as usize) {
                if p < e {
                    items[p] += items[e];
                    art_under[p] += art_under[e];
                }
            }
        }
        let t = page.tree();
        let page_share = page_art as f32 / bl.total_words.max(1) as f32;
        for (i, (b, &a)) in bl.blocks.iter().zip(&art).enumerate() {
            let mut row = out.row_mut(i);
            row[6] = page_share;
            if b.words == 0 {
                continue;
            }
            row[0] = a as f32 / b.words as f32;
            if b.link_words > 0 {
                row[1] = a as f32 / b.link_words as f32;
            }
            row[2] = is_item(b.words, b.links, a) as u8 as f32;
            // The run: the parent of the block's record, else of its owner.
            let base = t
                .record_of(bl, b.element, RECORD_SEARCH_LEVELS)
                .unwrap_or(b.owner);
            let Some(c) = bl
                .elements
                .get(base as usize)
                .and_then(|e| e.parent)
                .map(|c| c as usize)
            else {
                continue;
            };
            row[3] = items[c] as f32 / t.blocks[c].max(1) as f32;
            row[4] = (items[c] as f32).ln_1p();
            row[5] = art_under[c] as f32 / t.words[c].max(1) as f32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::CetrConfig;
    use crate::features::CssOdds;
    use crate::parse::{parse, ParseLimits};

    fn features(html: &str) -> (Blocks, ndarray::Array2<f32>) {
        let doc = parse(html.as_bytes(), None, ParseLimits::default()).unwrap();
        let blocks = crate::blocks::split(&doc);
        let (odds, cetr) = (CssOdds::default(), CetrConfig::default());
        let ctx = PageContext::new(&blocks, &cetr, &odds);
        let mut m = ndarray::Array2::zeros((blocks.blocks.len(), COLUMNS.len()));
        TeaserFeatures.compute(&ctx, m.view_mut());
        (blocks, m)
    }

    fn row(bl: &Blocks, start: &str) -> usize {
        bl.blocks
            .iter()
            .position(|b| b.text.starts_with(start))
            .unwrap_or_else(|| panic!("no block {start}"))
    }

    fn col(name: &str) -> usize {
        COLUMNS.iter().position(|c| *c == name).unwrap()
    }

    const PAGE: &str = "<html><head><link rel=canonical href='https://www.daily.example.com/news/2019/11/20/vote'></head>\
        <body><nav><a href='/news/'>News</a> <a href='/sport/'>Sport</a></nav>\
        <article><h1>Parliament passes the budget</h1>\
        <p>The vote came late on Tuesday after a long debate, and <a href='/news/2019/11/19/debate-opens-in-parliament'>the debate</a> went on for hours.</p>\
        <p>Ministers said the plan would hold <a href='https://twitter.com/x/status/123456789'>a tweet</a> for now.</p></article>\
        <aside><h2>Most read</h2><ul>\
        <li><a href='https://daily.example.com/world/storm-hits-the-coast-again'>Storm hits the coast again</a></li>\
        <li><a href='/sport/2019/11/20/team-wins-the-final'>Team wins the final</a></li>\
        <li><a href='/culture/article/8812345'>A new museum opens downtown</a></li>\
        <li><a href='https://elsewhere.org/a-b-c-d'>Partner story on another site</a></li>\
        </ul></aside></body></html>";

    #[test]
    fn headlines_linking_to_the_sites_articles_are_a_teaser_run() {
        let (bl, m) = features(PAGE);
        assert_ne!(bl.site, RELATIVE, "the canonical link names the site");
        let storm = row(&bl, "Storm hits");
        let museum = row(&bl, "A new museum");
        let partner = row(&bl, "Partner story");
        for r in [storm, museum] {
            assert_eq!(m[[r, col("article_link_share")]], 1.0);
            assert_eq!(m[[r, col("article_share_of_link_words")]], 1.0);
            assert_eq!(m[[r, col("item")]], 1.0);
        }
        // Another site's article is no teaser of this one.
        assert_eq!(m[[partner, col("item")]], 0.0);
        assert_eq!(m[[partner, col("article_link_share")]], 0.0);
        // The run is the list: three of its four items.
        assert_eq!(m[[storm, col("run_item_share")]], 0.75);
        assert!((m[[storm, col("run_log_items")]] - 3f32.ln_1p()).abs() < 1e-6);
        // Section links are not articles.
        let nav = row(&bl, "News");
        assert_eq!(m[[nav, col("article_link_share")]], 0.0);
        // The article's paragraph: a few linked words, not a teaser.
        let p = row(&bl, "The vote came");
        let share = m[[p, col("article_link_share")]];
        assert!(share > 0.0 && share < 0.2, "{share}");
        assert_eq!(m[[p, col("item")]], 0.0);
        assert_eq!(m[[p, col("run_item_share")]], 0.0);
        let tweet = row(&bl, "Ministers said");
        assert_eq!(m[[tweet, col("article_share_of_link_words")]], 0.0);
        assert!(m[[0, col("page_article_link_share")]] > 0.0);
    }

    #[test]
    fn without_a_canonical_link_the_commonest_host_is_the_site() {
        let html = PAGE
            .replace(
                "<link rel=canonical href='https://www.daily.example.com/news/2019/11/20/vote'>",
                "",
            )
            .replace("href='/news/'", "href='https://daily.example.com/news/'")
            .replace("href='/sport/'", "href='https://daily.example.com/sport/'");
        let (bl, m) = features(&html);
        assert_eq!(bl.site, RELATIVE);
        assert_eq!(
            page_site(&bl),
            crate::blocks::targets::site_hash("example.com")
        );
        assert_eq!(m[[row(&bl, "Storm hits"), col("item")]], 1.0);
    }

    #[test]
    fn a_link_spanning_blocks_counts_in_each() {
        let (bl, m) = features(
            "<body><div class=card><a href='/2020/01/02/long-read-title'><h3>Long read title</h3><p>Its teaser line here</p></a></div></body>",
        );
        assert_eq!(bl.link_spans.len(), 2);
        assert_eq!(m[[row(&bl, "Long read"), col("article_link_share")]], 1.0);
        assert_eq!(m[[row(&bl, "Its teaser"), col("article_link_share")]], 1.0);
    }
}
