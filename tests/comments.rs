//! `--comments include|exclude` on hand-made blog posts with comment threads.

mod common;

use dechrome::config::CommentMode;
use dechrome::ExtractorConfig;

const ARTICLE: &str = "The herring gull is a large gull found across the northern hemisphere. \
    It nests on coasts and, more and more, on the roofs of towns, where it feeds on what \
    people leave behind. Adults are grey above and white below, with pink legs.";
const ARTICLE_2: &str = "Young birds are mottled brown and take four years to reach adult \
    plumage, moulting twice a year until they look like their parents.";
const COMMENT: &str = "We had a pair nesting on our chimney last spring and the chicks were \
    noisy every single morning until they fledged in July.";
const COMMENT_2: &str = "Great article, I never knew they took four years to get their grey \
    feathers, that explains the brown ones at the harbour.";

fn page(thread: &str) -> String {
    format!(
        r#"<html><head><title>Herring gulls</title></head><body>
        <nav><a href="/">Home</a> <a href="/birds">Birds</a> <a href="/about">About</a></nav>
        <article><h1>The herring gull</h1><p>{ARTICLE}</p><p>{ARTICLE_2}</p></article>
        {thread}
        <footer>© 2024 Birds of the coast · <a href="/privacy">Privacy</a></footer>
        </body></html>"#
    )
}

fn extract(html: &str, mode: CommentMode) -> String {
    let config = ExtractorConfig {
        comments: mode,
        ..ExtractorConfig::default()
    };
    common::extracted_text(html, config)
}

fn check(html: &str) {
    let included = extract(html, CommentMode::Include);
    let excluded = extract(html, CommentMode::Exclude);
    for text in [&included, &excluded] {
        assert!(text.contains(ARTICLE), "article missing: {text}");
        assert!(text.contains(ARTICLE_2), "article missing: {text}");
    }
    for c in [COMMENT, COMMENT_2] {
        assert!(included.contains(c), "include lost a comment: {included}");
        assert!(!excluded.contains(c), "exclude kept a comment: {excluded}");
    }
    assert!(
        !included.contains("Post Comment"),
        "form labels are not comments"
    );
    // "Leave a Reply" may stay; the reply links (all link text) may not.
    assert!(
        included.matches("Reply").count() <= 1,
        "reply links are not comments: {included}"
    );
}

#[test]
fn wordpress_style_thread_marked_by_classes() {
    check(&page(&format!(
        r##"<div id="comments" class="comments-area"><h2 class="comments-title">2 thoughts on “The herring gull”</h2>
        <ol class="comment-list">
          <li class="comment"><article class="comment-body"><footer class="comment-meta">
            <b class="fn">Ann</b> <a href="#c1">March 4, 2025</a></footer>
            <div class="comment-content"><p>{COMMENT}</p></div>
            <div class="reply"><a class="comment-reply-link" href="#r1">Reply</a></div></article></li>
          <li class="comment"><article class="comment-body">
            <div class="comment-content"><p>{COMMENT_2}</p></div>
            <div class="reply"><a class="comment-reply-link" href="#r2">Reply</a></div></article></li>
        </ol>
        <div id="respond" class="comment-respond"><h3>Leave a Reply</h3>
          <form><p><label>Comment</label><textarea></textarea></p>
          <p><label>Your name and email address will not be published anywhere</label></p>
          <p><button>Post Comment</button></p></form></div>
        </div>"##
    )));
}

#[test]
fn thread_recognised_by_its_heading_alone() {
    check(&page(&format!(
        r#"<section><h2>2 Comments</h2>
        <div><p>{COMMENT}</p><a href="/r1">Reply</a></div>
        <div><p>{COMMENT_2}</p><a href="/r2">Reply</a></div>
        </section>"#
    )));
}

