//! `dechrome annotate`: a local web page for labelling pages block by block.
//!
//! The server listens on 127.0.0.1 only and answers only requests carrying
//! the random token printed in its URL. Pages are addressed by their index
//! in the input list, never by a path taken from a request. Saving writes
//! the WCXB layout that `dechrome train --corpus` reads:
//! `html/NNNN.html.gz`, `ground-truth/NNNN.json` and `metadata.json`, each
//! file written whole or not at all, all writes under one lock.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use rand::RngCore;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use dechrome::model::artifact::write_atomically;
use dechrome::Extractor;

use super::inputs;
use super::ModelArgs;

/// The page's HTML; `{{STYLE}}` and `{{SCRIPT}}` are replaced by the two
/// assets below, so one request serves everything.
const INDEX_HTML: &str = include_str!("annotate/index.html");
const STYLE: &str = include_str!("annotate/style.css");
const SCRIPT: &str = include_str!("annotate/app.js");

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

/// Largest request body accepted (a page's labels and its page type).
const MAX_BODY: usize = 1 << 20;

/// Arguments of `dechrome annotate`.
#[derive(clap::Args)]
pub struct AnnotateArgs {
    /// Pages to label: files or folders (walked for *.html, *.html.gz, WARC).
    #[arg(required = true)]
    inputs: Vec<String>,
    /// The corpus folder written (and resumed when it exists).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Port on 127.0.0.1 (default: any free port).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Worker threads answering requests.
    #[arg(long, default_value_t = 2, hide = true)]
    workers: usize,
    #[command(flatten)]
    model: ModelArgs,
}

/// One input page as read.
struct InputPage {
    name: String,
    url: Option<String>,
    bytes: Vec<u8>,
    charset: Option<String>,
    sha256: String,
}

/// A saved page's state, as read back from the corpus.
#[derive(Clone)]
struct Saved {
    id: String,
    labels: Vec<bool>,
    page_type: String,
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

/// What the server shares between its workers.
struct State {
    token: String,
    pages: Vec<InputPage>,
    extractor: Extractor,
    threshold: f32,
    /// Blocks of each page, computed on first view.
    views: Mutex<HashMap<usize, Arc<Vec<BlockView>>>>,
    /// The corpus writer: every read-modify-write of the corpus holds it.
    corpus: Mutex<Corpus>,
}

/// The corpus folder and what it holds for the input pages.
struct Corpus {
    dir: PathBuf,
    /// Saved state by the original bytes' SHA-256.
    saved: HashMap<String, Saved>,
}

/// The body of a save request.
#[derive(Deserialize)]
struct SaveRequest {
    labels: Vec<bool>,
    page_type: String,
}

/// Runs `dechrome annotate` until Ctrl-C.
pub fn run(args: AnnotateArgs) -> anyhow::Result<()> {
    let extractor = args.model.extractor()?;
    let pages = read_inputs(&args.inputs, args.model.max_bytes)?;
    anyhow::ensure!(!pages.is_empty(), "no pages to label");
    for sub in ["html", "ground-truth"] {
        std::fs::create_dir_all(args.out.join(sub))
            .with_context(|| format!("cannot create {}", args.out.join(sub).display()))?;
    }
    let corpus = Corpus {
        saved: read_saved(&args.out)?,
        dir: args.out.clone(),
    };
    let mut raw = [0u8; 16];
    rand::rngs::OsRng.fill_bytes(&mut raw);
    let token: String = raw.iter().map(|b| format!("{b:02x}")).collect();
    let state = Arc::new(State {
        token,
        threshold: extractor.threshold(),
        extractor,
        pages,
        views: Mutex::new(HashMap::new()),
        corpus: Mutex::new(corpus),
    });
    let server = tiny_http::Server::http(("127.0.0.1", args.port))
        .map_err(|e| anyhow::anyhow!("cannot listen on 127.0.0.1:{}: {e}", args.port))?;
    let port = server
        .server_addr()
        .to_ip()
        .map(|a| a.port())
        .context("the server has no IP address")?;
    let labelled = state.labelled();
    outln!("http://127.0.0.1:{port}/?token={}", state.token);
    eprintln!(
        "{} pages, {labelled} labelled; corpus {}; Ctrl-C stops",
        state.pages.len(),
        args.out.display()
    );
    std::io::stdout().flush()?;
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        ctrlc::set_handler(move || stop.store(true, Ordering::SeqCst))
            .context("cannot catch Ctrl-C")?;
    }
    let server = Arc::new(server);
    let workers: Vec<_> = (0..args.workers.max(1))
        .map(|_| {
            let (server, state, stop) = (server.clone(), state.clone(), stop.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    match server.recv_timeout(Duration::from_millis(200)) {
                        Ok(Some(request)) => handle(&state, request),
                        Ok(None) => {}
                        Err(e) => {
                            eprintln!("dechrome: annotate: {e}");
                            break;
                        }
                    }
                }
            })
        })
        .collect();
    for w in workers {
        let _ = w.join();
    }
    eprintln!("stopped");
    Ok(())
}

