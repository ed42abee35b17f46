//! G6: the coverage map (GL entry point → calls it may emit).

use super::{lit, Out};
use crate::model::Model;

pub fn table(out: &mut Out, model: &Model) {
    out.doc(
        "G6 coverage map: every GL entry point covered so far → the calls it may\n\
         emit (empty: answered locally). Sorted by entry point name.",
    );
    if model.coverage.is_empty() {
        out.line("pub const COVERAGE: &[(&str, &[Opcode])] = &[];");
        return;
    }
    out.open("pub const COVERAGE: &[(&str, &[Opcode])] = &[");
    for e in &model.coverage {
        let ops: Vec<String> = e
            .calls
            .iter()
            .map(|&i| format!("Opcode::{}", model.calls[i].camel))
            .collect();
        out.line(format!("({}, &[{}]),", lit(&e.entry_point), ops.join(", ")));
    }
    out.close("];");
}
