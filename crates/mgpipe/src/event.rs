//! The reverse channel: what a backend tells the frontend (DESIGN §4, the
//! EVENT ring), in the order it happened.
//!
//! Ordering rule (DESIGN §2.9): a backend queues an event while it applies
//! the record that caused it, and the transport publishes every queued event
//! before the reply of any later record. So a write-back always lands before
//! the fence or finish that makes it visible to the application.
//!
//! The wire form is one record per event: a 16-byte header
//! (`len` u32 total padded to 8, `kind` u32, `body_len` u32, reserved u32)
//! and a little-endian body. [`encode`] and [`decode`] are the only code that
//! knows the body layouts; [`decode`] checks every length before use.

use crate::Handle;

/// Log severity of an [`Event::Log`] line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogLevel {
    Info,
    Warn,
    Error,
}

/// One server→client notification.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// `on_gl_error`: applying call `opcode` raised a GL error the frontend
    /// cannot detect itself (today: `GL_OUT_OF_MEMORY` from the driver).
    GlError { code: u32, opcode: u16 },
    /// `on_gpu_written`: the GPU wrote `[offset, offset+len)` of buffer
    /// `res`, which the client maps persistently for reading, and the bytes
    /// did not travel as a write-back: the client must pull them.
    GpuWritten { res: Handle, offset: u64, len: u64 },
    /// `on_buffer_writeback`: the bytes the GPU wrote at `offset` of buffer
    /// `res` (a persistent read map's range), pushed so the client does not
    /// need a round trip.
    BufferWriteback {
        res: Handle,
        offset: u64,
        bytes: Vec<u8>,
    },
    /// `on_surface_changed`: the backend's surface now has this size (a
    /// window resized under us); the default framebuffer follows it.
    SurfaceChanged {
        surface: Handle,
        width: u32,
        height: u32,
    },
    /// `on_caps_invalidated`: the caps snapshot the client holds is stale;
    /// ask again with `get_caps`.
    CapsInvalidated,
    /// `on_log`: a backend log line, for the client's log.
    Log { level: LogLevel, text: String },
    /// A completion: fence `fence` (from `fence_insert`) has signalled, so
    /// the client answers later polls of it without a round trip.
    FenceSignaled { fence: Handle },
}

/// Event record kinds on the wire (the `kind` header word).
pub mod kind {
    pub const LOG_INFO: u32 = 1;
    pub const LOG_WARN: u32 = 2;
    pub const LOG_ERROR: u32 = 3;
    pub const GL_ERROR: u32 = 4;
    pub const GPU_WRITTEN: u32 = 5;
    pub const BUFFER_WRITEBACK: u32 = 6;
    pub const SURFACE_CHANGED: u32 = 7;
    pub const CAPS_INVALIDATED: u32 = 8;
    pub const FENCE_SIGNALED: u32 = 9;
    /// Filler to the end of the ring before a wrap; never an event.
    pub const PAD: u32 = u32::MAX;
}

/// Size of the event record header.
pub const HEADER_SIZE: usize = 16;

/// Why an event record could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EventDecodeError {
    #[error("event kind {kind}: body of {len} bytes is too short (needs {need})")]
    ShortBody { kind: u32, len: usize, need: usize },
    #[error("unknown event kind {0}")]
    UnknownKind(u32),
}

fn handle_bytes(h: Handle) -> [u8; 8] {
    let mut b = [0u8; 8];
    b[..4].copy_from_slice(&h.slot.to_le_bytes());
    b[4..].copy_from_slice(&h.gen.to_le_bytes());
    b
}

impl Event {
    /// The wire kind of this event.
    pub fn kind(&self) -> u32 {
        match self {
            Event::GlError { .. } => kind::GL_ERROR,
            Event::GpuWritten { .. } => kind::GPU_WRITTEN,
            Event::BufferWriteback { .. } => kind::BUFFER_WRITEBACK,
            Event::SurfaceChanged { .. } => kind::SURFACE_CHANGED,
            Event::CapsInvalidated => kind::CAPS_INVALIDATED,
            Event::FenceSignaled { .. } => kind::FENCE_SIGNALED,
            Event::Log { level, .. } => match level {
                LogLevel::Info => kind::LOG_INFO,
                LogLevel::Warn => kind::LOG_WARN,
                LogLevel::Error => kind::LOG_ERROR,
            },
        }
    }

