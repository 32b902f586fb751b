//! Dates a reader sees on the page ([`visible_dates`]): the body's text
//! cut into lines at block elements, every date in each line (month names
//! and numeric orders, see `date_text.rs`; relative dates against a
//! reference), and each `<time datetime>`, with what tells a publication
//! date from any other: a cue word before it, its place relative to the
//! headline and the article's paragraphs, a date-ish class around it, or
//! page chrome (navigation, footers, comments) around it.

use std::sync::LazyLock;

use aho_corasick::AhoCorasick;
use html5ever::{local_name, ns, LocalName};

use super::date_text::{find_dates, month_year};
use super::dates::normalize_date;
use super::relative_dates::{resolve_relative, Reference};
use crate::parse::{Dom, NodeData, NodeId, DOCUMENT};
use crate::text::{contains_ignore_ascii_case, starts_with_ignore_ascii_case};

/// Where a visible date came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VisibleKind {
    /// A `<time datetime>` (the local day as the attribute writes it, or
    /// the element's own text when the two differ by a day).
    Time,
    /// A date written in the text.
    Text,
    /// A relative date ("3 hours ago") resolved against the reference.
    Relative,
}

/// What the words before a date say it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cue {
    /// No cue.
    None,
    /// "Published", "Posted", "Veröffentlicht", "asked", "Start date" ...
    Published,
    /// "Updated", "Modified", "Aktualisiert" ...
    Updated,
    /// A date of something else than the page: "Release date", "Joined",
    /// "Member since", "Expires", "Born" ...
    Other,
}

/// One visible date and the facts the choice weighs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VisibleDate {
    /// ISO `YYYY-MM-DD`.
    pub iso: String,
    /// Its source.
    pub kind: VisibleKind,
    /// The cue before it.
    pub cue: Cue,
    /// Index of its line in the page's text lines.
    pub line: usize,
    /// Characters from the end of the headline's line to its line (negative
    /// above the headline); `None` when the page has no `<h1>`.
    pub from_headline: Option<i64>,
    /// Inside an element whose class or id names a date, a byline or a
    /// post's meta line.
    pub date_class: bool,
    /// Inside navigation, a footer, a sidebar or comments.
    pub chrome: bool,
    /// Words on its line besides the date (bylines are short).
    pub line_words: usize,
    /// Between the headline (or the page's start) and the first long
    /// paragraph.
    pub header_zone: bool,
    /// Within three lines after the last long paragraph.
    pub after_text: bool,
    /// For a date written in digits alone whose day and month could trade
    /// places ("09.10.2024", "03/10/2023"), the other reading: the page's
    /// declared date or its URL may say which one the page meant
    /// (`settle_order`).
    pub swapped: Option<String>,
}

/// Reads each ambiguous numeric date ([`VisibleDate::swapped`]) the other
/// way when that reading is one of `known` (the page's declared
/// publication dates and its URL's date) and its own reading is none of
/// them: "09.10.2024" on a page declaring 2024-09-10 is September 10th,
/// whatever the page's language says of its order.
pub fn settle_order(visible: &mut [VisibleDate], known: &[&str]) {
    for v in visible.iter_mut() {
        if known.contains(&v.iso.as_str()) {
            continue;
        }
        if let Some(other) = v.swapped.take() {
            if known.contains(&other.as_str()) {
                v.swapped = Some(std::mem::replace(&mut v.iso, other));
            } else {
                v.swapped = Some(other);
            }
        }
    }
}

/// Cue words, lower-cased, before a publication date.
const PUBLISHED: &[&str] = &[
    "published",
    "posted",
    "publish date",
    "date:",
    "asked",
    "start date",
    "created",
    "written",
    "veröffentlicht",
    "erschienen",
    "erstellt",
    "publié",
    "publiée",
    "mis en ligne",
    "publicado",
    "publicada",
    "pubblicato",
    "pubblicata",
    "gepubliceerd",
    "geplaatst",
    "opublikowano",
    "opublikowany",
    "опубликовано",
    "дата публикации",
    "发布",
    "發佈",
    "發布",
    "公開",
    "投稿",
    "게시",
    "작성",
    "입력",
    "نشر",
    "تاريخ النشر",
];
/// Cue words, lower-cased, before a date of change.
const UPDATED: &[&str] = &[
    "updated",
    "modified",
    "last edited",
    "revised",
    "aktualisiert",
    "geändert",
    "mis à jour",
    "mise à jour",
    "actualización",
    "actualizado",
    "actualizada",
    "aggiornato",
    "aggiornata",
    "atualizado",
    "bijgewerkt",
    "zaktualizowano",
    "обновлено",
    "更新",
    "수정",
    "تحديث",
];

