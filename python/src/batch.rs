//! `extract_many` and `extract_warc`: pages fed to a worker pool from a
//! Python iterator or a WARC file, their records handed back to Python as
//! the workers finish them (in input order unless asked otherwise).

use std::collections::BTreeMap;
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use dechrome::warc::{record_name, RecordError};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyIterator;
use serde_json::Value;

use crate::convert::to_python;
use crate::page::{Html, Inputs, Source};
use crate::render::Output;
use crate::warc::Pages;

/// Where a batch's pages come from.
pub(crate) enum Feed {
    /// A Python iterator of pages, read as `inputs` says.
    Python(Py<PyIterator>, Inputs),
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
            Feed::Python(iter, inputs) => {
                let inputs = *inputs;
                match iter
                    .bind(py)
                    .clone()
                    .next()
                    .map(|item| item.and_then(|obj| Html::from_python(&obj, inputs)))
                {
                    None => None,
                    Some(Err(e)) => {
                        *self = Feed::Done;
                        return Err(e);
                    }
                    Some(Ok(html)) => Some(Job {
                        source: Source {
                            path: html.path(),
                            ..Source::default()
                        },
                        html,
                    }),
                }
            }
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
    /// What the records carry besides the text.
    output: Output,
    /// Results that came back before their turn (ordered batches).
    early: BTreeMap<usize, Value>,
}

/// The results of `extract_many` / `extract_warc`: an iterator of dicts, one
/// per page, yielded as the worker pool finishes them (in input order when
/// `ordered`).
#[pyclass(module = "dechrome")]
pub(crate) struct Batch {
    state: Mutex<BatchState>,
}

impl Batch {
    pub(crate) fn start(
        extractor: Arc<dechrome::Extractor>,
        feed: Feed,
        pool: Arc<rayon::ThreadPool>,
        ordered: bool,
        index: bool,
        output: Output,
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
                output,
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
            let (extractor, tx, with_index, output) = (
                self.extractor.clone(),
                self.done_tx.clone(),
                self.index,
                self.output,
            );
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
                let mut value = source.record(&result, output);
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
pub(crate) fn lock<T>(state: &Mutex<T>) -> PyResult<std::sync::MutexGuard<'_, T>> {
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
