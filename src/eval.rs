//! Metrics exactly as `../shared/corpora/README.md` defines them: word
//! P/R/F1 against gold text (WCXB) and snippet P/R/F1 (trafilatura-eval).

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use crate::blocks::word_tokens;

/// Precision, recall and F1 of one page or their means over pages.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Prf {
    /// Precision.
    pub precision: f64,
    /// Recall.
    pub recall: f64,
    /// F1.
    pub f1: f64,
}

/// Lower-cased `\w+` token counts of a text.
pub fn token_counts(text: &str) -> HashMap<String, u32> {
    let mut m = HashMap::new();
    for t in word_tokens(text) {
        *m.entry(t).or_insert(0) += 1;
    }
    m
}

/// Word P/R/F1 from the overlap and the two token totals: both empty scores
/// 1, one empty side scores F1 0.
pub fn prf_from_counts(overlap: u64, predicted: u64, gold: u64) -> Prf {
    if predicted == 0 && gold == 0 {
        return Prf {
            precision: 1.0,
            recall: 1.0,
            f1: 1.0,
        };
    }
    if predicted == 0 || gold == 0 {
        return Prf {
            precision: if predicted > 0 { 0.0 } else { 1.0 },
            recall: if gold > 0 { 0.0 } else { 1.0 },
            f1: 0.0,
        };
    }
    let p = overlap as f64 / predicted as f64;
    let r = overlap as f64 / gold as f64;
    let f1 = if p + r > 0.0 {
        2.0 * p * r / (p + r)
    } else {
        0.0
    };
    Prf {
        precision: p,
        recall: r,
        f1,
    }
}

/// WCXB word P/R/F1 of one page: multisets of lower-cased `\w+` tokens.
pub fn word_prf(predicted: &str, gold: &str) -> Prf {
    let p = token_counts(predicted);
    let g = token_counts(gold);
    let overlap: u64 = p
        .iter()
        .map(|(t, &c)| c.min(*g.get(t).unwrap_or(&0)) as u64)
        .sum();
    prf_from_counts(
        overlap,
        p.values().map(|&c| c as u64).sum(),
        g.values().map(|&c| c as u64).sum(),
    )
}

/// Mean P/R/F1 over pages, overall and per group (page type).
#[derive(Debug, Clone, Default, Serialize)]
pub struct WordReport {
    /// Pages scored.
    pub pages: usize,
    /// Means over all pages.
    pub overall: Prf,
    /// Means per group: (pages, means).
    pub by_type: BTreeMap<String, (usize, Prf)>,
}

impl WordReport {
    /// Aggregates `(group, page score)` pairs.
    pub fn from_scores<'a>(scores: impl IntoIterator<Item = (&'a str, Prf)>) -> Self {
        let mut sums: BTreeMap<String, (usize, Prf)> = BTreeMap::new();
        let (mut n, mut all) = (0usize, Prf::default());
        for (group, s) in scores {
            n += 1;
            add(&mut all, s);
            let e = sums.entry(group.to_string()).or_default();
            e.0 += 1;
            add(&mut e.1, s);
        }
        let mean = |s: Prf, k: usize| Prf {
            precision: s.precision / k.max(1) as f64,
            recall: s.recall / k.max(1) as f64,
            f1: s.f1 / k.max(1) as f64,
        };
        WordReport {
            pages: n,
            overall: mean(all, n),
            by_type: sums
                .into_iter()
                .map(|(k, (c, s))| (k, (c, mean(s, c))))
                .collect(),
        }
    }

    /// A plain-text table: one line overall, one per type.
    pub fn table(&self) -> String {
        let mut out = format!(
            "{:<14} {:>6} {:>7} {:>7} {:>7}\n",
            "page type", "pages", "P", "R", "F1"
        );
        let line = |name: &str, n: usize, p: &Prf| {
            format!(
                "{:<14} {:>6} {:>7.4} {:>7.4} {:>7.4}\n",
                name, n, p.precision, p.recall, p.f1
            )
        };
        out.push_str(&line("all", self.pages, &self.overall));
        for (k, (n, p)) in &self.by_type {
            out.push_str(&line(k, *n, p));
        }
        out
    }
}

fn add(a: &mut Prf, b: Prf) {
    a.precision += b.precision;
    a.recall += b.recall;
    a.f1 += b.f1;
}

