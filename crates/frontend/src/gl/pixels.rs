//! Pixel transfer: the client applies the application's pack/unpack state;
//! only tight rows cross the pipe (no unpack state crosses, DESIGN D5).
//!
//! Sizes come from `mgpipe::pixels`, the table the backends use, so both
//! halves agree on how many bytes a pixel is. What stays here is GL's
//! verdict on a (format, type) pair, [`pixel_pair`]: which error a bad pair
//! raises is a frontend decision (the backends only ever see pairs that
//! passed it), and `mgpipe::pixels::bytes_per_pixel` is deliberately
//! lenient (a packed type sizes any format) where GL is not.

use std::ffi::c_void;

use mgpipe::calls;
use mgpipe::pixels as mp;
use mgpipe::{Handle, Pipe};

use super::log_once;
use super::validate::{has_depth, has_stencil};
use crate::context::{with_gl, Gl, PixelStore, MAX_DRAW_BUFFERS};
use crate::runtime::BlockingCause;

/// Whether `format` is a pixel format of the transfer commands: GL 4.6 core
/// Table 8.3, plus the compatibility profile's ALPHA, LUMINANCE and
/// LUMINANCE_ALPHA. `mgpipe::pixels::channels` lists every one of them but
/// DEPTH_STENCIL (it has no separately convertible components).
fn accepted_format(format: u32) -> bool {
    format == glow::DEPTH_STENCIL || mp::channels(format).is_some()
}

/// Whether `ty` is a pixel type of the transfer commands (GL 4.6 core
/// Table 8.2: the scalar types and the packed types of Table 8.5).
fn accepted_type(ty: u32) -> bool {
    mp::scalar_size(ty).is_some() || packed_type_formats(ty).is_some()
}

/// The formats a packed type may be used with (GL 4.6 core Table 8.5);
/// None when `ty` is not a packed type.
fn packed_type_formats(ty: u32) -> Option<&'static [u32]> {
    Some(match ty {
        glow::UNSIGNED_BYTE_3_3_2
        | glow::UNSIGNED_BYTE_2_3_3_REV
        | glow::UNSIGNED_SHORT_5_6_5
        | glow::UNSIGNED_SHORT_5_6_5_REV => &[glow::RGB, glow::RGB_INTEGER],
        glow::UNSIGNED_SHORT_4_4_4_4
        | glow::UNSIGNED_SHORT_4_4_4_4_REV
        | glow::UNSIGNED_SHORT_5_5_5_1
        | glow::UNSIGNED_SHORT_1_5_5_5_REV
        | glow::UNSIGNED_INT_8_8_8_8
        | glow::UNSIGNED_INT_8_8_8_8_REV
        | glow::UNSIGNED_INT_10_10_10_2
        | glow::UNSIGNED_INT_2_10_10_10_REV => &[
            glow::RGBA,
            glow::BGRA,
            glow::RGBA_INTEGER,
            glow::BGRA_INTEGER,
        ],
        glow::UNSIGNED_INT_24_8 | glow::FLOAT_32_UNSIGNED_INT_24_8_REV => &[glow::DEPTH_STENCIL],
        glow::UNSIGNED_INT_10F_11F_11F_REV | glow::UNSIGNED_INT_5_9_9_9_REV => &[glow::RGB],
        _ => return None,
    })
}

/// GL's verdict on a (format, type) pair of a pixel transfer (glReadPixels,
/// glGetTexImage, glTex[Sub]Image*): Ok(bytes per pixel) or the error the
/// command raises, by the GL 4.6 core rules:
///
/// * a format or type that is not a transfer enum: INVALID_ENUM;
/// * DEPTH_STENCIL with a type other than UNSIGNED_INT_24_8 or
///   FLOAT_32_UNSIGNED_INT_24_8_REV: INVALID_ENUM (glReadPixels' error list;
///   the GL 4 reference page and Mesa's desktop-GL check agree, and both
///   apply it to glTex[Sub]Image too: GL_INVALID_OPERATION for this pair is
///   the OpenGL ES rule);
/// * a packed type with a format Table 8.5 does not pair it with:
///   INVALID_OPERATION (UNSIGNED_INT_24_8 with DEPTH_COMPONENT included).
///
/// The size of every pair that passes is `mgpipe::pixels::bytes_per_pixel`.
pub fn pixel_pair(format: u32, ty: u32) -> Result<usize, u32> {
    if !accepted_format(format) || !accepted_type(ty) {
        return Err(glow::INVALID_ENUM);
    }
    if format == glow::DEPTH_STENCIL
        && !matches!(
            ty,
            glow::UNSIGNED_INT_24_8 | glow::FLOAT_32_UNSIGNED_INT_24_8_REV
        )
    {
        return Err(glow::INVALID_ENUM);
    }
    if let Some(formats) = packed_type_formats(ty) {
        if !formats.contains(&format) {
            return Err(glow::INVALID_OPERATION);
        }
    }
    // Integer formats take no float types (Mesa answers INVALID_ENUM, as
    // EXT_texture_integer specifies; the packed float types were refused
    // above as packed types).
    if is_integer_format(format) && matches!(ty, glow::FLOAT | glow::HALF_FLOAT) {
        return Err(glow::INVALID_ENUM);
    }
    mp::bytes_per_pixel(format, ty).ok_or(glow::INVALID_ENUM)
}

/// Whether a client pixel format is one of the `*_INTEGER` ones (GL 4.6
/// Table 8.3): their data is never normalised.
pub fn is_integer_format(format: u32) -> bool {
    matches!(
        format,
        glow::RED_INTEGER
            | glow::GREEN_INTEGER
            | glow::BLUE_INTEGER
            | glow::RG_INTEGER
            | glow::RGB_INTEGER
            | glow::BGR_INTEGER
            | glow::RGBA_INTEGER
            | glow::BGRA_INTEGER
            | mp::gl::ALPHA_INTEGER
            | mp::gl::LUMINANCE_INTEGER
            | mp::gl::LUMINANCE_ALPHA_INTEGER
    )
}

/// GL 4.6 §8.6: integer pixels go to integer internal formats only, and
/// the other way round (INVALID_OPERATION).
pub fn integer_mismatch(internal: u32, format: u32) -> bool {
    let internal_integer = matches!(
        super::framebuffers::format_component_type(internal),
        glow::INT | glow::UNSIGNED_INT
    );
    // Depth and stencil pixels are neither.
    let colour = !matches!(
        format,
        glow::DEPTH_COMPONENT | glow::STENCIL_INDEX | glow::DEPTH_STENCIL
    );
    colour && internal_integer != is_integer_format(format)
}

/// GL 4.6 §8.6: one of the texture's base internal format and the pixel
/// `format` is a depth/stencil one and the other is not
/// (INVALID_OPERATION).
pub fn depth_stencil_mismatch(internal: u32, format: u32) -> bool {
    use super::validate::{has_depth, has_stencil};
    let internal_ds = has_depth(internal) || has_stencil(internal);
    let format_ds = matches!(
        format,
        glow::DEPTH_COMPONENT | glow::STENCIL_INDEX | glow::DEPTH_STENCIL
    );
    internal_ds != format_ds
}

/// GL 4.6 §8.5: depth, depth-stencil and stencil internal formats are
/// refused (INVALID_OPERATION) for 3D textures (they are valid for 1D, 2D,
/// rectangle, cube map and 1D/2D/cube-map array textures).
pub fn depth_stencil_in_3d(target: u32, internal: u32) -> bool {
    use super::validate::{has_depth, has_stencil};
    target == glow::TEXTURE_3D && (has_depth(internal) || has_stencil(internal))
}

/// Bytes of the datum `ty` stores (one component, or one whole packed
/// pixel): the alignment a pack-buffer offset needs.
fn datum_size(ty: u32) -> Option<usize> {
    mp::scalar_size(ty).or_else(|| {
        packed_type_formats(ty)?;
        // A packed type sizes its pixel whatever the format.
        mp::bytes_per_pixel(glow::RGBA, ty)
    })
}

/// The unit PACK_SWAP_BYTES reverses: one component, one packed pixel, or
/// each 32-bit word of FLOAT_32_UNSIGNED_INT_24_8_REV.
fn swap_unit(ty: u32) -> usize {
    datum_size(ty).unwrap_or(1).min(4)
}

