//! Where long texts lose words: out-of-fold F1 and the share of the gold
//! kept in each third of the page, per band of gold length. A model that
//! learned "content comes early" from short articles keeps the first third
//! of a long text and drops the last.

use std::collections::BTreeMap;

use serde::Serialize;

use super::prepare::PreparedPage;
use super::report::PageScore;

/// The bands of gold length, in words: each band holds the pages with at
/// least its lower bound (and below the next band's).
pub const BANDS: [(u64, &str); 4] = [
    (0, "under 500"),
    (500, "500-2000"),
    (2000, "2000-5000"),
    (5000, "5000+"),
];

/// One band's figures.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LengthBand {
    /// Pages in the band.
    pub pages: usize,
    /// Their mean word F1 as extracted.
    pub f1: f64,
    /// The share of the gold-labelled words kept, in the first, middle and
    /// last third of the page's gold-labelled words (pooled over the
    /// band's pages).
    pub kept_by_third: [f64; 3],
}

/// The bands of `scores`' pages with gold text (`pages` in the same
/// order), by band name.
pub fn by_length(pages: &[PreparedPage], scores: &[PageScore]) -> BTreeMap<String, LengthBand> {
    let mut sums: Vec<(usize, f64, [u64; 3], [u64; 3])> =
        vec![(0, 0.0, [0; 3], [0; 3]); BANDS.len()];
    for (p, s) in pages.iter().zip(scores) {
        let Some(word) = s.word else { continue };
        let band = BANDS
            .iter()
            .rposition(|&(lo, _)| p.gold_words() >= lo)
            .unwrap_or(0);
        let e = &mut sums[band];
        e.0 += 1;
        e.1 += word.f1;
        let gold: u64 = p
            .blocks
            .blocks
            .iter()
            .zip(&p.labels)
            .filter(|(_, &l)| l)
            .map(|(b, _)| u64::from(b.words))
            .sum();
        let mut before = 0u64;
        for (i, b) in p.blocks.blocks.iter().enumerate() {
            if !p.labels[i] || gold == 0 {
                continue;
            }
            let w = u64::from(b.words);
            // The third the block's middle word falls in.
            let third = (((before * 2 + w) * 3) / (gold * 2)).min(2) as usize;
            e.2[third] += w;
            if s.kept.get(i).copied().unwrap_or(false) {
                e.3[third] += w;
            }
            before += w;
        }
    }
    BANDS
        .iter()
        .zip(sums)
        .filter(|(_, s)| s.0 > 0)
        .map(|(&(_, name), (n, f1, gold, kept))| {
            let share = |t: usize| {
                if gold[t] == 0 {
                    0.0
                } else {
                    kept[t] as f64 / gold[t] as f64
                }
            };
            (
                name.to_string(),
                LengthBand {
                    pages: n,
                    f1: f1 / n as f64,
                    kept_by_third: [share(0), share(1), share(2)],
                },
            )
        })
        .collect()
}
