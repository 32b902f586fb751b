//! CETR (Weninger, Hsu & Han, 2010): content extraction via tag ratios,
//! computed per block instead of per source line.
//!
//! A block's tag ratio is its characters per start tag. The ratios are
//! Gaussian-smoothed along the page, their absolute derivative (the jump to
//! the mean of the next `alpha` blocks) is smoothed too, and the 2-D points
//! (smoothed ratio, smoothed derivative) are clustered per page with k-means,
//! k = 3 ([`kmeans3`], checked against linfa-clustering's `KMeans`). CETR
//! holds one centroid at the origin; linfa's k-means cannot hold a centroid,
//! and ours does the same arithmetic, so we start one there and call the
//! cluster whose final centroid lies nearest the origin boilerplate, which is
//! what the fixed centroid amounts to on real pages.

use linfa::prelude::*;
use linfa_clustering::{KMeans, KMeansInit};
use ndarray::{Array2, ArrayViewMut2};
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256Plus;

use super::{FeatureFamily, PageContext};
use crate::blocks::Blocks;
use crate::config::CetrConfig;

/// The CETR quantities of one page.
#[derive(Debug, Clone, Default)]
pub struct CetrProfile {
    /// Raw tag ratio per block.
    pub ratio: Vec<f32>,
    /// Gaussian-smoothed tag ratio.
    pub smoothed: Vec<f32>,
    /// Smoothed absolute derivative.
    pub derivative: Vec<f32>,
    /// k-means verdict: true when the block is not in the origin cluster.
    pub content: Vec<bool>,
    /// Distance from the origin in the normalised 2-D plane.
    pub distance: Vec<f32>,
}

/// Characters per start tag of each block (a block with no tag of its own
/// counts one).
pub fn tag_ratios(blocks: &Blocks) -> Vec<f32> {
    blocks
        .blocks
        .iter()
        .map(|b| b.chars as f32 / b.tags.max(1) as f32)
        .collect()
}

/// Gaussian smoothing with standard deviation `sigma` (in positions), the
/// kernel cut at three sigmas and renormalised at the page's ends.
pub fn gaussian_smooth(values: &[f32], sigma: f32) -> Vec<f32> {
    let radius = (3.0 * sigma).ceil() as isize;
    let kernel: Vec<f32> = (-radius..=radius)
        .map(|d| (-(d * d) as f32 / (2.0 * sigma * sigma)).exp())
        .collect();
    let n = values.len() as isize;
    (0..n)
        .map(|i| {
            let (mut acc, mut wsum) = (0.0f32, 0.0f32);
            for (k, w) in kernel.iter().enumerate() {
                let j = i + k as isize - radius;
                if (0..n).contains(&j) {
                    acc += w * values[j as usize];
                    wsum += w;
                }
            }
            acc / wsum
        })
        .collect()
}

/// CETR's derivative: |mean of the next `alpha` values − the value|.
pub fn derivative(values: &[f32], alpha: usize) -> Vec<f32> {
    let n = values.len();
    (0..n)
        .map(|i| {
            let end = (i + alpha + 1).min(n);
            let ahead = &values[i..end];
            let mean = ahead.iter().sum::<f32>() / ahead.len() as f32;
            (mean - values[i]).abs()
        })
        .collect()
}

/// Computes the CETR profile of a page (clustered by [`kmeans3`]).
pub fn profile(blocks: &Blocks, cfg: &CetrConfig) -> CetrProfile {
    profile_with(blocks, cfg, Clustering::Own)
}

