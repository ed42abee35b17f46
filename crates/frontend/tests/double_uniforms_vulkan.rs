//! `double_uniforms.rs` on the Vulkan backend (a test binary of its own:
//! the backend is chosen once per process, from `MOBILEGL_BACKEND`).
//!
//! `cargo nextest run -p frontend --test double_uniforms_vulkan`

mod common;

#[test]
fn double_uniforms_reach_the_shader_on_vulkan() {
    // Set before the first EGL call of this process (one test per binary).
    std::env::set_var("MOBILEGL_BACKEND", "vulkan");
    // SAFETY: the helper makes its own context on this thread.
    unsafe { common::check_double_uniforms() }
}
