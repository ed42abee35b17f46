//! Fixed-function drawing for compatibility contexts: a draw with no
//! program bound runs a program generated from the fixed-function state
//! that decides its shape (texture targets enabled per unit and their
//! environment modes, alpha test, shade model), written as a legacy GLSL
//! pair so the source pre-pass turns `gl_Vertex`, `gl_Color`,
//! `gl_MultiTexCoordN` and the matrices into the same inputs and uniforms a
//! legacy application shader gets. Programs are linked once per state key
//! and kept for the context's life (keys are few: an application toggles a
//! handful of states).
//!
//! Owns: the texture-environment, alpha-test and shade-model state, the
//! legacy enables that have no other home, and the generated programs.
//! Never touches: the application's programs or the core-profile path (a
//! core context never reaches this module; its entry points answer
//! `GL_INVALID_OPERATION` there, as the registry stubs did).
//!
//! Not emulated (logged once when enabled): lighting, fog, texture
//! coordinate generation, colour sum, point sprites' coordinate
//! replacement, the alpha test while an application program is bound.

use super::dlist::with_gl_listed;
use std::collections::HashMap;

use super::gl_err;

use crate::context::{
    with_gl, Gl, ProgramObj, ShaderObj, ShaderOrProgram, DIRTY_PROGRAM, DIRTY_RESOURCES,
    DIRTY_UNIFORMS, DIRTY_VERTEX,
};

const TEXTURE_ENV: u32 = 0x2300;
const TEXTURE_ENV_MODE: u32 = 0x2200;
const TEXTURE_ENV_COLOR: u32 = 0x2201;
const MODULATE: u32 = 0x2100;
const DECAL: u32 = 0x2101;
const ADD: u32 = 0x0104;
const COMBINE: u32 = 0x8570;
const ALPHA_TEST: u32 = 0x0BC0;
const TEXTURE_1D: u32 = 0x0DE0;
const TEXTURE_2D: u32 = 0x0DE1;
const TEXTURE_3D: u32 = 0x806F;
const TEXTURE_CUBE_MAP: u32 = 0x8513;
const TEXTURE_RECTANGLE: u32 = 0x84F5;
const FLAT: u32 = 0x1D00;
const SMOOTH: u32 = 0x1D01;
const ALPHA_TEST_FUNC: u32 = 0x0BC1;
const ALPHA_TEST_REF: u32 = 0x0BC2;
const SHADE_MODEL: u32 = 0x0B54;
// GL_ARB_texture_env_combine / _crossbar / _dot3.
const COMBINE_RGB: u32 = 0x8571;
const COMBINE_ALPHA: u32 = 0x8572;
const RGB_SCALE: u32 = 0x8573;
const ADD_SIGNED: u32 = 0x8574;
const INTERPOLATE: u32 = 0x8575;
const CONSTANT: u32 = 0x8576;
const PRIMARY_COLOR: u32 = 0x8577;
const PREVIOUS: u32 = 0x8578;
const SOURCE0_RGB: u32 = 0x8580;
const SOURCE0_ALPHA: u32 = 0x8588;
const OPERAND0_RGB: u32 = 0x8590;
const OPERAND0_ALPHA: u32 = 0x8598;
const ALPHA_SCALE: u32 = 0x0D1C;
const SUBTRACT: u32 = 0x84E7;
const DOT3_RGB: u32 = 0x86AE;
const DOT3_RGBA: u32 = 0x86AF;
const TEXTURE: u32 = 0x1702;
const SRC_COLOR: u32 = 0x0300;
const ONE_MINUS_SRC_COLOR: u32 = 0x0301;
const SRC_ALPHA: u32 = 0x0302;
const ONE_MINUS_SRC_ALPHA: u32 = 0x0303;

/// Texture units the generated programs read (gl_TextureMatrix's size).
pub const UNITS: usize = 8;

/// Legacy enables stored for glIsEnabled but not emulated: (cap, name).
const NOT_EMULATED: &[(u32, &str)] = &[
    (0x0B50, "GL_LIGHTING"),
    (0x0B60, "GL_FOG"),
    (0x0B57, "GL_COLOR_MATERIAL"),
    (0x0C60, "GL_TEXTURE_GEN_S"),
    (0x0C61, "GL_TEXTURE_GEN_T"),
    (0x0C62, "GL_TEXTURE_GEN_R"),
    (0x0C63, "GL_TEXTURE_GEN_Q"),
    (0x8458, "GL_COLOR_SUM"),
    (0x0B10, "GL_POINT_SMOOTH"),
    (0x0B24, "GL_LINE_STIPPLE"),
    (0x0B42, "GL_POLYGON_STIPPLE"),
    (0x0D80, "GL_AUTO_NORMAL"),
    (0x0BF1, "GL_INDEX_LOGIC_OP"),
];
/// Legacy enables that change nothing we draw (the normal is not used
/// without lighting): stored silently.
const STORED_ONLY: &[u32] = &[
    0x0BA1, // GL_NORMALIZE
    0x803A, // GL_RESCALE_NORMAL
    0x4000, 0x4001, 0x4002, 0x4003, 0x4004, 0x4005, 0x4006, 0x4007, // GL_LIGHT0..7
    0x8642, // GL_VERTEX_PROGRAM_POINT_SIZE (= GL_PROGRAM_POINT_SIZE: handled before)
    0x8643, // GL_VERTEX_PROGRAM_TWO_SIDE
];

/// One unit's GL_COMBINE settings (ARB_texture_env_combine), as set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Combine {
    pub rgb: u32,
    pub alpha: u32,
    pub src_rgb: [u32; 3],
    pub src_alpha: [u32; 3],
    pub op_rgb: [u32; 3],
    pub op_alpha: [u32; 3],
    /// RGB_SCALE and ALPHA_SCALE as f32 bits (1, 2 or 4).
    pub scale: [u32; 2],
}

