//! Python binding of dechrome (the `dechrome._dechrome` extension module).
//!
//! A thin layer: it turns Python values into the library's types, runs the
//! library, and turns results back into Python values and errors into
//! exceptions. Every extraction decision, the WARC reading, the shape of
//! the output records and the reading of settings by name belong to the
//! library ([`dechrome::output::record_value`] gives the JSON Lines record
//! that becomes a dict here; [`dechrome::config::settings_from_value`]
//! reads the keyword settings).
//!
//! - `convert`: Python values and errors to and from the library's;
//! - `extractor`: `Extractor` and `extract`, one page at a time;
//! - `page`: a page as handed over (HTML, or a file) and where it came from;
//! - `render`: the `output=` forms (text, dict, Markdown, HTML), rendered
//!   by the library;
//! - `batch`: `extract_many`, `extract_files` and `extract_warc` over a
//!   worker pool;
//! - `warc`: `read_warc` and the WARC reader of `extract_warc`;
//! - `training`: `train` and `evaluate`.

mod batch;
mod convert;
mod extractor;
mod page;
mod render;
mod training;
mod warc;

use pyo3::prelude::*;

use convert::{ConfigError, DechromeError, ModelError, PageError, WarcError};

/// The extension module; `dechrome/__init__.py` re-exports it with docs.
#[pymodule]
fn _dechrome(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<extractor::Extractor>()?;
    m.add_class::<batch::Batch>()?;
    m.add_class::<warc::WarcPages>()?;
    m.add_function(wrap_pyfunction!(extractor::extract, m)?)?;
    m.add_function(wrap_pyfunction!(warc::read_warc, m)?)?;
    m.add_function(wrap_pyfunction!(training::train, m)?)?;
    m.add_function(wrap_pyfunction!(training::evaluate, m)?)?;
    m.add("DechromeError", py.get_type::<DechromeError>())?;
    m.add("ModelError", py.get_type::<ModelError>())?;
    m.add("ConfigError", py.get_type::<ConfigError>())?;
    m.add("PageError", py.get_type::<PageError>())?;
    m.add("WarcError", py.get_type::<WarcError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
