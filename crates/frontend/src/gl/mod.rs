//! Implemented GL entry points. Every function here is listed in
//! `crates/mgpipe/catalogue/coverage.toml` with the calls it may emit; the
//! build generates error-setting stubs for every other registry entry point.
#![allow(non_snake_case)]
#![allow(clippy::missing_safety_doc)]

use std::collections::HashSet;
use std::sync::OnceLock;

use parking_lot::Mutex;

use crate::context::with_gl;

pub mod attrib_values;
pub mod buffers;
pub mod clear_buffer;
pub mod compute;
pub mod copy_texture;
pub mod debug;
pub mod dlist;
pub mod draw;
pub mod dsa;
pub mod es2_compat;
pub mod fb_params;
pub mod fixed_function;
pub mod framebuffers;
pub mod get;
pub mod immediate;
pub mod indirect;
pub mod internalformat;
pub mod legacy_arrays;
pub mod legacy_formats;
pub mod matrix;
pub mod multi_bind;
pub mod multisample;
pub mod persistent;
pub mod pipelines;
pub mod pixel_rect;
pub mod pixels;
pub mod points;
pub mod program_interface;
pub(crate) mod proxy_textures;
pub mod queries;
pub mod raster;
pub mod robust;
pub mod shader_objects_arb;
pub mod shaders;
pub mod state;
pub mod sync;
pub mod tess;
pub mod texbuf;
pub mod textures;
pub mod validate;
pub mod vertex;
pub mod xfb;

pub use attrib_values::*;
pub use buffers::*;
pub use clear_buffer::*;
pub use compute::{
    glBindImageTexture, glDispatchCompute, glDispatchComputeIndirect, glMemoryBarrierByRegion,
    glShaderStorageBlockBinding,
};
pub use copy_texture::*;
pub use debug::*;
pub use dlist::{
    glCallList, glCallLists, glDeleteLists, glEndList, glGenLists, glIsList, glListBase, glNewList,
};
pub use draw::*;
pub use dsa::*;
pub use es2_compat::*;
pub use fb_params::*;
pub use fixed_function::{
    glAlphaFunc, glGetTexEnvfv, glGetTexEnviv, glShadeModel, glTexEnvf, glTexEnvfv, glTexEnvi,
    glTexEnviv,
};
pub use framebuffers::*;
pub use get::*;
pub use immediate::*;
pub use indirect::*;
pub use internalformat::*;
pub use legacy_arrays::*;
pub use matrix::{
    glClipPlane, glFrustum, glGetClipPlane, glLoadIdentity, glLoadMatrixd, glLoadMatrixf,
    glLoadTransposeMatrixd, glLoadTransposeMatrixf, glMatrixMode, glMultMatrixd, glMultMatrixf,
    glMultTransposeMatrixd, glMultTransposeMatrixf, glOrtho, glPopMatrix, glPushMatrix, glRotated,
    glRotatef, glScaled, glScalef, glTranslated, glTranslatef,
};
pub use multi_bind::*;
pub use multisample::*;
pub use persistent::glMemoryBarrier;
pub use pipelines::*;
pub use pixel_rect::{glBitmap, glCopyPixels, glDrawPixels};
pub use pixels::glReadPixels;
pub use points::{glPointParameterf, glPointParameterfv, glPointParameteri, glPointParameteriv};
pub use program_interface::*;
pub use queries::*;
pub use raster::{
    glPixelZoom, glRasterPos2d, glRasterPos2dv, glRasterPos2f, glRasterPos2fv, glRasterPos2i,
    glRasterPos2iv, glRasterPos2s, glRasterPos2sv, glRasterPos3d, glRasterPos3dv, glRasterPos3f,
    glRasterPos3fv, glRasterPos3i, glRasterPos3iv, glRasterPos3s, glRasterPos3sv, glRasterPos4d,
    glRasterPos4dv, glRasterPos4f, glRasterPos4fv, glRasterPos4i, glRasterPos4iv, glRasterPos4s,
    glRasterPos4sv, glWindowPos2d, glWindowPos2dv, glWindowPos2f, glWindowPos2fv, glWindowPos2i,
    glWindowPos2iv, glWindowPos2s, glWindowPos2sv, glWindowPos3d, glWindowPos3dv, glWindowPos3f,
    glWindowPos3fv, glWindowPos3i, glWindowPos3iv, glWindowPos3s, glWindowPos3sv,
};
pub use robust::*;
pub use shader_objects_arb::*;
pub use shaders::*;
pub use state::*;
pub use sync::*;
pub use tess::{glPatchParameterfv, glPatchParameteri};
pub use texbuf::{glTexBuffer, glTexBufferRange, glTextureBuffer, glTextureBufferRange};
pub use textures::*;
pub use vertex::*;
pub use xfb::*;

static LOGGED: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();

/// Log `what` once per process (by key).
pub fn log_once(key: &'static str, what: impl FnOnce() -> String) {
    let set = LOGGED.get_or_init(|| Mutex::new(HashSet::new()));
    if set.lock().insert(key) {
        tracing::warn!("{}", what());
    }
}

/// Called by every generated stub: the entry point exists but is not
/// implemented (or is legacy-only and the context is core). Sets
/// GL_INVALID_OPERATION on the current context and logs the name once.
pub fn unimplemented_entry(name: &'static str) {
    log_once(name, || {
        format!("{name} is not implemented by MobileGL yet: GL_INVALID_OPERATION")
    });
    with_gl(|gl| gl.st.set_error(glow::INVALID_OPERATION));
}

/// Shorthand for "set this error and return from the entry point".
macro_rules! gl_err {
    ($gl:expr, $e:expr) => {{
        $gl.st.set_error($e);
        return Default::default();
    }};
}
pub(crate) use gl_err;

/// Read a C array argument safely: null or negative count → empty.
///
/// # Safety
/// `ptr` must be null or point at `n` readable elements.
pub(crate) unsafe fn slice<'a, T>(ptr: *const T, n: i32) -> &'a [T] {
    if ptr.is_null() || n <= 0 {
        return &[];
    }
    // SAFETY: the caller promises `n` readable elements at `ptr`.
    unsafe { std::slice::from_raw_parts(ptr, n as usize) }
}

/// Write through an optional out pointer.
///
/// # Safety
/// `ptr` must be null or valid for a write of `T`.
pub(crate) unsafe fn put<T>(ptr: *mut T, v: T) {
    if !ptr.is_null() {
        // SAFETY: caller guarantees validity when non-null.
        unsafe { ptr.write_unaligned(v) };
    }
}

/// A C string argument as UTF-8 (lossy), empty for null.
///
/// # Safety
/// `p` must be null or a NUL-terminated string.
/// A (`length`, `p`) string argument: NUL-terminated when `length` is
/// negative, else `length` bytes (lossy UTF-8).
///
/// # Safety
/// `p` is NULL, or NUL-terminated, or points at `length` readable bytes.
pub(crate) unsafe fn cstr_len(p: *const std::ffi::c_char, length: i32) -> String {
    if p.is_null() {
        return String::new();
    }
    if length < 0 {
        // SAFETY: NUL-terminated per the caller.
        return unsafe { cstr(p) };
    }
    // SAFETY: `length` readable bytes per the caller.
    let bytes = unsafe { std::slice::from_raw_parts(p.cast::<u8>(), length as usize) };
    String::from_utf8_lossy(bytes).into_owned()
}

pub(crate) unsafe fn cstr(p: *const std::ffi::c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: caller promises a NUL-terminated string.
    unsafe { std::ffi::CStr::from_ptr(p) }
        .to_string_lossy()
        .into_owned()
}
