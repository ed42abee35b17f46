//! GLSL → SPIR-V compilation and GL-style reflection.
//!
//! `compile` backs `glCompileShader` (parse and validate one shader, give the
//! info log); `link` backs `glLinkProgram`: it compiles every attached shader
//! with glslang (Vulkan client, relaxed Vulkan rules, auto-mapped locations
//! and bindings, loose uniforms collected into a global block), links all
//! stages in one glslang program, runs `mapIO` (cross-stage varying
//! locations), generates SPIR-V per stage and then rewrites a few
//! decorations with a small SPIR-V word walker so the result follows the
//! conventions below. Reflection (attributes, fragment outputs, uniforms,
//! uniform blocks) is read back from that SPIR-V.
//!
//! # Conventions (the GLES and Vulkan backends rely on these)
//!
//! - Every resource is in descriptor set 0.
//! - User uniform block `i` (in `LinkedProgram::blocks` order) has SPIR-V
//!   binding `i`; its GL block index is `i` too. An instanced array of blocks
//!   `B[n]` is `n` consecutive entries/bindings.
//! - The default uniform block (loose uniforms) is a std140-style block named
//!   `DefaultUniforms` with binding `blocks.len()`
//!   ([`GlobalBlock::binding`]); uniforms in it have `block_index == -1` and
//!   `offset`/`array_stride`/`matrix_stride` that equal the SPIR-V
//!   `Offset`/`ArrayStride`/`MatrixStride` decorations (the CPU scratch for
//!   `glUniform*` uses exactly this layout). It is merged across stages, so
//!   one layout serves every stage.
//! - Sampler uniforms have bindings `0..sampler_slots` (a namespace separate
//!   from uniform buffers, like GLES texture units vs UBO bindings), in
//!   first-declaration order across stages (vertex first); an array of `n`
//!   samplers takes `n` consecutive slots starting at `sampler_binding`.
//! - Storage blocks (`LinkedProgram::storage_blocks`, block index = SPIR-V
//!   binding) and image uniforms (`image_binding`, `0..image_slots`) get
//!   bindings `0..` in namespaces of their own, in first-declaration order;
//!   arrays take consecutive bindings, as samplers do.
//! - Vertex inputs: explicit `layout(location)` wins, then
//!   `glBindAttribLocation` (`attrib_bindings`), then the lowest free
//!   locations (active attributes first). Fragment outputs: likewise with
//!   `frag_data_bindings`; a single unbound output gets location 0.
//! - Varyings: matched by name (interface blocks by block name) between
//!   consecutive stages; the consumer takes the producer's location.
//! - No clip-space changes: no Y flip, GL depth range; `gl_VertexID` /
//!   `gl_InstanceID` compile to `VertexIndex` / `InstanceIndex` (glslang's
//!   relaxed rules) and spirv-cross maps them back for ESSL.
//!
//! # Source pre-pass
//!
//! glslang-for-Vulkan refuses GLSL < 1.40 and the compatibility profile; see
//! [`prepass`] for exactly what is rewritten (version raise to 140,
//! `attribute`/`varying`, `texture2D` & co., `shadow2D` & co.,
//! `gl_FragColor`/`gl_FragData`, `packed`/`shared` layouts). Compatibility
//! built-ins (`gl_ModelViewMatrix`, `gl_Vertex`, ...) are reported as errors
//! naming the built-in; they are not emulated yet.
//!
//! Everything here is callable from any thread; glslang is initialised once
//! per process. No input makes these functions panic: failures (including
//! internal ones) come back as `Err(info_log)`.

mod glsl;
pub mod gltypes;
mod initializers;
mod packing;
mod prepass;
pub(crate) use prepass::rename_identifiers;
pub(crate) use prepass::{check_separable_per_vertex, per_vertex_use, PerVertexUse};
mod reflect;
mod spirv;
pub mod xfb;

#[cfg(test)]
mod tests;

/// Record the backend's GL_MAX_DRAW_BUFFERS for the fragment outputs the
/// pre-pass adds (`prepass::set_draw_buffers`).
pub(crate) fn set_draw_buffers(n: u32) {
    prepass::set_draw_buffers(n)
}

use std::collections::HashSet;

/// A programmable pipeline stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stage {
    Vertex,
    TessControl,
    TessEval,
    Geometry,
    Fragment,
    Compute,
}

impl Stage {
    /// All stages in pipeline order (the order of [`Stage::index`]).
    pub const ALL: [Stage; 6] = [
        Stage::Vertex,
        Stage::TessControl,
        Stage::TessEval,
        Stage::Geometry,
        Stage::Fragment,
        Stage::Compute,
    ];

    /// Index in pipeline order: Vertex 0 … Compute 5.
    pub fn index(self) -> usize {
        match self {
            Stage::Vertex => 0,
            Stage::TessControl => 1,
            Stage::TessEval => 2,
            Stage::Geometry => 3,
            Stage::Fragment => 4,
            Stage::Compute => 5,
        }
    }
}

/// Maps `GL_VERTEX_SHADER` & co. to a [`Stage`].
pub fn stage_from_gl(gl_enum: u32) -> Option<Stage> {
    use gltypes::*;
    match gl_enum {
        GL_VERTEX_SHADER => Some(Stage::Vertex),
        GL_TESS_CONTROL_SHADER => Some(Stage::TessControl),
        GL_TESS_EVALUATION_SHADER => Some(Stage::TessEval),
        GL_GEOMETRY_SHADER => Some(Stage::Geometry),
        GL_FRAGMENT_SHADER => Some(Stage::Fragment),
        GL_COMPUTE_SHADER => Some(Stage::Compute),
        _ => None,
    }
}

/// Inputs of `glLinkProgram`.
#[derive(Debug, Clone, Copy)]
pub struct LinkInput<'a> {
    /// Attached shaders; several shaders of one stage are linked together.
    pub shaders: &'a [(Stage, &'a str)],
    /// `glBindAttribLocation` state (name, location).
    pub attrib_bindings: &'a [(String, u32)],
    /// `glBindFragDataLocation` state (name, color number).
    pub frag_data_bindings: &'a [(String, u32)],
    /// `glTransformFeedbackVaryings` state: names and buffer mode.
    pub xfb_varyings: &'a [String],
    pub xfb_mode: u32,
    /// Varying locations the backend has between the last vertex stage
    /// and the fragment stage; a program needing more gets its varyings
    /// packed (`packing`). 0: never pack.
    pub varying_limit: u32,
}

/// An active vertex input or fragment output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variable {
    pub name: String,
    /// `GL_FLOAT_VEC4` & co. (element type for arrays).
    pub gl_type: u32,
    /// 1 for non-arrays.
    pub array_size: u32,
    pub location: u32,
}

/// An active uniform (default block, sampler, or uniform-block member).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Uniform {
    /// GL-style name: `"a[0]"` for arrays of basic types, `"s.m"` /
    /// `"s[1].m"` for struct members, `"Block.m"` for members of an
    /// instanced uniform block.
    pub name: String,
    pub gl_type: u32,
    /// 1 for non-arrays.
    pub array_size: u32,
    /// -1: default block; otherwise the index into `LinkedProgram::blocks`.
    pub block_index: i32,
    /// Byte offset in its block; `u32::MAX` for samplers.
    pub offset: u32,
    pub array_stride: u32,
    pub matrix_stride: u32,
    pub is_row_major: bool,
    /// First texture slot (SPIR-V binding) of a sampler uniform; arrays take
    /// consecutive slots.
    pub sampler_binding: Option<u32>,
    /// First image slot (SPIR-V binding) of an image uniform; arrays take
    /// consecutive slots. Its value is an image unit.
    pub image_binding: Option<u32>,
    /// `layout(binding = N)` on a sampler in the source: the initial value
    /// of the uniform (texture unit N; element i of an array gets N + i).
    /// `None`: initial value 0.
    pub explicit_binding: Option<u32>,
}

