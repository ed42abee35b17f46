//! Test support shared by the conformance suite and the test server binary:
//! an echo/recording backend whose state can be observed through reply
//! calls, so the same assertions hold in every lane (including a child
//! process).
//!
//! * every call except `get_caps` is folded into a running [`Digest`]
//!   (opcode, payload bytes, blob bytes), in arrival order;
//! * `get_caps` answers `Caps::minimum()`;
//! * `finish` answers 16 bytes: call count and digest (little endian);
//! * `buffer_readback` answers [`readback_pattern`]`(res.slot, offset, size)`;
//! * `read_pixels` answers [`readback_pattern`]`(x, y, width*height*4)`;
//! * `fence_wait` sleeps `timeout_ns` (capped at 10 s) and answers
//!   `FENCE_STATUS` 1 (to hold a reply open in liveness tests);
//! * `present` of surface slot [`PANIC_SLOT`] panics (backend-panic tests).

use mgpipe::{Applier, Caps, Opcode};

use crate::BackendFactory;

/// `present` with this surface slot makes [`EchoBackend`] panic.
pub const PANIC_SLOT: u32 = 0xDEAD;

/// Order-sensitive digest of a call stream (client mirror of the backend).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Digest {
    pub count: u64,
    pub value: u64,
}

fn mix(h: u64, w: u64) -> u64 {
    (h.rotate_left(23) ^ w).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

fn fold(mut h: u64, bytes: &[u8]) -> u64 {
    h = mix(h, bytes.len() as u64);
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        h = mix(
            h,
            u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]),
        );
    }
    let mut last = [0u8; 8];
    let rest = chunks.remainder();
    last[..rest.len()].copy_from_slice(rest);
    mix(h, u64::from_le_bytes(last))
}

impl Digest {
    pub fn add(&mut self, opcode: u16, payload: &[u8], blob: &[u8]) {
        let mut h = mix(self.value, u64::from(opcode));
        h = fold(h, payload);
        h = fold(h, blob);
        self.value = h;
        self.count += 1;
    }

    /// Parse a `finish` reply of [`EchoBackend`].
    pub fn from_reply(r: &[u8]) -> Option<Digest> {
        if r.len() != 16 {
            return None;
        }
        let mut a = [0u8; 8];
        let mut b = [0u8; 8];
        a.copy_from_slice(&r[..8]);
        b.copy_from_slice(&r[8..]);
        Some(Digest {
            count: u64::from_le_bytes(a),
            value: u64::from_le_bytes(b),
        })
    }
}

/// Deterministic reply bytes.
pub fn readback_pattern(seed: u32, offset: u64, size: u64) -> Vec<u8> {
    (0..size)
        .map(|i| ((offset + i).wrapping_mul(31) ^ u64::from(seed)) as u8)
        .collect()
}

/// Largest reply the echo backend produces (keeps a bad request bounded).
pub const MAX_ECHO_REPLY: u64 = 256 << 20;

/// The recording/echo test backend (see the module docs).
#[derive(Debug, Default)]
pub struct EchoBackend {
    pub digest: Digest,
}

impl EchoBackend {
    pub fn new() -> EchoBackend {
        EchoBackend::default()
    }

    pub fn boxed() -> Box<dyn Applier> {
        Box::new(EchoBackend::new())
    }

    /// A [`BackendFactory`] making fresh echo backends.
    pub fn factory() -> BackendFactory {
        std::sync::Arc::new(|| Ok(EchoBackend::boxed()))
    }

    fn on_call(&mut self, op: Opcode, payload: &[u8], blob: &[u8], reply: Option<&mut Vec<u8>>) {
        if op == Opcode::GetCaps {
            if let Some(r) = reply {
                r.clear();
                r.extend_from_slice(bytemuck::bytes_of(&Caps::minimum()));
            }
            return;
        }
        self.digest.add(op as u16, payload, blob);
        match op {
            Opcode::Present => {
                if let Ok(p) = bytemuck::try_pod_read_unaligned::<mgpipe::calls::Present>(payload) {
                    if p.surface.slot == PANIC_SLOT {
                        panic!("echo backend asked to panic");
                    }
                }
            }
            Opcode::Finish => {
                if let Some(r) = reply {
                    r.clear();
                    r.extend_from_slice(&self.digest.count.to_le_bytes());
                    r.extend_from_slice(&self.digest.value.to_le_bytes());
                }
            }
            Opcode::BufferReadback => {
                if let (Some(r), Ok(p)) = (
                    reply,
                    bytemuck::try_pod_read_unaligned::<mgpipe::calls::BufferReadback>(payload),
                ) {
                    *r = readback_pattern(p.res.slot, p.offset, p.size.min(MAX_ECHO_REPLY));
                }
            }
            Opcode::ReadPixels => {
                if let (Some(r), Ok(p)) = (
                    reply,
                    bytemuck::try_pod_read_unaligned::<mgpipe::calls::ReadPixels>(payload),
                ) {
                    let n = u64::from(p.width) * u64::from(p.height) * 4;
                    *r = readback_pattern(p.x as u32, p.y as u64, n.min(MAX_ECHO_REPLY));
                }
            }
            Opcode::FenceWait => {
                if let (Some(r), Ok(p)) = (
                    reply,
                    bytemuck::try_pod_read_unaligned::<mgpipe::calls::FenceWait>(payload),
                ) {
                    std::thread::sleep(std::time::Duration::from_nanos(
                        p.timeout_ns.min(10_000_000_000),
                    ));
                    r.clear();
                    r.extend_from_slice(&1u32.to_le_bytes());
                }
            }
            _ => {
                if let Some(r) = reply {
                    r.clear();
                }
            }
        }
    }
}

include!(concat!(env!("OUT_DIR"), "/remote_glue_echo.rs"));
