//! MGPipe: the one narrow interface between the frontend (GL semantics) and a
//! backend (the real driver).
//!
//! Owns: handles, the payload PODs and tables generated from
//! `catalogue/calls.toml`, wire framing, the caps snapshot.
//! Must never touch: a driver, shared memory, threads, or any process-local
//! handle (rule G). No `unsafe` here.
#![forbid(unsafe_code)]

pub mod align;
pub mod bytes;
pub mod caps;
pub mod consts;
pub mod event;
pub mod handle;
pub mod pixels;
pub mod table;
pub mod wire;

/// Everything generated from `catalogue/calls.toml` by `mgpipe-codegen`
/// (docs/MGPIPE.md): payload PODs, opcode table, the Screen/Context/Pipe
/// tables, Direct/Encoder glue, dispatch, verifier and coverage map.
pub mod gen {
    include!(concat!(env!("OUT_DIR"), "/mgpipe_generated.rs"));
}

pub use caps::Caps;
pub use gen::*;
pub use handle::{Handle, HandleKind, SlotAllocator};
pub use wire::{ProtocolCorruption, RecordHeader};
