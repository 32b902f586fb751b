//! Choosing the selection out of fold: the threshold and the learned
//! selection constants ([`LearnedSelection`]), on a grid, by what the
//! selection stage ([`crate::select::keep`]) keeps, so that the choice and
//! the scores reported for it are what `extract` outputs.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::prepare::PreparedPage;
use super::stages::Learner;
use crate::config::TrainConfig;
use crate::eval::SnippetCounts;
use crate::model::{LearnedSelection, PageType};
use crate::par::prelude::*;
use crate::select::{self, SelectConfig};

/// One point of the selection grid: a threshold with the learned
/// selection constants.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Choice {
    /// The model's decision threshold.
    pub threshold: f32,
    /// The constants chosen with it.
    #[serde(flatten)]
    pub learned: LearnedSelection,
}

impl Choice {
    /// The selection stage's settings for this choice, with extraction's
    /// defaults for the rest ([`SelectConfig::for_model`]).
    pub fn select_config(&self) -> SelectConfig {
        SelectConfig::for_model(self.threshold, self.learned)
    }
}

/// The choices training tries, in the order ties are broken (the first
/// wins): each low-prose shift of `cfg.low_prose_shift_grid`, each
/// comments' main share of `cfg.comments_main_share_grid`, on forum pages
/// that share then each of `cfg.forum_comments_main_share_grid`, each
/// threshold of `cfg.threshold_grid`. The baseline tree's probabilities are 0 or 1:
/// it has one choice, threshold 0.5 without a shift.
pub fn grid(cfg: &TrainConfig, learner: Learner) -> Vec<Choice> {
    if learner == Learner::BaselineTree {
        return vec![Choice {
            threshold: 0.5,
            learned: LearnedSelection {
                low_prose_shift: 0.0,
                ..LearnedSelection::default()
            },
        }];
    }
    let mut out = Vec::new();
    for &low_prose_shift in &cfg.low_prose_shift_grid {
        for &comments_main_share in &cfg.comments_main_share_grid {
            let mut forum = vec![comments_main_share];
            for &f in &cfg.forum_comments_main_share_grid {
                if !forum.contains(&f) {
                    forum.push(f);
                }
            }
            for forum_comments_main_share in forum {
                for &threshold in &cfg.threshold_grid {
                    out.push(Choice {
                        threshold,
                        learned: LearnedSelection {
                            low_prose_shift,
                            comments_main_share,
                            forum_comments_main_share,
                        },
                    });
                }
            }
        }
    }
    out
}

/// One page's score at one choice: word F1 for a page with gold text,
/// snippet counts for a snippet page (a snippet corpus is scored by the F1
/// of its pages' summed counts, as `eval` scores it).
#[derive(Debug, Clone, Copy)]
enum PageScore {
    Word(f64),
    Snippets(SnippetCounts),
}

/// Every page's score at every choice of a grid, as the selection stage
/// keeps its blocks.
pub(super) struct ScoreTable {
    /// The grid.
    pub(super) choices: Vec<Choice>,
    /// Per page, the score at each choice.
    scores: Vec<Vec<PageScore>>,
}

impl ScoreTable {
    /// Scores every page at every choice, from `probs` (per page and
    /// block) and the pages' predicted types (`types`, empty without a
    /// page-type classifier). Choices that keep the same blocks before the
    /// comment, caption and repeat rules share those rules' run, and
    /// choices that keep the same blocks share one scoring.
    pub(super) fn new(
        pages: &[PreparedPage],
        probs: &[Vec<f32>],
        types: &[Option<PageType>],
        choices: Vec<Choice>,
    ) -> Self {
        let scores = pages
            .par_iter()
            .zip(probs)
            .enumerate()
            .map(|(i, (p, probs))| {
                let page_type = types.get(i).copied().flatten();
                let mut above: HashMap<(u32, u32), Vec<bool>> = HashMap::new();
                let mut refined: HashMap<(Vec<bool>, u64), Vec<bool>> = HashMap::new();
                let mut seen: HashMap<Vec<bool>, PageScore> = HashMap::new();
                choices
                    .iter()
                    .map(|c| {
                        let cfg = c.select_config().for_page(page_type);
                        let first = above
                            .entry((cfg.threshold.to_bits(), cfg.low_prose_shift.to_bits()))
                            .or_insert_with(|| select::above_threshold(&p.blocks, probs, &cfg));
                        let kept = refined
                            .entry((first.clone(), cfg.main_share().to_bits()))
                            .or_insert_with(|| {
                                let mut kept = first.clone();
                                select::refine(&p.blocks, &mut kept, &cfg);
                                kept
                            });
                        *seen.entry(kept.clone()).or_insert_with_key(|kept| {
                            if p.has_gold_text() {
                                PageScore::Word(p.score(|b| kept[b]).f1)
                            } else {
                                PageScore::Snippets(p.snippet_counts(|b| kept[b]))
                            }
                        })
                    })
                    .collect()
            })
            .collect();
        ScoreTable { choices, scores }
    }

