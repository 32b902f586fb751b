//! gzip files read member by member, each member's CRC-32 and length
//! checked, and reading resumed after a damaged member.
//!
//! WARC files are gzipped one record per member (or, rarely, as one member).
//! [`Members`] decodes one member at a time and says where each one ends, so
//! the record layer can tell a record that runs past its member. When a
//! member is damaged (corrupt deflate data, a header that is not gzip, a
//! CRC-32 or ISIZE that does not match, a member cut off by the end of the
//! file) it reports one [`Damage`] naming the compressed bytes it skips, and
//! goes on at the next member start (`1f 8b 08` and valid flags) or the end
//! of the file. A member's last decoded bytes are only handed out once its
//! trailer has been checked, so the record that ends in a member with a bad
//! checksum always sees the error.

use std::io::{self, Read};

use flate2::{Decompress, FlushDecompress, Status};

/// The bytes that start every gzip member: the magic number and method 8
/// (deflate, the only one defined).
const MAGIC: [u8; 3] = [0x1f, 0x8b, 0x08];
/// Header flags (RFC 1952, 2.3.1).
const FHCRC: u8 = 0x02;
const FEXTRA: u8 = 0x04;
const FNAME: u8 = 0x08;
const FCOMMENT: u8 = 0x10;
/// Flag bits that must be zero.
const FRESERVED: u8 = 0xe0;
/// Compressed bytes read from the file at a time.
const RAW_CHUNK: usize = 64 * 1024;
/// Decoded bytes produced at a time.
const OUT_CHUNK: usize = 64 * 1024;
/// The longest file name or comment accepted in a member's header.
const MAX_HEADER_TEXT: usize = 64 * 1024;

/// A region of a gzip file that could not be decoded and was skipped. It is
/// reported as the inner error of an [`io::Error`] of kind `InvalidData`
/// (see [`Damage::of`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("damaged gzip data at bytes {start}..{end} of the file, skipped: {reason}")]
pub struct Damage {
    /// Offset in the compressed file of the damaged member's first byte (or
    /// of the first byte that is not gzip data).
    pub start: u64,
    /// Offset where reading resumed: the next member's start, or the end of
    /// the file.
    pub end: u64,
    /// What was wrong.
    pub reason: String,
}

impl Damage {
    /// The damage that `e` reports, if it reports one.
    pub fn of(e: &io::Error) -> Option<&Damage> {
        e.get_ref()?.downcast_ref()
    }
}

/// Where the decoder stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Before a member's header (at the start, after a member, after damage).
    Start,
    /// Inside a member's deflate data.
    Body,
    /// After a member's checked trailer.
    End,
    /// At the end of the file.
    Eof,
}

/// The members of a gzip file, decoded one at a time. [`fill`](Self::fill)
/// gives the current member's decoded bytes (empty at its end);
/// [`next_member`](Self::next_member) starts the next one.
pub struct Members<R> {
    inner: R,
    /// Compressed bytes read and not yet used: `raw[pos..]`.
    raw: Vec<u8>,
    pos: usize,
    raw_eof: bool,
    /// Offset in the file of `raw[pos]`.
    offset: u64,
    /// Offset in the file of the current member's first byte.
    member_start: u64,
    inflate: Decompress,
    crc: crc32fast::Hasher,
    /// The current member's decoded length, modulo 2^32 (as ISIZE is).
    size: u32,
    /// Decoded bytes not read yet: `out[out_pos..]`.
    out: Vec<u8>,
    out_pos: usize,
    phase: Phase,
}

impl<R> std::fmt::Debug for Members<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Members")
            .field("offset", &self.offset)
            .field("member_start", &self.member_start)
            .field("phase", &self.phase)
            .finish_non_exhaustive()
    }
}

impl<R: Read> Members<R> {
    /// A decoder of the gzip bytes read from `inner`, before its first member.
    pub fn new(inner: R) -> Self {
        Members {
            inner,
            raw: Vec::new(),
            pos: 0,
            raw_eof: false,
            offset: 0,
            member_start: 0,
            inflate: Decompress::new(false),
            crc: crc32fast::Hasher::new(),
            size: 0,
            out: Vec::new(),
            out_pos: 0,
            phase: Phase::Start,
        }
    }

    /// Offset in the compressed file of the current member's first byte.
    pub fn member_start(&self) -> u64 {
        self.member_start
    }

