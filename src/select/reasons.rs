//! Why a block's decision is not its threshold's: the selection rule that
//! last changed it (`dechrome explain` shows it per block, so that a user
//! who sees text above the threshold dropped learns which rule dropped
//! it). The rules run as [`super::keep`] runs them: this module only
//! watches each step's decisions.

use serde::Serialize;

use super::{above_threshold, page_threshold, refine_in_steps, unnamed_threads, SelectConfig};
use crate::blocks::Blocks;

/// A selection rule that can overrule a block's threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// Kept on a short page where no block passed the threshold: the
    /// blocks within half of the best probability are kept.
    ShortPage,
    /// The comment mode: under `exclude`, dropped in a comment region
    /// (or a review region on a product page); under `include`, a
    /// comment kept, or its short all-link line ("Reply") dropped.
    Comments,
    /// Dropped under `exclude` as a thread found by its shape on an
    /// article ([`super::threads`]).
    UnnamedThread,
    /// Dropped as a figure caption ([`super::exclude_captions`]).
    Caption,
    /// Dropped as a repeat of an earlier kept block
    /// ([`super::exclude_repeats`]).
    Repeat,
}

impl Rule {
    /// What the rule did, in words, for a block now `kept` or not.
    pub fn describe(self, kept: bool) -> &'static str {
        match (self, kept) {
            (Rule::ShortPage, _) => "kept: short page, near its best block",
            (Rule::Comments, true) => "kept: a comment, comments included",
            (Rule::Comments, false) => "dropped: in a comment region",
            (Rule::UnnamedThread, _) => "dropped: a thread found by its shape",
            (Rule::Caption, _) => "dropped: a figure caption",
            (Rule::Repeat, _) => "dropped: repeats an earlier block",
        }
    }
}

/// [`super::keep`]'s decisions, with for each block whose decision is not
/// the one its probability and the page's threshold gave the rule that
/// last changed it (`None`: the threshold decided).
pub fn keep_with_rules(
    blocks: &Blocks,
    probs: &[f32],
    cfg: &SelectConfig,
) -> (Vec<bool>, Vec<Option<Rule>>) {
    let threshold = page_threshold(blocks, probs, cfg.threshold, cfg.low_prose_shift);
    let mut kept = above_threshold(blocks, probs, cfg);
    let mut rules: Vec<Option<Rule>> = kept
        .iter()
        .enumerate()
        .map(|(i, &k)| {
            (k && probs.get(i).is_some_and(|&p| p < threshold)).then_some(Rule::ShortPage)
        })
        .collect();
    let unnamed = unnamed_threads(blocks, cfg);
    let mut before = kept.clone();
    refine_in_steps(blocks, &mut kept, cfg, &unnamed, &mut |rule, now| {
        for (i, (b, &n)) in before.iter_mut().zip(now).enumerate() {
            if *b != n {
                rules[i] = Some(
                    if rule == Rule::Comments && is_unnamed_only(blocks, cfg, &unnamed, i) {
                        Rule::UnnamedThread
                    } else {
                        rule
                    },
                );
                *b = n;
            }
        }
    });
    // A block a rule turned and another turned back (kept on a short page,
    // then dropped as a comment) ends as its threshold decided.
    for (i, rule) in rules.iter_mut().enumerate() {
        let by_threshold =
            blocks.blocks[i].words > 0 && probs.get(i).is_some_and(|&p| p >= threshold);
        if kept[i] == by_threshold {
            *rule = None;
        }
    }
    (kept, rules)
}

/// True when block `i` is flagged in `unnamed` and lies in no comment
/// (or, where they count, review) region its markup names: the comment
/// mode's own test ([`super::comments`]).
fn is_unnamed_only(blocks: &Blocks, cfg: &SelectConfig, unnamed: &[bool], i: usize) -> bool {
    unnamed.get(i) == Some(&true)
        && !super::comments::in_comment_region(blocks, i, cfg.reviews_are_comments(), &[])
}