#[test]
fn a_thread_that_is_the_page_is_kept_by_exclude() {
    // A forum: a short question, then the answers, all in comment markup.
    let html = format!(
        r#"<html><body><h1>Why do gulls nest on roofs?</h1><p>Asking for a friend.</p>
        <div class="comments"><div class="comment"><p>{ARTICLE}</p></div>
        <div class="comment"><p>{ARTICLE_2}</p></div>
        <div class="comment"><p>{COMMENT}</p></div></div></body></html>"#
    );
    let excluded = extract(&html, CommentMode::Exclude);
    assert!(excluded.contains(ARTICLE), "{excluded}");
    assert!(excluded.contains(COMMENT), "{excluded}");
}

#[test]
fn a_thread_longer_than_the_post_is_still_excluded() {
    // Eight comments, about three times the post's words: a blog's thread,
    // not the page (the post keeps more than a fifth of the kept words).
    let comments: String = (0..4)
        .map(|i| {
            format!(
                r#"<li class="comment"><p>{COMMENT}</p></li><li class="comment" id="c{i}"><p>{COMMENT_2}</p></li>"#
            )
        })
        .collect();
    let html = page(&format!(
        r#"<div id="comments"><h2>8 Comments</h2><ol class="comment-list">{comments}</ol></div>"#
    ));
    let excluded = extract(&html, CommentMode::Exclude);
    assert!(excluded.contains(ARTICLE), "{excluded}");
    assert!(!excluded.contains(COMMENT), "{excluded}");
    let included = extract(&html, CommentMode::Include);
    assert!(included.contains(COMMENT_2), "{included}");
}

/// A post under an article whose markup names nothing: three posts, each
/// a name and a date over a paragraph and a "Reply" link.
fn unnamed_thread_page() -> String {
    let comments: String = [("Ann", COMMENT), ("Bo", COMMENT_2), ("Cy", COMMENT)]
        .iter()
        .enumerate()
        .map(|(i, (name, text))| {
            format!(
                r##"<li><div><b>{name}</b> <span>March {d}, 2025 at 9:12 am</span></div><p>{text}</p><a href="#r{i}">Reply</a></li>"##,
                d = i + 4
            )
        })
        .collect();
    // With a byline the shipped model types the page an article (without
    // one, a service page: the rule is for articles only).
    page(&format!("<ol>{comments}</ol>")).replace(
        "<h1>The herring gull</h1>",
        "<h1>The herring gull</h1><p>By Jane Doe, March 1, 2025</p>",
    )
}

#[test]
fn a_thread_nothing_names_is_excluded_by_its_shape_under_an_article() {
    let html = unnamed_thread_page();
    let excluded = extract(&html, CommentMode::Exclude);
    assert!(excluded.contains(ARTICLE), "{excluded}");
    assert!(!excluded.contains(COMMENT), "{excluded}");
    assert!(!excluded.contains(COMMENT_2), "{excluded}");
    let kept = common::extracted_text(
        &html,
        ExtractorConfig {
            keep_unnamed_threads: true,
            ..ExtractorConfig::default()
        },
    );
    assert!(kept.contains(ARTICLE), "{kept}");
    assert!(
        kept.contains(COMMENT_2),
        "the classifier keeps them: {kept}"
    );
    // The command line says the same, with and without the flag.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("gull.html");
    std::fs::write(&file, &html).unwrap();
    let path = file.to_str().unwrap();
    for (args, has) in [
        (vec!["extract", path], false),
        (vec!["extract", "--keep-unnamed-threads", path], true),
    ] {
        let out = common::run(&args);
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap().replace('\n', " ");
        assert_eq!(text.contains(COMMENT_2), has, "{args:?}: {text}");
    }
}

