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
        hide_from_server: Vec::new(),
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

    // An unknown backend kind is refused by name before anything is spawned.
    match connect(
        TransportKind::Spawn,
        &cfg("metal"),
        no_factory(),
        Some(Path::new(SERVER)),
    ) {
        Err(TransportError::UnknownBackend(v)) => assert_eq!(v, "metal"),
        Err(e) => panic!("expected UnknownBackend, got {e}"),
        Ok(_) => panic!("an unknown backend kind was served"),
    }

    // gles and vulkan: serve when the machine has the driver, else a named
    // refusal.
    for kind in ["gles", "vulkan"] {
        match connect(
            TransportKind::Spawn,
            &cfg(kind),
            no_factory(),
            Some(Path::new(SERVER)),
        ) {
            Ok(mut t) => {
                assert_eq!(t.kind(), TransportKind::Spawn);
                let mut r = Vec::new();
                t.finish(&mgpipe::calls::Finish::default(), &mut r);
                assert!(t.lost().is_none(), "{:?}", t.lost());
                eprintln!(
                    "{kind} server caps renderer: {}",
                    mgpipe::Caps::get_str(&t.caps().driver_renderer)
                );
            }
            Err(TransportError::Refused {
                reason: RefuseReason::BackendUnavailable,
                detail,
            }) => {
                eprintln!("note: no {kind} driver on this machine: {detail}");
            }
            Err(e) => panic!("{kind}: expected a link or a named refusal, got {e}"),
        }
    }
    std::env::remove_var("MOBILEGL_SERVER_LOG");
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        text.contains("backend=gles") && text.contains("backend=vulkan"),
        "{text}"
    );
    let _ = std::fs::remove_file(&log);
}
