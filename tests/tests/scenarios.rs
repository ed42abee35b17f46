//! Scenario tests, one per scenario and lane, with identical names in every
//! lane module (`monolith::clear`, `inproc::clear`, `spawn::clear`, and the
//! `native::clear` reference on the system driver).
//!
//! Each test runs the independent C client (`tests/c/scenarios.c`, linked
//! only against `libEGL.so.1`, every GL function from `eglGetProcAddress`)
//! with `LD_LIBRARY_PATH=<repo>/target/dist/lib MOBILEGL_TRANSPORT=<lane>`.
//! The spawn lane also proves it ran split: the server's own log (the file
//! named by `MOBILEGL_SERVER_LOG`) holds `transport=spawn` and a pid that is
//! neither this test process nor the client.

use mobilegl_tests::{build_client, logged_pids, run_client, Lane, SCENARIOS};
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

const TIMEOUT: Duration = Duration::from_secs(120);

fn client() -> PathBuf {
    static EXE: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    match EXE.get_or_init(build_client) {
        Ok(p) => p.clone(),
        Err(e) => panic!("{e}"),
    }
}

fn run_scenario(lane: Lane, name: &str) {
    run_scenario_on(lane, None, name)
}

/// `backend`: MOBILEGL_BACKEND for the run (None: the default, gles).
fn run_scenario_on(lane: Lane, backend: Option<&str>, name: &str) {
    let exe = client();
    let log = std::env::temp_dir().join(format!(
        "mobilegl-server-{}-{}-{}-{name}.log",
        std::process::id(),
        lane.name(),
        backend.unwrap_or("gles")
    ));
    let _ = std::fs::remove_file(&log);
    let mut env: Vec<(&str, &std::path::Path)> = vec![("MOBILEGL_SERVER_LOG", log.as_path())];
    if let Some(b) = backend {
        env.push(("MOBILEGL_BACKEND", std::path::Path::new(b)));
    }
    let run = match run_client(&exe, lane, &[name], &env, TIMEOUT) {
        Ok(r) => r,
        Err(e) => panic!("[{}] {name}: {e}", lane.name()),
    };
    let server_log = std::fs::read_to_string(&log).unwrap_or_default();
    let context = || {
        format!(
            "{}\n--- server log ({}) ---\n{}",
            run.describe(),
            log.display(),
            server_log.trim_end()
        )
    };
    assert!(
        run.passed(name),
        "[{}] scenario `{name}` did not print `PASS {name}`\n{}",
        lane.name(),
        context()
    );
    assert!(
        run.status.is_some_and(|s| s.success()),
        "[{}] scenario `{name}` passed but the client did not exit cleanly\n{}",
        lane.name(),
        context()
    );
    if lane == Lane::Spawn {
        assert!(
            server_log.contains("transport=spawn"),
            "[spawn] {name}: the server log does not say `transport=spawn`, so the run was \
             not proven split\n{}",
            context()
        );
        let me = std::process::id();
        let pids = logged_pids(&server_log);
        assert!(
            pids.iter().any(|&p| p != me && p != run.pid),
            "[spawn] {name}: the server log names no pid other than the test ({me}) and the \
             client ({}): {pids:?}\n{}",
            run.pid,
            context()
        );
    }
    let _ = std::fs::remove_file(&log);
}

/// One module per lane, one `#[test]` per scenario, identical names.
macro_rules! lane {
    ($module:ident, $lane:expr, [$($name:ident),* $(,)?]) => {
        mod $module {
            $(
                #[test]
                fn $name() {
                    super::run_scenario($lane, stringify!($name));
                }
            )*
        }
    };
}

/// The same scenarios with `MOBILEGL_BACKEND=vulkan` (lavapipe on CI).
macro_rules! vulkan_lane {
    ($module:ident, $lane:expr, [$($name:ident),* $(,)?]) => {
        mod $module {
            $(
                #[test]
                fn $name() {
                    super::run_scenario_on($lane, Some("vulkan"), stringify!($name));
                }
            )*
        }
    };
}

macro_rules! all_lanes {
    ($($name:ident),* $(,)?) => {
        lane!(monolith, mobilegl_tests::Lane::Monolith, [$($name),*]);
        lane!(inproc, mobilegl_tests::Lane::Inproc, [$($name),*]);
        lane!(spawn, mobilegl_tests::Lane::Spawn, [$($name),*]);
        lane!(native, mobilegl_tests::Lane::Native, [$($name),*]);
        vulkan_lane!(vulkan_monolith, mobilegl_tests::Lane::Monolith, [$($name),*]);
        vulkan_lane!(vulkan_inproc, mobilegl_tests::Lane::Inproc, [$($name),*]);
        vulkan_lane!(vulkan_spawn, mobilegl_tests::Lane::Spawn, [$($name),*]);

        /// The macro's list, the library's list and the client's list agree.
        #[test]
        fn scenario_list_matches_client() {
            let here = [$(stringify!($name)),*];
            assert_eq!(&here[..], SCENARIOS, "tests/tests/scenarios.rs vs mobilegl_tests::SCENARIOS");
            let out = std::process::Command::new(client())
                .arg("--list")
                .output()
                .expect("run the scenario client with --list");
            let listed: Vec<String> = String::from_utf8_lossy(&out.stdout)
                .lines()
                .map(str::to_string)
                .collect();
            assert_eq!(listed, SCENARIOS, "`scenarios --list` vs mobilegl_tests::SCENARIOS");
        }
    };
}

