//! GL 4.1 / ARB_ES2_compatibility entry points not covered elsewhere:
//! `glGetShaderPrecisionFormat`, `glReleaseShaderCompiler`,
//! `glShaderBinary` (no binary formats: GL_NUM_SHADER_BINARY_FORMATS is 0).
//! Answered in the frontend; no backend call.

use super::gl_err;
use crate::context::with_gl;

/// Range (log2 of the magnitudes) and precision (bits) of a precision
/// qualifier: desktop GL computes every precision as IEEE single floats
/// and 32-bit integers, so `lowp`/`mediump`/`highp` answer the same.
fn precision_format(precision: u32) -> Option<([i32; 2], i32)> {
    match precision {
        glow::LOW_FLOAT | glow::MEDIUM_FLOAT | glow::HIGH_FLOAT => Some(([127, 127], 23)),
        glow::LOW_INT | glow::MEDIUM_INT | glow::HIGH_INT => Some(([31, 30], 0)),
        _ => None,
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetShaderPrecisionFormat(
    shader_type: u32,
    precision_type: u32,
    range: *mut i32,
    precision: *mut i32,
) {
    with_gl(|gl| {
        if !matches!(shader_type, glow::VERTEX_SHADER | glow::FRAGMENT_SHADER) {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        let Some((r, p)) = precision_format(precision_type) else {
            gl_err!(gl, glow::INVALID_ENUM)
        };
        // SAFETY: GL promises two writable ints at `range` and one at
        // `precision`; null pointers are skipped.
        unsafe {
            if !range.is_null() {
                *range = r[0];
                *range.add(1) = r[1];
            }
            if !precision.is_null() {
                *precision = p;
            }
        }
    })
}

/// A hint: the compiler's resources are kept (compiling is in-process).
#[no_mangle]
pub unsafe extern "C" fn glReleaseShaderCompiler() {
    with_gl(|_| {})
}

/// No shader binary format is supported, so every format is INVALID_ENUM.
#[no_mangle]
pub unsafe extern "C" fn glShaderBinary(
    count: i32,
    _shaders: *const u32,
    _binary_format: u32,
    _binary: *const std::ffi::c_void,
    length: i32,
) {
    with_gl(|gl| {
        if count < 0 || length < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        gl.st.set_error(glow::INVALID_ENUM);
    })
}
