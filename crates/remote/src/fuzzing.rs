//! Entry points for the `cargo fuzz` targets in `fuzz/` (and the tests that
//! replay their seed corpus). Not an API: hidden from the docs, may change
//! with the fuzz targets.
//!
//! Three surfaces, each taking arbitrary bytes:
//!
//! * [`decode_records`]: the record decoder alone — `split_record` +
//!   `mgpipe::dispatch` over a byte stream, with the server's ring rules
//!   (wrap markers, implicit wrap, no straddling, blobs inside the published
//!   STAGE bytes), into any applier;
//! * [`RingHarness::run`]: the real server loop (`ServerLink::serve`, the
//!   ring consumer) over real memfd segments mapped twice, the bytes laid
//!   out by a simulated client;
//! * [`control_recv`]: a control message through a real `SOCK_SEQPACKET`
//!   socket and `control::recv` (the FlatBuffers verifier and decoder),
//!   checking that a decoded message re-encodes to itself.
//!
//! Input format of the two record surfaces (one corpus serves both):
//!
//! ```text
//! 0   u8      flags: bit 0 = publish RAW_HEAD as the CMD head (one batch
//!             only); bit 1 = publish RAW_STAGE_HEAD as the STAGE head
//! 1   u8      reserved
//! 2   u16 LE  S: STAGE byte count
//! 4   u32 LE  RAW_HEAD
//! 8   u32 LE  RAW_STAGE_HEAD
//! 12  u32 LE  EVENT tail (client-written word the server reads)
//! 16  S bytes STAGE bytes (stream positions 0..S, written before anything)
//! ..  CMD batches, each: u16 LE length L, then L bytes (the ring bytes
//!     from the previous head to the next one, wrap markers included)
//! ```
//!
//! Every length is clamped to what is left of the input and to the ring.

use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::Ordering::SeqCst;

use mgpipe::wire::{
    align_record, split_record, ProtocolCorruption, RecordHeader, RECORD_HEADER_SIZE,
};
use mgpipe::{Applier, Caps, Opcode, RecordSink};

use crate::control::{self, Msg, Received};
use crate::layout::*;
use crate::server::{Dispatcher, ServeEnd, ServerLink};
use crate::testing::Digest;
use crate::ApplierDispatch;

/// Ring and area capacity used by every harness (the smallest accepted, so
/// wrap-around is reachable with small inputs).
pub const RING: usize = MIN_CAPACITY;
/// Size of the input prologue.
pub const PROLOGUE: usize = 16;
/// Largest reply [`NullBackend`] produces (more than the REPLY area, so the
/// overflow path is reachable).
pub const NULL_MAX_REPLY: u64 = 2 * RING as u64;

/// An applier that does nothing, quickly: no sleeps, bounded replies.
/// `get_caps` answers `Caps::minimum()`; other reply calls answer
/// deterministic bytes (`read_pixels`/`buffer_readback`: the requested
/// size capped at [`NULL_MAX_REPLY`]; `finish`: call count and digest).
#[derive(Debug, Default)]
pub struct NullBackend {
    pub digest: Digest,
}

impl NullBackend {
    fn on_call(&mut self, op: Opcode, payload: &[u8], blob: &[u8], reply: Option<&mut Vec<u8>>) {
        self.digest.add(op as u16, payload, blob);
        let Some(r) = reply else { return };
        r.clear();
        match op {
            Opcode::GetCaps => r.extend_from_slice(bytemuck::bytes_of(&Caps::minimum())),
            Opcode::Finish => {
                r.extend_from_slice(&self.digest.count.to_le_bytes());
                r.extend_from_slice(&self.digest.value.to_le_bytes());
            }
            Opcode::ReadPixels => {
                if let Ok(p) =
                    bytemuck::try_pod_read_unaligned::<mgpipe::calls::ReadPixels>(payload)
                {
                    let n = (u64::from(p.width) * u64::from(p.height)).saturating_mul(4);
                    r.resize(n.min(NULL_MAX_REPLY) as usize, 0x5a);
                }
            }
            Opcode::BufferReadback => {
                if let Ok(p) =
                    bytemuck::try_pod_read_unaligned::<mgpipe::calls::BufferReadback>(payload)
                {
                    r.resize(p.size.min(NULL_MAX_REPLY) as usize, 0xa5);
                }
            }
            _ => r.extend_from_slice(&1u32.to_le_bytes()),
        }
    }
}

