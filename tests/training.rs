//! Training on the repository's WCXB sample: cross-validation, the baseline,
//! determinism, and the model file.

mod common;

use common::{prepared_sample, small_config};
use dechrome::model::artifact::{FORMAT_VERSION, MAGIC};
use dechrome::train::{cross_validate, fit_final, Learner};
use dechrome::{CetrConfig, Model, ModelError};

fn trained() -> Model {
    let cfg = small_config();
    let pages = prepared_sample(&cfg);
    let (cv, oof) =
        cross_validate(&pages, &cfg, &CetrConfig::default(), Learner::Ensemble).unwrap();
    fit_final(&pages, &oof, &cfg, &CetrConfig::default(), &cv).unwrap()
}

#[test]
fn ensemble_beats_a_single_linfa_tree_on_grouped_folds() {
    let cfg = small_config();
    let pages = prepared_sample(&cfg);
    let (ens, _) = cross_validate(&pages, &cfg, &CetrConfig::default(), Learner::Ensemble).unwrap();
    let (tree, _) =
        cross_validate(&pages, &cfg, &CetrConfig::default(), Learner::BaselineTree).unwrap();
    eprintln!(
        "ensemble F1 {:.4}, tree F1 {:.4}",
        ens.word.overall.f1, tree.word.overall.f1
    );
    assert!(ens.word.overall.f1 > tree.word.overall.f1);
    // 36 pages from 36 sites, trained on 24 at a time: far less data than
    // WCXB dev, so the floor is well below the full corpus's number.
    assert!(ens.word.overall.f1 > 0.70, "CV F1 {}", ens.word.overall.f1);
    assert!(
        ens.oracle_f1 > 0.95,
        "the splitter's ceiling {}",
        ens.oracle_f1
    );
    assert_eq!(ens.word.pages, pages.len());
    // Every page's own out-of-fold score, in corpus order, averaging to
    // the report.
    assert_eq!(ens.pages.len(), pages.len());
    assert!(ens.pages.iter().zip(&pages).all(|(s, p)| s.id == p.id));
    let mean = ens
        .pages
        .iter()
        .map(|s| s.word.map_or(0.0, |w| w.f1))
        .sum::<f64>()
        / pages.len() as f64;
    assert!((mean - ens.word.overall.f1).abs() < 1e-9);
    assert!(ens.word.by_type.contains_key("article"));
}

#[test]
fn same_seed_gives_byte_identical_models_and_another_seed_does_not() {
    let a = trained().to_bytes().unwrap();
    let b = trained().to_bytes().unwrap();
    assert_eq!(a, b);
    let mut cfg = small_config();
    cfg.seed = 7;
    let pages = prepared_sample(&cfg);
    let (cv, oof) =
        cross_validate(&pages, &cfg, &CetrConfig::default(), Learner::Ensemble).unwrap();
    let c = fit_final(&pages, &oof, &cfg, &CetrConfig::default(), &cv).unwrap();
    assert_ne!(a, c.to_bytes().unwrap());
}

