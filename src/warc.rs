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
//! starting with `WARC/` to go on; an I/O error or a file that ends inside a
//! record ends the file. Memory per record is bounded by the header limits
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

use std::io::{BufRead, Write};
use std::path::Path;

use crate::error::WarcError;
use crate::parse::charset::{is_gzip, read_bounded};

type Result<T> = std::result::Result<T, WarcError>;

/// The longest header line accepted (WARC or HTTP), in bytes.
pub const MAX_LINE: usize = 64 * 1024;
/// The most bytes a record's WARC header, or an HTTP response head, may take.
pub const MAX_HEADER: usize = 256 * 1024;
/// How far into a payload without a `Content-Type` [`looks_like_html`] looks.
pub const SNIFF_BYTES: usize = 1024;

/// Header fields (`Name: value`) in the order they appear. Names are
/// matched without regard to case; values are trimmed, continuation lines
/// joined with a space, and bytes that are not UTF-8 replaced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fields(pub Vec<(String, String)>);

impl Fields {
    /// The value of the first field called `name` (any case).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Adds one header line (without its line ending): a `Name: value`
    /// field, or a continuation (starting with a space or tab) of the last.
    fn push_line(&mut self, line: &[u8]) -> std::result::Result<(), String> {
        if line.first().is_some_and(|b| *b == b' ' || *b == b'\t') {
            let Some((_, value)) = self.0.last_mut() else {
                return Err("a continuation line before any field".into());
            };
            let more = String::from_utf8_lossy(line);
            value.push(' ');
            value.push_str(more.trim());
            return Ok(());
        }
        let Some(colon) = line.iter().position(|b| *b == b':') else {
            return Err(format!("no colon in {:?}", shown(line)));
        };
        let name = String::from_utf8_lossy(&line[..colon]).trim().to_string();
        if name.is_empty() || name.contains(char::is_whitespace) {
            return Err(format!("bad field name in {:?}", shown(line)));
        }
        let value = String::from_utf8_lossy(&line[colon + 1..])
            .trim()
            .to_string();
        self.0.push((name, value));
        Ok(())
    }
}

/// The start of a line, for error messages.
fn shown(line: &[u8]) -> String {
    String::from_utf8_lossy(&line[..line.len().min(60)]).into_owned()
}

/// A WARC record's header.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordHeader {
    /// The version after `WARC/` (`1.0`, `1.1`).
    pub version: String,
    /// The named fields.
    pub fields: Fields,
    /// The length of the record's block in bytes (`Content-Length`).
    pub content_length: u64,
}

impl RecordHeader {
    /// True when `WARC-Type` is `kind` (any case).
    pub fn is_type(&self, kind: &str) -> bool {
        self.fields
            .get("WARC-Type")
            .is_some_and(|t| t.eq_ignore_ascii_case(kind))
    }
}

/// Where the reader stands in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before a record's version line (or at the end of the file).
    Between,
    /// Inside a record's block, with this many bytes of it left.
    InBlock(u64),
    /// After a malformed record: skipping lines up to the next `WARC/` line.
    Resync,
    /// After the end of the file or an error that ends it.
    Done,
}

/// A streaming reader of WARC records. Call [`next_header`](Self::next_header)
/// for each record; between two calls, [`read_block`](Self::read_block) may
/// read a prefix of the record's block. Whatever is not read is skipped.
#[derive(Debug)]
pub struct WarcReader<R> {
    inner: R,
    state: State,
    record: usize,
}

impl<R: BufRead> WarcReader<R> {
    /// A reader over decompressed WARC bytes (see [`open`] for files, which
    /// handles gzip).
    pub fn new(inner: R) -> Self {
        WarcReader {
            inner,
            state: State::Between,
            record: 0,
        }
    }

    /// The number of the record being read (or read last), counting every
    /// record of the file from 1; 0 before the first.
    pub fn record_number(&self) -> usize {
        self.record
    }

    /// Bytes of the current record's block not read yet.
    pub fn block_remaining(&self) -> u64 {
        match self.state {
            State::InBlock(n) => n,
            _ => 0,
        }
    }

