//! Byte layout of the four segments (identical on both sides of a link).
//!
//! * `CMD`: a 4 KiB control block (indices, doorbells, server state, fatal
//!   detail) followed by the record ring.
//! * `STAGE`: the blob byte ring, the whole segment.
//! * `REPLY`: a 64-byte reply header followed by the reply data area (one
//!   slot: the client has at most one synchronous call in flight).
//! * `EVENT`: a 256-byte header followed by the server→client event ring.
//!
//! Positions in every ring are monotonic `u64` stream positions; the byte
//! offset inside the ring is `pos % capacity`. Nothing ever straddles the end
//! of a ring: the producer pads to the end and restarts at offset 0.

use std::io;
use std::os::fd::OwnedFd;

use crate::shm::Segment;

pub const MAGIC: u32 = u32::from_le_bytes(*b"MGL1");
/// Bumped whenever this layout or the ring framing changes.
pub const ABI_VERSION: u32 = 2;

// ---- CMD control block -------------------------------------------------
pub const CTRL_SIZE: usize = 4096;
pub const C_MAGIC: usize = 0;
pub const C_ABI: usize = 4;
pub const C_CMD_CAP: usize = 8;
pub const C_STAGE_CAP: usize = 16;
pub const C_REPLY_CAP: usize = 24;
pub const C_EVENT_CAP: usize = 32;
/// Client-written: end of published records.
pub const C_CMD_HEAD: usize = 64;
/// Server-written: end of consumed records.
pub const C_CMD_TAIL: usize = 128;
/// Client-written: end of published blob bytes.
pub const C_STAGE_HEAD: usize = 192;
/// Server-written: blob bytes before this position are released.
pub const C_STAGE_TAIL: usize = 256;
/// The server's doorbell (it sleeps on it waiting for records).
pub const C_SERVER_BELL: usize = 320;
/// The client's doorbell (it sleeps on it waiting for space or a reply).
pub const C_CLIENT_BELL: usize = 384;
/// Server-written [`ServerState`].
pub const C_SERVER_STATE: usize = 448;
/// Client (or the server's own socket watcher) asks the loop to stop:
/// [`SHUTDOWN_DRAIN`] or [`SHUTDOWN_NOW`].
pub const C_SHUTDOWN: usize = 512;
pub const C_FATAL_REASON: usize = 576;
pub const C_FATAL_OPCODE: usize = 580;
pub const C_FATAL_OFFSET: usize = 584;
pub const C_FATAL_LEN: usize = 592;
pub const C_FATAL_DETAIL: usize = 640;
pub const FATAL_DETAIL_MAX: usize = 1024;
/// Client-written before it sleeps waiting for CMD space: the CMD tail at
/// which it wants its bell rung (`u64::MAX`: not waiting for space). The
/// server rings on a released record only when a waiter's want is met, so
/// a client asleep on a reply is not woken once per record consumed.
pub const C_WANT_CMD_TAIL: usize = 1664;
/// Client-written: likewise for the STAGE tail.
pub const C_WANT_STAGE_TAIL: usize = 1728;
const _: () = assert!(C_FATAL_DETAIL + FATAL_DETAIL_MAX <= C_WANT_CMD_TAIL);
const _: () = assert!(C_WANT_STAGE_TAIL + 8 <= CTRL_SIZE);

pub const SHUTDOWN_NONE: u32 = 0;
pub const SHUTDOWN_DRAIN: u32 = 1;
pub const SHUTDOWN_NOW: u32 = 2;

/// What the server loop is doing, as published in the control block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum ServerState {
    Starting = 0,
    Running = 1,
    Fatal = 2,
    Exited = 3,
}

impl ServerState {
    pub fn from_u32(v: u32) -> Option<ServerState> {
        Some(match v {
            0 => ServerState::Starting,
            1 => ServerState::Running,
            2 => ServerState::Fatal,
            3 => ServerState::Exited,
            _ => return None,
        })
    }
}

/// Opcode of the wrap marker that pads the CMD ring to its end. Flags carry
/// [`PAD_FLAG`] as well. A tail shorter than a header is skipped implicitly.
pub const PAD_OPCODE: u16 = u16::MAX;
pub const PAD_FLAG: u16 = 0x8000;

