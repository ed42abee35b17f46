//! Legacy ALPHA / LUMINANCE / LUMINANCE_ALPHA / INTENSITY textures in a
//! compatibility context: they are created, report their own component
//! sizes and internal format, sample as GL says through the fixed-function
//! path, and are not offered as render targets; a core context refuses them.
//! Also the component size/type queries of the core formats.
//!
//! `cargo nextest run -p frontend --test legacy_formats`

mod common;

use common::{
    bind_rgba8_framebuffer, expect_error, fullscreen_strip, no_gl_error, pixel, texture_1x1,
};
use mobilegl::gl::{draw, fixed_function as ff, framebuffers as fb, state, textures};

const GL_TEXTURE_ENV: u32 = 0x2300;
const GL_TEXTURE_ENV_MODE: u32 = 0x2200;
const GL_MODULATE: u32 = 0x2100;
const GL_ALPHA8: u32 = 0x803C;
const GL_LUMINANCE8: u32 = 0x8040;
const GL_LUMINANCE8_ALPHA8: u32 = 0x8045;
const GL_INTENSITY8: u32 = 0x804B;
const GL_TEXTURE_LUMINANCE_SIZE: u32 = 0x8060;
const GL_TEXTURE_INTENSITY_SIZE: u32 = 0x8061;

/// A 1x1 texture of `internal` from client `format` bytes, bound to
/// GL_TEXTURE_2D on unit 0; its name.
unsafe fn texture(internal: u32, format: u32, data: &[u8]) -> u32 {
    // SAFETY: a context is current; `data` holds one pixel of `format`.
    unsafe { texture_1x1(internal, format, glow::UNSIGNED_BYTE, data.as_ptr()) }
}

unsafe fn level_param(pname: u32) -> i32 {
    let mut v = -1;
    // SAFETY: a context is current; `v` is one writable value.
    unsafe { textures::glGetTexLevelParameteriv(glow::TEXTURE_2D, 0, pname, &mut v) };
    v
}

/// A current compatibility context drawing a textured full-target strip
/// into a 4x4 RGBA8 framebuffer with the current colour `colour`.
unsafe fn textured_target(colour: [f32; 4]) {
    // SAFETY: the helpers make and bind their own context.
    unsafe {
        common::make_compat_context_version(2, 1);
        bind_rgba8_framebuffer(4, 4);
        state::glViewport(0, 0, 4, 4);
        fullscreen_strip();
        state::glEnable(glow::TEXTURE_2D);
        let [r, g, b, a] = colour;
        mobilegl::gl::legacy_arrays::glColor4f(r, g, b, a);
    }
}

/// Draw the bound texture over the target with the current colour
/// (0.5, 0.25, 1, 0.5) and read the middle pixel.
unsafe fn draw_textured(mode: u32) -> [u8; 4] {
    // SAFETY: a context is current with a bound framebuffer and vertices.
    unsafe {
        ff::glTexEnvi(GL_TEXTURE_ENV, GL_TEXTURE_ENV_MODE, mode as i32);
        state::glClearColor(0.0, 0.0, 0.0, 0.0);
        state::glClear(glow::COLOR_BUFFER_BIT);
        draw::glDrawArrays(glow::TRIANGLE_STRIP, 0, 4);
        no_gl_error("textured draw");
        pixel(2, 2)
    }
}

fn near(got: [u8; 4], want: [u8; 4]) -> bool {
    got.iter().zip(want).all(|(g, w)| g.abs_diff(w) <= 1)
}

