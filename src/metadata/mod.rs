//! Page metadata beside the main text: title, author, publish date,
//! language, canonical URL, site name and description.
//!
//! Sources, gathered in one pass over the arena DOM (no second parse):
//! `<meta name|property|itemprop=… content=…>` (OpenGraph, Dublin Core,
//! article:*, parsely, sailthru …), JSON-LD (`<script
//! type="application/ld+json">`, with `@graph`, nested and `@id`-referenced
//! authors; broken JSON is repaired where cheap, else scanned for keys),
//! microdata (`itemprop`), hAtom `<abbr class=published title=…>`
//! (`microformats.rs`), `<html lang>`, `<link rel=canonical>`, `<title>`,
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
//! `dates.rs` normalises dates. The dates a reader sees come from
//! `visible_dates.rs` (lines of the body's text, `<time>` elements, cue
//! words, places), `date_text.rs` (dates inside text, with the month names
//! of `month_names.rs`) and `relative_dates.rs`; `date_choice.rs` scores
//! them against the declared dates and the URL's (docs/metadata.md).

use serde::{Deserialize, Serialize};

use crate::model::page_type::PageType;
use crate::parse::Document;
use crate::text::collapse_whitespace;

mod author_names;
mod candidates;
mod date_choice;
mod date_text;
mod dates;
mod json_ld;
mod meta_keys;
mod microformats;
mod month_names;
mod relative_dates;
mod thread_dates;
mod visible_dates;

pub use author_names::clean_author;
pub use candidates::Candidates;
pub use date_choice::url_date;
pub use date_text::{find_dates, FoundDate};
pub use dates::normalize_date;
pub use json_ld::{parse_lenient, JsonLd};
pub use month_names::month_of;
pub use relative_dates::{resolve_relative, Reference};
pub use visible_dates::{visible_dates, Cue, VisibleDate, VisibleKind};

/// Where a metadata value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SourceKind {
    /// A `<meta>` tag, `<title>` or microdata (`itemprop`).
    Meta,
    /// JSON-LD.
    JsonLd,
    /// A `<time datetime>` element.
    Time,
    /// Text the reader sees: a byline, a date line, the headline.
    Visible,
    /// The page's URL.
    Url,
}

impl SourceKind {
    /// Every kind, in the order reports list them.
    pub const ALL: [SourceKind; 5] = [
        SourceKind::Meta,
        SourceKind::JsonLd,
        SourceKind::Time,
        SourceKind::Visible,
        SourceKind::Url,
    ];

    /// The kind's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            SourceKind::Meta => "meta",
            SourceKind::JsonLd => "json-ld",
            SourceKind::Time => "time",
            SourceKind::Visible => "visible",
            SourceKind::Url => "url",
        }
    }
}

/// The source of each chosen title, author and date (not written in
/// JSON output; `dechrome eval` reports accuracy per source).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sources {
    /// The title's source.
    pub title: Option<SourceKind>,
    /// The author's source.
    pub author: Option<SourceKind>,
    /// The publish date's source.
    pub date: Option<SourceKind>,
}

/// What the caller knows about a page beyond its HTML.
#[derive(Debug, Clone, Copy, Default)]
pub struct PageHints<'a> {
    /// The URL the page was fetched from (its path may hold a date).
    pub url: Option<&'a str>,
    /// The time relative dates ("3 hours ago") count back from: a WARC
    /// record's `WARC-Date` or a date the caller gives (`2024-05-01`,
    /// `2024-05-01T10:00:00Z`). Without it relative dates are ignored.
    pub reference_date: Option<&'a str>,
}

/// A page's metadata; every field is absent when no source gives it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Metadata {
    /// The page's title (see [`Candidates::title`] for the order of sources).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Author(s), joined with ", " when there are several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// Publication date, ISO `YYYY-MM-DD`; `YYYY-MM` for a page that
    /// names no day but shows a month alone ("November 2015").
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
    /// Where the title, author and date came from (not serialised).
    #[serde(skip)]
    pub sources: Sources,
}

/// Extracts a page's metadata with no hints (see [`extract_with`]).
pub fn extract(doc: &Document) -> Metadata {
    extract_with(doc, &PageHints::default())
}

/// Extracts a page's metadata, reading the page's URL for a date in its
/// path and resolving relative dates against the hints' reference date.
pub fn extract_with(doc: &Document, hints: &PageHints<'_>) -> Metadata {
    Candidates::collect_with(&doc.dom, hints).resolve()
}

impl Metadata {
    /// Drops the publish date a page of this type does not have: on a
    /// listing, collection, product or service page a date read from the
    /// text or a `<time>` element belongs to an item the page lists (a
    /// teaser, a review, an event), not to the page. A date the page
    /// declares for itself (meta tags, JSON-LD, its URL) is kept, as is
    /// `modified`. Measured on WCXB dev with out-of-fold page types: where
    /// the gold has no date, abstention rose from 0.888 to 0.919 for two of
    /// 782 dated pages lost (docs/experiments.md, "Dates").
    pub fn settle_date_for(&mut self, page_type: PageType) {
        let lists_items = matches!(
            page_type,
            PageType::Listing | PageType::Collection | PageType::Product | PageType::Service
        );
        if lists_items
            && matches!(
                self.sources.date,
                Some(SourceKind::Time | SourceKind::Visible)
            )
        {
            self.date = None;
            self.sources.date = None;
        }
    }
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
