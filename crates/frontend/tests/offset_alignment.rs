//! Offset alignment errors of the per-draw calls (GL 3.3 core): an index
//! offset that is not a multiple of the index size is INVALID_OPERATION
//! (§2.8.3, `glDrawElements` with a bound element buffer), and a
//! `glBindBufferRange(GL_UNIFORM_BUFFER)` offset that is not a multiple of
//! GL_UNIFORM_BUFFER_OFFSET_ALIGNMENT is INVALID_VALUE (§2.11.4). Both are
//! checked with masks rather than divisions; this pins the results.
//!
//! `cargo nextest run -p frontend --test offset_alignment`

use std::ffi::c_void;

mod common;
use common::{bind_rgba8_framebuffer, expect_error, link_program, make_context, no_gl_error};
use mobilegl::gl::{buffers, draw, get, shaders, vertex};

const VS: &str = "#version 330 core
layout(location = 0) in vec2 a;
void main() { gl_Position = vec4(a, 0.0, 1.0); }
";
const FS: &str = "#version 330 core
out vec4 o;
void main() { o = vec4(1.0); }
";

/// A byte offset into the bound element buffer, as GL passes it.
fn at(offset: usize) -> *const c_void {
    std::ptr::without_provenance(offset)
}

unsafe fn buffer(target: u32, bytes: &[u8]) -> u32 {
    // SAFETY (whole body): a context is current; `bytes` covers the upload.
    unsafe {
        let mut b = 0;
        buffers::glGenBuffers(1, &mut b);
        buffers::glBindBuffer(target, b);
        buffers::glBufferData(
            target,
            bytes.len() as isize,
            bytes.as_ptr() as *const c_void,
            glow::STATIC_DRAW,
        );
        b
    }
}

#[test]
fn index_and_uniform_range_offsets_must_be_aligned() {
    // SAFETY: GL calls on this thread with a current context; every
    // pointer covers what the call reads or writes.
    unsafe {
        make_context();
        bind_rgba8_framebuffer(8, 8);
        let p = link_program(VS, FS);
        shaders::glUseProgram(p);
        let mut vao = 0;
        vertex::glGenVertexArrays(1, &mut vao);
        vertex::glBindVertexArray(vao);
        let verts: Vec<u8> = [0.0f32, 0.0, 0.1, 0.0, 0.0, 0.1]
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        buffer(glow::ARRAY_BUFFER, &verts);
        vertex::glVertexAttribPointer(0, 2, glow::FLOAT, 0, 8, std::ptr::null());
        vertex::glEnableVertexAttribArray(0);
        let idx: Vec<u8> = [0u32, 1, 2, 0]
            .iter()
            .flat_map(|i| i.to_le_bytes())
            .collect();
        buffer(glow::ELEMENT_ARRAY_BUFFER, &idx);
        no_gl_error("set-up");

        for (ty, size) in [
            (glow::UNSIGNED_BYTE, 1usize),
            (glow::UNSIGNED_SHORT, 2),
            (glow::UNSIGNED_INT, 4),
        ] {
            draw::glDrawElements(glow::TRIANGLES, 3, ty, at(size));
            no_gl_error("aligned index offset");
            if size > 1 {
                draw::glDrawElements(glow::TRIANGLES, 3, ty, at(size + 1));
                expect_error("misaligned index offset", glow::INVALID_OPERATION);
                draw::glDrawElements(glow::TRIANGLES, 3, ty, at(1));
                expect_error("index offset 1", glow::INVALID_OPERATION);
            }
        }

        let mut align = 0;
        get::glGetIntegerv(glow::UNIFORM_BUFFER_OFFSET_ALIGNMENT, &mut align);
        assert!(align >= 1, "alignment {align}");
        let ubo = buffer(glow::UNIFORM_BUFFER, &vec![0u8; 4 * align as usize + 64]);
        buffers::glBindBufferRange(glow::UNIFORM_BUFFER, 0, ubo, 0, 16);
        no_gl_error("offset 0");
        buffers::glBindBufferRange(glow::UNIFORM_BUFFER, 0, ubo, 3 * align as isize, 16);
        no_gl_error("offset 3 * alignment");
        if align > 1 {
            buffers::glBindBufferRange(glow::UNIFORM_BUFFER, 0, ubo, align as isize + 1, 16);
            expect_error("offset alignment + 1", glow::INVALID_VALUE);
            buffers::glBindBufferRange(glow::UNIFORM_BUFFER, 0, ubo, align as isize / 2, 16);
            expect_error("offset alignment / 2", glow::INVALID_VALUE);
        }
    }
}
