//! `dechrome extract`'s output over one page and several: line breaks in
//! Markdown, one JSON array, separators between pages, `--out-dir`, and
//! binary input refused.

mod common;

use std::path::Path;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(common::bin()).args(args).output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Writes a news page holding `sentence` to `dir/name`; returns its path.
fn write_page(dir: &Path, name: &str, sentence: &str) -> String {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    let body = format!(
        "<p>{sentence}</p><p>{}</p><p>{}</p>",
        common::PARAGRAPHS[0],
        common::PARAGRAPHS[1]
    );
    std::fs::write(&path, common::page(&body)).unwrap();
    path.display().to_string()
}

#[test]
fn markdown_line_breaks_are_plain_unless_hard_breaks() {
    let dir = tempfile::tempdir().unwrap();
    let page = write_page(
        dir.path(),
        "breaks.html",
        "The ferry timetable changes on Monday<br>and the first boat leaves at six in the morning.",
    );
    let o = run(&["extract", "--format", "markdown", &page]);
    assert!(o.status.success(), "{}", stderr(&o));
    let md = stdout(&o);
    assert!(md.contains("on Monday\nand the first boat"), "{md}");
    assert!(!md.contains("Monday\\"), "{md}");
    let o = run(&["extract", "--format", "markdown", "--hard-breaks", &page]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("on Monday\\\nand the first boat"));
}

/// Three pages in `dir`, each with its own first sentence.
fn three_pages(dir: &Path) -> Vec<(String, &'static str)> {
    let sentences = [
        "The lighthouse keeper retired after forty years on the rock.",
        "A new bakery opened on the market square with a queue at dawn.",
        "The river festival returns in June with boat races and music.",
    ];
    ["one.html", "two.html", "sub/three.html.gz"]
        .iter()
        .zip(sentences)
        .map(|(name, s)| {
            let path = write_page(dir, name, s);
            if name.ends_with(".gz") {
                let bytes = std::fs::read(&path).unwrap();
                std::fs::write(&path, common::gzip(&bytes)).unwrap();
            }
            (path, s)
        })
        .collect()
}

