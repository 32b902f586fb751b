//! Stage 4: deciding which blocks are content.
//!
//! [`Gbdt`] is the trained ensemble (behind linfa's traits), [`kmeans`] the
//! unsupervised CETR-KM fallback, and [`Model`] the versioned file that
//! carries a trained ensemble with everything needed to use it.

pub mod artifact;
pub mod gbdt;
pub mod kmeans;

pub use artifact::{Model, TrainingMeta, FORMAT_VERSION, MAGIC};
pub use gbdt::{Gbdt, GbdtConfig, GbdtParams};
