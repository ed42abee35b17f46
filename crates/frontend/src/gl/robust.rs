//! Robust access (GL 4.5, KHR_robustness): `glGetnUniform{f,i,ui,d}v` and
//! `glReadnPixels`, the bounded forms of `glGetUniform*v` and
//! `glReadPixels`: when the answer would need more than `bufSize` bytes
//! the call is INVALID_OPERATION and writes nothing. The reads themselves
//! are the unbounded entry points'. `glGetnTexImage` is still a stub.

use std::ffi::c_void;

use mgpipe::pixels as mp;

use super::pixels::client_layout;
use super::shaders::{read_uniform, Base};
use crate::context::{with_gl, with_gl_dirty, DIRTY_PROGRAM};

/// Whether the uniform at `location` fits `buf_size` bytes of values of
/// `value_size` bytes each (false: the GL error is set).
fn uniform_fits(program: u32, location: i32, buf_size: i32, value_size: usize) -> bool {
    with_gl_dirty(DIRTY_PROGRAM, |gl| {
        let Some((base, words)) = read_uniform(gl, program, location) else {
            return false;
        };
        let values = if base == Base::Double {
            words.len() / 2
        } else {
            words.len()
        };
        if values.saturating_mul(value_size) > buf_size.max(0) as usize {
            gl.st.set_error(glow::INVALID_OPERATION);
            return false;
        }
        true
    })
}

#[no_mangle]
pub unsafe extern "C" fn glGetnUniformfv(
    program: u32,
    location: i32,
    buf_size: i32,
    out: *mut f32,
) {
    if uniform_fits(program, location, buf_size, 4) {
        // SAFETY: the values fit the caller's `buf_size` bytes at `out`.
        unsafe { super::shaders::glGetUniformfv(program, location, out) }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetnUniformiv(
    program: u32,
    location: i32,
    buf_size: i32,
    out: *mut i32,
) {
    if uniform_fits(program, location, buf_size, 4) {
        // SAFETY: the values fit the caller's `buf_size` bytes at `out`.
        unsafe { super::shaders::glGetUniformiv(program, location, out) }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetnUniformuiv(
    program: u32,
    location: i32,
    buf_size: i32,
    out: *mut u32,
) {
    if uniform_fits(program, location, buf_size, 4) {
        // SAFETY: the values fit the caller's `buf_size` bytes at `out`.
        unsafe { super::shaders::glGetUniformuiv(program, location, out) }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetnUniformdv(
    program: u32,
    location: i32,
    buf_size: i32,
    out: *mut f64,
) {
    if uniform_fits(program, location, buf_size, 8) {
        // SAFETY: the values fit the caller's `buf_size` bytes at `out`.
        unsafe { super::shaders::glGetUniformdv(program, location, out) }
    }
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn glReadnPixels(
    x: i32,
    y: i32,
    width: i32,
    height: i32,
    format: u32,
    ty: u32,
    buf_size: i32,
    data: *mut c_void,
) {
    // Client memory only: a pixel-pack buffer bounds the read itself.
    // Bad sizes or enums are left to glReadPixels' own errors.
    let fits = with_gl(|gl| {
        if gl.st.pixel_pack_buffer != 0 || width < 0 || height < 0 {
            return true;
        }
        let Some(bpp) = mp::bytes_per_pixel(format, ty) else {
            return true;
        };
        let (w, h) = (width as usize, height as usize);
        let end = client_layout(&gl.st.pack, w, h, bpp).end(h, 1);
        if end.is_none_or(|e| e > buf_size.max(0) as usize) {
            gl.st.set_error(glow::INVALID_OPERATION);
            return false;
        }
        true
    });
    if fits {
        // SAFETY: the image fits the caller's `buf_size` bytes at `data`
        // (or a pack buffer receives it).
        unsafe { super::pixels::glReadPixels(x, y, width, height, format, ty, data) }
    }
}