impl Default for Combine {
    fn default() -> Self {
        Combine {
            rgb: MODULATE,
            alpha: MODULATE,
            src_rgb: [TEXTURE, PREVIOUS, CONSTANT],
            src_alpha: [TEXTURE, PREVIOUS, CONSTANT],
            op_rgb: [SRC_COLOR, SRC_COLOR, SRC_ALPHA],
            op_alpha: [SRC_ALPHA; 3],
            scale: [1.0f32.to_bits(); 2],
        }
    }
}

/// The fixed-function state of one context.
#[derive(Debug)]
pub struct FfState {
    /// Per unit: bit per enabled target (`target_bit`).
    pub enabled: [u8; UNITS],
    pub env_mode: [u32; UNITS],
    pub env_color: [[f32; 4]; UNITS],
    pub combine: [Combine; UNITS],
    pub alpha_test: bool,
    pub alpha_func: u32,
    pub alpha_ref: f32,
    pub flat: bool,
    /// Enabled legacy capabilities without a field of their own.
    pub other_caps: Vec<u32>,
    /// Generated programs by key; `None`: the key failed to link (logged).
    programs: HashMap<FfKey, Option<u32>>,
    /// The generated program the last fixed-function draw used.
    pub(crate) last: u32,
    /// Between glBegin and glEnd (`gl::immediate`).
    pub immediate: Option<super::immediate::Immediate>,
}

impl Default for FfState {
    fn default() -> Self {
        FfState {
            enabled: [0; UNITS],
            env_mode: [MODULATE; UNITS],
            env_color: [[0.0; 4]; UNITS],
            combine: [Combine::default(); UNITS],
            alpha_test: false,
            alpha_func: glow::ALWAYS,
            alpha_ref: 0.0,
            flat: false,
            other_caps: Vec::new(),
            programs: HashMap::new(),
            last: 0,
            immediate: None,
        }
    }
}

/// What a generated program depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct FfKey {
    /// Per unit: the target used (0 = texturing off) and the env mode.
    units: [(u32, u32); UNITS],
    /// Per unit: GL_TEXTURE_ENV_COLOR bits (GL_BLEND and GL_COMBINE, else
    /// zeros).
    env_color: [[u32; 4]; UNITS],
    /// Per unit: the combiner (GL_COMBINE, else the default).
    combine: [Combine; UNITS],
    /// Per unit: the bound texture's format has an alpha channel (GL_REPLACE
    /// keeps the fragment's alpha otherwise).
    has_alpha: [bool; UNITS],
    /// Per unit: the bound texture is a legacy GL_ALPHA one (GL_REPLACE and
    /// GL_MODULATE keep the fragment's colour).
    alpha_only: [bool; UNITS],
    /// Per unit: the coordinates (bit 0: s, 1: t, 2: r) the program clamps
    /// itself, GL_CLAMP under LINEAR filtering
    /// (`textures::linear_clamp_axes`; the sampler wraps them as
    /// CLAMP_TO_BORDER).
    clamp: [u8; UNITS],
    /// (function, reference bits) when the alpha test is on.
    alpha: Option<(u32, u32)>,
    flat: bool,
}

fn target_bit(cap: u32) -> Option<u8> {
    Some(match cap {
        TEXTURE_1D => 1,
        TEXTURE_2D => 2,
        TEXTURE_3D => 4,
        TEXTURE_CUBE_MAP => 8,
        TEXTURE_RECTANGLE => 16,
        _ => return None,
    })
}

/// The target a unit samples: GL's precedence among the enabled ones.
fn unit_target(bits: u8) -> u32 {
    if bits & 8 != 0 {
        TEXTURE_CUBE_MAP
    } else if bits & 4 != 0 {
        TEXTURE_3D
    } else if bits & 16 != 0 {
        TEXTURE_RECTANGLE
    } else if bits & 2 != 0 {
        TEXTURE_2D
    } else if bits & 1 != 0 {
        TEXTURE_1D
    } else {
        0
    }
}

/// glEnable/glDisable of a legacy capability in a compatibility context;
/// false = not one (INVALID_ENUM).
pub fn set_cap(gl: &mut Gl, cap: u32, on: bool) -> bool {
    let unit = gl.st.active_texture as usize;
    let ff = &mut gl.st.ff;
    if let Some(bit) = target_bit(cap) {
        if let Some(e) = ff.enabled.get_mut(unit) {
            if on {
                *e |= bit
            } else {
                *e &= !bit
            }
        }
        return true;
    }
    if cap == ALPHA_TEST {
        ff.alpha_test = on;
        return true;
    }
    if cap == super::points::POINT_SPRITE {
        super::points::set_sprite(gl, on);
        return true;
    }
    if cap == super::points::VERTEX_PROGRAM_TWO_SIDE {
        super::points::set_two_side(gl, on);
    }
    let known = NOT_EMULATED.iter().find(|(c, _)| *c == cap);
    if known.is_none() && !STORED_ONLY.contains(&cap) {
        return false;
    }
    let ff = &mut gl.st.ff;
    if on {
        if let Some((_, name)) = known {
            super::log_once(name, || {
                format!("{name} is enabled: MobileGL does not emulate it (drawn as if disabled)")
            });
        }
        if !ff.other_caps.contains(&cap) {
            ff.other_caps.push(cap);
        }
    } else {
        ff.other_caps.retain(|c| *c != cap);
    }
    true
}

