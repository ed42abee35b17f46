//! The current raster position of compatibility contexts (GL 4.6
//! compatibility profile §14.7): `glRasterPos*` transforms a point by the
//! modelview and projection matrices, clips it (against the view volume
//! and the enabled user clip planes) and maps it through the viewport and
//! depth range; `glWindowPos*` sets it in window coordinates. The position
//! carries the current colour, secondary colour and texture coordinates
//! (through the texture matrices) as they were at the call, which is what
//! `glBitmap`, `glDrawPixels` and `glCopyPixels` (`gl::pixel_rect`) draw
//! with. Also `glPixelZoom` and the glGet answers of all of it.
//!
//! Owns: `RasterState` (position, validity, distance, colours, texture
//! coordinates, zoom) and the hidden objects `pixel_rect` draws with.
//! Never touches: the core profile (the entry points answer
//! GL_INVALID_OPERATION there, as the registry stubs did; the glGet names
//! stay GL_INVALID_ENUM). No lighting (not emulated: the raster colour is
//! the current colour), no feedback or selection, no colour index mode.

use super::dlist::with_gl_listed;
use super::log_once;
use super::matrix::{Mat4, CLIP_PLANES};
use crate::context::Gl;
use crate::shader::{FF_COLOR, FF_SECONDARY_COLOR, FF_TEXCOORD0};

pub const CURRENT_RASTER_COLOR: u32 = 0x0B04;
pub const CURRENT_RASTER_INDEX: u32 = 0x0B05;
pub const CURRENT_RASTER_TEXTURE_COORDS: u32 = 0x0B06;
pub const CURRENT_RASTER_POSITION: u32 = 0x0B07;
pub const CURRENT_RASTER_POSITION_VALID: u32 = 0x0B08;
pub const CURRENT_RASTER_DISTANCE: u32 = 0x0B09;
pub const CURRENT_RASTER_SECONDARY_COLOR: u32 = 0x845F;
pub const ZOOM_X: u32 = 0x0D16;
pub const ZOOM_Y: u32 = 0x0D17;

/// Texture-coordinate sets the raster position carries.
const TEXCOORDS: usize = super::matrix::TEXTURE_COORDS;

/// The raster position and the pixel-rectangle state of one context.
#[derive(Debug, Clone)]
pub struct RasterState {
    /// Window x, y, z and clip w.
    pub pos: [f32; 4],
    pub valid: bool,
    pub distance: f32,
    pub color: [f32; 4],
    pub secondary: [f32; 4],
    pub texcoords: [[f32; 4]; TEXCOORDS],
    /// glPixelZoom.
    pub zoom: [f32; 2],
    /// The hidden program pixel rectangles are drawn with
    /// (`pixel_rect`): None until first needed, Some(None) when it failed
    /// to link (logged).
    pub(super) program: Option<Option<u32>>,
    /// The hidden scratch texture their texels are uploaded to (0: none
    /// yet).
    pub(super) texture: u32,
}

impl Default for RasterState {
    fn default() -> Self {
        RasterState {
            pos: [0.0, 0.0, 0.0, 1.0],
            valid: true,
            distance: 0.0,
            color: [1.0; 4],
            secondary: [0.0, 0.0, 0.0, 1.0],
            texcoords: [[0.0, 0.0, 0.0, 1.0]; TEXCOORDS],
            zoom: [1.0, 1.0],
            program: None,
            texture: 0,
        }
    }
}

/// The compatibility-only, outside-glBegin/glEnd rule of every entry point
/// here and in `pixel_rect`: false (an INVALID_OPERATION raised) when the
/// call may not run.
pub(super) fn legacy_call(gl: &mut Gl, name: &'static str) -> bool {
    if gl.st.is_core() {
        log_once(name, || {
            format!("{name} is not available in a core profile context: GL_INVALID_OPERATION")
        });
        gl.st.set_error(glow::INVALID_OPERATION);
        return false;
    }
    if gl.st.ff.immediate.is_some() {
        gl.st.set_error(glow::INVALID_OPERATION);
        return false;
    }
    true
}

