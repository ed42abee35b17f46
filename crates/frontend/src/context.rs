//! Per-context GL state, share groups and current-context tracking.
//!
//! The tracker keeps every piece of GL state the application can set or ask
//! for. At each validate point (draw, clear, blit, read) `validate` turns the
//! relevant state into MGPipe records in a fixed order, emitting only what
//! differs from what was last sent on this context (DESIGN §6).

use std::cell::{Cell, RefCell};
/// GL names are small dense integers: a fast non-cryptographic hash is
/// enough (SipHash was ~10 % of a draw's instructions).
type HashMap<K, V> = rustc_hash::FxHashMap<K, V>;
use crate::names::NameMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use mgpipe::calls;
use mgpipe::consts::*;
use mgpipe::{Handle, Pipe};

use crate::platform::{Api, ContextAttribs, ContextRef, PlatformError, Profile, SurfaceRef};
use crate::runtime::{ensure_conn, world, Conn, World};

/// One GL context as the window-system layer sees it. Its state lives in
/// the world under `id`.
#[derive(Debug)]
pub struct Context {
    pub id: usize,
    pub attribs: ContextAttribs,
    pub handle: Handle,
    /// What the application gets: GL version and profile we actually provide.
    pub version: (u32, u32),
    pub profile: Profile,
}

pub const MAX_TEXTURE_UNITS: usize = 48;
pub const MAX_UBO_BINDINGS: usize = 36;
// `GlState::uniform_points_dirty` has one bit per binding point.
const _: () = assert!(MAX_UBO_BINDINGS <= 64);
pub const MAX_ATTRIBS: usize = 16;
pub const MAX_DRAW_BUFFERS: usize = 8;
/// Texture targets a unit can hold, in a fixed order.
pub const TEXTURE_TARGETS: [u32; 11] = [
    glow::TEXTURE_1D,
    glow::TEXTURE_2D,
    glow::TEXTURE_3D,
    glow::TEXTURE_1D_ARRAY,
    glow::TEXTURE_2D_ARRAY,
    glow::TEXTURE_RECTANGLE,
    glow::TEXTURE_CUBE_MAP,
    glow::TEXTURE_CUBE_MAP_ARRAY,
    glow::TEXTURE_BUFFER,
    glow::TEXTURE_2D_MULTISAMPLE,
    glow::TEXTURE_2D_MULTISAMPLE_ARRAY,
];

/// First of the names the default texture objects take (16 per context):
/// far above anything glGen* hands out.
pub const DEFAULT_TEXTURE_NAMES: u32 = 0xFF00_0000;

pub fn target_index(target: u32) -> Option<usize> {
    TEXTURE_TARGETS.iter().position(|&t| t == target)
}

// ------------------------------------------------------------------ objects

#[derive(Debug, Clone)]
pub struct BufferMap {
    pub offset: u64,
    pub length: u64,
    pub access: u32,
    pub data: Vec<u8>,
    /// T2 state of a `MAP_PERSISTENT_BIT` map (`gl::persistent`).
    pub persistent: Option<crate::gl::persistent::PersistentMap>,
}

