//! Month names as pages write them, in the languages of our corpora: full
//! names (with the genitive forms Polish and Russian use in dates) and any
//! prefix of three letters or more (`Sept.`, `févr.`, `Okt`), when every
//! language that has the prefix agrees on the month.

use std::collections::HashMap;
use std::sync::LazyLock;

use crate::text::lowercase;

/// Full month names, January first, per language.
const NAMES: &[[&str; 12]] = &[
    // en
    [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ],
    // de
    [
        "januar",
        "februar",
        "märz",
        "april",
        "mai",
        "juni",
        "juli",
        "august",
        "september",
        "oktober",
        "november",
        "dezember",
    ],
    // de (Austria)
    [
        "jänner",
        "feber",
        "maerz",
        "april",
        "mai",
        "juni",
        "juli",
        "august",
        "september",
        "oktober",
        "november",
        "dezember",
    ],
    // fr
    [
        "janvier",
        "février",
        "mars",
        "avril",
        "mai",
        "juin",
        "juillet",
        "août",
        "septembre",
        "octobre",
        "novembre",
        "décembre",
    ],
    // es
    [
        "enero",
        "febrero",
        "marzo",
        "abril",
        "mayo",
        "junio",
        "julio",
        "agosto",
        "septiembre",
        "octubre",
        "noviembre",
        "diciembre",
    ],
    // it
    [
        "gennaio",
        "febbraio",
        "marzo",
        "aprile",
        "maggio",
        "giugno",
        "luglio",
        "agosto",
        "settembre",
        "ottobre",
        "novembre",
        "dicembre",
    ],
    // pt
    [
        "janeiro",
        "fevereiro",
        "março",
        "abril",
        "maio",
        "junho",
        "julho",
        "agosto",
        "setembro",
        "outubro",
        "novembro",
        "dezembro",
    ],
    // nl
    [
        "januari",
        "februari",
        "maart",
        "april",
        "mei",
        "juni",
        "juli",
        "augustus",
        "september",
        "oktober",
        "november",
        "december",
    ],
    // pl (nominative)
    [
        "styczeń",
        "luty",
        "marzec",
        "kwiecień",
        "maj",
        "czerwiec",
        "lipiec",
        "sierpień",
        "wrzesień",
        "październik",
        "listopad",
        "grudzień",
    ],
    // pl (genitive: "4 marca 2025")
    [
        "stycznia",
        "lutego",
        "marca",
        "kwietnia",
        "maja",
        "czerwca",
        "lipca",
        "sierpnia",
        "września",
        "października",
        "listopada",
        "grudnia",
    ],
    // ru (nominative)
    [
        "январь",
        "февраль",
        "март",
        "апрель",
        "май",
        "июнь",
        "июль",
        "август",
        "сентябрь",
        "октябрь",
        "ноябрь",
        "декабрь",
    ],
    // ru (genitive: "4 марта 2025")
    [
        "января",
        "февраля",
        "марта",
        "апреля",
        "мая",
        "июня",
        "июля",
        "августа",
        "сентября",
        "октября",
        "ноября",
        "декабря",
    ],
    // ar (Egypt, Gulf)
    [
        "يناير",
        "فبراير",
        "مارس",
        "أبريل",
        "مايو",
        "يونيو",
        "يوليو",
        "أغسطس",
        "سبتمبر",
        "أكتوبر",
        "نوفمبر",
        "ديسمبر",
    ],
    // ar (Maghreb spellings)
    [
        "جانفي",
        "فيفري",
        "مارس",
        "أفريل",
        "ماي",
        "جوان",
        "جويلية",
        "أوت",
        "سبتمبر",
        "أكتوبر",
        "نوفمبر",
        "ديسمبر",
    ],
];

/// Levantine Arabic month names of two words are matched on their first
/// word only when it is unambiguous; these single-word ones are.
const LEVANTINE: &[(&str, u32)] = &[
    ("شباط", 2),
    ("آذار", 3),
    ("نيسان", 4),
    ("أيار", 5),
    ("حزيران", 6),
    ("تموز", 7),
    ("آب", 8),
    ("أيلول", 9),
];

/// The month a word names (case ignored, a trailing `.` dropped): a full
/// name in any language above, or a prefix of at least three letters on
/// which every name that has it agrees. One look-up in a table of every
/// word that names a month, each decided once by `scan_month` (which,
/// run on every word near a year, cost a quarter of the date scan).
pub fn month_of(word: &str) -> Option<u32> {
    static MONTHS: LazyLock<HashMap<String, u32>> = LazyLock::new(|| {
        let prefixes = NAMES.iter().flatten().flat_map(|name| {
            name.char_indices()
                .map(|(i, c)| &name[..i + c.len_utf8()])
                .filter(|p| p.chars().count() >= 3)
        });
        LEVANTINE
            .iter()
            .map(|(name, _)| *name)
            .chain(prefixes)
            .filter_map(|w| Some((w.to_string(), scan_month(w)?)))
            .collect()
    });
    MONTHS
        .get(lowercase(word.trim_end_matches('.')).as_ref())
        .copied()
}

/// [`month_of`] by reading every name: the names of LEVANTINE, then the
/// first name equal to `w` (lower-cased), else the month of the names it
/// starts if they agree.
fn scan_month(w: &str) -> Option<u32> {
    if let Some(&(_, m)) = LEVANTINE.iter().find(|(name, _)| *name == w) {
        return Some(m);
    }
    let len = w.chars().count();
    if len < 3 {
        return None;
    }
    let mut found: Option<u32> = None;
    for names in NAMES {
        for (i, name) in names.iter().enumerate() {
            let m = i as u32 + 1;
            if *name == w {
                return Some(m);
            }
            if name.starts_with(w) {
                match found {
                    Some(f) if f != m => return None,
                    _ => found = Some(m),
                }
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_prefixes_in_many_languages() {
        for (word, m) in [
            ("September", 9),
            ("Sept.", 9),
            ("sep", 9),
            ("März", 3),
            ("Okt", 10),
            ("février", 2),
            ("févr.", 2),
            ("marzo", 3),
            ("maggio", 5),
            ("março", 3),
            ("mei", 5),
            ("października", 10),
            ("марта", 3),
            ("дек", 12),
            ("أكتوبر", 10),
            ("نيسان", 4),
            ("jänner", 1),
        ] {
            assert_eq!(month_of(word), Some(m), "{word}");
        }
        // Too short, not a month, or a prefix the languages disagree on.
        for word in ["ma", "today", "ju", "posted", "jun-ish"] {
            assert_eq!(month_of(word), None, "{word}");
        }
    }

    #[test]
    fn the_table_answers_as_reading_every_name_does() {
        // Every prefix of every name (short ones too), each with an extra
        // letter, upper-cased and with a dot, and words that are no month.
        let mut words: Vec<String> = ["", ".", "..", "today", "x", "mayo.", "MAI."]
            .iter()
            .map(|w| w.to_string())
            .collect();
        for name in NAMES
            .iter()
            .flatten()
            .chain(LEVANTINE.iter().map(|(n, _)| n))
        {
            for (i, c) in name.char_indices() {
                let p = &name[..i + c.len_utf8()];
                words.extend([
                    p.to_string(),
                    format!("{p}x"),
                    p.to_uppercase(),
                    format!("{p}."),
                ]);
            }
        }
        for w in &words {
            let want = scan_month(&w.trim_end_matches('.').to_lowercase());
            assert_eq!(month_of(w), want, "{w}");
        }
    }
}
