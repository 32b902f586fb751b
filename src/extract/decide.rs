//! The decision stage of extraction: every block's content probability,
//! from the trained model (both stages) or an unsupervised algorithm, and
//! the algorithm that decided.

use super::{Algorithm, Extractor};
use crate::blocks::Blocks;
use crate::error::Result;
use crate::features::site::SiteRows;
use crate::features::{stacking, PageContext};
use crate::model::classic::{self, Classic};
use crate::model::gbdt::PackedEnsemble;
use crate::model::Model;
use crate::parse::TimeBudget;

impl Extractor {
    /// Content probability of every block, and the algorithm that decided
    /// (the forest, or the CETR-KM fallback when the forest's output is
    /// empty or degenerate on this page).
    pub fn decide(&self, blocks: &Blocks) -> (Vec<f32>, Algorithm) {
        self.decide_in_site(blocks, None)
    }

    /// No block kept: what a page that ran out of time gets (never without
    /// a budget).
    fn nothing_decided(&self, blocks: &Blocks) -> (Vec<f32>, Algorithm) {
        (vec![0.0; blocks.blocks.len()], self.algorithm())
    }

    /// [`Extractor::decide`] with the page's site rows (see
    /// [`Extractor::extract_bytes_in_site`]).
    pub fn decide_in_site(
        &self,
        blocks: &Blocks,
        site: Option<&SiteRows>,
    ) -> (Vec<f32>, Algorithm) {
        // Without a budget nothing times out.
        self.decide_within(blocks, site, None)
            .unwrap_or_else(|_| self.nothing_decided(blocks))
    }

    /// [`Extractor::decide_in_site`] within the page's time budget, checked
    /// between the model's steps (features, each stage's prediction).
    pub(super) fn decide_within(
        &self,
        blocks: &Blocks,
        site: Option<&SiteRows>,
        budget: Option<TimeBudget>,
    ) -> Result<(Vec<f32>, Algorithm)> {
        let as_probs = |v: Vec<bool>| v.into_iter().map(|c| if c { 1.0 } else { 0.0 }).collect();
        let classic_cfg = &self.config.classic;
        let method = match self.algorithm() {
            Algorithm::Forest => {
                let Some(model) = &self.model else {
                    return Ok(self.nothing_decided(blocks));
                };
                let probs = self.forest_probabilities(model, blocks, site, budget)?;
                if self.config.fallback && self.degenerate(blocks, &probs) {
                    let km = classic::decide(
                        Classic::CetrKmeans,
                        blocks,
                        &self.config.cetr,
                        classic_cfg,
                    );
                    return Ok((as_probs(km), Algorithm::KmeansFallback));
                }
                return Ok((probs, Algorithm::Forest));
            }
            Algorithm::Kmeans | Algorithm::KmeansFallback => Classic::CetrKmeans,
            Algorithm::CetrThreshold => Classic::CetrThreshold,
            Algorithm::Danag => Classic::Danag,
            Algorithm::BoilerpipeRules => Classic::BoilerpipeDensity,
            Algorithm::BoilerpipeWords => Classic::BoilerpipeWords,
            Algorithm::Readability => Classic::Readability,
            Algorithm::Crunch => {
                // The filters already removed the chrome: keep what is left.
                return Ok((
                    blocks
                        .blocks
                        .iter()
                        .map(|b| if b.words > 0 { 1.0 } else { 0.0 })
                        .collect(),
                    Algorithm::Crunch,
                ));
            }
        };
        Ok((
            as_probs(classic::decide(
                method,
                blocks,
                &self.config.cetr,
                classic_cfg,
            )),
            self.algorithm(),
        ))
    }

    fn forest_probabilities(
        &self,
        model: &Model,
        blocks: &Blocks,
        site: Option<&SiteRows>,
        budget: Option<TimeBudget>,
    ) -> Result<Vec<f32>> {
        let ctx = PageContext::new(blocks, &model.cetr, &model.css_odds).with_site(site);
        let m = self
            .features
            .compute_checked(&ctx, |family| self.check_budget(budget, family))?;
        let Some(packed) = self.packed.as_ref() else {
            // `build` packs every model's ensemble; no model, no forest.
            return Ok(vec![0.0; blocks.blocks.len()]);
        };
        let probs = predict_blocks(packed, blocks, &m);
        Ok(match &self.packed_stage2 {
            Some(stage2) => {
                self.check_budget(budget, "the first stage")?;
                let m2 = stacking::stacked_matrix(blocks, ctx.tree(), &m, &probs);
                self.check_budget(budget, "stacking")?;
                predict_blocks(stage2, blocks, &m2)
            }
            None => probs,
        })
    }

    /// True when a page has words but the forest keeps none of them, or
    /// every block with words lies within the fallback margin of the threshold.
    fn degenerate(&self, blocks: &Blocks, probs: &[f32]) -> bool {
        let t = self.threshold();
        let margin = self.config.fallback_margin;
        let mut any_words = false;
        let (mut any_kept, mut all_near) = (false, true);
        for (b, &p) in blocks.blocks.iter().zip(probs) {
            if b.words == 0 {
                continue;
            }
            any_words = true;
            any_kept |= p >= t;
            all_near &= (p - t).abs() < margin;
        }
        any_words && (!any_kept || all_near)
    }
}

/// Probabilities of the rows of `m` (one per block) by `packed`; blocks
/// without words are never content, so the trees are not asked about them.
fn predict_blocks(packed: &PackedEnsemble, blocks: &Blocks, m: &ndarray::Array2<f32>) -> Vec<f32> {
    let with_words: Vec<usize> = (0..blocks.blocks.len())
        .filter(|&i| blocks.blocks[i].words > 0)
        .collect();
    let rows: Vec<&[f32]> = with_words
        .iter()
        .map(|&i| m.row(i).to_slice().expect("standard layout"))
        .collect();
    let mut out = vec![0f32; rows.len()];
    packed.predict_rows(&rows, &mut out);
    let mut probs = vec![0f32; blocks.blocks.len()];
    for (i, p) in with_words.into_iter().zip(out) {
        probs[i] = p;
    }
    probs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ExtractorConfig;

    fn page(words: &[u32]) -> Blocks {
        crate::blocks::blocks_of_words(words)
    }

    #[test]
    fn degenerate_means_empty_or_all_near_the_threshold() {
        let ex = Extractor::kmeans(ExtractorConfig::default()).unwrap();
        // threshold() is 0.5 without a model; margin 0.05.
        let b = page(&[10, 0, 20]);
        assert!(
            ex.degenerate(&b, &[0.1, 0.9, 0.2]),
            "nothing with words kept"
        );
        assert!(
            ex.degenerate(&b, &[0.52, 0.0, 0.47]),
            "all near the threshold"
        );
        assert!(!ex.degenerate(&b, &[0.9, 0.0, 0.1]));
        assert!(
            !ex.degenerate(&page(&[0, 0]), &[0.0, 0.0]),
            "a page without words is not degenerate"
        );
    }
}