/// Exact-match counts of one metadata field (title, author, date) against
/// the gold. Both sides are compared after collapsing whitespace; an empty
/// gold counts as null. Pages with a gold value score `exact` (equal) and
/// `exact_ci` (equal ignoring case); pages whose gold is null score
/// `null_agree` when the extractor gives nothing either.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FieldScore {
    /// Pages with a gold value.
    pub gold_pages: usize,
    /// Of those, predictions equal to the gold.
    pub exact: usize,
    /// Of those, predictions equal to the gold ignoring case.
    pub exact_ci: usize,
    /// Pages whose gold is null.
    pub null_pages: usize,
    /// Of those, pages where the extractor gave nothing either.
    pub null_agree: usize,
}

impl FieldScore {
    /// Scores one page.
    pub fn add(&mut self, predicted: Option<&str>, gold: Option<&str>) {
        let norm = |s: Option<&str>| {
            s.map(crate::text::collapse_whitespace)
                .filter(|s| !s.is_empty())
        };
        match (norm(predicted), norm(gold)) {
            (p, None) => {
                self.null_pages += 1;
                self.null_agree += usize::from(p.is_none());
            }
            (p, Some(g)) => {
                self.gold_pages += 1;
                if let Some(p) = p {
                    self.exact += usize::from(p == g);
                    self.exact_ci += usize::from(p.to_lowercase() == g.to_lowercase());
                }
            }
        }
    }

    /// Share of pages with a gold value that match exactly.
    pub fn exact_rate(&self) -> f64 {
        ratio(self.exact, self.gold_pages)
    }

    /// Share of pages with a gold value that match ignoring case.
    pub fn exact_ci_rate(&self) -> f64 {
        ratio(self.exact_ci, self.gold_pages)
    }

    /// Share of pages with a null gold where the extractor gave nothing.
    pub fn null_agree_rate(&self) -> f64 {
        ratio(self.null_agree, self.null_pages)
    }
}

/// Counts and the three rates, so that JSON readers need not divide.
impl Serialize for FieldScore {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("FieldScore", 8)?;
        st.serialize_field("gold_pages", &self.gold_pages)?;
        st.serialize_field("exact", &self.exact)?;
        st.serialize_field("exact_ci", &self.exact_ci)?;
        st.serialize_field("null_pages", &self.null_pages)?;
        st.serialize_field("null_agree", &self.null_agree)?;
        st.serialize_field("exact_rate", &self.exact_rate())?;
        st.serialize_field("exact_ci_rate", &self.exact_ci_rate())?;
        st.serialize_field("null_agree_rate", &self.null_agree_rate())?;
        st.end()
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// Metadata exact-match scores over a WCXB corpus.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct MetadataReport {
    /// The title.
    pub title: FieldScore,
    /// The author.
    pub author: FieldScore,
    /// The publish date (ISO `YYYY-MM-DD`).
    pub date: FieldScore,
    /// The same scores split by the source of the value given
    /// ([`SourceKind`](crate::metadata::SourceKind) names; `none` where
    /// the extractor gave nothing), per field name.
    pub by_source: BTreeMap<&'static str, BTreeMap<&'static str, FieldScore>>,
}

impl MetadataReport {
    /// Scores one page's metadata against its gold.
    pub fn add(
        &mut self,
        predicted: &crate::metadata::Metadata,
        gold: &crate::corpus::GoldMetadata,
    ) {
        self.title
            .add(predicted.title.as_deref(), gold.title.as_deref());
        self.author
            .add(predicted.author.as_deref(), gold.author.as_deref());
        self.date
            .add(predicted.date.as_deref(), gold.date.as_deref());
        let src = &predicted.sources;
        for (field, kind, p, g) in [
            ("title", src.title, &predicted.title, &gold.title),
            ("author", src.author, &predicted.author, &gold.author),
            ("date", src.date, &predicted.date, &gold.date),
        ] {
            let kind = kind.map_or("none", crate::metadata::SourceKind::name);
            self.by_source
                .entry(field)
                .or_default()
                .entry(kind)
                .or_default()
                .add(p.as_deref(), g.as_deref());
        }
    }

    /// A plain-text table per field and source: of the pages whose value
    /// came from that source, how many have a gold value and the share
    /// matching it, and how many have a null gold (a value given where the
    /// gold has none; for `none`, the abstentions).
    pub fn source_table(&self) -> String {
        let mut out = format!(
            "{:<8} {:<9} {:>6} {:>7} {:>6}\n",
            "field", "source", "gold", "exact", "null"
        );
        for (field, kinds) in &self.by_source {
            for (kind, f) in kinds {
                out.push_str(&format!(
                    "{:<8} {:<9} {:>6} {:>7.4} {:>6}\n",
                    field,
                    kind,
                    f.gold_pages,
                    f.exact_rate(),
                    f.null_pages
                ));
            }
        }
        out
    }

