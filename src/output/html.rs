//! Clean HTML of the kept content's [`Structure`]: a minimal document with
//! the same elements as the Markdown output and no attribute but `href`,
//! `src` and `alt`. Every character of text and attribute values is
//! escaped, addresses other than web, mail and telephone ones are dropped,
//! and no script, style or event handler can come through, so the document
//! is safe to display. It is also well-formed XML (void elements closed).

use super::links;
use super::Markup;
use crate::extract::structure::{Kind, Structure};

/// The HTML document of `s`, titled `title`, ending with a newline; with
/// `headline`, the body starts with it as `<h1>`.
pub fn render(
    s: &Structure,
    title: Option<&str>,
    headline: Option<&str>,
    options: &Markup,
) -> String {
    let base = links::base_url(s.base.as_deref(), options.page_url.as_deref());
    let r = Renderer {
        s,
        options,
        base: base.as_deref(),
    };
    let mut out = String::from("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"/>");
    if let Some(t) = title.filter(|t| !t.trim().is_empty()) {
        out.push_str("<title>");
        escape_into(&mut out, t.trim());
        out.push_str("</title>");
    }
    out.push_str("</head><body>\n");
    if let Some(h) = headline.filter(|h| !h.trim().is_empty()) {
        out.push_str("<h1>");
        escape_into(&mut out, h.trim());
        out.push_str("</h1>\n");
    }
    r.blocks(&s.node(Structure::ROOT).children, true, &mut out);
    out.push_str("</body></html>\n");
    out
}

/// Writes `text` with `&`, `<`, `>`, `"` and `'` escaped.
fn escape_into(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Controls other than whitespace are not allowed in XML.
            c if c.is_control() && !matches!(c, '\n' | '\t' | '\r') => out.push(' '),
            c => out.push(c),
        }
    }
}

struct Renderer<'a> {
    s: &'a Structure,
    options: &'a Markup,
    base: Option<&'a str>,
}

/// Running text being written, whitespace collapsed.
struct Run {
    out: String,
    pending_space: bool,
    /// Whitespace came before the first character.
    leading_space: bool,
}

impl Run {
    fn new() -> Self {
        Run {
            out: String::new(),
            pending_space: false,
            leading_space: false,
        }
    }

    fn space(&mut self) {
        if self.out.is_empty() {
            self.leading_space = true;
        } else {
            self.pending_space = true;
        }
    }

    /// Writes `inner` between `open` and `close`, with the whitespace at
    /// its ends outside them.
    fn wrap(&mut self, inner: Run, open: &str, close: &str) {
        let (leading, trailing) = (inner.leading_space, inner.pending_space);
        if leading {
            self.space();
        }
        if let Some(text) = inner.finish() {
            self.markup(&format!("{open}{text}{close}"));
        }
        if trailing {
            self.space();
        }
    }

    fn markup(&mut self, m: &str) {
        if self.pending_space {
            self.out.push(' ');
            self.pending_space = false;
        }
        self.out.push_str(m);
    }

    fn text(&mut self, t: &str) {
        let mut buf = [0u8; 4];
        for c in t.chars() {
            if c.is_whitespace() || c == '\x0b' {
                self.space();
                continue;
            }
            if self.pending_space {
                self.out.push(' ');
                self.pending_space = false;
            }
            escape_into(&mut self.out, c.encode_utf8(&mut buf));
        }
    }

    /// The run's markup, or `None` when it holds no text.
    fn finish(self) -> Option<String> {
        let s = self.out.trim_end().to_string();
        (!s.is_empty()).then_some(s)
    }
}

