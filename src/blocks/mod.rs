//! Stage 2: the DOM cut into text blocks, Dragnet style.
//!
//! A new block starts at the opening and at the closing of every layout tag
//! ([`is_block_tag`]), so the text after a `</p>` is a block of its own, owned
//! by the enclosing element. Text inside `script`, `style`, `template`, `svg`,
//! `iframe`, `head` (and a few embeds) never becomes a block; `<noscript>`
//! text is kept (some forums put the whole page there). Words and characters
//! are counted in Unicode: a run of letters or digits is a word, and each
//! CJK ideograph or kana counts as a word of its own, so density features mean
//! the same in Chinese as in English.

pub mod captions;
pub mod comments;
pub mod crunch;
pub mod reviews;

pub use crate::text::{collapse_whitespace, is_cjk, url_host, word_tokens, TokenArena};

use html5ever::local_name;
use html5ever::LocalName;

use crate::parse::{Document, NodeData, NodeId, DOCUMENT};

/// Bits of [`ElementInfo::ancestry`]: which kinds of element enclose a block.
pub mod ancestry {
    /// Inside `<nav>`.
    pub const NAV: u32 = 1 << 0;
    /// Inside `<header>`.
    pub const HEADER: u32 = 1 << 1;
    /// Inside `<footer>`.
    pub const FOOTER: u32 = 1 << 2;
    /// Inside `<aside>`.
    pub const ASIDE: u32 = 1 << 3;
    /// Inside `<form>`.
    pub const FORM: u32 = 1 << 4;
    /// Inside `<article>`.
    pub const ARTICLE: u32 = 1 << 5;
    /// Inside `<main>` (or role=main).
    pub const MAIN: u32 = 1 << 6;
    /// Inside `<a>`.
    pub const LINK: u32 = 1 << 7;
    /// Inside a list item.
    pub const LIST: u32 = 1 << 8;
    /// Inside a table.
    pub const TABLE: u32 = 1 << 9;
    /// Inside an element hidden by `hidden`, `aria-hidden=true` or `display:none`.
    pub const HIDDEN: u32 = 1 << 10;
    /// Inside `<pre>` or `<code>`.
    pub const CODE: u32 = 1 << 11;
    /// Inside `<blockquote>`.
    pub const QUOTE: u32 = 1 << 12;
    /// Inside `<noscript>`.
    pub const NOSCRIPT: u32 = 1 << 13;
    /// Inside `<button>` or `<label>`.
    pub const CONTROL: u32 = 1 << 14;
    /// Number of bits that are model features: the first `COUNT` (the
    /// structure family has a column for each).
    pub const COUNT: usize = 15;
    /// Inside `<figcaption>`. Not a model feature: the selection stage's
    /// caption rule reads it (once per element, not by walking up from
    /// every block, which costs blocks × depth on a deep page).
    pub const CAPTION: u32 = 1 << 15;
    /// Inside an element whose id or class names a caption
    /// ([`captions::marks_caption`](super::captions::marks_caption):
    /// `wp-caption-text`, `media-caption`, `imageCaption`), not by
    /// `<figcaption>`. Not a model feature: the caption rule reads it on
    /// pages predicted articles.
    pub const NAMED_CAPTION: u32 = 1 << 16;
}

/// One element on the path from the root to a block.
#[derive(Debug, Clone)]
pub struct ElementInfo {
    /// Local tag name.
    pub tag: LocalName,
    /// Lower-case tokens of the `id` and `class` attributes: indices into
    /// [`Blocks::tokens`] (read them with [`Blocks::tokens_of`]).
    pub tokens: std::ops::Range<u32>,
    /// Index of the parent element in [`Blocks::elements`], if any.
    pub parent: Option<u32>,
    /// Depth below `<html>` (0 for `<html>` itself).
    pub depth: u32,
    /// [`ancestry`] bits of this element and all its ancestors.
    pub ancestry: u32,
    /// True when this element or an ancestor is a user-comment region (see
    /// [`comments`]). Not a model feature: extraction uses it for
    /// [`CommentMode`](crate::config::CommentMode).
    pub comments: bool,
    /// True when this element or an ancestor is a customer-review region
    /// (see [`reviews`]). Not a model feature: on product pages extraction
    /// treats it as a comment region.
    pub reviews: bool,
}

