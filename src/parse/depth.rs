//! A linear pre-scan of a page's tags that estimates how deep its elements
//! nest, so that pathological nesting is refused before html5ever sees it.
//!
//! html5ever checks the stack of open elements on many start and end tags,
//! which makes deep nesting quadratic (100,000 nested `<div>`s take about
//! 100 s); browsers cap depth too. The scan follows the parser's rules as
//! far as they decide depth, and no further:
//! - a start tag opens an element unless it is void or one the parser
//!   closes by itself (`<p>`, `<li>`, `<td>`, …: `is_self_closing`);
//! - `<x/>` opens an element in HTML (the slash is ignored there: `<div/>`
//!   is an open `div`); only in SVG and MathML does it close at once;
//! - an end tag closes the nearest open element of its name and everything
//!   opened after it; an end tag with no open element of its name is
//!   ignored (`</x>` does not make the page shallower);
//! - comments and the text of `<script>`, `<style>`, `<textarea>`,
//!   `<title>` and the like hold no tags.
//!
//! The scan stops as soon as the depth passes the caller's limit, so the
//! search for an end tag's element, which walks the open stack, costs at
//! most `limit` steps and the whole scan stays linear in the page.

/// Tags that are void or that the HTML parser closes by itself, so an
/// unclosed one does not deepen the tree (`name` as written, any case).
pub(crate) fn is_self_closing(name: &[u8]) -> bool {
    /// The longest name matched below.
    const LONGEST: usize = 8;
    if name.len() > LONGEST {
        return false;
    }
    let mut lower = [0u8; LONGEST];
    for (l, c) in lower.iter_mut().zip(name) {
        *l = c.to_ascii_lowercase();
    }
    matches!(
        &lower[..name.len()],
        b"area"
            | b"base"
            | b"br"
            | b"col"
            | b"embed"
            | b"hr"
            | b"img"
            | b"input"
            | b"link"
            | b"meta"
            | b"source"
            | b"track"
            | b"wbr"
            | b"p"
            | b"li"
            | b"dt"
            | b"dd"
            | b"option"
            | b"optgroup"
            | b"tr"
            | b"td"
            | b"th"
            | b"thead"
            | b"tbody"
            | b"tfoot"
            | b"rp"
            | b"rt"
            | b"param"
    )
}

/// A tag name folded to lower case and cut to a fixed width, enough to
/// tell open elements apart (two names that agree on their first 16 bytes
/// are taken as one: the estimate stays an estimate, never a panic).
type NameKey = [u8; 16];

fn key_of(name: &[u8]) -> NameKey {
    let mut k = [0u8; 16];
    for (slot, c) in k.iter_mut().zip(name) {
        *slot = c.to_ascii_lowercase();
    }
    k
}

fn is_foreign_root(key: &NameKey) -> bool {
    key.starts_with(b"svg\0") || key.starts_with(b"math\0")
}

/// An estimate of how deep the page's elements nest, from a scan of its
/// tags; the scan stops early and returns a value over `limit` as soon as
/// the depth passes `limit`. Time is linear in the page whatever it holds.
/// The walk of the tags is [`super::raw_text::prescan`]'s, which cuts
/// script and style bodies in the same pass.
pub fn estimated_depth(html: &str, limit: usize) -> usize {
    super::raw_text::prescan(html, Some(limit), false).depth
}

/// The depth rules, fed one tag at a time by the pre-scan's walk.
#[derive(Debug)]
pub(crate) struct DepthCounter {
    /// The open elements that deepen the tree, innermost last.
    open: Vec<NameKey>,
    /// How many of them are `svg` or `math` (self-closing syntax counts there).
    foreign: usize,
    /// The deepest the tree went.
    pub max: usize,
    limit: usize,
}

impl DepthCounter {
    /// A counter that reports when the depth passes `limit`.
    pub fn new(limit: usize) -> Self {
        DepthCounter {
            open: Vec::new(),
            foreign: 0,
            max: 0,
            limit,
        }
    }

