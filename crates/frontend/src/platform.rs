//! The seam between the window-system layer (EGL/GLX exports) and the GL
//! core: contexts, surfaces, current-ness. The EGL layer speaks only this
//! API; it never reaches into GL state.

use std::sync::Arc;

pub use crate::context::Context;

/// Which GL profile a context reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    Core,
    Compatibility,
}

/// Which client API a context implements. An OpenGL ES context is the
/// same GL core as a desktop one (compatibility-profile state, so client
/// arrays and the default vertex array work as ES requires); it differs in
/// what it reports: `GL_VERSION` "OpenGL ES x.y", its GLSL ES version and
/// its extension names (`gl::get`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Api {
    OpenGl,
    /// OpenGL ES of this (major, minor) version, as reported.
    OpenGlEs(u32, u32),
}

/// What the application asked for (EGL_KHR_create_context attributes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContextAttribs {
    pub major: u32,
    pub minor: u32,
    pub profile: Profile,
    pub debug: bool,
    pub forward_compatible: bool,
    pub robust: bool,
    pub api: Api,
}

impl Default for ContextAttribs {
    fn default() -> Self {
        ContextAttribs {
            major: 1,
            minor: 0,
            profile: Profile::Compatibility,
            debug: false,
            forward_compatible: false,
            robust: false,
            api: Api::OpenGl,
        }
    }
}

/// A default framebuffer the backend owns (pbuffer or surfaceless).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SurfaceDesc {
    pub width: u32,
    pub height: u32,
    /// GL sized format of the colour buffer (GL_RGBA8), 0 = none.
    pub color_format: u32,
    /// GL sized depth/stencil format (GL_DEPTH24_STENCIL8), 0 = none.
    pub depth_stencil_format: u32,
    pub samples: u32,
}

pub type ContextRef = Arc<Context>;
pub type SurfaceRef = Arc<Surface>;

/// A client-side surface: its MGPipe handle and size.
#[derive(Debug)]
pub struct Surface {
    pub handle: mgpipe::Handle,
    pub desc: SurfaceDesc,
    /// The size the backend last reported (`on_surface_changed`), packed
    /// `width << 32 | height`; 0 = `desc`'s.
    pub resized: std::sync::atomic::AtomicU64,
}

impl Surface {
    pub fn new(handle: mgpipe::Handle, desc: SurfaceDesc) -> Surface {
        Surface {
            handle,
            desc,
            resized: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// Current size of the default framebuffer this surface backs.
    pub fn size(&self) -> (u32, u32) {
        match self.resized.load(std::sync::atomic::Ordering::Relaxed) {
            0 => (self.desc.width, self.desc.height),
            v => ((v >> 32) as u32, v as u32),
        }
    }
}

/// Why a platform operation failed; the EGL layer maps these to EGL errors.
#[derive(Debug, thiserror::Error)]
pub enum PlatformError {
    #[error("cannot reach a backend: {0}")]
    NoBackend(String),
    #[error("unsupported context version {major}.{minor}")]
    BadVersion { major: u32, minor: u32 },
    #[error("context is lost: {0}")]
    ContextLost(String),
    #[error("surface or context does not match: {0}")]
    BadMatch(&'static str),
}

pub use crate::context::{create_context, current_context, destroy_context, make_current};
pub use crate::runtime::{create_surface, destroy_surface, ensure_runtime, swap_buffers};
