//! Fixed-function matrix state of compatibility contexts (GL 4.6
//! compatibility profile §12.1.1): the modelview, projection and
//! per-unit texture matrix stacks, their entry points and glGet answers,
//! and the values legacy shaders read through `gl_ModelViewMatrix` & co.
//!
//! Matrices are column-major `f32` as GL stores them. A legacy shader's
//! matrix built-ins are default-block uniforms (`shader::prepass` renames
//! `gl_X` to `mgl_X`); the linked program records where each lives
//! (`LinkedState::matrix_uniforms`) and `Gl::update_matrices` writes the
//! current values before a draw when the state changed since that
//! program last received them (`MatrixState::serial`, unique across
//! contexts, so a program shared between contexts is refreshed too).
//!
//! Core contexts keep every entry point here an INVALID_OPERATION (the
//! matrices stay identity, which is what a legacy shader reads there) and
//! the glGet names an INVALID_ENUM. No colour matrix (GL_ARB_imaging is not
//! offered): `glMatrixMode(GL_COLOR)` is an INVALID_ENUM.

use super::dlist::with_gl_listed;
use std::sync::atomic::{AtomicU64, Ordering};

use super::{gl_err, slice};
use crate::context::{with_gl, Gl, DIRTY_UNIFORMS};

pub type Mat4 = [f32; 16];

pub const IDENTITY: Mat4 = [
    1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
];

// Compatibility-profile enums (glow has only core and ES ones).
pub const MODELVIEW: u32 = 0x1700;
pub const PROJECTION: u32 = 0x1701;
pub const TEXTURE: u32 = 0x1702;
pub const MATRIX_MODE: u32 = 0x0BA0;
pub const MODELVIEW_STACK_DEPTH: u32 = 0x0BA3;
pub const PROJECTION_STACK_DEPTH: u32 = 0x0BA4;
pub const TEXTURE_STACK_DEPTH: u32 = 0x0BA5;
pub const MODELVIEW_MATRIX: u32 = 0x0BA6;
pub const PROJECTION_MATRIX: u32 = 0x0BA7;
pub const TEXTURE_MATRIX: u32 = 0x0BA8;
pub const MAX_MODELVIEW_STACK_DEPTH: u32 = 0x0D36;
pub const MAX_PROJECTION_STACK_DEPTH: u32 = 0x0D38;
pub const MAX_TEXTURE_STACK_DEPTH: u32 = 0x0D39;
pub const TRANSPOSE_MODELVIEW_MATRIX: u32 = 0x84E3;
pub const TRANSPOSE_PROJECTION_MATRIX: u32 = 0x84E4;
pub const TRANSPOSE_TEXTURE_MATRIX: u32 = 0x84E5;
pub const MAX_TEXTURE_COORDS: u32 = 0x8871;

/// Stack depths (Mesa's values; GL asks for ≥ 32 / ≥ 2 / ≥ 2).
pub const MODELVIEW_DEPTH: usize = 32;
pub const PROJECTION_DEPTH: usize = 32;
pub const TEXTURE_DEPTH: usize = 10;
/// Texture-coordinate sets with a texture matrix (`gl_TextureMatrix[8]`,
/// GL_MAX_TEXTURE_COORDS).
pub const TEXTURE_COORDS: usize = 8;

/// User clip planes (GL_MAX_CLIP_PLANES = GL_MAX_CLIP_DISTANCES).
pub const CLIP_PLANES: usize = 8;
pub const CLIP_PLANE0: u32 = 0x3000;

/// A unique value per matrix-state change, across contexts.
static NEXT_SERIAL: AtomicU64 = AtomicU64::new(1);

pub(crate) fn next_serial() -> u64 {
    NEXT_SERIAL.fetch_add(1, Ordering::Relaxed)
}

