//! `occlusion_clears.rs` on the Vulkan backend, whose masked clears are
//! draws of a clear pipeline (a test binary of its own: the backend is
//! chosen once per process, from `MOBILEGL_BACKEND`).
//!
//! `cargo nextest run -p frontend --test occlusion_clears_vulkan`

mod common;

#[test]
fn occlusion_queries_ignore_clears_on_vulkan() {
    // Set before the first EGL call of this process (one test per binary).
    std::env::set_var("MOBILEGL_BACKEND", "vulkan");
    // SAFETY: the helper makes its own context on this thread.
    unsafe { common::check_occlusion_ignores_clears() }
}
