//! `glClearBuffer{Sub}Data` and their named (DSA) forms (GL 4.3 core,
//! ARB_clear_buffer_object): the clear value is converted on the client
//! from the application's format/type into the element the internal format
//! stores (the texture-buffer formats of GL 4.6 Table 8.22), repeated over
//! the range and sent as ordinary buffer updates (`buffers::send_subdata`):
//! no catalogue call, so every backend and transport has it.
//!
//! Owns only the validation and the conversion; buffer state lives in
//! `buffers`.

use std::ffi::c_void;

use mgpipe::pixels::{bytes_per_pixel, channels, convert};

use super::buffers::{bound_object, send_subdata};
use super::gl_err;
use crate::context::{with_gl_dirty, DIRTY_RESOURCES, DIRTY_VERTEX};

/// The client format/type pair whose memory layout is exactly one element
/// of a texture-buffer internal format; `None` for any other format.
fn element_layout(internalformat: u32) -> Option<(u32, u32)> {
    use glow::*;
    Some(match internalformat {
        R8 => (RED, UNSIGNED_BYTE),
        R16 => (RED, UNSIGNED_SHORT),
        R16F => (RED, HALF_FLOAT),
        R32F => (RED, FLOAT),
        R8I => (RED_INTEGER, BYTE),
        R16I => (RED_INTEGER, SHORT),
        R32I => (RED_INTEGER, INT),
        R8UI => (RED_INTEGER, UNSIGNED_BYTE),
        R16UI => (RED_INTEGER, UNSIGNED_SHORT),
        R32UI => (RED_INTEGER, UNSIGNED_INT),
        RG8 => (RG, UNSIGNED_BYTE),
        RG16 => (RG, UNSIGNED_SHORT),
        RG16F => (RG, HALF_FLOAT),
        RG32F => (RG, FLOAT),
        RG8I => (RG_INTEGER, BYTE),
        RG16I => (RG_INTEGER, SHORT),
        RG32I => (RG_INTEGER, INT),
        RG8UI => (RG_INTEGER, UNSIGNED_BYTE),
        RG16UI => (RG_INTEGER, UNSIGNED_SHORT),
        RG32UI => (RG_INTEGER, UNSIGNED_INT),
        RGB32F => (RGB, FLOAT),
        RGB32I => (RGB_INTEGER, INT),
        RGB32UI => (RGB_INTEGER, UNSIGNED_INT),
        RGBA8 => (RGBA, UNSIGNED_BYTE),
        RGBA16 => (RGBA, UNSIGNED_SHORT),
        RGBA16F => (RGBA, HALF_FLOAT),
        RGBA32F => (RGBA, FLOAT),
        RGBA8I => (RGBA_INTEGER, BYTE),
        RGBA16I => (RGBA_INTEGER, SHORT),
        RGBA32I => (RGBA_INTEGER, INT),
        RGBA8UI => (RGBA_INTEGER, UNSIGNED_BYTE),
        RGBA16UI => (RGBA_INTEGER, UNSIGNED_SHORT),
        RGBA32UI => (RGBA_INTEGER, UNSIGNED_INT),
        _ => return None,
    })
}

/// Which buffer a call names.
enum Target {
    Bound(u32),
    Named(u32),
}

/// A clear range: the whole buffer or `offset`/`size` bytes of it.
#[derive(Clone, Copy)]
enum Range {
    Whole,
    Sub(isize, isize),
}

