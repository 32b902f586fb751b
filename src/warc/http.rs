//! The HTTP side of WARC `response` records: the response head, the
//! chunked transfer coding, content codings, and whether a payload is HTML.

use super::record::Fields;
use super::{shown, trim_eol, SNIFF_BYTES};
use crate::error::WarcError;
use crate::parse::charset::{is_gzip, read_bounded};

type Result<T> = std::result::Result<T, WarcError>;

/// An HTTP response's status line and header fields.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HttpHead {
    /// The status code (200, 404 ...).
    pub status: u16,
    /// The header fields.
    pub fields: Fields,
}

/// Parses the head of an HTTP response at the start of `message`. Returns
/// the head and where the body starts, `None` when the head does not end
/// (no blank line) within `message`, or an error for a malformed head.
/// Lines may end in `\r\n` or `\n`; malformed header lines are skipped.
pub fn parse_http_head(message: &[u8]) -> Option<Result<(HttpHead, usize)>> {
    let mut pos = 0;
    let mut head = HttpHead::default();
    let mut first = true;
    loop {
        let nl = message[pos..].iter().position(|b| *b == b'\n')?;
        let line = trim_eol(&message[pos..pos + nl + 1]);
        pos += nl + 1;
        if first {
            first = false;
            match parse_status_line(line) {
                Ok(status) => head.status = status,
                Err(e) => return Some(Err(e)),
            }
            continue;
        }
        if line.is_empty() {
            return Some(Ok((head, pos)));
        }
        // Servers send the odd malformed header line; browsers skip it too.
        let _ = head.fields.push_line(line);
    }
}

/// The status code of an `HTTP/x.y NNN reason` line.
fn parse_status_line(line: &[u8]) -> Result<u16> {
    let text = String::from_utf8_lossy(line);
    let mut parts = text.split_ascii_whitespace();
    let version = parts.next().unwrap_or_default();
    if !version.starts_with("HTTP/") {
        return Err(WarcError::Http(format!(
            "no HTTP status line: {:?}",
            shown(line)
        )));
    }
    parts
        .next()
        .and_then(|code| code.parse::<u16>().ok())
        .ok_or_else(|| WarcError::Http(format!("bad status line: {:?}", shown(line))))
}

