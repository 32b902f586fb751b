//! The page's confidence: an estimate of the word F1 of this page's
//! extraction, from what is known once the selection stage has decided
//! (how the kept and dropped blocks' probabilities lie against the
//! threshold, how much and where the kept text is, the page type). One
//! small tree ensemble, trained on the out-of-fold page scores of the
//! training corpora ([`crate::train::confidence`]).
//!
//! [`kept_mean_probability`] is the simple signal it is measured against:
//! the word-weighted mean probability of the kept blocks.

use serde::{Deserialize, Serialize};

use super::gbdt::Gbdt;
use super::kept_shape::{share, KeptShape};
use super::page_type::PageTypeGuess;
use crate::blocks::Blocks;

/// The names of the confidence model's input columns ([`input_row`]).
pub const INPUT_NAMES: [&str; 27] = [
    "confidence.kept_share",
    "confidence.log_kept_words",
    "confidence.log_page_words",
    "confidence.kept_mean_probability",
    "confidence.dropped_mean_probability",
    "confidence.kept_near_threshold_share",
    "confidence.dropped_near_threshold_share",
    "confidence.kept_min_probability",
    "confidence.page_uncertainty",
    "confidence.kept_runs",
    "confidence.largest_run_share",
    "confidence.first_kept",
    "confidence.last_kept",
    "confidence.log_kept_blocks",
    "confidence.log_words_per_kept_block",
    "confidence.kept_link_share",
    "confidence.kept_comment_share",
    "confidence.kept_list_share",
    "confidence.threshold",
    "confidence.type_probability",
    "confidence.type_article",
    "confidence.type_forum",
    "confidence.type_product",
    "confidence.type_collection",
    "confidence.type_listing",
    "confidence.type_documentation",
    "confidence.type_service",
];

/// How far from the threshold a block's probability counts as near it.
const NEAR: f32 = 0.1;

/// The word-weighted mean probability of the kept blocks (0 when nothing
/// with words is kept): the baseline the learned confidence is measured
/// against.
pub fn kept_mean_probability(blocks: &Blocks, probs: &[f32], kept: &[bool]) -> f32 {
    let (mut words, mut weighted) = (0f32, 0f32);
    for ((b, &p), _) in blocks
        .blocks
        .iter()
        .zip(probs)
        .zip(kept)
        .filter(|((b, _), &k)| k && b.words > 0)
    {
        words += b.words as f32;
        weighted += b.words as f32 * clean(p);
    }
    if words > 0.0 {
        weighted / words
    } else {
        0.0
    }
}

