//! An arena DOM built by html5ever through our own `TreeSink`.
//!
//! Nodes live in one `Vec` and refer to each other by index, so building is a
//! push per node, dropping is one free, and walking needs no reference
//! counting (markup5ever_rcdom calls itself a test DOM). Nothing here
//! recurses, so any nesting depth is safe.

use std::borrow::Cow;
use std::cell::{Cell, Ref, RefCell};

use html5ever::tendril::StrTendril;
use html5ever::tree_builder::{ElementFlags, NodeOrText, QuirksMode, TreeSink};
use html5ever::{Attribute, LocalName, QualName};

/// Index of a node in [`Dom::nodes`].
pub type NodeId = usize;

/// The document node's index.
pub const DOCUMENT: NodeId = 0;

/// What a node is.
#[derive(Debug)]
pub enum NodeData {
    /// The document root.
    Document,
    /// An element with its name and attributes.
    Element {
        /// Qualified name (namespace + local name).
        name: QualName,
        /// Attributes in source order.
        attrs: Vec<Attribute>,
        /// The content fragment of a `<template>`.
        template_contents: Option<NodeId>,
    },
    /// A run of text.
    Text(StrTendril),
    /// Comments, doctypes, processing instructions: kept only as placeholders.
    Other,
}

/// One node of the arena.
#[derive(Debug)]
pub struct Node {
    /// Parent node, if attached.
    pub parent: Option<NodeId>,
    /// First child.
    pub first_child: Option<NodeId>,
    /// Last child.
    pub last_child: Option<NodeId>,
    /// Previous sibling.
    pub prev_sibling: Option<NodeId>,
    /// Next sibling.
    pub next_sibling: Option<NodeId>,
    /// The payload.
    pub data: NodeData,
}

impl Node {
    fn new(data: NodeData) -> Self {
        Node {
            parent: None,
            first_child: None,
            last_child: None,
            prev_sibling: None,
            next_sibling: None,
            data,
        }
    }

    /// The element's local name, if this is an element.
    pub fn local_name(&self) -> Option<&LocalName> {
        match &self.data {
            NodeData::Element { name, .. } => Some(&name.local),
            _ => None,
        }
    }

    /// The element's `class` and `id` values, read in one pass over its
    /// attributes (most stages look at both on every element).
    pub fn class_and_id(&self) -> [Option<&str>; 2] {
        let mut out = [None, None];
        if let NodeData::Element { attrs, .. } = &self.data {
            for a in attrs {
                let slot = match a.name.local {
                    html5ever::local_name!("class") => 0,
                    html5ever::local_name!("id") => 1,
                    _ => continue,
                };
                out[slot] = out[slot].or(Some(&*a.value));
            }
        }
        out
    }

    /// The value of attribute `name`, if this is an element that has it.
    /// `name` must be one the parse keeps ([`super::attributes::KEPT_ATTRIBUTES`]):
    /// debug builds assert it.
    pub fn attr(&self, name: &str) -> Option<&str> {
        debug_assert!(
            super::attributes::is_kept(name),
            "attribute `{name}` is cut before parsing: add it to KEPT_ATTRIBUTES"
        );
        self.attr_of_uncut(name)
    }

    /// [`Node::attr`] by interned name (`&local_name!("itemprop")`): one
    /// integer comparison an attribute instead of a string comparison, for
    /// the look-ups made on every element of a page.
    pub fn attr_named(&self, name: &LocalName) -> Option<&str> {
        debug_assert!(
            super::attributes::is_kept(name),
            "attribute `{name}` is cut before parsing: add it to KEPT_ATTRIBUTES"
        );
        match &self.data {
            NodeData::Element { attrs, .. } => attrs
                .iter()
                .find(|a| a.name.local == *name)
                .map(|a| &*a.value),
            _ => None,
        }
    }

    /// The value of attribute `name` on an element whose attributes the
    /// pre-scan never cuts (`abbr`, the formatting elements:
    /// `attributes::may_cut_in`), whether or not other elements keep it.
    pub fn attr_of_uncut(&self, name: &str) -> Option<&str> {
        match &self.data {
            // Compared byte by byte in line: names are short, and a call to
            // `memcmp` per attribute cost more than the comparison.
            NodeData::Element { attrs, .. } => attrs
                .iter()
                .find(|a| {
                    let local: &str = &a.name.local;
                    local.len() == name.len()
                        && local.bytes().zip(name.bytes()).all(|(x, y)| x == y)
                })
                .map(|a| &*a.value),
            _ => None,
        }
    }
}

/// A parsed document.
#[derive(Debug)]
pub struct Dom {
    /// All nodes; index 0 is the document.
    pub nodes: Vec<Node>,
}

