//! GL_ARB_direct_state_access (GL 4.5): objects made by glCreate* exist
//! at once and are used without binding; names glGen* returned but never
//! bound are not objects yet (INVALID_OPERATION); bindings stay untouched.
//!
//! `cargo nextest run -p frontend --test dsa`

mod common;

use common::{expect_error, link_program, no_gl_error};
use mobilegl::gl::{
    buffers, draw, dsa, framebuffers, get, queries, shaders, state, textures, vertex,
};

unsafe fn integer(pname: u32) -> i32 {
    let mut v = -1;
    // SAFETY: a context is current; `v` is a local.
    unsafe { get::glGetIntegerv(pname, &mut v) };
    v
}

#[test]
fn named_buffers() {
    // SAFETY: GL calls on this thread after making a context; pointers are
    // locals that outlive their calls.
    unsafe {
        common::make_context();
        let mut b = [0u32; 2];
        buffers::glCreateBuffers(-1, b.as_mut_ptr());
        expect_error("glCreateBuffers(n < 0)", glow::INVALID_VALUE);
        buffers::glCreateBuffers(2, b.as_mut_ptr());
        assert_eq!(buffers::glIsBuffer(b[0]), 1, "a created buffer exists");
        let data: Vec<u8> = (0..64u8).collect();
        dsa::glNamedBufferData(b[0], 64, data.as_ptr().cast(), glow::STATIC_DRAW);
        dsa::glNamedBufferSubData(b[0], 8, 4, [0xAAu8; 4].as_ptr().cast());
        no_gl_error("named data");
        assert_eq!(integer(glow::ARRAY_BUFFER_BINDING), 0, "nothing bound");
        let mut size = 0;
        dsa::glGetNamedBufferParameteriv(b[0], glow::BUFFER_SIZE, &mut size);
        assert_eq!(size, 64);
        let mut out = [0u8; 16];
        dsa::glGetNamedBufferSubData(b[0], 4, 16, out.as_mut_ptr().cast());
        assert_eq!(&out[..4], &[4, 5, 6, 7]);
        assert_eq!(&out[4..8], &[0xAA; 4]);
        assert_eq!(&out[8..], &[12, 13, 14, 15, 16, 17, 18, 19]);

        // Storage, copy, map.
        dsa::glNamedBufferStorage(b[1], 32, std::ptr::null(), glow::MAP_READ_BIT);
        dsa::glCopyNamedBufferSubData(b[0], b[1], 32, 0, 32);
        no_gl_error("storage + copy");
        let p = dsa::glMapNamedBufferRange(b[1], 0, 32, glow::MAP_READ_BIT) as *const u8;
        assert!(!p.is_null());
        let mapped = std::slice::from_raw_parts(p, 32);
        assert_eq!(mapped[0], 32);
        assert_eq!(mapped[31], 63);
        let mut ptr = std::ptr::null_mut();
        dsa::glGetNamedBufferPointerv(b[1], glow::BUFFER_MAP_POINTER, &mut ptr);
        assert_eq!(ptr as *const u8, p);
        assert_eq!(dsa::glUnmapNamedBuffer(b[1]), 1);
        dsa::glNamedBufferData(b[1], 4, std::ptr::null(), glow::STATIC_DRAW);
        expect_error("respecifying immutable storage", glow::INVALID_OPERATION);

        // A generated, never bound name is no buffer object yet.
        let mut gen = 0;
        buffers::glGenBuffers(1, &mut gen);
        dsa::glNamedBufferData(gen, 4, std::ptr::null(), glow::STATIC_DRAW);
        expect_error("glGen'd name", glow::INVALID_OPERATION);
        dsa::glGetNamedBufferParameteriv(12345, glow::BUFFER_SIZE, &mut size);
        expect_error("unknown name", glow::INVALID_OPERATION);
        dsa::glNamedBufferSubData(b[0], 60, 8, data.as_ptr().cast());
        expect_error("range past the end", glow::INVALID_VALUE);
    }
}

const VS: &str = "#version 330 core
layout(location = 0) in vec2 a_pos;
layout(location = 3) in vec4 a_color;
out vec4 v_color;
void main() { gl_Position = vec4(a_pos, 0.0, 1.0); v_color = a_color; }
";
const FS: &str = "#version 330 core
in vec4 v_color;
out vec4 o;
void main() { o = v_color; }
";

