//! Point parameters and point sprites (GL 4.6 §14.4; compatibility
//! profile §14.4 and §16.1 for `GL_POINT_SPRITE` / `GL_COORD_REPLACE`).
//!
//! GLES and Vulkan take a point's size only from `gl_PointSize` and have
//! neither a sprite-coordinate origin nor coordinate replacement, so the
//! pre-pass (`shader::prepass`) gives programs a hidden `vec4 mgl_Points`
//! uniform, written before draws like the matrix built-ins
//! (`matrix::Builtin::Points`, refreshed through `MatrixState::serial`):
//! - x: `glPointSize`, y: 1 when `GL_PROGRAM_POINT_SIZE` is on. In a
//!   program whose fragment shader reads `gl_PointCoord` the last vertex
//!   stage ends with `gl_PointSize = y != 0 ? gl_PointSize : x` (other
//!   programs do not pay for the uniform block: `prepass::LinkView`).
//! - z: the units whose `gl_TexCoord[i]` a legacy fragment shader reads
//!   as `vec4(gl_PointCoord, 0, 1)` (bit i: `GL_COORD_REPLACE` of unit i,
//!   while `GL_POINT_SPRITE` is on and the draw's primitive is points).
//! - w: 1 for `GL_POINT_SPRITE_COORD_ORIGIN` = `GL_LOWER_LEFT`
//!   (`gl_PointCoord.t` flipped).
//!
//! `mgl_TwoSide` carries GL_VERTEX_PROGRAM_TWO_SIDE the same way: a legacy
//! fragment shader's `gl_Color` / `gl_SecondaryColor` read the back colours
//! on back faces while it is on.
//!
//! Stored, not applied (logged once): the compatibility distance
//! attenuation, size clamps and fade threshold.

use super::dlist::with_gl_listed;
use super::matrix::next_serial;
use super::{gl_err, log_once};
use crate::context::{Gl, DIRTY_UNIFORMS};

pub const POINT_SPRITE: u32 = 0x8861;
pub const VERTEX_PROGRAM_TWO_SIDE: u32 = 0x8643;
pub const COORD_REPLACE: u32 = 0x8862;
pub const POINT_SIZE_MIN: u32 = 0x8126;
pub const POINT_SIZE_MAX: u32 = 0x8127;
pub const POINT_FADE_THRESHOLD_SIZE: u32 = 0x8128;
pub const POINT_DISTANCE_ATTENUATION: u32 = 0x8129;
pub const POINT_SPRITE_COORD_ORIGIN: u32 = 0x8CA0;
pub const LOWER_LEFT: u32 = 0x8CA1;
pub const UPPER_LEFT: u32 = 0x8CA2;

/// Point state beyond `glPointSize` and `GL_PROGRAM_POINT_SIZE` (which
/// live with the other rasterisation state).
#[derive(Debug, Clone, PartialEq)]
pub struct PointParams {
    /// `GL_POINT_SPRITE` (compatibility).
    pub sprite: bool,
    /// `GL_COORD_REPLACE` per texture unit (compatibility).
    pub coord_replace: u8,
    pub origin_lower_left: bool,
    pub fade_threshold: f32,
    pub size_min: f32,
    pub size_max: f32,
    pub attenuation: [f32; 3],
    /// GL_VERTEX_PROGRAM_TWO_SIDE (compatibility; `mgl_TwoSide`).
    pub two_side: bool,
    /// Whether the last draw's primitive was points (only tracked while a
    /// unit replaces its coordinates).
    pub drawing_points: bool,
    /// The value of `mgl_Points` (module note).
    pub uniform: [f32; 4],
    /// The value of `mgl_PrimitiveIdScale` (`set_primitive_id_scale`).
    pub primitive_id_scale: f32,
}

impl Default for PointParams {
    fn default() -> Self {
        PointParams {
            sprite: false,
            coord_replace: 0,
            origin_lower_left: false,
            fade_threshold: 1.0,
            size_min: 0.0,
            size_max: 1.0,
            attenuation: [1.0, 0.0, 0.0],
            two_side: false,
            drawing_points: false,
            uniform: [1.0, 0.0, 0.0, 0.0],
            primitive_id_scale: 1.0,
        }
    }
}

