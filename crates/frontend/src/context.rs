//! Per-context GL state and current-context tracking.

use crate::platform::{ContextAttribs, ContextRef, PlatformError, SurfaceRef};

/// One GL context: its state tracker lives here.
#[derive(Debug)]
pub struct Context {
    pub attribs: ContextAttribs,
    pub handle: mgpipe::Handle,
}

/// Create a context (answers GL 4.5 core / compat whatever was asked for ≥ 3.2; legacy requests get a compatibility context).
pub fn create_context(attribs: &ContextAttribs, share: Option<&ContextRef>) -> Result<ContextRef, PlatformError> {
    let _ = (attribs, share);
    Err(PlatformError::NoBackend("not wired yet".into()))
}

pub fn destroy_context(ctx: &ContextRef) {
    let _ = ctx;
}

/// Bind `ctx` (or nothing) to the calling thread with the given surfaces.
pub fn make_current(ctx: Option<&ContextRef>, draw: Option<&SurfaceRef>, read: Option<&SurfaceRef>) -> Result<(), PlatformError> {
    let _ = (ctx, draw, read);
    Ok(())
}

pub fn current_context() -> Option<ContextRef> {
    None
}
