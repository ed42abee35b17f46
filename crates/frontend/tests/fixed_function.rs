//! Fixed-function draws (no program bound) in a compatibility context:
//! texturing per environment mode, the alpha test, the legacy enables and
//! the entry points' errors; a core context refuses all of it.
//!
//! `cargo nextest run -p frontend --test fixed_function`

mod common;

use common::{
    bind_rgba8_framebuffer, buffer_with, expect_error, fullscreen_strip, no_gl_error, pixel,
    texture_1x1,
};
use mobilegl::gl::{
    draw, fixed_function as ff, get, immediate as im, legacy_arrays as la, state, vertex,
};

const GL_TEXTURE_ENV: u32 = 0x2300;
const GL_TEXTURE_ENV_MODE: u32 = 0x2200;
const GL_MODULATE: u32 = 0x2100;
const GL_COMBINE: u32 = 0x8570;
const GL_COMBINE_RGB: u32 = 0x8571;
const GL_RGB_SCALE: u32 = 0x8573;
const GL_CONSTANT: u32 = 0x8576;
const GL_SOURCE0_RGB: u32 = 0x8580;
const GL_TEXTURE_ENV_COLOR: u32 = 0x2201;
const GL_ALPHA_TEST: u32 = 0x0BC0;
const GL_LIGHTING: u32 = 0x0B50;
const GL_SHADE_MODEL: u32 = 0x0B54;
const GL_FLAT: u32 = 0x1D00;

/// A current surfaceless context of the requested version and profile.
unsafe fn make_context(major: i32, minor: i32, core: bool) {
    // SAFETY: the helpers make and bind their own context.
    unsafe {
        if core {
            common::make_context_version(major, minor)
        } else {
            common::make_compat_context_version(major, minor)
        }
    }
}

/// A 1x1 RGBA8 texture of `texel` bound to GL_TEXTURE_2D on unit 0.
unsafe fn texel_texture(texel: [u8; 4]) {
    // SAFETY: a context is current; `texel` is one RGBA8 pixel.
    unsafe { texture_1x1(glow::RGBA8, glow::RGBA, glow::UNSIGNED_BYTE, texel.as_ptr()) };
}

unsafe fn clear_and_draw() -> [u8; 4] {
    // SAFETY: a context is current with a bound framebuffer and vertices.
    unsafe {
        state::glClearColor(0.0, 0.0, 1.0, 1.0);
        state::glClear(glow::COLOR_BUFFER_BIT);
        draw::glDrawArrays(glow::TRIANGLE_STRIP, 0, 4);
        no_gl_error("fixed-function draw");
        pixel(2, 2)
    }
}

