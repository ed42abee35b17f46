//! Checks shared by `texture_formats.rs` (GLES) and
//! `texture_formats_vulkan.rs`: GL_CLAMP in compatibility contexts,
//! LUMINANCE and DEPTH_STENCIL glReadPixels, the component sizes of the
//! desktop-only sized formats, and blending with DST_ALPHA on an RGB float
//! target (destination alpha reads 1).

use std::ffi::c_void;

use crate::common::{self, expect_error, no_gl_error};
use mobilegl::gl::{draw, framebuffers as fb, pixels, state, textures};

const GL_CLAMP: i32 = 0x2900;

unsafe fn read_f32(x: i32, y: i32, format: u32, n: usize) -> Vec<f32> {
    let mut v = vec![-7.0f32; n];
    // SAFETY: a context is current; `v` holds `n` floats, one pixel of
    // `format`/FLOAT.
    unsafe {
        pixels::glReadPixels(
            x,
            y,
            1,
            1,
            format,
            glow::FLOAT,
            v.as_mut_ptr() as *mut c_void,
        )
    };
    v
}

/// A texture of `internal` (size `w`x`h`, no data) bound to GL_TEXTURE_2D.
unsafe fn texture(internal: u32, w: i32, h: i32) -> u32 {
    let mut t = 0;
    // SAFETY: a context is current.
    unsafe {
        textures::glGenTextures(1, &mut t);
        textures::glBindTexture(glow::TEXTURE_2D, t);
        textures::glTexImage2D(
            glow::TEXTURE_2D,
            0,
            internal as i32,
            w,
            h,
            0,
            glow::RGBA,
            glow::FLOAT,
            std::ptr::null(),
        );
        textures::glTexParameteri(
            glow::TEXTURE_2D,
            glow::TEXTURE_MIN_FILTER,
            glow::NEAREST as i32,
        );
    }
    t
}

/// GL_CLAMP is a wrap mode of compatibility contexts (textures and
/// samplers) and an invalid enum in core ones.
pub unsafe fn check_clamp_wrap() {
    // SAFETY (whole body): GL calls on this thread with a current context.
    unsafe {
        common::make_compat_context_version(3, 0);
        texture(glow::RGBA8, 1, 1);
        textures::glTexParameteri(glow::TEXTURE_2D, glow::TEXTURE_WRAP_S, GL_CLAMP);
        no_gl_error("GL_CLAMP on a texture");
        let mut v = 0;
        textures::glGetTexParameteriv(glow::TEXTURE_2D, glow::TEXTURE_WRAP_S, &mut v);
        assert_eq!(v, GL_CLAMP, "TEXTURE_WRAP_S reads back GL_CLAMP");
        let mut s = 0;
        textures::glGenSamplers(1, &mut s);
        textures::glSamplerParameteri(s, glow::TEXTURE_WRAP_T, GL_CLAMP);
        no_gl_error("GL_CLAMP on a sampler");

        common::make_context();
        texture(glow::RGBA8, 1, 1);
        textures::glTexParameteri(glow::TEXTURE_2D, glow::TEXTURE_WRAP_S, GL_CLAMP);
        expect_error("GL_CLAMP in a core context", glow::INVALID_ENUM);
    }
}

