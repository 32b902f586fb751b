//! Page preparation: an annotated page read, parsed, split, featurised
//! and labelled (from gold text, block labels or snippets), with the
//! tables that score a selection of its blocks.

use std::collections::HashMap;

use ndarray::Array2;
use sha2::{Digest, Sha256};

use super::align;
use crate::blocks::{self, word_tokens, Blocks};
use crate::config::{CetrConfig, TrainConfig};
use crate::corpus::{AnnotatedPage, Snippets};
use crate::error::{CorpusError, Error, Result};
use crate::eval::{prf_from_counts, Prf, SnippetCounts};
use crate::features::css::PageTokenStats;
use crate::features::page_signals::page_signals;
use crate::features::site::{PageKeys, SiteIndex};
use crate::features::{CssOdds, FeatureSet, PageContext};
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
    /// The page-level signals the page-type classifier reads
    /// ([`crate::features::page_signals`]).
    pub signals: Vec<f32>,
    /// Token ids and counts per block (page-local ids).
    pub(super) block_tokens: Vec<Vec<(u32, u32)>>,
    /// Gold token counts, indexed by page-local token id.
    pub(super) gold_counts: Vec<u32>,
    /// Total gold tokens.
    pub(super) gold_total: u64,
    /// SHA-256 of the page's bytes and gold text.
    pub(super) hash: [u8; 32],
}

impl PreparedPage {
    /// Words of the page's gold text (0 for a snippet page).
    pub fn gold_words(&self) -> u64 {
        self.gold_total
    }

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

    /// The page's training rows: its blocks with words whose label is
    /// known.
    pub fn labelled_rows(&self) -> usize {
        self.blocks
            .blocks
            .iter()
            .zip(&self.known)
            .filter(|(b, &k)| b.words > 0 && k)
            .count()
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
    prepare(page, cfg, cetr, false)
}

/// What a class-free copy's corpus name adds to its page's
/// ([`TrainConfig::class_free_copies`]): `wcxb-dev/no-classes`.
pub const CLASS_FREE_SUFFIX: &str = "/no-classes";

/// [`prepare_page`], or with `class_free` the page with every `class` and
/// `id` attribute removed, reported under its corpus's name plus
/// [`CLASS_FREE_SUFFIX`] and weighing what that name is given in
/// [`TrainConfig::corpus_weights`], else what its corpus weighs.
fn prepare(
    page: &AnnotatedPage,
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    class_free: bool,
) -> Result<PreparedPage> {
    let bytes = std::fs::read(&page.html_path).map_err(|e| Error::io(&page.html_path, e))?;
    let mut doc = parse::parse(&bytes, None, ParseLimits::default())?;
    if class_free {
        doc.dom.remove_class_and_id();
    }
    let blocks = blocks::split(&doc);
    let signals = page_signals(&doc, &blocks, &crate::metadata::extract(&doc));
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
    h.update(page.page_type.as_bytes());
    if let Some(sn) = &page.snippets {
        for s in sn.with.iter().chain(&sn.without) {
            h.update(s.as_bytes());
        }
    }
    if let Some(given) = annotated {
        h.update(b"block_labels");
        h.update(given.iter().map(|&l| u8::from(l)).collect::<Vec<u8>>());
    }
    let corpus = if class_free {
        h.update(CLASS_FREE_SUFFIX.as_bytes());
        format!("{}{CLASS_FREE_SUFFIX}", page.corpus)
    } else {
        page.corpus.clone()
    };
    // A copy weighs what its own name is given, else its corpus's weight.
    let weight = [&corpus, &page.corpus]
        .into_iter()
        .find_map(|name| cfg.corpus_weights.get(name))
        .copied()
        .unwrap_or(1.0);
    Ok(PreparedPage {
        id: page.id.clone(),
        domain: page.domain.clone(),
        page_type: page.page_type.clone(),
        corpus,
        language: page.language.clone(),
        weight,
        blocks,
        features,
        shares,
        labels,
        known,
        pseudo: Vec::new(),
        snippets: page.snippets.clone(),
        token_stats,
        signals,
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
            return Err(CorpusError::DuplicateName {
                path: d.clone(),
                name,
            }
            .into());
        }
        pages.extend(crate::corpus::read_training_corpus(d)?);
    }
    Ok(pages)
}

/// Prepares all pages in parallel, each followed by its class-free copy
/// when [`TrainConfig::class_free_copies`] asks for them. Pages that fail
/// are returned as errors beside the prepared ones, so one bad page does
/// not stop training.
pub fn prepare_all(
    pages: &[AnnotatedPage],
    cfg: &TrainConfig,
    cetr: &CetrConfig,
    progress: &(dyn Fn() + Sync),
) -> (Vec<PreparedPage>, Vec<(String, Error)>) {
    let versions: &[bool] = if cfg.class_free_copies {
        &[false, true]
    } else {
        &[false]
    };
    let results: Vec<Vec<Result<PreparedPage>>> = pages
        .par_iter()
        .map(|p| {
            let r = versions
                .iter()
                .map(|&class_free| prepare(p, cfg, cetr, class_free))
                .collect();
            progress();
            r
        })
        .collect();
    let mut ok = Vec::new();
    let mut failed = Vec::new();
    for (p, rs) in pages.iter().zip(results) {
        for r in rs {
            match r {
                Ok(pp) => ok.push(pp),
                Err(e) => failed.push((p.id.clone(), e)),
            }
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
