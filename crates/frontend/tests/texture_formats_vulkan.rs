//! Texture and pixel-transfer formats on the Vulkan backend (a test binary of its own: the backend is chosen once per process): see `texfmt/mod.rs`.
//!
//! `cargo nextest run -p frontend --test texture_formats_vulkan`

mod common;
mod texfmt;

#[test]
fn texture_formats_vulkan() {
    // Set before the first EGL call of this process.
    std::env::set_var("MOBILEGL_BACKEND", "vulkan");
    // SAFETY: the checks make their own contexts on this thread.
    unsafe {
        texfmt::check_clamp_wrap();
        texfmt::check_luminance_reads_and_sizes();
        texfmt::check_depth_stencil_reads();
        texfmt::check_dst_alpha_on_rgb_float();
        texfmt::check_level_rendering_and_self_blit();
        texfmt::check_legacy_get_tex_image();
        texfmt::check_rgb_attachments();
        texfmt::check_custom_border_color();
    }
}