/// Recompute `mgl_Points` from the state; a change marks the built-in
/// uniforms stale.
pub fn refresh(gl: &mut Gl) {
    let st = &mut gl.st;
    let p = &st.matrices.points;
    let replace = if p.sprite && p.drawing_points {
        p.coord_replace
    } else {
        0
    };
    let v = [
        st.point_size,
        f32::from(u8::from(st.program_point_size)),
        f32::from(replace),
        f32::from(u8::from(p.origin_lower_left)),
    ];
    if st.matrices.points.uniform != v {
        st.matrices.points.uniform = v;
        st.matrices.serial = next_serial();
        st.dirty |= DIRTY_UNIFORMS;
    }
}

/// Before a draw of `mode`: coordinate replacement applies to points
/// only. One test when no unit replaces its coordinates.
pub fn note_draw_mode(gl: &mut Gl, mode: u32) {
    let p = &gl.st.matrices.points;
    if !p.sprite || p.coord_replace == 0 {
        return;
    }
    let points = mode == glow::POINTS;
    if points != p.drawing_points {
        gl.st.matrices.points.drawing_points = points;
        refresh(gl);
    }
}

/// glEnable/glDisable(GL_POINT_SPRITE) in a compatibility context.
pub fn set_sprite(gl: &mut Gl, on: bool) {
    gl.st.matrices.points.sprite = on;
    refresh(gl);
}

/// glEnable/glDisable(GL_VERTEX_PROGRAM_TWO_SIDE) in a compatibility
/// context.
pub fn set_two_side(gl: &mut Gl, on: bool) {
    if gl.st.matrices.points.two_side != on {
        gl.st.matrices.points.two_side = on;
        gl.st.matrices.serial = next_serial();
        gl.st.dirty |= DIRTY_UNIFORMS;
    }
}

/// A legacy primitive type drawn as triangles (`immediate::legacy_mode_draw`)
/// numbers its primitives differently: a fragment shader's `gl_PrimitiveID`
/// is scaled by `scale` (0.5: two triangles per quad, 0: a polygon) until
/// the draw is done (1 again). Only a bound program that reads it sees a
/// change (the uniform is refreshed with the matrix built-ins).
pub fn set_primitive_id_scale(gl: &mut Gl, scale: f32) {
    if gl.st.matrices.points.primitive_id_scale == scale {
        return;
    }
    gl.st.matrices.points.primitive_id_scale = scale;
    let reads = gl
        .sh
        .shader_objects
        .get(&gl.st.program)
        .and_then(|o| match o {
            crate::context::ShaderOrProgram::Program(p) => p.linked.as_ref(),
            _ => None,
        })
        .is_some_and(|l| {
            l.matrix_uniforms
                .iter()
                .any(|u| u.which == super::matrix::Builtin::PrimitiveIdScale)
        });
    if reads {
        gl.st.matrices.serial = next_serial();
        gl.st.dirty |= DIRTY_UNIFORMS;
    }
}

/// glTexEnv(GL_POINT_SPRITE, GL_COORD_REPLACE, v) for the active unit.
pub fn set_coord_replace(gl: &mut Gl, unit: usize, on: bool) {
    let bit = 1u8.checked_shl(unit as u32).unwrap_or(0);
    let p = &mut gl.st.matrices.points;
    if on {
        p.coord_replace |= bit;
    } else {
        p.coord_replace &= !bit;
    }
    refresh(gl);
}

/// glGetTexEnv(GL_POINT_SPRITE, GL_COORD_REPLACE) of `unit`.
pub fn coord_replace(gl: &Gl, unit: usize) -> bool {
    gl.st.matrices.points.coord_replace & 1u8.checked_shl(unit as u32).unwrap_or(0) != 0
}

