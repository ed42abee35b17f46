//! Draw modes with a geometry shader (GL 4.6 §11.3.1, table 11.1): a draw
//! whose mode is not one the geometry shader's input primitive takes is
//! GL_INVALID_OPERATION and draws nothing (on Vulkan such a draw would be
//! a pipeline whose topology the geometry stage does not take).
//!
//! `cargo nextest run -p frontend --test geometry_draw_modes`

mod common;
use common::{
    bind_rgba8_framebuffer, expect_error, link_program, link_stages, make_context, no_gl_error,
};
use mobilegl::gl::{draw, shaders, vertex};

const VS: &str = "#version 330 core
void main() { gl_Position = vec4(0.0, 0.0, 0.0, 1.0); }
";
const FS: &str = "#version 330 core
out vec4 o;
void main() { o = vec4(1.0); }
";

fn gs(input: &str) -> String {
    format!(
        "#version 330 core
layout({input}) in;
layout(points, max_vertices = 1) out;
void main() {{ gl_Position = gl_in[0].gl_Position; EmitVertex(); }}
"
    )
}

#[test]
fn geometry_shader_input_decides_the_draw_modes() {
    // (GS input layout, the modes it takes)
    let table: [(&str, &[u32]); 5] = [
        ("points", &[glow::POINTS]),
        ("lines", &[glow::LINES, glow::LINE_STRIP, glow::LINE_LOOP]),
        (
            "lines_adjacency",
            &[glow::LINES_ADJACENCY, glow::LINE_STRIP_ADJACENCY],
        ),
        (
            "triangles",
            &[glow::TRIANGLES, glow::TRIANGLE_STRIP, glow::TRIANGLE_FAN],
        ),
        (
            "triangles_adjacency",
            &[glow::TRIANGLES_ADJACENCY, glow::TRIANGLE_STRIP_ADJACENCY],
        ),
    ];
    let all: Vec<u32> = table.iter().flat_map(|(_, m)| m.iter().copied()).collect();
    // SAFETY: GL calls on this thread with a current context; every
    // pointer covers what the call reads or writes.
    unsafe {
        make_context();
        bind_rgba8_framebuffer(8, 8);
        let mut vao = 0;
        vertex::glGenVertexArrays(1, &mut vao);
        vertex::glBindVertexArray(vao);

        // Without a geometry shader every mode draws.
        shaders::glUseProgram(link_program(VS, FS));
        for &mode in &all {
            draw::glDrawArrays(mode, 0, 6);
            no_gl_error("a mode without a geometry shader");
        }
        for (input, takes) in table {
            let src = gs(input);
            let p = link_stages(&[
                (glow::VERTEX_SHADER, VS),
                (glow::GEOMETRY_SHADER, &src),
                (glow::FRAGMENT_SHADER, FS),
            ]);
            shaders::glUseProgram(p);
            for &mode in &all {
                draw::glDrawArrays(mode, 0, 6);
                if takes.contains(&mode) {
                    no_gl_error(&format!("mode {mode:#x} with `{input}` input"));
                } else {
                    expect_error(
                        &format!("mode {mode:#x} with `{input}` input"),
                        glow::INVALID_OPERATION,
                    );
                }
            }
        }
        // Back to a program without one: the check goes with it.
        shaders::glUseProgram(link_program(VS, FS));
        draw::glDrawArrays(glow::TRIANGLES_ADJACENCY, 0, 6);
        no_gl_error("adjacency without a geometry shader again");
    }
}
