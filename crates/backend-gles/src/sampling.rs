//! Emulation: texture sampling that desktop GL has and GLES 3.2 lacks, as
//! SPIR-V -> SPIR-V passes run on each stage before spirv-cross
//! (`shader::build_program`).
//!
//! - **1D images** ([`lower_1d_images`]): GLES has no 1D textures; the
//!   backend stores them as 2D (height 1) and 1D arrays as 2D arrays, so
//!   every `Dim1D` image type becomes `Dim2D` and each instruction using one
//!   gets a second coordinate (0.5 for normalized sampling coordinates,
//!   `0.5 * q` for projective ones, 0 for texel coordinates), a second
//!   gradient component (0) and a second offset component (0); size queries
//!   drop the height again. SPIRV-Cross widened the coordinate itself but
//!   left gradients, offsets and `textureSize` of a 1D array scalar, which
//!   ESSL refuses.
//! - **Bias / offsets on 2D array shadow samplers**
//!   ([`lower_lod`]): ESSL has neither `texture(sampler2DArrayShadow, P,
//!   bias)` nor `textureOffset` on it (desktop GL has both, and 1D array
//!   shadow samplers become 2D array ones): such an implicit-LOD lookup
//!   becomes `textureGrad(Offset)` with `dFdx`/`dFdy` of the coordinate
//!   scaled by `exp2(bias)` (the same λ).
//! - **Sampler LOD bias** (`GL_TEXTURE_LOD_BIAS`, texture or sampler
//!   object; GLES has none): a program *variant* built only when a draw
//!   finds a non-zero bias on a unit the program samples
//!   ([`lower_lod`] with `bias`): a hidden `uniform float
//!   mgl_LodBias[n]` (indexed by binding = texture unit) is added to every
//!   lookup's λ as GL 4.6 §8.14.1 says: an implicit LOD gets it as (added
//!   to) the `bias` operand, an explicit LOD has it added, explicit
//!   gradients are scaled by `2^bias`. Programs without a biased sampler
//!   keep the untouched program: no per-draw cost beyond one counter test.
//!   A function taking a sampler gets a float parameter with its bias,
//!   passed by every call. Not biased: arrays of samplers passed to
//!   functions, and `samplerCubeArrayShadow` implicit lookups (no gradient
//!   form in ESSL).

use rspirv::dr::{self, Instruction, Operand};
use rspirv::spirv::{Capability, Decoration, Dim, ImageOperands, Op, StorageClass, Word};
use rustc_hash::FxHashMap;

/// The name of the hidden bias array a biased variant declares.
pub const LOD_BIAS_UNIFORM: &str = "mgl_LodBias";

const OP_TYPE_IMAGE: u32 = 25;
const DIM_1D: u32 = 0;

/// Whether the module declares a 1D image type (a cheap word scan: most
/// modules skip [`lower_1d_images`] entirely).
pub fn uses_1d_images(words: &[u32]) -> bool {
    crate::shader::instructions(words)
        .any(|(_, op, ins)| op == OP_TYPE_IMAGE && ins.len() >= 4 && ins[3] == DIM_1D)
}

/// Whether [`lower_lod`] without bias may change the module: it has an
/// implicit-LOD depth-compare lookup (a cheap word scan).
pub fn may_need_lod_fix(words: &[u32]) -> bool {
    const OP_IMAGE_SAMPLE_DREF_IMPLICIT_LOD: u32 = 89;
    crate::shader::instructions(words).any(|(_, op, _)| op == OP_IMAGE_SAMPLE_DREF_IMPLICIT_LOD)
}

/// Image-operand bits in operand order, with their id counts.
const IMAGE_OPERAND_BITS: [(u32, usize); 8] = [
    (0x1, 1),  // Bias
    (0x2, 1),  // Lod
    (0x4, 2),  // Grad
    (0x8, 1),  // ConstOffset
    (0x10, 1), // Offset
    (0x20, 1), // ConstOffsets
    (0x40, 1), // Sample
    (0x80, 1), // MinLod
];
const BIAS: u32 = 0x1;
const LOD: u32 = 0x2;
const GRAD: u32 = 0x4;
const CONST_OFFSET: u32 = 0x8;
const OFFSET: u32 = 0x10;

/// An image instruction's optional operands: mask and, per bit, the ids.
#[derive(Default, Clone)]
struct ImageOps {
    mask: u32,
    ids: FxHashMap<u32, Vec<Word>>,
}

impl ImageOps {
    /// Parses operands from `at` (the mask position). None: a form this
    /// pass does not know (other bits, literals).
    fn parse(operands: &[Operand], at: usize) -> Option<Self> {
        let Some(first) = operands.get(at) else {
            return Some(Self::default());
        };
        let Operand::ImageOperands(m) = first else {
            return None;
        };
        let mask = m.bits();
        let mut out = Self {
            mask,
            ids: FxHashMap::default(),
        };
        let mut k = at + 1;
        for (bit, n) in IMAGE_OPERAND_BITS {
            if mask & bit == 0 {
                continue;
            }
            let mut v = Vec::with_capacity(n);
            for _ in 0..n {
                match operands.get(k) {
                    Some(Operand::IdRef(id)) => v.push(*id),
                    _ => return None,
                }
                k += 1;
            }
            out.ids.insert(bit, v);
        }
        let known: u32 = IMAGE_OPERAND_BITS.iter().map(|b| b.0).sum();
        (mask & !known == 0 && k == operands.len()).then_some(out)
    }

    fn get(&self, bit: u32) -> Option<&[Word]> {
        self.ids.get(&bit).map(Vec::as_slice)
    }

    fn set(&mut self, bit: u32, ids: Vec<Word>) {
        self.mask |= bit;
        self.ids.insert(bit, ids);
    }

    fn clear(&mut self, bit: u32) {
        self.mask &= !bit;
        self.ids.remove(&bit);
    }

    fn write(&self, operands: &mut Vec<Operand>) {
        if self.mask == 0 {
            return;
        }
        operands.push(Operand::ImageOperands(ImageOperands::from_bits_retain(
            self.mask,
        )));
        for (bit, _) in IMAGE_OPERAND_BITS {
            if let Some(ids) = self.ids.get(&bit) {
                operands.extend(ids.iter().map(|&i| Operand::IdRef(i)));
            }
        }
    }
}

/// A type this pass reasons about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    Float,
    Int(bool),
    Vector(Word, u32),
    /// dim, depth (1: yes), arrayed
    Image(Dim, u32, bool),
    SampledImage(Word),
    Other,
}

/// The editing state shared by both passes.
struct Ed {
    m: dr::Module,
    bound: Word,
    /// Types and constants by (op, result type, operands): found or added.
    cache: FxHashMap<(Op, Option<Word>, Vec<Operand>), Word>,
    new_globals: Vec<Instruction>,
    ty: FxHashMap<Word, Ty>,
    /// Result id -> its type id (every instruction with both).
    type_of: FxHashMap<Word, Word>,
    /// Result id -> (op, operands) of function-body instructions that
    /// locate a sampler: loads and access chains.
    defs: FxHashMap<Word, (Op, Vec<Operand>)>,
    /// Variable -> binding.
    bindings: FxHashMap<Word, u32>,
    glsl: Option<Word>,
    /// Bias variant: a sampler function parameter -> the float parameter
    /// added next to it carrying its bias.
    param_bias: FxHashMap<Word, Word>,
}

fn id_of(o: &Operand) -> Option<Word> {
    match o {
        Operand::IdRef(i) => Some(*i),
        _ => None,
    }
}

fn lit(o: Option<&Operand>) -> Option<u32> {
    match o? {
        Operand::LiteralBit32(v) => Some(*v),
        _ => None,
    }
}

impl Ed {
    fn new(words: &[u32]) -> Option<Self> {
        if !crate::shader::well_formed(words) {
            return None;
        }
        let m = dr::load_words(words).ok()?;
        let bound = m.header.as_ref()?.bound;
        let mut ed = Ed {
            m,
            bound,
            cache: FxHashMap::default(),
            new_globals: Vec::new(),
            ty: FxHashMap::default(),
            type_of: FxHashMap::default(),
            defs: FxHashMap::default(),
            bindings: FxHashMap::default(),
            glsl: None,
            param_bias: FxHashMap::default(),
        };
        ed.scan();
        Some(ed)
    }

