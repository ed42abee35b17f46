//! Vertex attribute binding (GL 4.3, GL 4.6 §10.3.1-2): attributes read
//! binding points through their relative offsets, share them, take their
//! divisor from them; glVertexAttribPointer is the old API on top; the
//! section's errors are raised.
//!
//! `cargo nextest run -p frontend --test vertex_attrib_binding`

mod common;

use common::{expect_error, link_program, no_gl_error};
use mobilegl::gl::{attrib_values, buffers, draw, get, shaders, state, vertex};

const VS: &str = "#version 330 core
layout(location = 0) in vec2 a_pos;
layout(location = 1) in vec4 a_color;
out vec4 v_color;
void main() { gl_Position = vec4(a_pos, 0.0, 1.0); v_color = a_color; }
";
const FS: &str = "#version 330 core
in vec4 v_color;
out vec4 o;
void main() { o = v_color; }
";
const SIZE: i32 = 4;

unsafe fn binding_state(pname: u32, index: u32) -> i32 {
    let mut v = -1;
    // SAFETY: a context is current; `v` is a local.
    unsafe { get::glGetIntegeri_v(pname, index, &mut v) };
    v
}

#[test]
fn attributes_read_shared_binding_points() {
    // SAFETY: GL calls on this thread after making a context; pointers are
    // locals that outlive their calls.
    unsafe {
        common::make_context();
        common::bind_rgba8_framebuffer(SIZE, SIZE);
        state::glViewport(0, 0, SIZE, SIZE);
        shaders::glUseProgram(link_program(VS, FS));

        // Without a VAO (core): INVALID_OPERATION.
        vertex::glVertexAttribBinding(0, 0);
        expect_error("no VAO bound", glow::INVALID_OPERATION);
        let mut vao = 0;
        vertex::glGenVertexArrays(1, &mut vao);
        vertex::glBindVertexArray(vao);
        let mut n = 0;
        get::glGetIntegerv(glow::MAX_VERTEX_ATTRIB_BINDINGS, &mut n);
        assert!(n >= 16, "GL_MAX_VERTEX_ATTRIB_BINDINGS {n}");
        vertex::glVertexAttribBinding(0, n as u32);
        expect_error("binding index past the limit", glow::INVALID_VALUE);
        vertex::glVertexAttribFormat(0, 2, glow::FLOAT, 0, 4096);
        expect_error("relative offset past the limit", glow::INVALID_VALUE);
        vertex::glBindVertexBuffer(0, 12345, 0, 24);
        expect_error("not a buffer name", glow::INVALID_OPERATION);
        vertex::glBindVertexBuffer(0, 0, 0, 4096);
        expect_error("stride past the limit", glow::INVALID_VALUE);

        // One interleaved buffer, 24 bytes a vertex: position (2 floats),
        // then colour (4 floats) at relative offset 8. A 48-byte lead-in
        // the binding's offset skips.
        let mut data = vec![0.0f32; 12];
        for v in [[-1.0f32, -1.0], [3.0, -1.0], [-1.0, 3.0]] {
            data.extend_from_slice(&[v[0], v[1], 0.0, 1.0, 0.0, 1.0]);
        }
        let vb = common::buffer_with(glow::ARRAY_BUFFER, bytemuck::cast_slice(&data));
        buffers::glBindBuffer(glow::ARRAY_BUFFER, 0);
        vertex::glBindVertexBuffer(3, vb, 48, 24);
        vertex::glVertexAttribFormat(0, 2, glow::FLOAT, 0, 0);
        vertex::glVertexAttribFormat(1, 4, glow::FLOAT, 0, 8);
        vertex::glVertexAttribBinding(0, 3);
        vertex::glVertexAttribBinding(1, 3);
        vertex::glEnableVertexAttribArray(0);
        vertex::glEnableVertexAttribArray(1);
        no_gl_error("binding set-up");
        assert_eq!(binding_state(glow::VERTEX_BINDING_BUFFER, 3), vb as i32);
        assert_eq!(binding_state(glow::VERTEX_BINDING_OFFSET, 3), 48);
        assert_eq!(binding_state(glow::VERTEX_BINDING_STRIDE, 3), 24);
        let mut v = 0;
        attrib_values::glGetVertexAttribiv(1, glow::VERTEX_ATTRIB_BINDING, &mut v);
        assert_eq!(v, 3, "GL_VERTEX_ATTRIB_BINDING");
        attrib_values::glGetVertexAttribiv(1, glow::VERTEX_ATTRIB_RELATIVE_OFFSET, &mut v);
        assert_eq!(v, 8, "GL_VERTEX_ATTRIB_RELATIVE_OFFSET");
        attrib_values::glGetVertexAttribiv(1, glow::VERTEX_ATTRIB_ARRAY_BUFFER_BINDING, &mut v);
        assert_eq!(
            v, vb as i32,
            "the binding's buffer, seen from the attribute"
        );

        draw::glDrawArrays(glow::TRIANGLES, 0, 3);
        no_gl_error("draw");
        let px = common::pixel(1, 1);
        assert_eq!(px, [0, 255, 0, 255], "colour through the shared binding");

        // glVertexAttribPointer re-points attribute 0 at binding 0.
        buffers::glBindBuffer(glow::ARRAY_BUFFER, vb);
        vertex::glVertexAttribPointer(0, 2, glow::FLOAT, 0, 24, 48 as *const _);
        attrib_values::glGetVertexAttribiv(0, glow::VERTEX_ATTRIB_BINDING, &mut v);
        assert_eq!(v, 0, "glVertexAttribPointer binds attribute i to binding i");
        assert_eq!(binding_state(glow::VERTEX_BINDING_OFFSET, 0), 48);
        // A binding divisor of 1: every vertex of instance 0 reads vertex 0
        // of the colour binding, here the lead-in's zeros (black).
        vertex::glVertexBindingDivisor(3, 1);
        assert_eq!(binding_state(glow::VERTEX_BINDING_DIVISOR, 3), 1);
        vertex::glBindVertexBuffer(3, vb, 0, 24);
        draw::glDrawArrays(glow::TRIANGLES, 0, 3);
        no_gl_error("instanced binding");
        let px = common::pixel(1, 1);
        assert_eq!(px, [0, 0, 0, 0], "per-instance colour from the lead-in");
    }
}

