//! id/class token odds: per-token log-odds of content versus boilerplate,
//! learned from training pages and aggregated over a block's own element and
//! its ancestors.
//!
//! Tokens are counted over domains rather than blocks: each domain
//! contributes the share of a token's (word-weighted) occurrences that were
//! content, so one large site cannot dominate the table, and tokens seen on
//! fewer than `min_domains` domains get no odds at all.

use std::collections::{BTreeMap, HashMap};

use foldhash::HashMap as FastMap;

use ndarray::ArrayViewMut2;
use serde::{Deserialize, Serialize};

use super::{FeatureFamily, PageContext};
use crate::blocks::Blocks;

/// Ancestor levels above the block's own element whose tokens count.
const MAX_LEVELS: usize = 12;
/// Levels, from the innermost element up, that count as the block's "own"
/// tokens (the element and the layout element that owns the block).
const OWN_LEVELS: usize = 4;

/// Learned log-odds per id/class token.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(from = "Vec<(String, f32)>", into = "Vec<(String, f32)>")]
pub struct CssOdds {
    map: FastMap<Box<str>, f32>,
}

impl From<Vec<(String, f32)>> for CssOdds {
    fn from(v: Vec<(String, f32)>) -> Self {
        CssOdds {
            map: v
                .into_iter()
                .map(|(k, o)| (k.into_boxed_str(), o))
                .collect(),
        }
    }
}

impl From<CssOdds> for Vec<(String, f32)> {
    fn from(o: CssOdds) -> Self {
        // Sorted, so that the same table always serialises to the same bytes.
        let mut v: Vec<(String, f32)> = o.map.into_iter().map(|(k, o)| (k.into(), o)).collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    }
}

impl CssOdds {
    /// The odds of a token, if learned.
    pub fn get(&self, token: &str) -> Option<f32> {
        self.map.get(token).copied()
    }

    /// Number of tokens with odds.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True when no token has odds.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Fits the table from per-page token statistics, grouped by domain.
    /// `pages` yields `(domain, stats)`.
    pub fn fit<'a>(
        pages: impl IntoIterator<Item = (&'a str, &'a PageTokenStats)>,
        min_domains: u32,
        smoothing: f32,
    ) -> Self {
        // token -> domain -> (content weight, total weight). Domains in a
        // BTreeMap: the sums below run in a fixed order, so the odds (and the
        // model file) are the same bits on every run; a HashMap's random
        // order made the last bits, and so the trees, vary between runs.
        let mut per_token: HashMap<&str, BTreeMap<&str, (f64, f64)>> = HashMap::new();
        for (domain, stats) in pages {
            for (tok, c, t) in &stats.tokens {
                let e = per_token
                    .entry(&**tok)
                    .or_default()
                    .entry(domain)
                    .or_insert((0.0, 0.0));
                e.0 += *c as f64;
                e.1 += *t as f64;
            }
        }
        let a = smoothing as f64;
        let map = per_token
            .into_iter()
            .filter(|(_, d)| d.len() as u32 >= min_domains)
            .map(|(tok, domains)| {
                let n = domains.len() as f64;
                let content: f64 = domains
                    .values()
                    .filter(|(_, t)| *t > 0.0)
                    .map(|(c, t)| c / t)
                    .sum();
                let odds = ((content + a) / (n - content + a)).ln();
                (Box::from(tok), odds as f32)
            })
            .collect();
        CssOdds { map }
    }
}

impl CssOdds {
    /// The table updated with one site's labelled pages (their token
    /// statistics): each token the site's labelled blocks carry gets
    /// `ln((prior·q + site·s + a) / (prior·(1−q) + site·(1−s) + a))`, with
    /// `s` the token's word-weighted content share on the site, `q` the
    /// probability its current odds stand for (its weight `prior` counted
    /// in domains, 0 for a token without odds), `site` the weight of the
    /// site in domains and `a` the smoothing. Other tokens keep their
    /// odds. Unlike [`CssOdds::fit`], a token seen on this one site counts:
    /// the adapted model is for this site.
    pub fn with_site<'a>(
        &self,
        pages: impl IntoIterator<Item = &'a PageTokenStats>,
        site: f32,
        prior: f32,
        smoothing: f32,
    ) -> CssOdds {
        // BTreeMap and page order: the sums run in a fixed order.
        let mut sums: BTreeMap<&str, (f64, f64)> = BTreeMap::new();
        for stats in pages {
            for (tok, c, t) in &stats.tokens {
                let e = sums.entry(&**tok).or_insert((0.0, 0.0));
                e.0 += *c as f64;
                e.1 += *t as f64;
            }
        }
        let (site, prior, a) = (site as f64, prior as f64, smoothing as f64);
        let mut map = self.map.clone();
        for (tok, (c, t)) in sums {
            if t <= 0.0 {
                continue;
            }
            let s = c / t;
            let (pw, q) = match self.get(tok) {
                Some(o) => (prior, 1.0 / (1.0 + (-(o as f64)).exp())),
                None => (0.0, 0.5),
            };
            let odds = ((pw * q + site * s + a) / (pw * (1.0 - q) + site * (1.0 - s) + a)).ln();
            map.insert(Box::from(tok), odds as f32);
        }
        CssOdds { map }
    }
}

