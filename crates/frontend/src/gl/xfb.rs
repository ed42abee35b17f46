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
use crate::context::{with_gl, with_gl_dirty, Gl, ShaderOrProgram, DIRTY_PROGRAM};
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
    let gs_output = match gl.sh.shader_objects.get(&gl.st.program) {
        Some(ShaderOrProgram::Program(p)) => p
            .linked
            .as_ref()
            .and_then(|l| l.prog.geometry_layout())
            .map(|g| g.output),
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
        let program = gl.st.program;
        let Some(layout) = layout_of(gl, program) else {
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
