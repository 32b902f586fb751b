//! Second-stage features: what the first-stage model thinks of a block's
//! neighbours, of the elements that enclose it, of its repeated record and
//! of the whole page. A second model reads them beside the block's own
//! features; this is the learned form of the post-processing steps of the
//! field (smoothing along the page, the ancestor-group filter of
//! Viveros-Jiménez et al., keeping whole records), and cross-validation
//! decides whether it stays (see DESIGN.md, "Model").

use foldhash::HashMap as FastMap;

use ndarray::ArrayViewMut2;

use super::tree::ElementTree;
use crate::blocks::Blocks;

/// Ancestor levels whose mean probability is a feature.
pub const STACK_ANCESTOR_LEVELS: usize = 4;

/// Names of the second-stage columns (prefixed `stack.` in a schema).
pub const STACK_COLUMNS: &[&str] = &[
    "p",
    "p_prev_1",
    "p_next_1",
    "p_prev_2",
    "p_next_2",
    "window_3_mean",
    "window_10_mean",
    "prev_3_max",
    "next_3_max",
    "ancestor_1_mean",
    "ancestor_2_mean",
    "ancestor_3_mean",
    "ancestor_4_mean",
    "ancestor_1_mass",
    "ancestor_2_mass",
    "ancestor_3_mass",
    "ancestor_4_mass",
    "record_group_mean",
    "record_mean",
    "page_mean",
    "page_kept_share",
    "page_max",
    "rank",
    "p_minus_page_mean",
    "words_before_main",
    "words_after_main",
];

/// The second stage's matrix of a page: the first stage's columns `stage1`
/// followed by the [`STACK_COLUMNS`] computed from `probs`.
pub fn stacked_matrix(
    page: &Blocks,
    tree: &ElementTree,
    stage1: &ndarray::Array2<f32>,
    probs: &[f32],
) -> ndarray::Array2<f32> {
    let (n, d) = stage1.dim();
    let mut m = ndarray::Array2::<f32>::zeros((n, d + STACK_COLUMNS.len()));
    m.slice_mut(ndarray::s![.., ..d]).assign(stage1);
    stack_features(page, tree, probs, m.slice_mut(ndarray::s![.., d..]));
    m.mapv_inplace(|v| if v.is_finite() { v } else { 0.0 });
    m
}

/// Per-element sums of `values` over the blocks under each element.
fn subtree_sums(page: &Blocks, values: impl Iterator<Item = f32>) -> Vec<f32> {
    let n = page.elements.len();
    let mut sums = vec![0f32; n];
    for (b, v) in page.blocks.iter().zip(values) {
        if let Some(s) = sums.get_mut(b.element as usize) {
            *s += v;
        }
    }
    for e in (0..n).rev() {
        if let Some(p) = page.elements[e].parent.map(|p| p as usize) {
            if p < e {
                sums[p] += sums[e];
            }
        }
    }
    sums
}

