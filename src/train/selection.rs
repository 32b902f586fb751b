//! Choosing the selection out of fold: the threshold and the learned
//! selection constants ([`LearnedSelection`]), on a grid, by what the
//! selection stage ([`crate::select::keep`]) keeps, so that the choice and
//! the scores reported for it are what `extract` outputs.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::prepare::{PreparedPage, CLASS_FREE_SUFFIX};
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

/// The choices training tries, in the order of preference (training
/// takes the first pair of comment constants within one standard error of
/// the best, with its best shift and threshold): each low-prose shift of
/// `cfg.low_prose_shift_grid`, each comments' main share of
/// `cfg.comments_main_share_grid`, on forum pages each of
/// `cfg.forum_comments_main_share_grid` then (when not among them) the
/// other pages' share, each threshold of `cfg.threshold_grid`. The baseline tree's probabilities are 0 or 1:
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
            let mut forum = cfg.forum_comments_main_share_grid.clone();
            if !forum.contains(&comments_main_share) {
                forum.push(comments_main_share);
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
    /// Per page, its group of sites for the standard error of a
    /// difference between two choices ([`SE_GROUPS`] groups).
    groups: Vec<usize>,
}

/// The pages are cut into this many groups of sites (no site in two) to
/// measure how much a difference of objective between two choices varies
/// from sites to sites: its standard error is the spread of the groups'
/// differences over the square root of their number.
pub const SE_GROUPS: usize = 10;

/// The seed of the site groups of [`SE_GROUPS`] (fixed: the groups are a
/// measuring device, not part of what a training seed draws).
const SE_GROUP_SEED: u64 = 0x5e;

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
                // The page type and the comment mode are the same at every
                // choice, so the threads found by their shape are too.
                let threads = choices.first().map_or_else(Vec::new, |c| {
                    select::unnamed_threads(&p.blocks, &c.select_config().for_page(page_type))
                });
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
                                select::refine_with_threads(&p.blocks, &mut kept, &cfg, &threads);
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
        let domains: Vec<&str> = pages.iter().map(|p| p.domain.as_str()).collect();
        let groups = super::cv::assign_folds(&domains, SE_GROUPS, SE_GROUP_SEED);
        ScoreTable {
            choices,
            scores,
            groups,
        }
    }

    /// The objective of each choice over the pages of `idx`: the mean over
    /// corpora of each corpus's figure as the reports give it (the mean
    /// word F1 of its pages with gold text, the snippet F1 of its snippet
    /// pages), each corpus weighing the same, so that a large corpus does
    /// not set the choice for the others (WCXB dev holds 1,497 of the
    /// shipped model's 2,865 pages). Class-free copies
    /// ([`TrainConfig::class_free_copies`]) are left out: they are
    /// training data, and the selection is made for the pages as written.
    pub(super) fn objectives(
        &self,
        pages: &[PreparedPage],
        idx: impl Iterator<Item = usize>,
    ) -> Vec<f64> {
        corpus_objectives(
            self.choices.len(),
            idx.map(|i| (pages[i].corpus.as_str(), self.scores[i].as_slice())),
        )
    }

    /// The choice made over the pages of `idx`, with the objectives of
    /// every choice: the one-standard-error rule (Breiman et al., 1984)
    /// applied to the comment constants. Each pair of comment constants
    /// is taken with its best shift and threshold; the first pair in the
    /// grid's order of preference ([`grid`]: a thread under an article is
    /// not its content) whose objective lies
    /// within one standard error of the best's (the error of the
    /// difference over [`SE_GROUPS`] groups of sites) is chosen. So the
    /// corpora overrule the page types' prior for comments only when they
    /// tell the choices apart beyond what varies from sites to sites,
    /// while the shift and the threshold go to the best objective. On
    /// exact ties the first choice wins, so the choice is deterministic.
    pub(super) fn best(
        &self,
        pages: &[PreparedPage],
        idx: impl Iterator<Item = usize>,
    ) -> (Choice, Vec<f64>) {
        let idx: Vec<usize> = idx.collect();
        let made = self.choose(pages, &idx);
        (self.choices[made.chosen], made.objectives)
    }

    /// [`ScoreTable::best`], by index, with what it was made from.
    fn choose(&self, pages: &[PreparedPage], idx: &[usize]) -> Made {
        let objectives = self.objectives(pages, idx.iter().copied());
        let top = first_max(&objectives);
        let by_group = self.group_objectives(pages, idx);
        let chosen = one_se_choice(&objectives, &by_group, &self.comment_bests(&objectives));
        Made {
            objectives,
            by_group,
            top,
            chosen,
        }
    }

    /// The objectives of every choice over each site group's pages of
    /// `idx` (groups without pages left out).
    fn group_objectives(&self, pages: &[PreparedPage], idx: &[usize]) -> Vec<Vec<f64>> {
        (0..SE_GROUPS)
            .filter(|&g| idx.iter().any(|&i| self.groups[i] == g))
            .map(|g| self.objectives(pages, idx.iter().copied().filter(|&i| self.groups[i] == g)))
            .collect()
    }

    /// For each pair of comment constants (the comments' main shares on
    /// forum pages and on the others), in the grid's order of preference,
    /// its choice with the best objective over the shifts and thresholds.
    fn comment_bests(&self, objectives: &[f64]) -> Vec<usize> {
        self.bests_by(objectives, |c| {
            (
                c.learned.comments_main_share.to_bits(),
                c.learned.forum_comments_main_share.to_bits(),
            )
        })
    }

    /// For each pair of learned constants, in the grid's order, the index
    /// of its choice with the best objective.
    fn pair_bests(&self, objectives: &[f64]) -> Vec<usize> {
        self.bests_by(objectives, |c| c.learned)
    }

    /// For each value of `key` over the choices, in the order it first
    /// comes in the grid, the index of its choice with the best objective
    /// (the first on ties).
    fn bests_by<K: PartialEq>(&self, objectives: &[f64], key: impl Fn(&Choice) -> K) -> Vec<usize> {
        let mut out: Vec<(K, usize)> = Vec::new();
        for (c, choice) in self.choices.iter().enumerate() {
            let k = key(choice);
            match out.iter_mut().find(|(bk, _)| *bk == k) {
                Some((_, b)) if objectives[c] > objectives[*b] => *b = c,
                Some(_) => {}
                None => out.push((k, c)),
            }
        }
        out.into_iter().map(|(_, c)| c).collect()
    }

    /// The choice over all pages, with its evidence.
    pub(super) fn evidence(&self, pages: &[PreparedPage]) -> SelectionEvidence {
        let all: Vec<usize> = (0..pages.len()).collect();
        let made = self.choose(pages, &all);
        let pairs = self
            .pair_bests(&made.objectives)
            .into_iter()
            .map(|c| {
                let (gap, standard_error) =
                    difference(&made.objectives, &made.by_group, made.top, c);
                PairScore {
                    learned: self.choices[c].learned,
                    threshold: self.choices[c].threshold,
                    objective: made.objectives[c],
                    gap,
                    standard_error,
                }
            })
            .collect();
        let (gap, standard_error) =
            difference(&made.objectives, &made.by_group, made.top, made.chosen);
        SelectionEvidence {
            chosen: self.choices[made.chosen],
            objective: made.objectives[made.chosen],
            best: self.choices[made.top],
            gap,
            standard_error,
            pairs,
        }
    }
}

