//! Every threshold and switch of extraction and training, documented, with defaults.
//!
//! Parameters are plain serde structs; [`ExtractorConfig::check`] and
//! [`TrainConfig::check`] return a typed error naming the first bad field.
//! [`ExtractorConfig`] is the one settings surface of extraction: the CLI,
//! Python and WebAssembly read it by name through [`settings_from_value`].
//!
//! One file per side: `extract.rs` (extraction settings) and `train.rs`
//! (training settings); here the limits shared by the front ends and the
//! reader of settings by name.

mod extract;
mod train;

use std::borrow::Cow;

use serde::de::DeserializeOwned;

pub use crate::algorithm::Algorithm;
use crate::error::{Error, Result};
pub use extract::{CetrConfig, ClassicConfig, CommentMode, ExtractorConfig};
pub use train::{
    BagMember, GbdtConfig, SelfTraining, TrainConfig, MAX_BAG_MEMBERS, MAX_SELECTION_CHOICES,
};

/// The longest page time budget accepted, in seconds: one day. A page
/// that needs longer is a fault, not a page; the bound also keeps the
/// budget within what a clock and `Duration` can hold.
pub const MAX_PAGE_TIMEOUT_SECS: f64 = 86_400.0;

const PAGE_TIMEOUT_RANGE: &str = "must be a positive number of seconds, at most 86400 (one day)";

/// A page time budget from a number of seconds as a user gives it (CLI,
/// Python, wasm): positive, finite and at most [`MAX_PAGE_TIMEOUT_SECS`],
/// else [`Error::Config`].
pub fn page_timeout_from_secs(secs: f64) -> Result<std::time::Duration> {
    if !(secs > 0.0 && secs <= MAX_PAGE_TIMEOUT_SECS) {
        return Err(bad("page_timeout", PAGE_TIMEOUT_RANGE));
    }
    std::time::Duration::try_from_secs_f64(secs)
        .map_err(|_| bad("page_timeout", PAGE_TIMEOUT_RANGE))
}

/// Worker threads allowed per core: more only adds memory (each thread
/// holds a page in flight) and start-up time, never speed.
pub const MAX_THREADS_PER_CORE: usize = 4;

/// The most worker threads a batch may ask for: [`MAX_THREADS_PER_CORE`]
/// times the cores this process may use.
pub fn max_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    cores.saturating_mul(MAX_THREADS_PER_CORE)
}

/// Checks a requested number of worker threads: at least 1 and at most
/// [`max_threads`], else [`Error::Config`] naming the range.
pub fn check_threads(threads: usize) -> Result<usize> {
    let max = max_threads();
    if threads == 0 || threads > max {
        return Err(Error::Config {
            field: "threads".into(),
            reason: format!(
                "must lie in 1..={max} ({MAX_THREADS_PER_CORE} per core on this machine), not {threads}"
            ),
        });
    }
    Ok(threads)
}

pub(crate) fn bad(field: &'static str, reason: &str) -> Error {
    Error::Config {
        field: field.into(),
        reason: reason.to_string(),
    }
}

/// Extraction settings read by name from a JSON value (an object of
/// [`ExtractorConfig`] fields, nested objects for the nested groups;
/// missing fields default), then checked ([`ExtractorConfig::check`]). The
/// one reader of settings by name: the CLI's `--config`, Python's keyword
/// arguments and WebAssembly's options object all go through it, so an
/// unknown key, a value of the wrong type or out of range gives each of
/// them the same [`Error::Config`], whose field is the key's path
/// (`classic.fallbak`) and whose reason is serde's ("unknown field
/// `fallbak`, expected one of ...").
pub fn settings_from_value(value: serde_json::Value) -> Result<ExtractorConfig> {
    let config: ExtractorConfig = from_value(value)?;
    config.check()?;
    Ok(config)
}

