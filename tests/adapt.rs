//! Site adaptation and the per-block labels `dechrome annotate` saves: a
//! small made-up site written as a WCXB corpus (as `annotate` writes it),
//! a base model trained on the repository's sample, and the `adapt` /
//! `train` commands on them.

mod common;

use std::path::Path;

use common::{gzip, prepared_sample, small_config};
use dechrome::train::adapt::{adapt, adapt_corpora, base_train_config, AdaptConfig};
use dechrome::train::{
    cross_validate, fit_final, predict_prepared, prepare_all, read_corpora, Learner, PreparedPage,
};
use dechrome::{CetrConfig, Error, Model};

/// A page of the made-up site: navigation, the story, a fact box that this
/// site counts as content (most sites' fact boxes are chrome), a footer.
fn site_page(n: usize) -> String {
    let mut html = String::from(
        "<html><head><title>Harbour notes</title></head><body>\
         <nav class=top-nav><a href=/>Home</a> <a href=/boats>Boats</a> \
         <a href=/tides>Tides</a> <a href=/contact>Contact</a></nav>",
    );
    html.push_str(&format!(
        "<div class=story><h1>Harbour note number {n}</h1>"
    ));
    for p in 0..4 {
        html.push_str(&format!(
            "<p>Paragraph {p} of note {n}: the fishing boats came in early today with \
             a good catch of mackerel, and the harbour master logged {} arrivals \
             before the tide turned in the afternoon.</p>",
            n * 7 + p
        ));
    }
    html.push_str("</div><aside class=sidebox><ul class=link-list>");
    for f in 0..3 {
        html.push_str(&format!(
            "<li><a href=/fact/{n}/{f}>Fact {f}: water temperature {} degrees</a></li>",
            10 + n + f
        ));
    }
    html.push_str(
        "</ul></aside><footer class=site-footer>Copyright Harbour notes \
         <a href=/privacy>Privacy</a> <a href=/terms>Terms</a></footer></body></html>",
    );
    html
}

/// The blocks of `html` under the library's splitter, each with the label
/// of the made-up site's policy (story and fact box content).
fn site_labels(html: &str) -> (Vec<String>, Vec<bool>) {
    let doc = dechrome::parse::parse(html.as_bytes(), None, Default::default()).unwrap();
    let blocks = dechrome::blocks::split(&doc);
    let texts: Vec<String> = blocks.blocks.iter().map(|b| b.text.clone()).collect();
    let labels = texts
        .iter()
        .map(|t| {
            t.contains("Harbour note number") || t.contains("Paragraph") || t.contains("Fact ")
        })
        .collect();
    (texts, labels)
}

/// Writes pages `ns` of the made-up site as `annotate` saves them:
/// gold text from the content blocks and the per-block labels. With
/// `labels` a function may change the saved labels.
fn write_site(dir: &Path, ns: &[usize], labels: impl Fn(&[bool]) -> Vec<u8>) {
    std::fs::create_dir_all(dir.join("html")).unwrap();
    std::fs::create_dir_all(dir.join("ground-truth")).unwrap();
    for (i, &n) in ns.iter().enumerate() {
        let id = format!("{:04}", i + 1);
        let html = site_page(n);
        let (texts, l) = site_labels(&html);
        let gold: Vec<&str> = texts
            .iter()
            .zip(&l)
            .filter(|(_, &c)| c)
            .map(|(t, _)| t.as_str())
            .collect();
        std::fs::write(
            dir.join("html").join(format!("{id}.html.gz")),
            gzip(html.as_bytes()),
        )
        .unwrap();
        let gt = serde_json::json!({
            "file_id": id,
            "url": format!("https://harbour.example/notes/{n}"),
            "ground_truth": { "main_content": gold.join("\n\n") },
            "_internal": {
                "page_type": { "primary": "article" },
                "block_labels": labels(&l),
            },
        });
        std::fs::write(
            dir.join("ground-truth").join(format!("{id}.json")),
            serde_json::to_vec(&gt).unwrap(),
        )
        .unwrap();
    }
}

fn as_saved(l: &[bool]) -> Vec<u8> {
    l.iter().map(|&b| u8::from(b)).collect()
}

