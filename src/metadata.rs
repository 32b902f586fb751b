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

use std::collections::HashMap;

use html5ever::{local_name, ns};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::parse::{Document, Dom, NodeData, NodeId};
use crate::text::collapse_whitespace;

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

/// Every value each source gave, before choosing: public so that the
/// choice can be measured (`examples/metadata_sources.rs`).
#[derive(Debug, Clone, Default)]
pub struct Candidates {
    /// `<meta>` values by lower-cased name/property/itemprop (first kept).
    pub meta: HashMap<String, String>,
    /// The first `<title>` (HTML namespace), whitespace collapsed.
    pub title_tag: Option<String>,
    /// The first `<h1>`'s text.
    pub h1: Option<String>,
    /// `<html lang>` (or `xml:lang`).
    pub html_lang: Option<String>,
    /// `<link rel=canonical href>`.
    pub canonical: Option<String>,
    /// What the JSON-LD blocks said.
    pub jsonld: JsonLd,
    /// `datetime` of a `<time>` marked as the publication time (`pubdate`,
    /// `itemprop=datePublished`, a class naming publish/posted/entry-date).
    pub time_published: Option<String>,
    /// `datetime` of the first `<time>` of any kind.
    pub time_first: Option<String>,
    /// Microdata `itemprop=datePublished` (content, datetime or text).
    pub itemprop_date: Option<String>,
    /// Microdata `itemprop=author` text (its `itemprop=name` when present).
    pub itemprop_author: Option<String>,
    /// Text of the first `rel=author` link.
    pub rel_author: Option<String>,
    /// Text of the first short element whose class names a byline
    /// (`byline`, `author`, `post-author`, `author-name` ...).
    pub byline: Option<String>,
    /// Microdata `itemprop=dateModified`.
    pub itemprop_modified: Option<String>,
}

/// Values found in a page's JSON-LD.
#[derive(Debug, Clone, Default)]
pub struct JsonLd {
    /// `headline` (else `name`) of the main creative work.
    pub headline: Option<String>,
    /// Author names of the main creative work, `@id` references resolved.
    pub authors: Vec<String>,
    /// `datePublished` (else `dateCreated`) of the main creative work, else
    /// of any object.
    pub date: Option<String>,
    /// `dateModified` of the main creative work, else of any object.
    pub modified: Option<String>,
    /// `publisher.name` or the `WebSite`'s `name`.
    pub site_name: Option<String>,
    /// `inLanguage`.
    pub language: Option<String>,
}

/// Meta names kept by the walk (compared lower-cased).
const META_KEYS: &[&str] = &[
    "og:title",
    "twitter:title",
    "title",
    "dc.title",
    "headline",
    "author",
    "article:author",
    "dc.creator",
    "dcterms.creator",
    "parsely-author",
    "sailthru.author",
    "byl",
    "citation_author",
    "twitter:creator",
    "article:published_time",
    "og:published_time",
    "published_time",
    "datepublished",
    "date",
    "dc.date",
    "dc.date.issued",
    "dcterms.date",
    "dcterms.created",
    "dcterms.issued",
    "pubdate",
    "publish-date",
    "publish_date",
    "publishdate",
    "parsely-pub-date",
    "sailthru.date",
    "citation_publication_date",
    "citation_date",
    "article.published",
    "article:modified_time",
    "og:updated_time",
    "datemodified",
    "last-modified",
    "og:site_name",
    "application-name",
    "description",
    "og:description",
    "twitter:description",
    "og:url",
    "og:locale",
    "content-language",
    "language",
    "dc.language",
    "inlanguage",
];

