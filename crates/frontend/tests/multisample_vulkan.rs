//! `multisample.rs` on the Vulkan backend (a test binary of its own: the
//! backend is chosen once per process, from `MOBILEGL_BACKEND`).
//!
//! `cargo nextest run -p frontend --test multisample_vulkan`

mod common;

#[test]
fn multisample_textures_render_fetch_and_mask_on_vulkan() {
    // Set before the first EGL call of this process (one test per binary).
    std::env::set_var("MOBILEGL_BACKEND", "vulkan");
    // SAFETY: the helper makes its own context on this thread.
    unsafe { common::check_multisample_textures() }
}
