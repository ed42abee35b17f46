//! Framebuffer and renderbuffer objects, draw/read buffers, blits.

use mgpipe::calls;
use mgpipe::consts::*;
use mgpipe::Pipe;

use super::{gl_err, put, slice};
use crate::context::{
    with_gl_dirty, Attachment, Framebuffer, Gl, Renderbuffer, DIRTY_FRAMEBUFFER, MAX_DRAW_BUFFERS,
};

/// Bits of one component of an internal format (for *_SIZE queries).
pub fn component_bits(f: u32, pname: u32) -> u32 {
    let (r, g, b, a, d, s): (u32, u32, u32, u32, u32, u32) = match f {
        glow::RGBA8
        | glow::SRGB8_ALPHA8
        | glow::RGBA8_SNORM
        | glow::RGBA8I
        | glow::RGBA8UI
        | glow::RGBA => (8, 8, 8, 8, 0, 0),
        glow::RGB8 | glow::SRGB8 | glow::RGB8_SNORM | glow::RGB8I | glow::RGB8UI | glow::RGB => {
            (8, 8, 8, 0, 0, 0)
        }
        glow::RG8 | glow::RG8I | glow::RG8UI | glow::RG8_SNORM => (8, 8, 0, 0, 0, 0),
        glow::R8 | glow::R8I | glow::R8UI | glow::R8_SNORM => (8, 0, 0, 0, 0, 0),
        glow::RGBA16F | glow::RGBA16 | glow::RGBA16I | glow::RGBA16UI | glow::RGBA16_SNORM => {
            (16, 16, 16, 16, 0, 0)
        }
        glow::RGB16F | glow::RGB16 | glow::RGB16I | glow::RGB16UI | glow::RGB16_SNORM => {
            (16, 16, 16, 0, 0, 0)
        }
        glow::RG16F | glow::RG16 | glow::RG16I | glow::RG16UI | glow::RG16_SNORM => {
            (16, 16, 0, 0, 0, 0)
        }
        glow::R16F | glow::R16 | glow::R16I | glow::R16UI | glow::R16_SNORM => (16, 0, 0, 0, 0, 0),
        glow::RGB9_E5 => (9, 9, 9, 0, 0, 0),
        glow::RGBA32F | glow::RGBA32I | glow::RGBA32UI => (32, 32, 32, 32, 0, 0),
        glow::RGB32F | glow::RGB32I | glow::RGB32UI => (32, 32, 32, 0, 0, 0),
        glow::RG32F | glow::RG32I | glow::RG32UI => (32, 32, 0, 0, 0, 0),
        glow::R32F | glow::R32I | glow::R32UI => (32, 0, 0, 0, 0, 0),
        glow::RGB10_A2 | glow::RGB10_A2UI => (10, 10, 10, 2, 0, 0),
        glow::R11F_G11F_B10F => (11, 11, 10, 0, 0, 0),
        glow::RGB565 => (5, 6, 5, 0, 0, 0),
        glow::RGB5_A1 => (5, 5, 5, 1, 0, 0),
        glow::RGBA4 => (4, 4, 4, 4, 0, 0),
        // Desktop-only sized formats: the sizes asked for (the backends
        // store them in a larger format).
        glow::R3_G3_B2 => (3, 3, 2, 0, 0, 0),
        glow::RGB4 => (4, 4, 4, 0, 0, 0),
        glow::RGB5 => (5, 5, 5, 0, 0, 0),
        glow::RGB10 => (10, 10, 10, 0, 0, 0),
        glow::RGB12 => (12, 12, 12, 0, 0, 0),
        glow::RGBA2 => (2, 2, 2, 2, 0, 0),
        glow::RGBA12 => (12, 12, 12, 12, 0, 0),
        glow::DEPTH_COMPONENT16 => (0, 0, 0, 0, 16, 0),
        glow::DEPTH_COMPONENT24 => (0, 0, 0, 0, 24, 0),
        glow::DEPTH_COMPONENT32 | glow::DEPTH_COMPONENT32F => (0, 0, 0, 0, 32, 0),
        glow::DEPTH24_STENCIL8 => (0, 0, 0, 0, 24, 8),
        glow::DEPTH32F_STENCIL8 => (0, 0, 0, 0, 32, 8),
        glow::STENCIL_INDEX8 => (0, 0, 0, 0, 0, 8),
        _ => (0, 0, 0, 0, 0, 0),
    };
    match pname {
        glow::TEXTURE_RED_SIZE
        | glow::RENDERBUFFER_RED_SIZE
        | glow::FRAMEBUFFER_ATTACHMENT_RED_SIZE
        | glow::RED_BITS => r,
        glow::TEXTURE_GREEN_SIZE
        | glow::RENDERBUFFER_GREEN_SIZE
        | glow::FRAMEBUFFER_ATTACHMENT_GREEN_SIZE
        | glow::GREEN_BITS => g,
        glow::TEXTURE_BLUE_SIZE
        | glow::RENDERBUFFER_BLUE_SIZE
        | glow::FRAMEBUFFER_ATTACHMENT_BLUE_SIZE
        | glow::BLUE_BITS => b,
        glow::TEXTURE_ALPHA_SIZE
        | glow::RENDERBUFFER_ALPHA_SIZE
        | glow::FRAMEBUFFER_ATTACHMENT_ALPHA_SIZE
        | glow::ALPHA_BITS => a,
        glow::TEXTURE_DEPTH_SIZE
        | glow::RENDERBUFFER_DEPTH_SIZE
        | glow::FRAMEBUFFER_ATTACHMENT_DEPTH_SIZE
        | glow::DEPTH_BITS => d,
        glow::TEXTURE_STENCIL_SIZE
        | glow::RENDERBUFFER_STENCIL_SIZE
        | glow::FRAMEBUFFER_ATTACHMENT_STENCIL_SIZE
        | glow::STENCIL_BITS => s,
        _ => 0,
    }
}

