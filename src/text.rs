//! Text helpers shared by the stages, below all of them: whitespace
//! collapsing, words of text, tokens of id/class names, URL hosts. Parse,
//! blocks, features, metadata and evaluation use them; this module uses no
//! stage.

use std::borrow::Cow;
use std::ops::Range;

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

/// The ASCII bytes that are white space to `char::is_whitespace`: tab,
/// line feed, vertical tab, form feed, carriage return and space. A table:
/// indentation between tags is most of a page's text bytes, and a look-up
/// per byte costs less than the comparisons.
pub static ASCII_SPACE: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 9;
    while b <= 13 {
        t[b] = true;
        b += 1;
    }
    t[32] = true;
    t
};

/// True when `s` holds a character that is not white space: the same as
/// `!s.trim().is_empty()`, with ASCII white space skipped by table.
pub fn has_text(s: &str) -> bool {
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b < 0x80 {
            if !ASCII_SPACE[b as usize] {
                return true;
            }
            i += 1;
        } else {
            return s[i..].chars().any(|c| !c.is_whitespace());
        }
    }
    false
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

/// Words in `text` as the block splitter counts them: a run of letters,
/// digits or `_` is one word, and so is each CJK character (scripts
/// written without spaces).
pub fn count_words(text: &str) -> usize {
    let mut words = 0;
    let mut in_word = false;
    for c in text.chars() {
        let word_char = c.is_alphanumeric() || c == '_';
        let cjk = word_char && is_cjk(c);
        if word_char && (cjk || !in_word) {
            words += 1;
        }
        in_word = word_char && !cjk;
    }
    words
}

/// The evaluation's word tokens: lower-cased runs of `\w` characters
/// (letters, digits, underscore), as `../shared/tools/score.py` finds them.
pub fn word_tokens(text: &str) -> impl Iterator<Item = String> + '_ {
    word_tokens_borrowed(text).map(Cow::into_owned)
}

/// [`word_tokens`] without a copy of the words that are lower-case already.
pub fn word_tokens_borrowed(text: &str) -> impl Iterator<Item = Cow<'_, str>> + '_ {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(lowercase)
}

/// `word` lower-cased, copied only when lower-casing changes it (most
/// words of a page are lower-case already).
pub fn lowercase(word: &str) -> Cow<'_, str> {
    let unchanged = if word.is_ascii() {
        !word.bytes().any(|b| b.is_ascii_uppercase())
    } else {
        word.chars().all(|c| {
            let mut l = c.to_lowercase();
            l.next() == Some(c) && l.next().is_none()
        })
    };
    if unchanged {
        Cow::Borrowed(word)
    } else {
        Cow::Owned(word.to_lowercase())
    }
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

/// The id/class tokens of many elements in one buffer, so a page's
/// elements cost no allocation each: tokens are lower-cased pieces of the
/// attribute values split at anything but ASCII letters, at camelCase humps,
/// without digits, pure numbers and one-letter pieces, at most 64 an element.
/// An element holds the range of its token indices ([`push_element`]
/// returns it, [`get`] reads it back); elements with the same attribute
/// values may share one range (the block splitter tokenises a repeated
/// class string once).
///
/// [`push_element`]: TokenArena::push_element
/// [`get`]: TokenArena::get
#[derive(Debug, Clone, Default)]
pub struct TokenArena {
    /// All tokens, concatenated.
    text: String,
    /// End offset in `text` of each token.
    ends: Vec<u32>,
}

impl TokenArena {
    /// Most tokens kept for one element.
    pub const MAX_PER_ELEMENT: usize = 64;

