//! G4: the verifier — first divergent field of two payloads, by name.

use super::{lit, Out};
use crate::model::{Call, Elem, FieldKind, Model};

/// `impl calls::Foo { pub fn first_divergence(..) }`.
pub fn per_struct(out: &mut Out, c: &Call) {
    out.open(format!("impl {} {{", c.camel));
    out.doc(
        "G4: the first field (in layout order) where `self` and `o` differ, by\n\
         catalogue name; array elements are named `field[i]`. Floats compare by\n\
         bits, so NaN payloads compare as the wire sees them.",
    );
    let o = if c.fields.is_empty() { "_o" } else { "o" };
    out.open(format!(
        "pub fn first_divergence(&self, {o}: &Self) -> Option<&'static str> {{"
    ));
    for f in &c.fields {
        let id = f.ident();
        let float = match &f.kind {
            FieldKind::Data(t) => matches!(t.elem, Elem::Scalar(s) if s.is_float()),
            FieldKind::Pad(_) => false,
        };
        let array = match &f.kind {
            FieldKind::Data(t) => t.array,
            FieldKind::Pad(_) => None,
        };
        let ne = |a: &str, b: &str| {
            if float {
                format!("{a}.to_bits() != {b}.to_bits()")
            } else {
                format!("{a} != {b}")
            }
        };
        match array {
            None => {
                out.open(format!(
                    "if {} {{",
                    ne(&format!("self.{id}"), &format!("o.{id}"))
                ));
                out.line(format!("return Some({});", lit(&f.name)));
                out.close("}");
            }
            Some(n) => {
                out.open(format!(
                    "if let Some(i) = self.{id}.iter().zip(o.{id}.iter()).position(|(x, y)| {}) {{",
                    ne("x", "y")
                ));
                let names: Vec<String> = (0..n).map(|i| lit(&format!("{}[{i}]", f.name))).collect();
                out.line(format!(
                    "const NAMES: [&str; {n}] = [{}];",
                    names.join(", ")
                ));
                out.line(format!(
                    "return Some(NAMES.get(i).copied().unwrap_or({}));",
                    lit(&f.name)
                ));
                out.close("}");
            }
        }
    }
    out.line("None");
    out.close("}");
    out.close("}");
}

pub fn by_opcode(out: &mut Out, model: &Model) {
    out.doc(
        "G4 verifier: the first divergent field of two payloads of the call\n\
         `opcode`, by name (`None`: equal). A payload of the wrong length\n\
         diverges as `\"<payload length>\"` unless both are byte-identical.",
    );
    out.open(
        "pub fn first_divergence(opcode: Opcode, a: &[u8], b: &[u8]) -> Option<&'static str> {",
    );
    out.open("match opcode {");
    for c in model.live() {
        out.line(format!(
            "Opcode::{0} => diverge(a, b, calls::{0}::first_divergence),",
            c.camel
        ));
    }
    out.close("}");
    out.close("}");
    out.blank();
    out.line("fn diverge<T: bytemuck::Pod>(");
    out.line("    a: &[u8],");
    out.line("    b: &[u8],");
    out.line("    f: fn(&T, &T) -> Option<&'static str>,");
    out.open(") -> Option<&'static str> {");
    out.open("match (bytemuck::try_pod_read_unaligned::<T>(a), bytemuck::try_pod_read_unaligned::<T>(b)) {");
    out.line("(Ok(x), Ok(y)) => f(&x, &y),");
    out.line("_ if a == b => None,");
    out.line("_ => Some(\"<payload length>\"),");
    out.close("}");
    out.close("}");
    out.blank();
}
