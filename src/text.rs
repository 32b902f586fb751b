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
    // Bytes, not chars: a non-ASCII character's bytes are never ASCII
    // letters or digits, so they separate pieces exactly as the character
    // does. This runs on every id and class of every element.
    let bytes = value.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_alphanumeric() {
            i += 1;
            continue;
        }
        // One piece of ASCII letters and digits, cut at camelCase humps.
        let mut start = i;
        i += 1;
        loop {
            let end = i == bytes.len() || !bytes[i].is_ascii_alphanumeric();
            if end || (bytes[i].is_ascii_uppercase() && bytes[i - 1].is_ascii_lowercase()) {
                push_css_token(&bytes[start..i], out);
                start = i;
            }
            if end {
                break;
            }
            i += 1;
        }
    }
}

/// Appends one part of a [`css_tokens`] piece: lower-cased, digits dropped,
/// when more than one letter remains (and fewer than 64 tokens are kept).
fn push_css_token(part: &[u8], out: &mut Vec<Box<str>>) {
    let letters = part.iter().filter(|b| !b.is_ascii_digit()).count();
    if letters < 2 || out.len() >= 64 {
        return;
    }
    let mut t = String::with_capacity(letters);
    t.extend(
        part.iter()
            .filter(|b| !b.is_ascii_digit())
            .map(|b| b.to_ascii_lowercase() as char),
    );
    out.push(t.into_boxed_str());
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
