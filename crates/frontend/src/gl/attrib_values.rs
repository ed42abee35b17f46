//! The generic vertex attributes' current values (GL 4.6 §10.2): every
//! `glVertexAttrib*`, `glVertexAttribI*` and `glVertexAttribP*` form of
//! GL 3.3 core, and the `glGetVertexAttrib{iv,fv,Iiv,Iuiv,dv}` getters.
//! Each form converts its components to the four-component value
//! `vertex.rs` stores (missing components are 0, 0, 1); no record is
//! emitted here (draws send the values they read).
//!
//! Conversions: plain integer forms give the integer as a float;
//! normalized (`N`) forms map unsigned c to c / (2^b − 1) and signed c to
//! max(c / (2^(b−1) − 1), −1) (GL 4.6 §2.3.5); packed forms unpack
//! 10/10/10/2-bit fields of `GL_INT_2_10_10_10_REV` or
//! `GL_UNSIGNED_INT_2_10_10_10_REV` the same way.

use super::dlist::with_gl_listed;
use super::vertex::{current_attrib, set_current_float, set_current_integer};
use super::{gl_err, put, slice};
use crate::context::{with_gl_dirty, DIRTY_VERTEX};

/// Components `v` padded to four with (0, 0, 1) where missing.
fn pad<T: Copy>(v: &[T], zero: T, one: T) -> [T; 4] {
    let mut out = [zero, zero, zero, one];
    for (o, c) in out.iter_mut().zip(v) {
        *o = *c;
    }
    out
}

fn float_value(index: u32, v: &[f32]) {
    let v = pad(v, 0.0, 1.0);
    with_gl_listed("glVertexAttrib", DIRTY_VERTEX, move |gl| {
        set_current_float(gl, index, v)
    })
}

fn integer_value(index: u32, v: &[u32]) {
    let v = pad(v, 0, 1);
    with_gl_listed("glVertexAttribI", DIRTY_VERTEX, move |gl| {
        set_current_integer(gl, index, v)
    })
}

/// Signed normalized: max(c / (2^(bits−1) − 1), −1).
fn snorm(c: i64, bits: u32) -> f32 {
    let max = ((1i64 << (bits - 1)) - 1) as f64;
    (c as f64 / max).max(-1.0) as f32
}

/// Unsigned normalized: c / (2^bits − 1).
fn unorm(c: u64, bits: u32) -> f32 {
    (c as f64 / ((1u64 << bits) - 1) as f64) as f32
}

// Scalar-argument forms.
macro_rules! float_args {
    ($($name:ident($($a:ident),+): $t:ty;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $name(index: u32, $($a: $t),+) {
            float_value(index, &[$($a as f32),+])
        }
    )*};
}
float_args! {
    glVertexAttrib1f(x): f32;
    glVertexAttrib2f(x, y): f32;
    glVertexAttrib3f(x, y, z): f32;
    glVertexAttrib4f(x, y, z, w): f32;
    glVertexAttrib1s(x): i16;
    glVertexAttrib2s(x, y): i16;
    glVertexAttrib3s(x, y, z): i16;
    glVertexAttrib4s(x, y, z, w): i16;
    glVertexAttrib1d(x): f64;
    glVertexAttrib2d(x, y): f64;
    glVertexAttrib3d(x, y, z): f64;
    glVertexAttrib4d(x, y, z, w): f64;
}

#[no_mangle]
pub unsafe extern "C" fn glVertexAttrib4Nub(index: u32, x: u8, y: u8, z: u8, w: u8) {
    float_value(index, &[x, y, z, w].map(|c| unorm(c.into(), 8)))
}

macro_rules! integer_args {
    ($($name:ident($($a:ident),+): $t:ty;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $name(index: u32, $($a: $t),+) {
            // Signed values keep their two's-complement bits.
            integer_value(index, &[$($a as u32),+])
        }
    )*};
}
integer_args! {
    glVertexAttribI1i(x): i32;
    glVertexAttribI2i(x, y): i32;
    glVertexAttribI3i(x, y, z): i32;
    glVertexAttribI4i(x, y, z, w): i32;
    glVertexAttribI1ui(x): u32;
    glVertexAttribI2ui(x, y): u32;
    glVertexAttribI3ui(x, y, z): u32;
    glVertexAttribI4ui(x, y, z, w): u32;
}