/// Any settings struct read by name from a JSON value, unchecked: an error
/// is an [`Error::Config`] whose field is the path of the key at fault
/// (`ensemble.n_tree`, `bag[1].power`; `settings` for the value as a
/// whole) and whose reason is serde's, with no line or column. See
/// [`settings_from_value`] for extraction settings.
pub fn from_value<T: DeserializeOwned>(value: serde_json::Value) -> Result<T> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        Error::Config {
            field: match path.as_str() {
                "." => Cow::Borrowed("settings"),
                _ => Cow::Owned(path),
            },
            reason: e.into_inner().to_string(),
        }
    })
}

/// A number as a settings value for [`settings_from_value`], for front
/// ends whose numbers are floats (JavaScript) or may not be finite
/// (Python): an integral one becomes a JSON integer (so that it reads as a
/// count), another finite one a JSON number; NaN and the infinities, which
/// JSON cannot hold, are an [`Error::Config`] naming `path` (the key's
/// path, as [`from_value`] names it).
pub fn number_value(path: &str, x: f64) -> Result<serde_json::Value> {
    // Integers up to 2^53 are exact in an f64.
    const EXACT: f64 = 9_007_199_254_740_992.0;
    if x.fract() == 0.0 && x.abs() <= EXACT {
        return Ok(serde_json::Value::from(x as i64));
    }
    serde_json::Number::from_f64(x)
        .map(serde_json::Value::Number)
        .ok_or_else(|| Error::Config {
            field: match path {
                "" => Cow::Borrowed("settings"),
                _ => Cow::Owned(path.to_string()),
            },
            reason: format!("must be a finite number, not {x}"),
        })
}

