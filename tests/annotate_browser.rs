//! `dechrome annotate` in a real browser: headless Chromium driven through
//! WebDriver (chromedriver). Ignored by default; `tests/browser/ci.sh`
//! installs Chromium and chromedriver when missing and runs it.

mod common;
#[path = "annotate/server.rs"]
mod server;

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use base64::Engine;
use serde_json::{json, Value};
use server::{agent, Server};

/// A chromedriver process, stopped when dropped.
struct Driver {
    child: Child,
    base: String,
}

impl Driver {
    fn start() -> Driver {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let bin = std::env::var("CHROMEDRIVER").unwrap_or_else(|_| "chromedriver".into());
        let mut child = Command::new(bin)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver (apt-get install chromium-driver)");
        let base = format!("http://127.0.0.1:{port}");
        // Wait until the driver answers (it starts in well under a second).
        for _ in 0..200 {
            if let Ok(mut r) = agent().get(format!("{base}/status")).call() {
                let v: Value = r.body_mut().read_json().unwrap_or_default();
                if v["value"]["ready"] == true {
                    return Driver { child, base };
                }
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        let _ = child.kill();
        let _ = child.wait();
        panic!("chromedriver did not start");
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A WebDriver browsing context.
struct Browser<'a> {
    driver: &'a Driver,
    id: String,
}

impl<'a> Browser<'a> {
    fn open(driver: &'a Driver, profile: &std::path::Path) -> Browser<'a> {
        let binary = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": binary,
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                    "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync",
                    "--window-size=1100,800",
                    format!("--user-data-dir={}", profile.display()),
                ],
            },
        }}});
        let v = call(&format!("{}/session", driver.base), Some(caps));
        let id = v["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no browser: {v}"))
            .to_string();
        Browser { driver, id }
    }

    fn cmd(&self, path: &str, body: Option<Value>) -> Value {
        let v = call(
            &format!("{}/session/{}/{path}", self.driver.base, self.id),
            body,
        );
        v["value"].clone()
    }

    fn find_all(&self, css: &str) -> Vec<String> {
        let v = self.cmd(
            "elements",
            Some(json!({"using": "css selector", "value": css})),
        );
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|e| e.as_object()?.values().next()?.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Polls until `css` matches an element whose text satisfies `ok`.
    fn wait_for(&self, css: &str, ok: impl Fn(&str) -> bool) -> String {
        for _ in 0..200 {
            for e in self.find_all(css) {
                let t = self.cmd(&format!("element/{e}/text"), None);
                if ok(t.as_str().unwrap_or_default()) {
                    return e;
                }
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        panic!("nothing matched {css}");
    }

    fn click(&self, element: &str) {
        let v = self.cmd(&format!("element/{element}/click"), Some(json!({})));
        assert!(v.is_null(), "click failed: {v}");
    }
}

impl Drop for Browser<'_> {
    fn drop(&mut self) {
        let _ = agent()
            .delete(format!("{}/session/{}", self.driver.base, self.id))
            .call();
    }
}

fn call(url: &str, body: Option<Value>) -> Value {
    let mut r = match body {
        Some(b) => agent().post(url).send_json(b),
        None => agent().get(url).call(),
    }
    .expect("WebDriver call");
    r.body_mut().read_json().unwrap_or_default()
}

#[test]
#[ignore = "needs chromium and chromedriver: tests/browser/ci.sh"]
fn label_two_blocks_in_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    let pages: Vec<PathBuf> = ["python-blog.html", "docs-page.html"]
        .iter()
        .map(|n| common::root().join("tests/fixtures").join(n))
        .collect();
    let refs: Vec<_> = pages.iter().map(|p| p.as_path()).collect();
    let server = Server::start(common::bin(), &refs, &corpus);
    let model: Value = agent()
        .get(format!("{}/api/page/0", server.base))
        .header("X-Token", &server.token)
        .call()
        .unwrap()
        .body_mut()
        .read_json()
        .unwrap();
    let before: Vec<bool> = model["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_bool().unwrap())
        .collect();
    assert!(before.len() >= 4);

    let driver = Driver::start();
    let browser = Browser::open(&driver, &dir.path().join("profile"));
    browser.cmd("url", Some(json!({"url": server.url})));
    browser.wait_for("#progress", |t| t == "0 of 2 labelled");
    let blocks = browser.find_all(".block");
    assert_eq!(blocks.len(), before.len());
    // The page opens at the model's first content block; the blocks this
    // test labels are above it, so scroll up as a reader would (a click
    // that scrolls by itself lands them under the sticky header).
    browser.cmd(
        "execute/sync",
        Some(json!({"script": "window.scrollTo(0, 0)", "args": []})),
    );
    browser.click(&blocks[1]);
    browser.click(&blocks[2]);
    browser.wait_for("#status", |t| t == "unsaved changes");
    let save = browser.find_all("#save");
    browser.click(&save[0]);
    browser.wait_for("#status", |t| t == "saved as 0001");
    browser.wait_for("#progress", |t| t == "1 of 2 labelled");

    // Hovering a content block outlines its text in the preview frame.
    let first = model["first_content"].as_u64().expect("a content block");
    let hover = format!(
        "document.querySelector('.block[data-index=\"{first}\"]')\
         .dispatchEvent(new MouseEvent('mouseover', {{bubbles: true}}));\
         const d = document.getElementById('preview').contentDocument;\
         const m = d && d.body && [...d.body.querySelectorAll('*')].find(e => e.style.outline);\
         return m ? m.textContent : null;"
    );
    let mut outlined = Value::Null;
    for _ in 0..100 {
        outlined = browser.cmd("execute/sync", Some(json!({"script": hover, "args": []})));
        if outlined.is_string() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let block_text = model["blocks"][first as usize]["text"].as_str().unwrap();
    let start: String = block_text
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ");
    let outlined = outlined
        .as_str()
        .expect("an outlined element in the preview");
    assert!(
        outlined
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .contains(&start),
        "{outlined:?} should hold {start:?}"
    );

    let gt: Value =
        serde_json::from_slice(&std::fs::read(corpus.join("ground-truth/0001.json")).unwrap())
            .unwrap();
    let saved: Vec<bool> = gt["_internal"]["block_labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v == 1)
        .collect();
    let mut expected = before.clone();
    expected[1] = !expected[1];
    expected[2] = !expected[2];
    assert_eq!(saved, expected);
    assert!(corpus.join("html/0001.html.gz").is_file());
    assert!(corpus.join("metadata.json").is_file());

    // The screenshot shows something: many colours, not one flat fill.
    let shot = browser.cmd("screenshot", None);
    let png_bytes = base64::engine::general_purpose::STANDARD
        .decode(shot.as_str().expect("screenshot"))
        .unwrap();
    if let Some(path) = std::env::var_os("DECHROME_SCREENSHOT") {
        std::fs::write(path, &png_bytes).unwrap();
    }
    let decoder = png::Decoder::new(std::io::Cursor::new(&png_bytes));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let px = info.color_type.samples();
    let colours: std::collections::HashSet<&[u8]> = buf[..info.buffer_size()].chunks(px).collect();
    assert!(info.width >= 800 && info.height >= 600);
    assert!(colours.len() > 20, "{} colours: blank", colours.len());

    // The README's next step: adapt the shipped model to the labelled page,
    // then extract with the adapted model.
    let model_path = dir.path().join("mysite.model");
    let run = |args: &[&std::ffi::OsStr]| {
        let out = std::process::Command::new(common::bin())
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    };
    run(&[
        "adapt".as_ref(),
        "--corpus".as_ref(),
        corpus.as_ref(),
        "--out".as_ref(),
        model_path.as_ref(),
    ]);
    let out = run(&[
        "extract".as_ref(),
        "--model".as_ref(),
        model_path.as_ref(),
        pages[0].as_ref(),
    ]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("We hope you enjoy Python 3.6.0!"));
}