    /// Append the body (not the header) to `out`.
    pub fn encode_body(&self, out: &mut Vec<u8>) {
        match self {
            Event::GlError { code, opcode } => {
                out.extend_from_slice(&code.to_le_bytes());
                out.extend_from_slice(&u32::from(*opcode).to_le_bytes());
            }
            Event::GpuWritten { res, offset, len } => {
                out.extend_from_slice(&handle_bytes(*res));
                out.extend_from_slice(&offset.to_le_bytes());
                out.extend_from_slice(&len.to_le_bytes());
            }
            Event::BufferWriteback { res, offset, bytes } => {
                out.extend_from_slice(&handle_bytes(*res));
                out.extend_from_slice(&offset.to_le_bytes());
                out.extend_from_slice(bytes);
            }
            Event::SurfaceChanged {
                surface,
                width,
                height,
            } => {
                out.extend_from_slice(&handle_bytes(*surface));
                out.extend_from_slice(&width.to_le_bytes());
                out.extend_from_slice(&height.to_le_bytes());
            }
            Event::CapsInvalidated => {}
            Event::Log { text, .. } => out.extend_from_slice(text.as_bytes()),
            Event::FenceSignaled { fence } => out.extend_from_slice(&handle_bytes(*fence)),
        }
    }

    /// Body length in bytes.
    pub fn body_len(&self) -> usize {
        match self {
            Event::GlError { .. } => 8,
            Event::GpuWritten { .. } => 24,
            Event::BufferWriteback { bytes, .. } => 16 + bytes.len(),
            Event::SurfaceChanged { .. } => 16,
            Event::CapsInvalidated => 0,
            Event::Log { text, .. } => text.len(),
            Event::FenceSignaled { .. } => 8,
        }
    }
}

