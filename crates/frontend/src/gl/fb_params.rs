//! Framebuffer parameters (GL 4.3, ARB_framebuffer_no_attachments):
//! `glFramebufferParameteri`, `glGetFramebufferParameteriv` and the DSA
//! `glNamedFramebufferParameteri` / `glGetNamedFramebufferParameteriv`.
//!
//! The default width/height/layers/samples are framebuffer state kept and
//! answered here. A framebuffer with no attachments still counts as
//! incomplete when drawn (`validate.rs`): neither backend is told a
//! render area without attachments yet.

use super::{gl_err, put};
use crate::context::{with_gl, with_gl_dirty, Gl, DIRTY_FRAMEBUFFER};

const DEFAULT_WIDTH: u32 = 0x9310;
const DEFAULT_HEIGHT: u32 = 0x9311;
const DEFAULT_LAYERS: u32 = 0x9312;
const DEFAULT_SAMPLES: u32 = 0x9313;
const DEFAULT_FIXED_SAMPLE_LOCATIONS: u32 = 0x9314;

/// GL_MAX_FRAMEBUFFER_{WIDTH, HEIGHT, LAYERS, SAMPLES} (the queries in
/// `get.rs` answer the same).
pub fn limits(gl: &Gl) -> [i32; 4] {
    let c = &gl.conn.caps;
    let cl = |v: u32| i32::try_from(v).unwrap_or(i32::MAX);
    [
        cl(c.max_texture_size.max(1)),
        cl(c.max_texture_size.max(1)),
        cl(c.max_array_texture_layers.max(1)),
        cl(c.max_samples),
    ]
}

/// The slot of a default-parameter pname.
fn slot(pname: u32) -> Option<usize> {
    Some(match pname {
        DEFAULT_WIDTH => 0,
        DEFAULT_HEIGHT => 1,
        DEFAULT_LAYERS => 2,
        DEFAULT_SAMPLES => 3,
        DEFAULT_FIXED_SAMPLE_LOCATIONS => 4,
        _ => return None,
    })
}

fn target_fbo(gl: &Gl, target: u32) -> Result<u32, u32> {
    match target {
        glow::FRAMEBUFFER | glow::DRAW_FRAMEBUFFER => Ok(gl.st.draw_fbo),
        glow::READ_FRAMEBUFFER => Ok(gl.st.read_fbo),
        _ => Err(glow::INVALID_ENUM),
    }
}

fn set_param(gl: &mut Gl, fbo: u32, pname: u32, param: i32) {
    let Some(i) = slot(pname) else {
        gl_err!(gl, glow::INVALID_ENUM)
    };
    let lim = limits(gl);
    if param < 0 || lim.get(i).is_some_and(|&m| param > m) {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    match gl.st.fbos.get_mut(&fbo) {
        Some(Some(fb)) if fbo != 0 => {
            fb.defaults[i] = if i == 4 { (param != 0) as i32 } else { param }
        }
        _ => gl_err!(gl, glow::INVALID_OPERATION),
    }
}

/// The value of `pname` for framebuffer `fbo` (0: the default one).
fn get_param(gl: &mut Gl, fbo: u32, pname: u32) -> Option<i32> {
    if fbo == 0 {
        // The default framebuffer answers its own state, not defaults.
        return Some(match pname {
            // Our default framebuffers are pbuffers or surfaceless (one
            // colour buffer), as glGet(DOUBLEBUFFER) answers.
            glow::DOUBLEBUFFER | glow::STEREO => 0,
            glow::SAMPLES => gl.framebuffer_samples(0) as i32,
            glow::SAMPLE_BUFFERS => (gl.framebuffer_samples(0) > 0) as i32,
            glow::IMPLEMENTATION_COLOR_READ_FORMAT => glow::RGBA as i32,
            glow::IMPLEMENTATION_COLOR_READ_TYPE => glow::UNSIGNED_BYTE as i32,
            p if slot(p).is_some() => {
                gl.st.set_error(glow::INVALID_OPERATION);
                return None;
            }
            _ => {
                gl.st.set_error(glow::INVALID_ENUM);
                return None;
            }
        });
    }
    let samples = gl.framebuffer_samples(fbo) as i32;
    let defaults = match gl.st.fbos.get(&fbo) {
        Some(Some(fb)) => fb.defaults,
        _ => {
            gl.st.set_error(glow::INVALID_OPERATION);
            return None;
        }
    };
    Some(match pname {
        p if slot(p).is_some() => slot(p).and_then(|i| defaults.get(i).copied())?,
        glow::DOUBLEBUFFER | glow::STEREO => 0,
        glow::SAMPLES => samples,
        glow::SAMPLE_BUFFERS => (samples > 0) as i32,
        glow::IMPLEMENTATION_COLOR_READ_FORMAT => glow::RGBA as i32,
        glow::IMPLEMENTATION_COLOR_READ_TYPE => glow::UNSIGNED_BYTE as i32,
        _ => {
            gl.st.set_error(glow::INVALID_ENUM);
            return None;
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glFramebufferParameteri(target: u32, pname: u32, param: i32) {
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| match target_fbo(gl, target) {
        Ok(fbo) => set_param(gl, fbo, pname, param),
        Err(e) => gl.st.set_error(e),
    })
}

#[no_mangle]
pub unsafe extern "C" fn glNamedFramebufferParameteri(framebuffer: u32, pname: u32, param: i32) {
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        set_param(gl, framebuffer, pname, param)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glGetFramebufferParameteriv(target: u32, pname: u32, out: *mut i32) {
    with_gl(|gl| {
        let fbo = match target_fbo(gl, target) {
            Ok(f) => f,
            Err(e) => gl_err!(gl, e),
        };
        if let Some(v) = get_param(gl, fbo, pname) {
            // SAFETY: GL promises one writable int.
            unsafe { put(out, v) };
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glGetNamedFramebufferParameteriv(
    framebuffer: u32,
    pname: u32,
    out: *mut i32,
) {
    with_gl(|gl| {
        if framebuffer != 0 && !matches!(gl.st.fbos.get(&framebuffer), Some(Some(_))) {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        if let Some(v) = get_param(gl, framebuffer, pname) {
            // SAFETY: GL promises one writable int.
            unsafe { put(out, v) };
        }
    })
}
