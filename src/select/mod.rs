//! The selection stage: from the blocks and their content probabilities to
//! the blocks extraction keeps.
//!
//! Every rule that decides what is kept lives here, in the order
//! [`keep`] applies them: the page's threshold ([`threshold`]: the model's,
//! lowered on a page that is not prose), the short-page rule, the comment
//! mode ([`comments`], with [`threads`] for threads whose markup names
//! nothing), the caption rule and the repeat rule
//! ([`duplicates`]). [`keep`] is a pure function of the blocks, the
//! probabilities and a [`SelectConfig`]; `Extractor` calls it, and so do
//! training's threshold search and out-of-fold scoring, so that a model's
//! metrics are what `extract` outputs.
//!
//! The constants training can choose out of fold (the threshold, the
//! low-prose shift, the comments' main share: [`LearnedSelection`]) are chosen there
//! and stored in the model file; the fixed ones are documented where they
//! are defined, with the experiment that set them.

pub mod comments;
pub mod duplicates;
pub mod reasons;
pub mod threads;
pub mod threshold;

use crate::blocks::Blocks;
use crate::config::CommentMode;
use crate::model::{LearnedSelection, PageType};

pub use comments::{apply_comment_mode, exclude_comments};
pub use duplicates::{exclude_captions, exclude_repeats, CAPTIONS_ARE_MAIN, REPEAT_MIN_WORDS};
pub use reasons::{keep_with_rules, Rule};
pub use threshold::{kept_prose_share, page_threshold};

/// Everything that decides which blocks are kept, for one page's
/// probabilities.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SelectConfig {
    /// Blocks with words at or above this probability are kept (before the
    /// page's own threshold lowers it).
    pub threshold: f32,
    /// How far the threshold falls on a page that is not prose (0: one
    /// threshold for every page; see [`page_threshold`]).
    pub low_prose_shift: f32,
    /// A page with fewer blocks with words than this on which nothing
    /// passes the threshold keeps the blocks within half of its best
    /// probability instead (0: off). Only for calibrated probabilities:
    /// the unsupervised algorithms' are 0 or 1.
    pub short_page_blocks: usize,
    /// What to do with user-comment regions.
    pub comments: CommentMode,
    /// See [`LearnedSelection::comments_main_share`].
    pub comments_main_share: f64,
    /// See [`LearnedSelection::forum_comments_main_share`]: the share in
    /// force when [`SelectConfig::page_type`] is a forum.
    pub forum_comments_main_share: f64,
    /// The page's predicted type, when the model has a page-type
    /// classifier (set per page with [`SelectConfig::for_page`]).
    pub page_type: Option<PageType>,
    /// Keep figure captions the probabilities keep ([`exclude_captions`]).
    pub keep_captions: bool,
    /// Keep repeated blocks ([`exclude_repeats`]).
    pub keep_repeats: bool,
    /// Count threads found by their shape as comment regions on a page
    /// predicted an article ([`SelectConfig::finds_unnamed_threads`]).
    pub unnamed_threads: bool,
}

impl SelectConfig {
    /// The selection of a trained model with its `threshold` and
    /// `learned` constants, and the extraction settings' defaults for the
    /// rest (comments excluded, captions and repeats dropped, short pages
    /// below 10 blocks): what `extract` does with a model and no options.
    pub fn for_model(threshold: f32, learned: LearnedSelection) -> SelectConfig {
        let defaults = crate::config::ExtractorConfig::default();
        SelectConfig {
            threshold,
            low_prose_shift: learned.low_prose_shift,
            short_page_blocks: defaults.short_page_blocks,
            comments: defaults.comments,
            comments_main_share: f64::from(learned.comments_main_share),
            forum_comments_main_share: f64::from(learned.forum_comments_main_share),
            page_type: None,
            keep_captions: defaults.keep_captions,
            keep_repeats: defaults.keep_repeats,
            unnamed_threads: !defaults.keep_unnamed_threads,
        }
    }
}

impl SelectConfig {
    /// This selection for a page of predicted type `page_type`.
    pub fn for_page(mut self, page_type: Option<PageType>) -> SelectConfig {
        self.page_type = page_type;
        self
    }

    /// Whether threads found by their shape alone
    /// ([`threads::unnamed_thread_blocks`]) count as comment regions on
    /// this page: on a page predicted an article, whose readers' comments
    /// are not its content.
    pub fn finds_unnamed_threads(&self) -> bool {
        self.unnamed_threads && self.page_type == Some(PageType::Article)
    }

    /// Whether elements whose id or class names a caption count as
    /// captions for the caption rule ([`exclude_captions`]), as
    /// `<figcaption>` does on every page: on a page predicted an article,
    /// where a caption describes a picture beside the text.
    pub fn names_captions(&self) -> bool {
        self.page_type == Some(PageType::Article)
    }

    /// Whether customer-review regions count as comment regions on this
    /// page: on a page predicted a product page, where reviews are readers'
    /// words under the product (`blocks::reviews`).
    pub fn reviews_are_comments(&self) -> bool {
        self.page_type == Some(PageType::Product)
    }