/// A run of text between two layout-tag boundaries.
#[derive(Debug, Clone, Default)]
pub struct Block {
    /// The block's text, whitespace collapsed.
    pub text: String,
    /// Words in the block.
    pub words: u32,
    /// Words inside links.
    pub link_words: u32,
    /// Characters (Unicode scalar values) of the text.
    pub chars: u32,
    /// Characters inside links.
    pub link_chars: u32,
    /// Start tags opened inside the block (CETR's tag count).
    pub tags: u32,
    /// Characters of markup (start and end tags with the attributes the
    /// parse keeps, as serialised) inside the block: DANAg's code length.
    pub markup_chars: u32,
    /// Innermost element enclosing the block's first text.
    pub element: u32,
    /// Innermost layout-tag element enclosing the block's first text.
    pub owner: u32,
    /// True when the block began at a closing tag (text after `</p>`),
    /// false when it began at an opening tag.
    pub after_close: bool,
    /// Words in all blocks before this one.
    pub word_offset: u32,
    /// Links (`<a>` start tags) inside the block.
    pub links: u32,
    /// Images (`<img>`, `<picture>`, `<video>`) inside the block.
    pub images: u32,
    /// Form controls (`<input>`, `<textarea>`, `<button>`, `<select>`)
    /// inside the block.
    pub inputs: u32,
    /// The DOM text node holding the block's first character: the later
    /// stages find the block's markup from it (see
    /// [`structure`](crate::extract::structure)).
    pub first_node: NodeId,
    /// The DOM text node holding the block's last character.
    pub last_node: NodeId,
}

/// A page cut into blocks.
#[derive(Debug, Clone, Default)]
pub struct Blocks {
    /// Blocks in document order.
    pub blocks: Vec<Block>,
    /// Every element seen, referenced by the blocks.
    pub elements: Vec<ElementInfo>,
    /// The id/class tokens of all elements ([`ElementInfo::tokens`]).
    pub tokens: TokenArena,
    /// Total words of the page.
    pub total_words: u32,
    /// The page's `<title>`, whitespace collapsed (empty when it has none).
    pub title: String,
}

impl Blocks {
    /// The id/class tokens of an element of this page.
    pub fn tokens_of(&self, e: &ElementInfo) -> crate::text::Tokens<'_> {
        self.tokens.get(e.tokens.clone())
    }

    /// Iterates over the element `idx` and its ancestors, innermost first.
    pub fn ancestors(&self, idx: u32) -> impl Iterator<Item = &ElementInfo> {
        let mut next = Some(idx);
        std::iter::from_fn(move || {
            let cur = next?;
            let e = self.elements.get(cur as usize)?;
            next = e.parent;
            Some(e)
        })
    }
}

/// Layout tags: a block starts at their opening and at their closing.
pub fn is_block_tag(tag: &LocalName) -> bool {
    is_heading(tag)
        || matches!(
            *tag,
            local_name!("p")
                | local_name!("div")
                | local_name!("table")
                | local_name!("map")
                | local_name!("li")
                | local_name!("ul")
                | local_name!("ol")
                | local_name!("dl")
                | local_name!("dt")
                | local_name!("dd")
                | local_name!("td")
                | local_name!("th")
                | local_name!("tr")
                | local_name!("section")
                | local_name!("article")
                | local_name!("main")
                | local_name!("header")
                | local_name!("footer")
                | local_name!("nav")
                | local_name!("aside")
                | local_name!("blockquote")
                | local_name!("pre")
                | local_name!("form")
                | local_name!("br")
                | local_name!("body")
                | local_name!("figcaption")
        )
}

