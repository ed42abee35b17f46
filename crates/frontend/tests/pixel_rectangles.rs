//! Raster position, glDrawPixels, glCopyPixels, glBitmap and glPixelZoom
//! in a compatibility context: the pixels they draw, the raster state
//! glGet reports, and the errors GL gives; a core context refuses them.
//!
//! `cargo nextest run -p frontend --test pixel_rectangles`

mod common;

use common::{bind_rgba8_framebuffer, expect_error, no_gl_error, pixel};
use mobilegl::gl::{get, immediate as im, legacy_arrays as la, pixel_rect as pr, raster, state};

const GL_CURRENT_RASTER_POSITION: u32 = 0x0B07;
const GL_CURRENT_RASTER_POSITION_VALID: u32 = 0x0B08;
const GL_CURRENT_RASTER_COLOR: u32 = 0x0B04;
const GL_ZOOM_X: u32 = 0x0D16;
const GL_COLOR: u32 = 0x1800;
const GL_STENCIL: u32 = 0x1802;
const GL_POINTS: u32 = 0x0000;

const SIZE: i32 = 8;

/// A current compatibility context drawing into an 8x8 RGBA8 target
/// cleared to black.
unsafe fn compat_target() {
    // SAFETY: the helpers make and bind their own context and framebuffer.
    unsafe {
        common::make_compat_context_version(2, 1);
        bind_rgba8_framebuffer(SIZE, SIZE);
        state::glViewport(0, 0, SIZE, SIZE);
        state::glClearColor(0.0, 0.0, 0.0, 0.0);
        state::glClear(glow::COLOR_BUFFER_BIT);
    }
    no_gl_error("setting up");
}

fn floats(pname: u32) -> [f32; 4] {
    let mut v = [0.0f32; 4];
    // SAFETY: a context is current; the names queried have at most four
    // values.
    unsafe { get::glGetFloatv(pname, v.as_mut_ptr()) };
    v
}

#[test]
fn draw_pixels_lands_at_the_window_position() {
    // SAFETY: GL calls on this thread with a current context; the images
    // outlive the calls.
    unsafe {
        compat_target();
        let red = [[255u8, 0, 0, 255]; 4];
        raster::glWindowPos2i(2, 3);
        pr::glDrawPixels(2, 2, glow::RGBA, glow::UNSIGNED_BYTE, red.as_ptr().cast());
        no_gl_error("glDrawPixels");
        for (x, y) in [(2, 3), (3, 3), (2, 4), (3, 4)] {
            assert_eq!(pixel(x, y), [255, 0, 0, 255], "inside at {x},{y}");
        }
        for (x, y) in [(1, 3), (4, 3), (2, 2), (2, 5)] {
            assert_eq!(pixel(x, y), [0, 0, 0, 0], "outside at {x},{y}");
        }

        // Zoomed by 2 from (0, 0): one green pixel covers 2x2.
        let green = [0u8, 255, 0, 255];
        raster::glWindowPos2i(0, 0);
        raster::glPixelZoom(2.0, 2.0);
        pr::glDrawPixels(1, 1, glow::RGBA, glow::UNSIGNED_BYTE, green.as_ptr().cast());
        no_gl_error("zoomed glDrawPixels");
        assert_eq!(pixel(1, 1), green);
        assert_eq!(pixel(2, 2), [0, 0, 0, 0]);
        assert_eq!(floats(GL_ZOOM_X)[0], 2.0);
        raster::glPixelZoom(1.0, 1.0);

        // The unpack state applies: skip the first pixel of the row.
        state::glPixelStorei(glow::UNPACK_SKIP_PIXELS, 1);
        let row = [[0u8, 0, 0, 255], [0, 0, 255, 255]];
        raster::glWindowPos2i(6, 6);
        pr::glDrawPixels(1, 1, glow::RGBA, glow::UNSIGNED_BYTE, row.as_ptr().cast());
        state::glPixelStorei(glow::UNPACK_SKIP_PIXELS, 0);
        assert_eq!(pixel(6, 6), [0, 0, 255, 255]);
    }
}

