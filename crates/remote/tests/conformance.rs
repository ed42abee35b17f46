//! The transport conformance suite: written once against `Transport`,
//! instantiated for every lane with the same test names
//! (`monolith::*`, `inproc::*`, `spawn::*`), plus spawn-only lifecycle tests.
//!
//! The backend is `remote::testing::EchoBackend` (in the spawn lane it runs
//! in the `remote-test-server` child); its state is observed through reply
//! calls (`finish` answers the call count and an order-sensitive digest), so
//! the same assertions hold across a process boundary.

use std::path::Path;
use std::time::{Duration, Instant};

use mgpipe::event::Event;
use mgpipe::{calls, Handle, Opcode};
use remote::testing::{
    echo_events, readback_pattern, Digest, EchoBackend, EVENT_SLOT, PANIC_SLOT, SLOW_SLOT,
};
use remote::{connect, FatalReason, LinkConfig, LostReason, Transport, TransportKind};

const SERVER: &str = env!("CARGO_BIN_EXE_remote-test-server");

/// Small rings so that wrap-around and waits happen quickly.
fn small_cfg() -> LinkConfig {
    LinkConfig {
        cmd_bytes: 64 << 10,
        stage_bytes: 1 << 20,
        reply_bytes: 1 << 20,
        event_bytes: 16 << 10,
        backend_kind: Some("gles".into()),
        server_args: Vec::new(),
        hide_from_server: Vec::new(),
    }
}

fn open_cfg(kind: TransportKind, cfg: &LinkConfig) -> Box<dyn Transport> {
    match connect(kind, cfg, EchoBackend::factory(), Some(Path::new(SERVER))) {
        Ok(t) => t,
        Err(e) => panic!("connect {kind}: {e}"),
    }
}

fn open(kind: TransportKind) -> Box<dyn Transport> {
    open_cfg(kind, &small_cfg())
}

/// Pushes calls through a transport and mirrors them into a local digest.
struct Driver {
    t: Box<dyn Transport>,
    mirror: Digest,
}

impl Driver {
    fn new(t: Box<dyn Transport>) -> Driver {
        Driver {
            t,
            mirror: Digest::default(),
        }
    }

    fn note<P: bytemuck::Pod>(&mut self, op: Opcode, p: &P, blob: &[u8]) {
        self.mirror.add(op as u16, bytemuck::bytes_of(p), blob);
    }

    fn viewport(&mut self, i: u32) {
        let p = calls::SetViewport {
            x: i as f32,
            y: 1.0,
            width: 640.0,
            height: (i % 1000) as f32,
            near: 0.0,
            far: 1.0,
        };
        self.t.set_viewport(&p);
        self.note(Opcode::SetViewport, &p, &[]);
    }

    fn blend(&mut self, i: u32) {
        let p = calls::SetBlendColor {
            color: [i as f32, 0.5, 0.25, 1.0],
        };
        self.t.set_blend_color(&p);
        self.note(Opcode::SetBlendColor, &p, &[]);
    }

    fn clear(&mut self, i: u32) {
        let p = calls::Clear {
            buffers: 1,
            color: [i, i + 1, i + 2, i + 3],
            depth: 1.0,
            ..Default::default()
        };
        self.t.clear(&p);
        self.note(Opcode::Clear, &p, &[]);
    }

    fn big_state(&mut self, i: u32) {
        let mut p = calls::SetConstantBuffers {
            count: 16,
            ..Default::default()
        };
        for k in 0..16 {
            p.buffers[k] = Handle::new(i + k as u32, 1);
            p.offsets[k] = u64::from(i) * 256;
            p.sizes[k] = 64 + k as u64;
        }
        self.t.set_constant_buffers(&p);
        self.note(Opcode::SetConstantBuffers, &p, &[]);
    }

    fn draw(&mut self, i: u32, indices: &[u8]) {
        let p = calls::Draw {
            mode: 4,
            index_size: 2,
            count: (indices.len() / 2) as u32,
            first: i,
            ..Default::default()
        };
        self.t.draw(&p, indices);
        self.note(Opcode::Draw, &p, indices);
    }

    fn upload(&mut self, slot: u32, blob: &[u8]) {
        let p = calls::BufferSubdata {
            res: Handle::new(slot, 1),
            offset: 0,
        };
        self.t.buffer_subdata(&p, blob);
        self.note(Opcode::BufferSubdata, &p, blob);
    }

