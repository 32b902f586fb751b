//! The page-level models training adds beside the block model: the
//! page-type classifier and the confidence model, learned out of fold on
//! the repository's WCXB sample, kept in the model file and output by
//! extraction; and the model files of earlier formats without them.

mod common;

use common::{prepared_sample, small_config};
use dechrome::model::artifact::{FORMAT_VERSION, MAGIC};
use dechrome::output::{render, Format, Origin};
use dechrome::train::{cross_validate, fit_final, Learner};
use dechrome::{CetrConfig, Extractor, ExtractorConfig, Model};

/// A model file of `version` around a bincode `body`.
fn file_of(version: u32, body: &[u8]) -> Vec<u8> {
    let mut raw = Vec::new();
    raw.extend_from_slice(MAGIC);
    raw.extend_from_slice(&version.to_le_bytes());
    raw.extend_from_slice(&(body.len() as u64).to_le_bytes());
    raw.extend_from_slice(&crc32fast::hash(body).to_le_bytes());
    raw.extend_from_slice(body);
    raw
}

/// What training on the sample gives: its pages, the cross-validation and
/// the final model, fitted once for every test of this file.
struct Trained {
    pages: usize,
    cv: dechrome::train::CvReport,
    oof: dechrome::train::OutOfFold,
    model: Model,
}

fn trained_once() -> &'static Trained {
    static TRAINED: std::sync::OnceLock<Trained> = std::sync::OnceLock::new();
    TRAINED.get_or_init(|| {
        let cfg = small_config();
        let pages = prepared_sample(&cfg);
        let (cv, oof) =
            cross_validate(&pages, &cfg, &CetrConfig::default(), Learner::Ensemble).unwrap();
        let model = fit_final(&pages, &oof, &cfg, &CetrConfig::default(), &cv).unwrap();
        Trained {
            pages: pages.len(),
            cv,
            oof,
            model,
        }
    })
}

fn trained() -> (dechrome::train::CvReport, Model) {
    let t = trained_once();
    (t.cv.clone(), t.model.clone())
}

fn sample_page(i: usize) -> (Vec<u8>, String) {
    let pages = dechrome::corpus::read_wcxb(&common::sample_dir()).unwrap();
    let p = &pages[i];
    (std::fs::read(&p.html_path).unwrap(), p.gold.clone())
}

/// A model file of format 3 (before the page-type classifier and the
/// forum pages' comments share).
#[derive(serde::Serialize)]
struct FormatThree<'a> {
    schema: &'a Vec<String>,
    schema_hash: &'a String,
    css_odds: &'a dechrome::features::CssOdds,
    ensemble: &'a dechrome::model::Gbdt,
    stage2: &'a Option<dechrome::model::Gbdt>,
    threshold: f32,
    selection: (f32, f32),
    cetr: &'a CetrConfig,
    meta: &'a dechrome::model::TrainingMeta,
}

#[test]
fn files_of_formats_three_and_four_load_without_the_parts_they_lacked() {
    let (_, model) = trained();
    assert_eq!(FORMAT_VERSION, 6);
    let old = FormatThree {
        schema: &model.schema,
        schema_hash: &model.schema_hash,
        css_odds: &model.css_odds,
        ensemble: &model.ensemble,
        stage2: &model.stage2,
        threshold: model.threshold,
        selection: (0.04, 0.35),
        cetr: &model.cetr,
        meta: &model.meta,
    };
    let body = bincode::serde::encode_to_vec(&old, bincode::config::standard()).unwrap();
    let loaded = Model::from_bytes(&file_of(3, &body)).unwrap();
    assert_eq!(loaded.selection.low_prose_shift, 0.04);
    assert_eq!(loaded.selection.comments_main_share, 0.35);
    assert_eq!(loaded.selection.forum_comments_main_share, 0.35);
    assert!(loaded.page_type.is_none() && loaded.confidence.is_none());
    assert_eq!(loaded.ensemble, model.ensemble);

    // Format 4 is today's layout without the confidence model, its last
    // field: today's body of a model without one, less its final byte.
    let mut without = model.clone();
    without.confidence = None;
    let mut body = bincode::serde::encode_to_vec(&without, bincode::config::standard()).unwrap();
    assert_eq!(body.pop(), Some(0), "None is one zero byte");
    let loaded = Model::from_bytes(&file_of(4, &body)).unwrap();
    assert_eq!(loaded, without);
    assert!(loaded.page_type.is_some());
    // A format-4 body with a byte too many is refused, not misread.
    body.push(0);
    assert!(Model::from_bytes(&file_of(4, &body)).is_err());
    // Asking a model without a confidence model for a minimum is an error
    // that says so, at construction.
    let err = Extractor::new(
        loaded,
        ExtractorConfig {
            min_confidence: Some(0.5),
            ..ExtractorConfig::default()
        },
    )
    .err()
    .expect("no confidence to compare");
    assert!(err.to_string().contains("min_confidence"), "{err}");
}

