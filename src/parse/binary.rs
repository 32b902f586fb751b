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
    // Byte by byte rather than char by char, and eight printable ASCII
    // bytes at a time where it can: this runs on every page before parsing
    // (it took 2 % of the pipeline as a `chars()` loop). Same count as
    // the char loop of the tests over `text.chars().take(SAMPLE_CHARS)`.
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let b = text.as_bytes();
    let (mut total, mut control) = (0usize, 0usize);
    let mut i = 0;
    while i < b.len() && total < SAMPLE_CHARS {
        if total + 8 <= SAMPLE_CHARS {
            if let Some(word) = b.get(i..i + 8) {
                let w = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
                let non_ascii = w & HIGH;
                let below_space = w.wrapping_sub(ONES * 0x20) & !w & HIGH;
                let del = w ^ (ONES * 0x7f);
                let has_del = del.wrapping_sub(ONES) & !del & HIGH;
                if non_ascii | below_space | has_del == 0 {
                    total += 8;
                    i += 8;
                    continue;
                }
            }
        }
        let x = b[i];
        total += 1;
        if x < 0x80 {
            control += usize::from(matches!(x, 0x00..=0x08 | 0x0e..=0x1f | 0x7f));
            i += 1;
        } else {
            // `text` is UTF-8: the bytes a lead byte announces are there.
            let next = b.get(i + 1).copied().unwrap_or(0);
            let c1 = x == 0xc2 && (0x80..=0x9f).contains(&next);
            let replacement = x == 0xef && next == 0xbf && b.get(i + 2) == Some(&0xbd);
            control += usize::from(c1 || replacement);
            i += match x {
                0xf0.. => 4,
                0xe0.. => 3,
                _ => 2,
            };
        }
    }
    control * ONE_IN > total
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// A character that text does not hold: the definition the byte loop
    /// of [`looks_binary`] counts.
    fn is_binary_char(c: char) -> bool {
        matches!(
            c,
            '\0'..='\x08' | '\x0e'..='\x1f' | '\x7f' | '\u{80}'..='\u{9f}' | '\u{fffd}'
        )
    }

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

    /// The definition, char by char.
    fn looks_binary_by_chars(text: &str) -> bool {
        let (mut total, mut control) = (0usize, 0usize);
        for c in text.chars().take(SAMPLE_CHARS) {
            total += 1;
            control += usize::from(is_binary_char(c));
        }
        control * ONE_IN > total
    }

    #[test]
    fn the_byte_count_is_the_char_count() {
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        let alphabet = [
            'a', ' ', '\n', '\0', '\x07', '\x7f', 'é', '\u{85}', '\u{fffd}', '€', '😀',
        ];
        for round in 0..400 {
            // Mostly printable text with a varying share of the rest, some
            // longer than the sample.
            let len = if round % 40 == 0 {
                SAMPLE_CHARS + 500
            } else {
                rng.gen_range(0..300)
            };
            let rare = rng.gen_range(0..40);
            let text: String = (0..len)
                .map(|_| {
                    if rng.gen_range(0..100) < rare {
                        alphabet[rng.gen_range(0..alphabet.len())]
                    } else {
                        'x'
                    }
                })
                .collect();
            assert_eq!(
                looks_binary(&text),
                looks_binary_by_chars(&text),
                "round {round}"
            );
        }
        // At the sample's edge: controls just past it do not count.
        let edge = format!("{}{}", "x".repeat(SAMPLE_CHARS - 3), "\0".repeat(4000));
        assert_eq!(looks_binary(&edge), looks_binary_by_chars(&edge));
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
