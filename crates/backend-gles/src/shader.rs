//! SPIR-V -> ESSL 3.20 (spirv-cross2) and GLES program linking.

use glow::HasContext;
use mgpipe::Handle;
use spirv_cross2::compile::glsl::GlslVersion;
use spirv_cross2::compile::CompilableTarget;
use spirv_cross2::targets::Glsl;
use spirv_cross2::{Compiler, Module};
use tracing::{error, trace, warn};

/// GL shader type per `create_shader` stage index (vs, tcs, tes, gs, fs, cs).
pub const STAGE_GL: [u32; 6] = [
    glow::VERTEX_SHADER,
    glow::TESS_CONTROL_SHADER,
    glow::TESS_EVALUATION_SHADER,
    glow::GEOMETRY_SHADER,
    glow::FRAGMENT_SHADER,
    glow::COMPUTE_SHADER,
];
pub const STAGE_NAME: [&str; 6] = [
    "vertex",
    "tess_control",
    "tess_eval",
    "geometry",
    "fragment",
    "compute",
];

/// Translate one SPIR-V module to ESSL 3.20. Explicit bindings and
/// locations are kept (ESSL 3.10+ has layout(binding)); base instance is
/// not folded into gl_InstanceID (GLES has no base instance).
pub fn spirv_to_essl(words: &[u32]) -> Result<String, String> {
    if words.first() != Some(&0x0723_0203) {
        return Err("not a SPIR-V module (bad magic)".into());
    }
    let mut words = fill_unknown_image_formats(words);
    if let Some(lowered) = lower_derivative_control(&words) {
        words = std::borrow::Cow::Owned(lowered);
    }
    if let Some(lowered) = interpolate_whole_vectors(&words) {
        words = std::borrow::Cow::Owned(lowered);
    }
    if let Some(blocks) = struct_varyings_to_blocks(&words) {
        words = std::borrow::Cow::Owned(blocks);
    }
    if let std::borrow::Cow::Owned(marked) = precise_store_targets(&words) {
        words = std::borrow::Cow::Owned(marked);
    }
    let module = Module::from_words(&words);
    let pixel_center_integer = has_execution_mode(&words, EXEC_MODE_PIXEL_CENTER_INTEGER);
    let compiler = Compiler::<Glsl>::new(module).map_err(|e| format!("spirv-cross parse: {e}"))?;
    let mut opts = Glsl::options();
    opts.version = GlslVersion::Glsl320Es;
    opts.vulkan_semantics = false;
    opts.support_nonzero_base_instance = false;
    opts.es_default_float_precision_highp = true;
    opts.es_default_int_precision_highp = true;
    opts.enable_420pack_extension = false;
    let out = compiler
        .compile(&opts)
        .map_err(|e| format!("spirv-cross compile: {e}"))?;
    let out = out.to_string();
    Ok(if pixel_center_integer {
        shift_frag_coord_to_integer_centers(&out)
    } else {
        out
    })
}

/// SPIR-V `ExecutionMode PixelCenterInteger`.
const EXEC_MODE_PIXEL_CENTER_INTEGER: u32 = 6;

/// Whether the module declares execution mode `mode` (`OpExecutionMode`).
fn has_execution_mode(words: &[u32], mode: u32) -> bool {
    const OP_EXECUTION_MODE: u32 = 16;
    instructions(words).any(|(_, op, inst)| op == OP_EXECUTION_MODE && inst.get(2) == Some(&mode))
}

/// Emulation: `layout(pixel_center_integer) in vec4 gl_FragCoord`
/// (GL_ARB_fragment_coord_conventions) has no ESSL form (spirv-cross
/// drops the mode): every read of `gl_FragCoord` becomes one with the
/// centres moved from half-integers to integers.
fn shift_frag_coord_to_integer_centers(src: &str) -> String {
    const NAME: &str = "gl_FragCoord";
    let mut out = String::with_capacity(src.len() + 64);
    let mut rest = src;
    while let Some(at) = rest.find(NAME) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + NAME.len()..].chars().next();
        let ident = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        out.push_str(&rest[..at]);
        if ident(before) || ident(after) {
            out.push_str(NAME);
        } else {
            out.push_str("(gl_FragCoord - vec4(0.5, 0.5, 0.0, 0.0))");
        }
        rest = &rest[at + NAME.len()..];
    }
    out.push_str(rest);
    out
}

/// The instructions of a SPIR-V module after its 5-word header: (word
/// offset, opcode, the instruction's words, head included). Ends at the
/// first malformed instruction (length 0, or past the end).
pub(crate) fn instructions(words: &[u32]) -> impl Iterator<Item = (usize, u32, &[u32])> + '_ {
    let mut at = 5usize;
    std::iter::from_fn(move || {
        let head = *words.get(at)?;
        let len = (head >> 16) as usize;
        let ins = words.get(at..at.checked_add(len)?).filter(|_| len > 0)?;
        let item = (at, head & 0xffff, ins);
        at += len;
        Some(item)
    })
}

/// Whether every word after the header belongs to a well-formed
/// instruction (a rewrite that copies the module relies on it).
pub(crate) fn well_formed(words: &[u32]) -> bool {
    words.len() >= 5
        && instructions(words)
            .last()
            .map_or(5, |(at, _, ins)| at + ins.len())
            == words.len()
}

/// Emulation: ESSL has no derivative control (ARB_derivative_control's
/// `dFdxFine`/`dFdxCoarse`/... , core in GLSL 4.50): the fine and coarse
/// derivatives become the plain ones (which the implementation computes
/// at either precision, as GL allows for `dFdx`) and the
/// `DerivativeControl` capability is dropped. None: nothing to lower.
pub fn lower_derivative_control(words: &[u32]) -> Option<Vec<u32>> {
    const OP_NOP: u32 = 0;
    const OP_CAPABILITY: u32 = 17;
    const CAPABILITY_DERIVATIVE_CONTROL: u32 = 51;
    const OP_DPDX: u32 = 207;
    // OpDPdxFine .. OpFwidthCoarse, in the order dx, dy, fwidth.
    const FINE_AND_COARSE: std::ops::RangeInclusive<u32> = 210..=215;
    let mut out: Option<Vec<u32>> = None;
    for (at, op, ins) in instructions(words) {
        if FINE_AND_COARSE.contains(&op) {
            let plain = OP_DPDX + (op - 210) % 3;
            out.get_or_insert_with(|| words.to_vec())[at] = (ins[0] & 0xffff_0000) | plain;
        } else if op == OP_CAPABILITY && ins.len() == 2 && ins[1] == CAPABILITY_DERIVATIVE_CONTROL {
            let w = out.get_or_insert_with(|| words.to_vec());
            // Two one-word OpNops keep every offset.
            w[at] = (1 << 16) | OP_NOP;
            w[at + 1] = (1 << 16) | OP_NOP;
        }
    }
    out
}