    fn scan(&mut self) {
        for ins in &self.m.ext_inst_imports {
            if matches!(ins.operands.first(), Some(Operand::LiteralString(s)) if s == "GLSL.std.450")
            {
                self.glsl = ins.result_id;
            }
        }
        for ins in &self.m.annotations {
            if ins.class.opcode == Op::Decorate
                && matches!(
                    ins.operands.get(1),
                    Some(Operand::Decoration(Decoration::Binding))
                )
            {
                if let (Some(v), Some(b)) = (
                    ins.operands.first().and_then(id_of),
                    lit(ins.operands.get(2)),
                ) {
                    self.bindings.insert(v, b);
                }
            }
        }
        for ins in &self.m.types_global_values {
            let Some(id) = ins.result_id else { continue };
            if let Some(t) = ins.result_type {
                self.type_of.insert(id, t);
            }
            let o = &ins.operands;
            let t = match ins.class.opcode {
                Op::TypeFloat if lit(o.first()) == Some(32) => Ty::Float,
                Op::TypeInt if lit(o.first()) == Some(32) => Ty::Int(lit(o.get(1)) == Some(1)),
                Op::TypeVector => match (o.first().and_then(id_of), lit(o.get(1))) {
                    (Some(c), Some(n)) => Ty::Vector(c, n),
                    _ => Ty::Other,
                },
                Op::TypeImage => match (o.get(1), lit(o.get(2)), lit(o.get(3))) {
                    (Some(Operand::Dim(d)), Some(depth), Some(arr)) => {
                        Ty::Image(*d, depth, arr == 1)
                    }
                    _ => Ty::Other,
                },
                Op::TypeSampledImage => match o.first().and_then(id_of) {
                    Some(i) => Ty::SampledImage(i),
                    None => Ty::Other,
                },
                _ => {
                    if matches!(
                        ins.class.opcode,
                        Op::TypeVoid
                            | Op::TypeBool
                            | Op::TypeMatrix
                            | Op::TypeArray
                            | Op::TypeRuntimeArray
                            | Op::TypeStruct
                            | Op::TypePointer
                            | Op::TypeFunction
                            | Op::TypeSampler
                            | Op::Constant
                            | Op::ConstantComposite
                            | Op::ConstantTrue
                            | Op::ConstantFalse
                            | Op::ConstantNull
                    ) {
                        self.cache
                            .entry((ins.class.opcode, ins.result_type, o.clone()))
                            .or_insert(id);
                    }
                    continue;
                }
            };
            self.ty.insert(id, t);
            self.cache
                .entry((ins.class.opcode, ins.result_type, o.clone()))
                .or_insert(id);
        }
        for f in &self.m.functions {
            for ins in f
                .parameters
                .iter()
                .chain(f.blocks.iter().flat_map(|b| b.instructions.iter()))
            {
                if let (Some(t), Some(id)) = (ins.result_type, ins.result_id) {
                    self.type_of.insert(id, t);
                    if matches!(
                        ins.class.opcode,
                        Op::Load | Op::AccessChain | Op::InBoundsAccessChain
                    ) {
                        self.defs
                            .insert(id, (ins.class.opcode, ins.operands.clone()));
                    }
                }
            }
        }
    }

    fn fresh(&mut self) -> Word {
        let id = self.bound;
        self.bound += 1;
        id
    }

    fn global(&mut self, op: Op, rt: Option<Word>, operands: Vec<Operand>) -> Word {
        let key = (op, rt, operands);
        if let Some(&id) = self.cache.get(&key) {
            return id;
        }
        let id = self.fresh();
        self.new_globals
            .push(Instruction::new(op, rt, Some(id), key.2.clone()));
        self.cache.insert(key, id);
        id
    }

    fn t_float(&mut self) -> Word {
        let id = self.global(Op::TypeFloat, None, vec![Operand::LiteralBit32(32)]);
        self.ty.insert(id, Ty::Float);
        id
    }

    fn t_int(&mut self, signed: bool) -> Word {
        let id = self.global(
            Op::TypeInt,
            None,
            vec![
                Operand::LiteralBit32(32),
                Operand::LiteralBit32(signed as u32),
            ],
        );
        self.ty.insert(id, Ty::Int(signed));
        id
    }

    fn t_vec(&mut self, comp: Word, n: u32) -> Word {
        let id = self.global(
            Op::TypeVector,
            None,
            vec![Operand::IdRef(comp), Operand::LiteralBit32(n)],
        );
        self.ty.insert(id, Ty::Vector(comp, n));
        id
    }

    fn constant(&mut self, ty: Word, bits: u32) -> Word {
        self.global(Op::Constant, Some(ty), vec![Operand::LiteralBit32(bits)])
    }

    fn glsl_set(&mut self) -> Word {
        if let Some(g) = self.glsl {
            return g;
        }
        let id = self.fresh();
        self.m.ext_inst_imports.push(Instruction::new(
            Op::ExtInstImport,
            None,
            Some(id),
            vec![Operand::LiteralString("GLSL.std.450".into())],
        ));
        self.glsl = Some(id);
        id
    }

    /// The type of a value, resolved to [`Ty`].
    fn ty_of_value(&self, v: Word) -> Option<Ty> {
        self.type_of.get(&v).and_then(|t| self.ty.get(t)).copied()
    }

    /// The image type (dim, depth, arrayed) behind a sampled-image or
    /// image value.
    fn image_of(&self, v: Word) -> Option<(Dim, u32, bool)> {
        match self.ty_of_value(v)? {
            Ty::SampledImage(i) => match self.ty.get(&i)? {
                Ty::Image(d, depth, arr) => Some((*d, *depth, *arr)),
                _ => None,
            },
            Ty::Image(d, depth, arr) => Some((d, depth, arr)),
            _ => None,
        }
    }

    /// (binding, dynamic index) of the sampler a sampled-image value was
    /// loaded from: a variable, or one index into an array variable.
    fn sampler_binding(&self, v: Word) -> Option<(u32, Option<Word>)> {
        let (op, o) = self.defs.get(&v)?;
        if *op != Op::Load {
            return None;
        }
        let p = o.first().and_then(id_of)?;
        if let Some(&b) = self.bindings.get(&p) {
            return Some((b, None));
        }
        match self.defs.get(&p)? {
            (Op::AccessChain | Op::InBoundsAccessChain, o) if o.len() == 2 => {
                let base = o[0].clone();
                let b = *self.bindings.get(&id_of(&base)?)?;
                Some((b, Some(id_of(&o[1])?)))
            }
            _ => None,
        }
    }

    fn finish(mut self) -> Vec<u32> {
        let globals = std::mem::take(&mut self.new_globals);
        self.m.types_global_values.extend(globals);
        if let Some(h) = self.m.header.as_mut() {
            h.bound = self.bound;
        }
        use rspirv::binary::Assemble;
        self.m.assemble()
    }
}

/// Emits one instruction into `out` and returns its result id.
fn emit(ed: &mut Ed, out: &mut Vec<Instruction>, op: Op, ty: Word, operands: Vec<Operand>) -> Word {
    let id = ed.fresh();
    ed.type_of.insert(id, ty);
    out.push(Instruction::new(op, Some(ty), Some(id), operands));
    id
}

fn ids(v: &[Word]) -> Vec<Operand> {
    v.iter().map(|&i| Operand::IdRef(i)).collect()
}

