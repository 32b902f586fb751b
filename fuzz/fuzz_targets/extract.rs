//! Any bytes through the whole pipeline with the shipped model: must return
//! a result or an error, never panic or hang.
#![no_main]

use std::sync::OnceLock;

use dechrome::{Extractor, ExtractorConfig};
use libfuzzer_sys::fuzz_target;

static EXTRACTOR: OnceLock<Extractor> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let ex = EXTRACTOR.get_or_init(|| {
        Extractor::with_embedded_model(ExtractorConfig::default()).expect("embedded model")
    });
    let _ = ex.extract_bytes(data, None);
});
