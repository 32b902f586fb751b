//! Stage 6: rendering extractions as text, JSON, JSON Lines, Markdown or
//! clean HTML. Formatting only; every decision was made before (Markdown
//! and HTML render the [`Structure`] that selection recorded).

pub mod headline;
pub mod html;
mod links;
pub mod markdown;

use std::borrow::Cow;

use serde::Serialize;

use self::headline::Headline;
use crate::extract::structure::Structure;
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
    /// The kept content as Markdown (needs
    /// [`ExtractorConfig::structure`](crate::ExtractorConfig::structure)).
    Markdown,
    /// The kept content as a clean HTML document (needs
    /// [`ExtractorConfig::structure`](crate::ExtractorConfig::structure)).
    Html,
}

impl Format {
    /// True when the format renders the kept content's structure, which
    /// the extractor must then record.
    pub fn needs_structure(self) -> bool {
        matches!(self, Format::Markdown | Format::Html)
    }
}

/// What Markdown and HTML output keep of links and images.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Markup {
    /// Keep links (`[text](href)`, `<a href>`); off: their text only.
    pub links: bool,
    /// Keep images (`![alt](src)`, `<img>`); off: left out.
    pub images: bool,
    /// The page's URL, against which relative addresses are resolved when
    /// the page has no absolute `<base href>`.
    pub page_url: Option<String>,
    /// Start with the page's title (`# Title`, `<h1>`) when the kept text
    /// does not already start with it (compared as lower-cased words). A
    /// heading that holds the title after only a few words of text (a
    /// kicker, a date line) moves to the top rather than be written twice
    /// ([`headline`]). Off by default in the library; the CLI turns it on
    /// unless `--no-title`.
    pub title: bool,
    /// Markdown: write a line break within a paragraph (`<br>`) as a hard
    /// break (`\` at the end of the line). Off (the default), it is a
    /// plain newline, which Markdown readers take as a soft break.
    pub hard_breaks: bool,
}

/// Settings of [`render_with`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RenderOptions {
    /// Links and images in Markdown and HTML.
    pub markup: Markup,
    /// Add the page's Markdown to JSON and JSON Lines output as `markdown`
    /// (needs the structure, like [`Format::Markdown`]).
    pub with_markdown: bool,
}

impl Extraction {
    /// The kept content as Markdown, links and images left out (see
    /// [`Extraction::markdown_with`]).
    pub fn markdown(&self) -> Option<String> {
        self.markdown_with(&Markup::default())
    }

    /// The kept content as Markdown; `None` when the extractor did not
    /// record the structure ([`ExtractorConfig::structure`](crate::ExtractorConfig::structure)).
    pub fn markdown_with(&self, markup: &Markup) -> Option<String> {
        self.structure.as_ref().map(|s| {
            let (s, top) = self.with_headline(s, markup);
            let body = markdown::render(&s, &self.with_url(markup));
            match top.map(markdown::title_heading) {
                Some(h) if !h.is_empty() && body.is_empty() => format!("{h}\n"),
                Some(h) if !h.is_empty() => format!("{h}\n\n{body}"),
                _ => body,
            }
        })
    }

