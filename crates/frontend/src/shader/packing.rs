//! Varying packing: a program whose varyings between the last vertex stage
//! and the fragment stage need more locations than the backend has gets
//! them packed, component by component, into a few `vec4` / `uvec4`
//! arrays (GL 4.6 §11.1.2.1 counts varyings in components; GLSL lets
//! `float v[64]` use 16 locations, SPIR-V and ESSL give each element one).
//!
//! Both modules of the link are rewritten together, so the two sides
//! agree: each packed varying becomes a `Private` variable of its own type
//! (the shader's accesses are unchanged but for their pointer types); the
//! producer copies it into its pool components before each `OpReturn` of
//! its entry point (vertex) or each `OpEmitVertex` (geometry), the
//! consumer copies the pool components into it at the start of its entry
//! point. A pool per interpolation (smooth, `noperspective`, `centroid`,
//! `sample`; flat values and integers share a `flat uvec4` pool, as bit
//! patterns; a double takes two of its components). Producer outputs the fragment stage does not read become
//! `Private` as well.
//!
//! Taken only when needed (the program is over the limit) and only for the
//! shapes handled; anything else leaves the modules as they were (and the
//! link fails on the location count as before): 64-bit integer or
//! boolean components, structs, interface blocks, `interpolateAt*` in the
//! fragment stage, a varying passed to a function by pointer.
//!
//! Owns: nothing beyond the two modules' words. Never touches reflection
//! results (names, locations the application sees are those of the
//! unpacked program).

use std::collections::HashMap;

use super::spirv::{dec, inst, instructions, op, storage, Module, Type};

const OP_EXT_INST_IMPORT: u16 = 11;
const OP_EXT_INST: u16 = 12;
const OP_COMPOSITE_CONSTRUCT: u32 = 80;
const OP_COMPOSITE_EXTRACT: u32 = 81;
/// GLSL.std.450 PackDouble2x32 / UnpackDouble2x32.
const GLSL_PACK_DOUBLE_2X32: u32 = 59;
const GLSL_UNPACK_DOUBLE_2X32: u32 = 65;
const OP_ENTRY_POINT: u16 = 15;
const OP_FUNCTION_END: u16 = 56;
const OP_FUNCTION_CALL: u16 = 57;
const OP_LOAD: u32 = 61;
const OP_STORE: u32 = 62;
const OP_ACCESS_CHAIN: u16 = 65;
const OP_IN_BOUNDS_ACCESS_CHAIN: u16 = 66;
const OP_PTR_ACCESS_CHAIN: u16 = 67;
const OP_COPY_OBJECT: u16 = 83;
const OP_BITCAST: u32 = 124;
const OP_EMIT_VERTEX: u16 = 218;
const OP_EMIT_STREAM_VERTEX: u16 = 220;
const OP_LABEL: u16 = 248;
const OP_RETURN: u16 = 253;
const OP_LINE: u16 = 8;
const OP_NO_LINE: u16 = 317;
const STORAGE_PRIVATE: u32 = 6;
const DEC_NO_PERSPECTIVE: u32 = 13;
const DEC_FLAT: u32 = 14;
const DEC_PATCH: u32 = 15;
const DEC_CENTROID: u32 = 16;
const DEC_SAMPLE: u32 = 17;
const DEC_INVARIANT: u32 = 18;
const DEC_INDEX: u32 = 32;
const DEC_COMPONENT: u32 = 31;
/// GLSL.std.450 InterpolateAtCentroid / AtSample / AtOffset.
const INTERPOLATE_AT: [u32; 3] = [76, 77, 78];
/// Components one program may pack (64 vec4 locations).
const MAX_COMPONENTS: usize = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Float,
    Int,
    UInt,
    /// Two components (its bit pattern, as `unpackDouble2x32` gives it).
    Double,
}

impl Kind {
    fn components(self) -> u32 {
        if self == Kind::Double {
            2
        } else {
            1
        }
    }
}

/// One 32-bit component of a varying: its access path and scalar type.
#[derive(Debug, Clone)]
struct Leaf {
    path: Vec<u32>,
    scalar: u32,
    kind: Kind,
}

