//! Vertex arrays and attributes.

use std::ffi::c_void;

use super::{gl_err, put, slice};
use crate::context::{
    with_gl_dirty, Gl, VertexArray, VertexAttrib, VertexBinding, DIRTY_VERTEX, MAX_ATTRIBS,
};

/// GL_MAX_VERTEX_ATTRIB_BINDINGS: one binding point per attribute.
pub const MAX_BINDINGS: u32 = MAX_ATTRIBS as u32;
/// GL_MAX_VERTEX_ATTRIB_RELATIVE_OFFSET (GL 4.6's minimum).
pub const MAX_RELATIVE_OFFSET: u32 = 2047;
/// GL_MAX_VERTEX_ATTRIB_STRIDE (GL 4.6's minimum).
pub const MAX_STRIDE: i32 = 2048;

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

/// The bound VAO, its revision bumped (it is about to change), or the GL
/// error (none bound in a core context).
pub(super) fn vao_mut<'a>(gl: &'a mut Gl) -> Result<&'a mut VertexArray, u32> {
    vao_sel_mut(gl, None)
}

/// [`vao_mut`] of the VAO `sel` names (ARB_direct_state_access: it must
/// exist; zero names the default VAO of a compatibility context), or of
/// the bound one for None.
pub(super) fn vao_sel_mut<'a>(
    gl: &'a mut Gl,
    sel: Option<u32>,
) -> Result<&'a mut VertexArray, u32> {
    let vao = sel.unwrap_or(gl.st.vao);
    if vao == 0 && gl.st.is_core() {
        return Err(glow::INVALID_OPERATION);
    }
    match gl.st.vaos.get_mut(&vao) {
        Some(Some(v)) => {
            v.rev += 1;
            Ok(v)
        }
        _ => Err(glow::INVALID_OPERATION),
    }
}

/// Attribute `index` of the VAO `sel` selects (see [`vao_sel_mut`]), or
/// the GL error.
fn attrib_sel_mut<'a>(
    gl: &'a mut Gl,
    sel: Option<u32>,
    index: u32,
) -> Result<&'a mut VertexAttrib, u32> {
    if index as usize >= MAX_ATTRIBS {
        return Err(glow::INVALID_VALUE);
    }
    vao_sel_mut(gl, sel).map(|v| &mut v.attribs[index as usize])
}

/// glEnable/DisableVertexAttribArray and their DSA twins.
pub(super) fn enable_attrib(gl: &mut Gl, sel: Option<u32>, index: u32, on: bool) {
    if sel.is_some() {
        // DSA: an unknown VAO is the first error.
        if let Err(e) = vao_sel_mut(gl, sel) {
            gl_err!(gl, e);
        }
    }
    match attrib_sel_mut(gl, sel, index) {
        Ok(a) => a.enabled = on,
        Err(e) => gl.st.set_error(e),
    }
}

/// Bytes of one element of `size` components of `ty` (the stride a
/// tightly packed array has).
pub(super) fn element_bytes(size: u32, ty: u32) -> u32 {
    match ty {
        glow::INT_2_10_10_10_REV
        | glow::UNSIGNED_INT_2_10_10_10_REV
        | glow::UNSIGNED_INT_10F_11F_11F_REV => 4,
        _ => size * super::validate::type_size(ty),
    }
}

#[no_mangle]
pub unsafe extern "C" fn glEnableVertexAttribArray(index: u32) {
    with_gl_dirty(DIRTY_VERTEX, |gl| enable_attrib(gl, None, index, true))
}

