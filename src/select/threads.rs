//! Comment threads whose markup names nothing: repeated sibling records
//! that read as posts (a short line with a date, a time, "3 days ago", a
//! reply signature or a "Reply" link, and prose beside it), none of them
//! a teaser (a headline link) unless a signature signs it. On a page
//! predicted an article, where readers' comments are not the content,
//! `--comments exclude` treats such records as a comment region (see
//! [`super::keep`]).
//!
//! `blocks::comments` finds the threads whose markup says what they are
//! (a `comments` class, a "12 Comments" heading, "Anna says:" lines);
//! this finds the ones it does not, from their shape alone. It runs on the
//! blocks the splitter made, after the classifier: the page type and the
//! block probabilities do not see it.
//!
//! Its sizes (a header line of at most 15 words, 8 words of prose, two
//! thirds of the records from the first post on posts, half of the other
//! kept words before the thread) were set by reading threads and the
//! pages the first version misread, not searched on a grid; the
//! out-of-fold run with and without the rule, and the runs with class
//! names removed, are in `docs/experiments.md`, "Comments".

use crate::blocks::{ancestry, Blocks};
use crate::features::tree::{ElementTree, MIN_RECORDS};

/// Levels above a block searched for the record that holds it: a post's
/// text sits a few elements below its record (`li > div > div > p`).
const MAX_RECORD_DEPTH: usize = 6;

/// Longest block, in words, read as a post's header line (its date, its
/// "Reply" link).
const MARKER_MAX_WORDS: u32 = 15;

/// Longest line, in words, read as a relative time ("posted 3 days ago").
const RELATIVE_MAX_WORDS: u32 = 6;

/// Most words before "writes:" in a signature line ("by anna (123)").
const SIGNATURE_NAME_WORDS: usize = 8;

/// Least words of prose (blocks of 5+ words, at most half link text,
/// other than the marker lines) a post holds.
const POST_MIN_PROSE: u32 = 8;

/// Least link words of a teaser's headline when it opens a record (its
/// first block with words, at least half of it link text): a commenter's
/// linked name is one to three words.
const HEADLINE_MIN_WORDS: u32 = 4;

/// What one record holds, summed over its blocks.
#[derive(Debug, Clone, Copy, Default)]
struct Record {
    /// Blocks with words.
    blocks: u32,
    /// A short line with a date, time, relative time or reply marker.
    marker: bool,
    /// Prose words outside the marker lines.
    prose: u32,
    /// The first block with words is a headline link, or a heading
    /// (`h1`–`h6`) is no header line: an item's title, which a reader's
    /// post has not (a theme may set the poster's name and date in one),
    /// unless the post is signed (Slashdot titles every comment).
    headline: bool,
    /// A block with words was seen (the next one is not the first).
    started: bool,
    /// A header line signs a reply ("Anna says:", "by anna (123) writes:").
    signed: bool,
}

/// A group of sibling records (one parent, one signature).
#[derive(Debug, Clone, Copy, Default)]
struct Group {
    /// Members that read as posts.
    posts: u32,
    /// The first post, by element index (document order).
    first_post: u32,
    /// Members from the first post on: the posts' share is of these (a
    /// blog's article can sit in a sibling of its comments' shape).
    from_first_post: u32,
}

impl Group {
    /// At least three posts, and two thirds of the members from the first
    /// post on.
    fn is_thread(&self) -> bool {
        self.posts >= MIN_RECORDS && 3 * self.posts >= 2 * self.from_first_post
    }
}

impl Record {
    fn is_post(&self) -> bool {
        self.blocks >= 2
            && self.marker
            && self.prose >= POST_MIN_PROSE
            && (!self.headline || self.signed)
    }
}