    /// The objective of each choice over the pages of `idx`: the mean over
    /// corpora of each corpus's figure as the reports give it (the mean
    /// word F1 of its pages with gold text, the snippet F1 of its snippet
    /// pages), each corpus weighing the same, so that a large corpus does
    /// not set the choice for the others (WCXB dev holds 1,497 of the
    /// shipped model's 2,865 pages).
    pub(super) fn objectives(
        &self,
        pages: &[PreparedPage],
        idx: impl Iterator<Item = usize>,
    ) -> Vec<f64> {
        let n = self.choices.len();
        let mut words: BTreeMap<&str, (Vec<f64>, usize)> = BTreeMap::new();
        let mut snippets: BTreeMap<&str, Vec<SnippetCounts>> = BTreeMap::new();
        for i in idx {
            let corpus = pages[i].corpus.as_str();
            for (c, score) in self.scores[i].iter().enumerate() {
                match score {
                    PageScore::Word(f1) => {
                        let e = words.entry(corpus).or_insert_with(|| (vec![0.0; n], 0));
                        e.0[c] += f1;
                        if c == 0 {
                            e.1 += 1;
                        }
                    }
                    PageScore::Snippets(counts) => {
                        snippets
                            .entry(corpus)
                            .or_insert_with(|| vec![SnippetCounts::default(); n])[c]
                            .merge(*counts);
                    }
                }
            }
        }
        let groups = (words.len() + snippets.len()).max(1) as f64;
        let mut out = vec![0.0; n];
        for (sums, k) in words.values() {
            for (o, s) in out.iter_mut().zip(sums) {
                *o += s / *k as f64 / groups;
            }
        }
        for counts in snippets.values() {
            for (o, c) in out.iter_mut().zip(counts) {
                *o += c.report().f1 / groups;
            }
        }
        out
    }

    /// The choice with the best objective over the pages of `idx` (the
    /// first on ties, so that the choice is deterministic and prefers the
    /// grid's first values), with the objectives of every choice.
    pub(super) fn best(
        &self,
        pages: &[PreparedPage],
        idx: impl Iterator<Item = usize>,
    ) -> (Choice, Vec<f64>) {
        let objectives = self.objectives(pages, idx);
        let mut best = 0;
        for (i, &o) in objectives.iter().enumerate() {
            if o > objectives[best] {
                best = i;
            }
        }
        (self.choices[best], objectives)
    }

    /// The choice over all pages, with its evidence.
    pub(super) fn evidence(&self, pages: &[PreparedPage]) -> SelectionEvidence {
        let (chosen, objectives) = self.best(pages, 0..pages.len());
        let mut pairs: Vec<PairScore> = Vec::new();
        for (c, &o) in self.choices.iter().zip(&objectives) {
            match pairs.iter_mut().find(|p| p.learned == c.learned) {
                Some(p) if o > p.objective => {
                    p.objective = o;
                    p.threshold = c.threshold;
                }
                Some(_) => {}
                None => pairs.push(PairScore {
                    learned: c.learned,
                    threshold: c.threshold,
                    objective: o,
                }),
            }
        }
        let objective = objectives
            .iter()
            .zip(&self.choices)
            .find(|(_, c)| **c == chosen)
            .map_or(0.0, |(o, _)| *o);
        SelectionEvidence {
            chosen,
            objective,
            pairs,
        }
    }
}

/// Why a model's selection is what it is: the objective of the choice
/// over every page's out-of-fold probabilities, and each pair of learned
/// constants at its best threshold.
#[derive(Debug, Clone, Serialize)]
pub struct SelectionEvidence {
    /// The choice the final model ships.
    pub chosen: Choice,
    /// Its objective: the mean over corpora of their figures (mean word F1
    /// of pages with gold text, snippet F1 of snippet pages) as the
    /// selection stage keeps the blocks.
    pub objective: f64,
    /// Each pair of learned constants of the grid at its best threshold.
    pub pairs: Vec<PairScore>,
}

/// One pair of learned constants at its best threshold.
#[derive(Debug, Clone, Serialize)]
pub struct PairScore {
    /// The constants.
    #[serde(flatten)]
    pub learned: LearnedSelection,
    /// The pair's best threshold.
    pub threshold: f32,
    /// The objective there.
    pub objective: f64,
}
