//! A histogram-binned gradient-boosted tree ensemble (logistic loss), behind
//! linfa's traits.
//!
//! Why our own: linfa-ensemble 0.8's random forest samples features once per
//! tree instead of per split, breaks vote ties through a `HashMap` (two
//! predictions of one model can differ), seeds from the thread RNG and cannot
//! be serialised; linfa-trees 0.8 costs O(rows × features) per node (an
//! unlimited-depth tree on 200,000 × 40 rows takes about five minutes here)
//! and its leaves hold labels, not probabilities. The boosting crates either
//! save only JSON (forust-ml) or are slower (gbdt, smartcore). Binning every
//! feature into at most 256 quantile bins makes a split search a pass over
//! small histograms, and the smaller child's histogram is built while the
//! larger one's is the parent's minus it. Everything is sequential and seeded,
//! so the same data and seed give the same trees, bit for bit.

use linfa::dataset::{AsTargets, DatasetBase};
use linfa::traits::{Fit, PredictInplace};
use linfa::ParamGuard;
use ndarray::{Array1, Array2, ArrayBase, ArrayView1, Data, Ix2};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

pub use crate::config::GbdtConfig;
use crate::error::{Error, Result};
use crate::par::prelude::*;

/// Unchecked parameters in linfa's style: build, then `fit` checks them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GbdtParams(GbdtConfig);

impl GbdtParams {
    /// Default parameters.
    pub fn new() -> Self {
        Self::default()
    }
    /// Sets the number of trees.
    pub fn n_trees(mut self, n: usize) -> Self {
        self.0.n_trees = n;
        self
    }
    /// Sets the maximum depth.
    pub fn max_depth(mut self, d: usize) -> Self {
        self.0.max_depth = d;
        self
    }
    /// Sets the learning rate.
    pub fn learning_rate(mut self, lr: f32) -> Self {
        self.0.learning_rate = lr;
        self
    }
    /// Sets the row subsampling share.
    pub fn subsample(mut self, s: f32) -> Self {
        self.0.subsample = s;
        self
    }
    /// Sets the seed.
    pub fn seed(mut self, seed: u64) -> Self {
        self.0.seed = seed;
        self
    }
}

impl From<GbdtConfig> for GbdtParams {
    fn from(c: GbdtConfig) -> Self {
        GbdtParams(c)
    }
}

impl ParamGuard for GbdtParams {
    type Checked = GbdtConfig;
    type Error = Error;

    fn check_ref(&self) -> Result<&GbdtConfig> {
        self.0.check()?;
        Ok(&self.0)
    }

    fn check(self) -> Result<GbdtConfig> {
        self.0.check()?;
        Ok(self.0)
    }
}

/// Marks a leaf in [`TreeNode::feature`].
pub const LEAF: u32 = u32::MAX;

/// One node of a tree, stored flat: children are indices into the same vector.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TreeNode {
    /// Feature tested, or [`LEAF`].
    pub feature: u32,
    /// Rows with `x[feature] <= threshold` go left.
    pub threshold: f32,
    /// Left child index.
    pub left: u32,
    /// Right child index.
    pub right: u32,
    /// Leaf value (log-odds contribution); 0 for inner nodes.
    pub value: f32,
}

/// A regression tree in flat form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tree {
    /// Nodes; index 0 is the root.
    pub nodes: Vec<TreeNode>,
}

impl Tree {
    #[inline]
    fn eval(&self, row: &[f32]) -> f32 {
        let mut i = 0usize;
        loop {
            let n = &self.nodes[i];
            if n.feature == LEAF {
                return n.value;
            }
            i = if row[n.feature as usize] <= n.threshold {
                n.left as usize
            } else {
                n.right as usize
            };
        }
    }
}

/// A fitted ensemble: base log-odds plus the trees' sum, through a sigmoid.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Gbdt {
    /// Number of features a row must have.
    pub n_features: usize,
    /// Initial log-odds.
    pub base_score: f32,
    /// The trees.
    pub trees: Vec<Tree>,
    /// Total split gain per feature (importance).
    pub importance: Vec<f32>,
}

