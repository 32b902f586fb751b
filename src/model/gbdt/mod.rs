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
//!
//! Here the model ([`Gbdt`], its trees and their validation); `params.rs`
//! holds [`GbdtParams`], `fit.rs` the training ([`boost_from`] and linfa's
//! `Fit`), `packed.rs` the fast evaluator ([`PackedEnsemble`]).

use linfa::traits::PredictInplace;
use ndarray::{Array1, ArrayBase, Data, Ix2};
use serde::{Deserialize, Serialize};

mod fit;
mod packed;
mod params;
#[cfg(target_arch = "x86_64")]
mod wide;
mod wire;

pub use crate::config::GbdtConfig;
pub use fit::boost_from;
pub use packed::PackedEnsemble;
pub use params::GbdtParams;

use packed::{SmallTree, MAX_PACKED_DEPTH, SMALL_DEPTH};

/// Marks a leaf in [`TreeNode::feature`].
pub const LEAF: u32 = u32::MAX;

/// One node of a tree, stored flat: children are indices into the same vector.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TreeNode {
    /// Feature tested, or [`LEAF`].
    pub feature: u32,
    /// Rows with `x[feature] > threshold` go right, the others left (NaN
    /// among them: features are finite, but every evaluator agrees on it).
    pub threshold: f32,
    /// Left child index.
    pub left: u32,
    /// Right child index.
    pub right: u32,
    /// Leaf value (log-odds contribution); 0 for inner nodes.
    pub value: f32,
}

/// A regression tree in flat form (written and read by `wire.rs`).
#[derive(Debug, Clone, PartialEq)]
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
            i = if row[n.feature as usize] > n.threshold {
                n.right as usize
            } else {
                n.left as usize
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
    /// features in range, finite numbers, and a tree's shape
    /// (`tree_shape`: children in range and after their parent, so no
    /// cycles; one parent each; at most [`MAX_TREE_DEPTH`] deep). Loading
    /// a model file calls this.
    pub fn validate(&self) -> std::result::Result<(), String> {
        if !self.base_score.is_finite() {
            return Err("base score is not finite".into());
        }
        if self.importance.len() != self.n_features {
            return Err("importance length differs from the feature count".into());
        }
        // One buffer for every tree's node depths: a model holds thousands
        // of trees, and a buffer each cost more than the checks.
        let mut depth_of = Vec::new();
        for (t, tree) in self.trees.iter().enumerate() {
            if tree.nodes.is_empty() {
                return Err(format!("tree {t} is empty"));
            }
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
                if node.threshold.is_nan() {
                    return Err(format!("tree {t} node {i}: threshold is NaN"));
                }
            }
            tree_shape(tree, &mut depth_of).map_err(|e| format!("tree {t}: {e}"))?;
        }
        Ok(())
    }

    /// Bytes this ensemble takes in memory once loaded and packed for
    /// prediction (an upper estimate): its node lists plus the packed
    /// layout of [`PackedEnsemble`], which gives every tree the full
    /// 2^depth slots of the ensemble's depth (and, for trees of depth 6
    /// or less on x86-64, the AVX-512 layout as well). A model file's
    /// loader bounds this by the file's size, so that a small file cannot
    /// ask for gigabytes (a million one-leaf trees pack to about 800 bytes
    /// each, 1,050 with the AVX-512 layout).
    pub fn memory_estimate(&self) -> u64 {
        let nodes: u64 = self.trees.iter().map(|t| t.nodes.len() as u64).sum();
        let trees = self.trees.len() as u64;
        let lists = trees * std::mem::size_of::<Tree>() as u64
            + nodes * std::mem::size_of::<TreeNode>() as u64;
        let depth = self.depth();
        if depth > MAX_PACKED_DEPTH {
            // Deeper ensembles predict through a copy of the node lists.
            return 2 * lists;
        }
        let slot = (std::mem::size_of::<(u32, f32)>() + std::mem::size_of::<f32>()) as u64;
        let mut packed = trees * (1u64 << depth) * slot;
        if depth <= SMALL_DEPTH {
            packed += trees * std::mem::size_of::<SmallTree>() as u64;
            // The AVX-512 layout too, on processors that may build it.
            #[cfg(target_arch = "x86_64")]
            {
                packed += wide::bytes(trees, nodes);
            }
        }
        lists + packed
    }

    /// The depth of the deepest tree; a malformed tree (which
    /// [`Gbdt::validate`] refuses) counts as deeper than any packed one.
    pub(super) fn depth(&self) -> usize {
        let mut depth_of = Vec::new();
        self.trees
            .iter()
            .map(|t| tree_shape(t, &mut depth_of).unwrap_or(MAX_TREE_DEPTH + 1))
            .max()
            .unwrap_or(0)
    }
}

