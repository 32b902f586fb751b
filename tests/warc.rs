//! `dechrome extract` over WARC files, folders with globs, and `--order any`,
//! with inputs made here.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::gzip;

fn run(args: &[&str]) -> Output {
    Command::new(common::bin()).args(args).output().unwrap()
}

fn lines(o: &Output) -> Vec<serde_json::Value> {
    common::strict_json_lines(&o.stdout)
}

/// A news page: navigation, an article holding `sentence`, a footer.
fn page(title: &str, sentence: &str) -> String {
    format!(
        "<html><head><title>{title}</title></head><body>\
         <nav><a href=/>Home</a> <a href=/news>News</a> <a href=/sport>Sport</a> <a href=/about>About us</a></nav>\
         <article><h1>{title}</h1>\
         <p>{sentence} The council met on Tuesday evening to discuss the plans, which had been \
         debated for more than two years, and most members agreed that the town needed the change.</p>\
         <p>Residents who attended the meeting said they were pleased with the outcome, although some \
         worried about the cost and asked for a clear timetable before any work begins next spring.</p>\
         </article><footer><a href=/privacy>Privacy policy</a> <a href=/contact>Contact the newsroom</a></footer>\
         </body></html>"
    )
}

/// An HTTP response message.
fn http(headers: &[&str], body: &[u8]) -> Vec<u8> {
    let mut v = b"HTTP/1.1 200 OK\r\n".to_vec();
    for h in headers {
        v.extend(h.as_bytes());
        v.extend(b"\r\n");
    }
    v.extend(b"\r\n");
    v.extend(body);
    v
}

/// A WARC record's bytes.
fn record(fields: &[(&str, &str)], block: &[u8]) -> Vec<u8> {
    common::warc_record(fields, block)
}

fn response(uri: &str, date: &str, http: &[u8]) -> Vec<u8> {
    record(
        &[
            ("WARC-Type", "response"),
            ("WARC-Record-ID", &format!("<urn:uuid:{uri}>")),
            ("WARC-Target-URI", uri),
            ("WARC-Date", date),
            ("Content-Type", "application/http; msgtype=response"),
        ],
        http,
    )
}

/// An HTML page expected out of a WARC: record number, URI, date, sentence.
struct Expected {
    record: usize,
    uri: &'static str,
    date: &'static str,
    sentence: &'static str,
}