/// The matrix stacks of one context. Each stack holds at least one matrix
/// (its top is the current matrix).
#[derive(Debug, Clone)]
pub struct MatrixState {
    pub mode: u32,
    pub modelview: Vec<Mat4>,
    pub projection: Vec<Mat4>,
    pub texture: [Vec<Mat4>; TEXTURE_COORDS],
    /// User clip planes in eye space (glClipPlane).
    pub clip_planes: [[f32; 4]; CLIP_PLANES],
    /// GL_CLIP_PLANEi (= GL_CLIP_DISTANCEi) enables, kept in step by
    /// glEnable/glDisable.
    pub clip_enabled: u32,
    /// Point parameters and the `mgl_Points` value (`gl::points`).
    pub points: super::points::PointParams,
    /// Changes with every matrix, clip plane or clip enable change and
    /// every change of `points.uniform` (see the module note).
    pub serial: u64,
}

impl Default for MatrixState {
    fn default() -> Self {
        MatrixState {
            mode: MODELVIEW,
            modelview: vec![IDENTITY],
            projection: vec![IDENTITY],
            texture: std::array::from_fn(|_| vec![IDENTITY]),
            clip_planes: [[0.0; 4]; CLIP_PLANES],
            clip_enabled: 0,
            points: Default::default(),
            serial: next_serial(),
        }
    }
}

impl MatrixState {
    pub fn modelview(&self) -> &Mat4 {
        self.modelview.last().unwrap_or(&IDENTITY)
    }
    pub fn projection(&self) -> &Mat4 {
        self.projection.last().unwrap_or(&IDENTITY)
    }
    pub fn texture(&self, unit: usize) -> &Mat4 {
        self.texture
            .get(unit)
            .and_then(|s| s.last())
            .unwrap_or(&IDENTITY)
    }
}

// ---------------------------------------------------------------- math

/// `a * b` (column-major).
pub fn mul(a: &Mat4, b: &Mat4) -> Mat4 {
    let mut r = [0.0f32; 16];
    for c in 0..4 {
        for i in 0..4 {
            r[c * 4 + i] = (0..4).map(|k| a[k * 4 + i] * b[c * 4 + k]).sum();
        }
    }
    r
}

pub fn transpose(m: &Mat4) -> Mat4 {
    std::array::from_fn(|k| m[(k % 4) * 4 + k / 4])
}

