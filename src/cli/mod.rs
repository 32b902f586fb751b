//! Command-line interface: parses arguments, calls the library, maps
//! failures to exit codes. Exit codes: 0 success, 1 some pages failed,
//! 2 usage or fatal error, 130 interrupted (Ctrl-C: the pages finished so
//! far are written, as whole lines). A closed stdout (broken pipe) exits 0
//! quietly.

/// `println!` that returns the write error (a closed pipe) instead of
/// panicking: `outln!(...)` is `writeln!(stdout, ...)?`.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)?;
    }};
}

/// `print!` that returns the write error instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        write!(std::io::stdout().lock(), $($arg)*)?;
    }};
}

mod adapt;
mod annotate;
mod eval;
mod extract;
mod inputs;
mod inspect;
mod sink;
mod train;
mod train_progress;

use std::path::PathBuf;

use anyhow::Context;
use clap::{Parser, Subcommand, ValueEnum};

use dechrome::config::CommentMode;
use dechrome::{Algorithm, Extractor, ExtractorConfig};

/// Separate a web page's main content from its chrome.
#[derive(Parser)]
#[command(name = "dechrome", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Extract the main text of pages (files, folders, `-` for stdin).
    Extract(extract::ExtractArgs),
    /// Train a model on a WCXB-layout corpus with domain-grouped cross-validation.
    Train(train::TrainArgs),
    /// Adapt a trained model to one site: more trees and id/class odds from the site's labelled pages.
    Adapt(adapt::AdaptArgs),
    /// Score an extractor on a WCXB folder (word F1) or a snippet manifest (snippet F1).
    Eval(eval::EvalArgs),
    /// Print a model file's header, schema, provenance and metrics.
    Inspect(inspect::InspectArgs),
    /// Time extraction against html5ever parsing alone, one thread.
    Bench(BenchArgs),
    /// Show why each block was kept: charts (SVG, PNG), CETR scatter, HTML, JSON.
    Explain(ExplainArgs),
    /// Label pages block by block in a local web page; saves a WCXB corpus for `train`.
    Annotate(annotate::AnnotateArgs),
}

/// Which extractor to use: one of the library's algorithms. The names come
/// from [`Algorithm::name`], so the command line cannot drift from the
/// library.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AlgorithmName(Algorithm);

const NAMES: [AlgorithmName; 8] = [
    AlgorithmName(Algorithm::SELECTABLE[0]),
    AlgorithmName(Algorithm::SELECTABLE[1]),
    AlgorithmName(Algorithm::SELECTABLE[2]),
    AlgorithmName(Algorithm::SELECTABLE[3]),
    AlgorithmName(Algorithm::SELECTABLE[4]),
    AlgorithmName(Algorithm::SELECTABLE[5]),
    AlgorithmName(Algorithm::SELECTABLE[6]),
    AlgorithmName(Algorithm::SELECTABLE[7]),
];

impl ValueEnum for AlgorithmName {
    fn value_variants<'a>() -> &'a [Self] {
        &NAMES
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.0.name()))
    }
}

/// `eval`'s choice: one of the library's algorithms, or `all` (every
/// algorithm in turn), which only `eval` offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AlgorithmChoice(Option<Algorithm>);

impl AlgorithmChoice {
    const ALL: AlgorithmChoice = AlgorithmChoice(None);
}

const CHOICES: [AlgorithmChoice; 9] = [
    AlgorithmChoice(Some(Algorithm::SELECTABLE[0])),
    AlgorithmChoice(Some(Algorithm::SELECTABLE[1])),
    AlgorithmChoice(Some(Algorithm::SELECTABLE[2])),
    AlgorithmChoice(Some(Algorithm::SELECTABLE[3])),
    AlgorithmChoice(Some(Algorithm::SELECTABLE[4])),
    AlgorithmChoice(Some(Algorithm::SELECTABLE[5])),
    AlgorithmChoice(Some(Algorithm::SELECTABLE[6])),
    AlgorithmChoice(Some(Algorithm::SELECTABLE[7])),
    AlgorithmChoice::ALL,
];

