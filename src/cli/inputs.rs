//! Turning the command line's inputs into pages, lazily: files, folders
//! (walked recursively for HTML and WARC files, with include/exclude globs),
//! lists of paths, `-` for one page on standard input, and the HTML records
//! of WARC files. Nothing is read before it is needed, so a crawl of any size
//! flows through in bounded memory, and no page is read further than the
//! page limit (`--max-bytes`) needs. Only regular files are read: a FIFO, a
//! device or a socket (named, found in a folder, or behind a symbolic link)
//! gives an error for that input instead of a read that may never end.

use std::collections::{HashSet, VecDeque};
use std::ffi::OsString;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use dechrome::input::{read_page, read_regular_page};
use dechrome::warc::{is_warc_name, record_name, HtmlPages};

/// One page to extract, with where it came from.
#[derive(Debug)]
pub struct Item {
    /// The name written in the output's `path` field: the file, `-`, or
    /// `FILE#N` for the N-th record (from 1) of a WARC file.
    pub name: String,
    /// The page's URL (WARC-Target-URI), for WARC pages.
    pub url: Option<String>,
    /// The capture date (WARC-Date), for WARC pages.
    pub warc_date: Option<String>,
    /// The record's WARC-Record-ID, for WARC pages.
    pub warc_record_id: Option<String>,
    /// Where the bytes are.
    pub source: Source,
}

/// Where a page's bytes are.
#[derive(Debug)]
pub enum Source {
    /// A file, read when the page is processed.
    File {
        /// The file.
        path: PathBuf,
        /// The page limit: no more is read than it needs ([`read_page`]).
        max_bytes: usize,
    },
    /// Standard input.
    Stdin {
        /// The page limit: no more is read than it needs ([`read_page`]).
        max_bytes: usize,
    },
    /// Already read (a WARC record's payload), with the HTTP charset if any.
    Bytes {
        /// The HTML payload.
        bytes: Vec<u8>,
        /// The charset of the HTTP `Content-Type`.
        charset: Option<String>,
    },
    /// The input could not be read; the message says why.
    Failed(String),
}

impl Item {
    fn failed(name: String, message: String) -> Item {
        Item {
            name,
            url: None,
            warc_date: None,
            warc_record_id: None,
            source: Source::Failed(message),
        }
    }

    fn file(path: PathBuf, max_bytes: usize) -> Item {
        Item {
            name: path.display().to_string(),
            url: None,
            warc_date: None,
            warc_record_id: None,
            source: Source::File { path, max_bytes },
        }
    }
}

impl Source {
    /// Reads the page's bytes (and the charset hint, if any): no further
    /// than the page limit needs, from a regular file only.
    pub fn read(self) -> Result<(Vec<u8>, Option<String>), String> {
        match self {
            Source::File { path, max_bytes } => read_regular_page(&path, max_bytes)
                .map(|b| (b, None))
                .map_err(|e| e.to_string()),
            Source::Stdin { max_bytes } => read_page(std::io::stdin().lock(), max_bytes)
                .map(|b| (b, None))
                .map_err(|e| e.to_string()),
            Source::Bytes { bytes, charset } => Ok((bytes, charset)),
            Source::Failed(e) => Err(e),
        }
    }
}

/// Which files a folder walk takes.
#[derive(Debug, Default, Clone)]
pub struct NameFilter {
    include: Option<globset::GlobSet>,
    exclude: Option<globset::GlobSet>,
}

/// Builds one set of globs; `*` stays within a path component, `**` crosses them.
fn glob_set(patterns: &[String]) -> anyhow::Result<Option<globset::GlobSet>> {
    if patterns.is_empty() {
        return Ok(None);
    }
    let mut set = globset::GlobSetBuilder::new();
    for p in patterns {
        let glob = globset::GlobBuilder::new(p)
            .literal_separator(true)
            .build()
            .map_err(|e| anyhow::anyhow!("bad glob {p:?}: {e}"))?;
        set.add(glob);
    }
    Ok(Some(set.build()?))
}

