//! Display lists of a compatibility context (`gl::dlist`): immediate mode,
//! state and matrix commands compiled and replayed, GL_COMPILE vs
//! GL_COMPILE_AND_EXECUTE, client arrays copied at compile time, uniform
//! values copied, commands that execute immediately, nesting, glCallLists
//! with glListBase, the errors, and a core context refusing the commands.
//!
//! `cargo nextest run -p frontend --test display_lists`

mod common;

use common::{bind_rgba8_framebuffer, expect_error, link_program, make_context, no_gl_error};
use mobilegl::gl::dlist::*;
use mobilegl::gl::legacy_arrays as la;
use mobilegl::gl::{draw, get, immediate, matrix, queries, shaders, state, textures};

const SIZE: i32 = 16;
/// GL_CURRENT_COLOR (compatibility profile; glow has no constant).
const CURRENT_COLOR: u32 = 0x0B00;

unsafe fn make_compat_context() {
    // SAFETY: the helpers make their own context and framebuffer.
    unsafe {
        common::make_compat_context_version(2, 1);
        bind_rgba8_framebuffer(SIZE, SIZE);
        state::glViewport(0, 0, SIZE, SIZE);
    }
}

unsafe fn at(x: i32, y: i32) -> [u8; 4] {
    // SAFETY: a context is current.
    unsafe { common::pixel(x, y) }
}

fn near(a: [u8; 4], b: [u8; 4]) -> bool {
    a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= 2)
}

unsafe fn clear() {
    // SAFETY: a context is current.
    unsafe {
        state::glClearColor(0.0, 0.0, 0.0, 0.0);
        state::glClear(glow::COLOR_BUFFER_BIT);
    }
}

unsafe fn get_int(pname: u32) -> i32 {
    let mut v = -12345;
    // SAFETY: a context is current; one value.
    unsafe { get::glGetIntegerv(pname, &mut v) };
    v
}

const VS: &str = "#version 110
void main() { gl_Position = gl_ModelViewProjectionMatrix * gl_Vertex; gl_FrontColor = gl_Color; }
";
const FS: &str = "#version 110
void main() { gl_FragColor = gl_Color; }
";

#[test]
fn compiled_immediate_mode_draws_when_called() {
    // SAFETY: GL calls on this thread with a current context.
    unsafe {
        make_compat_context();
        let p = link_program(VS, FS);
        shaders::glUseProgram(p);
        clear();
        let list = glGenLists(2);
        assert_ne!(list, 0);
        assert_eq!(glIsList(list), 1);
        assert_eq!(glIsList(list + 1), 1);
        glNewList(list, COMPILE);
        assert_eq!(get_int(LIST_INDEX), list as i32);
        assert_eq!(get_int(LIST_MODE), COMPILE as i32);
        immediate::glBegin(immediate::QUADS);
        la::glColor3f(0.0, 1.0, 0.0);
        immediate::glVertex2f(-1.0, -1.0);
        immediate::glVertex2f(0.0, -1.0);
        immediate::glVertex2f(0.0, 1.0);
        immediate::glVertex2f(-1.0, 1.0);
        immediate::glEnd();
        glEndList();
        no_gl_error("compile");
        assert_eq!(get_int(LIST_INDEX), 0);
        // GL_COMPILE: nothing drawn, the current colour unchanged.
        assert_eq!(at(4, 8), [0; 4], "drawn while compiling");
        let mut c = [0f32; 4];
        get::glGetFloatv(CURRENT_COLOR, c.as_mut_ptr());
        assert_eq!(c, [1.0; 4], "colour set while compiling");

        glCallList(list);
        no_gl_error("call");
        assert!(near(at(4, 8), [0, 255, 0, 255]), "left: {:?}", at(4, 8));
        assert_eq!(at(12, 8), [0; 4]);
        get::glGetFloatv(CURRENT_COLOR, c.as_mut_ptr());
        assert_eq!(c, [0.0, 1.0, 0.0, 1.0], "colour after the call");

        // A matrix command compiled with GL_COMPILE_AND_EXECUTE runs now
        // and again at each call.
        glNewList(list + 1, COMPILE_AND_EXECUTE);
        matrix::glTranslatef(1.0, 0.0, 0.0);
        glEndList();
        let mut m = [0f32; 16];
        get::glGetFloatv(matrix::MODELVIEW_MATRIX, m.as_mut_ptr());
        assert_eq!(m[12], 1.0);
        clear();
        // Moved right by one: the right half only.
        glCallList(list + 1);
        glCallList(list);
        get::glGetFloatv(matrix::MODELVIEW_MATRIX, m.as_mut_ptr());
        assert_eq!(m[12], 2.0);
        matrix::glLoadIdentity();
        glDeleteLists(list, 2);
        assert_eq!(glIsList(list), 0);
        no_gl_error("delete");
    }
}