/// glIsEnabled of a legacy capability; None = not one.
pub fn get_cap(gl: &Gl, cap: u32) -> Option<bool> {
    let ff = &gl.st.ff;
    if let Some(bit) = target_bit(cap) {
        let unit = gl.st.active_texture as usize;
        return Some(ff.enabled.get(unit).is_some_and(|e| e & bit != 0));
    }
    if cap == ALPHA_TEST {
        return Some(ff.alpha_test);
    }
    if cap == super::points::POINT_SPRITE {
        return Some(gl.st.matrices.points.sprite);
    }
    if NOT_EMULATED.iter().any(|(c, _)| *c == cap) || STORED_ONLY.contains(&cap) {
        return Some(ff.other_caps.contains(&cap));
    }
    None
}

/// glGet of the state kept here (compatibility contexts); None = not ours.
pub fn get(gl: &Gl, pname: u32) -> Option<Vec<f64>> {
    let ff = &gl.st.ff;
    Some(match pname {
        ALPHA_TEST_FUNC => vec![f64::from(ff.alpha_func)],
        ALPHA_TEST_REF => vec![f64::from(ff.alpha_ref)],
        SHADE_MODEL => vec![f64::from(if ff.flat { FLAT } else { SMOOTH })],
        _ => return None,
    })
}

/// Before a draw with no program bound (compatibility contexts): the
/// generated program for the current state, made current for this draw's
/// validation. Err: the GL error of the draw.
pub fn program_for_draw(gl: &mut Gl) -> Result<u32, u32> {
    let key = key(gl);
    let name = match gl.st.ff.programs.get(&key) {
        Some(Some(n)) => *n,
        Some(None) => return Err(glow::INVALID_OPERATION),
        None => {
            let made = build(gl, &key);
            gl.st.ff.programs.insert(key, made);
            made.ok_or(glow::INVALID_OPERATION)?
        }
    };
    if gl.st.ff.last != name {
        gl.st.ff.last = name;
        gl.st.dirty |= DIRTY_PROGRAM | DIRTY_RESOURCES | DIRTY_UNIFORMS | DIRTY_VERTEX;
    }
    Ok(name)
}

fn key(gl: &Gl) -> FfKey {
    let ff = &gl.st.ff;
    let mut units = [(0u32, 0u32); UNITS];
    let mut env_color = [[0u32; 4]; UNITS];
    let mut combine = [Combine::default(); UNITS];
    let mut has_alpha = [false; UNITS];
    let mut alpha_only = [false; UNITS];
    let mut clamp = [0u8; UNITS];
    for u in 0..UNITS {
        let target = unit_target(ff.enabled[u]);
        if target != 0 {
            let mode = ff.env_mode[u];
            units[u] = (target, mode);
            if matches!(mode, glow::BLEND | COMBINE) {
                env_color[u] = ff.env_color[u].map(f32::to_bits);
            }
            if mode == COMBINE {
                combine[u] = ff.combine[u];
            }
            if mode == glow::REPLACE {
                has_alpha[u] = texture_has_alpha(gl, u, target);
            }
            if matches!(mode, glow::REPLACE | MODULATE) {
                alpha_only[u] = texture_legacy_base(gl, u, target)
                    == Some(super::legacy_formats::LegacyBase::Alpha);
            }
            clamp[u] = clamp_axes(gl, u, target);
        }
    }
    FfKey {
        units,
        env_color,
        combine,
        has_alpha,
        alpha_only,
        clamp,
        alpha: (ff.alpha_test && ff.alpha_func != glow::ALWAYS)
            .then_some((ff.alpha_func, ff.alpha_ref.to_bits())),
        flat: ff.flat,
    }
}

/// The coordinates the program clamps for `unit` sampling `target`
/// (`FfKey::clamp`): those of the effective sampler state (the unit's
/// sampler object, else the texture's) that the target has.
fn clamp_axes(gl: &Gl, unit: usize, target: u32) -> u8 {
    let name = gl.st.bound_texture(unit, target);
    let Some(Some(t)) = gl.sh.textures.get(&name) else {
        return 0;
    };
    let params = match gl.st.sampler_units.get(unit).copied().unwrap_or(0) {
        0 => t.params,
        s => gl.sh.samplers.get(&s).copied().unwrap_or(t.params),
    };
    let axes = match target {
        TEXTURE_1D => 1,
        TEXTURE_2D | TEXTURE_RECTANGLE => 3,
        TEXTURE_3D => 7,
        _ => 0,
    };
    super::textures::linear_clamp_axes(&params) & axes
}

/// Whether the texture bound to `target` on `unit` has an alpha channel
/// (an unknown or unspecified one counts as having one).
fn texture_has_alpha(gl: &Gl, unit: usize, target: u32) -> bool {
    let name = gl.st.bound_texture(unit, target);
    let Some(Some(t)) = gl.sh.textures.get(&name) else {
        return true;
    };
    let Some(info) = t.level(0, 0) else {
        return true;
    };
    if let Some(l) = info.legacy() {
        return l.base != super::legacy_formats::LegacyBase::Luminance;
    }
    // A depth texture's base format is its GL_DEPTH_TEXTURE_MODE
    // (compatibility profile §8.5.3 and table 16.1): INTENSITY and ALPHA
    // have alpha, LUMINANCE and RED do not.
    if reads_depth(t) {
        return matches!(t.depth_mode, super::legacy_formats::INTENSITY | glow::ALPHA);
    }
    !matches!(
        info.internal_format,
        glow::R8
            | glow::R8_SNORM
            | glow::R16
            | glow::R16F
            | glow::R32F
            | glow::RG8
            | glow::RG8_SNORM
            | glow::RG16
            | glow::RG16F
            | glow::RG32F
            | glow::RGB8
            | glow::RGB8_SNORM
            | glow::RGB16
            | glow::RGB16F
            | glow::RGB32F
            | glow::SRGB8
            | glow::R11F_G11F_B10F
            | glow::RGB9_E5
            | glow::RGB565
            | glow::RGB5
            | glow::RGB4
            | glow::R3_G3_B2
            | glow::RGB10
            | glow::RGB12
            | glow::DEPTH_COMPONENT16
            | glow::DEPTH_COMPONENT24
            | glow::DEPTH_COMPONENT32
            | glow::DEPTH_COMPONENT32F
    )
}

