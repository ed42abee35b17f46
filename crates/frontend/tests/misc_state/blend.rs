//! Per-draw-buffer blending (GL 4.0 / ARB_draw_buffers_blend), sample
//! shading state and sample positions, shared by `draw_buffers_blend.rs`
//! (GLES) and `draw_buffers_blend_vulkan.rs`.

use mobilegl::gl::{
    buffers, draw, fb_params, framebuffers, get, internalformat, multi_bind, multisample, robust,
    shaders, state, textures, vertex,
};

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
        state::glTextureBarrier();
        no_gl_error("glTextureBarrier");
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

/// Multi-bind, framebuffer parameters, internal-format and bounded reads:
/// state and errors only (run after `check`, on its context).
pub unsafe fn check_queries() {
    // SAFETY (whole body): `check` left a context current; every pointer
    // passed is to a live local of the size the call reads or writes.
    unsafe {
        // glBindTextures: whole-call errors bind nothing; a bad name fails
        // only its unit.
        multi_bind::glBindTextures(0, -1, std::ptr::null());
        expect_error("negative count", glow::INVALID_VALUE);
        multi_bind::glBindTextures(47, 2, std::ptr::null());
        expect_error("range past the units", glow::INVALID_OPERATION);
        let mut t = [0u32; 2];
        textures::glGenTextures(2, t.as_mut_ptr());
        for n in t {
            textures::glBindTexture(glow::TEXTURE_2D, n);
        }
        textures::glBindTexture(glow::TEXTURE_2D, 0);
        let names = [t[0], 9999, t[1]];
        multi_bind::glBindTextures(2, 3, names.as_ptr());
        expect_error("one unknown name", glow::INVALID_OPERATION);
        let mut v = 0;
        for (unit, want) in [(2, t[0]), (3, 0), (4, t[1])] {
            textures::glActiveTexture(glow::TEXTURE0 + unit);
            get::glGetIntegerv(glow::TEXTURE_BINDING_2D, &mut v);
            assert_eq!(v as u32, want, "unit {unit}");
        }
        textures::glActiveTexture(glow::TEXTURE0);
        multi_bind::glBindTextures(2, 3, std::ptr::null());
        textures::glActiveTexture(glow::TEXTURE2);
        get::glGetIntegerv(glow::TEXTURE_BINDING_2D, &mut v);
        assert_eq!(v, 0, "a null array unbinds");
        textures::glActiveTexture(glow::TEXTURE0);

        // glBindBuffersBase keeps the generic binding point.
        let b = common::buffer_with(glow::UNIFORM_BUFFER, &[0u8; 64]);
        buffers::glBindBuffer(glow::UNIFORM_BUFFER, 0);
        let bufs = [b, 0];
        multi_bind::glBindBuffersBase(glow::UNIFORM_BUFFER, 0, 2, bufs.as_ptr());
        no_gl_error("glBindBuffersBase");
        get::glGetIntegeri_v(glow::UNIFORM_BUFFER_BINDING, 0, &mut v);
        assert_eq!(v as u32, b);
        get::glGetIntegerv(glow::UNIFORM_BUFFER_BINDING, &mut v);
        assert_eq!(v, 0, "generic binding untouched");
        multi_bind::glBindBuffersBase(glow::ARRAY_BUFFER, 0, 1, bufs.as_ptr());
        expect_error("not an indexed target", glow::INVALID_ENUM);

        // Framebuffer default parameters (the bound FBO from `check`).
        fb_params::glFramebufferParameteri(glow::FRAMEBUFFER, glow::FRAMEBUFFER_DEFAULT_WIDTH, 64);
        fb_params::glGetFramebufferParameteriv(
            glow::FRAMEBUFFER,
            glow::FRAMEBUFFER_DEFAULT_WIDTH,
            &mut v,
        );
        no_gl_error("framebuffer parameters");
        assert_eq!(v, 64);
        fb_params::glFramebufferParameteri(glow::FRAMEBUFFER, glow::FRAMEBUFFER_DEFAULT_WIDTH, -1);
        expect_error("negative default width", glow::INVALID_VALUE);

        // Internal-format sample counts: at least one, descending.
        internalformat::glGetInternalformativ(
            glow::RENDERBUFFER,
            glow::RGBA8,
            glow::NUM_SAMPLE_COUNTS,
            1,
            &mut v,
        );
        no_gl_error("NUM_SAMPLE_COUNTS");
        assert!(v >= 1);
        let mut counts = [0i32; 8];
        internalformat::glGetInternalformativ(
            glow::RENDERBUFFER,
            glow::RGBA8,
            glow::SAMPLES,
            1,
            counts.as_mut_ptr(),
        );
        no_gl_error("SAMPLES");
        assert!(
            counts[0] >= 2 && counts[1] == 0,
            "bufSize 1 writes one value"
        );

        // glClipControl state and errors.
        state::glClipControl(glow::UPPER_LEFT, glow::ZERO_TO_ONE);
        get::glGetIntegerv(glow::CLIP_ORIGIN, &mut v);
        assert_eq!(v as u32, glow::UPPER_LEFT);
        get::glGetIntegerv(glow::CLIP_DEPTH_MODE, &mut v);
        assert_eq!(v as u32, glow::ZERO_TO_ONE);
        state::glClipControl(glow::ZERO_TO_ONE, glow::ZERO_TO_ONE);
        expect_error("bad origin", glow::INVALID_ENUM);
        state::glClipControl(glow::LOWER_LEFT, glow::NEGATIVE_ONE_TO_ONE);
        no_gl_error("glClipControl");

        // glReadnPixels: a 4x4 RGBA8 read needs 64 bytes.
        let mut px = [0u8; 64];
        robust::glReadnPixels(
            0,
            0,
            4,
            4,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            63,
            px.as_mut_ptr().cast(),
        );
        expect_error("bufSize one byte short", glow::INVALID_OPERATION);
        assert!(px.iter().all(|b| *b == 0), "nothing written");
        robust::glReadnPixels(
            0,
            0,
            4,
            4,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            64,
            px.as_mut_ptr().cast(),
        );
        no_gl_error("glReadnPixels");
        assert!(px.iter().any(|b| *b != 0));
    }
}
