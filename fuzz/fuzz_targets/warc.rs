//! Any bytes as a WARC file (gzipped when they start with the gzip magic):
//! the reader must yield pages or errors and come to an end, never panic or
//! hang; each HTML page then goes through extraction with the shipped model.
#![no_main]

use std::sync::OnceLock;

use dechrome::warc::{decompressed, HtmlPages};
use dechrome::{Extractor, ExtractorConfig};
use libfuzzer_sys::fuzz_target;

static EXTRACTOR: OnceLock<Extractor> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let ex = EXTRACTOR.get_or_init(|| {
        Extractor::with_embedded_model(ExtractorConfig::default()).expect("embedded model")
    });
    let Ok(reader) = decompressed(std::io::Cursor::new(data.to_vec())) else {
        return;
    };
    for page in HtmlPages::new(reader, ExtractorConfig::default().max_bytes).flatten() {
        let _ = ex.extract_bytes(&page.body, page.charset.as_deref());
    }
});
