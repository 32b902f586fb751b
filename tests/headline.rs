//! The headline on top of Markdown and HTML output: the fixture news pages
//! start with their title, written once; `title: false` leaves it out, and
//! the text is the same either way.

mod common;

use dechrome::output::Markup;
use dechrome::{Extractor, ExtractorConfig};

const NEWS: &[&str] = &[
    "tagesschau-rheinmetall.html",
    "news-ar.html",
    "news-zh.html",
    "python-blog.html",
    "github-blog.html",
];

fn extractor() -> Extractor {
    Extractor::with_embedded_model(ExtractorConfig {
        structure: true,
        ..ExtractorConfig::default()
    })
    .unwrap()
}

/// Lower-cased words, as the headline check compares them.
fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The heading line written for a title (no Markdown characters in the
/// fixture titles, so nothing to escape).
fn title_line(title: &str) -> String {
    format!("# {}", title.trim())
}

#[test]
fn markdown_of_news_pages_starts_with_the_headline_once() {
    let ex = extractor();
    let titled = Markup {
        title: true,
        ..Markup::default()
    };
    for name in NEWS {
        let bytes = std::fs::read(common::root().join("tests/fixtures").join(name)).unwrap();
        let e = ex.extract_bytes(&bytes, None).unwrap();
        let title = e.metadata.title.clone().expect("news pages have a title");
        let md = e.markdown_with(&titled).unwrap();
        let plain = e.markdown().unwrap();
        let t = words(&title);
        // The output opens with the headline's words ...
        assert_eq!(words(&md).get(..t.len()), Some(&t[..]), "{name}\n{md}");
        let first = md.lines().next().unwrap_or_default();
        assert!(first.starts_with('#'), "{name}: {first}");
        if md != plain {
            // ... written on top only when the kept text does not open
            // with them: never twice.
            assert_eq!(md, format!("{}\n\n{plain}", title_line(&title)), "{name}");
            assert_ne!(words(&plain).get(..t.len()), Some(&t[..]), "{name}: twice");
        }
        // HTML likewise: an `<h1>` written when the Markdown got one.
        let html = e.html_with(&titled).unwrap();
        if md != plain {
            assert_eq!(
                html.matches("<h1>").count(),
                1 + e.html().unwrap().matches("<h1>").count(),
                "{name}"
            );
        }
    }
}

#[test]
fn a_page_whose_text_starts_with_the_title_keeps_one_heading() {
    let ex = extractor();
    let html = "<html><head><title>Gulls nest on roofs | Gull News</title></head><body>\
        <article><h1>Gulls nest on roofs</h1><p>Herring gulls have learned to nest on flat \
        roofs in coastal towns, where foxes cannot reach the eggs and the warm gravel keeps \
        the clutch dry through cold nights.</p><p>Their colonies now grow faster on roofs \
        than on the cliffs nearby, counts from three towns show.</p></article></body></html>";
    let e = ex.extract_str(html).unwrap();
    let titled = Markup {
        title: true,
        ..Markup::default()
    };
    let md = e.markdown_with(&titled).unwrap();
    let heads = md
        .lines()
        .filter(|l| words(l) == words("Gulls nest on roofs"))
        .count();
    assert_eq!(heads, 1, "{md}");
    assert!(md.starts_with("# Gulls nest on roofs"), "{md}");
    // Without the setting, nothing is added.
    let plain = e.markdown().unwrap();
    if !e.text.starts_with("Gulls nest on roofs") {
        assert!(!plain.contains("# Gulls nest on roofs"), "{plain}");
    }
}
