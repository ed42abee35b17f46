//! Emulation: 64-bit floats (`ARB_gpu_shader_fp64`) on GLES, which has none.
//!
//! A SPIR-V -> SPIR-V pass run on each stage before spirv-cross, only when
//! the module declares `Capability Float64` ([`uses_float64`]; a module
//! without it takes exactly the old path). Every 64-bit float value is
//! carried as its IEEE-754 bit pattern in 32-bit uints:
//!
//! | GLSL type | carried as |
//! |---|---|
//! | `double` | `uvec2` (lo, hi), as `packDouble2x32` / `unpackDouble2x32` define |
//! | `dvecN` | a struct of N `uvec2` (`dvec3`: plus one `uvec2` of padding, so that its std140 / std430 size is 32) |
//! | `dmatCxR` | an array of C `dvecR` (ArrayStride 16 for R = 2, else 32) |
//! | arrays / structs | the same, of the carried element / member types |
//!
//! so a component pointer into a `dvec` is a member pointer, and block
//! layouts keep std140 / std430 double offsets: blocks (structs with
//! `Offset`s) get `uint` padding members where the carried type would pack
//! lower than the double did, and a `dvec3` block member becomes three
//! `uvec2` members (std140 lets the next member use its 8 tail bytes; a
//! struct could not). Interface variables
//! (varyings, vertex inputs) holding doubles become `Private` variables,
//! copied from / to one `flat` `uvec2` / `uvec4` variable per GL location
//! (double, dvec2: one; dvec3, dvec4: two, at L and L + 1) at the start of
//! the entry point / before each `OpReturn` of it and each `OpEmitVertex`;
//! geometry inputs get arrays of those.
//!
//! Exact (bit for bit): loads, stores, copies, composites (construct,
//! extract, insert, shuffle, dynamic component index), `OpSelect`, `OpPhi`,
//! calls, `packDouble2x32` / `unpackDouble2x32` (moves), comparisons
//! (ordered / unordered, NaN, -0 == +0), `isnan` / `isinf`, `abs`, negation,
//! `sign`, `min` / `max` / `clamp`, `frexp`, `trunc`, `transpose`, conversions `float` <-> `double` (round
//! to nearest even, signed zeros, overflow to infinity, denormals) and
//! `int` / `uint` <-> `double` (exact; double -> int truncates).
//! Everything else (arithmetic, matrix ops, `dot`, the other
//! `GLSL.std.450` functions) is computed in 32-bit floats: operands decoded
//! to the same-shaped float types, the same instruction, the result
//! encoded. Its precision is therefore f32's, not f64's.
//! `modf` gives an exact whole part (the fraction at f32 precision).
//! Not lowered (a clean link error naming the construct): the
//! struct-returning `frexp` on doubles, bitcasts of doubles, spec
//! constants of double type, row-major double matrices in blocks, doubles
//! in tessellation interfaces, a `dvec3` block member passed by pointer.
//! A non-constant component index into a `dvec` in memory loads (and for a
//! store, writes back) the whole `dvec`: exact, but a store is not atomic
//! against other invocations writing the same `dvec` of a storage buffer.
//!
//! `rspirv` (data representation + assembler) is used because this pass
//! rewrites types, constants, functions and decorations all together: a
//! hand-written word walker (as in `shader.rs`) would be much larger.

use rspirv::dr::{self, Block, Function, Instruction, Operand};
use rspirv::spirv::{self, Capability, Decoration, Op, StorageClass, Word};
use rustc_hash::{FxHashMap, FxHashSet};
use tracing::debug;

/// Why a module could not be lowered (the program then fails to link).
#[derive(Debug, thiserror::Error)]
pub enum Fp64Error {
    #[error("SPIR-V parse: {0}")]
    Parse(String),
    #[error("malformed SPIR-V: {0}")]
    Malformed(&'static str),
    #[error("64-bit floats: {0} is not supported on the GLES backend")]
    Unsupported(String),
}

type R<T> = Result<T, Fp64Error>;

const OP_CAPABILITY: u32 = 17;
const CAP_FLOAT64: u32 = 10;

/// Whether the module declares `Capability Float64` (a scan of the
/// capability instructions at the head of the module).
pub fn uses_float64(words: &[u32]) -> bool {
    // OpExtension, OpExtInstImport, OpSource*, OpName... may not precede
    // capabilities; anything else ends the section.
    crate::shader::instructions(words)
        .take_while(|&(_, op, _)| op == OP_CAPABILITY)
        .any(|(_, _, ins)| ins.get(1) == Some(&CAP_FLOAT64))
}

/// Every instruction's word count is non-zero and inside the module (the
/// parser indexes by it).
fn check_stream(words: &[u32]) -> R<()> {
    if words.len() < 5 || words[0] != 0x0723_0203 {
        return Err(Fp64Error::Malformed("not a SPIR-V module"));
    }
    if !crate::shader::well_formed(words) {
        return Err(Fp64Error::Malformed("instruction overruns the module"));
    }
    Ok(())
}

/// Lower a module that uses doubles (see the module doc). `stage` is the
/// `create_shader` stage index.
pub fn lower(words: &[u32], stage: usize) -> R<Vec<u32>> {
    check_stream(words)?;
    let module = dr::load_words(words).map_err(|e| Fp64Error::Parse(e.to_string()))?;
    let mut p = Pass::new(module, stage)?;
    p.run()?;
    Ok(p.finish())
}

/// Where a lowered vertex-stage double input reads its bits: GLES
/// attribute `location` gets the 32-bit words of GL attribute `attrib`
/// (`glVertexAttribLPointer` data): bytes 0..16 (`high` false; 8 for one
/// double) or 16..32 (`high`: the third and fourth doubles).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct F64Input {
    pub location: u32,
    pub attrib: u32,
    pub high: bool,
}

/// The double vertex inputs of a vertex-stage module (before lowering),
/// as [`lower`] splits them: each leaf (array element, matrix column) `j`
/// of an input at location `L` is GL attribute `L + j`, read at the
/// lowered location(s). Empty when the module has none.
pub fn vertex_inputs(words: &[u32]) -> R<Vec<F64Input>> {
    if !uses_float64(words) {
        return Ok(Vec::new());
    }
    check_stream(words)?;
    let module = dr::load_words(words).map_err(|e| Fp64Error::Parse(e.to_string()))?;
    let p = Pass::new(module, 0)?;
    let mut out = Vec::new();
    for i in &p.m.types_global_values {
        let (Some(Operand::StorageClass(StorageClass::Input)), Some(Ty::Pointer(_, pt)), Some(id)) = (
            i.operands.first(),
            i.result_type.and_then(|t| p.ty.get(&t)),
            i.result_id,
        ) else {
            continue;
        };
        if i.class.opcode != Op::Variable || !p.hd(*pt) {
            continue;
        }
        let loc = p.m.annotations.iter().find_map(|a| match a.operands.as_slice() {
            [Operand::IdRef(t), Operand::Decoration(Decoration::Location), Operand::LiteralBit32(l)] if *t == id => Some(*l),
            _ => None,
        });
        let Some(loc) = loc else { continue };
        let mut leaves = Vec::new();
        p.leaves(*pt, &mut Vec::new(), &mut leaves, 0)?;
        let mut at = loc;
        for (j, leaf) in leaves.iter().enumerate() {
            let attrib = loc + j as u32;
            out.push(F64Input {
                location: at,
                attrib,
                high: false,
            });
            if leaf.comps > 2 {
                out.push(F64Input {
                    location: at + 1,
                    attrib,
                    high: true,
                });
                at += 1;
            }
            at += 1;
        }
    }
    Ok(out)
}

#[derive(Clone, Debug)]
enum Ty {
    Bool,
    Int(u32),
    Float(u32),
    Vector(Word, u32),
    Matrix(Word, u32),
    Array(Word, Word),
    RuntimeArray(Word),
    Struct(Vec<Word>),
    Pointer(StorageClass, Word),
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Shape {
    S,
    V(u32),
    M(u32, u32),
}

/// One location-sized piece of a lowered interface variable.
#[derive(Clone, Debug)]
struct Leaf {
    /// Member / element indices from the variable (after the vertex index).
    path: Vec<u32>,
    /// The original type of the leaf.
    ty: Word,
    /// Number of doubles (0: not a double leaf, moved as is).
    comps: u32,
}

/// What a member of a rewritten block struct is.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Slot {
    Keep,
    Pad,
    /// Component j of a split dvec3.
    Split(u32),
}

#[derive(Clone, Copy, PartialEq)]
enum Rule {
    Std140,
    Std430,
}

fn id_of(o: &Operand) -> Option<Word> {
    match o {
        Operand::IdRef(w) => Some(*w),
        _ => None,
    }
}

fn lit_of(o: &Operand) -> Option<u32> {
    match o {
        Operand::LiteralBit32(w) => Some(*w),
        _ => None,
    }
}

fn ids(v: &[Word]) -> Vec<Operand> {
    v.iter().map(|&w| Operand::IdRef(w)).collect()
}

fn align_up(v: u32, a: u32) -> u32 {
    v.div_ceil(a.max(1)).saturating_mul(a.max(1))
}

type Key = (Op, Option<Word>, Vec<Operand>);

/// `Pass::compare_parts`: halves of two doubles (lo/hi of a and b),
/// "either is NaN" and "both are zeros".
struct CompareParts {
    al: Word,
    ah: Word,
    bl: Word,
    bh: Word,
    un: Word,
    bz: Word,
}

struct Pass {
    m: dr::Module,
    stage: usize,
    bound: Word,
    /// Original types.
    ty: FxHashMap<Word, Ty>,
    /// Type of each value / variable id (original type ids).
    vty: FxHashMap<Word, Word>,
    /// 32-bit integer constants: id -> value.
    iconst: FxHashMap<Word, u32>,
    has_double: FxHashMap<Word, bool>,
    cache: FxHashMap<Key, Word>,
    new_globals: Vec<Instruction>,
    new_annots: Vec<Instruction>,
    new_fns: Vec<Function>,
    helpers: FxHashMap<&'static str, Word>,
    glsl: Option<Word>,
    /// Struct id -> new member index of each old member (padded blocks).
    member_remap: FxHashMap<Word, Vec<u32>>,
    /// Struct id -> new member count and which new members are padding.
    pad_members: FxHashMap<Word, Vec<Slot>>,
    /// (struct, old member index) of dvec3 block members split in three.
    split: FxHashMap<(Word, u32), Word>,
    /// Pointers to a split dvec3 member: (pointer to its struct, first new
    /// member index, the dvec3 type).
    virt: FxHashMap<Word, (Word, u32, Word)>,
    /// Pointers to a component of a dvec picked by a non-constant index:
    /// (pointer to the dvec, possibly in `virt`; the index; the dvec type).
    dynv: FxHashMap<Word, (Word, Word, Word)>,
    /// Variables moved to Private storage and pointers derived from them.
    private: FxHashSet<Word>,
    /// dvecN type ids that are carried as a padded struct (N = 3).
    d3: FxHashSet<Word>,
    /// Entry function, copy-in and copy-out code of lowered interface variables.
    copies: Option<(Word, Vec<Instruction>, Vec<Instruction>)>,
}

impl Pass {
    fn new(m: dr::Module, stage: usize) -> R<Self> {
        let bound = m
            .header
            .as_ref()
            .map(|h| h.bound)
            .ok_or(Fp64Error::Malformed("no header"))?;
        let mut p = Pass {
            m,
            stage,
            bound,
            ty: Default::default(),
            vty: Default::default(),
            iconst: Default::default(),
            has_double: Default::default(),
            cache: Default::default(),
            new_globals: Vec::new(),
            new_annots: Vec::new(),
            new_fns: Vec::new(),
            helpers: Default::default(),
            glsl: None,
            member_remap: Default::default(),
            pad_members: Default::default(),
            private: Default::default(),
            d3: Default::default(),
            copies: None,
            split: Default::default(),
            virt: Default::default(),
            dynv: Default::default(),
        };
        p.scan()?;
        Ok(p)
    }

    fn fresh(&mut self) -> Word {
        let id = self.bound;
        self.bound += 1;
        id
    }

    fn scan(&mut self) -> R<()> {
        for ins in &self.m.types_global_values {
            let Some(id) = ins.result_id else { continue };
            let o = &ins.operands;
            let op_id = |k: usize| o.get(k).and_then(id_of);
            let t = match ins.class.opcode {
                Op::TypeBool => Some(Ty::Bool),
                Op::TypeInt => Some(Ty::Int(o.first().and_then(lit_of).unwrap_or(0))),
                Op::TypeFloat => Some(Ty::Float(o.first().and_then(lit_of).unwrap_or(0))),
                Op::TypeVector => Some(Ty::Vector(
                    op_id(0).ok_or(Fp64Error::Malformed("vector"))?,
                    o.get(1).and_then(lit_of).unwrap_or(0),
                )),
                Op::TypeMatrix => Some(Ty::Matrix(
                    op_id(0).ok_or(Fp64Error::Malformed("matrix"))?,
                    o.get(1).and_then(lit_of).unwrap_or(0),
                )),
                Op::TypeArray => Some(Ty::Array(
                    op_id(0).ok_or(Fp64Error::Malformed("array"))?,
                    op_id(1).ok_or(Fp64Error::Malformed("array"))?,
                )),
                Op::TypeRuntimeArray => Some(Ty::RuntimeArray(
                    op_id(0).ok_or(Fp64Error::Malformed("array"))?,
                )),
                Op::TypeStruct => Some(Ty::Struct(o.iter().filter_map(id_of).collect())),
                Op::TypePointer => match (o.first(), op_id(1)) {
                    (Some(Operand::StorageClass(sc)), Some(t)) => Some(Ty::Pointer(*sc, t)),
                    _ => return Err(Fp64Error::Malformed("pointer")),
                },
                Op::TypeVoid
                | Op::TypeFunction
                | Op::TypeImage
                | Op::TypeSampler
                | Op::TypeSampledImage
                | Op::TypeForwardPointer => Some(Ty::Other),
                Op::Constant => {
                    if let Some(v) = o.first().and_then(lit_of) {
                        self.iconst.insert(id, v);
                    }
                    None
                }
                _ => None,
            };
            if let Some(t) = t {
                self.ty.insert(id, t);
                if ins.class.opcode != Op::TypeFloat
                    || !matches!(o.first(), Some(Operand::LiteralBit32(64)))
                {
                    self.cache.insert((ins.class.opcode, None, o.clone()), id);
                }
            }
            if let (Some(rt), true) = (ins.result_type, ins.class.opcode != Op::TypeForwardPointer)
            {
                self.vty.insert(id, rt);
            }
        }
        for f in &self.m.functions {
            for ins in f
                .parameters
                .iter()
                .chain(f.blocks.iter().flat_map(|b| b.instructions.iter()))
            {
                if let (Some(rt), Some(id)) = (ins.result_type, ins.result_id) {
                    self.vty.insert(id, rt);
                }
            }
        }
        let ids: Vec<Word> = self.ty.keys().copied().collect();
        for id in ids {
            self.contains_double(id, 0);
        }
        // uint/int constants already in the module can be reused.
        for ins in &self.m.types_global_values {
            if ins.class.opcode == Op::Constant {
                if let (Some(rt), Some(id)) = (ins.result_type, ins.result_id) {
                    if matches!(self.ty.get(&rt), Some(Ty::Int(32)) | Some(Ty::Float(32))) {
                        self.cache
                            .insert((Op::Constant, Some(rt), ins.operands.clone()), id);
                    }
                }
            }
        }
        Ok(())
    }

    fn contains_double(&mut self, t: Word, depth: u32) -> bool {
        if let Some(&b) = self.has_double.get(&t) {
            return b;
        }
        if depth > 64 {
            return false;
        }
        let b = match self.ty.get(&t).cloned() {
            Some(Ty::Float(64)) => true,
            Some(Ty::Vector(e, _))
            | Some(Ty::Matrix(e, _))
            | Some(Ty::Array(e, _))
            | Some(Ty::RuntimeArray(e))
            | Some(Ty::Pointer(_, e)) => self.contains_double(e, depth + 1),
            Some(Ty::Struct(ms)) => ms.iter().any(|&m| self.contains_double(m, depth + 1)),
            _ => false,
        };
        self.has_double.insert(t, b);
        b
    }

    fn hd(&self, t: Word) -> bool {
        self.has_double.get(&t).copied().unwrap_or(false)
    }

    /// Whether value `v` has a type involving doubles.
    fn vd(&self, v: Word) -> bool {
        self.vty.get(&v).is_some_and(|t| self.hd(*t))
    }

    fn shape(&self, t: Word) -> Option<Shape> {
        match self.ty.get(&t)? {
            Ty::Float(64) => Some(Shape::S),
            Ty::Vector(c, n) if matches!(self.ty.get(c), Some(Ty::Float(64))) => Some(Shape::V(*n)),
            Ty::Matrix(col, c) => match self.shape(*col)? {
                Shape::V(r) => Some(Shape::M(*c, r)),
                _ => None,
            },
            _ => None,
        }
    }

