//! Text said twice or beside the content: figure captions and repeated
//! blocks, which every corpus's gold leaves out (or holds once).

use foldhash::HashMap as FastMap;

use crate::blocks::{ancestry, Blocks};

/// Figure captions are the page's content, and are kept, when less than
/// this share of the kept words lies outside `<figcaption>` elements: a
/// photo post whose only text is its caption, a gallery of captioned
/// pictures. Elsewhere a caption describes a picture beside the text, and
/// the gold of every training corpus leaves it out (WCXB dev: 1,150 of
/// 1,287 captions of 3+ words), while the classifier, which sees a
/// paragraph of prose inside the article, keeps most of them.
pub const CAPTIONS_ARE_MAIN: f64 = 0.5;

/// True when block `i` lies inside a `<figcaption>`, or, when `named`,
/// inside an element whose id or class names a caption
/// ([`ancestry::NAMED_CAPTION`]). A named caption must hold the block's
/// layout element (its owner): a caption `<span>` can open a paragraph's
/// block, and the paragraph's text after it is no caption. `<figcaption>`
/// is a layout element of its own, so its blocks never run past it.
fn in_caption(blocks: &Blocks, i: usize, named: bool) -> bool {
    let has = |element: u32, bit: u32| {
        blocks
            .elements
            .get(element as usize)
            .is_some_and(|e| e.ancestry & bit != 0)
    };
    let b = &blocks.blocks[i];
    has(b.element, ancestry::CAPTION) || named && has(b.owner, ancestry::NAMED_CAPTION)
}

/// Drops the kept blocks inside `<figcaption>` elements (and, when
/// `named`, inside elements whose id or class names a caption) unless less
/// than `main_share` of the kept words lie outside them
/// ([`CAPTIONS_ARE_MAIN`] in extraction; other shares for measuring the
/// rule). Extraction passes `named` on pages predicted articles
/// ([`SelectConfig::names_captions`](super::SelectConfig::names_captions)):
/// on a gallery, a shop or a service page a "caption" class holds the
/// items' own text.
pub fn exclude_captions(blocks: &Blocks, kept: &mut [bool], main_share: f64, named: bool) {
    let mut caption = vec![false; kept.len()];
    let (mut inside, mut outside) = (0u64, 0u64);
    for (i, b) in blocks.blocks.iter().enumerate().filter(|(i, _)| kept[*i]) {
        if b.words == 0 {
            continue;
        }
        caption[i] = in_caption(blocks, i, named);
        if caption[i] {
            inside += u64::from(b.words);
        } else {
            outside += u64::from(b.words);
        }
    }
    if inside == 0 || (outside as f64) < main_share * (inside + outside) as f64 {
        return;
    }
    for (k, c) in kept.iter_mut().zip(caption) {
        *k &= !c;
    }
}

/// Kept blocks of at least this many words are dropped by
/// [`exclude_repeats`] when they repeat an earlier kept block's text from
/// another container. Shorter repeats ("Read more", a product's price, a
/// recurring "Note:" line) are too often the page's own text said twice.
pub const REPEAT_MIN_WORDS: u32 = 8;

/// Ancestor levels compared by [`exclude_repeats`] to tell a second
/// container from a repeated element of the same kind.
const REPEAT_PATH_LEVELS: usize = 6;

/// True when the elements `a` and `b` and their ancestors, up to
/// [`REPEAT_PATH_LEVELS`] levels, have the same tags and id/class tokens.
fn same_container_path(blocks: &Blocks, a: u32, b: u32) -> bool {
    let mut left = blocks.ancestors(a).take(REPEAT_PATH_LEVELS);
    let mut right = blocks.ancestors(b).take(REPEAT_PATH_LEVELS);
    loop {
        match (left.next(), right.next()) {
            (None, None) => return true,
            (Some(x), Some(y)) => {
                if x.tag != y.tag || !blocks.tokens_of(x).eq(blocks.tokens_of(y)) {
                    return false;
                }
            }
            _ => return false,
        }
    }
}

/// Drops a kept block of at least `min_words` words ([`REPEAT_MIN_WORDS`]
/// in extraction) whose text is that of an earlier kept block in a
/// container of another shape (tags and id/class tokens of the element
/// and its ancestors, six levels). Pages render the same text twice: a
/// desktop and a mobile copy of the article's intro or of a product's
/// feature list, a pull quote, a forum reply quoting its parent, a
/// "summary" tab repeating the lead. Every corpus's gold holds such text
/// once, and word F1 counts words with their multiplicity. A repeat in a
/// container of the same shape (a note repeated in each tab of a
/// documentation page, one record of a list) is the page's own text said
/// twice and stays.
pub fn exclude_repeats(blocks: &Blocks, kept: &mut [bool], min_words: u32) {
    let mut first: FastMap<&str, usize> = FastMap::default();
    for (i, b) in blocks.blocks.iter().enumerate() {
        if !kept[i] || b.words < min_words {
            continue;
        }
        match first.entry(b.text.as_str()) {
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(i);
            }
            std::collections::hash_map::Entry::Occupied(o) => {
                let earlier = blocks.blocks[*o.get()].element;
                if !same_container_path(blocks, earlier, b.element) {
                    kept[i] = false;
                }
            }
        }
    }
}
