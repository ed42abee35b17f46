//! Server object tables indexed by handle slot: the shared implementation
//! lives in `mgpipe::table` (one for every backend).

pub use mgpipe::table::{Table, MAX_SLOT};
