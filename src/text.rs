//! Text helpers shared by the stages, below all of them: whitespace
//! collapsing, words of text, tokens of id/class names, URL hosts. Parse,
//! blocks, features, metadata and evaluation use them; this module uses no
//! stage.

/// True for CJK ideographs, kana and Hangul syllables, which are counted as a
/// word each (these scripts do not separate words with spaces).
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // hiragana, katakana
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xF900..=0xFAFF    // compatibility ideographs
        | 0x20000..=0x2FFFF) // supplementary ideographs
}

/// Collapses runs of whitespace to one space and trims the ends.
pub fn collapse_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for w in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// The evaluation's word tokens: lower-cased runs of `\w` characters
/// (letters, digits, underscore), as `../shared/tools/score.py` finds them.
pub fn word_tokens(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase())
}

/// The lower-cased host of a URL without `www.`, or `None` (relative URLs,
/// `mailto:` and the like).
pub fn url_host(url: &str) -> Option<String> {
    let (_, rest) = url.trim().split_once("://")?;
    let host = rest.split(['/', '?', '#']).next()?.rsplit('@').next()?;
    let host = host.split(':').next()?.to_ascii_lowercase();
    let host = host.strip_prefix("www.").unwrap_or(&host).to_string();
    (!host.is_empty()).then_some(host)
}

/// Appends the tokens of an `id` or `class` value: lower-cased pieces split
/// at anything but ASCII letters, at camelCase humps, without pure numbers
/// and one-letter pieces.
pub fn css_tokens(value: &str, out: &mut Vec<Box<str>>) {
    for piece in value.split(|c: char| !c.is_ascii_alphanumeric()) {
        let mut start = 0;
        let bytes = piece.as_bytes();
        for i in 1..=bytes.len() {
            let boundary = i == bytes.len()
                || (bytes[i].is_ascii_uppercase() && bytes[i - 1].is_ascii_lowercase());
            if boundary {
                let part = &piece[start..i];
                if part.len() > 1 && !part.bytes().all(|b| b.is_ascii_digit()) && out.len() < 64 {
                    // `part` is ASCII letters and digits: one pass, one
                    // allocation (this runs on every class of every element).
                    let mut t = String::with_capacity(part.len());
                    t.extend(
                        part.bytes()
                            .filter(|b| !b.is_ascii_digit())
                            .map(|b| b.to_ascii_lowercase() as char),
                    );
                    if t.len() > 1 {
                        out.push(t.into_boxed_str());
                    }
                }
                start = i;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn css_tokens_split_and_normalise() {
        let mut t = Vec::new();
        css_tokens("post-body entryContent  col-md-8 x 12345 ad2", &mut t);
        let t: Vec<&str> = t.iter().map(|s| &**s).collect();
        assert_eq!(t, ["post", "body", "entry", "content", "col", "md", "ad"]);
    }

    #[test]
    fn word_tokens_match_python_w() {
        let t: Vec<String> = word_tokens("Hello, World! snake_case 3.14 Ünïcode").collect();
        assert_eq!(t, ["hello", "world", "snake_case", "3", "14", "ünïcode"]);
    }
}
