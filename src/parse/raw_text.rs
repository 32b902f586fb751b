//! Script and style bodies cut out of a page before html5ever sees it.
//!
//! Between 40 and 45 % of the bytes of the pages we measure are the bodies
//! of `<script>` and `<style>` elements (readability pages 45 %, 500 WCXB
//! dev pages 42 %), and no stage reads them: blocks, features and visible
//! dates skip both elements, and metadata reads only JSON-LD. html5ever
//! still tokenises them and the arena stores them; handing it the page
//! without them takes 17 % off the parse (callgrind, readability pages,
//! `docs/experiments.md`, "Speed and memory").
//!
//! The cut must never change the rest of the tree, so the scan follows the
//! HTML tokeniser wherever it could mistake text for a start tag, and where
//! it cannot be sure it keeps the page as written:
//! - comments, doctypes, CDATA sections, processing instructions and end
//!   tags are skipped whole, each ended as the tokeniser ends it; a tag
//!   ends at the first `>` outside a quoted attribute value;
//! - the text of `<title>`, `<textarea>`, `<xmp>`, `<iframe>`, `<noembed>`
//!   and `<noframes>` is skipped to its end tag; `<plaintext>` ends the
//!   scan;
//! - a tag is a script or style only when its name is exactly that (any
//!   case), and the body ends at the first `</script` or `</style`
//!   followed by whitespace, `/` or `>`, as the tokeniser ends it;
//! - a script body holding `<!--` and `<script` may be in the tokeniser's
//!   double-escaped state, where the first `</script>` does not end it:
//!   from there on the rest of the page is kept;
//! - a script whose start tag mentions `json` (JSON-LD, which metadata and
//!   page-type signals read) is kept;
//! - in SVG and MathML a script, style or title holds markup: a script or
//!   style body is cut, and a title skipped, only when it holds no `<`
//!   (then it is one text either way), else the rest of the page is kept;
//! - an element left open at the end of the page stops the scan.
//!
//! The script and style elements stay in the tree, empty.
//!
//! The same walk collapses white space between tags: a quarter of the
//! readability pages' bytes after the cut are indentation, which html5ever
//! tokenises a character at a time and the arena stores. A run of two or
//! more ASCII white space bytes that starts the text after a tag or comment
//! is cut to its first byte; no stage tells one white space character from
//! many (blocks, Markdown and HTML collapse runs; visible dates measure
//! distances in the text as parsed), and the tree is the same but for the
//! length of those runs. Inside `<pre>` and `<listing>` (by a stack of
//! their start and end tags) white space is content and stays; once a
//! table, select, object or
//! another boundary of the parser's scope opens inside one, where a
//! `</pre>` may be ignored, the rest of the page keeps its white space, as
//! it does inside SVG and MathML and wherever the script cut stops.
//!
//! The same walk of the tags feeds the depth estimate of `depth.rs`, so
//! the page's markup is scanned once before parsing.
//!
//! Written by hand: no crate finds raw-text element bodies without
//! building a tree, which is the cost this avoids.

use super::attributes::{self, AttrSpan};
use super::depth::DepthCounter;
use crate::text::contains_ignore_ascii_case;

/// What the pre-scan found: the page in pieces without script and style
/// bodies, and how deep its elements nest.
#[derive(Debug)]
pub struct Prescan<'a> {
    /// Pieces whose concatenation is the page without the bodies of its
    /// `<script>` (but JSON) and `<style>` elements and, when asked, the
    /// attributes the parse does not keep and the white space between tags
    /// beyond one byte a run, in order. Every cut falls next to an ASCII
    /// `<`, `>`, quote or white space, so each piece is valid UTF-8.
    pub pieces: Vec<&'a str>,
    /// The estimated depth ([`super::depth`]): 0 without a limit; over the
    /// limit as soon as the page passes it, the pieces then unfinished.
    pub depth: usize,
    /// Start tags seen.
    pub start_tags: usize,
}

