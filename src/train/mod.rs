//! Training: gold text → block labels, dataset assembly, domain-grouped
//! cross-validation, the final fit, and the model file's metadata.
//!
//! Everything learned from labels that becomes a feature (the id/class token
//! odds) is fitted out of fold: inside each training set, the odds of a page
//! come from the other inner folds' pages, so the ensemble never trains on
//! odds that saw its own rows.

pub mod adapt;
pub mod align;
pub mod cv;

use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

use linfa::prelude::*;
use ndarray::{s, Array1, Array2};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::blocks::{self, word_tokens, Blocks};
use crate::config::{CetrConfig, SelfTraining, TrainConfig};
use crate::corpus::{AnnotatedPage, Snippets};
use crate::error::{Error, Result};
use crate::eval::{prf_from_counts, Prf, SnippetCounts, SnippetReport, WordReport};
use crate::features::css::PageTokenStats;
use crate::features::site::{PageKeys, SiteIndex};
use crate::features::tree::ElementTree;
use crate::features::{stacking, CssOdds, FeatureSet, PageContext};
use crate::model::{Model, TrainingMeta};
use crate::par::prelude::*;
use crate::parse::{self, ParseLimits};

/// A training page turned into features, labels and scoring tables.
#[derive(Clone)]
pub struct PreparedPage {
    /// Page id.
    pub id: String,
    /// Site (fold group).
    pub domain: String,
    /// Page type.
    pub page_type: String,
    /// The corpus the page comes from.
    pub corpus: String,
    /// The page's language, when the corpus gives it.
    pub language: Option<String>,
    /// Weight of the page's training rows (its corpus's weight).
    pub weight: f32,
    /// The page's blocks.
    pub blocks: Blocks,
    /// Feature matrix (the id/class columns are filled per fold).
    pub features: Array2<f32>,
    /// Matched share of each block's tokens.
    pub shares: Vec<f32>,
    /// Label per block.
    pub labels: Vec<bool>,
    /// Whether each block's label is known: every block of a page with gold
    /// text; on a snippet page only the blocks a snippet decides (the
    /// others stay out of the training loss).
    pub known: Vec<bool>,
    /// Blocks whose label self-training gave ([`TrainConfig::self_training`]);
    /// empty when none did.
    pub pseudo: Vec<bool>,
    /// The snippets a partially labelled page is scored by (`None`: the
    /// page has gold text and is scored by word F1).
    pub snippets: Option<Snippets>,
    /// id/class token statistics for fitting odds.
    pub token_stats: PageTokenStats,
    /// Token ids and counts per block (page-local ids).
    block_tokens: Vec<Vec<(u32, u32)>>,
    /// Gold token counts, indexed by page-local token id.
    gold_counts: Vec<u32>,
    /// Total gold tokens.
    gold_total: u64,
    /// SHA-256 of the page's bytes and gold text.
    hash: [u8; 32],
}

impl PreparedPage {
    /// Word P/R/F1 of the page when the blocks in `keep` are extracted.
    pub fn score(&self, keep: impl Fn(usize) -> bool) -> Prf {
        // Dense counts over the page's own token ids: called thousands of
        // times while thresholds are chosen, so no hashing here.
        let mut pred = vec![0u32; self.gold_counts.len()];
        let (mut total, mut overlap) = (0u64, 0u64);
        for (i, toks) in self.block_tokens.iter().enumerate() {
            if self.blocks.blocks[i].words > 0 && keep(i) {
                for &(t, c) in toks {
                    let (t, gold) = (t as usize, self.gold_counts[t as usize]);
                    let before = pred[t];
                    pred[t] += c;
                    overlap += (pred[t].min(gold) - before.min(gold)) as u64;
                    total += c as u64;
                }
            }
        }
        prf_from_counts(overlap, total, self.gold_total)
    }

    /// Whether the page has gold text (scored by word F1) rather than
    /// snippets.
    pub fn has_gold_text(&self) -> bool {
        self.snippets.is_none()
    }

    /// Snippet counts of the page when the blocks in `keep` are extracted
    /// (one line per kept block, as the extractor writes them); zero
    /// counts for a page without snippets.
    pub fn snippet_counts(&self, keep: impl Fn(usize) -> bool) -> SnippetCounts {
        let mut counts = SnippetCounts::default();
        if let Some(sn) = &self.snippets {
            let mut text = String::new();
            for (i, b) in self.blocks.blocks.iter().enumerate() {
                if b.words > 0 && keep(i) {
                    text.push_str(&b.text);
                    text.push('\n');
                }
            }
            counts.add_page(&text, &sn.with, &sn.without);
        }
        counts
    }
}

/// Block labels from snippets: a block overlapping an occurrence of a
/// `without` snippet is chrome (every occurrence: any one kept would be a
/// false positive); the blocks of one occurrence of a `with` snippet are
/// content (of several occurrences, the one whose blocks hold the most
/// words, the first on ties). A block claimed by both, or by neither, stays
/// unknown. Snippets are matched on the blocks' whitespace-collapsed text
/// joined by spaces, as the snippet metric reads the extraction. Returns
/// (labels, known).
pub fn snippet_labels(blocks: &Blocks, snippets: &Snippets) -> (Vec<bool>, Vec<bool>) {
    let n = blocks.blocks.len();
    let mut text = String::new();
    let mut spans: Vec<(usize, usize, usize)> = Vec::new(); // (start, end, block)
    for (i, b) in blocks.blocks.iter().enumerate() {
        if b.words == 0 {
            continue;
        }
        if !text.is_empty() {
            text.push(' ');
        }
        let start = text.len();
        text.push_str(&crate::text::collapse_whitespace(&b.text));
        spans.push((start, text.len(), i));
    }
    let overlapping = |from: usize, to: usize| -> Vec<usize> {
        let first = spans.partition_point(|&(_, end, _)| end <= from);
        spans[first..]
            .iter()
            .take_while(|&&(start, _, _)| start < to)
            .map(|&(_, _, i)| i)
            .collect()
    };
    let mut content = vec![false; n];
    let mut chrome = vec![false; n];
    for s in &snippets.without {
        let s = crate::text::collapse_whitespace(s);
        if s.is_empty() {
            continue;
        }
        for (pos, _) in text.match_indices(s.as_str()) {
            for i in overlapping(pos, pos + s.len()) {
                chrome[i] = true;
            }
        }
    }
    for s in &snippets.with {
        let s = crate::text::collapse_whitespace(s);
        if s.is_empty() {
            continue;
        }
        let mut best: Option<(u64, Vec<usize>)> = None;
        for (pos, _) in text.match_indices(s.as_str()) {
            let ix = overlapping(pos, pos + s.len());
            let words: u64 = ix.iter().map(|&i| blocks.blocks[i].words as u64).sum();
            if best.as_ref().is_none_or(|(w, _)| words > *w) {
                best = Some((words, ix));
            }
        }
        for i in best.map(|(_, ix)| ix).unwrap_or_default() {
            content[i] = true;
        }
    }
    let labels = (0..n).map(|i| content[i] && !chrome[i]).collect();
    let known = (0..n).map(|i| content[i] != chrome[i]).collect();
    (labels, known)
}

