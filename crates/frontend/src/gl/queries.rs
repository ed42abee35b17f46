//! Query objects and glGetTexImage: optional reply calls, asked only when the
//! backend's caps call mask says it implements them.

use std::ffi::c_void;

use mgpipe::{calls, Opcode, Pipe};

use super::pixels::{bytes_per_pixel, pack};
use super::{gl_err, log_once, put, slice};
use crate::context::{target_index, with_gl, Gl, QueryObj};
use crate::runtime::BlockingCause;

fn valid_target(t: u32) -> bool {
    matches!(
        t,
        glow::SAMPLES_PASSED
            | glow::ANY_SAMPLES_PASSED
            | glow::ANY_SAMPLES_PASSED_CONSERVATIVE
            | glow::PRIMITIVES_GENERATED
            | glow::TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN
            | glow::TIME_ELAPSED
    )
}

#[no_mangle]
pub unsafe extern "C" fn glGenQueries(n: i32, out: *mut u32) {
    with_gl(|gl| {
        if n < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        for i in 0..n as usize {
            let name = loop {
                let c = gl.st.new_name();
                if !gl.st.queries.contains_key(&c) {
                    break c;
                }
            };
            gl.st.queries.insert(name, None);
            // SAFETY: GL promises `n` writable names.
            unsafe { put(out.add(i), name) };
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glDeleteQueries(n: i32, names: *const u32) {
    // SAFETY: GL promises `n` names.
    let names = unsafe { slice(names, n) }.to_vec();
    with_gl(|gl| {
        if n < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        for name in names {
            let Some(entry) = gl.st.queries.remove(&name) else {
                continue;
            };
            gl.st.active_queries.retain(|_, q| *q != name);
            if let Some(q) = entry {
                if gl.conn.caps.implements(Opcode::QueryDestroy as u16) {
                    gl.conn
                        .pipe
                        .query_destroy(&calls::QueryDestroy { query: q.handle });
                }
                gl.conn.alloc.query.free(q.handle);
            }
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glIsQuery(name: u32) -> u8 {
    with_gl(|gl| matches!(gl.st.queries.get(&name), Some(Some(_))) as u8)
}

#[no_mangle]
pub unsafe extern "C" fn glBeginQuery(target: u32, name: u32) {
    with_gl(|gl| {
        if !valid_target(target) {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        if gl.st.active_queries.contains_key(&target) || name == 0 {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        // Two occlusion-style targets may not be active at once on one query.
        if gl.st.active_queries.values().any(|q| *q == name) {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        let handle = match gl.st.queries.get(&name) {
            None => gl_err!(gl, glow::INVALID_OPERATION),
            Some(Some(q)) if q.target != 0 && q.target != target => {
                gl_err!(gl, glow::INVALID_OPERATION)
            }
            Some(Some(q)) => q.handle,
            Some(None) => gl.conn.alloc.query.alloc(),
        };
        gl.st.queries.insert(
            name,
            Some(QueryObj {
                handle,
                target,
                result: None,
            }),
        );
        gl.st.active_queries.insert(target, name);
        if gl.conn.caps.implements(Opcode::QueryBegin as u16) {
            // The framebuffer and state the query counts must be current.
            let _ = gl.emit_framebuffer();
            gl.conn.pipe.query_begin(&calls::QueryBegin {
                query: handle,
                target,
                ..Default::default()
            });
        } else {
            log_once("queries_declined", || {
                "the backend declines queries: results read as 0".into()
            });
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glEndQuery(target: u32) {
    with_gl(|gl| {
        if !valid_target(target) {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        let Some(name) = gl.st.active_queries.remove(&target) else {
            gl_err!(gl, glow::INVALID_OPERATION)
        };
        let Some(Some(q)) = gl.st.queries.get(&name).copied() else {
            return;
        };
        if gl.conn.caps.implements(Opcode::QueryEnd as u16) {
            gl.conn.pipe.query_end(&calls::QueryEnd {
                query: q.handle,
                target,
                ..Default::default()
            });
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glQueryCounter(name: u32, target: u32) {
    with_gl(|gl| {
        if target != glow::TIMESTAMP {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        if gl.st.active_queries.values().any(|q| *q == name) {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        let handle = match gl.st.queries.get(&name) {
            None => gl_err!(gl, glow::INVALID_OPERATION),
            Some(Some(q)) if q.target != 0 && q.target != target => {
                gl_err!(gl, glow::INVALID_OPERATION)
            }
            Some(Some(q)) => q.handle,
            Some(None) => gl.conn.alloc.query.alloc(),
        };
        gl.st.queries.insert(
            name,
            Some(QueryObj {
                handle,
                target,
                result: None,
            }),
        );
        if gl.conn.caps.implements(Opcode::QueryCounter as u16) {
            gl.conn
                .pipe
                .query_counter(&calls::QueryCounter { query: handle });
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glGetQueryiv(target: u32, pname: u32, out: *mut i32) {
    let v = with_gl(|gl| {
        if !valid_target(target) && target != glow::TIMESTAMP {
            gl.st.set_error(glow::INVALID_ENUM);
            return None;
        }
        match pname {
            glow::CURRENT_QUERY => Some(if target == glow::TIMESTAMP {
                0
            } else {
                gl.st.active_queries.get(&target).copied().unwrap_or(0) as i32
            }),
            glow::QUERY_COUNTER_BITS => Some(match target {
                glow::TIME_ELAPSED | glow::TIMESTAMP => 64,
                glow::ANY_SAMPLES_PASSED | glow::ANY_SAMPLES_PASSED_CONSERVATIVE => 1,
                _ => 32,
            }),
            _ => {
                gl.st.set_error(glow::INVALID_ENUM);
                None
            }
        }
    });
    if let Some(v) = v {
        // SAFETY: GL promises one writable value.
        unsafe { put(out, v) };
    }
}

/// (available, value) of a query; `wait` blocks until it is available.
fn query_result(gl: &mut Gl, name: u32, pname: u32) -> Option<u64> {
    let wait = match pname {
        glow::QUERY_RESULT => true,
        glow::QUERY_RESULT_AVAILABLE | glow::QUERY_RESULT_NO_WAIT => false,
        _ => {
            gl.st.set_error(glow::INVALID_ENUM);
            return None;
        }
    };
    let Some(Some(q)) = gl.st.queries.get(&name).copied() else {
        gl.st.set_error(glow::INVALID_OPERATION);
        return None;
    };
    if q.target == 0 || gl.st.active_queries.values().any(|a| *a == name) {
        gl.st.set_error(glow::INVALID_OPERATION);
        return None;
    }
    let (available, value) = match q.result {
        Some(v) => (true, v),
        None if !gl.conn.caps.implements(Opcode::QueryResult as u16) => (true, 0),
        None => {
            remote::Transport::flush(&mut *gl.conn.pipe);
            gl.conn.blocking(BlockingCause::QueryResult);
            let mut reply = Vec::new();
            gl.conn.pipe.query_result(
                &calls::QueryResult {
                    query: q.handle,
                    wait: wait as u32,
                    ..Default::default()
                },
                &mut reply,
            );
            if reply.len() >= 16 {
                let avail = u32::from_le_bytes([reply[0], reply[1], reply[2], reply[3]]) != 0;
                let mut v = [0u8; 8];
                v.copy_from_slice(&reply[8..16]);
                (avail, u64::from_le_bytes(v))
            } else {
                (true, 0)
            }
        }
    };
    if available {
        if let Some(Some(q)) = gl.st.queries.get_mut(&name) {
            q.result = Some(value);
        }
    }
    Some(match pname {
        glow::QUERY_RESULT_AVAILABLE => available as u64,
        glow::QUERY_RESULT_NO_WAIT if !available => return None,
        _ => value,
    })
}

macro_rules! get_query_object {
    ($name:ident, $t:ty) => {
        #[no_mangle]
        pub unsafe extern "C" fn $name(id: u32, pname: u32, out: *mut $t) {
            if let Some(v) = with_gl(|gl| query_result(gl, id, pname)) {
                // SAFETY: GL promises one writable value.
                unsafe { put(out, v.min(<$t>::MAX as u64) as $t) };
            }
        }
    };
}

get_query_object!(glGetQueryObjectiv, i32);
get_query_object!(glGetQueryObjectuiv, u32);
get_query_object!(glGetQueryObjecti64v, i64);
get_query_object!(glGetQueryObjectui64v, u64);

/// GL_TIMESTAMP for glGet*: the server's clock, a blocking point.
pub fn timestamp(gl: &mut Gl) -> i64 {
    if !gl.conn.caps.implements(Opcode::Timestamp as u16) {
        return 0;
    }
    let mut reply = Vec::new();
    gl.conn.blocking(BlockingCause::QueryResult);
    gl.conn
        .pipe
        .timestamp(&calls::Timestamp::default(), &mut reply);
    let mut v = [0u8; 8];
    if reply.len() >= 8 {
        v.copy_from_slice(&reply[..8]);
    }
    i64::from_le_bytes(v)
}

#[no_mangle]
pub unsafe extern "C" fn glGetTexImage(
    target: u32,
    level: i32,
    format: u32,
    ty: u32,
    pixels: *mut c_void,
) {
    let r = with_gl(|gl| {
        let is_face = (glow::TEXTURE_CUBE_MAP_POSITIVE_X..=glow::TEXTURE_CUBE_MAP_NEGATIVE_Z)
            .contains(&target);
        let obj_target = if is_face {
            glow::TEXTURE_CUBE_MAP
        } else {
            target
        };
        if target_index(obj_target).is_none()
            || target == glow::TEXTURE_CUBE_MAP
            || matches!(
                target,
                glow::TEXTURE_BUFFER
                    | glow::TEXTURE_2D_MULTISAMPLE
                    | glow::TEXTURE_2D_MULTISAMPLE_ARRAY
            )
        {
            gl.st.set_error(glow::INVALID_ENUM);
            return None;
        }
        let Some(bpp) = bytes_per_pixel(format, ty) else {
            gl.st.set_error(glow::INVALID_ENUM);
            return None;
        };
        if level < 0 {
            gl.st.set_error(glow::INVALID_VALUE);
            return None;
        }
        let name = gl
            .st
            .bound_texture(gl.st.active_texture as usize, obj_target);
        let face = if is_face {
            (target - glow::TEXTURE_CUBE_MAP_POSITIVE_X) as usize
        } else {
            0
        };
        let (handle, info) = match gl.sh.textures.get(&name) {
            Some(Some(t)) => (t.handle, t.level(face, level as usize)),
            _ => return None,
        };
        let info = info?;
        if !gl.conn.caps.implements(Opcode::GetTextureImage as u16) {
            log_once("get_texture_image_declined", || {
                "the backend declines glGetTexImage: zeros returned".into()
            });
        }
        let mut reply = Vec::new();
        gl.conn.blocking(BlockingCause::ReadPixels);
        let p = calls::GetTextureImage {
            res: handle,
            target,
            level: level as u32,
            width: info.width,
            height: info.height,
            depth: info.depth,
            format,
            r#type: ty,
            ..Default::default()
        };
        gl.conn.pipe.get_texture_image(&p, &mut reply);
        let layers = info.depth.max(1);
        reply.resize(
            info.width as usize * info.height as usize * layers as usize * bpp,
            0,
        );
        Some((gl.st.pack, bpp, info.width, info.height * layers, reply))
    });
    if let Some((ps, bpp, w, rows, tight)) = r {
        // SAFETY: the application promises a writable image under its pack state.
        unsafe { pack(&ps, w, rows, bpp, &tight, pixels as *mut u8) };
    }
}
