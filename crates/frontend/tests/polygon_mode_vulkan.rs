//! glPolygonMode on the Vulkan backend (pipeline polygon modes; a test
//! binary of its own: the backend is chosen once per process, from
//! `MOBILEGL_BACKEND`): GL_LINE outlines a triangle, GL_POINT draws its
//! corners, GL_FILL fills it again, and the front/back state is queried
//! back as set.
//!
//! `cargo nextest run -p frontend --test polygon_mode_vulkan`

mod common;

use common::{bind_rgba8_framebuffer, expect_error, link_program, no_gl_error, pixel};
use mobilegl::gl::{draw, get, shaders, state, vertex};

const SIZE: i32 = 16;

/// A right triangle with its corners on pixel centres (1.5, 1.5),
/// (13.5, 1.5), (1.5, 13.5): its legs cross pixel rows/columns 1.
const VS: &str = "#version 330 core
const vec2 p[3] = vec2[](vec2(1.5, 1.5), vec2(13.5, 1.5), vec2(1.5, 13.5));
void main() { gl_Position = vec4(p[gl_VertexID] / 8.0 - 1.0, 0.0, 1.0); }
";
const FS: &str = "#version 330 core
out vec4 o;
void main() { o = vec4(1.0, 0.0, 0.0, 1.0); }
";

unsafe fn draw_triangle() {
    // SAFETY: a context with a complete framebuffer is current.
    unsafe {
        state::glClearColor(0.0, 0.0, 0.0, 0.0);
        state::glClear(glow::COLOR_BUFFER_BIT);
        draw::glDrawArrays(glow::TRIANGLES, 0, 3);
    }
}

#[test]
fn polygon_modes_reach_the_pipeline_on_vulkan() {
    std::env::set_var("MOBILEGL_BACKEND", "vulkan");
    // SAFETY: GL calls on this thread with a current context; every
    // pointer covers what the call reads or writes.
    unsafe {
        common::make_context();
        bind_rgba8_framebuffer(SIZE, SIZE);
        state::glViewport(0, 0, SIZE, SIZE);
        let mut vao = 0;
        vertex::glGenVertexArrays(1, &mut vao);
        vertex::glBindVertexArray(vao);
        shaders::glUseProgram(link_program(VS, FS));

        draw_triangle();
        assert_eq!(pixel(4, 4)[0], 255, "filled: the inside is drawn");

        state::glPolygonMode(glow::FRONT_AND_BACK, glow::LINE);
        no_gl_error("line mode");
        let mut modes = [0i32; 2];
        get::glGetIntegerv(glow::POLYGON_MODE, modes.as_mut_ptr());
        assert_eq!(modes, [glow::LINE as i32; 2]);
        draw_triangle();
        assert_eq!(pixel(4, 4)[0], 0, "outlined: the inside stays clear");
        assert_eq!(pixel(6, 1)[0], 255, "outlined: the bottom edge is drawn");

        state::glPolygonMode(glow::FRONT_AND_BACK, glow::POINT);
        draw_triangle();
        assert_eq!(pixel(4, 4)[0], 0, "points: the inside stays clear");
        assert_eq!(pixel(6, 1)[0], 0, "points: the edges stay clear");
        assert_eq!(pixel(1, 1)[0], 255, "points: a corner is drawn");

        state::glPolygonMode(glow::FRONT, glow::LINE);
        expect_error("GL_FRONT alone in a core context", glow::INVALID_ENUM);
        state::glPolygonMode(glow::FRONT_AND_BACK, glow::FILL);
        draw_triangle();
        assert_eq!(pixel(4, 4)[0], 255, "filled again");
    }
}