    // ---- types and constants -------------------------------------------

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

    fn t_uint(&mut self) -> Word {
        self.global(
            Op::TypeInt,
            None,
            vec![Operand::LiteralBit32(32), Operand::LiteralBit32(0)],
        )
    }
    fn t_int(&mut self) -> Word {
        self.global(
            Op::TypeInt,
            None,
            vec![Operand::LiteralBit32(32), Operand::LiteralBit32(1)],
        )
    }
    fn t_float(&mut self) -> Word {
        self.global(Op::TypeFloat, None, vec![Operand::LiteralBit32(32)])
    }
    fn t_bool(&mut self) -> Word {
        self.global(Op::TypeBool, None, vec![])
    }
    fn t_vec(&mut self, c: Word, n: u32) -> Word {
        if n == 1 {
            return c;
        }
        self.global(
            Op::TypeVector,
            None,
            vec![Operand::IdRef(c), Operand::LiteralBit32(n)],
        )
    }
    fn t_uvec(&mut self, n: u32) -> Word {
        let u = self.t_uint();
        self.t_vec(u, n)
    }
    fn t_ptr(&mut self, sc: StorageClass, t: Word) -> Word {
        let p = self.global(
            Op::TypePointer,
            None,
            vec![Operand::StorageClass(sc), Operand::IdRef(t)],
        );
        self.ty.entry(p).or_insert(Ty::Pointer(sc, t));
        p
    }
    fn t_f32(&mut self, s: Shape) -> Word {
        let f = self.t_float();
        match s {
            Shape::S => f,
            Shape::V(n) => self.t_vec(f, n),
            Shape::M(c, r) => {
                let col = self.t_vec(f, r);
                self.global(
                    Op::TypeMatrix,
                    None,
                    vec![Operand::IdRef(col), Operand::LiteralBit32(c)],
                )
            }
        }
    }
    fn cu(&mut self, v: u32) -> Word {
        let u = self.t_uint();
        self.global(Op::Constant, Some(u), vec![Operand::LiteralBit32(v)])
    }
    fn ci(&mut self, v: i32) -> Word {
        let i = self.t_int();
        self.global(Op::Constant, Some(i), vec![Operand::LiteralBit32(v as u32)])
    }
    fn cnull(&mut self, t: Word) -> Word {
        self.global(Op::ConstantNull, Some(t), vec![])
    }

    // ---- instruction emission ------------------------------------------

    fn emit(
        &mut self,
        out: &mut Vec<Instruction>,
        op: Op,
        ty: Word,
        operands: Vec<Operand>,
    ) -> Word {
        let id = self.fresh();
        out.push(Instruction::new(op, Some(ty), Some(id), operands));
        id
    }
    fn e(&mut self, out: &mut Vec<Instruction>, op: Op, ty: Word, args: &[Word]) -> Word {
        self.emit(out, op, ty, ids(args))
    }
    fn ext(&mut self, out: &mut Vec<Instruction>, ty: Word, v: Word, k: u32) -> Word {
        self.emit(
            out,
            Op::CompositeExtract,
            ty,
            vec![Operand::IdRef(v), Operand::LiteralBit32(k)],
        )
    }
    fn glsl_set(&mut self) -> Word {
        if let Some(g) = self.glsl {
            return g;
        }
        let found = self.m.ext_inst_imports.iter().find_map(|i| {
            matches!(i.operands.first(), Some(Operand::LiteralString(s)) if s == "GLSL.std.450")
                .then_some(i.result_id)
                .flatten()
        });
        let g = match found {
            Some(g) => g,
            None => {
                let g = self.fresh();
                self.m.ext_inst_imports.push(Instruction::new(
                    Op::ExtInstImport,
                    None,
                    Some(g),
                    vec![Operand::LiteralString("GLSL.std.450".into())],
                ));
                g
            }
        };
        self.glsl = Some(g);
        g
    }
    fn call(&mut self, out: &mut Vec<Instruction>, ty: Word, f: Word, args: &[Word]) -> Word {
        let mut a = vec![f];
        a.extend_from_slice(args);
        self.e(out, Op::FunctionCall, ty, &a)
    }
    /// `a op constant`
    fn ek(&mut self, out: &mut Vec<Instruction>, op: Op, ty: Word, a: Word, k: u32) -> Word {
        let c = self.cu(k);
        self.e(out, op, ty, &[a, c])
    }
    fn sel(&mut self, out: &mut Vec<Instruction>, ty: Word, c: Word, a: Word, b: Word) -> Word {
        self.e(out, Op::Select, ty, &[c, a, b])
    }

    // ---- helper functions ----------------------------------------------

    fn helper_fn(
        &mut self,
        name: &'static str,
        ret: Word,
        params: &[Word],
        body: impl FnOnce(&mut Self, &mut Vec<Instruction>, &[Word]) -> Word,
    ) -> Word {
        if let Some(&f) = self.helpers.get(name) {
            return f;
        }
        let mut fty_ops = vec![Operand::IdRef(ret)];
        fty_ops.extend(ids(params));
        let fty = self.global(Op::TypeFunction, None, fty_ops);
        let fid = self.fresh();
        self.helpers.insert(name, fid);
        let pids: Vec<Word> = params.iter().map(|_| self.fresh()).collect();
        let label = self.fresh();
        let mut out = Vec::new();
        let r = body(self, &mut out, &pids);
        out.push(Instruction::new(
            Op::ReturnValue,
            None,
            None,
            vec![Operand::IdRef(r)],
        ));
        let mut f = Function::new();
        f.def = Some(Instruction::new(
            Op::Function,
            Some(ret),
            Some(fid),
            vec![
                Operand::FunctionControl(spirv::FunctionControl::NONE),
                Operand::IdRef(fty),
            ],
        ));
        f.parameters = params
            .iter()
            .zip(&pids)
            .map(|(&t, &id)| Instruction::new(Op::FunctionParameter, Some(t), Some(id), vec![]))
            .collect();
        f.blocks = vec![Block {
            label: Some(Instruction::new(Op::Label, None, Some(label), vec![])),
            instructions: out,
        }];
        f.end = Some(Instruction::new(Op::FunctionEnd, None, None, vec![]));
        self.m.debug_names.push(Instruction::new(
            Op::Name,
            None,
            None,
            vec![Operand::IdRef(fid), Operand::LiteralString(name.into())],
        ));
        self.new_fns.push(f);
        fid
    }

    /// double bits -> float, round to nearest even.
    fn h_d2f(&mut self) -> Word {
        let (u, i, b, f, u2) = (
            self.t_uint(),
            self.t_int(),
            self.t_bool(),
            self.t_float(),
            self.t_uvec(2),
        );
        self.helper_fn("mgl_d2f", f, &[u2], |p, o, a| {
            let lo = p.ext(o, u, a[0], 0);
            let hi = p.ext(o, u, a[0], 1);
            let sign = p.ek(o, Op::BitwiseAnd, u, hi, 0x8000_0000);
            let e_sh = p.ek(o, Op::ShiftRightLogical, u, hi, 20);
            let e = p.ek(o, Op::BitwiseAnd, u, e_sh, 0x7ff);
            let mhi = p.ek(o, Op::BitwiseAnd, u, hi, 0xfffff);
            // NaN / infinity
            let special = p.ek(o, Op::IEqual, b, e, 0x7ff);
            let mor = p.e(o, Op::BitwiseOr, u, &[mhi, lo]);
            let mnz = p.ek(o, Op::INotEqual, b, mor, 0);
            let m3 = p.ek(o, Op::ShiftLeftLogical, u, mhi, 3);
            let l29 = p.ek(o, Op::ShiftRightLogical, u, lo, 29);
            let nm = p.e(o, Op::BitwiseOr, u, &[m3, l29]);
            let nq = p.ek(o, Op::BitwiseOr, u, nm, 0x40_0000);
            let zero = p.cu(0);
            let nanm = p.sel(o, u, mnz, nq, zero);
            let s_inf = p.ek(o, Op::BitwiseOr, u, sign, 0x7f80_0000);
            let nanbits = p.e(o, Op::BitwiseOr, u, &[s_inf, nanm]);
            // X: the 53-bit significand's top 30 bits under bit 30, sticky at bit 0.
            let lsticky = p.ek(o, Op::BitwiseAnd, u, lo, 0x3f_ffff);
            let stk_b = p.ek(o, Op::INotEqual, b, lsticky, 0);
            let one = p.cu(1);
            let stk = p.sel(o, u, stk_b, one, zero);
            let m10 = p.ek(o, Op::ShiftLeftLogical, u, mhi, 10);
            let l22 = p.ek(o, Op::ShiftRightLogical, u, lo, 22);
            let x0 = p.e(o, Op::BitwiseOr, u, &[m10, l22]);
            let x1 = p.e(o, Op::BitwiseOr, u, &[x0, stk]);
            let x = p.ek(o, Op::BitwiseOr, u, x1, 0x4000_0000);
            let ei = p.e(o, Op::Bitcast, i, &[e]);
            let c896 = p.ci(896);
            let e32 = p.e(o, Op::ISub, i, &[ei, c896]);
            let i1 = p.ci(1);
            let normal = p.e(o, Op::SGreaterThanEqual, b, &[e32, i1]);
            let i8 = p.ci(8);
            let t_den = p.e(o, Op::ISub, i, &[i8, e32]);
            let i7 = p.ci(7);
            let ti = p.sel(o, i, normal, i7, t_den);
            let i31 = p.ci(31);
            let big = p.e(o, Op::SGreaterThan, b, &[ti, i31]);
            let tc = p.sel(o, i, big, i31, ti);
            let t = p.e(o, Op::Bitcast, u, &[tc]);
            let q = p.e(o, Op::ShiftRightLogical, u, &[x, t]);
            let bit = p.e(o, Op::ShiftLeftLogical, u, &[one, t]);
            let mask = p.e(o, Op::ISub, u, &[bit, one]);
            let rem = p.e(o, Op::BitwiseAnd, u, &[x, mask]);
            let half = p.ek(o, Op::ShiftRightLogical, u, bit, 1);
            let gt = p.e(o, Op::UGreaterThan, b, &[rem, half]);
            let eq = p.e(o, Op::IEqual, b, &[rem, half]);
            let q1 = p.ek(o, Op::BitwiseAnd, u, q, 1);
            let odd = p.ek(o, Op::INotEqual, b, q1, 0);
            let tie = p.e(o, Op::LogicalAnd, b, &[eq, odd]);
            let up = p.e(o, Op::LogicalOr, b, &[gt, tie]);
            let inc = p.sel(o, u, up, one, zero);
            let qr = p.e(o, Op::IAdd, u, &[q, inc]);
            let qf = p.sel(o, u, big, zero, qr);
            let em1 = p.e(o, Op::ISub, i, &[e32, i1]);
            let em1u = p.e(o, Op::Bitcast, u, &[em1]);
            let eb = p.ek(o, Op::ShiftLeftLogical, u, em1u, 23);
            let expbits = p.sel(o, u, normal, eb, zero);
            let mag = p.e(o, Op::IAdd, u, &[expbits, qf]);
            let i255 = p.ci(255);
            let ovf = p.e(o, Op::SGreaterThanEqual, b, &[e32, i255]);
            let inf = p.cu(0x7f80_0000);
            let mag2 = p.sel(o, u, ovf, inf, mag);
            let fin = p.e(o, Op::BitwiseOr, u, &[sign, mag2]);
            let res = p.sel(o, u, special, nanbits, fin);
            p.e(o, Op::Bitcast, f, &[res])
        })
    }

    /// float -> double bits (exact).
    fn h_f2d(&mut self) -> Word {
        let (u, b, f, u2) = (self.t_uint(), self.t_bool(), self.t_float(), self.t_uvec(2));
        self.helper_fn("mgl_f2d", u2, &[f], |p, o, a| {
            let bits = p.e(o, Op::Bitcast, u, &[a[0]]);
            let sign = p.ek(o, Op::BitwiseAnd, u, bits, 0x8000_0000);
            let esh = p.ek(o, Op::ShiftRightLogical, u, bits, 23);
            let e = p.ek(o, Op::BitwiseAnd, u, esh, 0xff);
            let m = p.ek(o, Op::BitwiseAnd, u, bits, 0x7f_ffff);
            // denormal: float(m) is exact and normal; its exponent says where the top bit is.
            let fm = p.e(o, Op::ConvertUToF, f, &[m]);
            let bm = p.e(o, Op::Bitcast, u, &[fm]);
            let emsh = p.ek(o, Op::ShiftRightLogical, u, bm, 23);
            let em = p.ek(o, Op::BitwiseAnd, u, emsh, 0xff);
            let mm = p.ek(o, Op::BitwiseAnd, u, bm, 0x7f_ffff);
            let isden = p.ek(o, Op::IEqual, b, e, 0);
            let c747 = p.cu(747);
            let c896 = p.cu(896);
            let ed = p.e(o, Op::IAdd, u, &[em, c747]);
            let en = p.e(o, Op::IAdd, u, &[e, c896]);
            let ee = p.sel(o, u, isden, ed, en);
            let mmx = p.sel(o, u, isden, mm, m);
            let e20 = p.ek(o, Op::ShiftLeftLogical, u, ee, 20);
            let m3 = p.ek(o, Op::ShiftRightLogical, u, mmx, 3);
            let h0 = p.e(o, Op::BitwiseOr, u, &[sign, e20]);
            let hn = p.e(o, Op::BitwiseOr, u, &[h0, m3]);
            let ln = p.ek(o, Op::ShiftLeftLogical, u, mmx, 29);
            let absb = p.ek(o, Op::BitwiseAnd, u, bits, 0x7fff_ffff);
            let zero_b = p.ek(o, Op::IEqual, b, absb, 0);
            let special = p.ek(o, Op::IEqual, b, e, 0xff);
            let mnz = p.ek(o, Op::INotEqual, b, m, 0);
            let qbit = p.cu(0x8_0000);
            let zero = p.cu(0);
            let q = p.sel(o, u, mnz, qbit, zero);
            let ms3 = p.ek(o, Op::ShiftRightLogical, u, m, 3);
            let s1 = p.ek(o, Op::BitwiseOr, u, sign, 0x7ff0_0000);
            let s2 = p.e(o, Op::BitwiseOr, u, &[s1, ms3]);
            let hs = p.e(o, Op::BitwiseOr, u, &[s2, q]);
            let ls = p.ek(o, Op::ShiftLeftLogical, u, m, 29);
            let h1 = p.sel(o, u, special, hs, hn);
            let l1 = p.sel(o, u, special, ls, ln);
            let hi = p.sel(o, u, zero_b, sign, h1);
            let lo = p.sel(o, u, zero_b, zero, l1);
            p.e(o, Op::CompositeConstruct, u2, &[lo, hi])
        })
    }

    /// uint -> double bits (exact).
    fn h_u2d(&mut self) -> Word {
        let (u, i, b, u2) = (self.t_uint(), self.t_int(), self.t_bool(), self.t_uvec(2));
        let g = self.glsl_set();
        self.helper_fn("mgl_u2d", u2, &[u], |p, o, a| {
            let v = a[0];
            let msb_i = p.emit(
                o,
                Op::ExtInst,
                i,
                vec![
                    Operand::IdRef(g),
                    Operand::LiteralExtInstInteger(75),
                    Operand::IdRef(v),
                ],
            );
            let msb_r = p.e(o, Op::Bitcast, u, &[msb_i]);
            let iszero = p.ek(o, Op::IEqual, b, v, 0);
            let zero = p.cu(0);
            let msb = p.sel(o, u, iszero, zero, msb_r);
            let one = p.cu(1);
            let top = p.e(o, Op::ShiftLeftLogical, u, &[one, msb]);
            let mp = p.e(o, Op::BitwiseXor, u, &[v, top]);
            let le20 = p.ek(o, Op::ULessThanEqual, b, msb, 20);
            let c20 = p.cu(20);
            let a1 = p.e(o, Op::ISub, u, &[c20, msb]);
            let a2 = p.e(o, Op::ISub, u, &[msb, c20]);
            let sh1 = p.sel(o, u, le20, a1, a2);
            let hl = p.e(o, Op::ShiftLeftLogical, u, &[mp, sh1]);
            let hr = p.e(o, Op::ShiftRightLogical, u, &[mp, sh1]);
            let h20 = p.sel(o, u, le20, hl, hr);
            let c52 = p.cu(52);
            let s2r = p.e(o, Op::ISub, u, &[c52, msb]);
            let s2 = p.sel(o, u, le20, zero, s2r);
            let lr = p.e(o, Op::ShiftLeftLogical, u, &[mp, s2]);
            let lo0 = p.sel(o, u, le20, zero, lr);
            let c1023 = p.cu(1023);
            let ex = p.e(o, Op::IAdd, u, &[msb, c1023]);
            let exs = p.ek(o, Op::ShiftLeftLogical, u, ex, 20);
            let hi0 = p.e(o, Op::BitwiseOr, u, &[exs, h20]);
            let hi = p.sel(o, u, iszero, zero, hi0);
            let lo = p.sel(o, u, iszero, zero, lo0);
            p.e(o, Op::CompositeConstruct, u2, &[lo, hi])
        })
    }

