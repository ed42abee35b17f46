//! Point parameters (`gl::points`): glPointSize without
//! GL_PROGRAM_POINT_SIZE sizes points drawn by a shader that writes no
//! `gl_PointSize`, GL_POINT_SPRITE_COORD_ORIGIN flips `gl_PointCoord`,
//! GL_COORD_REPLACE turns a legacy shader's `gl_TexCoord[i]` into the point
//! coordinate for points only, and glPointParameter's errors.
//!
//! `cargo nextest run -p frontend --test points`

mod common;
use common::{bind_rgba8_framebuffer, expect_error, link_program, no_gl_error, pixel};
use mobilegl::gl::points::*;
use mobilegl::gl::{draw, fixed_function, get, shaders, state};

const SIZE: i32 = 16;

/// One point at the centre, no `gl_PointSize` written; the colour is the
/// point coordinate.
const VS: &str = "#version 330 core
void main() { gl_Position = vec4(0.0, 0.0, 0.0, 1.0); }
";
const FS: &str = "#version 330 core
out vec4 o;
void main() { o = vec4(gl_PointCoord, 0.0, 1.0); }
";

unsafe fn draw_point() {
    // SAFETY: a context with a complete framebuffer is current.
    unsafe {
        state::glClearColor(0.0, 0.0, 1.0, 1.0);
        state::glClear(glow::COLOR_BUFFER_BIT);
        draw::glDrawArrays(glow::POINTS, 0, 1);
    }
}

#[test]
fn point_size_and_sprite_origin_reach_the_shaders() {
    // SAFETY: GL calls on this thread with a current context; every
    // pointer covers what the call reads or writes.
    unsafe {
        common::make_context();
        bind_rgba8_framebuffer(SIZE, SIZE);
        state::glViewport(0, 0, SIZE, SIZE);
        let mut vao = 0;
        mobilegl::gl::vertex::glGenVertexArrays(1, &mut vao);
        mobilegl::gl::vertex::glBindVertexArray(vao);
        shaders::glUseProgram(link_program(VS, FS));

        // glPointSize(8): the point covers window pixels 4..12.
        state::glPointSize(8.0);
        draw_point();
        assert_eq!(pixel(2, 2)[2], 255, "outside the 8-pixel point");
        let (bottom, top) = (pixel(4, 4), pixel(4, 11));
        assert_ne!(bottom[2], 255, "inside the 8-pixel point");
        assert!(
            bottom[1] > top[1] + 128,
            "upper-left origin: t grows downwards"
        );
        state::glPointSize(2.0);
        draw_point();
        assert_eq!(pixel(4, 4)[2], 255, "a 2-pixel point misses (4, 4)");

        // GL_LOWER_LEFT: t grows upwards.
        state::glPointSize(8.0);
        glPointParameteri(POINT_SPRITE_COORD_ORIGIN, LOWER_LEFT as i32);
        no_gl_error("origin");
        draw_point();
        let (bottom, top) = (pixel(4, 4), pixel(4, 11));
        assert!(
            top[1] > bottom[1] + 128,
            "lower-left origin: t grows upwards"
        );
        let mut v = 0;
        get::glGetIntegerv(POINT_SPRITE_COORD_ORIGIN, &mut v);
        assert_eq!(v as u32, LOWER_LEFT);

        // Errors (GL 4.6 §14.4).
        glPointParameteri(POINT_SPRITE_COORD_ORIGIN, glow::NONE as i32);
        expect_error("bad origin", glow::INVALID_ENUM);
        glPointParameterf(POINT_FADE_THRESHOLD_SIZE, -1.0);
        expect_error("negative fade threshold", glow::INVALID_VALUE);
        glPointParameterf(POINT_SIZE_MIN, 1.0);
        expect_error("compatibility-only name in core", glow::INVALID_ENUM);
        glPointParameterf(POINT_FADE_THRESHOLD_SIZE, 2.5);
        let mut f = 0.0f32;
        get::glGetFloatv(POINT_FADE_THRESHOLD_SIZE, &mut f);
        assert_eq!(f, 2.5);
        no_gl_error("points");
    }
}

