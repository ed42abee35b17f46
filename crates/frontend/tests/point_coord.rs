//! `gl_PointCoord` has GL's default origin (GL_POINT_SPRITE_COORD_ORIGIN =
//! GL_UPPER_LEFT, GL 4.6 §14.4.1): s grows left to right and t grows from
//! the top of the point down, on the default (GLES) backend;
//! `point_coord_vulkan.rs` checks the Vulkan backend, which keeps GL row
//! order and so flips t in the fragment stage's SPIR-V.
//!
//! `cargo nextest run -p frontend --test point_coord`

mod common;

#[test]
fn point_coord_origin_is_upper_left() {
    // SAFETY: the helper makes its own context on this thread.
    unsafe { common::check_point_coord_origin() }
}
