//! glGet*: every answer comes from tracked state or the caps snapshot; no
//! query goes to the server.

use std::ffi::{c_char, CStr};

use super::put;
use crate::context::{target_index, with_gl, Gl, MAX_DRAW_BUFFERS, MAX_UBO_BINDINGS};

/// `GL_AUX_BUFFERS` (compatibility profile; glow has no constant).
const AUX_BUFFERS: u32 = 0x0C00;

/// A query's values in their natural type.
enum Vals {
    I(Vec<i64>),
    F(Vec<f64>),
    B(Vec<bool>),
    /// Enum/name values: converted to float without normalisation.
    E(Vec<i64>),
}

/// GL_VERSION etc. are static strings with a trailing NUL.
const VENDOR: &CStr = c"MobileGL";
const VERSION: &CStr = c"3.3 (Core Profile) MobileGL 0.1.0";
const GLSL_VERSION: &CStr = c"3.30";
/// A context created for a 4.x request (`context::create_context`).
const VERSION_43: &CStr = c"4.3 (Core Profile) MobileGL 0.1.0";
/// Compatibility contexts (`ContextAttribs::profile`).
const VERSION_COMPAT: &CStr = c"3.3 (Compatibility Profile) MobileGL 0.1.0";
const VERSION_43_COMPAT: &CStr = c"4.3 (Compatibility Profile) MobileGL 0.1.0";
const GLSL_VERSION_43: &CStr = c"4.30";
/// A context created for a 4.4 or 4.5 request.
const VERSION_45: &CStr = c"4.5 (Core Profile) MobileGL 0.1.0";
const VERSION_45_COMPAT: &CStr = c"4.5 (Compatibility Profile) MobileGL 0.1.0";
const GLSL_VERSION_45: &CStr = c"4.50";
/// Advertised after [`EXTENSIONS`] when the backend runs compute shaders.
const COMPUTE_EXTENSIONS: &[&CStr] = &[
    c"GL_ARB_compute_shader",
    c"GL_ARB_shader_storage_buffer_object",
    c"GL_ARB_shader_image_load_store",
    c"GL_ARB_shader_atomic_counters",
];

/// Advertised when the backend has 64-bit floats (`CAPS_FEATURE_FLOAT64`),
/// and 64-bit vertex inputs (`CAPS_FEATURE_VERTEX_64`).
const FLOAT64_EXTENSIONS: &[&CStr] = &[c"GL_ARB_gpu_shader_fp64", c"GL_ARB_vertex_attrib_64bit"];

/// The extension list of this context's backend.
fn extension(gl: &Gl, index: usize) -> Option<&'static CStr> {
    if gl.st.es.is_some() {
        return es_extension(gl, index);
    }
    let caps = &gl.conn.caps;
    let compute = if super::compute::has_compute(caps) {
        COMPUTE_EXTENSIONS
    } else {
        &[]
    };
    use mgpipe::caps::{CAPS_FEATURE_FLOAT64, CAPS_FEATURE_VERTEX_64};
    let float64 = match caps.features & (CAPS_FEATURE_FLOAT64 | CAPS_FEATURE_VERTEX_64) {
        f if f == CAPS_FEATURE_FLOAT64 | CAPS_FEATURE_VERTEX_64 => FLOAT64_EXTENSIONS,
        CAPS_FEATURE_FLOAT64 => &FLOAT64_EXTENSIONS[..1],
        _ => &[],
    };
    // Transform feedback where the backend captures (`gl::xfb`).
    // ARB_transform_feedback3 (core in the 4.x contexts we create) is
    // listed on GLES too: its API (indexed queries and buffers, stream
    // draws) works there; of its layouts, what GLES cannot place
    // (gl_SkipComponents gaps, several varyings after gl_NextBuffer) is a
    // link error that says so (`shaders::link_program`).
    let xfb: &[&CStr] = if caps.implements(mgpipe::Opcode::XfbBegin as u16) {
        &[
            c"GL_EXT_transform_feedback",
            c"GL_ARB_transform_feedback2",
            c"GL_ARB_transform_feedback_instanced",
            c"GL_ARB_transform_feedback3",
        ]
    } else {
        &[]
    };
    // Buffer textures where the backend attaches them (`gl::texbuf`).
    let texbuf: &[&CStr] = if caps.implements(mgpipe::Opcode::TextureBuffer as u16) {
        &[
            c"GL_ARB_texture_buffer_object",
            c"GL_ARB_texture_buffer_range",
            c"GL_ARB_texture_buffer_object_rgb32",
        ]
    } else {
        &[]
    };
    use mgpipe::caps::{CAPS_FEATURE_BLEND_PER_BUFFER, CAPS_FEATURE_SAMPLE_SHADING};
    let sample_shading: &[&CStr] = if caps.features & CAPS_FEATURE_SAMPLE_SHADING != 0 {
        &[c"GL_ARB_sample_shading"]
    } else {
        &[]
    };
    // EXT_draw_buffers2's commands (glColorMaskIndexedEXT, gl*IndexedEXT)
    // are the registry's aliases of the GL 3.0 indexed ones; per-buffer
    // masks and blend enables need the same backend feature as blending.
    let blend_per_buffer: &[&CStr] = if caps.features & CAPS_FEATURE_BLEND_PER_BUFFER != 0 {
        &[c"GL_ARB_draw_buffers_blend", c"GL_EXT_draw_buffers2"]
    } else {
        &[]
    };
    // Where gl_InstanceID counts from 0 in base-instance draws (Vulkan
    // needs shaderDrawParameters for it).
    let base_instance: &[&CStr] = if caps.features & mgpipe::caps::CAPS_FEATURE_BASE_INSTANCE != 0 {
        &[c"GL_ARB_base_instance"]
    } else {
        &[]
    };
    let clip_control: &[&CStr] = if caps.features & mgpipe::caps::CAPS_FEATURE_CLIP_CONTROL != 0 {
        &[c"GL_ARB_clip_control"]
    } else {
        &[]
    };
    let tessellation: &[&CStr] = if super::tess::has_tessellation(caps) {
        &[c"GL_ARB_tessellation_shader"]
    } else {
        &[]
    };
    let legacy = if gl.st.is_core() {
        &[]
    } else {
        LEGACY_EXTENSIONS
    };
    EXTENSIONS
        .iter()
        .chain(compute)
        .chain(float64)
        .chain(xfb)
        .chain(texbuf)
        .chain(sample_shading)
        .chain(blend_per_buffer)
        .chain(CORE_MISC_EXTENSIONS)
        .chain(base_instance)
        .chain(clip_control)
        .chain(tessellation)
        .chain(legacy)
        .nth(index)
        .copied()
}

/// OpenGL ES extensions an ES context lists: the ES names of desktop
/// features every context we make has (their ES-suffixed entry points
/// resolve to the core functions: `build.rs` maps a gles2 extension command
/// to the core command of the same name without the suffix and with the
/// same parameters).
const ES_EXTENSIONS: &[&CStr] = &[
    c"GL_EXT_buffer_storage",
    c"GL_EXT_map_buffer_range",
    c"GL_OES_mapbuffer",
    c"GL_EXT_texture_storage",
    c"GL_OES_vertex_array_object",
    c"GL_OES_element_index_uint",
    c"GL_OES_packed_depth_stencil",
    c"GL_OES_depth24",
    c"GL_OES_depth_texture",
    c"GL_OES_rgb8_rgba8",
    c"GL_OES_texture_npot",
    c"GL_EXT_texture_rg",
    c"GL_EXT_color_buffer_float",
    c"GL_EXT_color_buffer_half_float",
    c"GL_EXT_draw_elements_base_vertex",
    c"GL_OES_draw_elements_base_vertex",
    c"GL_EXT_multi_draw_indirect",
    c"GL_EXT_polygon_offset_clamp",
    c"GL_KHR_debug",
];