/// A probability in 0..=1 (a non-finite one counts as 0).
fn clean(p: f32) -> f32 {
    if p.is_finite() {
        p.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// A page's input row ([`INPUT_NAMES`]): from its blocks, their
/// probabilities, which of them the selection stage kept, the threshold
/// it decided at, and the page-type guess when the model has one (zeros
/// without).
pub fn input_row(
    blocks: &Blocks,
    probs: &[f32],
    kept: &[bool],
    threshold: f32,
    page_type: Option<&PageTypeGuess>,
) -> Vec<f32> {
    let mut shape = KeptShape::default();
    let (mut kept_weighted, mut kept_near, mut kept_min) = (0f32, 0f32, 1f32);
    let (mut dropped_words, mut dropped_weighted, mut dropped_near) = (0f32, 0f32, 0f32);
    let (mut uncertainty, mut kept_blocks, mut kept_links) = (0f32, 0f32, 0f32);
    for ((b, &p), &k) in blocks.blocks.iter().zip(probs).zip(kept) {
        if b.words == 0 {
            continue;
        }
        let (w, p) = (b.words as f32, clean(p));
        uncertainty += w * 4.0 * p * (1.0 - p);
        let near = (p - threshold).abs() < NEAR;
        if k {
            kept_weighted += w * p;
            kept_blocks += 1.0;
            kept_links += b.link_words.min(b.words) as f32;
            kept_min = kept_min.min(p);
            if near {
                kept_near += w;
            }
        } else {
            dropped_words += w;
            dropped_weighted += w * p;
            if near {
                dropped_near += w;
            }
        }
        shape.add(blocks, b, k);
    }
    let (page_words, kept_words) = (shape.page_words, shape.kept_words);
    let of = share;
    let mut row = vec![
        of(kept_words, page_words),
        (1.0 + kept_words).ln(),
        (1.0 + page_words).ln(),
        of(kept_weighted, kept_words),
        of(dropped_weighted, dropped_words),
        of(kept_near, kept_words),
        of(dropped_near, page_words),
        if kept_words > 0.0 { kept_min } else { 0.0 },
        of(uncertainty, page_words),
        shape.runs,
        of(shape.largest_run, kept_words),
        shape.first_kept(),
        shape.last_kept(),
        (1.0 + kept_blocks).ln(),
        (1.0 + of(kept_words, kept_blocks)).ln(),
        of(kept_links, kept_words),
        of(shape.comment_words, kept_words),
        of(shape.list_words, kept_words),
        clean(threshold),
        page_type.map_or(0.0, |g| g.probability),
    ];
    row.extend(page_type.map_or([0.0; 7], |g| g.probabilities));
    debug_assert_eq!(row.len(), INPUT_NAMES.len());
    row
}

/// A trained confidence model: an ensemble whose probability is the
/// estimated word F1 of the page's extraction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConfidenceModel {
    /// The input columns it reads ([`INPUT_NAMES`] when it was trained).
    pub inputs: Vec<String>,
    /// The ensemble (its output is the estimate).
    pub ensemble: Gbdt,
}

impl ConfidenceModel {
    /// The estimate for one input row ([`input_row`]), in 0..=1.
    pub fn estimate(&self, row: &[f32]) -> f32 {
        clean(self.ensemble.predict_row(row))
    }

    /// Checks that the model reads this build's inputs with a valid
    /// ensemble; returns what is wrong.
    pub fn validate(&self) -> std::result::Result<(), String> {
        if self.inputs.iter().map(String::as_str).ne(INPUT_NAMES) {
            return Err(format!(
                "confidence inputs differ from this build's ({} columns, this build has {})",
                self.inputs.len(),
                INPUT_NAMES.len()
            ));
        }
        self.ensemble.validate()?;
        if self.ensemble.n_features != INPUT_NAMES.len() {
            return Err(format!(
                "the confidence ensemble reads {} columns, the model has {}",
                self.ensemble.n_features,
                INPUT_NAMES.len()
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_row_describes_the_kept_text_against_the_threshold() {
        let blocks = crate::blocks::blocks_of_words(&[10, 10, 10, 10]);
        let probs = [0.95, 0.1, 0.55, 0.45];
        let kept = [true, false, true, false];
        let row = input_row(&blocks, &probs, &kept, 0.5, None);
        assert_eq!(row.len(), INPUT_NAMES.len());
        let col = |name: &str| row[INPUT_NAMES.iter().position(|n| *n == name).unwrap()];
        assert_eq!(col("confidence.kept_share"), 0.5);
        assert!((col("confidence.kept_mean_probability") - 0.75).abs() < 1e-6);
        assert!((col("confidence.dropped_mean_probability") - 0.275).abs() < 1e-6);
        // The 0.55 block is near the threshold; of the dropped, the 0.45.
        assert_eq!(col("confidence.kept_near_threshold_share"), 0.5);
        assert_eq!(col("confidence.dropped_near_threshold_share"), 0.25);
        assert_eq!(col("confidence.kept_runs"), 2.0);
        assert!((col("confidence.kept_min_probability") - 0.55).abs() < 1e-6);
        assert_eq!(col("confidence.type_probability"), 0.0);
        assert!(
            (kept_mean_probability(&blocks, &probs, &kept)
                - col("confidence.kept_mean_probability"))
            .abs()
                < 1e-6
        );
    }

    #[test]
    fn nothing_kept_and_bad_probabilities_give_finite_rows() {
        let blocks = crate::blocks::blocks_of_words(&[5, 0, 7]);
        let row = input_row(
            &blocks,
            &[f32::NAN, 0.3, f32::INFINITY],
            &[false; 3],
            0.5,
            None,
        );
        assert!(row.iter().all(|v| v.is_finite()));
        assert_eq!(row[0], 0.0);
        assert_eq!(kept_mean_probability(&blocks, &[0.9; 3], &[false; 3]), 0.0);
        let empty = crate::blocks::blocks_of_words(&[]);
        assert!(input_row(&empty, &[], &[], 0.5, None)
            .iter()
            .all(|v| v.is_finite()));
    }
}
