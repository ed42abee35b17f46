//! Framebuffer attachments on the GLES backend (`common::fbo`): depth
//! levels, depth/stencil pairing, layered clears.
//!
//! `cargo nextest run -p frontend --test framebuffer_levels`

mod common;

#[test]
fn framebuffer_levels_pairing_and_layers() {
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
        common::fbo::check_error_rules();
        common::fbo::check_parameter_rules();
        common::fbo::check_framebuffer_bits();
        common::fbo::check_blit_between_levels();
    }
}