/// A GL 2.1 compatibility context drawing into a SIZE x SIZE target with
/// the program of `vs` and `fs` current.
unsafe fn compat_program(vs: &str, fs: &str) -> u32 {
    // SAFETY: GL calls on this thread; the helpers make the context.
    unsafe {
        common::make_compat_context_version(2, 1);
        bind_rgba8_framebuffer(SIZE, SIZE);
        state::glViewport(0, 0, SIZE, SIZE);
        link_program(vs, fs)
    }
}

#[test]
fn coord_replace_applies_to_points_only() {
    // SAFETY: GL calls on this thread with a current context; every
    // pointer covers what the call reads or writes.
    unsafe {
        let p = compat_program(
            "#version 120
void main() { gl_Position = gl_Vertex; gl_PointSize = 8.0; gl_TexCoord[0] = vec4(0.0, 0.0, 0.0, 1.0); }
",
            "#version 120
void main() { gl_FragColor = gl_TexCoord[0]; }
",
        );
        shaders::glUseProgram(p);
        state::glEnable(glow::PROGRAM_POINT_SIZE);
        state::glEnable(POINT_SPRITE);
        fixed_function::glTexEnvi(POINT_SPRITE, COORD_REPLACE, 1);
        no_gl_error("sprite state");
        let mut on = 0;
        fixed_function::glGetTexEnviv(POINT_SPRITE, COORD_REPLACE, &mut on);
        assert_eq!(on, 1);
        common::fullscreen_strip();
        state::glClearColor(0.0, 0.0, 1.0, 1.0);
        state::glClear(glow::COLOR_BUFFER_BIT);
        // Points at the strip's first vertex, (-1, -1): a corner sprite.
        draw::glDrawArrays(glow::POINTS, 0, 1);
        let sprite = pixel(1, 1);
        assert!(
            sprite[0] > 0 || sprite[1] > 0,
            "point coordinate, got {sprite:?}"
        );
        // Triangles keep the interpolated gl_TexCoord[0] (black).
        draw::glDrawArrays(glow::TRIANGLE_STRIP, 0, 4);
        assert_eq!(pixel(8, 8), [0, 0, 0, 255], "triangles keep gl_TexCoord");
        fixed_function::glTexEnvi(POINT_SPRITE, COORD_REPLACE, 2);
        expect_error("COORD_REPLACE takes a boolean", glow::INVALID_ENUM);
        no_gl_error("coord replace");
    }
}

#[test]
fn two_sided_colour_reads_the_back_colour_on_back_faces() {
    // SAFETY: GL calls on this thread with a current context; every
    // pointer covers what the call reads or writes.
    unsafe {
        let p = compat_program(
            "#version 120
void main() { gl_Position = gl_Vertex; gl_FrontColor = vec4(1.0, 0.0, 0.0, 1.0); gl_BackColor = vec4(0.0, 1.0, 0.0, 1.0); }
",
            "#version 120
void main() { gl_FragColor = gl_Color; }
",
        );
        shaders::glUseProgram(p);
        common::fullscreen_strip();
        let draw = |first: i32| {
            state::glClear(glow::COLOR_BUFFER_BIT);
            draw::glDrawArrays(glow::TRIANGLES, first, 3);
        };
        // Vertices 0,1,2 are counter-clockwise (front), 1,2,3 clockwise.
        draw(1);
        assert_eq!(pixel(12, 12), [255, 0, 0, 255], "one-sided: front colour");
        state::glEnable(VERTEX_PROGRAM_TWO_SIDE);
        draw(1);
        assert_eq!(pixel(12, 12), [0, 255, 0, 255], "two-sided back face");
        draw(0);
        assert_eq!(pixel(3, 3), [255, 0, 0, 255], "two-sided front face");
        no_gl_error("two-sided colour");
    }
}