impl ValueEnum for AlgorithmChoice {
    fn value_variants<'a>() -> &'a [Self] {
        &CHOICES
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(match self.0 {
            Some(a) => clap::builder::PossibleValue::new(a.name()),
            None => clap::builder::PossibleValue::new("all").help("every algorithm in turn"),
        })
    }
}

/// Extraction settings of `extract`, `bench`, `explain` and `annotate`:
/// the algorithm and the [`SettingFlags`].
#[derive(clap::Args, Clone)]
pub struct ModelArgs {
    /// Extraction algorithm [default: forest].
    #[arg(long, value_enum)]
    algorithm: Option<AlgorithmName>,
    #[command(flatten)]
    flags: SettingFlags,
}

/// `eval`'s extraction settings: an algorithm or `all`, and the
/// [`SettingFlags`].
#[derive(clap::Args, Clone)]
pub struct EvalModelArgs {
    /// Extraction algorithm, or `all` for one row per algorithm [default: forest].
    #[arg(long, value_enum)]
    algorithm: Option<AlgorithmChoice>,
    #[command(flatten)]
    flags: SettingFlags,
}

/// Extraction settings but the algorithm, shared by `extract`, `eval`,
/// `bench`, `explain` and `annotate`: an [`ExtractorConfig`] from `--config
/// FILE` (or the defaults), with the flags given applied on top. A flag not
/// given leaves the file's value (so flags carry no defaults of their own
/// here: the defaults are `ExtractorConfig`'s).
#[derive(clap::Args, Clone)]
pub struct SettingFlags {
    /// Settings as a JSON file: an object of extraction settings (the
    /// fields of the library's `ExtractorConfig`, e.g. {"threshold": 0.4,
    /// "comments": "include"}); missing ones default, an unknown one is an
    /// error. The flags apply on top.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Model file (default: the model embedded in this build).
    #[arg(long, value_name = "FILE")]
    model: Option<PathBuf>,
    /// Use the fast embedded model (one ensemble per stage instead of two):
    /// for crawl-scale batches; the README gives its speed and accuracy.
    #[arg(long)]
    fast: bool,
    /// Override the model's decision threshold (0..1); a page that is not
    /// prose is decided `--low-prose-shift` below it.
    #[arg(long)]
    threshold: Option<f32>,
    /// Override the model's low-prose shift: how far the threshold falls
    /// on a page whose kept text is not prose (a listing, a shop or product
    /// page: under half of the kept words in blocks of 25+ words, under a
    /// fifth of them links); 0 decides every page at one threshold.
    #[arg(long, value_name = "SHIFT")]
    low_prose_shift: Option<f32>,
    /// Pages larger than this many bytes (after gunzip) are truncated
    /// [default: 20971520, 20 MiB].
    #[arg(long, value_name = "BYTES")]
    max_bytes: Option<usize>,
    /// Fall back to CETR-KM when the forest keeps nothing on a page with
    /// words, or all its probabilities lie within 0.05 of the threshold
    /// (off by default: on WCXB dev the forest's empty answer is usually right).
    #[arg(long)]
    fallback: bool,
    /// Pages with fewer blocks with words than this are short: when the
    /// forest keeps nothing on one, the blocks within half of its best
    /// probability are kept (0: never) [default: 10].
    #[arg(long, value_name = "N")]
    short_page_blocks: Option<usize>,
    /// Crunch: a file of ad-server hosts (one per line) replacing the shipped list.
    #[arg(long, value_name = "FILE")]
    ad_hosts: Option<PathBuf>,
    /// Crunch: append the link texts of removed link lists.
    #[arg(long)]
    retain_links: bool,
    /// Give up on a page after this many seconds (reported as a failed page).
    #[arg(long, value_name = "SECS")]
    page_timeout: Option<f64>,
    /// User comments: `exclude` drops comment threads unless they are the
    /// page's content (forums), `include` keeps their text, `model` leaves
    /// it to the classifier [default: exclude].
    #[arg(long, value_name = "MODE", value_parser = comment_mode)]
    comments: Option<CommentMode>,
    /// Keep figure captions (`<figcaption>`, and on articles elements whose
    /// class names a caption) the classifier keeps. By default they are
    /// dropped unless they are most of the kept text.
    #[arg(long)]
    keep_captions: bool,
    /// Keep a block that repeats an earlier kept block's text from another
    /// container (a pull quote, a mobile copy). By default the second copy
    /// is dropped.
    #[arg(long)]
    keep_repeats: bool,
    /// With `--comments exclude`, keep threads that only their shape marks
    /// (repeated posts with a date or a "Reply" line, no comment class or
    /// heading). By default they are dropped from pages predicted articles.
    #[arg(long)]
    keep_unnamed_threads: bool,
    /// Output a page whose confidence (the model's estimate of the
    /// extraction's word F1) lies below this without text, marked
    /// `"low_confidence": true` in JSON and JSON Lines, rather than
    /// dropping it: one record per input stays (0..1; needs a model
    /// trained with a confidence model, such as the shipped one).
    #[arg(long, value_name = "X")]
    min_confidence: Option<f64>,
}

