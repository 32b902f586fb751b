//! Why a block was kept: Dragnet-style per-block charts (text density, link
//! density, id/class odds, CETR smoothed tag ratio, probability against the
//! threshold), the CETR scatter with its k-means clusters, the page's blocks
//! as highlighted HTML, and a JSON dump of every block's features.
//! Charts are drawn with plotters, as SVG and PNG.

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;
use serde::Serialize;

use crate::blocks;
use crate::error::{Error, Result};
use crate::extract::{Algorithm, Extractor};
use crate::features::{cetr, text, CssOdds, PageContext};
use crate::parse::{self, ParseLimits};

/// One block, explained.
#[derive(Debug, Clone, Serialize)]
pub struct BlockExplanation {
    /// Position on the page.
    pub index: usize,
    /// The block's text.
    pub text: String,
    /// Words in the block.
    pub words: u32,
    /// Kohlschütter text density.
    pub text_density: f32,
    /// Share of words inside links.
    pub link_density: f32,
    /// Mean learned odds of the block's own id/class tokens (0 if none).
    pub css_odds: f32,
    /// CETR's smoothed tag ratio.
    pub cetr_smoothed: f32,
    /// CETR's smoothed derivative.
    pub cetr_derivative: f32,
    /// CETR-KM's verdict (outside the origin cluster).
    pub kmeans_content: bool,
    /// Content probability from the deciding algorithm.
    pub probability: f32,
    /// Whether the block is kept, as extraction keeps it (after every
    /// selection rule: the comment mode, captions, repeats).
    pub kept: bool,
    /// The selection rule that changed the block's decision from its
    /// probability against the threshold (absent: the threshold decided).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<crate::select::Rule>,
    /// Gold label, when the page's gold text was given.
    pub gold: Option<bool>,
    /// Every feature, in the order of `Explanation::feature_names`.
    pub features: Vec<f32>,
}

/// A page, explained.
#[derive(Debug, Clone, Serialize)]
pub struct Explanation {
    /// The algorithm that decided.
    pub algorithm: Algorithm,
    /// The threshold this page was decided at: the model's, lowered on a
    /// page that is not prose ([`crate::select::page_threshold`]).
    pub threshold: f32,
    /// The page's predicted type with every type's probability, when the
    /// model has a page-type classifier.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_type: Option<crate::model::PageTypeGuess>,
    /// The model's estimate of this extraction's word F1, when it has a
    /// confidence model ([`Extractor::confidence`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f32>,
    /// The model's own threshold (the deciding algorithm's, for the
    /// others): `threshold` differs from it on a page that is not prose.
    pub model_threshold: f32,
    /// Names of the feature columns.
    pub feature_names: Vec<String>,
    /// Every block in page order.
    pub blocks: Vec<BlockExplanation>,
}

/// Explains how `extractor` decides on a page. With `gold`, each block also
/// gets its gold label (at least 30% of its tokens in the gold text).
pub fn explain(extractor: &Extractor, bytes: &[u8], gold: Option<&str>) -> Result<Explanation> {
    let doc = parse::parse(bytes, None, ParseLimits::default())?;
    let bl = blocks::split(&doc);
    let empty = CssOdds::default();
    let (css_odds, cetr_cfg) = match extractor.model() {
        Some(m) => (&m.css_odds, m.cetr.clone()),
        None => (&empty, crate::config::CetrConfig::default()),
    };
    let fs = extractor
        .model()
        .map(crate::model::Model::feature_set)
        .unwrap_or_default();
    let ctx = PageContext::new(&bl, &cetr_cfg, css_odds);
    let matrix = fs.compute(&ctx);
    let css_col = fs.family_range("css").map(|r| r.start);
    let profile = cetr::profile(&bl, &cetr_cfg);
    let (probs, algorithm) = extractor.decide(&bl);
    let threshold = extractor.page_threshold(&bl, &probs, algorithm);
    let metadata = crate::metadata::extract(&doc);
    let page_type = extractor.page_type(&doc, &bl, &probs, algorithm, &metadata);
    let (kept, rules) =
        extractor.keep_with_rules(&bl, &probs, algorithm, page_type.map(|g| g.kind));
    let confidence = extractor.confidence(&bl, &probs, &kept, algorithm, page_type.as_ref());
    let gold_labels: Option<Vec<bool>> = gold.map(|g| {
        let shares = crate::train::align::matched_shares(
            bl.blocks.iter().map(|b| b.text.as_str()),
            g,
            &mut crate::train::align::Interner::default(),
        );
        shares.iter().map(|&s| s >= 0.3).collect()
    });
    let blocks = bl
        .blocks
        .iter()
        .enumerate()
        .map(|(i, b)| BlockExplanation {
            index: i,
            text: b.text.clone(),
            words: b.words,
            text_density: text::text_density(b),
            link_density: text::link_density(b),
            css_odds: css_col.map_or(0.0, |c| matrix[[i, c]]),
            cetr_smoothed: profile.smoothed[i],
            cetr_derivative: profile.derivative[i],
            kmeans_content: profile.content[i],
            probability: probs[i],
            kept: kept[i],
            rule: rules[i],
            gold: gold_labels.as_ref().map(|g| g[i]),
            features: matrix.row(i).to_vec(),
        })
        .collect();
    let model_threshold = match algorithm {
        Algorithm::Forest => extractor.threshold(),
        _ => threshold,
    };
    Ok(Explanation {
        algorithm,
        threshold,
        page_type,
        confidence,
        model_threshold,
        feature_names: fs.names(),
        blocks,
    })
}