/// The interpolation a pool is declared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Key {
    flat: bool,
    noperspective: bool,
    centroid: bool,
    sample: bool,
}

fn leaves(m: &Module, ty: u32, path: &mut Vec<u32>, out: &mut Vec<Leaf>) -> Option<()> {
    if out.len() > MAX_COMPONENTS || path.len() > 8 {
        return None;
    }
    match m.types.get(&ty)? {
        Type::Float { width } if *width == 32 || *width == 64 => out.push(Leaf {
            path: path.clone(),
            scalar: ty,
            kind: if *width == 64 {
                Kind::Double
            } else {
                Kind::Float
            },
        }),
        Type::Int { width: 32, signed } => out.push(Leaf {
            path: path.clone(),
            scalar: ty,
            kind: if *signed { Kind::Int } else { Kind::UInt },
        }),
        Type::Vector { component, count } => {
            for k in 0..*count {
                path.push(k);
                leaves(m, *component, path, out)?;
                path.pop();
            }
        }
        Type::Matrix { column, columns } => {
            for c in 0..*columns {
                path.push(c);
                leaves(m, *column, path, out)?;
                path.pop();
            }
        }
        Type::Array {
            element,
            len: Some(n),
        } => {
            for i in 0..*n {
                path.push(i);
                leaves(m, *element, path, out)?;
                path.pop();
            }
        }
        _ => return None,
    }
    Some(())
}

/// A user varying of one side: variable, value type, location, leaves.
struct Varying {
    var: u32,
    ty: u32,
    location: u32,
    leaves: Vec<Leaf>,
}

/// The located, non-built-in interface variables of `m` in `storage`
/// (None: one of them is not packable).
fn varyings(m: &Module, class: u32) -> Option<Vec<Varying>> {
    let mut out = Vec::new();
    for v in m.variables.iter().filter(|v| v.storage == class) {
        let ty = m.pointee(v)?;
        if m.has_decoration(v.id, dec::BUILTIN) {
            continue;
        }
        if let Some(Type::Struct { .. }) = m.types.get(&ty) {
            // gl_PerVertex and friends: built-in members only.
            if m.has_member_decoration(ty, 0, dec::BUILTIN) {
                continue;
            }
            return None;
        }
        let location = m.decoration(v.id, dec::LOCATION)?;
        if m.has_decoration(v.id, DEC_PATCH) || m.has_decoration(v.id, DEC_COMPONENT) {
            return None;
        }
        let mut l = Vec::new();
        leaves(m, ty, &mut Vec::new(), &mut l)?;
        out.push(Varying {
            var: v.id,
            ty,
            location,
            leaves: l,
        });
    }
    out.sort_by_key(|v| v.location);
    Some(out)
}

fn key_of(m: &Module, v: &Varying) -> Key {
    Key {
        flat: m.has_decoration(v.var, DEC_FLAT) || v.leaves.iter().any(|l| l.kind != Kind::Float),
        noperspective: m.has_decoration(v.var, DEC_NO_PERSPECTIVE),
        centroid: m.has_decoration(v.var, DEC_CENTROID),
        sample: m.has_decoration(v.var, DEC_SAMPLE),
    }
}

/// Where each leaf of a packed variable goes: (pool, first component of
/// the pool; a double takes that one and the next).
type Placement = Vec<(usize, u32)>;

/// A rewrite plan for one module.
struct Plan<'a> {
    /// Packed variables: (varying, placement of its leaves).
    packed: Vec<(&'a Varying, Placement)>,
    /// Outputs nobody reads: made Private, not copied.
    dropped: Vec<&'a Varying>,
}

/// The rewritten words of both modules.
pub(crate) struct Packed {
    pub producer: Vec<u32>,
    pub consumer: Vec<u32>,
}

