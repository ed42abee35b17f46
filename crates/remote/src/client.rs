//! The client (producer) side of a ring link, shared by `inproc` and `spawn`.

use std::sync::atomic::Ordering::{Acquire, Relaxed, Release, SeqCst};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64};
use std::sync::{Arc, Mutex};

use mgpipe::event::{Event, LogLevel};
use mgpipe::wire::{align_record, RecordHeader, RECORD_HEADER_SIZE};
use mgpipe::Caps;

use crate::direct::DirectReply;
use crate::futex;
use crate::layout::*;
use crate::types::{FatalReason, LostReason, Stats, TransportKind};

/// Liveness flags a peer watcher (spawn: the socket watcher thread) sets.
#[derive(Debug, Default)]
pub(crate) struct PeerFlags {
    pub dead: AtomicBool,
    pub detail: Mutex<Option<String>>,
}

impl PeerFlags {
    pub fn mark_dead(&self, detail: String) {
        if let Ok(mut d) = self.detail.lock() {
            d.get_or_insert(detail);
        }
        self.dead.store(true, SeqCst);
    }
}

/// Peer lifecycle hooks (thread join, child reaping...).
pub(crate) trait PeerLife: Send {
    /// Orderly shutdown after the client asked the server to drain.
    fn shutdown(&mut self);
    /// Shutdown at process exit after the client asked the server to stop
    /// now: wait at most `grace`, then leave the peer to the exit.
    fn shutdown_within(&mut self, grace: std::time::Duration) {
        let _ = grace;
    }
    /// Extra words for a ServerDied detail (exit status...).
    fn death_detail(&mut self) -> Option<String> {
        None
    }
    /// The peer's pid when it is a process (diagnostics only).
    fn pid(&self) -> Option<u32> {
        None
    }
}

/// Publish pending records once this many bytes are waiting (fraction of
/// the ring), even without a validate point.
const PUBLISH_FRACTION: u64 = 4;

/// Publish records at least this often, so the server starts on a frame's
/// first draws while the application records the rest (with a frame's
/// records published only at its end, the two sides took turns).
const CMD_PUBLISH_MAX: u64 = 16 << 10;

/// Publish STAGE bytes at least this often, so the server copies uploads
/// out while the client writes the next ones, and both sides work on bytes
/// still in cache (measured on the `texture` benchmark: 16 MiB → 128 KiB
/// took inproc from 4.6 to 3.4 µs per upload).
const STAGE_PUBLISH_MAX: u64 = 128 << 10;

/// Blobs at least this large may restart the STAGE ring at its front when
/// the ring is empty (one shared-word load each; small blobs skip it).
const STAGE_REWIND_MIN: u64 = 4096;

/// A client waiting for ring space asks to be woken once this fraction of
/// the ring beyond its need is free (see `wait_for_space`).
const SPACE_WAKE_FRACTION: u64 = 8;
/// A reply wait polls before it sleeps only when at most this many CMD
/// bytes are ahead of the request (about a thousand small records: more
/// than a fast driver applies within the poll window).
const REPLY_POLL_BACKLOG: u64 = 64 << 10;

/// What `call_with` hands its reader.
#[derive(Clone, Copy, Debug)]
enum Delivery {
    /// While waiting: this many leading bytes of a banded answer are in
    /// REPLY (the server reads the rest meanwhile).
    Progress(usize),
    /// The answer, `len` bytes in REPLY.
    Reply(usize),
    /// The answer, `len` bytes written into the memory lent for it.
    Direct(usize),
}

