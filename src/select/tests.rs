use super::*;

fn page(words: &[u32]) -> Blocks {
    crate::blocks::blocks_of_words(words)
}

fn linked(words: &[(u32, u32)]) -> Blocks {
    let mut b = page(&words.iter().map(|w| w.0).collect::<Vec<_>>());
    for (block, &(_, links)) in b.blocks.iter_mut().zip(words) {
        block.link_words = links;
    }
    b
}

fn model_select(threshold: f32) -> SelectConfig {
    SelectConfig::for_model(threshold, LearnedSelection::default())
}

#[test]
fn a_short_page_where_nothing_passes_keeps_its_best_blocks() {
    // Short means under 10 blocks with words.
    let cfg = model_select(0.5);
    let short = page(&[3, 0, 30, 25]);
    let probs = [0.01, 0.9, 0.28, 0.15];
    assert_eq!(
        keep(&short, &probs, &cfg),
        [false, false, true, true],
        "within half of the best (0.28), with words"
    );
    assert_eq!(
        keep(&short, &[0.01, 0.0, 0.6, 0.15], &cfg),
        [false, false, true, false],
        "something passed: the threshold alone decides"
    );
    let long = page(&[10; 12]);
    assert_eq!(keep(&long, &[0.3; 12], &cfg), [false; 12]);
    let off = SelectConfig {
        short_page_blocks: 0,
        ..cfg
    };
    assert_eq!(keep(&short, &probs, &off), [false; 4]);
}

#[test]
fn the_threshold_falls_only_on_a_page_whose_kept_text_is_not_prose() {
    // An article: two paragraphs of 60 and 45 words hold 105 of the
    // 120 kept words (the 15-word line and the 5 links are not prose).
    let article = linked(&[(60, 0), (45, 2), (15, 15), (5, 5)]);
    let probs = [0.9, 0.7, 0.5, 0.3];
    assert!((kept_prose_share(&article, &probs, 0.4) - 105.0 / 120.0).abs() < 1e-9);
    assert_eq!(page_threshold(&article, &probs, 0.4, 0.1), 0.4);
    // A listing: records of 12 words and a link-heavy 50-word block;
    // no kept word is prose, so the threshold falls by the shift.
    // (A 24-word record would not be prose either, a 25-word one is.)
    let listing = linked(&[(12, 3), (12, 3), (50, 20), (12, 3), (3, 3)]);
    let probs = [0.6, 0.45, 0.5, 0.33, 0.1];
    assert_eq!(kept_prose_share(&listing, &probs, 0.4), 0.0);
    assert!((page_threshold(&listing, &probs, 0.4, 0.1) - 0.3).abs() < 1e-6);
    assert_eq!(page_threshold(&listing, &probs, 0.4, 0.0), 0.4, "no shift");
    assert_eq!(
        page_threshold(&listing, &probs, 0.05, 0.1),
        0.0,
        "not below 0"
    );
    // Nothing kept counts as not prose: the threshold falls.
    assert!((page_threshold(&listing, &[0.0; 5], 0.4, 0.1) - 0.3).abs() < 1e-6);
    // The stage applies it: the 0.33 record is kept with a shift of 0.1.
    let shifted = SelectConfig {
        low_prose_shift: 0.1,
        ..model_select(0.4)
    };
    assert_eq!(
        keep(&listing, &probs, &shifted),
        [true, true, true, true, false]
    );
}

#[test]
fn fewer_probabilities_than_blocks_keep_only_the_ones_given() {
    // A caller's mistake must not panic the stage.
    let b = page(&[20, 20, 20]);
    assert_eq!(keep(&b, &[0.9], &model_select(0.5)), [true, false, false]);
}
