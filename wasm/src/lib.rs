//! dechrome for WebAssembly: the library's extraction behind wasm-bindgen.
//!
//! A thin layer, like the CLI: it turns the JavaScript options object into
//! JSON (keys from camelCase to snake_case) for the library's reader of
//! settings by name ([`dechrome::config::settings_from_value`], which
//! knows every setting), builds the extractor with the library's
//! constructor, calls [`dechrome::Extractor`], and turns the
//! [`dechrome::Extraction`] (or the library's error, as a JavaScript `Error`
//! with the library's message) back into JavaScript values. No logic of its
//! own. The npm package and its tests live beside this crate (`wasm/README.md`).

use std::cell::OnceCell;
use std::rc::Rc;

use dechrome::output::Format;
use dechrome::{ExtractorConfig, Model};
use serde::Serialize;
use serde_json::{Map, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = r#"
/**
 * Settings of an extraction; every field is optional. They are the library's
 * extraction settings (`ExtractorConfig`, the keys of `dechrome extract
 * --config FILE` and of Python's `Extractor(**settings)`), keys in camelCase
 * (or snake_case) at every depth; the library reads and checks them, and an
 * unknown key throws naming it. `charset`, `blocks` and `format` apply to
 * one call.
 */
export interface ExtractOptions {
  /** Extraction algorithm: "forest" (the trained model, default), or one that needs no model. */
  algorithm?: "forest" | "kmeans" | "cetr-threshold" | "danag" | "crunch" | "boilerpipe-rules" | "boilerpipe-words" | "readability";
  /** Use the fast embedded model: one ensemble per stage instead of two (default false; not with a model of your own). */
  fast?: boolean;
  /** Overrides the model's decision threshold (0..1). */
  threshold?: number;
  /** Overrides the model's low-prose shift: how far the threshold falls on a page whose kept text is not prose (a listing, a shop or product page; 0 for one threshold on every page). */
  lowProseShift?: number;
  /** User comments: "exclude" (default) drops comment threads unless they are the content, "include" keeps them, "model" leaves them to the classifier. */
  comments?: "exclude" | "include" | "model";
  /** Keep figure captions the classifier keeps (default false: dropped unless they are most of the kept text). */
  keepCaptions?: boolean;
  /** Keep a block repeating an earlier kept block's text from another container (default false: the second copy, a pull quote or a mobile rendering, is dropped). */
  keepRepeats?: boolean;
  /** Keep comment threads found only by their shape (repeated posts with a date or a "Reply" line, no comment class or heading) on pages predicted articles (default false: dropped under "exclude"). */
  keepUnnamedThreads?: boolean;
  /** Pages larger than this many bytes are truncated (default 20 MiB). */
  maxBytes?: number;
  /** Pages with more DOM nodes than this are rejected (default 1,000,000). */
  maxNodes?: number;
  /** Pages nested deeper than this are rejected (default 4096). */
  maxDepth?: number;
  /** Fall back to CETR-KM when the forest keeps nothing or hesitates (default false). */
  fallback?: boolean;
  /** The fallback's margin around the threshold (default 0.05, at most 0.5). */
  fallbackMargin?: number;
  /** Pages with fewer blocks with words than this count as short (default 10; 0: never). */
  shortPageBlocks?: number;
  /** A page whose confidence lies below this (0..1) comes back with empty text and `lowConfidence: true` (needs the trained model; default: none). */
  minConfidence?: number;
  /** CETR's settings (the CETR algorithms and the fallback). */
  cetr?: {
    /** Standard deviation, in blocks, of the smoothing of tag ratios (default 1). */
    sigma?: number;
    /** Blocks ahead averaged by the derivative (default 3). */
    alpha?: number;
    /** Iterations of the per-page k-means (default 50). */
    kmeansIterations?: number;
  };
  /** The other unsupervised algorithms' settings. */
  classic?: {
    /** CETR-TM's threshold in standard deviations (default 1). */
    cetrLambda?: number;
    /** DANAg's boundary-search gap in blocks (default 20). */
    danagGap?: number;
    /** Crunch: links per non-linked word above which a container is a link list (default 0.3). */
    crunchLinkRatio?: number;
    /** Crunch: append the link texts of removed link lists (default false). */
    crunchRetainLinks?: boolean;
  };
  /** The charset of a Uint8Array page when known (an HTTP header's); sniffed otherwise. Per call. */
  charset?: string;
  /** Return every block with its probability and decision (default false). Per call. */
  blocks?: boolean;
  /** Also render the kept content: "markdown" adds `markdown` to the result, "html" adds `html` (a clean HTML document); "text" (default) neither. Per call. */
  format?: "text" | "markdown" | "html";
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
  /** Publication date, YYYY-MM-DD (YYYY-MM for a page dated by its month alone). */
  date: string | null;
  /** Last-modified date, YYYY-MM-DD. */
  modified: string | null;
  /** Language tag as the page declares it ("en", "de-CH"). */
  language: string | null;
  canonicalUrl: string | null;
  siteName: string | null;
  description: string | null;
  /** What the page is: "article", "forum", "product", "collection",
   *  "listing", "documentation" or "service" (null without a page-type
   *  classifier). */
  pageType: string | null;
  /** The probability of pageType. */
  pageTypeProbability: number | null;
  /** How good this extraction is likely to be: the model's estimate of
   *  its word F1, 0..1 (null without a confidence model). */
  confidence: number | null;
  /** True when confidence lay below the `minConfidence` asked for: the
   *  text is then empty. */
  lowConfidence: boolean;
  /** The algorithm that decided ("kmeans-fallback" when the fallback did). */
  algorithm: string;
  /** True when the page was cut at maxBytes. */
  truncated: boolean;
  /** The charset the page was decoded with. */
  encoding: string;
  /** Every block in page order, when `blocks: true` was asked. */
  blocks?: Block[];
  /** The kept content as Markdown, when `format: "markdown"` was asked. */
  markdown?: string;
  /** The kept content as a clean HTML document, when `format: "html"` was asked. */
  html?: string;
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

/// Errors inside this crate are messages; they become JavaScript `Error`s
/// at the boundary (`JsError` is neither `Clone` nor cheap to inspect).
type Result<T> = std::result::Result<T, String>;

fn js(message: String) -> JsError {
    JsError::new(&message)
}

/// An options object, split: the per-call options (`charset`, `blocks`,
/// `format`) taken out, the rest the extraction settings as JSON (snake_case keys)
/// for the library's reader of settings by name, which knows every
/// setting, refuses an unknown key with the same message as the CLI and
/// Python, and checks the values.
#[derive(Debug, Default)]
struct Options {
    /// The extraction settings given (none: an empty object).
    settings: Map<String, Value>,
    charset: Option<String>,
    blocks: bool,
    /// What the result carries besides the text: Markdown or HTML (none:
    /// nothing more).
    format: Option<Format>,
}

impl Options {
    fn from_js(options: Option<ExtractOptions>) -> Result<Options> {
        let v = match options.map(JsValue::from) {
            None => return Ok(Options::default()),
            Some(v) if v.is_undefined() || v.is_null() => return Ok(Options::default()),
            Some(v) => v,
        };
        let mut settings = match json_of(&v, "").map_err(|e| e.to_string())? {
            Value::Object(object) => object,
            _ => return Err("options: expected an object".into()),
        };
        let charset = match settings.remove("charset") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s),
            Some(_) => return Err("options: charset: expected a string".into()),
        };
        let blocks = match settings.remove("blocks") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => b,
            Some(_) => return Err("options: blocks: expected a boolean".into()),
        };
        let format = match settings.remove("format") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s == "text" => None,
            Some(Value::String(s)) if s == "markdown" => Some(Format::Markdown),
            Some(Value::String(s)) if s == "html" => Some(Format::Html),
            Some(_) => {
                return Err("options: format: expected \"text\", \"markdown\" or \"html\"".into())
            }
        };
        Ok(Options {
            settings,
            charset,
            blocks,
            format,
        })
    }

    /// True when a setting of the extractor (not of one call) is given.
    fn has_settings(&self) -> bool {
        !self.settings.is_empty()
    }

    /// True when a per-call option is given.
    fn has_per_call(&self) -> bool {
        self.charset.is_some() || self.blocks || self.format.is_some()
    }

    /// True when the result must render the kept content's structure.
    fn needs_structure(&self) -> bool {
        self.format.is_some_and(Format::needs_structure)
    }

    /// The extraction settings, read and checked by the library.
    fn config(&self) -> Result<ExtractorConfig> {
        dechrome::config::settings_from_value(Value::Object(self.settings.clone()))
            .map_err(|e| e.to_string())
    }

    /// The settings for a one-call extractor: recording the structure when
    /// the call's format renders it.
    fn call_config(&self) -> Result<ExtractorConfig> {
        let mut config = self.config()?;
        config.structure |= self.needs_structure();
        Ok(config)
    }

    /// The extractor these options ask for, by the library's constructors.
    /// The forest without a model file gets the embedded model (or, with
    /// `fast`, the fast one) parsed once per module ([`embedded_model`];
    /// `Extractor::from_config` would decode it again for every
    /// `extract(html, settings)` call). `fast` is then answered by the model
    /// handed over, so it is cleared from the settings the library checks.
    fn extractor(&self) -> Result<Extractor> {
        let mut config = self.call_config()?;
        let cached = config.algorithm.needs_model() && config.model.is_none();
        let inner = match cached {
            true => {
                let model = embedded_model(std::mem::take(&mut config.fast))?;
                dechrome::Extractor::from_config_with_model(config, model)
            }
            false => dechrome::Extractor::from_config(config),
        }
        .map_err(|e| e.to_string())?;
        Ok(Extractor::over(inner))
    }
}

