//! The model file: one versioned binary holding a trained ensemble and all
//! it needs, loadable with no training code.
//!
//! Layout (all integers little-endian):
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `DECHROME` |
//! | 4 | format version ([`FORMAT_VERSION`]; versions 2 to 5 are read too: [`super::legacy`]) |
//! | 8 | body length |
//! | 4 | CRC-32 of the body |
//! | n | body: [`Model`] encoded with bincode 2 (serde, standard config) |
//!
//! Loading checks the magic, the version, the declared length against the
//! real one and against [`MAX_BODY`] (before allocating anything), the
//! checksum, decodes with bincode's allocation limit, then validates the
//! feature schema against this build's and every tree's structure.

use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::config::CetrConfig;
use crate::error::{Error, ModelError, Result};
use crate::features::{schema_hash, CssOdds, FeatureSet};
use crate::model::page_type::PageTypeModel;
use crate::model::ConfidenceModel;
use crate::model::Gbdt;
use crate::model::{legacy, LearnedSelection};

/// First bytes of every model file.
pub const MAGIC: &[u8; 8] = b"DECHROME";
/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 6;
/// Largest body accepted (256 MiB): a header declaring more is refused
/// before any allocation.
pub const MAX_BODY: u64 = 256 * 1024 * 1024;
const HEADER_LEN: usize = 8 + 4 + 8 + 4;

/// Where a model came from: data, seed and cross-validated metrics.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TrainingMeta {
    /// dechrome version that trained it.
    pub dechrome_version: String,
    /// SHA-256 (hex) over the training pages and their gold text.
    pub dataset_hash: String,
    /// Pages trained on.
    pub pages: u64,
    /// Blocks (rows) trained on.
    pub blocks: u64,
    /// The training seed.
    pub seed: u64,
    /// The training configuration, as JSON.
    pub train_config_json: String,
    /// Cross-validation metrics, as JSON.
    pub metrics_json: String,
}

/// A trained model: feature schema, learned tables, ensemble, threshold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Model {
    /// Feature names, in the order the ensemble reads them.
    pub schema: Vec<String>,
    /// Hash of `schema`.
    pub schema_hash: String,
    /// Learned id/class token odds.
    pub css_odds: CssOdds,
    /// The first-stage ensemble (reads the schema's features).
    pub ensemble: Gbdt,
    /// The second-stage ensemble, if any: reads the schema's features and
    /// the `stack.` columns built from the first stage's probabilities
    /// ([`crate::features::stacking`]).
    pub stage2: Option<Gbdt>,
    /// Blocks with probability at or above this are content.
    pub threshold: f32,
    /// The selection constants chosen with the threshold, out of fold
    /// (the evidence is in the cross-validation report, `meta.metrics_json`).
    pub selection: LearnedSelection,
    /// The page-type classifier, when the model was trained with one
    /// (cross-validation gives the probabilities it learns from).
    pub page_type: Option<PageTypeModel>,
    /// CETR settings the features were computed with.
    pub cetr: CetrConfig,
    /// Training provenance.
    pub meta: TrainingMeta,
    /// The confidence model, when the model was trained with one: it
    /// estimates each page's word F1 ([`crate::model::confidence`]). Last
    /// in the layout, so that a format-4 body reads as one without it.
    pub confidence: Option<ConfidenceModel>,
}

/// The format version a model file's first bytes state, or `None` when
/// they do not start with [`MAGIC`] and a version.
pub fn stated_version(bytes: &[u8]) -> Option<u32> {
    let version = bytes.strip_prefix(MAGIC.as_slice())?.get(..4)?;
    Some(u32::from_le_bytes(version.try_into().ok()?))
}

fn bincode_config() -> impl bincode::config::Config {
    bincode::config::standard().with_limit::<{ MAX_BODY as usize }>()
}

