//! Dates inside running text ([`find_dates`]): numeric orders (`2025-03-04`,
//! `04.03.2025`, `3/4/2025`), month names before or after the day (`4 March
//! 2025`, `March 4, 2025`, `4. März 2025`, `4 de marzo de 2025`, `4 марта
//! 2025`), and the CJK orders (`2025年3月4日`, `2025년 3월 4일`, `2025. 3.
//! 4.`). Each date found keeps its place in the text, so that the words
//! before it (a cue such as "Published") can be read.

use std::borrow::Cow;

use super::month_names::month_of;
use crate::text::lowercase;

/// A date found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundDate {
    /// ISO `YYYY-MM-DD`.
    pub iso: String,
    /// Byte offset of the date's first character.
    pub start: usize,
    /// Byte offset just past the date.
    pub end: usize,
}

#[derive(Debug, Clone, PartialEq)]
enum Tok<'a> {
    /// A number: value, digit count.
    Num(u32, usize),
    /// A word, lower-cased (borrowed from the text when it already is).
    Word(Cow<'a, str>),
    /// Any other character (punctuation, CJK date marks).
    Mark(char),
}

/// The class of a character for [`tokens`]: tokens are maximal runs of
/// digits, maximal runs of letters, or single other characters, so where
/// one starts depends only on its neighbours' classes (which lets
/// [`find_dates`] tokenise a window of a text as the whole text would be).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Space,
    Digit,
    Letter,
    Other,
}

fn class(c: char) -> Class {
    if c.is_whitespace() {
        Class::Space
    } else if digit(c).is_some() {
        Class::Digit
    } else if c.is_alphabetic() && !is_cjk_mark(c) {
        Class::Letter
    } else {
        Class::Other
    }
}

/// Tokens of `text[from..to]` with their byte spans in `text`; white space
/// separates and is dropped. `from` must start a token of the whole text
/// (or be 0); `limit` caps the count.
fn tokens(text: &str, from: usize, to: usize, limit: usize) -> Vec<(Tok<'_>, usize, usize)> {
    let mut out = Vec::new();
    let mut it = text[from..to]
        .char_indices()
        .map(|(i, c)| (i + from, c))
        .peekable();
    while let Some((i, c)) = it.next() {
        let kind = class(c);
        if kind == Class::Space {
            continue;
        }
        let mut end = i + c.len_utf8();
        if kind == Class::Other {
            out.push((Tok::Mark(c), i, end));
        } else {
            while let Some(&(j, c2)) = it.peek() {
                if class(c2) != kind {
                    break;
                }
                end = j + c2.len_utf8();
                it.next();
            }
            out.push(if kind == Class::Digit {
                let v = text[i..end]
                    .chars()
                    .filter_map(digit)
                    .fold(0u64, |v, d| (v * 10 + d as u64).min(u32::MAX as u64));
                let n = text[i..end].chars().count();
                (Tok::Num(v as u32, n), i, end)
            } else {
                (Tok::Word(lowercase(&text[i..end])), i, end)
            });
        }
        if out.len() > limit {
            break;
        }
    }
    out
}

/// Where the token `count` tokens before the one starting at byte `at`
/// starts (0 when the text holds fewer): tokens read backwards are the
/// same maximal runs as read forwards.
fn tokens_back(text: &str, at: usize, count: usize) -> usize {
    let mut it = text[..at].char_indices().rev().peekable();
    let mut start = at;
    let mut n = 0;
    while n < count {
        let Some((i, c)) = it.next() else {
            return 0;
        };
        let kind = class(c);
        if kind == Class::Space {
            continue;
        }
        start = i;
        if kind != Class::Other {
            while let Some(&(j, c2)) = it.peek() {
                if class(c2) != kind {
                    break;
                }
                start = j;
                it.next();
            }
        }
        n += 1;
    }
    start
}

