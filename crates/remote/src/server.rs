//! The server side of a ring link: the decode loop (inproc thread or spawned
//! child) and [`run_spawned_server`] for `mobilegl-server`.
//!
//! The loop reads each record header from shared memory once into private
//! memory, validates it against the published indices (the same checks as
//! [`mgpipe::wire::split_record`]), copies the payload and hands it to the
//! dispatcher. Any malformed record stops the loop with a named `Fatal`
//! published in the control block; nothing here panics on bad input.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release, SeqCst};
use std::sync::Arc;

use mgpipe::event::{Event, LogLevel};
use mgpipe::wire::{ProtocolCorruption, RecordHeader, RECORD_HEADER_SIZE};

use crate::direct::DirectReply;
use crate::futex;
use crate::layout::*;
use crate::types::FatalReason;

/// Decode target of the loop: `mgpipe::dispatch` into an applier in
/// production, anything in unit tests.
pub(crate) trait Dispatcher {
    fn dispatch(
        &mut self,
        opcode: u16,
        payload: &[u8],
        blob: &[u8],
        reply: &mut Vec<u8>,
        offset: usize,
    ) -> Result<(), ProtocolCorruption>;

    /// Events the target queued since the last call (see `mgpipe::event`).
    fn drain_events(&mut self, out: &mut Vec<Event>) {
        let _ = out;
    }

    /// `read_pixels` written straight into `dst` (the REPLY area); false:
    /// declined, the record goes through `dispatch`.
    fn read_pixels_into(&mut self, p: &mgpipe::calls::ReadPixels, dst: &mut [u8]) -> bool {
        let _ = (p, dst);
        false
    }

    /// Whether `read_pixels_into` may be called band by band
    /// (`mgpipe::gen::Context::read_pixels_bands`).
    fn read_pixels_bands(&self) -> bool {
        false
    }
}

/// Bytes per band of a banded read-back: the client copies one band out
/// of REPLY while the backend reads the next (spawn: the copy crosses
/// processes and cores, and took as long as the read itself).
const READ_BAND_BYTES: usize = 32 << 10;

/// The bands of a read-back of `total` bytes (tight rows, bottom row
/// first): each band's request and its byte range in the answer. None
/// when one band would do, or the answer is too large for `R_PROGRESS`.
fn read_bands(
    p: &mgpipe::calls::ReadPixels,
    total: usize,
) -> Option<impl Iterator<Item = (mgpipe::calls::ReadPixels, std::ops::Range<usize>)>> {
    let rows = p.height as usize;
    if rows < 2 || total <= READ_BAND_BYTES || total > u32::MAX as usize {
        return None;
    }
    let row = total / rows;
    let band = (READ_BAND_BYTES / row.max(1)).max(1);
    // The last row's y must fit an i32 (GL coordinates).
    i32::try_from(i64::from(p.y) + rows as i64).ok()?;
    let p = *p;
    Some((0..rows).step_by(band).map(move |r0| {
        let n = band.min(rows - r0);
        let bp = mgpipe::calls::ReadPixels {
            y: p.y + r0 as i32,
            height: n as u32,
            ..p
        };
        (bp, r0 * row..(r0 + n) * row)
    }))
}

/// One record's outcome; the fatal case boxed, so that the per-record
/// `Ok` stays one register wide.
type Step = Result<(), Box<FatalInfo>>;

/// A named fatal stop of the loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FatalInfo {
    pub reason: FatalReason,
    pub opcode: Option<u16>,
    pub offset: u64,
    pub detail: String,
}

impl FatalInfo {
    fn corruption(c: &ProtocolCorruption) -> Box<FatalInfo> {
        Box::new(FatalInfo {
            reason: FatalReason::ProtocolCorruption,
            opcode: (c.opcode != u16::MAX).then_some(c.opcode),
            offset: c.offset as u64,
            detail: c.to_string(),
        })
    }
    fn backend_panic(
        opcode: u16,
        offset: u64,
        panic: &(dyn std::any::Any + Send),
    ) -> Box<FatalInfo> {
        Box::new(FatalInfo {
            reason: FatalReason::BackendPanic,
            opcode: Some(opcode),
            offset,
            detail: format!(
                "backend panicked in opcode {opcode}: {}",
                crate::panic_text(panic)
            ),
        })
    }
    fn corrupt(opcode: u16, offset: u64, why: &'static str) -> Box<FatalInfo> {
        Self::corruption(&ProtocolCorruption {
            opcode,
            offset: offset as usize,
            why,
        })
    }
}