    /// The structure to render and the title to write on top of it: with
    /// [`Markup::title`], the page's title unless the kept text starts with
    /// its words already, and without the heading that held it when that
    /// heading comes after only a few words ([`headline::place`]).
    fn with_headline<'s>(
        &self,
        s: &'s Structure,
        markup: &Markup,
    ) -> (Cow<'s, Structure>, Option<&str>) {
        let place = self
            .metadata
            .title
            .as_deref()
            .filter(|_| markup.title)
            .and_then(|t| headline::place(t, &self.text, s));
        match place {
            Some(Headline::Moved(title, id)) => (Cow::Owned(s.without(id)), Some(title)),
            Some(h) => (Cow::Borrowed(s), h.on_top()),
            None => (Cow::Borrowed(s), None),
        }
    }

    /// The kept content as a clean HTML document, links and images left
    /// out (see [`Extraction::html_with`]).
    pub fn html(&self) -> Option<String> {
        self.html_with(&Markup::default())
    }

    /// The kept content as a clean HTML document titled with the page's
    /// title; `None` when the extractor did not record the structure.
    pub fn html_with(&self, markup: &Markup) -> Option<String> {
        self.structure.as_ref().map(|s| {
            let (s, top) = self.with_headline(s, markup);
            html::render(
                &s,
                self.metadata.title.as_deref(),
                top,
                &self.with_url(markup),
            )
        })
    }

    /// `markup` with the page's canonical URL when it names no page URL.
    fn with_url(&self, markup: &Markup) -> Markup {
        let mut m = markup.clone();
        if m.page_url.is_none() {
            m.page_url = self.metadata.canonical_url.clone();
        }
        m
    }
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
    /// The page's predicted type, when the model has a page-type
    /// classifier.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_type: Option<&'static str>,
    /// The probability of `page_type`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_type_probability: Option<f64>,
    /// The model's estimate of the extraction's word F1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f64>,
    /// True when the confidence lay below the asked minimum (the text is
    /// then empty); the key is left out otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub low_confidence: bool,
    /// The algorithm that decided.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub algorithm: Option<&'static str>,
    /// The main content as Markdown (with `--with-markdown`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub markdown: Option<String>,
    /// True when the page was cut at the byte limit (`max_bytes`) before
    /// extraction; the key is left out otherwise.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// Why the page failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a str>,
}

/// Renders one page's result (or its error) in `format`, ending with a newline.
pub fn render(origin: Origin<'_>, result: &Result<Extraction, String>, format: Format) -> String {
    render_with(origin, result, format, &RenderOptions::default())
}

/// Renders one page's result (or its error) in `format` with `options`,
/// ending with a newline. Markdown and HTML of a page whose structure was
/// not recorded are empty. The page's URL (`origin.url`) resolves relative
/// links unless `options` names one.
pub fn render_with(
    origin: Origin<'_>,
    result: &Result<Extraction, String>,
    format: Format,
    options: &RenderOptions,
) -> String {
    let markup = page_markup(origin, &options.markup);
    let markdown = |e: &Extraction| {
        options
            .with_markdown
            .then(|| e.markdown_with(&markup).unwrap_or_default())
    };
    let mut s = match (format, result) {
        (Format::Text, Ok(e)) => e.text.clone(),
        (Format::Markdown, Ok(e)) => {
            let mut md = e.markdown_with(&markup).unwrap_or_default();
            // render adds the page's newline.
            if md.ends_with('\n') {
                md.pop();
            }
            md
        }
        (Format::Html, Ok(e)) => {
            let mut h = e.html_with(&markup).unwrap_or_default();
            if h.ends_with('\n') {
                h.pop();
            }
            h
        }
        (Format::Text | Format::Markdown | Format::Html, Err(_)) => return String::new(),
        (Format::Jsonl, r) => {
            serde_json::to_string(&record(origin, r, r.as_ref().ok().and_then(markdown)))
                .unwrap_or_default()
        }
        (Format::Json, Ok(e)) => {
            #[derive(Serialize)]
            struct Full<'a> {
                #[serde(flatten)]
                origin: Origin<'a>,
                #[serde(flatten)]
                extraction: &'a Extraction,
                #[serde(skip_serializing_if = "Option::is_none")]
                markdown: Option<String>,
            }
            serde_json::to_string_pretty(&Full {
                origin,
                extraction: e,
                markdown: markdown(e),
            })
            .unwrap_or_default()
        }
        (Format::Json, r) => {
            serde_json::to_string_pretty(&record(origin, r, None)).unwrap_or_default()
        }
    };
    s.push('\n');
    s
}

/// `markup` for a page from `origin`: the origin's URL (a WARC record's)
/// resolves relative links unless `markup` names a page URL.
pub fn page_markup(origin: Origin<'_>, markup: &Markup) -> Markup {
    let mut m = markup.clone();
    if m.page_url.is_none() {
        m.page_url = origin.url.map(str::to_string);
    }
    m
}

