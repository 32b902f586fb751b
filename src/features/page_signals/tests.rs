//! Tests of `page_signals`.

use super::*;

#[test]
fn currency_scan_finds_what_a_lower_cased_search_finds() {
    let lower_cased = |t: &str| {
        let t = t.to_lowercase();
        ["$", "€", "£", "¥", "₹", "usd", "eur", "chf"]
            .iter()
            .any(|s| t.contains(s))
    };
    for t in [
        "$5",
        "5 €",
        "£3",
        "¥100",
        "₹ 20",
        "20 USD",
        "Eur 3",
        "CHF",
        "Euro",
        "use",
        "plain 5",
        "ÉUR",
        "İstanbul",
        "",
        "K 5",
        "c",
        "eu",
        "us",
        "\u{20AD} 3",
        "\u{00A4}",
        "€",
        "ceur",
    ] {
        assert_eq!(has_currency(t.as_bytes()), lower_cased(t), "{t:?}");
    }
}

fn signals(html: &str, url: Option<&str>) -> HashMap<&'static str, f32> {
    let doc = crate::parse::parse(html.as_bytes(), None, Default::default()).unwrap();
    let blocks = crate::blocks::split(&doc);
    let mut meta = crate::metadata::extract(&doc);
    meta.canonical_url = url.map(str::to_string);
    let values = page_signals(&doc, &blocks, &meta);
    assert_eq!(values.len(), signal_names().count());
    signal_names().zip(values).collect()
}

#[test]
fn declared_types_come_from_og_json_ld_and_microdata() {
    let s = signals(
        r#"<html><head><meta property="og:type" content="article">
        <script type="application/ld+json">{"@context":"https://schema.org","@type":["Product","Thing"],
        "offers":{"@type":"Offer"}}</script></head>
        <body><div itemscope itemtype="https://schema.org/QAPage"><p>Hello there world.</p></div></body></html>"#,
        None,
    );
    assert_eq!(s["declared.article"], 1.0);
    assert_eq!(s["declared.product"], 1.0);
    assert_eq!(s["declared.forum"], 1.0);
    assert_eq!(s["declared.collection"], 0.0);
}

#[test]
fn a_business_speaking_of_itself_and_its_calls_to_action_are_counted() {
    let service = signals(
        r#"<html><body><h1>Movers</h1>
        <p>We move homes. Our team packs, and our trucks carry everything you own.</p>
        <p>Call us today: WE answer at night.</p>
        <div><a href="/quote">Get a Quote</a></div><div><button>Book now</button></div>
        <div><a href="/contact">Kontakt</a></div>
        </body></html>"#,
        None,
    );
    assert!(service["page.we_share"] > 0.1, "{service:?}");
    assert_eq!(service["page.calls_to_action"], (1.0f32 + 3.0).ln());
    // Three of seven words; "Weather" and "ourselves" are other words.
    let one = signals(
        "<html><body><p>We thank our Weather team, ourselves, US.</p></body></html>",
        None,
    );
    assert!((one["page.we_share"] - 3.0 / 7.0).abs() < 1e-6, "{one:?}");
    let article = signals(
        r#"<html><body><h1>Storm</h1>
        <p>Weather services said the storm would reach the coast by night, and ferries stopped.</p>
        <p>Residents were told to stay inside; schools in the region will stay closed until Monday.</p>
        <p>Öur wérds with accents and ourselves match nothing.</p>
        </body></html>"#,
        None,
    );
    assert_eq!(article["page.we_share"], 0.0);
    assert_eq!(article["page.calls_to_action"], 0.0);
}

#[test]
fn a_paginated_archive_links_its_next_page_and_names_its_pager() {
    let archive = signals(
        r#"<html><head><link rel="next" href="/blog/page/2/"></head><body>
        <h2><a href="/a">One</a></h2><p>First teaser of the archive.</p>
        <nav class="navigation Pagination-wrap"><a class="page-numbers" href="/blog/page/2/">2</a>
        <a rel="Next nofollow" href="/blog/page/2/">Older posts</a></nav></body></html>"#,
        None,
    );
    assert_eq!(archive["page.rel_next"], 2.0);
    assert_eq!(archive["page.pager"], 1.0);
    let article = signals(
        r#"<html><body><div class="page-content"><p>A story, one page long, with a
        <a rel="nofollow" href="/x">link</a> in it.</p></div></body></html>"#,
        None,
    );
    assert_eq!(article["page.rel_next"], 0.0);
    assert_eq!(article["page.pager"], 0.0);
}

#[test]
fn signal_names_are_distinct() {
    let names: std::collections::BTreeSet<&str> = signal_names().collect();
    assert_eq!(names.len(), SIGNAL_COUNT);
}

#[test]
fn headings_count_their_links_anchors_and_calls_to_action() {
    let s = signals(
        r##"<html><body>
        <h2><a href="/a-story">A story</a></h2><p>Teaser one.</p>
        <h3><span><a href="https://x.org/b">Another</a></span></h3><p>Teaser two.</p>
        <h2 id="install">Install<a href="#install">#</a></h2>
        <h4><a href="#use">Use</a></h4>
        <img src="a.png"><img src="b.png"><img src="c.png">
        <button>Buy</button><input type="SUBMIT" value="Go"><input type="text">
        </body></html>"##,
        None,
    );
    assert_eq!(s["page.linked_headings"], 3f32.ln(), "two linked headings");
    assert_eq!(
        s["page.heading_anchors"],
        4f32.ln(),
        "an id and two # links"
    );
    assert_eq!(s["page.images"], 4f32.ln());
    assert_eq!(s["page.buttons"], 3f32.ln());
}

#[test]
fn url_shape_reads_words_dates_and_ids() {
    let s = signals(
        "<p>x</p>",
        Some("https://example.com/forum/threads/123456-how-to?page=2"),
    );
    assert_eq!(s["url.forum"], 1.0);
    assert_eq!(s["url.number"], 1.0);
    assert_eq!(s["url.depth"], 3.0);
    let s = signals("<p>x</p>", Some("https://example.com/2019/11/19/a-story"));
    assert_eq!(s["url.date"], 1.0);
    assert_eq!(s["url.root"], 0.0);
    let s = signals("<p>x</p>", None);
    assert_eq!(s["url.depth"], -1.0);
}

#[test]
fn broken_json_ld_still_gives_its_types_and_never_panics() {
    let s = signals(
        r#"<script type="application/ld+json">{"@type": "DiscussionForumPosting", "x": </script><p>a b</p>"#,
        None,
    );
    assert_eq!(s["declared.forum"], 1.0);
    for junk in [
        "\"@type\"",
        "\"@type\":",
        "\"@type\": [\"a",
        "\"@type\":\"é",
    ] {
        let mut out = Vec::new();
        json_ld_types(junk, &mut out);
    }
}

#[test]
fn a_thread_has_reply_markers_and_repeated_records() {
    let post = r#"<div class="post"><div class="meta">Posted by anna</div><p class="body">I think the valve is broken, try another one first.</p><a>Reply</a></div>"#;
    let html = format!("<html><body><h1>Valve</h1>{}</body></html>", post.repeat(5));
    let s = signals(&html, None);
    assert!(s["page.reply_markers"] >= 5.0, "{s:?}");
    assert!(s["page.record_share"] > 0.8, "{s:?}");
    assert_eq!(s["page.headings"], 1.0);
}
