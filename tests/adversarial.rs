//! Hostile and broken input: every case returns a result or a clear error,
//! and nothing panics. Inputs are generated here rather than stored.
//! (Timing is measured with `dechrome bench`, never asserted in tests.)

use std::io::Write;

use dechrome::{Error, Extractor, ExtractorConfig, PageError};

fn forest() -> Extractor {
    Extractor::with_embedded_model(ExtractorConfig::default()).unwrap()
}

/// Extracts with the forest and CETR-KM; returns the forest's text, or the
/// error message. Panics only if the library panics.
fn both(bytes: &[u8]) -> Result<String, String> {
    let km = Extractor::kmeans(ExtractorConfig::default()).unwrap();
    let a = forest()
        .extract_bytes(bytes, None)
        .map(|e| e.text)
        .map_err(|e| e.to_string());
    let b = km
        .extract_bytes(bytes, None)
        .map(|e| e.text)
        .map_err(|e| e.to_string());
    assert_eq!(a.is_ok(), b.is_ok(), "both algorithms parse alike");
    a
}

const ARTICLE: &str = "<p>Forty-two hikers set out at dawn to cross the pass before the storm, \
    carrying food for three days and rope for the glacier. They reached the hut by noon.</p>";

#[test]
fn empty_whitespace_junk_and_nul_bytes() {
    assert_eq!(both(b"").unwrap(), "");
    assert_eq!(both(b"  \n\t \r\n ").unwrap(), "");
    let junk: Vec<u8> = (0..100_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    // Binary data is refused, not returned as mojibake.
    assert_eq!(both(&junk), Err("not HTML".to_string()));
    assert!(matches!(
        forest().extract_bytes(&junk, None),
        Err(Error::NotHtml)
    ));
    // A few NULs in a page do not make it binary.
    let with_nul = format!("<html><body>\0{ARTICLE}\0<p>a\0b</p></body></html>");
    both(with_nul.as_bytes()).unwrap();
}

#[test]
fn broken_markup() {
    both(format!("</html></html><div><p>{ARTICLE}<div><span><b>unclosed").as_bytes()).unwrap();
    both(b"no tags at all, just a sentence of plain text that goes on for a while.").unwrap();
    both(
        format!("<html><body>{ARTICLE}</body></html></html></body><p>after the end</p>").as_bytes(),
    )
    .unwrap();
    let t = both(
        format!("<body><script>document.write('</div><p>not text</p>');</script>{ARTICLE}</body>")
            .as_bytes(),
    )
    .unwrap();
    assert!(!t.contains("not text"), "script text never leaks: {t}");
    let t = both(
        format!("<body><!-- <p>commented out</p> --><![CDATA[<p>cdata</p>]]>{ARTICLE}</body>")
            .as_bytes(),
    )
    .unwrap();
    assert!(!t.contains("commented out"));
    both(
        format!("<frameset><frame src=a.html></frameset><noframes>{ARTICLE}</noframes>").as_bytes(),
    )
    .unwrap();
    let t = both(format!("<body><iframe><p>inside iframe</p></iframe>{ARTICLE}</body>").as_bytes())
        .unwrap();
    assert!(!t.contains("inside iframe"));
}

#[test]
fn invalid_utf8_and_utf16() {
    let mut bytes = format!("<meta charset=utf-8>{ARTICLE}").into_bytes();
    bytes.extend_from_slice(&[0xff, 0xfe, 0xc3, 0x28, 0xa0, 0xa1]);
    both(&bytes).unwrap();
    let html = format!("<html><body>{ARTICLE}</body></html>");
    let mut le = vec![0xFF, 0xFE];
    let mut be = vec![0xFE, 0xFF];
    let mut no_bom = Vec::new();
    for u in html.encode_utf16() {
        le.extend_from_slice(&u.to_le_bytes());
        be.extend_from_slice(&u.to_be_bytes());
        no_bom.extend_from_slice(&u.to_le_bytes());
    }
    assert!(both(&le).unwrap().contains("Forty-two hikers"));
    assert!(both(&be).unwrap().contains("Forty-two hikers"));
    // Without a byte order mark, UTF-16 is told by its zero bytes.
    assert!(both(&no_bom).unwrap().contains("Forty-two hikers"));
}

#[test]
fn legacy_charsets_declared_and_undeclared() {
    let cases: [(&'static encoding_rs::Encoding, &str, &str); 4] = [
        (encoding_rs::SHIFT_JIS, "shift_jis", "登山者たちは嵐の前に峠を越えるために夜明けに出発した。彼らは三日分の食料を持っていた。"),
        (encoding_rs::GB18030, "gb18030", "四十二名登山者在黎明时出发，要在暴风雨来临之前翻过山口。他们带了三天的食物。"),
        (encoding_rs::WINDOWS_1251, "windows-1251", "Сорок два туриста вышли на рассвете, чтобы пройти перевал до бури. Они несли еду на три дня."),
        (encoding_rs::WINDOWS_1252, "iso-8859-1", "Quarante-deux randonneurs sont partis à l'aube pour franchir le col avant l'orage. Ils portaient trois jours de vivres."),
    ];
    let km = Extractor::kmeans(ExtractorConfig::default()).unwrap();
    for (enc, label, text) in cases {
        let body = format!("<body><p>{text}</p><p>{text}</p></body>");
        let source = format!("<head><meta charset=\"{label}\"></head>{body}");
        let declared = enc.encode(&source).0;
        let page = km.extract_bytes(&declared, None).unwrap();
        assert!(
            page.blocks.iter().any(|b| b.text.contains(text)),
            "{label} declared"
        );
        let undeclared = enc.encode(&body).0;
        let page = km.extract_bytes(&undeclared, None).unwrap();
        // Detection may pick a sibling charset on short text; it must not fail.
        assert!(!page.blocks.is_empty(), "{label} undeclared");
        forest().extract_bytes(&undeclared, None).unwrap();
    }
    // A meta that lies: declares windows-1252, bytes are UTF-8.
    let page = km
        .extract_bytes(
            "<meta charset=windows-1252><p>Grüße aus Köln, schöne Grüße</p>".as_bytes(),
            None,
        )
        .unwrap();
    assert!(page.blocks[0].text.contains("Grüße aus Köln"));
}

#[test]
fn gzip_truncated_and_bomb() {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(format!("<html><body>{}</body></html>", ARTICLE.repeat(200)).as_bytes())
        .unwrap();
    let gz = enc.finish().unwrap();
    // Cut inside the stream: what decoded is used, or a clear error.
    match forest().extract_bytes(&gz[..gz.len() / 2], None) {
        Ok(_) | Err(Error::Page(_)) => {}
        Err(e) => panic!("unexpected error {e}"),
    }
    assert!(matches!(
        forest().extract_bytes(&gz[..12], None),
        Err(Error::Page(_))
    ));

    // 1 GB of zeros compresses to about 1 MB; max_bytes bounds the output.
    let mut bomb = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let zeros = vec![b' '; 1 << 20];
    for _ in 0..256 {
        bomb.write_all(&zeros).unwrap();
    }
    let bomb = bomb.finish().unwrap();
    let cfg = ExtractorConfig {
        max_bytes: 4 << 20,
        ..ExtractorConfig::default()
    };
    let page = Extractor::kmeans(cfg)
        .unwrap()
        .extract_bytes(&bomb, None)
        .unwrap();
    assert!(page.truncated);
}

#[test]
fn deep_nesting_is_refused_with_a_clear_error() {
    let html = format!(
        "{}{ARTICLE}{}",
        "<div>".repeat(100_000),
        "</div>".repeat(100_000)
    );
    match forest().extract_bytes(html.as_bytes(), None) {
        Err(Error::Page(PageError::TooDeep { limit })) => assert_eq!(limit, 4096),
        other => panic!("expected a depth error, got {:?}", other.map(|e| e.text)),
    }
    // Within the limit, deep pages extract.
    let html = format!(
        "{}{ARTICLE}{}",
        "<div>".repeat(3_000),
        "</div>".repeat(3_000)
    );
    forest().extract_bytes(html.as_bytes(), None).unwrap();
}

#[test]
fn sibling_blocks_up_to_the_node_budget() {
    // 400,000 paragraphs (800,000 nodes) fit the default budget of one
    // million nodes; a million paragraphs do not, and are refused.
    let html = format!("<body>{}{ARTICLE}</body>", "<p>x</p>".repeat(400_000));
    let page = forest().extract_bytes(html.as_bytes(), None).unwrap();
    assert_eq!(page.blocks.len(), 400_001);
    let html = format!("<body>{}{ARTICLE}</body>", "<p>x</p>".repeat(1_000_000));
    assert!(matches!(
        forest().extract_bytes(html.as_bytes(), None),
        Err(Error::Page(PageError::TooManyNodes { limit: 1_000_000 }))
    ));
}

#[test]
fn a_fifty_megabyte_page() {
    let mut html = String::with_capacity(52 << 20);
    html.push_str("<html><body>");
    while html.len() < 50 << 20 {
        html.push_str("<div class=row><a href=/x>link</a> ");
        html.push_str(ARTICLE);
        html.push_str("</div>\n");
    }
    html.push_str("</body></html>");
    // About 1.5 million nodes: over the default node budget, so raised.
    let cfg = ExtractorConfig {
        max_bytes: 64 << 20,
        max_nodes: 2_000_000,
        ..ExtractorConfig::default()
    };
    let page = Extractor::with_embedded_model(cfg)
        .unwrap()
        .extract_bytes(html.as_bytes(), None)
        .unwrap();
    assert!(!page.truncated);
    assert!(page.blocks.len() > 100_000);
    // With the default 20 MB limit the page is cut, not refused.
    assert!(
        forest()
            .extract_bytes(html.as_bytes(), None)
            .unwrap()
            .truncated
    );
}

#[test]
fn hostile_model_files_never_panic() {
    let good = dechrome::model::artifact::EMBEDDED;
    // Every prefix length class and single-byte flips across the file.
    for len in [
        0,
        1,
        7,
        8,
        12,
        20,
        23,
        24,
        25,
        100,
        good.len() / 2,
        good.len() - 1,
    ] {
        assert!(
            dechrome::Model::from_bytes(&good[..len]).is_err(),
            "prefix {len}"
        );
    }
    for i in (0..good.len()).step_by(good.len() / 97 + 1) {
        let mut b = good.to_vec();
        b[i] ^= 0x5a;
        assert!(dechrome::Model::from_bytes(&b).is_err(), "flip at {i}");
    }
    // A valid header with a correct checksum over garbage: a decode error.
    let body = vec![0xffu8; 4096];
    let mut raw = dechrome::model::MAGIC.to_vec();
    raw.extend_from_slice(&dechrome::model::FORMAT_VERSION.to_le_bytes());
    raw.extend_from_slice(&(body.len() as u64).to_le_bytes());
    raw.extend_from_slice(&crc32fast::hash(&body).to_le_bytes());
    raw.extend_from_slice(&body);
    assert!(matches!(
        dechrome::Model::from_bytes(&raw),
        Err(dechrome::ModelError::Decode(_))
    ));
}

#[test]
fn damaged_model_bodies_with_a_right_checksum_never_panic() {
    // Past the checksum, the decoder and the validation meet the damage:
    // tree node bytes, counts, lengths, floats. A flip may leave a model
    // that loads (a threshold a little off); it must never panic.
    let good = dechrome::model::artifact::EMBEDDED;
    let header = 24;
    let mut loaded = 0;
    for (n, i) in (header..good.len())
        .step_by(good.len() / 401 + 1)
        .enumerate()
    {
        let mut b = good.to_vec();
        b[i] ^= [0x01, 0x80, 0xff, 0x5a][n % 4];
        let crc = crc32fast::hash(&b[header..]);
        b[20..24].copy_from_slice(&crc.to_le_bytes());
        if dechrome::Model::from_bytes(&b).is_ok() {
            loaded += 1;
        }
    }
    assert!(loaded < 401, "every damaged body loaded");
}

#[test]
fn every_unsupervised_algorithm_survives_hostile_pages() {
    let deep = format!(
        "{}{ARTICLE}{}",
        "<div>".repeat(3_000),
        "</div>".repeat(3_000)
    );
    let siblings = format!("<body>{}{ARTICLE}</body>", "<p>x, y</p>".repeat(100_000));
    let comma_walls = format!(
        "<body><div class='comment sidebar post'>{}</div></body>",
        "<p>,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,</p>".repeat(5_000)
    );
    let inputs: [&[u8]; 6] = [
        b"",
        b"\x00\xff\xfe<<<>>>",
        b"<table><tr><td><p>open everything<div><li>",
        deep.as_bytes(),
        siblings.as_bytes(),
        comma_walls.as_bytes(),
    ];
    for algorithm in dechrome::Algorithm::SELECTABLE {
        if algorithm.needs_model() {
            continue;
        }
        let ex = Extractor::classic(algorithm, ExtractorConfig::default()).unwrap();
        for bytes in inputs {
            // An error is allowed, a panic is not.
            let _ = ex.extract_bytes(bytes, None);
        }
    }
    // The article of the deep page is what Readability's pick keeps.
    let ex =
        Extractor::classic(dechrome::Algorithm::Readability, ExtractorConfig::default()).unwrap();
    let page = ex.extract_bytes(deep.as_bytes(), None).unwrap();
    assert!(page.text.contains("Forty-two hikers"), "{}", page.text);
}
