//! Pages that are not prose: where paragraphs hold under half of the words
//! kept at the model's threshold (a listing, a shop's category page), the
//! threshold falls by the low-prose shift (the model's, chosen out of fold,
//! or `ExtractorConfig::low_prose_shift`); on an article it stays.

mod common;

use common::{page, PARAGRAPHS};
use dechrome::parse::{parse, ParseLimits};
use dechrome::{blocks, Extractor, ExtractorConfig};

/// The shift these tests set: the value models of format 2 used.
const SHIFT: f32 = 0.08;

fn extractor(low_prose_shift: f32) -> Extractor {
    Extractor::with_embedded_model(ExtractorConfig {
        low_prose_shift: Some(low_prose_shift),
        ..ExtractorConfig::default()
    })
    .unwrap()
}

/// The model's threshold and the threshold `html`'s blocks are decided at.
fn thresholds(html: &str, low_prose_shift: f32) -> (f32, f32) {
    let ex = extractor(low_prose_shift);
    let doc = parse(html.as_bytes(), None, ParseLimits::default()).unwrap();
    let b = blocks::split(&doc);
    let (probs, algorithm) = ex.decide(&b);
    (ex.threshold(), ex.page_threshold(&b, &probs, algorithm))
}

/// An article of two paragraphs of 40+ words each.
fn article() -> String {
    page(&format!(
        "<p>{} {}</p><p>{} {}</p>",
        PARAGRAPHS[0], PARAGRAPHS[1], PARAGRAPHS[2], PARAGRAPHS[0]
    ))
}

/// A shop's category page: ten product records of a name, a line and a price.
fn listing() -> String {
    let items = [
        (
            "blue-wool-scarf",
            "Blue wool scarf",
            "Hand-knitted from undyed wool, 180 cm long.",
        ),
        (
            "grey-cable-hat",
            "Grey cable hat",
            "A cable-knit hat lined with soft fleece.",
        ),
        (
            "red-mittens",
            "Red mittens",
            "Felted mittens that keep out the harbour wind.",
        ),
        (
            "oak-pipe-rack",
            "Oak pipe rack",
            "Turned from one piece of local oak.",
        ),
        (
            "sea-glass-pendant",
            "Sea glass pendant",
            "Beach glass set in recycled silver.",
        ),
        (
            "linen-apron",
            "Linen apron",
            "Washed linen with two deep front pockets.",
        ),
        (
            "driftwood-frame",
            "Driftwood frame",
            "Holds a postcard or a small print.",
        ),
        (
            "rope-doormat",
            "Rope doormat",
            "Woven from old mooring rope by hand.",
        ),
        (
            "tide-table-print",
            "Tide table print",
            "This year's tides, printed on cotton paper.",
        ),
        (
            "lighthouse-mug",
            "Lighthouse mug",
            "Stoneware, glazed in the harbour's colours.",
        ),
    ];
    let records: String = items
        .iter()
        .enumerate()
        .map(|(i, (slug, name, line))| {
            format!(
                r#"<li class="product"><a href="/products/{slug}">{name}</a>
                <p>{line}</p><span class="price">€{}.00</span></li>"#,
                12 + 3 * i
            )
        })
        .collect();
    page(&format!(
        r#"<p>Knitwear and gifts made along the coast.</p><ul class="products">{records}</ul>"#
    ))
}

#[test]
fn the_threshold_falls_on_a_listing_and_stays_on_an_article() {
    let shift = SHIFT;
    let (model, at) = thresholds(&article(), shift);
    assert_eq!(at, model, "an article is decided at the model's threshold");
    let (model, at) = thresholds(&listing(), shift);
    assert!(
        (at - (model - shift)).abs() < 1e-6,
        "a listing is decided at {at}, the model's threshold is {model}"
    );
    let (model, at) = thresholds(&listing(), 0.0);
    assert_eq!(at, model, "a shift of 0 is one threshold for every page");
}

#[test]
fn the_lower_threshold_keeps_at_least_what_the_model_s_threshold_keeps() {
    let html = listing();
    let flat = extractor(0.0).extract_str(&html).unwrap();
    let lowered = extractor(SHIFT).extract_str(&html).unwrap();
    for (f, l) in flat.blocks.iter().zip(&lowered.blocks) {
        assert!(!f.content || l.content, "lost: {}", f.text);
    }
    let kept = |e: &dechrome::Extraction| e.blocks.iter().filter(|b| b.content).count();
    assert!(kept(&lowered) >= kept(&flat));
}

#[test]
fn without_an_override_the_model_s_own_shift_applies() {
    let model = dechrome::Model::embedded().unwrap();
    let ex = Extractor::with_embedded_model(ExtractorConfig::default()).unwrap();
    assert_eq!(ex.low_prose_shift(), model.selection.low_prose_shift);
    assert_eq!(extractor(0.0).low_prose_shift(), 0.0);
}

#[test]
fn a_shift_out_of_range_is_a_configuration_error() {
    for bad in [-0.1, 1.5, f32::NAN] {
        let err = Extractor::with_embedded_model(ExtractorConfig {
            low_prose_shift: Some(bad),
            ..ExtractorConfig::default()
        })
        .err()
        .expect("refused");
        assert!(err.to_string().contains("low_prose_shift"), "{err}");
    }
}

/// A real page: WCXB dev 0638, a coffee shop's collection (product names
/// and prices, no paragraph). At the page's threshold the forest keeps
/// product names of the gold, and at least what one threshold keeps (the
/// models before the one without position columns kept nothing there).
#[test]
#[ignore = "needs ../shared/corpora; run by .ci/run"]
fn a_shop_collection_keeps_its_products_at_the_page_s_threshold() {
    let corpora = common::shared_corpora().expect("../shared/corpora beside the repository");
    let bytes = std::fs::read(corpora.join("wcxb-dev/html/0638.html.gz")).unwrap();
    let gold: serde_json::Value = serde_json::from_slice(
        &std::fs::read(corpora.join("wcxb-dev/ground-truth/0638.json")).unwrap(),
    )
    .unwrap();
    let gold = gold["ground_truth"]["main_content"].as_str().unwrap();
    let text = |shift: f32| extractor(shift).extract_bytes(&bytes, None).unwrap().text;
    let one_threshold = text(0.0);
    let kept = text(SHIFT);
    assert!(
        kept.len() >= one_threshold.len(),
        "the page's threshold keeps less: {kept} / {one_threshold}"
    );
    // Product names of the gold, kept at the page's threshold by the
    // shipped model (threshold 0.52 since the selection is chosen in
    // training; "Espresso Roast Coffee", kept at the page threshold of
    // the model before, 0.40, lies below this one's, 0.44).
    for name in [
        "Dark Roast Single-Serve Pods",
        "Vanilla Latte 12-Pack",
        "Espresso Roast Single-Serve Pods",
    ] {
        assert!(gold.contains(name));
        assert!(kept.contains(name), "{name} missing from {kept}");
    }
}
