//! Markdown (CommonMark with GitHub tables) of the kept content's
//! [`Structure`]: headings, paragraphs, nested lists, definition lists,
//! pipe tables, fenced code, quotes, emphasis, links and images.
//!
//! Text is escaped where a character would otherwise be read as markup;
//! code is written as it is. Every character of kept text is written once,
//! so the words of the Markdown are the words of the text output.

use super::links;
use super::Markup;
use crate::extract::structure::{Kind, Structure};

/// How a table is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableLayout {
    /// A GitHub pipe table: every row has the same number of cells once
    /// `colspan` and `rowspan` are spread (a spanned cell's text is written
    /// once, the cells it covers are left empty).
    Pipe,
    /// One line per row, cells separated by ` | `: the rows differ in width.
    Lines,
    /// A table used for layout (its cells hold headings, lists, code,
    /// quotes, tables or several paragraphs): its cells are written as
    /// blocks, one after the other.
    Layout,
}

/// The Markdown of `s`, ending with a newline (empty when nothing is kept).
pub fn render(s: &Structure, options: &Markup) -> String {
    let base = links::base_url(s.base.as_deref(), options.page_url.as_deref());
    let r = Renderer {
        s,
        options,
        base: base.as_deref(),
    };
    let mut out = r.blocks(&s.node(Structure::ROOT).children, false);
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

/// The page's title as a top-level heading line (`# Title`), its text
/// escaped like any heading's; empty when the title has no text.
pub fn title_heading(title: &str) -> String {
    let mut run = Inline::new(Mode::Heading, false);
    run.text(title);
    let text = run.finish();
    if text.is_empty() {
        text
    } else {
        format!("# {text}")
    }
}

/// How `table` is written (see [`TableLayout`]).
pub fn table_layout(s: &Structure, table: u32) -> TableLayout {
    let rows = rows(s, table);
    for &row in &rows {
        for &cell in &s.node(row).children {
            if !matches!(s.node(cell).kind, Kind::Cell { .. }) {
                continue;
            }
            let mut paragraphs = 0;
            for d in s.descendants(cell).skip(1) {
                match s.node(d).kind {
                    Kind::Heading(_)
                    | Kind::List { .. }
                    | Kind::Definitions
                    | Kind::Table
                    | Kind::Pre { .. }
                    | Kind::Quote => return TableLayout::Layout,
                    Kind::Paragraph => paragraphs += 1,
                    _ => {}
                }
            }
            if paragraphs > 1 {
                return TableLayout::Layout;
            }
        }
    }
    let grid = grid(s, &rows);
    let width = grid.first().map_or(0, Vec::len);
    if width > 0 && grid.iter().all(|r| r.len() == width) {
        TableLayout::Pipe
    } else {
        TableLayout::Lines
    }
}

/// The table's rows (the `Row` children of the table).
fn rows(s: &Structure, table: u32) -> Vec<u32> {
    s.node(table)
        .children
        .iter()
        .copied()
        .filter(|&c| s.node(c).kind == Kind::Row)
        .collect()
}

/// The rows' cells with spans spread: `Some(cell)` where a cell starts,
/// `None` where one spans over.
fn grid(s: &Structure, rows: &[u32]) -> Vec<Vec<Option<u32>>> {
    // Columns still covered by a rowspan from above: (rows left, column).
    let mut carried: Vec<u16> = Vec::new();
    let mut out = Vec::with_capacity(rows.len());
    for &row in rows {
        let mut line: Vec<Option<u32>> = Vec::new();
        let mut next_carried: Vec<u16> = Vec::new();
        let mut col = 0usize;
        let covered = |col: usize, carried: &[u16]| carried.get(col).is_some_and(|&n| n > 0);
        let mut cells = s
            .node(row)
            .children
            .iter()
            .copied()
            .filter(|&c| matches!(s.node(c).kind, Kind::Cell { .. }));
        loop {
            while covered(col, &carried) {
                line.push(None);
                set(&mut next_carried, col, carried[col] - 1);
                col += 1;
            }
            let Some(cell) = cells.next() else { break };
            let Kind::Cell {
                colspan, rowspan, ..
            } = s.node(cell).kind
            else {
                continue;
            };
            for k in 0..usize::from(colspan) {
                line.push((k == 0).then_some(cell));
                set(&mut next_carried, col, rowspan - 1);
                col += 1;
                if k + 1 < usize::from(colspan) && covered(col, &carried) {
                    break;
                }
            }
        }
        // Rowspans reaching past the row's last cell still cover columns.
        while col < carried.len() {
            if carried[col] > 0 {
                line.push(None);
                set(&mut next_carried, col, carried[col] - 1);
            }
            col += 1;
        }
        carried = next_carried;
        out.push(line);
    }
    out
}

fn set(v: &mut Vec<u16>, i: usize, value: u16) {
    if v.len() <= i {
        v.resize(i + 1, 0);
    }
    v[i] = value;
}

/// Where running text is written: escapes differ.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// A paragraph: line breaks kept.
    Normal,
    /// A heading: one line.
    Heading,
    /// A table cell: one line, `|` escaped.
    Cell,
}

