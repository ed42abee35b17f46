//! The committed golden outputs of mgpipe-codegen's test catalogue compile
//! (with the same hand-written items the real ones see) and their generated
//! round-trip tests pass.

use mgpipe::{wire, Handle, ProtocolCorruption};

/// The generated Screen trait names `crate::event`, as inside mgpipe.
mod event {
    pub use mgpipe::event::*;
}

#[allow(dead_code)]
mod gen {
    include!("../../mgpipe-codegen/tests/golden/mgpipe_generated.rs");
}

mod roundtrip {
    use super::gen::*;
    use super::{wire, Handle, ProtocolCorruption};

    include!("../../mgpipe-codegen/tests/golden/mgpipe_roundtrip_tests.rs");
}