/// An active user uniform block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UniformBlock {
    /// Block name (`"B[1]"` for an element of an instanced block array).
    pub name: String,
    /// SPIR-V binding (= block index).
    pub binding: u32,
    /// `GL_UNIFORM_BLOCK_DATA_SIZE`.
    pub data_size: u32,
    /// Indices into `LinkedProgram::uniforms`.
    pub active_uniforms: Vec<u32>,
    /// `layout(binding = N)` on the block in the source: the initial
    /// `glUniformBlockBinding` value (element i of a block array gets N + i).
    /// `None`: initial value 0.
    pub explicit_binding: Option<u32>,
    /// Bit `Stage::index()` set for each stage declaring the block.
    pub stages: u32,
}

/// An active shader storage block (`buffer` block).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StorageBlock {
    /// Block name (`"B[1]"` for an element of a block array).
    pub name: String,
    /// SPIR-V binding (= block index in `GL_SHADER_STORAGE_BLOCK`).
    pub binding: u32,
    /// `GL_BUFFER_DATA_SIZE`: the fixed part (an unsized last array
    /// counts as empty).
    pub data_size: u32,
    /// `layout(binding = N)` in the source: the initial
    /// `glShaderStorageBlockBinding` value; `None`: 0.
    pub explicit_binding: Option<u32>,
    /// Indices into `LinkedProgram::buffer_variables` (GL_ACTIVE_VARIABLES).
    pub active_variables: Vec<u32>,
    /// Bit `Stage::index()` set for each stage declaring the block.
    pub stages: u32,
}

/// An active buffer variable (`GL_BUFFER_VARIABLE`, GL 4.6 §7.3.1.1): a
/// member of a storage block, named like a uniform-block member
/// (`"Block.m"`, `"Block.s[0].m"`); `var.block_index` indexes
/// `LinkedProgram::storage_blocks`.
#[derive(Debug, Clone)]
pub struct BufferVariable {
    pub var: Uniform,
    /// GL_TOP_LEVEL_ARRAY_SIZE: elements of the top-level member it lies
    /// in (1 when not an array, 0 when unsized).
    pub top_level_size: u32,
    /// GL_TOP_LEVEL_ARRAY_STRIDE (0 when not an array).
    pub top_level_stride: u32,
}

/// An atomic counter buffer a program uses: glslang (relaxed Vulkan
/// rules) turns the `atomic_uint`s of `layout(binding = N)` into one
/// storage block, `gl_AtomicCounterBlock_N`, which takes a storage slot
/// after the program's own storage blocks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AtomicBuffer {
    /// The GL binding point (`layout(binding = N)`; fixed at link).
    pub binding: u32,
    /// SPIR-V binding (storage-block namespace).
    pub slot: u32,
    /// `GL_ATOMIC_COUNTER_BUFFER_DATA_SIZE`: bytes up to the last counter.
    pub data_size: u32,
}

/// The default uniform block (`DefaultUniforms`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GlobalBlock {
    /// SPIR-V binding (= number of user blocks).
    pub binding: u32,
    /// Size in bytes (multiple of 16).
    pub size: u32,
}

/// Result of a successful link.
#[derive(Debug, Clone, Default)]
pub struct LinkedProgram {
    /// SPIR-V per stage, indexed by [`Stage::index`].
    pub stage_spirv: [Option<Vec<u32>>; 6],
    pub attributes: Vec<Variable>,
    pub outputs: Vec<Variable>,
    pub uniforms: Vec<Uniform>,
    pub blocks: Vec<UniformBlock>,
    pub global_block: Option<GlobalBlock>,
    pub sampler_slots: u32,
    /// Per sampler slot: whether a stage's code reads it (GL's active
    /// samplers: constant-indexed array elements count alone).
    pub active_samplers: Vec<bool>,
    pub storage_blocks: Vec<StorageBlock>,
    /// Members of the storage blocks (`StorageBlock::active_variables`).
    pub buffer_variables: Vec<BufferVariable>,
    /// Atomic counter buffers; their counters are uniforms of type
    /// `GL_UNSIGNED_INT_ATOMIC_COUNTER` whose `explicit_binding` is the
    /// buffer's binding point and `offset` the counter's.
    pub atomic_buffers: Vec<AtomicBuffer>,
    /// Image uniforms have bindings `0..image_slots`.
    pub image_slots: u32,
    /// A vertex or geometry stage uses storage blocks: the link error for a backend without them there
    /// (`CAPS_FEATURE_VERTEX_STORAGE`).
    pub pre_fragment_stores: Option<String>,
    /// Most varying locations a stage writes (`reflect::Reflection`).
    pub varying_locations: u32,
    /// `layout(location = N)` on default-block uniforms (by variable name;
    /// ARB_explicit_uniform_location, GL 4.3 core).
    pub uniform_locations: Vec<(String, u32)>,
    /// Link info log (warnings); empty when there is nothing to say.
    pub info_log: String,
    /// Fixed-function vertex inputs other than `gl_Vertex` the vertex
    /// shader reads: (array slot `FF_*`, the location the linker gave it).
    pub ff_inputs: Vec<(usize, u32)>,
    /// Default-block uniforms the implementation adds for itself (the
    /// user clip planes of a `gl_ClipVertex` shader, `prepass`): written
    /// by the client, never reported to the application (Mesa lists no
    /// such uniform either).
    pub hidden_uniforms: Vec<Uniform>,
    /// Initial default-block bytes from GLSL uniform initializers:
    /// (byte offset, bytes), applied over zeros at link (`initializers`).
    pub initial_values: Vec<(u32, Vec<u8>)>,
    /// Transform feedback capture layout (empty without varyings).
    pub xfb: xfb::XfbLayout,
    /// SPIR-V names of the colour varyings whose interpolation follows
    /// glShadeModel (GLSL 1.30 §4.3.7: `gl_Color` / `gl_SecondaryColor`
    /// read without an interpolation qualifier): flat under
    /// glShadeModel(GL_FLAT), through [`LinkedProgram::flat_shaded_spirv`].
    pub shade_model_colors: Vec<&'static str>,
}

/// Fixed-function vertex array slots (compatibility profile): the arrays
/// of a VAO, their current values, and the inputs they feed.
pub const FF_VERTEX: usize = 0;
pub const FF_NORMAL: usize = 1;
pub const FF_COLOR: usize = 2;
pub const FF_SECONDARY_COLOR: usize = 3;
pub const FF_FOG_COORD: usize = 4;
/// Texture coordinate sets 0..8 are slots FF_TEXCOORD0 + i.
pub const FF_TEXCOORD0: usize = 5;
pub const FF_EDGE_FLAG: usize = 13;
pub const FF_ARRAYS: usize = 14;

