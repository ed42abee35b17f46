//! `instance_id/mod.rs` on the Vulkan backend (a test binary of its own:
//! the backend is chosen once per process).
//!
//! `cargo nextest run -p frontend --test instance_id_base_vulkan`

mod common;
mod instance_id;

#[test]
fn instance_id_counts_from_zero_with_a_base_instance_on_vulkan() {
    std::env::set_var("MOBILEGL_BACKEND", "vulkan");
    // SAFETY: the check makes its own context on this thread.
    unsafe { instance_id::check_instance_id_from_zero() }
}
