//! Buffer textures (GL 3.1 core, ARB_texture_buffer_object / _range, DSA
//! forms) on the default (GLES) backend: texelFetch and textureSize of a
//! samplerBuffer, buffer updates seen by the next draw, ranges, level
//! queries and the entry points' GL errors.
//!
//! `cargo nextest run -p frontend --test texture_buffers`

mod common;

use common::{bind_rgba8_framebuffer, expect_error, link_program, no_gl_error, pixel};
use mobilegl::gl::{buffers, draw, dsa, get, shaders, state, texbuf, textures, vertex};

const VS: &str = "#version 330 core
void main() {
    vec2 p = vec2(float((gl_VertexID & 1) * 4 - 1), float((gl_VertexID >> 1) * 4 - 1));
    gl_Position = vec4(p, 0.0, 1.0);
}
";
/// Pixel x shows texel x; pixel 4 shows textureSize (in the red channel).
const FS: &str = "#version 330 core
uniform samplerBuffer s;
out vec4 o;
void main() {
    int x = int(gl_FragCoord.x);
    o = x < 4 ? texelFetch(s, x) : vec4(float(textureSize(s)) / 255.0, 0.0, 0.0, 1.0);
}
";

fn texel(i: u8) -> [u8; 4] {
    [10 + i * 20, 250 - i * 30, i * 30, 255]
}

unsafe fn level_param(pname: u32) -> i32 {
    let mut v = -1;
    // SAFETY: a context is current; one value written.
    unsafe { textures::glGetTexLevelParameteriv(glow::TEXTURE_BUFFER, 0, pname, &mut v) };
    v
}

unsafe fn draw_row() -> Vec<[u8; 4]> {
    // SAFETY: a context is current with a program and framebuffer bound.
    unsafe {
        draw::glDrawArrays(glow::TRIANGLES, 0, 3);
        (0..5).map(|x| pixel(x, 0)).collect()
    }
}

#[test]
fn samplers_read_buffer_contents_and_ranges() {
    // First 4 texels at offset 0, 4 other texels at offset 256.
    let mut bytes = vec![0u8; 512];
    for i in 0..4u8 {
        bytes[i as usize * 4..i as usize * 4 + 4].copy_from_slice(&texel(i));
        bytes[256 + i as usize * 4..256 + i as usize * 4 + 4].copy_from_slice(&texel(i + 4));
    }
    // SAFETY: GL calls on this thread with a current context; every
    // pointer passed outlives its call.
    unsafe {
        common::make_context();
        bind_rgba8_framebuffer(5, 1);
        state::glViewport(0, 0, 5, 1);
        let mut vao = 0;
        vertex::glGenVertexArrays(1, &mut vao);
        vertex::glBindVertexArray(vao);
        let buf = common::buffer_with(glow::TEXTURE_BUFFER, &bytes);
        let mut tex = 0;
        textures::glGenTextures(1, &mut tex);
        textures::glBindTexture(glow::TEXTURE_BUFFER, tex);
        let mut v = 0;
        get::glGetIntegerv(glow::TEXTURE_BINDING_BUFFER, &mut v);
        assert_eq!(v as u32, tex, "TEXTURE_BINDING_BUFFER");
        texbuf::glTexBuffer(glow::TEXTURE_BUFFER, glow::RGBA8, buf);
        no_gl_error("glTexBuffer");
        assert_eq!(level_param(glow::TEXTURE_WIDTH), 128, "width of 512 bytes");
        assert_eq!(
            level_param(glow::TEXTURE_BUFFER_DATA_STORE_BINDING) as u32,
            buf
        );
        assert_eq!(
            level_param(glow::TEXTURE_INTERNAL_FORMAT) as u32,
            glow::RGBA8
        );
        shaders::glUseProgram(link_program(VS, FS));

        let row = draw_row();
        for i in 0..4u8 {
            assert_eq!(row[i as usize], texel(i), "whole buffer, texel {i}");
        }
        assert_eq!(row[4][0], 128, "textureSize of the whole buffer");

        // A buffer update reaches the next draw.
        let new0 = [1u8, 2, 3, 255];
        buffers::glBufferSubData(glow::TEXTURE_BUFFER, 0, 4, new0.as_ptr().cast());
        assert_eq!(draw_row()[0], new0, "after glBufferSubData");

        // A range at offset 256 of 16 bytes: 4 texels.
        texbuf::glTexBufferRange(glow::TEXTURE_BUFFER, glow::RGBA8, buf, 256, 16);
        no_gl_error("glTexBufferRange");
        assert_eq!(level_param(glow::TEXTURE_BUFFER_OFFSET), 256);
        assert_eq!(level_param(glow::TEXTURE_BUFFER_SIZE), 16);
        assert_eq!(level_param(glow::TEXTURE_WIDTH), 4);
        let row = draw_row();
        for i in 0..4u8 {
            assert_eq!(row[i as usize], texel(i + 4), "range, texel {i}");
        }
        assert_eq!(row[4][0], 4, "textureSize of the range");

        // Errors (GL 4.6 §8.9).
        texbuf::glTexBuffer(glow::TEXTURE_2D, glow::RGBA8, buf);
        expect_error("glTexBuffer target", glow::INVALID_ENUM);
        texbuf::glTexBuffer(glow::TEXTURE_BUFFER, glow::RGB8, buf);
        expect_error("glTexBuffer format", glow::INVALID_ENUM);
        texbuf::glTexBuffer(glow::TEXTURE_BUFFER, glow::RGBA8, 0xdead);
        expect_error("glTexBuffer buffer", glow::INVALID_OPERATION);
        texbuf::glTexBufferRange(glow::TEXTURE_BUFFER, glow::RGBA8, buf, 4, 16);
        expect_error("unaligned offset", glow::INVALID_VALUE);
        texbuf::glTexBufferRange(glow::TEXTURE_BUFFER, glow::RGBA8, buf, 0, 0);
        expect_error("size 0", glow::INVALID_VALUE);
        texbuf::glTexBufferRange(glow::TEXTURE_BUFFER, glow::RGBA8, buf, 256, 512);
        expect_error("past the end", glow::INVALID_VALUE);
        let mut t2d = 0;
        dsa::glCreateTextures(glow::TEXTURE_2D, 1, &mut t2d);
        texbuf::glTextureBuffer(t2d, glow::RGBA8, buf);
        expect_error("glTextureBuffer of a 2D texture", glow::INVALID_OPERATION);

        // Detach: no buffer, width 0.
        texbuf::glTexBuffer(glow::TEXTURE_BUFFER, glow::RGBA8, 0);
        no_gl_error("detach");
        assert_eq!(level_param(glow::TEXTURE_BUFFER_DATA_STORE_BINDING), 0);
        assert_eq!(level_param(glow::TEXTURE_WIDTH), 0);
    }
}