/// `m * v` (column-major).
fn xform(m: &Mat4, v: [f32; 4]) -> [f32; 4] {
    std::array::from_fn(|i| (0..4).map(|k| m[k * 4 + i] * v[k]).sum())
}

fn clamp01(c: [f32; 4]) -> [f32; 4] {
    c.map(|x| if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) })
}

/// The colours of the raster position: the current ones (no lighting),
/// clamped as vertex colours are.
fn take_colors(gl: &mut Gl) {
    let cur = gl.st.ff_current;
    gl.st.raster.color = clamp01(cur[FF_COLOR]);
    gl.st.raster.secondary = clamp01(cur[FF_SECONDARY_COLOR]);
}

/// glRasterPos: `obj` in object coordinates.
fn raster_pos(gl: &mut Gl, obj: [f32; 4]) {
    if !legacy_call(gl, "glRasterPos") {
        return;
    }
    let m = &gl.st.matrices;
    let eye = xform(m.modelview(), obj);
    let clip = xform(m.projection(), eye);
    let w = clip[3];
    let inside = |c: f32| c >= -w && c <= w;
    let mut valid = inside(clip[0]) && inside(clip[1]);
    if !gl.st.depth_clamp {
        valid &= inside(clip[2]);
    }
    for p in 0..CLIP_PLANES {
        if m.clip_enabled & (1 << p) != 0 {
            let plane = m.clip_planes[p];
            let d: f32 = (0..4).map(|k| plane[k] * eye[k]).sum();
            valid &= d >= 0.0;
        }
    }
    // NaN coordinates fail the comparisons above; w = 0 only passes with a
    // point at the origin, which has no window position.
    if !valid || w == 0.0 || !w.is_finite() {
        gl.st.raster.valid = false;
        return;
    }
    let texcoords: [[f32; 4]; TEXCOORDS] =
        std::array::from_fn(|u| xform(m.texture(u), gl.st.ff_current[FF_TEXCOORD0 + u]));
    let ndc = [clip[0] / w, clip[1] / w, clip[2] / w];
    let vp = gl.st.viewport.map(|v| v as f32);
    let [n, f] = gl.st.depth_range;
    let mut z = n + (f - n) * (ndc[2] + 1.0) * 0.5;
    if gl.st.depth_clamp {
        z = z.clamp(n.min(f), n.max(f));
    }
    let r = &mut gl.st.raster;
    r.pos = [
        vp[0] + (ndc[0] + 1.0) * vp[2] * 0.5,
        vp[1] + (ndc[1] + 1.0) * vp[3] * 0.5,
        z,
        w,
    ];
    r.valid = true;
    r.distance = (eye[0] * eye[0] + eye[1] * eye[1] + eye[2] * eye[2]).sqrt();
    r.texcoords = texcoords;
    take_colors(gl);
}

/// glWindowPos: window x and y, z in [0, 1] mapped through the depth range.
fn window_pos(gl: &mut Gl, x: f32, y: f32, z: f32) {
    if !legacy_call(gl, "glWindowPos") {
        return;
    }
    let [n, f] = gl.st.depth_range;
    let z = if z.is_nan() { 0.0 } else { z.clamp(0.0, 1.0) };
    let texcoords: [[f32; 4]; TEXCOORDS] =
        std::array::from_fn(|u| gl.st.ff_current[FF_TEXCOORD0 + u]);
    let r = &mut gl.st.raster;
    r.pos = [x, y, n + z * (f - n), 1.0];
    r.valid = true;
    // GL_FOG_COORD_SRC is GL_FRAGMENT_DEPTH (fog is not emulated): 0.
    r.distance = 0.0;
    r.texcoords = texcoords;
    take_colors(gl);
}

macro_rules! raster_pos_fn {
    ($name:ident($($arg:ident: $t:ty),*) => $pos:expr) => {
        #[no_mangle]
        pub unsafe extern "C" fn $name($($arg: $t),*) {
            with_gl_listed(stringify!($name), 0, move |gl| raster_pos(gl, $pos))
        }
    };
}