/// The JSON Lines record of one page as a JSON value: the object that
/// [`render`] writes with [`Format::Jsonl`], for callers (the Python binding)
/// that hand records out as dictionaries rather than text.
pub fn record_value(origin: Origin<'_>, result: &Result<Extraction, String>) -> serde_json::Value {
    record_value_with(origin, result, &RenderOptions::default())
}

/// The JSON Lines record of one page as a JSON value with `options`: the
/// object that [`render_with`] writes with [`Format::Jsonl`] (with
/// `markdown` when [`RenderOptions::with_markdown`] asks for it).
pub fn record_value_with(
    origin: Origin<'_>,
    result: &Result<Extraction, String>,
    options: &RenderOptions,
) -> serde_json::Value {
    let markup = page_markup(origin, &options.markup);
    let markdown = match result {
        Ok(e) if options.with_markdown => Some(e.markdown_with(&markup).unwrap_or_default()),
        _ => None,
    };
    serde_json::to_value(record(origin, result, markdown)).unwrap_or_default()
}

fn record<'a>(
    origin: Origin<'a>,
    r: &'a Result<Extraction, String>,
    markdown: Option<String>,
) -> Record<'a> {
    match r {
        Ok(e) => Record {
            origin,
            text: Some(&e.text),
            metadata: Some(&e.metadata),
            page_type: e.page_type.map(|t| t.name()),
            page_type_probability: e.page_type_probability,
            confidence: e.confidence,
            low_confidence: e.low_confidence,
            algorithm: Some(e.algorithm.name()),
            markdown,
            truncated: e.truncated,
            error: None,
        },
        Err(err) => Record {
            origin,
            text: None,
            metadata: None,
            page_type: None,
            page_type_probability: None,
            confidence: None,
            low_confidence: false,
            algorithm: None,
            markdown: None,
            truncated: false,
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

    /// An extractor switched to recording the structure gives the same
    /// text plus the Markdown, and `record_value_with` is the JSON line
    /// `render_with` writes with `--with-markdown`, the WARC record's URL
    /// resolving the page's relative links.
    #[test]
    fn structure_on_demand_and_the_record_with_markdown() {
        let plain = Extractor::with_embedded_model(ExtractorConfig::default()).unwrap();
        let structured = plain.with_structure(true);
        assert!(structured.config().structure && !plain.config().structure);
        assert_eq!(structured.algorithm(), plain.algorithm());
        let html = "<html lang=en><head><title>Terns</title></head><body><nav><a href=/>Home</a></nav>\
                    <article><h1>Terns</h1><p>The Arctic tern migrates from the Arctic to the \
                    Antarctic and back every year, <a href=\"/birds/migration\">the longest migration</a> \
                    known in the animal kingdom, some ninety thousand kilometres.</p></article></body></html>";
        let without = plain.extract_str(html).unwrap();
        let with = structured.extract_str(html).unwrap();
        assert_eq!(with.text, without.text);
        assert!(without.markdown().is_none());
        let markdown = with.markdown().unwrap();
        assert!(markdown.contains("the longest migration"), "{markdown}");
        assert!(structured
            .with_structure(false)
            .extract_str(html)
            .unwrap()
            .structure
            .is_none());

        let origin = Origin {
            path: "crawl.warc#1",
            url: Some("https://birds.example.org/terns"),
            warc_date: None,
            warc_record_id: None,
        };
        let options = RenderOptions {
            markup: Markup {
                links: true,
                ..Markup::default()
            },
            with_markdown: true,
        };
        let result = Ok(with);
        let line = render_with(origin, &result, Format::Jsonl, &options);
        let value = record_value_with(origin, &result, &options);
        assert_eq!(
            value,
            serde_json::from_str::<serde_json::Value>(&line).unwrap()
        );
        assert!(value["markdown"]
            .as_str()
            .unwrap()
            .contains("(https://birds.example.org/birds/migration)"));
        assert!(record_value(origin, &result).get("markdown").is_none());
    }
}