/// Reads every input page (files, folders, WARC records) into memory.
fn read_inputs(names: &[String], max_bytes: usize) -> anyhow::Result<Vec<InputPage>> {
    let names: Vec<_> = names
        .iter()
        .map(|a| Ok::<_, String>(std::ffi::OsString::from(a)))
        .collect();
    let items = inputs::Inputs::new(
        Box::new(names.into_iter()),
        inputs::NameFilter::default(),
        max_bytes,
    );
    let mut pages = Vec::new();
    for item in items {
        let (name, url) = (item.name, item.url);
        let (bytes, charset) = item
            .source
            .read()
            .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
        let sha256 = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        pages.push(InputPage {
            name,
            url,
            bytes,
            charset,
            sha256,
        });
    }
    Ok(pages)
}

/// The labels saved in `dir`, by the original page's SHA-256. Files this
/// command did not write (no `_internal.annotate`) are left out.
fn read_saved(dir: &Path) -> anyhow::Result<HashMap<String, Saved>> {
    let mut saved = HashMap::new();
    for (id, v) in ground_truths(dir)? {
        let a = &v["_internal"]["annotate"];
        let Some(sha) = a["sha256"].as_str() else {
            continue;
        };
        let labels = v["_internal"]["block_labels"]
            .as_array()
            .map(|l| l.iter().map(|x| x.as_u64() == Some(1)).collect())
            .unwrap_or_default();
        let page_type = v["_internal"]["page_type"]["primary"]
            .as_str()
            .unwrap_or("article")
            .to_string();
        saved.insert(
            sha.to_string(),
            Saved {
                id,
                labels,
                page_type,
            },
        );
    }
    Ok(saved)
}

