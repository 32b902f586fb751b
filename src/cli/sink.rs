//! Where `extract` writes its pages: one stream (standard output or `-o
//! FILE`) that a program can split when it holds several pages, or one file
//! per page in a folder (`--out-dir`).
//!
//! In one stream, several pages in `json` form one JSON array; in `text`,
//! `markdown` and `html` each page is preceded by a header line naming it
//! (`==> PATH <==` for text, as `head` and `tail` write for several files;
//! `<!-- dechrome: PATH -->` for Markdown and HTML, which renderers do not
//! show), with a blank line between pages; `jsonl` is split by lines already.
//! Whether a run has several pages is decided from the command line (see
//! [`names_one_page`]), never from the count of pages found, so the shape of
//! the output is known before the run.

use std::collections::HashSet;
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use dechrome::output::Format;
use dechrome::pending_file::PendingFile;
use dechrome::warc::is_warc_name;

/// True when the command line names exactly one page: one input that is
/// standard input (`-`) or a file that is not a WARC file, and no list of
/// paths. Folders, WARC files, lists and several inputs make a run of
/// several pages, even when they turn out to hold one.
pub fn names_one_page(inputs: &[OsString], files_from: Option<&str>) -> bool {
    match (inputs, files_from) {
        ([one], None) => {
            let path = Path::new(one);
            one == "-" || (!path.is_dir() && !is_warc_name(path))
        }
        _ => false,
    }
}

/// One stream of pages: writes the JSON array's brackets and commas, or the
/// header lines between pages, around each page's rendered output.
pub struct Stream {
    out: Box<dyn Write + Send>,
    format: Format,
    several: bool,
    pages: usize,
}

impl Stream {
    /// A stream of pages in `format` to `out`; `several` when the run may
    /// hold more than one page ([`names_one_page`]).
    pub fn new(out: Box<dyn Write + Send>, format: Format, several: bool) -> Self {
        Stream {
            out,
            format,
            several,
            pages: 0,
        }
    }

    /// Writes one page's output (ending with a newline, as rendered), with
    /// the separator it needs.
    pub fn page(&mut self, path: &str, rendered: &str) -> std::io::Result<()> {
        let first = self.pages == 0;
        self.pages += 1;
        if !self.several {
            return self.out.write_all(rendered.as_bytes());
        }
        match self.format {
            Format::Json => {
                self.out.write_all(if first { b"[\n" } else { b",\n" })?;
                let object = rendered.strip_suffix('\n').unwrap_or(rendered);
                self.out.write_all(object.as_bytes())
            }
            Format::Jsonl => self.out.write_all(rendered.as_bytes()),
            Format::Text | Format::Markdown | Format::Html => {
                if !first {
                    self.out.write_all(b"\n")?;
                }
                let header = match self.format {
                    Format::Text => format!("==> {path} <==\n"),
                    // A comment cannot hold `--`: such a path is written with `-~`.
                    _ => format!("<!-- dechrome: {} -->\n", path.replace("--", "-~")),
                };
                self.out.write_all(header.as_bytes())?;
                self.out.write_all(rendered.as_bytes())
            }
        }
    }

    /// Ends the stream: closes the JSON array (an empty one when there was
    /// no page) and flushes.
    pub fn finish(mut self) -> std::io::Result<()> {
        if self.several && self.format == Format::Json {
            let close: &[u8] = if self.pages == 0 { b"[]\n" } else { b"\n]\n" };
            self.out.write_all(close)?;
        }
        self.out.flush()
    }
}

/// The file extension of a page written in `format` to its own file.
pub fn extension(format: Format) -> &'static str {
    match format {
        Format::Text => "txt",
        Format::Json => "json",
        Format::Jsonl => "jsonl",
        Format::Markdown => "md",
        Format::Html => "html",
    }
}

/// Names the files of `--out-dir`: one per page, from the input's file
/// name, never the same name twice in a run.
pub struct OutDir {
    dir: PathBuf,
    extension: &'static str,
    /// The names given so far, lower-cased (a case-insensitive file system
    /// would make `A.md` and `a.md` one file).
    taken: HashSet<String>,
}

