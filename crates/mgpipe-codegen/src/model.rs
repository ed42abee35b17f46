//! Stage 2: the validated model. Every name is checked, every type resolved,
//! and every payload laid out with explicit padding (no implicit padding
//! anywhere, size a multiple of 8).

use std::collections::BTreeSet;

use crate::parse::{RawCall, RawCatalogue, RawCoverage, RawField};
use crate::CodegenError;

/// Payload sizes are rounded up to this (the wire record alignment).
pub const PAYLOAD_ALIGN: usize = 8;

/// The classes a call may have (DESIGN §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    Screen,
    CtxCso,
    CtxState,
    CtxObject,
    CtxVerb,
    CtxQuery,
}

impl Class {
    pub const ALL: [Class; 6] = [
        Class::Screen,
        Class::CtxCso,
        Class::CtxState,
        Class::CtxObject,
        Class::CtxVerb,
        Class::CtxQuery,
    ];

    pub fn catalogue_name(self) -> &'static str {
        match self {
            Class::Screen => "screen",
            Class::CtxCso => "ctx_cso",
            Class::CtxState => "ctx_state",
            Class::CtxObject => "ctx_object",
            Class::CtxVerb => "ctx_verb",
            Class::CtxQuery => "ctx_query",
        }
    }

    pub fn rust_name(self) -> &'static str {
        match self {
            Class::Screen => "Screen",
            Class::CtxCso => "CtxCso",
            Class::CtxState => "CtxState",
            Class::CtxObject => "CtxObject",
            Class::CtxVerb => "CtxVerb",
            Class::CtxQuery => "CtxQuery",
        }
    }

    fn parse(s: &str) -> Option<Class> {
        Class::ALL.into_iter().find(|c| c.catalogue_name() == s)
    }
}

/// The call flags (DESIGN §3), in canonical (bit) order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Flag {
    NeedsAck,
    HasBlob,
    VarTail,
    HostSpan,
    ReplySlot,
    Optional,
}

impl Flag {
    pub const ALL: [Flag; 6] = [
        Flag::NeedsAck,
        Flag::HasBlob,
        Flag::VarTail,
        Flag::HostSpan,
        Flag::ReplySlot,
        Flag::Optional,
    ];

    pub fn catalogue_name(self) -> &'static str {
        match self {
            Flag::NeedsAck => "needs_ack",
            Flag::HasBlob => "has_blob",
            Flag::VarTail => "var_tail",
            Flag::HostSpan => "host_span",
            Flag::ReplySlot => "reply_slot",
            Flag::Optional => "optional",
        }
    }

    /// Name of the `CallFlags` constant.
    pub fn const_name(self) -> &'static str {
        match self {
            Flag::NeedsAck => "NEEDS_ACK",
            Flag::HasBlob => "HAS_BLOB",
            Flag::VarTail => "VAR_TAIL",
            Flag::HostSpan => "HOST_SPAN",
            Flag::ReplySlot => "REPLY_SLOT",
            Flag::Optional => "OPTIONAL",
        }
    }

    pub fn bit(self) -> u32 {
        1 << (self as u32)
    }

    fn parse(s: &str) -> Option<Flag> {
        Flag::ALL.into_iter().find(|f| f.catalogue_name() == s)
    }
}

/// Array lengths above 32 for which bytemuck implements `Pod` (without its
/// `min_const_generics` feature); every length up to 32 works.
pub const POD_ARRAY_LENGTHS_ABOVE_32: [usize; 9] = [48, 64, 96, 128, 256, 512, 1024, 2048, 4096];

/// Handle kinds (mirrors `mgpipe::HandleKind`).
pub const HANDLE_KINDS: [&str; 11] = [
    "context",
    "surface",
    "resource",
    "framebuffer",
    "render_state",
    "vertex_elements",
    "sampler",
    "sampler_view",
    "shader",
    "fence",
    "query",
];

/// A scalar field type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scalar {
    U8,
    U16,
    U32,
    U64,
    I32,
    I64,
    F32,
    F64,
}

