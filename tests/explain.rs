//! `explain` on real pages: the charts parse, and have one bar per block in
//! each panel.

mod common;

use dechrome::explain::{explain, write_all, PANELS};
use dechrome::{Extractor, ExtractorConfig};

fn hex(c: plotters::style::RGBColor) -> String {
    format!("#{:02X}{:02X}{:02X}", c.0, c.1, c.2)
}

#[test]
fn charts_have_one_bar_per_block_per_panel() {
    let ex = Extractor::with_embedded_model(ExtractorConfig::default()).unwrap();
    let colors: Vec<String> = dechrome::explain::palette::ALL
        .iter()
        .map(|c| hex(*c))
        .collect();
    for name in [
        "python-blog.html",
        "github-blog.html",
        "tagesschau-rheinmetall.html",
        "article-list.html",
    ] {
        let e = explain(&ex, &common::fixture(name), None).unwrap();
        let n = e.blocks.len();
        assert!(n > 10);
        assert_eq!(
            e.blocks.iter().filter(|b| b.kept).count(),
            ex.extract_bytes(&common::fixture(name), None)
                .unwrap()
                .kept()
        );
        let dir = tempfile::tempdir().unwrap();
        let files = write_all(&e, dir.path()).unwrap();
        assert_eq!(files.len(), 6);

        let svg = std::fs::read_to_string(dir.path().join("blocks.svg")).unwrap();
        let doc = roxmltree::Document::parse(&svg).expect("the SVG is well-formed XML");
        let bars = doc
            .descendants()
            .filter(|n| n.has_tag_name("rect"))
            .filter(|n| {
                n.attribute("fill")
                    .is_some_and(|f| colors.iter().any(|c| c.eq_ignore_ascii_case(f)))
            })
            .count();
        assert_eq!(
            bars,
            PANELS.len() * n,
            "{name}: one bar per block in each of the panels"
        );

        let png = std::fs::read(dir.path().join("blocks.png")).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        roxmltree::Document::parse(&std::fs::read_to_string(dir.path().join("cetr.svg")).unwrap())
            .unwrap();
        let json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.path().join("blocks.json")).unwrap())
                .unwrap();
        assert_eq!(json["blocks"].as_array().unwrap().len(), n);
        assert_eq!(
            json["feature_names"].as_array().unwrap().len(),
            json["blocks"][0]["features"].as_array().unwrap().len()
        );
        let html = std::fs::read_to_string(dir.path().join("page.html")).unwrap();
        assert_eq!(html.matches("<div class=").count(), n);
    }
}

#[test]
fn gold_labels_colour_the_bars() {
    let ex = Extractor::with_embedded_model(ExtractorConfig::default()).unwrap();
    let gold = "We hope you enjoy Python 3.6.0!";
    let e = explain(&ex, &common::fixture("python-blog.html"), Some(gold)).unwrap();
    assert!(e.blocks.iter().all(|b| b.gold.is_some()));
    assert!(e.blocks.iter().any(|b| b.gold == Some(true)));
    // Kept blocks outside that one sentence are false positives.
    assert!(e.blocks.iter().any(|b| b.kept && b.gold == Some(false)));
}

/// The text elements of an SVG.
fn svg_texts(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).unwrap();
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| n.text().unwrap_or_default().trim().to_string())
        .collect()
}