    /// int -> double bits (exact).
    fn h_i2d(&mut self) -> Word {
        let (u, i, b, u2) = (self.t_uint(), self.t_int(), self.t_bool(), self.t_uvec(2));
        let u2d = self.h_u2d();
        self.helper_fn("mgl_i2d", u2, &[i], |p, o, a| {
            let zi = p.ci(0);
            let neg = p.e(o, Op::SLessThan, b, &[a[0], zi]);
            let n = p.e(o, Op::SNegate, i, &[a[0]]);
            let abs_i = p.sel(o, i, neg, n, a[0]);
            let abs_u = p.e(o, Op::Bitcast, u, &[abs_i]);
            let d = p.call(o, u2, u2d, &[abs_u]);
            let lo = p.ext(o, u, d, 0);
            let hi = p.ext(o, u, d, 1);
            let sb = p.cu(0x8000_0000);
            let zero = p.cu(0);
            let s = p.sel(o, u, neg, sb, zero);
            let hi2 = p.e(o, Op::BitwiseOr, u, &[hi, s]);
            p.e(o, Op::CompositeConstruct, u2, &[lo, hi2])
        })
    }

    /// |double| truncated to uint (magnitudes from 2^32 up are undefined in GL).
    fn h_d2u(&mut self) -> Word {
        let (u, i, b, u2) = (self.t_uint(), self.t_int(), self.t_bool(), self.t_uvec(2));
        self.helper_fn("mgl_d2u", u, &[u2], |p, o, a| {
            let lo = p.ext(o, u, a[0], 0);
            let hi = p.ext(o, u, a[0], 1);
            let ex = p.exponent(o, hi, 1023);
            let zi = p.ci(0);
            let neg = p.e(o, Op::SLessThan, b, &[ex, zi]);
            let c31 = p.ci(31);
            let big = p.e(o, Op::SGreaterThan, b, &[ex, c31]);
            let exc0 = p.sel(o, i, big, c31, ex);
            let exc1 = p.sel(o, i, neg, zi, exc0);
            let eu = p.e(o, Op::Bitcast, u, &[exc1]);
            let mhi = p.ek(o, Op::BitwiseAnd, u, hi, 0xfffff);
            let c52 = p.cu(52);
            let k = p.e(o, Op::ISub, u, &[c52, eu]); // 21..52
            let ge32 = p.ek(o, Op::UGreaterThanEqual, b, k, 32);
            let c32 = p.cu(32);
            let zero = p.cu(0);
            let one = p.cu(1);
            let ka = p.e(o, Op::ISub, u, &[k, c32]);
            let sa = p.sel(o, u, ge32, ka, zero);
            let kb = p.e(o, Op::ISub, u, &[c32, k]);
            let sb = p.sel(o, u, ge32, one, kb);
            let sc = p.sel(o, u, ge32, zero, k);
            let pa = p.e(o, Op::ShiftRightLogical, u, &[mhi, sa]);
            let pb0 = p.e(o, Op::ShiftLeftLogical, u, &[mhi, sb]);
            let pc = p.e(o, Op::ShiftRightLogical, u, &[lo, sc]);
            let pb = p.e(o, Op::BitwiseOr, u, &[pb0, pc]);
            let part = p.sel(o, u, ge32, pa, pb);
            let top = p.e(o, Op::ShiftLeftLogical, u, &[one, eu]);
            let val = p.e(o, Op::BitwiseOr, u, &[top, part]);
            p.sel(o, u, neg, zero, val)
        })
    }

    fn h_d2i(&mut self) -> Word {
        let (u, i, b, u2) = (self.t_uint(), self.t_int(), self.t_bool(), self.t_uvec(2));
        let d2u = self.h_d2u();
        self.helper_fn("mgl_d2i", i, &[u2], |p, o, a| {
            let hi = p.ext(o, u, a[0], 1);
            let mag = p.call(o, u, d2u, &[a[0]]);
            let mi = p.e(o, Op::Bitcast, i, &[mag]);
            let n = p.e(o, Op::SNegate, i, &[mi]);
            let sb = p.ek(o, Op::BitwiseAnd, u, hi, 0x8000_0000);
            let neg = p.ek(o, Op::INotEqual, b, sb, 0);
            p.sel(o, i, neg, n, mi)
        })
    }

    /// trunc(double), exact: the fraction bits cleared.
    fn h_trunc(&mut self) -> Word {
        let (u, i, b, u2) = (self.t_uint(), self.t_int(), self.t_bool(), self.t_uvec(2));
        self.helper_fn("mgl_dtrunc", u2, &[u2], |p, o, a| {
            let lo = p.ext(o, u, a[0], 0);
            let hi = p.ext(o, u, a[0], 1);
            let ex = p.exponent(o, hi, 1023);
            let zi = p.ci(0);
            let small = p.e(o, Op::SLessThan, b, &[ex, zi]);
            let c52 = p.ci(52);
            let whole = p.e(o, Op::SGreaterThanEqual, b, &[ex, c52]);
            // n = 52 - E fraction bits (1..52 when neither case above)
            let n0 = p.e(o, Op::ISub, i, &[c52, ex]);
            let one_i = p.ci(1);
            let n1 = p.e(o, Op::SLessThan, b, &[n0, one_i]);
            let n2 = p.sel(o, i, n1, one_i, n0);
            let n3 = p.e(o, Op::SGreaterThan, b, &[n2, c52]);
            let nn = p.sel(o, i, n3, c52, n2);
            let n = p.e(o, Op::Bitcast, u, &[nn]);
            let ge32 = p.ek(o, Op::UGreaterThanEqual, b, n, 32);
            let c32 = p.cu(32);
            let zero = p.cu(0);
            let one = p.cu(1);
            let nh0 = p.e(o, Op::ISub, u, &[n, c32]);
            let nh = p.sel(o, u, ge32, nh0, zero);
            let nl = p.sel(o, u, ge32, zero, n);
            let bh = p.e(o, Op::ShiftLeftLogical, u, &[one, nh]);
            let mh0 = p.e(o, Op::ISub, u, &[bh, one]);
            let mh1 = p.e(o, Op::Not, u, &[mh0]);
            let all = p.cu(0xffff_ffff);
            let mh = p.sel(o, u, ge32, mh1, all);
            let bl = p.e(o, Op::ShiftLeftLogical, u, &[one, nl]);
            let ml0 = p.e(o, Op::ISub, u, &[bl, one]);
            let ml = p.e(o, Op::Not, u, &[ml0]);
            let ml2 = p.sel(o, u, ge32, zero, ml);
            let th = p.e(o, Op::BitwiseAnd, u, &[hi, mh]);
            let tl = p.e(o, Op::BitwiseAnd, u, &[lo, ml2]);
            let sign = p.ek(o, Op::BitwiseAnd, u, hi, 0x8000_0000);
            let h1 = p.sel(o, u, whole, hi, th);
            let l1 = p.sel(o, u, whole, lo, tl);
            let h2 = p.sel(o, u, small, sign, h1);
            let l2 = p.sel(o, u, small, zero, l1);
            p.e(o, Op::CompositeConstruct, u2, &[l2, h2])
        })
    }

    fn h_isnan(&mut self) -> Word {
        let (u, b, u2) = (self.t_uint(), self.t_bool(), self.t_uvec(2));
        self.helper_fn("mgl_disnan", b, &[u2], |p, o, a| {
            let lo = p.ext(o, u, a[0], 0);
            let hi = p.ext(o, u, a[0], 1);
            let ah = p.ek(o, Op::BitwiseAnd, u, hi, 0x7fff_ffff);
            let gt = p.ek(o, Op::UGreaterThan, b, ah, 0x7ff0_0000);
            let eq = p.ek(o, Op::IEqual, b, ah, 0x7ff0_0000);
            let lnz = p.ek(o, Op::INotEqual, b, lo, 0);
            let t = p.e(o, Op::LogicalAnd, b, &[eq, lnz]);
            p.e(o, Op::LogicalOr, b, &[gt, t])
        })
    }

    fn h_isinf(&mut self) -> Word {
        let (u, b, u2) = (self.t_uint(), self.t_bool(), self.t_uvec(2));
        self.helper_fn("mgl_disinf", b, &[u2], |p, o, a| {
            let lo = p.ext(o, u, a[0], 0);
            let hi = p.ext(o, u, a[0], 1);
            let ah = p.ek(o, Op::BitwiseAnd, u, hi, 0x7fff_ffff);
            let eq = p.ek(o, Op::IEqual, b, ah, 0x7ff0_0000);
            let lz = p.ek(o, Op::IEqual, b, lo, 0);
            p.e(o, Op::LogicalAnd, b, &[eq, lz])
        })
    }

    /// The exponent field of a double's high word minus `bias`, as `int`
    /// (1023: the unbiased exponent; 1022: frexp's).
    fn exponent(&mut self, o: &mut Vec<Instruction>, hi: Word, bias: i32) -> Word {
        let (u, i) = (self.t_uint(), self.t_int());
        let esh = self.ek(o, Op::ShiftRightLogical, u, hi, 20);
        let e = self.ek(o, Op::BitwiseAnd, u, esh, 0x7ff);
        let ei = self.e(o, Op::Bitcast, i, &[e]);
        let b = self.ci(bias);
        self.e(o, Op::ISub, i, &[ei, b])
    }

    /// What `==` and `<` on two doubles (`a[0]`, `a[1]`) both start from:
    /// their halves, whether either is NaN and whether both are zeros of
    /// any sign.
    fn compare_parts(&mut self, o: &mut Vec<Instruction>, a: &[Word], isnan: Word) -> CompareParts {
        let (u, b) = (self.t_uint(), self.t_bool());
        let (al, ah) = (self.ext(o, u, a[0], 0), self.ext(o, u, a[0], 1));
        let (bl, bh) = (self.ext(o, u, a[1], 0), self.ext(o, u, a[1], 1));
        let na = self.call(o, b, isnan, &[a[0]]);
        let nb = self.call(o, b, isnan, &[a[1]]);
        let un = self.e(o, Op::LogicalOr, b, &[na, nb]);
        let ho = self.e(o, Op::BitwiseOr, u, &[ah, bh]);
        let hm = self.ek(o, Op::BitwiseAnd, u, ho, 0x7fff_ffff);
        let lor = self.e(o, Op::BitwiseOr, u, &[al, bl]);
        let z = self.e(o, Op::BitwiseOr, u, &[hm, lor]);
        let bz = self.ek(o, Op::IEqual, b, z, 0);
        CompareParts {
            al,
            ah,
            bl,
            bh,
            un,
            bz,
        }
    }

    /// Ordered a == b.
    fn h_eq(&mut self) -> Word {
        let (b, u2) = (self.t_bool(), self.t_uvec(2));
        let isnan = self.h_isnan();
        self.helper_fn("mgl_deq", b, &[u2, u2], |p, o, a| {
            let CompareParts {
                al,
                ah,
                bl,
                bh,
                un,
                bz,
            } = p.compare_parts(o, a, isnan);
            let le = p.e(o, Op::IEqual, b, &[al, bl]);
            let he = p.e(o, Op::IEqual, b, &[ah, bh]);
            let same = p.e(o, Op::LogicalAnd, b, &[le, he]);
            let eq = p.e(o, Op::LogicalOr, b, &[same, bz]);
            let nun = p.e(o, Op::LogicalNot, b, &[un]);
            p.e(o, Op::LogicalAnd, b, &[nun, eq])
        })
    }

    /// Ordered a < b.
    fn h_lt(&mut self) -> Word {
        let (u, b, u2) = (self.t_uint(), self.t_bool(), self.t_uvec(2));
        let isnan = self.h_isnan();
        self.helper_fn("mgl_dlt", b, &[u2, u2], |p, o, a| {
            let CompareParts {
                al,
                ah,
                bl,
                bh,
                un,
                bz,
            } = p.compare_parts(o, a, isnan);
            let key = |p: &mut Self, o: &mut Vec<Instruction>, l: Word, h: Word| {
                let sb = p.ek(o, Op::BitwiseAnd, u, h, 0x8000_0000);
                let s = p.ek(o, Op::INotEqual, b, sb, 0);
                let nh = p.e(o, Op::Not, u, &[h]);
                let nl = p.e(o, Op::Not, u, &[l]);
                let ph = p.ek(o, Op::BitwiseOr, u, h, 0x8000_0000);
                let kh = p.sel(o, u, s, nh, ph);
                let kl = p.sel(o, u, s, nl, l);
                (kl, kh)
            };
            let (kal, kah) = key(p, o, al, ah);
            let (kbl, kbh) = key(p, o, bl, bh);
            let hlt = p.e(o, Op::ULessThan, b, &[kah, kbh]);
            let heq = p.e(o, Op::IEqual, b, &[kah, kbh]);
            let llt = p.e(o, Op::ULessThan, b, &[kal, kbl]);
            let t = p.e(o, Op::LogicalAnd, b, &[heq, llt]);
            let lt = p.e(o, Op::LogicalOr, b, &[hlt, t]);
            let bad = p.e(o, Op::LogicalOr, b, &[un, bz]);
            let ok = p.e(o, Op::LogicalNot, b, &[bad]);
            p.e(o, Op::LogicalAnd, b, &[ok, lt])
        })
    }

    // ---- per-value helpers ---------------------------------------------

    /// The `uvec2` components of a lowered double scalar / vector value.
    fn comps(&mut self, out: &mut Vec<Instruction>, v: Word, s: Shape) -> R<Vec<Word>> {
        let u2 = self.t_uvec(2);
        match s {
            Shape::S => Ok(vec![v]),
            Shape::V(n) => Ok((0..n).map(|k| self.ext(out, u2, v, k)).collect()),
            Shape::M(..) => Err(Fp64Error::Unsupported(
                "a component-wise operation on a double matrix".into(),
            )),
        }
    }

    /// Build a lowered double scalar / vector of original type `t` with id `res`.
    fn build(&mut self, out: &mut Vec<Instruction>, t: Word, res: Word, mut c: Vec<Word>) {
        if c.len() == 1 && self.shape(t) == Some(Shape::S) {
            out.push(Instruction::new(
                Op::CopyObject,
                Some(t),
                Some(res),
                vec![Operand::IdRef(c[0])],
            ));
            return;
        }
        if self.d3.contains(&t) {
            let u2 = self.t_uvec(2);
            c.push(self.cnull(u2));
        }
        out.push(Instruction::new(
            Op::CompositeConstruct,
            Some(t),
            Some(res),
            ids(&c),
        ));
    }

    /// Decode a lowered double value of original type `t` to f32.
    fn decode(&mut self, out: &mut Vec<Instruction>, v: Word, t: Word) -> R<Word> {
        let s = self
            .shape(t)
            .ok_or_else(|| Fp64Error::Unsupported("an aggregate double operand".into()))?;
        let d2f = self.h_d2f();
        let f = self.t_float();
        match s {
            Shape::S => Ok(self.call(out, f, d2f, &[v])),
            Shape::V(n) => {
                let c = self.comps(out, v, s)?;
                let fs: Vec<Word> = c.iter().map(|&x| self.call(out, f, d2f, &[x])).collect();
                let vt = self.t_f32(Shape::V(n));
                Ok(self.e(out, Op::CompositeConstruct, vt, &fs))
            }
            Shape::M(cols, _) => {
                let Some(Ty::Matrix(colt, _)) = self.ty.get(&t).cloned() else {
                    return Err(Fp64Error::Malformed("matrix"));
                };
                let mut cs = Vec::new();
                for k in 0..cols {
                    let col = self.ext(out, colt, v, k);
                    cs.push(self.decode(out, col, colt)?);
                }
                let mt = self.t_f32(s);
                Ok(self.e(out, Op::CompositeConstruct, mt, &cs))
            }
        }
    }

    /// Encode an f32 value to the lowered double type `t`, result id `res`.
    fn encode(&mut self, out: &mut Vec<Instruction>, v: Word, t: Word, res: Word) -> R<()> {
        let s = self.shape(t).ok_or(Fp64Error::Malformed("double result"))?;
        let f2d = self.h_f2d();
        let (f, u2) = (self.t_float(), self.t_uvec(2));
        match s {
            Shape::S => {
                out.push(Instruction::new(
                    Op::FunctionCall,
                    Some(t),
                    Some(res),
                    ids(&[f2d, v]),
                ));
            }
            Shape::V(n) => {
                let mut c = Vec::new();
                for k in 0..n {
                    let x = self.ext(out, f, v, k);
                    c.push(self.call(out, u2, f2d, &[x]));
                }
                self.build(out, t, res, c);
            }
            Shape::M(cols, r) => {
                let Some(Ty::Matrix(colt, _)) = self.ty.get(&t).cloned() else {
                    return Err(Fp64Error::Malformed("matrix"));
                };
                let vt = self.t_f32(Shape::V(r));
                let mut cs = Vec::new();
                for k in 0..cols {
                    let col = self.ext(out, vt, v, k);
                    let id = self.fresh();
                    self.encode(out, col, colt, id)?;
                    cs.push(id);
                }
                out.push(Instruction::new(
                    Op::CompositeConstruct,
                    Some(t),
                    Some(res),
                    ids(&cs),
                ));
            }
        }
        Ok(())
    }

