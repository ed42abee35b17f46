//! EGL 1.5 implementation.
