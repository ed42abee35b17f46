//! Pixel rectangles of compatibility contexts (GL 4.6 compatibility
//! profile §14.8 bitmaps, §18.1 glDrawPixels, §18.3 glCopyPixels,
//! glPixelZoom): each is drawn as a textured rectangle with the records
//! every draw uses, so every backend and transport has it.
//!
//! The pixels are unpacked on the client under the application's unpack
//! state (client memory or the unpack buffer: `textures::image_source`),
//! converted to RGBA32F texels and uploaded into a hidden scratch texture
//! (in tiles of at most `TILE` texels a side, only the part that can land
//! inside the draw framebuffer); a hidden legacy GLSL program
//! (`#version 140 compatibility`, linked once per context) draws a
//! rectangle at the window-space rectangle the raster position (rounded,
//! as Mesa does) and the zoom give, reading texel i, j at the fragments
//! that pixel covers:
//!
//! * colour: the texel is the fragment colour; depth the raster z;
//! * depth: `gl_FragDepth` is the texel (colour: the raster colour); for
//!   `GL_DEPTH_STENCIL` the colour writes and the stencil test are off and
//!   the depth test always passes (Mesa's behaviour; `GL_DEPTH_COMPONENT`
//!   pixels are ordinary fragments, depth-tested when the test is on);
//! * stencil (GLES has no stencil export): one pass with stencil func
//!   ALWAYS, op REPLACE, reference 0 under the application's write mask
//!   clears the rectangle's bits, then one pass per bit with reference
//!   0xFF and write mask = that bit (and the application's mask), the
//!   shader discarding fragments whose bit is 0; colour and depth writes
//!   off (GL: stencil pixels bypass the stencil and depth tests);
//! * bitmap: the raster colour where a bit is set (discard elsewhere).
//!
//! Everything else is the application's fragment pipeline (scissor,
//! blending, depth and stencil tests of colour and depth pixels, masks,
//! rasterizer discard). glCopyPixels reads the part of the source
//! rectangle inside the read framebuffer back to the client (one blocking
//! round trip, `pixels::read_rect`) and draws it the same way.
//!
//! Owns: nothing but the drawing; the state it changes for a pass
//! (program, VAO arrays, unit 0's bindings, viewport, depth range, masks,
//! stencil, culling, polygon mode, clip distances) is saved and put back,
//! and every group is marked dirty around it.
//!
//! Not emulated: glPixelTransfer/pixel maps (they stay stubs: the
//! transfer is the identity), `GL_COLOR_INDEX` pixels and `GL_BITMAP`
//! stencil pixels (GL_INVALID_ENUM from the format check), texturing and
//! fog of pixel fragments, the alpha test on them, packed-float and
//! shared-exponent colour types (logged once, nothing drawn), pausing an
//! active transform feedback around the rectangle. Integer formats are
//! GL_INVALID_OPERATION, as GL 3.0 says.

use super::dlist::{with_gl_listed, with_gl_listed_with};
use std::ffi::c_void;

use mgpipe::pixels as mp;

use super::gl_err;
use super::log_once;
use super::raster::legacy_call;
use super::validate::{has_depth, has_stencil};
use crate::context::{
    target_index, Gl, PixelStore, StencilFace, Texture, VertexArray, DIRTY_ALL, MAX_DRAW_BUFFERS,
    TEXTURE_TARGETS,
};
use crate::shader::{FF_ARRAYS, FF_COLOR, FF_TEXCOORD0, FF_VERTEX};

// glCopyPixels types.
pub const COLOR: u32 = 0x1800;
pub const DEPTH: u32 = 0x1801;
pub const STENCIL: u32 = 0x1802;
const POLYGON_FILL: u32 = 0x1B02;

/// Largest side of one uploaded tile.
const TILE: u32 = 1024;

/// What the texels of a rectangle are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Color,
    Depth,
    Stencil,
    DepthStencil,
    Bitmap,
}

/// The shader's modes (`params.x`).
const MODE_COLOR: f32 = 0.0;
const MODE_DEPTH: f32 = 1.0;
const MODE_STENCIL: f32 = 2.0;
const MODE_BITMAP: f32 = 3.0;

const VS: &str = "#version 140 compatibility
out vec2 mgl_pr_tc;
flat out vec4 mgl_pr_params;
flat out vec4 mgl_pr_color;
void main() {
  gl_Position = gl_Vertex;
  mgl_pr_tc = gl_MultiTexCoord0.xy;
  mgl_pr_params = gl_MultiTexCoord1;
  mgl_pr_color = gl_Color;
}
";

/// Texel i, j of the rectangle at the fragment; params: x mode, y the
/// stencil bit of the pass (0: the clearing pass), z the raster depth.
const FS: &str = "#version 140 compatibility
#extension GL_ARB_shading_language_420pack : require
in vec2 mgl_pr_tc;
flat in vec4 mgl_pr_params;
flat in vec4 mgl_pr_color;
layout(binding = 0) uniform sampler2D mgl_pr_image;
void main() {
  ivec2 size = textureSize(mgl_pr_image, 0);
  ivec2 at = clamp(ivec2(floor(mgl_pr_tc)), ivec2(0), size - ivec2(1));
  vec4 t = texelFetch(mgl_pr_image, at, 0);
  int mode = int(mgl_pr_params.x);
  vec4 c = mgl_pr_color;
  float z = mgl_pr_params.z;
  if (mode == 0) {
    c = t;
  } else if (mode == 1) {
    z = clamp(t.r, 0.0, 1.0);
  } else if (mode == 2) {
    int bit = int(mgl_pr_params.y);
    if (bit != 0 && (int(t.g) & bit) == 0) discard;
  } else if (t.r < 0.5) {
    discard;
  }
  gl_FragColor = c;
  gl_FragDepth = z;
}
";

