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
        let first = md.lines().next().unwrap_or_default();
        // Written on top (`# `), or already the text's first heading.
        assert!(first.starts_with('#'), "{name}: {first}");
        assert_eq!(words(first), words(&title), "{name}: {first}");
        // Never twice: the title's words do not open the rest again.
        let rest: String = md.lines().skip(1).collect::<Vec<_>>().join("\n");
        let t = words(&title);
        let again = words(&rest);
        assert_ne!(again.get(..t.len()), Some(&t[..]), "{name}: twice\n{md}");
        // HTML likewise, and the text stays as it was.
        let html = e.html_with(&titled).unwrap();
        assert_eq!(html.matches("<h1>").count().min(1), 1, "{name}");
        assert_eq!(
            e.markdown_with(&Markup::default()).unwrap(),
            e.markdown().unwrap()
        );
        assert!(!e
            .markdown()
            .unwrap()
            .starts_with(&format!("# {title}\n\n# ")));
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
