//! Reading annotated corpora: the WCXB layout (gold main text per page) and
//! the trafilatura-eval manifest (must-appear / must-not-appear snippets).
//! Used by `train` and `eval`; the extraction path never touches it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{CorpusError, Error, Result};

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
    /// The corpus the page comes from (its folder's name).
    pub corpus: String,
    /// The page's language as the corpus gives it (`_source.language_detected`
    /// of a ground-truth file), for reports per language.
    pub language: Option<String>,
    /// Partial labels instead of gold text (a snippet corpus): blocks
    /// holding a `with` snippet are content, blocks holding a `without`
    /// snippet chrome, the others unknown. `gold` is then empty and the page
    /// is scored by its snippets, not by word F1.
    pub snippets: Option<Snippets>,
    /// Per-block labels saved by `dechrome annotate`
    /// (`_internal.block_labels`: one label per block, in page order).
    /// Training uses them instead of aligning `gold` when their count
    /// equals the page's block count under the current splitter.
    pub block_labels: Option<Vec<bool>>,
}

/// A page's must-appear and must-not-appear snippets.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snippets {
    /// Snippets that must appear in the extraction.
    pub with: Vec<String>,
    /// Snippets that must not appear.
    pub without: Vec<String>,
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
    /// The page's URL as the manifest gives it (may be empty).
    pub url: String,
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
            Err(CorpusError::UnknownLayout(dir.to_path_buf()).into())
        }
    }
}

#[derive(Deserialize)]
struct GroundTruthFile {
    url: Option<String>,
    ground_truth: GroundTruth,
    #[serde(rename = "_internal")]
    internal: Option<Internal>,
    #[serde(rename = "_source")]
    source: Option<SourceInfo>,
}

#[derive(Deserialize)]
struct SourceInfo {
    language_detected: Option<String>,
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
    /// 0/1 per block (`dechrome annotate`); anything else in the list makes
    /// the page fall back to aligning its gold text.
    block_labels: Option<Vec<serde_json::Value>>,
}

/// Per-block labels from `_internal.block_labels`: `None` unless every
/// entry is 0, 1, `false` or `true`.
fn block_labels(raw: &[serde_json::Value]) -> Option<Vec<bool>> {
    raw.iter()
        .map(|v| match v {
            serde_json::Value::Bool(b) => Some(*b),
            serde_json::Value::Number(n) => match n.as_u64() {
                Some(0) => Some(false),
                Some(1) => Some(true),
                _ => None,
            },
            _ => None,
        })
        .collect()
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

/// The registrable domain (eTLD+1, e.g. `bbc.co.uk` for
/// `news.bbc.co.uk`) of a page's URL, or `None`. Cross-validation groups
/// pages by it, so two hosts of one site never sit in different folds.
pub fn domain_of(url: &str) -> Option<String> {
    crate::text::url_host(url).map(|h| registrable_domain(&h))
}

/// The registrable domain of a host name (the host itself when the public
/// suffix list does not know its suffix, or for IP addresses).
pub fn registrable_domain(host: &str) -> String {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    match psl::domain(host.as_bytes()) {
        Some(d) if d.suffix().is_known() => String::from_utf8_lossy(d.as_bytes()).into_owned(),
        _ => host,
    }
}

/// The language group a report puts a language code in: `en`, `de`, `cjk`
/// (Chinese, Japanese, Korean), `non-latin` (other scripts without Latin
/// letters: Arabic, Hebrew, Cyrillic, Greek, Indic, Thai) or `other-latin`.
pub fn language_group(code: &str) -> &'static str {
    let base = code.split(['-', '_']).next().unwrap_or(code);
    match base {
        "en" => "en",
        "de" => "de",
        "zh" | "ja" | "ko" => "cjk",
        "ar" | "fa" | "ur" | "he" | "ru" | "uk" | "bg" | "sr" | "mk" | "el" | "hi" | "bn"
        | "mr" | "ne" | "ta" | "te" | "th" | "ka" | "hy" | "am" => "non-latin",
        _ => "other-latin",
    }
}

/// The name a corpus folder goes by in reports and `--weight` (its last
/// path component).
pub fn corpus_name(dir: &Path) -> String {
    dir.canonicalize()
        .ok()
        .as_deref()
        .unwrap_or(dir)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| dir.display().to_string())
}

/// Reads a training corpus in either layout: a WCXB folder (gold text), or
/// a snippet manifest, whose pages carry partial labels
/// ([`AnnotatedPage::snippets`]). Every page's domain is its registrable
/// domain, whatever the corpus, so folds group sites across corpora.
pub fn read_training_corpus(dir: &Path) -> Result<Vec<AnnotatedPage>> {
    match Corpus::open(dir)? {
        Corpus::Wcxb(pages) => Ok(pages),
        Corpus::Snippets(pages) => {
            let corpus = corpus_name(dir);
            Ok(pages
                .into_iter()
                .map(|p| AnnotatedPage {
                    domain: snippet_page_domain(&p.url)
                        .unwrap_or_else(|| format!("unknown-{corpus}-{}", p.id)),
                    id: p.id,
                    html_path: p.html_path,
                    gold: String::new(),
                    page_type: "unknown".into(),
                    url: p.url,
                    gold_meta: GoldMetadata::default(),
                    corpus: corpus.clone(),
                    language: None,
                    snippets: Some(Snippets {
                        with: p.with,
                        without: p.without,
                    }),
                    block_labels: None,
                })
                .collect())
        }
    }
}