include!(concat!(env!("OUT_DIR"), "/remote_glue_null.rs"));

/// A parsed fuzz input (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct Input<'a> {
    pub raw_head: Option<u64>,
    pub raw_stage_head: Option<u64>,
    pub event_tail: u64,
    pub stage: &'a [u8],
    pub batches: Vec<&'a [u8]>,
}

fn u16_at(d: &[u8], o: usize) -> u16 {
    u16::from_le_bytes([d[o], d[o + 1]])
}
fn u32_at(d: &[u8], o: usize) -> u32 {
    u32::from_le_bytes([d[o], d[o + 1], d[o + 2], d[o + 3]])
}

/// Parse arbitrary bytes (never fails: short inputs are zero-extended).
pub fn parse_input(data: &[u8]) -> Input<'_> {
    let mut pro = [0u8; PROLOGUE];
    let n = data.len().min(PROLOGUE);
    pro[..n].copy_from_slice(&data[..n]);
    let mut rest = &data[n..];
    let flags = pro[0];
    let s = (u16_at(&pro, 2) as usize).min(rest.len()).min(RING);
    let stage = &rest[..s];
    rest = &rest[s..];
    let mut batches = Vec::new();
    while rest.len() >= 2 {
        let l = (u16_at(rest, 0) as usize).min(rest.len() - 2);
        batches.push(&rest[2..2 + l]);
        rest = &rest[2 + l..];
    }
    Input {
        raw_head: (flags & 1 != 0).then(|| u64::from(u32_at(&pro, 4))),
        raw_stage_head: (flags & 2 != 0).then(|| u64::from(u32_at(&pro, 8))),
        event_tail: u64::from(u32_at(&pro, 12)),
        stage,
        batches,
    }
}

/// What a decode or serve run did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Records handed to the applier.
    pub dispatched: u64,
    /// `None`: every published record ran; else the named corruption.
    pub error: Option<String>,
}

/// The record decoder alone: walk the concatenated batches as one stream
/// (positions as in a [`RING`]-byte ring: wrap markers and a tail shorter
/// than a header are skipped, a record may not straddle the ring end),
/// split each record, resolve its blob in the STAGE bytes, dispatch.
pub fn decode_records(data: &[u8], applier: &mut dyn Applier) -> Outcome {
    let input = parse_input(data);
    let stream: Vec<u8> = input.batches.concat();
    let stage_head = input
        .raw_stage_head
        .unwrap_or(input.stage.len() as u64)
        .min(input.stage.len() as u64);
    let mut pos = 0usize;
    let mut dispatched = 0;
    let mut reply = Vec::new();
    let corrupt = |opcode: u16, offset: usize, why: &'static str| ProtocolCorruption {
        opcode,
        offset,
        why,
    };
    let result = (|| -> Result<(), ProtocolCorruption> {
        while pos < stream.len() {
            let rem = RING - pos % RING;
            if rem < RECORD_HEADER_SIZE {
                pos += rem;
                continue;
            }
            let (h, payload, len) = split_record(&stream[pos..], pos)?;
            if h.opcode == PAD_OPCODE && h.flags & PAD_FLAG != 0 {
                if len != rem {
                    return Err(corrupt(h.opcode, pos, "wrap marker short of the ring end"));
                }
                pos += len;
                continue;
            }
            if len > rem {
                return Err(corrupt(h.opcode, pos, "record straddles the ring end"));
            }
            let blob = if h.blob_len == 0 {
                &[][..]
            } else {
                let end = h.blob_offset.checked_add(h.blob_len);
                match end {
                    Some(e) if e <= stage_head => &input.stage[h.blob_offset as usize..e as usize],
                    _ => {
                        return Err(corrupt(
                            h.opcode,
                            pos,
                            "blob past the published STAGE bytes",
                        ))
                    }
                }
            };
            reply.clear();
            mgpipe::dispatch(applier, h.opcode, payload, blob, &mut reply, pos)?;
            dispatched += 1;
            pos += len;
        }
        Ok(())
    })();
    Outcome {
        dispatched,
        error: result.err().map(|c| c.to_string()),
    }
}