/// Computes the CETR profile of a page, clustered by the given k-means.
pub fn profile_with(blocks: &Blocks, cfg: &CetrConfig, how: Clustering) -> CetrProfile {
    let ratio = tag_ratios(blocks);
    let smoothed = gaussian_smooth(&ratio, cfg.sigma);
    let derivative = gaussian_smooth(&derivative(&smoothed, cfg.alpha), cfg.sigma);
    let max_s = smoothed.iter().cloned().fold(0.0f32, f32::max).max(1e-6);
    let max_d = derivative.iter().cloned().fold(0.0f32, f32::max).max(1e-6);
    let points: Vec<[f64; 2]> = smoothed
        .iter()
        .zip(&derivative)
        .map(|(s, d)| [(s / max_s) as f64, (d / max_d) as f64])
        .collect();
    let distance = points
        .iter()
        .map(|p| (p[0] * p[0] + p[1] * p[1]).sqrt() as f32)
        .collect();
    let content = cluster_away_from_origin(&points, cfg.kmeans_iterations, how);
    CetrProfile {
        ratio,
        smoothed,
        derivative,
        content,
        distance,
    }
}

/// CETR-TM: blocks whose smoothed tag ratio exceeds `lambda` standard
/// deviations of the page's smoothed tag ratios (Weninger et al. use λ = 1).
pub fn threshold_content(profile: &CetrProfile, lambda: f32) -> Vec<bool> {
    let v = &profile.smoothed;
    if v.is_empty() {
        return Vec::new();
    }
    let mean = v.iter().sum::<f32>() / v.len() as f32;
    let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f32>() / v.len() as f32;
    let tau = lambda * var.sqrt();
    v.iter().map(|&x| x > tau).collect()
}

/// Which k-means implementation clusters a page's CETR points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clustering {
    /// Our own three-centroid loop ([`kmeans3`]): what the features use.
    Own,
    /// linfa-clustering's `KMeans`, the reference the own loop is tested
    /// against; the unsupervised CETR-KM fallback runs it.
    Linfa,
}

/// The starting centroids CETR's clustering uses: the origin, the mean and
/// the point farthest from the origin; `None` when the page is too small or
/// too flat to cluster.
fn initial_centroids(points: &[[f64; 2]]) -> Option<[[f64; 2]; 3]> {
    let n = points.len();
    if n < 3 {
        return None;
    }
    let mean = [
        points.iter().map(|p| p[0]).sum::<f64>() / n as f64,
        points.iter().map(|p| p[1]).sum::<f64>() / n as f64,
    ];
    let far = points.iter().copied().fold([0.0, 0.0], |a, p| {
        if p[0] * p[0] + p[1] * p[1] > a[0] * a[0] + a[1] * a[1] {
            p
        } else {
            a
        }
    });
    if far == [0.0, 0.0] || far == mean {
        return None;
    }
    Some([[0.0, 0.0], mean, far])
}

/// Squared Euclidean distance of two 2-D points.
fn sq_dist(a: [f64; 2], b: [f64; 2]) -> f64 {
    let (dx, dy) = (a[0] - b[0], a[1] - b[1]);
    dx * dx + dy * dy
}

/// Index of the centroid nearest `p` (the first on ties).
fn nearest(centroids: &[[f64; 2]; 3], p: [f64; 2]) -> usize {
    let mut best = (0, sq_dist(centroids[0], p));
    for (k, c) in centroids.iter().enumerate().skip(1) {
        let d = sq_dist(*c, p);
        if d < best.1 {
            best = (k, d);
        }
    }
    best.0
}

/// Convergence threshold on the centroids' move (Euclidean, over all three).
pub const KMEANS_TOLERANCE: f64 = 1e-4;

