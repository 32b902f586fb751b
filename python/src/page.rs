//! A page as Python hands it over (bytes, text or a path) and where it
//! came from (a file, a WARC record), with the record the library gives
//! for it.

use std::path::PathBuf;

use dechrome::output::{record_value, Origin};
use dechrome::warc::{record_name, WarcPage};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use serde_json::Value;

use crate::convert::type_name;

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

    /// The page's JSON Lines record (the library's), without a `path` key
    /// when the page had none.
    pub(crate) fn record(&self, result: &Result<dechrome::Extraction, String>) -> Value {
        let origin = Origin {
            path: self.path.as_deref().unwrap_or_default(),
            url: self.url.as_deref(),
            warc_date: self.warc_date.as_deref(),
            warc_record_id: self.warc_record_id.as_deref(),
        };
        let mut value = record_value(origin, result);
        if self.path.is_none() {
            if let Value::Object(map) = &mut value {
                map.remove("path");
            }
        }
        value
    }
}

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
    /// The page from a Python value: `bytes`, `str` or an `os.PathLike`
    /// (only when `paths` is true); anything else is `Invalid`.
    pub(crate) fn from_python(obj: &Bound<'_, PyAny>, paths: bool) -> Html {
        if let Ok(b) = obj.cast::<PyBytes>() {
            return Html::Bytes(b.as_bytes().to_vec(), None);
        }
        if let Ok(s) = obj.cast::<PyString>() {
            return match s.to_cow() {
                Ok(s) => Html::Bytes(s.as_bytes().to_vec(), Some("utf-8".into())),
                Err(e) => Html::Invalid(format!("the text is not valid Unicode: {e}")),
            };
        }
        if paths && obj.hasattr("__fspath__").unwrap_or(false) {
            if let Ok(p) = obj.extract::<PathBuf>() {
                return Html::File(p);
            }
        }
        let kind = type_name(obj);
        let expected = if paths {
            "bytes, str or a path"
        } else {
            "bytes or str"
        };
        Html::Invalid(format!("expected {expected}, got {kind}"))
    }

    /// Runs `extractor` on the page; errors as the library words them.
    pub(crate) fn extract(
        self,
        extractor: &dechrome::Extractor,
    ) -> Result<dechrome::Extraction, String> {
        let result = match self {
            Html::Bytes(bytes, charset) => extractor.extract_bytes(&bytes, charset.as_deref()),
            Html::File(path) => {
                match dechrome::input::read_page_file(&path, extractor.config().max_bytes) {
                    Ok(bytes) => extractor.extract_bytes(&bytes, None),
                    Err(e) => Err(e),
                }
            }
            Html::Invalid(message) => return Err(message),
        };
        result.map_err(|e| e.to_string())
    }
}