#[test]
fn training_learns_page_types_out_of_fold_and_extraction_outputs_them() {
    let Trained {
        pages,
        cv,
        oof,
        model,
    } = trained_once();
    let report = cv.page_type.as_ref().expect("a page-type report");
    // Every sample page is labelled with one of the seven types and held
    // out by one fold.
    assert_eq!(report.pages, *pages);
    let counted: u32 = report.confusion.values().flat_map(|r| r.values()).sum();
    assert_eq!(counted as usize, *pages);
    assert!(report.accuracy > 0.0 && report.accuracy <= 1.0);
    // Per corpus: the pages add up, and the right ones to the whole's.
    let by = &report.by_corpus;
    assert_eq!(by.values().map(|c| c.pages).sum::<usize>(), *pages);
    let right: f64 = by.values().map(|c| c.accuracy * c.pages as f64).sum();
    assert!((right - report.accuracy * *pages as f64).abs() < 1e-6);
    assert_eq!(oof.page_types.len(), *pages);
    assert!(cv.pages.iter().all(|p| p.predicted_type.is_some()));
    let model = model.clone();
    assert!(model.page_type.is_some());
    let again = Model::from_bytes(&model.to_bytes().unwrap()).unwrap();
    assert_eq!(again.page_type, model.page_type);
    let extractor = Extractor::new(model, ExtractorConfig::default()).unwrap();
    let e = extractor.extract_bytes(&sample_page(0).0, None).unwrap();
    let kind = e.page_type.expect("a page type");
    let p = e.page_type_probability.unwrap();
    assert!(
        (0.0..=1.0).contains(&p) && p >= 1.0 / 7.0 - 1e-6,
        "{kind} {p}"
    );
    let line = render(Origin::path("x.html"), &Ok(e), Format::Jsonl);
    let v: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(v["page_type"], kind.name());
}