/// Layout of one client image under a pixel store.
#[derive(Debug, Clone, Copy)]
pub struct ClientLayout {
    pub row_stride: usize,
    pub image_stride: usize,
    pub skip: usize,
    pub row_bytes: usize,
}

impl ClientLayout {
    /// Bytes from the image's start to the end of its last row (`depth`
    /// images of `height` rows, 0 counted as 1; nothing when a dimension
    /// is 0): how much memory the layout touches. None when that does not
    /// fit a `usize` (no application can have such memory).
    pub fn end(&self, height: usize, depth: usize) -> Option<usize> {
        if height == 0 || self.row_bytes == 0 {
            return Some(0);
        }
        self.skip
            .checked_add(
                depth
                    .max(1)
                    .checked_sub(1)?
                    .checked_mul(self.image_stride)?,
            )?
            .checked_add((height - 1).checked_mul(self.row_stride)?)?
            .checked_add(self.row_bytes)
    }
}

/// The client layout of a `width` x `height` image of `bpp`-byte pixels.
/// Saturating: hostile pixel-store values give a layout whose
/// [`ClientLayout::end`] is None, never an overflow.
pub fn client_layout(ps: &PixelStore, width: usize, height: usize, bpp: usize) -> ClientLayout {
    let row_px = if ps.row_length > 0 {
        ps.row_length as usize
    } else {
        width
    };
    let a = ps.alignment.max(1) as usize;
    let row_stride = row_px.saturating_mul(bpp).div_ceil(a).saturating_mul(a);
    let rows = if ps.image_height > 0 {
        ps.image_height as usize
    } else {
        height
    };
    let image_stride = row_stride.saturating_mul(rows);
    let skip = (ps.skip_pixels.max(0) as usize)
        .saturating_mul(bpp)
        .saturating_add((ps.skip_rows.max(0) as usize).saturating_mul(row_stride))
        .saturating_add((ps.skip_images.max(0) as usize).saturating_mul(image_stride));
    ClientLayout {
        row_stride,
        image_stride,
        skip,
        row_bytes: width.saturating_mul(bpp),
    }
}

/// A client image as tight rows: the application's own bytes when its
/// layout already is tight (the usual case: no row length, skips or swap,
/// rows a multiple of the alignment), else a gathered copy. Borrowing saves
/// a heap allocation and a copy per upload: monolith hands the bytes to the
/// driver as they are, the ring transports copy them once into STAGE.
///
/// # Safety
/// `src` must point at the image the application described, readable for
/// the lifetime `'a` the caller picks (the GL call it serves).
///
/// The gathered copy is made in `scratch` (taken; hand it back with
/// [`reuse_scratch`] after the upload).
#[allow(clippy::too_many_arguments)]
pub unsafe fn unpack_tight<'a>(
    ps: &PixelStore,
    width: u32,
    height: u32,
    depth: u32,
    bpp: usize,
    ty: u32,
    src: *const u8,
    scratch: &mut Vec<u8>,
) -> std::borrow::Cow<'a, [u8]> {
    let (w, h, d) = (width as usize, height as usize, depth.max(1) as usize);
    if !ps.swap_bytes && !src.is_null() {
        let l = client_layout(ps, w, h, bpp);
        let rows_tight = h <= 1 || l.row_stride == l.row_bytes;
        let images_tight = d <= 1 || l.image_stride == h.saturating_mul(l.row_bytes);
        let len = h.checked_mul(d).and_then(|n| n.checked_mul(l.row_bytes));
        if let (true, true, Some(_), Some(len)) = (rows_tight, images_tight, l.end(h, d), len) {
            // SAFETY: tight rows: the described image is exactly `len`
            // bytes from `skip` (its end did not overflow), which the
            // caller promises readable for `'a`.
            return std::borrow::Cow::Borrowed(unsafe {
                std::slice::from_raw_parts(src.add(l.skip), len)
            });
        }
    }
    let mut out = std::mem::take(scratch);
    // SAFETY: forwarded.
    unsafe { unpack_into(ps, width, height, depth, bpp, ty, src, &mut out) };
    std::borrow::Cow::Owned(out)
}

/// A client image's own rows with their stride, for a transport that hands
/// blobs to the backend by reference (monolith): the bytes from its first
/// pixel to the end of its last row, and the row stride. The backend's
/// driver then reads the rows where they are (GLES 3.0 has
/// `UNPACK_ROW_LENGTH`), saving the gather into tight rows — Minecraft
/// uploads atlas tiles out of larger images this way. None where the
/// gather is needed or free anyway: a tight layout (borrowed as it is by
/// [`unpack_tight`]), swapped bytes, several images, a stride that is not
/// a whole number of pixels or past `u32`.
///
/// # Safety
/// `src` must point at the image the application described, readable for
/// the lifetime `'a` the caller picks (the GL call it serves).
pub unsafe fn unpack_strided<'a>(
    ps: &PixelStore,
    width: u32,
    height: u32,
    depth: u32,
    bpp: usize,
    src: *const u8,
) -> Option<(&'a [u8], u32)> {
    if ps.swap_bytes || src.is_null() || depth > 1 || height <= 1 || bpp == 0 {
        return None;
    }
    let l = client_layout(ps, width as usize, height as usize, bpp);
    if l.row_stride == l.row_bytes || !l.row_stride.is_multiple_of(bpp) || l.row_bytes == 0 {
        return None;
    }
    let stride = u32::try_from(l.row_stride).ok()?;
    let end = l.end(height as usize, 1)?;
    // SAFETY: the described image spans `skip..end` (no overflow: `end`
    // is Some), which the caller promises readable for `'a`.
    let bytes = unsafe { std::slice::from_raw_parts(src.add(l.skip), end - l.skip) };
    Some((bytes, stride))
}

/// Keep an upload's gathered bytes as the next gather's buffer (unless it
/// grew past `UPLOAD_SCRATCH_MAX`, which is then freed rather than held).
pub fn reuse_scratch(blob: std::borrow::Cow<'_, [u8]>, scratch: &mut Vec<u8>) {
    if let std::borrow::Cow::Owned(v) = blob {
        if v.capacity() <= UPLOAD_SCRATCH_MAX {
            *scratch = v;
        }
    }
}

/// Largest gather buffer a context keeps between uploads.
const UPLOAD_SCRATCH_MAX: usize = 1 << 20;

/// Gather a client image into tight rows.
///
/// # Safety
/// `src` must point at the image the application described.
pub unsafe fn unpack(
    ps: &PixelStore,
    width: u32,
    height: u32,
    depth: u32,
    bpp: usize,
    ty: u32,
    src: *const u8,
) -> Vec<u8> {
    let mut out = Vec::new();
    // SAFETY: forwarded.
    unsafe { unpack_into(ps, width, height, depth, bpp, ty, src, &mut out) };
    out
}

/// [`unpack`] into `out` (cleared first; its capacity is reused, so a
/// caller that keeps one buffer gathers without a heap allocation).
///
/// # Safety
/// `src` must point at the image the application described.
#[allow(clippy::too_many_arguments)]
pub unsafe fn unpack_into(
    ps: &PixelStore,
    width: u32,
    height: u32,
    depth: u32,
    bpp: usize,
    ty: u32,
    src: *const u8,
    out: &mut Vec<u8>,
) {
    out.clear();
    let (w, h, d) = (width as usize, height as usize, depth.max(1) as usize);
    let l = client_layout(ps, w, h, bpp);
    // A layout past the address space cannot be the application's memory.
    let len = h.checked_mul(d).and_then(|n| n.checked_mul(l.row_bytes));
    let (Some(_), Some(len)) = (l.end(h, d), len) else {
        return;
    };
    out.reserve(len);
    if src.is_null() {
        return;
    }
    for z in 0..d {
        for y in 0..h {
            // In range: at most `l.end(h, d)`, which did not overflow.
            let off = l.skip + z * l.image_stride + y * l.row_stride;
            // SAFETY: the application promises the described image is readable.
            let row = unsafe { std::slice::from_raw_parts(src.add(off), l.row_bytes) };
            out.extend_from_slice(row);
        }
    }
    if ps.swap_bytes {
        // The unit of `ty` (one component, one packed pixel), as on the
        // pack side.
        swap_bytes(out, ty);
    }
}

/// PACK_SWAP_BYTES on tight rows of type `ty`.
pub(crate) fn swap_bytes(data: &mut [u8], ty: u32) {
    swap_units(data, swap_unit(ty));
}