/// Reads, parses, splits, featurises and labels one annotated page.
pub fn prepare_page(
    page: &AnnotatedPage,
    cfg: &TrainConfig,
    cetr: &CetrConfig,
) -> Result<PreparedPage> {
    let bytes = std::fs::read(&page.html_path).map_err(|e| Error::io(&page.html_path, e))?;
    let doc = parse::parse(&bytes, None, ParseLimits::default())?;
    let blocks = blocks::split(&doc);
    let empty = CssOdds::default();
    let ctx = PageContext::new(&blocks, cetr, &empty);
    // The site columns, if any, are filled once every page is read
    // (`add_site_columns`).
    let fs = FeatureSet::for_training(cfg);
    let mut features = fs.compute(&ctx);
    // Disabled columns are constant, so no tree can split on them; the
    // model still reads full rows at extraction time.
    for name in &cfg.disabled_features {
        if let Some(j) = fs.names().iter().position(|n| n == name) {
            features.column_mut(j).fill(0.0);
        }
    }
    let mut interner = align::Interner::default();
    let annotated = page
        .block_labels
        .as_ref()
        .filter(|l| page.snippets.is_none() && l.len() == blocks.blocks.len());
    let (shares, labels, known) = match (&page.snippets, annotated) {
        (None, Some(given)) => {
            // Labelled block by block (`dechrome annotate`) under this
            // splitter: no alignment needed.
            let labels: Vec<bool> = blocks
                .blocks
                .iter()
                .zip(given)
                .map(|(b, &l)| l && b.words > 0)
                .collect();
            let shares = labels.iter().map(|&l| if l { 1.0 } else { 0.0 }).collect();
            (shares, labels, vec![true; blocks.blocks.len()])
        }
        (None, None) => {
            let shares = align::matched_shares(
                blocks.blocks.iter().map(|b| b.text.as_str()),
                &page.gold,
                &mut interner,
            );
            let labels: Vec<bool> = blocks
                .blocks
                .iter()
                .zip(&shares)
                .map(|(b, &s)| b.words > 0 && s >= cfg.label_threshold && s > 0.0)
                .collect();
            (shares, labels, vec![true; blocks.blocks.len()])
        }
        (Some(sn), _) => {
            let (labels, known) = snippet_labels(&blocks, sn);
            let shares = labels.iter().map(|&l| if l { 1.0 } else { 0.0 }).collect();
            (shares, labels, known)
        }
    };
    let block_tokens = blocks
        .blocks
        .iter()
        .map(|b| {
            let mut m: HashMap<u32, u32> = HashMap::new();
            for t in word_tokens(&b.text) {
                *m.entry(interner.id(t)).or_insert(0) += 1;
            }
            let mut v: Vec<(u32, u32)> = m.into_iter().collect();
            v.sort_unstable();
            v
        })
        .collect();
    let gold_ids: Vec<u32> = word_tokens(&page.gold).map(|t| interner.id(t)).collect();
    let mut gold_counts = vec![0u32; interner.len()];
    for &t in &gold_ids {
        gold_counts[t as usize] += 1;
    }
    let gold_total = gold_ids.len() as u64;
    let token_stats = PageTokenStats::collect_known(&blocks, &labels, &known);
    let mut h = Sha256::new();
    h.update(page.id.as_bytes());
    h.update(&bytes);
    h.update(page.gold.as_bytes());
    if let Some(sn) = &page.snippets {
        for s in sn.with.iter().chain(&sn.without) {
            h.update(s.as_bytes());
        }
    }
    if let Some(given) = annotated {
        h.update(b"block_labels");
        h.update(given.iter().map(|&l| u8::from(l)).collect::<Vec<u8>>());
    }
    Ok(PreparedPage {
        id: page.id.clone(),
        domain: page.domain.clone(),
        page_type: page.page_type.clone(),
        corpus: page.corpus.clone(),
        language: page.language.clone(),
        weight: cfg.corpus_weights.get(&page.corpus).copied().unwrap_or(1.0),
        blocks,
        features,
        shares,
        labels,
        known,
        pseudo: Vec::new(),
        snippets: page.snippets.clone(),
        token_stats,
        block_tokens,
        gold_counts,
        gold_total,
        hash: h.finalize().into(),
    })
}

/// Reads training corpora, each in its own layout
/// ([`read_training_corpus`](crate::corpus::read_training_corpus)), into one
/// list. Two corpora may not share a name (their folders' names), since
/// weights and reports go by it.
pub fn read_corpora(dirs: &[std::path::PathBuf]) -> Result<Vec<AnnotatedPage>> {
    let mut names = std::collections::BTreeSet::new();
    let mut pages = Vec::new();
    for d in dirs {
        let name = crate::corpus::corpus_name(d);
        if !names.insert(name.clone()) {
            return Err(Error::Corpus(format!(
                "{}: a second corpus named {name}",
                d.display()
            )));
        }
        pages.extend(crate::corpus::read_training_corpus(d)?);
    }
    Ok(pages)
}

/// Prepares all pages in parallel. Pages that fail are returned as errors
/// beside the prepared ones, so one bad page does not stop training.
pub fn prepare_all(
    pages: &[AnnotatedPage],
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    progress: &(dyn Fn() + Sync),
) -> (Vec<PreparedPage>, Vec<(String, Error)>) {
    let results: Vec<Result<PreparedPage>> = pages
        .par_iter()
        .map(|p| {
            let r = prepare_page(p, cfg, cetr);
            progress();
            r
        })
        .collect();
    let mut ok = Vec::new();
    let mut failed = Vec::new();
    for (p, r) in pages.iter().zip(results) {
        match r {
            Ok(pp) => ok.push(pp),
            Err(e) => failed.push((p.id.clone(), e)),
        }
    }
    if cfg.site_context {
        add_site_columns(&mut ok);
    }
    (ok, failed)
}

/// Fills the site columns of prepared pages (trained with
/// [`TrainConfig::site_context`]): each block's recurrence across the other
/// pages of its domain. Folds group pages by domain, so these counts never
/// reach across folds, and they read no label.
pub fn add_site_columns(pages: &mut [PreparedPage]) {
    let Some(range) = FeatureSet::with_site().family_range("site") else {
        return;
    };
    let keys: Vec<PageKeys> = pages.par_iter().map(|p| PageKeys::of(&p.blocks)).collect();
    let mut index = SiteIndex::new();
    for (p, k) in pages.iter().zip(&keys) {
        index.add(&p.domain, k);
    }
    // Filling the columns is cheap: sequential (the wasm build has no
    // mutable parallel iterators).
    for (p, k) in pages.iter_mut().zip(&keys) {
        if p.features.ncols() < range.end {
            continue;
        }
        let rows = index.rows(&p.domain, k);
        for (i, r) in rows.rows.iter().enumerate() {
            for (j, &v) in r.iter().enumerate() {
                p.features[[i, range.start + j]] = v;
            }
        }
    }
}

/// Fills the id/class columns of `pages` with odds fitted out of fold:
/// pages in inner fold j get odds learned from the other inner folds.
/// Returns per page the id/class columns.
fn out_of_fold_css(
    pages: &[&PreparedPage],
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    seed: u64,
) -> Vec<Array2<f32>> {
    let domains: Vec<&str> = pages.iter().map(|p| p.domain.as_str()).collect();
    let inner = cv::assign_folds(&domains, cfg.inner_folds, seed);
    let tables: Vec<CssOdds> = (0..cfg.inner_folds)
        .map(|j| {
            CssOdds::fit(
                pages
                    .iter()
                    .zip(&inner)
                    .filter(|(_, &f)| f != j)
                    .map(|(p, _)| (p.domain.as_str(), &p.token_stats)),
                cfg.css_min_domains,
                cfg.css_smoothing,
            )
        })
        .collect();
    pages
        .iter()
        .zip(&inner)
        .map(|(p, &f)| css_columns(p, &tables[f], cetr))
        .collect()
}

fn fit_odds(pages: &[&PreparedPage], cfg: &TrainConfig) -> CssOdds {
    CssOdds::fit(
        pages.iter().map(|p| (p.domain.as_str(), &p.token_stats)),
        cfg.css_min_domains,
        cfg.css_smoothing,
    )
}

