//! Per-draw-buffer blending (GL 4.0 / ARB_draw_buffers_blend), sample
//! shading state and sample positions, shared by `draw_buffers_blend.rs`
//! (GLES) and `draw_buffers_blend_vulkan.rs`.

use mobilegl::gl::{draw, framebuffers, get, multisample, shaders, state, vertex};

use super::common::{self, expect_error, no_gl_error};

const VS: &str = "#version 400 core
layout(location = 0) in vec4 p;
void main() { gl_Position = p; }
";
const FS: &str = "#version 400 core
layout(location = 0) out vec4 c0;
layout(location = 1) out vec4 c1;
void main() { c0 = vec4(0.25, 0.5, 0.25, 1.0); c1 = vec4(0.25, 0.5, 0.25, 1.0); }
";

/// Two RGBA8 colour attachments cleared to (0.5, 0.5, 0.5, 1); buffer 0
/// blends ONE/ONE with FUNC_ADD, buffer 1 ONE/ONE with
/// FUNC_REVERSE_SUBTRACT (dst - src): the two buffers must differ.
pub unsafe fn check() {
    // SAFETY (whole body): a context is made current first; every pointer
    // passed is to a live local of the size the call reads or writes.
    unsafe {
        common::make_context_version(4, 0);
        let (mut fbo, mut rb) = (0, [0u32; 2]);
        framebuffers::glGenFramebuffers(1, &mut fbo);
        framebuffers::glBindFramebuffer(glow::FRAMEBUFFER, fbo);
        framebuffers::glGenRenderbuffers(2, rb.as_mut_ptr());
        for (i, r) in rb.iter().enumerate() {
            framebuffers::glBindRenderbuffer(glow::RENDERBUFFER, *r);
            framebuffers::glRenderbufferStorage(glow::RENDERBUFFER, glow::RGBA8, 4, 4);
            framebuffers::glFramebufferRenderbuffer(
                glow::FRAMEBUFFER,
                glow::COLOR_ATTACHMENT0 + i as u32,
                glow::RENDERBUFFER,
                *r,
            );
        }
        let bufs = [glow::COLOR_ATTACHMENT0, glow::COLOR_ATTACHMENT1];
        framebuffers::glDrawBuffers(2, bufs.as_ptr());
        no_gl_error("framebuffer");

        // State and errors.
        state::glBlendFunc(glow::ONE, glow::ONE);
        state::glBlendEquationi(1, glow::FUNC_REVERSE_SUBTRACT);
        state::glBlendFuncSeparatei(1, glow::ONE, glow::ONE, glow::ONE, glow::ZERO);
        no_gl_error("indexed blend state");
        let mut v = 0;
        get::glGetIntegeri_v(glow::BLEND_EQUATION_RGB, 1, &mut v);
        assert_eq!(v as u32, glow::FUNC_REVERSE_SUBTRACT);
        get::glGetIntegeri_v(glow::BLEND_DST_ALPHA, 1, &mut v);
        assert_eq!(v as u32, glow::ZERO);
        get::glGetIntegeri_v(glow::BLEND_DST_ALPHA, 0, &mut v);
        assert_eq!(v as u32, glow::ONE);
        get::glGetIntegerv(glow::BLEND_EQUATION_RGB, &mut v);
        assert_eq!(
            v as u32,
            glow::FUNC_ADD,
            "non-indexed query answers buffer 0"
        );
        no_gl_error("indexed blend queries");
        state::glBlendFunci(8, glow::ONE, glow::ONE);
        expect_error("glBlendFunci past MAX_DRAW_BUFFERS", glow::INVALID_VALUE);
        state::glBlendEquationi(0, glow::ONE);
        expect_error("glBlendEquationi bad mode", glow::INVALID_ENUM);
        get::glGetIntegeri_v(glow::BLEND_SRC_RGB, 8, &mut v);
        expect_error("indexed query past MAX_DRAW_BUFFERS", glow::INVALID_VALUE);

        // Sample shading state.
        state::glMinSampleShading(2.0);
        let mut f = 0.0f32;
        get::glGetFloatv(glow::MIN_SAMPLE_SHADING_VALUE, &mut f);
        assert_eq!(f, 1.0, "glMinSampleShading clamps to [0, 1]");
        state::glEnable(glow::SAMPLE_SHADING);
        assert_eq!(state::glIsEnabled(glow::SAMPLE_SHADING), 1);
        state::glDisable(glow::SAMPLE_SHADING);
        no_gl_error("sample shading state");
        let mut pos = [0.0f32; 2];
        multisample::glGetMultisamplefv(glow::SAMPLE_POSITION, 0, pos.as_mut_ptr());
        no_gl_error("sample position of a single-sample framebuffer");
        assert_eq!(pos, [0.5, 0.5]);
        multisample::glGetMultisamplefv(glow::SAMPLE_POSITION, 1, pos.as_mut_ptr());
        expect_error("sample index past GL_SAMPLES", glow::INVALID_VALUE);
        multisample::glGetMultisamplefv(glow::SAMPLES, 0, pos.as_mut_ptr());
        expect_error("bad pname", glow::INVALID_ENUM);

        // Rendering: buffer 0 adds, buffer 1 subtracts the source.
        state::glViewport(0, 0, 4, 4);
        state::glClearColor(0.5, 0.5, 0.5, 1.0);
        state::glClear(glow::COLOR_BUFFER_BIT);
        state::glEnable(glow::BLEND);
        let prog = common::link_program(VS, FS);
        shaders::glUseProgram(prog);
        let mut vao = 0;
        vertex::glGenVertexArrays(1, &mut vao);
        vertex::glBindVertexArray(vao);
        common::fullscreen_strip();
        draw::glDrawArrays(glow::TRIANGLE_STRIP, 0, 4);
        no_gl_error("blended draw");
        framebuffers::glReadBuffer(glow::COLOR_ATTACHMENT0);
        let p0 = common::pixel(1, 1);
        framebuffers::glReadBuffer(glow::COLOR_ATTACHMENT1);
        let p1 = common::pixel(1, 1);
        let near = |a: [u8; 4], b: [u8; 4]| a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= 2);
        assert!(near(p0, [191, 255, 191, 255]), "buffer 0 (add): {p0:?}");
        // Alpha: dst * ZERO - src * ONE clamps to 0.
        assert!(
            near(p1, [64, 0, 64, 0]),
            "buffer 1 (reverse subtract): {p1:?}"
        );
    }
}
