//! Stage 1: bytes to a [`Document`]. Gzip is undone, the charset sniffed and
//! decoded, and html5ever builds an arena DOM. Any bytes give a document
//! (possibly empty); only pages over the configured node limit are refused.

pub mod charset;
pub mod dom;

use html5ever::tendril::TendrilSink;
use html5ever::ParseOpts;

pub use charset::CharsetSource;
pub use dom::{Dom, Node, NodeData, NodeId, DOCUMENT};

use crate::error::{Error, Result};

/// Limits applied while parsing.
#[derive(Debug, Clone, Copy)]
pub struct ParseLimits {
    /// Bytes kept (after decompression); the rest is cut off.
    pub max_bytes: usize,
    /// DOM nodes allowed before the page is refused.
    pub max_nodes: usize,
    /// Element nesting allowed before the page is refused (see [`estimated_depth`]).
    pub max_depth: usize,
}

impl Default for ParseLimits {
    fn default() -> Self {
        let c = crate::config::ExtractorConfig::default();
        ParseLimits {
            max_bytes: c.max_bytes,
            max_nodes: c.max_nodes,
            max_depth: c.max_depth,
        }
    }
}

/// A parsed page.
#[derive(Debug)]
pub struct Document {
    /// The DOM.
    pub dom: Dom,
    /// The encoding the bytes were decoded with.
    pub encoding: &'static encoding_rs::Encoding,
    /// Where that encoding came from.
    pub charset_source: CharsetSource,
    /// True when the input was cut at `max_bytes`.
    pub truncated: bool,
    /// Bytes of HTML after decompression (before any truncation).
    pub html_bytes: usize,
}

impl Document {
    /// The text of the first `<title>`, whitespace collapsed.
    pub fn title(&self) -> Option<String> {
        let id = self.dom.find_first("title")?;
        let t = crate::text::collapse_whitespace(&self.dom.text_of(id));
        (!t.is_empty()).then_some(t)
    }
}

/// Parses a page from raw bytes (gzip allowed). `charset_override` is a
/// charset label from an HTTP or WARC header, if known.
pub fn parse(
    bytes: &[u8],
    charset_override: Option<&str>,
    limits: ParseLimits,
) -> Result<Document> {
    let mut truncated;
    let html_bytes;
    let raw: std::borrow::Cow<[u8]> = if charset::is_gzip(bytes) {
        let (out, cut, err) = charset::gunzip_bounded(bytes, limits.max_bytes);
        if let Some(e) = err {
            if out.is_empty() {
                return Err(Error::Page(format!("corrupt gzip data: {e}")));
            }
            // A damaged tail: keep what decoded, as a browser would.
        }
        truncated = cut;
        html_bytes = out.len();
        out.into()
    } else {
        html_bytes = bytes.len();
        truncated = bytes.len() > limits.max_bytes;
        bytes[..bytes.len().min(limits.max_bytes)].into()
    };
    let (mut text, encoding, charset_source) = charset::decode(raw, charset_override);
    if text.len() > limits.max_bytes {
        // Decoding a legacy charset can grow the text; keep the byte bound.
        let mut cut = limits.max_bytes;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        truncated = true;
    }
    let depth = estimated_depth(&text);
    if depth > limits.max_depth {
        return Err(Error::Page(format!(
            "elements nest about {depth} deep, more than the limit of {}",
            limits.max_depth
        )));
    }
    let dom = parse_str(&text, limits.max_nodes)?;
    Ok(Document {
        dom,
        encoding,
        charset_source,
        truncated,
        html_bytes,
    })
}