impl Gbdt {
    /// Probability that a row (a block's features) is content.
    pub fn predict_row(&self, row: &[f32]) -> f32 {
        // Summed from the base score tree by tree, in the same order as
        // `PackedEnsemble`, so both give the same bits.
        let score = self
            .trees
            .iter()
            .fold(self.base_score, |s, t| s + t.eval(row));
        sigmoid(score)
    }

    /// The ensemble's log-odds for a row (the base score plus every tree's
    /// leaf, summed in the same order as [`Gbdt::predict_row`]): where
    /// [`boost_from`] starts when it adds trees to this ensemble.
    pub fn margin_row(&self, row: &[f32]) -> f32 {
        self.trees
            .iter()
            .fold(self.base_score, |s, t| s + t.eval(row))
    }

    /// The mean of `members` in log-odds, as one ensemble: every member's
    /// trees with their leaf values divided by the number of members, the
    /// base scores and importances averaged. Its margin on a row is the
    /// members' mean margin (up to float rounding). Members must read the
    /// same number of features; `None` for none or a mismatch.
    pub fn average(members: &[Gbdt]) -> Option<Gbdt> {
        let first = members.first()?;
        if members.iter().any(|m| m.n_features != first.n_features) {
            return None;
        }
        let k = members.len() as f32;
        let mut importance = vec![0f32; first.importance.len()];
        for m in members {
            for (a, b) in importance.iter_mut().zip(&m.importance) {
                *a += b / k;
            }
        }
        let trees = members
            .iter()
            .flat_map(|m| &m.trees)
            .map(|t| Tree {
                nodes: t
                    .nodes
                    .iter()
                    .map(|n| TreeNode {
                        value: n.value / k,
                        ..*n
                    })
                    .collect(),
            })
            .collect();
        Some(Gbdt {
            n_features: first.n_features,
            base_score: members.iter().map(|m| m.base_score).sum::<f32>() / k,
            trees,
            importance,
        })
    }

    /// Checks that every tree is well formed for `n_features` inputs:
    /// children in range and after their parent (so no cycles), features in
    /// range, finite numbers. Loading a model file calls this.
    pub fn validate(&self) -> std::result::Result<(), String> {
        if !self.base_score.is_finite() {
            return Err("base score is not finite".into());
        }
        if self.importance.len() != self.n_features {
            return Err("importance length differs from the feature count".into());
        }
        for (t, tree) in self.trees.iter().enumerate() {
            if tree.nodes.is_empty() {
                return Err(format!("tree {t} is empty"));
            }
            let n = tree.nodes.len() as u32;
            for (i, node) in tree.nodes.iter().enumerate() {
                if node.feature == LEAF {
                    if !node.value.is_finite() {
                        return Err(format!("tree {t} node {i}: leaf value not finite"));
                    }
                    continue;
                }
                if node.feature as usize >= self.n_features {
                    return Err(format!(
                        "tree {t} node {i}: feature {} out of range",
                        node.feature
                    ));
                }
                if node.left <= i as u32
                    || node.right <= i as u32
                    || node.left >= n
                    || node.right >= n
                {
                    return Err(format!(
                        "tree {t} node {i}: child index out of order or range"
                    ));
                }
                if node.threshold.is_nan() {
                    return Err(format!("tree {t} node {i}: threshold is NaN"));
                }
            }
            check_is_tree(tree).map_err(|e| format!("tree {t}: {e}"))?;
        }
        Ok(())
    }

    /// Bytes this ensemble takes in memory once loaded and packed for
    /// prediction (an upper estimate): its node lists plus the packed
    /// layout of [`PackedEnsemble`], which gives every tree the full
    /// 2^depth slots of the ensemble's depth. A model file's loader bounds
    /// this by the file's size, so that a small file cannot ask for
    /// gigabytes (a million one-leaf trees pack to about 800 bytes each).
    pub fn memory_estimate(&self) -> u64 {
        let nodes: u64 = self.trees.iter().map(|t| t.nodes.len() as u64).sum();
        let trees = self.trees.len() as u64;
        let lists = trees * std::mem::size_of::<Tree>() as u64
            + nodes * std::mem::size_of::<TreeNode>() as u64;
        let depth = self.trees.iter().map(tree_depth).max().unwrap_or(0);
        if depth > MAX_PACKED_DEPTH {
            // Deeper ensembles predict through a copy of the node lists.
            return 2 * lists;
        }
        let slot = (std::mem::size_of::<(u32, f32)>() + std::mem::size_of::<f32>()) as u64;
        let mut packed = trees * (1u64 << depth) * slot;
        if depth <= SMALL_DEPTH {
            packed += trees * std::mem::size_of::<SmallTree>() as u64;
        }
        lists + packed
    }
}