/// The inverse (cofactors in f64); a singular matrix gives the identity,
/// as Mesa does.
pub fn inverse(m: &Mat4) -> Mat4 {
    let a: [f64; 16] = std::array::from_fn(|k| m[k] as f64);
    let mut inv = [0.0f64; 16];
    inv[0] = a[5] * a[10] * a[15] - a[5] * a[11] * a[14] - a[9] * a[6] * a[15]
        + a[9] * a[7] * a[14]
        + a[13] * a[6] * a[11]
        - a[13] * a[7] * a[10];
    inv[4] = -a[4] * a[10] * a[15] + a[4] * a[11] * a[14] + a[8] * a[6] * a[15]
        - a[8] * a[7] * a[14]
        - a[12] * a[6] * a[11]
        + a[12] * a[7] * a[10];
    inv[8] = a[4] * a[9] * a[15] - a[4] * a[11] * a[13] - a[8] * a[5] * a[15]
        + a[8] * a[7] * a[13]
        + a[12] * a[5] * a[11]
        - a[12] * a[7] * a[9];
    inv[12] = -a[4] * a[9] * a[14] + a[4] * a[10] * a[13] + a[8] * a[5] * a[14]
        - a[8] * a[6] * a[13]
        - a[12] * a[5] * a[10]
        + a[12] * a[6] * a[9];
    inv[1] = -a[1] * a[10] * a[15] + a[1] * a[11] * a[14] + a[9] * a[2] * a[15]
        - a[9] * a[3] * a[14]
        - a[13] * a[2] * a[11]
        + a[13] * a[3] * a[10];
    inv[5] = a[0] * a[10] * a[15] - a[0] * a[11] * a[14] - a[8] * a[2] * a[15]
        + a[8] * a[3] * a[14]
        + a[12] * a[2] * a[11]
        - a[12] * a[3] * a[10];
    inv[9] = -a[0] * a[9] * a[15] + a[0] * a[11] * a[13] + a[8] * a[1] * a[15]
        - a[8] * a[3] * a[13]
        - a[12] * a[1] * a[11]
        + a[12] * a[3] * a[9];
    inv[13] = a[0] * a[9] * a[14] - a[0] * a[10] * a[13] - a[8] * a[1] * a[14]
        + a[8] * a[2] * a[13]
        + a[12] * a[1] * a[10]
        - a[12] * a[2] * a[9];
    inv[2] = a[1] * a[6] * a[15] - a[1] * a[7] * a[14] - a[5] * a[2] * a[15]
        + a[5] * a[3] * a[14]
        + a[13] * a[2] * a[7]
        - a[13] * a[3] * a[6];
    inv[6] = -a[0] * a[6] * a[15] + a[0] * a[7] * a[14] + a[4] * a[2] * a[15]
        - a[4] * a[3] * a[14]
        - a[12] * a[2] * a[7]
        + a[12] * a[3] * a[6];
    inv[10] = a[0] * a[5] * a[15] - a[0] * a[7] * a[13] - a[4] * a[1] * a[15]
        + a[4] * a[3] * a[13]
        + a[12] * a[1] * a[7]
        - a[12] * a[3] * a[5];
    inv[14] = -a[0] * a[5] * a[14] + a[0] * a[6] * a[13] + a[4] * a[1] * a[14]
        - a[4] * a[2] * a[13]
        - a[12] * a[1] * a[6]
        + a[12] * a[2] * a[5];
    inv[3] = -a[1] * a[6] * a[11] + a[1] * a[7] * a[10] + a[5] * a[2] * a[11]
        - a[5] * a[3] * a[10]
        - a[9] * a[2] * a[7]
        + a[9] * a[3] * a[6];
    inv[7] = a[0] * a[6] * a[11] - a[0] * a[7] * a[10] - a[4] * a[2] * a[11]
        + a[4] * a[3] * a[10]
        + a[8] * a[2] * a[7]
        - a[8] * a[3] * a[6];
    inv[11] = -a[0] * a[5] * a[11] + a[0] * a[7] * a[9] + a[4] * a[1] * a[11]
        - a[4] * a[3] * a[9]
        - a[8] * a[1] * a[7]
        + a[8] * a[3] * a[5];
    inv[15] = a[0] * a[5] * a[10] - a[0] * a[6] * a[9] - a[4] * a[1] * a[10]
        + a[4] * a[2] * a[9]
        + a[8] * a[1] * a[6]
        - a[8] * a[2] * a[5];
    let det = a[0] * inv[0] + a[1] * inv[4] + a[2] * inv[8] + a[3] * inv[12];
    if det == 0.0 || !det.is_finite() {
        return IDENTITY;
    }
    std::array::from_fn(|k| (inv[k] / det) as f32)
}

/// From 16 f64 values (column-major).
fn from_f64(v: [f64; 16]) -> Mat4 {
    v.map(|x| x as f32)
}

fn rotation(angle_deg: f64, x: f64, y: f64, z: f64) -> Option<Mat4> {
    let len = (x * x + y * y + z * z).sqrt();
    if len == 0.0 || !len.is_finite() {
        // No axis: Mesa leaves the matrix as it is.
        return None;
    }
    let (x, y, z) = (x / len, y / len, z / len);
    let (s, c) = angle_deg.to_radians().sin_cos();
    let t = 1.0 - c;
    Some(from_f64([
        x * x * t + c,
        y * x * t + z * s,
        x * z * t - y * s,
        0.0,
        x * y * t - z * s,
        y * y * t + c,
        y * z * t + x * s,
        0.0,
        x * z * t + y * s,
        y * z * t - x * s,
        z * z * t + c,
        0.0,
        0.0,
        0.0,
        0.0,
        1.0,
    ]))
}

fn ortho(l: f64, r: f64, b: f64, t: f64, n: f64, f: f64) -> Mat4 {
    from_f64([
        2.0 / (r - l),
        0.0,
        0.0,
        0.0,
        0.0,
        2.0 / (t - b),
        0.0,
        0.0,
        0.0,
        0.0,
        -2.0 / (f - n),
        0.0,
        -(r + l) / (r - l),
        -(t + b) / (t - b),
        -(f + n) / (f - n),
        1.0,
    ])
}

fn frustum(l: f64, r: f64, b: f64, t: f64, n: f64, f: f64) -> Mat4 {
    from_f64([
        2.0 * n / (r - l),
        0.0,
        0.0,
        0.0,
        0.0,
        2.0 * n / (t - b),
        0.0,
        0.0,
        (r + l) / (r - l),
        (t + b) / (t - b),
        -(f + n) / (f - n),
        -1.0,
        0.0,
        0.0,
        -2.0 * f * n / (f - n),
        0.0,
    ])
}