/// Cue words, lower-cased, before a date that is not the page's: a
/// product's release, a member's joining, an offer's end, a birth, a
/// thread's last reply.
const OTHER: &[&str] = &[
    "release date",
    "released",
    "joined",
    "member since",
    "available since",
    "in stock since",
    "registered",
    "expires",
    "valid until",
    "deadline",
    "born",
    "last post",
    "last reply",
    "latest reply",
    "last activity",
    "last active",
    "erscheinungsdatum",
    "letzter beitrag",
    "letzte antwort",
    "dernier message",
    "dernière réponse",
    "último mensaje",
    "última respuesta",
    "ultimo messaggio",
    "ultima risposta",
    "última mensagem",
    "última resposta",
    "laatste bericht",
    "laatste reactie",
    "ostatni post",
    "ostatnia odpowiedź",
    "последнее сообщение",
    "последний ответ",
    "最后回复",
    "最終投稿",
    "mitglied seit",
    "registriert seit",
    "erhältlich seit",
    "im sortiment seit",
    "disponible depuis",
    "disponible desde",
    "disponibile dal",
    "gültig bis",
    "geboren",
    "date de sortie",
    "inscrit le",
    "membre depuis",
    "fecha de lanzamiento",
    "miembro desde",
    "data de lançamento",
    "membro desde",
    "data di uscita",
    "iscritto",
    "lid sinds",
    "data premiery",
    "发售日",
    "発売日",
    "출시일",
];

/// Class or id words of an element that holds dates and bylines.
const DATE_CLASS: &[&str] = &[
    "date",
    "time",
    "byline",
    "posted",
    "publish",
    "meta",
    "dateline",
    "timestamp",
];
/// Class or id words of page chrome.
const CHROME_CLASS: &[&str] = &[
    "comment",
    "related",
    "sidebar",
    "footer",
    "widget",
    "reply",
    "recommend",
    "teaser",
];

/// A `<time datetime>` stamp.
#[derive(Debug)]
struct TimeStamp {
    /// Its calendar day as written.
    iso: String,
    /// It writes a time with an offset other than UTC's
    /// (`2024-01-14T21:50:50-05:00`): the day is the writer's local day.
    local: bool,
}

/// True when an ISO stamp's time carries an offset other than UTC's:
/// `-05:00`, `+0100`, `+01`; not `Z`, `+00:00`, `-0000`, nor a bare day.
fn has_local_offset(stamp: &str) -> bool {
    let Some((_, time)) = stamp.trim().split_once(['T', 't', ' ']) else {
        return false;
    };
    let Some(at) = time.rfind(['+', '-']) else {
        return false;
    };
    let digits: String = time[at + 1..].chars().filter(|c| *c != ':').collect();
    !digits.is_empty()
        && digits.len() <= 4
        && digits.bytes().all(|b| b.is_ascii_digit())
        && digits.bytes().any(|b| b != b'0')
}

/// One line of the body's text.
#[derive(Debug, Default)]
struct Line {
    /// Its text: a range of the page's one text buffer (a `String` a line
    /// cost a reallocation every few text nodes).
    text: std::ops::Range<usize>,
    /// True once `text` holds more than whitespace (kept as a flag: trimming
    /// the line at every text node was quadratic in its whitespace).
    has_text: bool,
    start: usize,
    date_class: bool,
    chrome: bool,
    headline: bool,
    /// `<time>` values that started on this line.
    times: Vec<TimeStamp>,
}

