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
    // The blocks kept below the threshold say why.
    let (kept, rules) = keep_with_rules(&short, &probs, &cfg);
    assert_eq!(kept, keep(&short, &probs, &cfg));
    assert_eq!(
        rules,
        [None, None, Some(Rule::ShortPage), Some(Rule::ShortPage)]
    );
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

/// A post of `post` sentences with a thread of `replies` replies under it
/// in a comment region, every block given probability 0.9.
fn post_with_thread(post: usize, replies: usize) -> (Blocks, Vec<f32>) {
    let sentence = "<p>The river rose again last night and the ferry stayed on the far bank.</p>";
    let thread: String = (0..replies)
        .map(|i| {
            format!(
                r#"<div class="comment"><p>Reply {i}: we saw the same thing from bridge {i} this morning, higher than last year.</p></div>"#
            )
        })
        .collect();
    let html = format!(
        r#"<html><body><article>{}</article><div id="comments">{thread}</div></body></html>"#,
        (0..post)
            .map(|i| sentence.replace("night", &format!("night {i}")))
            .collect::<String>(),
    );
    let doc = crate::parse::parse(html.as_bytes(), None, Default::default()).unwrap();
    let blocks = crate::blocks::split(&doc);
    let probs = vec![0.9; blocks.blocks.len()];
    (blocks, probs)
}

fn kept_words(blocks: &Blocks, kept: &[bool]) -> u32 {
    blocks
        .blocks
        .iter()
        .zip(kept)
        .filter(|(_, &k)| k)
        .map(|(b, _)| b.words)
        .sum()
}

#[test]
fn a_forum_keeps_its_thread_where_an_article_drops_it() {
    let learned = LearnedSelection {
        comments_main_share: 0.2,
        forum_comments_main_share: 1.0,
        ..LearnedSelection::default()
    };
    let cfg = SelectConfig::for_model(0.5, learned);
    // A post of 3 sentences under 6 replies: a third of the kept words lie
    // outside the thread, so an article drops the thread...
    let (blocks, probs) = post_with_thread(3, 6);
    let all = kept_words(&blocks, &above_threshold(&blocks, &probs, &cfg));
    let article = keep(&blocks, &probs, &cfg.for_page(Some(PageType::Article)));
    assert!(kept_words(&blocks, &article) < all / 2);
    // ...and a forum keeps it.
    let forum = keep(&blocks, &probs, &cfg.for_page(Some(PageType::Forum)));
    assert_eq!(kept_words(&blocks, &forum), all);
    assert!(all > 0);
    // Without a page type the other pages' share decides, as before.
    let untyped = keep(&blocks, &probs, &cfg.for_page(None));
    assert_eq!(untyped, article);
    assert_eq!(cfg.for_page(None).main_share(), f64::from(0.2f32));
    assert_eq!(cfg.for_page(Some(PageType::Forum)).main_share(), 1.0);
}

#[test]
fn a_product_page_drops_its_customer_reviews_where_an_article_keeps_a_review() {
    let description =
        "<p>A brass desk lamp with a linen shade, a dimmer and a two-metre cable.</p>";
    let reviews: String = (0..4)
        .map(|i| {
            format!(
                r#"<div class="review-body"><p>Review {i}: bright enough to read by, and the dimmer works well at night.</p></div>"#
            )
        })
        .collect();
    let html = format!(
        r#"<html><body><div class="product">{}</div><section class="product-reviews">{reviews}</section></body></html>"#,
        description.repeat(3)
    );
    let doc = crate::parse::parse(html.as_bytes(), None, Default::default()).unwrap();
    let blocks = crate::blocks::split(&doc);
    let probs = vec![0.9; blocks.blocks.len()];
    let cfg = model_select(0.5);
    let all = kept_words(&blocks, &above_threshold(&blocks, &probs, &cfg));
    let product = keep(&blocks, &probs, &cfg.for_page(Some(PageType::Product)));
    let reviewed = |kept: &[bool]| {
        blocks
            .blocks
            .iter()
            .zip(kept)
            .any(|(b, &k)| k && b.text.starts_with("Review"))
    };
    assert!(!reviewed(&product), "the reviews are readers' words");
    assert!(kept_words(&blocks, &product) > 0);
    // An article's "review" classes may be its text: kept.
    let article = keep(&blocks, &probs, &cfg.for_page(Some(PageType::Article)));
    assert_eq!(kept_words(&blocks, &article), all);
    // `--comments include` keeps them on a product page too.
    let include = SelectConfig {
        comments: CommentMode::Include,
        ..cfg
    };
    let kept = keep(&blocks, &probs, &include.for_page(Some(PageType::Product)));
    assert!(reviewed(&kept));
}

