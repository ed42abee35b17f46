//! `glCopyTexSubImage2D`/`3D` (GL 4.6 §8.6): the read framebuffer's
//! rectangle lands in the texture level at the offset, the scissor test
//! does not apply, the application's framebuffer is drawn to again
//! afterwards, and the errors are the spec's.
//!
//! `cargo nextest run -p frontend --test copy_tex_sub_image`

mod common;
use common::{bind_rgba8_framebuffer, expect_error, make_context, no_gl_error};
use mobilegl::gl::{copy_texture as ct, pixels, queries, state, textures};

const RED: [u8; 4] = [255, 0, 0, 255];
const GREEN: [u8; 4] = [0, 255, 0, 255];
const BLUE: [u8; 4] = [0, 0, 255, 255];

/// Level 0 of the texture bound to `target`, `n` RGBA8 texels.
unsafe fn texels(target: u32, n: usize) -> Vec<[u8; 4]> {
    let mut out = vec![0u8; n * 4];
    // SAFETY: room for the whole level; a context is current.
    unsafe {
        queries::glGetTexImage(
            target,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            out.as_mut_ptr().cast(),
        )
    };
    no_gl_error("glGetTexImage");
    out.chunks(4).map(|c| [c[0], c[1], c[2], c[3]]).collect()
}

/// Source framebuffer: 8x8 RGBA8, red, with pixel (0, 0) green; the
/// scissor test is left enabled on that pixel.
unsafe fn red_source_with_green_origin() {
    // SAFETY: GL calls on this thread with a current context.
    unsafe {
        bind_rgba8_framebuffer(8, 8);
        state::glClearColor(1.0, 0.0, 0.0, 1.0);
        state::glClear(glow::COLOR_BUFFER_BIT);
        state::glEnable(glow::SCISSOR_TEST);
        state::glScissor(0, 0, 1, 1);
        state::glClearColor(0.0, 1.0, 0.0, 1.0);
        state::glClear(glow::COLOR_BUFFER_BIT);
    }
}

#[test]
fn copies_the_read_rectangle_into_the_level() {
    // SAFETY: GL calls on this thread with a current context; every
    // pointer covers what the call reads or writes.
    unsafe {
        make_context();
        red_source_with_green_origin();
        // The scissor box stays enabled and small: copies ignore it.

        let mut tex = 0;
        textures::glGenTextures(1, &mut tex);
        textures::glBindTexture(glow::TEXTURE_2D, tex);
        let blue: Vec<u8> = BLUE.repeat(64);
        textures::glTexImage2D(
            glow::TEXTURE_2D,
            0,
            glow::RGBA8 as i32,
            8,
            8,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            blue.as_ptr().cast(),
        );
        ct::glCopyTexSubImage2D(glow::TEXTURE_2D, 0, 2, 3, 0, 0, 4, 4);
        no_gl_error("glCopyTexSubImage2D");
        let t = texels(glow::TEXTURE_2D, 64);
        let at = |x: usize, y: usize| t[y * 8 + x];
        assert_eq!(at(2, 3), GREEN, "source (0, 0) at offset (2, 3)");
        assert_eq!(at(5, 6), RED, "source (3, 3)");
        assert_eq!(at(3, 3), RED, "source (1, 0), outside the scissor box");
        assert_eq!(at(1, 3), BLUE, "left of the rectangle");
        assert_eq!(at(6, 6), BLUE, "right of the rectangle");
        assert_eq!(at(2, 7), BLUE, "above the rectangle");

        // The application's framebuffer is the draw target again.
        state::glDisable(glow::SCISSOR_TEST);
        state::glClearColor(0.0, 0.0, 1.0, 1.0);
        state::glClear(glow::COLOR_BUFFER_BIT);
        let mut px = [0u8; 4];
        pixels::glReadPixels(
            5,
            5,
            1,
            1,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            px.as_mut_ptr().cast(),
        );
        assert_eq!(px, BLUE, "a clear after the copy reaches the framebuffer");
        assert_eq!(
            texels(glow::TEXTURE_2D, 64)[3 * 8 + 2],
            GREEN,
            "not the texture"
        );

        // Errors.
        ct::glCopyTexSubImage2D(glow::TEXTURE_3D, 0, 0, 0, 0, 0, 1, 1);
        expect_error("a 3D target in the 2D call", glow::INVALID_ENUM);
        ct::glCopyTexSubImage2D(glow::TEXTURE_2D, 0, 6, 0, 0, 0, 4, 1);
        expect_error("past the level's width", glow::INVALID_VALUE);
        ct::glCopyTexSubImage2D(glow::TEXTURE_2D, 0, 0, 0, 0, 0, -1, 1);
        expect_error("negative width", glow::INVALID_VALUE);
        ct::glCopyTexSubImage2D(glow::TEXTURE_2D, 1, 0, 0, 0, 0, 1, 1);
        expect_error("an undefined level", glow::INVALID_OPERATION);

        // 3D call: layer 1 of a 2D array.
        let mut arr = 0;
        textures::glGenTextures(1, &mut arr);
        textures::glBindTexture(glow::TEXTURE_2D_ARRAY, arr);
        let blue3: Vec<u8> = BLUE.repeat(4 * 4 * 3);
        textures::glTexImage3D(
            glow::TEXTURE_2D_ARRAY,
            0,
            glow::RGBA8 as i32,
            4,
            4,
            3,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            blue3.as_ptr().cast(),
        );
        state::glClearColor(1.0, 0.0, 0.0, 1.0);
        state::glClear(glow::COLOR_BUFFER_BIT);
        ct::glCopyTexSubImage3D(glow::TEXTURE_2D_ARRAY, 0, 0, 0, 1, 0, 0, 2, 2);
        no_gl_error("glCopyTexSubImage3D");
        let t = texels(glow::TEXTURE_2D_ARRAY, 48);
        assert_eq!(t[16], RED, "layer 1, texel (0, 0)");
        assert_eq!(t[16 + 5], RED, "layer 1, texel (1, 1)");
        assert_eq!(t[16 + 2], BLUE, "layer 1, texel (2, 0)");
        assert_eq!(t[0], BLUE, "layer 0 untouched");
        assert_eq!(t[32], BLUE, "layer 2 untouched");
        ct::glCopyTexSubImage3D(glow::TEXTURE_2D_ARRAY, 0, 0, 0, 3, 0, 0, 1, 1);
        expect_error("a layer past the array", glow::INVALID_VALUE);
    }
}

