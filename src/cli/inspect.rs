//! `dechrome inspect`: a model file's header, schema, provenance, top
//! features and cross-validation metrics, as a readable table (`--json`
//! for everything, raw).

use std::path::PathBuf;

use serde_json::Value;

use dechrome::model::artifact::{stated_version, EMBEDDED};
use dechrome::model::FORMAT_VERSION;
use dechrome::Model;

/// Arguments of `inspect`.
#[derive(clap::Args)]
pub struct InspectArgs {
    /// The model file (default: the embedded model).
    model: Option<PathBuf>,
    /// How many top features (by split gain) to list.
    #[arg(long, default_value_t = 15)]
    top: usize,
    /// Print everything as JSON (all feature importances).
    #[arg(long)]
    json: bool,
}

/// Runs `inspect`.
pub fn run(args: InspectArgs) -> anyhow::Result<()> {
    let (model, size, version) = match &args.model {
        Some(p) => {
            let model = Model::load(p)?;
            // The file loaded, so its header is whole: read its version.
            let mut header = [0u8; 12];
            std::io::Read::read_exact(&mut std::fs::File::open(p)?, &mut header)?;
            (model, std::fs::metadata(p)?.len(), stated_version(&header))
        }
        None => (
            Model::embedded()?,
            EMBEDDED.len() as u64,
            stated_version(EMBEDDED),
        ),
    };
    let version = version.unwrap_or(FORMAT_VERSION);
    let m = &model.meta;
    if args.json {
        let importance: Vec<_> = model
            .schema
            .iter()
            .zip(&model.ensemble.importance)
            .map(|(n, g)| serde_json::json!({"feature": n, "gain": g}))
            .collect();
        let stage2_importance: Option<Vec<_>> = model.stage2.as_ref().map(|s2| {
            model
                .feature_set()
                .stacked_names()
                .iter()
                .zip(&s2.importance)
                .map(|(n, g)| serde_json::json!({"feature": n, "gain": g}))
                .collect()
        });
        let v = serde_json::json!({
            "format_version": version,
            "size": size,
            "meta": m,
            "threshold": model.threshold,
            "trees": model.ensemble.trees.len(),
            "id_class_tokens": model.css_odds.len(),
            "schema_hash": model.schema_hash,
            "importance": importance,
            "stage2_trees": model.stage2.as_ref().map(|s| s.trees.len()),
            "stage2_importance": stage2_importance,
            "page_type_classifier": model.page_type.is_some(),
            "confidence_trees": model.confidence.as_ref().map(|c| c.ensemble.trees.len()),
            "metrics": serde_json::from_str::<serde_json::Value>(&m.metrics_json).unwrap_or_default(),
        });
        outln!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    if version == FORMAT_VERSION {
        outln!("format version   {version}");
    } else {
        outln!("format version   {version} (this build writes {FORMAT_VERSION})");
    }
    outln!("size             {size} bytes");
    outln!("trained by       dechrome {}", m.dechrome_version);
    outln!("dataset hash     {}", m.dataset_hash);
    outln!("pages / blocks   {} / {}", m.pages, m.blocks);
    outln!("seed             {}", m.seed);
    outln!("threshold        {}", model.threshold);
    outln!("trees            {}", model.ensemble.trees.len());
    outln!(
        "second stage     {}",
        model
            .stage2
            .as_ref()
            .map_or("none".to_string(), |s| format!("{} trees", s.trees.len()))
    );
    outln!("id/class tokens  {}", model.css_odds.len());
    outln!(
        "page type        {}",
        if model.page_type.is_some() {
            "classifier of 7 types"
        } else {
            "none"
        }
    );
    outln!(
        "confidence       {}",
        model
            .confidence
            .as_ref()
            .map_or("none".to_string(), |c| format!(
                "{} trees",
                c.ensemble.trees.len()
            ))
    );
    outln!(
        "schema           {} features, hash {}",
        model.schema.len(),
        model.schema_hash
    );
    let mut imp: Vec<(f32, &String)> = model
        .ensemble
        .importance
        .iter()
        .copied()
        .zip(&model.schema)
        .collect();
    imp.sort_by(|a, b| b.0.total_cmp(&a.0));
    let total: f32 = imp.iter().map(|x| x.0).sum::<f32>().max(1e-9);
    outln!("top features by split gain:");
    for (g, name) in imp.iter().take(args.top) {
        outln!("  {:<28} {:>6.2}%", name, 100.0 * g / total);
    }
    match serde_json::from_str::<Value>(&m.metrics_json) {
        Ok(metrics) if metrics.is_object() => out!("{}", metrics_table(&metrics)),
        _ => outln!("cv metrics       none"),
    }
    Ok(())
}

/// One row of the metrics table: a name, a page count and P/R/F1 from an
/// object with `precision`, `recall` and `f1`.
fn row(out: &mut String, name: &str, pages: Option<u64>, prf: &Value) {
    let f = |k: &str| {
        prf[k]
            .as_f64()
            .map_or("-".to_string(), |x| format!("{x:.4}"))
    };
    let pages = pages.map_or("-".to_string(), |n| n.to_string());
    out.push_str(&format!(
        "  {name:<28} {pages:>6} {:>7} {:>7} {:>7}\n",
        f("precision"),
        f("recall"),
        f("f1")
    ));
}

/// The rows of a word report (`{"overall", "pages", "by_type"}`): overall,
/// then one per page type, indented.
fn word_rows(out: &mut String, name: &str, word: &Value) {
    row(out, name, word["pages"].as_u64(), &word["overall"]);
    if let Some(types) = word["by_type"].as_object() {
        for (t, v) in types {
            // [pages, {precision, recall, f1}]
            row(out, &format!("  {t}"), v[0].as_u64(), &v[1]);
        }
    }
}

/// The model's cross-validation metrics (its metrics JSON) as a table: all
/// pages, then per corpus, each per page type; P/R/F1 out of fold.
pub fn metrics_table(m: &Value) -> String {
    let mut out = String::new();
    let folds = m["folds"].as_u64().unwrap_or(0);
    out.push_str(&format!(
        "cv metrics       {folds}-fold domain-grouped cross-validation, out of fold \
         (word P/R/F1 mean over pages; snippet corpora: snippet P/R/F1)\n"
    ));
    out.push_str(&format!(
        "  {:<28} {:>6} {:>7} {:>7} {:>7}\n",
        "corpus / page type", "pages", "P", "R", "F1"
    ));
    if m["word"].is_object() {
        word_rows(&mut out, "all pages", &m["word"]);
    }
    if let Some(corpora) = m["corpora"].as_object() {
        for (name, c) in corpora {
            if c["word"].is_object() {
                word_rows(&mut out, name, &c["word"]);
            } else if c["snippets"].is_object() {
                row(
                    &mut out,
                    &format!("{name} (snippets)"),
                    c["pages"].as_u64(),
                    &c["snippets"],
                );
            }
        }
    }
    if let Some(oracle) = m["oracle_f1"].as_f64() {
        out.push_str(&format!(
            "  oracle F1 (the best any block choice gets) {oracle:.4}\n"
        ));
    }
    if let Some(chosen) = m["selection"]["chosen"].as_object() {
        let chosen: Vec<String> = chosen.iter().map(|(k, v)| format!("{k} {v}")).collect();
        out.push_str(&format!(
            "  selection chosen out of fold: {}\n",
            chosen.join(", ")
        ));
    }
    if let Some(t) = m["page_type"].as_object() {
        let f = |k: &str| t.get(k).and_then(Value::as_f64).unwrap_or(0.0);
        out.push_str(&format!(
            "  page type out of fold: accuracy {:.4}, article vs forum {:.4}\n",
            f("accuracy"),
            f("article_vs_forum")
        ));
        if let Some(by) = t.get("by_corpus").and_then(Value::as_object) {
            let by: Vec<String> = by
                .iter()
                .map(|(k, c)| format!("{k} {:.4}", c["accuracy"].as_f64().unwrap_or(0.0)))
                .collect();
            out.push_str(&format!("    per corpus: {}\n", by.join(", ")));
        }
    }
    let c = &m["confidence"];
    if c.is_object() {
        let figures = |a: &Value| {
            let f = |k: &str| a[k].as_f64().unwrap_or(0.0);
            format!(
                "Spearman {:.3}, ROC AUC {:.3} for pages below F1 0.7, mean abs. error {:.3}",
                f("spearman"),
                f("auc_bad"),
                f("mean_absolute_error")
            )
        };
        out.push_str(&format!(
            "  confidence out of fold ({} pages): {}\n    (mean kept probability: {})\n",
            c["pages"].as_u64().unwrap_or(0),
            figures(&c["model"]),
            figures(&c["baseline"])
        ));
    }
    out.push_str("  (raw metrics: inspect --json)\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_has_a_row_per_corpus_and_type() {
        let m = serde_json::json!({
            "folds": 5,
            "word": {"pages": 3, "overall": {"precision": 0.9, "recall": 0.8, "f1": 0.85},
                     "by_type": {"article": [2, {"precision": 1.0, "recall": 0.9, "f1": 0.95}]}},
            "corpora": {
                "wcxb-dev": {"pages": 2, "word": {"pages": 2,
                    "overall": {"precision": 0.7, "recall": 0.6, "f1": 0.65}, "by_type": {}}},
                "snips": {"pages": 1, "snippets": {"precision": 0.5, "recall": 0.4, "f1": 0.45}}
            },
            "oracle_f1": 0.99,
            "confidence": {"pages": 3,
                "model": {"spearman": 0.7, "auc_bad": 0.9, "mean_absolute_error": 0.05},
                "baseline": {"spearman": 0.5, "auc_bad": 0.8, "mean_absolute_error": 0.1}}
        });
        let t = metrics_table(&m);
        assert!(t.contains("5-fold"), "{t}");
        let line = |start: &str| {
            t.lines()
                .find(|l| l.trim_start().starts_with(start))
                .unwrap_or_else(|| panic!("{start}: {t}"))
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(line("all pages"), "all pages 3 0.9000 0.8000 0.8500");
        assert_eq!(line("article"), "article 2 1.0000 0.9000 0.9500");
        assert_eq!(line("wcxb-dev"), "wcxb-dev 2 0.7000 0.6000 0.6500");
        assert_eq!(line("snips"), "snips (snippets) 1 0.5000 0.4000 0.4500");
        assert!(t.contains("oracle F1"));
        assert!(
            t.contains("confidence out of fold (3 pages): Spearman 0.700, ROC AUC 0.900"),
            "{t}"
        );
    }
}
