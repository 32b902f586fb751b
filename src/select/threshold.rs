//! The threshold a page is decided at: the model's, lowered on a page
//! whose kept text is not prose.

use crate::blocks::Blocks;

/// A kept block counts as prose for [`page_threshold`] when it has at
/// least this many words and under [`PROSE_MAX_LINK_SHARE`] of them in
/// links: a paragraph (a news story's short ones too), not a record, a
/// caption or a link line.
pub const PROSE_MIN_WORDS: u32 = 25;

/// The share of a prose block's words in links stays under this.
pub const PROSE_MAX_LINK_SHARE: f64 = 0.2;

/// A page is "not prose" for [`page_threshold`] when prose blocks hold
/// less than this share of the words kept at the model's threshold.
pub const PROSE_SHARE: f64 = 0.5;

/// Share of the words of the blocks at or above `threshold` that lie in
/// prose blocks ([`PROSE_MIN_WORDS`] words or more, under
/// [`PROSE_MAX_LINK_SHARE`] of them in links); 0 when none is.
pub fn kept_prose_share(blocks: &Blocks, probs: &[f32], threshold: f32) -> f64 {
    let (mut kept, mut prose) = (0u64, 0u64);
    for (b, &p) in blocks.blocks.iter().zip(probs) {
        if b.words == 0 || p < threshold {
            continue;
        }
        kept += u64::from(b.words);
        if b.words >= PROSE_MIN_WORDS
            && f64::from(b.link_words) < PROSE_MAX_LINK_SHARE * f64::from(b.words)
        {
            prose += u64::from(b.words);
        }
    }
    if kept == 0 {
        0.0
    } else {
        prose as f64 / kept as f64
    }
}

/// The threshold a page is decided at: `threshold`, lowered by `shift`
/// (not below 0) when prose holds under [`PROSE_SHARE`] of the words kept
/// at `threshold` ([`kept_prose_share`]). On an article the kept text is
/// paragraphs and the model's threshold, chosen mostly on such pages,
/// holds; on a listing, a shop's category page or a product page the
/// content is many short records and link lines whose probabilities sit
/// lower, and a flat threshold drops them. Extraction's `shift` is the
/// model's [`LearnedSelection::low_prose_shift`](crate::model::LearnedSelection) unless
/// `ExtractorConfig::low_prose_shift` overrides it.
pub fn page_threshold(blocks: &Blocks, probs: &[f32], threshold: f32, shift: f32) -> f32 {
    if shift > 0.0 && kept_prose_share(blocks, probs, threshold) < PROSE_SHARE {
        (threshold - shift).max(0.0)
    } else {
        threshold
    }
}