impl Scalar {
    const ALL: [Scalar; 8] = [
        Scalar::U8,
        Scalar::U16,
        Scalar::U32,
        Scalar::U64,
        Scalar::I32,
        Scalar::I64,
        Scalar::F32,
        Scalar::F64,
    ];

    pub fn rust_name(self) -> &'static str {
        match self {
            Scalar::U8 => "u8",
            Scalar::U16 => "u16",
            Scalar::U32 => "u32",
            Scalar::U64 => "u64",
            Scalar::I32 => "i32",
            Scalar::I64 => "i64",
            Scalar::F32 => "f32",
            Scalar::F64 => "f64",
        }
    }

    pub fn size(self) -> usize {
        match self {
            Scalar::U8 => 1,
            Scalar::U16 => 2,
            Scalar::U32 | Scalar::I32 | Scalar::F32 => 4,
            Scalar::U64 | Scalar::I64 | Scalar::F64 => 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Scalar::F32 | Scalar::F64)
    }

    fn parse(s: &str) -> Option<Scalar> {
        Scalar::ALL.into_iter().find(|t| t.rust_name() == s)
    }
}

/// The element of a field: a scalar or a handle of some kind.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Elem {
    Scalar(Scalar),
    Handle(&'static str),
}

impl Elem {
    pub fn size(&self) -> usize {
        match self {
            Elem::Scalar(s) => s.size(),
            Elem::Handle(_) => 8,
        }
    }
    pub fn align(&self) -> usize {
        match self {
            Elem::Scalar(s) => s.size(),
            Elem::Handle(_) => 4,
        }
    }
    pub fn rust_type(&self) -> &'static str {
        match self {
            Elem::Scalar(s) => s.rust_name(),
            Elem::Handle(_) => "Handle",
        }
    }
    /// Canonical catalogue spelling.
    pub fn canonical(&self) -> String {
        match self {
            Elem::Scalar(s) => s.rust_name().to_string(),
            Elem::Handle(k) => format!("handle:{k}"),
        }
    }
}

/// A field's type: one element or a fixed array of them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FieldType {
    pub elem: Elem,
    /// `Some(n)`: `[elem; n]`.
    pub array: Option<usize>,
}

impl FieldType {
    pub fn size(&self) -> usize {
        self.elem.size() * self.array.unwrap_or(1)
    }
    pub fn align(&self) -> usize {
        self.elem.align()
    }
    pub fn rust_type(&self) -> String {
        match self.array {
            None => self.elem.rust_type().to_string(),
            Some(n) => format!("[{}; {}]", self.elem.rust_type(), n),
        }
    }
    pub fn canonical(&self) -> String {
        match self.array {
            None => self.elem.canonical(),
            Some(n) => format!("[{}; {}]", self.elem.canonical(), n),
        }
    }
}

/// What a laid-out slot of a payload is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldKind {
    /// A catalogue field.
    Data(FieldType),
    /// Explicit zeroed padding of `n` bytes.
    Pad(usize),
}

/// One laid-out field (catalogue field or padding).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// Catalogue name (`type`), or `_padN`.
    pub name: String,
    pub kind: FieldKind,
    pub offset: usize,
    pub size: usize,
    pub doc: Option<String>,
}

impl Field {
    pub fn is_pad(&self) -> bool {
        matches!(self.kind, FieldKind::Pad(_))
    }

    /// The Rust identifier (raw identifier for keywords).
    pub fn ident(&self) -> String {
        rust_ident(&self.name)
    }

    /// The Rust type of this slot.
    pub fn rust_type(&self) -> String {
        match &self.kind {
            FieldKind::Data(t) => t.rust_type(),
            FieldKind::Pad(n) => pad_type(*n, self.offset),
        }
    }
}

/// Padding of `n` bytes at `offset`: a plain integer where it fits its own
/// alignment, a byte array otherwise.
pub fn pad_type(n: usize, offset: usize) -> String {
    match n {
        1 => "u8".to_string(),
        2 if offset.is_multiple_of(2) => "u16".to_string(),
        4 if offset.is_multiple_of(4) => "u32".to_string(),
        _ => format!("[u8; {n}]"),
    }
}