/// The values a legacy shader's matrix built-ins read.
pub mod derived {
    use super::*;

    /// gl_NormalMatrix: the upper-left 3×3 of the modelview's
    /// inverse-transpose, column-major (9 values).
    pub fn normal_matrix(mv: &Mat4) -> [f32; 9] {
        let it = transpose(&inverse(mv));
        std::array::from_fn(|k| it[(k / 3) * 4 + k % 3])
    }

    /// gl_NormalScale: the rescale-normal factor, from the third row of
    /// the inverse modelview (Mesa's formula).
    pub fn normal_scale(mv: &Mat4) -> f32 {
        let inv = inverse(mv);
        let f = inv[2] * inv[2] + inv[6] * inv[6] + inv[10] * inv[10];
        if f < 1e-12 {
            1.0
        } else {
            1.0 / f.sqrt()
        }
    }
}

/// A matrix built-in a legacy shader may read, in `gl_X` spelling without
/// the array index; the variants are Inverse/Transpose/InverseTranspose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Builtin {
    ModelView(Variant),
    Projection(Variant),
    ModelViewProjection(Variant),
    Texture(Variant),
    NormalMatrix,
    NormalScale,
    /// The user clip planes in eye space, zero for a disabled plane (the
    /// `gl_ClipVertex` lowering's `gl_ClipDistance` is then never
    /// negative): `shader::prepass` declares it for a vertex shader
    /// writing `gl_ClipVertex`.
    ClipPlane,
    /// `mgl_Points` (`gl::points`): point size, program-point-size flag,
    /// coordinate-replacement units, sprite origin.
    Points,
    /// `mgl_TwoSide` (`gl::points`): GL_VERTEX_PROGRAM_TWO_SIDE.
    TwoSide,
    /// `mgl_PrimitiveIdScale` (`gl::points`): what a fragment shader's
    /// `gl_PrimitiveID` is scaled by for the draw's primitive type.
    PrimitiveIdScale,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    Plain,
    Inverse,
    Transpose,
    InverseTranspose,
}

impl Variant {
    fn apply(self, m: &Mat4) -> Mat4 {
        match self {
            Variant::Plain => *m,
            Variant::Inverse => inverse(m),
            Variant::Transpose => transpose(m),
            Variant::InverseTranspose => transpose(&inverse(m)),
        }
    }
}

impl Builtin {
    /// The built-in named `name` (`gl_ModelViewMatrixInverse`, ...).
    pub fn from_name(name: &str) -> Option<Builtin> {
        let variant = |rest: &str| {
            Some(match rest {
                "" => Variant::Plain,
                "Inverse" => Variant::Inverse,
                "Transpose" => Variant::Transpose,
                "InverseTranspose" => Variant::InverseTranspose,
                _ => return None,
            })
        };
        if let Some(r) = name.strip_prefix("gl_ModelViewProjectionMatrix") {
            return variant(r).map(Builtin::ModelViewProjection);
        }
        if let Some(r) = name.strip_prefix("gl_ModelViewMatrix") {
            return variant(r).map(Builtin::ModelView);
        }
        if let Some(r) = name.strip_prefix("gl_ProjectionMatrix") {
            return variant(r).map(Builtin::Projection);
        }
        if let Some(r) = name.strip_prefix("gl_TextureMatrix") {
            return variant(r).map(Builtin::Texture);
        }
        match name {
            "gl_NormalMatrix" => Some(Builtin::NormalMatrix),
            "gl_NormalScale" => Some(Builtin::NormalScale),
            "mgl_ClipPlane" => Some(Builtin::ClipPlane),
            "mgl_Points" => Some(Builtin::Points),
            "mgl_TwoSide" => Some(Builtin::TwoSide),
            "mgl_PrimitiveIdScale" => Some(Builtin::PrimitiveIdScale),
            _ => None,
        }
    }

