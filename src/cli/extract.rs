//! `dechrome extract`: pages in, main text out, in parallel. Inputs are
//! produced lazily (folders walked, lists and WARC files read as needed), so
//! memory holds a few hundred pages at most whatever the size of the crawl.
//! Three runs, by what the inputs allow:
//! - one thread (`--threads 1`) and inputs that cannot block
//!   ([`inputs_may_block`]): each page is read, extracted and written in
//!   turn on this thread;
//! - several threads and inputs that cannot block: each worker takes its
//!   next input and writes what is ready under a lock ([`pull`]);
//! - inputs that may block (standard input, a list on a pipe): a producer
//!   thread, the worker pool and this thread as the writer, with bounded
//!   channels between them ([`Channels`]).
//!
//! With `-o`, the output is written to a temporary file beside the target
//! ([`PendingFile`](dechrome::pending_file::PendingFile)) and renamed over it
//! only when the run completes.

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::{Args, ValueEnum};
use rayon::prelude::*;

use super::inputs::{list_lines, Inputs, Item, NameFilter};
use super::sink::{names_one_page, write_page, OutDir, Stream};
use super::ModelArgs;
use dechrome::extract::{site_of, SiteContext};
use dechrome::features::site::SiteIndex;
use dechrome::metadata::{PageHints, Reference};
use dechrome::output::{render_with, Format, Markup, Origin, RenderOptions};
use dechrome::pending_file::PendingFile;

mod pull;

/// Output formats, described in `extract --help` itself (an installed
/// binary has no docs folder beside it).
#[derive(Clone, Copy, Debug, ValueEnum)]
enum FormatArg {
    /// The main text: the kept blocks, one per line.
    Text,
    /// A pretty JSON object per page: path, text, metadata, algorithm, and
    /// every block with its probability and decision; several pages form
    /// one JSON array.
    Json,
    /// One compact JSON object per line and page: path, text, metadata
    /// (title, author, date, language, canonical_url ...), algorithm; or
    /// path and error for a page that failed.
    Jsonl,
    /// The kept content as Markdown (headings, lists, tables, code, quotes,
    /// emphasis; links and images with --links, --images).
    Markdown,
    /// The kept content as a small clean HTML document (no scripts, styles
    /// or attributes but href, src, alt).
    Html,
}

/// The order of the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum OrderArg {
    /// The order of the inputs.
    Input,
    /// Each page as soon as it is done (faster; the order is not guaranteed).
    Any,
}