/// One call of the catalogue, validated and laid out.
#[derive(Clone, Debug)]
pub struct Call {
    /// Catalogue name (`draw_vbo`).
    pub name: String,
    /// CamelCase name (`DrawVbo`).
    pub camel: String,
    pub opcode: u16,
    pub class: Class,
    /// Sorted, deduplicated.
    pub flags: Vec<Flag>,
    pub doc: Option<String>,
    pub retired: bool,
    /// Laid-out fields including padding, in offset order.
    pub fields: Vec<Field>,
    /// Payload size (multiple of 8).
    pub size: usize,
}

impl Call {
    pub fn has(&self, f: Flag) -> bool {
        self.flags.contains(&f)
    }
    pub fn has_blob(&self) -> bool {
        self.has(Flag::HasBlob)
    }
    pub fn reply_slot(&self) -> bool {
        self.has(Flag::ReplySlot)
    }
    pub fn flag_bits(&self) -> u32 {
        self.flags.iter().map(|f| f.bit()).fold(0, |a, b| a | b)
    }
    pub fn data_fields(&self) -> impl Iterator<Item = &Field> {
        self.fields.iter().filter(|f| !f.is_pad())
    }
    /// The Rust method name.
    pub fn method(&self) -> String {
        rust_ident(&self.name)
    }
    /// Whether this payload can `#[derive(Default)]` (std implements
    /// `Default` for arrays of at most 32 elements).
    pub fn derives_default(&self) -> bool {
        self.fields.iter().all(|f| match &f.kind {
            FieldKind::Data(t) => t.array.is_none_or(|n| n <= 32),
            FieldKind::Pad(n) => *n <= 32,
        })
    }
}

/// One coverage entry: a GL entry point and the calls it may emit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoverageEntry {
    pub entry_point: String,
    /// Indices into `Model::calls`.
    pub calls: Vec<usize>,
}

/// The whole validated catalogue.
#[derive(Clone, Debug)]
pub struct Model {
    /// Every call in opcode order (retired ones included).
    pub calls: Vec<Call>,
    /// Sorted by entry point name.
    pub coverage: Vec<CoverageEntry>,
    /// xxh3_64 of [`Model::canonical`].
    pub hash: u64,
}

impl Model {
    /// Validate a parsed catalogue (and optional coverage map).
    pub fn build(
        raw: &RawCatalogue,
        coverage: Option<&RawCoverage>,
    ) -> Result<Model, CodegenError> {
        if raw.call.len() > usize::from(u16::MAX) {
            return Err(CodegenError::TooManyCalls {
                count: raw.call.len(),
            });
        }
        let mut names = BTreeSet::new();
        let mut calls = Vec::with_capacity(raw.call.len());
        for (i, rc) in raw.call.iter().enumerate() {
            if !names.insert(rc.name.as_str()) {
                return Err(CodegenError::DuplicateCall {
                    name: rc.name.clone(),
                });
            }
            let opcode = u16::try_from(i).map_err(|_| CodegenError::TooManyCalls {
                count: raw.call.len(),
            })?;
            let call = build_call(rc, opcode)?;
            if let Some(other) = calls.iter().find(|c: &&Call| c.camel == call.camel) {
                return Err(CodegenError::CamelCollision {
                    a: other.name.clone(),
                    b: call.name.clone(),
                });
            }
            calls.push(call);
        }
        let coverage = match coverage {
            Some(c) => build_coverage(c, &calls)?,
            None => Vec::new(),
        };
        let mut model = Model {
            calls,
            coverage,
            hash: 0,
        };
        model.hash = xxhash_rust::xxh3::xxh3_64(model.canonical().as_bytes());
        Ok(model)
    }

    /// Calls that are not retired.
    pub fn live(&self) -> impl Iterator<Item = &Call> {
        self.calls.iter().filter(|c| !c.retired)
    }