impl Model {
    /// Encodes the model into the file format.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let body = bincode::serde::encode_to_vec(self, bincode_config())
            .map_err(|e| Error::Model(ModelError::Invalid(format!("cannot encode: {e}"))))?;
        let mut out = Vec::with_capacity(HEADER_LEN + body.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&(body.len() as u64).to_le_bytes());
        out.extend_from_slice(&crc32fast::hash(&body).to_le_bytes());
        out.extend_from_slice(&body);
        Ok(out)
    }

    /// Decodes and validates a model file's bytes (see the module docs).
    /// The schema is checked against this build's standard feature set.
    pub fn from_bytes(bytes: &[u8]) -> std::result::Result<Model, ModelError> {
        if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
            return Err(ModelError::BadMagic);
        }
        if bytes.len() < HEADER_LEN {
            return Err(ModelError::Truncated(format!(
                "{} bytes, the header alone has {HEADER_LEN}",
                bytes.len()
            )));
        }
        // The magic and the header's length were checked above.
        let version = stated_version(bytes).ok_or(ModelError::BadMagic)?;
        if version != FORMAT_VERSION && !legacy::READ_VERSIONS.contains(&version) {
            return Err(ModelError::UnsupportedVersion {
                found: version,
                supported: FORMAT_VERSION,
            });
        }
        let len = u64::from_le_bytes(bytes[12..20].try_into().expect("8 bytes"));
        if len > MAX_BODY {
            return Err(ModelError::TooLarge {
                declared: len,
                limit: MAX_BODY,
            });
        }
        let body = &bytes[HEADER_LEN..];
        if (body.len() as u64) < len {
            return Err(ModelError::Truncated(format!(
                "body has {} of {len} declared bytes",
                body.len()
            )));
        }
        if (body.len() as u64) > len {
            return Err(ModelError::Invalid(format!(
                "{} bytes after the declared body",
                body.len() as u64 - len
            )));
        }
        let crc = u32::from_le_bytes(bytes[20..24].try_into().expect("4 bytes"));
        if crc32fast::hash(body) != crc {
            return Err(ModelError::Checksum);
        }
        let decode_error = |e: bincode::error::DecodeError| ModelError::Decode(e.to_string());
        let (model, used): (Model, usize) = if version == FORMAT_VERSION {
            bincode::serde::decode_from_slice(body, bincode_config()).map_err(decode_error)?
        } else {
            legacy::decode(version, body, bincode_config()).map_err(decode_error)?
        };
        if used != body.len() {
            return Err(ModelError::Decode("trailing bytes in the body".into()));
        }
        model.validate()?;
        check_memory(&model, body.len() as u64)?;
        Ok(model)
    }

    /// The feature set this model reads: the standard set, or the set with
    /// site columns (a model trained with site context).
    pub fn feature_set(&self) -> FeatureSet {
        FeatureSet::for_schema(&self.schema).unwrap_or_default()
    }

    /// True when the model reads site columns (it was trained with site
    /// context; see [`crate::features::site`]).
    pub fn uses_site_context(&self) -> bool {
        self.feature_set().has_site()
    }

    /// Checks internal consistency and the schema against this build:
    /// the standard schema or the schema with site columns.
    pub fn validate(&self) -> std::result::Result<(), ModelError> {
        if schema_hash(&self.schema) != self.schema_hash {
            return Err(ModelError::Invalid(
                "schema hash does not match the schema".into(),
            ));
        }
        let Some(ours) = FeatureSet::for_schema(&self.schema) else {
            let ours = FeatureSet::standard();
            return Err(ModelError::SchemaMismatch {
                model: self.schema.len(),
                model_hash: self.schema_hash.clone(),
                ours: ours.len(),
                ours_hash: ours.schema_hash(),
            });
        };
        if self.ensemble.n_features != self.schema.len() {
            return Err(ModelError::Invalid(format!(
                "ensemble reads {} features, schema has {}",
                self.ensemble.n_features,
                self.schema.len()
            )));
        }
        if let Some(s2) = &self.stage2 {
            let want = ours.stacked_names().len();
            if s2.n_features != want {
                return Err(ModelError::Invalid(format!(
                    "second stage reads {} features, the stacked schema has {want}",
                    s2.n_features
                )));
            }
            s2.validate().map_err(ModelError::Invalid)?;
        }
        if !(0.0..=1.0).contains(&self.threshold) {
            return Err(ModelError::Invalid(format!(
                "threshold {} outside 0..=1",
                self.threshold
            )));
        }
        self.selection.check().map_err(ModelError::Invalid)?;
        if let Some(pt) = &self.page_type {
            pt.validate().map_err(ModelError::Invalid)?;
        }
        if let Some(c) = &self.confidence {
            c.validate().map_err(ModelError::Invalid)?;
        }
        self.cetr
            .check()
            .map_err(|e| ModelError::Invalid(format!("CETR settings: {e}")))?;
        self.ensemble.validate().map_err(ModelError::Invalid)
    }

    /// Reads and validates a model file.
    pub fn load(path: impl AsRef<Path>) -> Result<Model> {
        let path = path.as_ref();
        let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
        if meta.len() > MAX_BODY + HEADER_LEN as u64 {
            return Err(ModelError::TooLarge {
                declared: meta.len(),
                limit: MAX_BODY,
            }
            .into());
        }
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        Ok(Model::from_bytes(&bytes)?)
    }

    /// Writes the model file whole or not at all (temporary file, then rename).
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        write_atomically(path.as_ref(), &self.to_bytes()?)
    }

    /// The model shipped with this build (trained on the four annotated
    /// corpora).
    pub fn embedded() -> Result<Model> {
        if EMBEDDED.is_empty() {
            return Err(ModelError::Truncated("this build embeds no model".into()).into());
        }
        Ok(Model::from_bytes(EMBEDDED)?)
    }

    /// The fast model shipped with this build: trained on the same pages
    /// with one ensemble per stage ([`ExtractorConfig::fast`](crate::ExtractorConfig::fast)).
    pub fn embedded_fast() -> Result<Model> {
        if EMBEDDED_FAST.is_empty() {
            return Err(ModelError::Truncated("this build embeds no fast model".into()).into());
        }
        Ok(Model::from_bytes(EMBEDDED_FAST)?)
    }
}

