//! The extraction algorithms by name: the trained model (`forest`) and
//! the unsupervised ones. Names only, like [`config`](crate::config): no
//! stage is imported here; [`Extractor`](crate::Extractor) runs them.

use serde::{Deserialize, Deserializer, Serialize};

/// Which extractor decides what is content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    /// The trained gradient-boosted ensemble (default).
    Forest,
    /// CETR-KM: per-page k-means over tag ratios; needs no model.
    Kmeans,
    /// CETR-TM: the smoothed tag ratio thresholded at its standard deviation.
    CetrThreshold,
    /// DANAg: the largest positive content-minus-code region.
    Danag,
    /// Crunch: DOM filters (link lists, empty containers, ad servers).
    Crunch,
    /// boilerpipe's published text-density rules.
    BoilerpipeRules,
    /// boilerpipe's published word-count rules.
    BoilerpipeWords,
    /// Readability's article: the best-scoring container and the siblings
    /// that join it.
    Readability,
    /// Reported, not chosen: the forest's output was empty or degenerate
    /// on this page and CETR-KM decided instead.
    KmeansFallback,
}

impl Algorithm {
    /// Every algorithm a user can choose, in the order reports list them.
    pub const SELECTABLE: [Algorithm; 8] = [
        Algorithm::Forest,
        Algorithm::Kmeans,
        Algorithm::CetrThreshold,
        Algorithm::Danag,
        Algorithm::Crunch,
        Algorithm::BoilerpipeRules,
        Algorithm::BoilerpipeWords,
        Algorithm::Readability,
    ];

    /// The name used on the command line and in JSON output.
    pub const fn name(self) -> &'static str {
        match self {
            Algorithm::Forest => "forest",
            Algorithm::Kmeans => "kmeans",
            Algorithm::CetrThreshold => "cetr-threshold",
            Algorithm::Danag => "danag",
            Algorithm::Crunch => "crunch",
            Algorithm::BoilerpipeRules => "boilerpipe-rules",
            Algorithm::BoilerpipeWords => "boilerpipe-words",
            Algorithm::Readability => "readability",
            Algorithm::KmeansFallback => "kmeans-fallback",
        }
    }

    /// The algorithm with this name (see [`Algorithm::name`]).
    pub fn from_name(name: &str) -> Option<Algorithm> {
        Self::SELECTABLE.into_iter().find(|a| a.name() == name)
    }

    /// True when the algorithm needs a trained model.
    pub fn needs_model(self) -> bool {
        self == Algorithm::Forest
    }
}

/// Reads an algorithm a user may choose ([`Algorithm::SELECTABLE`]) by
/// name, for settings: `kmeans-fallback` is reported, never chosen. The
/// message is serde's for an unknown variant, so it reads like every other
/// settings error.
pub(crate) fn deserialize_selectable<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Algorithm, D::Error> {
    let name = String::deserialize(d)?;
    Algorithm::from_name(&name).ok_or_else(|| {
        const NAMES: [&str; Algorithm::SELECTABLE.len()] = {
            let mut names = [""; Algorithm::SELECTABLE.len()];
            let mut i = 0;
            while i < names.len() {
                names[i] = Algorithm::SELECTABLE[i].name();
                i += 1;
            }
            names
        };
        serde::de::Error::unknown_variant(&name, &NAMES)
    })
}