macro_rules! raster_pos_v_fn {
    ($name:ident, $t:ty, $n:expr) => {
        #[no_mangle]
        pub unsafe extern "C" fn $name(v: *const $t) {
            let null = v.is_null();
            let mut pos = [0.0f32, 0.0, 0.0, 1.0];
            if !null {
                // SAFETY: GL promises `$n` components at `v` (not null).
                let c = unsafe { std::slice::from_raw_parts(v, $n) };
                for (d, s) in pos.iter_mut().zip(c) {
                    *d = *s as f32;
                }
            }
            with_gl_listed(stringify!($name), 0, move |gl| {
                if null {
                    // Nothing to read: the call's other rules still apply.
                    let _ = legacy_call(gl, "glRasterPos");
                    return;
                }
                raster_pos(gl, pos)
            })
        }
    };
}

macro_rules! window_pos_fn {
    ($name:ident($($arg:ident: $t:ty),*) => $pos:expr) => {
        #[no_mangle]
        pub unsafe extern "C" fn $name($($arg: $t),*) {
            with_gl_listed(stringify!($name), 0, move |gl| {
                let [x, y, z]: [f32; 3] = $pos;
                window_pos(gl, x, y, z)
            })
        }
    };
}

macro_rules! window_pos_v_fn {
    ($name:ident, $t:ty, $n:expr) => {
        #[no_mangle]
        pub unsafe extern "C" fn $name(v: *const $t) {
            let null = v.is_null();
            let mut pos = [0.0f32; 3];
            if !null {
                // SAFETY: GL promises `$n` components at `v` (not null).
                let c = unsafe { std::slice::from_raw_parts(v, $n) };
                for (d, s) in pos.iter_mut().zip(c) {
                    *d = *s as f32;
                }
            }
            with_gl_listed(stringify!($name), 0, move |gl| {
                if null {
                    let _ = legacy_call(gl, "glWindowPos");
                    return;
                }
                window_pos(gl, pos[0], pos[1], pos[2])
            })
        }
    };
}

raster_pos_fn!(glRasterPos2f(x: f32, y: f32) => [x, y, 0.0, 1.0]);
raster_pos_fn!(glRasterPos2d(x: f64, y: f64) => [x as f32, y as f32, 0.0, 1.0]);
raster_pos_fn!(glRasterPos2i(x: i32, y: i32) => [x as f32, y as f32, 0.0, 1.0]);
raster_pos_fn!(glRasterPos2s(x: i16, y: i16) => [x.into(), y.into(), 0.0, 1.0]);
raster_pos_fn!(glRasterPos3f(x: f32, y: f32, z: f32) => [x, y, z, 1.0]);
raster_pos_fn!(glRasterPos3d(x: f64, y: f64, z: f64) => [x as f32, y as f32, z as f32, 1.0]);
raster_pos_fn!(glRasterPos3i(x: i32, y: i32, z: i32) => [x as f32, y as f32, z as f32, 1.0]);
raster_pos_fn!(glRasterPos3s(x: i16, y: i16, z: i16) => [x.into(), y.into(), z.into(), 1.0]);
raster_pos_fn!(glRasterPos4f(x: f32, y: f32, z: f32, w: f32) => [x, y, z, w]);
raster_pos_fn!(glRasterPos4d(x: f64, y: f64, z: f64, w: f64) =>
    [x as f32, y as f32, z as f32, w as f32]);
raster_pos_fn!(glRasterPos4i(x: i32, y: i32, z: i32, w: i32) =>
    [x as f32, y as f32, z as f32, w as f32]);
raster_pos_fn!(glRasterPos4s(x: i16, y: i16, z: i16, w: i16) =>
    [x.into(), y.into(), z.into(), w.into()]);
