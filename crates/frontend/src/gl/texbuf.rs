//! Buffer textures (GL 3.1 core; ARB_texture_buffer_object, _range and
//! their ARB_direct_state_access forms): a texture of target
//! GL_TEXTURE_BUFFER reads its texels from a range of a buffer object.
//!
//! The frontend keeps the attachment (buffer name, format, range) on the
//! texture object and sends it with `texture_buffer`; the backend attaches
//! the buffer itself, so later glBufferData / glBufferSubData / mappings of
//! that buffer are what the next draw reads.

use mgpipe::calls;
use mgpipe::Pipe;

use super::gl_err;
use super::textures;
use crate::context::{with_gl_dirty, Gl, DIRTY_PROGRAM, DIRTY_RESOURCES};

/// GL_TEXTURE_BUFFER_OFFSET_ALIGNMENT: the largest value GL 4.6 allows,
/// a multiple of every backend's own alignment.
pub const OFFSET_ALIGNMENT: u64 = 256;
/// GL_MAX_TEXTURE_BUFFER_SIZE in texels: the minimum of GL 4.6 and of
/// GLES 3.2, which every backend has.
pub const MAX_TEXELS: u64 = 65536;

/// The buffer range a buffer texture reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TexBufferAttachment {
    /// Buffer object name (0: none attached).
    pub buffer: u32,
    pub internal_format: u32,
    pub offset: u64,
    /// None: the whole buffer, whatever its size becomes
    /// (glTexBuffer); Some: glTexBufferRange's size.
    pub size: Option<u64>,
}

impl Default for TexBufferAttachment {
    fn default() -> Self {
        // GL 4.6 state tables: a buffer texture's internal format starts
        // as R8.
        TexBufferAttachment {
            buffer: 0,
            internal_format: glow::R8,
            offset: 0,
            size: None,
        }
    }
}

/// Bytes per texel of a buffer-texture internal format (GL 4.6 table
/// 8.16), None for a format buffer textures do not take.
pub fn texel_size(format: u32) -> Option<u64> {
    Some(match format {
        glow::R8 | glow::R8I | glow::R8UI => 1,
        glow::R16 | glow::R16F | glow::R16I | glow::R16UI => 2,
        glow::RG8 | glow::RG8I | glow::RG8UI => 2,
        glow::R32F | glow::R32I | glow::R32UI => 4,
        glow::RG16 | glow::RG16F | glow::RG16I | glow::RG16UI => 4,
        glow::RGBA8 | glow::RGBA8I | glow::RGBA8UI => 4,
        glow::RG32F | glow::RG32I | glow::RG32UI => 8,
        glow::RGBA16 | glow::RGBA16F | glow::RGBA16I | glow::RGBA16UI => 8,
        glow::RGB32F | glow::RGB32I | glow::RGB32UI => 12,
        glow::RGBA32F | glow::RGBA32I | glow::RGBA32UI => 16,
        _ => return None,
    })
}

/// Bytes the attachment covers now: the range, or the buffer's size past
/// the offset for a whole-buffer attachment.
pub fn attached_bytes(gl: &Gl, a: &TexBufferAttachment) -> u64 {
    if a.buffer == 0 {
        return 0;
    }
    match a.size {
        Some(s) => s,
        None => match gl.sh.buffers.get(&a.buffer) {
            Some(Some(b)) => b.size.saturating_sub(a.offset),
            _ => 0,
        },
    }
}

/// GL_TEXTURE_WIDTH of a buffer texture: the texels the range holds,
/// at most GL_MAX_TEXTURE_BUFFER_SIZE.
pub fn texel_count(gl: &Gl, a: &TexBufferAttachment) -> u64 {
    let per = texel_size(a.internal_format).unwrap_or(1);
    (attached_bytes(gl, a) / per).min(MAX_TEXELS)
}

/// The attachment of the buffer texture bound on the active unit, for
/// glGet of TEXTURE_BUFFER_FORMAT_ARB / TEXTURE_BUFFER_DATA_STORE_BINDING.
pub(super) fn bound_attachment(gl: &Gl) -> TexBufferAttachment {
    let name = gl
        .st
        .bound_texture(gl.st.active_texture as usize, glow::TEXTURE_BUFFER);
    match gl.sh.textures.get(&name) {
        Some(Some(t)) => t.buffer.unwrap_or_default(),
        _ => TexBufferAttachment::default(),
    }
}