/// Where the texels of a rectangle come from.
enum Source<'a> {
    /// Tight rows of `width` pixels of a (format, type) pair the format
    /// check accepted.
    Pixels {
        bytes: &'a [u8],
        width: u32,
        format: u32,
        ty: u32,
        bpp: usize,
    },
    /// One byte per pixel (0 or 1), rows of `width`.
    Bits { bits: &'a [u8], width: u32 },
}

/// The draw framebuffer's depth and stencil buffers (present or not), or
/// INVALID_FRAMEBUFFER_OPERATION when it is not complete.
fn draw_target(gl: &Gl) -> Result<(bool, bool), u32> {
    let name = gl.st.draw_fbo;
    if name == 0 {
        let Some(s) = gl.st.draw_surface.as_ref() else {
            return Err(glow::INVALID_FRAMEBUFFER_OPERATION);
        };
        let ds = s.desc.depth_stencil_format;
        return Ok((has_depth(ds), has_stencil(ds)));
    }
    if gl.framebuffer_status(name) != glow::FRAMEBUFFER_COMPLETE {
        return Err(glow::INVALID_FRAMEBUFFER_OPERATION);
    }
    let Some(Some(fb)) = gl.st.fbos.get(&name) else {
        return Err(glow::INVALID_FRAMEBUFFER_OPERATION);
    };
    let depth = gl
        .resolve_attachment(&fb.depth)
        .is_some_and(|r| has_depth(r.format));
    let stencil = gl
        .resolve_attachment(&fb.stencil)
        .is_some_and(|r| has_stencil(r.format));
    Ok((depth, stencil))
}

/// Whether the buffers `kind` writes exist (INVALID_OPERATION otherwise).
fn dest_error(kind: Kind, (depth, stencil): (bool, bool)) -> Option<u32> {
    let ok = match kind {
        Kind::Depth => depth,
        Kind::Stencil => stencil,
        Kind::DepthStencil => depth && stencil,
        Kind::Color | Kind::Bitmap => true,
    };
    (!ok).then_some(glow::INVALID_OPERATION)
}

fn kind_of(format: u32) -> Kind {
    match format {
        glow::DEPTH_COMPONENT => Kind::Depth,
        glow::STENCIL_INDEX => Kind::Stencil,
        glow::DEPTH_STENCIL => Kind::DepthStencil,
        _ => Kind::Color,
    }
}

// ------------------------------------------------------------ entry points

#[no_mangle]
pub unsafe extern "C" fn glDrawPixels(
    width: i32,
    height: i32,
    format: u32,
    ty: u32,
    pixels: *const c_void,
) {
    with_gl_listed_with(
        "glDrawPixels",
        0,
        |gl| draw_pixels(gl, width, height, format, ty, pixels, None),
        |gl| {
            // A display list keeps the image, unpacked now (tight bytes).
            let bpp = super::pixels::pixel_pair(format, ty).ok();
            let pre: Vec<u8> = match bpp {
                Some(bpp)
                    if width > 0 && height > 0 && !super::pixels::is_integer_format(format) =>
                {
                    super::textures::image_source(
                        gl,
                        width as u32,
                        height as u32,
                        1,
                        bpp,
                        ty,
                        pixels,
                    )
                    .map(|c| c.into_owned())
                    .unwrap_or_default()
                }
                _ => Vec::new(),
            };
            Some(move |gl: &mut Gl| {
                draw_pixels(
                    gl,
                    width,
                    height,
                    format,
                    ty,
                    std::ptr::null(),
                    Some(pre.as_slice()),
                )
            })
        },
    )
}