/// The glGet answer of a point parameter, None for other names.
pub fn get(gl: &Gl, pname: u32) -> Option<Vec<f64>> {
    let p = &gl.st.matrices.points;
    let compat = !gl.st.is_core();
    Some(match pname {
        POINT_FADE_THRESHOLD_SIZE => vec![f64::from(p.fade_threshold)],
        POINT_SPRITE_COORD_ORIGIN => vec![f64::from(if p.origin_lower_left {
            LOWER_LEFT
        } else {
            UPPER_LEFT
        })],
        POINT_SIZE_MIN if compat => vec![f64::from(p.size_min)],
        POINT_SIZE_MAX if compat => vec![f64::from(p.size_max)],
        POINT_DISTANCE_ATTENUATION if compat => {
            p.attenuation.iter().map(|v| f64::from(*v)).collect()
        }
        POINT_SPRITE if compat => vec![f64::from(u8::from(p.sprite))],
        _ => return None,
    })
}

/// glPointParameter*: `v` holds what the caller passed (three values for
/// GL_POINT_DISTANCE_ATTENUATION through the vector forms).
fn point_parameter(gl: &mut Gl, pname: u32, v: &[f32]) {
    let Some(&first) = v.first() else {
        gl_err!(gl, glow::INVALID_VALUE);
    };
    let compat = !gl.st.is_core();
    match pname {
        POINT_FADE_THRESHOLD_SIZE => {
            if first < 0.0 || first.is_nan() {
                gl_err!(gl, glow::INVALID_VALUE);
            }
            gl.st.matrices.points.fade_threshold = first;
        }
        POINT_SPRITE_COORD_ORIGIN => {
            let origin = first as u32;
            if origin != LOWER_LEFT && origin != UPPER_LEFT {
                gl_err!(gl, glow::INVALID_ENUM);
            }
            gl.st.matrices.points.origin_lower_left = origin == LOWER_LEFT;
            refresh(gl);
        }
        POINT_SIZE_MIN | POINT_SIZE_MAX if compat => {
            if first < 0.0 || first.is_nan() {
                gl_err!(gl, glow::INVALID_VALUE);
            }
            let p = &mut gl.st.matrices.points;
            if pname == POINT_SIZE_MIN {
                p.size_min = first;
            } else {
                p.size_max = first;
            }
            log_once("GL_POINT_SIZE_MIN/MAX", || {
                "GL_POINT_SIZE_MIN/MAX are stored but not applied".to_owned()
            });
        }
        POINT_DISTANCE_ATTENUATION if compat && v.len() == 3 => {
            gl.st.matrices.points.attenuation = [v[0], v[1], v[2]];
            log_once("GL_POINT_DISTANCE_ATTENUATION", || {
                "GL_POINT_DISTANCE_ATTENUATION is stored but not applied".to_owned()
            });
        }
        _ => gl_err!(gl, glow::INVALID_ENUM),
    }
}

/// Values a vector form reads for `pname`.
fn values(pname: u32) -> usize {
    if pname == POINT_DISTANCE_ATTENUATION {
        3
    } else {
        1
    }
}

#[no_mangle]
pub unsafe extern "C" fn glPointParameterf(pname: u32, param: f32) {
    with_gl_listed("glPointParameterf", 0, move |gl| {
        point_parameter(gl, pname, &[param])
    })
}

#[no_mangle]
pub unsafe extern "C" fn glPointParameteri(pname: u32, param: i32) {
    with_gl_listed("glPointParameteri", 0, move |gl| {
        point_parameter(gl, pname, &[param as f32])
    })
}

#[no_mangle]
pub unsafe extern "C" fn glPointParameterfv(pname: u32, params: *const f32) {
    // SAFETY: GL promises one value (three for the attenuation).
    let v = unsafe { super::slice(params, values(pname) as i32) }.to_vec();
    with_gl_listed("glPointParameterfv", 0, move |gl| {
        if v.is_empty() {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        point_parameter(gl, pname, &v)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glPointParameteriv(pname: u32, params: *const i32) {
    // SAFETY: GL promises one value (three for the attenuation).
    let p = unsafe { super::slice(params, values(pname) as i32) };
    let v: Vec<f32> = p.iter().map(|x| *x as f32).collect();
    with_gl_listed("glPointParameteriv", 0, move |gl| {
        if v.is_empty() {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        point_parameter(gl, pname, &v)
    })
}
