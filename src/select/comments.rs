//! User-comment regions (`blocks::comments` recognises them): the
//! comment mode's rules on top of the probabilities' decisions. On a page
//! predicted a product page, customer-review regions (`blocks::reviews`)
//! count as comment regions: they are readers' words under the product, as
//! a thread is under a post.

use crate::blocks::{ancestry, Blocks, ElementInfo};
use crate::config::CommentMode;

/// Most of a kept comment block's words may not be link text.
const COMMENT_MAX_LINK_DENSITY: f64 = 0.5;

/// Comment-region blocks of at most this many words, all of them link
/// text, are dropped by `include` (reply and report links, permalinks).
const COMMENT_LINK_MAX_WORDS: u32 = 3;

/// Applies [`CommentMode`] to the classifier's decisions (`kept`, one per
/// block). `Exclude` drops blocks in comment regions, unless less than
/// `main_share` (the model's
/// [`LearnedSelection::comments_main_share`](crate::model::LearnedSelection)) of the kept words lie
/// outside them (then the comments are the page's content). `Include` keeps comment-region blocks
/// with words, mostly non-link text, outside forms, navigation and hidden
/// elements, and drops their short all-link blocks (reply links). With
/// `reviews` (a product page), review regions are comment regions;
/// `Exclude` also drops the blocks flagged in `unnamed` (one flag per
/// block, or none: the threads found by their shape,
/// [`super::unnamed_threads`]) when they follow the page's text.
pub fn apply_comment_mode(
    mode: CommentMode,
    blocks: &Blocks,
    kept: &mut [bool],
    main_share: f64,
    reviews: bool,
    unnamed: &[bool],
) {
    match mode {
        CommentMode::Model => {}
        CommentMode::Exclude => {
            let named = |i: usize| in_comment_region(blocks, i, reviews, &[]);
            let flags = if super::threads::follows_the_text(blocks, kept, unnamed, named) {
                unnamed
            } else {
                &[]
            };
            exclude_comments(blocks, kept, main_share, reviews, flags)
        }
        CommentMode::Include => {
            let chrome = ancestry::FORM | ancestry::NAV | ancestry::HIDDEN | ancestry::CONTROL;
            for (i, b) in blocks.blocks.iter().enumerate() {
                let Some(e) = blocks.elements.get(b.element as usize) else {
                    continue;
                };
                if !in_thread(e, reviews) || b.words == 0 {
                    continue;
                }
                if e.ancestry & chrome == 0
                    && f64::from(b.link_words) <= COMMENT_MAX_LINK_DENSITY * f64::from(b.words)
                {
                    kept[i] = true;
                } else if b.link_words == b.words && b.words <= COMMENT_LINK_MAX_WORDS {
                    // A comment's "Reply"/"Report" link or permalink date:
                    // not the thread's text, whatever the classifier made of
                    // it.
                    kept[i] = false;
                }
            }
        }
    }
}

/// True when element `e` lies in a comment region (or, with `reviews`, a
/// review region): the one test of both comment modes.
fn in_thread(e: &ElementInfo, reviews: bool) -> bool {
    e.comments || reviews && e.reviews
}

/// True when block `i` lies in a comment region (or, with `reviews`, a
/// review region), or is flagged in `unnamed` (one flag per block, or none:
/// [`super::threads::unnamed_thread_blocks`]).
pub(super) fn in_comment_region(
    blocks: &Blocks,
    i: usize,
    reviews: bool,
    unnamed: &[bool],
) -> bool {
    unnamed.get(i).copied().unwrap_or(false)
        || super::block_has(blocks, i, |e| in_thread(e, reviews))
}

/// `exclude`: drops the kept blocks in comment regions (with `reviews`,
/// review regions too; and the blocks flagged in `unnamed`, an unnamed
/// thread's, when given) unless less than `main_share` of the kept words
/// lie outside them.
pub fn exclude_comments(
    blocks: &Blocks,
    kept: &mut [bool],
    main_share: f64,
    reviews: bool,
    unnamed: &[bool],
) {
    let (mut inside, mut outside) = (0u64, 0u64);
    for (i, b) in blocks.blocks.iter().enumerate().filter(|(i, _)| kept[*i]) {
        if in_comment_region(blocks, i, reviews, unnamed) {
            inside += u64::from(b.words);
        } else {
            outside += u64::from(b.words);
        }
    }
    if (outside as f64) < main_share * (inside + outside) as f64 {
        return;
    }
    for (i, k) in kept.iter_mut().enumerate() {
        *k &= !in_comment_region(blocks, i, reviews, unnamed);
    }
}