#[no_mangle]
pub unsafe extern "C" fn glDisableVertexAttribArray(index: u32) {
    with_gl_dirty(DIRTY_VERTEX, |gl| enable_attrib(gl, None, index, false))
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

/// The format checks shared by `glVertexAttrib*Pointer` and
/// `glVertexAttrib*Format` (GL 4.6 §10.3.1): the component count to store
/// (BGRA is 4), or the GL error.
fn check_format(size: i32, ty: u32, normalized: bool, integer: bool) -> Result<u32, u32> {
    let size_ok = (1..=4).contains(&size) || (size == glow::BGRA as i32 && !integer);
    if !size_ok {
        return Err(glow::INVALID_VALUE);
    }
    // `integer` with GL_DOUBLE is the L family (64-bit inputs, no
    // conversion); the I entry points refuse GL_DOUBLE before this.
    if !(if integer {
        valid_int_type(ty) || ty == glow::DOUBLE
    } else {
        valid_float_type(ty)
    }) {
        return Err(glow::INVALID_ENUM);
    }
    let packed = matches!(
        ty,
        glow::INT_2_10_10_10_REV | glow::UNSIGNED_INT_2_10_10_10_REV
    );
    if packed && size != 4 && size != glow::BGRA as i32 {
        return Err(glow::INVALID_OPERATION);
    }
    if size == glow::BGRA as i32 && (ty != glow::UNSIGNED_BYTE || !normalized) && !packed {
        return Err(glow::INVALID_OPERATION);
    }
    Ok(if size == glow::BGRA as i32 {
        4
    } else {
        size as u32
    })
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
    if !(0..=MAX_STRIDE).contains(&stride) || index as usize >= MAX_ATTRIBS {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    let size = match check_format(size, ty, normalized, integer) {
        Ok(s) => s,
        Err(e) => gl_err!(gl, e),
    };
    let buffer = gl.st.array_buffer;
    // Client-memory arrays: compatibility profile, VAO 0 only (GL 4.6
    // §10.3.1); draws stage them (`legacy_arrays`).
    if buffer == 0 && offset != 0 && (gl.st.is_core() || gl.st.vao != 0) {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    // GL 4.6 §10.3.2: the format, binding point `index` for the
    // attribute, and that binding's buffer, offset and effective stride.
    let effective = if stride == 0 {
        element_bytes(size, ty)
    } else {
        stride as u32
    };
    match vao_mut(gl) {
        Ok(v) => {
            let a = &mut v.attribs[index as usize];
            a.size = size;
            a.ty = ty;
            a.normalized = normalized;
            a.integer = integer;
            a.stride = stride as u32;
            a.relative_offset = 0;
            a.binding = index;
            let b = &mut v.bindings[index as usize];
            b.buffer = buffer;
            b.offset = offset as u64;
            b.stride = effective;
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
        if ty == glow::DOUBLE {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        attrib_pointer(gl, index, size, ty, false, true, stride, pointer as usize)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glVertexAttribDivisor(index: u32, divisor: u32) {
    // GL 4.6 §10.3.2: binding point `index` for the attribute, and that
    // binding's divisor.
    with_gl_dirty(DIRTY_VERTEX, |gl| {
        if index as usize >= MAX_ATTRIBS {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        match vao_mut(gl) {
            Ok(v) => {
                v.attribs[index as usize].binding = index;
                v.bindings[index as usize].divisor = divisor;
            }
            Err(e) => gl.st.set_error(e),
        }
    })
}

// ------------------------------------------- vertex attribute binding (GL 4.3)

#[no_mangle]
pub unsafe extern "C" fn glBindVertexBuffer(binding: u32, buffer: u32, offset: isize, stride: i32) {
    with_gl_dirty(DIRTY_VERTEX, |gl| {
        bind_vertex_buffer(gl, None, binding, buffer, offset, stride)
    })
}

/// glBindVertexBuffer / glVertexArrayVertexBuffer.
pub(super) fn bind_vertex_buffer(
    gl: &mut Gl,
    sel: Option<u32>,
    binding: u32,
    buffer: u32,
    offset: isize,
    stride: i32,
) {
    {
        if sel.is_some() {
            if let Err(e) = vao_sel_mut(gl, sel) {
                gl_err!(gl, e);
            }
        }
        if binding >= MAX_BINDINGS || offset < 0 || !(0..=MAX_STRIDE).contains(&stride) {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        // A name never generated (or deleted) is not a buffer to bind.
        if buffer != 0 && !gl.sh.buffers.contains_key(&buffer) {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        match vao_sel_mut(gl, sel) {
            Ok(v) => {
                v.bindings[binding as usize] = VertexBinding {
                    buffer,
                    offset: offset as u64,
                    stride: stride as u32,
                    divisor: v.bindings[binding as usize].divisor,
                }
            }
            Err(e) => gl.st.set_error(e),
        }
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn attrib_format(
    gl: &mut Gl,
    sel: Option<u32>,
    index: u32,
    size: i32,
    ty: u32,
    normalized: bool,
    integer: bool,
    relative: u32,
) {
    if sel.is_some() {
        if let Err(e) = vao_sel_mut(gl, sel) {
            gl_err!(gl, e);
        }
    }
    if index as usize >= MAX_ATTRIBS || relative > MAX_RELATIVE_OFFSET {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    // No VAO (core) is the first error GL 4.6 §10.3.1 lists.
    if let Err(e) = vao_sel_mut(gl, sel) {
        gl_err!(gl, e);
    }
    let size = match check_format(size, ty, normalized, integer) {
        Ok(s) => s,
        Err(e) => gl_err!(gl, e),
    };
    if let Ok(a) = attrib_sel_mut(gl, sel, index) {
        a.size = size;
        a.ty = ty;
        a.normalized = normalized;
        a.integer = integer;
        a.relative_offset = relative;
    }
}

#[no_mangle]
pub unsafe extern "C" fn glVertexAttribFormat(
    index: u32,
    size: i32,
    ty: u32,
    normalized: u8,
    relative: u32,
) {
    with_gl_dirty(DIRTY_VERTEX, |gl| {
        attrib_format(gl, None, index, size, ty, normalized != 0, false, relative)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glVertexAttribIFormat(index: u32, size: i32, ty: u32, relative: u32) {
    with_gl_dirty(DIRTY_VERTEX, |gl| {
        if ty == glow::DOUBLE {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        attrib_format(gl, None, index, size, ty, false, true, relative)
    })
}

/// GL 4.6 §10.3.1: 64-bit attributes read as `double`/`dvecN` without
/// conversion (the backend's 64-bit vertex formats; GLES has none).
#[no_mangle]
pub unsafe extern "C" fn glVertexAttribLFormat(index: u32, size: i32, ty: u32, relative: u32) {
    with_gl_dirty(DIRTY_VERTEX, |gl| {
        if ty != glow::DOUBLE {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        attrib_format(gl, None, index, size, ty, false, true, relative)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glVertexAttribLPointer(
    index: u32,
    size: i32,
    ty: u32,
    stride: i32,
    pointer: *const c_void,
) {
    with_gl_dirty(DIRTY_VERTEX, |gl| {
        if ty != glow::DOUBLE {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        attrib_pointer(gl, index, size, ty, false, true, stride, pointer as usize)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glVertexAttribBinding(index: u32, binding: u32) {
    with_gl_dirty(DIRTY_VERTEX, |gl| attrib_binding(gl, None, index, binding))
}

/// glVertexAttribBinding / glVertexArrayAttribBinding.
pub(super) fn attrib_binding(gl: &mut Gl, sel: Option<u32>, index: u32, binding: u32) {
    if sel.is_some() {
        if let Err(e) = vao_sel_mut(gl, sel) {
            gl_err!(gl, e);
        }
    }
    if index as usize >= MAX_ATTRIBS || binding >= MAX_BINDINGS {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    match attrib_sel_mut(gl, sel, index) {
        Ok(a) => a.binding = binding,
        Err(e) => gl.st.set_error(e),
    }
}

#[no_mangle]
pub unsafe extern "C" fn glVertexBindingDivisor(binding: u32, divisor: u32) {
    with_gl_dirty(DIRTY_VERTEX, |gl| {
        binding_divisor(gl, None, binding, divisor)
    })
}

/// glVertexBindingDivisor / glVertexArrayBindingDivisor.
pub(super) fn binding_divisor(gl: &mut Gl, sel: Option<u32>, binding: u32, divisor: u32) {
    if sel.is_some() {
        if let Err(e) = vao_sel_mut(gl, sel) {
            gl_err!(gl, e);
        }
    }
    if binding >= MAX_BINDINGS {
        gl_err!(gl, glow::INVALID_VALUE);
    }
    match vao_sel_mut(gl, sel) {
        Ok(v) => v.bindings[binding as usize].divisor = divisor,
        Err(e) => gl.st.set_error(e),
    }
}

/// `glGetIntegeri_v` of a binding point's state (GL_VERTEX_BINDING_*) on
/// the bound VAO; None after setting the GL error.
pub(super) fn binding_param(gl: &mut Gl, pname: u32, index: u32) -> Option<i64> {
    if index >= MAX_BINDINGS {
        gl.st.set_error(glow::INVALID_VALUE);
        return None;
    }
    let vao = gl.st.vao;
    let b = match gl.st.vaos.get(&vao) {
        Some(Some(v)) => v.bindings[index as usize],
        _ => VertexBinding::default(),
    };
    Some(match pname {
        glow::VERTEX_BINDING_BUFFER => i64::from(b.buffer),
        glow::VERTEX_BINDING_OFFSET => b.offset as i64,
        glow::VERTEX_BINDING_STRIDE => i64::from(b.stride),
        _ => i64::from(b.divisor),
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
    vertex_attrib_sel_param(gl, None, index, pname)
}

/// [`vertex_attrib_param`] of the VAO `sel` names (None: the bound one).
pub(super) fn vertex_attrib_sel_param(
    gl: &mut Gl,
    sel: Option<u32>,
    index: u32,
    pname: u32,
) -> Option<[u32; 4]> {
    if index as usize >= MAX_ATTRIBS {
        gl.st.set_error(glow::INVALID_VALUE);
        return None;
    }
    if pname == glow::CURRENT_VERTEX_ATTRIB {
        return Some(gl.st.current_attrib[index as usize]);
    }
    let vao = sel.unwrap_or(gl.st.vao);
    let (a, b) = match gl.st.vaos.get(&vao) {
        Some(Some(v)) => (
            v.attribs[index as usize],
            v.binding_of(&v.attribs[index as usize]),
        ),
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
        glow::VERTEX_ATTRIB_ARRAY_DIVISOR => b.divisor,
        glow::VERTEX_ATTRIB_ARRAY_BUFFER_BINDING => b.buffer,
        glow::VERTEX_ATTRIB_BINDING => a.binding,
        glow::VERTEX_ATTRIB_RELATIVE_OFFSET => a.relative_offset,
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
            Some(Some(v)) => {
                let a = &v.attribs[index as usize];
                Some(
                    v.binding_of(a)
                        .offset
                        .saturating_add(u64::from(a.relative_offset)) as usize,
                )
            }
            _ => None,
        }
    });
    if let Some(off) = r {
        // SAFETY: GL promises one writable pointer.
        unsafe { put(out, off as *mut c_void) };
    }
}