/// The geometry stage's primitive layout (`layout(...) in/out`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GeometryLayout {
    /// GL_POINTS, GL_LINES, GL_LINES_ADJACENCY, GL_TRIANGLES or
    /// GL_TRIANGLES_ADJACENCY.
    pub input: u32,
    /// GL_POINTS, GL_LINE_STRIP or GL_TRIANGLE_STRIP.
    pub output: u32,
    pub max_vertices: u32,
    /// `layout(invocations = N) in` (ARB_gpu_shader5); 1 when absent.
    pub invocations: u32,
}

/// The tessellation stages' layout (`layout(vertices = N) out` of the
/// control stage, `layout(primitive, spacing, order, point_mode) in` of
/// the evaluation stage), in GL enums.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TessLayout {
    /// GL_TESS_CONTROL_OUTPUT_VERTICES (0 without a control stage).
    pub output_vertices: u32,
    /// GL_TRIANGLES, GL_QUADS or GL_ISOLINES.
    pub mode: u32,
    /// GL_EQUAL, GL_FRACTIONAL_EVEN or GL_FRACTIONAL_ODD.
    pub spacing: u32,
    /// GL_CCW or GL_CW.
    pub vertex_order: u32,
    pub point_mode: bool,
}

impl LinkedProgram {
    /// The tessellation layout, read from the SPIR-V execution modes of
    /// both tessellation stages (SPIR-V lets either stage carry them);
    /// `None` when the program has neither.
    pub fn tess_layout(&self) -> Option<TessLayout> {
        let tcs = self.stage_spirv[Stage::TessControl.index()].as_ref();
        let tes = self.stage_spirv[Stage::TessEval.index()].as_ref();
        if tcs.is_none() && tes.is_none() {
            return None;
        }
        let mut layout = TessLayout {
            output_vertices: 0,
            mode: glow::TRIANGLES,
            spacing: glow::EQUAL,
            vertex_order: glow::CCW,
            point_mode: false,
        };
        for words in [tcs, tes].into_iter().flatten() {
            for (opcode, inst) in spirv::instructions(words) {
                // OpExecutionMode: entry point, mode, literals.
                if opcode != 16 {
                    continue;
                }
                match inst.get(2).copied() {
                    Some(1) => layout.spacing = glow::EQUAL,
                    Some(2) => layout.spacing = glow::FRACTIONAL_EVEN,
                    Some(3) => layout.spacing = glow::FRACTIONAL_ODD,
                    Some(4) => layout.vertex_order = glow::CW,
                    Some(5) => layout.vertex_order = glow::CCW,
                    Some(10) => layout.point_mode = true,
                    Some(22) => layout.mode = glow::TRIANGLES,
                    Some(24) => layout.mode = glow::QUADS,
                    Some(25) => layout.mode = glow::ISOLINES,
                    Some(26) => layout.output_vertices = inst.get(3).copied().unwrap_or(0),
                    _ => {}
                }
            }
        }
        Some(layout)
    }

    /// Same interface as `other`: attributes, outputs, uniforms (names,
    /// offsets), blocks and the default block's size; what a variant
    /// linked from the same sources must keep to share its state.
    pub fn same_interface(&self, other: &LinkedProgram) -> bool {
        let uniforms = |p: &LinkedProgram| {
            p.uniforms
                .iter()
                .chain(&p.hidden_uniforms)
                .map(|u| (u.name.clone(), u.offset, u.block_index))
                .collect::<Vec<_>>()
        };
        self.attributes.len() == other.attributes.len()
            && self.outputs.len() == other.outputs.len()
            && self.blocks.len() == other.blocks.len()
            && self.sampler_slots == other.sampler_slots
            && self.image_slots == other.image_slots
            && self.storage_blocks.len() == other.storage_blocks.len()
            && self.global_block.as_ref().map(|g| (g.binding, g.size))
                == other.global_block.as_ref().map(|g| (g.binding, g.size))
            && uniforms(self) == uniforms(other)
    }

    /// `stages` (this program's SPIR-V or a variant's) with the
    /// [`LinkedProgram::shade_model_colors`]
    /// flat (outputs of the last stage before rasterisation, inputs of
    /// the fragment shader): the program under glShadeModel(GL_FLAT).
    /// None when that changes nothing.
    pub fn flat_shaded_spirv(
        &self,
        stages: &[Option<Vec<u32>>; 6],
    ) -> Option<[Option<Vec<u32>>; 6]> {
        if self.shade_model_colors.is_empty() {
            return None;
        }
        let last = [Stage::Geometry, Stage::TessEval, Stage::Vertex]
            .into_iter()
            .find(|s| stages[s.index()].is_some())?;
        let mut out = stages.clone();
        let mut changed = false;
        for (stage, storage) in [
            (last, spirv::storage::OUTPUT),
            (Stage::Fragment, spirv::storage::INPUT),
        ] {
            let Some(words) = &stages[stage.index()] else {
                continue;
            };
            if let Some(w) = spirv::decorate_flat(words, &self.shade_model_colors, storage) {
                out[stage.index()] = Some(w);
                changed = true;
            }
        }
        changed.then_some(out)
    }

    /// The geometry stage's layout, read from its SPIR-V execution modes;
    /// `None` without a geometry stage.
    pub fn geometry_layout(&self) -> Option<GeometryLayout> {
        let words = self.stage_spirv[Stage::Geometry.index()].as_ref()?;
        let mut layout = GeometryLayout {
            input: glow::TRIANGLES,
            output: glow::TRIANGLE_STRIP,
            max_vertices: 0,
            invocations: 1,
        };
        for (opcode, inst) in spirv::instructions(words) {
            // OpExecutionMode: entry point, mode, literals.
            if opcode != 16 {
                continue;
            }
            let literal = inst.get(3).copied();
            match inst.get(2).copied() {
                Some(19) => layout.input = glow::POINTS,
                Some(20) => layout.input = glow::LINES,
                Some(21) => layout.input = glow::LINES_ADJACENCY,
                Some(22) => layout.input = glow::TRIANGLES,
                Some(23) => layout.input = glow::TRIANGLES_ADJACENCY,
                Some(0) => layout.invocations = literal.unwrap_or(1),
                Some(26) => layout.max_vertices = literal.unwrap_or(0),
                Some(27) => layout.output = glow::POINTS,
                Some(28) => layout.output = glow::LINE_STRIP,
                Some(29) => layout.output = glow::TRIANGLE_STRIP,
                _ => {}
            }
        }
        Some(layout)
    }
}

impl LinkedProgram {
    /// Whether any stage declares `OpCapability Float64` (doubles).
    pub fn uses_float64(&self) -> bool {
        self.stage_spirv.iter().flatten().any(|words| {
            spirv::instructions(words)
                .any(|(opcode, inst)| opcode == 17 && inst.get(1) == Some(&10))
        })
    }

    /// The compute stage's `layout(local_size_x/y/z)`, from its SPIR-V
    /// (`OpExecutionMode LocalSize`); `None` without a compute stage.
    pub fn local_size(&self) -> Option<[u32; 3]> {
        let words = self.stage_spirv[Stage::Compute.index()].as_ref()?;
        let mut size = [1u32; 3];
        for (opcode, inst) in spirv::instructions(words) {
            // OpExecutionMode entry LocalSize(17) x y z
            if opcode == 16 && inst.get(2) == Some(&17) {
                for (k, v) in size.iter_mut().enumerate() {
                    *v = inst.get(3 + k).copied().unwrap_or(1);
                }
            }
        }
        Some(size)
    }

