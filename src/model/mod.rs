//! Stage 4: deciding which blocks are content.
//!
//! [`Gbdt`] is the trained ensemble (behind linfa's traits), [`classic`] the
//! unsupervised extractors (CETR-KM is also the fallback), and [`Model`] the versioned file that
//! carries a trained ensemble with everything needed to use it.

pub mod artifact;
pub mod classic;
pub mod confidence;
pub mod gbdt;
pub mod kept_shape;
pub mod legacy;
pub mod page_type;
pub mod selection;

pub use artifact::{Model, TrainingMeta, FORMAT_VERSION, MAGIC};
pub use confidence::ConfidenceModel;
pub use gbdt::{Gbdt, GbdtConfig, GbdtParams};
pub use page_type::{PageType, PageTypeGuess, PageTypeModel};
pub use selection::LearnedSelection;