/// The real server loop over real shared memory. One harness serves many
/// inputs; each run maps the segments again for a fresh [`ServerLink`].
pub struct RingHarness {
    client: Segments,
}

impl RingHarness {
    pub fn new() -> std::io::Result<RingHarness> {
        let layout = Layout {
            cmd: RING,
            stage: RING,
            reply: RING,
            event: RING,
        };
        Ok(RingHarness {
            client: Segments::create(layout)?,
        })
    }

    fn reset(&self) {
        let l = self.client.layout;
        let zero = vec![0u8; l.cmd_segment_len()];
        self.client
            .cmd
            .write(C_CMD_HEAD, &zero[C_CMD_HEAD..l.cmd_segment_len()]);
        self.client.stage.write(0, &zero[..l.stage_segment_len()]);
        self.client.reply.write(0, &zero[..l.reply_segment_len()]);
        self.client.event.write(0, &zero[..l.event_segment_len()]);
    }

    /// Lay `data` out as a client would, run the server loop until it
    /// drains or stops, and check what it published. Panics (a fuzz
    /// finding) when the loop's published state contradicts its result.
    pub fn run(&mut self, data: &[u8], applier: &mut dyn Applier) -> Outcome {
        let input = parse_input(data);
        self.reset();
        let c = &self.client;
        let cap = RING as u64;
        c.stage.write(0, input.stage);
        let stage_head = input.raw_stage_head.unwrap_or(input.stage.len() as u64);
        word!(c.cmd, u64, C_STAGE_HEAD).store(stage_head, SeqCst);
        let mut batches = input.batches.iter();
        let first = batches.next().copied().unwrap_or(&[]);
        let first = &first[..first.len().min(RING)];
        write_ring(c, 0, first);
        let head = input.raw_head.unwrap_or(first.len() as u64);
        word!(c.cmd, u64, C_CMD_HEAD).store(head, SeqCst);
        word!(c.event, u64, E_TAIL).store(input.event_tail, SeqCst);
        // Drain and stop once everything published ran: the loop never
        // sleeps, so no input can hang it.
        word!(c.cmd, u32, C_SHUTDOWN).store(SHUTDOWN_DRAIN, SeqCst);
        let rest: Vec<&[u8]> = if input.raw_head.is_some() {
            Vec::new()
        } else {
            batches.copied().collect()
        };
        let server_seg = match c.map_again() {
            Ok(s) => s,
            Err(e) => panic!("mapping the segments again: {e}"),
        };
        let mut server = ServerLink::new(server_seg);
        let mut d = Feeder {
            inner: ApplierDispatch(applier),
            client: c,
            head,
            rest,
            dispatched: 0,
        };
        let end = server.serve(&mut d);
        let (dispatched, head) = (d.dispatched, d.head);
        drop(server);

        // What the loop published must agree with what it returned.
        let state = ServerState::from_u32(word!(c.cmd, u32, C_SERVER_STATE).load(SeqCst));
        let tail = word!(c.cmd, u64, C_CMD_TAIL).load(SeqCst);
        let stage_tail = word!(c.cmd, u64, C_STAGE_TAIL).load(SeqCst);
        assert!(
            stage_tail <= stage_head,
            "STAGE tail {stage_tail} past the published head {stage_head}"
        );
        assert!(
            tail <= head,
            "CMD tail {tail} past the published head {head}"
        );
        if word!(c.reply, u32, R_STATUS).load(SeqCst) == REPLY_OK {
            let n = word!(c.reply, u64, R_LEN).load(SeqCst);
            assert!(n <= cap, "reply length {n} past the REPLY area");
        }
        let error = match end {
            ServeEnd::Shutdown => {
                assert_eq!(state, Some(ServerState::Exited));
                assert_eq!(tail, head, "drained without consuming every record");
                None
            }
            ServeEnd::Fatal(f) => {
                assert_eq!(state, Some(ServerState::Fatal));
                assert!(!f.detail.is_empty(), "fatal without a detail");
                let n = word!(c.cmd, u32, C_FATAL_LEN).load(SeqCst) as usize;
                assert!(n <= FATAL_DETAIL_MAX && n > 0, "fatal detail length {n}");
                Some(f.detail)
            }
            ServeEnd::ClientGone => panic!("ClientGone without a hang-up"),
        };
        Outcome { dispatched, error }
    }
}

