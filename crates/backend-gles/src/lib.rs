//! `backend-gles`: the Espryt-style MGPipe applier over a native GLES 3.2
//! driver reached through EGL (DESIGN §5).
//!
//! [`GlesBackend`] implements `mgpipe::Screen` (share-group objects: caps,
//! contexts, surfaces, resources, fences) and `mgpipe::Context` (everything
//! else, applied to the context made current by `make_current`).
//!
//! * The native `libEGL` is `dlopen`ed with `RTLD_NOW | RTLD_LOCAL |
//!   RTLD_DEEPBIND` so its symbol lookups never land on our own exported
//!   `egl*`/`gl*` (the frontend is loaded as libEGL.so.1/libGL.so.1 in the
//!   same process); GL entry points come from its `eglGetProcAddress`.
//! * Every server context is in one share group (resources are
//!   screen-level) and is current with no surface (or a 1x1 pbuffer).
//! * The default framebuffer is emulated: a surface is a colour +
//!   depth/stencil renderbuffer pair, attached to one FBO per native context.
//! * Object tables are arrays indexed by handle slot with the generation
//!   checked; a stale/unknown handle is logged and the call skipped.
//! * Desktop-GL-only formats and behaviours are emulated in [`emulation`].
//!
//! Knobs: `MOBILEGL_NATIVE_EGL` (path of the native EGL),
//! `MOBILEGL_GLES_CHECK=1|0` (glGetError after every applied call; default
//! on in debug builds, off in release), `MOBILEGL_GLES_VAO_CACHE=1|0` (one
//! native VAO per vertex layout, `vao_cache.rs`; default on),
//! `MOBILEGL_GLES_UNIFORM_STREAM=1|0` (default uniform blocks streamed
//! through one persistently mapped buffer, `uniform_stream.rs`; default on
//! where the driver has `GL_EXT_buffer_storage`).

mod context;
mod egl;
pub mod emulation;
pub mod fp64;
mod images;
mod pipe;
mod queries;
pub mod sampling;
mod screen;
pub mod shader;
mod state;
mod table;
mod uniform_stream;
mod vao_cache;

use std::cell::Cell;
use std::thread::ThreadId;

use glow::HasContext;
use mgpipe::Handle;
use tracing::warn;

use crate::pipe::calls;
use crate::state::Shadow;
use crate::table::Table;

/// Default native EGL: the glvnd loader by absolute path (DESIGN §9).
pub const DEFAULT_NATIVE_EGL: &str = "/usr/lib/x86_64-linux-gnu/libEGL.so.1";

/// Every way opening the backend can fail, by name.
#[derive(Debug, thiserror::Error)]
pub enum GlesError {
    #[error("cannot load native EGL {path}: {detail}")]
    EglLoad { path: String, detail: String },
    #[error("no EGL display (neither surfaceless platform nor default display)")]
    NoDisplay,
    #[error("eglInitialize failed: {detail}")]
    Initialize { detail: String },
    #[error("no EGL config with GLES 3 renderable type")]
    NoConfig,
    #[error("cannot create a GLES 3.x context: {detail}")]
    ContextCreate { detail: String },
    #[error("eglMakeCurrent failed: {detail}")]
    MakeCurrent { detail: String },
    #[error("driver is not GLES 3.x: GL_VERSION = {version:?}")]
    NotGles3 { version: String },
    #[error("unknown value {value:?} for {knob}")]
    BadKnob { knob: &'static str, value: String },
}

/// `glMultiDrawArraysEXT`.
pub(crate) type MultiDrawArraysFn = unsafe extern "system" fn(u32, *const i32, *const i32, i32);
/// `glMultiDrawElementsEXT`.
pub(crate) type MultiDrawElementsFn =
    unsafe extern "system" fn(u32, *const i32, u32, *const *const std::ffi::c_void, i32);
/// `glMultiDrawElementsBaseVertexEXT`.
pub(crate) type MultiDrawElementsBaseVertexFn = unsafe extern "system" fn(
    u32,
    *const i32,
    u32,
    *const *const std::ffi::c_void,
    i32,
    *const i32,
);

/// The driver's multi-draw entry points, where its extensions offer them.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct MultiDrawFns {
    pub arrays: Option<MultiDrawArraysFn>,
    pub elements: Option<MultiDrawElementsFn>,
    pub elements_base_vertex: Option<MultiDrawElementsBaseVertexFn>,
}