    /// The canonical serialisation hashed into `CATALOGUE_HASH`: names,
    /// classes, flags and field names/types in order; no docs, no layout
    /// (layout follows from the types), no comments.
    pub fn canonical(&self) -> String {
        let mut s = String::from("mgpipe-catalogue-v1\n");
        for c in &self.calls {
            s.push_str(&format!(
                "call {} {} {}",
                c.opcode,
                c.name,
                c.class.catalogue_name()
            ));
            if c.retired {
                s.push_str(" retired");
            }
            s.push_str(" flags=");
            let flags: Vec<&str> = c.flags.iter().map(|f| f.catalogue_name()).collect();
            s.push_str(&flags.join(","));
            s.push('\n');
            for f in c.data_fields() {
                if let FieldKind::Data(t) = &f.kind {
                    s.push_str(&format!("  field {}: {}\n", f.name, t.canonical()));
                }
            }
        }
        s
    }
}

fn build_call(rc: &RawCall, opcode: u16) -> Result<Call, CodegenError> {
    check_ident(&rc.name, "call", &rc.name)?;
    let class = Class::parse(&rc.class).ok_or_else(|| CodegenError::UnknownClass {
        call: rc.name.clone(),
        class: rc.class.clone(),
    })?;
    let mut flags = Vec::new();
    for f in &rc.flags {
        let flag = Flag::parse(f).ok_or_else(|| CodegenError::UnknownFlag {
            call: rc.name.clone(),
            flag: f.clone(),
        })?;
        if flags.contains(&flag) {
            return Err(CodegenError::DuplicateFlag {
                call: rc.name.clone(),
                flag: f.clone(),
            });
        }
        flags.push(flag);
    }
    flags.sort();
    if flags.contains(&Flag::HostSpan) && !flags.contains(&Flag::HasBlob) {
        return Err(CodegenError::HostSpanWithoutBlob {
            call: rc.name.clone(),
        });
    }
    let mut seen = BTreeSet::new();
    let mut typed = Vec::with_capacity(rc.fields.len());
    for f in &rc.fields {
        check_field_name(&rc.name, f)?;
        if !seen.insert(f.name.as_str()) {
            return Err(CodegenError::DuplicateField {
                call: rc.name.clone(),
                field: f.name.clone(),
            });
        }
        let ty = parse_type(&rc.name, &f.name, &f.ty)?;
        typed.push((f.name.clone(), ty, f.doc.clone()));
    }
    let (fields, size) = layout(typed);
    Ok(Call {
        name: rc.name.clone(),
        camel: camel_case(&rc.name),
        opcode,
        class,
        flags,
        doc: rc.doc.clone(),
        retired: rc.retired,
        fields,
        size,
    })
}

/// Lay fields out in order with natural alignment, inserting explicit `_padN`
/// fields before any misaligned field and at the tail (to a multiple of 8).
/// Returns the laid-out fields and the payload size.
pub fn layout(fields: Vec<(String, FieldType, Option<String>)>) -> (Vec<Field>, usize) {
    let mut out = Vec::with_capacity(fields.len());
    let mut offset = 0usize;
    let mut pads = 0usize;
    let mut push_pad = |out: &mut Vec<Field>, offset: &mut usize, to: usize| {
        if to > *offset {
            let n = to - *offset;
            out.push(Field {
                name: format!("_pad{pads}"),
                kind: FieldKind::Pad(n),
                offset: *offset,
                size: n,
                doc: None,
            });
            pads += 1;
            *offset = to;
        }
    };
    for (name, ty, doc) in fields {
        let aligned = offset.next_multiple_of(ty.align());
        push_pad(&mut out, &mut offset, aligned);
        let size = ty.size();
        out.push(Field {
            name,
            kind: FieldKind::Data(ty),
            offset,
            size,
            doc,
        });
        offset += size;
    }
    let end = offset.next_multiple_of(PAYLOAD_ALIGN);
    push_pad(&mut out, &mut offset, end);
    (out, offset)
}