#[test]
fn copy_pixels_and_bitmap_draw() {
    // SAFETY: GL calls on this thread with a current context; the images
    // outlive the calls.
    unsafe {
        compat_target();
        let blue = [0u8, 0, 255, 255];
        raster::glWindowPos2i(0, 0);
        pr::glDrawPixels(1, 1, glow::RGBA, glow::UNSIGNED_BYTE, blue.as_ptr().cast());
        raster::glWindowPos2i(5, 5);
        pr::glCopyPixels(0, 0, 1, 1, GL_COLOR);
        no_gl_error("glCopyPixels");
        assert_eq!(pixel(5, 5), blue);

        // A bitmap in the raster colour (the colour current at
        // glRasterPos), advancing the raster position.
        la::glColor4f(1.0, 1.0, 0.0, 1.0);
        raster::glWindowPos2i(1, 6);
        la::glColor4f(0.0, 0.0, 0.0, 1.0);
        let bits = [0b1000_0000u8, 0, 0, 0];
        pr::glBitmap(2, 1, 0.0, 0.0, 3.0, -1.0, bits.as_ptr());
        no_gl_error("glBitmap");
        assert_eq!(pixel(1, 6), [255, 255, 0, 255]);
        assert_eq!(pixel(2, 6), [0, 0, 0, 0]);
        assert_eq!(floats(GL_CURRENT_RASTER_POSITION)[..2], [4.0, 5.0]);
        assert_eq!(floats(GL_CURRENT_RASTER_COLOR), [1.0, 1.0, 0.0, 1.0]);
        // A NULL bitmap only moves the position.
        pr::glBitmap(0, 0, 0.0, 0.0, 1.0, 1.0, std::ptr::null());
        no_gl_error("empty glBitmap");
        assert_eq!(floats(GL_CURRENT_RASTER_POSITION)[..2], [5.0, 6.0]);
    }
}

#[test]
fn raster_pos_is_transformed_and_clipped() {
    // SAFETY: GL calls on this thread with a current context.
    unsafe {
        compat_target();
        // Identity matrices, viewport 8x8: the origin is the centre.
        raster::glRasterPos2f(0.0, 0.0);
        assert_eq!(floats(GL_CURRENT_RASTER_POSITION), [4.0, 4.0, 0.5, 1.0]);
        assert_eq!(floats(GL_CURRENT_RASTER_POSITION_VALID)[0], 1.0);
        raster::glRasterPos2f(-1.0, -1.0);
        assert_eq!(floats(GL_CURRENT_RASTER_POSITION)[..2], [0.0, 0.0]);
        // Outside the view volume: invalid, and pixel commands do nothing.
        raster::glRasterPos3f(0.0, 0.0, 2.0);
        assert_eq!(floats(GL_CURRENT_RASTER_POSITION_VALID)[0], 0.0);
        let white = [255u8; 4];
        pr::glDrawPixels(1, 1, glow::RGBA, glow::UNSIGNED_BYTE, white.as_ptr().cast());
        no_gl_error("glDrawPixels at an invalid position");
        // glWindowPos makes it valid again.
        raster::glWindowPos3f(1.0, 2.0, 0.25);
        assert_eq!(floats(GL_CURRENT_RASTER_POSITION), [1.0, 2.0, 0.25, 1.0]);
        assert_eq!(floats(GL_CURRENT_RASTER_POSITION_VALID)[0], 1.0);
        for x in 0..SIZE {
            for y in 0..SIZE {
                assert_eq!(pixel(x, y), [0, 0, 0, 0], "untouched at {x},{y}");
            }
        }
    }
}

#[test]
fn errors_follow_the_compatibility_spec() {
    // SAFETY: GL calls on this thread with a current context; the images
    // outlive the calls.
    unsafe {
        compat_target();
        let px = [0u8; 16];
        pr::glDrawPixels(-1, 1, glow::RGBA, glow::UNSIGNED_BYTE, px.as_ptr().cast());
        expect_error("negative width", glow::INVALID_VALUE);
        pr::glDrawPixels(1, 1, 0xdead, glow::UNSIGNED_BYTE, px.as_ptr().cast());
        expect_error("bad format", glow::INVALID_ENUM);
        pr::glDrawPixels(1, 1, glow::RGBA, 0xdead, px.as_ptr().cast());
        expect_error("bad type", glow::INVALID_ENUM);
        pr::glDrawPixels(
            1,
            1,
            glow::RGB,
            glow::UNSIGNED_SHORT_4_4_4_4,
            px.as_ptr().cast(),
        );
        expect_error("packed type of another format", glow::INVALID_OPERATION);
        pr::glDrawPixels(1, 1, glow::RGBA_INTEGER, glow::FLOAT, px.as_ptr().cast());
        expect_error("integer format", glow::INVALID_OPERATION);
        // The target has no depth or stencil buffer.
        pr::glDrawPixels(1, 1, glow::DEPTH_COMPONENT, glow::FLOAT, px.as_ptr().cast());
        expect_error("no depth buffer", glow::INVALID_OPERATION);
        pr::glDrawPixels(
            1,
            1,
            glow::STENCIL_INDEX,
            glow::UNSIGNED_BYTE,
            px.as_ptr().cast(),
        );
        expect_error("no stencil buffer", glow::INVALID_OPERATION);
        pr::glCopyPixels(0, 0, 1, 1, GL_STENCIL);
        expect_error("copy without a stencil buffer", glow::INVALID_OPERATION);
        pr::glCopyPixels(0, 0, 1, 1, glow::RGBA);
        expect_error("bad copy type", glow::INVALID_ENUM);
        pr::glCopyPixels(0, 0, -1, 1, GL_COLOR);
        expect_error("negative copy size", glow::INVALID_VALUE);
        pr::glBitmap(-1, 1, 0.0, 0.0, 0.0, 0.0, std::ptr::null());
        expect_error("negative bitmap size", glow::INVALID_VALUE);

        // Inside glBegin/glEnd.
        im::glBegin(GL_POINTS);
        raster::glRasterPos2f(0.0, 0.0);
        expect_error("glRasterPos in glBegin", glow::INVALID_OPERATION);
        pr::glDrawPixels(1, 1, glow::RGBA, glow::UNSIGNED_BYTE, px.as_ptr().cast());
        expect_error("glDrawPixels in glBegin", glow::INVALID_OPERATION);
        im::glEnd();
        no_gl_error("glEnd");

        // An incomplete draw framebuffer.
        let mut fbo = 0;
        mobilegl::gl::framebuffers::glGenFramebuffers(1, &mut fbo);
        mobilegl::gl::framebuffers::glBindFramebuffer(glow::FRAMEBUFFER, fbo);
        raster::glWindowPos2i(0, 0);
        pr::glDrawPixels(1, 1, glow::RGBA, glow::UNSIGNED_BYTE, px.as_ptr().cast());
        expect_error(
            "incomplete framebuffer",
            glow::INVALID_FRAMEBUFFER_OPERATION,
        );
    }
}

