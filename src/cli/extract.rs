//! `dechrome extract`: pages in, main text out, in parallel, in input order.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::Context;
use clap::{Args, ValueEnum};
use rayon::prelude::*;

use super::inputs::{expand, Input};
use super::ModelArgs;
use dechrome::output::{render, Format};

#[derive(Clone, Copy, Debug, ValueEnum)]
enum FormatArg {
    Text,
    Json,
    Jsonl,
}

/// Arguments of `extract`.
#[derive(Args)]
pub struct ExtractArgs {
    /// Pages: files, folders (walked for *.html, *.htm, *.html.gz ...) or `-` for stdin.
    #[arg(required_unless_present = "files_from")]
    inputs: Vec<String>,
    /// Also read page paths from this file, one per line (`-`: standard input).
    #[arg(long, value_name = "FILE")]
    files_from: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = FormatArg::Text)]
    format: FormatArg,
    #[command(flatten)]
    model: ModelArgs,
    /// Worker threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Write to this file (whole or not at all) instead of stdout.
    #[arg(long, short, value_name = "FILE")]
    output: Option<PathBuf>,
}

/// Pages handled per parallel batch: output stays in input order and memory
/// stays bounded by one batch.
const BATCH: usize = 64;

/// Runs `extract`; returns the exit code.
pub fn run(args: ExtractArgs) -> anyhow::Result<i32> {
    let extractor = args.model.extractor()?;
    let format = match args.format {
        FormatArg::Text => Format::Text,
        FormatArg::Json => Format::Json,
        FormatArg::Jsonl => Format::Jsonl,
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads.unwrap_or(0))
        .build()
        .context("cannot start worker threads")?;
    let mut names = args.inputs.clone();
    if let Some(list) = &args.files_from {
        names.extend(
            super::inputs::read_list(list)
                .with_context(|| format!("cannot read the list {list}"))?,
        );
    }
    let inputs = expand(&names);
    let pb = super::progress(inputs.len() as u64, "pages");
    let (tmp, mut sink): (Option<PathBuf>, Box<dyn Write>) = match &args.output {
        Some(path) => {
            let dir = path
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(std::path::Path::new("."));
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
            let f = std::fs::File::create(&tmp)
                .with_context(|| format!("cannot create {}", tmp.display()))?;
            (Some(tmp), Box::new(std::io::BufWriter::new(f)))
        }
        None => (
            None,
            Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
        ),
    };
    let mut failed = 0usize;
    let mut written = 0usize;
    // Ctrl-C stops after the batch in flight, so every line written is whole.
    let interrupted = Arc::new(AtomicBool::new(false));
    {
        let flag = interrupted.clone();
        // A second handler cannot be installed (tests call run twice in one
        // process only through the binary); ignore that case.
        let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
    }
    let result = (|| -> anyhow::Result<()> {
        for batch in inputs.chunks(BATCH) {
            if interrupted.load(Ordering::SeqCst) {
                break;
            }
            let rendered: Vec<(String, bool)> = pool.install(|| {
                batch
                    .par_iter()
                    .map(|item| {
                        let (name, result) = match item {
                            Ok(input) => (input.name(), extract_one(&extractor, input)),
                            Err((name, err)) => (name.clone(), Err(err.clone())),
                        };
                        let ok = result.is_ok();
                        if let Err(e) = &result {
                            if matches!(format, Format::Text) {
                                eprintln!("dechrome: {name}: {e}");
                            }
                        }
                        (render(&name, &result, format), ok)
                    })
                    .collect()
            });
            for (text, ok) in rendered {
                if !ok {
                    failed += 1;
                }
                sink.write_all(text.as_bytes())?;
                written += 1;
                pb.inc(1);
            }
        }
        sink.flush()?;
        Ok(())
    })();
    pb.finish_and_clear();
    drop(sink);
    match (result, tmp, &args.output) {
        (Ok(()), Some(tmp), Some(out)) => {
            if let Err(e) = std::fs::rename(&tmp, out) {
                let _ = std::fs::remove_file(&tmp);
                return Err(e).with_context(|| format!("cannot write {}", out.display()));
            }
        }
        (Err(e), Some(tmp), _) => {
            let _ = std::fs::remove_file(tmp);
            return Err(e);
        }
        (Err(e), None, _) => return Err(e),
        _ => {}
    }
    if interrupted.load(Ordering::SeqCst) {
        eprintln!(
            "dechrome: interrupted after {written} of {} pages",
            inputs.len()
        );
        return Ok(130);
    }
    if failed > 0 {
        eprintln!("dechrome: {failed} of {} pages failed", inputs.len());
        return Ok(1);
    }
    Ok(0)
}

fn extract_one(
    extractor: &dechrome::Extractor,
    input: &Input,
) -> Result<dechrome::Extraction, String> {
    let bytes = input.read().map_err(|e| e.to_string())?;
    extractor
        .extract_bytes(&bytes, None)
        .map_err(|e| e.to_string())
}