fn build_coverage(raw: &RawCoverage, calls: &[Call]) -> Result<Vec<CoverageEntry>, CodegenError> {
    let mut out = Vec::with_capacity(raw.entry_points.len());
    // BTreeMap: already sorted by entry point name.
    for (ep, names) in &raw.entry_points {
        if ep.is_empty() || !ep.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(CodegenError::BadName {
                what: "coverage entry point",
                name: ep.clone(),
            });
        }
        let mut idx = Vec::with_capacity(names.len());
        for n in names {
            let i = calls.iter().position(|c| &c.name == n).ok_or_else(|| {
                CodegenError::CoverageUnknownCall {
                    entry_point: ep.clone(),
                    call: n.clone(),
                }
            })?;
            if calls[i].retired {
                return Err(CodegenError::CoverageRetiredCall {
                    entry_point: ep.clone(),
                    call: n.clone(),
                });
            }
            if idx.contains(&i) {
                return Err(CodegenError::CoverageDuplicateCall {
                    entry_point: ep.clone(),
                    call: n.clone(),
                });
            }
            idx.push(i);
        }
        out.push(CoverageEntry {
            entry_point: ep.clone(),
            calls: idx,
        });
    }
    Ok(out)
}

fn parse_type(call: &str, field: &str, ty: &str) -> Result<FieldType, CodegenError> {
    let unknown = || CodegenError::UnknownType {
        call: call.to_string(),
        field: field.to_string(),
        ty: ty.to_string(),
    };
    let t = ty.trim();
    if let Some(inner) = t.strip_prefix('[') {
        let inner = inner.strip_suffix(']').ok_or_else(unknown)?;
        let (elem, n) = inner.split_once(';').ok_or_else(unknown)?;
        let n: usize = n.trim().parse().map_err(|_| unknown())?;
        if n == 0 {
            return Err(CodegenError::EmptyArray {
                call: call.to_string(),
                field: field.to_string(),
            });
        }
        if !POD_ARRAY_LENGTHS_ABOVE_32.contains(&n) && n > 32 {
            return Err(CodegenError::UnsupportedArrayLength {
                call: call.to_string(),
                field: field.to_string(),
                len: n,
            });
        }
        let elem = parse_elem(call, field, elem.trim(), ty)?;
        Ok(FieldType {
            elem,
            array: Some(n),
        })
    } else {
        Ok(FieldType {
            elem: parse_elem(call, field, t, ty)?,
            array: None,
        })
    }
}

fn parse_elem(call: &str, field: &str, s: &str, whole: &str) -> Result<Elem, CodegenError> {
    if let Some(kind) = s.strip_prefix("handle:") {
        let kind = kind.trim();
        return HANDLE_KINDS
            .iter()
            .find(|k| **k == kind)
            .map(|k| Elem::Handle(k))
            .ok_or_else(|| CodegenError::UnknownHandleKind {
                call: call.to_string(),
                field: field.to_string(),
                kind: kind.to_string(),
            });
    }
    Scalar::parse(s)
        .map(Elem::Scalar)
        .ok_or_else(|| CodegenError::UnknownType {
            call: call.to_string(),
            field: field.to_string(),
            ty: whole.to_string(),
        })
}

fn check_field_name(call: &str, f: &RawField) -> Result<(), CodegenError> {
    check_ident(&f.name, "field", call)?;
    if f.name.starts_with("_pad") {
        return Err(CodegenError::ReservedFieldName {
            call: call.to_string(),
            field: f.name.clone(),
        });
    }
    Ok(())
}

/// Names must be lower snake case ASCII identifiers.
fn check_ident(name: &str, what: &'static str, call: &str) -> Result<(), CodegenError> {
    let ok = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !matches!(name, "self" | "super" | "crate" | "Self" | "_");
    if ok {
        Ok(())
    } else if what == "call" {
        Err(CodegenError::BadName {
            what: "call name",
            name: name.to_string(),
        })
    } else {
        Err(CodegenError::BadName {
            what: "field name",
            name: format!("{call}.{name}"),
        })
    }
}

