//! Where each block sits on its page (its tag path and id/class path), for
//! labelling tools and reports.

use serde::{Deserialize, Serialize};

use crate::blocks::Blocks;

/// Where a block sits on its page, for labelling tools and reports.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockPlace {
    /// Tag names from `<html>` down to the block's innermost element,
    /// joined with ` > ` (e.g. `html > body > main > p`).
    pub tags: String,
    /// The same path keeping only elements with an id or class, each as
    /// `tag.token.token` (lower-cased tokens), joined with ` > `.
    pub id_class: String,
}

/// A [`BlockPlace`] names at most this many elements, the innermost: real
/// pages nest under 60 deep (the deepest of the annotated corpora, 57), and
/// a hostile page nested thousands deep would otherwise cost blocks × depth
/// in time and memory.
pub const MAX_PLACE_LEVELS: usize = 64;

/// The [`BlockPlace`] of every block of `blocks`, in order.
pub fn block_places(blocks: &Blocks) -> Vec<BlockPlace> {
    blocks
        .blocks
        .iter()
        .map(|b| {
            let mut chain: Vec<_> = blocks.ancestors(b.element).take(MAX_PLACE_LEVELS).collect();
            chain.reverse();
            let tags: Vec<&str> = chain.iter().map(|e| &*e.tag).collect();
            let id_class: Vec<String> = chain
                .iter()
                .filter(|e| !e.tokens.is_empty())
                .map(|e| {
                    let mut s = e.tag.to_string();
                    for t in blocks.tokens_of(e) {
                        s.push('.');
                        s.push_str(t);
                    }
                    s
                })
                .collect();
            BlockPlace {
                tags: tags.join(" > "),
                id_class: id_class.join(" > "),
            }
        })
        .collect()
}