/// Checks that the nodes reached from the root form a tree: no node is
/// reached twice (two parents sharing a child make a graph whose walks
/// double with every shared level) and none is left unreached, and the
/// tree is at most [`MAX_TREE_DEPTH`] deep. Children come after their
/// parent (checked before), so the walk ends.
fn check_is_tree(tree: &Tree) -> std::result::Result<(), String> {
    let mut reached = vec![false; tree.nodes.len()];
    let mut stack = vec![(0usize, 0usize)];
    while let Some((i, depth)) = stack.pop() {
        if std::mem::replace(&mut reached[i], true) {
            return Err(format!("node {i} has more than one parent"));
        }
        if depth > MAX_TREE_DEPTH {
            return Err(format!("deeper than {MAX_TREE_DEPTH} levels"));
        }
        let n = &tree.nodes[i];
        if n.feature != LEAF {
            stack.push((n.left as usize, depth + 1));
            stack.push((n.right as usize, depth + 1));
        }
    }
    match reached.iter().position(|r| !r) {
        Some(i) => Err(format!("node {i} is not reached from the root")),
        None => Ok(()),
    }
}

/// The deepest tree a model file may hold: the deepest that training
/// grows (`ensemble.max_depth` is at most 30).
pub const MAX_TREE_DEPTH: usize = 30;

/// The ensemble re-laid for fast prediction: every tree as a complete binary
/// tree of the ensemble's depth in flat arrays (node i's children are 2i+1
/// and 2i+2), so a prediction is a fixed number of branch-free steps per
/// tree. Leaves above full depth become pass-through nodes that always go
/// left. Built from a [`Gbdt`], never stored; equal to it on every row.
#[derive(Debug, Clone)]
pub struct PackedEnsemble {
    depth: usize,
    base_score: f32,
    /// Per tree: (feature, threshold) of the 2^depth − 1 inner nodes.
    inner: Vec<(u32, f32)>,
    /// Per tree: the 2^depth leaf values.
    leaves: Vec<f32>,
    /// The same trees in fixed-size arrays when the ensemble is at most
    /// [`SMALL_DEPTH`] deep and reads features below [`SMALL_FEATURES`]: every
    /// index is then in range by its type, so the walk has no bounds checks.
    small: Vec<SmallTree>,
    /// Largest feature index read, plus one (0 for an ensemble of leaves).
    n_features: usize,
    fallback: Option<Gbdt>,
}

/// Deepest ensemble evaluated through [`SmallTree`]s.
const SMALL_DEPTH: usize = 6;
/// Features addressable by a [`SmallTree`] (its feature indices are bytes).
const SMALL_FEATURES: usize = 256;

/// One packed tree of depth at most [`SMALL_DEPTH`], padded to full size:
/// 64 inner slots (63 used) and 64 leaves.
#[derive(Debug, Clone)]
struct SmallTree {
    inner: [(u8, f32); 64],
    leaves: [f32; 64],
}

/// Deepest ensemble packed (2^12 leaves a tree); deeper ones predict through
/// the node lists.
const MAX_PACKED_DEPTH: usize = 12;

