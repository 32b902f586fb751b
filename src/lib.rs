//! # dechrome
//!
//! Separates a web page's main content (article text, posts, comments,
//! documentation) from its chrome (navigation, ads, footers, related links)
//! with a trained block classifier, in the line of Dragnet (2013).
//!
//! Data flows one way: bytes → [`parse`] → [`blocks`] → [`features`] →
//! [`model`] → selection ([`extract`]) → [`output`]. Training ([`train`]) and
//! evaluation ([`eval`]) use all stages; the extraction path never uses them.
//! Settings ([`config`]), errors ([`error`]) and text helpers ([`text`]) lie
//! below every stage and use none.
//!
//! ```
//! use dechrome::{Extractor, ExtractorConfig};
//!
//! let html = r#"<html><head><title>Gulls</title></head><body>
//!   <nav><a href="/">Home</a> <a href="/birds">Birds</a> <a href="/about">About</a></nav>
//!   <article><h1>The herring gull</h1>
//!   <p>The herring gull is a large gull found across the northern hemisphere. It nests
//!   on coasts and, more and more, on the roofs of towns, where it feeds on what people
//!   leave behind. Adults are grey above and white below, with pink legs.</p>
//!   <p>Young birds are mottled brown and take four years to reach adult plumage.</p>
//!   </article><footer><a href="/about">About us</a> · <a href="/contact">Contact</a> ·
//!   <a href="/privacy">Privacy</a> · <a href="/terms">Terms</a><br>© 2024 Birds of the coast</footer>
//! </body></html>"#;
//!
//! // The shipped model is embedded in the library.
//! let extractor = Extractor::with_embedded_model(ExtractorConfig::default())?;
//! let page = extractor.extract_str(html)?;
//! assert!(page.text.contains("The herring gull is a large gull"));
//! assert!(!page.text.contains("Home"));
//! assert!(!page.text.contains("Privacy"));
//! # Ok::<(), dechrome::Error>(())
//! ```
#![deny(missing_docs)]

pub mod algorithm;
pub mod bench;
pub mod blocks;
pub mod config;
pub mod corpus;
pub mod error;
pub mod eval;
#[cfg(feature = "explain")]
pub mod explain;
pub mod extract;
pub mod features;
pub mod guard;
pub mod input;
pub mod metadata;
pub mod model;
pub mod output;
mod par;
pub mod parse;
pub mod pending_file;
pub mod select;
pub mod text;
pub mod train;
pub mod warc;

pub use algorithm::Algorithm;
pub use config::{CetrConfig, ClassicConfig, ExtractorConfig, TrainConfig};
pub use error::{CorpusError, Error, ModelError, PageError, Result, TrainingError, WarcError};
pub use extract::{BlockDecision, BlockPlace, Extraction, Extractor};
pub use features::FeatureSet;
pub use model::{Gbdt, GbdtConfig, GbdtParams, Model};
