//! Every JSON object `extract` writes holds each key once: over both JSON
//! formats and every kind of input (file, stdin, folder, WARC, failed
//! pages), each output is read by a parser that refuses repeated keys. The
//! WARC fields have keys of their own (`warc_date`, `warc_record_id`), so
//! the page's publish date (`date`) never shadows the capture date.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::gzip;
use common::{strict_json, strict_json_lines, StrictJson};

fn run(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(common::bin())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    if let Some(bytes) = stdin {
        pipe.write_all(bytes).unwrap();
    }
    drop(pipe);
    child.wait_with_output().unwrap()
}

/// A news page; `published` (YYYY-MM-DD) goes into the page's metadata.
fn news_page(n: usize, published: Option<&str>) -> String {
    let meta = published
        .map(|d| format!("<meta property=\"article:published_time\" content=\"{d}T08:30:00Z\">"))
        .unwrap_or_default();
    format!(
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>Story {n} | Daily Example</title>{meta}</head><body>\
         <nav><a href=/>Home</a> <a href=/world>World</a> <a href=/sport>Sport</a> <a href=/opinion>Opinion</a></nav>\
         <article><h1>Story number {n} about the harbour</h1>\
         <p>Story {n}: the harbour authority said on Monday that the old pier will be rebuilt over the \
         next three years, after engineers found that the timber piles had rotted well below the waterline.</p>\
         <p>Fishing crews who use the pier every morning welcomed the decision but asked the authority to \
         keep at least one berth open while the work goes on, so that the catch can still be landed in town.</p>\
         </article><footer><a href=/privacy>Privacy policy</a> <a href=/contact>Contact the newsroom</a></footer>\
         </body></html>"
    )
}

/// One WARC record, gzipped on its own as warcio writes them.
fn record(fields: &[(&str, &str)], block: &[u8]) -> Vec<u8> {
    gzip(&common::warc_record(fields, block))
}

/// What the test expects of one HTML response of the crawl.
struct Page {
    uri: String,
    warc_date: String,
    record_id: String,
    published: Option<String>,
}

/// A crawl laid out as warcio's `WARCWriter` writes one capture run: a
/// `warcinfo` record, then per page a `request` and a `response` record
/// (HTTP/1.1 with headers), with `text/plain` responses (robots.txt and a
/// feed) between them that are not pages. 100 HTML pages, 89 of which give
/// a publish date.
fn warcio_like_crawl() -> (Vec<u8>, Vec<Page>) {
    let mut out = record(
        &[
            ("WARC-Type", "warcinfo"),
            (
                "WARC-Record-ID",
                "<urn:uuid:00000000-0000-4000-8000-000000000000>",
            ),
            ("WARC-Filename", "pages.warc.gz"),
            ("WARC-Date", "2026-11-24T00:59:12Z"),
            ("Content-Type", "application/warc-fields"),
        ],
        b"software: warcio.py/1.7.4\r\nformat: WARC File Format 1.0\r\n",
    );
    let mut pages = Vec::new();
    for n in 0..100 {
        let uri = format!("https://news{}.example/2019/11/story-{n}", n % 7);
        let warc_date = format!("2026-11-24T00:{:02}:{:02}Z", n / 60, n % 60);
        let record_id = format!("<urn:uuid:7d1c2b3a-0000-4000-8000-{n:012}>");
        let published = (n % 9 != 4).then(|| format!("2019-11-{:02}", 1 + n % 28));
        if n % 25 == 0 {
            let body = b"User-agent: *\nDisallow: /private/\n";
            let http = [
                &b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"[..],
                format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes(),
                body,
            ]
            .concat();
            out.extend(record(
                &[
                    ("WARC-Type", "response"),
                    ("WARC-Record-ID", &format!("<urn:uuid:robots-{n}>")),
                    (
                        "WARC-Target-URI",
                        &format!("https://news{}.example/robots.txt", n % 7),
                    ),
                    ("WARC-Date", &warc_date),
                    ("Content-Type", "application/http; msgtype=response"),
                ],
                &http,
            ));
        }
        let request = format!(
            "GET /2019/11/story-{n} HTTP/1.1\r\nHost: news{}.example\r\nUser-Agent: test\r\n\r\n",
            n % 7
        );
        out.extend(record(
            &[
                ("WARC-Type", "request"),
                ("WARC-Record-ID", &format!("<urn:uuid:request-{n}>")),
                ("WARC-Target-URI", &uri),
                ("WARC-Date", &warc_date),
                ("WARC-Concurrent-To", &record_id),
                ("Content-Type", "application/http; msgtype=request"),
            ],
            request.as_bytes(),
        ));
        let body = news_page(n, published.as_deref());
        let http = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        out.extend(record(
            &[
                ("WARC-Type", "response"),
                ("WARC-Record-ID", &record_id),
                ("WARC-Target-URI", &uri),
                ("WARC-Date", &warc_date),
                (
                    "WARC-Payload-Digest",
                    "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ",
                ),
                ("Content-Type", "application/http; msgtype=response"),
            ],
            http.as_bytes(),
        ));
        pages.push(Page {
            uri,
            warc_date,
            record_id,
            published,
        });
    }
    (out, pages)
}