    /// Whether `stage` declares the uniform block `block` (an index into
    /// `blocks`): a `Uniform` variable carrying the block's binding (the
    /// first element's binding for an element of a block array).
    pub fn block_referenced(&self, block: usize, stage: Stage) -> bool {
        let Some(b) = self.blocks.get(block) else {
            return false;
        };
        let Some(words) = self.stage_spirv[stage.index()].as_ref() else {
            return false;
        };
        let element = b
            .name
            .strip_suffix(']')
            .and_then(|n| n.rsplit_once('['))
            .and_then(|(_, i)| i.parse::<u32>().ok())
            .unwrap_or(0);
        let Some(binding) = b.binding.checked_sub(element) else {
            return false;
        };
        let mut bound = HashSet::new();
        let mut uniform_vars = Vec::new();
        let mut i = 5usize;
        while let Some(&head) = words.get(i) {
            let count = (head >> 16) as usize;
            if count == 0 {
                break;
            }
            match head & 0xFFFF {
                // OpDecorate target Binding n
                71 if words.get(i + 2) == Some(&33) && words.get(i + 3) == Some(&binding) => {
                    if let Some(&id) = words.get(i + 1) {
                        bound.insert(id);
                    }
                }
                // OpVariable type id Uniform
                59 if words.get(i + 3) == Some(&2) => {
                    if let Some(&id) = words.get(i + 2) {
                        uniform_vars.push(id);
                    }
                }
                _ => {}
            }
            i += count;
        }
        uniform_vars.iter().any(|id| bound.contains(id))
    }
}

/// Internal failures, turned into info-log text at the API boundary.
#[derive(Debug, thiserror::Error)]
enum ShaderError {
    #[error("internal error: {0}")]
    Internal(String),
}

fn catch<T>(what: &str, f: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(_) => {
            tracing::error!(target: "mobilegl::shader", "panic during {what}");
            Err(format!(
                "ERROR: {}\n",
                ShaderError::Internal(format!("{what} failed unexpectedly"))
            ))
        }
    }
}

/// Vertex streams a geometry shader may emit to (`GL_MAX_VERTEX_STREAMS`,
/// ARB_gpu_shader5's minimum; see `spirv::lower_vertex_streams`).
pub const MAX_VERTEX_STREAMS: u32 = 4;
/// `GL_MAX_GEOMETRY_SHADER_INVOCATIONS`: ARB_gpu_shader5's minimum, which
/// GLES 3.2 and Vulkan (`maxGeometryShaderInvocations`) also guarantee.
pub const MAX_GEOMETRY_SHADER_INVOCATIONS: u32 = 32;
/// GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS and _SIZE as reported (GL 4.3's
/// minimums, which GLES 3.1 drivers and Vulkan devices meet or exceed):
/// checked here at compile time, so the driver's own values cannot be.
pub const MAX_COMPUTE_WORK_GROUP_INVOCATIONS: u32 = 1024;
pub const MAX_COMPUTE_WORK_GROUP_SIZE: [u32; 3] = [1024, 1024, 64];

/// `glCompileShader`: pre-pass, preprocess and parse one shader.
/// `Ok(info_log)` (possibly with warnings) or `Err(info_log)`.
pub fn compile(stage: Stage, source: &str) -> Result<String, String> {
    catch("shader compilation", || {
        let pre = prepass::prepass(stage, source)?;
        let (shader, log) = glsl::parse(stage, &pre.source)?;
        check_layout_limits(&shader)?;
        Ok(log)
    })
}

/// Layout values glslang accepts but our limits do not: a geometry
/// shader's `invocations` above `GL_MAX_GEOMETRY_SHADER_INVOCATIONS` and a
/// `stream` outside 0..`GL_MAX_VERTEX_STREAMS` (ARB_gpu_shader5: both are
/// compile errors).
fn check_layout_limits(shader: &glsl::ParsedShader) -> Result<(), String> {
    let mut local_size = [1i64; 3];
    for (key, v) in prepass::layout_values(&shader.preprocessed) {
        match key.as_str() {
            "local_size_x" => local_size[0] = v,
            "local_size_y" => local_size[1] = v,
            "local_size_z" => local_size[2] = v,
            "invocations" if v > i64::from(MAX_GEOMETRY_SHADER_INVOCATIONS) => {
                return Err(format!(
                    "ERROR: 0:0: 'invocations' : {v} is above GL_MAX_GEOMETRY_SHADER_INVOCATIONS ({MAX_GEOMETRY_SHADER_INVOCATIONS})\n"
                ))
            }
            "stream" if !(0..i64::from(MAX_VERTEX_STREAMS)).contains(&v) => {
                return Err(format!(
                    "ERROR: 0:0: 'stream' : {v} is outside 0..{} (GL_MAX_VERTEX_STREAMS is {MAX_VERTEX_STREAMS})\n",
                    MAX_VERTEX_STREAMS - 1
                ))
            }
            _ => {}
        }
    }
    let invocations = local_size.iter().fold(1i64, |a, &d| a.saturating_mul(d));
    if shader.stage == Stage::Compute && invocations > i64::from(MAX_COMPUTE_WORK_GROUP_INVOCATIONS)
    {
        return Err(format!(
            "ERROR: 0:0: 'local_size' : {invocations} invocations per work group is above GL_MAX_COMPUTE_WORK_GROUP_INVOCATIONS ({MAX_COMPUTE_WORK_GROUP_INVOCATIONS})\n"
        ));
    }
    Ok(())
}

/// GLSL 4.60 §4.1.9: only a storage block's last member may be an array
/// without a size (a link error; glslang would size it from its uses).
fn check_storage_block_members(parsed: &[glsl::ParsedShader]) -> Result<(), String> {
    match parsed
        .iter()
        .find_map(|p| prepass::storage_blocks_unsized_early(&p.preprocessed).pop())
    {
        Some(name) => Err(format!(
            "ERROR: Linking: storage block `{name}`: only its last member may be an array without a size\n"
        )),
        None => Ok(()),
    }
}

/// GL 4.6 §19: a compute program needs a local size from at least one of
/// its shaders (glslang defaults it to 1 × 1 × 1 instead).
fn check_local_size_declared(parsed: &[glsl::ParsedShader]) -> Result<(), String> {
    let compute: Vec<&glsl::ParsedShader> = parsed
        .iter()
        .filter(|p| p.stage == Stage::Compute)
        .collect();
    if compute.is_empty()
        || compute.iter().any(|p| {
            prepass::layout_values(&p.preprocessed)
                .iter()
                .any(|(k, _)| k.starts_with("local_size_"))
        })
    {
        return Ok(());
    }
    Err("ERROR: Linking compute stage: no shader declares a local work-group size (layout(local_size_x = ...) in)\n".to_owned())
}

