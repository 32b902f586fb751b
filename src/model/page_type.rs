//! The page-type classifier: what kind of page this is (an article, a
//! forum or Q&A thread, a product, a collection, a listing, documentation,
//! a service page), predicted per page from its signals
//! ([`crate::features::page_signals`]) and the profile of its blocks'
//! content probabilities. One small tree ensemble per type, one against
//! the rest, their probabilities normalised to sum to one.
//!
//! The selection stage reads the prediction (a forum's thread is its
//! content, an article's is not: [`crate::select::SelectConfig::page_type`]),
//! and extraction outputs it as `page_type` with its probability.

use serde::{Deserialize, Serialize};

use super::gbdt::Gbdt;
use super::kept_shape::{share, KeptShape};
use crate::blocks::Blocks;
use crate::features::page_signals::signal_names;

/// The seven page types of the WCXB benchmark.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PageType {
    /// A news article, blog post or essay.
    Article,
    /// A forum or Q&A thread: the replies are the content.
    Forum,
    /// A product page.
    Product,
    /// A collection: a category or gallery of items.
    Collection,
    /// A listing: search results, an index of articles.
    Listing,
    /// Documentation.
    Documentation,
    /// A service, company or contact page.
    Service,
}

impl PageType {
    /// Every type, in the order of a model's ensembles.
    pub const ALL: [PageType; 7] = [
        PageType::Article,
        PageType::Forum,
        PageType::Product,
        PageType::Collection,
        PageType::Listing,
        PageType::Documentation,
        PageType::Service,
    ];