impl PackedEnsemble {
    /// Packs `model`.
    pub fn new(model: &Gbdt) -> Self {
        let depth = model.trees.iter().map(tree_depth).max().unwrap_or(0);
        if depth > MAX_PACKED_DEPTH {
            return PackedEnsemble {
                depth,
                base_score: model.base_score,
                inner: Vec::new(),
                leaves: Vec::new(),
                small: Vec::new(),
                n_features: 0,
                fallback: Some(model.clone()),
            };
        }
        let (inner, leaves) = pack(model, depth);
        let n_features = model
            .trees
            .iter()
            .flat_map(|t| &t.nodes)
            .filter(|n| n.feature != LEAF)
            .map(|n| n.feature as usize + 1)
            .max()
            .unwrap_or(0);
        let small = if depth <= SMALL_DEPTH && n_features <= SMALL_FEATURES {
            // Packed at the full small depth whatever the ensemble's, so
            // every walk takes the same fixed number of steps.
            let (inner, leaves) = pack(model, SMALL_DEPTH);
            small_trees(&inner, &leaves)
        } else {
            Vec::new()
        };
        PackedEnsemble {
            depth,
            base_score: model.base_score,
            inner,
            leaves,
            small,
            n_features,
            fallback: None,
        }
    }

    /// Probability that a row is content; the same as [`Gbdt::predict_row`].
    pub fn predict_row(&self, row: &[f32]) -> f32 {
        let mut out = [0f32; 1];
        self.predict_rows(&[row], &mut out);
        out[0]
    }

    /// Probabilities of many rows at once. Rows go through each tree in
    /// groups of eight, so the eight independent walks overlap in the CPU
    /// instead of waiting on each other's loads.
    pub fn predict_rows(&self, rows: &[&[f32]], out: &mut [f32]) {
        assert_eq!(rows.len(), out.len(), "one output per row");
        if let Some(m) = &self.fallback {
            for (r, o) in rows.iter().zip(out.iter_mut()) {
                *o = m.predict_row(r);
            }
            return;
        }
        const LANES: usize = 8;
        if !self.small.is_empty() && rows.iter().all(|r| r.len() >= self.n_features) {
            self.predict_small::<LANES>(rows, out);
            return;
        }
        let n_inner = (1usize << self.depth) - 1;
        for (group, outs) in rows.chunks(LANES).zip(out.chunks_mut(LANES)) {
            let mut score = [self.base_score; LANES];
            for (tin, tleaf) in self
                .inner
                .chunks_exact(n_inner.max(1))
                .zip(self.leaves.chunks_exact(n_inner + 1))
            {
                let mut idx = [0usize; LANES];
                for _ in 0..self.depth {
                    for (i, row) in idx.iter_mut().zip(group) {
                        let (f, t) = tin[*i];
                        *i = 2 * *i + 1 + (row[f as usize] > t) as usize;
                    }
                }
                for (s, i) in score.iter_mut().zip(&idx).take(group.len()) {
                    *s += tleaf[i - n_inner];
                }
            }
            for (o, s) in outs.iter_mut().zip(score) {
                *o = sigmoid(s);
            }
        }
    }
}

impl PackedEnsemble {
    /// [`PackedEnsemble::predict_rows`] through the [`SmallTree`]s: each
    /// group's rows are copied into fixed arrays of [`SMALL_FEATURES`]
    /// values, so byte feature indices and masked node indices need no
    /// bounds checks, and every group walks all `LANES` lanes through
    /// [`SMALL_DEPTH`] levels (fixed trip counts the compiler unrolls; the
    /// lanes past a short last group hold stale rows whose scores are
    /// dropped). Sums the same leaves in the same order.
    fn predict_small<const LANES: usize>(&self, rows: &[&[f32]], out: &mut [f32]) {
        let n = self.n_features;
        let mut buf = vec![[0f32; SMALL_FEATURES]; LANES];
        let lanes: &mut [[f32; SMALL_FEATURES]; LANES] =
            (&mut buf[..]).try_into().expect("LANES rows");
        for (group, outs) in rows.chunks(LANES).zip(out.chunks_mut(LANES)) {
            for (b, r) in lanes.iter_mut().zip(group) {
                b[..n].copy_from_slice(&r[..n]);
            }
            let mut score = [self.base_score; LANES];
            for tree in &self.small {
                let mut idx = [0usize; LANES];
                for _ in 0..SMALL_DEPTH {
                    for l in 0..LANES {
                        let (f, t) = tree.inner[idx[l] & 63];
                        idx[l] = 2 * idx[l] + 1 + (lanes[l][f as usize] > t) as usize;
                    }
                }
                for l in 0..LANES {
                    score[l] += tree.leaves[(idx[l] - 63) & 63];
                }
            }
            for (o, s) in outs.iter_mut().zip(score) {
                *o = sigmoid(s);
            }
        }
    }
}

