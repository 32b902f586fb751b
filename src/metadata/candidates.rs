//! The values every source of a page gives ([`Candidates`]), gathered in
//! one walk over the DOM, and the choice among them for each field; the
//! byline, author-name and publication-`<time>` tests the walk uses.

use std::collections::HashMap;

use html5ever::{local_name, ns};

use super::author_names::clean_author;
use super::date_choice::{
    choose, lone_header_date, score, url_date, ChosenDates, DateEvidence, Declared,
};
use super::dates::normalize_date;
use super::json_ld::JsonLd;
use super::meta_keys::{META_KEYS, MODIFIED_KEYS, PUBLISHED_KEYS};
use super::microformats::{hatom_date, HAtomDate};
use super::relative_dates::Reference;
use super::visible_dates::{settle_order, visible_dates, VisibleDate};
use super::{clean, Metadata, PageHints, SourceKind, Sources};
use crate::parse::{Dom, NodeData, NodeId};

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
    /// hAtom `<abbr class=published title=DATE>` (`microformats.rs`), ISO.
    pub hatom_published: Option<String>,
    /// hAtom `<abbr class=updated title=DATE>`, ISO.
    pub hatom_updated: Option<String>,
    /// The dates the page shows, in document order ([`Candidates::collect_with`]).
    pub visible: Vec<VisibleDate>,
    /// The months the page shows alone ("November 2015"; `iso` is
    /// `YYYY-MM`), in document order.
    pub visible_months: Vec<VisibleDate>,
    /// The date in the page URL's path.
    pub url_date: Option<String>,
}

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
                local_name!("abbr") => {
                    if let Some((kind, iso)) = hatom_date(node) {
                        match kind {
                            HAtomDate::Published => c.hatom_published.get_or_insert(iso),
                            HAtomDate::Updated => c.hatom_updated.get_or_insert(iso),
                        };
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
            if let Some(prop) = node.attr_named(&local_name!("itemprop")) {
                c.microdata(dom, id, prop);
            }
            if c.byline.is_none() && is_byline(node) {
                // A byline is short as the page writes it, date and all.
                c.byline = short_text(dom, id)
                    .filter(|t| t.chars().count() <= 64 && word_count(t) <= 7)
                    .and_then(|t| clean_author(&t));
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

    /// [`Candidates::collect`], and the dates the page shows (read in the
    /// page's order of day and month; relative ones against the hints'
    /// reference date) and the date in the URL's path.
    pub fn collect_with(dom: &Dom, hints: &PageHints<'_>) -> Candidates {
        let mut c = Candidates::collect(dom);
        let reference = hints.reference_date.and_then(Reference::parse);
        let shown = visible_dates(dom, c.month_first(), reference.as_ref());
        c.visible = shown.days;
        c.visible_months = shown.months;
        c.url_date = hints.url.or(c.canonical.as_deref()).and_then(url_date);
        let declared = c.declared_published();
        let known: Vec<&str> = declared
            .iter()
            .map(|d| d.iso.as_str())
            .chain(c.url_date.as_deref())
            .collect();
        settle_order(&mut c.visible, &known);
        c
    }

    /// True when the page writes `3/4/2025` for March 4: English pages
    /// that name no region, or name the US.
    fn month_first(&self) -> bool {
        self.language().is_some_and(|l| {
            let l = l.to_ascii_lowercase();
            l == "en" || l == "en-us"
        })
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
                if [META_KEYS, PUBLISHED_KEYS, MODIFIED_KEYS]
                    .iter()
                    .any(|keys| keys.contains(&k.as_str()))
                {
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
    /// headline, or puts one of them in other words, see `reworded`: so
    /// it is the page's title, not a logo or a section heading) and it is
    /// not the site name, else `og:title`, else `<title>` (both with a site-name
    /// piece cut, see [`Candidates::trimmed_title`]), else the JSON-LD
    /// headline, else the first `<h1>`. Measured on WCXB dev (DESIGN.md).
    pub fn title(&self) -> Option<String> {
        self.title_with_source().map(|(t, _)| t)
    }

    /// [`Candidates::title`] with its source (the `<h1>` counts as visible
    /// text, `<title>` as meta).
    pub fn title_with_source(&self) -> Option<(String, SourceKind)> {
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
            site.as_ref() != Some(&h)
                && (others.iter().any(|o| o.contains(&h)) || reworded(&h, &others))
        });
        let meta = |t: String| (t, SourceKind::Meta);
        agreed
            .map(|h| (h.clone(), SourceKind::Visible))
            .or_else(|| {
                self.meta_value(&["og:title", "twitter:title"])
                    .and_then(|t| self.trimmed_title(&t))
                    .map(meta)
            })
            .or_else(|| {
                self.title_tag
                    .as_deref()
                    .and_then(|t| self.trimmed_title(t))
                    .map(meta)
            })
            .or_else(|| {
                self.jsonld
                    .headline
                    .clone()
                    .map(|t| (t, SourceKind::JsonLd))
            })
            .or_else(|| self.h1.clone().map(|h| (h, SourceKind::Visible)))
    }

    /// `<title>` without the site name: when the title splits at a
    /// separator (` | `, ` - `, ` – `, ` — `, ` :: `, ` · `, ` » `) into
    /// pieces, the piece that is not the site name (`og:site_name` or the
    /// shortest end piece), else the whole title.
    pub fn trimmed_title(&self, title: &str) -> Option<String> {
        let site = self.site_name().map(|s| s.to_lowercase());
        for sep in TITLE_SEPARATORS {
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

    /// Author: JSON-LD (several names as the byline writes them when it
    /// names them all), else `<meta name=author>` and its kin, else
    /// microdata, else a `rel=author` link, else a byline; each cleaned of
    /// labels and dates, and passed over when it names no one
    /// (`author_names.rs`).
    pub fn author(&self) -> Option<String> {
        self.author_with_source().map(|(a, _)| a)
    }

    /// [`Candidates::author`] with its source (microdata counts as meta, a
    /// `rel=author` link or a byline as visible text).
    pub fn author_with_source(&self) -> Option<(String, SourceKind)> {
        let names: Vec<String> = self
            .jsonld
            .authors
            .iter()
            .filter_map(|a| clean_author(a))
            .collect();
        if names.len() >= 2 {
            // A byline naming them all writes them as the page does
            // ("Ann Lee and Bo Chan").
            if let Some(b) = self.byline.as_ref().filter(|b| lists_only(b, &names)) {
                return Some((b.clone(), SourceKind::JsonLd));
            }
        }
        if !names.is_empty() {
            return clean(&names.join(", ")).map(|a| (a, SourceKind::JsonLd));
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
        .map(|a| (a, SourceKind::Meta))
        .chain(
            self.rel_author
                .iter()
                .chain(&self.byline)
                .map(|a| (a.clone(), SourceKind::Visible)),
        )
        .find_map(|(a, k)| clean_author(&a).map(|a| (a, k)))
    }

    /// Publication date (ISO), see [`Candidates::dates`].
    pub fn date(&self) -> Option<String> {
        self.dates().published.map(|(d, _)| d)
    }

    /// The declared publication dates (meta tags, JSON-LD, microdata and
    /// microformats),
    /// best source first.
    pub fn declared_published(&self) -> Vec<Declared> {
        let meta = PUBLISHED_KEYS.iter().filter_map(|k| self.meta.get(*k));
        declared(
            meta.map(|d| (d, SourceKind::Meta))
                .chain(self.jsonld.date.iter().map(|d| (d, SourceKind::JsonLd)))
                .chain(self.itemprop_date.iter().map(|d| (d, SourceKind::Meta)))
                .chain(self.hatom_published.iter().map(|d| (d, SourceKind::Meta)))
                .chain(self.time_published.iter().map(|d| (d, SourceKind::Time))),
        )
    }

    /// The declared modification dates, best source first.
    pub fn declared_modified(&self) -> Vec<Declared> {
        let meta = MODIFIED_KEYS.iter().filter_map(|k| self.meta.get(*k));
        declared(
            meta.map(|d| (d, SourceKind::Meta))
                .chain(self.jsonld.modified.iter().map(|d| (d, SourceKind::JsonLd)))
                .chain(self.itemprop_modified.iter().map(|d| (d, SourceKind::Meta)))
                .chain(self.hatom_updated.iter().map(|d| (d, SourceKind::Meta))),
        )
    }

    /// Publication and modification dates with their sources: the scored
    /// choice of `date_choice.rs` among the visible dates, the declared
    /// ones and the URL's.
    pub fn dates(&self) -> ChosenDates {
        choose(&self.evidence())
    }

    /// Each visible date's score (`date_choice.rs`), in the order of
    /// [`Candidates::visible`]: public so that misses can be read.
    pub fn visible_scores(&self) -> Vec<f64> {
        let e = self.evidence();
        self.visible.iter().map(|v| score(v, &e)).collect()
    }

    /// What the date choice reads.
    fn evidence(&self) -> DateEvidence<'_> {
        DateEvidence {
            published: self.declared_published(),
            modified: self.declared_modified(),
            visible: &self.visible,
            months: &self.visible_months,
            url: self.url_date.clone(),
            distinct_dates: {
                let mut days: Vec<&str> = self
                    .visible
                    .iter()
                    .filter(|v| !v.chrome)
                    .map(|v| v.iso.as_str())
                    .collect();
                days.sort_unstable();
                days.dedup();
                days.len()
            },
            lone_header: lone_header_date(&self.visible),
        }
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

    /// Last-modified date (ISO), see [`Candidates::dates`].
    pub fn modified(&self) -> Option<String> {
        self.dates().modified.map(|(d, _)| d)
    }

    /// Chooses each field.
    pub fn resolve(&self) -> Metadata {
        let (title, title_source) = self.title_with_source().unzip();
        let (author, author_source) = self.author_with_source().unzip();
        let dates = self.dates();
        let (date, date_source) = dates.published.unzip();
        Metadata {
            title,
            author,
            date,
            modified: dates.modified.map(|(d, _)| d),
            sources: Sources {
                title: title_source,
                author: author_source,
                date: date_source,
            },
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

/// Separators between a title and a site's or section's name.
const TITLE_SEPARATORS: &[&str] = &[" | ", " - ", " – ", " — ", " :: ", " · ", " » ", " / "];

/// Words a reworded headline shares with the page's other titles.
const REWORDED_SHARE: f64 = 0.5;

/// Titles longer than this (in bytes) are not compared word by word: no
/// headline is, and a hostile page's megabyte `<title>` and `<h1>` would
/// make the comparison of every piece with the headline quadratic.
const REWORDED_MAX_BYTES: usize = 2_000;

/// True when the headline `h1` (lower-cased) is the page's title put in
/// other words: three words or more, not one piece of a title cut at its
/// separators (a site's name), and half of its words or more found in
/// one of the `others` titles ("Top 10 Health and Nutrition Trends to
/// Watch" beside "Health And Nutrition Trends For 2026 - Site").
fn reworded(h1: &str, others: &[String]) -> bool {
    if h1.len() > REWORDED_MAX_BYTES {
        return false;
    }
    let others: Vec<&String> = others
        .iter()
        .filter(|o| o.len() <= REWORDED_MAX_BYTES)
        .collect();
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    };
    let straight = |s: &str| s.replace(['’', '‘'], "'").replace(['“', '”'], "\"");
    let h1 = straight(h1);
    let hw = words(&h1);
    if hw.len() < 3 {
        return false;
    }
    let pieces = |o: &str| -> Vec<String> {
        TITLE_SEPARATORS
            .iter()
            .flat_map(|sep| {
                o.split(sep)
                    .map(|p| p.trim().to_string())
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    // The same title written with other quotes, or the headline holding a
    // title's piece after a kicker ("Kultur : Headline"): not reworded.
    let same = others.iter().map(|o| straight(o)).any(|o| {
        o.contains(&h1)
            || pieces(&o)
                .iter()
                .any(|p| p == &h1 || (words(p).len() >= 3 && h1.contains(p.as_str())))
    });
    !same
        && others.iter().any(|o| {
            let ow = words(&straight(o));
            let shared = hw.iter().filter(|w| ow.contains(w)).count();
            shared as f64 >= REWORDED_SHARE * hw.len() as f64
        })
}

/// Words that join names in a byline ("Ann Lee and Bo Chan").
const NAME_JOINERS: &[&str] = &[
    "and", "&", "und", "et", "y", "e", "en", "i", "og", "och", "и",
];

/// True when `byline` holds each of `names` and, between them, only
/// commas and joining words: it lists them as the page writes them, with
/// nothing else (a role, an office) beside them.
fn lists_only(byline: &str, names: &[String]) -> bool {
    let mut rest = byline.to_string();
    for n in names {
        match rest.find(n.as_str()) {
            Some(at) => rest.replace_range(at..at + n.len(), " "),
            None => return false,
        }
    }
    let words: Vec<&str> = rest
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .collect();
    (rest.contains(',') || !words.is_empty())
        && words
            .iter()
            .all(|w| NAME_JOINERS.contains(&w.to_lowercase().as_str()))
}

/// The values that normalise to a date, in order, with their sources.
fn declared<'a>(values: impl Iterator<Item = (&'a String, SourceKind)>) -> Vec<Declared> {
    values
        .filter_map(|(v, kind)| normalize_date(v).map(|iso| Declared { iso, kind }))
        .collect()
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
    node.attr_named(&local_name!("class"))
        .is_some_and(|c| c.split_ascii_whitespace().any(is_byline_class))
}

/// True when one class token names a byline, in any ASCII case (compared
/// in place: this runs on every class token of a page until a byline is
/// found, and a lower-cased copy of each cost an allocation).
fn is_byline_class(t: &str) -> bool {
    let ends =
        |suffix: &str| crate::text::ends_with_ignore_ascii_case(t.as_bytes(), suffix.as_bytes());
    ["byline", "author", "byline-author", "vcard"]
        .iter()
        .any(|w| t.eq_ignore_ascii_case(w))
        || [
            "-author",
            "_author",
            "author-name",
            "author_name",
            "authorname",
        ]
        .iter()
        .any(|s| ends(s))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byline_classes_match_in_any_ascii_case() {
        for t in [
            "byline",
            "Author",
            "BYLINE-AUTHOR",
            "vcard",
            "post-author",
            "entry_Author",
            "author-name",
            "AuthorName",
            "article__author_name",
        ] {
            assert!(is_byline_class(t), "{t}");
        }
        for t in [
            "authors",
            "author-bio",
            "by",
            "",
            "r",
            "name",
            "coauthorship",
            "autor",
            "bylines",
        ] {
            assert!(!is_byline_class(t), "{t}");
        }
    }

    #[test]
    fn a_byline_lists_names_only_with_joining_words() {
        let names = ["Ann Lee".to_string(), "Bo Chan".to_string()];
        assert!(lists_only("Ann Lee and Bo Chan", &names));
        assert!(lists_only("Ann Lee, Bo Chan", &names));
        assert!(!lists_only("Ann Lee Bo Chan", &names));
        assert!(!lists_only("Ann Lee, Bo Chan (special envoy)", &names));
        assert!(!lists_only("Ann Lee", &names));
    }

    #[test]
    fn megabyte_titles_are_not_compared_word_by_word() {
        // Quadratic before the bound: 200,000 distinct words and pieces each.
        let huge: String = (0..200_000).map(|i| format!("w{i} | ")).collect();
        assert!(!reworded(&huge, std::slice::from_ref(&huge)));
        let title = [
            huge.clone(),
            "health and nutrition trends for 2026 - tastewise".to_string(),
        ];
        assert!(reworded(
            "top 10 health and nutrition trends to watch",
            &title
        ));
    }

    #[test]
    fn a_reworded_headline_is_the_title() {
        let others = |v: &[&str]| v.iter().map(|s| s.to_lowercase()).collect::<Vec<_>>();
        let title = others(&["Health And Nutrition Trends For 2026 - Tastewise"]);
        assert!(reworded(
            "top 10 health and nutrition trends to watch",
            &title
        ));
        // A logo, a site's name, a section heading.
        assert!(!reworded("the blog", &title));
        let site = others(&["Budget Traveler's Guide To Insurance - Budget Travel With Gabby"]);
        assert!(!reworded("budget travel with gabby", &site));
        assert!(!reworded(
            "georgia institute of technology",
            &others(&["The Agency | ML at Georgia Tech"])
        ));
        // A kicker before the title, other quotes: the title's own source.
        let news = others(&["Drusen fordern Teilhabe statt Schutzgarantien - News - SRF"]);
        assert!(!reworded(
            "minderheit in syrien - drusen fordern teilhabe statt schutzgarantien",
            &news
        ));
        let quotes = others(&["A young lawyer's journey from adversity"]);
        assert!(!reworded(
            "a young lawyer’s journey from adversity",
            &quotes
        ));
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