/// Settings read from a JSON file (missing fields default) by the
/// library's reader of settings by name ([`dechrome::config::from_value`]:
/// an unknown key or a wrong type names the key's path), or the defaults
/// without one; `what` names them in errors.
pub fn json_config<T: serde::de::DeserializeOwned + Default>(
    path: Option<&std::path::Path>,
    what: &str,
) -> anyhow::Result<T> {
    let Some(p) = path else {
        return Ok(T::default());
    };
    let bytes = std::fs::read(p).with_context(|| format!("cannot read {}", p.display()))?;
    let value =
        serde_json::from_slice(&bytes).with_context(|| format!("{}: not JSON", p.display()))?;
    dechrome::config::from_value(value).with_context(|| format!("{} ({what})", p.display()))
}

fn comment_mode(s: &str) -> Result<CommentMode, String> {
    CommentMode::from_name(s).ok_or_else(|| {
        let names: Vec<&str> = CommentMode::ALL.iter().map(|m| m.name()).collect();
        format!("expected one of {}", names.join(", "))
    })
}

impl SettingFlags {
    /// The `--config` file's settings (or the defaults) with the flags
    /// given on top, and `algorithm` when given.
    fn merged(&self, algorithm: Option<Algorithm>) -> anyhow::Result<ExtractorConfig> {
        let mut config: ExtractorConfig =
            json_config(self.config.as_deref(), "extraction settings")?;
        if let Some(algorithm) = algorithm {
            config.algorithm = algorithm;
        }
        if let Some(model) = &self.model {
            config.model = Some(model.clone());
        }
        if let Some(t) = self.threshold {
            config.threshold = Some(t);
        }
        if let Some(shift) = self.low_prose_shift {
            config.low_prose_shift = Some(shift);
        }
        if let Some(n) = self.max_bytes {
            config.max_bytes = n;
        }
        if let Some(n) = self.short_page_blocks {
            config.short_page_blocks = n;
        }
        if let Some(s) = self.page_timeout {
            config.page_timeout = Some(
                dechrome::config::page_timeout_from_secs(s)
                    .map_err(|e| anyhow::anyhow!("--page-timeout: {e}"))?,
            );
        }
        if let Some(mode) = self.comments {
            config.comments = mode;
        }
        if let Some(path) = &self.ad_hosts {
            config.classic.crunch_ad_hosts_file = Some(path.clone());
        }
        if let Some(c) = self.min_confidence {
            config.min_confidence = Some(c);
        }
        config.fast |= self.fast;
        config.fallback |= self.fallback;
        config.classic.crunch_retain_links |= self.retain_links;
        config.keep_captions |= self.keep_captions;
        config.keep_repeats |= self.keep_repeats;
        config.keep_unnamed_threads |= self.keep_unnamed_threads;
        Ok(config)
    }
}

impl ModelArgs {
    /// The settings these arguments ask for: the `--config` file's (or the
    /// defaults), with the flags given on top.
    pub fn settings(&self) -> anyhow::Result<ExtractorConfig> {
        self.flags.merged(self.algorithm.map(|a| a.0))
    }

    /// The extractor these arguments ask for.
    pub fn extractor(&self) -> anyhow::Result<Extractor> {
        self.extractor_with_structure(false)
    }