/// Reverse the bytes of each `unit`-byte element (PACK/UNPACK_SWAP_BYTES).
fn swap_units(data: &mut [u8], unit: usize) {
    if unit > 1 {
        for c in data.chunks_exact_mut(unit) {
            c.reverse();
        }
    }
}

/// Scatter tight rows into client memory under a pack state; bytes between
/// rows are left untouched.
///
/// # Safety
/// `dst` must point at the image the application described.
pub unsafe fn pack(
    ps: &PixelStore,
    width: u32,
    height: u32,
    bpp: usize,
    tight: &[u8],
    dst: *mut u8,
) {
    // SAFETY: forwarded; one image is the 2D case of `pack_image`.
    unsafe { pack_image(ps, width, height, 1, bpp, tight, dst) }
}

/// Scatter `depth` images of tight rows (bottom row first, images in
/// order) into client memory under a pack state, PACK_IMAGE_HEIGHT and
/// PACK_SKIP_IMAGES included; bytes between rows and images are left
/// untouched, and so is everything when `tight` runs short.
///
/// # Safety
/// `dst` must point at the image the application described.
pub unsafe fn pack_image(
    ps: &PixelStore,
    width: u32,
    height: u32,
    depth: u32,
    bpp: usize,
    tight: &[u8],
    dst: *mut u8,
) {
    let (w, h, d) = (width as usize, height as usize, depth.max(1) as usize);
    let l = client_layout(ps, w, h, bpp);
    if dst.is_null() || l.row_bytes == 0 || l.end(h, d).is_none() {
        return;
    }
    let mut rows = tight.chunks_exact(l.row_bytes);
    for z in 0..d {
        for y in 0..h {
            let Some(row) = rows.next() else {
                return;
            };
            // In range: at most `l.end(h, d)`, which did not overflow.
            let off = l.skip + z * l.image_stride + y * l.row_stride;
            // SAFETY: the application promises the described image is writable.
            unsafe { std::ptr::copy_nonoverlapping(row.as_ptr(), dst.add(off), row.len()) };
        }
    }
}

/// Where a pack into the bound PIXEL_PACK_BUFFER lands.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PackBuffer {
    handle: Handle,
    offset: u64,
    /// Bytes the layout touches from `offset` (`ClientLayout::end`).
    end: usize,
}

/// Where a pack (glReadPixels, glGetTexImage) of `depth` images of
/// `width` x `height` pixels at `offset` writes, decided before anything is
/// read: `Some(Some(range))` of the bound PIXEL_PACK_BUFFER, `Some(None)`
/// client memory at address `offset`, `None` when nothing is to be written
/// (no memory: a null address; a pack buffer without storage; or an error,
/// raised here).
#[allow(clippy::too_many_arguments)]
pub(crate) fn pack_destination(
    gl: &mut Gl,
    ps: &PixelStore,
    width: u32,
    height: u32,
    depth: u32,
    bpp: usize,
    ty: u32,
    offset: usize,
) -> Option<Option<PackBuffer>> {
    if gl.st.pixel_pack_buffer == 0 {
        return (offset != 0).then_some(None);
    }
    match pack_buffer(gl, ps, width, height, depth, bpp, ty, offset) {
        Ok(Some(t)) => Some(Some(t)),
        Ok(None) => None,
        Err(e) => {
            gl.st.set_error(e);
            None
        }
    }
}

/// Check a pack into the bound PIXEL_PACK_BUFFER: the GL errors of a pack
/// buffer are INVALID_OPERATION (the store is mapped without
/// MAP_PERSISTENT_BIT, `offset` is not a multiple of the type's datum, or
/// the writes would pass the end of the store). Ok(None): nothing to write
/// (the buffer has no storage object).
#[allow(clippy::too_many_arguments)]
fn pack_buffer(
    gl: &Gl,
    ps: &PixelStore,
    width: u32,
    height: u32,
    depth: u32,
    bpp: usize,
    ty: u32,
    offset: usize,
) -> Result<Option<PackBuffer>, u32> {
    let Some(Some(buf)) = gl.sh.buffers.get(&gl.st.pixel_pack_buffer) else {
        return Ok(None);
    };
    if buf.map.as_ref().is_some_and(|m| m.persistent.is_none()) {
        return Err(glow::INVALID_OPERATION);
    }
    if !offset.is_multiple_of(datum_size(ty).unwrap_or(1)) {
        return Err(glow::INVALID_OPERATION);
    }
    let (w, h) = (width as usize, height as usize);
    let end = client_layout(ps, w, h, bpp)
        .end(h, depth as usize)
        .filter(|&e| {
            (offset as u64)
                .checked_add(e as u64)
                .is_some_and(|t| t <= buf.size)
        })
        .ok_or(glow::INVALID_OPERATION)?;
    Ok(Some(PackBuffer {
        handle: buf.handle,
        offset: offset as u64,
        end,
    }))
}

/// Pack tight rows into the range [`pack_buffer`] checked: the bytes the
/// layout skips keep their contents (read first, a blocking point).
#[allow(clippy::too_many_arguments)]
pub(crate) fn write_pack_buffer(
    gl: &mut Gl,
    target: PackBuffer,
    ps: &PixelStore,
    width: u32,
    height: u32,
    depth: u32,
    bpp: usize,
    tight: &[u8],
) {
    if target.end == 0 {
        return;
    }
    let mut shadow = super::buffers::read_buffer(
        gl,
        target.handle,
        target.offset,
        target.end as u64,
        BlockingCause::ReadPixels,
    );
    shadow.resize(target.end, 0);
    // SAFETY: `shadow` holds `end` bytes, all the layout touches.
    unsafe { pack_image(ps, width, height, depth, bpp, tight, shadow.as_mut_ptr()) };
    super::buffers::send_subdata(gl, target.handle, target.offset, &shadow);
}

/// Read `height` rows of `width` pixels of the read surface from (x, y)
/// into `out` (tight, bottom row first), in bands of whole rows no larger
/// than one reply. One band (the common case) reads straight into `out`,
/// over its old bytes (the reply sets the length); several are gathered.
/// `counted`: the first round trip was already counted as blocking.
/// False, with `out` empty, when the rows do not fit in memory (the
/// caller's GL_OUT_OF_MEMORY).
#[allow(clippy::too_many_arguments)]
pub(crate) fn read_bands(
    gl: &mut Gl,
    x: i32,
    y: i32,
    width: u32,
    height: u32,
    format: u32,
    ty: u32,
    row_bytes: usize,
    out: &mut Vec<u8>,
    mut counted: bool,
) -> bool {
    let h = height as usize;
    let Some(total) = row_bytes.checked_mul(h) else {
        out.clear();
        return false;
    };
    if out.capacity() < total && out.try_reserve(total - out.len()).is_err() {
        out.clear();
        return false;
    }
    if row_bytes > gl.conn.max_reply {
        // Not even one row fits a reply: the backend could only answer it
        // empty. Undefined pixels, as outside the read surface.
        log_once("read_pixels_row_too_large", || {
            format!(
                "pixel read: a row of {row_bytes} bytes is larger than one reply ({} bytes): \
                 zeros returned",
                gl.conn.max_reply
            )
        });
        out.clear();
        out.resize(total, 0);
        return true;
    }
    let rows_per_band = (gl.conn.max_reply / row_bytes.max(1)).max(1);
    if rows_per_band < h {
        out.clear();
    }
    let mut band = Vec::new();
    let mut row = 0usize;
    while row < h {
        let rows = rows_per_band.min(h - row);
        let dst = if rows == h { &mut *out } else { &mut band };
        if !std::mem::take(&mut counted) {
            gl.conn.blocking(BlockingCause::ReadPixels);
        }
        let p = calls::ReadPixels {
            x,
            // Rows past i32::MAX lie outside every surface (undefined).
            y: y.saturating_add(row as i32),
            width,
            height: rows as u32,
            format,
            r#type: ty,
        };
        gl.conn.pipe.read_pixels(&p, dst);
        dst.resize(rows * row_bytes, 0);
        if rows != h {
            out.extend_from_slice(&band);
        }
        row += rows;
    }
    true
}

