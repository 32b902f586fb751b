//! dechrome for WebAssembly: the library's extraction behind wasm-bindgen.
//!
//! A thin layer, like the CLI: it turns JavaScript options into an
//! [`ExtractorConfig`], calls [`dechrome::Extractor`], and turns the
//! [`dechrome::Extraction`] (or the library's error, as a JavaScript `Error`
//! with the library's message) back into JavaScript values. No logic of its
//! own. The npm package and its tests live beside this crate (`wasm/README.md`).

use std::cell::OnceCell;
use std::rc::Rc;

use dechrome::config::CommentMode;
use dechrome::{Algorithm, ExtractorConfig, Model};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = r#"
/** Settings of an extraction; every field is optional. */
export interface ExtractOptions {
  /** Extraction algorithm: "forest" (the trained model, default), or one that needs no model. */
  algorithm?: "forest" | "kmeans" | "cetr-threshold" | "danag" | "crunch" | "boilerpipe-rules" | "boilerpipe-words" | "readability";
  /** Overrides the model's decision threshold (0..1). */
  threshold?: number;
  /** How far the threshold falls on a page whose kept text is not prose (a listing, a shop or product page; default 0.08, 0 for one threshold on every page). */
  lowProseShift?: number;
  /** User comments: "exclude" (default) drops comment threads unless they are the content, "include" keeps them, "model" leaves them to the classifier. */
  comments?: "exclude" | "include" | "model";
  /** Keep figure captions the classifier keeps (default false: dropped unless they are most of the kept text). */
  keepCaptions?: boolean;
  /** Keep a block repeating an earlier kept block's text from another container (default false: the second copy, a pull quote or a mobile rendering, is dropped). */
  keepRepeats?: boolean;
  /** Pages larger than this many bytes are truncated (default 20 MiB). */
  maxBytes?: number;
  /** Pages with more DOM nodes than this are rejected (default 5,000,000). */
  maxNodes?: number;
  /** Pages nested deeper than this are rejected (default 4096). */
  maxDepth?: number;
  /** Fall back to CETR-KM when the forest keeps nothing or hesitates (default false). */
  fallback?: boolean;
  /** Pages with fewer blocks with words than this count as short (default 10; 0: never). */
  shortPageBlocks?: number;
  /** Crunch: append the link texts of removed link lists (default false). */
  retainLinks?: boolean;
  /** The charset of a Uint8Array page when known (an HTTP header's); sniffed otherwise. Per call. */
  charset?: string;
  /** Return every block with its probability and decision (default false). Per call. */
  blocks?: boolean;
}

/** One block of the page with the model's decision. */
export interface Block {
  text: string;
  /** Content probability (1 or 0 for the algorithms without a model). */
  probability: number;
  /** Whether the block is part of `text`. */
  content: boolean;
}

/** The result of extracting one page; absent metadata is null. */
export interface Extraction {
  /** The main text: kept blocks, one per line. */
  text: string;
  title: string | null;
  author: string | null;
  /** Publication date, YYYY-MM-DD. */
  date: string | null;
  /** Last-modified date, YYYY-MM-DD. */
  modified: string | null;
  /** Language tag as the page declares it ("en", "de-CH"). */
  language: string | null;
  canonicalUrl: string | null;
  siteName: string | null;
  description: string | null;
  /** The algorithm that decided ("kmeans-fallback" when the fallback did). */
  algorithm: string;
  /** True when the page was cut at maxBytes. */
  truncated: boolean;
  /** The charset the page was decoded with. */
  encoding: string;
  /** Every block in page order, when `blocks: true` was asked. */
  blocks?: Block[];
}
"#;

#[wasm_bindgen]
extern "C" {
    /// A page: an HTML string, or its raw bytes (charset sniffed, gzip allowed).
    #[wasm_bindgen(typescript_type = "string | Uint8Array | ArrayBuffer")]
    pub type Html;

    /// Options as the `ExtractOptions` interface describes them.
    #[wasm_bindgen(typescript_type = "ExtractOptions")]
    pub type ExtractOptions;

    /// A result as the `Extraction` interface describes it.
    #[wasm_bindgen(typescript_type = "Extraction")]
    pub type ExtractionResult;

    #[wasm_bindgen(js_namespace = console, js_name = error)]
    fn console_error(message: &str);
}