/// Bar colours: kept / dropped, or with gold labels the four outcomes.
pub mod palette {
    use plotters::style::RGBColor;
    /// Kept (no gold given), or kept and gold content.
    pub const KEPT: RGBColor = RGBColor(46, 139, 87);
    /// Dropped (no gold given), or dropped and gold boilerplate.
    pub const DROPPED: RGBColor = RGBColor(170, 170, 170);
    /// Kept but gold boilerplate (false positive).
    pub const FALSE_POSITIVE: RGBColor = RGBColor(230, 145, 30);
    /// Dropped but gold content (false negative).
    pub const FALSE_NEGATIVE: RGBColor = RGBColor(200, 40, 40);
    /// Every bar colour.
    pub const ALL: [RGBColor; 4] = [KEPT, DROPPED, FALSE_POSITIVE, FALSE_NEGATIVE];
}

fn bar_color(b: &BlockExplanation) -> RGBColor {
    match (b.kept, b.gold) {
        (true, Some(false)) => palette::FALSE_POSITIVE,
        (false, Some(true)) => palette::FALSE_NEGATIVE,
        (true, _) => palette::KEPT,
        (false, _) => palette::DROPPED,
    }
}

/// The panels of the block chart: title and value per block.
pub const PANELS: [&str; 5] = [
    "text density",
    "link density",
    "id/class odds",
    "CETR smoothed tag ratio",
    "probability (line: threshold)",
];

/// The y axis of each panel of the block chart.
const PANEL_AXES: [&str; 5] = ["share", "share", "log-odds", "ratio", "probability"];

/// The x axis of the block chart.
pub const BLOCK_AXIS: &str = "block number (page order)";

/// The name of the threshold line: `threshold`, or, when the page was
/// decided below the model's threshold (a page that is not prose),
/// `page threshold (model 0.48, lowered for a non-prose page)`.
pub fn threshold_label(e: &Explanation) -> String {
    if (e.threshold - e.model_threshold).abs() < 1e-6 {
        format!("threshold {:.2}", e.threshold)
    } else if e.threshold < e.model_threshold {
        format!(
            "page threshold {:.2} (model {:.2}, lowered for a non-prose page)",
            e.threshold, e.model_threshold
        )
    } else {
        format!(
            "page threshold {:.2} (model {:.2})",
            e.threshold, e.model_threshold
        )
    }
}

/// The legend of the bars: colour and meaning, with or without gold labels.
fn bar_legend(e: &Explanation) -> Vec<(RGBColor, &'static str)> {
    if e.blocks.iter().any(|b| b.gold.is_some()) {
        vec![
            (palette::KEPT, "kept, gold content"),
            (palette::DROPPED, "dropped, gold boilerplate"),
            (
                palette::FALSE_POSITIVE,
                "kept, gold boilerplate (false positive)",
            ),
            (
                palette::FALSE_NEGATIVE,
                "dropped, gold content (false negative)",
            ),
        ]
    } else {
        vec![(palette::KEPT, "kept"), (palette::DROPPED, "dropped")]
    }
}

