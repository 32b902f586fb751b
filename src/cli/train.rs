//! `dechrome train`: prepare pages, cross-validate by domain, fit on all,
//! write the model and its metrics.

use std::path::PathBuf;

use clap::Args;

use dechrome::train::{CvReport, TrainJob, TrainProgress};

use super::train_progress::{Progress, Show};
use dechrome::TrainConfig;

/// Arguments of `train`.
#[derive(Args)]
pub struct TrainArgs {
    /// A training corpus; repeat for several, each read in its own layout:
    /// a WCXB folder (ground-truth/, html/, metadata.json) gives gold text,
    /// a snippet manifest (manifest.jsonl) partial labels. One
    /// domain-grouped cross-validation runs over their union.
    #[arg(long, value_name = "DIR", required = true)]
    corpus: Vec<PathBuf>,
    /// Weight of a corpus's training rows, as NAME=W with NAME its folder's
    /// name (repeatable; unnamed corpora weigh 1).
    #[arg(long, value_name = "NAME=W", value_parser = parse_weight)]
    weight: Vec<(String, f32)>,
    /// Where to write the model file.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Train with site columns: each block's recurrence across the other
    /// training pages of its domain. The model then wants
    /// `extract --site-context` (see the README on when it pays).
    #[arg(long)]
    site_context: bool,
    /// Domain-grouped cross-validation folds (default 5). Pages from fewer
    /// sites get as many folds as sites; pages of one site (or two, with
    /// stacking) get no cross-validation: one stage, threshold 0.5.
    #[arg(long)]
    folds: Option<usize>,
    /// Seed of every random choice.
    #[arg(long)]
    seed: Option<u64>,
    /// Training configuration as JSON (fields as in `TrainConfig`; missing ones default).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Where to write the metrics JSON (default: the model path + `.metrics.json`).
    #[arg(long, value_name = "FILE")]
    metrics: Option<PathBuf>,
    /// Also cross-validate the reference baseline (one linfa-trees tree).
    #[arg(long)]
    baseline: bool,
    /// Also cross-validate with the feature families added one at a time
    /// (ST, +IC, +CETR, +Boilerpipe, +DANAg, +Gupta, +structure, +context,
    /// +Readability, +post-processing) and report the table.
    #[arg(long)]
    ablation: bool,
    /// With --ablation: also fit each row's model on all pages and score it
    /// on this snippet corpus (trafilatura-eval layout), a column of the
    /// table. Never used to choose anything.
    #[arg(long, value_name = "DIR", requires = "ablation")]
    ablation_snippets: Option<PathBuf>,
    /// Write the cross-validation folds as TSV (id, domain, page type, fold).
    #[arg(long, value_name = "FILE")]
    splits: Option<PathBuf>,
    /// No progress and no notes on standard error (errors and skipped
    /// pages are still reported). Without it, progress shows as bars with
    /// an estimate when standard error is a terminal, else as plain lines
    /// (one per stage and fold).
    #[arg(long, short)]
    quiet: bool,
}

/// Runs `train`: the library's training job ([`dechrome::train::run`])
/// with the command's arguments, then the model, the metrics file and the
/// tables.
pub fn run(args: TrainArgs) -> anyhow::Result<()> {
    let mut config: TrainConfig =
        super::json_config(args.config.as_deref(), "training configuration")?;
    if let Some(k) = args.folds {
        config.folds = k;
    }
    if let Some(s) = args.seed {
        config.seed = s;
    }
    config.site_context |= args.site_context;
    config.corpus_weights.extend(args.weight.iter().cloned());
    let job = TrainJob {
        corpora: args.corpus.clone(),
        config,
        baseline: args.baseline,
        ablation: args.ablation,
        ablation_snippets: args.ablation_snippets.clone(),
        fold_models: false,
    };
    let progress = Progress::new(if args.quiet {
        Show::Nothing
    } else if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        Show::Bars
    } else {
        Show::Lines
    });
    let report = dechrome::train::run(&job, &progress)?;
    for (id, e) in &report.skipped {
        eprintln!("skipped page {id}: {e}");
    }
    report.model.save(&args.out)?;
    if let Some(cv) = &report.cv {
        print_cv(cv, report.baseline.as_ref())?;
        if let Some(path) = &args.splits {
            dechrome::model::artifact::write_atomically(path, cv.splits_tsv().as_bytes())?;
        }
    }
    if let (Some(rows), Some(cv)) = (&report.ablation, &report.cv) {
        print_ablation(rows, cv)?;
    }
    let model = &report.model;
    outln!(
        "final model: {} trees, threshold {}, low-prose shift {}, comments' main share {} (forum pages {}), {} blocks{}; wrote {}",
        model.ensemble.trees.len(),
        model.threshold,
        model.selection.low_prose_shift,
        model.selection.comments_main_share,
        model.selection.forum_comments_main_share,
        model.meta.blocks,
        if report.cv.is_some() { "" } else { ", no cross-validation" },
        args.out.display()
    );
    let t = &report.seconds;
    outln!(
        "time: prepare {:.1} s, cross-validation {:.1} s, final fit {:.1} s, total {:.1} s",
        t.prepare,
        t.cross_validation,
        t.final_fit,
        t.total
    );
    let metrics_path = args
        .metrics
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("{}.metrics.json", args.out.display())));
    report.write_metrics(
        &metrics_path,
        &std::env::args().collect::<Vec<_>>().join(" "),
    )?;
    progress.note(&format!("wrote {}", metrics_path.display()));
    Ok(())
}