fn css_columns(p: &PreparedPage, odds: &CssOdds, cetr: &CetrConfig) -> Array2<f32> {
    let fs = FeatureSet::standard();
    let range = fs.family_range("css").expect("standard set has css");
    let mut m = Array2::zeros((p.blocks.blocks.len(), fs.len()));
    let ctx = PageContext::new(&p.blocks, cetr, odds);
    fs.recompute_family("css", &ctx, &mut m);
    m.slice(s![.., range]).to_owned()
}

/// Writes block `i`'s feature row: the page's features with the id/class
/// columns from `css`, and every column outside `active` (if given) zeroed,
/// which takes a feature family out of the model (a constant never splits).
fn fill_row(
    row: &mut [f32],
    page: &PreparedPage,
    i: usize,
    css: &Array2<f32>,
    active: Option<&[bool]>,
) {
    let start = FeatureSet::standard()
        .family_range("css")
        .expect("standard set has css")
        .start;
    for (dst, v) in row.iter_mut().zip(page.features.row(i)) {
        *dst = *v;
    }
    for (dst, v) in row[start..].iter_mut().zip(css.row(i)) {
        *dst = *v;
    }
    if let Some(active) = active {
        for (dst, on) in row.iter_mut().zip(active) {
            if !on {
                *dst = 0.0;
            }
        }
    }
}

/// The first-stage feature matrix of a page, with the id/class columns
/// from `css` and the columns outside `active` zeroed.
fn page_matrix(page: &PreparedPage, css: &Array2<f32>, active: Option<&[bool]>) -> Array2<f32> {
    let d = page.features.ncols();
    let mut m = Array2::<f32>::zeros((page.blocks.blocks.len(), d));
    for (i, mut row) in m.rows_mut().into_iter().enumerate() {
        fill_row(
            row.as_slice_mut().expect("standard layout"),
            page,
            i,
            css,
            active,
        );
    }
    m
}

/// The second-stage matrix of a page from its first-stage probabilities.
fn stacked_page_matrix(
    page: &PreparedPage,
    css: &Array2<f32>,
    active: Option<&[bool]>,
    probs: &[f32],
) -> Array2<f32> {
    let tree = ElementTree::build(&page.blocks);
    stacking::stacked_matrix(&page.blocks, &tree, &page_matrix(page, css, active), probs)
}

/// Training rows of `pages` (blocks with words) from each page's matrix
/// (`matrix(k)` for `pages[k]`, `d` columns). Returns features, labels and
/// weights.
/// Training rows: one per labelled block with words.
pub(crate) struct Rows {
    /// Features.
    pub x: Array2<f32>,
    /// Labels.
    pub y: Array1<bool>,
    /// Weights (tokens, page factor, corpus weight).
    pub w: Array1<f32>,
    /// Each row's page-size ratio, the pages' mean tokens over its page's:
    /// a bag member with another `page_weight_power` re-weights by it.
    pub page_ratio: Vec<f32>,
}

fn assemble(
    pages: &[&PreparedPage],
    d: usize,
    cfg: &TrainConfig,
    matrix: impl Fn(usize) -> Array2<f32>,
) -> Rows {
    let n: usize = pages
        .iter()
        .map(|p| {
            p.blocks
                .blocks
                .iter()
                .zip(&p.known)
                .filter(|(b, &k)| b.words > 0 && k)
                .count()
        })
        .sum();
    let mut x = Array2::<f32>::zeros((n, d));
    let mut y = Vec::with_capacity(n);
    let mut w = Vec::with_capacity(n);
    let mut page_ratio = Vec::with_capacity(n);
    let page_words: Vec<f64> = pages
        .iter()
        .map(|p| {
            p.blocks
                .blocks
                .iter()
                .map(|b| b.words as f64)
                .sum::<f64>()
                .max(1.0)
        })
        .collect();
    let mean_words = page_words.iter().sum::<f64>() / page_words.len().max(1) as f64;
    let pseudo_weight = cfg.self_training.as_ref().map_or(1.0, |st| st.weight);
    let mut r = 0;
    for (k, p) in pages.iter().enumerate() {
        let m = matrix(k);
        let ratio = (mean_words / page_words[k]) as f32;
        let page_factor = if cfg.page_weight_power == 0.0 {
            1.0
        } else {
            (mean_words / page_words[k]).powf(cfg.page_weight_power as f64) as f32
        };
        for (i, b) in p.blocks.blocks.iter().enumerate() {
            if b.words == 0 || !p.known[i] {
                continue;
            }
            x.row_mut(r).assign(&m.row(i));
            y.push(p.labels[i]);
            let base = if cfg.weight_by_tokens {
                b.words as f32
            } else {
                1.0
            };
            let pseudo = if p.pseudo.get(i) == Some(&true) {
                pseudo_weight
            } else {
                1.0
            };
            w.push(base * page_factor * p.weight * pseudo);
            page_ratio.push(ratio);
            r += 1;
        }
    }
    Rows {
        x,
        y: Array1::from(y),
        w: Array1::from(w),
        page_ratio,
    }
}

/// Probabilities of every block of a page's matrix (0 for blocks without
/// words, which are never content).
fn predict_matrix(
    predict: &dyn Fn(&[f32]) -> f32,
    page: &PreparedPage,
    m: &Array2<f32>,
) -> Vec<f32> {
    page.blocks
        .blocks
        .iter()
        .zip(m.rows())
        .map(|(b, row)| {
            if b.words == 0 {
                0.0
            } else {
                predict(row.as_slice().expect("standard layout"))
            }
        })
        .collect()
}

/// A fitted learner as a function from a feature row to a probability.
type Predictor = Box<dyn Fn(&[f32]) -> f32 + Send + Sync>;

/// Out-of-fold probabilities of the test pages of one fold, by page index.
type FoldPredictions = Vec<(usize, Vec<f32>)>;

/// What the learner is: the ensemble, or a single linfa-trees decision
/// tree (the reference baseline).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Learner {
    /// The gradient-boosted ensemble.
    Ensemble,
    /// linfa-trees `DecisionTree` (depth 8), probabilities 0 or 1.
    BaselineTree,
}

/// Which of the two stages a fit is for (they may have their own
/// ensemble parameters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    First,
    Second,
}

/// Fits the ensemble of `stage` with the run's seed; with a bag
/// ([`TrainConfig::bag`]), each member on the same rows with its own page
/// weighting and seed, averaged into one ensemble ([`Gbdt::average`]).
///
/// [`Gbdt::average`]: crate::model::Gbdt::average
fn fit_ensemble(cfg: &TrainConfig, stage: Stage, rows: Rows) -> Result<crate::model::Gbdt> {
    let mut ens = match stage {
        Stage::First => cfg.ensemble.clone(),
        Stage::Second => cfg.stage2_params().clone(),
    };
    ens.seed = cfg.seed;
    let Rows {
        x,
        y,
        w,
        page_ratio,
    } = rows;
    if cfg.bag.is_empty() {
        return ens.fit(&Dataset::new(x, y).with_weights(w));
    }
    let mut data = Dataset::new(x, y).with_weights(w.clone());
    let mut members = vec![ens.fit(&data)?];
    for m in &cfg.bag {
        let power = m.page_weight_power - cfg.page_weight_power;
        let wm: Array1<f32> = w
            .iter()
            .zip(&page_ratio)
            .map(|(&w, &r)| if power == 0.0 { w } else { w * r.powf(power) })
            .collect();
        data = data.with_weights(wm);
        let mut e = ens.clone();
        e.seed = cfg.seed.wrapping_add(m.seed_offset);
        members.push(e.fit(&data)?);
    }
    crate::model::Gbdt::average(&members)
        .ok_or_else(|| Error::Training("bag members read different columns".into()))
}

