//! glUniform* by GL 3.3 core §2.11.6: a setter writes a uniform only when
//! its family (float, int, unsigned) and component count match the
//! uniform's type (INVALID_OPERATION otherwise, the value unchanged), bool
//! uniforms take any family, a count above 1 needs an array, and a count
//! past the end of an array writes only the elements that exist. The
//! per-draw setters take a precomputed fast path (`write_vector`); every
//! case here runs through it or beside it and reads the value back.
//!
//! `cargo nextest run -p frontend --test uniform_setters`

use std::ffi::CString;

mod common;
use common::{expect_error, link_program, make_context, no_gl_error};
use mobilegl::gl::shaders;

const VS: &str = "#version 330 core
uniform vec3 u_v;
uniform int u_i;
uniform uint u_u;
uniform bool u_b;
uniform float u_arr[3];
uniform mat2 u_m;
void main() {
    float k = u_v.x + float(u_i) + float(u_u) + (u_b ? 1.0 : 0.0)
        + u_arr[0] + u_arr[1] + u_arr[2] + u_m[1][1];
    gl_Position = vec4(k, u_v.yz, 1.0);
}
";

const FS: &str = "#version 330 core
out vec4 o;
void main() { o = vec4(1.0); }
";

/// A linked, current program of `VS` and `FS`.
unsafe fn program() -> u32 {
    // SAFETY: a context is current.
    unsafe {
        let p = link_program(VS, FS);
        shaders::glUseProgram(p);
        no_gl_error("program");
        p
    }
}

unsafe fn location(p: u32, name: &str) -> i32 {
    let c = CString::new(name).unwrap();
    // SAFETY: a NUL-terminated name.
    let l = unsafe { shaders::glGetUniformLocation(p, c.as_ptr()) };
    assert!(l >= 0, "{name}: no location");
    l
}

unsafe fn floats(p: u32, loc: i32) -> [f32; 4] {
    let mut v = [f32::NAN; 4];
    // SAFETY: at most a mat2/vec4 (4 floats) is read.
    unsafe { shaders::glGetUniformfv(p, loc, v.as_mut_ptr()) };
    v
}

unsafe fn ints(p: u32, loc: i32) -> i32 {
    let mut v = [i32::MIN; 4];
    // SAFETY: a scalar is read.
    unsafe { shaders::glGetUniformiv(p, loc, v.as_mut_ptr()) };
    v[0]
}

#[test]
fn uniform_setters_match_types_counts_and_arrays() {
    // SAFETY: GL calls on this thread with a current context; every
    // pointer covers what the call reads or writes.
    unsafe {
        make_context();
        let p = program();
        let v = location(p, "u_v");
        let i = location(p, "u_i");
        let u = location(p, "u_u");
        let b = location(p, "u_b");
        let arr = location(p, "u_arr");
        let m = location(p, "u_m");

        // The matching setters, scalar and vector forms.
        shaders::glUniform3f(v, 1.0, 2.0, 3.0);
        no_gl_error("glUniform3f vec3");
        assert_eq!(floats(p, v)[..3], [1.0, 2.0, 3.0]);
        shaders::glUniform3fv(v, 1, [4.0f32, 5.0, 6.0].as_ptr());
        no_gl_error("glUniform3fv vec3");
        assert_eq!(floats(p, v)[..3], [4.0, 5.0, 6.0]);
        // A float read as an integer rounds to the nearest.
        shaders::glUniform3f(v, -3.9, 5.0, 6.0);
        assert_eq!(ints(p, v), -4);
        shaders::glUniform3fv(v, 1, [4.0f32, 5.0, 6.0].as_ptr());
        shaders::glUniform1i(i, -7);
        shaders::glUniform1ui(u, 9);
        no_gl_error("int/uint");
        assert_eq!((ints(p, i), ints(p, u)), (-7, 9));

        // Wrong size or family: INVALID_OPERATION, value unchanged.
        shaders::glUniform2f(v, 8.0, 8.0);
        expect_error("glUniform2f on vec3", glow::INVALID_OPERATION);
        shaders::glUniform4fv(v, 1, [8.0f32; 4].as_ptr());
        expect_error("glUniform4fv on vec3", glow::INVALID_OPERATION);
        shaders::glUniform3i(v, 8, 8, 8);
        expect_error("glUniform3i on vec3", glow::INVALID_OPERATION);
        assert_eq!(floats(p, v)[..3], [4.0, 5.0, 6.0]);
        shaders::glUniform1f(i, 8.0);
        expect_error("glUniform1f on int", glow::INVALID_OPERATION);
        shaders::glUniform1ui(i, 8);
        expect_error("glUniform1ui on int", glow::INVALID_OPERATION);
        shaders::glUniform1i(u, 8);
        expect_error("glUniform1i on uint", glow::INVALID_OPERATION);
        assert_eq!((ints(p, i), ints(p, u)), (-7, 9));
        shaders::glUniform3fv(v, 2, [8.0f32; 6].as_ptr());
        expect_error("count 2 on a non-array", glow::INVALID_OPERATION);
        shaders::glUniform3fv(v, -1, [8.0f32; 3].as_ptr());
        expect_error("negative count", glow::INVALID_VALUE);
        shaders::glUniform2f(m, 8.0, 8.0);
        expect_error("glUniform2f on mat2", glow::INVALID_OPERATION);
        assert_eq!(floats(p, v)[..3], [4.0, 5.0, 6.0]);

        // Bool takes any family; non-zero is true.
        shaders::glUniform1f(b, 0.5);
        no_gl_error("glUniform1f on bool");
        assert_eq!(ints(p, b), 1);
        shaders::glUniform1ui(b, 0);
        no_gl_error("glUniform1ui on bool");
        assert_eq!(ints(p, b), 0);

        // Arrays: one element through its own location, then a count past
        // the end from element 1 (only elements 1 and 2 exist).
        shaders::glUniform1fv(arr + 2, 1, [3.5f32].as_ptr());
        no_gl_error("element 2");
        assert_eq!(floats(p, arr + 2)[0], 3.5);
        shaders::glUniform1fv(arr + 1, 5, [1.5f32, 2.5, 9.0, 9.0, 9.0].as_ptr());
        no_gl_error("count past the end");
        assert_eq!(floats(p, arr + 1)[0], 1.5);
        assert_eq!(floats(p, arr + 2)[0], 2.5);

        // A matrix through the matrix setter only.
        shaders::glUniformMatrix2fv(m, 1, 0, [1.0f32, 2.0, 3.0, 4.0].as_ptr());
        no_gl_error("glUniformMatrix2fv");
        assert_eq!(floats(p, m), [1.0, 2.0, 3.0, 4.0]);

        // Location -1 is silently ignored; an unknown location is an error.
        shaders::glUniform3f(-1, 0.0, 0.0, 0.0);
        no_gl_error("location -1");
        shaders::glUniform3f(1000, 0.0, 0.0, 0.0);
        expect_error("unknown location", glow::INVALID_OPERATION);
    }
}
