//! Textures, texture units and sampler objects.

use super::dlist::with_gl_listed;
use std::borrow::Cow;
use std::ffi::c_void;

use mgpipe::calls;
use mgpipe::consts::*;
use mgpipe::Pipe;

use super::pixels::{check_upload_format, reuse_scratch, unpack, unpack_tight};
use super::{gl_err, put, slice};
use crate::context::{
    target_index, with_gl_dirty, Gl, LevelInfo, PixelStore, TexParams, Texture, DIRTY_FRAMEBUFFER,
    DIRTY_PROGRAM, DIRTY_RESOURCES, MAX_TEXTURE_UNITS,
};

/// The unpacked internal format a base format/type implies (GL allows
/// unsized internal formats; the backend wants sized ones).
pub fn sized_internal_format(internal: u32, format: u32, ty: u32) -> u32 {
    match internal {
        glow::RGBA | 4 => match ty {
            glow::FLOAT => glow::RGBA32F,
            glow::HALF_FLOAT => glow::RGBA16F,
            glow::UNSIGNED_SHORT => glow::RGBA16,
            _ => glow::RGBA8,
        },
        glow::RGB | 3 => match ty {
            glow::FLOAT => glow::RGB32F,
            glow::HALF_FLOAT => glow::RGB16F,
            _ => glow::RGB8,
        },
        glow::RG | 2 => match ty {
            glow::FLOAT => glow::RG32F,
            glow::HALF_FLOAT => glow::RG16F,
            _ => glow::RG8,
        },
        glow::RED | 1 => match ty {
            glow::FLOAT => glow::R32F,
            glow::HALF_FLOAT => glow::R16F,
            _ => glow::R8,
        },
        glow::DEPTH_COMPONENT => match ty {
            glow::FLOAT => glow::DEPTH_COMPONENT32F,
            glow::UNSIGNED_SHORT => glow::DEPTH_COMPONENT16,
            _ => glow::DEPTH_COMPONENT24,
        },
        glow::DEPTH_STENCIL => {
            if ty == glow::FLOAT_32_UNSIGNED_INT_24_8_REV {
                glow::DEPTH32F_STENCIL8
            } else {
                glow::DEPTH24_STENCIL8
            }
        }
        glow::SRGB => glow::SRGB8,
        glow::SRGB_ALPHA => glow::SRGB8_ALPHA8,
        _ => {
            let _ = format;
            internal
        }
    }
}

/// The format a compressed internal format the client uploads uncompressed
/// (GL 3.0's required RGTC formats) is stored in: the backends get the
/// uncompressed texels (`glCompressedTexImage*` is not implemented), the
/// level keeps the requested format for GL_TEXTURE_INTERNAL_FORMAT.
fn uncompressed_storage(requested: u32) -> Option<u32> {
    Some(match requested {
        glow::COMPRESSED_RED_RGTC1 | glow::COMPRESSED_RED => glow::R8,
        glow::COMPRESSED_SIGNED_RED_RGTC1 => glow::R8_SNORM,
        glow::COMPRESSED_RG_RGTC2 | glow::COMPRESSED_RG => glow::RG8,
        glow::COMPRESSED_SIGNED_RG_RGTC2 => glow::RG8_SNORM,
        glow::COMPRESSED_RGB => glow::RGB8,
        glow::COMPRESSED_RGBA => glow::RGBA8,
        glow::COMPRESSED_SRGB => glow::SRGB8,
        glow::COMPRESSED_SRGB_ALPHA => glow::SRGB8_ALPHA8,
        _ => return None,
    })
}

/// Whether `f` is an internal format we accept for textures/renderbuffers.
pub fn valid_internal_format(f: u32) -> bool {
    matches!(
        f,
        glow::R8
            | glow::R8_SNORM
            | glow::R16
            | glow::R16_SNORM
            | glow::RG8
            | glow::RG8_SNORM
            | glow::RG16
            | glow::RG16_SNORM
            | glow::R3_G3_B2
            | glow::RGB4
            | glow::RGB5
            | glow::RGB8
            | glow::RGB8_SNORM
            | glow::RGB10
            | glow::RGB12
            | glow::RGB16
            | glow::RGB16_SNORM
            | glow::RGBA2
            | glow::RGBA4
            | glow::RGB5_A1
            | glow::RGBA8
            | glow::RGBA8_SNORM
            | glow::RGB10_A2
            | glow::RGB10_A2UI
            | glow::RGBA12
            | glow::RGBA16
            | glow::RGBA16_SNORM
            | glow::SRGB8
            | glow::SRGB8_ALPHA8
            | glow::R16F
            | glow::RG16F
            | glow::RGB16F
            | glow::RGBA16F
            | glow::R32F
            | glow::RG32F
            | glow::RGB32F
            | glow::RGBA32F
            | glow::R11F_G11F_B10F
            | glow::RGB9_E5
            | glow::R8I
            | glow::R8UI
            | glow::R16I
            | glow::R16UI
            | glow::R32I
            | glow::R32UI
            | glow::RG8I
            | glow::RG8UI
            | glow::RG16I
            | glow::RG16UI
            | glow::RG32I
            | glow::RG32UI
            | glow::RGB8I
            | glow::RGB8UI
            | glow::RGB16I
            | glow::RGB16UI
            | glow::RGB32I
            | glow::RGB32UI
            | glow::RGBA8I
            | glow::RGBA8UI
            | glow::RGBA16I
            | glow::RGBA16UI
            | glow::RGBA32I
            | glow::RGBA32UI
            | glow::DEPTH_COMPONENT16
            | glow::DEPTH_COMPONENT24
            | glow::DEPTH_COMPONENT32
            | glow::DEPTH_COMPONENT32F
            | glow::DEPTH24_STENCIL8
            | glow::DEPTH32F_STENCIL8
            | glow::STENCIL_INDEX8
            | glow::RGB565
    )
}

pub(super) fn face_index(target: u32) -> usize {
    if (glow::TEXTURE_CUBE_MAP_POSITIVE_X..=glow::TEXTURE_CUBE_MAP_NEGATIVE_Z).contains(&target) {
        (target - glow::TEXTURE_CUBE_MAP_POSITIVE_X) as usize
    } else {
        0
    }
}

/// The texture-object target an image target belongs to.
fn object_target(target: u32) -> u32 {
    if (glow::TEXTURE_CUBE_MAP_POSITIVE_X..=glow::TEXTURE_CUBE_MAP_NEGATIVE_Z).contains(&target) {
        glow::TEXTURE_CUBE_MAP
    } else {
        target
    }
}

/// The texture bound to `target` on the active unit (creating nothing).
pub(super) fn bound_texture_name(gl: &Gl, target: u32) -> u32 {
    gl.st
        .bound_texture(gl.st.active_texture as usize, object_target(target))
}