/// Reports a panic on the console before the runtime traps. A panic is a
/// bug (the library returns errors for bad input); this only helps find it.
#[wasm_bindgen(start)]
fn start() {
    std::panic::set_hook(Box::new(|info| {
        console_error(&format!("dechrome panicked (a bug, please report): {info}"))
    }));
}

/// The options object. A key it does not know is an error (a misspelt
/// setting would otherwise be ignored without a word).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Options {
    algorithm: Option<String>,
    threshold: Option<f32>,
    low_prose_shift: Option<f32>,
    comments: Option<String>,
    keep_captions: Option<bool>,
    keep_repeats: Option<bool>,
    max_bytes: Option<usize>,
    max_nodes: Option<usize>,
    max_depth: Option<usize>,
    fallback: Option<bool>,
    short_page_blocks: Option<usize>,
    retain_links: Option<bool>,
    charset: Option<String>,
    blocks: Option<bool>,
}

/// The keys of [`Options`] as JavaScript spells them.
const OPTION_KEYS: [&str; 14] = [
    "algorithm",
    "threshold",
    "lowProseShift",
    "comments",
    "keepCaptions",
    "keepRepeats",
    "maxBytes",
    "maxNodes",
    "maxDepth",
    "fallback",
    "shortPageBlocks",
    "retainLinks",
    "charset",
    "blocks",
];

/// Errors inside this crate are messages; they become JavaScript `Error`s
/// at the boundary (`JsError` is neither `Clone` nor cheap to inspect).
type Result<T> = std::result::Result<T, String>;

fn js(message: String) -> JsError {
    JsError::new(&message)
}

impl Options {
    fn from_js(options: Option<ExtractOptions>) -> Result<Options> {
        match options.map(JsValue::from) {
            None => Ok(Options::default()),
            Some(v) if v.is_undefined() || v.is_null() => Ok(Options::default()),
            Some(v) => {
                // serde-wasm-bindgen reads the known keys only: check the rest.
                if let Some(obj) = v.dyn_ref::<js_sys::Object>() {
                    for key in js_sys::Object::keys(obj).iter() {
                        let key = key.as_string().unwrap_or_default();
                        if !OPTION_KEYS.contains(&key.as_str()) {
                            return Err(format!(
                                "options: unknown key `{key}`, expected one of {}",
                                OPTION_KEYS.join(", ")
                            ));
                        }
                    }
                }
                serde_wasm_bindgen::from_value(v).map_err(|e| format!("options: {e}"))
            }
        }
    }

    /// True when a setting of the extractor (not of one call) is given.
    fn has_settings(&self) -> bool {
        self.algorithm.is_some()
            || self.threshold.is_some()
            || self.low_prose_shift.is_some()
            || self.comments.is_some()
            || self.keep_captions.is_some()
            || self.keep_repeats.is_some()
            || self.max_bytes.is_some()
            || self.max_nodes.is_some()
            || self.max_depth.is_some()
            || self.fallback.is_some()
            || self.short_page_blocks.is_some()
            || self.retain_links.is_some()
    }

    /// True when a per-call option is given.
    fn has_per_call(&self) -> bool {
        self.charset.is_some() || self.blocks.is_some()
    }

    fn algorithm(&self) -> Result<Algorithm> {
        let Some(name) = &self.algorithm else {
            return Ok(Algorithm::Forest);
        };
        Algorithm::from_name(name).ok_or_else(|| {
            let names: Vec<&str> = Algorithm::SELECTABLE.iter().map(|a| a.name()).collect();
            unknown("algorithm", name, &names)
        })
    }

