//! [`PackedEnsemble`]: a [`Gbdt`] re-laid for fast prediction, every tree
//! a complete binary tree in flat arrays (fixed-size [`SmallTree`]s for
//! shallow ensembles), walked sixteen rows at a time; the same bits as the
//! node walk.

use super::{sigmoid, Gbdt, LEAF};

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
    /// The small trees laid out for the AVX-512 walk (`wide.rs`), when
    /// there are small trees and this processor has AVX-512.
    #[cfg(target_arch = "x86_64")]
    wide: Option<super::wide::WideTrees>,
    /// Largest feature index read, plus one (0 for an ensemble of leaves).
    n_features: usize,
    fallback: Option<Gbdt>,
}

/// Deepest ensemble evaluated through [`SmallTree`]s.
pub(super) const SMALL_DEPTH: usize = 6;
/// Features addressable by a [`SmallTree`] (its feature indices are bytes).
pub(super) const SMALL_FEATURES: usize = 256;

/// One packed tree of depth at most [`SMALL_DEPTH`], padded to full size:
/// 64 inner slots (63 used) and 64 leaves.
#[derive(Debug, Clone)]
pub(super) struct SmallTree {
    inner: [(u8, f32); 64],
    leaves: [f32; 64],
}

/// Deepest ensemble packed (2^12 leaves a tree); deeper ones predict through
/// the node lists.
pub(super) const MAX_PACKED_DEPTH: usize = 12;