/// Why the loop returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ServeEnd {
    /// Orderly: the client asked to stop and every published record ran.
    Shutdown,
    /// The client went away (socket hang-up): stopped at once.
    ClientGone,
    Fatal(FatalInfo),
}

/// The server's mappings and consumer positions.
pub(crate) struct ServerLink {
    seg: Segments,
    tail: u64,
    /// `tail % cmd capacity`, kept alongside `tail` (records never straddle
    /// the end, so it only ever wraps to 0): no division per record.
    tail_off: u64,
    stage_released: u64,
    event_head: u64,
    rec: Vec<u8>,
    reply: Vec<u8>,
    events: Vec<Event>,
    /// `inproc`: destinations the client lends for a reply (`direct`).
    direct: Option<Arc<DirectReply>>,
}

impl ServerLink {
    /// Every link starts at stream position 0 (the server owns its indices
    /// and never trusts a value left in shared memory by the peer).
    pub fn new(seg: Segments) -> ServerLink {
        word!(seg.cmd, u64, C_CMD_TAIL).store(0, SeqCst);
        word!(seg.cmd, u64, C_STAGE_TAIL).store(0, SeqCst);
        word!(seg.event, u64, E_HEAD).store(0, SeqCst);
        word!(seg.cmd, u64, C_WANT_CMD_TAIL).store(0, SeqCst);
        word!(seg.cmd, u64, C_WANT_STAGE_TAIL).store(0, SeqCst);
        ServerLink {
            seg,
            tail: 0,
            tail_off: 0,
            stage_released: 0,
            event_head: 0,
            rec: Vec::new(),
            reply: Vec::new(),
            events: Vec::new(),
            direct: None,
        }
    }

    /// `inproc`: write answers into the destinations the client lends
    /// through `direct` (see that module for the lifetime rule).
    pub fn with_direct(mut self, direct: Arc<DirectReply>) -> ServerLink {
        self.direct = Some(direct);
        self
    }

    pub fn set_state(&self, s: ServerState) {
        word!(self.seg.cmd, u32, C_SERVER_STATE).store(s as u32, SeqCst);
        self.wake_client();
    }

    fn wake_client(&self) {
        futex::ring(word!(self.seg.cmd, u32, C_CLIENT_BELL));
    }

    /// Publish a fatal stop: detail first, then the state (release), then
    /// the client's doorbell.
    pub fn publish_fatal(&mut self, f: &FatalInfo) {
        let c = &self.seg.cmd;
        let mut n = f.detail.len().min(FATAL_DETAIL_MAX);
        while !f.detail.is_char_boundary(n) {
            n -= 1;
        }
        c.write(C_FATAL_DETAIL, &f.detail.as_bytes()[..n]);
        word!(c, u32, C_FATAL_LEN).store(n as u32, Relaxed);
        word!(c, u32, C_FATAL_REASON).store(f.reason.to_u32(), Relaxed);
        word!(c, u32, C_FATAL_OPCODE).store(f.opcode.map_or(u32::MAX, u32::from), Relaxed);
        word!(c, u64, C_FATAL_OFFSET).store(f.offset, Relaxed);
        self.log_event(
            LogLevel::Error,
            &format!("server stopped: {}: {}", f.reason, f.detail),
        );
        self.set_state(ServerState::Fatal);
    }

    /// Append one log line for the client; dropped (and counted) when the
    /// ring is full, never blocking the server.
    pub fn log_event(&mut self, level: LogLevel, text: &str) {
        let max = self.seg.layout.event / 2;
        let mut n = text.len().min(max);
        while !text.is_char_boundary(n) {
            n -= 1;
        }
        let e = Event::Log {
            level,
            text: text[..n].to_string(),
        };
        if !self.write_event(&e) {
            word!(self.seg.event, u64, E_DROPPED).fetch_add(1, Relaxed);
        }
    }

