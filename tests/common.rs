//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use dechrome::train::{prepare_all, PreparedPage};
use dechrome::{CetrConfig, TrainConfig};

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The small annotated sample shipped in the repository.
pub fn sample_dir() -> PathBuf {
    root().join("training-data/sample")
}

/// The shared corpora, when they are beside the repository.
pub fn shared_corpora() -> Option<PathBuf> {
    let p = root().join("../shared/corpora");
    p.is_dir().then_some(p)
}

/// A training configuration small enough for tests: 3 folds, 40 trees.
pub fn small_config() -> TrainConfig {
    let mut c = TrainConfig {
        folds: 3,
        inner_folds: 3,
        css_min_domains: 2,
        ..TrainConfig::default()
    };
    c.ensemble.n_trees = 40;
    c
}

/// The sample's pages, prepared for training.
pub fn prepared_sample(cfg: &TrainConfig) -> Vec<PreparedPage> {
    let pages = dechrome::corpus::read_wcxb(&sample_dir()).expect("sample corpus");
    let (ok, failed) = prepare_all(&pages, cfg, &CetrConfig::default(), &|| {});
    assert!(failed.is_empty(), "sample pages failed: {}", failed.len());
    ok
}

/// Reads a fixture file.
pub fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(root().join("tests/fixtures").join(name)).expect("fixture")
}

/// Path of the built `dechrome` binary.
pub fn bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_dechrome"))
}
