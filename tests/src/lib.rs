//! Shared helpers for MobileGL's cross-crate scenario tests.
//!
//! The scenarios themselves live in an independent C client
//! (`tests/c/scenarios.c`) that links only `libEGL.so.1` and resolves every GL
//! function through `eglGetProcAddress`. This crate builds that client with
//! the system C compiler, runs it against `target/dist/lib` in one transport
//! lane (or against the system driver for the `native` reference lane), and
//! reports what happened. `tests/tests/scenarios.rs` instantiates one test per
//! scenario and lane; `xtask demo` reuses the same helpers.

use std::collections::hash_map::DefaultHasher;
use std::fs;
use std::hash::{Hash, Hasher};
use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// The C source of the scenario client.
pub const CLIENT_SOURCE: &str = include_str!("../c/scenarios.c");

/// Scenario names, in the order the client runs them. Must match
/// `scenarios --list` (a test checks).
pub const SCENARIOS: &[&str] = &[
    "clear",
    "indexed_draw",
    "additive_blend",
    "texture_unpack_row_length",
    "ubo_std140",
    "buffer_subdata_order",
    "scissor",
    "instanced_divisor",
    "readpixels_pack_row_length",
    "map_buffer_range_read",
    "error_bad_enable",
    "error_bind_ungenerated_buffer",
    "error_bad_draw_mode",
    "version",
    "fence",
    "persistent_map",
    "multi_draw",
    "ubo_ranges",
    "vao_switch",
    "egl_fence_sync",
    "egl_es3_context",
];

/// Where the scenario client runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    /// MobileGL, direct calls on the app thread.
    Monolith,
    /// MobileGL, shared-memory rings to a server thread.
    Inproc,
    /// MobileGL, a `mobilegl-server` child process.
    Spawn,
    /// The system's own GL driver (reference).
    Native,
}

impl Lane {
    pub const ALL: [Lane; 4] = [Lane::Monolith, Lane::Inproc, Lane::Spawn, Lane::Native];

    /// The `MOBILEGL_TRANSPORT` value, `None` for the native lane.
    pub fn transport(self) -> Option<&'static str> {
        match self {
            Lane::Monolith => Some("monolith"),
            Lane::Inproc => Some("inproc"),
            Lane::Spawn => Some("spawn"),
            Lane::Native => None,
        }
    }

    pub fn name(self) -> &'static str {
        self.transport().unwrap_or("native")
    }

    pub fn parse(s: &str) -> Option<Lane> {
        Lane::ALL.into_iter().find(|l| l.name() == s)
    }
}

/// The workspace root (the parent of this crate).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// Cargo's target directory: `CARGO_TARGET_DIR` if set, else `<root>/target`.
pub fn target_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(d) => {
            let d = PathBuf::from(d);
            if d.is_absolute() {
                d
            } else {
                workspace_root().join(d)
            }
        }
        None => workspace_root().join("target"),
    }
}

/// The directory `cargo xtask dist` fills: `<target>/dist`
/// (`MOBILEGL_DIST_DIR` overrides).
pub fn dist_dir() -> PathBuf {
    match std::env::var_os("MOBILEGL_DIST_DIR") {
        Some(d) => PathBuf::from(d),
        None => target_dir().join("dist"),
    }
}

/// `target/dist/lib`, checked: it must hold our `libGL.so.1` and `libEGL.so.1`.
pub fn dist_lib_dir() -> Result<PathBuf, String> {
    let lib = dist_dir().join("lib");
    for f in ["libEGL.so.1", "libGL.so.1"] {
        if !lib.join(f).exists() {
            return Err(format!(
                "{} is missing: run `cargo xtask dist` first",
                lib.join(f).display()
            ));
        }
    }
    Ok(lib)
}