#[test]
fn explain_says_which_rule_dropped_a_comment() {
    use dechrome::select::Rule;
    let ex = dechrome::Extractor::with_embedded_model(ExtractorConfig::default()).unwrap();
    let rule_of = |html: &str, text: &str| {
        let e = dechrome::explain::explain(&ex, html.as_bytes(), None).unwrap();
        let b = e.blocks.iter().find(|b| b.text.contains(text)).unwrap();
        (b.kept, b.rule)
    };
    // The classifier keeps these posts; the shape rule drops them.
    let html = unnamed_thread_page();
    assert_eq!(
        rule_of(&html, COMMENT_2),
        (false, Some(Rule::UnnamedThread))
    );
    assert_eq!(rule_of(&html, ARTICLE), (true, None));
    // The command line prints what each rule did.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("gull.html");
    std::fs::write(&file, &html).unwrap();
    let out_dir = dir.path().join("why");
    let out = common::run(&[
        "explain",
        file.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("dropped: a thread found by its shape"),
        "{stderr}"
    );
    let json = std::fs::read_to_string(out_dir.join("blocks.json")).unwrap();
    assert!(json.contains("\"rule\": \"unnamed_thread\""), "{json}");
}

/// WCXB dev page `id` with every `class` and `id` attribute removed, as
/// older pages are written, and its gold text.
fn class_free_page(id: &str) -> (String, String) {
    use std::io::Read;
    let corpus = common::shared_corpora()
        .expect("../shared/corpora must be beside the repository")
        .join("wcxb-dev");
    let gz = std::fs::read(corpus.join(format!("html/{id}.html.gz"))).unwrap();
    let mut raw = Vec::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_end(&mut raw)
        .unwrap();
    let names = regex::Regex::new(r#"(?i)\s(class|id)\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)"#).unwrap();
    let bare = names
        .replace_all(&String::from_utf8_lossy(&raw), "")
        .into_owned();
    assert!(!bare.contains("class="), "every class is gone");
    let truth: serde_json::Value = serde_json::from_slice(
        &std::fs::read(corpus.join(format!("ground-truth/{id}.json"))).unwrap(),
    )
    .unwrap();
    let gold = truth["ground_truth"]["main_content"].as_str().unwrap();
    (bare, gold.to_string())
}

/// Extracts a class-free page ([`class_free_page`]) with and without the
/// unnamed-thread rule and checks that the rule keeps the post (its first
/// twelve words), drops every line the thread's `signature` marks, and that
/// without the rule more than `min_signed` such lines stay.
fn thread_dropped_by_its_shape(id: &str, signature: &str, min_signed: usize) {
    let (bare, gold) = class_free_page(id);
    let opening: String = gold
        .split_whitespace()
        .take(12)
        .collect::<Vec<_>>()
        .join(" ");
    let text = common::extracted_text(&bare, ExtractorConfig::default());
    assert!(text.contains(&opening), "{id}: the post is kept: {text}");
    assert!(
        !text.contains(signature),
        "{id}: no signed comment is kept: {text}"
    );
    assert!(
        text.split_whitespace().count() < 2 * gold.split_whitespace().count(),
        "{id}: {text}"
    );
    let kept = common::extracted_text(
        &bare,
        ExtractorConfig {
            keep_unnamed_threads: true,
            ..ExtractorConfig::default()
        },
    );
    assert!(
        kept.matches(signature).count() > min_signed,
        "{id}: without the rule the thread stays: {kept}"
    );
}

/// Two real blog pages with their class names removed, whose threads only
/// their shape tells: a Slashdot story (WCXB dev 0396), whose comments
/// carry a linked title each, are signed "by anna ( 123 ) writes:" and nest
/// replies many levels deep; and a Movable Type post (0452), whose post and
/// comments are sibling `div`s, each comment signed "Posted by: anna at
/// December 18, 2025 05:48 PM" below its text.
#[test]
#[ignore = "needs ../shared/corpora; run by .ci/run"]
fn real_threads_without_class_names_are_excluded_by_their_shape() {
    thread_dropped_by_its_shape("0396", " writes:", 20);
    thread_dropped_by_its_shape("0452", "Posted by:", 3);
}