pub(crate) struct RingLink {
    kind: TransportKind,
    seg: Segments,
    cmd_cap: u64,
    stage_cap: u64,
    head: u64,
    /// `head % cmd_cap`, kept alongside `head` so that the per-record fast
    /// path divides nothing.
    head_off: u64,
    /// Publish once this many CMD bytes wait (`cmd_cap / PUBLISH_FRACTION`).
    cmd_publish_at: u64,
    /// Publish once this many STAGE bytes wait.
    stage_publish_at: u64,
    published: u64,
    stage_head: u64,
    /// `stage_head % stage_cap`, kept like `head_off`.
    stage_head_off: u64,
    stage_published: u64,
    reply_seq: u32,
    event_tail: u64,
    /// Last seen consumer tails of CMD and STAGE. Tails only grow, so a
    /// stale value is conservative: the shared word is re-read only when
    /// the cached one says the ring is full (one fewer cross-core load per
    /// record).
    cmd_tail_seen: u64,
    stage_tail_seen: u64,
    /// A reply showed STAGE fully released: the next blob starts at the
    /// front of the ring (see `stage_blob`).
    stage_drained: bool,
    caps: Caps,
    stats: Stats,
    lost: Option<LostReason>,
    peer_flags: Arc<PeerFlags>,
    peer: Option<Box<dyn PeerLife>>,
    /// Decoded backend events not yet taken by `poll_events`.
    events: Vec<Event>,
    /// `inproc`: where `call_into` lends its destination to the server
    /// thread (see `direct`); None for `spawn`.
    direct: Option<Arc<DirectReply>>,
}

impl RingLink {
    pub fn new(
        kind: TransportKind,
        seg: Segments,
        caps: Caps,
        peer_flags: Arc<PeerFlags>,
        peer: Box<dyn PeerLife>,
    ) -> RingLink {
        let l = seg.layout;
        RingLink {
            kind,
            cmd_cap: l.cmd as u64,
            stage_cap: l.stage as u64,
            head: word!(seg.cmd, u64, C_CMD_HEAD).load(Acquire),
            head_off: word!(seg.cmd, u64, C_CMD_HEAD).load(Acquire) % (l.cmd as u64).max(1),
            cmd_publish_at: (l.cmd as u64 / PUBLISH_FRACTION).min(CMD_PUBLISH_MAX),
            stage_publish_at: (l.stage as u64 / PUBLISH_FRACTION).min(STAGE_PUBLISH_MAX),
            published: word!(seg.cmd, u64, C_CMD_HEAD).load(Acquire),
            stage_head: word!(seg.cmd, u64, C_STAGE_HEAD).load(Acquire),
            stage_head_off: word!(seg.cmd, u64, C_STAGE_HEAD).load(Acquire)
                % (l.stage as u64).max(1),
            stage_published: word!(seg.cmd, u64, C_STAGE_HEAD).load(Acquire),
            reply_seq: 0,
            event_tail: word!(seg.event, u64, E_TAIL).load(Acquire),
            cmd_tail_seen: word!(seg.cmd, u64, C_CMD_TAIL).load(Acquire),
            stage_tail_seen: word!(seg.cmd, u64, C_STAGE_TAIL).load(Acquire),
            stage_drained: false,
            seg,
            caps,
            stats: Stats::default(),
            lost: None,
            peer_flags,
            peer: Some(peer),
            events: Vec::new(),
            direct: None,
        }
    }

    /// `inproc`: lend `call_into` destinations to the server thread
    /// holding the other end of `direct`.
    pub fn with_direct(mut self, direct: Arc<DirectReply>) -> RingLink {
        self.direct = Some(direct);
        self
    }

    pub fn kind(&self) -> TransportKind {
        self.kind
    }
    pub fn caps(&self) -> &Caps {
        &self.caps
    }
    pub fn stats(&self) -> Stats {
        self.stats
    }
    pub fn lost(&self) -> Option<&LostReason> {
        self.lost.as_ref()
    }
    pub fn server_pid(&self) -> Option<u32> {
        self.peer.as_ref().and_then(|p| p.pid())
    }

    fn bell(&self, off: usize) -> &AtomicU32 {
        word!(self.seg.cmd, u32, off)
    }
    fn w64(&self, off: usize) -> &AtomicU64 {
        word!(self.seg.cmd, u64, off)
    }

    /// Cheap check used inside wait loops.
    fn peer_gone(seg: &Segments, flags: &PeerFlags) -> bool {
        if flags.dead.load(SeqCst) {
            return true;
        }
        matches!(
            ServerState::from_u32(word!(seg.cmd, u32, C_SERVER_STATE).load(SeqCst)),
            Some(ServerState::Fatal | ServerState::Exited) | None
        )
    }

    fn lose(&mut self, why: LostReason) {
        if self.lost.is_none() {
            tracing::error!(transport = %self.kind, "transport lost: {why}; GL calls continue as no-ops (context lost)");
            self.lost = Some(why);
        }
    }