    /// Append one backend event. A write-back too large for the free space
    /// degrades to a pull request (`GpuWritten`); when even that does not
    /// fit the data-loss counter tells the client to pull every read map.
    /// Never blocks: the client drains the ring only at its own pace.
    pub fn push_event(&mut self, e: &Event) {
        if self.write_event(e) {
            return;
        }
        match e {
            Event::Log { .. } => {
                word!(self.seg.event, u64, E_DROPPED).fetch_add(1, Relaxed);
            }
            Event::BufferWriteback { res, offset, bytes } => {
                let pull = Event::GpuWritten {
                    res: *res,
                    offset: *offset,
                    len: bytes.len() as u64,
                };
                if !self.write_event(&pull) {
                    word!(self.seg.event, u64, E_DROPPED_DATA).fetch_add(1, Relaxed);
                }
            }
            _ => {
                word!(self.seg.event, u64, E_DROPPED_DATA).fetch_add(1, Relaxed);
            }
        }
    }

    /// Write one encoded event record if it fits (with any wrap filler).
    fn write_event(&mut self, e: &Event) -> bool {
        let cap = self.seg.layout.event as u64;
        let body = e.body_len();
        let len = (EVENT_REC_HDR + body).next_multiple_of(8) as u64;
        if len > cap / 2 {
            return false;
        }
        let tail = word!(self.seg.event, u64, E_TAIL).load(Acquire);
        let (skip, pos) = place(self.event_head, cap, len);
        if tail > self.event_head || pos + len - tail > cap {
            return false;
        }
        if skip >= EVENT_REC_HDR as u64 {
            let mut pad = [0u8; EVENT_REC_HDR];
            pad[..4].copy_from_slice(&(skip as u32).to_le_bytes());
            pad[4..8].copy_from_slice(&EVENT_PAD.to_le_bytes());
            self.seg
                .event
                .write(EVENT_HDR + (self.event_head % cap) as usize, &pad);
        }
        let rec = mgpipe::event::encode(e);
        self.seg.event.write(EVENT_HDR + (pos % cap) as usize, &rec);
        self.event_head = pos + len;
        word!(self.seg.event, u64, E_HEAD).store(self.event_head, Release);
        true
    }

    /// Publish what the backend (and, in a spawned server, the log
    /// forwarder) queued: called before every reply and at each batch end,
    /// so events keep the order of the records that caused them.
    fn forward_events(&mut self, d: &mut dyn Dispatcher) {
        let mut events = std::mem::take(&mut self.events);
        d.drain_events(&mut events);
        crate::logfwd::drain(&mut events);
        for e in events.drain(..) {
            self.push_event(&e);
        }
        self.events = events;
    }

    /// Run the decode loop until shutdown, client loss or a fatal error;
    /// publishes the final state before returning.
    pub fn serve(&mut self, d: &mut dyn Dispatcher) -> ServeEnd {
        self.set_state(ServerState::Running);
        let end = self.serve_inner(d);
        match &end {
            ServeEnd::Fatal(f) => {
                let f = f.clone();
                tracing::error!(reason = %f.reason, opcode = ?f.opcode, offset = f.offset, "{}", f.detail);
                self.publish_fatal(&f);
            }
            ServeEnd::Shutdown | ServeEnd::ClientGone => self.set_state(ServerState::Exited),
        }
        end
    }

    fn serve_inner(&mut self, d: &mut dyn Dispatcher) -> ServeEnd {
        let cap = self.seg.layout.cmd as u64;
        loop {
            let tail = self.tail;
            let cmd = &self.seg.cmd;
            let head_w = word!(cmd, u64, C_CMD_HEAD);
            let shut_w = word!(cmd, u32, C_SHUTDOWN);
            futex::wait_until(word!(cmd, u32, C_SERVER_BELL), None, || {
                head_w.load(SeqCst) != tail || shut_w.load(SeqCst) != SHUTDOWN_NONE
            });
            let shutdown = shut_w.load(SeqCst);
            if shutdown == SHUTDOWN_NOW {
                return ServeEnd::ClientGone;
            }
            let head = head_w.load(SeqCst);
            if head == self.tail {
                if shutdown == SHUTDOWN_DRAIN {
                    return ServeEnd::Shutdown;
                }
                continue;
            }
            if head < self.tail || head - self.tail > cap {
                return ServeEnd::Fatal(*FatalInfo::corrupt(
                    u16::MAX,
                    self.tail,
                    "CMD head outside the ring",
                ));
            }
            let stage_head = word!(cmd, u64, C_STAGE_HEAD).load(SeqCst);
            while self.tail < head {
                if let Err(f) = self.one(d, head, stage_head) {
                    return ServeEnd::Fatal(*f);
                }
                if word!(self.seg.cmd, u32, C_SHUTDOWN).load(Relaxed) == SHUTDOWN_NOW {
                    return ServeEnd::ClientGone;
                }
            }
            self.forward_events(d);
        }
    }

