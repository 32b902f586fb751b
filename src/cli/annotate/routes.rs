//! What the annotate server answers: the page, the page list, a page's
//! blocks, and saving a page's labels. Pages are addressed by their index
//! in the input list, never by a path taken from a request.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use dechrome::Extractor;

use super::corpus::{Corpus, Entry};
use super::guard::Access;
use super::http::{Method, Reply, Request};

/// The page's HTML; `{{STYLE}}` and `{{SCRIPT}}` are replaced by the two
/// assets below, so one request serves everything.
const INDEX_HTML: &str = include_str!("index.html");
const STYLE: &str = include_str!("style.css");
const SCRIPT: &str = include_str!("app.js");

/// WCXB's seven page types, in the order the selector lists them.
pub const PAGE_TYPES: [&str; 7] = [
    "article",
    "forum",
    "product",
    "collection",
    "listing",
    "documentation",
    "service",
];

/// One input page as read.
pub struct InputPage {
    /// The name shown (file name, or WARC record).
    pub name: String,
    /// The page's URL when the input tells it (WARC).
    pub url: Option<String>,
    /// The original bytes.
    pub bytes: Vec<u8>,
    /// The charset the input declares, if any.
    pub charset: Option<String>,
    /// SHA-256 of `bytes`, hex.
    pub sha256: String,
}

/// One block as the page shows it.
#[derive(Serialize)]
struct BlockView {
    text: String,
    tags: String,
    id_class: String,
    probability: f32,
    model: bool,
}

/// A page as extracted once for labelling.
struct PageView {
    blocks: Vec<BlockView>,
    /// The page's canonical URL, saved when the input gives no URL.
    canonical_url: Option<String>,
}

/// What the server shares between its workers.
pub struct State {
    access: Access,
    pages: Vec<InputPage>,
    extractor: Extractor,
    threshold: f32,
    /// Blocks of each page, computed on first view.
    views: Mutex<HashMap<usize, Arc<PageView>>>,
    /// The corpus writer: every read-modify-write of the corpus holds it.
    corpus: Mutex<Corpus>,
    /// Extractions running now, at most `max_extracting`, so that slow
    /// pages always leave workers for other requests.
    extracting: AtomicUsize,
    max_extracting: usize,
}

/// Why a page's blocks are not available.
enum ViewError {
    /// Every extraction slot is taken: try again.
    Busy,
    /// The page cannot be extracted (or ran over its time budget).
    Page(String),
}

impl ViewError {
    fn reply(self) -> Reply {
        match self {
            ViewError::Busy => Reply::error(503, "other pages are being opened; try again"),
            ViewError::Page(e) => Reply::error(422, &e),
        }
    }
}