/// Every `ground-truth/ID.json` of `dir` that parses, sorted by id.
fn ground_truths(dir: &Path) -> anyhow::Result<Vec<(String, Value)>> {
    let gt = dir.join("ground-truth");
    let mut out = Vec::new();
    let entries = match std::fs::read_dir(&gt) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", gt.display())),
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let Some(id) = path.file_stem().map(|s| s.to_string_lossy().into_owned()) else {
            continue;
        };
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        if let Ok(v) = serde_json::from_slice::<Value>(&bytes) {
            out.push((id, v));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

impl State {
    /// Input pages with saved labels.
    fn labelled(&self) -> usize {
        let corpus = lock(&self.corpus);
        self.pages
            .iter()
            .filter(|p| corpus.saved.contains_key(&p.sha256))
            .count()
    }

    /// The blocks of page `index`, extracted on first use.
    fn view(&self, index: usize) -> Result<Arc<Vec<BlockView>>, String> {
        if let Some(v) = lock(&self.views).get(&index) {
            return Ok(v.clone());
        }
        let page = &self.pages[index];
        let (extraction, places) = self
            .extractor
            .extract_with_places(&page.bytes, page.charset.as_deref())
            .map_err(|e| format!("{}: {e}", page.name))?;
        let blocks: Vec<BlockView> = extraction
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
        let v = Arc::new(blocks);
        lock(&self.views).insert(index, v.clone());
        Ok(v)
    }
}

/// Locks `m`, going on with the data when another worker panicked.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A reply: status, content type, body.
type Reply = (u16, &'static str, Vec<u8>);

fn json_reply(status: u16, v: &Value) -> Reply {
    (status, "application/json", v.to_string().into_bytes())
}

fn error(status: u16, message: &str) -> Reply {
    json_reply(status, &json!({ "error": message }))
}

/// Answers one request; never panics on what the request holds.
fn handle(state: &State, mut request: tiny_http::Request) {
    let reply = route(state, &mut request);
    let (status, kind, body) = reply;
    let mut response = tiny_http::Response::from_data(body).with_status_code(status);
    for (k, v) in [
        ("Content-Type", kind),
        ("Cache-Control", "no-store"),
        ("X-Content-Type-Options", "nosniff"),
        ("Referrer-Policy", "no-referrer"),
        (
            "Content-Security-Policy",
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:",
        ),
    ] {
        if let Ok(h) = tiny_http::Header::from_bytes(k.as_bytes(), v.as_bytes()) {
            response.add_header(h);
        }
    }
    let _ = request.respond(response);
}

fn route(state: &State, request: &mut tiny_http::Request) -> Reply {
    let url = request.url().to_string();
    let (path, query) = url.split_once('?').unwrap_or((&url, ""));
    let header_token = request
        .headers()
        .iter()
        .find(|h| h.field.equiv("X-Token"))
        .map(|h| h.value.as_str().to_string());
    let query_token = query
        .split('&')
        .find_map(|kv| kv.strip_prefix("token="))
        .map(str::to_string);
    let given = header_token.or(query_token).unwrap_or_default();
    if !same_token(&given, &state.token) {
        return error(403, "missing or wrong token");
    }
    let method = request.method().clone();
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    match (&method, segments.as_slice()) {
        (tiny_http::Method::Get, [""]) => {
            let page = INDEX_HTML
                .replace("{{STYLE}}", STYLE)
                .replace("{{SCRIPT}}", SCRIPT);
            (200, "text/html; charset=utf-8", page.into_bytes())
        }
        (tiny_http::Method::Get, ["api", "pages"]) => json_reply(200, &pages_json(state)),
        (tiny_http::Method::Get, ["api", "page", n]) => match page_index(state, n) {
            Some(i) => match page_json(state, i) {
                Ok(v) => json_reply(200, &v),
                Err(e) => error(422, &e),
            },
            None => error(404, "no such page"),
        },
        (tiny_http::Method::Post, ["api", "page", n]) => {
            let Some(i) = page_index(state, n) else {
                return error(404, "no such page");
            };
            let body = match read_body(request) {
                Ok(b) => b,
                Err(reply) => return reply,
            };
            let Ok(save) = serde_json::from_slice::<SaveRequest>(&body) else {
                return error(
                    400,
                    "expected {\"labels\": [bool...], \"page_type\": \"...\"}",
                );
            };
            match save_page(state, i, &save) {
                Ok(v) => json_reply(200, &v),
                Err((status, e)) => error(status, &e),
            }
        }
        (tiny_http::Method::Get | tiny_http::Method::Post, _) => error(404, "not found"),
        _ => error(405, "method not allowed"),
    }
}

/// Compares tokens without stopping at the first difference.
fn same_token(given: &str, expected: &str) -> bool {
    given.len() == expected.len()
        && given
            .bytes()
            .zip(expected.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

fn page_index(state: &State, s: &str) -> Option<usize> {
    s.parse::<usize>().ok().filter(|&i| i < state.pages.len())
}

/// The request body, refused with 413 beyond [`MAX_BODY`].
fn read_body(request: &mut tiny_http::Request) -> Result<Vec<u8>, Reply> {
    if request.body_length().is_some_and(|n| n > MAX_BODY) {
        return Err(error(413, "request body too large"));
    }
    let mut body = Vec::new();
    let mut reader = request.as_reader().take(MAX_BODY as u64 + 1);
    if reader.read_to_end(&mut body).is_err() {
        return Err(error(400, "cannot read the request body"));
    }
    if body.len() > MAX_BODY {
        return Err(error(413, "request body too large"));
    }
    Ok(body)
}

fn pages_json(state: &State) -> Value {
    let corpus = lock(&state.corpus);
    let pages: Vec<Value> = state
        .pages
        .iter()
        .map(|p| {
            let saved = corpus.saved.get(&p.sha256);
            json!({
                "name": p.name,
                "labelled": saved.is_some(),
                "id": saved.map(|s| s.id.clone()),
            })
        })
        .collect();
    let labelled = pages.iter().filter(|p| p["labelled"] == true).count();
    json!({
        "pages": pages,
        "labelled": labelled,
        "total": state.pages.len(),
        "page_types": PAGE_TYPES,
    })
}

fn page_json(state: &State, index: usize) -> Result<Value, String> {
    let blocks = state.view(index)?;
    let page = &state.pages[index];
    let saved = lock(&state.corpus).saved.get(&page.sha256).cloned();
    // Saved labels apply only when the page still splits into as many blocks.
    let labels: Vec<bool> = match &saved {
        Some(s) if s.labels.len() == blocks.len() => s.labels.clone(),
        _ => blocks.iter().map(|b| b.model).collect(),
    };
    Ok(json!({
        "index": index,
        "total": state.pages.len(),
        "name": page.name,
        "url": page.url,
        "threshold": state.threshold,
        "labelled": saved.is_some(),
        "id": saved.as_ref().map(|s| s.id.clone()),
        "page_type": saved.map(|s| s.page_type).unwrap_or_else(|| "article".into()),
        "labels": labels,
        "blocks": &*blocks,
    }))
}

/// Writes page `index` with `save`'s labels into the corpus.
fn save_page(state: &State, index: usize, save: &SaveRequest) -> Result<Value, (u16, String)> {
    if !PAGE_TYPES.contains(&save.page_type.as_str()) {
        return Err((400, format!("unknown page type {:?}", save.page_type)));
    }
    let blocks = state.view(index).map_err(|e| (422, e))?;
    if save.labels.len() != blocks.len() {
        return Err((
            400,
            format!(
                "{} labels for a page of {} blocks",
                save.labels.len(),
                blocks.len()
            ),
        ));
    }
    let page = &state.pages[index];
    let main_content: Vec<&str> = blocks
        .iter()
        .zip(&save.labels)
        .filter(|(b, &l)| l && !b.text.trim().is_empty())
        .map(|(b, _)| b.text.as_str())
        .collect();
    let mut corpus = lock(&state.corpus);
    let id = match corpus.saved.get(&page.sha256) {
        Some(s) => s.id.clone(),
        None => next_id(&corpus.dir).map_err(|e| (500, format!("{e:#}")))?,
    };
    let url = page.url.clone().or_else(|| {
        state
            .extractor
            .extract_bytes(&page.bytes, page.charset.as_deref())
            .ok()
            .and_then(|e| e.metadata.canonical_url)
    });
    let gt = json!({
        "file_id": id,
        "url": url,
        "ground_truth": { "main_content": main_content.join("\n\n") },
        "_internal": {
            "page_type": { "primary": save.page_type },
            "block_labels": save.labels.iter().map(|&l| u8::from(l)).collect::<Vec<_>>(),
            "annotate": {
                "sha256": page.sha256,
                "source": page.name,
                "blocks": blocks.len(),
            },
        },
    });
    let write = |corpus: &Corpus| -> anyhow::Result<()> {
        let html = corpus.dir.join("html").join(format!("{id}.html.gz"));
        if !html.is_file() {
            write_atomically(&html, &gzipped(&page.bytes)?)?;
        }
        let gt_path = corpus.dir.join("ground-truth").join(format!("{id}.json"));
        write_atomically(&gt_path, serde_json::to_string_pretty(&gt)?.as_bytes())?;
        write_metadata(&corpus.dir)
    };
    write(&corpus).map_err(|e| (500, format!("cannot save: {e:#}")))?;
    corpus.saved.insert(
        page.sha256.clone(),
        Saved {
            id: id.clone(),
            labels: save.labels.clone(),
            page_type: save.page_type.clone(),
        },
    );
    let labelled = state
        .pages
        .iter()
        .filter(|p| corpus.saved.contains_key(&p.sha256))
        .count();
    Ok(json!({ "id": id, "labelled": labelled, "total": state.pages.len() }))
}

/// The page's bytes gzipped (kept as they are when already gzipped).
fn gzipped(bytes: &[u8]) -> anyhow::Result<Vec<u8>> {
    if bytes.starts_with(&[0x1f, 0x8b]) {
        return Ok(bytes.to_vec());
    }
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(bytes)?;
    Ok(enc.finish()?)
}

/// The first four-digit id after every id the corpus holds.
fn next_id(dir: &Path) -> anyhow::Result<String> {
    let mut max = 0u64;
    for sub in ["ground-truth", "html"] {
        let d = dir.join(sub);
        let entries = std::fs::read_dir(&d).with_context(|| format!("{}", d.display()))?;
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let stem = name.split('.').next().unwrap_or_default();
            if let Ok(n) = stem.parse::<u64>() {
                max = max.max(n);
            }
        }
    }
    Ok(format!("{:04}", max + 1))
}

/// Rewrites `metadata.json` from the ground-truth files on disk, so that
/// pages another writer saved are kept.
fn write_metadata(dir: &Path) -> anyhow::Result<()> {
    let mut files = serde_json::Map::new();
    for (id, v) in ground_truths(dir)? {
        let url = v["url"].as_str().unwrap_or_default();
        let domain = dechrome::corpus::domain_of(url);
        files.insert(
            id,
            json!({
                "url": url,
                "domain": domain,
                "page_type": v["_internal"]["page_type"]["primary"],
            }),
        );
    }
    let meta = json!({ "files": files });
    write_atomically(
        &dir.join("metadata.json"),
        serde_json::to_string_pretty(&meta)?.as_bytes(),
    )?;
    Ok(())
}