/// The domain of a snippet page: from its URL, or from names like
/// `hard::example.com-slug.html` that some manifests give instead.
fn snippet_page_domain(url: &str) -> Option<String> {
    if let Some(d) = domain_of(url.trim_start_matches('x')) {
        return Some(d);
    }
    let name = url.split("::").nth(1)?;
    let name = name.strip_suffix(".html").unwrap_or(name);
    let host = name.split(['-', '_', '/']).next()?;
    // `site.com.2023.01.16.slug`: the host ends before the first label
    // that is a number.
    let labels: Vec<&str> = host
        .split('.')
        .take_while(|l| !l.is_empty() && !l.bytes().all(|b| b.is_ascii_digit()))
        .collect();
    (labels.len() >= 2).then(|| registrable_domain(&labels.join(".")))
}

/// Reads a WCXB-layout folder: `ground-truth/ID.json`, `html/ID.html.gz`
/// (or `ID.html`), optional `metadata.json`. Pages are sorted by id.
pub fn read_wcxb(dir: &Path) -> Result<Vec<AnnotatedPage>> {
    let meta: HashMap<String, MetaFile> = match std::fs::read(dir.join("metadata.json")) {
        Ok(bytes) => {
            serde_json::from_slice::<Metadata>(&bytes)
                .map_err(|e| CorpusError::Malformed {
                    path: dir.join("metadata.json"),
                    reason: e.to_string(),
                })?
                .files
        }
        Err(_) => HashMap::new(),
    };
    let corpus = corpus_name(dir);
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
        let gt: GroundTruthFile =
            serde_json::from_slice(&bytes).map_err(|e| CorpusError::Malformed {
                path: f.clone(),
                reason: e.to_string(),
            })?;
        let html_path = ["html.gz", "html"]
            .iter()
            .map(|ext| dir.join("html").join(format!("{id}.{ext}")))
            .find(|p| p.is_file())
            .ok_or_else(|| CorpusError::MissingPage {
                id: id.clone(),
                gold: f.clone(),
            })?;
        let m = meta.get(&id);
        let url = gt.url.unwrap_or_default();
        let domain = m
            .and_then(|m| m.domain.as_deref())
            .and_then(|d| {
                crate::text::url_host(&format!("http://{d}/")).map(|h| registrable_domain(&h))
            })
            .or_else(|| domain_of(&url))
            .unwrap_or_else(|| format!("unknown-{corpus}-{id}"));
        let labels = gt
            .internal
            .as_ref()
            .and_then(|i| i.block_labels.as_deref())
            .and_then(block_labels);
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
            corpus: corpus.clone(),
            language: gt.source.and_then(|s| s.language_detected),
            snippets: None,
            block_labels: labels,
        });
    }
    if pages.is_empty() {
        return Err(CorpusError::NoGroundTruth(gt_dir).into());
    }
    Ok(pages)
}

#[derive(Deserialize)]
struct ManifestLine {
    id: Option<String>,
    #[serde(default)]
    url: String,
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
            let m: ManifestLine = serde_json::from_str(l).map_err(|e| CorpusError::Malformed {
                path: PathBuf::from(format!("{}:{}", path.display(), i + 1)),
                reason: e.to_string(),
            })?;
            Ok(SnippetPage {
                id: m.id.unwrap_or_else(|| m.file.clone()),
                html_path: dir.join(&m.file),
                url: m.url,
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
        assert_eq!(
            domain_of("https://news.bbc.co.uk/x").as_deref(),
            Some("bbc.co.uk")
        );
        assert_eq!(
            domain_of("https://blog.example.com/a").as_deref(),
            Some("example.com")
        );
        assert_eq!(domain_of("http://10.0.0.1/a").as_deref(), Some("10.0.0.1"));
    }

    #[test]
    fn block_labels_are_zeros_and_ones_or_nothing() {
        use serde_json::json;
        assert_eq!(
            block_labels(&[json!(0), json!(1), json!(true), json!(false)]),
            Some(vec![false, true, true, false])
        );
        for bad in [json!(2), json!(-1), json!(0.5), json!("1"), json!(null)] {
            assert_eq!(block_labels(&[json!(1), bad]), None);
        }
    }

    #[test]
    fn snippet_page_domains() {
        let d = |u: &str| snippet_page_domain(u);
        assert_eq!(d("https://www.zeit.de/2019/x").as_deref(), Some("zeit.de"));
        assert_eq!(
            d("xhttps://www.zoo-berlin.de/a").as_deref(),
            Some("zoo-berlin.de")
        );
        assert_eq!(
            d("hard::100noticias.com-millones.html").as_deref(),
            Some("100noticias.com")
        );
        assert_eq!(
            d("hard::blog.python.org.html").as_deref(),
            Some("python.org")
        );
        assert_eq!(
            d("hard::mercurynews.com.2023.01.16.letters-1119.html").as_deref(),
            Some("mercurynews.com")
        );
        assert_eq!(
            d("hard::panamaamerica.com.pa-apropiarse.html").as_deref(),
            Some("panamaamerica.com.pa")
        );
        assert_eq!(d("recall"), None);
    }
}