/// Strict and reserved Rust keywords usable as raw identifiers.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "dyn", "else", "enum", "extern", "false",
    "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
    "return", "static", "struct", "trait", "true", "type", "unsafe", "use", "where", "while",
    "abstract", "become", "box", "do", "final", "gen", "macro", "override", "priv", "try",
    "typeof", "unsized", "virtual", "yield",
];

/// A catalogue name as a Rust identifier (`type` → `r#type`).
pub fn rust_ident(name: &str) -> String {
    if KEYWORDS.contains(&name) {
        format!("r#{name}")
    } else {
        name.to_string()
    }
}

/// `draw_vbo` → `DrawVbo`.
pub fn camel_case(name: &str) -> String {
    name.split('_')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut c = p.chars();
            match c.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{build_model, CodegenError};

    fn ty(s: &str) -> FieldType {
        parse_type("c", "f", s).expect("valid type")
    }

    fn one_call(fields: &str) -> String {
        format!("[[call]]\nname = \"c\"\nclass = \"ctx_verb\"\nfields = [{fields}]\n")
    }

    #[test]
    fn layout_inserts_explicit_padding() {
        let (fields, size) = layout(vec![
            ("a".into(), ty("u8"), None),
            ("b".into(), ty("u32"), None),
            ("c".into(), ty("u16"), None),
            ("d".into(), ty("u64"), None),
            ("e".into(), ty("[u8; 3]"), None),
        ]);
        let got: Vec<(&str, usize, usize, String)> = fields
            .iter()
            .map(|f| (f.name.as_str(), f.offset, f.size, f.rust_type()))
            .collect();
        let want = vec![
            ("a", 0, 1, "u8".to_string()),
            ("_pad0", 1, 3, "[u8; 3]".to_string()),
            ("b", 4, 4, "u32".to_string()),
            ("c", 8, 2, "u16".to_string()),
            ("_pad1", 10, 6, "[u8; 6]".to_string()),
            ("d", 16, 8, "u64".to_string()),
            ("e", 24, 3, "[u8; 3]".to_string()),
            ("_pad2", 27, 5, "[u8; 5]".to_string()),
        ];
        assert_eq!(got, want);
        assert_eq!(size, 32);
        // Every byte is covered exactly once: no implicit padding.
        let mut end = 0;
        for f in &fields {
            assert_eq!(f.offset, end);
            end += f.size;
        }
        assert_eq!(end, size);
    }

    #[test]
    fn layout_handles_and_tail_padding() {
        let (fields, size) = layout(vec![
            ("h".into(), ty("handle:resource"), None),
            ("x".into(), ty("u32"), None),
        ]);
        assert_eq!(size, 16);
        assert_eq!(
            fields
                .last()
                .map(|f| (f.name.as_str(), f.offset, f.rust_type())),
            Some(("_pad0", 12, "u32".into()))
        );
        let (fields, size) = layout(vec![("h".into(), ty("[handle:sampler; 3]"), None)]);
        assert_eq!((fields.len(), size), (1, 24));
        let (fields, size) = layout(Vec::new());
        assert!(fields.is_empty());
        assert_eq!(size, 0);
        // A u16 pad at an odd offset is not a u16.
        assert_eq!(pad_type(2, 3), "[u8; 2]");
        assert_eq!(pad_type(4, 4), "u32");
    }

    #[test]
    fn unknown_type_is_named() {
        let e = build_model(&one_call("{ name = \"x\", ty = \"u128\" }"), None).unwrap_err();
        assert!(
            matches!(&e, CodegenError::UnknownType { call, field, ty } if call == "c" && field == "x" && ty == "u128")
        );
        assert!(e.to_string().contains("u128"));
        for bad in [
            "[u32; 0]",
            "[u32 4]",
            "[u32; 33]",
            "handle:widget",
            "[handle:nope; 2]",
        ] {
            assert!(
                build_model(
                    &one_call(&format!("{{ name = \"x\", ty = \"{bad}\" }}")),
                    None
                )
                .is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn duplicate_names_are_refused() {
        let two = format!("{}{}", one_call(""), one_call(""));
        assert!(
            matches!(build_model(&two, None), Err(CodegenError::DuplicateCall { name }) if name == "c")
        );
        let dup_field = one_call("{ name = \"x\", ty = \"u32\" }, { name = \"x\", ty = \"u32\" }");
        assert!(matches!(
            build_model(&dup_field, None),
            Err(CodegenError::DuplicateField { .. })
        ));
        let camel = "[[call]]\nname = \"a_b\"\nclass = \"screen\"\n[[call]]\nname = \"a__b\"\nclass = \"screen\"\n";
        assert!(matches!(
            build_model(camel, None),
            Err(CodegenError::CamelCollision { .. })
        ));
    }

    #[test]
    fn bad_classes_flags_and_names_are_refused() {
        let t = "[[call]]\nname = \"c\"\nclass = \"ctx_nope\"\n";
        assert!(matches!(
            build_model(t, None),
            Err(CodegenError::UnknownClass { .. })
        ));
        let t = "[[call]]\nname = \"c\"\nclass = \"screen\"\nflags = [\"fast\"]\n";
        assert!(matches!(
            build_model(t, None),
            Err(CodegenError::UnknownFlag { .. })
        ));
        let t =
            "[[call]]\nname = \"c\"\nclass = \"screen\"\nflags = [\"has_blob\", \"has_blob\"]\n";
        assert!(matches!(
            build_model(t, None),
            Err(CodegenError::DuplicateFlag { .. })
        ));
        let t = "[[call]]\nname = \"c\"\nclass = \"screen\"\nflags = [\"host_span\"]\n";
        assert!(matches!(
            build_model(t, None),
            Err(CodegenError::HostSpanWithoutBlob { .. })
        ));
        let t = "[[call]]\nname = \"Bad\"\nclass = \"screen\"\n";
        assert!(matches!(
            build_model(t, None),
            Err(CodegenError::BadName { .. })
        ));
        assert!(matches!(
            build_model(&one_call("{ name = \"_pad0\", ty = \"u32\" }"), None),
            Err(CodegenError::ReservedFieldName { .. })
        ));
        // Unknown keys (typos) are refused by the parser.
        let t = "[[call]]\nname = \"c\"\nclass = \"screen\"\nflag = [\"has_blob\"]\n";
        assert!(matches!(
            build_model(t, None),
            Err(CodegenError::Toml { .. })
        ));
    }

    #[test]
    fn coverage_is_validated_and_sorted() {
        let cat = one_call("");
        let m =
            build_model(&cat, Some("[entry_points]\nglB = [\"c\"]\nglA = []\n")).expect("valid");
        let names: Vec<&str> = m.coverage.iter().map(|e| e.entry_point.as_str()).collect();
        assert_eq!(names, ["glA", "glB"]);
        assert_eq!(m.coverage[1].calls, [0]);
        let e = build_model(&cat, Some("[entry_points]\nglB = [\"nope\"]\n")).unwrap_err();
        assert!(
            matches!(&e, CodegenError::CoverageUnknownCall { entry_point, call } if entry_point == "glB" && call == "nope")
        );
        assert!(e.to_string().contains("glB") && e.to_string().contains("nope"));
    }

    #[test]
    fn hash_ignores_comments_and_docs_but_not_types() {
        let a = build_model(&one_call("{ name = \"x\", ty = \"u32\" }"), None).expect("valid");
        let b = build_model(
            &format!(
                "# a comment\n{}",
                one_call("{ name = \"x\", ty = \"u32\", doc = \"documented\" }")
            ),
            None,
        )
        .expect("valid");
        let c = build_model(&one_call("{ name = \"x\", ty = \"i32\" }"), None).expect("valid");
        assert_eq!(a.hash, b.hash);
        assert_ne!(a.hash, c.hash);
    }

    #[test]
    fn names_and_identifiers() {
        assert_eq!(camel_case("draw_vbo"), "DrawVbo");
        assert_eq!(camel_case("get_caps"), "GetCaps");
        assert_eq!(rust_ident("type"), "r#type");
        assert_eq!(rust_ident("draw"), "draw");
    }
}