/// Where the `count`-th token after byte `at` (a token's end) ends, or the
/// text's end.
fn tokens_forward(text: &str, at: usize, count: usize) -> usize {
    let toks = tokens(text, at, text.len(), count);
    match toks.get(count.saturating_sub(1)) {
        Some(&(_, _, end)) if toks.len() >= count => end,
        _ => text.len(),
    }
}

/// Byte spans of the maximal runs of exactly four digits ([`digit`]) whose
/// value lies in the years [`iso`] accepts: every date holds one. Read as
/// bytes (it runs on every line of a page; decoding chars cost twice as
/// much): a digit is an ASCII one or the UTF-8 of an Arabic-Indic,
/// Eastern Arabic-Indic or full-width one.
fn year_runs(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let digit_at = |i: usize| -> Option<(u32, usize)> {
        match b[i] {
            c @ b'0'..=b'9' => Some(((c - b'0') as u32, 1)),
            0xD9 => match b.get(i + 1) {
                Some(&c @ 0xA0..=0xA9) => Some(((c - 0xA0) as u32, 2)),
                _ => None,
            },
            0xDB => match b.get(i + 1) {
                Some(&c @ 0xB0..=0xB9) => Some(((c - 0xB0) as u32, 2)),
                _ => None,
            },
            0xEF => match (b.get(i + 1), b.get(i + 2)) {
                (Some(0xBC), Some(&c @ 0x90..=0x99)) => Some(((c - 0x90) as u32, 3)),
                _ => None,
            },
            _ => None,
        }
    };
    let mut out = Vec::new();
    let mut i = 0;
    // Skip to the next byte that can start a digit, then read the run.
    while let Some(skip) = b[i..]
        .iter()
        .position(|&c| c.is_ascii_digit() || matches!(c, 0xD9 | 0xDB | 0xEF))
    {
        let start = i + skip;
        let (mut j, mut run, mut value) = (start, 0usize, 0u32);
        while let Some((d, len)) = (j < b.len()).then(|| digit_at(j)).flatten() {
            run += 1;
            value = value.saturating_mul(10).saturating_add(d);
            j += len;
        }
        if run == 4 && (1900..=2100).contains(&value) {
            out.push((start, j));
        }
        // `j` is past a run, or at a lead byte that starts no digit.
        i = if run == 0 { start + 1 } else { j };
    }
    out
}

/// How many tokens before its year a date may start (9 at most; a margin).
const YEAR_REACH: usize = 12;

/// ASCII, Arabic-Indic and Eastern Arabic-Indic digits.
fn digit(c: char) -> Option<u32> {
    match c {
        '0'..='9' => Some(c as u32 - '0' as u32),
        '\u{660}'..='\u{669}' => Some(c as u32 - 0x660),
        '\u{6F0}'..='\u{6F9}' => Some(c as u32 - 0x6F0),
        '０'..='９' => Some(c as u32 - '０' as u32),
        _ => None,
    }
}

/// The year, month and day marks of Chinese, Japanese and Korean dates.
fn is_cjk_mark(c: char) -> bool {
    matches!(c, '年' | '月' | '日' | '년' | '월' | '일')
}

/// A valid calendar date between 1900 and 2100 as ISO text.
pub(super) fn iso(y: u32, m: u32, d: u32) -> Option<String> {
    let leap = y.is_multiple_of(4) && (!y.is_multiple_of(100) || y.is_multiple_of(400));
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    ((1900..=2100).contains(&y) && (1..=days).contains(&d)).then(|| format!("{y:04}-{m:02}-{d:02}"))
}

/// Ordinal endings written after a day number (`4th`, `1er`, `1º`).
const ORDINALS: &[&str] = &["st", "nd", "rd", "th", "er", "e", "º", "ª"];
/// Small words between a date's parts (`4 de marzo de 2025`, `le 4 mars`).
const JOINERS: &[&str] = &["de", "del", "of", "van", "г"];