    // ---- the pass ------------------------------------------------------

    fn run(&mut self) -> R<()> {
        if matches!(self.stage, 1 | 2) {
            // Checked before anything: tessellation interfaces are arrays of
            // per-vertex values this pass does not split.
            let io = self.m.types_global_values.iter().any(|i| {
                i.class.opcode == Op::Variable
                    && matches!(
                        i.operands.first(),
                        Some(Operand::StorageClass(
                            StorageClass::Input | StorageClass::Output
                        ))
                    )
                    && i.result_type.is_some_and(|t| self.hd(t))
            });
            if io {
                return Err(Fp64Error::Unsupported(
                    "a double in a tessellation shader interface".into(),
                ));
            }
        }
        self.lower_types()?;
        self.pad_blocks()?;
        self.lower_interface()?;
        self.lower_functions()?;
        self.insert_copies();
        Ok(())
    }

    /// Retype doubles in place (same ids): see the module doc's table.
    fn lower_types(&mut self) -> R<()> {
        let u2 = self.t_uvec(2);
        let mut globals = std::mem::take(&mut self.m.types_global_values);
        for ins in globals.iter_mut() {
            let Some(id) = ins.result_id else { continue };
            match ins.class.opcode {
                Op::TypeFloat if self.shape(id) == Some(Shape::S) => {
                    // Replaced by uvec2 (duplicates are merged in `finish`).
                    *ins = Instruction::new(
                        Op::TypeVector,
                        None,
                        Some(id),
                        vec![Operand::IdRef(self.t_uint()), Operand::LiteralBit32(2)],
                    );
                }
                Op::TypeVector => {
                    if let Some(Shape::V(n)) = self.shape(id) {
                        let members = if n == 3 { 4 } else { n };
                        if n == 3 {
                            self.d3.insert(id);
                        }
                        *ins = Instruction::new(
                            Op::TypeStruct,
                            None,
                            Some(id),
                            ids(&vec![u2; members as usize]),
                        );
                        for k in 0..members {
                            self.new_annots.push(Instruction::new(
                                Op::MemberDecorate,
                                None,
                                None,
                                vec![
                                    Operand::IdRef(id),
                                    Operand::LiteralBit32(k),
                                    Operand::Decoration(Decoration::Offset),
                                    Operand::LiteralBit32(8 * k),
                                ],
                            ));
                        }
                    }
                }
                Op::TypeMatrix => {
                    if let Some(Shape::M(c, r)) = self.shape(id) {
                        let Some(Ty::Matrix(colt, _)) = self.ty.get(&id).cloned() else {
                            continue;
                        };
                        let len = self.cu(c);
                        *ins = Instruction::new(Op::TypeArray, None, Some(id), ids(&[colt, len]));
                        self.new_annots.push(Instruction::new(
                            Op::Decorate,
                            None,
                            None,
                            vec![
                                Operand::IdRef(id),
                                Operand::Decoration(Decoration::ArrayStride),
                                Operand::LiteralBit32(if r == 2 { 16 } else { 32 }),
                            ],
                        ));
                    }
                }
                Op::Constant => {
                    let Some(rt) = ins.result_type else { continue };
                    if self.shape(rt) == Some(Shape::S) {
                        let bits = match ins.operands.first() {
                            Some(Operand::LiteralBit64(v)) => *v,
                            Some(Operand::LiteralBit32(v)) => u64::from(*v),
                            _ => return Err(Fp64Error::Malformed("double constant")),
                        };
                        let lo = self.cu(bits as u32);
                        let hi = self.cu((bits >> 32) as u32);
                        *ins = Instruction::new(
                            Op::ConstantComposite,
                            Some(rt),
                            Some(id),
                            ids(&[lo, hi]),
                        );
                    }
                }
                Op::ConstantComposite if ins.result_type.is_some_and(|t| self.d3.contains(&t)) => {
                    let n = self.cnull(u2);
                    ins.operands.push(Operand::IdRef(n));
                }
                Op::SpecConstant | Op::SpecConstantComposite | Op::SpecConstantOp
                    if ins.result_type.is_some_and(|t| self.hd(t)) =>
                {
                    return Err(Fp64Error::Unsupported(
                        "a double specialization constant".into(),
                    ));
                }
                _ => {}
            }
        }
        self.m.types_global_values = globals;
        // Row-major double matrices would need a transposed layout.
        for a in &self.m.annotations {
            if a.class.opcode == Op::MemberDecorate
                && matches!(
                    a.operands.get(2),
                    Some(Operand::Decoration(Decoration::RowMajor))
                )
            {
                let s = a.operands.first().and_then(id_of).unwrap_or(0);
                let k = a.operands.get(1).and_then(lit_of).unwrap_or(u32::MAX) as usize;
                if let Some(Ty::Struct(ms)) = self.ty.get(&s) {
                    if ms.get(k).is_some_and(|&m| self.hd(m)) {
                        return Err(Fp64Error::Unsupported("a row_major double matrix".into()));
                    }
                }
            }
        }
        Ok(())
    }

    /// (align, size) of a lowered type under `rule`; None: unknown.
    fn layout(
        &self,
        t: Word,
        rule: Rule,
        offsets: &FxHashMap<(Word, u32), u32>,
        strides: &FxHashMap<Word, u32>,
        depth: u32,
    ) -> Option<(u32, u32)> {
        if depth > 32 {
            return None;
        }
        let r16 = |a: u32| {
            if rule == Rule::Std140 {
                align_up(a, 16)
            } else {
                a
            }
        };
        if let Some(s) = self.shape(t) {
            // Lowered double types.
            return Some(match s {
                Shape::S => (8, 8),
                Shape::V(2) => (r16(8), 16),
                Shape::V(_) => (r16(8), 32),
                Shape::M(c, r) => (r16(8), c * if r == 2 { 16 } else { 32 }),
            });
        }
        match self.ty.get(&t)? {
            Ty::Bool | Ty::Int(32) | Ty::Float(32) => Some((4, 4)),
            Ty::Vector(c, n) => {
                let (ca, cs) = self.layout(*c, rule, offsets, strides, depth + 1)?;
                let a = if *n == 2 { ca * 2 } else { ca * 4 };
                Some((a, cs * n))
            }
            Ty::Matrix(col, c) => {
                let (ca, cs) = self.layout(*col, rule, offsets, strides, depth + 1)?;
                let a = r16(ca);
                Some((a, align_up(cs, a) * c))
            }
            Ty::Array(e, len) => {
                let (ea, es) = self.layout(*e, rule, offsets, strides, depth + 1)?;
                let n = *self.iconst.get(len)?;
                let stride = strides.get(&t).copied().unwrap_or(align_up(es, r16(ea)));
                Some((r16(ea), stride * n))
            }
            Ty::Struct(ms) => {
                let mut a = 4;
                let mut end = 0;
                for (k, &m) in ms.iter().enumerate() {
                    let (ma, msz) = self.layout(m, rule, offsets, strides, depth + 1)?;
                    a = a.max(ma);
                    let off = offsets
                        .get(&(t, k as u32))
                        .copied()
                        .unwrap_or(align_up(end, ma));
                    end = off + msz;
                }
                let a = r16(a);
                Some((a, align_up(end, a)))
            }
            _ => None,
        }
    }

    /// Give blocks holding doubles padding members so that the lowered
    /// members pack naturally at the offsets the doubles had.
    fn pad_blocks(&mut self) -> R<()> {
        let mut offsets: FxHashMap<(Word, u32), u32> = Default::default();
        let mut strides: FxHashMap<Word, u32> = Default::default();
        for a in &self.m.annotations {
            match (a.class.opcode, a.operands.as_slice()) {
                (
                    Op::MemberDecorate,
                    [Operand::IdRef(s), Operand::LiteralBit32(k), Operand::Decoration(Decoration::Offset), Operand::LiteralBit32(o)],
                ) => {
                    offsets.insert((*s, *k), *o);
                }
                (
                    Op::Decorate,
                    [Operand::IdRef(t), Operand::Decoration(Decoration::ArrayStride), Operand::LiteralBit32(s)],
                ) => {
                    strides.insert(*t, *s);
                }
                _ => {}
            }
        }
        // std430 for storage buffers, std140 otherwise.
        let mut std430: FxHashSet<Word> = Default::default();
        for i in &self.m.types_global_values {
            if i.class.opcode != Op::Variable {
                continue;
            }
            let sc = match i.operands.first() {
                Some(Operand::StorageClass(sc)) => *sc,
                _ => continue,
            };
            let buffer_block = |t: Word| {
                self.m.annotations.iter().any(|a| {
                    a.class.opcode == Op::Decorate
                        && a.operands.first().and_then(id_of) == Some(t)
                        && matches!(
                            a.operands.get(1),
                            Some(Operand::Decoration(Decoration::BufferBlock))
                        )
                })
            };
            let Some(Ty::Pointer(_, mut t)) = i.result_type.and_then(|t| self.ty.get(&t).cloned())
            else {
                continue;
            };
            while let Some(Ty::Array(e, _) | Ty::RuntimeArray(e)) = self.ty.get(&t) {
                t = *e;
            }
            if matches!(sc, StorageClass::StorageBuffer | StorageClass::PushConstant)
                || buffer_block(t)
            {
                self.mark430(t, &mut std430, 0);
            }
        }
        // Structs in declaration order: members before the structs holding them.
        let structs: Vec<(Word, Vec<Word>)> = self
            .m
            .types_global_values
            .iter()
            .filter_map(|i| match (i.class.opcode, i.result_id) {
                (Op::TypeStruct, Some(id)) => match self.ty.get(&id) {
                    Some(Ty::Struct(ms)) if !self.d3.contains(&id) && self.shape(id).is_none() => {
                        Some((id, ms.clone()))
                    }
                    _ => None,
                },
                _ => None,
            })
            .collect();
        for (s, ms) in structs {
            if !ms.iter().any(|&m| self.hd(m)) || !offsets.contains_key(&(s, 0)) {
                continue;
            }
            let rule = if std430.contains(&s) {
                Rule::Std430
            } else {
                Rule::Std140
            };
            let mut new_members: Vec<Word> = Vec::new();
            let mut is_pad: Vec<bool> = Vec::new();
            let mut slots: Vec<Slot> = Vec::new();
            let mut new_offsets: Vec<u32> = Vec::new();
            let mut remap = Vec::new();
            let mut end = 0u32;
            let uint = self.t_uint();
            for (k, &m) in ms.iter().enumerate() {
                let off = offsets
                    .get(&(s, k as u32))
                    .copied()
                    .ok_or(Fp64Error::Malformed("block member without offset"))?;
                let (a, size) = self.layout(m, rule, &offsets, &strides, 0).ok_or_else(|| {
                    Fp64Error::Unsupported("a block member type next to doubles".into())
                })?;
                let split3 = match (self.shape(m), self.ty.get(&m)) {
                    (Some(Shape::V(3)), Some(Ty::Vector(c, _))) => Some(*c),
                    _ => None,
                };
                let a = if split3.is_some() { 8 } else { a };
                if align_up(end, a) < off {
                    if !end.is_multiple_of(4) || !off.is_multiple_of(4) {
                        return Err(Fp64Error::Unsupported(
                            "a block layout around doubles".into(),
                        ));
                    }
                    while end < off {
                        new_members.push(uint);
                        is_pad.push(true);
                        slots.push(Slot::Pad);
                        new_offsets.push(end);
                        end += 4;
                    }
                }
                if align_up(end, a) != off {
                    return Err(Fp64Error::Unsupported(format!(
                        "a block member at offset {off} after a double (it packs at {} in ESSL)",
                        align_up(end, a)
                    )));
                }
                remap.push(new_members.len() as u32);
                if let Some(c) = split3 {
                    // A dvec3 member: three uvec2 members, so that its 8
                    // tail bytes stay free for the next member.
                    for j in 0..3 {
                        new_members.push(c);
                        is_pad.push(false);
                        slots.push(Slot::Split(j));
                        new_offsets.push(off + 8 * j);
                    }
                    self.split.insert((s, k as u32), m);
                    end = off + 24;
                    continue;
                }
                new_members.push(m);
                is_pad.push(false);
                slots.push(Slot::Keep);
                new_offsets.push(off);
                end = off + size;
            }
            if !slots.iter().any(|x| *x != Slot::Keep) {
                continue;
            }
            debug!(
                id = s,
                pads = is_pad.iter().filter(|&&p| p).count(),
                "fp64: block padded"
            );
            for i in self.m.types_global_values.iter_mut() {
                if i.result_id == Some(s) {
                    i.operands = ids(&new_members);
                }
            }
            for a in self
                .m
                .annotations
                .iter_mut()
                .chain(self.m.debug_names.iter_mut())
            {
                if matches!(a.class.opcode, Op::MemberDecorate | Op::MemberName)
                    && a.operands.first().and_then(id_of) == Some(s)
                {
                    if let Some(Operand::LiteralBit32(k)) = a.operands.get_mut(1) {
                        *k = remap.get(*k as usize).copied().unwrap_or(*k);
                    }
                }
            }
            for (k, (p, &o)) in slots.iter().zip(&new_offsets).enumerate() {
                if matches!(p, Slot::Pad | Slot::Split(1 | 2)) {
                    self.new_annots.push(Instruction::new(
                        Op::MemberDecorate,
                        None,
                        None,
                        vec![
                            Operand::IdRef(s),
                            Operand::LiteralBit32(k as u32),
                            Operand::Decoration(Decoration::Offset),
                            Operand::LiteralBit32(o),
                        ],
                    ));
                }
            }
            self.ty.insert(s, Ty::Struct(new_members));
            for (k, &o) in new_offsets.iter().enumerate() {
                offsets.insert((s, k as u32), o);
            }
            self.member_remap.insert(s, remap);
            self.pad_members.insert(s, slots);
        }
        Ok(())
    }

    fn mark430(&self, t: Word, set: &mut FxHashSet<Word>, depth: u32) {
        if depth > 32 || !set.insert(t) {
            return;
        }
        match self.ty.get(&t) {
            Some(Ty::Struct(ms)) => {
                for &m in ms {
                    self.mark430(m, set, depth + 1);
                }
            }
            Some(Ty::Array(e, _) | Ty::RuntimeArray(e)) => self.mark430(*e, set, depth + 1),
            _ => {}
        }
    }

    fn leaves(&self, t: Word, path: &mut Vec<u32>, out: &mut Vec<Leaf>, depth: u32) -> R<()> {
        if depth > 16 || out.len() > 256 {
            return Err(Fp64Error::Unsupported(
                "an interface variable this large".into(),
            ));
        }
        match (self.shape(t), self.ty.get(&t)) {
            (Some(Shape::S), _) => out.push(Leaf {
                path: path.clone(),
                ty: t,
                comps: 1,
            }),
            (Some(Shape::V(n)), _) => out.push(Leaf {
                path: path.clone(),
                ty: t,
                comps: n,
            }),
            (Some(Shape::M(c, _)), Some(Ty::Matrix(col, _))) => {
                for k in 0..c {
                    path.push(k);
                    self.leaves(*col, path, out, depth + 1)?;
                    path.pop();
                }
            }
            (_, Some(Ty::Matrix(col, c))) => {
                for k in 0..*c {
                    path.push(k);
                    out.push(Leaf {
                        path: path.clone(),
                        ty: *col,
                        comps: 0,
                    });
                    path.pop();
                }
            }
            (_, Some(Ty::Array(e, len))) => {
                let n = *self
                    .iconst
                    .get(len)
                    .ok_or(Fp64Error::Malformed("array length"))?;
                for k in 0..n {
                    path.push(k);
                    self.leaves(*e, path, out, depth + 1)?;
                    path.pop();
                }
            }
            (_, Some(Ty::Struct(ms))) => {
                for (k, &m) in ms.iter().enumerate() {
                    path.push(k as u32);
                    self.leaves(m, path, out, depth + 1)?;
                    path.pop();
                }
            }
            (_, Some(Ty::Bool | Ty::Int(..) | Ty::Float(_) | Ty::Vector(..))) => out.push(Leaf {
                path: path.clone(),
                ty: t,
                comps: 0,
            }),
            _ => {
                return Err(Fp64Error::Unsupported(
                    "an interface variable of this type".into(),
                ))
            }
        }
        Ok(())
    }

