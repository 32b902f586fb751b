//! Training on several corpora at once: a WCXB folder with gold text and a
//! snippet manifest with partial labels, one domain-grouped
//! cross-validation over their union, scores per corpus, corpus weights.

mod common;

use std::path::Path;
use std::process::Command;

use dechrome::corpus::{read_training_corpus, Snippets};
use dechrome::parse::{self, ParseLimits};
use dechrome::train::snippet_labels;

/// A snippet corpus over the repository's fixture pages, with the
/// must/must-not snippets of `tests/fixtures/snippets.json`.
fn snippet_corpus(dir: &Path) {
    let pages = dir.join("pages");
    std::fs::create_dir_all(&pages).unwrap();
    let spec: Vec<serde_json::Value> =
        serde_json::from_slice(&common::fixture("snippets.json")).unwrap();
    let mut manifest = String::new();
    for (i, page) in spec.iter().enumerate() {
        let file = page["file"].as_str().unwrap();
        std::fs::copy(
            common::root().join("tests/fixtures").join(file),
            pages.join(file),
        )
        .unwrap();
        let line = serde_json::json!({
            "id": format!("s{i}"),
            "url": format!("https://www.news.site{i}.org/{file}"),
            "file": format!("pages/{file}"),
            "with": page["must"],
            "without": page["must_not"],
        });
        manifest.push_str(&line.to_string());
        manifest.push('\n');
    }
    std::fs::write(dir.join("manifest.jsonl"), manifest).unwrap();
}

#[test]
fn snippets_label_the_blocks_that_hold_them_and_leave_the_rest_unknown() {
    let html = "<html><body><nav><a href=/>Home</a> <a href=/b>Blog</a> <a href=/c>Contact</a></nav>\
        <article><h1>Gulls on the roof</h1><p>The herring gull nests on the roofs of the old town every spring.</p>\
        <p>Young birds are mottled brown for four years.</p></article>\
        <footer>Share this story on every network</footer><div>Unrelated text here</div></body></html>";
    let doc = parse::parse(html.as_bytes(), None, ParseLimits::default()).unwrap();
    let blocks = dechrome::blocks::split(&doc);
    let snippets = Snippets {
        with: vec![
            "nests on the roofs of the old town".into(),
            "Gulls on the roof The herring".into(),
        ],
        without: vec!["Share this story".into(), "not on the page".into()],
    };
    let (labels, known) = snippet_labels(&blocks, &snippets);
    let by_text = |needle: &str| {
        blocks
            .blocks
            .iter()
            .position(|b| b.text.contains(needle))
            .unwrap_or_else(|| panic!("no block with {needle:?}"))
    };
    // A snippet inside one block, and one across two blocks (heading and
    // paragraph) label every block they touch.
    for needle in ["herring gull nests", "Gulls on the roof"] {
        let i = by_text(needle);
        assert!(known[i] && labels[i], "{needle}");
    }
    let share = by_text("Share this story");
    assert!(known[share] && !labels[share]);
    // Blocks no snippet mentions stay out of the loss.
    for needle in ["Young birds", "Unrelated text", "Home"] {
        assert!(!known[by_text(needle)], "{needle}");
    }
}

#[test]
fn a_snippet_manifest_reads_as_a_partially_labelled_training_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let snip = dir.path().join("snip");
    snippet_corpus(&snip);
    let pages = read_training_corpus(&snip).unwrap();
    assert!(pages.len() >= 3);
    assert!(pages
        .iter()
        .all(|p| p.corpus == "snip" && p.gold.is_empty()));
    assert!(pages
        .iter()
        .all(|p| p.snippets.as_ref().is_some_and(|s| !s.with.is_empty())));
    // Folds group by registrable domain.
    assert_eq!(pages[0].domain, "site0.org");
    let sample = read_training_corpus(&common::sample_dir()).unwrap();
    assert!(sample
        .iter()
        .all(|p| p.corpus == "sample" && p.snippets.is_none()));
}

fn train(args: &[&str]) -> std::process::Output {
    Command::new(common::bin()).args(args).output().unwrap()
}