#[derive(Debug, Clone)]
pub struct Buffer {
    pub handle: Handle,
    pub size: u64,
    pub usage: u32,
    pub immutable: bool,
    pub storage_flags: u32,
    pub map: Option<BufferMap>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TexParams {
    pub min_filter: u32,
    pub mag_filter: u32,
    pub wrap_s: u32,
    pub wrap_t: u32,
    pub wrap_r: u32,
    pub min_lod: f32,
    pub max_lod: f32,
    pub lod_bias: f32,
    pub compare_mode: u32,
    pub compare_func: u32,
    pub border: [f32; 4],
    pub max_anisotropy: f32,
}

impl Default for TexParams {
    fn default() -> Self {
        TexParams {
            min_filter: glow::NEAREST_MIPMAP_LINEAR,
            mag_filter: glow::LINEAR,
            wrap_s: glow::REPEAT,
            wrap_t: glow::REPEAT,
            wrap_r: glow::REPEAT,
            min_lod: -1000.0,
            max_lod: 1000.0,
            lod_bias: 0.0,
            compare_mode: glow::NONE,
            compare_func: glow::LEQUAL,
            border: [0.0; 4],
            max_anisotropy: 1.0,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LevelInfo {
    pub width: u32,
    pub height: u32,
    pub depth: u32,
    /// The sized format the backends store.
    pub internal_format: u32,
    /// The internal format the application asked for (unsized, legacy or
    /// sized): what GL_TEXTURE_INTERNAL_FORMAT answers.
    pub requested: u32,
}

impl LevelInfo {
    /// The legacy format (`gl::legacy_formats`) this level was asked for
    /// and is stored as, if any.
    pub fn legacy(&self) -> Option<crate::gl::legacy_formats::LegacyFormat> {
        crate::gl::legacy_formats::legacy_format(self.requested)
            .filter(|f| f.storage == self.internal_format)
    }
}

#[derive(Debug, Clone)]
pub struct Texture {
    pub handle: Handle,
    /// 0 until first bound.
    pub target: u32,
    /// levels[face][level]
    pub levels: Vec<Vec<Option<LevelInfo>>>,
    pub params: TexParams,
    pub base_level: u32,
    pub max_level: u32,
    pub swizzle: [u32; 4],
    pub depth_stencil_mode: u32,
    /// GL_DEPTH_TEXTURE_MODE (compatibility contexts): how a depth value
    /// reads as RGBA.
    pub depth_mode: u32,
    /// GL_GENERATE_MIPMAP (compatibility contexts): uploads to the base
    /// level regenerate the mipmaps.
    pub auto_mipmap: bool,
    pub immutable_levels: u32,
    pub created: bool,
    /// Multisample textures: the sample count asked for (0 otherwise) and
    /// GL_TEXTURE_FIXED_SAMPLE_LOCATIONS.
    pub samples: u32,
    pub fixed_sample_locations: bool,
    /// Buffer textures: the buffer range attached (`gl::texbuf`).
    pub buffer: Option<crate::gl::texbuf::TexBufferAttachment>,
}

impl Texture {
    pub fn new(handle: Handle) -> Self {
        Texture {
            handle,
            target: 0,
            levels: vec![Vec::new(); 6],
            params: TexParams::default(),
            base_level: 0,
            max_level: 1000,
            swizzle: [glow::RED, glow::GREEN, glow::BLUE, glow::ALPHA],
            depth_stencil_mode: glow::DEPTH_COMPONENT,
            depth_mode: glow::LUMINANCE,
            auto_mipmap: false,
            immutable_levels: 0,
            created: false,
            samples: 0,
            fixed_sample_locations: true,
            buffer: None,
        }
    }
    pub fn level(&self, face: usize, level: usize) -> Option<LevelInfo> {
        self.levels
            .get(face)
            .and_then(|f| f.get(level))
            .copied()
            .flatten()
    }
    /// The swizzle a sampler view of this texture uses: the application's,
    /// on top of the base level's legacy-format swizzle if it has one
    /// (`gl::legacy_formats`), or, in a compatibility context, of a depth
    /// texture's GL_DEPTH_TEXTURE_MODE.
    pub fn view_swizzle(&self, compat: bool) -> [u32; 4] {
        use crate::gl::legacy_formats::{compose_swizzle, depth_mode_swizzle};
        use crate::gl::validate::{has_depth, has_stencil};
        let Some(base) = self.level(0, self.base_level as usize) else {
            return self.swizzle;
        };
        if let Some(f) = base.legacy() {
            return compose_swizzle(f.swizzle(), self.swizzle);
        }
        // A depth/stencil texture reads depth only in DEPTH_COMPONENT mode.
        let f = base.internal_format;
        let depth =
            has_depth(f) && (!has_stencil(f) || self.depth_stencil_mode == glow::DEPTH_COMPONENT);
        match depth_mode_swizzle(self.depth_mode) {
            Some(d) if compat && depth => compose_swizzle(d, self.swizzle),
            _ => self.swizzle,
        }
    }
    pub fn set_level(&mut self, face: usize, level: usize, info: LevelInfo) {
        if face < self.levels.len() {
            let f = &mut self.levels[face];
            if f.len() <= level {
                f.resize(level + 1, None);
            }
            f[level] = Some(info);
        }
    }
}

#[derive(Debug, Clone)]
pub struct Renderbuffer {
    pub handle: Handle,
    pub width: u32,
    pub height: u32,
    /// The sized format allocated.
    pub internal_format: u32,
    /// The format the application asked for (GL_RENDERBUFFER_INTERNAL_FORMAT).
    pub requested: u32,
    pub samples: u32,
    pub created: bool,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Attachment {
    /// SURFACE_NONE / SURFACE_TEXTURE / SURFACE_RENDERBUFFER
    pub kind: u32,
    pub name: u32,
    pub level: u32,
    pub layer: u32,
    pub layered: bool,
    pub cube_face: u32,
}

#[derive(Debug, Clone)]
pub struct Framebuffer {
    pub handle: Handle,
    pub color: [Attachment; MAX_DRAW_BUFFERS],
    pub depth: Attachment,
    pub stencil: Attachment,
    pub draw_buffers: [u32; MAX_DRAW_BUFFERS],
    pub read_buffer: u32,
    pub created: bool,
    /// GL_FRAMEBUFFER_DEFAULT_{WIDTH, HEIGHT, LAYERS, SAMPLES,
    /// FIXED_SAMPLE_LOCATIONS} (GL 4.3, glFramebufferParameteri).
    pub defaults: [i32; 5],
}

impl Framebuffer {
    pub fn new(handle: Handle) -> Self {
        let mut draw_buffers = [glow::NONE; MAX_DRAW_BUFFERS];
        draw_buffers[0] = glow::COLOR_ATTACHMENT0;
        Framebuffer {
            handle,
            color: [Attachment::default(); MAX_DRAW_BUFFERS],
            depth: Attachment::default(),
            stencil: Attachment::default(),
            draw_buffers,
            read_buffer: glow::COLOR_ATTACHMENT0,
            created: false,
            defaults: [0; 5],
        }
    }
}

/// One generic attribute's format and the binding point it reads
/// (GL 4.3 vertex attribute binding; `glVertexAttribPointer` sets both and
/// binding point `index` at once).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VertexAttrib {
    pub enabled: bool,
    pub size: u32,
    pub ty: u32,
    pub normalized: bool,
    pub integer: bool,
    /// The stride `glVertexAttribPointer` was given (GL_VERTEX_ATTRIB_ARRAY_STRIDE;
    /// 0 = tightly packed): the binding holds the effective one.
    pub stride: u32,
    pub relative_offset: u32,
    pub binding: u32,
}

/// A vertex buffer binding point: buffer, offset, effective stride and
/// instance divisor.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct VertexBinding {
    pub buffer: u32,
    pub offset: u64,
    pub stride: u32,
    pub divisor: u32,
}

impl Default for VertexAttrib {
    fn default() -> Self {
        VertexAttrib {
            enabled: false,
            size: 4,
            ty: glow::FLOAT,
            normalized: false,
            integer: false,
            stride: 0,
            relative_offset: 0,
            binding: 0,
        }
    }
}

/// One fixed-function vertex array (compatibility profile: vertex, normal,
/// colour ... by `shader::FF_*` slot): its format as given and where its
/// data is (a buffer and offset, or client memory when `buffer` is 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FfArray {
    pub enabled: bool,
    pub size: u32,
    pub ty: u32,
    pub normalized: bool,
    /// The stride as given (0 = tightly packed).
    pub stride: u32,
    pub buffer: u32,
    /// Byte offset into `buffer`, or the client pointer.
    pub offset: u64,
}

impl FfArray {
    /// The initial state of array `slot`.
    pub fn initial(slot: usize) -> Self {
        use crate::shader::*;
        let (size, ty) = match slot {
            FF_NORMAL | FF_SECONDARY_COLOR => (3, glow::FLOAT),
            FF_FOG_COORD => (1, glow::FLOAT),
            FF_EDGE_FLAG => (1, glow::BOOL),
            _ => (4, glow::FLOAT),
        };
        FfArray {
            enabled: false,
            size,
            ty,
            normalized: matches!(slot, FF_NORMAL | FF_COLOR | FF_SECONDARY_COLOR),
            stride: 0,
            buffer: 0,
            offset: 0,
        }
    }
}

#[derive(Debug, Clone)]
pub struct VertexArray {
    pub attribs: [VertexAttrib; MAX_ATTRIBS],
    pub bindings: [VertexBinding; MAX_ATTRIBS],
    /// Fixed-function arrays by `shader::FF_*` slot (compatibility profile).
    pub ff: [FfArray; crate::shader::FF_ARRAYS],
    pub element_buffer: u32,
    pub created: bool,
    /// Bumped on every change (vertex.rs, buffers.rs): keys the emission cache.
    pub rev: u64,
}

impl Default for VertexArray {
    fn default() -> Self {
        VertexArray {
            // Attribute i reads binding point i until told otherwise.
            attribs: std::array::from_fn(|i| VertexAttrib {
                binding: i as u32,
                ..Default::default()
            }),
            bindings: [VertexBinding::default(); MAX_ATTRIBS],
            ff: std::array::from_fn(FfArray::initial),
            element_buffer: 0,
            created: false,
            rev: 0,
        }
    }
}

impl VertexArray {
    /// The binding point attribute `a` reads.
    pub fn binding_of(&self, a: &VertexAttrib) -> VertexBinding {
        self.bindings
            .get(a.binding as usize)
            .copied()
            .unwrap_or_default()
    }
}

/// What `emit_vertex_input` derived from one VAO revision.
#[derive(Debug, Clone)]
pub struct VaoEmission {
    pub rev: u64,
    pub vertex_elements: Handle,
    pub vertex_buffers: calls::SetVertexBuffers,
    pub enabled_mask: u32,
    /// Vertex-input CSOs made from this revision, by index buffer (two
    /// entries: an application alternating index buffers stays cached).
    pub vertex_inputs: [(Handle, Handle); 2],
}

#[derive(Debug, Clone)]
pub struct ShaderObj {
    pub stage: crate::shader::Stage,
    pub gl_type: u32,
    /// What glShaderSource set last.
    pub source: String,
    /// The source of the last glCompileShader: what glLinkProgram uses
    /// (a glShaderSource after compiling changes nothing until the next
    /// compile, GL 4.6 §7.1).
    pub compiled_source: String,
    pub compiled: bool,
    pub info_log: String,
    pub delete_pending: bool,
    pub attached: u32,
}

/// One uniform location: which reflected uniform and which array element.
#[derive(Debug, Clone, Copy)]
pub struct UniformLocation {
    pub uniform: usize,
    pub element: u32,
    /// Set for an element of a float/int/uint scalar or vector uniform
    /// (not bool, not a matrix, not a sampler): the per-draw
    /// `glUniform{1,2,3,4}{f,i,ui}[v]` case writes its words here without
    /// looking the uniform's type up again.
    pub vector: Option<VectorSlot>,
}

/// Where one scalar/vector element lives in the default uniform block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VectorSlot {
    /// Byte offset in the block.
    pub at: u32,
    /// Components (1..=4), one 32-bit word each.
    pub words: u32,
    /// The setter family that may write it (`Src` in `gl::shaders`).
    pub kind: u8,
}

#[derive(Debug)]
pub struct LinkedState {
    pub prog: crate::shader::LinkedProgram,
    pub cso: Handle,
    /// Variants of the program for draw state its SPIR-V depends on
    /// (`Gl::variant_cso`): (VARIANT_* bits, CSO), each made at the first
    /// draw that needs it; the CSO is `cso` itself where nothing changes.
    pub variants: Vec<(u8, Handle)>,
    pub locations: Vec<UniformLocation>,
    pub scratch: Vec<u8>,
    pub scratch_version: u64,
    /// texture unit per sampler slot (SPIR-V binding)
    pub sampler_units: Vec<u32>,
    /// GL binding point per uniform block
    pub block_bindings: Vec<u32>,
    /// GL binding point per storage block (`glShaderStorageBlockBinding`)
    pub storage_bindings: Vec<u32>,
    /// Image unit per image slot (the image uniforms' values)
    pub image_units: Vec<u32>,
    /// The geometry shader's input primitive (GL_POINTS, GL_LINES, ...)
    /// when one is linked without tessellation, which decides the draw
    /// modes it accepts.
    pub gs_input: Option<u32>,
    /// Which tessellation stages the program has: bit 0 control, bit 1
    /// evaluation (GL 4.6 §10.1.15: draws of such a program take
    /// GL_PATCHES only, and GL_PATCHES needs an evaluation stage).
    pub tess_stages: u8,
    /// Default-block byte offsets of `gl_DepthRange.near/far/diff` when
    /// the program reads `gl_DepthRange` (the client keeps them current).
    pub depth_range_at: Option<[u32; 3]>,
    /// The matrix-state built-ins the program reads (`gl::matrix`), and
    /// the `MatrixState::serial` their values in `scratch` come from.
    pub matrix_uniforms: Vec<crate::gl::matrix::MatrixUniform>,
    pub matrix_serial: u64,
    /// Changes with every successful link of the program (process-wide
    /// counter): what a pipeline's composite program is keyed by.
    pub generation: u64,
    /// The program's link input, kept so that a program pipeline (or
    /// EXT_separate_shader_objects' per-stage programs) can link the
    /// composite of its stages' programs (`gl::pipelines`).
    pub link_input: std::sync::Arc<KeptLinkInput>,
}

/// What a program was linked from (`LinkedState::link_input`).
#[derive(Debug, Default)]
pub struct KeptLinkInput {
    pub sources: Vec<(crate::shader::Stage, String)>,
    pub attrib_bindings: Vec<(String, u32)>,
    pub frag_data_bindings: Vec<(String, u32)>,
    pub xfb_varyings: Vec<String>,
    pub xfb_mode: u32,
}

/// A program pipeline object (GL 4.6 §7.4), per context.
#[derive(Debug, Default)]
pub struct PipelineObj {
    /// glGenProgramPipelines names exist as objects only once bound (or
    /// used by another pipeline call); glCreateProgramPipelines' at once.
    pub ever_bound: bool,
    /// The program of each stage, in `Stage::index` order (0: none).
    pub stages: [u32; 6],
    /// GL_ACTIVE_PROGRAM: what glUniform* writes without a current program.
    pub active_program: u32,
    pub validate_status: bool,
    pub info_log: String,
    /// The composite program last built for the stages: the key (program
    /// and link generation per stage) and the hidden program's name.
    pub composite: Option<([(u32, u64); 6], u32)>,
    /// The source programs' scratch versions the composite's default
    /// block was last copied from.
    pub synced: [u64; 6],
}

#[derive(Debug, Default)]
pub struct ProgramObj {
    pub shaders: Vec<u32>,
    pub attrib_bindings: Vec<(String, u32)>,
    pub frag_data_bindings: Vec<(String, u32)>,
    pub linked: Option<LinkedState>,
    pub link_status: bool,
    pub info_log: String,
    pub validate_status: bool,
    pub delete_pending: bool,
    /// Number of contexts using it as current program.
    pub in_use: u32,
    /// `glProgramParameteri` state (GL 4.6 §7.3, §7.5): stored and
    /// reported; no binaries are offered and separable programs are linked
    /// as any other.
    pub binary_retrievable_hint: bool,
    pub separable: bool,
    /// `glTransformFeedbackVaryings` (applied at the next link).
    pub xfb_varyings: Vec<String>,
    /// GL_INTERLEAVED_ATTRIBS or GL_SEPARATE_ATTRIBS (0 = never set:
    /// interleaved).
    pub xfb_mode: u32,
}

/// Shaders and programs share one GL name space. Programs are few and long
/// lived, so the size difference between the variants does not matter.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
pub enum ShaderOrProgram {
    Shader(ShaderObj),
    Program(ProgramObj),
}

#[derive(Debug, Clone)]
pub struct SyncObj {
    pub fence: Handle,
    pub signaled: bool,
}

/// A query object (per context: GL does not share them).
#[derive(Debug, Clone, Copy)]
pub struct QueryObj {
    pub handle: Handle,
    /// 0 until first begun.
    pub target: u32,
    /// Result already fetched from the server.
    pub result: Option<u64>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IndexedBuffer {
    pub buffer: u32,
    pub offset: u64,
    pub size: u64,
}

/// Transform feedback state of a context (GL 3.0 §2.15, one implicit
/// transform feedback object).
#[derive(Debug, Clone, Copy, Default)]
pub struct XfbState {
    /// The indexed GL_TRANSFORM_FEEDBACK_BUFFER bindings.
    pub bindings: [IndexedBuffer; crate::gl::xfb::MAX_XFB_BUFFERS],
    pub active: bool,
    pub paused: bool,
    /// GL_POINTS, GL_LINES or GL_TRIANGLES while active.
    pub primitive: u32,
    /// The program that was current at glBeginTransformFeedback.
    pub program: u32,
    /// Capture bookkeeping (`gl::xfb`): vertices written per buffer since
    /// begin, and what the draws of the last completed begin / end wrote.
    pub capture: XfbCapture,
}

/// What one transform feedback object captured, counted by the frontend
/// from the draws it saw (`gl::xfb::note_draw`): the resume offsets of an
/// object swapped out while paused, and the vertex count
/// glDrawTransformFeedback draws.
#[derive(Debug, Clone, Copy, Default)]
pub struct XfbCapture {
    /// Bytes per vertex in each buffer of the capturing program.
    pub strides: [u32; crate::gl::xfb::MAX_XFB_BUFFERS],
    /// Buffers written (0..count) and the ranges captured into at begin.
    pub count: u32,
    pub offsets: [u64; crate::gl::xfb::MAX_XFB_BUFFERS],
    pub sizes: [u64; crate::gl::xfb::MAX_XFB_BUFFERS],
    /// Vertices (whole primitives) written since begin.
    pub vertices: u64,
    /// A draw whose output count the frontend cannot know (geometry or
    /// tessellation stage, indirect draw) ran since begin.
    pub unknown: bool,
    /// Primitives dropped for want of space since begin (overflow).
    pub overflowed: bool,
    /// Vertices of the last completed begin / end (None: never ended).
    pub last: Option<u64>,
    /// The last completed capture's count is unknown.
    pub last_unknown: bool,
    /// The backend capture of this object was ended when it was swapped
    /// out while paused: rebinding it begins the backend again.
    pub detached: bool,
}

/// Objects shared between contexts of one share group.
#[derive(Debug, Default)]
pub struct Shared {
    pub buffers: NameMap<Option<Buffer>>,
    /// Buffers with a live persistent map (pushed at validate points).
    pub persistent: Vec<u32>,
    pub textures: NameMap<Option<Texture>>,
    pub renderbuffers: NameMap<Option<Renderbuffer>>,
    pub samplers: NameMap<TexParams>,
    pub sampler_handles: NameMap<Handle>,
    pub shader_objects: NameMap<ShaderOrProgram>,
    pub syncs: HashMap<usize, SyncObj>,
    pub next_name: u32,
    pub next_sync: usize,
    pub contexts: u32,
    /// Display lists (`gl::dlist`).
    pub lists: crate::gl::dlist::Lists,
}

impl Shared {
    /// A fresh name not used by any namespace of this group (names are
    /// diagnostics only; simple monotonic allocation keeps them unique).
    pub fn new_name(&mut self) -> u32 {
        self.next_name = self.next_name.wrapping_add(1).max(1);
        self.next_name
    }
}

// ------------------------------------------------------------------ context state

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StencilFace {
    pub func: u32,
    pub reference: i32,
    pub value_mask: u32,
    pub write_mask: u32,
    pub fail: u32,
    pub zfail: u32,
    pub zpass: u32,
}

impl Default for StencilFace {
    fn default() -> Self {
        StencilFace {
            func: glow::ALWAYS,
            reference: 0,
            value_mask: !0,
            write_mask: !0,
            fail: glow::KEEP,
            zfail: glow::KEEP,
            zpass: glow::KEEP,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PixelStore {
    pub row_length: i32,
    pub image_height: i32,
    pub skip_pixels: i32,
    pub skip_rows: i32,
    pub skip_images: i32,
    pub alignment: i32,
    pub swap_bytes: bool,
    pub lsb_first: bool,
}

impl Default for PixelStore {
    fn default() -> Self {
        PixelStore {
            row_length: 0,
            image_height: 0,
            skip_pixels: 0,
            skip_rows: 0,
            skip_images: 0,
            alignment: 4,
            swap_bytes: false,
            lsb_first: false,
        }
    }
}

/// Per shader CSO, the version of its default-uniform block last sent.
/// The bound program's entry sits outside the map: a draw after a uniform
/// change (every vanilla draw) updates it without hashing.
#[derive(Debug, Default)]
pub struct GlobalVersions {
    last: Option<(Handle, u64)>,
    rest: HashMap<Handle, u64>,
}

impl GlobalVersions {
    pub fn get(&self, cso: Handle) -> Option<u64> {
        match self.last {
            Some((h, v)) if h == cso => Some(v),
            _ => self.rest.get(&cso).copied(),
        }
    }

    pub fn set(&mut self, cso: Handle, v: u64) {
        if let Some((h, old)) = self.last.replace((cso, v)) {
            if h != cso {
                self.rest.insert(h, old);
            }
        }
    }
}

/// What was last sent on this context, for compare-based dirty tracking.
#[derive(Debug, Default)]
pub struct Sent {
    pub framebuffer: Option<calls::SetFramebufferState>,
    pub read_surface: Option<calls::SetReadSurface>,
    pub render_state: Handle,
    pub viewport: Option<calls::SetViewport>,
    pub scissor: Option<calls::SetScissor>,
    pub blend_color: Option<calls::SetBlendColor>,
    pub polygon_offset: Option<calls::SetPolygonOffset>,
    pub line_width: Option<calls::SetLineWidth>,
    pub shader: Handle,
    pub global_version: GlobalVersions,
    pub vertex_elements: Handle,
    pub vertex_buffers: Option<calls::SetVertexBuffers>,
    pub index_buffer: Option<Handle>,
    /// The vertex-input CSO last bound; NULL after any of the three
    /// records above was sent on its own.
    pub vertex_input: Handle,
    pub attrib_defaults: Option<calls::SetVertexAttribDefaults>,
    pub sampler_views: Option<calls::SetSamplerViews>,
    pub samplers: Option<calls::BindSamplers>,
    pub constant_buffers: Option<calls::SetConstantBuffers>,
}

/// The last few payloads a CSO cache answered and their handles, newest
/// last. State that toggles between a handful of values (blending on and
/// off around a draw) finds its CSO by comparing bytes instead of hashing
/// the payload at every change.
#[derive(Debug)]
pub struct RecentCsos<T> {
    entries: Vec<(T, Handle)>,
}

/// How many payloads a [`RecentCsos`] keeps.
const RECENT_CSOS: usize = 4;

impl<T> Default for RecentCsos<T> {
    fn default() -> Self {
        RecentCsos {
            entries: Vec::with_capacity(RECENT_CSOS),
        }
    }
}

impl<T: bytemuck::Pod> RecentCsos<T> {
    /// The handle of a payload byte-equal to `p`, if one is recent.
    pub fn find(&self, p: &T) -> Option<Handle> {
        let want = bytemuck::bytes_of(p);
        self.entries
            .iter()
            .rev()
            .find(|(e, _)| bytemuck::bytes_of(e) == want)
            .map(|&(_, h)| h)
    }

    /// Remember `p`'s handle, forgetting the oldest entry past
    /// `RECENT_CSOS`.
    pub fn note(&mut self, p: T, h: Handle) {
        if self.entries.len() == RECENT_CSOS {
            self.entries.remove(0);
        }
        self.entries.push((p, h));
    }

    /// Forget everything (the cache they came from was flushed).
    pub fn clear(&mut self) {
        self.entries.clear();
    }
}

/// Content-addressed CSO caches (xxh3 of the payload with the handle zeroed).
#[derive(Debug, Default)]
pub struct CsoCaches {
    pub render_state: HashMap<u64, Handle>,
    /// Recent `render_state` lookups (payloads with a null handle).
    pub recent_render_states: RecentCsos<calls::CreateRenderState>,
    pub vertex_elements: HashMap<u64, Handle>,
    /// Vertex-input CSOs (vertex-elements handle namespace).
    pub vertex_input: HashMap<u64, Handle>,
    pub sampler: HashMap<u64, Handle>,
    pub sampler_view: HashMap<u64, Handle>,
}

/// Bounds on the CSO caches; past them the cache is flushed (with deletes).
pub const CSO_CACHE_LIMIT: usize = 4096;

pub struct GlState {
    pub id: usize,
    pub share: usize,
    pub handle: Handle,
    pub version: (u32, u32),
    pub profile: Profile,
    /// The OpenGL ES version an ES context reports (`platform::Api`);
    /// `None` for desktop OpenGL.
    pub es: Option<(u32, u32)>,
    pub debug: bool,
    pub forward_compatible: bool,
    pub error: u32,
    pub lost: bool,
    pub draw_surface: Option<SurfaceRef>,
    pub read_surface: Option<SurfaceRef>,
    pub ever_current: bool,

    // bindings
    pub array_buffer: u32,
    pub copy_read_buffer: u32,
    pub copy_write_buffer: u32,
    pub pixel_pack_buffer: u32,
    pub pixel_unpack_buffer: u32,
    pub uniform_buffer: u32,
    pub texture_buffer: u32,
    pub transform_feedback_buffer: u32,
    pub draw_indirect_buffer: u32,
    pub uniform_bindings: [IndexedBuffer; MAX_UBO_BINDINGS],
    /// Storage buffers, image units, dispatch-indirect binding.
    pub compute: crate::gl::compute::ComputeState,
    /// Debug output (KHR_debug): callback, log, groups, labels.
    pub debug_out: crate::gl::debug::DebugState,
    pub active_texture: u32,
    /// Fixed-function matrix stacks (compatibility contexts; `gl::matrix`).
    pub matrices: crate::gl::matrix::MatrixState,
    pub texture_units: Vec<[u32; TEXTURE_TARGETS.len()]>,
    /// The default texture objects (texture name 0 of each target, GL 4.6
    /// §8.1), per context, under reserved names (`DEFAULT_TEXTURE_NAMES`).
    pub default_textures: [u32; TEXTURE_TARGETS.len()],
    pub sampler_units: Vec<u32>,
    pub draw_fbo: u32,
    pub read_fbo: u32,
    pub renderbuffer: u32,
    pub program: u32,
    pub vao: u32,
    /// GL_PROGRAM_PIPELINE_BINDING (used when `program` is 0).
    pub pipeline: u32,
    /// EXT_separate_shader_objects' per-stage programs are in use (held by
    /// the hidden pipeline `gl::pipelines::EXT_PIPELINE`).
    pub ext_stages: bool,

    // per-context objects
    pub vaos: NameMap<Option<VertexArray>>,
    /// Program pipeline objects (`gl::pipelines`).
    pub pipelines: NameMap<PipelineObj>,
    pub fbos: NameMap<Option<Framebuffer>>,
    pub queries: NameMap<Option<QueryObj>>,
    /// Active query per target.
    pub active_queries: HashMap<u32, u32>,
    /// Transform feedback: the bound object's state (`gl::xfb`).
    pub xfb: XfbState,
    /// GL_TRANSFORM_FEEDBACK_BINDING (0: the default object).
    pub xfb_binding: u32,
    /// Transform feedback objects other than the bound one, by name (None:
    /// generated, not yet bound). The bound one lives in `xfb`.
    pub xfb_objects: NameMap<Option<XfbState>>,
    pub next_name: u32,
    /// Draw buffers and read buffer of the default framebuffer.
    pub default_draw_buffer: u32,
    pub default_read_buffer: u32,

    // fixed-function state
    pub blend_enabled: u32,
    /// Blend functions and equations per draw buffer (GL 4.0).
    pub blend_src_rgb: [u32; MAX_DRAW_BUFFERS],
    pub blend_dst_rgb: [u32; MAX_DRAW_BUFFERS],
    pub blend_src_alpha: [u32; MAX_DRAW_BUFFERS],
    pub blend_dst_alpha: [u32; MAX_DRAW_BUFFERS],
    pub blend_eq_rgb: [u32; MAX_DRAW_BUFFERS],
    pub blend_eq_alpha: [u32; MAX_DRAW_BUFFERS],
    /// GL_SAMPLE_SHADING and glMinSampleShading's value (GL 4.0).
    pub sample_shading: bool,
    pub min_sample_shading: f32,
    /// glClipControl (GL 4.5): origin GL_UPPER_LEFT, depth GL_ZERO_TO_ONE.
    pub clip_upper_left: bool,
    pub clip_zero_to_one: bool,
    pub blend_color: [f32; 4],
    pub color_mask: [u8; MAX_DRAW_BUFFERS],
    pub depth_test: bool,
    pub depth_mask: bool,
    pub depth_func: u32,
    pub depth_range: [f32; 2],
    pub stencil_test: bool,
    pub stencil: [StencilFace; 2],
    pub cull_face: bool,
    pub cull_mode: u32,
    pub front_face: u32,
    pub scissor_test: bool,
    pub polygon_offset_fill: bool,
    pub polygon_offset_line: bool,
    pub polygon_offset_point: bool,
    /// factor, units, clamp (glPolygonOffsetClamp; 0 = none).
    pub polygon_offset: [f32; 3],
    pub rasterizer_discard: bool,
    /// The current program's `LinkedState::gs_input`, kept by
    /// `emit_program` (read by every draw: one test when it is None).
    pub gs_input: Option<u32>,
    /// The current program's `LinkedState::tess_stages`, kept by
    /// `emit_program` like `gs_input`.
    pub tess_stages: u8,
    /// glPatchParameteri(GL_PATCH_VERTICES) (3 initially).
    pub patch_vertices: u32,
    /// glPatchParameterfv GL_PATCH_DEFAULT_OUTER_LEVEL / _INNER_LEVEL (the
    /// levels a program without a control stage tessellates with; 1.0
    /// initially).
    pub patch_default_outer: [f32; 4],
    pub patch_default_inner: [f32; 2],
    pub sample_alpha_to_coverage: bool,
    pub sample_alpha_to_one: bool,
    pub sample_coverage: bool,
    pub sample_coverage_value: f32,
    pub sample_coverage_invert: bool,
    /// GL_SAMPLE_MASK and word 0 of GL_SAMPLE_MASK_VALUE (the one word
    /// GL_MAX_SAMPLE_MASK_WORDS allows).
    pub sample_mask: bool,
    pub sample_mask_value: u32,
    pub dither: bool,
    pub multisample: bool,
    pub primitive_restart: bool,
    pub primitive_restart_fixed: bool,
    pub primitive_restart_index: u32,
    /// GL_PRIMITIVE_RESTART applies as fixed-index restart (its index is
    /// the largest value of the last indexed draw's index type), which is
    /// how backends restart (GLES and Vulkan know no other index).
    pub restart_as_fixed: bool,
    /// The restart index is below the largest value of the current indexed
    /// draw's type: its indices are read back and rewritten
    /// (`draw::emit_restart_rewritten`).
    pub restart_rewrite: bool,
    pub program_point_size: bool,
    pub depth_clamp: bool,
    pub framebuffer_srgb: bool,
    pub line_smooth: bool,
    pub polygon_smooth: bool,
    pub texture_cube_map_seamless: bool,
    pub color_logic_op: bool,
    pub logic_op: u32,
    pub clip_distances: u32,
    pub line_width: f32,
    pub point_size: f32,
    /// glPolygonMode [front, back].
    pub polygon_mode: [u32; 2],
    /// glClampColor: CLAMP_READ_COLOR, CLAMP_VERTEX_COLOR and
    /// CLAMP_FRAGMENT_COLOR (the last two compatibility only), each TRUE,
    /// FALSE or FIXED_ONLY.
    pub clamp_color: [u32; 3],
    pub provoking_vertex: u32,
    pub clear_color: [f32; 4],
    /// The clear colour set by glClearColorIiEXT / glClearColorIuiEXT
    /// (EXT_texture_integer): CLEAR_INT or CLEAR_UINT and the four words;
    /// None after glClearColor.
    pub clear_color_integer: Option<(u32, [u32; 4])>,
    pub clear_depth: f64,
    pub clear_stencil: i32,
    pub viewport: [i32; 4],
    pub scissor: [i32; 4],
    pub pack: PixelStore,
    pub unpack: PixelStore,
    /// Gather buffer of strided uploads, reused between them
    /// (`pixels::unpack_tight`).
    pub upload_scratch: Vec<u8>,
    pub hints: HashMap<u32, u32>,
    pub current_attrib: [[u32; 4]; MAX_ATTRIBS],
    pub current_attrib_integer: u32,
    /// Fixed-function current values by `shader::FF_*` slot (colour,
    /// normal, texture coordinates ...; the vertex and edge-flag slots are
    /// unused).
    pub ff_current: [[f32; 4]; crate::shader::FF_ARRAYS],
    /// GL_CLIENT_ACTIVE_TEXTURE as an index (0..8).
    pub client_active_texture: u32,
    /// The current program's fixed-function inputs (slot, location), kept
    /// by `emit_program`.
    pub ff_inputs: Vec<(usize, u32)>,
    /// The vertex input is derived at each draw (`legacy_arrays`): client
    /// arrays or fixed-function inputs are in use. Decided when the vertex
    /// state is re-derived.
    pub vertex_per_draw: bool,
    /// The frontend-owned buffer client-memory arrays are staged into.
    pub stream_buffer: Handle,
    pub stream_scratch: Vec<u8>,

    // emission
    pub sent: Sent,
    /// The framebuffer handle `glCopyTexSubImage*` draws into (a texture
    /// level as its only attachment), made on first use.
    pub copy_fbo: Option<Handle>,
    /// MOBILEGL_PIPE_VERIFY=1: check emitted state against the tracker at draws.
    pub verify: bool,
    /// True during the verifier's dry pass: compare, never emit.
    pub verify_dry: bool,
    pub verify_divergences: Vec<String>,
    pub verify_divergence_count: u64,
    /// Draws recorded since the batch was last published.
    pub draws_since_publish: u32,
    /// DIRTY_* groups to re-derive at the next draw.
    pub dirty: u32,
    /// Uniform-buffer binding points changed since the last draw (bit i:
    /// point i; `MAX_UBO_BINDINGS` <= 64), read with DIRTY_UNIFORM_POINTS.
    pub uniform_points_dirty: u64,
    /// Per-VAO emission cache (name -> what its current revision emits).
    pub vao_emission: NameMap<VaoEmission>,
    /// Bumped by glVertexAttrib* (current values of disabled attributes).
    pub current_attrib_rev: u64,
    pub sent_attrib_rev: u64,
    /// Inputs of the last texture/UBO resolution: program, sampler units,
    /// block bindings (re-resolved when any differs or DIRTY_RESOURCES).
    pub resources_key: (Handle, Vec<u32>, Vec<u32>),
    pub cso: CsoCaches,
    pub viewport_set: bool,
    /// Fixed-function state of a compatibility context (`gl::fixed_function`).
    pub ff: crate::gl::fixed_function::FfState,
    /// Raster position and pixel-rectangle state (`gl::raster`).
    pub raster: crate::gl::raster::RasterState,
    /// Display-list compile state and GL_LIST_BASE (`gl::dlist`).
    pub dlist: crate::gl::dlist::DlistState,
    /// Proxy texture levels (`gl::proxy_textures`): (proxy target, level,
    /// state) of the last supported glTexImage* on each.
    pub proxy_levels: Vec<(u32, u32, LevelInfo)>,
}

impl GlState {
    fn new(id: usize, share: usize, handle: Handle, ctx: &Context) -> Self {
        let mut vaos = NameMap::default();
        // Compatibility profile keeps a default VAO (name 0); core has none.
        vaos.insert(
            0,
            Some(VertexArray {
                created: true,
                ..Default::default()
            }),
        );
        let mut current_attrib = [[0u32; 4]; MAX_ATTRIBS];
        for a in current_attrib.iter_mut() {
            a[3] = 1.0f32.to_bits();
        }
        GlState {
            id,
            share,
            handle,
            version: ctx.version,
            profile: ctx.profile,
            es: match ctx.attribs.api {
                Api::OpenGlEs(major, minor) => Some((major, minor)),
                Api::OpenGl => None,
            },
            debug: ctx.attribs.debug,
            forward_compatible: ctx.attribs.forward_compatible,
            error: glow::NO_ERROR,
            lost: false,
            draw_surface: None,
            read_surface: None,
            ever_current: false,
            array_buffer: 0,
            copy_read_buffer: 0,
            copy_write_buffer: 0,
            pixel_pack_buffer: 0,
            pixel_unpack_buffer: 0,
            uniform_buffer: 0,
            texture_buffer: 0,
            transform_feedback_buffer: 0,
            draw_indirect_buffer: 0,
            uniform_bindings: [IndexedBuffer::default(); MAX_UBO_BINDINGS],
            compute: Default::default(),
            debug_out: crate::gl::debug::DebugState::new(ctx.attribs.debug),
            active_texture: 0,
            matrices: Default::default(),
            texture_units: vec![[0; TEXTURE_TARGETS.len()]; MAX_TEXTURE_UNITS],
            default_textures: [0; TEXTURE_TARGETS.len()],
            sampler_units: vec![0; MAX_TEXTURE_UNITS],
            draw_fbo: 0,
            read_fbo: 0,
            renderbuffer: 0,
            program: 0,
            vao: 0,
            pipeline: 0,
            ext_stages: false,
            vaos,
            pipelines: NameMap::default(),
            fbos: NameMap::default(),
            queries: NameMap::default(),
            active_queries: HashMap::default(),
            xfb: XfbState::default(),
            xfb_binding: 0,
            xfb_objects: NameMap::default(),
            next_name: 0,
            default_draw_buffer: glow::BACK,
            default_read_buffer: glow::BACK,
            blend_enabled: 0,
            blend_src_rgb: [glow::ONE; MAX_DRAW_BUFFERS],
            blend_dst_rgb: [glow::ZERO; MAX_DRAW_BUFFERS],
            blend_src_alpha: [glow::ONE; MAX_DRAW_BUFFERS],
            blend_dst_alpha: [glow::ZERO; MAX_DRAW_BUFFERS],
            blend_eq_rgb: [glow::FUNC_ADD; MAX_DRAW_BUFFERS],
            blend_eq_alpha: [glow::FUNC_ADD; MAX_DRAW_BUFFERS],
            sample_shading: false,
            min_sample_shading: 0.0,
            clip_upper_left: false,
            clip_zero_to_one: false,
            blend_color: [0.0; 4],
            color_mask: [0xF; MAX_DRAW_BUFFERS],
            depth_test: false,
            depth_mask: true,
            depth_func: glow::LESS,
            depth_range: [0.0, 1.0],
            stencil_test: false,
            stencil: [StencilFace::default(); 2],
            cull_face: false,
            cull_mode: glow::BACK,
            front_face: glow::CCW,
            scissor_test: false,
            polygon_offset_fill: false,
            polygon_offset_line: false,
            polygon_offset_point: false,
            polygon_offset: [0.0; 3],
            rasterizer_discard: false,
            gs_input: None,
            tess_stages: 0,
            patch_vertices: 3,
            patch_default_outer: [1.0; 4],
            patch_default_inner: [1.0; 2],
            sample_alpha_to_coverage: false,
            sample_alpha_to_one: false,
            sample_coverage: false,
            sample_coverage_value: 1.0,
            sample_coverage_invert: false,
            sample_mask: false,
            sample_mask_value: u32::MAX,
            dither: true,
            multisample: true,
            primitive_restart: false,
            primitive_restart_fixed: false,
            primitive_restart_index: 0,
            restart_as_fixed: false,
            restart_rewrite: false,
            program_point_size: false,
            depth_clamp: false,
            framebuffer_srgb: false,
            line_smooth: false,
            polygon_smooth: false,
            texture_cube_map_seamless: false,
            color_logic_op: false,
            logic_op: glow::COPY,
            clip_distances: 0,
            line_width: 1.0,
            point_size: 1.0,
            polygon_mode: [glow::FILL; 2],
            clamp_color: [glow::FIXED_ONLY, glow::TRUE as u32, glow::FIXED_ONLY],
            provoking_vertex: glow::LAST_VERTEX_CONVENTION,
            clear_color: [0.0; 4],
            clear_color_integer: None,
            clear_depth: 1.0,
            clear_stencil: 0,
            viewport: [0; 4],
            scissor: [0; 4],
            pack: PixelStore::default(),
            unpack: PixelStore::default(),
            upload_scratch: Vec::new(),
            hints: HashMap::default(),
            current_attrib,
            current_attrib_integer: 0,
            ff_current: std::array::from_fn(|slot| match slot {
                crate::shader::FF_COLOR => [1.0; 4],
                crate::shader::FF_NORMAL => [0.0, 0.0, 1.0, 1.0],
                crate::shader::FF_FOG_COORD => [0.0, 0.0, 0.0, 1.0],
                _ => [0.0, 0.0, 0.0, 1.0],
            }),
            client_active_texture: 0,
            ff_inputs: Vec::new(),
            vertex_per_draw: false,
            stream_buffer: Handle::NULL,
            stream_scratch: Vec::new(),
            sent: Sent::default(),
            copy_fbo: None,
            verify: std::env::var("MOBILEGL_PIPE_VERIFY").as_deref() == Ok("1"),
            verify_dry: false,
            verify_divergences: Vec::new(),
            verify_divergence_count: 0,
            draws_since_publish: 0,
            dirty: DIRTY_ALL,
            uniform_points_dirty: 0,
            vao_emission: NameMap::default(),
            current_attrib_rev: 1,
            sent_attrib_rev: 0,
            resources_key: (Handle::NULL, Vec::new(), Vec::new()),
            cso: CsoCaches::default(),
            viewport_set: false,
            ff: Default::default(),
            raster: Default::default(),
            dlist: Default::default(),
            proxy_levels: Vec::new(),
        }
    }

    pub fn is_core(&self) -> bool {
        self.profile == Profile::Core
    }

    /// Record a GL error: the first one sticks until glGetError.
    pub fn set_error(&mut self, e: u32) {
        // GL_NO_ERROR: a call that ends early without an error (a
        // pipeline draw with no vertex stage, `gl::pipelines`).
        if e == glow::NO_ERROR {
            return;
        }
        if self.error == glow::NO_ERROR {
            self.error = e;
        }
        self.debug_out.error(e);
        if self.debug {
            tracing::debug!("GL error 0x{e:04X}");
        }
    }

    pub fn new_name(&mut self) -> u32 {
        self.next_name = self.next_name.wrapping_add(1).max(1);
        self.next_name
    }

    /// Record a verifier divergence: the call and the first field that differs.
    pub fn diverged(&mut self, call: &'static str, field: Option<&'static str>) {
        self.verify_divergences
            .push(format!("{call}: {}", field.unwrap_or("payload")));
    }

    /// The texture object the unit's `target` names: its binding, or the
    /// default texture object when the binding is 0.
    pub fn bound_texture(&self, unit: usize, target: u32) -> u32 {
        match (self.texture_units.get(unit), target_index(target)) {
            (Some(u), Some(i)) if u[i] != 0 => u[i],
            (Some(_), Some(i)) => self.default_textures[i],
            _ => 0,
        }
    }

    /// The unit's binding for `target` as the application set it (0 for
    /// the default texture), for GL_TEXTURE_BINDING_* queries.
    pub fn texture_binding(&self, unit: usize, target: u32) -> u32 {
        match (self.texture_units.get(unit), target_index(target)) {
            (Some(u), Some(i)) => u[i],
            _ => 0,
        }
    }
}

// ------------------------------------------------------------------ GL call plumbing

/// Everything a GL entry point may touch, borrowed from the world for the
/// duration of one call.
pub struct Gl<'a> {
    pub st: &'a mut GlState,
    pub sh: &'a mut Shared,
    pub conn: &'a mut Conn,
}

thread_local! {
    static CURRENT: RefCell<Option<ContextRef>> = const { RefCell::new(None) };
    /// `CURRENT`'s context id (`NO_CONTEXT`: none), read by every GL call:
    /// a plain `Cell` without a destructor costs one TLS load, where the
    /// `RefCell<Option<Arc>>` costs a state check and a borrow.
    static CURRENT_ID: Cell<usize> = const { Cell::new(NO_CONTEXT) };
}

const NO_CONTEXT: usize = usize::MAX;

/// Make `ctx` this thread's current context (None: none).
fn set_current(ctx: Option<&ContextRef>) {
    let _ = CURRENT_ID.try_with(|c| c.set(ctx.map_or(NO_CONTEXT, |c| c.id)));
    let _ = CURRENT.try_with(|c| *c.borrow_mut() = ctx.cloned());
}

static NEXT_SHARE: AtomicUsize = AtomicUsize::new(0);

/// Run `f` against the calling thread's current context. Without one the
/// call is ignored (GL says: undefined; we do nothing and return the default).
#[track_caller]
pub fn with_gl<R: Default>(f: impl FnOnce(&mut Gl) -> R) -> R {
    with_gl_inner(true, 0, Some(std::panic::Location::caller()), f)
}

/// Dirty groups: which validate-point emissions a GL call may invalidate.
/// Entry points mark the groups their module touches (coarse on purpose:
/// a spurious bit costs one re-derivation, a missing one a stale record —
/// which MOBILEGL_PIPE_VERIFY reports).
pub const DIRTY_FRAMEBUFFER: u32 = 1 << 0;
pub const DIRTY_RENDER_STATE: u32 = 1 << 1;
pub const DIRTY_DYNAMIC: u32 = 1 << 2;
/// Program, default uniforms, textures/samplers, uniform buffers.
pub const DIRTY_PROGRAM: u32 = 1 << 3;
pub const DIRTY_VERTEX: u32 = 1 << 4;
/// Texture, sampler and uniform-buffer objects or bindings changed (set with
/// DIRTY_FRAMEBUFFER by the texture/framebuffer modules, and by buffers).
pub const DIRTY_RESOURCES: u32 = 1 << 5;
/// Only indexed uniform-buffer bindings changed (glBindBufferRange/Base):
/// the points are in `GlState::uniform_points_dirty`, and a draw
/// re-resolves just the program's blocks that read them (the per-draw
/// `glBindBufferRange` pattern), not the whole resource table.
pub const DIRTY_UNIFORM_POINTS: u32 = 1 << 6;
/// Only values of the current program's default uniform block changed
/// (glUniform* on a non-sampler uniform, the per-draw case): a draw re-sends
/// the block, not the program's resources (a sampler uniform marks
/// DIRTY_PROGRAM).
pub const DIRTY_UNIFORMS: u32 = 1 << 7;
pub const DIRTY_ALL: u32 = (1 << 8) - 1;

/// `with_gl` for an entry point that changes state in the `dirty` groups.
#[track_caller]
pub fn with_gl_dirty<R: Default>(dirty: u32, f: impl FnOnce(&mut Gl) -> R) -> R {
    with_gl_inner(true, dirty, Some(std::panic::Location::caller()), f)
}

/// `with_gl` for the commands KHR_robustness exempts from raising
/// GL_CONTEXT_LOST (glGetError, glGetGraphicsResetStatus, glGetSynciv...):
/// an application loops on glGetError until NO_ERROR.
#[track_caller]
pub fn with_gl_exempt<R: Default>(f: impl FnOnce(&mut Gl) -> R) -> R {
    with_gl_inner(false, 0, Some(std::panic::Location::caller()), f)
}

/// `site`: the entry point's call site, logged once when it runs while a
/// display list is compiled (it is executed immediately, `gl::dlist`);
/// None for the display-list-aware entry points.
pub(crate) fn with_gl_inner<R: Default>(
    lost_raises: bool,
    dirty: u32,
    site: Option<&'static std::panic::Location<'static>>,
    f: impl FnOnce(&mut Gl) -> R,
) -> R {
    // The id only: no Arc clone (two atomic operations) per GL call.
    let ctx_id = CURRENT_ID.try_with(Cell::get).unwrap_or(NO_CONTEXT);
    if ctx_id == NO_CONTEXT {
        return R::default();
    }
    with_context_id(ctx_id, lost_raises, dirty, site, f)
}

/// The share group of the calling thread's current context.
pub(crate) fn current_share() -> Option<usize> {
    let ctx_id = CURRENT_ID.try_with(Cell::get).unwrap_or(NO_CONTEXT);
    let w = world();
    w.contexts.get(ctx_id)?.as_ref().map(|st| st.share)
}

/// Run `f` in a live context of share group `share`: the calling thread's
/// current context when it belongs to the group, else any context of it.
/// For objects any thread may use without a current context of their own
/// (EGL sync objects, `egl::sync`). None when the group has no live context.
pub(crate) fn with_share<R>(share: usize, f: impl FnOnce(&mut Gl) -> R) -> Option<R> {
    let current = CURRENT_ID.try_with(Cell::get).unwrap_or(NO_CONTEXT);
    let ctx_id = {
        let w = world();
        let in_group = |id: usize| {
            w.contexts
                .get(id)
                .and_then(Option::as_ref)
                .is_some_and(|st| st.share == share)
        };
        if in_group(current) {
            current
        } else {
            (0..w.contexts.len()).find(|&id| in_group(id))?
        }
    };
    with_context_id(ctx_id, false, 0, None, |gl| Some(f(gl)))
}

/// `with_gl_inner` once the context is known (`ctx_id` need not be the
/// calling thread's current context: `with_share`).
#[inline(always)]
fn with_context_id<R: Default>(
    ctx_id: usize,
    lost_raises: bool,
    dirty: u32,
    site: Option<&'static std::panic::Location<'static>>,
    f: impl FnOnce(&mut Gl) -> R,
) -> R {
    let mut w = world();
    let World {
        conn,
        contexts,
        shares,
        ..
    } = &mut *w;
    let (Some(conn), Some(Some(st))) = (conn.as_mut(), contexts.get_mut(ctx_id)) else {
        return R::default();
    };
    let Some(Some(sh)) = shares.get_mut(st.share) else {
        return R::default();
    };
    if conn.check_lost() {
        // KHR_robustness: a lost context keeps answering; commands report
        // GL_CONTEXT_LOST and glGetGraphicsResetStatus says what happened.
        st.lost = true;
        if lost_raises {
            st.set_error(glow::CONTEXT_LOST);
        }
    }
    if conn.last_emitter != Some(st.id) {
        let draw = st
            .draw_surface
            .as_ref()
            .map(|s| s.handle)
            .unwrap_or(Handle::NULL);
        let read = st
            .read_surface
            .as_ref()
            .map(|s| s.handle)
            .unwrap_or(Handle::NULL);
        conn.pipe.make_current(&calls::MakeCurrent {
            ctx: st.handle,
            draw,
            read,
        });
        conn.last_emitter = Some(st.id);
        // Another context may have changed shared objects meanwhile.
        st.dirty = DIRTY_ALL;
    }
    // Texture and framebuffer entry points also change what samplers read.
    let dirty = if dirty & DIRTY_FRAMEBUFFER != 0 {
        dirty | DIRTY_RESOURCES
    } else {
        dirty
    };
    st.dirty |= dirty;
    if let (Some(site), Some(_)) = (site, st.dlist.compiling.as_ref()) {
        crate::gl::dlist::note_immediate(site);
    }
    let mut gl = Gl { st, sh, conn };
    let r = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let r = f(&mut gl);
        // After a blocking round trip: apply what the backend reported.
        if gl.conn.events_due {
            crate::gl::persistent::absorb_events(&mut gl);
        }
        r
    })) {
        Ok(r) => r,
        Err(_) => {
            tracing::error!("internal error in a GL call (caught); the call was dropped");
            R::default()
        }
    };
    // Debug messages go to the application's callback once the world lock
    // is released (a callback may call GL).
    if gl.st.debug_out.pending.is_empty() {
        return r;
    }
    let pending = std::mem::take(&mut gl.st.debug_out.pending);
    let callback = gl.st.debug_out.callback;
    let user = gl.st.debug_out.user;
    drop(w);
    if let Some(cb) = callback {
        crate::gl::debug::deliver(cb, user, pending);
    }
    r
}

/// Create a context. Requests up to 3.3 get GL 3.3 core; requests for 4.0
/// to 4.3 get a "4.3" core context when the backend runs compute shaders
/// (what a 4.3 application reaches for first), 4.4 and 4.5 requests a
/// "4.5" one; both are partial: tessellation only where the backend has
/// it (`gl::tess`), transform feedback
/// streams 1..3, doubles only where the backend has them
/// (`docs/ARCHITECTURE.md`). Legacy/compatibility requests get a
/// compatibility context of that version (the fixed-function parts it
/// implements: `gl::matrix`, client arrays); newer versions are refused.
pub fn create_context(
    attribs: &ContextAttribs,
    share: Option<&ContextRef>,
) -> Result<ContextRef, PlatformError> {
    let bad_version = PlatformError::BadVersion {
        major: attribs.major,
        minor: attribs.minor,
    };
    let mut w = world();
    let conn = ensure_conn(&mut w)?;
    let mut attribs = *attribs;
    // An OpenGL ES context runs on the largest GL core we make (its
    // compatibility-profile state: ES keeps client arrays and a default
    // vertex array) and reports the ES version that core covers: 3.1 needs
    // compute shaders (3.2 would also need tessellation); 3.0 otherwise.
    if let Api::OpenGlEs(major, minor) = attribs.api {
        let has_compute = crate::gl::compute::has_compute(&conn.caps);
        let es = if has_compute { (3, 1) } else { (3, 0) };
        if (major, minor) > es {
            return Err(bad_version);
        }
        attribs.api = Api::OpenGlEs(es.0, es.1);
        (attribs.major, attribs.minor) = if has_compute { (4, 5) } else { (3, 3) };
        attribs.profile = Profile::Compatibility;
    }
    let attribs = &attribs;
    let requested = (attribs.major, attribs.minor);
    if requested > (4, 5) {
        return Err(bad_version);
    }
    let version = if requested <= (3, 3) {
        (3, 3)
    } else if crate::gl::compute::has_compute(&conn.caps) {
        // 4.4 and 4.5 requests get a 4.5 context, as partial as the 4.3
        // one (its additions that are implemented: buffer storage,
        // multi-bind, clip control, DSA, texture_stencil8; missing ones in
        // docs/ARCHITECTURE.md).
        if requested > (4, 3) {
            (4, 5)
        } else {
            (4, 3)
        }
    } else {
        return Err(bad_version);
    };
    let handle = conn.alloc.context.alloc();
    let share_handle = share.map(|c| c.handle).unwrap_or(Handle::NULL);
    let flags = (if attribs.debug { CONTEXT_FLAG_DEBUG } else { 0 })
        | (if attribs.robust {
            CONTEXT_FLAG_ROBUST
        } else {
            0
        });
    conn.pipe.context_create(&calls::ContextCreate {
        ctx: handle,
        share: share_handle,
        flags,
        ..Default::default()
    });
    let id = w.contexts.len();
    let share_idx = match share.and_then(|s| {
        w.contexts
            .get(s.id)
            .and_then(|c| c.as_ref())
            .map(|c| c.share)
    }) {
        Some(i) => i,
        None => {
            let _ = NEXT_SHARE.fetch_add(1, Ordering::Relaxed);
            w.shares.push(Some(Shared::default()));
            w.shares.len() - 1
        }
    };
    if let Some(Some(sh)) = w.shares.get_mut(share_idx) {
        sh.contexts += 1;
    }
    let ctx = Arc::new(Context {
        id,
        attribs: *attribs,
        handle,
        version,
        // A compatibility request (any pre-3.2 version, or the compatibility
        // profile bit) gets a compatibility context: the same core feature
        // set plus the legacy state implemented so far (docs/ARCHITECTURE.md);
        // a forward-compatible context drops what the compatibility profile
        // adds.
        profile: if attribs.forward_compatible {
            Profile::Core
        } else {
            attribs.profile
        },
    });
    let mut st = GlState::new(id, share_idx, handle, &ctx);
    // The default texture objects, one per target, in the share group's
    // texture map under names no glGenTextures reaches.
    let handles: Vec<Handle> = {
        let conn = ensure_conn(&mut w)?;
        TEXTURE_TARGETS
            .iter()
            .map(|_| conn.alloc.resource.alloc())
            .collect()
    };
    if let Some(Some(sh)) = w.shares.get_mut(share_idx) {
        for (ti, (&target, h)) in TEXTURE_TARGETS.iter().zip(handles).enumerate() {
            let name = DEFAULT_TEXTURE_NAMES
                .wrapping_add((id as u32 & 0xFFF) * 16)
                .wrapping_add(ti as u32);
            let mut t = Texture::new(h);
            t.target = target;
            if target == glow::TEXTURE_RECTANGLE {
                t.params.min_filter = glow::LINEAR;
                t.params.wrap_s = glow::CLAMP_TO_EDGE;
                t.params.wrap_t = glow::CLAMP_TO_EDGE;
                t.params.wrap_r = glow::CLAMP_TO_EDGE;
            }
            sh.textures.insert(name, Some(t));
            st.default_textures[ti] = name;
        }
    }
    w.contexts.push(Some(st));
    Ok(ctx)
}

pub fn destroy_context(ctx: &ContextRef) {
    let is_current = CURRENT
        .try_with(|c| c.borrow().as_ref().map(|c| c.id) == Some(ctx.id))
        .unwrap_or(false);
    if is_current {
        // Destruction is deferred by EGL until it is no longer current; we
        // simply release it here.
        set_current(None);
    }
    let mut w = world();
    let Some(st) = w.contexts.get_mut(ctx.id).and_then(|c| c.take()) else {
        return;
    };
    if let Some(Some(sh)) = w.shares.get_mut(st.share) {
        sh.contexts = sh.contexts.saturating_sub(1);
        if sh.contexts == 0 {
            w.shares[st.share] = None;
        }
    }
    if let Some(conn) = w.conn.as_mut() {
        conn.pipe
            .context_destroy(&calls::ContextDestroy { ctx: st.handle });
        if conn.last_emitter == Some(ctx.id) {
            conn.last_emitter = None;
        }
        conn.alloc.context.free(st.handle);
        // The framebuffer name glCopyTexSubImage* made for this context
        // (a handle like an application framebuffer's: freed the same way).
        if let Some(fbo) = st.copy_fbo {
            conn.alloc.framebuffer.free(fbo);
        }
    }
}

/// Bind `ctx` (or nothing) to the calling thread with the given surfaces.
pub fn make_current(
    ctx: Option<&ContextRef>,
    draw: Option<&SurfaceRef>,
    read: Option<&SurfaceRef>,
) -> Result<(), PlatformError> {
    crate::runtime::touch_alive_guard();
    let mut w = world();
    let conn = ensure_conn(&mut w)?;
    match ctx {
        None => {
            // Publish what the old context recorded.
            remote::Transport::flush(&mut *conn.pipe);
            set_current(None);
            Ok(())
        }
        Some(ctx) => {
            let draw_h = draw.map(|s| s.handle).unwrap_or(Handle::NULL);
            let read_h = read.map(|s| s.handle).unwrap_or(Handle::NULL);
            conn.pipe.make_current(&calls::MakeCurrent {
                ctx: ctx.handle,
                draw: draw_h,
                read: read_h,
            });
            conn.last_emitter = Some(ctx.id);
            let Some(Some(st)) = w.contexts.get_mut(ctx.id) else {
                return Err(PlatformError::BadMatch("context was destroyed"));
            };
            let surface_changed =
                st.draw_surface.as_ref().map(|s| s.handle) != draw.map(|s| s.handle);
            st.draw_surface = draw.cloned();
            st.read_surface = read.cloned();
            st.dirty = DIRTY_ALL;
            if !st.ever_current || surface_changed {
                // GL: the first time a context is made current the viewport
                // and scissor take the draw surface's size.
                if !st.ever_current {
                    let (w_, h_) = draw
                        .map(|s| (s.size().0 as i32, s.size().1 as i32))
                        .unwrap_or((0, 0));
                    st.viewport = [0, 0, w_, h_];
                    st.scissor = [0, 0, w_, h_];
                    if draw.is_none() {
                        st.default_draw_buffer = glow::NONE;
                        st.default_read_buffer = glow::NONE;
                    }
                }
                st.ever_current = true;
                // The framebuffer the surface backs may have changed.
                st.sent.framebuffer = None;
                st.sent.read_surface = None;
            }
            set_current(Some(ctx));
            Ok(())
        }
    }
}

pub fn current_context() -> Option<ContextRef> {
    CURRENT.try_with(|c| c.borrow().clone()).ok().flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_csos_find_by_bytes_and_forget_the_oldest() {
        let state = |func: u32| calls::CreateRenderState {
            depth_func: func,
            ..Default::default()
        };
        let mut r = RecentCsos::default();
        assert_eq!(r.find(&state(1)), None);
        for i in 1..=RECENT_CSOS as u32 {
            r.note(state(i), Handle::new(i, 1));
        }
        assert_eq!(r.find(&state(2)), Some(Handle::new(2, 1)));
        assert_eq!(r.find(&state(99)), None);
        // One more: the oldest (1) goes, the rest stay.
        r.note(state(99), Handle::new(99, 1));
        assert_eq!(r.find(&state(1)), None);
        assert_eq!(r.find(&state(99)), Some(Handle::new(99, 1)));
        assert_eq!(r.find(&state(2)), Some(Handle::new(2, 1)));
        r.clear();
        assert_eq!(r.find(&state(99)), None);
    }
}
