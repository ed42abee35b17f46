//! Transform feedback at link time (GL 4.6 §11.1.2.1, EXT_transform_feedback).
//!
//! The varyings named by `glTransformFeedbackVaryings` are resolved against
//! the outputs of the program's last vertex-processing stage (geometry, else
//! tessellation evaluation, else vertex). Each captured varying gets an
//! output variable of its own, `mgl_xfb<i>`, decorated `XfbBuffer`,
//! `XfbStride` and `Offset` (plus `Capability TransformFeedback` and
//! `ExecutionMode Xfb`), which the stage fills from the application's
//! varying (a whole variable, an array element or a built-in such as
//! `gl_Position`) before each `OpReturn` of its entry point (vertex and
//! evaluation stages) or before each `OpEmitVertex` (geometry). That keeps
//! every capture one whole variable, which is what Vulkan's decorations and
//! GLES's `glTransformFeedbackVaryings` both can name.

use super::spirv::{dec, inst, instructions, op, storage, Module, Type};

/// GL_INTERLEAVED_ATTRIBS / GL_SEPARATE_ATTRIBS.
pub const INTERLEAVED_ATTRIBS: u32 = 0x8C8C;
pub const SEPARATE_ATTRIBS: u32 = 0x8C8D;
/// GL_MAX_TRANSFORM_FEEDBACK_* (what `glGet` reports).
pub const MAX_SEPARATE_ATTRIBS: usize = 4;
pub const MAX_SEPARATE_COMPONENTS: u32 = 4;
pub const MAX_INTERLEAVED_COMPONENTS: u32 = 64;
/// Transform feedback buffer bindings.
pub const MAX_BUFFERS: usize = 4;

/// One captured varying after linking (what glGetTransformFeedbackVarying
/// reports, and where it is written).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XfbVarying {
    /// As the application named it (`gl_SkipComponents*` and
    /// `gl_NextBuffer` included, with type GL_NONE).
    pub name: String,
    /// GL type of one element (GL_NONE for the markers).
    pub gl_type: u32,
    /// Elements captured (1 unless a whole array is named).
    pub size: u32,
    /// Buffer binding and byte offset in it.
    pub buffer: u32,
    pub offset: u32,
    /// 32-bit components written.
    pub components: u32,
}

/// The capture layout of a linked program.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct XfbLayout {
    pub mode: u32,
    pub varyings: Vec<XfbVarying>,
    /// Bytes per vertex in each buffer.
    pub strides: [u32; MAX_BUFFERS],
    /// Buffers written: 0..buffers.
    pub buffers: u32,
}

impl XfbLayout {
    /// Whether capturing this layout needs a backend that places each
    /// varying at any buffer and offset (`CAPS_FEATURE_XFB_LAYOUTS`):
    /// GLES's glTransformFeedbackVaryings takes one tightly packed buffer
    /// or one varying per buffer, so `gl_SkipComponents*` gaps and
    /// `gl_NextBuffer` with more than one varying in a buffer (or an empty
    /// buffer) cannot be expressed there.
    pub fn needs_free_layout(&self) -> bool {
        if !self.varyings.iter().any(|v| v.gl_type == 0) {
            return false;
        }
        let real: Vec<&XfbVarying> = self.varyings.iter().filter(|v| v.gl_type != 0).collect();
        let one_per_buffer = real.len() as u32 == self.buffers
            && real.iter().enumerate().all(|(i, v)| {
                v.buffer == i as u32
                    && v.offset == 0
                    && self.strides.get(i) == Some(&(v.components * 4))
            });
        !one_per_buffer
    }
}

/// An output the stage writes, by its GL name: the variable, the member
/// path (constant indices) and the value type.
struct Output {
    name: String,
    var: u32,
    path: Vec<u32>,
    ty: u32,
}

