//! Occlusion queries see draws, never clears (`common::check_occlusion_ignores_clears`).
//!
//! `cargo nextest run -p frontend --test occlusion_clears`

mod common;

#[test]
fn occlusion_queries_ignore_clears() {
    // SAFETY: the helper makes its own context on this thread.
    unsafe { common::check_occlusion_ignores_clears() }
}
