//! The HTML pages of a WARC file: the payloads of its HTML `response`
//! records, with their URI, date and charset.

use std::io::BufRead;

use super::http::{
    charset_param, dechunk, decode_content, is_html_content_type, looks_like_html, media_type,
    parse_http_head,
};
use super::record::{RecordHeader, WarcReader};
use super::MAX_HEADER;
use crate::error::WarcError;

type Result<T> = std::result::Result<T, WarcError>;

/// One HTML page from a WARC `response` record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarcPage {
    /// The record's number in the file, counting every record from 1.
    pub record: usize,
    /// `WARC-Target-URI` (angle brackets removed).
    pub uri: Option<String>,
    /// `WARC-Date`, as written: when the page was captured.
    pub date: Option<String>,
    /// `WARC-Record-ID`, as written (for example `<urn:uuid:...>`).
    pub record_id: Option<String>,
    /// The HTTP status code.
    pub status: u16,
    /// The `charset` parameter of the HTTP `Content-Type`, if any.
    pub charset: Option<String>,
    /// The HTML payload, decoded from its transfer and content codings.
    pub body: Vec<u8>,
    /// True when the payload was cut at the byte limit.
    pub truncated: bool,
}

/// The name a page or error of a WARC file goes by in output (the `path`
/// key of JSON): `FILE#N` for record N (counting from 1), the file's name
/// alone for record 0 (an error before the first record).
pub fn record_name(file: &str, record: usize) -> String {
    if record == 0 {
        file.to_string()
    } else {
        format!("{file}#{record}")
    }
}

/// A WARC error with the number of the record it concerns (0: before any).
#[derive(Debug, thiserror::Error)]
#[error("record {record}: {error}")]
pub struct RecordError {
    /// The record's number in the file, counting every record from 1.
    pub record: usize,
    /// What went wrong.
    #[source]
    pub error: WarcError,
}

/// The HTML pages of a WARC file's `response` records, in file order.
///
/// A `response` record is taken when its WARC `Content-Type` (if any) is
/// `application/http` and its HTTP `Content-Type` is HTML (or absent and the
/// payload [looks like HTML](looks_like_html)). Other records are skipped
/// without being kept in memory. Errors are yielded in place, and iteration
/// goes on with the next record when the file allows it.
#[derive(Debug)]
pub struct HtmlPages<R> {
    reader: WarcReader<R>,
    max_bytes: usize,
}

impl<R: BufRead> HtmlPages<R> {
    /// Pages of the WARC bytes read from `inner` (decompressed; see [`open`](crate::warc::open)),
    /// each payload at most `max_bytes` long (longer ones are cut and marked
    /// truncated).
    pub fn new(inner: R, max_bytes: usize) -> Self {
        HtmlPages {
            reader: WarcReader::new(inner),
            max_bytes,
        }
    }

