//! Per-element sums over a page's blocks, shared by the feature families
//! that look beyond one block: subtree word, link, image and control counts,
//! element signatures (tag plus id/class tokens), DOM paths, and repeated
//! records (sibling elements with one signature, as the items of a product
//! grid, the posts of a thread or the teasers of a listing).
//!
//! [`crate::blocks::split`] pushes elements in document order, so a parent's
//! index is always below its children's: one backward pass adds every
//! element's sums into its parent, in time linear in the page.

use foldhash::HashMap as FastMap;

use crate::blocks::Blocks;

/// Sibling groups smaller than this are not records.
pub const MIN_RECORDS: u32 = 3;

/// Per-element sums and signatures of one page (vectors indexed like
/// [`Blocks::elements`]).
#[derive(Debug, Clone, Default)]
pub struct ElementTree {
    /// Words of the blocks under the element.
    pub words: Vec<u32>,
    /// Link words of the blocks under the element.
    pub link_words: Vec<u32>,
    /// Links (`<a>`) under the element.
    pub links: Vec<u32>,
    /// Images under the element.
    pub images: Vec<u32>,
    /// Form controls under the element.
    pub inputs: Vec<u32>,
    /// Blocks with words under the element.
    pub blocks: Vec<u32>,
    /// Hash of the element's tag and its id/class tokens without digits.
    pub signature: Vec<u64>,
    /// Hash of the signatures from the root down to the element.
    pub path: Vec<u64>,
    /// Siblings with text sharing the element's signature, itself included
    /// (0 for an element without words).
    pub group_size: Vec<u32>,
    /// The element's index among those siblings, in document order.
    pub group_index: Vec<u32>,
    /// Words under all the siblings of the group.
    pub group_words: Vec<u32>,
    /// Blocks with words per DOM path (`path` of their element).
    pub path_blocks: FastMap<u64, u32>,
}

/// FNV-1a step over a byte slice.
pub(crate) fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    h
}

/// FNV-1a's offset basis: the hash of no bytes.
pub(crate) const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;

impl ElementTree {
    /// Builds the sums of a page.
    pub fn build(page: &Blocks) -> ElementTree {
        let n = page.elements.len();
        let mut t = ElementTree {
            words: vec![0; n],
            link_words: vec![0; n],
            links: vec![0; n],
            images: vec![0; n],
            inputs: vec![0; n],
            blocks: vec![0; n],
            signature: vec![0; n],
            path: vec![0; n],
            group_size: vec![0; n],
            group_index: vec![0; n],
            group_words: vec![0; n],
            path_blocks: FastMap::default(),
        };
        for b in &page.blocks {
            let e = b.element as usize;
            if e >= n {
                continue;
            }
            t.words[e] += b.words;
            t.link_words[e] += b.link_words;
            t.links[e] += b.links;
            t.images[e] += b.images;
            t.inputs[e] += b.inputs;
            t.blocks[e] += (b.words > 0) as u32;
        }
        for (e, info) in page.elements.iter().enumerate() {
            let h = Self::signature_of(page, info);
            t.signature[e] = h;
            let parent_path = info
                .parent
                .and_then(|p| t.path.get(p as usize).copied())
                .unwrap_or(FNV_START);
            t.path[e] = fnv(parent_path, &h.to_le_bytes());
        }
        for e in (0..n).rev() {
            if let Some(p) = page.elements[e].parent.map(|p| p as usize) {
                if p < e {
                    t.words[p] += t.words[e];
                    t.link_words[p] += t.link_words[e];
                    t.links[p] += t.links[e];
                    t.images[p] += t.images[e];
                    t.inputs[p] += t.inputs[e];
                    t.blocks[p] += t.blocks[e];
                }
            }
        }
        // Sibling groups: (parent, signature) → members with words.
        let mut groups: FastMap<(u32, u64), (u32, u32)> = FastMap::default();
        for (e, info) in page.elements.iter().enumerate() {
            if t.words[e] == 0 {
                continue;
            }
            let g = groups
                .entry((info.parent.unwrap_or(u32::MAX), t.signature[e]))
                .or_insert((0, 0));
            t.group_index[e] = g.0;
            g.0 += 1;
            g.1 += t.words[e];
        }
        for (e, info) in page.elements.iter().enumerate() {
            if t.words[e] == 0 {
                continue;
            }
            if let Some(&(size, words)) =
                groups.get(&(info.parent.unwrap_or(u32::MAX), t.signature[e]))
            {
                t.group_size[e] = size;
                t.group_words[e] = words;
            }
        }
        for b in &page.blocks {
            if b.words > 0 {
                if let Some(&p) = t.path.get(b.element as usize) {
                    *t.path_blocks.entry(p).or_insert(0) += 1;
                }
            }
        }
        t
    }

