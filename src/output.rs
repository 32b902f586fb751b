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

/// Where a page came from, as written in JSON and JSON Lines output.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Origin<'a> {
    /// The input: a file path, `-`, or `FILE#N` for the N-th record (from 1)
    /// of a WARC file.
    pub path: &'a str,
    /// The page's URL (a WARC record's `WARC-Target-URI`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<&'a str>,
    /// When the page was captured (a WARC record's `WARC-Date`). Its own
    /// key: `date` is the page's publish date, from its metadata.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warc_date: Option<&'a str>,
    /// The WARC record's `WARC-Record-ID`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warc_record_id: Option<&'a str>,
}

impl<'a> Origin<'a> {
    /// An origin with a path only.
    pub fn path(path: &'a str) -> Self {
        Origin {
            path,
            url: None,
            warc_date: None,
            warc_record_id: None,
        }
    }
}

/// The JSON Lines record of one page.
#[derive(Debug, Serialize)]
pub struct Record<'a> {
    /// Where the page came from.
    #[serde(flatten)]
    pub origin: Origin<'a>,
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
pub fn render(origin: Origin<'_>, result: &Result<Extraction, String>, format: Format) -> String {
    let mut s = match (format, result) {
        (Format::Text, Ok(e)) => e.text.clone(),
        (Format::Text, Err(_)) => return String::new(),
        (Format::Jsonl, r) => serde_json::to_string(&record(origin, r)).unwrap_or_default(),
        (Format::Json, Ok(e)) => {
            #[derive(Serialize)]
            struct Full<'a> {
                #[serde(flatten)]
                origin: Origin<'a>,
                #[serde(flatten)]
                extraction: &'a Extraction,
            }
            serde_json::to_string_pretty(&Full {
                origin,
                extraction: e,
            })
            .unwrap_or_default()
        }
        (Format::Json, r) => serde_json::to_string_pretty(&record(origin, r)).unwrap_or_default(),
    };
    s.push('\n');
    s
}

fn record<'a>(origin: Origin<'a>, r: &'a Result<Extraction, String>) -> Record<'a> {
    match r {
        Ok(e) => Record {
            origin,
            text: Some(&e.text),
            metadata: Some(&e.metadata),
            algorithm: Some(e.algorithm.name()),
            error: None,
        },
        Err(err) => Record {
            origin,
            text: None,
            metadata: None,
            algorithm: None,
            error: Some(err),
        },
    }
}
