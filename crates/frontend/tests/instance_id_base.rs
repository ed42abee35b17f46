//! `instance_id/mod.rs` on the GLES backend.
//!
//! `cargo nextest run -p frontend --test instance_id_base`

mod common;
mod instance_id;

#[test]
fn instance_id_counts_from_zero_with_a_base_instance() {
    std::env::set_var("MOBILEGL_BACKEND", "gles");
    // SAFETY: the check makes its own context on this thread.
    unsafe { instance_id::check_instance_id_from_zero() }
}
