//! The small trees scored in AVX-512 registers, sixteen rows at a time, on
//! x86-64 processors that have AVX-512F and AVX-512CD (checked when an
//! ensemble is packed; others take the scalar walk of `packed.rs`, which
//! gives the same bits).
//!
//! Not a walk but the leaf sets of QuickScorer (Lucchese et al., SIGIR
//! 2015): a node whose test sends a row right rules out the leaves of its
//! left subtree, and the leaf the walk would reach is the leftmost leaf
//! that no node of the tree ruled out. The root's test splits the rows
//! between its two halves of 32 leaves each, so a row's leaves left are the
//! 32 bits of one lane; every other inner node is one compare of sixteen
//! rows' values of its feature (one load: the rows are held feature by
//! feature) and a masked AND into the rows of its half that it sends
//! right. No gather and no chain of dependent loads.
//!
//! A half of the tree that the root sends no row to is skipped (many
//! groups of blocks agree at the root).
//!
//! Measured (whole process, one thread, paired runs against the scalar
//! walk, 15 pairs): 0.944 of the wall time on 300 WCXB dev pages, 0.939 on
//! the readability pages; without skipping halves 0.979 and 0.991.
//! Variants no faster: 64-bit sets with no split at the root (0.979 before
//! the skip), 32 rows a group in two registers (0.979 before the skip), 64
//! rows in four (1.004: the lanes past a short page's blocks are wasted
//! work), skipping quarters as well as halves (1.009 against halves). A
//! walk with AVX-512 gathers was no faster than the scalar walk: it reads a
//! row's value level by level, each read waiting on the one before.
//!
//! Why by hand: no crate scores tree ensembles this way, and the portable
//! SIMD crates (`wide`, `pulp`) have no masked AND on a compare's mask or
//! leading-zero count.
//!
//! Same bits as the walk: the same comparison (`value > threshold`, false
//! for NaN), the same leaf for every row, each row's leaves summed from
//! the base score in tree order.

use std::arch::x86_64::{
    __m512, __m512i, _mm512_add_ps, _mm512_and_si512, _mm512_cmp_ps_mask, _mm512_loadu_ps,
    _mm512_lzcnt_epi32, _mm512_mask_add_epi32, _mm512_mask_and_epi32, _mm512_mask_blend_ps,
    _mm512_permutex2var_ps, _mm512_set1_epi32, _mm512_set1_ps, _mm512_setzero_si512,
    _mm512_storeu_ps, _mm512_sub_epi32, _mm512_test_epi32_mask, _CMP_GT_OQ,
};

use super::packed::{SMALL_DEPTH, SMALL_FEATURES};

/// Rows scored together: one per 32-bit lane of a 512-bit register.
pub(super) const LANES: usize = 16;

/// The 2^[`SMALL_DEPTH`] leaves of a small tree.
const LEAVES: usize = 1 << SMALL_DEPTH;

// Each half of a tree's leaves is one 32-bit lane.
const _: () = assert!(LEAVES == 64);

/// One inner node below the root: its test and the leaves of its half of
/// the tree that it rules out.
#[derive(Debug, Clone, Copy)]
pub(super) struct WideNode {
    /// A row whose value is greater goes right.
    threshold: f32,
    /// The leaves of the node's half of the tree (the root's left or right
    /// subtree, 32 leaves) but those of its own left subtree, as bits
    /// (leaf `i` of the half is bit `i`, leaves numbered left to right).
    keeps: u32,
    /// Feature tested: a byte, so below [`SMALL_FEATURES`] by its type.
    feature: u8,
}

/// A small tree: its root's test, its other inner nodes (those under the
/// root's left child first; in any order within a half, as the ANDs
/// commute) and its 64 leaves.
#[derive(Debug, Clone)]
pub(super) struct WideTree {
    /// The root's feature and threshold.
    root: (u8, f32),
    /// This tree's nodes in [`WideTrees::nodes`]: `start..split` in the
    /// root's left subtree, `split..end` in its right one.
    start: u32,
    split: u32,
    end: u32,
    /// Leaf values, left to right.
    leaves: [f32; LEAVES],
}

/// An ensemble's small trees in this layout. Made only on a processor that
/// runs [`WideTrees::scores`] ([`WideTrees::for_this_processor`]), so that
/// holding one is the processor check.
#[derive(Debug, Clone)]
pub(super) struct WideTrees {
    nodes: Vec<WideNode>,
    trees: Vec<WideTree>,
}

/// Bytes that `trees` trees of `nodes` nodes in all take in this layout,
/// at most (for the model loader's memory bound).
pub(super) fn bytes(trees: u64, nodes: u64) -> u64 {
    trees * std::mem::size_of::<WideTree>() as u64 + nodes * std::mem::size_of::<WideNode>() as u64
}