    /// The comments' main share in force on this page: the forum pages'
    /// when the page is predicted a forum, else the others'.
    pub fn main_share(&self) -> f64 {
        if self.page_type == Some(PageType::Forum) {
            self.forum_comments_main_share
        } else {
            self.comments_main_share
        }
    }
}

/// The blocks kept from `probs` (one per block of `blocks`), in order:
///
/// 1. those with words at or above the page's threshold
///    ([`page_threshold`]);
/// 2. on a short page (under `short_page_blocks` blocks with words) where
///    none is, those within half of the page's best probability;
/// 3. the comment mode ([`apply_comment_mode`], with the page type's
///    comments' main share: [`SelectConfig::main_share`]; review regions
///    are comment regions on product pages:
///    [`SelectConfig::reviews_are_comments`], and threads found by their
///    shape on articles: [`SelectConfig::finds_unnamed_threads`]);
/// 4. unless `keep_captions`, the caption rule ([`exclude_captions`];
///    elements whose id or class names a caption count on articles:
///    [`SelectConfig::names_captions`]);
/// 5. unless `keep_repeats`, the repeat rule ([`exclude_repeats`]).
pub fn keep(blocks: &Blocks, probs: &[f32], cfg: &SelectConfig) -> Vec<bool> {
    let mut kept = above_threshold(blocks, probs, cfg);
    refine(blocks, &mut kept, cfg);
    kept
}

/// Steps 3 to 5 of [`keep`] on the blocks steps 1 and 2 kept
/// ([`above_threshold`]): the comment mode, captions and repeats.
pub fn refine(blocks: &Blocks, kept: &mut [bool], cfg: &SelectConfig) {
    refine_with_threads(blocks, kept, cfg, &unnamed_threads(blocks, cfg));
}

/// The blocks of the page's threads found by their shape
/// ([`threads::unnamed_thread_blocks`]) when `cfg` drops them (comments
/// excluded, [`SelectConfig::finds_unnamed_threads`]); empty otherwise.
/// They depend on the blocks alone, not on what the probabilities keep:
/// training, which refines one page's blocks many times, finds them once
/// ([`refine_with_threads`]).
pub fn unnamed_threads(blocks: &Blocks, cfg: &SelectConfig) -> Vec<bool> {
    if cfg.comments == CommentMode::Exclude && cfg.finds_unnamed_threads() {
        threads::unnamed_thread_blocks(blocks)
    } else {
        Vec::new()
    }
}

/// [`refine`] with the page's unnamed threads given (`unnamed`: what
/// [`unnamed_threads`] returns for these blocks and `cfg`).
pub fn refine_with_threads(
    blocks: &Blocks,
    kept: &mut [bool],
    cfg: &SelectConfig,
    unnamed: &[bool],
) {
    refine_in_steps(blocks, kept, cfg, unnamed, &mut |_, _| {});
}

/// [`refine_with_threads`], calling `after` with each step's rule and the
/// decisions it left ([`reasons`] tells from them which rule changed a
/// block). The one place that orders steps 3 to 5.
fn refine_in_steps(
    blocks: &Blocks,
    kept: &mut [bool],
    cfg: &SelectConfig,
    unnamed: &[bool],
    after: &mut dyn FnMut(Rule, &[bool]),
) {
    apply_comment_mode(
        cfg.comments,
        blocks,
        kept,
        cfg.main_share(),
        cfg.reviews_are_comments(),
        unnamed,
    );
    after(Rule::Comments, kept);
    if !cfg.keep_captions {
        exclude_captions(blocks, kept, CAPTIONS_ARE_MAIN, cfg.names_captions());
        after(Rule::Caption, kept);
    }
    if !cfg.keep_repeats {
        exclude_repeats(blocks, kept, REPEAT_MIN_WORDS);
        after(Rule::Repeat, kept);
    }
}

/// Steps 1 and 2 of [`keep`]: the blocks with words at or above the page's
/// threshold, or on a short page where none is, those within half of the
/// best probability.
pub fn above_threshold(blocks: &Blocks, probs: &[f32], cfg: &SelectConfig) -> Vec<bool> {
    let n = blocks.blocks.len().min(probs.len());
    let threshold = page_threshold(blocks, probs, cfg.threshold, cfg.low_prose_shift);
    let with_words = |i: usize| blocks.blocks[i].words > 0;
    let mut kept: Vec<bool> = (0..blocks.blocks.len())
        .map(|i| i < n && with_words(i) && probs[i] >= threshold)
        .collect();
    let n_words = (0..n).filter(|&i| with_words(i)).count();
    if n_words > 0 && n_words < cfg.short_page_blocks && !kept.contains(&true) {
        let best = (0..n)
            .filter(|&i| with_words(i))
            .map(|i| probs[i])
            .fold(0.0f32, f32::max);
        for (i, k) in kept.iter_mut().enumerate().take(n) {
            *k = with_words(i) && probs[i] >= 0.5 * best;
        }
    }
    kept
}

/// True when block `i`'s element passes `test` (false for a block whose
/// element is unknown).
fn block_has(
    blocks: &Blocks,
    i: usize,
    test: impl Fn(&crate::blocks::ElementInfo) -> bool,
) -> bool {
    blocks
        .elements
        .get(blocks.blocks[i].element as usize)
        .is_some_and(test)
}

#[cfg(test)]
mod tests;