/// `glCopyTexImage2D` (re)defines the level at the rectangle's size and
/// fills it; a bad border is an error that leaves the texture unchanged.
#[test]
fn copy_tex_image_defines_and_fills_the_level() {
    // SAFETY: GL calls on this thread with a current context; every
    // pointer covers what the call reads or writes.
    unsafe {
        make_context();
        red_source_with_green_origin();
        state::glDisable(glow::SCISSOR_TEST);

        let mut tex = 0;
        textures::glGenTextures(1, &mut tex);
        textures::glBindTexture(glow::TEXTURE_2D, tex);
        ct::glCopyTexImage2D(glow::TEXTURE_2D, 0, glow::RGBA, 0, 0, 4, 2, 0);
        no_gl_error("glCopyTexImage2D");
        let mut w = 0;
        let mut h = 0;
        textures::glGetTexLevelParameteriv(glow::TEXTURE_2D, 0, glow::TEXTURE_WIDTH, &mut w);
        textures::glGetTexLevelParameteriv(glow::TEXTURE_2D, 0, glow::TEXTURE_HEIGHT, &mut h);
        assert_eq!((w, h), (4, 2), "level size");
        let t = texels(glow::TEXTURE_2D, 8);
        assert_eq!(t[0], GREEN, "source (0, 0)");
        assert_eq!(t[1], RED, "source (1, 0)");
        assert_eq!(t[7], RED, "source (3, 1)");

        ct::glCopyTexImage2D(glow::TEXTURE_2D, 0, glow::RGBA, 0, 0, 2, 2, 1);
        expect_error("border 1", glow::INVALID_VALUE);
        textures::glGetTexLevelParameteriv(glow::TEXTURE_2D, 0, glow::TEXTURE_WIDTH, &mut w);
        assert_eq!(w, 4, "an erroring copy leaves the level alone");
        ct::glCopyTexImage2D(glow::TEXTURE_3D, 0, glow::RGBA, 0, 0, 2, 2, 0);
        expect_error("3D target", glow::INVALID_ENUM);
    }
}