/// glReadPixels in LUMINANCE reads R + G + B (clamped), LUMINANCE_ALPHA
/// adds alpha; the desktop-only sized formats report their own sizes.
pub unsafe fn check_luminance_reads_and_sizes() {
    // SAFETY (whole body): GL calls on this thread with a current context.
    unsafe {
        common::make_compat_context_version(3, 0);
        common::bind_rgba8_framebuffer(4, 4);
        state::glClearColor(0.5, 0.25, 0.125, 0.75);
        state::glClear(glow::COLOR_BUFFER_BIT);
        let l = read_f32(1, 1, glow::LUMINANCE, 1);
        assert!(
            (l[0] - 0.875).abs() < 0.02,
            "LUMINANCE read {l:?}, want 0.875"
        );
        let la = read_f32(1, 1, glow::LUMINANCE_ALPHA, 2);
        assert!(
            (la[0] - 0.875).abs() < 0.02 && (la[1] - 0.75).abs() < 0.02,
            "LUMINANCE_ALPHA read {la:?}"
        );
        let mut ub = [0u8; 1];
        state::glClearColor(0.75, 0.75, 0.0, 1.0);
        state::glClear(glow::COLOR_BUFFER_BIT);
        pixels::glReadPixels(
            0,
            0,
            1,
            1,
            glow::LUMINANCE,
            glow::UNSIGNED_BYTE,
            ub.as_mut_ptr() as *mut c_void,
        );
        assert_eq!(ub[0], 255, "R + G + B above 1 clamps in a fixed-point read");
        no_gl_error("luminance reads");

        for (internal, want) in [
            (glow::R3_G3_B2, [3, 3, 2, 0]),
            (glow::RGB5, [5, 5, 5, 0]),
            (glow::RGB10, [10, 10, 10, 0]),
            (glow::RGBA2, [2, 2, 2, 2]),
            (glow::RGBA12, [12, 12, 12, 12]),
        ] {
            texture(internal, 2, 2);
            let mut got = [0; 4];
            for (g, pname) in got.iter_mut().zip([
                glow::TEXTURE_RED_SIZE,
                glow::TEXTURE_GREEN_SIZE,
                glow::TEXTURE_BLUE_SIZE,
                glow::TEXTURE_ALPHA_SIZE,
            ]) {
                textures::glGetTexLevelParameteriv(glow::TEXTURE_2D, 0, pname, g);
            }
            assert_eq!(got, want, "component sizes of {internal:#x}");
        }
        no_gl_error("size queries");
    }
}

/// DEPTH_STENCIL reads of a depth-stencil framebuffer in both packed types.
pub unsafe fn check_depth_stencil_reads() {
    // SAFETY (whole body): GL calls on this thread with a current context.
    unsafe {
        common::make_context();
        common::bind_rgba8_framebuffer(4, 4);
        for internal in [glow::DEPTH24_STENCIL8, glow::DEPTH32F_STENCIL8] {
            let mut rb = 0;
            fb::glGenRenderbuffers(1, &mut rb);
            fb::glBindRenderbuffer(glow::RENDERBUFFER, rb);
            fb::glRenderbufferStorage(glow::RENDERBUFFER, internal, 4, 4);
            fb::glFramebufferRenderbuffer(
                glow::FRAMEBUFFER,
                glow::DEPTH_STENCIL_ATTACHMENT,
                glow::RENDERBUFFER,
                rb,
            );
            state::glClearDepth(0.25);
            state::glClearStencil(0x33);
            state::glClear(glow::DEPTH_BUFFER_BIT | glow::STENCIL_BUFFER_BIT);
            let mut word = [0u32; 1];
            pixels::glReadPixels(
                2,
                1,
                1,
                1,
                glow::DEPTH_STENCIL,
                glow::UNSIGNED_INT_24_8,
                word.as_mut_ptr() as *mut c_void,
            );
            no_gl_error("DEPTH_STENCIL / UNSIGNED_INT_24_8 read");
            let z = (word[0] >> 8) as f64 / 16_777_215.0;
            assert_eq!(
                word[0] & 0xFF,
                0x33,
                "{internal:#x}: stencil of a 24_8 read"
            );
            assert!(
                (z - 0.25).abs() < 1e-3,
                "{internal:#x}: depth {z} of a 24_8 read"
            );
            let mut pair = [0u32; 2];
            pixels::glReadPixels(
                2,
                1,
                1,
                1,
                glow::DEPTH_STENCIL,
                glow::FLOAT_32_UNSIGNED_INT_24_8_REV,
                pair.as_mut_ptr() as *mut c_void,
            );
            no_gl_error("DEPTH_STENCIL / FLOAT_32_UNSIGNED_INT_24_8_REV read");
            let d = f32::from_bits(pair[0]);
            assert!(
                (d - 0.25).abs() < 1e-3,
                "{internal:#x}: depth {d} of a 32F read"
            );
            assert_eq!(pair[1] & 0xFF, 0x33, "{internal:#x}: stencil of a 32F read");
        }
    }
}

