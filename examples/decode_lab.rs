//! Decision rules and error analysis on WCXB dev's cross-validated
//! probabilities (the final stage's, out of fold, domain-grouped).
//!
//! ```sh
//! cargo run --release --example decode_lab -- CORPUS CACHE
//! ```
//!
//! The first run cross-validates (about 6 min on 2 cores) and caches the
//! out-of-fold probabilities in CACHE (JSON); later runs read them, so rules
//! are compared on the same draw without refitting. Delete CACHE after
//! changing features or training. Environment:
//! - `SEED=N`: the CV seed (folds and subsamples; 42 by default);
//! - `CONFIG=FILE`: a training configuration as JSON, as `train --config`;
//! - `DUMP=ID,ID`: print those pages' blocks (probability, gold label,
//!   words, text) instead of the scores;
//! - `ORACLE=1`: list the pages whose gold block labels reach a recall
//!   below 0.6 (gold text the page's HTML does not hold) instead;
//! - `STATS=1`: print the distribution of blocks with words per page.
//!
//! CACHE may list several caches, comma-separated: their probabilities are
//! averaged before the rules run. docs/experiments.md ("Bags and oracles")
//! explains why such an average of runs with different seeds overstates
//! what a bag would score.
//!
//! Each rule is printed for every parameter, then as a CV figure: each fold
//! at the parameter chosen on the other folds, as `train` chooses the
//! threshold. Rules: the threshold alone (what `train` scores); the
//! threshold with the default comment mode; the threshold with the CETR-KM
//! fallback, with a rank fallback, and with the short-page rank rule of
//! the selection stage (`dechrome::select`) (what `extract` outputs, before the comment mode);
//! and expected-F1 decoding. docs/experiments.md records what they
//! measured.

use std::path::PathBuf;