/// Running text being written, whitespace collapsed.
struct Inline {
    out: String,
    mode: Mode,
    pending_space: bool,
    /// The next character starts a line (block markers must be escaped).
    line_start: bool,
    /// Whitespace came before the first character.
    leading_space: bool,
    /// A line break came before the first character.
    leading_break: bool,
    /// The emphasis marker that closed last and where the output then
    /// ended: `*a**b*` would read as strong, so an emphasis right after
    /// one of the same kind continues it.
    closed: Option<(&'static str, usize)>,
    /// The last character written (for `_` escapes).
    prev: char,
    /// A line break (`<br>`) in a paragraph is written as a Markdown hard
    /// break (`\\` at the end of the line) rather than a plain newline.
    hard_breaks: bool,
}

impl Inline {
    fn new(mode: Mode, line_start: bool) -> Self {
        Inline {
            out: String::new(),
            mode,
            pending_space: false,
            line_start,
            leading_space: false,
            leading_break: false,
            closed: None,
            prev: ' ',
            hard_breaks: false,
        }
    }

    fn space(&mut self) {
        if self.out.is_empty() {
            self.leading_space = true;
        } else if !self.line_start {
            self.pending_space = true;
        }
    }

    /// Writes a pending space before `s`, written as it is.
    fn raw(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        if self.pending_space {
            self.out.push(' ');
            self.pending_space = false;
        }
        self.out.push_str(s);
        self.line_start = false;
        self.prev = s.chars().next_back().unwrap_or(' ');
    }

    fn hard_break(&mut self) {
        match self.mode {
            Mode::Normal if !self.out.is_empty() && !self.line_start => {
                // A plain newline is a soft break: the line ends where the
                // page's did, and no `\` is left for a reader to strip.
                self.out
                    .push_str(if self.hard_breaks { "\\\n" } else { "\n" });
                self.pending_space = false;
                self.line_start = true;
                self.prev = ' ';
            }
            // A break before any text: the enclosing markup writes it.
            Mode::Normal if self.out.is_empty() => self.leading_break = true,
            Mode::Normal => {}
            _ => self.space(),
        }
    }

    /// Writes text, collapsing whitespace and escaping markup characters.
    fn text(&mut self, t: &str) {
        let mut chars = t.chars().peekable();
        while let Some(c) = chars.next() {
            if c.is_whitespace() || c == '\x0b' {
                self.space();
                continue;
            }
            if self.pending_space {
                self.out.push(' ');
                self.pending_space = false;
                self.prev = ' ';
            }
            let next = chars.peek().copied().unwrap_or(' ');
            if self.escapes(c, next) {
                self.out.push('\\');
            }
            if self.line_start && c.is_ascii_digit() {
                // "1999. A year" would start a list: escape the dot.
                self.out.push(c);
                while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                    self.out.push(d);
                    chars.next();
                }
                if let Some(&p) = chars.peek().filter(|&&p| p == '.' || p == ')') {
                    self.out.push('\\');
                    self.out.push(p);
                    chars.next();
                }
                self.line_start = false;
                self.prev = '0';
                continue;
            }
            self.out.push(c);
            self.line_start = false;
            self.prev = c;
        }
    }

    /// True when `c` (followed by `next`) must be escaped here.
    fn escapes(&self, c: char, next: char) -> bool {
        match c {
            '\\' | '`' | '*' | '[' | ']' | '<' | '~' => true,
            '_' => !(self.prev.is_alphanumeric() && next.is_alphanumeric()),
            '&' => next.is_ascii_alphanumeric() || next == '#',
            '|' => self.mode == Mode::Cell,
            '#' => self.line_start || self.mode == Mode::Heading,
            '>' | '-' | '+' | '=' | ':' => self.line_start,
            _ => false,
        }
    }

    /// The text written, trimmed.
    fn finish(self) -> String {
        let mut s = self.out;
        while s.ends_with("\\\n") {
            s.truncate(s.len() - 2);
        }
        s.truncate(s.trim_end().len());
        s
    }
}