    fn readback(&mut self, slot: u32, offset: u64, size: u64) -> Vec<u8> {
        let p = calls::BufferReadback {
            res: Handle::new(slot, 1),
            offset,
            size,
        };
        let mut r = vec![0xAA; 3];
        self.t.buffer_readback(&p, &mut r);
        self.note(Opcode::BufferReadback, &p, &[]);
        r
    }

    /// `finish` and compare the backend's digest with the mirror.
    fn check(&mut self) {
        let p = calls::Finish::default();
        self.note(Opcode::Finish, &p, &[]);
        let mut r = Vec::new();
        self.t.finish(&p, &mut r);
        assert_eq!(self.t.lost(), None, "transport lost");
        let got = Digest::from_reply(&r).expect("finish reply is a digest");
        assert_eq!(got.count, self.mirror.count, "call count differs");
        assert_eq!(
            got, self.mirror,
            "call digest differs: records reordered, lost or altered"
        );
    }

    /// A `present` the echo backend takes `SLOW_PRESENT` over.
    fn slow_present(&mut self) {
        let p = calls::Present {
            surface: Handle::new(SLOW_SLOT, 1),
        };
        self.t.present(&p);
        self.note(Opcode::Present, &p, &[]);
    }

    /// A reply call after loss: answers empty, promptly.
    fn finish_after_loss(&mut self) -> Vec<u8> {
        let mut r = vec![1, 2, 3];
        let t0 = Instant::now();
        self.t.finish(&calls::Finish::default(), &mut r);
        assert!(
            t0.elapsed() < Duration::from_secs(5),
            "reply call blocked after loss"
        );
        r
    }
}

fn bytes(seed: u32, n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| {
            (i as u32)
                .wrapping_mul(2654435761)
                .wrapping_add(seed)
                .rotate_right(13) as u8
        })
        .collect()
}

// ------------------------------------------------------------------ suite

fn handshake_caps(kind: TransportKind) {
    let t = open(kind);
    assert_eq!(t.kind(), kind);
    assert_eq!(*t.caps(), mgpipe::Caps::minimum());
    assert!(t.lost().is_none());
    if kind == TransportKind::Spawn {
        assert!(t.server_pid().is_some());
    }
}

fn ordering_of_many_records(kind: TransportKind) {
    let mut d = Driver::new(open(kind));
    for i in 0..20_000u32 {
        match i % 5 {
            0 => d.viewport(i),
            1 => d.blend(i),
            2 => d.clear(i),
            3 => d.draw(i, &bytes(i, (i % 64) as usize * 2)),
            _ => d.big_state(i),
        }
        if i % 997 == 0 {
            d.t.flush();
        }
    }
    d.check();
    let s = d.t.stats();
    assert!(s.records >= 20_001, "{s:?}");
}

fn big_blobs_wrap_stage(kind: TransportKind) {
    let cfg = small_cfg();
    let mut d = Driver::new(open_cfg(kind, &cfg));
    // Each blob is bigger than half the STAGE ring: every one after the
    // first has to wrap and wait for the server to release the previous.
    // Blobs are made up front so the producer outruns the server.
    let big = cfg.stage_bytes * 6 / 10;
    let blobs: Vec<Vec<u8>> = (0..8u32).map(|i| bytes(i, big + i as usize * 8)).collect();
    let whole = bytes(99, cfg.stage_bytes);
    for (i, b) in blobs.iter().enumerate() {
        d.upload(i as u32, b);
        d.blend(i as u32);
    }
    d.upload(99, &whole); // exactly the whole ring
    d.check();
    if kind != TransportKind::Monolith {
        // The stream went round the ring several times (each blob after the
        // first wrapped: `check` above proves every byte arrived intact).
        // Whether a wrap waited for the server, rewound a drained ring or
        // found the space already free is a race (uploads publish every
        // 128 KiB; a natural wrap into freed space counts as neither), so
        // only the distance is asserted. The blocked producer itself is
        // covered by spawn_death_wakes_a_producer_waiting_for_space.
        let s = d.t.stats();
        assert!(
            s.bytes > 4 * cfg.stage_bytes as u64,
            "expected the stream to go round the ring: {s:?}"
        );
    }
}