    /// Column-major columns of element `element` (texture unit for the
    /// texture matrices): 4 columns of 4, 3 of 3, or one of 1.
    pub fn value(self, m: &MatrixState, element: usize) -> (Vec<f32>, usize) {
        let mv = m.modelview();
        match self {
            Builtin::ModelView(v) => (v.apply(mv).to_vec(), 4),
            Builtin::Projection(v) => (v.apply(m.projection()).to_vec(), 4),
            Builtin::ModelViewProjection(v) => (v.apply(&mul(m.projection(), mv)).to_vec(), 4),
            Builtin::Texture(v) => (v.apply(m.texture(element)).to_vec(), 4),
            Builtin::NormalMatrix => (derived::normal_matrix(mv).to_vec(), 3),
            Builtin::NormalScale => (vec![derived::normal_scale(mv)], 1),
            Builtin::ClipPlane => {
                let on = m.clip_enabled & (1 << element) != 0;
                let p = m.clip_planes.get(element).filter(|_| on);
                (p.map_or(vec![0.0; 4], |p| p.to_vec()), 4)
            }
            Builtin::Points => (m.points.uniform.to_vec(), 4),
            Builtin::TwoSide => (vec![f32::from(u8::from(m.points.two_side))], 1),
            Builtin::PrimitiveIdScale => (vec![m.points.primitive_id_scale], 1),
        }
    }
}

/// Where a matrix built-in lives in a program's default block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatrixUniform {
    pub which: Builtin,
    pub offset: u32,
    /// Elements (8 for `gl_TextureMatrix`, 1 otherwise).
    pub count: u32,
    pub array_stride: u32,
    pub matrix_stride: u32,
}

/// Write the current values of `uniforms` into a default block; true when
/// a byte changed.
pub fn write_uniforms(m: &MatrixState, uniforms: &[MatrixUniform], scratch: &mut [u8]) -> bool {
    let mut changed = false;
    for u in uniforms {
        for e in 0..u.count.max(1) {
            let (vals, rows) = u.which.value(m, e as usize);
            let base = u.offset as usize + e as usize * u.array_stride as usize;
            let stride = if u.matrix_stride == 0 {
                16
            } else {
                u.matrix_stride as usize
            };
            for (k, v) in vals.iter().enumerate() {
                let at = base + (k / rows) * stride + (k % rows) * 4;
                let bytes = v.to_le_bytes();
                if let Some(dst) = scratch.get_mut(at..at + 4) {
                    if dst != bytes {
                        dst.copy_from_slice(&bytes);
                        changed = true;
                    }
                }
            }
        }
    }
    changed
}

// ---------------------------------------------------------------- entry points

/// The current stack and its depth limit, or the GL error: the texture
/// stack of a unit past GL_MAX_TEXTURE_COORDS is an INVALID_OPERATION.
fn current_stack<'a>(gl: &'a mut Gl<'_>) -> Result<(&'a mut Vec<Mat4>, usize), u32> {
    let unit = gl.st.active_texture as usize;
    let m = &mut gl.st.matrices;
    match m.mode {
        PROJECTION => Ok((&mut m.projection, PROJECTION_DEPTH)),
        TEXTURE => match m.texture.get_mut(unit) {
            Some(s) => Ok((s, TEXTURE_DEPTH)),
            None => Err(glow::INVALID_OPERATION),
        },
        _ => Ok((&mut m.modelview, MODELVIEW_DEPTH)),
    }
}

/// Run `f` on the current matrix of a compatibility context (core:
/// INVALID_OPERATION); the programs reading matrices are refreshed.
fn edit(f: impl Fn(&mut Mat4) + Send + Sync + 'static) {
    with_gl_listed("glMatrix", 0, move |gl| edit_gl(gl, &f))
}

fn edit_gl(gl: &mut Gl, f: &dyn Fn(&mut Mat4)) {
    if gl.st.is_core() {
        gl_err!(gl, glow::INVALID_OPERATION);
    }
    let top = match current_stack(gl) {
        Ok((s, _)) => s.last_mut(),
        Err(e) => gl_err!(gl, e),
    };
    if let Some(top) = top {
        f(top);
    }
    gl.st.matrices.serial = next_serial();
    gl.st.dirty |= DIRTY_UNIFORMS;
}

fn mult(m: Mat4) {
    edit(move |top| *top = mul(top, &m))
}