#[test]
fn vertex_arrays_textures_and_framebuffers_without_binding() {
    // SAFETY: as above.
    unsafe {
        common::make_context();
        // A framebuffer with a created renderbuffer, set up unbound.
        let (mut fb, mut rb) = (0, 0);
        dsa::glCreateFramebuffers(1, &mut fb);
        dsa::glCreateRenderbuffers(1, &mut rb);
        assert_eq!(framebuffers::glIsFramebuffer(fb), 1);
        dsa::glNamedRenderbufferStorage(rb, glow::RGBA8, 4, 4);
        let mut w = 0;
        dsa::glGetNamedRenderbufferParameteriv(rb, glow::RENDERBUFFER_WIDTH, &mut w);
        assert_eq!(w, 4);
        dsa::glNamedFramebufferRenderbuffer(fb, glow::COLOR_ATTACHMENT0, glow::RENDERBUFFER, rb);
        assert_eq!(
            dsa::glCheckNamedFramebufferStatus(fb, glow::FRAMEBUFFER),
            glow::FRAMEBUFFER_COMPLETE
        );
        assert_eq!(integer(glow::DRAW_FRAMEBUFFER_BINDING), 0, "nothing bound");
        let mut ty = 0;
        dsa::glGetNamedFramebufferAttachmentParameteriv(
            fb,
            glow::COLOR_ATTACHMENT0,
            glow::FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE,
            &mut ty,
        );
        assert_eq!(ty as u32, glow::RENDERBUFFER);
        dsa::glClearNamedFramebufferfv(fb, glow::COLOR, 0, [0.0f32, 0.0, 1.0, 1.0].as_ptr());
        no_gl_error("framebuffer set-up");
        framebuffers::glBindFramebuffer(glow::FRAMEBUFFER, fb);
        assert_eq!(common::pixel(2, 2), [0, 0, 255, 255], "named clear");

        // A VAO described without binding it, then drawn.
        let data: [f32; 14] = [
            -1.0, -1.0, 3.0, -1.0, -1.0, 3.0, //
            0.0, 0.0, 0.0, 0.0, //
            0.0, 1.0, 0.0, 1.0,
        ];
        let mut vb = 0;
        buffers::glCreateBuffers(1, &mut vb);
        dsa::glNamedBufferStorage(vb, 56, data.as_ptr().cast(), 0);
        let mut vao = 0;
        vertex::glCreateVertexArrays(1, &mut vao);
        dsa::glVertexArrayVertexBuffer(vao, 0, vb, 0, 8);
        dsa::glVertexArrayVertexBuffer(vao, 5, vb, 40, 0);
        dsa::glVertexArrayAttribFormat(vao, 0, 2, glow::FLOAT, 0, 0);
        dsa::glVertexArrayAttribFormat(vao, 3, 4, glow::FLOAT, 0, 0);
        dsa::glVertexArrayAttribBinding(vao, 0, 0);
        dsa::glVertexArrayAttribBinding(vao, 3, 5);
        dsa::glVertexArrayBindingDivisor(vao, 5, 1);
        dsa::glEnableVertexArrayAttrib(vao, 0);
        dsa::glEnableVertexArrayAttrib(vao, 3);
        let idx: [u8; 3] = [0, 1, 2];
        let mut ib = 0;
        buffers::glCreateBuffers(1, &mut ib);
        dsa::glNamedBufferData(ib, 3, idx.as_ptr().cast(), glow::STATIC_DRAW);
        dsa::glVertexArrayElementBuffer(vao, ib);
        no_gl_error("VAO set-up");
        assert_eq!(integer(glow::VERTEX_ARRAY_BINDING), 0, "nothing bound");
        let mut v = 0;
        dsa::glGetVertexArrayiv(vao, glow::ELEMENT_ARRAY_BUFFER_BINDING, &mut v);
        assert_eq!(v, ib as i32);
        dsa::glGetVertexArrayIndexediv(vao, 3, glow::VERTEX_ATTRIB_ARRAY_SIZE, &mut v);
        assert_eq!(v, 4);
        dsa::glGetVertexArrayIndexediv(vao, 5, glow::VERTEX_BINDING_DIVISOR, &mut v);
        assert_eq!(v, 1);
        let mut off = 0i64;
        dsa::glGetVertexArrayIndexed64iv(vao, 5, glow::VERTEX_BINDING_OFFSET, &mut off);
        assert_eq!(off, 40);

        state::glViewport(0, 0, 4, 4);
        shaders::glUseProgram(link_program(VS, FS));
        vertex::glBindVertexArray(vao);
        draw::glDrawElements(glow::TRIANGLES, 3, glow::UNSIGNED_BYTE, std::ptr::null());
        no_gl_error("draw");
        assert_eq!(common::pixel(1, 1), [0, 255, 0, 255], "DSA-described VAO");

        // A texture filled and read back without binding.
        let mut tex = 0;
        dsa::glCreateTextures(glow::TEXTURE_2D, 1, &mut tex);
        assert_eq!(textures::glIsTexture(tex), 1, "a created texture exists");
        dsa::glTextureStorage2D(tex, 2, glow::RGBA8, 2, 2);
        let texels: [u8; 16] = std::array::from_fn(|i| i as u8 * 10);
        dsa::glTextureSubImage2D(
            tex,
            0,
            0,
            0,
            2,
            2,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            texels.as_ptr().cast(),
        );
        dsa::glTextureParameteri(tex, glow::TEXTURE_MIN_FILTER, glow::NEAREST as i32);
        no_gl_error("texture set-up");
        assert_eq!(integer(glow::TEXTURE_BINDING_2D), 0, "nothing bound");
        dsa::glGetTextureParameteriv(tex, glow::TEXTURE_MIN_FILTER, &mut v);
        assert_eq!(v as u32, glow::NEAREST);
        dsa::glGetTextureLevelParameteriv(tex, 1, glow::TEXTURE_WIDTH, &mut v);
        assert_eq!(v, 1);
        let mut back = [0u8; 16];
        dsa::glGetTextureImage(
            tex,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            16,
            back.as_mut_ptr().cast(),
        );
        no_gl_error("texture read-back");
        assert_eq!(back, texels);
        dsa::glBindTextureUnit(2, tex);
        textures::glActiveTexture(glow::TEXTURE2);
        assert_eq!(integer(glow::TEXTURE_BINDING_2D), tex as i32);
    }
}

