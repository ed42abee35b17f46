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
//! * `present` of surface slot [`PANIC_SLOT`] panics (backend-panic tests);
//!   of [`SLOW_SLOT`] it sleeps [`SLOW_PRESENT`] (a server busy on queued
//!   records while the client waits).
//!
//! [`Recorder`] wraps any applier and writes one normalised, human-readable
//! line per call it receives (the recorder goldens, `tests/recorder.rs`);
//! [`demo_frame`] is the fixed call sequence those goldens record.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;
use std::sync::{Arc, Mutex};

use mgpipe::{calls, Applier, Caps, Handle, Opcode};

use crate::BackendFactory;

/// `present` with this surface slot makes [`EchoBackend`] panic.
pub const PANIC_SLOT: u32 = 0xDEAD;
/// `present` with this surface slot makes [`EchoBackend`] sleep
/// [`SLOW_PRESENT`].
pub const SLOW_SLOT: u32 = 0x510;
pub const SLOW_PRESENT: std::time::Duration = std::time::Duration::from_micros(300);

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
    /// Queued reverse-channel events (see [`EVENT_SLOT`]).
    pub events: Vec<mgpipe::event::Event>,
}

/// A `buffer_copy` whose `dst` has this slot makes the echo backend queue
/// [`echo_events`] for that buffer (the reverse-channel conformance test).
pub const EVENT_SLOT: u32 = 0xE7E7;