/// Write `bytes` into the CMD ring at stream position `pos`, wrapping.
fn write_ring(c: &Segments, pos: u64, bytes: &[u8]) {
    let cap = c.layout.cmd;
    let off = (pos % cap as u64) as usize;
    let first = bytes.len().min(cap - off);
    c.cmd.write(CTRL_SIZE + off, &bytes[..first]);
    c.cmd.write(CTRL_SIZE, &bytes[first..]);
}

/// The server's dispatch target in [`RingHarness`]: forwards to the
/// applier, and when the last published record has run, publishes the
/// next batch (as a client that waited for the server to catch up would),
/// so one input can go round the ring more than once.
struct Feeder<'a> {
    inner: ApplierDispatch<'a>,
    client: &'a Segments,
    head: u64,
    rest: Vec<&'a [u8]>,
    dispatched: u64,
}

impl Dispatcher for Feeder<'_> {
    fn dispatch(
        &mut self,
        opcode: u16,
        payload: &[u8],
        blob: &[u8],
        reply: &mut Vec<u8>,
        offset: usize,
    ) -> Result<(), ProtocolCorruption> {
        let r = self.inner.dispatch(opcode, payload, blob, reply, offset);
        if r.is_ok() {
            self.dispatched += 1;
        }
        if r.is_ok() && !self.rest.is_empty() {
            let cap = self.client.layout.cmd as u64;
            let at = offset as u64;
            let mut hb = [0u8; RECORD_HEADER_SIZE];
            self.client
                .cmd
                .read(CTRL_SIZE + (at % cap) as usize, &mut hb);
            let h: RecordHeader = bytemuck::pod_read_unaligned(&hb);
            if at + u64::from(h.len) == self.head {
                // Only the record now running is unconsumed: the rest of
                // the ring is free for the next batch.
                let next = self.rest.remove(0);
                let room = (cap - u64::from(h.len)) as usize;
                let next = &next[..next.len().min(room)];
                write_ring(self.client, self.head, next);
                self.head += next.len() as u64;
                word!(self.client.cmd, u64, C_CMD_HEAD).store(self.head, SeqCst);
            }
        }
        r
    }
}

// ---------------------------------------------------------------- control

thread_local! {
    static PAIR: std::cell::RefCell<Option<(OwnedFd, OwnedFd)>> =
        const { std::cell::RefCell::new(None) };
}