impl PackedEnsemble {
    /// Packs `model`.
    pub fn new(model: &Gbdt) -> Self {
        let depth = model.depth();
        if depth > MAX_PACKED_DEPTH {
            return PackedEnsemble {
                depth,
                base_score: model.base_score,
                inner: Vec::new(),
                leaves: Vec::new(),
                small: Vec::new(),
                #[cfg(target_arch = "x86_64")]
                wide: None,
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
        let small = if depth == SMALL_DEPTH && n_features <= SMALL_FEATURES {
            // Already packed at the small depth (the usual case).
            small_trees(&inner, &leaves)
        } else if depth < SMALL_DEPTH && n_features <= SMALL_FEATURES {
            // Packed at the full small depth whatever the ensemble's, so
            // every walk takes the same fixed number of steps.
            let (inner, leaves) = pack(model, SMALL_DEPTH);
            small_trees(&inner, &leaves)
        } else {
            Vec::new()
        };
        #[cfg(target_arch = "x86_64")]
        let wide = super::wide::WideTrees::for_this_processor()
            .filter(|_| !small.is_empty())
            .map(|mut wide| {
                for t in &small {
                    wide.push(&t.inner, &t.leaves);
                }
                wide
            });
        PackedEnsemble {
            depth,
            base_score: model.base_score,
            inner,
            leaves,
            small,
            #[cfg(target_arch = "x86_64")]
            wide,
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
    /// groups of sixteen, so the sixteen independent walks overlap in the
    /// CPU instead of waiting on each other's loads, and each tree is read
    /// once per sixteen rows (eight lanes were 1-2 % slower end to end,
    /// thirty-two 6 % slower: their rows, 1 KB each, fill the 32 KB L1
    /// data cache).
    pub fn predict_rows(&self, rows: &[&[f32]], out: &mut [f32]) {
        assert_eq!(rows.len(), out.len(), "one output per row");
        if let Some(m) = &self.fallback {
            for (r, o) in rows.iter().zip(out.iter_mut()) {
                *o = m.predict_row(r);
            }
            return;
        }
        const LANES: usize = 16;
        if !self.small.is_empty() && rows.iter().all(|r| r.len() >= self.n_features) {
            #[cfg(target_arch = "x86_64")]
            if let Some(wide) = &self.wide {
                self.predict_wide(wide, rows, out);
                return;
            }
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
    /// [`PackedEnsemble::predict_rows`] through the AVX-512 leaf sets
    /// (`wide.rs`): each group's rows are copied feature by feature, so
    /// that one load reads sixteen rows' values of a feature. The lanes
    /// past a short last group hold stale rows whose scores are dropped.
    #[cfg(target_arch = "x86_64")]
    fn predict_wide(&self, wide: &super::wide::WideTrees, rows: &[&[f32]], out: &mut [f32]) {
        use super::wide::LANES;
        let n = self.n_features;
        let mut columns = vec![[0f32; LANES]; SMALL_FEATURES];
        let columns: &mut [[f32; LANES]; SMALL_FEATURES] = (&mut columns[..])
            .try_into()
            .expect("SMALL_FEATURES columns");
        for (group, outs) in rows.chunks(LANES).zip(out.chunks_mut(LANES)) {
            for (l, r) in group.iter().enumerate() {
                for (column, &v) in columns.iter_mut().zip(&r[..n]) {
                    column[l] = v;
                }
            }
            let score = wide.scores(columns, self.base_score);
            for (o, s) in outs.iter_mut().zip(score) {
                *o = sigmoid(s);
            }
        }
    }

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
    let n_trees = model.trees.len();
    let mut inner = vec![(0u32, f32::INFINITY); n_inner * n_trees];
    let mut leaves = vec![0f32; (n_inner + 1) * n_trees];
    // (original node, packed position); one stack for every tree.
    let mut stack = Vec::with_capacity(2 * depth + 2);
    for (i, t) in model.trees.iter().enumerate() {
        let tin = &mut inner[i * n_inner..(i + 1) * n_inner];
        let tleaf = &mut leaves[i * (n_inner + 1)..(i + 1) * (n_inner + 1)];
        stack.push((0usize, 0usize));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::gbdt::tests::toy;
    use crate::model::GbdtParams;
    use linfa::traits::Fit;

    #[test]
    fn packed_prediction_equals_the_node_walk() {
        // Depth 5 goes through the small trees, depth 8 through the flat arrays.
        for depth in [5, 8] {
            packed_equals_walk(depth);
        }
    }

    /// Rows on every edge of the trees' tests: each threshold itself and
    /// the floats beside it, NaN and the infinities, in every feature.
    fn edge_rows(model: &Gbdt) -> Vec<Vec<f32>> {
        let mut values = vec![f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0];
        for n in model.trees.iter().flat_map(|t| &t.nodes) {
            if n.feature != LEAF {
                values.extend([n.threshold, n.threshold.next_up(), n.threshold.next_down()]);
            }
        }
        let width = model.n_features;
        (0..values.len() * 3)
            .map(|i| {
                (0..width)
                    .map(|f| values[(i * (f + 1) + f) % values.len()])
                    .collect()
            })
            .collect()
    }

    #[test]
    fn every_path_gives_the_walk_s_bits_on_edge_values() {
        // Depths 1 to 6 go through the small trees (and, on a processor
        // with AVX-512, the leaf sets of `wide.rs`); a one-leaf ensemble
        // has depth 0.
        let data = toy(2000, 7);
        let lone_leaf = Gbdt {
            n_features: 3,
            base_score: 0.25,
            trees: vec![super::super::Tree {
                nodes: vec![super::super::TreeNode {
                    feature: LEAF,
                    threshold: 0.0,
                    left: 0,
                    right: 0,
                    value: 0.5,
                }],
            }],
            importance: vec![0.0; 3],
        };
        let fitted = (1..=6).map(|depth| {
            GbdtParams::new()
                .n_trees(40)
                .max_depth(depth)
                .fit(&data)
                .unwrap()
        });
        for (depth, model) in std::iter::once(lone_leaf).chain(fitted).enumerate() {
            let packed = PackedEnsemble::new(&model);
            let rows = edge_rows(&model);
            let refs: Vec<&[f32]> = rows.iter().map(|r| r.as_slice()).collect();
            let want: Vec<u32> = rows
                .iter()
                .map(|r| model.predict_row(r).to_bits())
                .collect();
            let mut got = vec![0f32; rows.len()];
            packed.predict_rows(&refs, &mut got);
            let got: Vec<u32> = got.iter().map(|p| p.to_bits()).collect();
            assert_eq!(got, want, "depth {depth}");
            if !packed.small.is_empty() {
                let mut scalar = vec![0f32; rows.len()];
                packed.predict_small::<16>(&refs, &mut scalar);
                let scalar: Vec<u32> = scalar.iter().map(|p| p.to_bits()).collect();
                assert_eq!(scalar, want, "depth {depth}, scalar walk");
            }
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
}