/// k-means with k = 3 over 2-D points from fixed starting centroids, in the
/// m_k-means form linfa-clustering uses (each old centroid counts as one
/// more member of its cluster, so no cluster ever empties): assign, update,
/// stop when the centroids move less than [`KMEANS_TOLERANCE`] or after
/// `iterations` rounds. Returns the final centroids and each point's cluster.
///
/// Written by hand rather than calling linfa-clustering, whose `KMeans`
/// runs its assignment step on rayon's global pool (its ndarray dependency
/// has the `rayon` feature on, not optional): for the few hundred points of
/// one page, waking and yielding pool threads cost more than the clustering,
/// and a process pinned to one core competed with its own pool. The result
/// is the same arithmetic in the same order; a test checks both agree on
/// real pages.
pub fn kmeans3(
    points: &[[f64; 2]],
    init: [[f64; 2]; 3],
    iterations: u64,
) -> ([[f64; 2]; 3], Vec<usize>) {
    let mut centroids = init;
    let mut members = vec![0usize; points.len()];
    for _ in 0..iterations.max(1) {
        let mut sums = [[0.0f64; 2]; 3];
        let mut counts = [1usize; 3];
        for (m, &p) in members.iter_mut().zip(points) {
            *m = nearest(&centroids, p);
            sums[*m][0] += p[0];
            sums[*m][1] += p[1];
            counts[*m] += 1;
        }
        let mut moved = 0.0;
        let mut next = [[0.0f64; 2]; 3];
        for k in 0..3 {
            for j in 0..2 {
                next[k][j] = (sums[k][j] + centroids[k][j]) / counts[k] as f64;
                let d = centroids[k][j] - next[k][j];
                moved += d * d;
            }
        }
        centroids = next;
        if moved.sqrt() < KMEANS_TOLERANCE {
            break;
        }
    }
    for (m, &p) in members.iter_mut().zip(points) {
        *m = nearest(&centroids, p);
    }
    (centroids, members)
}

/// linfa-clustering's k-means from the same start, tolerance and rounds as
/// [`kmeans3`]; `None` when linfa refuses the data.
fn kmeans3_linfa(
    points: &[[f64; 2]],
    init: [[f64; 2]; 3],
    iterations: u64,
) -> Option<([[f64; 2]; 3], Vec<usize>)> {
    let n = points.len();
    let data = Array2::from_shape_fn((n, 2), |(i, j)| points[i][j]);
    let dataset = DatasetBase::from(data.clone());
    let model = KMeans::params_with_rng(3, Xoshiro256Plus::seed_from_u64(0))
        .init_method(KMeansInit::Precomputed(ndarray::arr2(&init)))
        .n_runs(1)
        .max_n_iterations(iterations)
        .tolerance(KMEANS_TOLERANCE)
        .fit(&dataset)
        .ok()?;
    let c = model.centroids();
    let centroids = [
        [c[[0, 0]], c[[0, 1]]],
        [c[[1, 0]], c[[1, 1]]],
        [c[[2, 0]], c[[2, 1]]],
    ];
    Some((centroids, model.predict(&data).to_vec()))
}

/// 2-D k-means with k = 3 started at the origin, the mean and the farthest
/// point; returns true for points outside the cluster nearest the origin.
fn cluster_away_from_origin(points: &[[f64; 2]], iterations: u64, how: Clustering) -> Vec<bool> {
    // Too few points to cluster: everything with text is content.
    let fallback = || points.iter().map(|p| p[0] > 0.0).collect::<Vec<bool>>();
    let Some(init) = initial_centroids(points) else {
        return fallback();
    };
    let clustered = match how {
        Clustering::Own => Some(kmeans3(points, init, iterations)),
        Clustering::Linfa => kmeans3_linfa(points, init, iterations),
    };
    let Some((centroids, labels)) = clustered else {
        return fallback();
    };
    let origin_cluster = (0..3)
        .map(|k| (k, centroids[k][0].powi(2) + centroids[k][1].powi(2)))
        .filter(|(_, d)| d.is_finite())
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map_or(0, |(k, _)| k);
    labels.iter().map(|&k| k != origin_cluster).collect()
}

/// Raw, smoothed and derivative tag ratios (log scale), the k-means verdict
/// and the distance from the origin.
pub struct CetrFeatures;

const COLUMNS: &[&str] = &[
    "log_ratio",
    "log_smoothed",
    "log_derivative",
    "kmeans_content",
    "distance",
];

