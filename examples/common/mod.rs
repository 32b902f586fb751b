//! What the lab examples share: the shipped model's four training corpora,
//! read and prepared as `dechrome train` prepares them.

use std::path::{Path, PathBuf};

use dechrome::train::{prepare_all, read_corpora, PreparedPage};
use dechrome::{CetrConfig, TrainConfig};

/// The four training corpora of the shipped model.
pub const CORPORA: [&str; 4] = [
    "wcxb-dev",
    "fundus-news",
    "newspaper-news",
    "trafilatura-eval",
];

/// The `../shared/corpora` folder beside the repository.
pub fn default_corpora() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora")
}

/// Every page of the four corpora under `corpora`, prepared with `cfg`;
/// prints how many were prepared and skipped.
pub fn prepare_four(
    corpora: &Path,
    cfg: &TrainConfig,
    cetr: &CetrConfig,
) -> Result<Vec<PreparedPage>, Box<dyn std::error::Error>> {
    let dirs: Vec<PathBuf> = CORPORA.iter().map(|c| corpora.join(c)).collect();
    let pages = read_corpora(&dirs)?;
    let (prepared, skipped) = prepare_all(&pages, cfg, cetr, &|| {});
    eprintln!(
        "{} pages prepared, {} skipped",
        prepared.len(),
        skipped.len()
    );
    Ok(prepared)
}
