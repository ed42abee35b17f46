//! Compute shaders, storage buffers and image units in a 4.3 context on
//! the default (GLES) backend; `compute_vulkan.rs` runs the same on Vulkan.
//!
//! `cargo nextest run -p frontend --test compute`

mod common;

#[test]
fn compute_writes_images_and_storage_buffers() {
    // SAFETY: the helper makes its own context on this thread.
    unsafe { common::check_compute() }
}

#[test]
fn compute_reads_a_cleared_depth_texture() {
    // SAFETY: the helper makes its own context on this thread.
    unsafe { common::check_compute_reads_cleared_depth() }
}
