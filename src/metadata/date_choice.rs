//! The choice of a page's publication and modification dates among every
//! candidate: the dates a reader sees (scored by cue, place and markup, and
//! by agreement with the page's declared dates), the declared dates (meta
//! tags, JSON-LD, microdata), and a date in the URL's path.
//!
//! A thread's first post (`thread_dates.rs`) wins; else a visible date
//! that scores [`THRESHOLD`] or more, since it is the date the page shows;
//! among equals the first in the page. A date under an "Updated" cue is
//! the modification date; it is the publication date only when it stands
//! in the byline (by the headline) and the page declares no publication
//! date in a meta tag or microdata (JSON-LD's, written for search engines,
//! is often the first version's date while the page shows its update): a
//! "last modified" stamp at the page's foot never is. A date under
//! a cue of another event ("Release date", "Joined") scores low. Without a
//! visible date, the declared publication date, else the URL's, else a
//! month the page shows alone (`YYYY-MM`: "November 2015").

use super::dates::normalize_date;
use super::month_names::month_of;
use super::thread_dates::first_post;
use super::visible_dates::{Cue, VisibleDate, VisibleKind};
use super::SourceKind;

/// The score a visible date needs to be chosen.
pub const THRESHOLD: f64 = 4.0;

/// A declared date and its source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared {
    /// ISO `YYYY-MM-DD`.
    pub iso: String,
    /// Meta tag, JSON-LD or microdata (counted as meta).
    pub kind: SourceKind,
}

/// What the choice reads.
#[derive(Debug, Default)]
pub struct DateEvidence<'a> {
    /// Declared publication dates, best source first.
    pub published: Vec<Declared>,
    /// Declared modification dates, best source first.
    pub modified: Vec<Declared>,
    /// The dates the page shows, in document order.
    pub visible: &'a [VisibleDate],
    /// The months the page shows alone, in document order.
    pub months: &'a [VisibleDate],
    /// A `/2019/11/19/` date in the page's URL.
    pub url: Option<String>,
    /// Distinct days among the visible dates outside page chrome.
    pub distinct_dates: usize,
    /// Index in `visible` of the page's lone header date
    /// ([`lone_header_date`]).
    pub lone_header: Option<usize>,
}

/// The chosen dates with their sources.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChosenDates {
    /// Publication date.
    pub published: Option<(String, SourceKind)>,
    /// Modification date.
    pub modified: Option<(String, SourceKind)>,
}

/// A visible date's score: cue, markup, place, agreement.
pub fn score(v: &VisibleDate, e: &DateEvidence<'_>) -> f64 {
    let mut s = 0.0;
    s += match v.cue {
        Cue::Published => 3.0,
        Cue::Updated => 1.5,
        Cue::None => 0.0,
        Cue::Other => -4.0,
    };
    s += match v.kind {
        VisibleKind::Time => 1.5,
        VisibleKind::Relative => 0.5,
        VisibleKind::Text => 0.0,
    };
    if v.date_class {
        s += 1.5;
    }
    let near_headline = v.from_headline.is_some_and(|d| (-300..=300).contains(&d));
    if v.chrome {
        // A headline's own header may sit in a chrome-named wrapper.
        s -= if near_headline { 2.0 } else { 4.0 };
    }
    s += match v.from_headline {
        Some(d) if (0..=300).contains(&d) => 3.0,
        Some(d) if (0..=1000).contains(&d) => 1.5,
        Some(d) if (-300..0).contains(&d) => 3.0,
        _ if v.cue == Cue::None => -1.0,
        _ => 0.0,
    };
    // Many dates (a listing, a feed): only one by the headline or under a
    // publication cue says when this page was published.
    if e.distinct_dates >= 4 && !near_headline && v.cue != Cue::Published {
        s -= 2.5;
    }
    if v.header_zone {
        s += 1.0;
    }
    if v.line_words <= 12 {
        s += 1.0;
    } else if v.line_words > 40 {
        s -= 1.5;
    }
    if v.after_text {
        s += 1.0;
    }
    let lone = e.lone_header.and_then(|i| e.visible.get(i));
    if lone.is_some_and(|l| l.line == v.line && l.iso == v.iso) {
        s += LONE_HEADER;
    }
    if e.published.iter().any(|d| d.iso == v.iso) {
        s += 3.0;
    } else if e.modified.iter().any(|d| d.iso == v.iso) {
        s += 2.0;
    }
    if e.visible
        .iter()
        .any(|o| o.line != v.line && o.iso == v.iso && !o.chrome)
    {
        s += 0.5;
    }
    s
}