#[test]
fn legacy_textures_report_and_sample_their_base_format() {
    // SAFETY (whole body): GL calls on this thread with a current context.
    unsafe {
        textured_target([0.5, 0.25, 1.0, 0.5]);

        // ALPHA: (0, 0, 0, A) sampled; REPLACE keeps the fragment colour.
        texture(GL_ALPHA8, glow::ALPHA, &[200]);
        no_gl_error("ALPHA8 texture");
        assert_eq!(level_param(glow::TEXTURE_INTERNAL_FORMAT) as u32, GL_ALPHA8);
        assert_eq!(level_param(glow::TEXTURE_ALPHA_SIZE), 8);
        assert_eq!(level_param(glow::TEXTURE_RED_SIZE), 0);
        assert_eq!(level_param(GL_TEXTURE_LUMINANCE_SIZE), 0);
        let px = draw_textured(glow::REPLACE);
        assert!(near(px, [128, 64, 255, 200]), "ALPHA REPLACE {px:?}");
        let px = draw_textured(GL_MODULATE);
        assert!(near(px, [128, 64, 255, 100]), "ALPHA MODULATE {px:?}");

        // LUMINANCE: (L, L, L, 1); REPLACE keeps the fragment alpha.
        texture(GL_LUMINANCE8, glow::LUMINANCE, &[100]);
        assert_eq!(level_param(GL_TEXTURE_LUMINANCE_SIZE), 8);
        assert_eq!(level_param(glow::TEXTURE_RED_SIZE), 0);
        let px = draw_textured(glow::REPLACE);
        assert!(near(px, [100, 100, 100, 128]), "LUMINANCE REPLACE {px:?}");

        // INTENSITY: (I, I, I, I).
        texture(GL_INTENSITY8, glow::LUMINANCE, &[60]);
        assert_eq!(level_param(GL_TEXTURE_INTENSITY_SIZE), 8);
        let px = draw_textured(glow::REPLACE);
        assert!(near(px, [60, 60, 60, 60]), "INTENSITY REPLACE {px:?}");

        // LUMINANCE_ALPHA: (L, L, L, A); the application's swizzle reads
        // through the format's.
        texture(GL_LUMINANCE8_ALPHA8, glow::LUMINANCE_ALPHA, &[40, 220]);
        assert_eq!(level_param(GL_TEXTURE_LUMINANCE_SIZE), 8);
        assert_eq!(level_param(glow::TEXTURE_ALPHA_SIZE), 8);
        let px = draw_textured(glow::REPLACE);
        assert!(near(px, [40, 40, 40, 220]), "LUMINANCE_ALPHA {px:?}");
        textures::glTexParameteri(
            glow::TEXTURE_2D,
            glow::TEXTURE_SWIZZLE_R,
            glow::ALPHA as i32,
        );
        let px = draw_textured(glow::REPLACE);
        assert!(
            near(px, [220, 40, 40, 220]),
            "swizzled LUMINANCE_ALPHA {px:?}"
        );

        // Not a render target here: UNSUPPORTED, never a wrong picture.
        let t = texture(GL_ALPHA8, glow::ALPHA, &[1]);
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
            glow::FRAMEBUFFER_UNSUPPORTED
        );
        no_gl_error("legacy attachment");
    }
}

#[test]
fn core_context_refuses_legacy_formats() {
    // SAFETY (whole body): GL calls on this thread with a current context.
    unsafe {
        common::make_context_version(3, 3);
        texture(GL_ALPHA8, glow::RGBA, &[1, 2, 3, 4]);
        expect_error("ALPHA8 in core", glow::INVALID_VALUE);
        let mut v = 0;
        textures::glGetTexLevelParameteriv(glow::TEXTURE_2D, 0, GL_TEXTURE_LUMINANCE_SIZE, &mut v);
        expect_error("LUMINANCE_SIZE in core", glow::INVALID_ENUM);
        // An unsized request reads back as asked.
        texture(glow::RGBA, glow::RGBA, &[1, 2, 3, 4]);
        no_gl_error("RGBA texture");
        assert_eq!(
            level_param(glow::TEXTURE_INTERNAL_FORMAT) as u32,
            glow::RGBA
        );
        assert_eq!(level_param(glow::TEXTURE_RED_SIZE), 8);
    }
}

#[test]
fn depth_texture_mode_in_compatibility_contexts() {
    const GL_DEPTH_TEXTURE_MODE: u32 = 0x884B;
    // SAFETY (whole body): GL calls on this thread with a current context.
    unsafe {
        textured_target([1.0; 4]);
        let depth = 0.5f32;
        texture_1x1(
            glow::DEPTH_COMPONENT24,
            glow::DEPTH_COMPONENT,
            glow::FLOAT,
            (&depth as *const f32).cast(),
        );
        no_gl_error("depth texture");
        // The compatibility default is LUMINANCE: (d, d, d, 1).
        let mut mode = 0;
        textures::glGetTexParameteriv(glow::TEXTURE_2D, GL_DEPTH_TEXTURE_MODE, &mut mode);
        assert_eq!(mode as u32, glow::LUMINANCE);
        let px = draw_textured(glow::REPLACE);
        assert!(near(px, [128, 128, 128, 255]), "LUMINANCE depth {px:?}");
        textures::glTexParameteri(glow::TEXTURE_2D, GL_DEPTH_TEXTURE_MODE, glow::RED as i32);
        let px = draw_textured(glow::REPLACE);
        assert!(near(px, [128, 0, 0, 255]), "RED depth {px:?}");
        textures::glTexParameteri(glow::TEXTURE_2D, GL_DEPTH_TEXTURE_MODE, glow::RGBA as i32);
        expect_error("bad depth texture mode", glow::INVALID_ENUM);
    }
}