// ---- REPLY header -------------------------------------------------------
pub const REPLY_HDR: usize = 64;
/// Server-written: sequence number of the reply now in the data area.
pub const R_SEQ: usize = 0;
pub const R_STATUS: usize = 4;
pub const R_LEN: usize = 8;
/// Server-written while a banded read-back is produced (u64): the reply's
/// sequence number in the high 32 bits, how many of its leading bytes are
/// already in the data area in the low 32 (stored after those bytes,
/// Release). Clients that ignore it just copy the whole answer at the end.
pub const R_PROGRESS: usize = 16;
pub const REPLY_OK: u32 = 0;
/// The reply did not fit the data area; no bytes were written.
pub const REPLY_OVERFLOW: u32 = 1;
/// `inproc` only: the answer was written into the memory the client lent
/// for it (`direct`), nothing into the data area. A client that lent
/// nothing treats it as no answer.
pub const REPLY_DIRECT: u32 = 2;

// ---- EVENT ring ---------------------------------------------------------
pub const EVENT_HDR: usize = 256;
pub const E_HEAD: usize = 0;
pub const E_TAIL: usize = 64;
/// Log lines dropped because the ring was full (server-written counter).
pub const E_DROPPED: usize = 128;
/// GPU-write reports (write-back or pull request) that did not fit even as
/// a pull request: the client must treat every persistent read map as stale.
pub const E_DROPPED_DATA: usize = 192;
/// Event record header (`mgpipe::event`): len u32 (total, multiple of 8),
/// kind u32, body_len u32, reserved u32.
pub const EVENT_REC_HDR: usize = mgpipe::event::HEADER_SIZE;
pub const EVENT_PAD: u32 = mgpipe::event::kind::PAD;

/// Data capacities of the four segments (the link terms of the handshake).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub cmd: usize,
    pub stage: usize,
    pub reply: usize,
    pub event: usize,
}

/// Smallest accepted capacity of any ring or area.
pub const MIN_CAPACITY: usize = 4096;
/// Largest accepted capacity (keeps every offset far from overflow).
pub const MAX_CAPACITY: usize = 1 << 34;

impl Layout {
    pub fn validate(&self) -> Result<(), String> {
        for (name, v) in [
            ("CMD", self.cmd),
            ("STAGE", self.stage),
            ("REPLY", self.reply),
            ("EVENT", self.event),
        ] {
            if !(MIN_CAPACITY..=MAX_CAPACITY).contains(&v) || v % 8 != 0 {
                return Err(format!(
                    "{name} segment size {v} must be a multiple of 8 between {MIN_CAPACITY} and {MAX_CAPACITY}"
                ));
            }
        }
        Ok(())
    }

    pub fn cmd_segment_len(&self) -> usize {
        CTRL_SIZE + self.cmd
    }
    pub fn stage_segment_len(&self) -> usize {
        self.stage
    }
    pub fn reply_segment_len(&self) -> usize {
        REPLY_HDR + self.reply
    }
    pub fn event_segment_len(&self) -> usize {
        EVENT_HDR + self.event
    }
}

/// The four mappings of one side of a link.
#[derive(Debug)]
pub struct Segments {
    pub cmd: Segment,
    pub stage: Segment,
    pub reply: Segment,
    pub event: Segment,
    pub layout: Layout,
}

/// Read a fixed control word. Every segment is at least its header size
/// (checked in [`Segments::create`]/[`Segments::from_fds`]), so fixed
/// header offsets are always in bounds; the fallback keeps it panic-free.
macro_rules! word {
    ($seg:expr, u32, $off:expr) => {
        match $seg.u32_at($off) {
            Some(w) => w,
            None => &$crate::layout::DUMMY_U32,
        }
    };
    ($seg:expr, u64, $off:expr) => {
        match $seg.u64_at($off) {
            Some(w) => w,
            None => &$crate::layout::DUMMY_U64,
        }
    };
}
pub(crate) use word;

