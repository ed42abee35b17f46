//! Active-uniform queries (GL 4.6 §7.3.1, ARB_uniform_buffer_object): a
//! fragment shader alone in a compatibility context lists only its own
//! uniforms (the fixed-function vertex stage the implementation adds reads
//! the matrix state, which is not the application's), and negative
//! counts and buffer sizes are INVALID_VALUE with nothing written.
//!
//! `cargo nextest run -p frontend --test uniform_queries`

mod common;
use common::{expect_error, link_stages, make_compat_context_version, no_gl_error};
use mobilegl::gl::shaders;

const FS: &str = "#version 120
uniform float a;
uniform vec2 b;
uniform vec3 c;
void main() { gl_FragColor = vec4(a, b, c.x) + gl_TexCoord[0]; }
";

#[test]
fn fragment_only_programs_list_their_own_uniforms() {
    // SAFETY: GL calls on this thread with a current context; every
    // pointer covers what the call reads or writes.
    unsafe {
        make_compat_context_version(2, 1);
        let p = link_stages(&[(glow::FRAGMENT_SHADER, FS)]);
        let mut n = 0;
        shaders::glGetProgramiv(p, glow::ACTIVE_UNIFORMS, &mut n);
        assert_eq!(n, 3, "a, b and c only");
        let names = [c"a".as_ptr(), c"b".as_ptr(), c"c".as_ptr()];
        let mut idx = [u32::MAX; 3];
        shaders::glGetUniformIndices(p, 3, names.as_ptr(), idx.as_mut_ptr());
        no_gl_error("glGetUniformIndices");
        idx.sort_unstable();
        assert_eq!(idx, [0, 1, 2]);

        let mut untouched = 0xd0d0u32;
        shaders::glGetUniformIndices(p, -1, names.as_ptr(), &mut untouched);
        expect_error("glGetUniformIndices(count -1)", glow::INVALID_VALUE);
        assert_eq!(untouched, 0xd0d0);
        let mut out = 0x5a5a;
        shaders::glGetActiveUniformsiv(p, -1, idx.as_ptr(), glow::UNIFORM_TYPE, &mut out);
        expect_error("glGetActiveUniformsiv(count -1)", glow::INVALID_VALUE);
        assert_eq!(out, 0x5a5a);
        let mut byte = 0x7fi8 as std::ffi::c_char;
        shaders::glGetActiveUniformName(p, 0, -1, std::ptr::null_mut(), &mut byte);
        expect_error("glGetActiveUniformName(bufSize -1)", glow::INVALID_VALUE);
        assert_eq!(byte, 0x7f);
    }
}
