//! GL_PRIMITIVE_RESTART with any restart index (GL 4.6 §10.3.6): backends
//! restart at the largest index value only, so the largest value maps to
//! fixed-index restart and any other index has its draw's indices
//! rewritten; a list primitive cut by the restart index is dropped.
//!
//! `cargo nextest run -p frontend --test primitive_restart`

mod common;

use std::ffi::c_void;

use common::{link_program, no_gl_error};
use mobilegl::gl::{draw, shaders, state, vertex};

const VS: &str = "#version 330 core
layout(location = 0) in vec2 a_pos;
void main() { gl_Position = vec4(a_pos, 0.0, 1.0); }
";
const FS: &str = "#version 330 core
out vec4 o;
void main() { o = vec4(1.0, 0.0, 0.0, 1.0); }
";
const SIZE: i32 = 4;

/// Pixel (1, 3) (in the quad's upper-right triangle only) is red after
/// drawing triangles `[0, 1, 2, R, 1, 3, 2]` with restart index `r`.
unsafe fn upper_right_drawn(r: u16) -> bool {
    // SAFETY: a context is current; the locals outlive every call.
    unsafe {
        let idx: [u16; 7] = [0, 1, 2, r, 1, 3, 2];
        common::buffer_with(glow::ELEMENT_ARRAY_BUFFER, bytemuck::cast_slice(&idx));
        state::glPrimitiveRestartIndex(u32::from(r));
        state::glClearColor(0.0, 0.0, 0.0, 0.0);
        state::glClear(glow::COLOR_BUFFER_BIT);
        draw::glDrawElements(
            glow::TRIANGLES,
            7,
            glow::UNSIGNED_SHORT,
            std::ptr::null::<c_void>(),
        );
        no_gl_error("restart draw");
        common::pixel(1, 3)[0] == 255
    }
}

#[test]
fn restart_index_cuts_lists_whatever_its_value() {
    // SAFETY: GL calls on this thread after making a context.
    unsafe {
        common::make_context();
        common::bind_rgba8_framebuffer(SIZE, SIZE);
        state::glViewport(0, 0, SIZE, SIZE);
        shaders::glUseProgram(link_program(VS, FS));
        let mut vao = 0;
        vertex::glGenVertexArrays(1, &mut vao);
        vertex::glBindVertexArray(vao);
        // Corners 0..3 of the target; every other vertex (42 and 0xFFFF
        // included) at the centre, so a triangle through one covers the
        // right-hand wedge (0,0)-(1,-1)-(1,1) and not pixel (1, 3).
        let mut pos = vec![0.0f32; 2 * 0x10000];
        pos[..8].copy_from_slice(&[-1.0, -1.0, 1.0, -1.0, -1.0, 1.0, 1.0, 1.0]);
        common::buffer_with(glow::ARRAY_BUFFER, bytemuck::cast_slice(&pos));
        vertex::glVertexAttribPointer(0, 2, glow::FLOAT, 0, 8, std::ptr::null());
        vertex::glEnableVertexAttribArray(0);

        // Restart off: (0,1,2), (42,1,3) and a dropped tail.
        assert!(!upper_right_drawn(42), "no restart: the wedge only");
        state::glEnable(glow::PRIMITIVE_RESTART);
        assert!(
            upper_right_drawn(42),
            "restart index 42 (indices rewritten)"
        );
        assert!(
            upper_right_drawn(0xFFFF),
            "restart index 0xFFFF (fixed-index restart)"
        );
        // GL_PRIMITIVE_RESTART_FIXED_INDEX wins: 0xFFFF restarts, 42 is a vertex.
        state::glEnable(glow::PRIMITIVE_RESTART_FIXED_INDEX);
        assert!(!upper_right_drawn(42), "fixed index wins over index 42");
    }
}
