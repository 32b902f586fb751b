//! Stage 1: bytes to a [`Document`]. Gzip is undone, the charset sniffed and
//! decoded, and html5ever builds an arena DOM. Any bytes give a document
//! (possibly empty); only pages over the configured node limit, and binary
//! data ([`binary::looks_binary`]), are refused.

pub mod attributes;
pub mod binary;
pub mod charset;
pub mod depth;
pub mod dom;
pub mod raw_text;

use html5ever::tendril::TendrilSink;
use html5ever::ParseOpts;

pub use charset::CharsetSource;
pub use depth::estimated_depth;
pub use dom::{Dom, Node, NodeData, NodeId, DOCUMENT};

use crate::error::{Error, PageError, Result};

/// Limits applied while parsing.
#[derive(Debug, Clone, Copy)]
pub struct ParseLimits {
    /// Bytes kept (after decompression); the rest is cut off.
    pub max_bytes: usize,
    /// DOM nodes allowed before the page is refused.
    pub max_nodes: usize,
    /// Element nesting allowed before the page is refused (see [`estimated_depth`]).
    pub max_depth: usize,
    /// The page's time budget, from when it started: the parse stops
    /// with [`PageError::TimedOut`] once it is spent (`None`: no limit).
    pub time_budget: Option<TimeBudget>,
}

impl Default for ParseLimits {
    fn default() -> Self {
        let c = crate::config::ExtractorConfig::default();
        ParseLimits {
            max_bytes: c.max_bytes,
            max_nodes: c.max_nodes,
            max_depth: c.max_depth,
            time_budget: None,
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
            // Damaged data (a bad checksum or length, a stream cut short):
            // the page's text cannot be trusted. A stream cut on purpose at
            // `max_bytes` is not damage (`cut`, no error).
            return Err(Error::Page(PageError::CorruptGzip(e.to_string())));
        }
        truncated = cut;
        html_bytes = out.len();
        out.into()
    } else {
        html_bytes = bytes.len();
        truncated = bytes.len() > limits.max_bytes;
        bytes[..bytes.len().min(limits.max_bytes)].into()
    };
    let (decoded, encoding, charset_source) = charset::decode(raw, charset_override);
    let mut text: &str = without_bom(&decoded);
    if binary::looks_binary(text) {
        return Err(Error::NotHtml);
    }
    if text.len() > limits.max_bytes {
        // Decoding a legacy charset can grow the text; keep the byte bound.
        let mut cut = limits.max_bytes;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text = &text[..cut];
        truncated = true;
    }
    let scan = raw_text::prescan(text, Some(limits.max_depth), true);
    if scan.depth > limits.max_depth {
        return Err(Error::Page(PageError::TooDeep {
            limit: limits.max_depth,
        }));
    }
    let dom = parse_pieces(&scan, limits.max_nodes, limits.time_budget)?;
    Ok(Document {
        dom,
        encoding,
        charset_source,
        truncated,
        html_bytes,
    })
}

/// html5ever's options for every parse, the floor in `bench` included.
pub(crate) fn parse_opts() -> ParseOpts {
    let mut opts = ParseOpts::default();
    // Scripting off: <noscript> content is parsed as markup, so its text can
    // become blocks (Discourse forums put the whole page there).
    opts.tree_builder.scripting_enabled = false;
    // html5ever drops a U+FEFF at the start of every chunk it is fed, not
    // only of the page (the flag is never cleared), so a page cut into
    // chunks would lose the ones that fall on a cut: the page's own byte
    // order mark is dropped by `without_bom` instead.
    opts.tokenizer.discard_bom = false;
    opts
}

/// `html` without a leading byte order mark (U+FEFF).
fn without_bom(html: &str) -> &str {
    html.strip_prefix('\u{feff}').unwrap_or(html)
}

/// Input is handed to html5ever in pieces of this many bytes, and the
/// page's node budget and deadline are looked at between them: small
/// enough that a stopped parse ends soon after its budget runs out, large
/// enough that the pieces cost nothing measurable.
const CHUNK_BYTES: usize = 16 * 1024;

/// Parses already-decoded HTML into an arena DOM.
pub fn parse_str(html: &str, max_nodes: usize) -> Result<Dom> {
    parse_str_within(html, max_nodes, None)
}

/// A page's time budget: when work on it started and how long it may take.
#[derive(Debug, Clone, Copy)]
pub struct TimeBudget {
    /// When work on the page started.
    pub start: std::time::Instant,
    /// How long it may take in all.
    pub limit: std::time::Duration,
}

impl TimeBudget {
    /// A budget of `limit` from now.
    pub fn from_now(limit: std::time::Duration) -> Self {
        TimeBudget {
            start: std::time::Instant::now(),
            limit,
        }
    }

    /// The error for a page that ran out of this budget during `stage`.
    pub fn timed_out(&self, stage: &'static str) -> Error {
        Error::Page(PageError::TimedOut {
            stage,
            elapsed_secs: self.start.elapsed().as_secs_f64(),
            limit_secs: self.limit.as_secs_f64(),
        })
    }

    /// `Err` when the budget is spent, naming `stage`.
    pub fn check(&self, stage: &'static str) -> Result<()> {
        if self.start.elapsed() > self.limit {
            return Err(self.timed_out(stage));
        }
        Ok(())
    }
}