    /// Turn a gone peer into a named [`LostReason`]. Returns true when lost.
    fn check_peer(&mut self) -> bool {
        if self.lost.is_some() {
            return true;
        }
        if !Self::peer_gone(&self.seg, &self.peer_flags) {
            return false;
        }
        self.drain_events();
        let state = ServerState::from_u32(self.bell(C_SERVER_STATE).load(SeqCst));
        let why = if state == Some(ServerState::Fatal) {
            let c = &self.seg.cmd;
            let reason = FatalReason::from_u32(word!(c, u32, C_FATAL_REASON).load(Acquire));
            let op = word!(c, u32, C_FATAL_OPCODE).load(Acquire);
            let n = (word!(c, u32, C_FATAL_LEN).load(Acquire) as usize).min(FATAL_DETAIL_MAX);
            let mut buf = vec![0u8; n];
            c.read(C_FATAL_DETAIL, &mut buf);
            LostReason::ProtocolFatal {
                reason,
                opcode: u16::try_from(op).ok(),
                detail: String::from_utf8_lossy(&buf).into_owned(),
            }
        } else {
            let mut detail = match state {
                Some(ServerState::Exited) => "server loop exited".to_string(),
                None => "server state word is garbage".to_string(),
                _ => self
                    .peer_flags
                    .detail
                    .lock()
                    .ok()
                    .and_then(|d| d.clone())
                    .unwrap_or_else(|| "control socket hung up".into()),
            };
            if let Some(extra) = self.peer.as_mut().and_then(|p| p.death_detail()) {
                detail = format!("{detail} ({extra})");
            }
            LostReason::ServerDied { detail }
        };
        self.lose(why);
        true
    }

    /// Make every pushed record visible to the server and ring it if it
    /// sleeps. Also drains server events.
    #[inline(never)]
    pub fn publish(&mut self) {
        if self.lost.is_some() {
            return;
        }
        if self.head != self.published || self.stage_head != self.stage_published {
            self.w64(C_STAGE_HEAD).store(self.stage_head, SeqCst);
            self.w64(C_CMD_HEAD).store(self.head, SeqCst);
            self.published = self.head;
            self.stage_published = self.stage_head;
            self.stats.publishes += 1;
            if futex::ring(self.bell(C_SERVER_BELL)) {
                self.stats.doorbells += 1;
            }
        }
        self.drain_events();
        self.check_peer();
    }

    /// Block (publishing first) until the tail word at `tail_off` reaches
    /// `need`, or the peer is gone. Returns false when lost.
    fn wait_for_space(&mut self, tail_off: usize, need: u64) -> bool {
        let is_cmd = tail_off == C_CMD_TAIL;
        let (seen, cap, published) = if is_cmd {
            (self.cmd_tail_seen, self.cmd_cap, self.head)
        } else {
            (self.stage_tail_seen, self.stage_cap, self.stage_head)
        };
        if seen >= need {
            return true;
        }
        let tail = self.w64(tail_off).load(SeqCst);
        if is_cmd {
            self.cmd_tail_seen = tail;
        } else {
            self.stage_tail_seen = tail;
        }
        if tail >= need {
            return true;
        }
        self.publish();
        if self.lost.is_some() {
            return false;
        }
        self.stats.stage_waits += 1;
        // Ask to be woken only once a slice of the ring beyond what this
        // push needs is free (never past what was published): a full ring
        // then costs one sleep per slice, not one per record consumed.
        let want = need
            .saturating_add(cap / SPACE_WAKE_FRACTION)
            .min(published)
            .max(need);
        if is_cmd {
            self.set_wants(want, u64::MAX);
        } else {
            self.set_wants(u64::MAX, want);
        }
        let (seg, flags) = (&self.seg, &*self.peer_flags);
        let tail_w = word!(seg.cmd, u64, tail_off);
        // No poll window: a full ring means the server is a whole ring
        // behind, and the want words above wake us after a slice of it.
        let sleeps =
            futex::wait_until_polling(word!(seg.cmd, u32, C_CLIENT_BELL), None, false, || {
                tail_w.load(SeqCst) >= need || Self::peer_gone(seg, flags)
            });
        self.stats.client_sleeps += u64::from(sleeps);
        if self.w64(tail_off).load(SeqCst) >= need {
            return true;
        }
        !self.check_peer()
    }

