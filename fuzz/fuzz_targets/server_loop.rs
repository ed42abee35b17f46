//! The real server loop (`ServerLink::serve`, the ring consumer) over real
//! memfd segments mapped twice: bytes (docs/FUZZING.md input format) are
//! laid out by a simulated client, batch by batch, round the rings; the
//! harness checks that what the loop published agrees with how it ended.
#![no_main]

use std::cell::RefCell;

use libfuzzer_sys::fuzz_target;
use remote::fuzzing::{NullBackend, RingHarness};

thread_local! {
    static HARNESS: RefCell<RingHarness> =
        RefCell::new(RingHarness::new().expect("creating the shared segments"));
}

fuzz_target!(|data: &[u8]| {
    HARNESS.with(|h| {
        let _ = h.borrow_mut().run(data, &mut NullBackend::default());
    });
});