/// Whether sampling `t` reads depth values (a depth texture, or a
/// depth/stencil one in GL_DEPTH_STENCIL_TEXTURE_MODE DEPTH_COMPONENT).
fn reads_depth(t: &crate::context::Texture) -> bool {
    use super::validate::{has_depth, has_stencil};
    let Some(info) = t.level(0, t.base_level as usize) else {
        return false;
    };
    let f = info.internal_format;
    has_depth(f) && (!has_stencil(f) || t.depth_stencil_mode == glow::DEPTH_COMPONENT)
}

/// The legacy base format (GL_ALPHA, GL_LUMINANCE, ...) of the texture
/// bound to `target` on `unit`, if it has one; a depth texture's is its
/// GL_DEPTH_TEXTURE_MODE's.
fn texture_legacy_base(
    gl: &Gl,
    unit: usize,
    target: u32,
) -> Option<super::legacy_formats::LegacyBase> {
    use super::legacy_formats::LegacyBase;
    let name = gl.st.bound_texture(unit, target);
    let Some(Some(t)) = gl.sh.textures.get(&name) else {
        return None;
    };
    if reads_depth(t) {
        return match t.depth_mode {
            glow::ALPHA => Some(LegacyBase::Alpha),
            glow::LUMINANCE => Some(LegacyBase::Luminance),
            super::legacy_formats::INTENSITY => Some(LegacyBase::Intensity),
            _ => None,
        };
    }
    Some(t.level(0, t.base_level as usize)?.legacy()?.base)
}

/// GLSL for one combiner argument: `source` read through `operand`.
fn combine_arg(source: u32, operand: u32, unit: usize, key: &FfKey, rgb: bool) -> String {
    let value = match source {
        TEXTURE => format!("t{unit}"),
        CONSTANT => {
            let [r, g, b, a] = key.env_color[unit].map(f32::from_bits);
            format!("vec4({r:?}, {g:?}, {b:?}, {a:?})")
        }
        PRIMARY_COLOR => "mgl_ff_color".to_owned(),
        // GL_TEXTUREn (crossbar): that unit's texel when it is enabled.
        s if (glow::TEXTURE0..glow::TEXTURE0 + UNITS as u32).contains(&s)
            && key.units[(s - glow::TEXTURE0) as usize].0 != 0 =>
        {
            format!("t{}", s - glow::TEXTURE0)
        }
        _ => "c".to_owned(), // PREVIOUS (the primary colour on unit 0)
    };
    match (operand, rgb) {
        (SRC_COLOR, true) => format!("{value}.rgb"),
        (ONE_MINUS_SRC_COLOR, true) => format!("(vec3(1.0) - {value}.rgb)"),
        (ONE_MINUS_SRC_ALPHA, true) => format!("vec3(1.0 - {value}.a)"),
        (_, true) => format!("vec3({value}.a)"),
        (ONE_MINUS_SRC_ALPHA, false) => format!("(1.0 - {value}.a)"),
        (_, false) => format!("{value}.a"),
    }
}

/// GLSL for one combiner function over arguments `a`.
fn combine_fn(function: u32, a: &[String; 3], one: &str) -> String {
    let [a0, a1, a2] = a;
    match function {
        glow::REPLACE => a0.clone(),
        ADD => format!("({a0} + {a1})"),
        ADD_SIGNED => format!("({a0} + {a1} - {one} * 0.5)"),
        INTERPOLATE => format!("({a0} * {a2} + {a1} * ({one} - {a2}))"),
        SUBTRACT => format!("({a0} - {a1})"),
        DOT3_RGB | DOT3_RGBA => format!("{one} * (4.0 * dot({a0} - vec3(0.5), {a1} - vec3(0.5)))"),
        _ => format!("({a0} * {a1})"), // MODULATE
    }
}

