//! Metadata on hand-made pages and on the real fixture pages.

mod common;

use dechrome::metadata::Metadata;
use dechrome::{Extractor, ExtractorConfig};

fn meta(html: &str) -> Metadata {
    let ex = Extractor::kmeans(ExtractorConfig::default()).unwrap();
    ex.extract_str(html).unwrap().metadata
}

const BODY: &str = "<body><h1>Herring gulls nest on roofs</h1><p>Gulls are everywhere.</p></body>";

#[test]
fn meta_tags_only() {
    let m = meta(&format!(
        r#"<html lang="en-GB"><head><title>Herring gulls nest on roofs | Gull News</title>
        <meta name="author" content="By Jane Doe">
        <meta name="description" content="Why gulls like towns.">
        <meta name="DC.date" content="04.09.2025">
        <link rel="canonical" href="https://gulls.example/roofs">
        </head>{BODY}</html>"#
    ));
    assert_eq!(m.title.as_deref(), Some("Herring gulls nest on roofs"));
    assert_eq!(m.author.as_deref(), Some("Jane Doe"));
    assert_eq!(m.date.as_deref(), Some("2025-09-04"));
    assert_eq!(m.language.as_deref(), Some("en-GB"));
    assert_eq!(
        m.canonical_url.as_deref(),
        Some("https://gulls.example/roofs")
    );
    assert_eq!(m.description.as_deref(), Some("Why gulls like towns."));
}

#[test]
fn opengraph() {
    let m = meta(
        r#"<html><head><title>Gull News</title>
        <meta property="og:title" content="Herring gulls nest on roofs - Gull News">
        <meta property="og:site_name" content="Gull News">
        <meta property="og:url" content="https://gulls.example/roofs">
        <meta property="og:locale" content="en_US">
        <meta property="article:published_time" content="2025-09-04T23:30:00-05:00">
        <meta property="article:author" content="https://facebook.com/janedoe">
        </head><body><h1>Gull News</h1><p>Text.</p></body></html>"#,
    );
    // The h1 is the site's logo, so og:title (site name cut) wins.
    assert_eq!(m.title.as_deref(), Some("Herring gulls nest on roofs"));
    assert_eq!(m.site_name.as_deref(), Some("Gull News"));
    assert_eq!(
        m.canonical_url.as_deref(),
        Some("https://gulls.example/roofs")
    );
    assert_eq!(m.language.as_deref(), Some("en-US"));
    // The date as written, not moved to UTC.
    assert_eq!(m.date.as_deref(), Some("2025-09-04"));
    assert_eq!(m.author, None, "a profile URL is not a name");
}

#[test]
fn json_ld_graph_with_author_array_and_references() {
    let m = meta(&format!(
        r#"<html><head><script type="application/ld+json">
        {{"@context": "https://schema.org", "@graph": [
          {{"@type": "WebSite", "@id": "https://gulls.example/#site", "name": "Gull News"}},
          {{"@type": "Person", "@id": "https://gulls.example/#jane", "name": "Jane Doe"}},
          {{"@type": ["NewsArticle"], "headline": "Herring gulls nest on roofs",
            "datePublished": "2025-09-04T08:00:00+02:00", "dateModified": "2025-09-10",
            "author": [{{"@id": "https://gulls.example/#jane"}}, {{"@type": "Person", "name": "John Roe"}}],
            "inLanguage": "en"}}
        ]}}</script></head>{BODY}</html>"#
    ));
    assert_eq!(m.title.as_deref(), Some("Herring gulls nest on roofs"));
    assert_eq!(m.author.as_deref(), Some("Jane Doe, John Roe"));
    assert_eq!(m.date.as_deref(), Some("2025-09-04"));
    assert_eq!(m.modified.as_deref(), Some("2025-09-10"));
    assert_eq!(m.site_name.as_deref(), Some("Gull News"));
    assert_eq!(m.language.as_deref(), Some("en"));
}