#[test]
fn generate_mipmap_parameter_fills_the_chain() {
    const GL_GENERATE_MIPMAP: u32 = 0x8191;
    // SAFETY (whole body): GL calls on this thread with a current context.
    unsafe {
        common::make_compat_context_version(2, 1);
        let mut t = 0;
        textures::glGenTextures(1, &mut t);
        textures::glBindTexture(glow::TEXTURE_2D, t);
        // GL_GENERATE_MIPMAP: a base-level upload fills the chain.
        let texels = [255u8; 16];
        textures::glTexParameteri(glow::TEXTURE_2D, GL_GENERATE_MIPMAP, 1);
        let mut v = 0;
        textures::glGetTexParameteriv(glow::TEXTURE_2D, GL_GENERATE_MIPMAP, &mut v);
        assert_eq!(v, 1);
        textures::glTexImage2D(
            glow::TEXTURE_2D,
            0,
            glow::RGBA8 as i32,
            2,
            2,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            texels.as_ptr().cast(),
        );
        no_gl_error("auto-mipmapped upload");
        let mut w = 0;
        textures::glGetTexLevelParameteriv(glow::TEXTURE_2D, 1, glow::TEXTURE_WIDTH, &mut w);
        assert_eq!(w, 1);
    }
}

#[test]
fn core_context_has_no_depth_texture_mode() {
    // SAFETY (whole body): GL calls on this thread with a current context.
    unsafe {
        common::make_context_version(3, 3);
        let mut t = 0;
        textures::glGenTextures(1, &mut t);
        textures::glBindTexture(glow::TEXTURE_2D, t);
        textures::glTexParameteri(glow::TEXTURE_2D, 0x884B, glow::LUMINANCE as i32);
        expect_error("DEPTH_TEXTURE_MODE in core", glow::INVALID_ENUM);
        textures::glTexParameteri(glow::TEXTURE_2D, 0x8191, 1);
        expect_error("GENERATE_MIPMAP in core", glow::INVALID_ENUM);
    }
}

#[test]
fn component_size_and_type_queries_cover_the_required_formats() {
    // SAFETY (whole body): GL calls on this thread with a current context.
    unsafe {
        common::make_context_version(3, 3);
        let query = |internal: u32| {
            let texel = [0u8; 16];
            texture_1x1(internal, glow::RGBA, glow::UNSIGNED_BYTE, texel.as_ptr());
            no_gl_error("texture of a required format");
            [
                level_param(glow::TEXTURE_INTERNAL_FORMAT) as u32,
                level_param(glow::TEXTURE_RED_SIZE) as u32,
                level_param(glow::TEXTURE_RED_TYPE) as u32,
                level_param(glow::TEXTURE_ALPHA_TYPE) as u32,
            ]
        };
        // RGTC arrives uncompressed and is stored so; the level keeps the
        // requested format.
        assert_eq!(
            query(glow::COMPRESSED_SIGNED_RED_RGTC1),
            [
                glow::COMPRESSED_SIGNED_RED_RGTC1,
                8,
                glow::SIGNED_NORMALIZED,
                glow::NONE
            ]
        );
        assert_eq!(
            query(glow::RGB16_SNORM),
            [glow::RGB16_SNORM, 16, glow::SIGNED_NORMALIZED, glow::NONE]
        );
        assert_eq!(
            query(glow::RGB9_E5),
            [glow::RGB9_E5, 9, glow::FLOAT, glow::NONE]
        );
        assert_eq!(
            query(glow::RGBA8),
            [
                glow::RGBA8,
                8,
                glow::UNSIGNED_NORMALIZED,
                glow::UNSIGNED_NORMALIZED
            ]
        );
        let depth = 0.5f32;
        texture_1x1(
            glow::DEPTH_COMPONENT32F,
            glow::DEPTH_COMPONENT,
            glow::FLOAT,
            (&depth as *const f32).cast(),
        );
        assert_eq!(level_param(glow::TEXTURE_DEPTH_TYPE) as u32, glow::FLOAT);
        assert_eq!(level_param(glow::TEXTURE_RED_TYPE) as u32, glow::NONE);
    }
}

