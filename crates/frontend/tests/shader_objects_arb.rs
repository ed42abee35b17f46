//! GL_ARB_shader_objects' own commands in a compatibility context (object
//! type and parameter queries, info logs, the current-program handle,
//! deletion through one entry point) and GL's rule that a program links
//! the source of each shader's last compile, not a later glShaderSource.
//!
//! `cargo nextest run -p frontend --test shader_objects_arb`

mod common;

use common::{expect_error, no_gl_error};
use mobilegl::gl::{shader_objects_arb as arb, shaders};

const PROGRAM_OBJECT_ARB: u32 = 0x8B40;
const SHADER_OBJECT_ARB: u32 = 0x8B48;
const OBJECT_TYPE_ARB: u32 = 0x8B4E;
const OBJECT_SUBTYPE_ARB: u32 = 0x8B4F;

unsafe fn source(shader: u32, text: &str) {
    let ptr = text.as_ptr().cast();
    let len = text.len() as i32;
    // SAFETY: one string of `len` bytes.
    unsafe { shaders::glShaderSource(shader, 1, &ptr, &len) };
}

unsafe fn param(obj: u32, pname: u32) -> i32 {
    let mut v = -1;
    // SAFETY: one writable int.
    unsafe { arb::glGetObjectParameterivARB(obj, pname, &mut v) };
    v
}

#[test]
fn object_queries_and_the_compiled_source_rule() {
    // SAFETY: GL calls on this thread with a current context; pointers are
    // locals that outlive their calls.
    unsafe {
        common::make_compat_context_version(3, 0);
        let vs = shaders::glCreateShader(glow::VERTEX_SHADER);
        let fs = shaders::glCreateShader(glow::FRAGMENT_SHADER);
        let p = shaders::glCreateProgram();
        source(
            vs,
            "uniform vec4 u_a;\nvoid main() { gl_Position = u_a; }\n",
        );
        source(fs, "void main() { gl_FragColor = vec4(1.0); }\n");
        shaders::glCompileShader(vs);
        shaders::glCompileShader(fs);
        // New source, never compiled: the link still uses u_a's.
        source(
            vs,
            "uniform vec4 u_b;\nvoid main() { gl_Position = u_b; }\n",
        );
        shaders::glAttachShader(p, vs);
        shaders::glAttachShader(p, fs);
        shaders::glLinkProgram(p);
        no_gl_error("compile and link");
        assert_eq!(param(p, glow::LINK_STATUS), 1);
        assert!(shaders::glGetUniformLocation(p, c"u_a".as_ptr()) >= 0);
        assert_eq!(shaders::glGetUniformLocation(p, c"u_b".as_ptr()), -1);

        assert_eq!(param(p, OBJECT_TYPE_ARB), PROGRAM_OBJECT_ARB as i32);
        assert_eq!(param(vs, OBJECT_TYPE_ARB), SHADER_OBJECT_ARB as i32);
        assert_eq!(param(fs, OBJECT_SUBTYPE_ARB), glow::FRAGMENT_SHADER as i32);
        assert_eq!(param(vs, glow::COMPILE_STATUS), 1);
        assert_eq!(param(p, glow::ATTACHED_SHADERS), 2);
        let mut f = -1.0f32;
        arb::glGetObjectParameterfvARB(p, glow::ATTACHED_SHADERS, &mut f);
        assert_eq!(f, 2.0);
        no_gl_error("object parameters");
        assert_eq!(param(p, OBJECT_SUBTYPE_ARB), -1);
        expect_error("a program has no subtype", glow::INVALID_OPERATION);
        assert_eq!(param(12345, OBJECT_TYPE_ARB), -1);
        expect_error("not an object", glow::INVALID_VALUE);

        shaders::glUseProgram(p);
        assert_eq!(arb::glGetHandleARB(PROGRAM_OBJECT_ARB), p);
        assert_eq!(arb::glGetHandleARB(glow::RGBA), 0);
        expect_error("glGetHandleARB(bad pname)", glow::INVALID_ENUM);

        let mut attached = [0u32; 4];
        let mut n = -1;
        arb::glGetAttachedObjectsARB(p, 4, &mut n, attached.as_mut_ptr());
        assert_eq!(n, 2);
        let mut len = -1;
        let mut log = [0 as std::ffi::c_char; 64];
        arb::glGetInfoLogARB(vs, 64, &mut len, log.as_mut_ptr());
        assert!(len >= 0);
        no_gl_error("info log");

        arb::glDeleteObjectARB(fs);
        assert_eq!(
            param(fs, glow::DELETE_STATUS),
            1,
            "attached: deletion pending"
        );
        shaders::glUseProgram(0);
        arb::glDeleteObjectARB(p);
        no_gl_error("deleting");
        assert_eq!(shaders::glIsProgram(p), 0);
    }
}