    /// Publish which tails the client waits for before it sleeps on its bell
    /// (before `futex::wait_until` stores SLEEPING, so a server that sees
    /// SLEEPING also sees these).
    fn set_wants(&self, cmd_tail: u64, stage_tail: u64) {
        self.w64(C_WANT_CMD_TAIL).store(cmd_tail, SeqCst);
        self.w64(C_WANT_STAGE_TAIL).store(stage_tail, SeqCst);
    }

    /// Reserve and fill STAGE bytes for one blob; returns its stream position.
    fn stage_blob(&mut self, blob: &[u8]) -> Option<u64> {
        let len = blob.len() as u64;
        if len == 0 {
            return Some(self.stage_head);
        }
        if len > self.stage_cap {
            self.lose(LostReason::ProtocolFatal {
                reason: FatalReason::RecordTooLarge,
                opcode: None,
                detail: format!(
                    "blob of {len} bytes exceeds the STAGE segment ({} bytes)",
                    self.stage_cap
                ),
            });
            return None;
        }
        let cap = self.stage_cap;
        let pre = self.stage_head;
        let (_skip, mut pos) = place(pre, cap, len);
        if (self.stage_drained || len >= STAGE_REWIND_MIN) && pos % cap != 0 {
            // When the server has released everything (it has after a
            // frame's glFinish), start again at the front of the ring: its
            // bytes are still in cache, where a 64 MiB ring walked end to
            // end touches cold memory on both sides for every upload.
            let tail = self.w64(C_STAGE_TAIL).load(Acquire);
            self.stage_tail_seen = tail;
            if tail == pre {
                pos = pos.next_multiple_of(cap);
                self.stats.stage_rewinds += 1;
            }
        }
        self.stage_drained = false;
        // Room when [tail, pos+len) spans at most one ring, or when nothing
        // is unreleased at all (tail == pre: the skipped gap is free too);
        // tail never passes `pre`, so that is one bound.
        if !self.wait_for_space(C_STAGE_TAIL, (pos + len).saturating_sub(cap).min(pre)) {
            return None;
        }
        self.seg.stage.write((pos % cap) as usize, blob);
        self.stage_head = pos + len;
        self.stage_head_off = self.stage_head % cap;
        Some(pos)
    }

    /// Reserve `len` CMD bytes (writing a wrap marker when needed); returns
    /// the ring offset to write the record at.
    fn reserve_cmd(&mut self, len: u64) -> Option<usize> {
        let cap = self.cmd_cap;
        if len > cap / 2 {
            self.lose(LostReason::ProtocolFatal {
                reason: FatalReason::RecordTooLarge,
                opcode: None,
                detail: format!("record of {len} bytes exceeds half the CMD ring ({cap} bytes)"),
            });
            return None;
        }
        let head = self.head;
        let (skip, pos) = place(head, cap, len);
        if !self.wait_for_space(C_CMD_TAIL, (pos + len).saturating_sub(cap)) {
            return None;
        }
        if skip >= RECORD_HEADER_SIZE as u64 {
            let pad = RecordHeader {
                opcode: PAD_OPCODE,
                flags: PAD_FLAG,
                len: skip as u32,
                ..Default::default()
            };
            self.seg
                .cmd
                .write(CTRL_SIZE + (head % cap) as usize, bytemuck::bytes_of(&pad));
        }
        self.head = pos + len;
        self.head_off = self.head % cap;
        Some(CTRL_SIZE + (pos % cap) as usize)
    }

    /// Publish once a batch's worth was written (the check is inlined into
    /// every push; the publish itself is not).
    #[inline(always)]
    fn maybe_publish(&mut self) {
        if self.head - self.published >= self.cmd_publish_at
            || self.stage_head - self.stage_published >= self.stage_publish_at
        {
            self.publish();
        }
    }

    /// STAGE position of `blob` written on the fast path: empty, or small
    /// (under `STAGE_REWIND_MIN`), fitting before STAGE's end in the room
    /// last seen, with no rewind due (`stage_blob` decides those). None:
    /// take `stage_blob`.
    #[inline]
    fn stage_small_blob(&mut self, blob: &[u8]) -> Option<u64> {
        let pos = self.stage_head;
        if blob.is_empty() {
            return Some(pos);
        }
        let (blen, soff) = (blob.len() as u64, self.stage_head_off);
        if blen >= STAGE_REWIND_MIN
            || self.stage_drained
            || soff + blen > self.stage_cap
            || pos + blen > self.stage_tail_seen.saturating_add(self.stage_cap)
        {
            return None;
        }
        self.seg.stage.write(soff as usize, blob);
        self.stage_head = pos + blen;
        self.stage_head_off = if soff + blen == self.stage_cap {
            0
        } else {
            soff + blen
        };
        Some(pos)
    }