#[test]
fn fixed_function_draws_follow_texture_env_and_alpha_test() {
    // SAFETY (whole body): GL calls on this thread with a current context.
    unsafe {
        make_context(2, 1, false);
        bind_rgba8_framebuffer(4, 4);
        state::glViewport(0, 0, 4, 4);
        fullscreen_strip();
        // No texturing: the current colour (initially white).
        assert_eq!(clear_and_draw(), [255, 255, 255, 255]);

        texel_texture([200, 100, 50, 255]);
        state::glEnable(glow::TEXTURE_2D);
        no_gl_error("glEnable(GL_TEXTURE_2D)");
        assert_eq!(state::glIsEnabled(glow::TEXTURE_2D), 1);
        ff::glTexEnvi(GL_TEXTURE_ENV, GL_TEXTURE_ENV_MODE, glow::REPLACE as i32);
        assert_eq!(clear_and_draw(), [200, 100, 50, 255]);
        // MODULATE with white: the texel again; the mode reads back.
        ff::glTexEnvi(GL_TEXTURE_ENV, GL_TEXTURE_ENV_MODE, GL_MODULATE as i32);
        let mut mode = 0;
        ff::glGetTexEnviv(GL_TEXTURE_ENV, GL_TEXTURE_ENV_MODE, &mut mode);
        assert_eq!(mode as u32, GL_MODULATE);
        assert_eq!(clear_and_draw(), [200, 100, 50, 255]);

        // GL_COMBINE: RGB from the constant colour scaled by 2, alpha
        // from the texture.
        ff::glTexEnvi(GL_TEXTURE_ENV, GL_TEXTURE_ENV_MODE, GL_COMBINE as i32);
        ff::glTexEnvi(GL_TEXTURE_ENV, GL_COMBINE_RGB, glow::REPLACE as i32);
        ff::glTexEnvi(GL_TEXTURE_ENV, GL_SOURCE0_RGB, GL_CONSTANT as i32);
        ff::glTexEnvf(GL_TEXTURE_ENV, GL_RGB_SCALE, 2.0);
        ff::glTexEnvfv(
            GL_TEXTURE_ENV,
            GL_TEXTURE_ENV_COLOR,
            [0.1, 0.2, 0.3, 0.0].as_ptr(),
        );
        no_gl_error("combine setup");
        let px = clear_and_draw();
        assert!(
            px[0].abs_diff(51) <= 1 && px[1].abs_diff(102) <= 1 && px[2].abs_diff(153) <= 1,
            "{px:?}"
        );
        assert_eq!(px[3], 255);
        ff::glTexEnvf(GL_TEXTURE_ENV, GL_RGB_SCALE, 3.0);
        expect_error("RGB_SCALE 3", glow::INVALID_VALUE);
        ff::glTexEnvi(GL_TEXTURE_ENV, GL_SOURCE0_RGB, glow::BLEND as i32);
        expect_error("bad combiner source", glow::INVALID_ENUM);
        ff::glTexEnvi(GL_TEXTURE_ENV, GL_TEXTURE_ENV_MODE, GL_MODULATE as i32);

        // Alpha test: a texel of alpha 0.25 fails GREATER 0.5 (the clear
        // colour stays) and passes LESS 0.5.
        texel_texture([10, 20, 30, 64]);
        state::glEnable(GL_ALPHA_TEST);
        ff::glAlphaFunc(glow::GREATER, 0.5);
        assert_eq!(clear_and_draw(), [0, 0, 255, 255]);
        ff::glAlphaFunc(glow::LESS, 0.5);
        assert_eq!(clear_and_draw(), [10, 20, 30, 64]);
        state::glDisable(GL_ALPHA_TEST);
        state::glDisable(glow::TEXTURE_2D);
        assert_eq!(clear_and_draw(), [255, 255, 255, 255]);

        // Legacy enables without emulation are still state.
        state::glEnable(GL_LIGHTING);
        assert_eq!(state::glIsEnabled(GL_LIGHTING), 1);
        state::glDisable(GL_LIGHTING);
        ff::glShadeModel(GL_FLAT);
        let mut v = 0;
        get::glGetIntegerv(GL_SHADE_MODEL, &mut v);
        assert_eq!(v as u32, GL_FLAT);
        no_gl_error("legacy state");

        // Errors.
        ff::glTexEnvi(GL_TEXTURE_ENV, GL_TEXTURE_ENV_MODE, glow::LINEAR as i32);
        expect_error("bad env mode", glow::INVALID_ENUM);
        ff::glTexEnvi(glow::TEXTURE_2D, GL_TEXTURE_ENV_MODE, GL_MODULATE as i32);
        expect_error("bad env target", glow::INVALID_ENUM);
        ff::glAlphaFunc(glow::ZERO, 0.5);
        expect_error("bad alpha function", glow::INVALID_ENUM);
        ff::glShadeModel(glow::LINEAR);
        expect_error("bad shade model", glow::INVALID_ENUM);
    }
}

#[test]
fn immediate_mode_and_quads_draw() {
    // SAFETY (whole body): GL calls on this thread with a current context.
    unsafe {
        make_context(2, 1, false);
        bind_rgba8_framebuffer(4, 4);
        state::glViewport(0, 0, 4, 4);
        state::glClearColor(0.0, 0.0, 1.0, 1.0);
        state::glClear(glow::COLOR_BUFFER_BIT);
        // A full-viewport quad, its colour set per vertex (the last one
        // counts under flat shading, GL's provoking vertex for quads).
        ff::glShadeModel(GL_FLAT);
        im::glBegin(im::QUADS);
        for (i, (x, y)) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
            .into_iter()
            .enumerate()
        {
            if i == 3 {
                la::glColor3f(0.0, 1.0, 0.0);
            } else {
                la::glColor3f(1.0, 0.0, 0.0);
            }
            im::glVertex2f(x, y);
        }
        im::glEnd();
        no_gl_error("immediate quad");
        for (x, y) in [(0, 0), (3, 0), (0, 3), (3, 3)] {
            assert_eq!(pixel(x, y), [0, 255, 0, 255], "pixel {x},{y}");
        }
        // glRect and glDrawArrays(GL_QUADS) from a buffer, current colour.
        state::glClear(glow::COLOR_BUFFER_BIT);
        la::glColor3f(1.0, 1.0, 0.0);
        im::glRectf(-1.0, -1.0, 0.0, 0.0);
        assert_eq!(pixel(0, 0), [255, 255, 0, 255]);
        assert_eq!(pixel(3, 3), [0, 0, 255, 255]);
        fullscreen_strip();
        // The strip's vertices in quad order: (0,1,3,2).
        let quad: [f32; 16] = [
            -1.0, -1.0, 0.0, 1.0, 1.0, -1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, -1.0, 1.0, 0.0, 1.0,
        ];
        buffer_with(glow::ARRAY_BUFFER, bytemuck::cast_slice(&quad));
        vertex::glVertexAttribPointer(0, 4, glow::FLOAT, 0, 0, std::ptr::null());
        la::glColor3f(1.0, 0.0, 1.0);
        draw::glDrawArrays(im::QUADS, 0, 4);
        no_gl_error("glDrawArrays(GL_QUADS)");
        assert_eq!(pixel(0, 0), [255, 0, 255, 255]);
        assert_eq!(pixel(3, 3), [255, 0, 255, 255]);
        // Client-memory indices into the quad.
        state::glClear(glow::COLOR_BUFFER_BIT);
        let idx: [u16; 4] = [0, 1, 2, 3];
        draw::glDrawElements(im::QUADS, 4, glow::UNSIGNED_SHORT, idx.as_ptr().cast());
        no_gl_error("glDrawElements(GL_QUADS)");
        assert_eq!(pixel(3, 3), [255, 0, 255, 255]);

        im::glEnd();
        expect_error("glEnd without glBegin", glow::INVALID_OPERATION);
        im::glBegin(glow::TRIANGLES);
        im::glBegin(glow::TRIANGLES);
        expect_error("nested glBegin", glow::INVALID_OPERATION);
        im::glEnd();
        im::glBegin(0x1234);
        expect_error("bad glBegin mode", glow::INVALID_ENUM);
    }
}

