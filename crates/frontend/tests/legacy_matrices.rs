//! Fixed-function matrix state of a compatibility context (`gl::matrix`):
//! each entry point's effect read back with glGetFloatv, the stack and
//! argument errors, legacy shaders reading `gl_ModelViewProjectionMatrix`
//! / `ftransform()` / `gl_NormalMatrix` & co. with the current values, and
//! a core context refusing the entry points.
//!
//! `cargo nextest run -p frontend --test legacy_matrices`

use std::ffi::CString;

mod common;
use common::{bind_rgba8_framebuffer, expect_error, link_program, make_context, no_gl_error};
use mobilegl::gl::matrix::*;
use mobilegl::gl::{buffers, draw, get, pixels, shaders, state, textures, vertex};

/// A current surfaceless GL 2.1 compatibility context.
unsafe fn make_compat_context() {
    // SAFETY: the helper makes and binds its own context.
    unsafe { common::make_compat_context_version(2, 1) }
}

unsafe fn get_matrix(pname: u32) -> [f32; 16] {
    let mut m = [f32::NAN; 16];
    // SAFETY: a context is current; `m` holds the 16 values.
    unsafe { get::glGetFloatv(pname, m.as_mut_ptr()) };
    m
}

unsafe fn get_int(pname: u32) -> i32 {
    let mut v = -12345;
    // SAFETY: a context is current; one value.
    unsafe { get::glGetIntegerv(pname, &mut v) };
    v
}

fn assert_close(got: [f32; 16], want: [f32; 16], what: &str) {
    assert!(
        got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-5),
        "{what}: got {got:?}, want {want:?}"
    );
}

/// Column-major from rows, as written on paper.
fn rows(r: [[f32; 4]; 4]) -> [f32; 16] {
    std::array::from_fn(|k| r[k % 4][k / 4])
}

