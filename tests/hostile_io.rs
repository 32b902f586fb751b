//! Hostile inputs and interruptions in `extract`: damaged gzip (pages and
//! WARC members), records that run past their member, pages over the byte
//! limit, FIFOs and devices among the inputs, and Ctrl-C with `-o`. Every
//! input must give its line and no run may hang or lose a finished file.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::gzip;

use common::run;

/// The JSON lines of a run's output.
fn lines(o: &Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A page with enough prose to be extracted.
fn page(title: &str) -> String {
    format!(
        "<html><head><title>{title}</title></head><body><nav><a href=/>Home</a></nav>\
         <article><h1>{title}</h1><p>{title}: the harbour authority said on Monday that the \
         old pier will be rebuilt over the next three years, after engineers found that the \
         timber piles had rotted well below the waterline.</p><p>Fishing crews who use the \
         pier every morning welcomed the decision but asked for one berth to stay open.</p>\
         </article></body></html>"
    )
}

/// One response record for `page(title)`, uncompressed.
fn response(n: usize, block: &[u8]) -> Vec<u8> {
    common::warc_record(
        &[
            ("WARC-Type", "response"),
            ("WARC-Target-URI", &format!("https://example.org/{n}")),
            ("Content-Type", "application/http; msgtype=response"),
        ],
        block,
    )
}

fn http(title: &str) -> Vec<u8> {
    let mut v = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n".to_vec();
    v.extend(page(title).as_bytes());
    v
}

/// Five records, each gzipped as its own member.
fn five_members() -> Vec<Vec<u8>> {
    (1..=5)
        .map(|n| gzip(&response(n, &http(&format!("Story {n}")))))
        .collect()
}

/// Checks a run over a 5-record WARC with record 3 lost: 4 pages and one
/// error line for record 3, exit 1.
fn check_record_3_lost(file: &Path) {
    let o = run(&["extract", "--format", "jsonl", file.to_str().unwrap()]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let got = lines(&o);
    assert_eq!(got.len(), 5, "{got:#?}");
    for (i, line) in got.iter().enumerate() {
        let path = line["path"].as_str().unwrap();
        assert!(path.ends_with(&format!("#{}", i + 1)), "{line}");
        if i == 2 {
            assert!(line["error"].as_str().unwrap().contains("byte"), "{line}");
        } else {
            let want = format!("Story {}", i + 1);
            assert!(line["text"].as_str().unwrap().contains(&want), "{line}");
        }
    }
}

#[test]
fn a_damaged_warc_member_costs_only_its_record() {
    let dir = tempfile::tempdir().unwrap();
    let mut members = five_members();
    let mid = members[2].len() / 2;
    for b in &mut members[2][mid..mid + 4] {
        *b ^= 0xa5;
    }
    let file = dir.path().join("damaged.warc.gz");
    std::fs::write(&file, members.concat()).unwrap();
    check_record_3_lost(&file);
}

#[test]
fn a_record_running_past_the_file_costs_only_that_record() {
    let dir = tempfile::tempdir().unwrap();
    let mut members = five_members();
    let mut long = response(3, &http("Story 3"));
    let text = String::from_utf8_lossy(&long).into_owned();
    let at = text.find("Content-Length: ").unwrap() + 16;
    let digits = text[at..].find('\r').unwrap();
    long.splice(at..at + digits, b"99999999".iter().copied());
    members[2] = gzip(&long);
    let file = dir.path().join("overlong.warc.gz");
    std::fs::write(&file, members.concat()).unwrap();
    check_record_3_lost(&file);
}

#[test]
fn damaged_gzip_pages_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let gz = gzip(page("Gzipped").as_bytes());
    let good = dir.path().join("a.html.gz");
    std::fs::write(&good, &gz).unwrap();
    let mut flipped = gz.clone();
    flipped[gz.len() / 2] ^= 0x01;
    let flipped_file = dir.path().join("b.html.gz");
    std::fs::write(&flipped_file, &flipped).unwrap();
    let half = dir.path().join("c.html.gz");
    std::fs::write(&half, &gz[..gz.len() / 2]).unwrap();
    let o = run(&["extract", "--format", "jsonl", dir.path().to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let got = lines(&o);
    assert_eq!(got.len(), 3, "{got:#?}");
    assert!(got[0]["text"].as_str().unwrap().contains("harbour"));
    for line in &got[1..] {
        let e = line["error"].as_str().unwrap();
        assert!(e.contains("corrupt gzip"), "{line}");
    }
    // One damaged page alone: exit 1 too.
    let o = run(&["extract", flipped_file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn a_page_cut_at_max_bytes_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let mut big = page("Big").into_bytes();
    big.truncate(big.len() - "</article></body></html>".len());
    while big.len() < 1 << 20 {
        big.extend(b"<p>More words about the pier and the harbour.</p>\n");
    }
    let big_file = dir.path().join("big.html");
    std::fs::write(&big_file, &big).unwrap();
    let small_file = dir.path().join("small.html");
    std::fs::write(&small_file, page("Small")).unwrap();
    let gz_file = dir.path().join("big.html.gz");
    std::fs::write(&gz_file, gzip(&big)).unwrap();
    let args = |format| {
        vec![
            "extract",
            "--format",
            format,
            "--max-bytes",
            "1000",
            big_file.to_str().unwrap(),
            small_file.to_str().unwrap(),
            gz_file.to_str().unwrap(),
        ]
    };
    let o = run(&args("jsonl"));
    assert_eq!(o.status.code(), Some(0));
    let got = lines(&o);
    assert_eq!(got[0]["truncated"], true, "{}", got[0]);
    assert!(got[1].get("truncated").is_none(), "{}", got[1]);
    assert_eq!(got[2]["truncated"], true, "{}", got[2]);
    let o = run(&args("json"));
    // Several pages in `json`: one array.
    let objects: Vec<serde_json::Value> = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(objects[0]["truncated"], true);
    assert_eq!(objects[1]["truncated"], false);
    // Standard input is cut the same way.
    let mut child = Command::new(common::bin())
        .args(["extract", "--format", "jsonl", "--max-bytes", "1000", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // The page is read no further than the limit: the write may fail
    // once the reader is gone.
    let _ = stdin.write_all(&big);
    drop(stdin);
    let o = child.wait_with_output().unwrap();
    assert_eq!(lines(&o)[0]["truncated"], true);
}

/// Runs with a deadline: a hang fails the test instead of stalling it.
fn run_within(args: &[&str], limit: Duration) -> Output {
    let mut child = Command::new(common::bin())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("the run hangs");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

#[test]
fn fifos_and_devices_are_refused_without_hanging() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.html"), page("First")).unwrap();
    mkfifo(&dir.path().join("b.html"));
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("c.html")).unwrap();
    mkfifo(&dir.path().join("d.warc.gz"));
    std::fs::write(dir.path().join("e.html"), page("Last")).unwrap();
    let o = run_within(
        &["extract", "--format", "jsonl", dir.path().to_str().unwrap()],
        Duration::from_secs(20),
    );
    assert_eq!(o.status.code(), Some(1));
    let got = lines(&o);
    assert_eq!(got.len(), 5, "{got:#?}");
    assert!(got[0]["text"].as_str().unwrap().contains("First"));
    assert!(got[4]["text"].as_str().unwrap().contains("Last"));
    for (line, what) in got[1..4].iter().zip(["FIFO", "character device", "FIFO"]) {
        let e = line["error"].as_str().unwrap();
        assert!(
            e.contains("not a regular file") && e.contains(what),
            "{line}"
        );
    }
    // Named directly: refused the same way.
    let fifo = dir.path().join("b.html");
    let o = run_within(
        &["extract", fifo.to_str().unwrap()],
        Duration::from_secs(20),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a regular file"));
}

#[test]
fn sigint_keeps_the_previous_output_file() {
    // One thread reads a list on standard input through the producer
    // thread too: a run waiting for the next name must still stop.
    for threads in ["1", "2"] {
        sigint_with_an_open_list(threads);
    }
}

/// `extract --threads THREADS --files-from - -o FILE` interrupted while
/// its list is still open.
fn sigint_with_an_open_list(threads: &str) {
    let dir = tempfile::tempdir().unwrap();
    let page_file = dir.path().join("p.html");
    std::fs::write(&page_file, page("Kept")).unwrap();
    let out = dir.path().join("out.jsonl");
    let o = run(&[
        "extract",
        "--format",
        "jsonl",
        "-o",
        out.to_str().unwrap(),
        page_file.to_str().unwrap(),
        page_file.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    let before = std::fs::read(&out).unwrap();
    assert_eq!(before.iter().filter(|b| **b == b'\n').count(), 2);

    let mut child = Command::new(common::bin())
        .args(["extract", "--threads", threads, "--format", "jsonl"])
        .args(["--files-from", "-", "-o"])
        .arg(&out)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut list = child.stdin.take().unwrap();
    for _ in 0..3 {
        writeln!(list, "{}", page_file.display()).unwrap();
    }
    list.flush().unwrap();
    // The list stays open: the run waits for more names.
    common::wait_for_pending_file(dir.path());
    common::interrupt(&mut child);
    let o = child.wait_with_output().unwrap();
    drop(list);
    assert_eq!(
        o.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(
        std::fs::read(&out).unwrap(),
        before,
        "the old file is untouched"
    );
    let partial = dir.path().join("out.jsonl.partial");
    let kept = std::fs::read_to_string(&partial).unwrap();
    for line in kept.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(v["text"].as_str().unwrap().contains("Kept"));
    }
    let mut names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["out.jsonl", "out.jsonl.partial", "p.html"]);
}