/// The shared body of the four entry points: attach `buffer` (or detach,
/// for 0) to texture object `tex` (already checked to be a buffer
/// texture). `range` is (offset, size) for the *Range forms.
fn attach(gl: &mut Gl, tex: u32, internal: u32, buffer: u32, range: Option<(isize, isize)>) {
    if texel_size(internal).is_none() {
        gl_err!(gl, glow::INVALID_ENUM);
    }
    let (handle, buf_size) = if buffer == 0 {
        (mgpipe::Handle::NULL, 0)
    } else {
        // A name glGenBuffers returned but never bound is no buffer
        // object yet: INVALID_OPERATION like a name never generated.
        match gl.sh.buffers.get(&buffer) {
            Some(Some(b)) => (b.handle, b.size),
            _ => gl_err!(gl, glow::INVALID_OPERATION),
        }
    };
    // GL 4.6 §8.9: with buffer 0 the range is ignored (and reset).
    let (offset, size) = match range {
        Some((o, s)) if buffer != 0 => {
            if o < 0 || s <= 0 {
                gl_err!(gl, glow::INVALID_VALUE);
            }
            let (o, s) = (o as u64, s as u64);
            if o.checked_add(s).is_none_or(|end| end > buf_size) {
                gl_err!(gl, glow::INVALID_VALUE);
            }
            if o % OFFSET_ALIGNMENT != 0 {
                gl_err!(gl, glow::INVALID_VALUE);
            }
            (o, Some(s))
        }
        Some(_) => (0, Some(0)),
        None => (0, None),
    };
    let a = TexBufferAttachment {
        buffer,
        internal_format: internal,
        offset,
        size: if buffer == 0 { Some(0) } else { size },
    };
    let Some(Some(t)) = gl.sh.textures.get_mut(&tex) else {
        gl_err!(gl, glow::INVALID_OPERATION);
    };
    t.buffer = Some(a);
    if !gl
        .conn
        .caps
        .implements(mgpipe::Opcode::TextureBuffer as u16)
    {
        // The state above stays queryable; draws sampling the texture
        // fail on such a backend (docs/ARCHITECTURE.md).
        tracing::error!(
            texture = tex,
            "glTexBuffer: this backend has no buffer textures, attachment not sent"
        );
        return;
    }
    let Some(res) = textures::ensure_created(gl, tex) else {
        return;
    };
    gl.conn.pipe.texture_buffer(&calls::TextureBuffer {
        res,
        buffer: handle,
        internal_format: internal,
        offset,
        size: size.unwrap_or(0),
        ..Default::default()
    });
}

/// The buffer texture bound to `target` on the active unit.
fn bound(gl: &mut Gl, target: u32) -> Option<u32> {
    if target != glow::TEXTURE_BUFFER {
        gl.st.set_error(glow::INVALID_ENUM);
        return None;
    }
    Some(textures::bound_texture_name(gl, target))
}

/// A texture name that must be an existing buffer texture (DSA forms).
fn named(gl: &mut Gl, texture: u32) -> Option<u32> {
    match gl.sh.textures.get(&texture) {
        Some(Some(t)) if t.target == glow::TEXTURE_BUFFER => Some(texture),
        _ => {
            gl.st.set_error(glow::INVALID_OPERATION);
            None
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glTexBuffer(target: u32, internal: u32, buffer: u32) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_RESOURCES, |gl| {
        if let Some(tex) = bound(gl, target) {
            attach(gl, tex, internal, buffer, None);
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glTexBufferRange(
    target: u32,
    internal: u32,
    buffer: u32,
    offset: isize,
    size: isize,
) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_RESOURCES, |gl| {
        if let Some(tex) = bound(gl, target) {
            attach(gl, tex, internal, buffer, Some((offset, size)));
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glTextureBuffer(texture: u32, internal: u32, buffer: u32) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_RESOURCES, |gl| {
        if let Some(tex) = named(gl, texture) {
            attach(gl, tex, internal, buffer, None);
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glTextureBufferRange(
    texture: u32,
    internal: u32,
    buffer: u32,
    offset: isize,
    size: isize,
) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_RESOURCES, |gl| {
        if let Some(tex) = named(gl, texture) {
            attach(gl, tex, internal, buffer, Some((offset, size)));
        }
    })
}

/// The level-0 image a buffer texture presents to level queries: its
/// attachment's format and texel count (None while nothing is attached).
pub(super) fn level_info(
    gl: &Gl,
    t: &crate::context::Texture,
) -> Option<crate::context::LevelInfo> {
    let a = t.buffer.filter(|a| a.buffer != 0)?;
    Some(crate::context::LevelInfo {
        width: texel_count(gl, &a) as u32,
        height: 1,
        depth: 1,
        internal_format: a.internal_format,
        requested: a.internal_format,
    })
}

/// glGetTexLevelParameter of a buffer texture (level 0 only; the caller
/// checked `level` >= 0). None: not a buffer-texture query, answer as for
/// other textures.
pub(super) fn level_param(gl: &mut Gl, tex: u32, level: i32, pname: u32) -> Option<Option<i32>> {
    let a = match gl.sh.textures.get(&tex) {
        Some(Some(t)) => t.buffer.unwrap_or_default(),
        _ => TexBufferAttachment::default(),
    };
    if level != 0 {
        // GL 4.6 §8.11.3: a buffer texture has level 0 only.
        gl.st.set_error(glow::INVALID_VALUE);
        return Some(None);
    }
    let v = match pname {
        glow::TEXTURE_BUFFER_DATA_STORE_BINDING => a.buffer as i64,
        glow::TEXTURE_BUFFER_OFFSET => a.offset as i64,
        glow::TEXTURE_BUFFER_SIZE => attached_bytes(gl, &a) as i64,
        glow::TEXTURE_WIDTH => texel_count(gl, &a) as i64,
        glow::TEXTURE_HEIGHT | glow::TEXTURE_DEPTH => 1,
        glow::TEXTURE_INTERNAL_FORMAT => a.internal_format as i64,
        _ => return None,
    };
    Some(Some(v.min(i32::MAX as i64) as i32))
}