#[test]
fn client_arrays_and_uniforms_are_copied_at_compile_time() {
    // SAFETY: GL calls on this thread with a current context; the arrays
    // outlive the compile.
    unsafe {
        make_compat_context();
        let p = link_program(
            "#version 110
void main() { gl_Position = gl_Vertex; }
",
            "#version 110
uniform vec4 color;
void main() { gl_FragColor = color; }
",
        );
        shaders::glUseProgram(p);
        let loc = shaders::glGetUniformLocation(p, c"color".as_ptr());
        assert!(loc >= 0);
        clear();
        let mut verts: [[f32; 2]; 4] = [[-1.0, -1.0], [0.0, -1.0], [-1.0, 1.0], [0.0, 1.0]];
        la::glVertexPointer(2, glow::FLOAT, 0, verts.as_ptr().cast());
        la::glEnableClientState(glow::VERTEX_ARRAY);
        let mut color = [0.0f32, 0.0, 1.0, 1.0];
        let list = glGenLists(1);
        glNewList(list, COMPILE);
        shaders::glUniform4fv(loc, 1, color.as_ptr());
        draw::glDrawArrays(glow::TRIANGLE_STRIP, 0, 4);
        let idx: [u16; 4] = [0, 1, 2, 3];
        draw::glDrawElements(
            glow::TRIANGLE_STRIP,
            4,
            glow::UNSIGNED_SHORT,
            idx.as_ptr().cast(),
        );
        glEndList();
        no_gl_error("compile");
        assert_eq!(at(4, 8), [0; 4], "drawn while compiling");
        // What the list holds is what the arrays held at compile time.
        for v in verts.iter_mut() {
            v[0] += 1.0;
        }
        color = [1.0, 0.0, 0.0, 1.0];
        shaders::glUniform4fv(loc, 1, color.as_ptr());
        glCallList(list);
        no_gl_error("call");
        assert!(near(at(4, 8), [0, 0, 255, 255]), "left: {:?}", at(4, 8));
        assert_eq!(at(12, 8), [0; 4], "right: the arrays as changed");
        // The list's uniform value is now current.
        let mut got = [0f32; 4];
        shaders::glGetUniformfv(p, loc, got.as_mut_ptr());
        assert_eq!(got, [0.0, 0.0, 1.0, 1.0]);
        la::glDisableClientState(glow::VERTEX_ARRAY);
        glDeleteLists(list, 1);
    }
}

#[test]
fn texture_images_are_unpacked_at_compile_time() {
    // SAFETY: GL calls on this thread with a current context; the images
    // outlive the calls that read them.
    unsafe {
        make_compat_context();
        let mut tex = 0;
        textures::glGenTextures(1, &mut tex);
        textures::glBindTexture(glow::TEXTURE_2D, tex);
        // Two texels per row with a skipped leading texel: the unpack state
        // of compile time applies.
        state::glPixelStorei(glow::UNPACK_ALIGNMENT, 1);
        state::glPixelStorei(glow::UNPACK_SKIP_PIXELS, 1);
        let mut image: [[u8; 4]; 2] = [[9, 9, 9, 9], [10, 20, 30, 40]];
        let list = glGenLists(1);
        glNewList(list, COMPILE);
        textures::glTexImage2D(
            glow::TEXTURE_2D,
            0,
            glow::RGBA8 as i32,
            1,
            1,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            image.as_ptr().cast(),
        );
        glEndList();
        no_gl_error("compile");
        image[1] = [0; 4];
        // The list must not read the application's memory again.
        std::hint::black_box(&image);
        state::glPixelStorei(glow::UNPACK_SKIP_PIXELS, 0);
        glCallList(list);
        no_gl_error("call");
        let mut got = [0u8; 4];
        queries::glGetTexImage(
            glow::TEXTURE_2D,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            got.as_mut_ptr().cast(),
        );
        no_gl_error("glGetTexImage");
        assert_eq!(got, [10, 20, 30, 40]);
        glDeleteLists(list, 1);
        textures::glDeleteTextures(1, &tex);
    }
}