    /// Varyings / vertex inputs holding doubles -> Private + flat parts.
    fn lower_interface(&mut self) -> R<()> {
        let entry = self
            .m
            .entry_points
            .first()
            .ok_or(Fp64Error::Malformed("no entry point"))?;
        let entry_fn = entry
            .operands
            .get(1)
            .and_then(id_of)
            .ok_or(Fp64Error::Malformed("entry point"))?;
        struct Part {
            /// Flat variable pieces (one per location) for this leaf.
            leaf: Leaf,
            flat: Vec<(Word, Word)>, // (variable, value type)
        }
        let mut inputs: Vec<(Word, Option<u32>, Vec<Part>)> = Vec::new();
        let mut outputs: Vec<(Word, Vec<Part>)> = Vec::new();
        let vars: Vec<(Word, StorageClass, Word)> = self
            .m
            .types_global_values
            .iter()
            .filter(|i| i.class.opcode == Op::Variable)
            .filter_map(|i| {
                match (
                    i.operands.first(),
                    i.result_type.and_then(|t| self.ty.get(&t)),
                ) {
                    (
                        Some(Operand::StorageClass(
                            sc @ (StorageClass::Input | StorageClass::Output),
                        )),
                        Some(Ty::Pointer(_, pt)),
                    ) => i.result_id.map(|id| (id, *sc, *pt)),
                    _ => None,
                }
            })
            // ESSL also refuses array vertex inputs: split those too (in
            // a module that needs this pass anyway).
            .filter(|(_, sc, pt)| {
                self.hd(*pt)
                    || (self.stage == 0
                        && *sc == StorageClass::Input
                        && matches!(self.ty.get(pt), Some(Ty::Array(..))))
            })
            .collect();
        if vars.is_empty() {
            return Ok(());
        }
        let decos: FxHashMap<(Word, Decoration), u32> = self
            .m
            .annotations
            .iter()
            .filter_map(|a| match a.operands.as_slice() {
                [Operand::IdRef(t), Operand::Decoration(x), rest @ ..]
                    if a.class.opcode == Op::Decorate =>
                {
                    Some(((*t, *x), rest.first().and_then(lit_of).unwrap_or(0)))
                }
                _ => None,
            })
            .collect();
        let deco = |id: Word, d: Decoration| decos.get(&(id, d)).copied();
        let mut new_interface = Vec::new();
        let mut drop_ids: FxHashSet<Word> = Default::default();
        let mut block_structs: FxHashSet<Word> = Default::default();
        let mut names = Vec::new();
        for (var, sc, pt) in vars {
            let loc = deco(var, Decoration::Location).ok_or_else(|| {
                Fp64Error::Unsupported("a double varying without a location".into())
            })?;
            let geom_in = self.stage == 3 && sc == StorageClass::Input;
            let (vt, per_vertex) = if geom_in {
                match self.ty.get(&pt) {
                    Some(Ty::Array(e, len)) => (
                        *e,
                        Some(*self.iconst.get(len).ok_or(Fp64Error::Malformed("array"))?),
                    ),
                    _ => return Err(Fp64Error::Malformed("geometry input")),
                }
            } else {
                (pt, None)
            };
            let mut leaves = Vec::new();
            self.leaves(vt, &mut Vec::new(), &mut leaves, 0)?;
            let flat_deco = !(self.stage == 0 && sc == StorageClass::Input);
            let mut at = loc;
            let mut parts = Vec::new();
            for leaf in leaves {
                let pieces: Vec<Word> = match leaf.comps {
                    0 => vec![leaf.ty],
                    1 => vec![self.t_uvec(2)],
                    2 => vec![self.t_uvec(4)],
                    3 => vec![self.t_uvec(4), self.t_uvec(2)],
                    _ => vec![self.t_uvec(4), self.t_uvec(4)],
                };
                let mut flat = Vec::new();
                for (k, &t) in pieces.iter().enumerate() {
                    let vt = match per_vertex {
                        Some(n) => {
                            let len = self.cu(n);
                            let id = self.fresh();
                            self.new_globals.push(Instruction::new(
                                Op::TypeArray,
                                None,
                                Some(id),
                                ids(&[t, len]),
                            ));
                            id
                        }
                        None => t,
                    };
                    let ptr = self.t_ptr(sc, vt);
                    let v = self.fresh();
                    self.new_globals.push(Instruction::new(
                        Op::Variable,
                        Some(ptr),
                        Some(v),
                        vec![Operand::StorageClass(sc)],
                    ));
                    let dec = |d: Decoration, x: Option<u32>| {
                        let mut o = vec![Operand::IdRef(v), Operand::Decoration(d)];
                        o.extend(x.map(Operand::LiteralBit32));
                        Instruction::new(Op::Decorate, None, None, o)
                    };
                    self.new_annots
                        .push(dec(Decoration::Location, Some(at + k as u32)));
                    let is_int = leaf.comps > 0
                        || matches!(self.ty.get(&leaf.ty), Some(Ty::Int(..)))
                        || matches!(self.ty.get(&leaf.ty), Some(Ty::Vector(c, _)) if matches!(self.ty.get(c), Some(Ty::Int(..))));
                    if flat_deco
                        && (is_int || deco(var, Decoration::Flat).is_some() || leaf.comps == 0)
                    {
                        self.new_annots.push(dec(Decoration::Flat, None));
                    }
                    names.push((v, format!("mgl_d{var}_{}", at + k as u32)));
                    new_interface.push(v);
                    flat.push((v, t));
                }
                at += pieces.len() as u32;
                parts.push(Part { leaf, flat });
            }
            drop_ids.insert(var);
            // An interface block's struct is now a plain Private struct.
            if matches!(self.ty.get(&vt), Some(Ty::Struct(_))) {
                block_structs.insert(vt);
            }
            // The variable itself becomes Private.
            let pptr = self.t_ptr(StorageClass::Private, pt);
            for i in self.m.types_global_values.iter_mut() {
                if i.result_id == Some(var) {
                    i.result_type = Some(pptr);
                    i.operands = vec![Operand::StorageClass(StorageClass::Private)];
                }
            }
            self.vty.insert(var, pptr);
            self.ty.insert(pptr, Ty::Pointer(StorageClass::Private, pt));
            self.private.insert(var);
            match sc {
                StorageClass::Input => inputs.push((var, per_vertex, parts)),
                _ => outputs.push((var, parts)),
            }
        }
        for (v, n) in names {
            self.m.debug_names.push(Instruction::new(
                Op::Name,
                None,
                None,
                vec![Operand::IdRef(v), Operand::LiteralString(n)],
            ));
        }
        self.m.annotations.retain(|a| {
            let target = a.operands.first().and_then(id_of).unwrap_or(0);
            match a.class.opcode {
                Op::Decorate => {
                    !(drop_ids.contains(&target)
                        || (block_structs.contains(&target)
                            && matches!(
                                a.operands.get(1),
                                Some(Operand::Decoration(Decoration::Block))
                            )))
                }
                // Offsets stay (harmless); interface qualifiers go.
                Op::MemberDecorate => {
                    !block_structs.contains(&target)
                        || matches!(
                            a.operands.get(2),
                            Some(Operand::Decoration(Decoration::Offset))
                        )
                }
                _ => true,
            }
        });
        for ep in self.m.entry_points.iter_mut() {
            ep.operands
                .retain(|o| !id_of(o).is_some_and(|t| drop_ids.contains(&t)));
            ep.operands.extend(ids(&new_interface));
        }
        // Copy-in code at the start of the entry function.
        let mut pre = Vec::new();
        for (var, per_vertex, parts) in &inputs {
            for vtx in 0..per_vertex.unwrap_or(1) {
                for part in parts {
                    let mut loaded = Vec::new();
                    for &(fv, t) in &part.flat {
                        let ptr = if per_vertex.is_some() {
                            let pt = self.t_ptr(StorageClass::Input, t);
                            let k = self.cu(vtx);
                            self.e(&mut pre, Op::AccessChain, pt, &[fv, k])
                        } else {
                            fv
                        };
                        loaded.push(self.e(&mut pre, Op::Load, t, &[ptr]));
                    }
                    let value = self.join_leaf(&mut pre, &part.leaf, &loaded)?;
                    let mut path = Vec::new();
                    if per_vertex.is_some() {
                        path.push(vtx);
                    }
                    path.extend_from_slice(&part.leaf.path);
                    let dst = self.chain(&mut pre, *var, &path, part.leaf.ty)?;
                    pre.push(Instruction::new(Op::Store, None, None, ids(&[dst, value])));
                }
            }
        }
        let mut post = Vec::new();
        for (var, parts) in &outputs {
            for part in parts {
                let src = self.chain(&mut post, *var, &part.leaf.path, part.leaf.ty)?;
                let v = self.e(&mut post, Op::Load, part.leaf.ty, &[src]);
                let pieces = self.split_leaf(&mut post, &part.leaf, v, &part.flat)?;
                for (&(fv, _), piece) in part.flat.iter().zip(pieces) {
                    post.push(Instruction::new(Op::Store, None, None, ids(&[fv, piece])));
                }
            }
        }
        self.copies = Some((entry_fn, pre, post));
        Ok(())
    }

    /// Insert the interface copy code (after `lower_functions`: it is
    /// already lowered), renumbered per insertion site.
    fn insert_copies(&mut self) {
        let Some((entry_fn, pre, post)) = self.copies.take() else {
            return;
        };
        for f in self.m.functions.iter_mut() {
            let is_entry = f.def_id() == Some(entry_fn);
            for (bi, b) in f.blocks.iter_mut().enumerate() {
                let mut out = Vec::with_capacity(b.instructions.len());
                let mut at = 0;
                if is_entry && bi == 0 {
                    while at < b.instructions.len()
                        && b.instructions[at].class.opcode == Op::Variable
                    {
                        out.push(b.instructions[at].clone());
                        at += 1;
                    }
                    out.extend(renumber(&pre, &mut self.bound));
                }
                for ins in &b.instructions[at..] {
                    let op = ins.class.opcode;
                    if op == Op::EmitVertex
                        || op == Op::EmitStreamVertex
                        || (is_entry && op == Op::Return)
                    {
                        out.extend(renumber(&post, &mut self.bound));
                    }
                    out.push(ins.clone());
                }
                b.instructions = out;
            }
        }
    }

    /// An access chain from `var` along `path` to a value of type `t`
    /// (pointer in the variable's storage class).
    fn chain(&mut self, out: &mut Vec<Instruction>, var: Word, path: &[u32], t: Word) -> R<Word> {
        if path.is_empty() {
            return Ok(var);
        }
        let sc = match self.vty.get(&var).and_then(|p| self.ty.get(p)) {
            Some(Ty::Pointer(sc, _)) => *sc,
            _ => return Err(Fp64Error::Malformed("variable")),
        };
        let pt = self.t_ptr(sc, t);
        let mut a = vec![var];
        for &k in path {
            a.push(self.cu(k));
        }
        Ok(self.e(out, Op::AccessChain, pt, &a))
    }

    /// A leaf value (lowered) from its flat pieces.
    fn join_leaf(&mut self, out: &mut Vec<Instruction>, leaf: &Leaf, p: &[Word]) -> R<Word> {
        let u2 = self.t_uvec(2);
        let half = |s: &mut Self, out: &mut Vec<Instruction>, v: Word, hi: bool| {
            let k = if hi { [2u32, 3] } else { [0, 1] };
            s.emit(
                out,
                Op::VectorShuffle,
                u2,
                vec![
                    Operand::IdRef(v),
                    Operand::IdRef(v),
                    Operand::LiteralBit32(k[0]),
                    Operand::LiteralBit32(k[1]),
                ],
            )
        };
        let c = match (leaf.comps, p) {
            (0, [v]) | (1, [v]) => return Ok(*v),
            (2, [a]) => vec![half(self, out, *a, false), half(self, out, *a, true)],
            (3, [a, b]) => vec![half(self, out, *a, false), half(self, out, *a, true), *b],
            (4, [a, b]) => vec![
                half(self, out, *a, false),
                half(self, out, *a, true),
                half(self, out, *b, false),
                half(self, out, *b, true),
            ],
            _ => return Err(Fp64Error::Malformed("interface leaf")),
        };
        let id = self.fresh();
        self.build(out, leaf.ty, id, c);
        Ok(id)
    }

    /// A leaf value (lowered) split into its flat pieces.
    fn split_leaf(
        &mut self,
        out: &mut Vec<Instruction>,
        leaf: &Leaf,
        v: Word,
        flat: &[(Word, Word)],
    ) -> R<Vec<Word>> {
        if leaf.comps <= 1 {
            return Ok(vec![v]);
        }
        let c = self.comps(out, v, Shape::V(leaf.comps))?;
        let u4 = self.t_uvec(4);
        let join = |s: &mut Self, out: &mut Vec<Instruction>, a: Word, b: Word| {
            s.emit(
                out,
                Op::VectorShuffle,
                u4,
                vec![
                    Operand::IdRef(a),
                    Operand::IdRef(b),
                    Operand::LiteralBit32(0),
                    Operand::LiteralBit32(1),
                    Operand::LiteralBit32(2),
                    Operand::LiteralBit32(3),
                ],
            )
        };
        let _ = flat;
        Ok(match c.as_slice() {
            [a, b] => vec![join(self, out, *a, *b)],
            [a, b, z] => vec![join(self, out, *a, *b), *z],
            [a, b, z, w] => vec![join(self, out, *a, *b), join(self, out, *z, *w)],
            _ => return Err(Fp64Error::Malformed("interface leaf")),
        })
    }

    /// The type reached from composite type `t` by `idx` (literal member indices).
    fn walk(&self, t: Word, k: u32) -> Option<Word> {
        match self.ty.get(&t)? {
            Ty::Vector(c, _) => Some(*c),
            Ty::Matrix(c, _) | Ty::Array(c, _) | Ty::RuntimeArray(c) => Some(*c),
            Ty::Struct(ms) => {
                let k = self
                    .member_remap
                    .get(&t)
                    .and_then(|r| r.get(k as usize))
                    .copied()
                    .unwrap_or(k);
                ms.get(k as usize).copied()
            }
            _ => None,
        }
    }

    /// Load a whole dvec through `p` (a real pointer or a split dvec3's).
    fn load_whole(&mut self, out: &mut Vec<Instruction>, p: Word, dt: Word) -> R<Word> {
        if let Some(&(pp, first, _)) = self.virt.get(&p) {
            let (c, sc) = self.split_parts(pp, dt)?;
            let pt = self.t_ptr(sc, c);
            let mut comps = Vec::new();
            for j in 0..3 {
                let k = self.cu(first + j);
                let ptr = self.e(out, Op::AccessChain, pt, &[pp, k]);
                comps.push(self.e(out, Op::Load, c, &[ptr]));
            }
            let id = self.fresh();
            self.build(out, dt, id, comps);
            return Ok(id);
        }
        Ok(self.e(out, Op::Load, dt, &[p]))
    }

    /// Store a whole dvec `v` through `p` (a real pointer or a split dvec3's).
    fn store_whole(&mut self, out: &mut Vec<Instruction>, p: Word, dt: Word, v: Word) -> R<()> {
        if let Some(&(pp, first, _)) = self.virt.get(&p) {
            let (c, sc) = self.split_parts(pp, dt)?;
            let pt = self.t_ptr(sc, c);
            for j in 0..3 {
                let k = self.cu(first + j);
                let ptr = self.e(out, Op::AccessChain, pt, &[pp, k]);
                let x = self.ext(out, c, v, j);
                out.push(Instruction::new(Op::Store, None, None, ids(&[ptr, x])));
            }
            return Ok(());
        }
        out.push(Instruction::new(Op::Store, None, None, ids(&[p, v])));
        Ok(())
    }

    /// The component type of dvec3 type `dt` and the storage class of pointer `pp`.
    fn split_parts(&self, pp: Word, dt: Word) -> R<(Word, StorageClass)> {
        let c = match self.ty.get(&dt) {
            Some(Ty::Vector(c, _)) => *c,
            _ => return Err(Fp64Error::Malformed("dvec3")),
        };
        match self.vty.get(&pp).and_then(|p| self.ty.get(p)) {
            Some(Ty::Pointer(sc, _)) => Ok((c, *sc)),
            _ => Err(Fp64Error::Malformed("pointer")),
        }
    }

