//! The kept content's shape, for structured output (Markdown, clean HTML).
//!
//! Built by selection, after the decisions, and only when
//! [`ExtractorConfig::structure`](crate::ExtractorConfig::structure) asks
//! for it: the DOM is walked in the splitter's order, and each text node is
//! kept when it lies in a kept block (blocks name the text nodes where they
//! start and end). Headings, paragraphs, lists, definition lists, tables,
//! code, quotes, emphasis, links, images and line breaks become nodes of a
//! small tree; every other element is transparent. A layout element (`div`,
//! `section` ...) leaves a [`Kind::Separator`] where it opens and closes, so
//! the text never runs together where the text output has a line break.
//! An element none of whose text is kept is dropped with everything in it.
//!
//! The output stage renders this tree ([`crate::output::markdown`],
//! [`crate::output::html`]); it never sees the DOM.

use html5ever::local_name;

use crate::blocks::{is_block_tag, is_skipped_tag, Blocks};
use crate::parse::{Document, Dom, NodeData, NodeId, DOCUMENT};

/// Nodes nested deeper than this in the tree (lists in lists, emphasis in
/// emphasis) are not made: the elements below are transparent, which keeps
/// rendering's recursion bounded whatever the page.
pub const MAX_NESTING: usize = 40;

/// The largest `colspan` or `rowspan` taken from a page.
pub const MAX_SPAN: u16 = 64;

/// What a node of the [`Structure`] is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// The tree's root (node 0).
    Root,
    /// `<h1>`…`<h6>`, with the level.
    Heading(u8),
    /// `<p>`.
    Paragraph,
    /// `<ul>` or `<ol>`.
    List {
        /// True for `<ol>`.
        ordered: bool,
        /// The number of the first item (`start`, default 1).
        start: u32,
    },
    /// `<li>` in a list.
    Item,
    /// `<dl>`.
    Definitions,
    /// `<dt>` in a definition list.
    Term,
    /// `<dd>` in a definition list.
    Definition,
    /// `<table>`.
    Table,
    /// `<tr>` in a table.
    Row,
    /// `<td>` or `<th>` in a row.
    Cell {
        /// True for `<th>`.
        header: bool,
        /// Columns spanned (1..=[`MAX_SPAN`]).
        colspan: u16,
        /// Rows spanned (1..=[`MAX_SPAN`]).
        rowspan: u16,
    },
    /// `<pre>`: preformatted code, with the language of a `language-xxx`
    /// (or `lang-xxx`) class on it or on its `<code>`.
    Pre {
        /// The language named by a class, if any.
        language: Option<String>,
    },
    /// `<blockquote>`.
    Quote,
    /// `<em>` or `<i>`.
    Emphasis,
    /// `<strong>` or `<b>`.
    Strong,
    /// Inline `<code>`, `<kbd>`, `<samp>` or `<tt>`.
    Code,
    /// `<a href>`: the `href` as written in the page.
    Link {
        /// The `href` attribute, unresolved.
        href: String,
    },
    /// `<img>`: `src` (or `data-src` when `src` is missing or a `data:`
    /// URL) and `alt`, unresolved.
    Image {
        /// The image's address.
        src: String,
        /// Its alternative text.
        alt: String,
    },
    /// `<br>`.
    Break,
    /// Where a layout element opened or closed: a paragraph break between
    /// blocks, a space inside a line.
    Separator,
    /// Text as in the page (whitespace not collapsed).
    Text(String),
}

impl Kind {
    /// True for kinds that hold blocks (paragraphs, lists ...) rather than
    /// running text.
    pub fn is_block(&self) -> bool {
        matches!(
            self,
            Kind::Heading(_)
                | Kind::Paragraph
                | Kind::List { .. }
                | Kind::Item
                | Kind::Definitions
                | Kind::Term
                | Kind::Definition
                | Kind::Table
                | Kind::Row
                | Kind::Cell { .. }
                | Kind::Pre { .. }
                | Kind::Quote
        )
    }
}

