//! Compatibility-profile vertex arrays (GL 4.6 compatibility §10.3–10.5):
//! client-memory fixed-function and generic arrays drawn with
//! glDrawArrays / glDrawElements (client indices), `gl_Color` fed from the
//! colour array or the current colour, texture coordinates, the pointer
//! commands' errors and queries, and a core context refusing them.
//!
//! `cargo nextest run -p frontend --test legacy_arrays`

mod common;
use std::ffi::c_void;

use common::{bind_rgba8_framebuffer, expect_error, link_program, make_context, no_gl_error};
use mobilegl::gl::legacy_arrays::{self as la, enums};
use mobilegl::gl::{debug, draw, get, shaders, state, vertex};

const SIZE: i32 = 16;

/// A current surfaceless GL 3.0 compatibility-profile context drawing into
/// a SIZE×SIZE RGBA8 framebuffer.
unsafe fn make_compat_context() {
    // SAFETY: the helpers make their own context and framebuffer.
    unsafe {
        common::make_compat_context_version(3, 0);
        bind_rgba8_framebuffer(SIZE, SIZE);
        state::glViewport(0, 0, SIZE, SIZE);
    }
}

/// The whole RGBA8 target, row 0 at the bottom.
unsafe fn pixels() -> Vec<[u8; 4]> {
    let mut px = vec![[0u8; 4]; (SIZE * SIZE) as usize];
    // SAFETY: a context is current; `px` holds the whole target.
    unsafe {
        mobilegl::gl::pixels::glReadPixels(
            0,
            0,
            SIZE,
            SIZE,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            px.as_mut_ptr().cast(),
        )
    };
    no_gl_error("glReadPixels");
    px
}

