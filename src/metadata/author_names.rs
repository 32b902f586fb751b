//! An author's name as a byline or a tag writes it, cleaned of what is
//! not the name ([`clean_author`]): the byline's label ("By", "Posted by:",
//! "Written by", also glued to the name as `ByAmy Roeder` when the page's
//! markup put no space between them), a date beside the name ("Luke Kim ·
//! December 17, 2025", "03/10/2023 by WSET Global"), an update cue after
//! it; and what is no name at all: a label alone ("The Author", "Written
//! By"), a comment's "says:", a template's unfilled key
//! (`page.head.extra.author`), a date alone.

use super::date_text::find_dates;

/// Labels before a name, lower-cased, longest first so that "posted by"
/// is cut whole before "by" is tried.
const LABELS: &[&str] = &[
    "view all posts by",
    "authored by",
    "reviewed by",
    "written by",
    "posted by",
    "recipe by",
    "post by",
    "story by",
    "words by",
    "author",
    "autorin",
    "autor",
    "auteur",
    "door",
    "von",
    "par",
    "por",
    "by",
];

/// A whole byline that names no one, lower-cased, without a final colon.
const NO_NAME: &[&str] = &[
    "the author",
    "author",
    "about the author",
    "written by",
    "posted by",
    "by",
    "view more posts",
    "view all posts",
    "updated",
    "last updated",
    "published",
];

/// Weekday names a date may start with ("Sat Dec 17, 2023"), lower-cased.
const WEEKDAYS: &[&str] = &[
    "mon",
    "tue",
    "tues",
    "wed",
    "thu",
    "thur",
    "thurs",
    "fri",
    "sat",
    "sun",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

/// Words that start an update or publication note glued after a name
/// ("David JacksonLast updated on: …"), lower-cased.
const TRAILING_NOTES: &[&str] = &["last updated", "updated", "published", "posted on"];

/// Separators left at a cut's edges.
fn is_edge(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '|' | '-' | '–' | '—' | '·' | '•' | ',' | ':' | ';' | '/' | '»' | '«'
        )
}

/// The name in a byline or an author tag, `None` when it names no one.
pub fn clean_author(raw: &str) -> Option<String> {
    let text = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    let text = without_date(&text);
    let text = without_label(text.trim_matches(is_edge));
    let text = without_trailing_note(text);
    let name = text.trim_matches(is_edge);
    let lower = name.to_lowercase();
    let key = lower.trim_end_matches(':').trim();
    // A form's label ("Name *") or a comment's "says:" names no one.
    if NO_NAME.contains(&key)
        || key.ends_with(" says")
        || name.contains('*')
        || is_template_key(name)
    {
        return None;
    }
    // What a date left ("Sat,") is no name.
    if name.chars().filter(|c| c.is_alphabetic()).count() < 4 && text.len() < raw.trim().len() {
        return None;
    }
    is_name_like(name).then(|| name.to_string())
}

/// The text without a date in it: the part before a date that ends the
/// text (a byline's "Name · March 4, 2024 at 10:15"), else the part after
/// a date that starts it ("03/10/2023 by Name"). A name cut in two by a
/// date keeps its first part.
fn without_date(text: &str) -> String {
    // Markup without spaces glues a name to a month ("Luke KimDecember
    // 17, 2025"): dates are looked for with a space at each such seam.
    let mut spaced = String::with_capacity(text.len() + 8);
    let mut origin: Vec<usize> = Vec::with_capacity(text.len() + 8);
    let mut prev: Option<char> = None;
    for (i, c) in text.char_indices() {
        if prev.is_some_and(char::is_lowercase) && c.is_uppercase() {
            spaced.push(' ');
            origin.push(i);
        }
        spaced.push(c);
        origin.extend(std::iter::repeat_n(i, c.len_utf8()));
        prev = Some(c);
    }
    origin.push(text.len());
    let Some(found) = find_dates(&spaced, true).into_iter().next() else {
        return text.to_string();
    };
    let d = super::date_text::FoundDate {
        start: origin[found.start],
        end: origin[found.end],
        ..found
    };
    let before = text[..d.start].trim_matches(is_edge);
    let before = before
        .strip_suffix(" on")
        .or_else(|| before.strip_suffix(" On"))
        .unwrap_or(before);
    // The date's weekday ("» Sat Dec 17, 2023") goes with it.
    let before = match before.rsplit_once(' ') {
        Some((head, last))
            if WEEKDAYS.contains(&last.trim_end_matches([',', '.']).to_lowercase().as_str()) =>
        {
            head.trim_matches(is_edge)
        }
        _ => before,
    };
    if before.chars().any(char::is_alphabetic) {
        return before.to_string();
    }
    text[d.end..].to_string()
}

