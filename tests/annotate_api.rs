//! The HTTP API of `dechrome annotate`: the token, size limits, saving the
//! WCXB layout, resuming, and training on what was saved.

mod common;
#[path = "annotate/server.rs"]
mod server;

use std::io::{Read, Write};
use std::path::PathBuf;

use serde_json::{json, Value};
use server::{agent, Server};

fn pages() -> Vec<PathBuf> {
    ["github-blog.html", "python-blog.html", "docs-page.html"]
        .iter()
        .map(|n| common::root().join("tests/fixtures").join(n))
        .collect()
}

fn get(s: &Server, path: &str, token: Option<&str>) -> (u16, String) {
    let mut req = agent().get(format!("{}{path}", s.base));
    if let Some(t) = token {
        req = req.header("X-Token", t);
    }
    let mut r = req.call().expect("GET");
    let status = r.status().as_u16();
    (status, r.body_mut().read_to_string().unwrap_or_default())
}

fn post(s: &Server, path: &str, token: Option<&str>, body: &[u8]) -> (u16, String) {
    let mut req = agent()
        .post(format!("{}{path}", s.base))
        .header("Content-Type", "application/json");
    if let Some(t) = token {
        req = req.header("X-Token", t);
    }
    let mut r = req.send(body).expect("POST");
    let status = r.status().as_u16();
    (status, r.body_mut().read_to_string().unwrap_or_default())
}

fn page(s: &Server, i: usize) -> Value {
    let (status, body) = get(s, &format!("/api/page/{i}"), Some(&s.token));
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).unwrap()
}

#[test]
fn token_is_required_and_bad_requests_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let pages = pages();
    let refs: Vec<_> = pages.iter().map(|p| p.as_path()).collect();
    let s = Server::start(common::bin(), &refs, &dir.path().join("corpus"));

    assert_eq!(get(&s, "/", None).0, 403);
    assert_eq!(get(&s, "/api/pages", None).0, 403);
    assert_eq!(get(&s, "/api/page/0", Some("0123")).0, 403);
    assert_eq!(post(&s, "/api/page/0", None, b"{}").0, 403);
    let (status, html) = get(&s, &format!("/?token={}", s.token), None);
    assert_eq!(status, 200);
    assert!(html.contains("<script>") && !html.contains("{{SCRIPT}}"));
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "no external asset"
    );

    // Pages are addressed by index only.
    assert_eq!(get(&s, "/api/page/3", Some(&s.token)).0, 404);
    assert_eq!(get(&s, "/api/page/..%2Fetc", Some(&s.token)).0, 404);
    assert_eq!(get(&s, "/etc/passwd", Some(&s.token)).0, 404);
    assert_eq!(post(&s, "/api/page/0", Some(&s.token), b"not json").0, 400);
    let wrong = json!({"labels": [true], "page_type": "article"}).to_string();
    assert_eq!(
        post(&s, "/api/page/0", Some(&s.token), wrong.as_bytes()).0,
        400
    );
    let n = page(&s, 0)["blocks"].as_array().unwrap().len();
    let bad_type = json!({"labels": vec![true; n], "page_type": "../x"}).to_string();
    assert_eq!(
        post(&s, "/api/page/0", Some(&s.token), bad_type.as_bytes()).0,
        400
    );

    // A declared body over the limit is refused before it is read.
    let addr = s.base.trim_start_matches("http://");
    let mut tcp = std::net::TcpStream::connect(addr).unwrap();
    write!(
        tcp,
        "POST /api/page/0 HTTP/1.1\r\nHost: {addr}\r\nX-Token: {}\r\nContent-Type: application/json\r\nContent-Length: 5000000\r\nConnection: close\r\n\r\n",
        s.token
    )
    .unwrap();
    let mut reply = String::new();
    let _ = tcp.read_to_string(&mut reply);
    assert!(reply.starts_with("HTTP/1.1 413"), "{reply}");

    // A body over the limit sent in chunks is refused too.
    let big = vec![b' '; 2 << 20];
    assert_eq!(post(&s, "/api/page/0", Some(&s.token), &big).0, 413);
    // Nothing was written by the refused requests.
    assert!(std::fs::read_dir(dir.path().join("corpus/ground-truth"))
        .unwrap()
        .next()
        .is_none());
}