/// Checks that the nodes reached from the root form a tree and returns its
/// depth (a lone leaf has depth 0): no node is reached twice (two parents
/// sharing a child make a graph whose walks double with every shared
/// level), none is left unreached, children are in range and come after
/// their parent, and the tree is at most [`MAX_TREE_DEPTH`] deep. Because
/// children come after their parent, one pass in index order meets every
/// node after its parent: `depth_of` (a buffer reused across trees) holds
/// the depth of each node reached so far.
fn tree_shape(tree: &Tree, depth_of: &mut Vec<u8>) -> std::result::Result<usize, String> {
    const UNREACHED: u8 = u8::MAX;
    depth_of.clear();
    depth_of.resize(tree.nodes.len(), UNREACHED);
    let Some(root) = depth_of.first_mut() else {
        return Err("no nodes".into());
    };
    *root = 0;
    let mut max = 0;
    for (i, n) in tree.nodes.iter().enumerate() {
        let depth = depth_of[i];
        if depth == UNREACHED {
            return Err(format!("node {i} is not reached from the root"));
        }
        max = max.max(depth as usize);
        if n.feature == LEAF {
            continue;
        }
        if depth as usize >= MAX_TREE_DEPTH {
            return Err(format!("deeper than {MAX_TREE_DEPTH} levels"));
        }
        for child in [n.left, n.right] {
            match depth_of.get_mut(child as usize) {
                Some(d) if child as usize > i && *d == UNREACHED => *d = depth + 1,
                Some(_) if child as usize > i => {
                    return Err(format!("node {child} has more than one parent"))
                }
                _ => return Err(format!("node {i}: child index out of order or range")),
            }
        }
    }
    Ok(max)
}

/// The deepest tree a model file may hold: the deepest that training
/// grows (`ensemble.max_depth` is at most 30).
pub const MAX_TREE_DEPTH: usize = 30;

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

#[cfg(test)]
mod tests {
    use super::*;
    use linfa::traits::Fit;
    use linfa::Dataset;
    use ndarray::Array2;
    use rand::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    /// A noisy two-feature problem: content when x0 + x1 > 1.
    pub(super) fn toy(n: usize, seed: u64) -> Dataset<f32, bool, ndarray::Ix1> {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let x = Array2::from_shape_fn((n, 3), |_| rng.gen::<f32>());
        let y = Array1::from_iter(x.rows().into_iter().map(|r| r[0] + r[1] > 1.0));
        Dataset::new(x, y)
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
    fn validate_catches_cycles_and_bad_features() {
        let data = toy(500, 4);
        let mut m = GbdtParams::new().n_trees(3).fit(&data).unwrap();
        m.trees[0].nodes[0].left = 0;
        assert!(m.validate().is_err());
        let mut m = GbdtParams::new().n_trees(3).fit(&data).unwrap();
        m.trees[0].nodes[0].feature = 99;
        assert!(m.validate().is_err());
    }

    /// A tree of `n` nodes from `(feature, left, right)` triples; leaves
    /// are `(LEAF, 0, 0)`.
    fn tree(nodes: &[(u32, u32, u32)]) -> Tree {
        Tree {
            nodes: nodes
                .iter()
                .map(|&(feature, left, right)| TreeNode {
                    feature,
                    threshold: 0.5,
                    left,
                    right,
                    value: 0.0,
                })
                .collect(),
        }
    }

    #[test]
    fn a_tree_shape_is_its_depth_or_what_is_wrong() {
        let mut buf = Vec::new();
        let leaf = (LEAF, 0, 0);
        assert_eq!(tree_shape(&tree(&[leaf]), &mut buf), Ok(0));
        // Root, a leaf and an inner node with two leaves: depth 2.
        let lopsided = tree(&[(0, 1, 2), leaf, (1, 3, 4), leaf, leaf]);
        assert_eq!(tree_shape(&lopsided, &mut buf), Ok(2));
        let shared = tree(&[(0, 1, 1), leaf]);
        assert!(tree_shape(&shared, &mut buf)
            .unwrap_err()
            .contains("more than one parent"));
        let stray = tree(&[(0, 1, 2), leaf, leaf, leaf]);
        assert!(tree_shape(&stray, &mut buf)
            .unwrap_err()
            .contains("not reached"));
        let backwards = tree(&[(0, 1, 2), leaf, (0, 1, 3), leaf]);
        assert!(tree_shape(&backwards, &mut buf)
            .unwrap_err()
            .contains("out of order"));
        let outside = tree(&[(0, 1, 7), leaf]);
        assert!(tree_shape(&outside, &mut buf)
            .unwrap_err()
            .contains("out of order or range"));
        assert!(tree_shape(&tree(&[]), &mut buf).is_err());
        // A chain one level deeper than allowed.
        let chain: Vec<_> = (0..=MAX_TREE_DEPTH as u32)
            .flat_map(|d| [(0, 2 * d + 1, 2 * d + 2), leaf])
            .chain([leaf])
            .collect();
        let chain = tree(&chain);
        assert!(tree_shape(&chain, &mut buf)
            .unwrap_err()
            .contains("deeper than"));
        let mut ensemble = GbdtParams::new().n_trees(3).fit(&toy(500, 4)).unwrap();
        assert!(ensemble.depth() <= 6);
        ensemble.trees.push(shared);
        assert_eq!(ensemble.depth(), MAX_TREE_DEPTH + 1);
    }
}
