//! Transform feedback (GL 3.0 §2.15 / GL 4.6 §13.3, EXT_transform_feedback):
//! the varyings a program captures (`glTransformFeedbackVaryings`, applied
//! at the next link by `shader::xfb`), the indexed buffer bindings
//! (`gl::buffers`), and begin / end / pause / resume with the spec's
//! errors decided here. The backend gets `xfb_begin` (primitive and buffer
//! ranges), `xfb_end`, `xfb_pause`, `xfb_resume`; what is captured is in the
//! program's SPIR-V (`XfbBuffer`/`Offset` decorations).

use std::ffi::c_char;

use mgpipe::{calls, Opcode, Pipe};

use super::shaders::write_log;
use super::{cstr, gl_err, log_once, put, slice};
use crate::context::{with_gl, with_gl_dirty, Gl, ShaderOrProgram, XfbState, DIRTY_PROGRAM};
use crate::shader::xfb::{INTERLEAVED_ATTRIBS, MAX_SEPARATE_ATTRIBS, SEPARATE_ATTRIBS};

/// Indexed GL_TRANSFORM_FEEDBACK_BUFFER binding points.
pub const MAX_XFB_BUFFERS: usize = crate::shader::xfb::MAX_BUFFERS;

/// Transform feedback is active and not paused.
pub fn active_unpaused(gl: &Gl) -> bool {
    gl.st.xfb.active && !gl.st.xfb.paused
}

/// The capture layout of program `name`'s executable, if it captures.
fn layout_of<'g>(gl: &'g Gl, name: u32) -> Option<&'g crate::shader::xfb::XfbLayout> {
    match gl.sh.shader_objects.get(&name) {
        Some(ShaderOrProgram::Program(p)) => p
            .linked
            .as_ref()
            .map(|l| &l.prog.xfb)
            .filter(|x| !x.varyings.is_empty()),
        _ => None,
    }
}

/// GL 4.6 §13.3.1 / table 13.1: the draw modes a transform feedback
/// primitive takes (no geometry shader) — or, with one, its output type.
pub fn draw_mode_allowed(gl: &Gl, mode: u32) -> bool {
    if !active_unpaused(gl) {
        return true;
    }
    // The last vertex stage's output: the geometry shader's, else the
    // tessellation evaluation shader's (points in point mode, lines for
    // isolines, triangles otherwise).
    let gs_output = match gl.sh.shader_objects.get(&gl.st.program) {
        Some(ShaderOrProgram::Program(p)) => p.linked.as_ref().and_then(|l| {
            l.prog.geometry_layout().map(|g| g.output).or_else(|| {
                l.prog
                    .tess_layout()
                    .filter(|_| {
                        l.prog.stage_spirv[crate::shader::Stage::TessEval.index()].is_some()
                    })
                    .map(|t| match t {
                        t if t.point_mode => glow::POINTS,
                        t if t.mode == glow::ISOLINES => glow::LINES,
                        _ => glow::TRIANGLES,
                    })
            })
        }),
        _ => None,
    };
    let produced = match gs_output.unwrap_or(mode) {
        glow::POINTS => glow::POINTS,
        glow::LINES
        | glow::LINE_LOOP
        | glow::LINE_STRIP
        | glow::LINES_ADJACENCY
        | glow::LINE_STRIP_ADJACENCY => glow::LINES,
        _ => glow::TRIANGLES,
    };
    produced == gl.st.xfb.primitive
}

/// Whether buffer `name` is bound to a transform feedback binding point in
/// use by active transform feedback (mapping or respecifying it is then
/// GL_INVALID_OPERATION).
pub fn buffer_busy(gl: &Gl, name: u32) -> bool {
    name != 0 && gl.st.xfb.active && gl.st.xfb.bindings.iter().any(|b| b.buffer == name)
}