/// A JavaScript value as JSON, keys from camelCase to snake_case at every
/// depth (`lowProseShift` is `low_prose_shift`; snake_case keys stay as
/// they are). Keys whose value is `undefined` are left out, as
/// `JSON.stringify` does; a number that is not finite, and values JSON
/// cannot hold (functions, symbols, bigints), are errors naming the key.
fn json_of(v: &JsValue, path: &str) -> dechrome::Result<Value> {
    if v.is_null() || v.is_undefined() {
        return Ok(Value::Null);
    }
    if let Some(b) = v.as_bool() {
        return Ok(Value::Bool(b));
    }
    if let Some(x) = v.as_f64() {
        return dechrome::config::number_value(path, x);
    }
    if let Some(s) = v.as_string() {
        return Ok(Value::String(s));
    }
    if let Some(array) = v.dyn_ref::<js_sys::Array>() {
        return array
            .iter()
            .enumerate()
            .map(|(i, item)| json_of(&item, &format!("{path}[{i}]")))
            .collect::<dechrome::Result<Vec<_>>>()
            .map(Value::Array);
    }
    if v.is_object() && !v.is_function() {
        let mut object = Map::new();
        for entry in js_sys::Object::entries(v.unchecked_ref()).iter() {
            let entry: js_sys::Array = entry.unchecked_into();
            let value = entry.get(1);
            if value.is_undefined() {
                continue;
            }
            let key = snake_case(&entry.get(0).as_string().unwrap_or_default());
            let path = match path {
                "" => key.clone(),
                _ => format!("{path}.{key}"),
            };
            object.insert(key, json_of(&value, &path)?);
        }
        return Ok(Value::Object(object));
    }
    Err(dechrome::Error::Config {
        field: match path {
            "" => "settings".into(),
            _ => path.to_string().into(),
        },
        reason: format!(
            "a {} is not a setting's value",
            v.js_typeof().as_string().unwrap_or_default()
        ),
    })
}

