//! Site adaptation, measured: leave one page out on the sites with several
//! pages, scoring each page with a base model that never saw its site, and
//! with that base adapted on k = 1, 2, 3 other pages of the site
//! (`dechrome adapt`); optionally also with the base refitted with those
//! pages added at a weight W (`dechrome train --weight site=W`).
//!
//! The base models are the domain-grouped cross-validation fold models of a
//! small configuration (60 trees, learning rate 0.2, one stage), fitted once
//! over WCXB dev, fundus-news and newspaper-news: a page's base is the
//! model of its fold, which holds out its whole domain.
//!
//! ```sh
//! cargo run --release --example adapt_lab -- [--corpora DIR] [--trees 10,30,100]
//!     [--weights 1,10] [--weight-sample N] [--json FILE]
//! ```
//!
//! `--trees` lists the tree counts tried (0: odds only; the first count is
//! the one the tables per page type and corpus use); `--weight-sample N`
//! refits the base with the k = 2 adaptation pages added, at each weight of
//! `--weights`, for every N-th page (0, the default: never; a refit per page
//! costs a fold model's fit).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use dechrome::train::adapt::{adapt, AdaptConfig};
use dechrome::train::{
    fit_single_stage, fold_models, predict_prepared, prepare_all, read_corpora, PreparedPage,
};
use dechrome::{CetrConfig, TrainConfig};

/// The corpora with gold text the base models are trained on.
const CORPORA: [&str; 3] = ["wcxb-dev", "fundus-news", "newspaper-news"];
/// Largest number of adaptation pages tried.
const MAX_K: usize = 3;

struct Args {
    corpora: PathBuf,
    trees: Vec<usize>,
    weights: Vec<f32>,
    weight_sample: usize,
    json: Option<PathBuf>,
}

fn parse_args() -> Args {
    let mut a = Args {
        corpora: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora"),
        trees: vec![10],
        weights: vec![1.0, 10.0],
        weight_sample: 0,
        json: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        match flag.as_str() {
            "--corpora" => a.corpora = PathBuf::from(value),
            "--trees" => {
                a.trees = value
                    .split(',')
                    .map(|v| v.parse().expect("a tree count"))
                    .collect()
            }
            "--weights" => {
                a.weights = value
                    .split(',')
                    .map(|v| v.parse().expect("a weight"))
                    .collect()
            }
            "--weight-sample" => a.weight_sample = value.parse().expect("a number"),
            "--json" => a.json = Some(PathBuf::from(value)),
            other => panic!("unknown flag {other}"),
        }
    }
    a
}

/// One page's scores: base, then per tree count and k the adapted F1
/// (`None` where the site has too few other pages), then per weight the
/// refitted base's F1 with k = 2 (sampled pages only).
#[derive(serde::Serialize)]
struct PageResult {
    id: String,
    corpus: String,
    domain: String,
    page_type: String,
    base: f64,
    adapted: Vec<Vec<Option<f64>>>,
    weighted: Vec<Option<f64>>,
}

/// A page's group in a table (empty: not in the table).
type GroupKey = fn(&PageResult) -> String;