/// What the lone date between the headline and the text scores: as much
/// as standing by the headline, since it is the byline's date.
const LONE_HEADER: f64 = 3.0;

/// Other words a lone header date's line may hold ("Published", "Updated
/// on"): a date with more beside it is a sentence or a list's row.
const LONE_HEADER_WORDS: usize = 2;

/// The page's lone header date: the one date line between the headline
/// (or the page's start) and the first long paragraph, outside chrome and
/// not another event's date, holding one date and at most
/// [`LONE_HEADER_WORDS`] other words. Where a byline shows no cue word and
/// no markup names it, that it stands alone above the text says it is the
/// page's date, however far the headline is (a long lead, a table of
/// contents) or when there is no `<h1>`.
pub fn lone_header_date(visible: &[VisibleDate]) -> Option<usize> {
    let mut header = visible
        .iter()
        .enumerate()
        .filter(|(_, v)| v.header_zone && !v.chrome && v.cue != Cue::Other);
    let (i, first) = header.next()?;
    if header.any(|(_, v)| v.line != first.line || v.iso != first.iso) {
        return None;
    }
    (first.line_words <= LONE_HEADER_WORDS).then_some(i)
}

/// Month lines a page may show and still be dated by one: an archive's
/// list of months dates nothing.
const MAX_MONTH_LINES: usize = 2;

/// The month that dates a page which names no day anywhere (a report
/// dated "November 2003", an essay headed "November 2015"): its one month
/// standing alone on its line (at most [`LONE_HEADER_WORDS`] other words),
/// under a publication cue, or uncued between the headline and the text
/// outside chrome; on a page of at most [`MAX_MONTH_LINES`] month lines,
/// all of that month.
fn lone_month(months: &[VisibleDate]) -> Option<&VisibleDate> {
    if months.len() > MAX_MONTH_LINES {
        return None;
    }
    let first = months.iter().find(|v| {
        v.line_words <= LONE_HEADER_WORDS
            && (v.cue == Cue::Published || (v.cue == Cue::None && v.header_zone && !v.chrome))
    })?;
    months.iter().all(|v| v.iso == first.iso).then_some(first)
}

/// The best visible date among `pool` (the first among equals).
fn best<'v>(pool: impl Iterator<Item = (&'v VisibleDate, f64)>) -> Option<(&'v VisibleDate, f64)> {
    pool.fold(None, |acc: Option<(&VisibleDate, f64)>, (v, s)| match acc {
        Some((_, bs)) if bs >= s => acc,
        _ => Some((v, s)),
    })
}

/// By the headline or between it and the text: where a byline stands.
fn in_byline(v: &VisibleDate) -> bool {
    v.header_zone || v.from_headline.is_some_and(|d| (-300..=1000).contains(&d))
}

fn visible_kind(v: &VisibleDate) -> SourceKind {
    match v.kind {
        VisibleKind::Time => SourceKind::Time,
        VisibleKind::Text | VisibleKind::Relative => SourceKind::Visible,
    }
}