    fn config(&self) -> Result<ExtractorConfig> {
        let mut config = ExtractorConfig::default();
        if let Some(name) = &self.comments {
            config.comments = CommentMode::from_name(name).ok_or_else(|| {
                let names: Vec<&str> = CommentMode::ALL.iter().map(|m| m.name()).collect();
                unknown("comments", name, &names)
            })?;
        }
        config.keep_captions = self.keep_captions.unwrap_or(config.keep_captions);
        config.keep_repeats = self.keep_repeats.unwrap_or(config.keep_repeats);
        config.threshold = self.threshold;
        config.low_prose_shift = self.low_prose_shift.or(config.low_prose_shift);
        config.max_bytes = self.max_bytes.unwrap_or(config.max_bytes);
        config.max_nodes = self.max_nodes.unwrap_or(config.max_nodes);
        config.max_depth = self.max_depth.unwrap_or(config.max_depth);
        config.short_page_blocks = self.short_page_blocks.unwrap_or(config.short_page_blocks);
        config.classic.fallback = self.fallback.unwrap_or(config.classic.fallback);
        config.classic.crunch_retain_links = self
            .retain_links
            .unwrap_or(config.classic.crunch_retain_links);
        Ok(config)
    }

    /// The extractor these options ask for, over `model()` when the
    /// algorithm needs one.
    fn extractor(&self, model: impl FnOnce() -> Result<Model>) -> Result<Extractor> {
        let algorithm = self.algorithm()?;
        let config = self.config()?;
        let inner = if algorithm.needs_model() {
            dechrome::Extractor::new(model()?, config)
        } else {
            dechrome::Extractor::classic(algorithm, config)
        }
        .map_err(|e| e.to_string())?;
        Ok(Extractor {
            inner: Rc::new(inner),
        })
    }
}

fn unknown(field: &str, name: &str, names: &[&str]) -> String {
    format!(
        "options: {field}: unknown {name:?}, expected one of {}",
        names.join(", ")
    )
}

thread_local! {
    /// The embedded model, parsed once.
    static EMBEDDED: OnceCell<Result<Model>> = const { OnceCell::new() };
    /// The extractor `extract` uses when no setting is given, built once.
    static DEFAULT: OnceCell<Result<Extractor>> = const { OnceCell::new() };
}

fn embedded_model() -> Result<Model> {
    EMBEDDED.with(|cell| {
        cell.get_or_init(|| Model::embedded().map_err(|e| e.to_string()))
            .clone()
    })
}

fn default_extractor() -> Result<Extractor> {
    DEFAULT.with(|cell| {
        cell.get_or_init(|| Options::default().extractor(embedded_model))
            .clone()
    })
}

/// The page's text, or its raw bytes.
enum Page {
    Text(String),
    Bytes(Vec<u8>),
}

impl Page {
    fn from_js(html: &Html) -> Result<Page> {
        let v: &JsValue = html.as_ref();
        if let Some(s) = v.as_string() {
            Ok(Page::Text(s))
        } else if let Some(a) = v.dyn_ref::<js_sys::Uint8Array>() {
            Ok(Page::Bytes(a.to_vec()))
        } else if let Some(b) = v.dyn_ref::<js_sys::ArrayBuffer>() {
            Ok(Page::Bytes(js_sys::Uint8Array::new(b).to_vec()))
        } else {
            Err("html must be a string, a Uint8Array or an ArrayBuffer".into())
        }
    }
}

/// The JavaScript shape of a result (see the `Extraction` interface).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Output<'a> {
    text: &'a str,
    title: Option<&'a str>,
    author: Option<&'a str>,
    date: Option<&'a str>,
    modified: Option<&'a str>,
    language: Option<&'a str>,
    canonical_url: Option<&'a str>,
    site_name: Option<&'a str>,
    description: Option<&'a str>,
    algorithm: &'static str,
    truncated: bool,
    encoding: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    blocks: Option<&'a [dechrome::BlockDecision]>,
}

/// Extracts pages' main text and metadata with one model and one set of
/// settings (build it once, call `extract` for every page).
#[wasm_bindgen]
#[derive(Clone)]
pub struct Extractor {
    inner: Rc<dechrome::Extractor>,
}

#[wasm_bindgen]
impl Extractor {
    /// An extractor with the embedded model (or an algorithm that needs
    /// none) and the given settings. Throws on an invalid setting.
    #[wasm_bindgen(constructor)]
    pub fn new(options: Option<ExtractOptions>) -> std::result::Result<Extractor, JsError> {
        let options = Options::from_js(options).map_err(js)?;
        refuse_per_call(&options).map_err(js)?;
        options.extractor(embedded_model).map_err(js)
    }

