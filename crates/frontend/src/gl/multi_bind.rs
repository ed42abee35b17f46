//! Multi-bind (GL 4.4, ARB_multi_bind): `glBindBuffersBase`,
//! `glBindBuffersRange`, `glBindTextures`, `glBindSamplers`,
//! `glBindImageTextures`, `glBindVertexBuffers`.
//!
//! Pure frontend: each loops over the single binders. Errors follow GL 4.6
//! §7.1/§8.1/§8.2/§8.26/§10.3.1: a count below zero is INVALID_VALUE and a
//! range past the binding points INVALID_OPERATION, both binding nothing;
//! an error of one index (a bad name, offset or size) leaves only that
//! binding unchanged, the others are still made, and the first such error
//! is the one recorded.

use super::compute::{image_unit_limit, storage_binding_limit, valid_image_format, ImageUnit};
use super::{buffers, gl_err, vertex};
use crate::context::{
    target_index, with_gl, with_gl_dirty, Gl, DIRTY_PROGRAM, DIRTY_RESOURCES, DIRTY_VERTEX,
    MAX_TEXTURE_UNITS, MAX_UBO_BINDINGS,
};

/// Read element `i` of an optional C array (`None` for a null pointer).
///
/// # Safety
/// `ptr` must be null or point at more than `i` readable elements.
unsafe fn at<T: Copy>(ptr: *const T, i: usize) -> Option<T> {
    if ptr.is_null() {
        None
    } else {
        // SAFETY: non-null; the caller promises `i` is within the array.
        Some(unsafe { *ptr.add(i) })
    }
}

/// The common prologue: Err = the GL error for `count` and the range.
fn check_range(first: u32, count: i32, limit: usize) -> Result<usize, u32> {
    if count < 0 {
        return Err(glow::INVALID_VALUE);
    }
    if u64::from(first) + count as u64 > limit as u64 {
        return Err(glow::INVALID_OPERATION);
    }
    Ok(count as usize)
}

/// Binding points of an indexed buffer target (None = not one).
fn buffer_points(gl: &Gl, target: u32) -> Option<usize> {
    Some(match target {
        glow::UNIFORM_BUFFER => MAX_UBO_BINDINGS,
        glow::TRANSFORM_FEEDBACK_BUFFER => super::xfb::MAX_XFB_BUFFERS,
        glow::SHADER_STORAGE_BUFFER => storage_binding_limit(gl),
        glow::ATOMIC_COUNTER_BUFFER => super::compute::MAX_ATOMIC_BINDINGS,
        _ => return None,
    })
}

/// glBindBuffersBase / glBindBuffersRange.
///
/// # Safety
/// Each non-null array holds `count` elements.
unsafe fn bind_buffers(
    gl: &mut Gl,
    target: u32,
    first: u32,
    count: i32,
    names: *const u32,
    range: Option<(*const isize, *const isize)>,
) {
    let Some(points) = buffer_points(gl, target) else {
        gl_err!(gl, glow::INVALID_ENUM)
    };
    let n = match check_range(first, count, points) {
        Ok(n) => n,
        Err(e) => gl_err!(gl, e),
    };
    // Multi-bind leaves the generic binding point as it was.
    let generic = buffers::target_slot(gl, target).map(|s| *s);
    for i in 0..n {
        // SAFETY: the caller's arrays hold `count` elements.
        let name = unsafe { at(names, i) }.unwrap_or(0);
        let index = first + i as u32;
        match range {
            Some((offsets, sizes)) if name != 0 => {
                // SAFETY: as above.
                let (o, s) = unsafe { (at(offsets, i), at(sizes, i)) };
                let (Some(o), Some(s)) = (o, s) else {
                    gl.st.set_error(glow::INVALID_VALUE);
                    continue;
                };
                buffers::bind_range(gl, target, index, name, o as i64, s as i64, true);
            }
            _ => buffers::bind_range(gl, target, index, name, 0, 0, false),
        }
    }
    if let (Some(g), Some(slot)) = (generic, buffers::target_slot(gl, target)) {
        *slot = g;
    }
}

#[no_mangle]
pub unsafe extern "C" fn glBindBuffersBase(
    target: u32,
    first: u32,
    count: i32,
    buffers: *const u32,
) {
    // SAFETY: GL's contract: `buffers` is null or holds `count` names.
    with_gl(|gl| unsafe { bind_buffers(gl, target, first, count, buffers, None) })
}

#[no_mangle]
pub unsafe extern "C" fn glBindBuffersRange(
    target: u32,
    first: u32,
    count: i32,
    buffers: *const u32,
    offsets: *const isize,
    sizes: *const isize,
) {
    // SAFETY: GL's contract: each array is null or holds `count` values.
    with_gl(|gl| unsafe { bind_buffers(gl, target, first, count, buffers, Some((offsets, sizes))) })
}

