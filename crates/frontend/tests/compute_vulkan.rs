//! `compute.rs` on the Vulkan backend (a test binary of its own: the
//! backend is chosen once per process, from `MOBILEGL_BACKEND`).
//!
//! `cargo nextest run -p frontend --test compute_vulkan`

mod common;

#[test]
fn compute_writes_images_and_storage_buffers_on_vulkan() {
    // Set before the first EGL call of this process (one test per binary).
    std::env::set_var("MOBILEGL_BACKEND", "vulkan");
    // SAFETY: the helper makes its own context on this thread.
    unsafe {
        common::check_compute();
        common::check_compute_reads_cleared_depth();
    }
}
