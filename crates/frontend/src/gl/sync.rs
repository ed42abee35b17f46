//! Sync objects. A GLsync is an opaque id we minted, never an address.

use std::ffi::c_void;

use mgpipe::calls;
use mgpipe::consts::*;
use mgpipe::Pipe;

use super::{gl_err, put};
use crate::context::{with_gl, Gl, SyncObj};

struct SyncPtr(*const c_void);
impl Default for SyncPtr {
    fn default() -> Self {
        SyncPtr(std::ptr::null())
    }
}

#[no_mangle]
pub unsafe extern "C" fn glFenceSync(condition: u32, flags: u32) -> *const c_void {
    with_gl(|gl| {
        if condition != glow::SYNC_GPU_COMMANDS_COMPLETE {
            gl.st.set_error(glow::INVALID_ENUM);
            return SyncPtr::default();
        }
        if flags != 0 {
            gl.st.set_error(glow::INVALID_VALUE);
            return SyncPtr::default();
        }
        SyncPtr(insert_fence(gl) as *const c_void)
    })
    .0
}

/// A fence after the context's commands so far; its id in the share
/// group's sync table (glFenceSync, eglCreateSync).
pub(crate) fn insert_fence(gl: &mut Gl) -> usize {
    let fence = gl.conn.alloc.fence.alloc();
    crate::gl::persistent::push_all(gl);
    gl.conn.pipe.fence_insert(&calls::FenceInsert { fence });
    gl.sh.next_sync += 1;
    let id = gl.sh.next_sync;
    gl.sh.syncs.insert(
        id,
        SyncObj {
            fence,
            signaled: false,
        },
    );
    id
}

/// Delete sync `id` of the share group (glDeleteSync, eglDestroySync);
/// an id no longer in the table is ignored.
pub(crate) fn delete_fence(gl: &mut Gl, id: usize) {
    if let Some(s) = gl.sh.syncs.remove(&id) {
        gl.conn
            .pipe
            .fence_destroy(&calls::FenceDestroy { fence: s.fence });
        gl.conn.alloc.fence.free(s.fence);
    }
}

fn sync_id(gl: &mut Gl, sync: *const c_void) -> Option<usize> {
    let id = sync as usize;
    if gl.sh.syncs.contains_key(&id) {
        Some(id)
    } else {
        gl.st.set_error(glow::INVALID_VALUE);
        None
    }
}

#[no_mangle]
pub unsafe extern "C" fn glIsSync(sync: *const c_void) -> u8 {
    with_gl(|gl| gl.sh.syncs.contains_key(&(sync as usize)) as u8)
}

#[no_mangle]
pub unsafe extern "C" fn glDeleteSync(sync: *const c_void) {
    with_gl(|gl| {
        if sync.is_null() {
            return;
        }
        let Some(id) = sync_id(gl, sync) else { return };
        delete_fence(gl, id);
    })
}

/// Ask the server about a fence (a blocking point when it waits): a GL
/// wait status (`glClientWaitSync`'s values).
pub(crate) fn wait_fence(gl: &mut Gl, id: usize, flush: bool, timeout_ns: u64) -> u32 {
    if gl.sh.syncs.get(&id).is_some_and(|s| !s.signaled) {
        // A completion may already be in the EVENT ring: no round trip then.
        crate::gl::persistent::absorb_events(gl);
    }
    let Some(s) = gl.sh.syncs.get(&id).cloned() else {
        return glow::WAIT_FAILED;
    };
    if s.signaled {
        return glow::ALREADY_SIGNALED;
    }
    if flush {
        remote::Transport::flush(&mut *gl.conn.pipe);
    }
    let mut reply = Vec::new();
    gl.conn.blocking(crate::runtime::BlockingCause::FenceWait);
    gl.conn.pipe.fence_wait(
        &calls::FenceWait {
            fence: s.fence,
            flags: flush as u32,
            timeout_ns,
            ..Default::default()
        },
        &mut reply,
    );
    let status = reply
        .get(..4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .unwrap_or(0);
    if status == FENCE_STATUS_SIGNALED {
        if let Some(s) = gl.sh.syncs.get_mut(&id) {
            s.signaled = true;
        }
        if timeout_ns == 0 {
            glow::ALREADY_SIGNALED
        } else {
            glow::CONDITION_SATISFIED
        }
    } else if status == FENCE_STATUS_TIMEOUT {
        glow::TIMEOUT_EXPIRED
    } else {
        glow::WAIT_FAILED
    }
}

#[no_mangle]
pub unsafe extern "C" fn glClientWaitSync(sync: *const c_void, flags: u32, timeout: u64) -> u32 {
    with_gl(|gl| {
        let Some(id) = sync_id(gl, sync) else {
            return glow::WAIT_FAILED;
        };
        if flags & !glow::SYNC_FLUSH_COMMANDS_BIT != 0 {
            gl.st.set_error(glow::INVALID_VALUE);
            return glow::WAIT_FAILED;
        }
        wait_fence(gl, id, flags & glow::SYNC_FLUSH_COMMANDS_BIT != 0, timeout)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glWaitSync(sync: *const c_void, flags: u32, timeout: u64) {
    with_gl(|gl| {
        let Some(_id) = sync_id(gl, sync) else { return };
        if flags != 0 || timeout != glow::TIMEOUT_IGNORED {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        // The server applies records in order: a server-side wait is implied.
    })
}

#[no_mangle]
pub unsafe extern "C" fn glGetSynciv(
    sync: *const c_void,
    pname: u32,
    count: i32,
    length: *mut i32,
    values: *mut i32,
) {
    let v = crate::context::with_gl_exempt(|gl| {
        let id = sync_id(gl, sync)?;
        Some(match pname {
            glow::OBJECT_TYPE => glow::SYNC_FENCE as i32,
            glow::SYNC_CONDITION => glow::SYNC_GPU_COMMANDS_COMPLETE as i32,
            glow::SYNC_FLAGS => 0,
            glow::SYNC_STATUS => {
                let r = wait_fence(gl, id, false, 0);
                if r == glow::ALREADY_SIGNALED || r == glow::CONDITION_SATISFIED {
                    glow::SIGNALED as i32
                } else {
                    glow::UNSIGNALED as i32
                }
            }
            _ => {
                gl.st.set_error(glow::INVALID_ENUM);
                return None;
            }
        })
    });
    if let Some(v) = v {
        if count > 0 {
            // SAFETY: GL promises `count` writable values.
            unsafe { put(values, v) };
            // SAFETY: optional out pointer.
            unsafe { put(length, 1) };
        } else {
            // SAFETY: optional out pointer.
            unsafe { put(length, 0) };
        }
    }
}
