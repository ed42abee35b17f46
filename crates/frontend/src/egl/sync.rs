//! EGL fence syncs (EGL 1.5 §3.8, EGL_KHR_fence_sync, EGL_KHR_wait_sync).
//!
//! An EGLSync is a minted handle (`state::Registry::syncs`) naming a GL
//! fence in the share group of the context that was current when it was
//! made (`gl::sync::insert_fence`). Any thread may wait on it, with or
//! without a current context of its own: the wait runs through a live
//! context of that share group (`context::with_share`). Only
//! `EGL_SYNC_FENCE` exists; reusable and OpenCL-event syncs are refused.
//!
//! Lock order: the EGL registry is never held while the GL world is
//! locked (records are copied out first).

use super::consts::*;
use super::state::{self, SyncRec, REGISTRY};
use super::{
    entry, handle, read_attribs, read_attribs_wide, to_ptr, EGLAttrib, EGLBoolean, EGLDisplay,
    EGLSync, EGLTime, EGLenum, EGLint, EglError, FALSE, TRUE,
};

const EGL_SYNC_PRIOR_COMMANDS_COMPLETE: EGLint = 0x30F0;
const EGL_SYNC_STATUS: EGLint = 0x30F1;
const EGL_SIGNALED: EGLint = 0x30F2;
const EGL_UNSIGNALED: EGLint = 0x30F3;
const EGL_TIMEOUT_EXPIRED: EGLint = 0x30F5;
const EGL_CONDITION_SATISFIED: EGLint = 0x30F6;
const EGL_SYNC_TYPE: EGLint = 0x30F7;
const EGL_SYNC_CONDITION: EGLint = 0x30F8;
const EGL_SYNC_FLUSH_COMMANDS_BIT: EGLint = 0x0001;
const NO_SYNC: EGLSync = std::ptr::null_mut();

/// eglCreateSync / eglCreateSyncKHR once the attribute list is read.
fn create(dpy: usize, ty: EGLint, attribs: usize) -> Result<EGLSync, EglError> {
    REGISTRY.lock().initialized(dpy)?;
    if ty != EGL_SYNC_FENCE {
        return Err(EglError::new(
            EGL_BAD_PARAMETER,
            "only EGL_SYNC_FENCE sync objects are supported",
        ));
    }
    if attribs != 0 {
        return Err(EglError::new(
            EGL_BAD_ATTRIBUTE,
            "EGL_SYNC_FENCE takes no attributes",
        ));
    }
    let t = state::thread();
    if !super::state::gl_like_api(t.api) || t.context == 0 {
        return Err(EglError::new(
            EGL_BAD_MATCH,
            "a fence sync needs a current OpenGL context",
        ));
    }
    if t.display != dpy {
        return Err(EglError::new(
            EGL_BAD_MATCH,
            "dpy is not the display of the current context",
        ));
    }
    let share = crate::context::current_share()
        .ok_or(EglError::new(EGL_BAD_MATCH, "the current context is gone"))?;
    let gl_sync = crate::context::with_gl(crate::gl::sync::insert_fence);
    if gl_sync == 0 {
        return Err(EglError::new(
            EGL_BAD_ALLOC,
            "the fence could not be inserted",
        ));
    }
    let mut reg = REGISTRY.lock();
    let h = reg.mint();
    reg.syncs.insert(
        h,
        SyncRec {
            display: dpy,
            share,
            gl_sync,
            signaled: false,
        },
    );
    Ok(to_ptr(h))
}

/// The live sync `sync` of `dpy`, copied out of the registry.
fn lookup(dpy: usize, sync: usize) -> Result<SyncRec, EglError> {
    let reg = REGISTRY.lock();
    reg.initialized(dpy)?;
    match reg.syncs.get(&sync) {
        Some(s) if s.display == dpy => Ok(*s),
        _ => Err(EglError::new(
            EGL_BAD_PARAMETER,
            "not an EGLSync of this display",
        )),
    }
}

