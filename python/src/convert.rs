//! Python values and errors to and from the library's: exceptions for
//! [`dechrome::Error`], JSON values as Python objects, and Python objects
//! (keyword arguments, nested dicts) as JSON values for the library's
//! reader of settings by name ([`dechrome::config::settings_from_value`]).

use std::borrow::Cow;
use std::path::PathBuf;

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyFileNotFoundError, PyOSError, PyPermissionError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{Map, Value};

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
pub(crate) fn to_py(e: dechrome::Error) -> PyErr {
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
pub(crate) fn to_python(py: Python<'_>, value: &Value) -> PyResult<Py<PyAny>> {
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

/// The extraction settings of `dechrome.Extractor(model, **settings)` and
/// the functions taking settings: the keyword arguments as a JSON object
/// (`model`, when given, among them), read by the library's one reader of
/// settings by name, so that an unknown name, a wrong type or a value out
/// of range raises `ConfigError` with the library's message. Nothing here
/// knows a setting by name.
pub(crate) fn settings(
    model: Option<&Bound<'_, PyAny>>,
    settings: Option<&Bound<'_, PyDict>>,
) -> PyResult<dechrome::ExtractorConfig> {
    let mut object = match settings {
        Some(dict) => json_object(dict, "")?,
        None => Map::new(),
    };
    if let Some(model) = model.filter(|m| !m.is_none()) {
        object.insert("model".into(), json_value(model, "model")?);
    }
    dechrome::config::settings_from_value(Value::Object(object)).map_err(to_py)
}

/// A dict of settings (a `config=` dict, keyword arguments) as a JSON
/// object: string keys, values as [`json_value`] converts them.
pub(crate) fn json_object(dict: &Bound<'_, PyDict>, path: &str) -> PyResult<Map<String, Value>> {
    let mut object = Map::new();
    for (key, value) in dict.iter() {
        let Ok(key) = key.cast::<PyString>() else {
            return Err(config_error(
                path,
                format!("keys must be strings, not {}", type_name(&key)),
            ));
        };
        let key = key.to_cow()?.into_owned();
        let value = json_value(&value, &child(path, &key))?;
        object.insert(key, value);
    }
    Ok(object)
}

/// A Python value as JSON: None, bools, ints, floats (finite ones), str,
/// `os.PathLike` (as its path), lists and tuples, dicts with string keys.
/// `path` names the key in errors, as the library names keys (`classic.danag_gap`).
fn json_value(obj: &Bound<'_, PyAny>, path: &str) -> PyResult<Value> {
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.cast::<PyInt>().is_ok() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Value::from(i));
        }
        if let Ok(u) = obj.extract::<u64>() {
            return Ok(Value::from(u));
        }
        return Err(config_error(path, format!("{obj} is out of range")));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return dechrome::config::number_value(path, f.value()).map_err(to_py);
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(s.to_cow()?.into_owned()));
    }
    if let Ok(dict) = obj.cast::<PyDict>() {
        return Ok(Value::Object(json_object(dict, path)?));
    }
    if obj.cast::<PyList>().is_ok() || obj.cast::<PyTuple>().is_ok() {
        let mut items = Vec::new();
        for (i, item) in obj.try_iter()?.enumerate() {
            items.push(json_value(&item?, &format!("{path}[{i}]"))?);
        }
        return Ok(Value::Array(items));
    }
    if obj.hasattr("__fspath__")? {
        let p: PathBuf = obj.extract()?;
        return match p.to_str() {
            Some(s) => Ok(Value::String(s.to_string())),
            None => Err(config_error(
                path,
                format!("{} is not valid Unicode", p.display()),
            )),
        };
    }
    Err(config_error(
        path,
        format!(
            "a {} is not a setting's value (None, bool, int, float, str, a path, a list or a dict)",
            type_name(obj)
        ),
    ))
}

/// `key` under `path`, as the library writes key paths.
fn child(path: &str, key: &str) -> String {
    match path {
        "" => key.to_string(),
        _ => format!("{path}.{key}"),
    }
}

/// A `ConfigError` about the key at `path` (`settings` for the whole),
/// worded as the library words its own.
fn config_error(path: &str, reason: String) -> PyErr {
    to_py(dechrome::Error::Config {
        field: match path {
            "" => Cow::Borrowed("settings"),
            _ => Cow::Owned(path.to_string()),
        },
        reason,
    })
}

/// The name of `obj`'s type, for messages.
pub(crate) fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}
