//! Model files of earlier format versions, still read: bincode bodies are
//! not self-describing, so each old layout has a type of its own, turned
//! into today's [`Model`] with the selection its extraction used.
//!
//! - Version 2: no learned selection ([`LearnedSelection::default`]).
//! - Version 3: a learned selection without the forum pages' comments
//!   share (theirs is the other pages' share), and no page-type
//!   classifier.

use serde::Deserialize;

use super::artifact::{Model, TrainingMeta};
use super::{Gbdt, LearnedSelection};
use crate::config::CetrConfig;
use crate::features::CssOdds;

/// The earlier versions this build reads.
pub const READ_VERSIONS: [u32; 2] = [2, 3];

/// Decodes the body of a model file of an earlier `version` (one of
/// [`READ_VERSIONS`]); returns the model and the bytes read.
pub fn decode<C: bincode::config::Config>(
    version: u32,
    body: &[u8],
    config: C,
) -> Result<(Model, usize), bincode::error::DecodeError> {
    if version == 2 {
        let (m, used): (ModelV2, usize) = bincode::serde::decode_from_slice(body, config)?;
        Ok((m.into(), used))
    } else {
        let (m, used): (ModelV3, usize) = bincode::serde::decode_from_slice(body, config)?;
        Ok((m.into(), used))
    }
}

#[derive(Deserialize)]
struct ModelV2 {
    schema: Vec<String>,
    schema_hash: String,
    css_odds: CssOdds,
    ensemble: Gbdt,
    stage2: Option<Gbdt>,
    threshold: f32,
    cetr: CetrConfig,
    meta: TrainingMeta,
}

#[derive(Deserialize)]
struct SelectionV3 {
    low_prose_shift: f32,
    comments_main_share: f32,
}

#[derive(Deserialize)]
struct ModelV3 {
    schema: Vec<String>,
    schema_hash: String,
    css_odds: CssOdds,
    ensemble: Gbdt,
    stage2: Option<Gbdt>,
    threshold: f32,
    selection: SelectionV3,
    cetr: CetrConfig,
    meta: TrainingMeta,
}

impl From<ModelV2> for Model {
    fn from(m: ModelV2) -> Model {
        Model {
            schema: m.schema,
            schema_hash: m.schema_hash,
            css_odds: m.css_odds,
            ensemble: m.ensemble,
            stage2: m.stage2,
            threshold: m.threshold,
            selection: LearnedSelection::default(),
            page_type: None,
            cetr: m.cetr,
            meta: m.meta,
        }
    }
}

impl From<ModelV3> for Model {
    fn from(m: ModelV3) -> Model {
        Model {
            schema: m.schema,
            schema_hash: m.schema_hash,
            css_odds: m.css_odds,
            ensemble: m.ensemble,
            stage2: m.stage2,
            threshold: m.threshold,
            selection: LearnedSelection {
                low_prose_shift: m.selection.low_prose_shift,
                comments_main_share: m.selection.comments_main_share,
                forum_comments_main_share: m.selection.comments_main_share,
            },
            page_type: None,
            cetr: m.cetr,
            meta: m.meta,
        }
    }
}
