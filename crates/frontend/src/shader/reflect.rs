//! Link-time reflection and SPIR-V fix-ups: GL-style uniform/attribute/
//! output reflection read from the SPIR-V, and the binding/location
//! conventions of the module doc written back into it.

use std::collections::{HashMap, HashSet};

use super::glsl::DEFAULT_BLOCK_NAME;
use super::gltypes;
use super::spirv::{dec, storage, Module, Type};
use super::{
    AtomicBuffer, BufferVariable, GlobalBlock, Stage, StorageBlock, Uniform, UniformBlock, Variable,
};

/// `GL_UNSIGNED_INT_ATOMIC_COUNTER`.
pub(crate) const GL_UNSIGNED_INT_ATOMIC_COUNTER: u32 = 0x92DB;

/// The GL binding point of glslang's block for the `atomic_uint`s of
/// `layout(binding = N)` (`gl_AtomicCounterBlock_N`).
fn atomic_binding(block_name: &str) -> Option<u32> {
    block_name
        .strip_prefix("gl_AtomicCounterBlock_")?
        .parse()
        .ok()
}

/// Upper bound on reflected uniforms (arrays of structs expand per element).
const MAX_UNIFORMS: usize = 1 << 16;

pub(crate) struct StageModule {
    pub stage: Stage,
    pub module: Module,
    /// Names with an explicit `layout(location)` on inputs (vertex) or
    /// outputs (fragment), from the preprocessed source.
    pub explicit: HashSet<String>,
    /// Inputs of a stage after the vertex stage declared with an explicit
    /// `layout(location)` (variable names, block names for blocks).
    pub explicit_in: HashSet<String>,
    /// Outputs of a stage before the fragment stage declared with an
    /// explicit `layout(location)` (variable names, block names).
    pub explicit_out: HashSet<String>,
    /// Identifier → position of its first occurrence in the stage's
    /// preprocessed source (declaration order).
    pub order: HashMap<String, usize>,
}

pub(crate) struct Reflection {
    pub attributes: Vec<Variable>,
    pub outputs: Vec<Variable>,
    pub uniforms: Vec<Uniform>,
    pub blocks: Vec<UniformBlock>,
    pub global_block: Option<GlobalBlock>,
    pub sampler_slots: u32,
    pub storage_blocks: Vec<StorageBlock>,
    pub buffer_variables: Vec<BufferVariable>,
    pub atomic_buffers: Vec<AtomicBuffer>,
    pub image_slots: u32,
    /// Most output locations any stage before the fragment stage writes
    /// (the link refuses programs over the backend's varying limit).
    pub varying_locations: u32,
    /// Set when a vertex or geometry stage uses storage blocks: the link
    /// error for a backend without them there.
    pub pre_fragment_stores: Option<String>,
}

/// `layout(binding = N)` found in the sources (SPIR-V names).
#[derive(Debug, Default)]
pub(crate) struct ExplicitBindings {
    /// Non-block uniforms (samplers, images) by variable name.
    pub variables: HashMap<String, u32>,
    /// Uniform blocks by block name.
    pub blocks: HashMap<String, u32>,
    /// Shader storage blocks by block name.
    pub storage_blocks: HashMap<String, u32>,
}

pub(crate) struct Names<'a> {
    pub bindings: &'a ExplicitBindings,
    pub renames: &'a [(String, String)],
    /// Sampler arrays standing for arrays of structs of samplers
    /// (`prepass::OpaqueSplit`): listed under the GL names.
    pub opaque_splits: &'a [super::prepass::OpaqueSplit],
    /// Names declared `bool`/`bvecN` in the sources (glslang stores them as
    /// `uint` inside blocks).
    pub bool_names: &'a HashSet<String>,
}

impl Names<'_> {
    /// Maps a name built from SPIR-V names back to the user's spelling.
    fn user(&self, name: &str) -> String {
        let mut s = name.to_owned();
        for (new, orig) in self.renames {
            if s.contains(new.as_str()) {
                s = s.replace(new.as_str(), orig);
            }
        }
        s
    }
}

/// Images are offered to fragment and compute shaders only
/// (`GL_MAX_VERTEX_IMAGE_UNIFORMS` & co. are 0): GLES 3.1 guarantees no
/// more, and many mobile drivers have none before the fragment stage.
/// Storage blocks elsewhere are reflected and reported in
/// `Reflection::pre_fragment_stores`; the API layer refuses them unless
/// the backend has `CAPS_FEATURE_VERTEX_STORAGE`.
fn stores_allowed(stage: Stage) -> bool {
    matches!(stage, Stage::Fragment | Stage::Compute)
}

fn stage_limit_name(stage: Stage) -> &'static str {
    match stage {
        Stage::Vertex => "VERTEX",
        Stage::TessControl => "TESS_CONTROL",
        Stage::TessEval => "TESS_EVALUATION",
        Stage::Geometry => "GEOMETRY",
        Stage::Fragment => "FRAGMENT",
        Stage::Compute => "COMPUTE",
    }
}

fn strip_arrays(m: &Module, mut ty: u32) -> (u32, Vec<Option<u32>>) {
    let mut dims = Vec::new();
    loop {
        match m.types.get(&ty) {
            Some(Type::Array { element, len }) => {
                dims.push(*len);
                ty = *element;
            }
            Some(Type::RuntimeArray { element }) => {
                dims.push(None);
                ty = *element;
            }
            _ => return (ty, dims),
        }
    }
}

fn total_elements(dims: &[Option<u32>]) -> u32 {
    dims.iter()
        .fold(1u32, |acc, d| acc.saturating_mul(d.unwrap_or(1).max(1)))
}