/// ES names listed where the backend has the feature.
fn es_extension(gl: &Gl, index: usize) -> Option<&'static CStr> {
    use mgpipe::caps::{
        CAPS_FEATURE_BASE_INSTANCE, CAPS_FEATURE_BLEND_PER_BUFFER, CAPS_FEATURE_CLIP_CONTROL,
    };
    let caps = &gl.conn.caps;
    let has = |bit: u32, names: &'static [&'static CStr]| -> &'static [&'static CStr] {
        if caps.features & bit != 0 {
            names
        } else {
            &[]
        }
    };
    let texbuf: &[&CStr] = if caps.implements(mgpipe::Opcode::TextureBuffer as u16) {
        &[c"GL_EXT_texture_buffer", c"GL_OES_texture_buffer"]
    } else {
        &[]
    };
    let es31: &[&CStr] = if super::compute::has_compute(caps) {
        &[
            c"GL_EXT_texture_cube_map_array",
            c"GL_OES_texture_cube_map_array",
            c"GL_OES_texture_storage_multisample_2d_array",
        ]
    } else {
        &[]
    };
    ES_EXTENSIONS
        .iter()
        .chain(texbuf)
        .chain(es31)
        .chain(has(CAPS_FEATURE_BASE_INSTANCE, &[c"GL_EXT_base_instance"]))
        .chain(has(CAPS_FEATURE_CLIP_CONTROL, &[c"GL_EXT_clip_control"]))
        .chain(has(
            CAPS_FEATURE_BLEND_PER_BUFFER,
            &[
                c"GL_EXT_draw_buffers_indexed",
                c"GL_OES_draw_buffers_indexed",
            ],
        ))
        .nth(index)
        .copied()
}

/// GL 4.x core features implemented in the frontend alone (the
/// "core entry points" work; docs/ARCHITECTURE.md).
const CORE_MISC_EXTENSIONS: &[&CStr] = &[
    c"GL_ARB_multi_bind",
    c"GL_ARB_polygon_offset_clamp",
    c"GL_EXT_polygon_offset_clamp",
    c"GL_ARB_internalformat_query",
    c"GL_ARB_ES2_compatibility",
    c"GL_ARB_timer_query",
    c"GL_EXT_timer_query",
    c"GL_ARB_texture_stencil8",
];

/// GL 4.6 / ARB_polygon_offset_clamp.
const GL_POLYGON_OFFSET_CLAMP: u32 = 0x8E1B;

/// GL 1.x names of GL_BLEND_SRC_RGB / GL_BLEND_DST_RGB (still valid
/// glGet names: they answer the RGB factors).
const GL_BLEND_SRC: u32 = 0x0BE1;
const GL_BLEND_DST: u32 = 0x0BE0;

/// Pre-3.0 extensions whose functionality is core in every context we make
/// (their suffixed entry points resolve to the core ones), listed in
/// compatibility contexts only, as Mesa lists them: old applications and
/// tests look for the names.
const LEGACY_EXTENSIONS: &[&CStr] = &[
    c"GL_ARB_shader_objects",
    c"GL_ARB_vertex_shader",
    c"GL_ARB_fragment_shader",
    c"GL_ARB_shading_language_100",
    c"GL_EXT_separate_shader_objects",
    c"GL_EXT_framebuffer_object",
    c"GL_EXT_packed_depth_stencil",
    c"GL_ARB_depth_texture",
    c"GL_ARB_depth_buffer_float",
    c"GL_ARB_occlusion_query",
    c"GL_ARB_vertex_buffer_object",
    c"GL_EXT_texture_sRGB",
    c"GL_ARB_texture_cube_map",
    c"GL_ARB_texture_non_power_of_two",
    c"GL_ARB_texture_border_clamp",
    c"GL_ARB_texture_mirrored_repeat",
    c"GL_ARB_texture_compression",
    c"GL_ARB_pixel_buffer_object",
    c"GL_ARB_half_float_pixel",
    c"GL_ARB_draw_buffers",
    c"GL_EXT_framebuffer_blit",
    c"GL_EXT_framebuffer_multisample",
    c"GL_EXT_blend_equation_separate",
    c"GL_EXT_blend_func_separate",
    c"GL_EXT_blend_minmax",
    c"GL_EXT_draw_range_elements",
    c"GL_EXT_texture3D",
    c"GL_EXT_texture_edge_clamp",
    c"GL_EXT_packed_float",
    c"GL_EXT_texture_shared_exponent",
    c"GL_ARB_texture_env_combine",
    c"GL_ARB_texture_env_crossbar",
    c"GL_ARB_texture_env_dot3",
    c"GL_ARB_texture_env_add",
    c"GL_EXT_texture_env_combine",
    c"GL_EXT_texture_env_add",
    c"GL_ARB_window_pos",
    c"GL_ARB_point_sprite",
    c"GL_ARB_point_parameters",
];

fn extension_count(gl: &Gl) -> usize {
    (0..).take_while(|&i| extension(gl, i).is_some()).count()
}
/// Extensions we advertise: only what works end to end today.
const EXTENSIONS: &[&CStr] = &[
    c"GL_ARB_vertex_array_object",
    c"GL_ARB_texture_storage",
    c"GL_ARB_sync",
    c"GL_ARB_uniform_buffer_object",
    c"GL_ARB_framebuffer_object",
    c"GL_ARB_direct_state_access",
    c"GL_ARB_map_buffer_range",
    c"GL_ARB_copy_buffer",
    c"GL_ARB_buffer_storage",
    c"GL_ARB_instanced_arrays",
    c"GL_ARB_draw_instanced",
    c"GL_ARB_sampler_objects",
    c"GL_ARB_draw_elements_base_vertex",
    c"GL_ARB_explicit_attrib_location",
    c"GL_ARB_texture_swizzle",
    c"GL_EXT_texture_swizzle",
    c"GL_ARB_texture_float",
    c"GL_ARB_gpu_shader5",
    c"GL_ARB_texture_gather",
    c"GL_ARB_texture_rg",
    c"GL_EXT_texture_array",
    c"GL_ARB_texture_cube_map_array",
    c"GL_ARB_clear_buffer_object",
    c"GL_ARB_texture_multisample",
    c"GL_ARB_texture_storage_multisample",
    c"GL_ARB_draw_indirect",
    c"GL_ARB_multi_draw_indirect",
    c"GL_ARB_vertex_attrib_binding",
    c"GL_ARB_texture_rectangle",
    c"GL_EXT_texture_integer",
    c"GL_ARB_program_interface_query",
    c"GL_KHR_debug",
    c"GL_ARB_explicit_uniform_location",
    c"GL_ARB_separate_shader_objects",
    c"GL_ARB_arrays_of_arrays",
];

/// The space-separated list a compatibility context answers for
/// glGetString(GL_EXTENSIONS): one string per distinct list (the list
/// depends only on the backend's caps and the profile), kept for the
/// process's life as GL requires of returned strings.
fn extensions_string(gl: &Gl) -> *const c_char {
    static LISTS: std::sync::Mutex<Vec<std::ffi::CString>> = std::sync::Mutex::new(Vec::new());
    let joined = (0..extension_count(gl))
        .filter_map(|i| extension(gl, i))
        .map(|e| e.to_string_lossy())
        .collect::<Vec<_>>()
        .join(" ");
    let Ok(joined) = std::ffi::CString::new(joined) else {
        return std::ptr::null();
    };
    let mut lists = LISTS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(s) = lists.iter().find(|s| **s == joined) {
        return s.as_ptr();
    }
    lists.push(joined);
    lists.last().map_or(std::ptr::null(), |s| s.as_ptr())
}

/// GL_VERSION / GL_SHADING_LANGUAGE_VERSION of an OpenGL ES context
/// ("OpenGL ES <major>.<minor> <vendor-specific>", ES 3.2 §22.2).
fn es_version_string(es: Option<(u32, u32)>, glsl: bool) -> *const c_char {
    match (es, glsl) {
        (Some((3, 2)), false) => c"OpenGL ES 3.2 MobileGL 0.1.0".as_ptr(),
        (Some((3, 1)), false) => c"OpenGL ES 3.1 MobileGL 0.1.0".as_ptr(),
        (_, false) => c"OpenGL ES 3.0 MobileGL 0.1.0".as_ptr(),
        (Some((3, 2)), true) => c"OpenGL ES GLSL ES 3.20".as_ptr(),
        (Some((3, 1)), true) => c"OpenGL ES GLSL ES 3.10".as_ptr(),
        (_, true) => c"OpenGL ES GLSL ES 3.00".as_ptr(),
    }
}

static RENDERER: std::sync::OnceLock<std::ffi::CString> = std::sync::OnceLock::new();

fn renderer(gl: &Gl) -> *const c_char {
    RENDERER
        .get_or_init(|| {
            let drv = mgpipe::Caps::get_str(&gl.conn.caps.driver_renderer).to_string();
            std::ffi::CString::new(format!("MobileGL on {drv}"))
                .unwrap_or_else(|_| c"MobileGL".to_owned())
        })
        .as_ptr()
}

