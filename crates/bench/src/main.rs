//! `mobilegl-bench`: a GL benchmark client that links no GL.
//!
//! It `dlopen`s one EGL provider (`--egl`: the system `libEGL.so.1` for the
//! native driver, or `target/dist/lib/libEGL.so.1` for MobileGL), creates a
//! surfaceless desktop GL 3.3 core context, renders Minecraft-shaped frames
//! into an FBO, ends each frame with `glFinish`, and reports per case the
//! median ns per operation (wall, calling-thread CPU, process CPU) with a
//! pixel check at the end of the case. `cargo xtask bench` runs it once per
//! arm and case and writes the table; see `docs/BENCHMARKS.md`.
//!
//! ```text
//! mobilegl-bench [--egl PATH] [--arm LABEL] [--case NAME|all]
//!                [--frames N|auto] [--repeat-ms MS] [--repeats R] [--warmup W] [--json]
//! mobilegl-bench ring [--transport inproc|spawn|all] [--json] [--scale K]
//! mobilegl-bench encode [--json] [--draws N] [--repeats R]
//! mobilegl-bench --list
//! ```
//! (`mobilegl-bench --fd N ring-server` is the spawned echo server of the
//! ring benchmark's `spawn` run, started by the transport itself.)

mod cases;
mod clock;
mod egl;
mod gl;
mod ring;

use clock::{median, Stamp};
use serde::Serialize;

const USAGE: &str = "\
usage:
  mobilegl-bench [--egl PATH] [--arm LABEL] [--case NAME|all]
                 [--frames N|auto] [--repeat-ms MS] [--repeats R] [--warmup W] [--json]
      GL cases through one EGL provider (default --egl libEGL.so.1); with
      --frames auto (default) each repeat runs as many frames (3..500) as fit
      in about MS milliseconds (default 400) judged from the warm-up frames;
      defaults: 5 repeats, 3 warm-up frames
  mobilegl-bench ring [--transport inproc|spawn|all] [--scale K] [--json]
      ring micro-benchmark over the remote transports with an echo backend
  mobilegl-bench encode [--draws N] [--repeats R] [--json]
      mgpipe::Encoder record-encode cost of calls::Draw
  mobilegl-bench --list
      the case names

cases: vanilla, blend, sodium, ubo, texture, readback";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let r = match args.first().map(String::as_str) {
        Some("--fd") => ring::serve(&args),
        Some("ring") => ring::run(&args[1..]),
        Some("encode") => ring::encode(&args[1..]),
        Some("--list") => {
            for n in cases::NAMES {
                println!("{n}");
            }
            Ok(())
        }
        Some("-h" | "--help" | "help") => {
            println!("{USAGE}");
            Ok(())
        }
        _ => gl_main(&args),
    };
    if let Err(e) = r {
        eprintln!("mobilegl-bench: {e}");
        std::process::exit(1);
    }
}

/// Parse a positive number for `flag`.
pub(crate) fn number<T: std::str::FromStr + PartialOrd + Default>(
    flag: &str,
    v: Option<&String>,
) -> Result<T, String> {
    let v = v.ok_or_else(|| format!("{flag} needs a value"))?;
    match v.parse::<T>() {
        Ok(n) if n > T::default() => Ok(n),
        _ => Err(format!("{flag}: `{v}` is not a positive number")),
    }
}

/// Bounds of the automatic frame count per repeat.
const MIN_AUTO_FRAMES: u64 = 3;
const MAX_AUTO_FRAMES: u64 = 500;