impl OutDir {
    /// Names for pages in `format` in the folder `dir`, which is created.
    pub fn create(dir: &Path, format: Format) -> anyhow::Result<Self> {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        Ok(OutDir {
            dir: dir.to_path_buf(),
            extension: extension(format),
            taken: HashSet::new(),
        })
    }

    /// The file for the page named `item_name` (a path, `-`, or `FILE#N`
    /// for the N-th record of a WARC file): the file's stem (`page` for
    /// `page.html.gz`), `stdin` for `-`, or `FILE-00000N` for a WARC record,
    /// then `-2`, `-3` ... when the name is taken already in this run.
    pub fn name(&mut self, item_name: &str) -> PathBuf {
        let base = base_name(item_name);
        let mut n = 1;
        loop {
            let name = match n {
                1 => format!("{base}.{}", self.extension),
                _ => format!("{base}-{n}.{}", self.extension),
            };
            if self.taken.insert(name.to_lowercase()) {
                return self.dir.join(name);
            }
            n += 1;
        }
    }
}

/// The name of a page's file without its extension (see [`OutDir::name`]).
fn base_name(item_name: &str) -> String {
    if item_name == "-" {
        return "stdin".to_string();
    }
    let file_name = |p: &str| {
        Path::new(p)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    if let Some((file, record)) = item_name.rsplit_once('#') {
        let numbered = !record.is_empty() && record.bytes().all(|b| b.is_ascii_digit());
        if numbered && is_warc_name(Path::new(file)) {
            return format!("{}-{record:0>6}", file_name(file));
        }
    }
    let name = file_name(item_name);
    let bare = name
        .strip_suffix(".gz")
        .or_else(|| name.strip_suffix(".GZ"))
        .unwrap_or(&name);
    let stem = Path::new(bare)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    if stem.is_empty() || stem.starts_with('.') {
        format!("page{stem}")
    } else {
        stem
    }
}

/// Writes one page's file whole or not at all.
pub fn write_page(target: &Path, rendered: &str) -> anyhow::Result<()> {
    let (pending, mut file) = PendingFile::create(target)
        .with_context(|| format!("cannot write {}", target.display()))?;
    file.write_all(rendered.as_bytes())
        .and_then(|_| file.sync_data())
        .with_context(|| format!("cannot write {}", target.display()))?;
    drop(file);
    pending.commit()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_from_the_input_and_are_never_given_twice() {
        let dir = tempfile::tempdir().unwrap();
        let mut out = OutDir::create(&dir.path().join("out"), Format::Markdown).unwrap();
        let name = |out: &mut OutDir, item: &str| {
            out.name(item)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        };
        assert_eq!(name(&mut out, "pages/a/index.html"), "index.md");
        assert_eq!(name(&mut out, "pages/b/index.html.gz"), "index-2.md");
        assert_eq!(name(&mut out, "pages/c/INDEX.htm"), "INDEX-3.md");
        assert_eq!(
            name(&mut out, "crawl/name.warc.gz#17"),
            "name.warc.gz-000017.md"
        );
        assert_eq!(name(&mut out, "-"), "stdin.md");
        assert_eq!(name(&mut out, "odd#name.html"), "odd#name.md");
        assert_eq!(name(&mut out, "dir/.html"), "page.html.md");
        assert!(dir.path().join("out").is_dir());
    }

    #[test]
    fn several_json_pages_form_one_array() {
        let buf = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
        impl Write for Shared {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().write(b)
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        for pages in [0, 1, 3] {
            buf.lock().unwrap().clear();
            let mut s = Stream::new(Box::new(Shared(buf.clone())), Format::Json, true);
            for i in 0..pages {
                s.page("p", &format!("{{\n  \"n\": {i}\n}}\n")).unwrap();
            }
            s.finish().unwrap();
            let v: serde_json::Value = serde_json::from_slice(&buf.lock().unwrap()).unwrap();
            assert_eq!(v.as_array().unwrap().len(), pages);
        }
    }
}
