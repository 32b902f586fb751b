//! `dechrome train`: prepare pages, cross-validate by domain, fit on all,
//! write the model and its metrics.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::bail;
use clap::Args;

use dechrome::train::{
    cross_validate, feasible_folds, fit_final, no_cv_report, prepare_all, Learner, OutOfFold,
    NO_CV_THRESHOLD,
};
use dechrome::{CetrConfig, TrainConfig};

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
}

/// Runs `train`.
pub fn run(args: TrainArgs) -> anyhow::Result<()> {
    let start = Instant::now();
    let mut cfg: TrainConfig =
        super::json_config(args.config.as_deref(), "training configuration")?;
    if let Some(k) = args.folds {
        cfg.folds = k;
    }
    if let Some(s) = args.seed {
        cfg.seed = s;
    }
    cfg.site_context |= args.site_context;
    let names: Vec<String> = args
        .corpus
        .iter()
        .map(|d| dechrome::corpus::corpus_name(d))
        .collect();
    for (name, w) in &args.weight {
        if !names.contains(name) {
            bail!(
                "--weight {name}={w}: no corpus named {name} (corpora: {})",
                names.join(", ")
            );
        }
        cfg.corpus_weights.insert(name.clone(), *w);
    }
    dechrome::train::check_config(&cfg)?;
    let cetr = CetrConfig::default();
    let pages = dechrome::train::read_corpora(&args.corpus)?;
    eprintln!("preparing {} pages from {}", pages.len(), names.join(", "));
    let pb = super::progress(pages.len() as u64, "pages");
    let (prepared, failed) = prepare_all(&pages, &cfg, &cetr, &|| pb.inc(1));
    pb.finish_and_clear();
    for (id, e) in &failed {
        eprintln!("skipped page {id}: {e}");
    }
    if prepared.is_empty() {
        bail!("no page could be prepared");
    }
    let prep_secs = start.elapsed().as_secs_f64();
    let rows: usize = prepared
        .iter()
        .map(|p| p.blocks.blocks.iter().filter(|b| b.words > 0).count())
        .sum();
    eprintln!(
        "prepared {} pages, {rows} blocks with words, in {prep_secs:.1} s",
        prepared.len()
    );

    let feasible = feasible_folds(&prepared, &cfg);
    if feasible == 0 {
        if args.baseline || args.ablation || args.splits.is_some() {
            bail!("the pages come from too few sites for cross-validation, so no --baseline, --ablation or --splits");
        }
        eprintln!(
            "the pages come from too few sites for cross-validation (it needs two sites, three with stacking): no cross-validation; fitting on all pages, one stage, threshold {NO_CV_THRESHOLD}. To adapt a trained model to your site instead, see `dechrome adapt`."
        );
        return fit_and_write(&args, &cfg, &cetr, &prepared, &failed, start);
    }
    if feasible < cfg.folds {
        eprintln!(
            "{} folds asked for, but the pages come from {feasible} sites: cross-validating with {feasible} folds",
            cfg.folds
        );
        cfg.folds = feasible;
    }
    let (cv, oof) = cross_validate(&prepared, &cfg, &cetr, Learner::Ensemble)?;
    if let Some(path) = &args.splits {
        let domains: Vec<&str> = prepared.iter().map(|p| p.domain.as_str()).collect();
        let folds = dechrome::train::cv::assign_folds(&domains, cfg.folds, cfg.seed);
        let mut tsv = String::from("id\tdomain\tpage_type\tfold\n");
        for (p, f) in prepared.iter().zip(folds) {
            tsv.push_str(&format!("{}\t{}\t{}\t{f}\n", p.id, p.domain, p.page_type));
        }
        dechrome::model::artifact::write_atomically(path, tsv.as_bytes())?;
    }
    outln!(
        "domain-grouped {}-fold cross-validation, word P/R/F1 (mean over pages), thresholds per fold {:?}:",
        cfg.folds, cv.fold_thresholds
    );
    out!("{}", cv.word.table());
    print_corpora(&cv)?;
    if let Some(s1) = &cv.stage1 {
        outln!("first stage alone (same folds):");
        out!("{}", s1.table());
    }
    outln!("oracle (gold block labels): F1 {:.4}", cv.oracle_f1);
    let baseline = if args.baseline {
        let (b, _) = cross_validate(&prepared, &cfg, &cetr, Learner::BaselineTree)?;
        outln!("baseline: one linfa-trees decision tree (depth 8), same folds:");
        out!("{}", b.word.table());
        Some(b)
    } else {
        None
    };
    let snippet_corpus = match &args.ablation_snippets {
        Some(dir) if names.contains(&dechrome::corpus::corpus_name(dir)) => bail!(
            "--ablation-snippets {}: a training corpus; its figure would be in-sample (the cross-validation reports it out of fold)",
            dir.display()
        ),
        Some(dir) => match dechrome::corpus::Corpus::open(dir)? {
            c @ dechrome::corpus::Corpus::Snippets(_) => Some(c),
            _ => bail!("{}: not a snippet corpus (manifest layout)", dir.display()),
        },
        None => None,
    };
    let mut ablation = if args.ablation {
        Some(dechrome::train::ablation(
            &prepared,
            &cfg,
            &cetr,
            Some((&cv, &oof)),
        )?)
    } else {
        None
    };
    let fit_start = Instant::now();
    let model = fit_final(&prepared, &oof, &cfg, &cetr, &cv)?;
    let fit_secs = fit_start.elapsed().as_secs_f64();
    model.save(&args.out)?;
    if let (Some(rows), Some(corpus)) = (ablation.as_mut(), &snippet_corpus) {
        for row in rows.iter_mut() {
            let m = if row.stacked {
                model.clone()
            } else {
                dechrome::train::fit_ablation_row(&prepared, row, (&oof, &cv), &cfg, &cetr)?
            };
            let extractor = dechrome::Extractor::new(m, dechrome::ExtractorConfig::default())?;
            row.snippets = dechrome::eval::evaluate(&extractor, corpus, &|| {}).snippets;
            eprintln!(
                "ablation {}: snippet F1 {:.4}",
                row.name,
                row.snippets.map_or(0.0, |s| s.f1)
            );
        }
    }
    if let Some(rows) = &ablation {
        print_ablation(rows, &cv)?;
    }
    let total = start.elapsed().as_secs_f64();
    outln!(
        "final model: {} trees, threshold {}, {} blocks; wrote {}",
        model.ensemble.trees.len(),
        model.threshold,
        model.meta.blocks,
        args.out.display()
    );
    outln!("time: prepare {prep_secs:.1} s, cross-validation {:.1} s, final fit {fit_secs:.1} s, total {total:.1} s", cv.seconds);
    write_metrics(
        &args,
        &model,
        prepared.len(),
        &failed,
        serde_json::json!({
            "cross_validation": cv,
            "pages_out_of_fold": cv.pages,
            "baseline_tree": baseline,
            "ablation": ablation,
            "seconds": { "prepare": prep_secs, "cross_validation": cv.seconds, "final_fit": fit_secs, "total": total },
            "train_config": cfg,
        }),
    )
}

