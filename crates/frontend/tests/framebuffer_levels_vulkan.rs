//! `framebuffer_levels.rs` on the Vulkan backend (a test binary of its
//! own: the backend is chosen once per process, from `MOBILEGL_BACKEND`).
//!
//! `cargo nextest run -p frontend --test framebuffer_levels_vulkan`

mod common;

#[test]
fn framebuffer_levels_pairing_and_layers_on_vulkan() {
    // Set before the first EGL call of this process (one test per binary).
    std::env::set_var("MOBILEGL_BACKEND", "vulkan");
    // SAFETY: the helpers run on the context made here, on this thread.
    unsafe {
        common::make_context_version(3, 3);
        common::fbo::check_depth_levels();
        common::fbo::check_depth_stencil_pairing();
        common::fbo::check_layered_clear();
        common::fbo::check_1d_array_level();
        common::fbo::check_depth_get_tex_image();
        common::fbo::check_depth_only_blit_keeps_stencil();
        common::fbo::check_stencil_only_blit_keeps_depth();
        common::fbo::check_depth_copies();
        common::fbo::check_framebuffer_bits();
        common::fbo::check_blit_between_levels();
    }
}