/// Fits `learner` on rows and returns a predictor of a row's probability.
fn fit_learner(learner: Learner, cfg: &TrainConfig, stage: Stage, rows: Rows) -> Result<Predictor> {
    match learner {
        Learner::Ensemble => {
            let model = fit_ensemble(cfg, stage, rows)?;
            Ok(Box::new(move |row: &[f32]| model.predict_row(row)))
        }
        Learner::BaselineTree => {
            let data = Dataset::new(rows.x, rows.y).with_weights(rows.w);
            let tree = linfa_trees::DecisionTree::params()
                .max_depth(Some(8))
                .fit(&data)
                .map_err(|e| Error::Training(e.to_string()))?;
            Ok(Box::new(move |row: &[f32]| {
                let a = Array2::from_shape_vec((1, row.len()), row.to_vec()).expect("one row");
                if tree.predict(&a)[0] {
                    1.0
                } else {
                    0.0
                }
            }))
        }
    }
}

/// Cross-validation results.
#[derive(Debug, Clone, Serialize)]
pub struct CvReport {
    /// Folds.
    pub folds: usize,
    /// Word P/R/F1 over all pages, each scored by the fold that held it out,
    /// at the threshold chosen on the other folds' out-of-fold predictions.
    pub word: WordReport,
    /// The first stage alone, scored the same way, when a second stage
    /// decides.
    pub stage1: Option<WordReport>,
    /// Threshold used for each fold.
    pub fold_thresholds: Vec<f32>,
    /// Word F1 with the gold block labels (the splitter's ceiling).
    pub oracle_f1: f64,
    /// The same out-of-fold decisions scored per corpus: word P/R/F1 (per
    /// page type) for corpora with gold text, snippet P/R/F1 for snippet
    /// corpora.
    pub corpora: std::collections::BTreeMap<String, CorpusScore>,
    /// Each page's out-of-fold score, in corpus order (not serialised into
    /// the model file; the metrics file lists them for error analysis).
    #[serde(skip)]
    pub pages: Vec<PageScore>,
    /// Seconds spent (not serialised: the model file must not depend on
    /// the machine's speed; the metrics file records timings apart).
    #[serde(skip)]
    pub seconds: f64,
}

/// One corpus's out-of-fold scores.
#[derive(Debug, Clone, Serialize)]
pub struct CorpusScore {
    /// Pages of the corpus.
    pub pages: usize,
    /// Word P/R/F1, overall and per page type (corpora with gold text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub word: Option<WordReport>,
    /// Snippet P/R/F1 over the corpus (snippet corpora).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snippets: Option<SnippetReport>,
    /// Word P/R/F1 per language group ([`language_group`](crate::corpus::language_group)),
    /// with page counts, for corpora that give each page's language.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub by_language: std::collections::BTreeMap<String, (usize, Prf)>,
}

impl CorpusScore {
    /// Groups page scores by corpus.
    pub fn by_corpus(pages: &[PageScore]) -> std::collections::BTreeMap<String, CorpusScore> {
        let mut groups: std::collections::BTreeMap<&str, Vec<&PageScore>> = Default::default();
        for p in pages {
            groups.entry(p.corpus.as_str()).or_default().push(p);
        }
        groups
            .into_iter()
            .map(|(name, ps)| {
                let words: Vec<(&str, Prf)> = ps
                    .iter()
                    .filter_map(|p| p.word.map(|w| (p.page_type.as_str(), w)))
                    .collect();
                let mut counts = SnippetCounts::default();
                let mut any_snippets = false;
                for c in ps.iter().filter_map(|p| p.snippets) {
                    counts.merge(c);
                    any_snippets = true;
                }
                let by_language = WordReport::from_scores(ps.iter().filter_map(|p| {
                    let lang = p.language.as_deref()?;
                    Some((crate::corpus::language_group(lang), p.word?))
                }))
                .by_type;
                let score = CorpusScore {
                    pages: ps.len(),
                    word: (!words.is_empty()).then(|| WordReport::from_scores(words)),
                    snippets: any_snippets.then(|| counts.report()),
                    by_language,
                };
                (name.to_string(), score)
            })
            .collect()
    }
}

/// One page's out-of-fold score.
#[derive(Debug, Clone, Serialize)]
pub struct PageScore {
    /// Page id.
    pub id: String,
    /// The corpus the page comes from.
    pub corpus: String,
    /// The page's language, when the corpus gives it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// Site.
    pub domain: String,
    /// Page type.
    pub page_type: String,
    /// The fold that held the page out.
    pub fold: usize,
    /// Word P/R/F1 of the page (pages with gold text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub word: Option<Prf>,
    /// Snippet counts of the page (snippet pages).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snippets: Option<SnippetCounts>,
}

/// A fitted first stage: the predictor and the id/class odds it reads.
struct Stage1 {
    predict: Predictor,
    odds: CssOdds,
    /// The id/class columns of the training pages, fitted out of fold.
    css_train: Vec<Array2<f32>>,
}

/// Fits the first stage on `train`. With `self_train` and
/// [`TrainConfig::self_training`] set, the stage is fitted again after the
/// snippet pages of `train` were relabelled by it: `relabelled[j]` then
/// replaces `train[j]` (see [`training_pages`]); else no page is
/// relabelled. The baseline tree is never self-trained.
fn fit_stage1(
    train: &[&PreparedPage],
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    learner: Learner,
    active: Option<&[bool]>,
    seed: u64,
    self_train: bool,
) -> Result<(Stage1, Vec<Option<PreparedPage>>)> {
    if learner == Learner::Ensemble && self_train && cfg.self_training.is_some() {
        let first = fit_first_ensemble(train, cfg, cetr, active, seed)?;
        let ensemble = first.ensemble;
        let stage1 = Stage1 {
            predict: Box::new(move |row: &[f32]| ensemble.predict_row(row)),
            odds: fit_odds(train, cfg),
            css_train: first.css,
        };
        return Ok((stage1, first.relabelled));
    }
    let (css_train, rows) = stage1_rows(train, cfg, cetr, active, seed);
    let stage1 = Stage1 {
        predict: fit_learner(learner, cfg, Stage::First, rows)?,
        odds: fit_odds(train, cfg),
        css_train,
    };
    Ok((stage1, Vec::new()))
}

/// A fitted first-stage ensemble and what it was fitted on.
struct FirstEnsemble {
    /// The id/class columns of the training pages, fitted out of fold.
    css: Vec<Array2<f32>>,
    ensemble: crate::model::Gbdt,
    /// Training rows of the (last) fit.
    rows: usize,
    /// The relabelled snippet pages of a self-trained fit (else empty).
    relabelled: Vec<Option<PreparedPage>>,
}

/// Fits the first-stage ensemble on `train`; with self-training
/// ([`TrainConfig::self_training`]) the snippet pages are relabelled by
/// the fitted ensemble ([`self_label`]) and it is fitted again. The id/class
/// columns stay those of the first fit: their odds learn from known labels
/// only.
fn fit_first_ensemble(
    train: &[&PreparedPage],
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    active: Option<&[bool]>,
    seed: u64,
) -> Result<FirstEnsemble> {
    let (css, rows) = stage1_rows(train, cfg, cetr, active, seed);
    let mut n = rows.x.nrows();
    let mut ensemble = fit_ensemble(cfg, Stage::First, rows)?;
    let relabelled = match &cfg.self_training {
        Some(st) => self_label(train, &|r| ensemble.predict_row(r), &css, st, active),
        None => Vec::new(),
    };
    if relabelled.iter().any(Option::is_some) {
        let pages = training_pages(train, &relabelled);
        let rows = first_stage_rows(&pages, &css, cfg, active);
        n = rows.x.nrows();
        ensemble = fit_ensemble(cfg, Stage::First, rows)?;
    }
    Ok(FirstEnsemble {
        css,
        ensemble,
        rows: n,
        relabelled,
    })
}

