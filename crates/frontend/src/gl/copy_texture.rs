//! `glCopyTexSubImage2D` / `glCopyTexSubImage3D` (GL 4.6 §8.6): a
//! rectangle of the read framebuffer copied into a defined texture level.
//!
//! The copy is a `blit` record from the read surface into a framebuffer of
//! this context's own (`GlState::copy_fbo`) whose only attachment is the
//! texture level (or one layer, face or 3D slice of it), with the scissor
//! test off for the blit (copies ignore it); the application's framebuffer
//! and render state are sent again at the next call that uses them.
//! `TEXTURE_1D_ARRAY` copies one source row into each destination layer.
//! `glCopyTexImage2D` (re)specifies the level as `glTexImage2D` with no
//! data, then copies into all of it.
//! 1D textures copy one row into a level of height 1 (`glCopyTexImage1D`,
//! `glCopyTexSubImage1D`, `glCopyTextureSubImage1D`).

use mgpipe::calls;
use mgpipe::consts::*;
use mgpipe::Pipe;
use xxhash_rust::xxh3::xxh3_64;

use super::framebuffers::format_component_type;
use super::gl_err;
use super::pixels::{read_framebuffer, source_error};
use super::textures::{bound_texture_name, face_index, valid_image_target};
use super::validate::{has_depth, has_stencil};
use crate::context::{
    with_gl_dirty, Gl, DIRTY_FRAMEBUFFER, DIRTY_PROGRAM, DIRTY_RENDER_STATE, DIRTY_RESOURCES,
};

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn glCopyTexSubImage2D(
    target: u32,
    level: i32,
    xoffset: i32,
    yoffset: i32,
    x: i32,
    y: i32,
    width: i32,
    height: i32,
) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        copy_tex_sub_image(
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
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn glCopyTexSubImage3D(
    target: u32,
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
        copy_tex_sub_image(
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
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn glCopyTexImage2D(
    target: u32,
    level: i32,
    internal: u32,
    x: i32,
    y: i32,
    width: i32,
    height: i32,
    border: i32,
) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        copy_tex_image(gl, target, level, internal, [x, y], width, height, border)
    })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn glCopyTexImage1D(
    target: u32,
    level: i32,
    internal: u32,
    x: i32,
    y: i32,
    width: i32,
    border: i32,
) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        copy_tex_image_dims(gl, 1, target, level, internal, [x, y], width, 1, border)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glCopyTexSubImage1D(
    target: u32,
    level: i32,
    xoffset: i32,
    x: i32,
    y: i32,
    width: i32,
) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        copy_tex_sub_image(gl, 1, target, level, [xoffset, 0, 0], [x, y], width, 1)
    })
}

/// The client format and type a level of `internal` is (re)specified with
/// before a copy fills it: any pair `tex_image` accepts for it (no pixels
/// travel, so the backend picks its own transfer format).
fn respecify_format(internal: u32) -> (u32, u32) {
    match (has_depth(internal), has_stencil(internal)) {
        (true, true) if internal == glow::DEPTH32F_STENCIL8 => {
            (glow::DEPTH_STENCIL, glow::FLOAT_32_UNSIGNED_INT_24_8_REV)
        }
        (true, true) => (glow::DEPTH_STENCIL, glow::UNSIGNED_INT_24_8),
        (true, false) if internal == glow::DEPTH_COMPONENT32F => {
            (glow::DEPTH_COMPONENT, glow::FLOAT)
        }
        (true, false) => (glow::DEPTH_COMPONENT, glow::UNSIGNED_INT),
        (false, true) => (glow::STENCIL_INDEX, glow::UNSIGNED_BYTE),
        _ => match format_component_type(internal) {
            glow::INT => (glow::RGBA_INTEGER, glow::INT),
            glow::UNSIGNED_INT => (glow::RGBA_INTEGER, glow::UNSIGNED_INT),
            _ => (glow::RGBA, glow::UNSIGNED_BYTE),
        },
    }
}

/// `glCopyTexImage2D` (GL 4.6 §8.6): the level is (re)specified as
/// `glTexImage2D` with no data would (same errors), then filled by the
/// `glCopyTexSubImage2D` path. The read framebuffer is checked first, so
/// an error leaves the texture untouched.
#[allow(clippy::too_many_arguments)]
pub(super) fn copy_tex_image(
    gl: &mut Gl,
    target: u32,
    level: i32,
    internal: u32,
    src: [i32; 2],
    width: i32,
    height: i32,
    border: i32,
) {
    copy_tex_image_dims(gl, 2, target, level, internal, src, width, height, border)
}