/// `pre`: the tight image a display list copied at compile time.
fn draw_pixels(
    gl: &mut Gl,
    width: i32,
    height: i32,
    format: u32,
    ty: u32,
    pixels: *const c_void,
    pre: Option<&[u8]>,
) {
    if !legacy_call(gl, "glDrawPixels") {
        return;
    }
    if width < 0 || height < 0 {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    // GL 3.0 §3.7.4: integer pixels are an INVALID_OPERATION whatever the
    // type (FLOAT included, which the pair check would call an
    // INVALID_ENUM).
    if super::pixels::is_integer_format(format) {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    let bpp = match super::pixels::pixel_pair(format, ty) {
        Ok(b) => b,
        Err(e) => gl_err!(gl, e),
    };
    let kind = kind_of(format);
    let target = match draw_target(gl) {
        Ok(t) => t,
        Err(e) => gl_err!(gl, e),
    };
    if let Some(e) = dest_error(kind, target) {
        gl_err!(gl, e);
    }
    if gl.st.rasterizer_discard || !gl.st.raster.valid || width == 0 || height == 0 {
        return;
    }
    let (w, h) = (width as u32, height as u32);
    let bytes = match pre {
        Some(b) => Some(std::borrow::Cow::Borrowed(b)),
        None => super::textures::image_source(gl, w, h, 1, bpp, ty, pixels),
    };
    let Some(bytes) = bytes else {
        // The unpack buffer's error was raised.
        return;
    };
    let tight = (w as usize)
        .checked_mul(h as usize)
        .and_then(|n| n.checked_mul(bpp));
    if tight.is_none_or(|n| bytes.len() < n) {
        // A null pointer without an unpack buffer: nothing to draw.
        return;
    }
    let r = &gl.st.raster;
    let (x, y) = (r.pos[0].round(), r.pos[1].round());
    let zoom = r.zoom;
    let src = Source::Pixels {
        bytes: &bytes,
        width: w,
        format,
        ty,
        bpp,
    };
    draw_rect(gl, kind, &src, w, h, [x, y], zoom);
    super::pixels::reuse_scratch(bytes, &mut gl.st.upload_scratch);
}

#[no_mangle]
pub unsafe extern "C" fn glCopyPixels(x: i32, y: i32, width: i32, height: i32, ty: u32) {
    with_gl_listed("glCopyPixels", 0, move |gl| {
        copy_pixels(gl, x, y, width, height, ty)
    })
}

fn copy_pixels(gl: &mut Gl, x: i32, y: i32, width: i32, height: i32, ty: u32) {
    if !legacy_call(gl, "glCopyPixels") {
        return;
    }
    if width < 0 || height < 0 {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    let format = match ty {
        COLOR => glow::RGBA,
        DEPTH => glow::DEPTH_COMPONENT,
        STENCIL => glow::STENCIL_INDEX,
        glow::DEPTH_STENCIL => glow::DEPTH_STENCIL,
        _ => gl_err!(gl, glow::INVALID_ENUM),
    };
    let kind = kind_of(format);
    let source = match super::pixels::read_framebuffer(gl) {
        Ok(fb) => fb,
        Err(e) => gl_err!(gl, e),
    };
    let target = match draw_target(gl) {
        Ok(t) => t,
        Err(e) => gl_err!(gl, e),
    };
    if let Some(e) = super::pixels::source_error(&source, format).or(dest_error(kind, target)) {
        gl_err!(gl, e);
    }
    if gl.st.rasterizer_discard || !gl.st.raster.valid || width == 0 || height == 0 {
        return;
    }
    let (w, h) = (width as u32, height as u32);
    // The part inside the read framebuffer (GL: the rest is undefined; it
    // is not drawn), read back as texels the converter takes.
    let read = match kind {
        Kind::Depth => super::pixels::read_rect(gl, x, y, w, h, format, glow::FLOAT),
        Kind::Stencil => super::pixels::read_rect(gl, x, y, w, h, format, glow::UNSIGNED_BYTE),
        Kind::DepthStencil => read_depth_stencil(gl, x, y, w, h),
        _ => super::pixels::read_rect(gl, x, y, w, h, glow::RGBA, glow::FLOAT),
    };
    let Some(read) = read else {
        return;
    };
    let (src_format, src_ty) = match kind {
        Kind::Depth => (format, glow::FLOAT),
        Kind::Stencil => (format, glow::UNSIGNED_BYTE),
        Kind::DepthStencil => (format, glow::FLOAT_32_UNSIGNED_INT_24_8_REV),
        _ => (glow::RGBA, glow::FLOAT),
    };
    let Some(bpp) = mp::bytes_per_pixel(src_format, src_ty) else {
        return;
    };
    let r = &gl.st.raster;
    let zoom = r.zoom;
    // The part read starts `skip` pixels into the rectangle: it lands that
    // many (zoomed) pixels from the raster position.
    let at = [
        r.pos[0].round() + read.skip[0] as f32 * zoom[0],
        r.pos[1].round() + read.skip[1] as f32 * zoom[1],
    ];
    let src = Source::Pixels {
        bytes: &read.bytes,
        width: read.width,
        format: src_format,
        ty: src_ty,
        bpp,
    };
    draw_rect(gl, kind, &src, read.width, read.height, at, zoom);
}

/// Depth (FLOAT) and stencil (UNSIGNED_BYTE) read separately, merged into
/// FLOAT_32_UNSIGNED_INT_24_8_REV pixels.
fn read_depth_stencil(
    gl: &mut Gl,
    x: i32,
    y: i32,
    w: u32,
    h: u32,
) -> Option<super::pixels::ReadRect> {
    let depth = super::pixels::read_rect(gl, x, y, w, h, glow::DEPTH_COMPONENT, glow::FLOAT)?;
    let stencil =
        super::pixels::read_rect(gl, x, y, w, h, glow::STENCIL_INDEX, glow::UNSIGNED_BYTE)?;
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(depth.bytes.len().checked_mul(2)?)
        .ok()?;
    for (d, s) in depth.bytes.chunks_exact(4).zip(stencil.bytes.iter()) {
        bytes.extend_from_slice(d);
        bytes.extend_from_slice(&u32::from(*s).to_le_bytes());
    }
    Some(super::pixels::ReadRect { bytes, ..depth })
}

#[no_mangle]
pub unsafe extern "C" fn glBitmap(
    width: i32,
    height: i32,
    xorig: f32,
    yorig: f32,
    xmove: f32,
    ymove: f32,
    bitmap: *const u8,
) {
    type Bits = Result<Option<Vec<u8>>, u32>;
    // `pre`: the bits a display list copied at compile time.
    let body = move |gl: &mut Gl, bitmap: *const u8, pre: Option<&Bits>| {
        if !legacy_call(gl, "glBitmap") {
            return;
        }
        if width < 0 || height < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        // GL: a bitmap at an invalid raster position is ignored entirely.
        if !gl.st.raster.valid {
            return;
        }
        if let Err(e) = draw_target(gl) {
            gl_err!(gl, e);
        }
        if !gl.st.rasterizer_discard && width > 0 && height > 0 {
            let (w, h) = (width as u32, height as u32);
            let bits = match pre
                .cloned()
                .unwrap_or_else(|| unpack_bitmap(gl, w, h, bitmap))
            {
                Ok(b) => b,
                Err(e) => gl_err!(gl, e),
            };
            if let Some(bits) = bits {
                let r = &gl.st.raster;
                // Mesa's rounding: floor with a small bias.
                let at = [
                    (r.pos[0] - xorig + 1e-4).floor(),
                    (r.pos[1] - yorig + 1e-4).floor(),
                ];
                let src = Source::Bits {
                    bits: &bits,
                    width: w,
                };
                draw_rect(gl, Kind::Bitmap, &src, w, h, at, [1.0, 1.0]);
            }
        }
        let r = &mut gl.st.raster;
        r.pos[0] += xmove;
        r.pos[1] += ymove;
    };
    with_gl_listed_with(
        "glBitmap",
        0,
        |gl| body(gl, bitmap, None),
        |gl| {
            let pre: Bits = if width > 0 && height > 0 {
                unpack_bitmap(gl, width as u32, height as u32, bitmap)
            } else {
                Ok(None)
            };
            Some(move |gl: &mut Gl| body(gl, std::ptr::null(), Some(&pre)))
        },
    )
}

/// A bitmap's bits, one byte per pixel, under the unpack state (row
/// length in pixels, skips, alignment, LSB_FIRST) from client memory or the
/// unpack buffer. Ok(None): a null pointer without an unpack buffer (no
/// bits); Err: the unpack buffer's INVALID_OPERATION or OUT_OF_MEMORY.
fn unpack_bitmap(gl: &mut Gl, w: u32, h: u32, bitmap: *const u8) -> Result<Option<Vec<u8>>, u32> {
    let ps = gl.st.unpack;
    let row_px = if ps.row_length > 0 {
        ps.row_length as u64
    } else {
        u64::from(w)
    };
    let a = ps.alignment.max(1) as u64;
    let stride = row_px.div_ceil(8).div_ceil(a) * a;
    let skip_px = ps.skip_pixels.max(0) as u64;
    let skip_rows = ps.skip_rows.max(0) as u64;
    let last_row_bytes = (skip_px + u64::from(w)).div_ceil(8);
    let len = (skip_rows + u64::from(h) - 1)
        .checked_mul(stride)
        .and_then(|n| n.checked_add(last_row_bytes))
        .ok_or(glow::OUT_OF_MEMORY)?;
    let n = (w as usize)
        .checked_mul(h as usize)
        .ok_or(glow::OUT_OF_MEMORY)?;
    let mut bits = Vec::new();
    bits.try_reserve_exact(n).map_err(|_| glow::OUT_OF_MEMORY)?;
    if len > isize::MAX as u64 {
        // No memory or buffer holds it.
        return Err(glow::OUT_OF_MEMORY);
    }
    let raw: Vec<u8>;
    let data: &[u8] = if gl.st.pixel_unpack_buffer != 0 {
        let name = gl.st.pixel_unpack_buffer;
        let (handle, size) = match gl.sh.buffers.get(&name) {
            Some(Some(b)) => (b.handle, b.size),
            _ => return Ok(None),
        };
        let offset = bitmap as u64;
        if offset.checked_add(len).is_none_or(|end| end > size) {
            return Err(glow::INVALID_OPERATION);
        }
        raw = super::buffers::read_buffer(
            gl,
            handle,
            offset,
            len,
            crate::runtime::BlockingCause::UnpackFromBuffer,
        );
        &raw
    } else {
        if bitmap.is_null() {
            return Ok(None);
        }
        let len = usize::try_from(len).map_err(|_| glow::OUT_OF_MEMORY)?;
        // SAFETY: the application promises the bitmap its unpack state
        // describes, `len` bytes from `bitmap` (not null; `len` is at most
        // isize::MAX, checked above).
        unsafe { std::slice::from_raw_parts(bitmap, len) }
    };
    for j in 0..u64::from(h) {
        let row = (skip_rows + j) * stride;
        for i in 0..u64::from(w) {
            let bit = skip_px + i;
            let byte = data.get((row + bit / 8) as usize).copied().unwrap_or(0);
            let mask = if ps.lsb_first {
                1u8 << (bit % 8)
            } else {
                0x80u8 >> (bit % 8)
            };
            bits.push(u8::from(byte & mask != 0));
        }
    }
    Ok(Some(bits))
}

// ------------------------------------------------------------ drawing

/// Why a tile's texels could not be made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NoTexels {
    /// GL_OUT_OF_MEMORY.
    Memory,
    /// A pair the converter does not decode (logged): nothing is drawn.
    Unconvertible,
}

/// The texels of columns `x0..x0+tw` and rows `y0..y0+th` of `src` as
/// RGBA32F (colour in rgba; depth in r, stencil in g; bitmap bits in r).
fn texels(
    kind: Kind,
    src: &Source,
    x0: u32,
    y0: u32,
    tw: u32,
    th: u32,
) -> Result<Vec<[f32; 4]>, NoTexels> {
    let n = (tw as usize)
        .checked_mul(th as usize)
        .ok_or(NoTexels::Memory)?;
    let mut out: Vec<[f32; 4]> = Vec::new();
    out.try_reserve_exact(n).map_err(|_| NoTexels::Memory)?;
    match *src {
        Source::Bits { bits, width } => {
            for j in y0..y0 + th {
                for i in x0..x0 + tw {
                    let b = bits
                        .get(j as usize * width as usize + i as usize)
                        .copied()
                        .unwrap_or(0);
                    out.push([f32::from(b), 0.0, 0.0, 1.0]);
                }
            }
        }
        Source::Pixels {
            bytes,
            width,
            format,
            ty,
            bpp,
        } => {
            for j in y0..y0 + th {
                let start = (j as usize * width as usize + x0 as usize) * bpp;
                let row = bytes
                    .get(start..start + tw as usize * bpp)
                    .ok_or(NoTexels::Unconvertible)?;
                row_texels(kind, row, format, ty, tw as usize, &mut out)
                    .ok_or(NoTexels::Unconvertible)?;
            }
        }
    }
    Ok(out)
}

/// Little-endian f32s of a converted row.
fn floats(b: &[u8]) -> impl Iterator<Item = f32> + '_ {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
}

fn row_texels(
    kind: Kind,
    row: &[u8],
    format: u32,
    ty: u32,
    n: usize,
    out: &mut Vec<[f32; 4]>,
) -> Option<()> {
    let unconvertible = || {
        log_once("pixel rectangle pair", || {
            format!(
                "glDrawPixels/glCopyPixels: pixels of format 0x{format:04X} type 0x{ty:04X} \
                 are not converted; nothing is drawn"
            )
        });
    };
    match kind {
        Kind::DepthStencil => {
            let size = if ty == glow::UNSIGNED_INT_24_8 { 4 } else { 8 };
            for px in row.chunks_exact(size).take(n) {
                let (d, s) = match ty {
                    glow::UNSIGNED_INT_24_8 => {
                        let v = u32::from_le_bytes(px.get(..4)?.try_into().ok()?);
                        ((v >> 8) as f32 / 16_777_215.0, v & 0xFF)
                    }
                    _ => {
                        let d = f32::from_le_bytes(px.get(..4)?.try_into().ok()?);
                        let s = u32::from_le_bytes(px.get(4..8)?.try_into().ok()?);
                        (d, s & 0xFF)
                    }
                };
                out.push([d, s as f32, 0.0, 1.0]);
            }
        }
        Kind::Depth => {
            let Some(c) = mp::convert(row, format, ty, glow::RED, glow::FLOAT, n) else {
                unconvertible();
                return None;
            };
            out.extend(floats(&c).map(|d| [d, 0.0, 0.0, 1.0]));
        }
        Kind::Stencil => {
            // STENCIL_INDEX is an integer format: the raw indices.
            let Some(c) = mp::convert(row, format, ty, glow::RED, glow::FLOAT, n) else {
                unconvertible();
                return None;
            };
            out.extend(floats(&c).map(|s| [0.0, ((s as i64) & 0xFF) as f32, 0.0, 1.0]));
        }
        Kind::Color | Kind::Bitmap => {
            let Some(c) = mp::convert(row, format, ty, glow::RGBA, glow::FLOAT, n) else {
                unconvertible();
                return None;
            };
            let f: Vec<f32> = floats(&c).collect();
            out.extend(f.chunks_exact(4).map(|p| [p[0], p[1], p[2], p[3]]));
        }
    }
    Some(())
}

/// The source indices `0..n` whose zoomed pixels can land inside
/// `[0, size)` when pixel i covers `[at + i*zoom, at + (i+1)*zoom)`.
fn visible_span(at: f32, zoom: f32, n: u32, size: u32) -> (u32, u32) {
    if zoom == 0.0 || !zoom.is_finite() || !at.is_finite() {
        return (0, 0);
    }
    let (a, b) = (
        (0.0 - f64::from(at)) / f64::from(zoom),
        (f64::from(size) - f64::from(at)) / f64::from(zoom),
    );
    let (lo, hi) = (a.min(b).floor() - 1.0, a.max(b).ceil() + 1.0);
    let clamp = |v: f64| v.clamp(0.0, f64::from(n)) as u32;
    (clamp(lo), clamp(hi))
}

/// Draw the `w` x `h` texels of `src` with texel (0, 0)'s corner at window
/// `at`, each covering `zoom` pixels.
fn draw_rect(gl: &mut Gl, kind: Kind, src: &Source, w: u32, h: u32, at: [f32; 2], zoom: [f32; 2]) {
    let (fw, fh) = gl.draw_framebuffer_size();
    if fw == 0 || fh == 0 {
        return;
    }
    let (x0, x1) = visible_span(at[0], zoom[0], w, fw);
    let (y0, y1) = visible_span(at[1], zoom[1], h, fh);
    if x0 >= x1 || y0 >= y1 {
        return;
    }
    let Some(program) = program(gl) else {
        return;
    };
    let tile = TILE.min(gl.conn.caps.max_texture_size.max(1));
    let mut ty = y0;
    while ty < y1 {
        let th = tile.min(y1 - ty);
        let mut tx = x0;
        while tx < x1 {
            let tw = tile.min(x1 - tx);
            let t = match texels(kind, src, tx, ty, tw, th) {
                Ok(t) => t,
                Err(NoTexels::Memory) => gl_err!(gl, glow::OUT_OF_MEMORY),
                Err(NoTexels::Unconvertible) => return,
            };
            let Some(texture) = upload(gl, tw, th, &t) else {
                return;
            };
            let corners = [
                at[0] + tx as f32 * zoom[0],
                at[1] + ty as f32 * zoom[1],
                at[0] + (tx + tw) as f32 * zoom[0],
                at[1] + (ty + th) as f32 * zoom[1],
            ];
            let quad = Quad {
                corners,
                size: [tw as f32, th as f32],
                color: gl.st.raster.color,
                z: gl.st.raster.pos[2],
            };
            draw_passes(gl, kind, program, texture, &quad);
            tx += tw;
        }
        ty += th;
    }
}

/// One drawn rectangle: window-space corners of texel (0, 0) and of texel
/// (w, h), the texel extent, and the raster colour and depth.
struct Quad {
    corners: [f32; 4],
    size: [f32; 2],
    color: [f32; 4],
    z: f32,
}

/// What one pass changes of the application's fragment state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// Colour, depth (colour = raster colour) or bitmap fragments through
    /// the application's pipeline.
    Fragments,
    /// The depth half of DEPTH_STENCIL: no colour writes, no stencil test,
    /// depth func ALWAYS.
    DepthOnly,
    /// Stencil bit `bit` (0: clear the rectangle's bits).
    StencilBit(u32),
}

