//! GLX entry points (stubs on surfaceless platforms), owned by the
//! window-system layer.
//!
//! Binaries linked against `libGL.so.1` (piglit's `libpiglitutil_gl`, old
//! games) need every GLX 1.4 symbol to exist so that the dynamic loader can
//! bind them. MobileGL has no X11 path: every GLX function is a generated stub
//! that logs once and returns null / `False` / 0, except
//! `glXGetProcAddress[ARB]`, which resolves GL, GLX and EGL names like
//! `eglGetProcAddress` does.

// Generated C entry points keep their Khronos names and signatures.
#![allow(non_snake_case, clippy::too_many_arguments, clippy::missing_safety_doc)]

#[allow(unused_imports)]
use std::ffi::{c_char, c_int, c_long, c_ulong, c_void};

use crate::exports::{LogOnce, ProcEntry};

include!(concat!(env!("OUT_DIR"), "/glx_exports.rs"));

/// Every generated GLX stub lands here: log the name once, never panic.
#[inline(never)]
fn glx_stub_hit(name: &'static str) {
    static SEEN: LogOnce = LogOnce::new();
    let _ = std::panic::catch_unwind(|| {
        if SEEN.first(name) {
            tracing::warn!(
                entry_point = name,
                "GLX is not supported by MobileGL (use EGL); returning null/False"
            );
        }
    });
}

/// Resolve a GLX command exported by this library.
pub fn lookup_glx(name: &[u8]) -> Option<*const c_void> {
    crate::exports::find(&GLX_PROCS, name)
}

/// Names in the GLX table (sorted).
pub fn glx_proc_names() -> impl Iterator<Item = &'static [u8]> {
    GLX_PROCS.iter().map(|e| e.0)
}

/// GL, then GLX, then EGL.
fn resolve(name: *const u8) -> Option<unsafe extern "C" fn()> {
    if name.is_null() {
        return None;
    }
    // SAFETY: the caller passes a NUL-terminated string (GLX contract);
    // null was rejected above.
    let bytes = unsafe { std::ffi::CStr::from_ptr(name.cast::<c_char>()) }.to_bytes();
    let p = crate::exports::lookup(bytes)
        .or_else(|| lookup_glx(bytes))
        .or_else(|| crate::exports::lookup_egl(bytes))?;
    // SAFETY: every table entry is the address of an `extern "C"` function;
    // the caller casts it to the right signature (GetProcAddress contract).
    Some(unsafe { std::mem::transmute::<*const c_void, unsafe extern "C" fn()>(p) })
}

/// `glXGetProcAddress`: GL (core and extension), GLX and EGL names; null for
/// anything else.
#[no_mangle]
pub unsafe extern "C" fn glXGetProcAddress(procName: *const u8) -> Option<unsafe extern "C" fn()> {
    std::panic::catch_unwind(|| resolve(procName)).unwrap_or(None)
}

/// `glXGetProcAddressARB` (GLX_ARB_get_proc_address): same as
/// `glXGetProcAddress`.
#[no_mangle]
pub unsafe extern "C" fn glXGetProcAddressARB(
    procName: *const u8,
) -> Option<unsafe extern "C" fn()> {
    std::panic::catch_unwind(|| resolve(procName)).unwrap_or(None)
}
