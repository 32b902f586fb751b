//! Block labels from gold text: align the page's tokens (blocks in order) to
//! the gold main text's tokens with a diff, and call a block content when
//! enough of its tokens are matched.
//!
//! The diff is `similar`'s patience diff over interned tokens, without a
//! deadline (a deadline would make labels depend on the machine's speed and
//! break byte-identical training).

use std::collections::HashMap;

use similar::{capture_diff_slices, Algorithm, DiffOp};

use crate::blocks::word_tokens;

/// Interns tokens to small integers, page by page.
#[derive(Default)]
pub struct Interner {
    ids: HashMap<String, u32>,
}

impl Interner {
    /// The id of `token`, assigned on first sight.
    pub fn id(&mut self, token: String) -> u32 {
        let n = self.ids.len() as u32;
        *self.ids.entry(token).or_insert(n)
    }

    /// Number of distinct tokens seen.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// True when no token was seen.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
}

/// For each block (given as its text), the share of its tokens that the
/// alignment matches to the gold text (0 for blocks without tokens).
pub fn matched_shares<'a>(
    blocks: impl IntoIterator<Item = &'a str>,
    gold: &str,
    interner: &mut Interner,
) -> Vec<f32> {
    let mut page: Vec<u32> = Vec::new();
    let mut owner: Vec<u32> = Vec::new();
    let mut sizes: Vec<u32> = Vec::new();
    for (i, text) in blocks.into_iter().enumerate() {
        let mut n = 0;
        for t in word_tokens(text) {
            page.push(interner.id(t));
            owner.push(i as u32);
            n += 1;
        }
        sizes.push(n);
    }
    let gold: Vec<u32> = word_tokens(gold).map(|t| interner.id(t)).collect();
    let mut matched = vec![0u32; sizes.len()];
    if !page.is_empty() && !gold.is_empty() {
        for op in capture_diff_slices(Algorithm::Patience, &page, &gold) {
            if let DiffOp::Equal { old_index, len, .. } = op {
                for k in old_index..old_index + len {
                    matched[owner[k] as usize] += 1;
                }
            }
        }
    }
    matched
        .iter()
        .zip(&sizes)
        .map(|(&m, &s)| if s == 0 { 0.0 } else { m as f32 / s as f32 })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aligns_blocks_to_gold() {
        let blocks = [
            "Home News Sports",
            "The quick brown fox jumps",
            "over the lazy dog",
            "Copyright 2024 the site",
        ];
        let gold = "The quick brown fox jumps over the lazy dog.";
        let s = matched_shares(blocks, gold, &mut Interner::default());
        assert_eq!(s[0], 0.0);
        assert_eq!(s[1], 1.0);
        assert_eq!(s[2], 1.0);
        assert!(
            s[3] < 0.5,
            "a stray 'the' does not make the footer content: {}",
            s[3]
        );
    }

    #[test]
    fn partial_and_empty_blocks() {
        let s = matched_shares(
            ["alpha beta gamma delta", "", "!!!"],
            "beta gamma",
            &mut Interner::default(),
        );
        assert_eq!(s, vec![0.5, 0.0, 0.0]);
        let s = matched_shares(["alpha"], "", &mut Interner::default());
        assert_eq!(s, vec![0.0]);
    }

    #[test]
    fn repeated_text_is_matched_once() {
        // The gold has the sentence once; the page repeats it (a hidden copy).
        let s = matched_shares(
            ["one two three four", "one two three four"],
            "one two three four",
            &mut Interner::default(),
        );
        assert_eq!(s.iter().filter(|&&x| x == 1.0).count(), 1);
    }
}