fn draw_passes(gl: &mut Gl, kind: Kind, program: u32, texture: u32, q: &Quad) {
    match kind {
        Kind::Color => draw_quad(gl, program, texture, q, MODE_COLOR, Pass::Fragments),
        Kind::Bitmap => draw_quad(gl, program, texture, q, MODE_BITMAP, Pass::Fragments),
        Kind::Depth => draw_quad(gl, program, texture, q, MODE_DEPTH, Pass::Fragments),
        Kind::Stencil | Kind::DepthStencil => {
            if kind == Kind::DepthStencil {
                draw_quad(gl, program, texture, q, MODE_DEPTH, Pass::DepthOnly);
            }
            let mask = gl.st.stencil[0].write_mask & 0xFF;
            if mask == 0 {
                return;
            }
            draw_quad(gl, program, texture, q, MODE_STENCIL, Pass::StencilBit(0));
            for b in 0..8 {
                let bit = 1u32 << b;
                if mask & bit != 0 {
                    draw_quad(gl, program, texture, q, MODE_STENCIL, Pass::StencilBit(bit));
                }
            }
        }
    }
}

/// The application state a pass changes, put back after it.
struct Saved {
    program: u32,
    viewport: [i32; 4],
    depth_range: [f32; 2],
    cull_face: bool,
    polygon_mode: [u32; 2],
    polygon_offset_fill: bool,
    clip_distances: u32,
    unit0: [u32; TEXTURE_TARGETS.len()],
    sampler0: u32,
    vao: Option<VertexArray>,
    color_mask: [u8; MAX_DRAW_BUFFERS],
    depth_test: bool,
    depth_mask: bool,
    depth_func: u32,
    stencil_test: bool,
    stencil: [StencilFace; 2],
}