/// `train` with each page replaced by its relabelled copy where one exists.
fn training_pages<'a>(
    train: &[&'a PreparedPage],
    relabelled: &'a [Option<PreparedPage>],
) -> Vec<&'a PreparedPage> {
    train
        .iter()
        .enumerate()
        .map(|(j, p)| relabelled.get(j).and_then(Option::as_ref).unwrap_or(p))
        .collect()
}

/// Copies of the snippet pages of `train` in which every block no snippet
/// decides takes the label the fitted first stage gives it where the stage
/// is confident (probability at most `low` or at least `high`); `None` for
/// the pages with gold text, which keep their labels.
fn self_label(
    train: &[&PreparedPage],
    predict: &(dyn Fn(&[f32]) -> f32 + Sync),
    css_train: &[Array2<f32>],
    st: &SelfTraining,
    active: Option<&[bool]>,
) -> Vec<Option<PreparedPage>> {
    train
        .par_iter()
        .zip(css_train)
        .map(|(p, css)| {
            p.snippets.as_ref()?;
            let probs = predict_matrix(predict, p, &page_matrix(p, css, active));
            let mut q = (*p).clone();
            q.pseudo = vec![false; q.known.len()];
            for (i, &prob) in probs.iter().enumerate() {
                let sure = prob <= st.low || prob >= st.high;
                if !q.known[i] && q.blocks.blocks[i].words > 0 && sure {
                    q.known[i] = true;
                    q.labels[i] = prob >= st.high;
                    q.pseudo[i] = true;
                }
            }
            Some(q)
        })
        .collect()
}

/// The first stage's training rows of `train`: the id/class columns fitted
/// out of fold (inner folds seeded by `seed`), and the assembled features,
/// labels and weights.
fn stage1_rows(
    train: &[&PreparedPage],
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    active: Option<&[bool]>,
    seed: u64,
) -> (Vec<Array2<f32>>, Rows) {
    let css_train = out_of_fold_css(train, cfg, cetr, seed);
    let rows = first_stage_rows(train, &css_train, cfg, active);
    (css_train, rows)
}

/// The first stage's training rows of `pages`, whose id/class columns are
/// `css`.
fn first_stage_rows(
    pages: &[&PreparedPage],
    css: &[Array2<f32>],
    cfg: &TrainConfig,
    active: Option<&[bool]>,
) -> Rows {
    let d = FeatureSet::for_training(cfg).len();
    assemble(pages, d, cfg, |k| page_matrix(pages[k], &css[k], active))
}

/// First-stage probabilities of every block of `pages`, each page predicted
/// by a model fitted on the other folds (`folds[i]` in `0..k`).
fn out_of_fold_stage1(
    pages: &[&PreparedPage],
    folds: &[usize],
    k: usize,
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    active: Option<&[bool]>,
    seed: u64,
) -> Result<Vec<Vec<f32>>> {
    let per_fold: Vec<Result<FoldPredictions>> = (0..k)
        .into_par_iter()
        .map(|j| {
            let train: Vec<&PreparedPage> = pages
                .iter()
                .zip(folds)
                .filter(|(_, &f)| f != j)
                .map(|(p, _)| *p)
                .collect();
            // The pages are already relabelled when self-training: these
            // inner fits give the second stage its inputs and fit once.
            let (stage1, _) = fit_stage1(
                &train,
                cfg,
                cetr,
                Learner::Ensemble,
                active,
                seed ^ (j as u64 + 1),
                false,
            )?;
            Ok((0..pages.len())
                .filter(|&i| folds[i] == j)
                .map(|i| {
                    let css = css_columns(pages[i], &stage1.odds, cetr);
                    let m = page_matrix(pages[i], &css, active);
                    (i, predict_matrix(&*stage1.predict, pages[i], &m))
                })
                .collect())
        })
        .collect();
    let mut probs = vec![Vec::new(); pages.len()];
    for r in per_fold {
        for (i, p) in r? {
            probs[i] = p;
        }
    }
    Ok(probs)
}

/// Out-of-fold probabilities of every block of every page: the first
/// stage's, and the second stage's when `stacked` (else a copy of the
/// first). For the second stage of outer fold k, the training pages' first-
/// stage probabilities come from inner folds, so that stage learns from
/// probabilities as honest as those it will see on the held-out pages.
fn out_of_fold_probs(
    pages: &[PreparedPage],
    folds: &[usize],
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    learner: Learner,
    active: Option<&[bool]>,
    stacked: bool,
) -> Result<OutOfFold> {
    let fs = FeatureSet::for_training(cfg);
    let (d, d2) = (fs.len(), fs.stacked_names().len());
    type Both = Vec<(usize, Vec<f32>, Vec<f32>)>;
    let per_fold: Vec<Result<Both>> = (0..cfg.folds)
        .into_par_iter()
        .map(|k| {
            let train: Vec<&PreparedPage> = pages
                .iter()
                .zip(folds)
                .filter(|(_, &f)| f != k)
                .map(|(p, _)| p)
                .collect();
            let test: Vec<usize> = (0..pages.len()).filter(|&i| folds[i] == k).collect();
            let seed = cfg.seed ^ (k as u64 + 1);
            let (stage1, relabelled) = fit_stage1(&train, cfg, cetr, learner, active, seed, true)?;
            let train = training_pages(&train, &relabelled);
            let test_css: Vec<Array2<f32>> = test
                .iter()
                .map(|&i| css_columns(&pages[i], &stage1.odds, cetr))
                .collect();
            let p1: Vec<Vec<f32>> = test
                .iter()
                .zip(&test_css)
                .map(|(&i, css)| {
                    predict_matrix(
                        &*stage1.predict,
                        &pages[i],
                        &page_matrix(&pages[i], css, active),
                    )
                })
                .collect();
            if !stacked {
                return Ok(test
                    .into_iter()
                    .zip(p1)
                    .map(|(i, p)| (i, p.clone(), p))
                    .collect());
            }
            let domains: Vec<&str> = train.iter().map(|p| p.domain.as_str()).collect();
            let inner = cv::assign_folds(&domains, cfg.inner_folds, seed);
            let inner_probs =
                out_of_fold_stage1(&train, &inner, cfg.inner_folds, cfg, cetr, active, seed)?;
            let rows = assemble(&train, d2, cfg, |j| {
                stacked_page_matrix(train[j], &stage1.css_train[j], active, &inner_probs[j])
            });
            debug_assert!(d2 > d);
            let predict2 = fit_learner(learner, cfg, Stage::Second, rows)?;
            Ok(test
                .into_iter()
                .zip(test_css)
                .zip(p1)
                .map(|((i, css), p)| {
                    let m = stacked_page_matrix(&pages[i], &css, active, &p);
                    let p2 = predict_matrix(&*predict2, &pages[i], &m);
                    (i, p, p2)
                })
                .collect())
        })
        .collect();
    let mut probs1 = vec![Vec::new(); pages.len()];
    let mut probs2 = vec![Vec::new(); pages.len()];
    for r in per_fold {
        for (i, p1, p2) in r? {
            probs1[i] = p1;
            probs2[i] = p2;
        }
    }
    Ok(OutOfFold {
        stage1: probs1,
        last: probs2,
    })
}