/// Arguments of `extract`.
#[derive(Args)]
pub struct ExtractArgs {
    /// Pages: files (HTML, gzip allowed; .warc and .warc.gz files give their
    /// HTML responses), folders (walked for *.html, *.htm, *.html.gz, *.warc.gz ...) or `-` for stdin.
    #[arg(required_unless_present = "files_from")]
    inputs: Vec<OsString>,
    /// Also read page paths from this file, one per line (`-`: standard input).
    #[arg(long, value_name = "FILE")]
    files_from: Option<String>,
    /// In folders, take only files matching this glob (repeatable), instead of
    /// the HTML and WARC names; matched against the path relative to the
    /// folder and the file name (`*` stays within a folder, `**` crosses).
    #[arg(long, value_name = "GLOB")]
    include: Vec<String>,
    /// In folders, skip files and subfolders matching this glob (repeatable).
    /// Files named on the command line or in a list are always taken.
    #[arg(long, value_name = "GLOB")]
    exclude: Vec<String>,
    /// Output order: `input`, or `any` to write each page as soon as it is done.
    #[arg(long, value_enum, default_value_t = OrderArg::Input)]
    order: OrderArg,
    /// Output format. Several pages (more than one input, a folder, a WARC
    /// file, a list) are told apart: json writes one array, text a line
    /// `==> PATH <==` before each page, markdown and html a line
    /// `<!-- dechrome: PATH -->`; jsonl has one line per page.
    #[arg(long, value_enum, default_value_t = FormatArg::Text)]
    format: FormatArg,
    /// JSON and JSON Lines: add the page's Markdown as `markdown`.
    #[arg(long)]
    with_markdown: bool,
    /// Markdown and HTML: keep links (`[text](url)`, `<a href>`), resolved
    /// against the page's `<base href>` or URL.
    #[arg(long)]
    links: bool,
    /// Markdown and HTML: keep images (`![alt](src)`, `<img>`).
    #[arg(long)]
    images: bool,
    /// Markdown: write a line break inside a paragraph (`<br>`) as a hard
    /// break (`\` at the end of the line) instead of a plain newline.
    #[arg(long)]
    hard_breaks: bool,
    /// Markdown and HTML: the pages' URL for resolving relative links when
    /// the input does not give one (a WARC record does).
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// Markdown and HTML: do not start with the page's title (`# Title`,
    /// `<h1>`), which is written when the kept text does not start with it
    /// (a heading holding it under a kicker or date line moves up).
    #[arg(long)]
    no_title: bool,
    /// The date relative dates on the pages ("3 hours ago", "gestern")
    /// count back from (`2024-05-01` or `2024-05-01T10:00:00Z`), for pages
    /// with no WARC date; without either, relative dates are ignored.
    #[arg(long, value_name = "DATE")]
    reference_date: Option<String>,
    #[command(flatten)]
    model: ModelArgs,
    /// Read the inputs twice: first count, per site, how many pages hold
    /// each block's text and markup path; then extract each page knowing
    /// which of its blocks recur across its site (template). Needs a model
    /// trained with `train --site-context`, and inputs that can be read
    /// twice (files, folders, WARC files; not standard input). A page's site
    /// is the registrable domain of its WARC URI, else of its canonical URL;
    /// pages with neither count as one site.
    #[arg(long)]
    site_context: bool,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Write to this file (whole or not at all) instead of stdout. The
    /// output goes to a temporary file beside it, renamed over FILE when the
    /// run ends; if the run is interrupted (Ctrl-C, SIGTERM), FILE is left
    /// as it was and the partial output is kept as FILE.partial.
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Write each page to its own file in DIR (created if missing), named
    /// from the input: `page.md` for `page.html`, `crawl.warc.gz-000017.md`
    /// for record 17 of a WARC file, `stdin.md` for `-`; a name taken
    /// already in the run gets `-2`, `-3` ... Each file is written whole
    /// or not at all; a page that fails writes no file (its error goes to
    /// standard error).
    #[arg(long, value_name = "DIR", conflicts_with = "output")]
    out_dir: Option<PathBuf>,
}

/// Pages per batch of `--site-context`'s first pass, and per channel.
const BATCH: usize = 64;

/// Most pages between the inputs and the output at once: read, in
/// extraction, or finished and waiting for an earlier page to be written.
const WINDOW: usize = 4 * BATCH;

/// The first pass of `--site-context`: every page's block keys, counted
/// per site. Pages that cannot be read or parsed are left out here (the
/// second pass reports them).
fn index_sites(
    pool: &rayon::ThreadPool,
    extractor: &dechrome::Extractor,
    inputs: Inputs,
    interrupted: &AtomicBool,
) -> SiteIndex {
    let pb = super::spinner("pages indexed for site context");
    let mut index = SiteIndex::new();
    let mut inputs = inputs.fuse();
    loop {
        let batch: Vec<Item> = inputs.by_ref().take(BATCH).collect();
        if batch.is_empty() || interrupted.load(Ordering::SeqCst) {
            break;
        }
        let n = batch.len() as u64;
        let part = pool.install(|| {
            batch
                .into_par_iter()
                .filter_map(|item| {
                    let (bytes, charset) = item.source.read().ok()?;
                    let page = extractor.site_page(&bytes, charset.as_deref()).ok()?;
                    let site = site_of(item.url.as_deref(), page.canonical_url.as_deref());
                    Some((site, page.keys))
                })
                .collect::<Vec<_>>()
        });
        for (site, keys) in part {
            index.add(&site, &keys);
        }
        pb.inc(n);
    }
    pb.finish_and_clear();
    index
}

