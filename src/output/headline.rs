//! Where the page's title goes in Markdown and HTML output
//! ([`Markup::title`](super::Markup::title)): on top, once.
//!
//! Three cases:
//! - the kept text starts with the title's words: nothing is added;
//! - the kept content holds the title as a heading after only a short run
//!   of text (a kicker, a date line, a breadcrumb: under
//!   [`HEADLINE_MAX_WORDS_BEFORE`] words): that heading is the page's
//!   headline, and it moves to the top;
//! - else the title is written on top and the content follows unchanged.
//!
//! Words are compared as the evaluation counts them
//! ([`crate::text::word_tokens`]: lower-cased runs of letters and digits),
//! so punctuation, case and markup never make the title appear twice.

use crate::extract::structure::{Kind, Structure};
use crate::text::{word_tokens, word_tokens_borrowed};

/// A heading equal to the title counts as the page's headline when fewer
/// than this many words of kept text come before it. Measured on the
/// Markdown of WCXB dev, fundus-news and the readability pages
/// (`docs/experiments.md`, "Headline in Markdown and HTML"): of the 64
/// pages whose Markdown held the title as a heading below the one written
/// on top, 39 had under 40 words before it (kickers, date lines,
/// "Loading…", a product's breadcrumb, a news lede); beyond that, most are
/// sections of the text that happen to share the page's title, and the
/// title on top is then the page's own.
pub const HEADLINE_MAX_WORDS_BEFORE: usize = 40;

/// What structured output does with the page's title.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Headline<'a> {
    /// The kept text opens with the title: nothing to add.
    InText,
    /// Write the title on top; the content follows unchanged.
    OnTop(&'a str),
    /// Write the title on top and leave out the heading node (an index in
    /// the [`Structure`]) that held it further down.
    Moved(&'a str, u32),
}

impl<'a> Headline<'a> {
    /// The title to write on top, if any.
    pub fn on_top(self) -> Option<&'a str> {
        match self {
            Headline::InText => None,
            Headline::OnTop(t) | Headline::Moved(t, _) => Some(t),
        }
    }
}

/// Where `title` goes for an extraction whose kept text is `text` and kept
/// structure is `structure`; `None` when the title has no words.
pub fn place<'a>(title: &'a str, text: &str, structure: &Structure) -> Option<Headline<'a>> {
    let words: Vec<String> = word_tokens(title).collect();
    if words.is_empty() {
        return None;
    }
    if word_tokens(text)
        .take(words.len())
        .eq(words.iter().cloned())
    {
        return Some(Headline::InText);
    }
    Some(match leading_heading(structure, &words) {
        Some(id) => Headline::Moved(title, id),
        None => Headline::OnTop(title),
    })
}

/// The first heading whose words are `words`, when fewer than
/// [`HEADLINE_MAX_WORDS_BEFORE`] words of text come before it.
fn leading_heading(structure: &Structure, words: &[String]) -> Option<u32> {
    let mut before = 0usize;
    for id in structure.reachable() {
        match &structure.node(id).kind {
            Kind::Heading(_) => {
                let heading = structure.raw_text(id, " ");
                if word_tokens(&heading).eq(words.iter().cloned()) {
                    return Some(id);
                }
            }
            Kind::Text(t) => {
                before += word_tokens_borrowed(t).count();
                if before >= HEADLINE_MAX_WORDS_BEFORE {
                    return None;
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::structure::Node;

    /// A structure of top-level blocks: `(heading level or 0 for a
    /// paragraph, text)`.
    fn blocks(items: &[(u8, &str)]) -> Structure {
        let mut nodes = vec![Node {
            kind: Kind::Root,
            children: Vec::new(),
        }];
        for (level, text) in items {
            let block = nodes.len() as u32;
            let kind = if *level == 0 {
                Kind::Paragraph
            } else {
                Kind::Heading(*level)
            };
            nodes.push(Node {
                kind,
                children: vec![block + 1],
            });
            nodes.push(Node {
                kind: Kind::Text(text.to_string()),
                children: Vec::new(),
            });
            nodes[0].children.push(block);
        }
        Structure { nodes, base: None }
    }

    #[test]
    fn text_opening_with_the_title_gets_nothing() {
        let s = blocks(&[
            (1, "Gulls nest on roofs"),
            (0, "Herring gulls have learned."),
        ]);
        let got = place(
            "Gulls Nest on Roofs!",
            "Gulls nest on roofs\nHerring gulls",
            &s,
        );
        assert_eq!(got, Some(Headline::InText));
    }

    #[test]
    fn a_heading_after_a_date_line_moves_to_the_top() {
        let s = blocks(&[
            (2, "Friday, December 23, 2016"),
            (3, "Python 3.6.0 is now available!"),
            (0, "Python 3.6.0 is the newest major release."),
        ]);
        let text = "Friday, December 23, 2016\nPython 3.6.0 is now available!\nPython 3.6.0 is";
        let got = place("Python 3.6.0 is now available!", text, &s);
        assert_eq!(
            got,
            Some(Headline::Moved("Python 3.6.0 is now available!", 3))
        );
    }

    #[test]
    fn a_section_sharing_the_title_far_down_stays_and_the_title_goes_on_top() {
        let long = "word ".repeat(HEADLINE_MAX_WORDS_BEFORE);
        let s = blocks(&[(0, &long), (2, "What is social commerce?")]);
        let got = place("What is social commerce?", &long, &s);
        assert_eq!(got, Some(Headline::OnTop("What is social commerce?")));
    }

    #[test]
    fn a_paragraph_equal_to_the_title_is_not_a_headline() {
        let s = blocks(&[(0, "Photo: Reuters"), (0, "Dax falls")]);
        let got = place("Dax falls", "Photo: Reuters\nDax falls", &s);
        assert_eq!(got, Some(Headline::OnTop("Dax falls")));
    }

    #[test]
    fn many_headings_without_words_are_walked_once() {
        // A one-word line, 20,000 headings of punctuation, then the
        // title: one word comes before it, so it moves; each heading's
        // text is read once.
        let mut items: Vec<(u8, &str)> = vec![(0, "Menu")];
        items.extend(vec![(2, "* * *"); 20_000]);
        items.push((1, "Gulls nest on roofs"));
        items.push((0, "Herring gulls have learned."));
        let s = blocks(&items);
        let got = place(
            "Gulls nest on roofs",
            "Menu\n* * *\nGulls nest on roofs",
            &s,
        );
        // Node ids: the root, then a block and its text per item.
        let title = 1 + 2 * 20_001;
        assert_eq!(got, Some(Headline::Moved("Gulls nest on roofs", title)));
        assert_eq!(s.without(title).nodes[0].children.len(), 20_002);
    }

    #[test]
    fn a_title_without_words_is_not_written() {
        let s = blocks(&[(0, "text")]);
        assert_eq!(place(" | ", "text", &s), None);
    }
}