fn panel_value(panel: usize, b: &BlockExplanation) -> f32 {
    match panel {
        0 => b.text_density,
        1 => b.link_density,
        2 => b.css_odds,
        3 => b.cetr_smoothed,
        _ => b.probability,
    }
}

static FONT: std::sync::Once = std::sync::Once::new();

fn register_font() {
    FONT.call_once(|| {
        // Bundled, so PNG text needs no system fonts.
        let _ = plotters::style::register_font(
            "sans-serif",
            FontStyle::Normal,
            include_bytes!("../data/fonts/DejaVuSans.ttf"),
        );
    });
}

fn chart_err<E: std::fmt::Debug>(e: E) -> Error {
    Error::Page(crate::error::PageError::Other(format!(
        "cannot draw the chart: {e:?}"
    )))
}

fn draw_blocks<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, e: &Explanation) -> Result<()> {
    root.fill(&WHITE).map_err(chart_err)?;
    let n = e.blocks.len().max(1) as f64;
    for (p, area) in root.split_evenly((PANELS.len(), 1)).into_iter().enumerate() {
        let values: Vec<f64> = e.blocks.iter().map(|b| panel_value(p, b) as f64).collect();
        let lo = values.iter().cloned().fold(0.0, f64::min);
        let mut hi = values.iter().cloned().fold(0.0, f64::max);
        if p == 4 {
            hi = 1.0;
        }
        if hi <= lo {
            hi = lo + 1.0;
        }
        let mut chart = ChartBuilder::on(&area)
            .caption(PANELS[p], ("sans-serif", 14))
            .margin(4)
            .x_label_area_size(30)
            .y_label_area_size(56)
            .build_cartesian_2d(0.0..n, lo..hi)
            .map_err(chart_err)?;
        // Block numbers are whole: ticks at integers only, written as such.
        let step = (n / 10.0).ceil().max(1.0);
        chart
            .configure_mesh()
            .disable_x_mesh()
            .disable_y_mesh()
            .y_labels(3)
            .x_labels((n / step) as usize + 1)
            .x_label_formatter(&|x| format!("{}", x.round() as i64))
            .x_desc(BLOCK_AXIS)
            .y_desc(PANEL_AXES[p])
            .label_style(("sans-serif", 10))
            .axis_desc_style(("sans-serif", 10))
            .draw()
            .map_err(chart_err)?;
        chart
            .draw_series(e.blocks.iter().zip(&values).map(|(b, &v)| {
                let x = b.index as f64;
                Rectangle::new([(x, 0.0f64.max(lo)), (x + 0.8, v)], bar_color(b).filled())
            }))
            .map_err(chart_err)?;
        if p == 4 {
            for (color, label) in bar_legend(e) {
                chart
                    .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())
                    .map_err(chart_err)?
                    .label(label)
                    .legend(move |(x, y)| Circle::new((x, y), 4, color.filled()));
            }
            let t = e.threshold as f64;
            chart
                .draw_series(LineSeries::new([(0.0, t), (n, t)], RED.stroke_width(1)))
                .map_err(chart_err)?
                .label(threshold_label(e))
                .legend(|(x, y)| PathElement::new(vec![(x - 8, y), (x + 8, y)], RED));
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperRight)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .label_font(("sans-serif", 10))
                .draw()
                .map_err(chart_err)?;
        }
    }
    root.present().map_err(chart_err)
}

