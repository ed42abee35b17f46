//! Pixel transfer: the client applies the application's pack/unpack state;
//! only tight rows cross the pipe (no unpack state crosses, DESIGN D5).

use std::ffi::c_void;

use mgpipe::calls;
use mgpipe::Pipe;

use crate::context::{with_gl, Gl, PixelStore};

/// Components of a pixel format, or None if not a pixel format.
pub fn format_components(format: u32) -> Option<usize> {
    Some(match format {
        glow::RED
        | glow::GREEN
        | glow::BLUE
        | glow::ALPHA
        | glow::RED_INTEGER
        | glow::GREEN_INTEGER
        | glow::BLUE_INTEGER
        | glow::DEPTH_COMPONENT
        | glow::STENCIL_INDEX
        | glow::LUMINANCE => 1,
        glow::RG | glow::RG_INTEGER | glow::DEPTH_STENCIL | glow::LUMINANCE_ALPHA => 2,
        glow::RGB | glow::BGR | glow::RGB_INTEGER | glow::BGR_INTEGER => 3,
        glow::RGBA | glow::BGRA | glow::RGBA_INTEGER | glow::BGRA_INTEGER => 4,
        _ => return None,
    })
}

/// Bytes per pixel of (format, type), or None when the pair is invalid.
pub fn bytes_per_pixel(format: u32, ty: u32) -> Option<usize> {
    let n = format_components(format)?;
    Some(match ty {
        glow::UNSIGNED_BYTE | glow::BYTE => n,
        glow::UNSIGNED_SHORT | glow::SHORT | glow::HALF_FLOAT => 2 * n,
        glow::UNSIGNED_INT | glow::INT | glow::FLOAT => 4 * n,
        glow::UNSIGNED_BYTE_3_3_2 | glow::UNSIGNED_BYTE_2_3_3_REV => 1,
        glow::UNSIGNED_SHORT_5_6_5
        | glow::UNSIGNED_SHORT_5_6_5_REV
        | glow::UNSIGNED_SHORT_4_4_4_4
        | glow::UNSIGNED_SHORT_4_4_4_4_REV
        | glow::UNSIGNED_SHORT_5_5_5_1
        | glow::UNSIGNED_SHORT_1_5_5_5_REV => 2,
        glow::UNSIGNED_INT_8_8_8_8
        | glow::UNSIGNED_INT_8_8_8_8_REV
        | glow::UNSIGNED_INT_10_10_10_2
        | glow::UNSIGNED_INT_2_10_10_10_REV
        | glow::UNSIGNED_INT_24_8
        | glow::UNSIGNED_INT_10F_11F_11F_REV
        | glow::UNSIGNED_INT_5_9_9_9_REV => 4,
        glow::FLOAT_32_UNSIGNED_INT_24_8_REV => 8,
        _ => return None,
    })
}

/// Layout of one client image under a pixel store.
#[derive(Debug, Clone, Copy)]
pub struct ClientLayout {
    pub row_stride: usize,
    pub image_stride: usize,
    pub skip: usize,
    pub row_bytes: usize,
}

pub fn client_layout(ps: &PixelStore, width: usize, height: usize, bpp: usize) -> ClientLayout {
    let row_px = if ps.row_length > 0 {
        ps.row_length as usize
    } else {
        width
    };
    let a = ps.alignment.max(1) as usize;
    let row_stride = (row_px * bpp).div_ceil(a) * a;
    let rows = if ps.image_height > 0 {
        ps.image_height as usize
    } else {
        height
    };
    let image_stride = row_stride * rows;
    let skip = ps.skip_pixels as usize * bpp
        + ps.skip_rows as usize * row_stride
        + ps.skip_images as usize * image_stride;
    ClientLayout {
        row_stride,
        image_stride,
        skip,
        row_bytes: width * bpp,
    }
}

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
    src: *const u8,
) -> Vec<u8> {
    let (w, h, d) = (width as usize, height as usize, depth.max(1) as usize);
    let l = client_layout(ps, w, h, bpp);
    let mut out = Vec::with_capacity(l.row_bytes * h * d);
    if src.is_null() {
        return out;
    }
    for z in 0..d {
        for y in 0..h {
            let off = l.skip + z * l.image_stride + y * l.row_stride;
            // SAFETY: the application promises the described image is readable.
            let row = unsafe { std::slice::from_raw_parts(src.add(off), l.row_bytes) };
            out.extend_from_slice(row);
        }
    }
    if ps.swap_bytes {
        swap_in_place(&mut out, bpp);
    }
    out
}

fn swap_in_place(data: &mut [u8], bpp: usize) {
    let unit = if bpp.is_multiple_of(4) {
        4
    } else if bpp.is_multiple_of(2) {
        2
    } else {
        1
    };
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
    let (w, h) = (width as usize, height as usize);
    let l = client_layout(ps, w, h, bpp);
    if dst.is_null() {
        return;
    }
    for y in 0..h {
        let Some(row) = tight.get(y * l.row_bytes..(y + 1) * l.row_bytes) else {
            break;
        };
        let off = l.skip + y * l.row_stride;
        // SAFETY: the application promises the described image is writable.
        unsafe { std::ptr::copy_nonoverlapping(row.as_ptr(), dst.add(off), row.len()) };
    }
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
    if let Some((ps, bpp, tight, pbo)) = r {
        if pbo.is_some() {
            return;
        }
        // SAFETY: the application promises a writable image under its pack state.
        unsafe {
            pack(
                &ps,
                width as u32,
                height as u32,
                bpp,
                &tight,
                data as *mut u8,
            )
        };
        keep_readback(tight);
    }
}