impl Dom {
    /// Removes every `class` and `id` attribute: the page as markup that
    /// names nothing, as older pages are (training's class-free copies,
    /// `TrainConfig::class_free_copies`).
    pub fn remove_class_and_id(&mut self) {
        for node in &mut self.nodes {
            if let NodeData::Element { attrs, .. } = &mut node.data {
                attrs.retain(|a| {
                    !matches!(
                        a.name.local,
                        html5ever::local_name!("class") | html5ever::local_name!("id")
                    )
                });
            }
        }
    }

    /// Children of `id`, in order.
    pub fn children(&self, id: NodeId) -> Children<'_> {
        Children {
            dom: self,
            next: self.nodes[id].first_child,
        }
    }

    /// `id` and every node below it, in document order (no recursion).
    pub fn descendants(&self, id: NodeId) -> Descendants<'_> {
        Descendants {
            dom: self,
            stack: vec![id],
        }
    }

    /// The first element with local name `tag` in document order.
    pub fn find_first(&self, tag: &str) -> Option<NodeId> {
        self.descendants(DOCUMENT)
            .find(|&id| self.nodes[id].local_name().is_some_and(|n| &**n == tag))
    }

    /// All text below `id`, concatenated in document order.
    pub fn text_of(&self, id: NodeId) -> String {
        self.text_within(id, usize::MAX).unwrap_or_default()
    }

    /// All text below `id` like [`Dom::text_of`], or `None` when the subtree
    /// holds more than `max_nodes` nodes (so that looking at many candidate
    /// elements stays linear).
    pub fn text_within(&self, id: NodeId, max_nodes: usize) -> Option<String> {
        let mut out = String::new();
        for (seen, n) in self.descendants(id).enumerate() {
            if seen >= max_nodes {
                return None;
            }
            if let NodeData::Text(t) = &self.nodes[n].data {
                out.push_str(t);
            }
        }
        Some(out)
    }
}

/// Iterator over a node and its descendants in document order.
pub struct Descendants<'a> {
    dom: &'a Dom,
    stack: Vec<NodeId>,
}

impl Iterator for Descendants<'_> {
    type Item = NodeId;
    fn next(&mut self) -> Option<NodeId> {
        let cur = self.stack.pop()?;
        let first = self.stack.len();
        self.stack.extend(self.dom.children(cur));
        self.stack[first..].reverse();
        Some(cur)
    }
}

/// Iterator over a node's children.
pub struct Children<'a> {
    dom: &'a Dom,
    next: Option<NodeId>,
}

impl Iterator for Children<'_> {
    type Item = NodeId;
    fn next(&mut self) -> Option<NodeId> {
        let cur = self.next?;
        self.next = self.dom.nodes[cur].next_sibling;
        Some(cur)
    }
}

/// Why a parse stopped before the end of the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ParseStop {
    /// The page has more nodes than the budget.
    Nodes,
    /// The page's deadline passed.
    Deadline,
}

/// The html5ever sink that fills the arena.
///
/// It keeps the page within its budget: past `max_nodes` nodes, or past
/// the deadline, nothing more is stored and the parse is marked stopped;
/// `parse_str` reads the mark between chunks of input and gives up there.
/// html5ever still runs to the end of the chunk in hand, so every node it
/// creates until then gets a placeholder id past the arena that remembers
/// only the element's name: the tree builder asks for the names of the open
/// elements (closing a `<p>` looks for one named `p`), and a placeholder
/// without its own name would make it pop its whole stack and panic.
pub(crate) struct Sink {
    nodes: RefCell<Vec<Node>>,
    /// Names of the placeholders, placeholder `max_nodes + i` at `i`.
    placeholder_names: RefCell<Vec<QualName>>,
    /// Set when the parse has to stop; no node is stored after it.
    stop: Cell<Option<ParseStop>>,
    max_nodes: usize,
    /// When the page's time runs out (`None`: no limit, and no clock read,
    /// since `wasm32-unknown-unknown` has none).
    deadline: Option<std::time::Instant>,
}

/// Bytes of HTML per DOM node on typical whole pages (about 120 over the
/// readability and WCXB pages).
const HTML_BYTES_PER_NODE: usize = 128;

/// The nodes a whole page of `html_len` bytes is expected to hold: enough
/// to size the arena once instead of doubling it from empty.
pub(crate) fn nodes_for_bytes(html_len: usize) -> usize {
    html_len / HTML_BYTES_PER_NODE
}

/// The deadline is read once every this many nodes: a clock read per node
/// would cost more than building the node.
const NODES_PER_CLOCK_READ: usize = 4096;

