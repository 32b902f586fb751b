//! Stage 6: rendering extractions as text, JSON or JSON Lines. Formatting
//! only; every decision was made before.

use serde::Serialize;

use crate::extract::Extraction;
use crate::metadata::Metadata;

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The main text only.
    Text,
    /// One pretty JSON object per page, with every block's decision.
    Json,
    /// One compact JSON object per line: path, text, metadata, algorithm.
    Jsonl,
}

/// The JSON Lines record of one page.
#[derive(Debug, Serialize)]
pub struct Record<'a> {
    /// The input as given (file path, `-`, or WARC URI).
    pub path: &'a str,
    /// The main text (absent when the page failed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<&'a str>,
    /// Title, author, date, language, canonical URL, site name and
    /// description (absent fields are left out).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<&'a Metadata>,
    /// The algorithm that decided.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub algorithm: Option<&'static str>,
    /// Why the page failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a str>,
}

/// Renders one page's result (or its error) in `format`, ending with a newline.
pub fn render(path: &str, result: &Result<Extraction, String>, format: Format) -> String {
    match (format, result) {
        (Format::Text, Ok(e)) => {
            let mut s = e.text.clone();
            s.push('\n');
            s
        }
        (Format::Text, Err(_)) => String::new(),
        (Format::Jsonl, r) => {
            let mut s = serde_json::to_string(&record(path, r)).unwrap_or_default();
            s.push('\n');
            s
        }
        (Format::Json, Ok(e)) => {
            #[derive(Serialize)]
            struct Full<'a> {
                path: &'a str,
                #[serde(flatten)]
                extraction: &'a Extraction,
            }
            let mut s = serde_json::to_string_pretty(&Full {
                path,
                extraction: e,
            })
            .unwrap_or_default();
            s.push('\n');
            s
        }
        (Format::Json, Err(err)) => {
            let mut s =
                serde_json::to_string_pretty(&record(path, &Err(err.clone()))).unwrap_or_default();
            s.push('\n');
            s
        }
    }
}

fn record<'a>(path: &'a str, r: &'a Result<Extraction, String>) -> Record<'a> {
    match r {
        Ok(e) => Record {
            path,
            text: Some(&e.text),
            metadata: Some(&e.metadata),
            algorithm: Some(e.algorithm.name()),
            error: None,
        },
        Err(err) => Record {
            path,
            text: None,
            metadata: None,
            algorithm: None,
            error: Some(err),
        },
    }
}