/// Emulation (see the module note): `Dim1D` images become `Dim2D`, with
/// every coordinate, gradient, offset and size query of them widened.
/// None: nothing to lower, or a module this pass cannot read.
pub fn lower_1d_images(words: &[u32]) -> Option<Vec<u32>> {
    if !uses_1d_images(words) {
        return None;
    }
    let mut ed = Ed::new(words)?;
    // The 1D image types, turned 2D in place (ids kept).
    let mut one_d: Vec<Word> = Vec::new();
    for ins in &mut ed.m.types_global_values {
        if ins.class.opcode == Op::TypeImage
            && matches!(ins.operands.get(1), Some(Operand::Dim(Dim::Dim1D)))
        {
            ins.operands[1] = Operand::Dim(Dim::Dim2D);
            if let Some(id) = ins.result_id {
                one_d.push(id);
            }
        }
    }
    for id in &one_d {
        if let Some(Ty::Image(d, ..)) = ed.ty.get_mut(id) {
            *d = Dim::Dim2D;
        }
    }
    ed.m.capabilities.retain(|c| {
        !matches!(
            c.operands.first(),
            Some(Operand::Capability(
                Capability::Sampled1D | Capability::Image1D
            ))
        )
    });
    // Pointer types to images (OpImageTexelPointer takes the variable or
    // an access chain, not a loaded image): pointer -> image type.
    let pointee: FxHashMap<Word, Word> =
        ed.m.types_global_values
            .iter()
            .filter(|i| i.class.opcode == Op::TypePointer)
            .filter_map(|i| Some((i.result_id?, i.operands.get(1).and_then(id_of)?)))
            .collect();
    let is_1d = |ed: &Ed, v: Word| -> Option<bool> {
        let mut t = *ed.type_of.get(&v)?;
        if let Some(&img) = pointee.get(&t) {
            t = img;
        }
        let img = match ed.ty.get(&t)? {
            Ty::SampledImage(i) => *i,
            Ty::Image(..) => t,
            _ => return None,
        };
        if !one_d.contains(&img) {
            return None;
        }
        match ed.ty.get(&img)? {
            Ty::Image(_, _, arr) => Some(*arr),
            _ => None,
        }
    };
    let mut functions = std::mem::take(&mut ed.m.functions);
    for f in &mut functions {
        for b in &mut f.blocks {
            let mut out = Vec::with_capacity(b.instructions.len() + 8);
            for ins in std::mem::take(&mut b.instructions) {
                let op = ins.class.opcode;
                let arrayed = ins
                    .operands
                    .first()
                    .and_then(id_of)
                    .and_then(|v| is_1d(&ed, v));
                match (arrayed, op) {
                    (Some(arrayed), _) if widen_image_op(&mut ed, &mut out, &ins, arrayed) => {}
                    _ => out.push(ins),
                }
            }
            b.instructions = out;
        }
    }
    ed.m.functions = functions;
    Some(ed.finish())
}

/// Widens one instruction on a (former) 1D image into `out`. False: not
/// an instruction this pass changes (it is then kept as is).
fn widen_image_op(
    ed: &mut Ed,
    out: &mut Vec<Instruction>,
    ins: &Instruction,
    arrayed: bool,
) -> bool {
    let op = ins.class.opcode;
    let (proj, dref, texel) = match op {
        Op::ImageSampleImplicitLod | Op::ImageSampleExplicitLod => (false, false, false),
        Op::ImageSampleDrefImplicitLod | Op::ImageSampleDrefExplicitLod => (false, true, false),
        Op::ImageSampleProjImplicitLod | Op::ImageSampleProjExplicitLod => (true, false, false),
        Op::ImageSampleProjDrefImplicitLod | Op::ImageSampleProjDrefExplicitLod => {
            (true, true, false)
        }
        Op::ImageFetch | Op::ImageRead => (false, false, true),
        Op::ImageWrite | Op::ImageTexelPointer => (false, false, true),
        Op::ImageQueryLod => (false, false, false),
        Op::ImageQuerySize | Op::ImageQuerySizeLod => {
            return widen_size_query(ed, out, ins, arrayed);
        }
        _ => return false,
    };
    let Some(coord) = ins.operands.get(1).and_then(id_of) else {
        return false;
    };
    let mask_at = match op {
        Op::ImageWrite => 3,
        Op::ImageQueryLod | Op::ImageTexelPointer => usize::MAX,
        _ if dref => 3,
        _ => 2,
    };
    let mut extra = if mask_at == usize::MAX {
        Some(ImageOps::default())
    } else {
        ImageOps::parse(&ins.operands, mask_at)
    };
    let Some(extra) = extra.as_mut() else {
        return false;
    };
    // The coordinate's components.
    let Some(cty) = ed.ty_of_value(coord) else {
        return false;
    };
    let (comp_ty, n) = match cty {
        Ty::Vector(c, n) => (c, n),
        Ty::Float | Ty::Int(_) => (*ed.type_of.get(&coord).unwrap_or(&0), 1),
        _ => return false,
    };
    let comp = match ed.ty.get(&comp_ty) {
        Some(t @ (Ty::Float | Ty::Int(_))) => *t,
        _ => return false,
    };
    let needed = 1 + arrayed as u32 + proj as u32;
    if n < needed {
        return false;
    }
    let mut parts: Vec<Word> = Vec::with_capacity(needed as usize + 1);
    for k in 0..needed {
        parts.push(if n == 1 {
            coord
        } else {
            emit(
                ed,
                out,
                Op::CompositeExtract,
                comp_ty,
                vec![Operand::IdRef(coord), Operand::LiteralBit32(k)],
            )
        });
    }
    // The new second coordinate.
    let second = match comp {
        Ty::Float if texel => return false,
        Ty::Float if proj => {
            let half = ed.constant(comp_ty, 0.5f32.to_bits());
            let q = parts[needed as usize - 1];
            emit(ed, out, Op::FMul, comp_ty, ids(&[q, half]))
        }
        Ty::Float if op == Op::ImageQueryLod => ed.constant(comp_ty, 0.5f32.to_bits()),
        Ty::Float => ed.constant(comp_ty, 0.5f32.to_bits()),
        _ => ed.constant(comp_ty, 0),
    };
    parts.insert(1, second);
    let wide_ty = ed.t_vec(comp_ty, needed + 1);
    let wide = emit(ed, out, Op::CompositeConstruct, wide_ty, ids(&parts));
    // Gradients and offsets get a zero second component.
    if let Some(g) = extra.get(GRAD).map(<[Word]>::to_vec) {
        let mut w = Vec::new();
        for d in g {
            let Some(Ty::Float) = ed.ty_of_value(d) else {
                return false;
            };
            let fty = ed.type_of[&d];
            let zero = ed.constant(fty, 0);
            let v2 = ed.t_vec(fty, 2);
            w.push(emit(ed, out, Op::CompositeConstruct, v2, ids(&[d, zero])));
        }
        extra.set(GRAD, w);
    }
    for bit in [CONST_OFFSET, OFFSET] {
        let Some(&[o]) = extra.get(bit) else { continue };
        let Some(Ty::Int(_)) = ed.ty_of_value(o) else {
            return false;
        };
        let ity = ed.type_of[&o];
        let zero = ed.constant(ity, 0);
        let v2 = ed.t_vec(ity, 2);
        let w = if bit == CONST_OFFSET {
            ed.global(Op::ConstantComposite, Some(v2), ids(&[o, zero]))
        } else {
            emit(ed, out, Op::CompositeConstruct, v2, ids(&[o, zero]))
        };
        extra.set(bit, vec![w]);
    }
    let mut operands = ins.operands.clone();
    operands[1] = Operand::IdRef(wide);
    if mask_at != usize::MAX {
        operands.truncate(mask_at);
        extra.write(&mut operands);
    }
    out.push(Instruction::new(
        op,
        ins.result_type,
        ins.result_id,
        operands,
    ));
    true
}

/// `textureSize` / `imageSize` of a former 1D image: the 2D query, then
/// the width (1D) or (width, layers) (1D array).
fn widen_size_query(
    ed: &mut Ed,
    out: &mut Vec<Instruction>,
    ins: &Instruction,
    arrayed: bool,
) -> bool {
    let (Some(rt), Some(rid)) = (ins.result_type, ins.result_id) else {
        return false;
    };
    let comp_ty = match ed.ty.get(&rt) {
        Some(Ty::Int(_)) => rt,
        Some(Ty::Vector(c, 2)) if arrayed => *c,
        _ => return false,
    };
    let wide_ty = ed.t_vec(comp_ty, if arrayed { 3 } else { 2 });
    let wide = emit(ed, out, ins.class.opcode, wide_ty, ins.operands.clone());
    if arrayed {
        out.push(Instruction::new(
            Op::VectorShuffle,
            Some(rt),
            Some(rid),
            vec![
                Operand::IdRef(wide),
                Operand::IdRef(wide),
                Operand::LiteralBit32(0),
                Operand::LiteralBit32(2),
            ],
        ));
    } else {
        out.push(Instruction::new(
            Op::CompositeExtract,
            Some(rt),
            Some(rid),
            vec![Operand::IdRef(wide), Operand::LiteralBit32(0)],
        ));
    }
    true
}

