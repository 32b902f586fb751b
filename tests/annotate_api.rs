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

/// Saves page `i`'s labels (a JSON body) with the server's token, asserts
/// the save succeeded and returns the server's reply.
fn save(s: &Server, i: usize, body: &str) -> Value {
    let (status, reply) = post(
        s,
        &format!("/api/page/{i}"),
        Some(&s.token),
        body.as_bytes(),
    );
    assert_eq!(status, 200, "{reply}");
    serde_json::from_str(&reply).unwrap()
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
            assert_eq!(save(&s, i, &body)["labelled"], i + 1);
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
                scope.spawn(move || save(s, i, body));
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

/// Sends `request` as it is on a new connection; the reply as text.
fn raw(s: &Server, request: &str) -> String {
    let addr = s.base.trim_start_matches("http://");
    let mut tcp = std::net::TcpStream::connect(addr).unwrap();
    tcp.set_read_timeout(Some(std::time::Duration::from_secs(20)))
        .unwrap();
    tcp.write_all(request.as_bytes()).unwrap();
    let mut reply = String::new();
    let _ = tcp.read_to_string(&mut reply);
    reply
}

fn status_of(reply: &str) -> u16 {
    reply
        .strip_prefix("HTTP/1.1 ")
        .and_then(|r| r.get(..3))
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP reply: {reply:?}"))
}

#[test]
fn foreign_host_or_origin_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let pages = pages();
    let refs: Vec<_> = pages.iter().map(|p| p.as_path()).collect();
    let s = Server::start(common::bin(), &refs, &dir.path().join("corpus"));
    let addr = s.base.trim_start_matches("http://");
    let port: u16 = addr.rsplit(':').next().unwrap().parse().unwrap();
    let t = &s.token;
    let get = |host: &str, extra: &str| {
        status_of(&raw(
            &s,
            &format!("GET /api/pages HTTP/1.1\r\nHost: {host}\r\nX-Token: {t}\r\n{extra}Connection: close\r\n\r\n"),
        ))
    };
    assert_eq!(get(addr, ""), 200);
    assert_eq!(get(&format!("localhost:{port}"), ""), 200);
    // DNS rebinding: another name resolving to 127.0.0.1, same port.
    assert_eq!(get(&format!("attacker.example:{port}"), ""), 403);
    assert_eq!(get("attacker.example", ""), 403);
    assert_eq!(get(&format!("127.0.0.1:{}", port.wrapping_add(1)), ""), 403);
    assert_eq!(get(&format!("127.0.0.2:{port}"), ""), 403);
    // No Host, or two.
    let no_host = format!("GET /api/pages HTTP/1.1\r\nX-Token: {t}\r\n\r\n");
    assert_eq!(status_of(&raw(&s, &no_host)), 403);
    assert_eq!(
        get(addr, &format!("Host: attacker.example:{port}\r\n")),
        403
    );
    // The page itself is not served to a rebound name either.
    let page = raw(
        &s,
        &format!("GET /?token={t} HTTP/1.1\r\nHost: attacker.example:{port}\r\n\r\n"),
    );
    assert_eq!(status_of(&page), 403);
    assert!(!page.contains("<script>"));

    // Origin, when sent, must be the server's own.
    assert_eq!(get(addr, &format!("Origin: http://{addr}\r\n")), 200);
    assert_eq!(get(addr, "Origin: http://attacker.example\r\n"), 403);
    assert_eq!(
        get(addr, &format!("Origin: http://attacker.example:{port}\r\n")),
        403
    );
    assert_eq!(get(addr, "Origin: null\r\n"), 403);
    let n = page_blocks(&s, 0);
    let body = json!({"labels": vec![true; n], "page_type": "article"}).to_string();
    let post = format!(
        "POST /api/page/0 HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://attacker.example\r\nX-Token: {t}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    assert_eq!(status_of(&raw(&s, &post)), 403);
    assert_no_labels(&dir.path().join("corpus"));
}

fn page_blocks(s: &Server, i: usize) -> usize {
    page(s, i)["blocks"].as_array().unwrap().len()
}

fn assert_no_labels(corpus: &std::path::Path) {
    assert!(std::fs::read_dir(corpus.join("ground-truth"))
        .unwrap()
        .next()
        .is_none());
}

#[test]
fn token_in_the_url_only_opens_the_page() {
    let dir = tempfile::tempdir().unwrap();
    let pages = pages();
    let refs: Vec<_> = pages.iter().map(|p| p.as_path()).collect();
    let s = Server::start(common::bin(), &refs, &dir.path().join("corpus"));
    let t = s.token.clone();
    assert_eq!(get(&s, &format!("/?token={t}"), None).0, 200);
    assert_eq!(get(&s, "/api/pages", Some(&t)).0, 200);
    // API reads: header only.
    assert_eq!(get(&s, &format!("/api/pages?token={t}"), None).0, 403);
    assert_eq!(get(&s, &format!("/api/page/0?token={t}"), None).0, 403);
    // Saving with the token in the URL is refused, even with the header too.
    let n = page_blocks(&s, 0);
    let body = json!({"labels": vec![true; n], "page_type": "article"}).to_string();
    let path = format!("/api/page/0?token={t}");
    assert_eq!(post(&s, &path, None, body.as_bytes()).0, 403);
    assert_eq!(post(&s, &path, Some(&t), body.as_bytes()).0, 403);
    assert_eq!(
        post(&s, &format!("/?token={t}"), None, body.as_bytes()).0,
        403
    );
    assert_no_labels(&dir.path().join("corpus"));
    // The header alone saves.
    assert_eq!(post(&s, "/api/page/0", Some(&t), body.as_bytes()).0, 200);
}

#[test]
fn slow_clients_do_not_stop_a_real_request() {
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let pages = pages();
    let refs: Vec<_> = pages.iter().map(|p| p.as_path()).collect();
    let s = Server::start(common::bin(), &refs, &dir.path().join("corpus"));
    let addr = s.base.trim_start_matches("http://").to_string();
    // 500 clients that start a request and never finish its head.
    let mut slow = Vec::new();
    for i in 0..500 {
        let mut tcp = std::net::TcpStream::connect(&addr).unwrap();
        write!(
            tcp,
            "GET /api/pages HTTP/1.1\r\nHost: {addr}\r\nX-Slow-{i}: "
        )
        .unwrap();
        slow.push(tcp);
    }
    // Let the server take them all in.
    std::thread::sleep(Duration::from_millis(300));
    let request = format!(
        "GET /api/pages HTTP/1.1\r\nHost: {addr}\r\nX-Token: {}\r\nConnection: close\r\n\r\n",
        s.token
    );
    for _ in 0..3 {
        let mut tcp = std::net::TcpStream::connect(&addr).unwrap();
        tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let started = Instant::now();
        tcp.write_all(request.as_bytes()).unwrap();
        let mut reply = String::new();
        tcp.read_to_string(&mut reply).unwrap();
        let took = started.elapsed();
        assert_eq!(status_of(&reply), 200, "{reply}");
        assert!(reply.contains("\"total\":3"), "{reply}");
        assert!(took < Duration::from_millis(100), "answered in {took:?}");
    }
    // The slow clients were still connected all along; the server ends them
    // at its head deadline (5 s) instead of waiting for ever.
    let started = Instant::now();
    let first = &mut slow[0];
    first
        .set_read_timeout(Some(Duration::from_secs(15)))
        .unwrap();
    let mut reply = String::new();
    let _ = first.read_to_string(&mut reply);
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(reply.is_empty() || status_of(&reply) == 408, "{reply}");
    drop(slow);
}

#[test]
fn ids_never_wrap_nor_collide() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    let gt_dir = corpus.join("ground-truth");
    std::fs::create_dir_all(&gt_dir).unwrap();
    // Pages this command did not write, one with the largest possible id.
    let foreign = |id: &str| {
        json!({"file_id": id, "url": format!("https://example.com/{id}"),
               "ground_truth": {"main_content": format!("page {id}")}})
        .to_string()
    };
    let last = "18446744073709551615";
    for id in [last, "0002"] {
        std::fs::write(gt_dir.join(format!("{id}.json")), foreign(id)).unwrap();
    }
    let pages = pages();
    let refs: Vec<_> = pages.iter().map(|p| p.as_path()).collect();
    let mut ids = Vec::new();
    {
        let s = Server::start(common::bin(), &refs, &corpus);
        for i in 0..3 {
            let n = page_blocks(&s, i);
            let body = json!({"labels": vec![i == 1; n], "page_type": "article"}).to_string();
            let reply = save(&s, i, &body);
            assert_eq!(reply["labelled"], i + 1);
            ids.push(reply["id"].as_str().unwrap().to_string());
        }
        let list: Value = serde_json::from_str(&get(&s, "/api/pages", Some(&s.token)).1).unwrap();
        assert_eq!(list["labelled"], 3);
        for (i, id) in ids.iter().enumerate() {
            assert_eq!(list["pages"][i]["id"], id.as_str());
        }
    }
    let unique: std::collections::HashSet<_> = ids.iter().collect();
    assert_eq!(unique.len(), 3, "{ids:?}");
    for id in &ids {
        assert!(id != last && id != "0002" && id != "0000", "{ids:?}");
        assert!(corpus.join(format!("html/{id}.html.gz")).is_file());
    }
    // The foreign pages are untouched.
    for id in [last, "0002"] {
        let text = std::fs::read_to_string(gt_dir.join(format!("{id}.json"))).unwrap();
        assert_eq!(text, foreign(id));
    }
    // Each saved page kept its own labels.
    for (i, (id, path)) in ids.iter().zip(&pages).enumerate() {
        let gt: Value =
            serde_json::from_slice(&std::fs::read(gt_dir.join(format!("{id}.json"))).unwrap())
                .unwrap();
        assert_eq!(gt["file_id"], id.as_str());
        let source = gt["_internal"]["annotate"]["source"].as_str().unwrap();
        assert!(path.to_string_lossy().ends_with(source), "{source}");
        let labels = gt["_internal"]["block_labels"].as_array().unwrap();
        assert!(labels.iter().all(|l| *l == u64::from(i == 1)));
    }
    assert_eq!(std::fs::read_dir(&gt_dir).unwrap().count(), 5);
    let meta: Value =
        serde_json::from_slice(&std::fs::read(corpus.join("metadata.json")).unwrap()).unwrap();
    assert_eq!(meta["files"].as_object().unwrap().len(), 5);
    // Resuming finds all three.
    let s = Server::start(common::bin(), &refs, &corpus);
    let list: Value = serde_json::from_str(&get(&s, "/api/pages", Some(&s.token)).1).unwrap();
    assert_eq!(list["labelled"], 3);
}