/// Decode `data` as one control message, directly and after a trip
/// through a real `SOCK_SEQPACKET` socket (`control::recv`); both must
/// agree, and a decoded message must re-encode to itself. Returns the
/// message's name or the decoder's error.
pub fn control_recv(data: &[u8]) -> Result<&'static str, String> {
    let direct = control::decode(data);
    if let Ok(m) = &direct {
        let again = control::decode(&control::encode(m));
        assert_eq!(again.as_ref(), Ok(m), "re-encoded message differs");
    }
    // A zero-length datagram reads as a hang-up (recv's contract); the
    // transport never sends one.
    if !data.is_empty() && data.len() <= control::MAX_MESSAGE {
        let via_socket = PAIR.with(|p| {
            let mut p = p.borrow_mut();
            if p.is_none() {
                *p = Some(control::socketpair().expect("socketpair"));
            }
            let (a, b) = p.as_ref().expect("pair");
            let n = rustix::net::send(a, data, rustix::net::SendFlags::NOSIGNAL).expect("send");
            assert_eq!(n, data.len(), "short send");
            match control::recv(b.as_fd()) {
                Ok(Ok(Received::Msg(m, fds))) => {
                    assert!(fds.is_empty());
                    Ok(m)
                }
                Ok(Ok(Received::HangUp)) => panic!("hang-up on a live socket"),
                Ok(Err(e)) => Err(e),
                Err(e) => panic!("recv: {e}"),
            }
        });
        assert_eq!(via_socket, direct, "socket and direct decode differ");
    }
    direct.map(|m| m.name())
}

/// Encoded examples of every control message (the control seed corpus).
pub fn control_seeds() -> Vec<(String, Vec<u8>)> {
    use crate::types::{FatalReason, RefuseReason};
    let link = control::LinkTerms {
        cmd_bytes: 4 << 20,
        stage_bytes: 64 << 20,
        reply_bytes: 32 << 20,
        event_bytes: 256 << 10,
        max_reply_bytes: 32 << 20,
        adoption_tier: 0,
    };
    let msgs = [
        (
            "hello",
            Msg::Hello {
                abi_version: ABI_VERSION,
                // Fixed, so the seed does not change with the catalogue.
                catalogue_hash: 0x0123_4567_89ab_cdef,
                backend_kind: "gles".into(),
                transport: "spawn".into(),
                link,
                segment_count: 4,
            },
        ),
        (
            "welcome",
            Msg::Welcome {
                abi_version: ABI_VERSION,
                segments: vec![
                    (0, 4096 + (4 << 20)),
                    (1, 64 << 20),
                    (2, 64 + (32 << 20)),
                    (3, 256 + (256 << 10)),
                ],
                reply_slots: 1,
                backend_name: "gles".into(),
            },
        ),
        (
            "caps_snapshot",
            Msg::CapsSnapshot(bytemuck::bytes_of(&Caps::minimum()).to_vec()),
        ),
        (
            "surface_op",
            Msg::SurfaceOp {
                op: 1,
                surface: 1,
                width: 640,
                height: 480,
            },
        ),
        (
            "surface_reply",
            Msg::SurfaceReply {
                surface: 1,
                ok: false,
                refuse: RefuseReason::UnsupportedSurface,
                detail: "window surfaces are not supported over spawn".into(),
            },
        ),
        (
            "refuse_catalogue",
            Msg::Refuse {
                reason: RefuseReason::CatalogueMismatch,
                detail: "client catalogue hash 0x1, server catalogue hash 0x2".into(),
            },
        ),
        (
            "refuse_abi",
            Msg::Refuse {
                reason: RefuseReason::AbiMismatch,
                detail: "client ABI 2, server ABI 1".into(),
            },
        ),
        (
            "fatal",
            Msg::Fatal {
                reason: FatalReason::ProtocolCorruption,
                detail: "protocol corruption: opcode 7 at offset 64: unknown opcode".into(),
            },
        ),
        ("goodbye", Msg::Goodbye),
    ];
    msgs.into_iter()
        .map(|(n, m)| (n.to_string(), control::encode(&m)))
        .collect()
}

// ---------------------------------------------------------------- seeds

/// Frames records exactly as the ring client does (header + payload padded
/// to 8; a wrap marker, or an implicit skip for a tail shorter than a
/// header, where a record would straddle the ring end; blobs appended to
/// the STAGE stream without straddling), cutting a new batch at every
/// reply call and whenever a batch would pass `batch_max` bytes.
pub struct Framer {
    pub stage: Vec<u8>,
    pub batches: Vec<Vec<u8>>,
    head: u64,
    batch_max: usize,
    reply_seq: u32,
}