impl MultiDrawFns {
    fn load(egl: &egl::Egl, ext: &std::collections::HashSet<String>) -> MultiDrawFns {
        if !ext.contains("GL_EXT_multi_draw_arrays") {
            return MultiDrawFns::default();
        }
        let get = |name: &str| {
            let f = egl.proc_address(name);
            (!f.is_null()).then_some(f)
        };
        // SAFETY: each pointer is the driver's entry point of that name,
        // whose C signature the type spells out; checked not null.
        unsafe {
            MultiDrawFns {
                arrays: get("glMultiDrawArraysEXT")
                    .map(|f| std::mem::transmute::<*const std::ffi::c_void, MultiDrawArraysFn>(f)),
                elements: get("glMultiDrawElementsEXT").map(|f| {
                    std::mem::transmute::<*const std::ffi::c_void, MultiDrawElementsFn>(f)
                }),
                elements_base_vertex:
                    ext.contains("GL_EXT_draw_elements_base_vertex")
                        .then(|| get("glMultiDrawElementsBaseVertexEXT"))
                        .flatten()
                        .map(|f| {
                            std::mem::transmute::<
                                *const std::ffi::c_void,
                                MultiDrawElementsBaseVertexFn,
                            >(f)
                        }),
            }
        }
    }
}

/// `glTexStorage3DMultisample` (GLES 3.2 core).
pub(crate) type TexStorage3DMultisampleFn =
    unsafe extern "system" fn(u32, i32, u32, i32, i32, i32, u8);
/// `glSampleMaski` (GLES 3.1 core).
pub(crate) type SampleMaskiFn = unsafe extern "system" fn(u32, u32);
/// `glMinSampleShading` (GLES 3.2 core).
pub(crate) type MinSampleShadingFn = unsafe extern "system" fn(f32);
/// `glPolygonOffsetClampEXT` (EXT_polygon_offset_clamp).
pub(crate) type PolygonOffsetClampFn = unsafe extern "system" fn(f32, f32, f32);
/// `glClipControlEXT` (EXT_clip_control).
pub(crate) type ClipControlFn = unsafe extern "system" fn(u32, u32);
/// glPolygonModeNV (GL_NV_polygon_mode): (face, mode).
pub(crate) type PolygonModeFn = unsafe extern "system" fn(u32, u32);
/// `glGetTexLevelParameteriv` (GLES 3.1 core).
pub(crate) type GetTexLevelParameterivFn = unsafe extern "system" fn(u32, i32, u32, *mut i32);

/// `glTexBuffer` (GLES 3.2 core).
pub(crate) type TexBufferFn = unsafe extern "system" fn(u32, u32, u32);
/// `glTexBufferRange` (GLES 3.2 core).
pub(crate) type TexBufferRangeFn = unsafe extern "system" fn(u32, u32, u32, isize, isize);

/// GLES 3.1/3.2 entry points glow does not wrap, loaded where the
/// version has them.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ExtraFns {
    pub tex_storage_3d_multisample: Option<TexStorage3DMultisampleFn>,
    pub tex_buffer: Option<TexBufferFn>,
    pub tex_buffer_range: Option<TexBufferRangeFn>,
    pub sample_mask_i: Option<SampleMaskiFn>,
    pub min_sample_shading: Option<MinSampleShadingFn>,
    pub polygon_offset_clamp: Option<PolygonOffsetClampFn>,
    pub clip_control: Option<ClipControlFn>,
    pub get_tex_level_parameter_iv: Option<GetTexLevelParameterivFn>,
    pub polygon_mode: Option<PolygonModeFn>,
}

