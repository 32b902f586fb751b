//! A page as Python hands it over (bytes, text or a path) and where it
//! came from (a file, a WARC record), with the record the library gives
//! for it.

use std::path::{Path, PathBuf};

use dechrome::output::Origin;
use dechrome::warc::{record_name, WarcPage};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use serde_json::Value;

use crate::convert::type_name;
use crate::render::Output;

/// Where a page came from, owned (the library's [`Origin`] borrows).
#[derive(Debug, Default, Clone)]
pub(crate) struct Source {
    /// The `path` key: a file, or `FILE#N` for a WARC record; none for
    /// pages handed over as bytes or text.
    pub(crate) path: Option<String>,
    pub(crate) url: Option<String>,
    pub(crate) warc_date: Option<String>,
    pub(crate) warc_record_id: Option<String>,
}

impl Source {
    pub(crate) fn of_warc(file: &str, page: &WarcPage) -> Self {
        Source {
            path: Some(record_name(file, page.record)),
            url: page.uri.clone(),
            warc_date: page.date.clone(),
            warc_record_id: page.record_id.clone(),
        }
    }

    /// The library's origin of the page (a path of `""` when it has none).
    pub(crate) fn origin(&self) -> Origin<'_> {
        Origin {
            path: self.path.as_deref().unwrap_or_default(),
            url: self.url.as_deref(),
            warc_date: self.warc_date.as_deref(),
            warc_record_id: self.warc_record_id.as_deref(),
        }
    }

    /// The page's JSON Lines record (the library's) in the form `output`
    /// asks for, without a `path` key when the page had none.
    pub(crate) fn record(
        &self,
        result: &Result<dechrome::Extraction, String>,
        output: Output,
    ) -> Value {
        let mut value = output.record(self.origin(), result);
        if self.path.is_none() {
            if let Value::Object(map) = &mut value {
                map.remove("path");
            }
        }
        value
    }
}

/// How a batch reads its items (and `extract` its page).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Inputs {
    /// `bytes` and `str` are the page's HTML, an `os.PathLike` names a
    /// file; a `str` that is one line naming an existing file is refused
    /// with a `TypeError` (it was meant as a path).
    Pages,
    /// Every item (`str` or `os.PathLike`) names a file.
    Files,
}

/// The longest `str` checked for naming a file (Linux's `PATH_MAX`).
const LONGEST_PATH: usize = 4096;

/// A page's content as handed over.
pub(crate) enum Html {
    /// Raw bytes with a charset label from a header (`None`: sniffed);
    /// text comes as its UTF-8 bytes labelled `utf-8`.
    Bytes(Vec<u8>, Option<String>),
    /// A file to read when the page is processed.
    File(PathBuf),
    /// Not a page: the message says why.
    Invalid(String),
}

impl Html {
    /// The page from a Python value read as `inputs` says; a value of
    /// another type is `Invalid`. Raises `TypeError` for a `str` that
    /// names an existing file where a `str` is HTML: without it,
    /// `extract_many(glob.glob("*.html"))` would extract the file names.
    pub(crate) fn from_python(obj: &Bound<'_, PyAny>, inputs: Inputs) -> PyResult<Html> {
        if let (Ok(b), Inputs::Pages) = (obj.cast::<PyBytes>(), inputs) {
            return Ok(Html::Bytes(b.as_bytes().to_vec(), None));
        }
        if let Ok(s) = obj.cast::<PyString>() {
            let text = match s.to_cow() {
                Ok(text) => text,
                Err(e) => return Ok(Html::Invalid(format!("the text is not valid Unicode: {e}"))),
            };
            if inputs == Inputs::Files {
                return Ok(Html::File(PathBuf::from(text.as_ref())));
            }
            if names_a_file(&text) {
                return Err(PyTypeError::new_err(format!(
                    "{text:?} is a str naming a file, and a str is read as the page's HTML: \
                     pass pathlib.Path({text:?}) to read the file (or use Extractor.extract_files \
                     for a list of file names)"
                )));
            }
            return Ok(Html::Bytes(text.as_bytes().to_vec(), Some("utf-8".into())));
        }
        if obj.hasattr("__fspath__").unwrap_or(false) {
            if let Ok(p) = obj.extract::<PathBuf>() {
                return Ok(Html::File(p));
            }
        }
        let expected = match inputs {
            Inputs::Pages => "bytes, str or a path",
            Inputs::Files => "a path (str or os.PathLike)",
        };
        Ok(Html::Invalid(format!(
            "expected {expected}, got {}",
            type_name(obj)
        )))
    }

    /// The file the page is read from, if any.
    pub(crate) fn path(&self) -> Option<String> {
        match self {
            Html::File(p) => Some(p.display().to_string()),
            _ => None,
        }
    }

    /// Runs `extractor` on the page: `Err` with the message when the value
    /// is not a page, else the library's result (its errors typed).
    pub(crate) fn run(
        self,
        extractor: &dechrome::Extractor,
    ) -> Result<dechrome::Result<dechrome::Extraction>, String> {
        Ok(match self {
            Html::Bytes(bytes, charset) => extractor.extract_bytes(&bytes, charset.as_deref()),
            Html::File(path) => {
                dechrome::input::read_page_file(&path, extractor.config().max_bytes)
                    .and_then(|bytes| extractor.extract_bytes(&bytes, None))
            }
            Html::Invalid(message) => return Err(message),
        })
    }

    /// Runs `extractor` on the page; errors as the library words them.
    pub(crate) fn extract(
        self,
        extractor: &dechrome::Extractor,
    ) -> Result<dechrome::Extraction, String> {
        self.run(extractor)?.map_err(|e| e.to_string())
    }
}

/// True when `text` is one line (a trailing line break allowed) naming an
/// existing file or folder: a path handed over as a `str`. Pages are
/// longer than a path or hold a line break, and then nothing is looked up.
fn names_a_file(text: &str) -> bool {
    let line = text.trim_end_matches(['\n', '\r']);
    !line.is_empty()
        && line.len() <= LONGEST_PATH
        && !line.contains(['\n', '\r', '\0', '<'])
        && Path::new(line).exists()
}
