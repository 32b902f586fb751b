//! Reading annotated corpora: the WCXB layout (gold main text per page) and
//! the trafilatura-eval manifest (must-appear / must-not-appear snippets).
//! Used by `train` and `eval`; the extraction path never touches it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{Error, Result};

/// A page with gold main text (WCXB layout).
#[derive(Debug, Clone)]
pub struct AnnotatedPage {
    /// File id (`0001`).
    pub id: String,
    /// Path of the page's HTML (usually gzipped).
    pub html_path: PathBuf,
    /// Gold main text.
    pub gold: String,
    /// Page type (article, forum, product, collection, listing, documentation, service).
    pub page_type: String,
    /// The site, used to group cross-validation folds.
    pub domain: String,
    /// The page's URL.
    pub url: String,
    /// Gold title, author and publish date (`None` where the gold is null
    /// or empty).
    pub gold_meta: GoldMetadata,
}

/// The gold metadata fields of a WCXB page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct GoldMetadata {
    /// `ground_truth.title`.
    pub title: Option<String>,
    /// `ground_truth.author`.
    pub author: Option<String>,
    /// `ground_truth.publish_date` (ISO `YYYY-MM-DD`, a few `YYYY-MM`).
    #[serde(rename = "publish_date")]
    pub date: Option<String>,
}

/// A page with snippets (trafilatura-eval layout).
#[derive(Debug, Clone)]
pub struct SnippetPage {
    /// Page id.
    pub id: String,
    /// Path of the page's HTML.
    pub html_path: PathBuf,
    /// Snippets that must appear in the extraction.
    pub with: Vec<String>,
    /// Snippets that must not appear.
    pub without: Vec<String>,
}

/// The two layouts `eval` understands.
#[derive(Debug, Clone)]
pub enum Corpus {
    /// Gold main text per page.
    Wcxb(Vec<AnnotatedPage>),
    /// Snippets per page.
    Snippets(Vec<SnippetPage>),
}

impl Corpus {
    /// Reads a corpus folder, recognising its layout: `ground-truth/` for
    /// WCXB, `manifest.jsonl` for snippets.
    pub fn open(dir: &Path) -> Result<Corpus> {
        if dir.join("ground-truth").is_dir() {
            Ok(Corpus::Wcxb(read_wcxb(dir)?))
        } else if dir.join("manifest.jsonl").is_file() {
            Ok(Corpus::Snippets(read_snippets(dir)?))
        } else {
            Err(Error::Corpus(format!(
                "{}: neither a WCXB folder (ground-truth/) nor a snippet manifest (manifest.jsonl)",
                dir.display()
            )))
        }
    }
}

#[derive(Deserialize)]
struct GroundTruthFile {
    url: Option<String>,
    ground_truth: GroundTruth,
    #[serde(rename = "_internal")]
    internal: Option<Internal>,
}

#[derive(Deserialize)]
struct GroundTruth {
    main_content: Option<String>,
    #[serde(flatten)]
    meta: GoldMetadata,
}

#[derive(Deserialize)]
struct Internal {
    page_type: Option<PageType>,
}

#[derive(Deserialize)]
struct PageType {
    primary: Option<String>,
}

#[derive(Deserialize)]
struct Metadata {
    files: HashMap<String, MetaFile>,
}

#[derive(Deserialize)]
struct MetaFile {
    page_type: Option<String>,
    domain: Option<String>,
}

/// The host of a page's URL without `www.`, or `None`.
pub fn domain_of(url: &str) -> Option<String> {
    crate::blocks::url_host(url)
}

/// Reads a WCXB-layout folder: `ground-truth/ID.json`, `html/ID.html.gz`
/// (or `ID.html`), optional `metadata.json`. Pages are sorted by id.
pub fn read_wcxb(dir: &Path) -> Result<Vec<AnnotatedPage>> {
    let meta: HashMap<String, MetaFile> = match std::fs::read(dir.join("metadata.json")) {
        Ok(bytes) => {
            serde_json::from_slice::<Metadata>(&bytes)
                .map_err(|e| Error::Corpus(format!("metadata.json: {e}")))?
                .files
        }
        Err(_) => HashMap::new(),
    };
    let gt_dir = dir.join("ground-truth");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&gt_dir)
        .map_err(|e| Error::io(&gt_dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    let mut pages = Vec::with_capacity(files.len());
    for f in files {
        let id = f
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let bytes = std::fs::read(&f).map_err(|e| Error::io(&f, e))?;
        let gt: GroundTruthFile = serde_json::from_slice(&bytes)
            .map_err(|e| Error::Corpus(format!("{}: {e}", f.display())))?;
        let html_path = ["html.gz", "html"]
            .iter()
            .map(|ext| dir.join("html").join(format!("{id}.{ext}")))
            .find(|p| p.is_file())
            .ok_or_else(|| Error::Corpus(format!("no html/{id}.html.gz for {}", f.display())))?;
        let m = meta.get(&id);
        let url = gt.url.unwrap_or_default();
        let domain = m
            .and_then(|m| m.domain.clone())
            .or_else(|| domain_of(&url))
            .unwrap_or_else(|| format!("unknown-{id}"));
        let page_type = gt
            .internal
            .and_then(|i| i.page_type)
            .and_then(|p| p.primary)
            .or_else(|| m.and_then(|m| m.page_type.clone()))
            .unwrap_or_else(|| "unknown".into());
        pages.push(AnnotatedPage {
            id,
            html_path,
            gold: gt.ground_truth.main_content.unwrap_or_default(),
            gold_meta: gt.ground_truth.meta,
            page_type,
            domain,
            url,
        });
    }
    if pages.is_empty() {
        return Err(Error::Corpus(format!(
            "{}: no ground-truth files",
            gt_dir.display()
        )));
    }
    Ok(pages)
}

#[derive(Deserialize)]
struct ManifestLine {
    id: Option<String>,
    file: String,
    #[serde(default)]
    with: Vec<String>,
    #[serde(default)]
    without: Vec<String>,
}

/// Reads a snippet manifest (`manifest.jsonl`, one page per line).
pub fn read_snippets(dir: &Path) -> Result<Vec<SnippetPage>> {
    let path = dir.join("manifest.jsonl");
    let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            let m: ManifestLine = serde_json::from_str(l)
                .map_err(|e| Error::Corpus(format!("{}:{}: {e}", path.display(), i + 1)))?;
            Ok(SnippetPage {
                id: m.id.unwrap_or_else(|| m.file.clone()),
                html_path: dir.join(&m.file),
                with: m.with,
                without: m.without,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains() {
        assert_eq!(
            domain_of("https://www.Example.com:8080/a?b").as_deref(),
            Some("example.com")
        );
        assert_eq!(
            domain_of("http://user@docs.rs/x").as_deref(),
            Some("docs.rs")
        );
        assert_eq!(domain_of(""), None);
    }
}