/// `copy_tex_image` for `glCopyTexImage1D` (`dims` 1, `height` 1) and
/// `glCopyTexImage2D` (`dims` 2).
#[allow(clippy::too_many_arguments)]
fn copy_tex_image_dims(
    gl: &mut Gl,
    dims: u32,
    target: u32,
    level: i32,
    internal: u32,
    src: [i32; 2],
    width: i32,
    height: i32,
    border: i32,
) {
    // GL 4.6 compatibility §8.6: not GL 1.0's component counts 1 to 4.
    if !valid_image_target(target, dims) || (1..=4).contains(&internal) {
        gl_err!(gl, glow::INVALID_ENUM);
    }
    let fb = match read_framebuffer(gl) {
        Ok(fb) => fb,
        Err(e) => gl_err!(gl, e),
    };
    let (format, ty) = respecify_format(internal);
    let (read_format, _) = source_of(internal);
    if let Some(e) = source_error(&fb, read_format) {
        gl_err!(gl, e);
    }
    // Define the level: `tex_image` with no pixels and no unpack buffer
    // (a copy never reads one), its error (if any) ending the copy.
    let unpack = std::mem::replace(&mut gl.st.pixel_unpack_buffer, 0);
    let earlier = std::mem::replace(&mut gl.st.error, glow::NO_ERROR);
    super::textures::tex_image(
        gl,
        dims,
        target,
        level,
        internal as i32,
        width,
        height,
        1,
        border,
        format,
        ty,
        std::ptr::null(),
    );
    gl.st.pixel_unpack_buffer = unpack;
    let failed = gl.st.error != glow::NO_ERROR;
    if earlier != glow::NO_ERROR {
        gl.st.error = earlier;
    }
    if failed {
        return;
    }
    // A border (compatibility profile, validated above) is dropped as
    // `tex_image` drops it: the level is the inner rectangle.
    let strip = super::textures::BorderStrip::new(dims, target, border);
    let (bx, by) = (i32::from(strip.x), i32::from(strip.y));
    copy_tex_sub_image(
        gl,
        dims,
        target,
        level,
        [0, 0, 0],
        [src[0].saturating_add(bx), src[1].saturating_add(by)],
        width - 2 * bx,
        height - 2 * by,
    );
}

/// `copy_tex_sub_image` of depth (and stencil) values read back as
/// `pixels` (format, type, bytes a pixel) and uploaded into the level
/// (`offset`: x, y and layer or slice; a 1D array's y is its first layer,
/// one source row each). The part of the source outside the read
/// framebuffer leaves the level as it was (undefined in GL).
#[allow(clippy::too_many_arguments)]
fn copy_depth_through_client(
    gl: &mut Gl,
    handle: mgpipe::Handle,
    target: u32,
    level: i32,
    offset: [i32; 3],
    src: [i32; 2],
    [width, height]: [i32; 2],
    (format, ty, bpp): (u32, u32, usize),
) {
    let Some(r) =
        super::pixels::read_rect(gl, src[0], src[1], width as u32, height as u32, format, ty)
    else {
        return;
    };
    if r.width == 0 || r.height == 0 {
        return;
    }
    let p = calls::TextureSubimage {
        res: handle,
        target,
        level: level as u32,
        x: offset[0] + r.skip[0] as i32,
        y: offset[1] + r.skip[1] as i32,
        z: offset[2],
        width: r.width,
        height: r.height,
        depth: 1,
        format,
        r#type: ty,
        ..Default::default()
    };
    super::textures::send_subimage(gl, &p, bpp, &r.bytes);
}

