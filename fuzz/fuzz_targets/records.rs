//! The record decoder alone: bytes (docs/FUZZING.md input format) →
//! `split_record` + `mgpipe::dispatch` under the ring rules → a null
//! applier.
#![no_main]

use libfuzzer_sys::fuzz_target;
use remote::fuzzing::{decode_records, NullBackend};

fuzz_target!(|data: &[u8]| {
    let mut applier = NullBackend::default();
    let out = decode_records(data, &mut applier);
    assert_eq!(applier.digest.count, out.dispatched);
});