#[test]
fn errors() {
    // SAFETY: as above.
    unsafe {
        common::make_context();
        let mut t = 0;
        dsa::glCreateTextures(glow::RGBA, 1, &mut t);
        expect_error("glCreateTextures(bad target)", glow::INVALID_ENUM);
        dsa::glCreateTextures(glow::TEXTURE_2D, 1, &mut t);
        dsa::glTextureStorage3D(t, 1, glow::RGBA8, 2, 2, 2);
        expect_error("3D storage of a 2D texture", glow::INVALID_OPERATION);
        let mut gen = 0;
        textures::glGenTextures(1, &mut gen);
        dsa::glTextureStorage2D(gen, 1, glow::RGBA8, 2, 2);
        expect_error("glGen'd texture never bound", glow::INVALID_OPERATION);
        dsa::glTextureParameteri(gen, glow::TEXTURE_MIN_FILTER, glow::NEAREST as i32);
        expect_error(
            "texture parameter of a glGen'd name",
            glow::INVALID_OPERATION,
        );
        dsa::glBindTextureUnit(0, gen);
        expect_error("binding a glGen'd name to a unit", glow::INVALID_OPERATION);

        let mut vao = 0;
        vertex::glGenVertexArrays(1, &mut vao);
        dsa::glEnableVertexArrayAttrib(vao, 0);
        expect_error("glGen'd VAO never bound", glow::INVALID_OPERATION);
        dsa::glVertexArrayAttribBinding(0, 0, 0);
        expect_error("VAO zero in a core context", glow::INVALID_OPERATION);

        let mut fb = 0;
        framebuffers::glGenFramebuffers(1, &mut fb);
        dsa::glNamedFramebufferDrawBuffer(fb, glow::COLOR_ATTACHMENT0);
        expect_error("glGen'd framebuffer never bound", glow::INVALID_OPERATION);
        dsa::glCheckNamedFramebufferStatus(fb, glow::FRAMEBUFFER);
        expect_error("status of a glGen'd framebuffer", glow::INVALID_OPERATION);
        let mut rb = 0;
        framebuffers::glGenRenderbuffers(1, &mut rb);
        dsa::glNamedRenderbufferStorage(rb, glow::RGBA8, 1, 1);
        expect_error("glGen'd renderbuffer never bound", glow::INVALID_OPERATION);
        let mut q = 0;
        dsa::glCreateQueries(glow::RGBA, 1, &mut q);
        expect_error("glCreateQueries(bad target)", glow::INVALID_ENUM);
        dsa::glCreateQueries(glow::SAMPLES_PASSED, 1, &mut q);
        no_gl_error("glCreateQueries");
        assert_eq!(
            mobilegl::gl::queries::glIsQuery(q),
            1,
            "a created query exists"
        );
        let mut s = 0;
        dsa::glCreateSamplers(1, &mut s);
        assert_eq!(textures::glIsSampler(s), 1);
    }
}