/// Where a line ends: the tags matched as interned names (a string
/// comparison per tag cost more than the rest of the walk).
fn is_block(tag: &LocalName) -> bool {
    matches!(
        *tag,
        local_name!("p")
            | local_name!("div")
            | local_name!("section")
            | local_name!("article")
            | local_name!("header")
            | local_name!("footer")
            | local_name!("li")
            | local_name!("ul")
            | local_name!("ol")
            | local_name!("h1")
            | local_name!("h2")
            | local_name!("h3")
            | local_name!("h4")
            | local_name!("h5")
            | local_name!("h6")
            | local_name!("br")
            | local_name!("tr")
            | local_name!("td")
            | local_name!("th")
            | local_name!("table")
            | local_name!("dd")
            | local_name!("dt")
            | local_name!("dl")
            | local_name!("blockquote")
            | local_name!("pre")
            | local_name!("nav")
            | local_name!("aside")
            | local_name!("main")
            | local_name!("figure")
            | local_name!("figcaption")
            | local_name!("form")
            | local_name!("address")
            | local_name!("hr")
    )
}

/// Elements whose text no reader sees.
fn is_hidden(tag: &LocalName) -> bool {
    matches!(
        *tag,
        local_name!("script")
            | local_name!("style")
            | local_name!("noscript")
            | local_name!("template")
            | local_name!("head")
            | local_name!("svg")
            | local_name!("select")
    )
}

/// True when the element's class or id holds a [`DATE_CLASS`] word, in
/// any ASCII case: one pass of an automaton over each value (it runs on
/// every element: eight searches each cost a tenth of the date scan).
fn date_named(names: [Option<&str>; 2]) -> bool {
    static WORDS: LazyLock<Option<AhoCorasick>> = LazyLock::new(|| {
        AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(DATE_CLASS)
            .ok()
    });
    match WORDS.as_ref() {
        Some(ac) => names.iter().flatten().any(|v| ac.is_match(v)),
        None => names_any(names, DATE_CLASS),
    }
}

/// True when the element's class or id (`names`) holds one of `words`.
fn names_any(names: [Option<&str>; 2], words: &[&str]) -> bool {
    names.iter().flatten().any(|v| {
        words
            .iter()
            .any(|w| contains_ignore_ascii_case(v.as_bytes(), w.as_bytes()))
    })
}

/// True when a word of the element's class or id (`names`) starts with
/// one of `words`.
fn starts_word(names: [Option<&str>; 2], words: &[&str]) -> bool {
    names.iter().flatten().any(|v| {
        v.split_ascii_whitespace().any(|t| {
            words
                .iter()
                .any(|w| starts_with_ignore_ascii_case(t.as_bytes(), w.as_bytes()))
        })
    })
}