all_lanes!(
    clear,
    indexed_draw,
    additive_blend,
    texture_unpack_row_length,
    ubo_std140,
    buffer_subdata_order,
    scissor,
    instanced_divisor,
    readpixels_pack_row_length,
    map_buffer_range_read,
    error_bad_enable,
    error_bind_ungenerated_buffer,
    error_bad_draw_mode,
    version,
    fence,
    persistent_map,
    multi_draw,
    ubo_ranges,
    vao_switch,
    egl_fence_sync,
    egl_es3_context,
);

/// Liveness, spawn lane only (issue: transports fault-tolerant): the client
/// SIGKILLs its server mid-frame and must survive with a prompt reset
/// status; a SIGSTOPped server is slow, not dead.
mod spawn_liveness {
    #[test]
    fn server_killed() {
        super::run_scenario(mobilegl_tests::Lane::Spawn, "server_killed");
    }

    #[test]
    fn server_stopped() {
        super::run_scenario(mobilegl_tests::Lane::Spawn, "server_stopped");
    }
}

/// Counters (MOBILEGL_STATS=1): in steady Minecraft-shaped frames the only
/// blocking round trip is the glFinish that ends each frame.
mod steady_stats {
    use mobilegl_tests::{build_client, run_client, Lane};
    use std::path::Path;

    fn check(lane: Lane) {
        let exe = build_client().expect("build the scenario client");
        let env = [
            ("MOBILEGL_STATS", Path::new("1")),
            ("MOBILEGL_LOG", Path::new("mobilegl::stats=info")),
        ];
        let run = run_client(&exe, lane, &["steady_frames"], &env, super::TIMEOUT)
            .expect("run the client");
        assert!(
            run.passed("steady_frames"),
            "[{}] steady_frames failed\n{}",
            lane.name(),
            run.describe()
        );
        let frames: Vec<&str> = run
            .stderr
            .lines()
            .filter(|l| l.contains("blocking_round_trips="))
            .collect();
        assert!(
            frames.len() >= 12,
            "[{}] expected >= 12 stats lines, got {}\n{}",
            lane.name(),
            frames.len(),
            run.describe()
        );
        // Frames 0-1 warm up (shader compile, first uploads); 2.. are steady.
        for line in &frames[2..12] {
            assert!(
                line.contains("blocking_round_trips=1 [finish=1]"),
                "[{}] a steady frame blocked on more than its glFinish: {line}",
                lane.name()
            );
        }
    }

    #[test]
    fn monolith() {
        check(Lane::Monolith);
    }
    #[test]
    fn inproc() {
        check(Lane::Inproc);
    }
    #[test]
    fn spawn() {
        check(Lane::Spawn);
    }
}

/// MOBILEGL_PIPE_VERIFY=1: every scenario's draws re-derive their state from
/// the tracker and compare it with what the records described; no
/// divergence may be reported.
mod pipe_verify {
    use mobilegl_tests::{build_client, run_client, Lane};
    use std::path::Path;

    fn check(lane: Lane) {
        let exe = build_client().expect("build the scenario client");
        let env = [("MOBILEGL_PIPE_VERIFY", Path::new("1"))];
        let run = run_client(&exe, lane, &[], &env, super::TIMEOUT).expect("run the client");
        assert!(
            run.stdout.contains(&format!(
                "0 of {} scenarios failed",
                mobilegl_tests::SCENARIOS.len()
            )),
            "[{}] scenarios failed under verify\n{}",
            lane.name(),
            run.describe()
        );
        assert!(
            !run.stderr
                .contains("MOBILEGL_PIPE_VERIFY: state divergence"),
            "[{}] verifier reported a divergence\n{}",
            lane.name(),
            run.describe()
        );
    }

    #[test]
    fn monolith() {
        check(Lane::Monolith);
    }
    #[test]
    fn inproc() {
        check(Lane::Inproc);
    }
    #[test]
    fn spawn() {
        check(Lane::Spawn);
    }
}

/// Reply-slot calls through their GL entry points (occlusion and timer
/// queries, GL_TIMESTAMP, glGetTexImage), in every lane of both backends
/// and natively.
mod reply_calls {
    use mobilegl_tests::Lane;

    macro_rules! lanes {
        ($($name:ident),*) => {
            $(
                mod $name {
                    use super::Lane;
                    #[test]
                    fn monolith() {
                        super::super::run_scenario(Lane::Monolith, stringify!($name));
                    }
                    #[test]
                    fn inproc() {
                        super::super::run_scenario(Lane::Inproc, stringify!($name));
                    }
                    #[test]
                    fn spawn() {
                        super::super::run_scenario(Lane::Spawn, stringify!($name));
                    }
                    #[test]
                    fn native() {
                        super::super::run_scenario(Lane::Native, stringify!($name));
                    }
                    #[test]
                    fn vulkan_monolith() {
                        super::super::run_scenario_on(Lane::Monolith, Some("vulkan"), stringify!($name));
                    }
                    #[test]
                    fn vulkan_inproc() {
                        super::super::run_scenario_on(Lane::Inproc, Some("vulkan"), stringify!($name));
                    }
                    #[test]
                    fn vulkan_spawn() {
                        super::super::run_scenario_on(Lane::Spawn, Some("vulkan"), stringify!($name));
                    }
                }
            )*
        };
    }

    lanes!(
        occlusion_query,
        get_tex_image,
        timer_query,
        multisample_mask,
        rect_texture,
        draw_indirect_restart,
        compute_image_ssbo
    );
}
