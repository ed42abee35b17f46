//! Multisample textures and the sample mask on the default (GLES)
//! backend; `multisample_vulkan.rs` runs the same on Vulkan.
//!
//! `cargo nextest run -p frontend --test multisample`

mod common;

#[test]
fn multisample_textures_render_fetch_and_mask() {
    // SAFETY: the helper makes its own context on this thread.
    unsafe { common::check_multisample_textures() }
}
