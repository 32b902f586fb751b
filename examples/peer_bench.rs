//! dechrome beside a peer extractor, in one run on the same pages, one
//! thread: html5ever parsing alone (into our arena DOM), dom_smoothie (a
//! readability.js port, itself on html5ever) and dechrome end to end.
//!
//! Every contender starts from the page's raw bytes (gunzip, charset
//! detection and decoding are timed for all three); dechrome's time also
//! covers metadata and the JSON Lines record `extract --format jsonl`
//! writes, dom_smoothie's its article (text, metadata). Rounds alternate
//! between the contenders so that a loaded machine weighs on all alike; the
//! best round of each is reported.
//!
//! `cargo run --release --example peer_bench -- [--rounds N] [--limit N] [--only NAME] DIR...`
//!
//! A fourth contender, `dechrome without page models`, runs the same
//! model without its page-type classifier and confidence model: the
//! difference is what those page-level steps cost.
//!
//! A fifth, `dechrome --fast`, runs the fast shipped model
//! (`ExtractorConfig::fast`).
//!
//! `--only parse|dom_smoothie|dechrome|bare|fast|none` runs one contender (or none:
//! reading and decoding the pages only), so that an instruction count
//! (`valgrind --tool=callgrind ... --rounds 1 --only NAME`, minus the
//! `none` run) compares the contenders independently of machine load.
//!
//! `--process parse|dom_smoothie --files-from LIST` is one contender as a
//! user's program runs it, for `benches/whole_process.py`: each page read
//! from disk in turn and processed once; dom_smoothie writes a JSON line
//! (path, title, text) per page to standard output, the parse floor writes
//! nothing.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use dechrome::output::{render, Format, Origin};
use dechrome::parse::charset;
use dechrome::{Extractor, ExtractorConfig, Model};

/// What `--help` prints (and an unknown option, before exiting).
const USAGE: &str = "usage: peer_bench [--rounds N] [--limit N] [--only parse|dom_smoothie|dechrome|bare|fast|none] DIR...
       peer_bench --process parse|dom_smoothie --files-from LIST
DIR defaults to ../shared/corpora/readability-pages; see the file's doc comment.";

/// Largest page decoded, as `extract` bounds it by default.
const MAX_BYTES: usize = 20 << 20;

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    if dir.is_file() {
        out.push(dir.to_path_buf());
        return;
    }
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if p.is_dir() {
            files(&p, out);
        } else if name.ends_with(".html") || name.ends_with(".htm") || name.ends_with(".html.gz") {
            out.push(p);
        }
    }
}

/// Gunzip (bounded) and charset decoding, as the pipeline does it.
fn decode(raw: &[u8]) -> std::borrow::Cow<'_, str> {
    if charset::is_gzip(raw) {
        let bytes = charset::gunzip_bounded(raw, MAX_BYTES).0;
        charset::decode(bytes, None).0.into_owned().into()
    } else {
        charset::decode(raw, None).0
    }
}

fn parse_only(raw: &[u8]) -> usize {
    dechrome::parse::parse_only(&decode(raw))
}

fn dom_smoothie(raw: &[u8]) -> usize {
    let html = decode(raw);
    match dom_smoothie::Readability::new(&*html, None, None) {
        Ok(mut r) => r
            .parse()
            .map(|a| a.text_content.len() + a.title.len())
            .unwrap_or(0),
        Err(_) => 0,
    }
}

fn dechrome(ex: &Extractor, raw: &[u8]) -> usize {
    let r = ex.extract_bytes(raw, None).map_err(|e| e.to_string());
    render(Origin::path("page"), &r, Format::Jsonl).len()
}

/// One contender's work on one page's raw bytes (a size, kept from the optimiser).
type Run<'a> = Box<dyn Fn(&[u8]) -> usize + 'a>;

struct Contender<'a> {
    name: &'static str,
    run: Run<'a>,
    best: Duration,
}

/// `--process NAME`: one pass over the pages named in `list`, read from disk
/// one at a time, as a user's program would.
fn process(name: &str, list: &str) -> Result<(), Box<dyn std::error::Error>> {
    use std::io::Write;
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    for path in std::fs::read_to_string(list)?
        .lines()
        .filter(|l| !l.is_empty())
    {
        let raw = match std::fs::read(path) {
            Ok(raw) => raw,
            Err(e) => {
                eprintln!("{path}: {e}");
                continue;
            }
        };
        match name {
            "parse" => {
                std::hint::black_box(parse_only(&raw));
            }
            "dom_smoothie" => {
                let html = decode(&raw);
                let (title, text) = dom_smoothie::Readability::new(&*html, None, None)
                    .ok()
                    .and_then(|mut r| r.parse().ok())
                    .map(|a| (a.title, a.text_content.to_string()))
                    .unwrap_or_default();
                let line = serde_json::json!({"path": path, "title": title, "text": text});
                writeln!(out, "{line}")?;
            }
            _ => return Err("--process takes parse or dom_smoothie".into()),
        }
    }
    out.flush()?;
    Ok(())
}

