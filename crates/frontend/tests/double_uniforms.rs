//! Double-precision uniforms on the default (GLES) backend, which has no
//! 64-bit floats: the program must fail to link with a log;
//! `double_uniforms_vulkan.rs` runs the values through lavapipe.
//!
//! `cargo nextest run -p frontend --test double_uniforms`

mod common;

#[test]
fn doubles_refused_at_link_without_float64() {
    // SAFETY: the helper makes its own context on this thread.
    unsafe { common::check_double_uniforms() }
}
