//! Source pre-pass: makes desktop GLSL that glslang-for-Vulkan refuses
//! (GLSL < 1.40, compatibility profile, `gl_FragColor`, ...) acceptable,
//! keeping line numbers intact so info logs point at the user's lines.
//!
//! Coverage (see the module doc of `shader` for the summary):
//! - no `#version` (= 110), `#version 110/120/130`: raised to `#version 140`;
//!   `#version 1xx/3xx/4xx compatibility`: profile dropped (core);
//!   `#version 100` (ES) → `#version 310 es` (legacy mapping applied),
//!   `#version 300 es` → `#version 310 es` (Vulkan needs ≥ 310 for ES).
//! - legacy sources (< 140, compatibility, ES 100): `attribute` → `in`
//!   (vertex), `varying` → `out` (vertex) / `in` (fragment), `texture1D/2D/
//!   3D/Cube/2DRect[Proj][Lod]` → `texture[Proj][Lod]`, `shadow1D/2D[Proj]
//!   [Lod]` → helpers returning `vec4` like the old built-ins; for < 130,
//!   user identifiers that became built-ins/keywords later (`texture`,
//!   `flat`, `uint`, ...) are renamed (`mgl_r_<name>`) and reported back
//!   under their original name.
//! - every fragment shader: `gl_FragColor` → `out vec4 mgl_FragColor`,
//!   `gl_FragData[n]` → `out vec4 mgl_FragData[N]` (N = highest constant
//!   index + 1, or GL_MAX_DRAW_BUFFERS when indexed dynamically);
//!   `gl_FragColor` also reaches draw buffers 1.. (hidden outputs).
//! - `layout(packed)` / `layout(shared)` → `std140` (a valid choice for both;
//!   Vulkan rejects them).
//! - `gl_DepthRange` (a core built-in uniform that SPIR-V has no place
//!   for) → `mgl_DepthRange`, a default-block uniform of the same struct
//!   shape the client fills from `glDepthRange` at each draw and reports
//!   under the built-in's name.
//! - legacy sources: the compatibility built-ins are emulated
//!   (`compat_emulation`): `gl_Vertex` is the input at location 0 (reported
//!   as `gl_Vertex`), the matrix state (`gl_ModelViewMatrix` and its
//!   variants, projection, modelview-projection, texture and normal
//!   matrices, `gl_NormalScale`) is default-block uniforms `mgl_*` the
//!   client keeps current (`gl::matrix`; identity in a core context) and
//!   reports under the built-ins' names, the other fixed-function inputs
//!   are inputs at free locations (`mgl_Color` ..., fed from their arrays
//!   or current values at draws), colour /
//!   texture-coordinate / fog varyings are plain varyings (`gl_Color` in a
//!   fragment shader reads `gl_FrontColor`), `ftransform()` is
//!   `gl_ModelViewProjectionMatrix * gl_Vertex`, `gl_ClipVertex` is a
//!   private variable that a vertex shader's wrapped `main()` turns into
//!   `gl_ClipDistance[i] = dot(gl_ClipVertex, plane i)` for the 8 user
//!   clip planes (`mgl_ClipPlane`, zero while disabled, not reported);
//!   a compatibility geometry shader writes the same varyings (its
//!   `gl_ClipVertex` turns each `EmitVertex()` into one that writes the
//!   clip distances first) and reads the vertex shader's as
//!   `gl_in[i].gl_FrontColor` & co., which become `mglv_*[i]` inputs (the
//!   vertex shader of such a link writes `mglv_*`, `prepass_linked`);
//!   compatibility members of a redeclared `gl_PerVertex` leave the block
//!   for the plain varyings above;
//!   the link checks GLSL 1.30's
//!   colour interpolation rule and refuses `gl_ClipVertex` with
//!   `gl_ClipDistance`. The rest (`gl_LightSource`, `gl_Fog`, material and
//!   texgen state ...) are reported as errors naming the built-in and line.

use super::Stage;

mod opaque_structs;
pub(crate) use opaque_structs::OpaqueSplit;

/// The uniform standing in for `gl_DepthRange` (see the module note); the
/// client writes its members (`near`, `far`, `diff`) at each draw.
pub(crate) const DEPTH_RANGE: &str = "mgl_DepthRange";

/// The user clip planes a `gl_ClipVertex` shader is clipped by (see
/// `prepass`): a uniform the application never sees
/// (`LinkedProgram::hidden_uniforms`).
pub(crate) const CLIP_PLANE: &str = "mgl_ClipPlane";

/// The fragment outputs at locations 1.. that repeat `gl_FragColor` for
/// draw buffers 1.. (see `prepass`); not listed as program outputs.
pub(crate) const FRAG_COLOR_BROADCAST: &str = "mgl_FragColorB";
/// The backend's draw buffers (its GL_MAX_DRAW_BUFFERS, at most ours),
/// set when the connection is made: fragment outputs the pre-pass adds
/// (the `gl_FragColor` broadcast, a dynamically indexed `gl_FragData`)
/// stay below it, so a GLES 3.0 driver with 4 draw buffers compiles them.
static DRAW_BUFFERS: std::sync::atomic::AtomicU32 =
    std::sync::atomic::AtomicU32::new(crate::context::MAX_DRAW_BUFFERS as u32);

/// Record the backend's GL_MAX_DRAW_BUFFERS (`runtime::connect`).
pub(crate) fn set_draw_buffers(n: u32) {
    let n = n.clamp(1, crate::context::MAX_DRAW_BUFFERS as u32);
    DRAW_BUFFERS.store(n, std::sync::atomic::Ordering::Relaxed);
}

fn draw_buffers() -> u32 {
    DRAW_BUFFERS.load(std::sync::atomic::Ordering::Relaxed)
}

/// Result of the pre-pass.
#[derive(Debug, Clone)]
pub(crate) struct Prepassed {
    pub source: String,
    /// (new identifier, original identifier) for renamed user identifiers.
    pub renames: Vec<(String, String)>,
    /// Colour varyings of a legacy shader, for the link-time
    /// interpolation check (`check_compat_color_interpolation`).
    pub compat_varyings: Vec<CompatVarying>,
    /// Uses both `gl_ClipVertex` and `gl_ClipDistance` (a link error).
    pub clip_vertex_and_distance: bool,
    /// Fixed-function vertex inputs a legacy vertex shader reads (`gl_Color`,
    /// `gl_Normal` ...): active attributes for glGetActiveAttrib, as in any
    /// GL (their location is -1).
    pub compat_inputs: Vec<String>,
    /// A fragment shader's compatibility varyings (`mgl_FrontColor`,
    /// `mgl_TexCoord` ...): the stage before it must declare them as
    /// outputs, written or not (`prepass_linked`'s `fragment_reads`).
    pub fragment_reads: Vec<(String, String)>,
    /// A fragment shader reading `gl_PointCoord` (its program is meant for
    /// points: `LinkView::points_program`).
    pub reads_point_coord: bool,
    /// Arrays of structs of samplers flattened to sampler arrays
    /// (`opaque_structs`): reflection lists them under the GL names.
    pub opaque_splits: Vec<OpaqueSplit>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Ident,
    Number,
    Directive,
    Comment,
    Space,
    Punct,
}

#[derive(Debug, Clone, Copy)]
struct Tok {
    kind: Kind,
    start: usize,
    end: usize,
    line: u32,
}

fn lex(src: &str) -> Vec<Tok> {
    let b = src.as_bytes();
    let mut toks = Vec::new();
    let mut i = 0usize;
    let mut line = 1u32;
    let mut line_start = true;
    while i < b.len() {
        let start = i;
        let start_line = line;
        let c = b[i];
        let kind;
        if c == b'\n' {
            i += 1;
            line += 1;
            line_start = true;
            toks.push(Tok {
                kind: Kind::Space,
                start,
                end: i,
                line: start_line,
            });
            continue;
        } else if c == b' ' || c == b'\t' || c == b'\r' || c == 0x0b || c == 0x0c {
            while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\r' | 0x0b | 0x0c) {
                i += 1;
            }
            toks.push(Tok {
                kind: Kind::Space,
                start,
                end: i,
                line: start_line,
            });
            continue;
        } else if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                // Line continuation inside a // comment continues it.
                if b[i] == b'\\' && b.get(i + 1) == Some(&b'\n') {
                    i += 1;
                    line += 1;
                }
                i += 1;
            }
            kind = Kind::Comment;
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                if b[i] == b'\n' {
                    line += 1;
                }
                i += 1;
            }
            i = (i + 2).min(b.len());
            kind = Kind::Comment;
        } else if c == b'#' && line_start {
            while i < b.len() && b[i] != b'\n' {
                if b[i] == b'\\' && b.get(i + 1) == Some(&b'\n') {
                    i += 1;
                    line += 1;
                } else if b[i] == b'\\'
                    && b.get(i + 1) == Some(&b'\r')
                    && b.get(i + 2) == Some(&b'\n')
                {
                    i += 2;
                    line += 1;
                }
                i += 1;
            }
            kind = Kind::Directive;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            kind = Kind::Ident;
        } else if c.is_ascii_digit()
            || (c == b'.' && b.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.' || b[i] == b'_') {
                i += 1;
            }
            kind = Kind::Number;
        } else {
            // One UTF-8 character of punctuation (or anything else).
            i += 1;
            while i < b.len() && (b[i] & 0xC0) == 0x80 {
                i += 1;
            }
            kind = Kind::Punct;
        }
        if kind != Kind::Comment {
            line_start = false;
        }
        toks.push(Tok {
            kind,
            start,
            end: i,
            line: start_line,
        });
    }
    toks
}

/// Compatibility-profile built-ins (those `compat_emulation` covers are
/// handled before this is asked).
fn is_compat_builtin(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "gl_Vertex",
        "gl_Normal",
        "gl_Color",
        "gl_SecondaryColor",
        "gl_FogCoord",
        "gl_TexCoord",
        "gl_FrontColor",
        "gl_BackColor",
        "gl_FrontSecondaryColor",
        "gl_BackSecondaryColor",
        "gl_FogFragCoord",
        "gl_ClipVertex",
        "gl_LightSource",
        "gl_LightModel",
        "gl_FrontLightModelProduct",
        "gl_BackLightModelProduct",
        "gl_FrontLightProduct",
        "gl_BackLightProduct",
        "gl_FrontMaterial",
        "gl_BackMaterial",
        "gl_Fog",
        "gl_Point",
        "gl_ClipPlane",
        "gl_TextureEnvColor",
        "gl_NormalScale",
    ];
    const PREFIX: &[&str] = &[
        "gl_ModelView",
        "gl_Projection",
        "gl_TextureMatrix",
        "gl_NormalMatrix",
        "gl_MultiTexCoord",
        "gl_EyePlane",
        "gl_ObjectPlane",
    ];
    EXACT.contains(&name) || PREFIX.iter().any(|p| name.starts_with(p))
}

/// Compatibility-only built-in constants of GLSL 1.10–1.30 (Mesa keeps
/// them for those versions in a core context): replaced by their value.
fn compat_constant(name: &str) -> Option<&'static str> {
    Some(match name {
        "gl_MaxTextureCoords" => "8",
        "gl_MaxTextureUnits" => "8",
        "gl_MaxClipPlanes" => "8",
        _ => return None,
    })
}

/// A compatibility built-in a legacy source (GLSL < 1.40 or a
/// compatibility profile) may use, emulated: the matrices are uniforms
/// the client writes from the matrix stacks (`gl::matrix`); the
/// fixed-function vertex inputs are real inputs (`mgl_Color` ...) at
/// linker-chosen locations, fed from the fixed-function arrays or current
/// values (initial values in a core context); `gl_Vertex` is the input at
/// location 0 (generic attribute 0 aliases it);
/// the colour, texture-coordinate and fog varyings are plain varyings (a
/// fragment shader's `gl_Color` reads `gl_FrontColor`: two-sided colour
/// selection is compatibility-only); `gl_ClipVertex` is a private variable
/// (user clip planes are compatibility-only).
struct CompatEmulation {
    replacement: String,
    /// Global declaration injected after `#version` unless the source
    /// redeclares the built-in (`flat out vec4 gl_FrontColor;`).
    declaration: String,
}

/// The compatibility varyings a vertex or geometry shader writes and the
/// next stage reads (`gl_in[i].<name>` in a geometry shader).
const COMPAT_OUTPUT_VARYINGS: &[&str] = &[
    "gl_FrontColor",
    "gl_BackColor",
    "gl_FrontSecondaryColor",
    "gl_BackSecondaryColor",
    "gl_TexCoord",
    "gl_FogFragCoord",
    "gl_ClipVertex",
];

/// The name a compatibility varying has between a vertex and a geometry
/// shader (`gl_FrontColor` -> `mglv_FrontColor`): distinct from the
/// geometry shader's own output of the same built-in (`mgl_FrontColor`,
/// which the fragment stage reads), since one shader cannot have an input
/// and an output of the same name.
fn vs_to_gs_name(name: &str) -> String {
    format!("mglv{}", name.strip_prefix("gl").unwrap_or(name))
}

/// The declaration of a compatibility varying as a geometry shader's
/// per-vertex input array (`gl_in[i].gl_TexCoord[j]` ->
/// `mglv_TexCoord[i][j]`).
fn gs_input_declaration(name: &str) -> Option<String> {
    let rep = vs_to_gs_name(name);
    Some(match name {
        "gl_TexCoord" => format!("in vec4 {rep}[][8];\n"),
        "gl_FogFragCoord" => format!("in float {rep}[];\n"),
        n if COMPAT_OUTPUT_VARYINGS.contains(&n) => format!("in vec4 {rep}[];\n"),
        _ => return None,
    })
}

/// `vs_feeds_gs`: the vertex shader is linked with a geometry shader, which
/// reads its compatibility varyings under [`vs_to_gs_name`]'s names.
fn compat_emulation(stage: Stage, name: &str, vs_feeds_gs: bool) -> Option<CompatEmulation> {
    // Asked for every identifier of a legacy shader: leave early.
    if !name.starts_with("gl_") {
        return None;
    }
    let decl = |replacement: &str, declaration: String| {
        Some(CompatEmulation {
            replacement: replacement.to_owned(),
            declaration,
        })
    };
    let rep = format!("m{name}");
    // The matrix state: default-block uniforms the client keeps current
    // (`gl::matrix`; identity in a core context, where it cannot change).
    if let Some(decl_type) = matrix_uniform_type(name) {
        return decl(&rep, format!("uniform {decl_type} {rep};\n"));
    }
    if stage == Stage::Vertex && vs_feeds_gs && COMPAT_OUTPUT_VARYINGS.contains(&name) {
        let rep = vs_to_gs_name(name);
        let declaration = match name {
            "gl_TexCoord" => format!("out vec4 {rep}[8];\n"),
            "gl_FogFragCoord" => format!("out float {rep};\n"),
            _ => format!("out vec4 {rep};\n"),
        };
        return decl(&rep, declaration);
    }
    match (stage, name) {
        (Stage::Vertex, "gl_Vertex") => decl(&rep, format!("in vec4 {rep};\n")),
        // The other fixed-function inputs are real inputs too: the linker
        // gives them free locations and draws feed them from their arrays
        // or current values (`gl::legacy_arrays`).
        (Stage::Vertex, n) if compat_input_type(n).is_some() => {
            let ty = match compat_input_type(n) {
                Some(glow::FLOAT) => "float",
                Some(glow::FLOAT_VEC3) => "vec3",
                _ => "vec4",
            };
            decl(&rep, format!("in {ty} {rep};\n"))
        }
        (Stage::Vertex | Stage::Geometry, "gl_ClipVertex") => decl(&rep, format!("vec4 {rep};\n")),
        (
            Stage::Vertex | Stage::Geometry,
            "gl_FrontColor" | "gl_BackColor" | "gl_FrontSecondaryColor" | "gl_BackSecondaryColor",
        ) => decl(&rep, format!("out vec4 {rep};\n")),
        (Stage::Vertex | Stage::Geometry, "gl_TexCoord") => {
            decl(&rep, format!("out vec4 {rep}[8];\n"))
        }
        (Stage::Vertex | Stage::Geometry, "gl_FogFragCoord") => {
            decl(&rep, format!("out float {rep};\n"))
        }
        (Stage::Fragment, "gl_Color") => {
            decl("mgl_FrontColor", "in vec4 mgl_FrontColor;\n".to_owned())
        }
        (Stage::Fragment, "gl_SecondaryColor") => decl(
            "mgl_FrontSecondaryColor",
            "in vec4 mgl_FrontSecondaryColor;\n".to_owned(),
        ),
        (Stage::Fragment, "gl_TexCoord") => decl(&rep, format!("in vec4 {rep}[8];\n")),
        (Stage::Fragment, "gl_FogFragCoord") => decl(&rep, format!("in float {rep};\n")),
        _ => None,
    }
}

/// The declared type (with the array size) of a matrix-state built-in
/// (`gl_ModelViewMatrix`, its Inverse/Transpose/InverseTranspose
/// variants, the projection, modelview-projection and texture matrices,
/// `gl_NormalMatrix`, `gl_NormalScale`), emulated by a uniform `mgl_*`.
fn matrix_uniform_type(name: &str) -> Option<&'static str> {
    let matrix = |base: &str| {
        ["", "Inverse", "Transpose", "InverseTranspose"]
            .iter()
            .any(|suffix| name.strip_prefix(base) == Some(suffix))
    };
    if matrix("gl_ModelViewMatrix")
        || matrix("gl_ProjectionMatrix")
        || matrix("gl_ModelViewProjectionMatrix")
    {
        return Some("mat4");
    }
    if matrix("gl_TextureMatrix") {
        return Some("mat4[8]");
    }
    match name {
        "gl_NormalMatrix" => Some("mat3"),
        "gl_NormalScale" => Some("float"),
        _ => None,
    }
}

/// How a legacy shader uses one of the colour varyings whose interpolation
/// qualifiers GLSL 1.30 makes the linker compare (`gl_FrontColor`,
/// `gl_BackColor`, their secondary twins in the vertex stage, `gl_Color`
/// and `gl_SecondaryColor` in the fragment stage).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CompatVarying {
    pub name: String,
    /// `flat`, `smooth` or `noperspective` from a redeclaration; `None`
    /// when not redeclared or redeclared without one (Mesa tells that
    /// "default" apart from an explicit `smooth`).
    pub interpolation: Option<String>,
    /// Referenced outside its redeclaration.
    pub used: bool,
}

const COMPAT_COLOR_VARYINGS: &[&str] = &[
    "gl_FrontColor",
    "gl_BackColor",
    "gl_FrontSecondaryColor",
    "gl_BackSecondaryColor",
    "gl_Color",
    "gl_SecondaryColor",
];

