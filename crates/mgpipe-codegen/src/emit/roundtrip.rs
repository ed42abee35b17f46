//! G5: per-call round-trip tests with distinct field values, plus decoder
//! robustness tests (truncation, corruption, random bytes).

use super::wire::table_trait;
use super::{lit, Out};
use crate::model::{Call, Elem, FieldKind, Model, Scalar};

/// A distinct literal for the `k`-th scalar element of a test payload.
fn value(elem: &Elem, k: usize) -> String {
    match elem {
        Elem::Handle(_) => format!("Handle::new({k}, {})", k + 100),
        Elem::Scalar(s) => match s {
            Scalar::U8 => format!("{}", k % 255 + 1),
            Scalar::U16 => format!("{}", k + 1000),
            Scalar::U32 => format!("{}", k + 100_000),
            Scalar::U64 => format!("{}", (1u64 << 32) + k as u64),
            Scalar::I32 => format!("-{k}"),
            Scalar::I64 => format!("-{}", (1u64 << 33) + k as u64),
            Scalar::F32 => format!("{k}.5"),
            Scalar::F64 => format!("{k}.25"),
        },
    }
}

/// An expression for a value different from `e` (of the element type).
fn other(elem: &Elem, e: &str) -> String {
    match elem {
        Elem::Handle(_) => format!("Handle::new({e}.slot, {e}.gen.wrapping_add(1))"),
        Elem::Scalar(s) if s.is_float() => format!("{e} + 1.0"),
        Elem::Scalar(_) => format!("{e}.wrapping_add(1)"),
    }
}

fn call_args(c: &Call, p: &str, blob: &str, reply: &str) -> String {
    let mut s = p.to_string();
    if c.has_blob() {
        s.push_str(", ");
        s.push_str(blob);
    }
    if c.reply_slot() {
        s.push_str(", ");
        s.push_str(reply);
    }
    s
}

pub fn tests(out: &mut Out, model: &Model) {
    support(out, model);
    for c in model.live() {
        sample(out, c);
    }
    stream(out, model);
    for c in model.live() {
        per_call(out, c);
    }
    robustness(out);
}

