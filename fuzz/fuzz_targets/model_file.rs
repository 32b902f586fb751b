//! Any bytes as a model file: a model or a typed error, never a panic or an
//! allocation of a declared size. Each input is tried as it is and with its
//! header's length and CRC-32 fixed up, so that mutations reach the bincode
//! decoder and the validation behind the checksum.
#![no_main]

use libfuzzer_sys::fuzz_target;

const HEADER: usize = 24;

fuzz_target!(|data: &[u8]| {
    let _ = dechrome::Model::from_bytes(data);
    if data.len() >= HEADER {
        let mut fixed = data.to_vec();
        let body_len = (fixed.len() - HEADER) as u64;
        fixed[12..20].copy_from_slice(&body_len.to_le_bytes());
        let crc = crc32fast::hash(&fixed[HEADER..]);
        fixed[20..24].copy_from_slice(&crc.to_le_bytes());
        let _ = dechrome::Model::from_bytes(&fixed);
    }
});