impl Candidates {
    /// One walk over the arena (nodes in creation order, which is document
    /// order for everything but the rare re-parented node).
    pub fn collect(dom: &Dom) -> Candidates {
        let mut c = Candidates::default();
        let mut scripts: Vec<String> = Vec::new();
        for (id, node) in dom.nodes.iter().enumerate() {
            let NodeData::Element { name, .. } = &node.data else {
                continue;
            };
            if name.ns != ns!(html) {
                continue;
            }
            match name.local {
                local_name!("meta") => c.meta_tag(node),
                local_name!("html") if c.html_lang.is_none() => {
                    c.html_lang = node
                        .attr("lang")
                        .or_else(|| node.attr("xml:lang"))
                        .and_then(clean);
                }
                local_name!("title") if c.title_tag.is_none() => c.title_tag = text(dom, id),
                local_name!("h1") if c.h1.is_none() => c.h1 = text(dom, id),
                local_name!("link") => {
                    let rel = node.attr("rel").unwrap_or_default().to_ascii_lowercase();
                    if c.canonical.is_none() && rel.split_whitespace().any(|r| r == "canonical") {
                        c.canonical = node.attr("href").and_then(clean);
                    }
                }
                local_name!("script") => {
                    let ty = node.attr("type").unwrap_or_default();
                    if ty.trim().eq_ignore_ascii_case("application/ld+json") && scripts.len() < 32 {
                        scripts.push(dom.text_of(id));
                    }
                }
                local_name!("time") => {
                    let when = node.attr("datetime").and_then(clean);
                    if when.is_some() {
                        if c.time_first.is_none() {
                            c.time_first.clone_from(&when);
                        }
                        if c.time_published.is_none() && is_publish_time(node) {
                            c.time_published = when;
                        }
                    }
                }
                _ => {}
            }
            if let Some(prop) = node.attr("itemprop") {
                c.microdata(dom, id, prop);
            }
            if c.byline.is_none() && is_byline(node) {
                c.byline = short_text(dom, id)
                    .map(|t| strip_by(&t))
                    .filter(|t| t.chars().count() <= 60 && word_count(t) <= 6 && is_name_like(t));
            }
            if c.rel_author.is_none()
                && node.local_name() == Some(&local_name!("a"))
                && node.attr("rel").is_some_and(|r| {
                    r.split_whitespace()
                        .any(|t| t.eq_ignore_ascii_case("author"))
                })
            {
                c.rel_author = short_text(dom, id);
            }
        }
        c.jsonld = JsonLd::from_scripts(&scripts);
        c
    }

    fn meta_tag(&mut self, node: &crate::parse::Node) {
        let Some(content) = node.attr("content").and_then(clean) else {
            return;
        };
        for key in ["name", "property", "itemprop", "http-equiv"] {
            let Some(k) = node.attr(key) else { continue };
            // `property` may hold several names ("og:title twitter:title").
            for k in k.split_whitespace() {
                let k = k.to_ascii_lowercase();
                if META_KEYS.contains(&k.as_str()) {
                    self.meta.entry(k).or_insert_with(|| content.clone());
                }
            }
        }
    }

    fn microdata(&mut self, dom: &Dom, id: NodeId, prop: &str) {
        let node = &dom.nodes[id];
        let value = || {
            node.attr("content")
                .or_else(|| node.attr("datetime"))
                .and_then(clean)
                .or_else(|| text(dom, id))
        };
        for p in prop.split_whitespace() {
            match p {
                "datePublished" if self.itemprop_date.is_none() => self.itemprop_date = value(),
                "dateModified" if self.itemprop_modified.is_none() => {
                    self.itemprop_modified = value();
                }
                "author" | "creator" if self.itemprop_author.is_none() => {
                    // A Person scope: its name; else the element's own text.
                    self.itemprop_author = descendant_itemprop(dom, id, "name")
                        .and_then(|n| {
                            dom.nodes[n]
                                .attr("content")
                                .and_then(clean)
                                .or_else(|| text(dom, n))
                        })
                        .or_else(value)
                        .filter(|a| a.chars().count() <= 100);
                }
                _ => {}
            }
        }
    }

    /// The title: the first `<h1>` when another source agrees with it (it
    /// is contained, ignoring case, in `<title>`, `og:title` or the JSON-LD
    /// headline: so it is the page's title, not a logo or a section
    /// heading) and it is not the site name, else `og:title`, else `<title>` (both with a site-name
    /// piece cut, see [`Candidates::trimmed_title`]), else the JSON-LD
    /// headline, else the first `<h1>`. Measured on WCXB dev (DESIGN.md).
    pub fn title(&self) -> Option<String> {
        let others: Vec<String> = [
            self.title_tag.as_deref(),
            self.meta.get("og:title").map(String::as_str),
            self.jsonld.headline.as_deref(),
        ]
        .into_iter()
        .flatten()
        .map(str::to_lowercase)
        .collect();
        let site = self.site_name().map(|s| s.to_lowercase());
        let agreed = self.h1.as_ref().filter(|h| {
            let h = h.to_lowercase();
            site.as_ref() != Some(&h) && others.iter().any(|o| o.contains(&h))
        });
        agreed
            .cloned()
            .or_else(|| {
                self.meta_value(&["og:title", "twitter:title"])
                    .and_then(|t| self.trimmed_title(&t))
            })
            .or_else(|| {
                self.title_tag
                    .as_deref()
                    .and_then(|t| self.trimmed_title(t))
            })
            .or_else(|| self.jsonld.headline.clone())
            .or_else(|| self.h1.clone())
    }

