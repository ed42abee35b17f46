//! A multisample resolve into a destination of another format (desktop GL
//! converts; GLES 3.0 refuses a resolve between different formats, so the
//! GLES backend resolves into a temporary of the source's format first and
//! blits from there; piglit's layered-rendering reads multisample array
//! layers this way). GLES backend (the default); Vulkan does not convert
//! in a resolve yet.
//!
//! `cargo nextest run -p frontend --test multisample_resolve_convert`

mod common;
use common::{make_context, no_gl_error};
use mobilegl::gl::{framebuffers, pixels, state};

const SIZE: i32 = 8;

/// A framebuffer with one `internal` renderbuffer of `samples` samples.
unsafe fn framebuffer(internal: u32, samples: i32) -> u32 {
    // SAFETY: a context is current; the names are ours.
    unsafe {
        let (mut fbo, mut rb) = (0, 0);
        framebuffers::glGenFramebuffers(1, &mut fbo);
        framebuffers::glBindFramebuffer(glow::FRAMEBUFFER, fbo);
        framebuffers::glGenRenderbuffers(1, &mut rb);
        framebuffers::glBindRenderbuffer(glow::RENDERBUFFER, rb);
        framebuffers::glRenderbufferStorageMultisample(
            glow::RENDERBUFFER,
            samples,
            internal,
            SIZE,
            SIZE,
        );
        framebuffers::glFramebufferRenderbuffer(
            glow::FRAMEBUFFER,
            glow::COLOR_ATTACHMENT0,
            glow::RENDERBUFFER,
            rb,
        );
        fbo
    }
}

#[test]
fn multisample_resolve_into_another_format() {
    // SAFETY: GL calls on this thread with a current context; out pointers
    // to locals of the read size.
    unsafe {
        make_context();
        let ms = framebuffer(glow::RGBA8, 4);
        state::glClearColor(0.0, 1.0, 0.0, 1.0);
        state::glClear(glow::COLOR_BUFFER_BIT);
        let dst = framebuffer(glow::RGBA16F, 0);
        state::glClearColor(1.0, 0.0, 0.0, 1.0);
        state::glClear(glow::COLOR_BUFFER_BIT);
        framebuffers::glBindFramebuffer(glow::READ_FRAMEBUFFER, ms);
        framebuffers::glBindFramebuffer(glow::DRAW_FRAMEBUFFER, dst);
        framebuffers::glBlitFramebuffer(
            0,
            0,
            SIZE,
            SIZE,
            0,
            0,
            SIZE,
            SIZE,
            glow::COLOR_BUFFER_BIT,
            glow::NEAREST,
        );
        no_gl_error("resolve RGBA8 into RGBA16F");
        framebuffers::glBindFramebuffer(glow::FRAMEBUFFER, dst);
        let mut px = [0f32; 4];
        pixels::glReadPixels(3, 5, 1, 1, glow::RGBA, glow::FLOAT, px.as_mut_ptr().cast());
        no_gl_error("read back");
        assert_eq!(px, [0.0, 1.0, 0.0, 1.0], "the resolved colour arrived");
    }
}
