//! `cargo xtask dist [--release]`: lay out a drop-in directory.
//!
//! ```text
//! target/dist/lib/libmobilegl.so          copy of target/<profile>/libmobilegl.so
//! target/dist/lib/libGL.so.1  -> libmobilegl.so   (symlink)
//! target/dist/lib/libEGL.so.1 -> libmobilegl.so   (symlink)
//! target/dist/lib/libGLESv2.so.2 -> libmobilegl.so (symlink: OpenGL ES
//!                                 clients, and waffle, dlopen it for ES 2/3)
//! target/dist/bin/mobilegl-server
//! ```
//!
//! Why symlinks and not copies: an application (piglit, for one) links both
//! `libGL.so.1` and `libEGL.so.1`. The dynamic loader recognises an object it
//! has already mapped by device and inode, so two names that are symlinks to
//! one file map ONE copy of MobileGL: one set of globals, one EGL registry,
//! one current context, one transport. Two copies would each get their own
//! state, and a context made current through `libEGL.so.1`'s `eglMakeCurrent`
//! would be invisible to the `glClear` bound from `libGL.so.1`.
//!
//! The runtime finds the server as `<dir of libmobilegl.so>/../bin/
//! mobilegl-server`, hence `lib/` and `bin/` side by side.

use std::path::{Path, PathBuf};
use std::process::Command;

const LIB: &str = "libmobilegl.so";
const ALIASES: [&str; 3] = ["libGL.so.1", "libEGL.so.1", "libGLESv2.so.2"];
const SERVER: &str = "mobilegl-server";

pub fn run(args: &[String]) -> Result<(), String> {
    let mut release = false;
    for a in args {
        match a.as_str() {
            "--release" => release = true,
            other => {
                return Err(format!(
                    "dist: unknown argument `{other}` (usage: cargo xtask dist [--release])"
                ))
            }
        }
    }
    let root = workspace_root();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let mut cmd = Command::new(&cargo);
    cmd.current_dir(&root)
        .args(["build", "-p", "frontend", "-p", "server-bin"]);
    if release {
        cmd.arg("--release");
    }
    let status = cmd
        .status()
        .map_err(|e| format!("dist: cannot run {cargo}: {e}"))?;
    if !status.success() {
        return Err(format!("dist: cargo build failed ({status})"));
    }

    let target = target_dir(&root);
    let profile_dir = target.join(if release { "release" } else { "debug" });
    let dist = target.join("dist");
    let lib_dir = dist.join("lib");
    let bin_dir = dist.join("bin");
    for d in [&lib_dir, &bin_dir] {
        std::fs::create_dir_all(d)
            .map_err(|e| format!("dist: cannot create {}: {e}", d.display()))?;
    }

    copy(&profile_dir.join(LIB), &lib_dir.join(LIB))?;
    for alias in ALIASES {
        let link = lib_dir.join(alias);
        remove_if_present(&link)?;
        // Relative target, so the directory can be moved as a whole.
        std::os::unix::fs::symlink(LIB, &link)
            .map_err(|e| format!("dist: cannot symlink {} -> {LIB}: {e}", link.display()))?;
    }
    copy(&profile_dir.join(SERVER), &bin_dir.join(SERVER))?;

    println!("dist: {}", dist.display());
    println!("  lib/{LIB}");
    for alias in ALIASES {
        println!("  lib/{alias} -> {LIB}");
    }
    println!("  bin/{SERVER}");
    println!("use: LD_LIBRARY_PATH={} <app>", lib_dir.display());
    Ok(())
}

fn workspace_root() -> PathBuf {
    // xtask lives at <root>/xtask.
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map(Path::to_path_buf).unwrap_or(manifest)
}

fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(d) => {
            let d = PathBuf::from(d);
            if d.is_absolute() {
                d
            } else {
                root.join(d)
            }
        }
        None => root.join("target"),
    }
}

fn remove_if_present(p: &Path) -> Result<(), String> {
    match std::fs::symlink_metadata(p) {
        Ok(_) => {
            std::fs::remove_file(p).map_err(|e| format!("dist: cannot remove {}: {e}", p.display()))
        }
        Err(_) => Ok(()),
    }
}

/// Copy by replacing: never write through an old file another process may
/// have mapped (a running test holding the previous libmobilegl.so).
fn copy(from: &Path, to: &Path) -> Result<(), String> {
    if !from.is_file() {
        return Err(format!("dist: {} was not built", from.display()));
    }
    let tmp = to.with_extension("tmp");
    std::fs::copy(from, &tmp).map_err(|e| {
        format!(
            "dist: cannot copy {} to {}: {e}",
            from.display(),
            tmp.display()
        )
    })?;
    std::fs::rename(&tmp, to).map_err(|e| {
        format!(
            "dist: cannot move {} to {}: {e}",
            tmp.display(),
            to.display()
        )
    })?;
    Ok(())
}