#[test]
fn model_file_round_trip_and_every_corruption_is_a_distinct_error() {
    let model = trained();
    let bytes = model.to_bytes().unwrap();
    assert_eq!(Model::from_bytes(&bytes).unwrap(), model);

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.model");
    model.save(&path).unwrap();
    assert_eq!(Model::load(&path).unwrap(), model);

    assert_eq!(
        Model::from_bytes(b"PK\x03\x04 a zip file"),
        Err(ModelError::BadMagic)
    );
    assert_eq!(Model::from_bytes(b""), Err(ModelError::BadMagic));
    assert!(matches!(
        Model::from_bytes(&bytes[..10]),
        Err(ModelError::Truncated(_))
    ));
    assert!(matches!(
        Model::from_bytes(&bytes[..bytes.len() - 100]),
        Err(ModelError::Truncated(_))
    ));

    let mut flipped = bytes.clone();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0x10;
    assert_eq!(Model::from_bytes(&flipped), Err(ModelError::Checksum));

    let mut newer = bytes.clone();
    newer[8..12].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    assert!(matches!(
        Model::from_bytes(&newer),
        Err(ModelError::UnsupportedVersion { found, .. }) if found == FORMAT_VERSION + 1
    ));

    let mut absurd = bytes.clone();
    absurd[12..20].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(matches!(
        Model::from_bytes(&absurd),
        Err(ModelError::TooLarge { .. })
    ));

    let mut other = model.clone();
    other.schema.pop();
    other.schema_hash = dechrome::features::schema_hash(&other.schema);
    let mut raw = Vec::new();
    raw.extend_from_slice(MAGIC);
    let body = &other.to_bytes().unwrap()[24..];
    raw.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    raw.extend_from_slice(&(body.len() as u64).to_le_bytes());
    raw.extend_from_slice(&crc32fast::hash(body).to_le_bytes());
    raw.extend_from_slice(body);
    assert!(matches!(
        Model::from_bytes(&raw),
        Err(ModelError::SchemaMismatch { .. })
    ));

    let missing = Model::load(dir.path().join("absent.model"));
    assert!(matches!(missing, Err(dechrome::Error::Io { .. })));
}

#[test]
fn ablation_adds_families_in_turn_and_ends_at_the_full_model() {
    let cfg = small_config();
    let pages = prepared_sample(&cfg);
    let cetr = CetrConfig::default();
    let (full, oof) = cross_validate(&pages, &cfg, &cetr, Learner::Ensemble).unwrap();
    let stage1 = full.stage1.clone().expect("the default model is stacked");
    let rows = dechrome::train::ablation(&pages, &cfg, &cetr, Some((&full, &oof))).unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "ST",
            "+IC",
            "+CETR",
            "+Boilerpipe",
            "+DANAg",
            "+Gupta",
            "+structure",
            "+context",
            "+Readability",
            "+labels",
            "+post-processing"
        ]
    );
    assert_eq!(rows[0].families, ["text"]);
    assert_eq!(
        rows[9].families.len(),
        dechrome::features::FeatureSet::standard()
            .family_names()
            .len()
    );
    assert_eq!(rows[10].word.overall.f1, full.word.overall.f1);
    assert!(rows[10].stacked && !rows[9].stacked);
    // Without the full model's report, the all-families row is measured
    // anew: it must equal the full model's first stage.
    let fresh = dechrome::train::ablation(&pages, &cfg, &cetr, None).unwrap();
    assert_eq!(fresh.len(), 10);
    assert_eq!(fresh[9].word.overall.f1, stage1.overall.f1);
    assert_eq!(rows[9].word.overall.f1, stage1.overall.f1);
    assert_eq!(fresh[9].out_of_fold, oof.stage1);
    assert_ne!(rows[0].word.overall.f1, full.word.overall.f1);

    // Each row's model, fitted on all pages, splits only on its own
    // families and takes its threshold from the row's out-of-fold run.
    let fs = dechrome::features::FeatureSet::standard();
    let text = fs.family_range("text").unwrap();
    let st =
        dechrome::train::fit_ablation_row(&pages, &rows[0], (&oof, &full), &cfg, &cetr).unwrap();
    assert!(st.stage2.is_none());
    let split_on: Vec<usize> = st
        .ensemble
        .trees
        .iter()
        .flat_map(|t| t.nodes.iter())
        .filter(|n| n.feature != dechrome::model::gbdt::LEAF)
        .map(|n| n.feature as usize)
        .collect();
    assert!(!split_on.is_empty());
    assert!(split_on.iter().all(|f| text.contains(f)), "{split_on:?}");
    let stacked =
        dechrome::train::fit_ablation_row(&pages, &rows[10], (&oof, &full), &cfg, &cetr).unwrap();
    assert!(stacked.stage2.is_some());
    let shipped = fit_final(&pages, &oof, &cfg, &cetr, &full).unwrap();
    assert_eq!(stacked.to_bytes().unwrap(), shipped.to_bytes().unwrap());
}

