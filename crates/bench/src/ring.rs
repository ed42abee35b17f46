//! Transport micro-benchmarks: the record rings of `inproc` and `spawn`
//! (through `remote`'s public API, with its echo test backend on the far
//! side) and the cost of encoding one draw record with `mgpipe::Encoder`.

use std::hint::black_box;
use std::path::PathBuf;

use mgpipe::{calls, Opcode, Pipe, RecordSink};
use remote::testing::EchoBackend;
use remote::{LinkConfig, Transport, TransportKind};
use serde::Serialize;

use crate::clock::{median, percentile, Stamp};
use crate::number;

/// `mobilegl-bench --fd N ring-server`: serve one ring client with the echo
/// backend (the spawned side of the `spawn` ring run).
pub fn serve(args: &[String]) -> Result<(), String> {
    let fd: i32 = match args.get(1).map(|v| v.parse()) {
        Some(Ok(fd)) => fd,
        _ => return Err("--fd needs a descriptor number".into()),
    };
    if args.get(2).map(String::as_str) != Some("ring-server") {
        return Err("--fd N is only for the ring benchmark's server (`--fd N ring-server`)".into());
    }
    let fd = remote::server::adopt_fd(fd).map_err(|e| e.to_string())?;
    remote::server::run_spawned_server(fd, |_kind| Ok(EchoBackend::boxed()))
        .map_err(|e| format!("ring server: {e}"))
}

#[derive(Serialize)]
struct RingResult {
    transport: String,
    /// Draw records pushed per run.
    records: u64,
    /// Publish after every `batch` records (and at the end, by `finish`).
    batch: u64,
    /// Client calling-thread CPU per record (push + publishes).
    client_ns_per_record: f64,
    /// Wall per record from the first push to the `finish` reply (the echo
    /// backend has decoded and digested every record by then).
    end_to_end_ns_per_record: f64,
    /// Record bytes (header + payload) per second, end to end.
    gb_per_s: f64,
    /// When not 0, each draw follows a `set_global_constants` record with a
    /// blob of this many bytes (a per-draw `glUniform*` change); the
    /// per-record figures are then per such pair.
    uniform_bytes: u64,
}

#[derive(Serialize)]
struct BlobResult {
    transport: String,
    blobs: u64,
    blob_bytes: u64,
    /// Blob bytes per second, end to end (the echo backend digests every
    /// byte, so this is a floor).
    gb_per_s: f64,
}

#[derive(Serialize)]
struct LatencyResult {
    transport: String,
    round_trips: u64,
    /// A `finish` record published on an idle ring until its reply is seen.
    p50_ns: f64,
    p99_ns: f64,
}

#[derive(Serialize, Default)]
struct RingReport {
    records: Vec<RingResult>,
    blobs: Vec<BlobResult>,
    latency: Vec<LatencyResult>,
}

fn connect(kind: TransportKind) -> Result<Box<dyn Transport>, String> {
    let mut cfg = LinkConfig::default();
    let exe: Option<PathBuf> = match kind {
        TransportKind::Spawn => {
            cfg.server_args = vec!["ring-server".into()];
            Some(std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?)
        }
        _ => None,
    };
    remote::connect(kind, &cfg, EchoBackend::factory(), exe.as_deref())
        .map_err(|e| format!("connect {kind}: {e}"))
}

fn finish(t: &mut dyn Transport) -> Result<(), String> {
    let mut reply = Vec::new();
    t.finish(&calls::Finish::default(), &mut reply);
    if let Some(l) = t.lost() {
        return Err(format!("transport lost: {l}"));
    }
    if reply.len() != 16 {
        return Err(format!(
            "finish answered {} bytes, expected the echo digest (16)",
            reply.len()
        ));
    }
    Ok(())
}

fn draw(i: u64) -> calls::Draw {
    calls::Draw {
        mode: 4,
        index_size: 2,
        count: 6,
        instance_count: 1,
        base_vertex: (i % 4) as i32 * 4,
        ..Default::default()
    }
}

/// Bytes of the uniform block in the draw-after-uniform case (a chunk
/// shader's default block: a few matrices and vectors).
const UNIFORM_BLOCK: usize = 64;