#[test]
fn core_contexts_refuse_fixed_function() {
    // SAFETY (whole body): GL calls on this thread with a current context.
    unsafe {
        make_context(3, 3, true);
        bind_rgba8_framebuffer(4, 4);
        ff::glTexEnvi(GL_TEXTURE_ENV, GL_TEXTURE_ENV_MODE, GL_MODULATE as i32);
        expect_error("glTexEnvi in core", glow::INVALID_OPERATION);
        ff::glAlphaFunc(glow::GREATER, 0.5);
        expect_error("glAlphaFunc in core", glow::INVALID_OPERATION);
        state::glEnable(GL_ALPHA_TEST);
        expect_error("GL_ALPHA_TEST in core", glow::INVALID_ENUM);
        let mut vao = 0;
        vertex::glGenVertexArrays(1, &mut vao);
        vertex::glBindVertexArray(vao);
        draw::glDrawArrays(glow::TRIANGLES, 0, 3);
        expect_error("draw without a program in core", glow::INVALID_OPERATION);
        im::glBegin(glow::TRIANGLES);
        expect_error("glBegin in core", glow::INVALID_OPERATION);
        draw::glDrawArrays(im::QUADS, 0, 4);
        expect_error("GL_QUADS in core", glow::INVALID_ENUM);
    }
}

/// GL_DEPTH_TEXTURE_MODE picks a depth texture's base format for the
/// texture environment: GL_REPLACE takes alpha from an INTENSITY or ALPHA
/// depth texture and keeps the fragment's under LUMINANCE.
#[test]
fn depth_texture_mode_is_the_base_format_of_replace() {
    const DEPTH_TEXTURE_MODE: u32 = 0x884B;
    const INTENSITY: u32 = 0x8049;
    // SAFETY (whole body): GL calls on this thread with a current context.
    unsafe {
        make_context(2, 1, false);
        bind_rgba8_framebuffer(4, 4);
        state::glViewport(0, 0, 4, 4);
        fullscreen_strip();
        let depth = 0.25f32;
        texture_1x1(
            glow::DEPTH_COMPONENT,
            glow::DEPTH_COMPONENT,
            glow::FLOAT,
            (&depth as *const f32).cast(),
        );
        state::glEnable(glow::TEXTURE_2D);
        ff::glTexEnvi(GL_TEXTURE_ENV, GL_TEXTURE_ENV_MODE, glow::REPLACE as i32);
        let near =
            |px: [u8; 4], want: [u8; 4]| px.iter().zip(want).all(|(a, b)| a.abs_diff(b) <= 1);
        let px = clear_and_draw();
        assert!(near(px, [64, 64, 64, 255]), "LUMINANCE: {px:?}");
        mobilegl::gl::textures::glTexParameteri(
            glow::TEXTURE_2D,
            DEPTH_TEXTURE_MODE,
            INTENSITY as i32,
        );
        let px = clear_and_draw();
        assert!(near(px, [64, 64, 64, 64]), "INTENSITY: {px:?}");
        mobilegl::gl::textures::glTexParameteri(
            glow::TEXTURE_2D,
            DEPTH_TEXTURE_MODE,
            glow::ALPHA as i32,
        );
        let px = clear_and_draw();
        assert!(near(px, [255, 255, 255, 64]), "ALPHA: {px:?}");
    }
}
