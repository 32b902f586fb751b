//! Boilerpipe's shallow text features (Kohlschütter, Fankhauser & Nejdl,
//! 2010) beyond density: average word and sentence length, the shares of
//! capitalised words, digits and punctuation, date-like text, the block's
//! absolute position, and the verdicts of the two published rule sets.

use ndarray::ArrayViewMut2;

use super::boilerpipe::{classify, RuleVariant};
use super::{FeatureFamily, PageContext};

/// Shallow text statistics of a block's text and boilerpipe's verdicts.
pub struct ShallowFeatures;

const COLUMNS: &[&str] = &[
    "avg_word_len",
    "avg_sentence_words",
    "capitalised_share",
    "digit_share",
    "punctuation_share",
    "ends_with_stop",
    "date_like",
    "rule_words",
    "rule_density",
];

/// Statistics of one text in one pass over its characters.
#[derive(Debug, Default, PartialEq)]
pub struct TextStats {
    /// Words (runs of letters or digits).
    pub words: u32,
    /// Letters and digits.
    pub word_chars: u32,
    /// Words starting with an upper-case letter.
    pub capitalised: u32,
    /// Digit characters.
    pub digits: u32,
    /// Punctuation characters.
    pub punctuation: u32,
    /// Sentence ends (`.`, `!`, `?` and their CJK forms) after a word.
    pub sentence_ends: u32,
    /// Runs of digits that look like a year (4 digits, 1900–2099) or a
    /// day/month separated by `/`, `-` or `.` from more digits.
    pub date_parts: u32,
    /// The last non-space character ends a sentence.
    pub ends_with_stop: bool,
}

/// Counts [`TextStats`] of `text`.
pub fn text_stats(text: &str) -> TextStats {
    let mut s = TextStats::default();
    let (mut in_word, mut digit_run, mut run_value) = (false, 0u32, 0u32);
    let mut prev_sep_after_digits = false;
    let mut last = ' ';
    let end_run = |s: &mut TextStats, digit_run: u32, run_value: u32, sep: bool| {
        if (digit_run == 4 && (1900..2100).contains(&run_value))
            || (sep && (1..=2).contains(&digit_run))
        {
            s.date_parts += 1;
        }
    };
    for c in text.chars() {
        let word_char = c.is_alphanumeric();
        if word_char {
            if !in_word {
                s.words += 1;
                if c.is_uppercase() {
                    s.capitalised += 1;
                }
            }
            s.word_chars += 1;
            if let Some(d) = c.to_digit(10) {
                s.digits += 1;
                digit_run += 1;
                run_value = run_value.saturating_mul(10).saturating_add(d);
            } else {
                digit_run = 0;
                run_value = 0;
            }
        } else {
            let sep = matches!(c, '/' | '-' | '.');
            if digit_run > 0 {
                end_run(&mut s, digit_run, run_value, sep || prev_sep_after_digits);
            }
            prev_sep_after_digits = digit_run > 0 && sep;
            digit_run = 0;
            run_value = 0;
            if !c.is_whitespace() {
                s.punctuation += 1;
                if in_word && matches!(c, '.' | '!' | '?' | '。' | '！' | '？') {
                    s.sentence_ends += 1;
                }
            }
        }
        in_word = word_char;
        if !c.is_whitespace() {
            last = c;
        }
    }
    if digit_run > 0 {
        end_run(&mut s, digit_run, run_value, prev_sep_after_digits);
    }
    s.ends_with_stop = matches!(last, '.' | '!' | '?' | '。' | '！' | '？' | ':');
    s
}

impl FeatureFamily for ShallowFeatures {
    fn name(&self) -> &'static str {
        "shallow"
    }

    fn columns(&self) -> &'static [&'static str] {
        COLUMNS
    }

    fn compute(&self, page: &PageContext<'_>, mut out: ArrayViewMut2<'_, f32>) {
        let blocks = &page.blocks.blocks;
        let words_rule = classify(page.blocks, RuleVariant::Words);
        let density_rule = classify(page.blocks, RuleVariant::Density);
        for (i, b) in blocks.iter().enumerate() {
            let s = text_stats(&b.text);
            let words = s.words.max(1) as f32;
            let mut row = out.row_mut(i);
            row[0] = s.word_chars as f32 / words;
            row[1] = s.words as f32 / s.sentence_ends.max(1) as f32;
            row[2] = s.capitalised as f32 / words;
            row[3] = s.digits as f32 / s.word_chars.max(1) as f32;
            row[4] = s.punctuation as f32 / b.chars.max(1) as f32;
            row[5] = s.ends_with_stop as u8 as f32;
            row[6] = s.date_parts.min(3) as f32;
            row[7] = words_rule[i] as u8 as f32;
            row[8] = density_rule[i] as u8 as f32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_words_sentences_dates() {
        let s = text_stats("Posted on 12/03/2021 by Ann. It rained! Really?");
        assert_eq!(s.words, 10);
        assert_eq!(s.capitalised, 4);
        assert_eq!(s.sentence_ends, 3);
        assert!(s.date_parts >= 2, "{s:?}");
        assert!(s.ends_with_stop);
        let t = text_stats("Home About Contact");
        assert_eq!(t.capitalised, 3);
        assert_eq!(t.sentence_ends, 0);
        assert_eq!(t.date_parts, 0);
        assert!(!t.ends_with_stop);
        assert_eq!(text_stats("").words, 0);
        assert_eq!(text_stats("In 1999 it was").date_parts, 1);
    }
}