impl Saved {
    fn take(gl: &Gl) -> Saved {
        let s = &gl.st;
        Saved {
            program: s.program,
            viewport: s.viewport,
            depth_range: s.depth_range,
            cull_face: s.cull_face,
            polygon_mode: s.polygon_mode,
            polygon_offset_fill: s.polygon_offset_fill,
            clip_distances: s.clip_distances,
            unit0: s.texture_units.first().copied().unwrap_or_default(),
            sampler0: s.sampler_units.first().copied().unwrap_or(0),
            vao: match s.vaos.get(&s.vao) {
                Some(Some(v)) => Some(v.clone()),
                _ => None,
            },
            color_mask: s.color_mask,
            depth_test: s.depth_test,
            depth_mask: s.depth_mask,
            depth_func: s.depth_func,
            stencil_test: s.stencil_test,
            stencil: s.stencil,
        }
    }

    fn restore(self, gl: &mut Gl) {
        let s = &mut *gl.st;
        s.program = self.program;
        s.viewport = self.viewport;
        s.depth_range = self.depth_range;
        s.cull_face = self.cull_face;
        s.polygon_mode = self.polygon_mode;
        s.polygon_offset_fill = self.polygon_offset_fill;
        s.clip_distances = self.clip_distances;
        if let Some(u) = s.texture_units.first_mut() {
            *u = self.unit0;
        }
        if let Some(u) = s.sampler_units.first_mut() {
            *u = self.sampler0;
        }
        if let (Some(mut saved), Some(Some(v))) = (self.vao, s.vaos.get_mut(&s.vao)) {
            // A new revision: the emission cache re-derives it.
            saved.rev = v.rev.wrapping_add(1);
            *v = saved;
        }
        s.color_mask = self.color_mask;
        s.depth_test = self.depth_test;
        s.depth_mask = self.depth_mask;
        s.depth_func = self.depth_func;
        s.stencil_test = self.stencil_test;
        s.stencil = self.stencil;
        s.dirty = DIRTY_ALL;
    }
}

