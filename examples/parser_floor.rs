//! How fast html5ever itself is on this machine, below `dechrome bench`'s
//! floor: the tokenizer alone (tokens dropped), then tokenizer and tree
//! builder into our arena DOM (`parse::parse_only`, the floor `bench`
//! compares against). Tells whether a throughput target is a property of
//! the parser or of our pipeline.
//!
//! `cargo run --release --example parser_floor -- ../shared/corpora/readability-pages`

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{
    BufferQueue, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts,
};

/// Counts tokens and drops them.
struct CountingSink(std::cell::Cell<u64>);

impl TokenSink for CountingSink {
    type Handle = ();

    fn process_token(&self, _token: Token, _line: u64) -> TokenSinkResult<()> {
        self.0.set(self.0.get() + 1);
        TokenSinkResult::Continue
    }
}

fn tokenize(html: &str) -> u64 {
    let tok = Tokenizer::new(
        CountingSink(std::cell::Cell::new(0)),
        TokenizerOpts::default(),
    );
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(html));
    let _ = tok.feed(&input);
    tok.end();
    tok.sink.0.get()
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn best(rounds: usize, pages: &[String], f: impl Fn(&str) -> u64) -> (Duration, u64) {
    let mut best = Duration::MAX;
    let mut count = 0;
    for _ in 0..rounds {
        let t = Instant::now();
        count = pages.iter().map(|p| f(p)).sum();
        best = best.min(t.elapsed());
    }
    (best, count)
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "../shared/corpora/readability-pages".to_string());
    let mut paths = Vec::new();
    files(Path::new(&dir), &mut paths);
    let raw: Vec<Vec<u8>> = paths.iter().filter_map(|p| std::fs::read(p).ok()).collect();
    let pages = dechrome::bench::decode_pages(&raw, 20 << 20);
    let bytes: usize = pages.iter().map(|p| p.len()).sum();
    let mb = bytes as f64 / 1e6;
    println!("{} pages, {:.1} MB, best of 3, one thread", pages.len(), mb);
    let (t, n) = best(3, &pages, tokenize);
    println!(
        "html5ever tokenizer only         {:.3} s  {:6.1} MB/s  ({n} tokens)",
        t.as_secs_f64(),
        mb / t.as_secs_f64()
    );
    let (t, n) = best(3, &pages, |p| dechrome::parse::parse_only(p) as u64);
    println!(
        "tokenizer + tree into our arena  {:.3} s  {:6.1} MB/s  ({n} nodes)",
        t.as_secs_f64(),
        mb / t.as_secs_f64()
    );
}