/// Blending into an RGB16F texture with DST_ALPHA: the destination has no
/// alpha, which reads as 1 (whatever the storage holds).
pub unsafe fn check_dst_alpha_on_rgb_float() {
    // SAFETY (whole body): GL calls on this thread with a current context.
    unsafe {
        common::make_compat_context_version(3, 0);
        let t = texture(glow::RGB16F, 4, 4);
        let mut f = 0;
        fb::glGenFramebuffers(1, &mut f);
        fb::glBindFramebuffer(glow::FRAMEBUFFER, f);
        fb::glFramebufferTexture2D(
            glow::FRAMEBUFFER,
            glow::COLOR_ATTACHMENT0,
            glow::TEXTURE_2D,
            t,
            0,
        );
        assert_eq!(
            fb::glCheckFramebufferStatus(glow::FRAMEBUFFER),
            glow::FRAMEBUFFER_COMPLETE
        );
        state::glViewport(0, 0, 4, 4);
        state::glClearColor(0.0, 0.0, 0.0, 0.0);
        state::glClear(glow::COLOR_BUFFER_BIT);
        common::fullscreen_strip();
        state::glEnable(glow::BLEND);
        state::glBlendFunc(glow::DST_ALPHA, glow::ZERO);
        mobilegl::gl::legacy_arrays::glColor4f(0.5, 0.25, 0.75, 0.1);
        draw::glDrawArrays(glow::TRIANGLE_STRIP, 0, 4);
        no_gl_error("blended draw");
        let px = read_f32(1, 1, glow::RGBA, 4);
        let want = [0.5, 0.25, 0.75, 1.0];
        assert!(
            px.iter().zip(want).all(|(g, w)| (g - w).abs() < 0.01),
            "DST_ALPHA on RGB16F: got {px:?}, want {want:?}"
        );
    }
}

/// Rendering into the levels of a mutable texture one at a time, before
/// the mipmap chain is complete (GLES alone would call the framebuffer
/// incomplete), and a depth blit inside one framebuffer (GLES alone would
/// refuse the same source and destination buffer).
pub unsafe fn check_level_rendering_and_self_blit() {
    // SAFETY (whole body): GL calls on this thread with a current context.
    unsafe {
        common::make_context();
        let mut t = 0;
        textures::glGenTextures(1, &mut t);
        textures::glBindTexture(glow::TEXTURE_2D, t);
        let mut f = 0;
        fb::glGenFramebuffers(1, &mut f);
        fb::glBindFramebuffer(glow::FRAMEBUFFER, f);
        for (level, size) in [(0, 8), (1, 4), (2, 2)] {
            textures::glTexImage2D(
                glow::TEXTURE_2D,
                level,
                glow::RGBA8 as i32,
                size,
                size,
                0,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                std::ptr::null(),
            );
            fb::glFramebufferTexture2D(
                glow::FRAMEBUFFER,
                glow::COLOR_ATTACHMENT0,
                glow::TEXTURE_2D,
                t,
                level,
            );
            state::glViewport(0, 0, size, size);
            let c = 0.25 * (level + 1) as f32;
            state::glClearColor(c, 0.0, 0.0, 1.0);
            state::glClear(glow::COLOR_BUFFER_BIT);
            no_gl_error("clear of a level");
            let px = read_f32(0, 0, glow::RGBA, 4);
            assert!(
                (px[0] - c).abs() < 0.01,
                "level {level} rendered before the chain is complete: {px:?}"
            );
        }

        common::bind_rgba8_framebuffer(16, 16);
        let mut rb = 0;
        fb::glGenRenderbuffers(1, &mut rb);
        fb::glBindRenderbuffer(glow::RENDERBUFFER, rb);
        fb::glRenderbufferStorage(glow::RENDERBUFFER, glow::DEPTH_COMPONENT16, 16, 16);
        fb::glFramebufferRenderbuffer(
            glow::FRAMEBUFFER,
            glow::DEPTH_ATTACHMENT,
            glow::RENDERBUFFER,
            rb,
        );
        state::glClearDepth(0.75);
        state::glClear(glow::DEPTH_BUFFER_BIT);
        state::glEnable(glow::SCISSOR_TEST);
        state::glScissor(8, 8, 8, 8);
        state::glClearDepth(0.25);
        state::glClear(glow::DEPTH_BUFFER_BIT);
        state::glDisable(glow::SCISSOR_TEST);
        fb::glBlitFramebuffer(
            8,
            8,
            16,
            16,
            0,
            0,
            8,
            8,
            glow::DEPTH_BUFFER_BIT,
            glow::NEAREST,
        );
        no_gl_error("depth blit inside one framebuffer");
        let d = read_f32(2, 2, glow::DEPTH_COMPONENT, 1);
        assert!((d[0] - 0.25).abs() < 0.01, "blitted depth {d:?}, want 0.25");
    }
}