/// Rectangle textures take copies (level 0 only), through the DSA entry
/// point too; a compatibility context's bordered copy keeps the inner
/// rectangle.
#[test]
fn rectangle_and_bordered_copies() {
    // SAFETY: GL calls on this thread with a current context; every
    // pointer covers what the call reads or writes.
    unsafe {
        common::make_compat_context_version(3, 0);
        red_source_with_green_origin();
        state::glDisable(glow::SCISSOR_TEST);

        let mut tex = 0;
        textures::glGenTextures(1, &mut tex);
        textures::glBindTexture(glow::TEXTURE_RECTANGLE, tex);
        ct::glCopyTexImage2D(glow::TEXTURE_RECTANGLE, 0, glow::RGBA8, 0, 0, 3, 1, 0);
        no_gl_error("glCopyTexImage2D(RECTANGLE)");
        assert_eq!(texels(glow::TEXTURE_RECTANGLE, 3), [GREEN, RED, RED]);
        let blue: Vec<u8> = BLUE.repeat(3);
        textures::glTexSubImage2D(
            glow::TEXTURE_RECTANGLE,
            0,
            0,
            0,
            3,
            1,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            blue.as_ptr().cast(),
        );
        mobilegl::gl::dsa::glCopyTextureSubImage2D(tex, 0, 1, 0, 0, 0, 1, 1);
        no_gl_error("glCopyTextureSubImage2D(RECTANGLE)");
        assert_eq!(texels(glow::TEXTURE_RECTANGLE, 3), [BLUE, GREEN, BLUE]);
        ct::glCopyTexSubImage2D(glow::TEXTURE_RECTANGLE, 1, 0, 0, 0, 0, 1, 1);
        expect_error("rectangle level 1", glow::INVALID_VALUE);
        ct::glCopyTexImage2D(glow::TEXTURE_RECTANGLE, 0, glow::RGBA8, 0, 0, 3, 3, 1);
        expect_error("rectangle border", glow::INVALID_VALUE);

        // Border 1: the level is the 2x1 inside of the 4x3 source at (0, 0).
        let mut t2 = 0;
        textures::glGenTextures(1, &mut t2);
        textures::glBindTexture(glow::TEXTURE_2D, t2);
        ct::glCopyTexImage2D(glow::TEXTURE_2D, 0, glow::RGBA8, 0, 0, 4, 3, 1);
        no_gl_error("bordered glCopyTexImage2D");
        let mut w = 0;
        textures::glGetTexLevelParameteriv(glow::TEXTURE_2D, 0, glow::TEXTURE_WIDTH, &mut w);
        assert_eq!(w, 2);
        assert_eq!(texels(glow::TEXTURE_2D, 2), [RED, RED]);
        ct::glCopyTexImage2D(glow::TEXTURE_2D, 0, glow::RGBA8, -1, -1, 4, 3, 1);
        assert_eq!(texels(glow::TEXTURE_2D, 2), [GREEN, RED]);
    }
}

/// 1D textures: glCopyTexImage1D defines the level from one row,
/// glCopyTexSubImage1D and glCopyTextureSubImage1D copy into it.
#[test]
fn one_dimensional_copies() {
    // SAFETY: GL calls on this thread with a current context; every
    // pointer covers what the call reads or writes.
    unsafe {
        make_context();
        red_source_with_green_origin();
        state::glDisable(glow::SCISSOR_TEST);

        let mut tex = 0;
        textures::glGenTextures(1, &mut tex);
        textures::glBindTexture(glow::TEXTURE_1D, tex);
        ct::glCopyTexImage1D(glow::TEXTURE_1D, 0, glow::RGBA8, 0, 0, 3, 0);
        no_gl_error("glCopyTexImage1D");
        let mut w = 0;
        textures::glGetTexLevelParameteriv(glow::TEXTURE_1D, 0, glow::TEXTURE_WIDTH, &mut w);
        assert_eq!(w, 3);
        assert_eq!(texels(glow::TEXTURE_1D, 3), [GREEN, RED, RED]);
        ct::glCopyTexSubImage1D(glow::TEXTURE_1D, 0, 2, 0, 0, 1);
        no_gl_error("glCopyTexSubImage1D");
        assert_eq!(texels(glow::TEXTURE_1D, 3), [GREEN, RED, GREEN]);
        mobilegl::gl::dsa::glCopyTextureSubImage1D(tex, 0, 0, 1, 0, 1);
        no_gl_error("glCopyTextureSubImage1D");
        assert_eq!(texels(glow::TEXTURE_1D, 3), [RED, RED, GREEN]);
        ct::glCopyTexSubImage1D(glow::TEXTURE_1D, 0, 2, 0, 0, 2);
        expect_error("past the level's width", glow::INVALID_VALUE);
        ct::glCopyTexImage1D(glow::TEXTURE_2D, 0, glow::RGBA8, 0, 0, 3, 0);
        expect_error("2D target", glow::INVALID_ENUM);
        for n in 1..=4 {
            ct::glCopyTexImage1D(glow::TEXTURE_1D, 0, n, 0, 0, 3, 0);
            expect_error("GL 1.0 component count", glow::INVALID_ENUM);
        }
        let mut t2 = 0;
        textures::glGenTextures(1, &mut t2);
        textures::glBindTexture(glow::TEXTURE_2D, t2);
        textures::glTexStorage2D(glow::TEXTURE_2D, 1, glow::RGBA8, 2, 2);
        mobilegl::gl::dsa::glCopyTextureSubImage1D(t2, 0, 0, 0, 0, 1);
        expect_error("DSA 1D copy into a 2D texture", glow::INVALID_OPERATION);
    }
}

/// Depth copies between depth formats (`common::fbo::check_depth_copies`).
#[test]
fn depth_copies_convert_formats_and_reach_layers() {
    // SAFETY: the helper runs on the context made here, on this thread.
    unsafe {
        make_context();
        common::fbo::check_depth_copies();
    }
}