/// Every tree of `model` as a complete binary tree of `depth` (at least the
/// deepest tree's): the (feature, threshold) of its 2^depth − 1 inner nodes
/// and its 2^depth leaf values, trees one after another. A leaf above full
/// depth becomes pass-through nodes (threshold +∞: always left) down to the
/// leftmost leaf slot below it.
fn pack(model: &Gbdt, depth: usize) -> (Vec<(u32, f32)>, Vec<f32>) {
    let n_inner = (1usize << depth) - 1;
    let mut inner = Vec::with_capacity(n_inner * model.trees.len());
    let mut leaves = Vec::with_capacity((n_inner + 1) * model.trees.len());
    for t in &model.trees {
        let mut tin = vec![(0u32, f32::INFINITY); n_inner];
        let mut tleaf = vec![0f32; n_inner + 1];
        // (original node, packed position)
        let mut stack = vec![(0usize, 0usize)];
        while let Some((node, pos)) = stack.pop() {
            let nd = &t.nodes[node];
            if pos >= n_inner {
                tleaf[pos - n_inner] = nd.value;
                continue;
            }
            if nd.feature == LEAF {
                // Pass-through to the left down to the leaf level.
                let mut p = pos;
                while p < n_inner {
                    p = 2 * p + 1;
                }
                tleaf[p - n_inner] = nd.value;
                continue;
            }
            tin[pos] = (nd.feature, nd.threshold);
            stack.push((nd.left as usize, 2 * pos + 1));
            stack.push((nd.right as usize, 2 * pos + 2));
        }
        inner.extend(tin);
        leaves.extend(tleaf);
    }
    (inner, leaves)
}

/// The flat trees of an ensemble packed at [`SMALL_DEPTH`] as
/// [`SmallTree`]s; the padding slot is never reached.
fn small_trees(inner: &[(u32, f32)], leaves: &[f32]) -> Vec<SmallTree> {
    let n_inner = (1usize << SMALL_DEPTH) - 1;
    inner
        .chunks_exact(n_inner.max(1))
        .zip(leaves.chunks_exact(n_inner + 1))
        .map(|(tin, tleaf)| {
            let mut t = SmallTree {
                inner: [(0u8, f32::INFINITY); 64],
                leaves: [0f32; 64],
            };
            for (slot, &(f, th)) in t.inner.iter_mut().zip(tin).take(n_inner) {
                // Features fit a byte (checked by the caller).
                *slot = (f as u8, th);
            }
            t.leaves[..tleaf.len()].copy_from_slice(tleaf);
            t
        })
        .collect()
}