/// Frames of uploads, each ended by a round trip: once the server has
/// released all of STAGE, the next frame's blobs start at the front of the
/// ring again (cache-warm), and every byte still arrives intact.
fn stage_rewinds_after_a_drained_frame(kind: TransportKind) {
    let cfg = small_cfg();
    let mut d = Driver::new(open_cfg(kind, &cfg));
    let blob = cfg.stage_bytes / 8 + 24;
    for frame in 0..12u32 {
        for i in 0..3u32 {
            d.upload(i, &bytes(frame * 3 + i, blob));
            d.blend(i);
        }
        d.check();
    }
    let s = d.t.stats();
    if kind != TransportKind::Monolith {
        // Every frame after the first starts at the front of the ring
        // (the finish reply showed it empty).
        assert!(s.stage_rewinds >= 11, "{s:?}");
    }
}

fn reply_calls_interleaved(kind: TransportKind) {
    let mut d = Driver::new(open(kind));
    for i in 0..300u32 {
        d.viewport(i);
        if i % 3 == 0 {
            d.upload(i, &bytes(i, 1000 + i as usize));
        }
        let size = u64::from(i * 37 % 5000);
        let r = d.readback(i, u64::from(i), size);
        assert_eq!(r, readback_pattern(i, u64::from(i), size), "readback {i}");
        if i % 50 == 0 {
            d.check();
        }
    }
    // A reply as large as the REPLY area, and read_pixels.
    let r = d.readback(7, 0, 1 << 20);
    assert_eq!(r.len(), 1 << 20);
    assert_eq!(r, readback_pattern(7, 0, 1 << 20));
    let p = calls::ReadPixels {
        x: 3,
        y: 4,
        width: 16,
        height: 8,
        format: 0x1908,
        r#type: 0x1401,
    };
    let mut px = Vec::new();
    d.t.read_pixels(&p, &mut px);
    d.note(Opcode::ReadPixels, &p, &[]);
    assert_eq!(px, readback_pattern(3, 4, 16 * 8 * 4));
    // The same read straight into caller memory (no reply Vec).
    let mut direct = vec![0u8; 16 * 8 * 4];
    let before = d.t.stats().direct_replies;
    assert!(d.t.read_pixels_into(&p, &mut direct));
    d.note(Opcode::ReadPixels, &p, &[]);
    assert_eq!(direct, px);
    // inproc's server thread writes into the caller's memory itself; a
    // spawned server cannot, and monolith has no server.
    let direct_now = d.t.stats().direct_replies - before;
    assert_eq!(
        direct_now,
        u64::from(kind == TransportKind::Inproc),
        "{kind}"
    );
    // A destination of the wrong size is refused untouched (rings: after
    // the round trip; the digest still counts the call).
    let mut short = vec![0xEEu8; 10];
    let ok = d.t.read_pixels_into(&p, &mut short);
    assert!(!ok && short == [0xEE; 10]);
    d.note(Opcode::ReadPixels, &p, &[]);
    d.check();
    assert!(d.t.stats().blocking_round_trips >= 300, "{:?}", d.t.stats());
}

fn event_copy(d: &mut Driver, dst_offset: u64, size: u64) -> calls::BufferCopy {
    let p = calls::BufferCopy {
        src: Handle::new(3, 1),
        dst: Handle::new(EVENT_SLOT, 1),
        src_offset: 0,
        dst_offset,
        size,
    };
    d.t.buffer_copy(&p);
    d.note(Opcode::BufferCopy, &p, &[]);
    p
}

/// The reverse channel: every event kind reaches the client, in order,
/// before the reply of a later call; log lines go to the log, not the list.
fn events_in_order_before_reply(kind: TransportKind) {
    let mut d = Driver::new(open(kind));
    let mut got = Vec::new();
    d.t.poll_events(&mut got);
    assert!(got.is_empty(), "no events before any call: {got:?}");
    let a = event_copy(&mut d, 16, 100);
    d.viewport(1);
    let b = event_copy(&mut d, 4096, 7);
    d.check();
    d.t.poll_events(&mut got);
    let mut want = echo_events(&a);
    want.extend(echo_events(&b));
    want.retain(|e| !matches!(e, Event::Log { .. }));
    assert_eq!(got, want);
    got.clear();
    d.t.poll_events(&mut got);
    assert!(got.is_empty(), "events are delivered once: {got:?}");
}

