//! Generated GL entry-point exports and the GetProcAddress tables.
//!
//! `build.rs` reads the Khronos registry and `crates/mgpipe/catalogue/
//! coverage.toml`: every desktop GL command of GL 1.0–4.6 (legacy ones
//! included) that is not implemented by hand in `crate::gl` gets a
//! `#[no_mangle]` stub here that reports itself as unimplemented and returns
//! a zero/null default. Extension-only commands get unexported stubs (or
//! point at the core function they alias) and are reachable through
//! `eglGetProcAddress` / `glXGetProcAddress` only.

// Generated C entry points keep their Khronos names and signatures; their
// safety contract is the GL specification (stubs never read their arguments).
#![allow(non_snake_case, clippy::too_many_arguments, clippy::missing_safety_doc)]

use std::collections::BTreeSet;
#[allow(unused_imports)]
use std::ffi::{c_char, c_void};

use parking_lot::Mutex;

/// One GetProcAddress table row: a name and the function's address.
pub struct ProcEntry(pub &'static [u8], pub *const c_void);

// SAFETY: the pointer is the address of a function with 'static lifetime; it
// is never written and never dereferenced as data.
unsafe impl Sync for ProcEntry {}

/// Sizes of the generated GL surface (see `COUNTS`).
#[derive(Clone, Copy, Debug)]
pub struct RegistryCounts {
    /// Commands of `<feature api="gl">` 1.0–4.6: all exported by name.
    pub core: usize,
    /// Entry points listed in coverage.toml (implemented in `crate::gl`).
    pub implemented: usize,
    /// Core commands exported as generated stubs.
    pub core_stubs: usize,
    /// Extension-only commands (in the table, not exported by name).
    pub extension: usize,
    /// Extension commands that resolve to the core command they alias.
    pub extension_aliases: usize,
    /// Extension commands with their own (unexported) stub.
    pub extension_stubs: usize,
}

include!(concat!(env!("OUT_DIR"), "/gl_exports.rs"));

/// Binary search in a table sorted by name.
pub(crate) fn find(table: &[ProcEntry], name: &[u8]) -> Option<*const c_void> {
    let i = table.binary_search_by(|e| e.0.cmp(name)).ok()?;
    table.get(i).map(|e| e.1)
}

/// Resolve a GL command (core or extension) by name, without the NUL.
pub fn lookup(name: &[u8]) -> Option<*const c_void> {
    find(&GL_PROCS, name)
}

/// Resolve an EGL command we export (EGL 1.0–1.5 and advertised extensions).
pub fn lookup_egl(name: &[u8]) -> Option<*const c_void> {
    find(&EGL_PROCS, name)
}

/// Names in the GL table (sorted), for tests and diagnostics.
pub fn gl_proc_names() -> impl Iterator<Item = &'static [u8]> {
    GL_PROCS.iter().map(|e| e.0)
}

/// Names in the EGL table (sorted).
pub fn egl_proc_names() -> impl Iterator<Item = &'static [u8]> {
    EGL_PROCS.iter().map(|e| e.0)
}

/// A set of names already logged, so that each is logged once per process.
pub(crate) struct LogOnce(Mutex<BTreeSet<&'static str>>);

impl LogOnce {
    pub(crate) const fn new() -> Self {
        LogOnce(Mutex::new(BTreeSet::new()))
    }

    /// True the first time `name` is seen.
    pub(crate) fn first(&self, name: &'static str) -> bool {
        self.0.lock().insert(name)
    }
}

/// Every generated GL stub lands here: `crate::gl::unimplemented_entry` sets
/// GL_INVALID_OPERATION on the current context and logs the name once. A panic
/// below must not unwind across the C ABI (it would abort the host process),
/// so it is caught and dropped.
#[inline(never)]
fn stub_hit(name: &'static str) {
    let _ = std::panic::catch_unwind(|| crate::gl::unimplemented_entry(name));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_sorted_and_unique() {
        for t in [&GL_PROCS[..], &EGL_PROCS[..]] {
            assert!(t.windows(2).all(|w| w[0].0 < w[1].0));
        }
    }

    #[test]
    fn lookup_finds_core_and_extension() {
        assert!(lookup(b"glClear").is_some());
        assert!(lookup(b"glBegin").is_some());
        assert!(lookup(b"glSpecializeShader").is_some());
        assert!(lookup(b"glNotAFunction").is_none());
        assert!(lookup(b"").is_none());
        // An ARB alias of a core command resolves to the core function.
        assert_eq!(lookup(b"glBindBufferARB"), lookup(b"glBindBuffer"));
    }
}