#[test]
fn whole_cube_map_images() {
    // SAFETY (whole body): GL calls on this thread with a current context.
    unsafe {
        common::make_context();
        let mut cube = 0;
        dsa::glCreateTextures(glow::TEXTURE_CUBE_MAP, 1, &mut cube);
        // No storage: nothing to read.
        let mut out = vec![0u8; 6 * 2 * 2 * 4];
        dsa::glGetTextureImage(
            cube,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            out.len() as i32,
            out.as_mut_ptr().cast(),
        );
        expect_error("cube without storage", glow::INVALID_OPERATION);
        dsa::glTextureStorage2D(cube, 1, glow::RGBA8, 2, 2);
        // Face f holds texels of value 10 * (f + 1).
        textures::glBindTexture(glow::TEXTURE_CUBE_MAP, cube);
        for face in 0..6u8 {
            let texels = [10 * (face + 1); 16];
            textures::glTexSubImage2D(
                glow::TEXTURE_CUBE_MAP_POSITIVE_X + face as u32,
                0,
                0,
                0,
                2,
                2,
                glow::RGBA,
                glow::UNSIGNED_BYTE,
                texels.as_ptr().cast(),
            );
        }
        no_gl_error("cube faces");
        let mut face1 = [0u8; 16];
        mobilegl::gl::queries::glGetTexImage(
            glow::TEXTURE_CUBE_MAP_NEGATIVE_X,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            face1.as_mut_ptr().cast(),
        );
        no_gl_error("one face");
        assert_eq!(face1, [20; 16], "glGetTexImage of one face");
        dsa::glGetTextureImage(
            cube,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            out.len() as i32,
            out.as_mut_ptr().cast(),
        );
        no_gl_error("whole cube image");
        for (face, chunk) in out.chunks(16).enumerate() {
            assert!(
                chunk.iter().all(|&b| b == 10 * (face as u8 + 1)),
                "face {face}: {chunk:?}"
            );
        }
        // Faces 1..5 in one glTextureSubImage3D (the faces are its layers).
        let five: Vec<u8> = (0..5u8).flat_map(|f| [100 + f; 16]).collect();
        dsa::glTextureSubImage3D(
            cube,
            0,
            0,
            0,
            1,
            2,
            2,
            5,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            five.as_ptr().cast(),
        );
        no_gl_error("five faces at once");
        dsa::glTextureSubImage3D(
            cube,
            0,
            0,
            0,
            2,
            2,
            2,
            5,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            five.as_ptr().cast(),
        );
        expect_error("faces past the sixth", glow::INVALID_VALUE);
        // The whole cube into a pixel-pack buffer.
        let mut pbo = 0;
        buffers::glGenBuffers(1, &mut pbo);
        buffers::glBindBuffer(glow::PIXEL_PACK_BUFFER, pbo);
        buffers::glBufferData(
            glow::PIXEL_PACK_BUFFER,
            out.len() as isize,
            std::ptr::null(),
            glow::STREAM_READ,
        );
        dsa::glGetTextureImage(
            cube,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            out.len() as i32,
            std::ptr::null_mut(),
        );
        no_gl_error("whole cube image into a buffer");
        buffers::glGetBufferSubData(
            glow::PIXEL_PACK_BUFFER,
            0,
            out.len() as isize,
            out.as_mut_ptr().cast(),
        );
        buffers::glBindBuffer(glow::PIXEL_PACK_BUFFER, 0);
        for (face, chunk) in out.chunks(16).enumerate() {
            let want = if face == 0 { 10 } else { 99 + face as u8 };
            assert!(chunk.iter().all(|&b| b == want), "face {face}: {chunk:?}");
        }
    }
}

