//! A small SPIR-V word walker: reads what reflection needs (names, types,
//! decorations, global variables) and rewrites `Location`, `Binding` and
//! `DescriptorSet` decorations in place.

use std::collections::{HashMap, HashSet};

pub(crate) const MAGIC: u32 = 0x0723_0203;

pub(crate) mod op {
    pub const NAME: u16 = 5;
    pub const MEMBER_NAME: u16 = 6;
    pub const TYPE_BOOL: u16 = 20;
    pub const TYPE_INT: u16 = 21;
    pub const TYPE_FLOAT: u16 = 22;
    pub const TYPE_VECTOR: u16 = 23;
    pub const TYPE_MATRIX: u16 = 24;
    pub const TYPE_IMAGE: u16 = 25;
    pub const TYPE_SAMPLER: u16 = 26;
    pub const TYPE_SAMPLED_IMAGE: u16 = 27;
    pub const TYPE_ARRAY: u16 = 28;
    pub const TYPE_RUNTIME_ARRAY: u16 = 29;
    pub const TYPE_STRUCT: u16 = 30;
    pub const TYPE_POINTER: u16 = 32;
    pub const CONSTANT: u16 = 43;
    pub const SPEC_CONSTANT: u16 = 50;
    pub const FUNCTION: u16 = 54;
    pub const VARIABLE: u16 = 59;
    pub const DECORATE: u16 = 71;
    pub const MEMBER_DECORATE: u16 = 72;
}

pub(crate) mod dec {
    pub const BLOCK: u32 = 2;
    pub const BUFFER_BLOCK: u32 = 3;
    pub const ROW_MAJOR: u32 = 4;
    pub const ARRAY_STRIDE: u32 = 6;
    pub const MATRIX_STRIDE: u32 = 7;
    pub const BUILTIN: u32 = 11;
    pub const LOCATION: u32 = 30;
    pub const BINDING: u32 = 33;
    pub const DESCRIPTOR_SET: u32 = 34;
    pub const OFFSET: u32 = 35;
    pub const SAMPLE: u32 = 17;
}