    /// An extractor over a model file's bytes (from `dechrome train` or
    /// `adapt`). Throws with the library's message when they are not a
    /// valid model.
    #[wasm_bindgen(js_name = fromModel)]
    pub fn from_model(
        bytes: &[u8],
        options: Option<ExtractOptions>,
    ) -> std::result::Result<Extractor, JsError> {
        let options = Options::from_js(options).map_err(js)?;
        refuse_per_call(&options).map_err(js)?;
        if !options.algorithm().map_err(js)?.needs_model() {
            return Err(js("options: algorithm: only \"forest\" uses a model".into()));
        }
        let model = || Model::from_bytes(bytes).map_err(|e| dechrome::Error::from(e).to_string());
        options.extractor(model).map_err(js)
    }

    /// Extracts one page. Only the per-call options (`charset`, `blocks`)
    /// are read here; the settings belong to the constructor.
    pub fn extract(
        &self,
        html: &Html,
        options: Option<ExtractOptions>,
    ) -> std::result::Result<ExtractionResult, JsError> {
        let options = Options::from_js(options).map_err(js)?;
        if options.has_settings() {
            return Err(js(
                "options: only `charset` and `blocks` apply to one call; \
                 give the settings to the Extractor"
                    .into(),
            ));
        }
        self.run(html, &options).map_err(js)
    }

    /// The algorithm in use ("forest" with a model).
    #[wasm_bindgen(getter)]
    pub fn algorithm(&self) -> String {
        self.inner.algorithm().name().to_string()
    }

    /// The decision threshold in force (0.5 for the algorithms without a model).
    #[wasm_bindgen(getter)]
    pub fn threshold(&self) -> f32 {
        self.inner.threshold()
    }

    /// How far the threshold falls on a page whose kept text is not prose
    /// (0 for the algorithms without a model).
    #[wasm_bindgen(getter, js_name = lowProseShift)]
    pub fn low_prose_shift(&self) -> f32 {
        self.inner.low_prose_shift()
    }
}

impl Extractor {
    fn run(&self, html: &Html, options: &Options) -> Result<ExtractionResult> {
        let e = match Page::from_js(html)? {
            Page::Text(s) => self.inner.extract_str(&s),
            Page::Bytes(b) => self.inner.extract_bytes(&b, options.charset.as_deref()),
        }
        .map_err(|e| e.to_string())?;
        let m = &e.metadata;
        let out = Output {
            text: &e.text,
            title: m.title.as_deref(),
            author: m.author.as_deref(),
            date: m.date.as_deref(),
            modified: m.modified.as_deref(),
            language: m.language.as_deref(),
            canonical_url: m.canonical_url.as_deref(),
            site_name: m.site_name.as_deref(),
            description: m.description.as_deref(),
            algorithm: e.algorithm.name(),
            truncated: e.truncated,
            encoding: &e.encoding,
            blocks: options.blocks.unwrap_or(false).then_some(&e.blocks[..]),
        };
        let serializer = serde_wasm_bindgen::Serializer::new().serialize_missing_as_null(true);
        out.serialize(&serializer)
            .map(JsCast::unchecked_into)
            .map_err(|e| format!("result: {e}"))
    }
}

fn refuse_per_call(options: &Options) -> Result<()> {
    if options.has_per_call() {
        return Err(
            "options: `charset` and `blocks` apply to one call; give them to extract()".into(),
        );
    }
    Ok(())
}

/// Extracts one page's main text and metadata. Without settings it uses
/// the embedded model (parsed once); with settings it builds an extractor
/// for this call (create an `Extractor` to reuse one).
#[wasm_bindgen]
pub fn extract(
    html: &Html,
    options: Option<ExtractOptions>,
) -> std::result::Result<ExtractionResult, JsError> {
    let options = Options::from_js(options).map_err(js)?;
    let extractor = if options.has_settings() {
        options.extractor(embedded_model)
    } else {
        default_extractor()
    }
    .map_err(js)?;
    extractor.run(html, &options).map_err(js)
}

/// The version of this package (the crate's).
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}