/// A page to extract and, with `--out-dir`, the file it goes to.
struct Job {
    /// Its place among the inputs (0, 1, 2, ...).
    seq: u64,
    item: Item,
    target: Option<PathBuf>,
}

/// How often a wait for inputs looks at the interrupt flag.
const POLL: Duration = Duration::from_millis(50);

/// One page's output, ready to write.
struct Done {
    /// Its input's place ([`Job::seq`]).
    seq: u64,
    /// The page's name (its `path` in JSON).
    path: String,
    /// Its own file, with `--out-dir`.
    target: Option<PathBuf>,
    /// The rendered page (empty for a failed page in text format).
    text: String,
    /// `NAME: ERROR` for a failed page.
    error: Option<String>,
}

/// How pages are rendered.
struct Rendering {
    format: Format,
    options: RenderOptions,
    /// `--reference-date`: relative dates count back from it on pages
    /// without a WARC date.
    reference_date: Option<String>,
}

/// Extracts one page and renders it.
fn process(
    extractor: &dechrome::Extractor,
    rendering: &Rendering,
    site: Option<&SiteIndex>,
    job: Job,
) -> Done {
    let Job { seq, item, target } = job;
    let Item {
        name,
        url,
        warc_date,
        warc_record_id,
        source,
    } = item;
    let hints = PageHints {
        url: url.as_deref(),
        reference_date: warc_date.as_deref().or(rendering.reference_date.as_deref()),
    };
    let result = source.read().and_then(|(bytes, charset)| {
        let site = site.map(|index| SiteContext {
            index,
            url: url.as_deref(),
        });
        extractor
            .extract_bytes_with(&bytes, charset.as_deref(), &hints, site)
            .map_err(|e| e.to_string())
    });
    let origin = Origin {
        path: &name,
        url: url.as_deref(),
        warc_date: warc_date.as_deref(),
        warc_record_id: warc_record_id.as_deref(),
    };
    let text = render_with(origin, &result, rendering.format, &rendering.options);
    Done {
        seq,
        error: result.err().map(|e| format!("{name}: {e}")),
        path: name,
        target,
        text,
    }
}

/// Finished pages counted and written: to the stream, or each to its own
/// file with `--out-dir`.
struct Writer {
    sink: Stream,
    pb: indicatif::ProgressBar,
    /// JSON and JSON Lines carry a failed page's error in the output; the
    /// other formats (and `--out-dir`) report it on standard error only.
    silent_errors: bool,
    /// Pages that failed so far.
    failed: usize,
    /// Pages written so far, failed ones included.
    written: usize,
}

impl Writer {
    /// Writes one finished page and counts it.
    fn write(&mut self, done: Done) -> anyhow::Result<()> {
        if let Some(e) = &done.error {
            self.failed += 1;
            if !self.silent_errors || done.target.is_some() {
                self.pb.suspend(|| eprintln!("dechrome: {e}"));
            }
        }
        match &done.target {
            Some(target) if done.error.is_none() => write_page(target, &done.text)?,
            Some(_) => {}
            None => self.sink.page(&done.path, &done.text)?,
        }
        self.written += 1;
        self.pb.inc(1);
        Ok(())
    }
}

/// The run for inputs that may block (standard input, a list on a pipe):
/// a producer thread reads the inputs, so that Ctrl-C stops the run while
/// it waits for the next name; the pool extracts; this thread writes.
struct Channels<'a> {
    pool: &'a rayon::ThreadPool,
    extractor: &'a dechrome::Extractor,
    rendering: &'a Rendering,
    site: Option<&'a SiteIndex>,
}