impl ExtraFns {
    fn load(
        egl: &egl::Egl,
        minor: u32,
        offset_clamp: bool,
        clip_control: bool,
        polygon_mode: bool,
    ) -> ExtraFns {
        let get = |name: &str| {
            let f = egl.proc_address(name);
            (!f.is_null()).then_some(f)
        };
        // SAFETY: each pointer is the driver's core entry point of that
        // name (present from the GLES minor version checked) or of an
        // extension it lists, whose C signature the type spells out;
        // checked not null.
        unsafe {
            ExtraFns {
                tex_storage_3d_multisample: (minor >= 2)
                    .then(|| get("glTexStorage3DMultisample"))
                    .flatten()
                    .map(|f| {
                        std::mem::transmute::<*const std::ffi::c_void, TexStorage3DMultisampleFn>(f)
                    }),
                tex_buffer: (minor >= 2)
                    .then(|| get("glTexBuffer"))
                    .flatten()
                    .map(|f| std::mem::transmute::<*const std::ffi::c_void, TexBufferFn>(f)),
                tex_buffer_range: (minor >= 2)
                    .then(|| get("glTexBufferRange"))
                    .flatten()
                    .map(|f| std::mem::transmute::<*const std::ffi::c_void, TexBufferRangeFn>(f)),
                sample_mask_i: (minor >= 1)
                    .then(|| get("glSampleMaski"))
                    .flatten()
                    .map(|f| std::mem::transmute::<*const std::ffi::c_void, SampleMaskiFn>(f)),
                min_sample_shading: (minor >= 2)
                    .then(|| get("glMinSampleShading"))
                    .flatten()
                    .map(|f| std::mem::transmute::<*const std::ffi::c_void, MinSampleShadingFn>(f)),
                polygon_offset_clamp: offset_clamp
                    .then(|| get("glPolygonOffsetClampEXT"))
                    .flatten()
                    .map(|f| {
                        std::mem::transmute::<*const std::ffi::c_void, PolygonOffsetClampFn>(f)
                    }),
                clip_control: clip_control
                    .then(|| get("glClipControlEXT"))
                    .flatten()
                    .map(|f| std::mem::transmute::<*const std::ffi::c_void, ClipControlFn>(f)),
                get_tex_level_parameter_iv: (minor >= 1)
                    .then(|| get("glGetTexLevelParameteriv"))
                    .flatten()
                    .map(|f| {
                        std::mem::transmute::<*const std::ffi::c_void, GetTexLevelParameterivFn>(f)
                    }),
                polygon_mode: polygon_mode
                    .then(|| get("glPolygonModeNV"))
                    .flatten()
                    .map(|f| std::mem::transmute::<*const std::ffi::c_void, PolygonModeFn>(f)),
            }
        }
    }
}

/// Driver features looked up once.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Features {
    /// GLES 3.2 core (indexed blend/mask, base vertex, glFramebufferTexture).
    pub gles32: bool,
    pub gles31: bool,
    pub norm16: bool,
    pub anisotropy: bool,
    pub max_draw_buffers: usize,
    pub max_attribs: usize,
    pub max_units: usize,
    /// Image units and storage-buffer bindings the driver has, clamped to
    /// the `set_shader_images` / `set_shader_buffers` slots (0 on GLES 3.0).
    pub max_image_units: usize,
    /// The driver has 16 image units or more: unit k's texture is bound
    /// to unit k + 8 as well, for the write-only twins of read-write
    /// images (`sampling::qualify_storage_images`).
    pub alias_image_units: bool,
    /// GL_NV_image_formats (and norm16) for image units (images.rs).
    pub image_formats: crate::images::ImageFormats,
    pub max_ssbo_bindings: usize,
    /// SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT (1 on GLES 3.0).
    pub ssbo_align: u32,
    /// MAX_COMPUTE_WORK_GROUP_COUNT per axis (0 on GLES 3.0).
    pub max_compute_groups: [u32; 3],
    /// glReadPixels of DEPTH_COMPONENT / STENCIL_INDEX / DEPTH_STENCIL
    /// (GL_NV_read_depth, GL_NV_read_stencil, GL_NV_read_depth_stencil):
    /// without them GLES reads colour only.
    pub read_depth: bool,
    pub read_stencil: bool,
    pub read_depth_stencil: bool,
    /// One native VAO per vertex layout (vao_cache.rs); off with
    /// MOBILEGL_GLES_VAO_CACHE=0 (then every VAO switch re-specifies the
    /// context VAO's attributes).
    pub vao_cache: bool,
    /// The driver rasterises on the CPU (llvmpipe, softpipe, SwiftShader):
    /// a glReadPixels is a synchronous copy out of host memory, as cheap
    /// per byte in bands as whole. A GPU driver pays a flush, a transfer
    /// and a wait per call (NVIDIA: 256 KiB in eight bands took 169 µs
    /// where one read took 130), so only software drivers read in bands
    /// (`read_pixels_bands`).
    pub software: bool,
    pub fns: ExtraFns,
}

/// Whether a GL_RENDERER string names a CPU rasteriser.
pub(crate) fn is_software_renderer(renderer: &str) -> bool {
    let r = renderer.to_ascii_lowercase();
    ["llvmpipe", "softpipe", "swiftshader"]
        .iter()
        .any(|s| r.contains(s))
}