unsafe fn at(x: i32, y: i32) -> [u8; 4] {
    // SAFETY: as `pixels`.
    unsafe { pixels()[(y * SIZE + x) as usize] }
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

/// Left half (vertices 0..4) and right half (4..8) of the viewport, as
/// triangle strips.
const QUADS: [[f32; 2]; 8] = [
    [-1.0, -1.0],
    [0.0, -1.0],
    [-1.0, 1.0],
    [0.0, 1.0],
    [0.0, -1.0],
    [1.0, -1.0],
    [0.0, 1.0],
    [1.0, 1.0],
];

const COLOR_VS: &str = "#version 110
void main() { gl_Position = gl_Vertex; gl_FrontColor = gl_Color; }
";
const TEX_VS: &str = "#version 110
void main() { gl_Position = gl_Vertex; gl_FrontColor = gl_MultiTexCoord0; }
";
const FS: &str = "#version 110
void main() { gl_FragColor = gl_Color; }
";

#[test]
fn client_arrays_and_current_values_reach_the_shader() {
    // SAFETY: GL calls on this thread with a current context; every client
    // array outlives the draws that read it.
    unsafe {
        make_compat_context();
        let p = link_program(COLOR_VS, FS);
        shaders::glUseProgram(p);

        // Vertex array alone: gl_Color is the initial current colour, white.
        clear();
        la::glVertexPointer(2, glow::FLOAT, 0, QUADS.as_ptr().cast());
        la::glEnableClientState(glow::VERTEX_ARRAY);
        no_gl_error("vertex array");
        draw::glDrawArrays(glow::TRIANGLE_STRIP, 0, 4);
        no_gl_error("draw with the vertex array");
        assert!(near(at(3, 8), [255; 4]), "left: {:?}", at(3, 8));
        assert_eq!(at(12, 8), [0; 4], "right half untouched");

        // The current colour.
        la::glColor4f(0.0, 0.0, 1.0, 1.0);
        draw::glDrawArrays(glow::TRIANGLE_STRIP, 4, 4);
        assert!(near(at(12, 8), [0, 0, 255, 255]), "{:?}", at(12, 8));

        // A colour array (unsigned bytes, normalized), one colour per
        // vertex, all green on the right half.
        let colors: [[u8; 4]; 8] = [[255, 0, 0, 255]; 4]
            .into_iter()
            .chain([[0, 255, 0, 255]; 4])
            .collect::<Vec<_>>()
            .try_into()
            .unwrap();
        la::glColorPointer(4, glow::UNSIGNED_BYTE, 0, colors.as_ptr().cast());
        la::glEnableClientState(enums::COLOR_ARRAY);
        clear();
        draw::glDrawArrays(glow::TRIANGLE_STRIP, 4, 4);
        no_gl_error("draw with a colour array");
        assert!(near(at(12, 8), [0, 255, 0, 255]), "{:?}", at(12, 8));
        assert_eq!(at(3, 8), [0; 4]);

        // Client indices into client arrays: vertices 4..8 only.
        clear();
        let idx: [u16; 4] = [4, 5, 6, 7];
        draw::glDrawElements(
            glow::TRIANGLE_STRIP,
            4,
            glow::UNSIGNED_SHORT,
            idx.as_ptr().cast(),
        );
        no_gl_error("indexed draw of client arrays");
        assert!(near(at(12, 8), [0, 255, 0, 255]), "{:?}", at(12, 8));
        assert_eq!(at(3, 8), [0; 4]);
        let idx: [u8; 4] = [0, 1, 2, 3];
        draw::glDrawElements(
            glow::TRIANGLE_STRIP,
            4,
            glow::UNSIGNED_BYTE,
            idx.as_ptr().cast(),
        );
        assert!(near(at(3, 8), [255, 0, 0, 255]), "{:?}", at(3, 8));

        // Disabled again: the current colour.
        la::glDisableClientState(enums::COLOR_ARRAY);
        clear();
        draw::glDrawArrays(glow::TRIANGLE_STRIP, 0, 4);
        assert!(near(at(3, 8), [0, 0, 255, 255]), "{:?}", at(3, 8));

        // Texture coordinates: an array of two components (r = 0, q = 1),
        // then the current value through glMultiTexCoord.
        shaders::glUseProgram(link_program(TEX_VS, FS));
        let tc = [[1.0f32, 0.5]; 8];
        la::glTexCoordPointer(2, glow::FLOAT, 0, tc.as_ptr().cast());
        la::glEnableClientState(enums::TEXTURE_COORD_ARRAY);
        clear();
        draw::glDrawArrays(glow::TRIANGLE_STRIP, 0, 4);
        no_gl_error("draw with a texture-coordinate array");
        assert!(near(at(3, 8), [255, 128, 0, 255]), "{:?}", at(3, 8));
        la::glDisableClientState(enums::TEXTURE_COORD_ARRAY);
        la::glMultiTexCoord4f(glow::TEXTURE0, 0.0, 1.0, 1.0, 1.0);
        draw::glDrawArrays(glow::TRIANGLE_STRIP, 4, 4);
        assert!(near(at(12, 8), [0, 255, 255, 255]), "{:?}", at(12, 8));
    }
}

#[test]
fn generic_client_arrays_draw() {
    // SAFETY: as above.
    unsafe {
        make_compat_context();
        let vs = "#version 130
in vec2 pos;
in vec4 col;
out vec4 c;
void main() { gl_Position = vec4(pos, 0.0, 1.0); c = col; }
";
        let fs = "#version 130
in vec4 c;
out vec4 o;
void main() { o = c; }
";
        let p = shaders::glCreateProgram();
        for (ty, src) in [(glow::VERTEX_SHADER, vs), (glow::FRAGMENT_SHADER, fs)] {
            let s = shaders::glCreateShader(ty);
            let c = std::ffi::CString::new(src).unwrap();
            shaders::glShaderSource(s, 1, &c.as_ptr(), std::ptr::null());
            shaders::glCompileShader(s);
            shaders::glAttachShader(p, s);
        }
        shaders::glBindAttribLocation(p, 0, c"pos".as_ptr());
        shaders::glBindAttribLocation(p, 3, c"col".as_ptr());
        shaders::glLinkProgram(p);
        shaders::glUseProgram(p);
        let col = [[1.0f32, 0.0, 1.0, 1.0]; 8];
        vertex::glVertexAttribPointer(0, 2, glow::FLOAT, 0, 0, QUADS.as_ptr().cast());
        vertex::glVertexAttribPointer(3, 4, glow::FLOAT, 0, 16, col.as_ptr().cast());
        vertex::glEnableVertexAttribArray(0);
        vertex::glEnableVertexAttribArray(3);
        clear();
        // First vertex 4: the staged range starts there.
        draw::glDrawArrays(glow::TRIANGLE_STRIP, 4, 4);
        no_gl_error("generic client arrays");
        assert!(near(at(12, 8), [255, 0, 255, 255]), "{:?}", at(12, 8));
        assert_eq!(at(3, 8), [0; 4]);
    }
}

#[test]
fn client_arrays_keep_gl_vertex_id() {
    // SAFETY: as above.
    unsafe {
        make_compat_context();
        // The colour says which vertex this is: 4..8 draw green, anything
        // else (gl_VertexID moved by the staging) red.
        let vs = "#version 130
in vec2 pos;
out vec4 c;
void main() {
    gl_Position = vec4(pos, 0.0, 1.0);
    c = gl_VertexID >= 4 && gl_VertexID < 8 ? vec4(0.0, 1.0, 0.0, 1.0) : vec4(1.0, 0.0, 0.0, 1.0);
}
";
        let fs = "#version 130
in vec4 c;
out vec4 o;
void main() { o = c; }
";
        let p = shaders::glCreateProgram();
        for (ty, src) in [(glow::VERTEX_SHADER, vs), (glow::FRAGMENT_SHADER, fs)] {
            let s = shaders::glCreateShader(ty);
            let c = std::ffi::CString::new(src).unwrap();
            shaders::glShaderSource(s, 1, &c.as_ptr(), std::ptr::null());
            shaders::glCompileShader(s);
            shaders::glAttachShader(p, s);
        }
        shaders::glBindAttribLocation(p, 0, c"pos".as_ptr());
        shaders::glLinkProgram(p);
        shaders::glUseProgram(p);
        vertex::glVertexAttribPointer(0, 2, glow::FLOAT, 0, 0, QUADS.as_ptr().cast());
        vertex::glEnableVertexAttribArray(0);
        clear();
        draw::glDrawArrays(glow::TRIANGLE_STRIP, 4, 4);
        no_gl_error("client array draw from vertex 4");
        assert!(near(at(12, 8), [0, 255, 0, 255]), "{:?}", at(12, 8));
    }
}

#[test]
fn pointer_errors_and_queries() {
    // SAFETY: as above; the pointers are never read (no draw).
    unsafe {
        make_compat_context();
        let data = [0f32; 16];
        let ptr = data.as_ptr() as *const c_void;
        la::glVertexPointer(4, glow::FLOAT, -1, ptr);
        expect_error("negative stride", glow::INVALID_VALUE);
        la::glVertexPointer(1, glow::FLOAT, 0, ptr);
        expect_error("vertex size 1", glow::INVALID_VALUE);
        la::glVertexPointer(4, glow::UNSIGNED_BYTE, 0, ptr);
        expect_error("vertex of unsigned bytes", glow::INVALID_ENUM);
        la::glColorPointer(glow::BGRA as i32, glow::FLOAT, 0, ptr);
        expect_error("BGRA floats", glow::INVALID_OPERATION);
        la::glNormalPointer(glow::UNSIGNED_BYTE, 0, ptr);
        expect_error("normal of unsigned bytes", glow::INVALID_ENUM);
        la::glTexCoordPointer(5, glow::FLOAT, 0, ptr);
        expect_error("texcoord size 5", glow::INVALID_VALUE);
        la::glFogCoordPointer(glow::INT, 0, ptr);
        expect_error("fog coordinate of ints", glow::INVALID_ENUM);
        la::glEnableClientState(glow::BLEND);
        expect_error("glEnableClientState(GL_BLEND)", glow::INVALID_ENUM);
        la::glClientActiveTexture(glow::TEXTURE0 + 8);
        expect_error("client active texture 8", glow::INVALID_ENUM);

        // State and queries.
        la::glColorPointer(3, glow::SHORT, 12, ptr);
        la::glEnableClientState(enums::COLOR_ARRAY);
        la::glClientActiveTexture(glow::TEXTURE0 + 2);
        la::glTexCoordPointer(3, glow::DOUBLE, 0, ptr.cast::<u8>().add(8).cast());
        no_gl_error("pointers");
        let geti = |pname: u32| {
            let mut v = [-7i32; 4];
            get::glGetIntegerv(pname, v.as_mut_ptr());
            no_gl_error("glGetIntegerv");
            v[0]
        };
        assert_eq!(geti(enums::COLOR_ARRAY_SIZE), 3);
        assert_eq!(geti(enums::COLOR_ARRAY_TYPE), glow::SHORT as i32);
        assert_eq!(geti(enums::COLOR_ARRAY_STRIDE), 12);
        assert_eq!(geti(enums::COLOR_ARRAY_BUFFER_BINDING), 0);
        assert_eq!(geti(enums::TEXTURE_COORD_ARRAY_SIZE), 3);
        assert_eq!(geti(enums::TEXTURE_COORD_ARRAY_TYPE), glow::DOUBLE as i32);
        assert_eq!(
            geti(enums::CLIENT_ACTIVE_TEXTURE),
            (glow::TEXTURE0 + 2) as i32
        );
        assert_eq!(geti(enums::VERTEX_ARRAY_SIZE), 4, "initial vertex size");
        assert_eq!(state::glIsEnabled(enums::COLOR_ARRAY), 1);
        assert_eq!(state::glIsEnabled(glow::VERTEX_ARRAY), 0);
        assert_eq!(state::glIsEnabled(enums::TEXTURE_COORD_ARRAY), 0);
        let mut out: *mut c_void = std::ptr::null_mut();
        debug::glGetPointerv(enums::TEXTURE_COORD_ARRAY_POINTER, &mut out);
        no_gl_error("glGetPointerv");
        assert_eq!(out as usize, ptr as usize + 8);

        // Current values: initial colour white, then what glColor3ub set.
        let getf = |pname: u32| {
            let mut v = [f32::NAN; 4];
            get::glGetFloatv(pname, v.as_mut_ptr());
            no_gl_error("glGetFloatv");
            v
        };
        assert_eq!(getf(enums::CURRENT_COLOR), [1.0; 4]);
        assert_eq!(getf(enums::CURRENT_NORMAL)[..3], [0.0, 0.0, 1.0]);
        la::glColor3ub(255, 0, 51);
        assert_eq!(getf(enums::CURRENT_COLOR), [1.0, 0.0, 0.2, 1.0]);
        la::glNormal3f(1.0, 2.0, 3.0);
        assert_eq!(getf(enums::CURRENT_NORMAL)[..3], [1.0, 2.0, 3.0]);
        la::glMultiTexCoord2f(glow::TEXTURE0 + 9, 1.0, 1.0);
        expect_error("glMultiTexCoord of unit 9", glow::INVALID_ENUM);

        // A client pointer with a non-zero VAO bound.
        let mut vao = 0;
        vertex::glGenVertexArrays(1, &mut vao);
        vertex::glBindVertexArray(vao);
        la::glVertexPointer(2, glow::FLOAT, 0, ptr);
        expect_error("client pointer, VAO bound", glow::INVALID_OPERATION);
        assert_eq!(state::glIsEnabled(enums::COLOR_ARRAY), 0, "per VAO");
    }
}

#[test]
fn core_contexts_refuse_the_legacy_entry_points() {
    // SAFETY: GL calls on this thread with a current context.
    unsafe {
        make_context();
        la::glVertexPointer(2, glow::FLOAT, 0, std::ptr::null());
        expect_error("glVertexPointer in core", glow::INVALID_OPERATION);
        la::glEnableClientState(glow::VERTEX_ARRAY);
        expect_error("glEnableClientState in core", glow::INVALID_OPERATION);
        la::glColor4f(1.0, 0.0, 0.0, 1.0);
        expect_error("glColor4f in core", glow::INVALID_OPERATION);
        la::glClientActiveTexture(glow::TEXTURE0);
        expect_error("glClientActiveTexture in core", glow::INVALID_OPERATION);
        state::glIsEnabled(enums::COLOR_ARRAY);
        expect_error("glIsEnabled(GL_COLOR_ARRAY) in core", glow::INVALID_ENUM);
    }
}

/// A fixed-function vertex array sourced from a persistently, coherently
/// mapped buffer: the client's writes through the map reach each draw
/// (GL 4.6 §6.2: coherent writes are visible to later commands).
#[test]
fn coherent_persistent_maps_feed_fixed_function_arrays() {
    use mobilegl::gl::buffers;
    // SAFETY: GL calls on this thread with a current context; the map
    // covers the bytes written through it.
    unsafe {
        make_compat_context();
        let p = link_program(COLOR_VS, FS);
        shaders::glUseProgram(p);
        clear();
        let mut buf = 0;
        buffers::glGenBuffers(1, &mut buf);
        buffers::glBindBuffer(glow::ARRAY_BUFFER, buf);
        let size = std::mem::size_of_val(&QUADS) as isize;
        let flags = glow::MAP_WRITE_BIT | glow::MAP_PERSISTENT_BIT | glow::MAP_COHERENT_BIT;
        buffers::glBufferStorage(glow::ARRAY_BUFFER, size, std::ptr::null(), flags);
        let map = buffers::glMapBufferRange(glow::ARRAY_BUFFER, 0, size, flags) as *mut [f32; 2];
        assert!(!map.is_null());
        la::glVertexPointer(2, glow::FLOAT, 0, std::ptr::null());
        la::glEnableClientState(glow::VERTEX_ARRAY);
        buffers::glBindBuffer(glow::ARRAY_BUFFER, 0);
        no_gl_error("persistent map and vertex pointer");
        // Each half is written just before the draw that reads it.
        std::ptr::copy_nonoverlapping(QUADS.as_ptr(), map, 4);
        draw::glDrawArrays(glow::TRIANGLE_STRIP, 0, 4);
        std::ptr::copy_nonoverlapping(QUADS.as_ptr().add(4), map.add(4), 4);
        draw::glDrawArrays(glow::TRIANGLE_STRIP, 4, 4);
        no_gl_error("draws");
        assert!(near(at(3, 8), [255; 4]), "left: {:?}", at(3, 8));
        assert!(near(at(12, 8), [255; 4]), "right: {:?}", at(12, 8));
        la::glDisableClientState(glow::VERTEX_ARRAY);
    }
}