/// [`ScoreTable::objectives`] over `(corpus, scores at every choice)`
/// rows, one per page, for `n` choices.
fn corpus_objectives<'a>(
    n: usize,
    rows: impl Iterator<Item = (&'a str, &'a [PageScore])>,
) -> Vec<f64> {
    let mut words: BTreeMap<&str, (Vec<f64>, usize)> = BTreeMap::new();
    let mut snippets: BTreeMap<&str, Vec<SnippetCounts>> = BTreeMap::new();
    // Class-free copies train the models but are not what is measured:
    // the selection serves the pages as written.
    for (corpus, scores) in rows.filter(|(corpus, _)| !corpus.ends_with(CLASS_FREE_SUFFIX)) {
        for (c, score) in scores.iter().enumerate() {
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

/// A choice over some pages and what it was made from.
struct Made {
    /// Every choice's objective.
    objectives: Vec<f64>,
    /// Every choice's objective per site group.
    by_group: Vec<Vec<f64>>,
    /// The choice with the best objective.
    top: usize,
    /// The choice made.
    chosen: usize,
}

/// The one-standard-error choice: the first of `candidates` (choice
/// indices, in order of preference) whose objective lies within one
/// standard error of the best choice's ([`difference`]); the best choice
/// when none does.
fn one_se_choice(objectives: &[f64], by_group: &[Vec<f64>], candidates: &[usize]) -> usize {
    let top = first_max(objectives);
    candidates
        .iter()
        .copied()
        .find(|&c| {
            let (gap, se) = difference(objectives, by_group, top, c);
            gap <= se
        })
        .unwrap_or(top)
}

/// The index of the first largest value (0 when empty).
fn first_max(values: &[f64]) -> usize {
    let mut best = 0;
    for (i, &v) in values.iter().enumerate() {
        if v > values[best] {
            best = i;
        }
    }
    best
}

/// How far choice `c`'s objective lies below choice `top`'s, with the
/// standard error of that difference: the standard deviation of the
/// differences over the site groups (`by_group`, each group's objectives)
/// over the square root of their number (0 with fewer than two groups).
fn difference(objectives: &[f64], by_group: &[Vec<f64>], top: usize, c: usize) -> (f64, f64) {
    let gap = objectives[top] - objectives[c];
    let d: Vec<f64> = by_group.iter().map(|o| o[top] - o[c]).collect();
    let n = d.len() as f64;
    if d.len() < 2 {
        return (gap, 0.0);
    }
    let mean = d.iter().sum::<f64>() / n;
    let var = d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (gap, (var / n).sqrt())
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
    /// The choice with the best objective (the chosen one, or one that
    /// beats it by less than a standard error).
    pub best: Choice,
    /// How far the chosen objective lies below the best.
    pub gap: f64,
    /// The standard error of that difference over the site groups
    /// ([`SE_GROUPS`]).
    pub standard_error: f64,
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
    /// How far it lies below the best choice's.
    pub gap: f64,
    /// The standard error of that difference over the site groups.
    pub standard_error: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_corpus_weighs_the_same_and_class_free_copies_not_at_all() {
        let w = |f: &[f64]| f.iter().map(|&x| PageScore::Word(x)).collect::<Vec<_>>();
        let (a1, a2, b1) = (w(&[0.9, 0.5]), w(&[0.7, 0.5]), w(&[0.2, 0.6]));
        let copy = w(&[0.0, 1.0]);
        let rows = [
            ("a", a1.as_slice()),
            ("a", a2.as_slice()),
            ("b", b1.as_slice()),
        ];
        let got = corpus_objectives(2, rows.iter().copied());
        // Corpus a: 0.8 and 0.5; corpus b: 0.2 and 0.6; each half.
        assert!(
            (got[0] - 0.5).abs() < 1e-12 && (got[1] - 0.55).abs() < 1e-12,
            "{got:?}"
        );
        let copy_name = format!("a{CLASS_FREE_SUFFIX}");
        let with_copy = rows
            .iter()
            .copied()
            .chain([(copy_name.as_str(), copy.as_slice())]);
        assert_eq!(corpus_objectives(2, with_copy), got);
    }

    #[test]
    fn a_preferred_choice_within_one_standard_error_is_taken() {
        let objectives = [0.900, 0.905, 0.906];
        // Differences to the best vary from group to group.
        let by_group = vec![
            vec![0.90, 0.90, 0.91],
            vec![0.90, 0.91, 0.90],
            vec![0.90, 0.905, 0.908],
        ];
        let (gap, se) = difference(&objectives, &by_group, 2, 1);
        assert!(gap <= se, "gap {gap}, se {se}");
        assert_eq!(one_se_choice(&objectives, &by_group, &[1, 2]), 1);
        // Choice 0 lies further below, beyond its error: the next one.
        assert_eq!(one_se_choice(&objectives, &by_group, &[0, 1, 2]), 1);
    }

    #[test]
    fn a_steady_lead_beyond_one_standard_error_wins() {
        let objectives = [0.900, 0.905, 0.930];
        let by_group = vec![
            vec![0.90, 0.905, 0.93],
            vec![0.90, 0.906, 0.931],
            vec![0.90, 0.904, 0.929],
        ];
        assert_eq!(one_se_choice(&objectives, &by_group, &[0, 1, 2]), 2);
        assert_eq!(one_se_choice(&objectives, &by_group, &[0, 1]), 2);
    }

    #[test]
    fn the_standard_error_is_the_spread_of_the_groups_differences() {
        let objectives = [1.0, 0.5];
        let by_group = vec![vec![1.0, 0.0], vec![1.0, 1.0]];
        let (gap, se) = difference(&objectives, &by_group, 0, 1);
        assert_eq!(gap, 0.5);
        // Differences 1 and 0: sample sd 0.7071, over sqrt(2).
        assert!((se - 0.5).abs() < 1e-12, "{se}");
        assert_eq!(difference(&objectives, &by_group[..1], 0, 1).1, 0.0);
    }
}