// Pointer forms: `n` components at `v` (a null pointer is ignored).
macro_rules! float_vectors {
    ($($name:ident: $t:ty, $n:literal, $conv:expr;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $name(index: u32, v: *const $t) {
            // SAFETY: GL promises the form's component count at `v`.
            let v = unsafe { slice(v, $n) };
            if v.len() == $n {
                let conv: fn($t) -> f32 = $conv;
                let mut f = [0.0f32; 4];
                for (o, &c) in f.iter_mut().zip(v) {
                    *o = conv(c);
                }
                float_value(index, &f[..$n])
            }
        }
    )*};
}
float_vectors! {
    glVertexAttrib1fv: f32, 1, |c| c;
    glVertexAttrib2fv: f32, 2, |c| c;
    glVertexAttrib3fv: f32, 3, |c| c;
    glVertexAttrib4fv: f32, 4, |c| c;
    glVertexAttrib1sv: i16, 1, |c| c.into();
    glVertexAttrib2sv: i16, 2, |c| c.into();
    glVertexAttrib3sv: i16, 3, |c| c.into();
    glVertexAttrib4sv: i16, 4, |c| c.into();
    glVertexAttrib1dv: f64, 1, |c| c as f32;
    glVertexAttrib2dv: f64, 2, |c| c as f32;
    glVertexAttrib3dv: f64, 3, |c| c as f32;
    glVertexAttrib4dv: f64, 4, |c| c as f32;
    glVertexAttrib4bv: i8, 4, |c| c.into();
    glVertexAttrib4iv: i32, 4, |c| c as f32;
    glVertexAttrib4ubv: u8, 4, |c| c.into();
    glVertexAttrib4uiv: u32, 4, |c| c as f32;
    glVertexAttrib4usv: u16, 4, |c| c.into();
    glVertexAttrib4Nbv: i8, 4, |c| snorm(c.into(), 8);
    glVertexAttrib4Nsv: i16, 4, |c| snorm(c.into(), 16);
    glVertexAttrib4Niv: i32, 4, |c| snorm(c.into(), 32);
    glVertexAttrib4Nubv: u8, 4, |c| unorm(c.into(), 8);
    glVertexAttrib4Nusv: u16, 4, |c| unorm(c.into(), 16);
    glVertexAttrib4Nuiv: u32, 4, |c| unorm(c.into(), 32);
}

macro_rules! integer_vectors {
    ($($name:ident: $t:ty, $n:literal;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $name(index: u32, v: *const $t) {
            // SAFETY: GL promises the form's component count at `v`.
            let v = unsafe { slice(v, $n) };
            if v.len() == $n {
                // Signed components are sign-extended to 32 bits first.
                let mut u = [0u32; 4];
                for (o, &c) in u.iter_mut().zip(v) {
                    *o = i64::from(c) as u32;
                }
                integer_value(index, &u[..$n])
            }
        }
    )*};
}
integer_vectors! {
    glVertexAttribI1iv: i32, 1;
    glVertexAttribI2iv: i32, 2;
    glVertexAttribI3iv: i32, 3;
    glVertexAttribI4iv: i32, 4;
    glVertexAttribI1uiv: u32, 1;
    glVertexAttribI2uiv: u32, 2;
    glVertexAttribI3uiv: u32, 3;
    glVertexAttribI4uiv: u32, 4;
    glVertexAttribI4bv: i8, 4;
    glVertexAttribI4sv: i16, 4;
    glVertexAttribI4ubv: u8, 4;
    glVertexAttribI4usv: u16, 4;
}

/// A packed 10/10/10/2 value's four components as floats, or the GL error
/// for `ty`.
fn unpack_2_10_10_10(ty: u32, normalized: bool, packed: u32) -> Result<[f32; 4], u32> {
    if ty != glow::INT_2_10_10_10_REV && ty != glow::UNSIGNED_INT_2_10_10_10_REV {
        return Err(glow::INVALID_ENUM);
    }
    let conv = |(shift, bits): (u32, u32)| -> f32 {
        let raw = (packed >> shift) & ((1 << bits) - 1);
        match (ty, normalized) {
            (glow::UNSIGNED_INT_2_10_10_10_REV, false) => raw as f32,
            (glow::UNSIGNED_INT_2_10_10_10_REV, true) => unorm(raw.into(), bits),
            // INT_2_10_10_10_REV: sign-extend the field.
            (_, norm) => {
                let signed = ((raw << (32 - bits)) as i32) >> (32 - bits);
                if norm {
                    snorm(signed.into(), bits)
                } else {
                    signed as f32
                }
            }
        }
    };
    Ok([(0, 10), (10, 10), (20, 10), (30, 2)].map(conv))
}

fn packed_value(index: u32, ty: u32, normalized: u8, packed: u32, n: usize) {
    with_gl_listed(
        "glVertexAttribP",
        DIRTY_VERTEX,
        move |gl| match unpack_2_10_10_10(ty, normalized != 0, packed) {
            Ok(v) => set_current_float(gl, index, pad(&v[..n], 0.0, 1.0)),
            Err(e) => gl_err!(gl, e),
        },
    )
}

