//! A small SPIR-V word walker: reflection of what a stage binds/consumes
//! and the one rewrite Vulkan needs.
//!
//! The frontend emits every resource in descriptor set 0 with sampler,
//! storage-block and image bindings in namespaces separate from uniform
//! blocks (GLES style: texture units, storage binding points and image
//! units vs UBO binding points). Bindings of one Vulkan set share a
//! namespace, so [`rewrite`] moves every sampled image / sampler variable to
//! [`SAMPLER_SET`] (binding = its texture-unit slot), every storage block to
//! [`STORAGE_SET`] (binding = its storage binding point), every storage
//! image to [`IMAGE_SET`] (binding = its image unit) and leaves uniform
//! blocks in [`UBO_SET`]. [`flip_point_coord`] makes a fragment stage read
//! `gl_PointCoord` with GL's upper-left origin (the backend keeps GL row
//! order, so Vulkan's own point origin is GL's lower-left);
//! [`subtract_base_instance`] makes a vertex stage's `gl_InstanceID` count
//! from 0 in base-instance draws.

/// Descriptor set of uniform blocks (user blocks and the default block).
pub const UBO_SET: u32 = 0;
/// Descriptor set of combined image samplers.
pub const SAMPLER_SET: u32 = 1;
/// Descriptor set of storage blocks (SSBOs).
pub const STORAGE_SET: u32 = 2;
/// Descriptor set of storage images.
pub const IMAGE_SET: u32 = 3;
/// Descriptor sets of a pipeline layout.
pub const SETS: usize = 4;

const MAGIC: u32 = 0x0723_0203;

const OP_ENTRY_POINT: u16 = 15;
const OP_TYPE_INT: u16 = 21;
const OP_TYPE_FLOAT: u16 = 22;
const OP_TYPE_VECTOR: u16 = 23;
const OP_TYPE_MATRIX: u16 = 24;
const OP_TYPE_IMAGE: u16 = 25;
const OP_TYPE_SAMPLER: u16 = 26;
const OP_TYPE_SAMPLED_IMAGE: u16 = 27;
const OP_TYPE_ARRAY: u16 = 28;
const OP_TYPE_RUNTIME_ARRAY: u16 = 29;
const OP_TYPE_STRUCT: u16 = 30;
const OP_TYPE_POINTER: u16 = 32;
const OP_CONSTANT: u16 = 43;
const OP_VARIABLE: u16 = 59;
const OP_DECORATE: u16 = 71;

const OP_LINE: u16 = 8;
const OP_FUNCTION: u16 = 54;
const OP_LOAD: u16 = 61;
const OP_ACCESS_CHAIN: u16 = 65;
const OP_IN_BOUNDS_ACCESS_CHAIN: u16 = 66;
const OP_STORE: u16 = 62;
const OP_COMPOSITE_CONSTRUCT: u16 = 80;
const OP_COMPOSITE_EXTRACT: u16 = 81;
const OP_BITCAST: u16 = 124;
const OP_FSUB: u16 = 131;
const OP_LABEL: u16 = 248;
const OP_NO_LINE: u16 = 317;

const BUILTIN_POINT_COORD: u32 = 16;
const BUILTIN_INSTANCE_INDEX: u32 = 43;
const BUILTIN_BASE_INSTANCE: u32 = 4425;
const CAP_DRAW_PARAMETERS: u32 = 4427;
const OP_CAPABILITY: u16 = 17;
const OP_EXTENSION: u16 = 10;
const OP_ISUB: u16 = 130;
const SC_PRIVATE: u32 = 6;

const DEC_BLOCK: u32 = 2;
const DEC_BUFFER_BLOCK: u32 = 3;
const DEC_BUILTIN: u32 = 11;
const DEC_LOCATION: u32 = 30;
const DEC_BINDING: u32 = 33;
const DEC_SET: u32 = 34;

const SC_UNIFORM_CONSTANT: u32 = 0;
const SC_INPUT: u32 = 1;
const SC_UNIFORM: u32 = 2;
const SC_STORAGE_BUFFER: u32 = 12;

/// SPIR-V Dim Rect (the last image dimensionality bound as a storage
/// image; Buffer and SubpassData are not).
const DIM_RECT: u32 = 4;
pub const DIM_BUFFER: u32 = 5;

/// Scalar class of a vertex input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scalar {
    Float,
    Int,
    Uint,
}

/// A combined image sampler the stage uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SamplerBinding {
    pub binding: u32,
    pub count: u32,
    /// SPIR-V Dim: 0 1D, 1 2D, 2 3D, 3 Cube, 4 Rect, 5 Buffer.
    pub dim: u32,
    pub arrayed: bool,
    pub ms: bool,
    pub scalar: Scalar,
}

/// A storage image the stage uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageBinding {
    pub binding: u32,
    pub count: u32,
    /// SPIR-V Dim: 0 1D, 1 2D, 2 3D, 3 Cube, 4 Rect.
    pub dim: u32,
    pub arrayed: bool,
    pub ms: bool,
    pub scalar: Scalar,
    /// SPIR-V Image Format (0: Unknown, declared without a format).
    pub format: u32,
}

/// What one stage binds and consumes.
#[derive(Clone, Debug, Default)]
pub struct Reflection {
    pub entry: String,
    /// (binding, array count) of uniform blocks in set 0.
    pub ubos: Vec<(u32, u32)>,
    pub samplers: Vec<SamplerBinding>,
    /// (binding, array count) of storage blocks.
    pub ssbos: Vec<(u32, u32)>,
    pub images: Vec<ImageBinding>,
    /// Resources this backend cannot bind: separate images or samplers,
    /// storage texel buffers (`imageBuffer`). Uniform texel buffers
    /// (`samplerBuffer`) are in `samplers`, with dim [`DIM_BUFFER`].
    pub unsupported: bool,
    /// Vertex input locations, one entry per Vulkan location fed.
    pub inputs: Vec<Input>,
}

/// Which bytes of its GL attribute a vertex input location reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Part {
    /// The attribute as the application specified it.
    Whole,
    /// Bytes 0..16 of a 64-bit attribute, as 32-bit unsigned words (one
    /// double: two words; two or more: four).
    Low,
    /// Bytes 16..32 of a `dvec3`/`dvec4` attribute, as 32-bit unsigned
    /// words (the location after its [`Part::Low`]).
    High,
}

/// One Vulkan vertex input location (also its binding) and the GL generic
/// attribute that feeds it. They differ only for inputs made of 64-bit
/// floats: GL gives every array element and matrix column one attribute,
/// where Vulkan gives a `dvec3`/`dvec4` two locations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Input {
    pub location: u32,
    pub attrib: u32,
    pub scalar: Scalar,
    pub part: Part,
}

