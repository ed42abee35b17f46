//! Transform feedback (GL 3.0 §2.15 / GL 4.6 §13.3) on the default
//! backend: the checks in `common/xfb.rs`.
//!
//! `cargo nextest run -p frontend --test transform_feedback`

mod common;

#[test]
fn link_errors_and_program_queries() {
    // SAFETY: GL calls on this thread after making a context current.
    unsafe {
        common::make_context();
        common::xfb::check_link_errors_and_program_queries();
    }
}

#[test]
fn begin_end_errors() {
    // SAFETY: as above.
    unsafe {
        common::make_context();
        common::xfb::check_begin_end_errors();
    }
}

#[test]
fn captures_interleaved_and_separate() {
    // SAFETY: as above.
    unsafe {
        common::make_context();
        common::xfb::check_captures();
    }
}

#[test]
fn geometry_shader_capture() {
    // SAFETY: as above.
    unsafe {
        common::make_context();
        common::xfb::check_geometry_capture();
    }
}

#[test]
fn objects_and_draw_transform_feedback() {
    // SAFETY: as above.
    unsafe {
        common::make_context();
        common::xfb::check_objects();
    }
}