/// Heading tags, `h1` to `h6`.
pub(crate) fn is_heading(tag: &LocalName) -> bool {
    heading_level(tag).is_some()
}

/// A heading tag's level: 1 for `h1` to 6 for `h6`; `None` for any other
/// tag.
pub(crate) fn heading_level(tag: &LocalName) -> Option<u8> {
    match *tag {
        local_name!("h1") => Some(1),
        local_name!("h2") => Some(2),
        local_name!("h3") => Some(3),
        local_name!("h4") => Some(4),
        local_name!("h5") => Some(5),
        local_name!("h6") => Some(6),
        _ => None,
    }
}

/// Elements whose content never becomes text.
pub fn is_skipped_tag(tag: &LocalName) -> bool {
    matches!(
        *tag,
        local_name!("script")
            | local_name!("style")
            | local_name!("template")
            | local_name!("svg")
            | local_name!("iframe")
            | local_name!("head")
            | local_name!("object")
            | local_name!("embed")
            | local_name!("canvas")
            | local_name!("select")
            | local_name!("math")
    )
}

fn own_ancestry_bits(tag: &LocalName, node: &crate::parse::Node) -> u32 {
    use ancestry::*;
    let mut bits = match *tag {
        local_name!("nav") => NAV,
        local_name!("header") => HEADER,
        local_name!("footer") => FOOTER,
        local_name!("aside") => ASIDE,
        local_name!("form") => FORM,
        local_name!("article") => ARTICLE,
        local_name!("main") => MAIN,
        local_name!("a") => LINK,
        local_name!("li") | local_name!("dd") | local_name!("dt") => LIST,
        local_name!("table") => TABLE,
        local_name!("pre") | local_name!("code") => CODE,
        local_name!("blockquote") => QUOTE,
        local_name!("noscript") => NOSCRIPT,
        local_name!("button") | local_name!("label") => CONTROL,
        local_name!("figcaption") => CAPTION,
        _ => 0,
    };
    if let NodeData::Element { attrs, .. } = &node.data {
        for a in attrs {
            match &*a.name.local {
                "hidden" => bits |= HIDDEN,
                "aria-hidden" if a.value.trim().eq_ignore_ascii_case("true") => bits |= HIDDEN,
                "style" if is_display_none(&a.value) => bits |= HIDDEN,
                "role" if a.value.trim().eq_ignore_ascii_case("main") => bits |= MAIN,
                "role" if a.value.trim().eq_ignore_ascii_case("navigation") => bits |= NAV,
                _ => {}
            }
        }
    }
    bits
}

fn is_display_none(style: &str) -> bool {
    let s: String = style
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    s.contains("display:none") || s.contains("visibility:hidden")
}

/// Accumulates the block being built.
#[derive(Default)]
struct Builder {
    block: Block,
    started: bool,
    pending_space: bool,
    in_word: bool,
    prev_in_link: bool,
}