#[test]
fn warc_pages_keep_the_capture_date_and_the_publish_date_apart() {
    let dir = tempfile::tempdir().unwrap();
    let (bytes, pages) = warcio_like_crawl();
    let file = dir.path().join("pages.warc.gz");
    std::fs::write(&file, bytes).unwrap();
    let o = run(
        &["extract", "--format", "jsonl", file.to_str().unwrap()],
        None,
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let lines = strict_json_lines(&o.stdout);
    assert_eq!(lines.len(), 100);
    let with_date = pages.iter().filter(|p| p.published.is_some()).count();
    assert_eq!(with_date, 89);
    for (line, page) in lines.iter().zip(&pages) {
        assert_eq!(line["url"], page.uri.as_str(), "{line}");
        assert_eq!(line["warc_date"], page.warc_date.as_str(), "{line}");
        assert_eq!(line["warc_record_id"], page.record_id.as_str(), "{line}");
        match &page.published {
            Some(d) => assert_eq!(line["date"], d.as_str(), "{line}"),
            None => assert!(line.get("date").is_none(), "{line}"),
        }
        assert!(line["text"].as_str().unwrap().contains("harbour authority"));
    }
}

/// Parses `extract`'s output in `format` strictly: JSONL line by line, JSON
/// as one pretty object (one page) or an array of them (several).
fn strict_objects(format: &str, out: &[u8]) -> Vec<serde_json::Value> {
    if format == "jsonl" {
        let values = strict_json_lines(out);
        assert!(values.iter().all(|v| v.is_object()));
        return values;
    }
    serde_json::Deserializer::from_slice(out)
        .into_iter::<StrictJson>()
        .map(|v| match v {
            Ok(StrictJson(v)) => v,
            Err(e) => panic!("not strict JSON ({e}): {}", String::from_utf8_lossy(out)),
        })
        .flat_map(|v| match v {
            serde_json::Value::Array(pages) => pages,
            one => vec![one],
        })
        .collect()
}

#[test]
fn no_output_repeats_a_key_for_any_input_or_format() {
    let dir = tempfile::tempdir().unwrap();
    let (warc, _) = warcio_like_crawl();
    let warc_file = dir.path().join("crawl.warc.gz");
    std::fs::write(&warc_file, &warc[..warc.len() / 3]).unwrap();
    let folder = dir.path().join("site");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(folder.join("a.html"), news_page(1, Some("2019-11-19"))).unwrap();
    std::fs::write(
        folder.join("b.html.gz"),
        gzip(news_page(2, None).as_bytes()),
    )
    .unwrap();
    std::fs::write(folder.join("broken.html.gz"), b"\x1f\x8b\x08not gzip").unwrap();
    let fixture = common::root().join("tests/fixtures/python-blog.html");
    let missing = dir.path().join("missing.html");
    let page = news_page(3, Some("2019-11-20"));

    for format in ["jsonl", "json"] {
        let o = run(
            &[
                "extract",
                "--format",
                format,
                fixture.to_str().unwrap(),
                "-",
                folder.to_str().unwrap(),
                warc_file.to_str().unwrap(),
                missing.to_str().unwrap(),
            ],
            Some(page.as_bytes()),
        );
        // Failed pages (the broken gzip, the missing file, the cut WARC) exit 1.
        assert_eq!(
            o.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let objects = strict_objects(format, &o.stdout);
        let kinds =
            |pred: &dyn Fn(&serde_json::Value) -> bool| objects.iter().filter(|v| pred(v)).count();
        assert_eq!(kinds(&|v| v["path"] == "-" && v["date"] == "2019-11-20"), 1);
        assert_eq!(
            kinds(&|v| v["path"] == fixture.to_str().unwrap() && v["text"].is_string()),
            1
        );
        assert!(kinds(&|v| v.get("warc_date").is_some() && v["text"].is_string()) >= 10);
        assert!(kinds(&|v| v["error"].is_string()) >= 3, "{objects:#?}");
        let in_folder = |v: &serde_json::Value| {
            v["path"]
                .as_str()
                .is_some_and(|p| Path::new(p).starts_with(&folder))
        };
        assert_eq!(kinds(&|v| in_folder(v) && v["text"].is_string()), 2);
    }
    // A lone object too: the Extraction of one page as pretty JSON.
    let o = run(&["extract", "--format", "json", "-"], Some(page.as_bytes()));
    let v = strict_json(&String::from_utf8_lossy(&o.stdout));
    assert_eq!(v["date"], "2019-11-20");
    assert!(v.get("warc_date").is_none());
}
