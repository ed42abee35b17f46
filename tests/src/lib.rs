//! Cross-crate scenario tests live in tests/*.rs.
