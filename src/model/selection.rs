//! The selection constants a trained model carries beside its threshold.

use serde::{Deserialize, Serialize};

/// The selection constants training chooses out of fold with the
/// threshold (see `TrainConfig::selection`) and stores in the model file;
/// the selection stage (`crate::select`) applies them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LearnedSelection {
    /// How far the threshold falls on a page whose kept text is not prose
    /// (`select::page_threshold`).
    pub low_prose_shift: f32,
    /// Comment regions hold the page's main content (a forum thread, a
    /// Q&A page), and `--comments exclude` keeps them, when less than this
    /// share of the kept words lies outside them
    /// (`select::exclude_comments`).
    pub comments_main_share: f32,
    /// The same share on pages the page-type classifier takes for a forum
    /// or Q&A thread (`select::SelectConfig::page_type`): 1 keeps every
    /// thread it detects there; equal to `comments_main_share`, the type
    /// makes no difference.
    pub forum_comments_main_share: f32,
}

impl Default for LearnedSelection {
    /// The values every model of format 2 is extracted with, and a model
    /// trained without cross-validation (training's grids try them too;
    /// see `TrainConfig::comments_main_share_grid` for the order):
    ///
    /// - low-prose shift 0.08: it raised WCXB dev out of fold as extracted
    ///   by 0.003–0.004 (two seeds) and left the news corpora and
    ///   trafilatura-eval's snippets within ±0.001 (docs/experiments.md,
    ///   "Pages that are not prose");
    /// - comments' main share 0.2: on the 35 forum pages of WCXB dev whose
    ///   thread the cross-validated model keeps, at most 0.17 of the kept
    ///   words lie outside it; on the article pages whose kept comments
    ///   outweigh the post, 0.19 to 0.49. A fifth keeps every such forum
    ///   thread and drops blog threads up to four times as long as their
    ///   post.
    fn default() -> Self {
        LearnedSelection {
            low_prose_shift: 0.08,
            comments_main_share: 0.2,
            forum_comments_main_share: 0.2,
        }
    }
}

impl LearnedSelection {
    /// Checks that every constant lies in 0..=1; returns what is wrong.
    pub fn check(&self) -> std::result::Result<(), String> {
        let LearnedSelection {
            low_prose_shift,
            comments_main_share,
            forum_comments_main_share,
        } = *self;
        if [
            low_prose_shift,
            comments_main_share,
            forum_comments_main_share,
        ]
        .iter()
        .all(|v| (0.0..=1.0).contains(v))
        {
            Ok(())
        } else {
            Err(format!(
                "selection constants outside 0..=1 (low-prose shift {low_prose_shift}, comments' main share {comments_main_share}, on forum pages {forum_comments_main_share})"
            ))
        }
    }
}
