//! `dechrome train`: prepare pages, cross-validate by domain, fit on all,
//! write the model and its metrics.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context};
use clap::Args;

use dechrome::train::{cross_validate, fit_final, prepare_all, Learner};
use dechrome::{CetrConfig, TrainConfig};

/// Arguments of `train`.
#[derive(Args)]
pub struct TrainArgs {
    /// A WCXB-layout folder (ground-truth/, html/, metadata.json).
    #[arg(long, value_name = "DIR")]
    corpus: PathBuf,
    /// Where to write the model file.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Domain-grouped cross-validation folds.
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
    /// (ST, +IC, +CETR, +structure) and report the table.
    #[arg(long)]
    ablation: bool,
    /// Write the cross-validation folds as TSV (id, domain, page type, fold).
    #[arg(long, value_name = "FILE")]
    splits: Option<PathBuf>,
}

/// Runs `train`.
pub fn run(args: TrainArgs) -> anyhow::Result<()> {
    let start = Instant::now();
    let mut cfg: TrainConfig = match &args.config {
        Some(p) => serde_json::from_slice(
            &std::fs::read(p).with_context(|| format!("cannot read {}", p.display()))?,
        )
        .with_context(|| format!("{}: invalid training configuration", p.display()))?,
        None => TrainConfig::default(),
    };
    if let Some(k) = args.folds {
        cfg.folds = k;
    }
    if let Some(s) = args.seed {
        cfg.seed = s;
    }
    cfg.check()?;
    let cetr = CetrConfig::default();
    let pages = dechrome::corpus::read_wcxb(&args.corpus)?;
    eprintln!(
        "preparing {} pages from {}",
        pages.len(),
        args.corpus.display()
    );
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
    println!(
        "domain-grouped {}-fold cross-validation, word P/R/F1 (mean over pages), thresholds per fold {:?}:",
        cfg.folds, cv.fold_thresholds
    );
    print!("{}", cv.word.table());
    if let Some(s1) = &cv.stage1 {
        println!("first stage alone (same folds):");
        print!("{}", s1.table());
    }
    println!("oracle (gold block labels): F1 {:.4}", cv.oracle_f1);
    let baseline = if args.baseline {
        let (b, _) = cross_validate(&prepared, &cfg, &cetr, Learner::BaselineTree)?;
        println!("baseline: one linfa-trees decision tree (depth 8), same folds:");
        print!("{}", b.word.table());
        Some(b)
    } else {
        None
    };
    let ablation = if args.ablation {
        let rows = dechrome::train::ablation(&prepared, &cfg, &cetr, Some(&cv))?;
        println!("ablation: domain-grouped CV word F1 with feature families added in turn (first stage), then the second stage");
        let types: Vec<String> = cv.word.by_type.keys().cloned().collect();
        print!("{:<17} {:>7}", "features", "F1");
        for t in &types {
            print!(" {:>8.8}", t);
        }
        println!();
        for r in &rows {
            print!("{:<17} {:>7.4}", r.name, r.word.overall.f1);
            for t in &types {
                print!(" {:>8.4}", r.word.by_type.get(t).map_or(0.0, |x| x.1.f1));
            }
            println!();
        }
        Some(rows)
    } else {
        None
    };
    let fit_start = Instant::now();
    let model = fit_final(&prepared, &oof, &cfg, &cetr, &cv)?;
    let fit_secs = fit_start.elapsed().as_secs_f64();
    model.save(&args.out)?;
    let total = start.elapsed().as_secs_f64();
    println!(
        "final model: {} trees, threshold {}, {} blocks; wrote {}",
        model.ensemble.trees.len(),
        model.threshold,
        model.meta.blocks,
        args.out.display()
    );
    println!("time: prepare {prep_secs:.1} s, cross-validation {:.1} s, final fit {fit_secs:.1} s, total {total:.1} s", cv.seconds);
    let metrics_path = args
        .metrics
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("{}.metrics.json", args.out.display())));
    let metrics = serde_json::json!({
        "command": std::env::args().collect::<Vec<_>>().join(" "),
        "dechrome_version": env!("CARGO_PKG_VERSION"),
        "dataset_hash": model.meta.dataset_hash,
        "pages": prepared.len(),
        "pages_skipped": failed.iter().map(|(id, e)| format!("{id}: {e}")).collect::<Vec<_>>(),
        "blocks": model.meta.blocks,
        "threshold": model.threshold,
        "cross_validation": cv,
        "baseline_tree": baseline,
        "ablation": ablation,
        "seconds": { "prepare": prep_secs, "cross_validation": cv.seconds, "final_fit": fit_secs, "total": total },
        "train_config": cfg,
    });
    dechrome::model::artifact::write_atomically(
        &metrics_path,
        serde_json::to_string_pretty(&metrics)?.as_bytes(),
    )?;
    eprintln!("wrote {}", metrics_path.display());
    Ok(())
}