    /// The current member's decoded bytes not read yet: empty at the end of
    /// the member (and before the first). An error is damage (see
    /// [`Damage::of`]; reading has then moved to the next member start) or
    /// an I/O error.
    pub fn fill(&mut self) -> io::Result<&[u8]> {
        while self.out_pos == self.out.len() && self.phase == Phase::Body {
            self.inflate_more()?;
        }
        Ok(&self.out[self.out_pos..])
    }

    /// Marks `n` bytes of [`fill`](Self::fill)'s slice as read.
    pub fn consume(&mut self, n: usize) {
        self.out_pos = (self.out_pos + n).min(self.out.len());
    }

    /// Starts the next member, decoding and dropping what is left of the
    /// current one. `false` at the end of the file.
    pub fn next_member(&mut self) -> io::Result<bool> {
        while self.phase == Phase::Body {
            self.out.clear();
            self.out_pos = 0;
            self.inflate_more()?;
        }
        self.out.clear();
        self.out_pos = 0;
        match self.phase {
            Phase::Eof => Ok(false),
            _ => self.begin_member(),
        }
    }

    /// At least `n` unread compressed bytes when the file has them; all the
    /// unread bytes buffered.
    fn raw(&mut self, n: usize) -> io::Result<&[u8]> {
        while self.raw.len() - self.pos < n && !self.raw_eof {
            self.raw.drain(..self.pos);
            self.pos = 0;
            let old = self.raw.len();
            self.raw.resize(old + n.max(RAW_CHUNK), 0);
            let read = self.inner.read(&mut self.raw[old..]);
            self.raw.truncate(old + *read.as_ref().unwrap_or(&0));
            match read {
                Ok(0) => self.raw_eof = true,
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(&self.raw[self.pos..])
    }

    /// Marks `n` compressed bytes as used.
    fn consume_raw(&mut self, n: usize) {
        let n = n.min(self.raw.len() - self.pos);
        self.pos += n;
        self.offset += n as u64;
    }

    /// `n` compressed bytes that must be there, or damage.
    fn skip_raw(&mut self, n: usize) -> io::Result<()> {
        if self.raw(n)?.len() < n {
            return Err(self.damaged("truncated: the file ends inside a gzip header"));
        }
        self.consume_raw(n);
        Ok(())
    }

    /// Reads a member's header (RFC 1952). `false` at the end of the file.
    fn begin_member(&mut self) -> io::Result<bool> {
        self.member_start = self.offset;
        let head = self.raw(10)?;
        if head.is_empty() {
            self.phase = Phase::Eof;
            return Ok(false);
        }
        if head.len() < 10 || head[..3] != MAGIC || head[3] & FRESERVED != 0 {
            let reason = if head.starts_with(&MAGIC) && head.len() < 10 {
                "truncated: the file ends inside a gzip header"
            } else {
                "not the start of a gzip member"
            };
            return Err(self.damaged(reason));
        }
        let flags = head[3];
        self.consume_raw(10);
        if flags & FEXTRA != 0 {
            let x = self.raw(2)?;
            if x.len() < 2 {
                return Err(self.damaged("truncated: the file ends inside a gzip header"));
            }
            let len = usize::from(u16::from_le_bytes([x[0], x[1]]));
            self.consume_raw(2);
            self.skip_raw(len)?;
        }
        for flag in [FNAME, FCOMMENT] {
            if flags & flag != 0 {
                self.skip_text()?;
            }
        }
        if flags & FHCRC != 0 {
            // The header's own CRC-16 is not checked: the data's CRC-32 is.
            self.skip_raw(2)?;
        }
        self.inflate.reset(false);
        self.crc = crc32fast::Hasher::new();
        self.size = 0;
        self.phase = Phase::Body;
        Ok(true)
    }

    /// Skips a zero-terminated header field (file name, comment).
    fn skip_text(&mut self) -> io::Result<()> {
        let mut skipped = 0;
        loop {
            let (zero, len) = {
                let a = self.raw(1)?;
                (memchr::memchr(0, a), a.len())
            };
            if let Some(i) = zero {
                self.consume_raw(i + 1);
                return Ok(());
            }
            if len == 0 {
                return Err(self.damaged("truncated: the file ends inside a gzip header"));
            }
            self.consume_raw(len);
            skipped += len;
            if skipped > MAX_HEADER_TEXT {
                return Err(self.damaged("a gzip header field is too long"));
            }
        }
    }

    /// Decodes the next piece of the member into `out` (which is used up).
    fn inflate_more(&mut self) -> io::Result<()> {
        self.out.clear();
        self.out_pos = 0;
        self.out.reserve(OUT_CHUNK);
        loop {
            if self.raw(1)?.is_empty() {
                return Err(self.damaged("truncated: the file ends inside a gzip member"));
            }
            let before_in = self.inflate.total_in();
            let before_out = self.out.len();
            let status = self.inflate.decompress_vec(
                &self.raw[self.pos..],
                &mut self.out,
                FlushDecompress::None,
            );
            let used = (self.inflate.total_in() - before_in) as usize;
            self.consume_raw(used);
            let produced = &self.out[before_out..];
            self.crc.update(produced);
            self.size = self.size.wrapping_add(produced.len() as u32);
            match status {
                Ok(Status::StreamEnd) => return self.end_member(),
                Ok(_) if !self.out.is_empty() => return Ok(()),
                Ok(_) if used == 0 && self.out.len() == before_out => {
                    return Err(self.damaged("the deflate data makes no progress"))
                }
                Ok(_) => {}
                Err(e) => return Err(self.damaged(&format!("corrupt deflate data: {e}"))),
            }
        }
    }

    /// Checks the member's trailer: CRC-32 and ISIZE. On a mismatch the
    /// last decoded piece is withheld and damage reported.
    fn end_member(&mut self) -> io::Result<()> {
        let t = self.raw(8)?;
        if t.len() < 8 {
            return Err(self.damaged("truncated: the file ends inside a gzip trailer"));
        }
        let crc = u32::from_le_bytes([t[0], t[1], t[2], t[3]]);
        let size = u32::from_le_bytes([t[4], t[5], t[6], t[7]]);
        self.consume_raw(8);
        let ours = std::mem::replace(&mut self.crc, crc32fast::Hasher::new()).finalize();
        if crc != ours {
            return Err(self.damaged("the CRC-32 does not match the data"));
        }
        if size != self.size {
            return Err(self.damaged("the length (ISIZE) does not match the data"));
        }
        self.phase = Phase::End;
        Ok(())
    }

    /// After damage: drops the decoded bytes not read, skips to the next
    /// member start or the end of the file, and describes what was skipped.
    fn damaged(&mut self, reason: &str) -> io::Error {
        self.out.clear();
        self.out_pos = 0;
        self.phase = Phase::Start;
        if self.offset == self.member_start {
            // Not even the header was usable: move on at least one byte.
            self.consume_raw(1);
        }
        if let Err(e) = self.seek_member() {
            self.phase = Phase::Eof;
            return e;
        }
        io::Error::new(
            io::ErrorKind::InvalidData,
            Damage {
                start: self.member_start,
                end: self.offset,
                reason: reason.to_string(),
            },
        )
    }

    /// Moves to the next place where a member may start, or to the end.
    fn seek_member(&mut self) -> io::Result<()> {
        loop {
            let (found, len) = {
                let a = self.raw(MAGIC.len() + 1)?;
                (scan(a), a.len())
            };
            match found {
                Ok(at) => {
                    self.consume_raw(at);
                    return Ok(());
                }
                Err(_) if self.raw_eof => {
                    self.consume_raw(len);
                    return Ok(());
                }
                Err(clean) => self.consume_raw(clean),
            }
        }
    }
}

/// Where a member may start in `a`: `Ok(at)`, or `Err(n)` when none starts
/// in the first `n` bytes (the rest may be the beginning of one).
fn scan(a: &[u8]) -> Result<usize, usize> {
    for at in memchr::memmem::find_iter(a, &MAGIC) {
        match a.get(at + MAGIC.len()) {
            Some(flags) if flags & FRESERVED == 0 => return Ok(at),
            Some(_) => {}
            None => return Err(at),
        }
    }
    Err(a.len().saturating_sub(MAGIC.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(bytes).unwrap();
        enc.finish().unwrap()
    }

    /// Each member's bytes, or the damage met, in order.
    fn members(bytes: &[u8]) -> Vec<Result<Vec<u8>, Damage>> {
        let mut m = Members::new(bytes);
        let mut got = Vec::new();
        loop {
            match m.next_member() {
                Ok(false) => return got,
                Ok(true) => {}
                Err(e) => {
                    got.push(Err(Damage::of(&e).unwrap().clone()));
                    continue;
                }
            }
            let mut data = Vec::new();
            loop {
                match m.fill() {
                    Ok([]) => {
                        got.push(Ok(data));
                        break;
                    }
                    Ok(a) => {
                        let n = a.len();
                        data.extend_from_slice(a);
                        m.consume(n);
                    }
                    Err(e) => {
                        got.push(Err(Damage::of(&e).unwrap().clone()));
                        break;
                    }
                }
            }
        }
    }

    #[test]
    fn members_are_decoded_one_by_one() {
        let mut file = gzip(b"one");
        file.extend(gzip(b""));
        file.extend(gzip(&vec![b'x'; 300_000]));
        let got = members(&file);
        assert_eq!(got.len(), 3);
        assert_eq!(got[0].as_deref().unwrap(), b"one");
        assert_eq!(got[1].as_deref().unwrap(), b"");
        assert_eq!(got[2].as_ref().unwrap().len(), 300_000);
        assert!(members(b"").is_empty());
    }

    #[test]
    fn header_fields_are_skipped() {
        let mut member = vec![
            0x1f,
            0x8b,
            8,
            FEXTRA | FNAME | FCOMMENT | FHCRC,
            0,
            0,
            0,
            0,
            0,
            3,
        ];
        member.extend([3, 0, b'a', b'b', b'c']);
        member.extend(b"name.html\0a comment\0");
        member.extend([0xaa, 0xbb]);
        member.extend(&gzip(b"payload")[10..]);
        assert_eq!(members(&member)[0].as_deref().unwrap(), b"payload");
    }

    #[test]
    fn a_bad_checksum_or_length_is_damage_and_the_next_member_is_read() {
        for at_end in [8, 5, 3] {
            let mut bad = gzip(b"second member, damaged");
            let n = bad.len();
            bad[n - at_end] ^= 0x40;
            let mut file = gzip(b"first");
            let start = file.len() as u64;
            file.extend(&bad);
            let end = file.len() as u64;
            file.extend(gzip(b"third"));
            let got = members(&file);
            assert_eq!(got.len(), 3, "{got:?}");
            let damage = got[1].as_ref().unwrap_err();
            assert_eq!((damage.start, damage.end), (start, end));
            assert_eq!(got[2].as_deref().unwrap(), b"third");
        }
    }

    #[test]
    fn corrupt_deflate_data_and_garbage_are_skipped() {
        let text: Vec<u8> = (0..20_000u32)
            .flat_map(|i| format!("line {i} of some text\n").into_bytes())
            .collect();
        let mut bad = gzip(&text);
        for i in (20..bad.len() - 20).step_by(97) {
            bad[i] ^= 0xff;
        }
        let mut file = gzip(b"first");
        file.extend(&bad);
        file.extend(b"garbage between members");
        file.extend(gzip(b"last"));
        file.extend(b"\0\0\0 trailing junk");
        let got = members(&file);
        assert_eq!(got.first().unwrap().as_deref().unwrap(), b"first");
        assert!(got.iter().any(|m| m.is_err()));
        let last = got.iter().rev().find(|m| m.is_ok()).unwrap();
        assert_eq!(last.as_deref().unwrap(), b"last");
        assert!(got.last().unwrap().is_err(), "trailing junk is reported");
    }

    #[test]
    fn a_member_cut_short_is_damage_to_the_end_of_the_file() {
        let whole = gzip(&vec![b'y'; 10_000]);
        for cut in [1, 5, 12, whole.len() / 2, whole.len() - 1] {
            let got = members(&whole[..cut]);
            assert_eq!(got.len(), 1, "cut at {cut}: {got:?}");
            let damage = got[0].as_ref().unwrap_err();
            assert_eq!(damage.end, cut as u64);
        }
    }

    #[test]
    fn scanning_keeps_a_partial_magic_for_later() {
        assert_eq!(scan(b"ab\x1f\x8b\x08\x00"), Ok(2));
        assert_eq!(scan(b"ab\x1f\x8b\x08\xff\x1f\x8b\x08\x08"), Ok(6));
        assert_eq!(scan(b"abcd\x1f\x8b\x08"), Err(4));
        assert_eq!(scan(b"abcdef"), Err(3));
    }
}
