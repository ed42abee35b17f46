//! Small state queries: GL_AUX_BUFFERS (compatibility only) and
//! glClampColor's targets and values (GL 4.6 §18.2.8).
//!
//! `cargo nextest run -p frontend --test state_queries`

mod common;
use common::{expect_error, no_gl_error};
use mobilegl::gl::{get, state};

unsafe fn int(pname: u32) -> i32 {
    let mut v = -1;
    // SAFETY: one value written; a context is current.
    unsafe { get::glGetIntegerv(pname, &mut v) };
    v
}

#[test]
fn aux_buffers_and_clamp_color() {
    // SAFETY: GL calls on this thread with a current context.
    unsafe {
        common::make_compat_context_version(3, 0);
        assert_eq!(int(0x0C00), 0, "GL_AUX_BUFFERS");
        no_gl_error("GL_AUX_BUFFERS");
        assert_eq!(int(glow::CLAMP_READ_COLOR), glow::FIXED_ONLY as i32);
        assert_eq!(int(state::CLAMP_VERTEX_COLOR), glow::TRUE as i32);
        state::glClampColor(glow::CLAMP_READ_COLOR, glow::FALSE as u32);
        state::glClampColor(state::CLAMP_FRAGMENT_COLOR, glow::TRUE as u32);
        no_gl_error("glClampColor");
        assert_eq!(int(glow::CLAMP_READ_COLOR), glow::FALSE as i32);
        assert_eq!(int(state::CLAMP_FRAGMENT_COLOR), glow::TRUE as i32);
        state::glClampColor(glow::CLAMP_READ_COLOR, 2);
        expect_error("bad clamp value", glow::INVALID_ENUM);
        state::glClampColor(glow::TEXTURE_2D, glow::TRUE as u32);
        expect_error("bad target", glow::INVALID_ENUM);
        assert_eq!(int(glow::CLAMP_READ_COLOR), glow::FALSE as i32);
    }
}

#[test]
fn core_contexts_refuse_the_compatibility_targets() {
    // SAFETY: GL calls on this thread with a current context.
    unsafe {
        common::make_context();
        int(0x0C00);
        expect_error("GL_AUX_BUFFERS in core", glow::INVALID_ENUM);
        state::glClampColor(state::CLAMP_VERTEX_COLOR, glow::TRUE as u32);
        expect_error("CLAMP_VERTEX_COLOR in core", glow::INVALID_ENUM);
        state::glClampColor(glow::CLAMP_READ_COLOR, glow::TRUE as u32);
        no_gl_error("CLAMP_READ_COLOR in core");
    }
}
