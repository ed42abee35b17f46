//! Implemented GL entry points.