/// Writes the second-stage columns of every block from the first-stage
/// probabilities `probs` (`out` has [`STACK_COLUMNS`] columns).
pub fn stack_features(
    page: &Blocks,
    tree: &ElementTree,
    probs: &[f32],
    mut out: ArrayViewMut2<'_, f32>,
) {
    let blocks = &page.blocks;
    // The sequence of blocks with words: blocks without words carry no
    // probability of their own.
    let seq: Vec<usize> = (0..blocks.len()).filter(|&i| blocks[i].words > 0).collect();
    if seq.is_empty() {
        return;
    }
    let w: Vec<f32> = seq.iter().map(|&i| blocks[i].words as f32).collect();
    let p: Vec<f32> = seq.iter().map(|&i| probs[i]).collect();
    let m = seq.len();
    // Prefix sums of w and w·p for window means.
    let mut cw = vec![0f64; m + 1];
    let mut cwp = vec![0f64; m + 1];
    for k in 0..m {
        cw[k + 1] = cw[k] + w[k] as f64;
        cwp[k + 1] = cwp[k] + (w[k] * p[k]) as f64;
    }
    let window = |k: usize, half: usize| {
        let (a, b) = (k.saturating_sub(half), (k + half + 1).min(m));
        ((cwp[b] - cwp[a]) / (cw[b] - cw[a]).max(1e-9)) as f32
    };
    let wp_total = cwp[m].max(1e-9) as f32;
    let page_mean = (cwp[m] / cw[m].max(1e-9)) as f32;
    let kept: f32 = (0..m).filter(|&k| p[k] >= 0.5).map(|k| w[k]).sum();
    let page_max = p.iter().copied().fold(0f32, f32::max);
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]).then(a.cmp(&b)));
    let mut rank = vec![0f32; m];
    for (r, &k) in order.iter().enumerate() {
        rank[k] = r as f32 / (m - 1).max(1) as f32;
    }
    let wp_elem = subtree_sums(
        page,
        blocks.iter().zip(probs).map(|(b, &q)| b.words as f32 * q),
    );
    // Record groups: (parent, signature) → Σ w·p over the members.
    let mut group_wp: FastMap<(u32, u64), f32> = FastMap::default();
    for (e, info) in page.elements.iter().enumerate() {
        if tree.group_size[e] >= super::tree::MIN_RECORDS {
            *group_wp
                .entry((info.parent.unwrap_or(u32::MAX), tree.signature[e]))
                .or_insert(0.0) += wp_elem[e];
        }
    }
    let elem_mean = |e: usize| wp_elem[e] / tree.words[e].max(1) as f32;
    // The main region: from the first to the last block the first stage
    // keeps. A block's distance from it, in words, tells chrome at the
    // page's ends without a position that grows along a long text (inside
    // the region both are 0).
    let first_kept = (0..m).find(|&k| p[k] >= 0.5);
    let last_kept = (0..m).rev().find(|&k| p[k] >= 0.5);
    for (k, &i) in seq.iter().enumerate() {
        let b = &blocks[i];
        let mut row = out.row_mut(i);
        let at = |j: isize| -> f32 {
            let j = k as isize + j;
            if j >= 0 && (j as usize) < m {
                p[j as usize]
            } else {
                0.0
            }
        };
        row[0] = p[k];
        row[1] = at(-1);
        row[2] = at(1);
        row[3] = at(-2);
        row[4] = at(2);
        row[5] = window(k, 3);
        row[6] = window(k, 10);
        row[7] = p[k.saturating_sub(3)..k]
            .iter()
            .copied()
            .fold(0.0, f32::max);
        row[8] = p[(k + 1).min(m)..(k + 4).min(m)]
            .iter()
            .copied()
            .fold(0.0, f32::max);
        for lvl in 1..=STACK_ANCESTOR_LEVELS {
            if let Some(a) = ElementTree::ancestor(page, b.element, lvl) {
                let a = a as usize;
                row[8 + lvl] = elem_mean(a);
                row[8 + STACK_ANCESTOR_LEVELS + lvl] = wp_elem[a] / wp_total;
            }
        }
        if let Some(r) = tree.record_of(page, b.element, super::page::RECORD_SEARCH_LEVELS) {
            let r = r as usize;
            let parent = page.elements[r].parent.unwrap_or(u32::MAX);
            let g = group_wp
                .get(&(parent, tree.signature[r]))
                .copied()
                .unwrap_or(0.0);
            row[17] = g / tree.group_words[r].max(1) as f32;
            row[18] = elem_mean(r);
        }
        row[19] = page_mean;
        row[20] = kept / cw[m].max(1e-9) as f32;
        row[21] = page_max;
        row[22] = rank[k];
        row[23] = p[k] - page_mean;
        if let (Some(a), Some(z)) = (first_kept, last_kept) {
            if k < a {
                row[24] = ((cw[a] - cw[k + 1]) as f32).ln_1p();
            } else if k > z {
                row[25] = ((cw[k] - cw[z + 1]) as f32).ln_1p();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse, ParseLimits};

    #[test]
    fn neighbours_ancestors_and_page() {
        let doc = parse(
            b"<body><nav><a href=/>Home</a> <a href=/b>Blog</a></nav>\
              <div><p>one two three</p><p>four five six</p><p>seven eight</p></div></body>",
            None,
            ParseLimits::default(),
        )
        .unwrap();
        let page = crate::blocks::split(&doc);
        let tree = ElementTree::build(&page);
        let probs: Vec<f32> = page
            .blocks
            .iter()
            .map(|b| if b.link_words > 0 { 0.1 } else { 0.9 })
            .collect();
        let mut m = ndarray::Array2::zeros((page.blocks.len(), STACK_COLUMNS.len()));
        stack_features(&page, &tree, &probs, m.view_mut());
        let col = |name: &str| STACK_COLUMNS.iter().position(|c| *c == name).unwrap();
        let last = page.blocks.len() - 1;
        assert_eq!(m[[last, col("p")]], 0.9);
        assert_eq!(m[[last, col("p_next_1")]], 0.0, "beyond the page");
        assert_eq!(m[[last - 1, col("p_next_1")]], 0.9);
        assert!(
            (m[[last, col("ancestor_1_mean")]] - 0.9).abs() < 1e-6,
            "the div"
        );
        assert!(m[[0, col("p_minus_page_mean")]] < 0.0);
        assert_eq!(m[[last, col("page_max")]], 0.9);
        assert_eq!(m[[0, col("rank")]], 0.0);
        // The nav's block stands before the kept region, whose blocks are
        // inside it: no distance there.
        assert_eq!(m[[0, col("words_before_main")]], 0.0, "next to it");
        assert_eq!(m[[last, col("words_before_main")]], 0.0);
        assert_eq!(m[[last, col("words_after_main")]], 0.0);
    }
}