    /// The page of the record whose header was just read, if it is one.
    fn page(&mut self, header: &RecordHeader) -> Result<Option<WarcPage>> {
        if !header.is_type("response") {
            return Ok(None);
        }
        if let Some(ct) = header.fields.get("Content-Type") {
            if media_type(ct) != "application/http" {
                return Ok(None);
            }
        }
        let mut buf = Vec::new();
        self.reader.read_block(&mut buf, MAX_HEADER)?;
        let (head, body_start) = match parse_http_head(&buf) {
            Some(parsed) => parsed?,
            None if self.reader.block_remaining() == 0 => {
                return Err(WarcError::Http("the header does not end".into()))
            }
            None => {
                return Err(WarcError::Http(format!(
                    "the header is longer than {MAX_HEADER} bytes"
                )))
            }
        };
        let content_type = head.fields.get("Content-Type");
        if content_type.is_some_and(|ct| !is_html_content_type(ct)) {
            return Ok(None);
        }
        // The raw body may be larger than the page (chunk sizes, or a
        // compressed payload); keep some room beyond the page's limit.
        let raw_limit = self.max_bytes.saturating_add(MAX_HEADER);
        let more = raw_limit.saturating_sub(buf.len() - body_start);
        self.reader.read_block(&mut buf, more)?;
        let mut truncated = self.reader.block_remaining() > 0;
        self.reader.finish_record()?;
        let mut body = buf.split_off(body_start);
        drop(buf);
        let chunked = head.fields.get("Transfer-Encoding").is_some_and(|te| {
            te.split(',')
                .any(|t| t.trim().eq_ignore_ascii_case("chunked"))
        });
        if chunked {
            body = dechunk(&body)?;
        }
        let (body, cut) =
            decode_content(body, head.fields.get("Content-Encoding"), self.max_bytes)?;
        truncated |= cut;
        if content_type.is_none() && !looks_like_html(&body) {
            return Ok(None);
        }
        Ok(Some(WarcPage {
            record: self.reader.record_number(),
            uri: header
                .fields
                .get("WARC-Target-URI")
                .map(|u| u.trim_start_matches('<').trim_end_matches('>').to_string()),
            date: header.fields.get("WARC-Date").map(str::to_string),
            record_id: header.fields.get("WARC-Record-ID").map(str::to_string),
            status: head.status,
            charset: content_type.and_then(charset_param),
            body,
            truncated,
        }))
    }
}