    /// Access chains: member indices of rewritten blocks renumbered, split
    /// dvec3 members reached through [`Pass::virt`], pointers into
    /// Private-moved variables retyped.
    fn lower_chain(&mut self, out: &mut Vec<Instruction>, ins: Instruction) -> R<()> {
        let res = ins.result_id.ok_or(Fp64Error::Malformed("access chain"))?;
        let base = ins
            .operands
            .first()
            .and_then(id_of)
            .ok_or(Fp64Error::Malformed("access chain"))?;
        let private = self.private.contains(&base);
        let mut pending: Option<(u32, Word)> = None;
        let (base_ptr, mut t) = match self.virt.get(&base) {
            Some(&(pp, first, dt)) => {
                pending = Some((first, dt));
                (pp, dt)
            }
            None => match self.vty.get(&base).and_then(|p| self.ty.get(p)) {
                Some(Ty::Pointer(_, t)) => (base, *t),
                _ => return Err(Fp64Error::Malformed("access chain base")),
            },
        };
        let sc = match self.vty.get(&base_ptr).and_then(|p| self.ty.get(p)) {
            Some(Ty::Pointer(sc, _)) => *sc,
            _ => return Err(Fp64Error::Malformed("access chain base")),
        };
        let mut idx_ops: Vec<Word> = Vec::new();
        let mut struct_t = t;
        let n_idx = ins.operands.iter().skip(1).filter_map(id_of).count();
        let sc_out = if private { StorageClass::Private } else { sc };
        for (pos, idx) in ins.operands.iter().skip(1).filter_map(id_of).enumerate() {
            let last = pos + 1 == n_idx;
            let konst = self.iconst.get(&idx).copied();
            let it = self.vty.get(&idx).copied().unwrap_or(0);
            if let (Some((first, dt)), None, true) = (pending, konst, last) {
                // A dynamic component of a split dvec3: through a pointer
                // to the whole of it.
                let whole = self.fresh();
                let pp = if idx_ops.is_empty() {
                    base_ptr
                } else {
                    let pt = self.t_ptr(sc_out, struct_t);
                    let mut a = vec![base_ptr];
                    a.extend(&idx_ops);
                    let pp = self.e(out, ins.class.opcode, pt, &a);
                    self.vty.insert(pp, pt);
                    pp
                };
                self.virt.insert(whole, (pp, first, dt));
                self.dynv.insert(res, (whole, idx, dt));
                return Ok(());
            }
            if let Some((first, dt)) = pending.take() {
                let k = konst.ok_or_else(|| {
                    Fp64Error::Unsupported("a dynamic index into a dvec3 block member".into())
                })?;
                let c = self.global(
                    Op::Constant,
                    Some(it),
                    vec![Operand::LiteralBit32(first + k)],
                );
                self.iconst.insert(c, first + k);
                idx_ops.push(c);
                t = self.walk(dt, 0).ok_or(Fp64Error::Malformed("dvec3"))?;
                continue;
            }
            if let Some(remap) = self.member_remap.get(&t) {
                let old = konst.ok_or(Fp64Error::Malformed("struct index"))?;
                let new = remap
                    .get(old as usize)
                    .copied()
                    .ok_or(Fp64Error::Malformed("struct index"))?;
                if let Some(&dt) = self.split.get(&(t, old)) {
                    pending = Some((new, dt));
                    struct_t = t;
                    t = dt;
                    continue;
                }
                let c = self.global(Op::Constant, Some(it), vec![Operand::LiteralBit32(new)]);
                self.iconst.insert(c, new);
                idx_ops.push(c);
            } else {
                if matches!(self.shape(t), Some(Shape::V(_))) && konst.is_none() {
                    if !last {
                        return Err(Fp64Error::Malformed("index into a double"));
                    }
                    // A dynamic component: through a pointer to the dvec.
                    let pv = if idx_ops.is_empty() {
                        base_ptr
                    } else {
                        let pt = self.t_ptr(sc_out, t);
                        let mut a = vec![base_ptr];
                        a.extend(&idx_ops);
                        let pv = self.e(out, ins.class.opcode, pt, &a);
                        self.vty.insert(pv, pt);
                        pv
                    };
                    self.dynv.insert(res, (pv, idx, t));
                    return Ok(());
                }
                idx_ops.push(idx);
            }
            t = self
                .walk(t, konst.unwrap_or(0))
                .ok_or(Fp64Error::Malformed("access chain"))?;
        }
        let sc = if private { StorageClass::Private } else { sc };
        if let Some((first, dt)) = pending {
            // The chain ends at a split dvec3: a pointer to its struct.
            let pp = if idx_ops.is_empty() {
                base_ptr
            } else {
                let pt = self.t_ptr(sc, struct_t);
                let mut a = vec![base_ptr];
                a.extend(&idx_ops);
                let pp = self.e(out, ins.class.opcode, pt, &a);
                self.vty.insert(pp, pt);
                pp
            };
            self.virt.insert(res, (pp, first, dt));
            return Ok(());
        }
        let rt = if private || base_ptr != base {
            self.t_ptr(sc, t)
        } else {
            ins.result_type
                .ok_or(Fp64Error::Malformed("access chain"))?
        };
        if private {
            self.private.insert(res);
        }
        self.vty.insert(res, rt);
        let mut a = vec![base_ptr];
        a.extend(&idx_ops);
        out.push(Instruction::new(
            ins.class.opcode,
            Some(rt),
            Some(res),
            ids(&a),
        ));
        Ok(())
    }

    /// Composite extract / insert: member indices of rewritten blocks
    /// renumbered; a split dvec3 member reassembled.
    fn lower_extract_insert(&mut self, out: &mut Vec<Instruction>, ins: Instruction) -> R<()> {
        let extract = ins.class.opcode == Op::CompositeExtract;
        let first = if extract { 1 } else { 2 };
        let composite = ins.operands.get(first - 1).and_then(id_of).unwrap_or(0);
        let mut t = self.vty.get(&composite).copied().unwrap_or(0);
        let lits: Vec<u32> = ins.operands.iter().skip(first).filter_map(lit_of).collect();
        let mut new_lits = Vec::new();
        let mut i = 0;
        while i < lits.len() {
            let old = lits[i];
            if let Some(&dt) = self.split.get(&(t, old)) {
                let new = self
                    .member_remap
                    .get(&t)
                    .and_then(|r| r.get(old as usize))
                    .copied()
                    .unwrap_or(old);
                if let Some(&k) = lits.get(i + 1) {
                    new_lits.push(new + k);
                    t = self.walk(dt, 0).unwrap_or(0);
                    i += 2;
                    continue;
                }
                if !extract {
                    return Err(Fp64Error::Unsupported(
                        "inserting a dvec3 block member".into(),
                    ));
                }
                let c = self.walk(dt, 0).unwrap_or(0);
                let mut comps = Vec::new();
                for j in 0..3 {
                    let mut o = vec![Operand::IdRef(composite)];
                    o.extend(new_lits.iter().map(|&l| Operand::LiteralBit32(l)));
                    o.push(Operand::LiteralBit32(new + j));
                    comps.push(self.emit(out, Op::CompositeExtract, c, o));
                }
                self.build(out, dt, ins.result_id.unwrap_or(0), comps);
                return Ok(());
            }
            let new = self
                .member_remap
                .get(&t)
                .and_then(|r| r.get(old as usize))
                .copied()
                .unwrap_or(old);
            new_lits.push(new);
            t = self.walk(t, old).unwrap_or(0);
            i += 1;
        }
        let mut ins = ins;
        ins.operands.truncate(first);
        ins.operands
            .extend(new_lits.into_iter().map(Operand::LiteralBit32));
        out.push(ins);
        Ok(())
    }

    fn lower_functions(&mut self) -> R<()> {
        let mut fns = std::mem::take(&mut self.m.functions);
        let r = (|| {
            for f in fns.iter_mut() {
                for b in f.blocks.iter_mut() {
                    let mut out = Vec::with_capacity(b.instructions.len());
                    for ins in std::mem::take(&mut b.instructions) {
                        self.lower_inst(&mut out, ins)?;
                    }
                    b.instructions = out;
                }
            }
            Ok(())
        })();
        self.m.functions = fns;
        r
    }

