//! G1 (the Screen/Context tables, Applier, Pipe) and G2 (Direct, Encoder).

use super::wire::{extra_args, extra_params, table_trait};
use super::Out;
use crate::model::{Call, Class, Flag, Model};

fn sig(c: &Call) -> String {
    format!(
        "fn {}(&mut self, p: &calls::{}{})",
        c.method(),
        c.camel,
        extra_params(c)
    )
}

fn method_doc(out: &mut Out, c: &Call) {
    out.doc(&format!("`{}` (opcode {}).", c.name, c.opcode));
    if let Some(d) = &c.doc {
        out.line("///");
        out.doc(d);
    }
}

/// `defaults`: give `optional` calls a default body that declines them (a
/// backend that does not implement one clears its bit in the caps call
/// mask; the client asks only when the bit is set, and a declined reply
/// call answers empty).
fn decl_trait(out: &mut Out, name: &str, doc: &str, calls: &[&Call], defaults: bool) {
    out.doc(doc);
    // The screen table also carries the reverse channel's outbox: not a
    // catalogue call (nothing travels client→server), one provided method.
    let events = name == "Screen";
    // The context table also carries monolith's direct read (DESIGN §2.2:
    // in monolith a span may carry a direct pointer): not a catalogue call,
    // one provided method that declines by default.
    let direct_read = name == "Context" && calls.iter().any(|c| c.name == "read_pixels");
    if calls.is_empty() && !events && !direct_read {
        out.line(format!("pub trait {name} {{}}"));
    } else {
        out.open(format!("pub trait {name} {{"));
        if events {
            out.doc("Not a catalogue call: move the events produced since the last call\n(the reverse channel, `crate::event`) into `out`, oldest first. The\ntransport calls it before publishing any reply. Default: none.");
            out.open("fn drain_events(&mut self, out: &mut Vec<crate::event::Event>) {");
            out.line("let _ = out;");
            out.close("}");
            if !calls.is_empty() {
                out.blank();
            }
        }
        if direct_read {
            out.doc("Not a catalogue call: `read_pixels` straight into the client's memory\n(monolith only, where the applier runs on the client's thread). `dst`\nholds exactly the tight rows `read_pixels` would answer; pixels outside\nthe read surface may be left as they are (GL leaves them undefined).\nFalse: declined, nothing written; the caller uses `read_pixels`.\nDefault: declined.");
            out.open(
                "fn read_pixels_into(&mut self, p: &calls::ReadPixels, dst: &mut [u8]) -> bool {",
            );
            out.line("let _ = (p, dst);");
            out.line("false");
            out.close("}");
            out.blank();
            out.doc("Not a catalogue call: whether `read_pixels_into` may be called once per\nhorizontal band of one read (each band a cheap synchronous driver read),\nso that a ring transport lets the client copy one band out while the\nnext is read. False for appliers whose every read is a submission and\na wait. Default: false.");
            out.open("fn read_pixels_bands(&self) -> bool {");
            out.line("false");
            out.close("}");
            if !calls.is_empty() {
                out.blank();
            }
        }
        for (i, c) in calls.iter().enumerate() {
            if i > 0 {
                out.blank();
            }
            method_doc(out, c);
            if defaults && c.flags.contains(&Flag::Optional) {
                out.open(format!("{} {{", sig(c)));
                let extra = extra_args(c);
                if extra.is_empty() {
                    out.line("let _ = p;");
                } else {
                    out.line(format!("let _ = (p{extra});"));
                }
                out.close("}");
            } else {
                out.line(format!("{};", sig(c)));
            }
        }
        out.close("}");
    }
    out.blank();
    // Forwarding impls: Box<T> and &mut T.
    for wrapper in ["Box<T>", "&mut T"] {
        if calls.is_empty() && !events && !direct_read {
            out.line(format!(
                "impl<T: {name} + ?Sized> {name} for {wrapper} {{}}"
            ));
        } else {
            out.open(format!("impl<T: {name} + ?Sized> {name} for {wrapper} {{"));
            if events {
                out.open("fn drain_events(&mut self, out: &mut Vec<crate::event::Event>) {");
                out.line(format!("<T as {name}>::drain_events(&mut **self, out)"));
                out.close("}");
            }
            if direct_read {
                out.open("fn read_pixels_into(&mut self, p: &calls::ReadPixels, dst: &mut [u8]) -> bool {");
                out.line(format!(
                    "<T as {name}>::read_pixels_into(&mut **self, p, dst)"
                ));
                out.close("}");
                out.open("fn read_pixels_bands(&self) -> bool {");
                out.line(format!("<T as {name}>::read_pixels_bands(&**self)"));
                out.close("}");
            }
            for c in calls {
                out.open(format!("{} {{", sig(c)));
                out.line(format!(
                    "<T as {name}>::{}(&mut **self, p{})",
                    c.method(),
                    extra_args(c)
                ));
                out.close("}");
            }
            out.close("}");
        }
        out.blank();
    }
}