/// Writes the metrics file (`--metrics`, default the model path +
/// `.metrics.json`): the run's provenance, then the fields of `rest`.
fn write_metrics(
    args: &TrainArgs,
    model: &dechrome::Model,
    pages: usize,
    failed: &[(String, dechrome::Error)],
    rest: serde_json::Value,
) -> anyhow::Result<()> {
    let metrics_path = args
        .metrics
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("{}.metrics.json", args.out.display())));
    let mut metrics = serde_json::json!({
        "command": std::env::args().collect::<Vec<_>>().join(" "),
        "dechrome_version": env!("CARGO_PKG_VERSION"),
        "dataset_hash": model.meta.dataset_hash,
        "pages": pages,
        "pages_skipped": failed.iter().map(|(id, e)| format!("{id}: {e}")).collect::<Vec<_>>(),
        "blocks": model.meta.blocks,
        "threshold": model.threshold,
    });
    if let (Some(m), serde_json::Value::Object(rest)) = (metrics.as_object_mut(), rest) {
        m.extend(rest);
    }
    dechrome::model::artifact::write_atomically(
        &metrics_path,
        serde_json::to_string_pretty(&metrics)?.as_bytes(),
    )?;
    eprintln!("wrote {}", metrics_path.display());
    Ok(())
}

/// Fits on every page without cross-validation (pages of too few sites) and
/// writes the model and its metrics.
fn fit_and_write(
    args: &TrainArgs,
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    prepared: &[dechrome::train::PreparedPage],
    failed: &[(String, dechrome::Error)],
    start: Instant,
) -> anyhow::Result<()> {
    let cv = no_cv_report();
    let model = fit_final(prepared, &OutOfFold::default(), cfg, cetr, &cv)?;
    model.save(&args.out)?;
    outln!(
        "final model: {} trees, threshold {}, {} blocks, no cross-validation; wrote {}",
        model.ensemble.trees.len(),
        model.threshold,
        model.meta.blocks,
        args.out.display()
    );
    write_metrics(
        args,
        &model,
        prepared.len(),
        failed,
        serde_json::json!({
            "cross_validation": null,
            "seconds": { "total": start.elapsed().as_secs_f64() },
            "train_config": cfg,
        }),
    )
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
fn print_corpora(cv: &dechrome::train::CvReport) -> anyhow::Result<()> {
    if cv.corpora.len() < 2 && cv.corpora.values().all(|c| c.snippets.is_none()) {
        return Ok(());
    }
    outln!("per corpus (same out-of-fold decisions):");
    for (name, c) in &cv.corpora {
        if let Some(w) = &c.word {
            let article = w.by_type.get("article").map_or(String::new(), |(n, p)| {
                format!(", article P {:.4} ({n} pages)", p.precision)
            });
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
fn print_ablation(
    rows: &[dechrome::train::AblationRow],
    cv: &dechrome::train::CvReport,
) -> anyhow::Result<()> {
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