#[test]
fn a_page_opens_at_the_models_first_content_block() {
    let dir = tempfile::tempdir().unwrap();
    let pages = pages();
    let refs: Vec<_> = pages.iter().map(|p| p.as_path()).collect();
    let s = Server::start(common::bin(), &refs, &dir.path().join("corpus"));
    for i in 0..3 {
        let p = page(&s, i);
        let blocks = p["blocks"].as_array().unwrap();
        let first = blocks.iter().position(|b| b["model"] == true);
        assert_eq!(p["first_content"].as_u64().map(|n| n as usize), first);
        // The fixtures start with chrome (navigation), so the page does not open at the top.
        assert!(first.is_some_and(|f| f > 0), "page {i}: {first:?}");
    }
    let (_, html) = get(&s, &format!("/?token={}", s.token), None);
    assert!(html.contains("jump to content"), "{html}");
    assert!(html.contains("first_content"), "the script scrolls to it");
}

#[test]
fn the_preview_shows_the_page_in_a_frame_without_scripts() {
    let dir = tempfile::tempdir().unwrap();
    let pages = pages();
    let refs: Vec<_> = pages.iter().map(|p| p.as_path()).collect();
    let s = Server::start(common::bin(), &refs, &dir.path().join("corpus"));
    // The page's HTML comes as a JSON string, never as a document of the
    // server's origin, and only with the token.
    assert_eq!(get(&s, "/api/page/1/html", None).0, 403);
    assert_eq!(get(&s, "/api/page/9/html", Some(&s.token)).0, 404);
    let (status, body) = get(&s, "/api/page/1/html", Some(&s.token));
    assert_eq!(status, 200);
    let v: Value = serde_json::from_str(&body).unwrap();
    let html = v["html"].as_str().unwrap();
    let original = std::fs::read_to_string(&pages[1]).unwrap();
    assert_eq!(html, original);
    // The frame may not run the page's scripts.
    let (_, index) = get(&s, &format!("/?token={}", s.token), None);
    let frame = index
        .split("<iframe")
        .nth(1)
        .and_then(|f| f.split('>').next())
        .expect("a preview frame");
    assert!(frame.contains("sandbox=\"allow-same-origin\""), "{frame}");
    assert!(!frame.contains("allow-scripts"), "{frame}");
}
