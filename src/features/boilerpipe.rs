//! The shallow-text decision rules published by Kohlschütter, Fankhauser &
//! Nejdl (2010, "Boilerplate detection using shallow text features"): two
//! small decision trees over the link density, word count or text density
//! of a block and its neighbours.

use super::text::{link_density, text_density};
use crate::blocks::{Block, Blocks};

/// Which of the two published rule sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleVariant {
    /// The word-count rules (boilerpipe's `NumWordsRulesClassifier`).
    Words,
    /// The text-density rules (boilerpipe's `DensityRulesClassifier`).
    Density,
}

struct Shallow {
    words: f32,
    density: f32,
    link: f32,
}

fn shallow(b: Option<&Block>) -> Shallow {
    match b {
        Some(b) => Shallow {
            words: b.words as f32,
            density: text_density(b),
            link: link_density(b),
        },
        // Beyond the page's ends: an empty block.
        None => Shallow {
            words: 0.0,
            density: 0.0,
            link: 0.0,
        },
    }
}

/// Content verdict per block by the published rules.
pub fn classify(blocks: &Blocks, variant: RuleVariant) -> Vec<bool> {
    let b = &blocks.blocks;
    (0..b.len())
        .map(|i| {
            let prev = shallow(i.checked_sub(1).and_then(|j| b.get(j)));
            let curr = shallow(b.get(i));
            let next = shallow(b.get(i + 1));
            let content = match variant {
                RuleVariant::Words => words_rule(&prev, &curr, &next),
                RuleVariant::Density => density_rule(&prev, &curr, &next),
            };
            content && b[i].words > 0
        })
        .collect()
}

fn words_rule(prev: &Shallow, curr: &Shallow, next: &Shallow) -> bool {
    if curr.link > 0.333333 {
        return false;
    }
    if prev.link <= 0.555556 {
        if curr.words <= 16.0 {
            if next.words <= 15.0 {
                prev.words > 4.0
            } else {
                true
            }
        } else {
            true
        }
    } else if curr.words <= 40.0 {
        next.words > 17.0
    } else {
        true
    }
}

fn density_rule(prev: &Shallow, curr: &Shallow, next: &Shallow) -> bool {
    if curr.link > 0.333333 {
        return false;
    }
    if prev.link <= 0.555556 {
        if curr.density <= 9.0 {
            if next.density <= 10.0 {
                prev.density > 4.0
            } else {
                true
            }
        } else {
            true
        }
    } else {
        next.density > 11.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{parse, ParseLimits};

    fn blocks(html: &str) -> Blocks {
        crate::blocks::split(&parse(html.as_bytes(), None, ParseLimits::default()).unwrap())
    }

    #[test]
    fn link_heavy_blocks_are_boilerplate_and_long_text_is_content() {
        let b = blocks(
            "<div><a href=/a>Home</a> <a href=/b>About us</a></div>\
             <div>Published on Monday by the editors of this site</div>\
             <p>This paragraph is long enough to be content under both rule sets because it has well over forty words of plain running text in it, with no links at all, and it keeps going for a while longer so that its text density is high too.</p>\
             <div>Short</div>",
        );
        for v in [RuleVariant::Words, RuleVariant::Density] {
            let c = classify(&b, v);
            assert!(!c[0], "{v:?}: the link block");
            assert!(c[2], "{v:?}: the paragraph");
        }
    }

    #[test]
    fn word_rule_uses_neighbours() {
        // A short block between a 5-word block and a short block: content
        // only because the previous block has more than 4 words.
        let prev = Shallow {
            words: 5.0,
            density: 5.0,
            link: 0.0,
        };
        let curr = Shallow {
            words: 3.0,
            density: 3.0,
            link: 0.0,
        };
        let next = Shallow {
            words: 2.0,
            density: 2.0,
            link: 0.0,
        };
        assert!(words_rule(&prev, &curr, &next));
        let prev = Shallow { words: 4.0, ..prev };
        assert!(!words_rule(&prev, &curr, &next));
    }
}