/// The texture units (bindings) a module samples with a computed or
/// explicit LOD, as a bit mask (bit i: binding i, bindings < 32): what a
/// sampler LOD bias can change. Arrays of samplers count from their
/// binding to 32.
pub fn lod_units(words: &[u32]) -> u32 {
    let Some(ed) = Ed::new(words) else { return 0 };
    let mut mask = 0u32;
    let mut unresolved = false;
    for f in &ed.m.functions {
        for b in &f.blocks {
            for ins in &b.instructions {
                if !is_lod_sample(ins.class.opcode) {
                    continue;
                }
                let Some(si) = ins.operands.first().and_then(id_of) else {
                    continue;
                };
                match ed.sampler_binding(si) {
                    Some((b, None)) if b < 32 => mask |= 1 << b,
                    Some((b, Some(_))) if b < 32 => mask |= u32::MAX << b,
                    Some(_) => {}
                    // Through a function parameter: any sampler may reach it.
                    None => unresolved = true,
                }
            }
        }
    }
    if unresolved {
        for &b in ed.bindings.values() {
            if b < 32 {
                mask |= 1 << b;
            }
        }
    }
    mask
}

fn is_lod_sample(op: Op) -> bool {
    matches!(
        op,
        Op::ImageSampleImplicitLod
            | Op::ImageSampleExplicitLod
            | Op::ImageSampleDrefImplicitLod
            | Op::ImageSampleDrefExplicitLod
            | Op::ImageSampleProjImplicitLod
            | Op::ImageSampleProjExplicitLod
            | Op::ImageSampleProjDrefImplicitLod
            | Op::ImageSampleProjDrefExplicitLod
    )
}

/// Emulation (see the module note): implicit-LOD lookups on 2D array
/// shadow samplers with a bias or an offset become gradient lookups
/// (always: ESSL has no such overloads), and with `bias` (a variant for
/// sampler LOD bias) every LOD-using lookup of a sampler with a known
/// binding reads `mgl_LodBias[binding]`. `fragment`: implicit LODs exist
/// (other stages have only explicit ones). None: nothing changed.
pub fn lower_lod(words: &[u32], fragment: bool, bias: bool) -> Option<Vec<u32>> {
    let mut ed = Ed::new(words)?;
    // Anything to do at all?
    let any =
        ed.m.functions
            .iter()
            .flat_map(|f| f.blocks.iter())
            .flat_map(|b| b.instructions.iter())
            .any(|ins| {
                let op = ins.class.opcode;
                if !is_lod_sample(op) {
                    return false;
                }
                bias || array_shadow_fix(&ed, ins)
            });
    if !any {
        return None;
    }
    // The bias array: float mgl_LodBias[32] (UniformConstant).
    let bias_var = if bias {
        let f = ed.t_float();
        let u = ed.t_int(false);
        let n = ed.constant(u, 32);
        let arr = ed.global(Op::TypeArray, None, ids(&[f, n]));
        let parr = ed.global(
            Op::TypePointer,
            None,
            vec![
                Operand::StorageClass(StorageClass::UniformConstant),
                Operand::IdRef(arr),
            ],
        );
        let pf = ed.global(
            Op::TypePointer,
            None,
            vec![
                Operand::StorageClass(StorageClass::UniformConstant),
                Operand::IdRef(f),
            ],
        );
        let var = ed.fresh();
        ed.new_globals.push(Instruction::new(
            Op::Variable,
            Some(parr),
            Some(var),
            vec![Operand::StorageClass(StorageClass::UniformConstant)],
        ));
        ed.m.debug_names.push(Instruction::new(
            Op::Name,
            None,
            None,
            vec![
                Operand::IdRef(var),
                Operand::LiteralString(LOD_BIAS_UNIFORM.into()),
            ],
        ));
        // SPIR-V 1.4+: every global a entry point uses is in its interface.
        let v14 =
            ed.m.header
                .as_ref()
                .is_some_and(|h| h.version >= 0x0001_0400);
        if v14 {
            for ep in &mut ed.m.entry_points {
                ep.operands.push(Operand::IdRef(var));
            }
        }
        Some((var, pf, f))
    } else {
        None
    };
    let mut functions = std::mem::take(&mut ed.m.functions);
    // Bias variant: each sampler parameter of a function gets a float
    // parameter with its bias, which every call passes.
    let mut sampler_params: FxHashMap<Word, Vec<usize>> = FxHashMap::default();
    if let Some((_, _, f)) = bias_var {
        for func in &mut functions {
            let found: Vec<(usize, Word)> = func
                .parameters
                .iter()
                .enumerate()
                .filter(|(_, p)| p.result_type.is_some_and(|t| is_sampler_type(&ed, t)))
                .filter_map(|(i, p)| Some((i, p.result_id?)))
                .collect();
            let (Some(def), false) = (func.def.as_mut(), found.is_empty()) else {
                continue;
            };
            let (Some(fid), Some(old_ty)) = (def.result_id, def.operands.get(1).and_then(id_of))
            else {
                continue;
            };
            let Some(mut ty_ops) =
                ed.m.types_global_values
                    .iter()
                    .find(|t| t.result_id == Some(old_ty) && t.class.opcode == Op::TypeFunction)
                    .map(|t| t.operands.clone())
            else {
                continue;
            };
            ty_ops.extend(found.iter().map(|_| Operand::IdRef(f)));
            let new_ty = ed.global(Op::TypeFunction, None, ty_ops);
            def.operands[1] = Operand::IdRef(new_ty);
            for &(_, pid) in &found {
                let b = ed.fresh();
                ed.type_of.insert(b, f);
                ed.param_bias.insert(pid, b);
                func.parameters.push(Instruction::new(
                    Op::FunctionParameter,
                    Some(f),
                    Some(b),
                    vec![],
                ));
            }
            sampler_params.insert(fid, found.into_iter().map(|(i, _)| i).collect());
        }
    }
    let mut changed = !sampler_params.is_empty();
    for func in &mut functions {
        for b in &mut func.blocks {
            let mut out = Vec::with_capacity(b.instructions.len() + 8);
            for mut ins in std::mem::take(&mut b.instructions) {
                if ins.class.opcode == Op::FunctionCall {
                    let callee = ins.operands.first().and_then(id_of);
                    if let Some(params) = callee.and_then(|c| sampler_params.get(&c)).cloned() {
                        for k in params {
                            let arg = ins.operands.get(1 + k).and_then(id_of);
                            let bias = arg.and_then(|a| bias_of(&mut ed, &mut out, a, bias_var));
                            let bias = match bias {
                                Some(v) => v,
                                None => {
                                    let f = ed.t_float();
                                    ed.constant(f, 0)
                                }
                            };
                            ins.operands.push(Operand::IdRef(bias));
                        }
                    }
                    out.push(ins);
                } else if is_lod_sample(ins.class.opcode)
                    && rewrite_lod(&mut ed, &mut out, &ins, fragment, bias_var)
                {
                    changed = true;
                } else {
                    out.push(ins);
                }
            }
            b.instructions = out;
        }
    }

    ed.m.functions = functions;
    changed.then(|| ed.finish())
}

/// Whether `t` is a sampled-image type or a pointer to one (how glslang
/// passes samplers to functions).
fn is_sampler_type(ed: &Ed, t: Word) -> bool {
    if matches!(ed.ty.get(&t), Some(Ty::SampledImage(_))) {
        return true;
    }
    ed.m.types_global_values.iter().any(|i| {
        i.result_id == Some(t)
            && i.class.opcode == Op::TypePointer
            && i.operands
                .get(1)
                .and_then(id_of)
                .is_some_and(|p| matches!(ed.ty.get(&p), Some(Ty::SampledImage(_))))
    })
}

/// The bias of the sampler behind `v` (a sampled-image value, a pointer
/// to one, or a sampler parameter), loaded into `out`: from
/// `mgl_LodBias[binding (+ index)]`, or the bias parameter of a function
/// parameter. None: not known.
fn bias_of(
    ed: &mut Ed,
    out: &mut Vec<Instruction>,
    v: Word,
    bias_var: Option<(Word, Word, Word)>,
) -> Option<Word> {
    let (var, pf, f) = bias_var?;
    if let Some(&b) = ed.param_bias.get(&v) {
        return Some(b);
    }
    let (binding, dynamic) = if let Some(&b) = ed.bindings.get(&v) {
        (b, None)
    } else {
        match ed.defs.get(&v) {
            Some((Op::Load, o)) => {
                let p = o.first().and_then(id_of)?;
                return bias_of(ed, out, p, bias_var);
            }
            Some((Op::AccessChain | Op::InBoundsAccessChain, o)) if o.len() == 2 => {
                let b = *ed.bindings.get(&id_of(&o[0])?)?;
                (b, Some(id_of(&o[1])?))
            }
            _ => return None,
        }
    };
    let index = match dynamic {
        None => {
            let i = ed.t_int(true);
            ed.constant(i, binding)
        }
        Some(d) => {
            let dt = ed.type_of.get(&d).copied()?;
            let b = ed.constant(dt, binding);
            emit(ed, out, Op::IAdd, dt, ids(&[b, d]))
        }
    };
    let p = emit(ed, out, Op::AccessChain, pf, ids(&[var, index]));
    Some(emit(ed, out, Op::Load, f, ids(&[p])))
}