fn outputs(m: &Module, renames: &[(String, String)]) -> Vec<Output> {
    let mut out = Vec::new();
    for v in &m.variables {
        if v.storage != storage::OUTPUT {
            continue;
        }
        let Some(pointee) = m.pointee(v) else {
            continue;
        };
        match m.types.get(&pointee) {
            Some(Type::Struct { members }) if m.has_decoration(pointee, dec::BLOCK) => {
                let builtin = m.has_member_decoration(pointee, 0, dec::BUILTIN);
                for (i, t) in members.iter().enumerate() {
                    let member = m.member_name(pointee, i as u32).to_owned();
                    let name = if builtin || member.starts_with("gl_") {
                        member
                    } else {
                        format!("{}.{member}", m.name(pointee))
                    };
                    out.push(Output {
                        name,
                        var: v.id,
                        path: vec![i as u32],
                        ty: *t,
                    });
                }
            }
            _ => {
                let spv = m.name(v.id);
                // Compatibility varyings are emulated by `mgl_*` outputs
                // (`prepass::compat_emulation`).
                let compat = spv.strip_prefix('m').filter(|n| {
                    matches!(
                        *n,
                        "gl_FrontColor"
                            | "gl_BackColor"
                            | "gl_FrontSecondaryColor"
                            | "gl_BackSecondaryColor"
                            | "gl_TexCoord"
                            | "gl_FogFragCoord"
                    )
                });
                let name = if let Some(n) = compat {
                    n.to_owned()
                } else {
                    renames
                        .iter()
                        .find(|(new, _)| new == spv)
                        .map_or_else(|| spv.to_owned(), |(_, orig)| orig.clone())
                };
                out.push(Output {
                    name,
                    var: v.id,
                    path: Vec::new(),
                    ty: pointee,
                });
            }
        }
    }
    out
}

/// 32-bit components of a type (None: not capturable).
fn components(m: &Module, ty: u32, depth: u32) -> Option<u32> {
    if depth > 16 {
        return None;
    }
    Some(match m.types.get(&ty)? {
        Type::Bool => 1,
        Type::Int { width, .. } | Type::Float { width } => (*width / 32).max(1),
        Type::Vector { component, count } => {
            count.checked_mul(components(m, *component, depth + 1)?)?
        }
        Type::Matrix { column, columns } => {
            columns.checked_mul(components(m, *column, depth + 1)?)?
        }
        Type::Array { element, len } => (*len)?.checked_mul(components(m, *element, depth + 1)?)?,
        _ => return None,
    })
}

fn is_integer(m: &Module, ty: u32) -> bool {
    match m.types.get(&ty) {
        Some(Type::Int { .. }) => true,
        Some(Type::Vector { component, .. }) => is_integer(m, *component),
        Some(Type::Array { element, .. }) => is_integer(m, *element),
        _ => false,
    }
}

/// A capture to add: source output and path, value type, where it goes.
struct Capture {
    var: u32,
    path: Vec<u32>,
    ty: u32,
    buffer: u32,
    offset: u32,
}

/// One step of a captured varying's name after the output it starts at.
#[derive(Debug, PartialEq, Eq)]
enum Selector<'a> {
    Index(u32),
    Member(&'a str),
    Bad,
}

/// The output a varying name starts at (the longest output name that is
/// the whole name or followed by `[` or `.`) and the selectors after it:
/// `v[1].a` is output `v`, then `[1]`, then `.a`; a block member
/// `Blk.v[0].c` starts at output `Blk.v`.
fn find_output<'o, 'n>(
    outs: &'o [Output],
    name: &'n str,
) -> Option<(&'o Output, Vec<Selector<'n>>)> {
    let o = outs
        .iter()
        .filter(|o| {
            name.strip_prefix(o.name.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(['[', '.']))
        })
        .max_by_key(|o| o.name.len())?;
    Some((o, selectors(&name[o.name.len()..])))
}

fn selectors(mut rest: &str) -> Vec<Selector<'_>> {
    let mut out = Vec::new();
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('[') {
            let Some((digits, after)) = r.split_once(']') else {
                out.push(Selector::Bad);
                break;
            };
            match digits.parse::<u32>() {
                Ok(i) if digits.bytes().all(|b| b.is_ascii_digit()) => out.push(Selector::Index(i)),
                _ => {
                    out.push(Selector::Bad);
                    break;
                }
            }
            rest = after;
        } else if let Some(r) = rest.strip_prefix('.') {
            let end = r.find(['[', '.']).unwrap_or(r.len());
            if end == 0 {
                out.push(Selector::Bad);
                break;
            }
            out.push(Selector::Member(&r[..end]));
            rest = &r[end..];
        } else {
            out.push(Selector::Bad);
            break;
        }
    }
    out
}