/// The GLSL 1.40 compatibility-profile pair for `key`.
fn sources(key: &FfKey) -> (String, String) {
    let interp = if key.flat { "flat " } else { "" };
    let mut vs = String::from("#version 140 compatibility\n");
    let mut fs = String::from(
        "#version 140 compatibility\n#extension GL_ARB_shading_language_420pack : require\n",
    );
    vs.push_str(&format!("{interp}out vec4 mgl_ff_color;\n"));
    fs.push_str(&format!("{interp}in vec4 mgl_ff_color;\n"));
    let mut vs_main =
        String::from("void main() {\n  gl_Position = ftransform();\n  mgl_ff_color = gl_Color;\n");
    let mut fs_main = String::from("void main() {\n  vec4 c = mgl_ff_color;\n");
    for (u, &(target, mode)) in key.units.iter().enumerate() {
        if target == 0 {
            continue;
        }
        vs.push_str(&format!("out vec4 mgl_ff_tc{u};\n"));
        vs_main.push_str(&format!(
            "  mgl_ff_tc{u} = gl_TextureMatrix[{u}] * gl_MultiTexCoord{u};\n"
        ));
        let (sampler, lookup) = match target {
            TEXTURE_1D => (
                "sampler1D",
                format!("textureProj(mgl_ff_s{u}, mgl_ff_tc{u}.xw)"),
            ),
            TEXTURE_3D => (
                "sampler3D",
                format!("textureProj(mgl_ff_s{u}, mgl_ff_tc{u})"),
            ),
            TEXTURE_CUBE_MAP => (
                "samplerCube",
                format!("texture(mgl_ff_s{u}, mgl_ff_tc{u}.xyz)"),
            ),
            TEXTURE_RECTANGLE => (
                "sampler2DRect",
                format!("textureProj(mgl_ff_s{u}, mgl_ff_tc{u})"),
            ),
            _ => (
                "sampler2D",
                format!("textureProj(mgl_ff_s{u}, mgl_ff_tc{u})"),
            ),
        };
        fs.push_str(&format!(
            "in vec4 mgl_ff_tc{u};\nlayout(binding = {u}) uniform {sampler} mgl_ff_s{u};\n"
        ));
        let lookup = match clamped_lookup(u, target, key.clamp[u]) {
            Some((setup, lookup)) => {
                fs_main.push_str(&setup);
                lookup
            }
            None => lookup,
        };
        fs_main.push_str(&format!("  vec4 t{u} = {lookup};\n"));
        let _ = mode;
    }
    // Units apply in order, each to the previous one's result.
    for (u, &(target, mode)) in key.units.iter().enumerate() {
        if target == 0 {
            continue;
        }
        let combine = match mode {
            // GL_ALPHA textures: the colour is the fragment's (table 16.1).
            glow::REPLACE if key.alpha_only[u] => format!("  c.a = t{u}.a;\n"),
            MODULATE if key.alpha_only[u] => format!("  c.a *= t{u}.a;\n"),
            glow::REPLACE if key.has_alpha[u] => format!("  c = t{u};\n"),
            glow::REPLACE => format!("  c = vec4(t{u}.rgb, c.a);\n"),
            COMBINE => {
                let cb = &key.combine[u];
                let rgb_args =
                    [0, 1, 2].map(|i| combine_arg(cb.src_rgb[i], cb.op_rgb[i], u, key, true));
                let alpha_args =
                    [0, 1, 2].map(|i| combine_arg(cb.src_alpha[i], cb.op_alpha[i], u, key, false));
                let [rs, as_] = cb.scale.map(f32::from_bits);
                let rgb = combine_fn(cb.rgb, &rgb_args, "vec3(1.0)");
                if cb.rgb == DOT3_RGBA {
                    format!("  c = vec4(clamp({rgb} * {rs:?}, 0.0, 1.0), 1.0);\n  c.a = c.r;\n")
                } else {
                    let alpha = combine_fn(cb.alpha, &alpha_args, "1.0");
                    format!("  c = clamp(vec4({rgb} * {rs:?}, {alpha} * {as_:?}), 0.0, 1.0);\n")
                }
            }
            DECAL => format!("  c.rgb = mix(c.rgb, t{u}.rgb, t{u}.a);\n"),
            ADD => format!("  c = vec4(min(c.rgb + t{u}.rgb, vec3(1.0)), c.a * t{u}.a);\n"),
            glow::BLEND => {
                let [r, g, b, _] = key.env_color[u].map(f32::from_bits);
                format!(
                    "  c = vec4(mix(c.rgb, vec3({r:?}, {g:?}, {b:?}), t{u}.rgb), c.a * t{u}.a);\n"
                )
            }
            _ => format!("  c *= t{u};\n"), // MODULATE
        };
        fs_main.push_str(&combine);
    }
    if let Some((func, bits)) = key.alpha {
        let r = f32::from_bits(bits);
        let pass = match func {
            glow::NEVER => "false".to_owned(),
            glow::LESS => format!("c.a < {r:?}"),
            glow::EQUAL => format!("c.a == {r:?}"),
            glow::LEQUAL => format!("c.a <= {r:?}"),
            glow::GREATER => format!("c.a > {r:?}"),
            glow::NOTEQUAL => format!("c.a != {r:?}"),
            glow::GEQUAL => format!("c.a >= {r:?}"),
            _ => "true".to_owned(),
        };
        fs_main.push_str(&format!("  if (!({pass})) discard;\n"));
    }
    vs_main.push_str("}\n");
    fs_main.push_str("  gl_FragColor = c;\n}\n");
    vs.push_str(&vs_main);
    fs.push_str(&fs_main);
    (vs, fs)
}

/// GL_CLAMP under LINEAR filtering for the axes `axes` of unit `u`: the
/// projected coordinate, clamped to the texture ([0, 1]; [0, size] for
/// rectangles) on those axes, and the lookup that reads it (the sampler
/// wraps them as CLAMP_TO_BORDER). None: no axis to clamp.
fn clamped_lookup(u: usize, target: u32, axes: u8) -> Option<(String, String)> {
    if axes == 0 {
        return None;
    }
    let (ty, swz, n) = match target {
        TEXTURE_1D => ("float", "x", 1),
        TEXTURE_3D => ("vec3", "xyz", 3),
        TEXTURE_2D | TEXTURE_RECTANGLE => ("vec2", "xy", 2),
        _ => return None,
    };
    let mut setup = format!("  {ty} p{u} = mgl_ff_tc{u}.{swz} / mgl_ff_tc{u}.w;\n");
    for (i, c) in ["x", "y", "z"].iter().enumerate().take(n) {
        if axes & 1 << i == 0 {
            continue;
        }
        let comp = if n == 1 {
            format!("p{u}")
        } else {
            format!("p{u}.{c}")
        };
        let hi = if target == TEXTURE_RECTANGLE {
            format!("float(textureSize(mgl_ff_s{u}).{c})")
        } else {
            "1.0".to_owned()
        };
        setup.push_str(&format!("  {comp} = clamp({comp}, 0.0, {hi});\n"));
    }
    Some((setup, format!("texture(mgl_ff_s{u}, p{u})")))
}