pub(crate) mod storage {
    pub const UNIFORM_CONSTANT: u32 = 0;
    pub const INPUT: u32 = 1;
    pub const UNIFORM: u32 = 2;
    pub const OUTPUT: u32 = 3;
    pub const STORAGE_BUFFER: u32 = 12;
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Type {
    Bool,
    Int {
        width: u32,
        signed: bool,
    },
    Float {
        width: u32,
    },
    Vector {
        component: u32,
        count: u32,
    },
    Matrix {
        column: u32,
        columns: u32,
    },
    Image {
        sampled_type: u32,
        dim: u32,
        depth: u32,
        arrayed: bool,
        ms: bool,
        sampled: u32,
    },
    Sampler,
    SampledImage {
        image: u32,
    },
    /// `len` is `None` for spec-constant lengths.
    Array {
        element: u32,
        len: Option<u32>,
    },
    RuntimeArray {
        element: u32,
    },
    Struct {
        members: Vec<u32>,
    },
    Pointer {
        storage: u32,
        pointee: u32,
    },
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Variable {
    pub id: u32,
    pub pointer_type: u32,
    pub storage: u32,
}

/// Parsed view of one module. Word indices refer to `words`.
#[derive(Debug, Default)]
pub(crate) struct Module {
    pub words: Vec<u32>,
    pub names: HashMap<u32, String>,
    pub member_names: HashMap<(u32, u32), String>,
    /// id → [(decoration, index of the decoration word in `words`)]
    pub decorations: HashMap<u32, Vec<(u32, usize)>>,
    /// (struct id, member) → [(decoration, index of the decoration word)]
    pub member_decorations: HashMap<(u32, u32), Vec<(u32, usize)>>,
    pub types: HashMap<u32, Type>,
    pub constants: HashMap<u32, u32>,
    /// Global variables in module order.
    pub variables: Vec<Variable>,
    /// Ids referenced from function bodies (a superset: literal words too).
    pub used: HashSet<u32>,
    /// Word index where annotations can be inserted (before types).
    pub(crate) annotation_end: usize,
}

/// The instructions after the module header, each as (opcode, its words
/// including the first); ends early at a zero or overlong word count.
pub(crate) fn instructions(words: &[u32]) -> impl Iterator<Item = (u16, &[u32])> {
    let mut i = 5usize;
    std::iter::from_fn(move || {
        let w0 = *words.get(i)?;
        let count = (w0 >> 16) as usize;
        let inst = words.get(i..i + count).filter(|_| count > 0)?;
        i += count;
        Some(((w0 & 0xffff) as u16, inst))
    })
}

/// One instruction: its head word (word count, opcode) and operands.
pub(crate) fn inst(opcode: u32, operands: &[u32]) -> Vec<u32> {
    let mut v = Vec::with_capacity(operands.len() + 1);
    v.push(((operands.len() as u32 + 1) << 16) | opcode);
    v.extend_from_slice(operands);
    v
}

/// SPIR-V `ExecutionMode PixelCenterInteger`.
pub(crate) const EXEC_MODE_PIXEL_CENTER_INTEGER: u32 = 6;

/// `words` with `OpExecutionMode <each entry point> mode` added after the
/// entry points' other execution modes (unchanged when it is there).
pub(crate) fn add_execution_mode(words: Vec<u32>, mode: u32) -> Vec<u32> {
    const OP_ENTRY_POINT: u16 = 15;
    const OP_EXECUTION_MODE: u16 = 16;
    let mut entries = Vec::new();
    let mut insert_at = None;
    let mut at = 5usize;
    for (op, inst) in instructions(&words) {
        match op {
            OP_ENTRY_POINT => {
                if let Some(&f) = inst.get(2) {
                    entries.push(f);
                }
                insert_at = Some(at + inst.len());
            }
            OP_EXECUTION_MODE => {
                if inst.get(2) == Some(&mode) {
                    entries.retain(|&f| Some(&f) != inst.get(1));
                }
                insert_at = Some(at + inst.len());
            }
            _ => {}
        }
        at += inst.len();
    }
    let Some(insert_at) = insert_at else {
        return words;
    };
    let mut out = Vec::with_capacity(words.len() + 3 * entries.len());
    out.extend_from_slice(&words[..insert_at]);
    for f in entries {
        out.extend(inst(u32::from(OP_EXECUTION_MODE), &[f, mode]));
    }
    out.extend_from_slice(&words[insert_at..]);
    out
}

pub(crate) fn decode_string(words: &[u32]) -> String {
    let mut bytes = Vec::with_capacity(words.len() * 4);
    'outer: for w in words {
        for b in w.to_le_bytes() {
            if b == 0 {
                break 'outer;
            }
            bytes.push(b);
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

impl Module {
    pub(crate) fn parse(words: Vec<u32>) -> Result<Self, String> {
        if words.len() < 5 || words[0] != MAGIC {
            return Err("internal error: not a SPIR-V module".to_owned());
        }
        let mut m = Module {
            words,
            ..Default::default()
        };
        let mut i = 5usize;
        let mut in_functions = false;
        let mut annotation_end = None;
        let mut first_type = None;
        while i < m.words.len() {
            let w0 = m.words[i];
            let count = (w0 >> 16) as usize;
            let opcode = (w0 & 0xffff) as u16;
            if count == 0 || i + count > m.words.len() {
                return Err("internal error: truncated SPIR-V instruction".to_owned());
            }
            let ops = &m.words[i + 1..i + count];
            let get = |k: usize| ops.get(k).copied().unwrap_or(0);
            if in_functions {
                m.used.extend(ops.iter().copied());
                i += count;
                continue;
            }
            match opcode {
                op::NAME if !ops.is_empty() => {
                    m.names.insert(ops[0], decode_string(&ops[1..]));
                }
                op::MEMBER_NAME if ops.len() >= 2 => {
                    m.member_names
                        .insert((ops[0], ops[1]), decode_string(&ops[2..]));
                }
                op::DECORATE if ops.len() >= 2 => {
                    m.decorations
                        .entry(ops[0])
                        .or_default()
                        .push((ops[1], i + 2));
                    annotation_end = Some(i + count);
                }
                op::MEMBER_DECORATE if ops.len() >= 3 => {
                    m.member_decorations
                        .entry((ops[0], ops[1]))
                        .or_default()
                        .push((ops[2], i + 3));
                    annotation_end = Some(i + count);
                }
                op::TYPE_BOOL => {
                    m.types.insert(get(0), Type::Bool);
                }
                op::TYPE_INT => {
                    m.types.insert(
                        get(0),
                        Type::Int {
                            width: get(1),
                            signed: get(2) != 0,
                        },
                    );
                }
                op::TYPE_FLOAT => {
                    m.types.insert(get(0), Type::Float { width: get(1) });
                }
                op::TYPE_VECTOR => {
                    m.types.insert(
                        get(0),
                        Type::Vector {
                            component: get(1),
                            count: get(2),
                        },
                    );
                }
                op::TYPE_MATRIX => {
                    m.types.insert(
                        get(0),
                        Type::Matrix {
                            column: get(1),
                            columns: get(2),
                        },
                    );
                }
                op::TYPE_IMAGE => {
                    m.types.insert(
                        get(0),
                        Type::Image {
                            sampled_type: get(1),
                            dim: get(2),
                            depth: get(3),
                            arrayed: get(4) != 0,
                            ms: get(5) != 0,
                            sampled: get(6),
                        },
                    );
                }
                op::TYPE_SAMPLER => {
                    m.types.insert(get(0), Type::Sampler);
                }
                op::TYPE_SAMPLED_IMAGE => {
                    m.types.insert(get(0), Type::SampledImage { image: get(1) });
                }
                op::TYPE_ARRAY => {
                    let len = m.constants.get(&get(2)).copied();
                    m.types.insert(
                        get(0),
                        Type::Array {
                            element: get(1),
                            len,
                        },
                    );
                }
                op::TYPE_RUNTIME_ARRAY => {
                    m.types
                        .insert(get(0), Type::RuntimeArray { element: get(1) });
                }
                op::TYPE_STRUCT => {
                    m.types.insert(
                        get(0),
                        Type::Struct {
                            members: ops.get(1..).unwrap_or(&[]).to_vec(),
                        },
                    );
                }
                op::TYPE_POINTER => {
                    m.types.insert(
                        get(0),
                        Type::Pointer {
                            storage: get(1),
                            pointee: get(2),
                        },
                    );
                }
                op::CONSTANT if ops.len() >= 3 => {
                    m.constants.insert(ops[1], ops[2]);
                }
                op::SPEC_CONSTANT => {}
                op::VARIABLE if ops.len() >= 3 => {
                    m.variables.push(Variable {
                        id: ops[1],
                        pointer_type: ops[0],
                        storage: ops[2],
                    });
                }
                op::FUNCTION => {
                    in_functions = true;
                    m.used.extend(ops.iter().copied());
                }
                _ => {}
            }
            if first_type.is_none() && (19..=39).contains(&opcode) {
                first_type = Some(i);
            }
            i += count;
        }
        m.annotation_end = annotation_end.or(first_type).unwrap_or(m.words.len());
        Ok(m)
    }

    pub(crate) fn name(&self, id: u32) -> &str {
        self.names.get(&id).map(String::as_str).unwrap_or("")
    }

    pub(crate) fn member_name(&self, id: u32, member: u32) -> &str {
        self.member_names
            .get(&(id, member))
            .map(String::as_str)
            .unwrap_or("")
    }

    pub(crate) fn decoration(&self, id: u32, decoration: u32) -> Option<u32> {
        let list = self.decorations.get(&id)?;
        let (_, at) = list.iter().find(|(d, _)| *d == decoration)?;
        Some(self.words.get(at + 1).copied().unwrap_or(0))
    }

    pub(crate) fn has_decoration(&self, id: u32, decoration: u32) -> bool {
        self.decorations
            .get(&id)
            .is_some_and(|l| l.iter().any(|(d, _)| *d == decoration))
    }

    pub(crate) fn member_decoration(&self, id: u32, member: u32, decoration: u32) -> Option<u32> {
        let list = self.member_decorations.get(&(id, member))?;
        let (_, at) = list.iter().find(|(d, _)| *d == decoration)?;
        Some(self.words.get(at + 1).copied().unwrap_or(0))
    }

    pub(crate) fn has_member_decoration(&self, id: u32, member: u32, decoration: u32) -> bool {
        self.member_decorations
            .get(&(id, member))
            .is_some_and(|l| l.iter().any(|(d, _)| *d == decoration))
    }

    /// Pointee type of a variable.
    pub(crate) fn pointee(&self, v: &Variable) -> Option<u32> {
        match self.types.get(&v.pointer_type) {
            Some(Type::Pointer { pointee, .. }) => Some(*pointee),
            _ => None,
        }
    }

    /// Sets (or adds) a one-literal decoration on `id`.
    pub(crate) fn set_decoration(&mut self, id: u32, decoration: u32, value: u32) {
        if let Some(list) = self.decorations.get(&id) {
            if let Some((_, at)) = list.iter().find(|(d, _)| *d == decoration) {
                let at = *at;
                if at + 1 < self.words.len() {
                    self.words[at + 1] = value;
                    return;
                }
            }
        }
        // Insert a new OpDecorate at the end of the annotation section and
        // reparse (indices move). Rare: glslang decorates every resource.
        let pos = self.annotation_end.min(self.words.len());
        let inst = [(4u32 << 16) | op::DECORATE as u32, id, decoration, value];
        let mut words = std::mem::take(&mut self.words);
        words.splice(pos..pos, inst);
        if let Ok(m) = Module::parse(words) {
            *self = m;
        }
    }
}

/// `words` with a `Flat` decoration on each global variable of storage
/// class `storage` named in `names` that has no interpolation decoration
/// yet (`Flat`, `NoPerspective`); None when no variable gained one.
/// glShadeModel(GL_FLAT) variants of a program's colour varyings
/// (`LinkedProgram::flat_shaded_spirv`).
pub(crate) fn decorate_flat(words: &[u32], names: &[&str], storage: u32) -> Option<Vec<u32>> {
    const FLAT: u32 = 14;
    const NO_PERSPECTIVE: u32 = 13;
    let m = Module::parse(words.to_vec()).ok()?;
    let ids: Vec<u32> = m
        .variables
        .iter()
        .filter(|v| v.storage == storage)
        .filter(|v| {
            m.names
                .get(&v.id)
                .is_some_and(|n| names.contains(&n.as_str()))
        })
        .filter(|v| {
            !m.decorations
                .get(&v.id)
                .is_some_and(|d| d.iter().any(|(k, _)| matches!(*k, FLAT | NO_PERSPECTIVE)))
        })
        .map(|v| v.id)
        .collect();
    if ids.is_empty() {
        return None;
    }
    let pos = m.annotation_end.min(m.words.len());
    let mut out = m.words;
    let inst: Vec<u32> = ids
        .iter()
        .flat_map(|&id| [(3u32 << 16) | u32::from(op::DECORATE), id, FLAT])
        .collect();
    out.splice(pos..pos, inst);
    Some(out)
}

/// `precise` through the GLSL.std.450 built-ins: glslang decorates the
/// arithmetic instructions a `precise` value is computed by with
/// `NoContraction` but not the extended instructions among them
/// (`fract(floor(a / b) * 42.0)` leaves `fract` and `floor` undecorated),
/// so drivers may still apply value-changing rewrites there (Mesa folds
/// `fract` of an integral-looking product to 0 even for NaN; SPIRV-Cross
/// writes no `precise` for them). An `OpExtInst` of GLSL.std.450 with a
/// floating-point result is decorated too when one of its operands is
/// `NoContraction` or its result feeds a `NoContraction` instruction, to a
/// fixed point. Decorating more than needed only forgoes optimisations.
pub(crate) fn propagate_no_contraction(m: Module) -> Result<Module, String> {
    const EXT_INST_IMPORT: u16 = 11;
    const EXT_INST: u16 = 12;
    const NO_CONTRACTION: u32 = 42;
    let mut glsl_std = None;
    let mut marked: HashSet<u32> = HashSet::new();
    for (opcode, inst) in instructions(&m.words) {
        match opcode {
            EXT_INST_IMPORT if decode_string(inst.get(2..).unwrap_or(&[])) == "GLSL.std.450" => {
                glsl_std = inst.get(1).copied();
            }
            op::DECORATE if inst.get(2) == Some(&NO_CONTRACTION) => {
                marked.extend(inst.get(1).copied());
            }
            _ => {}
        }
    }
    let Some(glsl_std) = glsl_std else {
        return Ok(m);
    };
    if marked.is_empty() {
        return Ok(m);
    }
    let is_float = |ty: u32| match m.types.get(&ty) {
        Some(Type::Float { .. }) => true,
        Some(Type::Vector { component, .. }) => {
            matches!(m.types.get(component), Some(Type::Float { .. }))
        }
        _ => false,
    };
    // (result id, operand ids) of the float GLSL.std.450 instructions, and
    // the operands of every instruction with a result (opcode, words).
    let mut ext: Vec<(u32, Vec<u32>)> = Vec::new();
    let mut operands_of: HashMap<u32, Vec<u32>> = HashMap::new();
    for (opcode, inst) in instructions(&m.words) {
        if opcode == EXT_INST && inst.len() >= 5 && inst[3] == glsl_std && is_float(inst[1]) {
            ext.push((inst[2], inst[5..].to_vec()));
        }
        if marked.contains(inst.get(2).unwrap_or(&0)) && inst.len() > 3 {
            operands_of.insert(inst[2], inst[3..].to_vec());
        }
    }
    let original = marked.clone();
    loop {
        let mut changed = false;
        for (id, operands) in &ext {
            if marked.contains(id) {
                continue;
            }
            let feeds_marked = marked
                .iter()
                .any(|r| operands_of.get(r).is_some_and(|ops| ops.contains(id)));
            if feeds_marked || operands.iter().any(|o| marked.contains(o)) {
                marked.insert(*id);
                operands_of.insert(*id, operands.clone());
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let added: Vec<u32> = ext
        .iter()
        .map(|(id, _)| *id)
        .filter(|id| marked.contains(id) && !original.contains(id))
        .collect();
    if added.is_empty() {
        return Ok(m);
    }
    let pos = m.annotation_end.min(m.words.len());
    let mut words = m.words;
    let decorations: Vec<u32> = added
        .iter()
        .flat_map(|&id| [(3u32 << 16) | op::DECORATE as u32, id, NO_CONTRACTION])
        .collect();
    words.splice(pos..pos, decorations);
    Module::parse(words)
}

/// (output variable, vertex stream) of every geometry output on a stream
/// other than 0: the variable's `Stream` decoration, or its block's
/// (glslang decorates the block type's members).
pub(crate) fn output_streams(m: &Module) -> Vec<(u32, u32)> {
    const STORAGE_OUTPUT: u32 = 3;
    const DEC_STREAM: u32 = 29;
    m.variables
        .iter()
        .filter(|v| v.storage == STORAGE_OUTPUT)
        .filter_map(|v| {
            let stream = m.decoration(v.id, DEC_STREAM).or_else(|| {
                m.pointee(v)
                    .and_then(|ty| m.member_decoration(ty, 0, DEC_STREAM))
            })?;
            (stream != 0).then_some((v.id, stream))
        })
        .collect()
}

/// ARB_gpu_shader5 vertex streams, lowered to the single stream GLES and
/// core Vulkan rasterize: `EmitStreamVertex(0)`/`EndStreamPrimitive(0)`
/// become `EmitVertex`/`EndPrimitive`; emits to streams 1..3 are dropped
/// (only stream 0 is rasterized, and capturing other streams needs
/// ARB_transform_feedback3, which is not advertised); `Stream` decorations
/// and the `GeometryStreams` capability go. A stream outside
/// 0..MAX_VERTEX_STREAMS is a link error (ARB_gpu_shader5: "the individual
/// streams are numbered 0 through <N>-1").
pub(crate) fn lower_vertex_streams(m: Module) -> Result<Module, String> {
    use super::MAX_VERTEX_STREAMS;
    const CAPABILITY: u16 = 17;
    const EMIT_VERTEX: u32 = 218;
    const END_PRIMITIVE: u32 = 219;
    const EMIT_STREAM_VERTEX: u16 = 220;
    const END_STREAM_PRIMITIVE: u16 = 221;
    const CAP_GEOMETRY_STREAMS: u32 = 54;
    const DEC_STREAM: u32 = 29;
    let mut out = Vec::with_capacity(m.words.len());
    out.extend_from_slice(m.words.get(..5).unwrap_or(&[]));
    let mut changed = false;
    for (opcode, inst) in instructions(&m.words) {
        let arg = |k: usize| inst.get(k).copied().unwrap_or(0);
        let keep = match opcode {
            CAPABILITY => arg(1) != CAP_GEOMETRY_STREAMS,
            op::DECORATE => arg(2) != DEC_STREAM,
            op::MEMBER_DECORATE => arg(3) != DEC_STREAM,
            EMIT_STREAM_VERTEX | END_STREAM_PRIMITIVE => {
                let stream = m.constants.get(&arg(1)).copied().ok_or_else(|| {
                    "ERROR: Linking: the stream of EmitStreamVertex/EndStreamPrimitive must be a constant expression\n"
                        .to_owned()
                })? as i32;
                if !(0..MAX_VERTEX_STREAMS as i32).contains(&stream) {
                    return Err(format!(
                        "ERROR: Linking: vertex stream {stream} is outside 0..{} (GL_MAX_VERTEX_STREAMS is {MAX_VERTEX_STREAMS})\n",
                        MAX_VERTEX_STREAMS - 1
                    ));
                }
                if stream == 0 {
                    let plain = if opcode == EMIT_STREAM_VERTEX {
                        EMIT_VERTEX
                    } else {
                        END_PRIMITIVE
                    };
                    out.push((1 << 16) | plain);
                }
                false
            }
            _ => true,
        };
        if keep {
            out.extend_from_slice(inst);
        } else {
            changed = true;
        }
    }
    if changed {
        Module::parse(out)
    } else {
        Ok(m)
    }
}

/// Rectangle textures as 2D ones (GL 3.1 core `sampler2DRect`): GLES has no
/// rectangle samplers (SPIRV-Cross cannot write them for ESSL) and Vulkan
/// has no `Rect` images, while the texture itself is an ordinary
/// one-level 2D texture on every backend. Rectangle image types become 2D;
/// sampling and gathering divide the coordinate's x and y by the level-0
/// size (rectangle coordinates are in texels; projective forms divide
/// before the projection, which commutes), and explicit gradients by the
/// same size; `OpImageQuerySize` becomes
/// `OpImageQuerySizeLod` of level 0 and `OpImageFetch` fetches level 0.
/// The `SampledRect`/`ImageRect` capabilities go, `ImageQuery` comes.
pub(crate) fn lower_rect_images(m: Module) -> Result<Module, String> {
    const CAPABILITY: u16 = 17;
    const CAP_IMAGE_RECT: u32 = 36;
    const CAP_SAMPLED_RECT: u32 = 37;
    const CAP_IMAGE_QUERY: u32 = 50;
    const DIM_2D: u32 = 1;
    const DIM_RECT: u32 = 4;
    const OP_TYPE_IMAGE: u16 = 25;
    const OP_CONSTANT: u16 = 43;
    const OP_FUNCTION: u16 = 54;
    const OP_IMAGE: u32 = 100;
    const OP_IMAGE_FETCH: u16 = 95;
    const OP_QUERY_SIZE_LOD: u32 = 103;
    const OP_QUERY_SIZE: u16 = 104;
    const OP_CONVERT_S_TO_F: u32 = 111;
    const OP_COMPOSITE_EXTRACT: u32 = 81;
    const OP_COMPOSITE_CONSTRUCT: u32 = 80;
    const OP_FDIV: u32 = 136;
    const LOD: u32 = 0x2;
    const GRAD: u32 = 0x4;
    // Sample, sample-projective and gather forms: coordinate at word 4.
    const SCALED: std::ops::RangeInclusive<u16> = 87..=97;

    let rect: HashSet<u32> = m
        .types
        .iter()
        .filter(|(_, t)| matches!(t, Type::Image { dim, .. } if *dim == DIM_RECT))
        .map(|(id, _)| *id)
        .collect();
    if rect.is_empty() {
        return Ok(m);
    }
    let sampled_rect: HashSet<u32> = m
        .types
        .iter()
        .filter(|(_, t)| matches!(t, Type::SampledImage { image } if rect.contains(image)))
        .map(|(id, _)| *id)
        .collect();
    // The type of every value a typed instruction makes (types are ids of
    // their own, so a first operand naming a type is a result type).
    let mut value_type: HashMap<u32, u32> = HashMap::new();
    for (opcode, inst) in instructions(&m.words) {
        if !(19..=39).contains(&opcode) && inst.len() >= 3 && m.types.contains_key(&inst[1]) {
            value_type.insert(inst[2], inst[1]);
        }
    }
    let find = |want: &Type| {
        m.types
            .iter()
            .filter(|(_, t)| *t == want)
            .map(|(id, _)| *id)
            .min()
    };
    let mut bound = m.words.get(3).copied().unwrap_or(0);
    let mut fresh = || {
        bound += 1;
        bound - 1
    };
    // Helper types (made when the module lacks them) and constants.
    let mut decls: Vec<u32> = Vec::new();
    let float = match find(&Type::Float { width: 32 }) {
        Some(id) => id,
        None => {
            let id = fresh();
            decls.extend_from_slice(&[(3 << 16) | u32::from(op::TYPE_FLOAT), id, 32]);
            id
        }
    };
    let int = match find(&Type::Int {
        width: 32,
        signed: true,
    }) {
        Some(id) => id,
        None => {
            let id = fresh();
            decls.extend_from_slice(&[(4 << 16) | u32::from(op::TYPE_INT), id, 32, 1]);
            id
        }
    };
    let mut vec2 = |component: u32, decls: &mut Vec<u32>| match find(&Type::Vector {
        component,
        count: 2,
    }) {
        Some(id) => id,
        None => {
            let id = fresh();
            decls.extend_from_slice(&[(4 << 16) | u32::from(op::TYPE_VECTOR), id, component, 2]);
            id
        }
    };
    let vec2f = vec2(float, &mut decls);
    let ivec2 = vec2(int, &mut decls);
    let zero = fresh();
    decls.extend_from_slice(&[(4 << 16) | u32::from(OP_CONSTANT), int, zero, 0]);
    let one = fresh();
    decls.extend_from_slice(&[
        (4 << 16) | u32::from(OP_CONSTANT),
        float,
        one,
        1.0f32.to_bits(),
    ]);

    let mut out = Vec::with_capacity(m.words.len() + 64);
    out.extend_from_slice(m.words.get(..5).unwrap_or(&[]));
    let mut has_query = false;
    let mut caps_done = false;
    let mut decls_done = false;
    for (opcode, inst) in instructions(&m.words) {
        let arg = |k: usize| inst.get(k).copied().unwrap_or(0);
        if opcode == CAPABILITY {
            has_query |= arg(1) == CAP_IMAGE_QUERY;
            if arg(1) != CAP_IMAGE_RECT && arg(1) != CAP_SAMPLED_RECT {
                out.extend_from_slice(inst);
            }
            continue;
        }
        if !caps_done {
            caps_done = true;
            if !has_query {
                out.extend_from_slice(&[(2 << 16) | u32::from(CAPABILITY), CAP_IMAGE_QUERY]);
            }
        }
        if opcode == OP_FUNCTION && !decls_done {
            decls_done = true;
            out.extend_from_slice(&decls);
        }
        match opcode {
            OP_TYPE_IMAGE if rect.contains(&arg(1)) => {
                let mut t = inst.to_vec();
                t[3] = DIM_2D;
                out.extend_from_slice(&t);
            }
            o if SCALED.contains(&o)
                && inst.len() >= 5
                && value_type
                    .get(&arg(3))
                    .is_some_and(|t| sampled_rect.contains(t)) =>
            {
                let coord_type = value_type.get(&arg(4)).copied().unwrap_or(vec2f);
                let n = match m.types.get(&coord_type) {
                    Some(Type::Vector { count, .. }) => *count,
                    _ => 2,
                };
                let image_type = match value_type.get(&arg(3)).and_then(|t| m.types.get(t)) {
                    Some(Type::SampledImage { image }) => *image,
                    _ => {
                        return Err("internal error: rectangle sampler without an image type".into())
                    }
                };
                let (img, isz, fsz, sx, sy, scale, coord) = (
                    fresh(),
                    fresh(),
                    fresh(),
                    fresh(),
                    fresh(),
                    fresh(),
                    fresh(),
                );
                out.extend_from_slice(&[(4 << 16) | OP_IMAGE, image_type, img, arg(3)]);
                out.extend_from_slice(&[(5 << 16) | OP_QUERY_SIZE_LOD, ivec2, isz, img, zero]);
                out.extend_from_slice(&[(4 << 16) | OP_CONVERT_S_TO_F, vec2f, fsz, isz]);
                out.extend_from_slice(&[(5 << 16) | OP_COMPOSITE_EXTRACT, float, sx, fsz, 0]);
                out.extend_from_slice(&[(5 << 16) | OP_COMPOSITE_EXTRACT, float, sy, fsz, 1]);
                let mut construct = vec![0, coord_type, scale, sx, sy];
                construct.extend(std::iter::repeat_n(one, n.saturating_sub(2) as usize));
                construct[0] = ((construct.len() as u32) << 16) | OP_COMPOSITE_CONSTRUCT;
                out.extend_from_slice(&construct);
                out.extend_from_slice(&[(5 << 16) | OP_FDIV, coord_type, coord, arg(4), scale]);
                let mut s = inst.to_vec();
                s[4] = coord;
                // Explicit gradients are in texels too: the Grad operands
                // (after the mask, and after Bias and Lod when present).
                let mask_at = if matches!(o, 87 | 88 | 91 | 92) { 5 } else { 6 };
                if let Some(&mask) = s.get(mask_at) {
                    if mask & GRAD != 0 {
                        let at = mask_at + 1 + (mask & 1) as usize + ((mask >> 1) & 1) as usize;
                        for k in at..(at + 2).min(s.len()) {
                            let g = fresh();
                            out.extend_from_slice(&[(5 << 16) | OP_FDIV, vec2f, g, s[k], fsz]);
                            s[k] = g;
                        }
                    }
                }
                out.extend_from_slice(&s);
            }
            OP_QUERY_SIZE
                if inst.len() == 4 && value_type.get(&arg(3)).is_some_and(|t| rect.contains(t)) =>
            {
                out.extend_from_slice(&[
                    (5 << 16) | OP_QUERY_SIZE_LOD,
                    arg(1),
                    arg(2),
                    arg(3),
                    zero,
                ]);
            }
            OP_IMAGE_FETCH
                if inst.len() >= 5 && value_type.get(&arg(3)).is_some_and(|t| rect.contains(t)) =>
            {
                let mut f = inst.to_vec();
                if f.len() == 5 {
                    f.extend_from_slice(&[LOD, zero]);
                } else if f[5] & LOD == 0 {
                    // Lod is the first operand after the mask (Bias, the
                    // only one before it, is not a fetch operand).
                    f[5] |= LOD;
                    f.insert(6, zero);
                }
                f[0] = ((f.len() as u32) << 16) | u32::from(OP_IMAGE_FETCH);
                out.extend_from_slice(&f);
            }
            _ => out.extend_from_slice(inst),
        }
    }
    if let Some(b) = out.get_mut(3) {
        *b = bound;
    }
    Module::parse(out)
}

/// Marks in `used` (indexed by SPIR-V binding) the sampler slots the
/// module's code reads: an element of a sampler array indexed by a
/// constant, or by the `(i * d1 + j)` of constants `flatten_resource_arrays`
/// writes, marks that element; any other index, or a use other than an
/// access chain, the whole array (GL's "active samplers").
pub(crate) fn mark_used_samplers(m: &Module, used: &mut [bool]) {
    const ACCESS_CHAIN: u16 = 65;
    const IN_BOUNDS_ACCESS_CHAIN: u16 = 66;
    const OP_IADD: u16 = 128;
    const OP_IMUL: u16 = 132;
    let mut mark = |from: u32, n: u32| {
        for b in from..from.saturating_add(n) {
            if let Some(u) = used.get_mut(b as usize) {
                *u = true;
            }
        }
    };
    // Sampler array variables: id → (first binding, length).
    let mut arrays: HashMap<u32, (u32, u32)> = HashMap::new();
    for v in &m.variables {
        if v.storage != storage::UNIFORM_CONSTANT {
            continue;
        }
        let (Some(p), Some(b)) = (m.pointee(v), m.decoration(v.id, dec::BINDING)) else {
            continue;
        };
        let (element, len) = match m.types.get(&p) {
            Some(Type::Array {
                element,
                len: Some(n),
            }) => (*element, Some(*n)),
            _ => (p, None),
        };
        if !matches!(m.types.get(&element), Some(Type::SampledImage { .. })) {
            continue;
        }
        match len {
            Some(n) => {
                arrays.insert(v.id, (b, n));
            }
            None if m.used.contains(&v.id) => mark(b, 1),
            None => {}
        }
    }
    if arrays.is_empty() {
        return;
    }
    let mut arith: HashMap<u32, (u16, u32, u32)> = HashMap::new();
    let mut chains: Vec<(u32, u32)> = Vec::new();
    for (op, inst) in instructions(&m.words) {
        match op {
            OP_IADD | OP_IMUL if inst.len() >= 5 => {
                arith.insert(inst[2], (op, inst[3], inst[4]));
            }
            ACCESS_CHAIN | IN_BOUNDS_ACCESS_CHAIN if inst.len() >= 5 => {
                chains.push((inst[3], inst[4]));
            }
            _ => {}
        }
    }
    fn eval(id: u32, m: &Module, arith: &HashMap<u32, (u16, u32, u32)>, depth: u32) -> Option<u32> {
        if let Some(&c) = m.constants.get(&id) {
            return Some(c);
        }
        let &(op, a, b) = arith.get(&id).filter(|_| depth < 8)?;
        let (a, b) = (eval(a, m, arith, depth + 1)?, eval(b, m, arith, depth + 1)?);
        Some(if op == OP_IADD {
            a.wrapping_add(b)
        } else {
            a.wrapping_mul(b)
        })
    }
    let mut chained: HashSet<u32> = HashSet::new();
    for (base, index) in chains {
        let Some(&(b, n)) = arrays.get(&base) else {
            continue;
        };
        chained.insert(base);
        match eval(index, m, &arith, 0) {
            Some(k) if k < n => mark(b.saturating_add(k), 1),
            _ => mark(b, n),
        }
    }
    for (id, &(b, n)) in &arrays {
        if m.used.contains(id) && !chained.contains(id) {
            mark(b, n);
        }
    }
}

/// Arrays of arrays of resources (samplers, images, uniform and storage
/// blocks) as one-dimensional arrays: Vulkan's SPIR-V environment allows
/// only one array level on `UniformConstant`, `Uniform` and
/// `StorageBuffer` variables (VUID-StandaloneSpirv-UniformConstant-04655,
/// -Uniform-06807), while GL_ARB_arrays_of_arrays names `tex[i][j]`.
/// Reflection has already given the variable its first binding and the
/// elements consecutive ones in row-major order, which is the flattened
/// order: each access chain's leading indices become `(i * d1 + j) * d2 +
/// k`. A use other than an access chain through every array level is a
/// link error (GLSL cannot pass opaque or block arrays around).
pub(crate) fn flatten_resource_arrays(m: Module) -> Result<Module, String> {
    flatten_arrays(m, &|_, v| {
        matches!(
            v.storage,
            storage::UNIFORM_CONSTANT | storage::UNIFORM | storage::STORAGE_BUFFER
        )
    })
}

/// Arrays of arrays of user varyings (`out mat2x4 v[2][8]`, what
/// GL_ARB_arrays_of_arrays allows) as one-dimensional arrays of the same
/// element type, for ESSL, which refuses them on interfaces ("vertex
/// shader output cannot have an array of arrays"). The flattened order
/// is the location order, so each element keeps its location and the
/// other stage flattened likewise still matches. Only for interfaces
/// that are not per-vertex arrays (`storage` OUTPUT of the last vertex
/// stage, INPUT of the fragment stage); built-ins and blocks are left.
/// Ok(None): nothing to flatten; Err(()): a use other than element
/// access (the caller then flattens neither side).
pub(crate) fn flatten_varying_arrays(m: &Module, storage: u32) -> Result<Option<Module>, ()> {
    let select = move |m: &Module, v: &Variable| {
        if v.storage != storage || m.has_decoration(v.id, dec::BUILTIN) {
            return false;
        }
        let mut ty = m.pointee(v);
        let mut levels = 0;
        while let Some(Type::Array { element, .. }) = ty.and_then(|t| m.types.get(&t)) {
            levels += 1;
            ty = Some(*element);
        }
        levels >= 2 && !matches!(ty.and_then(|t| m.types.get(&t)), Some(Type::Struct { .. }))
    };
    if !m.variables.iter().any(|v| select(m, v)) {
        return Ok(None);
    }
    let copy = Module::parse(m.words.clone()).map_err(|_| ())?;
    flatten_arrays(copy, &select).map(Some).map_err(|_| ())
}

fn flatten_arrays(
    m: Module,
    select: &dyn Fn(&Module, &Variable) -> bool,
) -> Result<Module, String> {
    const ACCESS_CHAIN: u16 = 65;
    const IN_BOUNDS_ACCESS_CHAIN: u16 = 66;
    const OP_IADD: u32 = 128;
    const OP_IMUL: u32 = 132;
    let whole_use = || {
        "ERROR: Linking: arrays of arrays of samplers, images or blocks can only be indexed\n"
            .to_owned()
    };
    // Variable id → (leading dimensions, new pointer type), for each variable
    // whose pointee is an array of arrays with constant lengths.
    let mut flat: HashMap<u32, Vec<u32>> = HashMap::new();
    let mut elements: HashMap<u32, (u32, u32)> = HashMap::new(); // var → (element type, storage)
    for v in &m.variables {
        if !select(&m, v) {
            continue;
        }
        let Some(mut ty) = m.pointee(v) else {
            continue;
        };
        let mut dims = Vec::new();
        while let Some(Type::Array { element, len }) = m.types.get(&ty) {
            let Some(len) = *len else {
                return Err(
                    "ERROR: Linking: resource arrays sized by specialization constants are not supported\n"
                        .to_owned(),
                );
            };
            dims.push(len);
            ty = *element;
        }
        if dims.len() >= 2 {
            flat.insert(v.id, dims);
            elements.insert(v.id, (ty, v.storage));
        }
    }
    if flat.is_empty() {
        return Ok(m);
    }
    let uint = m
        .types
        .iter()
        .filter(|(_, t)| {
            **t == Type::Int {
                width: 32,
                signed: false,
            }
        })
        .map(|(id, _)| *id)
        .min();
    let mut bound = m.words.get(3).copied().unwrap_or(0);
    let mut fresh = || {
        bound += 1;
        bound - 1
    };
    // Declarations placed before the first flattened variable: the uint
    // type when the module has none, the length constants, and per
    // variable its flat array and pointer types.
    let mut decls: Vec<u32> = Vec::new();
    let uint = uint.unwrap_or_else(|| {
        let id = fresh();
        decls.extend_from_slice(&[(4 << 16) | u32::from(op::TYPE_INT), id, 32, 0]);
        id
    });
    let mut constants: HashMap<u32, u32> = HashMap::new();
    let mut constant = |value: u32, decls: &mut Vec<u32>, fresh: &mut dyn FnMut() -> u32| {
        *constants.entry(value).or_insert_with(|| {
            let id = fresh();
            decls.extend_from_slice(&[(4 << 16) | u32::from(op::CONSTANT), uint, id, value]);
            id
        })
    };
    // Per variable: its flat array and pointer types, placed right before
    // it (after its element type).
    let mut new_pointer: HashMap<u32, (u32, [u32; 8])> = HashMap::new();
    let mut ids: Vec<u32> = flat.keys().copied().collect();
    ids.sort_unstable();
    for var in &ids {
        let dims = &flat[var];
        let (element, storage) = elements[var];
        let total = dims.iter().fold(1u32, |a, d| a.saturating_mul(*d));
        let len = constant(total, &mut decls, &mut fresh);
        for d in &dims[1..] {
            constant(*d, &mut decls, &mut fresh);
        }
        let array = fresh();
        let pointer = fresh();
        let own = [
            (4 << 16) | u32::from(op::TYPE_ARRAY),
            array,
            element,
            len,
            (4 << 16) | u32::from(op::TYPE_POINTER),
            pointer,
            storage,
            array,
        ];
        new_pointer.insert(*var, (pointer, own));
    }
    // Where the declarations go: before the first flattened variable, which
    // must follow the uint type's own declaration.
    let mut out = Vec::with_capacity(m.words.len() + decls.len() + 16);
    out.extend_from_slice(m.words.get(..5).unwrap_or(&[]));
    let mut placed = false;
    let mut uint_declared = !m.types.contains_key(&uint);
    for (opcode, inst) in instructions(&m.words) {
        let arg = |k: usize| inst.get(k).copied().unwrap_or(0);
        match opcode {
            op::TYPE_INT if arg(1) == uint => uint_declared = true,
            op::VARIABLE if new_pointer.contains_key(&arg(2)) => {
                if !placed {
                    if !uint_declared {
                        return Err("ERROR: Linking: unsupported declaration order for arrays of arrays of resources\n".to_owned());
                    }
                    out.extend_from_slice(&decls);
                    placed = true;
                }
                let (pointer, own) = new_pointer[&arg(2)];
                out.extend_from_slice(&own);
                out.extend_from_slice(inst);
                let at = out.len() - inst.len() + 1;
                out[at] = pointer;
                continue;
            }
            ACCESS_CHAIN | IN_BOUNDS_ACCESS_CHAIN if flat.contains_key(&arg(3)) => {
                let dims = &flat[&arg(3)];
                let indices = &inst[4..];
                if indices.len() < dims.len() {
                    return Err("ERROR: Linking: an array of arrays of samplers, images or blocks must be indexed down to one element\n".to_owned());
                }
                let mut acc = indices[0];
                for (k, d) in dims.iter().enumerate().skip(1) {
                    let dc = constants[d];
                    let product = fresh();
                    out.extend_from_slice(&[(5 << 16) | OP_IMUL, uint, product, acc, dc]);
                    let sum = fresh();
                    out.extend_from_slice(&[(5 << 16) | OP_IADD, uint, sum, product, indices[k]]);
                    acc = sum;
                }
                let rest = &indices[dims.len()..];
                let count = 5 + rest.len() as u32;
                out.extend_from_slice(&[
                    (count << 16) | u32::from(opcode),
                    arg(1),
                    arg(2),
                    arg(3),
                    acc,
                ]);
                out.extend_from_slice(rest);
                continue;
            }
            // Loads, stores, copies and calls of the whole array.
            61 | 83 | 67 | 68 if flat.contains_key(&arg(3)) => return Err(whole_use()),
            62 | 63 if flat.contains_key(&arg(1)) || flat.contains_key(&arg(2)) => {
                return Err(whole_use())
            }
            57 if inst.iter().skip(4).any(|w| flat.contains_key(w)) => return Err(whole_use()),
            _ => {}
        }
        out.extend_from_slice(inst);
    }
    if let Some(b) = out.get_mut(3) {
        *b = bound;
    }
    Module::parse(out)
}