#[test]
fn train_on_two_corpora_reports_each_and_weights_change_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let snip = dir.path().join("snip");
    snippet_corpus(&snip);
    let cfg = dir.path().join("cfg.json");
    std::fs::write(&cfg, serde_json::to_vec(&common::small_config()).unwrap()).unwrap();
    let sample = common::sample_dir();
    let mut models = Vec::new();
    for (name, weight) in [("a", "snip=1"), ("b", "snip=1"), ("c", "snip=5")] {
        let out = dir.path().join(format!("{name}.model"));
        let o = train(&[
            "train",
            "--corpus",
            sample.to_str().unwrap(),
            "--corpus",
            snip.to_str().unwrap(),
            "--weight",
            weight,
            "--out",
            out.to_str().unwrap(),
            "--config",
            cfg.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert!(
            stdout.contains("per corpus") && stdout.contains("snippet P"),
            "{stdout}"
        );
        let metrics: serde_json::Value = serde_json::from_slice(
            &std::fs::read(format!("{}.metrics.json", out.display())).unwrap(),
        )
        .unwrap();
        let corpora = &metrics["cross_validation"]["corpora"];
        assert!(corpora["sample"]["word"]["overall"]["f1"].as_f64().unwrap() > 0.5);
        let snippets = &corpora["snip"]["snippets"];
        assert!(snippets["f1"].as_f64().is_some(), "{corpora}");
        // Every snippet page is scored out of fold, in some fold.
        let oof = metrics["pages_out_of_fold"].as_array().unwrap();
        assert!(oof
            .iter()
            .filter(|p| p["corpus"] == "snip")
            .all(|p| p["snippets"].is_object() && p.get("word").is_none()));
        assert_eq!(
            metrics["train_config"]["corpus_weights"]["snip"],
            weight[5..].parse::<f64>().unwrap()
        );
        models.push(std::fs::read(&out).unwrap());
    }
    assert_eq!(
        models[0], models[1],
        "same data, seed and weights: same bytes"
    );
    assert_ne!(models[0], models[2], "a corpus weight changes the model");

    // A weight for a corpus that is not there is a usage error.
    let o = train(&[
        "train",
        "--corpus",
        sample.to_str().unwrap(),
        "--weight",
        "nosuch=2",
        "--out",
        dir.path().join("x.model").to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("no corpus named nosuch"));
}

/// The library's training job over `corpora` with `cfg`.
fn train_library(
    corpora: &[std::path::PathBuf],
    cfg: &dechrome::TrainConfig,
) -> dechrome::train::TrainReport {
    let job = dechrome::train::TrainJob {
        corpora: corpora.to_vec(),
        config: cfg.clone(),
        ..Default::default()
    };
    dechrome::train::run(&job, &dechrome::train::Quiet).unwrap()
}

#[test]
fn the_library_trains_over_corpus_folders_like_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let snip = dir.path().join("snip");
    snippet_corpus(&snip);
    let cfg = common::small_config();
    let trained = train_library(&[common::sample_dir(), snip], &cfg);
    assert!(trained.skipped.is_empty());
    let cv = trained.cv.as_ref().unwrap();
    assert!(cv.corpora["sample"].word.is_some());
    assert!(cv.corpora["snip"].snippets.is_some());
    // The model extracts.
    let ex = dechrome::Extractor::new(trained.model, dechrome::ExtractorConfig::default()).unwrap();
    let page = ex
        .extract_bytes(&common::fixture("python-blog.html"), None)
        .unwrap();
    assert!(!page.text.is_empty());
}

#[test]
fn self_training_labels_undecided_snippet_blocks_and_is_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    let snip = dir.path().join("snip");
    snippet_corpus(&snip);
    let corpora = [common::sample_dir(), snip];
    let without = dechrome::TrainConfig {
        self_training: None,
        ..common::small_config()
    };
    let with = dechrome::TrainConfig {
        self_training: Some(dechrome::config::SelfTraining::default()),
        ..common::small_config()
    };
    let plain = train_library(&corpora, &without);
    let selfed = train_library(&corpora, &with);
    // The snippet pages' confidently predicted blocks join the training
    // rows of the final fit, so it trains on more rows and other trees.
    assert!(
        selfed.model.meta.blocks > plain.model.meta.blocks,
        "{} rows with self-training, {} without",
        selfed.model.meta.blocks,
        plain.model.meta.blocks
    );
    assert_ne!(selfed.model.ensemble.trees, plain.model.ensemble.trees);
    // Both are still scored out of fold per corpus, snippets included.
    let cv = selfed.cv.as_ref().unwrap();
    assert!(cv.corpora["snip"].snippets.is_some());
    assert!(cv.corpora["sample"].word.is_some());
    // Same data and seed: the same model.
    let again = train_library(&corpora, &with);
    assert_eq!(
        again.model.to_bytes().unwrap(),
        selfed.model.to_bytes().unwrap()
    );
}