impl Channels<'_> {
    /// Extracts `inputs` and writes them with `writer`, in `order`.
    fn extract(
        &self,
        inputs: Inputs,
        out_dir: Option<OutDir>,
        order: OrderArg,
        writer: &mut Writer,
        interrupted: &Arc<AtomicBool>,
    ) -> anyhow::Result<()> {
        let (item_tx, item_rx) = sync_channel::<Job>(BATCH);
        // One permit per page between the inputs and the output: the writer
        // gives one back per page written.
        let (permit_tx, permit_rx) = sync_channel::<()>(WINDOW);
        for _ in 0..WINDOW {
            permit_tx.send(())?;
        }
        {
            let interrupted = interrupted.clone();
            // Files are named here, in input order, so that the names do not
            // depend on which page finishes first.
            let mut out_dir = out_dir;
            // The producer is not joined: it may be blocked reading a list
            // on standard input when the run ends early (a closed stdout).
            std::thread::spawn(move || {
                for (seq, item) in (0u64..).zip(inputs) {
                    let target = out_dir.as_mut().map(|d| d.name(&item.name));
                    if interrupted.load(Ordering::SeqCst)
                        || permit_rx.recv().is_err()
                        || item_tx.send(Job { seq, item, target }).is_err()
                    {
                        break;
                    }
                }
            });
        }
        let (done_tx, done_rx) = sync_channel::<Done>(BATCH);
        std::thread::scope(|scope| {
            let flag = &**interrupted;
            scope.spawn(move || self.process_all(item_rx, done_tx, flag));
            let mut in_order = InOrder::default();
            let mut ready = done_rx.iter().flat_map(|done| match order {
                OrderArg::Input => in_order.take(done),
                OrderArg::Any => vec![done],
            });
            let result = ready.try_for_each(|done| {
                // The page leaves the window; a closed producer is no error.
                let _ = permit_tx.send(());
                writer.write(done)
            });
            // Workers see the closed channel and stop after the pages in flight.
            drop(ready);
            drop(done_rx);
            result
        })
    }

    /// Extracts the items from `items` on the pool and sends the results to
    /// `done` as they finish: each worker takes the next item when it is
    /// free, so no worker waits for another's slow page (the writer puts
    /// the pages back in input order, [`InOrder`]). Stops when
    /// `interrupted` is set or nobody receives the results any more.
    fn process_all(&self, items: Receiver<Job>, done: SyncSender<Done>, interrupted: &AtomicBool) {
        let gone = AtomicBool::new(false);
        let stopped = || interrupted.load(Ordering::SeqCst) || gone.load(Ordering::SeqCst);
        let next = move || loop {
            match items.recv_timeout(POLL) {
                Ok(item) if !stopped() => return Some(item),
                Err(RecvTimeoutError::Timeout) if !stopped() => {}
                _ => return None,
            }
        };
        self.pool.install(|| {
            std::iter::from_fn(next).par_bridge().for_each(|item| {
                if done
                    .send(process(self.extractor, self.rendering, self.site, item))
                    .is_err()
                {
                    gone.store(true, Ordering::SeqCst);
                }
            })
        });
    }
}

/// True when reading the inputs may wait without end: a page or the list on
/// standard input, or a list that is not a regular file (a pipe, as in
/// `--files-from <(find ...)`). Such a run keeps its producer thread even
/// with one worker, so that Ctrl-C stops it while it waits for the next
/// name.
fn inputs_may_block(inputs: &[OsString], files_from: Option<&str>) -> bool {
    inputs.iter().any(|a| a == "-")
        || files_from.is_some_and(|l| l == "-" || !std::fs::metadata(l).is_ok_and(|m| m.is_file()))
}

/// Pages finished out of order, held until the ones before them are
/// written. At most [`WINDOW`] pages are between the inputs and the output
/// at any time (the producer waits for a permit per page), so this holds
/// fewer than that however slow one page is.
#[derive(Default)]
struct InOrder {
    /// The place of the next page to write.
    next: u64,
    /// Pages finished before `next`'s turn, by place.
    waiting: std::collections::BTreeMap<u64, Done>,
}

impl InOrder {
    /// Takes a finished page; returns the pages now ready, in input order.
    fn take(&mut self, done: Done) -> Vec<Done> {
        self.waiting.insert(done.seq, done);
        let mut ready = Vec::new();
        while let Some(d) = self.waiting.remove(&self.next) {
            ready.push(d);
            self.next += 1;
        }
        ready
    }
}