/// Pack the varyings from `producer` (vertex or geometry stage) to
/// `consumer` (fragment stage) into `limit` locations. None: not possible
/// (the modules stay as they are).
pub(crate) fn pack(
    producer: &Module,
    consumer: &Module,
    geometry: bool,
    limit: u32,
) -> Option<Packed> {
    let outs = varyings(producer, storage::OUTPUT)?;
    let ins = varyings(consumer, storage::INPUT)?;
    // interpolateAt* needs the input variable itself.
    let interpolates = instructions(&consumer.words)
        .any(|(opc, w)| opc == OP_EXT_INST && w.get(4).is_some_and(|i| INTERPOLATE_AT.contains(i)));
    if interpolates {
        return None;
    }
    // Pools in order of first use; leaves placed in location order.
    let mut keys: Vec<Key> = Vec::new();
    let mut counts: Vec<u32> = Vec::new();
    let mut consumer_plan = Plan {
        packed: Vec::new(),
        dropped: Vec::new(),
    };
    let mut producer_plan = Plan {
        packed: Vec::new(),
        dropped: Vec::new(),
    };
    for v in &ins {
        let key = key_of(consumer, v);
        let pool = match keys.iter().position(|k| *k == key) {
            Some(p) => p,
            None => {
                keys.push(key);
                counts.push(0);
                keys.len() - 1
            }
        };
        let mut placement = Vec::with_capacity(v.leaves.len());
        for leaf in &v.leaves {
            let n = counts[pool];
            placement.push((pool, n));
            counts[pool] = n + leaf.kind.components();
        }
        if let Some(o) = outs.iter().find(|o| o.location == v.location) {
            let same = o.leaves.len() == v.leaves.len()
                && o.leaves
                    .iter()
                    .zip(&v.leaves)
                    .all(|(a, b)| a.kind == b.kind);
            if !same {
                return None;
            }
            producer_plan.packed.push((o, placement.clone()));
        }
        consumer_plan.packed.push((v, placement));
    }
    for o in &outs {
        if !ins.iter().any(|v| v.location == o.location) {
            producer_plan.dropped.push(o);
        }
    }
    let slots: Vec<u32> = counts.iter().map(|c| c.div_ceil(4)).collect();
    if slots.iter().sum::<u32>() > limit {
        return None;
    }
    let pools: Vec<(Key, u32)> = keys.into_iter().zip(slots).collect();
    Some(Packed {
        producer: rewrite(
            producer,
            &producer_plan,
            &pools,
            Side::Producer { geometry },
        )?,
        consumer: rewrite(consumer, &consumer_plan, &pools, Side::Consumer)?,
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Producer { geometry: bool },
    Consumer,
}

/// Declarations added to a module: fresh ids, types found or made.
struct Builder<'m> {
    m: &'m Module,
    bound: u32,
    decls: Vec<u32>,
    made: Vec<(Type, u32)>,
    constants: HashMap<u32, u32>,
}

impl Builder<'_> {
    fn fresh(&mut self) -> u32 {
        self.bound += 1;
        self.bound - 1
    }

    /// A non-aggregate type: the module's own when it has it (SPIR-V
    /// forbids duplicates), else a new one.
    fn ty(&mut self, want: Type) -> u32 {
        if let Some(id) = self
            .m
            .types
            .iter()
            .filter(|(_, t)| **t == want)
            .map(|(id, _)| *id)
            .min()
        {
            return id;
        }
        if let Some((_, id)) = self.made.iter().find(|(t, _)| *t == want) {
            return *id;
        }
        let id = self.fresh();
        let words = match &want {
            Type::Float { width } => inst(u32::from(op::TYPE_FLOAT), &[id, *width]),
            Type::Int { width, signed } => {
                inst(u32::from(op::TYPE_INT), &[id, *width, u32::from(*signed)])
            }
            Type::Vector { component, count } => {
                inst(u32::from(op::TYPE_VECTOR), &[id, *component, *count])
            }
            Type::Pointer {
                storage: s,
                pointee,
            } => inst(u32::from(op::TYPE_POINTER), &[id, *s, *pointee]),
            _ => Vec::new(),
        };
        self.decls.extend(words);
        self.made.push((want, id));
        id
    }

    fn int(&mut self) -> u32 {
        self.ty(Type::Int {
            width: 32,
            signed: true,
        })
    }

    fn constant(&mut self, k: u32) -> u32 {
        if let Some(&id) = self.constants.get(&k) {
            return id;
        }
        let int = self.int();
        let id = self.fresh();
        self.decls
            .extend(inst(u32::from(op::CONSTANT), &[int, id, k]));
        self.constants.insert(k, id);
        id
    }

    fn pointer(&mut self, class: u32, pointee: u32) -> u32 {
        self.ty(Type::Pointer {
            storage: class,
            pointee,
        })
    }
}