/// The shipped model's bytes (empty without the `embedded-model` feature).
#[cfg(feature = "embedded-model")]
pub const EMBEDDED: &[u8] = include_bytes!("../../models/dechrome-v1.model");
/// The shipped model's bytes (empty without the `embedded-model` feature).
#[cfg(not(feature = "embedded-model"))]
pub const EMBEDDED: &[u8] = &[];
/// The shipped fast model's bytes (empty without the `embedded-model` feature).
#[cfg(feature = "embedded-model")]
pub const EMBEDDED_FAST: &[u8] = include_bytes!("../../models/dechrome-fast.model");
/// The shipped fast model's bytes (empty without the `embedded-model` feature).
#[cfg(not(feature = "embedded-model"))]
pub const EMBEDDED_FAST: &[u8] = &[];

/// Writes `bytes` to `path` through a temporary file in the same folder,
/// renamed into place once complete, so readers never see a partial file.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    // The file is closed at the end of this block, before the rename;
    // on an error `pending` is dropped and removes the temporary file.
    let pending = {
        let (pending, mut file) =
            crate::pending_file::PendingFile::create(path).map_err(|e| Error::io(path, e))?;
        file.write_all(bytes)
            .and_then(|()| file.sync_all())
            .map_err(|e| Error::io(path, e))?;
        pending
    };
    pending.commit()
}

/// In-memory bytes allowed per byte of a model file's body. Trained
/// models take about 2.5 (the shipped one's two stages: 2.2 MB in memory,
/// the AVX-512 layout included, for an 872 KB body); the factor leaves
/// room for deep, sparse trees.
pub const MEMORY_PER_FILE_BYTE: u64 = 16;

/// In-memory bytes any model may take whatever its file's size.
pub const MEMORY_FLOOR: u64 = 64 * 1024 * 1024;

/// Refuses a model whose ensembles would take more memory than
/// [`MEMORY_PER_FILE_BYTE`] per byte of its body plus [`MEMORY_FLOOR`].
fn check_memory(model: &Model, body_len: u64) -> std::result::Result<(), ModelError> {
    let bytes =
        model.ensemble.memory_estimate() + model.stage2.as_ref().map_or(0, |s| s.memory_estimate());
    let limit = body_len
        .saturating_mul(MEMORY_PER_FILE_BYTE)
        .saturating_add(MEMORY_FLOOR);
    if bytes > limit {
        return Err(ModelError::TooCostly { bytes, limit });
    }
    Ok(())
}
