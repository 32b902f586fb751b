//! Record regions the markup does not name: runs of sibling records (three
//! or more elements of one parent with the same tag and id/class tokens),
//! most of them either
//! - a post: some prose, and a short line with a date, a time or a reply
//!   marker ("Reply", "Quote", "vor 3 Stunden", "12:45", "2019") — a
//!   thread under a blog post whose markup never says "comment", or a
//!   forum's; or
//! - a teaser: a headline that is one link, with at most a short summary
//!   line — "Most popular", related stories.
//!
//! Which of them is the page's content is the selection stage's call
//! ([`crate::select::comments`]), by the page's type and by where the
//! records lie against the article's text.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use super::Blocks;

/// Levels above a block at which its records are looked for: posts sit a
/// few levels above their paragraphs.
const MAX_LEVELS: usize = 8;

/// Least records of a region, and least share of them that are posts (or
/// teasers).
const MIN_POSTS: usize = 3;
const MIN_POST_SHARE: f64 = 0.6;

/// Least words of a prose block in a post, and most link share.
const PROSE_WORDS: u32 = 8;
const PROSE_MAX_LINK_SHARE: f64 = 0.3;

/// Most words of a post's header or footer line (name, date, reply).
const MARKER_MAX_WORDS: u32 = 10;

/// A teaser's headline: this many words, at least this share of them link
/// text; the teaser holds one headline and at most
/// [`TEASER_MAX_WORDS`] words.
const HEADLINE_WORDS: (u32, u32) = (3, 20);
const HEADLINE_MIN_LINK_SHARE: f64 = 0.8;
const TEASER_MAX_WORDS: u32 = 60;

/// What a candidate record holds.
#[derive(Debug, Default, Clone, Copy)]
struct Record {
    prose: bool,
    marker: bool,
    headlines: u32,
    words: u32,
    link_words: u32,
}

impl Record {
    /// Prose and a header or footer line.
    fn is_post(&self) -> bool {
        self.prose && self.marker
    }

    /// One headline link and little else.
    fn is_teaser(&self) -> bool {
        self.headlines == 1 && self.words <= TEASER_MAX_WORDS
    }
}

/// Short words that mark a post's header or footer, in the corpora's
/// languages (lower case).
const REPLY_WORDS: &[&str] = &[
    "reply",
    "replies",
    "quote",
    "posted",
    "says",
    "said",
    "wrote",
    "ago",
    "permalink",
    "antworten",
    "antwort",
    "zitieren",
    "schrieb",
    "vor",
    "répondre",
    "répondu",
    "responder",
    "respuesta",
    "hace",
    "rispondi",
    "risposta",
    "fa",
    "reageer",
    "odpowiedz",
    "ответить",
    "назад",
];

/// Per block, whether it lies in a thread's or a teaser list's record
/// (empty when the page has none).
pub fn record_blocks(blocks: &Blocks) -> Vec<bool> {
    let n = blocks.elements.len();
    let signature: Vec<u64> = blocks
        .elements
        .iter()
        .map(|e| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            e.tag.hash(&mut h);
            blocks.tokens_of(e).for_each(|t| t.hash(&mut h));
            h.finish()
        })
        .collect();
    // What each candidate record (an ancestor of a block) holds.
    let mut records: HashMap<u32, Record> = HashMap::new();
    for b in blocks.blocks.iter().filter(|b| b.words > 0) {
        let linked = f64::from(b.link_words) / f64::from(b.words);
        let prose = b.words >= PROSE_WORDS && linked <= PROSE_MAX_LINK_SHARE;
        let marker = b.words <= MARKER_MAX_WORDS && is_marker(&b.text);
        let headline = (HEADLINE_WORDS.0..=HEADLINE_WORDS.1).contains(&b.words)
            && linked >= HEADLINE_MIN_LINK_SHARE;
        let mut cur = Some(b.element);
        for _ in 0..MAX_LEVELS {
            let Some(e) = cur.filter(|&e| (e as usize) < n) else {
                break;
            };
            let r = records.entry(e).or_default();
            r.prose |= prose;
            r.marker |= marker;
            r.headlines += u32::from(headline);
            r.words += b.words;
            r.link_words += b.link_words;
            cur = blocks.elements[e as usize].parent;
        }
    }
    // Records grouped by parent and signature.
    let mut groups: HashMap<(u32, u64), Vec<u32>> = HashMap::new();
    for &e in records.keys() {
        if let Some(p) = blocks.elements[e as usize].parent {
            groups
                .entry((p, signature[e as usize]))
                .or_default()
                .push(e);
        }
    }
    let mut in_thread = vec![false; n];
    let mut any = false;
    for members in groups.values() {
        let count = |test: fn(&Record) -> bool| {
            members
                .iter()
                .filter(|e| records.get(e).is_some_and(test))
                .count()
        };
        let enough = |k: usize| k >= MIN_POSTS && k as f64 >= MIN_POST_SHARE * members.len() as f64;
        if enough(count(Record::is_post)) || enough(count(Record::is_teaser)) {
            for &e in members {
                in_thread[e as usize] = true;
            }
            any = true;
        }
    }
    if !any {
        return Vec::new();
    }
    blocks
        .blocks
        .iter()
        .map(|b| {
            let mut cur = Some(b.element);
            for _ in 0..MAX_LEVELS {
                let Some(e) = cur.filter(|&e| (e as usize) < n) else {
                    return false;
                };
                if in_thread[e as usize] {
                    return true;
                }
                cur = blocks.elements[e as usize].parent;
            }
            false
        })
        .collect()
}