/// Gives an extraction slot back when dropped (also when the extraction
/// panics).
struct Slot<'a>(&'a AtomicUsize);

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl State {
    /// The shared state of a server; `max_extracting` pages are extracted
    /// at once at most.
    pub fn new(
        access: Access,
        pages: Vec<InputPage>,
        extractor: Extractor,
        corpus: Corpus,
        max_extracting: usize,
    ) -> State {
        State {
            access,
            threshold: extractor.threshold(),
            extractor,
            pages,
            views: Mutex::new(HashMap::new()),
            corpus: Mutex::new(corpus),
            extracting: AtomicUsize::new(0),
            max_extracting: max_extracting.max(1),
        }
    }

    /// How many input pages there are.
    pub fn total(&self) -> usize {
        self.pages.len()
    }

    /// Input pages with saved labels.
    pub fn labelled(&self) -> usize {
        let corpus = lock(&self.corpus);
        self.count_labelled(&corpus)
    }

    fn count_labelled(&self, corpus: &Corpus) -> usize {
        self.pages
            .iter()
            .filter(|p| corpus.saved(&p.sha256).is_some())
            .count()
    }

    /// The blocks of page `index`, extracted on first use (within the
    /// extractor's page time budget, in one of the extraction slots).
    fn view(&self, index: usize) -> Result<Arc<PageView>, ViewError> {
        if let Some(v) = lock(&self.views).get(&index) {
            return Ok(v.clone());
        }
        let page = self
            .pages
            .get(index)
            .ok_or_else(|| ViewError::Page("no such page".into()))?;
        if self.extracting.fetch_add(1, Ordering::SeqCst) >= self.max_extracting {
            self.extracting.fetch_sub(1, Ordering::SeqCst);
            return Err(ViewError::Busy);
        }
        let _slot = Slot(&self.extracting);
        let (extraction, places) = self
            .extractor
            .extract_with_places(&page.bytes, page.charset.as_deref())
            .map_err(|e| ViewError::Page(format!("{}: {e}", page.name)))?;
        let blocks = extraction
            .blocks
            .into_iter()
            .zip(places)
            .map(|(b, p)| BlockView {
                text: b.text,
                tags: p.tags,
                id_class: p.id_class,
                probability: b.probability,
                model: b.content,
            })
            .collect();
        let v = Arc::new(PageView {
            blocks,
            canonical_url: extraction.metadata.canonical_url,
        });
        lock(&self.views).insert(index, v.clone());
        Ok(v)
    }
}

/// Locks `m`, going on with the data when another worker panicked.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Answers one complete request.
pub fn handle(state: &State, request: &Request) -> Reply {
    let head = &request.head;
    if let Err(refusal) = state.access.check(head) {
        return refusal;
    }
    let segments: Vec<&str> = head.path.trim_matches('/').split('/').collect();
    match (head.method, segments.as_slice()) {
        (Method::Get, [""]) => {
            let page = INDEX_HTML
                .replace("{{STYLE}}", STYLE)
                .replace("{{SCRIPT}}", SCRIPT);
            Reply {
                status: 200,
                content_type: "text/html; charset=utf-8",
                body: page.into_bytes(),
            }
        }
        (Method::Get, ["api", "pages"]) => Reply::json(200, &pages_json(state)),
        (Method::Get, ["api", "page", n]) => match page_index(state, n) {
            Some(i) => page_json(state, i).unwrap_or_else(ViewError::reply),
            None => Reply::error(404, "no such page"),
        },
        (Method::Get, ["api", "page", n, "html"]) => match page_index(state, n) {
            Some(i) => page_html(&state.pages[i]),
            None => Reply::error(404, "no such page"),
        },
        (Method::Post, ["api", "page", n]) => {
            let Some(i) = page_index(state, n) else {
                return Reply::error(404, "no such page");
            };
            let Ok(save) = serde_json::from_slice::<SaveRequest>(&request.body) else {
                return Reply::error(
                    400,
                    "expected {\"labels\": [bool...], \"page_type\": \"...\"}",
                );
            };
            save_page(state, i, save)
        }
        (Method::Get | Method::Post, _) => Reply::error(404, "not found"),
        (Method::Other, _) => Reply::error(405, "method not allowed"),
    }
}

fn page_index(state: &State, s: &str) -> Option<usize> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse::<usize>().ok().filter(|&i| i < state.pages.len())
}

fn pages_json(state: &State) -> Value {
    let corpus = lock(&state.corpus);
    let pages: Vec<Value> = state
        .pages
        .iter()
        .map(|p| {
            let saved = corpus.saved(&p.sha256);
            json!({
                "name": p.name,
                "labelled": saved.is_some(),
                "id": saved.map(|s| s.id.clone()),
            })
        })
        .collect();
    json!({
        "pages": pages,
        "labelled": state.count_labelled(&corpus),
        "total": state.pages.len(),
        "page_types": PAGE_TYPES,
    })
}

