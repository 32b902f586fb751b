//! Turning raw bytes into text: gzip, BOM, declared and sniffed charsets.
//!
//! html5ever only takes UTF-8 and ignores `<meta charset>`, so the decoding
//! is ours. The order follows the HTML standard's encoding sniffing: a byte
//! order mark wins, then an explicit override (an HTTP or WARC header), then a
//! `<meta charset>` / `<meta http-equiv>` prescan of the first bytes, then
//! detection: UTF-16 without a byte order mark by its zero bytes, else
//! chardetng. Decoding itself is encoding_rs, which replaces
//! malformed sequences, so any bytes give a string.

use std::borrow::Cow;
use std::io::Read;

use encoding_rs::{Encoding, UTF_8};

/// How many leading bytes the `<meta>` prescan reads (the standard says 1024;
/// many real pages put a long `<head>` before it, so look further).
const PRESCAN_BYTES: usize = 4096;
/// How many bytes chardetng sees when guessing.
const DETECT_BYTES: usize = 64 * 1024;

/// Where the encoding of a page came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CharsetSource {
    /// A byte order mark.
    Bom,
    /// The caller's override (HTTP or WARC header).
    Override,
    /// A `<meta>` declaration in the page.
    Meta,
    /// The bytes were valid UTF-8.
    Utf8,
    /// Statistical detection (chardetng).
    Detected,
}

/// Returns true when `bytes` start with the gzip magic number.
pub fn is_gzip(bytes: &[u8]) -> bool {
    bytes.len() >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b
}

/// Decompresses gzip data, reading at most `max_bytes` of output (so a gzip
/// bomb costs no more than `max_bytes`). Returns the bytes and whether the
/// output was cut at the limit.
///
/// Every member is read to its end, where its CRC-32 and length (ISIZE) are
/// checked, unless the output was cut at `max_bytes` (its tail is then never
/// read, and what decoded is kept). A damaged stream (corrupt deflate data,
/// a checksum or length that does not match, a stream cut short) gives no
/// bytes and the error: a page is whole or refused, never silently garbled.
pub fn gunzip_bounded(bytes: &[u8], max_bytes: usize) -> (Vec<u8>, bool, Option<std::io::Error>) {
    // The last member's trailer holds its size (modulo 2^32): a hint that
    // spares the output's doublings, capped in case the trailer lies.
    let hint = bytes
        .len()
        .checked_sub(4)
        .and_then(|at| bytes[at..].try_into().ok())
        .map_or(0, |t| u32::from_le_bytes(t) as usize)
        .min(bytes.len().saturating_mul(32))
        .min(max_bytes.saturating_add(1));
    match read_bounded_into(
        Vec::with_capacity(hint),
        flate2::read::MultiGzDecoder::new(bytes),
        max_bytes,
    ) {
        (_, false, Some(e)) => (Vec::new(), false, Some(e)),
        (out, cut, _) => (out, cut, None),
    }
}

/// How many bytes of a gzip file are worth reading for a page of at most
/// `max_bytes`: deflate never grows data by more than 5 bytes per 64 KiB
/// stored block, so `max_bytes` of page need at most `max_bytes` plus 1/64
/// plus 64 KiB of header room (file name, extra field). A longer file is
/// read this far only: a real stream yields more than `max_bytes` from it
/// (the page is cut and flagged); a stream that does not (padding, empty
/// blocks) is refused as cut short instead of costing unbounded memory.
pub fn gzip_input_bound(max_bytes: usize) -> usize {
    max_bytes
        .saturating_add(max_bytes / 64)
        .saturating_add(64 * 1024)
}

/// Reads at most `max_bytes` from a (decompressing) reader. Returns the
/// bytes, whether there was more, and the error that stopped reading early,
/// if any (the bytes read before it are kept).
pub fn read_bounded(
    reader: impl Read,
    max_bytes: usize,
) -> (Vec<u8>, bool, Option<std::io::Error>) {
    read_bounded_into(Vec::new(), reader, max_bytes)
}

/// [`read_bounded`] into `out` (empty, perhaps with capacity reserved).
fn read_bounded_into(
    mut out: Vec<u8>,
    reader: impl Read,
    max_bytes: usize,
) -> (Vec<u8>, bool, Option<std::io::Error>) {
    let mut limited = reader.take((max_bytes as u64).saturating_add(1));
    let err = limited.read_to_end(&mut out).err();
    let truncated = out.len() > max_bytes;
    out.truncate(max_bytes);
    (out, truncated, err)
}

