//! Tessellation (GL 4.0 / GL_ARB_tessellation_shader) state: the patch
//! parameters (glPatchParameteri / glPatchParameterfv), which reach the
//! backend in `set_patch_state` when they change, and the implementation
//! limits. The stages themselves link like any other (`shader::link`); a
//! draw's GL_PATCHES rules are `validate::tess_accepts`.

use super::{gl_err, slice};
use crate::context::{with_gl, Gl};

/// GL_MAX_PATCH_VERTICES: GL 4.0's minimum, which GLES 3.2 and Vulkan
/// (maxTessellationPatchSize) guarantee too.
pub const MAX_PATCH_VERTICES: u32 = 32;
/// GL_MAX_TESS_GEN_LEVEL (GL 4.0 and GLES 3.2 minimum; Vulkan's
/// maxTessellationGenerationLevel minimum).
pub const MAX_TESS_GEN_LEVEL: u32 = 64;

/// Whether this context's backend runs tessellation stages
/// (`CAPS_FEATURE_TESSELLATION` and the `set_patch_state` call).
pub fn has_tessellation(caps: &mgpipe::Caps) -> bool {
    caps.features & mgpipe::caps::CAPS_FEATURE_TESSELLATION != 0
        && caps.implements(mgpipe::Opcode::SetPatchState as u16)
}

/// The patch state as the backend gets it.
fn patch_state(gl: &Gl) -> mgpipe::calls::SetPatchState {
    mgpipe::calls::SetPatchState {
        vertices: gl.st.patch_vertices,
        default_outer: gl.st.patch_default_outer,
        default_inner: gl.st.patch_default_inner,
        ..Default::default()
    }
}

/// Send the patch state (after a change).
fn emit(gl: &mut Gl) {
    if has_tessellation(&gl.conn.caps) {
        let p = patch_state(gl);
        gl.conn.pipe.set_patch_state(&p);
    }
}

/// glPatchParameteri after the context lookup (GL 4.6 §10.1.15).
pub(crate) fn patch_parameteri(gl: &mut Gl, pname: u32, value: i32) {
    if !has_tessellation(&gl.conn.caps) || pname != glow::PATCH_VERTICES {
        gl_err!(gl, glow::INVALID_ENUM);
    }
    if value <= 0 || value as u32 > MAX_PATCH_VERTICES {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    if gl.st.patch_vertices != value as u32 {
        gl.st.patch_vertices = value as u32;
        emit(gl);
    }
}

/// glPatchParameterfv after the context lookup: `values` holds four outer
/// or two inner levels.
pub(crate) fn patch_parameterfv(gl: &mut Gl, pname: u32, values: &[f32]) {
    if !has_tessellation(&gl.conn.caps) {
        gl_err!(gl, glow::INVALID_ENUM);
    }
    match pname {
        glow::PATCH_DEFAULT_OUTER_LEVEL if values.len() >= 4 => {
            gl.st.patch_default_outer.copy_from_slice(&values[..4]);
        }
        glow::PATCH_DEFAULT_INNER_LEVEL if values.len() >= 2 => {
            gl.st.patch_default_inner.copy_from_slice(&values[..2]);
        }
        glow::PATCH_DEFAULT_OUTER_LEVEL | glow::PATCH_DEFAULT_INNER_LEVEL => return,
        _ => gl_err!(gl, glow::INVALID_ENUM),
    }
    emit(gl);
}

#[no_mangle]
pub unsafe extern "C" fn glPatchParameteri(pname: u32, value: i32) {
    with_gl(|gl| patch_parameteri(gl, pname, value))
}

#[no_mangle]
pub unsafe extern "C" fn glPatchParameterfv(pname: u32, values: *const f32) {
    let n = match pname {
        glow::PATCH_DEFAULT_OUTER_LEVEL => 4,
        glow::PATCH_DEFAULT_INNER_LEVEL => 2,
        _ => 0,
    };
    // SAFETY: GL 4.6 §10.1.15: `values` points at four (outer) or two
    // (inner) floats; `slice` answers empty for null.
    let v = unsafe { slice(values, n) }.to_vec();
    with_gl(|gl| patch_parameterfv(gl, pname, &v))
}