raster_pos_v_fn!(glRasterPos2fv, f32, 2);
raster_pos_v_fn!(glRasterPos2dv, f64, 2);
raster_pos_v_fn!(glRasterPos2iv, i32, 2);
raster_pos_v_fn!(glRasterPos2sv, i16, 2);
raster_pos_v_fn!(glRasterPos3fv, f32, 3);
raster_pos_v_fn!(glRasterPos3dv, f64, 3);
raster_pos_v_fn!(glRasterPos3iv, i32, 3);
raster_pos_v_fn!(glRasterPos3sv, i16, 3);
raster_pos_v_fn!(glRasterPos4fv, f32, 4);
raster_pos_v_fn!(glRasterPos4dv, f64, 4);
raster_pos_v_fn!(glRasterPos4iv, i32, 4);
raster_pos_v_fn!(glRasterPos4sv, i16, 4);

window_pos_fn!(glWindowPos2f(x: f32, y: f32) => [x, y, 0.0]);
window_pos_fn!(glWindowPos2d(x: f64, y: f64) => [x as f32, y as f32, 0.0]);
window_pos_fn!(glWindowPos2i(x: i32, y: i32) => [x as f32, y as f32, 0.0]);
window_pos_fn!(glWindowPos2s(x: i16, y: i16) => [x.into(), y.into(), 0.0]);
window_pos_fn!(glWindowPos3f(x: f32, y: f32, z: f32) => [x, y, z]);
window_pos_fn!(glWindowPos3d(x: f64, y: f64, z: f64) => [x as f32, y as f32, z as f32]);
window_pos_fn!(glWindowPos3i(x: i32, y: i32, z: i32) => [x as f32, y as f32, z as f32]);
window_pos_fn!(glWindowPos3s(x: i16, y: i16, z: i16) => [x.into(), y.into(), z.into()]);
window_pos_v_fn!(glWindowPos2fv, f32, 2);
window_pos_v_fn!(glWindowPos2dv, f64, 2);
window_pos_v_fn!(glWindowPos2iv, i32, 2);
window_pos_v_fn!(glWindowPos2sv, i16, 2);
window_pos_v_fn!(glWindowPos3fv, f32, 3);
window_pos_v_fn!(glWindowPos3dv, f64, 3);
window_pos_v_fn!(glWindowPos3iv, i32, 3);
window_pos_v_fn!(glWindowPos3sv, i16, 3);

#[no_mangle]
pub unsafe extern "C" fn glPixelZoom(xfactor: f32, yfactor: f32) {
    with_gl_listed("glPixelZoom", 0, move |gl| {
        if !legacy_call(gl, "glPixelZoom") {
            return;
        }
        gl.st.raster.zoom = [xfactor, yfactor];
    })
}

/// glGet answers of the raster state (compatibility contexts; None: not
/// one of its names).
pub fn get(gl: &Gl, pname: u32) -> Option<Vec<f64>> {
    let r = &gl.st.raster;
    let v = |a: &[f32]| a.iter().map(|&x| f64::from(x)).collect();
    Some(match pname {
        CURRENT_RASTER_POSITION => v(&r.pos),
        CURRENT_RASTER_POSITION_VALID => vec![f64::from(u8::from(r.valid))],
        CURRENT_RASTER_DISTANCE => vec![f64::from(r.distance)],
        CURRENT_RASTER_COLOR => v(&r.color),
        CURRENT_RASTER_SECONDARY_COLOR => v(&r.secondary),
        CURRENT_RASTER_INDEX => vec![1.0],
        CURRENT_RASTER_TEXTURE_COORDS => {
            let unit = (gl.st.active_texture as usize).min(TEXCOORDS - 1);
            v(&r.texcoords[unit])
        }
        ZOOM_X => vec![f64::from(r.zoom[0])],
        ZOOM_Y => vec![f64::from(r.zoom[1])],
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xform_is_column_major() {
        let mut m = super::super::matrix::IDENTITY;
        // Translate by (1, 2, 3): the fourth column.
        m[12] = 1.0;
        m[13] = 2.0;
        m[14] = 3.0;
        assert_eq!(xform(&m, [1.0, 1.0, 1.0, 1.0]), [2.0, 3.0, 4.0, 1.0]);
    }

    #[test]
    fn colours_clamp_and_drop_nan() {
        assert_eq!(clamp01([-1.0, 0.5, 2.0, f32::NAN]), [0.0, 0.5, 1.0, 0.0]);
    }
}