    /// Push one record: header + payload in CMD, blob in STAGE.
    #[inline(always)]
    pub fn push(&mut self, opcode: u16, payload: &[u8], blob: &[u8], reply_slot: u32) {
        // Fast path, most records (draws, binds, state, small blobs such as
        // uniform blocks): no wrap and room according to the cached
        // consumer tails. No division, no shared-word load, no call but the
        // copies.
        let len = align_record(RECORD_HEADER_SIZE + payload.len()) as u64;
        let off = self.head_off;
        if self.lost.is_none()
            && off + len <= self.cmd_cap
            && self.head + len <= self.cmd_tail_seen.saturating_add(self.cmd_cap)
        {
            if let Some(blob_at) = self.stage_small_blob(blob) {
                self.write_record(
                    CTRL_SIZE + off as usize,
                    len as usize,
                    opcode,
                    payload,
                    reply_slot,
                    blob_at,
                    blob.len() as u64,
                );
                self.head += len;
                self.head_off = if off + len == self.cmd_cap {
                    0
                } else {
                    off + len
                };
                self.stats.records += 1;
                self.stats.bytes += len + blob.len() as u64;
                self.maybe_publish();
                return;
            }
        }
        self.push_slow(opcode, payload, blob, reply_slot);
    }

    /// Header, payload and zero padding straight into the ring at `at` (the
    /// reservation of `len` bytes is contiguous): no intermediate buffer.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn write_record(
        &self,
        at: usize,
        len: usize,
        opcode: u16,
        payload: &[u8],
        reply_slot: u32,
        blob_offset: u64,
        blob_len: u64,
    ) {
        let h = RecordHeader {
            opcode,
            flags: 0,
            len: len as u32,
            payload_len: payload.len() as u32,
            reply_slot,
            blob_offset,
            blob_len,
        };
        const ZEROS: [u8; 8] = [0; 8];
        self.seg.cmd.write(at, bytemuck::bytes_of(&h));
        self.seg.cmd.write(at + RECORD_HEADER_SIZE, payload);
        let pad = len - RECORD_HEADER_SIZE - payload.len();
        if pad > 0 {
            self.seg
                .cmd
                .write(at + RECORD_HEADER_SIZE + payload.len(), &ZEROS[..pad]);
        }
    }

    /// [`RingLink::push`] when the fast path does not apply: blobs, wraps,
    /// a ring that looks full, a lost link.
    #[inline(never)]
    fn push_slow(&mut self, opcode: u16, payload: &[u8], blob: &[u8], reply_slot: u32) {
        if self.lost.is_some() {
            return;
        }
        let len = align_record(RECORD_HEADER_SIZE + payload.len());
        let Some(blob_offset) = self.stage_blob(blob) else {
            return;
        };
        let Some(at) = self.reserve_cmd(len as u64) else {
            return;
        };
        self.write_record(
            at,
            len,
            opcode,
            payload,
            reply_slot,
            blob_offset,
            blob.len() as u64,
        );
        self.stats.records += 1;
        self.stats.bytes += (len + blob.len()) as u64;
        self.maybe_publish();
    }

    /// Push pre-framed record bytes as-is (tests, fuzzing): padded to a
    /// multiple of 8 and at least a header; when `blob` is not empty its
    /// stream position and length are patched into the header.
    pub fn push_raw(&mut self, record: &[u8], blob: &[u8]) {
        if self.lost.is_some() {
            return;
        }
        let len = align_record(record.len().max(RECORD_HEADER_SIZE));
        let Some(blob_offset) = self.stage_blob(blob) else {
            return;
        };
        let Some(at) = self.reserve_cmd(len as u64) else {
            return;
        };
        let mut rec = record.to_vec();
        rec.resize(len, 0);
        if !blob.is_empty() {
            rec[16..24].copy_from_slice(&blob_offset.to_le_bytes());
            rec[24..32].copy_from_slice(&(blob.len() as u64).to_le_bytes());
        }
        self.seg.cmd.write(at, &rec);
        self.stats.records += 1;
        self.stats.bytes += (len + blob.len()) as u64;
        self.maybe_publish();
    }

    /// One synchronous call: push with a reply slot, publish, wait for the
    /// reply (or the peer's loss: then `reply` is left empty).
    pub fn call(&mut self, opcode: u16, payload: &[u8], blob: &[u8], reply: &mut Vec<u8>) {
        // `reply` keeps its old bytes until the answer is in: a reused Vec
        // is then overwritten in place instead of zero-filled first.
        let mut filled = false;
        self.call_with(opcode, payload, blob, |r, delivery| {
            // Only `call_into` lends memory or copies bands.
            if let Delivery::Reply(len) = delivery {
                reply.truncate(len);
                reply.resize(len, 0);
                filled = r.read(REPLY_HDR, reply);
            }
        });
        if !filled {
            reply.clear();
        }
    }

    /// A synchronous call whose reply is copied straight into `dst` when it
    /// is exactly `dst.len()` bytes (no intermediate Vec). False when it was
    /// not (lost link, overflow, a shorter answer): `dst` may then hold a
    /// prefix of an answer (bands copied while it was produced).
    ///
    /// `inproc` lends `dst` to the server thread for this reply (see
    /// `direct`): the answer is then written there once, not into REPLY
    /// and copied again. Otherwise a banded answer (`R_PROGRESS`) is copied
    /// out band by band while the server reads the next one.
    pub fn call_into(&mut self, opcode: u16, payload: &[u8], dst: &mut [u8]) -> bool {
        let direct = self.direct.clone();
        if let Some(d) = &direct {
            d.lend(self.reply_seq.wrapping_add(1).max(1), dst);
        }
        let want = dst.len();
        let mut filled = false;
        let mut copied = 0;
        let mut counts = (0u64, false);
        self.call_with(opcode, payload, &[], |r, delivery| match delivery {
            Delivery::Progress(ready) => {
                // Bytes [copied, ready) are in place: copy them now.
                if ready > copied
                    && ready <= want
                    && r.read(REPLY_HDR + copied, &mut dst[copied..ready])
                {
                    copied = ready;
                    counts.1 = true;
                }
            }
            Delivery::Direct(len) => {
                filled = direct.is_some() && len == want;
                counts.0 += u64::from(filled);
            }
            Delivery::Reply(len) => {
                if len == want {
                    filled = r.read(REPLY_HDR + copied, &mut dst[copied..]);
                }
            }
        });
        if let Some(d) = &direct {
            // Before `dst` goes back to the caller: no write after this.
            d.reclaim();
        }
        self.stats.direct_replies += counts.0;
        self.stats.banded_replies += u64::from(counts.1 && filled);
        filled
    }

    /// Push with a reply slot, publish, wait; `take(REPLY, delivery)` is
    /// told of a banded answer's progress while waiting, then reads the
    /// answer that arrived. False when none did (lost, overflow).
    fn call_with(
        &mut self,
        opcode: u16,
        payload: &[u8],
        blob: &[u8],
        mut take: impl FnMut(&crate::shm::Segment, Delivery),
    ) -> bool {
        if self.lost.is_some() {
            return false;
        }
        self.reply_seq = self.reply_seq.wrapping_add(1).max(1);
        let seq = self.reply_seq;
        self.push(opcode, payload, blob, seq);
        self.publish();
        if self.lost.is_some() {
            return false;
        }
        self.stats.blocking_round_trips += 1;
        // Waiting for the reply, not for space: no wake per record consumed.
        self.set_wants(u64::MAX, u64::MAX);
        let (seg, flags) = (&self.seg, &*self.peer_flags);
        let seq_w = word!(seg.reply, u32, R_SEQ);
        let progress_w = word!(seg.reply, u64, R_PROGRESS);
        // With a short backlog ahead of the request, poll (yielding) before
        // sleeping: a reply that lands meanwhile costs the server no
        // wake-up and us no sleep. Behind a long one (a frame's draws on a
        // slower driver) the reply is far off: sleep at once, leaving the
        // CPU to the application (inproc `ubo`: the poll window was ~30 ns
        // of calling-thread CPU per draw, spent at every glFinish).
        let backlog = self.head.saturating_sub(self.w64(C_CMD_TAIL).load(SeqCst));
        let poll = backlog <= REPLY_POLL_BACKLOG;
        let sleeps =
            futex::wait_until_polling(word!(seg.cmd, u32, C_CLIENT_BELL), None, poll, || {
                if seq_w.load(SeqCst) == seq || Self::peer_gone(seg, flags) {
                    return true;
                }
                // A banded answer: its sequence number and the bytes in place.
                let pr = progress_w.load(Acquire);
                if pr >> 32 == u64::from(seq) {
                    take(&seg.reply, Delivery::Progress((pr & 0xFFFF_FFFF) as usize));
                }
                false
            });
        self.stats.client_sleeps += u64::from(sleeps);
        if seq_w.load(SeqCst) == seq {
            let r = &self.seg.reply;
            let status = word!(r, u32, R_STATUS).load(Acquire);
            let len = word!(r, u64, R_LEN).load(Acquire);
            let direct = status == REPLY_DIRECT;
            let answered = direct || (status == REPLY_OK && len <= self.seg.layout.reply as u64);
            if answered {
                let len = len as usize;
                take(
                    r,
                    if direct {
                        Delivery::Direct(len)
                    } else {
                        Delivery::Reply(len)
                    },
                );
                // Everything before the call has been applied: if that
                // released all of STAGE, the next blob may rewind.
                self.stage_drained = self.w64(C_STAGE_TAIL).load(Acquire) == self.stage_head;
            } else {
                self.stats.reply_overflows += 1;
                tracing::error!(
                    opcode,
                    status,
                    len,
                    "reply did not fit the REPLY area; answered empty"
                );
            }
            self.drain_events();
            answered
        } else {
            self.check_peer();
            false
        }
    }

    /// Read the EVENT ring: log lines go to tracing (tagged with the
    /// server's pid in spawn), every other event is kept for
    /// [`RingLink::poll_events`], in ring order.
    pub fn drain_events(&mut self) {
        let ev = &self.seg.event;
        let cap = self.seg.layout.event as u64;
        let head = word!(ev, u64, E_HEAD).load(Acquire);
        let mut found = Vec::new();
        let walk = walk_event_ring(
            |off, dst| ev.read(EVENT_HDR + off, dst),
            cap,
            self.event_tail,
            head,
            &mut found,
        );
        for w in &walk.warnings {
            tracing::warn!("EVENT ring: {w}");
        }
        self.event_tail = walk.tail;
        let ev = &self.seg.event;
        word!(ev, u64, E_TAIL).store(self.event_tail, Release);
        for e in found {
            match e {
                Event::Log { level, text } => self.log_server_line(level, &text),
                e => self.events.push(e),
            }
        }
        let dropped = word!(ev, u64, E_DROPPED).swap(0, Relaxed);
        if dropped > 0 {
            tracing::warn!(dropped, "server log lines dropped (EVENT ring full)");
        }
        if walk.lost_data || word!(ev, u64, E_DROPPED_DATA).swap(0, Relaxed) > 0 {
            // A GPU-write report was lost: every read map is stale.
            self.events.push(Event::GpuWritten {
                res: mgpipe::Handle::NULL,
                offset: 0,
                len: u64::MAX,
            });
        }
    }

    fn log_server_line(&self, level: LogLevel, text: &str) {
        let pid = self.server_pid();
        let tag = match pid {
            Some(pid) => format!("server[{pid}]"),
            None => "server".to_string(),
        };
        match level {
            LogLevel::Error => tracing::error!(target: "mobilegl::server", "{tag}: {text}"),
            LogLevel::Warn => tracing::warn!(target: "mobilegl::server", "{tag}: {text}"),
            LogLevel::Info => tracing::info!(target: "mobilegl::server", "{tag}: {text}"),
        }
    }

    /// Take the backend events seen so far (drains the ring first).
    pub fn poll_events(&mut self, out: &mut Vec<Event>) {
        if self.lost.is_none() {
            self.drain_events();
        }
        out.append(&mut self.events);
    }

    /// Orderly close: publish, ask the server to drain and stop, then let
    /// the peer finish (join / reap).
    pub fn close(&mut self) {
        let was_lost = self.lost.is_some();
        if !was_lost {
            self.publish();
        }
        // Never turns a stop-now (`stop_at_exit`) back into a drain.
        let _ =
            self.bell(C_SHUTDOWN)
                .compare_exchange(SHUTDOWN_NONE, SHUTDOWN_DRAIN, SeqCst, SeqCst);
        futex::ring(self.bell(C_SERVER_BELL));
        // A sleeping server may not have published SLEEPING yet when it
        // re-checks: the SeqCst pair above covers that; wake once more anyway
        // so a server in FUTEX_WAIT returns promptly.
        futex::wake(self.bell(C_SERVER_BELL));
        if let Some(mut p) = self.peer.take() {
            p.shutdown();
        }
        if !was_lost {
            self.drain_events();
        }
    }
}

