//! Extraction with the shipped model and with CETR-KM on real pages.

mod common;

use serde::Deserialize;

use dechrome::{Algorithm, Extractor, ExtractorConfig};

#[derive(Deserialize)]
struct Fixture {
    file: String,
    must: Vec<String>,
    must_not: Vec<String>,
}

fn fixtures() -> Vec<Fixture> {
    serde_json::from_slice(&common::fixture("snippets.json")).unwrap()
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn shipped_models_keep_the_content_and_drop_the_chrome() {
    for fast in [false, true] {
        let ex = Extractor::from_config(ExtractorConfig {
            fast,
            ..ExtractorConfig::default()
        })
        .unwrap();
        assert_eq!(ex.algorithm(), Algorithm::Forest);
        keeps_the_snippets(&ex);
    }
}

#[test]
fn the_fast_model_has_one_ensemble_per_stage_and_refuses_a_second_model() {
    let (default, fast) = (
        dechrome::Model::embedded().unwrap(),
        dechrome::Model::embedded_fast().unwrap(),
    );
    assert_eq!(default.schema, fast.schema);
    let trees = |m: &dechrome::Model| {
        m.ensemble.trees.len() + m.stage2.as_ref().map_or(0, |s| s.trees.len())
    };
    assert_eq!(trees(&default), 2 * trees(&fast));
    assert!(fast.confidence.is_some() && fast.page_type.is_some());
    let refused = |config: ExtractorConfig| {
        let err = Extractor::from_config(config).err().expect("an error");
        assert!(err.to_string().contains("fast"), "{err}");
    };
    refused(ExtractorConfig {
        fast: true,
        model: Some("models/dechrome-v1.model".into()),
        ..ExtractorConfig::default()
    });
    refused(ExtractorConfig {
        fast: true,
        algorithm: Algorithm::Kmeans,
        ..ExtractorConfig::default()
    });
    let config = ExtractorConfig {
        fast: true,
        ..ExtractorConfig::default()
    };
    let err = Extractor::new(default, config).err().expect("an error");
    assert!(err.to_string().contains("fast"), "{err}");
}

fn keeps_the_snippets(ex: &Extractor) {
    for f in fixtures() {
        let page = ex.extract_bytes(&common::fixture(&f.file), None).unwrap();
        let text = collapse(&page.text);
        for s in &f.must {
            assert!(text.contains(&collapse(s)), "{}: missing {s:?}", f.file);
        }
        for s in &f.must_not {
            assert!(
                !text.contains(&collapse(s)),
                "{}: kept chrome {s:?}",
                f.file
            );
        }
        assert!(page.kept() > 0 && page.kept() < page.blocks.len());
    }
}

#[test]
fn kmeans_needs_no_model_and_keeps_the_article_body() {
    let ex = Extractor::kmeans(ExtractorConfig::default()).unwrap();
    let page = ex
        .extract_bytes(&common::fixture("python-blog.html"), None)
        .unwrap();
    assert_eq!(page.algorithm, Algorithm::Kmeans);
    assert!(collapse(&page.text).contains("You can download Python 3.6.0 here"));
    assert!(page.kept() < page.blocks.len());
}

#[test]
fn gzipped_input_is_read_transparently() {
    use std::io::Write;
    let html = common::fixture("python-blog.html");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(&html).unwrap();
    let gz = enc.finish().unwrap();
    let ex = Extractor::with_embedded_model(ExtractorConfig::default()).unwrap();
    assert_eq!(
        ex.extract_bytes(&gz, None).unwrap().text,
        ex.extract_bytes(&html, None).unwrap().text
    );
}

/// The `<p>` texts of a fixture page (the article's paragraphs).
fn paragraphs(html: &str) -> Vec<&str> {
    html.split("<p>")
        .skip(1)
        .filter_map(|p| p.split("</p>").next())
        .collect()
}

#[test]
fn chinese_and_arabic_pages_are_extracted() {
    let ex = Extractor::with_embedded_model(ExtractorConfig::default()).unwrap();
    // A Chinese news page served as GB18030, an Arabic one as UTF-8: each
    // has a menu, a most-read list, a footer and a five-paragraph article.
    let zh = String::from_utf8(common::fixture("news-zh.html")).unwrap();
    let (bytes, _, _) = encoding_rs::GB18030.encode(&zh);
    let ar = String::from_utf8(common::fixture("news-ar.html")).unwrap();
    let cases = [
        (&zh, ex.extract_bytes(&bytes, None).unwrap(), "gb18030"),
        (&ar, ex.extract_str(&ar).unwrap(), "utf-8"),
    ];
    // Menu, most-read links and footer. Not the most-read list's heading:
    // short headings right after the content are borderline (a model
    // trained without the repeated-text columns kept the Chinese "热门文章").
    let chrome = [
        "体育",
        "地铁三号线",
        "图书馆延长",
        "联系我们",
        "版权所有", // zh
        "رياضة",
        "ارتفاع أسعار الذهب",
        "مواعيد الامتحانات",
        "اتصل بنا",
        "جميع الحقوق", // ar
    ];
    for (html, page, encoding) in cases {
        assert!(
            page.encoding.eq_ignore_ascii_case(encoding),
            "{}",
            page.encoding
        );
        let body: Vec<&str> = paragraphs(html)
            .into_iter()
            .filter(|p| !p.contains("©"))
            .collect();
        assert_eq!(body.len(), 5);
        for p in body {
            assert!(page.text.contains(p), "missing {p:?} in {:?}", page.text);
        }
        for c in chrome {
            assert!(!page.text.contains(c), "kept {c:?} in {:?}", page.text);
        }
    }
}

#[test]
fn a_menu_with_two_short_paragraphs_yields_text_and_ranks_the_menu_last() {
    // Three blocks: a two-link menu and two paragraphs. Little page to judge
    // by. Short pages are real (a brief news item), so this pins that the
    // model keeps some of the text: a feature change that leaves nothing
    // here (the code/log and repeated-text columns did, docs/experiments.md,
    // "Features") is a regression even if CV gains. The menu must rank
    // below both paragraphs; whether it is dropped is the page's threshold
    // (the model of this round gives it 0.34 against a threshold of 0.32 on
    // a page this short and keeps it, the one before 0.23 and dropped it).
    let ex = Extractor::with_embedded_model(ExtractorConfig::default()).unwrap();
    let ar = "<html dir=rtl><head><meta charset=utf-8></head><body><nav><a href=/>الرئيسية</a> <a href=/a>أخبار</a></nav>\
        <article><p>أعلنت وزارة الصحة اليوم عن افتتاح مستشفى جديد في المدينة، ويضم المستشفى أكثر من مئتي سرير وعددا من الأقسام المتخصصة التي ستخدم سكان المنطقة.</p>\
        <p>وقال الوزير إن المشروع استغرق ثلاث سنوات من العمل المتواصل، وإنه جزء من خطة أوسع لتحسين الخدمات الصحية في جميع أنحاء البلاد.</p></article></body></html>";
    let page = ex.extract_str(ar).unwrap();
    assert_eq!(page.algorithm, Algorithm::Forest);
    assert!(
        page.text.contains("أعلنت وزارة الصحة") || page.text.contains("وقال الوزير"),
        "{}",
        page.text
    );
    let p: Vec<f32> = page.blocks.iter().map(|b| b.probability).collect();
    assert_eq!(p.len(), 3, "{:?}", page.blocks);
    assert!(
        page.blocks[0].text.contains("الرئيسية"),
        "{:?}",
        page.blocks
    );
    assert!(p[0] < p[1] && p[0] < p[2], "{p:?}");
}

#[test]
#[ignore = "needs ../shared/corpora beside the repository; .ci/run runs it"]
fn every_readability_page_extracts_without_error() {
    let dir = common::shared_corpora()
        .expect("../shared/corpora")
        .join("readability-pages");
    let ex = Extractor::with_embedded_model(ExtractorConfig::default()).unwrap();
    let km = Extractor::kmeans(ExtractorConfig::default()).unwrap();
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "html") {
            let bytes = std::fs::read(&path).unwrap();
            ex.extract_bytes(&bytes, None)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            km.extract_bytes(&bytes, None)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            n += 1;
        }
    }
    assert!(n >= 100, "only {n} pages found");
}