    /// Consume one record (or one wrap marker) at `self.tail`.
    fn one(&mut self, d: &mut dyn Dispatcher, head: u64, stage_head: u64) -> Step {
        let cap = self.seg.layout.cmd as u64;
        let at = self.tail;
        let off = self.tail_off;
        let rem = cap - off;
        if rem < RECORD_HEADER_SIZE as u64 {
            // Implicit wrap: too short for a header.
            if at.saturating_add(rem) > head {
                return Err(FatalInfo::corrupt(
                    u16::MAX,
                    at,
                    "CMD head inside the wrap gap",
                ));
            }
            self.advance(at + rem, None);
            return Ok(());
        }
        let mut hb = [0u8; RECORD_HEADER_SIZE];
        self.seg.cmd.read(CTRL_SIZE + off as usize, &mut hb);
        let h: RecordHeader = bytemuck::pod_read_unaligned(&hb);
        if h.opcode == PAD_OPCODE && h.flags & PAD_FLAG != 0 {
            if u64::from(h.len) != rem || at.saturating_add(rem) > head {
                return Err(FatalInfo::corrupt(
                    h.opcode,
                    at,
                    "wrap marker does not reach the end of the ring",
                ));
            }
            self.advance(at + rem, None);
            return Ok(());
        }
        let len = h.len as u64;
        if len < RECORD_HEADER_SIZE as u64 || len & 7 != 0 {
            return Err(FatalInfo::corrupt(
                h.opcode,
                at,
                "record length not a multiple of 8 or below header size",
            ));
        }
        if len > rem {
            return Err(FatalInfo::corrupt(
                h.opcode,
                at,
                "record straddles the end of the CMD ring",
            ));
        }
        if at.saturating_add(len) > head {
            return Err(FatalInfo::corrupt(
                h.opcode,
                at,
                "record length past end of published bytes",
            ));
        }
        let payload_len = h.payload_len as u64;
        if payload_len > len - RECORD_HEADER_SIZE as u64 {
            return Err(FatalInfo::corrupt(
                h.opcode,
                at,
                "payload length past end of record",
            ));
        }
        // The header was read once above; only the payload is copied now
        // (the header is not read again, so it cannot change under us).
        let mut payload = std::mem::take(&mut self.rec);
        self.seg.cmd.read_to_vec(
            CTRL_SIZE + off as usize + RECORD_HEADER_SIZE,
            payload_len as usize,
            &mut payload,
        );
        let res = self.one_record(d, &h, &payload, at, len, stage_head);
        self.rec = payload;
        res
    }