#[test]
fn negative_integer_lod_parameters() {
    // SAFETY (whole body): GL calls on this thread with a current context.
    unsafe {
        common::make_context();
        let mut tex = 0;
        dsa::glCreateTextures(glow::TEXTURE_2D, 1, &mut tex);
        // Integer forms of float parameters are signed (GL 4.6 §8.10).
        dsa::glTextureParameteri(tex, glow::TEXTURE_LOD_BIAS, -5);
        dsa::glTextureParameteri(tex, glow::TEXTURE_MIN_LOD, -3);
        no_gl_error("integer LOD parameters");
        let mut f = 0.0f32;
        dsa::glGetTextureParameterfv(tex, glow::TEXTURE_LOD_BIAS, &mut f);
        assert_eq!(f, -5.0);
        dsa::glGetTextureParameterfv(tex, glow::TEXTURE_MIN_LOD, &mut f);
        assert_eq!(f, -3.0);
    }
}

#[test]
fn created_queries_report_their_target_and_a_zero_result() {
    // SAFETY: GL calls on this thread after making a context; pointers are
    // locals that outlive their calls.
    unsafe {
        common::make_context();
        let mut q = [0u32; 2];
        dsa::glCreateQueries(glow::SAMPLES_PASSED, 2, q.as_mut_ptr());
        no_gl_error("glCreateQueries");
        let param = |id: u32, pname: u32| {
            let mut v = -1;
            queries::glGetQueryObjectiv(id, pname, &mut v);
            v
        };
        assert_eq!(param(q[0], glow::QUERY_TARGET), glow::SAMPLES_PASSED as i32);
        assert_eq!(param(q[0], glow::QUERY_RESULT_AVAILABLE), 1);
        assert_eq!(param(q[0], glow::QUERY_RESULT), 0);
        no_gl_error("created query state");
        // A generated, never begun name has no target yet.
        let mut g = 0u32;
        queries::glGenQueries(1, &mut g);
        assert_eq!(param(g, glow::QUERY_TARGET), -1);
        expect_error(
            "QUERY_TARGET of a name never begun",
            glow::INVALID_OPERATION,
        );
        queries::glGetQueryObjectiv(q[1], glow::RGBA, &mut 0);
        expect_error("bad pname", glow::INVALID_ENUM);
    }
}

#[test]
fn a_draw_buffer_without_an_attachment_leaves_the_framebuffer_complete() {
    // SAFETY: GL calls on this thread after making a context; pointers are
    // locals that outlive their calls.
    unsafe {
        common::make_context();
        let mut fb = 0u32;
        dsa::glCreateFramebuffers(1, &mut fb);
        let mut tex = 0u32;
        dsa::glCreateTextures(glow::TEXTURE_2D, 1, &mut tex);
        dsa::glTextureStorage2D(tex, 1, glow::RGBA8, 4, 4);
        dsa::glNamedFramebufferTexture(fb, glow::COLOR_ATTACHMENT0, tex, 0);
        // Draw buffer 1 and the read buffer name empty attachment points:
        // GL 4.1 / ARB_ES2_compatibility dropped both completeness rules.
        let bufs = [glow::COLOR_ATTACHMENT0, glow::COLOR_ATTACHMENT1];
        dsa::glNamedFramebufferDrawBuffers(fb, 2, bufs.as_ptr());
        dsa::glNamedFramebufferReadBuffer(fb, glow::COLOR_ATTACHMENT2);
        no_gl_error("draw and read buffers");
        assert_eq!(
            dsa::glCheckNamedFramebufferStatus(fb, glow::DRAW_FRAMEBUFFER),
            glow::FRAMEBUFFER_COMPLETE
        );
        assert_eq!(
            dsa::glCheckNamedFramebufferStatus(fb, glow::READ_FRAMEBUFFER),
            glow::FRAMEBUFFER_COMPLETE
        );
    }
}