thread_local! {
    /// The read-back buffer of the last glReadPixels on this thread, kept so
    /// that the next one neither allocates (fresh pages fault) nor zero-fills.
    static READBACK: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Largest read-back buffer kept between calls.
const READBACK_KEEP: usize = 16 << 20;

fn take_readback() -> Vec<u8> {
    READBACK
        .try_with(|b| std::mem::take(&mut *b.borrow_mut()))
        .unwrap_or_default()
}

fn keep_readback(v: Vec<u8>) {
    if v.capacity() <= READBACK_KEEP {
        let _ = READBACK.try_with(|b| *b.borrow_mut() = v);
    }
}

#[no_mangle]
pub unsafe extern "C" fn glReadPixels(
    x: i32,
    y: i32,
    width: i32,
    height: i32,
    format: u32,
    ty: u32,
    data: *mut c_void,
) {
    let r = with_gl(|gl| read_pixels(gl, x, y, width, height, format, ty, data as usize));
    if let Some(r) = r {
        // SAFETY: the application promises a writable image under its pack
        // state; `r.dst` and `r.store` describe the part of it inside the
        // read framebuffer (`clipped_layout`), which lies within that image.
        unsafe {
            pack(
                &r.store,
                r.width,
                r.height,
                r.bpp,
                &r.tight,
                r.dst as *mut u8,
            )
        };
        keep_readback(r.tight);
    }
}

/// What glReadPixels hands back for client memory: the rows read (tight,
/// bottom row first) of the part of the rectangle inside the read
/// framebuffer, and where they go.
struct ClientPack {
    /// Address of the first pixel of the part read.
    dst: usize,
    /// A pack state that lays out `width` x `height` pixels from `dst`
    /// with the rows of the application's image ([`clipped_layout`]).
    store: PixelStore,
    width: u32,
    height: u32,
    bpp: usize,
    tight: Vec<u8>,
}

/// None: an error, a pack buffer, or nothing to write.
type ReadResult = Option<ClientPack>;

/// The read framebuffer as glReadPixels' errors and clipping see it.
#[derive(Debug, Clone, Copy)]
pub(super) struct ReadFramebuffer {
    /// Its size: pixels outside [0, width) x [0, height) are not read. For
    /// a framebuffer object, the smallest attachment's size (the size the
    /// frontend gives its draws; Mesa clips reads to the same).
    width: u32,
    height: u32,
    /// Internal format of the colour buffer READ_BUFFER selects; None when
    /// it is NONE (or the default framebuffer has no colour buffer).
    color: Option<u32>,
    depth: bool,
    stencil: bool,
    /// Internal format of the depth buffer (0: none).
    pub depth_format: u32,
    /// SAMPLE_BUFFERS > 0 of a framebuffer object (a complete one has one
    /// sample count across its attachments). The default framebuffer's
    /// samples are resolved by a read, never an error.
    multisampled: bool,
}

/// The read framebuffer's size, buffers and formats, or
/// INVALID_FRAMEBUFFER_OPERATION when it is not complete (the rule
/// `Gl::emit_read_surface` applies; checked here first so that the error
/// order stays INVALID_ENUM, then INVALID_FRAMEBUFFER_OPERATION, then
/// INVALID_OPERATION, and nothing is emitted for a failing call).
pub(super) fn read_framebuffer(gl: &Gl) -> Result<ReadFramebuffer, u32> {
    let name = gl.st.read_fbo;
    if name == 0 {
        // The default framebuffer: formats from the EGL config behind the
        // surface (what GL_DEPTH_BITS and friends report).
        let Some(s) = gl.st.read_surface.as_ref() else {
            return Err(glow::INVALID_FRAMEBUFFER_OPERATION);
        };
        let (width, height) = s.size();
        let ds = s.desc.depth_stencil_format;
        let color = (gl.st.default_read_buffer != glow::NONE && s.desc.color_format != 0)
            .then_some(s.desc.color_format);
        return Ok(ReadFramebuffer {
            width,
            height,
            color,
            depth: has_depth(ds),
            stencil: has_stencil(ds),
            depth_format: if has_depth(ds) { ds } else { 0 },
            multisampled: false,
        });
    }
    if gl.framebuffer_status(name) != glow::FRAMEBUFFER_COMPLETE {
        return Err(glow::INVALID_FRAMEBUFFER_OPERATION);
    }
    let Some(Some(fb)) = gl.st.fbos.get(&name) else {
        return Err(glow::INVALID_FRAMEBUFFER_OPERATION);
    };
    let rb = fb.read_buffer;
    let i = rb.wrapping_sub(glow::COLOR_ATTACHMENT0) as usize;
    let color = if rb != glow::NONE && i < MAX_DRAW_BUFFERS {
        gl.resolve_attachment(&fb.color[i]).map(|r| r.format)
    } else {
        None
    };
    let depth = gl.resolve_attachment(&fb.depth);
    let stencil = gl.resolve_attachment(&fb.stencil);
    let multisampled = fb
        .color
        .iter()
        .chain([&fb.depth, &fb.stencil])
        .filter_map(|a| gl.resolve_attachment(a))
        .any(|r| r.samples > 0);
    let (width, height) = gl.framebuffer_size(name, false);
    Ok(ReadFramebuffer {
        width,
        height,
        color,
        depth: depth.is_some_and(|r| has_depth(r.format)),
        stencil: stencil.is_some_and(|r| has_stencil(r.format)),
        depth_format: depth.map_or(0, |r| r.format),
        multisampled,
    })
}

/// GL 3.3 core §4.3.1's INVALID_OPERATION rules on the source of a read of
/// `format` (a format [`pixel_pair`] accepted):
///
/// * the read framebuffer is a multisampled framebuffer object;
/// * DEPTH_COMPONENT without a depth buffer, STENCIL_INDEX without a
///   stencil buffer, DEPTH_STENCIL without both;
/// * a colour format with no colour read buffer (READ_BUFFER NONE): no
///   buffer to obtain values from, as for depth and stencil (Mesa's
///   desktop check raises the same);
/// * an integer format (…_INTEGER) from a colour buffer that is not
///   integer, or a non-integer format from an integer one. Desktop GL has
///   no signed/unsigned rule (an INT buffer may be read as UNSIGNED_INT and
///   the reverse, with clamping); that restriction is OpenGL ES 3.0's.
pub(super) fn source_error(fb: &ReadFramebuffer, format: u32) -> Option<u32> {
    if fb.multisampled {
        return Some(glow::INVALID_OPERATION);
    }
    let present = match format {
        glow::DEPTH_COMPONENT => fb.depth,
        glow::STENCIL_INDEX => fb.stencil,
        glow::DEPTH_STENCIL => fb.depth && fb.stencil,
        _ => {
            let Some(color) = fb.color else {
                return Some(glow::INVALID_OPERATION);
            };
            let buffer_integer = matches!(
                super::framebuffers::format_component_type(color),
                glow::INT | glow::UNSIGNED_INT
            );
            // `channels` knows every colour format pixel_pair accepts.
            let format_integer = mp::channels(format).is_some_and(|(_, int)| int);
            buffer_integer == format_integer
        }
    };
    (!present).then_some(glow::INVALID_OPERATION)
}

/// The part of a read rectangle that lies inside the read framebuffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Clip {
    /// Framebuffer coordinates of its lower-left pixel.
    x: i32,
    y: i32,
    /// Its size, never 0.
    width: u32,
    height: u32,
    /// Where it starts inside the application's rectangle: pixels from the
    /// left, rows from the bottom.
    skip_pixels: u32,
    skip_rows: u32,
}

/// The part of [start, start + len) inside [0, size): (start, length,
/// offset from `start`), None when empty. In i64: no i32 or u32 overflow.
fn clip_span(start: i32, len: u32, size: u32) -> Option<(i32, u32, u32)> {
    let s = i64::from(start);
    let lo = s.max(0);
    let hi = (s + i64::from(len)).min(i64::from(size));
    if hi <= lo {
        return None;
    }
    // lo is 0 or `start` (an i32); the length and the offset are at most
    // `len` (a u32): the conversions cannot fail.
    Some((
        i32::try_from(lo).ok()?,
        u32::try_from(hi - lo).ok()?,
        u32::try_from(lo - s).ok()?,
    ))
}

