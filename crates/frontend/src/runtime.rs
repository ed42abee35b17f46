//! Process-wide runtime: logging, the transport connection, surfaces.

use crate::platform::{PlatformError, SurfaceDesc, SurfaceRef};

/// Initialise logging and connect to a backend once per process.
pub fn ensure_runtime() -> Result<(), PlatformError> {
    Ok(())
}

pub fn create_surface(desc: &SurfaceDesc) -> Result<SurfaceRef, PlatformError> {
    let _ = desc;
    Err(PlatformError::NoBackend("not wired yet".into()))
}

pub fn destroy_surface(s: &SurfaceRef) {
    let _ = s;
}

/// eglSwapBuffers: present the surface (flushes the current context).
pub fn swap_buffers(s: &SurfaceRef) -> Result<(), PlatformError> {
    let _ = s;
    Ok(())
}
