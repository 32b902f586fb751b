//! The cross-validation report: overall, per corpus, per page type and
//! language, and per page.

use std::time::Instant;

use serde::Serialize;

use super::confidence::ConfidenceReport;
use super::cross_validation::FoldScores;
use super::length_report::LengthBand;
use super::page_type::PageTypeReport;
use super::selection::SelectionEvidence;
use crate::eval::{Prf, SnippetCounts, SnippetReport, WordReport};
use crate::model::LearnedSelection;

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
    /// Threshold used for each fold, chosen on the other folds.
    pub fold_thresholds: Vec<f32>,
    /// The learned selection constants used for each fold, chosen with
    /// its threshold.
    pub fold_selection: Vec<LearnedSelection>,
    /// The final model's choice over every page's out-of-fold
    /// probabilities, with its evidence (none without cross-validation).
    pub selection: Option<SelectionEvidence>,
    /// Word F1 with the gold block labels (the splitter's ceiling).
    pub oracle_f1: f64,
    /// The same out-of-fold decisions scored per corpus: word P/R/F1 (per
    /// page type) for corpora with gold text, snippet P/R/F1 for snippet
    /// corpora.
    pub corpora: std::collections::BTreeMap<String, CorpusScore>,
    /// The page-type classifier's out-of-fold accuracy and confusion
    /// table (absent without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_type: Option<PageTypeReport>,
    /// The confidence model's out-of-fold quality beside the baseline's
    /// (absent without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<ConfidenceReport>,
    /// F1 and the gold kept per third of the page, per band of gold length
    /// ([`super::length_report`]).
    pub by_length: std::collections::BTreeMap<String, LengthBand>,
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
    /// Word P/R/F1 of the article pages with a comment region (the comment
    /// detector's, [`crate::blocks::comments`]), with their count: where a
    /// thread kept under an article costs precision.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub articles_with_comments: Option<(usize, Prf)>,
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
                let commented = WordReport::from_scores(
                    ps.iter()
                        .filter(|p| p.page_type == "article" && p.comment_region)
                        .filter_map(|p| Some(("", p.word?))),
                );
                let score = CorpusScore {
                    pages: ps.len(),
                    word: (!words.is_empty()).then(|| WordReport::from_scores(words)),
                    snippets: any_snippets.then(|| counts.report()),
                    by_language,
                    articles_with_comments: (commented.pages > 0)
                        .then_some((commented.pages, commented.overall)),
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
    /// The page type the fold's page-type classifier predicted (absent
    /// without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predicted_type: Option<String>,
    /// The fold that held the page out.
    pub fold: usize,
    /// Whether a block of the page lies in a comment region.
    pub comment_region: bool,
    /// Word P/R/F1 of the page (pages with gold text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub word: Option<Prf>,
    /// Snippet counts of the page (snippet pages).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snippets: Option<SnippetCounts>,
    /// The page's confidence as its fold's confidence model estimates it
    /// (absent without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f32>,
    /// The word-weighted mean probability of the kept blocks (the
    /// baseline confidence).
    pub mean_kept_probability: f32,
    /// Which of the page's blocks the selection stage kept, as
    /// `Extractor` with the fold's model keeps them (not serialised).
    #[serde(skip)]
    pub kept: Vec<bool>,
}

/// A cross-validation report for a model fitted without one (no folds,
/// nothing scored).
pub fn no_cv_report() -> CvReport {
    CvReport {
        folds: 0,
        word: WordReport::default(),
        stage1: None,
        fold_thresholds: Vec::new(),
        fold_selection: Vec::new(),
        selection: None,
        oracle_f1: 0.0,
        corpora: Default::default(),
        page_type: None,
        confidence: None,
        by_length: Default::default(),
        pages: Vec::new(),
        seconds: 0.0,
    }
}

impl CvReport {
    /// The folds as TSV: a header, then one line per page (id, domain,
    /// page type, fold).
    pub fn splits_tsv(&self) -> String {
        let mut tsv = String::from("id\tdomain\tpage_type\tfold\n");
        for p in &self.pages {
            tsv.push_str(&format!(
                "{}\t{}\t{}\t{}\n",
                p.id, p.domain, p.page_type, p.fold
            ));
        }
        tsv
    }

    /// The report of `folds` scored folds, timed from `start` (no first-stage
    /// report or oracle: the caller adds them).
    pub(super) fn new(folds: usize, scored: FoldScores, start: Instant) -> CvReport {
        CvReport {
            folds,
            word: scored.word,
            stage1: None,
            fold_thresholds: scored.choices.iter().map(|c| c.threshold).collect(),
            fold_selection: scored.choices.iter().map(|c| c.learned).collect(),
            selection: Some(scored.evidence),
            oracle_f1: 0.0,
            corpora: CorpusScore::by_corpus(&scored.pages),
            page_type: None,
            confidence: None,
            by_length: scored.by_length,
            pages: scored.pages,
            seconds: start.elapsed().as_secs_f64(),
        }
    }
}