/// Cuts the body's text into lines at block elements (iteratively, so
/// depth costs no stack), with each line's flags: the lines' text, one
/// after the other, and the lines.
fn lines(dom: &Dom) -> (String, Vec<Line>) {
    let mut buf = String::new();
    let mut out: Vec<Line> = vec![Line::default()];
    let mut chars = 0usize;
    // (node, entering, flags: date_class, chrome, headline)
    let mut stack: Vec<(NodeId, bool, [bool; 3])> = vec![(DOCUMENT, true, [false; 3])];
    let flush = |out: &mut Vec<Line>, chars: usize, end: usize| {
        if !out
            .last()
            .is_some_and(|l| !l.has_text && l.times.is_empty())
        {
            out.push(Line {
                text: end..end,
                start: chars,
                ..Line::default()
            });
        }
    };
    while let Some((id, entering, flags)) = stack.pop() {
        let node = &dom.nodes[id];
        match &node.data {
            NodeData::Text(t) if entering => {
                let line = out.last_mut().expect("one line at least");
                if line.text.len() < 2000 {
                    if !line.has_text {
                        line.start = chars;
                    }
                    buf.push_str(t);
                    line.text.end = buf.len();
                    line.has_text = line.has_text || crate::text::has_text(t);
                    chars += t.chars().count();
                    line.date_class |= flags[0];
                    line.chrome |= flags[1];
                    line.headline |= flags[2];
                }
            }
            NodeData::Element { name, .. } => {
                if name.ns != ns!(html) {
                    continue;
                }
                let tag = &name.local;
                if is_hidden(tag) {
                    continue;
                }
                let block = is_block(tag);
                if !entering {
                    if block {
                        flush(&mut out, chars, buf.len());
                    }
                    continue;
                }
                if block {
                    flush(&mut out, chars, buf.len());
                }
                let mut f = flags;
                // An inherited flag needs no look at the element's names.
                let time = *tag == local_name!("time");
                let names = if f[0] && f[1] {
                    [None, None]
                } else {
                    node.class_and_id()
                };
                let own_date = time || date_named(names);
                f[0] = f[0] || own_date;
                f[1] = f[1]
                    || matches!(*tag, local_name!("nav") | local_name!("aside"))
                    || (*tag == local_name!("footer")
                        && !names_any(names, &["entry", "post", "article"]))
                    || starts_word(names, CHROME_CLASS);
                f[2] |= *tag == local_name!("h1");
                // A date's own element opens a word: "Editorial" in one
                // span and "November 22, 2018" in the next read as
                // "EditorialNovember 22, 2018" where the style spaces them.
                if own_date {
                    let line = out.last_mut().expect("one line at least");
                    if buf[line.text.clone()]
                        .chars()
                        .next_back()
                        .is_some_and(char::is_alphanumeric)
                    {
                        buf.push(' ');
                        line.text.end = buf.len();
                        chars += 1;
                    }
                }
                if time {
                    let raw = node.attr("datetime").unwrap_or_default();
                    if let Some(iso) = normalize_date(raw) {
                        let line = out.last_mut().expect("one line at least");
                        line.times.push(TimeStamp {
                            iso,
                            local: has_local_offset(raw),
                        });
                        line.date_class |= f[0];
                        line.chrome |= f[1];
                    }
                }
                stack.push((id, false, flags));
                let first = stack.len();
                stack.extend(dom.children(id).map(|c| (c, true, f)));
                stack[first..].reverse();
            }
            NodeData::Document if entering => {
                let first = stack.len();
                stack.extend(dom.children(id).map(|c| (c, true, flags)));
                stack[first..].reverse();
            }
            _ => {}
        }
        if out.len() > 20_000 {
            break;
        }
    }
    out.retain(|l| l.has_text || !l.times.is_empty());
    (buf, out)
}

/// Characters before a date, white space collapsed, in which a cue counts.
const CUE_REACH: usize = 48;

/// The cue in the (lower-cased) words before a date: the nearer of a
/// publication and an update cue.
fn cue_before(before: &str) -> Cue {
    // One automaton over the three lists: pattern ids below PUBLISHED.len()
    // are publication cues, then update cues, then other events' cues.
    static CUES: LazyLock<Option<AhoCorasick>> =
        LazyLock::new(|| AhoCorasick::new(PUBLISHED.iter().chain(UPDATED).chain(OTHER)).ok());
    let tail = cue_tail(before);
    // The end of the last place a cue of each kind starts a word ("date:"
    // inside "updated:" is not one); scripts without spaces (CJK) have no
    // word starts to check. Overlapping matches: every place each cue stands.
    let (mut published, mut updated, mut other) = (None, None, None);
    let Some(cues) = CUES.as_ref() else {
        return Cue::None;
    };
    for m in cues.find_overlapping_iter(&tail) {
        let id = m.pattern().as_usize();
        // The match starts with the cue's first character.
        let cue = &tail[m.start()..];
        let starts_word = !cue.starts_with(|c: char| c.is_alphabetic() && c.len_utf8() <= 2)
            || !tail[..m.start()]
                .chars()
                .next_back()
                .is_some_and(char::is_alphabetic);
        if !starts_word {
            continue;
        }
        let slot = if id < PUBLISHED.len() {
            &mut published
        } else if id < PUBLISHED.len() + UPDATED.len() {
            &mut updated
        } else {
            &mut other
        };
        *slot = (*slot).max(Some(m.end()));
    }
    // Where each kind of cue ends: the nearest to the date wins ("date:"
    // ends a "release date:" cue; an other-date cue wins the tie).
    if other.is_some() && other.map(|o| o + 1) >= published && other >= updated {
        return Cue::Other;
    }
    match (published, updated) {
        (Some(p), Some(u)) if u > p => Cue::Updated,
        (Some(_), _) => Cue::Published,
        (None, Some(_)) => Cue::Updated,
        (None, None) => Cue::None,
    }
}