/// One node of the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// What it is.
    pub kind: Kind,
    /// Its children (indices in [`Structure::nodes`]), in page order.
    pub children: Vec<u32>,
}

/// The kept content as a tree of the elements structured output renders.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Structure {
    /// All nodes; node 0 is the [`Kind::Root`]. Nodes dropped while building
    /// may remain in the arena, unreferenced; leaves without content of
    /// their own (separators, spaces) may be shared by several parents.
    pub nodes: Vec<Node>,
    /// The page's `<base href>`, if any.
    pub base: Option<String>,
}

impl Structure {
    /// The root node's index.
    pub const ROOT: u32 = 0;

    /// The node at `id`.
    pub fn node(&self, id: u32) -> &Node {
        &self.nodes[id as usize]
    }

    /// `id` and every node below it, in document order (no recursion).
    pub fn descendants(&self, id: u32) -> impl Iterator<Item = u32> + '_ {
        let mut stack = vec![id];
        std::iter::from_fn(move || {
            let cur = stack.pop()?;
            stack.extend(self.node(cur).children.iter().rev());
            Some(cur)
        })
    }

    /// The nodes reachable from the root, in document order.
    pub fn reachable(&self) -> impl Iterator<Item = u32> + '_ {
        self.descendants(Self::ROOT)
    }

    /// The text below `id` as in the page (for code): breaks are newlines,
    /// separators are `separator` unless whitespace is already there.
    pub fn raw_text(&self, id: u32, separator: &str) -> String {
        let mut out = String::new();
        for d in self.descendants(id) {
            match &self.node(d).kind {
                Kind::Text(t) => out.push_str(t),
                Kind::Break => out.push('\n'),
                Kind::Separator if !out.is_empty() && !out.ends_with(char::is_whitespace) => {
                    out.push_str(separator)
                }
                _ => {}
            }
        }
        out
    }

    /// A copy without node `id` (and so without what is below it), for
    /// output that writes that node elsewhere (the headline moved to the
    /// top: [`crate::output::headline`]).
    pub fn without(&self, id: u32) -> Structure {
        let mut copy = self.clone();
        for node in &mut copy.nodes {
            node.children.retain(|&c| c != id);
        }
        copy
    }
}

/// The one separator node, shared by every place that has one.
const SEPARATOR: u32 = 1;

/// The one blank text node (a space), shared by every place outside code
/// that has blank text.
const SPACE: u32 = 2;

/// What an open element became.
enum Role {
    /// No node: the children go to the enclosing node.
    Transparent,
    /// A node of its own.
    Node,
    /// A layout element inside running text: a separator at each end.
    InlineSeparator,
}

struct Frame {
    node: NodeId,
    role: Role,
}

/// Per-node flags while building.
#[derive(Clone, Copy, Default)]
struct Built {
    /// Kept non-blank text lies below.
    text: bool,
    /// Something worth keeping besides blank text (an image, a break).
    content: bool,
    /// Blank text lies directly below.
    blank: bool,
}

struct Builder {
    nodes: Vec<Node>,
    built: Vec<Built>,
    /// Open nodes, innermost last (the root first).
    open: Vec<u32>,
    /// Open nodes made for layout elements, spliced into their parent when
    /// they close.
    layout: Vec<bool>,
    /// Open nodes that are not layout elements' (the root excluded).
    depth: usize,
    /// Open `<pre>` nodes.
    pre: usize,
}

impl Builder {
    fn parent(&self) -> u32 {
        *self.open.last().expect("the root stays open")
    }

    /// The innermost open node that is not a layout element's.
    fn parent_kind(&self) -> &Kind {
        let i = self.layout.iter().rposition(|l| !l).unwrap_or(0);
        &self.nodes[self.open[i] as usize].kind
    }