/// One flag per block: true for the blocks of the records of an unnamed
/// thread, at any depth below them. A group of sibling records (one
/// parent, one tag and id/class signature, at least [`MIN_RECORDS`] with
/// words) is a thread when at least three of its records, and two thirds
/// of those from the first post on, are posts; its records from the first
/// post on, and those before it without prose, are the thread's.
pub fn unnamed_thread_blocks(blocks: &Blocks) -> Vec<bool> {
    let mut flags = vec![false; blocks.blocks.len()];
    // Most pages have no three header lines: spare them the signatures.
    let markers: Vec<bool> = blocks
        .blocks
        .iter()
        .map(|b| {
            // Menus and forms hold no post's header line.
            let chrome = blocks
                .elements
                .get(b.element as usize)
                .is_none_or(|e| e.ancestry & (ancestry::NAV | ancestry::FORM) != 0);
            !chrome && is_marker(&b.text, b.words, b.link_words)
        })
        .collect();
    if markers.iter().filter(|&&m| m).count() < MIN_RECORDS as usize {
        return flags;
    }
    let n = blocks.elements.len();
    // A record holds a header line, so the only parents whose children can
    // be records are those of the header lines' ancestors; only their
    // children need a signature (hashing every element's classes cost
    // more than the rest of the rule).
    let mut parents: foldhash::HashSet<u32> = foldhash::HashSet::default();
    for (b, _) in blocks.blocks.iter().zip(&markers).filter(|(_, &m)| m) {
        let mut cur = Some(b.element);
        for _ in 0..=MAX_RECORD_DEPTH {
            let Some(p) = cur
                .filter(|&e| (e as usize) < n)
                .and_then(|e| blocks.elements[e as usize].parent)
            else {
                break;
            };
            parents.insert(p);
            cur = Some(p);
        }
    }
    let signature: foldhash::HashMap<u32, u64> = blocks
        .elements
        .iter()
        .enumerate()
        .filter(|(_, info)| info.parent.is_some_and(|p| parents.contains(&p)))
        .map(|(e, info)| (e as u32, ElementTree::signature_of(blocks, info)))
        .collect();
    // Per element that may be a record: what its subtree holds. Keyed by
    // element index; few elements are candidates.
    let mut records: foldhash::HashMap<u32, Record> = foldhash::HashMap::default();
    // Hidden blocks are not read: a theme hides a reply form, with its
    // heading, in every post.
    let shown = |b: &crate::blocks::Block| {
        b.words > 0
            && blocks
                .elements
                .get(b.element as usize)
                .is_some_and(|e| e.ancestry & ancestry::HIDDEN == 0)
    };
    for (b, &marker) in blocks.blocks.iter().zip(&markers).filter(|(b, _)| shown(b)) {
        let prose = b.words >= 5 && 2 * b.link_words <= b.words && !marker;
        let headline = b.link_words >= HEADLINE_MIN_WORDS && 2 * b.link_words >= b.words && !marker;
        let heading = blocks
            .elements
            .get(b.owner as usize)
            .is_some_and(|o| matches!(o.tag.as_bytes(), [b'h', b'1'..=b'6']));
        let mut cur = Some(b.element);
        for _ in 0..=MAX_RECORD_DEPTH {
            let Some(e) = cur.filter(|&e| (e as usize) < n) else {
                break;
            };
            // A record inside a quotation (an embedded post: a tweet quoted
            // in a story) is the story's, not its readers'.
            let quoted = blocks.elements[e as usize].ancestry & ancestry::QUOTE != 0;
            if signature.contains_key(&e) && !quoted {
                let r = records.entry(e).or_default();
                r.blocks += 1;
                r.marker |= marker;
                r.signed |= marker && is_signature(&b.text);
                if prose {
                    r.prose += b.words;
                }
                if !r.started {
                    r.headline = headline;
                    r.started = true;
                }
                r.headline |= heading && !marker;
            }
            cur = blocks.elements[e as usize].parent;
        }
    }
    // Groups of sibling records of one signature: first their first posts,
    // then what follows each.
    let group_of = |e: u32| {
        let info = &blocks.elements[e as usize];
        (info.parent.unwrap_or(u32::MAX), signature[&e])
    };
    let mut groups: foldhash::HashMap<(u32, u64), Group> = foldhash::HashMap::default();
    for (&e, r) in &records {
        let g = groups.entry(group_of(e)).or_insert(Group {
            first_post: u32::MAX,
            ..Group::default()
        });
        if r.is_post() {
            g.posts += 1;
            g.first_post = g.first_post.min(e);
        }
    }
    for &e in records.keys() {
        if let Some(g) = groups.get_mut(&group_of(e)) {
            g.from_first_post += u32::from(e >= g.first_post);
        }
    }
    // A thread's records: those of a thread group from its first post on,
    // and the ones before it that hold no prose (a collapsed reply, the
    // thread's header). A record with prose before the first post is the
    // article's, its container of the posts' shape (a blog's bare `div`s
    // hold the post and its comments).
    let in_thread_record = |e: u32| -> bool {
        records.get(&e).is_some_and(|r| {
            groups
                .get(&group_of(e))
                .is_some_and(|g| g.is_thread() && (e >= g.first_post || r.prose < POST_MIN_PROSE))
        })
    };
    // Everything under a thread's record is the thread's, however deep: a
    // reply nested in replies sits many levels below its top-level post.
    // Elements are listed parents first, so one pass hands the mark down.
    let mut in_thread = vec![false; n];
    for e in 0..n {
        let parent = blocks.elements[e].parent.map(|p| p as usize);
        in_thread[e] = parent.is_some_and(|p| p < e && in_thread[p]) || in_thread_record(e as u32);
    }
    for (flag, b) in flags.iter_mut().zip(&blocks.blocks) {
        *flag = in_thread.get(b.element as usize).copied().unwrap_or(false);
    }
    flags
}

