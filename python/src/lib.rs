//! Python binding of dechrome (the `dechrome._dechrome` extension module).
//!
//! A thin layer: it turns Python values into the library's types, runs the
//! library, and turns results back into Python values and errors into
//! exceptions. Every extraction decision, the WARC reading and the shape of
//! the output records belong to the library ([`dechrome::output::record_value`]
//! gives the JSON Lines record that becomes a dict here).

use std::collections::{BTreeMap, HashMap};
use std::io::BufRead;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use dechrome::config::CommentMode;
use dechrome::output::{record_value, Origin};
use dechrome::warc::{record_name, HtmlPages, RecordError, WarcPage};
use dechrome::{Algorithm, ExtractorConfig, Model, TrainConfig};
use pyo3::create_exception;
use pyo3::exceptions::{
    PyException, PyFileNotFoundError, PyOSError, PyPermissionError, PyRuntimeError, PyTypeError,
};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyIterator, PyList, PyString};
use serde_json::Value;

create_exception!(
    _dechrome,
    DechromeError,
    PyException,
    "Base class of the errors dechrome raises."
);
create_exception!(
    _dechrome,
    ModelError,
    DechromeError,
    "A model file was refused: not a dechrome model, truncated, corrupt, or of another format version."
);
create_exception!(
    _dechrome,
    ConfigError,
    DechromeError,
    "A setting is out of its range or unknown."
);
create_exception!(
    _dechrome,
    PageError,
    DechromeError,
    "A page could not be processed (too many nodes, nested too deep, over its time budget)."
);
create_exception!(
    _dechrome,
    WarcError,
    DechromeError,
    "A WARC file or one of its records could not be read."
);

/// The exception for a library error: I/O errors become `OSError` (with the
/// path), the others the `DechromeError` subclass of their kind.
fn to_py(e: dechrome::Error) -> PyErr {
    let message = e.to_string();
    match e {
        dechrome::Error::Io { path, source } => {
            let args = (
                source.raw_os_error().unwrap_or(0),
                source.to_string(),
                path.display().to_string(),
            );
            match source.kind() {
                std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(args),
                std::io::ErrorKind::PermissionDenied => PyPermissionError::new_err(args),
                _ => PyOSError::new_err(args),
            }
        }
        dechrome::Error::Config { .. } => ConfigError::new_err(message),
        dechrome::Error::Model(_) => ModelError::new_err(message),
        dechrome::Error::Page(_) => PageError::new_err(message),
        dechrome::Error::Warc(_) => WarcError::new_err(message),
        _ => DechromeError::new_err(message),
    }
}

/// A JSON value as the Python object it reads as.
fn to_python(py: Python<'_>, value: &Value) -> PyResult<Py<PyAny>> {
    Ok(match value {
        Value::Null => py.None(),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any().unbind(),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any().unbind(),
            (None, Some(f)) => f.into_pyobject(py)?.into_any().unbind(),
            (None, None) => n.to_string().into_pyobject(py)?.into_any().unbind(),
        },
        Value::String(s) => PyString::new(py, s).into_any().unbind(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_python(py, item)?)?;
            }
            list.into_any().unbind()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, to_python(py, v)?)?;
            }
            dict.into_any().unbind()
        }
    })
}

/// Where a page came from, owned (the library's [`Origin`] borrows).
#[derive(Debug, Default, Clone)]
struct Source {
    /// The `path` key: a file, or `FILE#N` for a WARC record; none for
    /// pages handed over as bytes or text.
    path: Option<String>,
    url: Option<String>,
    warc_date: Option<String>,
    warc_record_id: Option<String>,
}

impl Source {
    fn of_warc(file: &str, page: &WarcPage) -> Self {
        Source {
            path: Some(record_name(file, page.record)),
            url: page.uri.clone(),
            warc_date: page.date.clone(),
            warc_record_id: page.record_id.clone(),
        }
    }

