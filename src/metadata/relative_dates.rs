//! Relative dates ("3 hours ago", "vor 2 Tagen", "gestern", "昨天")
//! resolved against a reference time: a WARC record's capture date or a
//! date the caller gives. Without a reference there is no relative date.
//! Only spans a day can be told from count (minutes, hours, days, weeks);
//! "3 months ago" names no day and is left alone.

use super::date_text::iso;

/// A reference point in time: a calendar day and, when known, the minutes
/// since midnight (UTC as a WARC date writes it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reference {
    /// Days since 1970-01-01.
    pub day: i64,
    /// Minutes since midnight, when the reference has a time of day.
    pub minute: Option<u32>,
}

impl Reference {
    /// Reads `2024-05-01`, `2024-05-01T10:00:00Z` (a WARC date) or
    /// `20240501103000` (a 14-digit capture stamp); `None` otherwise.
    pub fn parse(s: &str) -> Option<Reference> {
        let s = s.trim();
        let b = s.as_bytes();
        let digits = |r: std::ops::Range<usize>| -> Option<u32> {
            let part = s.get(r)?;
            part.bytes()
                .all(|c| c.is_ascii_digit())
                .then(|| part.parse().ok())?
        };
        let (y, m, d, rest) = if b.len() >= 10 && b[4] == b'-' && b[7] == b'-' {
            (digits(0..4)?, digits(5..7)?, digits(8..10)?, &s[10..])
        } else if b.len() >= 8 && b[..8].iter().all(u8::is_ascii_digit) {
            (digits(0..4)?, digits(4..6)?, digits(6..8)?, &s[8..])
        } else {
            return None;
        };
        iso(y, m, d)?;
        let rest = rest.trim_start_matches(['T', ' ']);
        let minute = if rest.len() >= 5 && rest.as_bytes()[2] == b':' {
            Some(rest[..2].parse::<u32>().ok()? * 60 + rest[3..5].parse::<u32>().ok()?)
        } else if rest.len() >= 4 && rest.as_bytes()[..4].iter().all(u8::is_ascii_digit) {
            Some(rest[..2].parse::<u32>().ok()? * 60 + rest[2..4].parse::<u32>().ok()?)
        } else {
            None
        };
        Some(Reference {
            day: days_from_civil(y as i64, m, d),
            minute: minute.filter(|&m| m < 24 * 60),
        })
    }

    /// The ISO day `minutes` before the reference: with no time of day
    /// known, spans under a day stay on the reference day.
    fn minus_minutes(&self, minutes: i64) -> Option<String> {
        let day = match self.minute {
            Some(now) => self.day + (now as i64 - minutes).div_euclid(24 * 60),
            None => self.day - minutes / (24 * 60),
        };
        iso_of_day(day)
    }
}

/// Days since 1970-01-01 of a civil date (proleptic Gregorian).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// ISO text of a day counted from 1970-01-01.
fn iso_of_day(z: i64) -> Option<String> {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    iso(u32::try_from(y).ok()?, m, d)
}

/// Words for "today" and "yesterday" (a day offset), lower-cased.
const DAY_WORDS: &[(&str, i64)] = &[
    ("today", 0),
    ("yesterday", 1),
    ("heute", 0),
    ("gestern", 1),
    ("aujourd'hui", 0),
    ("hier", 1),
    ("hoy", 0),
    ("ayer", 1),
    ("oggi", 0),
    ("ieri", 1),
    ("hoje", 0),
    ("ontem", 1),
    ("vandaag", 0),
    ("gisteren", 1),
    ("dzisiaj", 0),
    ("dziś", 0),
    ("wczoraj", 1),
    ("сегодня", 0),
    ("вчера", 1),
    ("今日", 0),
    ("昨日", 1),
    ("今天", 0),
    ("昨天", 1),
    ("오늘", 0),
    ("어제", 1),
    ("اليوم", 0),
    ("أمس", 1),
];

/// Unit words (prefixes, lower-cased) and their length in minutes.
const UNITS: &[(&str, i64)] = &[
    ("min", 1),
    ("minut", 1),
    ("минут", 1),
    ("分", 1),
    ("분", 1),
    ("hour", 60),
    ("hr", 60),
    ("stunde", 60),
    ("heure", 60),
    ("hora", 60),
    ("ora", 60),
    ("ore", 60),
    ("uur", 60),
    ("godzin", 60),
    ("час", 60),
    ("時間", 60),
    ("小时", 60),
    ("小時", 60),
    ("시간", 60),
    ("ساع", 60),
    ("day", 1440),
    ("tag", 1440),
    ("jour", 1440),
    ("día", 1440),
    ("dia", 1440),
    ("giorn", 1440),
    ("dag", 1440),
    ("dni", 1440),
    ("dzień", 1440),
    ("день", 1440),
    ("дня", 1440),
    ("дней", 1440),
    ("日", 1440),
    ("天", 1440),
    ("일", 1440),
    ("يوم", 1440),
    ("أيام", 1440),
    ("week", 10_080),
    ("woche", 10_080),
    ("semaine", 10_080),
    ("semana", 10_080),
    ("settiman", 10_080),
    ("tygod", 10_080),
    ("недел", 10_080),
    ("週", 10_080),
    ("周", 10_080),
    ("주", 10_080),
];

