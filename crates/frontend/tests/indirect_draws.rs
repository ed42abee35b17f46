//! Indirect draws (GL 4.6 §10.4): commands read from the bound
//! GL_DRAW_INDIRECT_BUFFER draw what they describe (counts, instances,
//! first vertex / first index, base vertex, strides of the multi forms),
//! and the errors of the section are raised.
//!
//! `cargo nextest run -p frontend --test indirect_draws`

mod common;

use std::ffi::{c_void, CString};

use common::{expect_error, link_program};
use mobilegl::gl::{indirect, shaders, state, vertex};

const VS: &str = "#version 330 core
layout(location = 0) in vec2 a_pos;
flat out int v_instance;
void main() { gl_Position = vec4(a_pos, 0.0, 1.0); v_instance = gl_InstanceID; }
";
/// Each fragment adds 1/8 of its colour: overlapping instances and draws
/// add up under additive blending.
const FS: &str = "#version 330 core
uniform vec4 u_color;
flat in int v_instance;
out vec4 o;
void main() { o = u_color * 0.125 * float(v_instance + 1); }
";

const SIZE: i32 = 4;

/// The red channel of pixel (1, 1) after clearing and running `f`.
unsafe fn red_after(f: impl FnOnce()) -> u8 {
    // SAFETY: a context is current; `px` holds one RGBA8 pixel.
    unsafe {
        state::glClearColor(0.0, 0.0, 0.0, 0.0);
        state::glClear(glow::COLOR_BUFFER_BIT);
        f();
        common::pixel(1, 1)[0]
    }
}

unsafe fn buffer(target: u32, words: &[u32]) -> u32 {
    // SAFETY: a context is current.
    unsafe { common::buffer_with(target, bytemuck::cast_slice(words)) }
}

#[test]
fn indirect_commands_draw_what_they_describe() {
    // SAFETY: GL calls on this thread after making a context; every
    // pointer is a local that outlives its call.
    unsafe {
        common::make_context();
        common::bind_rgba8_framebuffer(SIZE, SIZE);
        state::glViewport(0, 0, SIZE, SIZE);
        state::glEnable(glow::BLEND);
        state::glBlendFunc(glow::ONE, glow::ONE);
        let prog = link_program(VS, FS);
        shaders::glUseProgram(prog);
        let name = CString::new("u_color").unwrap();
        shaders::glUniform4f(
            shaders::glGetUniformLocation(prog, name.as_ptr()),
            1.0,
            0.0,
            0.0,
            1.0,
        );
        let mut vao = 0;
        vertex::glGenVertexArrays(1, &mut vao);
        vertex::glBindVertexArray(vao);
        // Vertices 0..3: a degenerate triangle; 3..6: a full-target one.
        let pos: [f32; 12] = [
            0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.0, -1.0, 3.0, -1.0, -1.0, 3.0,
        ];
        buffer(glow::ARRAY_BUFFER, bytemuck::cast_slice(&pos));
        vertex::glVertexAttribPointer(0, 2, glow::FLOAT, 0, 8, std::ptr::null());
        vertex::glEnableVertexAttribArray(0);

        // Without a bound indirect buffer (core): INVALID_OPERATION.
        indirect::glDrawArraysIndirect(glow::TRIANGLES, std::ptr::null());
        expect_error("no indirect buffer", glow::INVALID_OPERATION);

        // {count 3, instances 2, first 3, baseInstance 0} at byte 16;
        // instance 0 adds 1/8, instance 1 adds 2/8.
        let cmds = [0, 0, 0, 0, 3, 2, 3, 0, 3, 1, 0, 0];
        buffer(glow::DRAW_INDIRECT_BUFFER, &cmds);
        let r = red_after(|| indirect::glDrawArraysIndirect(glow::TRIANGLES, 16 as *const c_void));
        assert!((94..=97).contains(&r), "two instances: 3/8 of red, got {r}");
        // The first command draws nothing (count 0).
        let r = red_after(|| indirect::glDrawArraysIndirect(glow::TRIANGLES, std::ptr::null()));
        assert_eq!(r, 0, "an empty command");
        indirect::glDrawArraysIndirect(glow::TRIANGLES, 2 as *const c_void);
        expect_error("misaligned command", glow::INVALID_VALUE);
        indirect::glDrawArraysIndirect(glow::TRIANGLES, 36 as *const c_void);
        expect_error("command past the buffer's end", glow::INVALID_OPERATION);
        // Two commands 32 bytes apart: {3,2,3,0} then {3,1,0,0} (degenerate
        // triangle, vertices 0..3): 3/8.
        let r = red_after(|| {
            indirect::glMultiDrawArraysIndirect(glow::TRIANGLES, 16 as *const c_void, 2, 16)
        });
        assert!((94..=97).contains(&r), "multi-draw, stride 16: got {r}");
        indirect::glMultiDrawArraysIndirect(glow::TRIANGLES, std::ptr::null(), 1, 6);
        expect_error("stride not a multiple of 4", glow::INVALID_VALUE);

        // Elements: indices [9, 9, 9, 0, 1, 2] with base vertex 3 and
        // firstIndex 3 draw the full-target triangle once (1/8).
        indirect::glDrawElementsIndirect(glow::TRIANGLES, glow::UNSIGNED_INT, std::ptr::null());
        expect_error("no index buffer", glow::INVALID_OPERATION);
        buffer(glow::ELEMENT_ARRAY_BUFFER, &[9, 9, 9, 0, 1, 2]);
        buffer(glow::DRAW_INDIRECT_BUFFER, &[3, 1, 3, 3, 0]);
        let r = red_after(|| {
            indirect::glDrawElementsIndirect(glow::TRIANGLES, glow::UNSIGNED_INT, std::ptr::null())
        });
        assert!((31..=33).contains(&r), "elements: 1/8 of red, got {r}");
        indirect::glDrawElementsIndirect(glow::TRIANGLES, glow::FLOAT, std::ptr::null());
        expect_error("bad index type", glow::INVALID_ENUM);
    }
}