/// Encode one whole record (header + body + zero padding to 8 bytes).
pub fn encode(e: &Event) -> Vec<u8> {
    let body = e.body_len();
    let len = (HEADER_SIZE + body).next_multiple_of(8);
    let mut out = Vec::with_capacity(len);
    out.extend_from_slice(&(len as u32).to_le_bytes());
    out.extend_from_slice(&e.kind().to_le_bytes());
    out.extend_from_slice(&(body as u32).to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    e.encode_body(&mut out);
    out.resize(len, 0);
    out
}

fn need(kind: u32, body: &[u8], n: usize) -> Result<(), EventDecodeError> {
    if body.len() < n {
        Err(EventDecodeError::ShortBody {
            kind,
            len: body.len(),
            need: n,
        })
    } else {
        Ok(())
    }
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(w)
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

fn handle_at(b: &[u8], at: usize) -> Handle {
    Handle::new(u32_at(b, at), u32_at(b, at + 4))
}

/// Decode the body of one record of `kind`. Lengths are checked before any
/// read; a log text that is not UTF-8 is decoded lossily.
pub fn decode(kind: u32, body: &[u8]) -> Result<Event, EventDecodeError> {
    Ok(match kind {
        kind::LOG_INFO | kind::LOG_WARN | kind::LOG_ERROR => Event::Log {
            level: match kind {
                kind::LOG_ERROR => LogLevel::Error,
                kind::LOG_WARN => LogLevel::Warn,
                _ => LogLevel::Info,
            },
            text: String::from_utf8_lossy(body).into_owned(),
        },
        kind::GL_ERROR => {
            need(kind, body, 8)?;
            Event::GlError {
                code: u32_at(body, 0),
                opcode: u32_at(body, 4).min(u32::from(u16::MAX)) as u16,
            }
        }
        kind::GPU_WRITTEN => {
            need(kind, body, 24)?;
            Event::GpuWritten {
                res: handle_at(body, 0),
                offset: u64_at(body, 8),
                len: u64_at(body, 16),
            }
        }
        kind::BUFFER_WRITEBACK => {
            need(kind, body, 16)?;
            Event::BufferWriteback {
                res: handle_at(body, 0),
                offset: u64_at(body, 8),
                bytes: body[16..].to_vec(),
            }
        }
        kind::SURFACE_CHANGED => {
            need(kind, body, 16)?;
            Event::SurfaceChanged {
                surface: handle_at(body, 0),
                width: u32_at(body, 8),
                height: u32_at(body, 12),
            }
        }
        kind::CAPS_INVALIDATED => Event::CapsInvalidated,
        kind::FENCE_SIGNALED => {
            need(kind, body, 8)?;
            Event::FenceSignaled {
                fence: handle_at(body, 0),
            }
        }
        k => return Err(EventDecodeError::UnknownKind(k)),
    })
}

/// A backend's outbox: events queued while applying records, taken by the
/// transport through `Screen::drain_events`.
#[derive(Debug, Default)]
pub struct EventQueue {
    pending: Vec<Event>,
}

impl EventQueue {
    pub fn push(&mut self, e: Event) {
        self.pending.push(e);
    }
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }
    /// Move everything queued into `out`, oldest first.
    pub fn drain_into(&mut self, out: &mut Vec<Event>) {
        out.append(&mut self.pending);
    }
}

/// The persistent maps a client announced with `map_persistent`, so a
/// backend knows which GPU writes it must report (`on_buffer_writeback` /
/// `on_gpu_written`). Backend-neutral; each backend owns one.
#[derive(Debug, Default)]
pub struct PersistentMaps {
    maps: Vec<(Handle, u64, u64)>,
}

impl PersistentMaps {
    /// Record (or replace) the read map of `res` over `[offset, offset+len)`.
    pub fn insert(&mut self, res: Handle, offset: u64, len: u64) {
        self.remove(res);
        self.maps.push((res, offset, len));
    }
    pub fn remove(&mut self, res: Handle) {
        self.maps.retain(|m| m.0 != res);
    }
    pub fn is_empty(&self) -> bool {
        self.maps.is_empty()
    }
    /// The part of `[offset, offset+len)` of `res` that a read map covers.
    pub fn overlap(&self, res: Handle, offset: u64, len: u64) -> Option<(u64, u64)> {
        let &(_, mo, ml) = self.maps.iter().find(|m| m.0 == res)?;
        let lo = offset.max(mo);
        let hi = offset.saturating_add(len).min(mo.saturating_add(ml));
        (hi > lo).then_some((lo, hi - lo))
    }
}

/// Largest write-back a backend sends as bytes; a larger GPU write is
/// announced with [`Event::GpuWritten`] and pulled by the client.
pub const MAX_WRITEBACK: u64 = 32 << 10;

/// Report a GPU write of `[offset, offset+len)` into `res`, if a persistent
/// read map covers it: `read` fetches the bytes of the covered range (small
/// ranges travel as a write-back, larger ones as a pull request).
pub fn report_gpu_write(
    maps: &PersistentMaps,
    events: &mut EventQueue,
    res: Handle,
    offset: u64,
    len: u64,
    read: impl FnOnce(u64, u64) -> Option<Vec<u8>>,
) {
    let Some((at, n)) = maps.overlap(res, offset, len) else {
        return;
    };
    let bytes = if n <= MAX_WRITEBACK {
        read(at, n)
    } else {
        None
    };
    events.push(match bytes {
        Some(bytes) => Event::BufferWriteback {
            res,
            offset: at,
            bytes,
        },
        None => Event::GpuWritten {
            res,
            offset: at,
            len: n,
        },
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> Vec<Event> {
        vec![
            Event::GlError {
                code: 0x0505,
                opcode: 17,
            },
            Event::GpuWritten {
                res: Handle::new(3, 2),
                offset: 64,
                len: 1 << 20,
            },
            Event::BufferWriteback {
                res: Handle::new(4, 1),
                offset: 8,
                bytes: vec![1, 2, 3, 4, 5],
            },
            Event::SurfaceChanged {
                surface: Handle::new(1, 1),
                width: 640,
                height: 480,
            },
            Event::CapsInvalidated,
            Event::Log {
                level: LogLevel::Warn,
                text: "hello".into(),
            },
            Event::FenceSignaled {
                fence: Handle::new(9, 3),
            },
        ]
    }

    #[test]
    fn every_event_round_trips() {
        for e in all() {
            let rec = encode(&e);
            assert_eq!(rec.len() % 8, 0);
            let len = u32_at(&rec, 0) as usize;
            let body_len = u32_at(&rec, 8) as usize;
            assert_eq!(len, rec.len());
            let back = decode(u32_at(&rec, 4), &rec[HEADER_SIZE..HEADER_SIZE + body_len]);
            assert_eq!(back, Ok(e));
        }
    }

    #[test]
    fn short_bodies_are_named_not_read() {
        for k in [
            kind::FENCE_SIGNALED,
            kind::GL_ERROR,
            kind::GPU_WRITTEN,
            kind::BUFFER_WRITEBACK,
            kind::SURFACE_CHANGED,
        ] {
            assert!(matches!(
                decode(k, &[0u8; 7]),
                Err(EventDecodeError::ShortBody { .. })
            ));
        }
        assert_eq!(decode(99, &[]), Err(EventDecodeError::UnknownKind(99)));
    }

    #[test]
    fn writes_outside_read_maps_are_not_reported() {
        let mut maps = PersistentMaps::default();
        let mut q = EventQueue::default();
        let res = Handle::new(5, 1);
        maps.insert(res, 100, 50);
        report_gpu_write(&maps, &mut q, res, 0, 100, |_, _| panic!("not covered"));
        report_gpu_write(&maps, &mut q, Handle::new(6, 1), 100, 50, |_, _| {
            panic!("other")
        });
        assert!(q.is_empty());
        report_gpu_write(&maps, &mut q, res, 90, 20, |at, n| {
            Some(vec![7; n as usize + at as usize - 100])
        });
        let mut out = Vec::new();
        q.drain_into(&mut out);
        assert_eq!(
            out,
            vec![Event::BufferWriteback {
                res,
                offset: 100,
                bytes: vec![7; 10]
            }]
        );
        maps.insert(res, 0, 1 << 30);
        report_gpu_write(&maps, &mut q, res, 0, 1 << 20, |_, _| {
            panic!("too big to push")
        });
        q.drain_into(&mut out);
        assert_eq!(
            out[1],
            Event::GpuWritten {
                res,
                offset: 0,
                len: 1 << 20
            }
        );
        maps.remove(res);
        assert!(maps.is_empty());
    }
}
