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
    let mut sums = vec![BandSums::default(); BANDS.len()];
    for (p, s) in pages.iter().zip(scores) {
        let Some(word) = s.word else { continue };
        let blocks = p.blocks.blocks.iter().enumerate().map(|(i, b)| {
            let kept = s.kept.get(i).copied().unwrap_or(false);
            (b.words, p.labels[i], kept)
        });
        sums[band_of(p.gold_words())].add(word.f1, blocks);
    }
    BANDS
        .iter()
        .zip(sums)
        .filter(|(_, s)| s.pages > 0)
        .map(|(&(_, name), s)| (name.to_string(), s.band()))
        .collect()
}

/// The index in [`BANDS`] of a page of `gold_words`.
fn band_of(gold_words: u64) -> usize {
    BANDS
        .iter()
        .rposition(|&(lo, _)| gold_words >= lo)
        .unwrap_or(0)
}

/// One band's running sums.
#[derive(Debug, Clone, Default)]
struct BandSums {
    pages: usize,
    f1: f64,
    /// Gold-labelled words per third.
    gold: [u64; 3],
    /// Of them, the kept ones.
    kept: [u64; 3],
}

impl BandSums {
    /// Adds one page of word F1 `f1` and `blocks` (words, gold label,
    /// kept), in page order.
    fn add(&mut self, f1: f64, blocks: impl Iterator<Item = (u32, bool, bool)> + Clone) {
        self.pages += 1;
        self.f1 += f1;
        let gold: u64 = blocks
            .clone()
            .filter(|&(_, label, _)| label)
            .map(|(words, _, _)| u64::from(words))
            .sum();
        if gold == 0 {
            return;
        }
        let mut before = 0u64;
        for (words, label, kept) in blocks {
            if !label {
                continue;
            }
            let w = u64::from(words);
            // The third the block's middle word falls in.
            let third = (((before * 2 + w) * 3) / (gold * 2)).min(2) as usize;
            self.gold[third] += w;
            if kept {
                self.kept[third] += w;
            }
            before += w;
        }
    }

    /// The band's figures.
    fn band(&self) -> LengthBand {
        let share = |t: usize| {
            if self.gold[t] == 0 {
                0.0
            } else {
                self.kept[t] as f64 / self.gold[t] as f64
            }
        };
        LengthBand {
            pages: self.pages,
            f1: self.f1 / self.pages.max(1) as f64,
            kept_by_third: [share(0), share(1), share(2)],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_fall_in_their_band() {
        assert_eq!(BANDS[band_of(0)].1, "under 500");
        assert_eq!(BANDS[band_of(499)].1, "under 500");
        assert_eq!(BANDS[band_of(500)].1, "500-2000");
        assert_eq!(BANDS[band_of(2_000)].1, "2000-5000");
        assert_eq!(BANDS[band_of(4_999)].1, "2000-5000");
        assert_eq!(BANDS[band_of(5_000)].1, "5000+");
    }

    #[test]
    fn a_dropped_ending_shows_in_the_last_third() {
        // Six gold blocks of 100 words between chrome; the last two are
        // dropped, as a model that decays with position drops them.
        let mut page = vec![(30, false, true)];
        for k in 0..6 {
            page.push((100, true, k < 4));
            page.push((5, false, false));
        }
        let mut sums = BandSums::default();
        sums.add(0.8, page.iter().copied());
        let band = sums.band();
        assert_eq!(band.pages, 1);
        assert!((band.f1 - 0.8).abs() < 1e-12);
        assert_eq!(band.kept_by_third, [1.0, 1.0, 0.0]);
        // A page with no gold words counts for F1 only.
        sums.add(0.0, [(10, false, true)].into_iter());
        let band = sums.band();
        assert_eq!(band.pages, 2);
        assert!((band.f1 - 0.4).abs() < 1e-12);
        assert_eq!(band.kept_by_third, [1.0, 1.0, 0.0]);
        // A block that straddles two thirds counts where its middle lies:
        // 100 words, then 300 whose middle (word 250 of 400) is in the
        // second third.
        let mut straddle = BandSums::default();
        straddle.add(1.0, [(100, true, true), (300, true, false)].into_iter());
        assert_eq!(straddle.gold, [100, 300, 0]);
        assert_eq!(straddle.kept, [100, 0, 0]);
    }
}