/// A small base model trained on the repository's sample (one stage).
fn base_model() -> Model {
    let mut cfg = small_config();
    cfg.stacking = false;
    cfg.ensemble.n_trees = 20;
    let pages = prepared_sample(&cfg);
    let cetr = CetrConfig::default();
    let (cv, oof) = cross_validate(&pages, &cfg, &cetr, Learner::Ensemble).unwrap();
    fit_final(&pages, &oof, &cfg, &cetr, &cv).unwrap()
}

fn prepared_site(dir: &Path, base: &Model) -> Vec<PreparedPage> {
    let pages = read_corpora(&[dir.to_path_buf()]).unwrap();
    let (ok, failed) = prepare_all(&pages, &base_train_config(base), &base.cetr, &|| {});
    assert!(failed.is_empty());
    ok
}

fn mean_f1(model: &Model, pages: &[PreparedPage]) -> f64 {
    pages
        .iter()
        .map(|p| {
            let probs = predict_prepared(model, p);
            p.score(|b| probs[b] >= model.threshold).f1
        })
        .sum::<f64>()
        / pages.len() as f64
}

#[test]
fn saved_block_labels_are_used_as_they_are_when_their_count_matches() {
    let tmp = tempfile::tempdir().unwrap();
    // Labels that no alignment of the gold text would give: every other
    // block content.
    let odd = |l: &[bool]| (0..l.len()).map(|i| (i % 2) as u8).collect::<Vec<u8>>();
    write_site(&tmp.path().join("odd"), &[1], odd);
    // One label too many: the splitter disagrees, so the gold text is aligned.
    write_site(&tmp.path().join("long"), &[1], |l| {
        let mut v = odd(l);
        v.push(1);
        v
    });
    let cfg = small_config();
    let cetr = CetrConfig::default();
    let read = |name: &str| {
        let pages = read_corpora(&[tmp.path().join(name)]).unwrap();
        let (ok, _) = prepare_all(&pages, &cfg, &cetr, &|| {});
        ok.into_iter().next().unwrap()
    };
    let given = read("odd");
    let (_, truth) = site_labels(&site_page(1));
    let want: Vec<bool> = given
        .blocks
        .blocks
        .iter()
        .enumerate()
        .map(|(i, b)| i % 2 == 1 && b.words > 0)
        .collect();
    assert_eq!(given.labels, want);
    assert_ne!(given.labels, truth);
    let aligned = read("long");
    assert_eq!(aligned.labels, truth, "falls back to aligning main_content");
}

#[test]
fn adapting_learns_the_site_and_is_deterministic() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("harbour");
    write_site(&site, &[1, 2, 3], as_saved);
    let held_out = tmp.path().join("harbour-more");
    write_site(&held_out, &[4, 5], as_saved);
    let base = base_model();
    let pages = prepared_site(&site, &base);
    let cfg = AdaptConfig {
        trees: 15,
        ..AdaptConfig::default()
    };
    let a = adapt(&base, &pages, &cfg).unwrap();
    assert_eq!(a.stage, 1);
    assert_eq!(a.pages, 3);
    assert_eq!(a.model.ensemble.trees.len(), base.ensemble.trees.len() + 15);
    assert_eq!(a.model.threshold, base.threshold);
    assert!(a.tokens_updated > 0);
    let (before, after) = (mean_f1(&base, &pages), mean_f1(&a.model, &pages));
    let more = prepared_site(&held_out, &base);
    let (before_new, after_new) = (mean_f1(&base, &more), mean_f1(&a.model, &more));
    eprintln!(
        "site pages: base F1 {before:.4}, adapted {after:.4}; other pages of the site: {before_new:.4} -> {after_new:.4}"
    );
    assert!(after >= before, "{after} < {before}");
    assert!(after_new >= before_new, "{after_new} < {before_new}");
    assert!(after > 0.95, "adapted F1 on its own pages {after}");
    // Same inputs, same bytes; an ordinary model file.
    let again = adapt(&base, &prepared_site(&site, &base), &cfg).unwrap();
    let bytes = a.model.to_bytes().unwrap();
    assert_eq!(bytes, again.model.to_bytes().unwrap());
    assert_eq!(Model::from_bytes(&bytes).unwrap(), a.model);
    let (via_dirs, skipped) = adapt_corpora(&base, &[site], &cfg).unwrap();
    assert!(skipped.is_empty());
    assert_eq!(via_dirs.model.to_bytes().unwrap(), bytes);
}