/// The media type of a `Content-Type` value, lower case, without parameters.
pub fn media_type(content_type: &str) -> String {
    content_type
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// True for the `Content-Type` of an HTML page: `text/html` or
/// `application/xhtml+xml`, with any parameters.
pub fn is_html_content_type(content_type: &str) -> bool {
    matches!(
        media_type(content_type).as_str(),
        "text/html" | "application/xhtml+xml"
    )
}

/// The `charset` parameter of a `Content-Type` value, unquoted.
pub fn charset_param(content_type: &str) -> Option<String> {
    content_type.split(';').skip(1).find_map(|param| {
        let (name, value) = param.split_once('=')?;
        if !name.trim().eq_ignore_ascii_case("charset") {
            return None;
        }
        let value = value.trim().trim_matches(|c| c == '"' || c == '\'').trim();
        (!value.is_empty()).then(|| value.to_string())
    })
}

/// True when the first [`SNIFF_BYTES`] of a payload contain `<html` or
/// `<!doctype html` (any case): used when the HTTP header gives no type.
pub fn looks_like_html(payload: &[u8]) -> bool {
    let head = payload[..payload.len().min(SNIFF_BYTES)].to_ascii_lowercase();
    [&b"<html"[..], b"<!doctype html"]
        .iter()
        .any(|needle| head.windows(needle.len()).any(|w| w == *needle))
}

/// Undoes `Transfer-Encoding: chunked`. A body cut short (the record was
/// truncated, or only a prefix was read) gives the chunks up to the cut; a
/// first chunk-size line that is not hexadecimal means the archive stored the
/// decoded body but kept the header, and the body is returned as it is.
pub fn dechunk(body: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(body.len());
    let mut rest = body;
    let mut first = true;
    while let Some(nl) = rest.iter().position(|b| *b == b'\n') {
        let line = trim_eol(&rest[..nl + 1]);
        let size_text = String::from_utf8_lossy(line);
        let size_text = size_text.split(';').next().unwrap_or_default().trim();
        let size = match u64::from_str_radix(size_text, 16) {
            Ok(s) if !size_text.starts_with('+') => s,
            _ if first => return Ok(body.to_vec()),
            _ => return Err(WarcError::Http(format!("bad chunk size {:?}", shown(line)))),
        };
        first = false;
        rest = &rest[nl + 1..];
        if size == 0 {
            break;
        }
        if (rest.len() as u64) < size {
            out.extend_from_slice(rest);
            break;
        }
        let size = size as usize;
        out.extend_from_slice(&rest[..size]);
        rest = &rest[size..];
        rest = rest
            .strip_prefix(b"\r\n")
            .or_else(|| rest.strip_prefix(b"\n"))
            .unwrap_or(rest);
    }
    Ok(out)
}

/// Undoes the content codings of `Content-Encoding` (`gzip`, `x-gzip`,
/// `deflate`, `identity`; a list is undone last first), keeping at most
/// `max_bytes`. Returns the payload and whether it was cut at `max_bytes`.
/// A gzip coding over bytes that are not gzip is taken as already decoded
/// (archives that decoded the body but kept the header); a damaged stream
/// keeps what decoded before the damage, as the page parser does.
pub fn decode_content(
    payload: Vec<u8>,
    content_encoding: Option<&str>,
    max_bytes: usize,
) -> Result<(Vec<u8>, bool)> {
    let mut body = payload;
    let mut cut = false;
    let codings: Vec<String> = content_encoding
        .unwrap_or_default()
        .split(',')
        .map(|c| c.trim().to_ascii_lowercase())
        .filter(|c| !c.is_empty() && c != "identity")
        .collect();
    for coding in codings.iter().rev() {
        let (out, more, err) = match coding.as_str() {
            "gzip" | "x-gzip" if !is_gzip(&body) => continue,
            "gzip" | "x-gzip" => {
                read_bounded(flate2::read::MultiGzDecoder::new(&body[..]), max_bytes)
            }
            "deflate" => {
                // Servers send zlib-wrapped or raw deflate under this name.
                let zlib = read_bounded(flate2::read::ZlibDecoder::new(&body[..]), max_bytes);
                if zlib.2.is_some() && zlib.0.is_empty() {
                    read_bounded(flate2::read::DeflateDecoder::new(&body[..]), max_bytes)
                } else {
                    zlib
                }
            }
            other => return Err(WarcError::ContentEncoding(other.to_string())),
        };
        if let Some(e) = err {
            if out.is_empty() {
                return Err(WarcError::Http(format!("corrupt {coding} payload: {e}")));
            }
        }
        cut |= more;
        body = out;
    }
    if body.len() > max_bytes {
        body.truncate(max_bytes);
        cut = true;
    }
    Ok((body, cut))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn dechunk_cases() {
        assert_eq!(dechunk(b"3\r\nabc\r\n2\nde\n0\r\n\r\n").unwrap(), b"abcde");
        assert_eq!(dechunk(b"A\r\n0123456789\r\n0\r\n").unwrap(), b"0123456789");
        // Cut short: what there is.
        assert_eq!(dechunk(b"5\r\nabc").unwrap(), b"abc");
        assert_eq!(dechunk(b"3\r\nabc\r\n1").unwrap(), b"abc");
        // Stored decoded with a stale header: as it is.
        assert_eq!(dechunk(b"<html>\n<p>x").unwrap(), b"<html>\n<p>x");
        // Damage after the first chunk is an error.
        assert!(matches!(
            dechunk(b"3\r\nabc\r\nzz\r\n"),
            Err(WarcError::Http(_))
        ));
        assert!(dechunk(b"3\r\nabc\r\nffffffffffffffffffff\r\n").is_err());
    }

    #[test]
    fn content_codings() {
        use flate2::{write::ZlibEncoder, Compression};
        let mut z = ZlibEncoder::new(Vec::new(), Compression::default());
        z.write_all(b"deflated").unwrap();
        let z = z.finish().unwrap();
        assert_eq!(
            decode_content(z, Some("deflate"), 100).unwrap().0,
            b"deflated"
        );
        assert_eq!(
            decode_content(b"plain".to_vec(), Some("gzip"), 100)
                .unwrap()
                .0,
            b"plain"
        );
        assert_eq!(
            decode_content(b"plain".to_vec(), Some("identity"), 3).unwrap(),
            (b"pla".to_vec(), true)
        );
        assert!(matches!(
            decode_content(b"x".to_vec(), Some("br"), 100),
            Err(WarcError::ContentEncoding(c)) if c == "br"
        ));
        assert!(decode_content(vec![0x1f, 0x8b, 0, 0], Some("gzip"), 100).is_err());
    }

    #[test]
    fn content_type_matching() {
        assert!(is_html_content_type("text/html"));
        assert!(is_html_content_type(" Text/HTML ; charset=utf-8"));
        assert!(is_html_content_type("application/xhtml+xml"));
        assert!(!is_html_content_type("text/plain"));
        assert!(!is_html_content_type("text/htmlx"));
        assert_eq!(
            charset_param("text/html; charset=utf-8").as_deref(),
            Some("utf-8")
        );
        assert_eq!(
            charset_param("text/html;foo=bar; Charset='Shift_JIS'").as_deref(),
            Some("Shift_JIS")
        );
        assert_eq!(charset_param("text/html; charset="), None);
        assert_eq!(charset_param("text/html"), None);
        assert!(looks_like_html(b"\xef\xbb\xbf<!doctype html><p>"));
        assert!(looks_like_html(b"<?xml version='1.0'?>\n<HTML xmlns='x'>"));
        assert!(!looks_like_html(b"{\"html\": \"<p>\"}"));
    }

    #[test]
    fn http_heads() {
        let (head, at) = parse_http_head(b"HTTP/1.1 404 Not Found\r\nA: 1\r\n\r\nbody")
            .unwrap()
            .unwrap();
        assert_eq!(
            (head.status, head.fields.get("a"), at),
            (404, Some("1"), 32)
        );
        assert!(parse_http_head(b"HTTP/1.1 200 OK\r\nA: 1\r\n").is_none());
        assert!(matches!(
            parse_http_head(b"GET / HTTP/1.1\r\n\r\n"),
            Some(Err(WarcError::Http(_)))
        ));
        assert!(matches!(
            parse_http_head(b"HTTP/1.1 abc\r\n\r\n"),
            Some(Err(WarcError::Http(_)))
        ));
        let (head, _) =
            parse_http_head(b"HTTP/1.1 200\r\nbroken line\r\nContent-Type: text/html\r\n\r\n")
                .unwrap()
                .unwrap();
        assert_eq!(
            head.fields.get("content-type"),
            Some("text/html"),
            "junk lines are skipped"
        );
    }
}