/// Decodes a page's bytes to text. `override_label` is a charset label from
/// outside the page (HTTP `Content-Type`, WARC header), if any. Bytes that
/// are UTF-8 already are the text: borrowed bytes are borrowed, owned ones
/// become the string, neither is copied.
pub fn decode<'a>(
    bytes: impl Into<Cow<'a, [u8]>>,
    override_label: Option<&str>,
) -> (Cow<'a, str>, &'static Encoding, CharsetSource) {
    let bytes: Cow<'a, [u8]> = bytes.into();
    if let Some((enc, bom_len)) = Encoding::for_bom(&bytes) {
        let (text, _) = enc.decode_without_bom_handling(&bytes[bom_len..]);
        return (Cow::Owned(text.into_owned()), enc, CharsetSource::Bom);
    }
    if let Some(enc) = override_label.and_then(|l| Encoding::for_label(l.trim().as_bytes())) {
        return (decode_with(bytes, enc).into(), enc, CharsetSource::Override);
    }
    if let Some(enc) = sniff_utf16(&bytes) {
        return (decode_with(bytes, enc).into(), enc, CharsetSource::Detected);
    }
    // One validation, which also makes the text when it passes.
    let utf8: Result<Cow<'a, str>, Cow<'a, [u8]>> = match bytes {
        Cow::Borrowed(b) => std::str::from_utf8(b)
            .map(Cow::Borrowed)
            .map_err(|_| Cow::Borrowed(b)),
        Cow::Owned(v) => String::from_utf8(v)
            .map(Cow::Owned)
            .map_err(|e| Cow::Owned(e.into_bytes())),
    };
    match utf8 {
        Ok(text) => {
            let declared = prescan_meta(text.as_bytes());
            if let Some(enc) = declared {
                // A page that declares a legacy charset but is valid UTF-8
                // with non-ASCII bytes is almost surely UTF-8 (multi-byte
                // sequences do not arise by chance in legacy text);
                // templates often keep a stale meta. Declared UTF-8 and
                // valid: the text as it is.
                let lying = enc != UTF_8 && !text.is_ascii();
                if !(lying || enc == UTF_8) {
                    let decoded = decode_with(Cow::Borrowed(text.as_bytes()), enc);
                    return (decoded.into(), enc, CharsetSource::Meta);
                }
            }
            let source = if declared == Some(UTF_8) {
                CharsetSource::Meta
            } else {
                CharsetSource::Utf8
            };
            (text, UTF_8, source)
        }
        Err(bytes) => {
            if let Some(enc) = prescan_meta(&bytes) {
                return (decode_with(bytes, enc).into(), enc, CharsetSource::Meta);
            }
            let mut det = chardetng::EncodingDetector::new(chardetng::Iso2022JpDetection::Allow);
            det.feed(
                &bytes[..bytes.len().min(DETECT_BYTES)],
                bytes.len() <= DETECT_BYTES,
            );
            let enc = det.guess(None, chardetng::Utf8Detection::Allow);
            (decode_with(bytes, enc).into(), enc, CharsetSource::Detected)
        }
    }
}

/// UTF-16 without a byte order mark, told by its zero bytes: markup is
/// ASCII, so in UTF-16LE most odd bytes of the start are 0 and almost no
/// even ones (the other way round in UTF-16BE). Other text and binary data
/// have no such pattern (a NUL-padded file is left to the binary check).
fn sniff_utf16(bytes: &[u8]) -> Option<&'static Encoding> {
    let head = &bytes[..bytes.len().min(PRESCAN_BYTES) & !1];
    let pairs = head.len() / 2;
    if pairs < 8 {
        return None;
    }
    let zeros = |at: usize| head.iter().skip(at).step_by(2).filter(|&&b| b == 0).count();
    let (even, odd) = (zeros(0), zeros(1));
    // Over 40 % zeros on one side, under 5 % on the other.
    let mostly = |n: usize| n * 5 > pairs * 2;
    let few = |n: usize| n * 20 < pairs;
    if mostly(odd) && few(even) {
        Some(encoding_rs::UTF_16LE)
    } else if mostly(even) && few(odd) {
        Some(encoding_rs::UTF_16BE)
    } else {
        None
    }
}