impl WideTrees {
    /// No trees yet, when this processor has AVX-512F and AVX-512CD;
    /// `None` otherwise.
    pub(super) fn for_this_processor() -> Option<WideTrees> {
        (std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512cd"))
        .then(|| WideTrees {
            nodes: Vec::new(),
            trees: Vec::new(),
        })
    }

    /// Adds a tree given as a complete binary tree of depth
    /// [`SMALL_DEPTH`]: `inner[i]` the (feature, threshold) of node `i`,
    /// whose children are `2i + 1` and `2i + 2`, and the 64 leaves.
    /// Pass-through nodes (threshold +∞) send no row right and are left
    /// out.
    pub(super) fn push(&mut self, inner: &[(u8, f32)], leaves: &[f32; LEAVES]) {
        let half = |side: usize| {
            inner
                .iter()
                .enumerate()
                .take(LEAVES - 1)
                .skip(1)
                .filter(move |(i, &(_, threshold))| {
                    // Node i is the j-th of level k; the first half of a
                    // level lies under the root's left child.
                    let k = (i + 1).ilog2() as usize;
                    let j = i + 1 - (1 << k);
                    threshold != f32::INFINITY && j >> (k - 1) == side
                })
                .map(move |(i, &(feature, threshold))| {
                    // Its subtree's leaves are the `span` from j * span in
                    // the whole tree; the left half of them its left
                    // subtree's. Within the root's half, leaf 32 is 0.
                    let k = (i + 1).ilog2() as usize;
                    let j = i + 1 - (1 << k);
                    let span = LEAVES >> k;
                    let left = ((1u64 << (span / 2)) - 1) << (j * span);
                    WideNode {
                        threshold,
                        keeps: !((left >> (32 * side)) as u32),
                        feature,
                    }
                })
        };
        let start = self.nodes.len() as u32;
        self.nodes.extend(half(0));
        let split = self.nodes.len() as u32;
        self.nodes.extend(half(1));
        self.trees.push(WideTree {
            root: inner[0],
            start,
            split,
            end: self.nodes.len() as u32,
            leaves: *leaves,
        });
    }

    /// The [`LANES`] rows' scores (log-odds): `base` plus each tree's leaf,
    /// in tree order. `columns[f][l]` is row `l`'s value of feature `f`.
    pub(super) fn scores(
        &self,
        columns: &[[f32; LANES]; SMALL_FEATURES],
        base: f32,
    ) -> [f32; LANES] {
        // SAFETY: the processor has AVX-512F and AVX-512CD: a `WideTrees`
        // is made only then (`for_this_processor`).
        unsafe { self.scores_avx512(columns, base) }
    }

    /// [`WideTrees::scores`] in AVX-512 registers.
    ///
    /// # Safety
    ///
    /// The processor must have AVX-512F and AVX-512CD. The raw loads stay
    /// in bounds: a whole column (sixteen values; a byte indexes one of
    /// the [`SMALL_FEATURES`] columns), and the four quarters of the 64
    /// leaves.
    #[target_feature(enable = "avx512f,avx512cd")]
    unsafe fn scores_avx512(
        &self,
        columns: &[[f32; LANES]; SMALL_FEATURES],
        base: f32,
    ) -> [f32; LANES] {
        let all: __m512i = _mm512_set1_epi32(-1);
        let thirty_one = _mm512_set1_epi32(31);
        let thirty_two = _mm512_set1_epi32(32);
        let mut score: __m512 = _mm512_set1_ps(base);
        for tree in &self.trees {
            let test = |feature: u8, threshold: f32| {
                let values = _mm512_loadu_ps(columns[usize::from(feature)].as_ptr());
                _mm512_cmp_ps_mask::<_CMP_GT_OQ>(values, _mm512_set1_ps(threshold))
            };
            // The rows the root sends right; each row's leaves not yet
            // ruled out in its half. A half no row reaches is skipped.
            let right_half = test(tree.root.0, tree.root.1);
            let mut set = all;
            for (rows, nodes) in [
                (!right_half, tree.start..tree.split),
                (right_half, tree.split..tree.end),
            ] {
                if rows == 0 {
                    continue;
                }
                for node in &self.nodes[nodes.start as usize..nodes.end as usize] {
                    let right = test(node.feature, node.threshold) & rows;
                    let keeps = _mm512_set1_epi32(node.keeps as i32);
                    set = _mm512_mask_and_epi32(set, right, set, keeps);
                }
            }
            // The leftmost leaf left: 31 minus the leading zeros of the
            // lowest set bit, plus 32 in the right half (a set never
            // empties: the walk's leaf stays).
            let lowest = _mm512_and_si512(set, _mm512_sub_epi32(_mm512_setzero_si512(), set));
            let at = _mm512_sub_epi32(thirty_one, _mm512_lzcnt_epi32(lowest));
            let at = _mm512_mask_add_epi32(at, right_half, at, thirty_two);
            let leaves = tree.leaves.as_ptr();
            let first = _mm512_permutex2var_ps(
                _mm512_loadu_ps(leaves),
                at,
                _mm512_loadu_ps(leaves.add(16)),
            );
            let second = _mm512_permutex2var_ps(
                _mm512_loadu_ps(leaves.add(32)),
                at,
                _mm512_loadu_ps(leaves.add(48)),
            );
            let leaf = _mm512_mask_blend_ps(_mm512_test_epi32_mask(at, thirty_two), first, second);
            score = _mm512_add_ps(score, leaf);
        }
        let mut out = [0f32; LANES];
        _mm512_storeu_ps(out.as_mut_ptr(), score);
        out
    }
}