/// GLSL 1.30–4.10: a varying must be `invariant` in both the stage that
/// writes it and the one that reads it, or in neither (4.20 drops the rule
/// for inputs, so it is checked only when every stage is older).
/// GLSL 1.20 §4.3: a global that several shaders of one stage initialize
/// must have the same initializer in each (a link error otherwise; glslang
/// keeps the first).
fn check_global_initializers(parsed: &[glsl::ParsedShader]) -> Result<(), String> {
    for stage in Stage::ALL {
        // One shader of a stage has nothing to agree with.
        if parsed.iter().filter(|p| p.stage == stage).count() < 2 {
            continue;
        }
        // name -> (initializer, index of the shader that has it)
        let mut seen: std::collections::HashMap<String, (String, usize)> = Default::default();
        for (k, p) in parsed.iter().enumerate().filter(|(_, p)| p.stage == stage) {
            for (name, init) in prepass::global_initializers(&p.preprocessed) {
                match seen.get(&name) {
                    Some((other, at)) if *at != k && *other != init => {
                        return Err(format!(
                            "ERROR: Linking {:?} stage: global variable \"{name}\" has different initializers in two shaders (`{other}` and `{init}`)\n",
                            stage
                        ));
                    }
                    _ => {
                        seen.insert(name, (init, k));
                    }
                }
            }
        }
    }
    Ok(())
}

/// GLSL 1.50 §4.3.8.1: when one fragment shader of a program redeclares
/// `gl_FragCoord`, every fragment shader that uses it must redeclare it,
/// all with the same qualifiers.
fn check_frag_coord_redeclarations(parsed: &[glsl::ParsedShader]) -> Result<(), String> {
    // A single fragment shader has nothing to agree with.
    if parsed.iter().filter(|p| p.stage == Stage::Fragment).count() < 2 {
        return Ok(());
    }
    let decls: Vec<(Option<String>, bool)> = parsed
        .iter()
        .filter(|p| p.stage == Stage::Fragment)
        .map(|p| prepass::frag_coord_declaration(&p.preprocessed))
        .collect();
    let Some(first) = decls.iter().find_map(|(d, _)| d.clone()) else {
        return Ok(());
    };
    for (decl, used) in &decls {
        match decl {
            Some(d) if *d != first => {
                return Err(format!(
                    "ERROR: Linking fragment stage: gl_FragCoord is redeclared with different qualifiers (`{first}` and `{d}`)\n"
                ));
            }
            None if *used => {
                return Err("ERROR: Linking fragment stage: gl_FragCoord is redeclared in one fragment shader and used without the redeclaration in another\n".to_owned());
            }
            _ => {}
        }
    }
    Ok(())
}

