//! G5: generated per-call round-trip tests for the real catalogue, plus
//! decoder robustness tests (truncated, mutated and random input).

use mgpipe::*;

include!(concat!(env!("OUT_DIR"), "/mgpipe_roundtrip_tests.rs"));