fn records(
    t: &mut dyn Transport,
    kind: TransportKind,
    n: u64,
    batch: u64,
    repeats: u32,
    uniform_bytes: usize,
) -> Result<RingResult, String> {
    let (mut client, mut e2e, mut gbs) = (Vec::new(), Vec::new(), Vec::new());
    let mut block: Vec<u8> = (0..uniform_bytes).map(|i| (i * 7) as u8).collect();
    let shader = calls::SetGlobalConstants {
        shader: mgpipe::Handle::new(1, 1),
    };
    for _ in 0..repeats {
        finish(t)?;
        let bytes0 = t.stats().bytes;
        let a = Stamp::now();
        for i in 0..n {
            if uniform_bytes != 0 {
                // A new value per draw, as a per-draw glUniform3f sends.
                block[0] = i as u8;
                t.set_global_constants(&shader, &block);
            }
            t.draw(&draw(i), &[]);
            if (i + 1) % batch == 0 {
                t.flush();
            }
        }
        let pushed = Stamp::now();
        finish(t)?;
        let done = Stamp::now();
        let bytes = t.stats().bytes - bytes0;
        client.push(a.until(pushed).thread as f64 / n as f64);
        let w = a.until(done).wall as f64;
        e2e.push(w / n as f64);
        gbs.push(bytes as f64 / w);
    }
    Ok(RingResult {
        transport: kind.to_string(),
        records: n,
        batch,
        client_ns_per_record: median(&client),
        end_to_end_ns_per_record: median(&e2e),
        gb_per_s: median(&gbs),
        uniform_bytes: uniform_bytes as u64,
    })
}

fn blobs(
    t: &mut dyn Transport,
    kind: TransportKind,
    n: u64,
    repeats: u32,
) -> Result<BlobResult, String> {
    const BLOB: usize = 64 << 10;
    let blob: Vec<u8> = (0..BLOB).map(|i| (i * 13) as u8).collect();
    let p = calls::BufferSubdata {
        res: mgpipe::Handle::new(1, 1),
        offset: 0,
    };
    let mut gbs = Vec::new();
    for _ in 0..repeats {
        finish(t)?;
        let a = Stamp::now();
        for _ in 0..n {
            t.buffer_subdata(&p, &blob);
        }
        finish(t)?;
        let w = a.until(Stamp::now()).wall as f64;
        gbs.push((n * BLOB as u64) as f64 / w);
    }
    Ok(BlobResult {
        transport: kind.to_string(),
        blobs: n,
        blob_bytes: BLOB as u64,
        gb_per_s: median(&gbs),
    })
}

fn latency(t: &mut dyn Transport, kind: TransportKind, n: u64) -> Result<LatencyResult, String> {
    finish(t)?;
    let mut v = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let a = Stamp::now();
        finish(t)?;
        v.push(a.until(Stamp::now()).wall as f64);
    }
    Ok(LatencyResult {
        transport: kind.to_string(),
        round_trips: n,
        p50_ns: percentile(&v, 50.0),
        p99_ns: percentile(&v, 99.0),
    })
}

/// `mobilegl-bench ring [--transport inproc|spawn|all] [--scale K] [--json]`.
pub fn run(args: &[String]) -> Result<(), String> {
    let mut kinds = vec![TransportKind::Inproc, TransportKind::Spawn];
    let mut scale: u64 = 1;
    let mut json = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--transport" => {
                let v = it.next().ok_or("--transport needs a value")?;
                kinds = match v.as_str() {
                    "all" => vec![TransportKind::Inproc, TransportKind::Spawn],
                    "inproc" => vec![TransportKind::Inproc],
                    "spawn" => vec![TransportKind::Spawn],
                    other => {
                        return Err(format!(
                            "--transport: `{other}` (the rings are inproc and spawn)"
                        ))
                    }
                }
            }
            "--scale" => scale = number(a, it.next())?,
            "--json" => json = true,
            other => return Err(format!("ring: unknown argument `{other}`")),
        }
    }
    let mut rep = RingReport::default();
    for kind in kinds {
        let mut t = connect(kind)?;
        let t = t.as_mut();
        finish(t)?;
        rep.records
            .push(records(t, kind, 200_000 * scale, 1, 5, 0)?);
        rep.records
            .push(records(t, kind, 200_000 * scale, 64, 5, 0)?);
        rep.records
            .push(records(t, kind, 200_000 * scale, u64::MAX, 5, 0)?);
        rep.records
            .push(records(t, kind, 200_000 * scale, 64, 5, UNIFORM_BLOCK)?);
        rep.blobs.push(blobs(t, kind, 1000 * scale, 5)?);
        rep.latency.push(latency(t, kind, 5000 * scale)?);
    }
    if json {
        println!(
            "{}",
            serde_json::to_string(&rep).map_err(|e| format!("json: {e}"))?
        );
    } else {
        for r in &rep.records {
            let mut batch = if r.batch == u64::MAX {
                "at finish".to_string()
            } else {
                format!("every {}", r.batch)
            };
            if r.uniform_bytes != 0 {
                batch += &format!(" (+{} B uniforms per draw)", r.uniform_bytes);
            }
            println!(
                "{:<7} draw records, publish {batch:<9}: client {:>7.1} ns/record, end to end \
                 {:>7.1} ns/record, {:.2} GB/s",
                r.transport, r.client_ns_per_record, r.end_to_end_ns_per_record, r.gb_per_s
            );
        }
        for b in &rep.blobs {
            println!(
                "{:<7} {} x {} KiB blobs: {:.2} GB/s",
                b.transport,
                b.blobs,
                b.blob_bytes >> 10,
                b.gb_per_s
            );
        }
        for l in &rep.latency {
            println!(
                "{:<7} finish round trip: p50 {:.1} us, p99 {:.1} us",
                l.transport,
                l.p50_ns / 1e3,
                l.p99_ns / 1e3
            );
        }
    }
    Ok(())
}

