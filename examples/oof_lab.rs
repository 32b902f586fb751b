//! Out-of-fold decisions, block by block: one domain-grouped
//! cross-validation over the training corpora (as `dechrome train` runs
//! it), then every block of every page written as a TSV row with its
//! out-of-fold probability, the threshold of its fold, its label and a few
//! of its quantities, so that the errors a model makes on sites it never saw
//! can be read and counted (which chrome it keeps, which content it drops).
//!
//! ```sh
//! cargo run --release --example oof_lab -- [--corpora DIR] [--config FILE] --out FILE.tsv
//! ```
//!
//! It also prints word F1 per corpus and page type, as `extract` outputs it:
//! the cross-validation keeps each page's blocks by the selection stage
//! (`dechrome::select::keep`) with its fold's choice, so the `kept` column
//! is extraction's decision.
//!
//! Columns: corpus, page id, page type, language, fold, block index,
//! probability, fold threshold, kept as extracted (0/1), label (0/1), known (0/1),
//! matched share of the block's words, words, link words, comment region
//! (0/1), the tag path of the block's element (last six), its text (first
//! 160 characters).

mod common;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use dechrome::train::{cross_validate, Learner};
use dechrome::{CetrConfig, TrainConfig};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut corpora = common::default_corpora();
    let mut cfg = TrainConfig::default();
    let mut out: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--corpora" => corpora = PathBuf::from(value),
            "--config" => cfg = serde_json::from_str(&std::fs::read_to_string(value)?)?,
            "--out" => out = Some(PathBuf::from(value)),
            other => return Err(format!("unknown flag {other}").into()),
        }
    }
    let out = out.ok_or("--out FILE is required")?;
    let cetr = CetrConfig::default();
    let prepared = common::prepare_four(&corpora, &cfg, &cetr)?;
    let (cv, oof) = cross_validate(&prepared, &cfg, &cetr, Learner::Ensemble)?;
    for (name, c) in &cv.corpora {
        eprintln!("{name}: {}", serde_json::to_string(c)?);
    }
    // The report's scores are what `extract` outputs (the selection stage
    // with each fold's choice); per page type too.
    let mut sums: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    for score in &cv.pages {
        if let Some(word) = score.word {
            for key in [
                score.corpus.clone(),
                format!("{}/{}", score.corpus, score.page_type),
            ] {
                let e = sums.entry(key).or_default();
                e.0 += word.f1;
                e.1 += 1;
            }
        }
    }
    eprintln!("word F1 out of fold, as extracted:");
    for (key, (s, n)) in &sums {
        eprintln!("{key:<32} {:.4} ({n} pages)", s / *n as f64);
    }
    let mut w = std::io::BufWriter::new(std::fs::File::create(&out)?);
    for ((p, probs), score) in prepared.iter().zip(&oof.last).zip(&cv.pages) {
        let t = cv.fold_thresholds[score.fold];
        for (i, b) in p.blocks.blocks.iter().enumerate() {
            let e = &p.blocks.elements[b.element as usize];
            let mut path = Vec::new();
            let mut cur = Some(b.element);
            while let Some(k) = cur {
                let el = &p.blocks.elements[k as usize];
                let toks: Vec<&str> = p.blocks.tokens_of(el).collect();
                path.push(if toks.is_empty() {
                    el.tag.to_string()
                } else {
                    format!("{}.{}", el.tag, toks.join("."))
                });
                cur = el.parent;
                if path.len() == 6 {
                    break;
                }
            }
            path.reverse();
            let text: String = b
                .text
                .chars()
                .take(160)
                .map(|c| if c == '\t' { ' ' } else { c })
                .collect();
            writeln!(
                w,
                "{}\t{}\t{}\t{}\t{}\t{}\t{:.4}\t{:.3}\t{}\t{}\t{}\t{:.3}\t{}\t{}\t{}\t{}\t{}",
                p.corpus,
                p.id,
                p.page_type,
                p.language.as_deref().unwrap_or(""),
                score.fold,
                i,
                probs[i],
                t,
                score.kept[i] as u8,
                p.labels[i] as u8,
                p.known[i] as u8,
                p.shares[i],
                b.words,
                b.link_words,
                e.comments as u8,
                path.join(">"),
                text
            )?;
        }
    }
    w.flush()?;
    eprintln!("wrote {}", out.display());
    Ok(())
}
