//! Exact-match rate of every metadata source against WCXB's gold title,
//! author and date: the measurement behind the order of sources in
//! `src/metadata/`.
//!
//! ```sh
//! cargo run --release --example metadata_sources -- ../shared/corpora/wcxb-dev \
//!     [models/dechrome-v1.metrics.json]
//! ```
//!
//! `NO_SCRIPTS=1` drops every `<script>` element before parsing (no
//! JSON-LD): the shape of pages saved without their scripts.
//!
//! With a training metrics file, the row "chosen, OOF page type" applies
//! each page's out-of-fold predicted type ([`Metadata::settle_date_for`]),
//! as `extract` does with a model that did not see the page.
//!
//! [`Metadata::settle_date_for`]: dechrome::metadata::Metadata::settle_date_for

use dechrome::corpus::read_wcxb;
use dechrome::eval::FieldScore;
use dechrome::metadata::{normalize_date, Candidates, PageHints};
use dechrome::model::page_type::PageType;
use dechrome::parse::{parse, ParseLimits};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args()
        .nth(1)
        .ok_or("usage: metadata_sources WCXB_DIR")?;
    let pages = read_wcxb(std::path::Path::new(&dir))?;
    // The corpus's name in the metrics file is its folder's name.
    let corpus = std::path::Path::new(&dir)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_string();
    let oof_types = match std::env::args().nth(2) {
        Some(metrics) => out_of_fold_types(&metrics, &corpus)?,
        None => Default::default(),
    };
    let mut rows: Vec<(&str, &str, FieldScore)> = Vec::new();
    let mut score =
        |field: &'static str, source: &'static str, p: Option<String>, g: Option<&str>| {
            let i = match rows.iter().position(|r| r.0 == field && r.1 == source) {
                Some(i) => i,
                None => {
                    rows.push((field, source, FieldScore::default()));
                    rows.len() - 1
                }
            };
            rows[i].2.add(p.as_deref(), g);
        };
    for page in &pages {
        let mut bytes = std::fs::read(&page.html_path)?;
        if std::env::var_os("NO_SCRIPTS").is_some() {
            // The corpus's pages are gzip files: cut the decoded HTML.
            if dechrome::parse::charset::is_gzip(&bytes) {
                bytes = dechrome::parse::charset::gunzip_bounded(&bytes, usize::MAX).0;
            }
            bytes = without_scripts(&bytes);
        }
        let doc = parse(&bytes, None, ParseLimits::default())?;
        let hints = PageHints {
            url: Some(&page.url),
            reference_date: None,
        };
        let c = Candidates::collect_with(&doc.dom, &hints);
        let (t, a, d) = (
            page.gold_meta.title.as_deref(),
            page.gold_meta.author.as_deref(),
            page.gold_meta.date.as_deref(),
        );
        score("title", "chosen", c.title(), t);
        if std::env::var_os("DATE_DIAG").is_some() {
            let chosen = c.dates().published;
            let seen = chosen
                .as_ref()
                .is_some_and(|(d, _)| c.visible.iter().any(|v| v.iso == *d));
            let ok = match (&chosen, d) {
                (None, None) => "abstain-ok",
                (Some(_), None) => "false-date",
                (None, Some(_)) => "missed",
                (Some((p, _)), Some(g)) if p == g => "right",
                _ => "wrong",
            };
            // DATE_CANDS=all lists every page's candidates, else the misses'.
            let all = std::env::var("DATE_CANDS").is_ok_and(|v| v == "all");
            if std::env::var_os("DATE_CANDS").is_some()
                && (all || (ok != "right" && ok != "abstain-ok"))
            {
                for (v, score) in c.visible.iter().zip(c.visible_scores()).take(20) {
                    println!("   CAND {} gold={:?} score={score} {v:?}", page.id, d);
                }
            }
            println!(
                "DIAG {} {} {ok} {:?} seen={seen} nvis={} decl={:?} mod={:?} gold={:?}",
                page.id,
                page.page_type,
                chosen.map(|(_, k)| k.name()),
                c.visible.len(),
                c.declared_published()
                    .iter()
                    .map(|d| d.iso.clone())
                    .collect::<Vec<_>>(),
                c.declared_modified()
                    .iter()
                    .map(|d| d.iso.clone())
                    .collect::<Vec<_>>(),
                d
            );
        }
        if std::env::var_os("SHOW_MISSES").is_some() {
            for (field, p, g) in [
                ("title", c.title(), t),
                ("author", c.author(), a),
                ("date", c.date(), d),
            ] {
                if p.as_deref() != g {
                    let kind = c.dates().published.map(|(_, k)| k.name());
                    println!("{} {field}: {p:?} / gold {g:?} {kind:?}", page.id);
                }
            }
        }
        score("title", "og:title", c.meta_value(&["og:title"]), t);
        score(
            "title",
            "twitter:title",
            c.meta_value(&["twitter:title"]),
            t,
        );
        score("title", "json-ld headline", c.jsonld.headline.clone(), t);
        score("title", "<title>", c.title_tag.clone(), t);
        let trimmed = c.title_tag.as_deref().and_then(|x| c.trimmed_title(x));
        score("title", "<title> trimmed", trimmed, t);
        score("title", "h1", c.h1.clone(), t);
        let og_trimmed = c
            .meta_value(&["og:title"])
            .and_then(|x| c.trimmed_title(&x));
        score("title", "og:title trimmed", og_trimmed.clone(), t);
        let title_tag_trimmed = c.title_tag.as_deref().and_then(|x| c.trimmed_title(x));
        score(
            "title",
            "h1>title-trim>og",
            c.h1.clone()
                .or(title_tag_trimmed.clone())
                .or(og_trimmed.clone()),
            t,
        );
        score(
            "title",
            "title-trim>og-trim>h1",
            title_tag_trimmed
                .clone()
                .or(og_trimmed.clone())
                .or(c.h1.clone()),
            t,
        );
        // h1 when another source agrees with it, else the trimmed titles.
        let agrees = |h: &str| {
            let h = h.to_lowercase();
            [
                c.title_tag.clone(),
                c.meta_value(&["og:title"]),
                c.jsonld.headline.clone(),
            ]
            .into_iter()
            .flatten()
            .any(|x| x.to_lowercase().contains(&h))
        };
        let h1_agreed = c.h1.clone().filter(|h| agrees(h));
        score(
            "title",
            "h1-agreed>title-trim>og",
            h1_agreed
                .clone()
                .or(title_tag_trimmed.clone())
                .or(og_trimmed.clone())
                .or(c.h1.clone()),
            t,
        );
        score(
            "title",
            "h1-agreed>og-trim>title",
            h1_agreed
                .or(og_trimmed)
                .or(title_tag_trimmed)
                .or(c.h1.clone()),
            t,
        );
        score("author", "chosen", c.author(), a);
        score(
            "author",
            "json-ld",
            (!c.jsonld.authors.is_empty()).then(|| c.jsonld.authors.join(", ")),
            a,
        );
        score("author", "meta author", c.meta_value(&["author"]), a);
        score(
            "author",
            "article:author",
            c.meta_value(&["article:author"]),
            a,
        );
        score("author", "itemprop", c.itemprop_author.clone(), a);
        score("author", "rel=author", c.rel_author.clone(), a);
        score("author", "byline class", c.byline.clone(), a);
        let date = |v: Option<&String>| v.and_then(|x| normalize_date(x));
        score("date", "chosen", c.date(), d);
        if !oof_types.is_empty() {
            let mut resolved = c.resolve();
            if let Some(&kind) = oof_types.get(&page.id) {
                resolved.settle_date_for(kind);
            }
            score("date", "chosen, OOF page type", resolved.date, d);
        }
        score(
            "date",
            "article:published_time",
            date(c.meta.get("article:published_time")),
            d,
        );
        score("date", "json-ld", date(c.jsonld.date.as_ref()), d);
        score("date", "itemprop", date(c.itemprop_date.as_ref()), d);
        score("date", "time published", date(c.time_published.as_ref()), d);
        score("date", "time first", date(c.time_first.as_ref()), d);
        score("date", "modified", c.modified(), d);
        score("date", "modified>published", c.modified().or(c.date()), d);
    }
    println!(
        "{:<7} {:<24} {:>6} {:>7} {:>8} {:>10}",
        "field", "source", "gold", "exact", "exact-ci", "null-agree"
    );
    for (field, source, f) in rows {
        println!(
            "{:<7} {:<24} {:>6} {:>7.4} {:>8.4} {:>10.4}",
            field,
            source,
            f.gold_pages,
            f.exact_rate(),
            f.exact_ci_rate(),
            f.null_agree_rate()
        );
    }
    Ok(())
}