/// `inverse()` is a GLSL 1.40 built-in that glslang only declares from
/// 1.50; 1.40 sources get these helpers instead.
const INVERSE_HELPERS: &str = "\
mat2 mgl_inverse(mat2 m) { return mat2(m[1][1], -m[0][1], -m[1][0], m[0][0]) / (m[0][0] * m[1][1] - m[1][0] * m[0][1]); }
mat3 mgl_inverse(mat3 m) { vec3 x = cross(m[1], m[2]); vec3 y = cross(m[2], m[0]); vec3 z = cross(m[0], m[1]); return transpose(mat3(x, y, z)) / dot(m[0], x); }
mat4 mgl_inverse(mat4 m) {
 float a00 = m[0][0], a01 = m[0][1], a02 = m[0][2], a03 = m[0][3];
 float a10 = m[1][0], a11 = m[1][1], a12 = m[1][2], a13 = m[1][3];
 float a20 = m[2][0], a21 = m[2][1], a22 = m[2][2], a23 = m[2][3];
 float a30 = m[3][0], a31 = m[3][1], a32 = m[3][2], a33 = m[3][3];
 float b00 = a00 * a11 - a01 * a10, b01 = a00 * a12 - a02 * a10, b02 = a00 * a13 - a03 * a10;
 float b03 = a01 * a12 - a02 * a11, b04 = a01 * a13 - a03 * a11, b05 = a02 * a13 - a03 * a12;
 float b06 = a20 * a31 - a21 * a30, b07 = a20 * a32 - a22 * a30, b08 = a20 * a33 - a23 * a30;
 float b09 = a21 * a32 - a22 * a31, b10 = a21 * a33 - a23 * a31, b11 = a22 * a33 - a23 * a32;
 float det = b00 * b11 - b01 * b10 + b02 * b09 + b03 * b08 - b04 * b07 + b05 * b06;
 return mat4(a11 * b11 - a12 * b10 + a13 * b09, a02 * b10 - a01 * b11 - a03 * b09,
  a31 * b05 - a32 * b04 + a33 * b03, a22 * b04 - a21 * b05 - a23 * b03,
  a12 * b08 - a10 * b11 - a13 * b07, a00 * b11 - a02 * b08 + a03 * b07,
  a32 * b02 - a30 * b05 - a33 * b01, a20 * b05 - a22 * b02 + a23 * b01,
  a10 * b10 - a11 * b08 + a13 * b06, a01 * b08 - a00 * b10 - a03 * b06,
  a30 * b04 - a31 * b02 + a33 * b00, a21 * b02 - a20 * b04 - a23 * b00,
  a11 * b07 - a10 * b09 - a12 * b06, a00 * b09 - a01 * b07 + a02 * b06,
  a31 * b01 - a30 * b03 - a32 * b00, a20 * b03 - a21 * b01 + a22 * b00) / det;
}
";

/// Old texture lookup built-ins and their GLSL 1.30+ names.
fn texture_rename(name: &str) -> Option<&'static str> {
    Some(match name {
        "texture1D" | "texture2D" | "texture3D" | "textureCube" | "texture2DRect" => "texture",
        "texture1DProj" | "texture2DProj" | "texture3DProj" | "texture2DRectProj" => "textureProj",
        "texture1DLod" | "texture2DLod" | "texture3DLod" | "textureCubeLod" => "textureLod",
        "texture1DProjLod" | "texture2DProjLod" | "texture3DProjLod" => "textureProjLod",
        "texture2DGradARB" | "texture2DGradEXT" | "textureCubeGradARB" | "textureCubeGradEXT" => {
            "textureGrad"
        }
        "texture2DLodEXT" | "textureCubeLodEXT" => "textureLod",
        "texture2DProjLodEXT" => "textureProjLod",
        _ => return None,
    })
}

/// Old shadow lookups (return `vec4`) → helper functions injected on use.
/// The result is GL_DEPTH_TEXTURE_MODE LUMINANCE's `(d, d, d, 1)`, the
/// compatibility profile's default. The reference is clamped to [0, 1]
/// first, as GL does for fixed-point depth textures (the only depth
/// textures a legacy shader meets in practice; float ones hold values in
/// [0, 1] too, so the comparisons agree) and llvmpipe/lavapipe do not.
fn shadow_helper(name: &str, stage: Stage) -> Option<&'static str> {
    let frag = stage == Stage::Fragment;
    Some(match name {
        "shadow1D" => {
            if frag {
                "vec4 mgl_shadow1D(sampler1DShadow s, vec3 c) { return vec4(vec3(texture(s, vec3(c.xy, clamp(c.z, 0.0, 1.0)))), 1.0); }\n\
                 vec4 mgl_shadow1D(sampler1DShadow s, vec3 c, float b) { return vec4(vec3(texture(s, vec3(c.xy, clamp(c.z, 0.0, 1.0)), b)), 1.0); }\n"
            } else {
                "vec4 mgl_shadow1D(sampler1DShadow s, vec3 c) { return vec4(vec3(texture(s, vec3(c.xy, clamp(c.z, 0.0, 1.0)))), 1.0); }\n"
            }
        }
        "shadow2D" => {
            if frag {
                "vec4 mgl_shadow2D(sampler2DShadow s, vec3 c) { return vec4(vec3(texture(s, vec3(c.xy, clamp(c.z, 0.0, 1.0)))), 1.0); }\n\
                 vec4 mgl_shadow2D(sampler2DShadow s, vec3 c, float b) { return vec4(vec3(texture(s, vec3(c.xy, clamp(c.z, 0.0, 1.0)), b)), 1.0); }\n"
            } else {
                "vec4 mgl_shadow2D(sampler2DShadow s, vec3 c) { return vec4(vec3(texture(s, vec3(c.xy, clamp(c.z, 0.0, 1.0)))), 1.0); }\n"
            }
        }
        "shadow1DProj" => {
            if frag {
                "vec4 mgl_shadow1DProj(sampler1DShadow s, vec4 c) { return vec4(vec3(textureProj(s, vec4(c.xy, clamp(c.z / c.w, 0.0, 1.0) * c.w, c.w))), 1.0); }\n\
                 vec4 mgl_shadow1DProj(sampler1DShadow s, vec4 c, float b) { return vec4(vec3(textureProj(s, vec4(c.xy, clamp(c.z / c.w, 0.0, 1.0) * c.w, c.w), b)), 1.0); }\n"
            } else {
                "vec4 mgl_shadow1DProj(sampler1DShadow s, vec4 c) { return vec4(vec3(textureProj(s, vec4(c.xy, clamp(c.z / c.w, 0.0, 1.0) * c.w, c.w))), 1.0); }\n"
            }
        }
        "shadow2DProj" => {
            if frag {
                "vec4 mgl_shadow2DProj(sampler2DShadow s, vec4 c) { return vec4(vec3(textureProj(s, vec4(c.xy, clamp(c.z / c.w, 0.0, 1.0) * c.w, c.w))), 1.0); }\n\
                 vec4 mgl_shadow2DProj(sampler2DShadow s, vec4 c, float b) { return vec4(vec3(textureProj(s, vec4(c.xy, clamp(c.z / c.w, 0.0, 1.0) * c.w, c.w), b)), 1.0); }\n"
            } else {
                "vec4 mgl_shadow2DProj(sampler2DShadow s, vec4 c) { return vec4(vec3(textureProj(s, vec4(c.xy, clamp(c.z / c.w, 0.0, 1.0) * c.w, c.w))), 1.0); }\n"
            }
        }
        "shadow1DLod" => {
            "vec4 mgl_shadow1DLod(sampler1DShadow s, vec3 c, float l) { return vec4(vec3(textureLod(s, vec3(c.xy, clamp(c.z, 0.0, 1.0)), l)), 1.0); }\n"
        }
        "shadow2DLod" => {
            "vec4 mgl_shadow2DLod(sampler2DShadow s, vec3 c, float l) { return vec4(vec3(textureLod(s, vec3(c.xy, clamp(c.z, 0.0, 1.0)), l)), 1.0); }\n"
        }
        "shadow1DProjLod" => {
            "vec4 mgl_shadow1DProjLod(sampler1DShadow s, vec4 c, float l) { return vec4(vec3(textureProjLod(s, vec4(c.xy, clamp(c.z / c.w, 0.0, 1.0) * c.w, c.w), l)), 1.0); }\n"
        }
        "shadow2DProjLod" => {
            "vec4 mgl_shadow2DProjLod(sampler2DShadow s, vec4 c, float l) { return vec4(vec3(textureProjLod(s, vec4(c.xy, clamp(c.z / c.w, 0.0, 1.0) * c.w, c.w), l)), 1.0); }\n"
        }
        "shadow2DRect" => {
            "vec4 mgl_shadow2DRect(sampler2DRectShadow s, vec3 c) { return vec4(vec3(texture(s, vec3(c.xy, clamp(c.z, 0.0, 1.0)))), 1.0); }\n"
        }
        "shadow2DRectProj" => {
            "vec4 mgl_shadow2DRectProj(sampler2DRectShadow s, vec4 c) { return vec4(vec3(textureProj(s, vec4(c.xy, clamp(c.z / c.w, 0.0, 1.0) * c.w, c.w))), 1.0); }\n"
        }
        _ => return None,
    })
}

/// A legacy `#define`'s replacement list with the old texture built-ins
/// renamed as in code (`#define textureInst texture1DProj`, piglit's
/// tex-miplevel-selection); shadow helpers used there are added to
/// `helpers`. The directive name and the macro's name stay; None: nothing
/// to rename.
fn rewrite_define(text: &str, stage: Stage, helpers: &mut Vec<&'static str>) -> Option<String> {
    let body = text.strip_prefix('#')?;
    let toks = lex(body);
    let mut idents = toks.iter().filter(|t| t.kind == Kind::Ident);
    if idents.next().map(|t| &body[t.start..t.end]) != Some("define") {
        return None;
    }
    let name_end = idents.next()?.end;
    let mut out = String::from("#");
    let mut changed = false;
    for t in &toks {
        let word = &body[t.start..t.end];
        if t.kind == Kind::Ident && t.start >= name_end {
            if let Some(new) = texture_rename(word) {
                out.push_str(new);
                changed = true;
                continue;
            }
            if let Some(helper) = shadow_helper(word, stage) {
                if !helpers.contains(&helper) {
                    helpers.push(helper);
                }
                out.push_str("mgl_");
                out.push_str(word);
                changed = true;
                continue;
            }
        }
        out.push_str(word);
    }
    changed.then_some(out)
}

/// One integer literal (optionally negated) of a constant `findMSB` /
/// `findLSB` argument: (bits, has a `u` suffix).
fn int_literal(src: &str, toks: &[Tok], at: usize) -> Option<(u32, bool, usize)> {
    let mut k = at;
    let mut negative = false;
    if &src[toks[k].start..toks[k].end] == "-" {
        negative = true;
        k = next_significant(toks, k + 1)?;
    }
    let t = toks[k];
    if t.kind != Kind::Number {
        return None;
    }
    let text = &src[t.start..t.end];
    let unsigned = text.ends_with(['u', 'U']);
    let digits = text.trim_end_matches(['u', 'U']);
    let value = if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        u32::from_str_radix(hex, 16).ok()?
    } else if digits.len() > 1 && digits.starts_with('0') {
        u32::from_str_radix(&digits[1..], 8).ok()?
    } else {
        digits.parse::<u32>().ok()?
    };
    let value = if negative {
        value.wrapping_neg()
    } else {
        value
    };
    Some((value, unsigned, k))
}

/// `findMSB(...)` / `findLSB(...)` at token `i` whose argument is made of
/// integer literals only (`ivec4(1, 2, -3, 4)`, `uvec4(0u)`, `7u`): the
/// index of its closing `)` and the value as GLSL text.
fn fold_bit_query(src: &str, toks: &[Tok], i: usize, msb: bool) -> Option<(usize, String)> {
    let text = |k: usize| &src[toks[k].start..toks[k].end];
    let open = next_significant(toks, i + 1).filter(|&k| text(k) == "(")?;
    let first = next_significant(toks, open + 1)?;
    let (ctor, mut k) = match text(first) {
        c @ ("int" | "uint" | "ivec2" | "ivec3" | "ivec4" | "uvec2" | "uvec3" | "uvec4") => {
            let o = next_significant(toks, first + 1).filter(|&k| text(k) == "(")?;
            (Some(c), next_significant(toks, o + 1)?)
        }
        _ => (None, first),
    };
    let mut values = Vec::new();
    let mut suffix_unsigned = false;
    loop {
        let (v, u, last) = int_literal(src, toks, k)?;
        values.push(v);
        suffix_unsigned |= u;
        let sep = next_significant(toks, last + 1)?;
        match text(sep) {
            "," if ctor.is_some() => k = next_significant(toks, sep + 1)?,
            ")" => {
                k = sep;
                break;
            }
            _ => return None,
        }
    }
    if ctor.is_some() {
        k = next_significant(toks, k + 1).filter(|&c| text(c) == ")")?;
    }
    let n = match ctor {
        Some(c) if c.contains("vec") => usize::from(c.as_bytes()[c.len() - 1] - b'0'),
        _ => 1,
    };
    if values.len() == 1 && n > 1 {
        values.resize(n, values[0]);
    }
    if values.len() != n {
        return None;
    }
    let signed = match ctor {
        Some(c) => c.starts_with('i'),
        None => !suffix_unsigned,
    };
    let results: Vec<String> = values
        .iter()
        .map(|&v| {
            let r: i64 = if msb {
                // Signed negative values: the highest 0 bit.
                let bits = if signed && (v as i32) < 0 { !v } else { v };
                if bits == 0 {
                    -1
                } else {
                    31 - i64::from(bits.leading_zeros())
                }
            } else if v == 0 {
                -1
            } else {
                i64::from(v.trailing_zeros())
            };
            r.to_string()
        })
        .collect();
    let folded = if n == 1 {
        format!("int({})", results[0])
    } else {
        format!("ivec{n}({})", results.join(", "))
    };
    Some((k, folded))
}

