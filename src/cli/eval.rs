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
    let in_sample = match algorithms.iter().any(|a| a.needs_model()) {
        true => in_sample(args.model.settings()?.model.as_deref(), &args.corpus),
        false => None,
    };
    if args.json {
        let mut report = serde_json::json!({"corpus": args.corpus, "results": results});
        if let Some(s) = &in_sample {
            report["in_sample"] = serde_json::json!({
                "corpus": s.corpus,
                "out_of_fold": s.out_of_fold,
            });
        }
        outln!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    outln!("{}", args.corpus.display());
    out!("{}", table(&results));
    if let Some(s) = &in_sample {
        outln!("{}", s.warning());
    }
    // Metadata does not depend on the algorithm: one table.
    if let Some(m) = results.first().and_then(|r| r.metadata.as_ref()) {
        outln!(
            "\nmetadata: exact match after collapsing whitespace (exact-ci ignores case), \
             over pages with a gold value; null-agree: share of pages with a null gold left empty"
        );
        out!("{}", m.table());
        outln!(
            "\nmetadata by source of the value given (gold: pages with a gold value, \
             exact: share of them matched; null: pages with a null gold given a value, \
             or for `none` left empty)"
        );
        out!("{}", m.source_table());
    }
    Ok(())
}

/// A corpus the model was trained on, with the model's out-of-fold
/// figures for it (from its metrics).
struct InSample {
    /// The corpus's name (its folder's name).
    corpus: String,
    /// The corpus's entry of the model's cross-validation metrics.
    out_of_fold: serde_json::Value,
}

impl InSample {
    /// The warning printed under the table.
    fn warning(&self) -> String {
        let f1 = self.out_of_fold["word"]["overall"]["f1"]
            .as_f64()
            .or_else(|| self.out_of_fold["snippets"]["f1"].as_f64());
        let figure = f1.map_or(String::new(), |f| format!(" F1 {f:.4}"));
        format!(
            "IN-SAMPLE: {} is one of this model's training corpora, so the forest's figure \
             above is in-sample (the model has seen these pages) and reads high. Its \
             out-of-fold figure from training is{figure}; `dechrome inspect` prints them \
             all, per corpus and page type (`inspect --json`: the metrics JSON). The \
             dates below read the page type this model predicts, so they are in-sample \
             too: `cargo run --release --example metadata_sources -- DIR METRICS` \
             applies each page's out-of-fold type.",
            self.corpus
        )
    }
}

/// The in-sample case of `corpus` for the model at `model` (the embedded
/// one when `None`): when the model's metrics list the corpus's name among
/// its training corpora. A model that cannot be read is not judged here
/// (loading it for the evaluation reports the error).
fn in_sample(model: Option<&std::path::Path>, corpus: &std::path::Path) -> Option<InSample> {
    let model = match model {
        Some(p) => dechrome::Model::load(p).ok()?,
        None => dechrome::Model::embedded().ok()?,
    };
    let metrics: serde_json::Value = serde_json::from_str(&model.meta.metrics_json).ok()?;
    let name = dechrome::corpus::corpus_name(corpus);
    let out_of_fold = metrics["corpora"].get(&name)?.clone();
    Some(InSample {
        corpus: name,
        out_of_fold,
    })
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