/// Compile the C client (once per source version) into
/// `<target>/mobilegl-tests/scenarios-<hash>` and return its path.
///
/// Safe to call from many processes at once: each compiles into a private
/// temporary file and renames it into place atomically.
pub fn build_client() -> Result<PathBuf, String> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let flags = ["-std=c99", "-O1", "-g", "-Wall", "-Wextra"];
    let mut h = DefaultHasher::new();
    CLIENT_SOURCE.hash(&mut h);
    cc.hash(&mut h);
    flags.hash(&mut h);
    let dir = target_dir().join("mobilegl-tests");
    fs::create_dir_all(&dir).map_err(|e| format!("create {}: {e}", dir.display()))?;
    let exe = dir.join(format!("scenarios-{:016x}", h.finish()));
    if exe.exists() {
        return Ok(exe);
    }
    let src = dir.join(format!("scenarios-{}.c", std::process::id()));
    fs::write(&src, CLIENT_SOURCE).map_err(|e| format!("write {}: {e}", src.display()))?;
    let tmp = dir.join(format!(".scenarios-{}.tmp", std::process::id()));
    let out = Command::new(&cc)
        .args(flags)
        .arg(&src)
        .arg("-o")
        .arg(&tmp)
        .arg("-lEGL")
        .output()
        .map_err(|e| format!("cannot run the C compiler `{cc}`: {e}"))?;
    let _ = fs::remove_file(&src);
    if !out.status.success() {
        let _ = fs::remove_file(&tmp);
        return Err(format!(
            "compiling tests/c/scenarios.c failed ({}); needs a C compiler and the EGL headers \
             (Debian: build-essential libegl-dev):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    fs::rename(&tmp, &exe).map_err(|e| format!("rename into {}: {e}", exe.display()))?;
    Ok(exe)
}

/// The environment a lane runs in: `(set, remove)`.
///
/// Our lanes put `target/dist/lib` first on `LD_LIBRARY_PATH` and set
/// `MOBILEGL_TRANSPORT`; the native lane removes both so the system driver is
/// used.
/// Variables to set and variables to remove.
pub type LaneEnv = (Vec<(String, String)>, Vec<String>);

pub fn lane_env(lane: Lane) -> Result<LaneEnv, String> {
    match lane.transport() {
        None => Ok((
            vec![],
            vec![
                "LD_LIBRARY_PATH".into(),
                "LD_PRELOAD".into(),
                "MOBILEGL_TRANSPORT".into(),
            ],
        )),
        Some(t) => {
            let lib = dist_lib_dir()?;
            let mut path = lib.display().to_string();
            if let Ok(old) = std::env::var("LD_LIBRARY_PATH") {
                if !old.is_empty() {
                    path.push(':');
                    path.push_str(&old);
                }
            }
            Ok((
                vec![
                    ("LD_LIBRARY_PATH".into(), path),
                    ("MOBILEGL_TRANSPORT".into(), t.into()),
                ],
                vec![],
            ))
        }
    }
}

/// What one run of the client did.
#[derive(Debug)]
pub struct ClientRun {
    pub pid: u32,
    pub status: Option<ExitStatus>,
    pub timed_out: bool,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

impl ClientRun {
    /// Did the client print `PASS <name>`?
    pub fn passed(&self, name: &str) -> bool {
        let want = format!("PASS {name}");
        self.stdout.lines().any(|l| l.trim_end() == want)
    }

    pub fn describe(&self) -> String {
        let status = match (self.timed_out, self.status) {
            (true, _) => "timed out (killed)".to_string(),
            (false, Some(s)) => match (s.code(), s.signal()) {
                (Some(c), _) => format!("exit code {c}"),
                (None, Some(sig)) => format!("killed by signal {sig}"),
                _ => format!("{s}"),
            },
            (false, None) => "unknown".to_string(),
        };
        format!(
            "client pid {} {status} after {:.2}s\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.pid,
            self.elapsed.as_secs_f64(),
            self.stdout.trim_end(),
            self.stderr.trim_end()
        )
    }
}

/// Run the client in a lane with `args`, extra environment `extra_env`, and a
/// wall-clock limit. The client runs in its own process group, which is
/// killed on timeout.
pub fn run_client(
    exe: &Path,
    lane: Lane,
    args: &[&str],
    extra_env: &[(&str, &Path)],
    timeout: Duration,
) -> Result<ClientRun, String> {
    let (set, remove) = lane_env(lane)?;
    let mut cmd = Command::new(exe);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    for k in remove {
        cmd.env_remove(k);
    }
    for (k, v) in set {
        cmd.env(k, v);
    }
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    let start = Instant::now();
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("spawn {}: {e}", exe.display()))?;
    let pid = child.id();
    let mut out_pipe = child.stdout.take().expect("piped stdout");
    let mut err_pipe = child.stderr.take().expect("piped stderr");
    let out_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out_pipe.read_to_end(&mut s);
        String::from_utf8_lossy(&s).into_owned()
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err_pipe.read_to_end(&mut s);
        String::from_utf8_lossy(&s).into_owned()
    });
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break Some(st),
            Ok(None) => {}
            Err(e) => return Err(format!("wait for the client: {e}")),
        }
        if start.elapsed() > timeout {
            timed_out = true;
            kill_group(pid);
            break child.wait().ok();
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let elapsed = start.elapsed();
    // Leftovers in the client's group (e.g. a server that outlived it) would
    // hold the pipes open; they are killed once the client itself is gone.
    if !timed_out {
        let deadline = Instant::now() + Duration::from_secs(5);
        while group_alive(pid) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        kill_group(pid);
    }
    let stdout = out_reader.join().unwrap_or_default();
    let stderr = err_reader.join().unwrap_or_default();
    Ok(ClientRun {
        pid,
        status,
        timed_out,
        stdout,
        stderr,
        elapsed,
    })
}