fn draw_scatter<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, e: &Explanation) -> Result<()> {
    root.fill(&WHITE).map_err(chart_err)?;
    let max_x = e
        .blocks
        .iter()
        .map(|b| b.cetr_smoothed as f64)
        .fold(1e-6, f64::max);
    let max_y = e
        .blocks
        .iter()
        .map(|b| b.cetr_derivative as f64)
        .fold(1e-6, f64::max);
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "CETR: smoothed tag ratio vs derivative (k-means clusters)",
            ("sans-serif", 16),
        )
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(50)
        .build_cartesian_2d(0.0..max_x * 1.05, 0.0..max_y * 1.05)
        .map_err(chart_err)?;
    chart
        .configure_mesh()
        .x_desc("smoothed tag ratio")
        .y_desc("smoothed derivative")
        .label_style(("sans-serif", 11))
        .draw()
        .map_err(chart_err)?;
    for (content, color, label) in [
        (true, palette::KEPT, "content cluster"),
        (false, palette::DROPPED, "origin cluster"),
    ] {
        chart
            .draw_series(
                e.blocks
                    .iter()
                    .filter(|b| b.kmeans_content == content)
                    .map(|b| {
                        Circle::new(
                            (b.cetr_smoothed as f64, b.cetr_derivative as f64),
                            3,
                            color.filled(),
                        )
                    }),
            )
            .map_err(chart_err)?
            .label(label)
            .legend(move |(x, y)| Circle::new((x, y), 4, color.filled()));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .label_font(("sans-serif", 11))
        .draw()
        .map_err(chart_err)?;
    root.present().map_err(chart_err)
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The page's blocks in order, kept ones highlighted, probability (and
/// the selection rule that overruled it) on hover.
pub fn html_page(e: &Explanation) -> String {
    let mut out = String::from(
        "<!doctype html><meta charset=utf-8><title>dechrome explain</title><style>\
         body{font:14px sans-serif;max-width:60em;margin:2em auto}\
         .b{padding:2px 6px;margin:2px 0;border-left:4px solid #aaa;color:#777}\
         .kept{border-color:#2e8b57;background:#e8f5ee;color:#000}\
         .fp{border-color:#e6911e;background:#fdf1e0;color:#000}.fn{border-color:#c82828;background:#fbe6e6}\
         </style>\n",
    );
    let page_type = e.page_type.map_or(String::new(), |g| {
        format!(", page type <b>{}</b> ({:.2})", g.kind, g.probability)
    });
    let page_type = match e.confidence {
        Some(c) => format!("{page_type}, confidence <b>{c:.2}</b> (estimated word F1)"),
        None => page_type,
    };
    out.push_str(&format!(
        "<p>algorithm <b>{}</b>, {}{page_type}; hover a block for its probability.</p>\n",
        e.algorithm.name(),
        escape(&threshold_label(e))
    ));
    for b in &e.blocks {
        let class = match (b.kept, b.gold) {
            (true, Some(false)) => "b fp",
            (false, Some(true)) => "b fn",
            (true, _) => "b kept",
            (false, _) => "b",
        };
        let rule = b
            .rule
            .map_or(String::new(), |r| format!(" · {}", r.describe(b.kept)));
        out.push_str(&format!(
            "<div class=\"{class}\" title=\"block {} · p = {:.3} · text density {:.1} · link density {:.2}{rule}\">{}</div>\n",
            b.index,
            b.probability,
            b.text_density,
            b.link_density,
            escape(&b.text)
        ));
    }
    out
}

/// Writes `blocks.svg`, `blocks.png`, `cetr.svg`, `cetr.png`, `page.html`
/// and `blocks.json` into `dir` (created if missing); returns their paths.
pub fn write_all(e: &Explanation, dir: &Path) -> Result<Vec<PathBuf>> {
    register_font();
    std::fs::create_dir_all(dir).map_err(|err| Error::io(dir, err))?;
    let width = (e.blocks.len() as u32 * 4).clamp(900, 4000);
    let size = (width, 900);
    let p = |name: &str| dir.join(name);
    draw_blocks(
        SVGBackend::new(&p("blocks.svg"), size).into_drawing_area(),
        e,
    )?;
    draw_blocks(
        BitMapBackend::new(&p("blocks.png"), size).into_drawing_area(),
        e,
    )?;
    draw_scatter(
        SVGBackend::new(&p("cetr.svg"), (800, 600)).into_drawing_area(),
        e,
    )?;
    draw_scatter(
        BitMapBackend::new(&p("cetr.png"), (800, 600)).into_drawing_area(),
        e,
    )?;
    crate::model::artifact::write_atomically(&p("page.html"), html_page(e).as_bytes())?;
    let json = serde_json::to_vec_pretty(e)
        .map_err(|err| Error::Page(crate::error::PageError::Other(err.to_string())))?;
    crate::model::artifact::write_atomically(&p("blocks.json"), &json)?;
    Ok([
        "blocks.svg",
        "blocks.png",
        "cetr.svg",
        "cetr.png",
        "page.html",
        "blocks.json",
    ]
    .iter()
    .map(|n| p(n))
    .collect())
}
