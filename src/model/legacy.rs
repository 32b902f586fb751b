//! Model files of earlier format versions, still read: bincode bodies are
//! not self-describing, so each old layout has a type of its own, turned
//! into today's [`Model`] with the selection its extraction used.
//!
//! - Version 2: no learned selection ([`LearnedSelection::default`]).
//! - Version 3: a learned selection without the forum pages' comments
//!   share (theirs is the other pages' share), and no page-type
//!   classifier.
//! - Version 4: no confidence model.
//! - Version 5: today's fields, the trees' nodes written one by one
//!   (`gbdt::wire` reads both tree layouts, so today's type decodes it).

use serde::Deserialize;

use super::artifact::{Model, TrainingMeta};
use super::{Gbdt, LearnedSelection};
use crate::config::CetrConfig;
use crate::features::CssOdds;

/// The earlier versions this build reads.
pub const READ_VERSIONS: [u32; 4] = [2, 3, 4, 5];

/// Decodes the body of a model file of an earlier `version` (one of
/// [`READ_VERSIONS`]); returns the model and the bytes read.
pub fn decode<C: bincode::config::Config>(
    version: u32,
    body: &[u8],
    config: C,
) -> Result<(Model, usize), bincode::error::DecodeError> {
    match version {
        2 => {
            let (m, used): (ModelV2, usize) = bincode::serde::decode_from_slice(body, config)?;
            Ok((
                m.core
                    .into_model(LearnedSelection::default(), m.cetr, m.meta),
                used,
            ))
        }
        3 => {
            let (m, used): (ModelV3, usize) = bincode::serde::decode_from_slice(body, config)?;
            let selection = LearnedSelection {
                low_prose_shift: m.selection.low_prose_shift,
                comments_main_share: m.selection.comments_main_share,
                forum_comments_main_share: m.selection.comments_main_share,
            };
            Ok((m.core.into_model(selection, m.cetr, m.meta), used))
        }
        5 => bincode::serde::decode_from_slice(body, config),
        _ => {
            // Version 4 is today's layout without its last field, the
            // optional confidence model: bincode writes `None` as one zero
            // byte, so the body with that byte appended decodes as today's.
            let mut whole = Vec::with_capacity(body.len() + 1);
            whole.extend_from_slice(body);
            whole.push(0);
            let (m, used): (Model, usize) = bincode::serde::decode_from_slice(&whole, config)?;
            Ok((m, used.saturating_sub(1)))
        }
    }
}

/// The fields every version begins with, in their order (bincode writes a
/// nested struct's fields inline, so this reads them as the flat layout).
#[derive(Deserialize)]
struct Core {
    schema: Vec<String>,
    schema_hash: String,
    css_odds: CssOdds,
    ensemble: Gbdt,
    stage2: Option<Gbdt>,
    threshold: f32,
}

impl Core {
    /// Today's model from the shared fields and what a version adds,
    /// without the parts it did not have (page type, confidence).
    fn into_model(
        self,
        selection: LearnedSelection,
        cetr: CetrConfig,
        meta: TrainingMeta,
    ) -> Model {
        Model {
            schema: self.schema,
            schema_hash: self.schema_hash,
            css_odds: self.css_odds,
            ensemble: self.ensemble,
            stage2: self.stage2,
            threshold: self.threshold,
            selection,
            page_type: None,
            cetr,
            meta,
            confidence: None,
        }
    }
}

#[derive(Deserialize)]
struct ModelV2 {
    core: Core,
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
    core: Core,
    selection: SelectionV3,
    cetr: CetrConfig,
    meta: TrainingMeta,
}