/// The GL name suffix of element `i` of a block array with these
/// dimensions, outermost first: `[i]` for one dimension, `[a][b]` (last
/// dimension fastest, GL's order) for arrays of arrays.
/// The default-block entry of a sampler or image uniform (one row of an
/// array of arrays): bound from unit `first`.
fn opaque_uniform(
    name: String,
    gl_type: u32,
    array_size: u32,
    image: bool,
    first: u32,
    explicit_binding: Option<u32>,
) -> Uniform {
    Uniform {
        name,
        gl_type,
        array_size,
        block_index: -1,
        offset: u32::MAX,
        array_stride: 0,
        matrix_stride: 0,
        is_row_major: false,
        sampler_binding: (!image).then_some(first),
        image_binding: image.then_some(first),
        explicit_binding,
    }
}

fn element_suffix(dims: &[Option<u32>], mut i: u32) -> String {
    let mut parts = Vec::with_capacity(dims.len());
    for d in dims.iter().rev() {
        let n = d.unwrap_or(1).max(1);
        parts.push(i % n);
        i /= n;
    }
    parts.iter().rev().map(|p| format!("[{p}]")).collect()
}

fn is_struct(m: &Module, ty: u32) -> bool {
    matches!(m.types.get(&ty), Some(Type::Struct { .. }))
}

/// Locations a type consumes as a shader input/output.
pub(crate) fn location_count(m: &Module, ty: u32) -> u32 {
    match m.types.get(&ty) {
        Some(Type::Vector { component, count }) => {
            let wide = matches!(
                m.types.get(component),
                Some(Type::Float { width: 64 } | Type::Int { width: 64, .. })
            );
            if wide && *count > 2 {
                2
            } else {
                1
            }
        }
        Some(Type::Matrix { column, columns }) => {
            columns.saturating_mul(location_count(m, *column))
        }
        Some(Type::Array { element, len }) => {
            len.unwrap_or(1).saturating_mul(location_count(m, *element))
        }
        Some(Type::Struct { members }) => members
            .iter()
            .map(|t| location_count(m, *t))
            .fold(0u32, u32::saturating_add),
        _ => 1,
    }
}

/// Byte size of a type laid out with explicit offsets/strides. `mstride` and
/// `row_major` come from the member that holds the type.
fn byte_size(m: &Module, ty: u32, mstride: Option<u32>, row_major: bool, depth: u32) -> u32 {
    if depth > 64 {
        return 0;
    }
    match m.types.get(&ty) {
        Some(Type::Bool) => 4,
        Some(Type::Int { width, .. } | Type::Float { width }) => width / 8,
        Some(Type::Vector { component, count }) => {
            count.saturating_mul(byte_size(m, *component, None, false, depth + 1))
        }
        Some(Type::Matrix { column, columns }) => {
            let rows = match m.types.get(column) {
                Some(Type::Vector { count, .. }) => *count,
                _ => 1,
            };
            let n = if row_major { rows } else { *columns };
            match mstride {
                Some(s) => s.saturating_mul(n),
                None => columns.saturating_mul(byte_size(m, *column, None, false, depth + 1)),
            }
        }
        Some(Type::Array { element, len }) => {
            let stride = m
                .decoration(ty, dec::ARRAY_STRIDE)
                .unwrap_or_else(|| byte_size(m, *element, mstride, row_major, depth + 1));
            stride.saturating_mul(len.unwrap_or(1))
        }
        Some(Type::RuntimeArray { .. }) => 0,
        Some(Type::Struct { members }) => {
            let mut end = 0u32;
            for (k, &mt) in members.iter().enumerate() {
                let k = k as u32;
                let off = m.member_decoration(ty, k, dec::OFFSET).unwrap_or(0);
                let ms = m.member_decoration(ty, k, dec::MATRIX_STRIDE);
                let rm = m.has_member_decoration(ty, k, dec::ROW_MAJOR);
                end = end.max(off.saturating_add(byte_size(m, mt, ms, rm, depth + 1)));
            }
            end
        }
        _ => 0,
    }
}

/// Block size as GL reports it (std140/std430 blocks round up to 16).
fn block_size(m: &Module, struct_ty: u32) -> u32 {
    let s = byte_size(m, struct_ty, None, false, 0);
    s.saturating_add(15) & !15
}

struct Walk<'a, 'n> {
    m: &'a Module,
    names: &'a Names<'n>,
    out: Vec<Uniform>,
    block_index: i32,
    overflow: bool,
}

