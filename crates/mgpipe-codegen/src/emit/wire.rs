//! G3: constants, call classes/flags, payload PODs with layout asserts, the
//! `Opcode` table and `dispatch`.

use super::{lit, verify, Out};
use crate::model::{Call, Class, Elem, FieldKind, Flag, Model};

pub fn prelude(out: &mut Out, model: &Model) {
    out.line("use super::ProtocolCorruption;");
    out.blank();
    out.doc("xxh3_64 of the catalogue's canonical form (names, classes, flags, field\nnames and types in order). Peers with different hashes refuse by name.");
    out.line(format!(
        "pub const CATALOGUE_HASH: u64 = 0x{:016x};",
        model.hash
    ));
    out.blank();
    out.doc("Number of opcodes (retired ones included): every opcode is below this.");
    out.line(format!(
        "pub const CALL_COUNT: usize = {};",
        model.calls.len()
    ));
    out.blank();

    out.doc("The class of a call (DESIGN §3): `Screen` calls go to the [`Screen`]\ntable, every other class to [`Context`].");
    out.line("#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]");
    out.open("pub enum CallClass {");
    for c in Class::ALL {
        out.line(format!("{},", c.rust_name()));
    }
    out.close("}");
    out.blank();
    out.open("impl CallClass {");
    out.doc("The catalogue spelling (`ctx_verb`).");
    out.open("pub const fn name(self) -> &'static str {");
    out.open("match self {");
    for c in Class::ALL {
        out.line(format!(
            "CallClass::{} => {},",
            c.rust_name(),
            lit(c.catalogue_name())
        ));
    }
    out.close("}");
    out.close("}");
    out.close("}");
    out.blank();

    out.doc("The flags of a call, as bits.");
    out.line("#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]");
    out.line("pub struct CallFlags(pub u32);");
    out.blank();
    out.open("impl CallFlags {");
    out.line("pub const NONE: CallFlags = CallFlags(0);");
    for f in Flag::ALL {
        out.doc(flag_doc(f));
        out.line(format!(
            "pub const {}: CallFlags = CallFlags(1 << {});",
            f.const_name(),
            f as u32
        ));
    }
    out.blank();
    out.line("pub const fn bits(self) -> u32 {");
    out.line("    self.0");
    out.line("}");
    out.line("pub const fn is_empty(self) -> bool {");
    out.line("    self.0 == 0");
    out.line("}");
    out.doc("Whether every bit of `other` is set here.");
    out.line("pub const fn contains(self, other: CallFlags) -> bool {");
    out.line("    self.0 & other.0 == other.0");
    out.line("}");
    out.line("pub const fn union(self, other: CallFlags) -> CallFlags {");
    out.line("    CallFlags(self.0 | other.0)");
    out.line("}");
    out.close("}");
    out.blank();
    out.open("impl core::ops::BitOr for CallFlags {");
    out.line("type Output = CallFlags;");
    out.line("fn bitor(self, other: CallFlags) -> CallFlags {");
    out.line("    CallFlags(self.0 | other.0)");
    out.line("}");
    out.close("}");
    out.blank();
}

fn flag_doc(f: Flag) -> &'static str {
    match f {
        Flag::NeedsAck => "The call must be acknowledged by the backend.",
        Flag::HasBlob => {
            "The call carries one byte blob (STAGE on the wire, a borrowed slice in monolith)."
        }
        Flag::VarTail => "The payload has a variable tail.",
        Flag::HostSpan => "The blob holds bytes the client owned (client arrays, indices).",
        Flag::ReplySlot => "The call is synchronous and answers with reply bytes.",
        Flag::Optional => "A backend may decline the call (its caps call-mask bit is clear).",
    }
}

fn flags_expr(c: &Call) -> String {
    if c.flags.is_empty() {
        return "CallFlags::NONE".to_string();
    }
    format!("CallFlags({})", c.flag_bits())
}