/// Chooses the publication and modification dates.
pub fn choose(e: &DateEvidence<'_>) -> ChosenDates {
    let scored: Vec<(&VisibleDate, f64)> = e
        .visible
        .iter()
        .map(|v| (v, score(v, e)))
        .filter(|&(_, s)| s >= THRESHOLD)
        .collect();
    let updated = best(
        scored
            .iter()
            .copied()
            .filter(|(v, _)| v.cue == Cue::Updated),
    );
    let shown = best(
        scored
            .iter()
            .copied()
            .filter(|(v, _)| v.cue != Cue::Updated),
    );
    // An update in the byline is the date the page gives when it shows no
    // other and declares none outside JSON-LD; a "last modified" stamp at
    // the page's foot never is.
    let byline_update = updated
        .filter(|(v, _)| in_byline(v))
        .filter(|_| e.published.iter().all(|d| d.kind == SourceKind::JsonLd));
    let published = first_post(e.visible)
        .or(shown.map(|(v, _)| v))
        .or(byline_update.map(|(v, _)| original_of(v, e.visible).unwrap_or(v)))
        .map(|v| (v.iso.clone(), visible_kind(v)))
        .or_else(|| e.published.first().map(|d| (d.iso.clone(), d.kind)))
        .or_else(|| {
            updated
                .and_then(|(v, _)| original_of(v, e.visible))
                .map(|v| (v.iso.clone(), visible_kind(v)))
        })
        .or_else(|| e.url.clone().map(|u| (u, SourceKind::Url)))
        .or_else(|| lone_month(e.months).map(|v| (v.iso.clone(), SourceKind::Visible)));
    let modified = updated
        .map(|(v, _)| (v.iso.clone(), visible_kind(v)))
        .or_else(|| e.modified.first().map(|d| (d.iso.clone(), d.kind)));
    ChosenDates {
        published,
        modified,
    }
}

/// The date an update revises: one with no cue on the update's own line,
/// earlier than it ("May 3, 2024 · Updated June 1, 2025"). It is the
/// publication date where the update would otherwise stand for it (in the
/// byline), or where the page declares none.
fn original_of<'v>(update: &VisibleDate, visible: &'v [VisibleDate]) -> Option<&'v VisibleDate> {
    visible
        .iter()
        .find(|o| o.line == update.line && o.cue == Cue::None && o.iso < update.iso)
}

/// A date in a URL's path: `/2019/11/19/`, `/2019/november/19/`,
/// `/2019-11-19-`, `/20191119/`.
/// Year and month alone name no day: `None`.
pub fn url_date(url: &str) -> Option<String> {
    let path = url
        .split_once("://")
        .map_or(url, |(_, rest)| rest.find('/').map_or("", |p| &rest[p..]));
    let path = path.split(['?', '#']).next().unwrap_or("");
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    for w in parts.windows(3) {
        if w[0].len() == 4 && w[2].len() <= 2 && digits(w[0]) && digits(w[2]) {
            // The month in digits, or named: `/2023/october/03/`.
            let month = if w[1].len() <= 2 && digits(w[1]) {
                w[1].parse().ok()
            } else {
                month_of(w[1])
            };
            if let Some(d) =
                month.and_then(|m: u32| normalize_date(&format!("{}-{m:02}-{}", w[0], w[2])))
            {
                return Some(d);
            }
        }
    }
    parts.iter().find_map(|p| {
        let b = p.as_bytes();
        let at = (0..b.len().saturating_sub(9)).find(|&i| {
            (i == 0 || !b[i - 1].is_ascii_alphanumeric())
                && b[i..i + 4].iter().all(u8::is_ascii_digit)
                && matches!(&b[i..i + 2], b"19" | b"20")
                && b[i + 4] == b'-'
                && b[i + 5..i + 7].iter().all(u8::is_ascii_digit)
                && b[i + 7] == b'-'
                && b[i + 8..i + 10].iter().all(u8::is_ascii_digit)
                && b.get(i + 10).is_none_or(|c| !c.is_ascii_digit())
        })?;
        normalize_date(&p[at..at + 10])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_path_dates() {
        for (url, want) in [
            (
                "https://example.org/2019/11/19/gulls-nest/",
                Some("2019-11-19"),
            ),
            (
                "https://example.org/news/2019-11-19-gulls",
                Some("2019-11-19"),
            ),
            (
                "https://www.example.org/blog/2023/october/03/wine-types/",
                Some("2023-10-03"),
            ),
            ("https://example.org/2023/Okt/3/", Some("2023-10-03")),
            ("https://example.org/2023/gulls/03/", None),
            ("https://example.org/2019/11/gulls", None),
            ("https://example.org/item/1234/56/78", None),
            ("https://example.org/a?d=2019/11/19", None),
            ("not a url", None),
        ] {
            assert_eq!(url_date(url).as_deref(), want, "{url}");
        }
    }
}