impl Builder {
    /// Adds a text node's text: white space collapses to one pending space
    /// (written only before more text of the block), and each run of other
    /// characters is copied whole, counted in characters and words as it is
    /// scanned (a `push` per character cost more than the rest of the
    /// splitter's text handling).
    fn push_text(&mut self, node: NodeId, text: &str, in_link: bool, element: u32, owner: u32) {
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            // A run of white space (most text nodes between tags are only
            // indentation): skipped in one tight loop.
            let mut j = i;
            loop {
                while j < bytes.len() && crate::text::ASCII_SPACE[bytes[j] as usize] {
                    j += 1;
                }
                match bytes.get(j) {
                    Some(&b) if b >= 0x80 => match text[j..].chars().next() {
                        Some(c) if c.is_whitespace() => j += c.len_utf8(),
                        _ => break,
                    },
                    _ => break,
                }
            }
            if j > i {
                if self.started {
                    self.pending_space = true;
                }
                self.in_word = false;
                i = j;
                continue;
            }
            if !self.started {
                self.started = true;
                self.block.element = element;
                self.block.owner = owner;
                self.block.first_node = node;
            }
            self.block.last_node = node;
            if self.pending_space {
                // A space counts as link text only inside one link's text.
                self.block.text.push(' ');
                self.block.chars += 1;
                if in_link && self.prev_in_link {
                    self.block.link_chars += 1;
                }
                self.pending_space = false;
            }
            self.prev_in_link = in_link;
            // The run of characters up to the next white space.
            let run_start = i;
            let (mut chars, mut words) = (0u32, 0u32);
            let mut in_word = self.in_word;
            while i < bytes.len() {
                let b = bytes[i];
                // ASCII first: most text is, and the Unicode tables cost.
                let (word_char, cjk, len) = if b < 0x80 {
                    if crate::text::ASCII_SPACE[b as usize] {
                        break;
                    }
                    (b.is_ascii_alphanumeric() || b == b'_', false, 1)
                } else {
                    let c = text[i..].chars().next().expect("a char at a char boundary");
                    if c.is_whitespace() {
                        break;
                    }
                    (c.is_alphanumeric(), is_cjk(c), c.len_utf8())
                };
                chars += 1;
                if word_char && (cjk || !in_word) {
                    words += 1;
                }
                in_word = word_char && !cjk;
                i += len;
            }
            self.in_word = in_word;
            self.block.text.push_str(&text[run_start..i]);
            self.block.chars += chars;
            self.block.words += words;
            if in_link {
                self.block.link_chars += chars;
                self.block.link_words += words;
            }
        }
    }
}

struct Frame {
    node: NodeId,
    element: u32,
    owner: u32,
    block_tag: bool,
    link_depth: u32,
    end_tag_chars: u32,
    /// A child heading announced comments: later children are a comment region.
    comments_follow: bool,
}

/// Cuts a parsed document into blocks.
pub fn split(doc: &Document) -> Blocks {
    split_filtered(doc, |_| false)
}

/// Serialised length of a start tag with its attributes (those the parse
/// keeps: `crate::parse::attributes`). An `abbr` keeps all of its own for
/// its hAtom date (`attributes::may_cut_in`); they count as on any other
/// element, the kept names only, so that DANAg's code length (and the
/// model trained on it) does not move with an `abbr`'s tooltip.
fn start_tag_chars(tag: &LocalName, node: &crate::parse::Node) -> u32 {
    let abbr = *tag == local_name!("abbr");
    let attrs = match &node.data {
        NodeData::Element { attrs, .. } => attrs
            .iter()
            .filter(|a| !abbr || crate::parse::attributes::is_kept(&a.name.local))
            .map(|a| 4 + a.name.local.len() + a.value.len())
            .sum::<usize>(),
        _ => 0,
    };
    (2 + tag.len() + attrs).min(u32::MAX as usize) as u32
}