/// Vertex input locations reflected at most (GL has 16 attributes; the
/// draw path warns about those past them).
const MAX_INPUT_LOCATIONS: u32 = 64;

/// One 64-bit float scalar or vector of an input (an array element or a
/// matrix column, or the whole input).
#[derive(Clone, Debug)]
struct Leaf {
    /// Access-chain indices from the variable (empty: the variable).
    path: Vec<u32>,
    /// Components (1: a `double`).
    comps: u32,
    /// Its type id.
    ty: u32,
}

/// Vulkan locations a 64-bit leaf of `comps` components takes.
fn leaf_locations(comps: u32) -> u32 {
    if comps > 2 {
        2
    } else {
        1
    }
}

/// The Vulkan locations vertex input `pointee` at `loc` takes and the GL
/// attributes feeding them; `split_f64`: 64-bit floats are fetched as
/// 32-bit unsigned words ([`lower_f64_inputs`]).
fn input_slots(m: &Module, loc: u32, pointee: u32, split_f64: bool, out: &mut Vec<Input>) {
    if let Some(leaves) = m.f64_leaves(pointee) {
        let mut at = loc;
        for (j, leaf) in leaves.iter().enumerate() {
            if at >= MAX_INPUT_LOCATIONS {
                break;
            }
            let attrib = loc.saturating_add(j as u32);
            if split_f64 {
                out.push(Input {
                    location: at,
                    attrib,
                    scalar: Scalar::Uint,
                    part: Part::Low,
                });
                if leaf.comps > 2 {
                    out.push(Input {
                        location: at + 1,
                        attrib,
                        scalar: Scalar::Uint,
                        part: Part::High,
                    });
                }
            } else {
                out.push(Input {
                    location: at,
                    attrib,
                    scalar: Scalar::Float,
                    part: Part::Whole,
                });
            }
            at = at.saturating_add(leaf_locations(leaf.comps));
        }
        return;
    }
    let scalar = m.scalar_of(pointee);
    let end = loc
        .saturating_add(m.locations(pointee))
        .min(MAX_INPUT_LOCATIONS);
    for l in loc..end {
        out.push(Input {
            location: l,
            attrib: l,
            scalar,
            part: Part::Whole,
        });
    }
}

