//! Compatibility built-ins through a geometry shader (GLSL 1.50
//! compatibility): a vertex shader's `gl_TexCoord[]` / `gl_ClipVertex`
//! (declared in a redeclared `gl_PerVertex`) read as `gl_in[i].*`, the
//! geometry shader's own `gl_FrontColor` feeding fixed-function fragment
//! processing, and its `gl_ClipVertex` clipped against the user planes at
//! each `EmitVertex()`.
//!
//! `cargo nextest run -p frontend --test geometry_compat`

mod common;
use common::{bind_rgba8_framebuffer, no_gl_error};
use mobilegl::gl::matrix::{glClipPlane, CLIP_PLANE0};
use mobilegl::gl::{draw, shaders, state};

const VS: &str = "#version 150 compatibility
out gl_PerVertex {
    vec4 gl_Position;
    vec4 gl_TexCoord[2];
    vec4 gl_ClipVertex;
};
void main() {
    gl_Position = gl_Vertex;
    gl_TexCoord[1] = vec4(0.0, 1.0, 0.0, 1.0);
    gl_ClipVertex = gl_Vertex;
}
";

/// Passes the colour on from gl_TexCoord[1] and the clip vertex from the
/// vertex shader; `varying` is a compatibility geometry output.
const GS: &str = "#version 150 compatibility
layout(triangles) in;
layout(triangle_strip, max_vertices = 3) out;
in gl_PerVertex {
    vec4 gl_Position;
    vec4 gl_TexCoord[2];
    vec4 gl_ClipVertex;
} gl_in[];
varying float unused;
void main() {
    for (int i = 0; i < 3; i++) {
        gl_Position = gl_in[i].gl_Position;
        gl_FrontColor = gl_in[i].gl_TexCoord[1];
        gl_ClipVertex = gl_in[i].gl_ClipVertex;
        unused = 0.0;
        EmitVertex();
    }
}
";

#[test]
fn compatibility_varyings_pass_through_a_geometry_shader() {
    // SAFETY: GL calls on this thread with a current context; every
    // pointer covers what the call reads or writes.
    unsafe {
        common::make_compat_context_version(3, 2);
        bind_rgba8_framebuffer(64, 64);
        state::glViewport(0, 0, 64, 64);
        common::fullscreen_strip();
        // No fragment shader: fixed-function fragments read gl_FrontColor.
        let p = common::link_stages(&[(glow::VERTEX_SHADER, VS), (glow::GEOMETRY_SHADER, GS)]);
        shaders::glUseProgram(p);
        let draw = || {
            state::glClearColor(0.0, 0.0, 0.0, 1.0);
            state::glClear(glow::COLOR_BUFFER_BIT);
            draw::glDrawArrays(glow::TRIANGLE_STRIP, 0, 4);
        };
        draw();
        assert_eq!(
            common::pixel(8, 8),
            [0, 255, 0, 255],
            "colour via gl_TexCoord"
        );
        assert_eq!(
            common::pixel(56, 56),
            [0, 255, 0, 255],
            "colour via gl_TexCoord"
        );
        // Keep x >= 0 (eye space = object space: identity modelview).
        let plane = [1.0f64, 0.0, 0.0, 0.0];
        glClipPlane(CLIP_PLANE0, plane.as_ptr());
        state::glEnable(CLIP_PLANE0);
        draw();
        assert_eq!(
            common::pixel(8, 8),
            [0, 0, 0, 255],
            "clipped by gl_ClipVertex"
        );
        assert_eq!(common::pixel(56, 8), [0, 255, 0, 255], "kept");
        state::glDisable(CLIP_PLANE0);
        draw();
        assert_eq!(common::pixel(8, 8), [0, 255, 0, 255], "plane disabled");
        no_gl_error("geometry compatibility varyings");
    }
}
