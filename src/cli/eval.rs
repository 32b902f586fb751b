//! `dechrome eval`: word P/R/F1 on a WCXB folder, snippet P/R/F1 on a
//! manifest, with the same definitions as `../shared/tools/score.py`.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use rayon::prelude::*;

use super::ModelArgs;
use dechrome::corpus::Corpus;
use dechrome::eval::{word_prf, SnippetCounts, WordReport};

/// Arguments of `eval`.
#[derive(Args)]
pub struct EvalArgs {
    /// A WCXB-layout folder or a folder with manifest.jsonl.
    #[arg(long, value_name = "DIR")]
    corpus: PathBuf,
    #[command(flatten)]
    model: ModelArgs,
    /// Also write every page's extraction as JSONL (`path`, `text`), the
    /// input of `score.py`.
    #[arg(long, value_name = "FILE")]
    predictions: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// Runs `eval`.
pub fn run(args: EvalArgs) -> anyhow::Result<()> {
    let extractor = args.model.extractor()?;
    let algo = args.model.algorithm().name();
    let corpus = Corpus::open(&args.corpus)?;
    let extract = |path: &std::path::Path| -> (String, Option<String>) {
        match std::fs::read(path)
            .map_err(|e| e.to_string())
            .and_then(|b| extractor.extract_bytes(&b, None).map_err(|e| e.to_string()))
        {
            Ok(e) => (e.text, None),
            Err(e) => (String::new(), Some(e)),
        }
    };
    let mut predictions: Vec<(String, String)> = Vec::new();
    let mut errors = 0usize;
    match corpus {
        Corpus::Wcxb(pages) => {
            let pb = super::progress(pages.len() as u64, "pages");
            let results: Vec<_> = pages
                .par_iter()
                .map(|p| {
                    let (text, err) = extract(&p.html_path);
                    pb.inc(1);
                    (p, word_prf(&text, &p.gold), text, err)
                })
                .collect();
            pb.finish_and_clear();
            let report = WordReport::from_scores(
                results
                    .iter()
                    .map(|(p, s, _, _)| (p.page_type.as_str(), *s)),
            );
            for (p, _, text, err) in results {
                if let Some(e) = err {
                    eprintln!("{}: {e}", p.html_path.display());
                    errors += 1;
                }
                predictions.push((p.html_path.display().to_string(), text));
            }
            if args.json {
                println!(
                    "{}",
                    serde_json::json!({"algorithm": algo, "corpus": args.corpus, "word": report})
                );
            } else {
                println!(
                    "{} on {}: word P/R/F1, mean over pages",
                    algo,
                    args.corpus.display()
                );
                print!("{}", report.table());
            }
        }
        Corpus::Snippets(pages) => {
            let pb = super::progress(pages.len() as u64, "pages");
            let results: Vec<_> = pages
                .par_iter()
                .map(|p| {
                    let (text, err) = extract(&p.html_path);
                    let mut c = SnippetCounts::default();
                    c.add_page(&text, &p.with, &p.without);
                    pb.inc(1);
                    (p, c, text, err)
                })
                .collect();
            pb.finish_and_clear();
            let mut counts = SnippetCounts::default();
            for (p, c, text, err) in results {
                counts.merge(c);
                if let Some(e) = err {
                    eprintln!("{}: {e}", p.html_path.display());
                    errors += 1;
                }
                predictions.push((p.html_path.display().to_string(), text));
            }
            let r = counts.report();
            if args.json {
                println!(
                    "{}",
                    serde_json::json!({"algorithm": algo, "corpus": args.corpus, "snippets": r})
                );
            } else {
                println!(
                    "{} on {}: snippet P {:.4} R {:.4} F1 {:.4} accuracy {:.4} (TP {} FN {} FP {} TN {}; no page types in this set)",
                    algo,
                    args.corpus.display(),
                    r.precision,
                    r.recall,
                    r.f1,
                    r.accuracy,
                    r.counts.tp,
                    r.counts.fn_,
                    r.counts.fp,
                    r.counts.tn
                );
            }
        }
    }
    if errors > 0 {
        eprintln!("{errors} pages failed and count as empty extractions");
    }
    if let Some(path) = &args.predictions {
        let mut buf = Vec::new();
        for (p, t) in predictions {
            serde_json::to_writer(&mut buf, &serde_json::json!({"path": p, "text": t}))?;
            buf.write_all(b"\n")?;
        }
        dechrome::model::artifact::write_atomically(path, &buf)?;
    }
    Ok(())
}
