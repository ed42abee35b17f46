//! `cargo xtask <task>`: the project's task runner.
//!
//! | task | what |
//! |---|---|
//! | `codegen [--check]` | regenerate (or check) generated code |
//! | `dist` | build `target/dist/{lib,bin}` |
//! | `piglit --lane L [...]` / `piglit --report` | conformance runs, see `piglit.rs` |
//! | `test` | the full CI test: codegen check, dist, workspace tests, piglit in every lane |
//! | `demo` | build dist and render a picture through MobileGL on llvmpipe |

mod bench;
mod codegen;
mod dist;
mod piglit;

use mobilegl_tests::Lane;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const USAGE: &str = "\
usage: cargo xtask <task> [args]

tasks:
  codegen [--check]         regenerate generated code / fail on drift
  dist                      build target/dist/lib/{libmobilegl.so,libGL.so.1,libEGL.so.1}
                            and target/dist/bin/mobilegl-server
  piglit --lane <monolith|inproc|spawn|native> [--backend gles|vulkan] [--update]
         [--jobs N] [--filter SUBSTR] [--timeout SECS]
                            run the public piglit list against the committed baseline
  piglit --report           regenerate docs/CONFORMANCE.md from target/piglit/*.tsv
  bench [see `cargo xtask bench --help`]
  test [--backend B (default: gles and vulkan)] [--jobs N] [--no-piglit]
                            codegen --check, dist, workspace tests, piglit in
                            the monolith, inproc and spawn lanes
  demo [--lane L] [--out PATH]
                            build dist and render target/demo.ppm through MobileGL";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((task, rest)) = args.split_first() else {
        eprintln!("{USAGE}");
        std::process::exit(2);
    };
    let result = match task.as_str() {
        "codegen" => codegen::run(rest),
        "dist" => dist::run(rest),
        "piglit" => piglit::run(rest),
        "test" => test(rest),
        "demo" => demo(rest),
        "bench" => bench::run(rest),
        "-h" | "--help" | "help" => {
            println!("{USAGE}");
            Ok(())
        }
        other => Err(format!("unknown task `{other}`\n{USAGE}")),
    };
    if let Err(e) = result {
        eprintln!("xtask {task}: {e}");
        std::process::exit(1);
    }
}

fn cargo() -> Command {
    let mut c = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    c.current_dir(mobilegl_tests::workspace_root());
    c
}

fn has_nextest() -> bool {
    cargo()
        .args(["nextest", "--version"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn step(name: &str, f: impl FnOnce() -> Result<(), String>) -> Result<Duration, String> {
    eprintln!("==> {name}");
    let t = Instant::now();
    let r = f();
    let d = t.elapsed();
    match r {
        Ok(()) => {
            eprintln!("==> {name}: ok ({:.1}s)", d.as_secs_f64());
            Ok(d)
        }
        Err(e) => Err(format!("{name}: {e}")),
    }
}

/// The README's test command.
fn test(args: &[String]) -> Result<(), String> {
    // Both backends by default: every lane of each runs against its own
    // committed expectations.
    let mut backends = vec!["gles".to_string(), "vulkan".to_string()];
    let mut jobs = None;
    let mut piglit_lanes = true;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--backend" => backends = vec![it.next().cloned().ok_or("--backend needs a value")?],
            "--jobs" | "-j" => {
                jobs = Some(
                    it.next()
                        .and_then(|v| v.parse().ok())
                        .ok_or("--jobs needs a number")?,
                )
            }
            "--no-piglit" => piglit_lanes = false,
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    let start = Instant::now();
    step("codegen --check", || codegen::run(&["--check".to_string()]))?;
    step("fmt --check", || {
        let st = cargo()
            .args(["fmt", "--all", "--check"])
            .status()
            .map_err(|e| format!("run cargo fmt: {e}"))?;
        if st.success() {
            Ok(())
        } else {
            Err(format!("{st}: run `cargo fmt --all`"))
        }
    })?;
    step("clippy", || {
        let st = cargo()
            .args([
                "clippy",
                "--workspace",
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ])
            .status()
            .map_err(|e| format!("run cargo clippy: {e}"))?;
        if st.success() {
            Ok(())
        } else {
            Err(format!("{st}"))
        }
    })?;
    step("dist", || dist::run(&[]))?;
    step("workspace tests", || {
        let mut c = cargo();
        if has_nextest() {
            c.args(["nextest", "run", "--workspace", "--no-fail-fast"]);
        } else {
            c.args(["test", "--workspace", "--no-fail-fast"]);
        }
        let st = c.status().map_err(|e| format!("run cargo: {e}"))?;
        if st.success() {
            Ok(())
        } else {
            Err(format!("{st}"))
        }
    })?;
    let mut failed = Vec::new();
    if piglit_lanes {
        // Every lane runs even if an earlier one has unexpected results.
        for backend in &backends {
            for lane in [Lane::Monolith, Lane::Inproc, Lane::Spawn] {
                let name = format!("piglit --lane {} --backend {backend}", lane.name());
                if let Err(e) = step(&name, || piglit::run_lane_args(lane, backend, jobs)) {
                    eprintln!("{e}");
                    failed.push(format!("{backend}-{}", lane.name()));
                }
            }
        }
    }
    eprintln!("==> total {:.0}s", start.elapsed().as_secs_f64());
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("piglit failed in lanes: {}", failed.join(", ")))
    }
}

/// The README's demo command: build dist, then render a picture with the
/// scenario client through MobileGL (default lane inproc) on the system's
/// llvmpipe, write it as PPM and print a few pixels.
fn demo(args: &[String]) -> Result<(), String> {
    let mut lane = Lane::Inproc;
    let mut out = mobilegl_tests::target_dir().join("demo.ppm");
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--lane" => {
                let v = it.next().ok_or("--lane needs a value")?;
                lane = Lane::parse(v).ok_or_else(|| format!("unknown lane `{v}`"))?;
            }
            "--out" => out = it.next().ok_or("--out needs a path")?.into(),
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    if lane != Lane::Native {
        step("dist", || dist::run(&[]))?;
    }
    let exe = mobilegl_tests::build_client()?;
    let out = std::path::absolute(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    let out_str = out.display().to_string();
    let log = mobilegl_tests::target_dir().join("demo-server.log");
    eprintln!(
        "==> running the scenario client's demo through MobileGL (MOBILEGL_TRANSPORT={})",
        lane.name()
    );
    let run = mobilegl_tests::run_client(
        &exe,
        lane,
        &["demo", &out_str],
        &[("MOBILEGL_SERVER_LOG", Path::new(&log))],
        Duration::from_secs(120),
    )?;
    print!("{}", run.stdout);
    eprint!("{}", run.stderr);
    if run.passed("demo") && run.status.is_some_and(|s| s.success()) {
        println!("demo ok: {out_str}");
        Ok(())
    } else {
        Err(format!("the demo failed\n{}", run.describe()))
    }
}
