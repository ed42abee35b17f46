//! The MGPipe interface this backend implements. Points at the stand-in
//! until the generated tables land in `mgpipe`.
pub use crate::pipe_shim::{calls, Context, Screen};
