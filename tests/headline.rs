//! The headline on top of Markdown and HTML output: the fixture news pages
//! start with their title, written once (a heading that held it below a
//! date line moves to the top); `title: false` leaves it out, and the text
//! is the same either way.

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

/// Markdown heading lines whose words are the title's.
fn title_headings(md: &str, title: &str) -> usize {
    md.lines()
        .filter(|l| l.starts_with('#') && words(l) == words(title))
        .count()
}

/// HTML headings (`<h1>` … `<h6>`) whose words are the title's.
fn html_title_headings(html: &str, title: &str) -> usize {
    let mut n = 0;
    let mut rest = html;
    while let Some(at) = rest.find("<h") {
        rest = &rest[at + 2..];
        let Some(level) = rest.chars().next().filter(|c| ('1'..='6').contains(c)) else {
            continue;
        };
        let close = format!("</h{level}>");
        if let Some(end) = rest.find(&close) {
            let inner = &rest[rest.find('>').map_or(0, |i| i + 1)..end];
            n += usize::from(words(inner) == words(title));
            rest = &rest[end..];
        }
    }
    n
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
        // The output opens with the headline's words, as a heading ...
        assert_eq!(words(&md).get(..t.len()), Some(&t[..]), "{name}\n{md}");
        let first = md.lines().next().unwrap_or_default();
        assert!(first.starts_with('#'), "{name}: {first}");
        // ... and never adds a second one: a heading that held the title
        // below a date line moved to the top rather than stay twice.
        assert_eq!(
            title_headings(&md, &title),
            title_headings(&plain, &title).max(1),
            "{name}\n{md}"
        );
        if md != plain {
            assert_ne!(words(&plain).get(..t.len()), Some(&t[..]), "{name}: twice");
        }
        // HTML likewise.
        let html = e.html_with(&titled).unwrap();
        let plain_html = e.html().unwrap();
        assert_eq!(
            html_title_headings(&html, &title),
            html_title_headings(&plain_html, &title).max(1),
            "{name}\n{html}"
        );
    }
}

#[test]
fn a_headline_below_the_date_line_moves_to_the_top() {
    // The blog page shows its date as an `<h2>` and the post's title as an
    // `<h3>` under it: the Markdown opens with the title, then the date,
    // and the `<h3>` is not repeated.
    let ex = extractor();
    let bytes = std::fs::read(common::root().join("tests/fixtures/python-blog.html")).unwrap();
    let e = ex.extract_bytes(&bytes, None).unwrap();
    let titled = Markup {
        title: true,
        ..Markup::default()
    };
    let md = e.markdown_with(&titled).unwrap();
    let lines: Vec<&str> = md.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines[0], "# Python 3.6.0 is now available!", "{md}");
    assert_eq!(lines[1], "## Friday, December 23, 2016", "{md}");
    assert!(!md.contains("### Python 3.6.0"), "{md}");
    // The text format is unchanged: the date line, then the headline.
    assert!(e
        .text
        .starts_with("Friday, December 23, 2016\nPython 3.6.0 is now available!"));
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
