//! User-comment regions (`blocks::comments` recognises them): the
//! comment mode's rules on top of the probabilities' decisions.

use crate::blocks::{ancestry, Blocks};
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
/// elements, and drops their short all-link blocks (reply links).
pub fn apply_comment_mode(mode: CommentMode, blocks: &Blocks, kept: &mut [bool], main_share: f64) {
    match mode {
        CommentMode::Model => {}
        CommentMode::Exclude => exclude_comments(blocks, kept, main_share),
        CommentMode::Include => {
            let chrome = ancestry::FORM | ancestry::NAV | ancestry::HIDDEN | ancestry::CONTROL;
            for (i, b) in blocks.blocks.iter().enumerate() {
                let Some(e) = blocks.elements.get(b.element as usize) else {
                    continue;
                };
                if !e.comments || b.words == 0 {
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

/// True when block `i` lies in a comment region.
fn in_comment_region(blocks: &Blocks, i: usize) -> bool {
    super::block_has(blocks, i, |e| e.comments)
}

/// The index of the last block of the longest run of kept words (runs
/// break at a dropped block with words): where the article's text ends.
fn main_text_end(blocks: &Blocks, kept: &[bool]) -> Option<usize> {
    let (mut best, mut best_words) = (None, 0u64);
    let mut run = 0u64;
    for (i, b) in blocks
        .blocks
        .iter()
        .enumerate()
        .filter(|(_, b)| b.words > 0)
    {
        if kept[i] {
            run += u64::from(b.words);
            if run > best_words {
                best_words = run;
                best = Some(i);
            }
        } else {
            run = 0;
        }
    }
    best
}

/// `exclude`: drops the kept blocks in comment regions unless less than
/// `main_share` of the kept words lie outside them. A thread or teaser
/// list the markup does not name ([`crate::blocks::records`]) counts as a
/// comment region where it lies after the article's text
/// ([`main_text_end`]): a live blog's timestamped entries inside the text
/// stay text.
pub fn exclude_comments(blocks: &Blocks, kept: &mut [bool], main_share: f64) {
    let end = if blocks.records.is_empty() {
        None
    } else {
        main_text_end(blocks, kept)
    };
    let region = |i: usize| {
        in_comment_region(blocks, i)
            || end.is_some_and(|end| i > end && blocks.records.get(i).copied().unwrap_or(false))
    };
    let (mut inside, mut outside) = (0u64, 0u64);
    for (i, b) in blocks.blocks.iter().enumerate().filter(|(i, _)| kept[*i]) {
        if region(i) {
            inside += u64::from(b.words);
        } else {
            outside += u64::from(b.words);
        }
    }
    if (outside as f64) < main_share * (inside + outside) as f64 {
        return;
    }
    for (i, k) in kept.iter_mut().enumerate() {
        *k &= !region(i);
    }
}