#[test]
fn broken_json_ld_falls_back_without_panicking() {
    // A raw newline inside a string and a trailing comma: repaired.
    let m = meta(&format!(
        "<html><head><script type=\"application/ld+json\">{{\"@type\": \"BlogPosting\",\n\
         \"headline\": \"Herring gulls\nnest on roofs\", \"datePublished\": \"2025-09-04\",\
         \"author\": {{\"name\": \"Jane Doe\"}},}}</script></head>{BODY}</html>"
    ));
    assert_eq!(m.author.as_deref(), Some("Jane Doe"));
    assert_eq!(m.date.as_deref(), Some("2025-09-04"));
    // Truncated JSON: scanned for keys.
    let m = meta(&format!(
        r#"<html><head><script type="application/ld+json">{{"@type": "Article",
        "datePublished": "September 4, 2025", "author": {{"@type": "Person", "name": "Jane Doe"
        </script><meta name="author" content="Someone Else"></head>{BODY}</html>"#
    ));
    assert_eq!(m.date.as_deref(), Some("2025-09-04"));
    assert_eq!(m.author.as_deref(), Some("Jane Doe"));
    // Garbage: other sources decide.
    for junk in [
        "{",
        "]]]",
        "null",
        "\"x\"",
        "{\"@graph\": 5}",
        "[[[[[[[[[[]]]]]]]]]]",
    ] {
        let m = meta(&format!(
            r#"<html><head><script type="application/ld+json">{junk}</script>
            <meta name="author" content="Jane Doe"></head>{BODY}</html>"#
        ));
        assert_eq!(m.author.as_deref(), Some("Jane Doe"), "{junk}");
    }
}

#[test]
fn markup_fallbacks_time_and_byline() {
    let m = meta(
        r#"<html><head><title>Gulls</title></head><body><article>
        <h1>Herring gulls nest on roofs</h1>
        <p class="byline">Posted by Jane Doe</p>
        <time class="entry-date published" datetime="2025-09-04T10:00">4 Sep</time>
        <p>Text.</p></article></body></html>"#,
    );
    assert_eq!(m.author.as_deref(), Some("Jane Doe"));
    assert_eq!(m.date.as_deref(), Some("2025-09-04"));
    // "Gulls" does not contain the h1, and no other title source agrees:
    // the <title> wins over an unconfirmed h1.
    assert_eq!(m.title.as_deref(), Some("Gulls"));
}

#[test]
fn pages_without_metadata_give_none() {
    for html in ["", "<p>just text</p>", "<html lang=''><title>  </title>"] {
        assert_eq!(meta(html), Metadata::default(), "{html:?}");
    }
    // Binary data is no page at all.
    let ex = Extractor::kmeans(ExtractorConfig::default()).unwrap();
    assert!(matches!(
        ex.extract_str("\u{0}\u{1}binary"),
        Err(dechrome::Error::NotHtml)
    ));
}

#[test]
fn real_fixture_pages() {
    let ex = Extractor::kmeans(ExtractorConfig::default()).unwrap();
    let page = |f: &str| {
        ex.extract_bytes(&common::fixture(f), None)
            .unwrap()
            .metadata
    };
    let gh = page("github-blog.html");
    assert_eq!(gh.author.as_deref(), Some("Jessica Rudder"));
    assert_eq!(gh.date.as_deref(), Some("2019-03-29"));
    assert_eq!(gh.language.as_deref(), Some("en-US"));
    assert_ne!(
        gh.title.as_deref(),
        Some("The GitHub Blog"),
        "the logo h1 is not the title"
    );
    let ts = page("tagesschau-rheinmetall.html");
    assert_eq!(ts.language.as_deref(), Some("de"));
    // The page shows "Stand: 28.04.2020 18:00 Uhr" under its headline (its
    // tracking data says 2020-04-28T18:00:22 too); only `<meta name=date>`
    // says 2020-04-29, a later stamp. The shown date wins (issue 40).
    assert_eq!(ts.date.as_deref(), Some("2020-04-28"));
    assert_eq!(
        ts.canonical_url.as_deref(),
        Some("https://www.tagesschau.de/investigativ/ndr/rheinmetall-datenleck-101.html")
    );
    let py = page("python-blog.html");
    assert_eq!(py.title.as_deref(), Some("Python 3.6.0 is now available!"));
    assert_eq!(py.author.as_deref(), Some("Ned Deily"));
    // Blogger: the date is shown in words above the post ("Friday, December
    // 23, 2016", in a widget the page wraps like a sidebar) and declared in
    // hAtom's `<abbr class='published' title='2016-12-23T05:11:00-05:00'>`.
    assert_eq!(py.date.as_deref(), Some("2016-12-23"));
}

#[test]
fn hatom_abbr_dates_are_declared_dates() {
    let m = meta(
        r#"<html><head><title>Gulls</title></head><body><div class="post hentry">
        <h3 class="entry-title">Herring gulls nest on roofs</h3>
        <p>Gulls are everywhere, and on every roof of the harbour town.</p>
        <p>Posted at <abbr class="published" title="2011-03-04T23:30:00-08:00">11:30 PM</abbr>,
        edited <abbr class="updated" title="2011-03-09T08:00:00-08:00">later</abbr>.
        <abbr title="2011-01-01">Jan</abbr> is no hAtom date.</p></div></body></html>"#,
    );
    // The day as written, not shifted through UTC.
    assert_eq!(m.date.as_deref(), Some("2011-03-04"));
    assert_eq!(m.modified.as_deref(), Some("2011-03-09"));
}

#[test]
fn many_nested_author_classes_stay_linear() {
    // 1,000 nested elements all claiming to be bylines, each holding the
    // rest: looking at each one's whole subtree would be quadratic.
    let html = format!(
        "{}{}{}",
        "<div class=author>".repeat(1000),
        "<b>word</b> ".repeat(20_000),
        "</div>".repeat(1000)
    );
    let start = std::time::Instant::now();
    let m = meta(&html);
    assert_eq!(m.author, None);
    assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
}
