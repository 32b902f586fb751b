//! The `output=` keyword: what a page's content comes back as (plain
//! text, the record as a dict, Markdown, clean HTML), rendered by the
//! library ([`dechrome::Extraction::markdown_with`],
//! [`dechrome::Extraction::html_with`], [`dechrome::output::record_value_with`]).

use dechrome::output::{page_markup, record_value_with, Markup, Origin, RenderOptions};
use dechrome::Extraction;
use serde_json::Value;

use crate::convert::ConfigError;
use pyo3::PyResult;

/// The form of a page's content asked for with `output=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Output {
    /// The main text (the default).
    Text,
    /// The page's JSON Lines record (one page only: batches always yield records).
    Dict,
    /// The kept content as Markdown (`markdown` key in a batch's records).
    Markdown,
    /// The kept content as a clean HTML document (`html` key in a batch's records).
    Html,
}

impl Output {
    /// The form named `name` for one page (`extract`): text, dict,
    /// markdown or html.
    pub(crate) fn for_page(name: &str) -> PyResult<Output> {
        match name {
            "text" => Ok(Output::Text),
            "dict" => Ok(Output::Dict),
            "markdown" => Ok(Output::Markdown),
            "html" => Ok(Output::Html),
            _ => Err(ConfigError::new_err(format!(
                "unknown output {name:?}: expected \"text\", \"dict\", \"markdown\" or \"html\""
            ))),
        }
    }

    /// The form named `name` for a batch, whose records always carry the
    /// text: text (nothing more), markdown or html (the record gains that
    /// key).
    pub(crate) fn for_batch(name: &str) -> PyResult<Output> {
        match name {
            "text" => Ok(Output::Text),
            "markdown" => Ok(Output::Markdown),
            "html" => Ok(Output::Html),
            _ => Err(ConfigError::new_err(format!(
                "unknown output {name:?} for a batch, which yields one dict per page: expected \
                 \"text\", \"markdown\" (adds the key `markdown`) or \"html\" (adds `html`)"
            ))),
        }
    }

    /// True when the form renders the kept content's structure, which the
    /// extractor must then record.
    pub(crate) fn needs_structure(self) -> bool {
        matches!(self, Output::Markdown | Output::Html)
    }

    /// The page's content in this form, as a string (`Dict` gives the text).
    pub(crate) fn content(self, origin: Origin<'_>, e: &Extraction) -> String {
        // As the CLI: the headline on top of Markdown and HTML.
        let markup = page_markup(
            origin,
            &Markup {
                title: true,
                ..Markup::default()
            },
        );
        match self {
            Output::Text | Output::Dict => e.text.clone(),
            Output::Markdown => e.markdown_with(&markup).unwrap_or_default(),
            Output::Html => e.html_with(&markup).unwrap_or_default(),
        }
    }

    /// The page's record (the library's JSON Lines record), with
    /// `markdown` or `html` when this form asks for it.
    pub(crate) fn record(self, origin: Origin<'_>, result: &Result<Extraction, String>) -> Value {
        let options = RenderOptions {
            with_markdown: self == Output::Markdown,
            markup: Markup {
                title: true,
                ..Markup::default()
            },
        };
        let mut value = record_value_with(origin, result, &options);
        if let (Output::Html, Ok(e), Value::Object(map)) = (self, result, &mut value) {
            map.insert("html".into(), Value::String(self.content(origin, e)));
        }
        value
    }
}