fn link_error(msg: String) -> String {
    format!("ERROR: Linking: transform feedback: {msg}\n")
}

/// Resolve `names` against the outputs of `m` (the last vertex-processing
/// stage), lay them out per `mode` and add the captures to the module.
pub(crate) fn apply(
    m: Module,
    geometry: bool,
    names: &[String],
    mode: u32,
    renames: &[(String, String)],
    streams: &[(u32, u32)],
) -> Result<(Module, XfbLayout), String> {
    let outs = outputs(&m, renames);
    let separate = mode == SEPARATE_ATTRIBS;
    let mut layout = XfbLayout {
        mode,
        ..Default::default()
    };
    let mut captures = Vec::new();
    let (mut buffer, mut offset) = (0u32, 0u32);
    // The vertex stream feeding each buffer (ARB_transform_feedback3: one
    // buffer may not capture varyings of two streams).
    let mut buffer_streams: [Option<u32>; MAX_BUFFERS] = [None; MAX_BUFFERS];
    for (i, name) in names.iter().enumerate() {
        let is_marker = name.starts_with("gl_SkipComponents") || name == "gl_NextBuffer";
        if names[..i].contains(name) && !is_marker {
            return Err(link_error(format!("`{name}` is named twice")));
        }
        if separate {
            if i >= MAX_SEPARATE_ATTRIBS {
                return Err(link_error(format!(
                    "more than GL_MAX_TRANSFORM_FEEDBACK_SEPARATE_ATTRIBS ({MAX_SEPARATE_ATTRIBS}) varyings"
                )));
            }
            buffer = i as u32;
            offset = 0;
        }
        // ARB_transform_feedback3 markers (interleaved mode only).
        let marker = |n: &str| -> Option<Option<u32>> {
            if n == "gl_NextBuffer" {
                return Some(None);
            }
            let k: u32 = n.strip_prefix("gl_SkipComponents")?.parse().ok()?;
            (1..=4).contains(&k).then_some(Some(k))
        };
        if let Some(skip) = marker(name) {
            if separate {
                return Err(link_error(format!(
                    "`{name}` is allowed in GL_INTERLEAVED_ATTRIBS mode only"
                )));
            }
            match skip {
                Some(k) => offset = offset.saturating_add(4 * k),
                None => {
                    buffer += 1;
                    offset = 0;
                    if buffer as usize >= MAX_BUFFERS {
                        return Err(link_error("too many gl_NextBuffer".into()));
                    }
                }
            }
            layout.varyings.push(XfbVarying {
                name: name.clone(),
                gl_type: 0,
                size: skip.unwrap_or(0),
                buffer,
                offset,
                components: skip.unwrap_or(0),
            });
            let b = buffer as usize;
            layout.strides[b] = layout.strides[b].max(offset);
            layout.buffers = layout.buffers.max(buffer + 1);
            continue;
        }
        let Some((o, selectors)) = find_output(&outs, name) else {
            return Err(link_error(format!(
                "`{name}` is not an output of the last vertex-processing stage"
            )));
        };
        let stream = streams
            .iter()
            .find(|(v, _)| *v == o.var)
            .map_or(0, |(_, s)| *s);
        if let Some(slot) = buffer_streams.get_mut(buffer as usize) {
            match *slot {
                Some(s) if s != stream => {
                    return Err(link_error(format!(
                        "`{name}` (vertex stream {stream}) is captured to buffer {buffer} with varyings of stream {s}"
                    )));
                }
                _ => *slot = Some(stream),
            }
        }
        let mut path = o.path.clone();
        let mut ty = o.ty;
        for sel in selectors {
            match (sel, m.types.get(&ty)) {
                (Selector::Index(i), Some(Type::Array { element, len })) => {
                    if i >= len.unwrap_or(0) {
                        return Err(link_error(format!("`{name}` is out of range")));
                    }
                    path.push(i);
                    ty = *element;
                }
                (Selector::Member(s), Some(Type::Struct { members })) => {
                    let Some(k) = (0..members.len() as u32).find(|&k| m.member_name(ty, k) == s)
                    else {
                        return Err(link_error(format!("`{name}`: no member `{s}`")));
                    };
                    path.push(k);
                    ty = members[k as usize];
                }
                (Selector::Index(_), _) => {
                    return Err(link_error(format!("`{name}` is out of range")));
                }
                (Selector::Bad, _) | (Selector::Member(_), _) => {
                    return Err(link_error(format!("`{name}` is not a varying name")));
                }
            }
        }
        // A whole array is captured element after element.
        let (elem, size) = match m.types.get(&ty) {
            Some(Type::Array { element, len }) => (*element, len.unwrap_or(1)),
            _ => (ty, 1),
        };
        let Some(comps) = components(&m, ty, 0) else {
            return Err(link_error(format!("`{name}` cannot be captured (type)")));
        };
        if separate && comps > MAX_SEPARATE_COMPONENTS {
            return Err(link_error(format!(
                "`{name}` has {comps} components, more than GL_MAX_TRANSFORM_FEEDBACK_SEPARATE_COMPONENTS ({MAX_SEPARATE_COMPONENTS})"
            )));
        }
        let gl_type = super::gltypes::gl_type(&m, elem).unwrap_or(0);
        layout.varyings.push(XfbVarying {
            name: name.clone(),
            gl_type,
            size,
            buffer,
            offset,
            components: comps,
        });
        captures.push(Capture {
            var: o.var,
            path,
            ty,
            buffer,
            offset,
        });
        offset = offset.saturating_add(comps.saturating_mul(4));
        let b = buffer as usize;
        layout.strides[b] = layout.strides[b].max(offset);
        layout.buffers = layout.buffers.max(buffer + 1);
    }
    if !separate {
        let total = layout
            .varyings
            .iter()
            .fold(0u32, |a, v| a.saturating_add(v.components));
        if total > MAX_INTERLEAVED_COMPONENTS {
            return Err(link_error(format!(
                "{total} components, more than GL_MAX_TRANSFORM_FEEDBACK_INTERLEAVED_COMPONENTS ({MAX_INTERLEAVED_COMPONENTS})"
            )));
        }
    }
    if captures.is_empty() {
        return Ok((m, layout));
    }
    let m = add_captures(m, geometry, &captures, &layout.strides)?;
    Ok((m, layout))
}

