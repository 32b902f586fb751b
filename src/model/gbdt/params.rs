//! [`GbdtParams`]: the ensemble's training parameters in linfa's style,
//! unchecked until `fit` checks them ([`ParamGuard`]).

use linfa::ParamGuard;

use crate::config::GbdtConfig;
use crate::error::{Error, Result};

/// Unchecked parameters in linfa's style: build, then `fit` checks them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GbdtParams(GbdtConfig);

impl GbdtParams {
    /// Default parameters.
    pub fn new() -> Self {
        Self::default()
    }
    /// Sets the number of trees.
    pub fn n_trees(mut self, n: usize) -> Self {
        self.0.n_trees = n;
        self
    }
    /// Sets the maximum depth.
    pub fn max_depth(mut self, d: usize) -> Self {
        self.0.max_depth = d;
        self
    }
    /// Sets the learning rate.
    pub fn learning_rate(mut self, lr: f32) -> Self {
        self.0.learning_rate = lr;
        self
    }
    /// Sets the row subsampling share.
    pub fn subsample(mut self, s: f32) -> Self {
        self.0.subsample = s;
        self
    }
    /// Sets the seed.
    pub fn seed(mut self, seed: u64) -> Self {
        self.0.seed = seed;
        self
    }
}

impl From<GbdtConfig> for GbdtParams {
    fn from(c: GbdtConfig) -> Self {
        GbdtParams(c)
    }
}

impl ParamGuard for GbdtParams {
    type Checked = GbdtConfig;
    type Error = Error;

    fn check_ref(&self) -> Result<&GbdtConfig> {
        self.0.check()?;
        Ok(&self.0)
    }

    fn check(self) -> Result<GbdtConfig> {
        self.0.check()?;
        Ok(self.0)
    }
}
