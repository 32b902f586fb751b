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
