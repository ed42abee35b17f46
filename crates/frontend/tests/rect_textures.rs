//! Rectangle textures (GL 3.1 core) on the default (GLES) backend;
//! `rect_textures_vulkan.rs` runs the same on Vulkan. Neither backend has
//! rectangle samplers: the frontend's SPIR-V makes them 2D ones.
//!
//! `cargo nextest run -p frontend --test rect_textures`

mod common;

#[test]
fn rectangle_samplers_read_texel_coordinates() {
    // SAFETY: the helper makes its own context on this thread.
    unsafe { common::check_rect_textures() }
}
