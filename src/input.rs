//! Reading a page from a file or a stream without trusting it: only
//! regular files are opened, and no more is read than the page limit needs.

use std::io::Read;
use std::path::Path;

use crate::parse::charset::{gzip_input_bound, is_gzip};

/// Opens a file for reading when it is a regular file (symbolic links
/// followed). FIFOs, devices and sockets are refused with an error of kind
/// `InvalidInput`: reading one may block forever (a FIFO with no writer) or
/// never end (`/dev/zero`). The type is checked before opening (opening a
/// FIFO blocks) and again on the open file.
pub fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    open_regular_sized(path).map(|(file, _)| file)
}

/// [`open_regular`], with the file's length in bytes.
fn open_regular_sized(path: &Path) -> std::io::Result<(std::fs::File, u64)> {
    check_regular(&std::fs::metadata(path)?)?;
    let file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    check_regular(&meta)?;
    Ok((file, meta.len()))
}

/// An error unless `meta` is a regular file's, naming what it is instead.
fn check_regular(meta: &std::fs::Metadata) -> std::io::Result<()> {
    let kind = meta.file_type();
    if kind.is_file() {
        return Ok(());
    }
    let what = if kind.is_dir() {
        "a directory"
    } else {
        special_kind(&kind)
    };
    Err(std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!("not a regular file ({what}); skipped"),
    ))
}

/// What a file that is neither a regular file nor a directory is.
#[cfg(unix)]
fn special_kind(kind: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

/// What a file that is neither a regular file nor a directory is.
#[cfg(not(unix))]
fn special_kind(_: &std::fs::FileType) -> &'static str {
    "a special file"
}

/// Reads a page's bytes, no further than a page of `max_bytes` needs:
/// `max_bytes + 1` bytes (one more than the limit, so the parser sees that
/// the page was cut and flags it), or for gzip data [`gzip_input_bound`]
/// bytes (the compressed form of a page of `max_bytes` fits in them; the
/// decompressed output is bounded separately when the page is parsed).
pub fn read_page(reader: impl Read, max_bytes: usize) -> std::io::Result<Vec<u8>> {
    read_page_sized(reader, max_bytes, 0)
}

/// [`read_page`] into a buffer made for `expected` bytes (a file's length),
/// so that a file is read in one go instead of into a buffer doubled and
/// copied as it fills (125 M instructions on the 130 readability pages,
/// half what their metadata costs).
fn read_page_sized(
    mut reader: impl Read,
    max_bytes: usize,
    expected: u64,
) -> std::io::Result<Vec<u8>> {
    let plain = max_bytes.saturating_add(1);
    let mut out = Vec::with_capacity(usize::try_from(expected).unwrap_or(plain).min(plain));
    (&mut reader).take(plain as u64).read_to_end(&mut out)?;
    if out.len() == plain && is_gzip(&out) {
        let more = gzip_input_bound(max_bytes).saturating_sub(plain);
        reader.take(more as u64).read_to_end(&mut out)?;
    }
    Ok(out)
}

/// Reads the page in the regular file `path` ([`open_regular`]), no
/// further than a page of `max_bytes` needs ([`read_page`]).
pub fn read_page_file(path: &Path, max_bytes: usize) -> crate::Result<Vec<u8>> {
    read_regular_page(path, max_bytes).map_err(|e| crate::Error::io(path, e))
}

/// [`read_page_file`] with the bare I/O error: the regular file `path`
/// ([`open_regular`]) read no further than a page of `max_bytes` needs
/// ([`read_page`]), into a buffer of the file's length.
pub fn read_regular_page(path: &Path, max_bytes: usize) -> std::io::Result<Vec<u8>> {
    let (file, len) = open_regular_sized(path)?;
    read_page_sized(file, max_bytes, len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_read_no_further_than_the_limit_needs() {
        // An endless input (a device, a pipe that never closes its end).
        let page = read_page(std::io::repeat(b'x'), 1000).unwrap();
        assert_eq!(page.len(), 1001, "one byte over the limit: cut and flagged");
        let page = read_page(&b"<p>short</p>"[..], 1000).unwrap();
        assert_eq!(page, b"<p>short</p>");
        // gzip data: room for the compressed form of a page of the limit.
        let endless_gzip = std::io::Read::chain(&[0x1f, 0x8b, 0x08][..], std::io::repeat(0));
        let page = read_page(endless_gzip, 1000).unwrap();
        assert_eq!(page.len(), gzip_input_bound(1000));
    }

    #[test]
    fn a_file_is_read_into_a_buffer_of_its_length() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("page.html");
        let bytes: Vec<u8> = (0..5000u32).map(|i| b'a' + (i % 26) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let page = read_regular_page(&path, 10_000).unwrap();
        assert_eq!(page, bytes);
        // Not grown by doubling (8 KiB and more) while it was read.
        assert!(page.capacity() < 2 * bytes.len(), "{}", page.capacity());
        // Over the limit: cut one byte past it, as from a stream.
        assert_eq!(read_regular_page(&path, 1000).unwrap().len(), 1001);
        // Not a regular file: refused.
        assert!(read_regular_page(dir.path(), 1000).is_err());
    }
}