const OP_CAPABILITY: u16 = 17;
const OP_ENTRY_POINT: u16 = 15;
const OP_EXECUTION_MODE: u16 = 16;
const OP_ACCESS_CHAIN: u32 = 65;
const OP_LOAD: u32 = 61;
const OP_STORE: u32 = 62;
const OP_RETURN: u16 = 253;
const OP_EMIT_VERTEX: u16 = 218;
const OP_FUNCTION_END: u16 = 56;
const CAP_TRANSFORM_FEEDBACK: u32 = 53;
const MODE_XFB: u32 = 11;
const DEC_FLAT: u32 = 14;
const DEC_XFB_BUFFER: u32 = 36;
const DEC_XFB_STRIDE: u32 = 37;

fn name_inst(id: u32, name: &str) -> Vec<u32> {
    let mut bytes = name.as_bytes().to_vec();
    bytes.push(0);
    while !bytes.len().is_multiple_of(4) {
        bytes.push(0);
    }
    let mut ops = vec![id];
    ops.extend(
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])),
    );
    inst(u32::from(op::NAME), &ops)
}

/// First location after every located output of `m`.
fn free_location(m: &Module) -> u32 {
    let mut next = 0u32;
    for v in &m.variables {
        if v.storage != storage::OUTPUT {
            continue;
        }
        if let (Some(loc), Some(p)) = (m.decoration(v.id, dec::LOCATION), m.pointee(v)) {
            next = next.max(loc + super::reflect::location_count(m, p));
        }
    }
    next
}

