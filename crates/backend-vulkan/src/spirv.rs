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
//! order, so Vulkan's own point origin is GL's lower-left).

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
const OP_FSUB: u16 = 131;
const OP_LABEL: u16 = 248;
const OP_NO_LINE: u16 = 317;

const BUILTIN_POINT_COORD: u32 = 16;
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
    /// storage texel buffers (`imageBuffer`).
    pub unsupported: bool,
    /// Vertex inputs: (location, locations taken, scalar class).
    pub inputs: Vec<(u32, u32, Scalar)>,
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
    Float,
    Vector(u32),
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
                Some(Ty::Vector(c)) => t = *c,
                Some(Ty::Matrix(c, _)) => t = *c,
                Some(Ty::Array(e, _)) => t = *e,
                Some(Ty::Int(true)) => return Scalar::Int,
                Some(Ty::Int(false)) => return Scalar::Uint,
                _ => return Scalar::Float,
            }
        }
        Scalar::Float
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
                m.types.insert(a(1), Ty::Float);
            }
            OP_TYPE_VECTOR => {
                m.types.insert(a(1), Ty::Vector(a(2)));
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
/// [`IMAGE_SET`].
pub fn rewrite(words: &mut [u32]) -> Result<Reflection, SpirvError> {
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
                            r.inputs
                                .push((loc, m.locations(pointee), m.scalar_of(pointee)));
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

/// A fragment stage that reads the `PointCoord` built-in gets it with t
/// flipped: the entry point copies (s, 1 − t) into a private variable
/// first, and every load or access chain of the input reads that instead.
/// None: the module reads no `PointCoord` (nothing to do).
pub fn flip_point_coord(words: &[u32]) -> Result<Option<Vec<u32>>, SpirvError> {
    let (m, ins) = parse(words)?;
    let operand = |i: usize, k: usize| words.get(i + k).copied().unwrap_or(0);
    let Some(pc) = ins.iter().find_map(|&(i, op, n)| {
        (op == OP_DECORATE
            && n >= 4
            && operand(i, 2) == DEC_BUILTIN
            && operand(i, 3) == BUILTIN_POINT_COORD)
            .then(|| operand(i, 1))
    }) else {
        return Ok(None);
    };
    let unsupported = SpirvError::Unsupported;
    let var = ins
        .iter()
        .find(|&&(i, op, n)| op == OP_VARIABLE && n >= 4 && operand(i, 2) == pc)
        .ok_or(unsupported("PointCoord is not a variable"))?;
    let Some(Ty::Pointer(vec2)) = m.types.get(&operand(var.0, 1)).copied() else {
        return Err(unsupported("PointCoord is not a pointer"));
    };
    let Some(Ty::Vector(float)) = m.types.get(&vec2).copied() else {
        return Err(unsupported("PointCoord is not a vector"));
    };
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
    // Private pointer types are reused when the module has them (a second
    // declaration of the same type is invalid).
    let existing = |pointee: u32| {
        ins.iter().find_map(|&(i, op, n)| {
            (op == OP_TYPE_POINTER
                && n >= 4
                && operand(i, 2) == SC_PRIVATE
                && operand(i, 3) == pointee)
                .then(|| operand(i, 1))
        })
    };
    let mut bound = words[3];
    let mut fresh = || {
        bound += 1;
        bound - 1
    };
    let mut globals: Vec<u32> = Vec::new();
    let ptr_vec2 = existing(vec2).unwrap_or_else(|| {
        let id = fresh();
        globals.extend(inst(OP_TYPE_POINTER, &[id, SC_PRIVATE, vec2]));
        id
    });
    let ptr_float = existing(float).unwrap_or_else(|| {
        let id = fresh();
        globals.extend(inst(OP_TYPE_POINTER, &[id, SC_PRIVATE, float]));
        id
    });
    let (one, shadow) = (fresh(), fresh());
    globals.extend(inst(OP_CONSTANT, &[float, one, 1.0f32.to_bits()]));
    globals.extend(inst(OP_VARIABLE, &[ptr_vec2, shadow, SC_PRIVATE]));
    let (st, s, t, flipped, fixed) = (fresh(), fresh(), fresh(), fresh(), fresh());
    let mut prologue: Vec<u32> = Vec::new();
    prologue.extend(inst(OP_LOAD, &[vec2, st, pc]));
    prologue.extend(inst(OP_COMPOSITE_EXTRACT, &[float, s, st, 0]));
    prologue.extend(inst(OP_COMPOSITE_EXTRACT, &[float, t, st, 1]));
    prologue.extend(inst(OP_FSUB, &[float, flipped, one, t]));
    prologue.extend(inst(OP_COMPOSITE_CONSTRUCT, &[vec2, fixed, s, flipped]));
    prologue.extend(inst(OP_STORE, &[shadow, fixed]));
    // SPIR-V 1.4 and later list every global an entry point uses.
    let list_private = words[1] >= 0x0001_0400;

    let mut out = Vec::with_capacity(words.len() + globals.len() + prologue.len() + 1);
    out.extend_from_slice(&words[..5]);
    out[3] = bound;
    let (mut in_entry, mut pending, mut done) = (false, false, false);
    for &(i, op, n) in &ins {
        let w = &words[i..i + n];
        if i == first_fn {
            out.extend_from_slice(&globals);
        }
        if pending && !(op == OP_VARIABLE || op == OP_LINE || op == OP_NO_LINE) {
            out.extend_from_slice(&prologue);
            (pending, done) = (false, true);
        }
        match op {
            OP_ENTRY_POINT if list_private && w.get(2) == Some(&entry) => {
                out.push((((n + 1) as u32) << 16) | op as u32);
                out.extend_from_slice(&w[1..]);
                out.push(shadow);
            }
            OP_FUNCTION => {
                in_entry = w.get(2) == Some(&entry);
                out.extend_from_slice(w);
            }
            OP_LABEL => {
                pending = in_entry && !done;
                out.extend_from_slice(w);
            }
            OP_LOAD if n >= 4 && w[3] == pc => {
                out.extend_from_slice(w);
                let at = out.len() - n + 3;
                out[at] = shadow;
            }
            OP_ACCESS_CHAIN | OP_IN_BOUNDS_ACCESS_CHAIN if n >= 4 && w[3] == pc => {
                // One index picks a component: a pointer to a float.
                if n != 5 {
                    return Err(unsupported("PointCoord access chain of another depth"));
                }
                out.extend_from_slice(&[w[0], ptr_float, w[2], shadow, w[4]]);
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
        let r = rewrite(&mut w).unwrap();
        assert_eq!(r.ubos, vec![(0, 1)]);
        let mut ssbos = r.ssbos.clone();
        ssbos.sort_unstable();
        assert_eq!(ssbos, vec![(0, 1), (1, 1)]);
        assert!(r.images.is_empty() && r.samplers.is_empty() && !r.unsupported);
        assert_eq!(sets(&w), vec![UBO_SET, STORAGE_SET, STORAGE_SET]);

        // The default block and image unit 0, both at binding 0.
        let mut w = words(include_bytes!("../tests/data/image_store.comp.spv"));
        let r = rewrite(&mut w).unwrap();
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

    #[test]
    fn refuses_garbage() {
        assert!(rewrite(&mut [1, 2, 3]).is_err());
        let mut w = vec![MAGIC, 0x10000, 0, 10, 0, 0x0005_0047];
        assert!(matches!(rewrite(&mut w), Err(SpirvError::Truncated(5))));
        let mut w = vec![MAGIC, 0x10000, 0, 10, 0, 0];
        assert!(rewrite(&mut w).is_err());
    }
}
