//! `gl_DepthRange` (a built-in uniform of every GLSL version, which SPIR-V
//! has no place for): the shader reads the current `glDepthRange`, changes
//! reach the next draw, and the built-in has no location of its own.
//!
//! `cargo nextest run -p frontend --test depth_range_uniform`

use std::ffi::CString;

mod common;
use common::{bind_rgba8_framebuffer, link_program, make_context, no_gl_error};
use mobilegl::gl::{draw, pixels, shaders, state, vertex};

const VS: &str = "#version 330 core
const vec2 p[3] = vec2[](vec2(-1.0, -1.0), vec2(3.0, -1.0), vec2(-1.0, 3.0));
void main() { gl_Position = vec4(p[gl_VertexID], 0.0, 1.0); }
";
const FS: &str = "#version 330 core
out vec4 o;
void main() { o = vec4(gl_DepthRange.near, gl_DepthRange.far, gl_DepthRange.diff, 1.0); }
";
/// The same through the built-in struct type, in a GLSL 1.20 shader.
const FS_STRUCT: &str = "#version 120
void main() {
    gl_DepthRangeParameters r = gl_DepthRange;
    gl_FragColor = vec4(r.near, r.far, r.diff, 1.0);
}
";

/// Draw the full-screen triangle and read pixel (0, 0).
unsafe fn draw_and_read() -> [u8; 4] {
    let mut px = [0u8; 4];
    // SAFETY: a context with a complete framebuffer is current; `px` holds
    // one RGBA8 pixel.
    unsafe {
        draw::glDrawArrays(glow::TRIANGLES, 0, 3);
        pixels::glReadPixels(
            0,
            0,
            1,
            1,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            px.as_mut_ptr().cast(),
        );
    }
    px
}

fn near(got: [u8; 4], want: [u8; 4]) -> bool {
    got.iter().zip(want).all(|(&g, w)| g.abs_diff(w) <= 1)
}

#[test]
fn gl_depth_range_follows_gl_depth_range() {
    // SAFETY: GL calls on this thread with a current context; every
    // pointer covers what the call reads or writes.
    unsafe {
        make_context();
        bind_rgba8_framebuffer(4, 4);
        state::glViewport(0, 0, 4, 4);
        let mut vao = 0;
        vertex::glGenVertexArrays(1, &mut vao);
        vertex::glBindVertexArray(vao);
        let p = link_program(VS, FS);
        shaders::glUseProgram(p);
        let name = CString::new("gl_DepthRange.near").unwrap();
        assert_eq!(
            shaders::glGetUniformLocation(p, name.as_ptr()),
            -1,
            "a built-in has no uniform location"
        );
        no_gl_error("set-up");

        // Default range [0, 1].
        let px = draw_and_read();
        assert!(near(px, [0, 255, 255, 255]), "default range: {px:?}");
        state::glDepthRange(0.25, 0.75);
        let px = draw_and_read();
        assert!(near(px, [64, 191, 128, 255]), "[0.25, 0.75]: {px:?}");
        // A uniform-only change between draws keeps it; a new range shows.
        state::glDepthRangef(0.5, 1.0);
        let px = draw_and_read();
        assert!(near(px, [128, 255, 128, 255]), "[0.5, 1.0]: {px:?}");
        // Another program, linked later, sees the current range too.
        shaders::glUseProgram(link_program(VS, FS_STRUCT));
        let px = draw_and_read();
        assert!(near(px, [128, 255, 128, 255]), "struct form: {px:?}");
        no_gl_error("draws");
    }
}
