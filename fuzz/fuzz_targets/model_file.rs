//! Any bytes as a model file: a model or a typed error, never a panic or an
//! allocation of a declared size. Each input is tried as it is and with its
//! header's length and CRC-32 fixed up, so that mutations reach the bincode
//! decoder and the validation behind the checksum. A model that loads
//! extracts a small page, so that what validation lets through (trees
//! sharing nodes were once accepted and hung prediction) is also run.
#![no_main]

use libfuzzer_sys::fuzz_target;

const HEADER: usize = 24;

const PAGE: &[u8] = b"<html><body><nav><a href=/>Home</a></nav><article><h1>Title</h1>\
    <p>A paragraph of the article with enough words to be a block of text.</p></article></body></html>";

fn load_and_use(bytes: &[u8]) {
    if let Ok(model) = dechrome::Model::from_bytes(bytes) {
        if let Ok(extractor) = dechrome::Extractor::new(model, Default::default()) {
            let _ = extractor.extract_bytes(PAGE, None);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    load_and_use(data);
    if data.len() >= HEADER {
        let mut fixed = data.to_vec();
        let body_len = (fixed.len() - HEADER) as u64;
        fixed[12..20].copy_from_slice(&body_len.to_le_bytes());
        let crc = crc32fast::hash(&fixed[HEADER..]);
        fixed[20..24].copy_from_slice(&crc.to_le_bytes());
        load_and_use(&fixed);
    }
});