#[test]
fn an_unnamed_thread_is_dropped_from_an_article_only() {
    let post = "<p>The barn had stood for a hundred years before the storm took its roof, \
                and we spent the whole summer putting it back together board by board, \
                beam by beam, with help from every neighbour who owned a ladder.</p>";
    let replies: String = ["anna", "bob", "carla", "dev"]
        .iter()
        .enumerate()
        .map(|(i, name)| {
            format!(
                "<li><div><a href=http://{name}.example>{name}</a> <span>March {d}, 2012 at \
                 5:14 pm</span></div><p>Reply {i}: a lovely project, the new beams look great \
                 and sturdy from here.</p><a href=#r>Reply</a></li>",
                d = i + 3
            )
        })
        .collect();
    let html = format!(
        "<html><body><article>{}</article><ol>{replies}</ol></body></html>",
        post.repeat(3)
    );
    let doc = crate::parse::parse(html.as_bytes(), None, Default::default()).unwrap();
    let blocks = crate::blocks::split(&doc);
    let probs = vec![0.9; blocks.blocks.len()];
    let cfg = model_select(0.5);
    let has_replies = |kept: &[bool]| {
        blocks
            .blocks
            .iter()
            .zip(kept)
            .any(|(b, &k)| k && b.text.starts_with("Reply 2"))
    };
    let article = keep(&blocks, &probs, &cfg.for_page(Some(PageType::Article)));
    assert!(!has_replies(&article), "readers' comments under an article");
    assert!(kept_words(&blocks, &article) >= 3 * 30, "the post stays");
    // A forum's replies are its content; a page without a type, or with
    // the rule off, keeps them as before.
    for kept in [
        keep(&blocks, &probs, &cfg.for_page(Some(PageType::Forum))),
        keep(&blocks, &probs, &cfg),
        keep(
            &blocks,
            &probs,
            &SelectConfig {
                unnamed_threads: false,
                ..cfg
            }
            .for_page(Some(PageType::Article)),
        ),
    ] {
        assert!(has_replies(&kept));
    }
    // The rules say which dropped the replies.
    let (kept, rules) = keep_with_rules(&blocks, &probs, &cfg.for_page(Some(PageType::Article)));
    assert_eq!(kept, article);
    for (b, r) in blocks.blocks.iter().zip(&rules) {
        if b.text.starts_with("Reply 2") {
            assert_eq!(*r, Some(Rule::UnnamedThread));
        }
    }
    // Training finds the threads once per page and refines many kept sets
    // with them: the same blocks as finding them at each refinement.
    let article_cfg = cfg.for_page(Some(PageType::Article));
    let threads = unnamed_threads(&blocks, &article_cfg);
    assert!(threads.iter().any(|&f| f), "the replies are found");
    for threshold in [0.5, 0.95] {
        let first = above_threshold(&blocks, &probs, &model_select(threshold));
        let (mut once, mut each) = (first.clone(), first);
        refine_with_threads(&blocks, &mut once, &article_cfg, &threads);
        refine(&blocks, &mut each, &article_cfg);
        assert_eq!(once, each);
    }
    // Nothing to find where the rule does not apply.
    assert!(unnamed_threads(&blocks, &cfg.for_page(Some(PageType::Forum))).is_empty());
    let include = SelectConfig {
        comments: CommentMode::Include,
        ..article_cfg
    };
    assert!(unnamed_threads(&blocks, &include).is_empty());
}

#[test]
fn a_caption_named_by_its_class_is_dropped_on_articles_only() {
    let sentence = "The river rose over its banks in the night, and by the morning the \
                    lower street stood in water that had come down from the hills. ";
    let html = format!(
        r#"<html><body><article><p>{0}</p><div class="wp-caption"><img src="a.jpg">
        <p class="wp-caption-text">Water in the lower street on Tuesday morning.</p></div>
        <p>{0}</p><figure><img src="b.jpg"><figcaption>The bridge at noon.</figcaption>
        </figure><p>{0}</p></article></body></html>"#,
        sentence.repeat(3)
    );
    let doc = crate::parse::parse(html.as_bytes(), None, Default::default()).unwrap();
    let blocks = crate::blocks::split(&doc);
    let probs = vec![0.9; blocks.blocks.len()];
    let cfg = model_select(0.5);
    let kept_text = |page_type| -> String {
        let kept = keep(&blocks, &probs, &cfg.for_page(page_type));
        blocks
            .blocks
            .iter()
            .zip(kept)
            .filter(|(_, k)| *k)
            .map(|(b, _)| b.text.as_str())
            .collect::<Vec<_>>()
            .join(" | ")
    };
    let article = kept_text(Some(PageType::Article));
    assert!(!article.contains("Water in the lower street"), "{article}");
    assert!(!article.contains("The bridge at noon"), "{article}");
    assert!(article.contains("The river rose"), "{article}");
    // On other pages a class that says "caption" may hold the items' own
    // text (a gallery, a shop): only <figcaption> is a caption there.
    for other in [Some(PageType::Product), Some(PageType::Collection), None] {
        let text = kept_text(other);
        assert!(
            text.contains("Water in the lower street"),
            "{other:?}: {text}"
        );
        assert!(!text.contains("The bridge at noon"), "{other:?}: {text}");
    }
    let (_, rules) = keep_with_rules(&blocks, &probs, &cfg.for_page(Some(PageType::Article)));
    assert_eq!(
        rules.iter().filter(|r| **r == Some(Rule::Caption)).count(),
        2,
        "{rules:?}"
    );
}

#[test]
fn a_caption_span_that_opens_a_paragraph_does_not_take_the_paragraph() {
    // The paragraph's block starts inside the caption <span>; its layout
    // element is the <p>, which no caption holds.
    let html = r#"<html><body><article><p><span class="caption">Photo: the harbour</span>
        The river rose over its banks in the night, and by the morning the lower street
        stood in water.</p><p>The water went down by noon, and the street was swept.</p>
        </article></body></html>"#;
    let doc = crate::parse::parse(html.as_bytes(), None, Default::default()).unwrap();
    let blocks = crate::blocks::split(&doc);
    let probs = vec![0.9; blocks.blocks.len()];
    let cfg = model_select(0.5).for_page(Some(PageType::Article));
    let kept = keep(&blocks, &probs, &cfg);
    let text: Vec<&str> = blocks
        .blocks
        .iter()
        .zip(&kept)
        .filter(|(_, k)| **k)
        .map(|(b, _)| b.text.as_str())
        .collect();
    assert!(
        text.iter().any(|t| t.contains("The river rose")),
        "{text:?}"
    );
}