impl NameFilter {
    /// A filter from `--include` and `--exclude` globs. Without includes,
    /// the default names are taken ([`is_default_name`]).
    pub fn new(include: &[String], exclude: &[String]) -> anyhow::Result<Self> {
        Ok(NameFilter {
            include: glob_set(include)?,
            exclude: glob_set(exclude)?,
        })
    }

    /// True when `set` matches the path relative to the walked folder or
    /// the file name.
    fn matches(set: &globset::GlobSet, relative: &Path) -> bool {
        set.is_match(relative) || relative.file_name().is_some_and(|n| set.is_match(n))
    }

    /// True when a file found in a walk is taken.
    pub fn takes_file(&self, relative: &Path) -> bool {
        let included = match &self.include {
            Some(set) => Self::matches(set, relative),
            None => is_default_name(relative),
        };
        included && !self.prunes(relative)
    }

    /// True when an entry (a file, or a folder that is then not walked) is
    /// excluded.
    pub fn prunes(&self, relative: &Path) -> bool {
        self.exclude
            .as_ref()
            .is_some_and(|set| Self::matches(set, relative))
    }
}

/// True for names a folder walk takes by default: HTML pages (optionally
/// gzipped) and WARC files (`.warc`, `.warc.gz`).
pub fn is_default_name(p: &Path) -> bool {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let bare = name.strip_suffix(".gz").unwrap_or(&name);
    [".html", ".htm", ".xhtml", ".shtml"]
        .iter()
        .any(|ext| bare.ends_with(ext))
        || is_warc_name(p)
}

/// A lazy depth-first walk of one folder in sorted order: a folder's files
/// first, then its subfolders. Symbolic links are followed; a folder already
/// walked (a link cycle) is not walked again. Entries that are not regular
/// files (FIFOs, devices, sockets) are taken by name like files and refused
/// when read, so each gives an error line.
struct Walk {
    root: PathBuf,
    dirs: Vec<PathBuf>,
    files: VecDeque<Result<PathBuf, (String, String)>>,
    seen: HashSet<PathBuf>,
    filter: NameFilter,
}

impl Walk {
    fn new(root: PathBuf, filter: NameFilter) -> Self {
        Walk {
            dirs: vec![root.clone()],
            root,
            files: VecDeque::new(),
            seen: HashSet::new(),
            filter,
        }
    }

    /// Lists one folder: its files are queued, its subfolders stacked.
    fn list(&mut self, dir: PathBuf) {
        if let Ok(real) = dir.canonicalize() {
            if !self.seen.insert(real) {
                return;
            }
        }
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) => {
                self.files
                    .push_back(Err((dir.display().to_string(), e.to_string())));
                return;
            }
        };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        let mut subdirs = Vec::new();
        for p in paths {
            let relative = p.strip_prefix(&self.root).unwrap_or(&p).to_path_buf();
            if p.is_dir() {
                if !self.filter.prunes(&relative) {
                    subdirs.push(p);
                }
            } else if self.filter.takes_file(&relative) {
                self.files.push_back(Ok(p));
            }
        }
        subdirs.reverse();
        self.dirs.extend(subdirs);
    }
}

impl Iterator for Walk {
    type Item = Result<PathBuf, (String, String)>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(f) = self.files.pop_front() {
                return Some(f);
            }
            let dir = self.dirs.pop()?;
            self.list(dir);
        }
    }
}

/// The pages of WARC file being read.
struct OpenWarc {
    name: String,
    pages: HtmlPages<Box<dyn BufRead + Send>>,
}

/// Reads a list of paths lazily, one per line (blank lines skipped); `-`
/// reads standard input. A read error ends the list with an error item.
pub fn list_lines(
    list: &str,
) -> anyhow::Result<Box<dyn Iterator<Item = Result<OsString, String>> + Send>> {
    let reader: Box<dyn BufRead + Send> = if list == "-" {
        Box::new(std::io::BufReader::new(std::io::stdin()))
    } else {
        let f = std::fs::File::open(list)
            .map_err(|e| anyhow::anyhow!("cannot read the list {list}: {e}"))?;
        Box::new(std::io::BufReader::new(f))
    };
    let mut failed = false;
    Ok(Box::new(
        reader
            .split(b'\n')
            .map_while(move |line| {
                if failed {
                    return None;
                }
                Some(match line {
                    Ok(l) => Ok(path_from_bytes(l.strip_suffix(b"\r").unwrap_or(&l))),
                    Err(e) => {
                        failed = true;
                        Err(e.to_string())
                    }
                })
            })
            .filter(|l| !matches!(l, Ok(p) if p.to_string_lossy().trim().is_empty())),
    ))
}