    fn lower_inst(&mut self, out: &mut Vec<Instruction>, ins: Instruction) -> R<()> {
        let op = ins.class.opcode;
        let rt = ins.result_type;
        let res = ins.result_id;
        let args: Vec<Word> = ins.operands.iter().filter_map(id_of).collect();
        // Missing operands read as id 0 (invalid: spirv-cross then refuses
        // the module) rather than panicking.
        let (a0, a1, a2) = (
            args.first().copied().unwrap_or(0),
            args.get(1).copied().unwrap_or(0),
            args.get(2).copied().unwrap_or(0),
        );
        let involves = rt.is_some_and(|t| self.hd(t)) || args.iter().any(|&a| self.vd(a));
        match op {
            Op::AccessChain | Op::InBoundsAccessChain => {
                return self.lower_chain(out, ins);
            }
            Op::CompositeExtract | Op::CompositeInsert => {
                return self.lower_extract_insert(out, ins);
            }
            Op::Load if self.dynv.contains_key(&a0) => {
                let (pv, idx, dt) = self
                    .dynv
                    .get(&a0)
                    .copied()
                    .ok_or(Fp64Error::Malformed("pointer"))?;
                let v = self.load_whole(out, pv, dt)?;
                let s = self.shape(dt).ok_or(Fp64Error::Malformed("dvec"))?;
                let c = self.comps(out, v, s)?;
                let it = self.vty.get(&idx).copied().unwrap_or(0);
                let (bt, u2t) = (self.t_bool(), self.t_uvec(2));
                let mut acc = *c.first().ok_or(Fp64Error::Malformed("dvec"))?;
                for (k, &x) in c.iter().enumerate().skip(1) {
                    let kc = self.global(
                        Op::Constant,
                        Some(it),
                        vec![Operand::LiteralBit32(k as u32)],
                    );
                    let eq = self.e(out, Op::IEqual, bt, &[idx, kc]);
                    acc = self.sel(out, u2t, eq, x, acc);
                }
                out.push(Instruction::new(Op::CopyObject, rt, res, ids(&[acc])));
                return Ok(());
            }
            Op::Store if self.dynv.contains_key(&a0) => {
                let (pv, idx, dt) = self
                    .dynv
                    .get(&a0)
                    .copied()
                    .ok_or(Fp64Error::Malformed("pointer"))?;
                let v = self.load_whole(out, pv, dt)?;
                let s = self.shape(dt).ok_or(Fp64Error::Malformed("dvec"))?;
                let c = self.comps(out, v, s)?;
                let it = self.vty.get(&idx).copied().unwrap_or(0);
                let (bt, u2t) = (self.t_bool(), self.t_uvec(2));
                let mut n = Vec::new();
                for (k, &x) in c.iter().enumerate() {
                    let kc = self.global(
                        Op::Constant,
                        Some(it),
                        vec![Operand::LiteralBit32(k as u32)],
                    );
                    let eq = self.e(out, Op::IEqual, bt, &[idx, kc]);
                    n.push(self.sel(out, u2t, eq, a1, x));
                }
                let nv = self.fresh();
                self.build(out, dt, nv, n);
                self.store_whole(out, pv, dt, nv)?;
                return Ok(());
            }
            Op::Load if args.first().is_some_and(|a| self.virt.contains_key(a)) => {
                let (pp, first, dt) = self
                    .virt
                    .get(&a0)
                    .copied()
                    .ok_or(Fp64Error::Malformed("pointer"))?;
                let (c, sc) = self.split_parts(pp, dt)?;
                let pt = self.t_ptr(sc, c);
                let mut comps = Vec::new();
                for j in 0..3 {
                    let k = self.cu(first + j);
                    let ptr = self.e(out, Op::AccessChain, pt, &[pp, k]);
                    comps.push(self.e(out, Op::Load, c, &[ptr]));
                }
                self.build(out, dt, res.unwrap_or(0), comps);
                return Ok(());
            }
            Op::Store if args.first().is_some_and(|a| self.virt.contains_key(a)) => {
                let (pp, first, dt) = self
                    .virt
                    .get(&a0)
                    .copied()
                    .ok_or(Fp64Error::Malformed("pointer"))?;
                let v = args.get(1).copied().ok_or(Fp64Error::Malformed("store"))?;
                let (c, sc) = self.split_parts(pp, dt)?;
                let pt = self.t_ptr(sc, c);
                for j in 0..3 {
                    let k = self.cu(first + j);
                    let ptr = self.e(out, Op::AccessChain, pt, &[pp, k]);
                    let x = self.ext(out, c, v, j);
                    out.push(Instruction::new(Op::Store, None, None, ids(&[ptr, x])));
                }
                return Ok(());
            }
            _ if args
                .iter()
                .any(|a| self.virt.contains_key(a) || self.dynv.contains_key(a)) =>
            {
                return Err(Fp64Error::Unsupported(format!(
                    "Op{op:?} on a pointer to a dvec3 block member"
                )));
            }
            _ => {}
        }
        if let (Some(t), Op::CompositeConstruct) = (rt, op) {
            if self.pad_members.contains_key(&t) {
                let pads = self.pad_members.get(&t).cloned().unwrap_or_default();
                let mut it = args.iter();
                let mut ops = Vec::new();
                let mut cur = 0;
                for p in pads {
                    match p {
                        Slot::Pad => {
                            let u = self.t_uint();
                            ops.push(self.cnull(u));
                        }
                        Slot::Keep => {
                            ops.push(*it.next().ok_or(Fp64Error::Malformed("construct"))?)
                        }
                        Slot::Split(j) => {
                            if j == 0 {
                                cur = *it.next().ok_or(Fp64Error::Malformed("construct"))?;
                            }
                            let u2 = self.t_uvec(2);
                            ops.push(self.ext(out, u2, cur, j));
                        }
                    }
                }
                out.push(Instruction::new(op, rt, res, ids(&ops)));
                return Ok(());
            }
        }
        if !involves {
            out.push(ins);
            return Ok(());
        }
        let res = res.unwrap_or(0);
        let rt_d = rt.and_then(|t| self.shape(t));
        let arg_t =
            |p: &Self, k: usize| args.get(k).and_then(|a| p.vty.get(a)).copied().unwrap_or(0);
        let (u, b, u2) = (self.t_uint(), self.t_bool(), self.t_uvec(2));
        match op {
            Op::Load
            | Op::Store
            | Op::CopyObject
            | Op::CopyMemory
            | Op::Phi
            | Op::FunctionCall
            | Op::ReturnValue
            | Op::Variable
            | Op::Undef
            | Op::Return
            | Op::Branch
            | Op::BranchConditional
            | Op::Function
            | Op::FunctionParameter
            | Op::ConstantNull => {
                out.push(ins);
            }
            Op::CompositeConstruct => {
                let t = rt.unwrap_or(0);
                match rt_d {
                    Some(Shape::V(_)) => {
                        let mut c = Vec::new();
                        for &a in &args {
                            let at = self.vty.get(&a).copied().unwrap_or(0);
                            match self.shape(at) {
                                Some(s @ Shape::V(_)) => c.extend(self.comps(out, a, s)?),
                                Some(Shape::S) => c.push(a),
                                _ => return Err(Fp64Error::Malformed("dvec constituent")),
                            }
                        }
                        self.build(out, t, res, c);
                    }
                    _ => out.push(ins),
                }
            }
            Op::VectorShuffle => {
                let (a, bb) = (
                    args.first().copied().unwrap_or(0),
                    args.get(1).copied().unwrap_or(0),
                );
                let (Some(Shape::V(na)), Some(sb @ Shape::V(_))) =
                    (self.shape(arg_t(self, 0)), self.shape(arg_t(self, 1)))
                else {
                    return Err(Fp64Error::Malformed("shuffle"));
                };
                let ca = self.comps(out, a, Shape::V(na))?;
                let cb = self.comps(out, bb, sb)?;
                let all: Vec<Word> = ca.into_iter().chain(cb).collect();
                let mut c = Vec::new();
                for o in ins.operands.iter().skip(2) {
                    let k = lit_of(o).unwrap_or(0) as usize;
                    c.push(
                        all.get(k)
                            .or(all.first())
                            .copied()
                            .ok_or(Fp64Error::Malformed("shuffle"))?,
                    );
                }
                self.build(out, rt.unwrap_or(0), res, c);
            }
            Op::VectorExtractDynamic => {
                let s = self
                    .shape(arg_t(self, 0))
                    .ok_or(Fp64Error::Malformed("extract"))?;
                let c = self.comps(out, a0, s)?;
                let idx = args
                    .get(1)
                    .copied()
                    .ok_or(Fp64Error::Malformed("extract"))?;
                let it = self.vty.get(&idx).copied().unwrap_or(0);
                let mut acc = *c.first().ok_or(Fp64Error::Malformed("extract"))?;
                for (k, &x) in c.iter().enumerate().skip(1) {
                    let kc = self.global(
                        Op::Constant,
                        Some(it),
                        vec![Operand::LiteralBit32(k as u32)],
                    );
                    let eq = self.e(out, Op::IEqual, b, &[idx, kc]);
                    acc = self.sel(out, u2, eq, x, acc);
                }
                out.push(Instruction::new(Op::CopyObject, rt, Some(res), ids(&[acc])));
            }
            Op::VectorInsertDynamic => {
                let s = rt_d.ok_or(Fp64Error::Malformed("insert"))?;
                let c = self.comps(out, a0, s)?;
                let (v, idx) = (a1, a2);
                let it = self.vty.get(&idx).copied().unwrap_or(0);
                let mut n = Vec::new();
                for (k, &x) in c.iter().enumerate() {
                    let kc = self.global(
                        Op::Constant,
                        Some(it),
                        vec![Operand::LiteralBit32(k as u32)],
                    );
                    let eq = self.e(out, Op::IEqual, b, &[idx, kc]);
                    n.push(self.sel(out, u2, eq, v, x));
                }
                self.build(out, rt.unwrap_or(0), res, n);
            }
            Op::Select => {
                let ct = arg_t(self, 0);
                match (self.ty.get(&ct), rt_d) {
                    (Some(Ty::Vector(_, _)), Some(s @ Shape::V(n))) => {
                        let ca = self.comps(out, a1, s)?;
                        let cb = self.comps(out, a2, s)?;
                        let mut c = Vec::new();
                        for (k, (&x, &y)) in ca.iter().zip(&cb).enumerate().take(n as usize) {
                            let ck = self.ext(out, b, a0, k as u32);
                            c.push(self.sel(out, u2, ck, x, y));
                        }
                        self.build(out, rt.unwrap_or(0), res, c);
                    }
                    _ => out.push(ins),
                }
            }
            Op::FNegate => {
                let s = rt_d.ok_or(Fp64Error::Malformed("negate"))?;
                self.bitwise(out, &ins, s, |p, o, x| {
                    let lo = p.ext(o, u, x, 0);
                    let hi = p.ext(o, u, x, 1);
                    let h = p.ek(o, Op::BitwiseXor, u, hi, 0x8000_0000);
                    p.e(o, Op::CompositeConstruct, u2, &[lo, h])
                })?;
            }
            Op::FConvert => {
                let f = self.t_float();
                if let Some(s) = rt_d {
                    let f2d = self.h_f2d();
                    let n = match s {
                        Shape::S => 1,
                        Shape::V(n) => n,
                        _ => return Err(Fp64Error::Malformed("convert")),
                    };
                    let mut c = Vec::new();
                    for k in 0..n {
                        let x = if n == 1 { a0 } else { self.ext(out, f, a0, k) };
                        c.push(self.call(out, u2, f2d, &[x]));
                    }
                    self.build(out, rt.unwrap_or(0), res, c);
                } else {
                    let s = self
                        .shape(arg_t(self, 0))
                        .ok_or(Fp64Error::Malformed("convert"))?;
                    let d2f = self.h_d2f();
                    let c = self.comps(out, a0, s)?;
                    let fs: Vec<Word> = c.iter().map(|&x| self.call(out, f, d2f, &[x])).collect();
                    self.finish_scalar_vec(out, rt.unwrap_or(0), res, fs);
                }
            }
            Op::ConvertSToF | Op::ConvertUToF => {
                let s = rt_d.ok_or(Fp64Error::Malformed("convert"))?;
                let n = match s {
                    Shape::S => 1,
                    Shape::V(n) => n,
                    _ => return Err(Fp64Error::Malformed("convert")),
                };
                let signed = op == Op::ConvertSToF;
                let h = if signed { self.h_i2d() } else { self.h_u2d() };
                let it = if signed { self.t_int() } else { u };
                let src_c = match self.vty.get(&a0).and_then(|t| self.ty.get(t)) {
                    Some(Ty::Vector(c, _)) => *c,
                    _ => it,
                };
                let mut c = Vec::new();
                for k in 0..n {
                    let x0 = if n == 1 {
                        a0
                    } else {
                        self.ext(out, src_c, a0, k)
                    };
                    // The source may be the other signedness: bitcast.
                    let x = self.e(out, Op::Bitcast, it, &[x0]);
                    c.push(self.call(out, u2, h, &[x]));
                }
                self.build(out, rt.unwrap_or(0), res, c);
            }
            Op::ConvertFToS | Op::ConvertFToU => {
                let s = self
                    .shape(arg_t(self, 0))
                    .ok_or(Fp64Error::Malformed("convert"))?;
                let signed = op == Op::ConvertFToS;
                let h = if signed { self.h_d2i() } else { self.h_d2u() };
                let it = if signed { self.t_int() } else { u };
                let c = self.comps(out, a0, s)?;
                let rs = match self.ty.get(&rt.unwrap_or(0)) {
                    Some(Ty::Vector(c, _)) => *c,
                    _ => rt.unwrap_or(0),
                };
                let mut vs = Vec::new();
                for x in c {
                    let v = self.call(out, it, h, &[x]);
                    vs.push(self.e(out, Op::Bitcast, rs, &[v]));
                }
                self.finish_scalar_vec(out, rt.unwrap_or(0), res, vs);
            }
            Op::IsNan | Op::IsInf => {
                let s = self
                    .shape(arg_t(self, 0))
                    .ok_or(Fp64Error::Malformed("isnan"))?;
                let h = if op == Op::IsNan {
                    self.h_isnan()
                } else {
                    self.h_isinf()
                };
                let c = self.comps(out, a0, s)?;
                let vs: Vec<Word> = c.iter().map(|&x| self.call(out, b, h, &[x])).collect();
                self.finish_scalar_vec(out, rt.unwrap_or(0), res, vs);
            }
            Op::FOrdEqual
            | Op::FUnordEqual
            | Op::FOrdNotEqual
            | Op::FUnordNotEqual
            | Op::FOrdLessThan
            | Op::FUnordLessThan
            | Op::FOrdGreaterThan
            | Op::FUnordGreaterThan
            | Op::FOrdLessThanEqual
            | Op::FUnordLessThanEqual
            | Op::FOrdGreaterThanEqual
            | Op::FUnordGreaterThanEqual => {
                let s = self
                    .shape(arg_t(self, 0))
                    .ok_or(Fp64Error::Malformed("compare"))?;
                let ca = self.comps(out, a0, s)?;
                let cb = self.comps(out, a1, s)?;
                let (heq, hlt, hnan) = (self.h_eq(), self.h_lt(), self.h_isnan());
                let mut vs = Vec::new();
                for (&x, &y) in ca.iter().zip(&cb) {
                    let ordered = match op {
                        Op::FOrdEqual | Op::FUnordEqual => self.call(out, b, heq, &[x, y]),
                        Op::FOrdNotEqual | Op::FUnordNotEqual => {
                            let e = self.call(out, b, heq, &[x, y]);
                            self.e(out, Op::LogicalNot, b, &[e])
                        }
                        Op::FOrdLessThan | Op::FUnordLessThan => self.call(out, b, hlt, &[x, y]),
                        Op::FOrdGreaterThan | Op::FUnordGreaterThan => {
                            self.call(out, b, hlt, &[y, x])
                        }
                        Op::FOrdLessThanEqual | Op::FUnordLessThanEqual => {
                            let l = self.call(out, b, hlt, &[x, y]);
                            let e = self.call(out, b, heq, &[x, y]);
                            self.e(out, Op::LogicalOr, b, &[l, e])
                        }
                        _ => {
                            let l = self.call(out, b, hlt, &[y, x]);
                            let e = self.call(out, b, heq, &[x, y]);
                            self.e(out, Op::LogicalOr, b, &[l, e])
                        }
                    };
                    let na = self.call(out, b, hnan, &[x]);
                    let nb = self.call(out, b, hnan, &[y]);
                    let un = self.e(out, Op::LogicalOr, b, &[na, nb]);
                    let v = match op {
                        // ordered "not equal" is false on NaN
                        Op::FOrdNotEqual => {
                            let nun = self.e(out, Op::LogicalNot, b, &[un]);
                            self.e(out, Op::LogicalAnd, b, &[nun, ordered])
                        }
                        Op::FUnordEqual
                        | Op::FUnordLessThan
                        | Op::FUnordGreaterThan
                        | Op::FUnordLessThanEqual
                        | Op::FUnordGreaterThanEqual => {
                            self.e(out, Op::LogicalOr, b, &[un, ordered])
                        }
                        _ => ordered,
                    };
                    vs.push(v);
                }
                self.finish_scalar_vec(out, rt.unwrap_or(0), res, vs);
            }
            Op::ExtInst => {
                let inst = match ins.operands.get(1) {
                    Some(Operand::LiteralExtInstInteger(k)) => *k,
                    _ => return Err(Fp64Error::Malformed("ext inst")),
                };
                let vals: Vec<Word> = ins.operands.iter().skip(2).filter_map(id_of).collect();
                match inst {
                    // PackDouble2x32 / UnpackDouble2x32: the bits are already there.
                    59 | 65 => out.push(Instruction::new(
                        Op::CopyObject,
                        rt,
                        Some(res),
                        ids(&vals[..1.min(vals.len())]),
                    )),
                    // FAbs
                    4 => {
                        let s = rt_d.ok_or(Fp64Error::Malformed("abs"))?;
                        self.bitwise(out, &ins, s, |p, o, x| {
                            let lo = p.ext(o, u, x, 0);
                            let hi = p.ext(o, u, x, 1);
                            let h = p.ek(o, Op::BitwiseAnd, u, hi, 0x7fff_ffff);
                            p.e(o, Op::CompositeConstruct, u2, &[lo, h])
                        })?;
                    }
                    // FSign: +-1.0 keeping the sign, zero (and NaN) as is
                    6 => {
                        let s = rt_d.ok_or(Fp64Error::Malformed("sign"))?;
                        self.bitwise(out, &ins, s, |p, o, x| {
                            let lo = p.ext(o, u, x, 0);
                            let hi = p.ext(o, u, x, 1);
                            let ah = p.ek(o, Op::BitwiseAnd, u, hi, 0x7fff_ffff);
                            let z0 = p.e(o, Op::BitwiseOr, u, &[ah, lo]);
                            let z = p.ek(o, Op::IEqual, b, z0, 0);
                            let sb = p.ek(o, Op::BitwiseAnd, u, hi, 0x8000_0000);
                            let one = p.ek(o, Op::BitwiseOr, u, sb, 0x3ff0_0000);
                            let zero = p.cu(0);
                            let nh = p.sel(o, u, z, hi, one);
                            let nl = p.sel(o, u, z, lo, zero);
                            p.e(o, Op::CompositeConstruct, u2, &[nl, nh])
                        })?;
                    }
                    // FMin, FMax, NMin, NMax, FClamp, NClamp: exact via comparisons
                    37 | 40 | 79 | 80 | 43 | 81 => {
                        let s = rt_d.ok_or(Fp64Error::Malformed("min/max"))?;
                        let cs: Vec<Vec<Word>> = vals
                            .iter()
                            .map(|&v| self.comps(out, v, s))
                            .collect::<R<_>>()?;
                        let hlt = self.h_lt();
                        let n = cs.first().map_or(0, |c| c.len());
                        let mut r = Vec::new();
                        for k in 0..n {
                            let x = cs[0][k];
                            let y = cs
                                .get(1)
                                .and_then(|c| c.get(k).copied())
                                .ok_or(Fp64Error::Malformed("min/max"))?;
                            let min = |p: &mut Self, o: &mut Vec<Instruction>, a: Word, c: Word| {
                                let l = p.call(o, b, hlt, &[c, a]);
                                p.sel(o, u2, l, c, a)
                            };
                            let v = match inst {
                                37 | 79 => min(self, out, x, y),
                                40 | 80 => {
                                    let l = self.call(out, b, hlt, &[x, y]);
                                    self.sel(out, u2, l, y, x)
                                }
                                _ => {
                                    let z = cs
                                        .get(2)
                                        .and_then(|c| c.get(k).copied())
                                        .ok_or(Fp64Error::Malformed("clamp"))?;
                                    let l = self.call(out, b, hlt, &[x, y]);
                                    let mx = self.sel(out, u2, l, y, x);
                                    min(self, out, mx, z)
                                }
                            };
                            r.push(v);
                        }
                        self.build(out, rt.unwrap_or(0), res, r);
                    }
                    // Frexp (exponent through a pointer): exact bit
                    // operations (double denormals are not normalized).
                    51 => {
                        let s = rt_d.ok_or(Fp64Error::Malformed("frexp"))?;
                        let (x, ptr) = match vals.as_slice() {
                            [x, p] => (*x, *p),
                            _ => return Err(Fp64Error::Malformed("frexp")),
                        };
                        let et = match self.vty.get(&ptr).and_then(|p| self.ty.get(p)) {
                            Some(Ty::Pointer(_, t)) => *t,
                            _ => return Err(Fp64Error::Malformed("frexp")),
                        };
                        let i = self.t_int();
                        let c = self.comps(out, x, s)?;
                        let (mut ms, mut es) = (Vec::new(), Vec::new());
                        for x in c {
                            let lo = self.ext(out, u, x, 0);
                            let hi = self.ext(out, u, x, 1);
                            let ah = self.ek(out, Op::BitwiseAnd, u, hi, 0x7fff_ffff);
                            let z0 = self.e(out, Op::BitwiseOr, u, &[ah, lo]);
                            let z = self.ek(out, Op::IEqual, b, z0, 0);
                            let keep = self.ek(out, Op::BitwiseAnd, u, hi, 0x800f_ffff);
                            let mh = self.ek(out, Op::BitwiseOr, u, keep, 0x3fe0_0000);
                            let nh = self.sel(out, u, z, hi, mh);
                            ms.push(self.e(out, Op::CompositeConstruct, u2, &[lo, nh]));
                            let ex = self.exponent(out, hi, 1022);
                            let zi = self.ci(0);
                            es.push(self.sel(out, i, z, zi, ex));
                        }
                        let ev = if es.len() == 1 {
                            es[0]
                        } else {
                            self.e(out, Op::CompositeConstruct, et, &es)
                        };
                        out.push(Instruction::new(Op::Store, None, None, ids(&[ptr, ev])));
                        self.build(out, rt.unwrap_or(0), res, ms);
                    }
                    // Trunc: exact
                    3 => {
                        let s = rt_d.ok_or(Fp64Error::Malformed("trunc"))?;
                        let h = self.h_trunc();
                        self.bitwise(out, &ins, s, |p, o, x| p.call(o, u2, h, &[x]))?;
                    }
                    // Modf (whole part through a pointer): the whole part
                    // exact (trunc), the fraction x - whole at f32 precision.
                    35 => {
                        let s = rt_d.ok_or(Fp64Error::Malformed("modf"))?;
                        let t = rt.unwrap_or(0);
                        let (x, ptr) = match vals.as_slice() {
                            [x, p] => (*x, *p),
                            _ => return Err(Fp64Error::Malformed("modf")),
                        };
                        let h = self.h_trunc();
                        let c = self.comps(out, x, s)?;
                        let w: Vec<Word> = c.iter().map(|&x| self.call(out, u2, h, &[x])).collect();
                        let whole = self.fresh();
                        self.build(out, t, whole, w);
                        out.push(Instruction::new(Op::Store, None, None, ids(&[ptr, whole])));
                        let fx = self.decode(out, x, t)?;
                        let fw = self.decode(out, whole, t)?;
                        let ft = self.t_f32(s);
                        let fr = self.e(out, Op::FSub, ft, &[fx, fw]);
                        self.encode(out, fr, t, res)?;
                    }
                    // ModfStruct: { fraction, whole } as Modf.
                    36 => {
                        let Some(Ty::Struct(ms)) = self.ty.get(&rt.unwrap_or(0)).cloned() else {
                            return Err(Fp64Error::Malformed("modf"));
                        };
                        let t = ms.first().copied().ok_or(Fp64Error::Malformed("modf"))?;
                        let s = self.shape(t).ok_or(Fp64Error::Malformed("modf"))?;
                        let x = vals.first().copied().ok_or(Fp64Error::Malformed("modf"))?;
                        let h = self.h_trunc();
                        let c = self.comps(out, x, s)?;
                        let w: Vec<Word> = c.iter().map(|&x| self.call(out, u2, h, &[x])).collect();
                        let whole = self.fresh();
                        self.build(out, t, whole, w);
                        let fx = self.decode(out, x, t)?;
                        let fw = self.decode(out, whole, t)?;
                        let ft = self.t_f32(s);
                        let fr = self.e(out, Op::FSub, ft, &[fx, fw]);
                        let frac = self.fresh();
                        self.encode(out, fr, t, frac)?;
                        out.push(Instruction::new(
                            Op::CompositeConstruct,
                            rt,
                            Some(res),
                            ids(&[frac, whole]),
                        ));
                    }
                    // FrexpStruct
                    52 => {
                        return Err(Fp64Error::Unsupported("frexpStruct on doubles".into()));
                    }
                    _ => self.generic(out, &ins)?,
                }
            }
            Op::FAdd
            | Op::FSub
            | Op::FMul
            | Op::FDiv
            | Op::FMod
            | Op::FRem
            | Op::VectorTimesScalar
            | Op::MatrixTimesScalar
            | Op::VectorTimesMatrix
            | Op::MatrixTimesVector
            | Op::MatrixTimesMatrix
            | Op::OuterProduct
            | Op::Dot => self.generic(out, &ins)?,
            // Transpose: a move, exact.
            Op::Transpose => {
                let (Some(Shape::M(c, r)), Some(Ty::Matrix(rcol, _))) = (
                    self.shape(arg_t(self, 0)),
                    self.ty.get(&rt.unwrap_or(0)).cloned(),
                ) else {
                    return Err(Fp64Error::Malformed("transpose"));
                };
                let Some(Ty::Matrix(scol, _)) = self.ty.get(&arg_t(self, 0)).cloned() else {
                    return Err(Fp64Error::Malformed("transpose"));
                };
                let mut src = Vec::new();
                for j in 0..c {
                    let col = self.ext(out, scol, a0, j);
                    src.push(self.comps(out, col, Shape::V(r))?);
                }
                let mut cols = Vec::new();
                for i in 0..r as usize {
                    let comps: Vec<Word> =
                        src.iter().filter_map(|col| col.get(i).copied()).collect();
                    let id = self.fresh();
                    self.build(out, rcol, id, comps);
                    cols.push(id);
                }
                out.push(Instruction::new(
                    Op::CompositeConstruct,
                    rt,
                    Some(res),
                    ids(&cols),
                ));
            }
            other => {
                return Err(Fp64Error::Unsupported(format!("Op{other:?} on doubles")));
            }
        }
        Ok(())
    }