#[test]
fn training_learns_a_confidence_out_of_fold_and_extraction_outputs_it() {
    let (cv, model) = trained();
    let report = cv.confidence.as_ref().expect("a confidence report");
    // Every sample page has gold text; a fold's model learns from the
    // other folds' pages only, so a page's estimate never saw its score.
    let estimated = cv.pages.iter().filter(|p| p.confidence.is_some()).count();
    assert_eq!(report.pages, estimated);
    assert!(estimated > 0, "at least one fold has a confidence model");
    for p in &cv.pages {
        assert!((0.0..=1.0).contains(&p.mean_kept_probability));
        if let Some(c) = p.confidence {
            assert!((0.0..=1.0).contains(&c), "{}: {c}", p.id);
        }
    }
    for a in [&report.model, &report.baseline] {
        assert!((-1.0..=1.0).contains(&a.spearman));
        assert!((0.0..=1.0).contains(&a.auc_bad));
        assert_eq!(a.calibration.len(), 10);
        let binned: usize = a.calibration.iter().map(|b| b.pages).sum();
        assert_eq!(binned, report.pages);
    }
    assert!(report.markdown().contains("| confidence |"));
    let confidence = model.confidence.clone().expect("the final model has one");
    let again = Model::from_bytes(&model.to_bytes().unwrap()).unwrap();
    assert_eq!(again.confidence.as_ref(), Some(&confidence));

    let (html, _) = sample_page(1);
    let extractor = Extractor::new(model.clone(), ExtractorConfig::default()).unwrap();
    let e = extractor.extract_bytes(&html, None).unwrap();
    let c = e.confidence.expect("a confidence");
    assert!((0.0..=1.0).contains(&c));
    assert!(!e.low_confidence && !e.text.is_empty());
    let line = render(Origin::path("x.html"), &Ok(e.clone()), Format::Jsonl);
    let v: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(v["confidence"].as_f64(), Some(c));
    assert!(v.get("low_confidence").is_none());

    // Above the page's confidence, the page keeps its record but not its
    // text; at it, nothing changes.
    let strict = Extractor::new(
        model.clone(),
        ExtractorConfig {
            min_confidence: Some((c + 0.0001).min(1.0)),
            ..ExtractorConfig::default()
        },
    )
    .unwrap();
    let low = strict.extract_bytes(&html, None).unwrap();
    assert!(low.low_confidence && low.text.is_empty());
    assert_eq!(low.confidence, Some(c));
    let line = render(Origin::path("x.html"), &Ok(low), Format::Jsonl);
    let v: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(v["low_confidence"], true);
    assert_eq!(v["text"], "");
    let at = Extractor::new(
        model,
        ExtractorConfig {
            min_confidence: Some(c),
            ..ExtractorConfig::default()
        },
    )
    .unwrap();
    assert_eq!(at.extract_bytes(&html, None).unwrap().text, e.text);
}

#[test]
fn the_unsupervised_algorithms_give_no_confidence_and_refuse_a_minimum() {
    let e = Extractor::classic(dechrome::Algorithm::Readability, ExtractorConfig::default())
        .unwrap()
        .extract_bytes(&sample_page(0).0, None)
        .unwrap();
    assert!(e.confidence.is_none());
    let line = render(Origin::path("x.html"), &Ok(e), Format::Jsonl);
    assert!(!line.contains("confidence"), "{line}");
    let err = Extractor::from_config(ExtractorConfig {
        algorithm: dechrome::Algorithm::Readability,
        min_confidence: Some(0.5),
        ..ExtractorConfig::default()
    })
    .err()
    .expect("readability has no confidence");
    assert!(err.to_string().contains("min_confidence"), "{err}");
}

#[test]
fn a_file_of_format_five_loads_and_saves_as_today_s_format() {
    // Trained on the sample by the last build that wrote format 5 (a bag
    // of two 10-tree ensembles of depth 3 a stage), whose trees were
    // written node by node.
    let raw = std::fs::read(common::root().join("tests/fixtures/model-format-5.model")).unwrap();
    assert_eq!(&raw[8..12], &5u32.to_le_bytes());
    let model = match Model::from_bytes(&raw) {
        Ok(model) => model,
        // A later feature set refuses the file only after decoding it.
        Err(dechrome::error::ModelError::SchemaMismatch { .. }) => return,
        Err(e) => panic!("a format-5 file no longer decodes: {e}"),
    };
    assert_eq!(model.ensemble.trees.len(), 20);
    assert!(model.stage2.is_some());
    assert!(model.page_type.is_some() && model.confidence.is_some());
    // Saved again, it is today's format and loads to the same model.
    let again = model.to_bytes().unwrap();
    assert_eq!(&again[8..12], &FORMAT_VERSION.to_le_bytes());
    assert_eq!(Model::from_bytes(&again).unwrap(), model);
    let text = Extractor::new(model, ExtractorConfig::default())
        .unwrap()
        .extract_bytes(&common::fixture("github-blog.html"), None)
        .unwrap()
        .text;
    assert!(!text.is_empty());
}