/// SIGKILL a whole process group (ignores a group that is already gone).
pub fn kill_group(pgid: u32) {
    // SAFETY: kill(2) with a negative pid signals a process group we created
    // (process_group(0) made the child its leader); no memory is involved.
    unsafe {
        libc::kill(-(pgid as libc::pid_t), libc::SIGKILL);
    }
}

/// Does any process of the group still exist?
pub fn group_alive(pgid: u32) -> bool {
    // SAFETY: signal 0 only checks for existence; see kill_group.
    if unsafe { libc::kill(-(pgid as libc::pid_t), 0) } != 0 {
        return false;
    }
    // A member that already exited but is not reaped yet (a zombie: an
    // orphaned server child waits for init to reap it, which in a container
    // can take a while) is not running; only count live members.
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return true;
    };
    for e in dir.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // pid (comm) state ppid pgrp ...: parse after the last ')'.
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            continue;
        };
        let mut f = rest.split_whitespace();
        let state = f.next().unwrap_or("Z");
        let pgrp = f.nth(1).and_then(|p| p.parse::<u32>().ok());
        if pgrp == Some(pgid) && state != "Z" && state != "X" {
            return true;
        }
    }
    false
}

/// Every `pid=<n>` in a server log.
pub fn logged_pids(log: &str) -> Vec<u32> {
    let mut pids = Vec::new();
    for (i, _) in log.match_indices("pid=") {
        // Only a `pid=` that starts a word (not e.g. `ppid=`).
        if i > 0 {
            let prev = log.as_bytes()[i - 1];
            if prev.is_ascii_alphanumeric() || prev == b'_' {
                continue;
            }
        }
        let digits: String = log[i + 4..]
            .chars()
            .take_while(|c| c.is_ascii_digit())
            .collect();
        if let Ok(p) = digits.parse() {
            pids.push(p);
        }
    }
    pids
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn parses_pids() {
        let log = "mobilegl-server pid=4242 transport=spawn backend=gles\nppid=7 x pid=9\n";
        assert_eq!(logged_pids(log), vec![4242, 9]);
    }

    #[test]
    fn lanes_round_trip() {
        for l in Lane::ALL {
            assert_eq!(Lane::parse(l.name()), Some(l));
        }
        assert_eq!(Lane::parse("bogus"), None);
    }
}