struct StrPtr(*const c_char);
impl Default for StrPtr {
    fn default() -> Self {
        StrPtr(std::ptr::null())
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetString(name: u32) -> *const u8 {
    with_gl(|gl| {
        StrPtr(match name {
            glow::VENDOR => VENDOR.as_ptr(),
            glow::RENDERER => renderer(gl),
            glow::VERSION if gl.st.es.is_some() => es_version_string(gl.st.es, false),
            glow::SHADING_LANGUAGE_VERSION if gl.st.es.is_some() => {
                es_version_string(gl.st.es, true)
            }
            glow::VERSION => match (gl.st.version, gl.st.is_core()) {
                (v, true) if v >= (4, 5) => VERSION_45.as_ptr(),
                (v, false) if v >= (4, 5) => VERSION_45_COMPAT.as_ptr(),
                (v, true) if v >= (4, 0) => VERSION_43.as_ptr(),
                (v, false) if v >= (4, 0) => VERSION_43_COMPAT.as_ptr(),
                (_, true) => VERSION.as_ptr(),
                (_, false) => VERSION_COMPAT.as_ptr(),
            },
            glow::SHADING_LANGUAGE_VERSION if gl.st.version >= (4, 5) => GLSL_VERSION_45.as_ptr(),
            glow::SHADING_LANGUAGE_VERSION if gl.st.version >= (4, 0) => GLSL_VERSION_43.as_ptr(),
            glow::SHADING_LANGUAGE_VERSION => GLSL_VERSION.as_ptr(),
            glow::EXTENSIONS if !gl.st.is_core() => extensions_string(gl),
            glow::EXTENSIONS => {
                // Core profile: GL_EXTENSIONS is not a valid glGetString name.
                gl.st.set_error(glow::INVALID_ENUM);
                std::ptr::null()
            }
            _ => {
                gl.st.set_error(glow::INVALID_ENUM);
                std::ptr::null()
            }
        })
    })
    .0 as *const u8
}

#[no_mangle]
pub unsafe extern "C" fn glGetStringi(name: u32, index: u32) -> *const u8 {
    with_gl(|gl| {
        StrPtr(match name {
            glow::EXTENSIONS => match extension(gl, index as usize) {
                Some(s) => s.as_ptr(),
                None => {
                    gl.st.set_error(glow::INVALID_VALUE);
                    std::ptr::null()
                }
            },
            glow::SHADING_LANGUAGE_VERSION => match index {
                0 => c"330 core".as_ptr(),
                1 => c"140".as_ptr(),
                2 => c"150 core".as_ptr(),
                3 if gl.st.version >= (4, 0) => c"400 core".as_ptr(),
                4 if gl.st.version >= (4, 0) => c"410 core".as_ptr(),
                5 if gl.st.version >= (4, 0) => c"420 core".as_ptr(),
                6 if gl.st.version >= (4, 0) => c"430 core".as_ptr(),
                7 if gl.st.version >= (4, 5) => c"440 core".as_ptr(),
                8 if gl.st.version >= (4, 5) => c"450 core".as_ptr(),
                _ => {
                    gl.st.set_error(glow::INVALID_VALUE);
                    std::ptr::null()
                }
            },
            _ => {
                gl.st.set_error(glow::INVALID_ENUM);
                std::ptr::null()
            }
        })
    })
    .0 as *const u8
}

const RGBA_INTEGER_MODE_EXT: u32 = 0x8D9E;

fn i(v: impl Into<i64>) -> Option<Vals> {
    Some(Vals::I(vec![v.into()]))
}
fn e(v: u32) -> Option<Vals> {
    Some(Vals::E(vec![v as i64]))
}
fn b(v: bool) -> Option<Vals> {
    Some(Vals::B(vec![v]))
}
fn f(v: f32) -> Option<Vals> {
    Some(Vals::F(vec![v as f64]))
}

fn texture_binding(gl: &Gl, target: u32) -> Option<Vals> {
    let unit = gl.st.active_texture as usize;
    target_index(target).map(|_| Vals::E(vec![gl.st.texture_binding(unit, target) as i64]))
}

/// A stage's default-uniform limit in components. The default uniforms of
/// every stage share one uniform block (`shader`), which the backends hold
/// in one uniform buffer: the vertex and fragment stages get half of it
/// each after the geometry stage's 1024 components and room for a few
/// scalars, so a program using both stages' limits still links. Never
/// below GL 3.3's minimum of 1024.
fn stage_uniforms(c: &mgpipe::Caps, backend: u32) -> u32 {
    let shared = (c.max_uniform_block_size / 4).saturating_sub(1024 + 64) / 2;
    backend.min(shared).max(1024)
}

fn query(gl: &mut Gl, pname: u32) -> Option<Vals> {
    let c = gl.conn.caps;
    let s = &*gl.st;
    let tess = super::tess::has_tessellation(&c);
    match pname {
        glow::MAJOR_VERSION => i(s.es.unwrap_or(s.version).0),
        glow::MINOR_VERSION => i(s.es.unwrap_or(s.version).1),
        // OpenGL ES has no profiles.
        glow::CONTEXT_PROFILE_MASK if s.es.is_some() => None,
        glow::CONTEXT_PROFILE_MASK => i(if s.is_core() {
            glow::CONTEXT_CORE_PROFILE_BIT
        } else {
            glow::CONTEXT_COMPATIBILITY_PROFILE_BIT
        }),
        glow::CONTEXT_FLAGS => i((if s.debug {
            glow::CONTEXT_FLAG_DEBUG_BIT
        } else {
            0
        }) | if s.forward_compatible {
            glow::CONTEXT_FLAG_FORWARD_COMPATIBLE_BIT
        } else {
            0
        }),
        glow::NUM_EXTENSIONS => i(extension_count(gl) as i64),
        glow::NUM_SHADING_LANGUAGE_VERSIONS => i(match s.version {
            v if v >= (4, 5) => 9,
            v if v >= (4, 0) => 7,
            _ => 3,
        }),
        glow::MAX_TEXTURE_SIZE => i(c.max_texture_size),
        glow::MAX_3D_TEXTURE_SIZE => i(c.max_3d_texture_size),
        glow::MAX_ARRAY_TEXTURE_LAYERS => i(c.max_array_texture_layers),
        glow::MAX_CUBE_MAP_TEXTURE_SIZE => i(c.max_cube_map_texture_size),
        glow::MAX_RECTANGLE_TEXTURE_SIZE => i(c.max_texture_size),
        glow::MAX_RENDERBUFFER_SIZE => i(c.max_renderbuffer_size),
        glow::MAX_DRAW_BUFFERS => i(c.max_draw_buffers.min(MAX_DRAW_BUFFERS as u32)),
        glow::MAX_COLOR_ATTACHMENTS => i(c.max_color_attachments.min(MAX_DRAW_BUFFERS as u32)),
        glow::MAX_DUAL_SOURCE_DRAW_BUFFERS => i(1),
        glow::MAX_SAMPLES
        | glow::MAX_COLOR_TEXTURE_SAMPLES
        | glow::MAX_DEPTH_TEXTURE_SAMPLES
        | glow::MAX_INTEGER_SAMPLES => i(c.max_samples),
        glow::MAX_VERTEX_ATTRIBS => i(c.max_vertex_attribs.min(16)),
        glow::MAX_VERTEX_ATTRIB_BINDINGS => {
            i(c.max_vertex_attribs.min(super::vertex::MAX_BINDINGS))
        }
        glow::MAX_VERTEX_ATTRIB_RELATIVE_OFFSET => i(super::vertex::MAX_RELATIVE_OFFSET),
        glow::MAX_VERTEX_ATTRIB_STRIDE => i(super::vertex::MAX_STRIDE as u32),
        glow::MAX_TEXTURE_IMAGE_UNITS => i(c.max_texture_image_units.min(16)),
        glow::MAX_VERTEX_TEXTURE_IMAGE_UNITS => i(c.max_vertex_texture_image_units.min(16)),
        glow::MAX_GEOMETRY_TEXTURE_IMAGE_UNITS => i(16),
        glow::MAX_COMBINED_TEXTURE_IMAGE_UNITS => i(c
            .max_combined_texture_image_units
            .min(crate::context::MAX_TEXTURE_UNITS as u32)),
        glow::MAX_UNIFORM_BUFFER_BINDINGS => {
            i(c.max_uniform_buffer_bindings.min(MAX_UBO_BINDINGS as u32))
        }
        glow::MAX_UNIFORM_BLOCK_SIZE => i(c.max_uniform_block_size),
        glow::MAX_VERTEX_UNIFORM_BLOCKS
        | glow::MAX_FRAGMENT_UNIFORM_BLOCKS
        | glow::MAX_GEOMETRY_UNIFORM_BLOCKS => i(super::shaders::MAX_STAGE_UNIFORM_BLOCKS as i64),
        glow::MAX_COMBINED_UNIFORM_BLOCKS => i(super::shaders::MAX_COMBINED_UNIFORM_BLOCKS as i64),
        glow::UNIFORM_BUFFER_OFFSET_ALIGNMENT => i(c.uniform_buffer_offset_alignment),
        glow::MAX_VERTEX_UNIFORM_COMPONENTS => {
            i(stage_uniforms(&c, c.max_vertex_uniform_components))
        }
        glow::MAX_FRAGMENT_UNIFORM_COMPONENTS => {
            i(stage_uniforms(&c, c.max_fragment_uniform_components))
        }
        glow::MAX_GEOMETRY_UNIFORM_COMPONENTS => i(1024),
        glow::MAX_VERTEX_UNIFORM_VECTORS => {
            i(stage_uniforms(&c, c.max_vertex_uniform_components) / 4)
        }
        glow::MAX_FRAGMENT_UNIFORM_VECTORS => {
            i(stage_uniforms(&c, c.max_fragment_uniform_components) / 4)
        }
        glow::MAX_COMBINED_VERTEX_UNIFORM_COMPONENTS => {
            i(stage_uniforms(&c, c.max_vertex_uniform_components) as i64
                + 12 * (c.max_uniform_block_size as i64 / 4))
        }
        glow::MAX_COMBINED_FRAGMENT_UNIFORM_COMPONENTS => {
            i(stage_uniforms(&c, c.max_fragment_uniform_components) as i64
                + 12 * (c.max_uniform_block_size as i64 / 4))
        }
        glow::MAX_COMBINED_GEOMETRY_UNIFORM_COMPONENTS => {
            i(1024 + 12 * (c.max_uniform_block_size as i64 / 4))
        }
        glow::MAX_VARYING_COMPONENTS => i(c.max_varying_components),
        glow::MAX_VARYING_VECTORS => i(c.max_varying_components / 4),
        // GLES: MAX_VARYING_COMPONENTS <= MAX_VERTEX_OUTPUT_COMPONENTS.
        glow::MAX_VERTEX_OUTPUT_COMPONENTS => i(c.max_varying_components.max(64)),
        glow::MAX_FRAGMENT_INPUT_COMPONENTS => i(c.max_varying_components.max(60)),
        glow::MAX_GEOMETRY_INPUT_COMPONENTS => i(64),
        glow::MAX_GEOMETRY_OUTPUT_COMPONENTS => i(128),
        glow::MAX_GEOMETRY_OUTPUT_VERTICES => i(256),
        // ARB_gpu_shader5 (its minimums, which GLES 3.2 and Vulkan meet).
        glow::MAX_GEOMETRY_SHADER_INVOCATIONS => {
            i(i64::from(crate::shader::MAX_GEOMETRY_SHADER_INVOCATIONS))
        }
        glow::MAX_VERTEX_STREAMS => i(i64::from(crate::shader::MAX_VERTEX_STREAMS)),
        glow::MIN_FRAGMENT_INTERPOLATION_OFFSET => f(-0.5),
        glow::MAX_FRAGMENT_INTERPOLATION_OFFSET => f(0.5),
        glow::FRAGMENT_INTERPOLATION_OFFSET_BITS => i(4),
        glow::MAX_GEOMETRY_TOTAL_OUTPUT_COMPONENTS => i(1024),
        // Tessellation (GL 4.0's minimums, which GLES 3.2 and Vulkan meet
        // where the backend has the stages: `gl::tess`).
        glow::PATCH_VERTICES if tess => i(s.patch_vertices),
        glow::PATCH_DEFAULT_OUTER_LEVEL if tess => Some(Vals::F(
            s.patch_default_outer.iter().map(|&v| f64::from(v)).collect(),
        )),
        glow::PATCH_DEFAULT_INNER_LEVEL if tess => Some(Vals::F(
            s.patch_default_inner.iter().map(|&v| f64::from(v)).collect(),
        )),
        glow::MAX_PATCH_VERTICES if tess => i(super::tess::MAX_PATCH_VERTICES),
        glow::MAX_TESS_GEN_LEVEL if tess => i(super::tess::MAX_TESS_GEN_LEVEL),
        glow::MAX_TESS_CONTROL_UNIFORM_COMPONENTS
        | glow::MAX_TESS_EVALUATION_UNIFORM_COMPONENTS
            if tess =>
        {
            i(1024)
        }
        glow::MAX_TESS_CONTROL_TEXTURE_IMAGE_UNITS
        | glow::MAX_TESS_EVALUATION_TEXTURE_IMAGE_UNITS
            if tess =>
        {
            i(16)
        }
        glow::MAX_TESS_CONTROL_OUTPUT_COMPONENTS
        | glow::MAX_TESS_CONTROL_INPUT_COMPONENTS
        | glow::MAX_TESS_EVALUATION_INPUT_COMPONENTS
        | glow::MAX_TESS_EVALUATION_OUTPUT_COMPONENTS
            if tess =>
        {
            i(128)
        }
        glow::MAX_TESS_PATCH_COMPONENTS if tess => i(120),
        glow::MAX_TESS_CONTROL_TOTAL_OUTPUT_COMPONENTS if tess => i(4096),
        glow::MAX_TESS_CONTROL_UNIFORM_BLOCKS | glow::MAX_TESS_EVALUATION_UNIFORM_BLOCKS
            if tess =>
        {
            i(super::shaders::MAX_STAGE_UNIFORM_BLOCKS as i64)
        }
        glow::MAX_COMBINED_TESS_CONTROL_UNIFORM_COMPONENTS
        | glow::MAX_COMBINED_TESS_EVALUATION_UNIFORM_COMPONENTS
            if tess =>
        {
            i(1024 + 12 * (c.max_uniform_block_size as i64 / 4))
        }
        glow::MAX_TEXTURE_BUFFER_SIZE => i(super::texbuf::MAX_TEXELS as i64),
        glow::TEXTURE_BUFFER_OFFSET_ALIGNMENT => i(super::texbuf::OFFSET_ALIGNMENT as i64),
        glow::MAX_TEXTURE_LOD_BIAS => f(c.max_texture_lod_bias),
        glow::MAX_TEXTURE_MAX_ANISOTROPY_EXT => f(c.max_texture_max_anisotropy),
        glow::MAX_VIEWPORT_DIMS => Some(Vals::I(vec![
            c.max_viewport_dims[0] as i64,
            c.max_viewport_dims[1] as i64,
        ])),
        glow::MAX_ELEMENTS_VERTICES => i(c.max_elements_vertices),
        glow::MAX_ELEMENTS_INDICES => i(c.max_elements_indices),
        glow::MAX_CLIP_DISTANCES => i(8),
        glow::MAX_SAMPLE_MASK_WORDS => i(1),
        glow::MAX_UNIFORM_LOCATIONS => i(super::shaders::MAX_UNIFORM_LOCATIONS as i64),
        // Debug output (KHR_debug).
        glow::MAX_DEBUG_MESSAGE_LENGTH => i(super::debug::MAX_DEBUG_MESSAGE_LENGTH as i64),
        glow::MAX_DEBUG_LOGGED_MESSAGES => i(super::debug::MAX_DEBUG_LOGGED_MESSAGES as i64),
        glow::MAX_DEBUG_GROUP_STACK_DEPTH => i(super::debug::MAX_DEBUG_GROUP_STACK_DEPTH as i64),
        glow::MAX_LABEL_LENGTH => i(super::debug::MAX_LABEL_LENGTH as i64),
        glow::DEBUG_LOGGED_MESSAGES => i(s.debug_out.log.len() as i64),
        glow::DEBUG_NEXT_LOGGED_MESSAGE_LENGTH => i(s
            .debug_out
            .log
            .first()
            .map_or(0, |m| m.text.len() as i64 + 1)),
        glow::DEBUG_GROUP_STACK_DEPTH => i(s.debug_out.group_depth() as i64),
        // Compute, storage buffers and images (GL 4.3 table 23.63 ff.).
        glow::MAX_COMPUTE_WORK_GROUP_INVOCATIONS => i(c
            .max_compute_work_group_invocations
            .min(crate::shader::MAX_COMPUTE_WORK_GROUP_INVOCATIONS)),
        glow::MAX_COMPUTE_SHARED_MEMORY_SIZE => i(c.max_compute_shared_memory_size),
        glow::MAX_COMPUTE_UNIFORM_BLOCKS => i(12),
        glow::MAX_COMPUTE_TEXTURE_IMAGE_UNITS => i(c.max_texture_image_units.min(16)),
        glow::MAX_COMPUTE_UNIFORM_COMPONENTS => i(1024),
        glow::MAX_COMBINED_COMPUTE_UNIFORM_COMPONENTS => {
            i(1024 + 12 * (c.max_uniform_block_size as i64 / 4))
        }
        // Atomic counters (fragment and compute stages, GL 4.3's minimums).
        glow::MAX_COMPUTE_ATOMIC_COUNTERS
        | glow::MAX_FRAGMENT_ATOMIC_COUNTERS
        | glow::MAX_COMBINED_ATOMIC_COUNTERS => i(super::compute::MAX_ATOMIC_COUNTERS),
        glow::MAX_COMPUTE_ATOMIC_COUNTER_BUFFERS
        | glow::MAX_FRAGMENT_ATOMIC_COUNTER_BUFFERS
        | glow::MAX_COMBINED_ATOMIC_COUNTER_BUFFERS
        | glow::MAX_ATOMIC_COUNTER_BUFFER_BINDINGS => i(super::compute::MAX_ATOMIC_BINDINGS as i64),
        glow::MAX_ATOMIC_COUNTER_BUFFER_SIZE => {
            i(i64::from(super::compute::MAX_ATOMIC_COUNTERS) * 4)
        }
        glow::MAX_VERTEX_ATOMIC_COUNTERS => i(0),
        glow::ATOMIC_COUNTER_BUFFER_BINDING => e(s.compute.atomic_counter_buffer),
        glow::MAX_IMAGE_UNITS => i(super::compute::image_unit_limit(gl) as i64),
        // Also GL_MAX_COMBINED_SHADER_OUTPUT_RESOURCES (GL 4.3): draw
        // buffers, image units and storage blocks together.
        glow::MAX_COMBINED_IMAGE_UNITS_AND_FRAGMENT_OUTPUTS => i((c
            .max_draw_buffers
            .min(MAX_DRAW_BUFFERS as u32) as usize
            + super::compute::image_unit_limit(gl)
            + super::compute::combined_storage_block_limit(gl))
            as i64),
        glow::MAX_COMPUTE_IMAGE_UNIFORMS
        | glow::MAX_FRAGMENT_IMAGE_UNIFORMS
        | glow::MAX_COMBINED_IMAGE_UNIFORMS => i(super::compute::image_unit_limit(gl) as i64),
        glow::MAX_VERTEX_IMAGE_UNIFORMS | glow::MAX_GEOMETRY_IMAGE_UNIFORMS => i(0),
        glow::MAX_IMAGE_SAMPLES => i(0),
        glow::MAX_SHADER_STORAGE_BUFFER_BINDINGS
        | glow::MAX_COMPUTE_SHADER_STORAGE_BLOCKS
        | glow::MAX_FRAGMENT_SHADER_STORAGE_BLOCKS => {
            i(super::compute::storage_binding_limit(gl) as i64)
        }
        glow::MAX_COMBINED_SHADER_STORAGE_BLOCKS => {
            i(super::compute::combined_storage_block_limit(gl) as i64)
        }
        // Storage blocks before the fragment stage where the backend has
        // them; images only in fragment and compute shaders (GLES 3.1
        // guarantees no more).
        glow::MAX_VERTEX_SHADER_STORAGE_BLOCKS | glow::MAX_GEOMETRY_SHADER_STORAGE_BLOCKS
            if c.features & mgpipe::caps::CAPS_FEATURE_VERTEX_STORAGE != 0 =>
        {
            i(super::compute::storage_binding_limit(gl) as i64)
        }
        glow::MAX_VERTEX_SHADER_STORAGE_BLOCKS
        | glow::MAX_GEOMETRY_SHADER_STORAGE_BLOCKS
        | glow::MAX_TESS_CONTROL_SHADER_STORAGE_BLOCKS
        | glow::MAX_TESS_EVALUATION_SHADER_STORAGE_BLOCKS
        | glow::MAX_TESS_CONTROL_IMAGE_UNIFORMS
        | glow::MAX_TESS_EVALUATION_IMAGE_UNIFORMS
        | glow::MAX_TESS_CONTROL_ATOMIC_COUNTERS
        | glow::MAX_TESS_EVALUATION_ATOMIC_COUNTERS
        | glow::MAX_GEOMETRY_ATOMIC_COUNTERS
        | glow::MAX_VERTEX_ATOMIC_COUNTER_BUFFERS
        | glow::MAX_GEOMETRY_ATOMIC_COUNTER_BUFFERS
        | glow::MAX_TESS_CONTROL_ATOMIC_COUNTER_BUFFERS
        | glow::MAX_TESS_EVALUATION_ATOMIC_COUNTER_BUFFERS => i(0),
        glow::MAX_SHADER_STORAGE_BLOCK_SIZE => i(c.max_shader_storage_block_size),
        glow::SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT => {
            i(c.shader_storage_buffer_offset_alignment.max(1))
        }
        glow::SHADER_STORAGE_BUFFER_BINDING => e(s.compute.shader_storage_buffer),
        glow::DISPATCH_INDIRECT_BUFFER_BINDING => e(s.compute.dispatch_indirect_buffer),
        // glWaitSync takes only TIMEOUT_IGNORED; the server wait itself is
        // unbounded, so report the largest value every getter can hold.
        glow::MAX_SERVER_WAIT_TIMEOUT => i(i32::MAX as i64),
        glow::MAX_PROGRAM_TEXEL_OFFSET => i(7),
        glow::MIN_PROGRAM_TEXEL_OFFSET => i(-8),
        // ARB_texture_gather / GLES 3.1 minimums.
        glow::MIN_PROGRAM_TEXTURE_GATHER_OFFSET => i(-8),
        glow::MAX_PROGRAM_TEXTURE_GATHER_OFFSET => i(7),
        // GL_MAX_PROGRAM_TEXTURE_GATHER_COMPONENTS_ARB
        0x8F9F => i(4),
        glow::MAX_TRANSFORM_FEEDBACK_SEPARATE_ATTRIBS => i(4),
        glow::MAX_TRANSFORM_FEEDBACK_INTERLEAVED_COMPONENTS => i(64),
        glow::MAX_TRANSFORM_FEEDBACK_SEPARATE_COMPONENTS => i(4),
        glow::MAX_TRANSFORM_FEEDBACK_BUFFERS => i(crate::gl::xfb::MAX_XFB_BUFFERS as i64),
        glow::SUBPIXEL_BITS => i(4),
        glow::ALIASED_LINE_WIDTH_RANGE => Some(Vals::F(vec![
            c.aliased_line_width_range[0] as f64,
            c.aliased_line_width_range[1] as f64,
        ])),
        glow::SMOOTH_LINE_WIDTH_RANGE => Some(Vals::F(vec![1.0, 1.0])),
        glow::SMOOTH_LINE_WIDTH_GRANULARITY | glow::POINT_SIZE_GRANULARITY => f(0.125),
        glow::POINT_SIZE_RANGE => Some(Vals::F(vec![
            c.point_size_range[0] as f64,
            c.point_size_range[1] as f64,
        ])),
        // Compatibility profile only (GL 4.6 compatibility table 23.56).
        glow::ALIASED_POINT_SIZE_RANGE if !s.is_core() => Some(Vals::F(vec![
            c.point_size_range[0] as f64,
            c.point_size_range[1] as f64,
        ])),
        // Compatibility profile only (table 23.73): we offer no auxiliary
        // color buffers.
        AUX_BUFFERS if !s.is_core() => i(0),
        p if super::state::clamp_color_index(p, s.is_core()).is_some() => Some(Vals::E(vec![
            s.clamp_color[super::state::clamp_color_index(p, s.is_core()).unwrap_or(0)] as i64,
        ])),
        glow::NUM_COMPRESSED_TEXTURE_FORMATS => i(0),
        glow::COMPRESSED_TEXTURE_FORMATS => Some(Vals::I(vec![])),
        glow::NUM_PROGRAM_BINARY_FORMATS | glow::NUM_SHADER_BINARY_FORMATS => i(0),
        glow::SHADER_COMPILER => b(true),
        glow::MAX_VIEWPORTS => i(1),
        glow::MAX_FRAMEBUFFER_WIDTH => i(super::fb_params::limits(gl)[0]),
        glow::MAX_FRAMEBUFFER_HEIGHT => i(super::fb_params::limits(gl)[1]),
        glow::MAX_FRAMEBUFFER_LAYERS => i(super::fb_params::limits(gl)[2]),
        glow::MAX_FRAMEBUFFER_SAMPLES => i(super::fb_params::limits(gl)[3]),
        // The draw framebuffer's: a user framebuffer's attachments agree
        // on it when complete; our window surfaces are single-sampled.
        glow::SAMPLE_BUFFERS => i((gl.framebuffer_samples(s.draw_fbo) > 0) as i64),
        glow::SAMPLES => i(gl.framebuffer_samples(s.draw_fbo)),
        // EXT_texture_integer (advertised): a draw buffer is an integer one.
        RGBA_INTEGER_MODE_EXT => b(super::framebuffers::draws_integer(gl)),
        glow::DOUBLEBUFFER | glow::STEREO => b(false),
        glow::RED_BITS
        | glow::GREEN_BITS
        | glow::BLUE_BITS
        | glow::ALPHA_BITS
        | glow::DEPTH_BITS
        | glow::STENCIL_BITS
            if s.draw_fbo != 0 =>
        {
            i(i64::from(
                gl.framebuffer_bits(s.draw_fbo, pname).unwrap_or(0),
            ))
        }
        glow::RED_BITS | glow::GREEN_BITS | glow::BLUE_BITS | glow::ALPHA_BITS => {
            i(if s.draw_fbo == 0 {
                if s.draw_surface.is_some() {
                    8
                } else {
                    0
                }
            } else {
                8
            })
        }
        glow::DEPTH_BITS => i(
            if s.draw_surface
                .as_ref()
                .map(|x| x.desc.depth_stencil_format != 0)
                .unwrap_or(false)
            {
                24
            } else {
                0
            },
        ),
        glow::STENCIL_BITS => i(
            if s.draw_surface
                .as_ref()
                .map(|x| x.desc.depth_stencil_format != 0)
                .unwrap_or(false)
            {
                8
            } else {
                0
            },
        ),
        glow::IMPLEMENTATION_COLOR_READ_FORMAT => e(glow::RGBA),
        glow::IMPLEMENTATION_COLOR_READ_TYPE => e(glow::UNSIGNED_BYTE),
        glow::PROVOKING_VERTEX => e(s.provoking_vertex),
        glow::QUADS_FOLLOW_PROVOKING_VERTEX_CONVENTION => b(true),
        glow::LAYER_PROVOKING_VERTEX | glow::VIEWPORT_INDEX_PROVOKING_VERTEX => {
            e(glow::UNDEFINED_VERTEX)
        }
        // bindings
        glow::ARRAY_BUFFER_BINDING => e(s.array_buffer),
        glow::ELEMENT_ARRAY_BUFFER_BINDING => e(s
            .vaos
            .get(&s.vao)
            .and_then(|v| v.as_ref())
            .map(|v| v.element_buffer)
            .unwrap_or(0)),
        glow::COPY_READ_BUFFER_BINDING => e(s.copy_read_buffer),
        glow::COPY_WRITE_BUFFER_BINDING => e(s.copy_write_buffer),
        glow::PIXEL_PACK_BUFFER_BINDING => e(s.pixel_pack_buffer),
        glow::PIXEL_UNPACK_BUFFER_BINDING => e(s.pixel_unpack_buffer),
        glow::UNIFORM_BUFFER_BINDING => e(s.uniform_buffer),
        glow::TEXTURE_BUFFER_BINDING => e(s.texture_buffer),
        glow::TRANSFORM_FEEDBACK_BUFFER_BINDING => e(s.transform_feedback_buffer),
        glow::TRANSFORM_FEEDBACK_BINDING => e(s.xfb_binding),
        glow::TRANSFORM_FEEDBACK_PAUSED => b(s.xfb.paused),
        glow::TRANSFORM_FEEDBACK_ACTIVE => b(s.xfb.active),
        glow::DRAW_INDIRECT_BUFFER_BINDING => e(s.draw_indirect_buffer),
        glow::VERTEX_ARRAY_BINDING => e(s.vao),
        glow::CURRENT_PROGRAM => e(s.program),
        glow::PROGRAM_PIPELINE_BINDING => e(s.pipeline),
        glow::DRAW_FRAMEBUFFER_BINDING => e(s.draw_fbo),
        glow::READ_FRAMEBUFFER_BINDING => e(s.read_fbo),
        glow::RENDERBUFFER_BINDING => e(s.renderbuffer),
        glow::ACTIVE_TEXTURE => e(glow::TEXTURE0 + s.active_texture),
        glow::SAMPLER_BINDING => e(s.sampler_units[s.active_texture as usize]),
        glow::TEXTURE_BINDING_1D => texture_binding(gl, glow::TEXTURE_1D),
        glow::TEXTURE_BINDING_2D => texture_binding(gl, glow::TEXTURE_2D),
        glow::TEXTURE_BINDING_3D => texture_binding(gl, glow::TEXTURE_3D),
        glow::TEXTURE_BINDING_1D_ARRAY => texture_binding(gl, glow::TEXTURE_1D_ARRAY),
        glow::TEXTURE_BINDING_2D_ARRAY => texture_binding(gl, glow::TEXTURE_2D_ARRAY),
        glow::TEXTURE_BINDING_RECTANGLE => texture_binding(gl, glow::TEXTURE_RECTANGLE),
        glow::TEXTURE_BINDING_CUBE_MAP => texture_binding(gl, glow::TEXTURE_CUBE_MAP),
        glow::TEXTURE_BINDING_CUBE_MAP_ARRAY => texture_binding(gl, glow::TEXTURE_CUBE_MAP_ARRAY),
        glow::TEXTURE_BINDING_BUFFER => texture_binding(gl, glow::TEXTURE_BUFFER),
        // ARB_texture_buffer_object: the active unit's buffer texture.
        0x8C2E /* TEXTURE_BUFFER_FORMAT_ARB */ => {
            e(super::texbuf::bound_attachment(gl).internal_format)
        }
        glow::TEXTURE_BUFFER_DATA_STORE_BINDING => e(super::texbuf::bound_attachment(gl).buffer),
        glow::TEXTURE_BINDING_2D_MULTISAMPLE => texture_binding(gl, glow::TEXTURE_2D_MULTISAMPLE),
        glow::TEXTURE_BINDING_2D_MULTISAMPLE_ARRAY => {
            texture_binding(gl, glow::TEXTURE_2D_MULTISAMPLE_ARRAY)
        }
        // fixed function
        glow::VIEWPORT => Some(Vals::I(s.viewport.iter().map(|v| *v as i64).collect())),
        glow::SCISSOR_BOX => Some(Vals::I(s.scissor.iter().map(|v| *v as i64).collect())),
        glow::DEPTH_RANGE => Some(Vals::F(vec![
            s.depth_range[0] as f64,
            s.depth_range[1] as f64,
        ])),
        glow::COLOR_CLEAR_VALUE => Some(Vals::F(s.clear_color.iter().map(|v| *v as f64).collect())),
        glow::DEPTH_CLEAR_VALUE => Some(Vals::F(vec![s.clear_depth])),
        glow::STENCIL_CLEAR_VALUE => i(s.clear_stencil),
        glow::BLEND_COLOR => Some(Vals::F(s.blend_color.iter().map(|v| *v as f64).collect())),
        glow::BLEND_SRC_RGB | GL_BLEND_SRC => e(s.blend_src_rgb[0]),
        glow::BLEND_DST_RGB | GL_BLEND_DST => e(s.blend_dst_rgb[0]),
        glow::BLEND_SRC_ALPHA => e(s.blend_src_alpha[0]),
        glow::BLEND_DST_ALPHA => e(s.blend_dst_alpha[0]),
        glow::BLEND_EQUATION_RGB => e(s.blend_eq_rgb[0]),
        glow::BLEND_EQUATION_ALPHA => e(s.blend_eq_alpha[0]),
        glow::COLOR_WRITEMASK => {
            let m = s.color_mask[0];
            Some(Vals::B((0..4).map(|k| m & (1 << k) != 0).collect()))
        }
        glow::DEPTH_WRITEMASK => b(s.depth_mask),
        glow::DEPTH_FUNC => e(s.depth_func),
        glow::STENCIL_FUNC => e(s.stencil[0].func),
        glow::STENCIL_REF => i(s.stencil[0].reference),
        glow::STENCIL_VALUE_MASK => i(s.stencil[0].value_mask as i32),
        glow::STENCIL_WRITEMASK => i(s.stencil[0].write_mask as i32),
        glow::STENCIL_FAIL => e(s.stencil[0].fail),
        glow::STENCIL_PASS_DEPTH_FAIL => e(s.stencil[0].zfail),
        glow::STENCIL_PASS_DEPTH_PASS => e(s.stencil[0].zpass),
        glow::STENCIL_BACK_FUNC => e(s.stencil[1].func),
        glow::STENCIL_BACK_REF => i(s.stencil[1].reference),
        glow::STENCIL_BACK_VALUE_MASK => i(s.stencil[1].value_mask as i32),
        glow::STENCIL_BACK_WRITEMASK => i(s.stencil[1].write_mask as i32),
        glow::STENCIL_BACK_FAIL => e(s.stencil[1].fail),
        glow::STENCIL_BACK_PASS_DEPTH_FAIL => e(s.stencil[1].zfail),
        glow::STENCIL_BACK_PASS_DEPTH_PASS => e(s.stencil[1].zpass),
        glow::CULL_FACE_MODE => e(s.cull_mode),
        glow::FRONT_FACE => e(s.front_face),
        glow::POLYGON_OFFSET_FACTOR => f(s.polygon_offset[0]),
        glow::POLYGON_OFFSET_UNITS => f(s.polygon_offset[1]),
        GL_POLYGON_OFFSET_CLAMP => f(s.polygon_offset[2]),
        glow::POLYGON_MODE => Some(Vals::E(vec![
            s.polygon_mode[0] as i64,
            s.polygon_mode[1] as i64,
        ])),
        glow::LINE_WIDTH => f(s.line_width),
        glow::MIN_SAMPLE_SHADING_VALUE => f(s.min_sample_shading),
        glow::CLIP_ORIGIN => e(if s.clip_upper_left {
            glow::UPPER_LEFT
        } else {
            glow::LOWER_LEFT
        }),
        glow::CLIP_DEPTH_MODE => e(if s.clip_zero_to_one {
            glow::ZERO_TO_ONE
        } else {
            glow::NEGATIVE_ONE_TO_ONE
        }),
        glow::POINT_SIZE => f(s.point_size),
        glow::SAMPLE_COVERAGE_VALUE => f(s.sample_coverage_value),
        glow::SAMPLE_COVERAGE_INVERT => b(s.sample_coverage_invert),
        glow::LOGIC_OP_MODE => e(s.logic_op),
        glow::PRIMITIVE_RESTART_INDEX => i(s.primitive_restart_index as i64),
        glow::LINE_SMOOTH_HINT
        | glow::POLYGON_SMOOTH_HINT
        | glow::TEXTURE_COMPRESSION_HINT
        | glow::FRAGMENT_SHADER_DERIVATIVE_HINT => {
            e(s.hints.get(&pname).copied().unwrap_or(glow::DONT_CARE))
        }
        glow::PACK_ROW_LENGTH => i(s.pack.row_length),
        glow::PACK_IMAGE_HEIGHT => i(s.pack.image_height),
        glow::PACK_SKIP_PIXELS => i(s.pack.skip_pixels),
        glow::PACK_SKIP_ROWS => i(s.pack.skip_rows),
        glow::PACK_SKIP_IMAGES => i(s.pack.skip_images),
        glow::PACK_ALIGNMENT => i(s.pack.alignment),
        glow::PACK_SWAP_BYTES => b(s.pack.swap_bytes),
        glow::PACK_LSB_FIRST => b(s.pack.lsb_first),
        glow::UNPACK_ROW_LENGTH => i(s.unpack.row_length),
        glow::UNPACK_IMAGE_HEIGHT => i(s.unpack.image_height),
        glow::UNPACK_SKIP_PIXELS => i(s.unpack.skip_pixels),
        glow::UNPACK_SKIP_ROWS => i(s.unpack.skip_rows),
        glow::UNPACK_SKIP_IMAGES => i(s.unpack.skip_images),
        glow::UNPACK_ALIGNMENT => i(s.unpack.alignment),
        glow::UNPACK_SWAP_BYTES => b(s.unpack.swap_bytes),
        glow::UNPACK_LSB_FIRST => b(s.unpack.lsb_first),
        glow::DRAW_BUFFER => e(draw_buffer(gl, 0)),
        glow::READ_BUFFER => {
            let s = &*gl.st;
            e(if s.read_fbo == 0 {
                s.default_read_buffer
            } else {
                s.fbos
                    .get(&s.read_fbo)
                    .and_then(|f| f.as_ref())
                    .map(|f| f.read_buffer)
                    .unwrap_or(glow::NONE)
            })
        }
        p if (glow::DRAW_BUFFER0..glow::DRAW_BUFFER0 + MAX_DRAW_BUFFERS as u32).contains(&p) => {
            e(draw_buffer(gl, (p - glow::DRAW_BUFFER0) as usize))
        }
        glow::TIMESTAMP => i(super::queries::timestamp(gl)),
        glow::RESET_NOTIFICATION_STRATEGY => e(glow::NO_RESET_NOTIFICATION),
        glow::CONTEXT_RELEASE_BEHAVIOR => e(glow::CONTEXT_RELEASE_BEHAVIOR_FLUSH),
        p if !s.is_core() && super::legacy_arrays::is_query(p) => {
            use super::legacy_arrays::Answer;
            match super::legacy_arrays::query(gl, p)? {
                Answer::Int(v) => i(v),
                Answer::Enum(v) => e(v),
                Answer::Floats(v) => Some(Vals::F(v.into_iter().map(f64::from).collect())),
            }
        }
        super::points::POINT_SPRITE_COORD_ORIGIN => super::points::get(gl, pname)
            .and_then(|v| v.first().copied())
            .and_then(|v| e(v as u32)),
        p if super::points::get(gl, p).is_some() => super::points::get(gl, p).map(Vals::F),
        p if !gl.st.is_core() && super::fixed_function::get(gl, p).is_some() => {
            super::fixed_function::get(gl, p).map(Vals::F)
        }
        p if !gl.st.is_core() && super::dlist::get(gl, p).is_some() => {
            super::dlist::get(gl, p).map(Vals::I)
        }
        p if !gl.st.is_core() && super::raster::get(gl, p).is_some() => {
            super::raster::get(gl, p).map(Vals::F)
        }
        _ => {
            let gl_ref: &Gl = gl;
            match super::matrix::get(gl_ref, pname) {
                Some(Ok(v)) => return Some(Vals::F(v)),
                Some(Err(e)) => {
                    gl.st.set_error(e);
                    return Some(Vals::F(Vec::new()));
                }
                None => {}
            }
            super::state::get_cap(gl_ref, pname).map(|v| Vals::B(vec![v]))
        }
    }
}

fn draw_buffer(gl: &Gl, i: usize) -> u32 {
    let s = &*gl.st;
    if s.draw_fbo == 0 {
        return if i == 0 {
            s.default_draw_buffer
        } else {
            glow::NONE
        };
    }
    s.fbos
        .get(&s.draw_fbo)
        .and_then(|f| f.as_ref())
        .map(|f| f.draw_buffers[i])
        .unwrap_or(glow::NONE)
}

fn get(pname: u32) -> Option<Vals> {
    with_gl(|gl| {
        let r = query(gl, pname);
        if r.is_none() {
            gl.st.set_error(glow::INVALID_ENUM);
        }
        r.map(Some).unwrap_or(None)
    })
}

impl Default for Vals {
    fn default() -> Self {
        Vals::I(Vec::new())
    }
}

/// Float → int conversion GL uses for colour-like values: round.
fn as_ints(v: Vals) -> Vec<i64> {
    match v {
        Vals::I(x) | Vals::E(x) => x,
        Vals::F(x) => x.iter().map(|f| f.round() as i64).collect(),
        Vals::B(x) => x.iter().map(|b| *b as i64).collect(),
    }
}

fn as_floats(v: Vals) -> Vec<f64> {
    match v {
        Vals::I(x) | Vals::E(x) => x.iter().map(|i| *i as f64).collect(),
        Vals::F(x) => x,
        Vals::B(x) => x.iter().map(|b| *b as i64 as f64).collect(),
    }
}

fn as_bools(v: Vals) -> Vec<bool> {
    match v {
        Vals::I(x) | Vals::E(x) => x.iter().map(|i| *i != 0).collect(),
        Vals::F(x) => x.iter().map(|f| *f != 0.0).collect(),
        Vals::B(x) => x,
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetIntegerv(pname: u32, out: *mut i32) {
    if let Some(v) = get(pname) {
        for (k, x) in as_ints(v).iter().enumerate() {
            // SAFETY: GL promises room for the values of `pname`.
            unsafe {
                put(
                    out.add(k),
                    (*x).clamp(i32::MIN as i64, i32::MAX as i64) as i32,
                )
            };
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetInteger64v(pname: u32, out: *mut i64) {
    if let Some(v) = get(pname) {
        for (k, x) in as_ints(v).iter().enumerate() {
            // SAFETY: GL promises room for the values of `pname`.
            unsafe { put(out.add(k), *x) };
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetFloatv(pname: u32, out: *mut f32) {
    if let Some(v) = get(pname) {
        for (k, x) in as_floats(v).iter().enumerate() {
            // SAFETY: GL promises room for the values of `pname`.
            unsafe { put(out.add(k), *x as f32) };
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetDoublev(pname: u32, out: *mut f64) {
    if let Some(v) = get(pname) {
        for (k, x) in as_floats(v).iter().enumerate() {
            // SAFETY: GL promises room for the values of `pname`.
            unsafe { put(out.add(k), *x) };
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetBooleanv(pname: u32, out: *mut u8) {
    if let Some(v) = get(pname) {
        for (k, x) in as_bools(v).iter().enumerate() {
            // SAFETY: GL promises room for the values of `pname`.
            unsafe { put(out.add(k), *x as u8) };
        }
    }
}

fn get_indexed(pname: u32, index: u32) -> Option<Vals> {
    with_gl(|gl| {
        if matches!(
            pname,
            glow::VERTEX_BINDING_BUFFER
                | glow::VERTEX_BINDING_OFFSET
                | glow::VERTEX_BINDING_STRIDE
                | glow::VERTEX_BINDING_DIVISOR
        ) {
            let v = super::vertex::binding_param(gl, pname, index)?;
            return Some(if pname == glow::VERTEX_BINDING_BUFFER {
                Vals::E(vec![v])
            } else {
                Vals::I(vec![v])
            });
        }
        if let Some(r) = super::compute::indexed_param(gl, pname, index) {
            return match r {
                Ok(v) if pname == glow::IMAGE_BINDING_LAYERED => Some(Vals::B(vec![v != 0])),
                Ok(v) => Some(Vals::I(vec![v])),
                Err(e) => {
                    gl.st.set_error(e);
                    None
                }
            };
        }
        let s = &*gl.st;
        let r = match pname {
            glow::UNIFORM_BUFFER_BINDING
            | glow::UNIFORM_BUFFER_START
            | glow::UNIFORM_BUFFER_SIZE => {
                let Some(bnd) = s.uniform_bindings.get(index as usize) else {
                    gl.st.set_error(glow::INVALID_VALUE);
                    return None;
                };
                match pname {
                    glow::UNIFORM_BUFFER_BINDING => Vals::E(vec![bnd.buffer as i64]),
                    glow::UNIFORM_BUFFER_START => Vals::I(vec![bnd.offset as i64]),
                    _ => Vals::I(vec![bnd.size as i64]),
                }
            }
            glow::TRANSFORM_FEEDBACK_BUFFER_BINDING
            | glow::TRANSFORM_FEEDBACK_BUFFER_START
            | glow::TRANSFORM_FEEDBACK_BUFFER_SIZE => {
                let Some(bnd) = s.xfb.bindings.get(index as usize) else {
                    gl.st.set_error(glow::INVALID_VALUE);
                    return None;
                };
                match pname {
                    glow::TRANSFORM_FEEDBACK_BUFFER_BINDING => Vals::E(vec![bnd.buffer as i64]),
                    glow::TRANSFORM_FEEDBACK_BUFFER_START => Vals::I(vec![bnd.offset as i64]),
                    _ => Vals::I(vec![bnd.size as i64]),
                }
            }
            glow::BLEND => {
                if index as usize >= MAX_DRAW_BUFFERS {
                    gl.st.set_error(glow::INVALID_VALUE);
                    return None;
                }
                Vals::B(vec![s.blend_enabled & (1 << index) != 0])
            }
            glow::BLEND_SRC_RGB
            | GL_BLEND_SRC
            | glow::BLEND_DST_RGB
            | GL_BLEND_DST
            | glow::BLEND_SRC_ALPHA
            | glow::BLEND_DST_ALPHA
            | glow::BLEND_EQUATION_RGB
            | glow::BLEND_EQUATION_ALPHA => {
                let arr = match pname {
                    glow::BLEND_SRC_RGB | GL_BLEND_SRC => &s.blend_src_rgb,
                    glow::BLEND_DST_RGB | GL_BLEND_DST => &s.blend_dst_rgb,
                    glow::BLEND_SRC_ALPHA => &s.blend_src_alpha,
                    glow::BLEND_DST_ALPHA => &s.blend_dst_alpha,
                    glow::BLEND_EQUATION_RGB => &s.blend_eq_rgb,
                    _ => &s.blend_eq_alpha,
                };
                let Some(v) = arr.get(index as usize) else {
                    gl.st.set_error(glow::INVALID_VALUE);
                    return None;
                };
                Vals::E(vec![*v as i64])
            }
            // One viewport (GL_MAX_VIEWPORTS is 1): index 0 only.
            glow::VIEWPORT | glow::SCISSOR_BOX | glow::DEPTH_RANGE if index != 0 => {
                gl.st.set_error(glow::INVALID_VALUE);
                return None;
            }
            glow::VIEWPORT => Vals::I(s.viewport.iter().map(|v| *v as i64).collect()),
            glow::SCISSOR_BOX => Vals::I(s.scissor.iter().map(|v| *v as i64).collect()),
            glow::DEPTH_RANGE => Vals::F(s.depth_range.iter().map(|v| *v as f64).collect()),
            glow::COLOR_WRITEMASK => {
                let Some(m) = s.color_mask.get(index as usize) else {
                    gl.st.set_error(glow::INVALID_VALUE);
                    return None;
                };
                Vals::B((0..4).map(|k| m & (1 << k) != 0).collect())
            }
            glow::SAMPLE_MASK_VALUE => {
                if index != 0 {
                    gl.st.set_error(glow::INVALID_VALUE);
                    return None;
                }
                // A bit mask: returned with its bits as they are.
                Vals::I(vec![s.sample_mask_value as i32 as i64])
            }
            _ => {
                gl.st.set_error(glow::INVALID_ENUM);
                return None;
            }
        };
        Some(r)
    })
}

#[no_mangle]
pub unsafe extern "C" fn glGetIntegeri_v(pname: u32, index: u32, out: *mut i32) {
    if let Some(v) = get_indexed(pname, index) {
        for (k, x) in as_ints(v).iter().enumerate() {
            // SAFETY: GL promises room for the values of `pname`.
            unsafe { put(out.add(k), *x as i32) };
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetInteger64i_v(pname: u32, index: u32, out: *mut i64) {
    if let Some(v) = get_indexed(pname, index) {
        for (k, x) in as_ints(v).iter().enumerate() {
            // SAFETY: GL promises room for the values of `pname`.
            unsafe { put(out.add(k), *x) };
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetBooleani_v(pname: u32, index: u32, out: *mut u8) {
    if let Some(v) = get_indexed(pname, index) {
        for (k, x) in as_bools(v).iter().enumerate() {
            // SAFETY: GL promises room for the values of `pname`.
            unsafe { put(out.add(k), *x as u8) };
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetFloati_v(pname: u32, index: u32, out: *mut f32) {
    if let Some(v) = get_indexed(pname, index) {
        for (k, x) in as_floats(v).iter().enumerate() {
            // SAFETY: GL promises room for the values of `pname`.
            unsafe { put(out.add(k), *x as f32) };
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetDoublei_v(pname: u32, index: u32, out: *mut f64) {
    if let Some(v) = get_indexed(pname, index) {
        for (k, x) in as_floats(v).iter().enumerate() {
            // SAFETY: GL promises room for the values of `pname`.
            unsafe { put(out.add(k), *x) };
        }
    }
}

#[no_mangle]
pub unsafe extern "C" fn glGetGraphicsResetStatus() -> u32 {
    crate::context::with_gl_exempt(|gl| {
        if gl.conn.lost().is_some() {
            glow::UNKNOWN_CONTEXT_RESET
        } else {
            glow::NO_ERROR
        }
    })
}