#[test]
fn nesting_call_lists_and_immediate_commands() {
    // SAFETY: GL calls on this thread with a current context.
    unsafe {
        make_compat_context();
        assert_eq!(get_int(MAX_LIST_NESTING), 64);
        let base = glGenLists(3);
        // base: enable blending; base+1: call base; base+2: calls itself.
        glNewList(base, COMPILE);
        state::glEnable(glow::BLEND);
        glEndList();
        glNewList(base + 1, COMPILE);
        glCallList(base);
        glEndList();
        glNewList(base + 2, COMPILE);
        state::glLineWidth(2.0);
        glCallList(base + 2);
        glEndList();
        assert_eq!(state::glIsEnabled(glow::BLEND), 0);
        glCallList(base + 1);
        assert_eq!(state::glIsEnabled(glow::BLEND), 1);
        state::glDisable(glow::BLEND);
        // Self-recursion stops at the nesting limit.
        glCallList(base + 2);
        no_gl_error("recursive list");

        // glCallLists adds GL_LIST_BASE.
        glListBase(base);
        assert_eq!(get_int(LIST_BASE), base as i32);
        let offsets: [u8; 2] = [0, 7];
        glCallLists(2, glow::UNSIGNED_BYTE, offsets.as_ptr().cast());
        assert_eq!(state::glIsEnabled(glow::BLEND), 1);
        glListBase(0);
        state::glDisable(glow::BLEND);

        // glGenLists executes immediately inside a list.
        glNewList(base, COMPILE);
        let more = glGenLists(1);
        assert_ne!(more, 0);
        assert_eq!(glIsList(more), 1);
        glEndList();
        glDeleteLists(more, 1);
        glDeleteLists(base, 3);
        no_gl_error("cleanup");
    }
}

#[test]
fn errors() {
    // SAFETY: GL calls on this thread with a current context.
    unsafe {
        make_compat_context();
        glNewList(0, COMPILE);
        expect_error("glNewList(0)", glow::INVALID_VALUE);
        glNewList(1, glow::RGBA);
        expect_error("glNewList(bad mode)", glow::INVALID_ENUM);
        glEndList();
        expect_error("glEndList without a list", glow::INVALID_OPERATION);
        glGenLists(-1);
        expect_error("glGenLists(-1)", glow::INVALID_VALUE);
        assert_eq!(glGenLists(0), 0);
        assert_eq!(glGenLists(i32::MAX), 0);
        expect_error("glGenLists(huge)", glow::OUT_OF_MEMORY);
        glDeleteLists(1, -1);
        expect_error("glDeleteLists(-1)", glow::INVALID_VALUE);
        glCallLists(1, glow::RGBA, [0u32].as_ptr().cast());
        expect_error("glCallLists(bad type)", glow::INVALID_ENUM);
        glNewList(5, COMPILE);
        glNewList(6, COMPILE);
        expect_error("glNewList in a list", glow::INVALID_OPERATION);
        // A compiled command's error is raised when the list executes.
        state::glEnable(0xdead);
        no_gl_error("compiling a bad glEnable");
        glEndList();
        glCallList(5);
        expect_error("executing a bad glEnable", glow::INVALID_ENUM);
        // A list call of an undefined list does nothing.
        glCallList(12345);
        no_gl_error("undefined list");
        glDeleteLists(5, 1);
    }
}

#[test]
fn core_contexts_refuse_display_lists() {
    // SAFETY: GL calls on this thread with a current context.
    unsafe {
        make_context();
        glNewList(1, COMPILE);
        expect_error("core glNewList", glow::INVALID_OPERATION);
        glGenLists(1);
        expect_error("core glGenLists", glow::INVALID_OPERATION);
        glCallList(1);
        expect_error("core glCallList", glow::INVALID_OPERATION);
        // Listable commands still run at once.
        state::glEnable(glow::BLEND);
        assert_eq!(state::glIsEnabled(glow::BLEND), 1);
    }
}