// ------------------------------------------------------------------ renderbuffers

#[no_mangle]
pub unsafe extern "C" fn glGenRenderbuffers(n: i32, out: *mut u32) {
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        if n < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        for i in 0..n as usize {
            let name = loop {
                let c = gl.sh.new_name();
                if !gl.sh.renderbuffers.contains_key(&c) {
                    break c;
                }
            };
            gl.sh.renderbuffers.insert(name, None);
            // SAFETY: GL promises `n` writable names.
            unsafe { put(out.add(i), name) };
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glDeleteRenderbuffers(n: i32, names: *const u32) {
    // SAFETY: GL promises `n` names.
    let names = unsafe { slice(names, n) }.to_vec();
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        if n < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        for name in names {
            if name == 0 {
                continue;
            }
            let Some(entry) = gl.sh.renderbuffers.remove(&name) else {
                continue;
            };
            if gl.st.renderbuffer == name {
                gl.st.renderbuffer = 0;
            }
            detach_everywhere(gl, SURFACE_RENDERBUFFER, name);
            if let Some(rb) = entry {
                if rb.created {
                    gl.conn
                        .pipe
                        .resource_destroy(&calls::ResourceDestroy { res: rb.handle });
                }
                gl.conn.alloc.resource.free(rb.handle);
            }
        }
    })
}

/// GL: deleting an object detaches it from the bound framebuffers.
pub(crate) fn detach_everywhere(gl: &mut Gl, kind: u32, name: u32) {
    for fbo in [gl.st.draw_fbo, gl.st.read_fbo] {
        if let Some(Some(fb)) = gl.st.fbos.get_mut(&fbo) {
            for a in fb.color.iter_mut().chain([&mut fb.depth, &mut fb.stencil]) {
                if a.kind == kind && a.name == name {
                    *a = Attachment::default();
                }
            }
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glIsRenderbuffer(name: u32) -> u8 {
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        matches!(gl.sh.renderbuffers.get(&name), Some(Some(_))) as u8
    })
}

#[no_mangle]
pub unsafe extern "C" fn glBindRenderbuffer(target: u32, name: u32) {
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        bind_renderbuffer(gl, target, name, false)
    })
}

/// GL_EXT_framebuffer_object's bind: a name no glGen* returned is taken
/// (created on first bind) instead of refused.
// Not exported: extension commands resolve through GetProcAddress only.
pub unsafe extern "C" fn glBindRenderbufferEXT(target: u32, name: u32) {
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        bind_renderbuffer(gl, target, name, true)
    })
}