#[test]
fn entry_points_change_the_current_matrix() {
    // SAFETY: GL calls on this thread with a current context; every
    // pointer covers what the call reads or writes.
    unsafe {
        make_compat_context();
        assert_eq!(
            get_int(glow::CONTEXT_PROFILE_MASK),
            glow::CONTEXT_COMPATIBILITY_PROFILE_BIT as i32
        );
        assert_eq!(get_int(MATRIX_MODE), MODELVIEW as i32);
        assert_close(get_matrix(MODELVIEW_MATRIX), IDENTITY, "initial");
        assert_eq!(get_int(MODELVIEW_STACK_DEPTH), 1);
        assert_eq!(get_int(MAX_MODELVIEW_STACK_DEPTH), 32);
        assert!(get_int(MAX_PROJECTION_STACK_DEPTH) >= 2);
        assert!(get_int(MAX_TEXTURE_STACK_DEPTH) >= 2);

        glTranslatef(1.0, 2.0, 3.0);
        glScaled(2.0, 3.0, 4.0);
        let want = rows([
            [2.0, 0.0, 0.0, 1.0],
            [0.0, 3.0, 0.0, 2.0],
            [0.0, 0.0, 4.0, 3.0],
            [0.0, 0.0, 0.0, 1.0],
        ]);
        assert_close(get_matrix(MODELVIEW_MATRIX), want, "translate * scale");
        let mut t = [0f32; 16];
        get::glGetFloatv(TRANSPOSE_MODELVIEW_MATRIX, t.as_mut_ptr());
        assert_close(
            t,
            rows([
                [2.0, 0.0, 0.0, 0.0],
                [0.0, 3.0, 0.0, 0.0],
                [0.0, 0.0, 4.0, 0.0],
                [1.0, 2.0, 3.0, 1.0],
            ]),
            "transpose get",
        );
        let mut d = [0f64; 16];
        get::glGetDoublev(MODELVIEW_MATRIX, d.as_mut_ptr());
        assert_eq!(d[12], 1.0);

        // Rotation by 90° about z: x → y.
        glLoadIdentity();
        glRotatef(90.0, 0.0, 0.0, 2.0);
        let want = rows([
            [0.0, -1.0, 0.0, 0.0],
            [1.0, 0.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
            [0.0, 0.0, 0.0, 1.0],
        ]);
        assert_close(get_matrix(MODELVIEW_MATRIX), want, "rotate");

        // Load / mult, plain and transposed.
        let m: [f32; 16] = std::array::from_fn(|k| k as f32 + 1.0);
        glLoadMatrixf(m.as_ptr());
        assert_close(get_matrix(MODELVIEW_MATRIX), m, "load");
        glLoadTransposeMatrixf(m.as_ptr());
        let mt: [f32; 16] = std::array::from_fn(|k| m[(k % 4) * 4 + k / 4]);
        assert_close(get_matrix(MODELVIEW_MATRIX), mt, "load transpose");
        let md: [f64; 16] = std::array::from_fn(|k| m[k] as f64);
        glLoadMatrixd(md.as_ptr());
        let two = rows([
            [2.0, 0.0, 0.0, 0.0],
            [0.0, 2.0, 0.0, 0.0],
            [0.0, 0.0, 2.0, 0.0],
            [0.0, 0.0, 0.0, 2.0],
        ]);
        glMultMatrixf(two.as_ptr());
        assert_close(get_matrix(MODELVIEW_MATRIX), m.map(|v| v * 2.0), "mult");
        let shift = rows([
            [1.0, 0.0, 0.0, 5.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
            [0.0, 0.0, 0.0, 1.0],
        ]);
        glLoadIdentity();
        // The transpose of `shift` given row by row is `shift`.
        let shift_rows: [f64; 16] = std::array::from_fn(|k| shift[(k % 4) * 4 + k / 4] as f64);
        glMultTransposeMatrixd(shift_rows.as_ptr());
        assert_close(get_matrix(MODELVIEW_MATRIX), shift, "mult transpose");
        no_gl_error("modelview edits");

        // Projection: ortho and frustum, their errors.
        glMatrixMode(PROJECTION);
        assert_eq!(get_int(MATRIX_MODE), PROJECTION as i32);
        glOrtho(0.0, 200.0, 0.0, 100.0, -1.0, 1.0);
        let p = get_matrix(PROJECTION_MATRIX);
        assert_close(
            p,
            rows([
                [0.01, 0.0, 0.0, -1.0],
                [0.0, 0.02, 0.0, -1.0],
                [0.0, 0.0, -1.0, 0.0],
                [0.0, 0.0, 0.0, 1.0],
            ]),
            "ortho",
        );
        // The modelview is untouched.
        assert_close(get_matrix(MODELVIEW_MATRIX), shift, "modelview kept");
        glOrtho(1.0, 1.0, 0.0, 1.0, 0.0, 1.0);
        expect_error("ortho l == r", glow::INVALID_VALUE);
        glOrtho(0.0, 1.0, 2.0, 2.0, 0.0, 1.0);
        expect_error("ortho b == t", glow::INVALID_VALUE);
        glOrtho(0.0, 1.0, 0.0, 1.0, 3.0, 3.0);
        expect_error("ortho n == f", glow::INVALID_VALUE);
        assert_close(
            get_matrix(PROJECTION_MATRIX),
            p,
            "refused ortho changes nothing",
        );
        glLoadIdentity();
        glFrustum(-1.0, 1.0, -1.0, 1.0, 1.0, 3.0);
        assert_close(
            get_matrix(PROJECTION_MATRIX),
            rows([
                [1.0, 0.0, 0.0, 0.0],
                [0.0, 1.0, 0.0, 0.0],
                [0.0, 0.0, -2.0, -3.0],
                [0.0, 0.0, -1.0, 0.0],
            ]),
            "frustum",
        );
        for (args, what) in [
            ([-1.0, 1.0, -1.0, 1.0, 0.0, 3.0], "n = 0"),
            ([-1.0, 1.0, -1.0, 1.0, -1.0, 3.0], "n < 0"),
            ([-1.0, 1.0, -1.0, 1.0, 1.0, -3.0], "f < 0"),
            ([1.0, 1.0, -1.0, 1.0, 1.0, 3.0], "l == r"),
            ([-1.0, 1.0, 1.0, 1.0, 1.0, 3.0], "b == t"),
            ([-1.0, 1.0, -1.0, 1.0, 2.0, 2.0], "n == f"),
        ] {
            glFrustum(args[0], args[1], args[2], args[3], args[4], args[5]);
            expect_error(what, glow::INVALID_VALUE);
        }

        // Stacks: push copies the top, pop restores, overflow / underflow.
        glLoadIdentity();
        glPushMatrix();
        assert_eq!(get_int(PROJECTION_STACK_DEPTH), 2);
        glScalef(5.0, 5.0, 5.0);
        assert_eq!(get_matrix(PROJECTION_MATRIX)[0], 5.0);
        glPopMatrix();
        assert_close(get_matrix(PROJECTION_MATRIX), IDENTITY, "popped");
        glPopMatrix();
        expect_error("projection underflow", glow::STACK_UNDERFLOW);
        glMatrixMode(MODELVIEW);
        for k in 1..32 {
            glPushMatrix();
            assert_eq!(get_int(MODELVIEW_STACK_DEPTH), k + 1);
        }
        no_gl_error("31 pushes");
        glPushMatrix();
        expect_error("modelview overflow", glow::STACK_OVERFLOW);
        assert_eq!(get_int(MODELVIEW_STACK_DEPTH), 32);
        for _ in 1..32 {
            glPopMatrix();
        }
        assert_eq!(get_int(MODELVIEW_STACK_DEPTH), 1);
        assert_close(get_matrix(MODELVIEW_MATRIX), shift, "bottom kept");
        glPopMatrix();
        expect_error("modelview underflow", glow::STACK_UNDERFLOW);

        // Texture matrices: one per unit, chosen by glActiveTexture.
        glMatrixMode(TEXTURE);
        textures::glActiveTexture(glow::TEXTURE0 + 1);
        glTranslatef(0.5, 0.0, 0.0);
        assert_eq!(get_matrix(TEXTURE_MATRIX)[12], 0.5);
        textures::glActiveTexture(glow::TEXTURE0);
        assert_close(get_matrix(TEXTURE_MATRIX), IDENTITY, "unit 0");
        assert_eq!(get_int(TEXTURE_STACK_DEPTH), 1);
        textures::glActiveTexture(glow::TEXTURE0 + 9);
        glLoadIdentity();
        expect_error("texture matrix of unit 9", glow::INVALID_OPERATION);
        textures::glActiveTexture(glow::TEXTURE0);
        assert!(get_int(MAX_TEXTURE_COORDS) >= 8);

        glMatrixMode(glow::TEXTURE_2D);
        expect_error("bad matrix mode", glow::INVALID_ENUM);
        assert_eq!(get_int(MATRIX_MODE), TEXTURE as i32);
    }
}

const FS_RED: &str = "#version 110
void main() { gl_FragColor = vec4(1.0, 0.0, 0.0, 1.0); }
";

/// Positions in pixels (attribute 0 = gl_Vertex) of the quad 0..32 × 0..64.
unsafe fn left_half_quad() {
    #[rustfmt::skip]
    let quad: [f32; 12] = [
        0.0, 0.0, 32.0, 0.0, 32.0, 64.0,
        0.0, 0.0, 32.0, 64.0, 0.0, 64.0,
    ];
    // SAFETY: a context is current; `quad` outlives the upload.
    unsafe {
        let b = common::buffer_with(glow::ARRAY_BUFFER, bytes(&quad));
        buffers::glBindBuffer(glow::ARRAY_BUFFER, b);
        vertex::glVertexAttribPointer(0, 2, glow::FLOAT, 0, 0, std::ptr::null());
        vertex::glEnableVertexAttribArray(0);
    }
}

fn bytes(f: &[f32]) -> &[u8] {
    // SAFETY: f32 has no padding; the length covers the same memory.
    unsafe { std::slice::from_raw_parts(f.as_ptr().cast(), std::mem::size_of_val(f)) }
}

unsafe fn clear_draw() {
    // SAFETY: a context with a complete framebuffer is current.
    unsafe {
        state::glClearColor(0.0, 0.0, 0.0, 1.0);
        state::glClear(glow::COLOR_BUFFER_BIT);
        draw::glDrawArrays(glow::TRIANGLES, 0, 6);
    }
}

#[test]
fn positions_go_through_the_current_matrices() {
    // SAFETY: GL calls on this thread with a current context; every
    // pointer covers what the call reads or writes.
    unsafe {
        make_compat_context();
        bind_rgba8_framebuffer(64, 64);
        state::glViewport(0, 0, 64, 64);
        left_half_quad();
        // shader_runner's `ortho`: pixel coordinates.
        glMatrixMode(PROJECTION);
        glLoadIdentity();
        glOrtho(0.0, 64.0, 0.0, 64.0, -1.0, 1.0);
        glMatrixMode(MODELVIEW);
        glLoadIdentity();

        let mvp = link_program(
            "#version 110
void main() { gl_Position = gl_ModelViewProjectionMatrix * gl_Vertex; }
",
            FS_RED,
        );
        shaders::glUseProgram(mvp);
        clear_draw();
        assert_eq!(common::pixel(8, 8), [255, 0, 0, 255], "left half drawn");
        assert_eq!(common::pixel(48, 40), [0, 0, 0, 255], "right half empty");

        // A matrix change between draws reaches the same program.
        glTranslatef(32.0, 0.0, 0.0);
        clear_draw();
        assert_eq!(common::pixel(8, 8), [0, 0, 0, 255], "moved away");
        assert_eq!(common::pixel(48, 40), [255, 0, 0, 255], "moved right");

        // ftransform() in another program, and P * MV spelled out.
        let ft = link_program(
            "#version 120
void main() { gl_Position = ftransform(); }
",
            FS_RED,
        );
        shaders::glUseProgram(ft);
        glLoadIdentity();
        glTranslatef(16.0, 0.0, 0.0);
        clear_draw();
        assert_eq!(
            common::pixel(4, 8),
            [0, 0, 0, 255],
            "ftransform: left of the quad"
        );
        assert_eq!(
            common::pixel(24, 8),
            [255, 0, 0, 255],
            "ftransform: in the quad"
        );
        assert_eq!(
            common::pixel(52, 8),
            [0, 0, 0, 255],
            "ftransform: right of it"
        );
        let separate = link_program(
            "#version 110
void main() { gl_Position = gl_ProjectionMatrix * (gl_ModelViewMatrix * gl_Vertex); }
",
            FS_RED,
        );
        shaders::glUseProgram(separate);
        clear_draw();
        assert_eq!(common::pixel(24, 8), [255, 0, 0, 255], "P * MV");
        assert_eq!(common::pixel(4, 8), [0, 0, 0, 255], "P * MV: left");
        // Back to the first program: it sees the newer state.
        shaders::glUseProgram(mvp);
        clear_draw();
        assert_eq!(
            common::pixel(24, 8),
            [255, 0, 0, 255],
            "first program refreshed"
        );
        assert_eq!(common::pixel(4, 8), [0, 0, 0, 255], "first program: left");
        no_gl_error("draws");
    }
}

#[test]
fn derived_matrices_reach_the_shader() {
    // SAFETY: GL calls on this thread with a current context; every
    // pointer covers what the call reads or writes.
    unsafe {
        make_compat_context();
        bind_rgba8_framebuffer(4, 4);
        state::glViewport(0, 0, 4, 4);
        #[rustfmt::skip]
        let tri: [f32; 6] = [-1.0, -1.0, 3.0, -1.0, -1.0, 3.0];
        let b = common::buffer_with(glow::ARRAY_BUFFER, bytes(&tri));
        buffers::glBindBuffer(glow::ARRAY_BUFFER, b);
        vertex::glVertexAttribPointer(0, 2, glow::FLOAT, 0, 0, std::ptr::null());
        vertex::glEnableVertexAttribArray(0);
        let draw_read = || {
            draw::glDrawArrays(glow::TRIANGLES, 0, 3);
            common::pixel(1, 1)
        };
        // gl_Position ignores the matrices; the colour reads them.
        let p = link_program(
            "#version 110
varying vec4 c;
void main() {
    gl_Position = gl_Vertex;
    c = vec4(gl_NormalMatrix[0][0], gl_NormalMatrix[1][1], gl_NormalMatrix[2][2] * 0.25, 1.0);
}
",
            "#version 110
varying vec4 c;
void main() { gl_FragColor = c; }
",
        );
        shaders::glUseProgram(p);
        // Non-uniform scale: the normal matrix is its inverse transpose.
        glScalef(2.0, 4.0, 0.5);
        let px = draw_read();
        assert!(
            px[0].abs_diff(128) <= 1 && px[1].abs_diff(64) <= 1 && px[2].abs_diff(128) <= 1,
            "gl_NormalMatrix: {px:?}"
        );

        // Inverse / transpose variants, texture matrices, gl_NormalScale.
        let p2 = link_program(
            "#version 120
void main() { gl_Position = gl_Vertex; }
",
            "#version 120
void main() {
    float inv = gl_ModelViewMatrixInverse[3][0];      // -tx / s = 0.25
    float tr = gl_ProjectionMatrixTranspose[0][3];    // ortho x offset = -1 → 0
    float tex = gl_TextureMatrix[2][3][1];             // 0.75
    gl_FragColor = vec4(inv, tr + 1.0, tex, gl_NormalScale * 0.5); // scale 2 → 1.0
}
",
        );
        shaders::glUseProgram(p2);
        glLoadIdentity();
        glScalef(2.0, 2.0, 2.0);
        glTranslatef(-0.25, 0.0, 0.0);
        glMatrixMode(PROJECTION);
        glOrtho(0.0, 2.0, 0.0, 2.0, -1.0, 1.0);
        glMatrixMode(TEXTURE);
        textures::glActiveTexture(glow::TEXTURE0 + 2);
        glTranslatef(0.0, 0.75, 0.0);
        textures::glActiveTexture(glow::TEXTURE0);
        let px = draw_read();
        let want = [64u8, 0, 191, 255];
        assert!(
            px.iter().zip(want).all(|(g, w)| g.abs_diff(w) <= 1),
            "inverse / transpose / texture / scale: {px:?}, want {want:?}"
        );

        // Reported under the built-in's name, without a location.
        let mut count = 0;
        shaders::glGetProgramiv(p, glow::ACTIVE_UNIFORMS, &mut count);
        assert_eq!(count, 1, "one active uniform");
        let mut name = [0u8; 64];
        let (mut len, mut size, mut ty) = (0, 0, 0);
        shaders::glGetActiveUniform(
            p,
            0,
            64,
            &mut len,
            &mut size,
            &mut ty,
            name.as_mut_ptr().cast(),
        );
        assert_eq!(&name[..len as usize], b"gl_NormalMatrix");
        assert_eq!((size, ty), (1, glow::FLOAT_MAT3));
        let n = CString::new("gl_NormalMatrix").unwrap();
        assert_eq!(shaders::glGetUniformLocation(p, n.as_ptr()), -1);
        no_gl_error("derived");
    }
}

#[test]
fn core_contexts_refuse_the_matrix_entry_points() {
    // SAFETY: GL calls on this thread with a current context; every
    // pointer covers what the call reads or writes.
    unsafe {
        make_context();
        glMatrixMode(PROJECTION);
        expect_error("glMatrixMode", glow::INVALID_OPERATION);
        glOrtho(0.0, 0.0, 0.0, 1.0, 0.0, 1.0);
        expect_error("glOrtho (bad arguments too)", glow::INVALID_OPERATION);
        glPushMatrix();
        expect_error("glPushMatrix", glow::INVALID_OPERATION);
        glLoadIdentity();
        expect_error("glLoadIdentity", glow::INVALID_OPERATION);
        let mut m = [0f32; 16];
        get::glGetFloatv(MODELVIEW_MATRIX, m.as_mut_ptr());
        expect_error("GL_MODELVIEW_MATRIX", glow::INVALID_ENUM);

        // A legacy shader still compiles and reads the identity.
        bind_rgba8_framebuffer(4, 4);
        state::glViewport(0, 0, 4, 4);
        let mut vao = 0;
        vertex::glGenVertexArrays(1, &mut vao);
        vertex::glBindVertexArray(vao);
        #[rustfmt::skip]
        let tri: [f32; 6] = [-1.0, -1.0, 3.0, -1.0, -1.0, 3.0];
        let b = common::buffer_with(glow::ARRAY_BUFFER, bytes(&tri));
        buffers::glBindBuffer(glow::ARRAY_BUFFER, b);
        vertex::glVertexAttribPointer(0, 2, glow::FLOAT, 0, 0, std::ptr::null());
        vertex::glEnableVertexAttribArray(0);
        let p = link_program(
            "#version 110
void main() { gl_Position = ftransform(); }
",
            "#version 110
void main() { gl_FragColor = vec4(gl_ModelViewMatrix[0][0], 0.0, 1.0, 1.0); }
",
        );
        shaders::glUseProgram(p);
        draw::glDrawArrays(glow::TRIANGLES, 0, 3);
        assert_eq!(common::pixel(1, 1), [255, 0, 255, 255]);
        let _ = pixels::glReadPixels;
    }
}

#[test]
fn user_clip_planes_clip_a_clip_vertex_shader() {
    // SAFETY: GL calls on this thread with a current context; every
    // pointer covers what the call reads or writes.
    unsafe {
        make_compat_context();
        bind_rgba8_framebuffer(64, 64);
        state::glViewport(0, 0, 64, 64);
        #[rustfmt::skip]
        let quad: [f32; 12] = [
            0.0, 0.0, 64.0, 0.0, 64.0, 64.0,
            0.0, 0.0, 64.0, 64.0, 0.0, 64.0,
        ];
        let b = common::buffer_with(glow::ARRAY_BUFFER, bytes(&quad));
        buffers::glBindBuffer(glow::ARRAY_BUFFER, b);
        vertex::glVertexAttribPointer(0, 2, glow::FLOAT, 0, 0, std::ptr::null());
        vertex::glEnableVertexAttribArray(0);
        glMatrixMode(PROJECTION);
        glOrtho(0.0, 64.0, 0.0, 64.0, -1.0, 1.0);
        glMatrixMode(MODELVIEW);

        // The plane is stored in eye space: multiplied by the inverse of
        // the modelview current when it is given.
        glTranslatef(16.0, 0.0, 0.0);
        let plane = [1.0f64, 0.0, 0.0, -32.0];
        glClipPlane(CLIP_PLANE0 + 1, plane.as_ptr());
        let mut got = [0f64; 4];
        glGetClipPlane(CLIP_PLANE0 + 1, got.as_mut_ptr());
        assert_eq!(got, [1.0, 0.0, 0.0, -48.0], "eye-space plane");
        glClipPlane(CLIP_PLANE0 + 8, plane.as_ptr());
        expect_error("plane 8", glow::INVALID_ENUM);
        glLoadIdentity();
        // x >= 32 in eye space (the modelview is now the identity).
        glClipPlane(CLIP_PLANE0 + 1, plane.as_ptr());

        let p = link_program(
            "#version 120
void main() {
    gl_Position = gl_ModelViewProjectionMatrix * gl_Vertex;
    gl_ClipVertex = gl_ModelViewMatrix * gl_Vertex;
}
",
            FS_RED,
        );
        shaders::glUseProgram(p);
        // Disabled: everything drawn.
        clear_draw();
        assert_eq!(common::pixel(8, 8), [255, 0, 0, 255], "no plane enabled");
        state::glEnable(CLIP_PLANE0 + 1);
        assert_eq!(state::glIsEnabled(glow::CLIP_DISTANCE0 + 1), 1);
        clear_draw();
        assert_eq!(common::pixel(8, 8), [0, 0, 0, 255], "clipped");
        assert_eq!(common::pixel(48, 8), [255, 0, 0, 255], "kept");
        // A second plane: y <= 32 kept as well.
        let below = [0.0f64, -1.0, 0.0, 32.0];
        glClipPlane(CLIP_PLANE0 + 5, below.as_ptr());
        state::glEnable(CLIP_PLANE0 + 5);
        clear_draw();
        assert_eq!(common::pixel(48, 8), [255, 0, 0, 255], "both kept");
        assert_eq!(common::pixel(48, 56), [0, 0, 0, 255], "y plane");
        assert_eq!(common::pixel(8, 8), [0, 0, 0, 255], "x plane");
        state::glDisable(CLIP_PLANE0 + 1);
        state::glDisable(CLIP_PLANE0 + 5);
        clear_draw();
        assert_eq!(common::pixel(8, 56), [255, 0, 0, 255], "disabled again");
        no_gl_error("clip planes");
    }
}
