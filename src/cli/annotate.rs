//! `dechrome annotate`: a local web page for labelling pages block by block.
//!
//! The server listens on 127.0.0.1 only, answers only requests addressed to
//! that address (`Host`, `Origin`) and carrying the random token printed in
//! its URL (`guard`). Connections are read by one event loop with deadlines
//! and size limits, requests answered by a fixed pool of workers
//! (`server`, `http`). Saving writes the WCXB layout that
//! `dechrome train --corpus` reads (`corpus`), each file written whole or
//! not at all, all writes under one lock.

mod corpus;
mod guard;
mod http;
mod routes;
mod server;

use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::Context;
use rand::RngCore;
use sha2::{Digest, Sha256};

use super::inputs;
use super::ModelArgs;
use routes::{InputPage, State};

/// The page time budget when `--page-timeout` is not given: opening a page
/// for labelling never takes longer than this.
const DEFAULT_PAGE_TIMEOUT_SECS: f64 = 10.0;

/// Arguments of `dechrome annotate`.
#[derive(clap::Args)]
pub struct AnnotateArgs {
    /// Pages to label: files or folders (walked for *.html, *.html.gz, WARC).
    #[arg(required = true)]
    inputs: Vec<String>,
    /// The corpus folder written (and resumed when it exists).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Port on 127.0.0.1 (default: any free port).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Worker threads answering requests (1 to 64).
    #[arg(long, default_value_t = 4, hide = true)]
    workers: usize,
    #[command(flatten)]
    model: ModelArgs,
}

/// Runs `dechrome annotate` until Ctrl-C.
pub fn run(args: AnnotateArgs) -> anyhow::Result<()> {
    let mut config = args.model.settings()?;
    if config.page_timeout.is_none() {
        config.page_timeout = Some(dechrome::config::page_timeout_from_secs(
            DEFAULT_PAGE_TIMEOUT_SECS,
        )?);
    }
    let extractor = super::build(config)?;
    let pages = read_inputs(&args.inputs, extractor.config().max_bytes)?;
    anyhow::ensure!(!pages.is_empty(), "no pages to label");
    let corpus = corpus::Corpus::open(&args.out)
        .with_context(|| format!("cannot open the corpus {}", args.out.display()))?;
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, args.port));
    let listener =
        mio::net::TcpListener::bind(addr).with_context(|| format!("cannot listen on {addr}"))?;
    let port = listener.local_addr()?.port();
    let mut raw = [0u8; 16];
    rand::rngs::OsRng.fill_bytes(&mut raw);
    let token: String = raw.iter().map(|b| format!("{b:02x}")).collect();
    let url = format!("http://127.0.0.1:{port}/?token={token}");
    let workers = args.workers.clamp(1, 64);
    let limits = server::Limits {
        workers,
        ..server::Limits::default()
    };
    // One worker always stays free of extractions for the other requests.
    let max_extracting = workers.saturating_sub(1).max(1);
    let access = guard::Access::new(token, port);
    let state = Arc::new(State::new(access, pages, extractor, corpus, max_extracting));
    outln!("{url}");
    eprintln!(
        "{} pages, {} labelled; corpus {}; Ctrl-C stops",
        state.total(),
        state.labelled(),
        args.out.display()
    );
    std::io::stdout().flush()?;
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        ctrlc::set_handler(move || stop.store(true, Ordering::SeqCst))
            .context("cannot catch Ctrl-C")?;
    }
    server::serve(
        listener,
        limits,
        move |request| routes::handle(&state, request),
        &stop,
    )
    .context("the annotate server failed")?;
    eprintln!("stopped");
    Ok(())
}

/// Reads every input page (files, folders, WARC records) into memory.
fn read_inputs(names: &[String], max_bytes: usize) -> anyhow::Result<Vec<InputPage>> {
    let names: Vec<_> = names
        .iter()
        .map(|a| Ok::<_, String>(std::ffi::OsString::from(a)))
        .collect();
    let items = inputs::Inputs::new(
        Box::new(names.into_iter()),
        inputs::NameFilter::default(),
        max_bytes,
    );
    let mut pages = Vec::new();
    for item in items {
        let (name, url) = (item.name, item.url);
        let (bytes, charset) = item
            .source
            .read()
            .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
        let sha256 = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        pages.push(InputPage {
            name,
            url,
            bytes,
            charset,
            sha256,
        });
    }
    Ok(pages)
}
