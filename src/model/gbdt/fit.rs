//! Training: every feature binned into `max_bins` (at most 256) quantile
//! bins, then trees grown on gradient histograms (the smaller child's
//! built, the larger's the parent's minus it), sequential and seeded.
//! linfa's `Fit` for [`GbdtConfig`], and [`boost_from`] to carry on from
//! another ensemble's margins.

use linfa::dataset::{AsTargets, DatasetBase};
use linfa::traits::Fit;
use ndarray::{Array2, ArrayView1};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::{sigmoid, Gbdt, Tree, TreeNode, LEAF};
use crate::config::GbdtConfig;
use crate::error::{Error, Result, TrainingError};
use crate::par::prelude::*;

impl<T: AsTargets<Elem = bool, Ix = ndarray::Ix1>> Fit<Array2<f32>, T, Error> for GbdtConfig {
    type Object = Gbdt;

    fn fit(&self, dataset: &DatasetBase<Array2<f32>, T>) -> Result<Gbdt> {
        self.check()?;
        let x = &dataset.records;
        let y = dataset.targets.as_targets();
        let w: Vec<f32> = match dataset.weights() {
            Some(w) if w.len() == x.nrows() => w.to_vec(),
            _ => vec![1.0; x.nrows()],
        };
        fit_gbdt(self, x, y, &w, None)
    }
}

/// Fits `cfg.n_trees` more trees on rows whose current log-odds are
/// `init` (one per row, e.g. another ensemble's [`Gbdt::margin_row`]):
/// gradient boosting carried on from where that ensemble stopped. The
/// result has base score 0, so its trees can be appended to the ensemble
/// that gave `init`. Unlike a fit from scratch, the labels may all be of
/// one class (a page labelled all chrome still corrects the margins).
pub fn boost_from(
    cfg: &GbdtConfig,
    x: &Array2<f32>,
    y: ArrayView1<'_, bool>,
    w: &[f32],
    init: &[f32],
) -> Result<Gbdt> {
    cfg.check()?;
    if init.len() != x.nrows() || w.len() != x.nrows() || y.len() != x.nrows() {
        return Err(TrainingError::Other(format!(
            "{} rows but {} labels, {} weights and {} starting margins",
            x.nrows(),
            y.len(),
            w.len(),
            init.len()
        ))
        .into());
    }
    if let Some(i) = init.iter().position(|m| !m.is_finite()) {
        return Err(
            TrainingError::Other(format!("starting margin of row {i} is not finite")).into(),
        );
    }
    fit_gbdt(cfg, x, y, w, Some(init))
}

/// Quantile cut points of one feature: at most `max_bins - 1` thresholds.
fn cut_points(values: &mut [f32], max_bins: usize) -> Vec<f32> {
    values.sort_by(f32::total_cmp);
    let mut distinct: Vec<f32> = Vec::new();
    for &v in values.iter() {
        if distinct.last() != Some(&v) {
            distinct.push(v);
        }
    }
    if distinct.len() <= max_bins {
        // Few distinct values: cut between each pair.
        return distinct
            .windows(2)
            .map(|w| w[0] + (w[1] - w[0]) / 2.0)
            .filter(|c| c.is_finite())
            .collect();
    }
    let n = values.len();
    let mut cuts = Vec::with_capacity(max_bins);
    for q in 1..max_bins {
        let v = values[q * n / max_bins];
        if cuts.last().is_none_or(|&c| v > c) && v < distinct[distinct.len() - 1] {
            cuts.push(v);
        }
    }
    cuts
}

/// Rows per parallel histogram chunk.
const HIST_CHUNK: usize = 32 * 1024;

struct Binned {
    bins: Vec<u8>,
    n_features: usize,
    cuts: Vec<Vec<f32>>,
}