    /// A plain-text table: one line per field.
    pub fn table(&self) -> String {
        let mut out = format!(
            "{:<8} {:>6} {:>7} {:>9} {:>6} {:>10}\n",
            "field", "gold", "exact", "exact-ci", "null", "null-agree"
        );
        for (name, f) in [
            ("title", &self.title),
            ("author", &self.author),
            ("date", &self.date),
        ] {
            let null_agree = if f.null_pages == 0 {
                "-".to_string()
            } else {
                format!("{:.4}", f.null_agree_rate())
            };
            out.push_str(&format!(
                "{:<8} {:>6} {:>7.4} {:>9.4} {:>6} {:>10}\n",
                name,
                f.gold_pages,
                f.exact_rate(),
                f.exact_ci_rate(),
                f.null_pages,
                null_agree
            ));
        }
        out
    }
}

/// Snippet counts over a whole set (trafilatura's metric).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct SnippetCounts {
    /// `with` snippets found.
    pub tp: u64,
    /// `with` snippets missing.
    pub fn_: u64,
    /// `without` snippets found.
    pub fp: u64,
    /// `without` snippets absent.
    pub tn: u64,
}

/// Snippet metrics derived from [`SnippetCounts`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct SnippetReport {
    /// The counts.
    pub counts: SnippetCounts,
    /// TP / (TP + FP).
    pub precision: f64,
    /// TP / (TP + FN).
    pub recall: f64,
    /// Harmonic mean of precision and recall.
    pub f1: f64,
    /// (TP + TN) / all.
    pub accuracy: f64,
}

impl SnippetCounts {
    /// Scores one page's extraction against its snippets (whitespace collapsed).
    pub fn add_page(&mut self, text: &str, with: &[String], without: &[String]) {
        let text = crate::text::collapse_whitespace(text);
        for s in with {
            if text.contains(&crate::text::collapse_whitespace(s)) {
                self.tp += 1;
            } else {
                self.fn_ += 1;
            }
        }
        for s in without {
            if text.contains(&crate::text::collapse_whitespace(s)) {
                self.fp += 1;
            } else {
                self.tn += 1;
            }
        }
    }

    /// Adds another set of counts.
    pub fn merge(&mut self, o: SnippetCounts) {
        self.tp += o.tp;
        self.fn_ += o.fn_;
        self.fp += o.fp;
        self.tn += o.tn;
    }