/// Mean word F1 at threshold `t` over the pages of `idx`, each corpus
/// weighing the same: the mean over corpora of their pages' mean.
fn corpus_mean_f1(pages: &[PreparedPage], probs: &[Vec<f32>], idx: &[usize], t: f32) -> f64 {
    let mut by_corpus: BTreeMap<&str, (f64, usize)> = BTreeMap::new();
    for &i in idx {
        let e = by_corpus.entry(pages[i].corpus.as_str()).or_default();
        e.0 += pages[i].score(|b| probs[i][b] >= t).f1;
        e.1 += 1;
    }
    let n = by_corpus.len().max(1) as f64;
    by_corpus.values().map(|(s, k)| s / *k as f64).sum::<f64>() / n
}

/// The grid threshold with the best mean word F1 over the pages of `idx`
/// that have gold text, each corpus weighing the same (the first one on
/// ties, so the choice is deterministic). With one corpus this is the mean
/// over its pages; with several, a large corpus does not set the threshold
/// for the others (WCXB dev holds 1,497 of the 1,875 pages with gold text
/// of the shipped model's four corpora).
fn best_threshold(
    pages: &[PreparedPage],
    probs: &[Vec<f32>],
    idx: impl Iterator<Item = usize>,
    grid: &[f32],
) -> f32 {
    let idx: Vec<usize> = idx.filter(|&i| pages[i].has_gold_text()).collect();
    let scores: Vec<f64> = grid
        .par_iter()
        .map(|&t| corpus_mean_f1(pages, probs, &idx, t))
        .collect();
    let mut best = (f64::MIN, 0.5f32);
    for (&t, &f) in grid.iter().zip(&scores) {
        if f > best.0 {
            best = (f, t);
        }
    }
    best.1
}

/// Out-of-fold probabilities kept from cross-validation: the final model's
/// second stage trains on `stage1`, its threshold is chosen on `last`.
#[derive(Debug, Clone, Default)]
pub struct OutOfFold {
    /// First-stage probabilities, per page and block.
    pub stage1: Vec<Vec<f32>>,
    /// The probabilities that decide: the second stage's when stacked,
    /// else the first's.
    pub last: Vec<Vec<f32>>,
}

/// Checks a training configuration against this build: every field
/// ([`TrainConfig::check`]) and the disabled columns' names against the
/// standard feature schema ([`TrainConfig::check_columns`]).
pub fn check_config(cfg: &TrainConfig) -> Result<()> {
    cfg.check()?;
    cfg.check_columns(&FeatureSet::for_training(cfg).names())
}

/// A model trained by [`train_corpora`], with the cross-validation that
/// measured its configuration.
pub struct Trained {
    /// The model, fitted on every page.
    pub model: Model,
    /// Domain-grouped cross-validation over the same pages (per corpus,
    /// per page type, snippet scores out of fold).
    pub cv: CvReport,
    /// Pages that could not be prepared, with why (left out of training).
    pub skipped: Vec<(String, Error)>,
}

/// The whole training job over corpus folders, as `dechrome train` runs it
/// without its extras: read each corpus in its layout, prepare every page,
/// cross-validate by domain (with fewer folds when the pages have fewer
/// domains than `cfg.folds`, none for a single domain: see
/// [`feasible_folds`]), fit the final model. `progress` is called once
/// per prepared page. For bindings and programs that retrain.
pub fn train_corpora(
    dirs: &[std::path::PathBuf],
    cfg: &TrainConfig,
    progress: &(dyn Fn() + Sync),
) -> Result<Trained> {
    check_config(cfg)?;
    let cetr = CetrConfig::default();
    let pages = read_corpora(dirs)?;
    let (prepared, skipped) = prepare_all(&pages, cfg, &cetr, progress);
    if prepared.is_empty() {
        return Err(Error::Training("no page could be prepared".into()));
    }
    let (cv, oof) = match feasible_folds(&prepared, cfg) {
        0 => (no_cv_report(), OutOfFold::default()),
        k => {
            let cfg = TrainConfig {
                folds: k,
                ..cfg.clone()
            };
            cross_validate(&prepared, &cfg, &cetr, Learner::Ensemble)?
        }
    };
    let model = fit_final(&prepared, &oof, cfg, &cetr, &cv)?;
    Ok(Trained { model, cv, skipped })
}

/// Domain-grouped K-fold cross-validation. Each fold's threshold is chosen on
/// the other folds' out-of-fold predictions, never on the fold it scores.
pub fn cross_validate(
    pages: &[PreparedPage],
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    learner: Learner,
) -> Result<(CvReport, OutOfFold)> {
    let stacked = cfg.stacking && learner == Learner::Ensemble;
    cross_validate_masked(pages, cfg, cetr, learner, None, stacked)
}

/// One row of an ablation: the feature families in use and their CV result.
#[derive(Debug, Clone, Serialize)]
pub struct AblationRow {
    /// Row label (`ST`, `+IC`, ...).
    pub name: String,
    /// Feature families in use.
    pub families: Vec<String>,
    /// Whether the second stage (post-processing) is on.
    pub stacked: bool,
    /// Cross-validated word P/R/F1, overall and per page type.
    pub word: WordReport,
    /// Snippet P/R/F1 on a held-out snippet corpus (trafilatura-eval) of
    /// a model fitted on all pages with these families, when measured.
    pub snippets: Option<crate::eval::SnippetReport>,
    /// Which feature columns are on (all for the stacked row).
    #[serde(skip)]
    pub active: Vec<bool>,
    /// The row's out-of-fold probabilities (the final fit's threshold is
    /// chosen on them).
    #[serde(skip)]
    pub out_of_fold: Vec<Vec<f32>>,
}

/// The ablation sequence (Dragnet's table, extended): Kohlschütter shallow
/// text (ST), then id/class odds (IC), CETR, boilerpipe's other shallow
/// features and rules, DANAg, Gupta (Crunch), structure, and page context
/// with page-level features and repeated records, and Readability's pick,
/// each added in turn; the last row of the table adds the second stage
/// (post-processing).
pub const ABLATION_STEPS: [(&str, &[&str]); 9] = [
    ("ST", &["text"]),
    ("+IC", &["css"]),
    ("+CETR", &["cetr"]),
    ("+Boilerpipe", &["shallow"]),
    ("+DANAg", &["danag"]),
    ("+Gupta", &["gupta"]),
    ("+structure", &["structure"]),
    ("+context", &["context", "page"]),
    ("+Readability", &["readability"]),
];

/// Cross-validates with the feature families added one at a time (the
/// others zeroed), on the same folds, first stage only; then, if
/// `full` (the cross-validation of the complete model) is given and
/// stacked, appends it as the `+post-processing` row. Dragnet's ablation
/// table.
pub fn ablation(
    pages: &[PreparedPage],
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    full: Option<(&CvReport, &OutOfFold)>,
) -> Result<Vec<AblationRow>> {
    let fs = FeatureSet::for_training(cfg);
    let mut families: Vec<String> = Vec::new();
    let mut rows = Vec::new();
    for (name, added) in ABLATION_STEPS {
        families.extend(added.iter().map(|f| f.to_string()));
        let mut active = vec![false; fs.len()];
        for f in &families {
            let range = fs
                .family_range(f)
                .ok_or_else(|| Error::Training(format!("no feature family {f}")))?;
            for a in &mut active[range] {
                *a = true;
            }
        }
        let all = active.iter().all(|&a| a);
        let (word, out_of_fold) = match (all, full) {
            // All families on: the full model's first stage, already measured.
            (true, Some((f, oof))) if f.stage1.is_some() => (
                f.stage1.clone().unwrap_or_else(|| f.word.clone()),
                oof.stage1.clone(),
            ),
            _ => {
                let (cv, oof) = cross_validate_masked(
                    pages,
                    cfg,
                    cetr,
                    Learner::Ensemble,
                    Some(&active),
                    false,
                )?;
                (cv.word, oof.last)
            }
        };
        rows.push(AblationRow {
            name: name.to_string(),
            families: families.clone(),
            stacked: false,
            word,
            snippets: None,
            active,
            out_of_fold,
        });
    }
    if let Some((f, oof)) = full.filter(|(f, _)| f.stage1.is_some()) {
        rows.push(AblationRow {
            name: "+post-processing".to_string(),
            families: families.clone(),
            stacked: true,
            word: f.word.clone(),
            snippets: None,
            active: vec![true; fs.len()],
            out_of_fold: oof.last.clone(),
        });
    }
    Ok(rows)
}