#[test]
fn the_block_chart_has_axes_a_legend_integer_ticks_and_a_named_threshold() {
    let ex = Extractor::with_embedded_model(ExtractorConfig::default()).unwrap();
    let mut lowered = 0;
    for name in [
        "python-blog.html",
        "article-list.html",
        "docs-page.html",
        "github-blog.html",
    ] {
        let e = explain(&ex, &common::fixture(name), None).unwrap();
        assert_eq!(e.model_threshold, ex.threshold());
        let dir = tempfile::tempdir().unwrap();
        write_all(&e, dir.path()).unwrap();
        let texts = svg_texts(&std::fs::read_to_string(dir.path().join("blocks.svg")).unwrap());
        assert!(
            texts.iter().any(|t| t == "block number (page order)"),
            "{name}: {texts:?}"
        );
        assert!(texts.iter().any(|t| t == "probability"), "{name}");
        assert!(texts.iter().any(|t| t == "kept") && texts.iter().any(|t| t == "dropped"));
        // The block-number ticks are integers ("20", never "20.0"): each
        // panel has its x ticks as whole numbers, 0 first.
        let whole = texts
            .iter()
            .filter(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
            .count();
        assert!(whole >= 2 * PANELS.len(), "{name}: {texts:?}");
        assert_eq!(
            texts.iter().filter(|t| t.as_str() == "0").count(),
            PANELS.len()
        );
        let label = texts
            .iter()
            .rfind(|t| t.contains("threshold"))
            .expect("a threshold legend");
        if e.threshold < e.model_threshold {
            lowered += 1;
            assert_eq!(
                label,
                &format!(
                    "page threshold {:.2} (model {:.2}, lowered for a non-prose page)",
                    e.threshold, e.model_threshold
                )
            );
        } else {
            assert_eq!(label, &format!("threshold {:.2}", e.threshold));
        }
    }
    // A model without a low-prose shift decides every page at its threshold.
    let flat = Extractor::with_embedded_model(ExtractorConfig {
        low_prose_shift: Some(0.0),
        ..ExtractorConfig::default()
    })
    .unwrap();
    let e = explain(&flat, &common::fixture("article-list.html"), None).unwrap();
    assert_eq!(
        dechrome::explain::threshold_label(&e),
        format!("threshold {:.2}", e.threshold)
    );
    assert!(lowered > 0, "a fixture decided below the model's threshold");
}

#[test]
fn each_block_the_threshold_did_not_decide_names_its_rule() {
    // On real pages: a block without a rule is kept exactly when it has
    // words and its probability reaches the page's threshold; a block with
    // one was overruled (dropped above the threshold, or kept below it).
    let ex = Extractor::with_embedded_model(ExtractorConfig::default()).unwrap();
    let mut overruled = 0;
    for name in [
        "python-blog.html",
        "github-blog.html",
        "tagesschau-rheinmetall.html",
        "article-list.html",
        "ahlen-reparaturcafe.html",
        "docs-page.html",
    ] {
        let e = explain(&ex, &common::fixture(name), None).unwrap();
        for b in &e.blocks {
            let by_threshold = b.words > 0 && b.probability >= e.threshold;
            match b.rule {
                None => assert_eq!(b.kept, by_threshold, "{name} block {}", b.index),
                Some(rule) => {
                    overruled += 1;
                    let kept_below = rule == dechrome::select::Rule::ShortPage
                        || rule == dechrome::select::Rule::Comments;
                    assert!(b.kept != by_threshold, "{name} block {}: {rule:?}", b.index);
                    assert!(!b.kept || kept_below, "{name} block {}: {rule:?}", b.index);
                }
            }
        }
        // The HTML names the rule on hover, the JSON as a field.
        let html = dechrome::explain::html_page(&e);
        let json = serde_json::to_string(&e).unwrap();
        for b in e.blocks.iter().filter(|b| b.rule.is_some()) {
            let rule = b.rule.unwrap();
            assert!(html.contains(rule.describe(b.kept)), "{name}");
            assert!(json.contains(&format!(
                "\"rule\":{}",
                serde_json::to_string(&rule).unwrap()
            )));
        }
    }
    assert!(
        overruled > 0,
        "the rules overrule some block of these pages"
    );
}

#[test]
fn hostile_pages_are_explained_or_refused_never_a_panic() {
    // Bad input is normal input: empty bytes, binary junk, unclosed and
    // broken markup, a thousand nested elements, a page of nothing but a
    // thread. Each is explained (its rules consistent with what it keeps)
    // or refused with an error.
    let ex = Extractor::with_embedded_model(ExtractorConfig::default()).unwrap();
    let junk: Vec<u8> = (0..20_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    let nested = format!(
        "<html><body>{}text{}</body></html>",
        "<div>".repeat(1000),
        "</div>".repeat(1000)
    );
    let thread: String = (0..50)
        .map(|i| format!("<li><b>Ann</b> <span>May {}, 2024 at 9:{i:02} am</span><p>A reply of a dozen words or so, number {i}, about the post.</p><a href=#r>Reply</a></li>", i % 28 + 1))
        .collect();
    let pages: Vec<Vec<u8>> = vec![
        Vec::new(),
        junk,
        b"<html><body><p>unclosed <b>bold <i>and <table><tr><td>cell".to_vec(),
        b"<<<>>><p/><//p>&#xFFFFFFFF;&bogus;<script>never closed".to_vec(),
        nested.into_bytes(),
        format!("<html><body><ol>{thread}</ol></body></html>").into_bytes(),
    ];
    for (k, bytes) in pages.iter().enumerate() {
        let Ok(e) = explain(&ex, bytes, None) else {
            continue;
        };
        for b in &e.blocks {
            if b.rule.is_none() {
                assert_eq!(
                    b.kept,
                    b.words > 0 && b.probability >= e.threshold,
                    "page {k} block {}",
                    b.index
                );
            }
        }
        let _ = dechrome::explain::html_page(&e);
    }
}