fn page_json(state: &State, index: usize) -> Result<Reply, ViewError> {
    let view = state.view(index)?;
    let page = &state.pages[index];
    let saved = lock(&state.corpus).saved(&page.sha256).cloned();
    // Saved labels apply only when the page still splits into as many blocks.
    let labels: Vec<bool> = match &saved {
        Some(s) if s.labels.len() == view.blocks.len() => s.labels.clone(),
        _ => view.blocks.iter().map(|b| b.model).collect(),
    };
    Ok(Reply::json(
        200,
        &json!({
            "index": index,
            "total": state.pages.len(),
            "name": page.name,
            "url": page.url,
            "threshold": state.threshold,
            "labelled": saved.is_some(),
            "id": saved.as_ref().map(|s| s.id.clone()),
            "page_type": saved.map(|s| s.page_type).unwrap_or_else(|| "article".into()),
            "labels": labels,
            // Where the page opens: the model's first content block.
            "first_content": view.blocks.iter().position(|b| b.model),
            "blocks": &view.blocks,
        }),
    ))
}

/// Most bytes of a page's HTML the preview shows (beyond it the preview is
/// cut: the block list still holds the whole page).
const PREVIEW_MAX_BYTES: usize = 8 << 20;

/// The page's HTML, decoded as extraction decodes it, as a JSON string
/// (`{"html": ...}`) for the preview's sandboxed frame: never served as a
/// document of this origin, where its scripts would run beside the token.
fn page_html(page: &InputPage) -> Reply {
    use dechrome::parse::charset;
    let raw = if charset::is_gzip(&page.bytes) {
        charset::gunzip_bounded(&page.bytes, PREVIEW_MAX_BYTES).0
    } else {
        page.bytes[..page.bytes.len().min(PREVIEW_MAX_BYTES)].to_vec()
    };
    let (html, _, _) = charset::decode(raw, page.charset.as_deref());
    Reply::json(200, &json!({ "html": html }))
}

/// The body of a save request.
#[derive(Deserialize)]
struct SaveRequest {
    labels: Vec<bool>,
    page_type: String,
}

/// Writes page `index` with `save`'s labels into the corpus.
fn save_page(state: &State, index: usize, save: SaveRequest) -> Reply {
    if !PAGE_TYPES.contains(&save.page_type.as_str()) {
        return Reply::error(400, &format!("unknown page type {:?}", save.page_type));
    }
    let view = match state.view(index) {
        Ok(v) => v,
        Err(e) => return e.reply(),
    };
    if save.labels.len() != view.blocks.len() {
        let why = format!(
            "{} labels for a page of {} blocks",
            save.labels.len(),
            view.blocks.len()
        );
        return Reply::error(400, &why);
    }
    let page = &state.pages[index];
    let main_content: Vec<&str> = view
        .blocks
        .iter()
        .zip(&save.labels)
        .filter(|(b, &l)| l && !b.text.trim().is_empty())
        .map(|(b, _)| b.text.as_str())
        .collect();
    let ground_truth = json!({
        "url": page.url.clone().or_else(|| view.canonical_url.clone()),
        "ground_truth": { "main_content": main_content.join("\n\n") },
        "_internal": {
            "page_type": { "primary": save.page_type },
            "block_labels": save.labels.iter().map(|&l| u8::from(l)).collect::<Vec<_>>(),
            "annotate": {
                "sha256": page.sha256,
                "source": page.name,
                "blocks": view.blocks.len(),
            },
        },
    });
    let entry = Entry {
        sha256: &page.sha256,
        bytes: &page.bytes,
        ground_truth,
        labels: save.labels,
        page_type: save.page_type,
    };
    let mut corpus = lock(&state.corpus);
    match corpus.save(entry) {
        Ok(id) => Reply::json(
            200,
            &json!({
                "id": id,
                "labelled": state.count_labelled(&corpus),
                "total": state.pages.len(),
            }),
        ),
        Err(e) => Reply::error(500, &format!("cannot save: {e}")),
    }
}