pub(crate) enum ResKind {
    Buffer {
        buf: glow::Buffer,
        size: u64,
    },
    Texture {
        tex: glow::Texture,
        /// GLES binding target (0 until known).
        target: u32,
        /// GLES internal format of the last defined level (0 until known).
        internal: u32,
        /// The client's format has no alpha; `internal` has one, kept at
        /// 1 for GL (`emulation::StorageFormat::alpha_one`).
        alpha_one: bool,
        samples: u32,
        /// View parameters last set on the texture object.
        params: TexParams,
        /// Mutable, the client's immutable storage, or promoted for an
        /// image unit (images.rs).
        storage: TexStorage,
    },
    Renderbuffer {
        rb: glow::Renderbuffer,
        internal: u32,
        /// As for textures.
        alpha_one: bool,
        samples: u32,
    },
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct TexParams {
    pub base_level: u32,
    pub max_level: u32,
    pub swizzle: [u32; 4],
    pub depth_stencil_mode: u32,
}

impl Default for TexParams {
    fn default() -> Self {
        TexParams {
            base_level: 0,
            max_level: 1000,
            swizzle: [glow::RED, glow::GREEN, glow::BLUE, glow::ALPHA],
            depth_stencil_mode: glow::DEPTH_COMPONENT,
        }
    }
}

/// How a texture's GLES storage was made.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) enum TexStorage {
    /// glTexImage* levels (or none yet).
    #[default]
    Mutable,
    /// The client's `texture_storage` (glTexStorage*).
    Immutable,
    /// Made immutable by the backend so an image unit can take it
    /// (images.rs); the client still sees a mutable texture.
    Promoted(images::Promoted),
}

pub(crate) struct Resource {
    pub kind: ResKind,
    pub gl_name: u32,
}

pub(crate) struct SurfaceEntry {
    pub width: u32,
    pub height: u32,
    pub color: Option<glow::Renderbuffer>,
    pub color_internal: u32,
    pub depth_stencil: Option<glow::Renderbuffer>,
    pub ds_internal: u32,
    pub samples: u32,
}

pub(crate) struct ShaderEntry {
    /// None: translation/compile/link failed; draws with it are skipped.
    pub program: Option<glow::Program>,
    pub global_binding: u32,
    pub global_size: u32,
    /// The block's own UBO (not streamed), written in place.
    pub global_ubo: Option<glow::Buffer>,
    /// Streamed: the block's bytes (zeros until set) and where they were
    /// last written (None: not yet, or lost to an orphaning).
    pub global_data: Vec<u8>,
    pub global_at: Option<uniform_stream::Placement>,
    pub is_compute: bool,
    /// Double vertex inputs fed from split `GL_DOUBLE` attributes (fp64.rs).
    pub f64_inputs: Vec<fp64::F64Input>,
    /// Emulation of the sampler LOD bias (sampling.rs): the texture units
    /// the program samples with an LOD (bit i: unit i; 0: bias changes
    /// nothing, and `lod_stages` is not kept).
    pub lod_units: u32,
    /// The stages' SPIR-V, kept to build the biased variant from.
    pub lod_stages: Option<Box<[Option<Vec<u32>>; 6]>>,
    /// The biased variant, built at the first draw that finds a non-zero
    /// bias on one of `lod_units`.
    pub lod_variant: Option<LodVariant>,
}

/// A program variant reading `mgl_LodBias[unit]` (sampling.rs).
pub(crate) struct LodVariant {
    /// None: its build failed (the plain program is used, unbiased).
    pub program: Option<glow::Program>,
    pub location: Option<glow::UniformLocation>,
    /// The biases last written to the uniform.
    pub sent: Option<[f32; 32]>,
}

/// A sampler CSO: the GLES sampler and the LOD bias GLES has no
/// parameter for (emulated in the shader, sampling.rs).
#[derive(Clone, Copy)]
pub(crate) struct SamplerEntry {
    pub sampler: glow::Sampler,
    pub lod_bias: f32,
}

/// Share-group (screen-level) tables.
#[derive(Default)]
pub(crate) struct ScreenTables {
    pub resources: Table<Resource>,
    pub surfaces: Table<SurfaceEntry>,
    pub fences: Table<glow::Fence>,
    pub render_states: Table<calls::CreateRenderState>,
    pub vertex_elements: Table<calls::CreateVertexElements>,
    /// Vertex-input CSOs (same handle namespace as vertex elements).
    /// Vertex-input CSOs with their `vao_cache::layout_key` (hashed once
    /// here, not per bind).
    pub vertex_inputs: Table<vao_cache::VertexInput>,
    pub samplers: Table<SamplerEntry>,
    /// Live sampler CSOs with a non-zero LOD bias: while 0, draws skip
    /// the bias emulation entirely.
    pub biased_samplers: u32,
    pub views: Table<calls::CreateSamplerView>,
    pub shaders: Table<ShaderEntry>,
    pub queries: Table<queries::QueryEntry>,
    /// MOBILEGL_GLES_UNIFORM_STREAM=1: the default-uniform stream.
    pub uniform_stream: Option<uniform_stream::UniformStream>,
}