/// Tags that are void or that the HTML parser closes by itself, so an
/// unclosed one does not deepen the tree (`name` as written, any case).
fn is_self_closing(name: &[u8]) -> bool {
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

/// An upper estimate of how deep the page's elements nest, from a scan of
/// its tags (start tags deepen, end tags and self-closing tags do not).
///
/// html5ever checks the stack of open elements on many start tags, which
/// makes pathological nesting quadratic (100,000 nested `<div>`s take about
/// 100 s); browsers cap depth too. Pages deeper than
/// [`ExtractorConfig::max_depth`](crate::config::ExtractorConfig::max_depth)
/// are refused before parsing, in time linear in their size.
pub fn estimated_depth(html: &str) -> usize {
    let bytes = html.as_bytes();
    let (mut depth, mut max) = (0usize, 0usize);
    let mut i = 0;
    // memchr: this scan runs on every page before parsing, so it has to be
    // a small fraction of html5ever's time.
    while let Some(off) = memchr::memchr(b'<', &bytes[i..]) {
        i += off + 1;
        let Some(&c) = bytes.get(i) else { break };
        let closing = c == b'/';
        let start = if closing { i + 1 } else { i };
        let len = bytes[start..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric())
            .count();
        if len == 0 || !bytes[start].is_ascii_alphabetic() {
            continue;
        }
        if is_self_closing(&bytes[start..start + len]) {
            continue;
        }
        // `<path ... />`: self-closing syntax (SVG, MathML, void elements).
        let end = memchr::memchr(b'>', &bytes[start + len..]).map(|e| start + len + e);
        if end.is_some_and(|e| e > 0 && bytes[e - 1] == b'/') {
            continue;
        }
        if closing {
            depth = depth.saturating_sub(1);
        } else {
            depth += 1;
            max = max.max(depth);
        }
        i = start + len;
    }
    max
}

/// html5ever's options for every parse, the floor in `bench` included.
fn parse_opts() -> ParseOpts {
    let mut opts = ParseOpts::default();
    // Scripting off: <noscript> content is parsed as markup, so its text can
    // become blocks (Discourse forums put the whole page there).
    opts.tree_builder.scripting_enabled = false;
    opts
}

/// Parses already-decoded HTML into an arena DOM.
pub fn parse_str(html: &str, max_nodes: usize) -> Result<Dom> {
    let sink = dom::Sink::new(max_nodes.max(1), html.len());
    let (dom, overflow) = html5ever::parse_document(sink, parse_opts()).one(html);
    if overflow {
        return Err(Error::Page(format!("more than {max_nodes} DOM nodes")));
    }
    Ok(dom)
}

/// Parses a page with html5ever into the arena and nothing else: the floor
/// that `bench` compares the whole pipeline against.
pub fn parse_only(html: &str) -> usize {
    let sink = dom::Sink::new(usize::MAX / 2, html.len());
    let (dom, _) = html5ever::parse_document(sink, parse_opts()).one(html);
    dom.nodes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn parses_and_finds_title() {
        let doc = parse(
            b"<title> Hello  world </title><p>x",
            None,
            ParseLimits::default(),
        )
        .unwrap();
        assert_eq!(doc.title().as_deref(), Some("Hello world"));
    }

    #[test]
    fn node_limit_is_an_error() {
        let html = "<div>".repeat(1000);
        let limits = ParseLimits {
            max_nodes: 100,
            ..ParseLimits::default()
        };
        assert!(matches!(
            parse(html.as_bytes(), None, limits),
            Err(Error::Page(_))
        ));
    }

    #[test]
    fn max_bytes_truncates() {
        let html = format!("<p>{}</p>", "word ".repeat(1000));
        let limits = ParseLimits {
            max_bytes: 100,
            ..ParseLimits::default()
        };
        let doc = parse(html.as_bytes(), None, limits).unwrap();
        assert!(doc.truncated);
    }

    #[test]
    fn pathological_nesting_is_refused_quickly() {
        let html = format!("{}x{}", "<div>".repeat(100_000), "</div>".repeat(100_000));
        assert_eq!(estimated_depth(&html), 100_000);
        let err = parse(html.as_bytes(), None, ParseLimits::default()).unwrap_err();
        assert!(err.to_string().contains("nest"), "{err}");
        // Unclosed paragraphs and list items do not count as nesting.
        assert!(estimated_depth(&"<ul><li><p>item".repeat(10)) <= 10);
        assert_eq!(estimated_depth("<a><b></b></a><br><img>"), 2);
        assert_eq!(estimated_depth(&"<svg><path d='M0'/>".repeat(3)), 3);
    }

    #[test]
    fn empty_and_junk_bytes_parse() {
        for bytes in [&b""[..], b"\x00\x01\x02\xff\xfe\xfd", b"   \n\t"] {
            parse(bytes, None, ParseLimits::default()).unwrap();
        }
    }
}