fn bind_renderbuffer(gl: &mut Gl, target: u32, name: u32, user_names: bool) {
    {
        if target != glow::RENDERBUFFER {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        if name != 0 {
            match gl.sh.renderbuffers.get(&name) {
                None if !user_names => gl_err!(gl, glow::INVALID_OPERATION),
                None | Some(None) => {
                    let handle = gl.conn.alloc.resource.alloc();
                    gl.sh.renderbuffers.insert(
                        name,
                        Some(Renderbuffer {
                            handle,
                            width: 0,
                            height: 0,
                            internal_format: glow::RGBA4,
                            requested: glow::RGBA4,
                            samples: 0,
                            created: false,
                        }),
                    );
                }
                Some(Some(_)) => {}
            }
        }
        gl.st.renderbuffer = name;
    }
}

/// The sized format an unsized renderbuffer format allocates (GL 3.3 core
/// §4.4.4: the base formats RED, RG, RGB, RGBA, DEPTH_COMPONENT,
/// DEPTH_STENCIL and STENCIL_INDEX are renderable too).
pub(crate) fn sized_renderbuffer_format(internal: u32) -> u32 {
    match internal {
        glow::RED => glow::R8,
        glow::RG => glow::RG8,
        glow::RGB => glow::RGB8,
        glow::RGBA => glow::RGBA8,
        glow::DEPTH_COMPONENT => glow::DEPTH_COMPONENT24,
        glow::DEPTH_STENCIL => glow::DEPTH24_STENCIL8,
        // GL 4.6 §9.4 lists 1-, 4- and 16-bit stencil formats among the
        // required renderbuffer formats; every backend has 8 bits, which
        // holds the 1- and 4-bit ranges exactly (16 is the closest it has).
        glow::STENCIL_INDEX
        | glow::STENCIL_INDEX1
        | glow::STENCIL_INDEX4
        | glow::STENCIL_INDEX16 => glow::STENCIL_INDEX8,
        f => f,
    }
}

pub(super) fn renderbuffer_storage(
    gl: &mut Gl,
    samples: i32,
    internal: u32,
    width: i32,
    height: i32,
) {
    let requested = internal;
    // Compatibility profile (GL 4.6 compatibility §9.4, table 8.12): the
    // ALPHA, LUMINANCE, LUMINANCE_ALPHA and INTENSITY families are
    // colour-renderable, stored as textures of them are (`legacy_formats`);
    // not the sRGB luminance ones, nor GL 1.0's component counts.
    let legacy = (!gl.st.is_core() && internal > 2)
        .then(|| super::legacy_formats::legacy_format(internal))
        .flatten()
        .filter(|l| l.storage != glow::SRGB8_ALPHA8);
    let internal = match legacy {
        Some(l) => l.storage,
        None => sized_renderbuffer_format(internal),
    };
    if !super::textures::valid_internal_format(internal) {
        gl_err!(gl, glow::INVALID_ENUM);
    }
    let max = gl.conn.caps.max_renderbuffer_size as i32;
    if width < 0 || height < 0 || width > max || height > max || samples < 0 {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    if samples > gl.conn.caps.max_samples as i32 {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    let name = gl.st.renderbuffer;
    let Some(Some(rb)) = gl.sh.renderbuffers.get_mut(&name) else {
        gl_err!(gl, glow::INVALID_OPERATION)
    };
    // Re-storage gets a fresh identity: the old contents are gone anyway.
    if rb.created {
        let old = rb.handle;
        gl.conn
            .pipe
            .resource_destroy(&calls::ResourceDestroy { res: old });
        gl.conn.alloc.resource.free(old);
        rb.handle = gl.conn.alloc.resource.alloc();
    }
    rb.width = width as u32;
    rb.height = height as u32;
    rb.internal_format = internal;
    rb.requested = requested;
    let samples = super::multisample::supported_samples(&gl.conn.caps, samples as u32);
    rb.samples = samples;
    rb.created = true;
    let p = calls::ResourceCreate {
        res: rb.handle,
        kind: RESOURCE_RENDERBUFFER,
        internal_format: internal,
        width: width as u32,
        height: height as u32,
        depth: 1,
        levels: 1,
        samples,
        gl_name: name,
        ..Default::default()
    };
    gl.conn.pipe.resource_create(&p, &[]);
}

#[no_mangle]
pub unsafe extern "C" fn glRenderbufferStorage(
    target: u32,
    internal: u32,
    width: i32,
    height: i32,
) {
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        if target != glow::RENDERBUFFER {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        renderbuffer_storage(gl, 0, internal, width, height)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glRenderbufferStorageMultisample(
    target: u32,
    samples: i32,
    internal: u32,
    width: i32,
    height: i32,
) {
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        if target != glow::RENDERBUFFER {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        renderbuffer_storage(gl, samples, internal, width, height)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glGetRenderbufferParameteriv(target: u32, pname: u32, out: *mut i32) {
    let v = with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        if target != glow::RENDERBUFFER {
            gl.st.set_error(glow::INVALID_ENUM);
            return None;
        }
        renderbuffer_param(gl, gl.st.renderbuffer, pname)
    });
    if let Some(v) = v {
        // SAFETY: GL promises one writable value.
        unsafe { put(out, v) };
    }
}

/// glGetRenderbufferParameteriv of renderbuffer `name`.
pub(super) fn renderbuffer_param(gl: &mut Gl, name: u32, pname: u32) -> Option<i32> {
    {
        let Some(Some(rb)) = gl.sh.renderbuffers.get(&name) else {
            gl.st.set_error(glow::INVALID_OPERATION);
            return None;
        };
        Some(match pname {
            glow::RENDERBUFFER_WIDTH => rb.width as i32,
            glow::RENDERBUFFER_HEIGHT => rb.height as i32,
            glow::RENDERBUFFER_INTERNAL_FORMAT => rb.requested as i32,
            glow::RENDERBUFFER_SAMPLES => rb.samples as i32,
            glow::RENDERBUFFER_RED_SIZE
            | glow::RENDERBUFFER_GREEN_SIZE
            | glow::RENDERBUFFER_BLUE_SIZE
            | glow::RENDERBUFFER_ALPHA_SIZE
            | glow::RENDERBUFFER_DEPTH_SIZE
            | glow::RENDERBUFFER_STENCIL_SIZE => {
                if rb.created {
                    component_bits(rb.internal_format, pname) as i32
                } else {
                    0
                }
            }
            _ => {
                gl.st.set_error(glow::INVALID_ENUM);
                return None;
            }
        })
    }
}

// ------------------------------------------------------------------ framebuffers

#[no_mangle]
pub unsafe extern "C" fn glGenFramebuffers(n: i32, out: *mut u32) {
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        if n < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        for i in 0..n as usize {
            let name = loop {
                let c = gl.st.new_name();
                if !gl.st.fbos.contains_key(&c) {
                    break c;
                }
            };
            gl.st.fbos.insert(name, None);
            // SAFETY: GL promises `n` writable names.
            unsafe { put(out.add(i), name) };
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glDeleteFramebuffers(n: i32, names: *const u32) {
    // SAFETY: GL promises `n` names.
    let names = unsafe { slice(names, n) }.to_vec();
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        if n < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        for name in names {
            if name == 0 {
                continue;
            }
            let Some(entry) = gl.st.fbos.remove(&name) else {
                continue;
            };
            if gl.st.draw_fbo == name {
                gl.st.draw_fbo = 0;
            }
            if gl.st.read_fbo == name {
                gl.st.read_fbo = 0;
            }
            if let Some(fb) = entry {
                gl.conn.alloc.framebuffer.free(fb.handle);
            }
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glIsFramebuffer(name: u32) -> u8 {
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        matches!(gl.st.fbos.get(&name), Some(Some(_))) as u8
    })
}

#[no_mangle]
pub unsafe extern "C" fn glBindFramebuffer(target: u32, name: u32) {
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        bind_framebuffer(gl, target, name, false)
    })
}

/// GL_EXT_framebuffer_object's bind (see `glBindRenderbufferEXT`).
// Not exported: extension commands resolve through GetProcAddress only.
pub unsafe extern "C" fn glBindFramebufferEXT(target: u32, name: u32) {
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        bind_framebuffer(gl, target, name, true)
    })
}

fn bind_framebuffer(gl: &mut Gl, target: u32, name: u32, user_names: bool) {
    {
        if !matches!(
            target,
            glow::FRAMEBUFFER | glow::DRAW_FRAMEBUFFER | glow::READ_FRAMEBUFFER
        ) {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        if name != 0 {
            match gl.st.fbos.get(&name) {
                None if !user_names => gl_err!(gl, glow::INVALID_OPERATION),
                None | Some(None) => {
                    let handle = gl.conn.alloc.framebuffer.alloc();
                    gl.st.fbos.insert(name, Some(Framebuffer::new(handle)));
                }
                Some(Some(_)) => {}
            }
        }
        if target != glow::READ_FRAMEBUFFER {
            gl.st.draw_fbo = name;
        }
        if target != glow::DRAW_FRAMEBUFFER {
            gl.st.read_fbo = name;
        }
    }
}

/// The framebuffer bound to `target`, or the GL error.
fn target_fbo(gl: &Gl, target: u32) -> Result<u32, u32> {
    match target {
        glow::FRAMEBUFFER | glow::DRAW_FRAMEBUFFER => Ok(gl.st.draw_fbo),
        glow::READ_FRAMEBUFFER => Ok(gl.st.read_fbo),
        _ => Err(glow::INVALID_ENUM),
    }
}

/// Which attachment slots an attachment enum names.
enum Slot {
    Color(usize),
    Depth,
    Stencil,
    DepthStencil,
}

fn attachment_slot(a: u32) -> Option<Slot> {
    match a {
        glow::DEPTH_ATTACHMENT => Some(Slot::Depth),
        glow::STENCIL_ATTACHMENT => Some(Slot::Stencil),
        glow::DEPTH_STENCIL_ATTACHMENT => Some(Slot::DepthStencil),
        _ => {
            let i = a.wrapping_sub(glow::COLOR_ATTACHMENT0) as usize;
            if i < MAX_DRAW_BUFFERS {
                Some(Slot::Color(i))
            } else {
                None
            }
        }
    }
}

pub(super) fn attach(gl: &mut Gl, target: u32, attachment: u32, att: Attachment) {
    let fbo = match target_fbo(gl, target) {
        Ok(f) => f,
        Err(e) => gl_err!(gl, e),
    };
    if fbo == 0 {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    let Some(slot) = attachment_slot(attachment) else {
        let i = attachment.wrapping_sub(glow::COLOR_ATTACHMENT0);
        gl_err!(
            gl,
            if i < 32 {
                glow::INVALID_OPERATION
            } else {
                glow::INVALID_ENUM
            }
        )
    };
    let Some(Some(fb)) = gl.st.fbos.get_mut(&fbo) else {
        gl_err!(gl, glow::INVALID_OPERATION)
    };
    match slot {
        Slot::Color(i) => fb.color[i] = att,
        Slot::Depth => fb.depth = att,
        Slot::Stencil => fb.stencil = att,
        Slot::DepthStencil => {
            fb.depth = att;
            fb.stencil = att;
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glFramebufferRenderbuffer(
    target: u32,
    attachment: u32,
    rb_target: u32,
    rb: u32,
) {
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
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
                kind: SURFACE_RENDERBUFFER,
                name: rb,
                ..Default::default()
            }
        };
        attach(gl, target, attachment, att)
    })
}

#[allow(clippy::too_many_arguments)]
pub(super) fn texture_attachment(
    gl: &mut Gl,
    target: u32,
    attachment: u32,
    textarget: Option<u32>,
    tex: u32,
    level: i32,
    layer: i32,
    one_layer: bool,
) {
    if tex == 0 {
        return attach(gl, target, attachment, Attachment::default());
    }
    let Some(Some(t)) = gl.sh.textures.get(&tex) else {
        gl_err!(gl, glow::INVALID_OPERATION)
    };
    // GL 4.6 §9.2.8: a buffer texture has no image to attach.
    if t.target == glow::TEXTURE_BUFFER {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    if level < 0 || layer < 0 {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    let mut cube_face = 0;
    if let Some(tt) = textarget {
        let is_face =
            (glow::TEXTURE_CUBE_MAP_POSITIVE_X..=glow::TEXTURE_CUBE_MAP_NEGATIVE_Z).contains(&tt);
        let expected = if is_face { glow::TEXTURE_CUBE_MAP } else { tt };
        if !matches!(
            tt,
            glow::TEXTURE_1D
                | glow::TEXTURE_2D
                | glow::TEXTURE_RECTANGLE
                | glow::TEXTURE_2D_MULTISAMPLE
                | glow::TEXTURE_3D
        ) && !is_face
        {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        if t.target != expected {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        // A multisample image has level 0 only (GL 4.6 §9.2.8).
        if tt == glow::TEXTURE_2D_MULTISAMPLE && level != 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        if is_face {
            cube_face = tt - glow::TEXTURE_CUBE_MAP_POSITIVE_X;
        }
    }
    let layered = textarget.is_none()
        && !one_layer
        && matches!(
            t.target,
            glow::TEXTURE_3D
                | glow::TEXTURE_2D_ARRAY
                | glow::TEXTURE_1D_ARRAY
                | glow::TEXTURE_CUBE_MAP
                | glow::TEXTURE_CUBE_MAP_ARRAY
                | glow::TEXTURE_2D_MULTISAMPLE_ARRAY
        );
    attach(
        gl,
        target,
        attachment,
        Attachment {
            kind: SURFACE_TEXTURE,
            name: tex,
            level: level as u32,
            layer: layer as u32,
            layered,
            cube_face,
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn glFramebufferTexture2D(
    target: u32,
    attachment: u32,
    textarget: u32,
    tex: u32,
    level: i32,
) {
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        texture_attachment(
            gl,
            target,
            attachment,
            Some(textarget),
            tex,
            level,
            0,
            false,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn glFramebufferTexture1D(
    target: u32,
    attachment: u32,
    textarget: u32,
    tex: u32,
    level: i32,
) {
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        texture_attachment(
            gl,
            target,
            attachment,
            Some(textarget),
            tex,
            level,
            0,
            false,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn glFramebufferTexture3D(
    target: u32,
    attachment: u32,
    textarget: u32,
    tex: u32,
    level: i32,
    layer: i32,
) {
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        texture_attachment(
            gl,
            target,
            attachment,
            Some(textarget),
            tex,
            level,
            layer,
            false,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn glFramebufferTextureLayer(
    target: u32,
    attachment: u32,
    tex: u32,
    level: i32,
    layer: i32,
) {
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        texture_attachment(gl, target, attachment, None, tex, level, layer, true)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glFramebufferTexture(target: u32, attachment: u32, tex: u32, level: i32) {
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        texture_attachment(gl, target, attachment, None, tex, level, 0, false)
    })
}

/// The layer rules of framebuffer completeness (GL 3.3 core §4.4.4): a
/// single-layer attachment must name an existing layer or slice
/// (`INCOMPLETE_ATTACHMENT`), and when any attachment is layered all of them
/// must be, with color attachments of one texture target
/// (`INCOMPLETE_LAYER_TARGETS`). `None` when these rules hold.
pub(crate) fn layer_status(gl: &Gl, name: u32) -> Option<u32> {
    let Some(Some(fb)) = gl.st.fbos.get(&name) else {
        return None;
    };
    let mut any_layered = false;
    let mut any_single = false;
    let mut color_target: Option<u32> = None;
    let roles = fb
        .color
        .iter()
        .map(|a| (a, true))
        .chain([(&fb.depth, false), (&fb.stencil, false)]);
    for (a, is_color) in roles {
        match a.kind {
            SURFACE_NONE => continue,
            SURFACE_TEXTURE => {
                let Some(Some(t)) = gl.sh.textures.get(&a.name) else {
                    continue;
                };
                if a.layered {
                    any_layered = true;
                } else {
                    any_single = true;
                    let face = if t.target == glow::TEXTURE_CUBE_MAP {
                        a.cube_face as usize
                    } else {
                        0
                    };
                    if let Some(info) = t.level(face, a.level as usize) {
                        let layers = match t.target {
                            // A cube map array's depth counts layer-faces,
                            // as its attachment layer does.
                            glow::TEXTURE_3D
                            | glow::TEXTURE_2D_ARRAY
                            | glow::TEXTURE_CUBE_MAP_ARRAY
                            | glow::TEXTURE_2D_MULTISAMPLE_ARRAY => Some(info.depth),
                            glow::TEXTURE_1D_ARRAY => Some(info.height),
                            _ => None,
                        };
                        if layers.is_some_and(|n| a.layer >= n) {
                            return Some(glow::FRAMEBUFFER_INCOMPLETE_ATTACHMENT);
                        }
                    }
                }
                if is_color && a.layered {
                    match color_target {
                        Some(ct) if ct != t.target => {
                            return Some(glow::FRAMEBUFFER_INCOMPLETE_LAYER_TARGETS)
                        }
                        _ => color_target = Some(t.target),
                    }
                }
            }
            _ => any_single = true,
        }
    }
    (any_layered && any_single).then_some(glow::FRAMEBUFFER_INCOMPLETE_LAYER_TARGETS)
}

#[no_mangle]
pub unsafe extern "C" fn glCheckFramebufferStatus(target: u32) -> u32 {
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| match target_fbo(gl, target) {
        Ok(f) => match gl.framebuffer_status(f) {
            glow::FRAMEBUFFER_COMPLETE => layer_status(gl, f).unwrap_or(glow::FRAMEBUFFER_COMPLETE),
            status => status,
        },
        Err(e) => {
            gl.st.set_error(e);
            0
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glGetFramebufferAttachmentParameteriv(
    target: u32,
    attachment: u32,
    pname: u32,
    out: *mut i32,
) {
    let v = with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| {
        attachment_param(gl, target, attachment, pname)
    });
    if let Some(v) = v {
        // SAFETY: GL promises one writable value.
        unsafe { put(out, v) };
    }
}

/// glGetFramebufferAttachmentParameteriv of the framebuffer bound to `target`.
pub(super) fn attachment_param(
    gl: &mut Gl,
    target: u32,
    attachment: u32,
    pname: u32,
) -> Option<i32> {
    {
        let fbo = match target_fbo(gl, target) {
            Ok(f) => f,
            Err(e) => {
                gl.st.set_error(e);
                return None;
            }
        };
        if fbo == 0 {
            // Default framebuffer attachments.
            let (color, depth) = match gl.st.draw_surface.as_ref() {
                Some(s) => (s.desc.color_format, s.desc.depth_stencil_format),
                None => (0, 0),
            };
            let f = match attachment {
                glow::FRONT_LEFT | glow::BACK_LEFT | glow::FRONT | glow::BACK | glow::LEFT => color,
                glow::DEPTH | glow::STENCIL => depth,
                _ => {
                    gl.st.set_error(glow::INVALID_ENUM);
                    return None;
                }
            };
            return Some(match pname {
                glow::FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE => {
                    if f != 0 {
                        glow::FRAMEBUFFER_DEFAULT as i32
                    } else {
                        glow::NONE as i32
                    }
                }
                glow::FRAMEBUFFER_ATTACHMENT_COMPONENT_TYPE => glow::UNSIGNED_NORMALIZED as i32,
                glow::FRAMEBUFFER_ATTACHMENT_COLOR_ENCODING => glow::LINEAR as i32,
                _ => component_bits(f, pname) as i32,
            });
        }
        let Some(slot) = attachment_slot(attachment) else {
            gl.st.set_error(glow::INVALID_ENUM);
            return None;
        };
        let Some(Some(fb)) = gl.st.fbos.get(&fbo) else {
            return None;
        };
        let a = match slot {
            Slot::Color(i) => fb.color[i],
            Slot::Depth => fb.depth,
            Slot::Stencil => fb.stencil,
            Slot::DepthStencil => {
                if fb.depth != fb.stencil {
                    gl.st.set_error(glow::INVALID_OPERATION);
                    return None;
                }
                fb.depth
            }
        };
        let resolved = gl.resolve_attachment(&a);
        Some(match pname {
            glow::FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE => match a.kind {
                SURFACE_TEXTURE => glow::TEXTURE as i32,
                SURFACE_RENDERBUFFER => glow::RENDERBUFFER as i32,
                _ => glow::NONE as i32,
            },
            glow::FRAMEBUFFER_ATTACHMENT_OBJECT_NAME => {
                if a.kind == SURFACE_NONE {
                    0
                } else {
                    a.name as i32
                }
            }
            _ if a.kind == SURFACE_NONE => {
                gl.st.set_error(glow::INVALID_OPERATION);
                return None;
            }
            glow::FRAMEBUFFER_ATTACHMENT_TEXTURE_LEVEL => a.level as i32,
            glow::FRAMEBUFFER_ATTACHMENT_TEXTURE_LAYER => a.layer as i32,
            glow::FRAMEBUFFER_ATTACHMENT_TEXTURE_CUBE_MAP_FACE => {
                if a.kind == SURFACE_TEXTURE
                    && matches!(gl.sh.textures.get(&a.name), Some(Some(t)) if t.target == glow::TEXTURE_CUBE_MAP)
                {
                    (glow::TEXTURE_CUBE_MAP_POSITIVE_X + a.cube_face) as i32
                } else {
                    0
                }
            }
            glow::FRAMEBUFFER_ATTACHMENT_LAYERED => a.layered as i32,
            glow::FRAMEBUFFER_ATTACHMENT_COMPONENT_TYPE => {
                let f = resolved.map(|r| r.format).unwrap_or(0);
                if super::validate::has_depth(f) || super::validate::has_stencil(f) {
                    glow::UNSIGNED_NORMALIZED as i32
                } else {
                    format_component_type(f) as i32
                }
            }
            glow::FRAMEBUFFER_ATTACHMENT_COLOR_ENCODING => {
                let f = resolved.map(|r| r.format).unwrap_or(0);
                if matches!(f, glow::SRGB8 | glow::SRGB8_ALPHA8) {
                    glow::SRGB as i32
                } else {
                    glow::LINEAR as i32
                }
            }
            p if (glow::FRAMEBUFFER_ATTACHMENT_RED_SIZE
                ..=glow::FRAMEBUFFER_ATTACHMENT_STENCIL_SIZE)
                .contains(&p) =>
            {
                component_bits(resolved.map(|r| r.format).unwrap_or(0), p) as i32
            }
            _ => {
                gl.st.set_error(glow::INVALID_ENUM);
                return None;
            }
        })
    }
}

/// Whether a draw buffer of the draw framebuffer is an integer colour
/// buffer (EXT_texture_integer's RGBA_INTEGER_MODE_EXT).
pub(super) fn draws_integer(gl: &Gl) -> bool {
    let Some(Some(fb)) = gl.st.fbos.get(&gl.st.draw_fbo) else {
        return false;
    };
    fb.draw_buffers.iter().any(|&b| {
        let i = b.wrapping_sub(glow::COLOR_ATTACHMENT0) as usize;
        i < MAX_DRAW_BUFFERS
            && gl.resolve_attachment(&fb.color[i]).is_some_and(|r| {
                matches!(
                    format_component_type(r.format),
                    glow::INT | glow::UNSIGNED_INT
                )
            })
    })
}

/// GL_FRAMEBUFFER_ATTACHMENT_COMPONENT_TYPE of a colour format.
pub fn format_component_type(f: u32) -> u32 {
    match f {
        glow::R8I
        | glow::R16I
        | glow::R32I
        | glow::RG8I
        | glow::RG16I
        | glow::RG32I
        | glow::RGB8I
        | glow::RGB16I
        | glow::RGB32I
        | glow::RGBA8I
        | glow::RGBA16I
        | glow::RGBA32I => glow::INT,
        glow::R8UI
        | glow::R16UI
        | glow::R32UI
        | glow::RG8UI
        | glow::RG16UI
        | glow::RG32UI
        | glow::RGB8UI
        | glow::RGB16UI
        | glow::RGB32UI
        | glow::RGBA8UI
        | glow::RGBA16UI
        | glow::RGBA32UI
        | glow::RGB10_A2UI => glow::UNSIGNED_INT,
        glow::R16F
        | glow::RG16F
        | glow::RGB16F
        | glow::RGBA16F
        | glow::R32F
        | glow::RG32F
        | glow::RGB32F
        | glow::RGBA32F
        | glow::R11F_G11F_B10F
        | glow::RGB9_E5 => glow::FLOAT,
        glow::R8_SNORM
        | glow::RG8_SNORM
        | glow::RGB8_SNORM
        | glow::RGBA8_SNORM
        | glow::R16_SNORM
        | glow::RG16_SNORM
        | glow::RGB16_SNORM
        | glow::RGBA16_SNORM => glow::SIGNED_NORMALIZED,
        _ => glow::UNSIGNED_NORMALIZED,
    }
}

#[no_mangle]
pub unsafe extern "C" fn glDrawBuffers(n: i32, bufs: *const u32) {
    // SAFETY: GL promises `n` values.
    let bufs = unsafe { slice(bufs, n) }.to_vec();
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| set_draw_buffers(gl, n, &bufs))
}

/// glDrawBuffers on the draw framebuffer.
pub(super) fn set_draw_buffers(gl: &mut Gl, n: i32, bufs: &[u32]) {
    {
        if n < 0 || n as usize > MAX_DRAW_BUFFERS {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        // FRONT, LEFT, RIGHT and FRONT_AND_BACK name several buffers: not
        // allowed in glDrawBuffers on any framebuffer (GL 4.6 §17.4.1).
        if bufs.iter().any(|b| {
            matches!(
                *b,
                glow::FRONT | glow::LEFT | glow::RIGHT | glow::FRONT_AND_BACK
            )
        }) {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        let fbo = gl.st.draw_fbo;
        // BACK is valid on the default framebuffer, as the only buffer,
        // from GL 4.x on (GL 3.x §4.2.1 lists it with the names of several
        // buffers: INVALID_ENUM).
        if bufs.contains(&glow::BACK) && (fbo != 0 || gl.st.version < (4, 0)) {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        let default_names = |b: u32| {
            matches!(
                b,
                glow::FRONT_LEFT
                    | glow::FRONT_RIGHT
                    | glow::BACK_LEFT
                    | glow::BACK_RIGHT
                    | glow::BACK
            )
        };
        if fbo == 0 {
            if bufs.iter().any(|b| *b != glow::NONE && !default_names(*b)) {
                gl_err!(
                    gl,
                    if bufs
                        .iter()
                        .any(|b| b.wrapping_sub(glow::COLOR_ATTACHMENT0) < 32)
                    {
                        glow::INVALID_OPERATION
                    } else {
                        glow::INVALID_ENUM
                    }
                );
            }
            if n != 1 {
                gl_err!(gl, glow::INVALID_OPERATION);
            }
            gl.st.default_draw_buffer = bufs[0];
            return;
        }
        let mut seen = 0u32;
        for &b in bufs.iter() {
            if b == glow::NONE {
                continue;
            }
            if default_names(b) {
                gl_err!(gl, glow::INVALID_OPERATION);
            }
            let idx = b.wrapping_sub(glow::COLOR_ATTACHMENT0);
            if idx >= 32 {
                gl_err!(gl, glow::INVALID_ENUM);
            }
            if idx as usize >= MAX_DRAW_BUFFERS {
                gl_err!(gl, glow::INVALID_OPERATION);
            }
            if seen & (1 << idx) != 0 {
                gl_err!(gl, glow::INVALID_OPERATION);
            }
            seen |= 1 << idx;
        }
        if let Some(Some(fb)) = gl.st.fbos.get_mut(&fbo) {
            fb.draw_buffers = [glow::NONE; MAX_DRAW_BUFFERS];
            for (i, &b) in bufs.iter().enumerate() {
                fb.draw_buffers[i] = b;
            }
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glDrawBuffer(buf: u32) {
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| set_draw_buffer(gl, buf))
}

/// glDrawBuffer on the draw framebuffer.
pub(super) fn set_draw_buffer(gl: &mut Gl, buf: u32) {
    {
        let fbo = gl.st.draw_fbo;
        if fbo == 0 {
            if !matches!(
                buf,
                glow::NONE
                    | glow::BACK
                    | glow::BACK_LEFT
                    | glow::FRONT
                    | glow::FRONT_LEFT
                    | glow::FRONT_AND_BACK
                    | glow::LEFT
            ) {
                gl_err!(gl, glow::INVALID_ENUM);
            }
            gl.st.default_draw_buffer = buf;
            return;
        }
        let idx = buf.wrapping_sub(glow::COLOR_ATTACHMENT0);
        if buf != glow::NONE && idx as usize >= MAX_DRAW_BUFFERS {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        if let Some(Some(fb)) = gl.st.fbos.get_mut(&fbo) {
            fb.draw_buffers = [glow::NONE; MAX_DRAW_BUFFERS];
            fb.draw_buffers[0] = buf;
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glReadBuffer(buf: u32) {
    with_gl_dirty(DIRTY_FRAMEBUFFER, |gl| set_read_buffer(gl, buf))
}

/// glReadBuffer on the read framebuffer.
/// The default-framebuffer buffer names of GL 4.6 table 17.4 (NONE
/// excepted).
fn names_default_buffer(buf: u32) -> bool {
    matches!(
        buf,
        glow::FRONT_LEFT
            | glow::FRONT_RIGHT
            | glow::BACK_LEFT
            | glow::BACK_RIGHT
            | glow::FRONT
            | glow::BACK
            | glow::LEFT
            | glow::RIGHT
            | glow::FRONT_AND_BACK
    )
}

pub(super) fn set_read_buffer(gl: &mut Gl, buf: u32) {
    {
        let fbo = gl.st.read_fbo;
        let attachment = buf.wrapping_sub(glow::COLOR_ATTACHMENT0);
        if fbo == 0 {
            if !matches!(
                buf,
                glow::NONE
                    | glow::BACK
                    | glow::BACK_LEFT
                    | glow::FRONT
                    | glow::FRONT_LEFT
                    | glow::LEFT
            ) {
                // A valid name of a buffer this (mono, no aux) default
                // framebuffer lacks, or an attachment point: INVALID_OPERATION.
                gl_err!(
                    gl,
                    if attachment < 32 || names_default_buffer(buf) {
                        glow::INVALID_OPERATION
                    } else {
                        glow::INVALID_ENUM
                    }
                );
            }
            gl.st.default_read_buffer = buf;
            return;
        }
        // GL 4.6 §18.2.1: on a framebuffer object, a table 17.4 name or an
        // attachment point past MAX_COLOR_ATTACHMENTS is INVALID_OPERATION;
        // anything else INVALID_ENUM.
        if buf != glow::NONE && attachment as usize >= MAX_DRAW_BUFFERS {
            gl_err!(
                gl,
                if names_default_buffer(buf) || attachment < 32 {
                    glow::INVALID_OPERATION
                } else {
                    glow::INVALID_ENUM
                }
            );
        }
        if let Some(Some(fb)) = gl.st.fbos.get_mut(&fbo) {
            fb.read_buffer = buf;
        }
    }
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn glBlitFramebuffer(
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
        blit(gl, [sx0, sy0, sx1, sy1], [dx0, dy0, dx1, dy1], mask, filter)
    })
}

/// glBlitFramebuffer from the read to the draw framebuffer.
pub(super) fn blit(gl: &mut Gl, src: [i32; 4], dst: [i32; 4], mask: u32, filter: u32) {
    {
        if mask & !(glow::COLOR_BUFFER_BIT | glow::DEPTH_BUFFER_BIT | glow::STENCIL_BUFFER_BIT) != 0
        {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        if filter != glow::NEAREST && filter != glow::LINEAR {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        if filter == glow::LINEAR && mask & (glow::DEPTH_BUFFER_BIT | glow::STENCIL_BUFFER_BIT) != 0
        {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        if let Err(e) = gl.emit_read_surface() {
            gl_err!(gl, e);
        }
        if let Err(e) = gl.emit_framebuffer() {
            gl_err!(gl, e);
        }
        gl.emit_render_state();
        gl.emit_dynamic();
        gl.conn.pipe.blit(&calls::Blit {
            src,
            dst,
            mask,
            filter,
        });
    }
}
