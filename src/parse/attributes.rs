//! The attributes the parse keeps ([`KEPT_ATTRIBUTES`]): the pre-scan
//! (`raw_text.rs`) cuts every other attribute out of a start tag before
//! html5ever sees the page.
//!
//! html5ever reads an attribute's name one character at a time and makes
//! each attribute a name atom and a value string: on the readability pages
//! the attributes no stage reads (`data-*`, `srcset`, `onclick`, SVG path
//! data ...) are a sixth of what is left after script and style bodies, and
//! cutting them saves 7 % of the extraction's instructions.
//!
//! An attribute is cut only where that cannot change the tree:
//! - it follows white space (after a `/` it would make the tag
//!   self-closing), and no `=` follows it (after a value that `=` starts
//!   an attribute, after a name it would start that attribute's value);
//! - not on a formatting element other than `a` (`b`, `i`, `font` ...),
//!   whose attributes decide which of three equal open ones the parser
//!   forgets; an `a` never has three open;
//! - not the `type` of an `input` (a hidden one stays in a table), nor the
//!   `color`, `face` or `size` of a `font` (they end SVG), nor the
//!   `encoding` of MathML's `annotation-xml` (it lets HTML in): these are
//!   in the kept list;
//! - inside SVG and MathML (and on their roots) not a name with a prefix
//!   (`xlink:href` becomes `href`) nor `xmlns`.
//!
//! The cut attributes are gone from the tree: `Node::attr` asserts in debug
//! builds that a stage asks only for kept ones, and a stage that needs a
//! new attribute adds it here.

/// Every attribute a stage reads, lower-case, sorted; the rest are cut
/// before parsing. Besides the ones stages read: `type`, `color`, `face`,
/// `size` and `encoding`, which change how html5ever builds the tree.
pub const KEPT_ATTRIBUTES: &[&str] = &[
    "alt",
    "aria-hidden",
    "charset",
    "class",
    "color",
    "colspan",
    "content",
    "data-src",
    "datetime",
    "encoding",
    "face",
    "hidden",
    "href",
    "http-equiv",
    "id",
    "itemprop",
    "itemtype",
    "lang",
    "name",
    "property",
    "pubdate",
    "rel",
    "role",
    "rowspan",
    "size",
    "src",
    "start",
    "style",
    "type",
    "xml:lang",
];

/// True when the parse keeps attribute `name` (lower-case).
pub fn is_kept(name: &str) -> bool {
    KEPT_ATTRIBUTES.binary_search(&name).is_ok()
}

/// True when a start tag named `tag` (as written) may lose attributes:
/// not a formatting element other than `a`, nor an `abbr`, whose `title`
/// holds an hAtom date (`metadata/microformats.rs`; `abbr` is rare, so
/// keeping its attributes costs nothing measurable).
pub(super) fn may_cut_in(tag: &[u8]) -> bool {
    // By length first: most tags are compared with one name or none.
    let uncut: &[&[u8]] = match tag.len() {
        1 => &[b"b", b"i", b"s", b"u"],
        2 => &[b"em", b"tt"],
        3 => &[b"big"],
        4 => &[b"abbr", b"code", b"font", b"nobr"],
        5 => &[b"small"],
        6 => &[b"strike", b"strong"],
        _ => return true,
    };
    !uncut.iter().any(|f| tag.eq_ignore_ascii_case(f))
}

/// True when the attribute named `name` (as written) may be cut from a
/// start tag; `foreign` when the tag is in SVG or MathML or is one's root.
pub(super) fn may_cut(name: &[u8], foreign: bool) -> bool {
    if foreign
        && (name.contains(&b':') || crate::text::starts_with_ignore_ascii_case(name, b"xmlns"))
    {
        return false;
    }
    // A length test first: most names differ in length from a kept one of
    // the same bytes (a lower-cased copy and a binary search cost twice).
    !KEPT_ATTRIBUTES
        .iter()
        .any(|k| k.len() == name.len() && k.as_bytes().eq_ignore_ascii_case(name))
}

/// One attribute of a start tag as the tokeniser reads it: its name
/// `start..name_end` and the end of its value (`name_end` without one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct AttrSpan {
    pub start: usize,
    pub name_end: usize,
    pub end: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kept_list_is_sorted_lower_case_and_short() {
        assert!(KEPT_ATTRIBUTES.windows(2).all(|w| w[0] < w[1]));
        for name in KEPT_ATTRIBUTES {
            assert_eq!(*name, name.to_ascii_lowercase());
            assert!(name.len() <= 11, "{name}");
        }
    }

    #[test]
    fn what_may_be_cut() {
        assert!(may_cut(b"data-id", false));
        assert!(may_cut(b"onclick", false));
        assert!(may_cut(b"a-very-long-attribute-name", false));
        assert!(!may_cut(b"CLASS", false));
        assert!(!may_cut(b"href", true));
        assert!(may_cut(b"xlink:href", false));
        assert!(!may_cut(b"xlink:href", true));
        assert!(!may_cut(b"xmlns", true));
        assert!(may_cut(b"d", true));
        assert!(may_cut_in(b"div"));
        assert!(may_cut_in(b"a"));
        assert!(!may_cut_in(b"B"));
        assert!(!may_cut_in(b"font"));
        assert!(!may_cut_in(b"ABBR"));
    }
}