impl Framer {
    pub fn new(batch_max: usize) -> Framer {
        Framer {
            stage: Vec::new(),
            batches: vec![Vec::new()],
            head: 0,
            batch_max: batch_max.min(RING / 2),
            reply_seq: 0,
        }
    }

    fn push(&mut self, opcode: u16, payload: &[u8], blob: &[u8], reply_slot: u32) {
        let cap = RING as u64;
        let len = align_record(RECORD_HEADER_SIZE + payload.len()) as u64;
        let blob_offset = if blob.is_empty() {
            self.stage.len() as u64
        } else {
            let (skip, pos) = place(self.stage.len() as u64, cap, blob.len() as u64);
            self.stage.resize(self.stage.len() + skip as usize, 0);
            self.stage.extend_from_slice(blob);
            pos
        };
        let (skip, _) = place(self.head, cap, len);
        let need = (skip + len) as usize;
        if self
            .batches
            .last()
            .is_some_and(|b| b.len() + need > self.batch_max)
        {
            self.batches.push(Vec::new());
        }
        let b = self.batches.last_mut().expect("a batch");
        if skip > 0 {
            let mut gap = vec![0u8; skip as usize];
            if skip >= RECORD_HEADER_SIZE as u64 {
                let pad = RecordHeader {
                    opcode: PAD_OPCODE,
                    flags: PAD_FLAG,
                    len: skip as u32,
                    ..Default::default()
                };
                gap[..RECORD_HEADER_SIZE].copy_from_slice(bytemuck::bytes_of(&pad));
            }
            b.extend_from_slice(&gap);
        }
        let h = RecordHeader {
            opcode,
            flags: 0,
            len: len as u32,
            payload_len: payload.len() as u32,
            reply_slot,
            blob_offset,
            blob_len: blob.len() as u64,
        };
        b.extend_from_slice(bytemuck::bytes_of(&h));
        b.extend_from_slice(payload);
        b.resize(
            b.len() + (len as usize - RECORD_HEADER_SIZE - payload.len()),
            0,
        );
        self.head += skip + len;
    }

    /// The fuzz input (see the module docs). None when the STAGE bytes do
    /// not fit one ring.
    pub fn input(&self) -> Option<Vec<u8>> {
        if self.stage.len() > RING {
            return None;
        }
        let mut out = vec![0u8; PROLOGUE];
        out[2..4].copy_from_slice(&(self.stage.len() as u16).to_le_bytes());
        out.extend_from_slice(&self.stage);
        for b in self.batches.iter().filter(|b| !b.is_empty()) {
            out.extend_from_slice(&(b.len() as u16).to_le_bytes());
            out.extend_from_slice(b);
        }
        Some(out)
    }
}

impl RecordSink for Framer {
    fn record(&mut self, opcode: Opcode, payload: &[u8], blob: &[u8]) {
        self.push(opcode as u16, payload, blob, 0);
    }
    fn record_sync(&mut self, opcode: Opcode, payload: &[u8], blob: &[u8], reply: &mut Vec<u8>) {
        self.reply_seq = self.reply_seq.wrapping_add(1).max(1);
        self.push(opcode as u16, payload, blob, self.reply_seq);
        // A reply call publishes: the next record starts a new batch.
        self.batches.push(Vec::new());
        reply.clear();
    }
}

