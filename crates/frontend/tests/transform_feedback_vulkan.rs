//! `transform_feedback.rs` on the Vulkan backend (a test binary of its
//! own: the backend is chosen once per process, from `MOBILEGL_BACKEND`).
//!
//! `cargo nextest run -p frontend --test transform_feedback_vulkan`

mod common;

#[test]
fn transform_feedback_on_vulkan() {
    // Set before the first EGL call of this process (one test per binary).
    std::env::set_var("MOBILEGL_BACKEND", "vulkan");
    // SAFETY: GL calls on this thread after making a context current.
    unsafe {
        common::make_context();
        common::xfb::check_link_errors_and_program_queries();
        common::xfb::check_begin_end_errors();
        common::xfb::check_captures();
        common::xfb::check_geometry_capture();
        common::xfb::check_objects();
    }
}
