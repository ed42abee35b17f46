//! `mobilegl-server` as the spawn lane's child: the first log line proves
//! the split ran; an unbuilt backend is a named refusal.

use std::path::Path;

use remote::{connect, LinkConfig, RefuseReason, TransportError, TransportKind};

const SERVER: &str = env!("CARGO_BIN_EXE_mobilegl-server");

fn cfg(kind: &str) -> LinkConfig {
    LinkConfig {
        cmd_bytes: 64 << 10,
        stage_bytes: 1 << 20,
        reply_bytes: 1 << 20,
        event_bytes: 16 << 10,
        backend_kind: Some(kind.into()),
        server_args: Vec::new(),
    }
}

fn no_factory() -> remote::BackendFactory {
    std::sync::Arc::new(|| Err("spawn makes its backend in the child".to_string()))
}

#[test]
fn server_logs_pid_and_refuses_or_serves_by_name() {
    let log = std::env::temp_dir().join(format!("mgl-server-{}.log", std::process::id()));
    let _ = std::fs::remove_file(&log);
    // The only test in this binary: no other thread reads the environment.
    std::env::set_var("MOBILEGL_SERVER_LOG", &log);

    // vulkan: not built yet, refused by name.
    match connect(
        TransportKind::Spawn,
        &cfg("vulkan"),
        no_factory(),
        Some(Path::new(SERVER)),
    ) {
        Err(TransportError::Refused {
            reason: RefuseReason::BackendUnavailable,
            detail,
        }) => {
            assert!(detail.contains("not built yet"), "{detail}")
        }
        Err(e) => panic!("expected Refused(BackendUnavailable), got {e}"),
        Ok(_) => panic!("vulkan is not built yet"),
    }
    let text = std::fs::read_to_string(&log).expect("server log written");
    let first = text.lines().next().unwrap_or_default();
    assert!(
        first.contains("mobilegl-server pid=")
            && first.contains("transport=spawn")
            && first.contains("backend=vulkan"),
        "first log line: {first:?}"
    );

    // gles: serves when the machine has EGL/GLES, else a named refusal.
    match connect(
        TransportKind::Spawn,
        &cfg("gles"),
        no_factory(),
        Some(Path::new(SERVER)),
    ) {
        Ok(mut t) => {
            assert_eq!(t.kind(), TransportKind::Spawn);
            let mut r = Vec::new();
            t.finish(&mgpipe::calls::Finish::default(), &mut r);
            assert!(t.lost().is_none(), "{:?}", t.lost());
            eprintln!(
                "gles server caps renderer: {}",
                mgpipe::Caps::get_str(&t.caps().driver_renderer)
            );
        }
        Err(TransportError::Refused {
            reason: RefuseReason::BackendUnavailable,
            detail,
        }) => {
            eprintln!("note: no GLES on this machine: {detail}");
        }
        Err(e) => panic!("gles: expected a link or a named refusal, got {e}"),
    }
    std::env::remove_var("MOBILEGL_SERVER_LOG");
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(text.contains("backend=gles"), "{text}");
    let _ = std::fs::remove_file(&log);
}