pub fn traits(out: &mut Out, model: &Model) {
    let screen: Vec<&Call> = model.live().filter(|c| c.class == Class::Screen).collect();
    let context: Vec<&Call> = model.live().filter(|c| c.class != Class::Screen).collect();
    let all: Vec<&Call> = model.live().collect();
    let screen_doc = format!(
        "G1, backend side: the screen table (share group: caps, contexts,\n\
         surfaces, resources, fences). Methods report GL-level failures through\n\
         the backend's own error channel, never by panicking.\n\n{SIG_RULES}"
    );
    decl_trait(out, "Screen", &screen_doc, &screen, true);
    let context_doc = format!(
        "G1, backend side: the context table (CSOs, `set_*` state, objects,\n\
         verbs, queries), applied to the current context.\n\n{SIG_RULES}"
    );
    decl_trait(out, "Context", &context_doc, &context, true);
    out.doc("The whole backend side: both tables.");
    out.line("pub trait Applier: Screen + Context {}");
    out.line("impl<T: Screen + Context + ?Sized> Applier for T {}");
    out.blank();
    let pipe_doc = format!(
        "The frontend side: what the state tracker calls, one method per call\n\
         (object safe: `Box<dyn Pipe>` works).\n\n{SIG_RULES}"
    );
    decl_trait(out, "Pipe", &pipe_doc, &all, false);
}

const SIG_RULES: &str = "Signature rules: `p` is the call's payload; `has_blob` calls take\n`blob: &[u8]`, `reply_slot` calls `reply: &mut Vec<u8>` (the reply bytes).";

pub fn direct(out: &mut Out, model: &Model) {
    out.doc("G2 monolith glue: a [`Pipe`] that calls the applier directly (no bytes, no copy).");
    out.line("pub struct Direct<A: Applier>(pub A);");
    out.blank();
    let calls: Vec<&Call> = model.live().collect();
    if calls.is_empty() {
        out.line("impl<A: Applier> Pipe for Direct<A> {}");
    } else {
        out.open("impl<A: Applier> Pipe for Direct<A> {");
        for c in &calls {
            out.open(format!("{} {{", sig(c)));
            out.line(format!(
                "<A as {}>::{}(&mut self.0, p{})",
                table_trait(c),
                c.method(),
                extra_args(c)
            ));
            out.close("}");
        }
        out.close("}");
    }
    out.blank();
}

pub fn encoder(out: &mut Out, model: &Model) {
    out.doc("Encoding glue: any byte sink (ring transports, tests) becomes a [`Pipe`]\nthrough [`Encoder`].");
    out.open("pub trait RecordSink {");
    out.doc("Append one record (payload = the POD's bytes) and its blob.");
    out.line("fn record(&mut self, opcode: Opcode, payload: &[u8], blob: &[u8]);");
    out.blank();
    out.doc("Append one synchronous record and block until its reply bytes arrive.");
    out.line("fn record_sync(&mut self, opcode: Opcode, payload: &[u8], blob: &[u8], reply: &mut Vec<u8>);");
    out.close("}");
    out.blank();
    for wrapper in ["Box<T>", "&mut T"] {
        out.open(format!(
            "impl<T: RecordSink + ?Sized> RecordSink for {wrapper} {{"
        ));
        out.open("fn record(&mut self, opcode: Opcode, payload: &[u8], blob: &[u8]) {");
        out.line("<T as RecordSink>::record(&mut **self, opcode, payload, blob)");
        out.close("}");
        out.open("fn record_sync(&mut self, opcode: Opcode, payload: &[u8], blob: &[u8], reply: &mut Vec<u8>) {");
        out.line("<T as RecordSink>::record_sync(&mut **self, opcode, payload, blob, reply)");
        out.close("}");
        out.close("}");
        out.blank();
    }
    out.doc("A [`Pipe`] that encodes every call into its [`RecordSink`].");
    out.line("pub struct Encoder<S: RecordSink>(pub S);");
    out.blank();
    let calls: Vec<&Call> = model.live().collect();
    if calls.is_empty() {
        out.line("impl<S: RecordSink> Pipe for Encoder<S> {}");
    } else {
        out.open("impl<S: RecordSink> Pipe for Encoder<S> {");
        for c in &calls {
            out.open(format!("{} {{", sig(c)));
            let blob = if c.has_blob() { "blob" } else { "&[]" };
            if c.reply_slot() {
                out.line(format!(
                    "self.0.record_sync(Opcode::{}, bytemuck::bytes_of(p), {blob}, reply)",
                    c.camel
                ));
            } else {
                out.line(format!(
                    "self.0.record(Opcode::{}, bytemuck::bytes_of(p), {blob})",
                    c.camel
                ));
            }
            out.close("}");
        }
        out.close("}");
    }
    out.blank();
}