#[test]
fn depth_and_stencil_pixels_are_written() {
    // SAFETY: the helper makes its own context on this thread.
    unsafe { common::check_pixel_rectangles() }
}

#[test]
fn hostile_sizes_and_pairs_do_not_panic() {
    // SAFETY: GL calls on this thread with a current context; nothing is
    // read past what the calls' sizes let the implementation reach
    // (a null image, a bitmap too large to hold).
    unsafe {
        compat_target();
        raster::glWindowPos2i(0, 0);
        pr::glDrawPixels(
            i32::MAX,
            i32::MAX,
            glow::RGBA,
            glow::FLOAT,
            std::ptr::null(),
        );
        no_gl_error("a huge null image");
        let one = [0u8; 4];
        pr::glBitmap(i32::MAX, i32::MAX, 0.0, 0.0, 1.0, 0.0, one.as_ptr());
        expect_error("a bitmap no memory holds", glow::OUT_OF_MEMORY);
        // A packed-float colour type is converted and drawn (RGB data:
        // alpha 1).
        pr::glDrawPixels(
            1,
            1,
            glow::RGB,
            glow::UNSIGNED_INT_10F_11F_11F_REV,
            one.as_ptr().cast(),
        );
        no_gl_error("a packed-float pixel");
        assert_eq!(pixel(0, 0), [0, 0, 0, 255]);
        // Far outside the framebuffer: nothing to upload or draw.
        raster::glWindowPos2f(1.0e30, -1.0e30);
        pr::glDrawPixels(1, 1, glow::RGBA, glow::UNSIGNED_BYTE, one.as_ptr().cast());
        pr::glCopyPixels(-5, -5, 3, 3, GL_COLOR);
        no_gl_error("far away");
    }
}

#[test]
fn core_contexts_refuse_pixel_rectangles() {
    // SAFETY: GL calls on this thread with a current context.
    unsafe {
        common::make_context();
        bind_rgba8_framebuffer(SIZE, SIZE);
        raster::glRasterPos2f(0.0, 0.0);
        expect_error("glRasterPos", glow::INVALID_OPERATION);
        raster::glWindowPos2i(0, 0);
        expect_error("glWindowPos", glow::INVALID_OPERATION);
        raster::glPixelZoom(1.0, 1.0);
        expect_error("glPixelZoom", glow::INVALID_OPERATION);
        let px = [0u8; 4];
        pr::glDrawPixels(1, 1, glow::RGBA, glow::UNSIGNED_BYTE, px.as_ptr().cast());
        expect_error("glDrawPixels", glow::INVALID_OPERATION);
        pr::glCopyPixels(0, 0, 1, 1, GL_COLOR);
        expect_error("glCopyPixels", glow::INVALID_OPERATION);
        pr::glBitmap(0, 0, 0.0, 0.0, 0.0, 0.0, std::ptr::null());
        expect_error("glBitmap", glow::INVALID_OPERATION);
        let mut v = [0.0f32; 4];
        get::glGetFloatv(GL_CURRENT_RASTER_POSITION, v.as_mut_ptr());
        expect_error("the raster glGet names", glow::INVALID_ENUM);
    }
}