    /// True when the innermost node holds running text only.
    fn inline_context(&self) -> bool {
        matches!(
            self.parent_kind(),
            Kind::Heading(_)
                | Kind::Paragraph
                | Kind::Term
                | Kind::Pre { .. }
                | Kind::Emphasis
                | Kind::Strong
                | Kind::Code
                | Kind::Link { .. }
        )
    }

    fn new_node(&mut self, kind: Kind) -> u32 {
        let id = self.nodes.len() as u32;
        self.nodes.push(Node {
            kind,
            children: Vec::new(),
        });
        self.built.push(Built::default());
        id
    }

    /// Appends the shared separator or space node to node `p`, unless its
    /// last child is that node already.
    fn boundary(&mut self, p: usize, shared: u32) {
        let children = &mut self.nodes[p].children;
        if children.last() != Some(&shared) {
            children.push(shared);
        }
    }

    /// Appends a separator to the innermost node.
    fn separator(&mut self) {
        self.boundary(self.parent() as usize, SEPARATOR);
    }

    /// Appends blank text to the innermost node: as it is inside `<pre>`,
    /// else as the shared space (blank text outside code is one space).
    fn blank(&mut self, t: &str) {
        let p = self.parent() as usize;
        self.built[p].blank = true;
        if self.pre > 0 {
            let id = self.new_node(Kind::Text(t.to_string()));
            self.nodes[p].children.push(id);
        } else {
            self.boundary(p, SPACE);
        }
    }

    /// Appends a leaf to the innermost node: kept text (`text`), or a break
    /// or an image.
    fn leaf(&mut self, kind: Kind, text: bool) {
        let id = self.new_node(kind);
        let p = self.parent() as usize;
        self.nodes[p].children.push(id);
        if text {
            self.built[p].text = true;
        } else {
            self.built[p].content = true;
        }
    }

    fn open_node(&mut self, kind: Kind, layout: bool) {
        let id = self.new_node(kind);
        self.open.push(id);
        self.layout.push(layout);
        self.depth += usize::from(!layout);
        self.pre += usize::from(matches!(self.nodes[id as usize].kind, Kind::Pre { .. }));
    }

    /// Closes the innermost node: keeps it in its parent when kept text lies
    /// below it (inline nodes: anything but blank text), splices a layout
    /// node's children between separators, drops the rest.
    fn close_node(&mut self) {
        let id = self.open.pop().expect("a node is open");
        let layout = self.layout.pop().unwrap_or(false);
        self.depth -= usize::from(!layout);
        self.pre -= usize::from(matches!(self.nodes[id as usize].kind, Kind::Pre { .. }));
        let b = self.built[id as usize];
        let p = self.parent() as usize;
        let kind = &self.nodes[id as usize].kind;
        // An empty cell of a kept row keeps the table's shape.
        let keep = b.text
            || (b.content && !kind.is_block() && !layout)
            || matches!(kind, Kind::Cell { .. });
        if !keep {
            // What is left where it was: a boundary where a block was, a
            // space where a dropped inline element held one (`<b> </b>`),
            // so that the words around never run together.
            if kind.is_block() || layout {
                self.boundary(p, SEPARATOR);
            } else if b.blank {
                self.built[p].blank = true;
                self.boundary(p, SPACE);
            }
            return;
        }
        self.built[p].text |= b.text;
        self.built[p].content |= b.content;
        if layout {
            let children = std::mem::take(&mut self.nodes[id as usize].children);
            self.boundary(p, SEPARATOR);
            self.nodes[p].children.extend(children);
            self.boundary(p, SEPARATOR);
        } else {
            self.nodes[p].children.push(id);
        }
    }