fn main() {
    let mut rounds = 3usize;
    let mut limit = usize::MAX;
    let mut only: Option<String> = None;
    let mut process_name: Option<String> = None;
    let mut files_from: Option<String> = None;
    let mut dirs = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--rounds" => rounds = args.next().and_then(|v| v.parse().ok()).unwrap_or(3),
            "--limit" => {
                limit = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(usize::MAX)
            }
            "--only" => only = args.next(),
            "--process" => process_name = args.next(),
            "--files-from" => files_from = args.next(),
            "-h" | "--help" => {
                println!("{USAGE}");
                return;
            }
            _ if a.starts_with('-') => {
                eprintln!("unknown option {a}\n{USAGE}");
                std::process::exit(2);
            }
            _ => dirs.push(a),
        }
    }
    if let Some(name) = process_name {
        let Some(list) = files_from else {
            eprintln!("--process needs --files-from LIST");
            std::process::exit(2);
        };
        if let Err(e) = process(&name, &list) {
            eprintln!("{e}");
            std::process::exit(1);
        }
        return;
    }
    if dirs.is_empty() {
        dirs.push("../shared/corpora/readability-pages".to_string());
    }
    let mut paths = Vec::new();
    for d in &dirs {
        files(Path::new(d), &mut paths);
    }
    paths.truncate(limit);
    let raw: Vec<Vec<u8>> = paths.iter().filter_map(|p| std::fs::read(p).ok()).collect();
    let bytes: usize = raw.iter().map(|r| decode(r).len()).sum();
    let mb = bytes as f64 / 1e6;

    let model = Model::embedded().expect("the embedded model loads");
    let mut bare_model = model.clone();
    bare_model.page_type = None;
    bare_model.confidence = None;
    let ex = Extractor::new(model, ExtractorConfig::default()).expect("an extractor");
    let bare = Extractor::new(bare_model, ExtractorConfig::default()).expect("an extractor");
    let fast = Extractor::from_config(ExtractorConfig {
        fast: true,
        ..ExtractorConfig::default()
    })
    .expect("the fast extractor");
    let mut contenders = [
        Contender {
            name: "html5ever parse only",
            run: Box::new(parse_only),
            best: Duration::MAX,
        },
        Contender {
            name: "dom_smoothie",
            run: Box::new(dom_smoothie),
            best: Duration::MAX,
        },
        Contender {
            name: "dechrome end to end",
            run: Box::new(|r| dechrome(&ex, r)),
            best: Duration::MAX,
        },
        Contender {
            name: "dechrome w/o page models",
            run: Box::new(|r| dechrome(&bare, r)),
            best: Duration::MAX,
        },
        Contender {
            name: "dechrome --fast",
            run: Box::new(|r| dechrome(&fast, r)),
            best: Duration::MAX,
        },
    ];
    let short = ["parse", "dom_smoothie", "dechrome", "bare", "fast"];
    if let Some(o) = &only {
        if o != "none" && !short.contains(&o.as_str()) {
            eprintln!("--only takes parse, dom_smoothie, dechrome, bare, fast or none");
            std::process::exit(2);
        }
    }
    let runs = |i: usize| only.as_deref().is_none_or(|o| o == short[i]);
    for _ in 0..rounds.max(1) {
        for (i, c) in contenders.iter_mut().enumerate() {
            if !runs(i) {
                continue;
            }
            let t = Instant::now();
            let n: usize = raw.iter().map(|r| (c.run)(r)).sum();
            std::hint::black_box(n);
            c.best = c.best.min(t.elapsed());
        }
    }
    println!(
        "{} pages, {:.1} MB of HTML (decoded), best of {} alternating rounds, one thread",
        raw.len(),
        mb,
        rounds.max(1)
    );
    for c in contenders.iter().filter(|c| c.best != Duration::MAX) {
        let s = c.best.as_secs_f64().max(1e-12);
        println!(
            "{:<25} {:>8.3} s {:>8.1} pages/s {:>7.1} MB/s",
            c.name,
            s,
            raw.len() as f64 / s,
            mb / s
        );
    }
    if only.is_none() {
        let secs = |i: usize| contenders[i].best.as_secs_f64().max(1e-12);
        println!("dechrome / parse only  {:.2}", secs(2) / secs(0));
        println!("dechrome / dom_smoothie {:.2}", secs(2) / secs(1));
        println!(
            "--fast / parse only {:.2}, / dom_smoothie {:.2}",
            secs(4) / secs(0),
            secs(4) / secs(1)
        );
        println!(
            "page models' share     {:.1} % of dechrome's time",
            100.0 * (secs(2) - secs(3)) / secs(2)
        );
    }
}