/// A path from a list's bytes (any bytes on Unix).
fn path_from_bytes(bytes: &[u8]) -> OsString {
    #[cfg(unix)]
    {
        <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(bytes).to_os_string()
    }
    #[cfg(not(unix))]
    {
        OsString::from(String::from_utf8_lossy(bytes).into_owned())
    }
}

/// The pages of the command line's inputs, produced lazily and in order:
/// each argument (then each listed path) in turn, folders walked, WARC files
/// read record by record. Inputs that cannot be read give an item whose
/// source is [`Source::Failed`], in place.
pub struct Inputs {
    names: Box<dyn Iterator<Item = Result<OsString, String>> + Send>,
    walk: Option<Walk>,
    warc: Option<OpenWarc>,
    filter: NameFilter,
    max_bytes: usize,
}

impl Inputs {
    /// Inputs from `names` (paths, or errors met reading a list), walking
    /// folders with `filter`; WARC payloads are cut at `max_bytes`.
    pub fn new(
        names: Box<dyn Iterator<Item = Result<OsString, String>> + Send>,
        filter: NameFilter,
        max_bytes: usize,
    ) -> Self {
        Inputs {
            names,
            walk: None,
            warc: None,
            filter,
            max_bytes,
        }
    }

    /// A file found or named: a page, or a WARC file opened for its records.
    fn file(&mut self, path: PathBuf) -> Option<Item> {
        if !is_warc_name(&path) {
            return Some(Item::file(path, self.max_bytes));
        }
        let name = path.display().to_string();
        match dechrome::warc::open(&path) {
            Ok(reader) => {
                self.warc = Some(OpenWarc {
                    name,
                    pages: HtmlPages::new(reader, self.max_bytes),
                });
                None
            }
            Err(e) => Some(Item::failed(name, e.to_string())),
        }
    }
}

impl Iterator for Inputs {
    type Item = Item;

    fn next(&mut self) -> Option<Item> {
        loop {
            if let Some(w) = &mut self.warc {
                match w.pages.next() {
                    Some(Ok(page)) => {
                        return Some(Item {
                            name: record_name(&w.name, page.record),
                            url: page.uri,
                            warc_date: page.date,
                            warc_record_id: page.record_id,
                            source: Source::Bytes {
                                bytes: page.body,
                                charset: page.charset,
                            },
                        })
                    }
                    Some(Err(e)) => {
                        let name = record_name(&w.name, e.record);
                        return Some(Item::failed(name, e.error.to_string()));
                    }
                    None => self.warc = None,
                }
            }
            if let Some(walk) = &mut self.walk {
                match walk.next() {
                    Some(Ok(path)) => match self.file(path) {
                        Some(item) => return Some(item),
                        None => continue,
                    },
                    Some(Err((name, e))) => return Some(Item::failed(name, e)),
                    None => self.walk = None,
                }
                continue;
            }
            let arg = match self.names.next()? {
                Ok(a) => a,
                Err(e) => return Some(Item::failed("--files-from".into(), e)),
            };
            if arg == "-" {
                return Some(Item {
                    name: "-".into(),
                    url: None,
                    warc_date: None,
                    warc_record_id: None,
                    source: Source::Stdin {
                        max_bytes: self.max_bytes,
                    },
                });
            }
            let p = PathBuf::from(&arg);
            if p.is_dir() {
                self.walk = Some(Walk::new(p, self.filter.clone()));
            } else if p.exists() {
                if let Some(item) = self.file(p) {
                    return Some(item);
                }
            } else {
                return Some(Item::failed(
                    p.display().to_string(),
                    "no such file or directory".into(),
                ));
            }
        }
    }
}
