//! `gl_PointCoord` has GL's default origin (GL_POINT_SPRITE_COORD_ORIGIN =
//! GL_UPPER_LEFT, GL 4.6 §14.4.1): s grows left to right and t grows from
//! the top of the point down, whatever the backend's own convention.
//!
//! `cargo nextest run -p frontend --test point_coord` (the GLES backend,
//! as CI runs it). With `MOBILEGL_BACKEND=vulkan` it fails today: t runs
//! bottom-up there, a named gap in `backend-vulkan/src/emulation.rs`.

mod common;
use common::{bind_rgba8_framebuffer, link_program, make_context, no_gl_error};
use mobilegl::gl::{draw, pixels, shaders, state, vertex};

const VS: &str = "#version 330 core
void main() { gl_Position = vec4(0.0, 0.0, 0.0, 1.0); gl_PointSize = 8.0; }
";
const FS: &str = "#version 330 core
out vec4 o;
void main() { o = vec4(gl_PointCoord, 0.0, 1.0); }
";

#[test]
fn point_coord_origin_is_upper_left() {
    const SIZE: i32 = 16;
    let mut px = vec![0u8; (SIZE * SIZE * 4) as usize];
    // SAFETY: GL calls on this thread with a current context; `px` holds
    // the whole RGBA8 target.
    unsafe {
        make_context();
        bind_rgba8_framebuffer(SIZE, SIZE);
        state::glViewport(0, 0, SIZE, SIZE);
        state::glEnable(glow::PROGRAM_POINT_SIZE);
        let mut vao = 0;
        vertex::glGenVertexArrays(1, &mut vao);
        vertex::glBindVertexArray(vao);
        shaders::glUseProgram(link_program(VS, FS));
        draw::glDrawArrays(glow::POINTS, 0, 1);
        pixels::glReadPixels(
            0,
            0,
            SIZE,
            SIZE,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            px.as_mut_ptr().cast(),
        );
        no_gl_error("draw and read");
    }
    // The 8x8 point covers window pixels 4..12 in x and y (GL window
    // coordinates: row 0 is the bottom).
    let at = |x: i32, y: i32| {
        let i = ((y * SIZE + x) * 4) as usize;
        [i32::from(px[i]), i32::from(px[i + 1])]
    };
    let (bottom_left, top_left, bottom_right) = (at(4, 4), at(4, 11), at(11, 4));
    assert!(
        bottom_right[0] > bottom_left[0] + 128,
        "s grows to the right: {bottom_left:?} -> {bottom_right:?}"
    );
    assert!(
        bottom_left[1] > top_left[1] + 128,
        "t grows from the top down (upper-left origin): top {top_left:?}, bottom {bottom_left:?}"
    );
}