macro_rules! packed_forms {
    ($($name:ident, $vname:ident: $n:literal;)*) => {$(
        #[no_mangle]
        pub unsafe extern "C" fn $name(index: u32, ty: u32, normalized: u8, value: u32) {
            packed_value(index, ty, normalized, value, $n)
        }
        #[no_mangle]
        pub unsafe extern "C" fn $vname(index: u32, ty: u32, normalized: u8, value: *const u32) {
            // SAFETY: GL promises one packed value at `value`.
            if let [v] = unsafe { slice(value, 1) } {
                packed_value(index, ty, normalized, *v, $n)
            }
        }
    )*};
}
packed_forms! {
    glVertexAttribP1ui, glVertexAttribP1uiv: 1;
    glVertexAttribP2ui, glVertexAttribP2uiv: 2;
    glVertexAttribP3ui, glVertexAttribP3uiv: 3;
    glVertexAttribP4ui, glVertexAttribP4uiv: 4;
}

/// `glGetVertexAttrib*`: the current value's four components through
/// `conv(word, current, integer)` (the word is float or integer bits, as
/// stored), other parameters as one value.
fn get_attrib<T>(index: u32, pname: u32, out: *mut T, conv: impl Fn(u32, bool, bool) -> T) {
    let r = with_gl_dirty(DIRTY_VERTEX, |gl| current_attrib(gl, index, pname));
    if let Some((v, integer)) = r {
        let current = pname == glow::CURRENT_VERTEX_ATTRIB;
        let n = if current { 4 } else { 1 };
        for (i, w) in v.iter().enumerate().take(n) {
            // SAFETY: GL promises room for the values of `pname`.
            unsafe { put(out.add(i), conv(*w, current, integer)) };
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetVertexAttribiv(index: u32, pname: u32, out: *mut i32) {
    get_attrib(index, pname, out, |w, current, integer| {
        if current && !integer {
            f32::from_bits(w) as i32
        } else {
            w as i32
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glGetVertexAttribfv(index: u32, pname: u32, out: *mut f32) {
    get_attrib(index, pname, out, |w, current, _| {
        if current {
            f32::from_bits(w)
        } else {
            w as f32
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glGetVertexAttribIiv(index: u32, pname: u32, out: *mut i32) {
    get_attrib(index, pname, out, |w, _, _| w as i32)
}

#[no_mangle]
pub unsafe extern "C" fn glGetVertexAttribIuiv(index: u32, pname: u32, out: *mut u32) {
    get_attrib(index, pname, out, |w, _, _| w)
}

#[no_mangle]
pub unsafe extern "C" fn glGetVertexAttribdv(index: u32, pname: u32, out: *mut f64) {
    get_attrib(index, pname, out, |w, current, integer| {
        match (current, integer) {
            (true, false) => f32::from_bits(w).into(),
            (true, true) => (w as i32).into(),
            (false, _) => w.into(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalized_conversions_follow_the_spec() {
        assert_eq!(snorm(127, 8), 1.0);
        assert_eq!(snorm(-128, 8), -1.0);
        assert_eq!(snorm(-127, 8), -1.0);
        assert_eq!(unorm(255, 8), 1.0);
        assert_eq!(unorm(0, 16), 0.0);
        assert_eq!(snorm(i32::MIN.into(), 32), -1.0);
        assert_eq!(unorm(u32::MAX.into(), 32), 1.0);
    }

    #[test]
    fn packed_fields_unpack_signed_and_unsigned() {
        // x = 511, y = -512 (0x200), z = 1, w = -1 (0b11).
        let packed = 511 | (0x200 << 10) | (1 << 20) | (0b11 << 30);
        let s = unpack_2_10_10_10(glow::INT_2_10_10_10_REV, false, packed).unwrap();
        assert_eq!(s, [511.0, -512.0, 1.0, -1.0]);
        let sn = unpack_2_10_10_10(glow::INT_2_10_10_10_REV, true, packed).unwrap();
        assert_eq!(sn, [1.0, -1.0, 1.0 / 511.0, -1.0]);
        let u = unpack_2_10_10_10(glow::UNSIGNED_INT_2_10_10_10_REV, false, packed).unwrap();
        assert_eq!(u, [511.0, 512.0, 1.0, 3.0]);
        let un = unpack_2_10_10_10(glow::UNSIGNED_INT_2_10_10_10_REV, true, packed).unwrap();
        assert_eq!(un[..2], [511.0 / 1023.0, 512.0 / 1023.0]);
        assert_eq!(
            unpack_2_10_10_10(glow::FLOAT, false, packed),
            Err(glow::INVALID_ENUM)
        );
    }
}