/// A write-back larger than half the EVENT ring travels as a pull request
/// (ring lanes; monolith has no ring and passes it whole), and a flood the
/// client does not drain ends in the all-stale marker, never in silence.
fn events_degrade_never_vanish(kind: TransportKind) {
    let mut d = Driver::new(open(kind));
    let big = event_copy(&mut d, 0, 12 << 10);
    d.check();
    let mut got = Vec::new();
    d.t.poll_events(&mut got);
    let wb = got
        .iter()
        .find(|e| {
            matches!(
                e,
                Event::BufferWriteback { .. } | Event::GpuWritten { len: 12288, .. }
            )
        })
        .cloned();
    if kind == TransportKind::Monolith {
        assert_eq!(wb, Some(echo_events(&big)[1].clone()));
    } else {
        assert_eq!(
            wb,
            Some(Event::GpuWritten {
                res: big.dst,
                offset: 0,
                len: 12 << 10
            }),
            "{got:?}"
        );
    }
    got.clear();
    for i in 0..200 {
        event_copy(&mut d, i, 100);
    }
    d.check();
    d.t.poll_events(&mut got);
    let n = got.len();
    if kind == TransportKind::Monolith {
        assert_eq!(n, 200 * 6);
    } else {
        assert!(n < 200 * 6, "a 16 KiB ring cannot hold {n} events");
        assert_eq!(
            got.last(),
            Some(&Event::GpuWritten {
                res: Handle::NULL,
                offset: 0,
                len: u64::MAX
            }),
            "lost reports end in the all-stale marker"
        );
    }
    // The ring is usable again afterwards.
    got.clear();
    let c = event_copy(&mut d, 8, 8);
    d.check();
    d.t.poll_events(&mut got);
    assert_eq!(got.first(), echo_events(&c).first());
}

fn many_small_records_wrap_cmd(kind: TransportKind) {
    let mut d = Driver::new(open(kind));
    // Mixed record sizes (32..424 bytes) so every wrap-gap size occurs,
    // both below a header (implicit skip) and above (wrap marker).
    for i in 0..60_000u32 {
        match i % 7 {
            0 | 3 => d.blend(i),
            1 => d.viewport(i),
            2 => d.clear(i),
            4 => d.big_state(i),
            5 => {
                let p = calls::FlushCommands::default();
                d.t.flush_commands(&p);
                d.note(Opcode::FlushCommands, &p, &[]);
            }
            _ => d.draw(i, &[]),
        }
    }
    d.check();
    let s = d.t.stats();
    if kind != TransportKind::Monolith {
        // ~6 MB of records through a 64 KiB ring.
        assert!(s.bytes > 50 * (64 << 10) as u64, "{s:?}");
    }
}

fn corrupt_record_is_fatal_and_lost(kind: TransportKind) {
    let mut d = Driver::new(open(kind));
    d.viewport(1);
    d.check();
    // A well-framed record with an opcode the catalogue does not have.
    let h = mgpipe::RecordHeader {
        opcode: 0x7FFE,
        len: 40,
        payload_len: 8,
        ..Default::default()
    };
    let mut rec = bytemuck::bytes_of(&h).to_vec();
    rec.extend_from_slice(&[0u8; 8]);
    d.t.push_raw(&rec, &[]);
    let r = d.finish_after_loss();
    assert!(r.is_empty(), "reply after loss must be empty");
    match d.t.lost() {
        Some(LostReason::ProtocolFatal {
            reason: FatalReason::ProtocolCorruption,
            opcode,
            detail,
        }) => {
            assert_eq!(*opcode, Some(0x7FFE));
            assert!(detail.contains("unknown opcode"), "{detail}");
        }
        other => panic!("expected ProtocolFatal(ProtocolCorruption), got {other:?}"),
    }
    // Everything after loss is a no-op and never blocks.
    let t0 = Instant::now();
    for i in 0..50_000u32 {
        d.blend(i);
    }
    d.upload(1, &bytes(1, 900_000));
    d.t.flush();
    let mut r = vec![9];
    d.t.buffer_readback(
        &calls::BufferReadback {
            res: Handle::new(1, 1),
            offset: 0,
            size: 64,
        },
        &mut r,
    );
    assert!(r.is_empty());
    assert!(t0.elapsed() < Duration::from_secs(10));
}