    /// Scalar or vector result of non-double type from per-component values.
    fn finish_scalar_vec(&mut self, out: &mut Vec<Instruction>, t: Word, res: Word, vs: Vec<Word>) {
        if vs.len() == 1 {
            out.push(Instruction::new(
                Op::CopyObject,
                Some(t),
                Some(res),
                ids(&vs),
            ));
        } else {
            out.push(Instruction::new(
                Op::CompositeConstruct,
                Some(t),
                Some(res),
                ids(&vs),
            ));
        }
    }

    /// Component-wise bit operation `f` on a (single-operand) double value.
    fn bitwise(
        &mut self,
        out: &mut Vec<Instruction>,
        ins: &Instruction,
        s: Shape,
        mut f: impl FnMut(&mut Self, &mut Vec<Instruction>, Word) -> Word,
    ) -> R<()> {
        let v = ins
            .operands
            .iter()
            .filter_map(id_of)
            .next_back()
            .ok_or(Fp64Error::Malformed("operand"))?;
        let c = self.comps(out, v, s)?;
        let r: Vec<Word> = c.into_iter().map(|x| f(self, out, x)).collect();
        self.build(
            out,
            ins.result_type.unwrap_or(0),
            ins.result_id.unwrap_or(0),
            r,
        );
        Ok(())
    }

    /// The generic rule: decode double operands to f32, the same
    /// instruction on f32 types, encode a double result.
    fn generic(&mut self, out: &mut Vec<Instruction>, ins: &Instruction) -> R<()> {
        let mut ops = Vec::with_capacity(ins.operands.len());
        for (k, o) in ins.operands.iter().enumerate() {
            match o {
                Operand::IdRef(v) if !(ins.class.opcode == Op::ExtInst && k == 0) => {
                    let t = self.vty.get(v).copied().unwrap_or(0);
                    if self.hd(t) {
                        if matches!(self.ty.get(&t), Some(Ty::Pointer(..))) {
                            return Err(Fp64Error::Unsupported(
                                "a pointer to a double as a function operand".into(),
                            ));
                        }
                        ops.push(Operand::IdRef(self.decode(out, *v, t)?));
                    } else {
                        ops.push(o.clone());
                    }
                }
                _ => ops.push(o.clone()),
            }
        }
        let rt = ins.result_type.unwrap_or(0);
        let res = ins.result_id.unwrap_or(0);
        match self.shape(rt) {
            Some(s) => {
                let ft = self.t_f32(s);
                let tmp = self.emit(out, ins.class.opcode, ft, ops);
                self.encode(out, tmp, rt, res)?;
            }
            None => out.push(Instruction::new(ins.class.opcode, Some(rt), Some(res), ops)),
        }
        Ok(())
    }

    /// Assemble: new globals in, dependency order, duplicate
    /// non-aggregate types merged, Float64 dropped.
    fn finish(mut self) -> Vec<u32> {
        let mut globals = std::mem::take(&mut self.m.types_global_values);
        globals.append(&mut self.new_globals);
        let index: FxHashMap<Word, usize> = globals
            .iter()
            .enumerate()
            .filter_map(|(k, i)| i.result_id.map(|id| (id, k)))
            .collect();
        let mut order = Vec::with_capacity(globals.len());
        let mut state = vec![0u8; globals.len()];
        for k in 0..globals.len() {
            visit(k, &globals, &index, &mut state, &mut order, 0);
        }
        let mut remap: FxHashMap<Word, Word> = Default::default();
        let mut seen: FxHashMap<(Op, Vec<Operand>), Word> = Default::default();
        let mut sorted = Vec::with_capacity(globals.len());
        for k in order {
            let mut ins = globals[k].clone();
            apply(&mut ins, &remap);
            let dedupe = matches!(
                ins.class.opcode,
                Op::TypeVoid
                    | Op::TypeBool
                    | Op::TypeInt
                    | Op::TypeFloat
                    | Op::TypeVector
                    | Op::TypeMatrix
                    | Op::TypePointer
                    | Op::TypeFunction
            );
            if let (true, Some(id)) = (dedupe, ins.result_id) {
                let key = (ins.class.opcode, ins.operands.clone());
                if let Some(&first) = seen.get(&key) {
                    remap.insert(id, first);
                    continue;
                }
                seen.insert(key, id);
            }
            sorted.push(ins);
        }
        self.m.types_global_values = sorted;
        self.m.functions.append(&mut self.new_fns);
        self.m.annotations.append(&mut self.new_annots);
        let removed: FxHashSet<Word> = remap.keys().copied().collect();
        self.m.annotations.retain(|a| {
            !a.operands
                .first()
                .and_then(id_of)
                .is_some_and(|t| removed.contains(&t))
        });
        self.m.debug_names.retain(|a| {
            !a.operands
                .first()
                .and_then(id_of)
                .is_some_and(|t| removed.contains(&t))
        });
        self.m.capabilities.retain(|c| {
            !matches!(
                c.operands.first(),
                Some(Operand::Capability(Capability::Float64))
            )
        });
        for ins in self.m.all_inst_iter_mut() {
            apply(ins, &remap);
        }
        if let Some(h) = self.m.header.as_mut() {
            h.bound = self.bound;
        }
        use rspirv::binary::Assemble;
        self.m.assemble()
    }
}

fn visit(
    k: usize,
    g: &[Instruction],
    index: &FxHashMap<Word, usize>,
    state: &mut [u8],
    order: &mut Vec<usize>,
    depth: u32,
) {
    if state[k] != 0 || depth > 256 {
        return;
    }
    state[k] = 1;
    let deps = g[k]
        .result_type
        .into_iter()
        .chain(g[k].operands.iter().filter_map(id_of));
    for d in deps {
        if let Some(&j) = index.get(&d) {
            visit(j, g, index, state, order, depth + 1);
        }
    }
    state[k] = 2;
    order.push(k);
}

fn apply(ins: &mut Instruction, remap: &FxHashMap<Word, Word>) {
    if remap.is_empty() {
        return;
    }
    if let Some(t) = ins.result_type.as_mut() {
        if let Some(&n) = remap.get(t) {
            *t = n;
        }
    }
    for o in ins.operands.iter_mut() {
        if let Operand::IdRef(w) = o {
            if let Some(&n) = remap.get(w) {
                *w = n;
            }
        }
    }
}

/// A copy of `code` with fresh result ids (uses inside renamed too).
fn renumber(code: &[Instruction], bound: &mut Word) -> Vec<Instruction> {
    let mut map: FxHashMap<Word, Word> = Default::default();
    code.iter()
        .map(|i| {
            let mut i = i.clone();
            apply(&mut i, &map);
            if let Some(r) = i.result_id {
                map.insert(r, *bound);
                i.result_id = Some(*bound);
                *bound += 1;
            }
            i
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use glslang::{Compiler, CompilerOptions, ShaderInput, ShaderSource, ShaderStage};

    fn spirv(stage: ShaderStage, src: &str) -> Vec<u32> {
        let compiler = Compiler::acquire().expect("glslang");
        let source = ShaderSource::from(src);
        let input = ShaderInput::new(
            &source,
            stage,
            &CompilerOptions::default(),
            None::<&[(&str, Option<&str>)]>,
            None,
        )
        .expect("input");
        let shader = compiler.create_shader(input).expect("parse");
        shader.compile().expect("compile")
    }

    fn essl(words: &[u32], stage: usize) -> String {
        assert!(uses_float64(words));
        let lowered = lower(words, stage).expect("lowered");
        assert!(!uses_float64(&lowered), "Float64 capability left in");
        crate::shader::spirv_to_essl(&lowered).expect("spirv-cross")
    }

    fn no_doubles(src: &str) {
        for w in ["double", "dvec", "dmat"] {
            assert!(!src.contains(w), "{w} in ESSL:\n{src}");
        }
    }

    const FRAG: &str = r#"#version 450
layout(std140, binding = 0) uniform U {
    float f;
    dvec4 d4;
    dvec3 d3;
    double tail;
    dmat3 m;
    double arr[3];
};
layout(location = 0) flat in dvec3 v3;
layout(location = 2) flat in double v1[2];
layout(location = 0) out vec4 color;
void main() {
    const double k = 1.5;
    dvec3 a = d3 * m + v3;
    bool lt = a.x < tail && d4.w >= double(f) && !isnan(v1[1]) && arr[2] != k;
    uvec2 bits = unpackDouble2x32(packDouble2x32(uvec2(1u, 2u)) + k);
    float back = float(d4.y) + float(int(tail)) + float(uint(v1[0]));
    dvec3 mn = clamp(abs(-a), dvec3(0.0), dvec3(tail));
    double ip;
    double fr = modf(tail, ip) + trunc(ip) + transpose(m)[1].z;
    color = vec4(lt ? 1.0 : 0.0, float(bits.x), back, float(mn.z + fr) + float(sign(d3.x)));
}
"#;

    #[test]
    fn fragment_with_blocks_varyings_and_ops_lowers_to_essl_without_doubles() {
        let src = essl(
            &spirv(ShaderStage::Fragment, FRAG),
            mgpipe::consts::STAGE_FRAGMENT,
        );
        no_doubles(&src);
        assert!(src.contains("uvec2"), "{src}");
        // 1.5 = 0x3FF8_0000_0000_0000: its high word.
        assert!(src.contains("1073217536u"), "{src}");
        // Split flat varyings: dvec3 at 0 (xy) and 1 (z), double[2] at 2, 3.
        for loc in 0..4 {
            assert!(
                src.contains(&format!("layout(location = {loc}) flat in uvec")),
                "location {loc}:\n{src}"
            );
        }
        // Exact helpers are used for comparisons and conversions.
        for f in [
            "mgl_dlt",
            "mgl_deq",
            "mgl_disnan",
            "mgl_d2f",
            "mgl_f2d",
            "mgl_d2i",
            "mgl_d2u",
        ] {
            assert!(src.contains(f), "{f} missing:\n{src}");
        }
    }

    #[test]
    fn block_keeps_std140_offsets_with_padding() {
        let words = spirv(ShaderStage::Fragment, FRAG);
        let lowered = lower(&words, mgpipe::consts::STAGE_FRAGMENT).expect("lowered");
        let m = dr::load_words(&lowered).expect("reload");
        // Offsets of the block's members after lowering, in member order.
        let block = m
            .annotations
            .iter()
            .find(|a| {
                matches!(
                    a.operands.get(1),
                    Some(Operand::Decoration(Decoration::Block))
                )
            })
            .and_then(|a| a.operands.first().and_then(id_of))
            .expect("block");
        let mut offs: Vec<(u32, u32)> = m
            .annotations
            .iter()
            .filter_map(|a| match a.operands.as_slice() {
                [Operand::IdRef(s), Operand::LiteralBit32(k), Operand::Decoration(Decoration::Offset), Operand::LiteralBit32(o)]
                    if *s == block =>
                {
                    Some((*k, *o))
                }
                _ => None,
            })
            .collect();
        offs.sort();
        let offsets: Vec<u32> = offs.iter().map(|x| x.1).collect();
        // f 0, pads 4..32, d4 32, d3 split 64/72/80, tail 88, m 96, arr 192.
        assert_eq!(
            offsets,
            vec![0, 4, 8, 12, 16, 20, 24, 28, 32, 64, 72, 80, 88, 96, 192]
        );
    }

    #[test]
    fn module_without_doubles_is_not_touched() {
        let words = spirv(
            ShaderStage::Fragment,
            "#version 450\nlayout(location = 0) out vec4 c;\nvoid main() { c = vec4(1.0); }\n",
        );
        assert!(!uses_float64(&words));
        assert!(vertex_inputs(&words).expect("inputs").is_empty());
    }

    #[test]
    fn vertex_inputs_split_per_location_and_feed_from_gl_attributes() {
        let words = spirv(
            ShaderStage::Vertex,
            "#version 450\nlayout(location = 0) in dvec4 a;\nlayout(location = 2) in dmat2x3 m;\n\
             layout(location = 6) in double d[2];\nlayout(location = 9) in int i[2];\n\
             void main() { gl_Position = vec4(float(a.w + m[1].z + d[1]), float(i[1]), 0.0, 1.0); }\n",
        );
        let got = vertex_inputs(&words).expect("inputs");
        let f = |location, attrib, high| F64Input {
            location,
            attrib,
            high,
        };
        assert_eq!(
            got,
            vec![
                f(0, 0, false),
                f(1, 0, true),
                f(2, 2, false),
                f(3, 2, true),
                f(4, 3, false),
                f(5, 3, true),
                f(6, 6, false),
                f(7, 7, false),
            ]
        );
        let src = essl(&words, mgpipe::consts::STAGE_VERTEX);
        no_doubles(&src);
        // ESSL refuses array inputs: the int array is split too.
        assert!(src.contains("layout(location = 10) in int"), "{src}");
        assert!(
            !src.contains("flat in"),
            "vertex inputs take no interpolation qualifier:\n{src}"
        );
    }

    #[test]
    fn interface_block_with_doubles_becomes_a_plain_struct() {
        let words = spirv(
            ShaderStage::Vertex,
            "#version 450\nlayout(location = 0) out Blk { flat double d; flat dvec3 v; flat float f; } o;\n\
             void main() { o.d = 1.0; o.v = dvec3(2.0); o.f = 3.0; gl_Position = vec4(0.0); }\n",
        );
        let src = essl(&words, mgpipe::consts::STAGE_VERTEX);
        no_doubles(&src);
        assert!(src.contains("struct Blk"), "{src}");
        for loc in 0..4 {
            assert!(
                src.contains(&format!("layout(location = {loc}) flat out")),
                "location {loc}:\n{src}"
            );
        }
    }

    #[test]
    fn geometry_inputs_and_outputs_lower() {
        let words = spirv(
            ShaderStage::Geometry,
            "#version 450\nlayout(triangles) in;\nlayout(triangle_strip, max_vertices = 3) out;\n\
             layout(location = 0) flat in dvec2 vin[];\nlayout(location = 0) flat out double vout;\n\
             void main() { for (int k = 0; k < 3; k++) { vout = vin[k].y * 2.0; gl_Position = vec4(0.0); EmitVertex(); } }\n",
        );
        let src = essl(&words, mgpipe::consts::STAGE_GEOMETRY);
        no_doubles(&src);
        assert!(src.contains("flat in uvec4"), "{src}");
        assert!(src.contains("flat out uvec2"), "{src}");
    }

    #[test]
    fn dynamic_dvec_index_in_memory_reads_and_writes_the_whole_dvec() {
        let words = spirv(
            ShaderStage::Fragment,
            "#version 450\nlayout(binding = 0) uniform U { dvec3 x; double y; dvec4 a[2]; int k; };\n\
             layout(location = 0) out vec4 c;\n\
             void main() { dvec4 v = dvec4(y); v[k] = x[k] + a[1][k]; c = vec4(float(v.x + v.w)); }\n",
        );
        no_doubles(&essl(&words, mgpipe::consts::STAGE_FRAGMENT));
    }

    #[test]
    fn unsupported_constructs_are_errors_not_panics() {
        let words = spirv(
            ShaderStage::Fragment,
            "#version 450\nlayout(constant_id = 0) const double k = 2.0;\nlayout(location = 0) out vec4 c;\n\
             void main() { c = vec4(float(k)); }\n",
        );
        assert!(matches!(
            lower(&words, mgpipe::consts::STAGE_FRAGMENT),
            Err(Fp64Error::Unsupported(_))
        ));
    }

    #[test]
    fn truncated_or_corrupt_modules_do_not_panic() {
        let words = spirv(ShaderStage::Fragment, FRAG);
        for cut in (5..words.len()).step_by(7) {
            let _ = lower(&words[..cut], mgpipe::consts::STAGE_FRAGMENT);
        }
        for (step, flip) in [
            (13, 0x0001_0007u32),
            (5, 0x0000_0001),
            (11, 0x0003_0000),
            (3, 0xffff_ffff),
        ] {
            let mut bad = words.clone();
            for k in (5..bad.len()).step_by(step) {
                bad[k] ^= flip;
                let _ = lower(&bad, mgpipe::consts::STAGE_FRAGMENT);
                let _ = vertex_inputs(&bad);
            }
        }
    }
}