#[test]
fn forest_keeps_its_empty_answer_unless_the_fallback_is_asked_for() {
    let html = common::fixture("python-blog.html");
    // A threshold no probability reaches, on every page: the forest keeps
    // nothing, and by default that empty answer stands.
    let cfg = ExtractorConfig {
        threshold: Some(1.0),
        low_prose_shift: Some(0.0),
        ..ExtractorConfig::default()
    };
    let page = Extractor::with_embedded_model(cfg.clone())
        .unwrap()
        .extract_bytes(&html, None)
        .unwrap();
    assert_eq!(page.algorithm, Algorithm::Forest);
    assert!(page.text.is_empty());

    // With the fallback on, CETR-KM decides instead.
    let mut with_fallback = cfg;
    with_fallback.fallback = true;
    let page = Extractor::with_embedded_model(with_fallback)
        .unwrap()
        .extract_bytes(&html, None)
        .unwrap();
    assert_eq!(page.algorithm, Algorithm::KmeansFallback);
    assert!(collapse(&page.text).contains("You can download Python 3.6.0 here"));

    // A normal page keeps the forest's decision either way.
    let normal = ExtractorConfig {
        fallback: true,
        ..ExtractorConfig::default()
    };
    let page = Extractor::with_embedded_model(normal)
        .unwrap()
        .extract_bytes(&html, None)
        .unwrap();
    assert_eq!(page.algorithm, Algorithm::Forest);
}

