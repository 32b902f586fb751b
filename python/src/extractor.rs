//! `dechrome.Extractor` and `dechrome.extract`: extractors built from
//! keyword settings by the library's one constructor
//! ([`dechrome::Extractor::from_config`]), and one page at a time.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::batch::{Batch, Feed};
use crate::convert::{self, to_py, to_python};
use crate::page::{Html, Inputs, Source};
use crate::render::Output;
use crate::warc::open_warc;

/// Extracts main content from pages with a loaded model (or one of the
/// unsupervised algorithms). Thread-safe; the GIL is released while a page
/// is processed.
#[pyclass(module = "dechrome", frozen)]
pub(crate) struct Extractor {
    pub(crate) inner: Arc<dechrome::Extractor>,
    /// `inner` recording the structure, made when Markdown or HTML is
    /// first asked for (the same as `inner` when it records it already).
    structured: OnceLock<Arc<dechrome::Extractor>>,
}

impl Extractor {
    /// The extractor `config` describes (the model loaded without the GIL).
    pub(crate) fn from_config(py: Python<'_>, config: dechrome::ExtractorConfig) -> PyResult<Self> {
        let inner = py
            .detach(move || dechrome::Extractor::from_config(config))
            .map_err(to_py)?;
        Ok(Self::over(Arc::new(inner)))
    }

    /// The Python extractor over a built one.
    fn over(inner: Arc<dechrome::Extractor>) -> Self {
        Extractor {
            inner,
            structured: OnceLock::new(),
        }
    }

    /// The extractor for `output`: `inner`, or for Markdown and HTML the
    /// same one recording the kept content's structure (plain text does
    /// not pay for it).
    fn for_output(&self, output: Output) -> Arc<dechrome::Extractor> {
        if !output.needs_structure() || self.inner.config().structure {
            return self.inner.clone();
        }
        self.structured
            .get_or_init(|| Arc::new(self.inner.with_structure(true)))
            .clone()
    }

    /// Runs one page and returns it in the form `output` asks for.
    fn run(
        &self,
        py: Python<'_>,
        html: &Bound<'_, PyAny>,
        url: Option<String>,
        output: Output,
    ) -> PyResult<Py<PyAny>> {
        let html = Html::from_python(html, Inputs::Pages)?;
        if let Html::Invalid(message) = &html {
            return Err(PyTypeError::new_err(message.clone()));
        }
        let source = Source {
            path: html.path(),
            url,
            ..Source::default()
        };
        let extractor = self.for_output(output);
        let extraction = py
            .detach(move || html.run(&extractor))
            .map_err(PyTypeError::new_err)?
            .map_err(to_py)?;
        if output == Output::Dict {
            return to_python(py, &source.record(&Ok(extraction), output));
        }
        let content = output.content(source.origin(), &extraction);
        Ok(PyString::new(py, &content).into_any().unbind())
    }

    /// A batch over `feed` on `threads` workers, its records in the form
    /// `output` names.
    fn batch(
        &self,
        feed: Feed,
        threads: Option<usize>,
        ordered: bool,
        output: &str,
    ) -> PyResult<Batch> {
        let output = Output::for_batch(output)?;
        let index = !matches!(feed, Feed::Warc { .. });
        Batch::start(
            self.for_output(output),
            feed,
            Self::pool(threads)?,
            ordered,
            index,
            output,
        )
    }

    /// A worker pool of `threads` threads (`None`: one per core).
    /// More than [`dechrome::config::max_threads`] is a `ConfigError`.
    pub(crate) fn pool(threads: Option<usize>) -> PyResult<Arc<rayon::ThreadPool>> {
        let threads = match threads {
            Some(n) => dechrome::config::check_threads(n).map_err(to_py)?,
            None => 0,
        };
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map(Arc::new)
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start worker threads: {e}")))
    }
}

#[pymethods]
impl Extractor {
    /// Extractor(model=None, **settings)
    ///
    /// `model` is a path to a model file (default: the model embedded in the
    /// package). The keyword arguments are the extraction settings, by the
    /// names of the library's `ExtractorConfig` (the keys of `dechrome
    /// extract --config FILE`): `algorithm`, `threshold`, `comments`,
    /// `keep_captions`, `page_timeout` (seconds), ..., and nested groups as
    /// dicts (`classic={"crunch_retain_links": True}`). Raises ModelError
    /// for a model file that is not a usable dechrome model, ConfigError
    /// for an unknown setting or one of the wrong type or out of range,
    /// OSError when a file cannot be read.
    #[new]
    #[pyo3(signature = (model=None, **settings))]
    fn new(
        py: Python<'_>,
        model: Option<&Bound<'_, PyAny>>,
        settings: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let config = convert::settings(model, settings)?;
        Self::from_config(py, config)
    }