/// Whether a lookup is an implicit-LOD one on a 2D array shadow sampler
/// with a bias or an offset (no ESSL overload).
fn array_shadow_fix(ed: &Ed, ins: &Instruction) -> bool {
    let op = ins.class.opcode;
    if op != Op::ImageSampleDrefImplicitLod {
        return false;
    }
    let Some((Dim::Dim2D, _, true)) = ins
        .operands
        .first()
        .and_then(id_of)
        .and_then(|s| ed.image_of(s))
    else {
        return false;
    };
    ImageOps::parse(&ins.operands, 3).is_some_and(|e| e.mask & (BIAS | CONST_OFFSET | OFFSET) != 0)
}

fn rewrite_lod(
    ed: &mut Ed,
    out: &mut Vec<Instruction>,
    ins: &Instruction,
    fragment: bool,
    bias_var: Option<(Word, Word, Word)>,
) -> bool {
    let op = ins.class.opcode;
    let dref = matches!(
        op,
        Op::ImageSampleDrefImplicitLod
            | Op::ImageSampleDrefExplicitLod
            | Op::ImageSampleProjDrefImplicitLod
            | Op::ImageSampleProjDrefExplicitLod
    );
    let implicit = matches!(
        op,
        Op::ImageSampleImplicitLod
            | Op::ImageSampleDrefImplicitLod
            | Op::ImageSampleProjImplicitLod
            | Op::ImageSampleProjDrefImplicitLod
    );
    let mask_at = if dref { 3 } else { 2 };
    let Some(si) = ins.operands.first().and_then(id_of) else {
        return false;
    };
    let Some(mut extra) = ImageOps::parse(&ins.operands, mask_at) else {
        return false;
    };
    let Some(image) = ed.image_of(si) else {
        return false;
    };
    let fix = array_shadow_fix(ed, ins);
    if implicit && !fragment {
        return false;
    }
    // The sampler's bias value, loaded here.
    let sampler_bias = match bias_var {
        Some((_, _, f)) => bias_of(ed, out, si, bias_var).map(|b| (b, f)),
        None => None,
    };
    if sampler_bias.is_none() && !fix {
        return false;
    }
    let mut new_op = op;
    if implicit {
        let total = match (sampler_bias, extra.get(BIAS).map(|b| b[0])) {
            (Some((s, f)), Some(b)) => Some(emit(ed, out, Op::FAdd, f, ids(&[b, s]))),
            (Some((s, _)), None) => Some(s),
            (None, b) => b,
        };
        // ESSL has no bias overload for 2D array shadow samplers.
        let array_shadow = dref && matches!(image, (Dim::Dim2D, _, true));
        if fix || (array_shadow && total.is_some()) {
            // textureGrad(Offset): derivatives of (u, v) scaled by 2^bias.
            let Some(coord) = ins.operands.get(1).and_then(id_of) else {
                return false;
            };
            let Some(Ty::Vector(fty, n)) = ed.ty_of_value(coord) else {
                return false;
            };
            if n < 3 {
                return false;
            }
            let v2 = ed.t_vec(fty, 2);
            let uv = emit(
                ed,
                out,
                Op::VectorShuffle,
                v2,
                vec![
                    Operand::IdRef(coord),
                    Operand::IdRef(coord),
                    Operand::LiteralBit32(0),
                    Operand::LiteralBit32(1),
                ],
            );
            let mut dx = emit(ed, out, Op::DPdx, v2, ids(&[uv]));
            let mut dy = emit(ed, out, Op::DPdy, v2, ids(&[uv]));
            if let Some(t) = total {
                let glsl = ed.glsl_set();
                let scale = emit(
                    ed,
                    out,
                    Op::ExtInst,
                    fty,
                    vec![
                        Operand::IdRef(glsl),
                        Operand::LiteralExtInstInteger(29),
                        Operand::IdRef(t),
                    ],
                );
                dx = emit(ed, out, Op::VectorTimesScalar, v2, ids(&[dx, scale]));
                dy = emit(ed, out, Op::VectorTimesScalar, v2, ids(&[dy, scale]));
            }
            extra.clear(BIAS);
            extra.set(GRAD, vec![dx, dy]);
            new_op = Op::ImageSampleDrefExplicitLod;
        } else {
            // No bias overload for cube array shadow samplers in ESSL.
            if dref && matches!(image, (Dim::DimCube, _, true)) {
                return false;
            }
            let Some(t) = total else { return false };
            extra.set(BIAS, vec![t]);
        }
    } else if let Some((s, f)) = sampler_bias {
        if let Some(&[lod]) = extra.get(LOD) {
            let l = emit(ed, out, Op::FAdd, f, ids(&[lod, s]));
            extra.set(LOD, vec![l]);
        } else if let Some(&[dx, dy]) = extra.get(GRAD) {
            let glsl = ed.glsl_set();
            let scale = emit(
                ed,
                out,
                Op::ExtInst,
                f,
                vec![
                    Operand::IdRef(glsl),
                    Operand::LiteralExtInstInteger(29),
                    Operand::IdRef(s),
                ],
            );
            let mut scaled = Vec::with_capacity(2);
            for d in [dx, dy] {
                let dt = ed.type_of.get(&d).copied().unwrap_or(0);
                let o = if matches!(ed.ty.get(&dt), Some(Ty::Vector(..))) {
                    Op::VectorTimesScalar
                } else {
                    Op::FMul
                };
                scaled.push(emit(ed, out, o, dt, ids(&[d, scale])));
            }
            extra.set(GRAD, scaled);
        } else {
            return false;
        }
    } else {
        return false;
    }
    let mut operands = ins.operands.clone();
    operands.truncate(mask_at);
    extra.write(&mut operands);
    out.push(Instruction::new(
        new_op,
        ins.result_type,
        ins.result_id,
        operands,
    ));
    true
}

/// Where [`qualify_storage_images`] binds the write-only alias of a
/// read-write image of binding `b`: image unit `b + IMAGE_ALIAS_OFFSET`
/// (the frontend's units are 0..8; `Cx::apply_images` binds each unit's
/// texture to its alias unit too when the driver has 16 units).
pub const IMAGE_ALIAS_OFFSET: u32 = 8;

/// Whether the module declares a storage image of a format ESSL lets
/// only `readonly` / `writeonly` images have (a cheap word scan).
pub fn may_need_image_qualifiers(words: &[u32]) -> bool {
    // OpTypeImage: result, sampled type, dim, depth, arrayed, ms, sampled, format.
    crate::shader::instructions(words).any(|(_, op, ins)| {
        op == OP_TYPE_IMAGE && ins.len() >= 9 && ins[7] == 2 && !matches!(ins[8], 3 | 24 | 33)
    })
}