    fn one_record(
        &mut self,
        d: &mut dyn Dispatcher,
        h: &RecordHeader,
        payload: &[u8],
        at: u64,
        len: u64,
        stage_head: u64,
    ) -> Step {
        let scap = self.seg.layout.stage as u64;
        let blob_range = if h.blob_len == 0 {
            None
        } else {
            let (o, l) = (h.blob_offset, h.blob_len);
            let end = o.saturating_add(l);
            // A mask for the default 64 MiB: every uniform update has a blob.
            let ring = mgpipe::align::rem(o, scap);
            if l > scap || ring + l > scap {
                return Err(FatalInfo::corrupt(
                    h.opcode,
                    at,
                    "blob straddles the end of the STAGE ring",
                ));
            }
            if end > stage_head {
                return Err(FatalInfo::corrupt(
                    h.opcode,
                    at,
                    "blob past end of published STAGE bytes",
                ));
            }
            if o < self.stage_released {
                return Err(FatalInfo::corrupt(
                    h.opcode,
                    at,
                    "blob in released STAGE bytes",
                ));
            }
            // (stream position, length, offset in the ring)
            Some((o, l, ring))
        };
        if h.opcode == mgpipe::Opcode::ReadPixels as u16 && h.reply_slot != 0 {
            if let Some(out) = self.read_pixels_in_place(d, h, payload, at) {
                if out.is_ok() {
                    self.advance(at + len, blob_range.map(|(o, l, _)| o + l));
                }
                return out;
            }
        }
        self.reply.clear();
        let result = {
            let blob: &[u8] = match blob_range {
                None => &[],
                // SAFETY: the client writes a STAGE range only after the
                // server released it (STAGE tail); this range lies between
                // the released position and the published head, and it is
                // released only after the dispatch below returns.
                Some((_, l, ring)) => {
                    unsafe { self.seg.stage.slice(ring as usize, l as usize) }.unwrap_or(&[])
                }
            };
            let reply = &mut self.reply;
            catch_unwind(AssertUnwindSafe(|| {
                d.dispatch(h.opcode, payload, blob, reply, at as usize)
            }))
        };
        match result {
            Ok(Ok(())) => {
                if h.reply_slot != 0 {
                    self.forward_events(d);
                    let reply = std::mem::take(&mut self.reply);
                    self.publish_reply(h.reply_slot, &reply);
                    self.reply = reply;
                }
                self.advance(at + len, blob_range.map(|(o, l, _)| o + l));
                Ok(())
            }
            Ok(Err(c)) => Err(FatalInfo::corruption(&c)),
            Err(panic) => Err(FatalInfo::backend_panic(h.opcode, at, &*panic)),
        }
    }