    /// Appends the tokens of one element's attribute values (its `id` and
    /// `class`, in that order) and returns the range of their indices.
    pub fn push_element<'a>(&mut self, values: impl IntoIterator<Item = &'a str>) -> Range<u32> {
        let first = self.ends.len();
        for value in values {
            self.push_value(value, first);
        }
        first as u32..self.ends.len() as u32
    }

    /// The tokens at the indices of `range` (an element's, from
    /// [`push_element`](Self::push_element)); indices past the end are
    /// ignored.
    pub fn get(&self, range: Range<u32>) -> Tokens<'_> {
        let n = self.ends.len();
        let end = (range.end as usize).min(n);
        let start = (range.start as usize).min(end);
        let prev = match start {
            0 => 0,
            i => self.ends[i - 1],
        };
        Tokens {
            text: &self.text,
            ends: self.ends[start..end].iter(),
            prev,
        }
    }

    /// Tokens pushed (a range shared by several elements counts once).
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True when no element has a token.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Appends the tokens of one value, counting the element's tokens from
    /// index `first`.
    fn push_value(&mut self, value: &str, first: usize) {
        for_each_id_class_part(value, |part| self.push_part(part, first));
    }

    /// Appends one part of a piece (ASCII letters and digits): lower-cased,
    /// digits dropped, when more than one letter remains (and the element
    /// has room left).
    fn push_part(&mut self, part: &str, first: usize) {
        let digits = part.bytes().filter(u8::is_ascii_digit).count();
        if part.len() - digits < 2 || self.ends.len() - first >= Self::MAX_PER_ELEMENT {
            return;
        }
        let start = self.text.len();
        if digits == 0 {
            self.text.push_str(part);
            self.text[start..].make_ascii_lowercase();
        } else {
            self.text.extend(
                part.bytes()
                    .filter(|b| !b.is_ascii_digit())
                    .map(|b| b.to_ascii_lowercase() as char),
            );
        }
        self.ends.push(self.text.len() as u32);
    }
}

/// Calls `each` with the parts of one `id` or class value, in order: runs
/// of ASCII letters and digits, cut at camelCase humps
/// (`photoCaption-text_2x`: `photo`, `Caption`, `text`, `2x`). Anything else
/// (`-`, `_`, non-ASCII characters) separates parts. [`TokenArena`] and the
/// caption mark (`blocks::captions`) read values through this one splitter,
/// so both cut a class name alike. A callback rather than an iterator: this
/// runs on every id and class of every element, and the same cuts as an
/// iterator (`std::iter::from_fn`) cost 0.8 % more instructions per page
/// (callgrind, 100 WCXB dev pages: 4,202 M against 4,170 M).
pub fn for_each_id_class_part<'a>(value: &'a str, mut each: impl FnMut(&'a str)) {
    // Bytes, not chars: a non-ASCII character's bytes are never ASCII
    // letters or digits, so they separate parts exactly as the character
    // does, and every cut lies between two ASCII bytes (a char boundary).
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
                each(&value[start..i]);
                start = i;
            }
            if end {
                break;
            }
            i += 1;
        }
    }
}

/// The tokens of one element in a [`TokenArena`], in order.
#[derive(Debug, Clone)]
pub struct Tokens<'a> {
    text: &'a str,
    ends: std::slice::Iter<'a, u32>,
    prev: u32,
}

impl<'a> Iterator for Tokens<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let end = *self.ends.next()?;
        let start = std::mem::replace(&mut self.prev, end);
        self.text.get(start as usize..end as usize)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.ends.size_hint()
    }
}

impl ExactSizeIterator for Tokens<'_> {}

/// True when `s` starts with `prefix` in any ASCII case, compared in place
/// (no lower-cased copy of `s`).
pub fn starts_with_ignore_ascii_case(s: &[u8], prefix: &[u8]) -> bool {
    s.len() >= prefix.len() && s[..prefix.len()].eq_ignore_ascii_case(prefix)
}

