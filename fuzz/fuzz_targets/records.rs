//! The record decoder alone: bytes (docs/FUZZING.md input format) →
//! `split_record` + `mgpipe::dispatch` under the ring rules → a recording
//! null applier (so the recorder's field printer sees every payload too).
#![no_main]

use libfuzzer_sys::fuzz_target;
use remote::fuzzing::{decode_records, NullBackend};
use remote::testing::Recorder;

fuzz_target!(|data: &[u8]| {
    let mut applier = Recorder::new(NullBackend::default());
    let out = decode_records(data, &mut applier);
    assert_eq!(applier.log().lines().len() as u64, out.dispatched);
});
