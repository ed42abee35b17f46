//! Vertex arrays and attributes.

use std::ffi::c_void;

use super::{gl_err, put, slice};
use crate::context::{with_gl_dirty, Gl, VertexArray, VertexAttrib, DIRTY_VERTEX, MAX_ATTRIBS};

#[no_mangle]
pub unsafe extern "C" fn glGenVertexArrays(n: i32, out: *mut u32) {
    with_gl_dirty(DIRTY_VERTEX, |gl| {
        if n < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        for i in 0..n as usize {
            let name = loop {
                let c = gl.st.new_name();
                if !gl.st.vaos.contains_key(&c) {
                    break c;
                }
            };
            gl.st.vaos.insert(name, None);
            // SAFETY: GL promises `n` writable names.
            unsafe { put(out.add(i), name) };
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glCreateVertexArrays(n: i32, out: *mut u32) {
    with_gl_dirty(DIRTY_VERTEX, |gl| {
        if n < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        for i in 0..n as usize {
            let name = loop {
                let c = gl.st.new_name();
                if !gl.st.vaos.contains_key(&c) {
                    break c;
                }
            };
            gl.st.vaos.insert(
                name,
                Some(VertexArray {
                    created: true,
                    ..Default::default()
                }),
            );
            // SAFETY: GL promises `n` writable names.
            unsafe { put(out.add(i), name) };
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glDeleteVertexArrays(n: i32, names: *const u32) {
    // SAFETY: GL promises `n` names.
    let names = unsafe { slice(names, n) }.to_vec();
    with_gl_dirty(DIRTY_VERTEX, |gl| {
        if n < 0 {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        for name in names {
            if name == 0 {
                continue;
            }
            if gl.st.vaos.remove(&name).is_some() && gl.st.vao == name {
                gl.st.vao = 0;
            }
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glIsVertexArray(name: u32) -> u8 {
    with_gl_dirty(DIRTY_VERTEX, |gl| {
        (name != 0 && matches!(gl.st.vaos.get(&name), Some(Some(_)))) as u8
    })
}

#[no_mangle]
pub unsafe extern "C" fn glBindVertexArray(name: u32) {
    with_gl_dirty(DIRTY_VERTEX, |gl| {
        match gl.st.vaos.get_mut(&name) {
            None => gl_err!(gl, glow::INVALID_OPERATION),
            Some(slot @ None) => {
                *slot = Some(VertexArray {
                    created: true,
                    ..Default::default()
                })
            }
            Some(Some(_)) => {}
        }
        gl.st.vao = name;
    })
}

/// The bound VAO's attribute `index`, or the GL error.
fn attrib_mut<'a>(gl: &'a mut Gl, index: u32) -> Result<&'a mut VertexAttrib, u32> {
    if index as usize >= MAX_ATTRIBS {
        return Err(glow::INVALID_VALUE);
    }
    let vao = gl.st.vao;
    if vao == 0 && gl.st.is_core() {
        return Err(glow::INVALID_OPERATION);
    }
    match gl.st.vaos.get_mut(&vao) {
        Some(Some(v)) => {
            v.rev += 1;
            Ok(&mut v.attribs[index as usize])
        }
        _ => Err(glow::INVALID_OPERATION),
    }
}

#[no_mangle]
pub unsafe extern "C" fn glEnableVertexAttribArray(index: u32) {
    with_gl_dirty(DIRTY_VERTEX, |gl| match attrib_mut(gl, index) {
        Ok(a) => a.enabled = true,
        Err(e) => gl.st.set_error(e),
    })
}

#[no_mangle]
pub unsafe extern "C" fn glDisableVertexAttribArray(index: u32) {
    with_gl_dirty(DIRTY_VERTEX, |gl| match attrib_mut(gl, index) {
        Ok(a) => a.enabled = false,
        Err(e) => gl.st.set_error(e),
    })
}

fn valid_float_type(ty: u32) -> bool {
    matches!(
        ty,
        glow::BYTE
            | glow::UNSIGNED_BYTE
            | glow::SHORT
            | glow::UNSIGNED_SHORT
            | glow::INT
            | glow::UNSIGNED_INT
            | glow::HALF_FLOAT
            | glow::FLOAT
            | glow::DOUBLE
            | glow::FIXED
            | glow::INT_2_10_10_10_REV
            | glow::UNSIGNED_INT_2_10_10_10_REV
            | glow::UNSIGNED_INT_10F_11F_11F_REV
    )
}

fn valid_int_type(ty: u32) -> bool {
    matches!(
        ty,
        glow::BYTE
            | glow::UNSIGNED_BYTE
            | glow::SHORT
            | glow::UNSIGNED_SHORT
            | glow::INT
            | glow::UNSIGNED_INT
    )
}

#[allow(clippy::too_many_arguments)]
fn attrib_pointer(
    gl: &mut Gl,
    index: u32,
    size: i32,
    ty: u32,
    normalized: bool,
    integer: bool,
    stride: i32,
    offset: usize,
) {
    let size_ok = (1..=4).contains(&size) || (size == glow::BGRA as i32 && !integer);
    if !size_ok || stride < 0 || index as usize >= MAX_ATTRIBS {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    if !(if integer {
        valid_int_type(ty)
    } else {
        valid_float_type(ty)
    }) {
        gl_err!(gl, glow::INVALID_ENUM);
    }
    if matches!(
        ty,
        glow::INT_2_10_10_10_REV | glow::UNSIGNED_INT_2_10_10_10_REV
    ) && size != 4
        && size != glow::BGRA as i32
    {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    if size == glow::BGRA as i32
        && (ty != glow::UNSIGNED_BYTE || !normalized)
        && !matches!(
            ty,
            glow::INT_2_10_10_10_REV | glow::UNSIGNED_INT_2_10_10_10_REV
        )
    {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    let buffer = gl.st.array_buffer;
    // Core profile: client-memory arrays are not allowed.
    if buffer == 0 && offset != 0 && gl.st.is_core() {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    if buffer == 0 && !gl.st.is_core() {
        super::log_once("client_arrays", || {
            "client-memory vertex arrays are not staged yet".into()
        });
    }
    let size = if size == glow::BGRA as i32 {
        4
    } else {
        size as u32
    };
    match attrib_mut(gl, index) {
        Ok(a) => {
            a.size = size;
            a.ty = ty;
            a.normalized = normalized;
            a.integer = integer;
            a.stride = stride as u32;
            a.offset = offset as u64;
            a.buffer = buffer;
        }
        Err(e) => gl.st.set_error(e),
    }
}

#[no_mangle]
pub unsafe extern "C" fn glVertexAttribPointer(
    index: u32,
    size: i32,
    ty: u32,
    normalized: u8,
    stride: i32,
    pointer: *const c_void,
) {
    with_gl_dirty(DIRTY_VERTEX, |gl| {
        attrib_pointer(
            gl,
            index,
            size,
            ty,
            normalized != 0,
            false,
            stride,
            pointer as usize,
        )
    })
}

#[no_mangle]
pub unsafe extern "C" fn glVertexAttribIPointer(
    index: u32,
    size: i32,
    ty: u32,
    stride: i32,
    pointer: *const c_void,
) {
    with_gl_dirty(DIRTY_VERTEX, |gl| {
        attrib_pointer(gl, index, size, ty, false, true, stride, pointer as usize)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glVertexAttribDivisor(index: u32, divisor: u32) {
    with_gl_dirty(DIRTY_VERTEX, |gl| match attrib_mut(gl, index) {
        Ok(a) => a.divisor = divisor,
        Err(e) => gl.st.set_error(e),
    })
}

fn set_current(gl: &mut Gl, index: u32, v: [u32; 4], integer: bool) {
    if index as usize >= MAX_ATTRIBS {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    gl.st.current_attrib[index as usize] = v;
    gl.st.current_attrib_rev += 1;
    if integer {
        gl.st.current_attrib_integer |= 1 << index;
    } else {
        gl.st.current_attrib_integer &= !(1 << index);
    }
}

/// Attribute `index`'s current value from four floats (`attrib_values`).
pub(super) fn set_current_float(gl: &mut Gl, index: u32, v: [f32; 4]) {
    set_current(gl, index, v.map(f32::to_bits), false)
}

/// Attribute `index`'s current value from four integers (`attrib_values`).
pub(super) fn set_current_integer(gl: &mut Gl, index: u32, v: [u32; 4]) {
    set_current(gl, index, v, true)
}

/// `pname` of attribute `index` (its current value: four words, integer or
/// float bits) and whether the current value is an integer one; None after
/// setting the GL error.
pub(super) fn current_attrib(gl: &mut Gl, index: u32, pname: u32) -> Option<([u32; 4], bool)> {
    let integer = gl.st.current_attrib_integer & (1 << index.min(31)) != 0;
    vertex_attrib_param(gl, index, pname).map(|v| (v, integer))
}

fn vertex_attrib_param(gl: &mut Gl, index: u32, pname: u32) -> Option<[u32; 4]> {
    if index as usize >= MAX_ATTRIBS {
        gl.st.set_error(glow::INVALID_VALUE);
        return None;
    }
    if pname == glow::CURRENT_VERTEX_ATTRIB {
        return Some(gl.st.current_attrib[index as usize]);
    }
    let vao = gl.st.vao;
    let a = match gl.st.vaos.get(&vao) {
        Some(Some(v)) => v.attribs[index as usize],
        _ => {
            gl.st.set_error(glow::INVALID_OPERATION);
            return None;
        }
    };
    let v = match pname {
        glow::VERTEX_ATTRIB_ARRAY_ENABLED => a.enabled as u32,
        glow::VERTEX_ATTRIB_ARRAY_SIZE => a.size,
        glow::VERTEX_ATTRIB_ARRAY_STRIDE => a.stride,
        glow::VERTEX_ATTRIB_ARRAY_TYPE => a.ty,
        glow::VERTEX_ATTRIB_ARRAY_NORMALIZED => a.normalized as u32,
        glow::VERTEX_ATTRIB_ARRAY_INTEGER => a.integer as u32,
        glow::VERTEX_ATTRIB_ARRAY_DIVISOR => a.divisor,
        glow::VERTEX_ATTRIB_ARRAY_BUFFER_BINDING => a.buffer,
        glow::VERTEX_ATTRIB_ARRAY_LONG => 0,
        _ => {
            gl.st.set_error(glow::INVALID_ENUM);
            return None;
        }
    };
    Some([v, 0, 0, 0])
}

#[no_mangle]
pub unsafe extern "C" fn glGetVertexAttribPointerv(index: u32, pname: u32, out: *mut *mut c_void) {
    let r = with_gl_dirty(DIRTY_VERTEX, |gl| {
        if pname != glow::VERTEX_ATTRIB_ARRAY_POINTER {
            gl.st.set_error(glow::INVALID_ENUM);
            return None;
        }
        if index as usize >= MAX_ATTRIBS {
            gl.st.set_error(glow::INVALID_VALUE);
            return None;
        }
        let vao = gl.st.vao;
        match gl.st.vaos.get(&vao) {
            Some(Some(v)) => Some(v.attribs[index as usize].offset as usize),
            _ => None,
        }
    });
    if let Some(off) = r {
        // SAFETY: GL promises one writable pointer.
        unsafe { put(out, off as *mut c_void) };
    }
}