    /// The page's JSON Lines record (the library's), without a `path` key
    /// when the page had none.
    fn record(&self, result: &Result<dechrome::Extraction, String>) -> Value {
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
enum Html {
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
    fn from_python(obj: &Bound<'_, PyAny>, paths: bool) -> Html {
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
        let kind = obj
            .get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_else(|_| "?".into());
        let expected = if paths {
            "bytes, str or a path"
        } else {
            "bytes or str"
        };
        Html::Invalid(format!("expected {expected}, got {kind}"))
    }

    /// Runs `extractor` on the page; errors as the library words them.
    fn extract(self, extractor: &dechrome::Extractor) -> Result<dechrome::Extraction, String> {
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

/// The choice called `name` among `choices` (name, value), or a
/// `ConfigError` that lists them.
fn choose<T: Copy>(what: &str, name: &str, choices: &[(&'static str, T)]) -> PyResult<T> {
    if let Some((_, value)) = choices.iter().find(|(n, _)| *n == name) {
        return Ok(*value);
    }
    let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
    Err(ConfigError::new_err(format!(
        "unknown {what} {name:?}: expected one of {}",
        names.join(", ")
    )))
}

/// The algorithm called `name`.
fn algorithm(name: &str) -> PyResult<Algorithm> {
    let choices = Algorithm::SELECTABLE.map(|a| (a.name(), a));
    choose("algorithm", name, &choices)
}

/// The comment mode called `name`.
fn comment_mode(name: &str) -> PyResult<CommentMode> {
    let choices = CommentMode::ALL.map(|m| (m.name(), m));
    choose("comments mode", name, &choices)
}

/// Whether `extract` returns the text or the record as a dict.
fn wants_dict(output: &str) -> PyResult<bool> {
    match output {
        "text" => Ok(false),
        "dict" => Ok(true),
        _ => Err(ConfigError::new_err(format!(
            "unknown output {output:?}: expected \"text\" or \"dict\""
        ))),
    }
}

/// Extracts main content from pages with a loaded model (or one of the
/// unsupervised algorithms). Thread-safe; the GIL is released while a page
/// is processed.
#[pyclass(module = "dechrome", frozen)]
struct Extractor {
    inner: Arc<dechrome::Extractor>,
    /// Pages (and WARC payloads) are cut at this many bytes.
    max_bytes: usize,
}

impl Extractor {
    /// Runs one page and returns the text or the record.
    fn run(
        &self,
        py: Python<'_>,
        html: &Bound<'_, PyAny>,
        url: Option<String>,
        dict: bool,
    ) -> PyResult<Py<PyAny>> {
        let (bytes, charset) = match Html::from_python(html, false) {
            Html::Bytes(bytes, charset) => (bytes, charset),
            Html::Invalid(message) => return Err(PyTypeError::new_err(message)),
            Html::File(path) => {
                return Err(PyTypeError::new_err(format!(
                    "expected bytes or str, got the path {}",
                    path.display()
                )))
            }
        };
        let inner = self.inner.clone();
        let extraction = py
            .detach(move || inner.extract_bytes(&bytes, charset.as_deref()))
            .map_err(to_py)?;
        if !dict {
            return Ok(PyString::new(py, &extraction.text).into_any().unbind());
        }
        let source = Source {
            url,
            ..Source::default()
        };
        to_python(py, &source.record(&Ok(extraction)))
    }

    /// A worker pool of `threads` threads (`None`: one per core).
    /// More than [`dechrome::config::max_threads`] is a `ConfigError`.
    fn pool(threads: Option<usize>) -> PyResult<Arc<rayon::ThreadPool>> {
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
    /// Extractor(model=None, *, algorithm="forest", comments="exclude", threshold=None,
    /// low_prose_shift=None, max_bytes=None, short_page_blocks=None, page_timeout=None, fallback=False,
    /// retain_links=False, ad_hosts=None, keep_captions=False, keep_repeats=False)
    ///
    /// `model` is a path to a model file (default: the model embedded in the
    /// package). The keywords are the settings of `dechrome extract`. Raises
    /// ModelError for a model file that is not a usable dechrome model,
    /// ConfigError for a setting out of range, OSError when a file cannot be read.
    #[new]
    #[pyo3(signature = (model=None, *, algorithm="forest", comments="exclude", threshold=None,
        low_prose_shift=None, max_bytes=None, short_page_blocks=None, page_timeout=None, fallback=false,
        retain_links=false, ad_hosts=None, keep_captions=false, keep_repeats=false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        model: Option<PathBuf>,
        algorithm: &str,
        comments: &str,
        threshold: Option<f32>,
        low_prose_shift: Option<f32>,
        max_bytes: Option<usize>,
        short_page_blocks: Option<usize>,
        page_timeout: Option<f64>,
        fallback: bool,
        retain_links: bool,
        ad_hosts: Option<PathBuf>,
        keep_captions: bool,
        keep_repeats: bool,
    ) -> PyResult<Self> {
        let algorithm = self::algorithm(algorithm)?;
        let defaults = ExtractorConfig::default();
        let mut config = ExtractorConfig {
            max_bytes: max_bytes.unwrap_or(defaults.max_bytes),
            threshold,
            low_prose_shift: low_prose_shift.or(defaults.low_prose_shift),
            comments: comment_mode(comments)?,
            keep_captions,
            keep_repeats,
            short_page_blocks: short_page_blocks.unwrap_or(defaults.short_page_blocks),
            ..defaults
        };
        config.classic.fallback = fallback;
        config.classic.crunch_retain_links = retain_links;
        config.classic.crunch_ad_hosts_file = ad_hosts;
        if let Some(s) = page_timeout {
            config.page_timeout = Some(dechrome::config::page_timeout_from_secs(s).map_err(to_py)?);
        }
        let max_bytes = config.max_bytes;
        let inner = py
            .detach(move || {
                if !algorithm.needs_model() {
                    if model.is_some() {
                        return Err(dechrome::Error::Config {
                            field: "model",
                            reason: format!("{} uses no model", algorithm.name()),
                        });
                    }
                    return dechrome::Extractor::classic(algorithm, config);
                }
                let model = match model {
                    Some(path) => Model::load(path)?,
                    None => Model::embedded()?,
                };
                dechrome::Extractor::new(model, config)
            })
            .map_err(to_py)?;
        Ok(Extractor {
            inner: Arc::new(inner),
            max_bytes,
        })
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
    /// The main text of one page (`html` as bytes, charset sniffed like the
    /// CLI does, or str); with output="dict" the page's JSON Lines record
    /// (text, title, author, date, language, ..., algorithm). Raises
    /// PageError for a page the limits refuse.
    #[pyo3(signature = (html, *, url=None, output="text"))]
    fn extract(
        &self,
        py: Python<'_>,
        html: &Bound<'_, PyAny>,
        url: Option<String>,
        output: &str,
    ) -> PyResult<Py<PyAny>> {
        self.run(py, html, url, wants_dict(output)?)
    }

    /// extract_many(pages, threads=None, ordered=True)
    ///
    /// Extracts an iterable of pages (bytes, str, or paths of files read by
    /// the workers) on `threads` worker threads (default: one per core)
    /// with the GIL released, yielding one dict per page as the pages are
    /// done: the page's JSON Lines record plus `index`, its position in the
    /// input (and `path` for files). Input order unless ordered=False. A
    /// page that fails gives a dict with `error`, and the batch goes on.
    #[pyo3(signature = (pages, threads=None, ordered=true))]
    fn extract_many(
        &self,
        pages: &Bound<'_, PyAny>,
        threads: Option<usize>,
        ordered: bool,
    ) -> PyResult<Batch> {
        let feed = Feed::Python(pages.try_iter()?.unbind());
        Batch::start(
            self.inner.clone(),
            feed,
            Self::pool(threads)?,
            ordered,
            true,
        )
    }

    /// extract_warc(path, threads=None, ordered=True)
    ///
    /// Extracts the HTML responses of a WARC file (.warc or .warc.gz),
    /// yielding one dict per page: the same record as a line of `dechrome
    /// extract --format jsonl FILE` (path `FILE#N`, url, warc_date,
    /// warc_record_id, text, metadata, algorithm), or `error` for a record
    /// that cannot be read or extracted.
    #[pyo3(signature = (path, threads=None, ordered=true))]
    fn extract_warc(
        &self,
        py: Python<'_>,
        path: PathBuf,
        threads: Option<usize>,
        ordered: bool,
    ) -> PyResult<Batch> {
        let pages = open_warc(py, &path, self.max_bytes)?;
        let feed = Feed::Warc {
            name: path.display().to_string(),
            pages,
        };
        Batch::start(
            self.inner.clone(),
            feed,
            Self::pool(threads)?,
            ordered,
            false,
        )
    }

    fn __repr__(&self) -> String {
        format!("dechrome.Extractor(algorithm={:?})", self.algorithm())
    }
}

type Pages = HtmlPages<Box<dyn BufRead + Send>>;

/// The HTML pages of the WARC file at `path`.
fn open_warc(py: Python<'_>, path: &std::path::Path, max_bytes: usize) -> PyResult<Pages> {
    let reader = py.detach(|| dechrome::warc::open(path)).map_err(to_py)?;
    Ok(HtmlPages::new(reader, max_bytes))
}

/// Where a batch's pages come from.
enum Feed {
    /// A Python iterator of pages.
    Python(Py<PyIterator>),
    /// A WARC file's HTML records.
    Warc { name: String, pages: Pages },
    /// Nothing more.
    Done,
}

/// A page ready for the workers.
struct Job {
    source: Source,
    html: Html,
}

impl Feed {
    /// The next page, or `None` at the end. An exception raised by the
    /// Python iterator is passed on.
    fn next(&mut self, py: Python<'_>) -> PyResult<Option<Job>> {
        let job = match self {
            Feed::Done => None,
            Feed::Python(iter) => match iter.bind(py).clone().next() {
                None => None,
                Some(Err(e)) => {
                    *self = Feed::Done;
                    return Err(e);
                }
                Some(Ok(obj)) => {
                    let html = Html::from_python(&obj, true);
                    let path = match &html {
                        Html::File(p) => Some(p.display().to_string()),
                        _ => None,
                    };
                    Some(Job {
                        source: Source {
                            path,
                            ..Source::default()
                        },
                        html,
                    })
                }
            },
            Feed::Warc { name, pages } => match py.detach(|| pages.next()) {
                None => None,
                Some(Ok(page)) => Some(Job {
                    source: Source::of_warc(name, &page),
                    html: Html::Bytes(page.body, page.charset),
                }),
                Some(Err(RecordError { record, error })) => Some(Job {
                    source: Source {
                        path: Some(record_name(name, record)),
                        ..Source::default()
                    },
                    html: Html::Invalid(error.to_string()),
                }),
            },
        };
        if job.is_none() {
            *self = Feed::Done;
        }
        Ok(job)
    }
}

/// The moving parts of a batch (behind a mutex: Python may share the
/// iterator between threads).
struct BatchState {
    feed: Feed,
    extractor: Arc<dechrome::Extractor>,
    pool: Arc<rayon::ThreadPool>,
    done_tx: Sender<(usize, Value)>,
    done_rx: Receiver<(usize, Value)>,
    /// Pages handed to the workers so far (the next page's index).
    submitted: usize,
    /// Pages handed back to Python so far (in order: the next index due).
    returned: usize,
    in_flight: usize,
    /// Pages handed to the workers at most at a time.
    window: usize,
    ordered: bool,
    /// Add the page's position in the input as `index`.
    index: bool,
    /// Results that came back before their turn (ordered batches).
    early: BTreeMap<usize, Value>,
}

/// The results of `extract_many` / `extract_warc`: an iterator of dicts, one
/// per page, yielded as the worker pool finishes them (in input order when
/// `ordered`).
#[pyclass(module = "dechrome")]
struct Batch {
    state: Mutex<BatchState>,
}

impl Batch {
    fn start(
        extractor: Arc<dechrome::Extractor>,
        feed: Feed,
        pool: Arc<rayon::ThreadPool>,
        ordered: bool,
        index: bool,
    ) -> PyResult<Self> {
        let (done_tx, done_rx) = channel();
        let window = pool.current_num_threads().max(1) * 8;
        Ok(Batch {
            state: Mutex::new(BatchState {
                feed,
                extractor,
                pool,
                done_tx,
                done_rx,
                submitted: 0,
                returned: 0,
                in_flight: 0,
                window,
                ordered,
                index,
                early: BTreeMap::new(),
            }),
        })
    }
}

impl BatchState {
    /// Hands pages to the workers until the window is full or the feed ends.
    fn fill(&mut self, py: Python<'_>) -> PyResult<()> {
        while self.in_flight < self.window {
            let Some(Job { source, html }) = self.feed.next(py)? else {
                return Ok(());
            };
            let index = self.submitted;
            let (extractor, tx, with_index) =
                (self.extractor.clone(), self.done_tx.clone(), self.index);
            self.pool.spawn(move || {
                // The library turns a panic into the page's error; this
                // guard covers the binding's own code, so that a worker
                // always answers (an unanswered page would hang the
                // iterator) and never aborts the interpreter.
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    html.extract(&extractor)
                }))
                .unwrap_or_else(|panic| {
                    Err(dechrome::Error::Page(dechrome::PageError::Internal(
                        dechrome::guard::panic_message(panic.as_ref()),
                    ))
                    .to_string())
                });
                let mut value = source.record(&result);
                if let (true, Value::Object(map)) = (with_index, &mut value) {
                    map.insert("index".into(), Value::from(index));
                }
                // The receiver is gone when the batch was dropped early.
                let _ = tx.send((index, value));
            });
            self.submitted += 1;
            self.in_flight += 1;
        }
        Ok(())
    }

    /// The next result, waiting for the workers without the GIL.
    fn next(&mut self, py: Python<'_>) -> PyResult<Option<Value>> {
        loop {
            self.fill(py)?;
            if self.ordered {
                if let Some(value) = self.early.remove(&self.returned) {
                    self.returned += 1;
                    return Ok(Some(value));
                }
            }
            if self.in_flight == 0 {
                return Ok(None);
            }
            let (index, value) = loop {
                // `&mut Receiver` is `Send` (a shared one is not).
                let rx = &mut self.done_rx;
                match py.detach(move || rx.recv_timeout(Duration::from_millis(100))) {
                    Ok(done) => break done,
                    Err(RecvTimeoutError::Timeout) => py.check_signals()?,
                    Err(RecvTimeoutError::Disconnected) => return Ok(None),
                }
            };
            self.in_flight -= 1;
            if !self.ordered {
                self.returned += 1;
                return Ok(Some(value));
            }
            self.early.insert(index, value);
        }
    }
}

/// An iterator's state, or a `RuntimeError` when another thread is
/// advancing the same iterator (waiting would deadlock on the GIL).
fn lock<T>(state: &Mutex<T>) -> PyResult<std::sync::MutexGuard<'_, T>> {
    state.try_lock().map_err(|_| {
        PyRuntimeError::new_err("this iterator is already being advanced by another thread")
    })
}

#[pymethods]
impl Batch {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next page's dict.
    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let mut state = lock(&self.state)?;
        match state.next(py)? {
            Some(value) => Ok(Some(to_python(py, &value)?)),
            None => Ok(None),
        }
    }
}

/// The HTML pages of a WARC file, as dicts (see `dechrome.read_warc`).
#[pyclass(module = "dechrome")]
struct WarcPages {
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
fn read_warc(py: Python<'_>, path: PathBuf, max_bytes: Option<usize>) -> PyResult<WarcPages> {
    let max_bytes = max_bytes.unwrap_or(ExtractorConfig::default().max_bytes);
    if max_bytes == 0 {
        return Err(ConfigError::new_err("max_bytes must be positive"));
    }
    Ok(WarcPages {
        name: path.display().to_string(),
        pages: Mutex::new(open_warc(py, &path, max_bytes)?),
    })
}

/// Extractors by (algorithm, comment mode).
type SharedExtractors = HashMap<(String, String), Arc<dechrome::Extractor>>;

/// Extractors made by `dechrome.extract`, by algorithm and comment mode, so
/// the embedded model is decoded once per process.
fn shared_extractor(
    py: Python<'_>,
    algorithm: &str,
    comments: &str,
) -> PyResult<Arc<dechrome::Extractor>> {
    static CACHE: OnceLock<Mutex<SharedExtractors>> = OnceLock::new();
    let key = (algorithm.to_string(), comments.to_string());
    let cache = CACHE.get_or_init(Default::default);
    if let Some(e) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
        return Ok(e);
    }
    let made = Extractor::new(
        py, None, algorithm, comments, None, None, None, None, None, false, false, None, false,
        false,
    )?;
    if let Ok(mut c) = cache.lock() {
        c.insert(key, made.inner.clone());
    }
    Ok(made.inner)
}

/// extract(html, *, url=None, comments="exclude", algorithm="forest", output="text")
///
/// The main text of one page with the embedded model (see Extractor.extract).
#[pyfunction]
#[pyo3(signature = (html, *, url=None, comments="exclude", algorithm="forest", output="text"))]
fn extract(
    py: Python<'_>,
    html: &Bound<'_, PyAny>,
    url: Option<String>,
    comments: &str,
    algorithm: &str,
    output: &str,
) -> PyResult<Py<PyAny>> {
    let dict = wants_dict(output)?;
    let extractor = Extractor {
        inner: shared_extractor(py, algorithm, comments)?,
        max_bytes: 0,
    };
    extractor.run(py, html, url, dict)
}

/// Runs `job` on a thread of its own and waits for it without the GIL,
/// checking for signals every 100 ms: Ctrl-C raises `KeyboardInterrupt` at
/// once and sets the flag `job` receives, so it can skip what it has not
/// begun (its result is then dropped).
fn run_interruptible<T: Send + 'static>(
    py: Python<'_>,
    job: impl FnOnce(&AtomicBool) -> T + Send + 'static,
) -> PyResult<T> {
    let cancelled = Arc::new(AtomicBool::new(false));
    let flag = cancelled.clone();
    let (tx, mut rx) = channel();
    std::thread::Builder::new()
        .name("dechrome-job".into())
        .spawn(move || {
            // The receiver is gone when the caller was interrupted.
            let _ = tx.send(job(&flag));
        })
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start a worker thread: {e}")))?;
    loop {
        // `&mut Receiver` is `Send` (a shared one is not).
        let rx = &mut rx;
        match py.detach(move || rx.recv_timeout(Duration::from_millis(100))) {
            Ok(value) => return Ok(value),
            Err(RecvTimeoutError::Timeout) => {
                if let Err(e) = py.check_signals() {
                    cancelled.store(true, Ordering::SeqCst);
                    return Err(e);
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err(PyRuntimeError::new_err(
                    "the worker thread stopped without a result",
                ))
            }
        }
    }
}

/// Corpus folders from `str`, an `os.PathLike`, or an iterable of them.
fn corpus_dirs(corpora: &Bound<'_, PyAny>) -> PyResult<Vec<PathBuf>> {
    if corpora.cast::<PyString>().is_ok() || corpora.hasattr("__fspath__")? {
        return Ok(vec![corpora.extract()?]);
    }
    let mut dirs = Vec::new();
    for item in corpora.try_iter()? {
        dirs.push(item?.extract::<PathBuf>()?);
    }
    if dirs.is_empty() {
        return Err(ConfigError::new_err(
            "corpora: name at least one corpus folder",
        ));
    }
    Ok(dirs)
}

/// The training configuration from a dict of `TrainConfig` fields (missing
/// ones default; an unknown top-level key or a value of the wrong type is a
/// `ConfigError`).
fn train_config(py: Python<'_>, config: Option<&Bound<'_, PyDict>>) -> PyResult<TrainConfig> {
    let Some(config) = config else {
        return Ok(TrainConfig::default());
    };
    let json: String = py
        .import("json")?
        .call_method1("dumps", (config,))
        .map_err(|e| ConfigError::new_err(format!("config is not JSON data: {e}")))?
        .extract()?;
    // Unknown keys at any depth are refused by the configuration's serde
    // settings, with the same message as the CLI's: the key and the known ones.
    serde_json::from_str(&json).map_err(|e| ConfigError::new_err(format!("config: {e}")))
}

/// train(corpora, out, folds=None, seed=None, *, config=None, corpus_weights=None, threads=None)
///
/// Trains a model on one or more corpus folders (WCXB layout with gold
/// text, or a snippet manifest with partial labels), cross-validating by
/// domain over their union, and saves it to `out` (whole or not at all).
/// Returns the cross-validation report as a dict (word scores, per page
/// type, per corpus under `corpora`, fold thresholds, oracle F1) plus
/// `skipped` (pages left out, with why) and `model` (the saved path).
/// Same data and seed give the same model bytes. Raises ConfigError for
/// a bad setting, DechromeError when a corpus cannot be read or nothing
/// can be trained. Ctrl-C raises KeyboardInterrupt and saves nothing.
#[pyfunction]
#[pyo3(signature = (corpora, out, folds=None, seed=None, *, config=None, corpus_weights=None,
    threads=None))]
