//! Per-draw-buffer blending and sample-shading state on the default
//! (GLES) backend; `draw_buffers_blend_vulkan.rs` runs the same on Vulkan.
//!
//! `cargo nextest run -p frontend --test draw_buffers_blend`

#[path = "misc_state/blend.rs"]
mod blend;
mod common;

#[test]
fn per_buffer_blend_state_queries_and_rendering() {
    // SAFETY: the helper makes its own context on this thread.
    unsafe {
        blend::check();
        blend::check_queries();
    }
}
