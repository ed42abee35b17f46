//! `draw_buffers_blend.rs` on the Vulkan backend (a test binary of its
//! own: the backend is chosen once per process, from `MOBILEGL_BACKEND`).
//!
//! `cargo nextest run -p frontend --test draw_buffers_blend_vulkan`

#[path = "misc_state/blend.rs"]
mod blend;
mod common;

#[test]
fn per_buffer_blend_state_queries_and_rendering_on_vulkan() {
    // Set before the first EGL call of this process (one test per binary).
    std::env::set_var("MOBILEGL_BACKEND", "vulkan");
    // SAFETY: the helper makes its own context on this thread.
    unsafe {
        blend::check();
        blend::check_queries();
    }
}