/// Scores out-of-fold probabilities: each fold at the threshold chosen on
/// the other folds. Returns the report and the thresholds.
fn score_out_of_fold(
    pages: &[PreparedPage],
    folds: &[usize],
    probs: &[Vec<f32>],
    cfg: &TrainConfig,
    learner: Learner,
) -> (WordReport, Vec<f32>, Vec<PageScore>) {
    let mut fold_thresholds = Vec::new();
    let mut scores: Vec<(&str, Prf)> = Vec::new();
    let mut per_page = Vec::new();
    for k in 0..cfg.folds {
        let others = (0..pages.len()).filter(|&i| folds[i] != k);
        let t = if learner == Learner::Ensemble {
            best_threshold(pages, probs, others, &cfg.threshold_grid)
        } else {
            0.5
        };
        fold_thresholds.push(t);
        for i in (0..pages.len()).filter(|&i| folds[i] == k) {
            let p = &pages[i];
            let keep = |b: usize| probs[i][b] >= t;
            let (word, snippets) = if p.has_gold_text() {
                let word = p.score(keep);
                scores.push((p.page_type.as_str(), word));
                (Some(word), None)
            } else {
                (None, Some(p.snippet_counts(keep)))
            };
            per_page.push((
                i,
                PageScore {
                    id: p.id.clone(),
                    corpus: p.corpus.clone(),
                    language: p.language.clone(),
                    domain: p.domain.clone(),
                    page_type: p.page_type.clone(),
                    fold: k,
                    word,
                    snippets,
                },
            ));
        }
    }
    per_page.sort_by_key(|&(i, _)| i);
    let per_page = per_page.into_iter().map(|(_, s)| s).collect();
    (WordReport::from_scores(scores), fold_thresholds, per_page)
}

fn cross_validate_masked(
    pages: &[PreparedPage],
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    learner: Learner,
    active: Option<&[bool]>,
    stacked: bool,
) -> Result<(CvReport, OutOfFold)> {
    check_config(cfg)?;
    let start = Instant::now();
    let domains: Vec<&str> = pages.iter().map(|p| p.domain.as_str()).collect();
    let distinct: std::collections::BTreeSet<&str> = domains.iter().copied().collect();
    if distinct.len() < cfg.folds {
        return Err(Error::Training(format!(
            "{} domains cannot fill {} folds",
            distinct.len(),
            cfg.folds
        )));
    }
    let folds = cv::assign_folds(&domains, cfg.folds, cfg.seed);
    let oof = out_of_fold_probs(pages, &folds, cfg, cetr, learner, active, stacked)?;
    let (word, fold_thresholds, per_page) =
        score_out_of_fold(pages, &folds, &oof.last, cfg, learner);
    let stage1 = stacked.then(|| score_out_of_fold(pages, &folds, &oof.stage1, cfg, learner).0);
    let gold_pages = pages.iter().filter(|p| p.has_gold_text());
    let oracle_f1 = gold_pages
        .clone()
        .map(|p| p.score(|b| p.labels[b]).f1)
        .sum::<f64>()
        / gold_pages.count().max(1) as f64;
    Ok((
        CvReport {
            folds: cfg.folds,
            word,
            stage1,
            fold_thresholds,
            oracle_f1,
            corpora: CorpusScore::by_corpus(&per_page),
            pages: per_page,
            seconds: start.elapsed().as_secs_f64(),
        },
        oof,
    ))
}

/// Fits the final model on all pages; `oof` are the cross-validated
/// probabilities: the second stage trains on their first stage, and the
/// shipped threshold is chosen on the last.
pub fn fit_final(
    pages: &[PreparedPage],
    oof: &OutOfFold,
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    cv: &CvReport,
) -> Result<Model> {
    fit_final_masked(pages, oof, cfg, cetr, cv, None)
}

/// Fits the model of one ablation row on all pages: the row's feature
/// columns only (the others zeroed, so no tree splits on them and the
/// model reads full feature rows like any other), the second stage only
/// on the stacked row. The threshold is chosen on the row's out-of-fold
/// probabilities.
pub fn fit_ablation_row(
    pages: &[PreparedPage],
    row: &AblationRow,
    full: (&OutOfFold, &CvReport),
    cfg: &TrainConfig,
    cetr: &CetrConfig,
) -> Result<Model> {
    if row.stacked {
        return fit_final(pages, full.0, cfg, cetr, full.1);
    }
    let oof = OutOfFold {
        stage1: Vec::new(),
        last: row.out_of_fold.clone(),
    };
    let unstacked = TrainConfig {
        stacking: false,
        ..cfg.clone()
    };
    fit_final_masked(pages, &oof, &unstacked, cetr, full.1, Some(&row.active))
}

fn fit_final_masked(
    pages: &[PreparedPage],
    oof: &OutOfFold,
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    cv: &CvReport,
    active: Option<&[bool]>,
) -> Result<Model> {
    let all: Vec<&PreparedPage> = pages.iter().collect();
    let FirstEnsemble {
        css,
        ensemble,
        rows,
        relabelled,
    } = fit_first_ensemble(&all, cfg, cetr, active, cfg.seed)?;
    let fs = FeatureSet::for_training(cfg);
    let all = training_pages(&all, &relabelled);
    let stage2 = if cfg.stacking && oof.stage1.len() == pages.len() {
        let d2 = fs.stacked_names().len();
        let stacked = assemble(&all, d2, cfg, |k| {
            stacked_page_matrix(all[k], &css[k], None, &oof.stage1[k])
        });
        Some(fit_ensemble(cfg, Stage::Second, stacked)?)
    } else {
        None
    };
    // Without cross-validation (a corpus of one site) no out-of-fold
    // probabilities exist to choose the threshold on: 0.5, the logistic
    // loss's own boundary.
    let threshold = if oof.last.len() == pages.len() {
        best_threshold(pages, &oof.last, 0..pages.len(), &cfg.threshold_grid)
    } else {
        NO_CV_THRESHOLD
    };
    assemble_model(
        &all,
        Fitted {
            ensemble,
            stage2,
            css_odds: fit_odds(&all, cfg),
            threshold,
            rows,
        },
        cfg,
        cetr,
        serde_json::to_string(cv).unwrap_or_default(),
    )
}

/// The decision threshold of a model fitted without cross-validation.
pub const NO_CV_THRESHOLD: f32 = 0.5;

/// What a fit produced, before it becomes a [`Model`].
struct Fitted {
    ensemble: crate::model::Gbdt,
    stage2: Option<crate::model::Gbdt>,
    css_odds: CssOdds,
    threshold: f32,
    rows: usize,
}