impl RingLink {
    /// Close at process exit: the server stops after the record it is
    /// running (`SHUTDOWN_NOW`: queued records are dropped, nothing is
    /// drained back) and is waited for at most `grace`. Exit handlers that
    /// ran before this one may have torn down parts of the driver (LLVM
    /// registers its destructors lazily, after ours), so a server inside
    /// the driver may never return; the exit must not wait on it forever.
    pub fn stop_at_exit(&mut self, grace: std::time::Duration) {
        self.bell(C_SHUTDOWN).store(SHUTDOWN_NOW, SeqCst);
        futex::ring(self.bell(C_SERVER_BELL));
        futex::wake(self.bell(C_SERVER_BELL));
        if let Some(mut p) = self.peer.take() {
            p.shutdown_within(grace);
        }
        if self.lost.is_none() {
            self.lost = Some(LostReason::ServerDied {
                detail: "stopped at process exit".into(),
            });
        }
    }
}

impl Drop for RingLink {
    fn drop(&mut self) {
        self.close();
    }
}

/// What one walk of the EVENT ring found besides its events.
#[derive(Debug, Default)]
pub struct EventWalk {
    /// The new consumer position.
    pub tail: u64,
    /// Records were skipped (bad indices or a malformed record): reports
    /// may have been lost, so every persistent read map is stale.
    pub lost_data: bool,
    pub warnings: Vec<String>,
}