/// Cuts a parsed document into blocks, leaving out every element for which
/// `removed` is true (with all it contains), as if it were `<script>`.
/// Filters such as Crunch's use it to reuse this splitter.
pub fn split_filtered(doc: &Document, removed: impl Fn(NodeId) -> bool) -> Blocks {
    let dom = &doc.dom;
    let mut out = Blocks {
        title: doc.title().unwrap_or_default(),
        ..Blocks::default()
    };
    let mut cur = Builder::default();
    let mut stack: Vec<Frame> = Vec::new();
    let mut class_tokens = ClassTokens::default();
    // Values describing the innermost open element.
    let (mut element, mut owner, mut link_depth) = (u32::MAX, u32::MAX, 0u32);
    let mut after_close = false;

    let flush = |cur: &mut Builder, out: &mut Blocks, after_close: bool| {
        if cur.started && cur.block.chars > 0 {
            let mut b = std::mem::take(&mut cur.block);
            // The block keeps an exact copy of its text; the builder keeps
            // the grown buffer for the next block (one allocation a block
            // instead of a doubling per growth).
            let exact = String::from(b.text.as_str());
            let mut buffer = std::mem::replace(&mut b.text, exact);
            buffer.clear();
            cur.block.text = buffer;
            b.after_close = after_close;
            b.word_offset = out.total_words;
            out.total_words += b.words;
            out.blocks.push(b);
        } else {
            // Tags seen in an empty stretch belong to the next block.
            let b = &mut cur.block;
            let mut buffer = std::mem::take(&mut b.text);
            buffer.clear();
            cur.block = Block {
                text: buffer,
                tags: b.tags,
                markup_chars: b.markup_chars,
                links: b.links,
                images: b.images,
                inputs: b.inputs,
                ..Block::default()
            };
        }
        cur.started = false;
        cur.pending_space = false;
        cur.in_word = false;
    };

    let mut next = dom.nodes[DOCUMENT].first_child;
    loop {
        let Some(id) = next else {
            // Climb: close elements until one has a next sibling.
            let Some(frame) = stack.pop() else { break };
            cur.block.markup_chars = cur.block.markup_chars.saturating_add(frame.end_tag_chars);
            if is_heading(&out.elements[frame.element as usize].tag)
                && comments::is_comment_heading(&cur.block.text)
            {
                if let Some(parent) = stack.last_mut() {
                    parent.comments_follow = true;
                }
            }
            if frame.block_tag {
                flush(&mut cur, &mut out, after_close);
                after_close = true;
            }
            let parent = stack.last();
            element = parent.map_or(u32::MAX, |f| f.element);
            owner = parent.map_or(u32::MAX, |f| f.owner);
            link_depth = parent.map_or(0, |f| f.link_depth);
            next = dom.nodes[frame.node].next_sibling;
            continue;
        };
        let node = &dom.nodes[id];
        match &node.data {
            NodeData::Text(t) => {
                cur.push_text(id, t, link_depth > 0, element, owner);
                next = node.next_sibling;
            }
            NodeData::Element { name, .. } => {
                let tag = &name.local;
                match *tag {
                    local_name!("a") => cur.block.links += 1,
                    local_name!("img") | local_name!("picture") | local_name!("video") => {
                        cur.block.images += 1
                    }
                    local_name!("input")
                    | local_name!("textarea")
                    | local_name!("button")
                    | local_name!("select") => cur.block.inputs += 1,
                    _ => {}
                }
                if is_skipped_tag(tag) || removed(id) {
                    next = node.next_sibling;
                    continue;
                }
                let block_tag = is_block_tag(tag);
                if block_tag {
                    flush(&mut cur, &mut out, after_close);
                    after_close = false;
                }
                cur.block.tags += 1;
                cur.block.markup_chars = cur
                    .block
                    .markup_chars
                    .saturating_add(start_tag_chars(tag, node));
                let parent = (element != u32::MAX).then_some(element);
                let (depth, parent_bits, parent_comments, parent_reviews) = parent
                    .map(|p| {
                        let e = &out.elements[p as usize];
                        (e.depth + 1, e.ancestry, e.comments, e.reviews)
                    })
                    .unwrap_or((0, 0, false, false));
                let after_comment_heading = stack.last().is_some_and(|f| f.comments_follow);
                let idx = out.elements.len() as u32;
                // Read once, and once per class string: the tokens, the
                // comment and the review marks all look at the id and class.
                let marks = class_tokens.of(node.class_and_id(), &mut out.tokens);
                let may_mark = may_mark_region(tag);
                out.elements.push(ElementInfo {
                    tag: tag.clone(),
                    tokens: marks.tokens,
                    parent,
                    depth,
                    ancestry: parent_bits
                        | own_ancestry_bits(tag, node)
                        | if marks.caption {
                            ancestry::NAMED_CAPTION
                        } else {
                            0
                        },
                    comments: parent_comments
                        || after_comment_heading
                        || may_mark && marks.comments,
                    reviews: parent_reviews || may_mark && marks.reviews,
                });
                let is_link = *tag == local_name!("a");
                if let Some(first) = node.first_child {
                    element = idx;
                    if block_tag {
                        owner = idx;
                    }
                    if is_link {
                        link_depth += 1;
                    }
                    stack.push(Frame {
                        node: id,
                        element,
                        owner,
                        block_tag,
                        link_depth,
                        end_tag_chars: 3 + tag.len() as u32,
                        comments_follow: false,
                    });
                    next = Some(first);
                } else {
                    if block_tag {
                        // An empty layout element (<br>, <div/>) closes at once.
                        flush(&mut cur, &mut out, after_close);
                        after_close = true;
                    }
                    next = node.next_sibling;
                }
            }
            NodeData::Document | NodeData::Other => {
                next = node.next_sibling;
            }
        }
    }
    flush(&mut cur, &mut out, after_close);
    comments::mark_signed_threads(&mut out);
    out
}