/// [`ExtractorConfig::page_timeout`] as a number of seconds in JSON,
/// checked by [`page_timeout_from_secs`].
mod page_timeout_secs {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(timeout: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        timeout.map(|t| t.as_secs_f64()).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
        match Option::<f64>::deserialize(d)? {
            None => Ok(None),
            Some(secs) => super::page_timeout_from_secs(secs)
                .map(Some)
                .map_err(|_| serde::de::Error::custom(super::PAGE_TIMEOUT_RANGE)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn field_of(r: Result<()>) -> String {
        match r {
            Err(Error::Config { field, .. }) => field.into_owned(),
            other => panic!("expected a config error, got {other:?}"),
        }
    }

    #[test]
    fn defaults_are_valid() {
        ExtractorConfig::default().check().unwrap();
        TrainConfig::default().check().unwrap();
    }

    fn ex(f: impl FnOnce(&mut ExtractorConfig)) -> Result<()> {
        let mut c = ExtractorConfig::default();
        f(&mut c);
        c.check()
    }

    fn tr(f: impl FnOnce(&mut TrainConfig)) -> Result<()> {
        let mut c = TrainConfig::default();
        f(&mut c);
        c.check()
    }

    #[test]
    fn each_extractor_rule() {
        assert_eq!(field_of(ex(|c| c.max_bytes = 0)), "max_bytes");
        assert_eq!(field_of(ex(|c| c.max_nodes = 0)), "max_nodes");
        assert_eq!(field_of(ex(|c| c.max_depth = 0)), "max_depth");
        assert_eq!(field_of(ex(|c| c.threshold = Some(1.5))), "threshold");
        assert_eq!(
            field_of(ex(|c| c.low_prose_shift = Some(-0.5))),
            "low_prose_shift"
        );
        assert_eq!(
            field_of(ex(|c| c.page_timeout = Some(std::time::Duration::ZERO))),
            "page_timeout"
        );
        assert_eq!(field_of(ex(|c| c.cetr.sigma = 0.0)), "cetr.sigma");
        assert_eq!(field_of(ex(|c| c.cetr.alpha = 0)), "cetr.alpha");
        assert_eq!(
            field_of(ex(|c| c.cetr.kmeans_iterations = 0)),
            "cetr.kmeans_iterations"
        );
    }

    #[test]
    fn each_train_rule() {
        assert_eq!(field_of(tr(|c| c.folds = 1)), "folds");
        assert_eq!(field_of(tr(|c| c.inner_folds = 1)), "inner_folds");
        assert_eq!(
            field_of(tr(|c| {
                c.class_free_copies = true;
                c.site_context = true;
            })),
            "class_free_copies"
        );
        assert_eq!(
            field_of(tr(|c| c.label_threshold = -0.1)),
            "label_threshold"
        );
        assert_eq!(field_of(tr(|c| c.css_smoothing = 0.0)), "css_smoothing");
        assert_eq!(field_of(tr(|c| c.threshold_grid.clear())), "threshold_grid");
        assert_eq!(field_of(tr(|c| c.ensemble.n_trees = 0)), "ensemble.n_trees");
        let columns = ["shallow.date_like", "css.own_mean"].map(String::from);
        for bad_name in ["no.such_column", "css.own_mean"] {
            let c = TrainConfig {
                disabled_features: vec![bad_name.to_string()],
                ..Default::default()
            };
            assert_eq!(field_of(c.check_columns(&columns)), "disabled_features");
        }
        let ok = TrainConfig {
            disabled_features: vec!["shallow.date_like".to_string()],
            ..Default::default()
        };
        assert!(ok.check().is_ok());
        assert!(ok.check_columns(&columns).is_ok());
        let bad_stage2 = GbdtConfig {
            max_depth: 0,
            ..Default::default()
        };
        assert_eq!(
            field_of(tr(|c| c.stage2_ensemble = Some(bad_stage2.clone()))),
            "stage2_ensemble"
        );
        assert_eq!(
            field_of(tr(|c| c.ensemble.max_depth = 0)),
            "ensemble.max_depth"
        );
        assert_eq!(
            field_of(tr(|c| c.ensemble.learning_rate = 0.0)),
            "ensemble.learning_rate"
        );
        assert_eq!(
            field_of(tr(|c| c.ensemble.min_child_weight = -1.0)),
            "ensemble.min_child_weight"
        );
        assert_eq!(
            field_of(tr(|c| c.ensemble.lambda = -1.0)),
            "ensemble.lambda"
        );
        assert_eq!(
            field_of(tr(|c| c.ensemble.subsample = 0.0)),
            "ensemble.subsample"
        );
        assert_eq!(
            field_of(tr(|c| c.ensemble.colsample = 1.5)),
            "ensemble.colsample"
        );
        assert_eq!(
            field_of(tr(|c| c.ensemble.max_bins = 1)),
            "ensemble.max_bins"
        );
        let member = |power| BagMember {
            page_weight_power: power,
            ..Default::default()
        };
        assert_eq!(field_of(tr(|c| c.bag = vec![member(2.5)])), "bag");
        assert_eq!(field_of(tr(|c| c.bag = vec![member(0.5); 9])), "bag");
        assert!(tr(|c| c.bag = vec![member(0.5); 8]).is_ok());
        let parsed: TrainConfig =
            serde_json::from_str(r#"{"bag": [{"page_weight_power": 0.5}]}"#).unwrap();
        assert_eq!(parsed.bag, vec![member(0.5)]);
        assert!(serde_json::from_str::<TrainConfig>(r#"{"bag": [{"power": 0.5}]}"#).is_err());
        // An empty bag leaves the JSON (and so model files) as before.
        let single = TrainConfig {
            bag: Vec::new(),
            ..Default::default()
        };
        assert!(!serde_json::to_string(&single).unwrap().contains("bag"));
        let st = |low, high, weight| Some(SelfTraining { low, high, weight });
        assert_eq!(
            field_of(tr(|c| c.self_training = st(0.6, 0.4, 1.0))),
            "self_training"
        );
        assert_eq!(
            field_of(tr(|c| c.self_training = st(0.1, 1.5, 1.0))),
            "self_training"
        );
        assert_eq!(
            field_of(tr(|c| c.self_training = st(0.1, 0.9, 0.0))),
            "self_training.weight"
        );
        assert!(tr(|c| c.self_training = st(0.0, 1.0, 10.0)).is_ok());
        assert!(serde_json::from_str::<TrainConfig>(r#"{"self_training": {"lo": 0.1}}"#).is_err());
    }

    /// The field and reason of a settings error.
    fn settings_error(json: serde_json::Value) -> (String, String) {
        match settings_from_value(json) {
            Err(Error::Config { field, reason }) => (field.into_owned(), reason),
            other => panic!("expected a config error, got {other:?}"),
        }
    }

    #[test]
    fn settings_by_name_read_every_level_and_default_the_rest() {
        use serde_json::json;
        let c = settings_from_value(json!({
            "algorithm": "kmeans",
            "threshold": 0.4,
            "page_timeout": 2.5,
            "fallback": true,
            "comments": "include",
            "classic": {"danag_gap": 7},
            "cetr": {"alpha": 5}
        }))
        .unwrap();
        assert_eq!(c.algorithm, Algorithm::Kmeans);
        assert_eq!(c.threshold, Some(0.4));
        assert_eq!(c.page_timeout, Some(Duration::from_millis(2500)));
        assert!(c.fallback);
        assert_eq!(c.comments, CommentMode::Include);
        assert_eq!(c.classic.danag_gap, 7);
        assert_eq!(c.classic.cetr_lambda, ClassicConfig::default().cetr_lambda);
        assert_eq!(c.cetr.alpha, 5);
        assert_eq!(c.max_nodes, ExtractorConfig::default().max_nodes);
        assert_eq!(
            settings_from_value(json!({})).unwrap(),
            ExtractorConfig::default()
        );
        // What serialises reads back the same, the page timeout in seconds.
        let written = ExtractorConfig {
            page_timeout: Some(Duration::from_millis(1500)),
            model: Some("my.model".into()),
            ..ExtractorConfig::default()
        };
        let value = serde_json::to_value(&written).unwrap();
        assert_eq!(value["page_timeout"], json!(1.5));
        assert_eq!(value["algorithm"], json!("forest"));
        assert_eq!(settings_from_value(value).unwrap(), written);
    }

    #[test]
    fn settings_by_name_name_the_key_at_fault() {
        use serde_json::json;
        let (field, reason) = settings_error(json!({"treshold": 0.5}));
        assert_eq!(field, "treshold");
        assert!(
            reason.starts_with("unknown field `treshold`, expected one of `algorithm`, `model`,"),
            "{reason}"
        );
        assert!(reason.contains("`threshold`"), "{reason}");
        let (field, reason) = settings_error(json!({"classic": {"fallbak": true}}));
        assert_eq!(field, "classic.fallbak");
        assert!(
            reason.starts_with("unknown field `fallbak`, expected one of `cetr_lambda`"),
            "{reason}"
        );
        assert_eq!(
            settings_error(json!({"cetr": {"sigma": 1.0, "beta": 2}})).0,
            "cetr.beta"
        );
        // The message as every front end shows it: key path, serde's words,
        // no line or column.
        let message = settings_from_value(json!({"classic": {"fallbak": true}}))
            .unwrap_err()
            .to_string();
        assert!(
            message.starts_with(
                "invalid configuration: classic.fallbak: unknown field `fallbak`, expected one of"
            ),
            "{message}"
        );
        assert!(!message.contains("line"), "{message}");
        // Wrong types.
        assert_eq!(
            settings_error(json!({"threshold": "high"})),
            (
                "threshold".into(),
                "invalid type: string \"high\", expected f32".into()
            )
        );
        assert_eq!(
            settings_error(json!({"keep_captions": 1})).0,
            "keep_captions"
        );
        assert_eq!(
            settings_error(json!({"classic": {"danag_gap": -1}})).0,
            "classic.danag_gap"
        );
        assert_eq!(settings_error(json!({"classic": true})).0, "classic");
        assert_eq!(settings_error(json!(5)).0, "settings");
        assert_eq!(
            settings_error(json!({"comments": "sometimes"})).0,
            "comments"
        );
        // Only the algorithms a user may choose, by name.
        let (field, reason) = settings_error(json!({"algorithm": "magic"}));
        assert_eq!(field, "algorithm");
        assert!(
            reason.starts_with("unknown variant `magic`, expected one of `forest`, `kmeans`"),
            "{reason}"
        );
        assert!(!reason.contains("kmeans-fallback"), "{reason}");
        assert_eq!(
            settings_error(json!({"algorithm": "kmeans-fallback"})).0,
            "algorithm"
        );
        // Out of range: the checks, by the same field names.
        for (json, field) in [
            (json!({"threshold": 1.5}), "threshold"),
            (json!({"low_prose_shift": -0.5}), "low_prose_shift"),
            (json!({"max_nodes": 0}), "max_nodes"),
            (json!({"fallback_margin": 0.9}), "fallback_margin"),
            (json!({"cetr": {"sigma": 0.0}}), "cetr.sigma"),
            (
                json!({"classic": {"danag_gap": 20000}}),
                "classic.danag_gap",
            ),
            (json!({"page_timeout": 0}), "page_timeout"),
            (json!({"page_timeout": -1}), "page_timeout"),
            (json!({"page_timeout": 86401}), "page_timeout"),
            (json!({"page_timeout": 1e300}), "page_timeout"),
            (json!({"algorithm": "danag", "model": "x.model"}), "model"),
        ] {
            assert_eq!(settings_error(json.clone()).0, field, "{json}");
        }
        let (_, reason) = settings_error(json!({"page_timeout": 0}));
        assert_eq!(reason, PAGE_TIMEOUT_RANGE);
        assert!(settings_from_value(json!({"page_timeout": null})).is_ok());
    }

    #[test]
    fn numbers_from_front_ends() {
        use serde_json::json;
        assert_eq!(number_value("max_nodes", 3.0).unwrap(), json!(3));
        assert_eq!(number_value("threshold", 0.25).unwrap(), json!(0.25));
        assert_eq!(number_value("x", -2.0).unwrap(), json!(-2));
        for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            match number_value("page_timeout", x) {
                Err(Error::Config { field, reason }) => {
                    assert_eq!(field, "page_timeout");
                    assert_eq!(reason, format!("must be a finite number, not {x}"));
                }
                other => panic!("{other:?}"),
            }
        }
        // A count given as a float reads as one.
        let c =
            settings_from_value(json!({"max_depth": number_value("max_depth", 100.0).unwrap()}));
        assert_eq!(c.unwrap().max_depth, 100);
    }

    #[test]
    fn train_settings_by_name_name_the_path() {
        let e = from_value::<TrainConfig>(serde_json::json!({"bag": [{}, {"power": 0.5}]}))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("invalid configuration: bag[1].power: unknown field `power`"),
            "{e}"
        );
    }

    #[test]
    fn unknown_keys_are_refused_at_every_depth_with_the_known_ones() {
        for (json, key, known) in [
            (r#"{"ensemble": {"n_tree": 50}}"#, "n_tree", "n_trees"),
            (r#"{"n_treez": 50}"#, "n_treez", "ensemble"),
            (
                r#"{"self_training": {"low": 0.1, "hi": 0.9}}"#,
                "hi",
                "high",
            ),
            (r#"{"stage2_ensemble": {"depth": 3}}"#, "depth", "max_depth"),
        ] {
            let e = serde_json::from_str::<TrainConfig>(json)
                .unwrap_err()
                .to_string();
            assert!(e.contains(&format!("unknown field `{key}`")), "{e}");
            assert!(e.contains(known), "{e}");
        }
        let e = serde_json::from_str::<ExtractorConfig>(r#"{"classic": {"fallbak": true}}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("unknown field `fallbak`"), "{e}");
    }
}