#[test]
fn json_over_several_pages_is_one_array_and_one_page_one_object() {
    let dir = tempfile::tempdir().unwrap();
    let pages = three_pages(dir.path());
    let paths: Vec<&str> = pages.iter().map(|(p, _)| p.as_str()).collect();
    let mut args = vec!["extract", "--format", "json"];
    args.extend(&paths);
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = common::strict_json(&stdout(&o));
    let array = v.as_array().expect("one JSON array");
    assert_eq!(array.len(), 3);
    for (page, (path, sentence)) in array.iter().zip(&pages) {
        assert_eq!(page["path"], path.as_str());
        assert!(page["text"].as_str().unwrap().contains(sentence));
    }
    // A folder is several pages, whatever it holds; a failed page is an
    // element too.
    let o = run(&[
        "extract",
        "--format",
        "json",
        dir.path().join("sub").to_str().unwrap(),
        "/no/such/page.html",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v = common::strict_json(&stdout(&o));
    assert_eq!(v.as_array().unwrap().len(), 2);
    assert!(v[1]["error"].is_string());
    // One page named on the command line: one object.
    let o = run(&["extract", "--format", "json", paths[0]]);
    let v = common::strict_json(&stdout(&o));
    assert_eq!(v["path"], paths[0]);
}

#[test]
fn text_and_markdown_over_several_pages_name_each_page() {
    let dir = tempfile::tempdir().unwrap();
    let pages = three_pages(dir.path());
    let paths: Vec<&str> = pages.iter().map(|(p, _)| p.as_str()).collect();
    for (format, header) in [
        ("text", "==> {} <==\n"),
        ("markdown", "<!-- dechrome: {} -->\n"),
    ] {
        let mut args = vec!["extract", "--format", format];
        args.extend(&paths);
        let out = stdout(&run(&args));
        let mut at = 0;
        for (path, sentence) in &pages {
            let h = header.replace("{}", path);
            let start = out[at..].find(&h).unwrap_or_else(|| panic!("{h} in {out}")) + at;
            let end = paths
                .iter()
                .filter_map(|p| out[start + h.len()..].find(&header.replace("{}", p)))
                .min()
                .map_or(out.len(), |e| e + start + h.len());
            assert!(out[start..end].contains(sentence), "{format}: {out}");
            at = end;
        }
        // One page: no header.
        let out = stdout(&run(&["extract", "--format", format, paths[0]]));
        assert!(!out.contains("==>") && !out.contains("<!--"), "{out}");
    }
}

/// A WARC file of a warcinfo record, a request and two HTML responses
/// (records 1 to 4); returns the responses' sentences.
fn write_warc(path: &Path) -> [&'static str; 2] {
    let sentences = [
        "The town library extends its opening hours over the summer holidays.",
        "A storm closed the coastal road for two days last week.",
    ];
    let response = |n: usize, sentence: &str| {
        let body = common::page(&format!(
            "<p>{sentence}</p><p>{}</p>",
            common::PARAGRAPHS[2]
        ));
        let mut http =
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n".to_vec();
        http.extend(body.as_bytes());
        common::warc_record(
            &[
                ("WARC-Type", "response"),
                ("WARC-Record-ID", &format!("<urn:uuid:{n}>")),
                ("WARC-Target-URI", &format!("https://news.example/{n}")),
                ("Content-Type", "application/http; msgtype=response"),
            ],
            &http,
        )
    };
    let records = [
        common::warc_record(&[("WARC-Type", "warcinfo")], b"software: tests\r\n"),
        response(2, sentences[0]),
        common::warc_record(
            &[
                ("WARC-Type", "request"),
                ("WARC-Target-URI", "https://news.example/2"),
            ],
            b"GET /2 HTTP/1.1\r\n\r\n",
        ),
        response(4, sentences[1]),
    ];
    let gz: Vec<u8> = records.iter().flat_map(|r| common::gzip(r)).collect();
    std::fs::write(path, gz).unwrap();
    sentences
}

#[test]
fn out_dir_writes_one_file_per_page_warc_records_by_number() {
    let dir = tempfile::tempdir().unwrap();
    let pages = three_pages(dir.path());
    // A second page named index.html in another folder, and a WARC file.
    let a = write_page(
        dir.path(),
        "a/index.html",
        "The first index page speaks of tides.",
    );
    let b = write_page(
        dir.path(),
        "b/index.html",
        "The second index page speaks of winds.",
    );
    let warc = dir.path().join("name.warc.gz");
    let warc_sentences = write_warc(&warc);
    // One thread names and writes the files in turn; two name them in the
    // producer: the same files either way.
    for threads in ["1", "2"] {
        let out = dir.path().join(format!("out-{threads}"));
        let mut args = vec![
            "extract",
            "--threads",
            threads,
            "--format",
            "markdown",
            "--out-dir",
            out.to_str().unwrap(),
        ];
        args.extend(pages.iter().map(|(p, _)| p.as_str()));
        args.extend([
            a.as_str(),
            b.as_str(),
            warc.to_str().unwrap(),
            "/no/such/page.html",
        ]);
        let o = run(&args);
        assert_eq!(o.status.code(), Some(1), "the missing page fails the run");
        assert!(stdout(&o).is_empty(), "nothing on stdout: {}", stdout(&o));
        assert!(stderr(&o).contains("/no/such/page.html"));
        let mut names: Vec<String> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            [
                "index-2.md",
                "index.md",
                "name.warc.gz-000002.md",
                "name.warc.gz-000004.md",
                "one.md",
                "three.md",
                "two.md"
            ]
        );
        let read = |n: &str| std::fs::read_to_string(out.join(n)).unwrap();
        for (name, (_, sentence)) in ["one.md", "two.md", "three.md"].iter().zip(&pages) {
            assert!(read(name).contains(sentence), "{name}");
        }
        assert!(read("index.md").contains("tides"));
        assert!(read("index-2.md").contains("winds"));
        assert!(read("name.warc.gz-000002.md").contains(warc_sentences[0]));
        assert!(read("name.warc.gz-000004.md").contains(warc_sentences[1]));
    }

    // JSON: each file holds one object.
    let out = dir.path().join("json");
    let o = run(&[
        "extract",
        "--format",
        "json",
        "--out-dir",
        out.to_str().unwrap(),
        warc.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = common::strict_json(
        &std::fs::read_to_string(out.join("name.warc.gz-000004.json")).unwrap(),
    );
    assert_eq!(v["url"], "https://news.example/4");
    // -o and --out-dir do not go together.
    let o = run(&["extract", "-o", "x", "--out-dir", "y", &a]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn binary_input_is_an_error_not_mojibake() {
    let dir = tempfile::tempdir().unwrap();
    // 3 KB of pseudo-random bytes (a fixed linear congruential sequence).
    let mut x: u32 = 12345;
    let bytes: Vec<u8> = (0..3000)
        .map(|_| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (x >> 16) as u8
        })
        .collect();
    let binary = dir.path().join("random.html");
    std::fs::write(&binary, &bytes).unwrap();
    let good = write_page(
        dir.path(),
        "good.html",
        "The market hall reopens on Saturday.",
    );
    let o = run(&[
        "extract",
        "--format",
        "jsonl",
        binary.to_str().unwrap(),
        &good,
    ]);
    assert_eq!(o.status.code(), Some(1));
    let lines = common::strict_json_lines(&o.stdout);
    assert_eq!(lines[0]["error"], "not HTML");
    assert!(lines[0].get("text").is_none());
    assert!(lines[1]["text"].as_str().unwrap().contains("market hall"));
    // One file in text: nothing on stdout, the error on stderr, exit 1.
    let o = run(&["extract", binary.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty(), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("random.html: not HTML"),
        "{}",
        stderr(&o)
    );
    // Gzipped binary data too.
    let gz = dir.path().join("random.html.gz");
    std::fs::write(&gz, common::gzip(&bytes)).unwrap();
    let o = run(&["extract", "--format", "jsonl", gz.to_str().unwrap()]);
    assert_eq!(common::strict_json_lines(&o.stdout)[0]["error"], "not HTML");
}