/// Link the program for `key` under fresh names in the share group.
fn build(gl: &mut Gl, key: &FfKey) -> Option<u32> {
    let (vs, fs) = sources(key);
    link_hidden_program(gl, &vs, &fs, &format!("fixed-function program for {key:?}"))
}

/// Link a vertex + fragment program the frontend itself uses (never seen
/// by the application: fixed-function drawing, pixel rectangles) under
/// fresh names in the share group, through the ordinary link path. None,
/// with the log as an error naming `what`, when it does not link.
pub(super) fn link_hidden_program(gl: &mut Gl, vs: &str, fs: &str, what: &str) -> Option<u32> {
    let mut shaders = Vec::with_capacity(2);
    for (stage, gl_type, source) in [
        (crate::shader::Stage::Vertex, glow::VERTEX_SHADER, vs),
        (crate::shader::Stage::Fragment, glow::FRAGMENT_SHADER, fs),
    ] {
        let name = fresh_name(gl);
        gl.sh.shader_objects.insert(
            name,
            ShaderOrProgram::Shader(ShaderObj {
                stage,
                gl_type,
                source: source.to_owned(),
                compiled_source: source.to_owned(),
                compiled: true,
                info_log: String::new(),
                delete_pending: false,
                attached: 1,
            }),
        );
        shaders.push(name);
    }
    let program = fresh_name(gl);
    gl.sh.shader_objects.insert(
        program,
        ShaderOrProgram::Program(ProgramObj {
            shaders,
            in_use: 1,
            ..Default::default()
        }),
    );
    super::shaders::link_program(gl, program);
    match gl.sh.shader_objects.get(&program) {
        Some(ShaderOrProgram::Program(p)) if p.link_status => Some(program),
        Some(ShaderOrProgram::Program(p)) => {
            tracing::error!("{what} failed to link:\n{}", p.info_log);
            None
        }
        _ => None,
    }
}

fn fresh_name(gl: &mut Gl) -> u32 {
    loop {
        let c = gl.sh.new_name();
        if !gl.sh.shader_objects.contains_key(&c) {
            return c;
        }
    }
}

/// Legacy entry points are not part of the core profile: the error the
/// registry stubs give there.
fn compat_only(gl: &mut Gl, name: &'static str) -> bool {
    if gl.st.is_core() {
        super::log_once(name, || {
            format!("{name} is not available in a core profile context: GL_INVALID_OPERATION")
        });
        gl.st.set_error(glow::INVALID_OPERATION);
        return false;
    }
    true
}