/// True when a short line looks like a post's header or footer: a reply
/// word, a time (`12:45`), a numeric date (`19.11.2019`, `11/19/19`) or a
/// year.
fn is_marker(text: &str) -> bool {
    if crate::text::word_tokens(text).any(|w| REPLY_WORDS.contains(&w.as_str())) {
        return true;
    }
    let bytes = text.as_bytes();
    let digits_at = |i: usize| bytes[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() || (i > 0 && bytes[i - 1].is_ascii_digit()) {
            i += 1;
            continue;
        }
        let run = digits_at(i);
        let next = bytes.get(i + run).copied();
        let after = i + run + 1;
        // A year of this century or the last.
        if run == 4
            && (bytes[i] == b'1' && bytes[i + 1] == b'9'
                || bytes[i] == b'2' && bytes[i + 1] == b'0')
        {
            return true;
        }
        // 12:45.
        if (1..=2).contains(&run)
            && next == Some(b':')
            && after < bytes.len()
            && digits_at(after) == 2
        {
            return true;
        }
        // 19.11.2019, 11/19/19, 2019-11-19: three numbers, one separator.
        if let Some(sep @ (b'.' | b'/' | b'-')) = next {
            let second = if after < bytes.len() {
                digits_at(after)
            } else {
                0
            };
            let third_at = after + second + 1;
            if (1..=4).contains(&run)
                && (1..=2).contains(&second)
                && bytes.get(after + second) == Some(&sep)
                && third_at < bytes.len()
                && (2..=4).contains(&digits_at(third_at))
            {
                return true;
            }
        }
        i += run;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(html: &str) -> Blocks {
        let doc = crate::parse::parse(html.as_bytes(), None, Default::default()).unwrap();
        crate::blocks::split(&doc)
    }

    fn marked<'a>(b: &'a Blocks) -> Vec<&'a str> {
        b.blocks
            .iter()
            .zip(record_blocks(b))
            .filter(|(_, t)| *t)
            .map(|(b, _)| b.text.as_str())
            .collect()
    }

    #[test]
    fn a_thread_without_class_names_is_found() {
        let post = |i: usize| {
            format!(
                "<div><span>Anna {i}</span> <span>12.03.2021 1{i}:05</span>\
                 <p>I had the same trouble with the valve number {i} and replaced it, which helped a lot.</p></div>"
            )
        };
        let html = format!(
            "<html><body><div><h1>Fixing valves</h1><p>Valves fail in the cold, and this is how to fix one at home.</p></div>\
             <section>{}</section></body></html>",
            (0..4).map(post).collect::<String>()
        );
        let b = blocks(&html);
        let m = marked(&b);
        assert!(m.iter().any(|t| t.contains("valve number 2")), "{m:?}");
        assert!(!m.iter().any(|t| t.contains("how to fix one")), "{m:?}");
    }

    #[test]
    fn a_teaser_list_after_the_article_is_found() {
        let teaser = |i: usize| {
            format!(
                "<li><a href=/s{i}>Storm number {i} closes the harbour for a week</a><p>Ferries wait.</p></li>"
            )
        };
        let html = format!(
            "<html><body><article><p>The river rose again last night and the ferry stayed on the far bank for hours.</p></article>\
             <h2>Most popular</h2><ul>{}</ul></body></html>",
            (0..5).map(teaser).collect::<String>()
        );
        let b = blocks(&html);
        let m = marked(&b);
        assert!(m.iter().any(|t| t.contains("Storm number 3")), "{m:?}");
        assert!(!m.iter().any(|t| t.contains("river rose")), "{m:?}");
    }

    #[test]
    fn paragraphs_and_menus_are_not_threads() {
        let article =
            "<p>The ferry stayed on the far bank while the river rose through the night.</p>"
                .repeat(6);
        let menu = "<ul><li><a href=/a>Home</a></li><li><a href=/b>News</a></li><li><a href=/c>Sport</a></li></ul>";
        let b = blocks(&format!(
            "<html><body>{menu}<article>{article}</article></body></html>"
        ));
        assert!(record_blocks(&b).is_empty());
    }

    #[test]
    fn markers_are_times_dates_years_and_reply_words() {
        for yes in [
            "12:45",
            "19.11.2019",
            "11/19/19",
            "2019-11-19",
            "March 2019",
            "Reply",
            "vor 3 Stunden",
            "il y a 2 h: répondre",
        ] {
            assert!(is_marker(yes), "{yes}");
        }
        for no in ["Anna", "Read more", "42 comments", "123456", "3.5 stars"] {
            assert!(!is_marker(no), "{no}");
        }
    }
}
