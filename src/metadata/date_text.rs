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

/// Tokens with their byte spans; white space separates and is dropped.
fn tokens(text: &str) -> Vec<(Tok<'_>, usize, usize)> {
    let mut out = Vec::new();
    let mut it = text.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        if c.is_whitespace() {
            continue;
        }
        if let Some(d) = digit(c) {
            let (mut v, mut n, mut end) = (d as u64, 1usize, i + c.len_utf8());
            while let Some(&(j, c2)) = it.peek() {
                let Some(d2) = digit(c2) else { break };
                v = (v * 10 + d2 as u64).min(u32::MAX as u64);
                n += 1;
                end = j + c2.len_utf8();
                it.next();
            }
            out.push((Tok::Num(v as u32, n), i, end));
        } else if c.is_alphabetic() && !is_cjk_mark(c) {
            let mut end = i + c.len_utf8();
            while let Some(&(j, c2)) = it.peek() {
                if !c2.is_alphabetic() || is_cjk_mark(c2) {
                    break;
                }
                end = j + c2.len_utf8();
                it.next();
            }
            out.push((Tok::Word(lowercase(&text[i..end])), i, end));
        } else {
            out.push((Tok::Mark(c), i, i + c.len_utf8()));
        }
        if out.len() > 4096 {
            break;
        }
    }
    out
}

/// How many tokens before its year a date may start (9 at most; a margin).
const YEAR_REACH: usize = 12;

/// True when `text` holds a maximal run of exactly four digits ([`digit`]),
/// as a year token is.
fn has_four_digit_run(text: &str) -> bool {
    let mut run = 0usize;
    for c in text.chars() {
        if digit(c).is_some() {
            run += 1;
        } else {
            if run == 4 {
                return true;
            }
            run = 0;
        }
    }
    run == 4
}

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
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
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
    // Every date shape holds a year of exactly four digits: a text without
    // such a run of digits (most lines of a page) holds none, and is not
    // tokenised (lower-casing every word and trying every month name cost
    // a third of a page's extraction time).
    if !has_four_digit_run(text) {
        return Vec::new();
    }
    let toks = tokens(text);
    // A date's year stands at most 9 tokens after its first (a day, an
    // ordinal ending, three joiners, a month, three joiners): only the
    // tokens up to YEAR_REACH before a year token can start one.
    let years: Vec<usize> = (0..toks.len())
        .filter(|&k| year(&toks, k).is_some())
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
        if let Some((iso, last)) = date_at(&toks, i, month_first) {
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
    fn only_a_text_with_a_four_digit_run_is_read() {
        assert!(has_four_digit_run("March 4, 2025"));
        assert!(has_four_digit_run("٢٠٢٥-٠٣-٠٤"));
        assert!(!has_four_digit_run("call 12345 or 123"));
        assert!(!has_four_digit_run("March fourth"));
        assert_eq!(one("March 4, 20255"), None);
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

    #[test]
    fn several_dates_keep_their_places() {
        let text = "Posted March 4, 2025 · Updated 5 March 2025";
        let found = find_dates(text, false);
        assert_eq!(found.len(), 2);
        assert_eq!(&text[found[0].start..found[0].end], "March 4, 2025");
        assert_eq!(found[1].iso, "2025-03-05");
    }
}