/// Walk the EVENT ring from `tail` to `head` (stream positions; `read`
/// copies ring bytes at a ring offset), decoding each record into `out`.
/// Never trusts the peer: indices and every record header are checked
/// before use, and a bad one ends the walk at `head` with a warning.
pub fn walk_event_ring(
    read: impl Fn(usize, &mut [u8]) -> bool,
    cap: u64,
    tail: u64,
    head: u64,
    out: &mut Vec<Event>,
) -> EventWalk {
    let mut w = EventWalk {
        tail,
        ..Default::default()
    };
    if cap == 0 || head < tail || head - tail > cap {
        if head != tail {
            w.warnings
                .push("indices are inconsistent; events skipped".into());
            w.tail = head;
            w.lost_data = true;
        }
        return w;
    }
    let mut body = Vec::new();
    while w.tail < head {
        let t = w.tail;
        let rem = cap - t % cap;
        let off = (t % cap) as usize;
        let mut h = [0u8; EVENT_REC_HDR];
        if rem < EVENT_REC_HDR as u64 || !read(off, &mut h) {
            w.tail = t.saturating_add(rem).min(head);
            continue;
        }
        let len = u32::from_le_bytes([h[0], h[1], h[2], h[3]]) as u64;
        let kind = u32::from_le_bytes([h[4], h[5], h[6], h[7]]);
        let blen = u32::from_le_bytes([h[8], h[9], h[10], h[11]]) as u64;
        if len < EVENT_REC_HDR as u64
            || len > rem
            || t.checked_add(len).is_none_or(|end| end > head)
            || blen > len - EVENT_REC_HDR as u64
        {
            w.warnings
                .push("malformed event record; events skipped".into());
            w.tail = head;
            w.lost_data = true;
            break;
        }
        if kind != EVENT_PAD {
            body.resize(blen as usize, 0);
            if !read(off + EVENT_REC_HDR, &mut body) {
                w.warnings
                    .push("event body outside the ring; skipped".into());
            } else {
                match mgpipe::event::decode(kind, &body) {
                    Ok(e) => out.push(e),
                    Err(e) => w.warnings.push(format!("event record skipped: {e}")),
                }
            }
        }
        w.tail = t + len;
    }
    w
}
