//! Program interface queries (GL 4.3, `GL_ARB_program_interface_query`).
//!
//! `cargo nextest run -p frontend --test program_interface`

mod common;

#[test]
fn resources_of_every_reflected_interface() {
    // SAFETY: the helper makes its own context on this thread.
    unsafe { common::check_program_interface() }
}

const SSBO_VS: &str = "#version 330 core
in vec4 pos;
void main() { gl_Position = pos; }
";

/// Two storage blocks of std140 and std430 layouts with a top-level
/// array of structs holding a matrix array.
const SSBO_FS: &str = "#version 430 core
struct B { mat2 b[3]; float c; };
layout(std140, row_major, binding = 1) buffer First {
    vec4 v;
    B s[];
} first[2];
layout(std430, binding = 3) buffer Second {
    float f;
    B t[2];
};
out vec4 color;
void main() {
    first[0].s[0].b[0] = mat2(1.0);
    t[1].c = 2.0;
    color = first[1].v + vec4(f);
}
";

/// GL_BUFFER_VARIABLE (GL 4.6 §7.3.1.1): members of storage blocks with
/// their layout (offsets, strides, row-major, top-level array size and
/// stride), the first element only of a top-level array of structs, and
/// the storage blocks' active variables.
#[test]
fn buffer_variables_report_their_layout() {
    use mobilegl::gl::program_interface as pi;
    // SAFETY: GL calls on this thread with a current context; every
    // pointer passed outlives its call.
    unsafe {
        common::make_context_version(4, 3);
        let p = common::link_program(SSBO_VS, SSBO_FS);
        let index = |n: &std::ffi::CStr| {
            pi::glGetProgramResourceIndex(p, glow::BUFFER_VARIABLE, n.as_ptr())
        };
        let props = [
            glow::TOP_LEVEL_ARRAY_SIZE,
            glow::TOP_LEVEL_ARRAY_STRIDE,
            glow::TYPE,
            glow::ARRAY_SIZE,
            glow::BLOCK_INDEX,
            glow::OFFSET,
            glow::ARRAY_STRIDE,
            glow::MATRIX_STRIDE,
            glow::IS_ROW_MAJOR,
            glow::REFERENCED_BY_VERTEX_SHADER,
            glow::REFERENCED_BY_FRAGMENT_SHADER,
        ];
        let query = |i: u32| {
            let mut v = [-7i32; 11];
            pi::glGetProgramResourceiv(
                p,
                glow::BUFFER_VARIABLE,
                i,
                11,
                props.as_ptr(),
                11,
                std::ptr::null_mut(),
                v.as_mut_ptr(),
            );
            v
        };
        let b140 = index(c"First.s[0].b[0]");
        assert_ne!(b140, glow::INVALID_INDEX, "First.s[0].b[0]");
        assert_eq!(b140, index(c"First.s[0].b"), "array name without [0]");
        assert_eq!(
            query(b140),
            [0, 112, glow::FLOAT_MAT2 as i32, 3, 0, 16, 32, 16, 1, 0, 1]
        );
        assert_eq!(index(c"First.s[1].b[0]"), glow::INVALID_INDEX);
        let b430 = index(c"Second.t[0].b[0]");
        assert_ne!(b430, glow::INVALID_INDEX, "Second.t[0].b[0]");
        // Block indices: First[0], First[1], Second; std430 places t
        // (8-byte aligned) right after f.
        assert_eq!(
            query(b430),
            [2, 56, glow::FLOAT_MAT2 as i32, 3, 2, 8, 16, 8, 0, 0, 1]
        );
        let f = index(c"Second.f");
        assert_eq!(query(f)[..9], [1, 0, glow::FLOAT as i32, 1, 2, 0, 0, 0, 0]);
        common::no_gl_error("buffer variable queries");

        // Second's active variables: f, t[0].b[0], t[0].c.
        let second =
            pi::glGetProgramResourceIndex(p, glow::SHADER_STORAGE_BLOCK, c"Second".as_ptr());
        let mut n = 0;
        pi::glGetProgramResourceiv(
            p,
            glow::SHADER_STORAGE_BLOCK,
            second,
            1,
            &glow::NUM_ACTIVE_VARIABLES,
            1,
            std::ptr::null_mut(),
            &mut n,
        );
        assert_eq!(n, 3);
        let mut vars = [0i32; 3];
        pi::glGetProgramResourceiv(
            p,
            glow::SHADER_STORAGE_BLOCK,
            second,
            1,
            &glow::ACTIVE_VARIABLES,
            3,
            std::ptr::null_mut(),
            vars.as_mut_ptr(),
        );
        assert!(vars.contains(&(f as i32)) && vars.contains(&(b430 as i32)));
        common::no_gl_error("storage block variables");
    }
}
