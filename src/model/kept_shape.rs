//! Where a page's kept words lie: how many, in how many runs, the largest
//! run, their shares in comment regions and lists, and where the first and
//! last of them stand. Read by the page-type classifier's probability
//! profile and by the confidence model, each with its own idea of "kept".

use crate::blocks::{ancestry, Block, Blocks};

/// The shape of the kept words, accumulated block by block in page order
/// ([`KeptShape::add`]; blocks without words are passed over).
#[derive(Debug, Clone, Copy, Default)]
pub struct KeptShape {
    /// Words of the blocks added.
    pub page_words: f32,
    /// Of them, kept.
    pub kept_words: f32,
    /// Runs of consecutive kept blocks (blocks without words ignored).
    pub runs: f32,
    /// Words of the largest run.
    pub largest_run: f32,
    /// Kept words in comment regions.
    pub comment_words: f32,
    /// Kept words inside lists.
    pub list_words: f32,
    /// Words before the first kept block, if any was kept.
    first: Option<f32>,
    /// Words up to the end of the last kept block.
    last: f32,
    run: f32,
    previous_kept: bool,
}

/// `x / total`, 0 for an empty total.
pub fn share(x: f32, total: f32) -> f32 {
    if total > 0.0 {
        x / total
    } else {
        0.0
    }
}

impl KeptShape {
    /// Adds the next block of `blocks` (a block without words changes
    /// nothing).
    pub fn add(&mut self, blocks: &Blocks, b: &Block, kept: bool) {
        if b.words == 0 {
            return;
        }
        let w = b.words as f32;
        if kept {
            self.kept_words += w;
            self.first.get_or_insert(self.page_words);
            self.last = self.page_words + w;
            if !self.previous_kept {
                self.runs += 1.0;
                self.run = 0.0;
            }
            self.run += w;
            self.largest_run = self.largest_run.max(self.run);
            if let Some(e) = blocks.elements.get(b.element as usize) {
                if e.comments {
                    self.comment_words += w;
                }
                if e.ancestry & ancestry::LIST != 0 {
                    self.list_words += w;
                }
            }
        }
        self.previous_kept = kept;
        self.page_words += w;
    }

    /// Where the first kept word stands, as a share of the page's words (1
    /// when nothing is kept).
    pub fn first_kept(&self) -> f32 {
        self.first.map_or(1.0, |f| share(f, self.page_words))
    }

    /// Where the last kept word ends, as a share of the page's words.
    pub fn last_kept(&self) -> f32 {
        share(self.last, self.page_words)
    }
}
