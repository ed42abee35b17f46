//! MobileGL frontend: `libmobilegl.so`, loaded as `libGL.so.1` and
//! `libEGL.so.1`.
//!
//! Owns: every exported EGL/GL/GLX symbol, per-context GL state, object
//! names, GL error decisions, `glGet*` answers, GLSL → SPIR-V compilation,
//! CSO content addressing, and the choice of transport. It emits MGPipe
//! records and never touches a driver itself: the only driver this process
//! reaches is the one the backend (behind the transport) loads.

pub mod context;
pub mod egl;
pub mod exports;
pub mod gl;
pub mod glx;
pub mod names;
pub mod platform;
pub mod runtime;
pub mod shader;