/// The last [`CUE_REACH`] characters before a date, white space collapsed
/// to single spaces (the indentation of the page's source, "last post
/// by&nbsp;\n      <a>ann</a>", is no distance a reader sees), lower-cased.
/// Read backwards from the date, over at most 400 characters.
fn cue_tail(before: &str) -> String {
    let mut reversed: Vec<char> = Vec::with_capacity(CUE_REACH);
    let mut space = false;
    for c in before.chars().rev().take(400) {
        if c.is_whitespace() {
            space = !reversed.is_empty();
            continue;
        }
        if reversed.len() >= CUE_REACH {
            break;
        }
        if space {
            reversed.push(' ');
            space = false;
            if reversed.len() >= CUE_REACH {
                break;
            }
        }
        reversed.push(c);
    }
    let collapsed: String = reversed.into_iter().rev().collect();
    let lower = collapsed.to_lowercase();
    let skip = lower.chars().count().saturating_sub(CUE_REACH);
    lower.chars().skip(skip).collect()
}

fn word_count(s: &str) -> usize {
    s.split_whitespace().count()
}

/// The dates a page shows, each list in document order.
#[derive(Debug, Clone, Default)]
pub struct ShownDates {
    /// Dates of a day.
    pub days: Vec<VisibleDate>,
    /// A month and year that end their line ("November 2015"), on lines
    /// that show no date of a day; `iso` is `YYYY-MM`.
    pub months: Vec<VisibleDate>,
}

/// Every date the page shows. `month_first` reads `3/4/2025` as March 4
/// (US English pages); `reference` resolves relative dates (none without
/// it).
pub fn visible_dates(dom: &Dom, month_first: bool, reference: Option<&Reference>) -> ShownDates {
    let (buf, lines) = lines(dom);
    let text_of = |l: &Line| &buf[l.text.clone()];
    let headline = lines.iter().position(|l| l.headline);
    let headline_end = headline.map(|h| lines[h].start + text_of(&lines[h]).chars().count());
    let long = |l: &Line| !l.chrome && text_of(l).split_whitespace().nth(24).is_some();
    let first_long = lines
        .iter()
        .enumerate()
        .skip(headline.unwrap_or(0))
        .find(|(_, l)| long(l))
        .map(|(i, _)| i);
    let last_long = lines.iter().rposition(long);
    let mut out = Vec::new();
    let mut months = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let make = |iso: String, kind, cue, words: usize, swapped| VisibleDate {
            swapped,
            iso,
            kind,
            cue,
            line: i,
            from_headline: headline_end.map(|e| line.start as i64 - e as i64),
            date_class: line.date_class,
            chrome: line.chrome,
            line_words: words,
            header_zone: headline.is_none_or(|h| i >= h) && first_long.is_none_or(|f| i < f),
            after_text: last_long.is_some_and(|l| i > l && i <= l + 3),
        };
        // The previous line's cue counts when it ends in one ("Published:")
        // and holds no date of its own ("Joined: May 2, 2012" cues nothing).
        // Read only for a date that starts its line: most lines have none.
        let prev_cue = || {
            i.checked_sub(1)
                .map(|p| text_of(&lines[p]).trim())
                .filter(|t| t.chars().count() <= 30)
                .filter(|t| find_dates(t, month_first).is_empty())
                .map_or(Cue::None, |t| {
                    // A label of its own line ("Date" over the value, as
                    // in a table of a paper's facts).
                    if t.eq_ignore_ascii_case("date") {
                        Cue::Published
                    } else {
                        cue_before(t)
                    }
                })
        };
        let text = text_of(line);
        let found = find_dates(text, month_first);
        if let Some((iso, start)) = found
            .is_empty()
            .then(|| month_year(text))
            .flatten()
            .filter(|_| line.times.is_empty() && !line.headline)
        {
            let before = &text[..start];
            let cue = match cue_before(before) {
                Cue::None if before.trim().is_empty() => prev_cue(),
                cue => cue,
            };
            let words = word_count(before);
            months.push(make(iso, VisibleKind::Text, cue, words, None));
            continue;
        }
        if found.is_empty() && line.times.is_empty() && reference.is_none() {
            continue;
        }
        let total_words = word_count(text);
        for f in found.iter().take(4) {
            let mut cue = cue_before(&text[..f.start]);
            if cue == Cue::None && text[..f.start].trim().is_empty() {
                cue = prev_cue();
            }
            let words = total_words.saturating_sub(word_count(&text[f.start..f.end]));
            // The `<time>` this text renders: the same day, or the day
            // before or after (one of the two was shifted by a time zone).
            let stamp = line
                .times
                .iter()
                .find(|t| t.iso == f.iso || days_apart(&t.iso, &f.iso) == Some(1));
            // A numeric date read in the wrong order ("06/01/2026" on an
            // English page that writes the day first): the stamp says which.
            let stamp = stamp.or_else(|| {
                let swapped = swap_day_month(&f.iso)?;
                let numeric = !text[f.start..f.end].contains(char::is_alphabetic);
                line.times.iter().find(|t| numeric && t.iso == swapped)
            });
            let (iso, kind) = match stamp {
                // A stamp with the writer's own offset keeps the writer's
                // day; the text was rendered in the reader's zone.
                Some(t) if t.local => (t.iso.clone(), VisibleKind::Time),
                // A UTC stamp: the text shows the reader's day.
                Some(_) => (f.iso.clone(), VisibleKind::Time),
                None => (f.iso.clone(), VisibleKind::Text),
            };
            // Without a stamp to say which, a date in digits alone may be
            // read the other way round.
            let swapped = (kind == VisibleKind::Text
                && !text[f.start..f.end].contains(char::is_alphabetic))
            .then(|| swap_day_month(&f.iso))
            .flatten();
            out.push(make(iso, kind, cue, words, swapped));
        }
        for t in &line.times {
            // A `<time>` whose text shows the same day (or the next or
            // previous one: the local day of a UTC stamp) was taken above.
            if found.iter().any(|f| {
                f.iso == t.iso
                    || days_apart(&f.iso, &t.iso) == Some(1)
                    || swap_day_month(&f.iso).is_some_and(|s| s == t.iso)
            }) {
                continue;
            }
            let cue = cue_before(text);
            out.push(make(
                t.iso.clone(),
                VisibleKind::Time,
                cue,
                total_words,
                None,
            ));
        }
        if let Some(r) = reference.filter(|_| found.is_empty() && text.len() <= 120) {
            let text = text.trim();
            let cue = cue_before(text);
            // The whole line, else a piece of it ("By Ann · 3 days ago",
            // "gestern, 10:15", "Posted: 3 hours ago").
            let resolved = resolve_relative(text, r).or_else(|| {
                text.split([':', '·', '|', '•', ',', '—', '–'])
                    .take(8)
                    .find_map(|piece| resolve_relative(piece, r))
            });
            if let Some(iso) = resolved {
                out.push(make(iso, VisibleKind::Relative, cue, total_words, None));
            }
        }
        if out.len() + months.len() > 400 {
            break;
        }
    }
    ShownDates { days: out, months }
}