#[no_mangle]
pub unsafe extern "C" fn glGenTextures(n: i32, out: *mut u32) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        if n < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        for i in 0..n as usize {
            let name = loop {
                let c = gl.sh.new_name();
                if !gl.sh.textures.contains_key(&c) {
                    break c;
                }
            };
            gl.sh.textures.insert(name, None);
            // SAFETY: GL promises `n` writable names.
            unsafe { put(out.add(i), name) };
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glDeleteTextures(n: i32, names: *const u32) {
    // SAFETY: GL promises `n` names.
    let names = unsafe { slice(names, n) }.to_vec();
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER | DIRTY_RESOURCES, |gl| {
        if n < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        for name in names {
            if name == 0 {
                continue;
            }
            let Some(entry) = gl.sh.textures.remove(&name) else {
                continue;
            };
            super::framebuffers::detach_everywhere(gl, SURFACE_TEXTURE, name);
            gl.st.compute.unbind_texture(name);
            for unit in gl.st.texture_units.iter_mut() {
                for t in unit.iter_mut() {
                    if *t == name {
                        *t = 0;
                    }
                }
            }
            if let Some(tex) = entry {
                if tex.created {
                    gl.conn
                        .pipe
                        .resource_destroy(&calls::ResourceDestroy { res: tex.handle });
                }
                gl.conn.alloc.resource.free(tex.handle);
            }
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glIsTexture(name: u32) -> u8 {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        matches!(gl.sh.textures.get(&name), Some(Some(t)) if t.target != 0) as u8
    })
}

#[no_mangle]
pub unsafe extern "C" fn glActiveTexture(unit: u32) {
    // The selector only: no draw reads it.
    with_gl_listed("glActiveTexture", 0, move |gl| {
        let i = unit.wrapping_sub(glow::TEXTURE0);
        if i as usize >= MAX_TEXTURE_UNITS {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        gl.st.active_texture = i;
    })
}

#[no_mangle]
pub unsafe extern "C" fn glBindTexture(target: u32, name: u32) {
    // What samplers read, not the framebuffer: a bind changes no attachment
    // (an attached texture already exists, and binding creates only
    // unattached ones).
    with_gl_listed(
        "glBindTexture",
        DIRTY_PROGRAM | DIRTY_RESOURCES,
        move |gl| {
            let Some(ti) = target_index(target) else {
                gl_err!(gl, glow::INVALID_ENUM)
            };
            if name != 0 {
                match gl.sh.textures.get(&name) {
                    None => {
                        if gl.st.is_core() {
                            gl_err!(gl, glow::INVALID_OPERATION);
                        }
                        gl.sh.textures.insert(name, None);
                    }
                    Some(Some(t)) if t.target != 0 && t.target != target => {
                        gl_err!(gl, glow::INVALID_OPERATION)
                    }
                    _ => {}
                }
                texture_object(gl, name, target);
            }
            let unit = gl.st.active_texture as usize;
            gl.st.texture_units[unit][ti] = name;
        },
    )
}

/// Make `name` (a name in the texture table) a texture object of `target`
/// if it is not one yet (first bind, or glCreateTextures).
pub(super) fn texture_object(gl: &mut Gl, name: u32, target: u32) {
    let Some(slot) = gl.sh.textures.get_mut(&name) else {
        return;
    };
    if slot.is_none() {
        let handle = gl.conn.alloc.resource.alloc();
        *slot = Some(Texture::new(handle));
    }
    if let Some(t) = slot.as_mut() {
        if t.target == 0 {
            t.target = target;
            if target == glow::TEXTURE_RECTANGLE {
                t.params.min_filter = glow::LINEAR;
                t.params.wrap_s = glow::CLAMP_TO_EDGE;
                t.params.wrap_t = glow::CLAMP_TO_EDGE;
                t.params.wrap_r = glow::CLAMP_TO_EDGE;
            }
        }
    }
}

/// Create the server-side texture resource on first definition.
pub(super) fn ensure_created(gl: &mut Gl, name: u32) -> Option<mgpipe::Handle> {
    let t = gl.sh.textures.get_mut(&name)?.as_mut()?;
    if !t.created {
        t.created = true;
        let p = calls::ResourceCreate {
            res: t.handle,
            kind: RESOURCE_TEXTURE,
            target: t.target,
            gl_name: name,
            ..Default::default()
        };
        gl.conn.pipe.resource_create(&p, &[]);
    }
    Some(t.handle)
}

pub(super) fn valid_image_target(target: u32, dims: u32) -> bool {
    match dims {
        1 => target == glow::TEXTURE_1D,
        2 => {
            matches!(
                target,
                glow::TEXTURE_2D | glow::TEXTURE_1D_ARRAY | glow::TEXTURE_RECTANGLE
            ) || (glow::TEXTURE_CUBE_MAP_POSITIVE_X..=glow::TEXTURE_CUBE_MAP_NEGATIVE_Z)
                .contains(&target)
        }
        _ => matches!(
            target,
            glow::TEXTURE_3D | glow::TEXTURE_2D_ARRAY | glow::TEXTURE_CUBE_MAP_ARRAY
        ),
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn tex_image(
    gl: &mut Gl,
    dims: u32,
    target: u32,
    level: i32,
    internal: i32,
    width: i32,
    height: i32,
    depth: i32,
    border: i32,
    format: u32,
    ty: u32,
    pixels: *const c_void,
) {
    let proxy = super::proxy_textures::is_proxy_for(target, dims);
    if !valid_image_target(target, dims) && !proxy {
        gl_err!(gl, glow::INVALID_ENUM);
    }
    let Some(bpp) = check_upload_format(gl, format, ty) else {
        return;
    };
    let legacy = (!gl.st.is_core())
        .then(|| super::legacy_formats::legacy_format(internal as u32))
        .flatten();
    let ifmt = match legacy {
        Some(l) => l.storage,
        None => uncompressed_storage(internal as u32)
            .unwrap_or_else(|| sized_internal_format(internal as u32, format, ty)),
    };
    if !valid_internal_format(ifmt) {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    if super::pixels::integer_mismatch(ifmt, format)
        || super::pixels::depth_stencil_mismatch(ifmt, format)
        || super::pixels::depth_stencil_in_3d(target, ifmt)
    {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    // GL 4.6 compatibility §8.5.3: a border of 0 or 1, none for rectangle
    // textures; core: 0. The border texels are dropped (GL 4.6 §8.14.2
    // samples them only for CLAMP, which the backends lack), as Mesa does:
    // the level is the inner image, read through a shifted unpack window.
    let border_ok = border == 0
        || (border == 1
            && !gl.st.is_core()
            && target != glow::TEXTURE_RECTANGLE
            && target != glow::PROXY_TEXTURE_RECTANGLE);
    if !border_ok {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    let strip = BorderStrip::new(dims, target, border);
    if width < 0 || height < 0 || depth < 0 {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    let Some((width, height, depth)) = strip.inner(width, height, depth) else {
        gl_err!(gl, glow::INVALID_VALUE);
    };
    if proxy {
        // GL 4.6 §8.22: an unsupported proxy image is no error; its state
        // reads as zeros.
        if !super::proxy_textures::level_in_range(gl, target, level) {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        let info =
            super::proxy_textures::supported(gl, target, level, [width, height, depth], ifmt)
                .then_some(LevelInfo {
                    width: width as u32,
                    height: height as u32,
                    depth: depth as u32,
                    internal_format: ifmt,
                    requested: internal as u32,
                });
        super::proxy_textures::set_level(gl, target, level, info);
        return;
    }
    let max = gl.conn.caps.max_texture_size as i32;
    if level < 0
        || width < 0
        || height < 0
        || depth < 0
        || width > max
        || height > max
        || depth > max.max(2048)
        || level > 16
    {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    if (glow::TEXTURE_CUBE_MAP_POSITIVE_X..=glow::TEXTURE_CUBE_MAP_NEGATIVE_Z).contains(&target)
        && width != height
    {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    // GL 4.6 §8.5.3: a cube map array's faces are square and its depth
    // counts whole cubes (layer-faces, a multiple of 6).
    if target == glow::TEXTURE_CUBE_MAP_ARRAY && (width != height || depth % 6 != 0) {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    let name = bound_texture_name(gl, target);
    if name == 0 {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    let immutable = matches!(gl.sh.textures.get(&name), Some(Some(t)) if t.immutable_levels > 0);
    if immutable {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    let Some(handle) = ensure_created(gl, name) else {
        return;
    };
    let (w, h, d) = (width as u32, height.max(1) as u32, depth.max(1) as u32);
    let saved_unpack = gl.st.unpack;
    gl.st.unpack = strip.unpack(saved_unpack, w, h);
    let blob = image_source(gl, w, h, d, bpp, ty, pixels);
    gl.st.unpack = saved_unpack;
    let Some(blob) = blob else { return };
    let (blob, format, bpp) = super::legacy_formats::widen_upload(format, ty, bpp, blob);
    if let Some(Some(t)) = gl.sh.textures.get_mut(&name) {
        t.set_level(
            face_index(target),
            level as usize,
            LevelInfo {
                width: w,
                height: h,
                depth: d,
                internal_format: ifmt,
                requested: internal as u32,
            },
        );
    }
    let p = calls::TextureImage {
        res: handle,
        target,
        level: level as u32,
        internal_format: ifmt,
        width: w,
        height: h,
        depth: d,
        format,
        r#type: ty,
    };
    let bands = upload_bands(gl, w, h, d, bpp, &blob);
    if bands.is_empty() {
        gl.conn.pipe.texture_image(&p, &blob);
    } else {
        // Too large for one record: define the level with undefined
        // contents (empty blob), then fill it with sub-image bands in
        // stream order.
        gl.conn.pipe.texture_image(&p, &[]);
        let sub = calls::TextureSubimage {
            res: handle,
            target,
            level: level as u32,
            x: 0,
            y: 0,
            z: 0,
            width: w,
            height: h,
            depth: d,
            format,
            r#type: ty,
            ..Default::default()
        };
        send_bands(gl, &sub, &bands, &blob);
    }
    reuse_scratch(blob, &mut gl.st.upload_scratch);
    auto_mipmap(gl, target, level);
}

/// Which dimensions of a bordered image (border 1, compatibility profile)
/// carry the border: width always, height unless it counts 1D-array
/// layers, depth only for 3D images.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct BorderStrip {
    pub x: bool,
    pub y: bool,
    pub z: bool,
}

impl BorderStrip {
    pub(super) fn new(dims: u32, target: u32, border: i32) -> Self {
        let b = border == 1;
        let array_1d = target == glow::TEXTURE_1D_ARRAY || target == glow::PROXY_TEXTURE_1D_ARRAY;
        let array_2d = matches!(
            target,
            glow::TEXTURE_2D_ARRAY
                | glow::PROXY_TEXTURE_2D_ARRAY
                | glow::TEXTURE_CUBE_MAP_ARRAY
                | glow::PROXY_TEXTURE_CUBE_MAP_ARRAY
        );
        BorderStrip {
            x: b,
            y: b && dims >= 2 && !array_1d,
            z: b && dims == 3 && !array_2d,
        }
    }

    /// The inner size, or None where a bordered dimension is below 2.
    pub(super) fn inner(self, w: i32, h: i32, d: i32) -> Option<(i32, i32, i32)> {
        let cut = |on: bool, v: i32| {
            if on {
                v.checked_sub(2).filter(|v| *v >= 0)
            } else {
                Some(v)
            }
        };
        Some((cut(self.x, w)?, cut(self.y, h)?, cut(self.z, d)?))
    }

    /// The unpack state that reads the inner `w`×`h` image out of the
    /// application's bordered one.
    pub(super) fn unpack(self, mut ps: PixelStore, w: u32, h: u32) -> PixelStore {
        if self.x {
            if ps.row_length == 0 {
                ps.row_length = w as i32 + 2;
            }
            ps.skip_pixels += 1;
        }
        if self.y {
            if ps.image_height == 0 {
                ps.image_height = h as i32 + 2;
            }
            ps.skip_rows += 1;
        }
        if self.z {
            ps.skip_images += 1;
        }
        ps
    }
}

/// One sub-image record of a split upload: rows `y..y+rows` of slices
/// `z..z+slices` (relative to the upload's box), and where its tight bytes
/// lie in the upload's blob.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Band {
    y: u32,
    rows: u32,
    z: u32,
    slices: u32,
    start: usize,
    len: usize,
}

/// Bands covering a tight `w`×`h`×`d` image of `bpp`-byte pixels, each at
/// most `max_blob` bytes: whole slices (layers) when one slice fits, else
/// whole rows within one slice at a time. Rows are in y order and slices
/// in z order in the blob, so each band's bytes are one contiguous range.
fn texture_bands(w: u32, h: u32, d: u32, bpp: usize, max_blob: usize) -> Vec<Band> {
    let row = w as usize * bpp;
    let slice = row * h as usize;
    let mut out = Vec::new();
    if slice <= max_blob {
        super::buffers::for_each_band(d as usize, slice, max_blob, |z, n| {
            out.push(Band {
                y: 0,
                rows: h,
                z: z as u32,
                slices: n as u32,
                start: z * slice,
                len: n * slice,
            })
        });
    } else {
        for z in 0..d as usize {
            super::buffers::for_each_band(h as usize, row, max_blob, |y, n| {
                out.push(Band {
                    y: y as u32,
                    rows: n as u32,
                    z: z as u32,
                    slices: 1,
                    start: z * slice + y * row,
                    len: n * row,
                })
            });
        }
    }
    out
}

/// The bands an upload of `blob` (tight `w`×`h`×`d`, `bpp` bytes a pixel)
/// must be split into, or none when it fits one record (or is not the
/// size its box says, which cannot be split along rows: it goes as is).
fn upload_bands(gl: &Gl, w: u32, h: u32, d: u32, bpp: usize, blob: &[u8]) -> Vec<Band> {
    let max_blob = gl.conn.max_blob;
    let expected = (w as usize)
        .checked_mul(h as usize)
        .and_then(|n| n.checked_mul(d as usize))
        .and_then(|n| n.checked_mul(bpp));
    if blob.len() <= max_blob || expected != Some(blob.len()) {
        return Vec::new();
    }
    texture_bands(w, h, d, bpp, max_blob)
}

/// The application's strided rows of a sub-image upload, passed by
/// reference where the transport does that (monolith: no blob limit), the
/// backend reads them in place (`CAPS_FEATURE_STRIDED_UPLOAD`; one that
/// would gather them anyway is better served by the frontend's reused
/// gather buffer) and nothing else needs the tight copy (no unpack buffer,
/// no legacy format widening); see `pixels::unpack_strided`.
fn strided_rows<'a>(
    gl: &Gl,
    p: &calls::TextureSubimage,
    bpp: usize,
    pixels: *const c_void,
) -> Option<(&'a [u8], u32)> {
    if gl.conn.max_blob != usize::MAX
        || gl.conn.caps.features & mgpipe::caps::CAPS_FEATURE_STRIDED_UPLOAD == 0
        || gl.st.pixel_unpack_buffer != 0
        || super::legacy_formats::is_legacy_client_format(p.format)
    {
        return None;
    }
    // SAFETY: the application promises the described image is readable
    // for the duration of the GL call, which the record's use (a direct
    // call into the backend) does not outlive.
    unsafe {
        super::pixels::unpack_strided(
            &gl.st.unpack,
            p.width,
            p.height,
            p.depth,
            bpp,
            pixels as *const u8,
        )
    }
}

/// Send the tight `blob` of `p`'s box (`bpp` bytes a pixel) as one
/// `texture_subimage` record, or in bands where it is too large for one.
pub(super) fn send_subimage(gl: &mut Gl, p: &calls::TextureSubimage, bpp: usize, blob: &[u8]) {
    let bands = upload_bands(gl, p.width, p.height, p.depth, bpp, blob);
    if bands.is_empty() {
        gl.conn.pipe.texture_subimage(p, blob);
    } else {
        send_bands(gl, p, &bands, blob);
    }
}

/// Send `blob` as one `texture_subimage` record per band, each a box of
/// `whole` (the upload's box) shifted to the band's rows and slices.
fn send_bands(gl: &mut Gl, whole: &calls::TextureSubimage, bands: &[Band], blob: &[u8]) {
    for b in bands {
        let Some(bytes) = blob.get(b.start..b.start + b.len) else {
            return;
        };
        let p = calls::TextureSubimage {
            y: whole.y + b.y as i32,
            z: whole.z + b.z as i32,
            height: b.rows,
            depth: b.slices,
            ..*whole
        };
        gl.conn.pipe.texture_subimage(&p, bytes);
    }
}

/// Tight bytes of an upload from client memory or the unpack buffer.
/// None = an error was raised.
pub(super) fn image_source<'a>(
    gl: &mut Gl,
    w: u32,
    h: u32,
    d: u32,
    bpp: usize,
    ty: u32,
    pixels: *const c_void,
) -> Option<Cow<'a, [u8]>> {
    let ps = gl.st.unpack;
    if gl.st.pixel_unpack_buffer != 0 {
        let name = gl.st.pixel_unpack_buffer;
        let (handle, size) = match gl.sh.buffers.get(&name) {
            Some(Some(b)) => (b.handle, b.size),
            _ => return Some(Cow::Owned(Vec::new())),
        };
        let l = super::pixels::client_layout(&ps, w as usize, h as usize, bpp);
        // Checked: hostile unpack state or offsets must not wrap into a
        // small range that `unpack` would then read past.
        let offset = pixels as usize;
        let end = if w == 0 {
            Some(0)
        } else {
            l.end(h as usize, d as usize)
        };
        let Some(end) = end.filter(|e| {
            offset
                .checked_add(*e)
                .is_some_and(|last| last as u64 <= size)
        }) else {
            gl.st.set_error(glow::INVALID_OPERATION);
            return None;
        };
        // A blocking point: the unpack buffer's bytes live on the server.
        let bytes = super::buffers::read_buffer(
            gl,
            handle,
            offset as u64,
            end as u64,
            crate::runtime::BlockingCause::UnpackFromBuffer,
        );
        // SAFETY: `bytes` holds exactly the described layout.
        return Some(Cow::Owned(unsafe {
            unpack(&ps, w, h, d, bpp, ty, bytes.as_ptr())
        }));
    }
    if pixels.is_null() || w == 0 || h == 0 {
        return Some(Cow::Owned(Vec::new()));
    }
    // SAFETY: the application promises the described image is readable
    // for the duration of the GL call, which outlives every use of it.
    Some(unsafe {
        unpack_tight(
            &ps,
            w,
            h,
            d,
            bpp,
            ty,
            pixels as *const u8,
            &mut gl.st.upload_scratch,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn glTexImage1D(
    target: u32,
    level: i32,
    internal: i32,
    width: i32,
    border: i32,
    format: u32,
    ty: u32,
    pixels: *const c_void,
) {
    super::dlist::listed_image(
        "glTexImage1D",
        DIRTY_PROGRAM | DIRTY_FRAMEBUFFER,
        [width, 1, 1],
        (target, format, ty, pixels),
        move |gl, pixels| {
            tex_image(
                gl, 1, target, level, internal, width, 1, 1, border, format, ty, pixels,
            )
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn glTexImage2D(
    target: u32,
    level: i32,
    internal: i32,
    width: i32,
    height: i32,
    border: i32,
    format: u32,
    ty: u32,
    pixels: *const c_void,
) {
    super::dlist::listed_image(
        "glTexImage2D",
        DIRTY_PROGRAM | DIRTY_FRAMEBUFFER,
        [width, height, 1],
        (target, format, ty, pixels),
        move |gl, pixels| {
            tex_image(
                gl, 2, target, level, internal, width, height, 1, border, format, ty, pixels,
            )
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn glTexImage3D(
    target: u32,
    level: i32,
    internal: i32,
    width: i32,
    height: i32,
    depth: i32,
    border: i32,
    format: u32,
    ty: u32,
    pixels: *const c_void,
) {
    super::dlist::listed_image(
        "glTexImage3D",
        DIRTY_PROGRAM | DIRTY_FRAMEBUFFER,
        [width, height, depth],
        (target, format, ty, pixels),
        move |gl, pixels| {
            tex_image(
                gl, 3, target, level, internal, width, height, depth, border, format, ty, pixels,
            )
        },
    )
}

#[allow(clippy::too_many_arguments)]
pub(super) fn tex_subimage(
    gl: &mut Gl,
    dims: u32,
    target: u32,
    level: i32,
    x: i32,
    y: i32,
    z: i32,
    width: i32,
    height: i32,
    depth: i32,
    format: u32,
    ty: u32,
    pixels: *const c_void,
) {
    let proxy = super::proxy_textures::is_proxy_for(target, dims);
    if !valid_image_target(target, dims) && !proxy {
        gl_err!(gl, glow::INVALID_ENUM);
    }
    let Some(bpp) = check_upload_format(gl, format, ty) else {
        return;
    };
    if level < 0 || width < 0 || height < 0 || depth < 0 || x < 0 || y < 0 || z < 0 {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    let name = bound_texture_name(gl, target);
    let Some(Some(t)) = gl.sh.textures.get(&name) else {
        gl_err!(gl, glow::INVALID_OPERATION)
    };
    let Some(info) = t.level(face_index(target), level as usize) else {
        gl_err!(gl, glow::INVALID_OPERATION)
    };
    if super::pixels::integer_mismatch(info.internal_format, format)
        || super::pixels::depth_stencil_mismatch(info.internal_format, format)
    {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    // In i64: an application's x + width may not fit an i32.
    if x as i64 + width as i64 > info.width as i64
        || y as i64 + height as i64 > info.height as i64
        || z as i64 + depth as i64 > info.depth as i64
    {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    let handle = t.handle;
    if width == 0 || height == 0 || depth == 0 {
        return;
    }
    let p = calls::TextureSubimage {
        res: handle,
        target,
        level: level as u32,
        x,
        y,
        z,
        width: width as u32,
        height: height as u32,
        depth: depth as u32,
        format,
        r#type: ty,
        ..Default::default()
    };
    if let Some((rows, row_stride)) = strided_rows(gl, &p, bpp, pixels) {
        gl.conn
            .pipe
            .texture_subimage(&calls::TextureSubimage { row_stride, ..p }, rows);
        auto_mipmap(gl, target, level);
        return;
    }
    let Some(blob) = image_source(
        gl,
        width as u32,
        height as u32,
        depth as u32,
        bpp,
        ty,
        pixels,
    ) else {
        return;
    };
    if blob.is_empty() {
        return;
    }
    let (blob, format, bpp) = super::legacy_formats::widen_upload(format, ty, bpp, blob);
    let p = calls::TextureSubimage { format, ..p };
    let bands = upload_bands(gl, p.width, p.height, p.depth, bpp, &blob);
    if bands.is_empty() {
        gl.conn.pipe.texture_subimage(&p, &blob);
    } else {
        send_bands(gl, &p, &bands, &blob);
    }
    reuse_scratch(blob, &mut gl.st.upload_scratch);
    auto_mipmap(gl, target, level);
}

#[no_mangle]
pub unsafe extern "C" fn glTexSubImage1D(
    target: u32,
    level: i32,
    x: i32,
    width: i32,
    format: u32,
    ty: u32,
    pixels: *const c_void,
) {
    super::dlist::listed_image(
        "glTexSubImage1D",
        DIRTY_PROGRAM | DIRTY_FRAMEBUFFER,
        [width, 1, 1],
        (target, format, ty, pixels),
        move |gl, pixels| {
            tex_subimage(
                gl, 1, target, level, x, 0, 0, width, 1, 1, format, ty, pixels,
            )
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn glTexSubImage2D(
    target: u32,
    level: i32,
    x: i32,
    y: i32,
    width: i32,
    height: i32,
    format: u32,
    ty: u32,
    pixels: *const c_void,
) {
    super::dlist::listed_image(
        "glTexSubImage2D",
        DIRTY_PROGRAM | DIRTY_FRAMEBUFFER,
        [width, height, 1],
        (target, format, ty, pixels),
        move |gl, pixels| {
            tex_subimage(
                gl, 2, target, level, x, y, 0, width, height, 1, format, ty, pixels,
            )
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn glTexSubImage3D(
    target: u32,
    level: i32,
    x: i32,
    y: i32,
    z: i32,
    width: i32,
    height: i32,
    depth: i32,
    format: u32,
    ty: u32,
    pixels: *const c_void,
) {
    super::dlist::listed_image(
        "glTexSubImage3D",
        DIRTY_PROGRAM | DIRTY_FRAMEBUFFER,
        [width, height, depth],
        (target, format, ty, pixels),
        move |gl, pixels| {
            tex_subimage(
                gl, 3, target, level, x, y, z, width, height, depth, format, ty, pixels,
            )
        },
    )
}

#[allow(clippy::too_many_arguments)]
pub(super) fn tex_storage(
    gl: &mut Gl,
    dims: u32,
    target: u32,
    levels: i32,
    internal: u32,
    width: i32,
    height: i32,
    depth: i32,
) {
    let ok_target = match dims {
        1 => target == glow::TEXTURE_1D,
        2 => matches!(
            target,
            glow::TEXTURE_2D
                | glow::TEXTURE_1D_ARRAY
                | glow::TEXTURE_RECTANGLE
                | glow::TEXTURE_CUBE_MAP
        ),
        _ => matches!(
            target,
            glow::TEXTURE_3D | glow::TEXTURE_2D_ARRAY | glow::TEXTURE_CUBE_MAP_ARRAY
        ),
    };
    let proxy = super::proxy_textures::is_proxy_for(target, dims);
    if !ok_target && !proxy {
        gl_err!(gl, glow::INVALID_ENUM);
    }
    // ARB_texture_storage: the legacy sized formats are valid in a
    // compatibility context.
    let storage = match (!gl.st.is_core())
        .then(|| super::legacy_formats::legacy_format(internal))
        .flatten()
    {
        Some(l) if !super::legacy_formats::is_unsized(internal) => l.storage,
        // The specific RGTC formats (the generic COMPRESSED_* are unsized).
        _ => match internal {
            glow::COMPRESSED_RED_RGTC1
            | glow::COMPRESSED_SIGNED_RED_RGTC1
            | glow::COMPRESSED_RG_RGTC2
            | glow::COMPRESSED_SIGNED_RG_RGTC2 => {
                uncompressed_storage(internal).unwrap_or(internal)
            }
            _ => internal,
        },
    };
    if !valid_internal_format(storage) {
        gl_err!(gl, glow::INVALID_ENUM);
    }
    if super::pixels::depth_stencil_in_3d(target, storage) {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    if levels < 1 || width < 1 || height < 1 || depth < 1 {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    // GL 4.6 §8.19: the storage calls check what the image calls they
    // stand for check: square cube faces, and a cube map array's depth in
    // whole cubes (layer-faces, a multiple of 6).
    let cube = matches!(
        target,
        glow::TEXTURE_CUBE_MAP | glow::TEXTURE_CUBE_MAP_ARRAY
    );
    if (cube && width != height) || (target == glow::TEXTURE_CUBE_MAP_ARRAY && depth % 6 != 0) {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    let max_levels = 32
        - (width
            .max(height)
            .max(if dims == 3 && target == glow::TEXTURE_3D {
                depth
            } else {
                1
            }) as u32)
            .leading_zeros();
    if levels as u32 > max_levels {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    if proxy {
        // GL 4.6 §8.19: every level of the proxy is set, or all zeroed when
        // any is not supported.
        let level_size = |l: i32| {
            let shrink = |v: i32| (v >> l).max(1);
            let d = if target == glow::PROXY_TEXTURE_3D {
                shrink(depth)
            } else {
                depth
            };
            let h = if target == glow::PROXY_TEXTURE_1D_ARRAY {
                height
            } else {
                shrink(height)
            };
            [shrink(width), h, d]
        };
        let all = (0..levels)
            .all(|l| super::proxy_textures::supported(gl, target, l, level_size(l), storage));
        for l in 0..levels {
            let [w, h, d] = level_size(l);
            let info = all.then_some(LevelInfo {
                width: w as u32,
                height: h as u32,
                depth: d as u32,
                internal_format: storage,
                requested: internal,
            });
            super::proxy_textures::set_level(gl, target, l, info);
        }
        return;
    }
    let name = bound_texture_name(gl, target);
    if name == 0 {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    if matches!(gl.sh.textures.get(&name), Some(Some(t)) if t.immutable_levels > 0) {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    let Some(handle) = ensure_created(gl, name) else {
        return;
    };
    if let Some(Some(t)) = gl.sh.textures.get_mut(&name) {
        t.immutable_levels = levels as u32;
        let faces = if target == glow::TEXTURE_CUBE_MAP {
            6
        } else {
            1
        };
        for l in 0..levels as usize {
            let w = (width as u32 >> l).max(1);
            let h = if target == glow::TEXTURE_1D_ARRAY {
                height as u32
            } else {
                (height as u32 >> l).max(1)
            };
            let d = if target == glow::TEXTURE_3D {
                (depth as u32 >> l).max(1)
            } else {
                depth as u32
            };
            for f in 0..faces {
                t.set_level(
                    f,
                    l,
                    LevelInfo {
                        width: w,
                        height: h,
                        depth: d,
                        internal_format: storage,
                        requested: internal,
                    },
                );
            }
        }
        t.max_level = t.max_level.min(levels as u32 - 1);
        if t.max_level == 1000 {
            t.max_level = levels as u32 - 1;
        }
    }
    let p = calls::TextureStorage {
        res: handle,
        target,
        levels: levels as u32,
        internal_format: storage,
        width: width as u32,
        height: height as u32,
        depth: depth as u32,
    };
    gl.conn.pipe.texture_storage(&p);
}

#[no_mangle]
pub unsafe extern "C" fn glTexStorage1D(target: u32, levels: i32, internal: u32, width: i32) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        tex_storage(gl, 1, target, levels, internal, width, 1, 1)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glTexStorage2D(
    target: u32,
    levels: i32,
    internal: u32,
    width: i32,
    height: i32,
) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        tex_storage(gl, 2, target, levels, internal, width, height, 1)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glTexStorage3D(
    target: u32,
    levels: i32,
    internal: u32,
    width: i32,
    height: i32,
    depth: i32,
) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        tex_storage(gl, 3, target, levels, internal, width, height, depth)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glGenerateMipmap(target: u32) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        generate_mipmap(gl, target)
    })
}

/// GL_GENERATE_MIPMAP (compatibility profile): an upload to the base level
/// of a texture that asks for it regenerates the other levels. Cube maps
/// are left alone (one face's upload leaves the cube incomplete), and a
/// format that cannot be mipmapped raises no error here.
fn auto_mipmap(gl: &mut Gl, target: u32, level: i32) {
    // Core contexts (every upload of the hot path) stop at one flag test.
    if gl.st.is_core() {
        return;
    }
    let name = bound_texture_name(gl, target);
    let wanted = matches!(gl.sh.textures.get(&name), Some(Some(t))
        if t.auto_mipmap && level >= 0 && level as u32 == t.base_level);
    if !wanted || !single_image_mipmap_target(target) {
        return;
    }
    let before = gl.st.error;
    generate_mipmap(gl, target);
    gl.st.error = before;
}

/// The glGenerateMipmap targets whose images one upload defines (not the
/// cube maps).
fn single_image_mipmap_target(target: u32) -> bool {
    matches!(
        target,
        glow::TEXTURE_1D
            | glow::TEXTURE_2D
            | glow::TEXTURE_3D
            | glow::TEXTURE_1D_ARRAY
            | glow::TEXTURE_2D_ARRAY
    )
}

/// glGenerateMipmap of the texture bound to `target`.
pub(super) fn generate_mipmap(gl: &mut Gl, target: u32) {
    {
        if !(single_image_mipmap_target(target)
            || matches!(
                target,
                glow::TEXTURE_CUBE_MAP | glow::TEXTURE_CUBE_MAP_ARRAY
            ))
        {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        let name = bound_texture_name(gl, target);
        let Some(Some(t)) = gl.sh.textures.get_mut(&name) else {
            gl_err!(gl, glow::INVALID_OPERATION)
        };
        let base = t.base_level as usize;
        let Some(info) = t.level(0, base) else {
            gl_err!(gl, glow::INVALID_OPERATION)
        };
        // GL 4.6 §8.14.4: the base level must be colour-renderable and
        // filterable; integer, depth and stencil formats are neither.
        let fmt = info.internal_format;
        if crate::gl::validate::has_depth(fmt)
            || crate::gl::validate::has_stencil(fmt)
            || matches!(
                crate::gl::framebuffers::format_component_type(fmt),
                glow::INT | glow::UNSIGNED_INT
            )
        {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        let faces = if target == glow::TEXTURE_CUBE_MAP {
            6
        } else {
            1
        };
        let mut l = base + 1;
        let (mut w, mut h, mut d) = (info.width, info.height, info.depth);
        while (w > 1 || h > 1 || (target == glow::TEXTURE_3D && d > 1))
            && l <= t.max_level as usize
            && l < 32
        {
            w = (w / 2).max(1);
            h = if target == glow::TEXTURE_1D_ARRAY {
                h
            } else {
                (h / 2).max(1)
            };
            d = if target == glow::TEXTURE_3D {
                (d / 2).max(1)
            } else {
                d
            };
            for f in 0..faces {
                t.set_level(
                    f,
                    l,
                    LevelInfo {
                        width: w,
                        height: h,
                        depth: d,
                        internal_format: info.internal_format,
                        requested: info.requested,
                    },
                );
            }
            l += 1;
        }
        let handle = t.handle;
        gl.conn.pipe.generate_mipmap(&calls::GenerateMipmap {
            res: handle,
            target,
            ..Default::default()
        });
    }
}

fn valid_filter(f: u32, min: bool) -> bool {
    matches!(f, glow::NEAREST | glow::LINEAR)
        || (min
            && matches!(
                f,
                glow::NEAREST_MIPMAP_NEAREST
                    | glow::LINEAR_MIPMAP_NEAREST
                    | glow::NEAREST_MIPMAP_LINEAR
                    | glow::LINEAR_MIPMAP_LINEAR
            ))
}
/// GL_CLAMP (compatibility profile wrap mode; the backends sample it as
/// CLAMP_TO_EDGE, which is exact for NEAREST filtering).
pub(super) const WRAP_CLAMP: u32 = 0x2900;

/// The axes (bit 0: s, 1: t, 2: r) whose GL_CLAMP wrap differs from
/// CLAMP_TO_EDGE under `p`'s filters: with LINEAR filtering GL clamps the
/// coordinate to [0, 1] and the footprint at the edge blends half the
/// border colour in (GL 4.6 compatibility §8.14.2). A program that clamps
/// those coordinates itself samples them exactly as CLAMP_TO_BORDER
/// (`clamp_as_border`).
pub(crate) fn linear_clamp_axes(p: &TexParams) -> u8 {
    let linear = p.mag_filter == glow::LINEAR
        || !matches!(p.min_filter, glow::NEAREST | glow::NEAREST_MIPMAP_NEAREST);
    if !linear {
        return 0;
    }
    [p.wrap_s, p.wrap_t, p.wrap_r]
        .iter()
        .enumerate()
        .filter(|(_, w)| **w == WRAP_CLAMP)
        .fold(0, |m, (i, _)| m | 1 << i)
}

/// GL_TEXTURE_BORDER_COLOR `b` as a texture of colour format `internal`
/// reads it: GL converts the border colour to the texture's base format
/// (GL 4.6 §8.14.2), so a component the format lacks reads 0 (alpha 1),
/// even where the backend stores the format with more channels (RGB10 in
/// an RGBA storage). Integer, depth and unknown formats keep `b`.
pub(crate) fn base_format_border(internal: u32, b: [f32; 4]) -> [f32; 4] {
    use super::framebuffers::{component_bits, format_component_type};
    if matches!(
        format_component_type(internal),
        glow::INT | glow::UNSIGNED_INT
    ) {
        return b;
    }
    let bits = [
        glow::TEXTURE_RED_SIZE,
        glow::TEXTURE_GREEN_SIZE,
        glow::TEXTURE_BLUE_SIZE,
        glow::TEXTURE_ALPHA_SIZE,
    ]
    .map(|q| component_bits(internal, q));
    if bits == [0; 4] {
        return b;
    }
    [0, 1, 2, 3].map(|i| match (bits[i], i) {
        (0, 3) => 1.0,
        (0, _) => 0.0,
        _ => b[i],
    })
}

/// GL 4.6 §8.17: a mutable texture sampled with a mipmapped minification
/// filter (`p`, the texture's or the unit's sampler object's) is complete
/// only when every level from the base level down to 1x1 (or the max
/// level) is defined, each face, at the halved sizes. An incomplete
/// texture reads (0, 0, 0, 1) (the frontend binds no view). Immutable,
/// multisample and buffer textures are complete; a missing base level is
/// left to the backend, as before.
pub(crate) fn mipmap_incomplete(t: &Texture, p: &TexParams) -> bool {
    if t.immutable_levels > 0
        || t.samples > 0
        || t.buffer.is_some()
        || matches!(p.min_filter, glow::NEAREST | glow::LINEAR)
    {
        return false;
    }
    let base = t.base_level as usize;
    let Some(b) = t.level(0, base) else {
        return false;
    };
    let faces = if t.target == glow::TEXTURE_CUBE_MAP {
        6
    } else {
        1
    };
    let (halve_h, halve_d) = match t.target {
        glow::TEXTURE_1D_ARRAY => (false, false),
        glow::TEXTURE_3D => (true, true),
        _ => (true, false),
    };
    let (mut w, mut h, mut d) = (b.width, b.height, b.depth);
    let mut l = base + 1;
    while (w > 1 || (halve_h && h > 1) || (halve_d && d > 1)) && l <= t.max_level as usize && l < 32
    {
        w = (w / 2).max(1);
        if halve_h {
            h = (h / 2).max(1);
        }
        if halve_d {
            d = (d / 2).max(1);
        }
        for f in 0..faces {
            match t.level(f, l) {
                Some(i) if (i.width, i.height, i.depth) == (w, h, d) => {}
                _ => return true,
            }
        }
        l += 1;
    }
    false
}

/// `p` for a program that clamps the coordinates of `linear_clamp_axes`
/// to the texture: those axes wrap as CLAMP_TO_BORDER.
pub(crate) fn clamp_as_border(mut p: TexParams) -> TexParams {
    let axes = linear_clamp_axes(&p);
    for (i, w) in [&mut p.wrap_s, &mut p.wrap_t, &mut p.wrap_r]
        .into_iter()
        .enumerate()
    {
        if axes & 1 << i != 0 {
            *w = glow::CLAMP_TO_BORDER;
        }
    }
    p
}

fn valid_wrap(w: u32, compat: bool) -> bool {
    (compat && w == WRAP_CLAMP)
        || matches!(
            w,
            glow::REPEAT
                | glow::CLAMP_TO_EDGE
                | glow::CLAMP_TO_BORDER
                | glow::MIRRORED_REPEAT
                | glow::MIRROR_CLAMP_TO_EDGE
        )
}

/// Apply a sampler-state parameter; Err = GL error.
fn set_sampler_param(
    p: &mut TexParams,
    pname: u32,
    v: &[f32],
    iv: &[i32],
    compat: bool,
) -> Result<(), u32> {
    let e = iv
        .first()
        .copied()
        .unwrap_or(v.first().copied().unwrap_or(0.0) as i32) as u32;
    match pname {
        glow::TEXTURE_MIN_FILTER => {
            if !valid_filter(e, true) {
                return Err(glow::INVALID_ENUM);
            }
            p.min_filter = e
        }
        glow::TEXTURE_MAG_FILTER => {
            if !valid_filter(e, false) {
                return Err(glow::INVALID_ENUM);
            }
            p.mag_filter = e
        }
        glow::TEXTURE_WRAP_S | glow::TEXTURE_WRAP_T | glow::TEXTURE_WRAP_R => {
            if !valid_wrap(e, compat) {
                return Err(glow::INVALID_ENUM);
            }
            match pname {
                glow::TEXTURE_WRAP_S => p.wrap_s = e,
                glow::TEXTURE_WRAP_T => p.wrap_t = e,
                _ => p.wrap_r = e,
            }
        }
        glow::TEXTURE_MIN_LOD => p.min_lod = v.first().copied().unwrap_or(e as i32 as f32),
        glow::TEXTURE_MAX_LOD => p.max_lod = v.first().copied().unwrap_or(e as i32 as f32),
        glow::TEXTURE_LOD_BIAS => p.lod_bias = v.first().copied().unwrap_or(e as i32 as f32),
        glow::TEXTURE_COMPARE_MODE => {
            if e != glow::NONE && e != glow::COMPARE_REF_TO_TEXTURE {
                return Err(glow::INVALID_ENUM);
            }
            p.compare_mode = e
        }
        glow::TEXTURE_COMPARE_FUNC => {
            if !super::state::valid_compare_func(e) {
                return Err(glow::INVALID_ENUM);
            }
            p.compare_func = e
        }
        glow::TEXTURE_MAX_ANISOTROPY_EXT => {
            let a = v.first().copied().unwrap_or(e as f32);
            if a < 1.0 {
                return Err(glow::INVALID_VALUE);
            }
            p.max_anisotropy = a
        }
        glow::TEXTURE_BORDER_COLOR => {
            if v.len() == 4 {
                p.border.copy_from_slice(v);
            } else if iv.len() == 4 {
                for (d, s) in p.border.iter_mut().zip(iv) {
                    *d = *s as f32 / i32::MAX as f32;
                }
            }
        }
        _ => return Err(glow::INVALID_ENUM),
    }
    Ok(())
}

pub(super) fn tex_parameter(gl: &mut Gl, target: u32, pname: u32, v: &[f32], iv: &[i32]) {
    if target_index(target).is_none() || target == glow::TEXTURE_BUFFER {
        gl_err!(gl, glow::INVALID_ENUM);
    }
    let name = bound_texture_name(gl, target);
    let compat = !gl.st.is_core();
    let Some(Some(t)) = gl.sh.textures.get_mut(&name) else {
        gl_err!(gl, glow::INVALID_OPERATION)
    };
    let e = iv
        .first()
        .copied()
        .unwrap_or(v.first().copied().unwrap_or(0.0) as i32);
    let multisample = matches!(
        t.target,
        glow::TEXTURE_2D_MULTISAMPLE | glow::TEXTURE_2D_MULTISAMPLE_ARRAY
    );
    let rectangle = t.target == glow::TEXTURE_RECTANGLE;
    let vector_only = matches!(
        pname,
        glow::TEXTURE_BORDER_COLOR | glow::TEXTURE_SWIZZLE_RGBA
    );
    let r = match pname {
        // GL 4.6 §8.10: the scalar entry points take no vector parameter.
        _ if vector_only && v.len() + iv.len() == 1 => Err(glow::INVALID_ENUM),
        // GL 4.6 §8.10: a rectangle texture has level 0 only, clamping
        // wraps only and no mipmap filtering.
        glow::TEXTURE_BASE_LEVEL if rectangle && e != 0 => Err(glow::INVALID_OPERATION),
        glow::TEXTURE_WRAP_S | glow::TEXTURE_WRAP_T | glow::TEXTURE_WRAP_R
            if rectangle
                && !matches!(
                    e as u32,
                    WRAP_CLAMP | glow::CLAMP_TO_EDGE | glow::CLAMP_TO_BORDER
                ) =>
        {
            Err(glow::INVALID_ENUM)
        }
        glow::TEXTURE_MIN_FILTER
            if rectangle && !matches!(e as u32, glow::NEAREST | glow::LINEAR) =>
        {
            Err(glow::INVALID_ENUM)
        }
        // GL 4.6 §8.10: a multisample texture has no sampler state, and
        // level 0 only.
        glow::TEXTURE_BASE_LEVEL if multisample && e != 0 => Err(glow::INVALID_OPERATION),
        _ if multisample && is_sampler_state(pname) => Err(glow::INVALID_ENUM),
        // ARB_texture_storage: with immutable storage of n levels the
        // base level is clamped to [0, n - 1] and the max level to
        // [base, n - 1]; the clamped values are what queries return (as
        // Mesa stores them).
        glow::TEXTURE_BASE_LEVEL => {
            if e < 0 {
                Err(glow::INVALID_VALUE)
            } else {
                t.base_level = match t.immutable_levels {
                    0 => e as u32,
                    n => (e as u32).min(n - 1),
                };
                Ok(())
            }
        }
        glow::TEXTURE_MAX_LEVEL => {
            if e < 0 {
                Err(glow::INVALID_VALUE)
            } else {
                t.max_level = match t.immutable_levels {
                    0 => e as u32,
                    n => (e as u32).clamp(t.base_level.min(n - 1), n - 1),
                };
                Ok(())
            }
        }
        glow::TEXTURE_SWIZZLE_R
        | glow::TEXTURE_SWIZZLE_G
        | glow::TEXTURE_SWIZZLE_B
        | glow::TEXTURE_SWIZZLE_A => {
            let s = e as u32;
            if !matches!(
                s,
                glow::RED | glow::GREEN | glow::BLUE | glow::ALPHA | glow::ZERO | glow::ONE
            ) {
                Err(glow::INVALID_ENUM)
            } else {
                t.swizzle[(pname - glow::TEXTURE_SWIZZLE_R) as usize] = s;
                Ok(())
            }
        }
        glow::TEXTURE_SWIZZLE_RGBA => {
            if iv.len() == 4 {
                for (d, s) in t.swizzle.iter_mut().zip(iv) {
                    *d = *s as u32;
                }
            }
            Ok(())
        }
        glow::DEPTH_STENCIL_TEXTURE_MODE => {
            let m = e as u32;
            if m != glow::DEPTH_COMPONENT && m != glow::STENCIL_INDEX {
                Err(glow::INVALID_ENUM)
            } else {
                t.depth_stencil_mode = m;
                Ok(())
            }
        }
        super::legacy_formats::GENERATE_MIPMAP if compat => {
            t.auto_mipmap = e != 0;
            Ok(())
        }
        super::legacy_formats::DEPTH_TEXTURE_MODE if compat => {
            let m = e as u32;
            if super::legacy_formats::valid_depth_mode(m) {
                t.depth_mode = m;
                Ok(())
            } else {
                Err(glow::INVALID_ENUM)
            }
        }
        _ => set_sampler_param(&mut t.params, pname, v, iv, compat),
    };
    if let Err(e) = r {
        gl.st.set_error(e);
    }
}

/// The sampler-state parameters (GL 4.6 table 23.18), which multisample
/// textures do not take.
pub(super) fn is_sampler_state(pname: u32) -> bool {
    matches!(
        pname,
        glow::TEXTURE_MIN_FILTER
            | glow::TEXTURE_MAG_FILTER
            | glow::TEXTURE_WRAP_S
            | glow::TEXTURE_WRAP_T
            | glow::TEXTURE_WRAP_R
            | glow::TEXTURE_MIN_LOD
            | glow::TEXTURE_MAX_LOD
            | glow::TEXTURE_LOD_BIAS
            | glow::TEXTURE_COMPARE_MODE
            | glow::TEXTURE_COMPARE_FUNC
            | glow::TEXTURE_BORDER_COLOR
            | glow::TEXTURE_MAX_ANISOTROPY_EXT
    )
}

/// Sampler-state parameters whose natural type is float (the `f` entry
/// points pass them through; every other parameter is an integer or enum).
pub(super) fn is_float_param(pname: u32) -> bool {
    matches!(
        pname,
        glow::TEXTURE_MIN_LOD
            | glow::TEXTURE_MAX_LOD
            | glow::TEXTURE_LOD_BIAS
            | glow::TEXTURE_MAX_ANISOTROPY_EXT
    )
}

#[no_mangle]
pub unsafe extern "C" fn glTexParameteri(target: u32, pname: u32, param: i32) {
    with_gl_listed(
        "glTexParameteri",
        DIRTY_PROGRAM | DIRTY_FRAMEBUFFER,
        move |gl| tex_parameter(gl, target, pname, &[], &[param]),
    )
}

#[no_mangle]
pub unsafe extern "C" fn glTexParameterf(target: u32, pname: u32, param: f32) {
    with_gl_listed(
        "glTexParameterf",
        DIRTY_PROGRAM | DIRTY_FRAMEBUFFER,
        move |gl| {
            if is_float_param(pname) {
                tex_parameter(gl, target, pname, &[param], &[])
            } else {
                tex_parameter(gl, target, pname, &[], &[param as i32])
            }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn glTexParameteriv(target: u32, pname: u32, params: *const i32) {
    let n = if matches!(
        pname,
        glow::TEXTURE_BORDER_COLOR | glow::TEXTURE_SWIZZLE_RGBA
    ) {
        4
    } else {
        1
    };
    // SAFETY: GL promises the values of `pname`.
    let v = unsafe { slice(params, n) }.to_vec();
    with_gl_listed(
        "glTexParameteriv",
        DIRTY_PROGRAM | DIRTY_FRAMEBUFFER,
        move |gl| tex_parameter(gl, target, pname, &[], &v),
    )
}

#[no_mangle]
pub unsafe extern "C" fn glTexParameterfv(target: u32, pname: u32, params: *const f32) {
    let n = if matches!(
        pname,
        glow::TEXTURE_BORDER_COLOR | glow::TEXTURE_SWIZZLE_RGBA
    ) {
        4
    } else {
        1
    };
    // SAFETY: GL promises the values of `pname`.
    let v = unsafe { slice(params, n) }.to_vec();
    with_gl_listed(
        "glTexParameterfv",
        DIRTY_PROGRAM | DIRTY_FRAMEBUFFER,
        move |gl| {
            if is_float_param(pname) || pname == glow::TEXTURE_BORDER_COLOR {
                tex_parameter(gl, target, pname, &v, &[])
            } else {
                let iv: Vec<i32> = v.iter().map(|f| *f as i32).collect();
                tex_parameter(gl, target, pname, &[], &iv)
            }
        },
    )
}

/// Query a texture or sampler parameter as floats.
pub(super) fn tex_param_get(gl: &mut Gl, target: u32, pname: u32) -> Option<Vec<f32>> {
    if target_index(target).is_none() {
        gl.st.set_error(glow::INVALID_ENUM);
        return None;
    }
    let name = bound_texture_name(gl, target);
    let t = match gl.sh.textures.get(&name) {
        Some(Some(t)) => t.clone(),
        _ => Texture::new(mgpipe::Handle::NULL),
    };
    let p = t.params;
    Some(match pname {
        glow::TEXTURE_MIN_FILTER => vec![p.min_filter as f32],
        glow::TEXTURE_MAG_FILTER => vec![p.mag_filter as f32],
        glow::TEXTURE_WRAP_S => vec![p.wrap_s as f32],
        glow::TEXTURE_WRAP_T => vec![p.wrap_t as f32],
        glow::TEXTURE_WRAP_R => vec![p.wrap_r as f32],
        glow::TEXTURE_MIN_LOD => vec![p.min_lod],
        glow::TEXTURE_MAX_LOD => vec![p.max_lod],
        glow::TEXTURE_LOD_BIAS => vec![p.lod_bias],
        glow::TEXTURE_COMPARE_MODE => vec![p.compare_mode as f32],
        glow::TEXTURE_COMPARE_FUNC => vec![p.compare_func as f32],
        glow::TEXTURE_BORDER_COLOR => p.border.to_vec(),
        glow::TEXTURE_MAX_ANISOTROPY_EXT => vec![p.max_anisotropy],
        glow::TEXTURE_BASE_LEVEL => vec![t.base_level as f32],
        glow::TEXTURE_MAX_LEVEL => vec![t.max_level as f32],
        glow::TEXTURE_SWIZZLE_R
        | glow::TEXTURE_SWIZZLE_G
        | glow::TEXTURE_SWIZZLE_B
        | glow::TEXTURE_SWIZZLE_A => {
            vec![t.swizzle[(pname - glow::TEXTURE_SWIZZLE_R) as usize] as f32]
        }
        glow::TEXTURE_SWIZZLE_RGBA => t.swizzle.iter().map(|s| *s as f32).collect(),
        glow::DEPTH_STENCIL_TEXTURE_MODE => vec![t.depth_stencil_mode as f32],
        super::legacy_formats::DEPTH_TEXTURE_MODE if !gl.st.is_core() => {
            vec![t.depth_mode as f32]
        }
        super::legacy_formats::GENERATE_MIPMAP if !gl.st.is_core() => {
            vec![t.auto_mipmap as u32 as f32]
        }
        glow::TEXTURE_IMMUTABLE_FORMAT => vec![(t.immutable_levels > 0) as u32 as f32],
        glow::TEXTURE_IMMUTABLE_LEVELS => vec![t.immutable_levels as f32],
        // Image units match formats by texel size (GL 4.6 §8.26).
        glow::IMAGE_FORMAT_COMPATIBILITY_TYPE => {
            vec![glow::IMAGE_FORMAT_COMPATIBILITY_BY_SIZE as f32]
        }
        glow::TEXTURE_TARGET => vec![t.target as f32],
        _ => {
            gl.st.set_error(glow::INVALID_ENUM);
            return None;
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glGetTexParameteriv(target: u32, pname: u32, out: *mut i32) {
    if let Some(v) = with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        tex_param_get(gl, target, pname)
    }) {
        for (i, x) in v.iter().enumerate() {
            let val = if pname == glow::TEXTURE_BORDER_COLOR {
                (*x as f64 * i32::MAX as f64) as i32
            } else {
                x.round() as i32
            };
            // SAFETY: GL promises room for the values of `pname`.
            unsafe { put(out.add(i), val) };
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetTexParameterfv(target: u32, pname: u32, out: *mut f32) {
    if let Some(v) = with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        tex_param_get(gl, target, pname)
    }) {
        for (i, x) in v.iter().enumerate() {
            // SAFETY: GL promises room for the values of `pname`.
            unsafe { put(out.add(i), *x) };
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetTexLevelParameteriv(
    target: u32,
    level: i32,
    pname: u32,
    out: *mut i32,
) {
    let v = with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        tex_level_param(gl, target, level, pname)
    });
    if let Some(v) = v {
        // SAFETY: GL promises one writable value.
        unsafe { put(out, v) };
    }
}

/// glGetTexLevelParameteriv of the texture bound to `target`.
pub(super) fn tex_level_param(gl: &mut Gl, target: u32, level: i32, pname: u32) -> Option<i32> {
    {
        if level < 0 {
            gl.st.set_error(glow::INVALID_VALUE);
            return None;
        }
        let proxy = super::proxy_textures::is_proxy(target);
        let name = if proxy {
            0
        } else {
            bound_texture_name(gl, target)
        };
        if target == glow::TEXTURE_BUFFER {
            if let Some(v) = super::texbuf::level_param(gl, name, level, pname) {
                return v;
            }
        }
        let (info, samples, fixed) = match gl.sh.textures.get(&name) {
            _ if proxy => (super::proxy_textures::level(gl, target, level), 0, true),
            Some(Some(t)) if target == glow::TEXTURE_BUFFER => {
                (super::texbuf::level_info(gl, t), 0, true)
            }
            Some(Some(t)) => (
                t.level(face_index(target), level as usize),
                t.samples,
                t.fixed_sample_locations,
            ),
            _ => (None, 0, true),
        };
        let i = info.unwrap_or(LevelInfo {
            width: 0,
            height: 0,
            depth: 0,
            internal_format: glow::RGBA,
            requested: glow::RGBA,
        });
        let legacy = info.and_then(|l| l.legacy());
        Some(match pname {
            glow::TEXTURE_WIDTH => i.width as i32,
            glow::TEXTURE_HEIGHT => i.height as i32,
            glow::TEXTURE_DEPTH => i.depth as i32,
            glow::TEXTURE_INTERNAL_FORMAT => i.requested as i32,
            glow::TEXTURE_SAMPLES => samples as i32,
            glow::TEXTURE_FIXED_SAMPLE_LOCATIONS => fixed as i32,
            glow::TEXTURE_COMPRESSED => 0,
            glow::TEXTURE_RED_SIZE
            | glow::TEXTURE_GREEN_SIZE
            | glow::TEXTURE_BLUE_SIZE
            | glow::TEXTURE_ALPHA_SIZE => {
                if let Some(l) = legacy {
                    l.component_bits(pname) as i32
                } else if info.is_some() {
                    super::framebuffers::component_bits(i.internal_format, pname) as i32
                } else {
                    0
                }
            }
            super::legacy_formats::TEXTURE_LUMINANCE_SIZE
            | super::legacy_formats::TEXTURE_INTENSITY_SIZE
                if !gl.st.is_core() =>
            {
                legacy.map_or(0, |l| l.component_bits(pname) as i32)
            }
            glow::TEXTURE_DEPTH_SIZE | glow::TEXTURE_STENCIL_SIZE => {
                if info.is_some() {
                    super::framebuffers::component_bits(i.internal_format, pname) as i32
                } else {
                    0
                }
            }
            // GL 4.6 §8.11.3 (ARB_texture_float): each component's data
            // type, NONE where the format has no such component.
            glow::TEXTURE_RED_TYPE
            | glow::TEXTURE_GREEN_TYPE
            | glow::TEXTURE_BLUE_TYPE
            | glow::TEXTURE_ALPHA_TYPE
            | glow::TEXTURE_DEPTH_TYPE => {
                let size_pname = match pname {
                    glow::TEXTURE_RED_TYPE => glow::TEXTURE_RED_SIZE,
                    glow::TEXTURE_GREEN_TYPE => glow::TEXTURE_GREEN_SIZE,
                    glow::TEXTURE_BLUE_TYPE => glow::TEXTURE_BLUE_SIZE,
                    glow::TEXTURE_ALPHA_TYPE => glow::TEXTURE_ALPHA_SIZE,
                    _ => glow::TEXTURE_DEPTH_SIZE,
                };
                let bits = match legacy {
                    Some(l) => l.component_bits(size_pname),
                    None if info.is_some() => {
                        super::framebuffers::component_bits(i.internal_format, size_pname)
                    }
                    None => 0,
                };
                component_type(i.internal_format, pname, bits) as i32
            }
            super::legacy_formats::TEXTURE_LUMINANCE_TYPE
            | super::legacy_formats::TEXTURE_INTENSITY_TYPE
                if !gl.st.is_core() =>
            {
                let size_pname = if pname == super::legacy_formats::TEXTURE_LUMINANCE_TYPE {
                    super::legacy_formats::TEXTURE_LUMINANCE_SIZE
                } else {
                    super::legacy_formats::TEXTURE_INTENSITY_SIZE
                };
                let bits = legacy.map_or(0, |l| l.component_bits(size_pname));
                component_type(i.internal_format, pname, bits) as i32
            }
            _ => {
                gl.st.set_error(glow::INVALID_ENUM);
                return None;
            }
        })
    }
}

/// The GL_TEXTURE_*_TYPE answer for a component of `bits` bits in storage
/// `format` (`pname` tells depth from colour).
fn component_type(format: u32, pname: u32, bits: u32) -> u32 {
    if bits == 0 {
        glow::NONE
    } else if pname == glow::TEXTURE_DEPTH_TYPE {
        match format {
            glow::DEPTH_COMPONENT32F | glow::DEPTH32F_STENCIL8 => glow::FLOAT,
            _ => glow::UNSIGNED_NORMALIZED,
        }
    } else {
        super::framebuffers::format_component_type(format)
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetTexLevelParameterfv(
    target: u32,
    level: i32,
    pname: u32,
    out: *mut f32,
) {
    let mut v = 0i32;
    // SAFETY: `v` is a valid out pointer.
    unsafe { glGetTexLevelParameteriv(target, level, pname, &mut v) };
    // SAFETY: GL promises one writable value.
    unsafe { put(out, v as f32) };
}

// ------------------------------------------------------------------ samplers

#[no_mangle]
pub unsafe extern "C" fn glGenSamplers(n: i32, out: *mut u32) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        if n < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        for i in 0..n as usize {
            let name = loop {
                let c = gl.sh.new_name();
                if !gl.sh.samplers.contains_key(&c) {
                    break c;
                }
            };
            gl.sh.samplers.insert(name, TexParams::default());
            // SAFETY: GL promises `n` writable names.
            unsafe { put(out.add(i), name) };
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glDeleteSamplers(n: i32, names: *const u32) {
    // SAFETY: GL promises `n` names.
    let names = unsafe { slice(names, n) }.to_vec();
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        if n < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        for name in names {
            if gl.sh.samplers.remove(&name).is_some() {
                for s in gl.st.sampler_units.iter_mut() {
                    if *s == name {
                        *s = 0;
                    }
                }
            }
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glIsSampler(name: u32) -> u8 {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        gl.sh.samplers.contains_key(&name) as u8
    })
}

#[no_mangle]
pub unsafe extern "C" fn glBindSampler(unit: u32, name: u32) {
    with_gl_listed(
        "glBindSampler",
        DIRTY_PROGRAM | DIRTY_RESOURCES,
        move |gl| {
            if unit as usize >= MAX_TEXTURE_UNITS {
                gl_err!(gl, glow::INVALID_VALUE);
            }
            if name != 0 && !gl.sh.samplers.contains_key(&name) {
                gl_err!(gl, glow::INVALID_OPERATION);
            }
            gl.st.sampler_units[unit as usize] = name;
        },
    )
}

fn sampler_parameter(gl: &mut Gl, name: u32, pname: u32, v: &[f32], iv: &[i32]) {
    let compat = !gl.st.is_core();
    let Some(p) = gl.sh.samplers.get_mut(&name) else {
        gl_err!(gl, glow::INVALID_OPERATION)
    };
    if let Err(e) = set_sampler_param(p, pname, v, iv, compat) {
        gl.st.set_error(e);
    }
}

#[no_mangle]
pub unsafe extern "C" fn glSamplerParameteri(s: u32, pname: u32, param: i32) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        sampler_parameter(gl, s, pname, &[], &[param])
    })
}

#[no_mangle]
pub unsafe extern "C" fn glSamplerParameterf(s: u32, pname: u32, param: f32) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        if is_float_param(pname) {
            sampler_parameter(gl, s, pname, &[param], &[])
        } else {
            sampler_parameter(gl, s, pname, &[], &[param as i32])
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glSamplerParameteriv(s: u32, pname: u32, params: *const i32) {
    let n = if pname == glow::TEXTURE_BORDER_COLOR {
        4
    } else {
        1
    };
    // SAFETY: GL promises the values of `pname`.
    let v = unsafe { slice(params, n) }.to_vec();
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        sampler_parameter(gl, s, pname, &[], &v)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glSamplerParameterfv(s: u32, pname: u32, params: *const f32) {
    let n = if pname == glow::TEXTURE_BORDER_COLOR {
        4
    } else {
        1
    };
    // SAFETY: GL promises the values of `pname`.
    let v = unsafe { slice(params, n) }.to_vec();
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        if is_float_param(pname) || pname == glow::TEXTURE_BORDER_COLOR {
            sampler_parameter(gl, s, pname, &v, &[])
        } else {
            let iv: Vec<i32> = v.iter().map(|f| *f as i32).collect();
            sampler_parameter(gl, s, pname, &[], &iv)
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glGetSamplerParameteriv(s: u32, pname: u32, out: *mut i32) {
    let v = with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        let Some(p) = gl.sh.samplers.get(&s).copied() else {
            gl.st.set_error(glow::INVALID_OPERATION);
            return None;
        };
        Some(match pname {
            glow::TEXTURE_MIN_FILTER => vec![p.min_filter as i32],
            glow::TEXTURE_MAG_FILTER => vec![p.mag_filter as i32],
            glow::TEXTURE_WRAP_S => vec![p.wrap_s as i32],
            glow::TEXTURE_WRAP_T => vec![p.wrap_t as i32],
            glow::TEXTURE_WRAP_R => vec![p.wrap_r as i32],
            glow::TEXTURE_MIN_LOD => vec![p.min_lod as i32],
            glow::TEXTURE_MAX_LOD => vec![p.max_lod as i32],
            glow::TEXTURE_LOD_BIAS => vec![p.lod_bias as i32],
            glow::TEXTURE_COMPARE_MODE => vec![p.compare_mode as i32],
            glow::TEXTURE_COMPARE_FUNC => vec![p.compare_func as i32],
            glow::TEXTURE_MAX_ANISOTROPY_EXT => vec![p.max_anisotropy as i32],
            glow::TEXTURE_BORDER_COLOR => p
                .border
                .iter()
                .map(|c| (*c as f64 * i32::MAX as f64) as i32)
                .collect(),
            _ => {
                gl.st.set_error(glow::INVALID_ENUM);
                return None;
            }
        })
    });
    if let Some(v) = v {
        for (i, x) in v.iter().enumerate() {
            // SAFETY: GL promises room for the values of `pname`.
            unsafe { put(out.add(i), *x) };
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetSamplerParameterfv(s: u32, pname: u32, out: *mut f32) {
    let v = with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        let Some(p) = gl.sh.samplers.get(&s).copied() else {
            gl.st.set_error(glow::INVALID_OPERATION);
            return None;
        };
        Some(match pname {
            glow::TEXTURE_MIN_LOD => vec![p.min_lod],
            glow::TEXTURE_MAX_LOD => vec![p.max_lod],
            glow::TEXTURE_LOD_BIAS => vec![p.lod_bias],
            glow::TEXTURE_MAX_ANISOTROPY_EXT => vec![p.max_anisotropy],
            glow::TEXTURE_BORDER_COLOR => p.border.to_vec(),
            glow::TEXTURE_MIN_FILTER => vec![p.min_filter as f32],
            glow::TEXTURE_MAG_FILTER => vec![p.mag_filter as f32],
            glow::TEXTURE_WRAP_S => vec![p.wrap_s as f32],
            glow::TEXTURE_WRAP_T => vec![p.wrap_t as f32],
            glow::TEXTURE_WRAP_R => vec![p.wrap_r as f32],
            glow::TEXTURE_COMPARE_MODE => vec![p.compare_mode as f32],
            glow::TEXTURE_COMPARE_FUNC => vec![p.compare_func as f32],
            _ => {
                gl.st.set_error(glow::INVALID_ENUM);
                return None;
            }
        })
    });
    if let Some(v) = v {
        for (i, x) in v.iter().enumerate() {
            // SAFETY: GL promises room for the values of `pname`.
            unsafe { put(out.add(i), *x) };
        }
    }
}

// ---- Pure-integer parameters (GL 3.0 TexParameterI*, GL 3.3 SamplerParameterI*) ----
//
// The border colour is kept like Mesa keeps it: one 4-word store, written
// as floats by the float/integer setters and as raw words by the `I`
// setters; the `I` getters return the raw words. The words travel to the
// backend inside the `f32` border (bit-preserving copies only).

/// Number of values `pname` carries for the `I` variants.
pub(super) fn int_param_count(pname: u32) -> i32 {
    if matches!(
        pname,
        glow::TEXTURE_BORDER_COLOR | glow::TEXTURE_SWIZZLE_RGBA
    ) {
        4
    } else {
        1
    }
}

/// Border words as the bit patterns of the stored floats.
pub(super) fn border_from_words(words: &[u32]) -> Vec<f32> {
    words.iter().map(|w| f32::from_bits(*w)).collect()
}

fn tex_parameter_words(target: u32, pname: u32, words: &[u32]) {
    let words = words.to_vec();
    let dirty = DIRTY_PROGRAM | DIRTY_FRAMEBUFFER;
    with_gl_listed("glTexParameterI", dirty, move |gl| {
        if pname == glow::TEXTURE_BORDER_COLOR {
            tex_parameter(gl, target, pname, &border_from_words(&words), &[])
        } else {
            let iv: Vec<i32> = words.iter().map(|w| *w as i32).collect();
            tex_parameter(gl, target, pname, &[], &iv)
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glTexParameterIiv(target: u32, pname: u32, params: *const i32) {
    // SAFETY: GL promises the values of `pname`.
    let words: Vec<u32> = unsafe { slice(params, int_param_count(pname)) }
        .iter()
        .map(|v| *v as u32)
        .collect();
    tex_parameter_words(target, pname, &words)
}

#[no_mangle]
pub unsafe extern "C" fn glTexParameterIuiv(target: u32, pname: u32, params: *const u32) {
    // SAFETY: GL promises the values of `pname`.
    let words = unsafe { slice(params, int_param_count(pname)) }.to_vec();
    tex_parameter_words(target, pname, &words)
}

/// Query for the `I` getters: raw border words, other values rounded.
fn tex_param_get_words(target: u32, pname: u32) -> Option<Vec<u32>> {
    let v = with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        tex_param_get(gl, target, pname)
    })?;
    Some(if pname == glow::TEXTURE_BORDER_COLOR {
        v.iter().map(|x| x.to_bits()).collect()
    } else {
        v.iter().map(|x| x.round() as i32 as u32).collect()
    })
}

#[no_mangle]
pub unsafe extern "C" fn glGetTexParameterIiv(target: u32, pname: u32, out: *mut i32) {
    if let Some(v) = tex_param_get_words(target, pname) {
        for (i, x) in v.iter().enumerate() {
            // SAFETY: GL promises room for the values of `pname`.
            unsafe { put(out.add(i), *x as i32) };
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetTexParameterIuiv(target: u32, pname: u32, out: *mut u32) {
    if let Some(v) = tex_param_get_words(target, pname) {
        for (i, x) in v.iter().enumerate() {
            // SAFETY: GL promises room for the values of `pname`.
            unsafe { put(out.add(i), *x) };
        }
    }
}

fn sampler_parameter_words(s: u32, pname: u32, words: &[u32]) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        if pname == glow::TEXTURE_BORDER_COLOR {
            sampler_parameter(gl, s, pname, &border_from_words(words), &[])
        } else {
            let iv: Vec<i32> = words.iter().map(|w| *w as i32).collect();
            sampler_parameter(gl, s, pname, &[], &iv)
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glSamplerParameterIiv(s: u32, pname: u32, params: *const i32) {
    let n = if pname == glow::TEXTURE_BORDER_COLOR {
        4
    } else {
        1
    };
    // SAFETY: GL promises the values of `pname`.
    let words: Vec<u32> = unsafe { slice(params, n) }
        .iter()
        .map(|v| *v as u32)
        .collect();
    sampler_parameter_words(s, pname, &words)
}

#[no_mangle]
pub unsafe extern "C" fn glSamplerParameterIuiv(s: u32, pname: u32, params: *const u32) {
    let n = if pname == glow::TEXTURE_BORDER_COLOR {
        4
    } else {
        1
    };
    // SAFETY: GL promises the values of `pname`.
    let words = unsafe { slice(params, n) }.to_vec();
    sampler_parameter_words(s, pname, &words)
}

/// Sampler query for the `I` getters: raw border words, other values as
/// integers.
fn sampler_param_get_words(s: u32, pname: u32) -> Option<Vec<u32>> {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_FRAMEBUFFER, |gl| {
        let Some(p) = gl.sh.samplers.get(&s).copied() else {
            gl.st.set_error(glow::INVALID_OPERATION);
            return None;
        };
        let f = |x: f32| x.round() as i32 as u32;
        Some(match pname {
            glow::TEXTURE_MIN_FILTER => vec![p.min_filter],
            glow::TEXTURE_MAG_FILTER => vec![p.mag_filter],
            glow::TEXTURE_WRAP_S => vec![p.wrap_s],
            glow::TEXTURE_WRAP_T => vec![p.wrap_t],
            glow::TEXTURE_WRAP_R => vec![p.wrap_r],
            glow::TEXTURE_MIN_LOD => vec![f(p.min_lod)],
            glow::TEXTURE_MAX_LOD => vec![f(p.max_lod)],
            glow::TEXTURE_LOD_BIAS => vec![f(p.lod_bias)],
            glow::TEXTURE_COMPARE_MODE => vec![p.compare_mode],
            glow::TEXTURE_COMPARE_FUNC => vec![p.compare_func],
            glow::TEXTURE_MAX_ANISOTROPY_EXT => vec![f(p.max_anisotropy)],
            glow::TEXTURE_BORDER_COLOR => p.border.iter().map(|c| c.to_bits()).collect(),
            _ => {
                gl.st.set_error(glow::INVALID_ENUM);
                return None;
            }
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn glGetSamplerParameterIiv(s: u32, pname: u32, out: *mut i32) {
    if let Some(v) = sampler_param_get_words(s, pname) {
        for (i, x) in v.iter().enumerate() {
            // SAFETY: GL promises room for the values of `pname`.
            unsafe { put(out.add(i), *x as i32) };
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetSamplerParameterIuiv(s: u32, pname: u32, out: *mut u32) {
    if let Some(v) = sampler_param_get_words(s, pname) {
        for (i, x) in v.iter().enumerate() {
            // SAFETY: GL promises room for the values of `pname`.
            unsafe { put(out.add(i), *x) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{
        base_format_border, clamp_as_border, linear_clamp_axes, mipmap_incomplete, texture_bands,
        Band, WRAP_CLAMP,
    };
    use crate::context::TexParams;

    #[test]
    fn mipmapped_filters_need_every_level() {
        use crate::context::{LevelInfo, Texture};
        let info = |w: u32, h: u32| LevelInfo {
            width: w,
            height: h,
            depth: 1,
            internal_format: glow::RGBA8,
            requested: glow::RGBA8,
        };
        let mut t = Texture::new(mgpipe::Handle::NULL);
        t.target = glow::TEXTURE_2D;
        t.set_level(0, 0, info(4, 2));
        let mipmapped = TexParams::default();
        let nearest = TexParams {
            min_filter: glow::NEAREST,
            ..TexParams::default()
        };
        assert!(mipmap_incomplete(&t, &mipmapped));
        assert!(!mipmap_incomplete(&t, &nearest));
        t.set_level(0, 1, info(2, 1));
        assert!(mipmap_incomplete(&t, &mipmapped), "no 1x1 level");
        t.set_level(0, 2, info(1, 1));
        assert!(!mipmap_incomplete(&t, &mipmapped));
        t.set_level(0, 1, info(3, 1));
        assert!(mipmap_incomplete(&t, &mipmapped), "wrong size");
        t.max_level = 0;
        assert!(!mipmap_incomplete(&t, &mipmapped), "max level 0");
        // A cube map needs each face's levels.
        let mut c = Texture::new(mgpipe::Handle::NULL);
        c.target = glow::TEXTURE_CUBE_MAP;
        for f in 0..6 {
            c.set_level(f, 0, info(2, 2));
            c.set_level(f, 1, info(1, 1));
        }
        assert!(!mipmap_incomplete(&c, &mipmapped));
        c.levels[3].truncate(1);
        assert!(mipmap_incomplete(&c, &mipmapped));
    }

    #[test]
    fn border_colour_takes_the_base_format_components() {
        let b = [0.1, 0.9, 0.5, 0.8];
        assert_eq!(base_format_border(glow::RGB10, b), [0.1, 0.9, 0.5, 1.0]);
        assert_eq!(base_format_border(glow::RG16, b), [0.1, 0.9, 0.0, 1.0]);
        assert_eq!(base_format_border(glow::R32F, b), [0.1, 0.0, 0.0, 1.0]);
        assert_eq!(base_format_border(glow::RGBA8, b), b);
        // Integer and unknown (compressed) formats are left alone.
        assert_eq!(base_format_border(glow::RG8UI, b), b);
        assert_eq!(base_format_border(0x83F0, b), b);
    }

    #[test]
    fn gl_clamp_reads_the_border_only_under_linear_filtering() {
        let p = TexParams {
            min_filter: glow::NEAREST,
            mag_filter: glow::NEAREST,
            wrap_s: WRAP_CLAMP,
            wrap_t: glow::REPEAT,
            wrap_r: WRAP_CLAMP,
            ..TexParams::default()
        };
        assert_eq!(linear_clamp_axes(&p), 0);
        assert_eq!(clamp_as_border(p).wrap_s, WRAP_CLAMP);
        for (min, mag) in [
            (glow::LINEAR, glow::LINEAR),
            (glow::NEAREST, glow::LINEAR),
            (glow::LINEAR_MIPMAP_NEAREST, glow::NEAREST),
        ] {
            let q = TexParams {
                min_filter: min,
                mag_filter: mag,
                ..p
            };
            assert_eq!(linear_clamp_axes(&q), 0b101);
            let b = clamp_as_border(q);
            assert_eq!(
                [b.wrap_s, b.wrap_t, b.wrap_r],
                [glow::CLAMP_TO_BORDER, glow::REPEAT, glow::CLAMP_TO_BORDER]
            );
        }
    }

    fn band(y: u32, rows: u32, z: u32, slices: u32, start: usize, len: usize) -> Band {
        Band {
            y,
            rows,
            z,
            slices,
            start,
            len,
        }
    }

    #[test]
    fn image_2d_below_at_and_above_the_limit() {
        // 4x4 RGBA8: 16-byte rows, 64 bytes.
        assert_eq!(texture_bands(4, 4, 1, 4, 64), [band(0, 4, 0, 1, 0, 64)]);
        assert_eq!(texture_bands(4, 4, 1, 4, 65), [band(0, 4, 0, 1, 0, 64)]);
        // One byte short: the slice does not fit, rows of it do (3 a band).
        assert_eq!(
            texture_bands(4, 4, 1, 4, 63),
            [band(0, 3, 0, 1, 0, 48), band(3, 1, 0, 1, 48, 16)]
        );
        assert_eq!(
            texture_bands(4, 4, 1, 4, 32),
            [band(0, 2, 0, 1, 0, 32), band(2, 2, 0, 1, 32, 32)]
        );
        // 4096x4096 RGBA16F (128 MiB) under a 16 MiB limit: 8 bands of
        // 512 rows.
        let b = texture_bands(4096, 4096, 1, 8, 16 << 20);
        assert_eq!(b.len(), 8);
        assert!(b
            .iter()
            .enumerate()
            .all(|(i, b)| *b == band(i as u32 * 512, 512, 0, 1, i * (16 << 20), 16 << 20)));
    }

    #[test]
    fn slices_travel_whole_when_one_fits() {
        // 2x2 RGBA8 slices of 16 bytes, 5 of them, 40 bytes a record.
        assert_eq!(
            texture_bands(2, 2, 5, 4, 40),
            [
                band(0, 2, 0, 2, 0, 32),
                band(0, 2, 2, 2, 32, 32),
                band(0, 2, 4, 1, 64, 16),
            ]
        );
        // Exactly one slice a record.
        assert_eq!(
            texture_bands(2, 2, 2, 4, 16),
            [band(0, 2, 0, 1, 0, 16), band(0, 2, 1, 1, 16, 16)]
        );
    }

    #[test]
    fn rows_within_a_slice_when_a_slice_is_too_large() {
        // 4x3 R8: 4-byte rows, 12-byte slices, 8 bytes a record.
        assert_eq!(
            texture_bands(4, 3, 2, 1, 8),
            [
                band(0, 2, 0, 1, 0, 8),
                band(2, 1, 0, 1, 8, 4),
                band(0, 2, 1, 1, 12, 8),
                band(2, 1, 1, 1, 20, 4),
            ]
        );
    }

    /// Every band fits, and the bands tile the blob in order with the box
    /// each one names.
    #[test]
    fn bands_tile_the_blob() {
        for (w, h, d, bpp) in [(3, 5, 7, 4), (1, 1, 9, 1), (17, 3, 2, 16), (5, 9, 1, 2)] {
            let row = w as usize * bpp;
            let slice = row * h as usize;
            let total = slice * d as usize;
            for max in [
                1,
                row - 1,
                row,
                row + 1,
                slice - 1,
                slice,
                slice + 1,
                total,
                total * 2,
            ] {
                let max = max.max(1);
                let mut next = 0;
                for b in texture_bands(w, h, d, bpp, max) {
                    assert_eq!(b.start, next, "{w}x{h}x{d}x{bpp} max {max}");
                    assert_eq!(b.start, b.z as usize * slice + b.y as usize * row);
                    assert_eq!(b.len, b.rows as usize * b.slices as usize * row);
                    assert!(b.slices == 1 || b.rows == h);
                    assert!(b.y + b.rows <= h && b.z + b.slices <= d);
                    assert!(b.len <= max || b.rows == 1, "{b:?} over {max}");
                    next += b.len;
                }
                assert_eq!(next, total, "{w}x{h}x{d}x{bpp} max {max}");
            }
        }
    }
}
