//! Hand-written checks of the generated API's shape (docs/MGPIPE.md).

use mgpipe::*;

#[derive(Default)]
struct Bytes {
    records: Vec<(Opcode, Vec<u8>, Vec<u8>)>,
}

impl RecordSink for Bytes {
    fn record(&mut self, opcode: Opcode, payload: &[u8], blob: &[u8]) {
        self.records.push((opcode, payload.to_vec(), blob.to_vec()));
    }
    fn record_sync(&mut self, opcode: Opcode, payload: &[u8], blob: &[u8], reply: &mut Vec<u8>) {
        self.record(opcode, payload, blob);
        reply.clear();
        reply.push(42);
    }
}

fn is_applier<A: Applier + ?Sized>() {}
fn is_pipe<P: Pipe + ?Sized>() {}

#[test]
fn traits_are_object_safe_and_forward() {
    is_applier::<dyn Applier>();
    is_applier::<Box<dyn Applier>>();
    is_applier::<&mut dyn Applier>();
    is_pipe::<Box<dyn Pipe>>();
    is_pipe::<&mut dyn Pipe>();

    let mut sink = Bytes::default();
    {
        let mut pipe: Box<dyn Pipe + '_> = Box::new(Encoder(&mut sink));
        pipe.clear(&calls::Clear {
            buffers: consts::CLEAR_COLOR_ALL,
            ..Default::default()
        });
        pipe.draw(
            &calls::Draw {
                count: 3,
                ..Default::default()
            },
            &[1, 2, 3],
        );
        let mut reply = Vec::new();
        pipe.finish(&calls::Finish {}, &mut reply);
        assert_eq!(reply, [42]);
    }
    let ops: Vec<Opcode> = sink.records.iter().map(|r| r.0).collect();
    assert_eq!(ops, [Opcode::Clear, Opcode::Draw, Opcode::Finish]);
    assert_eq!(sink.records[1].2, [1, 2, 3]);
    assert_eq!(sink.records[1].1.len(), Opcode::Draw.payload_size());
}

#[test]
fn opcode_metadata_matches_the_catalogue() {
    assert_eq!(Opcode::GetCaps as u16, 0);
    assert_eq!(Opcode::from_u16(0), Some(Opcode::GetCaps));
    assert_eq!(Opcode::Draw.name(), "draw");
    assert_eq!(Opcode::Draw.class(), CallClass::CtxVerb);
    assert!(Opcode::Draw
        .flags()
        .contains(CallFlags::HAS_BLOB | CallFlags::HOST_SPAN));
    assert!(Opcode::ReadPixels.flags().contains(CallFlags::REPLY_SLOT));
    assert!(!Opcode::Clear.flags().contains(CallFlags::HAS_BLOB));
    assert_eq!(Opcode::ALL.len(), CALL_COUNT);
    // The caps call mask has 128 bits.
    const { assert!(CALL_COUNT <= 128) };
    // `type` is a raw identifier in Rust, `type` on the wire.
    let a = calls::ReadPixels {
        r#type: 1,
        ..Default::default()
    };
    let b = calls::ReadPixels {
        r#type: 2,
        ..Default::default()
    };
    assert_eq!(a.first_divergence(&b), Some("type"));
    let a = calls::SetVertexAttribDefaults::default();
    let mut b = a;
    b.values[63] = 7;
    assert_eq!(a.first_divergence(&b), Some("values[63]"));
    assert_eq!(
        first_divergence(Opcode::SetVertexAttribDefaults, bytemuck::bytes_of(&a), &[]),
        Some("<payload length>")
    );
}

#[test]
fn coverage_map_is_sorted_and_known() {
    assert!(COVERAGE.windows(2).all(|w| w[0].0 < w[1].0));
    let find = |n: &str| COVERAGE.iter().find(|e| e.0 == n).map(|e| e.1);
    assert!(find("glClear").is_some_and(|ops| ops.contains(&Opcode::Clear)));
    assert!(find("glReadPixels").is_some_and(|ops| ops.contains(&Opcode::ReadPixels)));
    assert!(find("glGetError").is_some());
}