/// Phrases that make a count before them a span in the past: "ago",
/// "vor" (before the count), "il y a", "hace", "fa", "há", "geleden",
/// "temu", "назад", "前", "전", "منذ".
const AGO_AFTER: &[&str] = &["ago", "fa", "geleden", "temu", "назад", "前", "전"];
const AGO_BEFORE: &[&str] = &["vor", "il y a", "hace", "há", "ha", "منذ"];

/// The day a relative date in `text` names, counted back from `reference`:
/// "3 hours ago", "vor 2 Tagen", "il y a 3 jours", "hace 2 días", "2 giorni
/// fa", "há 3 dias", "2 dagen geleden", "3 dni temu", "2 дня назад",
/// "3日前", "3天前", "3일 전", "yesterday", "gestern", "昨天". `None` when
/// the text holds none.
pub fn resolve_relative(text: &str, reference: &Reference) -> Option<String> {
    let lower = text.to_lowercase();
    let t = lower.trim();
    if t.chars().count() > 60 {
        return None;
    }
    // A day word alone, or with a time of day ("Yesterday, 10:15").
    let head: String = t
        .chars()
        .take_while(|c| c.is_alphabetic() || *c == '\'')
        .collect();
    if let Some(&(_, back)) = DAY_WORDS.iter().find(|(w, _)| *w == head) {
        return iso_of_day(reference.day - back);
    }
    // A count, a unit and an "ago" word before or after.
    let start = t.find(|c: char| c.is_ascii_digit())?;
    let digits: String = t[start..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    let n: i64 = digits.parse().ok().filter(|&n| n < 10_000)?;
    let after = t[start + digits.len()..].trim_start();
    let unit = UNITS
        .iter()
        .filter(|(u, _)| after.starts_with(u))
        .max_by_key(|(u, _)| u.len())?;
    let before = t[..start].trim_end();
    let rest = &after[unit.0.len()..];
    let ago = AGO_BEFORE.iter().any(|w| before.ends_with(w))
        || AGO_AFTER.iter().any(|w| {
            rest.split_whitespace().take(3).any(|x| x.starts_with(w)) || rest.starts_with(w)
        });
    if !ago {
        return None;
    }
    reference.minus_minutes(n * unit.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calendar_round_trip() {
        for (y, m, d) in [(1970, 1, 1), (2000, 2, 29), (2024, 12, 31), (2025, 3, 1)] {
            let z = days_from_civil(y, m, d);
            assert_eq!(iso_of_day(z), iso(y as u32, m, d));
        }
        assert_eq!(days_from_civil(1970, 1, 2), 1);
    }

    #[test]
    fn references() {
        let r = Reference::parse("2024-03-01T02:30:00Z").unwrap();
        assert_eq!(r.minute, Some(150));
        assert_eq!(Reference::parse("20240301023000"), Some(r));
        assert!(Reference::parse("2024-02-30").is_none());
        assert!(Reference::parse("soon").is_none());
    }

    #[test]
    fn relative_dates_in_many_languages() {
        let r = Reference::parse("2024-03-01T10:00:00Z").unwrap();
        for (text, want) in [
            ("3 hours ago", "2024-03-01"),
            ("12 hours ago", "2024-02-29"),
            ("2 days ago", "2024-02-28"),
            ("vor 2 Tagen", "2024-02-28"),
            ("Vor 3 Stunden", "2024-03-01"),
            ("il y a 3 jours", "2024-02-27"),
            ("hace 2 días", "2024-02-28"),
            ("2 giorni fa", "2024-02-28"),
            ("há 3 dias", "2024-02-27"),
            ("2 dagen geleden", "2024-02-28"),
            ("3 dni temu", "2024-02-27"),
            ("2 дня назад", "2024-02-28"),
            ("3日前", "2024-02-27"),
            ("3天前", "2024-02-27"),
            ("3일 전", "2024-02-27"),
            ("1 week ago", "2024-02-23"),
            ("Yesterday, 10:15", "2024-02-29"),
            ("gestern", "2024-02-29"),
            ("昨天", "2024-02-29"),
            ("today", "2024-03-01"),
        ] {
            assert_eq!(resolve_relative(text, &r).as_deref(), Some(want), "{text}");
        }
        for text in ["3 months ago", "3 hours", "the day before", "in 3 days", ""] {
            assert_eq!(resolve_relative(text, &r), None, "{text}");
        }
        // A reference without a time of day keeps hours on its own day.
        let day = Reference::parse("2024-03-01").unwrap();
        assert_eq!(
            resolve_relative("12 hours ago", &day).as_deref(),
            Some("2024-03-01")
        );
    }
}