fn flags_list(c: &Call) -> String {
    if c.flags.is_empty() {
        "none".to_string()
    } else {
        c.flags
            .iter()
            .map(|f| f.catalogue_name())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

pub fn payloads(out: &mut Out, model: &Model) {
    out.doc("One `#[repr(C)]` POD payload per call, laid out with natural alignment and\nexplicit zeroed `_padN` fields (no implicit padding), size a multiple of 8.");
    out.open("pub mod calls {");
    let uses_handles = model
        .live()
        .flat_map(|c| c.fields.iter())
        .any(|f| matches!(&f.kind, FieldKind::Data(t) if matches!(t.elem, Elem::Handle(_))));
    if uses_handles {
        out.line("use super::super::Handle;");
    }
    for c in model.live() {
        out.blank();
        payload(out, c);
    }
    out.close("}");
    out.blank();
}

fn payload(out: &mut Out, c: &Call) {
    out.doc(&format!(
        "`{}`: opcode {}, class `{}`, flags: {}; {} bytes.",
        c.name,
        c.opcode,
        c.class.catalogue_name(),
        flags_list(c),
        c.size
    ));
    if let Some(d) = &c.doc {
        out.line("///");
        out.doc(d);
    }
    out.line("#[repr(C)]");
    if c.derives_default() {
        out.line(
            "#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]",
        );
    } else {
        out.line("#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]");
    }
    if c.fields.is_empty() {
        out.line(format!("pub struct {} {{}}", c.camel));
    } else {
        out.open(format!("pub struct {} {{", c.camel));
        for f in &c.fields {
            match &f.kind {
                FieldKind::Pad(n) => out.doc(&format!("Padding, {n} byte(s), always zero.")),
                FieldKind::Data(t) => {
                    let mut d = String::new();
                    if let Elem::Handle(k) = t.elem {
                        d.push_str(&format!("Handle kind `{k}`."));
                    }
                    if let Some(fd) = &f.doc {
                        if !d.is_empty() {
                            d.push(' ');
                        }
                        d.push_str(fd);
                    }
                    if !d.is_empty() {
                        out.doc(&d);
                    }
                }
            }
            out.line(format!("pub {}: {},", f.ident(), f.rust_type()));
        }
        out.close("}");
    }
    out.blank();
    out.line(format!(
        "const _: () = assert!(core::mem::size_of::<{}>() == {});",
        c.camel, c.size
    ));
    for f in &c.fields {
        out.line(format!(
            "const _: () = assert!(core::mem::offset_of!({}, {}) == {});",
            c.camel,
            f.ident(),
            f.offset
        ));
    }
    if !c.derives_default() {
        out.blank();
        out.open(format!("impl Default for {} {{", c.camel));
        out.open("fn default() -> Self {");
        out.line("bytemuck::Zeroable::zeroed()");
        out.close("}");
        out.close("}");
    }
    out.blank();
    verify::per_struct(out, c);
}

pub fn opcodes(out: &mut Out, model: &Model) {
    out.doc("Every live call; the value is the opcode (position in the catalogue).");
    out.line("#[repr(u16)]");
    out.line("#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]");
    out.open("pub enum Opcode {");
    for c in model.live() {
        out.doc(&format!("`{}`", c.name));
        out.line(format!("{} = {},", c.camel, c.opcode));
    }
    out.close("}");
    out.blank();
    out.open("impl Opcode {");
    out.doc("Every live opcode, in opcode order.");
    out.open("pub const ALL: &'static [Opcode] = &[");
    for c in model.live() {
        out.line(format!("Opcode::{},", c.camel));
    }
    out.close("];");
    out.blank();
    out.doc("The live call with this opcode (`None`: unknown or retired).");
    out.open("pub const fn from_u16(v: u16) -> Option<Opcode> {");
    out.open("match v {");
    for c in model.live() {
        out.line(format!("{} => Some(Opcode::{}),", c.opcode, c.camel));
    }
    out.line("_ => None,");
    out.close("}");
    out.close("}");
    table(
        out,
        model,
        "The catalogue name (`draw`).",
        "name",
        "&'static str",
        |c| lit(&c.name),
    );
    table(out, model, "The call's class.", "class", "CallClass", |c| {
        format!("CallClass::{}", c.class.rust_name())
    });
    table(
        out,
        model,
        "The call's flags.",
        "flags",
        "CallFlags",
        flags_expr,
    );
    table(
        out,
        model,
        "Size in bytes of the call's payload POD.",
        "payload_size",
        "usize",
        |c| c.size.to_string(),
    );
    out.close("}");
    out.blank();
}

fn table(
    out: &mut Out,
    model: &Model,
    doc: &str,
    name: &str,
    ty: &str,
    f: impl Fn(&Call) -> String,
) {
    out.blank();
    out.doc(doc);
    out.open(format!("pub const fn {name}(self) -> {ty} {{"));
    out.open("match self {");
    for c in model.live() {
        out.line(format!("Opcode::{} => {},", c.camel, f(c)));
    }
    out.close("}");
    out.close("}");
}

/// Arguments after `p` in an applier/pipe call, by the signature rules.
pub(crate) fn extra_params(c: &Call) -> &'static str {
    match (c.has_blob(), c.reply_slot()) {
        (false, false) => "",
        (true, false) => ", blob: &[u8]",
        (false, true) => ", reply: &mut Vec<u8>",
        (true, true) => ", blob: &[u8], reply: &mut Vec<u8>",
    }
}

/// The matching argument names.
pub(crate) fn extra_args(c: &Call) -> &'static str {
    match (c.has_blob(), c.reply_slot()) {
        (false, false) => "",
        (true, false) => ", blob",
        (false, true) => ", reply",
        (true, true) => ", blob, reply",
    }
}