pub(crate) struct FboEntry {
    pub fbo: glow::Framebuffer,
    /// The description last attached (None: never).
    pub desc: Option<calls::SetFramebufferState>,
    /// GLES draw buffer i is active.
    pub active: [bool; 8],
    /// A texture in `desc` got a new GL name (images.rs): attach `desc`
    /// again before the FBO is next bound.
    pub stale: bool,
}

/// The client-index streaming buffer of one context.
#[derive(Default)]
pub(crate) struct StreamBuf {
    pub buf: Option<glow::Buffer>,
    pub cap: usize,
    pub cursor: usize,
}

/// One client context: a native context and its per-context objects/state.
pub(crate) struct Ctx {
    pub egl: khronos_egl::Context,
    pub vao: Option<glow::VertexArray>,
    pub draw_surface: Handle,
    pub read_surface: Handle,
    pub shadow: Shadow,
    /// Framebuffer handles -> FBOs (per context: FBOs are not shared).
    pub fbos: Table<FboEntry>,
    /// Surface handles -> this context's FBO for that surface.
    pub surface_fbos: Table<glow::Framebuffer>,
    pub draw_default: bool,
    /// Something was drawn, cleared or blitted into a client framebuffer
    /// since the last compute dispatch (`Cx::flush_before_compute`).
    pub fbo_written: bool,
    pub draw_fbo: Handle,
    pub read_default: bool,
    pub read_fbo: Option<glow::Framebuffer>,
    pub read_desc: Option<calls::SetReadSurface>,
    /// A texture in `read_desc` got a new GL name (images.rs): attach it
    /// again before the read FBO is next bound.
    pub read_stale: bool,
    pub render_state: Handle,
    pub vertex_elements: Handle,
    pub shader: Handle,
    /// The bound shader's [`ShaderEntry::f64_inputs`].
    pub f64_inputs: Vec<fp64::F64Input>,
    pub vbufs: calls::SetVertexBuffers,
    /// `vao_cache::layout_key` of `vertex_elements` + `vbufs` when they came
    /// from a vertex-input CSO (None: set piecewise; the context VAO is used).
    pub layout: Option<u64>,
    pub vaos: vao_cache::VaoCache,
    pub index_buffer: Handle,
    pub attrib_defaults: calls::SetVertexAttribDefaults,
    /// Attributes whose current value is set from `attrib_defaults`.
    pub attrib_values_done: u32,
    pub views: calls::SetSamplerViews,
    pub samplers: calls::BindSamplers,
    pub cbufs: calls::SetConstantBuffers,
    /// Storage-buffer and image bindings (applied at draw/dispatch time).
    pub sbufs: calls::SetShaderBuffers,
    pub images: calls::SetShaderImages,
    pub viewport: calls::SetViewport,
    pub stream: StreamBuf,
    /// Transform feedback (context.rs `xfb_*`).
    pub xfb: XfbCtx,
}

/// Transform feedback of one context between `xfb_begin` and `xfb_end`.
/// The driver's glBeginTransformFeedback waits for the next draw, which
/// has the capturing program bound (GLES takes the program current at
/// begin); pause and resume follow the client's.
#[derive(Debug, Default)]
pub(crate) struct XfbCtx {
    pub begin: Option<calls::XfbBegin>,
    /// The client paused.
    pub paused: bool,
    /// The driver's transform feedback is active / paused.
    pub driver_active: bool,
    pub driver_paused: bool,
}