impl Walk<'_, '_> {
    #[allow(clippy::too_many_arguments)]
    fn walk(
        &mut self,
        ty: u32,
        name: String,
        offset: u32,
        mstride: Option<u32>,
        row_major: bool,
        depth: u32,
    ) {
        if self.out.len() >= MAX_UNIFORMS || depth > 32 {
            self.overflow = true;
            return;
        }
        let m = self.m;
        match m.types.get(&ty) {
            Some(Type::Struct { members }) => {
                for (k, &mt) in members.iter().enumerate() {
                    let k = k as u32;
                    let member = m.member_name(ty, k);
                    let full = if name.is_empty() {
                        member.to_owned()
                    } else {
                        format!("{name}.{member}")
                    };
                    let off =
                        offset.saturating_add(m.member_decoration(ty, k, dec::OFFSET).unwrap_or(0));
                    let ms = m.member_decoration(ty, k, dec::MATRIX_STRIDE);
                    let rm = m.has_member_decoration(ty, k, dec::ROW_MAJOR);
                    self.walk(mt, full, off, ms, rm, depth + 1);
                }
            }
            Some(Type::Array { .. } | Type::RuntimeArray { .. }) => {
                let (element, len) = match m.types.get(&ty) {
                    Some(Type::Array { element, len }) => (*element, len.unwrap_or(1)),
                    Some(Type::RuntimeArray { element }) => (*element, 0),
                    _ => return,
                };
                let stride = m.decoration(ty, dec::ARRAY_STRIDE).unwrap_or(0);
                let elem_is_aggregate = matches!(
                    m.types.get(&element),
                    Some(Type::Struct { .. } | Type::Array { .. } | Type::RuntimeArray { .. })
                );
                if elem_is_aggregate {
                    for i in 0..len {
                        if self.overflow {
                            return;
                        }
                        let off = offset.saturating_add(stride.saturating_mul(i));
                        self.walk(
                            element,
                            format!("{name}[{i}]"),
                            off,
                            mstride,
                            row_major,
                            depth + 1,
                        );
                    }
                } else {
                    self.leaf(
                        element,
                        format!("{name}[0]"),
                        len,
                        stride,
                        offset,
                        mstride,
                        row_major,
                    );
                }
            }
            _ => self.leaf(ty, name, 1, 0, offset, mstride, row_major),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn leaf(
        &mut self,
        ty: u32,
        name: String,
        array_size: u32,
        array_stride: u32,
        offset: u32,
        mstride: Option<u32>,
        row_major: bool,
    ) {
        let m = self.m;
        let Some(mut gl_type) = gltypes::gl_type(m, ty) else {
            return;
        };
        let is_matrix = matches!(m.types.get(&ty), Some(Type::Matrix { .. }));
        let user = self.names.user(&name);
        let last = user
            .rsplit('.')
            .next()
            .unwrap_or("")
            .split('[')
            .next()
            .unwrap_or("");
        if self.names.bool_names.contains(last) {
            gl_type = gltypes::as_bool(gl_type);
        }
        self.out.push(Uniform {
            name: user,
            gl_type,
            array_size,
            block_index: self.block_index,
            offset,
            array_stride,
            matrix_stride: if is_matrix { mstride.unwrap_or(0) } else { 0 },
            is_row_major: is_matrix && row_major,
            sampler_binding: None,
            image_binding: None,
            explicit_binding: None,
        });
    }
}

/// The buffer variables of storage block `struct_ty` (GL 4.6 §7.3.1.1):
/// members named `"Block.m"`; a top-level member that is an array of an
/// aggregate lists its first element only (`"Block.s[0].m"`), each with
/// the top-level array's size and stride.
fn buffer_members(
    m: &Module,
    names: &Names,
    struct_ty: u32,
    block_name: &str,
    block_index: i32,
) -> Vec<BufferVariable> {
    let Some(Type::Struct { members }) = m.types.get(&struct_ty) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (k, &mt) in members.iter().enumerate() {
        let k = k as u32;
        let name = format!("{block_name}.{}", m.member_name(struct_ty, k));
        let offset = m.member_decoration(struct_ty, k, dec::OFFSET).unwrap_or(0);
        let ms = m.member_decoration(struct_ty, k, dec::MATRIX_STRIDE);
        let rm = m.has_member_decoration(struct_ty, k, dec::ROW_MAJOR);
        let (top, element) = match m.types.get(&mt) {
            Some(Type::Array { element, len }) => (Some(len.unwrap_or(1)), *element),
            Some(Type::RuntimeArray { element }) => (Some(0), *element),
            _ => (None, mt),
        };
        let stride = top.map_or(0, |_| m.decoration(mt, dec::ARRAY_STRIDE).unwrap_or(0));
        let aggregate = matches!(
            m.types.get(&element),
            Some(Type::Struct { .. } | Type::Array { .. } | Type::RuntimeArray { .. })
        );
        let mut w = Walk {
            m,
            names,
            out: Vec::new(),
            block_index,
            overflow: false,
        };
        if top.is_some() && aggregate {
            w.walk(element, format!("{name}[0]"), offset, ms, rm, 1);
        } else {
            w.walk(mt, name, offset, ms, rm, 1);
        }
        out.extend(w.out.into_iter().map(|var| BufferVariable {
            var,
            top_level_size: top.unwrap_or(1),
            top_level_stride: stride,
        }));
        if out.len() >= MAX_UNIFORMS {
            break;
        }
    }
    out
}

/// True for variables that are GL built-ins (decorated BuiltIn, or blocks
/// of built-ins such as gl_PerVertex).
fn is_builtin(m: &Module, var_id: u32, pointee: u32) -> bool {
    if m.has_decoration(var_id, dec::BUILTIN) {
        return true;
    }
    let (base, _) = strip_arrays(m, pointee);
    if let Some(Type::Struct { members }) = m.types.get(&base) {
        return (0..members.len() as u32).any(|k| m.has_member_decoration(base, k, dec::BUILTIN));
    }
    false
}

/// Block-ness of a variable's (array-stripped) pointee.
#[derive(PartialEq, Eq)]
enum BufferKind {
    Ubo,
    Ssbo,
    None,
}

fn buffer_kind(m: &Module, storage_class: u32, base: u32) -> BufferKind {
    if !is_struct(m, base) {
        return BufferKind::None;
    }
    match storage_class {
        storage::UNIFORM if m.has_decoration(base, dec::BUFFER_BLOCK) => BufferKind::Ssbo,
        storage::UNIFORM => BufferKind::Ubo,
        storage::STORAGE_BUFFER => BufferKind::Ssbo,
        _ => BufferKind::None,
    }
}

fn is_default_block(m: &Module, var_id: u32, base: u32) -> bool {
    m.name(base) == DEFAULT_BLOCK_NAME || m.name(var_id) == DEFAULT_BLOCK_NAME
}

/// Assigns locations: explicit ones stay, bound ones (by user name) next,
/// then the rest fill the lowest free ranges (active variables first).
struct Slot {
    stage_idx: usize,
    var_id: u32,
    name: String,
    gl_type: u32,
    array_size: u32,
    count: u32,
    explicit: Option<u32>,
    active: bool,
}

fn assign_locations(slots: &mut [Slot], bindings: &[(String, u32)]) -> Vec<u32> {
    let mut occupied: HashSet<u32> = HashSet::new();
    let mut result: Vec<Option<u32>> = vec![None; slots.len()];
    let occupy = |occupied: &mut HashSet<u32>, loc: u32, count: u32| {
        for l in loc..loc.saturating_add(count.min(4096)) {
            occupied.insert(l);
        }
    };
    for (i, s) in slots.iter().enumerate() {
        if let Some(loc) = s.explicit {
            result[i] = Some(loc);
            occupy(&mut occupied, loc, s.count);
        }
    }
    for (i, s) in slots.iter().enumerate() {
        if result[i].is_none() {
            if let Some((_, loc)) = bindings.iter().rev().find(|(n, _)| *n == s.name) {
                result[i] = Some(*loc);
                occupy(&mut occupied, *loc, s.count);
            }
        }
    }
    for pass_active in [true, false] {
        for (i, s) in slots.iter().enumerate() {
            if result[i].is_some() || s.active != pass_active {
                continue;
            }
            let mut loc = 0u32;
            while (loc..loc.saturating_add(s.count.min(4096))).any(|l| occupied.contains(&l)) {
                loc += 1;
            }
            result[i] = Some(loc);
            occupy(&mut occupied, loc, s.count);
        }
    }
    result.into_iter().map(|r| r.unwrap_or(0)).collect()
}

fn collect_io(sm: &StageModule, stage_idx: usize, storage_class: u32, names: &Names) -> Vec<Slot> {
    let m = &sm.module;
    let mut out = Vec::new();
    for v in &m.variables {
        if v.storage != storage_class {
            continue;
        }
        let Some(pointee) = m.pointee(v) else {
            continue;
        };
        if is_builtin(m, v.id, pointee) {
            continue;
        }
        let spirv_name = m.name(v.id).to_owned();
        let (base, dims) = strip_arrays(m, pointee);
        let gl_type = gltypes::gl_type(m, base).unwrap_or(0);
        let explicit = if sm.explicit.contains(&spirv_name) {
            m.decoration(v.id, dec::LOCATION)
        } else {
            None
        };
        out.push(Slot {
            stage_idx,
            var_id: v.id,
            name: names.user(&spirv_name),
            gl_type,
            array_size: if dims.is_empty() {
                1
            } else {
                total_elements(&dims)
            },
            count: location_count(m, pointee),
            explicit,
            active: m.used.contains(&v.id),
        });
    }
    out.sort_by_key(|s| {
        sm.order
            .get(m.name(s.var_id))
            .copied()
            .unwrap_or(usize::MAX)
    });
    out
}

fn io_key(m: &Module, var_id: u32, pointee: u32) -> String {
    let (base, _) = strip_arrays(m, pointee);
    if is_struct(m, base) && m.has_decoration(base, dec::BLOCK) {
        format!("block:{}", m.name(base))
    } else {
        m.name(var_id).to_owned()
    }
}

/// Runs reflection over the linked stage modules (in pipeline order) and
/// rewrites their decorations to the module's conventions.
pub(crate) fn reflect(
    stages: &mut [StageModule],
    attrib_bindings: &[(String, u32)],
    frag_data_bindings: &[(String, u32)],
    names: &Names,
) -> Result<Reflection, String> {
    // ---- user uniform blocks -------------------------------------------
    struct BlockInfo {
        base_name: String,
        count: u32,
        dims: Vec<Option<u32>>,
        first_binding: u32,
        stage: usize,
        struct_ty: u32,
        instance: bool,
        /// Bit `Stage::index()` of each stage declaring the block.
        stages: u32,
    }
    let mut block_infos: Vec<BlockInfo> = Vec::new();
    // Storage blocks (atomic counters included) before the fragment stage:
    // the error the link reports where the backend has none there.
    let mut pre_fragment_stores: Option<String> = None;
    struct SamplerInfo {
        name: String,
        first: u32,
        count: u32,
        /// Array dimensions, outermost first (empty: not an array).
        dims: Vec<Option<u32>>,
        gl_type: u32,
    }
    // Storage blocks (name, first binding, elements) and images take
    // bindings of their own, counted like uniform blocks and samplers.
    // (name, first binding, element count, data size, array dimensions)
    struct SsboInfo {
        name: String,
        first: u32,
        count: u32,
        data_size: u32,
        dims: Vec<Option<u32>>,
        /// The first stage declaring it, and its struct type there.
        stage: usize,
        struct_ty: u32,
        /// Stages declaring it (bit `Stage::index()`).
        stages: u32,
    }
    let mut ssbos: Vec<SsboInfo> = Vec::new();
    // Atomic counter blocks (name, stage, struct type): slots after the
    // storage blocks, so the application's block indices stay dense.
    let mut atomics: Vec<(String, usize, u32)> = Vec::new();
    let mut images: Vec<SamplerInfo> = Vec::new();
    let mut samplers: Vec<SamplerInfo> = Vec::new();
    let mut next_block_binding = 0u32;
    let mut next_sampler = 0u32;
    let mut next_ssbo = 0u32;
    let mut next_image = 0u32;

    for (si, sm) in stages.iter().enumerate() {
        let m = &sm.module;
        let mut vars = m.variables.clone();
        let key = |v: &super::spirv::Variable| {
            let mut name = m.name(v.id);
            if name.is_empty() {
                name = m
                    .pointee(v)
                    .map(|p| m.name(strip_arrays(m, p).0))
                    .unwrap_or("");
            }
            sm.order.get(name).copied().unwrap_or(usize::MAX)
        };
        vars.sort_by_key(key);
        for v in &vars {
            let Some(pointee) = m.pointee(v) else {
                continue;
            };
            let (base, dims) = strip_arrays(m, pointee);
            let kind = buffer_kind(m, v.storage, base);
            if matches!(kind, BufferKind::Ssbo)
                && !stores_allowed(sm.stage)
                && atomic_binding(m.name(base)).is_some()
            {
                return Err(format!(
                    "ERROR: Linking {:?} stage: atomic counters are only available to fragment and compute shaders here (GL_MAX_{}_ATOMIC_COUNTERS is 0)\n",
                    sm.stage,
                    stage_limit_name(sm.stage)
                ));
            }
            if matches!(kind, BufferKind::Ssbo)
                && !stores_allowed(sm.stage)
                && pre_fragment_stores.is_none()
            {
                pre_fragment_stores = Some(format!(
                    "ERROR: Linking {:?} stage: shader storage blocks are only available to fragment and compute shaders on this backend (GL_MAX_{}_SHADER_STORAGE_BLOCKS is 0)\n",
                    sm.stage,
                    stage_limit_name(sm.stage)
                ));
            }
            match kind {
                BufferKind::Ubo => {
                    if is_default_block(m, v.id, base) {
                        continue;
                    }
                    let name = m.name(base).to_owned();
                    let bit = 1u32 << sm.stage.index();
                    if let Some(b) = block_infos.iter_mut().find(|b| b.base_name == name) {
                        b.stages |= bit;
                        continue;
                    }
                    let count = total_elements(&dims);
                    block_infos.push(BlockInfo {
                        base_name: name,
                        count,
                        dims: dims.clone(),
                        first_binding: next_block_binding,
                        stage: si,
                        struct_ty: base,
                        instance: !m.name(v.id).is_empty(),
                        stages: bit,
                    });
                    next_block_binding = next_block_binding.saturating_add(count);
                }
                BufferKind::Ssbo if atomic_binding(m.name(base)).is_some() => {
                    let name = m.name(base).to_owned();
                    if !atomics.iter().any(|a| a.0 == name) {
                        atomics.push((name, si, base));
                    }
                }
                BufferKind::Ssbo => {
                    let name = m.name(base).to_owned();
                    let bit = 1u32 << sm.stage.index();
                    if let Some(b) = ssbos.iter_mut().find(|b| b.name == name) {
                        b.stages |= bit;
                    } else {
                        let count = total_elements(&dims);
                        ssbos.push(SsboInfo {
                            name,
                            first: next_ssbo,
                            count,
                            data_size: block_size(m, base),
                            dims: dims.clone(),
                            stage: si,
                            struct_ty: base,
                            stages: bit,
                        });
                        next_ssbo = next_ssbo.saturating_add(count);
                    }
                }
                BufferKind::None if v.storage == storage::UNIFORM_CONSTANT => {
                    match m.types.get(&base) {
                        Some(Type::SampledImage { .. }) => {
                            let name = m.name(v.id).to_owned();
                            if samplers.iter().any(|s| s.name == name) {
                                continue;
                            }
                            let count = total_elements(&dims);
                            samplers.push(SamplerInfo {
                                name,
                                first: next_sampler,
                                count,
                                dims: dims.clone(),
                                gl_type: gltypes::gl_type(m, base).unwrap_or(0),
                            });
                            next_sampler = next_sampler.saturating_add(count);
                        }
                        Some(Type::Image { .. }) if !stores_allowed(sm.stage) => {
                            return Err(format!(
                                "ERROR: Linking {:?} stage: image uniforms are only available to fragment and compute shaders here (GL_MAX_{}_IMAGE_UNIFORMS is 0)\n",
                                sm.stage,
                                stage_limit_name(sm.stage)
                            ));
                        }
                        Some(Type::Image { .. }) => {
                            let name = m.name(v.id).to_owned();
                            if images.iter().any(|s| s.name == name) {
                                continue;
                            }
                            let count = total_elements(&dims);
                            images.push(SamplerInfo {
                                name,
                                first: next_image,
                                count,
                                dims: dims.clone(),
                                gl_type: gltypes::image_type(m, base).unwrap_or(0),
                            });
                            next_image = next_image.saturating_add(count);
                        }
                        _ => {}
                    }
                }
                BufferKind::None => {}
            }
        }
    }
    let num_user_blocks = next_block_binding;
    let global_binding = num_user_blocks;

    // ---- rewrite bindings -------------------------------------------------
    for sm in stages.iter_mut() {
        let vars = sm.module.variables.clone();
        for v in &vars {
            let m = &sm.module;
            let Some(pointee) = m.pointee(v) else {
                continue;
            };
            let (base, _) = strip_arrays(m, pointee);
            let binding = match buffer_kind(m, v.storage, base) {
                BufferKind::Ubo if is_default_block(m, v.id, base) => Some(global_binding),
                BufferKind::Ubo => {
                    let name = m.name(base);
                    block_infos
                        .iter()
                        .find(|b| b.base_name == name)
                        .map(|b| b.first_binding)
                }
                BufferKind::Ssbo => {
                    let name = m.name(base);
                    ssbos
                        .iter()
                        .find(|b| b.name == name)
                        .map(|b| b.first)
                        .or_else(|| {
                            atomics
                                .iter()
                                .position(|a| a.0 == name)
                                .map(|i| next_ssbo + i as u32)
                        })
                }
                BufferKind::None if v.storage == storage::UNIFORM_CONSTANT => {
                    let name = m.name(v.id);
                    samplers
                        .iter()
                        .chain(images.iter())
                        .find(|s| s.name == name)
                        .map(|s| s.first)
                }
                BufferKind::None => None,
            };
            if let Some(b) = binding {
                sm.module.set_decoration(v.id, dec::DESCRIPTOR_SET, 0);
                sm.module.set_decoration(v.id, dec::BINDING, b);
            }
        }
    }

    // ---- uniforms ----------------------------------------------------------
    let mut uniforms: Vec<Uniform> = Vec::new();
    let mut global_block = None;
    let mut overflow = false;
    // Default block: merged across stages by glslang; take the union.
    for sm in stages.iter() {
        let m = &sm.module;
        for v in &m.variables {
            let Some(pointee) = m.pointee(v) else {
                continue;
            };
            let (base, _) = strip_arrays(m, pointee);
            if buffer_kind(m, v.storage, base) != BufferKind::Ubo
                || !is_default_block(m, v.id, base)
            {
                continue;
            }
            let mut w = Walk {
                m,
                names,
                out: Vec::new(),
                block_index: -1,
                overflow: false,
            };
            w.walk(base, String::new(), 0, None, false, 0);
            overflow |= w.overflow;
            for u in w.out {
                if !uniforms.iter().any(|e| e.name == u.name) {
                    uniforms.push(u);
                }
            }
            let size = block_size(m, base);
            global_block = Some(GlobalBlock {
                binding: global_binding,
                size: global_block
                    .as_ref()
                    .map_or(size, |g: &GlobalBlock| g.size.max(size)),
            });
        }
    }
    // Opaque arrays: one active uniform per innermost array (arrays of
    // arrays list `tex[1][0]` & co. separately, GL 4.6 §7.3.1.1), on
    // consecutive units.
    for (s, image) in samplers
        .iter()
        .map(|s| (s, false))
        .chain(images.iter().map(|s| (s, true)))
    {
        if let Some(split) = names.opaque_splits.iter().find(|o| o.flat == s.name) {
            for (r, row) in split.rows.iter().enumerate() {
                let first = s
                    .first
                    .saturating_add((r as u32).saturating_mul(split.inner));
                uniforms.push(opaque_uniform(
                    names.user(row),
                    s.gl_type,
                    split.inner,
                    image,
                    first,
                    None,
                ));
            }
            continue;
        }
        let inner = s.dims.last().map_or(1, |d| d.unwrap_or(1).max(1));
        let outer = s.dims.len().saturating_sub(1);
        let rows = (s.count / inner).max(1);
        for row in 0..rows {
            let prefix = element_suffix(&s.dims[..outer], row);
            let name = if s.dims.is_empty() || (s.count <= 1 && outer == 0) {
                s.name.clone()
            } else {
                format!("{}{prefix}[0]", s.name)
            };
            let first = s.first.saturating_add(row.saturating_mul(inner));
            let explicit = names
                .bindings
                .variables
                .get(&s.name)
                .map(|b| b.saturating_add(row.saturating_mul(inner)));
            uniforms.push(opaque_uniform(
                names.user(&name),
                s.gl_type,
                inner.min(s.count),
                image,
                first,
                explicit,
            ));
        }
    }
    let mut storage_blocks = Vec::new();
    let mut buffer_variables = Vec::new();
    for b in &ssbos {
        let user_name = names.user(&b.name);
        let m = &stages[b.stage].module;
        for i in 0..b.count {
            // Each element of a block array lists its own copies of the
            // members (named alike, told apart by GL_BLOCK_INDEX).
            let block_index = (b.first + i) as i32;
            let first_var = buffer_variables.len() as u32;
            buffer_variables.extend(buffer_members(
                m,
                names,
                b.struct_ty,
                &user_name,
                block_index,
            ));
            let active = (first_var..buffer_variables.len() as u32).collect();
            storage_blocks.push(StorageBlock {
                name: if b.count > 1 {
                    format!("{user_name}{}", element_suffix(&b.dims, i))
                } else {
                    user_name.clone()
                },
                binding: b.first + i,
                data_size: b.data_size,
                explicit_binding: names
                    .bindings
                    .storage_blocks
                    .get(&b.name)
                    .map(|n| n.saturating_add(i)),
                active_variables: active,
                stages: b.stages,
            });
        }
    }
    // User blocks (block index = binding).
    let mut blocks: Vec<UniformBlock> = Vec::new();
    for b in &block_infos {
        let m = &stages[b.stage].module;
        let first_uniform = uniforms.len() as u32;
        let prefix = if b.instance {
            names.user(&b.base_name)
        } else {
            String::new()
        };
        let mut w = Walk {
            m,
            names,
            out: Vec::new(),
            block_index: b.first_binding as i32,
            overflow: false,
        };
        w.walk(b.struct_ty, prefix, 0, None, false, 0);
        overflow |= w.overflow;
        let added = w.out.len() as u32;
        uniforms.extend(w.out);
        let size = block_size(m, b.struct_ty);
        let members: Vec<u32> = (first_uniform..first_uniform + added).collect();
        let user_name = names.user(&b.base_name);
        for i in 0..b.count {
            blocks.push(UniformBlock {
                name: if b.count > 1 || b.count == 0 {
                    format!("{user_name}{}", element_suffix(&b.dims, i))
                } else {
                    user_name.clone()
                },
                binding: b.first_binding + i,
                data_size: size,
                active_uniforms: members.clone(),
                stages: b.stages,
                explicit_binding: names
                    .bindings
                    .blocks
                    .get(&b.base_name)
                    .map(|n| n.saturating_add(i)),
            });
        }
    }
    // Atomic counters: one uniform per `atomic_uint` (arrays as `c[0]`).
    let mut atomic_buffers = Vec::new();
    for (ai, (name, si, ty)) in atomics.iter().enumerate() {
        let Some(binding) = atomic_binding(name) else {
            continue;
        };
        let m = &stages[*si].module;
        let members = match m.types.get(ty) {
            Some(Type::Struct { members }) => members.clone(),
            _ => Vec::new(),
        };
        let mut end = 0u32;
        for (k, mt) in members.iter().enumerate() {
            let (_, dims) = strip_arrays(m, *mt);
            let count = total_elements(&dims);
            let offset = m.member_decoration(*ty, k as u32, dec::OFFSET).unwrap_or(0);
            end = end.max(offset.saturating_add(count.saturating_mul(4)));
            let member = names.user(m.member_name(*ty, k as u32));
            uniforms.push(Uniform {
                name: if dims.is_empty() {
                    member
                } else {
                    format!("{member}[0]")
                },
                gl_type: GL_UNSIGNED_INT_ATOMIC_COUNTER,
                array_size: count,
                block_index: -1,
                offset,
                array_stride: if dims.is_empty() { 0 } else { 4 },
                matrix_stride: 0,
                is_row_major: false,
                sampler_binding: None,
                image_binding: None,
                explicit_binding: Some(binding),
            });
        }
        atomic_buffers.push(AtomicBuffer {
            binding,
            slot: next_ssbo + ai as u32,
            data_size: end,
        });
    }
    if overflow {
        return Err("ERROR: Linking: too many active uniforms\n".to_owned());
    }

    // ---- vertex attributes ----------------------------------------------
    let mut attributes = Vec::new();
    if let Some(vi) = stages.iter().position(|s| s.stage == Stage::Vertex) {
        let mut slots = collect_io(&stages[vi], vi, storage::INPUT, names);
        let locs = assign_locations(&mut slots, attrib_bindings);
        for (s, loc) in slots.iter().zip(locs) {
            stages[s.stage_idx]
                .module
                .set_decoration(s.var_id, dec::LOCATION, loc);
            if s.active {
                attributes.push(Variable {
                    name: s.name.clone(),
                    gl_type: s.gl_type,
                    array_size: s.array_size,
                    location: loc,
                });
            }
        }
    }

    // ---- fragment outputs -------------------------------------------------
    let mut outputs = Vec::new();
    if let Some(fi) = stages.iter().position(|s| s.stage == Stage::Fragment) {
        let mut slots = collect_io(&stages[fi], fi, storage::OUTPUT, names);
        let locs = assign_locations(&mut slots, frag_data_bindings);
        // GL 4.6 §15.2.3: a link error when an output (a bound array
        // included) does not fit below GL_MAX_DRAW_BUFFERS.
        let max = crate::context::MAX_DRAW_BUFFERS as u32;
        if let Some((s, loc)) = slots
            .iter()
            .zip(&locs)
            .find(|(s, loc)| loc.saturating_add(s.count) > max)
        {
            return Err(format!(
                "ERROR: Linking: fragment output `{}` at location {loc} needs {} locations, beyond GL_MAX_DRAW_BUFFERS ({max})\n",
                s.name, s.count
            ));
        }
        // Fragment outputs may not alias (unlike attributes); two
        // locations the shader declared were checked by the compiler
        // (components may share a location there).
        for (i, (a, la)) in slots.iter().zip(&locs).enumerate() {
            for (b, lb) in slots.iter().zip(&locs).skip(i + 1) {
                if (a.explicit.is_none() || b.explicit.is_none())
                    && *la < lb.saturating_add(b.count)
                    && *lb < la.saturating_add(a.count)
                {
                    return Err(format!(
                        "ERROR: Linking: fragment outputs `{}` and `{}` overlap at location {}\n",
                        a.name,
                        b.name,
                        la.max(lb)
                    ));
                }
            }
        }
        for (s, loc) in slots.iter().zip(locs) {
            stages[s.stage_idx]
                .module
                .set_decoration(s.var_id, dec::LOCATION, loc);
            if s.name == super::prepass::FRAG_COLOR_BROADCAST {
                continue;
            }
            outputs.push(Variable {
                name: s.name.clone(),
                gl_type: s.gl_type,
                array_size: s.array_size,
                location: loc,
            });
        }
    }

    // ---- varyings: implicit outputs avoid the explicit ones ----------------
    // glslang's auto-mapped locations do not step around explicit ones: a
    // stage mixing both gets its implicit outputs moved to the lowest free
    // locations, in declaration order.
    for sm in stages.iter_mut() {
        if sm.explicit_out.is_empty() {
            continue;
        }
        let m = &mut sm.module;
        let mut outs: Vec<(u32, u32, u32, bool)> = Vec::new();
        for v in m.variables.iter().filter(|v| v.storage == storage::OUTPUT) {
            let Some(p) = m.pointee(v) else { continue };
            if is_builtin(m, v.id, p) || m.decoration(v.id, dec::LOCATION).is_none() {
                continue;
            }
            let key = io_key(m, v.id, p);
            let explicit = sm
                .explicit_out
                .contains(key.strip_prefix("block:").unwrap_or(&key));
            outs.push((
                v.id,
                m.decoration(v.id, dec::LOCATION).unwrap_or(0),
                location_count(m, p),
                explicit,
            ));
        }
        let mut taken: Vec<(u32, u32)> = outs.iter().filter(|o| o.3).map(|o| (o.1, o.2)).collect();
        let mut implicit: Vec<&(u32, u32, u32, bool)> = outs.iter().filter(|o| !o.3).collect();
        implicit.sort_by_key(|o| sm.order.get(m.name(o.0)).copied().unwrap_or(usize::MAX));
        for &&(id, _, count, _) in &implicit {
            let overlaps = |at: u32| {
                taken
                    .iter()
                    .any(|&(l, n)| at < l.saturating_add(n) && l < at.saturating_add(count))
            };
            let mut at = 0u32;
            while overlaps(at) {
                at += 1;
            }
            m.set_decoration(id, dec::LOCATION, at);
            taken.push((at, count));
        }
    }

    // ---- varyings: consumer inputs take the producer's location ----------
    for i in 1..stages.len() {
        if stages[i].stage == Stage::Compute {
            continue;
        }
        // Producer output key → (its location, whether it is `sample`).
        let mut produced: HashMap<String, (Option<u32>, bool)> = HashMap::new();
        // Producer output (first location, location count).
        let mut located: Vec<(u32, u32)> = Vec::new();
        {
            let m = &stages[i - 1].module;
            for v in m.variables.iter().filter(|v| v.storage == storage::OUTPUT) {
                let Some(p) = m.pointee(v) else { continue };
                if is_builtin(m, v.id, p) {
                    continue;
                }
                if let Some(l) = m.decoration(v.id, dec::LOCATION) {
                    located.push((l, location_count(m, p)));
                }
                produced.insert(
                    io_key(m, v.id, p),
                    (
                        m.decoration(v.id, dec::LOCATION),
                        m.has_decoration(v.id, dec::SAMPLE),
                    ),
                );
            }
        }
        // Interfaces match by name here (no separable programs): a
        // fragment input the shader reads must be an output of the stage
        // before it (GLSL 1.10 §7.6 / 4.60 §4.3.4). The pre-pass's own
        // stand-ins (`mgl_FrontColor` for `gl_Color` ...) are exempt, as
        // the built-ins they stand for are.
        let check_inputs = stages[i].stage == Stage::Fragment;
        let vars = stages[i].module.variables.clone();
        for v in vars.iter().filter(|v| v.storage == storage::INPUT) {
            let m = &stages[i].module;
            let Some(p) = m.pointee(v) else { continue };
            if is_builtin(m, v.id, p) {
                continue;
            }
            let key = io_key(m, v.id, p);
            // An input with an explicit location rendezvous by location
            // (GL 4.6 §7.4.1): it keeps its location and need not match
            // an output by name.
            if stages[i]
                .explicit_in
                .contains(key.strip_prefix("block:").unwrap_or(&key))
            {
                // GLSL 4.60 §4.4.1: the location must match an output's.
                if let (true, true, Some(l)) = (
                    check_inputs,
                    m.used.contains(&v.id),
                    m.decoration(v.id, dec::LOCATION),
                ) {
                    let n = location_count(m, p);
                    if !located.contains(&(l, n)) {
                        return Err(format!(
                            "ERROR: Linking: fragment shader input `{}` at location {l} matches no output of the {:?} shader\n",
                            names.user(key.strip_prefix("block:").unwrap_or(&key)),
                            stages[i - 1].stage
                        ));
                    }
                }
                continue;
            }
            let out = produced.get(&key).copied();
            if check_inputs {
                let shown = || names.user(key.strip_prefix("block:").unwrap_or(&key));
                match out {
                    None if m.used.contains(&v.id) && !key.starts_with("mgl_") => {
                        return Err(format!(
                            "ERROR: Linking: fragment shader input `{}` is not written by the {:?} shader\n",
                            shown(),
                            stages[i - 1].stage
                        ));
                    }
                    // ARB_gpu_shader5: `sample` qualifies both ends or neither.
                    Some((_, sample)) if sample != m.has_decoration(v.id, dec::SAMPLE) => {
                        return Err(format!(
                            "ERROR: Linking: `{}` is `sample`-qualified in one stage only\n",
                            shown()
                        ));
                    }
                    _ => {}
                }
            }
            if let (Some((Some(want), _)), Some(have)) = (out, m.decoration(v.id, dec::LOCATION)) {
                if want != have {
                    tracing::debug!(target: "mobilegl::shader", %key, want, have, "re-matching varying location");
                    stages[i].module.set_decoration(v.id, dec::LOCATION, want);
                }
            }
        }
    }

    Ok(Reflection {
        attributes,
        outputs,
        uniforms,
        blocks,
        global_block,
        sampler_slots: next_sampler,
        storage_blocks,
        buffer_variables,
        atomic_buffers,
        image_slots: next_image,
        pre_fragment_stores,
        varying_locations: stages
            .iter()
            .filter(|sm| sm.stage != Stage::Fragment && sm.stage != Stage::Compute)
            .map(|sm| output_locations(&sm.module))
            .max()
            .unwrap_or(0),
    })
}

/// The highest output location end of `m` (the varying locations it
/// needs).
/// A tessellation control shader's per-vertex outputs are arrays over
/// the patch's vertices, whose outer dimension takes no locations (GL 4.6
/// §11.2.1.2.1); its `patch` outputs are not arrayed.
pub(crate) fn output_locations(m: &Module) -> u32 {
    // OpEntryPoint (15) with execution model TessellationControl (1).
    let tcs =
        super::spirv::instructions(&m.words).any(|(op, inst)| op == 15 && inst.get(1) == Some(&1));
    m.variables
        .iter()
        .filter(|v| v.storage == storage::OUTPUT)
        .filter_map(|v| {
            let loc = m.decoration(v.id, dec::LOCATION)?;
            let mut ty = m.pointee(v)?;
            // Decoration Patch (15).
            if tcs && !m.has_decoration(v.id, 15) {
                if let Some(Type::Array { element, .. }) = m.types.get(&ty) {
                    ty = *element;
                }
            }
            Some(loc.saturating_add(location_count(m, ty)))
        })
        .max()
        .unwrap_or(0)
}