#[no_mangle]
pub unsafe extern "C" fn glBindTextures(first: u32, count: i32, textures: *const u32) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_RESOURCES, |gl| {
        let n = match check_range(first, count, MAX_TEXTURE_UNITS) {
            Ok(n) => n,
            Err(e) => gl_err!(gl, e),
        };
        for i in 0..n {
            let unit = first as usize + i;
            // SAFETY: GL's contract: null or `count` names.
            let name = unsafe { at(textures, i) }.unwrap_or(0);
            if name == 0 {
                // Zero unbinds every target of the unit.
                gl.st.texture_units[unit].iter_mut().for_each(|t| *t = 0);
                continue;
            }
            let ti = match gl.sh.textures.get(&name) {
                Some(Some(t)) if t.target != 0 => target_index(t.target),
                _ => None,
            };
            match ti {
                Some(ti) => gl.st.texture_units[unit][ti] = name,
                None => gl.st.set_error(glow::INVALID_OPERATION),
            }
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glBindSamplers(first: u32, count: i32, samplers: *const u32) {
    with_gl_dirty(DIRTY_PROGRAM | DIRTY_RESOURCES, |gl| {
        let n = match check_range(first, count, MAX_TEXTURE_UNITS) {
            Ok(n) => n,
            Err(e) => gl_err!(gl, e),
        };
        for i in 0..n {
            // SAFETY: GL's contract: null or `count` names.
            let name = unsafe { at(samplers, i) }.unwrap_or(0);
            if name != 0 && !gl.sh.samplers.contains_key(&name) {
                gl.st.set_error(glow::INVALID_OPERATION);
                continue;
            }
            gl.st.sampler_units[first as usize + i] = name;
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glBindImageTextures(first: u32, count: i32, textures: *const u32) {
    with_gl_dirty(DIRTY_RESOURCES, |gl| {
        let n = match check_range(first, count, image_unit_limit(gl)) {
            Ok(n) => n,
            Err(e) => gl_err!(gl, e),
        };
        for i in 0..n {
            // SAFETY: GL's contract: null or `count` names.
            let name = unsafe { at(textures, i) }.unwrap_or(0);
            let unit = if name == 0 {
                ImageUnit::default()
            } else {
                // Level 0's format; a texture without one (or one no image
                // unit takes) is INVALID_OPERATION for this unit.
                let format = match gl.sh.textures.get(&name) {
                    Some(Some(t)) => t
                        .levels
                        .first()
                        .and_then(|f| f.first())
                        .and_then(|l| l.as_ref())
                        .map(|l| l.internal_format),
                    _ => None,
                };
                match format {
                    Some(f) if valid_image_format(f) => ImageUnit {
                        texture: name,
                        level: 0,
                        layered: true,
                        layer: 0,
                        access: glow::READ_WRITE,
                        format: f,
                    },
                    _ => {
                        gl.st.set_error(glow::INVALID_OPERATION);
                        continue;
                    }
                }
            };
            gl.st.compute.image_units[first as usize + i] = unit;
        }
    })
}

/// glBindVertexBuffers (`dsa.rs` has glVertexArrayVertexBuffers).
///
/// # Safety
/// Each non-null array holds `count` elements.
unsafe fn bind_vertex_buffers(
    gl: &mut Gl,
    first: u32,
    count: i32,
    names: *const u32,
    offsets: *const isize,
    strides: *const i32,
) {
    let n = match check_range(first, count, vertex::MAX_BINDINGS as usize) {
        Ok(n) => n,
        Err(e) => gl_err!(gl, e),
    };
    for i in 0..n {
        // SAFETY: the caller's arrays hold `count` elements.
        let (name, offset, stride) = unsafe { (at(names, i), at(offsets, i), at(strides, i)) };
        let (name, offset, stride) = if names.is_null() {
            // A null `buffers` resets the bindings to their defaults;
            // offsets and strides are ignored.
            (0, 0, 16)
        } else {
            match (name, offset, stride) {
                (Some(b), Some(o), Some(s)) => (b, o, s),
                _ => {
                    gl.st.set_error(glow::INVALID_VALUE);
                    continue;
                }
            }
        };
        vertex::bind_vertex_buffer(gl, None, first + i as u32, name, offset, stride);
    }
}

#[no_mangle]
pub unsafe extern "C" fn glBindVertexBuffers(
    first: u32,
    count: i32,
    buffers: *const u32,
    offsets: *const isize,
    strides: *const i32,
) {
    with_gl_dirty(DIRTY_VERTEX, |gl| {
        // SAFETY: GL's contract: each array is null or holds `count` values.
        unsafe { bind_vertex_buffers(gl, first, count, buffers, offsets, strides) }
    })
}
