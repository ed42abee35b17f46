//! Query objects and glGetTexImage: optional reply calls, asked only when the
//! backend's caps call mask says it implements them.
//!
//! glGetTexImage asks `get_texture_image` for a whole level when it fits one
//! reply. The call has no offset (it always reads from the level's first
//! row and first layer), so a bigger level of a colour texture is read the
//! way glReadPixels reads a big rectangle: the image, layer by layer, is
//! made the read surface and read in bands of whole rows. Depth/stencil
//! images are always read that way, as the read surface's depth/stencil
//! buffer (a GLES driver reads no depth/stencil texture directly).

use std::ffi::c_void;

use mgpipe::{calls, Opcode, Pipe};

use super::framebuffers::format_component_type;
use super::legacy_formats::LegacyBase;
use super::pixels::{
    pack_destination, pack_image, pixel_pair, read_bands, swap_bytes, write_pack_buffer,
};
use super::validate::{has_depth, has_stencil};
use super::{gl_err, log_once, put, slice};
use crate::context::{target_index, with_gl, Gl, LevelInfo, PixelStore, QueryObj};
use crate::runtime::BlockingCause;

pub(super) fn valid_target(t: u32) -> bool {
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
        let Some(handle) = activate_query(gl, target, target, name) else {
            return;
        };
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
        // GL 4.5 / ARB_direct_state_access: the target the object was
        // created (glCreateQueries) or first begun with.
        glow::QUERY_TARGET => {
            return match gl.st.queries.get(&name).copied() {
                Some(Some(q)) if q.target != 0 => Some(u64::from(q.target)),
                _ => {
                    gl.st.set_error(glow::INVALID_OPERATION);
                    None
                }
            };
        }
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

/// GL 4.6 core §8.11.4: glGetTexImage raises INVALID_OPERATION unless
/// `format` names components the image has: DEPTH_COMPONENT a depth (or
/// depth/stencil) image, STENCIL_INDEX a stencil (or depth/stencil) one,
/// DEPTH_STENCIL a depth/stencil one, a colour format a colour image of the
/// same integer-ness (an integer format for an integer image only).
fn format_fits_image(format: u32, internal: u32) -> bool {
    let (depth, stencil) = (has_depth(internal), has_stencil(internal));
    match format {
        glow::DEPTH_COMPONENT => depth,
        glow::STENCIL_INDEX => stencil,
        glow::DEPTH_STENCIL => depth && stencil,
        _ => {
            let int_image = matches!(
                format_component_type(internal),
                glow::INT | glow::UNSIGNED_INT
            );
            !depth && !stencil && super::pixels::is_integer_format(format) == int_image
        }
    }
}

/// What glGetTexImage hands back for client memory: the pack state, bytes
/// per pixel, the image's width, height and depth, and its tight rows.
pub(super) type TexImageOut = Option<(PixelStore, usize, u32, u32, u32, Vec<u8>)>;

#[no_mangle]
pub unsafe extern "C" fn glGetTexImage(
    target: u32,
    level: i32,
    format: u32,
    ty: u32,
    pixels: *mut c_void,
) {
    let r = with_gl(|gl| get_tex_image(gl, target, level, format, ty, pixels as usize));
    if let Some((ps, bpp, w, h, d, tight)) = r {
        // SAFETY: the application promises a writable image under its pack state.
        unsafe { pack_image(&ps, w, h, d, bpp, &tight, pixels as *mut u8) };
    }
}

pub(super) fn get_tex_image(
    gl: &mut Gl,
    target: u32,
    level: i32,
    format: u32,
    ty: u32,
    pixels: usize,
) -> TexImageOut {
    let is_face =
        (glow::TEXTURE_CUBE_MAP_POSITIVE_X..=glow::TEXTURE_CUBE_MAP_NEGATIVE_Z).contains(&target);
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
    let bpp = match pixel_pair(format, ty) {
        Ok(b) => b,
        Err(e) => {
            gl.st.set_error(e);
            return None;
        }
    };
    if level < 0 || (level > 0 && target == glow::TEXTURE_RECTANGLE) {
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
    // An undefined level has no image: nothing is written.
    let info = info?;
    if !format_fits_image(format, info.internal_format) {
        gl.st.set_error(glow::INVALID_OPERATION);
        return None;
    }
    let (w, h, d) = (info.width, info.height, info.depth.max(1));
    let ps = gl.st.pack;
    let pbo = pack_destination(gl, &ps, w, h, d, bpp, ty, pixels)?;
    // Legacy ALPHA / LUMINANCE_ALPHA levels are stored as RGBA whose
    // colour channels may hold anything (uploaded RGBA, rendering): read as
    // RGBA floats, keep only what the base format has (GL 4.6
    // compatibility table 8.21: A as (0, 0, 0, A), LA as (L, 0, 0, A)),
    // then convert to the application's pair.
    let mask = info.legacy().and_then(|l| match l.base {
        // The first byte of an RGBA float texel that reads as zero.
        LegacyBase::Alpha => Some(0usize),
        LegacyBase::LuminanceAlpha => Some(4),
        // SLUMINANCE is stored as SRGB8_ALPHA8: (L, 0, 0, 1).
        LegacyBase::Luminance if l.storage == glow::SRGB8_ALPHA8 => Some(4),
        _ => None,
    });
    let alpha_one = info
        .legacy()
        .is_some_and(|l| l.base == LegacyBase::Luminance);
    let mask = mask.filter(|_| {
        mgpipe::pixels::channels(format).is_some_and(|(_, integer)| !integer)
            && !matches!(
                info.internal_format,
                glow::RGBA8UI
                    | glow::RGBA16UI
                    | glow::RGBA32UI
                    | glow::RGBA8I
                    | glow::RGBA16I
                    | glow::RGBA32I
            )
    });
    let (read_format, read_ty, read_bpp) = match mask {
        Some(_) => (glow::RGBA, glow::FLOAT, 16),
        None => (format, ty, bpp),
    };
    let image = TexImage {
        handle,
        target,
        obj_target,
        level: level as u32,
        layer0: face as u32,
        info,
        format: read_format,
        ty: read_ty,
        bpp: read_bpp,
    };
    let mut tight = read_tex_image(gl, &image)?;
    if let Some(first_zero) = mask {
        for px in tight.chunks_exact_mut(16) {
            px[first_zero..12].fill(0);
            if alpha_one {
                px[12..16].copy_from_slice(&1.0f32.to_le_bytes());
            }
        }
        let n = tight.len() / 16;
        tight = mgpipe::pixels::convert(&tight, glow::RGBA, glow::FLOAT, format, ty, n)?;
    }
    if ps.swap_bytes {
        swap_bytes(&mut tight, ty);
    }
    if let Some(t) = pbo {
        write_pack_buffer(gl, t, &ps, w, h, d, bpp, &tight);
        return None;
    }
    Some((ps, bpp, w, h, d, tight))
}

/// One level (or cube face) of a texture, as glGetTexImage reads it.
struct TexImage {
    handle: mgpipe::Handle,
    /// The image target the application named (a face for cube maps).
    target: u32,
    /// The texture's own target.
    obj_target: u32,
    level: u32,
    /// The attachment layer of the image's first layer (the face index of
    /// a cube-map face, else 0).
    layer0: u32,
    info: LevelInfo,
    format: u32,
    ty: u32,
    bpp: usize,
}

/// The tight rows of the image (rows bottom first, layers in order), or
/// None, logged once, when the image is larger than one reply and cannot
/// be read in bands.
fn read_tex_image(gl: &mut Gl, t: &TexImage) -> Option<Vec<u8>> {
    let (w, h, d) = (t.info.width, t.info.height, t.info.depth.max(1));
    let total = mgpipe::pixels::image_size(t.format, t.ty, w, h, d);
    let row_bytes = (w as usize).checked_mul(t.bpp);
    let layered = matches!(
        t.obj_target,
        glow::TEXTURE_2D_ARRAY | glow::TEXTURE_CUBE_MAP_ARRAY | glow::TEXTURE_3D
    );
    let banded = layered
        || matches!(
            t.obj_target,
            glow::TEXTURE_2D | glow::TEXTURE_RECTANGLE | glow::TEXTURE_CUBE_MAP
        );
    let colour = !has_depth(t.info.internal_format) && !has_stencil(t.info.internal_format);
    // A depth/stencil image is read as the read surface's depth/stencil
    // buffer (glReadPixels of it), which both backends read, where a GLES
    // driver cannot read the texture itself.
    let depth_stencil_bands = !colour && banded && (layered || d == 1);
    if let Some(total) = total.filter(|&n| n <= gl.conn.max_reply && !depth_stencil_bands) {
        if !gl.conn.caps.implements(Opcode::GetTextureImage as u16) {
            log_once("get_texture_image_declined", || {
                "the backend declines glGetTexImage: zeros returned".into()
            });
        }
        let mut reply = Vec::new();
        gl.conn.blocking(BlockingCause::ReadPixels);
        let p = calls::GetTextureImage {
            res: t.handle,
            target: t.target,
            level: t.level,
            width: w,
            height: h,
            depth: t.info.depth,
            format: t.format,
            r#type: t.ty,
            ..Default::default()
        };
        gl.conn.pipe.get_texture_image(&p, &mut reply);
        reply.resize(total, 0);
        return Some(reply);
    }
    // Larger than one reply (or a depth/stencil image): each layer of the
    // image becomes the read surface and is read in bands of whole rows.
    // 1D arrays stay out (their layers are the client's rows but the
    // backends' array layers).
    match (total, row_bytes) {
        (Some(total), Some(row_bytes))
            if banded && row_bytes <= gl.conn.max_reply && (layered || d == 1) =>
        {
            let tight = read_tex_image_bands(gl, t, row_bytes, total);
            if tight.is_none() {
                gl.st.set_error(glow::OUT_OF_MEMORY);
            }
            tight
        }
        _ => {
            log_once("glGetTexImage_too_large", || {
                format!(
                    "glGetTexImage: level {} of a 0x{:X} texture ({}x{}x{}, internal format \
                     0x{:X}) as 0x{:X}/0x{:X} is {} bytes, more than one reply ({} bytes), and \
                     a depth/stencil or 1D-array image cannot be read in bands: nothing written",
                    t.level,
                    t.obj_target,
                    w,
                    h,
                    d,
                    t.info.internal_format,
                    t.format,
                    t.ty,
                    total.map_or_else(|| "too many".to_string(), |n| n.to_string()),
                    gl.conn.max_reply
                )
            });
            None
        }
    }
}

/// Read an image layer by layer as the read surface (its colour, or its
/// depth and/or stencil buffer), each in bands of whole rows
/// (`pixels::read_bands`); the application's read surface is sent again at
/// its next use. None: `total` bytes do not fit in memory.
fn read_tex_image_bands(
    gl: &mut Gl,
    t: &TexImage,
    row_bytes: usize,
    total: usize,
) -> Option<Vec<u8>> {
    let (w, h, d) = (t.info.width, t.info.height, t.info.depth.max(1));
    let mut tight = Vec::new();
    tight.try_reserve_exact(total).ok()?;
    let mut layer = Vec::new();
    let fbo = gl.conn.alloc.framebuffer.alloc();
    let f = t.info.internal_format;
    let (depth, stencil) = (has_depth(f), has_stencil(f));
    let kind = mgpipe::consts::SURFACE_TEXTURE;
    for z in 0..d {
        let at = t.layer0.saturating_add(z);
        let mut rs = calls::SetReadSurface {
            fbo,
            ..Default::default()
        };
        if depth {
            (rs.depth, rs.depth_kind, rs.depth_level, rs.depth_layer) =
                (t.handle, kind, t.level, at);
        }
        if stencil {
            (
                rs.stencil,
                rs.stencil_kind,
                rs.stencil_level,
                rs.stencil_layer,
            ) = (t.handle, kind, t.level, at);
        }
        if !depth && !stencil {
            (rs.color, rs.color_kind, rs.color_level, rs.color_layer) =
                (t.handle, kind, t.level, at);
        }
        gl.conn.pipe.set_read_surface(&rs);
        let ok = read_bands(gl, 0, 0, w, h, t.format, t.ty, row_bytes, &mut layer, false);
        if !ok {
            break;
        }
        tight.extend_from_slice(&layer);
    }
    gl.st.sent.read_surface = None;
    gl.conn.alloc.framebuffer.free(fbo);
    (tight.len() == total).then_some(tight)
}

/// GL 4.6 §4.2: the targets with a vertex stream index; others take only
/// index 0. Returns the GL error of `index` for `target`, if any.
fn indexed_error(target: u32, index: u32) -> Option<u32> {
    if !valid_target(target) {
        return Some(glow::INVALID_ENUM);
    }
    let streams = matches!(
        target,
        glow::PRIMITIVES_GENERATED | glow::TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN
    );
    let limit = if streams {
        crate::shader::MAX_VERTEX_STREAMS
    } else {
        1
    };
    (index >= limit).then_some(glow::INVALID_VALUE)
}

/// The `active_queries` key of a query of vertex stream `index` > 0.
fn stream_key(target: u32, index: u32) -> u32 {
    target | index << 24
}

/// A query of vertex stream 1..3: geometry shaders' emits to those streams
/// are dropped (`spirv::lower_vertex_streams`), so it counts nothing and
/// is answered by the frontend (0) with the object rules of glBeginQuery.
fn begin_stream_query(gl: &mut Gl, target: u32, index: u32, name: u32) {
    if activate_query(gl, stream_key(target, index), target, name).is_some() {
        log_once("query-stream", || {
            "queries of vertex streams 1..3 count nothing: geometry shader emits to those streams are dropped".into()
        });
    }
}

/// glBeginQuery's object rules (GL 4.6 §4.2): `name` becomes the active
/// query of `key` (a target, or a target and stream index) counting
/// `target`. The query's backend handle (a fresh one for a name never
/// begun), or `None` with `GL_INVALID_OPERATION` set.
fn activate_query(gl: &mut Gl, key: u32, target: u32, name: u32) -> Option<mgpipe::Handle> {
    if gl.st.active_queries.contains_key(&key) || name == 0 {
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
    gl.st.active_queries.insert(key, name);
    Some(handle)
}

fn end_stream_query(gl: &mut Gl, target: u32, index: u32) {
    let Some(name) = gl.st.active_queries.remove(&stream_key(target, index)) else {
        gl_err!(gl, glow::INVALID_OPERATION)
    };
    if let Some(Some(q)) = gl.st.queries.get_mut(&name) {
        q.result = Some(0);
    }
}

#[no_mangle]
pub unsafe extern "C" fn glBeginQueryIndexed(target: u32, index: u32, id: u32) {
    let stream0 = with_gl(|gl| match indexed_error(target, index) {
        Some(e) => {
            gl.st.set_error(e);
            false
        }
        None if index != 0 => {
            begin_stream_query(gl, target, index, id);
            false
        }
        None => true,
    });
    if stream0 {
        // SAFETY: the same arguments, stream 0.
        unsafe { glBeginQuery(target, id) }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glEndQueryIndexed(target: u32, index: u32) {
    let stream0 = with_gl(|gl| match indexed_error(target, index) {
        Some(e) => {
            gl.st.set_error(e);
            false
        }
        None if index != 0 => {
            end_stream_query(gl, target, index);
            false
        }
        None => true,
    });
    if stream0 {
        // SAFETY: the same arguments, stream 0.
        unsafe { glEndQuery(target) }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetQueryIndexediv(target: u32, index: u32, pname: u32, out: *mut i32) {
    let streams = matches!(
        target,
        glow::PRIMITIVES_GENERATED | glow::TRANSFORM_FEEDBACK_PRIMITIVES_WRITTEN
    );
    let r = with_gl(|gl| {
        if !valid_target(target) && target != glow::TIMESTAMP {
            gl.st.set_error(glow::INVALID_ENUM);
            return None;
        }
        let limit = if streams {
            crate::shader::MAX_VERTEX_STREAMS
        } else {
            1
        };
        if index >= limit {
            gl.st.set_error(glow::INVALID_VALUE);
            return None;
        }
        Some(index != 0)
    });
    match r {
        // SAFETY: the same arguments, stream 0.
        Some(false) => unsafe { glGetQueryiv(target, pname, out) },
        Some(true) => match pname {
            glow::CURRENT_QUERY => {
                let key = stream_key(target, index);
                let name = with_gl(|gl| gl.st.active_queries.get(&key).copied().unwrap_or(0));
                // SAFETY: GL promises one writable value.
                unsafe { put(out, name as i32) }
            }
            // SAFETY: the same arguments, stream 0 (same counter bits).
            glow::QUERY_COUNTER_BITS => unsafe { glGetQueryiv(target, pname, out) },
            _ => with_gl(|gl| gl.st.set_error(glow::INVALID_ENUM)),
        },
        None => {}
    }
}
