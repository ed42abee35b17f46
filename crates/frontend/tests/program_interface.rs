//! Program interface queries (GL 4.3, `GL_ARB_program_interface_query`).
//!
//! `cargo nextest run -p frontend --test program_interface`

mod common;

#[test]
fn resources_of_every_reflected_interface() {
    // SAFETY: the helper makes its own context on this thread.
    unsafe { common::check_program_interface() }
}
