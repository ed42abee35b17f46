//! The provoking vertex on the Vulkan backend (a test binary of its own:
//! the backend is chosen once per process, from `MOBILEGL_BACKEND`). GL
//! takes flat varyings from the last vertex of a primitive unless
//! glProvokingVertex(GL_FIRST_VERTEX_CONVENTION) says the first (GL 4.6
//! §13.6, table 13.2); Vulkan's own convention is the first.
//!
//! `cargo nextest run -p frontend --test provoking_vertex_vulkan`

mod common;
use common::{bind_rgba8_framebuffer, buffer_with, link_program, make_context, no_gl_error, pixel};
use mobilegl::gl::{draw, shaders, state, vertex};

const VS: &str = "#version 330 core
layout(location = 0) in vec2 pos;
layout(location = 1) in vec4 color;
flat out vec4 c;
void main() { gl_Position = vec4(pos, 0.0, 1.0); c = color; }
";
const FS: &str = "#version 330 core
flat in vec4 c;
out vec4 o;
void main() { o = c; }
";

#[test]
fn flat_varyings_follow_the_provoking_vertex_convention() {
    // Set before the first EGL call of this process (one test per binary).
    std::env::set_var("MOBILEGL_BACKEND", "vulkan");
    // One triangle covering the 8x8 target; red, green, blue corners.
    let v: [f32; 18] = [
        -1.0, -1.0, 1.0, 0.0, 0.0, //
        3.0, -1.0, 0.0, 1.0, 0.0, //
        -1.0, 3.0, 0.0, 0.0, 1.0, //
        0.0, 0.0, 0.0,
    ];
    // SAFETY: GL calls on this thread with a current context; every
    // pointer covers what the call reads or writes.
    unsafe {
        make_context();
        bind_rgba8_framebuffer(8, 8);
        let mut vao = 0;
        vertex::glGenVertexArrays(1, &mut vao);
        vertex::glBindVertexArray(vao);
        buffer_with(glow::ARRAY_BUFFER, bytemuck::cast_slice(&v));
        vertex::glVertexAttribPointer(0, 2, glow::FLOAT, 0, 20, std::ptr::null());
        vertex::glVertexAttribPointer(1, 3, glow::FLOAT, 0, 20, 8 as *const _);
        vertex::glEnableVertexAttribArray(0);
        vertex::glEnableVertexAttribArray(1);
        shaders::glUseProgram(link_program(VS, FS));

        draw::glDrawArrays(glow::TRIANGLES, 0, 3);
        no_gl_error("drawing with the default convention");
        assert_eq!(pixel(4, 4), [0, 0, 255, 255], "default: the last vertex");

        state::glProvokingVertex(glow::FIRST_VERTEX_CONVENTION);
        draw::glDrawArrays(glow::TRIANGLES, 0, 3);
        no_gl_error("drawing with the first-vertex convention");
        assert_eq!(pixel(4, 4), [255, 0, 0, 255], "first-vertex convention");
    }
}
