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

/// The JSON Lines record of one page as a JSON value: the object that
/// [`render`] writes with [`Format::Jsonl`], for callers (the Python binding)
/// that hand records out as dictionaries rather than text.
pub fn record_value(origin: Origin<'_>, result: &Result<Extraction, String>) -> serde_json::Value {
    serde_json::to_value(record(origin, result)).unwrap_or_default()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Extractor, ExtractorConfig};

    /// `record_value` is the object `render` writes as a JSON line, for a
    /// page and for a failure alike.
    #[test]
    fn record_value_is_the_jsonl_line() {
        let extractor = Extractor::with_embedded_model(ExtractorConfig::default()).unwrap();
        let html = "<html lang=en><head><title>Terns</title></head><body><article>\
                    <p>The Arctic tern migrates from the Arctic to the Antarctic and back every year, \
                    the longest migration known in the animal kingdom.</p></article></body></html>";
        let origin = Origin {
            path: "crawl.warc#3",
            url: Some("https://example.org/terns"),
            warc_date: Some("2024-05-01T10:00:00Z"),
            warc_record_id: Some("<urn:uuid:1>"),
        };
        let ok = extractor.extract_str(html).map_err(|e| e.to_string());
        let failed: Result<Extraction, String> = Err("page rejected: too deep".into());
        for result in [ok, failed] {
            let line = render(origin, &result, Format::Jsonl);
            let parsed: serde_json::Value = serde_json::from_str(&line).unwrap();
            assert_eq!(record_value(origin, &result), parsed);
        }
        let value = record_value(
            origin,
            &extractor.extract_str(html).map_err(|e| e.to_string()),
        );
        assert_eq!(value["title"], "Terns");
        assert_eq!(value["warc_date"], "2024-05-01T10:00:00Z");
        assert!(value["text"].as_str().unwrap().contains("Arctic tern"));
    }
}