#[no_mangle]
pub unsafe extern "C" fn glTransformFeedbackVaryings(
    program: u32,
    count: i32,
    varyings: *const *const c_char,
    buffer_mode: u32,
) {
    // SAFETY: GL promises `count` NUL-terminated strings.
    let ptrs = unsafe { slice(varyings, count) };
    // SAFETY: each pointer is a NUL-terminated string (or null).
    let names: Vec<String> = ptrs.iter().map(|p| unsafe { cstr(*p) }).collect();
    with_gl(|gl| {
        if count < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        if buffer_mode != INTERLEAVED_ATTRIBS && buffer_mode != SEPARATE_ATTRIBS {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        if buffer_mode == SEPARATE_ATTRIBS && count as usize > MAX_SEPARATE_ATTRIBS {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        // ARB_transform_feedback3: the markers are for interleaved mode,
        // and gl_NextBuffer may not go past the last buffer.
        let is_marker = |n: &String| n == "gl_NextBuffer" || n.starts_with("gl_SkipComponents");
        if buffer_mode == SEPARATE_ATTRIBS && names.iter().any(is_marker) {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        if names.iter().filter(|n| *n == "gl_NextBuffer").count() >= MAX_XFB_BUFFERS {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        match gl.sh.shader_objects.get_mut(&program) {
            Some(ShaderOrProgram::Program(p)) => {
                p.xfb_varyings = names;
                p.xfb_mode = buffer_mode;
            }
            Some(ShaderOrProgram::Shader(_)) => gl_err!(gl, glow::INVALID_OPERATION),
            None => gl_err!(gl, glow::INVALID_VALUE),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glGetTransformFeedbackVarying(
    program: u32,
    index: u32,
    buf_size: i32,
    length: *mut i32,
    size: *mut i32,
    ty: *mut u32,
    name: *mut c_char,
) {
    let r = with_gl_dirty(DIRTY_PROGRAM, |gl| {
        let l = match super::shaders::linked(gl, program) {
            Ok(l) => l,
            Err(e) => {
                gl.st.set_error(e);
                return None;
            }
        };
        match l.prog.xfb.varyings.get(index as usize) {
            Some(v) => Some((v.name.clone(), v.size, v.gl_type)),
            None => {
                gl.st.set_error(glow::INVALID_VALUE);
                None
            }
        }
    });
    if let Some((n, s, t)) = r {
        // SAFETY: optional out pointers and the application's buffer.
        unsafe {
            put(size, s as i32);
            put(ty, t);
            write_log(&n, buf_size, length, name);
        }
    }
}

/// GL_TRANSFORM_FEEDBACK_{VARYINGS, VARYING_MAX_LENGTH, BUFFER_MODE} of a
/// program (the last successful link's).
pub fn program_query(p: &crate::context::ProgramObj, pname: u32) -> i32 {
    let x = p.linked.as_ref().map(|l| &l.prog.xfb);
    match pname {
        glow::TRANSFORM_FEEDBACK_VARYINGS => x.map_or(0, |x| x.varyings.len() as i32),
        glow::TRANSFORM_FEEDBACK_VARYING_MAX_LENGTH => x.map_or(0, |x| {
            x.varyings
                .iter()
                .map(|v| v.name.len() as i32 + 1)
                .max()
                .unwrap_or(0)
        }),
        _ => match x.map(|x| x.mode) {
            Some(m) if m != 0 => m as i32,
            _ => INTERLEAVED_ATTRIBS as i32,
        },
    }
}

#[no_mangle]
pub unsafe extern "C" fn glBeginTransformFeedback(primitive: u32) {
    with_gl(|gl| {
        if !matches!(primitive, glow::POINTS | glow::LINES | glow::TRIANGLES) {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        if gl.st.xfb.active {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        // Without a current program, the bound pipeline's last
        // vertex-processing stage captures (its varyings reach the
        // pipeline's composite program, `gl::pipelines`).
        let program = gl.st.program;
        let source = match program {
            0 => super::pipelines::last_vertex_stage_program(gl),
            p => p,
        };
        let Some(layout) = layout_of(gl, source) else {
            // No program, or one that captures nothing.
            gl_err!(gl, glow::INVALID_OPERATION);
        };
        let count = layout.buffers.min(MAX_XFB_BUFFERS as u32);
        let mut p = calls::XfbBegin {
            primitive,
            count,
            ..Default::default()
        };
        for i in 0..count as usize {
            let b = gl.st.xfb.bindings[i];
            let Some(Some(buf)) = gl.sh.buffers.get(&b.buffer) else {
                // A binding the program writes has no buffer.
                gl_err!(gl, glow::INVALID_OPERATION);
            };
            p.buffers[i] = buf.handle;
            p.offsets[i] = b.offset;
            p.sizes[i] = b.size;
        }
        if !gl.conn.caps.implements(Opcode::XfbBegin as u16) {
            log_once("xfb-backend", || {
                "transform feedback: this backend does not implement it; glBeginTransformFeedback is GL_INVALID_OPERATION".into()
            });
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        let strides = layout.strides;
        let last = (gl.st.xfb.capture.last, gl.st.xfb.capture.last_unknown);
        gl.st.xfb.capture = crate::context::XfbCapture {
            strides,
            count,
            offsets: p.offsets,
            sizes: p.sizes,
            last: last.0,
            last_unknown: last.1,
            ..Default::default()
        };
        for i in 0..count as usize {
            // A binding to the end of the buffer: its size now.
            if p.sizes[i] == 0 {
                let b = gl.st.xfb.bindings[i].buffer;
                if let Some(Some(buf)) = gl.sh.buffers.get(&b) {
                    gl.st.xfb.capture.sizes[i] = buf.size.saturating_sub(p.offsets[i]);
                }
            }
        }
        gl.st.xfb.active = true;
        gl.st.xfb.paused = false;
        gl.st.xfb.primitive = primitive;
        gl.st.xfb.program = program;
        gl.conn.pipe.xfb_begin(&p);
    })
}

#[no_mangle]
pub unsafe extern "C" fn glEndTransformFeedback() {
    with_gl(|gl| {
        if !gl.st.xfb.active {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        gl.st.xfb.active = false;
        gl.st.xfb.paused = false;
        let c = &mut gl.st.xfb.capture;
        c.last = Some(c.vertices);
        c.last_unknown = c.unknown;
        c.detached = false;
        gl.conn.pipe.xfb_end(&calls::XfbEnd::default());
    })
}

#[no_mangle]
pub unsafe extern "C" fn glPauseTransformFeedback() {
    with_gl(|gl| {
        if !gl.st.xfb.active || gl.st.xfb.paused {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        gl.st.xfb.paused = true;
        gl.conn.pipe.xfb_pause(&calls::XfbPause::default());
    })
}

#[no_mangle]
pub unsafe extern "C" fn glResumeTransformFeedback() {
    with_gl(|gl| {
        if !gl.st.xfb.active || !gl.st.xfb.paused {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        // GL 4.6 §13.3: the program must be the one transform feedback
        // began with.
        if gl.st.program != gl.st.xfb.program {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        gl.st.xfb.paused = false;
        gl.conn.pipe.xfb_resume(&calls::XfbResume::default());
    })
}

// Extension-only command: not exported (the exported gl* names are the
// core ones), reached through GetProcAddress's table.
/// EXT_transform_feedback's glBindBufferOffsetEXT: binding `index` from
/// byte `offset` to the end of the buffer.
pub unsafe extern "C" fn glBindBufferOffsetEXT(target: u32, index: u32, name: u32, offset: isize) {
    with_gl(|gl| {
        if target != glow::TRANSFORM_FEEDBACK_BUFFER {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        if index as usize >= MAX_XFB_BUFFERS || offset < 0 || offset & 3 != 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        if gl.st.xfb.active {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        if let Err(e) = super::buffers::ensure_buffer(gl, name) {
            gl_err!(gl, e);
        }
        gl.st.transform_feedback_buffer = name;
        gl.st.xfb.bindings[index as usize] = crate::context::IndexedBuffer {
            buffer: name,
            offset: offset as u64,
            size: 0,
        };
    })
}

// ------------------------------------------------------------------------
// Capture counting (glDrawTransformFeedback, objects swapped while paused)

/// Primitives one draw of `count` vertices in `mode` makes (GL 4.6 §10.1).
fn primitives(mode: u32, count: u64) -> u64 {
    match mode {
        glow::POINTS => count,
        glow::LINES => count / 2,
        glow::LINE_STRIP => count.saturating_sub(1),
        glow::LINE_LOOP if count >= 2 => count,
        glow::TRIANGLES => count / 3,
        glow::TRIANGLE_STRIP | glow::TRIANGLE_FAN | POLYGON => count.saturating_sub(2),
        QUADS => count / 4 * 2,
        QUAD_STRIP => count.saturating_sub(2) / 2 * 2,
        glow::LINES_ADJACENCY => count / 4,
        glow::LINE_STRIP_ADJACENCY => count.saturating_sub(3),
        glow::TRIANGLES_ADJACENCY => count / 6,
        glow::TRIANGLE_STRIP_ADJACENCY => count.saturating_sub(4) / 2,
        _ => 0,
    }
}

const QUADS: u32 = 0x0007;
const QUAD_STRIP: u32 = 0x0008;
const POLYGON: u32 = 0x0009;

fn vertices_per_primitive(primitive: u32) -> u64 {
    match primitive {
        glow::POINTS => 1,
        glow::LINES => 2,
        _ => 3,
    }
}

/// Vertices the capture still has room for (whole buffers' worth).
fn room(c: &crate::context::XfbCapture) -> u64 {
    let mut room = u64::MAX;
    for i in 0..(c.count as usize).min(MAX_XFB_BUFFERS) {
        if c.strides[i] > 0 {
            room = room.min(c.sizes[i] / u64::from(c.strides[i]));
        }
    }
    room.saturating_sub(c.vertices)
}

/// Count what a draw about to be emitted captures: `count` vertices in
/// `mode`, `instances` times. A geometry or tessellation stage makes the
/// count unknown (its output is decided on the GPU).
pub fn note_draw(gl: &mut Gl, mode: u32, count: u64, instances: u64) {
    if !active_unpaused(gl) {
        return;
    }
    let unknown = gl.st.gs_input.is_some() || mode == glow::PATCHES;
    let primitive = gl.st.xfb.primitive;
    let c = &mut gl.st.xfb.capture;
    if unknown {
        c.unknown = true;
        return;
    }
    let vpp = vertices_per_primitive(primitive);
    let prims = primitives(mode, count).saturating_mul(instances);
    let fit = room(c) / vpp;
    if prims > fit {
        c.overflowed = true;
    }
    c.vertices = c.vertices.saturating_add(prims.min(fit) * vpp);
}

/// An indirect draw's counts are not read back: the capture count is
/// unknown from then on.
pub fn note_unknown_draw(gl: &mut Gl) {
    if active_unpaused(gl) {
        gl.st.xfb.capture.unknown = true;
    }
}

// ------------------------------------------------------------------------
// Transform feedback objects (GL 4.6 §13.3.1, ARB_transform_feedback2)

/// The state of transform feedback object `name` (bound or not).
fn object<'g>(gl: &'g Gl, name: u32) -> Option<&'g XfbState> {
    if name == gl.st.xfb_binding {
        return Some(&gl.st.xfb);
    }
    match gl.st.xfb_objects.get(&name) {
        Some(Some(o)) => Some(o),
        _ => None,
    }
}

fn object_mut<'g>(gl: &'g mut Gl, name: u32) -> Option<&'g mut XfbState> {
    if name == gl.st.xfb_binding {
        return Some(&mut gl.st.xfb);
    }
    match gl.st.xfb_objects.get_mut(&name) {
        Some(Some(o)) => Some(o),
        _ => None,
    }
}

fn gen_objects(gl: &mut Gl, n: i32, out: *mut u32, created: bool) {
    if n < 0 {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    for i in 0..n as usize {
        let name = loop {
            let c = gl.st.new_name();
            if !gl.st.xfb_objects.contains_key(&c) && c != gl.st.xfb_binding {
                break c;
            }
        };
        let state = created.then(XfbState::default);
        gl.st.xfb_objects.insert(name, state);
        // SAFETY: GL promises `n` writable names.
        unsafe { put(out.add(i), name) };
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGenTransformFeedbacks(n: i32, ids: *mut u32) {
    with_gl(|gl| gen_objects(gl, n, ids, false))
}

#[no_mangle]
pub unsafe extern "C" fn glCreateTransformFeedbacks(n: i32, ids: *mut u32) {
    with_gl(|gl| gen_objects(gl, n, ids, true))
}

#[no_mangle]
pub unsafe extern "C" fn glIsTransformFeedback(id: u32) -> u8 {
    with_gl(|gl| (id != 0 && object(gl, id).is_some()) as u8)
}

#[no_mangle]
pub unsafe extern "C" fn glDeleteTransformFeedbacks(n: i32, ids: *const u32) {
    // SAFETY: GL promises `n` names.
    let ids = unsafe { slice(ids, n) }.to_vec();
    with_gl(|gl| {
        if n < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        // GL 4.6 §13.3.1: none is deleted if any named object is active.
        if ids
            .iter()
            .any(|&id| id != 0 && object(gl, id).is_some_and(|o| o.active))
        {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        for id in ids {
            if id == 0 {
                continue;
            }
            if id == gl.st.xfb_binding {
                // Deleting the bound object binds the default one.
                gl.st.xfb = gl.st.xfb_objects.remove(&0).flatten().unwrap_or_default();
                gl.st.xfb_binding = 0;
            }
            gl.st.xfb_objects.remove(&id);
        }
    })
}

/// The backend ranges that continue a capture after `c.vertices` vertices.
fn continued(c: &crate::context::XfbCapture) -> Option<calls::XfbBegin> {
    let mut p = calls::XfbBegin {
        count: c.count,
        ..Default::default()
    };
    for i in 0..(c.count as usize).min(MAX_XFB_BUFFERS) {
        let used = c.vertices.saturating_mul(u64::from(c.strides[i]));
        if used >= c.sizes[i] && c.strides[i] > 0 {
            return None;
        }
        p.offsets[i] = c.offsets[i] + used;
        p.sizes[i] = c.sizes[i] - used;
    }
    Some(p)
}

/// Make object `id` current (it exists). The backend captures for one
/// object at a time: a paused object swapped out ends its backend capture,
/// and one swapped in begins again after what it wrote, paused.
fn bind_object(gl: &mut Gl, id: u32) {
    let old = gl.st.xfb_binding;
    if old == id {
        return;
    }
    if gl.st.xfb.active {
        // Paused (binding an active unpaused object is an error).
        gl.conn.pipe.xfb_end(&calls::XfbEnd::default());
        gl.st.xfb.capture.detached = true;
    }
    let mut next = gl
        .st
        .xfb_objects
        .insert(id, Some(XfbState::default()))
        .flatten()
        .unwrap_or_default();
    if next.active && next.capture.detached {
        if next.capture.unknown {
            log_once("xfb-swap-unknown", || {
                "transform feedback: an object resumed after a capture whose vertex count the frontend cannot know (geometry/tessellation stage or indirect draw); it appends from its last known position".into()
            });
        }
        match continued(&next.capture) {
            Some(mut p) => {
                p.primitive = next.primitive;
                for i in 0..(p.count as usize).min(MAX_XFB_BUFFERS) {
                    let b = next.bindings[i].buffer;
                    if let Some(Some(buf)) = gl.sh.buffers.get(&b) {
                        p.buffers[i] = buf.handle;
                    }
                }
                gl.conn.pipe.xfb_begin(&p);
                gl.conn.pipe.xfb_pause(&calls::XfbPause::default());
                next.capture.detached = false;
            }
            None => tracing::debug!(
                "transform feedback object {id}: buffers full, nothing more is captured"
            ),
        }
    }
    let prev = std::mem::replace(&mut gl.st.xfb, next);
    gl.st.xfb_objects.insert(old, Some(prev));
    gl.st.xfb_binding = id;
}

#[no_mangle]
pub unsafe extern "C" fn glBindTransformFeedback(target: u32, id: u32) {
    with_gl(|gl| {
        if target != glow::TRANSFORM_FEEDBACK {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        if active_unpaused(gl) {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        if id != 0 && id != gl.st.xfb_binding && !gl.st.xfb_objects.contains_key(&id) {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        bind_object(gl, id);
    })
}

/// glTransformFeedbackBufferBase/Range: `size` 0 = to the end.
fn object_buffer(
    gl: &mut Gl,
    xfb: u32,
    index: u32,
    buffer: u32,
    offset: i64,
    size: i64,
    range: bool,
) {
    let Some(o) = object(gl, xfb) else {
        gl_err!(gl, glow::INVALID_OPERATION);
    };
    let active = o.active;
    if buffer != 0 && !gl.sh.buffers.contains_key(&buffer) {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    if index as usize >= MAX_XFB_BUFFERS {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    if range && buffer != 0 && (offset < 0 || size <= 0 || offset & 3 != 0 || size & 3 != 0) {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    if active {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    if let Err(e) = super::buffers::ensure_buffer(gl, buffer) {
        gl_err!(gl, e);
    }
    if let Some(o) = object_mut(gl, xfb) {
        o.bindings[index as usize] = crate::context::IndexedBuffer {
            buffer,
            offset: if buffer == 0 { 0 } else { offset as u64 },
            size: if buffer == 0 { 0 } else { size as u64 },
        };
    }
}

#[no_mangle]
pub unsafe extern "C" fn glTransformFeedbackBufferBase(xfb: u32, index: u32, buffer: u32) {
    with_gl(|gl| object_buffer(gl, xfb, index, buffer, 0, 0, false))
}

#[no_mangle]
pub unsafe extern "C" fn glTransformFeedbackBufferRange(
    xfb: u32,
    index: u32,
    buffer: u32,
    offset: isize,
    size: isize,
) {
    with_gl(|gl| object_buffer(gl, xfb, index, buffer, offset as i64, size as i64, true))
}

#[no_mangle]
pub unsafe extern "C" fn glGetTransformFeedbackiv(xfb: u32, pname: u32, param: *mut i32) {
    let v = with_gl(|gl| {
        let Some(o) = object(gl, xfb) else {
            gl.st.set_error(glow::INVALID_OPERATION);
            return None;
        };
        match pname {
            glow::TRANSFORM_FEEDBACK_PAUSED => Some(o.paused as i32),
            glow::TRANSFORM_FEEDBACK_ACTIVE => Some(o.active as i32),
            _ => {
                gl.st.set_error(glow::INVALID_ENUM);
                None
            }
        }
    });
    if let Some(v) = v {
        // SAFETY: GL promises one writable value.
        unsafe { put(param, v) };
    }
}

/// glGetTransformFeedbacki_v (`wide` false: the binding) and
/// glGetTransformFeedbacki64_v (`wide`: start and size).
fn object_indexed(gl: &mut Gl, xfb: u32, pname: u32, index: u32, wide: bool) -> Option<i64> {
    let Some(o) = object(gl, xfb) else {
        gl.st.set_error(glow::INVALID_OPERATION);
        return None;
    };
    let b = o.bindings.get(index as usize).copied();
    let valid = if wide {
        matches!(
            pname,
            glow::TRANSFORM_FEEDBACK_BUFFER_START | glow::TRANSFORM_FEEDBACK_BUFFER_SIZE
        )
    } else {
        pname == glow::TRANSFORM_FEEDBACK_BUFFER_BINDING
    };
    if !valid {
        gl.st.set_error(glow::INVALID_ENUM);
        return None;
    }
    let Some(b) = b else {
        gl.st.set_error(glow::INVALID_VALUE);
        return None;
    };
    Some(match pname {
        glow::TRANSFORM_FEEDBACK_BUFFER_BINDING => i64::from(b.buffer),
        glow::TRANSFORM_FEEDBACK_BUFFER_START => b.offset as i64,
        _ => b.size as i64,
    })
}

#[no_mangle]
pub unsafe extern "C" fn glGetTransformFeedbacki_v(
    xfb: u32,
    pname: u32,
    index: u32,
    param: *mut i32,
) {
    if let Some(v) = with_gl(|gl| object_indexed(gl, xfb, pname, index, false)) {
        // SAFETY: GL promises one writable value.
        unsafe { put(param, v as i32) };
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetTransformFeedbacki64_v(
    xfb: u32,
    pname: u32,
    index: u32,
    param: *mut i64,
) {
    if let Some(v) = with_gl(|gl| object_indexed(gl, xfb, pname, index, true)) {
        // SAFETY: GL promises one writable value.
        unsafe { put(param, v) };
    }
}

// ------------------------------------------------------------------------
// glDrawTransformFeedback* (GL 4.6 §10.5.1): an ordinary draw of the
// vertex count the frontend counted for the object's last capture.

fn draw_feedback(gl: &mut Gl, mode: u32, id: u32, stream: u32, instances: i32) {
    if !super::draw::valid_mode(mode) {
        gl_err!(gl, glow::INVALID_ENUM);
    }
    if stream >= crate::shader::MAX_VERTEX_STREAMS || instances < 0 {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    let Some(o) = object(gl, id) else {
        gl_err!(gl, glow::INVALID_VALUE);
    };
    // Never ended: nothing to draw from.
    let Some(vertices) = o.capture.last else {
        gl_err!(gl, glow::INVALID_OPERATION);
    };
    let unknown = o.capture.last_unknown;
    if unknown {
        log_once("xfb-draw-unknown", || {
            "glDrawTransformFeedback: the capture ran a geometry/tessellation stage or an indirect draw; the frontend cannot know how many vertices it wrote and draws what it counted".into()
        });
    }
    let vertices = if stream == 0 { vertices } else { 0 };
    let count = vertices.min(i32::MAX as u64) as i32;
    super::draw::draw(gl, mode, 0, count, None, 0, instances, 0, 0);
}

#[no_mangle]
pub unsafe extern "C" fn glDrawTransformFeedback(mode: u32, id: u32) {
    with_gl(|gl| draw_feedback(gl, mode, id, 0, 1))
}

#[no_mangle]
pub unsafe extern "C" fn glDrawTransformFeedbackInstanced(mode: u32, id: u32, instances: i32) {
    with_gl(|gl| draw_feedback(gl, mode, id, 0, instances))
}

#[no_mangle]
pub unsafe extern "C" fn glDrawTransformFeedbackStream(mode: u32, id: u32, stream: u32) {
    with_gl(|gl| draw_feedback(gl, mode, id, stream, 1))
}

#[no_mangle]
pub unsafe extern "C" fn glDrawTransformFeedbackStreamInstanced(
    mode: u32,
    id: u32,
    stream: u32,
    instances: i32,
) {
    with_gl(|gl| draw_feedback(gl, mode, id, stream, instances))
}