fn bin_matrix(x: &Array2<f32>, max_bins: usize) -> Binned {
    let (n, d) = x.dim();
    // Quantiles from at most 100,000 rows, taken at a fixed stride.
    let stride = (n / 100_000).max(1);
    let cuts: Vec<Vec<f32>> = (0..d)
        .map(|f| {
            let mut col: Vec<f32> = (0..n).step_by(stride).map(|r| x[[r, f]]).collect();
            cut_points(&mut col, max_bins)
        })
        .collect();
    let mut bins = vec![0u8; n * d];
    for r in 0..n {
        for f in 0..d {
            let c = &cuts[f];
            bins[r * d + f] = c.partition_point(|&t| t < x[[r, f]]) as u8;
        }
    }
    Binned {
        bins,
        n_features: d,
        cuts,
    }
}

#[derive(Clone, Copy, Default)]
struct GH {
    g: f64,
    h: f64,
}

/// A grown tree, the split bin of each node, and each leaf's value with
/// the sampled rows that reached it.
type GrownTree = (Tree, Vec<u8>, Vec<(f32, Vec<u32>)>);

struct Split {
    feature: usize,
    bin: usize,
    gain: f64,
}

struct Grow<'a> {
    cfg: &'a GbdtConfig,
    binned: &'a Binned,
    grad: Vec<f32>,
    hess: Vec<f32>,
    /// Start of each feature's bins in a histogram (length d + 1): a
    /// binary feature takes two slots, so histograms stay small enough for L1.
    offsets: Vec<usize>,
}

