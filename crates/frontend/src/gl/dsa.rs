//! GL_ARB_direct_state_access (GL 4.5): the entry points that name the
//! object they act on instead of reading a binding.
//!
//! Buffers and vertex arrays share their bind-based twins' bodies, which
//! take the object (`buffers::BufSel`, a VAO `Option<u32>`). Texture and
//! framebuffer calls reuse the bind-based bodies by selecting the named
//! object on the active unit / draw binding for the length of the call:
//! those bindings are frontend state only (a bind emits nothing) and are
//! restored before the entry point returns.
//!
//! Errors follow ARB_direct_state_access: a name that is not an existing
//! object of the right kind is INVALID_OPERATION; a name glGen* returned
//! but never bound is not an object yet.

use std::ffi::c_void;

use super::buffers::{self, BufSel, Ptr};
use super::framebuffers as fbs;
use super::{gl_err, put, slice, textures, vertex};
use crate::context::{
    target_index, with_gl, with_gl_dirty, Attachment, Framebuffer, Gl, QueryObj, Renderbuffer,
    TexParams, VertexArray, DIRTY_DYNAMIC, DIRTY_FRAMEBUFFER, DIRTY_PROGRAM, DIRTY_RENDER_STATE,
    DIRTY_RESOURCES, DIRTY_VERTEX, MAX_TEXTURE_UNITS,
};