fn tex_env(gl: &mut Gl, target: u32, pname: u32, v: &[f32], as_int: bool) {
    if !compat_only(gl, "glTexEnv") {
        return;
    }
    let unit = (gl.st.active_texture as usize).min(UNITS - 1);
    if target == super::points::POINT_SPRITE {
        if pname != super::points::COORD_REPLACE {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        let on = v.first().copied().unwrap_or(0.0);
        if on != 0.0 && on != 1.0 {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        super::points::set_coord_replace(gl, unit, on != 0.0);
        return;
    }
    if target != TEXTURE_ENV {
        // GL_TEXTURE_FILTER_CONTROL (the LOD bias) settings are not kept.
        if target == 0x8500 {
            return;
        }
        gl_err!(gl, glow::INVALID_ENUM);
    }
    match pname {
        TEXTURE_ENV_MODE => {
            let mode = v.first().copied().unwrap_or(0.0) as u32;
            if !matches!(
                mode,
                MODULATE | DECAL | glow::BLEND | glow::REPLACE | ADD | COMBINE
            ) {
                gl_err!(gl, glow::INVALID_ENUM);
            }
            gl.st.ff.env_mode[unit] = mode;
        }
        TEXTURE_ENV_COLOR => {
            let mut c = [0.0f32; 4];
            for (d, s) in c.iter_mut().zip(v) {
                // Integer forms map [-2^31, 2^31-1] onto [-1, 1].
                let f = if as_int { *s / i32::MAX as f32 } else { *s };
                *d = f.clamp(0.0, 1.0);
            }
            gl.st.ff.env_color[unit] = c;
        }
        // GL_TEXTURE_LOD_BIAS: not kept.
        0x8501 => {}
        p => {
            let value = v.first().copied().unwrap_or(0.0);
            if let Err(e) = set_combine(&mut gl.st.ff.combine[unit], p, value) {
                gl_err!(gl, e);
            }
        }
    }
}

/// One combiner parameter (ARB_texture_env_combine's errors: INVALID_ENUM
/// for a bad name or value, INVALID_VALUE for a scale other than 1, 2, 4).
fn set_combine(cb: &mut Combine, pname: u32, value: f32) -> Result<(), u32> {
    let e = value as u32;
    let source_ok = |s: u32| {
        matches!(s, TEXTURE | CONSTANT | PRIMARY_COLOR | PREVIOUS)
            || (glow::TEXTURE0..glow::TEXTURE0 + UNITS as u32).contains(&s)
    };
    match pname {
        COMBINE_RGB
            if matches!(
                e,
                glow::REPLACE
                    | MODULATE
                    | ADD
                    | ADD_SIGNED
                    | INTERPOLATE
                    | SUBTRACT
                    | DOT3_RGB
                    | DOT3_RGBA
            ) =>
        {
            cb.rgb = e
        }
        COMBINE_ALPHA
            if matches!(
                e,
                glow::REPLACE | MODULATE | ADD | ADD_SIGNED | INTERPOLATE | SUBTRACT
            ) =>
        {
            cb.alpha = e
        }
        p if (SOURCE0_RGB..SOURCE0_RGB + 3).contains(&p) && source_ok(e) => {
            cb.src_rgb[(p - SOURCE0_RGB) as usize] = e
        }
        p if (SOURCE0_ALPHA..SOURCE0_ALPHA + 3).contains(&p) && source_ok(e) => {
            cb.src_alpha[(p - SOURCE0_ALPHA) as usize] = e
        }
        p if (OPERAND0_RGB..OPERAND0_RGB + 3).contains(&p)
            && (SRC_COLOR..=ONE_MINUS_SRC_ALPHA).contains(&e) =>
        {
            cb.op_rgb[(p - OPERAND0_RGB) as usize] = e
        }
        p if (OPERAND0_ALPHA..OPERAND0_ALPHA + 3).contains(&p)
            && matches!(e, SRC_ALPHA | ONE_MINUS_SRC_ALPHA) =>
        {
            cb.op_alpha[(p - OPERAND0_ALPHA) as usize] = e
        }
        RGB_SCALE | ALPHA_SCALE => {
            if ![1.0, 2.0, 4.0].contains(&value) {
                return Err(glow::INVALID_VALUE);
            }
            cb.scale[usize::from(pname == ALPHA_SCALE)] = value.to_bits();
        }
        _ => return Err(glow::INVALID_ENUM),
    }
    Ok(())
}

/// The value of one combiner parameter, None = not one.
fn get_combine(cb: &Combine, pname: u32) -> Option<f32> {
    Some(match pname {
        COMBINE_RGB => cb.rgb as f32,
        COMBINE_ALPHA => cb.alpha as f32,
        p if (SOURCE0_RGB..SOURCE0_RGB + 3).contains(&p) => {
            cb.src_rgb[(p - SOURCE0_RGB) as usize] as f32
        }
        p if (SOURCE0_ALPHA..SOURCE0_ALPHA + 3).contains(&p) => {
            cb.src_alpha[(p - SOURCE0_ALPHA) as usize] as f32
        }
        p if (OPERAND0_RGB..OPERAND0_RGB + 3).contains(&p) => {
            cb.op_rgb[(p - OPERAND0_RGB) as usize] as f32
        }
        p if (OPERAND0_ALPHA..OPERAND0_ALPHA + 3).contains(&p) => {
            cb.op_alpha[(p - OPERAND0_ALPHA) as usize] as f32
        }
        RGB_SCALE => f32::from_bits(cb.scale[0]),
        ALPHA_SCALE => f32::from_bits(cb.scale[1]),
        _ => return None,
    })
}

#[no_mangle]
pub unsafe extern "C" fn glTexEnvi(target: u32, pname: u32, param: i32) {
    with_gl_listed("glTexEnvi", 0, move |gl| {
        tex_env(gl, target, pname, &[param as f32], false)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glTexEnvf(target: u32, pname: u32, param: f32) {
    with_gl_listed("glTexEnvf", 0, move |gl| {
        tex_env(gl, target, pname, &[param], false)
    })
}

/// GL_TEXTURE_ENV_COLOR takes four values, the others one.
fn env_values(pname: u32) -> usize {
    if pname == TEXTURE_ENV_COLOR {
        4
    } else {
        1
    }
}

#[no_mangle]
pub unsafe extern "C" fn glTexEnviv(target: u32, pname: u32, params: *const i32) {
    // SAFETY: GL promises one value (four for GL_TEXTURE_ENV_COLOR).
    let p = unsafe { super::slice(params, env_values(pname) as i32) };
    let v: Vec<f32> = p.iter().map(|x| *x as f32).collect();
    with_gl_listed("glTexEnviv", 0, move |gl| {
        if v.is_empty() {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        tex_env(gl, target, pname, &v, pname == TEXTURE_ENV_COLOR)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glTexEnvfv(target: u32, pname: u32, params: *const f32) {
    // SAFETY: GL promises one value (four for GL_TEXTURE_ENV_COLOR).
    let p = unsafe { super::slice(params, env_values(pname) as i32) }.to_vec();
    with_gl_listed("glTexEnvfv", 0, move |gl| {
        if p.is_empty() {
            gl_err!(gl, glow::INVALID_VALUE);
        }
        tex_env(gl, target, pname, &p, false)
    })
}

fn get_tex_env(gl: &mut Gl, target: u32, pname: u32) -> Option<Vec<f32>> {
    if !compat_only(gl, "glGetTexEnv") {
        return None;
    }
    let unit = (gl.st.active_texture as usize).min(UNITS - 1);
    match (target, pname) {
        (super::points::POINT_SPRITE, super::points::COORD_REPLACE) => Some(vec![f32::from(
            u8::from(super::points::coord_replace(gl, unit)),
        )]),
        (TEXTURE_ENV, TEXTURE_ENV_MODE) => Some(vec![gl.st.ff.env_mode[unit] as f32]),
        (TEXTURE_ENV, TEXTURE_ENV_COLOR) => Some(gl.st.ff.env_color[unit].to_vec()),
        (TEXTURE_ENV, p) if get_combine(&gl.st.ff.combine[unit], p).is_some() => {
            get_combine(&gl.st.ff.combine[unit], p).map(|v| vec![v])
        }
        _ => {
            gl.st.set_error(glow::INVALID_ENUM);
            None
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetTexEnviv(target: u32, pname: u32, params: *mut i32) {
    with_gl(|gl| {
        let Some(v) = get_tex_env(gl, target, pname) else {
            return;
        };
        if params.is_null() {
            return;
        }
        for (i, x) in v.iter().enumerate() {
            let out = if pname == TEXTURE_ENV_COLOR {
                (*x as f64 * f64::from(i32::MAX)).round() as i32
            } else {
                *x as i32
            };
            // SAFETY: GL promises room for the values of `pname`.
            unsafe { *params.add(i) = out };
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glGetTexEnvfv(target: u32, pname: u32, params: *mut f32) {
    with_gl(|gl| {
        let Some(v) = get_tex_env(gl, target, pname) else {
            return;
        };
        if params.is_null() {
            return;
        }
        for (i, x) in v.iter().enumerate() {
            // SAFETY: GL promises room for the values of `pname`.
            unsafe { *params.add(i) = *x };
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn glAlphaFunc(func: u32, reference: f32) {
    with_gl_listed("glAlphaFunc", 0, move |gl| {
        if !compat_only(gl, "glAlphaFunc") {
            return;
        }
        if !(glow::NEVER..=glow::ALWAYS).contains(&func) {
            gl_err!(gl, glow::INVALID_ENUM);
        }
        gl.st.ff.alpha_func = func;
        gl.st.ff.alpha_ref = reference.clamp(0.0, 1.0);
    })
}

#[no_mangle]
pub unsafe extern "C" fn glShadeModel(mode: u32) {
    // Programs whose colour varyings follow the shade model draw through
    // a variant (`Gl::flat_shaded_cso`): the program is re-resolved.
    with_gl_listed("glShadeModel", DIRTY_PROGRAM, move |gl| {
        if !compat_only(gl, "glShadeModel") {
            return;
        }
        match mode {
            FLAT => gl.st.ff.flat = true,
            SMOOTH => gl.st.ff.flat = false,
            _ => gl_err!(gl, glow::INVALID_ENUM),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key_with(units: [(u32, u32); UNITS], alpha: Option<(u32, u32)>, flat: bool) -> FfKey {
        let mut combine = [Combine::default(); UNITS];
        // Unit 5: every combiner function family and source kind.
        combine[5] = Combine {
            rgb: INTERPOLATE,
            alpha: ADD_SIGNED,
            src_rgb: [glow::TEXTURE0, PRIMARY_COLOR, CONSTANT],
            src_alpha: [TEXTURE, PREVIOUS, CONSTANT],
            op_rgb: [ONE_MINUS_SRC_COLOR, SRC_ALPHA, ONE_MINUS_SRC_ALPHA],
            op_alpha: [ONE_MINUS_SRC_ALPHA, SRC_ALPHA, SRC_ALPHA],
            scale: [2.0f32.to_bits(), 4.0f32.to_bits()],
        };
        combine[6] = Combine {
            rgb: DOT3_RGBA,
            ..Combine::default()
        };
        FfKey {
            units,
            env_color: [[0; 4]; UNITS],
            combine,
            has_alpha: [false; UNITS],
            alpha_only: [false; UNITS],
            clamp: [0; UNITS],
            alpha,
            flat,
        }
    }

    #[test]
    fn generated_sources_link() {
        let mut units = [(0, 0); UNITS];
        let plain = key_with(units, None, false);
        units[0] = (TEXTURE_2D, MODULATE);
        units[1] = (TEXTURE_CUBE_MAP, DECAL);
        units[2] = (TEXTURE_1D, ADD);
        units[3] = (TEXTURE_3D, glow::REPLACE);
        units[4] = (TEXTURE_RECTANGLE, glow::BLEND);
        units[5] = (TEXTURE_2D, COMBINE);
        units[6] = (TEXTURE_2D, COMBINE);
        let textured = key_with(units, Some((glow::GREATER, 0.5f32.to_bits())), true);
        // GL_CLAMP under LINEAR filtering: the coordinates clamped in the
        // shader, for every target that has them.
        let mut clamped = key_with(units, None, false);
        clamped.clamp = [3, 0, 1, 5, 3, 2, 1, 0];
        let (_, fs) = sources(&clamped);
        assert!(fs.contains("p0.x = clamp(p0.x, 0.0, 1.0)"), "{fs}");
        assert!(fs.contains("p2 = clamp(p2, 0.0, 1.0)"), "{fs}");
        assert!(!fs.contains("p3.y = clamp"), "{fs}");
        assert!(fs.contains("textureSize(mgl_ff_s4).y"), "{fs}");
        assert!(!fs.contains("p1 "), "cube maps are not clamped: {fs}");
        for key in [plain, textured, clamped] {
            let (vs, fs) = sources(&key);
            let shaders = [
                (crate::shader::Stage::Vertex, vs.as_str()),
                (crate::shader::Stage::Fragment, fs.as_str()),
            ];
            let p = crate::shader::link(&crate::shader::LinkInput {
                xfb_varyings: &[],
                xfb_mode: 0,
                shaders: &shaders,
                attrib_bindings: &[],
                frag_data_bindings: &[],
                varying_limit: 0,
            })
            .unwrap_or_else(|e| panic!("{e}\n{vs}\n{fs}"));
            assert_eq!(
                p.sampler_slots as usize,
                key.units.iter().filter(|u| u.0 != 0).count()
            );
            for (u, _) in key.units.iter().enumerate().filter(|(_, u)| u.0 != 0) {
                let s = p
                    .uniforms
                    .iter()
                    .find(|x| x.name == format!("mgl_ff_s{u}"))
                    .expect("sampler reflected");
                assert_eq!(s.explicit_binding, Some(u as u32));
            }
        }
    }

    #[test]
    fn unit_target_precedence() {
        assert_eq!(unit_target(1 | 2 | 4 | 8 | 16), TEXTURE_CUBE_MAP);
        assert_eq!(unit_target(1 | 2 | 16), TEXTURE_RECTANGLE);
        assert_eq!(unit_target(1 | 2), TEXTURE_2D);
        assert_eq!(unit_target(1), TEXTURE_1D);
        assert_eq!(unit_target(0), 0);
    }
}