impl Grow<'_> {
    /// The gradient histogram of `rows` over the features `feats` (the
    /// other features' bins stay zero: a tree never splits on them).
    fn histogram(&self, rows: &[u32], feats: &[usize]) -> Vec<GH> {
        if rows.len() < 2 * HIST_CHUNK {
            return self.histogram_serial(rows, feats);
        }
        // Fixed chunk boundaries and an in-order sum keep the result the same
        // whatever the number of threads.
        let parts: Vec<Vec<GH>> = rows
            .par_chunks(HIST_CHUNK)
            .map(|c| self.histogram_serial(c, feats))
            .collect();
        let mut iter = parts.into_iter();
        let mut hist = iter.next().unwrap_or_default();
        for p in iter {
            for (a, b) in hist.iter_mut().zip(p) {
                a.g += b.g;
                a.h += b.h;
            }
        }
        hist
    }

    fn histogram_serial(&self, rows: &[u32], feats: &[usize]) -> Vec<GH> {
        let d = self.binned.n_features;
        let mut hist = vec![GH::default(); self.offsets[d]];
        if feats.len() == d {
            let offsets = &self.offsets[..d];
            for &r in rows {
                let r = r as usize;
                let (g, h) = (self.grad[r] as f64, self.hess[r] as f64);
                let row = &self.binned.bins[r * d..(r + 1) * d];
                for (&b, &off) in row.iter().zip(offsets) {
                    let e = &mut hist[off + b as usize];
                    e.g += g;
                    e.h += h;
                }
            }
            return hist;
        }
        let offsets: Vec<usize> = feats.iter().map(|&f| self.offsets[f]).collect();
        for &r in rows {
            let r = r as usize;
            let (g, h) = (self.grad[r] as f64, self.hess[r] as f64);
            let row = &self.binned.bins[r * d..(r + 1) * d];
            for (&f, &off) in feats.iter().zip(&offsets) {
                let e = &mut hist[off + row[f] as usize];
                e.g += g;
                e.h += h;
            }
        }
        hist
    }

    fn best_split(&self, hist: &[GH], allowed: &[bool]) -> Option<Split> {
        let lambda = self.cfg.lambda as f64;
        let mcw = self.cfg.min_child_weight as f64;
        // Every row falls in one bin of each feature the tree sees: the
        // first such feature's bins sum to the node's totals.
        let f0 = allowed.iter().position(|&a| a)?;
        let total =
            hist[self.offsets[f0]..self.offsets[f0 + 1]]
                .iter()
                .fold(GH::default(), |a, e| GH {
                    g: a.g + e.g,
                    h: a.h + e.h,
                });
        let parent = total.g * total.g / (total.h + lambda);
        let mut best: Option<Split> = None;
        for f in 0..self.binned.n_features {
            if !allowed[f] {
                continue;
            }
            let n_cuts = self.binned.cuts[f].len();
            let h = &hist[self.offsets[f]..self.offsets[f + 1]];
            let mut left = GH::default();
            for (b, bin) in h.iter().enumerate().take(n_cuts) {
                left.g += bin.g;
                left.h += bin.h;
                let right = GH {
                    g: total.g - left.g,
                    h: total.h - left.h,
                };
                if left.h < mcw || right.h < mcw {
                    continue;
                }
                let gain = left.g * left.g / (left.h + lambda)
                    + right.g * right.g / (right.h + lambda)
                    - parent;
                if gain > 1e-9 && best.as_ref().is_none_or(|s| gain > s.gain) {
                    best = Some(Split {
                        feature: f,
                        bin: b,
                        gain,
                    });
                }
            }
        }
        best
    }

    fn leaf_value(&self, hist: &[GH], f0: usize) -> f32 {
        let (g, h) = hist[self.offsets[f0]..self.offsets[f0 + 1]]
            .iter()
            .fold((0.0, 0.0), |a, e| (a.0 + e.g, a.1 + e.h));
        (-g / (h + self.cfg.lambda as f64) * self.cfg.learning_rate as f64) as f32
    }

    /// Grows one tree over `rows`; returns it with the split bin of each
    /// node (for fast updates on binned data) and each leaf's value and rows and adds gains to `importance`.
    fn tree(&self, rows: Vec<u32>, allowed: &[bool], importance: &mut [f32]) -> GrownTree {
        let d = self.binned.n_features;
        let feats: Vec<usize> = (0..d).filter(|&f| allowed[f]).collect();
        let mut nodes = vec![TreeNode {
            feature: LEAF,
            threshold: 0.0,
            left: 0,
            right: 0,
            value: 0.0,
        }];
        let mut split_bins = vec![0u8];
        // (node index, rows, histogram, depth)
        let root_hist = self.histogram(&rows, &feats);
        let mut queue = vec![(0usize, rows, root_hist, 0usize)];
        let mut leaves = Vec::new();
        while let Some((idx, rows, hist, depth)) = queue.pop() {
            let split = if depth < self.cfg.max_depth && rows.len() >= 2 {
                self.best_split(&hist, allowed)
            } else {
                None
            };
            let Some(split) = split else {
                let v = self.leaf_value(&hist, feats[0]);
                nodes[idx].value = v;
                leaves.push((v, rows));
                continue;
            };
            importance[split.feature] += split.gain as f32;
            let (mut left, mut right) = (Vec::new(), Vec::new());
            for r in rows {
                if (self.binned.bins[r as usize * d + split.feature] as usize) <= split.bin {
                    left.push(r);
                } else {
                    right.push(r);
                }
            }
            let (small_is_left, small) = if left.len() <= right.len() {
                (true, &left)
            } else {
                (false, &right)
            };
            let small_hist = self.histogram(small, &feats);
            let large_hist: Vec<GH> = hist
                .iter()
                .zip(&small_hist)
                .map(|(p, s)| GH {
                    g: p.g - s.g,
                    h: p.h - s.h,
                })
                .collect();
            let (lh, rh) = if small_is_left {
                (small_hist, large_hist)
            } else {
                (large_hist, small_hist)
            };
            let li = nodes.len();
            nodes.push(TreeNode {
                feature: LEAF,
                threshold: 0.0,
                left: 0,
                right: 0,
                value: 0.0,
            });
            nodes.push(nodes[li]);
            split_bins.extend([0, 0]);
            nodes[idx] = TreeNode {
                feature: split.feature as u32,
                threshold: self.binned.cuts[split.feature][split.bin],
                left: li as u32,
                right: li as u32 + 1,
                value: 0.0,
            };
            split_bins[idx] = split.bin as u8;
            queue.push((li + 1, right, rh, depth + 1));
            queue.push((li, left, lh, depth + 1));
        }
        (Tree { nodes }, split_bins, leaves)
    }
}