    /// `<title>` without the site name: when the title splits at a
    /// separator (` | `, ` - `, ` – `, ` — `, ` :: `, ` · `, ` » `) into
    /// pieces, the piece that is not the site name (`og:site_name` or the
    /// shortest end piece), else the whole title.
    pub fn trimmed_title(&self, title: &str) -> Option<String> {
        const SEPARATORS: &[&str] = &[" | ", " - ", " – ", " — ", " :: ", " · ", " » ", " / "];
        let site = self.site_name().map(|s| s.to_lowercase());
        for sep in SEPARATORS {
            let parts: Vec<&str> = title.split(sep).map(str::trim).collect();
            if parts.len() < 2 {
                continue;
            }
            let (first, last) = (parts[0], parts[parts.len() - 1]);
            // Cut the end that names the site; else the shorter end, when
            // the other one is clearly longer.
            let is_site = |p: &str| site.as_deref().is_some_and(|s| p.to_lowercase() == s);
            let kept = if is_site(last) {
                parts[..parts.len() - 1].join(sep)
            } else if *sep == " | " && !is_site(first) {
                // A pipe separates the title from site and section names.
                first.to_string()
            } else if is_site(last) {
                parts[..parts.len() - 1].join(sep)
            } else if is_site(first) {
                parts[1..].join(sep)
            } else if parts.len() == 2
                && word_count(last) <= 4
                && word_count(first) > word_count(last)
            {
                first.to_string()
            } else {
                continue;
            };
            return clean(&kept);
        }
        clean(title)
    }

    /// Author: JSON-LD, else `<meta name=author>` and its kin (not URLs,
    /// not handles), else microdata, else a `rel=author` link.
    pub fn author(&self) -> Option<String> {
        if !self.jsonld.authors.is_empty() {
            return clean(&self.jsonld.authors.join(", "));
        }
        self.meta_value(&[
            "author",
            "article:author",
            "parsely-author",
            "sailthru.author",
            "dc.creator",
            "dcterms.creator",
            "byl",
            "citation_author",
        ])
        .into_iter()
        .chain(self.itemprop_author.clone())
        .chain(self.rel_author.clone())
        .chain(self.byline.clone())
        .map(|a| strip_by(&a))
        .find(|a| is_name_like(a))
    }

    /// Publication date (ISO): `article:published_time` and other meta
    /// dates, else JSON-LD, else microdata, else a publication `<time>`.
    pub fn date(&self) -> Option<String> {
        const KEYS: &[&str] = &[
            "article:published_time",
            "og:published_time",
            "published_time",
            "datepublished",
            "parsely-pub-date",
            "sailthru.date",
            "pubdate",
            "publish-date",
            "publish_date",
            "publishdate",
            "article.published",
            "citation_publication_date",
            "citation_date",
            "dc.date.issued",
            "dcterms.issued",
            "dcterms.created",
            "dc.date",
            "dcterms.date",
            "date",
        ];
        KEYS.iter()
            .filter_map(|k| self.meta.get(*k))
            .chain(self.jsonld.date.as_ref())
            .chain(self.itemprop_date.as_ref())
            .chain(self.time_published.as_ref())
            .find_map(|d| normalize_date(d))
    }