/// Emulation: ESSL 3.20 takes only a whole input (or an array element)
/// as `interpolateAt*`'s interpolant, where desktop GLSL 4.40+ also takes
/// a component (`interpolateAtCentroid(v.z)`, `v[i]`), which SPIR-V
/// writes as an access chain into a vector input. Such a call interpolates
/// the whole vector and extracts the component (the same value: each
/// component is interpolated on its own). Only chains of one index
/// straight off a vector input variable are rewritten. None: nothing to do.
pub fn interpolate_whole_vectors(words: &[u32]) -> Option<Vec<u32>> {
    const OP_EXT_INST_IMPORT: u32 = 11;
    const OP_EXT_INST: u32 = 12;
    const OP_TYPE_VECTOR: u32 = 23;
    const OP_TYPE_POINTER: u32 = 32;
    const OP_VARIABLE: u32 = 59;
    const OP_ACCESS_CHAIN: u32 = 65;
    const OP_IN_BOUNDS_ACCESS_CHAIN: u32 = 66;
    const OP_VECTOR_EXTRACT_DYNAMIC: u32 = 77;
    // GLSL.std.450 InterpolateAtCentroid, InterpolateAtSample, InterpolateAtOffset.
    const INTERPOLATE_AT: std::ops::RangeInclusive<u32> = 76..=78;
    if words.len() < 5 {
        return None;
    }
    let mut glsl_set = None;
    let mut vectors = rustc_hash::FxHashSet::default();
    let mut pointee: rustc_hash::FxHashMap<u32, u32> = Default::default();
    let mut var_type: rustc_hash::FxHashMap<u32, u32> = Default::default();
    // access chain result -> (base, index) for one-index chains.
    let mut chains: rustc_hash::FxHashMap<u32, (u32, u32)> = Default::default();
    if !well_formed(words) {
        return None;
    }
    for (_, op, ins) in instructions(words) {
        let len = ins.len();
        match op {
            OP_EXT_INST_IMPORT if len >= 3 => {
                let name: Vec<u8> = ins[2..].iter().flat_map(|w| w.to_le_bytes()).collect();
                if name.starts_with(b"GLSL.std.450\0") {
                    glsl_set = Some(ins[1]);
                }
            }
            OP_TYPE_VECTOR if len >= 4 => {
                vectors.insert(ins[1]);
            }
            OP_TYPE_POINTER if len >= 4 => {
                pointee.insert(ins[1], ins[3]);
            }
            OP_VARIABLE if len >= 4 => {
                var_type.insert(ins[2], ins[1]);
            }
            OP_ACCESS_CHAIN | OP_IN_BOUNDS_ACCESS_CHAIN if len == 5 => {
                chains.insert(ins[2], (ins[3], ins[4]));
            }
            _ => {}
        }
    }
    let glsl_set = glsl_set?;
    // The vector type a one-index chain at `ptr` reads a component of.
    let whole = |ptr: u32| -> Option<(u32, u32, u32)> {
        let &(base, index) = chains.get(&ptr)?;
        let ty = *pointee.get(var_type.get(&base)?)?;
        vectors.contains(&ty).then_some((base, index, ty))
    };
    let mut bound = words[3];
    let mut out: Vec<u32> = Vec::with_capacity(words.len() + 8);
    out.extend_from_slice(&words[..5]);
    let mut changed = false;
    for (_, op, ins) in instructions(words) {
        let len = ins.len();
        let target = (op == OP_EXT_INST
            && len >= 6
            && ins[3] == glsl_set
            && INTERPOLATE_AT.contains(&ins[4]))
        .then(|| whole(ins[5]))
        .flatten();
        match target {
            Some((base, index, vec_ty)) => {
                let (result_ty, result) = (ins[1], ins[2]);
                let full = bound;
                bound += 1;
                out.push(ins[0]);
                out.extend_from_slice(&[vec_ty, full, glsl_set, ins[4], base]);
                out.extend_from_slice(&ins[6..]);
                out.extend_from_slice(&[
                    (5 << 16) | OP_VECTOR_EXTRACT_DYNAMIC,
                    result_ty,
                    result,
                    full,
                    index,
                ]);
                changed = true;
            }
            None => out.extend_from_slice(ins),
        }
    }
    out[3] = bound;
    changed.then_some(out)
}

/// Emulation: `precise` reaches SPIR-V as `NoContraction` on the
/// instructions computing the value, while SPIRV-Cross writes `precise`
/// only on the temporaries of binary operators: a `precise` built-in call
/// (`x = fract(y)`, decorated by `frontend`'s `propagate_no_contraction`)
/// is forwarded into a plain variable and the GLSL compiler under it may
/// fold it (Mesa takes `fract` of an integral-looking value as 0, NaN or
/// not). A function-local variable that a `NoContraction` value is stored
/// to is decorated `NoContraction` too, which SPIRV-Cross writes as a
/// `precise` variable (GLSL then treats every computation assigned to it
/// as precise). Only this translator sees the decoration (SPIR-V puts
/// `NoContraction` on instructions only).
pub fn precise_store_targets(words: &[u32]) -> std::borrow::Cow<'_, [u32]> {
    const OP_FUNCTION: u32 = 54;
    const OP_VARIABLE: u32 = 59;
    const OP_STORE: u32 = 62;
    const OP_DECORATE: u32 = 71;
    const NO_CONTRACTION: u32 = 42;
    const STORAGE_FUNCTION: u32 = 7;
    let mut marked: rustc_hash::FxHashSet<u32> = Default::default();
    let mut locals: rustc_hash::FxHashSet<u32> = Default::default();
    let mut stores: Vec<(u32, u32)> = Vec::new();
    let mut annotation_end = None;
    let mut in_functions = false;
    for (at, op, ins) in instructions(words) {
        let len = ins.len();
        match op {
            OP_DECORATE if len >= 3 && !in_functions => {
                if ins[2] == NO_CONTRACTION {
                    marked.insert(ins[1]);
                }
                annotation_end = Some(at + len);
            }
            OP_FUNCTION => in_functions = true,
            OP_VARIABLE if len >= 4 && ins[3] == STORAGE_FUNCTION => {
                locals.insert(ins[2]);
            }
            OP_STORE if len >= 3 => stores.push((ins[1], ins[2])),
            _ => {}
        }
    }
    let (Some(pos), false) = (annotation_end, marked.is_empty()) else {
        return std::borrow::Cow::Borrowed(words);
    };
    let mut targets: Vec<u32> = stores
        .iter()
        .filter(|(p, v)| marked.contains(v) && locals.contains(p) && !marked.contains(p))
        .map(|(p, _)| *p)
        .collect();
    targets.sort_unstable();
    targets.dedup();
    if targets.is_empty() {
        return std::borrow::Cow::Borrowed(words);
    }
    let mut out = words.to_vec();
    let decorations: Vec<u32> = targets
        .iter()
        .flat_map(|&p| [(3u32 << 16) | OP_DECORATE, p, NO_CONTRACTION])
        .collect();
    out.splice(pos..pos, decorations);
    std::borrow::Cow::Owned(out)
}