    /// The node an element opens, given the innermost node.
    fn role_of(&self, dom: &Dom, id: NodeId) -> Option<Kind> {
        let node = &dom.nodes[id];
        let tag = node.local_name()?;
        if let Some(level) = crate::blocks::heading_level(tag) {
            return Some(Kind::Heading(level));
        }
        let parent = self.parent_kind();
        let in_pre = self.pre > 0;
        let kind = match *tag {
            local_name!("p") => Kind::Paragraph,
            local_name!("ul") => Kind::List {
                ordered: false,
                start: 1,
            },
            local_name!("ol") => Kind::List {
                ordered: true,
                start: node
                    .attr("start")
                    .and_then(|s| s.trim().parse::<u32>().ok())
                    .unwrap_or(1)
                    .min(999_999_999),
            },
            local_name!("li") if matches!(parent, Kind::List { .. }) => Kind::Item,
            local_name!("dl") => Kind::Definitions,
            local_name!("dt") if *parent == Kind::Definitions => Kind::Term,
            local_name!("dd") if *parent == Kind::Definitions => Kind::Definition,
            local_name!("table") => Kind::Table,
            local_name!("tr") if *parent == Kind::Table => Kind::Row,
            local_name!("td") | local_name!("th") if *parent == Kind::Row => Kind::Cell {
                header: *tag == local_name!("th"),
                colspan: span(node.attr("colspan")),
                rowspan: span(node.attr("rowspan")),
            },
            local_name!("pre") => Kind::Pre {
                language: language(node.attr("class")).or_else(|| highlighter_language(dom, id)),
            },
            local_name!("blockquote") => Kind::Quote,
            local_name!("em") | local_name!("i") => Kind::Emphasis,
            local_name!("strong") | local_name!("b") => Kind::Strong,
            local_name!("code") | local_name!("kbd") | local_name!("samp") | local_name!("tt")
                if !in_pre =>
            {
                Kind::Code
            }
            local_name!("a") => match node.attr("href") {
                Some(h) if !h.trim().is_empty() => Kind::Link {
                    href: h.trim().to_string(),
                },
                _ => return None,
            },
            _ => return None,
        };
        Some(kind)
    }
}

fn span(v: Option<&str>) -> u16 {
    v.and_then(|s| s.trim().parse::<u16>().ok())
        .unwrap_or(1)
        .clamp(1, MAX_SPAN)
}

/// The language named by a `language-xxx` or `lang-xxx` class.
fn language(class: Option<&str>) -> Option<String> {
    class?.split_ascii_whitespace().find_map(|c| {
        let lang = c
            .strip_prefix("language-")
            .or_else(|| c.strip_prefix("lang-"))?;
        let ok = !lang.is_empty()
            && lang.len() <= 32
            && lang
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-_.#".contains(c));
        ok.then(|| lang.to_ascii_lowercase())
    })
}

/// The language a syntax highlighter's wrapper names, two levels above a
/// `<pre>` at most: Sphinx's `highlight-python`, GitHub's
/// `highlight-source-rust` (`default` and `none` name none).
fn highlighter_language(dom: &Dom, pre: NodeId) -> Option<String> {
    let mut cur = dom.nodes[pre].parent;
    for _ in 0..2 {
        let node = &dom.nodes[cur?];
        let found = node.attr("class").and_then(|class| {
            class.split_ascii_whitespace().find_map(|c| {
                let lang = c
                    .strip_prefix("highlight-source-")
                    .or_else(|| c.strip_prefix("highlight-"))?;
                let name = language(Some(&format!("language-{lang}")))?;
                (!matches!(name.as_str(), "default" | "none" | "text")).then_some(name)
            })
        });
        if found.is_some() {
            return found;
        }
        cur = node.parent;
    }
    None
}

fn is_blank(t: &str) -> bool {
    t.chars().all(|c| c.is_whitespace() || c == '\x0b')
}

