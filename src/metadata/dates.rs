//! Dates as pages write them, normalised to ISO `YYYY-MM-DD`
//! ([`normalize_date`]), with month names in English, German, French and
//! Spanish.

use super::date_text::iso;

const MONTHS: &[(&str, u32)] = &[
    ("january", 1),
    ("february", 2),
    ("march", 3),
    ("april", 4),
    ("may", 5),
    ("june", 6),
    ("july", 7),
    ("august", 8),
    ("september", 9),
    ("sept", 9),
    ("october", 10),
    ("november", 11),
    ("december", 12),
    ("januar", 1),
    ("februar", 2),
    ("märz", 3),
    ("mai", 5),
    ("juni", 6),
    ("juli", 7),
    ("oktober", 10),
    ("dezember", 12),
    ("janvier", 1),
    ("février", 2),
    ("mars", 3),
    ("avril", 4),
    ("juin", 6),
    ("juillet", 7),
    ("août", 8),
    ("septembre", 9),
    ("octobre", 10),
    ("novembre", 11),
    ("décembre", 12),
    ("enero", 1),
    ("febrero", 2),
    ("marzo", 3),
    ("abril", 4),
    ("mayo", 5),
    ("junio", 6),
    ("julio", 7),
    ("agosto", 8),
    ("septiembre", 9),
    ("octubre", 10),
    ("noviembre", 11),
    ("diciembre", 12),
];

/// The month a word names: a full name, or its first three letters
/// (English, German, French, Spanish).
fn month_of(word: &str) -> Option<u32> {
    let w = word.to_lowercase();
    let w = w.trim_end_matches('.');
    if w.chars().count() < 3 {
        return None;
    }
    MONTHS
        .iter()
        .find(|(name, _)| *name == w)
        .or_else(|| {
            (w.chars().count() == 3)
                .then(|| MONTHS.iter().find(|(name, _)| name.starts_with(w)))
                .flatten()
        })
        .map(|&(_, m)| m)
}

/// Normalises a date as pages write it to ISO `YYYY-MM-DD`:
/// ISO 8601 and its relatives (`2025-09-04T10:00:00+02:00`, `2025/09/04`,
/// `20250904`), RFC 2822 (`Thu, 04 Sep 2025 10:00:00 GMT`), month names
/// (`September 4, 2025`, `4th Sep 2025`, `4. März 2025`), and numeric
/// day-first (`04.09.2025`, `04-09-2025`) or US month-first (`9/4/2025`)
/// dates. The time of day and the zone are dropped. `None` when the text
/// holds no valid date between 1900 and 2100.
pub fn normalize_date(s: &str) -> Option<String> {
    let s = s.trim();
    // Leading ISO-like year-month-day.
    let b = s.as_bytes();
    if b.len() >= 8 && b[..4].iter().all(u8::is_ascii_digit) {
        let digits: &str = &s[..4];
        let y: u32 = digits.parse().ok()?;
        if b.len() >= 8
            && b[4..8].iter().all(u8::is_ascii_digit)
            && b.get(8).is_none_or(|c| !c.is_ascii_digit())
        {
            // 20250904
            return iso(y, s[4..6].parse().ok()?, s[6..8].parse().ok()?);
        }
        if matches!(b[4], b'-' | b'/' | b'.') {
            let mut parts = s[5..].splitn(2, b[4] as char);
            let m: Option<u32> = parts.next().and_then(|p| p.parse().ok());
            let d: Option<u32> = parts.next().and_then(|p| {
                let n: String = p.chars().take_while(char::is_ascii_digit).collect();
                n.parse().ok()
            });
            if let (Some(m), Some(d)) = (m, d) {
                return iso(y, m, d);
            }
        }
    }
    // Words and numbers, with times of day (hh:mm[:ss]) removed.
    let mut numbers: Vec<(u32, usize)> = Vec::new(); // (value, digit count)
    let mut month = None;
    let mut seps = String::new();
    let tokens: Vec<&str> = s
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .collect();
    for t in tokens {
        if t.contains(':') {
            continue;
        }
        for piece in t.split(['-', '/', '.']) {
            let digits: String = piece.chars().take_while(char::is_ascii_digit).collect();
            let suffix = &piece[digits.len()..];
            if !digits.is_empty() {
                if matches!(suffix, "" | "st" | "nd" | "rd" | "th" | "er" | "º" | "e") {
                    if let Ok(n) = digits.parse() {
                        numbers.push((n, digits.len()));
                    }
                }
            } else if month.is_none() {
                month = month_of(piece);
            }
        }
        seps.extend(t.chars().filter(|c| matches!(c, '-' | '/' | '.')));
    }
    let year = numbers.iter().position(|&(_, len)| len == 4)?;
    let y = numbers[year].0;
    let small: Vec<u32> = numbers
        .iter()
        .enumerate()
        .filter(|&(i, &(_, len))| i != year && len <= 2)
        .map(|(_, &(n, _))| n)
        .collect();
    if let Some(m) = month {
        return iso(y, m, *small.first()?);
    }
    // Numeric only: year last, day first unless slashes say US order.
    if year != 2 || small.len() < 2 {
        return None;
    }
    let (a, b2) = (small[0], small[1]);
    if seps.starts_with('/') && a <= 12 {
        iso(y, a, b2)
    } else {
        iso(y, b2, a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_in_many_formats() {
        for (raw, want) in [
            ("2025-09-04T10:00:00+02:00", "2025-09-04"),
            ("2025-09-04", "2025-09-04"),
            ("2025-9-4 10:00", "2025-09-04"),
            ("2025/09/04", "2025-09-04"),
            ("20250904", "2025-09-04"),
            ("Thu, 04 Sep 2025 10:00:00 GMT", "2025-09-04"),
            ("September 4, 2025", "2025-09-04"),
            ("Sep 4th, 2025 at 10:15 am", "2025-09-04"),
            ("4 September 2025", "2025-09-04"),
            ("10:30 AM, Sept. 4, 2025", "2025-09-04"),
            ("4. März 2025", "2025-03-04"),
            ("04.09.2025", "2025-09-04"),
            ("9/4/2025", "2025-09-04"),
            ("25/12/2024", "2024-12-25"),
            ("29 février 2024", "2024-02-29"),
        ] {
            assert_eq!(normalize_date(raw).as_deref(), Some(want), "{raw}");
        }
        for raw in [
            "",
            "yesterday",
            "2025-13-01",
            "2023-02-29",
            "12345",
            "May",
            "१२/०४/२०२५",
        ] {
            assert_eq!(normalize_date(raw), None, "{raw}");
        }
    }
}