/// Prints the cross-validation: word P/R/F1 overall and per page type,
/// per corpus, the first stage alone, the oracle and the baseline.
fn print_cv(cv: &CvReport, baseline: Option<&CvReport>) -> anyhow::Result<()> {
    outln!(
        "domain-grouped {}-fold cross-validation, as extracted, word P/R/F1 (mean over pages), thresholds per fold {:?}:",
        cv.folds, cv.fold_thresholds
    );
    out!("{}", cv.word.table());
    print_corpora(cv)?;
    if let Some(s1) = &cv.stage1 {
        outln!("first stage alone (same folds):");
        out!("{}", s1.table());
    }
    outln!("oracle (gold block labels): F1 {:.4}", cv.oracle_f1);
    if let Some(e) = &cv.selection {
        outln!(
            "selection over all pages: objective {:.5}, {:.5} below the best (standard error {:.5}, the first choice in the grid's order within one is taken)",
            e.objective,
            e.gap,
            e.standard_error
        );
    }
    if let Some(t) = &cv.page_type {
        outln!(
            "page type, out of fold: accuracy {:.4} over {} typed pages, article vs forum {:.4}",
            t.accuracy,
            t.pages,
            t.article_vs_forum
        );
        let by: Vec<String> = t
            .by_corpus
            .iter()
            .map(|(k, c)| format!("{k} {:.4} ({} pages)", c.accuracy, c.pages))
            .collect();
        outln!("  per corpus: {}", by.join(", "));
    }
    if let Some(c) = &cv.confidence {
        outln!(
            "confidence, out of fold, against each page's true word F1 ({} pages):",
            c.pages
        );
        out!("{}", c.markdown());
    }
    if let Some(b) = baseline {
        outln!("baseline: one linfa-trees decision tree (depth 8), same folds:");
        out!("{}", b.word.table());
    }
    Ok(())
}

/// Parses `NAME=W`.
fn parse_weight(s: &str) -> Result<(String, f32), String> {
    let (name, w) = s
        .split_once('=')
        .ok_or_else(|| format!("{s:?}: expected NAME=WEIGHT"))?;
    let w: f32 = w
        .parse()
        .map_err(|_| format!("{s:?}: {w:?} is not a number"))?;
    Ok((name.to_string(), w))
}

/// Prints the out-of-fold scores per corpus: word P/R/F1 and article
/// precision, or snippet P/R/F1.
fn print_corpora(cv: &CvReport) -> anyhow::Result<()> {
    if cv.corpora.len() < 2 && cv.corpora.values().all(|c| c.snippets.is_none()) {
        return Ok(());
    }
    outln!("per corpus (same out-of-fold decisions):");
    for (name, c) in &cv.corpora {
        if let Some(w) = &c.word {
            let mut article = w.by_type.get("article").map_or(String::new(), |(n, p)| {
                format!(", article P {:.4} ({n} pages)", p.precision)
            });
            if let Some((n, p)) = &c.articles_with_comments {
                article.push_str(&format!(
                    ", with a comment region P {:.4} F1 {:.4} ({n})",
                    p.precision, p.f1
                ));
            }
            outln!(
                "  {name:<18} {:>5} pages  word P {:.4} R {:.4} F1 {:.4}{article}",
                c.pages,
                w.overall.precision,
                w.overall.recall,
                w.overall.f1
            );
        }
        for (group, (n, p)) in &c.by_language {
            outln!(
                "  {:<18} {n:>5} pages  word P {:.4} R {:.4} F1 {:.4}",
                format!("  {group}"),
                p.precision,
                p.recall,
                p.f1
            );
        }
        if let Some(s) = &c.snippets {
            outln!(
                "  {name:<18} {:>5} pages  snippet P {:.4} R {:.4} F1 {:.4} accuracy {:.4}",
                c.pages,
                s.precision,
                s.recall,
                s.f1,
                s.accuracy
            );
        }
    }
    Ok(())
}

/// Prints the ablation table: CV word F1 overall and per page type, and
/// the snippet F1 column when measured.
fn print_ablation(rows: &[dechrome::train::AblationRow], cv: &CvReport) -> anyhow::Result<()> {
    outln!("ablation: domain-grouped CV word F1 with feature families added in turn (first stage), then the second stage");
    let types: Vec<String> = cv.word.by_type.keys().cloned().collect();
    out!("{:<17} {:>7}", "features", "F1");
    for t in &types {
        out!(" {:>8.8}", t);
    }
    outln!(" {:>9}", "snippetF1");
    for r in rows {
        out!("{:<17} {:>7.4}", r.name, r.word.overall.f1);
        for t in &types {
            out!(" {:>8.4}", r.word.by_type.get(t).map_or(0.0, |x| x.1.f1));
        }
        match r.snippets {
            Some(s) => outln!(" {:>9.4}", s.f1),
            None => outln!(" {:>9}", "-"),
        }
    }
    Ok(())
}