    /// Language: `<html lang>`, else `content-language`/`og:locale`/JSON-LD.
    pub fn language(&self) -> Option<String> {
        self.html_lang
            .clone()
            .or_else(|| {
                self.meta_value(&["content-language", "language", "dc.language", "inlanguage"])
            })
            .or_else(|| self.jsonld.language.clone())
            .or_else(|| self.meta_value(&["og:locale"]))
            .map(|l| l.replace('_', "-"))
            .filter(|l| l.len() <= 35 && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
    }

    /// The site name: `og:site_name`, JSON-LD publisher or WebSite,
    /// `application-name`.
    pub fn site_name(&self) -> Option<String> {
        self.meta_value(&["og:site_name"])
            .or_else(|| self.jsonld.site_name.clone())
            .or_else(|| self.meta_value(&["application-name"]))
    }

    /// Last-modified date (ISO): `article:modified_time`,
    /// `og:updated_time`, JSON-LD `dateModified`, microdata.
    pub fn modified(&self) -> Option<String> {
        ["article:modified_time", "og:updated_time", "datemodified"]
            .iter()
            .filter_map(|k| self.meta.get(*k))
            .chain(self.jsonld.modified.as_ref())
            .chain(self.itemprop_modified.as_ref())
            .find_map(|d| normalize_date(d))
    }

    /// Chooses each field.
    pub fn resolve(&self) -> Metadata {
        Metadata {
            title: self.title(),
            author: self.author(),
            date: self.date(),
            modified: self.modified(),
            language: self.language(),
            canonical_url: self
                .canonical
                .clone()
                .or_else(|| self.meta_value(&["og:url"])),
            site_name: self.site_name(),
            description: self.meta_value(&["description", "og:description", "twitter:description"]),
        }
    }

    /// The first of these meta names that the page has.
    pub fn meta_value(&self, keys: &[&str]) -> Option<String> {
        keys.iter().find_map(|k| self.meta.get(*k)).cloned()
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

/// An element's text, whitespace collapsed, `None` when empty.
fn text(dom: &Dom, id: NodeId) -> Option<String> {
    clean(&dom.text_of(id))
}

/// Nodes a byline may hold: larger elements are containers, not bylines,
/// and the bound keeps the walk linear however many elements say "author".
const BYLINE_MAX_NODES: usize = 200;

/// An element's text like [`text`], or `None` when its subtree holds more
/// than [`BYLINE_MAX_NODES`] nodes.
fn short_text(dom: &Dom, id: NodeId) -> Option<String> {
    clean(&dom.text_within(id, BYLINE_MAX_NODES)?)
}

fn word_count(s: &str) -> usize {
    s.split_whitespace().count()
}

/// A `<time>` that says it is the publication time.
fn is_publish_time(node: &crate::parse::Node) -> bool {
    if node.attr("pubdate").is_some()
        || node
            .attr("itemprop")
            .is_some_and(|p| p.split_whitespace().any(|p| p == "datePublished"))
    {
        return true;
    }
    node.attr("class").is_some_and(|c| {
        let c = c.to_ascii_lowercase();
        ["publish", "posted", "entry-date", "post-date", "pubdate"]
            .iter()
            .any(|k| c.contains(k))
    })
}

/// An element whose class names a byline: a class `byline` or `author`, or
/// one ending in `-author`/`_author` or naming an author's name.
fn is_byline(node: &crate::parse::Node) -> bool {
    node.attr("class").is_some_and(|c| {
        c.split_ascii_whitespace().any(|t| {
            let t = t.to_ascii_lowercase();
            matches!(t.as_str(), "byline" | "author" | "byline-author" | "vcard")
                || t.ends_with("-author")
                || t.ends_with("_author")
                || t.ends_with("author-name")
                || t.ends_with("author_name")
                || t.ends_with("authorname")
        })
    })
}

/// The first element below `id` (within 1,000 nodes) with `itemprop`
/// naming `prop`.
fn descendant_itemprop(dom: &Dom, id: NodeId, prop: &str) -> Option<NodeId> {
    dom.descendants(id).skip(1).take(1000).find(|&n| {
        dom.nodes[n]
            .attr("itemprop")
            .is_some_and(|p| p.split_whitespace().any(|p| p == prop))
    })
}

/// "By Jane Doe", "Posted by Jane Doe", "Author: Jane Doe" → "Jane Doe".
fn strip_by(s: &str) -> String {
    let t = s.trim();
    for p in [
        "posted by ",
        "written by ",
        "by ",
        "author: ",
        "von ",
        "par ",
        "por ",
    ] {
        if let Some(rest) = t
            .get(..p.len())
            .filter(|head| head.eq_ignore_ascii_case(p))
            .and_then(|_| t.get(p.len()..))
        {
            return rest.trim().to_string();
        }
    }
    t.to_string()
}

/// A plausible person or organisation name: not a URL, not a `@handle`,
/// not a sentence.
fn is_name_like(s: &str) -> bool {
    !s.is_empty()
        && !s.contains("://")
        && !s.starts_with("www.")
        && !s.starts_with('@')
        && s.chars().count() <= 100
        && s.chars().any(char::is_alphabetic)
}

// ---------------------------------------------------------------- JSON-LD

/// Creative-work types whose headline, author and date describe the page.
fn is_main_type(t: &str) -> bool {
    let t = t.rsplit(['/', ':']).next().unwrap_or(t);
    t.ends_with("Article")
        || t.ends_with("Posting")
        || matches!(
            t,
            "Report"
                | "Review"
                | "Recipe"
                | "HowTo"
                | "Blog"
                | "Question"
                | "VideoObject"
                | "Episode"
                | "PodcastEpisode"
                | "CreativeWork"
        )
}

fn types_of(v: &Value) -> Vec<&str> {
    match v.get("@type") {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// A string value, or the first string of an array, or an object's `name`
/// / `@value`.
fn as_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => clean(s),
        Value::Array(a) => a.iter().find_map(as_text),
        Value::Object(o) => o.get("name").or_else(|| o.get("@value")).and_then(as_text),
        _ => None,
    }
}

impl JsonLd {
    /// Reads every JSON-LD script of a page; broken ones are repaired or
    /// scanned for keys, never fatal.
    pub fn from_scripts(scripts: &[String]) -> JsonLd {
        let mut objects: Vec<Value> = Vec::new();
        let mut broken: Vec<&str> = Vec::new();
        for s in scripts {
            match parse_lenient(s) {
                Some(v) => flatten_objects(v, &mut objects),
                None => broken.push(s),
            }
        }
        let mut out = JsonLd::default();
        let by_id: HashMap<&str, &Value> = objects
            .iter()
            .filter_map(|o| Some((o.get("@id")?.as_str()?, o)))
            .collect();
        let main = objects
            .iter()
            .find(|o| types_of(o).iter().any(|t| is_main_type(t)));
        if let Some(m) = main {
            out.headline = m
                .get("headline")
                .and_then(as_text)
                .or_else(|| m.get("name").and_then(as_text));
            if let Some(a) = m.get("author").or_else(|| m.get("creator")) {
                collect_names(a, &by_id, 0, &mut out.authors);
            }
            out.date = ["datePublished", "dateCreated"]
                .iter()
                .find_map(|k| m.get(*k).and_then(as_text));
            out.modified = m.get("dateModified").and_then(as_text);
            out.site_name = m
                .get("publisher")
                .and_then(|p| resolve(p, &by_id))
                .and_then(|p| p.get("name"))
                .and_then(as_text);
        }
        if out.date.is_none() {
            out.date = objects
                .iter()
                .find_map(|o| o.get("datePublished").and_then(as_text));
        }
        if out.modified.is_none() {
            out.modified = objects
                .iter()
                .find_map(|o| o.get("dateModified").and_then(as_text));
        }
        if out.site_name.is_none() {
            out.site_name = objects
                .iter()
                .find(|o| types_of(o).contains(&"WebSite"))
                .and_then(|o| o.get("name"))
                .and_then(as_text);
        }
        out.language = objects
            .iter()
            .find_map(|o| o.get("inLanguage").and_then(as_text));
        out.authors.dedup();
        if main.is_none() || out.headline.is_none() && out.date.is_none() {
            for s in broken {
                out.fill_from_scan(s);
            }
        }
        out
    }

    /// Last resort for JSON that does not parse: the first `"key": "value"`
    /// of the keys we want.
    fn fill_from_scan(&mut self, s: &str) {
        if self.headline.is_none() {
            self.headline = scan_string(s, "headline");
        }
        if self.date.is_none() {
            self.date = scan_string(s, "datePublished").or_else(|| scan_string(s, "dateCreated"));
        }
        if self.authors.is_empty() {
            if let Some(pos) = s.find("\"author\"") {
                if let Some(name) = scan_string(&s[pos..], "name") {
                    self.authors.push(name);
                }
            }
        }
    }
}

/// Follows an `{"@id": …}` reference to the object it names.
fn resolve<'a>(v: &'a Value, by_id: &HashMap<&str, &'a Value>) -> Option<&'a Value> {
    match v {
        Value::Object(o) if o.len() == 1 => o
            .get("@id")
            .and_then(Value::as_str)
            .and_then(|id| by_id.get(id).copied())
            .or(Some(v)),
        Value::Array(a) => a.first().and_then(|f| resolve(f, by_id)),
        _ => Some(v),
    }
}

fn collect_names(v: &Value, by_id: &HashMap<&str, &Value>, depth: usize, out: &mut Vec<String>) {
    if depth > 4 || out.len() >= 20 {
        return;
    }
    match v {
        Value::String(s) => out.extend(clean(s).filter(|s| is_name_like(s))),
        Value::Array(a) => {
            for x in a {
                collect_names(x, by_id, depth + 1, out);
            }
        }
        Value::Object(o) => {
            if let Some(name) = o.get("name").and_then(as_text) {
                out.push(name);
            } else if let Some(target) = o
                .get("@id")
                .and_then(Value::as_str)
                .and_then(|id| by_id.get(id))
            {
                if target.get("name").is_some() {
                    collect_names(target, by_id, depth + 1, out);
                }
            }
        }
        _ => {}
    }
}

/// Every object of a JSON-LD document: top-level arrays and `@graph`s
/// unpacked (nested objects stay inside their parent).
fn flatten_objects(v: Value, out: &mut Vec<Value>) {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        if out.len() >= 500 {
            return;
        }
        match v {
            Value::Array(a) => stack.extend(a.into_iter().rev()),
            Value::Object(mut o) => {
                // A WebPage's main entity is often the article itself.
                if let Some(e) = o
                    .get("mainEntity")
                    .filter(|e| e.is_object() || e.is_array())
                {
                    stack.push(e.clone());
                }
                if let Some(g) = o.remove("@graph") {
                    if o.keys().any(|k| k != "@context") {
                        out.push(Value::Object(o));
                    }
                    stack.push(g);
                } else {
                    out.push(Value::Object(o));
                }
            }
            _ => {}
        }
    }
}

/// Parses JSON-LD as written, else after cheap repairs: HTML comment and
/// CDATA wrappers removed, raw control characters (newlines inside strings)
/// made spaces, trailing commas dropped. `None` when it still fails.
pub fn parse_lenient(s: &str) -> Option<Value> {
    if let Ok(v) = serde_json::from_str(s) {
        return Some(v);
    }
    let mut t = s.trim();
    for wrapper in ["<!--", "//<![CDATA[", "<![CDATA["] {
        t = t.strip_prefix(wrapper).unwrap_or(t).trim();
    }
    for wrapper in ["-->", "//]]>", "]]>"] {
        t = t.strip_suffix(wrapper).unwrap_or(t).trim();
    }
    let mut out = String::with_capacity(t.len());
    let mut in_string = false;
    let mut escaped = false;
    for c in t.chars() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            out.push(if c.is_control() { ' ' } else { c });
            continue;
        }
        match c {
            '"' => in_string = true,
            '}' | ']' => {
                // Drop a trailing comma before a closing bracket.
                let trimmed = out.trim_end().len();
                if out[..trimmed].ends_with(',') {
                    out.truncate(trimmed - 1);
                }
            }
            _ => {}
        }
        out.push(c);
    }
    if let Ok(v) = serde_json::from_str(&out) {
        return Some(v);
    }
    // Several objects back to back: take what parses.
    let values: Vec<Value> = serde_json::Deserializer::from_str(&out)
        .into_iter::<Value>()
        .map_while(Result::ok)
        .collect();
    (!values.is_empty()).then_some(Value::Array(values))
}