/// SAFETY contract of the pointer variants: `m` is null or 16 values.
unsafe fn read16<T: Copy + Into<f64>>(m: *const T) -> Option<Mat4> {
    // SAFETY: the caller passes null or 16 readable values.
    let s = unsafe { slice(m, 16) };
    (s.len() == 16).then(|| std::array::from_fn(|k| s[k].into() as f32))
}

#[no_mangle]
pub unsafe extern "C" fn glMatrixMode(mode: u32) {
    with_gl_listed("glMatrixMode", 0, move |gl| {
        if gl.st.is_core() {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        if !matches!(mode, MODELVIEW | PROJECTION | TEXTURE) {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        gl.st.matrices.mode = mode;
    })
}

#[no_mangle]
pub unsafe extern "C" fn glLoadIdentity() {
    edit(|top| *top = IDENTITY)
}

#[no_mangle]
pub unsafe extern "C" fn glLoadMatrixf(m: *const f32) {
    // SAFETY: GL says `m` points at 16 values.
    let Some(m) = (unsafe { read16(m) }) else {
        return;
    };
    edit(move |top| *top = m)
}

#[no_mangle]
pub unsafe extern "C" fn glLoadMatrixd(m: *const f64) {
    // SAFETY: GL says `m` points at 16 values.
    let Some(m) = (unsafe { read16(m) }) else {
        return;
    };
    edit(move |top| *top = m)
}

#[no_mangle]
pub unsafe extern "C" fn glLoadTransposeMatrixf(m: *const f32) {
    // SAFETY: GL says `m` points at 16 values.
    let Some(m) = (unsafe { read16(m) }) else {
        return;
    };
    edit(move |top| *top = transpose(&m))
}

#[no_mangle]
pub unsafe extern "C" fn glLoadTransposeMatrixd(m: *const f64) {
    // SAFETY: GL says `m` points at 16 values.
    let Some(m) = (unsafe { read16(m) }) else {
        return;
    };
    edit(move |top| *top = transpose(&m))
}

#[no_mangle]
pub unsafe extern "C" fn glMultMatrixf(m: *const f32) {
    // SAFETY: GL says `m` points at 16 values.
    if let Some(m) = unsafe { read16(m) } {
        mult(m)
    }
}

#[no_mangle]
pub unsafe extern "C" fn glMultMatrixd(m: *const f64) {
    // SAFETY: GL says `m` points at 16 values.
    if let Some(m) = unsafe { read16(m) } {
        mult(m)
    }
}

#[no_mangle]
pub unsafe extern "C" fn glMultTransposeMatrixf(m: *const f32) {
    // SAFETY: GL says `m` points at 16 values.
    if let Some(m) = unsafe { read16(m) } {
        mult(transpose(&m))
    }
}

#[no_mangle]
pub unsafe extern "C" fn glMultTransposeMatrixd(m: *const f64) {
    // SAFETY: GL says `m` points at 16 values.
    if let Some(m) = unsafe { read16(m) } {
        mult(transpose(&m))
    }
}

fn rotate(angle: f64, x: f64, y: f64, z: f64) {
    match rotation(angle, x, y, z) {
        Some(r) => mult(r),
        // Still an error in a core context.
        None => edit(|_| {}),
    }
}

#[no_mangle]
pub unsafe extern "C" fn glRotatef(angle: f32, x: f32, y: f32, z: f32) {
    rotate(angle as f64, x as f64, y as f64, z as f64)
}

#[no_mangle]
pub unsafe extern "C" fn glRotated(angle: f64, x: f64, y: f64, z: f64) {
    rotate(angle, x, y, z)
}

fn scale(x: f64, y: f64, z: f64) {
    let mut m = IDENTITY;
    m[0] = x as f32;
    m[5] = y as f32;
    m[10] = z as f32;
    mult(m)
}

#[no_mangle]
pub unsafe extern "C" fn glScalef(x: f32, y: f32, z: f32) {
    scale(x as f64, y as f64, z as f64)
}

#[no_mangle]
pub unsafe extern "C" fn glScaled(x: f64, y: f64, z: f64) {
    scale(x, y, z)
}

fn translate(x: f64, y: f64, z: f64) {
    let mut m = IDENTITY;
    m[12] = x as f32;
    m[13] = y as f32;
    m[14] = z as f32;
    mult(m)
}

#[no_mangle]
pub unsafe extern "C" fn glTranslatef(x: f32, y: f32, z: f32) {
    translate(x as f64, y as f64, z as f64)
}

#[no_mangle]
pub unsafe extern "C" fn glTranslated(x: f64, y: f64, z: f64) {
    translate(x, y, z)
}

/// glOrtho / glFrustum: the INVALID_VALUE cases are checked after the
/// profile (a core context answers INVALID_OPERATION).
fn projection_op(bad: bool, m: Mat4) {
    with_gl_listed("glOrtho/glFrustum", 0, move |gl| {
        if !gl.st.is_core() && bad {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        edit_gl(gl, &|top| *top = mul(top, &m))
    })
}

#[no_mangle]
pub unsafe extern "C" fn glOrtho(l: f64, r: f64, b: f64, t: f64, n: f64, f: f64) {
    projection_op(l == r || b == t || n == f, ortho(l, r, b, t, n, f))
}

#[no_mangle]
pub unsafe extern "C" fn glFrustum(l: f64, r: f64, b: f64, t: f64, n: f64, f: f64) {
    let bad = n <= 0.0 || f <= 0.0 || l == r || b == t || n == f;
    projection_op(bad, frustum(l, r, b, t, n, f))
}

#[no_mangle]
pub unsafe extern "C" fn glPushMatrix() {
    with_gl_listed("glPushMatrix", 0, move |gl| {
        if gl.st.is_core() {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        let (stack, max) = match current_stack(gl) {
            Ok(s) => s,
            Err(e) => gl_err!(gl, e),
        };
        if stack.len() >= max {
            gl_err!(gl, glow::STACK_OVERFLOW);
        }
        let top = *stack.last().unwrap_or(&IDENTITY);
        stack.push(top);
    })
}

#[no_mangle]
pub unsafe extern "C" fn glPopMatrix() {
    with_gl_listed("glPopMatrix", 0, move |gl| {
        if gl.st.is_core() {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        let stack = match current_stack(gl) {
            Ok((s, _)) => s,
            Err(e) => gl_err!(gl, e),
        };
        if stack.len() <= 1 {
            gl_err!(gl, glow::STACK_UNDERFLOW);
        }
        stack.pop();
        gl.st.matrices.serial = next_serial();
        gl.st.dirty |= DIRTY_UNIFORMS;
    })
}

#[no_mangle]
pub unsafe extern "C" fn glClipPlane(plane: u32, equation: *const f64) {
    // SAFETY: GL says `equation` points at 4 values.
    let eq = unsafe { slice(equation, 4) }.to_vec();
    with_gl_listed("glClipPlane", 0, move |gl| {
        if gl.st.is_core() {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        let i = plane.wrapping_sub(CLIP_PLANE0) as usize;
        if i >= CLIP_PLANES {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        if eq.len() < 4 {
            return;
        }
        // Stored in eye space: the plane times the inverse modelview
        // (GL 4.6 compatibility §13.7).
        let inv = inverse(gl.st.matrices.modelview());
        let eye: [f32; 4] = std::array::from_fn(|j| {
            (0..4).map(|k| eq[k] * inv[j * 4 + k] as f64).sum::<f64>() as f32
        });
        gl.st.matrices.clip_planes[i] = eye;
        gl.st.matrices.serial = next_serial();
        gl.st.dirty |= DIRTY_UNIFORMS;
    })
}

#[no_mangle]
pub unsafe extern "C" fn glGetClipPlane(plane: u32, equation: *mut f64) {
    let eq = with_gl(|gl| {
        if gl.st.is_core() {
            gl_err!(gl, glow::INVALID_OPERATION);
        }
        match gl
            .st
            .matrices
            .clip_planes
            .get(plane.wrapping_sub(CLIP_PLANE0) as usize)
        {
            Some(p) => Some(*p),
            None => gl_err!(gl, glow::INVALID_ENUM),
        }
    });
    if let Some(p) = eq {
        for (k, v) in p.iter().enumerate() {
            // SAFETY: GL says `equation` has room for 4 values.
            unsafe { super::put(equation.add(k), *v as f64) };
        }
    }
}

/// glEnable/glDisable of GL_CLIP_PLANEi (= GL_CLIP_DISTANCEi): the
/// clip-plane uniform of a `gl_ClipVertex` shader follows the enables.
pub(crate) fn clip_enables_changed(gl: &mut Gl, enabled: u32) {
    let m = &mut gl.st.matrices;
    if m.clip_enabled != enabled {
        m.clip_enabled = enabled;
        m.serial = next_serial();
        gl.st.dirty |= DIRTY_UNIFORMS;
    }
}

/// glGet* answers of the matrix state (compatibility contexts only; None
/// for other names). `Err` is the GL error.
pub fn get(gl: &Gl, pname: u32) -> Option<Result<Vec<f64>, u32>> {
    if gl.st.is_core() {
        return None;
    }
    let m = &gl.st.matrices;
    let unit = gl.st.active_texture as usize;
    let mat = |x: &Mat4| Some(Ok(x.iter().map(|v| *v as f64).collect()));
    let tex = || m.texture.get(unit).ok_or(glow::INVALID_OPERATION);
    let one = |v: usize| Some(Ok(vec![v as f64]));
    match pname {
        MATRIX_MODE => Some(Ok(vec![m.mode as f64])),
        MODELVIEW_MATRIX => mat(m.modelview()),
        PROJECTION_MATRIX => mat(m.projection()),
        TRANSPOSE_MODELVIEW_MATRIX => mat(&transpose(m.modelview())),
        TRANSPOSE_PROJECTION_MATRIX => mat(&transpose(m.projection())),
        TEXTURE_MATRIX => match tex() {
            Ok(_) => mat(m.texture(unit)),
            Err(e) => Some(Err(e)),
        },
        TRANSPOSE_TEXTURE_MATRIX => match tex() {
            Ok(_) => mat(&transpose(m.texture(unit))),
            Err(e) => Some(Err(e)),
        },
        MODELVIEW_STACK_DEPTH => one(m.modelview.len()),
        PROJECTION_STACK_DEPTH => one(m.projection.len()),
        TEXTURE_STACK_DEPTH => match tex() {
            Ok(s) => one(s.len()),
            Err(e) => Some(Err(e)),
        },
        MAX_MODELVIEW_STACK_DEPTH => one(MODELVIEW_DEPTH),
        MAX_PROJECTION_STACK_DEPTH => one(PROJECTION_DEPTH),
        MAX_TEXTURE_STACK_DEPTH => one(TEXTURE_DEPTH),
        MAX_TEXTURE_COORDS => one(TEXTURE_COORDS),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[f32], b: &[f32]) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5)
    }

    #[test]
    fn inverse_undoes_a_product() {
        let r = rotation(30.0, 1.0, 2.0, 3.0).unwrap();
        let mut t = IDENTITY;
        t[12] = 3.0;
        t[13] = -2.0;
        t[0] = 2.0;
        let m = mul(&r, &t);
        assert!(close(&mul(&m, &inverse(&m)), &IDENTITY));
        let singular = [0.0; 16];
        assert_eq!(inverse(&singular), IDENTITY);
    }

    #[test]
    fn ortho_maps_corners() {
        let o = ortho(0.0, 200.0, 0.0, 100.0, -1.0, 1.0);
        // (200, 100) → (1, 1)
        let x = o[0] * 200.0 + o[12];
        let y = o[5] * 100.0 + o[13];
        assert!((x - 1.0).abs() < 1e-6 && (y - 1.0).abs() < 1e-6);
    }

    #[test]
    fn normal_matrix_of_a_scale() {
        let mut s = IDENTITY;
        s[0] = 2.0;
        s[5] = 4.0;
        s[10] = 0.5;
        let n = derived::normal_matrix(&s);
        assert!(close(&n, &[0.5, 0.0, 0.0, 0.0, 0.25, 0.0, 0.0, 0.0, 2.0]));
        let mut u = IDENTITY;
        u[0] = 3.0;
        u[5] = 3.0;
        u[10] = 3.0;
        assert!((derived::normal_scale(&u) - 3.0).abs() < 1e-5);
    }
}