/// Emulation: ESSL 3.20 (§4.10) lets only `r32f`, `r32i` and `r32ui`
/// storage images be both read and written; desktop GLSL lets any format.
/// Every other storage image variable without `readonly` / `writeonly`
/// gets the one its uses allow: `writeonly` when only stored to,
/// `readonly` otherwise; one both loaded and stored gets split: the
/// variable becomes `readonly` and a `writeonly` twin (same decorations,
/// binding + [`IMAGE_ALIAS_OFFSET`]) takes its `imageStore`s. The backend
/// binds the same texture level to both units, so stores and loads see
/// one memory. A variable reached in ways this pass does not follow (a
/// function argument, a copy) is left as it was.
/// None: nothing changed (or a module this pass cannot read).
pub fn qualify_storage_images(words: &[u32]) -> Option<Vec<u32>> {
    use rspirv::spirv::ImageFormat;
    if !may_need_image_qualifiers(words) {
        return None;
    }
    let mut ed = Ed::new(words)?;
    // Storage image types of a non-r32 format.
    let mut img_types: Vec<Word> = Vec::new();
    for ins in &ed.m.types_global_values {
        if ins.class.opcode == Op::TypeImage
            && lit(ins.operands.get(5)) == Some(2)
            && !matches!(
                ins.operands.get(6),
                Some(Operand::ImageFormat(
                    ImageFormat::R32f | ImageFormat::R32i | ImageFormat::R32ui
                ))
            )
        {
            img_types.extend(ins.result_id);
        }
    }
    // Arrays of them (any depth).
    let mut wrapped: FxHashMap<Word, ()> = img_types.iter().map(|&t| (t, ())).collect();
    for ins in &ed.m.types_global_values {
        if matches!(ins.class.opcode, Op::TypeArray | Op::TypeRuntimeArray)
            && ins
                .operands
                .first()
                .and_then(id_of)
                .is_some_and(|e| wrapped.contains_key(&e))
        {
            wrapped.extend(ins.result_id.map(|i| (i, ())));
        }
    }
    let ptr_types: Vec<Word> =
        ed.m.types_global_values
            .iter()
            .filter(|i| {
                i.class.opcode == Op::TypePointer
                    && matches!(
                        i.operands.first(),
                        Some(Operand::StorageClass(StorageClass::UniformConstant))
                    )
                    && i.operands
                        .get(1)
                        .and_then(id_of)
                        .is_some_and(|p| wrapped.contains_key(&p))
            })
            .filter_map(|i| i.result_id)
            .collect();
    // Candidate variables: none of NonReadable / NonWritable yet.
    let mut vars: Vec<(Word, Word)> = Vec::new();
    for ins in &ed.m.types_global_values {
        if ins.class.opcode == Op::Variable {
            if let (Some(t), Some(id)) = (ins.result_type, ins.result_id) {
                if ptr_types.contains(&t) {
                    vars.push((id, t));
                }
            }
        }
    }
    vars.retain(|(v, _)| {
        !ed.m.annotations.iter().any(|a| {
            a.class.opcode == Op::Decorate
                && a.operands.first().and_then(id_of) == Some(*v)
                && matches!(
                    a.operands.get(1),
                    Some(Operand::Decoration(
                        Decoration::NonReadable | Decoration::NonWritable
                    ))
                )
        })
    });
    if vars.is_empty() {
        return None;
    }
    // The variable a pointer (the variable or an access chain into it) or
    // a loaded image value comes from.
    let root = |ed: &Ed, mut v: Word| -> Option<Word> {
        for _ in 0..8 {
            if vars.iter().any(|(x, _)| *x == v) {
                return Some(v);
            }
            let (_, o) = ed.defs.get(&v)?;
            v = o.first().and_then(id_of)?;
        }
        None
    };
    #[derive(Default, Clone, Copy)]
    struct Uses {
        read: bool,
        write: bool,
        other: bool,
    }
    let mut uses: FxHashMap<Word, Uses> = FxHashMap::default();
    for f in &ed.m.functions {
        for ins in f.blocks.iter().flat_map(|b| b.instructions.iter()) {
            let op = ins.class.opcode;
            if matches!(op, Op::Load | Op::AccessChain | Op::InBoundsAccessChain) {
                continue;
            }
            for (k, o) in ins.operands.iter().enumerate() {
                let Some(v) = id_of(o).and_then(|i| root(&ed, i)) else {
                    continue;
                };
                let u = uses.entry(v).or_default();
                match (op, k) {
                    (Op::ImageWrite, 0) => u.write = true,
                    (Op::ImageRead | Op::ImageSparseRead, 0) => u.read = true,
                    (
                        Op::ImageQuerySize
                        | Op::ImageQuerySizeLod
                        | Op::ImageQueryLevels
                        | Op::ImageQuerySamples,
                        0,
                    ) => {}
                    _ => u.other = true,
                }
            }
        }
    }
    let names: FxHashMap<Word, String> =
        ed.m.debug_names
            .iter()
            .filter(|i| i.class.opcode == Op::Name)
            .filter_map(
                |i| match (i.operands.first().and_then(id_of), i.operands.get(1)) {
                    (Some(t), Some(Operand::LiteralString(n))) => Some((t, n.clone())),
                    _ => None,
                },
            )
            .collect();
    let decorate = |v: Word, d: Decoration| {
        Instruction::new(
            Op::Decorate,
            None,
            None,
            vec![Operand::IdRef(v), Operand::Decoration(d)],
        )
    };
    let mut changed = false;
    // Variable -> its write-only twin.
    let mut twins: FxHashMap<Word, Word> = FxHashMap::default();
    for &(v, t) in &vars {
        let u = uses.get(&v).copied().unwrap_or_default();
        if u.other {
            continue;
        }
        changed = true;
        if !u.read && u.write {
            ed.m.annotations.push(decorate(v, Decoration::NonReadable));
            continue;
        }
        ed.m.annotations.push(decorate(v, Decoration::NonWritable));
        if !u.write {
            continue;
        }
        let w = ed.fresh();
        twins.insert(v, w);
        ed.new_globals.push(Instruction::new(
            Op::Variable,
            Some(t),
            Some(w),
            vec![Operand::StorageClass(StorageClass::UniformConstant)],
        ));
        let mut extra = vec![decorate(w, Decoration::NonReadable)];
        for a in &ed.m.annotations {
            if a.class.opcode != Op::Decorate || a.operands.first().and_then(id_of) != Some(v) {
                continue;
            }
            let mut o = a.operands.clone();
            o[0] = Operand::IdRef(w);
            match o.get(1) {
                Some(Operand::Decoration(Decoration::NonWritable)) => continue,
                Some(Operand::Decoration(Decoration::Binding)) => {
                    if let Some(b) = lit(o.get(2)) {
                        o[2] = Operand::LiteralBit32(b + IMAGE_ALIAS_OFFSET);
                    }
                }
                _ => {}
            }
            extra.push(Instruction::new(Op::Decorate, None, None, o));
        }
        ed.m.annotations.extend(extra);
        if let Some(n) = names.get(&v) {
            ed.m.debug_names.push(Instruction::new(
                Op::Name,
                None,
                None,
                vec![
                    Operand::IdRef(w),
                    Operand::LiteralString(format!("{n}_mgl_store")),
                ],
            ));
        }
        // SPIR-V 1.4+: every global a stage uses is in its interface.
        for e in &mut ed.m.entry_points {
            if e.operands.iter().any(|o| id_of(o) == Some(v)) {
                e.operands.push(Operand::IdRef(w));
            }
        }
    }
    if !changed {
        return None;
    }
    if twins.is_empty() {
        return Some(ed.finish());
    }
    // Each store to a split variable goes through the twin: the same
    // access chain on it, loaded right before the store.
    let mut functions = std::mem::take(&mut ed.m.functions);
    for f in &mut functions {
        for b in &mut f.blocks {
            let mut out = Vec::with_capacity(b.instructions.len() + 4);
            for mut ins in std::mem::take(&mut b.instructions) {
                if ins.class.opcode == Op::ImageWrite {
                    if let Some(img) = ins.operands.first().and_then(id_of) {
                        if let Some(new) = twin_load(&mut ed, &mut out, &twins, img) {
                            ins.operands[0] = Operand::IdRef(new);
                        }
                    }
                }
                out.push(ins);
            }
            b.instructions = out;
        }
    }
    ed.m.functions = functions;
    Some(ed.finish())
}

/// The storage image formats SPIRV-Cross refuses to write for ES (its
/// `is_desktop_only_format`), with their ESSL qualifiers
/// (GL_NV_image_formats has them all).
fn desktop_only_format(f: rspirv::spirv::ImageFormat) -> Option<&'static str> {
    use rspirv::spirv::ImageFormat as F;
    Some(match f {
        F::R11fG11fB10f => "r11f_g11f_b10f",
        F::R16f => "r16f",
        F::Rgb10A2 => "rgb10_a2",
        F::R8 => "r8",
        F::Rg8 => "rg8",
        F::R16 => "r16",
        F::Rg16 => "rg16",
        F::Rgba16 => "rgba16",
        F::R16Snorm => "r16_snorm",
        F::Rg16Snorm => "rg16_snorm",
        F::Rgba16Snorm => "rgba16_snorm",
        F::R8Snorm => "r8_snorm",
        F::Rg8Snorm => "rg8_snorm",
        F::R8ui => "r8ui",
        F::Rg8ui => "rg8ui",
        F::R16ui => "r16ui",
        F::Rgb10a2ui => "rgb10_a2ui",
        F::R8i => "r8i",
        F::Rg8i => "rg8i",
        F::R16i => "r16i",
        _ => return None,
    })
}