/// A validated model from a fit on `pages`, with its provenance.
fn assemble_model(
    pages: &[&PreparedPage],
    fitted: Fitted,
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    metrics_json: String,
) -> Result<Model> {
    let fs = FeatureSet::for_training(cfg);
    let model = Model {
        schema: fs.names(),
        schema_hash: fs.schema_hash(),
        css_odds: fitted.css_odds,
        ensemble: fitted.ensemble,
        stage2: fitted.stage2,
        threshold: fitted.threshold,
        cetr: cetr.clone(),
        meta: TrainingMeta {
            dechrome_version: env!("CARGO_PKG_VERSION").to_string(),
            dataset_hash: dataset_hash(pages),
            pages: pages.len() as u64,
            blocks: fitted.rows as u64,
            seed: cfg.seed,
            train_config_json: serde_json::to_string(cfg).unwrap_or_default(),
            metrics_json,
        },
    };
    model.validate()?;
    Ok(model)
}

/// SHA-256 (hex) over the pages' own hashes (bytes, gold, labels), in order.
fn dataset_hash(pages: &[&PreparedPage]) -> String {
    let mut h = Sha256::new();
    for p in pages {
        h.update(p.hash);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// The number of cross-validation folds `pages` allow for `cfg`:
/// `cfg.folds`, or the number of distinct domains if fewer (a fold needs a
/// domain of its own); 0 (no cross-validation) below two domains, and,
/// when `cfg.stacking`, below three (the second stage's inner folds need
/// two domains in every training part).
pub fn feasible_folds(pages: &[PreparedPage], cfg: &TrainConfig) -> usize {
    let distinct: std::collections::BTreeSet<&str> =
        pages.iter().map(|p| p.domain.as_str()).collect();
    let least = if cfg.stacking { 3 } else { 2 };
    match cfg.folds.min(distinct.len()) {
        k if k < least => 0,
        k => k,
    }
}

/// A cross-validation report for a model fitted without one (no folds,
/// nothing scored).
pub fn no_cv_report() -> CvReport {
    CvReport {
        folds: 0,
        word: WordReport::default(),
        stage1: None,
        fold_thresholds: Vec::new(),
        oracle_f1: 0.0,
        corpora: Default::default(),
        pages: Vec::new(),
        seconds: 0.0,
    }
}

/// One single-stage model per cross-validation fold, each fitted on the
/// other folds' pages, as [`cross_validate`] fits them: the same folds,
/// seeds, out-of-fold id/class columns and thresholds (each fold's chosen
/// on the other folds' out-of-fold probabilities), kept as whole models
/// so that a held-out page can be scored, or a held-out site adapted to,
/// by a model that never saw its domain.
pub struct FoldModels {
    /// The fold of each page (pages of a domain share one).
    pub folds: Vec<usize>,
    /// The model of each fold (fitted without that fold's pages).
    pub models: Vec<Model>,
    /// The cross-validation these models make (equal to
    /// [`cross_validate`]'s with `stacking` off).
    pub cv: CvReport,
}

/// Fits [`FoldModels`] over `pages` (`cfg.stacking` must be off: the fold
/// models have one stage).
pub fn fold_models(
    pages: &[PreparedPage],
    cfg: &TrainConfig,
    cetr: &CetrConfig,
) -> Result<FoldModels> {
    check_config(cfg)?;
    if cfg.stacking {
        return Err(Error::Training(
            "fold models have one stage: set stacking to false".into(),
        ));
    }
    if feasible_folds(pages, cfg) != cfg.folds {
        return Err(Error::Training(format!(
            "the pages' domains cannot fill {} folds",
            cfg.folds
        )));
    }
    let start = Instant::now();
    let domains: Vec<&str> = pages.iter().map(|p| p.domain.as_str()).collect();
    let folds = cv::assign_folds(&domains, cfg.folds, cfg.seed);
    let fitted: Vec<Result<(Vec<&PreparedPage>, Fitted)>> = (0..cfg.folds)
        .into_par_iter()
        .map(|k| {
            let train: Vec<&PreparedPage> = pages
                .iter()
                .zip(&folds)
                .filter(|(_, &f)| f != k)
                .map(|(p, _)| p)
                .collect();
            let first = fit_first_ensemble(&train, cfg, cetr, None, cfg.seed ^ (k as u64 + 1))?;
            let (ensemble, rows) = (first.ensemble, first.rows);
            let css_odds = fit_odds(&train, cfg);
            Ok((
                train,
                Fitted {
                    ensemble,
                    stage2: None,
                    css_odds,
                    threshold: NO_CV_THRESHOLD,
                    rows,
                },
            ))
        })
        .collect();
    let fitted: Vec<(Vec<&PreparedPage>, Fitted)> = fitted.into_iter().collect::<Result<_>>()?;
    let probs: Vec<Vec<f32>> = pages
        .par_iter()
        .zip(&folds)
        .map(|(p, &f)| {
            let fit = &fitted[f].1;
            let css = css_columns(p, &fit.css_odds, cetr);
            let m = page_matrix(p, &css, None);
            predict_matrix(&|r: &[f32]| fit.ensemble.predict_row(r), p, &m)
        })
        .collect();
    let (word, fold_thresholds, per_page) =
        score_out_of_fold(pages, &folds, &probs, cfg, Learner::Ensemble);
    let cv = CvReport {
        folds: cfg.folds,
        word,
        stage1: None,
        fold_thresholds: fold_thresholds.clone(),
        oracle_f1: 0.0,
        corpora: CorpusScore::by_corpus(&per_page),
        pages: per_page,
        seconds: start.elapsed().as_secs_f64(),
    };
    let models = fitted
        .into_iter()
        .zip(&fold_thresholds)
        .map(|((train, mut fit), &t)| {
            fit.threshold = t;
            assemble_model(&train, fit, cfg, cetr, String::new())
        })
        .collect::<Result<Vec<Model>>>()?;
    Ok(FoldModels { folds, models, cv })
}

/// Fits a single-stage model on `pages` with a fixed decision `threshold`
/// and no cross-validation (each page weighs its [`PreparedPage::weight`]):
/// for experiments that refit a fold model with pages added.
pub fn fit_single_stage(
    pages: &[&PreparedPage],
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    seed: u64,
    threshold: f32,
) -> Result<Model> {
    check_config(cfg)?;
    let (_, stage1) = stage1_rows(pages, cfg, cetr, None, seed);
    let rows = stage1.x.nrows();
    let ensemble = fit_ensemble(cfg, Stage::First, stage1)?;
    let fitted = Fitted {
        ensemble,
        stage2: None,
        css_odds: fit_odds(pages, cfg),
        threshold,
        rows,
    };
    assemble_model(pages, fitted, cfg, cetr, String::new())
}

/// Predicts a prepared page's blocks with a finished model, both stages
/// (used by tests and analyses that hold prepared pages).
pub fn predict_prepared(model: &Model, page: &PreparedPage) -> Vec<f32> {
    let css = css_columns(page, &model.css_odds, &model.cetr);
    let m = page_matrix(page, &css, None);
    let p1 = predict_matrix(&|r: &[f32]| model.ensemble.predict_row(r), page, &m);
    match &model.stage2 {
        Some(s2) => {
            let m2 = stacked_page_matrix(page, &css, None, &p1);
            predict_matrix(&|r: &[f32]| s2.predict_row(r), page, &m2)
        }
        None => p1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn disabling(column: &str) -> TrainConfig {
        TrainConfig {
            disabled_features: vec![column.to_string()],
            ..TrainConfig::default()
        }
    }

    #[test]
    fn disabled_columns_are_checked_against_the_standard_schema() {
        assert!(check_config(&disabling("shallow.log_char_offset")).is_ok());
        for bad in ["no.such_column", "css.own_mean"] {
            match check_config(&disabling(bad)) {
                Err(Error::Config { field, .. }) => assert_eq!(field, "disabled_features"),
                other => panic!("expected a config error for {bad}, got {other:?}"),
            }
        }
    }
}