fn check_invariance(parsed: &[glsl::ParsedShader]) -> Result<(), String> {
    let version = |p: &glsl::ParsedShader| {
        p.preprocessed
            .lines()
            .find_map(|l| l.trim().strip_prefix("#version"))
            .map(|v| {
                let mut parts = v.split_whitespace();
                let n = parts
                    .next()
                    .and_then(|n| n.parse::<u32>().ok())
                    .unwrap_or(0);
                (n, parts.next() == Some("es"))
            })
            .unwrap_or((0, false))
    };
    if parsed.iter().any(|p| {
        let (n, es) = version(p);
        es || n >= 420
    }) {
        return Ok(());
    }
    let order = [Stage::Vertex, Stage::Geometry, Stage::Fragment];
    let present: Vec<Stage> = order
        .into_iter()
        .filter(|s| parsed.iter().any(|p| p.stage == *s))
        .collect();
    let collect = |stage: Stage, storage: &str| -> Vec<(String, bool)> {
        parsed
            .iter()
            .filter(|p| p.stage == stage)
            .flat_map(|p| prepass::varying_invariance(&p.preprocessed))
            .filter(|(st, _, _)| st == storage)
            .map(|(_, n, i)| (n, i))
            .collect()
    };
    for pair in present.windows(2) {
        let outs = collect(pair[0], "out");
        let ins = collect(pair[1], "in");
        for (name, inv_in) in &ins {
            if let Some((_, inv_out)) = outs.iter().find(|(n, _)| n == name) {
                if inv_in != inv_out {
                    return Err(format!(
                        "ERROR: Linking: {:?} output '{name}' and {:?} input differ in the invariant qualifier\n",
                        pair[0], pair[1]
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The colour varyings (their SPIR-V names) a fragment shader reads
/// through `gl_Color` / `gl_SecondaryColor` without an interpolation
/// qualifier: those follow glShadeModel (GLSL 1.30 §4.3.7), smooth by
/// default, flat under GL_FLAT.
fn shade_model_colors(varyings: &[(Stage, prepass::CompatVarying)]) -> Vec<&'static str> {
    let pairs: [(&str, [&'static str; 2]); 2] = [
        ("gl_Color", ["mgl_FrontColor", "mgl_BackColor"]),
        (
            "gl_SecondaryColor",
            ["mgl_FrontSecondaryColor", "mgl_BackSecondaryColor"],
        ),
    ];
    let mut out = Vec::new();
    for (input, names) in pairs {
        if varyings.iter().any(|(s, v)| {
            *s == Stage::Fragment && v.name == input && v.used && v.interpolation.is_none()
        }) {
            out.extend(names);
        }
    }
    out
}

/// GLSL 1.30 (§4.3.7 as Mesa applies it): when the fragment shader reads
/// `gl_Color` (`gl_SecondaryColor`), each of `gl_FrontColor` and
/// `gl_BackColor` (their secondary twins) the vertex shader writes must
/// carry the same interpolation qualifier, "none" being distinct from an
/// explicit `smooth`. Checked for vertex → fragment programs.
fn check_compat_color_interpolation(
    varyings: &[(Stage, prepass::CompatVarying)],
) -> Result<(), String> {
    if varyings.iter().any(|(s, _)| *s == Stage::Geometry) {
        return Ok(());
    }
    let pairs = [
        ("gl_Color", ["gl_FrontColor", "gl_BackColor"]),
        (
            "gl_SecondaryColor",
            ["gl_FrontSecondaryColor", "gl_BackSecondaryColor"],
        ),
    ];
    for (input, outputs) in pairs {
        let Some((_, fs)) = varyings
            .iter()
            .find(|(s, v)| *s == Stage::Fragment && v.name == input && v.used)
        else {
            continue;
        };
        for output in outputs {
            let written = varyings
                .iter()
                .find(|(s, v)| *s == Stage::Vertex && v.name == output && v.used);
            if let Some((_, vs)) = written {
                if vs.interpolation != fs.interpolation {
                    let q = |i: &Option<String>| i.clone().unwrap_or_else(|| "no".to_owned());
                    return Err(format!(
                        "ERROR: Linking: {output} ({} interpolation qualifier) and {input} ({} interpolation qualifier) differ\n",
                        q(&vs.interpolation),
                        q(&fs.interpolation)
                    ));
                }
            }
        }
    }
    Ok(())
}

/// `glLinkProgram`: compiles and links the attached shaders, assigns
/// locations/bindings per the module conventions and reflects the result.
pub fn link(input: &LinkInput) -> Result<LinkedProgram, String> {
    catch("program link", || link_inner(input, false))
}

/// [`link`] for glProvokingVertex(GL_FIRST_VERTEX_CONVENTION) on a
/// program with a geometry shader: its output strips give each primitive
/// the flat values of its first vertex while the driver provokes with the
/// last (`prepass::first_vertex_provokes`). The rest of the program (its
/// interface, uniforms and their layout) is the plain link's.
pub fn link_provoking_first(input: &LinkInput) -> Result<LinkedProgram, String> {
    catch("program link", || link_inner(input, true))
}

/// Inputs of a stage after the first with an explicit `layout(location)`
/// (variables, and blocks by block name) rendezvous by location (GL 4.6
/// §7.4.1): they get names of their own so that glslang does not match
/// them by name with an output at another location (its link refuses
/// that); the program reports the original names.
fn rename_located_inputs(pre: &mut prepass::Prepassed) {
    let renames: Vec<(String, String)> = prepass::layout_declarations(&pre.source)
        .into_iter()
        .filter(|d| d.storage == "in" && d.values.iter().any(|(k, _)| k == "location"))
        .map(|d| {
            let to = format!("{}_mgl_in", d.name);
            (d.name, to)
        })
        .collect();
    if renames.is_empty() {
        return;
    }
    pre.source = prepass::rename_identifiers(&pre.source, &renames);
    pre.renames
        .extend(renames.into_iter().map(|(from, to)| (to, from)));
}

fn link_inner(input: &LinkInput, provoking_first: bool) -> Result<LinkedProgram, String> {
    if input.shaders.is_empty() {
        return Err("ERROR: Linking: no shaders attached\n".to_owned());
    }
    let has_compute = input.shaders.iter().any(|(s, _)| *s == Stage::Compute);
    if has_compute && input.shaders.iter().any(|(s, _)| *s != Stage::Compute) {
        return Err(
            "ERROR: Linking: a compute shader cannot be linked with other stages\n".to_owned(),
        );
    }

    let mut parsed = Vec::with_capacity(input.shaders.len());
    let mut renames: Vec<(String, String)> = Vec::new();
    let mut opaque_splits: Vec<prepass::OpaqueSplit> = Vec::new();
    let mut bool_names: HashSet<String> = HashSet::new();
    let mut bindings = reflect::ExplicitBindings::default();
    let mut uniform_locations: Vec<(String, u32)> = Vec::new();
    let mut compat_varyings: Vec<(Stage, prepass::CompatVarying)> = Vec::new();
    let mut compat_inputs: Vec<String> = Vec::new();
    let has_geometry = input.shaders.iter().any(|(s, _)| *s == Stage::Geometry);
    // The colour varyings the stage feeding the fragment shader writes
    // (a fragment shader declares back colours only if written), then
    // the fragment shader's compatibility varyings, which that stage
    // declares. A failed pre-pass is reported in the loop below.
    let has_tess_eval = input.shaders.iter().any(|(s, _)| *s == Stage::TessEval);
    let last_vertex = if has_geometry {
        Stage::Geometry
    } else if has_tess_eval {
        Stage::TessEval
    } else {
        Stage::Vertex
    };
    let written: Vec<String> = input
        .shaders
        .iter()
        .filter(|(s, _)| *s == last_vertex)
        .filter_map(|(s, src)| {
            let view = prepass::LinkView {
                vs_feeds_gs: has_geometry,
                ..Default::default()
            };
            prepass::prepass_linked(*s, src, &view).ok()
        })
        .flat_map(|p| {
            p.compat_varyings
                .into_iter()
                .filter(|v| v.used)
                .map(|v| v.name)
        })
        .collect();
    let fragment_view = prepass::LinkView {
        previous_writes: Some(&written),
        ..Default::default()
    };
    let mut fragment_reads: Vec<(String, String)> = Vec::new();
    let mut points_program = false;
    for (s, src) in input.shaders.iter().filter(|(s, _)| *s == Stage::Fragment) {
        if let Ok(p) = prepass::prepass_linked(*s, src, &fragment_view) {
            fragment_reads.extend(p.fragment_reads);
            points_program |= p.reads_point_coord;
        }
    }
    // A geometry shader emitting points makes every draw of the program
    // points (piglit `emitstreamvertex_nodraw` draws them at glPointSize 2).
    points_program |= input
        .shaders
        .iter()
        .any(|(s, src)| *s == Stage::Geometry && prepass::geometry_emits_points(src));
    let first_stage = input.shaders.iter().map(|(s, _)| s.index()).min();
    let mut builtin_inputs: Vec<&str> = Vec::new();
    // A fragment shader of the program that redeclares gl_FragCoord: the
    // fragment shaders that neither redeclare nor use it get the same
    // redeclaration (glslang's linker wants it in every unit; GLSL 1.50
    // §4.3.8.1 only in those that use it).
    let fragment_units = input
        .shaders
        .iter()
        .filter(|(s, _)| *s == Stage::Fragment)
        .count();
    let mut integer_pixel_centers = false;
    let frag_coord_redeclarations: Vec<String> = input
        .shaders
        .iter()
        .filter(|(s, _)| *s == Stage::Fragment)
        .filter_map(|(_, src)| prepass::frag_coord_declaration(src).0)
        .collect();
    // Redeclarations that differ are a link error
    // (`check_frag_coord_redeclarations`): nothing is added or stripped.
    let frag_coord_redeclaration = frag_coord_redeclarations
        .first()
        .filter(|d| frag_coord_redeclarations.iter().all(|o| o == *d))
        .cloned();
    // Implicitly sized arrays, sized by the constant indices of every
    // shader of their stage (`prepass::size_implicit_arrays`).
    let mut implicit_sizes: [Vec<(String, u32)>; 6] = Default::default();
    for (stage, source) in input.shaders {
        let sizes = &mut implicit_sizes[stage.index()];
        for (name, size) in prepass::implicit_array_sizes(source) {
            match sizes.iter_mut().find(|(n, _)| *n == name) {
                Some((_, s)) => *s = (*s).max(size),
                None => sizes.push((name, size)),
            }
        }
    }
    for (stage, source) in input.shaders {
        // The stage rasterisation follows: geometry, else tessellation
        // evaluation, else vertex.
        let last_vertex_stage = *stage == last_vertex;
        let view = prepass::LinkView {
            vs_feeds_gs: has_geometry,
            last_vertex_stage,
            fragment_reads: if last_vertex_stage {
                &fragment_reads
            } else {
                &[]
            },
            previous_writes: Some(&written),
            points_program,
            provoking_first: provoking_first && *stage == Stage::Geometry,
            implicit_array_sizes: &implicit_sizes[stage.index()],
        };
        if *stage == Stage::Vertex {
            // GL 4.6 §11.1.1: "all active vertex shader input variables are
            // enumerated, including the special built-in inputs gl_VertexID
            // and gl_InstanceID" (what the application's source reads; the
            // emulations may read them too).
            for (names, name) in [
                (&["gl_VertexID"][..], "gl_VertexID"),
                (&["gl_InstanceID", "gl_InstanceIDARB"][..], "gl_InstanceID"),
            ] {
                if names.iter().any(|n| prepass::names_identifier(source, n)) {
                    builtin_inputs.push(name);
                }
            }
        }
        let mut pre = prepass::prepass_linked(*stage, source, &view)
            .map_err(|log| format!("ERROR: Linking: {stage:?} shader failed to compile\n{log}"))?;
        if Some(stage.index()) != first_stage {
            rename_located_inputs(&mut pre);
        }
        compat_varyings.extend(pre.compat_varyings.iter().map(|v| (*stage, v.clone())));
        for n in &pre.compat_inputs {
            if !compat_inputs.contains(n) {
                compat_inputs.push(n.clone());
            }
        }
        if pre.clip_vertex_and_distance {
            // GLSL 1.30 §7.1: a program may use gl_ClipVertex or
            // gl_ClipDistance, not both.
            return Err(format!(
                "ERROR: Linking: the {stage:?} shader uses both gl_ClipVertex and gl_ClipDistance\n"
            ));
        }
        for r in pre.renames {
            if !renames.contains(&r) {
                renames.push(r);
            }
        }
        for split in pre.opaque_splits {
            if !opaque_splits.contains(&split) {
                opaque_splits.push(split);
            }
        }
        if let (Stage::Fragment, Some(d)) = (*stage, &frag_coord_redeclaration) {
            if prepass::frag_coord_declaration(&pre.source) == (None, false) {
                pre.source.push_str(&format!("\n{d} vec4 gl_FragCoord;\n"));
            }
            // glslang's linker of several fragment units compares each
            // unit's pixel_center_integer with a fresh one's (never
            // equal): the qualifier is taken out of the units and the mode
            // put back on the linked module.
            if fragment_units > 1 {
                if let Some(stripped) = prepass::strip_pixel_center_integer(&pre.source) {
                    pre.source = stripped;
                    integer_pixel_centers = true;
                }
            }
        }
        let (shader, _) = glsl::parse(*stage, &pre.source)
            .map_err(|log| format!("ERROR: Linking: {stage:?} shader failed to compile\n{log}"))?;
        check_layout_limits(&shader)
            .map_err(|log| format!("ERROR: Linking: {stage:?} shader failed to compile\n{log}"))?;
        bool_names.extend(prepass::bool_declarations(&shader.preprocessed));
        for d in prepass::layout_declarations(&shader.preprocessed) {
            if let (Some(&(_, l)), "uniform", false) = (
                d.values.iter().find(|(k, _)| k == "location"),
                d.storage.as_str(),
                d.is_block,
            ) {
                if !uniform_locations.iter().any(|(n, _)| *n == d.name) {
                    uniform_locations.push((d.name.clone(), l));
                }
            }
            let Some(&(_, b)) = d.values.iter().find(|(k, _)| k == "binding") else {
                continue;
            };
            let map = match (d.storage.as_str(), d.is_block) {
                ("uniform", true) => &mut bindings.blocks,
                ("uniform", false) => &mut bindings.variables,
                ("buffer", true) => &mut bindings.storage_blocks,
                _ => continue,
            };
            map.entry(d.name).or_insert(b);
        }
        parsed.push(shader);
    }

    check_invariance(&parsed)?;
    check_compat_color_interpolation(&compat_varyings)?;
    let shade_model_colors = shade_model_colors(&compat_varyings);
    check_global_initializers(&parsed)?;
    check_frag_coord_redeclarations(&parsed)?;
    check_local_size_declared(&parsed)?;
    check_storage_block_members(&parsed)?;
    let (program, log) = glsl::Program::link(&parsed)?;

    let mut stages: Vec<reflect::StageModule> = Vec::new();
    // The vertex stream of each geometry output (read before the streams
    // are lowered away): transform feedback may not mix streams in one
    // buffer.
    let mut output_streams: Vec<(u32, u32)> = Vec::new();
    for stage in Stage::ALL {
        let sources: Vec<&glsl::ParsedShader> =
            parsed.iter().filter(|p| p.stage == stage).collect();
        if sources.is_empty() {
            continue;
        }
        let mut words = program.spirv(stage)?;
        if stage == Stage::Fragment && integer_pixel_centers {
            words = spirv::add_execution_mode(words, spirv::EXEC_MODE_PIXEL_CENTER_INTEGER);
        }
        let mut module = spirv::Module::parse(words)?;
        if stage == Stage::Geometry {
            output_streams = spirv::output_streams(&module);
            module = spirv::lower_vertex_streams(module)?;
        }
        let storage = match stage {
            Stage::Vertex => Some("in"),
            Stage::Fragment => Some("out"),
            _ => None,
        };
        let explicit: HashSet<String> = storage
            .map(|st| {
                sources
                    .iter()
                    .flat_map(|p| prepass::explicit_locations(&p.preprocessed, st))
                    .map(|(name, _)| name)
                    .collect()
            })
            .unwrap_or_default();
        // Inputs of later stages with an explicit location (variables and
        // blocks): they rendezvous by location, not by name.
        let located = |storage: &str| -> HashSet<String> {
            sources
                .iter()
                .flat_map(|p| prepass::layout_declarations(&p.preprocessed))
                .filter(|d| d.storage == storage && d.values.iter().any(|(k, _)| k == "location"))
                .map(|d| d.name)
                .collect()
        };
        let explicit_in = match stage {
            Stage::Vertex => HashSet::new(),
            _ => located("in"),
        };
        let explicit_out = match stage {
            Stage::Fragment | Stage::Compute => HashSet::new(),
            _ => located("out"),
        };
        let mut order = std::collections::HashMap::new();
        let mut base = 0usize;
        for p in &sources {
            prepass::identifier_order(&p.preprocessed, base, &mut order);
            base = base.saturating_add(p.preprocessed.len());
        }
        stages.push(reflect::StageModule {
            stage,
            module,
            explicit,
            explicit_in,
            explicit_out,
            order,
        });
    }
    drop(program);

    let names = reflect::Names {
        renames: &renames,
        opaque_splits: &opaque_splits,
        bool_names: &bool_names,
        bindings: &bindings,
    };
    // `gl_Vertex` (emulated in legacy vertex shaders) is generic attribute
    // 0; a binding the application makes for it is refused at the API.
    let mut attrib_bindings = vec![("gl_Vertex".to_owned(), 0u32)];
    attrib_bindings.extend_from_slice(input.attrib_bindings);
    let r = reflect::reflect(
        &mut stages,
        &attrib_bindings,
        input.frag_data_bindings,
        &names,
    )?;

    let mut out = LinkedProgram {
        attributes: r.attributes,
        outputs: r.outputs,
        uniforms: r.uniforms,
        blocks: r.blocks,
        global_block: r.global_block,
        sampler_slots: r.sampler_slots,
        active_samplers: vec![false; r.sampler_slots as usize],
        storage_blocks: r.storage_blocks,
        buffer_variables: r.buffer_variables,
        atomic_buffers: r.atomic_buffers,
        image_slots: r.image_slots,
        varying_locations: r.varying_locations,
        pre_fragment_stores: r.pre_fragment_stores,
        uniform_locations,
        info_log: log,
        shade_model_colors,
        ..Default::default()
    };
    // A program the implementation completed with its fixed-function
    // vertex stage (a fragment shader alone in a compatibility context,
    // `gl::shaders`) reads the matrix state there; those built-ins are
    // not the application's active uniforms unless its own shaders name
    // them (Mesa's internal fixed-function stage lists none either).
    let internal = |src: &str| src == crate::gl::shaders::FIXED_FUNCTION_VS;
    let completed = input.shaders.iter().any(|(_, s)| internal(s));
    let hidden = |name: &str| {
        prepass::is_hidden_uniform(name)
            || (completed && name.starts_with("gl_") && {
                let base = name.split(['[', '.']).next().unwrap_or(name);
                !input
                    .shaders
                    .iter()
                    .filter(|(_, s)| !internal(s))
                    .any(|(_, s)| prepass::names_identifier(s, base))
            })
    };
    if out.uniforms.iter().any(|u| hidden(&u.name)) {
        let mut remap = Vec::with_capacity(out.uniforms.len());
        let mut kept = Vec::new();
        for u in std::mem::take(&mut out.uniforms) {
            if hidden(&u.name) {
                remap.push(u32::MAX);
                out.hidden_uniforms.push(u);
            } else {
                remap.push(kept.len() as u32);
                kept.push(u);
            }
        }
        out.uniforms = kept;
        for b in &mut out.blocks {
            for i in &mut b.active_uniforms {
                *i = remap.get(*i as usize).copied().unwrap_or(*i);
            }
        }
    }
    for p in &parsed {
        for init in initializers::parse(&p.preprocessed) {
            // Legacy sources' renamed identifiers answer to their names.
            let name = renames
                .iter()
                .find(|(new, _)| *new == init.name)
                .map_or(init.name.clone(), |(_, orig)| orig.clone());
            let mut leaves = Vec::new();
            initializers::leaves(name, &init.value, &mut leaves);
            for (path, v) in leaves {
                initial_value(&out.uniforms, &path, v, &mut out.initial_values);
            }
        }
    }
    // Fixed-function inputs are active attributes without a location
    // (glGetAttribLocation answers -1 for every gl_ name); the draws feed
    // the location the linker gave them.
    for a in out.attributes.iter_mut() {
        if let Some(slot) = prepass::compat_input_slot(&a.name) {
            out.ff_inputs.push((slot, a.location));
            a.location = u32::MAX;
        }
    }
    for name in builtin_inputs {
        if !out.attributes.iter().any(|a| a.name == name) {
            out.attributes.push(Variable {
                name: name.to_owned(),
                gl_type: 0x1404, // GL_INT
                array_size: 1,
                location: u32::MAX,
            });
        }
    }
    // Emulated fixed-function inputs are active attributes without a
    // location (glGetAttribLocation answers -1 for every gl_ name).
    for n in compat_inputs {
        if out.attributes.iter().any(|a| a.name == n) {
            continue;
        }
        if let Some(gl_type) = prepass::compat_input_type(&n) {
            out.attributes.push(Variable {
                name: n,
                gl_type,
                array_size: 1,
                location: u32::MAX,
            });
        }
    }
    // The last vertex-processing stage captures the transform feedback
    // varyings.
    out.xfb.mode = input.xfb_mode;
    let last_vertex = stages
        .iter()
        .filter(|sm| matches!(sm.stage, Stage::Vertex | Stage::TessEval | Stage::Geometry))
        .map(|sm| sm.stage.index())
        .max();
    let mut linked: Vec<(Stage, spirv::Module)> = Vec::with_capacity(stages.len());
    for sm in stages {
        let mut module = sm.module;
        if !input.xfb_varyings.is_empty() && Some(sm.stage.index()) == last_vertex {
            let (m, layout) = xfb::apply(
                module,
                sm.stage == Stage::Geometry,
                input.xfb_varyings,
                input.xfb_mode,
                &renames,
                &output_streams,
            )?;
            module = m;
            out.xfb = layout;
        }
        // After reflection, which reports rectangle samplers as such.
        let module = spirv::lower_rect_images(module)?;
        let module = spirv::flatten_resource_arrays(module)?;
        let module = spirv::propagate_no_contraction(module)?;
        linked.push((sm.stage, module));
    }
    // Arrays of arrays between the last vertex stage and the fragment
    // stage: flattened on both sides or neither (ESSL refuses them;
    // transform feedback keeps its declared shapes).
    if input.xfb_varyings.is_empty() {
        let flat = |stage: Stage, storage: u32, linked: &[(Stage, spirv::Module)]| {
            linked
                .iter()
                .position(|(s, _)| *s == stage)
                .map(|k| (k, spirv::flatten_varying_arrays(&linked[k].1, storage)))
        };
        let producer = last_vertex
            .and_then(|i| linked.iter().find(|(s, _)| s.index() == i).map(|(s, _)| *s))
            .and_then(|s| flat(s, spirv::storage::OUTPUT, &linked));
        let consumer = flat(Stage::Fragment, spirv::storage::INPUT, &linked);
        let sides: Vec<_> = producer.into_iter().chain(consumer).collect();
        if sides.iter().all(|(_, r)| r.is_ok()) {
            for (k, r) in sides {
                if let Ok(Some(m)) = r {
                    linked[k].1 = m;
                }
            }
        }
    }
    // Varyings over the backend's location limit: packed.
    if input.xfb_varyings.is_empty() && input.varying_limit > 0 {
        let producer = linked
            .iter()
            .position(|(s, _)| Some(s.index()) == last_vertex && *s != Stage::TessEval);
        let consumer = linked.iter().position(|(s, _)| *s == Stage::Fragment);
        if let (Some(p), Some(c)) = (producer, consumer) {
            if reflect::output_locations(&linked[p].1) > input.varying_limit {
                let geometry = linked[p].0 == Stage::Geometry;
                if let Some(packed) =
                    packing::pack(&linked[p].1, &linked[c].1, geometry, input.varying_limit)
                {
                    linked[p].1 = spirv::Module::parse(packed.producer)?;
                    linked[c].1 = spirv::Module::parse(packed.consumer)?;
                    out.varying_locations = linked
                        .iter()
                        .filter(|(s, _)| !matches!(s, Stage::Fragment | Stage::Compute))
                        .map(|(_, m)| reflect::output_locations(m))
                        .max()
                        .unwrap_or(0);
                    tracing::debug!(
                        target: "mobilegl::shader",
                        locations = out.varying_locations,
                        "varyings packed"
                    );
                }
            }
        }
    }
    for (stage, module) in linked {
        spirv::mark_used_samplers(&module, &mut out.active_samplers);
        out.stage_spirv[stage.index()] = Some(module.words);
    }
    tracing::debug!(
        target: "mobilegl::shader",
        attributes = out.attributes.len(),
        uniforms = out.uniforms.len(),
        blocks = out.blocks.len(),
        samplers = out.sampler_slots,
        "program linked"
    );
    Ok(out)
}

/// The default-block bytes of one initialized leaf `path` (`s.m`, `a[2]`).
fn initial_value(
    uniforms: &[Uniform],
    path: &str,
    v: &initializers::Value,
    out: &mut Vec<(u32, Vec<u8>)>,
) {
    use crate::gl::shaders::{type_info, Base};
    let initializers::Value::Num { comps, .. } = v else {
        return;
    };
    let found = uniforms
        .iter()
        .filter(|u| u.block_index == -1 && u.offset != u32::MAX && u.sampler_binding.is_none())
        .find_map(|u| {
            if u.name == path {
                return Some((u, 0));
            }
            let (base, idx) = path.strip_suffix(']')?.rsplit_once('[')?;
            let i: u32 = idx.parse().ok()?;
            (u.name.strip_suffix("[0]") == Some(base) && i < u.array_size).then_some((u, i))
        });
    let Some((u, element)) = found else {
        return;
    };
    let (base, cols, rows) = type_info(u.gl_type);
    let size = if base == Base::Double { 8 } else { 4 };
    let at = u.offset + element * u.array_stride;
    for c in 0..cols {
        for r in 0..rows {
            let Some(&x) = comps.get((c * rows + r) as usize) else {
                return;
            };
            let bytes = match base {
                Base::Float => (x as f32).to_le_bytes().to_vec(),
                Base::Double => x.to_le_bytes().to_vec(),
                Base::Int => (x as i32).to_le_bytes().to_vec(),
                Base::Uint | Base::Bool => (x as i64 as u32).to_le_bytes().to_vec(),
                Base::Sampler => return,
            };
            out.push((at + c * u.matrix_stride + r * size, bytes));
        }
    }
}
