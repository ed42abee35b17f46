//! Recorder goldens: the fixed call sequence `remote::testing::demo_frame`
//! (a small Minecraft-shaped frame) goes through every transport to a
//! `Recorder<EchoBackend>`, which writes one normalised line per call the
//! backend received. The text must be byte-identical in every lane and
//! equal to `tests/golden/recorder.txt`.
//!
//! `MOBILEGL_BLESS=1` rewrites the golden from the lane that runs and then
//! fails that lane, so a rewriting run is never mistaken for a pass; rerun
//! without it.

use std::path::{Path, PathBuf};

use mgpipe::{calls, Handle, Opcode};
use remote::testing::{demo_frame, describe_call, EchoBackend, HandleNames, RecordLog, Recorder};
use remote::{connect, LinkConfig, Transport, TransportKind};

const SERVER: &str = env!("CARGO_BIN_EXE_remote-test-server");

fn golden_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/recorder.txt")
}

fn cfg() -> LinkConfig {
    LinkConfig {
        cmd_bytes: 64 << 10,
        stage_bytes: 1 << 20,
        reply_bytes: 1 << 20,
        event_bytes: 16 << 10,
        backend_kind: Some("gles".into()),
        server_args: Vec::new(),
        hide_from_server: Vec::new(),
    }
}

fn drive(mut t: Box<dyn Transport>) {
    demo_frame(&mut *t);
    t.flush();
    assert!(t.lost().is_none(), "link lost: {:?}", t.lost());
    // Dropping the transport drains the server (joins the thread / reaps
    // the child), so every record has been recorded afterwards.
    drop(t);
}

/// Record `demo_frame` through `kind`.
fn record(kind: TransportKind) -> String {
    match kind {
        TransportKind::Monolith | TransportKind::Inproc => {
            let log = RecordLog::new();
            let t = connect(kind, &cfg(), Recorder::echo_factory(log.clone()), None)
                .unwrap_or_else(|e| panic!("connect {kind}: {e}"));
            drive(t);
            log.text()
        }
        TransportKind::Spawn => {
            let path = Path::new(env!("CARGO_TARGET_TMPDIR"))
                .join(format!("recorder-spawn-{}.txt", std::process::id()));
            let mut c = cfg();
            c.server_args = vec!["--record".into(), path.display().to_string()];
            let t = connect(kind, &c, EchoBackend::factory(), Some(Path::new(SERVER)))
                .unwrap_or_else(|e| panic!("connect {kind}: {e}"));
            assert!(t.server_pid().is_some(), "spawn lane without a child");
            drive(t);
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
            let _ = std::fs::remove_file(&path);
            text
        }
    }
}

fn check(kind: TransportKind) {
    let actual = record(kind);
    assert!(
        actual.lines().count() > 60,
        "{kind}: only {} records",
        actual.lines().count()
    );
    let golden = golden_path();
    if std::env::var_os("MOBILEGL_BLESS").is_some_and(|v| v == "1") {
        if std::fs::read_to_string(&golden).ok().as_deref() != Some(actual.as_str()) {
            std::fs::create_dir_all(golden.parent().expect("a parent")).expect("golden dir");
            std::fs::write(&golden, &actual).expect("writing the golden");
        }
        panic!(
            "{kind}: MOBILEGL_BLESS=1 rewrote {}; rerun without it",
            golden.display()
        );
    }
    let expected = std::fs::read_to_string(&golden).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (MOBILEGL_BLESS=1 cargo test -p remote --test recorder writes it)",
            golden.display()
        )
    });
    if actual != expected {
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("recorder.{kind}.txt"));
        let _ = std::fs::write(&out, &actual);
        let (a, e): (Vec<&str>, Vec<&str>) = (actual.lines().collect(), expected.lines().collect());
        let i = a
            .iter()
            .zip(&e)
            .position(|(x, y)| x != y)
            .unwrap_or(a.len().min(e.len()));
        panic!(
            "{kind}: recorded calls differ from {} at line {}:\n  golden: {}\n  actual: {}\n\
             ({} vs {} lines; the whole recording is in {})",
            golden.display(),
            i + 1,
            e.get(i).unwrap_or(&"<end>"),
            a.get(i).unwrap_or(&"<end>"),
            e.len(),
            a.len(),
            out.display()
        );
    }
}

#[test]
fn monolith_matches_golden() {
    check(TransportKind::Monolith);
}

#[test]
fn inproc_matches_golden() {
    check(TransportKind::Inproc);
}

#[test]
fn spawn_matches_golden() {
    check(TransportKind::Spawn);
}

/// Negative controls: the recorder line goes red on one changed field, on
/// one changed blob byte, on non-zero padding, and names handles by kind
/// and first appearance.
#[test]
fn one_change_changes_the_line() {
    let mut names = HandleNames::default();
    let d = calls::Draw {
        mode: 4,
        index_size: 2,
        count: 12,
        instance_count: 1,
        ..Default::default()
    };
    let blob = [1u8, 2, 3, 4];
    let base = describe_call(
        Opcode::Draw,
        bytemuck::bytes_of(&d),
        Some(&blob),
        None,
        &mut names,
    );
    assert!(
        base.starts_with("draw mode=4 index_size=2 first=0 count=12 "),
        "{base}"
    );
    let d2 = calls::Draw { count: 13, ..d };
    let l2 = describe_call(
        Opcode::Draw,
        bytemuck::bytes_of(&d2),
        Some(&blob),
        None,
        &mut names,
    );
    assert_ne!(base, l2);
    assert!(l2.contains(" count=13 "), "{l2}");
    let l3 = describe_call(
        Opcode::Draw,
        bytemuck::bytes_of(&d),
        Some(&[1, 2, 3, 5]),
        None,
        &mut names,
    );
    assert_ne!(base, l3);
    assert_eq!(base.split(" blob=").next(), l3.split(" blob=").next());

    let mut p = bytemuck::bytes_of(&d).to_vec();
    let off = std::mem::offset_of!(calls::Draw, _pad0);
    p[off] = 0xff;
    let l4 = describe_call(Opcode::Draw, &p, Some(&blob), None, &mut names);
    assert!(
        l4.contains(" _pad0=!0x"),
        "non-zero padding must show: {l4}"
    );

    let h = |slot| Handle::new(slot, 1);
    let a = describe_call(
        Opcode::BufferCopy,
        bytemuck::bytes_of(&calls::BufferCopy {
            src: h(9),
            dst: h(3),
            size: 4,
            ..Default::default()
        }),
        None,
        None,
        &mut names,
    );
    assert!(a.contains("src=resource#1 dst=resource#2"), "{a}");
    let b = describe_call(
        Opcode::BufferCopy,
        bytemuck::bytes_of(&calls::BufferCopy {
            src: h(3),
            dst: Handle::NULL,
            size: 4,
            ..Default::default()
        }),
        None,
        None,
        &mut names,
    );
    assert!(b.contains("src=resource#2 dst=null"), "{b}");
}