impl FeatureFamily for CetrFeatures {
    fn name(&self) -> &'static str {
        "cetr"
    }

    fn columns(&self) -> &'static [&'static str] {
        COLUMNS
    }

    fn compute(&self, page: &PageContext<'_>, mut out: ArrayViewMut2<'_, f32>) {
        let p = profile(page.blocks, page.cetr);
        for i in 0..p.ratio.len() {
            out[[i, 0]] = p.ratio[i].ln_1p();
            out[[i, 1]] = p.smoothed[i].ln_1p();
            out[[i, 2]] = p.derivative[i].ln_1p();
            out[[i, 3]] = p.content[i] as u8 as f32;
            out[[i, 4]] = p.distance[i];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_kmeans_finds_three_groups_and_matches_linfa() {
        let mut points = Vec::new();
        for i in 0..20 {
            let e = i as f64 * 0.001;
            points.push([0.01 + e, 0.02]);
            points.push([0.5 + e, 0.1]);
            points.push([0.9, 0.8 + e]);
        }
        let init = initial_centroids(&points).unwrap();
        let (c, labels) = kmeans3(&points, init, 50);
        // The origin centroid keeps the group near the origin.
        assert_eq!(labels[0], 0);
        assert!(c[0][0] < 0.05);
        assert_ne!(labels[1], labels[2]);
        assert!(labels
            .chunks(3)
            .all(|t| t == [labels[0], labels[1], labels[2]]));
        let (lc, ll) = kmeans3_linfa(&points, init, 50).unwrap();
        assert_eq!(labels, ll);
        assert_eq!(c, lc);
        // Too few or flat points are not clustered.
        assert!(initial_centroids(&points[..2]).is_none());
        assert!(initial_centroids(&[[0.0, 0.0]; 5]).is_none());
    }

    #[test]
    fn smoothing_keeps_constant_and_spreads_a_spike() {
        assert!(gaussian_smooth(&[2.0; 10], 1.0)
            .iter()
            .all(|v| (v - 2.0).abs() < 1e-5));
        let s = gaussian_smooth(&[0.0, 0.0, 0.0, 10.0, 0.0, 0.0, 0.0], 1.0);
        assert!(s[3] < 10.0 && s[2] > 0.0 && s[4] > 0.0);
        assert!((s[2] - s[4]).abs() < 1e-5);
    }

    #[test]
    fn threshold_at_one_standard_deviation() {
        let p = CetrProfile {
            smoothed: vec![1.0, 1.0, 1.0, 1.0, 20.0, 22.0, 1.0, 1.0],
            ..CetrProfile::default()
        };
        // σ ≈ 8.4: only the two high blocks pass.
        assert_eq!(
            threshold_content(&p, 1.0),
            vec![false, false, false, false, true, true, false, false]
        );
        assert!(threshold_content(&CetrProfile::default(), 1.0).is_empty());
    }

    #[test]
    fn derivative_is_jump_to_mean_ahead() {
        let d = derivative(&[1.0, 1.0, 4.0, 4.0], 1);
        assert_eq!(d, vec![0.0, 1.5, 0.0, 0.0]);
    }

    #[test]
    fn kmeans_keeps_dense_text_and_drops_menu() {
        let blocks = crate::features::test_pages::menu_article_menu(15, 6);
        let p = profile(&blocks, &CetrConfig::default());
        // Smoothing blurs the borders (CETR's known weakness), so the menu
        // items right next to the article may join it; the rest may not.
        let n = blocks.blocks.len();
        for (i, (b, c)) in blocks.blocks.iter().zip(&p.content).enumerate() {
            if b.text
                .starts_with(crate::features::test_pages::ARTICLE_START)
            {
                assert!(*c, "article paragraph kept");
            } else if i < 10 || i >= n - 10 {
                assert!(!*c, "menu item {:?} dropped", b.text);
            }
        }
    }
}