/// glslang does not constant-fold `findMSB` / `findLSB`, so a constant
/// expression using them (an array size, a `const` initializer) fails to
/// compile although GLSL 4.00 / GL_ARB_gpu_shader5 make them foldable.
/// Calls whose argument is made of integer literals are replaced by their
/// value (newlines inside a call are kept). A shader declaring a function
/// of that name (legal before 4.00) is left alone. None: nothing folded.
/// The array indices in the `out`/`inout` arguments of calls to the
/// source's own functions, evaluated once before the call: `f(i,
/// value[i])` becomes `(mgl_oi0 = int(i), f(i, value[mgl_oi0]))` with
/// `int mgl_oi0;` declared at the top of the enclosing function. GLSL
/// takes an output argument's lvalue (index included) before the call
/// (GLSL 1.30 section 6.1), while glslang re-evaluates the argument
/// expression when it writes a converted result back (`out int` to a
/// `float` element), so an index the call changed picked another element.
/// A constant index, or one spanning lines, is left alone; a call nested
/// in a rewritten one is not rewritten itself. None when nothing changes.
pub(crate) fn hoist_out_argument_indices(src: &str) -> Option<String> {
    use std::collections::HashMap;
    if !src.contains("out") || !src.contains('[') {
        return None;
    }
    let toks = code_tokens(src);
    let text = |i: usize| tok_text(src, &toks, i);
    // The matching closer of the opener at `open` (same kind), if any.
    let matching = |open: usize, o: &str, c: &str| {
        let mut depth = 0i32;
        for k in open..toks.len() {
            if text(k) == o {
                depth += 1;
            } else if text(k) == c {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
        }
        None
    };
    // Top-level comma-separated pieces of the list in (open, close).
    let split = |open: usize, close: usize| {
        let mut pieces = Vec::new();
        let mut depth = 0i32;
        let mut start = open + 1;
        for k in open + 1..close {
            match text(k) {
                "(" | "[" | "{" => depth += 1,
                ")" | "]" | "}" => depth -= 1,
                "," if depth == 0 => {
                    pieces.push((start, k));
                    start = k + 1;
                }
                _ => {}
            }
        }
        if start < close {
            pieces.push((start, close));
        }
        pieces
    };
    // Functions with output parameters: name -> parameter positions.
    let mut outs: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut depth = 0i32;
    for k in 0..toks.len() {
        match text(k) {
            "{" => depth += 1,
            "}" => depth -= 1,
            "(" if depth == 0
                && k >= 2
                && toks[k - 1].kind == Kind::Ident
                && (toks[k - 2].kind == Kind::Ident || text(k - 2) == "]") =>
            {
                let Some(close) = matching(k, "(", ")") else {
                    continue;
                };
                for (p, (a, b)) in split(k, close).into_iter().enumerate() {
                    if (a..b).any(|j| matches!(text(j), "out" | "inout")) {
                        outs.entry(text(k - 1)).or_default().push(p);
                    }
                }
            }
            _ => {}
        }
    }
    if outs.is_empty() {
        return None;
    }
    // (start, end, replacement) byte edits.
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let mut counter = 0usize;
    let mut body_open: Option<usize> = None;
    let mut body_decls = String::new();
    let mut depth = 0i32;
    let mut k = 0usize;
    while k < toks.len() {
        match text(k) {
            "{" => {
                if depth == 0 {
                    body_open = Some(k);
                }
                depth += 1;
            }
            "}" => {
                depth -= 1;
                if depth == 0 {
                    if let Some(open) = body_open.take() {
                        if !body_decls.is_empty() {
                            let at = toks[open].end;
                            edits.push((at, at, std::mem::take(&mut body_decls)));
                        }
                    }
                }
            }
            _ => {}
        }
        let call = depth >= 1
            && toks[k].kind == Kind::Ident
            && text(k + 1) == "("
            && k >= 1
            && (toks[k - 1].kind == Kind::Punct || text(k - 1) == "return");
        let positions = if call { outs.get(text(k)) } else { None };
        let Some((positions, close)) =
            positions.and_then(|p| matching(k + 1, "(", ")").map(|c| (p, c)))
        else {
            k += 1;
            continue;
        };
        let mut assigns = Vec::new();
        for (p, (a, b)) in split(k + 1, close).into_iter().enumerate() {
            if !positions.contains(&p) {
                continue;
            }
            let mut j = a;
            let mut nest = 0i32;
            while j < b {
                match text(j) {
                    "(" | "{" => nest += 1,
                    ")" | "}" => nest -= 1,
                    "[" if nest == 0 => {
                        let Some(end) = matching(j, "[", "]").filter(|&e| e < b) else {
                            break;
                        };
                        let inner = &src[toks[j].end..toks[end].start];
                        let constant = end == j + 2 && toks[j + 1].kind == Kind::Number;
                        if !constant && end > j + 1 && !inner.contains('\n') {
                            let name = format!("mgl_oi{counter}");
                            counter += 1;
                            assigns.push(format!("{name} = int({inner})"));
                            body_decls.push_str(&format!(" int {name};"));
                            edits.push((toks[j].end, toks[end].start, name));
                        }
                        j = end;
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        if !assigns.is_empty() {
            edits.push((
                toks[k].start,
                toks[k].start,
                format!("({}, ", assigns.join(", ")),
            ));
            edits.push((toks[close].end, toks[close].end, ")".to_owned()));
            k = close;
        }
        k += 1;
    }
    if edits.is_empty() {
        return None;
    }
    edits.sort_by_key(|e| (e.0, e.1));
    let mut out = String::with_capacity(src.len() + 64 * edits.len());
    let mut done = 0usize;
    for (start, end, rep) in edits {
        if start < done {
            return None;
        }
        out.push_str(&src[done..start]);
        out.push_str(&rep);
        done = end;
    }
    out.push_str(&src[done..]);
    Some(out)
}

fn fold_bit_queries(src: &str) -> Option<String> {
    if !src.contains("findMSB") && !src.contains("findLSB") {
        return None;
    }
    replace_calls(src, &["findMSB", "findLSB"], |src, toks, i| {
        let msb = &src[toks[i].start..toks[i].end] == "findMSB";
        fold_bit_query(src, toks, i, msb)
    })
}

/// One pass over `src` replacing the calls of built-ins `names` that
/// `fold(src, tokens, i)` evaluates (the call at token `i`: the index of
/// its closing `)` and the replacement text); each replaced call keeps
/// the newlines it spanned, so line numbers in logs stay right. None:
/// nothing replaced, or the shader declares a function of one of those
/// names (then it is the application's, not the built-in).
fn replace_calls(
    src: &str,
    names: &[&str],
    fold: impl Fn(&str, &[Tok], usize) -> Option<(usize, String)>,
) -> Option<String> {
    let toks = lex(src);
    let text = |k: usize| &src[toks[k].start..toks[k].end];
    let is_call = |k: usize| toks[k].kind == Kind::Ident && names.contains(&text(k));
    let declared = (0..toks.len()).any(|k| {
        is_call(k)
            && prev_significant(&toks, k)
                .is_some_and(|p| toks[p].kind == Kind::Ident && text(p) != "return")
    });
    if declared {
        return None;
    }
    let mut out = String::with_capacity(src.len());
    let mut copied = 0usize;
    let mut i = 0usize;
    while i < toks.len() {
        if is_call(i) {
            if let Some((close, folded)) = fold(src, &toks, i) {
                out.push_str(&src[copied..toks[i].start]);
                out.push_str(&folded);
                let end = toks[close].end;
                for _ in 0..src[toks[i].start..end].matches('\n').count() {
                    out.push('\n');
                }
                copied = end;
                i = close + 1;
                continue;
            }
        }
        i += 1;
    }
    if copied == 0 {
        return None;
    }
    out.push_str(&src[copied..]);
    Some(out)
}

/// A constant argument of a built-in call [`fold_constant_calls`] folds:
/// the components of an integer or floating-point literal or of a
/// constructor of literals.
#[derive(Debug, Clone, PartialEq)]
enum ConstValue {
    /// Bit patterns; true: signed (`int`, `ivecN`).
    Int(Vec<u32>, bool),
    /// Values; true: double precision (`double`, `dvecN`).
    Float(Vec<f64>, bool),
}

impl ConstValue {
    fn len(&self) -> usize {
        match self {
            ConstValue::Int(v, _) => v.len(),
            ConstValue::Float(v, _) => v.len(),
        }
    }

    /// GLSL text of the value (None for a non-finite float).
    fn glsl(&self) -> Option<String> {
        let n = self.len();
        let (ty, parts): (&str, Vec<String>) = match self {
            ConstValue::Int(v, true) => {
                ("int", v.iter().map(|&x| (x as i32).to_string()).collect())
            }
            ConstValue::Int(v, false) => ("uint", v.iter().map(|x| format!("{x}u")).collect()),
            ConstValue::Float(v, double) => {
                if v.iter().any(|x| !x.is_finite()) {
                    return None;
                }
                let parts = v
                    .iter()
                    .map(|&x| {
                        if *double {
                            format!("{x:?}lf")
                        } else {
                            format!("{:?}", x as f32)
                        }
                    })
                    .collect();
                (if *double { "double" } else { "float" }, parts)
            }
        };
        let ty = if n == 1 {
            ty.to_owned()
        } else {
            let prefix = match ty {
                "int" => "i",
                "uint" => "u",
                "double" => "d",
                _ => "",
            };
            format!("{prefix}vec{n}")
        };
        Some(format!("{ty}({})", parts.join(", ")))
    }
}

/// One literal (optionally negated) at token `at`: the value and the
/// index of its last token.
fn const_scalar(src: &str, toks: &[Tok], at: usize) -> Option<(ConstValue, usize)> {
    let text = |k: usize| &src[toks[k].start..toks[k].end];
    let mut k = at;
    let negative = text(k) == "-";
    if negative {
        k = next_significant(toks, k + 1)?;
    }
    if toks[k].kind != Kind::Number {
        return None;
    }
    let t = text(k);
    let hex = t.starts_with("0x") || t.starts_with("0X");
    // The lexer ends a number before an exponent's sign (`1.5e-3` is
    // `1.5e`, `-`, `3`): the three adjacent tokens are one literal.
    let (t, k) = if !hex
        && t.ends_with(['e', 'E'])
        && toks.get(k + 2).is_some_and(|n| {
            n.kind == Kind::Number
                && toks[k + 1].start == toks[k].end
                && n.start == toks[k + 1].end
                && matches!(text(k + 1), "-" | "+")
        }) {
        (&src[toks[k].start..toks[k + 2].end], k + 2)
    } else {
        (t, k)
    };
    let is_float = !hex && (t.contains(['.', 'e', 'E']) || t.ends_with(['f', 'F']));
    if is_float {
        let double = t.ends_with("lf") || t.ends_with("LF");
        let digits = t.trim_end_matches(['l', 'L', 'f', 'F']);
        let v: f64 = digits.parse().ok()?;
        return Some((
            ConstValue::Float(vec![if negative { -v } else { v }], double),
            k,
        ));
    }
    let (v, unsigned, last) = int_literal(src, toks, at)?;
    Some((ConstValue::Int(vec![v], !unsigned), last))
}

/// A constant argument at token `at` (see [`ConstValue`]): the value and
/// the index of its last token.
fn const_arg(src: &str, toks: &[Tok], at: usize) -> Option<(ConstValue, usize)> {
    let text = |k: usize| &src[toks[k].start..toks[k].end];
    let ctor = text(at);
    let (n, kind) = match ctor {
        "int" | "uint" | "float" | "double" => (1, ctor),
        _ => {
            let (prefix, n) = ctor.split_once("vec")?;
            let n: usize = n.parse().ok().filter(|n| (2..=4).contains(n))?;
            let kind = match prefix {
                "i" => "int",
                "u" => "uint",
                "" => "float",
                "d" => "double",
                _ => return None,
            };
            (n, kind)
        }
    };
    let (mut parts, k) = const_list(src, toks, at, const_scalar)?;
    if parts.len() == 1 && n > 1 {
        parts.resize(n, parts[0].clone());
    }
    if parts.len() != n {
        return None;
    }
    // Conversions between the literal and the constructor's type (only
    // the exact ones: integers to floats below 2^24, floats to integers
    // without a fraction are left to glslang).
    let value = match kind {
        "int" | "uint" => {
            let bits = parts
                .iter()
                .map(|p| match p {
                    ConstValue::Int(v, _) => Some(v[0]),
                    ConstValue::Float(..) => None,
                })
                .collect::<Option<Vec<u32>>>()?;
            ConstValue::Int(bits, kind == "int")
        }
        _ => {
            let vals = parts
                .iter()
                .map(|p| match p {
                    ConstValue::Float(v, _) => Some(v[0]),
                    ConstValue::Int(..) => None,
                })
                .collect::<Option<Vec<f64>>>()?;
            ConstValue::Float(vals, kind == "double")
        }
    };
    Some((value, k))
}

/// The value of built-in `name` applied to constant `args` (None: not a
/// call folded here, or not foldable).
fn eval_builtin(name: &str, args: &[ConstValue]) -> Option<ConstValue> {
    use ConstValue::{Float, Int};
    let width = |v: &[u32], i: usize| v.get(i).or(v.first()).copied();
    match (name, args) {
        ("fma", [Float(a, d), Float(b, _), Float(c, _)])
            if a.len() == b.len() && a.len() == c.len() =>
        {
            let r = a
                .iter()
                .zip(b)
                .zip(c)
                .map(|((&a, &b), &c)| {
                    if *d {
                        a.mul_add(b, c)
                    } else {
                        f64::from((a as f32).mul_add(b as f32, c as f32))
                    }
                })
                .collect();
            Some(Float(r, *d))
        }
        ("ldexp", [Float(x, d), Int(e, true)]) if e.len() == x.len() => {
            let r = x
                .iter()
                .zip(e)
                .map(|(&x, &e)| {
                    let e = e as i32;
                    if *d {
                        x * 2f64.powi(e)
                    } else {
                        // Exact in f64, then rounded once; a denormal
                        // result is flushed to zero (as drivers fold it).
                        let r = (f64::from(x as f32) * 2f64.powi(e)) as f32;
                        f64::from(if r.is_subnormal() {
                            0.0f32.copysign(r)
                        } else {
                            r
                        })
                    }
                })
                .collect();
            Some(Float(r, *d))
        }
        ("floatBitsToInt" | "floatBitsToUint", [Float(x, false)]) => Some(Int(
            x.iter().map(|&v| (v as f32).to_bits()).collect(),
            name == "floatBitsToInt",
        )),
        ("intBitsToFloat", [Int(x, true)]) | ("uintBitsToFloat", [Int(x, false)]) => Some(Float(
            x.iter().map(|&v| f64::from(f32::from_bits(v))).collect(),
            false,
        )),
        ("bitCount", [Int(x, _)]) => Some(Int(x.iter().map(|v| v.count_ones()).collect(), true)),
        ("bitfieldReverse", [Int(x, s)]) => {
            Some(Int(x.iter().map(|v| v.reverse_bits()).collect(), *s))
        }
        ("bitfieldExtract", [Int(x, s), Int(off, _), Int(bits, _)])
            if off.len() == 1 && bits.len() == 1 =>
        {
            let (off, bits) = (off[0], bits[0]);
            if off > 32 || bits > 32 || off + bits > 32 {
                return None;
            }
            let r = x
                .iter()
                .map(|&v| {
                    if bits == 0 {
                        return 0;
                    }
                    let field = (u64::from(v) >> off) & ((1u64 << bits) - 1);
                    let field = field as u32;
                    if *s && bits < 32 && field & (1 << (bits - 1)) != 0 {
                        field | (u32::MAX << bits)
                    } else {
                        field
                    }
                })
                .collect();
            Some(Int(r, *s))
        }
        ("bitfieldInsert", [Int(base, s), Int(ins, _), Int(off, _), Int(bits, _)])
            if base.len() == ins.len() && off.len() == 1 && bits.len() == 1 =>
        {
            let (off, bits) = (off[0], bits[0]);
            if off > 32 || bits > 32 || off + bits > 32 {
                return None;
            }
            let mask = (((1u64 << bits) - 1) << off) as u32;
            let r = base
                .iter()
                .enumerate()
                .map(|(i, &b)| {
                    let v = width(ins, i).unwrap_or(0);
                    (b & !mask) | ((v << off.min(31)) & mask)
                })
                .collect();
            Some(Int(r, *s))
        }
        _ => None,
    }
}

/// Built-ins glslang does not constant-fold although GLSL 4.00 /
/// GL_ARB_gpu_shader5 make them constant expressions.
const FOLDED_CALLS: [&str; 10] = [
    "fma",
    "ldexp",
    "floatBitsToInt",
    "floatBitsToUint",
    "intBitsToFloat",
    "uintBitsToFloat",
    "bitCount",
    "bitfieldReverse",
    "bitfieldExtract",
    "bitfieldInsert",
];

/// Like [`fold_bit_queries`] for [`FOLDED_CALLS`]: a call whose arguments
/// are all literals or constructors of literals is replaced by its value
/// (repeated, so nested calls fold from the inside), where a constant
/// expression needs it (an array size, a `const` initializer); run-time
/// uses get the same value the driver would compute. A shader declaring
/// a function of one of those names is left alone. None: nothing folded.
fn fold_constant_calls(src: &str) -> Option<String> {
    if !FOLDED_CALLS.iter().any(|n| src.contains(n)) {
        return None;
    }
    let mut cur: Option<String> = None;
    for _ in 0..8 {
        match replace_calls(cur.as_deref().unwrap_or(src), &FOLDED_CALLS, fold_call) {
            Some(next) => cur = Some(next),
            None => break,
        }
    }
    cur
}

/// The parenthesised, comma-separated constants after the name at token
/// `at` (a call or a constructor), each read by `item` (its value and its
/// last token): the values and the index of the closing `)`.
fn const_list(
    src: &str,
    toks: &[Tok],
    at: usize,
    item: impl Fn(&str, &[Tok], usize) -> Option<(ConstValue, usize)>,
) -> Option<(Vec<ConstValue>, usize)> {
    let text = |k: usize| &src[toks[k].start..toks[k].end];
    let open = next_significant(toks, at + 1).filter(|&k| text(k) == "(")?;
    let mut k = next_significant(toks, open + 1)?;
    let mut values = Vec::new();
    loop {
        let (v, last) = item(src, toks, k)?;
        values.push(v);
        let sep = next_significant(toks, last + 1)?;
        match text(sep) {
            "," => k = next_significant(toks, sep + 1)?,
            ")" => return Some((values, sep)),
            _ => return None,
        }
    }
}

/// The call at token `i` with constant arguments: the index of its
/// closing `)` and its value as GLSL text.
fn fold_call(src: &str, toks: &[Tok], i: usize) -> Option<(usize, String)> {
    let text = |k: usize| &src[toks[k].start..toks[k].end];
    let (args, k) = const_list(src, toks, i, |src, toks, k| {
        const_arg(src, toks, k).or_else(|| const_scalar(src, toks, k))
    })?;
    let value = eval_builtin(text(i), &args)?;
    Some((k, value.glsl()?))
}

/// Implicitly sized arrays declared in `src` (`T name[];` at global or
/// function scope, not a block member) and the size their constant
/// indices give them in this unit (the largest index plus one; 0 when
/// none is indexed with a literal).
pub(crate) fn implicit_array_sizes(src: &str) -> Vec<(String, u32)> {
    let toks = code_tokens(src);
    let text = |k: usize| tok_text(src, &toks, k);
    let mut opens: Vec<usize> = Vec::new();
    let mut found: Vec<(String, u32)> = Vec::new();
    for k in 0..toks.len() {
        match text(k) {
            "{" => opens.push(k),
            "}" => {
                opens.pop();
            }
            _ => {}
        }
        let declared = toks[k].kind == Kind::Ident
            && k > 0
            && toks[k - 1].kind == Kind::Ident
            && text(k + 1) == "["
            && text(k + 2) == "]"
            && text(k + 3) == ";";
        // A block's or structure's member (its `{` follows a name) is not
        // an implicitly sized array of this kind.
        let in_block = opens.last().is_some_and(|&o| {
            o > 0 && toks[o - 1].kind == Kind::Ident && !matches!(text(o - 1), "else" | "do")
        });
        // Interface arrays (`in vec3 pos[];` of a geometry shader, the
        // per-vertex arrays of the tessellation stages) take their size
        // from the primitive or patch, which glslang knows: not sized here.
        let interface = declared && {
            let mut j = k;
            let mut qualified = false;
            while j > 0 && !matches!(text(j - 1), ";" | "{" | "}") {
                j -= 1;
                qualified |= matches!(
                    text(j),
                    "in" | "out" | "inout" | "varying" | "attribute" | "patch"
                );
            }
            qualified
        };
        if declared && !in_block && !interface && !found.iter().any(|(n, _)| n == text(k)) {
            found.push((text(k).to_owned(), 0));
        }
    }
    for (name, size) in found.iter_mut() {
        for k in 0..toks.len() {
            if text(k) == name.as_str() && text(k + 1) == "[" && text(k + 3) == "]" {
                if let Some(i) = parse_int(text(k + 2)) {
                    *size = (*size).max(i.saturating_add(1));
                }
            }
        }
    }
    found
}

/// glslang refuses `.length()` on an implicitly sized array (GLSL 4.30
/// §4.1.9 makes it the size the whole stage's constant indices give it,
/// known at link). Each such array whose length this unit asks for gets
/// that size written into its declaration: from `link_sizes` (all the
/// stage's shaders, at link) or this unit's own indices (at compile, where
/// a unit without any gets 1 so that it compiles; the link sizes it).
fn size_implicit_arrays(src: &str, link_sizes: &[(String, u32)]) -> Option<String> {
    if !src.contains("length") || !src.contains("[]") {
        return None;
    }
    let local = implicit_array_sizes(src);
    let toks = lex(src);
    let code: Vec<usize> = (0..toks.len())
        .filter(|&k| !matches!(toks[k].kind, Kind::Space | Kind::Comment | Kind::Directive))
        .collect();
    let text = |j: usize| {
        code.get(j)
            .map_or("", |&k| &src[toks[k].start..toks[k].end])
    };
    let asks = |name: &str| {
        (0..code.len()).any(|j| {
            text(j) == name && text(j + 1) == "." && text(j + 2) == "length" && text(j + 3) == "("
        })
    };
    let mut edits: Vec<(usize, String)> = Vec::new();
    for (name, size) in &local {
        if !asks(name) {
            continue;
        }
        let linked = link_sizes
            .iter()
            .find(|(n, _)| n == name)
            .map_or(0, |(_, s)| *s);
        let n = linked.max(*size).max(1);
        for j in 1..code.len() {
            if text(j) == name.as_str()
                && text(j + 1) == "["
                && text(j + 2) == "]"
                && text(j + 3) == ";"
            {
                // After the `[`.
                edits.push((toks[code[j + 1]].end, n.to_string()));
            }
        }
    }
    if edits.is_empty() {
        return None;
    }
    edits.sort_by_key(|(at, _)| *at);
    let mut out = String::with_capacity(src.len() + 8 * edits.len());
    let mut copied = 0;
    for (at, text) in edits {
        out.push_str(&src[copied..at]);
        out.push_str(&text);
        copied = at;
    }
    out.push_str(&src[copied..]);
    Some(out)
}

/// `uniform T name[] = T[](a, b, c);`: the array's size is the
/// initializer's, but glslang ignores uniform initializers and leaves the
/// array unsized (then refuses dynamic indexing); the size is written into
/// the declarator (`name[3]`). Initializers themselves are evaluated at
/// link (`initializers`).
fn size_initialized_uniform_arrays(src: &str) -> Option<String> {
    if !src.contains("uniform") || !src.contains("[]") {
        return None;
    }
    let toks = lex(src);
    let text = |i: usize| &src[toks[i].start..toks[i].end];
    let sig: Vec<usize> = (0..toks.len())
        .filter(|&i| !matches!(toks[i].kind, Kind::Space | Kind::Comment | Kind::Directive))
        .collect();
    let mut inserts: Vec<(usize, usize)> = Vec::new();
    let (mut depth, mut statement_start) = (0i32, 0usize);
    for k in 0..sig.len() {
        match text(sig[k]) {
            "{" => depth += 1,
            "}" => depth -= 1,
            _ => {}
        }
        if matches!(text(sig[k]), ";" | "{" | "}") {
            statement_start = k + 1;
            continue;
        }
        // NAME [ ] = at file scope in a `uniform` declaration.
        let at = |d: usize| sig.get(k + d).map(|&i| text(i));
        if depth != 0
            || toks[sig[k]].kind != Kind::Ident
            || at(1) != Some("[")
            || at(2) != Some("]")
            || at(3) != Some("=")
            || !sig[statement_start..k]
                .iter()
                .any(|&i| text(i) == "uniform")
        {
            continue;
        }
        // The constructor: TYPE [ N? ] ( args ).
        let mut j = k + 4;
        if sig.get(j).is_none_or(|&i| toks[i].kind != Kind::Ident) || at(5) != Some("[") {
            continue;
        }
        j += 2;
        let explicit = sig.get(j).and_then(|&i| text(i).parse::<u32>().ok());
        if explicit.is_some() {
            j += 1;
        }
        if sig.get(j).map(|&i| text(i)) != Some("]")
            || sig.get(j + 1).map(|&i| text(i)) != Some("(")
        {
            continue;
        }
        let mut count = explicit;
        if count.is_none() {
            let (mut nest, mut args, mut any) = (0i32, 1u32, false);
            for &i in &sig[j + 1..] {
                match text(i) {
                    "(" | "[" | "{" => nest += 1,
                    ")" | "]" | "}" => {
                        nest -= 1;
                        if nest == 0 {
                            break;
                        }
                    }
                    "," if nest == 1 => args += 1,
                    _ if nest >= 1 => any = true,
                    _ => {}
                }
            }
            count = any.then_some(args);
        }
        if let Some(n) = count {
            inserts.push((toks[sig[k + 1]].end, n as usize));
        }
    }
    if inserts.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(src.len() + 8 * inserts.len());
    let mut copied = 0;
    for (at, n) in inserts {
        out.push_str(&src[copied..at]);
        out.push_str(&n.to_string());
        copied = at;
    }
    out.push_str(&src[copied..]);
    Some(out)
}

/// glProvokingVertex(GL_FIRST_VERTEX_CONVENTION) for a geometry shader's
/// output strips, on drivers that provoke with the last vertex: each
/// `EmitVertex()` of a strip writes the `flat` outputs the vertex one
/// (lines) or two (triangles) places back had, which makes the last
/// vertex of every primitive carry its first vertex's flat values. The
/// calls become `mgl_EmitVertex()` / `mgl_EndPrimitive()`, declared before
/// the first declaration and defined at the end (line numbers kept). None
/// when nothing changes: point output, no `flat` output, vertex streams,
/// or a declaration this does not take apart.
fn first_vertex_provokes(src: &str) -> Option<String> {
    let toks = lex(src);
    let text = |i: usize| &src[toks[i].start..toks[i].end];
    let has = |name: &str| {
        toks.iter()
            .any(|t| t.kind == Kind::Ident && &src[t.start..t.end] == name)
    };
    let back = if has("triangle_strip") {
        2
    } else if has("line_strip") {
        1
    } else {
        return None;
    };
    if !has("EmitVertex") || has("EmitStreamVertex") || has("mgl_EmitVertex") {
        return None;
    }
    let sig: Vec<usize> = (0..toks.len())
        .filter(|&i| !matches!(toks[i].kind, Kind::Space | Kind::Comment | Kind::Directive))
        .collect();
    // (type, name, array suffix) of each top-level `flat out` variable.
    let mut flat: Vec<(String, String, String)> = Vec::new();
    let mut first_statement: Option<usize> = None;
    let (mut depth, mut start) = (0i32, 0usize);
    for k in 0..sig.len() {
        let t = text(sig[k]);
        match t {
            "{" => depth += 1,
            "}" => depth -= 1,
            _ => {}
        }
        if depth != 0 || !matches!(t, ";" | "}") {
            continue;
        }
        let stmt: Vec<&str> = sig[start..k].iter().map(|&i| text(i)).collect();
        let stmt_start = start;
        start = k + 1;
        first_statement.get_or_insert(stmt_start);
        if t != ";" || !stmt.contains(&"flat") || !stmt.contains(&"out") {
            continue;
        }
        if stmt.contains(&"{") {
            return None; // an output block with flat members
        }
        // Qualifiers (layout(...) skipped), the type, then declarators.
        let mut j = 0;
        while j < stmt.len() {
            match stmt[j] {
                "layout" => {
                    let close = stmt[j..].iter().position(|&s| s == ")")?;
                    j += close + 1;
                }
                "flat" | "out" | "centroid" | "sample" | "invariant" | "precise" | "highp"
                | "mediump" | "lowp" => j += 1,
                _ => break,
            }
        }
        let ty = *stmt.get(j)?;
        if stmt.get(j + 1) == Some(&"[") {
            return None; // `vec4[2] name`
        }
        j += 1;
        while j < stmt.len() {
            let name = stmt[j];
            if !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
                return None;
            }
            j += 1;
            let mut suffix = String::new();
            while stmt.get(j) == Some(&"[") {
                let close = j + stmt[j..].iter().position(|&s| s == "]")?;
                suffix.push_str(&stmt[j..=close].concat());
                j = close + 1;
            }
            flat.push((ty.to_owned(), name.to_owned(), suffix));
            match stmt.get(j) {
                Some(&",") => j += 1,
                None => {}
                _ => return None,
            }
        }
    }
    if flat.is_empty() {
        return None;
    }
    let insert_at = toks[sig[first_statement?]].start;
    let mut out = String::with_capacity(src.len() + 512);
    out.push_str(&src[..insert_at]);
    out.push_str("void mgl_EmitVertex(); void mgl_EndPrimitive(); ");
    let mut copied = insert_at;
    for (i, tok) in toks.iter().enumerate() {
        if tok.start < insert_at || tok.kind != Kind::Ident {
            continue;
        }
        let to = match text(i) {
            "EmitVertex" => "mgl_EmitVertex",
            "EndPrimitive" => "mgl_EndPrimitive",
            _ => continue,
        };
        out.push_str(&src[copied..tok.start]);
        out.push_str(to);
        copied = tok.end;
    }
    out.push_str(&src[copied..]);
    out.push_str("\nint mgl_pv_count = 0;\n");
    let (mut keep, mut put, mut shift) = (String::new(), String::new(), String::new());
    for (ty, name, suffix) in &flat {
        for d in 1..=back {
            out.push_str(&format!("{ty} mgl_pv{d}_{name}{suffix};\n"));
        }
        keep.push_str(&format!(" {ty} mgl_cur_{name}{suffix} = {name};"));
        put.push_str(&format!(" {name} = mgl_pv{back}_{name};"));
        if back == 2 {
            shift.push_str(&format!(" mgl_pv2_{name} = mgl_pv1_{name};"));
        }
        shift.push_str(&format!(" mgl_pv1_{name} = mgl_cur_{name};"));
    }
    out.push_str(&format!(
        "void mgl_EmitVertex() {{{keep} if (mgl_pv_count >= {back}) {{{put} }} EmitVertex();{shift} mgl_pv_count += 1; }}\n"
    ));
    out.push_str("void mgl_EndPrimitive() { EndPrimitive(); mgl_pv_count = 0; }\n");
    Some(out)
}

/// A structure defined inside an interface block (`uniform B { struct
/// { vec2 pos; } info[4]; };`, which desktop GLSL and Mesa take but
/// glslang refuses: "cannot nest a structure definition"): the definition
/// moves in front of the block's declaration, named `mgl_block_struct<n>`
/// when it had no name, and the member keeps only the type name. The moved
/// text is joined onto one line so later line numbers do not change.
fn hoist_block_struct_definitions(src: &str) -> Option<String> {
    if !src.contains("struct") {
        return None;
    }
    let toks = lex(src);
    if toks
        .iter()
        .any(|t| t.kind == Kind::Directive && src[t.start..t.end].contains("struct"))
    {
        return None;
    }
    let text = |i: usize| &src[toks[i].start..toks[i].end];
    let sig: Vec<usize> = (0..toks.len())
        .filter(|&i| !matches!(toks[i].kind, Kind::Space | Kind::Comment | Kind::Directive))
        .collect();
    // (byte offset, text to insert) and (byte range, replacement).
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let mut anonymous = 0u32;
    let (mut depth, mut statement_start) = (0i32, 0usize);
    let mut block: Option<usize> = None; // byte offset where the block's declaration starts
    let mut k = 0usize;
    while k < sig.len() {
        let t = text(sig[k]);
        if depth == 0 && t == "{" {
            // A block: `... uniform|buffer|in|out NAME {` (not `struct NAME {`,
            // not a function body, which follows `)`).
            let before = &sig[statement_start..k];
            let is_block = k >= 1
                && toks[sig[k - 1]].kind == Kind::Ident
                && (k < 2 || text(sig[k - 2]) != "struct")
                && before
                    .iter()
                    .any(|&i| matches!(text(i), "uniform" | "buffer" | "in" | "out"));
            block = is_block.then(|| toks[sig[statement_start]].start);
        }
        match t {
            "{" => depth += 1,
            "}" => {
                depth -= 1;
                if depth == 0 {
                    block = None;
                }
            }
            _ => {}
        }
        if depth == 0 && matches!(t, ";" | "{" | "}") {
            statement_start = k + 1;
        }
        // `struct [NAME] {` directly inside a block.
        if let (Some(insert_at), 1, "struct") = (block, depth, t) {
            let named = sig.get(k + 1).is_some_and(|&i| toks[i].kind == Kind::Ident);
            let open = if named { k + 2 } else { k + 1 };
            if sig.get(open).map(|&i| text(i)) != Some("{") {
                k += 1;
                continue;
            }
            let mut nest = 0i32;
            let mut close = None;
            for (m, &i) in sig.iter().enumerate().skip(open) {
                match text(i) {
                    "{" => nest += 1,
                    "}" => {
                        nest -= 1;
                        if nest == 0 {
                            close = Some(m);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let close = close?;
            let name = if named {
                text(sig[k + 1]).to_owned()
            } else {
                anonymous += 1;
                format!("mgl_block_struct{anonymous}")
            };
            // The definition on one line: every token of the body, spaces
            // and comments as one space.
            let mut def = format!("struct {name} ");
            for tok in &toks[sig[open]..=sig[close]] {
                if matches!(tok.kind, Kind::Space | Kind::Comment) {
                    if !def.ends_with(' ') {
                        def.push(' ');
                    }
                } else {
                    def.push_str(&src[tok.start..tok.end]);
                }
            }
            def.push_str("; ");
            edits.push((insert_at, insert_at, def));
            // In the block: the type name, then the line breaks the
            // definition had.
            let (from, to) = (toks[sig[k]].start, toks[sig[close]].end);
            let breaks = src[from..to].matches('\n').count();
            edits.push((from, to, format!("{name}{}", "\n".repeat(breaks))));
            k = close + 1;
            continue;
        }
        k += 1;
    }
    if edits.is_empty() {
        return None;
    }
    // Inserts at one offset keep their order; ranges never overlap.
    edits.sort_by_key(|e| e.0);
    let mut out = String::with_capacity(src.len() + 64);
    let mut copied = 0;
    for (from, to, with) in edits {
        out.push_str(&src[copied..from]);
        out.push_str(&with);
        copied = to;
    }
    out.push_str(&src[copied..]);
    Some(out)
}

/// GLSL 1.10/1.20 built-in functions a shader may redefine (1.30 made
/// that an error). The texture lookups are left out: the pre-pass lowers
/// them before glslang sees them.
fn is_redefinable_builtin(name: &str) -> bool {
    matches!(
        name,
        "radians"
            | "degrees"
            | "sin"
            | "cos"
            | "tan"
            | "asin"
            | "acos"
            | "atan"
            | "pow"
            | "exp"
            | "log"
            | "exp2"
            | "log2"
            | "sqrt"
            | "inversesqrt"
            | "abs"
            | "sign"
            | "floor"
            | "ceil"
            | "fract"
            | "mod"
            | "min"
            | "max"
            | "clamp"
            | "mix"
            | "step"
            | "smoothstep"
            | "length"
            | "distance"
            | "dot"
            | "cross"
            | "normalize"
            | "faceforward"
            | "reflect"
            | "refract"
            | "matrixCompMult"
            | "outerProduct"
            | "transpose"
            | "lessThan"
            | "lessThanEqual"
            | "greaterThan"
            | "greaterThanEqual"
            | "equal"
            | "notEqual"
            | "any"
            | "all"
            | "not"
            | "dFdx"
            | "dFdy"
            | "fwidth"
            | "noise1"
            | "noise2"
            | "noise3"
            | "noise4"
    )
}

/// For GLSL < 1.30: where each redefined built-in function is first
/// declared at global scope (`vec4 abs(vec4 v)`). GLSL 1.10 §6.1: a call
/// that sees the user's prototype resolves among the user's functions, an
/// earlier call still reaches the built-in; from that token on the name
/// is renamed (in every shader of the stage that declares it, so a
/// prototype in one and the body in another still meet).
fn redefined_builtins(src: &str, toks: &[Tok]) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    let mut depth = 0i32;
    for (i, t) in toks.iter().enumerate() {
        let text = &src[t.start..t.end];
        match (t.kind, text) {
            (Kind::Punct, "{") => depth += 1,
            (Kind::Punct, "}") => depth -= 1,
            (Kind::Ident, name) if depth == 0 && is_redefinable_builtin(name) => {
                let next = next_significant(toks, i + 1).map(|j| &src[toks[j].start..toks[j].end]);
                let prev = prev_significant(toks, i).map(|j| toks[j].kind);
                if next == Some("(")
                    && prev == Some(Kind::Ident)
                    && !out.iter().any(|(n, _)| n == name)
                {
                    out.push((name.to_owned(), i));
                }
            }
            _ => {}
        }
    }
    out
}

/// Identifiers free in GLSL 1.10/1.20 that are built-ins/keywords in 1.40.
fn is_reserved_in_140(name: &str) -> bool {
    matches!(
        name,
        "texture"
            | "textureProj"
            | "textureLod"
            | "textureProjLod"
            | "textureGrad"
            | "textureProjGrad"
            | "textureSize"
            | "textureOffset"
            | "texelFetch"
            | "texelFetchOffset"
            | "flat"
            | "smooth"
            | "noperspective"
            | "uint"
            | "uvec2"
            | "uvec3"
            | "uvec4"
            | "samplerBuffer"
            | "sampler1DArray"
            | "sampler2DArray"
            | "isampler2D"
            | "usampler2D"
            | "trunc"
            | "round"
            | "roundEven"
            | "isnan"
            | "isinf"
            | "sinh"
            | "cosh"
            | "tanh"
            | "asinh"
            | "acosh"
            | "atanh"
            | "modf"
            | "inverse"
            | "determinant"
            | "outerProduct"
            | "transpose"
            // Keywords of glslang's Vulkan mode (GL_KHR_vulkan_glsl).
            | "sampler"
            | "samplerShadow"
    )
}

/// `#extension EXT : ...` for extension `ext`.
fn is_extension_directive(text: &str, ext: &str) -> bool {
    text[1..]
        .trim_start()
        .strip_prefix("extension")
        .is_some_and(|rest| rest.trim_start().starts_with(ext))
}

/// `#extension GL_ARB_arrays_of_arrays : ...`.
fn is_arrays_of_arrays_directive(text: &str) -> bool {
    is_extension_directive(text, "GL_ARB_arrays_of_arrays")
}

/// The source names extension `ext` in an `#extension` directive.
fn names_extension(src: &str, toks: &[Tok], ext: &str) -> bool {
    toks.iter()
        .any(|t| t.kind == Kind::Directive && is_extension_directive(&src[t.start..t.end], ext))
}

struct Version {
    number: u32,
    profile: String,
    /// Index of the directive token, if the source had one.
    tok: Option<usize>,
}

fn parse_version(src: &str, toks: &[Tok]) -> Result<Version, String> {
    for (idx, t) in toks.iter().enumerate() {
        match t.kind {
            Kind::Space | Kind::Comment => continue,
            Kind::Directive => {
                let text = &src[t.start..t.end];
                let body = text[1..].trim_start();
                if let Some(rest) = body.strip_prefix("version") {
                    let mut parts = rest.split_whitespace();
                    let number = parts
                        .next()
                        .and_then(|n| n.parse::<u32>().ok())
                        .ok_or_else(|| {
                            format!("ERROR: 0:{}: '#version' : bad version number\n", t.line)
                        })?;
                    let profile = parts.next().unwrap_or("").to_owned();
                    return Ok(Version {
                        number,
                        profile,
                        tok: Some(idx),
                    });
                }
                // Other directives may precede #version only in broken
                // shaders; treat as "no #version".
                break;
            }
            _ => break,
        }
    }
    Ok(Version {
        number: 110,
        profile: String::new(),
        tok: None,
    })
}

fn prev_significant(toks: &[Tok], i: usize) -> Option<usize> {
    (0..i)
        .rev()
        .find(|&j| !matches!(toks[j].kind, Kind::Space | Kind::Comment))
}

/// The interpolation qualifier among the qualifiers before the type of the
/// declaration whose name is token `name_at` (`flat out vec4 gl_FrontColor`).
fn declaration_interpolation(src: &str, toks: &[Tok], name_at: usize) -> Option<String> {
    let mut j = prev_significant(toks, name_at)?; // the type
    while let Some(k) = prev_significant(toks, j) {
        let t = &src[toks[k].start..toks[k].end];
        match t {
            "flat" | "smooth" | "noperspective" => return Some(t.to_owned()),
            "in" | "out" | "varying" | "centroid" | "invariant" | "highp" | "mediump" | "lowp" => {
                j = k
            }
            _ => return None,
        }
    }
    None
}

/// `ftransform()`: the modelview-projection matrix times `gl_Vertex`, the
/// same expression Mesa lowers it to (so a shader computing
/// `gl_ModelViewProjectionMatrix * gl_Vertex` itself gets the same bits).
const FTRANSFORM_HELPER: &str =
    "vec4 mgl_ftransform() { return mgl_ModelViewProjectionMatrix * mgl_Vertex; }\n";

/// The size an implicitly sized built-in array `name` needs in `src`:
/// the highest constant index + 1, or `max` when an index is not a
/// constant below `max` or the array is used whole.
fn used_array_size(src: &str, toks: &[Tok], name: &str, max: u32) -> u32 {
    let text = |j: usize| &src[toks[j].start..toks[j].end];
    let mut size = 0u32;
    for (i, t) in toks.iter().enumerate() {
        if t.kind != Kind::Ident || text(i) != name {
            continue;
        }
        let index = next_significant(toks, i + 1)
            .filter(|&j| text(j) == "[")
            .and_then(|j| next_significant(toks, j + 1))
            .filter(|&k| toks[k].kind == Kind::Number)
            .filter(|&k| next_significant(toks, k + 1).is_some_and(|c| text(c) == "]"))
            .and_then(|k| text(k).trim_end_matches(['u', 'U']).parse::<u32>().ok());
        match index {
            Some(n) if n < max => size = size.max(n + 1),
            _ => return max,
        }
    }
    size.max(1)
}

fn next_significant(toks: &[Tok], mut i: usize) -> Option<usize> {
    while i < toks.len() {
        if !matches!(toks[i].kind, Kind::Space | Kind::Comment) {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// `gl_in [ ... ] . <compatibility varying>` starting at token `i` (a
/// geometry shader reading what the vertex shader wrote): the indices of
/// the `.` and of the member.
fn gl_in_compat_member(src: &str, toks: &[Tok], i: usize) -> Option<(usize, usize)> {
    let text = |k: usize| &src[toks[k].start..toks[k].end];
    if toks[i].kind != Kind::Ident || text(i) != "gl_in" {
        return None;
    }
    let open = next_significant(toks, i + 1).filter(|&k| text(k) == "[")?;
    let mut depth = 0u32;
    let mut close = None;
    for (k, t) in toks.iter().enumerate().skip(open) {
        if t.kind != Kind::Punct {
            continue;
        }
        match text(k) {
            "[" => depth += 1,
            "]" => {
                depth -= 1;
                if depth == 0 {
                    close = Some(k);
                    break;
                }
            }
            _ => {}
        }
    }
    let dot = next_significant(toks, close? + 1).filter(|&k| text(k) == ".")?;
    let member = next_significant(toks, dot + 1)
        .filter(|&k| toks[k].kind == Kind::Ident && COMPAT_OUTPUT_VARYINGS.contains(&text(k)))?;
    Some((dot, member))
}

/// Token ranges (inclusive) of the compatibility members of a redeclared
/// `gl_PerVertex` block (`out gl_PerVertex { vec4 gl_Position; vec4
/// gl_TexCoord[5]; };`): glslang's block has no such members, so they are
/// dropped from it and declared as the plain varyings they are emulated by.
fn per_vertex_compat_members(src: &str, toks: &[Tok]) -> Vec<(usize, usize)> {
    let text = |k: usize| &src[toks[k].start..toks[k].end];
    let mut ranges = Vec::new();
    for (k, t) in toks.iter().enumerate() {
        if t.kind != Kind::Ident || text(k) != "gl_PerVertex" {
            continue;
        }
        let Some(open) = next_significant(toks, k + 1).filter(|&j| text(j) == "{") else {
            continue;
        };
        let mut member_start = None;
        let mut compat = false;
        for (j, tok) in toks.iter().enumerate().skip(open + 1) {
            match tok.kind {
                Kind::Space | Kind::Comment => continue,
                Kind::Punct if text(j) == "}" => break,
                Kind::Punct if text(j) == ";" => {
                    if let (Some(start), true) = (member_start, compat) {
                        ranges.push((start, j));
                    }
                    member_start = None;
                    compat = false;
                }
                kind => {
                    member_start.get_or_insert(j);
                    compat |= kind == Kind::Ident && COMPAT_OUTPUT_VARYINGS.contains(&text(j));
                }
            }
        }
    }
    ranges
}

/// A geometry shader declaring `layout(points) out` (or `layout(points,
/// max_vertices = n) out`).
fn emits_points(src: &str, toks: &[Tok]) -> bool {
    let text = |k: usize| &src[toks[k].start..toks[k].end];
    (0..toks.len()).any(|k| {
        toks[k].kind == Kind::Ident && text(k) == "points" && {
            // The layout's closing parenthesis, then `out`.
            let close = (k..toks.len()).find(|&j| text(j) == ")");
            close
                .and_then(|c| next_significant(toks, c + 1))
                .is_some_and(|n| text(n) == "out")
        }
    })
}

/// Whether a geometry shader's output primitive is points: everything it
/// draws is a point, so its program takes its point size from
/// `glPointSize` like one whose fragment shader reads `gl_PointCoord`
/// (`LinkView::points_program`).
pub(crate) fn geometry_emits_points(src: &str) -> bool {
    src.contains("points") && emits_points(src, &lex(src))
}

/// Whether the source declares a global `out` variable (not an `out`
/// function parameter): a fragment shader with user outputs.
fn declares_global_out(src: &str, toks: &[Tok]) -> bool {
    let (mut braces, mut parens) = (0i32, 0i32);
    toks.iter().any(|t| {
        match (t.kind, &src[t.start..t.end]) {
            (Kind::Punct, "{") => braces += 1,
            (Kind::Punct, "}") => braces -= 1,
            (Kind::Punct, "(") => parens += 1,
            (Kind::Punct, ")") => parens -= 1,
            (Kind::Ident, "out" | "inout") => return braces == 0 && parens == 0,
            _ => {}
        }
        false
    })
}

/// The size in a redeclaration `vec4 <name>[N]`, if any.
fn redeclared_array_size(src: &str, toks: &[Tok], name: &str) -> Option<u32> {
    let text = |k: usize| &src[toks[k].start..toks[k].end];
    (0..toks.len()).find_map(|k| {
        if toks[k].kind != Kind::Ident
            || text(k) != name
            || prev_significant(toks, k).is_none_or(|p| text(p) != "vec4")
        {
            return None;
        }
        let open = next_significant(toks, k + 1).filter(|&j| text(j) == "[")?;
        let n = next_significant(toks, open + 1).filter(|&j| toks[j].kind == Kind::Number)?;
        text(n)
            .trim_end_matches(['u', 'U'])
            .parse()
            .ok()
            .filter(|&v| v > 0 && v <= 32)
    })
}

/// The closing `}` of a redeclared output `gl_PerVertex` block, if any.
fn out_per_vertex_close(src: &str, toks: &[Tok]) -> Option<usize> {
    let text = |k: usize| &src[toks[k].start..toks[k].end];
    let k = (0..toks.len()).find(|&k| {
        toks[k].kind == Kind::Ident
            && text(k) == "gl_PerVertex"
            && prev_significant(toks, k).is_some_and(|p| text(p) == "out")
            && next_significant(toks, k + 1).is_some_and(|n| text(n) == "{")
    })?;
    (k + 1..toks.len()).find(|&j| toks[j].kind == Kind::Punct && text(j) == "}")
}

/// What one shader does with the built-in `gl_PerVertex` blocks: the
/// facts ARB_separate_shader_objects' redeclaration rule needs
/// ([`check_separable_per_vertex`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct PerVertexUse {
    /// `#version` (110 without one).
    pub version: u32,
    /// Redeclares `out gl_PerVertex { ... }` / `in gl_PerVertex { ... }`.
    pub redeclares_out: bool,
    pub redeclares_in: bool,
    /// Names an output member of the block (`gl_Position`,
    /// `gl_PointSize`, `gl_ClipDistance`, `gl_CullDistance` outside a
    /// member selection, or `gl_out`).
    pub uses_out: bool,
    /// Names `gl_in`.
    pub uses_in: bool,
}

pub(crate) fn per_vertex_use(src: &str) -> PerVertexUse {
    let toks = lex(src);
    let version = parse_version(src, &toks).map_or(110, |v| v.number);
    let toks: Vec<Tok> = toks
        .into_iter()
        .filter(|t| !matches!(t.kind, Kind::Space | Kind::Comment | Kind::Directive))
        .collect();
    let text = |k: usize| tok_text(src, &toks, k);
    let mut u = PerVertexUse {
        version,
        ..Default::default()
    };
    for (k, t) in toks.iter().enumerate() {
        if t.kind != Kind::Ident {
            continue;
        }
        let after_dot = k > 0 && text(k - 1) == ".";
        match text(k) {
            "gl_PerVertex" if text(k + 1) == "{" => match k.checked_sub(1).map(text) {
                Some("out") => u.redeclares_out = true,
                Some("in") => u.redeclares_in = true,
                _ => {}
            },
            "gl_Position" | "gl_PointSize" | "gl_ClipDistance" | "gl_CullDistance"
                if !after_dot =>
            {
                u.uses_out = true
            }
            "gl_out" if !after_dot => u.uses_out = true,
            "gl_in" if !after_dot => u.uses_in = true,
            _ => {}
        }
    }
    u
}

/// ARB_separate_shader_objects (GL 4.6 §7.4): in a separable program,
/// shaders of GLSL 1.50 and later must redeclare `gl_PerVertex` before
/// using its members (1.40 and earlier have no interface blocks, issue
/// 28). Checked, as desktop linkers do, between each pair of consecutive
/// stages linked into the program: the producing stage using an output
/// member without redeclaring the output block, or the consuming stage
/// reading `gl_in[]` without redeclaring the input block while the
/// producer did not redeclare its output block, fails the link.
/// `shaders`: the stage and `PerVertexUse` of every attached shader.
pub(crate) fn check_separable_per_vertex(shaders: &[(Stage, PerVertexUse)]) -> Result<(), String> {
    if shaders.iter().map(|(_, u)| u.version).max().unwrap_or(0) < 150 {
        return Ok(());
    }
    let mut stages: Vec<Stage> = shaders.iter().map(|(s, _)| *s).collect();
    stages.sort_by_key(|s| s.index());
    stages.dedup();
    let of = |st: Stage| {
        shaders
            .iter()
            .filter(move |(s, _)| *s == st)
            .map(|(_, u)| u)
    };
    for pair in stages.windows(2) {
        let (producer, consumer) = (pair[0], pair[1]);
        let out_redeclared = of(producer).any(|u| u.redeclares_out);
        if !out_redeclared && of(producer).any(|u| u.uses_out) {
            return Err(format!(
                "ERROR: Linking: {producer:?} shader uses gl_PerVertex output members without redeclaring the block (required in a separable program)\n"
            ));
        }
        if !out_redeclared && of(consumer).any(|u| u.uses_in && !u.redeclares_in) {
            return Err(format!(
                "ERROR: Linking: {consumer:?} shader reads gl_in[] without redeclaring the gl_PerVertex input block (required in a separable program)\n"
            ));
        }
    }
    Ok(())
}

/// Runs the pre-pass on one shader's source (compiled alone). `Err` is an
/// info log.
pub(crate) fn prepass(stage: Stage, src: &str) -> Result<Prepassed, String> {
    prepass_linked(stage, src, &LinkView::default())
}

/// What a link knows about the other stages of a shader's program.
#[derive(Debug, Default)]
pub(crate) struct LinkView<'a> {
    /// A vertex shader linked with a geometry shader: its compatibility
    /// varyings take the names the geometry shader's `gl_in[]` reads.
    pub vs_feeds_gs: bool,
    /// The stage rasterisation follows (vertex without geometry, or
    /// geometry): it ends by writing `gl_PointSize` (`gl::points`).
    pub last_vertex_stage: bool,
    /// For the stage feeding the fragment shader: the fragment shader's
    /// compatibility varyings ([`Prepassed::fragment_reads`]), declared as
    /// outputs here even where this shader does not write them (GLES
    /// refuses a link whose fragment inputs have no output; the values are
    /// undefined, as in GL).
    pub fragment_reads: &'a [(String, String)],
    /// For a fragment shader: the colour varyings (`gl_BackColor` ...) the
    /// stage before it writes; None outside a link (all assumed written).
    pub previous_writes: Option<&'a [String]>,
    /// The program's fragment shader reads `gl_PointCoord`: only then does
    /// the last vertex stage take its point size from `glPointSize` (an
    /// extra uniform block for every program measurably slowed per-draw
    /// uniform-range binds on llvmpipe; giving it to programs that already
    /// have default-block uniforms made llvmpipe and lavapipe compile many
    /// more shader variants: docs/BENCHMARKS.md, twenty-first session).
    pub points_program: bool,
    /// The geometry-shader variant for glProvokingVertex(GL_FIRST_VERTEX_
    /// CONVENTION) (`first_vertex_provokes`).
    pub provoking_first: bool,
    /// The sizes of the stage's implicitly sized arrays (from every
    /// shader of the stage: [`implicit_array_sizes`]), for the units that
    /// call `.length()` on them (`size_implicit_arrays`).
    pub implicit_array_sizes: &'a [(String, u32)],
}

/// The hidden `vec4` uniform point state reaches programs through
/// (`gl::points`).
pub(crate) const POINTS: &str = "mgl_Points";

/// The hidden `float` uniform saying GL_VERTEX_PROGRAM_TWO_SIDE is on
/// (`gl::points`): a legacy fragment shader's `gl_Color` then reads the
/// back colour on back faces.
pub(crate) const TWO_SIDE: &str = "mgl_TwoSide";

/// The hidden `float` uniform a fragment shader's `gl_PrimitiveID` is
/// scaled by (`gl::points`): 1, or 0.5 while a quad or quad strip is
/// drawn as triangles (two per quad), 0 for a polygon drawn as a fan
/// (one primitive). Only without a geometry shader (which numbers its own
/// primitives).
pub(crate) const PRIMITIVE_ID_SCALE: &str = "mgl_PrimitiveIdScale";

/// Uniforms the pre-pass adds that glGetActiveUniform does not list.
pub(crate) fn is_hidden_uniform(name: &str) -> bool {
    name.starts_with(CLIP_PLANE) || name == POINTS || name == TWO_SIDE || name == PRIMITIVE_ID_SCALE
}

/// [`prepass`] for a link (see [`LinkView`]).
pub(crate) fn prepass_linked(
    stage: Stage,
    src: &str,
    link: &LinkView,
) -> Result<Prepassed, String> {
    let vs_feeds_gs = link.vs_feeds_gs;
    let fragment_reads = link.fragment_reads;
    if src.contains('\0') {
        return Err("ERROR: 0:0: '' : shader source contains a NUL character\n".to_owned());
    }
    let folded = fold_bit_queries(src);
    let src = folded.as_deref().unwrap_or(src);
    let calls_folded = fold_constant_calls(src);
    let src = calls_folded.as_deref().unwrap_or(src);
    let implicit_sized = size_implicit_arrays(src, link.implicit_array_sizes);
    let src = implicit_sized.as_deref().unwrap_or(src);
    let hoisted = hoist_out_argument_indices(src);
    let src = hoisted.as_deref().unwrap_or(src);
    let sized = size_initialized_uniform_arrays(src);
    let src = sized.as_deref().unwrap_or(src);
    let unnested = hoist_block_struct_definitions(src);
    let src = unnested.as_deref().unwrap_or(src);
    let (flattened, opaque_splits) = match opaque_structs::flatten_struct_sampler_arrays(src) {
        Some((s, splits)) => (Some(s), splits),
        None => (None, Vec::new()),
    };
    let src = flattened.as_deref().unwrap_or(src);
    let provoked = if link.provoking_first && stage == Stage::Geometry {
        first_vertex_provokes(src)
    } else {
        None
    };
    let src = provoked.as_deref().unwrap_or(src);
    let toks = lex(src);
    let version = parse_version(src, &toks)?;
    let es = version.profile == "es";
    let compat = version.profile == "compatibility";
    let legacy = if es {
        version.number < 300
    } else {
        version.number < 140 || compat
    };
    let rename_reserved = !es && version.number < 130;
    // ARB_texture_cube_map_array gives GLSL 1.10/1.20 the GLSL 1.30 lookup
    // names for its samplers: those stay built-ins there.
    let cube_array_lookups =
        rename_reserved && names_extension(src, &toks, "GL_ARB_texture_cube_map_array");
    // EXT_texture_array gives GLSL 1.10/1.20 the array sampler types and
    // texture{1,2}DArray[Lod]() (GLSL 1.30's texture[Lod]() on them).
    let ext_texture_array = rename_reserved && names_extension(src, &toks, "GL_EXT_texture_array");
    let redefined = if rename_reserved {
        redefined_builtins(src, &toks)
    } else {
        Vec::new()
    };
    // A compatibility geometry shader reading gl_in[i].gl_TexCoord[j]
    // reads an array of arrays (`mglv_TexCoord[i][j]`).
    let gs_reads_texcoords = legacy
        && stage == Stage::Geometry
        && (0..toks.len()).any(|k| {
            gl_in_compat_member(src, &toks, k)
                .is_some_and(|(_, m)| &src[toks[m].start..toks[m].end] == "gl_TexCoord")
        });
    let arrays_of_arrays = !es
        && version.number < 430
        && (gs_reads_texcoords || names_extension(src, &toks, "GL_ARB_arrays_of_arrays"));
    let out_version = if es {
        if version.number <= 300 {
            "310 es".to_owned()
        } else {
            format!("{} es", version.number)
        }
    } else if arrays_of_arrays {
        // glslang takes arrays of arrays from GLSL 4.30 only and knows no
        // GL_ARB_arrays_of_arrays; the extension's sources compile as 4.30
        // (a superset of what they may use) with the directive dropped.
        "430".to_owned()
    } else if version.number < 430 && uses_memory_atomics(src, &toks) {
        // glslang declares the atomic memory functions (`atomicAdd(inout
        // int, int)` ...) from GLSL 4.30 only, not for
        // GL_ARB_shader_storage_buffer_object or GL_ARB_compute_shader
        // sources of earlier versions, which Mesa takes: such a source
        // compiles as 4.30 (a superset of the earlier core versions).
        "430".to_owned()
    } else if stage == Stage::Compute && version.number < 430 {
        // glslang takes desktop compute shaders from 4.20 on (GL_ARB_compute_shader
        // is core in 4.30); 3.30 + the extension compiles as 4.30.
        "430".to_owned()
    } else if version.number < 150 && matches!(stage, Stage::TessControl | Stage::TessEval) {
        // glslang takes tessellation shaders from GLSL 1.50 on (what
        // GL_ARB_tessellation_shader requires); Mesa compiles earlier
        // versions' with the extension (piglit's built-in constants).
        "150".to_owned()
    } else if version.number < 150
        && names_extension(src, &toks, "GL_ARB_shader_storage_buffer_object")
    {
        // glslang takes `buffer` blocks and `std430` through
        // GL_ARB_shader_storage_buffer_object only in a profile, which
        // GLSL 1.50 is the first to have.
        "150".to_owned()
    } else if version.number < 330
        && toks.iter().any(|t| {
            t.kind == Kind::Ident
                && matches!(
                    &src[t.start..t.end],
                    "floatBitsToInt" | "floatBitsToUint" | "intBitsToFloat" | "uintBitsToFloat"
                )
        })
    {
        // The bit-encoding built-ins (GL_ARB_shader_bit_encoding, also in
        // GL_ARB_gpu_shader5), which Mesa gives earlier versions through
        // those extensions: glslang declares them from GLSL 3.30 on.
        "330".to_owned()
    } else if version.number < 140 {
        "140".to_owned()
    } else if version.number == 140 || compat || version.profile.is_empty() {
        format!("{}", version.number)
    } else {
        format!("{} {}", version.number, version.profile)
    };

    let mut out = String::with_capacity(src.len() + 256);
    let mut errors = String::new();
    let mut renames: Vec<(String, String)> = Vec::new();
    let mut helpers: Vec<&'static str> = Vec::new();
    let mut uses_frag_color = false;
    let mut frag_data_max: Option<u32> = None;
    let mut frag_data_dynamic = false;
    let mut layout_depth: Option<u32> = None;
    let mut pending_layout = false;
    let mut uses_depth_range = false;
    let mut uses_primitive_id = false;
    let mut uses_clip_vertex = false;
    let mut uses_clip_distance = false;
    let mut uses_point_coord = false;
    let mut two_sided_reads: Vec<&str> = Vec::new();
    // (replacement, interpolation qualifier and a space, or "") of each
    // redeclared compatibility built-in.
    let mut redeclared_qualifiers: Vec<(String, String)> = Vec::new();
    let mut compat_decls: Vec<(String, String)> = Vec::new();
    let mut redeclared_compat: Vec<String> = Vec::new();
    let mut compat_varyings: Vec<CompatVarying> = Vec::new();
    let mut compat_inputs: Vec<String> = Vec::new();
    // A legacy vertex shader that writes gl_ClipVertex and defines main()
    // gets the user clip planes applied: its main() becomes mgl_main()
    // and a new main() calls it, then writes gl_ClipDistance[i] =
    // dot(gl_ClipVertex, plane i), the planes coming from `mgl_ClipPlane`
    // (eye space, zero while disabled; `gl::matrix`).
    let ident = |name: &str| {
        toks.iter()
            .any(|t| t.kind == Kind::Ident && &src[t.start..t.end] == name)
    };
    // The compatibility members of redeclared gl_PerVertex blocks: dropped
    // from the output (token index ranges).
    let blanked = if legacy {
        per_vertex_compat_members(src, &toks)
    } else {
        Vec::new()
    };
    let clip_vertex_wrapper = legacy
        && !es
        && stage == Stage::Vertex
        && !vs_feeds_gs
        && toks.iter().enumerate().any(|(k, t)| {
            t.kind == Kind::Ident
                && &src[t.start..t.end] == "gl_ClipVertex"
                && !blanked.iter().any(|&(a, b)| (a..=b).contains(&k))
        })
        && !ident("gl_ClipDistance")
        && toks.iter().enumerate().any(|(k, t)| {
            t.kind == Kind::Ident
                && &src[t.start..t.end] == "main"
                && next_significant(&toks, k + 1).map(|j| &src[toks[j].start..toks[j].end])
                    == Some("(")
        });
    // Token indices dropped from the output: the `.member` of
    // gl_in[i].member (and `blanked` above).
    // A redeclared gl_PerVertex needs GLSL 4.10 or the SSO extension
    // (glslang checks; desktop drivers take it in compatibility 1.50).
    let redeclares_per_vertex = (0..toks.len()).any(|k| {
        toks[k].kind == Kind::Ident
            && &src[toks[k].start..toks[k].end] == "gl_PerVertex"
            && next_significant(&toks, k + 1)
                .is_some_and(|n| &src[toks[n].start..toks[n].end] == "{")
    });
    // With an output gl_PerVertex redeclared, the clip distances written
    // for gl_ClipVertex join that block instead of being redeclared alone.
    let out_block_close = out_per_vertex_close(src, &toks);
    let block_has_point_size = out_block_close.is_some_and(|close| {
        toks[..close]
            .iter()
            .rev()
            .take_while(|t| &src[t.start..t.end] != "{")
            .any(|t| &src[t.start..t.end] == "gl_PointSize")
    });
    let mut skipped: Vec<usize> = Vec::new();
    if legacy && stage == Stage::Geometry {
        for k in 0..toks.len() {
            if let Some((dot, member)) = gl_in_compat_member(src, &toks, k) {
                skipped.extend([dot, member]);
            }
        }
    }
    let defines_main = toks.iter().enumerate().any(|(k, t)| {
        t.kind == Kind::Ident
            && &src[t.start..t.end] == "main"
            && next_significant(&toks, k + 1).map(|j| &src[toks[j].start..toks[j].end]) == Some("(")
    });
    // The last vertex stage writes gl_PointSize from glPointSize unless
    // GL_PROGRAM_POINT_SIZE is on (`gl::points`); a geometry shader only
    // when it emits points.
    let point_size = !es
        && link.last_vertex_stage
        && link.points_program
        && match stage {
            Stage::Vertex => defines_main,
            Stage::Geometry => emits_points(src, &toks),
            _ => false,
        };
    // A legacy fragment shader's gl_TexCoord[i] may be replaced by the
    // point coordinate (GL_COORD_REPLACE).
    let texcoord_replace =
        legacy && !es && stage == Stage::Fragment && defines_main && ident("gl_TexCoord");
    // GL 4.6 compatibility §17.4.1 (and GLSL 1.10 §7.2): what a shader
    // writes to gl_FragColor goes to every enabled draw buffer. Draw
    // buffer i is fragment output location i on both backends, so main()
    // becomes mgl_main() and a new main() copies mgl_FragColor (location 0)
    // to `FRAG_COLOR_BROADCAST` (locations 1..). Not where the shader
    // also declares outputs (which it may not write then, GLSL 1.30
    // §7.2): those take the free locations.
    let frag_color_broadcast = !es
        && draw_buffers() > 1
        && stage == Stage::Fragment
        && defines_main
        && ident("gl_FragColor")
        && !declares_global_out(src, &toks);
    let texcoord_count = if texcoord_replace {
        redeclared_array_size(src, &toks, "gl_TexCoord").unwrap_or(8)
    } else {
        0
    };
    // A geometry shader writing gl_ClipVertex (not gl_ClipDistance) gets
    // the clip distances written at each EmitVertex().
    let gs_clip_vertex = legacy
        && stage == Stage::Geometry
        && !ident("gl_ClipDistance")
        && toks.iter().enumerate().any(|(k, t)| {
            t.kind == Kind::Ident
                && &src[t.start..t.end] == "gl_ClipVertex"
                && !skipped.contains(&k)
                && !blanked.iter().any(|&(a, b)| (a..=b).contains(&k))
        });

    // A legacy redeclaration `varying vec4 gl_TexCoord[N]` keeps its
    // qualifiers but takes the size every stage's emulated
    // `mgl_TexCoord[8]` has (stages must agree on the array's size in
    // the linked SPIR-V; GL lets each stage size it by its own use).
    let texcoord_size_toks: Vec<usize> = if !legacy {
        Vec::new()
    } else {
        (0..toks.len())
            .filter_map(|k| {
                let t = |j: usize| &src[toks[j].start..toks[j].end];
                if toks[k].kind != Kind::Ident
                    || t(k) != "gl_TexCoord"
                    || prev_significant(&toks, k).is_none_or(|p| t(p) != "vec4")
                {
                    return None;
                }
                let open = next_significant(&toks, k + 1).filter(|&j| t(j) == "[")?;
                next_significant(&toks, open + 1).filter(|&j| toks[j].kind == Kind::Number)
            })
            .collect()
    };
    // Names the source #defines (`#define gl_Vertex piglit_vertex`).
    let macros: Vec<&str> = toks
        .iter()
        .filter(|t| t.kind == Kind::Directive)
        .filter_map(|t| {
            let d = src[t.start..t.end]
                .trim_start()
                .strip_prefix('#')?
                .trim_start();
            let rest = d.strip_prefix("define")?;
            rest.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .find(|w| !w.is_empty())
        })
        .collect();
    let mut i = 0usize;
    while i < toks.len() {
        let t = toks[i];
        let text = &src[t.start..t.end];
        if skipped.contains(&i) {
            i += 1;
            continue;
        }
        if blanked.iter().any(|&(a, b)| (a..=b).contains(&i)) {
            // Dropped, its line breaks kept so line numbers hold.
            for _ in 0..text.matches('\n').count() {
                out.push('\n');
            }
            i += 1;
            continue;
        }
        if texcoord_size_toks.contains(&i) {
            out.push('8');
            i += 1;
            continue;
        }
        if Some(i) == version.tok {
            out.push_str("#version ");
            out.push_str(&out_version);
            i += 1;
            continue;
        }
        match t.kind {
            Kind::Punct => {
                if Some(i) == out_block_close {
                    if clip_vertex_wrapper || gs_clip_vertex {
                        out.push_str("float gl_ClipDistance[8]; ");
                    }
                    if point_size && !block_has_point_size {
                        out.push_str("float gl_PointSize; ");
                    }
                }
                if pending_layout && text == "(" {
                    layout_depth = Some(1);
                    pending_layout = false;
                } else if let Some(d) = layout_depth.as_mut() {
                    if text == "(" {
                        *d += 1;
                    } else if text == ")" {
                        *d -= 1;
                        if *d == 0 {
                            layout_depth = None;
                        }
                    }
                }
                out.push_str(text);
            }
            Kind::Ident => {
                pending_layout = text == "layout";
                uses_clip_distance |= text == "gl_ClipDistance";
                let mut replacement: Option<String> = None;
                if (clip_vertex_wrapper
                    || texcoord_replace
                    || frag_color_broadcast
                    || (point_size && stage == Stage::Vertex))
                    && text == "main"
                {
                    replacement = Some("mgl_main".to_owned());
                } else if (gs_clip_vertex || (point_size && stage == Stage::Geometry))
                    && text == "EmitVertex"
                {
                    replacement = Some("mgl_EmitVertex".to_owned());
                } else if !es && stage == Stage::Fragment && text == "gl_PointCoord" {
                    uses_point_coord = true;
                    replacement = Some("mgl_pointcoord()".to_owned());
                } else if texcoord_replace
                    && text == "gl_TexCoord"
                    && prev_significant(&toks, i)
                        .is_none_or(|p| &src[toks[p].start..toks[p].end] != "vec4")
                {
                    // A read: the copy with replaced coordinates. The
                    // declaration keeps the input's name (below).
                    if let Some(emu) = compat_emulation(stage, text, vs_feeds_gs) {
                        if !compat_decls.iter().any(|(r, _)| *r == emu.replacement) {
                            compat_decls.push((emu.replacement, emu.declaration));
                        }
                    }
                    replacement = Some("mgl_TexCoordR".to_owned());
                } else if let Some((_, member)) = (legacy && stage == Stage::Geometry)
                    .then(|| gl_in_compat_member(src, &toks, i))
                    .flatten()
                {
                    // gl_in[i].gl_FrontColor -> mglv_FrontColor[i]: the
                    // `.member` tokens are skipped.
                    let name = &src[toks[member].start..toks[member].end];
                    let rep = vs_to_gs_name(name);
                    if let Some(d) = gs_input_declaration(name) {
                        if !compat_decls.iter().any(|(r, _)| *r == rep) {
                            compat_decls.push((rep.clone(), d));
                        }
                    }
                    replacement = Some(rep);
                } else if let Some(value) = compat_constant(text).filter(|_| legacy) {
                    replacement = Some(value.to_owned());
                } else if text == "inverse" && !es && version.number == 140 {
                    if !helpers.contains(&INVERSE_HELPERS) {
                        helpers.push(INVERSE_HELPERS);
                    }
                    replacement = Some("mgl_inverse".to_owned());
                } else if let Some(emu) = legacy
                    .then(|| compat_emulation(stage, text, vs_feeds_gs))
                    .flatten()
                {
                    // A redeclaration (`flat out vec4 gl_FrontColor;`)
                    // keeps its qualifiers under the new name and replaces
                    // the injected declaration.
                    let prev = prev_significant(&toks, i).map(|j| &src[toks[j].start..toks[j].end]);
                    let redeclared = prev.is_some_and(|p| matches!(p, "vec4" | "float"));
                    let front_back = text.starts_with("gl_Front") || text.starts_with("gl_Back");
                    if COMPAT_COLOR_VARYINGS.contains(&text)
                        && (stage != Stage::Fragment) == front_back
                    {
                        let interpolation = if redeclared {
                            declaration_interpolation(src, &toks, i)
                        } else {
                            None
                        };
                        match compat_varyings
                            .iter_mut()
                            .find(|v: &&mut CompatVarying| v.name == text)
                        {
                            Some(v) => {
                                v.used |= !redeclared;
                                if redeclared {
                                    v.interpolation = interpolation;
                                }
                            }
                            None => compat_varyings.push(CompatVarying {
                                name: text.to_owned(),
                                interpolation,
                                used: !redeclared,
                            }),
                        }
                    }
                    if text == "gl_ClipVertex" {
                        uses_clip_vertex = true;
                    }
                    if stage == Stage::Vertex
                        && compat_input_type(text).is_some()
                        && !compat_inputs.iter().any(|n| n == text)
                    {
                        compat_inputs.push(text.to_owned());
                    }
                    if redeclared {
                        redeclared_compat.push(emu.replacement.clone());
                        let q = declaration_interpolation(src, &toks, i)
                            .map(|q| format!("{q} "))
                            .unwrap_or_default();
                        redeclared_qualifiers.push((emu.replacement.clone(), q));
                    } else if !compat_decls.iter().any(|(r, _)| *r == emu.replacement) {
                        compat_decls.push((emu.replacement.clone(), emu.declaration));
                    }
                    replacement = Some(emu.replacement);
                    // Two-sided colour (GL_VERTEX_PROGRAM_TWO_SIDE): a
                    // fragment shader's gl_Color reads the back colour on
                    // back faces; its declaration copies the qualifier.
                    let (back, read) = if text == "gl_Color" {
                        ("mgl_BackColor", "mgl_color()")
                    } else {
                        ("mgl_BackSecondaryColor", "mgl_secondary_color()")
                    };
                    // Only where the previous stage writes the back colour
                    // (each costs a varying location).
                    let back_written = link.previous_writes.is_none_or(|w| {
                        w.iter()
                            .any(|n| n.strip_prefix("gl") == back.strip_prefix("mgl"))
                    });
                    if stage == Stage::Fragment
                        && matches!(text, "gl_Color" | "gl_SecondaryColor")
                        && back_written
                    {
                        let q = if redeclared {
                            declaration_interpolation(src, &toks, i)
                                .map(|q| format!("{q} "))
                                .unwrap_or_default()
                        } else {
                            String::new()
                        };
                        if redeclared {
                            compat_decls.retain(|(r, _)| r != back);
                        }
                        if !compat_decls.iter().any(|(r, _)| r == back) {
                            compat_decls.push((back.to_owned(), format!("{q}in vec4 {back};\n")));
                        }
                        two_sided_reads.push(text);
                        if !redeclared {
                            replacement = Some(read.to_owned());
                        }
                    }
                } else if legacy && stage == Stage::Vertex && text == "ftransform" {
                    // The helper reads the stand-ins of gl_Vertex and the
                    // modelview-projection matrix: declare them.
                    for builtin in ["gl_Vertex", "gl_ModelViewProjectionMatrix"] {
                        if let Some(v) = compat_emulation(stage, builtin, vs_feeds_gs) {
                            if !compat_decls.iter().any(|(r, _)| *r == v.replacement) {
                                compat_decls.push((v.replacement, v.declaration));
                            }
                        }
                    }
                    if !helpers.contains(&FTRANSFORM_HELPER) {
                        helpers.push(FTRANSFORM_HELPER);
                    }
                    replacement = Some("mgl_ftransform".to_owned());
                } else if is_compat_builtin(text) && !macros.contains(&text) {
                    // (A macro of that name is the preprocessor's to expand.)
                    errors.push_str(&format!(
                        "ERROR: 0:{}: '{}' : compatibility-profile built-in is not supported\n",
                        t.line, text
                    ));
                } else if stage == Stage::Fragment && text == "gl_PrimitiveID" && !link.vs_feeds_gs
                {
                    uses_primitive_id = true;
                    replacement = Some("mgl_primitive_id()".to_owned());
                } else if text == "gl_DepthRange" || text == "gl_DepthRangeParameters" {
                    uses_depth_range = true;
                    replacement = Some(format!("m{text}"));
                } else if layout_depth.is_some() && (text == "packed" || text == "shared") {
                    replacement = Some("std140".to_owned());
                } else if stage == Stage::Vertex && text == "gl_InstanceIDARB" {
                    // GL_ARB_draw_instanced's name for the core built-in.
                    replacement = Some("gl_InstanceID".to_owned());
                } else if stage == Stage::Fragment && text == "gl_FragColor" {
                    uses_frag_color = true;
                    replacement = Some("mgl_FragColor".to_owned());
                } else if stage == Stage::Fragment && text == "gl_FragData" {
                    replacement = Some("mgl_FragData".to_owned());
                    // Look for `[ <int> ]`.
                    let idx = next_significant(&toks, i + 1)
                        .filter(|&j| &src[toks[j].start..toks[j].end] == "[")
                        .and_then(|j| next_significant(&toks, j + 1))
                        .filter(|&k| toks[k].kind == Kind::Number)
                        .and_then(|k| {
                            let close = next_significant(&toks, k + 1)?;
                            if &src[toks[close].start..toks[close].end] != "]" {
                                return None;
                            }
                            let n = &src[toks[k].start..toks[k].end];
                            n.trim_end_matches(['u', 'U']).parse::<u32>().ok()
                        });
                    match idx {
                        Some(n) if n < 32 => {
                            frag_data_max = Some(frag_data_max.map_or(n, |m| m.max(n)));
                        }
                        _ => frag_data_dynamic = true,
                    }
                } else if !es && !rename_reserved && matches!(text, "sampler" | "samplerShadow") {
                    // Free names in desktop GLSL, keywords in glslang's
                    // Vulkan mode (sources below 1.30 rename them above).
                    let new = format!("mgl_r_{text}");
                    if !renames.iter().any(|(n, _)| *n == new) {
                        renames.push((new.clone(), text.to_owned()));
                    }
                    replacement = Some(new);
                } else if !legacy
                    && !es
                    && version.number < 150
                    && shadow_helper(text, stage).is_some()
                {
                    // GLSL 1.30 / 1.40 still have the deprecated shadow
                    // lookups (`shadow2DRectProj` ...); glslang does not.
                    if let Some(helper) = shadow_helper(text, stage) {
                        if !helpers.contains(&helper) {
                            helpers.push(helper);
                        }
                    }
                    replacement = Some(format!("mgl_{text}"));
                } else if legacy {
                    if stage == Stage::Vertex && text == "attribute" {
                        replacement = Some("in".to_owned());
                    } else if text == "varying" && stage == Stage::Vertex {
                        replacement = Some("out".to_owned());
                    } else if text == "varying" && stage == Stage::Fragment {
                        replacement = Some("in".to_owned());
                    } else if text == "varying" && stage == Stage::Geometry {
                        // A compatibility geometry shader's `varying` is an output.
                        replacement = Some("out".to_owned());
                    } else if let Some(new) = texture_rename(text) {
                        replacement = Some(new.to_owned());
                    } else if ext_texture_array
                        && matches!(text, "texture1DArray" | "texture2DArray")
                    {
                        replacement = Some("texture".to_owned());
                    } else if ext_texture_array
                        && matches!(text, "texture1DArrayLod" | "texture2DArrayLod")
                    {
                        replacement = Some("textureLod".to_owned());
                    } else if let Some(helper) = shadow_helper(text, stage) {
                        if !helpers.contains(&helper) {
                            helpers.push(helper);
                        }
                        replacement = Some(format!("mgl_{text}"));
                    } else if redefined.iter().any(|(n, at)| n == text && i >= *at) {
                        let new = format!("mgl_u_{text}");
                        if !renames.iter().any(|(n, _)| *n == new) {
                            renames.push((new.clone(), text.to_owned()));
                        }
                        replacement = Some(new);
                    } else if rename_reserved
                        && is_reserved_in_140(text)
                        // GLSL 1.20 has these two built in already.
                        && !(version.number >= 120 && matches!(text, "outerProduct" | "transpose"))
                        && !(cube_array_lookups
                            && matches!(text, "texture" | "textureLod" | "textureGrad" | "textureSize"))
                        && !(ext_texture_array
                            && matches!(text, "sampler1DArray" | "sampler2DArray"))
                    {
                        let new = format!("mgl_r_{text}");
                        if !renames.iter().any(|(n, _)| *n == new) {
                            renames.push((new.clone(), text.to_owned()));
                        }
                        replacement = Some(new);
                    }
                }
                out.push_str(replacement.as_deref().unwrap_or(text));
            }
            Kind::Directive if text.contains("\\\n") || text.contains("\\\r\n") => {
                // Line continuations (GLSL 4.20, accepted by desktop drivers
                // in every version): spliced, with the swallowed newlines
                // emitted after the directive so later line numbers hold.
                let spliced = text.replace("\\\r\n", " ").replace("\\\n", " ");
                let spliced = if legacy {
                    rewrite_define(&spliced, stage, &mut helpers).unwrap_or(spliced)
                } else {
                    spliced
                };
                out.push_str(&spliced);
                for _ in 0..text.matches('\n').count() {
                    out.push('\n');
                }
            }
            Kind::Directive if legacy && text.contains("define") => {
                match rewrite_define(text, stage, &mut helpers) {
                    Some(rewritten) => out.push_str(&rewritten),
                    None => out.push_str(text),
                }
            }
            Kind::Directive if arrays_of_arrays && is_arrays_of_arrays_directive(text) => {
                // Commented out, so the line count holds.
                out.push_str("// ");
                out.push_str(text);
            }
            Kind::Comment | Kind::Space | Kind::Number | Kind::Directive => {
                if t.kind == Kind::Number {
                    pending_layout = false;
                }
                out.push_str(text);
            }
        }
        i += 1;
    }

    if uses_frag_color && (frag_data_max.is_some() || frag_data_dynamic) {
        errors.push_str("ERROR: 0:0: '' : gl_FragColor and gl_FragData cannot both be written\n");
    }
    if !errors.is_empty() {
        return Err(errors);
    }

    // Outputs the fragment shader reads, declared if not yet (a
    // redeclaration keeps its own).
    if legacy && matches!(stage, Stage::Vertex | Stage::Geometry) {
        for (rep, qualifier) in fragment_reads {
            let Some(builtin) = rep.strip_prefix('m') else {
                continue;
            };
            if let Some(emu) = compat_emulation(stage, builtin, vs_feeds_gs) {
                if !compat_decls.iter().any(|(r, _)| *r == emu.replacement)
                    && !redeclared_compat.contains(&emu.replacement)
                {
                    compat_decls.push((emu.replacement, format!("{qualifier}{}", emu.declaration)));
                }
            }
        }
    }
    // (name, interpolation qualifier with its space, or "").
    let mut fragment_reads: Vec<(String, String)> = Vec::new();
    if stage == Stage::Fragment {
        let varying = |r: &str| {
            r.strip_prefix('m')
                .is_some_and(|b| COMPAT_OUTPUT_VARYINGS.contains(&b))
        };
        for (r, d) in &compat_decls {
            if redeclared_compat.contains(r) {
                continue; // With its own qualifier, below.
            }
            if let Some(at) = d.find("in ").filter(|_| varying(r)) {
                fragment_reads.push((r.clone(), d[..at].to_owned()));
            }
        }
        for (r, q) in redeclared_qualifiers.iter().filter(|(r, _)| varying(r)) {
            fragment_reads.push((r.clone(), q.clone()));
        }
    }
    // The texture matrices are sized by use, as Mesa sizes them (the
    // highest constant index + 1; 8 when indexed dynamically or used
    // whole): glGetActiveUniform reports that size.
    for (rep, d) in compat_decls.iter_mut() {
        if let Some(name) = rep
            .strip_prefix('m')
            .filter(|n| n.starts_with("gl_TextureMatrix"))
        {
            let n = used_array_size(src, &toks, name, 8);
            *d = d.replace("[8]", &format!("[{n}]"));
        }
    }
    let clip_decl = if out_block_close.is_some() {
        format!("uniform vec4 {CLIP_PLANE}[8];\n")
    } else {
        format!("uniform vec4 {CLIP_PLANE}[8];\nout float gl_ClipDistance[8];\n")
    };
    let points_decl = (POINTS.to_owned(), format!("uniform vec4 {POINTS};\n"));
    if point_size || uses_point_coord || texcoord_replace {
        compat_decls.push(points_decl);
    }
    // What runs before each EmitVertex() / after the user's main().
    let mut epilogue = String::new();
    if gs_clip_vertex || clip_vertex_wrapper {
        compat_decls.push((CLIP_PLANE.to_owned(), clip_decl));
        for k in 0..8 {
            epilogue.push_str(&format!(
                "  gl_ClipDistance[{k}] = dot(mgl_ClipVertex, {CLIP_PLANE}[{k}]);\n"
            ));
        }
    }
    if point_size {
        epilogue.push_str(&format!(
            "  gl_PointSize = {POINTS}.y != 0.0 ? gl_PointSize : {POINTS}.x;\n"
        ));
    }
    let mut wrapper_helper = String::new();
    if !two_sided_reads.is_empty() {
        compat_decls.push((TWO_SIDE.to_owned(), format!("uniform float {TWO_SIDE};\n")));
        // Macros: the colour inputs may be redeclared below the injection.
        for (builtin, read, front, back) in [
            ("gl_Color", "mgl_color()", "mgl_FrontColor", "mgl_BackColor"),
            (
                "gl_SecondaryColor",
                "mgl_secondary_color()",
                "mgl_FrontSecondaryColor",
                "mgl_BackSecondaryColor",
            ),
        ] {
            if two_sided_reads.contains(&builtin) {
                wrapper_helper.push_str(&format!(
                    "#define {read} ({TWO_SIDE} != 0.0 && !gl_FrontFacing ? {back} : {front})\n"
                ));
            }
        }
    }
    if uses_primitive_id {
        compat_decls.push((
            PRIMITIVE_ID_SCALE.to_owned(),
            format!("uniform float {PRIMITIVE_ID_SCALE};\n"),
        ));
        wrapper_helper.push_str(&format!(
            "#define mgl_primitive_id() int(float(gl_PrimitiveID) * {PRIMITIVE_ID_SCALE})\n"
        ));
    }
    if uses_point_coord || texcoord_replace {
        wrapper_helper.push_str(&format!(
            "vec2 mgl_pointcoord() {{ return {POINTS}.w != 0.0 ? vec2(gl_PointCoord.x, 1.0 - gl_PointCoord.y) : gl_PointCoord; }}\n"
        ));
    }
    if stage == Stage::Geometry && !epilogue.is_empty() {
        wrapper_helper.push_str(&format!(
            "void mgl_EmitVertex() {{\n{epilogue}  EmitVertex();\n}}\n"
        ));
    }
    if stage == Stage::Vertex && !epilogue.is_empty() {
        out.push_str(&format!("\nvoid main() {{\n  mgl_main();\n{epilogue}}}\n"));
    }
    if stage == Stage::Fragment && (texcoord_replace || frag_color_broadcast) {
        out.push_str("\nvoid main() {\n");
        if texcoord_replace {
            wrapper_helper.push_str(&format!("vec4 mgl_TexCoordR[{texcoord_count}];\n"));
            for k in 0..texcoord_count {
                out.push_str(&format!(
                    "  mgl_TexCoordR[{k}] = ((int({POINTS}.z) >> {k}) & 1) != 0 ? vec4(mgl_pointcoord(), 0.0, 1.0) : mgl_TexCoord[{k}];\n"
                ));
            }
        }
        out.push_str("  mgl_main();\n");
        if frag_color_broadcast && uses_frag_color {
            for k in 0..draw_buffers() - 1 {
                out.push_str(&format!("  {FRAG_COLOR_BROADCAST}[{k}] = mgl_FragColor;\n"));
            }
        }
        out.push_str("}\n");
    }
    // Declarations injected right after the #version line.
    let mut inject = String::new();
    let prec = if es { "highp " } else { "" };
    if redeclares_per_vertex && !es && version.number < 410 && !arrays_of_arrays {
        inject.push_str("#extension GL_ARB_separate_shader_objects : enable\n");
    }
    if !es && version.number < 430 && declares_buffer_block(src) {
        // Mesa takes `buffer` blocks (with `layout(binding)`) wherever it
        // exposes GL_ARB_shader_storage_buffer_object, enabled or not;
        // glslang needs the extensions named.
        inject.push_str("#extension GL_ARB_shader_storage_buffer_object : enable\n#extension GL_ARB_shading_language_420pack : enable\n");
    }
    if !es && version.number < 400 && names_extension(src, &toks, "GL_ARB_shader_image_load_store")
    {
        // GL_ARB_shader_image_load_store lets image arrays be indexed
        // with dynamically uniform expressions (Mesa takes them); glslang
        // allows non-constant indexing of opaque arrays before GLSL 4.00
        // only with GL_ARB_gpu_shader5.
        inject.push_str("#extension GL_ARB_gpu_shader5 : enable\n");
    }
    if !es && version.number < 440 && names_extension(src, &toks, "GL_ARB_separate_shader_objects")
    {
        // Mesa takes `layout(location)` on interface blocks with
        // GL_ARB_separate_shader_objects; glslang wants
        // GL_ARB_enhanced_layouts for it.
        inject.push_str("#extension GL_ARB_enhanced_layouts : enable\n");
    }
    for (rep, d) in &compat_decls {
        if !redeclared_compat.contains(rep) {
            inject.push_str(d);
        }
    }
    // The matrix uniforms are reported (glGetActiveUniform) under the
    // built-ins' names, as Mesa does.
    for (rep, _) in &compat_decls {
        if let Some(orig) = rep.strip_prefix('m') {
            let r = (rep.clone(), orig.to_owned());
            if matrix_uniform_type(orig).is_some() && !renames.contains(&r) {
                renames.push(r);
            }
        }
    }
    // The fixed-function inputs are reported (glGetActiveAttrib) under the
    // built-in's name.
    for (rep, _) in &compat_decls {
        let Some(name) = rep.strip_prefix('m') else {
            continue;
        };
        if name == "gl_Vertex" || compat_input_type(name).is_some() {
            let r = (rep.clone(), name.to_owned());
            if !renames.contains(&r) {
                renames.push(r);
            }
        }
    }
    if uses_frag_color {
        inject.push_str(&format!("out {prec}vec4 mgl_FragColor;\n"));
        if frag_color_broadcast {
            if version.number < 330 {
                // #extension before any declaration.
                inject.insert_str(0, "#extension GL_ARB_explicit_attrib_location : enable\n");
            }
            inject.push_str(&format!(
                "layout(location = 1) out {prec}vec4 {FRAG_COLOR_BROADCAST}[{}];\n",
                draw_buffers() - 1
            ));
        }
    }
    if frag_data_max.is_some() || frag_data_dynamic {
        // Indexed dynamically: gl_FragData[gl_MaxDrawBuffers], as GLSL
        // declares it.
        let n = if frag_data_dynamic {
            let all = draw_buffers();
            frag_data_max.map_or(all, |m| (m + 1).max(all))
        } else {
            frag_data_max.unwrap_or(0) + 1
        };
        inject.push_str(&format!("out {prec}vec4 mgl_FragData[{n}];\n"));
    }
    for h in &helpers {
        inject.push_str(h);
    }
    inject.push_str(&wrapper_helper);
    if uses_depth_range {
        inject.push_str(&format!(
            "struct mgl_DepthRangeParameters {{ {prec}float near; {prec}float far; {prec}float diff; }};\nuniform mgl_DepthRangeParameters {DEPTH_RANGE};\n"
        ));
        let r = (DEPTH_RANGE.to_owned(), "gl_DepthRange".to_owned());
        if !renames.contains(&r) {
            renames.push(r);
        }
    }

    let version_line = version.tok.map(|i| toks[i].line);
    let needs_header = version.tok.is_none() || !inject.is_empty();
    if !needs_header {
        return Ok(Prepassed {
            source: out,
            renames,
            compat_varyings,
            clip_vertex_and_distance: uses_clip_vertex && uses_clip_distance,
            compat_inputs,
            fragment_reads,
            reads_point_coord: uses_point_coord,
            opaque_splits,
        });
    }
    // `#line n`: GLSL < 3.30 desktop means "the next line is n + 1"; ES and
    // 3.30+ mean "the next line is n".
    let out_number: u32 = out_version
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(140);
    let next_line_is_n = es || out_number >= 330;
    let source = match version_line {
        None => {
            let n = if next_line_is_n { 1 } else { 0 };
            format!("#version {out_version}\n{inject}#line {n}\n{out}")
        }
        Some(vline) => {
            // Insert after the (rewritten) #version line.
            let marker = format!("#version {out_version}");
            let pos = out.find(&marker).map(|p| p + marker.len()).unwrap_or(0);
            let (head, tail) = out.split_at(pos);
            // The text after the directive starts with its newline.
            let (nl, rest) = if let Some(r) = tail.strip_prefix("\r\n") {
                ("\r\n", r)
            } else if let Some(r) = tail.strip_prefix('\n') {
                ("\n", r)
            } else {
                ("\n", tail)
            };
            let next = vline + 1;
            let n = if next_line_is_n { next } else { next - 1 };
            format!("{head}{nl}{inject}#line {n}\n{rest}")
        }
    };
    Ok(Prepassed {
        source,
        renames,
        compat_varyings,
        clip_vertex_and_distance: uses_clip_vertex && uses_clip_distance,
        compat_inputs,
        fragment_reads,
        reads_point_coord: uses_point_coord,
        opaque_splits,
    })
}

/// The fixed-function array slot (`shader::FF_*`) feeding a vertex input
/// other than `gl_Vertex`, or None for any other name.
pub(crate) fn compat_input_slot(name: &str) -> Option<usize> {
    match name {
        "gl_Normal" => Some(super::FF_NORMAL),
        "gl_Color" => Some(super::FF_COLOR),
        "gl_SecondaryColor" => Some(super::FF_SECONDARY_COLOR),
        "gl_FogCoord" => Some(super::FF_FOG_COORD),
        n => n
            .strip_prefix("gl_MultiTexCoord")
            .filter(|k| k.len() == 1 && (b'0'..=b'7').contains(&k.as_bytes()[0]))
            .map(|k| super::FF_TEXCOORD0 + usize::from(k.as_bytes()[0] - b'0')),
    }
}

/// The GL type of a fixed-function vertex input other than `gl_Vertex`,
/// or None for any other name.
pub(crate) fn compat_input_type(name: &str) -> Option<u32> {
    match name {
        "gl_Color" | "gl_SecondaryColor" => Some(glow::FLOAT_VEC4),
        "gl_Normal" => Some(glow::FLOAT_VEC3),
        "gl_FogCoord" => Some(glow::FLOAT),
        n if n
            .strip_prefix("gl_MultiTexCoord")
            .is_some_and(|k| k.len() == 1 && (b'0'..=b'7').contains(&k.as_bytes()[0])) =>
        {
            Some(glow::FLOAT_VEC4)
        }
        _ => None,
    }
}

/// A global declaration carrying a `layout(...)` qualifier, as found in
/// preprocessed GLSL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LayoutDecl {
    /// `in`, `out`, `uniform`, `buffer`, ... (the last storage qualifier).
    pub storage: String,
    /// `location`, `binding`, ... with their integer values.
    pub values: Vec<(String, u32)>,
    /// Variable name, or block name for interface blocks.
    pub name: String,
    pub is_block: bool,
}

fn parse_int(n: &str) -> Option<u32> {
    let n = n.trim_end_matches(['u', 'U']);
    if let Some(h) = n.strip_prefix("0x").or_else(|| n.strip_prefix("0X")) {
        u32::from_str_radix(h, 16).ok()
    } else if n.len() > 1 && n.starts_with('0') {
        u32::from_str_radix(&n[1..], 8).ok()
    } else {
        n.parse().ok()
    }
}

/// The tokens of preprocessed GLSL that carry code (no spaces, comments
/// or directives).
/// Whether `src` names identifier `name` outside comments and directives.
pub(crate) fn names_identifier(src: &str, name: &str) -> bool {
    src.contains(name)
        && lex(src)
            .iter()
            .any(|t| t.kind == Kind::Ident && &src[t.start..t.end] == name)
}

fn code_tokens(preprocessed: &str) -> Vec<Tok> {
    lex(preprocessed)
        .into_iter()
        .filter(|t| !matches!(t.kind, Kind::Space | Kind::Comment | Kind::Directive))
        .collect()
}

/// `src` with every identifier token named in `renames` (from, to)
/// replaced, except member selections (after a `.`); directives and
/// comments are left as they are.
pub(crate) fn rename_identifiers(src: &str, renames: &[(String, String)]) -> String {
    let mut out = String::with_capacity(src.len());
    let mut after_dot = false;
    let mut done = 0usize;
    for t in lex(src) {
        let text = &src[t.start..t.end];
        if t.kind == Kind::Ident && !after_dot {
            if let Some((_, to)) = renames.iter().find(|(from, _)| from == text) {
                out.push_str(&src[done..t.start]);
                out.push_str(to);
                done = t.end;
            }
        }
        if !matches!(t.kind, Kind::Space | Kind::Comment) {
            after_dot = t.kind == Kind::Punct && text == ".";
        }
    }
    out.push_str(&src[done..]);
    out
}

/// Text of token `i`, or "" past the end.
fn tok_text<'a>(src: &'a str, toks: &[Tok], i: usize) -> &'a str {
    toks.get(i).map(|t| &src[t.start..t.end]).unwrap_or("")
}

/// Whether `src` declares a shader storage block (`buffer Name {`).
/// Calls one of the atomic memory functions (`atomicAdd` ... on buffer or
/// shared variables; not the `atomicCounter*` ones).
fn uses_memory_atomics(src: &str, toks: &[Tok]) -> bool {
    const FUNCTIONS: [&str; 8] = [
        "atomicAdd",
        "atomicMin",
        "atomicMax",
        "atomicAnd",
        "atomicOr",
        "atomicXor",
        "atomicExchange",
        "atomicCompSwap",
    ];
    toks.iter().enumerate().any(|(k, t)| {
        // Atomic counters (GL_ARB_shader_atomic_counters in an earlier
        // version) are lowered to the same functions.
        t.kind == Kind::Ident && &src[t.start..t.end] == "atomic_uint"
            || t.kind == Kind::Ident
                && FUNCTIONS.contains(&&src[t.start..t.end])
                && next_significant(toks, k + 1).map(|j| &src[toks[j].start..toks[j].end])
                    == Some("(")
    })
}

fn declares_buffer_block(src: &str) -> bool {
    let toks = code_tokens(src);
    (0..toks.len()).any(|i| {
        tok_text(src, &toks, i) == "buffer"
            && toks.get(i + 1).is_some_and(|t| t.kind == Kind::Ident)
            && tok_text(src, &toks, i + 2) == "{"
    })
}

/// Declarations with `layout(...)` qualifiers in preprocessed GLSL. Used to
/// tell explicit locations/bindings from glslang's auto-mapped ones.
pub(crate) fn layout_declarations(preprocessed: &str) -> Vec<LayoutDecl> {
    let toks = code_tokens(preprocessed);
    let text = |i: usize| tok_text(preprocessed, &toks, i);
    let mut result = Vec::new();
    let mut i = 0usize;
    while i < toks.len() {
        if text(i) != "layout" || text(i + 1) != "(" {
            i += 1;
            continue;
        }
        let mut values = Vec::new();
        let mut storage = String::new();
        let mut k = i;
        // One or more `layout(...)` groups interleaved with qualifiers.
        loop {
            if text(k) == "layout" && text(k + 1) == "(" {
                let mut j = k + 2;
                let mut depth = 1u32;
                while j < toks.len() && depth > 0 {
                    match text(j) {
                        "(" => depth += 1,
                        ")" => depth -= 1,
                        key if toks[j].kind == Kind::Ident && text(j + 1) == "=" && depth == 1 => {
                            if let Some(v) = parse_int(text(j + 2)) {
                                values.push((key.to_owned(), v));
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
                k = j;
                continue;
            }
            match text(k) {
                "in" | "out" | "uniform" | "buffer" | "inout" => {
                    storage = text(k).to_owned();
                    k += 1;
                }
                "flat" | "smooth" | "noperspective" | "centroid" | "sample" | "invariant"
                | "precise" | "highp" | "mediump" | "lowp" | "patch" | "readonly" | "writeonly"
                | "coherent" | "volatile" | "restrict" | "shared" => k += 1,
                _ => break,
            }
        }
        if !storage.is_empty() && text(k) == "struct" {
            // `layout(location = N) in struct S { ... } name;`: the
            // variable's name follows the struct's body.
            let mut j = k + 1;
            while j < toks.len() && text(j) != "{" && text(j) != ";" {
                j += 1;
            }
            let mut depth = 0u32;
            while j < toks.len() {
                match text(j) {
                    "{" => depth += 1,
                    "}" => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            if toks.get(j + 1).is_some_and(|t| t.kind == Kind::Ident) {
                result.push(LayoutDecl {
                    storage,
                    values,
                    name: text(j + 1).to_owned(),
                    is_block: false,
                });
            }
            i = j.max(i + 1);
            continue;
        }
        if !storage.is_empty() && toks.get(k).is_some_and(|t| t.kind == Kind::Ident) {
            if text(k + 1) == "{" {
                result.push(LayoutDecl {
                    storage,
                    values,
                    name: text(k).to_owned(),
                    is_block: true,
                });
            } else if toks.get(k + 1).is_some_and(|t| t.kind == Kind::Ident) {
                result.push(LayoutDecl {
                    storage,
                    values,
                    name: text(k + 1).to_owned(),
                    is_block: false,
                });
            }
        }
        i = k.max(i + 1);
    }
    result
}

/// Names declared with an explicit `layout(location = N)` and the given
/// storage qualifier (`"in"` or `"out"`).
pub(crate) fn explicit_locations(preprocessed: &str, storage: &str) -> Vec<(String, u32)> {
    layout_declarations(preprocessed)
        .into_iter()
        .filter(|d| d.storage == storage && !d.is_block)
        .filter_map(|d| {
            let loc = d.values.iter().find(|(k, _)| k == "location")?.1;
            Some((d.name, loc))
        })
        .collect()
}

/// Storage blocks (`buffer Name { ... }`) in preprocessed GLSL with an
/// unsized array (`[]`) before their last member (GLSL 4.60 §4.1.9 allows
/// one only last; glslang instead sizes it from its uses).
pub(crate) fn storage_blocks_unsized_early(preprocessed: &str) -> Vec<String> {
    let toks = code_tokens(preprocessed);
    let text = |k: usize| &preprocessed[toks[k].start..toks[k].end];
    let mut found = Vec::new();
    let mut k = 0;
    while k < toks.len() {
        if text(k) != "buffer" {
            k += 1;
            continue;
        }
        // `buffer Name {`: a block; anything else (a `buffer` variable
        // qualifier list) is not.
        let (Some(name_at), Some(open)) = (
            (k + 1 < toks.len() && toks[k + 1].kind == Kind::Ident).then_some(k + 1),
            (k + 2 < toks.len() && text(k + 2) == "{").then_some(k + 2),
        ) else {
            k += 1;
            continue;
        };
        // Members end at `;`; a member with `[` `]` is unsized.
        let mut unsized_members = Vec::new();
        let mut member_unsized = false;
        let mut j = open + 1;
        while j < toks.len() && text(j) != "}" {
            match text(j) {
                ";" => {
                    unsized_members.push(member_unsized);
                    member_unsized = false;
                }
                "[" if j + 1 < toks.len() && text(j + 1) == "]" => member_unsized = true,
                _ => {}
            }
            j += 1;
        }
        if unsized_members.iter().rev().skip(1).any(|&u| u) {
            found.push(text(name_at).to_owned());
        }
        k = j;
    }
    found
}

/// Identifiers declared with a `bool`/`bvecN` type in preprocessed GLSL.
pub(crate) fn bool_declarations(preprocessed: &str) -> Vec<String> {
    let toks = code_tokens(preprocessed);
    let mut names = Vec::new();
    for w in toks.windows(2) {
        let ty = &preprocessed[w[0].start..w[0].end];
        if matches!(ty, "bool" | "bvec2" | "bvec3" | "bvec4") && w[1].kind == Kind::Ident {
            names.push(preprocessed[w[1].start..w[1].end].to_owned());
        }
    }
    names
}

/// First token index of every identifier in preprocessed GLSL (global
/// declarations precede uses, so this orders globals by declaration).
pub(crate) fn identifier_order(
    preprocessed: &str,
    base: usize,
    into: &mut std::collections::HashMap<String, usize>,
) {
    for (i, t) in lex(preprocessed).iter().enumerate() {
        if t.kind == Kind::Ident {
            into.entry(preprocessed[t.start..t.end].to_owned())
                .or_insert(base + i);
        }
    }
}

/// Global `in`/`out` variables of preprocessed GLSL with whether each is
/// `invariant` (by qualifier or by a later `invariant name;`), as
/// (storage, name, invariant). Interface blocks are not listed.
pub(crate) fn varying_invariance(preprocessed: &str) -> Vec<(String, String, bool)> {
    let toks = code_tokens(preprocessed);
    let text = |t: &Tok| &preprocessed[t.start..t.end];
    let mut vars: Vec<(String, String, bool)> = Vec::new();
    let mut redeclared: Vec<String> = Vec::new();
    let mut depth = 0i32;
    let mut stmt: Vec<Tok> = Vec::new();
    let mut has_block = false;
    for t in toks {
        match text(&t) {
            "{" => {
                depth += 1;
                has_block = true;
                continue;
            }
            "}" => {
                depth -= 1;
                continue;
            }
            _ => {}
        }
        if depth != 0 {
            continue;
        }
        if text(&t) != ";" {
            stmt.push(t);
            continue;
        }
        let words: Vec<&str> = stmt.iter().map(text).collect();
        let block = has_block;
        stmt.clear();
        has_block = false;
        if block {
            continue;
        }
        if words.len() == 2 && words[0] == "invariant" {
            redeclared.push(words[1].to_owned());
            continue;
        }
        let Some(storage) = words.iter().find(|w| matches!(**w, "in" | "out")) else {
            continue;
        };
        if words.contains(&"(") {
            continue; // a function prototype
        }
        let invariant = words.contains(&"invariant");
        // Declarators: the identifier before each top-level `,` / end,
        // skipping array sizes and initialisers.
        let mut bracket = 0i32;
        let mut last_ident: Option<&str> = None;
        let mut in_init = false;
        let mut names = Vec::new();
        for w in &words {
            match *w {
                "[" => bracket += 1,
                "]" => bracket -= 1,
                "=" if bracket == 0 => in_init = true,
                "," if bracket == 0 => {
                    names.extend(last_ident.take());
                    in_init = false;
                }
                _ if bracket == 0
                    && !in_init
                    && w.bytes()
                        .next()
                        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_') =>
                {
                    last_ident = Some(w)
                }
                _ => {}
            }
        }
        names.extend(last_ident);
        for n in names {
            vars.push(((*storage).to_owned(), n.to_owned(), invariant));
        }
    }
    for v in vars.iter_mut() {
        if redeclared.contains(&v.1) {
            v.2 = true;
        }
    }
    vars
}

/// Every `key = value` inside a `layout(...)` group of preprocessed GLSL,
/// with a leading minus sign honoured (`stream = -1`). Values that are not
/// integer literals are left out.
pub(crate) fn layout_values(preprocessed: &str) -> Vec<(String, i64)> {
    let toks = code_tokens(preprocessed);
    let text = |i: usize| tok_text(preprocessed, &toks, i);
    let mut out = Vec::new();
    let mut i = 0usize;
    while i < toks.len() {
        if text(i) != "layout" || text(i + 1) != "(" {
            i += 1;
            continue;
        }
        let mut j = i + 2;
        let mut depth = 1u32;
        while j < toks.len() && depth > 0 {
            match text(j) {
                "(" => depth += 1,
                ")" => depth -= 1,
                key if toks[j].kind == Kind::Ident && text(j + 1) == "=" && depth == 1 => {
                    let (neg, at) = if text(j + 2) == "-" {
                        (true, j + 3)
                    } else {
                        (false, j + 2)
                    };
                    if let Some(v) = parse_int(text(at)) {
                        let v = i64::from(v);
                        out.push((key.to_owned(), if neg { -v } else { v }));
                    }
                }
                _ => {}
            }
            j += 1;
        }
        i = j;
    }
    out
}

/// The top-level statements of preprocessed GLSL (declarations ended by
/// `;` outside any braces) as their code words; function definitions and
/// statements holding a block (`struct`, interface blocks) are left out.
fn top_level_statements(preprocessed: &str) -> Vec<Vec<&str>> {
    let toks = code_tokens(preprocessed);
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut stmt: Vec<&str> = Vec::new();
    let mut has_block = false;
    for t in &toks {
        let w = &preprocessed[t.start..t.end];
        match w {
            "{" => {
                depth += 1;
                has_block = true;
                continue;
            }
            "}" => {
                depth -= 1;
                // A function body ends its definition (no `;` follows).
                if depth == 0 && stmt.contains(&"(") {
                    stmt.clear();
                    has_block = false;
                }
                continue;
            }
            _ => {}
        }
        if depth != 0 {
            continue;
        }
        if w != ";" {
            stmt.push(w);
            continue;
        }
        if !has_block && !stmt.is_empty() {
            out.push(std::mem::take(&mut stmt));
        }
        stmt.clear();
        has_block = false;
    }
    out
}

/// The global variables a shader initializes, `(name, initializer)` with
/// the initializer's words joined by single spaces (GLSL 1.20 §4.3: every
/// shader of a stage that initializes a global must use the same
/// initializer; the link compares these).
pub(crate) fn global_initializers(preprocessed: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for stmt in top_level_statements(preprocessed) {
        // Declarators after the type, split at commas outside parentheses:
        // `float a = f(1.0, 2.0), b = 3.0;`.
        let Some(first_eq) = stmt.iter().position(|w| *w == "=") else {
            continue;
        };
        if stmt[..first_eq].contains(&"(") {
            continue;
        }
        let mut depth = 0i32;
        let mut declarator: Vec<&str> = Vec::new();
        let mut flush = |d: &mut Vec<&str>| {
            if let Some(eq) = d.iter().position(|w| *w == "=") {
                // The name is the identifier before '=', or before the
                // array suffix that follows it (`a[2] = ...`, `a[] = ...`).
                let mut k = eq;
                if k > 0 && d[k - 1] == "]" {
                    while k > 0 && d[k - 1] != "[" {
                        k -= 1;
                    }
                    k = k.saturating_sub(1);
                }
                if let Some(name) = k.checked_sub(1).map(|i| d[i]) {
                    out.push((name.to_owned(), d[eq + 1..].join(" ")));
                }
            }
            d.clear();
        };
        for w in &stmt {
            match *w {
                "(" | "[" => depth += 1,
                ")" | "]" => depth -= 1,
                "," if depth == 0 => {
                    flush(&mut declarator);
                    continue;
                }
                _ => {}
            }
            declarator.push(w);
        }
        flush(&mut declarator);
    }
    out
}

/// How a fragment shader declares `gl_FragCoord`: `None` when it does not
/// redeclare it, else the qualifiers of its redeclaration (the words before
/// the type, joined by spaces: `layout ( origin_upper_left ) in`); and
/// whether it uses `gl_FragCoord` at all.
pub(crate) fn frag_coord_declaration(preprocessed: &str) -> (Option<String>, bool) {
    let used = code_tokens(preprocessed)
        .iter()
        .any(|t| &preprocessed[t.start..t.end] == "gl_FragCoord");
    let redeclared = top_level_statements(preprocessed)
        .into_iter()
        .find(|s| s.last() == Some(&"gl_FragCoord") && s.contains(&"vec4"))
        .map(|s| {
            let ty = s.iter().position(|w| *w == "vec4").unwrap_or(0);
            s[..ty].join(" ")
        });
    (redeclared, used)
}

/// `src` without the `pixel_center_integer` layout qualifier (and the
/// comma joining it to another; an emptied `layout()` goes too), or None
/// when it has none. Line breaks are kept.
pub(crate) fn strip_pixel_center_integer(src: &str) -> Option<String> {
    const Q: &str = "pixel_center_integer";
    let toks = lex(src);
    let sig: Vec<usize> = (0..toks.len())
        .filter(|&i| !matches!(toks[i].kind, Kind::Space | Kind::Comment))
        .collect();
    let text = |k: usize| &src[toks[sig[k]].start..toks[sig[k]].end];
    let mut cut: Vec<(usize, usize)> = Vec::new();
    for k in 0..sig.len() {
        if toks[sig[k]].kind != Kind::Ident || text(k) != Q {
            continue;
        }
        let (mut from, mut to) = (k, k);
        if k + 1 < sig.len() && text(k + 1) == "," {
            to = k + 1;
        } else if k > 0 && text(k - 1) == "," {
            from = k - 1;
        }
        // `layout ( pixel_center_integer )`: the whole qualifier.
        if k >= 2
            && text(k - 1) == "("
            && text(k - 2) == "layout"
            && sig.get(k + 1).is_some()
            && text(k + 1) == ")"
        {
            from = k - 2;
            to = k + 1;
        }
        cut.push((toks[sig[from]].start, toks[sig[to]].end));
    }
    if cut.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(src.len());
    let mut copied = 0;
    for (a, b) in cut {
        if a < copied {
            continue;
        }
        out.push_str(&src[copied..a]);
        out.extend(src[a..b].chars().filter(|&c| c == '\n'));
        copied = b;
    }
    out.push_str(&src[copied..]);
    Some(out)
}

#[cfg(test)]
mod initialized_array_tests {
    use super::size_initialized_uniform_arrays as sized;

    #[test]
    fn unsized_uniform_arrays_take_the_initializer_size() {
        let src = "uniform vec4 c[] = vec4[](vec4(0.0, 1.0, 0.0, 1.0),\n vec4(1.0), vec4(f(1, 2)));\nvoid main() {}\n";
        let out = sized(src).unwrap();
        assert!(out.starts_with("uniform vec4 c[3] = vec4[]("), "{out}");
        assert_eq!(out.lines().count(), src.lines().count());
        assert_eq!(
            sized("uniform float k[] = float[2](1.0, 2.0);").as_deref(),
            Some("uniform float k[2] = float[2](1.0, 2.0);")
        );
        // Not uniforms, sized already, or inside a function: left alone.
        assert_eq!(sized("const float k[] = float[](1.0);"), None);
        assert_eq!(sized("uniform float k[1] = float[](1.0);"), None);
        assert_eq!(sized("void f() { float k[] = float[](1.0); }"), None);
    }

    #[test]
    fn pixel_center_integer_qualifier_stripped() {
        use super::strip_pixel_center_integer as strip;
        assert_eq!(
            strip("layout(origin_upper_left, pixel_center_integer) in vec4 gl_FragCoord;")
                .as_deref(),
            Some("layout(origin_upper_left) in vec4 gl_FragCoord;")
        );
        assert_eq!(
            strip("layout(pixel_center_integer ,origin_upper_left) in vec4 gl_FragCoord;")
                .as_deref(),
            Some("layout(origin_upper_left) in vec4 gl_FragCoord;")
        );
        assert_eq!(
            strip("layout(pixel_center_integer) in vec4 gl_FragCoord;").as_deref(),
            Some(" in vec4 gl_FragCoord;")
        );
        assert_eq!(strip("in vec4 gl_FragCoord;"), None);
    }
}

#[cfg(test)]
mod block_struct_tests {
    use super::hoist_block_struct_definitions as hoist;

    #[test]
    fn struct_defined_in_a_block_moves_before_it() {
        let src = "layout(std140) uniform;\nuniform ub {\n   struct {\n      vec2 pos; // p\n      vec4 color;\n   } info[4];\n   float k;\n};\nvoid main() {}\n";
        let out = hoist(src).unwrap();
        assert_eq!(out.lines().count(), src.lines().count(), "{out}");
        assert!(
            out.contains("\nstruct mgl_block_struct1 { vec2 pos; vec4 color; }; uniform ub {\n"),
            "{out}"
        );
        assert!(
            out.contains("   mgl_block_struct1\n\n\n info[4];\n   float k;"),
            "{out}"
        );
        // A named one keeps its name; two in one block keep their order.
        let two = hoist("uniform B { struct S { float a; } s; struct { int b; } t; };").unwrap();
        assert_eq!(
            two,
            "struct S { float a; }; struct mgl_block_struct1 { int b; }; uniform B { S s; mgl_block_struct1 t; };"
        );
        // Structs outside blocks, and struct-typed members, are left alone.
        assert_eq!(hoist("struct S { float a; };\nuniform B { S s; };"), None);
        assert_eq!(hoist("void main() { struct T { int x; } t; }"), None);
    }
}

#[cfg(test)]
mod first_vertex_tests {
    use super::first_vertex_provokes as rewrite;

    #[test]
    fn emit_vertex_delays_flat_outputs_and_keeps_lines() {
        let src = "#version 150\nlayout(lines_adjacency) in;\nlayout(line_strip, max_vertices = 2) out;\nflat out vec4 a, b[2];\nout vec4 smooth_one;\nvoid main() {\n  EmitVertex();\n  EndPrimitive();\n}\n";
        let out = rewrite(src).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[1],
            "void mgl_EmitVertex(); void mgl_EndPrimitive(); layout(lines_adjacency) in;"
        );
        assert_eq!(lines[6], "  mgl_EmitVertex();");
        assert_eq!(lines[7], "  mgl_EndPrimitive();");
        assert!(out.contains("vec4 mgl_pv1_b[2];"), "{out}");
        assert!(
            !out.contains("mgl_pv2_"),
            "lines look one vertex back: {out}"
        );
        assert!(
            out.contains("if (mgl_pv_count >= 1) { a = mgl_pv1_a; b = mgl_pv1_b; }"),
            "{out}"
        );
        assert!(!out.contains("smooth_one ="), "{out}");
        // Triangles look two back; points, streams and no flat output: none.
        let tri = src.replace("line_strip", "triangle_strip");
        assert!(rewrite(&tri).unwrap().contains("mgl_pv2_a = mgl_pv1_a;"));
        assert_eq!(rewrite(&src.replace("line_strip", "points")), None);
        assert_eq!(rewrite(&src.replace("flat out vec4 a, b[2];", "")), None);
        assert_eq!(
            rewrite(&src.replace("EmitVertex();\n", "EmitStreamVertex(0);\n")),
            None
        );
    }
}