/// What the echo backend queues for a `buffer_copy` into [`EVENT_SLOT`]:
/// one event of every kind, in this order. `big` sizes the write-back.
pub fn echo_events(p: &mgpipe::calls::BufferCopy) -> Vec<mgpipe::event::Event> {
    use mgpipe::event::{Event, LogLevel};
    vec![
        Event::GlError {
            code: 0x0505,
            opcode: Opcode::BufferCopy as u16,
        },
        Event::BufferWriteback {
            res: p.dst,
            offset: p.dst_offset,
            bytes: readback_pattern(p.dst.slot, p.dst_offset, p.size.min(1 << 20)),
        },
        Event::GpuWritten {
            res: p.dst,
            offset: p.dst_offset,
            len: p.size,
        },
        Event::SurfaceChanged {
            surface: p.src,
            width: 640,
            height: 480,
        },
        Event::CapsInvalidated,
        Event::FenceSignaled {
            fence: Handle::new(p.src.slot, p.dst.slot),
        },
        Event::Log {
            level: LogLevel::Info,
            text: format!("echo events for slot {}", p.dst.slot),
        },
    ]
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
                    if p.surface.slot == SLOW_SLOT {
                        std::thread::sleep(SLOW_PRESENT);
                    }
                }
            }
            Opcode::BufferCopy => {
                if let Ok(p) =
                    bytemuck::try_pod_read_unaligned::<mgpipe::calls::BufferCopy>(payload)
                {
                    if p.dst.slot == EVENT_SLOT {
                        self.events.extend(echo_events(&p));
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
                    let n = (u64::from(p.width) * u64::from(p.height)).saturating_mul(4);
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

// ---------------------------------------------------------------- recorder

/// Normalises handles to `kind#n`, numbered per kind by first appearance
/// (so a golden does not depend on the client's slot allocator, while
/// identity stays visible). Null is `null`; the default framebuffer is
/// `default`.
#[derive(Debug, Default)]
pub struct HandleNames {
    seen: HashMap<(&'static str, Handle), u32>,
    next: HashMap<&'static str, u32>,
}

impl HandleNames {
    pub fn name(&mut self, kind: &'static str, h: Handle) -> String {
        if h.is_null() {
            return "null".into();
        }
        if kind == "framebuffer" && h == Handle::DEFAULT_FRAMEBUFFER {
            return "default".into();
        }
        let next = &mut self.next;
        let n = *self.seen.entry((kind, h)).or_insert_with(|| {
            let c = next.entry(kind).or_insert(0);
            *c += 1;
            *c
        });
        format!("{kind}#{n}")
    }
}

/// A scalar payload value as the recorder prints it.
trait Value: Copy {
    fn text(self) -> String;
}
macro_rules! int_value {
    ($($t:ty),*) => {$(
        impl Value for $t {
            fn text(self) -> String {
                self.to_string()
            }
        }
    )*};
}
int_value!(u8, u16, u32, u64, i32, i64);
impl Value for f32 {
    fn text(self) -> String {
        format!("{self:?}")
    }
}
impl Value for f64 {
    fn text(self) -> String {
        format!("{self:?}")
    }
}

/// ` name=v` or ` name=[a,b,c*13]` (runs of equal values collapsed).
fn put_list(out: &mut String, name: &str, items: &[String], array: bool) {
    let _ = write!(out, " {name}=");
    if !array {
        if let Some(v) = items.first() {
            out.push_str(v);
        }
        return;
    }
    out.push('[');
    let mut i = 0;
    let mut first = true;
    while i < items.len() {
        let mut j = i + 1;
        while j < items.len() && items[j] == items[i] {
            j += 1;
        }
        if !first {
            out.push(',');
        }
        first = false;
        out.push_str(&items[i]);
        if j - i > 1 {
            let _ = write!(out, "*{}", j - i);
        }
        i = j;
    }
    out.push(']');
}

fn put_values<T: Value>(out: &mut String, name: &str, vals: &[T], array: bool) {
    let items: Vec<String> = vals.iter().map(|v| v.text()).collect();
    put_list(out, name, &items, array);
}

fn put_handles(
    out: &mut String,
    names: &mut HandleNames,
    name: &str,
    kind: &'static str,
    vals: &[Handle],
    array: bool,
) {
    let items: Vec<String> = vals.iter().map(|h| names.name(kind, *h)).collect();
    put_list(out, name, &items, array);
}

/// Padding is printed only when it is not zero (it must be: CSOs are
/// content-addressed over the payload bytes).
fn put_pad(out: &mut String, name: &str, bytes: &[u8]) {
    if bytes.iter().any(|&b| b != 0) {
        let _ = write!(out, " {name}=!0x");
        for b in bytes {
            let _ = write!(out, "{b:02x}");
        }
    }
}

include!(concat!(env!("OUT_DIR"), "/remote_glue_describe.rs"));

/// `len:xxh3` of some bytes, as the recorder prints blobs and replies.
pub fn bytes_summary(b: &[u8]) -> String {
    format!("{}:{:016x}", b.len(), xxhash_rust::xxh3::xxh3_64(b))
}

/// One recorder line: `call_name field=value ... [blob=len:xxh3] [reply=len:xxh3]`.
/// `blob` is `Some` exactly for `has_blob` calls, `reply` for `reply_slot`
/// calls.
pub fn describe_call(
    op: Opcode,
    payload: &[u8],
    blob: Option<&[u8]>,
    reply: Option<&[u8]>,
    names: &mut HandleNames,
) -> String {
    let mut line = String::from(op.name());
    if !describe_payload(op, payload, names, &mut line) {
        let _ = write!(line, " payload=!{}", bytes_summary(payload));
    }
    if let Some(b) = blob {
        let _ = write!(line, " blob={}", bytes_summary(b));
    }
    if let Some(r) = reply {
        let _ = write!(line, " reply={}", bytes_summary(r));
    }
    line
}

#[derive(Debug, Default)]
struct LogInner {
    lines: Vec<String>,
    file: Option<std::fs::File>,
}

/// Where a [`Recorder`] writes: shared, cloneable; optionally also a file
/// (one line written per call, so a child process that never returns still
/// leaves every line it recorded).
#[derive(Clone, Debug, Default)]
pub struct RecordLog(Arc<Mutex<LogInner>>);

impl RecordLog {
    pub fn new() -> RecordLog {
        RecordLog::default()
    }

    /// A log that also writes each line to `path` (created or truncated).
    pub fn to_file(path: &Path) -> std::io::Result<RecordLog> {
        let f = std::fs::File::create(path)?;
        Ok(RecordLog(Arc::new(Mutex::new(LogInner {
            lines: Vec::new(),
            file: Some(f),
        }))))
    }

    pub fn push(&self, line: String) {
        let mut g = match self.0.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        };
        if let Some(f) = g.file.as_mut() {
            let _ = writeln!(f, "{line}");
        }
        g.lines.push(line);
    }

    pub fn lines(&self) -> Vec<String> {
        match self.0.lock() {
            Ok(g) => g.lines.clone(),
            Err(p) => p.into_inner().lines.clone(),
        }
    }

    /// Every line, each ended by `\n`.
    pub fn text(&self) -> String {
        let mut s = String::new();
        for l in self.lines() {
            s.push_str(&l);
            s.push('\n');
        }
        s
    }
}

/// A recording applier: forwards every call to `inner`, then appends one
/// [`describe_call`] line to its [`RecordLog`] (payload fields by name,
/// handles normalised by [`HandleNames`], blob and reply as `len:xxh3`).
/// What it records is what the backend received, so the same call
/// sequence gives the same text through every transport.
#[derive(Debug)]
pub struct Recorder<A> {
    inner: A,
    log: RecordLog,
    names: HandleNames,
}

impl<A> Recorder<A> {
    pub fn new(inner: A) -> Recorder<A> {
        Recorder::with_log(inner, RecordLog::new())
    }

    pub fn with_log(inner: A, log: RecordLog) -> Recorder<A> {
        Recorder {
            inner,
            log,
            names: HandleNames::default(),
        }
    }

    pub fn log(&self) -> RecordLog {
        self.log.clone()
    }

    pub fn inner(&self) -> &A {
        &self.inner
    }

    pub fn inner_mut(&mut self) -> &mut A {
        &mut self.inner
    }

    pub fn into_inner(self) -> A {
        self.inner
    }

    fn note(&mut self, op: Opcode, payload: &[u8], blob: Option<&[u8]>, reply: Option<&[u8]>) {
        let line = describe_call(op, payload, blob, reply, &mut self.names);
        self.log.push(line);
    }
}

impl Recorder<EchoBackend> {
    /// A [`BackendFactory`] of recording echo backends that all write to
    /// `log`.
    pub fn echo_factory(log: RecordLog) -> BackendFactory {
        Arc::new(move || {
            Ok(Box::new(Recorder::with_log(EchoBackend::new(), log.clone())) as Box<dyn Applier>)
        })
    }
}

include!(concat!(env!("OUT_DIR"), "/remote_glue_recorder.rs"));

// ---------------------------------------------------------------- demo frame

fn h(slot: u32) -> Handle {
    Handle::new(slot, 1)
}

/// Deterministic filler bytes (`n` bytes from `seed`).
fn filler(seed: u8, n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(37).wrapping_add(seed))
        .collect()
}

/// The fixed call sequence of the recorder goldens and the fuzz seed
/// corpus: a small Minecraft-shaped frame. A context and a pbuffer
/// surface; a vertex, index and uniform buffer and an atlas texture
/// (created, filled, mipmapped); a shader, render state, vertex elements,
/// sampler and sampler view; framebuffer/viewport/scissor/blend state;
/// a clear, three draws (indexed from a buffer, indexed from client
/// memory, instanced); a `read_pixels` and a `buffer_readback` (reply
/// calls); fence, present, finish; then the objects are deleted. Every
/// blob is small (the whole frame stages well under 4 KiB).
pub fn demo_frame<P: mgpipe::Pipe + ?Sized>(p: &mut P) {
    const GL_TEXTURE_2D: u32 = 0x0DE1;
    const GL_RGBA8: u32 = 0x8058;
    const GL_RGBA: u32 = 0x1908;
    const GL_UNSIGNED_BYTE: u32 = 0x1401;
    const GL_TRIANGLES: u32 = 0x0004;
    const GL_NEAREST: u32 = 0x2600;
    const GL_NEAREST_MIPMAP_LINEAR: u32 = 0x2702;
    const GL_REPEAT: u32 = 0x2901;
    const GL_LEQUAL: u32 = 0x0203;
    const GL_SRC_ALPHA: u32 = 0x0302;
    const GL_ONE_MINUS_SRC_ALPHA: u32 = 0x0303;
    const GL_FUNC_ADD: u32 = 0x8006;
    const GL_BACK: u32 = 0x0405;
    const GL_CCW: u32 = 0x0901;
    const GL_STATIC_DRAW: u32 = 0x88E4;
    const GL_DYNAMIC_DRAW: u32 = 0x88E8;
    const GL_DEPTH24_STENCIL8: u32 = 0x88F0;
    use mgpipe::consts::*;

    let (ctx, surf) = (h(1), h(1));
    let (vbo, ibo, ubo, atlas) = (h(1), h(2), h(3), h(4));
    p.context_create(&calls::ContextCreate {
        ctx,
        share: Handle::NULL,
        flags: 0,
        ..Default::default()
    });
    p.surface_create(&calls::SurfaceCreate {
        surface: surf,
        width: 64,
        height: 32,
        color_format: GL_RGBA8,
        depth_stencil_format: GL_DEPTH24_STENCIL8,
        samples: 0,
        ..Default::default()
    });
    p.make_current(&calls::MakeCurrent {
        ctx,
        draw: surf,
        read: surf,
    });

    // Buffers: a chunk's vertices (x,y,z,u,v,rgba: 24 bytes), its indices, a uniform block.
    let verts = filler(1, 24 * 8);
    let idx: Vec<u8> = [0u16, 1, 2, 2, 3, 0, 4, 5, 6, 6, 7, 4]
        .iter()
        .flat_map(|i| i.to_le_bytes())
        .collect();
    for (res, size, usage, init) in [
        (vbo, verts.len() as u64, GL_STATIC_DRAW, &verts[..]),
        (ibo, idx.len() as u64, GL_STATIC_DRAW, &idx[..]),
        (ubo, 256, GL_DYNAMIC_DRAW, &[][..]),
    ] {
        p.resource_create(
            &calls::ResourceCreate {
                res,
                kind: RESOURCE_BUFFER,
                size,
                usage,
                width: size as u32,
                height: 1,
                depth: 1,
                levels: 1,
                gl_name: res.slot,
                ..Default::default()
            },
            init,
        );
    }
    p.buffer_subdata(
        &calls::BufferSubdata {
            res: ubo,
            offset: 0,
        },
        &filler(9, 64),
    );
    p.buffer_respecify(
        &calls::BufferRespecify {
            res: ubo,
            size: 256,
            usage: GL_DYNAMIC_DRAW,
            ..Default::default()
        },
        &[],
    );
    p.buffer_copy(&calls::BufferCopy {
        src: vbo,
        dst: ubo,
        src_offset: 0,
        dst_offset: 64,
        size: 48,
    });

    // The block atlas: 16x16 RGBA8, level 0 image, a sub-image, mipmaps.
    p.resource_create(
        &calls::ResourceCreate {
            res: atlas,
            kind: RESOURCE_TEXTURE,
            target: GL_TEXTURE_2D,
            internal_format: GL_RGBA8,
            width: 16,
            height: 16,
            depth: 1,
            levels: 5,
            gl_name: 7,
            ..Default::default()
        },
        &[],
    );
    p.texture_storage(&calls::TextureStorage {
        res: atlas,
        target: GL_TEXTURE_2D,
        levels: 5,
        internal_format: GL_RGBA8,
        width: 16,
        height: 16,
        depth: 1,
    });
    p.texture_image(
        &calls::TextureImage {
            res: atlas,
            target: GL_TEXTURE_2D,
            level: 0,
            internal_format: GL_RGBA8,
            width: 16,
            height: 16,
            depth: 1,
            format: GL_RGBA,
            r#type: GL_UNSIGNED_BYTE,
        },
        &filler(3, 16 * 16 * 4),
    );
    p.texture_subimage(
        &calls::TextureSubimage {
            res: atlas,
            target: GL_TEXTURE_2D,
            level: 0,
            x: 4,
            y: 8,
            z: 0,
            width: 4,
            height: 4,
            depth: 1,
            format: GL_RGBA,
            r#type: GL_UNSIGNED_BYTE,
            ..Default::default()
        },
        &filler(5, 4 * 4 * 4),
    );
    p.generate_mipmap(&calls::GenerateMipmap {
        res: atlas,
        target: GL_TEXTURE_2D,
        ..Default::default()
    });

    // CSOs.
    let (shader, rs, ve, smp, view) = (h(1), h(1), h(1), h(1), h(1));
    let mut words = [0u32; 6];
    words[0] = 20;
    words[4] = 12;
    let spirv: Vec<u8> = (0..32u32)
        .flat_map(|w| (0x0723_0203u32 ^ w.wrapping_mul(0x9e37)).to_le_bytes())
        .collect();
    p.create_shader(
        &calls::CreateShader {
            cso: shader,
            stage_mask: 0b1_0001,
            stage_words: words,
            global_binding: 0,
            global_size: 64,
            ..Default::default()
        },
        &spirv,
    );
    p.create_render_state(&calls::CreateRenderState {
        cso: rs,
        blend_enable_mask: 1,
        blend_src_rgb: GL_SRC_ALPHA,
        blend_dst_rgb: GL_ONE_MINUS_SRC_ALPHA,
        blend_src_alpha: 1,
        blend_dst_alpha: GL_ONE_MINUS_SRC_ALPHA,
        blend_eq_rgb: GL_FUNC_ADD,
        blend_eq_alpha: GL_FUNC_ADD,
        color_write_mask: 0xF,
        depth_test: 1,
        depth_write: 1,
        depth_func: GL_LEQUAL,
        cull_enable: 1,
        cull_face: GL_BACK,
        front_face: GL_CCW,
        dither: 1,
        ..Default::default()
    });
    let mut el = calls::CreateVertexElements {
        cso: ve,
        enabled_mask: 0b111,
        ..Default::default()
    };
    // position (3 x GL_FLOAT), uv (2 x GL_UNSIGNED_SHORT, normalised),
    // colour (4 x GL_UNSIGNED_BYTE, normalised).
    el.format[..3].copy_from_slice(&[
        3 | (0x1406 << 8),
        2 | (0x1403 << 8) | VE_NORMALIZED,
        4 | (GL_UNSIGNED_BYTE << 8) | VE_NORMALIZED,
    ]);
    el.offset[..3].copy_from_slice(&[0, 12, 16]);
    p.create_vertex_elements(&el);
    p.create_sampler(&calls::CreateSampler {
        cso: smp,
        min_filter: GL_NEAREST_MIPMAP_LINEAR,
        mag_filter: GL_NEAREST,
        wrap_s: GL_REPEAT,
        wrap_t: GL_REPEAT,
        wrap_r: GL_REPEAT,
        min_lod: -1000.0,
        max_lod: 4.0,
        max_anisotropy: 1.0,
        ..Default::default()
    });
    p.create_sampler_view(&calls::CreateSamplerView {
        cso: view,
        texture: atlas,
        target: GL_TEXTURE_2D,
        base_level: 0,
        max_level: 4,
        swizzle: [0x1903, 0x1904, 0x1905, 0x1906],
        ..Default::default()
    });

    // Validate-point state, in the frontend's order.
    let mut fb = calls::SetFramebufferState {
        fbo: Handle::DEFAULT_FRAMEBUFFER,
        width: 64,
        height: 32,
        content_hash: 0x5eed_f00d,
        ..Default::default()
    };
    fb.draw_buffers = [NO_ATTACHMENT; 8];
    fb.draw_buffers[0] = 0;
    p.set_framebuffer_state(&fb);
    p.bind_render_state(&calls::BindRenderState { cso: rs });
    p.set_viewport(&calls::SetViewport {
        x: 0.0,
        y: 0.0,
        width: 64.0,
        height: 32.0,
        near: 0.0,
        far: 1.0,
    });
    p.set_scissor(&calls::SetScissor {
        x: 0,
        y: 0,
        width: 64,
        height: 32,
    });
    p.set_blend_color(&calls::SetBlendColor {
        color: [0.0, 0.0, 0.0, 0.0],
    });
    p.set_polygon_offset(&calls::SetPolygonOffset {
        factor: 0.0,
        units: 0.0,
        ..Default::default()
    });
    p.set_line_width(&calls::SetLineWidth {
        width: 1.0,
        ..Default::default()
    });
    p.bind_shader(&calls::BindShader { cso: shader });
    p.set_global_constants(&calls::SetGlobalConstants { shader }, &filler(11, 64));
    let mut views = calls::SetSamplerViews {
        count: 1,
        ..Default::default()
    };
    views.views[0] = view;
    p.set_sampler_views(&views);
    let mut smps = calls::BindSamplers {
        count: 1,
        ..Default::default()
    };
    smps.samplers[0] = smp;
    p.bind_samplers(&smps);
    let mut cbs = calls::SetConstantBuffers {
        count: 1,
        ..Default::default()
    };
    cbs.buffers[0] = ubo;
    cbs.sizes[0] = 256;
    p.set_constant_buffers(&cbs);
    p.bind_vertex_elements(&calls::BindVertexElements { cso: ve });
    let mut vbs = calls::SetVertexBuffers {
        count: 1,
        ..Default::default()
    };
    vbs.buffers[0] = vbo;
    vbs.strides[0] = 24;
    p.set_vertex_buffers(&vbs);
    p.set_index_buffer(&calls::SetIndexBuffer { buffer: ibo });
    let mut defaults = calls::SetVertexAttribDefaults {
        mask: 0b1000,
        ..Default::default()
    };
    defaults.values[12..16].copy_from_slice(&[0, 0, 0, 1.0f32.to_bits()]);
    p.set_vertex_attrib_defaults(&defaults);

    // Verbs.
    p.clear(&calls::Clear {
        buffers: CLEAR_COLOR_ALL | CLEAR_DEPTH,
        draw_buffer: 0,
        color_type: CLEAR_FLOAT,
        color: [
            0.5f32.to_bits(),
            0.7f32.to_bits(),
            1.0f32.to_bits(),
            1.0f32.to_bits(),
        ],
        depth: 1.0,
        stencil: 0,
        ..Default::default()
    });
    let draw = calls::Draw {
        mode: GL_TRIANGLES,
        index_size: 2,
        first: 0,
        count: 12,
        instance_count: 1,
        ..Default::default()
    };
    p.draw(&draw, &[]);
    // Client-memory indices (a host span).
    p.draw(&calls::Draw { count: 6, ..draw }, &idx[..12]);
    p.draw(
        &calls::Draw {
            index_size: 0,
            count: 4,
            instance_count: 3,
            base_instance: 1,
            ..draw
        },
        &[],
    );
    p.blit(&calls::Blit {
        src: [0, 0, 64, 32],
        dst: [0, 0, 32, 16],
        mask: 0x4000, // GL_COLOR_BUFFER_BIT
        filter: GL_NEAREST,
    });
    let mut reply = Vec::new();
    p.read_pixels(
        &calls::ReadPixels {
            x: 0,
            y: 0,
            width: 4,
            height: 2,
            format: GL_RGBA,
            r#type: GL_UNSIGNED_BYTE,
        },
        &mut reply,
    );
    p.buffer_readback(
        &calls::BufferReadback {
            res: ubo,
            offset: 16,
            size: 32,
        },
        &mut reply,
    );
    let fence = h(1);
    p.fence_insert(&calls::FenceInsert { fence });
    p.flush_commands(&calls::FlushCommands::default());
    p.fence_wait(
        &calls::FenceWait {
            fence,
            flags: 1,
            timeout_ns: 0,
            ..Default::default()
        },
        &mut reply,
    );
    p.fence_destroy(&calls::FenceDestroy { fence });
    p.present(&calls::Present { surface: surf });

    // Teardown.
    p.delete_sampler_view(&calls::DeleteSamplerView { cso: view });
    p.delete_sampler(&calls::DeleteSampler { cso: smp });
    p.delete_vertex_elements(&calls::DeleteVertexElements { cso: ve });
    p.delete_render_state(&calls::DeleteRenderState { cso: rs });
    p.delete_shader(&calls::DeleteShader { cso: shader });
    for res in [atlas, ubo, ibo, vbo] {
        p.resource_destroy(&calls::ResourceDestroy { res });
    }
    p.set_read_surface(&calls::SetReadSurface {
        fbo: Handle::DEFAULT_FRAMEBUFFER,
        ..Default::default()
    });
    p.finish(&calls::Finish::default(), &mut reply);
    p.make_current(&calls::MakeCurrent {
        ctx: Handle::NULL,
        draw: Handle::NULL,
        read: Handle::NULL,
    });
    p.surface_destroy(&calls::SurfaceDestroy { surface: surf });
    p.context_destroy(&calls::ContextDestroy { ctx });
}