/// A Vec-backed sink framing records as the rings do (header + payload,
/// padded to 8; blobs counted by stream position, not copied).
struct VecSink {
    buf: Vec<u8>,
    stage: u64,
}

impl RecordSink for VecSink {
    fn record(&mut self, opcode: Opcode, payload: &[u8], blob: &[u8]) {
        let len = mgpipe::wire::align_record(mgpipe::wire::RECORD_HEADER_SIZE + payload.len());
        if self.buf.len() + len > self.buf.capacity() {
            self.buf.clear();
        }
        let h = mgpipe::RecordHeader {
            opcode: opcode as u16,
            flags: 0,
            len: len as u32,
            payload_len: payload.len() as u32,
            reply_slot: 0,
            blob_offset: self.stage,
            blob_len: blob.len() as u64,
        };
        self.stage += blob.len() as u64;
        let start = self.buf.len();
        self.buf.extend_from_slice(bytemuck::bytes_of(&h));
        self.buf.extend_from_slice(payload);
        self.buf.resize(start + len, 0);
    }
    fn record_sync(&mut self, opcode: Opcode, payload: &[u8], blob: &[u8], reply: &mut Vec<u8>) {
        self.record(opcode, payload, blob);
        reply.clear();
    }
}

#[derive(Serialize)]
struct EncodeResult {
    draws: u64,
    repeats: u32,
    /// Median over repeats of the mean ns per `Encoder::draw`.
    ns_per_draw: f64,
    min_ns_per_draw: f64,
}

/// `mobilegl-bench encode [--draws N] [--repeats R] [--json]`.
pub fn encode(args: &[String]) -> Result<(), String> {
    let mut draws: u64 = 5_000_000;
    let mut repeats: u32 = 7;
    let mut json = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--draws" => draws = number(a, it.next())?,
            "--repeats" => repeats = number(a, it.next())?,
            "--json" => json = true,
            other => return Err(format!("encode: unknown argument `{other}`")),
        }
    }
    let mut enc = mgpipe::Encoder(VecSink {
        buf: Vec::with_capacity(1 << 20),
        stage: 0,
    });
    let mut v = Vec::new();
    for _ in 0..repeats {
        let a = Stamp::now();
        for i in 0..draws {
            enc.draw(black_box(&draw(i)), &[]);
        }
        black_box(&enc.0.buf);
        v.push(a.until(Stamp::now()).thread as f64 / draws as f64);
    }
    let r = EncodeResult {
        draws,
        repeats,
        ns_per_draw: median(&v),
        min_ns_per_draw: v.iter().copied().fold(f64::INFINITY, f64::min),
    };
    if json {
        println!(
            "{}",
            serde_json::to_string(&r).map_err(|e| format!("json: {e}"))?
        );
    } else {
        println!(
            "mgpipe::Encoder::draw into a Vec sink: {:.2} ns/draw (median of {}, min {:.2})",
            r.ns_per_draw, r.repeats, r.min_ns_per_draw
        );
    }
    Ok(())
}