    /// The extractor these arguments ask for, recording the kept content's
    /// structure when `structure` (for Markdown and HTML output; the
    /// output format decides it, not the settings file).
    pub fn extractor_with_structure(&self, structure: bool) -> anyhow::Result<Extractor> {
        build(ExtractorConfig {
            structure,
            ..self.settings()?
        })
    }
}

impl EvalModelArgs {
    /// True when `--algorithm all` was asked for.
    pub fn all_algorithms(&self) -> bool {
        self.algorithm == Some(AlgorithmChoice::ALL)
    }

    /// The settings these arguments ask for; with `--algorithm all`, the
    /// `--config` file's algorithm.
    pub fn settings(&self) -> anyhow::Result<ExtractorConfig> {
        self.flags.merged(self.algorithm.and_then(|a| a.0))
    }

    /// An extractor for `algorithm` with these arguments' settings (for
    /// `eval --algorithm all`: the model applies to the forest only).
    pub fn extractor_for(&self, algorithm: Algorithm) -> anyhow::Result<Extractor> {
        let mut config = self.flags.merged(Some(algorithm))?;
        if !algorithm.needs_model() && self.all_algorithms() {
            config.model = None;
        }
        build(config)
    }
}

/// [`Extractor::from_config`], naming the model file when it is the one
/// that could not be loaded.
pub fn build(config: ExtractorConfig) -> anyhow::Result<Extractor> {
    let model = config.model.clone();
    Extractor::from_config(config).map_err(|e| {
        let of_model = match (&e, &model) {
            (dechrome::Error::Model(_), Some(_)) => true,
            (dechrome::Error::Io { path, .. }, Some(p)) => path == p,
            _ => false,
        };
        match model {
            Some(p) if of_model => anyhow::anyhow!("cannot load model {}: {e}", p.display()),
            _ => e.into(),
        }
    })
}

#[derive(clap::Args)]
struct BenchArgs {
    /// Pages: files or folders (walked for *.html, *.html.gz, *.warc.gz ...).
    #[arg(required = true)]
    inputs: Vec<String>,
    #[command(flatten)]
    model: ModelArgs,
    /// Rounds over the pages; the best round counts.
    #[arg(long, default_value_t = 3)]
    rounds: usize,
    /// Use at most this many pages (the first ones, in walk order).
    #[arg(long)]
    limit: Option<usize>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
    /// What to produce from each page: `text`, `markdown` or `html`.
    #[arg(long, value_name = "FORMAT", default_value = "text", value_parser = bench_output)]
    format: dechrome::bench::BenchOutput,
}

fn bench_output(s: &str) -> Result<dechrome::bench::BenchOutput, String> {
    use dechrome::bench::BenchOutput;
    match s {
        "text" => Ok(BenchOutput::Text),
        "markdown" => Ok(BenchOutput::Markdown),
        "html" => Ok(BenchOutput::Html),
        _ => Err("expected one of text, markdown, html".to_string()),
    }
}

#[derive(clap::Args)]
struct ExplainArgs {
    /// The page (HTML, gzip allowed).
    page: PathBuf,
    /// Folder for blocks.svg/png, cetr.svg/png, page.html and blocks.json.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// The page's gold text: a text file, or a WCXB ground-truth JSON.
    #[arg(long, value_name = "FILE")]
    gold: Option<PathBuf>,
    #[command(flatten)]
    model: ModelArgs,
}