/// Wait up to `timeout_ns` for the fence: true when signaled. A share group
/// with no live context left has had all its commands submitted and
/// finished with its last context: its fences count as signaled.
fn wait(handle: usize, s: SyncRec, flush: bool, timeout_ns: u64) -> Result<bool, EglError> {
    if s.signaled {
        return Ok(true);
    }
    let status = crate::context::with_share(s.share, |gl| {
        crate::gl::sync::wait_fence(gl, s.gl_sync, flush, timeout_ns)
    })
    .unwrap_or(glow::ALREADY_SIGNALED);
    let signaled = match status {
        glow::ALREADY_SIGNALED | glow::CONDITION_SATISFIED => true,
        glow::TIMEOUT_EXPIRED => false,
        _ => {
            return Err(EglError::new(
                EGL_CONTEXT_LOST,
                "the fence cannot be waited on (connection lost)",
            ))
        }
    };
    if signaled {
        if let Some(r) = REGISTRY.lock().syncs.get_mut(&handle) {
            r.signaled = true;
        }
    }
    Ok(signaled)
}

fn client_wait(
    dpy: usize,
    sync: usize,
    flags: EGLint,
    timeout: EGLTime,
) -> Result<EGLint, EglError> {
    let s = lookup(dpy, sync)?;
    let flush = flags & EGL_SYNC_FLUSH_COMMANDS_BIT != 0;
    Ok(if wait(sync, s, flush, timeout)? {
        EGL_CONDITION_SATISFIED
    } else {
        EGL_TIMEOUT_EXPIRED
    })
}

/// eglWaitSync: the calling context's later commands wait for the fence.
/// Done as a client-side wait (the fence may belong to another native
/// context on the server, which records alone do not order against).
fn server_wait(dpy: usize, sync: usize, flags: EGLint) -> Result<(), EglError> {
    let s = lookup(dpy, sync)?;
    if flags != 0 {
        return Err(EglError::new(EGL_BAD_PARAMETER, "flags must be 0"));
    }
    let t = state::thread();
    if !super::state::gl_like_api(t.api) || t.context == 0 || t.display != dpy {
        return Err(EglError::new(
            EGL_BAD_MATCH,
            "eglWaitSync needs a current OpenGL context of this display",
        ));
    }
    wait(sync, s, true, u64::MAX).map(|_| ())
}

fn attrib(dpy: usize, sync: usize, attribute: EGLint) -> Result<EGLint, EglError> {
    let s = lookup(dpy, sync)?;
    match attribute {
        EGL_SYNC_TYPE => Ok(EGL_SYNC_FENCE),
        EGL_SYNC_CONDITION => Ok(EGL_SYNC_PRIOR_COMMANDS_COMPLETE),
        EGL_SYNC_STATUS => Ok(if wait(sync, s, false, 0)? {
            EGL_SIGNALED
        } else {
            EGL_UNSIGNALED
        }),
        _ => Err(EglError::new(EGL_BAD_ATTRIBUTE, "not a sync attribute")),
    }
}

fn destroy(dpy: usize, sync: usize) -> Result<(), EglError> {
    lookup(dpy, sync)?;
    let Some(s) = REGISTRY.lock().syncs.remove(&sync) else {
        return Err(EglError::new(EGL_BAD_PARAMETER, "not an EGLSync"));
    };
    forget(&[s]);
    Ok(())
}

/// Free the GL fences of syncs removed from the registry (eglDestroySync,
/// eglTerminate). Call without holding the registry lock.
pub(super) fn forget(syncs: &[SyncRec]) {
    for s in syncs {
        crate::context::with_share(s.share, |gl| crate::gl::sync::delete_fence(gl, s.gl_sync));
    }
}

/// Drop every sync of `dpy` from `reg` (eglTerminate); the caller frees
/// their fences with [`forget`] once the registry is unlocked.
pub(super) fn take_display_syncs(reg: &mut state::Registry, dpy: usize) -> Vec<SyncRec> {
    let handles: Vec<usize> = reg
        .syncs
        .iter()
        .filter(|(_, s)| s.display == dpy)
        .map(|(h, _)| *h)
        .collect();
    handles
        .into_iter()
        .filter_map(|h| reg.syncs.remove(&h))
        .collect()
}