/// The GLES backend: one native EGL display, a share group of contexts.
pub struct GlesBackend {
    // Field order matters for drop: GL objects go before the EGL instance.
    pub(crate) gl: glow::Context,
    pub(crate) scr: ScreenTables,
    pub(crate) ctxs: Table<Ctx>,
    pub(crate) current: Option<Handle>,
    pub(crate) features: Features,
    pub(crate) check_errors: bool,
    /// The thread our native context is current on (None: none).
    pub(crate) thread: Cell<Option<ThreadId>>,
    /// Shadow of the root context (current when no client context is).
    pub(crate) root_shadow: Shadow,
    pub(crate) warned_present: bool,
    /// GL errors seen by `check` (MOBILEGL_GLES_CHECK).
    pub(crate) gl_errors: Cell<u64>,
    /// Image formats GLES refuses, each warned about once (images.rs).
    pub(crate) warned_image_formats: Vec<u32>,
    /// Origin of CPU-clock timestamps (see queries.rs).
    pub(crate) epoch: std::time::Instant,
    /// Reverse-channel outbox (`Screen::drain_events`).
    pub(crate) events: mgpipe::event::EventQueue,
    /// Client persistent maps whose GPU writes we report.
    pub(crate) persistent: mgpipe::event::PersistentMaps,
    /// Fences inserted and not yet seen signalled: polled when events are
    /// drained, so the client learns completions without asking.
    pub(crate) pending_fences: Vec<Handle>,
    pub(crate) multi_draw_fns: MultiDrawFns,
    pub(crate) egl: egl::Egl,
}

/// A `1|0` knob; unset gives `default`, anything else is refused by name.
fn bool_knob(knob: &'static str, default: bool) -> Result<bool, GlesError> {
    match std::env::var(knob).as_deref() {
        Ok("1") => Ok(true),
        Ok("0") => Ok(false),
        Ok(other) => Err(GlesError::BadKnob {
            knob,
            value: other.to_string(),
        }),
        Err(_) => Ok(default),
    }
}

impl GlesBackend {
    /// Open the native EGL named by `MOBILEGL_NATIVE_EGL` (default
    /// [`DEFAULT_NATIVE_EGL`]).
    pub fn open_default() -> Result<GlesBackend, GlesError> {
        let path =
            std::env::var("MOBILEGL_NATIVE_EGL").unwrap_or_else(|_| DEFAULT_NATIVE_EGL.to_string());
        Self::open(&path)
    }

    /// Open the native EGL at `path` (loaded isolated, see the crate doc).
    pub fn open(path: &str) -> Result<GlesBackend, GlesError> {
        let check_errors = bool_knob("MOBILEGL_GLES_CHECK", cfg!(debug_assertions))?;
        let vao_cache = bool_knob("MOBILEGL_GLES_VAO_CACHE", true)?;
        let uniform_stream = bool_knob("MOBILEGL_GLES_UNIFORM_STREAM", true)?;
        let egl = egl::Egl::load(path)?;
        // SAFETY: the root context is current on this thread (Egl::load made
        // it so); the loader hands out the native driver's entry points.
        let gl = unsafe { glow::Context::from_loader_function(|name| egl.proc_address(name)) };
        // SAFETY: plain queries on the current context.
        let (version, renderer) = unsafe {
            (
                gl.get_parameter_string(glow::VERSION),
                gl.get_parameter_string(glow::RENDERER),
            )
        };
        if !version.starts_with("OpenGL ES 3.") {
            return Err(GlesError::NotGles3 { version });
        }
        let minor = version
            .get(12..13)
            .and_then(|s| s.parse::<u32>().ok())
            .unwrap_or(0);
        let ext = gl.supported_extensions();
        // SAFETY: plain queries on the current context.
        let features = unsafe {
            Features {
                gles32: minor >= 2,
                gles31: minor >= 1,
                norm16: ext.contains("GL_EXT_texture_norm16"),
                anisotropy: ext.contains("GL_EXT_texture_filter_anisotropic"),
                read_depth: ext.contains("GL_NV_read_depth"),
                read_stencil: ext.contains("GL_NV_read_stencil"),
                read_depth_stencil: ext.contains("GL_NV_read_depth_stencil"),
                max_draw_buffers: gl.get_parameter_i32(glow::MAX_DRAW_BUFFERS).clamp(1, 8) as usize,
                max_attribs: gl.get_parameter_i32(glow::MAX_VERTEX_ATTRIBS).clamp(1, 16) as usize,
                max_units: gl
                    .get_parameter_i32(glow::MAX_COMBINED_TEXTURE_IMAGE_UNITS)
                    .clamp(1, 32) as usize,
                max_image_units: if minor >= 1 {
                    gl.get_parameter_i32(glow::MAX_IMAGE_UNITS).clamp(0, 8) as usize
                } else {
                    0
                },
                image_formats: crate::images::ImageFormats {
                    nv: minor >= 1 && ext.contains("GL_NV_image_formats"),
                    norm16: ext.contains("GL_EXT_texture_norm16"),
                },
                alias_image_units: minor >= 1
                    && gl.get_parameter_i32(glow::MAX_IMAGE_UNITS)
                        >= 2 * crate::sampling::IMAGE_ALIAS_OFFSET as i32,
                max_ssbo_bindings: if minor >= 1 {
                    gl.get_parameter_i32(glow::MAX_SHADER_STORAGE_BUFFER_BINDINGS)
                        .clamp(0, 16) as usize
                } else {
                    0
                },
                ssbo_align: if minor >= 1 {
                    gl.get_parameter_i32(glow::SHADER_STORAGE_BUFFER_OFFSET_ALIGNMENT)
                        .max(1) as u32
                } else {
                    1
                },
                max_compute_groups: if minor >= 1 {
                    [0, 1, 2].map(|i| {
                        gl.get_parameter_indexed_i32(glow::MAX_COMPUTE_WORK_GROUP_COUNT, i)
                            .max(0) as u32
                    })
                } else {
                    [0; 3]
                },
                vao_cache,
                software: is_software_renderer(&renderer),
                fns: ExtraFns::load(
                    &egl,
                    minor,
                    ext.contains("GL_EXT_polygon_offset_clamp"),
                    ext.contains("GL_EXT_clip_control"),
                    ext.contains("GL_NV_polygon_mode"),
                ),
            }
        };
        // SAFETY: the root context is current; tight client rows (no unpack
        // or pack state crosses the pipe).
        unsafe {
            gl.pixel_store_i32(glow::UNPACK_ALIGNMENT, 1);
            gl.pixel_store_i32(glow::PACK_ALIGNMENT, 1);
        }
        let multi_draw_fns = MultiDrawFns::load(&egl, ext);
        let scr = ScreenTables {
            uniform_stream: if uniform_stream {
                uniform_stream::UniformStream::new(&gl, uniform_stream::STREAM_BYTES)
            } else {
                None
            },
            ..Default::default()
        };
        tracing::info!(%version, %renderer, ?features, multi_draw = multi_draw_fns.elements_base_vertex.is_some(), uniform_stream = scr.uniform_stream.is_some(), "GLES backend open");
        Ok(GlesBackend {
            gl,
            scr,
            ctxs: Table::default(),
            current: None,
            features,
            check_errors,
            thread: Cell::new(Some(std::thread::current().id())),
            root_shadow: Shadow::default(),
            warned_present: false,
            gl_errors: Cell::new(0),
            warned_image_formats: Vec::new(),
            epoch: std::time::Instant::now(),
            events: Default::default(),
            persistent: Default::default(),
            pending_fences: Vec::new(),
            multi_draw_fns,
            egl,
        })
    }