fn explain(args: ExplainArgs) -> anyhow::Result<()> {
    let extractor = args.model.extractor()?;
    let bytes = std::fs::read(&args.page)
        .with_context(|| format!("cannot read {}", args.page.display()))?;
    let gold = match &args.gold {
        None => None,
        Some(p) => {
            let raw = std::fs::read_to_string(p)
                .with_context(|| format!("cannot read {}", p.display()))?;
            if p.extension().is_some_and(|e| e == "json") {
                let v: serde_json::Value = serde_json::from_str(&raw)?;
                Some(
                    v["ground_truth"]["main_content"]
                        .as_str()
                        .unwrap_or_default()
                        .to_string(),
                )
            } else {
                Some(raw)
            }
        }
    };
    let e = dechrome::explain::explain(&extractor, &bytes, gold.as_deref())?;
    for p in dechrome::explain::write_all(&e, &args.out)? {
        outln!("{}", p.display());
    }
    let kept = e.blocks.iter().filter(|b| b.kept).count();
    eprintln!(
        "{} blocks, {kept} kept, algorithm {}",
        e.blocks.len(),
        e.algorithm.name()
    );
    // What the selection rules did beyond the threshold, one line each.
    let mut overruled: Vec<(&str, usize)> = Vec::new();
    for b in &e.blocks {
        if let Some(r) = b.rule {
            let what = r.describe(b.kept);
            match overruled.iter_mut().find(|(w, _)| *w == what) {
                Some((_, n)) => *n += 1,
                None => overruled.push((what, 1)),
            }
        }
    }
    for (what, n) in overruled {
        eprintln!("  {n} block{} {what}", if n == 1 { "" } else { "s" });
    }
    Ok(())
}

fn bench(args: BenchArgs) -> anyhow::Result<()> {
    let structure = args.format != dechrome::bench::BenchOutput::Text;
    let extractor = args.model.extractor_with_structure(structure)?;
    let mut raw = Vec::new();
    let names: Vec<_> = args
        .inputs
        .iter()
        .map(|a| Ok::<_, String>(std::ffi::OsString::from(a)))
        .collect();
    let max_bytes = extractor.config().max_bytes;
    let pages = inputs::Inputs::new(
        Box::new(names.into_iter()),
        inputs::NameFilter::default(),
        max_bytes,
    );
    for item in pages.take(args.limit.unwrap_or(usize::MAX)) {
        let name = item.name;
        match item.source.read() {
            Ok((bytes, _)) => raw.push(bytes),
            Err(e) => anyhow::bail!("{name}: {e}"),
        }
    }
    anyhow::ensure!(!raw.is_empty(), "no pages to time");
    let pages = dechrome::bench::decode_pages(&raw, max_bytes);
    drop(raw);
    let text = match structure {
        true => Some(args.model.extractor_with_structure(false)?),
        false => None,
    };
    let report =
        dechrome::bench::run_with(&extractor, &pages, args.rounds, args.format, text.as_ref());
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        out!("{}", report.table());
    }
    Ok(())
}

/// Runs the CLI; returns the process exit code.
pub fn run() -> i32 {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Extract(a) => extract::run(a),
        Command::Train(a) => train::run(a).map(|_| 0),
        Command::Adapt(a) => adapt::run(a).map(|_| 0),
        Command::Eval(a) => eval::run(a).map(|_| 0),
        Command::Inspect(a) => inspect::run(a).map(|_| 0),
        Command::Bench(a) => bench(a).map(|_| 0),
        Command::Explain(a) => explain(a).map(|_| 0),
        Command::Annotate(a) => annotate::run(a).map(|_| 0),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            if is_broken_pipe(&e) {
                return 0;
            }
            eprintln!("dechrome: error: {e:#}");
            2
        }
    }
}

/// True when the error chain holds a broken pipe (stdout closed early).
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// A progress bar on stderr when it is a terminal, hidden otherwise.
pub fn progress(len: u64, what: &str) -> indicatif::ProgressBar {
    styled(
        indicatif::ProgressBar::new(len),
        &format!("{{spinner}} {what} {{pos}}/{{len}} [{{bar:30}}] {{per_sec}} eta {{eta}}"),
    )
}

/// A spinner with a count and a rate on stderr, for work of unknown size,
/// when stderr is a terminal; hidden otherwise.
pub fn spinner(what: &str) -> indicatif::ProgressBar {
    let pb = styled(
        indicatif::ProgressBar::new_spinner(),
        &format!("{{spinner}} {what} {{pos}} {{per_sec}} {{elapsed}}"),
    );
    if !pb.is_hidden() {
        pb.enable_steady_tick(std::time::Duration::from_millis(200));
    }
    pb
}

/// `pb` with `template` when stderr is a terminal, a hidden bar otherwise.
fn styled(pb: indicatif::ProgressBar, template: &str) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    pb.set_style(
        indicatif::ProgressStyle::with_template(template)
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    pb
}