/// The intersection of the rectangle [x, x + width) x [y, y + height) with
/// a `fb_width` x `fb_height` framebuffer; None when they do not meet.
fn clip_rect(
    x: i32,
    y: i32,
    width: u32,
    height: u32,
    fb_width: u32,
    fb_height: u32,
) -> Option<Clip> {
    let (cx, cw, sp) = clip_span(x, width, fb_width)?;
    let (cy, ch, sr) = clip_span(y, height, fb_height)?;
    Some(Clip {
        x: cx,
        y: cy,
        width: cw,
        height: ch,
        skip_pixels: sp,
        skip_rows: sr,
    })
}

/// Where the clipped part `c` of a `width` x `height` pack under `ps`
/// lands: the byte offset of its first pixel from the start of the
/// application's image, and a pack state that lays `c.width` x `c.height`
/// pixels out from there with the image's own rows (the same row length
/// and alignment, hence the same row stride; nothing skipped). Everything
/// it touches lies inside the image's layout. None when that layout does
/// not fit the address space.
fn clipped_layout(
    ps: &PixelStore,
    width: u32,
    height: u32,
    bpp: usize,
    c: &Clip,
) -> Option<(usize, PixelStore)> {
    let l = client_layout(ps, width as usize, height as usize, bpp);
    l.end(height as usize, 1)?;
    let offset = l
        .skip
        .checked_add((c.skip_rows as usize).checked_mul(l.row_stride)?)?
        .checked_add((c.skip_pixels as usize).checked_mul(bpp)?)?;
    let row_length = if ps.row_length > 0 {
        ps.row_length
    } else {
        // `width` came from a non-negative GLsizei.
        i32::try_from(width).ok()?
    };
    let store = PixelStore {
        row_length,
        image_height: 0,
        skip_pixels: 0,
        skip_rows: 0,
        skip_images: 0,
        alignment: ps.alignment,
        // Applied to the tight rows before they are scattered.
        swap_bytes: false,
        lsb_first: ps.lsb_first,
    };
    Some((offset, store))
}

#[allow(clippy::too_many_arguments)]
fn read_pixels(
    gl: &mut Gl,
    x: i32,
    y: i32,
    width: i32,
    height: i32,
    format: u32,
    ty: u32,
    pbo_offset: usize,
) -> ReadResult {
    if width < 0 || height < 0 {
        gl.st.set_error(glow::INVALID_VALUE);
        return None;
    }
    // Error order: INVALID_ENUM (the pair), INVALID_FRAMEBUFFER_OPERATION,
    // then the INVALID_OPERATION rules (the pair's, the source's, the pack
    // buffer's).
    let pair = pixel_pair(format, ty);
    if pair == Err(glow::INVALID_ENUM) {
        gl.st.set_error(glow::INVALID_ENUM);
        return None;
    }
    let fb = match read_framebuffer(gl) {
        Ok(fb) => fb,
        Err(e) => {
            gl.st.set_error(e);
            return None;
        }
    };
    let bpp = match pair {
        Ok(b) => b,
        Err(e) => {
            gl.st.set_error(e);
            return None;
        }
    };
    if let Some(e) = source_error(&fb, format) {
        gl.st.set_error(e);
        return None;
    }
    if width == 0 || height == 0 {
        return None;
    }
    let (w, h) = (width as u32, height as u32);
    let ps = gl.st.pack;
    // The pack buffer's errors come before anything is read, and are about
    // the whole rectangle: GL packs every pixel of it, those outside the
    // framebuffer with undefined values.
    let pbo = pack_destination(gl, &ps, w, h, 1, bpp, ty, pbo_offset)?;
    // Only the pixels inside the read framebuffer are read and written;
    // those outside keep what the application's memory held (GL leaves
    // them undefined). A rectangle wholly outside reads nothing.
    let clip = clip_rect(x, y, w, h, fb.width, fb.height)?;
    // Where the part read lands: an offset into the pack buffer's checked
    // range, or an address in the application's image.
    let placed = clipped_layout(&ps, w, h, bpp, &clip).and_then(|(offset, store)| {
        let dst = if pbo.is_some() {
            offset
        } else {
            pbo_offset.checked_add(offset)?
        };
        Some((offset, dst, store))
    });
    let Some((offset, dst, store)) = placed else {
        // The image's layout is past the address space: no application
        // memory holds it (a pack buffer's was refused above).
        gl.st.set_error(glow::OUT_OF_MEMORY);
        return None;
    };
    if let Err(e) = gl.emit_read_surface() {
        // Not reached: read_framebuffer checked the same completeness.
        gl.st.set_error(e);
        return None;
    }
    // At most the framebuffer's width of pixels; saturating, a row no
    // memory holds fails `read_bands`' reservation (GL_OUT_OF_MEMORY).
    let row_bytes = (clip.width as usize).saturating_mul(bpp);
    let rows_per_band = (gl.conn.max_reply / row_bytes.max(1)).max(1);
    let sub = client_layout(&store, clip.width as usize, clip.height as usize, bpp);
    // When the part read is tight rows in the client's layout (the usual
    // RGBA8 read of a whole target, or a single row), the answer goes
    // straight into its memory: applied in place in monolith, copied once
    // out of REPLY in the ring transports.
    let mut counted = false;
    let total = row_bytes.checked_mul(clip.height as usize);
    // LUMINANCE reads are computed here from RGBA (L = R + G + B).
    let luminance = matches!(format, glow::LUMINANCE | glow::LUMINANCE_ALPHA);
    // DEPTH_STENCIL reads are put together here from a depth and a
    // stencil read (neither backend reads both aspects at once everywhere).
    let split = luminance || format == glow::DEPTH_STENCIL;
    if let (None, Some(total), false) = (pbo, total, split) {
        // One row is tight whatever the stride.
        let tight = sub.row_stride == row_bytes || clip.height == 1;
        if !ps.swap_bytes && tight && rows_per_band >= clip.height as usize {
            gl.conn.blocking(BlockingCause::ReadPixels);
            counted = true;
            let p = calls::ReadPixels {
                x: clip.x,
                y: clip.y,
                width: clip.width,
                height: clip.height,
                format,
                r#type: ty,
            };
            // SAFETY: the application promises a writable image under its
            // pack state; `clipped_layout` places these `height` tight rows
            // of `row_bytes` inside it.
            let dst = unsafe { std::slice::from_raw_parts_mut(dst as *mut u8, total) };
            if gl.conn.pipe.read_pixels_into(&p, dst) {
                return None;
            }
        }
    }
    // The previous call's buffer: a single band reads over its old bytes.
    let mut reply = take_readback();
    if luminance {
        let clamp = !matches!(ty, glow::FLOAT | glow::HALF_FLOAT)
            || fb
                .color
                .is_none_or(|c| super::framebuffers::format_component_type(c) != glow::FLOAT);
        match read_luminance(gl, &clip, format, ty, clamp) {
            Some(v) => reply = v,
            None => {
                gl.st.set_error(glow::OUT_OF_MEMORY);
                return None;
            }
        }
    } else if format == glow::DEPTH_STENCIL {
        match read_depth_stencil(gl, &clip, ty) {
            Some(v) => reply = v,
            None => {
                gl.st.set_error(glow::OUT_OF_MEMORY);
                return None;
            }
        }
    } else if !read_bands(
        gl,
        clip.x,
        clip.y,
        clip.width,
        clip.height,
        format,
        ty,
        row_bytes,
        &mut reply,
        counted,
    ) {
        gl.st.set_error(glow::OUT_OF_MEMORY);
        return None;
    }
    if ps.swap_bytes {
        swap_bytes(&mut reply, ty);
    }
    if let Some(target) = pbo {
        // Pack into a buffer object: scatter into a shadow of the range the
        // part read touches (inside the range `pack_buffer` checked).
        let Some(end) = sub.end(clip.height as usize, 1) else {
            keep_readback(reply);
            return None;
        };
        let part = PackBuffer {
            handle: target.handle,
            offset: target.offset.saturating_add(offset as u64),
            end,
        };
        write_pack_buffer(gl, part, &store, clip.width, clip.height, 1, bpp, &reply);
        keep_readback(reply);
        return None;
    }
    Some(ClientPack {
        dst,
        store,
        width: clip.width,
        height: clip.height,
        bpp,
        tight: reply,
    })
}

