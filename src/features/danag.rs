//! DANAg (Mohammadzadeh, Gottron, Schweiggert & Nakhaeizadeh, 2011): content
//! versus code length, naively smoothed, and the largest positive region.
//!
//! The paper works on lines of the normalised source; we use blocks as the
//! lines (no second parser): a block's content length is its text's
//! characters, its code length the characters of the markup inside it.

use ndarray::ArrayViewMut2;

use super::{FeatureFamily, PageContext};
use crate::blocks::Blocks;

/// The boundary-search gap of the paper (in lines; blocks here), used for
/// the DANAg verdict column. The distance column lets the model learn its
/// own gap.
pub const PAPER_GAP: usize = 20;

/// DANAg as features: content and code length, the smoothed difference,
/// membership in the largest positive region and the distance to it, and
/// the paper's verdict (the region extended by the gap of 20).
pub struct DanagFeatures;

const COLUMNS: &[&str] = &[
    "log_content",
    "log_code",
    "smoothed",
    "in_largest",
    "log_distance",
    "verdict",
];

/// Signed log: keeps the sign, compresses the magnitude.
fn signed_log(v: f32) -> f32 {
    v.signum() * v.abs().ln_1p()
}

impl FeatureFamily for DanagFeatures {
    fn name(&self) -> &'static str {
        "danag"
    }

    fn columns(&self) -> &'static [&'static str] {
        COLUMNS
    }

    fn compute(&self, page: &PageContext<'_>, mut out: ArrayViewMut2<'_, f32>) {
        let largest = profile(page.blocks, 0);
        let paper = profile(page.blocks, PAPER_GAP);
        for (i, b) in page.blocks.blocks.iter().enumerate() {
            out[[i, 0]] = (b.chars as f32).ln_1p();
            out[[i, 1]] = (b.markup_chars as f32).ln_1p();
            out[[i, 2]] = signed_log(largest.smoothed[i]);
            out[[i, 3]] = largest.in_region[i] as u8 as f32;
            out[[i, 4]] = (largest.distance[i] as f32).ln_1p();
            out[[i, 5]] = paper.in_region[i] as u8 as f32;
        }
    }
}

/// DANAg's quantities for one page.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DanagProfile {
    /// Content minus code characters per block (T1 − T2).
    pub raw: Vec<f32>,
    /// The naive smoothing: diff_i = Σ_{j=i−1..i+1} (T1_j − T2_j).
    pub smoothed: Vec<f32>,
    /// Membership in the main region: the largest positive region, extended
    /// over positive blocks no further than `gap` blocks beyond its ends.
    pub in_region: Vec<bool>,
    /// Distance in blocks to the main region (0 inside).
    pub distance: Vec<u32>,
}

/// Computes DANAg on a page's blocks with the boundary-search gap `gap`
/// (20 lines in the paper).
pub fn profile(blocks: &Blocks, gap: usize) -> DanagProfile {
    let raw: Vec<f32> = blocks
        .blocks
        .iter()
        .map(|b| b.chars as f32 - b.markup_chars as f32)
        .collect();
    let n = raw.len();
    let smoothed: Vec<f32> = (0..n)
        .map(|i| raw[i.saturating_sub(1)..(i + 2).min(n)].iter().sum())
        .collect();
    let mut in_region = vec![false; n];
    if let Some((start, end)) = largest_positive_region(&smoothed) {
        let (mut s, mut e) = (start, end);
        // Boundary search: take in positive blocks within `gap` of the ends.
        while let Some(k) = (e + 1..(e + 1 + gap).min(n)).find(|&k| smoothed[k] > 0.0) {
            e = k;
        }
        while let Some(k) = (s.saturating_sub(gap)..s)
            .rev()
            .find(|&k| smoothed[k] > 0.0)
        {
            s = k;
        }
        for flag in &mut in_region[s..=e] {
            *flag = true;
        }
    }
    let distance = distances(&in_region);
    DanagProfile {
        raw,
        smoothed,
        in_region,
        distance,
    }
}

/// The run of consecutive positive values with the largest sum, as
/// inclusive indices (the first such run on ties).
fn largest_positive_region(v: &[f32]) -> Option<(usize, usize)> {
    let mut best: Option<(f32, usize, usize)> = None;
    let mut i = 0;
    while i < v.len() {
        if v[i] > 0.0 {
            let start = i;
            let mut sum = 0.0;
            while i < v.len() && v[i] > 0.0 {
                sum += v[i];
                i += 1;
            }
            if best.is_none_or(|b| sum > b.0) {
                best = Some((sum, start, i - 1));
            }
        } else {
            i += 1;
        }
    }
    best.map(|(_, s, e)| (s, e))
}

fn distances(in_region: &[bool]) -> Vec<u32> {
    let n = in_region.len();
    let mut d = vec![u32::MAX; n];
    let mut last = None;
    for i in 0..n {
        if in_region[i] {
            last = Some(i);
        }
        if let Some(l) = last {
            d[i] = (i - l) as u32;
        }
    }
    last = None;
    for i in (0..n).rev() {
        if in_region[i] {
            last = Some(i);
        }
        if let Some(l) = last {
            d[i] = d[i].min((l - i) as u32);
        }
    }
    // A page without a region: every block is "far".
    d.iter()
        .map(|&x| if x == u32::MAX { n as u32 } else { x })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn region_search() {
        assert_eq!(
            largest_positive_region(&[-1.0, 2.0, 3.0, -1.0, 10.0, -2.0]),
            Some((4, 4))
        );
        assert_eq!(largest_positive_region(&[-1.0, -2.0]), None);
        assert_eq!(
            distances(&[false, true, true, false, false]),
            vec![1, 0, 0, 1, 2]
        );
    }

    #[test]
    fn keeps_the_text_region_and_drops_markup_heavy_menus() {
        let blocks = crate::features::test_pages::menu_article_menu(30, 5);
        let p = profile(&blocks, 20);
        for (b, &keep) in blocks.blocks.iter().zip(&p.in_region) {
            let article = b
                .text
                .starts_with(crate::features::test_pages::ARTICLE_START);
            assert_eq!(keep, article, "{:?}", b.text);
        }
    }
}