impl<R: BufRead> Iterator for HtmlPages<R> {
    type Item = std::result::Result<WarcPage, RecordError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let result = match self.reader.next_header()? {
                Ok(header) => self.page(&header),
                Err(e) => Err(e),
            };
            match result {
                Ok(Some(page)) => return Some(Ok(page)),
                Ok(None) => continue,
                Err(error) => {
                    return Some(Err(RecordError {
                        record: self.reader.record_number(),
                        error,
                    }))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{gzip, pages, record, response};
    use super::super::MAX_LINE;
    use super::*;
    use std::io::Write;

    #[test]
    fn record_names_count_from_one_and_zero_is_the_file() {
        assert_eq!(record_name("crawl.warc.gz", 3), "crawl.warc.gz#3");
        assert_eq!(record_name("crawl.warc.gz", 0), "crawl.warc.gz");
    }

    #[test]
    fn malformed_records_are_reported_and_reading_resumes() {
        let good = response(
            "http://b/",
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>b</p>",
        );
        let mut raw = b"WARC/1.1\r\nWARC-Type: response\r\n\r\nno length here\r\n\r\n".to_vec();
        raw.extend(&good);
        raw.extend(b"garbage between records\r\n");
        raw.extend(b"WARC/1.1\r\nno colon\r\n\r\n");
        raw.extend(&good);
        let got = pages(&raw);
        assert_eq!(got.len(), 5, "{got:?}");
        assert!(matches!(
            got[0],
            Err(RecordError {
                record: 1,
                error: WarcError::ContentLength
            })
        ));
        assert_eq!(got[1].as_ref().unwrap().record, 2);
        assert!(matches!(
            got[2],
            Err(RecordError {
                record: 3,
                error: WarcError::NotWarc
            })
        ));
        assert!(matches!(
            got[3],
            Err(RecordError {
                error: WarcError::Header(_),
                ..
            })
        ));
        assert_eq!(got[4].as_ref().unwrap().uri.as_deref(), Some("http://b/"));
    }

    #[test]
    fn a_wrong_content_length_is_an_error_for_that_record() {
        let http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>a</p>";
        // Claim one byte less than the block has.
        let mut raw = format!(
            "WARC/1.0\r\nWARC-Type: response\r\nContent-Length: {}\r\n\r\n",
            http.len() - 1
        )
        .into_bytes();
        raw.extend(http);
        raw.extend(b"\r\n\r\n");
        raw.extend(response(
            "http://b/",
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>b</p>",
        ));
        let got = pages(&raw);
        assert!(
            matches!(
                got[0],
                Err(RecordError {
                    record: 1,
                    error: WarcError::RecordEnd
                })
            ),
            "{got:?}"
        );
        assert_eq!(got[1].as_ref().unwrap().uri.as_deref(), Some("http://b/"));
        assert_eq!(got.len(), 2);
    }

    #[test]
    fn truncation_ends_the_file_with_an_error() {
        let raw = response(
            "http://a/",
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>a</p>",
        );
        for cut in [10, 60, raw.len() - 30, raw.len() - 2] {
            let got = pages(&raw[..cut]);
            assert_eq!(got.len(), 1, "cut at {cut}: {got:?}");
            assert!(
                matches!(
                    got[0],
                    Err(RecordError {
                        error: WarcError::Truncated(_),
                        ..
                    })
                ),
                "cut at {cut}: {got:?}"
            );
        }
    }

    #[test]
    fn only_html_responses_are_pages() {
        let mut raw = record(&[("WARC-Type", "warcinfo")], b"x");
        raw.extend(record(
            &[("WARC-Type", "request")],
            b"GET / HTTP/1.1\r\n\r\n",
        ));
        raw.extend(response(
            "http://png/",
            b"HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\n\x89PNG",
        ));
        raw.extend(response(
            "http://json/",
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{}",
        ));
        raw.extend(response(
            "http://xhtml/",
            b"HTTP/1.1 200 OK\r\nContent-Type: application/xhtml+xml\r\n\r\n<html/>",
        ));
        raw.extend(response(
            "http://sniffed/",
            b"HTTP/1.0 200 OK\r\n\r\n\n  <!DOCTYPE HTML><p>x",
        ));
        raw.extend(response(
            "http://unknown/",
            b"HTTP/1.0 200 OK\r\n\r\njust text",
        ));
        raw.extend(record(
            &[("WARC-Type", "response"), ("Content-Type", "text/dns")],
            b"20240501 example.com. 300 IN A 1.2.3.4",
        ));
        let uris: Vec<_> = pages(&raw)
            .into_iter()
            .map(|p| p.unwrap().uri.unwrap())
            .collect();
        assert_eq!(uris, ["http://xhtml/", "http://sniffed/"]);
    }

    #[test]
    fn chunked_and_gzipped_payloads_are_decoded() {
        use flate2::{write::GzEncoder, Compression};
        let html = b"<html><body><p>Chunked and gzipped.</p></body></html>";
        let mut gz = GzEncoder::new(Vec::new(), Compression::default());
        gz.write_all(html).unwrap();
        let gz = gz.finish().unwrap();
        let mut http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html;charset=\"ISO-8859-1\"\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n\r\n".to_vec();
        for part in gz.chunks(7) {
            http.extend(format!("{:x};ext=1\r\n", part.len()).as_bytes());
            http.extend(part);
            http.extend(b"\r\n");
        }
        http.extend(b"0\r\nX-Trailer: y\r\n\r\n");
        let got = pages(&response("http://gz/", &http));
        let page = got[0].as_ref().unwrap();
        assert_eq!(page.body, html);
        assert_eq!(page.charset.as_deref(), Some("ISO-8859-1"));
        assert_eq!(page.status, 200);
        assert_eq!(page.date.as_deref(), Some("2024-05-01T12:00:00Z"));
        assert!(!page.truncated);
    }

    #[test]
    fn large_payloads_are_cut_and_long_headers_refused() {
        let mut http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html>".to_vec();
        http.extend(std::iter::repeat_n(b'x', 5000));
        let mut raw = response("http://big/", &http);
        raw.extend(response(
            "http://next/",
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>",
        ));
        let got: Vec<_> = HtmlPages::new(&raw[..], 100).collect();
        let big = got[0].as_ref().unwrap();
        assert!(big.truncated);
        assert_eq!(big.body.len(), 100);
        assert_eq!(
            got[1].as_ref().unwrap().uri.as_deref(),
            Some("http://next/")
        );

        let long = format!("WARC/1.1\r\nX: {}\r\n\r\n", "y".repeat(MAX_LINE));
        let mut raw = long.into_bytes();
        raw.extend(response(
            "http://after/",
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>",
        ));
        let got = pages(&raw);
        assert!(matches!(
            got[0],
            Err(RecordError {
                error: WarcError::Header(_),
                ..
            })
        ));
        assert_eq!(
            got[1].as_ref().unwrap().uri.as_deref(),
            Some("http://after/")
        );
    }

    /// Five HTML response records, one gzip member each.
    fn five_members() -> Vec<Vec<u8>> {
        (1..=5)
            .map(|i| {
                let http = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html><p>page {i} {}</p>",
                    "words ".repeat(200)
                );
                gzip(&response(&format!("http://{i}/"), http.as_bytes()))
            })
            .collect()
    }

    /// The outcome per item: the record's URI, or the error's record number.
    fn outcome(bytes: &[u8]) -> Vec<std::result::Result<String, (usize, String)>> {
        pages(bytes)
            .into_iter()
            .map(|p| match p {
                Ok(p) => Ok(p.uri.unwrap_or_default()),
                Err(e) => Err((e.record, e.to_string())),
            })
            .collect()
    }

    #[test]
    fn a_damaged_member_costs_only_its_record() {
        let members = five_members();
        let start: usize = members[..2].iter().map(Vec::len).sum();
        for flip in [20, members[2].len() / 2, members[2].len() - 6] {
            let mut m = members.clone();
            m[2][flip] ^= 0x55;
            let got = outcome(&m.concat());
            assert_eq!(got.len(), 5, "flip at {flip}: {got:?}");
            assert_eq!(got[0].as_deref(), Ok("http://1/"));
            assert_eq!(got[1].as_deref(), Ok("http://2/"));
            let (record, message) = got[2].as_ref().unwrap_err();
            assert_eq!(*record, 3);
            assert!(message.contains(&format!("bytes {start}..")), "{message}");
            assert_eq!(got[3].as_deref(), Ok("http://4/"));
            assert_eq!(got[4].as_deref(), Ok("http://5/"));
        }
    }

    #[test]
    fn a_record_past_the_end_of_its_member_costs_only_that_record() {
        let mut members = five_members();
        let http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>three</p>";
        let long = format!(
            "WARC/1.1\r\nWARC-Type: response\r\nContent-Length: {}\r\n\r\n",
            1 << 30
        );
        let mut three = long.into_bytes();
        three.extend(http);
        three.extend(b"\r\n\r\n");
        members[2] = gzip(&three);
        let next: usize = members[..3].iter().map(Vec::len).sum();
        let got = outcome(&members.concat());
        assert_eq!(got.len(), 5, "{got:?}");
        let (record, message) = got[2].as_ref().unwrap_err();
        assert_eq!(*record, 3);
        assert!(message.contains(&format!("byte {next} ")), "{message}");
        assert_eq!(got[3].as_deref(), Ok("http://4/"));
        assert_eq!(got[4].as_deref(), Ok("http://5/"));
        // The last record too: the file ends inside it.
        let mut last = five_members();
        last[4] = gzip(&three);
        let got = outcome(&last.concat());
        assert_eq!(got.len(), 5, "{got:?}");
        assert!(got[4].is_err());
    }

    #[test]
    fn records_split_over_members_and_one_member_files_still_read() {
        let plain: Vec<u8> = (1..=3)
            .flat_map(|i| {
                response(
                    &format!("http://{i}/"),
                    b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>x</p>",
                )
            })
            .collect();
        let mut split = gzip(&plain[..50]);
        split.extend(gzip(&plain[50..]));
        for bytes in [gzip(&plain), split] {
            let got = outcome(&bytes);
            assert_eq!(got.len(), 3, "{got:?}");
            assert!(got.iter().all(|g| g.is_ok()), "{got:?}");
        }
    }
}