/// Floats per vertex: position, colour, texture coordinates 0 and 1.
const VERTEX_FLOATS: usize = 16;

fn draw_quad(gl: &mut Gl, program: u32, texture: u32, q: &Quad, mode: f32, pass: Pass) {
    let (fw, fh) = gl.draw_framebuffer_size();
    if fw == 0 || fh == 0 {
        return;
    }
    let ndc = |v: f32, size: u32| (2.0 * f64::from(v) / f64::from(size) - 1.0) as f32;
    let [x0, y0, x1, y1] = q.corners;
    let [sw, sh] = q.size;
    let bit = match pass {
        Pass::StencilBit(b) => b as f32,
        _ => 0.0,
    };
    let params = [mode, bit, q.z, 0.0];
    let mut data = [0.0f32; VERTEX_FLOATS * 4];
    for (k, (x, y, s, t)) in [
        (x0, y0, 0.0, 0.0),
        (x1, y0, sw, 0.0),
        (x0, y1, 0.0, sh),
        (x1, y1, sw, sh),
    ]
    .into_iter()
    .enumerate()
    {
        let v = &mut data[k * VERTEX_FLOATS..(k + 1) * VERTEX_FLOATS];
        v[..4].copy_from_slice(&[ndc(x, fw), ndc(y, fh), 0.0, 1.0]);
        v[4..8].copy_from_slice(&q.color);
        v[8..12].copy_from_slice(&[s, t, 0.0, 1.0]);
        v[12..16].copy_from_slice(&params);
    }
    let saved = Saved::take(gl);
    let Some(Some(vao)) = gl.st.vaos.get_mut(&gl.st.vao) else {
        return;
    };
    for a in vao.attribs.iter_mut() {
        a.enabled = false;
    }
    let stride = (VERTEX_FLOATS * 4) as u32;
    for (slot, a) in vao.ff.iter_mut().enumerate().take(FF_ARRAYS) {
        let at = match slot {
            FF_VERTEX => 0,
            FF_COLOR => 4,
            s if s == FF_TEXCOORD0 => 8,
            s if s == FF_TEXCOORD0 + 1 => 12,
            _ => {
                a.enabled = false;
                continue;
            }
        };
        *a = crate::context::FfArray {
            enabled: true,
            size: 4,
            ty: glow::FLOAT,
            normalized: false,
            stride,
            buffer: 0,
            offset: (data.as_ptr() as u64).wrapping_add(at * 4),
        };
    }
    vao.rev = vao.rev.wrapping_add(1);
    let s = &mut *gl.st;
    s.program = program;
    s.viewport = [0, 0, fw as i32, fh as i32];
    s.depth_range = [0.0, 1.0];
    s.cull_face = false;
    s.polygon_mode = [POLYGON_FILL; 2];
    s.polygon_offset_fill = false;
    s.clip_distances = 0;
    if let (Some(u), Some(i)) = (s.texture_units.first_mut(), target_index(glow::TEXTURE_2D)) {
        *u = [0; TEXTURE_TARGETS.len()];
        u[i] = texture;
    }
    if let Some(u) = s.sampler_units.first_mut() {
        *u = 0;
    }
    match pass {
        Pass::Fragments => {}
        Pass::DepthOnly => {
            // Written as the stencil half is: past the depth test (Mesa's
            // behaviour, which ext_packed_depth_stencil-readdrawpixels
            // expects), under the application's depth mask.
            s.color_mask = [0; MAX_DRAW_BUFFERS];
            s.stencil_test = false;
            s.depth_test = true;
            s.depth_func = glow::ALWAYS;
        }
        Pass::StencilBit(b) => {
            let mask = saved.stencil[0].write_mask;
            let face = StencilFace {
                func: glow::ALWAYS,
                reference: if b == 0 { 0 } else { 0xFF },
                value_mask: 0xFF,
                write_mask: if b == 0 { mask } else { mask & b },
                fail: glow::REPLACE,
                zfail: glow::REPLACE,
                zpass: glow::REPLACE,
            };
            s.stencil = [face; 2];
            s.stencil_test = true;
            s.color_mask = [0; MAX_DRAW_BUFFERS];
            s.depth_test = false;
            s.depth_mask = false;
        }
    }
    s.dirty = DIRTY_ALL;
    // A pixel rectangle is not a primitive of the application's: active
    // transform feedback captures nothing of it (paused around the draw).
    let capturing = super::xfb::active_unpaused(gl);
    if capturing {
        gl.st.xfb.paused = true;
        gl.conn.pipe.xfb_pause(&mgpipe::calls::XfbPause::default());
    }
    super::draw::draw(gl, glow::TRIANGLE_STRIP, 0, 4, None, 0, 1, 0, 0);
    if capturing {
        gl.st.xfb.paused = false;
        gl.conn
            .pipe
            .xfb_resume(&mgpipe::calls::XfbResume::default());
    }
    saved.restore(gl);
}

