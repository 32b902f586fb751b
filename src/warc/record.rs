//! The record layer of WARC files: one record header at a time, a bounded
//! prefix of each block, the rest skipped. gzip input is decoded here member
//! by member ([`super::gzip`]), so that a damaged member costs only its own
//! record and a record whose `Content-Length` runs past its member is caught
//! at the member's end.

use std::io::{self, BufRead, Read};

use super::gzip::{Damage, Members};
use super::{shown, trim_eol, MAX_HEADER, MAX_LINE};
use crate::error::WarcError;
use crate::parse::charset::is_gzip;

type Result<T> = std::result::Result<T, WarcError>;

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
    pub(super) fn push_line(&mut self, line: &[u8]) -> std::result::Result<(), String> {
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

/// A record that runs past the end of its gzip member: the next member
/// starts a record of its own. Reported as the inner error of an
/// [`io::Error`] of kind `InvalidData`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the record runs past the end of its gzip member (its Content-Length is too large); reading goes on at the record at byte {next} of the file")]
pub struct PastMember {
    /// Offset in the compressed file of the member that starts the next record.
    pub next: u64,
}

/// True for read errors after which reading can go on at a later record:
/// a damaged gzip member, or a record that ran past its member.
pub(super) fn resumable(e: &io::Error) -> bool {
    Damage::of(e).is_some() || e.get_ref().is_some_and(|inner| inner.is::<PastMember>())
}

/// What a [`WarcReader`] reads: WARC bytes as they are, or gzip members.
#[derive(Debug)]
enum Input<R> {
    Plain(R),
    // Boxed: the decoder's state is large, and made once per file.
    Gzip(Box<Members<R>>),
}

/// The bytes of a WARC file, decoded from gzip when they start with its
/// magic number. Inside a record (`in_record`), the end of a gzip member
/// followed by a member that starts with `WARC/` is reported
/// ([`PastMember`]); elsewhere members follow each other as one stream (so
/// a record split over members, or a file gzipped whole, reads as well).
#[derive(Debug)]
pub(super) struct Stream<R> {
    input: Input<R>,
    /// True from a record's version line to the end of its block.
    pub(super) in_record: bool,
}

impl<R: BufRead> Stream<R> {
    /// The bytes of `inner`, decoded from gzip when they start with its magic.
    pub(super) fn new(mut inner: R) -> Self {
        // A read error here comes back at the first real read.
        let gzip = inner.fill_buf().is_ok_and(is_gzip);
        Stream {
            input: if gzip {
                Input::Gzip(Box::new(Members::new(inner)))
            } else {
                Input::Plain(inner)
            },
            in_record: false,
        }
    }
}

impl<R: BufRead> Read for Stream<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let avail = self.fill_buf()?;
        let n = avail.len().min(buf.len());
        buf[..n].copy_from_slice(&avail[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Stream<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        let m = match &mut self.input {
            Input::Plain(r) => return r.fill_buf(),
            Input::Gzip(m) => m,
        };
        while m.fill()?.is_empty() {
            if !m.next_member()? {
                break;
            }
            if self.in_record && m.fill()?.starts_with(b"WARC/") {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    PastMember {
                        next: m.member_start(),
                    },
                ));
            }
        }
        m.fill()
    }

    fn consume(&mut self, n: usize) {
        match &mut self.input {
            Input::Plain(r) => r.consume(n),
            Input::Gzip(m) => m.consume(n),
        }
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
    inner: Stream<R>,
    state: State,
    record: usize,
}

impl<R: BufRead> WarcReader<R> {
    /// A reader over WARC bytes: plain, or gzipped (one member per record,
    /// or the whole file as one; recognised by the gzip magic). A damaged
    /// gzip member is reported as an error for the record it held, and
    /// reading goes on at the next member (see [`super::gzip`]).
    pub fn new(inner: R) -> Self {
        WarcReader {
            inner: Stream::new(inner),
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
                // Already skipping a lost region, reported: more damage
                // within it is the same loss.
                Err(e) if resync && resumable(&e) => continue,
                Err(e) => return Some(Err(self.io_fail(e))),
            };
            if n == 0 {
                // No record after all.
                self.record -= 1;
                self.state = State::Done;
                return None;
            }
            let l = trim_eol(&line);
            if !long && l.starts_with(b"WARC/") {
                self.inner.in_record = true;
                break;
            }
            if resync || l.is_empty() {
                continue;
            }
            self.resync();
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
                Err(e) => return Some(Err(self.io_fail(e))),
            };
            if n == 0 || (!long && !line.ends_with(b"\n")) {
                return Some(Err(self.fail(WarcError::Truncated("in a record header"))));
            }
            total = total.saturating_add(n);
            if long || total > MAX_HEADER {
                self.resync();
                return Some(Err(WarcError::Header(format!(
                    "longer than {MAX_HEADER} bytes or a line longer than {MAX_LINE}"
                ))));
            }
            let l = trim_eol(&line);
            if l.is_empty() {
                break;
            }
            if let Err(reason) = fields.push_line(l) {
                self.resync();
                return Some(Err(WarcError::Header(reason)));
            }
        }
        let Some(content_length) = fields
            .get("Content-Length")
            .and_then(|v| v.parse::<u64>().ok())
        else {
            self.resync();
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
            got += self.consume_block((want - got) as u64, |bytes| buf.extend_from_slice(bytes))?;
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
            remaining -= self.consume_block(remaining, |_| {})? as u64;
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
                self.resync();
                return Err(WarcError::RecordEnd);
            }
        }
        self.inner.in_record = false;
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
                Err(e) => return Err(self.io_fail(e)),
            }
        }
    }

    /// Looks for the next record start after a malformed or lost record.
    fn resync(&mut self) {
        self.state = State::Resync;
        self.inner.in_record = false;
    }

    /// A read error: after damage to a gzip member, or a record that ran
    /// past its member, reading goes on at the next record; any other
    /// error ends the file.
    /// Consumes the next bytes of the open record's block, at most `max`,
    /// handing them to `sink`; returns how many. The file ending inside the
    /// block is `Truncated`.
    fn consume_block(&mut self, max: u64, sink: impl FnOnce(&[u8])) -> Result<usize> {
        loop {
            let error = match self.inner.fill_buf() {
                Ok(avail) if !avail.is_empty() => {
                    let n = (avail.len() as u64).min(max) as usize;
                    sink(&avail[..n]);
                    self.inner.consume(n);
                    return Ok(n);
                }
                Ok(_) => self.fail(WarcError::Truncated("in a record block")),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => self.io_fail(e),
            };
            return Err(error);
        }
    }

    fn io_fail(&mut self, e: io::Error) -> WarcError {
        if resumable(&e) {
            self.resync();
            WarcError::Io(e)
        } else {
            self.fail(io_error(e))
        }
    }

    /// Ends the file after an error that leaves the reader out of step.
    fn fail(&mut self, e: WarcError) -> WarcError {
        self.state = State::Done;
        self.inner.in_record = false;
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

#[cfg(test)]
mod tests {
    use super::super::testing::record;
    use super::*;

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
}
