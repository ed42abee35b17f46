//! `mobilegl-server`: the spawned backend process of the `spawn` transport.
//!
//! Usage: `mobilegl-server --fd N` (N: the inherited `SOCK_SEQPACKET`
//! control socket). Logs go to stderr (filter: `MOBILEGL_LOG`, default
//! `info`) and, when `MOBILEGL_SERVER_LOG` names a file, are appended there
//! too. The first line names the pid, `transport=spawn` and the backend: the
//! proof that a spawn lane really ran split.

use std::fs::OpenOptions;
use std::process::ExitCode;
use std::sync::Mutex;

use mgpipe::Applier;
use tracing_subscriber::filter::filter_fn;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{fmt, EnvFilter, Layer};

fn filter() -> EnvFilter {
    EnvFilter::try_from_env("MOBILEGL_LOG").unwrap_or_else(|_| EnvFilter::new("info"))
}

/// stderr, plus the MOBILEGL_SERVER_LOG file when set. Returns a note about
/// the file when it could not be opened (logged once tracing is up).
fn init_logging() -> Option<String> {
    // While a client is attached, lines travel to it through the EVENT ring
    // (on_log) and stderr stays quiet, so nothing is printed twice.
    let stderr = fmt::layer()
        .with_writer(std::io::stderr)
        .with_filter(filter())
        .with_filter(filter_fn(|_| !remote::log_forwarding()));
    let forward = remote::LogForwardLayer.with_filter(filter());
    let (file, note) = match std::env::var_os("MOBILEGL_SERVER_LOG").filter(|p| !p.is_empty()) {
        Some(path) => match OpenOptions::new().create(true).append(true).open(&path) {
            Ok(f) => (
                Some(
                    fmt::layer()
                        .with_writer(Mutex::new(f))
                        .with_ansi(false)
                        .with_filter(filter()),
                ),
                None,
            ),
            Err(e) => (
                None,
                Some(format!(
                    "cannot open MOBILEGL_SERVER_LOG {}: {e}",
                    path.to_string_lossy()
                )),
            ),
        },
        None => (None, None),
    };
    let _ = tracing_subscriber::registry()
        .with(stderr)
        .with(forward)
        .with(file)
        .try_init();
    note
}

fn parse_fd() -> Result<i32, String> {
    let mut args = std::env::args().skip(1);
    let mut fd = None;
    while let Some(a) = args.next() {
        match a.as_str() {
            "--fd" => {
                let v = args.next().ok_or("--fd needs a number")?;
                fd = Some(
                    v.parse::<i32>()
                        .map_err(|_| format!("--fd {v:?} is not a number"))?,
                );
            }
            "--help" | "-h" => return Err("usage: mobilegl-server --fd N".into()),
            other => {
                return Err(format!(
                    "unknown argument {other:?} (usage: mobilegl-server --fd N)"
                ))
            }
        }
    }
    fd.ok_or_else(|| "usage: mobilegl-server --fd N".into())
}

fn make_backend(kind: &str) -> Result<Box<dyn Applier>, String> {
    match kind {
        "gles" => match backend_gles::GlesBackend::open_default() {
            Ok(b) => Ok(Box::new(b)),
            Err(e) => Err(format!("GLES backend: {e}")),
        },
        "vulkan" => match backend_vulkan::VulkanBackend::open_default() {
            Ok(b) => Ok(Box::new(b)),
            Err(e) => Err(format!("Vulkan backend: {e}")),
        },
        other => Err(format!(
            "unknown backend kind {other:?} (valid: gles, vulkan)"
        )),
    }
}

fn main() -> ExitCode {
    // First, before any thread or driver allocates.
    let alloc = remote::server::configure_allocator();
    let note = init_logging();
    if let Some(n) = note {
        tracing::warn!("{n}");
    }
    match alloc {
        Ok(a) => tracing::debug!(allocator = ?a, "allocator"),
        Err(e) => {
            tracing::error!("mobilegl-server pid={}: {e}", std::process::id());
            return ExitCode::from(2);
        }
    }
    let fd = match parse_fd() {
        Ok(fd) => fd,
        Err(e) => {
            tracing::error!("mobilegl-server pid={}: {e}", std::process::id());
            return ExitCode::from(2);
        }
    };
    let fd = match remote::server::adopt_fd(fd) {
        Ok(fd) => fd,
        Err(e) => {
            tracing::error!("mobilegl-server pid={}: {e}", std::process::id());
            return ExitCode::from(2);
        }
    };
    // run_spawned_server logs `mobilegl-server pid=<pid> transport=spawn
    // backend=<kind>` as soon as Hello names the backend.
    match remote::server::run_spawned_server(fd, make_backend) {
        // Done serving (Goodbye or the client hung up): skip the driver's
        // exit-time teardown, nobody is waiting for it.
        Ok(()) => remote::server::exit_immediately(0),
        Err(e) => {
            tracing::error!("mobilegl-server pid={} stopped: {e}", std::process::id());
            ExitCode::FAILURE
        }
    }
}