/// Never used in practice (see [`word!`]); exists so that header access is
/// total without a panic path.
pub static DUMMY_U32: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
pub static DUMMY_U64: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Segments {
    /// Client side: create and initialise fresh memfds.
    pub fn create(layout: Layout) -> io::Result<Segments> {
        layout
            .validate()
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        let s = Segments {
            cmd: Segment::create("mobilegl-cmd", layout.cmd_segment_len())?,
            stage: Segment::create("mobilegl-stage", layout.stage_segment_len())?,
            reply: Segment::create("mobilegl-reply", layout.reply_segment_len())?,
            event: Segment::create("mobilegl-event", layout.event_segment_len())?,
            layout,
        };
        use std::sync::atomic::Ordering::Release;
        word!(s.cmd, u32, C_ABI).store(ABI_VERSION, Release);
        word!(s.cmd, u64, C_CMD_CAP).store(layout.cmd as u64, Release);
        word!(s.cmd, u64, C_STAGE_CAP).store(layout.stage as u64, Release);
        word!(s.cmd, u64, C_REPLY_CAP).store(layout.reply as u64, Release);
        word!(s.cmd, u64, C_EVENT_CAP).store(layout.event as u64, Release);
        word!(s.cmd, u32, C_MAGIC).store(MAGIC, Release);
        Ok(s)
    }

    /// Second mappings of the same memfds (inproc server thread).
    pub fn map_again(&self) -> io::Result<Segments> {
        Ok(Segments {
            cmd: self.cmd.map_again()?,
            stage: self.stage.map_again()?,
            reply: self.reply.map_again()?,
            event: self.event.map_again()?,
            layout: self.layout,
        })
    }

    /// Server side: map fds received from the client, checking sizes and the
    /// control block against the announced layout.
    pub fn from_fds(fds: [OwnedFd; 4], layout: Layout) -> Result<Segments, String> {
        layout.validate()?;
        let [cmd, stage, reply, event] = fds;
        let map = |fd, len, name: &str| {
            Segment::from_fd(fd, len).map_err(|e| format!("{name} segment: {e}"))
        };
        let s = Segments {
            cmd: map(cmd, layout.cmd_segment_len(), "CMD")?,
            stage: map(stage, layout.stage_segment_len(), "STAGE")?,
            reply: map(reply, layout.reply_segment_len(), "REPLY")?,
            event: map(event, layout.event_segment_len(), "EVENT")?,
            layout,
        };
        s.check_ctrl()?;
        Ok(s)
    }

    /// The control block must name this layout (read once, compared).
    pub fn check_ctrl(&self) -> Result<(), String> {
        use std::sync::atomic::Ordering::Acquire;
        let magic = word!(self.cmd, u32, C_MAGIC).load(Acquire);
        let abi = word!(self.cmd, u32, C_ABI).load(Acquire);
        if magic != MAGIC {
            return Err(format!(
                "CMD control block magic {magic:#x}, expected {MAGIC:#x}"
            ));
        }
        if abi != ABI_VERSION {
            return Err(format!(
                "CMD control block ABI {abi}, expected {ABI_VERSION}"
            ));
        }
        let caps = [
            word!(self.cmd, u64, C_CMD_CAP).load(Acquire),
            word!(self.cmd, u64, C_STAGE_CAP).load(Acquire),
            word!(self.cmd, u64, C_REPLY_CAP).load(Acquire),
            word!(self.cmd, u64, C_EVENT_CAP).load(Acquire),
        ];
        let want = [
            self.layout.cmd,
            self.layout.stage,
            self.layout.reply,
            self.layout.event,
        ]
        .map(|v| v as u64);
        if caps != want {
            return Err(format!(
                "control block capacities {caps:?} differ from the link terms {want:?}"
            ));
        }
        Ok(())
    }
}

/// Where a write of `len` bytes lands in a ring of `cap` bytes when the
/// producer is at `head`: returns (bytes skipped to reach the start, new
/// position). Never straddles the end. Requires `len <= cap`.
pub fn place(head: u64, cap: u64, len: u64) -> (u64, u64) {
    let off = head % cap;
    if off + len > cap {
        let skip = cap - off;
        (skip, head + skip)
    } else {
        (0, head)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn place_never_straddles() {
        assert_eq!(place(0, 100, 100), (0, 0));
        assert_eq!(place(60, 100, 40), (0, 60));
        assert_eq!(place(60, 100, 41), (40, 100));
        assert_eq!(place(260, 100, 50), (40, 300));
        for head in 0..300u64 {
            for len in 0..=100u64 {
                let (skip, pos) = place(head, 100, len);
                assert_eq!(pos, head + skip);
                assert!(pos % 100 + len <= 100);
            }
        }
    }

    #[test]
    fn layout_validation_names_the_segment() {
        let bad = Layout {
            cmd: 4096,
            stage: 100,
            reply: 4096,
            event: 4096,
        };
        assert!(bad.validate().unwrap_err().contains("STAGE"));
        let s = Segments::create(Layout {
            cmd: 4096,
            stage: 8192,
            reply: 4096,
            event: 4096,
        })
        .unwrap();
        let s2 = s.map_again().unwrap();
        s2.check_ctrl().unwrap();
    }
}
