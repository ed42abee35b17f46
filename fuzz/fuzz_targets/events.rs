//! The client's EVENT ring walk over bytes a (possibly hostile or broken)
//! server wrote: indices and records are checked before use, the walk
//! stays inside the published range, nothing panics.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = remote::fuzzing::event_ring(data);
});
