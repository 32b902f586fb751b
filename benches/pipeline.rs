//! Per-stage benchmarks (parse, split, features, predict, render) and end to
//! end, on the repository's fixture pages and the WCXB sample.
//! `cargo bench`; for whole corpora use `dechrome bench`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

use dechrome::features::{FeatureSet, PageContext};
use dechrome::output::{render, Format, Origin};
use dechrome::parse::{self, ParseLimits};
use dechrome::{Extractor, ExtractorConfig};

fn pages() -> Vec<(String, String)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut raw = Vec::new();
    for dir in ["tests/fixtures", "training-data/sample/html"] {
        let mut paths: Vec<_> = std::fs::read_dir(root.join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.to_string_lossy().contains(".htm"))
            .collect();
        paths.sort();
        for p in paths.into_iter().take(12) {
            raw.push((
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            ));
        }
    }
    let names: Vec<String> = raw.iter().map(|r| r.0.clone()).collect();
    let bytes: Vec<Vec<u8>> = raw.into_iter().map(|r| r.1).collect();
    names
        .into_iter()
        .zip(dechrome::bench::decode_pages(&bytes, usize::MAX))
        .collect()
}

fn stages(c: &mut Criterion) {
    let pages = pages();
    let total: u64 = pages.iter().map(|p| p.1.len() as u64).sum();
    let ex = Extractor::with_embedded_model(ExtractorConfig::default()).unwrap();
    let model = ex.model().unwrap();
    let fs = FeatureSet::standard();
    let docs: Vec<_> = pages
        .iter()
        .map(|(_, h)| parse::parse(h.as_bytes(), Some("utf-8"), ParseLimits::default()).unwrap())
        .collect();
    let blocks: Vec<_> = docs.iter().map(dechrome::blocks::split).collect();

    let mut g = c.benchmark_group("stages");
    g.throughput(Throughput::Bytes(total));
    g.sample_size(10);
    g.bench_function("html5ever_parse_only", |b| {
        b.iter(|| {
            pages
                .iter()
                .map(|(_, h)| parse::parse_only(h))
                .sum::<usize>()
        })
    });
    g.bench_function("parse", |b| {
        b.iter(|| {
            for (_, h) in &pages {
                parse::parse(h.as_bytes(), Some("utf-8"), ParseLimits::default()).unwrap();
            }
        })
    });
    g.bench_function("split", |b| {
        b.iter(|| {
            docs.iter()
                .map(|d| dechrome::blocks::split(d).blocks.len())
                .sum::<usize>()
        })
    });
    g.bench_function("features", |b| {
        b.iter(|| {
            for bl in &blocks {
                let ctx = PageContext::new(bl, &model.cetr, &model.css_odds);
                std::hint::black_box(fs.compute(&ctx));
            }
        })
    });
    g.bench_function("features_and_predict", |b| {
        b.iter(|| blocks.iter().map(|bl| ex.decide(bl).0.len()).sum::<usize>())
    });
    let results: Vec<_> = docs
        .iter()
        .map(|d| ex.extract_document(d).map_err(|e| e.to_string()))
        .collect();
    g.bench_function("render_jsonl", |b| {
        b.iter(|| {
            results
                .iter()
                .map(|r| render(Origin::path("p"), r, Format::Jsonl).len())
                .sum::<usize>()
        })
    });
    g.finish();

    let mut g = c.benchmark_group("end_to_end");
    g.sample_size(10);
    for (name, html) in pages.iter().take(4) {
        g.throughput(Throughput::Bytes(html.len() as u64));
        g.bench_with_input(BenchmarkId::from_parameter(name), html, |b, h| {
            b.iter(|| ex.extract_str(h).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, stages);
criterion_main!(benches);