    /// Stream default uniform blocks through a buffer of `bytes` from now
    /// on, as `MOBILEGL_GLES_UNIFORM_STREAM=1` does at open (tests: a small
    /// stream laps quickly). Shaders created before keep their own UBOs.
    /// False: the driver cannot stream (see `uniform_stream.rs`).
    pub fn stream_uniforms(&mut self, bytes: u32) -> bool {
        self.prepare();
        if let Some(old) = self.scr.uniform_stream.take() {
            // Shaders that pointed into it write their blocks again (a new
            // stream starts a new placement history).
            old.destroy(&self.gl);
            for sh in self.scr.shaders.values_mut() {
                sh.global_at = None;
            }
        }
        self.scr.uniform_stream = uniform_stream::UniformStream::new(&self.gl, bytes);
        self.scr.uniform_stream.is_some()
    }

    /// The native driver's GL_RENDERER.
    pub fn driver_renderer(&self) -> String {
        self.prepare();
        // SAFETY: a context is current (prepare).
        unsafe { self.gl.get_parameter_string(glow::RENDERER) }
    }

    /// GL errors logged so far (only counted while error checking is on:
    /// `MOBILEGL_GLES_CHECK=1`, or debug builds).
    pub fn gl_errors_seen(&self) -> Option<u64> {
        self.check_errors.then(|| self.gl_errors.get())
    }

    /// Release the native context from this thread, so the backend can be
    /// used from another one (the next call re-makes it current there).
    pub fn release_thread(&mut self) {
        self.egl.release();
        self.thread.set(None);
    }

    /// Make sure a native context is current on the calling thread: the
    /// client's current context, else the root.
    #[inline]
    pub(crate) fn prepare(&self) {
        if self.thread.get() != Some(current_thread_id()) {
            self.prepare_new_thread();
        }
    }