#[test]
fn saves_resumes_and_trains() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    let pages = pages();
    let refs: Vec<_> = pages.iter().map(|p| p.as_path()).collect();
    let mut saved_labels = Vec::new();
    {
        let s = Server::start(common::bin(), &refs, &corpus);
        let list: Value = serde_json::from_str(&get(&s, "/api/pages", Some(&s.token)).1).unwrap();
        assert_eq!(list["total"], 3);
        assert_eq!(list["labelled"], 0);
        for i in 0..3 {
            let p = page(&s, i);
            let blocks = p["blocks"].as_array().unwrap();
            assert!(!blocks.is_empty());
            assert!(blocks[0]["tags"].as_str().unwrap().starts_with("html"));
            // Start from the model's labels and flip the first block.
            let mut labels: Vec<bool> = p["labels"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_bool().unwrap())
                .collect();
            labels[0] = !labels[0];
            let kind = ["article", "documentation", "forum"][i];
            let body = json!({"labels": labels, "page_type": kind}).to_string();
            let (status, reply) = post(
                &s,
                &format!("/api/page/{i}"),
                Some(&s.token),
                body.as_bytes(),
            );
            assert_eq!(status, 200, "{reply}");
            let reply: Value = serde_json::from_str(&reply).unwrap();
            assert_eq!(reply["labelled"], i + 1);
            saved_labels.push((labels, blocks.clone(), kind));
        }
    }
    // The WCXB layout, with the labels and the original bytes.
    for (i, (labels, blocks, kind)) in saved_labels.iter().enumerate() {
        let id = format!("{:04}", i + 1);
        let gt: Value = serde_json::from_slice(
            &std::fs::read(corpus.join(format!("ground-truth/{id}.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(gt["_internal"]["page_type"]["primary"], *kind);
        let stored: Vec<bool> = gt["_internal"]["block_labels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v == 1)
            .collect();
        assert_eq!(&stored, labels);
        let expected: Vec<&str> = blocks
            .iter()
            .zip(labels)
            .filter(|(b, &l)| l && !b["text"].as_str().unwrap().trim().is_empty())
            .map(|(b, _)| b["text"].as_str().unwrap())
            .collect();
        assert_eq!(gt["ground_truth"]["main_content"], expected.join("\n\n"));
        let mut html = Vec::new();
        flate2::read::GzDecoder::new(
            std::fs::File::open(corpus.join(format!("html/{id}.html.gz"))).unwrap(),
        )
        .read_to_end(&mut html)
        .unwrap();
        assert_eq!(html, std::fs::read(&pages[i]).unwrap());
    }
    let meta: Value =
        serde_json::from_slice(&std::fs::read(corpus.join("metadata.json")).unwrap()).unwrap();
    assert_eq!(meta["files"].as_object().unwrap().len(), 3);
    assert_eq!(meta["files"]["0002"]["page_type"], "documentation");

    // Re-opening resumes: the saved labels come back, in a new order too.
    {
        let reordered = [refs[2], refs[0], refs[1]];
        let s = Server::start(common::bin(), &reordered, &corpus);
        let list: Value = serde_json::from_str(&get(&s, "/api/pages", Some(&s.token)).1).unwrap();
        assert_eq!(list["labelled"], 3);
        let p = page(&s, 1);
        assert_eq!(p["id"], "0001");
        assert_eq!(p["labelled"], true);
        let labels: Vec<bool> = p["labels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_bool().unwrap())
            .collect();
        assert_eq!(labels, saved_labels[0].0);
        assert_eq!(page(&s, 0)["page_type"], "forum");
    }

    // train --corpus reads what was saved.
    let read = dechrome::corpus::read_wcxb(&corpus).unwrap();
    assert_eq!(read.len(), 3);
    let cfg = dir.path().join("cfg.json");
    std::fs::write(&cfg, serde_json::to_vec(&common::small_config()).unwrap()).unwrap();
    let model = dir.path().join("my.model");
    let o = std::process::Command::new(common::bin())
        .args(["train", "--corpus"])
        .arg(&corpus)
        .arg("--out")
        .arg(&model)
        .arg("--config")
        .arg(&cfg)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(dechrome::Model::load(&model).is_ok());
}

#[test]
fn two_writers_at_once_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    let pages = pages();
    let refs: Vec<_> = pages.iter().map(|p| p.as_path()).collect();
    let s = Server::start(common::bin(), &refs, &corpus);
    let bodies: Vec<String> = (0..3)
        .map(|i| {
            let n = page(&s, i)["blocks"].as_array().unwrap().len();
            json!({"labels": vec![true; n], "page_type": "article"}).to_string()
        })
        .collect();
    std::thread::scope(|scope| {
        for (i, body) in bodies.iter().enumerate() {
            for _ in 0..2 {
                let s = &s;
                scope.spawn(move || {
                    let (status, reply) = post(
                        s,
                        &format!("/api/page/{i}"),
                        Some(&s.token),
                        body.as_bytes(),
                    );
                    assert_eq!(status, 200, "{reply}");
                });
            }
        }
    });
    let meta: Value =
        serde_json::from_slice(&std::fs::read(corpus.join("metadata.json")).unwrap()).unwrap();
    assert_eq!(meta["files"].as_object().unwrap().len(), 3);
    assert_eq!(
        std::fs::read_dir(corpus.join("ground-truth"))
            .unwrap()
            .count(),
        3
    );
    assert_eq!(std::fs::read_dir(corpus.join("html")).unwrap().count(), 3);
}