#[test]
fn the_second_stage_is_in_the_model_and_the_extractor_uses_it_as_training_does() {
    let cfg = small_config();
    let pages = prepared_sample(&cfg);
    let model = trained();
    assert!(model.stage2.is_some(), "stacking is on by default");
    let config = dechrome::ExtractorConfig {
        fallback: false,
        ..dechrome::ExtractorConfig::default()
    };
    let extractor = dechrome::Extractor::new(model.clone(), config).unwrap();
    let sample = dechrome::corpus::read_wcxb(&common::sample_dir()).unwrap();
    for (page, prepared) in sample.iter().zip(&pages).take(6) {
        assert_eq!(page.id, prepared.id);
        let bytes = std::fs::read(&page.html_path).unwrap();
        let doc = dechrome::parse::parse(&bytes, None, Default::default()).unwrap();
        let blocks = dechrome::blocks::split(&doc);
        let (served, _) = extractor.decide(&blocks);
        let offline = dechrome::train::predict_prepared(&model, prepared);
        assert_eq!(served.len(), offline.len());
        for (a, b) in served.iter().zip(&offline) {
            assert!((a - b).abs() < 1e-5, "{}: {a} vs {b}", page.id);
        }
    }
    // Without the second stage the first stage decides alone, and the two
    // differ somewhere: the second stage is not a copy of the first.
    let mut first_only = model.clone();
    first_only.stage2 = None;
    let differs = pages.iter().take(6).any(|p| {
        dechrome::train::predict_prepared(&first_only, p)
            != dechrome::train::predict_prepared(&model, p)
    });
    assert!(differs);
}

#[test]
fn a_disabled_feature_column_is_never_split_on() {
    let mut cfg = small_config();
    cfg.stacking = false;
    cfg.disabled_features = vec!["structure.word_share".to_string()];
    let pages = prepared_sample(&cfg);
    let cetr = CetrConfig::default();
    let (cv, oof) = cross_validate(&pages, &cfg, &cetr, Learner::Ensemble).unwrap();
    let model = fit_final(&pages, &oof, &cfg, &cetr, &cv).unwrap();
    let j = model
        .schema
        .iter()
        .position(|n| n == "structure.word_share")
        .unwrap();
    let used = |m: &Model| {
        m.ensemble
            .trees
            .iter()
            .flat_map(|t| t.nodes.iter())
            .any(|n| n.feature as usize == j)
    };
    assert!(!used(&model));
    assert_eq!(model.ensemble.importance[j], 0.0);
    // The same column is used when it is not disabled.
    cfg.disabled_features.clear();
    let pages = prepared_sample(&cfg);
    let (cv, oof) = cross_validate(&pages, &cfg, &cetr, Learner::Ensemble).unwrap();
    assert!(used(&fit_final(&pages, &oof, &cfg, &cetr, &cv).unwrap()));
}

#[test]
fn the_default_bag_averages_two_ensembles_per_stage() {
    let cfg = small_config();
    assert_eq!(cfg.bag.len(), 1, "one further member by default");
    let model = trained();
    let n = cfg.ensemble.n_trees;
    assert_eq!(model.ensemble.trees.len(), 2 * n);
    assert_eq!(model.stage2.as_ref().unwrap().trees.len(), 2 * n);
    // Without the bag: one ensemble per stage, and other probabilities.
    let single_cfg = dechrome::TrainConfig {
        bag: Vec::new(),
        ..cfg.clone()
    };
    let pages = prepared_sample(&single_cfg);
    let (cv, oof) = cross_validate(
        &pages,
        &single_cfg,
        &CetrConfig::default(),
        Learner::Ensemble,
    )
    .unwrap();
    let single = fit_final(&pages, &oof, &single_cfg, &CetrConfig::default(), &cv).unwrap();
    assert_eq!(single.ensemble.trees.len(), n);
    assert_ne!(
        dechrome::train::predict_prepared(&single, &pages[0]),
        dechrome::train::predict_prepared(&model, &pages[0])
    );
}