/// A page's id/class tokens with the content and total word weight of the
/// blocks they enclose: the input of [`CssOdds::fit`].
#[derive(Debug, Clone, Default)]
pub struct PageTokenStats {
    /// `(token, content weight, total weight)`, one entry per token.
    pub tokens: Vec<(Box<str>, f32, f32)>,
}

impl PageTokenStats {
    /// Collects a page's token statistics from its blocks and their labels.
    pub fn collect(blocks: &Blocks, labels: &[bool]) -> Self {
        Self::collect_known(blocks, labels, &vec![true; labels.len()])
    }

    /// Like [`collect`](Self::collect), counting only the blocks whose
    /// label is `known` (a partially labelled page).
    pub fn collect_known(blocks: &Blocks, labels: &[bool], known: &[bool]) -> Self {
        let mut acc: HashMap<&str, (f32, f32)> = HashMap::new();
        let mut seen: Vec<&str> = Vec::new();
        for ((b, &label), _) in blocks
            .blocks
            .iter()
            .zip(labels)
            .zip(known)
            .filter(|(_, &k)| k)
        {
            if b.words == 0 {
                continue;
            }
            seen.clear();
            for e in blocks.ancestors(b.element).take(MAX_LEVELS) {
                for t in blocks.tokens_of(e) {
                    if !seen.contains(&t) {
                        seen.push(t);
                    }
                }
            }
            let w = b.words as f32;
            for t in &seen {
                let e = acc.entry(t).or_insert((0.0, 0.0));
                if label {
                    e.0 += w;
                }
                e.1 += w;
            }
        }
        let mut tokens: Vec<(Box<str>, f32, f32)> = acc
            .into_iter()
            .map(|(k, (c, t))| (Box::from(k), c, t))
            .collect();
        tokens.sort_by(|a, b| a.0.cmp(&b.0));
        PageTokenStats { tokens }
    }
}

/// Mean, minimum and maximum odds of the block's own tokens and of its
/// ancestors' tokens (0 where no token has odds).
pub struct CssFeatures;

const COLUMNS: &[&str] = &[
    "own_mean",
    "own_min",
    "own_max",
    "ancestor_mean",
    "ancestor_min",
    "ancestor_max",
];

#[derive(Default)]
struct Agg {
    sum: f32,
    n: u32,
    min: f32,
    max: f32,
}

impl Agg {
    fn add(&mut self, v: f32) {
        if self.n == 0 {
            self.min = v;
            self.max = v;
        } else {
            self.min = self.min.min(v);
            self.max = self.max.max(v);
        }
        self.sum += v;
        self.n += 1;
    }

    fn write(&self, out: &mut [f32]) {
        if self.n > 0 {
            out[0] = self.sum / self.n as f32;
            out[1] = self.min;
            out[2] = self.max;
        }
    }
}