#[allow(clippy::too_many_arguments)]
fn train(
    py: Python<'_>,
    corpora: &Bound<'_, PyAny>,
    out: PathBuf,
    folds: Option<usize>,
    seed: Option<u64>,
    config: Option<&Bound<'_, PyDict>>,
    corpus_weights: Option<BTreeMap<String, f32>>,
    threads: Option<usize>,
) -> PyResult<Py<PyAny>> {
    let dirs = corpus_dirs(corpora)?;
    let mut cfg = train_config(py, config)?;
    if let Some(folds) = folds {
        cfg.folds = folds;
    }
    if let Some(seed) = seed {
        cfg.seed = seed;
    }
    if let Some(weights) = corpus_weights {
        cfg.corpus_weights.extend(weights);
    }
    let pool = Extractor::pool(threads)?;
    let report = run_interruptible(py, move |cancelled| {
        let job = dechrome::train::TrainJob {
            corpora: dirs,
            config: cfg,
            ..Default::default()
        };
        let trained = pool.install(|| dechrome::train::run(&job, &dechrome::train::Quiet))?;
        if cancelled.load(Ordering::SeqCst) {
            return Ok(Value::Null);
        }
        trained.model.save(&out)?;
        let cv = trained.cv.unwrap_or_else(dechrome::train::no_cv_report);
        let mut report = serde_json::to_value(&cv)
            .map_err(|e| dechrome::TrainingError::Other(format!("report: {e}")))?;
        if let Value::Object(map) = &mut report {
            let skipped = trained
                .skipped
                .iter()
                .map(|(id, e)| serde_json::json!({"page": id, "error": e.to_string()}))
                .collect();
            map.insert("skipped".into(), Value::Array(skipped));
            map.insert("model".into(), Value::from(out.display().to_string()));
        }
        Ok::<_, dechrome::Error>(report)
    })?
    .map_err(to_py)?;
    to_python(py, &report)
}

