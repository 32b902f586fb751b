//! `dechrome adapt`: a trained model carried on with one site's labelled
//! pages (the library's [`dechrome::train::adapt`]), written as an ordinary
//! model file.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;

use dechrome::train::adapt::{adapt_corpora, AdaptConfig};
use dechrome::Model;

/// Arguments of `adapt`.
#[derive(Args)]
pub struct AdaptArgs {
    /// The model to start from (default: the model embedded in this build).
    #[arg(long, value_name = "FILE")]
    model: Option<PathBuf>,
    /// The site's labelled pages (a `dechrome annotate` folder, or any
    /// layout `train --corpus` reads); repeat for several.
    #[arg(long, value_name = "DIR", required = true)]
    corpus: Vec<PathBuf>,
    /// Where to write the adapted model file.
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Trees added to the stage that decides.
    #[arg(long, value_name = "N")]
    trees: Option<usize>,
    /// Seed of the added trees' sampling.
    #[arg(long)]
    seed: Option<u64>,
    /// Adaptation settings as JSON (fields as in `AdaptConfig`; missing ones default).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
}

/// Runs `adapt`.
pub fn run(args: AdaptArgs) -> anyhow::Result<()> {
    let start = Instant::now();
    let mut cfg: AdaptConfig = super::json_config(args.config.as_deref(), "adaptation settings")?;
    if let Some(n) = args.trees {
        cfg.trees = n;
    }
    if let Some(s) = args.seed {
        cfg.seed = s;
    }
    cfg.check()?;
    let base = match &args.model {
        Some(p) => {
            Model::load(p).map_err(|e| anyhow::anyhow!("cannot load model {}: {e}", p.display()))?
        }
        None => Model::embedded()?,
    };
    let (adapted, skipped) = adapt_corpora(&base, &args.corpus, &cfg)?;
    for (id, e) in &skipped {
        eprintln!("skipped page {id}: {e}");
    }
    adapted.model.save(&args.out)?;
    outln!(
        "adapted on {} pages ({} labelled blocks): {} trees added to stage {}, {} id/class tokens updated, threshold {}; wrote {} in {:.1} s",
        adapted.pages,
        adapted.rows,
        cfg.trees,
        adapted.stage,
        adapted.tokens_updated,
        adapted.model.threshold,
        args.out.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