/// Upload `texels` (`w` x `h`) into the context's scratch texture through
/// the ordinary texture path (default unpack state, no unpack buffer,
/// unit 0 for the call); its name, None when it could not be made.
fn upload(gl: &mut Gl, w: u32, h: u32, texels: &[[f32; 4]]) -> Option<u32> {
    let name = scratch_texture(gl)?;
    let i = target_index(glow::TEXTURE_2D)?;
    let active = gl.st.active_texture;
    let unit0 = *gl.st.texture_units.first()?;
    let unpack = gl.st.unpack;
    let pbo = gl.st.pixel_unpack_buffer;
    gl.st.active_texture = 0;
    gl.st.texture_units[0][i] = name;
    gl.st.unpack = PixelStore::default();
    gl.st.pixel_unpack_buffer = 0;
    super::textures::tex_image(
        gl,
        2,
        glow::TEXTURE_2D,
        0,
        glow::RGBA32F as i32,
        w as i32,
        h as i32,
        1,
        0,
        glow::RGBA,
        glow::FLOAT,
        texels.as_ptr().cast(),
    );
    gl.st.active_texture = active;
    gl.st.texture_units[0] = unit0;
    gl.st.unpack = unpack;
    gl.st.pixel_unpack_buffer = pbo;
    gl.st.dirty = DIRTY_ALL;
    Some(name)
}

