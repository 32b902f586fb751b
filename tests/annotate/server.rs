//! A `dechrome annotate` server started for a test, stopped when dropped.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// A running `dechrome annotate`.
pub struct Server {
    child: Child,
    /// The printed URL, token included.
    pub url: String,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// The token from the URL.
    pub token: String,
}

impl Server {
    /// Starts `dechrome annotate PAGES --out CORPUS --port 0` and reads
    /// the URL it prints.
    pub fn start(bin: &Path, pages: &[&Path], corpus: &Path) -> Server {
        let mut cmd = Command::new(bin);
        cmd.arg("annotate").args(pages).arg("--out").arg(corpus);
        cmd.args(["--port", "0"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = cmd.spawn().expect("start dechrome annotate");
        let mut line = String::new();
        let stdout = child.stdout.take().expect("stdout");
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("read the URL");
        let url = line.trim().to_string();
        assert!(url.starts_with("http://127.0.0.1:"), "printed {url:?}");
        let (base, token) = url.split_once("/?token=").expect("token in the URL");
        Server {
            base: base.to_string(),
            token: token.to_string(),
            url,
            child,
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP client that returns 4xx and 5xx replies instead of failing.
pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into()
}