/// True when the thread `flags` marks ([`unnamed_thread_blocks`]) follows
/// the page's text: at least half of the kept words outside it (and
/// outside `other`, the regions the markup names) come before its first
/// block. Readers' comments come under the article; a front page's items
/// with their headlines between them are the page.
pub fn follows_the_text(
    blocks: &Blocks,
    kept: &[bool],
    flags: &[bool],
    other: impl Fn(usize) -> bool,
) -> bool {
    let Some(first) = flags.iter().position(|&f| f) else {
        return false;
    };
    let (mut before, mut outside) = (0u64, 0u64);
    for (i, b) in blocks.blocks.iter().enumerate() {
        if kept.get(i) == Some(&true) && !flags[i] && !other(i) {
            outside += u64::from(b.words);
            if i < first {
                before += u64::from(b.words);
            }
        }
    }
    2 * before >= outside
}

/// Words that, as a whole short link, answer a post ("Reply").
const REPLY_WORDS: &[&str] = &[
    "reply",
    "antworten",
    "répondre",
    "responder",
    "rispondi",
    "reageren",
    "svara",
    "svar",
    "vastaa",
    "odpowiedz",
    "ответить",
    "yanıtla",
    "返信",
    "回复",
];

/// True when a header line signs a reply: the blocks stage's signatures
/// ("Anna says:", [`crate::blocks::comments::is_reply_signature`]) or a
/// Slashdot-style "by anna (123) writes:", which may go on with the post's
/// date. The second is read here only: in the blocks stage it would mark
/// forum threads, which the page type reads (`docs/experiments.md`,
/// "Comments").
fn is_signature(text: &str) -> bool {
    if crate::blocks::comments::is_reply_signature(text) {
        return true;
    }
    let Some(at) = text.find(" writes:") else {
        return false;
    };
    (1..=SIGNATURE_NAME_WORDS).contains(&text[..at].split_whitespace().count())
}