/// The seed corpus of the record targets: one input per call of the
/// catalogue (a patterned payload; a blob for `has_blob` calls; a reply
/// slot for `reply_slot` calls), and [`crate::testing::demo_frame`] framed
/// in batches of three sizes (the smaller ones go round the ring).
pub fn record_seeds() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for code in 0..u16::MAX {
        let Some(op) = Opcode::from_u16(code) else {
            break;
        };
        let payload: Vec<u8> = (0..op.payload_size())
            .map(|i| if i % 4 == 0 { (i / 4 + 1) as u8 } else { 0 })
            .collect();
        let blob: Vec<u8> = if op.flags().contains(mgpipe::CallFlags::HAS_BLOB) {
            (0..24u8).collect()
        } else {
            Vec::new()
        };
        let mut f = Framer::new(RING / 2);
        if op.flags().contains(mgpipe::CallFlags::REPLY_SLOT) {
            f.record_sync(op, &payload, &blob, &mut Vec::new());
        } else {
            f.record(op, &payload, &blob);
        }
        if let Some(i) = f.input() {
            out.push((format!("call_{code:03}_{}", op.name()), i));
        }
    }
    for batch in [RING / 2, 512, 200] {
        let mut e = mgpipe::Encoder(Framer::new(batch));
        crate::testing::demo_frame(&mut e);
        if let Some(i) = e.0.input() {
            out.push((format!("demo_frame_batch{batch}"), i));
        }
    }
    out
}

/// The client's EVENT ring walk over bytes a (possibly hostile) server
/// wrote: `data` is the consumer tail and producer head (u64 LE each) and
/// then the ring itself. Returns how many events decoded. The walk must end
/// inside `[tail, head]` whatever the bytes say.
pub fn event_ring(data: &[u8]) -> usize {
    let Some((idx, ring)) = data.split_first_chunk::<16>() else {
        return 0;
    };
    let mut t = [0u8; 8];
    t.copy_from_slice(&idx[..8]);
    let tail = u64::from_le_bytes(t);
    t.copy_from_slice(&idx[8..]);
    let head = u64::from_le_bytes(t);
    let mut out = Vec::new();
    let w = crate::client::walk_event_ring(
        |off, dst| match off
            .checked_add(dst.len())
            .and_then(|end| ring.get(off..end))
        {
            Some(src) => {
                dst.copy_from_slice(src);
                true
            }
            None => false,
        },
        ring.len() as u64,
        tail,
        head,
        &mut out,
    );
    assert!(
        w.tail == tail || w.tail <= head.max(tail),
        "walk left the published range: tail {tail} head {head} end {}",
        w.tail
    );
    out.len()
}

/// Seed inputs for the `events` target: a ring holding one record of every
/// event kind, a wrapped ring, and a few malformed headers.
pub fn event_seeds() -> Vec<(String, Vec<u8>)> {
    use mgpipe::event::{encode, Event, LogLevel};
    let events = [
        Event::GlError {
            code: 0x0505,
            opcode: 7,
        },
        Event::GpuWritten {
            res: mgpipe::Handle::new(2, 1),
            offset: 8,
            len: 64,
        },
        Event::BufferWriteback {
            res: mgpipe::Handle::new(2, 1),
            offset: 8,
            bytes: vec![1, 2, 3, 4, 5, 6, 7],
        },
        Event::SurfaceChanged {
            surface: mgpipe::Handle::new(1, 1),
            width: 64,
            height: 32,
        },
        Event::CapsInvalidated,
        Event::FenceSignaled {
            fence: mgpipe::Handle::new(3, 2),
        },
        Event::Log {
            level: LogLevel::Warn,
            text: "seed".into(),
        },
    ];
    let ring: Vec<u8> = events.iter().flat_map(encode).collect();
    let framed = |tail: u64, head: u64, ring: &[u8]| {
        let mut v = tail.to_le_bytes().to_vec();
        v.extend_from_slice(&head.to_le_bytes());
        v.extend_from_slice(ring);
        v
    };
    let mut seeds = vec![("all_kinds".to_string(), framed(0, ring.len() as u64, &ring))];
    // Wrapped: the stream started one lap earlier.
    let lap = ring.len() as u64;
    seeds.push(("wrapped".into(), framed(lap, 2 * lap, &ring)));
    let mut bad_len = ring.clone();
    bad_len[0] = 3;
    seeds.push(("bad_len".into(), framed(0, lap, &bad_len)));
    seeds.push(("head_behind".into(), framed(64, 8, &ring)));
    seeds
}
