//! `pixel_rectangles.rs`'s depth, stencil and colour pixels on the Vulkan
//! backend (a test binary of its own: the backend is chosen once per
//! process, from `MOBILEGL_BACKEND`).
//!
//! `cargo nextest run -p frontend --test pixel_rectangles_vulkan`

mod common;

#[test]
fn pixel_rectangles_are_drawn_on_vulkan() {
    // Set before the first EGL call of this process (one test per binary).
    std::env::set_var("MOBILEGL_BACKEND", "vulkan");
    // SAFETY: the helper makes its own context on this thread.
    unsafe { common::check_pixel_rectangles() }
}
