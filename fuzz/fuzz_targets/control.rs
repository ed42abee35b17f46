//! The control plane: bytes → a real SOCK_SEQPACKET socket →
//! `control::recv` (FlatBuffers verifier + decoder); the direct decode must
//! agree, and a decoded message must re-encode to itself.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = remote::fuzzing::control_recv(data);
});