/// Emulation: ESSL 3.20 refuses a vertex or geometry output (or a
/// fragment input) of a structure type that holds an array or another
/// structure, which desktop GLSL allows. Such a variable (not an array,
/// with a location, never loaded or stored whole) gets an output (input)
/// block type of its own instead, a copy of the structure decorated
/// `Block` and named `mgl_IoBlock<location>` (ESSL matches blocks by name
/// across stages; both sides have the same location), which ESSL takes
/// with arrays and structures as members. The variable's interpolation
/// decorations move to the block's members (ESSL puts them there).
/// Member access is unchanged. None: nothing to rewrite.
pub fn struct_varyings_to_blocks(words: &[u32]) -> Option<Vec<u32>> {
    const OP_NAME: u32 = 5;
    const OP_MEMBER_NAME: u32 = 6;
    const OP_ENTRY_POINT: u32 = 15;
    const OP_TYPE_ARRAY: u32 = 28;
    const OP_TYPE_RUNTIME_ARRAY: u32 = 29;
    const OP_TYPE_STRUCT: u32 = 30;
    const OP_TYPE_POINTER: u32 = 32;
    const OP_FUNCTION_CALL: u32 = 57;
    const OP_VARIABLE: u32 = 59;
    const OP_LOAD: u32 = 61;
    const OP_STORE: u32 = 62;
    const OP_COPY_MEMORY: u32 = 63;
    const OP_DECORATE: u32 = 71;
    const OP_MEMBER_DECORATE: u32 = 72;
    const DEC_BLOCK: u32 = 2;
    const DEC_BUFFER_BLOCK: u32 = 3;
    const DEC_BUILTIN: u32 = 11;
    const DEC_LOCATION: u32 = 30;
    // NoPerspective, Flat, Centroid, Sample, Invariant.
    const MOVED: [u32; 5] = [13, 14, 16, 17, 18];
    const STORAGE_INPUT: u32 = 1;
    const STORAGE_OUTPUT: u32 = 3;
    // Vertex, TessellationEvaluation, Geometry / Fragment.
    const OUTPUT_MODELS: [u32; 3] = [0, 2, 3];
    const FRAGMENT: u32 = 4;
    if !well_formed(words) {
        return None;
    }
    let mut model = None;
    let mut structs: rustc_hash::FxHashMap<u32, Vec<u32>> = Default::default();
    let mut aggregates: rustc_hash::FxHashSet<u32> = Default::default();
    let mut pointers: rustc_hash::FxHashMap<u32, (u32, u32)> = Default::default();
    // variable -> (pointer type, storage)
    let mut vars: Vec<(u32, u32, u32)> = Vec::new();
    let mut location: rustc_hash::FxHashMap<u32, u32> = Default::default();
    let mut excluded: rustc_hash::FxHashSet<u32> = Default::default();
    let mut moved: rustc_hash::FxHashMap<u32, Vec<u32>> = Default::default();
    let mut member_names: Vec<&[u32]> = Vec::new();
    let mut member_decorations: Vec<&[u32]> = Vec::new();
    let mut first_annotation = None;
    let mut whole_uses: rustc_hash::FxHashSet<u32> = Default::default();
    for (at, op, ins) in instructions(words) {
        let len = ins.len();
        match op {
            OP_ENTRY_POINT if len >= 2 => {
                model = model.or(Some(ins[1]));
            }
            OP_MEMBER_NAME if len >= 3 => member_names.push(ins),
            OP_DECORATE | OP_MEMBER_DECORATE => {
                first_annotation = first_annotation.or(Some(at));
                if op == OP_DECORATE && len >= 3 {
                    match ins[2] {
                        DEC_BLOCK | DEC_BUFFER_BLOCK | DEC_BUILTIN => {
                            excluded.insert(ins[1]);
                        }
                        DEC_LOCATION if len >= 4 => {
                            location.insert(ins[1], ins[3]);
                        }
                        d if MOVED.contains(&d) && len == 3 => {
                            moved.entry(ins[1]).or_default().push(d);
                        }
                        _ => {}
                    }
                } else if op == OP_MEMBER_DECORATE && len >= 4 {
                    if ins[3] == DEC_BUILTIN {
                        excluded.insert(ins[1]);
                    }
                    member_decorations.push(ins);
                }
            }
            OP_TYPE_ARRAY | OP_TYPE_RUNTIME_ARRAY if len >= 2 => {
                aggregates.insert(ins[1]);
            }
            OP_TYPE_STRUCT if len >= 2 => {
                aggregates.insert(ins[1]);
                structs.insert(ins[1], ins[2..].to_vec());
            }
            OP_TYPE_POINTER if len >= 4 => {
                pointers.insert(ins[1], (ins[2], ins[3]));
            }
            OP_VARIABLE if len >= 4 => vars.push((ins[2], ins[1], ins[3])),
            OP_LOAD if len >= 4 => {
                whole_uses.insert(ins[3]);
            }
            OP_STORE if len >= 3 => {
                whole_uses.insert(ins[1]);
            }
            OP_COPY_MEMORY if len >= 3 => {
                whole_uses.insert(ins[1]);
                whole_uses.insert(ins[2]);
            }
            OP_FUNCTION_CALL if len >= 4 => whole_uses.extend(&ins[4..]),
            _ => {}
        }
    }
    let model = model?;
    let wanted = if OUTPUT_MODELS.contains(&model) {
        STORAGE_OUTPUT
    } else if model == FRAGMENT {
        STORAGE_INPUT
    } else {
        return None;
    };
    // (variable, struct, storage, location)
    let targets: Vec<(u32, u32, u32, u32)> = vars
        .iter()
        .filter(|&&(var, _, storage)| {
            storage == wanted && !excluded.contains(&var) && !whole_uses.contains(&var)
        })
        .filter_map(|&(var, ptr, storage)| {
            let &(_, st) = pointers.get(&ptr)?;
            let members = structs.get(&st)?;
            let nested = members.iter().any(|m| aggregates.contains(m));
            (nested && !excluded.contains(&st))
                .then(|| Some((var, st, storage, *location.get(&var)?)))
                .flatten()
        })
        .collect();
    let first_annotation = first_annotation?;
    if targets.is_empty() {
        return None;
    }
    let mut bound = words[3];
    // variable -> (block type, block pointer type)
    let mut fresh: rustc_hash::FxHashMap<u32, (u32, u32)> = Default::default();
    for &(var, ..) in &targets {
        fresh.insert(var, (bound, bound + 1));
        bound += 2;
    }
    // Names and decorations of the new types, at the start of the
    // annotations (names end just before them).
    let mut head: Vec<u32> = Vec::new();
    let mut decorations: Vec<u32> = Vec::new();
    for &(var, st, _, loc) in &targets {
        let block = fresh[&var].0;
        let name = format!("mgl_IoBlock{loc}");
        let mut bytes = name.into_bytes();
        bytes.push(0);
        while bytes.len() % 4 != 0 {
            bytes.push(0);
        }
        let text: Vec<u32> = bytes
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        head.push(((2 + text.len() as u32) << 16) | OP_NAME);
        head.push(block);
        head.extend(&text);
        for m in member_names.iter().filter(|m| m[1] == st) {
            head.push(m[0]);
            head.push(block);
            head.extend(&m[2..]);
        }
        decorations.extend([(3 << 16) | OP_DECORATE, block, DEC_BLOCK]);
        for m in member_decorations.iter().filter(|m| m[1] == st) {
            decorations.push(m[0]);
            decorations.push(block);
            decorations.extend(&m[2..]);
        }
        let count = structs[&st].len() as u32;
        for d in moved.get(&var).into_iter().flatten() {
            for member in 0..count {
                decorations.extend([(4 << 16) | OP_MEMBER_DECORATE, block, member, *d]);
            }
        }
    }
    head.extend(decorations);
    let mut out = Vec::with_capacity(words.len() + head.len() + 16);
    out.extend_from_slice(&words[..5]);
    for (at, op, ins) in instructions(words) {
        if at == first_annotation {
            out.extend(&head);
        }
        match op {
            OP_DECORATE
                if ins.len() == 3 && fresh.contains_key(&ins[1]) && MOVED.contains(&ins[2]) => {}
            OP_VARIABLE if ins.len() >= 4 && fresh.contains_key(&ins[2]) => {
                out.push(ins[0]);
                out.push(fresh[&ins[2]].1);
                out.extend(&ins[2..]);
            }
            OP_TYPE_STRUCT if ins.len() >= 2 => {
                out.extend(ins);
                for &(var, st, storage, _) in &targets {
                    if st == ins[1] {
                        let (block, ptr) = fresh[&var];
                        out.push(ins[0]);
                        out.push(block);
                        out.extend(&ins[2..]);
                        out.extend([(4 << 16) | OP_TYPE_POINTER, ptr, storage, block]);
                    }
                }
            }
            _ => out.extend(ins),
        }
    }
    out[3] = bound;
    Some(out)
}

/// SPIR-V `ImageFormat` values used by [`fill_unknown_image_formats`].
const IMAGE_FORMAT_UNKNOWN: u32 = 0;
const IMAGE_FORMAT_RGBA8: u32 = 4;
const IMAGE_FORMAT_RGBA32I: u32 = 21;
const IMAGE_FORMAT_RGBA32UI: u32 = 30;

