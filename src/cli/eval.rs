//! `dechrome eval`: word P/R/F1 on a WCXB folder, snippet P/R/F1 on a
//! manifest, with the same definitions as `../shared/tools/score.py`; with
//! `--algorithm all`, one table over every algorithm.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use super::EvalModelArgs;
use dechrome::corpus::Corpus;
use dechrome::eval::{evaluate, Evaluation};
use dechrome::Algorithm;

/// Arguments of `eval`.
#[derive(Args)]
pub struct EvalArgs {
    /// A WCXB-layout folder or a folder with manifest.jsonl.
    #[arg(long, value_name = "DIR")]
    corpus: PathBuf,
    #[command(flatten)]
    model: EvalModelArgs,
    /// Also write every page's extraction as JSONL (`path`, `text`), the
    /// input of `score.py` (not with `--algorithm all`).
    #[arg(long, value_name = "FILE")]
    predictions: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

/// Runs `eval`.
pub fn run(args: EvalArgs) -> anyhow::Result<()> {
    let corpus = Corpus::open(&args.corpus)?;
    let algorithms: Vec<Algorithm> = if args.model.all_algorithms() {
        Algorithm::SELECTABLE.to_vec()
    } else {
        vec![args.model.settings()?.algorithm]
    };
    anyhow::ensure!(
        algorithms.len() == 1 || args.predictions.is_none(),
        "--predictions needs a single algorithm"
    );
    let mut results: Vec<Evaluation> = Vec::new();
    for &alg in &algorithms {
        let extractor = args.model.extractor_for(alg)?;
        let pages = match &corpus {
            Corpus::Wcxb(p) => p.len(),
            Corpus::Snippets(p) => p.len(),
        };
        let pb = super::progress(pages as u64, alg.name());
        let e = evaluate(&extractor, &corpus, &|| pb.inc(1));
        pb.finish_and_clear();
        if e.errors > 0 {
            eprintln!(
                "{}: {} pages failed and count as empty extractions",
                alg.name(),
                e.errors
            );
            for p in e.predictions.iter().filter(|p| p.error.is_some()).take(10) {
                eprintln!("  {}: {}", p.path, p.error.as_deref().unwrap_or(""));
            }
        }
        results.push(e);
    }
    if let Some(path) = &args.predictions {
        let mut buf = Vec::new();
        for p in &results[0].predictions {
            serde_json::to_writer(
                &mut buf,
                &serde_json::json!({"path": p.path, "text": p.text}),
            )?;
            buf.write_all(b"\n")?;
        }
        dechrome::model::artifact::write_atomically(path, &buf)?;
    }
    if args.json {
        outln!(
            "{}",
            serde_json::to_string_pretty(
                &serde_json::json!({"corpus": args.corpus, "results": results})
            )?
        );
        return Ok(());
    }
    outln!("{}", args.corpus.display());
    out!("{}", table(&results));
    // Metadata does not depend on the algorithm: one table.
    if let Some(m) = results.first().and_then(|r| r.metadata.as_ref()) {
        outln!(
            "\nmetadata: exact match after collapsing whitespace (exact-ci ignores case), \
             over pages with a gold value; null-agree: share of pages with a null gold left empty"
        );
        out!("{}", m.table());
    }
    Ok(())
}

/// One row per algorithm: overall P/R/F1 and, for word metrics, F1 per page type.
fn table(results: &[Evaluation]) -> String {
    let mut out = String::new();
    if let Some(first) = results.first().and_then(|r| r.word.as_ref()) {
        let types: Vec<&String> = first.by_type.keys().collect();
        out.push_str(&format!(
            "{:<17} {:>6} {:>6} {:>6}",
            "algorithm", "P", "R", "F1"
        ));
        for t in &types {
            out.push_str(&format!(" {:>8.8}", t));
        }
        out.push_str("  fallbacks\n");
        for r in results {
            let w = r.word.as_ref().expect("same corpus");
            out.push_str(&format!(
                "{:<17} {:>6.4} {:>6.4} {:>6.4}",
                r.algorithm.name(),
                w.overall.precision,
                w.overall.recall,
                w.overall.f1
            ));
            for t in &types {
                out.push_str(&format!(" {:>8.4}", w.by_type[*t].1.f1));
            }
            out.push_str(&format!("  {}\n", r.fallbacks));
        }
        out.push_str(&format!(
            "word P/R/F1, mean over {} pages; per-type columns are F1\n",
            first.pages
        ));
    } else {
        out.push_str(&format!(
            "{:<17} {:>6} {:>6} {:>6} {:>8}  fallbacks\n",
            "algorithm", "P", "R", "F1", "accuracy"
        ));
        for r in results {
            let s = r.snippets.as_ref().expect("same corpus");
            out.push_str(&format!(
                "{:<17} {:>6.4} {:>6.4} {:>6.4} {:>8.4}  {}\n",
                r.algorithm.name(),
                s.precision,
                s.recall,
                s.f1,
                s.accuracy,
                r.fallbacks
            ));
        }
        out.push_str("snippet P/R/F1 over the whole set (no page types in a snippet manifest)\n");
    }
    out
}