/// Depth of a tree (a lone leaf has depth 0).
fn tree_depth(t: &Tree) -> usize {
    let mut max = 0;
    let mut stack = vec![(0usize, 0usize)];
    while let Some((i, d)) = stack.pop() {
        let n = &t.nodes[i];
        if n.feature == LEAF {
            max = max.max(d);
        } else {
            stack.push((n.left as usize, d + 1));
            stack.push((n.right as usize, d + 1));
        }
    }
    max
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

impl<D: Data<Elem = f32>> PredictInplace<ArrayBase<D, Ix2>, Array1<f32>> for Gbdt {
    fn predict_inplace(&self, x: &ArrayBase<D, Ix2>, y: &mut Array1<f32>) {
        assert_eq!(x.nrows(), y.len(), "one target per row");
        for (row, out) in x.rows().into_iter().zip(y.iter_mut()) {
            *out = match row.as_slice() {
                Some(s) => self.predict_row(s),
                None => self.predict_row(&row.to_vec()),
            };
        }
    }

    fn default_target(&self, x: &ArrayBase<D, Ix2>) -> Array1<f32> {
        Array1::zeros(x.nrows())
    }
}

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
        return Err(Error::Training(format!(
            "{} rows but {} labels, {} weights and {} starting margins",
            x.nrows(),
            y.len(),
            w.len(),
            init.len()
        )));
    }
    if let Some(i) = init.iter().position(|m| !m.is_finite()) {
        return Err(Error::Training(format!(
            "starting margin of row {i} is not finite"
        )));
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
        return Err(Error::Training("no rows or no features to fit".into()));
    }
    if d > u32::MAX as usize - 1 {
        return Err(Error::Training("too many features".into()));
    }
    let (wpos, wall) = y.iter().zip(w).fold((0f64, 0f64), |a, (&l, &wt)| {
        (a.0 + if l { wt as f64 } else { 0.0 }, a.1 + wt as f64)
    });
    if init.is_none() && (wpos <= 0.0 || wpos >= wall) {
        return Err(Error::Training("the labels have only one class".into()));
    }
    if wall <= 0.0 {
        return Err(Error::Training("every row weighs 0".into()));
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
    use linfa::traits::Predict;
    use linfa::Dataset;

    /// A noisy two-feature problem: content when x0 + x1 > 1.
    fn toy(n: usize, seed: u64) -> Dataset<f32, bool, ndarray::Ix1> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let x = Array2::from_shape_fn((n, 3), |_| rng.gen::<f32>());
        let y = Array1::from_iter(x.rows().into_iter().map(|r| r[0] + r[1] > 1.0));
        Dataset::new(x, y)
    }

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
    fn an_average_predicts_the_members_mean_log_odds() {
        let train = toy(2000, 1);
        let a = GbdtParams::new().n_trees(20).seed(1).fit(&train).unwrap();
        let b = GbdtParams::new().n_trees(30).seed(2).fit(&train).unwrap();
        let bag = Gbdt::average(&[a.clone(), b.clone()]).unwrap();
        assert_eq!(bag.trees.len(), 50);
        bag.validate().unwrap();
        for row in toy(200, 3).records.rows() {
            let row = row.to_slice().unwrap();
            let mean = (a.margin_row(row) + b.margin_row(row)) / 2.0;
            assert!((bag.margin_row(row) - mean).abs() < 1e-4);
            let packed = PackedEnsemble::new(&bag).predict_row(row);
            assert!((packed - bag.predict_row(row)).abs() < 1e-6);
        }
        let other = GbdtParams::new().n_trees(5).fit(&toy(100, 4)).unwrap();
        let narrow = Gbdt {
            n_features: 2,
            ..other
        };
        assert!(Gbdt::average(&[a, narrow]).is_none());
        assert!(Gbdt::average(&[]).is_none());
    }

    #[test]
    fn packed_prediction_equals_the_node_walk() {
        // Depth 5 goes through the small trees, depth 8 through the flat arrays.
        for depth in [5, 8] {
            packed_equals_walk(depth);
        }
    }

    fn packed_equals_walk(depth: usize) {
        let data = toy(3000, 5);
        let model = GbdtParams::new()
            .n_trees(30)
            .max_depth(depth)
            .fit(&data)
            .unwrap();
        let packed = PackedEnsemble::new(&model);
        let probe = toy(501, 6);
        let rows: Vec<Vec<f32>> = probe
            .records
            .rows()
            .into_iter()
            .map(|r| r.to_vec())
            .collect();
        let refs: Vec<&[f32]> = rows.iter().map(|r| r.as_slice()).collect();
        let mut batch = vec![0f32; rows.len()];
        packed.predict_rows(&refs, &mut batch);
        for (r, b) in rows.iter().zip(&batch) {
            assert_eq!(packed.predict_row(r), model.predict_row(r));
            assert_eq!(*b, model.predict_row(r));
        }
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
            Err(Error::Training(_))
        ));
        assert!(matches!(
            GbdtParams::new().n_trees(0).fit(&data),
            Err(Error::Config { .. })
        ));
    }

    #[test]
    fn validate_catches_cycles_and_bad_features() {
        let data = toy(500, 4);
        let mut m = GbdtParams::new().n_trees(3).fit(&data).unwrap();
        m.trees[0].nodes[0].left = 0;
        assert!(m.validate().is_err());
        let mut m = GbdtParams::new().n_trees(3).fit(&data).unwrap();
        m.trees[0].nodes[0].feature = 99;
        assert!(m.validate().is_err());
    }
}