/// The string value of the first `"key": "…"` in `s` (escapes undone
/// where they are simple).
fn scan_string(s: &str, key: &str) -> Option<String> {
    let pat = format!("\"{key}\"");
    let mut from = 0;
    while let Some(pos) = s[from..].find(&pat) {
        let after = &s[from + pos + pat.len()..];
        from += pos + pat.len();
        let Some(rest) = after.trim_start().strip_prefix(':') else {
            continue;
        };
        let Some(rest) = rest.trim_start().strip_prefix('"') else {
            continue;
        };
        let mut value = String::new();
        let mut chars = rest.chars();
        while let Some(c) = chars.next() {
            match c {
                '"' => return clean(&value),
                '\\' => match chars.next() {
                    Some('n' | 't' | 'r') => value.push(' '),
                    Some(e) => value.push(e),
                    None => break,
                },
                c => value.push(c),
            }
        }
        return None;
    }
    None
}

// ------------------------------------------------------------------ dates

const MONTHS: &[(&str, u32)] = &[
    ("january", 1),
    ("february", 2),
    ("march", 3),
    ("april", 4),
    ("may", 5),
    ("june", 6),
    ("july", 7),
    ("august", 8),
    ("september", 9),
    ("sept", 9),
    ("october", 10),
    ("november", 11),
    ("december", 12),
    ("januar", 1),
    ("februar", 2),
    ("märz", 3),
    ("mai", 5),
    ("juni", 6),
    ("juli", 7),
    ("oktober", 10),
    ("dezember", 12),
    ("janvier", 1),
    ("février", 2),
    ("mars", 3),
    ("avril", 4),
    ("juin", 6),
    ("juillet", 7),
    ("août", 8),
    ("septembre", 9),
    ("octobre", 10),
    ("novembre", 11),
    ("décembre", 12),
    ("enero", 1),
    ("febrero", 2),
    ("marzo", 3),
    ("abril", 4),
    ("mayo", 5),
    ("junio", 6),
    ("julio", 7),
    ("agosto", 8),
    ("septiembre", 9),
    ("octubre", 10),
    ("noviembre", 11),
    ("diciembre", 12),
];