fn value_out<T>(value: *mut T) -> Result<*mut T, EglError> {
    if value.is_null() {
        Err(EglError::new(EGL_BAD_PARAMETER, "value is null"))
    } else {
        Ok(value)
    }
}

// ---------------------------------------------------------------- EGL 1.5

#[no_mangle]
pub unsafe extern "C" fn eglCreateSync(
    dpy: EGLDisplay,
    ty: EGLenum,
    attrib_list: *const EGLAttrib,
) -> EGLSync {
    entry("eglCreateSync", NO_SYNC, || {
        // SAFETY: EGL contract: null or an EGL_NONE-terminated list.
        let attribs = unsafe { read_attribs_wide(attrib_list) }?;
        create(handle(dpy), ty as EGLint, attribs.len())
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglDestroySync(dpy: EGLDisplay, sync: EGLSync) -> EGLBoolean {
    entry("eglDestroySync", FALSE, || {
        destroy(handle(dpy), handle(sync)).map(|_| TRUE)
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglClientWaitSync(
    dpy: EGLDisplay,
    sync: EGLSync,
    flags: EGLint,
    timeout: EGLTime,
) -> EGLint {
    entry("eglClientWaitSync", EGL_FALSE, || {
        client_wait(handle(dpy), handle(sync), flags, timeout)
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglGetSyncAttrib(
    dpy: EGLDisplay,
    sync: EGLSync,
    attribute: EGLint,
    value: *mut EGLAttrib,
) -> EGLBoolean {
    entry("eglGetSyncAttrib", FALSE, || {
        let v = attrib(handle(dpy), handle(sync), attribute)?;
        let out = value_out(value)?;
        // SAFETY: non-null; the application passes a writable EGLAttrib.
        unsafe { out.write(v as EGLAttrib) };
        Ok(TRUE)
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglWaitSync(dpy: EGLDisplay, sync: EGLSync, flags: EGLint) -> EGLBoolean {
    entry("eglWaitSync", FALSE, || {
        server_wait(handle(dpy), handle(sync), flags).map(|_| TRUE)
    })
}

// ------------------------------------------- EGL_KHR_fence_sync / wait_sync

#[no_mangle]
pub unsafe extern "C" fn eglCreateSyncKHR(
    dpy: EGLDisplay,
    ty: EGLenum,
    attrib_list: *const EGLint,
) -> EGLSync {
    entry("eglCreateSyncKHR", NO_SYNC, || {
        // SAFETY: EGL contract: null or an EGL_NONE-terminated list.
        let attribs = unsafe { read_attribs(attrib_list) }?;
        create(handle(dpy), ty as EGLint, attribs.len())
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglDestroySyncKHR(dpy: EGLDisplay, sync: EGLSync) -> EGLBoolean {
    entry("eglDestroySyncKHR", FALSE, || {
        destroy(handle(dpy), handle(sync)).map(|_| TRUE)
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglClientWaitSyncKHR(
    dpy: EGLDisplay,
    sync: EGLSync,
    flags: EGLint,
    timeout: EGLTime,
) -> EGLint {
    entry("eglClientWaitSyncKHR", EGL_FALSE, || {
        client_wait(handle(dpy), handle(sync), flags, timeout)
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglGetSyncAttribKHR(
    dpy: EGLDisplay,
    sync: EGLSync,
    attribute: EGLint,
    value: *mut EGLint,
) -> EGLBoolean {
    entry("eglGetSyncAttribKHR", FALSE, || {
        let v = attrib(handle(dpy), handle(sync), attribute)?;
        let out = value_out(value)?;
        // SAFETY: non-null; the application passes a writable EGLint.
        unsafe { out.write(v) };
        Ok(TRUE)
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglWaitSyncKHR(dpy: EGLDisplay, sync: EGLSync, flags: EGLint) -> EGLint {
    entry("eglWaitSyncKHR", EGL_FALSE, || {
        server_wait(handle(dpy), handle(sync), flags).map(|_| EGL_TRUE)
    })
}