struct Options {
    egl: String,
    arm: String,
    cases: Vec<String>,
    /// Timed frames per repeat; 0: chosen from the warm-up frames so one
    /// repeat lasts about `repeat_ms`.
    frames: u32,
    repeat_ms: u32,
    repeats: u32,
    warmup: u32,
    json: bool,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        egl: "libEGL.so.1".into(),
        arm: String::new(),
        cases: Vec::new(),
        frames: 0,
        repeat_ms: 400,
        repeats: 5,
        warmup: 3,
        json: false,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--egl" => o.egl = it.next().ok_or("--egl needs a path")?.clone(),
            "--arm" => o.arm = it.next().ok_or("--arm needs a label")?.clone(),
            "--case" => {
                let v = it.next().ok_or("--case needs a name")?;
                for n in v.split(',') {
                    if n == "all" {
                        o.cases.extend(cases::NAMES.iter().map(|s| s.to_string()));
                    } else if cases::NAMES.contains(&n) {
                        o.cases.push(n.to_string());
                    } else {
                        return Err(format!(
                            "unknown case `{n}` (cases: {}, all)",
                            cases::NAMES.join(", ")
                        ));
                    }
                }
            }
            "--frames" => match it.next() {
                Some(v) if v == "auto" => o.frames = 0,
                v => o.frames = number(a, v)?,
            },
            "--repeat-ms" => o.repeat_ms = number(a, it.next())?,
            "--repeats" => o.repeats = number(a, it.next())?,
            "--warmup" => {
                let v = it.next().ok_or("--warmup needs a value")?;
                o.warmup = v
                    .parse()
                    .map_err(|_| format!("--warmup: `{v}` is not a number"))?;
            }
            "--json" => o.json = true,
            other => return Err(format!("unknown argument `{other}`\n{USAGE}")),
        }
    }
    if o.cases.is_empty() {
        o.cases = cases::NAMES.iter().map(|s| s.to_string()).collect();
    }
    if o.arm.is_empty() {
        o.arm = match std::env::var("MOBILEGL_TRANSPORT") {
            Ok(t) if o.egl.contains("dist") => t,
            _ => "?".into(),
        };
    }
    Ok(o)
}

/// One case's result (one JSON line with `--json`).
#[derive(Serialize)]
struct CaseResult {
    arm: String,
    egl: String,
    platform: String,
    gl_vendor: String,
    gl_renderer: String,
    gl_version: String,
    case: String,
    op: String,
    ops_per_frame: u32,
    warmup: u32,
    frames: u32,
    repeats: u32,
    ok: bool,
    error: Option<String>,
    setup_ms: f64,
    /// Medians over all timed frames, divided by ops per frame.
    wall_ns_per_op: Option<f64>,
    thread_cpu_ns_per_op: Option<f64>,
    process_cpu_ns_per_op: Option<f64>,
    /// Per repeat: mean wall ns per op.
    repeat_wall_ns_per_op: Vec<f64>,
    /// Per repeat: mean calling-thread CPU ns per op.
    repeat_thread_cpu_ns_per_op: Vec<f64>,
}

fn gl_main(args: &[String]) -> Result<(), String> {
    let o = parse(args)?;
    let egl = egl::Egl::open(&o.egl)?;
    let gl = gl::Gl::load(&|name| egl.proc_address(name))?;
    let info = (
        egl.platform.to_string(),
        gl.string(gl::VENDOR),
        gl.string(gl::RENDERER),
        gl.string(gl::VERSION),
    );
    eprintln!(
        "mobilegl-bench: {} via {} ({}): EGL {} {}; GL_RENDERER={} GL_VERSION={}",
        o.arm, o.egl, info.0, egl.egl_vendor, egl.egl_version, info.2, info.3
    );
    let target = cases::Target::create(&gl)?;
    let mut failed = 0;
    for name in &o.cases {
        let Some(mut case) = cases::make(name) else {
            return Err(format!("unknown case `{name}`"));
        };
        let r = run_case(&gl, &target, case.as_mut(), &o, &info);
        if !r.ok {
            failed += 1;
        }
        if o.json {
            println!(
                "{}",
                serde_json::to_string(&r).map_err(|e| format!("json: {e}"))?
            );
        } else {
            print_human(&r);
        }
    }
    let _ = target;
    egl.shutdown();
    if failed > 0 {
        // Results were printed; the exit status says something failed.
        std::process::exit(3);
    }
    Ok(())
}