#[test]
fn every_classic_algorithm_extracts_the_fixture_article() {
    let html = common::fixture("github-blog.html");
    // Crunch removes chrome before splitting, so count against all blocks.
    let all_blocks = Extractor::kmeans(ExtractorConfig::default())
        .unwrap()
        .extract_bytes(&html, None)
        .unwrap()
        .blocks
        .len();
    for alg in Algorithm::SELECTABLE {
        if alg.needs_model() {
            continue;
        }
        let ex = Extractor::classic(alg, ExtractorConfig::default()).unwrap();
        let page = ex.extract_bytes(&html, None).unwrap();
        assert_eq!(page.algorithm, alg);
        assert!(page.kept() > 0, "{}: kept nothing", alg.name());
        assert!(page.kept() < all_blocks, "{}: kept everything", alg.name());
        assert!(
            collapse(&page.text).contains("Erin Spiceland is a Software Engineer for SpaceX."),
            "{} lost the article",
            alg.name()
        );
        assert_eq!(Algorithm::from_name(alg.name()), Some(alg));
    }
    assert!(Extractor::classic(Algorithm::Forest, ExtractorConfig::default()).is_err());
}

#[test]
fn crunch_retains_removed_links_under_the_flag() {
    let html = common::fixture("python-blog.html");
    let plain = Extractor::classic(Algorithm::Crunch, ExtractorConfig::default()).unwrap();
    let mut cfg = ExtractorConfig::default();
    cfg.classic.crunch_retain_links = true;
    let retain = Extractor::classic(Algorithm::Crunch, cfg).unwrap();
    let a = plain.extract_bytes(&html, None).unwrap().text;
    let b = retain.extract_bytes(&html, None).unwrap().text;
    assert!(
        b.starts_with(&a) && b.len() > a.len(),
        "the retainer appends the removed links"
    );

    let mut cfg = ExtractorConfig::default();
    cfg.classic.crunch_ad_hosts_file = Some("/no/such/list.txt".into());
    assert!(matches!(
        Extractor::classic(Algorithm::Crunch, cfg),
        Err(dechrome::Error::Io { .. })
    ));
}
