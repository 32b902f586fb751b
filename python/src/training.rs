//! `dechrome.train` and `dechrome.evaluate`: long jobs run on a thread of
//! their own, interruptible with Ctrl-C, their reports returned as dicts.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::sync::Arc;
use std::time::Duration;

use dechrome::TrainConfig;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use serde_json::Value;

use crate::convert::{json_object, to_py, to_python, ConfigError};
use crate::extractor::Extractor;

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
fn train_config(config: Option<&Bound<'_, PyDict>>) -> PyResult<TrainConfig> {
    let Some(config) = config else {
        return Ok(TrainConfig::default());
    };
    // The library's reader of settings by name: an unknown key at any
    // depth or a wrong type names the key's path, as for extraction.
    dechrome::config::from_value(Value::Object(json_object(config, "")?)).map_err(to_py)
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
pub(crate) fn train(
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
    let mut cfg = train_config(config)?;
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

/// evaluate(corpus, model=None, *, threads=None, **settings)
///
/// Extracts every page of a corpus folder (WCXB layout or snippet manifest)
/// and scores the result with the corpus's metric, as `dechrome eval`
/// does. `model` is a model file (default: the embedded model); the
/// keyword settings are Extractor's. Returns a
/// dict: algorithm, word (P/R/F1 overall and per page type; WCXB),
/// snippets (snippet counts and P/R/F1; manifest), metadata (exact-match
/// rates; WCXB), errors and fallbacks (page counts).
#[pyfunction]
#[pyo3(signature = (corpus, model=None, *, threads=None, **settings))]
pub(crate) fn evaluate(
    py: Python<'_>,
    corpus: PathBuf,
    model: Option<&Bound<'_, PyAny>>,
    threads: Option<usize>,
    settings: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<PyAny>> {
    let pool = Extractor::pool(threads)?;
    let config = crate::convert::settings(model, settings)?;
    let extractor = Extractor::from_config(py, config)?.inner;
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