/// Fits the ensemble; with `init`, boosting starts from those margins
/// (base score 0) instead of the labels' prior log-odds.
fn fit_gbdt(
    cfg: &GbdtConfig,
    x: &Array2<f32>,
    y: ArrayView1<'_, bool>,
    w: &[f32],
    init: Option<&[f32]>,
) -> Result<Gbdt> {
    let (n, d) = x.dim();
    if n == 0 || d == 0 {
        return Err(TrainingError::NoRows.into());
    }
    if d > u32::MAX as usize - 1 {
        return Err(TrainingError::Other("too many features".into()).into());
    }
    let (wpos, wall) = y.iter().zip(w).fold((0f64, 0f64), |a, (&l, &wt)| {
        (a.0 + if l { wt as f64 } else { 0.0 }, a.1 + wt as f64)
    });
    if init.is_none() && (wpos <= 0.0 || wpos >= wall) {
        return Err(TrainingError::OneClass.into());
    }
    if wall <= 0.0 {
        return Err(TrainingError::NoWeight.into());
    }
    let base_score = match init {
        Some(_) => 0.0,
        None => {
            let p0 = wpos / wall;
            (p0 / (1.0 - p0)).ln() as f32
        }
    };
    let binned = bin_matrix(x, cfg.max_bins);
    let mut offsets = vec![0usize];
    for c in &binned.cuts {
        offsets.push(offsets.last().copied().unwrap_or(0) + c.len() + 1);
    }
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(cfg.seed);
    let mut score = match init {
        Some(m) => m.to_vec(),
        None => vec![base_score; n],
    };
    let mut grow = Grow {
        cfg,
        binned: &binned,
        grad: vec![0.0; n],
        hess: vec![0.0; n],
        offsets,
    };
    let mut trees = Vec::with_capacity(cfg.n_trees);
    let mut importance = vec![0f32; d];
    let n_allowed = ((d as f32 * cfg.colsample).ceil() as usize).clamp(1, d);
    let mut in_sample = vec![false; n];
    for _ in 0..cfg.n_trees {
        let rows: Vec<u32> = if cfg.subsample < 1.0 {
            (0..n as u32)
                .filter(|_| rng.gen::<f32>() < cfg.subsample)
                .collect()
        } else {
            (0..n as u32).collect()
        };
        // Gradients are needed only where this tree looks.
        for &r in &rows {
            let i = r as usize;
            let p = sigmoid(score[i]);
            let t = if y[i] { 1.0 } else { 0.0 };
            grow.grad[i] = w[i] * (p - t);
            grow.hess[i] = w[i] * (p * (1.0 - p)).max(1e-6);
        }
        let mut allowed = vec![n_allowed == d; d];
        if n_allowed < d {
            // Partial Fisher-Yates: the first n_allowed of a seeded shuffle.
            let mut idx: Vec<usize> = (0..d).collect();
            for k in 0..n_allowed {
                let j = rng.gen_range(k..d);
                idx.swap(k, j);
                allowed[idx[k]] = true;
            }
        }
        let sampled = rows.clone();
        let (tree, split_bins, leaf_rows) = grow.tree(rows, &allowed, &mut importance);
        // Sampled rows already know their leaf; the others walk the tree.
        for (value, rows) in leaf_rows {
            for r in rows {
                score[r as usize] += value;
            }
        }
        for &r in &sampled {
            in_sample[r as usize] = true;
        }
        for (i, s) in score.iter_mut().enumerate() {
            if in_sample[i] {
                continue;
            }
            let row = &binned.bins[i * d..(i + 1) * d];
            let mut k = 0usize;
            loop {
                let nd = &tree.nodes[k];
                if nd.feature == LEAF {
                    *s += nd.value;
                    break;
                }
                k = if row[nd.feature as usize] <= split_bins[k] {
                    nd.left as usize
                } else {
                    nd.right as usize
                };
            }
        }
        for &r in &sampled {
            in_sample[r as usize] = false;
        }
        trees.push(tree);
    }
    Ok(Gbdt {
        n_features: d,
        base_score,
        trees,
        importance,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::gbdt::tests::toy;
    use crate::model::GbdtParams;
    use linfa::traits::Predict;
    use linfa::Dataset;
    use ndarray::Array1;

    #[test]
    fn learns_a_simple_boundary() {
        let train = toy(4000, 1);
        let test = toy(1000, 2);
        let model = GbdtParams::new().n_trees(60).fit(&train).unwrap();
        let p: Array1<f32> = model.predict(&test.records);
        let acc = p
            .iter()
            .zip(test.targets.iter())
            .filter(|(p, &t)| (**p > 0.5) == t)
            .count() as f32
            / 1000.0;
        assert!(acc > 0.95, "accuracy {acc}");
        assert!(
            model.importance[2] < model.importance[0],
            "noise feature matters least"
        );
        model.validate().unwrap();
    }

    #[test]
    fn boosting_from_margins_corrects_a_model_and_appends_cleanly() {
        // A model of one boundary, then data where the boundary moved.
        let base = GbdtParams::new().n_trees(30).fit(&toy(2000, 1)).unwrap();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
        let x = Array2::from_shape_fn((1500, 3), |_| rng.gen::<f32>());
        let y = Array1::from_iter(x.rows().into_iter().map(|r| r[0] > 0.7));
        let rows: Vec<Vec<f32>> = x.rows().into_iter().map(|r| r.to_vec()).collect();
        let init: Vec<f32> = rows.iter().map(|r| base.margin_row(r)).collect();
        let cfg = GbdtConfig {
            n_trees: 40,
            max_depth: 3,
            ..GbdtConfig::default()
        };
        let w = vec![1.0; rows.len()];
        let more = boost_from(&cfg, &x, y.view(), &w, &init).unwrap();
        assert_eq!(more.base_score, 0.0);
        let joined = Gbdt {
            trees: base.trees.iter().chain(&more.trees).cloned().collect(),
            ..base.clone()
        };
        let acc = |m: &Gbdt| {
            rows.iter()
                .zip(y.iter())
                .filter(|(r, &t)| (m.predict_row(r) > 0.5) == t)
                .count() as f32
                / rows.len() as f32
        };
        assert!(
            acc(&joined) > acc(&base) + 0.1,
            "{} vs {}",
            acc(&joined),
            acc(&base)
        );
        assert_eq!(joined, {
            let again = boost_from(&cfg, &x, y.view(), &w, &init).unwrap();
            Gbdt {
                trees: base.trees.iter().chain(&again.trees).cloned().collect(),
                ..base.clone()
            }
        });
        // One class is fine from margins; mismatched lengths are not.
        let all = Array1::from_elem(rows.len(), false);
        assert!(boost_from(&cfg, &x, all.view(), &w, &init).is_ok());
        assert!(boost_from(&cfg, &x, y.view(), &w, &init[1..]).is_err());
    }

    #[test]
    fn same_seed_same_model() {
        let data = toy(2000, 3);
        let a = GbdtParams::new().n_trees(20).seed(7).fit(&data).unwrap();
        let b = GbdtParams::new().n_trees(20).seed(7).fit(&data).unwrap();
        assert_eq!(a, b);
        let c = GbdtParams::new().n_trees(20).seed(8).fit(&data).unwrap();
        assert_ne!(a, c);
    }

    #[test]
    fn rejects_one_class_and_bad_params() {
        let x = Array2::<f32>::zeros((10, 2));
        let y = Array1::from_elem(10, true);
        let data = Dataset::new(x, y);
        assert!(matches!(
            GbdtParams::new().fit(&data),
            Err(Error::Training(
                TrainingError::OneClass | TrainingError::NoRows
            ))
        ));
        assert!(matches!(
            GbdtParams::new().n_trees(0).fit(&data),
            Err(Error::Config { .. })
        ));
    }
}