/// RGB colour attachments the GLES driver cannot render into as such
/// (RGB32F, RGB8UI: stored with alpha there) are complete, keep what is
/// drawn and read back alpha 1; RGB9_E5 is not colour-renderable in GL and
/// offered as unsupported (as Mesa does).
pub unsafe fn check_rgb_attachments() {
    // SAFETY (whole body): GL calls on this thread with a current context.
    unsafe {
        common::make_context();
        let attach = |t: u32| {
            let mut f = 0;
            fb::glGenFramebuffers(1, &mut f);
            fb::glBindFramebuffer(glow::FRAMEBUFFER, f);
            fb::glFramebufferTexture2D(
                glow::FRAMEBUFFER,
                glow::COLOR_ATTACHMENT0,
                glow::TEXTURE_2D,
                t,
                0,
            );
            fb::glCheckFramebufferStatus(glow::FRAMEBUFFER)
        };
        let t = texture(glow::RGB32F, 4, 4);
        assert_eq!(attach(t), glow::FRAMEBUFFER_COMPLETE, "RGB32F");
        state::glViewport(0, 0, 4, 4);
        state::glClearColor(0.25, 0.5, 0.75, 0.125);
        state::glClear(glow::COLOR_BUFFER_BIT);
        no_gl_error("clear RGB32F");
        assert_eq!(read_f32(1, 1, glow::RGBA, 4), [0.25, 0.5, 0.75, 1.0]);
        let mut img = vec![0f32; 4 * 4 * 4];
        mobilegl::gl::queries::glGetTexImage(
            glow::TEXTURE_2D,
            0,
            glow::RGBA,
            glow::FLOAT,
            img.as_mut_ptr() as *mut c_void,
        );
        assert_eq!(&img[..4], &[0.25, 0.5, 0.75, 1.0], "glGetTexImage RGB32F");

        let mut t = 0;
        textures::glGenTextures(1, &mut t);
        textures::glBindTexture(glow::TEXTURE_2D, t);
        let texel = [1u8, 2, 3];
        let data: Vec<u8> = texel.iter().copied().cycle().take(4 * 4 * 3).collect();
        textures::glTexImage2D(
            glow::TEXTURE_2D,
            0,
            glow::RGB8UI as i32,
            4,
            4,
            0,
            glow::RGB_INTEGER,
            glow::UNSIGNED_BYTE,
            data.as_ptr() as *const c_void,
        );
        assert_eq!(attach(t), glow::FRAMEBUFFER_COMPLETE, "RGB8UI");
        let mut px = [9u32; 4];
        pixels::glReadPixels(
            1,
            1,
            1,
            1,
            glow::RGBA_INTEGER,
            glow::UNSIGNED_INT,
            px.as_mut_ptr() as *mut c_void,
        );
        no_gl_error("read RGB8UI");
        assert_eq!(px, [1, 2, 3, 1], "RGB8UI upload read back");
        let clear = [7u32, 8, 9, 10];
        state::glClearBufferuiv(glow::COLOR, 0, clear.as_ptr());
        pixels::glReadPixels(
            1,
            1,
            1,
            1,
            glow::RGBA_INTEGER,
            glow::UNSIGNED_INT,
            px.as_mut_ptr() as *mut c_void,
        );
        assert_eq!(px, [7, 8, 9, 1], "RGB8UI cleared: alpha reads 1");

        let t = texture(glow::RGB9_E5, 4, 4);
        assert_eq!(attach(t), glow::FRAMEBUFFER_UNSUPPORTED, "RGB9_E5");
    }
}

