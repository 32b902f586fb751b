//! Telling binary data from a page: an image, an archive or random bytes
//! decode to "text" full of control characters, which the extractor would
//! otherwise return as mojibake. Real pages, in any charset, hold almost none.

/// Characters looked at: the start of the text decides.
pub const SAMPLE_CHARS: usize = 64 * 1024;

/// Out of this many characters of the sample, more than one that is a
/// control character makes the text binary data (5 %).
pub const ONE_IN: usize = 20;

/// True when `text` (a page's bytes after decoding) is binary data: more
/// than one character in [`ONE_IN`] of its first [`SAMPLE_CHARS`] is a NUL,
/// another control character (tab, line feed, vertical tab, form feed and
/// carriage return excepted; C1 controls included) or U+FFFD (a byte
/// sequence the charset could not decode). Random bytes give about one in
/// eight; HTML in any charset next to none. Empty text is not binary.
pub fn looks_binary(text: &str) -> bool {
    let (mut total, mut control) = (0usize, 0usize);
    for c in text.chars().take(SAMPLE_CHARS) {
        total += 1;
        if is_binary_char(c) {
            control += 1;
        }
    }
    control * ONE_IN > total
}

/// A character that text does not hold (see [`looks_binary`]).
fn is_binary_char(c: char) -> bool {
    matches!(
        c,
        '\0'..='\x08' | '\x0e'..='\x1f' | '\x7f' | '\u{80}'..='\u{9f}' | '\u{fffd}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn random_bytes(n: usize, seed: u64) -> Vec<u8> {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
        (0..n).map(|_| rng.gen()).collect()
    }

    #[test]
    fn random_bytes_are_binary_in_whatever_charset_they_decode_to() {
        for seed in 0..20 {
            let bytes = random_bytes(3000, seed);
            let (text, enc, _) = crate::parse::charset::decode(&bytes[..], None);
            assert!(looks_binary(&text), "seed {seed}, read as {}", enc.name());
        }
    }

    #[test]
    fn pages_and_text_are_not_binary() {
        for name in [
            "python-blog.html",
            "news-zh.html",
            "news-ar.html",
            "docs-page.html",
        ] {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures")
                .join(name);
            let bytes = std::fs::read(path).unwrap();
            let (text, _, _) = crate::parse::charset::decode(&bytes[..], None);
            assert!(!looks_binary(&text), "{name}");
        }
        assert!(!looks_binary(""));
        assert!(!looks_binary("plain words\r\n\twith\x0cwhitespace"));
        // A stray NUL in a page is not enough; a NUL-padded file is.
        let page = format!("<p>{}</p>\0", "word ".repeat(50));
        assert!(!looks_binary(&page));
        assert!(looks_binary(&"<\0p\0>\0".repeat(100)));
    }
}
