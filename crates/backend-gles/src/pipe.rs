//! The MGPipe interface this backend implements (generated in `mgpipe`).
pub use mgpipe::{calls, Context, Screen};