/// The shared body of the four entry points; `data` is null (clear to
/// zero) or one element in `format`/`type`.
///
/// # Safety
/// `data` is null or points at one readable pixel of `format`/`type`.
unsafe fn clear(
    target: Target,
    internalformat: u32,
    range: Range,
    format: u32,
    ty: u32,
    data: *const c_void,
) {
    with_gl_dirty(DIRTY_VERTEX | DIRTY_RESOURCES, |gl| {
        let name = match target {
            Target::Bound(t) => match bound_object(gl, t) {
                Ok(n) => n,
                // ARB_clear_buffer_object: no buffer bound is
                // INVALID_VALUE here (BufferSubData says INVALID_OPERATION).
                Err(glow::INVALID_OPERATION) => gl_err!(gl, glow::INVALID_VALUE),
                Err(e) => gl_err!(gl, e),
            },
            Target::Named(n) => n,
        };
        let Some(Some(buf)) = gl.sh.buffers.get(&name) else {
            gl_err!(gl, glow::INVALID_OPERATION)
        };
        let (handle, buf_size) = (buf.handle, buf.size);
        // The mapped range (offset, length) and whether it is persistent.
        let map = buf
            .map
            .as_ref()
            .map(|m| (m.offset, m.length, m.persistent.is_some()));
        let Some((elem_format, elem_type)) = element_layout(internalformat) else {
            gl_err!(gl, glow::INVALID_ENUM)
        };
        let elem = bytes_per_pixel(elem_format, elem_type).unwrap_or(1) as u64;
        let (offset, size) = match range {
            Range::Whole => (0u64, buf_size),
            Range::Sub(o, s) => {
                if o < 0 || s < 0 || (o as u64).saturating_add(s as u64) > buf_size {
                    gl_err!(gl, glow::INVALID_VALUE);
                }
                (o as u64, s as u64)
            }
        };
        if offset % elem != 0 || size % elem != 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        let Some(src_bytes) = bytes_per_pixel(format, ty) else {
            gl_err!(gl, glow::INVALID_VALUE)
        };
        let (Some((_, src_integer)), Some((_, dst_integer))) =
            (channels(format), channels(elem_format))
        else {
            gl_err!(gl, glow::INVALID_VALUE)
        };
        if src_integer != dst_integer {
            // As a texture upload: integer data only into integer formats.
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        // GL 4.6 §6.5: no part of the range may be mapped without
        // MAP_PERSISTENT_BIT.
        if let Some((m_off, m_len, false)) = map {
            if offset < m_off.saturating_add(m_len) && m_off < offset.saturating_add(size) {
                gl_err!(gl, glow::INVALID_OPERATION);
            }
        }
        let element = if data.is_null() {
            vec![0u8; elem as usize]
        } else {
            // SAFETY: the caller's promise: one pixel of format/type.
            let src = unsafe { std::slice::from_raw_parts(data.cast::<u8>(), src_bytes) };
            match convert(src, format, ty, elem_format, elem_type, 1) {
                Some(e) => e,
                None => gl_err!(gl, glow::INVALID_OPERATION),
            }
        };
        if size == 0 {
            return;
        }
        // One pattern of whole elements, at most one record's blob long,
        // sent as often as the range needs (not the whole range at once:
        // a large clear must not allocate the buffer's size here).
        let elem_len = element.len().max(1) as u64;
        let chunk = (gl.conn.max_blob as u64 / elem_len).max(1) * elem_len;
        let pattern = element.repeat((chunk.min(size) / elem_len) as usize);
        let mut done = 0u64;
        while done < size {
            let n = (size - done).min(pattern.len() as u64) as usize;
            let Some(bytes) = pattern.get(..n) else {
                return;
            };
            send_subdata(gl, handle, offset + done, bytes);
            if matches!(map, Some((_, _, true))) {
                // A persistent map shows the new contents too.
                crate::gl::persistent::write_back(gl, handle, offset + done, bytes);
            }
            done += n as u64;
        }
    })
}

/// # Safety
/// GL's contract: `data` is null or one element of `format`/`type`.
#[no_mangle]
pub unsafe extern "C" fn glClearBufferData(
    target: u32,
    internalformat: u32,
    format: u32,
    ty: u32,
    data: *const c_void,
) {
    // SAFETY: forwarded contract.
    unsafe {
        clear(
            Target::Bound(target),
            internalformat,
            Range::Whole,
            format,
            ty,
            data,
        )
    }
}

/// # Safety
/// GL's contract: `data` is null or one element of `format`/`type`.
#[no_mangle]
pub unsafe extern "C" fn glClearBufferSubData(
    target: u32,
    internalformat: u32,
    offset: isize,
    size: isize,
    format: u32,
    ty: u32,
    data: *const c_void,
) {
    // SAFETY: forwarded contract.
    unsafe {
        clear(
            Target::Bound(target),
            internalformat,
            Range::Sub(offset, size),
            format,
            ty,
            data,
        )
    }
}

/// # Safety
/// GL's contract: `data` is null or one element of `format`/`type`.
#[no_mangle]
pub unsafe extern "C" fn glClearNamedBufferData(
    buffer: u32,
    internalformat: u32,
    format: u32,
    ty: u32,
    data: *const c_void,
) {
    // SAFETY: forwarded contract.
    unsafe {
        clear(
            Target::Named(buffer),
            internalformat,
            Range::Whole,
            format,
            ty,
            data,
        )
    }
}

/// # Safety
/// GL's contract: `data` is null or one element of `format`/`type`.
#[no_mangle]
pub unsafe extern "C" fn glClearNamedBufferSubData(
    buffer: u32,
    internalformat: u32,
    offset: isize,
    size: isize,
    format: u32,
    ty: u32,
    data: *const c_void,
) {
    // SAFETY: forwarded contract.
    unsafe {
        clear(
            Target::Named(buffer),
            internalformat,
            Range::Sub(offset, size),
            format,
            ty,
            data,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_8_22_format_has_an_element_layout() {
        for f in [
            glow::R8,
            glow::RG16F,
            glow::RGB32UI,
            glow::RGBA8I,
            glow::RGBA32F,
        ] {
            let (cf, ct) = element_layout(f).unwrap();
            assert!(bytes_per_pixel(cf, ct).is_some());
        }
        assert_eq!(element_layout(glow::RGB8), None);
        assert_eq!(element_layout(glow::DEPTH_COMPONENT24), None);
    }

    #[test]
    fn clear_value_converts_to_the_element() {
        // One RGBA float pixel into RGBA8: normalised and rounded.
        let src: Vec<u8> = [1.0f32, 0.5, 0.0, 1.0]
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        let (cf, ct) = element_layout(glow::RGBA8).unwrap();
        let e = convert(&src, glow::RGBA, glow::FLOAT, cf, ct, 1).unwrap();
        assert_eq!(e, vec![255, 128, 0, 255]);
    }
}