/// The words of `m` with `plan` applied, or None when a use of a packed
/// variable is not one this pass rewrites.
fn rewrite(m: &Module, plan: &Plan, pools: &[(Key, u32)], side: Side) -> Option<Vec<u32>> {
    let words = &m.words;
    let class = match side {
        Side::Producer { .. } => storage::OUTPUT,
        Side::Consumer => storage::INPUT,
    };
    let mut b = Builder {
        m,
        bound: *words.get(3)?,
        decls: Vec::new(),
        made: Vec::new(),
        constants: HashMap::new(),
    };
    let float = b.ty(Type::Float { width: 32 });
    let uint = b.ty(Type::Int {
        width: 32,
        signed: false,
    });
    // The pools.
    let mut pool_vars = Vec::with_capacity(pools.len());
    let mut pool_scalar = Vec::with_capacity(pools.len());
    let mut decos: Vec<u32> = Vec::new();
    let mut location = 0u32;
    for (key, slots) in pools {
        let scalar = if key.flat { uint } else { float };
        let vec4 = b.ty(Type::Vector {
            component: scalar,
            count: 4,
        });
        let len = b.constant(*slots);
        let array = b.fresh();
        b.decls
            .extend(inst(u32::from(op::TYPE_ARRAY), &[array, vec4, len]));
        let ptr = b.pointer(class, array);
        let var = b.fresh();
        b.decls
            .extend(inst(u32::from(op::VARIABLE), &[ptr, var, class]));
        decos.extend(inst(
            u32::from(op::DECORATE),
            &[var, dec::LOCATION, location],
        ));
        for (on, d) in [
            (key.flat, DEC_FLAT),
            (key.noperspective, DEC_NO_PERSPECTIVE),
            (key.centroid, DEC_CENTROID),
            (key.sample, DEC_SAMPLE),
        ] {
            if on {
                decos.extend(inst(u32::from(op::DECORATE), &[var, d]));
            }
        }
        location += slots;
        pool_vars.push(var);
        pool_scalar.push(scalar);
    }
    // The variables that become Private, re-declared after the new types.
    let rewired: Vec<(u32, u32)> = plan
        .packed
        .iter()
        .map(|(v, _)| (v.var, v.ty))
        .chain(plan.dropped.iter().map(|v| (v.var, v.ty)))
        .collect();
    for &(var, ty) in &rewired {
        let ptr = b.pointer(STORAGE_PRIVATE, ty);
        b.decls
            .extend(inst(u32::from(op::VARIABLE), &[ptr, var, STORAGE_PRIVATE]));
    }
    let is_rewired = |id: u32| rewired.iter().any(|(v, _)| *v == id);

    // Pointers derived from them get Private pointer types.
    let mut derived: Vec<u32> = rewired.iter().map(|(v, _)| *v).collect();
    let mut retyped: HashMap<usize, u32> = HashMap::new();
    let mut at = 5usize;
    for (opc, w) in instructions(words) {
        match opc {
            OP_ACCESS_CHAIN | OP_IN_BOUNDS_ACCESS_CHAIN | OP_PTR_ACCESS_CHAIN | OP_COPY_OBJECT
                if w.get(3).is_some_and(|base| derived.contains(base)) =>
            {
                let Some(Type::Pointer { pointee, .. }) = m.types.get(w.get(1)?) else {
                    return None;
                };
                let private = b.pointer(STORAGE_PRIVATE, *pointee);
                retyped.insert(at + 1, private);
                derived.push(*w.get(2)?);
            }
            OP_FUNCTION_CALL if w.get(4..)?.iter().any(|a| derived.contains(a)) => return None,
            _ => {}
        }
        at += w.len();
    }

    // The entry point and where the copies go.
    let (entry_fn, entry_at) = instructions(words)
        .scan(5usize, |pos, (opc, w)| {
            let here = *pos;
            *pos += w.len();
            Some((opc, w, here))
        })
        .find(|(opc, _, _)| *opc == OP_ENTRY_POINT)
        .map(|(_, w, here)| (w.get(2).copied(), here))?;
    let entry_fn = entry_fn?;
    let version = words.get(1).copied().unwrap_or(0);

    let glsl = instructions(words)
        .find(|(opc, w)| {
            *opc == OP_EXT_INST_IMPORT
                && super::spirv::decode_string(w.get(2..).unwrap_or(&[])) == "GLSL.std.450"
        })
        .and_then(|(_, w)| w.get(1).copied());
    let copy = |b: &mut Builder, (v, placement): &(&Varying, Placement)| -> Option<Vec<u32>> {
        let mut code = Vec::new();
        for (leaf, &(pool, first)) in v.leaves.iter().zip(placement) {
            let ps = pool_scalar[pool];
            let private_ptr = b.pointer(STORAGE_PRIVATE, leaf.scalar);
            let io_ptr = b.pointer(class, ps);
            let var_ptr = if leaf.path.is_empty() {
                v.var
            } else {
                let idx: Vec<u32> = leaf.path.iter().map(|&k| b.constant(k)).collect();
                let id = b.fresh();
                let mut ops = vec![private_ptr, id, v.var];
                ops.extend(idx);
                code.extend(inst(u32::from(OP_ACCESS_CHAIN), &ops));
                id
            };
            let mut pool_ptrs = Vec::with_capacity(2);
            for n in first..first + leaf.kind.components() {
                let (s, c) = (b.constant(n / 4), b.constant(n % 4));
                let pool_ptr = b.fresh();
                code.extend(inst(
                    u32::from(OP_ACCESS_CHAIN),
                    &[io_ptr, pool_ptr, pool_vars[pool], s, c],
                ));
                pool_ptrs.push(pool_ptr);
            }
            let val = b.fresh();
            match (side, leaf.kind) {
                (Side::Producer { .. }, Kind::Double) => {
                    let glsl = glsl?;
                    let uvec2 = b.ty(Type::Vector {
                        component: ps,
                        count: 2,
                    });
                    code.extend(inst(OP_LOAD, &[leaf.scalar, val, var_ptr]));
                    let bits = b.fresh();
                    code.extend(inst(
                        u32::from(OP_EXT_INST),
                        &[uvec2, bits, glsl, GLSL_UNPACK_DOUBLE_2X32, val],
                    ));
                    for (k, &p) in pool_ptrs.iter().enumerate() {
                        let part = b.fresh();
                        code.extend(inst(OP_COMPOSITE_EXTRACT, &[ps, part, bits, k as u32]));
                        code.extend(inst(OP_STORE, &[p, part]));
                    }
                }
                (Side::Consumer, Kind::Double) => {
                    let glsl = glsl?;
                    let uvec2 = b.ty(Type::Vector {
                        component: ps,
                        count: 2,
                    });
                    let mut parts = Vec::with_capacity(2);
                    for &p in &pool_ptrs {
                        let part = b.fresh();
                        code.extend(inst(OP_LOAD, &[ps, part, p]));
                        parts.push(part);
                    }
                    let bits = b.fresh();
                    code.extend(inst(
                        OP_COMPOSITE_CONSTRUCT,
                        &[uvec2, bits, parts[0], parts[1]],
                    ));
                    code.extend(inst(
                        u32::from(OP_EXT_INST),
                        &[leaf.scalar, val, glsl, GLSL_PACK_DOUBLE_2X32, bits],
                    ));
                    code.extend(inst(OP_STORE, &[var_ptr, val]));
                }
                (Side::Producer { .. }, _) => {
                    code.extend(inst(OP_LOAD, &[leaf.scalar, val, var_ptr]));
                    let out = if leaf.scalar != ps {
                        let o = b.fresh();
                        code.extend(inst(OP_BITCAST, &[ps, o, val]));
                        o
                    } else {
                        val
                    };
                    code.extend(inst(OP_STORE, &[pool_ptrs[0], out]));
                }
                (Side::Consumer, _) => {
                    code.extend(inst(OP_LOAD, &[ps, val, pool_ptrs[0]]));
                    let out = if leaf.scalar != ps {
                        let o = b.fresh();
                        code.extend(inst(OP_BITCAST, &[leaf.scalar, o, val]));
                        o
                    } else {
                        val
                    };
                    code.extend(inst(OP_STORE, &[var_ptr, out]));
                }
            }
        }
        Some(code)
    };
    let mut copy_code = Vec::new();
    for p in &plan.packed {
        copy_code.extend(copy(&mut b, p)?);
    }

    // Insertion points (word offsets) for the copies.
    let mut inserts: Vec<usize> = Vec::new();
    let mut in_entry = false;
    let mut entry_first_block: Option<usize> = None;
    let mut after_label = false;
    let mut first_function: Option<usize> = None;
    at = 5;
    for (opc, w) in instructions(words) {
        if opc == op::FUNCTION {
            first_function.get_or_insert(at);
            in_entry = w.get(2) == Some(&entry_fn);
        }
        match (opc, side) {
            (OP_FUNCTION_END, _) => in_entry = false,
            (OP_LABEL, Side::Consumer) if in_entry && entry_first_block.is_none() => {
                after_label = true;
                entry_first_block = Some(at + w.len());
            }
            (op::VARIABLE | OP_LINE | OP_NO_LINE, Side::Consumer) if after_label => {
                entry_first_block = Some(at + w.len());
            }
            (_, Side::Consumer) if after_label => after_label = false,
            (OP_RETURN, Side::Producer { geometry: false }) if in_entry => inserts.push(at),
            (OP_EMIT_VERTEX | OP_EMIT_STREAM_VERTEX, Side::Producer { geometry: true }) => {
                inserts.push(at)
            }
            _ => {}
        }
        at += w.len();
    }
    if side == Side::Consumer {
        inserts.push(entry_first_block?);
    }
    let first_function = first_function?;

    // Assemble.
    let mut out = Vec::with_capacity(words.len() + b.decls.len() + 64);
    out.extend_from_slice(words.get(..5)?);
    let annotation_end = m.annotation_end;
    let mut at = 5usize;
    for (opc, w) in instructions(words) {
        if at == annotation_end {
            out.extend_from_slice(&decos);
        }
        if at == first_function {
            out.extend_from_slice(&b.decls);
        }
        if inserts.contains(&at) {
            out.extend_from_slice(&copy_code);
        }
        match opc {
            OP_ENTRY_POINT if at == entry_at => {
                // Interface: after the name (a nul-terminated string).
                let name_end = w
                    .iter()
                    .skip(3)
                    .position(|x| x.to_le_bytes().contains(&0))
                    .map(|p| p + 4)?;
                let mut ops: Vec<u32> = w.get(1..name_end)?.to_vec();
                for &id in w.get(name_end..)? {
                    // SPIR-V 1.4 on lists every global the entry point uses.
                    if !is_rewired(id) || version >= 0x0001_0400 {
                        ops.push(id);
                    }
                }
                ops.extend(&pool_vars);
                out.extend(inst(u32::from(OP_ENTRY_POINT), &ops));
            }
            op::DECORATE
                if w.get(1).is_some_and(|&id| is_rewired(id))
                    && w.get(2).is_some_and(|d| {
                        [
                            dec::LOCATION,
                            DEC_COMPONENT,
                            DEC_FLAT,
                            DEC_NO_PERSPECTIVE,
                            DEC_CENTROID,
                            DEC_SAMPLE,
                            DEC_INVARIANT,
                            DEC_INDEX,
                        ]
                        .contains(d)
                    }) => {}
            op::VARIABLE if w.get(2).is_some_and(|&id| is_rewired(id)) && at < first_function => {}
            _ => {
                let start = out.len();
                out.extend_from_slice(w);
                if let Some(&t) = retyped.get(&(at + 1)) {
                    out[start + 1] = t;
                }
            }
        }
        at += w.len();
    }
    if annotation_end >= at {
        return None;
    }
    out[3] = b.bound;
    Some(out)
}