fn add_captures(
    m: Module,
    geometry: bool,
    captures: &[Capture],
    strides: &[u32; MAX_BUFFERS],
) -> Result<Module, String> {
    let mut bound = m.words.get(3).copied().unwrap_or(0);
    let mut fresh = || {
        bound += 1;
        bound - 1
    };
    let find = |want: &Type| {
        m.types
            .iter()
            .filter(|(_, t)| *t == want)
            .map(|(id, _)| *id)
            .min()
    };
    let mut decls: Vec<u32> = Vec::new();
    let mut names: Vec<u32> = Vec::new();
    let mut decos: Vec<u32> = Vec::new();
    let need_index = captures.iter().any(|c| !c.path.is_empty());
    let int = match (
        need_index,
        find(&Type::Int {
            width: 32,
            signed: true,
        }),
    ) {
        (false, _) => 0,
        (true, Some(id)) => id,
        (true, None) => {
            let id = fresh();
            decls.extend(inst(u32::from(op::TYPE_INT), &[id, 32, 1]));
            id
        }
    };
    let mut ptr_types: Vec<(u32, u32)> = Vec::new();
    let mut ptr_to = |ty: u32, decls: &mut Vec<u32>, fresh: &mut dyn FnMut() -> u32| {
        if let Some((_, p)) = ptr_types.iter().find(|(t, _)| *t == ty) {
            return *p;
        }
        let p = find(&Type::Pointer {
            storage: storage::OUTPUT,
            pointee: ty,
        })
        .unwrap_or_else(|| {
            let p = fresh();
            decls.extend(inst(u32::from(op::TYPE_POINTER), &[p, storage::OUTPUT, ty]));
            p
        });
        ptr_types.push((ty, p));
        p
    };
    struct Plan {
        dst: u32,
        ptr: u32,
        ty: u32,
        src: u32,
        indices: Vec<u32>,
    }
    let mut plans = Vec::new();
    let mut location = free_location(&m);
    for (i, c) in captures.iter().enumerate() {
        let ptr = ptr_to(c.ty, &mut decls, &mut fresh);
        let dst = fresh();
        decls.extend(inst(u32::from(op::VARIABLE), &[ptr, dst, storage::OUTPUT]));
        names.extend(name_inst(dst, &format!("mgl_xfb{i}")));
        decos.extend(inst(
            u32::from(op::DECORATE),
            &[dst, dec::LOCATION, location],
        ));
        location += super::reflect::location_count(&m, c.ty);
        decos.extend(inst(
            u32::from(op::DECORATE),
            &[dst, DEC_XFB_BUFFER, c.buffer],
        ));
        decos.extend(inst(
            u32::from(op::DECORATE),
            &[
                dst,
                DEC_XFB_STRIDE,
                strides.get(c.buffer as usize).copied().unwrap_or(0),
            ],
        ));
        decos.extend(inst(u32::from(op::DECORATE), &[dst, dec::OFFSET, c.offset]));
        if is_integer(&m, c.ty) {
            decos.extend(inst(u32::from(op::DECORATE), &[dst, DEC_FLAT]));
        }
        let mut indices = Vec::new();
        for &k in &c.path {
            let id = fresh();
            decls.extend(inst(u32::from(op::CONSTANT), &[int, id, k]));
            indices.push(id);
        }
        plans.push(Plan {
            dst,
            ptr,
            ty: c.ty,
            src: c.var,
            indices,
        });
    }
    let entry_id = instructions(&m.words)
        .find(|(o, _)| *o == OP_ENTRY_POINT)
        .and_then(|(_, i)| i.get(2).copied())
        .ok_or_else(|| "internal error: no entry point".to_owned())?;

    let mut out = Vec::with_capacity(m.words.len() + 256);
    out.extend_from_slice(m.words.get(..5).unwrap_or(&[]));
    let (mut caps_done, mut names_done, mut decos_done, mut decls_done) =
        (false, false, false, false);
    let mut has_cap = false;
    let mut in_entry = false;
    for (opcode, w) in instructions(&m.words) {
        if opcode == OP_CAPABILITY {
            has_cap |= w.get(1) == Some(&CAP_TRANSFORM_FEEDBACK);
            out.extend_from_slice(w);
            continue;
        }
        if !caps_done {
            caps_done = true;
            if !has_cap {
                out.extend(inst(u32::from(OP_CAPABILITY), &[CAP_TRANSFORM_FEEDBACK]));
            }
        }
        let annotation = matches!(opcode, 71..=75 | 332 | 5632 | 5633);
        let decl = (19..=52).contains(&opcode) || opcode == op::VARIABLE || opcode == 1;
        if (annotation || (decl && !decls_done)) && !names_done {
            names_done = true;
            out.extend_from_slice(&names);
        }
        if decl && !decos_done {
            decos_done = true;
            out.extend_from_slice(&decos);
        }
        if opcode == op::FUNCTION && !decls_done {
            if !names_done {
                names_done = true;
                out.extend_from_slice(&names);
            }
            if !decos_done {
                decos_done = true;
                out.extend_from_slice(&decos);
            }
            decls_done = true;
            out.extend_from_slice(&decls);
        }
        match opcode {
            OP_ENTRY_POINT => {
                let mut e = w.to_vec();
                e.extend(plans.iter().map(|p| p.dst));
                e[0] = ((e.len() as u32) << 16) | u32::from(OP_ENTRY_POINT);
                out.extend_from_slice(&e);
                out.extend(inst(u32::from(OP_EXECUTION_MODE), &[entry_id, MODE_XFB]));
                continue;
            }
            OP_EXECUTION_MODE if w.get(2) == Some(&MODE_XFB) => continue,
            op::FUNCTION => in_entry = w.get(2) == Some(&entry_id),
            OP_FUNCTION_END => in_entry = false,
            _ => {}
        }
        let copy_here = if geometry {
            opcode == OP_EMIT_VERTEX
        } else {
            in_entry && opcode == OP_RETURN
        };
        if copy_here {
            for p in &plans {
                let src = if p.indices.is_empty() {
                    p.src
                } else {
                    let id = fresh();
                    let mut ops = vec![p.ptr, id, p.src];
                    ops.extend_from_slice(&p.indices);
                    out.extend(inst(OP_ACCESS_CHAIN, &ops));
                    id
                };
                let v = fresh();
                out.extend(inst(OP_LOAD, &[p.ty, v, src]));
                out.extend(inst(OP_STORE, &[p.dst, v]));
            }
        }
        out.extend_from_slice(w);
    }
    if let Some(b) = out.get_mut(3) {
        *b = bound;
    }
    Module::parse(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(name: &str) -> Output {
        Output {
            name: name.into(),
            var: 1,
            path: Vec::new(),
            ty: 2,
        }
    }

    #[test]
    fn varying_names_split_into_output_and_selectors() {
        let outs = [out("v"), out("Blk.v"), out("vv")];
        let (o, sel) = find_output(&outs, "v[1].a").unwrap();
        assert_eq!(o.name, "v");
        assert_eq!(sel, vec![Selector::Index(1), Selector::Member("a")]);
        let (o, sel) = find_output(&outs, "Blk.v[0].c[2]").unwrap();
        assert_eq!(o.name, "Blk.v");
        assert_eq!(
            sel,
            vec![
                Selector::Index(0),
                Selector::Member("c"),
                Selector::Index(2)
            ]
        );
        let (o, sel) = find_output(&outs, "vv").unwrap();
        assert_eq!(o.name, "vv");
        assert!(sel.is_empty());
        assert!(find_output(&outs, "vw").is_none());
        assert_eq!(find_output(&outs, "v[x]").unwrap().1, vec![Selector::Bad]);
        assert_eq!(find_output(&outs, "v[+1]").unwrap().1, vec![Selector::Bad]);
        assert_eq!(find_output(&outs, "v.").unwrap().1, vec![Selector::Bad]);
    }
}