fn decode_with(bytes: Cow<'_, [u8]>, enc: &'static Encoding) -> String {
    if let Cow::Owned(text) = enc.decode_without_bom_handling(&bytes).0 {
        return text;
    }
    // Borrowed: the bytes are their own text (valid UTF-8), so they become
    // the string without a copy when they are owned.
    match String::from_utf8(bytes.into_owned()) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// Finds a charset declared by `<meta charset=...>` or
/// `<meta http-equiv="Content-Type" content="...; charset=...">` in the
/// first bytes. UTF-16 declarations are read as UTF-8, as the standard says
/// (a page that really is UTF-16 has a BOM or is detected).
pub fn prescan_meta(bytes: &[u8]) -> Option<&'static Encoding> {
    let head = &bytes[..bytes.len().min(PRESCAN_BYTES)];
    let lower: Vec<u8> = head.iter().map(|b| b.to_ascii_lowercase()).collect();
    let mut from = 0;
    while let Some(pos) = find(&lower[from..], b"<meta") {
        let start = from + pos + 5;
        let end = lower[start..]
            .iter()
            .position(|&b| b == b'>')
            .map_or(lower.len(), |e| start + e);
        let tag = &lower[start..end];
        if let Some(c) = find(tag, b"charset") {
            let mut rest = &tag[c + 7..];
            rest = trim_start(rest);
            if let Some(r) = rest.strip_prefix(b"=") {
                let r = trim_start(r);
                let r = r
                    .strip_prefix(b"\"")
                    .or_else(|| r.strip_prefix(b"'"))
                    .unwrap_or(r);
                let len = r
                    .iter()
                    .position(|&b| {
                        matches!(
                            b,
                            b'"' | b'\'' | b';' | b' ' | b'/' | b'>' | b'\t' | b'\n' | b'\r'
                        )
                    })
                    .unwrap_or(r.len());
                if let Some(enc) = Encoding::for_label(&r[..len]) {
                    let enc = if enc == encoding_rs::UTF_16LE || enc == encoding_rs::UTF_16BE {
                        UTF_8
                    } else {
                        enc
                    };
                    // x-user-defined is never what a page means.
                    if enc != encoding_rs::X_USER_DEFINED {
                        return Some(enc);
                    }
                }
            }
        }
        from = end.min(lower.len());
        if from >= lower.len() {
            break;
        }
    }
    None
}