/// glGetTexImage of legacy ALPHA and LUMINANCE_ALPHA textures uploaded
/// from RGBA: only the base format's components come back.
pub unsafe fn check_legacy_get_tex_image() {
    // SAFETY (whole body): GL calls on this thread with a current context.
    unsafe {
        common::make_compat_context_version(3, 0);
        const ALPHA16F: u32 = 0x881C;
        const LUMINANCE_ALPHA16F: u32 = 0x881F;
        let texel = [0.25f32, 0.5, 0.75, 0.8];
        for (internal, want) in [
            (ALPHA16F, [0.0, 0.0, 0.0, 0.8]),
            (LUMINANCE_ALPHA16F, [0.25, 0.0, 0.0, 0.8]),
        ] {
            let mut t = 0;
            textures::glGenTextures(1, &mut t);
            textures::glBindTexture(glow::TEXTURE_2D, t);
            textures::glTexImage2D(
                glow::TEXTURE_2D,
                0,
                internal as i32,
                1,
                1,
                0,
                glow::RGBA,
                glow::FLOAT,
                texel.as_ptr() as *const c_void,
            );
            let mut got = [-1.0f32; 4];
            mobilegl::gl::queries::glGetTexImage(
                glow::TEXTURE_2D,
                0,
                glow::RGBA,
                glow::FLOAT,
                got.as_mut_ptr() as *mut c_void,
            );
            no_gl_error("glGetTexImage of a legacy texture");
            assert!(
                got.iter().zip(want).all(|(g, w)| (g - w).abs() < 0.01),
                "{internal:#x}: got {got:?}, want {want:?}"
            );
        }
    }
}

/// CLAMP_TO_BORDER with a border colour other than the three Vulkan
/// names, sampled through a texture swizzle: GL applies the swizzle to the
/// border colour too.
pub unsafe fn check_custom_border_color() {
    // SAFETY (whole body): GL calls on this thread with a current context.
    unsafe {
        common::make_context();
        common::bind_rgba8_framebuffer(4, 4);
        state::glViewport(0, 0, 4, 4);
        let texel = [255u8, 255, 255, 255];
        common::texture_1x1(glow::RGBA8, glow::RGBA, glow::UNSIGNED_BYTE, texel.as_ptr());
        let border = [0.2f32, 0.4, 0.6, 0.8];
        textures::glTexParameterfv(
            glow::TEXTURE_2D,
            glow::TEXTURE_BORDER_COLOR,
            border.as_ptr(),
        );
        for pname in [glow::TEXTURE_WRAP_S, glow::TEXTURE_WRAP_T] {
            textures::glTexParameteri(glow::TEXTURE_2D, pname, glow::CLAMP_TO_BORDER as i32);
        }
        // Swizzle (B, R, A, G): the border reads (0.6, 0.2, 0.8, 0.4).
        let sw = [glow::BLUE, glow::RED, glow::ALPHA, glow::GREEN].map(|c| c as i32);
        textures::glTexParameteriv(glow::TEXTURE_2D, glow::TEXTURE_SWIZZLE_RGBA, sw.as_ptr());
        let p = common::link_program(
            "#version 330 core\nlayout(location = 0) in vec4 p;\nvoid main() { gl_Position = p; }\n",
            "#version 330 core\nuniform sampler2D t;\nout vec4 o;\nvoid main() { o = texture(t, vec2(3.0, -2.0)); }\n",
        );
        mobilegl::gl::shaders::glUseProgram(p);
        let mut vao = 0;
        mobilegl::gl::vertex::glGenVertexArrays(1, &mut vao);
        mobilegl::gl::vertex::glBindVertexArray(vao);
        common::fullscreen_strip();
        draw::glDrawArrays(glow::TRIANGLE_STRIP, 0, 4);
        no_gl_error("draw sampling the border");
        let px = common::pixel(1, 1);
        let want = [153u8, 51, 204, 102];
        assert!(
            px.iter().zip(want).all(|(&g, w)| g.abs_diff(w) <= 2),
            "swizzled border colour: got {px:?}, want {want:?}"
        );
    }
}