/// The text without a label before the name; a label glued to the name
/// ("ByAmy") counts only when a capital letter follows it.
fn without_label(text: &str) -> &str {
    for label in LABELS {
        let Some(head) = text.get(..label.len()) else {
            continue;
        };
        if !head.eq_ignore_ascii_case(label) {
            continue;
        }
        let rest = &text[label.len()..];
        let Some(next) = rest.chars().next() else {
            return text;
        };
        if next == ':' || next.is_whitespace() {
            return rest.trim_start_matches(|c: char| c == ':' || c.is_whitespace());
        }
        if next.is_uppercase() && *label != "door" {
            return rest;
        }
    }
    text
}

/// The text before an update or publication note glued after the name.
fn without_trailing_note(text: &str) -> &str {
    let lower = text.to_lowercase();
    if lower.len() != text.len() {
        return text;
    }
    TRAILING_NOTES
        .iter()
        .filter_map(|n| lower.find(n).filter(|&p| p > 0))
        .min()
        .map_or(text, |p| &text[..p])
}

/// A template's unfilled key: dotted words without a space
/// (`page.head.extra.author`).
fn is_template_key(s: &str) -> bool {
    !s.contains(char::is_whitespace)
        && s.matches('.').count() >= 2
        && s.split('.')
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_'))
}

/// A plausible person or organisation name: not a URL, not a `@handle`,
/// not a sentence.
pub fn is_name_like(s: &str) -> bool {
    !s.is_empty()
        && !s.contains("://")
        && !s.starts_with("www.")
        && !s.starts_with('@')
        && s.chars().count() <= 100
        && s.chars().any(char::is_alphabetic)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bylines_are_cut_to_the_name() {
        for (raw, want) in [
            ("By Jane Doe", Some("Jane Doe")),
            (
                "By: Melissa Dittmann Tracey",
                Some("Melissa Dittmann Tracey"),
            ),
            ("Posted by:Idle Cartulary", Some("Idle Cartulary")),
            ("ByAmy Roeder", Some("Amy Roeder")),
            ("Written byDan Pantelo", Some("Dan Pantelo")),
            ("Author Isaiah Shelton", Some("Isaiah Shelton")),
            ("Recipe by PJ Hamel", Some("PJ Hamel")),
            ("Von Anna Berg", Some("Anna Berg")),
            ("Byron Smith", Some("Byron Smith")),
            ("Luke KimDecember 17, 2025", Some("Luke Kim")),
            ("Andrew Gerrand 4 August 2010", Some("Andrew Gerrand")),
            (
                "Silverback Strategies | October 15, 2025",
                Some("Silverback Strategies"),
            ),
            ("03/10/2023 by WSET Global", Some("WSET Global")),
            ("By: Gull Team on 04-08-2021 5:11:10", Some("Gull Team")),
            (
                "David JacksonLast updated on:October 1, 2025",
                Some("David Jackson"),
            ),
            ("Anna Berg, 4. März 2024", Some("Anna Berg")),
            ("The Author", None),
            ("Written By", None),
            ("Jiobal says:", None),
            ("page.head.extra.author", None),
            ("Sat, 20 Dec, 2025 - 06:36", None),
            (
                "Post by galitsyn » Sat Dec 16, 2023 9:48 pm",
                Some("galitsyn"),
            ),
            ("Anonymous", Some("Anonymous")),
            ("Your Name: *", None),
            ("Updated", None),
            ("View more posts", None),
            ("", None),
            ("https://example.org/ann", None),
        ] {
            assert_eq!(clean_author(raw).as_deref(), want, "{raw}");
        }
    }
}