/// A small crawl: a warcinfo record, HTML responses (plain, chunked and
/// gzipped, Latin-1 named only by the HTTP header, untyped but sniffed), a
/// request, and PNG and JSON responses that are not pages.
fn crawl() -> (Vec<Vec<u8>>, Vec<Expected>) {
    let mut records = vec![record(
        &[
            ("WARC-Type", "warcinfo"),
            ("Content-Type", "application/warc-fields"),
        ],
        b"software: dechrome tests\r\nformat: WARC File Format 1.1\r\n",
    )];
    let mut expected = Vec::new();

    let s1 = "The new bridge over the river opened to traffic this morning.";
    records.push(response(
        "https://news.example/bridge",
        "2024-05-01T10:00:00Z",
        &http(
            &["Content-Type: text/html; charset=utf-8"],
            page("Bridge", s1).as_bytes(),
        ),
    ));
    expected.push(Expected {
        record: 2,
        uri: "https://news.example/bridge",
        date: "2024-05-01T10:00:00Z",
        sentence: s1,
    });

    records.push(record(
        &[
            ("WARC-Type", "request"),
            ("WARC-Target-URI", "https://news.example/logo.png"),
        ],
        b"GET /logo.png HTTP/1.1\r\nHost: news.example\r\n\r\n",
    ));
    records.push(response(
        "https://news.example/logo.png",
        "2024-05-01T10:00:01Z",
        &http(
            &["Content-Type: image/png"],
            b"\x89PNG\r\n\x1a\n<html>not a page</html>",
        ),
    ));
    records.push(response(
        "https://news.example/api",
        "2024-05-01T10:00:02Z",
        &http(
            &["Content-Type: application/json"],
            br#"{"html": "<html><p>no</p></html>"}"#,
        ),
    ));

    let s2 = "Volunteers planted three hundred trees along the old railway line.";
    let gz = gzip(page("Trees", s2).as_bytes());
    let mut chunked = Vec::new();
    for part in gz.chunks(100) {
        chunked.extend(format!("{:x}\r\n", part.len()).as_bytes());
        chunked.extend(part);
        chunked.extend(b"\r\n");
    }
    chunked.extend(b"0\r\n\r\n");
    records.push(response(
        "https://news.example/trees",
        "2024-05-01T10:00:03Z",
        &http(
            &[
                "Content-Type: text/html",
                "Transfer-Encoding: chunked",
                "Content-Encoding: gzip",
            ],
            &chunked,
        ),
    ));
    expected.push(Expected {
        record: 6,
        uri: "https://news.example/trees",
        date: "2024-05-01T10:00:03Z",
        sentence: s2,
    });

    let s3 = "The café on the market square will reopen in June.";
    let cafe = page("Café", s3);
    let (latin1, _, _) = encoding_rs::WINDOWS_1252.encode(&cafe);
    records.push(response(
        "https://news.example/cafe",
        "2024-05-01T10:00:04Z",
        &http(&["Content-Type: text/html; charset=ISO-8859-1"], &latin1),
    ));
    expected.push(Expected {
        record: 7,
        uri: "https://news.example/cafe",
        date: "2024-05-01T10:00:04Z",
        sentence: s3,
    });

    let s4 = "A local choir won the regional singing competition on Saturday.";
    records.push(response(
        "https://news.example/choir",
        "2024-05-01T10:00:05Z",
        &http(
            &[],
            format!("<!DOCTYPE html>{}", page("Choir", s4)).as_bytes(),
        ),
    ));
    expected.push(Expected {
        record: 8,
        uri: "https://news.example/choir",
        date: "2024-05-01T10:00:05Z",
        sentence: s4,
    });
    (records, expected)
}

/// Checks `extract --format jsonl` lines against the expected pages of `file`.
fn check_pages(lines: &[serde_json::Value], file: &Path, expected: &[Expected]) {
    assert_eq!(lines.len(), expected.len(), "{lines:#?}");
    for (line, want) in lines.iter().zip(expected) {
        assert_eq!(line["path"], format!("{}#{}", file.display(), want.record));
        assert_eq!(line["url"], want.uri);
        assert_eq!(line["warc_date"], want.date);
        assert!(line["warc_record_id"].is_string(), "{line}");
        let text = line["text"]
            .as_str()
            .unwrap_or_else(|| panic!("no text: {line}"));
        assert!(
            text.contains(want.sentence),
            "{} lacks {:?}:\n{text}",
            want.uri,
            want.sentence
        );
        assert!(!text.contains("Contact the newsroom"), "{text}");
    }
}