/// evaluate(corpus, model=None, *, algorithm="forest", comments="exclude", threads=None)
///
/// Extracts every page of a corpus folder (WCXB layout or snippet manifest)
/// and scores the result with the corpus's metric, as `dechrome evaluate`
/// does. `model` is a model file (default: the embedded model). Returns a
/// dict: algorithm, word (P/R/F1 overall and per page type; WCXB),
/// snippets (snippet counts and P/R/F1; manifest), metadata (exact-match
/// rates; WCXB), errors and fallbacks (page counts).
#[pyfunction]
#[pyo3(signature = (corpus, model=None, *, algorithm="forest", comments="exclude", threads=None))]
fn evaluate(
    py: Python<'_>,
    corpus: PathBuf,
    model: Option<PathBuf>,
    algorithm: &str,
    comments: &str,
    threads: Option<usize>,
) -> PyResult<Py<PyAny>> {
    let pool = Extractor::pool(threads)?;
    let extractor = Extractor::new(
        py, model, algorithm, comments, None, None, None, None, None, false, false, None, false,
        false,
    )?
    .inner;
    let report = run_interruptible(py, move |_| {
        let corpus = dechrome::corpus::Corpus::open(&corpus)?;
        let evaluation = pool.install(|| dechrome::eval::evaluate(&extractor, &corpus, &|| {}));
        serde_json::to_value(&evaluation).map_err(|e| {
            dechrome::Error::from(dechrome::TrainingError::Other(format!("report: {e}")))
        })
    })?
    .map_err(to_py)?;
    to_python(py, &report)
}

/// The extension module; `dechrome/__init__.py` re-exports it with docs.
#[pymodule]
fn _dechrome(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<Extractor>()?;
    m.add_class::<Batch>()?;
    m.add_class::<WarcPages>()?;
    m.add_function(wrap_pyfunction!(extract, m)?)?;
    m.add_function(wrap_pyfunction!(read_warc, m)?)?;
    m.add_function(wrap_pyfunction!(train, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate, m)?)?;
    m.add("DechromeError", py.get_type::<DechromeError>())?;
    m.add("ModelError", py.get_type::<ModelError>())?;
    m.add("ConfigError", py.get_type::<ConfigError>())?;
    m.add("PageError", py.get_type::<PageError>())?;
    m.add("WarcError", py.get_type::<WarcError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