/// Parses already-decoded HTML into an arena DOM, giving up with an error
/// once the page has more than `max_nodes` nodes or its `time_budget` is
/// spent. Script and style bodies are cut first (`raw_text.rs`); the depth
/// is not checked (`parse` does).
pub fn parse_str_within(
    html: &str,
    max_nodes: usize,
    time_budget: Option<TimeBudget>,
) -> Result<Dom> {
    let scan = raw_text::prescan(without_bom(html), None, true);
    parse_pieces(&scan, max_nodes, time_budget)
}

/// html5ever over the page's pieces, in order.
fn parse_pieces(
    scan: &raw_text::Prescan,
    max_nodes: usize,
    time_budget: Option<TimeBudget>,
) -> Result<Dom> {
    // A limit too far ahead for the clock is no limit.
    let deadline = time_budget.and_then(|b| b.start.checked_add(b.limit));
    let sink = dom::Sink::new(max_nodes.max(1), scan.expected_nodes(), deadline);
    // The pieces joined once: html5ever copies each input into a buffer of
    // its own, so many small pieces cost an allocation and a call each.
    let page = scan.pieces.concat();
    let mut parser = html5ever::parse_document(sink, parse_opts());
    {
        let mut rest = page.as_str();
        while !rest.is_empty() {
            let mut cut = rest.len().min(CHUNK_BYTES);
            while !rest.is_char_boundary(cut) {
                cut += 1;
            }
            let (piece, after) = rest.split_at(cut);
            parser.process(piece.into());
            rest = after;
            if let Some(why) = parser.tokenizer.sink.sink.stopped() {
                return Err(stop_error(why, max_nodes, time_budget));
            }
        }
    }
    match parser.finish() {
        (dom, None) => Ok(dom),
        (_, Some(why)) => Err(stop_error(why, max_nodes, time_budget)),
    }
}

fn stop_error(why: dom::ParseStop, max_nodes: usize, budget: Option<TimeBudget>) -> Error {
    match (why, budget) {
        (dom::ParseStop::Deadline, Some(budget)) => budget.timed_out("parsing"),
        _ => Error::Page(PageError::TooManyNodes { limit: max_nodes }),
    }
}

/// Parses a page with html5ever into the arena and nothing else: the floor
/// that `bench` compares the whole pipeline against.
pub fn parse_only(html: &str) -> usize {
    let sink = dom::Sink::new(usize::MAX / 2, dom::nodes_for_bytes(html.len()), None);
    let (dom, _) = html5ever::parse_document(sink, parse_opts()).one(without_bom(html));
    dom.nodes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

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
        for html in [
            format!("{}x{}", "<div>".repeat(100_000), "</div>".repeat(100_000)),
            "<div></x>".repeat(100_000),
            "<div/>".repeat(100_000),
        ] {
            let err = parse(html.as_bytes(), None, ParseLimits::default()).unwrap_err();
            assert!(err.to_string().contains("nest"), "{err}");
        }
    }

    #[test]
    fn closing_tags_past_the_node_limit_do_not_panic() {
        // Placeholders past the limit keep their names: closing a `<p>`
        // once panicked html5ever ("no current element").
        for html in ["<p>x</p>".repeat(5_000), "<div>x</div>".repeat(5_000)] {
            let limits = ParseLimits {
                max_nodes: 1000,
                ..ParseLimits::default()
            };
            let err = parse(html.as_bytes(), None, limits).unwrap_err();
            assert!(err.to_string().contains("DOM nodes"), "{err}");
        }
    }

    #[test]
    fn a_passed_deadline_stops_the_parse() {
        let html = "<span>x</span>".repeat(100_000);
        let limits = ParseLimits {
            time_budget: Some(TimeBudget::from_now(std::time::Duration::ZERO)),
            ..ParseLimits::default()
        };
        let err = parse(html.as_bytes(), None, limits).unwrap_err();
        assert!(err.to_string().contains("timed out"), "{err}");
    }

    #[test]
    fn pieces_split_on_character_boundaries() {
        let html = format!("<p>{}</p>", "é€😀".repeat(20_000));
        let doc = parse(html.as_bytes(), Some("utf-8"), ParseLimits::default()).unwrap();
        let text = doc.dom.text_of(DOCUMENT);
        assert_eq!(text.chars().count(), 60_000);
    }

    #[test]
    fn a_byte_order_mark_inside_the_page_is_kept() {
        // U+FEFF where the parser's input is cut into chunks (every
        // CHUNK_BYTES) stays text; the page's leading one goes.
        let pad = "x".repeat(CHUNK_BYTES - "<p>".len());
        let html = format!("\u{feff}<p>{pad}\u{feff}y</p>");
        let dom = parse_str(&html, usize::MAX / 2).unwrap();
        let text = dom.text_of(DOCUMENT);
        assert_eq!(
            text.matches('\u{feff}').count(),
            1,
            "{}",
            &text[text.len() - 8..]
        );
        assert!(text.starts_with('x'));
    }

    #[test]
    fn empty_bytes_parse_and_junk_is_not_html() {
        for bytes in [&b""[..], b"   \n\t"] {
            parse(bytes, None, ParseLimits::default()).unwrap();
        }
        let junk = parse(b"\x00\x01\x02\xff\xfe\xfd", None, ParseLimits::default());
        assert!(matches!(junk, Err(Error::NotHtml)));
    }
}