    /// Reads the next record's header, first skipping what is left of the
    /// previous record. `None` at the end of the file. An error about the
    /// previous record's end (a wrong `Content-Length`) is returned while
    /// [`record_number`](Self::record_number) still names that record.
    pub fn next_header(&mut self) -> Option<Result<RecordHeader>> {
        match self.state {
            State::Done => return None,
            State::InBlock(_) => {
                if let Err(e) = self.finish_record() {
                    return Some(Err(e));
                }
            }
            State::Between | State::Resync => {}
        }
        let resync = self.state == State::Resync;
        self.record += 1;
        let mut line = Vec::new();
        // The version line; blank lines before it are tolerated.
        loop {
            line.clear();
            let (n, long) = match read_line(&mut self.inner, &mut line, MAX_LINE) {
                Ok(r) => r,
                Err(e) => return Some(Err(self.fail(io_error(e)))),
            };
            if n == 0 {
                // No record after all.
                self.record -= 1;
                self.state = State::Done;
                return None;
            }
            let l = trim_eol(&line);
            if !long && l.starts_with(b"WARC/") {
                break;
            }
            if resync || l.is_empty() {
                continue;
            }
            self.state = State::Resync;
            return Some(Err(WarcError::NotWarc));
        }
        let version = String::from_utf8_lossy(&trim_eol(&line)[5..])
            .trim()
            .to_string();
        let mut fields = Fields::default();
        let mut total = line.len();
        loop {
            line.clear();
            let (n, long) = match read_line(&mut self.inner, &mut line, MAX_LINE) {
                Ok(r) => r,
                Err(e) => return Some(Err(self.fail(io_error(e)))),
            };
            if n == 0 || (!long && !line.ends_with(b"\n")) {
                return Some(Err(self.fail(WarcError::Truncated("in a record header"))));
            }
            total = total.saturating_add(n);
            if long || total > MAX_HEADER {
                self.state = State::Resync;
                return Some(Err(WarcError::Header(format!(
                    "longer than {MAX_HEADER} bytes or a line longer than {MAX_LINE}"
                ))));
            }
            let l = trim_eol(&line);
            if l.is_empty() {
                break;
            }
            if let Err(reason) = fields.push_line(l) {
                self.state = State::Resync;
                return Some(Err(WarcError::Header(reason)));
            }
        }
        let Some(content_length) = fields
            .get("Content-Length")
            .and_then(|v| v.parse::<u64>().ok())
        else {
            self.state = State::Resync;
            return Some(Err(WarcError::ContentLength));
        };
        self.state = State::InBlock(content_length);
        Some(Ok(RecordHeader {
            version,
            fields,
            content_length,
        }))
    }

    /// Appends up to `max` more bytes of the current record's block to `buf`;
    /// returns how many. 0 when the block is used up or no record is open.
    pub fn read_block(&mut self, buf: &mut Vec<u8>, max: usize) -> Result<usize> {
        let State::InBlock(remaining) = self.state else {
            return Ok(0);
        };
        let want = remaining.min(max as u64) as usize;
        let mut got = 0;
        while got < want {
            let avail = match self.inner.fill_buf() {
                Ok(a) => a,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(self.fail(io_error(e))),
            };
            if avail.is_empty() {
                return Err(self.fail(WarcError::Truncated("in a record block")));
            }
            let n = avail.len().min(want - got);
            buf.extend_from_slice(&avail[..n]);
            self.inner.consume(n);
            got += n;
        }
        self.state = State::InBlock(remaining - got as u64);
        Ok(got)
    }

    /// Skips the rest of the current record's block and checks the two line
    /// endings that close a record. Nothing to do when no record is open.
    pub fn finish_record(&mut self) -> Result<()> {
        let State::InBlock(mut remaining) = self.state else {
            return Ok(());
        };
        while remaining > 0 {
            let avail = match self.inner.fill_buf() {
                Ok(a) => a,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(self.fail(io_error(e))),
            };
            if avail.is_empty() {
                return Err(self.fail(WarcError::Truncated("in a record block")));
            }
            let n = (avail.len() as u64).min(remaining) as usize;
            self.inner.consume(n);
            remaining -= n as u64;
        }
        self.state = State::Between;
        for _ in 0..2 {
            let ok = match self.read_byte()? {
                Some(b'\n') => true,
                Some(b'\r') => self.read_byte()? == Some(b'\n'),
                Some(_) => false,
                None => return Err(self.fail(WarcError::Truncated("before the end of a record"))),
            };
            if !ok {
                self.state = State::Resync;
                return Err(WarcError::RecordEnd);
            }
        }
        Ok(())
    }

    /// One byte, or `None` at the end of the file.
    fn read_byte(&mut self) -> Result<Option<u8>> {
        let mut b = [0u8; 1];
        loop {
            match self.inner.read(&mut b) {
                Ok(0) => return Ok(None),
                Ok(_) => return Ok(Some(b[0])),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.fail(io_error(e))),
            }
        }
    }

    /// Ends the file after an error that leaves the reader out of step.
    fn fail(&mut self, e: WarcError) -> WarcError {
        self.state = State::Done;
        e
    }
}

/// A read error as a WARC error: the end of a compressed stream in the
/// middle of a member is a truncated file.
fn io_error(e: std::io::Error) -> WarcError {
    if e.kind() == std::io::ErrorKind::UnexpectedEof {
        WarcError::Truncated("the compressed stream ends early")
    } else {
        WarcError::Io(e)
    }
}