    /// A read-back written by the applier directly into the REPLY area (no
    /// reply Vec, no zero fill, no copy): None when it does not apply (bad
    /// payload, unknown format, too large, declined), then the record takes
    /// the generic path.
    fn read_pixels_in_place(
        &mut self,
        d: &mut dyn Dispatcher,
        h: &RecordHeader,
        payload: &[u8],
        at: u64,
    ) -> Option<Step> {
        let p = bytemuck::try_pod_read_unaligned::<mgpipe::calls::ReadPixels>(payload).ok()?;
        let bpp = mgpipe::pixels::bytes_per_pixel(p.format, p.r#type)?;
        let total = (p.width as usize)
            .checked_mul(p.height as usize)?
            .checked_mul(bpp)?;
        if total == 0 || total > self.seg.layout.reply {
            return None;
        }
        if let Some(direct) = self.direct.clone() {
            let mut panicked = None;
            let written = direct.write_with(h.reply_slot, total, |dst| {
                match catch_unwind(AssertUnwindSafe(|| d.read_pixels_into(&p, dst))) {
                    Ok(ok) => ok,
                    Err(panic) => {
                        panicked = Some(panic);
                        false
                    }
                }
            });
            if let Some(panic) = panicked {
                return Some(Err(FatalInfo::backend_panic(h.opcode, at, &*panic)));
            }
            if written {
                self.forward_events(d);
                self.publish_reply_header(h.reply_slot, REPLY_DIRECT, total);
                return Some(Ok(()));
            }
        }
        // SAFETY: the REPLY area belongs to the server between the client's
        // call and the publish below (the client waits for R_SEQ and reads
        // only then, or reads bands only below the R_PROGRESS it was
        // given); nothing else borrows it meanwhile.
        let dst = unsafe { self.seg.reply.slice_mut(REPLY_HDR, total) }?;
        // Not with a lent destination (inproc): the direct read above
        // already declined, and a generic answer written there must not
        // meet a band the client is still copying.
        let banded = self.direct.is_none() && d.read_pixels_bands();
        if let Some(bands) = read_bands(&p, total).filter(|_| banded) {
            let progress = word!(self.seg.reply, u64, R_PROGRESS);
            let seq = u64::from(h.reply_slot) << 32;
            for (bp, range) in bands {
                let end = range.end;
                match catch_unwind(AssertUnwindSafe(|| {
                    d.read_pixels_into(&bp, &mut dst[range])
                })) {
                    // The client may copy these bytes now.
                    Ok(true) => progress.store(seq | end as u64, Release),
                    // Declined (the applier decides at the first band): the
                    // generic path, which writes the whole answer.
                    Ok(false) => return None,
                    Err(panic) => {
                        return Some(Err(FatalInfo::backend_panic(h.opcode, at, &*panic)))
                    }
                }
            }
            self.forward_events(d);
            self.publish_reply_header(h.reply_slot, REPLY_OK, total);
            return Some(Ok(()));
        }
        match catch_unwind(AssertUnwindSafe(|| d.read_pixels_into(&p, dst))) {
            Ok(true) => {
                self.forward_events(d);
                self.publish_reply_header(h.reply_slot, REPLY_OK, total);
                Some(Ok(()))
            }
            Ok(false) => None,
            Err(panic) => Some(Err(FatalInfo::backend_panic(h.opcode, at, &*panic))),
        }
    }

    fn publish_reply(&mut self, seq: u32, bytes: &[u8]) {
        if bytes.len() > self.seg.layout.reply {
            let msg = format!(
                "reply of {} bytes exceeds the REPLY area ({} bytes); answered empty",
                bytes.len(),
                self.seg.layout.reply
            );
            tracing::error!("{msg}");
            self.log_event(LogLevel::Error, &msg);
            self.publish_reply_header(seq, REPLY_OVERFLOW, 0);
        } else {
            let lent = self.direct.as_ref().is_some_and(|d| {
                d.write_with(seq, bytes.len(), |dst| {
                    mgpipe::bytes::copy(dst, bytes);
                    true
                })
            });
            if lent {
                self.publish_reply_header(seq, REPLY_DIRECT, bytes.len());
            } else {
                self.seg.reply.write(REPLY_HDR, bytes);
                self.publish_reply_header(seq, REPLY_OK, bytes.len());
            }
        }
    }

    /// Length and status of the reply whose bytes are in place, then its
    /// sequence number (what the client waits on) and the client's bell.
    fn publish_reply_header(&mut self, seq: u32, status: u32, len: usize) {
        let r = &self.seg.reply;
        word!(r, u64, R_LEN).store(len as u64, Relaxed);
        word!(r, u32, R_STATUS).store(status, Relaxed);
        word!(r, u32, R_SEQ).store(seq, SeqCst);
        self.wake_client();
    }

    /// Release consumed CMD bytes (and STAGE bytes up to `stage_end`), then
    /// ring the client if it sleeps waiting for space that is now free
    /// (its want words; a client asleep on a reply is left asleep). The
    /// tails are stored before the bell and wants are read (`SeqCst`), and
    /// the client stores its wants before SLEEPING, so no wake is lost.
    fn advance(&mut self, tail: u64, stage_end: Option<u64>) {
        let c = &self.seg.cmd;
        // Every caller advances by one record or wrap gap, which ends at
        // or before the end of the ring.
        let cap = self.seg.layout.cmd as u64;
        self.tail_off += tail - self.tail;
        if self.tail_off >= cap {
            self.tail_off -= cap;
        }
        self.tail = tail;
        word!(c, u64, C_CMD_TAIL).store(tail, SeqCst);
        if let Some(e) = stage_end {
            if e > self.stage_released {
                self.stage_released = e;
                word!(c, u64, C_STAGE_TAIL).store(e, SeqCst);
            }
        }
        let bell = word!(c, u32, C_CLIENT_BELL);
        if bell.load(SeqCst) == futex::SLEEPING
            && (tail >= word!(c, u64, C_WANT_CMD_TAIL).load(SeqCst)
                || self.stage_released >= word!(c, u64, C_WANT_STAGE_TAIL).load(SeqCst))
        {
            futex::ring(bell);
        }
    }
}

pub use crate::spawned::{
    adopt_fd, configure_allocator, configure_client_allocator, exit_immediately,
    run_spawned_server, run_spawned_server_with, AllocatorSetup, ServerOptions,
};

#[cfg(test)]
mod tests {
    use super::*;