    /// An end tag: closes the nearest open element of its name and every
    /// one opened after it; none of its name, nothing.
    pub fn end_tag(&mut self, name: &[u8]) {
        let key = key_of(name);
        if let Some(at) = self.open.iter().rposition(|k| *k == key) {
            self.foreign -= self.open[at..]
                .iter()
                .filter(|k| is_foreign_root(k))
                .count();
            self.open.truncate(at);
        }
    }

    /// A start tag that is not a raw-text element's (those hold no tags
    /// and are skipped whole by the walk); `self_closing` when it ends in
    /// `/>`. False once the depth has passed the limit.
    pub fn start_tag(&mut self, name: &[u8], self_closing: bool) -> bool {
        if is_self_closing(name) {
            return true;
        }
        let key = key_of(name);
        if self_closing && (self.foreign > 0 || is_foreign_root(&key)) {
            return true;
        }
        if is_foreign_root(&key) {
            self.foreign += 1;
        }
        self.open.push(key);
        self.max = self.max.max(self.open.len());
        self.max <= self.limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NO_LIMIT: usize = usize::MAX;

    #[test]
    fn self_closing_names_in_any_case() {
        for n in ["br", "IMG", "Optgroup", "p", "TD", "param"] {
            assert!(is_self_closing(n.as_bytes()), "{n}");
        }
        for n in ["div", "optgroups", "a", "", "section", "pp"] {
            assert!(!is_self_closing(n.as_bytes()), "{n}");
        }
    }

    #[test]
    fn nesting_as_the_parser_builds_it() {
        let nested = format!("{}x{}", "<div>".repeat(1000), "</div>".repeat(1000));
        assert_eq!(estimated_depth(&nested, NO_LIMIT), 1000);
        // Unclosed paragraphs and list items do not count as nesting.
        assert!(estimated_depth(&"<ul><li><p>item".repeat(10), NO_LIMIT) <= 10);
        assert_eq!(estimated_depth("<a><b></b></a><br><img>", NO_LIMIT), 2);
        assert_eq!(
            estimated_depth(&"<svg><path d='M0'/>".repeat(3), NO_LIMIT),
            3
        );
        // An end tag closes everything opened after its element.
        assert_eq!(
            estimated_depth(&"<div><span><b>x</div>".repeat(50), NO_LIMIT),
            3
        );
    }

    #[test]
    fn ignored_end_tags_and_html_self_closing_syntax_still_deepen() {
        // `</x>` closes nothing and `<div/>` opens a div in HTML: both pages
        // nest 100,000 deep for the parser.
        for page in ["<div></x>".repeat(100_000), "<div/>".repeat(100_000)] {
            assert_eq!(estimated_depth(&page, NO_LIMIT), 100_000);
            assert_eq!(estimated_depth(&page, 4096), 4097);
        }
    }

    #[test]
    fn comments_and_raw_text_hold_no_tags() {
        let page = format!(
            "<!-- {} --><script>{}</SCRIPT ><style>{}</style><div>x</div>",
            "<div>".repeat(100),
            "'<div>'".repeat(100),
            "<div>".repeat(100)
        );
        assert_eq!(estimated_depth(&page, NO_LIMIT), 1);
        // An unterminated comment or script ends the scan, no panic.
        assert_eq!(estimated_depth("<div><!-- <div>", NO_LIMIT), 1);
        assert_eq!(estimated_depth("<div><script><div>", NO_LIMIT), 1);
    }

    #[test]
    fn junk_never_panics() {
        for page in [
            "<",
            "</",
            "<!",
            "<!-",
            "<1>",
            "</>",
            "<a",
            "<a/",
            "<svg/><x/>",
            "<a=",
            "<a b=",
            "<a b='",
            "<?",
            "<![CDATA[",
        ] {
            // The walk both with the depth rules and without.
            estimated_depth(page, NO_LIMIT);
            super::super::raw_text::prescan(page, None, false);
        }
    }
}