#[test]
fn warc_gz_with_one_gzip_member_per_record() {
    let dir = tempfile::tempdir().unwrap();
    let (records, expected) = crawl();
    let file = dir.path().join("crawl.warc.gz");
    let bytes: Vec<u8> = records.iter().flat_map(|r| gzip(r)).collect();
    std::fs::write(&file, bytes).unwrap();
    let o = run(&["extract", "--format", "jsonl", file.to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    check_pages(&lines(&o), &file, &expected);
}

#[test]
fn warc_gz_as_one_gzip_member_and_plain_warc() {
    let dir = tempfile::tempdir().unwrap();
    let (records, expected) = crawl();
    let plain: Vec<u8> = records.concat();
    let gz = dir.path().join("whole.warc.gz");
    std::fs::write(&gz, gzip(&plain)).unwrap();
    let warc = dir.path().join("plain.warc");
    std::fs::write(&warc, &plain).unwrap();
    let o = run(&[
        "extract",
        "--format",
        "jsonl",
        gz.to_str().unwrap(),
        warc.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let got = lines(&o);
    let n = expected.len();
    check_pages(&got[..n], &gz, &expected);
    check_pages(&got[n..], &warc, &expected);

    // The text format prints the pages too.
    let o = run(&["extract", warc.to_str().unwrap()]);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).contains(expected[1].sentence));
}

#[test]
fn truncated_and_corrupt_warcs_report_errors_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let (records, expected) = crawl();
    // Cut inside the gzip member of the chunked page (record 6).
    let members: Vec<Vec<u8>> = records.iter().map(|r| gzip(r)).collect();
    let mut cut: Vec<u8> = members[..5].concat();
    cut.extend(&members[5][..members[5].len() / 2]);
    let truncated = dir.path().join("truncated.warc.gz");
    std::fs::write(&truncated, cut).unwrap();
    // A record whose Content-Length is wrong, then good records.
    let mut corrupt = String::from_utf8(records[1].clone()).unwrap();
    let at = corrupt.find("Content-Length: ").unwrap() + 16;
    let digits = corrupt[at..].find('\r').unwrap();
    corrupt.replace_range(at..at + digits, "100");
    let mut corrupt = corrupt.into_bytes();
    corrupt.extend(records[5..].concat());
    let corrupt_file = dir.path().join("corrupt.warc");
    std::fs::write(&corrupt_file, corrupt).unwrap();
    let junk = dir.path().join("junk.warc");
    std::fs::write(&junk, b"\x00\x01 this is not a WARC file at all\n\xff\xfe").unwrap();
    let good = dir.path().join("good.html");
    std::fs::write(
        &good,
        page("Good", "The library extended its opening hours."),
    )
    .unwrap();

    let o = run(&[
        "extract",
        "--format",
        "jsonl",
        truncated.to_str().unwrap(),
        corrupt_file.to_str().unwrap(),
        junk.to_str().unwrap(),
        good.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let got = lines(&o);
    let paths: Vec<&str> = got.iter().map(|l| l["path"].as_str().unwrap()).collect();
    let t = truncated.display().to_string();
    let c = corrupt_file.display().to_string();
    let j = junk.display().to_string();
    assert_eq!(
        paths,
        [
            format!("{t}#2"),
            format!("{t}#6"),
            format!("{c}#1"),
            format!("{c}#2"),
            format!("{c}#3"),
            format!("{c}#4"),
            format!("{j}#1"),
            good.display().to_string(),
        ],
        "{got:#?}"
    );
    assert!(got[0]["text"]
        .as_str()
        .unwrap()
        .contains(expected[0].sentence));
    assert!(
        got[1]["error"].as_str().unwrap().contains("truncated"),
        "{}",
        got[1]
    );
    assert!(got[2]["error"].is_string(), "{}", got[2]);
    // Found again after the damage: the chunked, Latin-1 and sniffed pages.
    for (line, want) in got[3..6].iter().zip(&expected[1..]) {
        assert_eq!(line["url"], want.uri);
        assert!(line["text"].as_str().unwrap().contains(want.sentence));
    }
    assert!(got[6]["error"]
        .as_str()
        .unwrap()
        .contains("not a WARC record"));
    assert!(got[7]["text"].as_str().unwrap().contains("opening hours"));
    assert!(String::from_utf8_lossy(&o.stderr).contains("3 of 8 pages failed"));
}

/// A folder of pages of every kind for the glob tests.
fn folder(dir: &Path) {
    let (records, _) = crawl();
    std::fs::create_dir_all(dir.join("sub/deeper")).unwrap();
    std::fs::create_dir_all(dir.join("skip")).unwrap();
    let html = |name: &str| {
        page(
            name,
            "The museum shows a new exhibition of local paintings.",
        )
    };
    std::fs::write(dir.join("a.html"), html("a")).unwrap();
    std::fs::write(dir.join("b.htm"), html("b")).unwrap();
    std::fs::write(dir.join("c.html.gz"), gzip(html("c").as_bytes())).unwrap();
    std::fs::write(dir.join("e.php"), html("e")).unwrap();
    std::fs::write(dir.join("notes.txt"), "not a page").unwrap();
    std::fs::write(dir.join("sub/d.html"), html("d")).unwrap();
    std::fs::write(dir.join("sub/deeper/f.html"), html("f")).unwrap();
    std::fs::write(dir.join("skip/g.html"), html("g")).unwrap();
    std::fs::write(dir.join("sub/crawl.warc.gz"), gzip(&records.concat())).unwrap();
}

/// The `path`s of a run's lines, relative to `dir`.
fn relative_paths(o: &Output, dir: &Path) -> Vec<String> {
    lines(o)
        .iter()
        .map(|l| {
            let p = l["path"].as_str().unwrap();
            p.strip_prefix(&format!("{}/", dir.display()))
                .unwrap_or(p)
                .to_string()
        })
        .collect()
}

#[test]
fn folders_with_include_and_exclude_globs() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    folder(dir);
    let d = dir.to_str().unwrap();
    let o = run(&["extract", "--format", "jsonl", d]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        relative_paths(&o, dir),
        [
            "a.html",
            "b.htm",
            "c.html.gz",
            "skip/g.html",
            "sub/crawl.warc.gz#2",
            "sub/crawl.warc.gz#6",
            "sub/crawl.warc.gz#7",
            "sub/crawl.warc.gz#8",
            "sub/d.html",
            "sub/deeper/f.html",
        ]
    );
    for l in lines(&o) {
        assert!(l["text"].as_str().is_some_and(|t| !t.is_empty()), "{l}");
    }

    let o = run(&[
        "extract",
        "--format",
        "jsonl",
        "--exclude",
        "skip",
        "--exclude",
        "*.warc.gz",
        "--exclude",
        "sub/deeper",
        d,
    ]);
    assert_eq!(
        relative_paths(&o, dir),
        ["a.html", "b.htm", "c.html.gz", "sub/d.html"]
    );

    let o = run(&[
        "extract",
        "--format",
        "jsonl",
        "--include",
        "*.php",
        "--include",
        "sub/*.html",
        d,
    ]);
    assert_eq!(relative_paths(&o, dir), ["e.php", "sub/d.html"]);

    let o = run(&[
        "extract",
        "--format",
        "jsonl",
        "--include",
        "**/*.html",
        "--exclude",
        "d.*",
        d,
    ]);
    assert_eq!(
        relative_paths(&o, dir),
        ["a.html", "skip/g.html", "sub/deeper/f.html"]
    );

    // A file named on the command line is taken whatever the globs.
    let e = dir.join("e.php");
    let o = run(&[
        "extract",
        "--format",
        "jsonl",
        "--exclude",
        "*.php",
        e.to_str().unwrap(),
    ]);
    assert_eq!(relative_paths(&o, dir), ["e.php"]);

    let o = run(&["extract", "--include", "[", d]);
    assert_eq!(o.status.code(), Some(2), "a bad glob is a usage error");
}

#[test]
fn order_any_gives_the_same_lines_as_input_order() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    folder(dir);
    for i in 0..40 {
        let name = format!("many/p{i:02}.html");
        std::fs::create_dir_all(dir.join("many")).unwrap();
        std::fs::write(
            dir.join(name),
            page(&format!("Page {i}"), &format!("Story number {i} is here.")),
        )
        .unwrap();
    }
    let d = dir.to_str().unwrap();
    let ordered = run(&["extract", "--format", "jsonl", "--threads", "2", d]);
    let any = run(&[
        "extract",
        "--format",
        "jsonl",
        "--threads",
        "2",
        "--order",
        "any",
        d,
    ]);
    assert!(ordered.status.success() && any.status.success());
    let mut a: Vec<String> = String::from_utf8_lossy(&ordered.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    let mut b: Vec<String> = String::from_utf8_lossy(&any.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(a.len(), 50);
    a.sort();
    b.sort();
    assert_eq!(a, b);
}

#[test]
fn gzipped_html_files_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let sentence = "The ferry timetable changes at the end of the month.";
    let file = dir.path().join("page.html.gz");
    std::fs::write(&file, gzip(page("Ferry", sentence).as_bytes())).unwrap();
    let o = run(&["extract", file.to_str().unwrap()]);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).contains(sentence));
}