/// Every date written in `text`, in order. `month_first` reads numeric
/// dates with slashes as month/day/year (US English); else day first,
/// unless only the other order is valid.
pub fn find_dates(text: &str, month_first: bool) -> Vec<FoundDate> {
    // Every date holds a year of exactly four digits between 1900 and 2100:
    // a text without one (most lines of a page) holds none. A text with
    // one is tokenised only around its years (lower-casing every word of a
    // long line and trying every month name cost a third of a page's
    // extraction time, then a tenth): from YEAR_REACH tokens before each to
    // AFTER_YEAR after, overlapping windows merged. That finds what
    // scanning the whole text finds: a date starts at most 9 tokens before
    // its year and ends at most 5 after it, and a window's first token is
    // one the whole scan reaches fresh, since a date running into it would
    // have made the two windows overlap. Longer texts than the token cap
    // are scanned whole, to keep the cap's cut where it was.
    let years = year_runs(text);
    if years.is_empty() {
        return Vec::new();
    }
    if text.len() > MAX_TOKENS {
        return scan(&tokens(text, 0, text.len(), MAX_TOKENS), month_first);
    }
    let mut out = Vec::new();
    let mut window: Option<(usize, usize)> = None;
    for (start, end) in years {
        let (from, to) = (
            tokens_back(text, start, YEAR_REACH),
            tokens_forward(text, end, AFTER_YEAR),
        );
        window = match window {
            Some((f, t)) if from <= t => Some((f, t.max(to))),
            Some((f, t)) => {
                out.extend(scan(&tokens(text, f, t, MAX_TOKENS), month_first));
                Some((from, to))
            }
            None => Some((from, to)),
        };
    }
    if let Some((f, t)) = window {
        out.extend(scan(&tokens(text, f, t, MAX_TOKENS), month_first));
    }
    out
}

/// A month and year that end `text` ("November 2015", "Date: März 2021",
/// "noviembre de 2015", "Nov. 2015"): the ISO month `YYYY-MM` and the byte
/// offset where the month's name starts. Pages that date themselves by
/// the month (reports, papers, a magazine's issue) write no day; dates of
/// a day are [`find_dates`]'s.
pub fn month_year(text: &str) -> Option<(String, usize)> {
    let t = text.trim_end().trim_end_matches('.');
    let (head, year) = t.rsplit_once(char::is_whitespace)?;
    if year.len() != 4 || !year.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let y: u32 = year.parse().ok()?;
    if !(1900..=2100).contains(&y) {
        return None;
    }
    let head = head.trim_end().trim_end_matches(',');
    let head = [" de", " of"]
        .iter()
        .find_map(|w| head.strip_suffix(w))
        .unwrap_or(head)
        .trim_end();
    let start = head
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_whitespace())
        .map_or(0, |(i, c)| i + c.len_utf8());
    let word = &head[start..];
    if !word.trim_end_matches('.').chars().all(char::is_alphabetic) {
        return None;
    }
    let m = month_of(word)?;
    Some((format!("{y:04}-{m:02}"), start))
}

/// Tokens a whole-text scan reads at most (a guard on huge text nodes).
const MAX_TOKENS: usize = 4096;
/// Tokens after a year that a date may still read: a year-first date's
/// separator, month, separator, day and CJK day mark (5), with a margin.
const AFTER_YEAR: usize = 8;