fn trim_start(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|b| b.is_ascii_whitespace()).count();
    &s[n..]
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bom_wins_over_meta() {
        let mut bytes = vec![0xEF, 0xBB, 0xBF];
        bytes.extend_from_slice("<meta charset=windows-1252>café".as_bytes());
        let (text, enc, src) = decode(&bytes, None);
        assert_eq!(enc, UTF_8);
        assert_eq!(src, CharsetSource::Bom);
        assert!(text.ends_with("café"));
    }

    #[test]
    fn utf16_without_bom_is_sniffed() {
        let html = "<html><body><p>Hello, wörld: the tide is in.</p></body></html>";
        let le: Vec<u8> = html.encode_utf16().flat_map(|u| u.to_le_bytes()).collect();
        let be: Vec<u8> = html.encode_utf16().flat_map(|u| u.to_be_bytes()).collect();
        for (bytes, want) in [(le, encoding_rs::UTF_16LE), (be, encoding_rs::UTF_16BE)] {
            let (text, enc, source) = decode(bytes, None);
            assert_eq!((&*text, enc, source), (html, want, CharsetSource::Detected));
        }
        // ASCII is not UTF-16.
        assert_eq!(decode(html.as_bytes(), None).1, UTF_8);
    }

    #[test]
    fn utf16le_with_bom() {
        let mut bytes = vec![0xFF, 0xFE];
        for u in "<p>héllo</p>".encode_utf16() {
            bytes.extend_from_slice(&u.to_le_bytes());
        }
        let (text, _, _) = decode(&bytes, None);
        assert_eq!(text, "<p>héllo</p>");
    }

    #[test]
    fn meta_declared_legacy_charset() {
        let (bytes, _, _) =
            encoding_rs::WINDOWS_1251.encode("<meta charset=\"windows-1251\"><p>Привет мир</p>");
        let (text, enc, src) = decode(&bytes[..], None);
        assert_eq!(enc, encoding_rs::WINDOWS_1251);
        assert_eq!(src, CharsetSource::Meta);
        assert!(text.contains("Привет мир"));
    }

    #[test]
    fn http_equiv_declaration() {
        let html = b"<meta http-equiv='Content-Type' content='text/html; charset=ISO-8859-1'><p>caf\xe9</p>";
        let (text, enc, _) = decode(&html[..], None);
        assert_eq!(enc, encoding_rs::WINDOWS_1252);
        assert!(text.contains("café"));
    }

    #[test]
    fn override_beats_meta() {
        let (bytes, _, _) = encoding_rs::SHIFT_JIS.encode("<meta charset=utf-8><p>日本語</p>");
        let (text, _, src) = decode(&bytes[..], Some("shift_jis"));
        assert_eq!(src, CharsetSource::Override);
        assert!(text.contains("日本語"));
    }

    #[test]
    fn lying_meta_with_valid_utf8_is_read_as_utf8() {
        let html = "<meta charset=iso-8859-1><p>Grüße aus Köln</p>";
        let (text, enc, _) = decode(html.as_bytes(), None);
        assert_eq!(enc, UTF_8);
        assert!(text.contains("Grüße aus Köln"));
    }

    #[test]
    fn undeclared_gb18030_is_detected() {
        let (bytes, _, _) = encoding_rs::GB18030.encode(
            "<html><body><p>这是一个没有声明字符集的中文网页，内容足够长以便检测器能够判断它的编码方式。我们再多写几句中文，让统计更加可靠。</p></body></html>",
        );
        let (text, _, src) = decode(&bytes[..], None);
        assert_eq!(src, CharsetSource::Detected);
        assert!(text.contains("中文网页"), "{text}");
    }

    #[test]
    fn gzip_bomb_is_bounded() {
        use flate2::{write::GzEncoder, Compression};
        use std::io::Write;
        let mut enc = GzEncoder::new(Vec::new(), Compression::fast());
        enc.write_all(&vec![b'a'; 5_000_000]).unwrap();
        let gz = enc.finish().unwrap();
        assert!(is_gzip(&gz));
        let (out, truncated, err) = gunzip_bounded(&gz, 1000);
        assert_eq!(out.len(), 1000);
        assert!(truncated);
        assert!(err.is_none());
    }

    fn gzipped(bytes: &[u8]) -> Vec<u8> {
        use flate2::{write::GzEncoder, Compression};
        use std::io::Write;
        let mut enc = GzEncoder::new(Vec::new(), Compression::fast());
        enc.write_all(bytes).unwrap();
        enc.finish().unwrap()
    }

    #[test]
    fn truncated_gzip_reports_error_and_no_bytes() {
        let text: Vec<u8> = (0..2000u32)
            .flat_map(|i| format!("<p>line {i} of a page</p>\n").into_bytes())
            .collect();
        let gz = gzipped(&text);
        for cut in [gz.len() / 3, gz.len() / 2, gz.len() - 4, gz.len() - 1] {
            let (out, truncated, err) = gunzip_bounded(&gz[..cut], 1 << 20);
            assert!(err.is_some(), "cut at {cut}");
            assert!(out.is_empty() && !truncated);
        }
        // Cut on purpose: the damaged tail is never read.
        let (out, truncated, err) = gunzip_bounded(&gz[..gz.len() / 2], 1000);
        assert_eq!((out.len(), truncated), (1000, true));
        assert!(err.is_none());
        assert_eq!(out, &text[..1000]);
    }

    #[test]
    fn a_flipped_byte_or_checksum_is_an_error() {
        let text: Vec<u8> = (0..2000u32)
            .flat_map(|i| format!("<p>line {i} of a page</p>\n").into_bytes())
            .collect();
        let gz = gzipped(&text);
        for at in [gz.len() / 2, gz.len() - 8, gz.len() - 2] {
            let mut bad = gz.clone();
            bad[at] ^= 0x01;
            let (out, _, err) = gunzip_bounded(&bad, 1 << 20);
            assert!(err.is_some(), "flip at {at}");
            assert!(out.is_empty());
        }
        let (out, truncated, err) = gunzip_bounded(&gz, 1 << 20);
        assert_eq!(out, text);
        assert!(!truncated && err.is_none());
    }

    #[test]
    fn the_input_bound_covers_a_page_of_the_limit() {
        // Random bytes do not compress: the worst case for the bound.
        let mut x = 0x2545f491u32;
        let noise: Vec<u8> = (0..300_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x as u8
            })
            .collect();
        let gz = gzipped(&noise);
        let max = 200_000;
        let read = &gz[..gzip_input_bound(max).min(gz.len())];
        let (out, truncated, err) = gunzip_bounded(read, max);
        assert!(err.is_none() && truncated);
        assert_eq!(out, &noise[..max]);
    }
}
