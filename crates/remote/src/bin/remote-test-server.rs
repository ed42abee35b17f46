//! Test child for the `spawn` lane of the conformance suite: serves one
//! client with the echo backend (`remote::testing::EchoBackend`).
//!
//! Usage: `remote-test-server --fd N [--expect-hash H] [--refuse-backend]
//! [--record PATH]` (`H` in hex with 0x or decimal; `--refuse-backend` makes
//! the backend constructor fail, to exercise `BackendUnavailable`;
//! `--record PATH` wraps the backend in `remote::testing::Recorder`, which
//! writes one line per call to PATH: the recorder goldens' spawn lane).

use remote::server::{adopt_fd, run_spawned_server_with, ServerOptions};
use remote::testing::{EchoBackend, RecordLog, Recorder};

fn parse_u64(s: &str) -> Option<u64> {
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

fn main() {
    let mut fd = None;
    let mut opts = ServerOptions::default();
    let mut refuse_backend = false;
    let mut record: Option<std::path::PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--fd" => fd = args.next().and_then(|v| v.parse::<i32>().ok()),
            "--expect-hash" => match args.next().as_deref().and_then(parse_u64) {
                Some(h) => opts.expected_catalogue_hash = h,
                None => {
                    eprintln!("remote-test-server: --expect-hash needs a number");
                    std::process::exit(2);
                }
            },
            "--refuse-backend" => refuse_backend = true,
            "--record" => match args.next() {
                Some(p) => record = Some(p.into()),
                None => {
                    eprintln!("remote-test-server: --record needs a path");
                    std::process::exit(2);
                }
            },
            other => {
                eprintln!("remote-test-server: unknown argument {other:?}");
                std::process::exit(2);
            }
        }
    }
    let Some(fd) = fd else {
        eprintln!("remote-test-server: --fd N is required");
        std::process::exit(2);
    };
    let fd = match adopt_fd(fd) {
        Ok(fd) => fd,
        Err(e) => {
            eprintln!("remote-test-server: {e}");
            std::process::exit(2);
        }
    };
    let r = run_spawned_server_with(fd, opts, |_kind| {
        if refuse_backend {
            Err("echo backend refused on request (--refuse-backend)".into())
        } else if let Some(path) = &record {
            let log = RecordLog::to_file(path)
                .map_err(|e| format!("--record {}: {e}", path.display()))?;
            Ok(Box::new(Recorder::with_log(EchoBackend::new(), log)))
        } else {
            Ok(EchoBackend::boxed())
        }
    });
    if let Err(e) = r {
        eprintln!("remote-test-server: {e}");
        std::process::exit(1);
    }
}