struct Renderer<'a> {
    s: &'a Structure,
    options: &'a Markup,
    base: Option<&'a str>,
}

/// The marker of the list written just before, so that two lists in a row
/// do not merge into one.
#[derive(Clone, Copy, PartialEq, Eq)]
enum LastPart {
    Other,
    List { ordered: bool, alternate: bool },
}

impl Renderer<'_> {
    /// Running text in `mode`, with this rendering's kind of line break.
    fn run(&self, mode: Mode, line_start: bool) -> Inline {
        Inline {
            hard_breaks: self.options.hard_breaks,
            ..Inline::new(mode, line_start)
        }
    }

    /// Writes a sequence of nodes as blocks separated by blank lines; runs
    /// of text between separators become paragraphs. In a list item
    /// (`item`), a list right after text follows it on the next line.
    fn blocks(&self, children: &[u32], item: bool) -> String {
        let mut out = String::new();
        let mut run = self.run(Mode::Normal, true);
        let mut last = LastPart::Other;
        let push = |out: &mut String, part: String, tight: bool| {
            if part.is_empty() {
                return false;
            }
            if !out.is_empty() {
                out.push_str(if tight { "\n" } else { "\n\n" });
            }
            out.push_str(&part);
            true
        };
        for &c in children {
            let node = self.s.node(c);
            if node.kind == Kind::Separator || node.kind.is_block() {
                let para = std::mem::replace(&mut run, self.run(Mode::Normal, true)).finish();
                if push(&mut out, para, false) {
                    last = LastPart::Other;
                }
            }
            match &node.kind {
                Kind::Separator => {}
                Kind::List { ordered, .. } => {
                    let alternate = match last {
                        LastPart::List {
                            ordered: o,
                            alternate,
                        } if o == *ordered => !alternate,
                        _ => false,
                    };
                    let tight = item && !out.is_empty() && last == LastPart::Other;
                    if push(&mut out, self.list(c, alternate), tight) {
                        last = LastPart::List {
                            ordered: *ordered,
                            alternate,
                        };
                    }
                }
                k if k.is_block() => {
                    if push(&mut out, self.block(c), false) {
                        last = LastPart::Other;
                    }
                }
                _ => self.inline(c, &mut run),
            }
        }
        push(&mut out, run.finish(), false);
        out
    }

    /// One block node.
    fn block(&self, id: u32) -> String {
        let node = self.s.node(id);
        match &node.kind {
            Kind::Heading(level) => {
                let text = self.line(&node.children, Mode::Heading);
                if text.is_empty() {
                    return text;
                }
                format!("{} {text}", "#".repeat(usize::from(*level)))
            }
            Kind::Paragraph | Kind::Term => {
                let mut run = self.run(Mode::Normal, true);
                for &c in &node.children {
                    self.inline(c, &mut run);
                }
                run.finish()
            }
            Kind::Pre { language } => self.code_block(id, language.as_deref()),
            Kind::Quote => prefix_lines(&self.blocks(&node.children, false), "> ", "> "),
            Kind::Definitions => self.definitions(id),
            Kind::Table => self.table(id),
            Kind::List { .. } => self.list(id, false),
            // Items, rows and cells out of place: their content as blocks.
            _ => self.blocks(&node.children, false),
        }
    }

    /// Nodes written as one line of running text.
    fn line(&self, children: &[u32], mode: Mode) -> String {
        self.line_at(children, mode, mode == Mode::Normal)
    }

    /// Like [`Renderer::line`], escaping block markers at the start when
    /// `line_start`.
    fn line_at(&self, children: &[u32], mode: Mode, line_start: bool) -> String {
        let mut run = self.run(mode, line_start);
        for &c in children {
            self.inline(c, &mut run);
        }
        run.finish()
    }

    /// One node as running text; block nodes inside (which the structure
    /// does not make) are written as their text.
    fn inline(&self, id: u32, run: &mut Inline) {
        let node = self.s.node(id);
        match &node.kind {
            Kind::Text(t) => run.text(t),
            Kind::Separator => run.space(),
            Kind::Break => run.hard_break(),
            Kind::Emphasis => self.emphasis(&node.children, "*", run),
            Kind::Strong => self.emphasis(&node.children, "**", run),
            Kind::Code => {
                let code = collapse(&self.s.raw_text(id, " "));
                if code.is_empty() {
                    return;
                }
                let ticks = "`".repeat(longest_run(&code, '`') + 1);
                let pad = if code.starts_with('`') || code.ends_with('`') {
                    " "
                } else {
                    ""
                };
                run.raw(&format!("{ticks}{pad}{code}{pad}{ticks}"));
            }
            Kind::Link { href } => match links::kept_link(self.options, href, self.base) {
                Some(url) => {
                    let close = format!("]({})", markdown_url(&url));
                    self.wrapped(&node.children, "[", &close, run);
                }
                None => {
                    for &c in &node.children {
                        self.inline(c, run);
                    }
                }
            },
            Kind::Image { src, alt } => {
                if let Some(url) = links::kept_image(self.options, src, self.base) {
                    let mut a = Inline::new(Mode::Cell, false);
                    a.text(alt);
                    let alt = a.finish();
                    run.raw(&format!("![{alt}]({})", markdown_url(&url)));
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

    /// Writes `children` between emphasis markers; continues the emphasis
    /// just closed when it is of the same kind.
    fn emphasis(&self, children: &[u32], marker: &'static str, run: &mut Inline) {
        let continues = !run.pending_space
            && run
                .closed
                .is_some_and(|(m, at)| m == marker && at == run.out.len());
        if continues {
            run.out.truncate(run.out.len() - marker.len());
            let at = run.out.len();
            self.wrapped(children, "", marker, run);
            if run.out.len() == at {
                // Nothing to add: close the emphasis again.
                run.out.push_str(marker);
            }
        } else {
            self.wrapped(children, marker, marker, run);
        }
        if run.out.ends_with(marker) {
            run.closed = Some((marker, run.out.len()));
        }
    }

    /// Writes `children` between `open` and `close` (emphasis, links),
    /// with the whitespace at their ends outside the markers.
    fn wrapped(&self, children: &[u32], open: &str, close: &str, run: &mut Inline) {
        let mut inner = self.run(run.mode, false);
        inner.prev = run.prev;
        for &c in children {
            self.inline(c, &mut inner);
        }
        let (leading, trailing) = (inner.leading_space, inner.pending_space);
        let (leading_break, trailing_break) = (inner.leading_break, inner.line_start);
        let text = inner.finish();
        if leading_break {
            run.hard_break();
        }
        if leading {
            run.space();
        }
        if !text.is_empty() {
            run.raw(&format!("{open}{text}{close}"));
        }
        // A break at the end goes after the closing marker.
        if trailing_break && !text.is_empty() {
            run.hard_break();
        }
        if trailing {
            run.space();
        }
    }

    fn code_block(&self, id: u32, language: Option<&str>) -> String {
        let code = self.s.raw_text(id, "\n");
        let code = code.trim_start_matches(['\n', '\r']).trim_end();
        if code.trim().is_empty() {
            return String::new();
        }
        let fence = "`".repeat(longest_run(code, '`').max(2) + 1);
        format!("{fence}{}\n{code}\n{fence}", language.unwrap_or_default())
    }

    fn list(&self, id: u32, alternate: bool) -> String {
        let Kind::List { ordered, start } = self.s.node(id).kind else {
            return String::new();
        };
        let mut out = String::new();
        let mut n = start;
        // Text and blocks outside items become items of their own.
        let mut stray: Vec<u32> = Vec::new();
        let mut items: Vec<Vec<u32>> = Vec::new();
        for &c in &self.s.node(id).children {
            if self.s.node(c).kind == Kind::Item {
                if !stray.is_empty() {
                    items.push(std::mem::take(&mut stray));
                }
                items.push(self.s.node(c).children.clone());
            } else {
                stray.push(c);
            }
        }
        if !stray.is_empty() {
            items.push(stray);
        }
        for children in items {
            let content = self.blocks(&children, true);
            if content.is_empty() {
                continue;
            }
            let marker = match (ordered, alternate) {
                (true, false) => format!("{n}. "),
                (true, true) => format!("{n}) "),
                (false, false) => "- ".to_string(),
                (false, true) => "* ".to_string(),
            };
            n = n.saturating_add(1);
            let indent = " ".repeat(marker.len());
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&prefix_lines(&content, &marker, &indent));
        }
        out
    }

    fn definitions(&self, id: u32) -> String {
        let mut out = String::new();
        for &c in &self.s.node(id).children {
            let node = self.s.node(c);
            let part = match node.kind {
                Kind::Term => self.line(&node.children, Mode::Normal),
                Kind::Definition => {
                    let body = self.blocks(&node.children, false);
                    if body.is_empty() {
                        continue;
                    }
                    let part = prefix_lines(&body, ": ", "  ");
                    if !out.is_empty() {
                        out.push('\n');
                    }
                    out.push_str(&part);
                    continue;
                }
                _ => self.blocks(std::slice::from_ref(&c), false),
            };
            if part.is_empty() {
                continue;
            }
            if !out.is_empty() {
                out.push_str("\n\n");
            }
            out.push_str(&part);
        }
        out
    }

    fn table(&self, id: u32) -> String {
        let s = self.s;
        let node = s.node(id);
        let layout = table_layout(s, id);
        if layout == TableLayout::Layout {
            // The table's own cells (a nested table is written with the
            // cell that holds it).
            let cells: Vec<u32> = rows(s, id)
                .into_iter()
                .flat_map(|r| s.node(r).children.iter().copied())
                .filter(|&c| matches!(s.node(c).kind, Kind::Cell { .. }))
                .collect();
            let mut parts: Vec<u32> = node
                .children
                .iter()
                .copied()
                .filter(|&c| s.node(c).kind != Kind::Row)
                .collect();
            parts.extend(cells);
            let mut out = String::new();
            for p in parts {
                let text = match s.node(p).kind {
                    Kind::Cell { .. } => self.blocks(&s.node(p).children, false),
                    _ => self.blocks(std::slice::from_ref(&p), false),
                };
                if !text.is_empty() {
                    if !out.is_empty() {
                        out.push_str("\n\n");
                    }
                    out.push_str(&text);
                }
            }
            return out;
        }
        // Text beside the rows (a caption) goes before the table.
        let others: Vec<u32> = node
            .children
            .iter()
            .copied()
            .filter(|&c| s.node(c).kind != Kind::Row)
            .collect();
        let mut out = self.blocks(&others, false);
        let rows = rows(s, id);
        let grid = grid(s, &rows);
        let cell_text = |cell: Option<u32>| {
            cell.map(|c| self.line(&s.node(c).children, Mode::Cell))
                .unwrap_or_default()
        };
        let mut table = String::new();
        match layout {
            TableLayout::Pipe => {
                for (i, row) in grid.iter().enumerate() {
                    let cells: Vec<String> = row.iter().map(|&c| cell_text(c)).collect();
                    table.push_str(&format!("| {} |\n", cells.join(" | ")));
                    if i == 0 {
                        table.push_str(&format!("|{}\n", " --- |".repeat(row.len())));
                    }
                }
            }
            _ => {
                for row in &grid {
                    // The row's first text starts a line: its block markers
                    // are escaped.
                    let mut cells: Vec<String> = Vec::new();
                    for &c in row.iter().flatten() {
                        let at_start = cells.is_empty();
                        let t = self.line_at(&s.node(c).children, Mode::Cell, at_start);
                        if !t.is_empty() {
                            cells.push(t);
                        }
                    }
                    if cells.is_empty() {
                        continue;
                    }
                    let text = cells.join(" | ");
                    if !table.is_empty() {
                        table.push_str("\\\n");
                    }
                    table.push_str(&text);
                }
            }
        }
        let table = table.trim_end().to_string();
        if !table.is_empty() {
            if !out.is_empty() {
                out.push_str("\n\n");
            }
            out.push_str(&table);
        }
        out
    }
}

/// Prefixes the first line of `text` with `first` and the others with
/// `rest` (blank lines get the prefix without trailing spaces).
fn prefix_lines(text: &str, first: &str, rest: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let p = if i == 0 { first } else { rest };
        if line.is_empty() {
            out.push_str(p.trim_end());
        } else {
            out.push_str(p);
            out.push_str(line);
        }
    }
    out
}

/// Whitespace runs as one space, trimmed.
fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn longest_run(s: &str, c: char) -> usize {
    let (mut best, mut cur) = (0, 0);
    for ch in s.chars() {
        if ch == c {
            cur += 1;
            best = best.max(cur);
        } else {
            cur = 0;
        }
    }
    best
}

/// A URL as a Markdown link destination: spaces, parentheses and angle
/// brackets percent-encoded.
fn markdown_url(url: &str) -> String {
    let mut out = String::with_capacity(url.len());
    for c in url.chars() {
        match c {
            ' ' => out.push_str("%20"),
            '(' => out.push_str("%28"),
            ')' => out.push_str("%29"),
            '<' => out.push_str("%3C"),
            '>' => out.push_str("%3E"),
            '\\' => out.push_str("%5C"),
            c => out.push(c),
        }
    }
    out
}