fn payload_length_mismatch_is_fatal(kind: TransportKind) {
    let mut d = Driver::new(open(kind));
    // set_blend_color with a 4-byte payload (it has 16).
    let h = mgpipe::RecordHeader {
        opcode: Opcode::SetBlendColor as u16,
        len: 40,
        payload_len: 4,
        ..Default::default()
    };
    let mut rec = bytemuck::bytes_of(&h).to_vec();
    rec.extend_from_slice(&[0u8; 8]);
    d.t.push_raw(&rec, &[]);
    d.finish_after_loss();
    assert!(
        matches!(
            d.t.lost(),
            Some(LostReason::ProtocolFatal {
                reason: FatalReason::ProtocolCorruption,
                ..
            })
        ),
        "{:?}",
        d.t.lost()
    );
}

/// A client asleep on a reply while the server works through queued
/// records is woken by the reply, not once per record consumed.
fn reply_wait_sleeps_once(kind: TransportKind) {
    let mut d = Driver::new(open(kind));
    d.check();
    let before = d.t.stats().client_sleeps;
    for _ in 0..100 {
        d.slow_present();
    }
    d.check();
    let sleeps = d.t.stats().client_sleeps - before;
    assert!(
        sleeps <= 3,
        "{sleeps} sleeps for one reply: {:?}",
        d.t.stats()
    );
}

/// A client waiting for ring space behind a slow server is woken once a
/// slice of the ring is free, not once per record consumed.
fn space_wait_sleeps_per_slice(kind: TransportKind) {
    let cfg = LinkConfig {
        cmd_bytes: 4096,
        ..small_cfg()
    };
    let mut d = Driver::new(open_cfg(kind, &cfg));
    d.check();
    let before = d.t.stats();
    for _ in 0..300 {
        d.slow_present();
    }
    d.check();
    let s = d.t.stats();
    if kind != TransportKind::Monolith {
        assert!(
            s.stage_waits > before.stage_waits,
            "the ring never filled: {s:?}"
        );
    }
    let sleeps = s.client_sleeps - before.client_sleeps;
    assert!(sleeps <= 60, "{sleeps} sleeps for 300 records: {s:?}");
}

fn backend_panic_is_named(kind: TransportKind) {
    let mut d = Driver::new(open(kind));
    d.viewport(1);
    d.t.present(&calls::Present {
        surface: Handle::new(PANIC_SLOT, 1),
    });
    let r = d.finish_after_loss();
    assert!(r.is_empty());
    match d.t.lost() {
        Some(LostReason::ProtocolFatal {
            reason: FatalReason::BackendPanic,
            detail,
            ..
        }) => {
            assert!(detail.contains("asked to panic"), "{detail}")
        }
        other => panic!("expected BackendPanic, got {other:?}"),
    }
}

fn blob_larger_than_stage(kind: TransportKind) {
    let cfg = small_cfg();
    let mut d = Driver::new(open_cfg(kind, &cfg));
    d.upload(1, &bytes(1, cfg.stage_bytes + 8));
    if kind == TransportKind::Monolith {
        // Named difference: monolith has no STAGE segment, so no limit.
        d.check();
    } else {
        d.finish_after_loss();
        assert!(
            matches!(
                d.t.lost(),
                Some(LostReason::ProtocolFatal {
                    reason: FatalReason::RecordTooLarge,
                    ..
                })
            ),
            "{:?}",
            d.t.lost()
        );
    }
}

fn drop_is_orderly(kind: TransportKind) {
    for _ in 0..3 {
        let mut d = Driver::new(open(kind));
        for i in 0..100 {
            d.viewport(i);
        }
        // Not flushed: drop publishes and the server drains.
        drop(d);
    }
}

/// The transport may move between threads (one user at a time); records
/// keep their order across the move in every lane.
fn moves_between_threads(kind: TransportKind) {
    let mut d = Driver::new(open(kind));
    d.viewport(1);
    let mut d = std::thread::spawn(move || {
        d.blend(2);
        d.check();
        d
    })
    .join()
    .unwrap();
    d.clear(3);
    d.check();
}