    /// The algorithm in use (`"forest"`, `"kmeans"`, ...).
    #[getter]
    fn algorithm(&self) -> &'static str {
        self.inner.algorithm().name()
    }

    /// How far the threshold falls on a page whose kept text is not prose
    /// (0.08 unless `low_prose_shift` is given; 0 for the algorithms
    /// without a model).
    #[getter]
    fn low_prose_shift(&self) -> f32 {
        self.inner.low_prose_shift()
    }

    /// extract(html, *, url=None, output="text")
    ///
    /// One page: `html` as bytes (charset sniffed like the CLI does) or
    /// str, or an `os.PathLike` naming a file (a str naming an existing
    /// file raises TypeError: pass pathlib.Path). output="text" gives the
    /// main text, "markdown" the kept content as Markdown, "html" as a
    /// clean HTML document, "dict" the page's JSON Lines record (text,
    /// title, author, date, language, ..., algorithm). Raises PageError
    /// for a page the limits refuse, OSError for a file that cannot be read.
    #[pyo3(signature = (html, *, url=None, output="text"))]
    fn extract(
        &self,
        py: Python<'_>,
        html: &Bound<'_, PyAny>,
        url: Option<String>,
        output: &str,
    ) -> PyResult<Py<PyAny>> {
        self.run(py, html, url, Output::for_page(output)?)
    }

    /// extract_many(pages, threads=None, ordered=True, output="text")
    ///
    /// Extracts an iterable of pages (bytes or str as HTML, `os.PathLike`
    /// as files read by the workers; a str naming an existing file raises
    /// TypeError) on `threads` worker threads (default: one per core)
    /// with the GIL released, yielding one dict per page as the pages are
    /// done: the page's JSON Lines record plus `index`, its position in the
    /// input (and `path` for files); output="markdown" or "html" adds the
    /// kept content in that form as `markdown` or `html`. Input order
    /// unless ordered=False. A page that fails gives a dict with `error`,
    /// and the batch goes on.
    #[pyo3(signature = (pages, threads=None, ordered=true, output="text"))]
    fn extract_many(
        &self,
        pages: &Bound<'_, PyAny>,
        threads: Option<usize>,
        ordered: bool,
        output: &str,
    ) -> PyResult<Batch> {
        let feed = Feed::Python(pages.try_iter()?.unbind(), Inputs::Pages);
        self.batch(feed, threads, ordered, output)
    }

    /// extract_files(paths, threads=None, ordered=True, output="text")
    ///
    /// extract_many over files: every item (str or `os.PathLike`) names a
    /// file, so `extract_files(glob.glob("pages/*.html"))` works as it reads.
    #[pyo3(signature = (paths, threads=None, ordered=true, output="text"))]
    fn extract_files(
        &self,
        paths: &Bound<'_, PyAny>,
        threads: Option<usize>,
        ordered: bool,
        output: &str,
    ) -> PyResult<Batch> {
        let feed = Feed::Python(paths.try_iter()?.unbind(), Inputs::Files);
        self.batch(feed, threads, ordered, output)
    }

    /// extract_warc(path, threads=None, ordered=True, output="text")
    ///
    /// Extracts the HTML responses of a WARC file (.warc or .warc.gz),
    /// yielding one dict per page: the same record as a line of `dechrome
    /// extract --format jsonl FILE` (path `FILE#N`, url, warc_date,
    /// warc_record_id, text, metadata, algorithm; with output="markdown"
    /// also `markdown`, as `--with-markdown` gives it, with "html" `html`),
    /// or `error` for a record that cannot be read or extracted.
    #[pyo3(signature = (path, threads=None, ordered=true, output="text"))]
    fn extract_warc(
        &self,
        py: Python<'_>,
        path: PathBuf,
        threads: Option<usize>,
        ordered: bool,
        output: &str,
    ) -> PyResult<Batch> {
        let pages = open_warc(py, &path, self.inner.config().max_bytes)?;
        let feed = Feed::Warc {
            name: path.display().to_string(),
            pages,
        };
        self.batch(feed, threads, ordered, output)
    }

    fn __repr__(&self) -> String {
        format!("dechrome.Extractor(algorithm={:?})", self.algorithm())
    }
}
/// Extractors made by `dechrome.extract`, by their settings (as JSON), so
/// that the embedded model is decoded once per process. At most
/// [`SHARED_EXTRACTORS`] are kept: a program varying a setting on every
/// call should make its own `Extractor`s.
type SharedExtractors = HashMap<String, Arc<dechrome::Extractor>>;

/// The most extractors `dechrome.extract` keeps (a few models' worth of memory).
const SHARED_EXTRACTORS: usize = 8;

/// The extractor `dechrome.extract` uses for `settings` (recording the
/// structure when `structure`), built once.
fn shared_extractor(
    py: Python<'_>,
    settings: Option<&Bound<'_, PyDict>>,
    structure: bool,
) -> PyResult<Arc<dechrome::Extractor>> {
    static CACHE: OnceLock<Mutex<SharedExtractors>> = OnceLock::new();
    let mut config = convert::settings(None, settings)?;
    config.structure |= structure;
    let key = serde_json::to_string(&config)
        .map_err(|e| PyRuntimeError::new_err(format!("settings: {e}")))?;
    let cache = CACHE.get_or_init(Default::default);
    if let Some(e) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
        return Ok(e);
    }
    let made = Extractor::from_config(py, config)?.inner;
    if let Ok(mut c) = cache.lock() {
        if c.len() >= SHARED_EXTRACTORS {
            c.clear();
        }
        c.insert(key, made.clone());
    }
    Ok(made)
}

/// extract(html, *, url=None, output="text", **settings)
///
/// One page with the embedded model and `settings` (the keywords of
/// Extractor; `html` and `output` as in Extractor.extract: "text",
/// "markdown", "html" or "dict").
#[pyfunction]
#[pyo3(signature = (html, *, url=None, output="text", **settings))]
pub(crate) fn extract(
    py: Python<'_>,
    html: &Bound<'_, PyAny>,
    url: Option<String>,
    output: &str,
    settings: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<PyAny>> {
    let output = Output::for_page(output)?;
    let extractor = Extractor::over(shared_extractor(py, settings, output.needs_structure())?);
    extractor.run(py, html, url, output)
}