/// Each page's out-of-fold predicted type from a training metrics file
/// (`pages_out_of_fold`), by page id, for the corpus named `corpus` (the
/// corpora's page ids overlap: `0001` is in each).
fn out_of_fold_types(
    metrics: &str,
    corpus: &str,
) -> Result<std::collections::HashMap<String, PageType>, Box<dyn std::error::Error>> {
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(metrics)?)?;
    let pages = json["pages_out_of_fold"]
        .as_array()
        .ok_or("the metrics file has no pages_out_of_fold")?;
    Ok(pages
        .iter()
        .filter(|p| p["corpus"] == corpus)
        .filter_map(|p| {
            let kind = PageType::from_name(p["predicted_type"].as_str()?)?;
            Some((p["id"].as_str()?.to_string(), kind))
        })
        .collect())
}

/// `html` without its `<script>…</script>` elements (the tags found by a
/// case-blind byte search: enough for a measurement, not a parser).
fn without_scripts(html: &[u8]) -> Vec<u8> {
    let find = |hay: &[u8], from: usize, needle: &[u8]| {
        hay.get(from..)?
            .windows(needle.len())
            .position(|w| w.eq_ignore_ascii_case(needle))
            .map(|i| i + from)
    };
    let mut out = Vec::with_capacity(html.len());
    let mut at = 0;
    while let Some(start) = find(html, at, b"<script") {
        out.extend_from_slice(&html[at..start]);
        at = match find(html, start, b"</script>") {
            Some(end) => end + b"</script>".len(),
            None => html.len(),
        };
    }
    out.extend_from_slice(&html[at.min(html.len())..]);
    out
}