/// What [`mark_desktop_only_formats`] appends to an image variable's name
/// before the ESSL qualifier it needs (`images::enable_image_formats`
/// puts the qualifier back).
pub const FORMAT_NAME_MARK: &str = "_mglfmt_";

/// Emulation: SPIRV-Cross refuses storage images of the formats ESSL has
/// only through GL_NV_image_formats (`r16f`, `rg8`, `rgb10_a2ui`, ...).
/// Such an image type is given the 128-bit format of its component type
/// (`rgba32f` / `rgba32i` / `rgba32ui`) for the translation, and each
/// variable of it a name ending in [`FORMAT_NAME_MARK`] and the real
/// qualifier, which `images::enable_image_formats` writes back into the
/// ESSL declaration. None: no such image.
pub fn mark_desktop_only_formats(words: &[u32]) -> Option<Vec<u32>> {
    use rspirv::spirv::ImageFormat;
    if !may_need_image_qualifiers(words) {
        return None;
    }
    let mut ed = Ed::new(words)?;
    // Image type -> the qualifier; the format swapped in place.
    let mut marked: FxHashMap<Word, &'static str> = FxHashMap::default();
    let comp: FxHashMap<Word, Ty> = ed.ty.iter().map(|(k, v)| (*k, *v)).collect();
    for ins in &mut ed.m.types_global_values {
        if ins.class.opcode != Op::TypeImage || lit(ins.operands.get(5)) != Some(2) {
            continue;
        }
        let Some(Operand::ImageFormat(f)) = ins.operands.get(6) else {
            continue;
        };
        let Some(q) = desktop_only_format(*f) else {
            continue;
        };
        let wide = match ins
            .operands
            .first()
            .and_then(id_of)
            .and_then(|t| comp.get(&t))
        {
            Some(Ty::Float) => ImageFormat::Rgba32f,
            Some(Ty::Int(true)) => ImageFormat::Rgba32i,
            Some(Ty::Int(false)) => ImageFormat::Rgba32ui,
            _ => continue,
        };
        ins.operands[6] = Operand::ImageFormat(wide);
        if let Some(id) = ins.result_id {
            marked.insert(id, q);
        }
    }
    if marked.is_empty() {
        return None;
    }
    // Through arrays and pointers to the variables.
    for ins in &ed.m.types_global_values {
        let inner = match ins.class.opcode {
            Op::TypeArray | Op::TypeRuntimeArray => ins.operands.first(),
            Op::TypePointer => ins.operands.get(1),
            Op::Variable => {
                let q = ins.result_type.and_then(|t| marked.get(&t).copied());
                if let (Some(q), Some(v)) = (q, ins.result_id) {
                    marked.insert(v, q);
                }
                continue;
            }
            _ => continue,
        };
        let q = inner.and_then(id_of).and_then(|t| marked.get(&t).copied());
        if let (Some(q), Some(id)) = (q, ins.result_id) {
            marked.insert(id, q);
        }
    }
    let vars: Vec<(Word, &'static str)> =
        ed.m.types_global_values
            .iter()
            .filter(|i| i.class.opcode == Op::Variable)
            .filter_map(|i| Some((i.result_id?, *marked.get(&i.result_id?)?)))
            .collect();
    for (v, q) in vars {
        let named =
            ed.m.debug_names.iter_mut().find(|i| {
                i.class.opcode == Op::Name && i.operands.first().and_then(id_of) == Some(v)
            });
        match named {
            Some(i) => {
                if let Some(Operand::LiteralString(n)) = i.operands.get_mut(1) {
                    n.push_str(FORMAT_NAME_MARK);
                    n.push_str(q);
                }
            }
            None => ed.m.debug_names.push(Instruction::new(
                Op::Name,
                None,
                None,
                vec![
                    Operand::IdRef(v),
                    Operand::LiteralString(format!("mgl_image{v}{FORMAT_NAME_MARK}{q}")),
                ],
            )),
        }
    }
    Some(ed.finish())
}

/// `img` (an image loaded from a split variable or an access chain into
/// it) loaded again from the variable's twin, into `out`.
fn twin_load(
    ed: &mut Ed,
    out: &mut Vec<Instruction>,
    twins: &FxHashMap<Word, Word>,
    img: Word,
) -> Option<Word> {
    let (op, o) = ed.defs.get(&img)?.clone();
    if op != Op::Load {
        return None;
    }
    let ty = *ed.type_of.get(&img)?;
    let p = o.first().and_then(id_of)?;
    let ptr = twin_pointer(ed, out, twins, p, 0)?;
    let mut operands = o.clone();
    operands[0] = Operand::IdRef(ptr);
    Some(emit(ed, out, Op::Load, ty, operands))
}

fn twin_pointer(
    ed: &mut Ed,
    out: &mut Vec<Instruction>,
    twins: &FxHashMap<Word, Word>,
    p: Word,
    depth: u32,
) -> Option<Word> {
    if let Some(&w) = twins.get(&p) {
        return Some(w);
    }
    if depth > 8 {
        return None;
    }
    let (op, o) = ed.defs.get(&p)?.clone();
    if !matches!(op, Op::AccessChain | Op::InBoundsAccessChain) {
        return None;
    }
    let base = twin_pointer(ed, out, twins, o.first().and_then(id_of)?, depth + 1)?;
    let ty = *ed.type_of.get(&p)?;
    let mut operands = o;
    operands[0] = Operand::IdRef(base);
    Some(emit(ed, out, op, ty, operands))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shader::spirv_to_essl;

    use crate::shader::test_fragment_spirv as fragment_spirv;

    const ONE_D: &str = "#version 450\n\
        layout(binding = 0) uniform sampler1D a;\n\
        layout(binding = 1) uniform isampler1DArray b;\n\
        layout(binding = 2) uniform sampler1DShadow c;\n\
        layout(location = 0) in vec4 v;\n\
        layout(location = 0) out vec4 o;\n\
        void main() {\n\
          vec4 x = textureGradOffset(a, v.x, 0.5, 0.25, 3);\n\
          x += textureProjGrad(a, v, 0.5, 0.25);\n\
          x += vec4(textureSize(b, 1), texelFetchOffset(b, ivec2(2, 1), 0, -1).xy);\n\
          x += vec4(textureOffset(c, v.xyz, 2, 1.0));\n\
          o = x;\n\
        }\n";

    #[test]
    fn one_d_images_become_two_d_with_widened_operands() {
        let words = fragment_spirv(ONE_D);
        assert!(uses_1d_images(&words));
        let lowered = lower_1d_images(&words).expect("lowered");
        assert!(!uses_1d_images(&lowered));
        assert!(lower_1d_images(&lowered).is_none(), "nothing left");
        let fs = spirv_to_essl(&lowered).expect("translation");
        assert!(!fs.contains("1D"), "{fs}");
        // Gradients and offsets are 2D, the size query keeps (w, layers).
        assert!(fs.contains("ivec2(3, 0)"), "{fs}");
        assert!(fs.contains("ivec2(-1, 0)"), "{fs}");
        assert!(fs.contains("vec2(0.5, 0.0)"), "{fs}");
        assert!(fs.contains(".xz"), "{fs}");
        // The old translation left scalar gradients (no ESSL overload).
        let old = spirv_to_essl(&words).expect("translation");
        assert!(old.contains("0.5, 0.25, 3)"), "{old}");
        // A malformed module is left alone (no panic).
        assert!(lower_1d_images(&words[..3]).is_none());
        let _ = lower_1d_images(&words[..words.len() / 2]);
    }

    const STORAGE_IMAGES: &str = "#version 450\n\
        layout(binding = 0, rgba32f) uniform image2D rw;\n\
        layout(binding = 1, rgba8) uniform image2D ro;\n\
        layout(binding = 2, rgba16f) uniform image2D wo;\n\
        layout(binding = 3, r32ui) uniform uimage2D atom;\n\
        layout(binding = 4, rgba32f) uniform image2D arr[2];\n\
        layout(binding = 6, r16f) uniform image2D narrow;\n\
        layout(location = 0) flat in int i;\n\
        layout(location = 0) out vec4 o;\n\
        void main() {\n\
          vec4 x = imageLoad(rw, ivec2(0)) + imageLoad(ro, ivec2(1));\n\
          imageStore(rw, ivec2(1), x);\n\
          imageStore(wo, ivec2(2), x);\n\
          imageAtomicAdd(atom, ivec2(0), 1u);\n\
          imageStore(arr[i], ivec2(3), imageLoad(arr[1 - i], ivec2(3)));\n\
          imageStore(narrow, ivec2(4), imageLoad(narrow, ivec2(5)) + vec4(imageSize(narrow), 0.0, 0.0));\n\
          o = x;\n\
        }\n";

    fn image_decl<'a>(fs: &'a str, name: &str) -> &'a str {
        fs.lines()
            .find(|l| l.starts_with("layout(") && l.contains(&format!(" {name}")))
            .unwrap_or_else(|| panic!("no declaration of {name}:\n{fs}"))
    }

    #[test]
    fn storage_images_get_essl_access_qualifiers() {
        let words = fragment_spirv(STORAGE_IMAGES);
        // Unchanged, the module translates but ESSL would refuse the
        // read-write rgba32f image (and SPIRV-Cross refuses r16f).
        let q = qualify_storage_images(&words).expect("qualified");
        let marked = mark_desktop_only_formats(&q).expect("marked");
        assert!(mark_desktop_only_formats(&q[..3]).is_none());
        let fs = spirv_to_essl(&marked).expect("translation");
        let fs = crate::images::enable_image_formats(fs);
        assert!(
            image_decl(&fs, "rw;").contains("binding = 0, rgba32f) uniform readonly"),
            "{fs}"
        );
        let store = image_decl(&fs, "rw_mgl_store;");
        assert!(
            store.contains("binding = 8, rgba32f) uniform writeonly"),
            "{fs}"
        );
        assert!(image_decl(&fs, "ro;").contains("readonly"), "{fs}");
        assert!(image_decl(&fs, "wo;").contains("writeonly"), "{fs}");
        let atom = image_decl(&fs, "atom;");
        assert!(
            !atom.contains("readonly") && !atom.contains("writeonly"),
            "{fs}"
        );
        assert!(
            image_decl(&fs, "arr[2];").contains("binding = 4, rgba32f) uniform readonly"),
            "{fs}"
        );
        assert!(
            image_decl(&fs, "arr_mgl_store[2];")
                .contains("binding = 12, rgba32f) uniform writeonly"),
            "{fs}"
        );
        // The r16f image: its format restored, the extension enabled.
        assert!(
            image_decl(&fs, "narrow_mglfmt_r16f;").contains("binding = 6, r16f) uniform readonly"),
            "{fs}"
        );
        assert!(
            image_decl(&fs, "narrow_mgl_store_mglfmt_r16f;")
                .contains("binding = 14, r16f) uniform writeonly"),
            "{fs}"
        );
        assert!(
            fs.contains("#extension GL_NV_image_formats : enable"),
            "{fs}"
        );
        // Stores go through the twins, loads through the originals.
        assert!(fs.contains("imageStore(rw_mgl_store, ivec2(1)"), "{fs}");
        assert!(fs.contains("imageStore(arr_mgl_store[i]"), "{fs}");
        assert!(fs.contains("imageLoad(arr[1 - i]"), "{fs}");
        assert!(fs.contains("imageSize(narrow_mglfmt_r16f)"), "{fs}");
        // Nothing left to do on the result; garbage is left alone.
        assert!(qualify_storage_images(&q).is_none());
        assert!(qualify_storage_images(&words[..words.len() / 2]).is_none());
    }

    #[test]
    fn one_d_image_atomics_get_a_second_coordinate() {
        let src = "#version 450\n\
            layout(binding = 0, r32ui) uniform uimage1D a;\n\
            layout(binding = 1, r32ui) uniform uimage1DArray b;\n\
            layout(location = 0) out uvec4 o;\n\
            void main() {\n\
              o = uvec4(imageAtomicAdd(a, 3, 1u), imageAtomicCompSwap(b, ivec2(4, 2), 0u, 1u), 0u, 0u);\n\
            }\n";
        let lowered = lower_1d_images(&fragment_spirv(src)).expect("lowered");
        let fs = spirv_to_essl(&lowered).expect("translation");
        assert!(fs.contains("imageAtomicAdd(a, ivec2(3, 0)"), "{fs}");
        assert!(fs.contains("imageAtomicCompSwap(b, ivec3(4, 0, 2)"), "{fs}");
    }

    const LODS: &str = "#version 450\n\
        layout(binding = 0) uniform sampler2D a;\n\
        layout(binding = 3) uniform sampler2D b[2];\n\
        layout(binding = 6) uniform sampler2DShadow c;\n\
        layout(binding = 7) uniform sampler2D unbiased;\n\
        layout(location = 0) in vec4 v;\n\
        layout(location = 1) flat in int i;\n\
        layout(location = 0) out vec4 o;\n\
        void main() {\n\
          o = texture(a, v.xy) + textureLod(b[i], v.xy, 2.0) + textureGrad(a, v.xy, v.zw, v.wz);\n\
          o += vec4(texture(c, v.xyz, 1.5)) + texelFetch(unbiased, ivec2(0), 0);\n\
        }\n";

    #[test]
    fn sampler_lod_bias_reaches_every_lod() {
        let words = fragment_spirv(LODS);
        // a (0), b[i] (3 and up: dynamically indexed), c (6).
        let units = lod_units(&words);
        assert_eq!(units & 0b0100_1001, 0b0100_1001, "{units:b}");
        assert_eq!(units & 0b0110, 0, "{units:b}");
        assert!(lower_lod(&words, true, false).is_none(), "no fix needed");
        let biased = lower_lod(&words, true, true).expect("biased");
        let fs = spirv_to_essl(&biased).expect("translation");
        assert!(fs.contains("uniform float mgl_LodBias[32];"), "{fs}");
        assert!(fs.contains("mgl_LodBias[0]"), "{fs}");
        assert!(fs.contains("mgl_LodBias[3 + i]"), "{fs}");
        assert!(fs.contains("exp2(mgl_LodBias[0])"), "{fs}");
        assert!(fs.contains("1.5 + mgl_LodBias[6]"), "{fs}");
        assert!(!fs.contains("mgl_LodBias[7]"), "{fs}");
    }

    #[test]
    fn sampler_parameters_carry_their_bias() {
        // The legacy shadow helpers take the sampler as a parameter.
        let src = "#version 450\n\
            layout(binding = 2) uniform sampler2D a;\n\
            layout(binding = 5) uniform sampler2D b;\n\
            layout(location = 0) in vec2 v;\n\
            layout(location = 0) out vec4 o;\n\
            vec4 look(sampler2D s, vec2 c) { return texture(s, c); }\n\
            void main() { o = look(a, v) + look(b, v); }\n";
        let words = fragment_spirv(src);
        assert_eq!(lod_units(&words) & 0xff, 0b0010_0100);
        let biased = lower_lod(&words, true, true).expect("biased");
        let fs = spirv_to_essl(&biased).expect("translation");
        assert!(fs.contains("mgl_LodBias[2]"), "{fs}");
        assert!(fs.contains("mgl_LodBias[5]"), "{fs}");
        assert!(fs.contains("float "), "{fs}");
    }

    #[test]
    fn array_shadow_bias_becomes_gradients() {
        let src = "#version 450\n\
            layout(binding = 0) uniform sampler1DArrayShadow s;\n\
            layout(location = 0) in vec4 v;\n\
            layout(location = 0) out vec4 o;\n\
            void main() { o = vec4(texture(s, v.xyz, 2.0)); }\n";
        let words = lower_1d_images(&fragment_spirv(src)).expect("1D lowered");
        assert!(may_need_lod_fix(&words));
        let fixed = lower_lod(&words, true, false).expect("fixed");
        let fs = spirv_to_essl(&fixed).expect("translation");
        assert!(fs.contains("textureGrad(s"), "{fs}");
        assert!(fs.contains("exp2(2.0)"), "{fs}");
        assert!(!fs.contains("mgl_LodBias"), "{fs}");
    }
}