    /// Hash of an element's tag and its id/class tokens without digits
    /// (`card c-1` and `card c-2` are one signature): [`Self::signature`].
    #[inline]
    pub fn signature_of(page: &Blocks, info: &crate::blocks::ElementInfo) -> u64 {
        let mut h = fnv(FNV_START, info.tag.as_bytes());
        for tok in page.tokens_of(info) {
            if !tok.bytes().any(|c| c.is_ascii_digit()) {
                h = fnv(h ^ 0x2f, tok.as_bytes());
            }
        }
        h
    }

    /// The `k`-th ancestor of element `e` (k = 0: `e` itself).
    pub fn ancestor(page: &Blocks, e: u32, k: usize) -> Option<u32> {
        let mut cur = e;
        for _ in 0..k {
            cur = page.elements.get(cur as usize)?.parent?;
        }
        ((cur as usize) < page.elements.len()).then_some(cur)
    }

    /// The innermost record enclosing element `e` (itself included),
    /// searching at most `max_up` levels: an element whose sibling group
    /// has at least [`MIN_RECORDS`] members.
    pub fn record_of(&self, page: &Blocks, e: u32, max_up: usize) -> Option<u32> {
        let mut cur = Some(e);
        for _ in 0..=max_up {
            let c = cur?;
            if self.group_size.get(c as usize).copied().unwrap_or(0) >= MIN_RECORDS {
                return Some(c);
            }
            cur = page.elements.get(c as usize)?.parent;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse, ParseLimits};

    fn page(html: &str) -> Blocks {
        crate::blocks::split(&parse(html.as_bytes(), None, ParseLimits::default()).unwrap())
    }

    #[test]
    fn sums_reach_the_root_and_records_are_found() {
        let p = page(
            "<body><div id=grid>\
             <div class='card c-1'><h3>One</h3><p>first item text</p></div>\
             <div class='card c-2'><h3>Two</h3><p>second item <a href=x>link</a></p></div>\
             <div class='card c-3'><h3>Three</h3><p>third item here</p><img src=a></div>\
             </div><p>alone</p></body>",
        );
        let t = ElementTree::build(&p);
        let body = p.elements.iter().position(|e| &*e.tag == "body").unwrap();
        assert_eq!(t.words[body], p.total_words);
        assert_eq!(t.links[body], 1);
        assert_eq!(t.images[body], 1);
        // The cards differ only in digit-bearing class tokens: one group.
        let card = p.blocks[0].owner;
        let rec = t.record_of(&p, p.blocks[0].element, 4).unwrap();
        assert_eq!(&*p.elements[rec as usize].tag, "div");
        assert_eq!(t.group_size[rec as usize], 3);
        assert_ne!(rec, card, "the h3 is not a record, its card is");
        let last = p.blocks.last().unwrap();
        assert!(t.record_of(&p, last.element, 4).is_none());
        // Same path for the three headings.
        let h = t.path[p.blocks[0].element as usize];
        assert_eq!(t.path_blocks[&h], 3);
    }
}