impl Sink {
    /// A sink for a page expected to hold `expected_nodes` nodes (its
    /// arena's first size) that stores at most `max_nodes` nodes and stops
    /// at `deadline`.
    pub(crate) fn new(
        max_nodes: usize,
        expected_nodes: usize,
        deadline: Option<std::time::Instant>,
    ) -> Self {
        let mut nodes = Vec::with_capacity(expected_nodes.clamp(1, max_nodes.saturating_add(1)));
        nodes.push(Node::new(NodeData::Document));
        Sink {
            nodes: RefCell::new(nodes),
            placeholder_names: RefCell::new(Vec::new()),
            stop: Cell::new(None),
            max_nodes,
            deadline,
        }
    }

    /// Why the parse has to stop, once it has to.
    pub(crate) fn stopped(&self) -> Option<ParseStop> {
        self.stop.get()
    }

    fn halt(&self, why: ParseStop) {
        if self.stop.get().is_none() {
            self.stop.set(Some(why));
        }
    }

    fn push(&self, data: NodeData) -> NodeId {
        let mut nodes = self.nodes.borrow_mut();
        if nodes.len() >= self.max_nodes {
            self.halt(ParseStop::Nodes);
        }
        if self.stop.get().is_some() {
            let name = match data {
                NodeData::Element { name, .. } => name,
                _ => PLACEHOLDER_NAME.clone(),
            };
            let mut names = self.placeholder_names.borrow_mut();
            names.push(name);
            return self.max_nodes + names.len() - 1;
        }
        nodes.push(Node::new(data));
        if let Some(deadline) = self.deadline {
            if nodes.len().is_multiple_of(NODES_PER_CLOCK_READ)
                && std::time::Instant::now() > deadline
            {
                self.halt(ParseStop::Deadline);
            }
        }
        nodes.len() - 1
    }

    fn detach(nodes: &mut [Node], id: NodeId) {
        let (parent, prev, next) = {
            let n = &nodes[id];
            (n.parent, n.prev_sibling, n.next_sibling)
        };
        if let Some(p) = parent {
            if nodes[p].first_child == Some(id) {
                nodes[p].first_child = next;
            }
            if nodes[p].last_child == Some(id) {
                nodes[p].last_child = prev;
            }
        }
        if let Some(p) = prev {
            nodes[p].next_sibling = next;
        }
        if let Some(n) = next {
            nodes[n].prev_sibling = prev;
        }
        let n = &mut nodes[id];
        n.parent = None;
        n.prev_sibling = None;
        n.next_sibling = None;
    }

    fn append_node(nodes: &mut [Node], parent: NodeId, child: NodeId) {
        Self::detach(nodes, child);
        let last = nodes[parent].last_child;
        nodes[child].parent = Some(parent);
        nodes[child].prev_sibling = last;
        match last {
            Some(l) => nodes[l].next_sibling = Some(child),
            None => nodes[parent].first_child = Some(child),
        }
        nodes[parent].last_child = Some(child);
    }

    fn insert_before(nodes: &mut [Node], sibling: NodeId, child: NodeId) {
        Self::detach(nodes, child);
        let parent = nodes[sibling].parent;
        let prev = nodes[sibling].prev_sibling;
        nodes[child].parent = parent;
        nodes[child].next_sibling = Some(sibling);
        nodes[child].prev_sibling = prev;
        nodes[sibling].prev_sibling = Some(child);
        match prev {
            Some(p) => nodes[p].next_sibling = Some(child),
            None => {
                if let Some(p) = parent {
                    nodes[p].first_child = Some(child);
                }
            }
        }
    }

    fn is_placeholder(&self, id: NodeId) -> bool {
        id >= self.max_nodes
    }
}

impl TreeSink for Sink {
    type Handle = NodeId;
    type Output = (Dom, Option<ParseStop>);
    type ElemName<'a> = Ref<'a, QualName>;

    fn finish(self) -> (Dom, Option<ParseStop>) {
        (
            Dom {
                nodes: self.nodes.into_inner(),
            },
            self.stop.get(),
        )
    }