type ReadResult = Option<(PixelStore, usize, Vec<u8>, Option<u64>)>;

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
    let Some(bpp) = bytes_per_pixel(format, ty) else {
        gl.st.set_error(glow::INVALID_ENUM);
        return None;
    };
    if let Err(e) = gl.emit_read_surface() {
        gl.st.set_error(e);
        return None;
    }
    if width == 0 || height == 0 {
        return None;
    }
    // Tight rows come back in bands of whole rows no larger than one reply.
    let row_bytes = width as usize * bpp;
    let rows_per_band = (gl.conn.max_reply / row_bytes.max(1)).max(1);
    // When the client's layout is tight rows (the usual RGBA8 read of a
    // whole target), the answer goes straight into its memory: applied in
    // place in monolith, copied once out of REPLY in the ring transports.
    let mut counted = false;
    let ps = gl.st.pack;
    let layout = client_layout(&ps, width as usize, height as usize, bpp);
    if gl.st.pixel_pack_buffer == 0
        && pbo_offset != 0
        && !ps.swap_bytes
        && layout.skip == 0
        && layout.row_stride == row_bytes
        && rows_per_band >= height as usize
    {
        gl.conn.blocking(crate::runtime::BlockingCause::ReadPixels);
        counted = true;
        let p = calls::ReadPixels {
            x,
            y,
            width: width as u32,
            height: height as u32,
            format,
            r#type: ty,
        };
        // SAFETY: the application promises a writable image under its pack
        // state, which here is exactly `height` tight rows of `row_bytes`.
        let dst = unsafe {
            std::slice::from_raw_parts_mut(pbo_offset as *mut u8, row_bytes * height as usize)
        };
        if gl.conn.pipe.read_pixels_into(&p, dst) {
            return None;
        }
    }
    // The previous call's buffer: a single band reads over its old bytes
    // (the reply sets the length), so nothing is allocated or zero-filled.
    let mut reply = take_readback();
    if rows_per_band < height as usize {
        reply.clear();
        reply.reserve(row_bytes * height as usize);
    }
    let mut band = Vec::new();
    let mut row = 0usize;
    while row < height as usize {
        let rows = rows_per_band.min(height as usize - row);
        // One band (the common case) reads straight into the result.
        let dst = if rows == height as usize {
            &mut reply
        } else {
            &mut band
        };
        if !std::mem::take(&mut counted) {
            gl.conn.blocking(crate::runtime::BlockingCause::ReadPixels);
        }
        let p = calls::ReadPixels {
            x,
            y: y + row as i32,
            width: width as u32,
            height: rows as u32,
            format,
            r#type: ty,
        };
        gl.conn.pipe.read_pixels(&p, dst);
        dst.resize(rows * row_bytes, 0);
        if rows != height as usize {
            reply.extend_from_slice(&band);
        }
        row += rows;
    }
    if gl.st.pack.swap_bytes {
        swap_in_place(&mut reply, bpp);
    }
    if gl.st.pixel_pack_buffer != 0 {
        // Pack into a buffer object: scatter into a shadow of the touched range.
        let name = gl.st.pixel_pack_buffer;
        let Some(Some(buf)) = gl.sh.buffers.get(&name) else {
            return None;
        };
        let handle = buf.handle;
        let size = buf.size;
        // `data` is an offset into the buffer.
        let l = client_layout(&ps, width as usize, height as usize, bpp);
        let end = l.skip + l.row_stride * (height as usize - 1) + l.row_bytes;
        if (pbo_offset + end) as u64 > size {
            gl.st.set_error(glow::INVALID_OPERATION);
            return None;
        }
        // Rows of the pack layout keep their gaps: read the old bytes first.
        let mut shadow = super::buffers::read_buffer(
            gl,
            handle,
            pbo_offset as u64,
            end as u64,
            crate::runtime::BlockingCause::ReadPixels,
        );
        // SAFETY: `shadow` holds `end` bytes, enough for the layout.
        unsafe {
            pack(
                &ps,
                width as u32,
                height as u32,
                bpp,
                &reply,
                shadow.as_mut_ptr(),
            )
        };
        super::buffers::send_subdata(gl, handle, pbo_offset as u64, &shadow);
        keep_readback(reply);
        return Some((ps, bpp, Vec::new(), Some(0)));
    }
    Some((ps, bpp, reply, None))
}

/// Check (format, type) for uploads; returns bytes per pixel.
pub fn check_upload_format(gl: &mut Gl, format: u32, ty: u32) -> Option<usize> {
    match bytes_per_pixel(format, ty) {
        Some(b) => Some(b),
        None => {
            gl.st.set_error(glow::INVALID_ENUM);
            None
        }
    }
}