#[test]
fn a_stacked_model_gets_its_trees_in_the_second_stage() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("harbour");
    write_site(&site, &[1, 2], as_saved);
    let mut cfg = small_config();
    cfg.ensemble.n_trees = 10;
    let sample = prepared_sample(&cfg);
    let cetr = CetrConfig::default();
    let (cv, oof) = cross_validate(&sample, &cfg, &cetr, Learner::Ensemble).unwrap();
    let base = fit_final(&sample, &oof, &cfg, &cetr, &cv).unwrap();
    assert!(base.stage2.is_some());
    let pages = prepared_site(&site, &base);
    let a = adapt(
        &base,
        &pages,
        &AdaptConfig {
            trees: 5,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(a.stage, 2);
    assert_eq!(a.model.ensemble, base.ensemble, "the first stage is kept");
    let n2 = |m: &Model| m.stage2.as_ref().unwrap().trees.len();
    assert_eq!(n2(&a.model), n2(&base) + 5);
    assert!(mean_f1(&a.model, &pages) >= mean_f1(&base, &pages));
}

#[test]
fn adapting_refuses_no_pages_a_bad_config_and_a_foreign_schema() {
    let base = base_model();
    let cfg = AdaptConfig::default();
    assert!(matches!(adapt(&base, &[], &cfg), Err(Error::Training(_))));
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("harbour");
    write_site(&site, &[1], as_saved);
    let pages = prepared_site(&site, &base);
    let bad = AdaptConfig {
        learning_rate: 0.0,
        ..AdaptConfig::default()
    };
    match adapt(&base, &pages, &bad) {
        Err(Error::Config { field, .. }) => assert_eq!(field, "learning_rate"),
        other => panic!("expected a config error, got {other:?}"),
    }
    let mut foreign = base.clone();
    foreign.schema.pop();
    foreign.schema_hash = dechrome::features::schema_hash(&foreign.schema);
    assert!(matches!(
        adapt(&foreign, &pages, &cfg),
        Err(Error::Model(_))
    ));
    // Odds only: no trees added, the site's tokens still learned.
    let odds = adapt(&base, &pages, &AdaptConfig { trees: 0, ..cfg }).unwrap();
    assert_eq!(odds.model.ensemble, base.ensemble);
    assert_ne!(odds.model.css_odds, base.css_odds);
}

#[test]
fn the_commands_train_and_adapt_on_three_pages_of_one_site() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("harbour");
    write_site(&site, &[1, 2, 3], as_saved);
    let run = |args: &[&str]| {
        std::process::Command::new(common::bin())
            .args(args)
            .output()
            .unwrap()
    };
    let p = |name: &str| tmp.path().join(name).display().to_string();
    let s = site.display().to_string();
    // One site: no cross-validation, said so, and a model anyway.
    let o = run(&["train", "--corpus", &s, "--out", &p("one.model")]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no cross-validation"));
    Model::load(p("one.model")).unwrap();
    // Adapt the model just trained, twice; extract loads the result.
    for out in ["a.model", "b.model"] {
        let o = run(&[
            "adapt",
            "--model",
            &p("one.model"),
            "--corpus",
            &s,
            "--out",
            &p(out),
            "--trees",
            "5",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    assert_eq!(
        std::fs::read(p("a.model")).unwrap(),
        std::fs::read(p("b.model")).unwrap()
    );
    let page = tmp.path().join("new.html");
    std::fs::write(&page, site_page(9)).unwrap();
    let o = run(&[
        "extract",
        "--model",
        &p("a.model"),
        &page.display().to_string(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("Paragraph 2 of note 9"));
    // A corrupt base, an empty corpus: clear errors, exit 2, no output file.
    let mut bytes = std::fs::read(p("one.model")).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(p("bad.model"), bytes).unwrap();
    let o = run(&[
        "adapt",
        "--model",
        &p("bad.model"),
        "--corpus",
        &s,
        "--out",
        &p("c.model"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot load model"));
    let empty = tmp.path().join("empty");
    std::fs::create_dir_all(empty.join("ground-truth")).unwrap();
    let o = run(&[
        "adapt",
        "--corpus",
        &empty.display().to_string(),
        "--out",
        &p("d.model"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no ground-truth files"));
    assert!(!tmp.path().join("c.model").exists() && !tmp.path().join("d.model").exists());
}

#[test]
fn three_sites_get_three_folds() {
    let tmp = tempfile::tempdir().unwrap();
    let mut cmd = std::process::Command::new(common::bin());
    cmd.arg("train");
    // The same made-up site under three hosts: three sites.
    for (k, host) in ["harbour", "quay", "pier"].iter().enumerate() {
        let dir = tmp.path().join(host);
        write_site(&dir, &[2 * k + 1, 2 * k + 2], as_saved);
        for f in std::fs::read_dir(dir.join("ground-truth")).unwrap() {
            let path = f.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            std::fs::write(
                &path,
                text.replace("harbour.example", &format!("{host}.example")),
            )
            .unwrap();
        }
        cmd.arg("--corpus").arg(&dir);
    }
    let o = cmd
        .arg("--out")
        .arg(tmp.path().join("m.model"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("cross-validating with 3 folds"), "{err}");
}

#[test]
fn fold_models_make_the_cross_validation_they_come_from() {
    let mut cfg = small_config();
    cfg.stacking = false;
    cfg.ensemble.n_trees = 10;
    // Fold models carry no page-type classifier, so the selection stage
    // sees no page type (no per-type rule: captions named by a class, a
    // forum's comment share); the cross-validation they reproduce is the
    // one without page types.
    cfg.page_type = false;
    let pages = prepared_sample(&cfg);
    let cetr = CetrConfig::default();
    let fm = dechrome::train::fold_models(&pages, &cfg, &cetr).unwrap();
    let (cv, _) = cross_validate(&pages, &cfg, &cetr, Learner::Ensemble).unwrap();
    assert_eq!(fm.cv.word.overall.f1, cv.word.overall.f1);
    assert_eq!(fm.cv.fold_thresholds, cv.fold_thresholds);
    // Each page scored by its fold's model, through the selection stage
    // with the model's selection, gives its out-of-fold score.
    for (i, p) in pages.iter().enumerate() {
        let m = &fm.models[fm.folds[i]];
        let probs = predict_prepared(m, p);
        let select = dechrome::select::SelectConfig::for_model(m.threshold, m.selection);
        let kept = dechrome::select::keep(&p.blocks, &probs, &select);
        assert_eq!(kept, cv.pages[i].kept, "page {}", p.id);
        let f1 = p.score(|b| kept[b]).f1;
        assert_eq!(Some(f1), cv.pages[i].word.map(|w| w.f1), "page {}", p.id);
    }
    cfg.stacking = true;
    assert!(dechrome::train::fold_models(&pages, &cfg, &cetr).is_err());
}

#[test]
fn a_site_context_model_adapts_with_its_own_columns() {
    let tmp = tempfile::tempdir().unwrap();
    let site = tmp.path().join("harbour");
    write_site(&site, &[1, 2, 3], as_saved);
    let mut cfg = small_config();
    cfg.stacking = false;
    cfg.site_context = true;
    cfg.ensemble.n_trees = 10;
    let sample = prepared_sample(&cfg);
    let cetr = CetrConfig::default();
    let (cv, oof) = cross_validate(&sample, &cfg, &cetr, Learner::Ensemble).unwrap();
    let base = fit_final(&sample, &oof, &cfg, &cetr, &cv).unwrap();
    assert!(base.feature_set().has_site());
    let pages = prepared_site(&site, &base);
    let a = adapt(&base, &pages, &AdaptConfig::default()).unwrap();
    assert_eq!(a.model.schema, base.schema);
    assert_eq!(
        Model::from_bytes(&a.model.to_bytes().unwrap()).unwrap(),
        a.model
    );
    // Pages prepared without the site columns are refused, not misread.
    let plain = {
        let read = read_corpora(&[site]).unwrap();
        prepare_all(&read, &small_config(), &cetr, &|| {}).0
    };
    assert!(matches!(
        adapt(&base, &plain, &AdaptConfig::default()),
        Err(Error::Training(_))
    ));
}