/// Emulation: ESSL wants a format qualifier on every storage image, where
/// desktop GLSL (and so the SPIR-V) may leave a `writeonly` image without
/// one (`Unknown` format). Such an image type gets a format: `rgba8` for
/// float images, `rgba32i` / `rgba32ui` for integer ones (warned: stores
/// through a unit of another format are then converted as that format).
/// Anything that does not parse as SPIR-V is returned as it came (the
/// translator reports it).
pub fn fill_unknown_image_formats(words: &[u32]) -> std::borrow::Cow<'_, [u32]> {
    const OP_TYPE_INT: u32 = 21;
    const OP_TYPE_FLOAT: u32 = 22;
    const OP_TYPE_IMAGE: u32 = 25;
    const DIM_SUBPASS_DATA: u32 = 6;
    // id -> Some(signed) for integer types, None for floats.
    let mut scalar: rustc_hash::FxHashMap<u32, Option<bool>> = Default::default();
    let mut patches: Vec<(usize, u32)> = Vec::new();
    for (at, op, ins) in instructions(words) {
        let len = ins.len();
        match op {
            OP_TYPE_INT if len >= 4 => {
                scalar.insert(ins[1], Some(ins[3] != 0));
            }
            OP_TYPE_FLOAT if len >= 3 => {
                scalar.insert(ins[1], None);
            }
            // OpTypeImage result, sampled type, dim, depth, arrayed, ms,
            // sampled (2: storage image), format.
            OP_TYPE_IMAGE
                if len >= 9
                    && ins[7] == 2
                    && ins[3] != DIM_SUBPASS_DATA
                    && ins[8] == IMAGE_FORMAT_UNKNOWN =>
            {
                let format = match scalar.get(&ins[2]) {
                    Some(Some(true)) => IMAGE_FORMAT_RGBA32I,
                    Some(Some(false)) => IMAGE_FORMAT_RGBA32UI,
                    _ => IMAGE_FORMAT_RGBA8,
                };
                patches.push((at + 8, format));
            }
            _ => {}
        }
    }
    if patches.is_empty() {
        return std::borrow::Cow::Borrowed(words);
    }
    let mut out = words.to_vec();
    for (i, format) in patches {
        let name = match format {
            IMAGE_FORMAT_RGBA32I => "rgba32i",
            IMAGE_FORMAT_RGBA32UI => "rgba32ui",
            _ => "rgba8",
        };
        warn!(
            format = name,
            "storage image declared without a format (ESSL needs one): {name} assumed; \
             stores through a unit of another format are converted as {name}"
        );
        out[i] = format;
    }
    std::borrow::Cow::Owned(out)
}

/// Emulation: Mesa's ESSL compiler refuses `layout(location = N)` on an
/// interface block declared as an array (`out B { ... } b[3];`), which
/// desktop GLSL (and the SPIR-V glslang made) allows. For vertex outputs and
/// fragment inputs the qualifier is dropped, so such blocks match across the
/// two stages by block name, as ESSL does for blocks without a location.
pub fn strip_block_array_locations(src: &str, stage: usize) -> String {
    let storage = match stage {
        mgpipe::consts::STAGE_VERTEX => "out ",
        mgpipe::consts::STAGE_FRAGMENT => "in ",
        _ => return src.to_owned(),
    };
    let lines: Vec<&str> = src.lines().collect();
    let mut out = String::with_capacity(src.len());
    for (n, line) in lines.iter().enumerate() {
        let stripped = line
            .strip_prefix("layout(location = ")
            .and_then(|rest| rest.split_once(") "))
            .filter(|(num, decl)| {
                num.bytes().all(|b| b.is_ascii_digit()) && decl.starts_with(storage)
            })
            .map(|(_, decl)| decl);
        let arrayed_block = stripped.is_some()
            && lines.get(n + 1).is_some_and(|l| l.trim() == "{")
            && lines[n + 1..]
                .iter()
                .find(|l| l.starts_with('}'))
                .is_some_and(|l| l.trim_end().ends_with("];"));
        match stripped {
            Some(decl) if arrayed_block => out.push_str(decl),
            _ => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

/// Emulation: desktop geometry shaders read and write `gl_PointSize`
/// freely; ESSL needs `EXT_geometry_point_size` for it (enabled, not
/// required, so a driver without it reports the use itself).
pub fn enable_geometry_point_size(src: String, stage: usize) -> String {
    if stage != mgpipe::consts::STAGE_GEOMETRY || !src.contains("gl_PointSize") {
        return src;
    }
    match src.split_once('\n') {
        Some((version, rest)) if version.starts_with("#version") => {
            format!("{version}\n#extension GL_EXT_geometry_point_size : enable\n{rest}")
        }
        _ => src,
    }
}

/// Emulation: SPIRV-Cross leaves `gl_in[]` of a geometry or tessellation
/// shader undeclared, so its `gl_ClipDistance` is an unsized array in
/// ESSL, which only constant indices may index (Mesa: "unsized array
/// index must be constant"). When such a stage reads it and the stage
/// before writes `gl_ClipDistance[N]` outside a block (a vertex or
/// evaluation shader), both sides get the same `gl_PerVertex`
/// redeclaration (GLES links only matching ones): `out` in the stage
/// before, `in ... gl_in[]` here. `sources` is in stage order.
pub fn size_input_clip_distances(sources: &mut [(usize, String)]) {
    use mgpipe::consts::{STAGE_GEOMETRY, STAGE_TESS_CONTROL, STAGE_TESS_EVAL, STAGE_VERTEX};
    for k in 1..sources.len() {
        let (stage, ref src) = sources[k];
        if !matches!(stage, STAGE_GEOMETRY | STAGE_TESS_CONTROL | STAGE_TESS_EVAL)
            || !src.contains("].gl_ClipDistance")
            || src.contains("} gl_in[")
        {
            continue;
        }
        let (prev_stage, ref prev) = sources[k - 1];
        if !matches!(prev_stage, STAGE_VERTEX | STAGE_TESS_EVAL) {
            continue;
        }
        let Some((line, size)) = prev.lines().find_map(|l| {
            l.strip_prefix("out float gl_ClipDistance[")
                .and_then(|r| r.strip_suffix("];"))
                .and_then(|n| n.parse::<u32>().ok())
                .map(|n| (l.to_owned(), n))
        }) else {
            continue;
        };
        let point_size = if prev.contains("gl_PointSize") || src.contains("].gl_PointSize") {
            if stage != STAGE_GEOMETRY {
                continue;
            }
            "    highp float gl_PointSize;\n"
        } else {
            ""
        };
        let members = format!(
            "{{\n    highp vec4 gl_Position;\n{point_size}    highp float gl_ClipDistance[{size}];\n}}"
        );
        let prev = prev.replacen(&line, &format!("out gl_PerVertex\n{members};"), 1);
        // After the directives (`#version`, `#extension`) that open it.
        let mut at = 0;
        for l in src.split_inclusive('\n') {
            if !l.starts_with('#') {
                break;
            }
            at += l.len();
        }
        let cur = format!(
            "{}in gl_PerVertex\n{members} gl_in[];\n{}",
            &src[..at],
            &src[at..]
        );
        let cur = if cur.contains("GL_EXT_geometry_point_size") {
            cur
        } else {
            enable_geometry_point_size(cur, stage)
        };
        sources[k - 1].1 = prev;
        sources[k].1 = cur;
    }
}

/// Emulation: GL (4.00, GL_ARB_shader_image_load_store) indexes image
/// arrays with dynamically uniform expressions; ESSL only with constant
/// ones (Mesa: "image arrays indexed with non-constant expressions are
/// forbidden"). Each image built-in call whose image is `name[expr]` of
/// a declared array `name[N]` becomes a choice among the N calls with
/// constant indices: a conditional expression, or an `if` chain for a call
/// that is a statement of its own (`imageStore`). An index out of range
/// takes the last element (GL leaves that undefined).
pub fn index_image_arrays_constantly(src: String) -> String {
    if !src.contains("image") {
        return src;
    }
    let arrays: Vec<(String, u32)> = src
        .lines()
        .filter(|l| l.contains("uniform ") && l.contains("image"))
        .filter_map(|l| {
            let (before, n) = l.trim_end().strip_suffix("];")?.rsplit_once('[')?;
            let n = n.parse::<u32>().ok()?;
            let mut words = before.split_whitespace().rev();
            let name = words.next()?;
            words
                .next()
                .filter(|ty| ty.contains("image"))
                .map(|_| (name.to_owned(), n))
        })
        .collect();
    if arrays.is_empty() {
        return src;
    }
    let is_ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut src = src;
    // Bounded: each pass removes one dynamic index (copies of a call may
    // hold further ones).
    for _ in 0..256 {
        let b = src.as_bytes();
        let mut found = None;
        'search: for (name, n) in &arrays {
            let pat = format!("{name}[");
            let mut from = 0;
            while let Some(k) = src[from..].find(&pat) {
                let at = from + k;
                from = at + pat.len();
                if at > 0 && is_ident(b[at - 1]) {
                    continue;
                }
                // The index: up to the matching `]`.
                let open = at + name.len();
                let Some(close) = matching(b, open, b'[', b']') else {
                    continue;
                };
                let expr = &src[open + 1..close];
                if expr
                    .trim()
                    .trim_end_matches(['u', 'U'])
                    .parse::<u32>()
                    .is_ok()
                {
                    continue;
                }
                // The call around it: `imageXxx(` right before the name.
                let before = src[..at].trim_end();
                let Some(paren) = before.strip_suffix('(') else {
                    continue;
                };
                let fstart = paren
                    .bytes()
                    .rposition(|c| !is_ident(c))
                    .map_or(0, |p| p + 1);
                if !paren[fstart..].starts_with("image") {
                    continue;
                }
                let Some(cend) = matching(b, paren.len(), b'(', b')') else {
                    continue;
                };
                found = Some((fstart, cend + 1, at, close + 1, expr.to_owned(), *n));
                break 'search;
            }
        }
        let Some((cstart, cend, istart, iend, expr, n)) = found else {
            break;
        };
        let name = &src[istart..src[istart..].find('[').map_or(istart, |p| istart + p)];
        let call = |k: u32| format!("{}{name}[{k}]{}", &src[cstart..istart], &src[iend..cend]);
        let statement = src[..cstart].trim_end().ends_with(['{', '}', ';'])
            && src[cend..].trim_start().starts_with(';');
        let with = if n <= 1 {
            call(0)
        } else if statement {
            let mut t = format!("{{ int mgl_image_index = int({expr}); ");
            for k in 0..n {
                if k + 1 < n {
                    t.push_str(&format!("if (mgl_image_index == {k}) {}; else ", call(k)));
                } else {
                    t.push_str(&format!("{}; }}", call(k)));
                }
            }
            t
        } else {
            let mut t = String::from("(");
            for k in 0..n - 1 {
                t.push_str(&format!("int({expr}) == {k} ? {} : ", call(k)));
            }
            t.push_str(&call(n - 1));
            t.push(')');
            t
        };
        src = format!("{}{with}{}", &src[..cstart], &src[cend..]);
    }
    src
}

/// The index of the `close` byte matching the `open` byte at `at`.
fn matching(b: &[u8], at: usize, open: u8, close: u8) -> Option<usize> {
    let mut depth = 0i32;
    for (k, &c) in b.iter().enumerate().skip(at) {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return Some(k);
            }
        }
    }
    None
}