/// Builds the tree of the kept content of `doc`, cut into `blocks` of which
/// `kept` are kept; `removed` marks the nodes a DOM filter took out before
/// splitting (Crunch), which the splitter never saw.
pub fn build(
    doc: &Document,
    blocks: &Blocks,
    kept: &[bool],
    removed: Option<&[bool]>,
) -> Structure {
    let dom = &doc.dom;
    let mut b = Builder {
        nodes: Vec::new(),
        built: Vec::new(),
        open: Vec::new(),
        layout: Vec::new(),
        depth: 0,
        pre: 0,
    };
    let root = b.new_node(Kind::Root);
    b.new_node(Kind::Separator);
    b.new_node(Kind::Text(" ".to_string()));
    b.open.push(root);
    b.layout.push(false);
    let is_removed = |id: NodeId| removed.is_some_and(|r| r.get(id).copied().unwrap_or(false));

    // The next block whose first text node is still to come, and the block
    // whose text is being walked.
    let mut next_block = 0usize;
    let mut current: Option<usize> = None;
    let mut stack: Vec<Frame> = Vec::new();
    let mut next = dom.nodes[DOCUMENT].first_child;
    loop {
        let Some(id) = next else {
            let Some(frame) = stack.pop() else { break };
            match frame.role {
                Role::Node => b.close_node(),
                Role::InlineSeparator => b.separator(),
                Role::Transparent => {}
            }
            next = dom.nodes[frame.node].next_sibling;
            continue;
        };
        let node = &dom.nodes[id];
        next = node.next_sibling;
        match &node.data {
            NodeData::Text(t) => {
                if blocks
                    .blocks
                    .get(next_block)
                    .is_some_and(|bl| bl.first_node == id)
                {
                    current = Some(next_block);
                    next_block += 1;
                }
                let in_kept = current.is_some_and(|c| kept.get(c).copied().unwrap_or(false));
                if is_blank(t) {
                    b.blank(t);
                } else if in_kept {
                    b.leaf(Kind::Text(t.to_string()), true);
                }
                if current.is_some_and(|c| blocks.blocks[c].last_node == id) {
                    current = None;
                }
            }
            NodeData::Element { name, .. } => {
                let tag = &name.local;
                if is_skipped_tag(tag) || is_removed(id) {
                    continue;
                }
                match *tag {
                    local_name!("br") => {
                        b.leaf(Kind::Break, false);
                        continue;
                    }
                    local_name!("img") => {
                        if let Some(src) = image_src(node) {
                            let alt = node.attr("alt").unwrap_or_default().to_string();
                            b.leaf(Kind::Image { src, alt }, false);
                        }
                        continue;
                    }
                    _ => {}
                }
                let block_tag = is_block_tag(tag);
                let deep = b.depth >= MAX_NESTING;
                let role = if block_tag && b.inline_context() {
                    b.separator();
                    Role::InlineSeparator
                } else {
                    match b.role_of(dom, id) {
                        Some(kind) if !deep => {
                            b.open_node(kind, false);
                            Role::Node
                        }
                        _ if block_tag => {
                            b.open_node(Kind::Separator, true);
                            Role::Node
                        }
                        _ => {
                            if *tag == local_name!("code") {
                                name_language_of_pre(&mut b, node);
                            }
                            Role::Transparent
                        }
                    }
                };
                match node.first_child {
                    Some(first) => {
                        stack.push(Frame { node: id, role });
                        next = Some(first);
                    }
                    None => match role {
                        Role::Node => b.close_node(),
                        Role::InlineSeparator => b.separator(),
                        Role::Transparent => {}
                    },
                }
            }
            NodeData::Document | NodeData::Other => {}
        }
    }
    while b.open.len() > 1 {
        b.close_node();
    }
    let base = dom
        .find_first("base")
        .and_then(|id| dom.nodes[id].attr("href"))
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty());
    Structure {
        nodes: b.nodes,
        base,
    }
}

/// A `<code class="language-xxx">` inside `<pre>` names the block's language.
fn name_language_of_pre(b: &mut Builder, node: &crate::parse::Node) {
    let Some(lang) = language(node.attr("class")) else {
        return;
    };
    let pre = b
        .open
        .iter()
        .rev()
        .find(|&&o| matches!(b.nodes[o as usize].kind, Kind::Pre { .. }))
        .copied();
    if let Some(p) = pre {
        if let Kind::Pre { language } = &mut b.nodes[p as usize].kind {
            language.get_or_insert(lang);
        }
    }
}