/// Reads one line (through its `\n`, or to the end of the input), keeping at
/// most `max` bytes of it in `buf`. Returns the bytes consumed and whether the
/// line was longer than `max`.
fn read_line(
    r: &mut impl BufRead,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<(usize, bool)> {
    let mut consumed = 0;
    let mut long = false;
    loop {
        let avail = match r.fill_buf() {
            Ok(a) => a,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if avail.is_empty() {
            return Ok((consumed, long));
        }
        let (take, done) = match avail.iter().position(|b| *b == b'\n') {
            Some(i) => (i + 1, true),
            None => (avail.len(), false),
        };
        let room = max.saturating_sub(buf.len());
        buf.extend_from_slice(&avail[..take.min(room)]);
        long |= take > room;
        r.consume(take);
        consumed += take;
        if done {
            return Ok((consumed, long));
        }
    }
}

/// A line without its `\n` or `\r\n`.
fn trim_eol(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Opens a WARC file for reading, gzipped (one member per record or the
/// whole file as one, recognised by the gzip magic, whatever the name) or
/// plain.
pub fn open(path: &Path) -> crate::Result<Box<dyn BufRead + Send>> {
    let file = std::fs::File::open(path).map_err(|e| crate::Error::io(path, e))?;
    decompressed(std::io::BufReader::with_capacity(256 * 1024, file))
        .map_err(|e| crate::Error::io(path, e))
}

/// WARC bytes from `reader`: decompressed when they start with the gzip
/// magic (any number of members), as they are otherwise.
pub fn decompressed<R: BufRead + Send + 'static>(
    mut reader: R,
) -> std::io::Result<Box<dyn BufRead + Send>> {
    if is_gzip(reader.fill_buf()?) {
        Ok(Box::new(std::io::BufReader::with_capacity(
            256 * 1024,
            flate2::bufread::MultiGzDecoder::new(reader),
        )))
    } else {
        Ok(Box::new(reader))
    }
}

/// True for file names ending in `.warc` or `.warc.gz` (any case).
pub fn is_warc_name(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    name.ends_with(".warc") || name.ends_with(".warc.gz")
}

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
    /// Pages of the WARC bytes read from `inner` (decompressed; see [`open`]),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn record(fields: &[(&str, &str)], block: &[u8]) -> Vec<u8> {
        let mut v = Vec::new();
        write_record(&mut v, fields, block).unwrap();
        v
    }

    fn response(uri: &str, http: &[u8]) -> Vec<u8> {
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

    fn pages(bytes: &[u8]) -> Vec<std::result::Result<WarcPage, RecordError>> {
        HtmlPages::new(bytes, 1 << 20).collect()
    }

    #[test]
    fn record_names_count_from_one_and_zero_is_the_file() {
        assert_eq!(record_name("crawl.warc.gz", 3), "crawl.warc.gz#3");
        assert_eq!(record_name("crawl.warc.gz", 0), "crawl.warc.gz");
    }

    #[test]
    fn header_fields_any_case_continuations_and_bare_newlines() {
        let raw =
            b"WARC/1.0\nwarc-type:  response \nX-Long: one\n  two\nCONTENT-LENGTH: 3\n\nabc\n\n";
        let mut r = WarcReader::new(&raw[..]);
        let h = r.next_header().unwrap().unwrap();
        assert_eq!(h.version, "1.0");
        assert!(h.is_type("RESPONSE"));
        assert_eq!(h.fields.get("x-long"), Some("one two"));
        assert_eq!(h.content_length, 3);
        let mut block = Vec::new();
        assert_eq!(r.read_block(&mut block, 2).unwrap(), 2);
        assert_eq!(block, b"ab");
        assert_eq!(r.block_remaining(), 1);
        assert!(r.next_header().is_none());
        assert_eq!(r.record_number(), 1);
    }

    #[test]
    fn records_in_sequence_and_blank_lines_between() {
        let mut raw = record(&[("WARC-Type", "warcinfo")], b"software: x");
        raw.extend_from_slice(b"\r\n");
        raw.extend(record(
            &[("WARC-Type", "request")],
            b"GET / HTTP/1.1\r\n\r\n",
        ));
        let mut r = WarcReader::new(&raw[..]);
        assert!(r.next_header().unwrap().unwrap().is_type("warcinfo"));
        assert!(r.next_header().unwrap().unwrap().is_type("request"));
        assert!(r.next_header().is_none());
        assert_eq!(r.record_number(), 2);
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

    #[test]
    fn names() {
        assert!(is_warc_name(Path::new("a/CC-MAIN-1.warc.gz")));
        assert!(is_warc_name(Path::new("x.WARC")));
        assert!(!is_warc_name(Path::new("x.warc.html")));
    }
}