    /// Accepts everything, answers a few bytes for reply records.
    struct Sink(u64);
    impl Dispatcher for Sink {
        fn dispatch(
            &mut self,
            op: u16,
            p: &[u8],
            b: &[u8],
            r: &mut Vec<u8>,
            _: usize,
        ) -> Result<(), ProtocolCorruption> {
            self.0 += 1;
            r.extend_from_slice(&[op as u8; 3]);
            if op == 0x7777 {
                return Err(ProtocolCorruption {
                    opcode: op,
                    offset: 0,
                    why: "test",
                });
            }
            let _ = (p.len(), b.first());
            Ok(())
        }
    }

    /// Reads of a pattern that depends on the absolute row: a banded
    /// answer must equal the whole read. Records the bands asked for.
    struct Banded {
        bands: bool,
        decline: bool,
        asked: Vec<(i32, u32)>,
        dispatched: u32,
    }
    fn row_byte(y: i64, i: usize) -> u8 {
        (y * 7 + i as i64 * 13) as u8
    }
    impl Dispatcher for Banded {
        fn dispatch(
            &mut self,
            _: u16,
            p: &[u8],
            _: &[u8],
            r: &mut Vec<u8>,
            _: usize,
        ) -> Result<(), ProtocolCorruption> {
            self.dispatched += 1;
            let p: mgpipe::calls::ReadPixels = bytemuck::pod_read_unaligned(p);
            let row = p.width as usize * 4;
            for y in 0..p.height as i64 {
                r.extend((0..row).map(|i| row_byte(i64::from(p.y) + y, i)));
            }
            Ok(())
        }
        fn read_pixels_into(&mut self, p: &mgpipe::calls::ReadPixels, dst: &mut [u8]) -> bool {
            if self.decline {
                return false;
            }
            self.asked.push((p.y, p.height));
            let row = p.width as usize * 4;
            for (y, chunk) in dst.chunks_mut(row).enumerate() {
                for (i, b) in chunk.iter_mut().enumerate() {
                    *b = row_byte(i64::from(p.y) + y as i64, i);
                }
            }
            true
        }
        fn read_pixels_bands(&self) -> bool {
            self.bands
        }
    }

    /// One ReadPixels record (reply slot 5) of `w`×`h` RGBA8 at y = 3,
    /// served to the end; the answer bytes, R_PROGRESS, and the dispatcher.
    fn serve_read(w: u32, h: u32, mut d: Banded) -> (Vec<u8>, u64, Banded) {
        let layout = Layout {
            cmd: 4096,
            stage: 4096,
            reply: 1 << 20,
            event: 4096,
        };
        let client = Segments::create(layout).unwrap();
        let p = mgpipe::calls::ReadPixels {
            x: 1,
            y: 3,
            width: w,
            height: h,
            format: 0x1908,
            r#type: 0x1401,
        };
        let payload = bytemuck::bytes_of(&p);
        let len = (RECORD_HEADER_SIZE + payload.len()).next_multiple_of(8);
        let hdr = RecordHeader {
            opcode: mgpipe::Opcode::ReadPixels as u16,
            flags: 0,
            len: len as u32,
            payload_len: payload.len() as u32,
            reply_slot: 5,
            blob_offset: 0,
            blob_len: 0,
        };
        client.cmd.write(CTRL_SIZE, bytemuck::bytes_of(&hdr));
        client.cmd.write(CTRL_SIZE + RECORD_HEADER_SIZE, payload);
        word!(client.cmd, u64, C_CMD_HEAD).store(len as u64, SeqCst);
        word!(client.cmd, u32, C_SHUTDOWN).store(SHUTDOWN_DRAIN, SeqCst);
        let mut server = ServerLink::new(client.map_again().unwrap());
        assert_eq!(server.serve(&mut d), ServeEnd::Shutdown);
        assert_eq!(word!(client.reply, u32, R_SEQ).load(SeqCst), 5);
        assert_eq!(word!(client.reply, u32, R_STATUS).load(SeqCst), REPLY_OK);
        let total = word!(client.reply, u64, R_LEN).load(SeqCst) as usize;
        let mut got = vec![0; total];
        assert!(client.reply.read(REPLY_HDR, &mut got));
        (got, word!(client.reply, u64, R_PROGRESS).load(SeqCst), d)
    }