/// The context's scratch texture: a 2D texture under a fresh name of the
/// share group, nearest filtering, one level.
fn scratch_texture(gl: &mut Gl) -> Option<u32> {
    let name = gl.st.raster.texture;
    if name != 0 && matches!(gl.sh.textures.get(&name), Some(Some(_))) {
        return Some(name);
    }
    let name = loop {
        let c = gl.sh.new_name();
        if !gl.sh.textures.contains_key(&c) {
            break c;
        }
    };
    let mut t = Texture::new(gl.conn.alloc.resource.alloc());
    t.target = glow::TEXTURE_2D;
    t.params.min_filter = glow::NEAREST;
    t.params.mag_filter = glow::NEAREST;
    t.params.wrap_s = glow::CLAMP_TO_EDGE;
    t.params.wrap_t = glow::CLAMP_TO_EDGE;
    t.max_level = 0;
    gl.sh.textures.insert(name, Some(t));
    gl.st.raster.texture = name;
    Some(name)
}

/// The hidden program, linked on first use under fresh names of the share
/// group (as the fixed-function programs are).
fn program(gl: &mut Gl) -> Option<u32> {
    if let Some(p) = gl.st.raster.program {
        return p;
    }
    let made = link(gl);
    gl.st.raster.program = Some(made);
    made
}

fn link(gl: &mut Gl) -> Option<u32> {
    super::fixed_function::link_hidden_program(gl, VS, FS, "pixel-rectangle program")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visible_spans_cover_the_framebuffer_only() {
        // Zoom 1 at the origin: everything up to the framebuffer's width.
        assert_eq!(visible_span(0.0, 1.0, 100, 50), (0, 51));
        // Wholly left of the framebuffer.
        let (lo, hi) = visible_span(-500.0, 1.0, 100, 50);
        assert!(lo >= hi, "{lo}..{hi} is not empty");
        // A negative zoom walks left from the raster position.
        assert_eq!(visible_span(40.0, -1.0, 100, 50), (0, 41));
        // Zero, NaN and infinite inputs draw nothing.
        assert_eq!(visible_span(0.0, 0.0, 100, 50), (0, 0));
        assert_eq!(visible_span(f32::NAN, 1.0, 100, 50), (0, 0));
        assert_eq!(visible_span(0.0, f32::INFINITY, 100, 50), (0, 0));
        // Huge images are clamped to what can land inside.
        assert_eq!(visible_span(0.0, 1.0, u32::MAX, 8), (0, 9));
    }

    #[test]
    fn depth_stencil_texels_split_the_packed_pixel() {
        let px = ((0x80_0000u32 << 8) | 0x5A).to_le_bytes();
        let mut out = Vec::new();
        row_texels(
            Kind::DepthStencil,
            &px,
            glow::DEPTH_STENCIL,
            glow::UNSIGNED_INT_24_8,
            1,
            &mut out,
        )
        .unwrap();
        assert!((out[0][0] - 0.5).abs() < 1e-6);
        assert_eq!(out[0][1], 90.0);
    }

    #[test]
    fn stencil_texels_keep_the_low_eight_bits() {
        let px: [u8; 4] = 0x1FFi32.to_le_bytes();
        let mut out = Vec::new();
        row_texels(
            Kind::Stencil,
            &px,
            glow::STENCIL_INDEX,
            glow::INT,
            1,
            &mut out,
        )
        .unwrap();
        assert_eq!(out[0][1], 255.0);
    }
}