/// Why a module was refused.
#[derive(Debug, thiserror::Error)]
pub enum SpirvError {
    #[error("not SPIR-V (bad magic or header)")]
    Header,
    #[error("truncated instruction at word {0}")]
    Truncated(usize),
    #[error("{0}")]
    Unsupported(&'static str),
}

fn instructions(words: &[u32]) -> Result<Instructions, SpirvError> {
    if words.len() < 5 || words[0] != MAGIC {
        return Err(SpirvError::Header);
    }
    let mut out = Vec::new();
    let mut i = 5;
    while i < words.len() {
        let n = (words[i] >> 16) as usize;
        let op = (words[i] & 0xffff) as u16;
        if n == 0 || i + n > words.len() {
            return Err(SpirvError::Truncated(i));
        }
        out.push((i, op, n));
        i += n;
    }
    Ok(out)
}

#[derive(Clone, Copy)]
enum Ty {
    Int(bool),
    /// Width in bits.
    Float(u32),
    /// Component type, component count.
    Vector(u32, u32),
    Matrix(u32, u32),
    Image {
        sampled: u32,
        dim: u32,
        arrayed: bool,
        ms: bool,
        storage: bool,
        format: u32,
    },
    Sampler,
    SampledImage(u32),
    Array(u32, u32),
    RuntimeArray(u32),
    Struct,
    Pointer(u32),
}

struct Module {
    types: std::collections::HashMap<u32, Ty>,
    consts: std::collections::HashMap<u32, u32>,
    decos: std::collections::HashMap<u32, Vec<(u32, u32, usize)>>,
}

impl Module {
    fn deco(&self, id: u32, d: u32) -> Option<u32> {
        self.decos.get(&id)?.iter().find(|x| x.0 == d).map(|x| x.1)
    }
    fn has_deco(&self, id: u32, d: u32) -> bool {
        self.decos
            .get(&id)
            .is_some_and(|v| v.iter().any(|x| x.0 == d))
    }
    /// Strip arrays: (element type, total count).
    fn unarray(&self, mut t: u32) -> (u32, u32) {
        let mut count = 1u32;
        for _ in 0..8 {
            match self.types.get(&t) {
                Some(Ty::Array(e, len)) => {
                    count = count.saturating_mul(*self.consts.get(len).unwrap_or(&1));
                    t = *e;
                }
                Some(Ty::RuntimeArray(e)) => t = *e,
                _ => break,
            }
        }
        (t, count)
    }
    fn scalar_of(&self, mut t: u32) -> Scalar {
        for _ in 0..8 {
            match self.types.get(&t) {
                Some(Ty::Vector(c, _)) => t = *c,
                Some(Ty::Matrix(c, _)) => t = *c,
                Some(Ty::Array(e, _)) => t = *e,
                Some(Ty::Int(true)) => return Scalar::Int,
                Some(Ty::Int(false)) => return Scalar::Uint,
                _ => return Scalar::Float,
            }
        }
        Scalar::Float
    }
    /// The 64-bit float scalars/vectors an input of type `t` is made of,
    /// in GL attribute order (array elements, each one's matrix columns);
    /// at most [`MAX_INPUT_LOCATIONS`]. None: `t` is not made of 64-bit
    /// floats.
    fn f64_leaves(&self, t: u32) -> Option<Vec<Leaf>> {
        let mut out = Vec::new();
        self.f64_leaves_into(t, &mut Vec::new(), &mut out, 0)?;
        Some(out)
    }
    fn f64_leaves_into(
        &self,
        t: u32,
        path: &mut Vec<u32>,
        out: &mut Vec<Leaf>,
        depth: u32,
    ) -> Option<()> {
        if depth > 8 {
            return None;
        }
        let is_f64 = |c: &u32| matches!(self.types.get(c), Some(Ty::Float(64)));
        let (elem, n) = match self.types.get(&t)? {
            Ty::Float(64) => {
                out.push(Leaf {
                    path: path.clone(),
                    comps: 1,
                    ty: t,
                });
                return Some(());
            }
            Ty::Vector(c, n) if is_f64(c) && (2..=4).contains(n) => {
                out.push(Leaf {
                    path: path.clone(),
                    comps: *n,
                    ty: t,
                });
                return Some(());
            }
            Ty::Matrix(col, cols) => (*col, *cols),
            Ty::Array(e, len) => (*e, *self.consts.get(len)?),
            _ => return None,
        };
        for i in 0..n {
            if out.len() >= MAX_INPUT_LOCATIONS as usize {
                break;
            }
            path.push(i);
            let r = self.f64_leaves_into(elem, path, out, depth + 1);
            path.pop();
            r?;
        }
        Some(())
    }
    fn locations(&self, t: u32) -> u32 {
        match self.types.get(&t) {
            Some(Ty::Matrix(_, cols)) => *cols,
            Some(Ty::Array(e, len)) => self
                .locations(*e)
                .saturating_mul(*self.consts.get(len).unwrap_or(&1)),
            _ => 1,
        }
    }
}

/// (word index, opcode, word count) of each instruction.
type Instructions = Vec<(usize, u16, usize)>;

fn parse(words: &[u32]) -> Result<(Module, Instructions), SpirvError> {
    let ins = instructions(words)?;
    let mut m = Module {
        types: Default::default(),
        consts: Default::default(),
        decos: Default::default(),
    };
    for &(i, op, n) in &ins {
        let w = &words[i..i + n];
        let a = |k: usize| w.get(k).copied().unwrap_or(0);
        match op {
            OP_TYPE_INT => {
                m.types.insert(a(1), Ty::Int(a(3) != 0));
            }
            OP_TYPE_FLOAT => {
                m.types.insert(a(1), Ty::Float(a(2)));
            }
            OP_TYPE_VECTOR => {
                m.types.insert(a(1), Ty::Vector(a(2), a(3)));
            }
            OP_TYPE_MATRIX => {
                m.types.insert(a(1), Ty::Matrix(a(2), a(3)));
            }
            OP_TYPE_IMAGE => {
                m.types.insert(
                    a(1),
                    Ty::Image {
                        sampled: a(2),
                        dim: a(3),
                        arrayed: a(5) != 0,
                        ms: a(6) != 0,
                        storage: a(7) == 2,
                        format: a(8),
                    },
                );
            }
            OP_TYPE_SAMPLER => {
                m.types.insert(a(1), Ty::Sampler);
            }
            OP_TYPE_SAMPLED_IMAGE => {
                m.types.insert(a(1), Ty::SampledImage(a(2)));
            }
            OP_TYPE_ARRAY => {
                m.types.insert(a(1), Ty::Array(a(2), a(3)));
            }
            OP_TYPE_RUNTIME_ARRAY => {
                m.types.insert(a(1), Ty::RuntimeArray(a(2)));
            }
            OP_TYPE_STRUCT => {
                m.types.insert(a(1), Ty::Struct);
            }
            OP_TYPE_POINTER => {
                m.types.insert(a(1), Ty::Pointer(a(3)));
            }
            OP_CONSTANT if n >= 4 => {
                m.consts.insert(a(2), a(3));
            }
            OP_DECORATE if n >= 3 => {
                m.decos.entry(a(1)).or_default().push((a(2), a(3), i + 3));
            }
            _ => {}
        }
    }
    Ok((m, ins))
}

/// Reflect one stage and move its sampled images to [`SAMPLER_SET`], its
/// storage blocks to [`STORAGE_SET`] and its storage images to
/// [`IMAGE_SET`]. `split_f64`: the vertex inputs made of 64-bit floats are
/// reflected as [`lower_f64_inputs`] leaves them.
pub fn rewrite(words: &mut [u32], split_f64: bool) -> Result<Reflection, SpirvError> {
    let (m, ins) = parse(words)?;
    let mut r = Reflection {
        entry: "main".into(),
        ..Default::default()
    };
    // (word index of a DescriptorSet literal, the set it moves to).
    let mut set_patches = Vec::new();
    let set_of = |id: u32, to: u32, patches: &mut Vec<(usize, u32)>| {
        if let Some(d) = m.decos.get(&id) {
            if let Some(x) = d.iter().find(|x| x.0 == DEC_SET) {
                patches.push((x.2, to));
            }
        }
    };
    for &(i, op, n) in &ins {
        let w = &words[i..i + n];
        match op {
            OP_ENTRY_POINT if n >= 4 => {
                // literal string from word 3, NUL-terminated, little-endian.
                let mut bytes = Vec::new();
                'outer: for &x in &w[3..] {
                    for b in x.to_le_bytes() {
                        if b == 0 {
                            break 'outer;
                        }
                        bytes.push(b);
                    }
                }
                r.entry = String::from_utf8_lossy(&bytes).into_owned();
            }
            OP_VARIABLE if n >= 4 => {
                let (ptr, id, sc) = (w[1], w[2], w[3]);
                let Some(Ty::Pointer(pointee)) = m.types.get(&ptr).copied() else {
                    continue;
                };
                let (elem, count) = m.unarray(pointee);
                let binding = m.deco(id, DEC_BINDING).unwrap_or(0);
                match sc {
                    SC_UNIFORM_CONSTANT => match m.types.get(&elem).copied() {
                        Some(Ty::SampledImage(img)) => {
                            if let Some(Ty::Image {
                                sampled,
                                dim,
                                arrayed,
                                ms,
                                ..
                            }) = m.types.get(&img).copied()
                            {
                                // A samplerBuffer (dim Buffer) is bound as a
                                // uniform texel buffer in the same set.
                                r.samplers.push(SamplerBinding {
                                    binding,
                                    count,
                                    dim,
                                    arrayed,
                                    ms,
                                    scalar: m.scalar_of(sampled),
                                });
                            }
                            set_of(id, SAMPLER_SET, &mut set_patches);
                        }
                        Some(Ty::Image {
                            storage: true,
                            sampled,
                            dim,
                            arrayed,
                            ms,
                            format,
                        }) if dim <= DIM_RECT => {
                            r.images.push(ImageBinding {
                                binding,
                                count,
                                dim,
                                arrayed,
                                ms,
                                scalar: m.scalar_of(sampled),
                                format,
                            });
                            set_of(id, IMAGE_SET, &mut set_patches);
                        }
                        Some(Ty::Image { .. }) | Some(Ty::Sampler) => r.unsupported = true,
                        _ => {}
                    },
                    SC_UNIFORM => {
                        if m.has_deco(elem, DEC_BUFFER_BLOCK) {
                            r.ssbos.push((binding, count));
                            set_of(id, STORAGE_SET, &mut set_patches);
                        } else if m.has_deco(elem, DEC_BLOCK) {
                            r.ubos.push((binding, count));
                        }
                    }
                    SC_STORAGE_BUFFER => {
                        r.ssbos.push((binding, count));
                        set_of(id, STORAGE_SET, &mut set_patches);
                    }
                    SC_INPUT => {
                        if m.has_deco(id, DEC_BUILTIN) || m.has_deco(elem, DEC_BLOCK) {
                            continue;
                        }
                        if let Some(loc) = m.deco(id, DEC_LOCATION) {
                            input_slots(&m, loc, pointee, split_f64, &mut r.inputs);
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    for (at, set) in set_patches {
        if let Some(w) = words.get_mut(at) {
            *w = set;
        }
    }
    Ok(r)
}

/// One instruction's words.
fn inst(op: u16, operands: &[u32]) -> impl Iterator<Item = u32> + '_ {
    std::iter::once(((operands.len() as u32 + 1) << 16) | op as u32).chain(operands.iter().copied())
}

/// The parts of a module a built-in-shadowing rewrite needs: where its
/// entry point and first function are, and what private pointer types it
/// declares already.
struct EntryInfo {
    entry: u32,
    first_fn: usize,
    /// First instruction after the `OpCapability` section.
    after_caps: usize,
}

impl EntryInfo {
    fn find(words: &[u32], ins: &Instructions) -> Result<EntryInfo, SpirvError> {
        let unsupported = SpirvError::Unsupported;
        let operand = |i: usize, k: usize| words.get(i + k).copied().unwrap_or(0);
        Ok(EntryInfo {
            entry: ins
                .iter()
                .find(|x| x.1 == OP_ENTRY_POINT && x.2 >= 3)
                .map(|x| operand(x.0, 2))
                .ok_or(unsupported("no entry point"))?,
            first_fn: ins
                .iter()
                .find(|x| x.1 == OP_FUNCTION)
                .map(|x| x.0)
                .ok_or(unsupported("no function"))?,
            after_caps: ins
                .iter()
                .find(|x| x.1 != OP_CAPABILITY)
                .map(|x| x.0)
                .ok_or(unsupported("empty module"))?,
        })
    }
}

/// A private pointer type to `pointee` the module declares already (a
/// second declaration of the same type is invalid).
fn private_pointer(words: &[u32], ins: &Instructions, pointee: u32) -> Option<u32> {
    let operand = |i: usize, k: usize| words.get(i + k).copied().unwrap_or(0);
    ins.iter().find_map(|&(i, op, n)| {
        (op == OP_TYPE_POINTER && n >= 4 && operand(i, 2) == SC_PRIVATE && operand(i, 3) == pointee)
            .then(|| operand(i, 1))
    })
}

/// A rewrite that makes the entry point read a built-in input through a
/// private copy it fills first: `prologue` runs at the top of the entry
/// function, every `OpLoad` of `input` loads `shadow` instead, and
/// `access_chain` rewrites an access chain into `input` (its words in,
/// the replacement out).
struct Shadowing<'a> {
    input: u32,
    shadow: u32,
    bound: u32,
    /// Inserted after the capabilities (capabilities, extensions).
    header: Vec<u32>,
    /// Inserted after the instruction at this word index (decorations).
    after: Option<(usize, Vec<u32>)>,
    /// Types, constants and variables, before the first function.
    globals: Vec<u32>,
    /// Added to the entry point's interface.
    interface: Vec<u32>,
    prologue: Vec<u32>,
    access_chain: &'a AccessChainRewrite<'a>,
}

/// How a shadowing rewrite replaces an access chain into its input.
type AccessChainRewrite<'a> = dyn Fn(&[u32]) -> Result<Vec<u32>, SpirvError> + 'a;

fn emit_shadowed(
    words: &[u32],
    ins: &Instructions,
    at: &EntryInfo,
    plan: &Shadowing,
) -> Result<Vec<u32>, SpirvError> {
    let mut out = Vec::with_capacity(
        words.len() + plan.header.len() + plan.globals.len() + plan.prologue.len() + 16,
    );
    out.extend_from_slice(&words[..5]);
    out[3] = plan.bound;
    let (mut in_entry, mut pending, mut done) = (false, false, false);
    for &(i, op, n) in ins {
        let w = &words[i..i + n];
        if i == at.after_caps {
            out.extend_from_slice(&plan.header);
        }
        if i == at.first_fn {
            out.extend_from_slice(&plan.globals);
        }
        if pending && !(op == OP_VARIABLE || op == OP_LINE || op == OP_NO_LINE) {
            out.extend_from_slice(&plan.prologue);
            (pending, done) = (false, true);
        }
        match op {
            OP_ENTRY_POINT if w.get(2) == Some(&at.entry) => {
                out.push((((n + plan.interface.len()) as u32) << 16) | op as u32);
                out.extend_from_slice(&w[1..]);
                out.extend_from_slice(&plan.interface);
            }
            OP_FUNCTION => {
                in_entry = w.get(2) == Some(&at.entry);
                out.extend_from_slice(w);
            }
            OP_LABEL => {
                pending = in_entry && !done;
                out.extend_from_slice(w);
            }
            OP_LOAD if n >= 4 && w[3] == plan.input => {
                out.extend_from_slice(w);
                let k = out.len() - n + 3;
                out[k] = plan.shadow;
            }
            OP_ACCESS_CHAIN | OP_IN_BOUNDS_ACCESS_CHAIN if n >= 4 && w[3] == plan.input => {
                out.extend((plan.access_chain)(w)?);
            }
            _ => out.extend_from_slice(w),
        }
        if let Some((k, extra)) = &plan.after {
            if *k == i {
                out.extend_from_slice(extra);
            }
        }
    }
    if !done {
        return Err(SpirvError::Unsupported("entry point function not found"));
    }
    Ok(out)
}

/// The variable decorated `BuiltIn b`, if the module has one, and the
/// word index of that decoration.
fn builtin_variable(words: &[u32], ins: &Instructions, b: u32) -> Option<(usize, u32)> {
    let operand = |i: usize, k: usize| words.get(i + k).copied().unwrap_or(0);
    ins.iter().find_map(|&(i, op, n)| {
        (op == OP_DECORATE && n >= 4 && operand(i, 2) == DEC_BUILTIN && operand(i, 3) == b)
            .then(|| (i, operand(i, 1)))
    })
}

/// The pointer type of variable `var` (None: not a variable).
fn variable_type(words: &[u32], ins: &Instructions, var: u32) -> Option<u32> {
    let operand = |i: usize, k: usize| words.get(i + k).copied().unwrap_or(0);
    ins.iter()
        .find(|&&(i, op, n)| op == OP_VARIABLE && n >= 4 && operand(i, 2) == var)
        .map(|&(i, _, _)| operand(i, 1))
}

/// A fragment stage that reads the `PointCoord` built-in gets it with t
/// flipped: the entry point copies (s, 1 − t) into a private variable
/// first, and every load or access chain of the input reads that instead.
/// None: the module reads no `PointCoord` (nothing to do).
pub fn flip_point_coord(words: &[u32]) -> Result<Option<Vec<u32>>, SpirvError> {
    let (m, ins) = parse(words)?;
    let Some((_, pc)) = builtin_variable(words, &ins, BUILTIN_POINT_COORD) else {
        return Ok(None);
    };
    let unsupported = SpirvError::Unsupported;
    let ptr = variable_type(words, &ins, pc).ok_or(unsupported("PointCoord is not a variable"))?;
    let Some(Ty::Pointer(vec2)) = m.types.get(&ptr).copied() else {
        return Err(unsupported("PointCoord is not a pointer"));
    };
    let Some(Ty::Vector(float, _)) = m.types.get(&vec2).copied() else {
        return Err(unsupported("PointCoord is not a vector"));
    };
    let at = EntryInfo::find(words, &ins)?;
    let mut add = Additions {
        bound: words[3],
        globals: Vec::new(),
    };
    let ptr_vec2 = add.decl(
        private_pointer(words, &ins, vec2),
        OP_TYPE_POINTER,
        &[SC_PRIVATE, vec2],
    );
    let ptr_float = add.decl(
        private_pointer(words, &ins, float),
        OP_TYPE_POINTER,
        &[SC_PRIVATE, float],
    );
    let (one, shadow) = (add.fresh(), add.fresh());
    add.globals
        .extend(inst(OP_CONSTANT, &[float, one, 1.0f32.to_bits()]));
    add.globals
        .extend(inst(OP_VARIABLE, &[ptr_vec2, shadow, SC_PRIVATE]));
    let (st, s, t, flipped, fixed) = (
        add.fresh(),
        add.fresh(),
        add.fresh(),
        add.fresh(),
        add.fresh(),
    );
    let mut prologue: Vec<u32> = Vec::new();
    prologue.extend(inst(OP_LOAD, &[vec2, st, pc]));
    prologue.extend(inst(OP_COMPOSITE_EXTRACT, &[float, s, st, 0]));
    prologue.extend(inst(OP_COMPOSITE_EXTRACT, &[float, t, st, 1]));
    prologue.extend(inst(OP_FSUB, &[float, flipped, one, t]));
    prologue.extend(inst(OP_COMPOSITE_CONSTRUCT, &[vec2, fixed, s, flipped]));
    prologue.extend(inst(OP_STORE, &[shadow, fixed]));
    // One index picks a component: a pointer to a float.
    let access_chain = |w: &[u32]| {
        if w.len() != 5 {
            return Err(unsupported("PointCoord access chain of another depth"));
        }
        Ok(vec![w[0], ptr_float, w[2], shadow, w[4]])
    };
    let plan = Shadowing {
        input: pc,
        shadow,
        bound: add.bound,
        header: Vec::new(),
        after: None,
        globals: add.globals,
        // SPIR-V 1.4 and later list every global an entry point uses.
        interface: if words[1] >= 0x0001_0400 {
            vec![shadow]
        } else {
            Vec::new()
        },
        prologue,
        access_chain: &access_chain,
    };
    emit_shadowed(words, &ins, &at, &plan).map(Some)
}

/// A vertex stage that reads the `InstanceIndex` built-in (the frontend
/// compiles `gl_InstanceID` to it) gets GL's value: Vulkan's instance
/// index counts from the draw's first instance, GL's `gl_InstanceID` from
/// 0 whatever the base instance (ARB_base_instance). The entry point
/// stores `InstanceIndex - BaseInstance` (SPV_KHR_shader_draw_parameters,
/// core in SPIR-V 1.3) into a private variable first, and every load of
/// the input reads that instead. None: the module reads no
/// `InstanceIndex`.
pub fn subtract_base_instance(words: &[u32]) -> Result<Option<Vec<u32>>, SpirvError> {
    let (m, ins) = parse(words)?;
    let Some((deco_at, index_var)) = builtin_variable(words, &ins, BUILTIN_INSTANCE_INDEX) else {
        return Ok(None);
    };
    let unsupported = SpirvError::Unsupported;
    let ptr_input = variable_type(words, &ins, index_var)
        .ok_or(unsupported("InstanceIndex is not a variable"))?;
    let Some(Ty::Pointer(int)) = m.types.get(&ptr_input).copied() else {
        return Err(unsupported("InstanceIndex is not a pointer"));
    };
    if !matches!(m.types.get(&int), Some(Ty::Int(_))) {
        return Err(unsupported("InstanceIndex is not an integer"));
    }
    let at = EntryInfo::find(words, &ins)?;
    let operand = |i: usize, k: usize| words.get(i + k).copied().unwrap_or(0);
    let has_cap = ins
        .iter()
        .any(|&(i, op, n)| op == OP_CAPABILITY && n >= 2 && operand(i, 1) == CAP_DRAW_PARAMETERS);
    let mut add = Additions {
        bound: words[3],
        globals: Vec::new(),
    };
    let ptr_private = add.decl(
        private_pointer(words, &ins, int),
        OP_TYPE_POINTER,
        &[SC_PRIVATE, int],
    );
    let (base, shadow) = (add.fresh(), add.fresh());
    add.globals
        .extend(inst(OP_VARIABLE, &[ptr_input, base, SC_INPUT]));
    add.globals
        .extend(inst(OP_VARIABLE, &[ptr_private, shadow, SC_PRIVATE]));
    let (a, b, d) = (add.fresh(), add.fresh(), add.fresh());
    let mut prologue: Vec<u32> = Vec::new();
    prologue.extend(inst(OP_LOAD, &[int, a, index_var]));
    prologue.extend(inst(OP_LOAD, &[int, b, base]));
    prologue.extend(inst(OP_ISUB, &[int, d, a, b]));
    prologue.extend(inst(OP_STORE, &[shadow, d]));
    let mut header: Vec<u32> = Vec::new();
    if !has_cap {
        header.extend(inst(OP_CAPABILITY, &[CAP_DRAW_PARAMETERS]));
        // Before SPIR-V 1.3 the capability comes from the extension.
        if words[1] < 0x0001_0300 {
            let name = b"SPV_KHR_shader_draw_parameters\0";
            let lit: Vec<u32> = name
                .chunks(4)
                .map(|c| {
                    let mut q = [0u8; 4];
                    q[..c.len()].copy_from_slice(c);
                    u32::from_le_bytes(q)
                })
                .collect();
            header.extend(inst(OP_EXTENSION, &lit));
        }
    }
    let decoration: Vec<u32> =
        inst(OP_DECORATE, &[base, DEC_BUILTIN, BUILTIN_BASE_INSTANCE]).collect();
    let access_chain = |_: &[u32]| Err(unsupported("access chain into InstanceIndex"));
    let plan = Shadowing {
        input: index_var,
        shadow,
        bound: add.bound,
        header,
        after: Some((deco_at, decoration)),
        globals: add.globals,
        // Inputs are always listed; SPIR-V 1.4 and later list every global.
        interface: if words[1] >= 0x0001_0400 {
            vec![base, shadow]
        } else {
            vec![base]
        },
        prologue,
        access_chain: &access_chain,
    };
    emit_shadowed(words, &ins, &at, &plan).map(Some)
}

/// Ids and global declarations a rewrite adds to a module.
struct Additions {
    bound: u32,
    globals: Vec<u32>,
}

impl Additions {
    fn fresh(&mut self) -> u32 {
        self.bound += 1;
        self.bound - 1
    }
    /// `existing`, else a new declaration `op id operands...`.
    fn decl(&mut self, existing: Option<u32>, op: u16, operands: &[u32]) -> u32 {
        existing.unwrap_or_else(|| {
            let id = self.fresh();
            let mut all = vec![id];
            all.extend_from_slice(operands);
            self.globals.extend(inst(op, &all));
            id
        })
    }
}

/// The interface ids of an `OpEntryPoint` (`w`: its words): they follow
/// the NUL-terminated name from word 3.
fn interface_start(w: &[u32]) -> usize {
    let mut k = 3;
    while k < w.len() {
        let last = w[k].to_le_bytes().contains(&0);
        k += 1;
        if last {
            break;
        }
    }
    k
}

/// Vertex inputs made of 64-bit floats (`double`, `dvec*`, `dmat*`, arrays
/// of them) for a device that cannot fetch 64-bit vertex formats: each
/// becomes a `Private` variable of its type that the entry point fills
/// first, from new 32-bit unsigned vector inputs read with `OpBitcast`.
/// Every scalar/vector leaf (array element, matrix column) at Vulkan
/// location `L` reads a `uvec2` (`double`) or `uvec4` (`dvec2` and the
/// first two components of `dvec3`/`dvec4`) at `L` and, for `dvec3` /
/// `dvec4`, a `uvec2` / `uvec4` at `L + 1`: the locations Vulkan gives the
/// original input, which [`input_slots`] feeds from the same bytes.
/// None: the module has no such input.
pub fn lower_f64_inputs(words: &[u32]) -> Result<Option<Vec<u32>>, SpirvError> {
    let (m, ins) = parse(words)?;
    let operand = |i: usize, k: usize| words.get(i + k).copied().unwrap_or(0);
    let unsupported = SpirvError::Unsupported;
    // (variable, location, leaves) of each input to lower.
    let mut targets: Vec<(u32, u32, Vec<Leaf>)> = Vec::new();
    for &(i, op, n) in &ins {
        if op != OP_VARIABLE || n < 4 || operand(i, 3) != SC_INPUT {
            continue;
        }
        let id = operand(i, 2);
        let Some(Ty::Pointer(pointee)) = m.types.get(&operand(i, 1)).copied() else {
            continue;
        };
        let Some(leaves) = m.f64_leaves(pointee) else {
            continue;
        };
        let loc = m
            .deco(id, DEC_LOCATION)
            .ok_or(unsupported("64-bit vertex input without a location"))?;
        targets.push((id, loc, leaves));
    }
    if targets.is_empty() {
        return Ok(None);
    }
    let target = |id: u32| targets.iter().position(|t| t.0 == id);
    let entry = ins
        .iter()
        .find(|x| x.1 == OP_ENTRY_POINT && x.2 >= 3)
        .map(|x| operand(x.0, 2))
        .ok_or(unsupported("no entry point"))?;
    let first_fn = ins
        .iter()
        .find(|x| x.1 == OP_FUNCTION)
        .map(|x| x.0)
        .ok_or(unsupported("no function"))?;
    // A type declared as `op result operands...`, if the module has it (a
    // second declaration of a non-pointer type is invalid).
    let find = |op: u16, operands: &[u32]| {
        ins.iter().find_map(|&(i, o, n)| {
            (o == op && n == operands.len() + 2 && words[i + 2..i + n] == *operands)
                .then(|| operand(i, 1))
        })
    };
    let double = find(OP_TYPE_FLOAT, &[64]).ok_or(unsupported("no 64-bit float type"))?;
    let mut add = Additions {
        bound: words[3],
        globals: Vec::new(),
    };
    let uint = add.decl(find(OP_TYPE_INT, &[32, 0]), OP_TYPE_INT, &[32, 0]);
    let uvec2 = add.decl(find(OP_TYPE_VECTOR, &[uint, 2]), OP_TYPE_VECTOR, &[uint, 2]);
    let uvec4 = add.decl(find(OP_TYPE_VECTOR, &[uint, 4]), OP_TYPE_VECTOR, &[uint, 4]);
    let dvec2 = add.decl(
        find(OP_TYPE_VECTOR, &[double, 2]),
        OP_TYPE_VECTOR,
        &[double, 2],
    );
    let in_ptr = |add: &mut Additions, ty: u32| {
        add.decl(
            find(OP_TYPE_POINTER, &[SC_INPUT, ty]),
            OP_TYPE_POINTER,
            &[SC_INPUT, ty],
        )
    };
    let in_uvec2 = in_ptr(&mut add, uvec2);
    let in_uvec4 = in_ptr(&mut add, uvec4);
    // Private pointers to leaf types and index constants, made once each.
    // An Input pointer to a 64-bit type becomes a Private one below.
    let mut private_ptrs: Vec<(u32, u32)> = Vec::new();
    let mut indices: Vec<(u32, u32)> = Vec::new();
    // (variable id, Location) of the new inputs, per target.
    let mut new_inputs: Vec<Vec<(u32, u32)>> = Vec::new();
    let mut prologue: Vec<u32> = Vec::new();
    for (var, loc, leaves) in &targets {
        let mut mine = Vec::new();
        let mut at = *loc;
        for leaf in leaves {
            let lo_ty = if leaf.comps == 1 { uvec2 } else { uvec4 };
            let lo = add.fresh();
            add.globals.extend(inst(
                OP_VARIABLE,
                &[
                    if leaf.comps == 1 { in_uvec2 } else { in_uvec4 },
                    lo,
                    SC_INPUT,
                ],
            ));
            mine.push((lo, at));
            let x = add.fresh();
            prologue.extend(inst(OP_LOAD, &[lo_ty, x, lo]));
            let value = if leaf.comps <= 2 {
                let v = add.fresh();
                prologue.extend(inst(OP_BITCAST, &[leaf.ty, v, x]));
                v
            } else {
                let (hi_ty, hi_ptr, hi_f64) = if leaf.comps == 3 {
                    (uvec2, in_uvec2, double)
                } else {
                    (uvec4, in_uvec4, dvec2)
                };
                let hi = add.fresh();
                add.globals
                    .extend(inst(OP_VARIABLE, &[hi_ptr, hi, SC_INPUT]));
                mine.push((hi, at + 1));
                let (a, y, b, v) = (add.fresh(), add.fresh(), add.fresh(), add.fresh());
                prologue.extend(inst(OP_BITCAST, &[dvec2, a, x]));
                prologue.extend(inst(OP_LOAD, &[hi_ty, y, hi]));
                prologue.extend(inst(OP_BITCAST, &[hi_f64, b, y]));
                prologue.extend(inst(OP_COMPOSITE_CONSTRUCT, &[leaf.ty, v, a, b]));
                v
            };
            if leaf.path.is_empty() {
                prologue.extend(inst(OP_STORE, &[*var, value]));
            } else {
                let ptr = match private_ptrs.iter().find(|p| p.0 == leaf.ty) {
                    Some(p) => p.1,
                    None => {
                        let existing = find(OP_TYPE_POINTER, &[SC_PRIVATE, leaf.ty])
                            .or_else(|| find(OP_TYPE_POINTER, &[SC_INPUT, leaf.ty]));
                        let p = add.decl(existing, OP_TYPE_POINTER, &[SC_PRIVATE, leaf.ty]);
                        private_ptrs.push((leaf.ty, p));
                        p
                    }
                };
                let mut chain = vec![ptr, add.fresh(), *var];
                for &k in &leaf.path {
                    let c = match indices.iter().find(|c| c.0 == k) {
                        Some(c) => c.1,
                        None => {
                            let c = add.fresh();
                            add.globals.extend(inst(OP_CONSTANT, &[uint, c, k]));
                            indices.push((k, c));
                            c
                        }
                    };
                    chain.push(c);
                }
                prologue.extend(inst(OP_ACCESS_CHAIN, &chain));
                prologue.extend(inst(OP_STORE, &[chain[1], value]));
            }
            at = at.saturating_add(leaf_locations(leaf.comps));
        }
        new_inputs.push(mine);
    }
    // SPIR-V 1.4 and later list every global an entry point uses; before,
    // only Input and Output variables.
    let list_private = words[1] >= 0x0001_0400;
    let mut located = vec![false; targets.len()];

    let mut out = Vec::with_capacity(words.len() + add.globals.len() + prologue.len() + 64);
    out.extend_from_slice(&words[..5]);
    out[3] = add.bound;
    let (mut in_entry, mut pending, mut done) = (false, false, false);
    for &(i, op, n) in &ins {
        let w = &words[i..i + n];
        if i == first_fn {
            out.extend_from_slice(&add.globals);
        }
        if pending && !(op == OP_VARIABLE || op == OP_LINE || op == OP_NO_LINE) {
            out.extend_from_slice(&prologue);
            (pending, done) = (false, true);
        }
        match op {
            OP_ENTRY_POINT if w.get(2) == Some(&entry) => {
                let start = interface_start(w).min(n);
                let mut e: Vec<u32> = w[1..start].to_vec();
                for &id in &w[start..] {
                    if list_private || target(id).is_none() {
                        e.push(id);
                    }
                }
                e.extend(new_inputs.iter().flatten().map(|x| x.0));
                out.extend(inst(op, &e));
            }
            // The lowered variables lose their decorations (Location on a
            // Private variable is invalid); their Location becomes the new
            // inputs'.
            OP_DECORATE if n >= 3 && target(w[1]).is_some() => {
                let t = target(w[1]).unwrap_or(0);
                if w[2] == DEC_LOCATION && !located[t] {
                    located[t] = true;
                    for &(id, l) in &new_inputs[t] {
                        out.extend(inst(OP_DECORATE, &[id, DEC_LOCATION, l]));
                    }
                }
            }
            OP_TYPE_POINTER if n == 4 && w[2] == SC_INPUT && m.f64_leaves(w[3]).is_some() => {
                out.extend_from_slice(&[w[0], w[1], SC_PRIVATE, w[3]]);
            }
            OP_VARIABLE if n >= 4 && target(w[2]).is_some() => {
                out.extend_from_slice(w);
                let at = out.len() - n + 3;
                out[at] = SC_PRIVATE;
            }
            OP_FUNCTION => {
                in_entry = w.get(2) == Some(&entry);
                out.extend_from_slice(w);
            }
            OP_LABEL => {
                pending = in_entry && !done;
                out.extend_from_slice(w);
            }
            _ => out.extend_from_slice(w),
        }
    }
    if !done {
        return Err(unsupported("entry point function not found"));
    }
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(bytes: &[u8]) -> Vec<u32> {
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    /// Every DescriptorSet decoration's set, sorted.
    fn sets(w: &[u32]) -> Vec<u32> {
        let (m, _) = parse(w).unwrap();
        let mut v: Vec<u32> = m
            .decos
            .values()
            .flatten()
            .filter(|d| d.0 == DEC_SET)
            .map(|d| d.1)
            .collect();
        v.sort_unstable();
        v
    }

    #[test]
    fn storage_blocks_and_images_move_to_their_sets() {
        // Uniform block 0 and storage blocks 0 and 1, all in set 0 as the
        // frontend sends them (SPIR-V 1.0: Uniform + BufferBlock).
        let mut w = words(include_bytes!("../tests/data/ssbo_write.comp.spv"));
        assert_eq!(sets(&w), vec![0, 0, 0]);
        let r = rewrite(&mut w, false).unwrap();
        assert_eq!(r.ubos, vec![(0, 1)]);
        let mut ssbos = r.ssbos.clone();
        ssbos.sort_unstable();
        assert_eq!(ssbos, vec![(0, 1), (1, 1)]);
        assert!(r.images.is_empty() && r.samplers.is_empty() && !r.unsupported);
        assert_eq!(sets(&w), vec![UBO_SET, STORAGE_SET, STORAGE_SET]);

        // The default block and image unit 0, both at binding 0.
        let mut w = words(include_bytes!("../tests/data/image_store.comp.spv"));
        let r = rewrite(&mut w, false).unwrap();
        assert_eq!(r.ubos, vec![(0, 1)]);
        assert_eq!(
            r.images,
            vec![ImageBinding {
                binding: 0,
                count: 1,
                dim: 1,
                arrayed: false,
                ms: false,
                scalar: Scalar::Float,
                format: 4, // Rgba8
            }]
        );
        assert!(!r.unsupported);
        assert_eq!(sets(&w), vec![UBO_SET, IMAGE_SET]);
    }

    /// `spirv-val` (Debian spirv-tools) on `w` when it is installed.
    fn validate(w: &[u32], env: &str) {
        let path =
            std::env::temp_dir().join(format!("mobilegl-vk64-{}-{env}.spv", std::process::id()));
        std::fs::write(&path, bytemuck::cast_slice::<u32, u8>(w)).unwrap();
        let out = std::process::Command::new("spirv-val")
            .args(["--target-env", env])
            .arg(&path)
            .output();
        let _ = std::fs::remove_file(&path);
        match out {
            Ok(o) => assert!(
                o.status.success(),
                "spirv-val: {}",
                String::from_utf8_lossy(&o.stderr)
            ),
            Err(e) => eprintln!("spirv-val not run: {e}"),
        }
    }

    /// (location, attrib, part) of every input.
    fn slots(r: &Reflection) -> Vec<(u32, u32, Part)> {
        let mut v: Vec<_> = r
            .inputs
            .iter()
            .map(|i| (i.location, i.attrib, i.part))
            .collect();
        v.sort_unstable_by_key(|x| x.0);
        v
    }

    #[test]
    fn f64_inputs_lower_to_uint_words() {
        use Part::*;
        // dvec3 at 1, dvec4 at 3, double at 5 (SPIR-V 1.0).
        let mut w = words(include_bytes!("../tests/data/f64_in.vert.spv"));
        let native = rewrite(&mut w.clone(), false).unwrap();
        assert_eq!(
            slots(&native),
            vec![(0, 0, Whole), (1, 1, Whole), (3, 3, Whole), (5, 5, Whole)]
        );
        let r = rewrite(&mut w, true).unwrap();
        assert_eq!(
            slots(&r),
            vec![
                (0, 0, Whole),
                (1, 1, Low),
                (2, 1, High),
                (3, 3, Low),
                (4, 3, High),
                (5, 5, Low)
            ]
        );
        let lowered = lower_f64_inputs(&w).unwrap().expect("lowered");
        validate(&lowered, "vulkan1.0");
        // No 64-bit input is left, and the lowered module reflects the
        // same Vulkan locations (as 32-bit unsigned inputs).
        assert!(lower_f64_inputs(&lowered).unwrap().is_none());
        let again = rewrite(&mut lowered.clone(), true).unwrap();
        let locs: Vec<u32> = slots(&again).iter().map(|x| x.0).collect();
        assert_eq!(locs, vec![0, 1, 2, 3, 4, 5]);
        assert!(again
            .inputs
            .iter()
            .filter(|i| i.location > 0)
            .all(|i| i.scalar == Scalar::Uint));

        // dmat2x3 at 1, dvec3[2] at 5, dvec2[2] at 9, double at 11: GL's
        // attribute per column / element, Vulkan's two locations per dvec3.
        for (bytes, env) in [
            (
                &include_bytes!("../tests/data/f64_mat.vert.spv")[..],
                "vulkan1.0",
            ),
            (
                &include_bytes!("../tests/data/f64_mat.vert.spv15")[..],
                "vulkan1.2",
            ),
        ] {
            let mut w = words(bytes);
            let r = rewrite(&mut w, true).unwrap();
            assert_eq!(
                slots(&r),
                vec![
                    (0, 0, Whole),
                    (1, 1, Low),
                    (2, 1, High),
                    (3, 2, Low),
                    (4, 2, High),
                    (5, 5, Low),
                    (6, 5, High),
                    (7, 6, Low),
                    (8, 6, High),
                    (9, 9, Low),
                    (10, 10, Low),
                    (11, 11, Low)
                ],
                "{env}"
            );
            let lowered = lower_f64_inputs(&w).unwrap().expect("lowered");
            validate(&lowered, env);
        }
        // A module without 64-bit inputs is left alone.
        let w = words(include_bytes!("../tests/data/draw.vert.spv"));
        assert!(lower_f64_inputs(&w).unwrap().is_none());
    }

    #[test]
    fn instance_index_reads_subtract_the_base_instance() {
        for (bytes, env) in [
            (
                &include_bytes!("../tests/data/instance.vert.spv")[..],
                "vulkan1.1",
            ),
            (
                &include_bytes!("../tests/data/instance.vert.spv15")[..],
                "vulkan1.2",
            ),
        ] {
            let w = words(bytes);
            let out = subtract_base_instance(&w).unwrap().expect("rewritten");
            validate(&out, env);
            let (_, ins) = parse(&out).unwrap();
            let at = |i: usize, k: usize| out.get(i + k).copied().unwrap_or(0);
            let builtin = |b: u32| {
                ins.iter()
                    .find(|&&(i, op, n)| {
                        op == OP_DECORATE && n >= 4 && at(i, 2) == DEC_BUILTIN && at(i, 3) == b
                    })
                    .map(|&(i, _, _)| at(i, 1))
                    .expect("decorated")
            };
            let (index, base) = (
                builtin(BUILTIN_INSTANCE_INDEX),
                builtin(BUILTIN_BASE_INSTANCE),
            );
            let loads = |var: u32| {
                ins.iter()
                    .filter(|&&(i, op, n)| op == OP_LOAD && n >= 4 && at(i, 3) == var)
                    .count()
            };
            // The prologue reads each built-in once; the shader's two
            // reads go to the private copy.
            assert_eq!((loads(index), loads(base)), (1, 1), "{env}");
            assert!(ins
                .iter()
                .any(|&(i, op, n)| op == OP_ISUB && n == 5 && at(i, 4) != 0));
            assert!(ins
                .iter()
                .any(|&(i, op, _)| op == OP_CAPABILITY && at(i, 1) == CAP_DRAW_PARAMETERS));
        }
        // A module without InstanceIndex is left alone.
        let w = words(include_bytes!("../tests/data/draw.vert.spv"));
        assert!(subtract_base_instance(&w).unwrap().is_none());
    }

    #[test]
    fn refuses_garbage() {
        assert!(rewrite(&mut [1, 2, 3], false).is_err());
        let mut w = vec![MAGIC, 0x10000, 0, 10, 0, 0x0005_0047];
        assert!(matches!(
            rewrite(&mut w, false),
            Err(SpirvError::Truncated(5))
        ));
        let mut w = vec![MAGIC, 0x10000, 0, 10, 0, 0];
        assert!(rewrite(&mut w, false).is_err());
    }
}
