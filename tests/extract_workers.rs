//! `extract` with two workers over inputs that cannot block (a list in a
//! regular file): each worker takes its own next input and writes what is
//! ready under a lock. The output must be the one worker's, byte for byte,
//! in input order past the window of pages in flight; Ctrl-C and a closed
//! standard output must end the run with whole lines.

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::run;

/// `extract` in JSON Lines over a list, which the list's path follows.
const JSONL_LIST: [&str; 4] = ["extract", "--format", "jsonl", "--files-from"];

/// A small page whose text names `n`.
fn page(n: usize) -> String {
    format!(
        "<html><head><title>Page {n}</title></head><body><nav><a href=/>Home</a></nav>\
         <article><h1>Report number {n}</h1><p>The council met on Tuesday to discuss \
         report {n}, which covers the new bridge, the school budget and the repairs to \
         the harbour wall that were promised last winter.</p><p>Members asked for a \
         second reading of report {n} before the vote next month.</p></article></body></html>"
    )
}

/// Writes `count` pages (sizes varied, so that they finish out of order)
/// and a list naming them; returns the list.
fn pages_and_list(dir: &Path, count: usize) -> PathBuf {
    let mut list = String::new();
    for n in 0..count {
        let path = dir.join(format!("p{n}.html"));
        let mut html = page(n);
        if n % 7 == 0 {
            // Every seventh page is much longer (slower).
            let filler = "<p>More of the same report, line after line.</p>".repeat(200);
            html = html.replace("</article>", &format!("{filler}</article>"));
        }
        std::fs::write(&path, html).unwrap();
        list.push_str(&format!("{}\n", path.display()));
    }
    let list_path = dir.join("list.txt");
    std::fs::write(&list_path, list).unwrap();
    list_path
}

#[test]
fn two_workers_write_what_one_writes_in_input_order() {
    let dir = tempfile::tempdir().unwrap();
    // More pages than the window of pages in flight (256).
    let list = pages_and_list(dir.path(), 600);
    let list = list.to_str().unwrap();
    let extract = |args: &[&str]| run(&[&JSONL_LIST[..], &[list], args].concat());
    let one = extract(&["--threads", "1"]);
    let two = extract(&["--threads", "2"]);
    assert!(one.status.success() && two.status.success());
    assert_eq!(one.stdout, two.stdout, "two workers differ from one");
    let paths: Vec<String> = String::from_utf8(two.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["path"].to_string())
        .collect();
    assert_eq!(paths.len(), 600);
    for (n, path) in paths.iter().enumerate() {
        assert!(path.ends_with(&format!("/p{n}.html\"")), "{n}: {path}");
    }
    // Any order: the same lines, each once.
    let any = extract(&["--threads", "2", "--order", "any"]);
    assert!(any.status.success());
    let sorted = |bytes: &[u8]| {
        let mut v: Vec<String> = String::from_utf8_lossy(bytes)
            .lines()
            .map(String::from)
            .collect();
        v.sort();
        v
    };
    assert_eq!(sorted(&any.stdout), sorted(&one.stdout));
}

/// A list naming one page `count` times.
fn long_list(dir: &Path, count: usize) -> PathBuf {
    let page_file = dir.join("p.html");
    std::fs::write(&page_file, page(1)).unwrap();
    let list = dir.join("list.txt");
    std::fs::write(&list, format!("{}\n", page_file.display()).repeat(count)).unwrap();
    list
}

/// `extract --format jsonl --files-from LIST --threads 2` with `args`
/// after, its standard output piped.
fn two_workers(list: &Path, args: &[&std::ffi::OsStr]) -> std::process::Child {
    Command::new(common::bin())
        .args(JSONL_LIST)
        .arg(list)
        .args(["--threads", "2"])
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn sigint_stops_two_workers_with_whole_lines() {
    let dir = tempfile::tempdir().unwrap();
    let list = long_list(dir.path(), 200_000);
    let out = dir.path().join("out.jsonl");
    let mut child = two_workers(&list, &["-o".as_ref(), out.as_os_str()]);
    common::wait_for_pending_file(dir.path());
    common::interrupt(&mut child);
    let o = child.wait_with_output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!out.exists(), "no output file before the run ends");
    let partial = std::fs::read_to_string(dir.path().join("out.jsonl.partial")).unwrap();
    assert!(partial.ends_with('\n'));
    let lines = partial.lines().count();
    assert!(lines > 0 && lines < 200_000, "{lines} lines");
    for line in partial.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(v["text"].as_str().unwrap().contains("Report number 1"));
    }
}

#[test]
fn a_closed_stdout_ends_two_workers() {
    let dir = tempfile::tempdir().unwrap();
    let list = long_list(dir.path(), 200_000);
    let mut child = two_workers(&list, &[]);
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.contains("Report number 1"));
    // The reader is dropped here: the next write fails.
    common::wait_exit(&mut child, "stdout closed");
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "{err}");
}