fn run_case(
    gl: &gl::Gl,
    target: &cases::Target,
    case: &mut dyn cases::Case,
    o: &Options,
    info: &(String, String, String, String),
) -> CaseResult {
    let mut r = CaseResult {
        arm: o.arm.clone(),
        egl: o.egl.clone(),
        platform: info.0.clone(),
        gl_vendor: info.1.clone(),
        gl_renderer: info.2.clone(),
        gl_version: info.3.clone(),
        case: case.name().into(),
        op: case.op().into(),
        ops_per_frame: case.ops_per_frame(),
        warmup: o.warmup,
        frames: o.frames,
        repeats: o.repeats,
        ok: false,
        error: None,
        setup_ms: 0.0,
        wall_ns_per_op: None,
        thread_cpu_ns_per_op: None,
        process_cpu_ns_per_op: None,
        repeat_wall_ns_per_op: Vec::new(),
        repeat_thread_cpu_ns_per_op: Vec::new(),
    };
    // SAFETY: plain GL calls on the current context.
    unsafe {
        (gl.glBindFramebuffer)(gl::FRAMEBUFFER, target.fbo);
        (gl.glViewport)(0, 0, cases::SIZE, cases::SIZE);
    }
    let t0 = Stamp::now();
    if let Err(e) = case.setup(gl) {
        r.error = Some(format!("setup: {e}"));
        return r;
    }
    // SAFETY: plain GL call.
    unsafe { (gl.glFinish)() };
    r.setup_ms = t0.until(Stamp::now()).wall as f64 / 1e6;
    let ops = f64::from(case.ops_per_frame());
    let mut f = 0u64;
    // At least two warm-up frames when the frame count is automatic (the
    // first one may compile shader variants); the fastest one sets it.
    let warmup = if o.frames == 0 {
        o.warmup.max(2)
    } else {
        o.warmup
    };
    let mut fastest = u64::MAX;
    for _ in 0..warmup {
        let a = Stamp::now();
        case.frame(gl, f);
        // SAFETY: plain GL call.
        unsafe { (gl.glFinish)() };
        fastest = fastest.min(a.until(Stamp::now()).wall);
        f += 1;
    }
    let frames = if o.frames > 0 {
        o.frames
    } else {
        let per_frame = fastest;
        let want = u64::from(o.repeat_ms) * 1_000_000 / per_frame.max(1);
        want.clamp(MIN_AUTO_FRAMES, MAX_AUTO_FRAMES) as u32
    };
    r.frames = frames;
    r.warmup = warmup;
    if let Err(e) = gl.check_error("warm-up frames") {
        r.error = Some(e);
        return r;
    }
    let n = (frames * o.repeats) as usize;
    let (mut wall, mut thread, mut process) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    for _ in 0..o.repeats {
        let rep = Stamp::now();
        for _ in 0..frames {
            let a = Stamp::now();
            case.frame(gl, f);
            // SAFETY: plain GL call.
            unsafe { (gl.glFinish)() };
            let d = a.until(Stamp::now());
            wall.push(d.wall as f64 / ops);
            thread.push(d.thread as f64 / ops);
            process.push(d.process as f64 / ops);
            f += 1;
        }
        let d = rep.until(Stamp::now());
        let per = ops * f64::from(frames);
        r.repeat_wall_ns_per_op.push(d.wall as f64 / per);
        r.repeat_thread_cpu_ns_per_op.push(d.thread as f64 / per);
    }
    let checked = gl
        .check_error("timed frames")
        .and_then(|()| case.check(gl, f.saturating_sub(1)))
        .and_then(|()| gl.check_error("pixel check"));
    r.wall_ns_per_op = Some(median(&wall));
    r.thread_cpu_ns_per_op = Some(median(&thread));
    r.process_cpu_ns_per_op = Some(median(&process));
    match checked {
        Ok(()) => r.ok = true,
        Err(e) => r.error = Some(e),
    }
    r
}

fn print_human(r: &CaseResult) {
    match (r.ok, r.wall_ns_per_op, r.thread_cpu_ns_per_op) {
        (true, Some(w), Some(c)) => println!(
            "{:<9} {:>6} ops/frame  wall {:>10.1} ns/op  thread CPU {:>10.1} ns/op  \
             process CPU {:>10.1} ns/op  (frame {:.2} ms; {})",
            r.case,
            r.ops_per_frame,
            w,
            c,
            r.process_cpu_ns_per_op.unwrap_or(0.0),
            w * f64::from(r.ops_per_frame) / 1e6,
            r.op
        ),
        _ => println!(
            "{:<9} FAILED: {}",
            r.case,
            r.error.as_deref().unwrap_or("unknown")
        ),
    }
}