impl Renderer<'_> {
    /// Writes a sequence of nodes as blocks; runs of text between
    /// separators become paragraphs (`<p>`), unless `wrap` is false and
    /// the sequence is one run (a list item's text).
    fn blocks(&self, children: &[u32], wrap: bool, out: &mut String) {
        let mut parts: Vec<Result<String, u32>> = Vec::new();
        let mut run = Run::new();
        for &c in children {
            let kind = &self.s.node(c).kind;
            if *kind == Kind::Separator || kind.is_block() {
                if let Some(p) = std::mem::replace(&mut run, Run::new()).finish() {
                    parts.push(Ok(p));
                }
                if kind.is_block() {
                    parts.push(Err(c));
                }
            } else {
                self.inline(c, &mut run);
            }
        }
        if let Some(p) = run.finish() {
            parts.push(Ok(p));
        }
        let single = parts.len() == 1 && parts[0].is_ok();
        for part in parts {
            match part {
                Ok(text) if single && !wrap => out.push_str(&text),
                Ok(text) => {
                    out.push_str("<p>");
                    out.push_str(&text);
                    out.push_str("</p>\n");
                }
                Err(block) => self.block(block, out),
            }
        }
    }

    fn block(&self, id: u32, out: &mut String) {
        let node = self.s.node(id);
        let (tag, inline) = match &node.kind {
            Kind::Heading(level) => (
                ["h1", "h2", "h3", "h4", "h5", "h6"][usize::from(level.clamp(&1, &6) - 1)],
                true,
            ),
            Kind::Paragraph => ("p", true),
            Kind::Term => ("dt", true),
            Kind::List { ordered: true, .. } => ("ol", false),
            Kind::List { ordered: false, .. } => ("ul", false),
            Kind::Item => ("li", false),
            Kind::Definitions => ("dl", false),
            Kind::Definition => ("dd", false),
            Kind::Table => ("table", false),
            Kind::Row => ("tr", false),
            Kind::Cell { header: true, .. } => ("th", false),
            Kind::Cell { header: false, .. } => ("td", false),
            Kind::Quote => ("blockquote", false),
            Kind::Pre { .. } => {
                let code = self.s.raw_text(id, "\n");
                let code = code.trim_start_matches(['\n', '\r']).trim_end();
                if !code.trim().is_empty() {
                    out.push_str("<pre><code>");
                    escape_into(out, code);
                    out.push_str("</code></pre>\n");
                }
                return;
            }
            _ => return,
        };
        let mut body = String::new();
        if inline {
            let mut run = Run::new();
            for &c in &node.children {
                self.inline(c, &mut run);
            }
            body = run.finish().unwrap_or_default();
        } else {
            match &node.kind {
                // Lists hold items only: text and blocks beside them
                // become items in their place.
                Kind::List { .. } | Kind::Definitions => {
                    let (own, wrap): (fn(&Kind) -> bool, &str) = match node.kind {
                        Kind::List { .. } => (|k| *k == Kind::Item, "li"),
                        _ => (|k| matches!(k, Kind::Term | Kind::Definition), "dd"),
                    };
                    let mut stray: Vec<u32> = Vec::new();
                    let flush = |stray: &mut Vec<u32>, body: &mut String| {
                        let mut inner = String::new();
                        self.blocks(stray, false, &mut inner);
                        stray.clear();
                        if !inner.trim().is_empty() {
                            body.push_str(&format!("<{wrap}>{}</{wrap}>\n", inner.trim_end()));
                        }
                    };
                    for &c in &node.children {
                        if own(&self.s.node(c).kind) {
                            flush(&mut stray, &mut body);
                            self.block(c, &mut body);
                        } else {
                            stray.push(c);
                        }
                    }
                    flush(&mut stray, &mut body);
                }
                // Tables hold rows and rows cells: text beside them (a
                // caption) is written before.
                Kind::Table | Kind::Row => {
                    let own = |k: &Kind| match node.kind {
                        Kind::Table => *k == Kind::Row,
                        _ => matches!(k, Kind::Cell { .. }),
                    };
                    let (inner, outer): (Vec<u32>, Vec<u32>) = node
                        .children
                        .iter()
                        .partition(|&&c| own(&self.s.node(c).kind));
                    if node.kind == Kind::Table {
                        self.blocks(&outer, true, out);
                    }
                    for c in inner {
                        self.block(c, &mut body);
                    }
                }
                _ => self.blocks(&node.children, node.kind == Kind::Quote, &mut body),
            }
        }
        if body.trim().is_empty() {
            return;
        }
        out.push('<');
        out.push_str(tag);
        out.push('>');
        if !inline && !body.starts_with('<') && matches!(node.kind, Kind::Quote) {
            out.push('\n');
        }
        out.push_str(body.trim_end());
        out.push_str("</");
        out.push_str(tag);
        out.push_str(">\n");
    }

    fn inline(&self, id: u32, run: &mut Run) {
        let node = self.s.node(id);
        let wrap = |tag: &str, run: &mut Run| {
            let mut inner = Run::new();
            for &c in &node.children {
                self.inline(c, &mut inner);
            }
            run.wrap(inner, &format!("<{tag}>"), &format!("</{tag}>"));
        };
        match &node.kind {
            Kind::Text(t) => run.text(t),
            Kind::Separator => run.space(),
            Kind::Break => run.markup("<br/>"),
            Kind::Emphasis => wrap("em", run),
            Kind::Strong => wrap("strong", run),
            Kind::Code => {
                let mut code = String::new();
                escape_into(&mut code, &self.s.raw_text(id, "\n"));
                let code = code.split_whitespace().collect::<Vec<_>>().join(" ");
                if !code.is_empty() {
                    run.markup(&format!("<code>{code}</code>"));
                }
            }
            Kind::Link { href } => match links::kept_link(self.options, href, self.base) {
                Some(url) => {
                    let mut inner = Run::new();
                    for &c in &node.children {
                        self.inline(c, &mut inner);
                    }
                    let mut a = String::from("<a href=\"");
                    escape_into(&mut a, &url);
                    a.push_str("\">");
                    run.wrap(inner, &a, "</a>");
                }
                None => {
                    for &c in &node.children {
                        self.inline(c, run);
                    }
                }
            },
            Kind::Image { src, alt } => {
                if let Some(url) = links::kept_image(self.options, src, self.base) {
                    let mut img = String::from("<img src=\"");
                    escape_into(&mut img, &url);
                    img.push_str("\" alt=\"");
                    escape_into(&mut img, alt.trim());
                    img.push_str("\"/>");
                    run.markup(&img);
                }
            }
            _ => {
                for &c in &node.children {
                    run.space();
                    self.inline(c, run);
                }
                run.space();
            }
        }
    }
}