use dechrome::config::{CetrConfig, TrainConfig};
use dechrome::train::{cross_validate, cv, prepare_all, Learner, PreparedPage};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: decode_lab CORPUS CACHE";
    let corpus = PathBuf::from(args.next().ok_or(usage)?);
    let cache = PathBuf::from(args.next().ok_or(usage)?);
    let mut cfg: TrainConfig = match std::env::var("CONFIG") {
        Ok(path) => serde_json::from_slice(&std::fs::read(path)?)?,
        Err(_) => TrainConfig::default(),
    };
    if let Some(seed) = std::env::var("SEED").ok().and_then(|s| s.parse().ok()) {
        cfg.seed = seed;
    }
    let cetr = CetrConfig::default();
    let pages = dechrome::corpus::read_wcxb(&corpus)?;
    let (prepared, _) = prepare_all(&pages, &cfg, &cetr, &|| {});
    // CACHE may list several caches (comma-separated, e.g. runs with other
    // seeds): their probabilities are averaged (still out of fold: no run
    // saw the page's site; but see the module docs).
    let mut probs: Vec<Vec<f32>> = Vec::new();
    let caches: Vec<PathBuf> = cache
        .to_string_lossy()
        .split(',')
        .map(PathBuf::from)
        .collect();
    for cache in &caches {
        let run: Vec<Vec<f32>> = match std::fs::read(cache) {
            Ok(b) => serde_json::from_slice(&b)?,
            Err(_) => {
                let (_, oof) = cross_validate(&prepared, &cfg, &cetr, Learner::Ensemble)?;
                std::fs::write(cache, serde_json::to_vec(&oof.last)?)?;
                oof.last
            }
        };
        if probs.is_empty() {
            probs = run;
        } else if run.len() == probs.len() {
            for (acc, r) in probs.iter_mut().zip(&run) {
                for (a, x) in acc.iter_mut().zip(r) {
                    *a += x;
                }
            }
        } else {
            return Err(format!("{} holds another corpus", cache.display()).into());
        }
    }
    let n = caches.len() as f32;
    for pr in &mut probs {
        for x in pr.iter_mut() {
            *x /= n;
        }
    }
    if probs.len() != prepared.len() {
        return Err(format!("{} holds another corpus or feature set", cache.display()).into());
    }
    if std::env::var("STATS").is_ok() {
        // Blocks with words per page: the page sizes the model was trained on.
        let mut n: Vec<usize> = prepared
            .iter()
            .map(|p| p.blocks.blocks.iter().filter(|b| b.words > 0).count())
            .collect();
        n.sort_unstable();
        let q = |f: f64| n[((n.len() - 1) as f64 * f) as usize];
        println!(
            "blocks with words per page: min {} p1 {} p5 {} median {} max {}",
            q(0.0),
            q(0.01),
            q(0.05),
            q(0.5),
            q(1.0)
        );
        return Ok(());
    }
    if std::env::var("ORACLE").is_ok() {
        for p in &prepared {
            let o = p.score(|b| p.labels[b]);
            if o.recall < 0.6 {
                println!(
                    "{} {} {} oracle P {:.2} R {:.2}",
                    p.id, p.page_type, p.domain, o.precision, o.recall
                );
            }
        }
        return Ok(());
    }
    if let Ok(ids) = std::env::var("DUMP") {
        for id in ids.split(',') {
            if let Some(i) = prepared.iter().position(|p| p.id == id) {
                dump(&prepared[i], &probs[i]);
            }
        }
        return Ok(());
    }
    let domains: Vec<&str> = prepared.iter().map(|p| p.domain.as_str()).collect();
    let folds = cv::assign_folds(&domains, cfg.folds, cfg.seed);
    let lab = Lab {
        pages: &prepared,
        probs: &probs,
        folds: &folds,
        k: cfg.folds,
    };
    let grid = cfg.threshold_grid.clone();
    lab.report("threshold", &grid, |p, pr, &t| {
        (0..p.blocks.blocks.len()).map(|b| pr[b] >= t).collect()
    });
    lab.report("threshold+comments", &grid, |p, pr, &t| {
        let mut kept: Vec<bool> = (0..p.blocks.blocks.len()).map(|b| pr[b] >= t).collect();
        let mode = dechrome::config::ExtractorConfig::default().comments;
        let share = dechrome::model::LearnedSelection::default().comments_main_share;
        dechrome::select::apply_comment_mode(
            mode,
            &p.blocks,
            &mut kept,
            f64::from(share),
            false,
            &[],
        );
        kept
    });
    // What to output when the forest keeps no block of a page that has words.
    let classic_cfg = dechrome::config::ClassicConfig::default();
    let forest = |p: &PreparedPage, pr: &[f32], t: f32| -> Vec<bool> {
        (0..p.blocks.blocks.len()).map(|b| pr[b] >= t).collect()
    };
    let kept_none = |p: &PreparedPage, keep: &[bool]| {
        let words = p.blocks.blocks.iter().any(|b| b.words > 0);
        words && !keep.iter().any(|&k| k)
    };
    lab.report("threshold+km-fallback", &grid, |p, pr, &t| {
        let keep = forest(p, pr, t);
        let margin = dechrome::ExtractorConfig::default().fallback_margin;
        let all_near = word_probs(p, pr).all(|x| (x - t).abs() < margin);
        if kept_none(p, &keep) || (all_near && p.blocks.blocks.iter().any(|b| b.words > 0)) {
            dechrome::model::classic::decide(
                dechrome::model::classic::Classic::CetrKmeans,
                &p.blocks,
                &cetr,
                &classic_cfg,
            )
        } else {
            keep
        }
    });
    // Rank fallback: keep the blocks within a ratio r of the page's best
    // probability, if that best reaches the floor f (r = 2: never).
    let mut rank_params = Vec::new();
    for &t in &grid {
        for r in [2.0f32, 0.9, 0.75, 0.5] {
            for f in [0.0f32, 0.1, 0.2] {
                rank_params.push((t, r, f));
            }
        }
    }
    lab.report(
        "threshold+rank-fallback",
        &rank_params,
        |p, pr, &(t, r, f)| {
            let keep = forest(p, pr, t);
            if !kept_none(p, &keep) {
                return keep;
            }
            let best = word_probs(p, pr).fold(0.0f32, f32::max);
            if best < f {
                return keep;
            }
            (0..p.blocks.blocks.len())
                .map(|b| p.blocks.blocks[b].words > 0 && pr[b] >= r * best)
                .collect()
        },
    );
    // Short-page rank rule: on a page with fewer than n blocks with words
    // where the forest keeps nothing, keep the blocks within half of the
    // page's best probability (n = 0: never).
    let mut short_params = Vec::new();
    for &t in &grid {
        for n in [0usize, 6, 10, 20] {
            short_params.push((t, n));
        }
    }
    lab.report("threshold+short-rank", &short_params, |p, pr, &(t, n)| {
        let keep = forest(p, pr, t);
        let with_words = p.blocks.blocks.iter().filter(|b| b.words > 0).count();
        if !kept_none(p, &keep) || with_words >= n {
            return keep;
        }
        let best = word_probs(p, pr).fold(0.0f32, f32::max);
        (0..p.blocks.blocks.len())
            .map(|b| p.blocks.blocks[b].words > 0 && pr[b] >= 0.5 * best)
            .collect()
    });
    let gammas = [0.6f32, 0.8, 1.0, 1.2, 1.5, 2.0];
    lab.report("expected-F1", &gammas, |p, pr, &g| expected_f1(p, pr, g));
    Ok(())
}