/// True when `s` ends with `suffix` in any ASCII case, compared in place.
pub fn ends_with_ignore_ascii_case(s: &[u8], suffix: &[u8]) -> bool {
    s.len() >= suffix.len() && s[s.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
}

/// True when `hay` holds `needle` in any ASCII case, compared in place (an
/// empty needle is in every text).
pub fn contains_ignore_ascii_case(hay: &[u8], needle: &[u8]) -> bool {
    needle.is_empty()
        || hay
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_words_counts_as_the_block_splitter_does() {
        for text in [
            "Hello, wörld_1 and x-y.",
            "東京タワーの夜景 2024年",
            "  ",
            "Ünïcödé — naïve café; 3.14",
            "한국어 문장 abc漢字def",
        ] {
            let html = format!("<p>{text}</p>");
            let doc = crate::parse::parse(html.as_bytes(), None, Default::default()).unwrap();
            let blocks = crate::blocks::split(&doc);
            let split: u32 = blocks.blocks.iter().map(|b| b.words).sum();
            assert_eq!(count_words(text), split as usize, "{text:?}");
        }
        assert_eq!(count_words("東京"), 2);
        assert_eq!(count_words("the quick fox"), 3);
    }

    #[test]
    fn the_space_table_and_has_text_agree_with_the_standard_library() {
        for b in 0u8..128 {
            assert_eq!(ASCII_SPACE[b as usize], (b as char).is_whitespace(), "{b}");
        }
        assert!(ASCII_SPACE[128..].iter().all(|s| !s));
        let pieces = [
            " ", "\t", "\n", "\x0b", "\x0c", "\r", "\u{a0}", "\u{85}", "\u{3000}", "\u{2029}",
            "\x1c", "a", "é", "字", "\u{200b}",
        ];
        // Every string of up to three pieces.
        let mut n = 0;
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    for s in [a.to_string(), format!("{a}{b}"), format!("{a}{b}{c}")] {
                        assert_eq!(has_text(&s), !s.trim().is_empty(), "{s:?}");
                        n += 1;
                    }
                }
            }
        }
        assert!(n > 3000);
        assert!(!has_text(""));
    }

    #[test]
    fn ascii_case_blind_tests_compare_in_place() {
        assert!(starts_with_ignore_ascii_case(b"XMLNS:xlink", b"xmlns"));
        assert!(!starts_with_ignore_ascii_case(b"xml", b"xmlns"));
        assert!(ends_with_ignore_ascii_case(b"post-AUTHOR", b"-author"));
        assert!(!ends_with_ignore_ascii_case(b"or", b"-author"));
        assert!(contains_ignore_ascii_case(b"text/JSON+ld", b"json"));
        assert!(contains_ignore_ascii_case(b"", b""));
        assert!(!contains_ignore_ascii_case(b"js", b"json"));
        // Non-ASCII bytes match only themselves.
        assert!(contains_ignore_ascii_case(
            "Ünter".as_bytes(),
            "Ün".as_bytes()
        ));
        assert!(!contains_ignore_ascii_case(
            "ünter".as_bytes(),
            "Ün".as_bytes()
        ));
    }

    #[test]
    fn css_tokens_split_and_normalise() {
        let mut arena = TokenArena::default();
        let first = arena.push_element(["nav1", "post-body entryContent  col-md-8 x 12345 ad2"]);
        let many = "a1 ".repeat(10) + &"ab ".repeat(100);
        let second = arena.push_element([many.as_str()]);
        let t: Vec<&str> = arena.get(first).collect();
        assert_eq!(
            t,
            ["nav", "post", "body", "entry", "content", "col", "md", "ad"]
        );
        assert_eq!(arena.get(second.clone()).len(), TokenArena::MAX_PER_ELEMENT);
        assert_eq!(
            arena.get(second.start..u32::MAX).len(),
            TokenArena::MAX_PER_ELEMENT
        );
    }

    #[test]
    fn word_tokens_match_python_w() {
        let t: Vec<String> = word_tokens("Hello, World! snake_case 3.14 Ünïcode").collect();
        assert_eq!(t, ["hello", "world", "snake_case", "3", "14", "ünïcode"]);
    }
}