/// What a texture level's format reads from: the read format whose source
/// rules (`pixels::source_error`) apply, and the blit mask.
fn source_of(internal: u32) -> (u32, u32) {
    match (has_depth(internal), has_stencil(internal)) {
        (true, true) => (
            glow::DEPTH_STENCIL,
            glow::DEPTH_BUFFER_BIT | glow::STENCIL_BUFFER_BIT,
        ),
        (true, false) => (glow::DEPTH_COMPONENT, glow::DEPTH_BUFFER_BIT),
        (false, true) => (glow::STENCIL_INDEX, glow::STENCIL_BUFFER_BIT),
        _ => match format_component_type(internal) {
            glow::INT | glow::UNSIGNED_INT => (glow::RGBA_INTEGER, glow::COLOR_BUFFER_BIT),
            _ => (glow::RGBA, glow::COLOR_BUFFER_BIT),
        },
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn copy_tex_sub_image(
    gl: &mut Gl,
    dims: u32,
    target: u32,
    level: i32,
    offset: [i32; 3],
    src: [i32; 2],
    width: i32,
    height: i32,
) {
    if !valid_image_target(target, dims) {
        gl_err!(gl, glow::INVALID_ENUM);
    }
    let [xoff, yoff, zoff] = offset;
    // A rectangle texture has level 0 alone (GL 4.6 §8.6, §8.5).
    let rect_level = target == glow::TEXTURE_RECTANGLE && level != 0;
    if level < 0 || rect_level || width < 0 || height < 0 || xoff < 0 || yoff < 0 || zoff < 0 {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    let fb = match read_framebuffer(gl) {
        Ok(fb) => fb,
        Err(e) => gl_err!(gl, e),
    };
    let name = bound_texture_name(gl, target);
    let Some(Some(t)) = gl.sh.textures.get(&name) else {
        gl_err!(gl, glow::INVALID_OPERATION)
    };
    let Some(info) = t.level(face_index(target), level as usize) else {
        gl_err!(gl, glow::INVALID_OPERATION)
    };
    let array_1d = target == glow::TEXTURE_1D_ARRAY;
    let face = face_index(target) as u32;
    // A 1D array's y is its layer; a 2D level has one layer; a 3D level or
    // an array of 2D layers is addressed by z.
    let layers = if dims == 3 { info.depth } else { 1 };
    if xoff as i64 + width as i64 > info.width as i64
        || yoff as i64 + height as i64 > info.height as i64
        || zoff as i64 >= layers.max(1) as i64
    {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    let (format, mask) = source_of(info.internal_format);
    if let Some(e) = source_error(&fb, format) {
        gl_err!(gl, e);
    }
    let handle = t.handle;
    // Depth and stencil attachments name no layer in a framebuffer state.
    let layered = array_1d || dims == 3 || face != 0;
    // A depth-only level that a blit cannot fill (another depth format
    // than the read buffer's: GL 4.6 §18.3.1 and GLES refuse such blits;
    // or a layer): the depth values travel through the client as floats.
    // Depth and stencil together go as packed DEPTH_STENCIL pixels.
    let through_client = match mask {
        glow::DEPTH_BUFFER_BIT => Some((glow::DEPTH_COMPONENT, glow::FLOAT, 4)),
        m if m == glow::DEPTH_BUFFER_BIT | glow::STENCIL_BUFFER_BIT => {
            Some(if info.internal_format == glow::DEPTH32F_STENCIL8 {
                (glow::DEPTH_STENCIL, glow::FLOAT_32_UNSIGNED_INT_24_8_REV, 8)
            } else {
                (glow::DEPTH_STENCIL, glow::UNSIGNED_INT_24_8, 4)
            })
        }
        _ => None,
    }
    .filter(|_| layered || fb.depth_format != info.internal_format);
    if let Some(pixels) = through_client {
        if width > 0 && height > 0 {
            let z = if dims == 3 { zoff } else { 0 };
            let at = [xoff, yoff, z];
            copy_depth_through_client(gl, handle, target, level, at, src, [width, height], pixels);
        }
        return;
    }
    if mask != glow::COLOR_BUFFER_BIT && layered {
        super::log_once("copy_tex_depth_layer", || {
            "glCopyTexSubImage* into a layer of a depth/stencil texture is not implemented: GL_INVALID_OPERATION".into()
        });
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    if width == 0 || height == 0 {
        return;
    }
    if let Err(e) = gl.emit_read_surface() {
        gl_err!(gl, e);
    }
    let fbo = *gl
        .st
        .copy_fbo
        .get_or_insert_with(|| gl.conn.alloc.framebuffer.alloc());
    // Copies ignore the scissor test; blits honour it.
    let scissor = std::mem::replace(&mut gl.st.scissor_test, false);
    gl.emit_render_state();
    gl.st.scissor_test = scissor;
    let [x, y] = src;
    // One blit per destination layer: a 1D array takes one source row into
    // each layer, anything else one rectangle into one layer.
    let rows: Vec<(u32, [i32; 4], [i32; 4])> = if array_1d {
        (0..height)
            .map(|r| {
                (
                    (yoff + r) as u32,
                    [x, y + r, x + width, y + r + 1],
                    [xoff, 0, xoff + width, 1],
                )
            })
            .collect()
    } else {
        let layer = if dims == 3 { zoff as u32 } else { face };
        vec![(
            layer,
            [x, y, x + width, y + height],
            [xoff, yoff, xoff + width, yoff + height],
        )]
    };
    for (layer, s, d) in rows {
        let mut p = calls::SetFramebufferState {
            fbo,
            draw_buffers: [NO_ATTACHMENT; 8],
            width: info.width,
            height: if array_1d { 1 } else { info.height },
            ..Default::default()
        };
        if mask & glow::COLOR_BUFFER_BIT != 0 {
            p.color[0] = handle;
            p.color_kind[0] = SURFACE_TEXTURE;
            p.color_level[0] = level as u32;
            p.color_layer[0] = layer;
            p.draw_buffers[0] = 0;
        }
        if mask & glow::DEPTH_BUFFER_BIT != 0 {
            (p.depth, p.depth_kind, p.depth_level) = (handle, SURFACE_TEXTURE, level as u32);
            p.depth_layer = layer;
        }
        if mask & glow::STENCIL_BUFFER_BIT != 0 {
            (p.stencil, p.stencil_kind, p.stencil_level) = (handle, SURFACE_TEXTURE, level as u32);
            p.stencil_layer = layer;
        }
        p.content_hash = xxh3_64(bytemuck::bytes_of(&p));
        gl.conn.pipe.set_framebuffer_state(&p);
        gl.st.sent.framebuffer = Some(p);
        gl.conn.pipe.blit(&calls::Blit {
            src: s,
            dst: d,
            mask,
            filter: glow::NEAREST,
        });
    }
    // The next draw, clear or blit sends the application's own framebuffer
    // and render state again (their `sent` copies differ now).
    gl.st.dirty |= DIRTY_FRAMEBUFFER | DIRTY_RENDER_STATE | DIRTY_RESOURCES;
}