/// The token ranges of the class strings seen so far on a page, for the
/// elements that have a class and no id: utility-class pages repeat the
/// same class string hundreds of times, and one tokenisation serves all
/// of them (an element's tokens depend on its id and class only, and the
/// arena's ranges may be shared, [`TokenArena::get`]).
#[derive(Default)]
struct ClassTokens<'doc> {
    seen: foldhash::HashMap<&'doc str, ClassMarks>,
}

/// What an element's id and class say: its tokens' range in the arena,
/// whether they name a comment ([`comments::marks_comments`]) or review
/// ([`reviews::marks_reviews`]) region, and whether they name a caption
/// ([`captions::marks_caption`], [`ancestry::NAMED_CAPTION`]).
#[derive(Clone)]
struct ClassMarks {
    tokens: std::ops::Range<u32>,
    comments: bool,
    reviews: bool,
    caption: bool,
}

impl<'doc> ClassTokens<'doc> {
    /// An element's marks from its `class_and_id`, its tokens pushed to
    /// `arena`, unless an element with the same class and no id came
    /// before.
    fn of(&mut self, class_id: [Option<&'doc str>; 2], arena: &mut TokenArena) -> ClassMarks {
        let marks = |arena: &mut TokenArena| ClassMarks {
            tokens: arena.push_element(class_id.into_iter().rev().flatten()),
            comments: comments::marks_comments(class_id),
            reviews: reviews::marks_reviews(class_id),
            caption: captions::marks_caption(class_id),
        };
        match class_id {
            [Some(class), None] => {
                if let Some(seen) = self.seen.get(class) {
                    return seen.clone();
                }
                let m = marks(arena);
                self.seen.insert(class, m.clone());
                m
            }
            _ => marks(arena),
        }
    }
}

/// Whether an element's id and class may mark a comment or review region:
/// not those of `html`, `body` and `main`, which describe the page
/// (`has-comments`, `comments-open`), not a region of it.
pub(crate) fn may_mark_region(tag: &LocalName) -> bool {
    !matches!(
        *tag,
        local_name!("html") | local_name!("body") | local_name!("main")
    )
}

/// Blocks of the given word counts and nothing else, for tests of the
/// stages that read blocks.
#[cfg(test)]
pub(crate) fn blocks_of_words(words: &[u32]) -> Blocks {
    Blocks {
        blocks: words
            .iter()
            .map(|&w| Block {
                words: w,
                chars: w * 5,
                ..Block::default()
            })
            .collect(),
        ..Blocks::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse, ParseLimits};

    fn blocks(html: &str) -> Blocks {
        split(&parse(html.as_bytes(), None, ParseLimits::default()).unwrap())
    }

    fn texts(b: &Blocks) -> Vec<&str> {
        b.blocks.iter().map(|b| b.text.as_str()).collect()
    }

    #[test]
    fn splits_at_opening_and_closing() {
        let b = blocks("<div>intro <p>para <b>bold</b> text</p> tail<br>after br</div>");
        assert_eq!(texts(&b), ["intro", "para bold text", "tail", "after br"]);
        assert!(!b.blocks[1].after_close);
        assert!(b.blocks[2].after_close);
        assert_eq!(&*b.elements[b.blocks[2].owner as usize].tag, "div");
        assert_eq!(&*b.elements[b.blocks[1].owner as usize].tag, "p");
    }

    #[test]
    fn inline_tags_do_not_split_words() {
        let b = blocks("<p>foo<b>bar</b> baz</p>");
        assert_eq!(texts(&b), ["foobar baz"]);
        assert_eq!(b.blocks[0].words, 2);
    }

    #[test]
    fn links_are_counted() {
        let b = blocks("<p>read <a href=x>the whole story</a> now</p>");
        let p = &b.blocks[0];
        assert_eq!(p.words, 5);
        assert_eq!(p.link_words, 3);
        assert_eq!(p.link_chars, "the whole story".chars().count() as u32);
    }

    #[test]
    fn scripts_and_styles_never_give_text_but_noscript_does() {
        let b = blocks(
            "<head><title>T</title><style>p{}</style></head><body><script>var x='</div>';</script>\
             <p>kept</p><noscript><p>forum post</p></noscript><svg><text>no</text></svg></body>",
        );
        assert_eq!(texts(&b), ["kept", "forum post"]);
    }

    #[test]
    fn unicode_counts_chinese_and_arabic() {
        let b = blocks("<p>这是中文</p><p>مرحبا بالعالم</p><p>café crème</p>");
        assert_eq!(b.blocks[0].words, 4, "each ideograph is a word");
        assert_eq!(b.blocks[0].chars, 4, "characters, not UTF-8 bytes");
        assert_eq!(b.blocks[1].words, 2);
        assert_eq!(b.blocks[1].chars, 13);
        assert_eq!(b.blocks[2].words, 2);
        assert_eq!(b.blocks[2].chars, 10);
    }

    #[test]
    fn ancestry_and_tokens() {
        let b = blocks(
            "<nav id='top-menu'><ul><li class='item Active'>Home</li></ul></nav><p hidden>x</p>",
        );
        let home = &b.blocks[0];
        let e = &b.elements[home.element as usize];
        assert!(e.ancestry & ancestry::NAV != 0);
        assert!(e.ancestry & ancestry::LIST != 0);
        let toks: Vec<&str> = b
            .ancestors(home.element)
            .flat_map(|e| b.tokens_of(e))
            .collect();
        assert_eq!(toks, ["item", "active", "top", "menu"]);
        assert!(b.elements[b.blocks[1].element as usize].ancestry & ancestry::HIDDEN != 0);
    }

    #[test]
    fn tags_are_counted_per_block() {
        let b = blocks("<p>first</p><p><a>one</a> <b>two</b> <i>three</i></p>");
        assert_eq!(b.blocks[1].tags, 4, "p, a, b, i");
    }

    #[test]
    fn markup_is_measured_and_removed_elements_vanish() {
        let doc = parse(
            b"<div id=a><p>one</p><ul class=menu><li>x</li></ul></div>",
            None,
            ParseLimits::default(),
        )
        .unwrap();
        let b = split(&doc);
        // "<div id=a>" is 10 characters, "<p>" 3, "</p>" 4.
        assert!(
            b.blocks[0].markup_chars >= 10 + 3 + 4,
            "{}",
            b.blocks[0].markup_chars
        );
        let ul = (0..doc.dom.nodes.len())
            .find(|&i| doc.dom.nodes[i].local_name().is_some_and(|n| &**n == "ul"))
            .unwrap();
        let kept = split_filtered(&doc, |id| id == ul);
        assert_eq!(texts(&kept), ["one"]);
    }

    #[test]
    fn deep_nesting_does_not_recurse() {
        // Deeper than the parse limit would be refused; walk what it allows.
        let html = format!(
            "{}deep text{}",
            "<div><span>".repeat(2000),
            "</span></div>".repeat(2000)
        );
        let b = blocks(&html);
        assert_eq!(texts(&b), ["deep text"]);
    }
}