/// The ISO date with its month and day swapped, when that is a date too.
fn swap_day_month(iso: &str) -> Option<String> {
    let (y, rest) = iso.split_once('-')?;
    let (m, d) = rest.split_once('-')?;
    (m != d)
        .then(|| normalize_date(&format!("{y}-{d}-{m}")))
        .flatten()
}

/// Days between two ISO dates when both parse.
fn days_apart(a: &str, b: &str) -> Option<i64> {
    let day = |s: &str| Reference::parse(s).map(|r| r.day);
    Some((day(a)? - day(b)?).abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_offsets_are_told_from_utc() {
        for (stamp, local) in [
            ("2024-01-14T21:50:50-05:00", true),
            ("2024-01-14T21:50:50-0500", true),
            ("2024-01-14 21:50+01", true),
            ("2024-01-14T21:50:50Z", false),
            ("2024-01-14T21:50:50+00:00", false),
            ("2024-01-14T21:50:50-0000", false),
            ("2024-01-14", false),
            ("2024-01-14T21:50:50", false),
            ("", false),
            ("T-", false),
        ] {
            assert_eq!(has_local_offset(stamp), local, "{stamp}");
        }
    }

    #[test]
    fn day_and_month_swap() {
        assert_eq!(swap_day_month("2026-06-01").as_deref(), Some("2026-01-06"));
        assert_eq!(swap_day_month("2026-06-13"), None);
        assert_eq!(swap_day_month("2026-06-06"), None);
        assert_eq!(swap_day_month("bad"), None);
    }
}