/// The dates among `toks`, left to right: a date found is skipped whole.
fn scan(toks: &[(Tok<'_>, usize, usize)], month_first: bool) -> Vec<FoundDate> {
    // A date's year stands at most 9 tokens after its first (a day, an
    // ordinal ending, three joiners, a month, three joiners): only the
    // tokens up to YEAR_REACH before a year token can start one.
    let years: Vec<usize> = (0..toks.len())
        .filter(|&k| year(toks, k).is_some())
        .collect();
    let mut next_year = 0;
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        while next_year < years.len() && years[next_year] < i {
            next_year += 1;
        }
        let Some(&y) = years.get(next_year) else {
            break;
        };
        if y > i + YEAR_REACH {
            i = y - YEAR_REACH;
            continue;
        }
        if let Some((iso, last)) = date_at(toks, i, month_first) {
            out.push(FoundDate {
                iso,
                start: toks[i].1,
                end: toks[last].2,
            });
            i = last + 1;
        } else {
            i += 1;
        }
    }
    out
}

fn num(toks: &[(Tok, usize, usize)], i: usize) -> Option<(u32, usize)> {
    match toks.get(i) {
        Some((Tok::Num(v, n), _, _)) => Some((*v, *n)),
        _ => None,
    }
}

fn mark(toks: &[(Tok, usize, usize)], i: usize) -> Option<char> {
    match toks.get(i) {
        Some((Tok::Mark(c), _, _)) => Some(*c),
        _ => None,
    }
}

fn word<'t>(toks: &'t [(Tok<'_>, usize, usize)], i: usize) -> Option<&'t str> {
    match toks.get(i) {
        Some((Tok::Word(w), _, _)) => Some(w),
        _ => None,
    }
}

/// Skips marks in `set` and joiner words from `i`; returns the next index.
fn skip(toks: &[(Tok, usize, usize)], mut i: usize, set: &[char]) -> usize {
    for _ in 0..3 {
        match &toks.get(i) {
            Some((Tok::Mark(c), _, _)) if set.contains(c) => i += 1,
            Some((Tok::Word(w), _, _)) if JOINERS.contains(&w.as_ref()) => i += 1,
            _ => break,
        }
    }
    i
}

/// A year of four digits at `i` not followed by more digits of a number.
fn year(toks: &[(Tok, usize, usize)], i: usize) -> Option<u32> {
    let (y, n) = num(toks, i)?;
    (n == 4).then_some(y)
}

/// A day number at `i` (one or two digits), with an ordinal ending
/// skipped: the value and the index after it.
fn day(toks: &[(Tok, usize, usize)], i: usize) -> Option<(u32, usize)> {
    let (d, n) = num(toks, i)?;
    if n > 2 {
        return None;
    }
    let next = match word(toks, i + 1) {
        Some(w) if ORDINALS.contains(&w) && toks[i + 1].1 == toks[i].2 => i + 2,
        _ => match mark(toks, i + 1) {
            Some('º' | 'ª') => i + 2,
            _ => i + 1,
        },
    };
    Some((d, next))
}

/// The date starting at token `i`, with the index of its last token.
fn date_at(toks: &[(Tok, usize, usize)], i: usize, month_first: bool) -> Option<(String, usize)> {
    // Year first: 2025-03-04, 2025/3/4, 2025.03.04, 2025年3月4日, 2025. 3. 4.
    if let Some(y) = year(toks, i) {
        if let Some(sep) = mark(toks, i + 1) {
            if matches!(sep, '-' | '/' | '.' | '年' | '년') {
                let (m, _) = num(toks, i + 2).filter(|&(_, n)| n <= 2)?;
                let sep2 = mark(toks, i + 3)?;
                let same = sep2 == sep || matches!((sep, sep2), ('年', '月') | ('년', '월'));
                if !same {
                    return None;
                }
                let (d, _) = num(toks, i + 4).filter(|&(_, n)| n <= 2)?;
                let mut last = i + 4;
                if matches!(mark(toks, i + 5), Some('日' | '일')) {
                    last = i + 5;
                }
                return iso(y, m, d).map(|s| (s, last));
            }
        }
        return None;
    }
    // Month name first: March 4, 2025; Sept. 4th 2025.
    if let Some(m) = word(toks, i).and_then(month_of) {
        let j = skip(toks, i + 1, &['.']);
        let (d, j) = day(toks, j)?;
        let j = skip(toks, j, &[',', '.']);
        let y = year(toks, j)?;
        return iso(y, m, d).map(|s| (s, j));
    }
    // Day first: 4 March 2025, 4. März 2025, 4 de marzo de 2025, 04.03.2025.
    let (d, j) = day(toks, i)?;
    let after_day = skip(toks, j, &['.', ',']);
    if let Some(m) = word(toks, after_day).and_then(month_of) {
        let k = skip(toks, after_day + 1, &['.', ',']);
        let y = year(toks, k)?;
        return iso(y, m, d).map(|s| (s, k));
    }
    let sep = mark(toks, j)?;
    if !matches!(sep, '.' | '/' | '-') {
        return None;
    }
    // 04-Aug-2021, 04-ago-2021: a month's name between dashes.
    if sep == '-' {
        if let Some(m) = word(toks, j + 1).and_then(month_of) {
            if mark(toks, j + 2) != Some('-') {
                return None;
            }
            return iso(year(toks, j + 3)?, m, d).map(|s| (s, j + 3));
        }
    }
    let (b, _) = num(toks, j + 1).filter(|&(_, n)| n <= 2)?;
    if mark(toks, j + 2) != Some(sep) {
        return None;
    }
    let y = year(toks, j + 3)?;
    let (day_first, month_first_v) = (iso(y, b, d), iso(y, d, b));
    let value = if sep == '/' && month_first {
        month_first_v.or(day_first)
    } else {
        day_first.or(month_first_v)
    };
    value.map(|s| (s, j + 3))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Option<String> {
        find_dates(text, false).first().map(|f| f.iso.clone())
    }

    #[test]
    fn only_a_text_with_a_year_run_is_read() {
        assert_eq!(year_runs("March 4, 2025"), vec![(9, 13)]);
        assert_eq!(year_runs("٢٠٢٥-٠٣-٠٤").len(), 1);
        assert!(year_runs("call 12345 or 123 or 1899 or 2101").is_empty());
        assert!(year_runs("March fourth").is_empty());
        assert_eq!(one("March 4, 20255"), None);
    }

    #[test]
    fn a_month_and_year_that_end_the_text() {
        for (text, want) in [
            ("November 2015", Some(("2015-11", 0))),
            ("Date: Nov. 2015.", Some(("2015-11", 6))),
            ("noviembre de 2015", Some(("2015-11", 0))),
            ("March, 2021 ", Some(("2021-03", 0))),
            ("Summer 2015", None),
            ("November 15", None),
            ("November 1815", None),
            ("4 November 2015x", None),
            ("2015", None),
            // Wide spaces and letters of several bytes keep offsets on
            // character boundaries.
            ("Datum:\u{3000}März\u{3000}2021", Some(("2021-03", 9))),
            ("é 2015", None),
            ("....", None),
            (" ", None),
        ] {
            let got = month_year(text);
            assert_eq!(
                got.as_ref().map(|(iso, at)| (iso.as_str(), *at)),
                want,
                "{text}"
            );
        }
        // A huge line without spaces is read once, without a panic.
        let huge = "ä".repeat(1 << 20) + " 2015";
        assert_eq!(month_year(&huge), None);
    }

    #[test]
    fn a_month_between_dashes_needs_both_dashes_and_a_year() {
        for text in [
            "04-ago-",
            "04-ago 2021x",
            "04-Aug",
            "-Aug-2021",
            "31-Feb-2021",
        ] {
            assert_eq!(one(text), None, "{text}");
        }
    }

    #[test]
    fn date_shapes_in_many_languages() {
        for (text, want) in [
            ("Published 2025-03-04T23:10:00Z", "2025-03-04"),
            ("Posted on March 4, 2025 by Ann", "2025-03-04"),
            ("Sept. 4th, 2025", "2025-09-04"),
            ("4 September 2025", "2025-09-04"),
            ("Veröffentlicht am 4. März 2025, 10:00 Uhr", "2025-03-04"),
            ("04.03.2025 um 10:00", "2025-03-04"),
            ("Publié le 4 mars 2025 à 10h00", "2025-03-04"),
            ("Publicado el 4 de marzo de 2025", "2025-03-04"),
            ("Pubblicato il 4 marzo 2025", "2025-03-04"),
            ("Publicado em 4 de março de 2025", "2025-03-04"),
            ("Gepubliceerd op 4 maart 2025", "2025-03-04"),
            ("Opublikowano 4 marca 2025", "2025-03-04"),
            ("Опубликовано 4 марта 2025 г.", "2025-03-04"),
            ("公開日：2025年3月4日", "2025-03-04"),
            ("发布时间：2025年03月04日 10:00", "2025-03-04"),
            ("2025년 3월 4일 오전 10:00", "2025-03-04"),
            ("입력 2025. 3. 4. 10:00", "2025-03-04"),
            ("نشر في 4 مارس 2025", "2025-03-04"),
            ("٤ مارس ٢٠٢٥", "2025-03-04"),
            ("Le 1er avril 2024", "2024-04-01"),
            ("25/12/2024", "2024-12-25"),
            ("By FlowGuard on 04-ago-2021 5:11:10", "2021-08-04"),
            ("Filed 27-Nov-2026", "2026-11-27"),
        ] {
            assert_eq!(one(text).as_deref(), Some(want), "{text}");
        }
    }

    #[test]
    fn slashes_follow_the_page_order() {
        assert_eq!(find_dates("3/4/2025", true)[0].iso, "2025-03-04");
        assert_eq!(find_dates("3/4/2025", false)[0].iso, "2025-04-03");
        // Only one order is valid: taken whatever the page's order.
        assert_eq!(find_dates("12/25/2024", false)[0].iso, "2024-12-25");
    }

    #[test]
    fn not_dates() {
        for text in [
            "",
            "Call 555-1234 today",
            "2025-13-45",
            "version 1.2.3",
            "May we help you in 2025?",
            "3 days ago",
            "Room 12, 2025 guests",
        ] {
            assert_eq!(one(text), None, "{text}");
        }
    }

    /// Every date of the whole text, scanned without windows.
    fn whole(text: &str, month_first: bool) -> Vec<FoundDate> {
        scan(&tokens(text, 0, text.len(), MAX_TOKENS), month_first)
    }

    #[test]
    fn windows_around_years_find_what_the_whole_scan_finds() {
        use rand::{Rng, SeedableRng};
        // Pieces dates are made of, near misses among them, in several
        // scripts, joined by spaces, marks or nothing.
        const PIECES: &[&str] = &[
            "2025",
            "1999",
            "1850",
            "2101",
            "20255",
            "4",
            "04",
            "12",
            "31",
            "3",
            "123",
            "March",
            "mars",
            "Sept",
            "märz",
            "марта",
            "de",
            "of",
            "th",
            "er",
            "º",
            "г",
            "Posted",
            "by",
            "Ann",
            "the",
            "年",
            "月",
            "日",
            "년",
            "월",
            "일",
            "٢٠٢٥",
            "٠٣",
            "２０２５",
            "-",
            "/",
            ".",
            ",",
            ":",
            "·",
            "(",
            "é",
        ];
        const JOINS: &[&str] = &[" ", " ", " ", "", "\n", "  ", "\u{a0}"];
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(5);
        let mut texts = 0;
        for _ in 0..30_000 {
            let n = rng.gen_range(1..60);
            let mut text = String::new();
            for _ in 0..n {
                text.push_str(PIECES[rng.gen_range(0..PIECES.len())]);
                text.push_str(JOINS[rng.gen_range(0..JOINS.len())]);
            }
            for month_first in [false, true] {
                assert_eq!(
                    find_dates(&text, month_first),
                    whole(&text, month_first),
                    "{text:?}"
                );
            }
            texts += usize::from(!whole(&text, false).is_empty());
        }
        // The pieces make dates often enough for the comparison to mean something.
        assert!(texts > 2_000, "{texts}");
    }

    #[test]
    fn several_dates_keep_their_places() {
        let text = "Posted March 4, 2025 · Updated 5 March 2025";
        let found = find_dates(text, false);
        assert_eq!(found.len(), 2);
        assert_eq!(&text[found[0].start..found[0].end], "March 4, 2025");
        assert_eq!(found[1].iso, "2025-03-05");
    }
}
