//! Strided sub-image uploads in monolith on the GLES backend: see
//! `strided/mod.rs`.
//!
//! `cargo nextest run -p frontend --test strided_uploads`

mod common;
mod strided;

#[test]
fn strided_uploads_gles() {
    // Set before the first EGL call of this process: monolith is the
    // transport that passes the application's rows by reference.
    std::env::set_var("MOBILEGL_TRANSPORT", "monolith");
    std::env::set_var("MOBILEGL_BACKEND", "gles");
    // SAFETY: the checks make their own context on this thread.
    unsafe { strided::check_strided_subimages() }
}