fn support(out: &mut Out, model: &Model) {
    out.doc("A byte sink writing real framed records; blobs go to a side stream (STAGE).");
    out.line("#[derive(Default)]");
    out.open("struct VecSink {");
    out.line("records: Vec<u8>,");
    out.line("stage: Vec<u8>,");
    out.close("}");
    out.blank();
    out.open("impl VecSink {");
    out.open("fn push(&mut self, opcode: Opcode, payload: &[u8], blob: &[u8], reply_slot: u32) {");
    out.line("let len = wire::align_record(wire::RECORD_HEADER_SIZE + payload.len());");
    out.open("let header = wire::RecordHeader {");
    out.line("opcode: opcode as u16,");
    out.line("flags: 0,");
    out.line("len: u32::try_from(len).expect(\"record length fits u32\"),");
    out.line("payload_len: u32::try_from(payload.len()).expect(\"payload length fits u32\"),");
    out.line("reply_slot,");
    out.line("blob_offset: self.stage.len() as u64,");
    out.line("blob_len: blob.len() as u64,");
    out.close("};");
    out.line("let start = self.records.len();");
    out.line("self.records.extend_from_slice(bytemuck::bytes_of(&header));");
    out.line("self.records.extend_from_slice(payload);");
    out.line("self.records.resize(start + len, 0);");
    out.line("self.stage.extend_from_slice(blob);");
    out.close("}");
    out.close("}");
    out.blank();
    out.open("impl RecordSink for VecSink {");
    out.open("fn record(&mut self, opcode: Opcode, payload: &[u8], blob: &[u8]) {");
    out.line("self.push(opcode, payload, blob, 0);");
    out.close("}");
    out.open("fn record_sync(&mut self, opcode: Opcode, payload: &[u8], blob: &[u8], reply: &mut Vec<u8>) {");
    out.line("self.push(opcode, payload, blob, 1);");
    out.line("reply.clear();");
    out.close("}");
    out.close("}");
    out.blank();
    out.doc("One call as the applier saw it.");
    out.line("#[derive(Clone, Debug, PartialEq)]");
    out.open("struct Seen {");
    out.line("opcode: Opcode,");
    out.line("payload: Vec<u8>,");
    out.line("blob: Vec<u8>,");
    out.close("}");
    out.blank();
    out.doc("An applier that records every call (and answers replies).");
    out.line("#[derive(Default)]");
    out.open("struct Recorder {");
    out.line("seen: Vec<Seen>,");
    out.close("}");
    out.blank();
    out.open("impl Recorder {");
    out.open("fn note(&mut self, opcode: Opcode, payload: &[u8], blob: &[u8]) {");
    out.line("self.seen.push(Seen { opcode, payload: payload.to_vec(), blob: blob.to_vec() });");
    out.close("}");
    out.close("}");
    out.blank();
    out.doc("The reply bytes the recorder answers `op` with.");
    out.open("fn reply_bytes(op: Opcode) -> Vec<u8> {");
    out.line("(0..(op as usize % 7 + 1)).map(|i| (i * 13 + op as usize) as u8).collect()");
    out.close("}");
    out.blank();
    out.doc("A distinct, non-empty blob for `op`.");
    out.line("#[allow(dead_code)]");
    out.open("fn sample_blob(op: Opcode) -> Vec<u8> {");
    out.line("(0..(op as usize % 29 + 3)).map(|i| (i * 31 + op as usize) as u8).collect()");
    out.close("}");
    out.blank();
    for tr in ["Screen", "Context"] {
        let calls: Vec<&Call> = model.live().filter(|c| table_trait(c) == tr).collect();
        if calls.is_empty() {
            out.line(format!("impl {tr} for Recorder {{}}"));
            out.blank();
            continue;
        }
        out.open(format!("impl {tr} for Recorder {{"));
        for c in calls {
            let params = super::wire::extra_params(c);
            out.open(format!(
                "fn {}(&mut self, p: &calls::{}{params}) {{",
                c.method(),
                c.camel
            ));
            let blob = if c.has_blob() { "blob" } else { "&[]" };
            out.line(format!(
                "self.note(Opcode::{}, bytemuck::bytes_of(p), {blob});",
                c.camel
            ));
            if c.reply_slot() {
                out.line("reply.clear();");
                out.line(format!(
                    "reply.extend_from_slice(&reply_bytes(Opcode::{}));",
                    c.camel
                ));
            }
            out.close("}");
        }
        out.close("}");
        out.blank();
    }
    out.line("fn stage_slice(stage: &[u8], offset: u64, len: u64) -> Option<&[u8]> {");
    out.line("    let start = usize::try_from(offset).ok()?;");
    out.line("    let end = start.checked_add(usize::try_from(len).ok()?)?;");
    out.line("    stage.get(start..end)");
    out.line("}");
    out.blank();
    out.doc("Decode a record stream: `split_record` + `dispatch` into a [`Recorder`];\nreturns it and the replies of `reply_slot` records.");
    out.line("type Decoded = (Recorder, Vec<Vec<u8>>);");
    out.blank();
    out.open("fn decode(records: &[u8], stage: &[u8]) -> Result<Decoded, ProtocolCorruption> {");
    out.line("let mut rec = Recorder::default();");
    out.line("let mut replies = Vec::new();");
    out.line("let mut off = 0usize;");
    out.open("while off < records.len() {");
    out.line("let (h, payload, len) = wire::split_record(&records[off..], off)?;");
    out.line("let blob = stage_slice(stage, h.blob_offset, h.blob_len).ok_or(ProtocolCorruption {");
    out.line("    opcode: h.opcode,");
    out.line("    offset: off,");
    out.line("    why: \"blob outside the stage stream\",");
    out.line("})?;");
    out.line("let mut reply = Vec::new();");
    out.line("dispatch(&mut rec, h.opcode, payload, blob, &mut reply, off)?;");
    out.open("if h.reply_slot != 0 {");
    out.line("replies.push(reply);");
    out.close("}");
    out.line("off += len;");
    out.close("}");
    out.line("Ok((rec, replies))");
    out.close("}");
    out.blank();
    out.doc("Check that a one-record stream decoded to exactly this call.");
    out.open("fn check_one(op: Opcode, payload: &[u8], blob: &[u8], got: &Decoded) {");
    out.line("let (rec, replies) = got;");
    out.line("assert_eq!(payload.len(), op.payload_size());");
    out.line("assert_eq!(rec.seen, [Seen { opcode: op, payload: payload.to_vec(), blob: blob.to_vec() }]);");
    out.open("if op.flags().contains(CallFlags::REPLY_SLOT) {");
    out.line("assert_eq!(replies, &[reply_bytes(op)]);");
    out.close("} else {");
    out.indent_in();
    out.line("assert!(replies.is_empty());");
    out.close("}");
    out.line("assert_eq!(first_divergence(op, payload, &rec.seen[0].payload), None);");
    out.close("}");
    out.blank();
}