    fn parse_error(&self, _msg: Cow<'static, str>) {}

    fn get_document(&self) -> NodeId {
        DOCUMENT
    }

    fn elem_name<'a>(&'a self, target: &'a NodeId) -> Ref<'a, QualName> {
        if self.is_placeholder(*target) {
            let at = *target - self.max_nodes;
            return Ref::map(self.placeholder_names.borrow(), |names| {
                names.get(at).unwrap_or(&*PLACEHOLDER_NAME)
            });
        }
        Ref::map(self.nodes.borrow(), |nodes| match &nodes[*target].data {
            NodeData::Element { name, .. } => name,
            // html5ever asks only for elements' names.
            _ => &PLACEHOLDER_NAME,
        })
    }

    fn create_element(&self, name: QualName, attrs: Vec<Attribute>, flags: ElementFlags) -> NodeId {
        let is_template = flags.template;
        let id = self.push(NodeData::Element {
            name,
            attrs,
            template_contents: None,
        });
        if is_template && !self.is_placeholder(id) {
            let contents = self.push(NodeData::Document);
            if !self.is_placeholder(contents) {
                if let NodeData::Element {
                    template_contents, ..
                } = &mut self.nodes.borrow_mut()[id].data
                {
                    *template_contents = Some(contents);
                }
            }
        }
        id
    }

    fn create_comment(&self, _text: StrTendril) -> NodeId {
        self.push(NodeData::Other)
    }

    fn create_pi(&self, _target: StrTendril, _data: StrTendril) -> NodeId {
        self.push(NodeData::Other)
    }

    fn append(&self, parent: &NodeId, child: NodeOrText<NodeId>) {
        if self.is_placeholder(*parent) {
            return;
        }
        match child {
            NodeOrText::AppendNode(c) => {
                if !self.is_placeholder(c) {
                    Self::append_node(&mut self.nodes.borrow_mut(), *parent, c);
                }
            }
            NodeOrText::AppendText(text) => {
                {
                    let mut nodes = self.nodes.borrow_mut();
                    if let Some(last) = nodes[*parent].last_child {
                        if let NodeData::Text(t) = &mut nodes[last].data {
                            t.push_tendril(&text);
                            return;
                        }
                    }
                }
                let id = self.push(NodeData::Text(text));
                if !self.is_placeholder(id) {
                    Self::append_node(&mut self.nodes.borrow_mut(), *parent, id);
                }
            }
        }
    }

    fn append_based_on_parent_node(
        &self,
        element: &NodeId,
        prev_element: &NodeId,
        child: NodeOrText<NodeId>,
    ) {
        let has_parent =
            !self.is_placeholder(*element) && self.nodes.borrow()[*element].parent.is_some();
        if has_parent {
            self.append_before_sibling(element, child);
        } else {
            self.append(prev_element, child);
        }
    }

    fn append_doctype_to_document(
        &self,
        _name: StrTendril,
        _public_id: StrTendril,
        _system_id: StrTendril,
    ) {
    }

    fn get_template_contents(&self, target: &NodeId) -> NodeId {
        if self.is_placeholder(*target) {
            return *target;
        }
        match &self.nodes.borrow()[*target].data {
            NodeData::Element {
                template_contents: Some(c),
                ..
            } => *c,
            _ => *target,
        }
    }

    fn same_node(&self, x: &NodeId, y: &NodeId) -> bool {
        x == y
    }

    fn set_quirks_mode(&self, _mode: QuirksMode) {}

    fn append_before_sibling(&self, sibling: &NodeId, new_node: NodeOrText<NodeId>) {
        if self.is_placeholder(*sibling) {
            return;
        }
        match new_node {
            NodeOrText::AppendNode(c) => {
                if !self.is_placeholder(c) {
                    Self::insert_before(&mut self.nodes.borrow_mut(), *sibling, c);
                }
            }
            NodeOrText::AppendText(text) => {
                {
                    let mut nodes = self.nodes.borrow_mut();
                    if let Some(prev) = nodes[*sibling].prev_sibling {
                        if let NodeData::Text(t) = &mut nodes[prev].data {
                            t.push_tendril(&text);
                            return;
                        }
                    }
                }
                let id = self.push(NodeData::Text(text));
                if !self.is_placeholder(id) {
                    Self::insert_before(&mut self.nodes.borrow_mut(), *sibling, id);
                }
            }
        }
    }

    fn add_attrs_if_missing(&self, target: &NodeId, new_attrs: Vec<Attribute>) {
        if self.is_placeholder(*target) {
            return;
        }
        if let NodeData::Element { attrs, .. } = &mut self.nodes.borrow_mut()[*target].data {
            for a in new_attrs {
                if !attrs.iter().any(|b| b.name == a.name) {
                    attrs.push(a);
                }
            }
        }
    }

    fn remove_from_parent(&self, target: &NodeId) {
        if !self.is_placeholder(*target) {
            Self::detach(&mut self.nodes.borrow_mut(), *target);
        }
    }

    fn reparent_children(&self, node: &NodeId, new_parent: &NodeId) {
        if self.is_placeholder(*node) || self.is_placeholder(*new_parent) {
            return;
        }
        let mut nodes = self.nodes.borrow_mut();
        while let Some(c) = nodes[*node].first_child {
            Self::append_node(&mut nodes, *new_parent, c);
        }
    }
}

static PLACEHOLDER_NAME: std::sync::LazyLock<QualName> = std::sync::LazyLock::new(|| {
    QualName::new(None, html5ever::ns!(html), html5ever::local_name!("span"))
});
