//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use dechrome::train::{prepare_all, PreparedPage};
use dechrome::{CetrConfig, TrainConfig};

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The small annotated sample shipped in the repository.
pub fn sample_dir() -> PathBuf {
    root().join("training-data/sample")
}

/// The text the embedded model extracts from `html` with `config`, its
/// whitespace collapsed to single spaces.
pub fn extracted_text(html: &str, config: dechrome::ExtractorConfig) -> String {
    let text = dechrome::Extractor::with_embedded_model(config)
        .unwrap()
        .extract_str(html)
        .unwrap()
        .text;
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The shared corpora, when they are beside the repository.
pub fn shared_corpora() -> Option<PathBuf> {
    let p = root().join("../shared/corpora");
    p.is_dir().then_some(p)
}

/// A training configuration small enough for tests: 3 folds, 40 trees.
pub fn small_config() -> TrainConfig {
    let mut c = TrainConfig {
        folds: 3,
        inner_folds: 3,
        css_min_domains: 2,
        ..TrainConfig::default()
    };
    c.ensemble.n_trees = 40;
    c
}

/// The sample's pages, prepared for training.
pub fn prepared_sample(cfg: &TrainConfig) -> Vec<PreparedPage> {
    let pages = dechrome::corpus::read_wcxb(&sample_dir()).expect("sample corpus");
    let (ok, failed) = prepare_all(&pages, cfg, &CetrConfig::default(), &|| {});
    assert!(failed.is_empty(), "sample pages failed: {}", failed.len());
    ok
}

/// Reads a fixture file.
pub fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(root().join("tests/fixtures").join(name)).expect("fixture")
}

/// Gzips bytes (one gzip member).
pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

/// One WARC record's bytes (uncompressed).
pub fn warc_record(fields: &[(&str, &str)], block: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    dechrome::warc::write_record(&mut v, fields, block).unwrap();
    v
}

/// Path of the built `dechrome` binary.
pub fn bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_dechrome"))
}

/// Runs `dechrome ARGS` with an empty standard input; its output.
pub fn run(args: &[&str]) -> std::process::Output {
    std::process::Command::new(bin())
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap()
}

/// How long a test waits for a child process to reach a state or exit.
const CHILD_LIMIT: std::time::Duration = std::time::Duration::from_secs(20);

/// Waits until `extract -o` has its temporary file in `dir` (its model is
/// loaded and Ctrl-C is handled), at most [`CHILD_LIMIT`].
pub fn wait_for_pending_file(dir: &Path) {
    let start = std::time::Instant::now();
    let has_tmp = || {
        std::fs::read_dir(dir)
            .unwrap()
            .any(|e| e.unwrap().file_name().to_string_lossy().ends_with(".tmp"))
    };
    while !has_tmp() {
        assert!(start.elapsed() < CHILD_LIMIT, "no temporary file");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// Waits for `child` to exit, at most [`CHILD_LIMIT`]; `after` names what
/// should have ended it.
pub fn wait_exit(child: &mut std::process::Child, after: &str) {
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(start.elapsed() < CHILD_LIMIT, "no exit after {after}");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Lets `child` work 300 ms, sends it SIGINT (Ctrl-C) and waits for it to
/// exit.
pub fn interrupt(child: &mut std::process::Child) {
    std::thread::sleep(std::time::Duration::from_millis(300));
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    wait_exit(child, "SIGINT");
}

/// A JSON value read by a parser that refuses an object holding the same
/// key twice (serde_json's own `Value` keeps the last one silently).
pub struct StrictJson(pub serde_json::Value);

impl<'de> Deserialize<'de> for StrictJson {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(StrictJson)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = serde_json::Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value without repeated keys")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(StrictJson(v)) = seq.next_element()? {
            items.push(v);
        }
        Ok(serde_json::Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut seen = HashSet::new();
        let mut out = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                return Err(de::Error::custom(format!("repeated key {key:?}")));
            }
            let StrictJson(v) = map.next_value()?;
            out.insert(key, v);
        }
        Ok(serde_json::Value::Object(out))
    }
}

/// Parses one JSON document, refusing repeated keys at any depth.
pub fn strict_json(text: &str) -> serde_json::Value {
    match serde_json::from_str::<StrictJson>(text) {
        Ok(StrictJson(v)) => v,
        Err(e) => panic!("not strict JSON ({e}): {text}"),
    }
}

/// Parses every line of JSON Lines output strictly (see [`strict_json`]).
pub fn strict_json_lines(out: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(out)
        .lines()
        .map(strict_json)
        .collect()
}

/// Three paragraphs of a short news article, for pages built in tests.
pub const PARAGRAPHS: [&str; 3] = [
    "The council voted on Tuesday to rebuild the old harbour wall, which was damaged in \
     the winter storms and has been closed to walkers since January.",
    "Work will start in the spring and take about eighteen months. The cost, shared with \
     the regional government, is estimated at four million euros.",
    "Fishermen welcomed the decision but asked that the slipway stay open during the \
     works, since the season starts in April and the boats have nowhere else to land.",
];

/// A news page: navigation, the article (a heading, then `body`), a footer.
pub fn page(body: &str) -> String {
    format!(
        r#"<html><head><title>Harbour wall to be rebuilt</title></head><body>
        <nav><a href="/">Home</a> <a href="/news">News</a> <a href="/sport">Sport</a>
        <a href="/weather">Weather</a></nav>
        <article><h1>Harbour wall to be rebuilt</h1>{body}</article>
        <footer>© 2024 The Coast Herald · <a href="/privacy">Privacy</a>
        · <a href="/contact">Contact</a></footer></body></html>"#
    )
}

/// `s` with its whitespace collapsed to single spaces.
pub fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