/// Split a `create_shader` blob into per-stage word vectors.
pub fn split_stages(
    stage_mask: u32,
    stage_words: &[u32; 6],
    blob: &[u8],
) -> Result<[Option<Vec<u32>>; 6], String> {
    let mut out: [Option<Vec<u32>>; 6] = Default::default();
    let mut at = 0usize;
    for (i, slot) in out.iter_mut().enumerate() {
        if stage_mask & (1 << i) == 0 {
            continue;
        }
        let len = (stage_words[i] as usize)
            .checked_mul(4)
            .ok_or("stage size overflows")?;
        let end = at.checked_add(len).ok_or("stage size overflows")?;
        let bytes = blob.get(at..end).ok_or_else(|| {
            format!(
                "blob of {} bytes is short for stage {} ({} words at byte {at})",
                blob.len(),
                STAGE_NAME[i],
                stage_words[i]
            )
        })?;
        *slot = Some(
            bytes
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
        );
        at = end;
    }
    if out.iter().all(Option::is_none) {
        return Err("no stage in stage_mask".into());
    }
    Ok(out)
}

/// Emulation: GLES has no 1D textures, so SPIRV-Cross writes a 1D sampler
/// as a 2D one and its coordinate as `ivec2(x, 0)`, but leaves the
/// `texelFetchOffset` offset scalar, which no ESSL overload takes (Mesa:
/// "no matching function"). Such a call's offset becomes `ivec2(o, 0)`;
/// only calls that would not compile are touched.
pub fn widen_1d_texel_fetch_offsets(src: String) -> String {
    const CALL: &str = "texelFetchOffset(";
    if !src.contains(CALL) {
        return src;
    }
    let mut out = String::with_capacity(src.len() + 16);
    let mut rest = src.as_str();
    while let Some(at) = rest.find(CALL) {
        let (head, tail) = rest.split_at(at + CALL.len());
        out.push_str(head);
        // Top-level arguments up to the matching `)`.
        let mut depth = 0usize;
        let mut args: Vec<(usize, usize)> = Vec::new();
        let mut start = 0usize;
        let mut end = None;
        for (i, ch) in tail.char_indices() {
            match ch {
                '(' => depth += 1,
                ')' if depth == 0 => {
                    args.push((start, i));
                    end = Some(i);
                    break;
                }
                ')' => depth -= 1,
                ',' if depth == 0 => {
                    args.push((start, i));
                    start = i + 1;
                }
                _ => {}
            }
        }
        let Some(end) = end else {
            out.push_str(tail);
            return out;
        };
        let arg = |k: usize| tail[args[k].0..args[k].1].trim();
        let widen = args.len() == 4
            && arg(1).starts_with("ivec2(")
            && arg(1).ends_with(", 0)")
            && !arg(3).starts_with("ivec2(");
        if widen {
            out.push_str(&tail[..args[3].0]);
            out.push_str(&format!(" ivec2({}, 0)", arg(3)));
            out.push_str(&tail[args[3].1..end]);
        } else {
            out.push_str(&tail[..end]);
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// What a stage's SPIR-V captures by transform feedback: the variables
/// decorated `XfbBuffer`, as (buffer, offset, name), in SPIR-V order.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct XfbCaptures {
    pub outputs: Vec<(u32, u32, String)>,
}

const OP_NAME: u32 = 5;
const OP_CAPABILITY: u32 = 17;
const OP_EXECUTION_MODE: u32 = 16;
const OP_DECORATE: u32 = 71;
const CAP_TRANSFORM_FEEDBACK: u32 = 53;
const MODE_XFB: u32 = 11;
const DEC_OFFSET: u32 = 35;
const DEC_XFB_BUFFER: u32 = 36;
const DEC_XFB_STRIDE: u32 = 37;

fn spirv_string(words: &[u32]) -> String {
    let bytes: Vec<u8> = words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .take_while(|b| *b != 0)
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Emulation: ESSL has no `xfb_*` layout qualifiers, so the transform
/// feedback decorations the frontend puts on the last vertex-processing
/// stage (`XfbBuffer`, `XfbStride`, `Offset` on variables,
/// `ExecutionMode Xfb`, `Capability TransformFeedback`) are taken out of
/// the module before translation and returned as the names to hand to
/// `glTransformFeedbackVaryings` (SPIRV-Cross keeps the variables' names).
/// A module without them comes back unchanged.
pub fn take_xfb(words: &[u32]) -> (std::borrow::Cow<'_, [u32]>, XfbCaptures) {
    let mut caps = XfbCaptures::default();
    if words.len() < 5 || words[0] != 0x0723_0203 {
        return (words.into(), caps);
    }
    let mut names = std::collections::HashMap::new();
    let mut buffer = std::collections::HashMap::new();
    let mut offset = std::collections::HashMap::new();
    let mut order = Vec::new();
    let mut any = false;
    for (_, opcode, inst) in instructions(words) {
        match (opcode, inst.get(1), inst.get(2), inst.get(3)) {
            (OP_NAME, Some(&id), _, _) => {
                names.insert(id, spirv_string(&inst[2..]));
            }
            (OP_DECORATE, Some(&id), Some(&DEC_XFB_BUFFER), Some(&b)) => {
                buffer.insert(id, b);
                order.push(id);
                any = true;
            }
            (OP_DECORATE, Some(&id), Some(&DEC_OFFSET), Some(&o)) => {
                offset.insert(id, o);
            }
            (OP_EXECUTION_MODE, _, Some(&MODE_XFB), _) => any = true,
            _ => {}
        }
    }
    if !any {
        return (words.into(), caps);
    }
    for id in order {
        caps.outputs.push((
            buffer.get(&id).copied().unwrap_or(0),
            offset.get(&id).copied().unwrap_or(0),
            names.get(&id).cloned().unwrap_or_default(),
        ));
    }
    let mut out = Vec::with_capacity(words.len());
    out.extend_from_slice(&words[..5]);
    // A malformed tail (where the walk stops) is kept as it came.
    let mut end = 5;
    for (at, opcode, inst) in instructions(words) {
        end = at + inst.len();
        let drop = match opcode {
            OP_CAPABILITY => inst.get(1) == Some(&CAP_TRANSFORM_FEEDBACK),
            OP_EXECUTION_MODE => inst.get(2) == Some(&MODE_XFB),
            OP_DECORATE => {
                matches!(inst.get(2), Some(&(DEC_XFB_BUFFER | DEC_XFB_STRIDE)))
                    || (inst.get(2) == Some(&DEC_OFFSET)
                        && inst.get(1).is_some_and(|id| buffer.contains_key(id)))
            }
            _ => false,
        };
        if !drop {
            out.extend_from_slice(inst);
        }
    }
    out.extend_from_slice(&words[end..]);
    (out.into(), caps)
}

/// `glTransformFeedbackVaryings` arguments for `caps`: GLES 3.2 has no
/// `gl_NextBuffer`/`gl_SkipComponents*`, so one buffer (interleaved, in
/// offset order) or one varying per buffer at offset 0 (separate) is what
/// it can express; another layout keeps buffer 0 only (logged).
pub fn xfb_varyings(cso: Handle, caps: &XfbCaptures) -> (Vec<String>, u32) {
    let mut v: Vec<&(u32, u32, String)> = caps.outputs.iter().collect();
    v.sort_by_key(|(b, o, _)| (*b, *o));
    let separate = v.len() > 1
        && v.iter()
            .enumerate()
            .all(|(i, (b, o, _))| *b == i as u32 && *o == 0);
    if separate {
        return (
            v.iter().map(|(_, _, n)| n.clone()).collect(),
            glow::SEPARATE_ATTRIBS,
        );
    }
    if v.iter().any(|(b, _, _)| *b != 0) {
        warn!(shader = ?cso, "transform feedback: a layout over several buffers with more than one varying in one (gl_NextBuffer) is not expressible on GLES; only buffer 0 is captured");
    }
    (
        v.iter()
            .filter(|(b, _, _)| *b == 0)
            .map(|(_, _, n)| n.clone())
            .collect(),
        glow::INTERLEAVED_ATTRIBS,
    )
}

/// Translate, compile and link. On failure everything is logged (ESSL and
/// driver log, naming the shader handle) and None is returned.
/// The fragment shader added to programs that have none (see build_program).
const EMPTY_FRAGMENT_SHADER: &str = "#version 320 es\nprecision highp float;\nvoid main() {}\n";

pub fn build_program(
    gl: &glow::Context,
    cso: Handle,
    stages: &[Option<Vec<u32>>; 6],
) -> Option<glow::Program> {
    build_program_variant(gl, cso, stages, false)
}

/// [`build_program`], with `lod_bias`: the variant that reads the sampler
/// LOD bias from the hidden `mgl_LodBias` uniform (sampling.rs).
pub fn build_program_variant(
    gl: &glow::Context,
    cso: Handle,
    stages: &[Option<Vec<u32>>; 6],
    lod_bias: bool,
) -> Option<glow::Program> {
    let mut sources: Vec<(usize, String)> = Vec::new();
    let mut xfb = XfbCaptures::default();
    for (i, words) in stages.iter().enumerate() {
        let Some(words) = words else { continue };
        let (words, captures) = take_xfb(words);
        if !captures.outputs.is_empty() {
            xfb = captures;
        }
        // Emulation: doubles carried as uint bit patterns (fp64.rs); a
        // module without Float64 takes the old path untouched.
        let words = if crate::fp64::uses_float64(&words) {
            match crate::fp64::lower(&words, i) {
                Ok(w) => std::borrow::Cow::Owned(w),
                Err(e) => {
                    error!(shader = ?cso, stage = STAGE_NAME[i], "link: {e}");
                    return None;
                }
            }
        } else {
            words
        };
        // Emulation: 1D images as 2D ones, ESSL's missing 2D array shadow
        // overloads and the sampler LOD bias (sampling.rs).
        let words = match crate::sampling::lower_1d_images(&words) {
            Some(w) => std::borrow::Cow::Owned(w),
            None => words,
        };
        // Emulation: readonly / writeonly for ESSL's storage images (sampling.rs).
        let words = match crate::sampling::qualify_storage_images(&words) {
            Some(w) => std::borrow::Cow::Owned(w),
            None => words,
        };
        let words = match crate::sampling::mark_desktop_only_formats(&words) {
            Some(w) => std::borrow::Cow::Owned(w),
            None => words,
        };
        let fragment = i == mgpipe::consts::STAGE_FRAGMENT;
        let lod = (lod_bias || crate::sampling::may_need_lod_fix(&words))
            .then(|| crate::sampling::lower_lod(&words, fragment, lod_bias))
            .flatten();
        let words = match lod {
            Some(w) => std::borrow::Cow::Owned(w),
            None => words,
        };
        match spirv_to_essl(&words) {
            Ok(src) => {
                let src = strip_block_array_locations(&src, i);
                let src = widen_1d_texel_fetch_offsets(src);
                let src = index_image_arrays_constantly(src);
                let src = crate::images::enable_image_formats(src);
                trace!(shader = ?cso, stage = STAGE_NAME[i], "ESSL source:\n{src}");
                sources.push((i, enable_geometry_point_size(src, i)));
            }
            Err(e) => {
                error!(shader = ?cso, stage = STAGE_NAME[i], "SPIR-V -> ESSL translation failed: {e}");
                return None;
            }
        }
    }
    size_input_clip_distances(&mut sources);
    // Emulation: desktop GL links a program without a fragment shader (the
    // fragment outputs are undefined); GLES refuses it, so add one that
    // writes nothing.
    let has_fragment = stages[mgpipe::consts::STAGE_FRAGMENT].is_some();
    let has_compute = stages[mgpipe::consts::STAGE_COMPUTE].is_some();
    if !has_fragment && !has_compute && !sources.is_empty() {
        sources.push((
            mgpipe::consts::STAGE_FRAGMENT,
            EMPTY_FRAGMENT_SHADER.to_string(),
        ));
    }
    // SAFETY: plain object creation / compile / link on the current context;
    // every object made here is deleted on every path.
    unsafe {
        let program = match gl.create_program() {
            Ok(p) => p,
            Err(e) => {
                error!(shader = ?cso, "glCreateProgram failed: {e}");
                return None;
            }
        };
        let mut shaders = Vec::new();
        let mut ok = true;
        for (i, src) in &sources {
            let Ok(sh) = gl.create_shader(STAGE_GL[*i]) else {
                error!(shader = ?cso, stage = STAGE_NAME[*i], "glCreateShader failed");
                ok = false;
                break;
            };
            gl.shader_source(sh, src);
            gl.compile_shader(sh);
            if !gl.get_shader_compile_status(sh) {
                error!(
                    shader = ?cso,
                    stage = STAGE_NAME[*i],
                    "ESSL compile failed:\n{}\n--- ESSL source ---\n{}",
                    gl.get_shader_info_log(sh),
                    src
                );
                ok = false;
            }
            gl.attach_shader(program, sh);
            shaders.push(sh);
        }
        if ok && !xfb.outputs.is_empty() {
            let (names, mode) = xfb_varyings(cso, &xfb);
            let refs: Vec<&str> = names.iter().map(String::as_str).collect();
            gl.transform_feedback_varyings(program, &refs, mode);
        }
        if ok {
            gl.link_program(program);
            if !gl.get_program_link_status(program) {
                let all: String = sources
                    .iter()
                    .map(|(i, s)| format!("--- {} ---\n{s}\n", STAGE_NAME[*i]))
                    .collect();
                error!(shader = ?cso, "GLES program link failed:\n{}\n{all}", gl.get_program_info_log(program));
                ok = false;
            }
        }
        for sh in shaders {
            gl.detach_shader(program, sh);
            gl.delete_shader(sh);
        }
        if ok {
            Some(program)
        } else {
            gl.delete_program(program);
            None
        }
    }
}

/// A fragment shader compiled by glslang (Vulkan rules, as the tests
/// need nothing else), for the unit tests of this crate's SPIR-V passes.
#[cfg(test)]
pub(crate) fn test_fragment_spirv(src: &str) -> Vec<u32> {
    use glslang::{Compiler, CompilerOptions, ShaderInput, ShaderSource, ShaderStage};
    let compiler = Compiler::acquire().expect("glslang");
    let source = ShaderSource::from(src);
    let input = ShaderInput::new(
        &source,
        ShaderStage::Fragment,
        &CompilerOptions::default(),
        None::<&[(&str, Option<&str>)]>,
        None,
    )
    .expect("input");
    compiler
        .create_shader(input)
        .expect("parse")
        .compile()
        .expect("compile")
}

#[cfg(test)]
mod tests {
    use super::*;

    mod fixtures {
        include!("../tests/fixtures/spirv.rs");
    }

    use super::test_fragment_spirv as fragment_spirv;

    #[test]
    fn struct_varyings_holding_arrays_become_blocks() {
        let src = "#version 450\nstruct S { ivec4 a[2]; float b; };\n\
                   layout(location = 3) flat in S v;\n\
                   layout(location = 0) in vec4 plain;\n\
                   layout(location = 0) out vec4 c;\n\
                   void main() { c = vec4(v.a[1]) + vec4(v.b) + plain; }\n";
        let words = fragment_spirv(src);
        let blocks = struct_varyings_to_blocks(&words).expect("rewritten");
        let essl = spirv_to_essl(&words).expect("translates");
        assert!(essl.contains("mgl_IoBlock3"), "{essl}");
        assert!(!essl.contains("flat in S"), "{essl}");
        assert!(essl.contains("flat ivec4 a[2]"), "{essl}");
        // A plain struct (no array or struct member) is left alone.
        let plain = "#version 450\nstruct P { vec4 a; float b; };\n\
                     layout(location = 0) in P p;\n\
                     layout(location = 0) out vec4 c;\n\
                     void main() { c = p.a + vec4(p.b); }\n";
        assert!(struct_varyings_to_blocks(&fragment_spirv(plain)).is_none());
        assert!(well_formed(&blocks));
    }

    #[test]
    fn integer_pixel_centers_shift_frag_coord_reads() {
        let src = "#version 450\nlayout(pixel_center_integer) in vec4 gl_FragCoord;\n\
                   layout(location = 0) out vec4 c;\n\
                   void main() { c = vec4(gl_FragCoord.xy, 0.0, 1.0); }\n";
        let essl = spirv_to_essl(&fragment_spirv(src)).expect("translates");
        assert!(
            essl.contains("(gl_FragCoord - vec4(0.5, 0.5, 0.0, 0.0))"),
            "{essl}"
        );
        let plain = "#version 450\nlayout(location = 0) out vec4 c;\n\
                     void main() { c = vec4(gl_FragCoord.xy, 0.0, 1.0); }\n";
        let essl = spirv_to_essl(&fragment_spirv(plain)).expect("translates");
        assert!(!essl.contains("vec4(0.5, 0.5"), "{essl}");
        assert_eq!(
            shift_frag_coord_to_integer_centers("x = my_gl_FragCoord + gl_FragCoordX;"),
            "x = my_gl_FragCoord + gl_FragCoordX;"
        );
    }

    #[test]
    fn fine_and_coarse_derivatives_become_plain_ones() {
        let src = "#version 450\nlayout(location = 0) in vec2 v;\nlayout(location = 0) out vec4 c;\n\
                   void main() { c = vec4(dFdxFine(v.x), dFdyCoarse(v.y), fwidthFine(v.x), 1.0); }\n";
        let words = fragment_spirv(src);
        let lowered = lower_derivative_control(&words).expect("something lowered");
        assert_eq!(lowered.len(), words.len());
        assert!(lower_derivative_control(&lowered).is_none(), "nothing left");
        let fs = spirv_to_essl(&words).expect("translation");
        assert!(
            fs.contains("dFdx(") && fs.contains("dFdy(") && fs.contains("fwidth("),
            "{fs}"
        );
        assert!(!fs.contains("Fine") && !fs.contains("Coarse"), "{fs}");
        // Modules without them are left alone; cut words do not panic.
        assert!(lower_derivative_control(fixtures::COLOR_FRAG).is_none());
        assert!(lower_derivative_control(&words[..words.len() / 2]).is_some());
    }

    #[test]
    fn interpolants_of_one_component_interpolate_the_whole_vector() {
        let src = "#version 450\nlayout(location = 0) in vec3 a;\nlayout(location = 0) out vec4 c;\n\
                   layout(binding = 0) uniform U { int i; };\n\
                   void main() { c = vec4(interpolateAtCentroid(a.z), interpolateAtSample(a[i], 1),\n\
                   interpolateAtOffset(a, vec2(0.0)).x, 1.0); }\n";
        let words = fragment_spirv(src);
        let lowered = interpolate_whole_vectors(&words).expect("rewritten");
        assert!(
            interpolate_whole_vectors(&lowered).is_none(),
            "nothing left"
        );
        let fs = spirv_to_essl(&words).expect("translation");
        assert!(fs.contains("interpolateAtCentroid(a)"), "{fs}");
        assert!(fs.contains("interpolateAtSample(a, 1)"), "{fs}");
        assert!(!fs.contains("interpolateAtCentroid(a."), "{fs}");
        assert!(interpolate_whole_vectors(fixtures::COLOR_FRAG).is_none());
        assert!(interpolate_whole_vectors(&words[..words.len() / 2]).is_none());
    }

    #[test]
    fn precise_values_stored_to_locals_make_precise_variables() {
        let src = "#version 450\nlayout(binding = 0) uniform U { float a; float b; };\n\
            layout(location = 0) out vec4 c;\n\
            void main() { precise float x = (a / b) * 42.0; float y = a * 2.0;\n\
            c = vec4(x, y, 0.0, 1.0); }\n";
        let words = fragment_spirv(src);
        assert!(matches!(
            precise_store_targets(&words),
            std::borrow::Cow::Owned(_)
        ));
        let fs = spirv_to_essl(&words).expect("translation");
        assert!(fs.contains("precise float x"), "{fs}");
        assert!(!fs.contains("precise float y"), "{fs}");
        // Nothing precise: the words come back as they are.
        assert!(matches!(
            precise_store_targets(fixtures::COLOR_FRAG),
            std::borrow::Cow::Borrowed(_)
        ));
        for garbage in [
            &[0x0723_0203, 0xffff_ffff][..],
            &[0x0723_0203, 0, 0, 0, 0, 0x0003_0047, 1, 42, 0x0003_003e][..],
        ] {
            assert_eq!(&*precise_store_targets(garbage), garbage);
        }
    }

    #[test]
    fn translates_vertex_and_fragment_to_essl_320() {
        let vs = spirv_to_essl(fixtures::TRI_VERT).expect("vertex translation");
        assert!(vs.starts_with("#version 320 es"), "{vs}");
        assert!(vs.contains("layout(location = 0) in"), "{vs}");
        assert!(vs.contains("gl_Position"), "{vs}");
        let fs = spirv_to_essl(fixtures::COLOR_FRAG).expect("fragment translation");
        assert!(fs.contains("precision highp float"), "{fs}");
        assert!(fs.contains("binding = 0"), "{fs}");
        let ts = spirv_to_essl(fixtures::TEX_FRAG).expect("texture fragment translation");
        assert!(ts.contains("sampler2D"), "{ts}");
    }

    #[test]
    fn compute_storage_blocks_and_images_keep_their_bindings() {
        let cs = spirv_to_essl(fixtures::SSBO_COMP).expect("compute translation");
        assert!(cs.contains("local_size_x = 8"), "{cs}");
        assert!(
            cs.contains("layout(binding = 1, std430) buffer Out"),
            "{cs}"
        );
        assert!(
            cs.contains("layout(binding = 0, std140) uniform Params"),
            "{cs}"
        );
        let img = spirv_to_essl(fixtures::IMG_LOAD_COMP).expect("image translation");
        assert!(
            img.contains("layout(binding = 2, rgba8) uniform readonly highp image2D src"),
            "{img}"
        );
        assert!(
            img.contains("layout(binding = 0, std430) buffer Out"),
            "{img}"
        );
    }

    #[test]
    fn storage_images_without_a_format_get_one() {
        // The fixture's image type has the Unknown format (glslang, a
        // writeonly image2D without a format qualifier).
        assert!(matches!(
            fill_unknown_image_formats(fixtures::IMG_STORE_COMP),
            std::borrow::Cow::Borrowed(_)
        ));
        let patched = fill_unknown_image_formats(fixtures::IMG_NOFORMAT_COMP);
        assert!(matches!(patched, std::borrow::Cow::Owned(_)));
        assert_ne!(&*patched, fixtures::IMG_NOFORMAT_COMP);
        let cs = spirv_to_essl(fixtures::IMG_NOFORMAT_COMP).expect("translation");
        assert!(
            cs.contains("layout(binding = 1, rgba8) uniform writeonly highp image2D img"),
            "{cs}"
        );
        // Truncated or garbage words: no panic, the words come back.
        let cut = &fixtures::IMG_NOFORMAT_COMP[..40];
        assert_eq!(fill_unknown_image_formats(cut).len(), cut.len());
        for garbage in [
            &[0x0723_0203, 0xffff_ffff][..],
            &[0x0723_0203, 0, 0, 0, 0, 0, 0x0009_0019][..],
            &[0x0723_0203, 0, 0, 0, 0, 0xffff_0019, 1][..],
        ] {
            assert_eq!(&*fill_unknown_image_formats(garbage), garbage);
        }
    }

    #[test]
    fn rejects_garbage_without_panicking() {
        assert!(spirv_to_essl(&[]).is_err());
        assert!(spirv_to_essl(&[0x0723_0203, 1, 2]).is_err());
        assert!(split_stages(1, &[4, 0, 0, 0, 0, 0], &[0u8; 8]).is_err());
        assert!(split_stages(0, &[0; 6], &[]).is_err());
        let s = split_stages(
            0b10001,
            &[1, 0, 0, 0, 2, 0],
            &[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0],
        )
        .unwrap();
        assert_eq!(s[0].as_deref(), Some(&[1u32][..]));
        assert_eq!(s[4].as_deref(), Some(&[2u32, 3][..]));
    }
    #[test]
    fn one_d_texel_fetch_offsets_widened_only_where_needed() {
        let src = "color = texelFetchOffset(tex, ivec2(texcoord.x, 0), texcoord.w, 7);\n\
                   a = texelFetchOffset(t2, ivec2(p.xy), 0, ivec2(1, 2));\n\
                   b = texelFetchOffset(t1, ivec2(f(x, y), 0), lod(1), -(k + 1));\n";
        let out = widen_1d_texel_fetch_offsets(src.to_owned());
        assert!(
            out.contains("texelFetchOffset(tex, ivec2(texcoord.x, 0), texcoord.w, ivec2(7, 0));"),
            "{out}"
        );
        assert!(
            out.contains("texelFetchOffset(t2, ivec2(p.xy), 0, ivec2(1, 2));"),
            "a 2D call is left alone: {out}"
        );
        assert!(
            out.contains("texelFetchOffset(t1, ivec2(f(x, y), 0), lod(1), ivec2(-(k + 1), 0));"),
            "{out}"
        );
        // Unbalanced text is returned as it came.
        let broken = "x = texelFetchOffset(a, ivec2(b, 0), 0, 1".to_owned();
        assert_eq!(widen_1d_texel_fetch_offsets(broken.clone()), broken);
    }

    #[test]
    fn block_array_locations_stripped_for_vs_out_and_fs_in() {
        let src = "#version 320 es\nlayout(location = 0) out A\n{\n    float a;\n} a;\n\nlayout(location = 1) out B\n{\n    float b;\n} b[3];\n";
        let vs = strip_block_array_locations(src, mgpipe::consts::STAGE_VERTEX);
        assert!(vs.contains("layout(location = 0) out A"), "{vs}");
        assert!(
            vs.contains("\nout B\n") && !vs.contains("location = 1"),
            "{vs}"
        );
        let gs = strip_block_array_locations(src, mgpipe::consts::STAGE_GEOMETRY);
        assert!(gs.contains("layout(location = 1) out B"), "{gs}");
        let gsrc = "#version 320 es\nvoid main() { gl_PointSize = 1.0; }\n".to_owned();
        let g = enable_geometry_point_size(gsrc, mgpipe::consts::STAGE_GEOMETRY);
        assert!(
            g.starts_with("#version 320 es\n#extension GL_EXT_geometry_point_size : enable\n"),
            "{g}"
        );
    }

    #[test]
    fn geometry_input_clip_distances_get_a_matching_size() {
        use mgpipe::consts::{STAGE_FRAGMENT, STAGE_GEOMETRY, STAGE_VERTEX};
        let vs = "#version 320 es\n#extension GL_EXT_clip_cull_distance : require\nout float gl_ClipDistance[6];\nvoid main() { gl_Position = vec4(0.0); }\n";
        let gs = "#version 320 es\n#extension GL_EXT_clip_cull_distance : require\nlayout(triangles) in;\nvoid main() { float d = gl_in[0].gl_ClipDistance[k]; }\n";
        let fs = "#version 320 es\nvoid main() {}\n";
        let mut sources = vec![
            (STAGE_VERTEX, vs.to_owned()),
            (STAGE_GEOMETRY, gs.to_owned()),
            (STAGE_FRAGMENT, fs.to_owned()),
        ];
        size_input_clip_distances(&mut sources);
        let block = "{\n    highp vec4 gl_Position;\n    highp float gl_ClipDistance[6];\n}";
        assert!(
            sources[0]
                .1
                .contains(&format!("out gl_PerVertex\n{block};")),
            "{}",
            sources[0].1
        );
        assert!(!sources[0].1.contains("out float gl_ClipDistance"));
        assert!(
            sources[1].1.starts_with(&format!(
                "#version 320 es\n#extension GL_EXT_clip_cull_distance : require\nin gl_PerVertex\n{block} gl_in[];\nlayout(triangles) in;"
            )),
            "{}",
            sources[1].1
        );
        assert_eq!(sources[2].1, fs);
        // Applied once; a stage before that writes no clip distances
        // leaves both alone.
        let again = sources.clone();
        size_input_clip_distances(&mut sources);
        assert_eq!(sources, again);
        let mut plain = vec![
            (STAGE_VERTEX, "#version 320 es\nvoid main() {}\n".to_owned()),
            (STAGE_GEOMETRY, gs.to_owned()),
        ];
        size_input_clip_distances(&mut plain);
        assert_eq!(plain[1].1, gs);
    }

    #[test]
    fn image_arrays_indexed_dynamically_become_constant_choices() {
        let src = "#version 320 es\nlayout(binding = 0, r32ui) uniform highp uimage2D imgs[3];\nlayout(binding = 3, r32ui) uniform highp uimage2D one[1];\nvoid main()\n{\n    uint x = imageLoad(imgs[(i + u) % 3], ivec2(0)).x + imageLoad(imgs[2], p).x;\n    imageStore(imgs[u], ivec2(1), uvec4(x));\n    uint y = imageAtomicAdd(one[u], ivec2(0), 1u);\n}\n";
        let out = index_image_arrays_constantly(src.to_owned());
        assert!(
            out.contains("uint x = (int((i + u) % 3) == 0 ? imageLoad(imgs[0], ivec2(0)) : int((i + u) % 3) == 1 ? imageLoad(imgs[1], ivec2(0)) : imageLoad(imgs[2], ivec2(0))).x + imageLoad(imgs[2], p).x;"),
            "{out}"
        );
        assert!(
            out.contains("{ int mgl_image_index = int(u); if (mgl_image_index == 0) imageStore(imgs[0], ivec2(1), uvec4(x)); else if (mgl_image_index == 1) imageStore(imgs[1], ivec2(1), uvec4(x)); else imageStore(imgs[2], ivec2(1), uvec4(x)); };"),
            "{out}"
        );
        assert!(
            out.contains("uint y = imageAtomicAdd(one[0], ivec2(0), 1u);"),
            "{out}"
        );
        // Constant indices and sources without image arrays: unchanged.
        let plain = "layout(binding = 0, r32ui) uniform highp uimage2D imgs[3];\nvoid main() { imageStore(imgs[1], ivec2(0), uvec4(0)); }\n";
        assert_eq!(index_image_arrays_constantly(plain.to_owned()), plain);
    }
}
