//! Page metadata beside the main text: title, author, publish date,
//! language, canonical URL, site name and description.
//!
//! Sources, gathered in one pass over the arena DOM (no second parse):
//! `<meta name|property|itemprop=… content=…>` (OpenGraph, Dublin Core,
//! article:*, parsely, sailthru …), JSON-LD (`<script
//! type="application/ld+json">`, with `@graph`, nested and `@id`-referenced
//! authors; broken JSON is repaired where cheap, else scanned for keys),
//! microdata (`itemprop`), `<html lang>`, `<link rel=canonical>`, `<title>`,
//! the first `<h1>`, `<time datetime>` and `rel=author` links.
//!
//! Which source wins for each field was chosen by exact-match rate against
//! the gold fields of WCXB dev (see DESIGN.md and `examples/metadata_sources.rs`).
//! Dates are normalised to ISO `YYYY-MM-DD` ([`normalize_date`]); the time of
//! day and the zone are dropped, the calendar date is the one written in the
//! source.
//!
//! [`Candidates`] (`candidates.rs`) gathers every source's values in one
//! walk and chooses among them; `json_ld.rs` reads the JSON-LD blocks and
//! `dates.rs` normalises dates.

use serde::{Deserialize, Serialize};

use crate::parse::Document;
use crate::text::collapse_whitespace;

mod candidates;
mod dates;
mod json_ld;

pub use candidates::Candidates;
pub use dates::normalize_date;
pub use json_ld::{parse_lenient, JsonLd};

/// A page's metadata; every field is absent when no source gives it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Metadata {
    /// The page's title (see [`Candidates::title`] for the order of sources).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Author(s), joined with ", " when there are several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// Publication date, ISO `YYYY-MM-DD`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// Last-modified date, ISO `YYYY-MM-DD`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modified: Option<String>,
    /// Language tag as the page declares it (`en`, `de-CH`), `_` made `-`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// `<link rel=canonical>` (else `og:url`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub canonical_url: Option<String>,
    /// The site's name (`og:site_name`, JSON-LD publisher or WebSite).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub site_name: Option<String>,
    /// The page's description (`description`, `og:description`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// Extracts a page's metadata (one walk over its DOM).
pub fn extract(doc: &Document) -> Metadata {
    Candidates::collect(&doc.dom).resolve()
}

/// Whitespace collapsed, left-over character references (pages that
/// escape twice: `Maria &amp;amp; Katerina`) undone, `None` when empty.
fn clean(s: &str) -> Option<String> {
    let t = collapse_whitespace(&unescape(s));
    (!t.is_empty()).then_some(t)
}

/// Undoes `&amp;`, `&quot;`, `&apos;`, `&lt;`, `&gt;`, `&nbsp;` and numeric
/// character references; anything else is left as written.
pub fn unescape(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains('&') {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(pos) = rest.find('&') {
        out.push_str(&rest[..pos]);
        rest = &rest[pos..];
        let end = rest[1..].find(';').map(|e| e + 1).filter(|&e| e <= 10);
        let decoded = end.and_then(|e| {
            let name = &rest[1..e];
            let c = match name {
                "amp" => '&',
                "quot" => '"',
                "apos" => '\'',
                "lt" => '<',
                "gt" => '>',
                "nbsp" => ' ',
                _ => {
                    let num = name.strip_prefix('#')?;
                    let n = match num.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                        None => num.parse().ok()?,
                    };
                    char::from_u32(n)?
                }
            };
            Some((c, e))
        });
        match decoded {
            Some((c, e)) => {
                out.push(c);
                rest = &rest[e + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}