fn mean(v: impl Iterator<Item = f64>) -> (usize, f64) {
    let (n, s) = v.fold((0usize, 0.0), |(n, s), x| (n + 1, s + x));
    (n, s / n.max(1) as f64)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = parse_args();
    let mut cfg = TrainConfig {
        stacking: false,
        ..TrainConfig::default()
    };
    cfg.ensemble.n_trees = 60;
    cfg.ensemble.learning_rate = 0.2;
    let cetr = CetrConfig::default();
    let t = Instant::now();
    let dirs: Vec<PathBuf> = CORPORA.iter().map(|c| args.corpora.join(c)).collect();
    let pages = read_corpora(&dirs)?;
    let (prepared, failed) = prepare_all(&pages, &cfg, &cetr, &|| {});
    eprintln!(
        "prepared {} pages ({} failed) in {:.1} s",
        prepared.len(),
        failed.len(),
        t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    let fm = fold_models(&prepared, &cfg, &cetr)?;
    eprintln!(
        "{} fold models in {:.1} s; their cross-validated word F1 {:.4} (thresholds {:?})",
        fm.models.len(),
        t.elapsed().as_secs_f64(),
        fm.cv.word.overall.f1,
        fm.cv.fold_thresholds
    );

    // Sites with at least three pages with gold text, pages in corpus order.
    let mut by_domain: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, p) in prepared.iter().enumerate() {
        if p.has_gold_text() {
            by_domain.entry(p.domain.as_str()).or_default().push(i);
        }
    }
    by_domain.retain(|_, v| v.len() >= 3);
    let candidates: Vec<(usize, &Vec<usize>)> = by_domain
        .values()
        .flat_map(|v| v.iter().map(move |&i| (i, v)))
        .collect();
    eprintln!(
        "{} sites with 3 or more pages, {} pages left out in turn",
        by_domain.len(),
        candidates.len()
    );

    let score = |m: &dechrome::Model, p: &PreparedPage| {
        let probs = predict_prepared(m, p);
        p.score(|b| probs[b] >= m.threshold).f1
    };
    let mut results = Vec::new();
    let mut adapt_secs = Vec::new();
    let mut refit_secs = Vec::new();
    // Per page and k: whether the adaptation pages all have its page type.
    let mut same_type: Vec<Vec<Option<bool>>> = Vec::new();
    for (n, &(i, site)) in candidates.iter().enumerate() {
        let p = &prepared[i];
        let base = &fm.models[fm.folds[i]];
        // The other pages of the site, starting after this one (so each
        // page adapts on different neighbours), nested as k grows.
        let at = site.iter().position(|&j| j == i).unwrap_or(0);
        let others: Vec<usize> = (1..site.len())
            .map(|s| site[(at + s) % site.len()])
            .collect();
        same_type.push(
            (1..=MAX_K)
                .map(|k| {
                    (k <= others.len()).then(|| {
                        others[..k]
                            .iter()
                            .all(|&j| prepared[j].page_type == p.page_type)
                    })
                })
                .collect::<Vec<_>>(),
        );
        let mut adapted = Vec::new();
        for &trees in &args.trees {
            let acfg = AdaptConfig {
                trees,
                ..AdaptConfig::default()
            };
            let mut row = Vec::new();
            for k in 1..=MAX_K {
                if k > others.len() {
                    row.push(None);
                    continue;
                }
                let site_pages: Vec<PreparedPage> =
                    others[..k].iter().map(|&j| prepared[j].clone()).collect();
                let t = Instant::now();
                let a = adapt(base, &site_pages, &acfg)?;
                adapt_secs.push(t.elapsed().as_secs_f64());
                row.push(Some(score(&a.model, p)));
            }
            adapted.push(row);
        }
        let mut weighted = Vec::new();
        if args.weight_sample > 0 && n % args.weight_sample == 0 {
            let fold = fm.folds[i];
            for &w in &args.weights {
                let added: Vec<PreparedPage> = others[..2]
                    .iter()
                    .map(|&j| {
                        let mut q = prepared[j].clone();
                        q.weight = w;
                        q
                    })
                    .collect();
                let train: Vec<&PreparedPage> = prepared
                    .iter()
                    .zip(&fm.folds)
                    .filter(|(_, &f)| f != fold)
                    .map(|(q, _)| q)
                    .chain(&added)
                    .collect();
                let t = Instant::now();
                let m = fit_single_stage(
                    &train,
                    &cfg,
                    &cetr,
                    cfg.seed ^ (fold as u64 + 1),
                    base.threshold,
                )?;
                refit_secs.push(t.elapsed().as_secs_f64());
                weighted.push(Some(score(&m, p)));
            }
        }
        results.push(PageResult {
            id: p.id.clone(),
            corpus: p.corpus.clone(),
            domain: p.domain.clone(),
            page_type: p.page_type.clone(),
            base: score(base, p),
            adapted,
            weighted,
        });
        if (n + 1) % 20 == 0 {
            eprintln!("{} of {} pages", n + 1, candidates.len());
        }
    }

    println!("\nLeave one page out, mean word F1 (base = fold model without the page's domain; k = adaptation pages of the same site):\n");
    println!("| trees | k | pages | base F1 | adapted F1 | delta | adapted worse / better |");
    println!("|---|---|---|---|---|---|---|");
    for (ti, trees) in args.trees.iter().enumerate() {
        for k in 1..=MAX_K {
            let rows: Vec<(f64, f64)> = results
                .iter()
                .filter_map(|r| r.adapted[ti][k - 1].map(|a| (r.base, a)))
                .collect();
            let (n, b) = mean(rows.iter().map(|r| r.0));
            let (_, a) = mean(rows.iter().map(|r| r.1));
            let worse = rows.iter().filter(|r| r.1 < r.0 - 1e-9).count();
            let better = rows.iter().filter(|r| r.1 > r.0 + 1e-9).count();
            println!(
                "| {trees} | {k} | {n} | {b:.4} | {a:.4} | {:+.4} | {worse} / {better} |",
                a - b
            );
        }
    }
    let groups: [(&str, GroupKey); 2] = [
        ("page type (WCXB dev)", |r| {
            if r.corpus == "wcxb-dev" {
                r.page_type.clone()
            } else {
                String::new()
            }
        }),
        ("corpus", |r| r.corpus.clone()),
    ];
    for (title, key) in groups {
        println!(
            "\nBy {title}, {} trees: mean word F1 at k = 0 (base), 1, 2, 3 (pages where k is possible)\n",
            args.trees[0]
        );
        println!("| group | pages | k=0 | k=1 | k=2 | k=3 (pages) |");
        println!("|---|---|---|---|---|---|");
        let mut keys: Vec<String> = results.iter().map(key).filter(|k| !k.is_empty()).collect();
        keys.sort();
        keys.dedup();
        for g in keys {
            let rs: Vec<&PageResult> = results.iter().filter(|r| key(r) == g).collect();
            let (n, b) = mean(rs.iter().map(|r| r.base));
            let ks: Vec<(usize, f64)> = (0..MAX_K)
                .map(|k| mean(rs.iter().filter_map(|r| r.adapted[0][k])))
                .collect();
            println!(
                "| {g} | {n} | {b:.4} | {:.4} | {:.4} | {:.4} ({}) |",
                ks[0].1, ks[1].1, ks[2].1, ks[2].0
            );
        }
    }
    println!(
        "\nBy whether the k adaptation pages all share the left-out page's type, {} trees:\n",
        args.trees[0]
    );
    println!("| corpora | adaptation pages | k | pages | base F1 | adapted F1 | delta |");
    println!("|---|---|---|---|---|---|---|");
    for news in [false, true] {
        for same in [true, false] {
            for k in 1..=MAX_K {
                let rows: Vec<(f64, f64)> = results
                    .iter()
                    .zip(&same_type)
                    .filter(|(r, s)| (r.corpus != "wcxb-dev") == news && s[k - 1] == Some(same))
                    .filter_map(|(r, _)| r.adapted[0][k - 1].map(|a| (r.base, a)))
                    .collect();
                let (n, b) = mean(rows.iter().map(|r| r.0));
                let (_, a) = mean(rows.iter().map(|r| r.1));
                println!(
                    "| {} | {} | {k} | {n} | {b:.4} | {a:.4} | {:+.4} |",
                    if news { "news" } else { "WCXB dev" },
                    if same {
                        "same type"
                    } else {
                        "another type among them"
                    },
                    a - b
                );
            }
        }
    }
    if !refit_secs.is_empty() {
        println!("\nRefit with the k = 2 pages added at weight W (every {}-th page), against adapt on the same pages:\n", args.weight_sample);
        println!("| variant | pages | base F1 | F1 | delta |");
        println!("|---|---|---|---|---|");
        let sampled: Vec<&PageResult> = results.iter().filter(|r| !r.weighted.is_empty()).collect();
        let (n, b) = mean(sampled.iter().map(|r| r.base));
        for (ti, trees) in args.trees.iter().enumerate() {
            let (_, a) = mean(sampled.iter().filter_map(|r| r.adapted[ti][1]));
            println!(
                "| adapt, {trees} trees | {n} | {b:.4} | {a:.4} | {:+.4} |",
                a - b
            );
        }
        for (wi, w) in args.weights.iter().enumerate() {
            let (_, a) = mean(sampled.iter().filter_map(|r| r.weighted[wi]));
            println!(
                "| train --weight site={w} | {n} | {b:.4} | {a:.4} | {:+.4} |",
                a - b
            );
        }
    }
    let (na, ma) = mean(adapt_secs.iter().copied());
    let max_a = adapt_secs.iter().copied().fold(0.0, f64::max);
    println!(
        "\nadaptation: {na} runs, mean {:.3} s, max {:.3} s",
        ma, max_a
    );
    if !refit_secs.is_empty() {
        let (nr, mr) = mean(refit_secs.iter().copied());
        println!("refit with weighted pages: {nr} runs, mean {mr:.1} s");
    }
    if let Some(path) = &args.json {
        std::fs::write(path, serde_json::to_string_pretty(&results)?)?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}