/// `lowProseShift` as `low_prose_shift`: an underscore before each
/// upper-case letter, which becomes lower-case.
fn snake_case(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_uppercase() {
            out.push('_');
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

thread_local! {
    /// The embedded model, parsed once.
    static EMBEDDED: OnceCell<Result<Model>> = const { OnceCell::new() };
    /// The embedded fast model, parsed once.
    static EMBEDDED_FAST: OnceCell<Result<Model>> = const { OnceCell::new() };
    /// The extractor `extract` uses when no setting is given, built once.
    static DEFAULT: OnceCell<Result<Extractor>> = const { OnceCell::new() };
}

/// The embedded model, or with `fast` the fast one, parsed once.
fn embedded_model(fast: bool) -> Result<Model> {
    let parse = || match fast {
        true => Model::embedded_fast(),
        false => Model::embedded(),
    };
    let get = |cell: &OnceCell<Result<Model>>| {
        cell.get_or_init(|| parse().map_err(|e| e.to_string()))
            .clone()
    };
    match fast {
        true => EMBEDDED_FAST.with(get),
        false => EMBEDDED.with(get),
    }
}

fn default_extractor() -> Result<Extractor> {
    DEFAULT.with(|cell| cell.get_or_init(|| Options::default().extractor()).clone())
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
    page_type: Option<&'static str>,
    page_type_probability: Option<f64>,
    confidence: Option<f64>,
    low_confidence: bool,
    algorithm: &'static str,
    truncated: bool,
    encoding: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    blocks: Option<&'a [dechrome::BlockDecision]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    markdown: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    html: Option<String>,
}

/// Extracts pages' main text and metadata with one model and one set of
/// settings (build it once, call `extract` for every page).
#[wasm_bindgen]
#[derive(Clone)]
pub struct Extractor {
    inner: Rc<dechrome::Extractor>,
    /// `inner` recording the structure, made when Markdown or HTML is
    /// first asked for (shared by the clones: `extract` clones the default
    /// extractor on every call).
    structured: Rc<OnceCell<Rc<dechrome::Extractor>>>,
}

#[wasm_bindgen]
impl Extractor {
    /// An extractor with the embedded model (or an algorithm that needs
    /// none) and the given settings. Throws on an invalid setting.
    #[wasm_bindgen(constructor)]
    pub fn new(options: Option<ExtractOptions>) -> std::result::Result<Extractor, JsError> {
        let options = Options::from_js(options).map_err(js)?;
        refuse_per_call(&options).map_err(js)?;
        options.extractor().map_err(js)
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
        let config = options.config().map_err(js)?;
        let model =
            Model::from_bytes(bytes).map_err(|e| js(dechrome::Error::from(e).to_string()))?;
        let inner = dechrome::Extractor::from_config_with_model(config, model)
            .map_err(|e| js(e.to_string()))?;
        Ok(Extractor::over(inner))
    }

    /// Extracts one page. Only the per-call options (`charset`, `blocks`,
    /// `format`) are read here; the settings belong to the constructor.
    pub fn extract(
        &self,
        html: &Html,
        options: Option<ExtractOptions>,
    ) -> std::result::Result<ExtractionResult, JsError> {
        let options = Options::from_js(options).map_err(js)?;
        if options.has_settings() {
            return Err(js(
                "options: only `charset`, `blocks` and `format` apply to one call; \
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
    /// The JavaScript extractor over a built one.
    fn over(inner: dechrome::Extractor) -> Extractor {
        Extractor {
            inner: Rc::new(inner),
            structured: Rc::default(),
        }
    }

    /// The extractor for `options`: `inner`, or for Markdown and HTML the
    /// same one recording the structure (plain text does not pay for it).
    fn for_call(&self, options: &Options) -> Rc<dechrome::Extractor> {
        if !options.needs_structure() || self.inner.config().structure {
            return self.inner.clone();
        }
        self.structured
            .get_or_init(|| Rc::new(self.inner.with_structure(true)))
            .clone()
    }

    fn run(&self, html: &Html, options: &Options) -> Result<ExtractionResult> {
        let extractor = self.for_call(options);
        let e = match Page::from_js(html)? {
            Page::Text(s) => extractor.extract_str(&s),
            Page::Bytes(b) => extractor.extract_bytes(&b, options.charset.as_deref()),
        }
        .map_err(|e| e.to_string())?;
        let m = &e.metadata;
        // As the CLI: the headline on top of Markdown and HTML.
        let headline = dechrome::output::Markup {
            title: true,
            ..dechrome::output::Markup::default()
        };
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
            page_type: e.page_type.map(|t| t.name()),
            page_type_probability: e.page_type_probability,
            confidence: e.confidence,
            low_confidence: e.low_confidence,
            algorithm: e.algorithm.name(),
            truncated: e.truncated,
            encoding: &e.encoding,
            blocks: options.blocks.then_some(&e.blocks[..]),
            markdown: (options.format == Some(Format::Markdown))
                .then(|| e.markdown_with(&headline).unwrap_or_default()),
            html: (options.format == Some(Format::Html))
                .then(|| e.html_with(&headline).unwrap_or_default()),
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
            "options: `charset`, `blocks` and `format` apply to one call; give them to extract()"
                .into(),
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
        options.extractor()
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