macro_rules! conformance_tests {
    ($lane:ident, $kind:expr) => {
        mod $lane {
            use super::*;

            #[test]
            fn handshake_caps() {
                super::handshake_caps($kind)
            }
            #[test]
            fn ordering_of_many_records() {
                super::ordering_of_many_records($kind)
            }
            #[test]
            fn big_blobs_wrap_stage() {
                super::big_blobs_wrap_stage($kind)
            }
            #[test]
            fn stage_rewinds_after_a_drained_frame() {
                super::stage_rewinds_after_a_drained_frame($kind)
            }
            #[test]
            fn reply_calls_interleaved() {
                super::reply_calls_interleaved($kind)
            }
            #[test]
            fn many_small_records_wrap_cmd() {
                super::many_small_records_wrap_cmd($kind)
            }
            #[test]
            fn corrupt_record_is_fatal_and_lost() {
                super::corrupt_record_is_fatal_and_lost($kind)
            }
            #[test]
            fn payload_length_mismatch_is_fatal() {
                super::payload_length_mismatch_is_fatal($kind)
            }
            #[test]
            fn reply_wait_sleeps_once() {
                super::reply_wait_sleeps_once($kind)
            }
            #[test]
            fn space_wait_sleeps_per_slice() {
                super::space_wait_sleeps_per_slice($kind)
            }
            #[test]
            fn backend_panic_is_named() {
                super::backend_panic_is_named($kind)
            }
            #[test]
            fn blob_larger_than_stage() {
                super::blob_larger_than_stage($kind)
            }
            #[test]
            fn drop_is_orderly() {
                super::drop_is_orderly($kind)
            }
            #[test]
            fn events_in_order_before_reply() {
                super::events_in_order_before_reply($kind)
            }
            #[test]
            fn events_degrade_never_vanish() {
                super::events_degrade_never_vanish($kind)
            }
            #[test]
            fn moves_between_threads() {
                super::moves_between_threads($kind)
            }
        }
    };
}

conformance_tests!(monolith, TransportKind::Monolith);
conformance_tests!(inproc, TransportKind::Inproc);
conformance_tests!(spawn, TransportKind::Spawn);

// ------------------------------------------------------- spawn lifecycle

fn pid_alive(pid: u32) -> bool {
    // kill(pid, 0) succeeds for a live process and for a zombie.
    // SAFETY: kill(2) takes plain integers and touches no memory of ours.
    unsafe { libc::kill(pid as i32, 0) == 0 }
}

#[test]
fn spawn_catalogue_mismatch_is_refused_by_name() {
    let mut cfg = small_cfg();
    cfg.server_args = vec!["--expect-hash".into(), "0x1".into()];
    match connect(
        TransportKind::Spawn,
        &cfg,
        EchoBackend::factory(),
        Some(Path::new(SERVER)),
    ) {
        Err(remote::TransportError::Refused {
            reason: remote::RefuseReason::CatalogueMismatch,
            detail,
        }) => {
            assert!(detail.contains("catalogue hash"), "{detail}");
        }
        Err(e) => panic!("expected Refused(CatalogueMismatch), got {e}"),
        Ok(_) => panic!("expected Refused(CatalogueMismatch), got a transport"),
    }
}

#[test]
fn spawn_backend_unavailable_is_refused_by_name() {
    let mut cfg = small_cfg();
    cfg.server_args = vec!["--refuse-backend".into()];
    match connect(
        TransportKind::Spawn,
        &cfg,
        EchoBackend::factory(),
        Some(Path::new(SERVER)),
    ) {
        Err(remote::TransportError::Refused {
            reason: remote::RefuseReason::BackendUnavailable,
            ..
        }) => {}
        Err(e) => panic!("expected Refused(BackendUnavailable), got {e}"),
        Ok(_) => panic!("expected a refusal"),
    }
}

#[test]
fn spawn_sigkill_is_server_died_promptly() {
    let mut d = Driver::new(open(TransportKind::Spawn));
    d.viewport(1);
    d.check();
    let pid = d.t.server_pid().expect("spawn has a pid");
    // SAFETY: kill(2) takes plain integers and touches no memory of ours.
    assert!(unsafe { libc::kill(pid as i32, libc::SIGKILL) } == 0);
    let t0 = Instant::now();
    let r = d.finish_after_loss();
    assert!(r.is_empty());
    assert!(
        t0.elapsed() < Duration::from_secs(3),
        "death noticed after {:?}",
        t0.elapsed()
    );
    match d.t.lost() {
        Some(LostReason::ServerDied { detail }) => assert!(!detail.is_empty()),
        other => panic!("expected ServerDied, got {other:?}"),
    }
    // Further calls are no-ops and never block, even ones that would fill
    // the rings.
    let t1 = Instant::now();
    for i in 0..100_000u32 {
        d.big_state(i);
    }
    d.upload(1, &bytes(1, 900_000));
    d.t.flush();
    assert!(t1.elapsed() < Duration::from_secs(10));
    drop(d);
    assert!(!pid_alive(pid), "killed child was not reaped");
}