/// True when a short block reads as a post's header line: a whole date
/// (day, month and year: [`crate::metadata::find_dates`]; a year alone
/// heads a listicle's items), a clock time (`5:14`), a relative time ("3
/// days ago", "vor 2 Stunden", "il y a"), a reply signature
/// ([`is_signature`]) or a whole "Reply" link.
fn is_marker(text: &str, words: u32, link_words: u32) -> bool {
    if words == 0 || words > MARKER_MAX_WORDS {
        return false;
    }
    if link_words == words && words <= 2 {
        let t = text.trim().trim_start_matches('↳').trim();
        let lower = (!t.is_ascii()).then(|| t.to_lowercase());
        if REPLY_WORDS
            .iter()
            .any(|w| t.eq_ignore_ascii_case(w) || lower.as_deref() == Some(*w))
        {
            return true;
        }
    }
    if is_signature(text) {
        return true;
    }
    let b = text.as_bytes();
    // Dates and times hold digits: most short blocks (menus, buttons)
    // hold none, and one scan turns them away.
    if let Some(first) = b.iter().position(u8::is_ascii_digit) {
        let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
        // A whole date holds a four-digit year: look for one before parsing.
        let year = (first..b.len().saturating_sub(3)).any(|i| (i..i + 4).all(digit));
        if year && !crate::metadata::find_dates(text, false).is_empty() {
            return true;
        }
        // A clock time: d:dd or dd:dd, not a ratio's 10:1 nor a longer count.
        if (first + 1..b.len())
            .any(|i| b[i] == b':' && digit(i - 1) && digit(i + 1) && digit(i + 2) && !digit(i + 3))
        {
            return true;
        }
    }
    // Relative times ("3 days ago", "vor 2 Stunden", "il y a 3 jours")
    // stand alone on short lines.
    if words > RELATIVE_MAX_WORDS {
        return false;
    }
    let starts = |p: &str| crate::text::starts_with_ignore_ascii_case(b, p.as_bytes());
    text.match_indices(" ago")
        .any(|(i, _)| !b.get(i + 4).is_some_and(u8::is_ascii_alphanumeric))
        || starts("vor ")
        || starts("hace ")
        || text.contains("il y a ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse, ParseLimits};

    fn page(html: &str) -> Blocks {
        crate::blocks::split(&parse(html.as_bytes(), None, ParseLimits::default()).unwrap())
    }

    fn flagged(p: &Blocks) -> Vec<&str> {
        let f = unnamed_thread_blocks(p);
        p.blocks
            .iter()
            .zip(f)
            .filter(|(_, f)| *f)
            .map(|(b, _)| b.text.as_str())
            .collect()
    }

    const POST: &str = "<h1>How we rebuilt the old barn</h1>\
        <p>The barn had stood for a hundred years before the storm took its roof, \
        and we spent the whole summer putting it back together board by board.</p>\
        <p>Here is what we learned about beams, nails and patience along the way.</p>";

    fn comment(name: &str, when: &str, text: &str) -> String {
        format!(
            "<li><div><a href=http://{name}.example>{name}</a> <span>{when}</span></div>\
             <p>{text}</p><a href=#r>Reply</a></li>"
        )
    }

    #[test]
    fn a_thread_without_class_names_is_found_by_its_posts() {
        let thread: String = [
            comment(
                "anna",
                "March 3, 2012 at 5:14 pm",
                "What a lovely project, the new beams look great and sturdy.",
            ),
            comment(
                "bob",
                "March 4, 2012 at 9:02 am",
                "We had the same storm here and lost half of the shed roof too.",
            ),
            comment(
                "carla",
                "2 days ago",
                "How long did the whole thing take you from start to finish then?",
            ),
        ]
        .concat();
        let p = page(&format!(
            "<body><article>{POST}</article><ol>{thread}</ol></body>"
        ));
        let f = flagged(&p);
        assert!(f.iter().any(|t| t.starts_with("What a lovely")), "{f:?}");
        assert!(f.iter().any(|t| t.starts_with("How long")), "{f:?}");
        assert!(f.contains(&"Reply"), "{f:?}");
        assert!(
            !f.iter().any(|t| t.contains("barn")),
            "the post is not in it: {f:?}"
        );
    }

    /// A Slashdot-style post: a linked title in a heading, a "writes:"
    /// line with the date, the text, and `replies` nested under it.
    fn titled_post(name: &str, text: &str, replies: &str) -> String {
        format!(
            "<li><div><div><h4><a href=/c/{name}>Re: the old barn</a> (Score:2)</h4></div>\
             <div><span>by <a href=/~{name}>{name}</a> ( 1311177 )</span> writes: on Friday \
             December 19, 2025 @08:08PM</div></div><div><div>{text}</div></div>\
             <ul>{replies}</ul></li>"
        )
    }

    #[test]
    fn signed_posts_with_titles_and_deep_replies_are_a_thread() {
        // Replies nested in replies, far deeper below the top-level post
        // than a post's own lines sit.
        let mut deep = String::new();
        for depth in 0..6 {
            deep = titled_post(
                &format!("r{depth}"),
                &format!("A reply at depth {depth} that says the storm hit them too last year."),
                &deep,
            );
        }
        let thread: String = (0..4)
            .map(|i| {
                titled_post(
                    &format!("u{i}"),
                    "The new beams look sturdy, and the roof should hold for another century.",
                    if i == 0 { &deep } else { "" },
                )
            })
            .collect();
        let p = page(&format!(
            "<body><article>{POST}</article><ul>{thread}</ul></body>"
        ));
        let f = flagged(&p);
        assert!(f.iter().any(|t| t.starts_with("The new beams")), "{f:?}");
        assert!(
            f.iter().any(|t| t.starts_with("A reply at depth 0")),
            "the deepest reply is the thread's too: {f:?}"
        );
        assert!(
            !f.iter().any(|t| t.contains("barn had stood")),
            "the post is not in it: {f:?}"
        );
        // The same records unsigned are titled items, not posts.
        let items = thread.replace(" writes:", "");
        let p = page(&format!(
            "<body><article>{POST}</article><ul>{items}</ul></body>"
        ));
        assert!(flagged(&p).is_empty());
    }

    #[test]
    fn a_blog_of_bare_divs_keeps_its_post_out_of_the_thread() {
        // Movable Type's markup without its classes: the post, a date
        // line, a "Comments" line and each comment are sibling `div`s, and
        // a comment signs off below its text.
        let comments: String = ["John", "Groggy", "Gabriel", "Karl"]
            .iter()
            .map(|name| {
                format!(
                    "<div><p>The beams look sturdy and the roof should hold for another \
                     hundred years, well done to all of you.</p>\
                     <span>Posted by: <a href=mailto:{name}@example.com>{name}</a> at \
                     December 18, 2025 05:48 PM</span></div>"
                )
            })
            .collect();
        let html = format!(
            "<body><div><div>December 16, 2025</div><div>{POST}<span>Posted by David at \
             December 16, 2025 11:15 AM</span></div><div>Comments</div>{comments}</div></body>"
        );
        let p = page(&html);
        let f = flagged(&p);
        assert_eq!(
            f.iter().filter(|t| t.starts_with("The beams")).count(),
            4,
            "{f:?}"
        );
        assert!(
            !f.iter()
                .any(|t| t.contains("barn") || t.contains("Posted by David")),
            "the post and its line are not the thread: {f:?}"
        );
    }

    #[test]
    fn teasers_paragraphs_and_dateless_records_are_no_thread() {
        // A listing's teasers: a headline link opens each record, or a
        // heading titles it. (A headline and its date on one line read as
        // a post's header: under an article, "related posts" are chrome
        // too.)
        let teasers: String = (1..=4)
            .map(|i| {
                format!(
                    "<li><a href=/story-{i}>The headline of another story number {i}</a>\
                     <p>A summary line of the story that runs to a dozen words or so.</p>\
                     <span>May {i}, 2019</span></li>"
                )
            })
            .collect();
        assert!(flagged(&page(&format!("<body>{POST}<ul>{teasers}</ul></body>"))).is_empty());
        let titled: String = (1..=4)
            .map(|i| {
                format!(
                    "<li><h3>Story {i}</h3><span>May {i}, 2019</span><p>A summary line of the \
                     story that runs to a dozen words or so.</p></li>"
                )
            })
            .collect();
        assert!(flagged(&page(&format!("<body>{POST}<ul>{titled}</ul></body>"))).is_empty());
        // An article's paragraphs, one of them with a year: each is one
        // block, never both a header line and prose.
        let paras = "<div><p>In 2012 the barn lost its roof.</p><p>We rebuilt it over the \
                     summer with oak beams from the old mill down the road.</p><p>It took \
                     three months and more nails than anyone could count.</p></div>";
        assert!(flagged(&page(&format!("<body>{POST}{paras}</body>"))).is_empty());
        // A listicle's items: a title heading over a dated line and prose.
        let items: String = (1..=4)
            .map(|i| {
                format!(
                    "<div><h3>{i}. The 2026 model number {i}</h3><p>Released: June {i}, 2025</p>\
                     <p>Fun to drive and a pleasant daily car that holds its value well.</p></div>"
                )
            })
            .collect();
        assert!(flagged(&page(&format!("<body>{POST}<div>{items}</div></body>"))).is_empty());
        // Embedded posts a story quotes.
        let tweets: String = (1..=4)
            .map(|i| {
                format!(
                    "<blockquote><p>A power failure is affecting parts of the airport terminal \
                     number {i} today.</p>&mdash; Someone (@some{i}) <a href=/t{i}>December 22, \
                     2014</a></blockquote>"
                )
            })
            .collect();
        assert!(flagged(&page(&format!("<body>{POST}<div>{tweets}</div></body>"))).is_empty());
        // Feature cards without dates or reply links.
        let cards: String = (1..=4)
            .map(|i| format!("<div><b>Plan {i}</b><p>Everything in the plan before it and a few more tools for larger teams.</p></div>"))
            .collect();
        assert!(flagged(&page(&format!("<body>{POST}<div>{cards}</div></body>"))).is_empty());
    }

    #[test]
    fn large_deep_and_odd_pages() {
        // Twenty thousand posts: every one found, in one pass.
        let many: String = (0..20_000)
            .map(|i| {
                comment(
                    &format!("u{i}"),
                    "May 3, 2012 at 4:15 pm",
                    "Another reply in a very long thread, the same as all the others here.",
                )
            })
            .collect();
        let p = page(&format!(
            "<body><article>{POST}</article><ol>{many}</ol></body>"
        ));
        let f = unnamed_thread_blocks(&p);
        assert_eq!(f.iter().filter(|&&x| x).count(), 3 * 20_000);
        // After 3,000 nested empty elements, posts whose lines sit deeper
        // below their record than the search reaches: nothing found,
        // nothing out of range.
        let deep = format!("{}{}", "<div>".repeat(3_000), "</div>".repeat(3_000));
        let nested: String = (0..4)
            .map(|_| format!("<li>{}<span>May 3, 2012</span><p>Words of a reply that sits far too deep to be a post's.</p>{}</li>", "<div>".repeat(8), "</div>".repeat(8)))
            .collect();
        let p = page(&format!("<body>{POST}{deep}<ol>{nested}</ol></body>"));
        assert!(unnamed_thread_blocks(&p).iter().all(|&x| !x));
        // Junk between tags (digits, colons, an emoji; the parse turns
        // bare binary away) and an empty page.
        let junk = "ÿ§ 12:34 2012 : ago 9999 \u{1F600} ".repeat(300);
        let p = page(&format!(
            "<body><ol><li>{junk}</li><li>{junk}</li><li>{junk}</li></ol></body>"
        ));
        assert!(unnamed_thread_blocks(&p).iter().all(|&x| !x));
        assert!(unnamed_thread_blocks(&page("<html></html>")).is_empty());
    }

    #[test]
    fn header_lines_are_dates_times_and_reply_marks() {
        for t in [
            "March 3, 2012 at 5:14 pm",
            "Anna says:",
            "by anna ( 1311177 ) writes:",
            "3 days ago",
            "Reply",
            "vor 2 Stunden",
            "12:05",
        ] {
            let words = t.split_whitespace().count() as u32;
            let link = if t == "Reply" { words } else { 0 };
            assert!(is_marker(t, words, link), "{t}");
        }
        for t in [
            "Reply to this story of ours",
            "An anonymous reader of this site who asked us for help writes:",
            "Chapter 2",
            "A price of 2050 dollars",
            "20122 items",
            "ratio 10:1",
        ] {
            let words = t.split_whitespace().count() as u32;
            assert!(!is_marker(t, words, 0), "{t}");
        }
        assert!(
            !is_marker(&"word ".repeat(16), 16, 0),
            "too long for a header line"
        );
    }
}