impl Prescan<'_> {
    /// The nodes the page's tree is expected to hold, to size its arena
    /// once: an element and about one text node a start tag.
    pub fn expected_nodes(&self) -> usize {
        self.start_tags.saturating_mul(2).saturating_add(8)
    }
}

/// One walk of the page's tags: the script and style bodies to cut; with
/// `slim`, the attributes the parse does not keep ([`super::attributes`])
/// and each run of two or more white space bytes that starts the text after
/// a tag, cut to its first byte outside `<pre>` and `<listing>` (see the
/// module's doc); and, with a `depth_limit`, the depth estimate of
/// [`super::depth`] (the walk stops once the depth passes the limit: the
/// page is refused).
pub fn prescan(html: &str, depth_limit: Option<usize>, slim: bool) -> Prescan<'_> {
    let b = html.as_bytes();
    let space = |x: &u8| matches!(x, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ');
    let mut collapsing = slim;
    // `<pre>` and `<listing>` elements open by our count, innermost last
    // (true for a listing): their white space is content. An end tag closes
    // the innermost when it names it; counting too many open (an ancestor's
    // end tag may have closed one) only collapses less.
    let mut pre: Vec<bool> = Vec::new();
    // How many of each are on `pre` ([pre, listing]): a look for a name
    // in the stack costs nothing however deep it is.
    let mut open = [0usize; 2];
    let mut spans: Vec<AttrSpan> = Vec::new();
    let mut start_tags = 0;
    let mut depth = depth_limit.map(DepthCounter::new);
    let mut pieces = Vec::new();
    let mut kept_from = 0;
    // False once a script may be double-escaped: the walk goes on for the
    // depth, the rest of the page is kept.
    let mut cutting = true;
    // `<svg>` and `<math>` elements open by our count, innermost last:
    // inside them a script or style holds markup, not text. An end tag
    // closes one only when it names the innermost (the parser may close
    // more; counting too many open only makes the cut more careful).
    let mut foreign: Vec<bool> = Vec::new();
    let mut i = 0;
    while let Some(off) = memchr::memchr(b'<', &b[i..]) {
        if collapsing && cutting && pre.is_empty() && foreign.is_empty() && off >= 2 {
            // The same bound on pieces as for attributes below.
            let room = html.len() / 8 + 256 > pieces.len();
            let run = b[i..i + off].iter().take_while(|x| space(x)).count();
            if run >= 2 && room {
                pieces.push(&html[kept_from..i + 1]);
                kept_from = i + run;
            }
        }
        let lt = i + off;
        let Some(&c) = b.get(lt + 1) else { break };
        if c == b'!' {
            let Some((next, unsure)) = skip_bang(b, lt + 2, !foreign.is_empty()) else {
                break;
            };
            if unsure {
                cutting = false;
            }
            i = next;
            continue;
        }
        if c == b'?' {
            let Some(gt) = memchr::memchr(b'>', &b[lt..]) else {
                break;
            };
            i = lt + gt + 1;
            continue;
        }
        let closing = c == b'/';
        let name_at = if closing { lt + 2 } else { lt + 1 };
        if !b.get(name_at).is_some_and(u8::is_ascii_alphabetic) {
            if closing {
                // `</>` is dropped; `</ 1>`, `</<x>` are bogus comments
                // that run to the first `>`.
                let Some(gt) = memchr::memchr(b'>', &b[name_at..]) else {
                    break;
                };
                i = name_at + gt + 1;
            } else {
                // Text (`a < b`).
                i = lt + 1;
            }
            continue;
        }
        let name_len = b[name_at..]
            .iter()
            .take_while(|&&x| !matches!(x, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ' | b'/' | b'>'))
            .count();
        let name = &b[name_at..name_at + name_len];
        start_tags += usize::from(!closing);
        // A piece per cut attribute: past one piece per 8 bytes of page
        // (hostile markup of tiny attributes; real pages cut one attribute
        // per 250 bytes or so) attributes are kept, so the pieces and the
        // spans take at most twice the page's size.
        let room = (html.len() / 8 + 256).saturating_sub(pieces.len());
        let cut_here = slim && cutting && !closing && attributes::may_cut_in(name);
        spans.clear();
        let Some(gt) = tag_end(
            b,
            name_at + name_len,
            cut_here.then_some((&mut spans, room)),
        ) else {
            break;
        };
        i = gt + 1;
        if !spans.is_empty() {
            let foreign_here = !foreign.is_empty() || is_foreign_root(name);
            for s in &spans {
                // After white space only (after a `/` the cut would make
                // the tag self-closing), and not before an `=`: after a
                // value it starts an attribute named `=`, after the name of
                // the attribute before the cut it would give that one a value.
                let after_space = space(&b[s.start - 1]);
                let before_equals = b[s.end..].iter().find(|x| !space(x)) == Some(&b'=');
                if after_space
                    && !before_equals
                    && attributes::may_cut(&b[s.start..s.name_end], foreign_here)
                {
                    pieces.push(&html[kept_from..s.start]);
                    kept_from = s.end;
                }
            }
        }
        if closing {
            if is_foreign_root(name) && foreign.last() == Some(&name.eq_ignore_ascii_case(b"svg")) {
                foreign.pop();
            }
            if let Some(listing) = pre_kind(name).filter(|_| collapsing) {
                if pre.last() == Some(&listing) {
                    pre.pop();
                    open[usize::from(listing)] -= 1;
                } else if open[usize::from(listing)] > 0 {
                    // Misnested: whether the parser closes the inner ones
                    // depends on what else closed since. White space is
                    // kept from here on.
                    collapsing = false;
                }
            }
            if let Some(d) = depth.as_mut() {
                d.end_tag(name);
            }
            continue;
        }
        let kind = RawKind::of(name);
        match kind {
            RawKind::None => {
                if is_foreign_root(name) && b[gt - 1] != b'/' {
                    foreign.push(name.eq_ignore_ascii_case(b"svg"));
                }
                if let Some(listing) = pre_kind(name).filter(|_| collapsing) {
                    pre.push(listing);
                    open[usize::from(listing)] += 1;
                } else if !pre.is_empty() && is_scope_boundary(name) {
                    // A `</pre>` inside a table, select, object ... may be
                    // ignored by the parser while our count closes the pre:
                    // white space is kept from here on.
                    collapsing = false;
                }
                if let Some(d) = depth.as_mut() {
                    if !d.start_tag(name, b[gt - 1] == b'/') {
                        break;
                    }
                }
            }
            RawKind::Plaintext => break,
            RawKind::Skip(name) => {
                let Some(end) = end_tag(b, i, name) else {
                    break;
                };
                if !foreign.is_empty() && memchr::memchr(b'<', &b[i..end]).is_some() {
                    // In SVG and MathML a `<title>` holds markup, and HTML
                    // inside it: not text to skip. The rest is kept.
                    cutting = false;
                }
                i = end;
            }
            RawKind::Script | RawKind::Style => {
                let name: &[u8] = if kind == RawKind::Script {
                    b"script"
                } else {
                    b"style"
                };
                let Some(end) = end_tag(b, i, name) else {
                    break;
                };
                let body = &b[i..end];
                if !foreign.is_empty() && memchr::memchr(b'<', body).is_some() {
                    // Markup in an SVG or MathML script or style would be
                    // elements, or text where the parser broke out of the
                    // SVG: not ours to tell. The rest of the page is kept.
                    cutting = false;
                }
                if kind == RawKind::Script && cutting {
                    if memchr::memmem::find(body, b"<!--").is_some()
                        && contains_ignore_ascii_case(body, b"<script")
                    {
                        cutting = false;
                    }
                    if contains_ignore_ascii_case(&b[lt..i], b"json") {
                        i = end;
                        continue;
                    }
                }
                if cutting && end > i {
                    pieces.push(&html[kept_from..i]);
                    kept_from = end;
                }
                i = end;
            }
        }
    }
    pieces.push(&html[kept_from..]);
    Prescan {
        pieces,
        depth: depth.map_or(0, |d| d.max),
        start_tags,
    }
}

/// For `pre` (false) and `listing` (true), any case, the elements whose
/// white space is content: which of the two it is.
fn pre_kind(name: &[u8]) -> Option<bool> {
    if name.eq_ignore_ascii_case(b"pre") {
        Some(false)
    } else if name.eq_ignore_ascii_case(b"listing") {
        Some(true)
    } else {
        None
    }
}

/// Elements inside which a `</pre>` may not close an open `<pre>`: the
/// boundaries of the parser's element scope, and `select`, which ignores
/// end tags it does not know (foreign content stops the collapse anyway).
fn is_scope_boundary(name: &[u8]) -> bool {
    [
        &b"table"[..],
        b"td",
        b"th",
        b"caption",
        b"object",
        b"applet",
        b"marquee",
        b"template",
        b"select",
        b"html",
    ]
    .iter()
    .any(|n| name.eq_ignore_ascii_case(n))
}

/// `svg` or `math`, any case: the roots of foreign content.
fn is_foreign_root(name: &[u8]) -> bool {
    name.eq_ignore_ascii_case(b"svg") || name.eq_ignore_ascii_case(b"math")
}

/// What a start tag's name makes of the text after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RawKind {
    /// Markup follows.
    None,
    /// A script body, cut unless it is JSON.
    Script,
    /// A style body, cut.
    Style,
    /// Text up to the named end tag, kept and not scanned.
    Skip(&'static [u8]),
    /// Text to the end of the page.
    Plaintext,
}

impl RawKind {
    fn of(name: &[u8]) -> RawKind {
        // Most tags are none of these: tell by length and first letter.
        let first = name.first().map_or(0, u8::to_ascii_lowercase);
        if !(3..=9).contains(&name.len())
            || !matches!(first, b's' | b't' | b'x' | b'i' | b'n' | b'p')
        {
            return RawKind::None;
        }
        const SKIPPED: [&[u8]; 6] = [
            b"title",
            b"textarea",
            b"xmp",
            b"iframe",
            b"noembed",
            b"noframes",
        ];
        if name.eq_ignore_ascii_case(b"script") {
            RawKind::Script
        } else if name.eq_ignore_ascii_case(b"style") {
            RawKind::Style
        } else if name.eq_ignore_ascii_case(b"plaintext") {
            RawKind::Plaintext
        } else {
            SKIPPED
                .iter()
                .find(|s| name.eq_ignore_ascii_case(s))
                .map_or(RawKind::None, |s| RawKind::Skip(s))
        }
    }
}

/// After `<!` at `from`: the position past the comment, doctype, bogus
/// comment or CDATA section it opens, and whether the cut must stop there;
/// `None` when it runs to the end of the page.
/// - A comment ends at the first `-->` or `--!>`, or at once as `<!-->`
///   or `<!--->`, as the tokeniser ends it.
/// - `<![CDATA[` is a CDATA section to `]]>` in SVG and MathML and a bogus
///   comment to the first `>` in HTML. Inside `foreign` elements (by our
///   count, which the parser may have left) the two readings agree only
///   when no `<` lies between; else the cut stops.
/// - Anything else (a doctype, a bogus comment) ends at the first `>`.
fn skip_bang(b: &[u8], from: usize, foreign: bool) -> Option<(usize, bool)> {
    let rest = &b[from..];
    if let Some(body) = rest.strip_prefix(b"--") {
        if body.starts_with(b">") {
            return Some((from + 3, false));
        }
        if body.starts_with(b"->") {
            return Some((from + 4, false));
        }
        let end = memchr::memmem::find_iter(body, b"--").find_map(|d| match body.get(d + 2) {
            Some(b'>') => Some(d + 3),
            Some(b'!') if body.get(d + 3) == Some(&b'>') => Some(d + 4),
            _ => None,
        })?;
        return Some((from + 2 + end, false));
    }
    let first_gt = from + memchr::memchr(b'>', rest)? + 1;
    if foreign {
        if let Some(section) = rest.strip_prefix(b"[CDATA[") {
            let close = memchr::memmem::find(section, b"]]>")?;
            let unsure = memchr::memchr(b'<', &section[..close]).is_some();
            return Some((from + 7 + close + 3, unsure));
        }
    }
    Some((first_gt, false))
}

/// The position of the `>` that ends the tag whose attributes start at
/// `from`; `None` when the page ends first. The tokeniser's attribute
/// states, as far as they decide where the tag ends: a quote opens a value
/// only after a name and `=` (`<a ="x">` has an attribute named `="x"`),
/// and a quoted value ends only at its own quote. With `spans`, the places
/// of the first attributes, up to the given count, are pushed there.
fn tag_end(b: &[u8], from: usize, mut spans: Option<(&mut Vec<AttrSpan>, usize)>) -> Option<usize> {
    #[derive(Clone, Copy, PartialEq)]
    enum At {
        /// Between attributes (also after a quoted value or a `/`).
        Gap,
        /// In a name.
        Name,
        /// After a name and whitespace.
        AfterName,
        /// After `=`.
        BeforeValue,
        /// In an unquoted value.
        Unquoted,
    }
    let space = |x: u8| matches!(x, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ');
    let mut at = At::Gap;
    let mut i = from;
    // The attribute being read: where its name starts and ends.
    let (mut start, mut name_end) = (0, 0);
    let mut push = |end: usize, start: usize, name_end: usize| {
        if let Some((s, _)) = spans.as_mut().filter(|(s, room)| s.len() < *room) {
            s.push(AttrSpan {
                start,
                name_end,
                end,
            });
        }
    };
    loop {
        let x = *b.get(i)?;
        if x == b'>' {
            match at {
                At::Name => push(i, start, i),
                At::AfterName => push(name_end, start, name_end),
                At::BeforeValue | At::Unquoted => push(i, start, name_end),
                At::Gap => {}
            }
            return Some(i);
        }
        at = match at {
            At::Gap if space(x) || x == b'/' => At::Gap,
            At::Gap => {
                start = i;
                At::Name
            }
            At::Name if space(x) || x == b'/' || x == b'=' => {
                name_end = i;
                if x == b'/' {
                    push(i, start, i);
                    At::Gap
                } else if x == b'=' {
                    At::BeforeValue
                } else {
                    At::AfterName
                }
            }
            At::Name => At::Name,
            At::AfterName if space(x) => At::AfterName,
            At::AfterName if x == b'/' => {
                push(name_end, start, name_end);
                At::Gap
            }
            At::AfterName if x == b'=' => At::BeforeValue,
            At::AfterName => {
                push(name_end, start, name_end);
                start = i;
                At::Name
            }
            At::BeforeValue if space(x) => At::BeforeValue,
            At::BeforeValue if x == b'"' || x == b'\'' => {
                i += 1 + memchr::memchr(x, b.get(i + 1..)?)?;
                push(i + 1, start, name_end);
                At::Gap
            }
            At::BeforeValue => At::Unquoted,
            At::Unquoted if space(x) => {
                push(i, start, name_end);
                At::Gap
            }
            At::Unquoted => At::Unquoted,
        };
        i += 1;
    }
}

/// The position of the `<` of the first `</name` after `from` that the
/// tokeniser takes as the end tag of a raw-text element (followed by
/// whitespace, `/` or `>`), any case.
pub(crate) fn end_tag(b: &[u8], from: usize, name: &[u8]) -> Option<usize> {
    let mut i = from.min(b.len());
    loop {
        let at = i + memchr::memmem::find(&b[i..], b"</")?;
        let n = at + 2;
        let matches_name = b
            .get(n..n + name.len())
            .is_some_and(|x| x.eq_ignore_ascii_case(name));
        let ends = matches!(
            b.get(n + name.len()),
            Some(b'\t' | b'\n' | b'\x0C' | b'\r' | b' ' | b'/' | b'>')
        );
        if matches_name && ends {
            return Some(at);
        }
        i = n;
    }
}

#[cfg(test)]
mod tests;
