//! Reading WARC files (ISO 28500, WARC/1.0 and 1.1) record by record in
//! bounded memory, and taking the HTML pages out of their HTTP responses.
//!
//! [`WarcReader`] is the record layer: it reads one record header at a time
//! and lets the caller read a bounded prefix of the record's block; the rest
//! of the block is skipped without being kept. [`HtmlPages`] is built on it:
//! it yields the HTML payloads of `response` records (HTTP status line and
//! headers stripped, chunked transfer coding and gzip/deflate content coding
//! undone, at most `max_bytes` of page), each with its target URI, date and
//! the charset of the HTTP `Content-Type`.
//!
//! A malformed record is reported and the reader looks for the next line
//! starting with `WARC/` to go on. In a gzipped file ([`gzip`]), a damaged
//! member (corrupt deflate data, a CRC-32 or length that does not match, a
//! member cut short) and a record whose `Content-Length` runs past the end
//! of its member are reported once each, with the byte offset in the file,
//! and reading goes on at the next member. Other I/O errors, and a plain
//! file that ends inside a record, end the file. Memory per record is bounded by the header limits
//! ([`MAX_LINE`], [`MAX_HEADER`]) and the caller's block limit, whatever the
//! record's `Content-Length`.
//!
//! ```
//! use dechrome::warc::{write_record, HtmlPages};
//!
//! let mut warc = Vec::new();
//! let http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>Hello</p>";
//! write_record(
//!     &mut warc,
//!     &[("WARC-Type", "response"), ("WARC-Target-URI", "https://example.com/")],
//!     http,
//! )?;
//! let pages: Vec<_> = HtmlPages::new(&warc[..], 1 << 20).collect::<Result<_, _>>()?;
//! assert_eq!(pages[0].uri.as_deref(), Some("https://example.com/"));
//! assert_eq!(pages[0].charset.as_deref(), Some("utf-8"));
//! assert_eq!(pages[0].body, b"<p>Hello</p>");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod gzip;
mod http;
mod pages;
mod record;

use std::io::{BufRead, Write};
use std::path::Path;

pub use http::{
    charset_param, dechunk, decode_content, is_html_content_type, looks_like_html, media_type,
    parse_http_head, HttpHead,
};
pub use pages::{record_name, HtmlPages, RecordError, WarcPage};
pub use record::{Fields, PastMember, RecordHeader, WarcReader};

/// The longest header line accepted (WARC or HTTP), in bytes.
pub const MAX_LINE: usize = 64 * 1024;
/// The most bytes a record's WARC header, or an HTTP response head, may take.
pub const MAX_HEADER: usize = 256 * 1024;
/// How far into a payload without a `Content-Type` [`looks_like_html`] looks.
pub const SNIFF_BYTES: usize = 1024;

/// The start of a line, for error messages.
fn shown(line: &[u8]) -> String {
    String::from_utf8_lossy(&line[..line.len().min(60)]).into_owned()
}

/// A line without its `\n` or `\r\n`.
fn trim_eol(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

pub use crate::input::open_regular;

/// Opens a WARC file for reading (a regular file only, see
/// [`open_regular`]). The bytes are returned as they are: [`WarcReader`]
/// and [`HtmlPages`] undo gzip themselves (one member per record or the
/// whole file as one, recognised by the gzip magic, whatever the name), so
/// that a damaged member costs only its own records.
pub fn open(path: &Path) -> crate::Result<Box<dyn BufRead + Send>> {
    let file = open_regular(path).map_err(|e| crate::Error::io(path, e))?;
    Ok(Box::new(std::io::BufReader::with_capacity(
        256 * 1024,
        file,
    )))
}

/// WARC bytes from `reader`: decompressed when they start with the gzip
/// magic (any number of members, each checked; a damaged member is an error
/// of the read that meets it, see [`gzip::Damage`], and the next read goes
/// on at the next member), as they are otherwise.
pub fn decompressed<R: BufRead + Send + 'static>(
    reader: R,
) -> std::io::Result<Box<dyn BufRead + Send>> {
    Ok(Box::new(record::Stream::new(reader)))
}

/// True for file names ending in `.warc` or `.warc.gz` (any case).
pub fn is_warc_name(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    name.ends_with(".warc") || name.ends_with(".warc.gz")
}

/// Writes one WARC/1.1 record: the version line, `fields`, a
/// `Content-Length` for `block`, the block and the two closing line endings.
/// For tests and tools that make small WARC files; `fields` should not hold
/// a `Content-Length` of their own.
pub fn write_record(
    out: &mut impl Write,
    fields: &[(&str, &str)],
    block: &[u8],
) -> std::io::Result<()> {
    let mut head = String::from("WARC/1.1\r\n");
    for (name, value) in fields {
        head.push_str(name);
        head.push_str(": ");
        head.push_str(value);
        head.push_str("\r\n");
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", block.len()));
    out.write_all(head.as_bytes())?;
    out.write_all(block)?;
    out.write_all(b"\r\n\r\n")
}

/// Small WARC files for the tests of the submodules.
#[cfg(test)]
mod testing {
    use super::*;

    /// One record's bytes.
    pub fn record(fields: &[(&str, &str)], block: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        write_record(&mut v, fields, block).unwrap();
        v
    }

    /// A `response` record holding the HTTP message `http`.
    pub fn response(uri: &str, http: &[u8]) -> Vec<u8> {
        record(
            &[
                ("WARC-Type", "response"),
                ("WARC-Target-URI", uri),
                ("WARC-Date", "2024-05-01T12:00:00Z"),
                ("Content-Type", "application/http; msgtype=response"),
            ],
            http,
        )
    }

    /// The pages of a WARC file's bytes, at most 1 MiB each.
    pub fn pages(bytes: &[u8]) -> Vec<std::result::Result<WarcPage, RecordError>> {
        HtmlPages::new(bytes, 1 << 20).collect()
    }

    /// One gzip member.
    pub fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(bytes).unwrap();
        enc.finish().unwrap()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(is_warc_name(Path::new("a/CC-MAIN-1.warc.gz")));
        assert!(is_warc_name(Path::new("x.WARC")));
        assert!(!is_warc_name(Path::new("x.warc.html")));
    }

    #[cfg(unix)]
    #[test]
    fn only_regular_files_are_opened() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.warc");
        std::fs::write(&file, b"x").unwrap();
        assert!(open_regular(&file).is_ok());
        assert!(open(dir.path()).is_err());
        let zero = dir.path().join("zero.warc");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let e = open_regular(&zero).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
        assert!(e.to_string().contains("character device"), "{e}");
    }
}