/// GL 4.6 §10.5: an instanced attribute fetches element
/// ⌊instance / divisor⌋ + baseinstance (the base is not divided).
#[test]
fn base_instance_is_added_after_the_divisor() {
    // SAFETY: GL calls on this thread after making a context; pointers are
    // locals that outlive their calls.
    unsafe {
        common::make_context();
        common::bind_rgba8_framebuffer(SIZE, SIZE);
        state::glViewport(0, 0, SIZE, SIZE);
        shaders::glUseProgram(link_program(VS, FS));
        let mut vao = 0;
        vertex::glGenVertexArrays(1, &mut vao);
        vertex::glBindVertexArray(vao);
        // Positions, then per-instance colours red, green (divisor 2).
        let data: [f32; 14] = [
            -1.0, -1.0, 3.0, -1.0, -1.0, 3.0, //
            1.0, 0.0, 0.0, 1.0, //
            0.0, 1.0, 0.0, 1.0,
        ];
        common::buffer_with(glow::ARRAY_BUFFER, bytemuck::cast_slice(&data));
        vertex::glVertexAttribPointer(0, 2, glow::FLOAT, 0, 0, std::ptr::null());
        vertex::glVertexAttribPointer(1, 4, glow::FLOAT, 0, 0, 24 as *const _);
        vertex::glVertexAttribDivisor(1, 2);
        vertex::glEnableVertexAttribArray(0);
        vertex::glEnableVertexAttribArray(1);
        draw::glDrawArraysInstancedBaseInstance(glow::TRIANGLES, 0, 3, 1, 1);
        no_gl_error("base-instance draw");
        let px = common::pixel(1, 1);
        assert_eq!(
            px,
            [0, 255, 0, 255],
            "instance 0 with base 1 reads colour 1"
        );
    }
}