    /// [`GlesBackend::prepare`] on a thread that has not used the backend
    /// last: make the native context current here.
    #[cold]
    fn prepare_new_thread(&self) {
        let me = current_thread_id();
        let ctx = self
            .current
            .and_then(|h| self.ctxs.get(h))
            .map(|c| c.egl)
            .unwrap_or(self.egl.root);
        tracing::debug!(
            from = ?self.thread.get(),
            to = ?me,
            "GLES backend now used from another thread: native context made current there"
        );
        if let Err(e) = self.egl.make_current(ctx) {
            warn!("eglMakeCurrent on a new thread failed: {e}");
        }
        self.thread.set(Some(me));
    }

    /// After a call that allocates driver memory: always one glGetError, so
    /// the driver's GL_OUT_OF_MEMORY reaches the application (on_gl_error),
    /// which has no other way to learn it. Other codes are our own
    /// translation faults: logged, counted, not forwarded.
    pub(crate) fn check_alloc(&mut self, op: mgpipe::Opcode) {
        for _ in 0..8 {
            // SAFETY: plain query on the current context.
            let e = unsafe { self.gl.get_error() };
            if e == glow::NO_ERROR {
                break;
            }
            if e == glow::OUT_OF_MEMORY {
                self.events.push(mgpipe::event::Event::GlError {
                    code: e,
                    opcode: op as u16,
                });
            } else {
                self.gl_errors.set(self.gl_errors.get() + 1);
                warn!(call = op.name(), "GL error 0x{e:04X}");
            }
        }
    }

    /// glGetError after an applied call (MOBILEGL_GLES_CHECK).
    #[inline]
    pub(crate) fn check(&self, call: &'static str) {
        if self.check_errors {
            self.check_now(call);
        }
    }

    #[cold]
    fn check_now(&self, call: &'static str) {
        for _ in 0..8 {
            // SAFETY: plain query on the current context.
            let e = unsafe { self.gl.get_error() };
            if e == glow::NO_ERROR {
                break;
            }
            self.gl_errors.set(self.gl_errors.get() + 1);
            warn!(call, "GL error 0x{e:04X}");
        }
    }
}

/// The calling thread's id, cached per thread: `prepare` runs for every
/// record, and `std::thread::current()` costs a reference count there.
/// (Thread ids are never reused within a process.)
pub(crate) fn current_thread_id() -> ThreadId {
    thread_local!(static ME: ThreadId = std::thread::current().id());
    ME.with(|t| *t)
}

impl Drop for GlesBackend {
    fn drop(&mut self) {
        self.prepare();
        self.current = None;
        let gl = &self.gl;
        // SAFETY: share-group objects deleted on the current context; the
        // per-context objects are deleted with their native contexts.
        unsafe {
            for r in self.scr.resources.drain() {
                match r.kind {
                    ResKind::Buffer { buf, .. } => gl.delete_buffer(buf),
                    ResKind::Texture { tex, .. } => gl.delete_texture(tex),
                    ResKind::Renderbuffer { rb, .. } => gl.delete_renderbuffer(rb),
                }
            }
            for s in self.scr.surfaces.drain() {
                if let Some(rb) = s.color {
                    gl.delete_renderbuffer(rb);
                }
                if let Some(rb) = s.depth_stencil {
                    gl.delete_renderbuffer(rb);
                }
            }
            for f in self.scr.fences.drain() {
                gl.delete_sync(f);
            }
            for s in self.scr.samplers.drain() {
                gl.delete_sampler(s.sampler);
            }
            for s in self.scr.shaders.drain() {
                if let Some(p) = s.program {
                    gl.delete_program(p);
                }
                if let Some(p) = s.lod_variant.and_then(|v| v.program) {
                    gl.delete_program(p);
                }
                if let Some(b) = s.global_ubo {
                    gl.delete_buffer(b);
                }
            }
            if let Some(s) = self.scr.uniform_stream.take() {
                s.destroy(gl);
            }
        }
        let _ = self.egl.make_current(self.egl.root);
        for c in self.ctxs.drain() {
            self.egl.destroy_context(c.egl);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::is_software_renderer;

    #[test]
    fn software_renderers_are_recognised_by_name() {
        assert!(is_software_renderer("llvmpipe (LLVM 15.0.6, 256 bits)"));
        assert!(is_software_renderer("softpipe"));
        assert!(is_software_renderer(
            "Google SwiftShader (ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device)))"
        ));
        assert!(!is_software_renderer("NVIDIA H200/PCIe/SSE2"));
        assert!(!is_software_renderer("Adreno (TM) 740"));
        assert!(!is_software_renderer("Mali-G715"));
    }
}