    /// Precision, recall, F1 and accuracy.
    pub fn report(&self) -> SnippetReport {
        let (tp, fp, fn_, tn) = (
            self.tp as f64,
            self.fp as f64,
            self.fn_ as f64,
            self.tn as f64,
        );
        let p = if tp + fp > 0.0 { tp / (tp + fp) } else { 0.0 };
        let r = if tp + fn_ > 0.0 { tp / (tp + fn_) } else { 0.0 };
        let all = tp + fp + fn_ + tn;
        SnippetReport {
            counts: *self,
            precision: p,
            recall: r,
            f1: if p + r > 0.0 {
                2.0 * p * r / (p + r)
            } else {
                0.0
            },
            accuracy: if all > 0.0 { (tp + tn) / all } else { 0.0 },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_f1_cases() {
        assert_eq!(word_prf("", "").f1, 1.0);
        assert_eq!(word_prf("a", "").f1, 0.0);
        assert_eq!(word_prf("", "a").f1, 0.0);
        let s = word_prf("The cat the", "the CAT sat");
        // overlap: the (min 2,1 = 1) + cat 1 = 2; P = 2/3, R = 2/3.
        assert!((s.precision - 2.0 / 3.0).abs() < 1e-12);
        assert!((s.f1 - 2.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn snippet_counts() {
        let mut c = SnippetCounts::default();
        c.add_page(
            "Hello   world.\nSecond line",
            &["Hello world.".into(), "missing".into()],
            &["Second line".into(), "absent".into()],
        );
        assert_eq!(
            c,
            SnippetCounts {
                tp: 1,
                fn_: 1,
                fp: 1,
                tn: 1
            }
        );
        let r = c.report();
        assert_eq!(r.precision, 0.5);
        assert_eq!(r.recall, 0.5);
        assert_eq!(r.accuracy, 0.5);
    }

    #[test]
    fn field_scores_count_nulls_apart() {
        let mut f = FieldScore::default();
        f.add(Some("The  Title"), Some("The Title"));
        f.add(Some("the title"), Some("The Title"));
        f.add(None, Some("x"));
        f.add(None, None);
        f.add(Some("y"), Some(""));
        assert_eq!((f.gold_pages, f.exact, f.exact_ci), (3, 1, 2));
        assert_eq!((f.null_pages, f.null_agree), (2, 1));
        assert_eq!(f.null_agree_rate(), 0.5);
    }

    #[test]
    fn report_groups() {
        let one = Prf {
            precision: 1.0,
            recall: 1.0,
            f1: 1.0,
        };
        let r = WordReport::from_scores([("a", one), ("b", Prf::default())]);
        assert_eq!(r.overall.f1, 0.5);
        assert_eq!(r.by_type["a"].1.f1, 1.0);
    }
}

/// One page's extraction as scored by [`evaluate`].
#[derive(Debug, Clone, Serialize)]
pub struct PagePrediction {
    /// The page file.
    pub path: String,
    /// The extracted text (empty when the page failed).
    pub text: String,
    /// Why the page failed, if it did.
    pub error: Option<String>,
    /// The algorithm that decided (shows fallbacks).
    pub algorithm: Option<crate::extract::Algorithm>,
    /// The page's metadata (empty when the page failed).
    pub metadata: crate::metadata::Metadata,
}

/// The result of scoring an extractor on a corpus.
#[derive(Debug, Clone, Serialize)]
pub struct Evaluation {
    /// The algorithm evaluated.
    pub algorithm: crate::extract::Algorithm,
    /// Word P/R/F1 (WCXB layout).
    pub word: Option<WordReport>,
    /// Snippet P/R/F1 (manifest layout).
    pub snippets: Option<SnippetReport>,
    /// Metadata exact-match rates (WCXB layout).
    pub metadata: Option<MetadataReport>,
    /// Pages that failed (scored as empty extractions).
    pub errors: usize,
    /// Pages where the forest fell back to CETR-KM.
    pub fallbacks: usize,
    /// Every page's extraction, in corpus order.
    #[serde(skip)]
    pub predictions: Vec<PagePrediction>,
}

/// Extracts every page of `corpus` with `extractor` (in parallel) and
/// scores the result with the corpus's metric.
pub fn evaluate(
    extractor: &crate::extract::Extractor,
    corpus: &crate::corpus::Corpus,
    progress: &(dyn Fn() + Sync),
) -> Evaluation {
    use crate::par::prelude::*;

    use crate::corpus::Corpus;

    // The page's URL reaches the metadata (a date in its path), as a
    // crawler's record would give it; there is no capture date to count
    // relative dates from.
    let run = |path: &std::path::Path, url: Option<&str>| -> PagePrediction {
        let hints = crate::metadata::PageHints {
            url: url.filter(|u| !u.is_empty()),
            reference_date: None,
        };
        let result = std::fs::read(path)
            .map_err(|e| e.to_string())
            .and_then(|b| {
                extractor
                    .extract_bytes_with(&b, None, &hints, None)
                    .map_err(|e| e.to_string())
            });
        progress();
        match result {
            Ok(e) => PagePrediction {
                path: path.display().to_string(),
                text: e.text,
                error: None,
                algorithm: Some(e.algorithm),
                metadata: e.metadata,
            },
            Err(e) => PagePrediction {
                path: path.display().to_string(),
                text: String::new(),
                error: Some(e),
                algorithm: None,
                metadata: crate::metadata::Metadata::default(),
            },
        }
    };
    let (word, snippets, metadata, predictions) = match corpus {
        Corpus::Wcxb(pages) => {
            let preds: Vec<PagePrediction> = pages
                .par_iter()
                .map(|p| run(&p.html_path, Some(&p.url)))
                .collect();
            let report = WordReport::from_scores(
                pages
                    .iter()
                    .zip(&preds)
                    .map(|(p, pred)| (p.page_type.as_str(), word_prf(&pred.text, &p.gold))),
            );
            let mut meta = MetadataReport::default();
            for (p, pred) in pages.iter().zip(&preds) {
                meta.add(&pred.metadata, &p.gold_meta);
            }
            (Some(report), None, Some(meta), preds)
        }
        Corpus::Snippets(pages) => {
            let preds: Vec<PagePrediction> =
                pages.par_iter().map(|p| run(&p.html_path, None)).collect();
            let mut counts = SnippetCounts::default();
            for (p, pred) in pages.iter().zip(&preds) {
                counts.add_page(&pred.text, &p.with, &p.without);
            }
            (None, Some(counts.report()), None, preds)
        }
    };
    Evaluation {
        algorithm: extractor.algorithm(),
        word,
        snippets,
        metadata,
        errors: predictions.iter().filter(|p| p.error.is_some()).count(),
        fallbacks: predictions
            .iter()
            .filter(|p| p.algorithm == Some(crate::extract::Algorithm::KmeansFallback))
            .count(),
        predictions,
    }
}
