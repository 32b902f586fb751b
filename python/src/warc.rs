//! WARC files: `dechrome.read_warc` (the HTML responses as dicts) and the
//! reader `extract_warc` feeds its workers from.

use std::io::BufRead;
use std::path::PathBuf;
use std::sync::Mutex;

use dechrome::warc::{record_name, HtmlPages, RecordError};
use dechrome::ExtractorConfig;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::batch::lock;
use crate::convert::{to_py, ConfigError};

/// The HTML pages of an open WARC file.
pub(crate) type Pages = HtmlPages<Box<dyn BufRead + Send>>;

/// The HTML pages of the WARC file at `path`.
pub(crate) fn open_warc(
    py: Python<'_>,
    path: &std::path::Path,
    max_bytes: usize,
) -> PyResult<Pages> {
    let reader = py.detach(|| dechrome::warc::open(path)).map_err(to_py)?;
    Ok(HtmlPages::new(reader, max_bytes))
}

/// The HTML pages of a WARC file, as dicts (see `dechrome.read_warc`).
#[pyclass(module = "dechrome")]
pub(crate) struct WarcPages {
    name: String,
    pages: Mutex<Pages>,
}

#[pymethods]
impl WarcPages {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next page's dict.
    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let mut pages = lock(&self.pages)?;
        let pages: &mut Pages = &mut pages;
        let Some(next) = py.detach(|| pages.next()) else {
            return Ok(None);
        };
        let dict = PyDict::new(py);
        match next {
            Ok(page) => {
                dict.set_item("path", record_name(&self.name, page.record))?;
                dict.set_item("record", page.record)?;
                dict.set_item("url", page.uri)?;
                dict.set_item("warc_date", page.date)?;
                dict.set_item("warc_record_id", page.record_id)?;
                dict.set_item("status", page.status)?;
                dict.set_item("charset", page.charset)?;
                dict.set_item("html", PyBytes::new(py, &page.body))?;
                dict.set_item("truncated", page.truncated)?;
            }
            Err(RecordError { record, error }) => {
                dict.set_item("path", record_name(&self.name, record))?;
                dict.set_item("record", record)?;
                dict.set_item("error", error.to_string())?;
            }
        }
        Ok(Some(dict.into_any().unbind()))
    }
}

/// read_warc(path, *, max_bytes=None)
///
/// The HTML responses of a WARC file, as dicts: path (`FILE#N`), record,
/// url, warc_date, warc_record_id, status, charset, html (bytes, transfer
/// and content codings undone) and truncated; a record that cannot be read
/// gives a dict with `error` and reading goes on when the file allows it.
#[pyfunction]
#[pyo3(signature = (path, *, max_bytes=None))]
pub(crate) fn read_warc(
    py: Python<'_>,
    path: PathBuf,
    max_bytes: Option<usize>,
) -> PyResult<WarcPages> {
    let max_bytes = max_bytes.unwrap_or(ExtractorConfig::default().max_bytes);
    if max_bytes == 0 {
        return Err(ConfigError::new_err("max_bytes must be positive"));
    }
    Ok(WarcPages {
        name: path.display().to_string(),
        pages: Mutex::new(open_warc(py, &path, max_bytes)?),
    })
}