/// The probabilities of the page's blocks with words.
fn word_probs<'a>(p: &'a PreparedPage, pr: &'a [f32]) -> impl Iterator<Item = f32> + 'a {
    p.blocks
        .blocks
        .iter()
        .zip(pr)
        .filter(|(b, _)| b.words > 0)
        .map(|(_, &x)| x)
}

fn dump(p: &PreparedPage, probs: &[f32]) {
    println!("== {} {} {}", p.id, p.page_type, p.domain);
    for (b, blk) in p.blocks.blocks.iter().enumerate() {
        if blk.words > 0 {
            let text: String = blk.text.chars().take(90).collect();
            let gold = if p.labels[b] { "G" } else { "." };
            let text = text.replace('\n', " ");
            println!("{:.2} {gold} {:4} {text}", probs[b], blk.words);
        }
    }
}

/// Expected-F1 prefix decoding: blocks sorted by probability, keep the
/// prefix that maximises 2·Σ_S p·w / (Σ_S w + Σ p·w).
fn expected_f1(p: &PreparedPage, pr: &[f32], gamma: f32) -> Vec<bool> {
    let blocks = &p.blocks.blocks;
    let q: Vec<f64> = pr.iter().map(|&x| (x as f64).powf(gamma as f64)).collect();
    let mut order: Vec<usize> = (0..blocks.len()).filter(|&b| blocks[b].words > 0).collect();
    order.sort_by(|&a, &b| q[b].total_cmp(&q[a]).then(a.cmp(&b)));
    let expected_gold: f64 = order.iter().map(|&b| q[b] * blocks[b].words as f64).sum();
    let (mut num, mut den) = (0.0, expected_gold);
    let (mut best, mut best_k) = (0.0, 0);
    for (k, &b) in order.iter().enumerate() {
        num += q[b] * blocks[b].words as f64;
        den += blocks[b].words as f64;
        let f = 2.0 * num / den.max(1e-9);
        if f > best {
            best = f;
            best_k = k + 1;
        }
    }
    let mut keep = vec![false; blocks.len()];
    for &b in &order[..best_k] {
        keep[b] = true;
    }
    keep
}

/// Out-of-fold probabilities with their pages and folds.
struct Lab<'a> {
    pages: &'a [PreparedPage],
    probs: &'a [Vec<f32>],
    folds: &'a [usize],
    k: usize,
}

impl Lab<'_> {
    /// Prints mean P/R/F1 of `rule` at every parameter, then the CV figure:
    /// each fold at the parameter with the best mean F1 on the other folds
    /// (the first on ties), overall and per page type.
    fn report<P: std::fmt::Debug>(
        &self,
        name: &str,
        params: &[P],
        rule: impl Fn(&PreparedPage, &[f32], &P) -> Vec<bool>,
    ) {
        let table: Vec<Vec<(f64, f64, f64)>> = params
            .iter()
            .map(|prm| {
                self.pages
                    .iter()
                    .zip(self.probs)
                    .map(|(p, pr)| {
                        let keep = rule(p, pr, prm);
                        let s = p.score(|b| keep[b]);
                        (s.precision, s.recall, s.f1)
                    })
                    .collect()
            })
            .collect();
        for (prm, row) in params.iter().zip(&table) {
            let n = row.len().max(1) as f64;
            let mean = |f: fn(&(f64, f64, f64)) -> f64| row.iter().map(f).sum::<f64>() / n;
            println!(
                "{name} {prm:?}: F1 {:.4} P {:.4} R {:.4}",
                mean(|r| r.2),
                mean(|r| r.0),
                mean(|r| r.1)
            );
        }
        let mut total = 0.0;
        let mut by_type: std::collections::BTreeMap<&str, (f64, usize)> = Default::default();
        for fold in 0..self.k {
            let others: Vec<usize> = (0..self.pages.len())
                .filter(|&i| self.folds[i] != fold)
                .collect();
            let mean = |j: usize| others.iter().map(|&i| table[j][i].2).sum::<f64>();
            let mut best = 0;
            for j in 1..params.len() {
                if mean(j) > mean(best) {
                    best = j;
                }
            }
            for i in (0..self.pages.len()).filter(|&i| self.folds[i] == fold) {
                total += table[best][i].2;
                let e = by_type.entry(self.pages[i].page_type.as_str()).or_default();
                e.0 += table[best][i].2;
                e.1 += 1;
            }
        }
        print!("{name} CV: {:.4} |", total / self.pages.len().max(1) as f64);
        for (t, (s, n)) in by_type {
            print!(" {t} {:.3}", s / n as f64);
        }
        println!();
    }
}