/// GL 4.6 compatibility §9.4: the legacy families are renderbuffer formats
/// there (not in core); like legacy textures they are not offered as
/// render targets (UNSUPPORTED) but report the format asked for.
#[test]
fn legacy_renderbuffer_formats() {
    // SAFETY (whole body): GL calls on this thread with a current context.
    unsafe {
        common::make_compat_context_version(2, 1);
        let mut rb = 0;
        fb::glGenRenderbuffers(1, &mut rb);
        fb::glBindRenderbuffer(glow::RENDERBUFFER, rb);
        let mut f = 0;
        fb::glGenFramebuffers(1, &mut f);
        fb::glBindFramebuffer(glow::FRAMEBUFFER, f);
        fb::glFramebufferRenderbuffer(
            glow::FRAMEBUFFER,
            glow::COLOR_ATTACHMENT0,
            glow::RENDERBUFFER,
            rb,
        );
        for internal in [
            glow::ALPHA,
            GL_ALPHA8,
            glow::LUMINANCE,
            GL_LUMINANCE8_ALPHA8,
            GL_INTENSITY8,
        ] {
            fb::glRenderbufferStorage(glow::RENDERBUFFER, internal, 4, 4);
            no_gl_error("legacy renderbuffer storage");
            let mut v = 0;
            fb::glGetRenderbufferParameteriv(
                glow::RENDERBUFFER,
                glow::RENDERBUFFER_INTERNAL_FORMAT,
                &mut v,
            );
            assert_eq!(v as u32, internal);
            assert_eq!(
                fb::glCheckFramebufferStatus(glow::FRAMEBUFFER),
                glow::FRAMEBUFFER_UNSUPPORTED
            );
        }
        // GL 1.0's component counts and the sRGB luminance formats are not.
        fb::glRenderbufferStorage(glow::RENDERBUFFER, 1, 4, 4);
        expect_error("renderbuffer of 1 component", glow::INVALID_ENUM);
        fb::glRenderbufferStorage(glow::RENDERBUFFER, glow::RGBA8, 4, 4);
        assert_eq!(
            fb::glCheckFramebufferStatus(glow::FRAMEBUFFER),
            glow::FRAMEBUFFER_COMPLETE
        );

        common::make_context_version(3, 3);
        fb::glGenRenderbuffers(1, &mut rb);
        fb::glBindRenderbuffer(glow::RENDERBUFFER, rb);
        fb::glRenderbufferStorage(glow::RENDERBUFFER, GL_ALPHA8, 4, 4);
        expect_error("ALPHA8 renderbuffer in core", glow::INVALID_ENUM);
    }
}

/// GL 4.6 compatibility §8.5.3: a border of 1 is accepted (not for
/// rectangle textures, not in core); the level is the inner image, read
/// out of the application's bordered one.
#[test]
fn texture_border_is_stripped() {
    // SAFETY (whole body): GL calls on this thread with a current context;
    // every client image holds the described pixels.
    unsafe {
        common::make_compat_context_version(2, 1);
        let mut t = 0;
        textures::glGenTextures(1, &mut t);
        textures::glBindTexture(glow::TEXTURE_2D, t);
        // A 4x3 RGBA8 image: border texels 0xFF, inner texel (x, y) = 10y + x.
        let mut img = Vec::new();
        for y in 0..3u8 {
            for x in 0..4u8 {
                let inner = (1..3).contains(&x) && y == 1;
                let v = if inner { 10 * (y - 1) + (x - 1) } else { 0xFF };
                img.extend_from_slice(&[v, v, v, v]);
            }
        }
        textures::glTexImage2D(
            glow::TEXTURE_2D,
            0,
            glow::RGBA8 as i32,
            4,
            3,
            1,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            img.as_ptr().cast(),
        );
        no_gl_error("bordered glTexImage2D");
        assert_eq!(level_param(glow::TEXTURE_WIDTH), 2);
        assert_eq!(level_param(glow::TEXTURE_HEIGHT), 1);
        let mut out = [0xEEu8; 8];
        mobilegl::gl::queries::glGetTexImage(
            glow::TEXTURE_2D,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            out.as_mut_ptr().cast(),
        );
        no_gl_error("glGetTexImage");
        assert_eq!(out, [0, 0, 0, 0, 1, 1, 1, 1]);
        // Too small to have a border, or a border of 2: INVALID_VALUE.
        textures::glTexImage2D(
            glow::TEXTURE_2D,
            0,
            glow::RGBA8 as i32,
            1,
            3,
            1,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            std::ptr::null(),
        );
        expect_error("width 1 with a border", glow::INVALID_VALUE);
        textures::glTexImage2D(
            glow::TEXTURE_2D,
            0,
            glow::RGBA8 as i32,
            6,
            6,
            2,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            std::ptr::null(),
        );
        expect_error("border 2", glow::INVALID_VALUE);
        textures::glBindTexture(glow::TEXTURE_RECTANGLE, t + 100);
        textures::glTexImage2D(
            glow::TEXTURE_RECTANGLE,
            0,
            glow::RGBA8 as i32,
            4,
            4,
            1,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            std::ptr::null(),
        );
        expect_error("rectangle texture with a border", glow::INVALID_VALUE);

        common::make_context_version(3, 3);
        textures::glGenTextures(1, &mut t);
        textures::glBindTexture(glow::TEXTURE_2D, t);
        textures::glTexImage2D(
            glow::TEXTURE_2D,
            0,
            glow::RGBA8 as i32,
            4,
            4,
            1,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            std::ptr::null(),
        );
        expect_error("border in core", glow::INVALID_VALUE);
    }
}