/// The table trait a call belongs to.
pub(crate) fn table_trait(c: &Call) -> &'static str {
    if c.class == Class::Screen {
        "Screen"
    } else {
        "Context"
    }
}

pub fn dispatch(out: &mut Out, model: &Model) {
    out.doc(
        "G3 decode + dispatch (server side). Checks that the opcode is known, that\n\
         `payload` is exactly the call's payload size and that no blob comes with a\n\
         call without `has_blob`; reads the POD once (unaligned) and calls the\n\
         applier. Never panics: every malformed input is a named\n\
         [`ProtocolCorruption`] at `offset`.",
    );
    out.open("pub fn dispatch<A: Applier + ?Sized>(");
    out.line("a: &mut A,");
    out.line("opcode: u16,");
    out.line("payload: &[u8],");
    out.line("blob: &[u8],");
    out.line("reply: &mut Vec<u8>,");
    out.line("offset: usize,");
    out.close(") -> Result<(), ProtocolCorruption> {");
    out.indent_in();
    out.line("let corrupt = |why: &'static str| ProtocolCorruption { opcode, offset, why };");
    let retired: Vec<String> = model
        .calls
        .iter()
        .filter(|c| c.retired)
        .map(|c| c.opcode.to_string())
        .collect();
    out.open("let Some(op) = Opcode::from_u16(opcode) else {");
    if retired.is_empty() {
        out.line("return Err(corrupt(\"unknown opcode\"));");
    } else {
        out.open("return Err(corrupt(match opcode {");
        out.line(format!("{} => \"retired opcode\",", retired.join(" | ")));
        out.line("_ => \"unknown opcode\",");
        out.close("}));");
    }
    out.close("};");
    out.open("if payload.len() != op.payload_size() {");
    out.line("return Err(corrupt(\"payload length does not match the call's payload size\"));");
    out.close("}");
    out.open("if !blob.is_empty() && !op.flags().contains(CallFlags::HAS_BLOB) {");
    out.line("return Err(corrupt(\"blob given to a call without has_blob\"));");
    out.close("}");
    if !model.live().any(|c| c.reply_slot()) {
        out.line("let _ = reply;");
    }
    out.line("let unreadable = |_| corrupt(\"payload unreadable\");");
    out.open("match op {");
    for c in model.live() {
        out.open(format!("Opcode::{} => {{", c.camel));
        out.line(format!(
            "let p: calls::{} = bytemuck::try_pod_read_unaligned(payload).map_err(unreadable)?;",
            c.camel
        ));
        out.line(format!(
            "<A as {}>::{}(a, &p{});",
            table_trait(c),
            c.method(),
            extra_args(c)
        ));
        out.close("}");
    }
    out.close("}");
    out.line("Ok(())");
    out.close("}");
    out.blank();
}