impl FeatureFamily for CssFeatures {
    fn name(&self) -> &'static str {
        "css"
    }

    fn columns(&self) -> &'static [&'static str] {
        COLUMNS
    }

    fn compute(&self, page: &PageContext<'_>, mut out: ArrayViewMut2<'_, f32>) {
        if page.css_odds.is_empty() {
            return;
        }
        let bl = page.blocks;
        // Per element, the odds of its tokens (a range of `odds`), looked
        // up on the first visit: blocks share their ancestors, and hashing
        // the same tokens again for every block below them cost more than
        // the rest of the family.
        let mut memo: Vec<(u32, u32)> = vec![(u32::MAX, 0); bl.elements.len()];
        let mut odds: Vec<f32> = Vec::new();
        for (i, b) in bl.blocks.iter().enumerate() {
            let (mut own, mut anc) = (Agg::default(), Agg::default());
            let mut in_own = true;
            let mut next = Some(b.element);
            for level in 0..MAX_LEVELS {
                let Some(k) = next else { break };
                let Some(e) = bl.elements.get(k as usize) else {
                    break;
                };
                let target = if in_own { &mut own } else { &mut anc };
                let m = &mut memo[k as usize];
                if m.0 == u32::MAX {
                    let start = odds.len();
                    odds.extend(bl.tokens_of(e).filter_map(|t| page.css_odds.get(t)));
                    *m = (start as u32, (odds.len() - start) as u32);
                }
                let (start, len) = (m.0 as usize, m.1 as usize);
                for &o in &odds[start..start + len] {
                    target.add(o);
                }
                // The owner is the last "own" level.
                if k == b.owner || level + 1 >= OWN_LEVELS {
                    in_own = false;
                }
                next = e.parent;
            }
            let mut row = [0f32; 6];
            own.write(&mut row[0..3]);
            anc.write(&mut row[3..6]);
            for (k, v) in row.into_iter().enumerate() {
                out[[i, k]] = v;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::CetrConfig;
    use crate::parse::{parse, ParseLimits};

    fn page(html: &str) -> Blocks {
        crate::blocks::split(&parse(html.as_bytes(), None, ParseLimits::default()).unwrap())
    }

    #[test]
    fn odds_counted_over_domains() {
        let p = page(
            "<div class=menu><a>Home</a></div><div class=article><p>Long story text</p></div>",
        );
        let labels = [false, true];
        let stats = PageTokenStats::collect(&p, &labels);
        // The same page on three domains: tokens pass min_domains = 3.
        let odds = CssOdds::fit(
            [("a.com", &stats), ("b.com", &stats), ("c.com", &stats)],
            3,
            1.0,
        );
        assert!(odds.get("menu").unwrap() < 0.0);
        assert!(odds.get("article").unwrap() > 0.0);
        // Repeating a page on one domain does not count as more domains.
        let odds = CssOdds::fit([("a.com", &stats), ("a.com", &stats)], 2, 1.0);
        assert!(odds.is_empty());
    }

    #[test]
    fn features_use_own_and_ancestor_tokens() {
        let p = page("<div class=article><p class=menu>text words</p></div>");
        let odds = CssOdds::from(vec![
            ("article".to_string(), 2.0),
            ("menu".to_string(), -1.0),
        ]);
        let cetr = CetrConfig::default();
        let ctx = PageContext::new(&p, &cetr, &odds);
        let mut m = ndarray::Array2::zeros((1, COLUMNS.len()));
        CssFeatures.compute(&ctx, m.view_mut());
        assert_eq!(m[[0, 0]], -1.0, "own mean is the p's token");
        assert_eq!(m[[0, 3]], 2.0, "ancestor mean is the div's token");
    }

    #[test]
    fn a_site_moves_its_own_tokens_only() {
        let p = page(
            "<div class=menu><a>Home</a></div><div class=article><p>Long story text</p></div>",
        );
        // On this site the menu is content, the article chrome.
        let stats = PageTokenStats::collect(&p, &[true, false]);
        let base = CssOdds::from(vec![
            ("article".to_string(), 2.0),
            ("menu".to_string(), -2.0),
            ("other".to_string(), 1.5),
        ]);
        let site = base.with_site([&stats], 5.0, 5.0, 1.0);
        assert!(site.get("menu").unwrap() > base.get("menu").unwrap());
        assert!(site.get("article").unwrap() < base.get("article").unwrap());
        assert_eq!(site.get("other"), Some(1.5), "not on the site");
        // A token the base never learned gets the site's odds.
        let fresh = CssOdds::default().with_site([&stats], 5.0, 5.0, 1.0);
        assert!(fresh.get("menu").unwrap() > 1.0);
        assert!(fresh.get("article").unwrap() < -1.0);
        assert_eq!(base.with_site([], 5.0, 5.0, 1.0), base);
    }

    #[test]
    fn serialises_sorted() {
        let odds = CssOdds::from(vec![("b".to_string(), 1.0), ("a".to_string(), -1.0)]);
        let v: Vec<(String, f32)> = odds.clone().into();
        assert_eq!(v[0].0, "a");
        assert_eq!(CssOdds::from(v), odds);
    }
}
