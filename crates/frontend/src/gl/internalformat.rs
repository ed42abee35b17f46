//! Internal-format queries (GL 4.2, ARB_internalformat_query):
//! `glGetInternalformativ` / `glGetInternalformati64v` for GL_SAMPLES and
//! GL_NUM_SAMPLE_COUNTS of the multisample-capable targets. The GL 4.3
//! query2 pnames are not answered yet (INVALID_ENUM), so
//! ARB_internalformat_query2 is not advertised.

use super::multisample::{renderable, sized};
use super::{gl_err, put};
use crate::context::{with_gl, Gl};

/// Sample counts a multisample image of `internal` may have, descending:
/// the powers of two from the backend's GL_MAX_SAMPLES down to 2 that it
/// can make images with (integer formats share the limit:
/// GL_MAX_INTEGER_SAMPLES answers the same).
fn sample_counts(gl: &Gl) -> Vec<i64> {
    let max = gl.conn.caps.max_samples.min(32);
    let mut v = Vec::new();
    let mut s = 32u32;
    while s >= 2 {
        let made = gl.conn.caps.sample_counts <= 1 || gl.conn.caps.sample_counts & s != 0;
        if s <= max && made {
            v.push(i64::from(s));
        }
        s /= 2;
    }
    v
}

/// Sized formats a multisample image may have beyond `renderable`: the
/// 16-bit normalized colour formats (the backends may store them
/// emulated) and the legacy ALPHA8-style formats of compatibility
/// contexts.
fn legacy_renderable(f: u32) -> bool {
    const ALPHA8: u32 = 0x803C;
    const LUMINANCE8: u32 = 0x8040;
    const LUMINANCE8_ALPHA8: u32 = 0x8045;
    const INTENSITY8: u32 = 0x804B;
    matches!(
        f,
        ALPHA8
            | LUMINANCE8
            | LUMINANCE8_ALPHA8
            | INTENSITY8
            | glow::R16
            | glow::RG16
            | glow::RGBA16
    )
}

/// The answer of `pname` for `target`/`internal`, or the GL error.
fn query(gl: &Gl, target: u32, internal: u32, pname: u32, buf_size: i32) -> Result<Vec<i64>, u32> {
    if !matches!(
        target,
        glow::RENDERBUFFER | glow::TEXTURE_2D_MULTISAMPLE | glow::TEXTURE_2D_MULTISAMPLE_ARRAY
    ) {
        return Err(glow::INVALID_ENUM);
    }
    // Renderable formats, and the legacy ALPHA8-style sized formats a
    // compatibility context renders to as well.
    if !renderable(sized(internal)) && !legacy_renderable(internal) {
        return Err(glow::INVALID_ENUM);
    }
    if buf_size < 0 {
        return Err(glow::INVALID_VALUE);
    }
    match pname {
        glow::SAMPLES => Ok(sample_counts(gl)),
        glow::NUM_SAMPLE_COUNTS => Ok(vec![sample_counts(gl).len() as i64]),
        _ => Err(glow::INVALID_ENUM),
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetInternalformativ(
    target: u32,
    internalformat: u32,
    pname: u32,
    buf_size: i32,
    params: *mut i32,
) {
    with_gl(|gl| {
        let v = match query(gl, target, internalformat, pname, buf_size) {
            Ok(v) => v,
            Err(e) => gl_err!(gl, e),
        };
        // At most `buf_size` values are written.
        for (k, x) in v.iter().take(buf_size.max(0) as usize).enumerate() {
            // SAFETY: GL promises `buf_size` writable ints at `params`.
            unsafe { put(params.add(k), *x as i32) };
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glGetInternalformati64v(
    target: u32,
    internalformat: u32,
    pname: u32,
    buf_size: i32,
    params: *mut i64,
) {
    with_gl(|gl| {
        let v = match query(gl, target, internalformat, pname, buf_size) {
            Ok(v) => v,
            Err(e) => gl_err!(gl, e),
        };
        for (k, x) in v.iter().take(buf_size.max(0) as usize).enumerate() {
            // SAFETY: GL promises `buf_size` writable int64s at `params`.
            unsafe { put(params.add(k), *x) };
        }
    })
}