/// Hand out `n` fresh names not in use by `taken`, calling `make` for each.
///
/// # Safety
/// `out` must be valid for `n` writes (GL's contract).
unsafe fn create_names(
    gl: &mut Gl,
    n: i32,
    out: *mut u32,
    mut fresh: impl FnMut(&mut Gl) -> u32,
    mut make: impl FnMut(&mut Gl, u32),
) {
    if n < 0 {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    for i in 0..n as usize {
        let name = fresh(gl);
        make(gl, name);
        // SAFETY: GL promises `n` writable names at `out`.
        unsafe { put(out.add(i), name) };
    }
}

// ------------------------------------------------------------------ creation

#[no_mangle]
pub unsafe extern "C" fn glCreateTextures(target: u32, n: i32, out: *mut u32) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        if target_index(target).is_none() {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        let fresh = |gl: &mut Gl| loop {
            let c = gl.sh.new_name();
            if !gl.sh.textures.contains_key(&c) {
                break c;
            }
        };
        let make = |gl: &mut Gl, name| {
            gl.sh.textures.insert(name, None);
            textures::texture_object(gl, name, target);
        };
        // SAFETY: forwarded contract.
        unsafe { create_names(gl, n, out, fresh, make) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glCreateFramebuffers(n: i32, out: *mut u32) {
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        let fresh = |gl: &mut Gl| loop {
            let c = gl.st.new_name();
            if !gl.st.fbos.contains_key(&c) {
                break c;
            }
        };
        let make = |gl: &mut Gl, name| {
            let handle = gl.conn.alloc.framebuffer.alloc();
            gl.st.fbos.insert(name, Some(Framebuffer::new(handle)));
        };
        // SAFETY: forwarded contract.
        unsafe { create_names(gl, n, out, fresh, make) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glCreateRenderbuffers(n: i32, out: *mut u32) {
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        let fresh = |gl: &mut Gl| loop {
            let c = gl.sh.new_name();
            if !gl.sh.renderbuffers.contains_key(&c) {
                break c;
            }
        };
        let make = |gl: &mut Gl, name| {
            let handle = gl.conn.alloc.resource.alloc();
            gl.sh.renderbuffers.insert(
                name,
                Some(Renderbuffer {
                    handle,
                    width: 0,
                    height: 0,
                    // GL 4.6 table 23.28: the initial internal format.
                    internal_format: glow::RGBA,
                    requested: glow::RGBA,
                    samples: 0,
                    created: false,
                }),
            );
        };
        // SAFETY: forwarded contract.
        unsafe { create_names(gl, n, out, fresh, make) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glCreateSamplers(n: i32, out: *mut u32) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        let fresh = |gl: &mut Gl| loop {
            let c = gl.sh.new_name();
            if !gl.sh.samplers.contains_key(&c) {
                break c;
            }
        };
        let make = |gl: &mut Gl, name| {
            gl.sh.samplers.insert(name, TexParams::default());
        };
        // SAFETY: forwarded contract.
        unsafe { create_names(gl, n, out, fresh, make) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glCreateQueries(target: u32, n: i32, out: *mut u32) {
    with_gl(|gl| {
        if !super::queries::valid_target(target) {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        let fresh = |gl: &mut Gl| loop {
            let c = gl.st.new_name();
            if !gl.st.queries.contains_key(&c) {
                break c;
            }
        };
        let make = |gl: &mut Gl, name| {
            let handle = gl.conn.alloc.query.alloc();
            gl.st.queries.insert(
                name,
                Some(QueryObj {
                    handle,
                    target,
                    // ARB_direct_state_access: a created query's result
                    // is available and zero until it is first used.
                    result: Some(0),
                }),
            );
        };
        // SAFETY: forwarded contract.
        unsafe { create_names(gl, n, out, fresh, make) }
    })
}

// ------------------------------------------------------------------ buffers

/// The application's `size` bytes at `data` (empty for null or a size
/// that is negative or past i32: the shared body raises the error).
///
/// # Safety
/// `data` is null or points at `size` readable bytes.
unsafe fn bytes<'a>(data: *const c_void, size: isize) -> &'a [u8] {
    let n = if (0..=i32::MAX as isize).contains(&size) {
        size as i32
    } else {
        0
    };
    // SAFETY: the caller's promise.
    unsafe { slice(data as *const u8, n) }
}

#[no_mangle]
pub unsafe extern "C" fn glNamedBufferData(
    buffer: u32,
    size: isize,
    data: *const c_void,
    usage: u32,
) {
    // SAFETY: GL's contract on `data`.
    let b = unsafe { bytes(data, size) };
    with_gl_dirty(DIRTY_VERTEX | DIRTY_RESOURCES, |gl| {
        buffers::buffer_data(gl, BufSel::Named(buffer), size, b, usage)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glNamedBufferStorage(
    buffer: u32,
    size: isize,
    data: *const c_void,
    flags: u32,
) {
    // SAFETY: GL's contract on `data`.
    let b = unsafe { bytes(data, size) };
    with_gl_dirty(DIRTY_VERTEX | DIRTY_RESOURCES, |gl| {
        buffers::buffer_storage(gl, BufSel::Named(buffer), size, b, flags)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glNamedBufferSubData(
    buffer: u32,
    offset: isize,
    size: isize,
    data: *const c_void,
) {
    // SAFETY: GL's contract on `data`.
    let b = unsafe { bytes(data, size) };
    with_gl_dirty(DIRTY_VERTEX | DIRTY_RESOURCES, |gl| {
        buffers::buffer_sub_data(gl, BufSel::Named(buffer), offset, size, b)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glGetNamedBufferSubData(
    buffer: u32,
    offset: isize,
    size: isize,
    data: *mut c_void,
) {
    let out = with_gl_dirty(DIRTY_VERTEX | DIRTY_RESOURCES, |gl| {
        buffers::get_buffer_sub_data(gl, BufSel::Named(buffer), offset, size)
    });
    // SAFETY: GL promises `size` writable bytes at `data`.
    unsafe { buffers::write_out(out, data) };
}

#[no_mangle]
pub unsafe extern "C" fn glMapNamedBuffer(buffer: u32, access: u32) -> *mut c_void {
    with_gl_dirty(DIRTY_VERTEX | DIRTY_RESOURCES, |gl| {
        buffers::map_buffer(gl, BufSel::Named(buffer), access)
    })
    .0
}

#[no_mangle]
pub unsafe extern "C" fn glMapNamedBufferRange(
    buffer: u32,
    offset: isize,
    length: isize,
    access: u32,
) -> *mut c_void {
    with_gl_dirty(DIRTY_VERTEX | DIRTY_RESOURCES, |gl| {
        Ptr(buffers::map_range(
            gl,
            BufSel::Named(buffer),
            offset as i64,
            length as i64,
            access,
        ))
    })
    .0
}

#[no_mangle]
pub unsafe extern "C" fn glUnmapNamedBuffer(buffer: u32) -> u8 {
    with_gl_dirty(DIRTY_VERTEX | DIRTY_RESOURCES, |gl| {
        buffers::unmap(gl, BufSel::Named(buffer))
    })
}

#[no_mangle]
pub unsafe extern "C" fn glFlushMappedNamedBufferRange(buffer: u32, offset: isize, length: isize) {
    with_gl_dirty(DIRTY_VERTEX | DIRTY_RESOURCES, |gl| {
        buffers::flush_mapped(gl, BufSel::Named(buffer), offset, length)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glCopyNamedBufferSubData(
    read: u32,
    write: u32,
    read_offset: isize,
    write_offset: isize,
    size: isize,
) {
    with_gl_dirty(DIRTY_VERTEX | DIRTY_RESOURCES, |gl| {
        buffers::copy_sub_data(
            gl,
            BufSel::Named(read),
            BufSel::Named(write),
            read_offset,
            write_offset,
            size,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn glGetNamedBufferParameteriv(buffer: u32, pname: u32, out: *mut i32) {
    if let Some(v) = with_gl_dirty(DIRTY_VERTEX | DIRTY_RESOURCES, |gl| {
        buffers::buffer_param(gl, BufSel::Named(buffer), pname)
    }) {
        // SAFETY: GL promises one writable value.
        unsafe { put(out, v as i32) };
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetNamedBufferParameteri64v(buffer: u32, pname: u32, out: *mut i64) {
    if let Some(v) = with_gl_dirty(DIRTY_VERTEX | DIRTY_RESOURCES, |gl| {
        buffers::buffer_param(gl, BufSel::Named(buffer), pname)
    }) {
        // SAFETY: GL promises one writable value.
        unsafe { put(out, v) };
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetNamedBufferPointerv(buffer: u32, pname: u32, out: *mut *mut c_void) {
    let p = with_gl_dirty(DIRTY_VERTEX | DIRTY_RESOURCES, |gl| {
        buffers::buffer_pointer(gl, BufSel::Named(buffer), pname)
    });
    // SAFETY: GL promises one writable pointer.
    unsafe { put(out, p.0) };
}

// ------------------------------------------------------------------ vertex arrays

#[no_mangle]
pub unsafe extern "C" fn glVertexArrayElementBuffer(vaobj: u32, buffer: u32) {
    with_gl_dirty(DIRTY_VERTEX, |gl| {
        if buffer != 0 && !matches!(gl.sh.buffers.get(&buffer), Some(Some(_))) {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        match vertex::vao_sel_mut(gl, Some(vaobj)) {
            Ok(v) => v.element_buffer = buffer,
            Err(e) => gl.st.set_error(e),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glVertexArrayVertexBuffer(
    vaobj: u32,
    binding: u32,
    buffer: u32,
    offset: isize,
    stride: i32,
) {
    with_gl_dirty(DIRTY_VERTEX, |gl| {
        vertex::bind_vertex_buffer(gl, Some(vaobj), binding, buffer, offset, stride)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glVertexArrayVertexBuffers(
    vaobj: u32,
    first: u32,
    count: i32,
    buffers: *const u32,
    offsets: *const isize,
    strides: *const i32,
) {
    // SAFETY: GL promises `count` elements in each non-null array.
    let (b, o, s) = unsafe {
        (
            slice(buffers, count).to_vec(),
            slice(offsets, count).to_vec(),
            slice(strides, count).to_vec(),
        )
    };
    with_gl_dirty(DIRTY_VERTEX, |gl| {
        if let Err(e) = vertex::vao_sel_mut(gl, Some(vaobj)) {
            gl_err!(gl, e);
        }
        if count < 0 || first.saturating_add(count as u32) > vertex::MAX_BINDINGS {
            gl_err!(
                gl,
                if count < 0 {
                    glow::INVALID_VALUE
                } else {
                    glow::INVALID_OPERATION
                }
            );
        }
        for i in 0..count as usize {
            let buffer = b.get(i).copied().unwrap_or(0);
            let (offset, stride) = if buffer == 0 {
                (0, 16)
            } else {
                (
                    o.get(i).copied().unwrap_or(0),
                    s.get(i).copied().unwrap_or(0),
                )
            };
            vertex::bind_vertex_buffer(gl, Some(vaobj), first + i as u32, buffer, offset, stride);
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glEnableVertexArrayAttrib(vaobj: u32, index: u32) {
    with_gl_dirty(DIRTY_VERTEX, |gl| {
        vertex::enable_attrib(gl, Some(vaobj), index, true)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glDisableVertexArrayAttrib(vaobj: u32, index: u32) {
    with_gl_dirty(DIRTY_VERTEX, |gl| {
        vertex::enable_attrib(gl, Some(vaobj), index, false)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glVertexArrayAttribFormat(
    vaobj: u32,
    index: u32,
    size: i32,
    ty: u32,
    normalized: u8,
    relative: u32,
) {
    with_gl_dirty(DIRTY_VERTEX, |gl| {
        vertex::attrib_format(
            gl,
            Some(vaobj),
            index,
            size,
            ty,
            normalized != 0,
            false,
            relative,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn glVertexArrayAttribIFormat(
    vaobj: u32,
    index: u32,
    size: i32,
    ty: u32,
    relative: u32,
) {
    with_gl_dirty(DIRTY_VERTEX, |gl| {
        if ty == glow::DOUBLE {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        vertex::attrib_format(gl, Some(vaobj), index, size, ty, false, true, relative)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glVertexArrayAttribLFormat(
    vaobj: u32,
    index: u32,
    size: i32,
    ty: u32,
    relative: u32,
) {
    with_gl_dirty(DIRTY_VERTEX, |gl| {
        if ty != glow::DOUBLE {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        vertex::attrib_format(gl, Some(vaobj), index, size, ty, false, true, relative)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glVertexArrayAttribBinding(vaobj: u32, index: u32, binding: u32) {
    with_gl_dirty(DIRTY_VERTEX, |gl| {
        vertex::attrib_binding(gl, Some(vaobj), index, binding)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glVertexArrayBindingDivisor(vaobj: u32, binding: u32, divisor: u32) {
    with_gl_dirty(DIRTY_VERTEX, |gl| {
        vertex::binding_divisor(gl, Some(vaobj), binding, divisor)
    })
}

/// The VAO `vaobj` names (read only), or INVALID_OPERATION set.
fn vao_ref(gl: &mut Gl, vaobj: u32) -> Option<VertexArray> {
    if vaobj == 0 && gl.st.is_core() {
        gl.st.set_error(glow::INVALID_OPERATION);
        return None;
    }
    match gl.st.vaos.get(&vaobj) {
        Some(Some(v)) => Some(v.clone()),
        _ => {
            gl.st.set_error(glow::INVALID_OPERATION);
            None
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetVertexArrayiv(vaobj: u32, pname: u32, out: *mut i32) {
    let v = with_gl(|gl| {
        let v = vao_ref(gl, vaobj)?;
        if pname != glow::ELEMENT_ARRAY_BUFFER_BINDING {
            gl.st.set_error(glow::INVALID_ENUM);
            return None;
        }
        Some(v.element_buffer as i32)
    });
    if let Some(v) = v {
        // SAFETY: GL promises one writable value.
        unsafe { put(out, v) };
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetVertexArrayIndexediv(
    vaobj: u32,
    index: u32,
    pname: u32,
    out: *mut i32,
) {
    let v = with_gl(|gl| {
        vao_ref(gl, vaobj)?;
        if !matches!(
            pname,
            glow::VERTEX_ATTRIB_ARRAY_ENABLED
                | glow::VERTEX_ATTRIB_ARRAY_SIZE
                | glow::VERTEX_ATTRIB_ARRAY_STRIDE
                | glow::VERTEX_ATTRIB_ARRAY_TYPE
                | glow::VERTEX_ATTRIB_ARRAY_NORMALIZED
                | glow::VERTEX_ATTRIB_ARRAY_INTEGER
                | glow::VERTEX_ATTRIB_ARRAY_LONG
                | glow::VERTEX_ATTRIB_ARRAY_DIVISOR
                | glow::VERTEX_ATTRIB_RELATIVE_OFFSET
                | glow::VERTEX_BINDING_OFFSET
                | glow::VERTEX_BINDING_STRIDE
                | glow::VERTEX_BINDING_DIVISOR
                | glow::VERTEX_BINDING_BUFFER
        ) {
            gl.st.set_error(glow::INVALID_ENUM);
            return None;
        }
        indexed(gl, vaobj, index, pname)
    });
    if let Some(v) = v {
        // SAFETY: GL promises one writable value.
        unsafe { put(out, v as i32) };
    }
}

/// One value of glGetVertexArrayIndexed*: an attribute's or (the
/// VERTEX_BINDING_* names) a binding point's state.
fn indexed(gl: &mut Gl, vaobj: u32, index: u32, pname: u32) -> Option<i64> {
    if matches!(
        pname,
        glow::VERTEX_BINDING_OFFSET
            | glow::VERTEX_BINDING_STRIDE
            | glow::VERTEX_BINDING_DIVISOR
            | glow::VERTEX_BINDING_BUFFER
    ) {
        if index >= vertex::MAX_BINDINGS {
            gl.st.set_error(glow::INVALID_VALUE);
            return None;
        }
        let b = vao_ref(gl, vaobj)?.bindings[index as usize];
        return Some(match pname {
            glow::VERTEX_BINDING_OFFSET => b.offset as i64,
            glow::VERTEX_BINDING_STRIDE => i64::from(b.stride),
            glow::VERTEX_BINDING_DIVISOR => i64::from(b.divisor),
            _ => i64::from(b.buffer),
        });
    }
    vertex::vertex_attrib_sel_param(gl, Some(vaobj), index, pname).map(|v| i64::from(v[0]))
}

#[no_mangle]
pub unsafe extern "C" fn glGetVertexArrayIndexed64iv(
    vaobj: u32,
    index: u32,
    pname: u32,
    out: *mut i64,
) {
    let v = with_gl(|gl| {
        vao_ref(gl, vaobj)?;
        if pname != glow::VERTEX_BINDING_OFFSET {
            gl.st.set_error(glow::INVALID_ENUM);
            return None;
        }
        indexed(gl, vaobj, index, pname)
    });
    if let Some(v) = v {
        // SAFETY: GL promises one writable value.
        unsafe { put(out, v) };
    }
}

// ------------------------------------------------------------------ textures

/// Run `f` on texture `name` as if it were bound to its own target on the
/// active unit (the binding is frontend state only; restored before
/// returning). `f` gets the texture's target. INVALID_OPERATION when
/// `name` is not a texture object.
fn with_texture<R: Default>(gl: &mut Gl, name: u32, f: impl FnOnce(&mut Gl, u32) -> R) -> R {
    let target = match gl.sh.textures.get(&name) {
        Some(Some(t)) if t.target != 0 && name != 0 => t.target,
        _ => gl_err!(gl, glow::INVALID_OPERATION),
    };
    let Some(ti) = target_index(target) else {
        gl_err!(gl, glow::INVALID_OPERATION)
    };
    let unit = gl.st.active_texture as usize;
    let old = std::mem::replace(&mut gl.st.texture_units[unit][ti], name);
    let r = f(gl, target);
    gl.st.texture_units[unit][ti] = old;
    r
}

/// Whether a DSA call of `dims` dimensions fits a texture of `target`
/// (no: INVALID_OPERATION).
fn fits(dims: u32, target: u32) -> bool {
    match dims {
        1 => target == glow::TEXTURE_1D,
        2 => matches!(
            target,
            glow::TEXTURE_2D | glow::TEXTURE_1D_ARRAY | glow::TEXTURE_RECTANGLE
        ),
        _ => matches!(
            target,
            glow::TEXTURE_3D | glow::TEXTURE_2D_ARRAY | glow::TEXTURE_CUBE_MAP_ARRAY
        ),
    }
}

#[allow(clippy::too_many_arguments)]
fn texture_storage(
    gl: &mut Gl,
    texture: u32,
    dims: u32,
    levels: i32,
    internal: u32,
    w: i32,
    h: i32,
    d: i32,
) {
    with_texture(gl, texture, |gl, target| {
        let cube2 = dims == 2 && target == glow::TEXTURE_CUBE_MAP;
        if !fits(dims, target) && !cube2 {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        textures::tex_storage(gl, dims, target, levels, internal, w, h, d)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glTextureStorage1D(texture: u32, levels: i32, internal: u32, w: i32) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        texture_storage(gl, texture, 1, levels, internal, w, 1, 1)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glTextureStorage2D(
    texture: u32,
    levels: i32,
    internal: u32,
    w: i32,
    h: i32,
) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        texture_storage(gl, texture, 2, levels, internal, w, h, 1)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glTextureStorage3D(
    texture: u32,
    levels: i32,
    internal: u32,
    w: i32,
    h: i32,
    d: i32,
) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        texture_storage(gl, texture, 3, levels, internal, w, h, d)
    })
}

#[allow(clippy::too_many_arguments)]
fn texture_storage_ms(
    gl: &mut Gl,
    texture: u32,
    dims: u32,
    samples: i32,
    internal: u32,
    w: i32,
    h: i32,
    d: i32,
    fixed: u8,
) {
    with_texture(gl, texture, |gl, target| {
        let want = if dims == 2 {
            glow::TEXTURE_2D_MULTISAMPLE
        } else {
            glow::TEXTURE_2D_MULTISAMPLE_ARRAY
        };
        if target != want {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        super::multisample::tex_multisample(
            gl,
            dims,
            target,
            samples,
            internal,
            w,
            h,
            d,
            fixed != 0,
            true,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn glTextureStorage2DMultisample(
    texture: u32,
    samples: i32,
    internal: u32,
    w: i32,
    h: i32,
    fixed: u8,
) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        texture_storage_ms(gl, texture, 2, samples, internal, w, h, 1, fixed)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glTextureStorage3DMultisample(
    texture: u32,
    samples: i32,
    internal: u32,
    w: i32,
    h: i32,
    d: i32,
    fixed: u8,
) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        texture_storage_ms(gl, texture, 3, samples, internal, w, h, d, fixed)
    })
}

#[allow(clippy::too_many_arguments)]
fn texture_sub_image(
    gl: &mut Gl,
    texture: u32,
    dims: u32,
    level: i32,
    [x, y, z]: [i32; 3],
    [w, h, d]: [i32; 3],
    format: u32,
    ty: u32,
    pixels: *const c_void,
) {
    with_texture(gl, texture, |gl, target| {
        if dims == 3 && target == glow::TEXTURE_CUBE_MAP {
            // A cube map's faces are its layers (GL 4.6 §8.6): faces z ..
            // z + d, each the next image of the client data (UNPACK_SKIP_
            // IMAGES steps through them).
            if z < 0 || d < 0 || z.saturating_add(d) > 6 {
                gl_err!(gl, glow::INVALID_VALUE);
            }
            let skip = gl.st.unpack.skip_images;
            for i in 0..d {
                gl.st.unpack.skip_images = skip.saturating_add(i);
                let face = glow::TEXTURE_CUBE_MAP_POSITIVE_X + (z + i) as u32;
                let before = gl.st.error;
                textures::tex_subimage(gl, 2, face, level, x, y, 0, w, h, 1, format, ty, pixels);
                if gl.st.error != before {
                    break;
                }
            }
            gl.st.unpack.skip_images = skip;
            return;
        }
        if !fits(dims, target) {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        textures::tex_subimage(
            gl, dims, target, level, x, y, z, w, h, d, format, ty, pixels,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn glTextureSubImage1D(
    texture: u32,
    level: i32,
    x: i32,
    w: i32,
    format: u32,
    ty: u32,
    pixels: *const c_void,
) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        texture_sub_image(
            gl,
            texture,
            1,
            level,
            [x, 0, 0],
            [w, 1, 1],
            format,
            ty,
            pixels,
        )
    })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn glTextureSubImage2D(
    texture: u32,
    level: i32,
    x: i32,
    y: i32,
    w: i32,
    h: i32,
    format: u32,
    ty: u32,
    pixels: *const c_void,
) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        texture_sub_image(
            gl,
            texture,
            2,
            level,
            [x, y, 0],
            [w, h, 1],
            format,
            ty,
            pixels,
        )
    })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn glTextureSubImage3D(
    texture: u32,
    level: i32,
    x: i32,
    y: i32,
    z: i32,
    w: i32,
    h: i32,
    d: i32,
    format: u32,
    ty: u32,
    pixels: *const c_void,
) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        texture_sub_image(
            gl,
            texture,
            3,
            level,
            [x, y, z],
            [w, h, d],
            format,
            ty,
            pixels,
        )
    })
}

/// Values a texture parameter carries (4 for the border colour and the
/// swizzle vector).
fn param_count(pname: u32) -> i32 {
    if matches!(
        pname,
        glow::TEXTURE_BORDER_COLOR | glow::TEXTURE_SWIZZLE_RGBA
    ) {
        4
    } else {
        1
    }
}

fn texture_parameter(gl: &mut Gl, texture: u32, pname: u32, v: &[f32], iv: &[i32]) {
    with_texture(gl, texture, |gl, target| {
        // GL 4.6 §8.10: sampler state on a multisample texture is an
        // INVALID_OPERATION through the DSA commands (INVALID_ENUM through
        // the bind-to-edit ones).
        let multisample = matches!(
            target,
            glow::TEXTURE_2D_MULTISAMPLE | glow::TEXTURE_2D_MULTISAMPLE_ARRAY
        );
        if multisample && textures::is_sampler_state(pname) {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        textures::tex_parameter(gl, target, pname, v, iv)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glTextureParameteri(texture: u32, pname: u32, param: i32) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        texture_parameter(gl, texture, pname, &[], &[param])
    })
}

#[no_mangle]
pub unsafe extern "C" fn glTextureParameterf(texture: u32, pname: u32, param: f32) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        if textures::is_float_param(pname) {
            texture_parameter(gl, texture, pname, &[param], &[])
        } else {
            texture_parameter(gl, texture, pname, &[], &[param as i32])
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glTextureParameteriv(texture: u32, pname: u32, params: *const i32) {
    // SAFETY: GL promises the values of `pname`.
    let v = unsafe { slice(params, param_count(pname)) }.to_vec();
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        texture_parameter(gl, texture, pname, &[], &v)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glTextureParameterfv(texture: u32, pname: u32, params: *const f32) {
    // SAFETY: GL promises the values of `pname`.
    let v = unsafe { slice(params, param_count(pname)) }.to_vec();
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        if textures::is_float_param(pname) || pname == glow::TEXTURE_BORDER_COLOR {
            texture_parameter(gl, texture, pname, &v, &[])
        } else {
            let iv: Vec<i32> = v.iter().map(|f| *f as i32).collect();
            texture_parameter(gl, texture, pname, &[], &iv)
        }
    })
}

fn texture_parameter_words(texture: u32, pname: u32, words: &[u32]) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        if pname == glow::TEXTURE_BORDER_COLOR {
            let f: Vec<f32> = words.iter().map(|w| f32::from_bits(*w)).collect();
            texture_parameter(gl, texture, pname, &f, &[])
        } else {
            let iv: Vec<i32> = words.iter().map(|w| *w as i32).collect();
            texture_parameter(gl, texture, pname, &[], &iv)
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glTextureParameterIiv(texture: u32, pname: u32, params: *const i32) {
    // SAFETY: GL promises the values of `pname`.
    let words: Vec<u32> = unsafe { slice(params, param_count(pname)) }
        .iter()
        .map(|v| *v as u32)
        .collect();
    texture_parameter_words(texture, pname, &words)
}

#[no_mangle]
pub unsafe extern "C" fn glTextureParameterIuiv(texture: u32, pname: u32, params: *const u32) {
    // SAFETY: GL promises the values of `pname`.
    let words = unsafe { slice(params, param_count(pname)) }.to_vec();
    texture_parameter_words(texture, pname, &words)
}

fn texture_param_get(texture: u32, pname: u32) -> Option<Vec<f32>> {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        with_texture(gl, texture, |gl, target| {
            textures::tex_param_get(gl, target, pname)
        })
    })
}

/// Write the values of a texture parameter query.
///
/// # Safety
/// `out` is valid for the values of the queried parameter.
unsafe fn put_all<T: Copy>(out: *mut T, v: impl Iterator<Item = T>) {
    for (i, x) in v.enumerate() {
        // SAFETY: the caller's promise.
        unsafe { put(out.add(i), x) };
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetTextureParameteriv(texture: u32, pname: u32, out: *mut i32) {
    if let Some(v) = texture_param_get(texture, pname) {
        let conv = |x: &f32| {
            if pname == glow::TEXTURE_BORDER_COLOR {
                (*x as f64 * i32::MAX as f64) as i32
            } else {
                x.round() as i32
            }
        };
        // SAFETY: GL promises room for the values of `pname`.
        unsafe { put_all(out, v.iter().map(conv)) };
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetTextureParameterfv(texture: u32, pname: u32, out: *mut f32) {
    if let Some(v) = texture_param_get(texture, pname) {
        // SAFETY: GL promises room for the values of `pname`.
        unsafe { put_all(out, v.into_iter()) };
    }
}

fn texture_param_words(texture: u32, pname: u32) -> Option<Vec<u32>> {
    let v = texture_param_get(texture, pname)?;
    Some(if pname == glow::TEXTURE_BORDER_COLOR {
        v.iter().map(|x| x.to_bits()).collect()
    } else {
        v.iter().map(|x| x.round() as i32 as u32).collect()
    })
}

#[no_mangle]
pub unsafe extern "C" fn glGetTextureParameterIiv(texture: u32, pname: u32, out: *mut i32) {
    if let Some(v) = texture_param_words(texture, pname) {
        // SAFETY: GL promises room for the values of `pname`.
        unsafe { put_all(out, v.into_iter().map(|x| x as i32)) };
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetTextureParameterIuiv(texture: u32, pname: u32, out: *mut u32) {
    if let Some(v) = texture_param_words(texture, pname) {
        // SAFETY: GL promises room for the values of `pname`.
        unsafe { put_all(out, v.into_iter()) };
    }
}

fn texture_level_param(texture: u32, level: i32, pname: u32) -> Option<i32> {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        with_texture(gl, texture, |gl, target| {
            let t = if target == glow::TEXTURE_CUBE_MAP {
                glow::TEXTURE_CUBE_MAP_POSITIVE_X
            } else {
                target
            };
            textures::tex_level_param(gl, t, level, pname)
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn glGetTextureLevelParameteriv(
    texture: u32,
    level: i32,
    pname: u32,
    out: *mut i32,
) {
    if let Some(v) = texture_level_param(texture, level, pname) {
        // SAFETY: GL promises one writable value.
        unsafe { put(out, v) };
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetTextureLevelParameterfv(
    texture: u32,
    level: i32,
    pname: u32,
    out: *mut f32,
) {
    if let Some(v) = texture_level_param(texture, level, pname) {
        // SAFETY: GL promises one writable value.
        unsafe { put(out, v as f32) };
    }
}

#[no_mangle]
pub unsafe extern "C" fn glBindTextureUnit(unit: u32, texture: u32) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_RESOURCES, |gl| {
        if unit as usize >= MAX_TEXTURE_UNITS {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        if texture == 0 {
            // Zero unbinds every target of the unit.
            for t in gl.st.texture_units[unit as usize].iter_mut() {
                *t = 0;
            }
            return;
        }
        let target = match gl.sh.textures.get(&texture) {
            Some(Some(t)) if t.target != 0 => t.target,
            _ => gl_err!(gl, glow::INVALID_OPERATION),
        };
        let Some(ti) = target_index(target) else {
            gl_err!(gl, glow::INVALID_OPERATION)
        };
        gl.st.texture_units[unit as usize][ti] = texture;
    })
}

#[no_mangle]
pub unsafe extern "C" fn glGenerateTextureMipmap(texture: u32) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        with_texture(gl, texture, textures::generate_mipmap)
    })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn glGetTextureImage(
    texture: u32,
    level: i32,
    format: u32,
    ty: u32,
    _buf_size: i32,
    pixels: *mut c_void,
) {
    let r = with_gl(|gl| {
        with_texture(gl, texture, |gl, target| {
            if target == glow::TEXTURE_CUBE_MAP {
                return whole_cube_image(gl, texture, level, format, ty, pixels as usize);
            }
            super::queries::get_tex_image(gl, target, level, format, ty, pixels as usize)
        })
    });
    if let Some((ps, bpp, w, h, d, tight)) = r {
        // SAFETY: the application promises a writable image under its pack state.
        unsafe { super::pixels::pack_image(&ps, w, h, d, bpp, &tight, pixels as *mut u8) };
    }
}

/// glGetTextureImage of a whole cube map (GL 4.5 §8.11.4: the six faces
/// as the layers of one image, +X first), read face by face. The faces'
/// `level` must all exist with one size (else INVALID_OPERATION, Khronos
/// bug 13223's resolution as Mesa applies it). Not into a pixel-pack
/// buffer (logged, INVALID_OPERATION).
fn whole_cube_image(
    gl: &mut Gl,
    texture: u32,
    level: i32,
    format: u32,
    ty: u32,
    pixels: usize,
) -> super::queries::TexImageOut {
    let sizes: Vec<Option<(u32, u32)>> = match gl.sh.textures.get(&texture) {
        Some(Some(t)) if level >= 0 => (0..6)
            .map(|f| t.level(f, level as usize).map(|i| (i.width, i.height)))
            .collect(),
        _ => vec![None],
    };
    if sizes.iter().any(|s| s.is_none() || *s != sizes[0]) {
        gl.st.set_error(glow::INVALID_OPERATION);
        return None;
    }
    if gl.st.pixel_pack_buffer != 0 {
        // Into a pixel-pack buffer: each face lands one image further
        // (PACK_SKIP_IMAGES steps through them).
        let skip = gl.st.pack.skip_images;
        for face in 0..6 {
            gl.st.pack.skip_images = skip.saturating_add(face);
            let before = gl.st.error;
            let target = glow::TEXTURE_CUBE_MAP_POSITIVE_X + face as u32;
            let _ = super::queries::get_tex_image(gl, target, level, format, ty, pixels);
            if gl.st.error != before {
                break;
            }
        }
        gl.st.pack.skip_images = skip;
        return None;
    }
    let mut all = Vec::new();
    let mut first = None;
    for face in 0..6 {
        let target = glow::TEXTURE_CUBE_MAP_POSITIVE_X + face;
        let (ps, bpp, w, h, _, tight) =
            super::queries::get_tex_image(gl, target, level, format, ty, pixels)?;
        all.extend_from_slice(&tight);
        first.get_or_insert((ps, bpp, w, h));
    }
    let (ps, bpp, w, h) = first?;
    Some((ps, bpp, w, h, 6, all))
}

#[no_mangle]
pub unsafe extern "C" fn glCopyTextureSubImage1D(
    texture: u32,
    level: i32,
    xoffset: i32,
    x: i32,
    y: i32,
    width: i32,
) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        with_texture(gl, texture, |gl, target| {
            if target != glow::TEXTURE_1D {
                gl_err!(gl, glow::INVALID_OPERATION);
            }
            super::copy_texture::copy_tex_sub_image(
                gl,
                1,
                target,
                level,
                [xoffset, 0, 0],
                [x, y],
                width,
                1,
            )
        })
    })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn glCopyTextureSubImage2D(
    texture: u32,
    level: i32,
    xoffset: i32,
    yoffset: i32,
    x: i32,
    y: i32,
    width: i32,
    height: i32,
) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        with_texture(gl, texture, |gl, target| {
            // GL 4.6 §8.6: 2D, 1D-array and rectangle textures.
            if !matches!(
                target,
                glow::TEXTURE_2D | glow::TEXTURE_1D_ARRAY | glow::TEXTURE_RECTANGLE
            ) {
                gl_err!(gl, glow::INVALID_OPERATION);
            }
            super::copy_texture::copy_tex_sub_image(
                gl,
                2,
                target,
                level,
                [xoffset, yoffset, 0],
                [x, y],
                width,
                height,
            )
        })
    })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn glCopyTextureSubImage3D(
    texture: u32,
    level: i32,
    xoffset: i32,
    yoffset: i32,
    zoffset: i32,
    x: i32,
    y: i32,
    width: i32,
    height: i32,
) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        with_texture(gl, texture, |gl, target| {
            if target == glow::TEXTURE_CUBE_MAP {
                if !(0..6).contains(&zoffset) {
                    gl_err!(gl, glow::INVALID_VALUE);
                }
                let face = glow::TEXTURE_CUBE_MAP_POSITIVE_X + zoffset as u32;
                return super::copy_texture::copy_tex_sub_image(
                    gl,
                    2,
                    face,
                    level,
                    [xoffset, yoffset, 0],
                    [x, y],
                    width,
                    height,
                );
            }
            if !fits(3, target) {
                gl_err!(gl, glow::INVALID_OPERATION);
            }
            super::copy_texture::copy_tex_sub_image(
                gl,
                3,
                target,
                level,
                [xoffset, yoffset, zoffset],
                [x, y],
                width,
                height,
            )
        })
    })
}

// ------------------------------------------------------------ framebuffers

/// Run `f` with framebuffer `fb` (0: the default framebuffer) as the draw
/// (`read` false) or read (`read` true) framebuffer: the bindings are
/// frontend state only, restored before returning (the framebuffer
/// records compare against what was sent, so the next draw re-sends the
/// bound one; callers mark DIRTY_FRAMEBUFFER). INVALID_OPERATION when
/// `fb` is not a framebuffer object.
fn with_fbo<R: Default>(gl: &mut Gl, fb: u32, read: bool, f: impl FnOnce(&mut Gl) -> R) -> R {
    if fb != 0 && !matches!(gl.st.fbos.get(&fb), Some(Some(_))) {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    let old = if read {
        std::mem::replace(&mut gl.st.read_fbo, fb)
    } else {
        std::mem::replace(&mut gl.st.draw_fbo, fb)
    };
    let r = f(gl);
    if read {
        gl.st.read_fbo = old;
    } else {
        gl.st.draw_fbo = old;
    }
    r
}

/// Framebuffer-object calls that take no default framebuffer: zero is
/// INVALID_OPERATION too.
fn with_user_fbo<R: Default>(gl: &mut Gl, fb: u32, f: impl FnOnce(&mut Gl) -> R) -> R {
    if fb == 0 {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    with_fbo(gl, fb, false, f)
}

#[no_mangle]
pub unsafe extern "C" fn glNamedFramebufferRenderbuffer(
    framebuffer: u32,
    attachment: u32,
    rb_target: u32,
    rb: u32,
) {
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        with_user_fbo(gl, framebuffer, |gl| {
            if rb_target != glow::RENDERBUFFER {
                gl_err!(gl, glow::INVALID_ENUM);
            }
            if rb != 0 && !matches!(gl.sh.renderbuffers.get(&rb), Some(Some(_))) {
                gl_err!(gl, glow::INVALID_OPERATION);
            }
            let att = if rb == 0 {
                Attachment::default()
            } else {
                Attachment {
                    kind: mgpipe::consts::SURFACE_RENDERBUFFER,
                    name: rb,
                    ..Default::default()
                }
            };
            fbs::attach(gl, glow::DRAW_FRAMEBUFFER, attachment, att)
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn glNamedFramebufferTexture(
    framebuffer: u32,
    attachment: u32,
    texture: u32,
    level: i32,
) {
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        with_user_fbo(gl, framebuffer, |gl| {
            fbs::texture_attachment(
                gl,
                glow::DRAW_FRAMEBUFFER,
                attachment,
                None,
                texture,
                level,
                0,
                false,
            )
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn glNamedFramebufferTextureLayer(
    framebuffer: u32,
    attachment: u32,
    texture: u32,
    level: i32,
    layer: i32,
) {
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        with_user_fbo(gl, framebuffer, |gl| {
            fbs::texture_attachment(
                gl,
                glow::DRAW_FRAMEBUFFER,
                attachment,
                None,
                texture,
                level,
                layer,
                true,
            )
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn glNamedFramebufferDrawBuffer(framebuffer: u32, buf: u32) {
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        with_fbo(gl, framebuffer, false, |gl| fbs::set_draw_buffer(gl, buf))
    })
}

#[no_mangle]
pub unsafe extern "C" fn glNamedFramebufferDrawBuffers(framebuffer: u32, n: i32, bufs: *const u32) {
    // SAFETY: GL promises `n` values.
    let bufs = unsafe { slice(bufs, n) }.to_vec();
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        with_fbo(gl, framebuffer, false, |gl| {
            fbs::set_draw_buffers(gl, n, &bufs)
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn glNamedFramebufferReadBuffer(framebuffer: u32, buf: u32) {
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        with_fbo(gl, framebuffer, true, |gl| fbs::set_read_buffer(gl, buf))
    })
}

#[no_mangle]
pub unsafe extern "C" fn glCheckNamedFramebufferStatus(framebuffer: u32, target: u32) -> u32 {
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        if !matches!(
            target,
            glow::FRAMEBUFFER | glow::DRAW_FRAMEBUFFER | glow::READ_FRAMEBUFFER
        ) {
            gl.st.set_error(glow::INVALID_ENUM);
            return 0;
        }
        if framebuffer != 0 && !matches!(gl.st.fbos.get(&framebuffer), Some(Some(_))) {
            gl.st.set_error(glow::INVALID_OPERATION);
            return 0;
        }
        match gl.framebuffer_status(framebuffer) {
            glow::FRAMEBUFFER_COMPLETE => {
                fbs::layer_status(gl, framebuffer).unwrap_or(glow::FRAMEBUFFER_COMPLETE)
            }
            status => status,
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glGetNamedFramebufferAttachmentParameteriv(
    framebuffer: u32,
    attachment: u32,
    pname: u32,
    out: *mut i32,
) {
    let v = with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        with_fbo(gl, framebuffer, false, |gl| {
            fbs::attachment_param(gl, glow::DRAW_FRAMEBUFFER, attachment, pname)
        })
    });
    if let Some(v) = v {
        // SAFETY: GL promises one writable value.
        unsafe { put(out, v) };
    }
}

#[no_mangle]
pub unsafe extern "C" fn glNamedRenderbufferStorage(
    renderbuffer: u32,
    internal: u32,
    width: i32,
    height: i32,
) {
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        with_renderbuffer(gl, renderbuffer, |gl| {
            fbs::renderbuffer_storage(gl, 0, internal, width, height)
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn glNamedRenderbufferStorageMultisample(
    renderbuffer: u32,
    samples: i32,
    internal: u32,
    width: i32,
    height: i32,
) {
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        with_renderbuffer(gl, renderbuffer, |gl| {
            fbs::renderbuffer_storage(gl, samples, internal, width, height)
        })
    })
}

/// Run `f` with renderbuffer `rb` as the bound renderbuffer (frontend
/// state only, restored before returning); INVALID_OPERATION when `rb`
/// is not a renderbuffer object.
fn with_renderbuffer<R: Default>(gl: &mut Gl, rb: u32, f: impl FnOnce(&mut Gl) -> R) -> R {
    if rb == 0 || !matches!(gl.sh.renderbuffers.get(&rb), Some(Some(_))) {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    let old = std::mem::replace(&mut gl.st.renderbuffer, rb);
    let r = f(gl);
    gl.st.renderbuffer = old;
    r
}

#[no_mangle]
pub unsafe extern "C" fn glGetNamedRenderbufferParameteriv(
    renderbuffer: u32,
    pname: u32,
    out: *mut i32,
) {
    let v = with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        if renderbuffer == 0 || !matches!(gl.sh.renderbuffers.get(&renderbuffer), Some(Some(_))) {
            gl.st.set_error(glow::INVALID_OPERATION);
            return None;
        }
        fbs::renderbuffer_param(gl, renderbuffer, pname)
    });
    if let Some(v) = v {
        // SAFETY: GL promises one writable value.
        unsafe { put(out, v) };
    }
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn glBlitNamedFramebuffer(
    read: u32,
    draw: u32,
    sx0: i32,
    sy0: i32,
    sx1: i32,
    sy1: i32,
    dx0: i32,
    dy0: i32,
    dx1: i32,
    dy1: i32,
    mask: u32,
    filter: u32,
) {
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        with_fbo(gl, read, true, |gl| {
            with_fbo(gl, draw, false, |gl| {
                fbs::blit(gl, [sx0, sy0, sx1, sy1], [dx0, dy0, dx1, dy1], mask, filter)
            })
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn glInvalidateNamedFramebufferData(
    framebuffer: u32,
    count: i32,
    attachments: *const u32,
) {
    // SAFETY: GL promises `count` attachments.
    let list = unsafe { slice(attachments, count) }.to_vec();
    with_gl(|gl| {
        with_fbo(gl, framebuffer, false, |gl| {
            if count < 0 {
                gl_err!(gl, glow::INVALID_VALUE);
            }
            if let Err(e) =
                super::debug::check_invalidate_framebuffer(gl, glow::DRAW_FRAMEBUFFER, &list)
            {
                gl.st.set_error(e);
            }
        })
    })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn glInvalidateNamedFramebufferSubData(
    framebuffer: u32,
    count: i32,
    attachments: *const u32,
    _x: i32,
    _y: i32,
    width: i32,
    height: i32,
) {
    // SAFETY: GL promises `count` attachments.
    let list = unsafe { slice(attachments, count) }.to_vec();
    with_gl(|gl| {
        with_fbo(gl, framebuffer, false, |gl| {
            if count < 0 || width < 0 || height < 0 {
                gl_err!(gl, glow::INVALID_VALUE);
            }
            if let Err(e) =
                super::debug::check_invalidate_framebuffer(gl, glow::DRAW_FRAMEBUFFER, &list)
            {
                gl.st.set_error(e);
            }
        })
    })
}

const CLEAR_DIRTY: u32 = DIRTY_RENDER_STATE | DIRTY_DYNAMIC | DIRTY_FRAMEBUFFER;

#[no_mangle]
pub unsafe extern "C" fn glClearNamedFramebufferfv(
    framebuffer: u32,
    buffer: u32,
    drawbuffer: i32,
    value: *const f32,
) {
    // SAFETY: GL promises 4 (colour) or 1 (depth) values.
    let v = unsafe { slice(value, if buffer == glow::COLOR { 4 } else { 1 }) };
    with_gl_dirty(CLEAR_DIRTY, |gl| {
        with_fbo(gl, framebuffer, false, |gl| {
            super::state::clear_buffer_fv(gl, buffer, drawbuffer, v)
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn glClearNamedFramebufferiv(
    framebuffer: u32,
    buffer: u32,
    drawbuffer: i32,
    value: *const i32,
) {
    // SAFETY: GL promises 4 (colour) or 1 (stencil) values.
    let v = unsafe { slice(value, if buffer == glow::COLOR { 4 } else { 1 }) };
    with_gl_dirty(CLEAR_DIRTY, |gl| {
        with_fbo(gl, framebuffer, false, |gl| {
            super::state::clear_buffer_iv(gl, buffer, drawbuffer, v)
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn glClearNamedFramebufferuiv(
    framebuffer: u32,
    buffer: u32,
    drawbuffer: i32,
    value: *const u32,
) {
    // SAFETY: GL promises 4 values.
    let v = unsafe { slice(value, 4) };
    with_gl_dirty(CLEAR_DIRTY, |gl| {
        with_fbo(gl, framebuffer, false, |gl| {
            super::state::clear_buffer_uiv(gl, buffer, drawbuffer, v)
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn glClearNamedFramebufferfi(
    framebuffer: u32,
    buffer: u32,
    drawbuffer: i32,
    depth: f32,
    stencil: i32,
) {
    with_gl_dirty(CLEAR_DIRTY, |gl| {
        with_fbo(gl, framebuffer, false, |gl| {
            super::state::clear_buffer_fi(gl, buffer, drawbuffer, depth, stencil)
        })
    })
}