/// Runs `extract`; returns the exit code.
pub fn run(args: ExtractArgs) -> anyhow::Result<i32> {
    let format = match args.format {
        FormatArg::Text => Format::Text,
        FormatArg::Json => Format::Json,
        FormatArg::Jsonl => Format::Jsonl,
        FormatArg::Markdown => Format::Markdown,
        FormatArg::Html => Format::Html,
    };
    anyhow::ensure!(
        !args.with_markdown || matches!(format, Format::Json | Format::Jsonl),
        "--with-markdown works with --format json or jsonl"
    );
    if let Some(d) = &args.reference_date {
        anyhow::ensure!(
            Reference::parse(d).is_some(),
            "--reference-date {d:?}: expected a date such as 2024-05-01 or 2024-05-01T10:00:00Z"
        );
    }
    let rendering = Rendering {
        format,
        options: RenderOptions {
            markup: Markup {
                links: args.links,
                images: args.images,
                page_url: args.base_url.clone(),
                title: !args.no_title,
                hard_breaks: args.hard_breaks,
            },
            with_markdown: args.with_markdown,
        },
        reference_date: args.reference_date.clone(),
    };
    // The model is never dropped: the process ends with this run, and
    // freeing its thousands of trees one by one cost 1.9 M instructions
    // (a quarter of a millisecond) after the last page.
    let extractor = std::mem::ManuallyDrop::new(
        args.model
            .extractor_with_structure(format.needs_structure() || args.with_markdown)?,
    );
    let max_bytes = extractor.config().max_bytes;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(match args.threads {
            Some(n) => dechrome::config::check_threads(n)?,
            None => 0,
        })
        .build()
        .context("cannot start worker threads")?;
    anyhow::ensure!(
        !(args.files_from.as_deref() == Some("-") && args.inputs.iter().any(|a| a == "-")),
        "standard input cannot hold both the list (--files-from -) and a page (-)"
    );
    let filter = NameFilter::new(&args.include, &args.exclude)?;
    let open_inputs = || -> anyhow::Result<Inputs> {
        let mut names: Box<dyn Iterator<Item = Result<OsString, String>> + Send> =
            Box::new(args.inputs.clone().into_iter().map(Ok));
        if let Some(list) = &args.files_from {
            names = Box::new(names.chain(list_lines(list)?));
        }
        Ok(Inputs::new(names, filter.clone(), max_bytes))
    };
    if args.site_context {
        anyhow::ensure!(
            extractor.uses_site_context(),
            "--site-context needs a model trained with site columns \
             (`dechrome train --site-context ...`); this one was trained without"
        );
        anyhow::ensure!(
            !args.inputs.iter().any(|a| a == "-") && args.files_from.as_deref() != Some("-"),
            "--site-context reads the inputs twice: give files, folders or WARC files, not standard input"
        );
    }
    // Ctrl-C (or SIGTERM) stops after the pages in flight, so every line
    // written is whole. Installed before the -o temporary file exists, so
    // no signal can leave it behind.
    let interrupted = Arc::new(AtomicBool::new(false));
    {
        let flag = interrupted.clone();
        // A second handler cannot be installed (tests call run twice in one
        // process only through the binary); ignore that case.
        let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
    }
    let inputs = open_inputs()?;
    let out_dir = match &args.out_dir {
        Some(dir) => Some(OutDir::create(dir, format)?),
        None => None,
    };
    // Standard output unlocked: a worker may write (`pull`); the buffer
    // takes its lock once per 8 KiB.
    let (pending, sink): (Option<PendingFile>, Box<dyn Write + Send>) = match &args.output {
        Some(path) => {
            let (pending, file) = PendingFile::create(path)
                .with_context(|| format!("cannot write {}", path.display()))?;
            (Some(pending), Box::new(std::io::BufWriter::new(file)))
        }
        None => (None, Box::new(std::io::BufWriter::new(std::io::stdout()))),
    };
    // With --out-dir nothing goes to the stream (no empty JSON array either).
    let several =
        args.out_dir.is_none() && !names_one_page(&args.inputs, args.files_from.as_deref());
    let mut writer = Writer {
        sink: Stream::new(sink, format, several),
        pb: super::spinner("pages"),
        silent_errors: matches!(format, Format::Json | Format::Jsonl),
        failed: 0,
        written: 0,
    };
    let site_index = if args.site_context {
        Some(index_sites(&pool, &extractor, open_inputs()?, &interrupted))
    } else {
        None
    };
    let threads = pool.current_num_threads();
    let result = if inputs_may_block(&args.inputs, args.files_from.as_deref()) {
        let site = site_index.as_ref();
        let order = args.order;
        let run = Channels {
            pool: &pool,
            extractor: &extractor,
            rendering: &rendering,
            site,
        };
        run.extract(inputs, out_dir, order, &mut writer, &interrupted)
    } else if threads == 1 {
        // One worker: each page is read, extracted and written in turn on
        // this thread. Handing every page to a producer, a worker and back
        // cost a context switch or more per page on the one processor (980
        // switches on 130 pages, 1-2 % of the wall clock).
        let mut out_dir = out_dir;
        let site = site_index.as_ref();
        (0u64..)
            .zip(inputs)
            .take_while(|_| !interrupted.load(Ordering::SeqCst))
            .try_for_each(|(seq, item)| {
                let target = out_dir.as_mut().map(|d| d.name(&item.name));
                writer.write(process(
                    &extractor,
                    &rendering,
                    site,
                    Job { seq, item, target },
                ))
            })
    } else {
        pull::extract(
            pull::Workers {
                threads,
                extractor: &extractor,
                rendering: &rendering,
                site: site_index.as_ref(),
                order: args.order,
            },
            inputs,
            out_dir,
            &mut writer,
            &interrupted,
        )
    };
    // The JSON array is closed even when the run was interrupted, so
    // the output so far is whole.
    let Writer {
        sink,
        pb,
        failed,
        written,
        ..
    } = writer;
    let result = result.and_then(|_| Ok(sink.finish()?));
    pb.finish_and_clear();
    // On an error the pending file is removed when dropped.
    result?;
    let stopped = interrupted.load(Ordering::SeqCst);
    if let Some(pending) = pending {
        if stopped {
            let (partial, target) = pending.keep_partial()?;
            eprintln!(
                "dechrome: interrupted: {} is unchanged, the output so far is in {}",
                target.display(),
                partial.display()
            );
        } else {
            pending.commit()?;
        }
    }
    if stopped {
        eprintln!("dechrome: interrupted after {written} pages");
        return Ok(130);
    }
    if failed > 0 {
        eprintln!("dechrome: {failed} of {written} pages failed");
        return Ok(1);
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn done(seq: u64) -> Done {
        Done {
            seq,
            path: format!("page{seq}"),
            target: None,
            text: String::new(),
            error: None,
        }
    }

    #[test]
    fn only_inputs_that_cannot_block_are_read_on_the_main_thread() {
        let dir = tempfile::tempdir().unwrap();
        let list = dir.path().join("list.txt");
        std::fs::write(&list, "a.html\n").unwrap();
        let list = list.to_str().unwrap();
        let page = [OsString::from("a.html")];
        assert!(!inputs_may_block(&page, None));
        assert!(!inputs_may_block(&page, Some(list)));
        assert!(inputs_may_block(&[OsString::from("-")], None));
        assert!(inputs_may_block(&page, Some("-")));
        assert!(inputs_may_block(&page, Some(dir.path().to_str().unwrap())));
        let fifo = dir.path().join("names");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            assert!(inputs_may_block(&page, Some(fifo.to_str().unwrap())));
        }
    }

    #[test]
    fn pages_finished_early_wait_for_the_ones_before_them() {
        let mut order = InOrder::default();
        let seqs = |v: Vec<Done>| v.iter().map(|d| d.seq).collect::<Vec<_>>();
        assert!(order.take(done(2)).is_empty());
        assert!(order.take(done(1)).is_empty());
        assert_eq!(seqs(order.take(done(0))), [0, 1, 2]);
        assert_eq!(seqs(order.take(done(3))), [3]);
        assert!(order.waiting.is_empty());
    }
}