    /// The type's name, as the corpora and the outputs write it.
    pub fn name(self) -> &'static str {
        match self {
            PageType::Article => "article",
            PageType::Forum => "forum",
            PageType::Product => "product",
            PageType::Collection => "collection",
            PageType::Listing => "listing",
            PageType::Documentation => "documentation",
            PageType::Service => "service",
        }
    }

    /// The type named `name`, if it is one of the seven.
    pub fn from_name(name: &str) -> Option<PageType> {
        PageType::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Position in [`PageType::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

impl std::fmt::Display for PageType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A page's predicted type.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PageTypeGuess {
    /// The most probable type.
    pub kind: PageType,
    /// Its probability.
    pub probability: f32,
    /// The probability of every type, in [`PageType::ALL`]'s order.
    pub probabilities: [f32; 7],
}

impl PageTypeGuess {
    /// The guess from one probability per type (normalised here; ties go
    /// to the earlier type).
    pub fn from_probabilities(raw: [f32; 7]) -> PageTypeGuess {
        let sum: f32 = raw.iter().map(|p| p.max(0.0)).sum();
        let probabilities = if sum > 0.0 && sum.is_finite() {
            raw.map(|p| p.max(0.0) / sum)
        } else {
            [1.0 / 7.0; 7]
        };
        let mut best = 0;
        for (i, &p) in probabilities.iter().enumerate() {
            if p > probabilities[best] {
                best = i;
            }
        }
        PageTypeGuess {
            kind: PageType::ALL[best],
            probability: probabilities[best],
            probabilities,
        }
    }

    /// The probability of `kind`.
    pub fn of(&self, kind: PageType) -> f32 {
        self.probabilities[kind.index()]
    }
}

/// The names of the probability-profile columns ([`profile`]).
pub const PROFILE_NAMES: [&str; 13] = [
    "profile.kept_share",
    "profile.log_kept_words",
    "profile.mean_probability",
    "profile.uncertain_share",
    "profile.kept_runs",
    "profile.largest_run_share",
    "profile.kept_comment_share",
    "profile.kept_list_share",
    "profile.first_kept",
    "profile.last_kept",
    "profile.kept_link_share",
    "profile.kept_teasers",
    "profile.kept_linked_headings",
];

/// The probability at which the profile counts a block as kept: a fixed
/// reference, so that the profile does not move with the threshold
/// training chooses after it.
pub const PROFILE_CUT: f32 = 0.5;

/// The profile of a page's content probabilities (one per block):
/// the share and amount of words above [`PROFILE_CUT`], the word-weighted
/// mean probability, the share of words near the cut, how many runs the
/// kept blocks form and the largest run's share, the kept words' shares in
/// comment regions and lists, where the first and last kept words lie
/// (as shares of the page's words), the kept words' share of link text,
/// and how many kept blocks are teasers (3 to 25 words, four fifths of
/// them link text) or headings that are mostly a link: a listing's
/// content is headlines linking elsewhere, an article's is not.
pub fn profile(blocks: &Blocks, probs: &[f32]) -> [f32; 13] {
    let mut shape = KeptShape::default();
    let (mut weighted, mut uncertain) = (0f32, 0f32);
    let (mut kept_links, mut teasers, mut linked_headings) = (0f32, 0f32, 0f32);
    for (b, &p) in blocks.blocks.iter().zip(probs).filter(|(b, _)| b.words > 0) {
        let w = b.words as f32;
        let p = if p.is_finite() {
            p.clamp(0.0, 1.0)
        } else {
            0.0
        };
        weighted += w * p;
        if (0.3..0.7).contains(&p) {
            uncertain += w;
        }
        shape.add(blocks, b, p >= PROFILE_CUT);
        if p >= PROFILE_CUT {
            kept_links += b.link_words as f32;
            let mostly_link = 5 * b.link_words >= 4 * b.words;
            if mostly_link && (3..=25).contains(&b.words) {
                teasers += 1.0;
            }
            // `h1` to `h4`, as the page signals count headings.
            let heading = blocks
                .elements
                .get(b.owner as usize)
                .and_then(|e| crate::blocks::heading_level(&e.tag))
                .is_some_and(|level| level <= 4);
            if heading && 2 * b.link_words >= b.words {
                linked_headings += 1.0;
            }
        }
    }
    let (words, kept) = (shape.page_words, shape.kept_words);
    [
        share(kept, words),
        (1.0 + kept).ln(),
        share(weighted, words),
        share(uncertain, words),
        shape.runs,
        share(shape.largest_run, kept),
        share(shape.comment_words, kept),
        share(shape.list_words, kept),
        shape.first_kept(),
        shape.last_kept(),
        share(kept_links, kept),
        (1.0 + teasers).ln(),
        (1.0 + linked_headings).ln(),
    ]
}

/// The names of a page-type model's input columns: the page signals,
/// then the probability profile.
pub fn input_names() -> Vec<String> {
    signal_names()
        .chain(PROFILE_NAMES)
        .map(str::to_string)
        .collect()
}

/// A page's input row: its signals, then its probability profile.
pub fn input_row(signals: &[f32], blocks: &Blocks, probs: &[f32]) -> Vec<f32> {
    let mut row = Vec::with_capacity(signals.len() + PROFILE_NAMES.len());
    row.extend_from_slice(signals);
    row.extend(profile(blocks, probs));
    row
}

/// A trained page-type classifier.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageTypeModel {
    /// The input columns it reads ([`input_names`] when it was trained).
    pub inputs: Vec<String>,
    /// One ensemble per type of [`PageType::ALL`], that type against the
    /// rest.
    pub ensembles: Vec<Gbdt>,
}

impl PageTypeModel {
    /// The guess for one input row of this build ([`input_row`], in
    /// [`input_names`] order). A model trained when the build had fewer
    /// signals reads its own columns from the row by name.
    pub fn guess(&self, row: &[f32]) -> PageTypeGuess {
        // This build's names, compared in place: no copy per page.
        let names = || signal_names().chain(PROFILE_NAMES);
        let own: Vec<f32>;
        let row = if self.inputs.iter().map(String::as_str).eq(names()) {
            row
        } else {
            own = self
                .inputs
                .iter()
                .map(|n| {
                    names()
                        .position(|m| m == n)
                        .and_then(|i| row.get(i))
                        .copied()
                        .unwrap_or(0.0)
                })
                .collect();
            &own
        };
        let mut raw = [0f32; 7];
        for (r, e) in raw.iter_mut().zip(&self.ensembles) {
            *r = e.predict_row(row);
        }
        PageTypeGuess::from_probabilities(raw)
    }

    /// Checks that every input the model reads is one this build computes
    /// (a model of an older build reads a subset, by name) and that it has
    /// one valid ensemble per type; returns what is wrong.
    pub fn validate(&self) -> std::result::Result<(), String> {
        let names = input_names();
        if let Some(unknown) = self.inputs.iter().find(|n| !names.contains(n)) {
            return Err(format!(
                "the page-type classifier reads {unknown:?}, which this build does not compute"
            ));
        }
        if self.ensembles.len() != PageType::ALL.len() {
            return Err(format!(
                "{} page-type ensembles, expected {}",
                self.ensembles.len(),
                PageType::ALL.len()
            ));
        }
        for e in &self.ensembles {
            e.validate()?;
            if e.n_features != self.inputs.len() {
                return Err(format!(
                    "a page-type ensemble reads {} columns, the model has {}",
                    e.n_features,
                    self.inputs.len()
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_guesses_normalise() {
        for t in PageType::ALL {
            assert_eq!(PageType::from_name(t.name()), Some(t));
            assert_eq!(PageType::ALL[t.index()], t);
        }
        assert_eq!(PageType::from_name("unknown"), None);
        let g = PageTypeGuess::from_probabilities([0.2, 0.6, 0.2, 0.0, 0.0, 0.0, 0.0]);
        assert_eq!(g.kind, PageType::Forum);
        assert!((g.probability - 0.6).abs() < 1e-6);
        let g = PageTypeGuess::from_probabilities([f32::NAN; 7]);
        assert!((g.probabilities.iter().sum::<f32>() - 1.0).abs() < 1e-5);
    }

    #[test]
    fn profile_counts_runs_and_places() {
        let blocks = crate::blocks::blocks_of_words(&[10, 10, 10, 10]);
        let p = profile(&blocks, &[0.9, 0.1, 0.8, 0.8]);
        assert_eq!(p[0], 0.75);
        assert_eq!(p[4], 2.0);
        assert!((p[5] - 20.0 / 30.0).abs() < 1e-6);
        assert_eq!(p[8], 0.0);
        assert_eq!(p[9], 1.0);
        let none = profile(&blocks, &[0.0; 4]);
        assert_eq!(none[0], 0.0);
        assert_eq!(none[8], 1.0);
        assert_eq!(none[10..], [0.0; 3]);
    }

    #[test]
    fn profile_counts_the_kept_teasers_and_linked_headings() {
        let html = r#"<html><body>
            <h2><a href="/one">The first story of the section front</a></h2>
            <p>A summary line of the first story, in plain words.</p>
            <h2><a href="/two">The second story, linked as well</a></h2>
            <p>A summary line of the second story, in plain words.</p>
            <div><a href="/three">A third headline only</a></div>
            </body></html>"#;
        let doc = crate::parse::parse(html.as_bytes(), None, Default::default()).unwrap();
        let blocks = crate::blocks::split(&doc);
        let p = profile(&blocks, &vec![0.9; blocks.blocks.len()]);
        let names: Vec<&str> = PROFILE_NAMES.to_vec();
        let col = |n: &str| p[names.iter().position(|x| *x == n).unwrap()];
        let link_words: u32 = blocks.blocks.iter().map(|b| b.link_words).sum();
        let words: u32 = blocks.blocks.iter().map(|b| b.words).sum();
        assert!((col("profile.kept_link_share") - link_words as f32 / words as f32).abs() < 1e-6);
        assert_eq!(
            col("profile.kept_teasers"),
            (1.0f32 + 3.0).ln(),
            "{:?}",
            blocks.blocks
        );
        assert_eq!(col("profile.kept_linked_headings"), (1.0f32 + 2.0).ln());
        // Nothing kept: no teasers, no linked headings.
        let none = profile(&blocks, &vec![0.1; blocks.blocks.len()]);
        assert_eq!(none[10..], [0.0; 3]);
    }

    /// An ensemble of one stump on column 0: +4 log-odds when it is over
    /// `cut`, −4 otherwise.
    fn stump(n_features: usize, cut: f32) -> Gbdt {
        use crate::model::gbdt::{Tree, TreeNode, LEAF};
        let leaf = |value| TreeNode {
            feature: LEAF,
            threshold: 0.0,
            left: 0,
            right: 0,
            value,
        };
        Gbdt {
            n_features,
            base_score: 0.0,
            trees: vec![Tree {
                nodes: vec![
                    TreeNode {
                        feature: 0,
                        threshold: cut,
                        left: 1,
                        right: 2,
                        value: 0.0,
                    },
                    leaf(-4.0),
                    leaf(4.0),
                ],
            }],
            importance: vec![0.0; n_features],
        }
    }

    #[test]
    fn a_model_of_an_older_build_reads_its_columns_by_name() {
        // Trained when the build had fewer signals: it reads one column,
        // `page.log_words`, which is not this build's first.
        // Article when it is over 1, else forum (an even 0.5); never
        // another type.
        let constant = |base_score| Gbdt {
            n_features: 1,
            base_score,
            trees: Vec::new(),
            importance: vec![0.0],
        };
        let mut ensembles = vec![stump(1, 1.0), constant(0.0)];
        ensembles.extend((2..7).map(|_| constant(-30.0)));
        let old = PageTypeModel {
            inputs: vec!["page.log_words".to_string()],
            ensembles,
        };
        assert!(old.validate().is_ok());
        let names = input_names();
        let at = names.iter().position(|n| n == "page.log_words").unwrap();
        assert!(at > 0);
        let mut row = vec![0f32; names.len()];
        row[at] = 5.0;
        assert_eq!(old.guess(&row).kind, PageType::Article);
        row[at] = 0.0;
        row[0] = 5.0;
        assert_eq!(
            old.guess(&row).kind,
            PageType::Forum,
            "column 0 is not its input"
        );

        let unknown = PageTypeModel {
            inputs: vec!["page.no_such_signal".to_string()],
            ..old
        };
        let err = unknown.validate().unwrap_err();
        assert!(err.contains("page.no_such_signal"), "{err}");
    }
}