/// Tight rows of a LUMINANCE / LUMINANCE_ALPHA read of `clip`: the colour
/// buffer is read as RGBA floats and L = R + G + B (GL 4.6 compatibility
/// §18.2.8, "Conversion to L"), clamped to [0, 1] with the other
/// components when `clamp` (fixed-point buffers and non-float types).
/// None: no memory for it.
fn read_luminance(gl: &mut Gl, clip: &Clip, format: u32, ty: u32, clamp: bool) -> Option<Vec<u8>> {
    let row_bytes = (clip.width as usize).checked_mul(16)?;
    let mut rgba = Vec::new();
    if !read_bands(
        gl,
        clip.x,
        clip.y,
        clip.width,
        clip.height,
        glow::RGBA,
        glow::FLOAT,
        row_bytes,
        &mut rgba,
        false,
    ) {
        return None;
    }
    let n = rgba.len() / 16;
    let mut la = Vec::new();
    la.try_reserve_exact(n * 8).ok()?;
    for px in rgba.chunks_exact(16) {
        let c = |i: usize| {
            let v = f32::from_le_bytes([px[i * 4], px[i * 4 + 1], px[i * 4 + 2], px[i * 4 + 3]]);
            if clamp {
                v.clamp(0.0, 1.0)
            } else {
                v
            }
        };
        let l = c(0) + c(1) + c(2);
        let l = if clamp { l.min(1.0) } else { l };
        la.extend_from_slice(&l.to_le_bytes());
        la.extend_from_slice(&c(3).to_le_bytes());
    }
    mp::convert(&la, glow::LUMINANCE_ALPHA, glow::FLOAT, format, ty, n)
}

/// Tight rows of a DEPTH_STENCIL read of `clip` in `ty`
/// (UNSIGNED_INT_24_8 or FLOAT_32_UNSIGNED_INT_24_8_REV), packed from a
/// DEPTH_COMPONENT/FLOAT read and a STENCIL_INDEX/UNSIGNED_BYTE read.
/// None: no memory for it.
fn read_depth_stencil(gl: &mut Gl, clip: &Clip, ty: u32) -> Option<Vec<u8>> {
    let w = clip.width as usize;
    let mut depth = Vec::new();
    let mut stencil = Vec::new();
    if !read_bands(
        gl,
        clip.x,
        clip.y,
        clip.width,
        clip.height,
        glow::DEPTH_COMPONENT,
        glow::FLOAT,
        w.checked_mul(4)?,
        &mut depth,
        false,
    ) || !read_bands(
        gl,
        clip.x,
        clip.y,
        clip.width,
        clip.height,
        glow::STENCIL_INDEX,
        glow::UNSIGNED_BYTE,
        w,
        &mut stencil,
        false,
    ) {
        return None;
    }
    let float = ty == glow::FLOAT_32_UNSIGNED_INT_24_8_REV;
    let mut out = Vec::new();
    out.try_reserve_exact(stencil.len().checked_mul(if float { 8 } else { 4 })?)
        .ok()?;
    for (d, &st) in depth.chunks_exact(4).zip(&stencil) {
        let d = f32::from_le_bytes([d[0], d[1], d[2], d[3]]);
        if float {
            out.extend_from_slice(&d.to_le_bytes());
            out.extend_from_slice(&u32::from(st).to_le_bytes());
        } else {
            let z = (f64::from(d.clamp(0.0, 1.0)) * 16_777_215.0).round() as u32;
            out.extend_from_slice(&((z << 8) | u32::from(st)).to_le_bytes());
        }
    }
    Some(out)
}

/// A rectangle read back for glCopyPixels (`pixel_rect`): the part inside
/// the read framebuffer, `skip` pixels and rows into the rectangle asked
/// for, as tight rows.
pub(super) struct ReadRect {
    pub skip: [u32; 2],
    pub width: u32,
    pub height: u32,
    pub bytes: Vec<u8>,
}

/// Read the part of a rectangle inside the read framebuffer as tight rows
/// of `format`/`ty`, whatever the application's pack state and pack
/// buffer (set aside for the read). None: nothing inside, an error raised
/// (the caller checked the source first), or no memory for it.
#[allow(clippy::too_many_arguments)]
pub(super) fn read_rect(
    gl: &mut Gl,
    x: i32,
    y: i32,
    width: u32,
    height: u32,
    format: u32,
    ty: u32,
) -> Option<ReadRect> {
    let fb = read_framebuffer(gl).ok()?;
    let clip = clip_rect(x, y, width, height, fb.width, fb.height)?;
    let bpp = pixel_pair(format, ty).ok()?;
    let len = (clip.width as usize)
        .checked_mul(clip.height as usize)?
        .checked_mul(bpp)?;
    let mut bytes = Vec::new();
    if bytes.try_reserve_exact(len).is_err() {
        gl.st.set_error(glow::OUT_OF_MEMORY);
        return None;
    }
    bytes.resize(len, 0);
    let (pack, pbo) = (gl.st.pack, gl.st.pixel_pack_buffer);
    gl.st.pack = PixelStore {
        alignment: 1,
        ..PixelStore::default()
    };
    gl.st.pixel_pack_buffer = 0;
    let r = read_pixels(
        gl,
        clip.x,
        clip.y,
        clip.width as i32,
        clip.height as i32,
        format,
        ty,
        bytes.as_mut_ptr() as usize,
    );
    gl.st.pack = pack;
    gl.st.pixel_pack_buffer = pbo;
    if let Some(r) = r {
        // SAFETY: `r` describes the part read inside `bytes` (tight rows of
        // `clip.width` pixels under a tight pack state), which is `len`
        // bytes long.
        unsafe {
            pack_image(
                &r.store,
                r.width,
                r.height,
                1,
                r.bpp,
                &r.tight,
                r.dst as *mut u8,
            )
        };
        keep_readback(r.tight);
    }
    Some(ReadRect {
        skip: [clip.skip_pixels, clip.skip_rows],
        width: clip.width,
        height: clip.height,
        bytes,
    })
}