/// The month a word names: a full name, or its first three letters
/// (English, German, French, Spanish).
fn month_of(word: &str) -> Option<u32> {
    let w = word.to_lowercase();
    let w = w.trim_end_matches('.');
    if w.chars().count() < 3 {
        return None;
    }
    MONTHS
        .iter()
        .find(|(name, _)| *name == w)
        .or_else(|| {
            (w.chars().count() == 3)
                .then(|| MONTHS.iter().find(|(name, _)| name.starts_with(w)))
                .flatten()
        })
        .map(|&(_, m)| m)
}

fn valid(y: u32, m: u32, d: u32) -> Option<String> {
    let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    ((1900..=2100).contains(&y) && (1..=days).contains(&d)).then(|| format!("{y:04}-{m:02}-{d:02}"))
}

/// Normalises a date as pages write it to ISO `YYYY-MM-DD`:
/// ISO 8601 and its relatives (`2025-09-04T10:00:00+02:00`, `2025/09/04`,
/// `20250904`), RFC 2822 (`Thu, 04 Sep 2025 10:00:00 GMT`), month names
/// (`September 4, 2025`, `4th Sep 2025`, `4. März 2025`), and numeric
/// day-first (`04.09.2025`, `04-09-2025`) or US month-first (`9/4/2025`)
/// dates. The time of day and the zone are dropped. `None` when the text
/// holds no valid date between 1900 and 2100.
pub fn normalize_date(s: &str) -> Option<String> {
    let s = s.trim();
    // Leading ISO-like year-month-day.
    let b = s.as_bytes();
    if b.len() >= 8 && b[..4].iter().all(u8::is_ascii_digit) {
        let digits: &str = &s[..4];
        let y: u32 = digits.parse().ok()?;
        if b.len() >= 8
            && b[4..8].iter().all(u8::is_ascii_digit)
            && b.get(8).is_none_or(|c| !c.is_ascii_digit())
        {
            // 20250904
            return valid(y, s[4..6].parse().ok()?, s[6..8].parse().ok()?);
        }
        if matches!(b[4], b'-' | b'/' | b'.') {
            let mut parts = s[5..].splitn(2, b[4] as char);
            let m: Option<u32> = parts.next().and_then(|p| p.parse().ok());
            let d: Option<u32> = parts.next().and_then(|p| {
                let n: String = p.chars().take_while(char::is_ascii_digit).collect();
                n.parse().ok()
            });
            if let (Some(m), Some(d)) = (m, d) {
                return valid(y, m, d);
            }
        }
    }
    // Words and numbers, with times of day (hh:mm[:ss]) removed.
    let mut numbers: Vec<(u32, usize)> = Vec::new(); // (value, digit count)
    let mut month = None;
    let mut seps = String::new();
    let tokens: Vec<&str> = s
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|t| !t.is_empty())
        .collect();
    for t in tokens {
        if t.contains(':') {
            continue;
        }
        for piece in t.split(['-', '/', '.']) {
            let digits: String = piece.chars().take_while(char::is_ascii_digit).collect();
            let suffix = &piece[digits.len()..];
            if !digits.is_empty() {
                if matches!(suffix, "" | "st" | "nd" | "rd" | "th" | "er" | "º" | "e") {
                    if let Ok(n) = digits.parse() {
                        numbers.push((n, digits.len()));
                    }
                }
            } else if month.is_none() {
                month = month_of(piece);
            }
        }
        seps.extend(t.chars().filter(|c| matches!(c, '-' | '/' | '.')));
    }
    let year = numbers.iter().position(|&(_, len)| len == 4)?;
    let y = numbers[year].0;
    let small: Vec<u32> = numbers
        .iter()
        .enumerate()
        .filter(|&(i, &(_, len))| i != year && len <= 2)
        .map(|(_, &(n, _))| n)
        .collect();
    if let Some(m) = month {
        return valid(y, m, *small.first()?);
    }
    // Numeric only: year last, day first unless slashes say US order.
    if year != 2 || small.len() < 2 {
        return None;
    }
    let (a, b2) = (small[0], small[1]);
    if seps.starts_with('/') && a <= 12 {
        valid(y, a, b2)
    } else {
        valid(y, b2, a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_in_many_formats() {
        for (raw, want) in [
            ("2025-09-04T10:00:00+02:00", "2025-09-04"),
            ("2025-09-04", "2025-09-04"),
            ("2025-9-4 10:00", "2025-09-04"),
            ("2025/09/04", "2025-09-04"),
            ("20250904", "2025-09-04"),
            ("Thu, 04 Sep 2025 10:00:00 GMT", "2025-09-04"),
            ("September 4, 2025", "2025-09-04"),
            ("Sep 4th, 2025 at 10:15 am", "2025-09-04"),
            ("4 September 2025", "2025-09-04"),
            ("10:30 AM, Sept. 4, 2025", "2025-09-04"),
            ("4. März 2025", "2025-03-04"),
            ("04.09.2025", "2025-09-04"),
            ("9/4/2025", "2025-09-04"),
            ("25/12/2024", "2024-12-25"),
            ("29 février 2024", "2024-02-29"),
        ] {
            assert_eq!(normalize_date(raw).as_deref(), Some(want), "{raw}");
        }
        for raw in [
            "",
            "yesterday",
            "2025-13-01",
            "2023-02-29",
            "12345",
            "May",
            "१२/०४/२०२५",
        ] {
            assert_eq!(normalize_date(raw), None, "{raw}");
        }
    }

    #[test]
    fn lenient_json() {
        assert!(parse_lenient(r#"{"a": 1,}"#).is_some());
        assert!(parse_lenient("<!-- {\"a\": \"x\ny\"} -->").is_some());
        assert!(parse_lenient(r#"{"a":1}{"b":2}"#).is_some());
        assert!(parse_lenient(r#"{"a": "#).is_none());
        assert_eq!(
            scan_string(r#"{"headline": "A \"quoted\" title", "#, "headline").as_deref(),
            Some("A \"quoted\" title")
        );
    }

    #[test]
    fn title_suffix_is_cut() {
        let c = Candidates {
            meta: [("og:site_name".to_string(), "Gull News".to_string())].into(),
            ..Candidates::default()
        };
        assert_eq!(
            c.trimmed_title("Herring gulls nest on roofs | Gull News")
                .as_deref(),
            Some("Herring gulls nest on roofs")
        );
        assert_eq!(
            c.trimmed_title("Gull News - Herring gulls nest on roofs")
                .as_deref(),
            Some("Herring gulls nest on roofs")
        );
        let plain = Candidates::default();
        assert_eq!(
            plain
                .trimmed_title("Why gulls nest on roofs - Birdwatch")
                .as_deref(),
            Some("Why gulls nest on roofs")
        );
        assert_eq!(
            plain.trimmed_title("Question - answer").as_deref(),
            Some("Question - answer")
        );
    }
}
