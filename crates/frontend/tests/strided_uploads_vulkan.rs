//! Strided sub-image uploads in monolith on the Vulkan backend: see
//! `strided/mod.rs`.
//!
//! `cargo nextest run -p frontend --test strided_uploads_vulkan`

mod common;
mod strided;

#[test]
fn strided_uploads_vulkan() {
    // Set before the first EGL call of this process.
    std::env::set_var("MOBILEGL_TRANSPORT", "monolith");
    std::env::set_var("MOBILEGL_BACKEND", "vulkan");
    // SAFETY: the checks make their own context on this thread.
    unsafe { strided::check_strided_subimages() }
}