fn sample(out: &mut Out, c: &Call) {
    out.open(format!("fn sample_{}() -> calls::{} {{", c.name, c.camel));
    if c.fields.is_empty() {
        out.line(format!("calls::{} {{}}", c.camel));
        out.close("}");
        out.blank();
        return;
    }
    out.open(format!("calls::{} {{", c.camel));
    let mut k = 1usize;
    for f in &c.fields {
        let v = match &f.kind {
            FieldKind::Pad(_) => {
                if f.rust_type().starts_with('[') {
                    format!("[0; {}]", f.size)
                } else {
                    "0".to_string()
                }
            }
            FieldKind::Data(t) => match t.array {
                None => {
                    k += 1;
                    value(&t.elem, k)
                }
                Some(n) => {
                    let vals: Vec<String> = (0..n)
                        .map(|_| {
                            k += 1;
                            value(&t.elem, k)
                        })
                        .collect();
                    format!("[{}]", vals.join(", "))
                }
            },
        };
        out.line(format!("{}: {v},", f.ident()));
    }
    out.close("}");
    out.close("}");
    out.blank();
}

fn stream(out: &mut Out, model: &Model) {
    out.doc("One record of every live call, in opcode order.");
    out.open("fn sample_stream() -> VecSink {");
    out.line("let mut enc = Encoder(VecSink::default());");
    if model.live().any(|c| c.reply_slot()) {
        out.line("let mut reply = Vec::new();");
    }
    for c in model.live() {
        let blob = format!("&sample_blob(Opcode::{})", c.camel);
        out.line(format!(
            "enc.{}({});",
            c.method(),
            call_args(c, &format!("&sample_{}()", c.name), &blob, "&mut reply")
        ));
    }
    out.line("enc.0");
    out.close("}");
    out.blank();
}

fn per_call(out: &mut Out, c: &Call) {
    out.line("#[test]");
    out.open(format!("fn roundtrip_{}() {{", c.name));
    out.line(format!("let p = sample_{}();", c.name));
    let op = format!("Opcode::{}", c.camel);
    if c.has_blob() {
        out.line(format!("let blob = sample_blob({op});"));
    }
    if c.reply_slot() {
        out.line("let mut reply = Vec::new();");
    }
    out.line("let mut enc = Encoder(VecSink::default());");
    out.line(format!(
        "enc.{}({});",
        c.method(),
        call_args(c, "&p", "&blob", "&mut reply")
    ));
    if c.reply_slot() {
        out.line("assert!(reply.is_empty());");
    }
    out.line("let got = decode(&enc.0.records, &enc.0.stage).expect(\"decodes\");");
    let blob = if c.has_blob() { "&blob" } else { "&[]" };
    out.line(format!(
        "check_one({op}, bytemuck::bytes_of(&p), {blob}, &got);"
    ));
    out.line(format!(
        "let q: calls::{} = bytemuck::pod_read_unaligned(&got.0.seen[0].payload);",
        c.camel
    ));
    out.line("assert_eq!(q, p);");
    out.line("assert_eq!(q.first_divergence(&p), None);");
    out.comment_line("The monolith path sees the same call.");
    out.line("let mut direct = Direct(Recorder::default());");
    out.line(format!(
        "direct.{}({});",
        c.method(),
        call_args(c, "&p", "&blob", "&mut reply")
    ));
    out.line("assert_eq!(direct.0.seen, got.0.seen);");
    if c.reply_slot() {
        out.line(format!("assert_eq!(reply, reply_bytes({op}));"));
    }
    out.comment_line("Opcode table.");
    out.line(format!(
        "assert_eq!(Opcode::from_u16({}), Some({op}));",
        c.opcode
    ));
    out.line(format!("assert_eq!({op}.name(), {});", lit(&c.name)));
    out.line(format!(
        "assert_eq!({op}.payload_size(), core::mem::size_of::<calls::{}>());",
        c.camel
    ));
    let mut first = true;
    for f in c.data_fields() {
        let FieldKind::Data(t) = &f.kind else {
            continue;
        };
        if first {
            out.comment_line("G4: a change to each field is named.");
            first = false;
        }
        let id = f.ident();
        let (place, name) = match t.array {
            None => (format!("m.{id}"), f.name.clone()),
            Some(n) => (
                format!("m.{id}[{}]", n - 1),
                format!("{}[{}]", f.name, n - 1),
            ),
        };
        out.open("{");
        out.line("let mut m = p;");
        out.line(format!(
            "{place} = {};",
            other(&t.elem, &place.replacen("m.", "p.", 1))
        ));
        out.line(format!(
            "assert_eq!(p.first_divergence(&m), Some({}));",
            lit(&name)
        ));
        out.line(format!(
            "assert_eq!(first_divergence({op}, bytemuck::bytes_of(&p), bytemuck::bytes_of(&m)), Some({}));",
            lit(&name)
        ));
        out.close("}");
    }
    out.close("}");
    out.blank();
}

fn robustness(out: &mut Out) {
    out.push_raw(ROBUSTNESS);
}

const ROBUSTNESS: &str = r#"struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

