//! Choosing the selection out of fold: the threshold and the learned
//! selection constants ([`LearnedSelection`]), on a grid, by what the
//! selection stage ([`crate::select::keep`]) keeps, so that the choice and
//! the scores reported for it are what `extract` outputs.

use std::collections::BTreeMap;

use serde::Serialize;

use super::prepare::PreparedPage;
use super::stages::Learner;
use crate::config::TrainConfig;
use crate::model::LearnedSelection;
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
/// comments' main share of `cfg.comments_main_share_grid`, each threshold
/// of `cfg.threshold_grid`. The baseline tree's probabilities are 0 or 1:
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
            for &threshold in &cfg.threshold_grid {
                out.push(Choice {
                    threshold,
                    learned: LearnedSelection {
                        low_prose_shift,
                        comments_main_share,
                    },
                });
            }
        }
    }
    out
}

/// Every page's word F1 at every choice of a grid, as the selection stage
/// keeps its blocks (`None` for snippet pages, which do not choose).
pub(super) struct ScoreTable {
    /// The grid.
    pub(super) choices: Vec<Choice>,
    /// Per page, the F1 at each choice.
    f1: Vec<Option<Vec<f64>>>,
}

impl ScoreTable {
    /// Scores every page with gold text at every choice, from `probs` (per
    /// page and block).
    pub(super) fn new(pages: &[PreparedPage], probs: &[Vec<f32>], choices: Vec<Choice>) -> Self {
        let f1 = pages
            .par_iter()
            .zip(probs)
            .map(|(p, probs)| {
                p.has_gold_text().then(|| {
                    choices
                        .iter()
                        .map(|c| {
                            let kept = select::keep(&p.blocks, probs, &c.select_config());
                            p.score(|b| kept[b]).f1
                        })
                        .collect()
                })
            })
            .collect();
        ScoreTable { choices, f1 }
    }

    /// The objective of each choice over the pages of `idx` with gold
    /// text: the mean over corpora of their pages' mean word F1, each
    /// corpus weighing the same, so that a large corpus does not set the
    /// choice for the others (WCXB dev holds 1,497 of the 1,875 pages with
    /// gold text of the shipped model's four corpora).
    pub(super) fn objectives(
        &self,
        pages: &[PreparedPage],
        idx: impl Iterator<Item = usize>,
    ) -> Vec<f64> {
        let mut by_corpus: BTreeMap<&str, (Vec<f64>, usize)> = BTreeMap::new();
        for i in idx {
            let Some(scores) = &self.f1[i] else { continue };
            let e = by_corpus
                .entry(pages[i].corpus.as_str())
                .or_insert_with(|| (vec![0.0; self.choices.len()], 0));
            for (sum, s) in e.0.iter_mut().zip(scores) {
                *sum += s;
            }
            e.1 += 1;
        }
        let n = by_corpus.len().max(1) as f64;
        let mut out = vec![0.0; self.choices.len()];
        for (sums, k) in by_corpus.values() {
            for (o, s) in out.iter_mut().zip(sums) {
                *o += s / *k as f64 / n;
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
    /// Its objective: the mean over corpora of their pages' mean word F1
    /// (pages with gold text) as the selection stage keeps the blocks.
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
