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
//! It also prints word F1 per corpus and page type for the raw decisions,
//! then with extraction's rules added in turn: `--comments exclude` (at
//! the old main-thread share 0.5 and at `COMMENTS_ARE_MAIN`), the caption
//! rule, the repeat rule, and last the page's own threshold
//! (`page_threshold`), which makes the last column what `extract` outputs.
//!
//! Columns: corpus, page id, page type, language, fold, block index,
//! probability, fold threshold, kept (0/1), label (0/1), known (0/1),
//! matched share of the block's words, words, link words, comment region
//! (0/1), the tag path of the block's element (last six), its text (first
//! 160 characters).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use dechrome::extract::{
    exclude_captions, exclude_comments, exclude_repeats, page_threshold, CAPTIONS_ARE_MAIN,
    COMMENTS_ARE_MAIN, REPEAT_MIN_WORDS,
};
use dechrome::train::{cross_validate, prepare_all, read_corpora, Learner};
use dechrome::{CetrConfig, ExtractorConfig, TrainConfig};

/// The four training corpora of the shipped model.
const CORPORA: [&str; 4] = [
    "wcxb-dev",
    "fundus-news",
    "newspaper-news",
    "trafilatura-eval",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut corpora = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora");
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
    let dirs: Vec<PathBuf> = CORPORA.iter().map(|c| corpora.join(c)).collect();
    let cetr = CetrConfig::default();
    let pages = read_corpora(&dirs)?;
    let (prepared, skipped) = prepare_all(&pages, &cfg, &cetr, &|| {});
    eprintln!(
        "{} pages prepared, {} skipped",
        prepared.len(),
        skipped.len()
    );
    let (cv, oof) = cross_validate(&prepared, &cfg, &cetr, Learner::Ensemble)?;
    for (name, c) in &cv.corpora {
        eprintln!("{name}: {}", serde_json::to_string(c)?);
    }
    // Word F1 per corpus (pages with gold text) of the raw decisions and
    // after `--comments exclude` at each main-thread share.
    let shares = [
        None,
        Some(0.5),
        Some(COMMENTS_ARE_MAIN),
        Some(COMMENTS_ARE_MAIN),
        Some(COMMENTS_ARE_MAIN),
        Some(COMMENTS_ARE_MAIN),
        Some(COMMENTS_ARE_MAIN),
    ];
    let shift = ExtractorConfig::default().low_prose_shift;
    let mut sums: BTreeMap<(String, usize), (f64, usize)> = BTreeMap::new();
    let mut snippets = vec![dechrome::eval::SnippetCounts::default(); shares.len()];
    for ((p, probs), score) in prepared.iter().zip(&oof.last).zip(&cv.pages) {
        let t = cv.fold_thresholds[score.fold];
        for (k, share) in shares.iter().enumerate() {
            // The last column decides the page at its own threshold, as
            // extraction does.
            let at = if k == 6 {
                page_threshold(&p.blocks, probs, t, shift)
            } else {
                t
            };
            let mut kept: Vec<bool> = probs.iter().map(|&q| q >= at).collect();
            if let Some(s) = share {
                exclude_comments(&p.blocks, &mut kept, *s);
            }
            match k {
                3 => exclude_captions(&p.blocks, &mut kept, 0.0),
                4 => exclude_captions(&p.blocks, &mut kept, CAPTIONS_ARE_MAIN),
                5 | 6 => {
                    exclude_captions(&p.blocks, &mut kept, CAPTIONS_ARE_MAIN);
                    exclude_repeats(&p.blocks, &mut kept, REPEAT_MIN_WORDS);
                }
                _ => {}
            }
            if !p.has_gold_text() {
                snippets[k].merge(p.snippet_counts(|b| kept[b]));
                continue;
            }
            let f1 = p.score(|b| kept[b]).f1;
            for key in [p.corpus.clone(), format!("{}/{}", p.corpus, p.page_type)] {
                let e = sums.entry((key, k)).or_default();
                e.0 += f1;
                e.1 += 1;
            }
        }
    }
    eprintln!("word F1: raw / comments excluded (share 0.5) / (share {COMMENTS_ARE_MAIN}) / and figcaptions dropped always / unless under {CAPTIONS_ARE_MAIN} of the kept words lie outside them / and repeats of {REPEAT_MIN_WORDS}+ words from another container dropped / and the threshold lowered by {shift} on pages that are not prose (as extracted)");
    let keys: Vec<String> = sums.keys().map(|(c, _)| c.clone()).collect();
    let mut seen = std::collections::BTreeSet::new();
    for c in keys.into_iter().filter(|c| seen.insert(c.clone())) {
        let cells: Vec<String> = (0..shares.len())
            .map(|k| {
                let (s, n) = sums[&(c.clone(), k)];
                format!("{:.4}", s / n as f64)
            })
            .collect();
        eprintln!("{c:<32} {}", cells.join(" / "));
    }
    let cells: Vec<String> = snippets
        .iter()
        .map(|c| format!("{:.4}", c.report().f1))
        .collect();
    eprintln!("{:<32} {}", "snippet F1", cells.join(" / "));
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
                (probs[i] >= t) as u8,
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
