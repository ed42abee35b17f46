//! GLSL → SPIR-V compilation and reflection.