    #[test]
    fn banded_read_backs_answer_the_whole_read_band_by_band() {
        let fresh = |bands, decline| Banded {
            bands,
            decline,
            asked: Vec::new(),
            dispatched: 0,
        };
        // 100 rows of 400 bytes: 81 rows per 32 KiB band, so two bands.
        let (w, h) = (100, 100);
        let mut whole = Vec::new();
        fresh(false, false)
            .dispatch(
                0,
                bytemuck::bytes_of(&mgpipe::calls::ReadPixels {
                    x: 1,
                    y: 3,
                    width: w,
                    height: h,
                    format: 0x1908,
                    r#type: 0x1401,
                }),
                &[],
                &mut whole,
                0,
            )
            .unwrap();
        let (got, progress, d) = serve_read(w, h, fresh(true, false));
        assert_eq!(got, whole);
        assert_eq!(d.asked, [(3, 81), (84, 19)]);
        assert_eq!(progress, (5u64 << 32) | (w * h * 4) as u64);
        // An applier without bands reads once; one that declines answers
        // through the generic path, whole.
        let (got, progress, d) = serve_read(w, h, fresh(false, false));
        assert_eq!((got == whole, progress, d.asked), (true, 0, vec![(3, 100)]));
        let (got, _, d) = serve_read(w, h, fresh(true, true));
        assert_eq!((got == whole, d.dispatched), (true, 1));
        // One band's worth is read at once.
        let (_, progress, d) = serve_read(8, 8, fresh(true, false));
        assert_eq!((progress, d.asked), (0, vec![(3, 8)]));
    }

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    /// Garbage in the CMD ring and in every client-written index never
    /// panics the loop: it ends with a named Fatal or drains and stops.
    #[test]
    fn decode_loop_survives_garbage() {
        let layout = Layout {
            cmd: 4096,
            stage: 4096,
            reply: 4096,
            event: 4096,
        };
        let mut rng = Rng(0x1234_5678_9abc_def1);
        let mut fatal = 0;
        for round in 0..400 {
            let client = Segments::create(layout).unwrap();
            let mut data = vec![0u8; layout.cmd];
            for chunk in data.chunks_mut(8) {
                let v = rng.next().to_le_bytes();
                chunk.copy_from_slice(&v[..chunk.len()]);
            }
            // Sometimes plausible headers, so deeper checks are reached.
            if round % 2 == 0 {
                let mut off = 0usize;
                while off + 64 <= layout.cmd {
                    let len = [32u32, 40, 48, 64][(rng.next() % 4) as usize];
                    let h = RecordHeader {
                        opcode: (rng.next() % 60) as u16,
                        flags: 0,
                        len,
                        payload_len: (rng.next() % 40) as u32,
                        reply_slot: (rng.next() % 3) as u32,
                        blob_offset: rng.next() % 8192,
                        blob_len: rng.next() % 5000 * u64::from(rng.next() & 3 == 0),
                    };
                    data[off..off + 32].copy_from_slice(bytemuck::bytes_of(&h));
                    off += len as usize;
                }
            }
            client.cmd.write(CTRL_SIZE, &data);
            let head = match round % 4 {
                0 => rng.next(),
                _ => rng.next() % (layout.cmd as u64 + 1),
            };
            word!(client.cmd, u64, C_CMD_HEAD).store(head, SeqCst);
            word!(client.cmd, u64, C_STAGE_HEAD).store(rng.next() % 10_000, SeqCst);
            word!(client.cmd, u32, C_SHUTDOWN).store(SHUTDOWN_DRAIN, SeqCst);
            word!(client.event, u64, E_TAIL).store(rng.next(), SeqCst);
            let mut server = ServerLink::new(client.map_again().unwrap());
            match server.serve(&mut Sink(0)) {
                ServeEnd::Fatal(f) => {
                    fatal += 1;
                    assert_eq!(
                        ServerState::from_u32(word!(client.cmd, u32, C_SERVER_STATE).load(SeqCst)),
                        Some(ServerState::Fatal)
                    );
                    assert!(!f.detail.is_empty());
                }
                ServeEnd::Shutdown => {}
                ServeEnd::ClientGone => panic!("no hang-up in this test"),
            }
        }
        assert!(fatal > 100, "garbage should mostly be fatal ({fatal})");
    }
}
