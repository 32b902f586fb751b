//! Site context: a model trained with the site columns, extraction that
//! reads a batch twice, and the CLI's `--site-context`.

mod common;

use common::{sample_dir, small_config};
use dechrome::extract::{site_of, SiteContext};
use dechrome::features::site::SiteIndex;
use dechrome::train::{cross_validate, fit_final, prepare_all, Learner};
use dechrome::{CetrConfig, Extractor, ExtractorConfig, Model, TrainConfig};

fn site_config() -> TrainConfig {
    TrainConfig {
        site_context: true,
        ..small_config()
    }
}

fn site_model() -> Model {
    let cfg = site_config();
    let pages = dechrome::corpus::read_wcxb(&sample_dir()).unwrap();
    let (prepared, failed) = prepare_all(&pages, &cfg, &CetrConfig::default(), &|| {});
    assert!(failed.is_empty());
    let (cv, oof) =
        cross_validate(&prepared, &cfg, &CetrConfig::default(), Learner::Ensemble).unwrap();
    fit_final(&prepared, &oof, &cfg, &CetrConfig::default(), &cv).unwrap()
}

fn sample_pages() -> Vec<Vec<u8>> {
    let mut paths: Vec<_> = std::fs::read_dir(sample_dir().join("html"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    paths.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

#[test]
fn a_site_model_has_the_site_columns_and_survives_its_file() {
    let model = site_model();
    assert!(model.uses_site_context());
    assert!(model.schema.iter().any(|n| n == "site.text_share"));
    let again = Model::from_bytes(&model.to_bytes().unwrap()).unwrap();
    assert!(again.uses_site_context());
    assert!(!Model::embedded().unwrap().uses_site_context());
    let ex = Extractor::new(again, ExtractorConfig::default()).unwrap();
    assert!(ex.uses_site_context());
}

#[test]
fn pages_alone_on_their_site_extract_as_without_context() {
    // Every sample page is the only page of its site, so its blocks get
    // the "unknown" rows, as they did in training.
    let ex = Extractor::new(site_model(), ExtractorConfig::default()).unwrap();
    let pages = sample_pages();
    let mut index = SiteIndex::new();
    for (i, bytes) in pages.iter().enumerate() {
        let page = ex.site_page(bytes, None).unwrap();
        index.add(&format!("site{i}.example"), &page.keys);
    }
    for (i, bytes) in pages.iter().enumerate().take(12) {
        let url = format!("https://site{i}.example/page");
        let with = ex
            .extract_bytes_in_site(
                bytes,
                None,
                SiteContext {
                    index: &index,
                    url: Some(&url),
                },
            )
            .unwrap();
        let without = ex.extract_bytes(bytes, None).unwrap();
        assert_eq!(with.text, without.text, "page {i}");
    }
}

#[test]
fn three_pages_of_one_site_see_two_others() {
    // Three real pages given one site: every block counts the two other
    // pages, and a page's own text has share 0. (Template lines recurring
    // on real sites are checked over the shared corpora's multi-page
    // domains, in tests/corpora.rs.)
    let ex = Extractor::new(site_model(), ExtractorConfig::default()).unwrap();
    let pages = sample_pages();
    let mut index = SiteIndex::new();
    let mut keys = Vec::new();
    for bytes in &pages[..3] {
        let page = ex.site_page(bytes, None).unwrap();
        index.add("one.example", &page.keys);
        keys.push(page.keys);
    }
    assert_eq!(index.pages("one.example"), 3);
    let rows = index.rows("one.example", &keys[0]);
    assert_eq!(rows.rows.len(), keys[0].blocks.len());
    assert!(rows.rows.iter().all(|r| r[2] == 2f32.ln_1p()));
    assert!(
        rows.rows.iter().any(|r| r[0] == 0.0),
        "the page has text of its own"
    );
}

#[test]
fn the_site_of_a_page() {
    assert_eq!(
        site_of(Some("https://news.bbc.co.uk/x"), Some("https://other.org/")),
        "bbc.co.uk"
    );
    assert_eq!(
        site_of(None, Some("https://www.example.com/a")),
        "example.com"
    );
    assert_eq!(site_of(None, None), "");
    assert_eq!(site_of(Some("not a url"), None), "");
}

#[test]
fn cli_site_context_needs_a_site_model_and_rereadable_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("pages");
    std::fs::create_dir(&folder).unwrap();
    for name in ["python-blog.html", "github-blog.html", "docs-page.html"] {
        std::fs::write(folder.join(name), common::fixture(name)).unwrap();
    }
    let run = |args: &[&str]| {
        std::process::Command::new(common::bin())
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };
    let folder_arg = folder.display().to_string();
    let o = run(&["extract", "--site-context", &folder_arg]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("train --site-context"));

    let model_path = dir.path().join("site.model");
    site_model().save(&model_path).unwrap();
    let model_arg = model_path.display().to_string();
    let o = run(&["extract", "--site-context", "--model", &model_arg, "-"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not standard input"));

    let o = run(&[
        "extract",
        "--site-context",
        "--model",
        &model_arg,
        "--format",
        "jsonl",
        &folder_arg,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    let python = lines
        .iter()
        .find(|l| l["path"].as_str().unwrap().ends_with("python-blog.html"))
        .unwrap();
    assert!(python["text"]
        .as_str()
        .unwrap()
        .contains("We hope you enjoy Python 3.6.0!"));
}