#[test]
fn opcode_table_is_consistent() {
    assert!(Opcode::ALL.len() <= CALL_COUNT);
    let mut names = std::collections::BTreeSet::new();
    for &op in Opcode::ALL {
        assert!((op as usize) < CALL_COUNT);
        assert_eq!(Opcode::from_u16(op as u16), Some(op));
        assert_eq!(op.payload_size() % 8, 0, "{}", op.name());
        assert!(names.insert(op.name()), "duplicate name {}", op.name());
        if op.flags().contains(CallFlags::HOST_SPAN) {
            assert!(op.flags().contains(CallFlags::HAS_BLOB));
        }
    }
    assert_eq!(Opcode::from_u16(u16::try_from(CALL_COUNT).unwrap_or(u16::MAX)), None);
    assert_ne!(CATALOGUE_HASH, 0);
    let mut last = "";
    for (name, _) in COVERAGE {
        assert!(*name > last, "COVERAGE not sorted at {name}");
        last = name;
    }
}

#[test]
fn stream_of_every_call_decodes_in_order() {
    let s = sample_stream();
    let (rec, _) = decode(&s.records, &s.stage).expect("decodes");
    let ops: Vec<Opcode> = rec.seen.iter().map(|s| s.opcode).collect();
    assert_eq!(ops, Opcode::ALL);
}

#[test]
fn truncated_streams_are_errors() {
    let s = sample_stream();
    let mut boundaries = vec![0usize];
    let mut off = 0usize;
    while off < s.records.len() {
        let (_, _, len) = wire::split_record(&s.records[off..], off).expect("valid stream");
        off += len;
        boundaries.push(off);
    }
    for cut in 0..=s.records.len() {
        let r = decode(&s.records[..cut], &s.stage);
        assert_eq!(r.is_ok(), boundaries.contains(&cut), "cut at {cut}");
    }
    // A truncated stage is an error too.
    if !s.stage.is_empty() {
        assert!(decode(&s.records, &s.stage[..s.stage.len() - 1]).is_err());
    }
}

#[test]
fn corrupt_records_are_named() {
    let mut rec = Recorder::default();
    let mut reply = Vec::new();
    for bad in [u16::try_from(CALL_COUNT).unwrap_or(u16::MAX), u16::MAX] {
        let e = dispatch(&mut rec, bad, &[], &[], &mut reply, 7).unwrap_err();
        assert_eq!((e.opcode, e.offset), (bad, 7));
        assert!(e.why.ends_with("opcode"), "{}", e.why);
    }
    for &op in Opcode::ALL {
        let n = op.payload_size();
        let e = dispatch(&mut rec, op as u16, &vec![0u8; n + 8], &[], &mut reply, 0).unwrap_err();
        assert_eq!(e.why, "payload length does not match the call's payload size");
        if n > 0 {
            let e = dispatch(&mut rec, op as u16, &vec![0u8; n - 1], &[], &mut reply, 0).unwrap_err();
            assert_eq!(e.why, "payload length does not match the call's payload size");
        }
        let r = dispatch(&mut rec, op as u16, &vec![0u8; n], &[1, 2, 3], &mut reply, 0);
        if op.flags().contains(CallFlags::HAS_BLOB) {
            assert_eq!(r, Ok(()));
        } else {
            assert_eq!(r.unwrap_err().why, "blob given to a call without has_blob");
        }
        assert_eq!(dispatch(&mut rec, op as u16, &vec![0u8; n], &[], &mut reply, 0), Ok(()));
    }
    let e = wire::split_record(&[0u8; 31], 3).unwrap_err();
    assert_eq!(e.offset, 3);
}

#[test]
fn random_bytes_are_errors() {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    for _ in 0..4000 {
        let len = (rng.next() % 512 + 1) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        assert!(decode(&bytes, &bytes).is_err());
    }
}

#[test]
fn mutated_streams_never_panic() {
    let s = sample_stream();
    let mut starts = Vec::new();
    let mut off = 0usize;
    while off < s.records.len() {
        let (_, _, len) = wire::split_record(&s.records[off..], off).expect("valid stream");
        starts.push(off);
        off += len;
    }
    let mut rng = XorShift(0x0123_4567_89AB_CDEF);
    let mut errors = 0usize;
    for round in 0..3000u32 {
        let mut bytes = s.records.clone();
        let flips = rng.next() % 4 + 1;
        for _ in 0..flips {
            // Every other round, aim at a record header.
            let i = if round % 2 == 0 {
                starts[(rng.next() % starts.len() as u64) as usize] + (rng.next() % 32) as usize
            } else {
                (rng.next() % bytes.len() as u64) as usize
            };
            bytes[i] ^= (rng.next() as u8) | 1;
        }
        if decode(&bytes, &s.stage).is_err() {
            errors += 1;
        }
    }
    assert!(errors > 0);
}
"#;