/// An image's address: `src`, or a lazy loader's `data-src` when `src` is
/// missing or an inline placeholder.
fn image_src(node: &crate::parse::Node) -> Option<String> {
    let src = node.attr("src").map(str::trim).filter(|s| !s.is_empty());
    let lazy = node
        .attr("data-src")
        .map(str::trim)
        .filter(|s| !s.is_empty());
    match (src, lazy) {
        (Some(s), Some(l)) if s.len() >= 5 && s[..5].eq_ignore_ascii_case("data:") => {
            Some(l.to_string())
        }
        (Some(s), _) => Some(s.to_string()),
        (None, l) => l.map(str::to_string),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse, ParseLimits};

    fn tree(html: &str, keep: impl Fn(&str) -> bool) -> Structure {
        let doc = parse(html.as_bytes(), None, ParseLimits::default()).unwrap();
        let blocks = crate::blocks::split(&doc);
        let kept: Vec<bool> = blocks.blocks.iter().map(|b| keep(&b.text)).collect();
        build(&doc, &blocks, &kept, None)
    }

    fn kinds(s: &Structure) -> Vec<String> {
        s.reachable()
            .map(|i| match &s.node(i).kind {
                Kind::Text(t) if is_blank(t) => "_".to_string(),
                Kind::Text(t) => format!("{t:?}"),
                k => format!("{k:?}")
                    .split([' ', '(', '{'])
                    .next()
                    .unwrap()
                    .to_string(),
            })
            .filter(|k| k != "_" && k != "Separator")
            .collect()
    }

    #[test]
    fn only_kept_text_and_its_elements_remain() {
        let s = tree(
            "<nav><ul><li>Home</li></ul></nav><article><h2>Title</h2>\
             <p>Some <em>kept</em> text</p><ul><li>one</li><li>two</li></ul></article>",
            |t| t != "Home",
        );
        assert_eq!(
            kinds(&s),
            [
                "Root",
                "Heading",
                "\"Title\"",
                "Paragraph",
                "\"Some \"",
                "Emphasis",
                "\"kept\"",
                "\" text\"",
                "List",
                "Item",
                "\"one\"",
                "Item",
                "\"two\""
            ]
        );
    }

    #[test]
    fn code_language_comes_from_the_pre_or_its_code() {
        let s = tree(
            "<pre><code class=\"language-Rust\">fn main() {}</code></pre>",
            |_| true,
        );
        let pre = s
            .reachable()
            .find(|&i| matches!(s.node(i).kind, Kind::Pre { .. }));
        assert_eq!(
            s.node(pre.unwrap()).kind,
            Kind::Pre {
                language: Some("rust".into())
            }
        );
        assert_eq!(language(Some("x lang-c++")), Some("c++".into()));
        let s = tree(
            "<div class=\"highlight-python notranslate\"><div class=highlight><pre>x = 1</pre></div></div>",
            |_| true,
        );
        assert!(s.nodes.iter().any(|n| n.kind
            == Kind::Pre {
                language: Some("python".into())
            }));
        assert_eq!(language(Some("language-\"><script>")), None);
    }

    #[test]
    fn blocks_inside_running_text_become_separators() {
        let s = tree("<p><a href=/x>one<div>two</div></a></p>", |_| true);
        let k = kinds(&s);
        assert!(k.contains(&"\"two\"".to_string()));
    }

    #[test]
    fn deep_nesting_stays_bounded() {
        let html = format!(
            "{}deep{}",
            "<blockquote>".repeat(500),
            "</blockquote>".repeat(500)
        );
        let s = tree(&html, |_| true);
        let quotes = s
            .reachable()
            .filter(|&i| s.node(i).kind == Kind::Quote)
            .count();
        assert!(quotes <= MAX_NESTING, "{quotes}");
        assert!(kinds(&s).contains(&"\"deep\"".to_string()));
    }
}