#[test]
fn spawn_death_wakes_a_blocked_reply_wait() {
    let mut d = Driver::new(open(TransportKind::Spawn));
    let pid = d.t.server_pid().expect("pid");
    let killer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        // SAFETY: kill(2) takes plain integers and touches no memory of ours.
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    });
    // The echo backend sleeps `timeout_ns` in fence_wait: 8 s, far longer
    // than the kill delay.
    let t0 = Instant::now();
    let mut r = vec![7];
    d.t.fence_wait(
        &calls::FenceWait {
            fence: Handle::new(1, 1),
            timeout_ns: 8_000_000_000,
            ..Default::default()
        },
        &mut r,
    );
    let waited = t0.elapsed();
    killer.join().unwrap();
    assert!(r.is_empty());
    assert!(
        waited < Duration::from_secs(4),
        "blocked {waited:?} after the server died"
    );
    assert!(
        matches!(d.t.lost(), Some(LostReason::ServerDied { .. })),
        "{:?}",
        d.t.lost()
    );
}

#[test]
fn spawn_death_wakes_a_producer_waiting_for_space() {
    let cfg = small_cfg();
    let mut d = Driver::new(open_cfg(TransportKind::Spawn, &cfg));
    let pid = d.t.server_pid().expect("pid");
    // Freeze the server (slow, not dead), make the producer wait for STAGE
    // space behind it, then kill it: the wait must end at once.
    // SAFETY: kill(2) takes plain integers and touches no memory of ours.
    assert!(unsafe { libc::kill(pid as i32, libc::SIGSTOP) } == 0);
    let killer = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        // SAFETY: kill(2) takes plain integers and touches no memory of ours.
        unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    });
    let t0 = Instant::now();
    for i in 0..40u32 {
        d.upload(i, &bytes(i, cfg.stage_bytes * 6 / 10));
    }
    killer.join().unwrap();
    assert!(t0.elapsed() < Duration::from_secs(10));
    d.finish_after_loss();
    assert!(
        matches!(d.t.lost(), Some(LostReason::ServerDied { .. })),
        "{:?}",
        d.t.lost()
    );
}

#[test]
fn spawn_drop_reaps_the_child() {
    let mut d = Driver::new(open(TransportKind::Spawn));
    let pid = d.t.server_pid().expect("pid");
    d.viewport(3);
    d.check();
    assert!(pid_alive(pid));
    drop(d);
    assert!(
        !pid_alive(pid),
        "child {pid} still exists (zombie or running) after drop"
    );
}

#[test]
fn spawn_missing_server_binary_is_named() {
    match connect(
        TransportKind::Spawn,
        &small_cfg(),
        EchoBackend::factory(),
        Some(Path::new("/nonexistent/mgl-server")),
    ) {
        Err(remote::TransportError::NoServer(m)) => {
            assert!(m.contains("/nonexistent/mgl-server"), "{m}")
        }
        Err(e) => panic!("expected NoServer, got {e}"),
        Ok(_) => panic!("expected an error"),
    }
}

#[test]
fn inproc_backend_factory_error_is_named() {
    let f: remote::BackendFactory = std::sync::Arc::new(|| Err("no driver here".to_string()));
    for kind in [TransportKind::Monolith, TransportKind::Inproc] {
        match connect(kind, &small_cfg(), f.clone(), None) {
            Err(remote::TransportError::Backend(m)) => assert_eq!(m, "no driver here"),
            Err(e) => panic!("{kind}: expected Backend, got {e}"),
            Ok(_) => panic!("{kind}: expected an error"),
        }
    }
}

#[test]
fn transport_kind_from_env() {
    // The only test touching MOBILEGL_TRANSPORT.
    std::env::set_var("MOBILEGL_TRANSPORT", "spawn");
    assert_eq!(TransportKind::from_env().unwrap(), TransportKind::Spawn);
    std::env::set_var("MOBILEGL_TRANSPORT", "carrier-pigeon");
    let e = TransportKind::from_env().unwrap_err().to_string();
    assert!(
        e.contains("carrier-pigeon") && e.contains("monolith, inproc, spawn"),
        "{e}"
    );
    std::env::remove_var("MOBILEGL_TRANSPORT");
    assert_eq!(TransportKind::from_env().unwrap(), TransportKind::Inproc);
}