/// Check (format, type) for uploads, raising GL's error for a refused pair;
/// returns bytes per pixel.
pub fn check_upload_format(gl: &mut Gl, format: u32, ty: u32) -> Option<usize> {
    match pixel_pair(format, ty) {
        Ok(b) => Some(b),
        Err(e) => {
            gl.st.set_error(e);
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every format and type enum the transfer commands know, and a few
    /// they do not.
    const FORMATS: &[u32] = &[
        glow::RED,
        glow::GREEN,
        glow::BLUE,
        glow::ALPHA,
        glow::RG,
        glow::RGB,
        glow::BGR,
        glow::RGBA,
        glow::BGRA,
        glow::LUMINANCE,
        glow::LUMINANCE_ALPHA,
        glow::RED_INTEGER,
        glow::GREEN_INTEGER,
        glow::BLUE_INTEGER,
        glow::RG_INTEGER,
        glow::RGB_INTEGER,
        glow::BGR_INTEGER,
        glow::RGBA_INTEGER,
        glow::BGRA_INTEGER,
        glow::STENCIL_INDEX,
        glow::DEPTH_COMPONENT,
        glow::DEPTH_STENCIL,
        0,
        0xdead,
        glow::RGBA8,
    ];
    const TYPES: &[u32] = &[
        glow::UNSIGNED_BYTE,
        glow::BYTE,
        glow::UNSIGNED_SHORT,
        glow::SHORT,
        glow::UNSIGNED_INT,
        glow::INT,
        glow::HALF_FLOAT,
        glow::FLOAT,
        glow::UNSIGNED_BYTE_3_3_2,
        glow::UNSIGNED_BYTE_2_3_3_REV,
        glow::UNSIGNED_SHORT_5_6_5,
        glow::UNSIGNED_SHORT_5_6_5_REV,
        glow::UNSIGNED_SHORT_4_4_4_4,
        glow::UNSIGNED_SHORT_4_4_4_4_REV,
        glow::UNSIGNED_SHORT_5_5_5_1,
        glow::UNSIGNED_SHORT_1_5_5_5_REV,
        glow::UNSIGNED_INT_8_8_8_8,
        glow::UNSIGNED_INT_8_8_8_8_REV,
        glow::UNSIGNED_INT_10_10_10_2,
        glow::UNSIGNED_INT_2_10_10_10_REV,
        glow::UNSIGNED_INT_24_8,
        glow::UNSIGNED_INT_10F_11F_11F_REV,
        glow::UNSIGNED_INT_5_9_9_9_REV,
        glow::FLOAT_32_UNSIGNED_INT_24_8_REV,
        glow::DOUBLE,
        0,
        0xdead,
    ];

    #[test]
    fn accepted_pairs_are_sized_by_mgpipe() {
        let ok = |f, t| pixel_pair(f, t);
        assert_eq!(ok(glow::RGBA, glow::UNSIGNED_BYTE), Ok(4));
        assert_eq!(ok(glow::RGBA, glow::HALF_FLOAT), Ok(8));
        assert_eq!(ok(glow::RGB, glow::UNSIGNED_SHORT_5_6_5), Ok(2));
        assert_eq!(ok(glow::RGB_INTEGER, glow::UNSIGNED_BYTE_3_3_2), Ok(1));
        assert_eq!(
            ok(glow::BGRA_INTEGER, glow::UNSIGNED_INT_2_10_10_10_REV),
            Ok(4)
        );
        assert_eq!(ok(glow::RGB, glow::UNSIGNED_INT_5_9_9_9_REV), Ok(4));
        assert_eq!(ok(glow::DEPTH_STENCIL, glow::UNSIGNED_INT_24_8), Ok(4));
        assert_eq!(
            ok(glow::DEPTH_STENCIL, glow::FLOAT_32_UNSIGNED_INT_24_8_REV),
            Ok(8)
        );
        assert_eq!(ok(glow::DEPTH_COMPONENT, glow::FLOAT), Ok(4));
        assert_eq!(ok(glow::STENCIL_INDEX, glow::UNSIGNED_BYTE), Ok(1));
        assert_eq!(ok(glow::LUMINANCE_ALPHA, glow::UNSIGNED_SHORT), Ok(4));
        // One size table: whatever GL accepts, mgpipe sizes the same, and
        // nothing mgpipe cannot size is accepted.
        for &f in FORMATS {
            for &t in TYPES {
                match pixel_pair(f, t) {
                    Ok(n) => assert_eq!(mp::bytes_per_pixel(f, t), Some(n), "{f:#x}/{t:#x}"),
                    Err(e) => {
                        assert!(
                            e == glow::INVALID_ENUM || e == glow::INVALID_OPERATION,
                            "{f:#x}/{t:#x}: {e:#x}"
                        );
                        assert_eq!(pixel_pair(f, t).ok(), None);
                    }
                }
            }
        }
    }

    /// GL 4.6 core: DEPTH_STENCIL takes only its two packed types, and any
    /// other type is INVALID_ENUM (glReadPixels' error list; Mesa's desktop
    /// check). The frontend used to size DEPTH_STENCIL + a scalar type as
    /// two components and raise nothing.
    #[test]
    fn depth_stencil_needs_its_packed_types() {
        for t in [
            glow::UNSIGNED_BYTE,
            glow::UNSIGNED_SHORT,
            glow::UNSIGNED_INT,
            glow::INT,
            glow::HALF_FLOAT,
            glow::FLOAT,
            glow::UNSIGNED_INT_8_8_8_8,
            glow::UNSIGNED_INT_10F_11F_11F_REV,
        ] {
            assert_eq!(
                pixel_pair(glow::DEPTH_STENCIL, t),
                Err(glow::INVALID_ENUM),
                "{t:#x}"
            );
            assert_eq!(pixel_pair(glow::DEPTH_STENCIL, t).ok(), None);
        }
    }

    /// Table 8.5: a packed type with a format it does not pair with is
    /// INVALID_OPERATION, not a size (mgpipe sizes a packed type whatever
    /// the format, so this check is the frontend's own).
    #[test]
    fn packed_types_pair_with_their_formats_only() {
        let op = Err(glow::INVALID_OPERATION);
        assert_eq!(pixel_pair(glow::RGBA, glow::UNSIGNED_SHORT_5_6_5), op);
        assert_eq!(pixel_pair(glow::BGR, glow::UNSIGNED_SHORT_5_6_5), op);
        assert_eq!(pixel_pair(glow::RGB, glow::UNSIGNED_INT_8_8_8_8), op);
        assert_eq!(pixel_pair(glow::RGBA, glow::UNSIGNED_INT_24_8), op);
        assert_eq!(
            pixel_pair(glow::DEPTH_COMPONENT, glow::UNSIGNED_INT_24_8),
            op
        );
        assert_eq!(
            pixel_pair(glow::RGBA, glow::FLOAT_32_UNSIGNED_INT_24_8_REV),
            op
        );
        assert_eq!(
            pixel_pair(glow::RGB_INTEGER, glow::UNSIGNED_INT_10F_11F_11F_REV),
            op
        );
        assert_eq!(pixel_pair(glow::RGBA, glow::UNSIGNED_INT_5_9_9_9_REV), op);
        // Unknown enums stay INVALID_ENUM, packed type or not.
        let en = Err(glow::INVALID_ENUM);
        assert_eq!(pixel_pair(0xdead, glow::UNSIGNED_SHORT_5_6_5), en);
        assert_eq!(pixel_pair(glow::RGBA, 0xdead), en);
        assert_eq!(pixel_pair(glow::RGBA8, glow::UNSIGNED_BYTE), en);
        assert_eq!(pixel_pair(glow::RGBA, glow::DOUBLE), en);
    }

    fn store() -> PixelStore {
        PixelStore {
            alignment: 1,
            ..PixelStore::default()
        }
    }

    #[test]
    fn layouts_of_hostile_pixel_stores_do_not_overflow() {
        let ps = PixelStore {
            row_length: i32::MAX,
            image_height: i32::MAX,
            skip_pixels: i32::MAX,
            skip_rows: i32::MAX,
            skip_images: i32::MAX,
            alignment: 8,
            ..PixelStore::default()
        };
        let l = client_layout(&ps, u32::MAX as usize, u32::MAX as usize, 16);
        assert_eq!(l.end(u32::MAX as usize, u32::MAX as usize), None);
        // Nothing is touched through a layout no memory can hold (the
        // pointer is never dereferenced).
        let p = std::ptr::NonNull::<u8>::dangling().as_ptr();
        // SAFETY: the layout's end overflows, so neither call reads or
        // writes through `p`.
        unsafe {
            assert!(unpack(&ps, 7, 7, 7, 4, glow::UNSIGNED_BYTE, p).is_empty());
            pack_image(&ps, 7, 7, 7, 4, &[1; 7 * 7 * 7 * 4], p);
        }
        // A sane layout: 3 rows of 5 RGB8 pixels, aligned to 4.
        let ps = PixelStore::default();
        let l = client_layout(&ps, 5, 3, 3);
        assert_eq!((l.row_bytes, l.row_stride), (15, 16));
        assert_eq!(l.end(3, 1), Some(16 * 2 + 15));
        assert_eq!(l.end(0, 1), Some(0));
    }

    /// Several images land PACK_IMAGE_HEIGHT rows apart after
    /// PACK_SKIP_IMAGES images; gap rows and skipped images keep their
    /// bytes (glGetTexImage of array and 3D textures).
    #[test]
    fn pack_image_follows_image_height_and_skip_images() {
        let ps = PixelStore {
            image_height: 3,
            skip_images: 1,
            ..store()
        };
        // 2 images of 2 rows of 2 one-byte pixels: bytes 1..=8.
        let tight: Vec<u8> = (1..=8).collect();
        let mut dst = vec![0xEEu8; 2 * 3 * 3];
        // SAFETY: `dst` holds 3 images of 3 rows of 2 bytes.
        unsafe { pack_image(&ps, 2, 2, 2, 1, &tight, dst.as_mut_ptr()) };
        let e = 0xEE;
        assert_eq!(
            dst,
            vec![
                e, e, e, e, e, e, // skipped image
                1, 2, 3, 4, e, e, // image 0, gap row
                5, 6, 7, 8, e, e, // image 1, gap row
            ]
        );
        // Short tight data: what is there is written, nothing past it.
        let mut dst = vec![0u8; 2 * 3 * 3];
        // SAFETY: as above.
        unsafe { pack_image(&ps, 2, 2, 2, 1, &tight[..3], dst.as_mut_ptr()) };
        assert_eq!(&dst[6..10], &[1, 2, 0, 0]);
    }

    /// PACK_SWAP_BYTES reverses components (or packed pixels, or the words
    /// of FLOAT_32_UNSIGNED_INT_24_8_REV), never whole pixels of bytes.
    #[test]
    fn swap_bytes_by_component() {
        let mut b = vec![1u8, 2, 3, 4];
        swap_bytes(&mut b, glow::UNSIGNED_BYTE);
        assert_eq!(b, [1, 2, 3, 4]);
        swap_bytes(&mut b, glow::UNSIGNED_SHORT);
        assert_eq!(b, [2, 1, 4, 3]);
        let mut b = vec![1u8, 2, 3, 4, 5, 6, 7, 8];
        swap_bytes(&mut b, glow::FLOAT_32_UNSIGNED_INT_24_8_REV);
        assert_eq!(b, [4, 3, 2, 1, 8, 7, 6, 5]);
        let mut b = vec![1u8, 2];
        swap_bytes(&mut b, glow::UNSIGNED_SHORT_5_6_5);
        assert_eq!(b, [2, 1]);
        let mut b = vec![1u8, 2, 3, 4];
        swap_bytes(&mut b, glow::UNSIGNED_INT_8_8_8_8);
        assert_eq!(b, [4, 3, 2, 1]);
    }

    /// UNPACK_SWAP_BYTES swaps the type's unit: 16-bit components of an
    /// 8-byte RGBA16 pixel pairwise (not as two 32-bit words), bytes of
    /// RGBA8 not at all, a packed 32-bit pixel whole.
    /// Tight layouts lend the application's bytes (from the skip on);
    /// anything else is gathered, with the same bytes either way.
    #[test]
    fn unpack_tight_borrows_only_tight_layouts() {
        use std::borrow::Cow;
        let src: Vec<u8> = (0..=255).collect();
        let p = src.as_ptr();
        let tight = |ps: &PixelStore, w, h, d| {
            // SAFETY: every layout below lies inside `src`.
            unsafe { unpack_tight(ps, w, h, d, 4, glow::UNSIGNED_BYTE, p, &mut Vec::new()) }
        };
        let gathered = |ps: &PixelStore, w, h, d| {
            // SAFETY: as above.
            unsafe { unpack(ps, w, h, d, 4, glow::UNSIGNED_BYTE, p) }
        };
        let skipped = PixelStore {
            skip_rows: 1,
            ..store()
        };
        for ps in [store(), skipped] {
            let got = tight(&ps, 4, 3, 2);
            assert!(matches!(got, Cow::Borrowed(_)), "{ps:?}");
            assert_eq!(*got, gathered(&ps, 4, 3, 2)[..]);
        }
        let cases = [
            PixelStore {
                row_length: 5,
                ..store()
            },
            PixelStore {
                image_height: 4,
                ..store()
            },
            PixelStore {
                swap_bytes: true,
                ..store()
            },
            PixelStore {
                alignment: 8,
                ..store()
            },
        ];
        for ps in cases {
            // 3-pixel rows: 12 bytes, padded to 16 under alignment 8.
            let got = tight(&ps, 3, 3, 2);
            assert!(matches!(got, Cow::Owned(_)), "{ps:?}");
            assert_eq!(*got, gathered(&ps, 3, 3, 2)[..], "{ps:?}");
        }
    }

    #[test]
    fn unpack_swaps_by_type() {
        let ps = PixelStore {
            swap_bytes: true,
            ..store()
        };
        let src = [1u8, 2, 3, 4, 5, 6, 7, 8];
        // SAFETY: `src` holds the one described pixel.
        let got = unsafe { unpack(&ps, 1, 1, 1, 8, glow::UNSIGNED_SHORT, src.as_ptr()) };
        assert_eq!(got, [2, 1, 4, 3, 6, 5, 8, 7]);
        // SAFETY: as above, two 4-byte pixels.
        let got = unsafe { unpack(&ps, 2, 1, 1, 4, glow::UNSIGNED_BYTE, src.as_ptr()) };
        assert_eq!(got, src);
        // SAFETY: as above.
        let got = unsafe { unpack(&ps, 2, 1, 1, 4, glow::UNSIGNED_INT_8_8_8_8, src.as_ptr()) };
        assert_eq!(got, [4, 3, 2, 1, 8, 7, 6, 5]);
    }

    #[test]
    fn clip_spans_stay_in_range() {
        // Inside, half outside on either side, wholly outside, empty.
        assert_eq!(clip_span(2, 3, 8), Some((2, 3, 0)));
        assert_eq!(clip_span(-3, 6, 8), Some((0, 3, 3)));
        assert_eq!(clip_span(6, 6, 8), Some((6, 2, 0)));
        assert_eq!(clip_span(-3, 20, 8), Some((0, 8, 3)));
        assert_eq!(clip_span(8, 4, 8), None);
        assert_eq!(clip_span(-4, 4, 8), None);
        assert_eq!(clip_span(0, 0, 8), None);
        assert_eq!(clip_span(0, 4, 0), None);
        // Extremes: no i32/u32 overflow, nothing outside [0, size).
        assert_eq!(clip_span(i32::MIN, u32::MAX, 8), Some((0, 8, 1 << 31)));
        assert_eq!(clip_span(i32::MIN, i32::MAX as u32, 8), None);
        assert_eq!(
            clip_span(i32::MIN, u32::MAX, u32::MAX),
            Some((0, i32::MAX as u32, 1 << 31))
        );
        assert_eq!(clip_span(i32::MAX, u32::MAX, 8), None);
        assert_eq!(
            clip_span(-(1 << 30), i32::MAX as u32, 8),
            Some((0, 8, 1 << 30))
        );
        let c = clip_rect(-3, 5, 6, 6, 8, 8).unwrap();
        assert_eq!(
            c,
            Clip {
                x: 0,
                y: 5,
                width: 3,
                height: 3,
                skip_pixels: 3,
                skip_rows: 0
            }
        );
        assert_eq!(clip_rect(-3, 9, 6, 6, 8, 8), None);
    }

    /// The clipped part lands where the full image's pixels would, under
    /// any pack state, and never past the full image's end.
    #[test]
    fn clipped_layout_places_the_part_inside_the_image() {
        let states = [
            store(),
            PixelStore::default(),
            PixelStore {
                row_length: 11,
                skip_pixels: 2,
                skip_rows: 1,
                alignment: 8,
                ..PixelStore::default()
            },
        ];
        let (w, h, bpp) = (6u32, 5u32, 3usize);
        for ps in states {
            let full = client_layout(&ps, w as usize, h as usize, bpp);
            let end = full.end(h as usize, 1).unwrap();
            for (x, y) in [(-3, -2), (4, 1), (0, 0), (-1, 3)] {
                let Some(c) = clip_rect(x, y, w, h, 5, 4) else {
                    continue;
                };
                let (off, sub_ps) = clipped_layout(&ps, w, h, bpp, &c).unwrap();
                let sub = client_layout(&sub_ps, c.width as usize, c.height as usize, bpp);
                assert_eq!(sub.row_stride, full.row_stride);
                assert!(off + sub.end(c.height as usize, 1).unwrap() <= end);
                // Scatter the part's pixels, numbered by their place in the
                // full rectangle, and check each sits where the full
                // layout puts that pixel.
                let mut tight = Vec::new();
                for r in 0..c.height {
                    for p in 0..c.width {
                        let n = ((c.skip_rows + r) * w + c.skip_pixels + p) as u8;
                        tight.extend_from_slice(&[n; 3]);
                    }
                }
                let mut dst = vec![0xEEu8; end];
                // SAFETY: `dst` holds the full image; the part is inside it.
                unsafe {
                    pack(
                        &sub_ps,
                        c.width,
                        c.height,
                        bpp,
                        &tight,
                        dst.as_mut_ptr().add(off),
                    )
                };
                let mut want = vec![0xEEu8; end];
                for r in 0..c.height {
                    for p in 0..c.width {
                        let (fr, fp) = ((c.skip_rows + r) as usize, (c.skip_pixels + p) as usize);
                        let at = full.skip + fr * full.row_stride + fp * bpp;
                        want[at..at + 3].fill((fr as u32 * w + fp as u32) as u8);
                    }
                }
                assert_eq!(dst, want, "{ps:?} at ({x}, {y})");
            }
        }
        // A layout past the address space places nothing.
        let hostile = PixelStore {
            skip_rows: i32::MAX,
            row_length: i32::MAX,
            ..PixelStore::default()
        };
        let c = clip_rect(0, 0, 4, 4, 8, 8).unwrap();
        assert!(clipped_layout(&hostile, 4, 4, 16, &c).is_none());
    }
}