/// A model file of format 2 (before the learned selection): the fields of
/// [`Model`] without `selection`, in the order bincode wrote them.
#[derive(serde::Serialize)]
struct FormatTwo<'a> {
    schema: &'a Vec<String>,
    schema_hash: &'a String,
    css_odds: &'a dechrome::features::CssOdds,
    ensemble: &'a dechrome::model::Gbdt,
    stage2: &'a Option<dechrome::model::Gbdt>,
    threshold: f32,
    cetr: &'a CetrConfig,
    meta: &'a dechrome::model::TrainingMeta,
}

#[test]
fn a_model_file_of_format_two_loads_with_the_selection_it_was_extracted_with() {
    let model = trained();
    let old = FormatTwo {
        schema: &model.schema,
        schema_hash: &model.schema_hash,
        css_odds: &model.css_odds,
        ensemble: &model.ensemble,
        stage2: &model.stage2,
        threshold: model.threshold,
        cetr: &model.cetr,
        meta: &model.meta,
    };
    let body = bincode::serde::encode_to_vec(&old, bincode::config::standard()).unwrap();
    let mut raw = Vec::new();
    raw.extend_from_slice(MAGIC);
    raw.extend_from_slice(&2u32.to_le_bytes());
    raw.extend_from_slice(&(body.len() as u64).to_le_bytes());
    raw.extend_from_slice(&crc32fast::hash(&body).to_le_bytes());
    raw.extend_from_slice(&body);
    let loaded = Model::from_bytes(&raw).unwrap();
    assert_eq!(
        loaded.selection,
        dechrome::model::LearnedSelection::default()
    );
    assert_eq!(loaded.ensemble, model.ensemble);
    assert_eq!(loaded.threshold, model.threshold);
    // Saved again, it is a file of the current format.
    let again = loaded.to_bytes().unwrap();
    assert_eq!(&again[8..12], &FORMAT_VERSION.to_le_bytes());
    assert_eq!(FORMAT_VERSION, 6);
}

/// `class_free_copies`: each page is prepared twice, the copy without its
/// `class` and `id` attributes, under its own corpus name, and both are
/// scored out of fold.
#[test]
fn class_free_copies_train_each_page_twice_and_report_the_copies() {
    let mut cfg = small_config();
    cfg.class_free_copies = true;
    let pages = prepared_sample(&cfg);
    let plain = prepared_sample(&small_config());
    assert_eq!(pages.len(), 2 * plain.len());
    let suffix = dechrome::train::CLASS_FREE_SUFFIX;
    for pair in pages.chunks(2) {
        let (page, copy) = (&pair[0], &pair[1]);
        assert_eq!(copy.id, page.id);
        assert_eq!(copy.domain, page.domain, "a copy shares its page's fold");
        assert_eq!(copy.corpus, format!("{}{suffix}", page.corpus));
        assert_eq!(copy.labels.len(), page.labels.len(), "same blocks");
        assert_eq!(copy.labels, page.labels, "same labels");
        assert!(
            copy.blocks.elements.iter().all(|e| e.tokens.is_empty()),
            "no id/class tokens left in {}",
            copy.id
        );
        assert!(page.blocks.elements.iter().any(|e| !e.tokens.is_empty()));
    }
    let (cv, _) = cross_validate(&pages, &cfg, &CetrConfig::default(), Learner::Ensemble).unwrap();
    assert_eq!(cv.corpora.len(), 2, "{:?}", cv.corpora.keys());
    let copies = cv
        .corpora
        .iter()
        .find(|(name, _)| name.ends_with(suffix))
        .expect("the copies' corpus");
    assert_eq!(copies.1.pages, plain.len());

    // The copies weigh what their own name is given, else their corpus's
    // weight.
    let corpus = plain[0].corpus.clone();
    cfg.corpus_weights.insert(corpus.clone(), 0.5);
    assert!(prepared_sample(&cfg).iter().all(|p| p.weight == 0.5));
    cfg.corpus_weights.insert(format!("{corpus}{suffix}"), 0.25);
    for page in prepared_sample(&cfg) {
        let want = if page.corpus.ends_with(suffix) {
            0.25
        } else {
            0.5
        };
        assert_eq!(page.weight, want, "{} in {}", page.id, page.corpus);
    }
}
