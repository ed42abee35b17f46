//! Transform feedback checks shared by `transform_feedback.rs` (GLES
//! backend) and `transform_feedback_vulkan.rs`: varyings at link, program
//! queries, indexed bindings, begin/end/pause/resume errors, and captured
//! values read back. Each expects a current context.
#![allow(dead_code)]

use std::ffi::CString;

use mobilegl::gl::{buffers, draw, get, shaders, state, vertex, xfb};

use super as common;

const VS: &str = "#version 330 core
out vec4 v;
flat out int id;
void main() {
    v = vec4(float(gl_VertexID), 1.0, 2.0, 3.0);
    id = gl_VertexID * 10;
    gl_Position = vec4(0.5, 0.25, 0.0, 1.0);
}
";
const FS: &str = "#version 330 core
out vec4 o;
void main() { o = vec4(1.0); }
";

/// A program of VS/FS capturing `names` in `mode` (and whether it linked).
unsafe fn xfb_program(names: &[&str], mode: u32) -> (u32, bool) {
    // SAFETY (whole body): a context is current; the strings outlive the
    // calls.
    unsafe {
        let p = shaders::glCreateProgram();
        for (ty, src) in [(glow::VERTEX_SHADER, VS), (glow::FRAGMENT_SHADER, FS)] {
            let s = shaders::glCreateShader(ty);
            let c = CString::new(src).unwrap();
            let ptr = c.as_ptr();
            shaders::glShaderSource(s, 1, &ptr, std::ptr::null());
            shaders::glCompileShader(s);
            shaders::glAttachShader(p, s);
        }
        let cs: Vec<CString> = names.iter().map(|n| CString::new(*n).unwrap()).collect();
        let ptrs: Vec<*const std::ffi::c_char> = cs.iter().map(|c| c.as_ptr()).collect();
        xfb::glTransformFeedbackVaryings(p, ptrs.len() as i32, ptrs.as_ptr(), mode);
        common::no_gl_error("glTransformFeedbackVaryings");
        shaders::glLinkProgram(p);
        let mut ok = 0;
        shaders::glGetProgramiv(p, glow::LINK_STATUS, &mut ok);
        (p, ok == 1)
    }
}

unsafe fn vao() {
    let mut vao = 0;
    // SAFETY: a context is current.
    unsafe {
        vertex::glGenVertexArrays(1, &mut vao);
        vertex::glBindVertexArray(vao);
    }
}

/// `n` bytes of zeros in a new buffer bound to GL_TRANSFORM_FEEDBACK_BUFFER.
unsafe fn xfb_buffer(n: usize) -> u32 {
    // SAFETY: a context is current.
    unsafe { common::buffer_with(glow::TRANSFORM_FEEDBACK_BUFFER, &vec![0u8; n]) }
}

unsafe fn read_f32(buf: u32, n: usize) -> Vec<f32> {
    let mut out = vec![0f32; n];
    // SAFETY: a context is current; `out` holds `n` floats.
    unsafe {
        buffers::glBindBuffer(glow::COPY_READ_BUFFER, buf);
        buffers::glGetBufferSubData(
            glow::COPY_READ_BUFFER,
            0,
            (n * 4) as isize,
            out.as_mut_ptr().cast(),
        );
    }
    common::no_gl_error("glGetBufferSubData");
    out
}

/// glTransformFeedbackVaryings errors, link errors, program queries.
pub unsafe fn check_link_errors_and_program_queries() {
    // SAFETY (whole body): GL calls on this thread with a current context.
    unsafe {
        let p = shaders::glCreateProgram();
        let name = CString::new("v").unwrap();
        let ptrs = [name.as_ptr(); 5];
        xfb::glTransformFeedbackVaryings(p, 1, ptrs.as_ptr(), glow::TRIANGLES);
        common::expect_error("bad buffer mode", glow::INVALID_ENUM);
        xfb::glTransformFeedbackVaryings(p, 5, ptrs.as_ptr(), glow::SEPARATE_ATTRIBS);
        common::expect_error("5 separate attribs", glow::INVALID_VALUE);
        xfb::glTransformFeedbackVaryings(p, -1, ptrs.as_ptr(), glow::INTERLEAVED_ATTRIBS);
        common::expect_error("negative count", glow::INVALID_VALUE);
        xfb::glTransformFeedbackVaryings(0xdead, 1, ptrs.as_ptr(), glow::INTERLEAVED_ATTRIBS);
        common::expect_error("not a program", glow::INVALID_VALUE);

        let (_, ok) = xfb_program(&["nope"], glow::INTERLEAVED_ATTRIBS);
        assert!(!ok, "an unknown varying fails to link");
        let (_, ok) = xfb_program(&["v", "v"], glow::INTERLEAVED_ATTRIBS);
        assert!(!ok, "a varying named twice fails to link");
        let (_, ok) = xfb_program(&["gl_Position", "v"], glow::SEPARATE_ATTRIBS);
        assert!(ok, "two separate vec4 captures link");

        let (p, ok) = xfb_program(&["v", "id", "gl_Position"], glow::INTERLEAVED_ATTRIBS);
        assert!(ok);
        let q = |pname| {
            let mut v = -1;
            shaders::glGetProgramiv(p, pname, &mut v);
            v
        };
        assert_eq!(q(glow::TRANSFORM_FEEDBACK_VARYINGS), 3);
        assert_eq!(
            q(glow::TRANSFORM_FEEDBACK_VARYING_MAX_LENGTH),
            "gl_Position".len() as i32 + 1
        );
        assert_eq!(
            q(glow::TRANSFORM_FEEDBACK_BUFFER_MODE),
            glow::INTERLEAVED_ATTRIBS as i32
        );
        let mut buf = [0i8; 32];
        let (mut len, mut size, mut ty) = (0, 0, 0);
        xfb::glGetTransformFeedbackVarying(
            p,
            1,
            32,
            &mut len,
            &mut size,
            &mut ty,
            buf.as_mut_ptr(),
        );
        common::no_gl_error("glGetTransformFeedbackVarying");
        assert_eq!((len, size, ty), (2, 1, glow::INT));
        xfb::glGetTransformFeedbackVarying(
            p,
            3,
            32,
            &mut len,
            &mut size,
            &mut ty,
            buf.as_mut_ptr(),
        );
        common::expect_error("varying index past the end", glow::INVALID_VALUE);
    }
}

/// Begin/End/Pause/Resume and binding errors.
pub unsafe fn check_begin_end_errors() {
    // SAFETY (whole body): GL calls on this thread with a current context.
    unsafe {
        vao();
        common::bind_rgba8_framebuffer(4, 4);
        xfb::glBeginTransformFeedback(glow::POINTS);
        common::expect_error("no program", glow::INVALID_OPERATION);
        let plain = common::link_program(VS, FS);
        shaders::glUseProgram(plain);
        xfb::glBeginTransformFeedback(glow::POINTS);
        common::expect_error("program without varyings", glow::INVALID_OPERATION);

        let (p, ok) = xfb_program(&["v", "gl_Position"], glow::SEPARATE_ATTRIBS);
        assert!(ok);
        shaders::glUseProgram(p);
        xfb::glBeginTransformFeedback(glow::TRIANGLE_STRIP);
        common::expect_error("bad primitive", glow::INVALID_ENUM);
        let b0 = xfb_buffer(256);
        buffers::glBindBufferBase(glow::TRANSFORM_FEEDBACK_BUFFER, 0, b0);
        xfb::glBeginTransformFeedback(glow::POINTS);
        common::expect_error("binding 1 has no buffer", glow::INVALID_OPERATION);
        buffers::glBindBufferBase(glow::TRANSFORM_FEEDBACK_BUFFER, 4, b0);
        common::expect_error("index 4", glow::INVALID_VALUE);
        buffers::glBindBufferRange(glow::TRANSFORM_FEEDBACK_BUFFER, 1, b0, 2, 64);
        common::expect_error("offset not a multiple of 4", glow::INVALID_VALUE);
        buffers::glBindBufferRange(glow::TRANSFORM_FEEDBACK_BUFFER, 1, b0, 128, 64);
        common::no_gl_error("glBindBufferRange");
        let mut v = [0i64; 1];
        get::glGetInteger64i_v(glow::TRANSFORM_FEEDBACK_BUFFER_START, 1, v.as_mut_ptr());
        assert_eq!(v[0], 128);
        get::glGetInteger64i_v(glow::TRANSFORM_FEEDBACK_BUFFER_SIZE, 1, v.as_mut_ptr());
        assert_eq!(v[0], 64);
        let mut b = [0i32; 1];
        get::glGetIntegeri_v(glow::TRANSFORM_FEEDBACK_BUFFER_BINDING, 0, b.as_mut_ptr());
        assert_eq!(b[0] as u32, b0);

        xfb::glEndTransformFeedback();
        common::expect_error("end while inactive", glow::INVALID_OPERATION);
        xfb::glPauseTransformFeedback();
        common::expect_error("pause while inactive", glow::INVALID_OPERATION);

        xfb::glBeginTransformFeedback(glow::POINTS);
        common::no_gl_error("glBeginTransformFeedback");
        xfb::glBeginTransformFeedback(glow::POINTS);
        common::expect_error("begin while active", glow::INVALID_OPERATION);
        draw::glDrawArrays(glow::TRIANGLES, 0, 3);
        common::expect_error("draw mode mismatch", glow::INVALID_OPERATION);
        shaders::glUseProgram(plain);
        common::expect_error("glUseProgram while active", glow::INVALID_OPERATION);
        shaders::glLinkProgram(p);
        common::expect_error("relink while active", glow::INVALID_OPERATION);
        buffers::glBindBufferBase(glow::TRANSFORM_FEEDBACK_BUFFER, 0, b0);
        common::expect_error("rebinding while active", glow::INVALID_OPERATION);
        buffers::glBindBuffer(glow::ARRAY_BUFFER, b0);
        let ptr = buffers::glMapBufferRange(glow::ARRAY_BUFFER, 0, 16, glow::MAP_READ_BIT);
        assert!(ptr.is_null());
        common::expect_error("mapping a captured buffer", glow::INVALID_OPERATION);
        xfb::glResumeTransformFeedback();
        common::expect_error("resume while not paused", glow::INVALID_OPERATION);
        xfb::glPauseTransformFeedback();
        common::no_gl_error("pause");
        shaders::glUseProgram(plain);
        common::no_gl_error("glUseProgram while paused");
        xfb::glResumeTransformFeedback();
        common::expect_error("resume with another program", glow::INVALID_OPERATION);
        shaders::glUseProgram(p);
        xfb::glResumeTransformFeedback();
        common::no_gl_error("resume");
        xfb::glEndTransformFeedback();
        common::no_gl_error("end");
    }
}

/// Interleaved and separate captures read back.
pub unsafe fn check_captures() {
    // SAFETY (whole body): GL calls on this thread with a current context.
    unsafe {
        vao();
        common::bind_rgba8_framebuffer(4, 4);
        state::glEnable(glow::RASTERIZER_DISCARD);

        // Interleaved: v (4 floats), id (1 int), gl_Position (4) = 36 bytes.
        let (p, ok) = xfb_program(&["v", "id", "gl_Position"], glow::INTERLEAVED_ATTRIBS);
        assert!(ok);
        shaders::glUseProgram(p);
        let b = xfb_buffer(36 * 4);
        buffers::glBindBufferBase(glow::TRANSFORM_FEEDBACK_BUFFER, 0, b);
        xfb::glBeginTransformFeedback(glow::POINTS);
        draw::glDrawArrays(glow::POINTS, 0, 3);
        xfb::glEndTransformFeedback();
        common::no_gl_error("interleaved capture");
        let got = read_f32(b, 27);
        for vtx in 0..3 {
            let r = &got[vtx * 9..vtx * 9 + 9];
            assert_eq!(&r[..4], &[vtx as f32, 1.0, 2.0, 3.0], "v of vertex {vtx}");
            assert_eq!(r[4].to_bits(), vtx as u32 * 10, "id of vertex {vtx}");
            assert_eq!(
                &r[5..],
                &[0.5, 0.25, 0.0, 1.0],
                "gl_Position of vertex {vtx}"
            );
        }

        // Separate, with an offset range for the second buffer.
        let (p, ok) = xfb_program(&["gl_Position", "v"], glow::SEPARATE_ATTRIBS);
        assert!(ok);
        shaders::glUseProgram(p);
        let b0 = xfb_buffer(64);
        let b1 = xfb_buffer(128);
        buffers::glBindBufferBase(glow::TRANSFORM_FEEDBACK_BUFFER, 0, b0);
        buffers::glBindBufferRange(glow::TRANSFORM_FEEDBACK_BUFFER, 1, b1, 16, 64);
        xfb::glBeginTransformFeedback(glow::POINTS);
        draw::glDrawArrays(glow::POINTS, 0, 2);
        xfb::glEndTransformFeedback();
        state::glDisable(glow::RASTERIZER_DISCARD);
        common::no_gl_error("separate capture");
        assert_eq!(read_f32(b0, 8), [0.5, 0.25, 0.0, 1.0, 0.5, 0.25, 0.0, 1.0]);
        assert_eq!(
            read_f32(b1, 12),
            [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 3.0, 1.0, 1.0, 2.0, 3.0]
        );
    }
}

/// A geometry shader's outputs are captured at each EmitVertex: one input
/// point becomes two captured points, an array element among them.
pub unsafe fn check_geometry_capture() {
    const GVS: &str = "#version 150 core
out float vid;
void main() { vid = float(gl_VertexID); gl_Position = vec4(0.0); }
";
    const GS: &str = "#version 150 core
layout(points) in;
layout(points, max_vertices = 2) out;
in float vid[];
out vec2 g[2];
void main() {
    for (int k = 0; k < 2; k++) {
        g[0] = vec2(vid[0], float(k));
        g[1] = vec2(7.0, 8.0);
        gl_Position = vec4(0.0);
        EmitVertex();
    }
    EndPrimitive();
}
";
    // SAFETY (whole body): a context is current; the strings outlive the
    // calls.
    unsafe {
        vao();
        common::bind_rgba8_framebuffer(4, 4);
        let p = shaders::glCreateProgram();
        for (ty, src) in [
            (glow::VERTEX_SHADER, GVS),
            (glow::GEOMETRY_SHADER, GS),
            (glow::FRAGMENT_SHADER, FS),
        ] {
            let s = shaders::glCreateShader(ty);
            let c = CString::new(src).unwrap();
            let ptr = c.as_ptr();
            shaders::glShaderSource(s, 1, &ptr, std::ptr::null());
            shaders::glCompileShader(s);
            shaders::glAttachShader(p, s);
        }
        let name = CString::new("g[0]").unwrap();
        let ptrs = [name.as_ptr()];
        xfb::glTransformFeedbackVaryings(p, 1, ptrs.as_ptr(), glow::INTERLEAVED_ATTRIBS);
        shaders::glLinkProgram(p);
        let mut ok = 0;
        shaders::glGetProgramiv(p, glow::LINK_STATUS, &mut ok);
        assert_eq!(ok, 1, "geometry capture links");
        shaders::glUseProgram(p);
        let b = xfb_buffer(64);
        buffers::glBindBufferBase(glow::TRANSFORM_FEEDBACK_BUFFER, 0, b);
        state::glEnable(glow::RASTERIZER_DISCARD);
        xfb::glBeginTransformFeedback(glow::POINTS);
        draw::glDrawArrays(glow::POINTS, 0, 2);
        xfb::glEndTransformFeedback();
        state::glDisable(glow::RASTERIZER_DISCARD);
        common::no_gl_error("geometry capture");
        assert_eq!(read_f32(b, 8), [0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0]);
    }
}

/// Transform feedback objects (ARB_transform_feedback2): names, binding
/// errors, an object swapped out while paused appending after what it
/// wrote when swapped back in, glDrawTransformFeedback's vertex count, the
/// DSA setters and getters and the indexed query entry points.
pub unsafe fn check_objects() {
    use mobilegl::gl::queries;
    // SAFETY (whole body): GL calls on this thread with a current context.
    unsafe {
        vao();
        common::bind_rgba8_framebuffer(4, 4);
        state::glEnable(glow::RASTERIZER_DISCARD);
        let (p, ok) = xfb_program(&["v"], glow::INTERLEAVED_ATTRIBS);
        assert!(ok);
        shaders::glUseProgram(p);

        let mut ids = [0u32; 2];
        xfb::glGenTransformFeedbacks(2, ids.as_mut_ptr());
        let [a, b] = ids;
        assert_eq!(xfb::glIsTransformFeedback(a), 0, "generated, not bound");
        xfb::glBindTransformFeedback(glow::TRANSFORM_FEEDBACK, 12345);
        common::expect_error("bind of an unknown name", glow::INVALID_OPERATION);
        xfb::glBindTransformFeedback(glow::ARRAY_BUFFER, a);
        common::expect_error("bind to a wrong target", glow::INVALID_ENUM);

        // Object a: two vertices, then paused.
        xfb::glBindTransformFeedback(glow::TRANSFORM_FEEDBACK, a);
        assert_eq!(xfb::glIsTransformFeedback(a), 1);
        let mut v = 0;
        get::glGetIntegerv(glow::TRANSFORM_FEEDBACK_BINDING, &mut v);
        assert_eq!(v as u32, a);
        let ba = xfb_buffer(16 * 8);
        buffers::glBindBufferBase(glow::TRANSFORM_FEEDBACK_BUFFER, 0, ba);
        xfb::glDrawTransformFeedback(glow::POINTS, a);
        common::expect_error("draw of a never-ended object", glow::INVALID_OPERATION);
        xfb::glBeginTransformFeedback(glow::POINTS);
        draw::glDrawArrays(glow::POINTS, 0, 2);
        xfb::glBindTransformFeedback(glow::TRANSFORM_FEEDBACK, b);
        common::expect_error("bind while active", glow::INVALID_OPERATION);
        xfb::glDeleteTransformFeedbacks(1, &a);
        common::expect_error("delete while active", glow::INVALID_OPERATION);
        xfb::glPauseTransformFeedback();
        get::glGetIntegerv(glow::TRANSFORM_FEEDBACK_PAUSED, &mut v);
        assert_eq!(v, 1);

        // Object b captures three vertices in between.
        xfb::glBindTransformFeedback(glow::TRANSFORM_FEEDBACK, b);
        common::no_gl_error("bind while the other is paused");
        get::glGetIntegerv(glow::TRANSFORM_FEEDBACK_ACTIVE, &mut v);
        assert_eq!(v, 0, "b is not active");
        let bb = xfb_buffer(16 * 4);
        buffers::glBindBufferBase(glow::TRANSFORM_FEEDBACK_BUFFER, 0, bb);
        xfb::glBeginTransformFeedback(glow::POINTS);
        draw::glDrawArrays(glow::POINTS, 0, 3);
        xfb::glEndTransformFeedback();

        // Back to a: resume appends after its two vertices.
        xfb::glBindTransformFeedback(glow::TRANSFORM_FEEDBACK, a);
        xfb::glResumeTransformFeedback();
        draw::glDrawArrays(glow::POINTS, 5, 1);
        xfb::glEndTransformFeedback();
        common::no_gl_error("capture with a swap while paused");
        let got = read_f32(ba, 16);
        let firsts: Vec<f32> = got.chunks(4).map(|c| c[0]).collect();
        assert_eq!(firsts, [0.0, 1.0, 5.0, 0.0], "a's capture, appended");
        let got = read_f32(bb, 12);
        let firsts: Vec<f32> = got.chunks(4).map(|c| c[0]).collect();
        assert_eq!(firsts, [0.0, 1.0, 2.0], "b's capture");

        // glDrawTransformFeedback draws what b captured: three points.
        let mut q = 0;
        queries::glGenQueries(1, &mut q);
        queries::glBeginQueryIndexed(glow::PRIMITIVES_GENERATED, 0, q);
        xfb::glDrawTransformFeedback(glow::POINTS, b);
        xfb::glDrawTransformFeedbackInstanced(glow::POINTS, a, 2);
        queries::glEndQueryIndexed(glow::PRIMITIVES_GENERATED, 0);
        common::no_gl_error("glDrawTransformFeedback");
        let mut n = 0u32;
        queries::glGetQueryObjectuiv(q, glow::QUERY_RESULT, &mut n);
        assert_eq!(n, 3 + 2 * 3, "primitives drawn from the captures");
        xfb::glDrawTransformFeedbackStream(glow::POINTS, b, 4);
        common::expect_error("stream past the limit", glow::INVALID_VALUE);
        queries::glBeginQueryIndexed(glow::SAMPLES_PASSED, 1, q);
        common::expect_error("index of a target without streams", glow::INVALID_VALUE);
        // Stream 2 counts nothing (emits past stream 0 are dropped).
        queries::glBeginQueryIndexed(glow::PRIMITIVES_GENERATED, 2, q);
        queries::glGetQueryIndexediv(glow::PRIMITIVES_GENERATED, 2, glow::CURRENT_QUERY, &mut v);
        assert_eq!(v as u32, q);
        draw::glDrawArrays(glow::POINTS, 0, 3);
        queries::glEndQueryIndexed(glow::PRIMITIVES_GENERATED, 2);
        queries::glGetQueryObjectuiv(q, glow::QUERY_RESULT, &mut n);
        assert_eq!(n, 0);
        common::no_gl_error("stream 2 query");

        // ARB_transform_feedback3 markers: interleaved mode only, and
        // gl_NextBuffer twice in a row leaves a buffer empty.
        let names = [c"v".as_ptr(), c"gl_NextBuffer".as_ptr()];
        xfb::glTransformFeedbackVaryings(p, 2, names.as_ptr(), glow::SEPARATE_ATTRIBS);
        common::expect_error("gl_NextBuffer in separate mode", glow::INVALID_OPERATION);
        // Such a layout links where the backend places captures freely
        // (Vulkan); GLES refuses it at link time (GL_ARB_transform_feedback3
        // is listed on both: its API works on both).
        let tf3 = (0..)
            .map_while(|i| {
                let s = get::glGetStringi(glow::EXTENSIONS, i);
                (!s.is_null()).then(|| std::ffi::CStr::from_ptr(s.cast()).to_owned())
            })
            .any(|e| e.to_bytes() == b"GL_ARB_transform_feedback3");
        assert!(tf3, "GL_ARB_transform_feedback3 is listed");
        let free_layouts = std::env::var("MOBILEGL_BACKEND").as_deref() == Ok("vulkan");
        let _ = common::gl_error();
        let (p2, ok) = xfb_program(
            &["v", "gl_NextBuffer", "gl_NextBuffer", "id"],
            glow::INTERLEAVED_ATTRIBS,
        );
        assert_eq!(
            ok, free_layouts,
            "gl_NextBuffer twice links where layouts are free"
        );
        shaders::glDeleteProgram(p2);
        // One varying per buffer is expressible everywhere.
        let (p2, ok) = xfb_program(&["v", "gl_NextBuffer", "id"], glow::INTERLEAVED_ATTRIBS);
        assert!(ok, "one varying per buffer links");
        shaders::glDeleteProgram(p2);

        // DSA.
        let mut c = 0;
        xfb::glCreateTransformFeedbacks(1, &mut c);
        assert_eq!(xfb::glIsTransformFeedback(c), 1, "created objects exist");
        xfb::glTransformFeedbackBufferRange(c, 1, bb, 8, 32);
        common::no_gl_error("glTransformFeedbackBufferRange");
        xfb::glGetTransformFeedbacki_v(c, glow::TRANSFORM_FEEDBACK_BUFFER_BINDING, 1, &mut v);
        assert_eq!(v as u32, bb);
        let mut r = [0i64; 2];
        xfb::glGetTransformFeedbacki64_v(c, glow::TRANSFORM_FEEDBACK_BUFFER_START, 1, &mut r[0]);
        xfb::glGetTransformFeedbacki64_v(c, glow::TRANSFORM_FEEDBACK_BUFFER_SIZE, 1, &mut r[1]);
        assert_eq!(r, [8, 32]);
        xfb::glGetTransformFeedbacki64_v(c, glow::TRANSFORM_FEEDBACK_BUFFER_BINDING, 1, &mut r[0]);
        common::expect_error("the binding through the 64-bit getter", glow::INVALID_ENUM);
        xfb::glGetTransformFeedbackiv(c, glow::TRANSFORM_FEEDBACK_ACTIVE, &mut v);
        assert_eq!(v, 0);
        xfb::glGetTransformFeedbackiv(a, glow::TRANSFORM_FEEDBACK_BUFFER_SIZE, &mut v);
        common::expect_error("a non-state pname", glow::INVALID_ENUM);
        xfb::glTransformFeedbackBufferBase(c, 4, bb);
        common::expect_error("index past the bindings", glow::INVALID_VALUE);
        xfb::glTransformFeedbackBufferBase(b + 1000, 0, bb);
        common::expect_error("not an object", glow::INVALID_OPERATION);

        // Deleting the bound object binds the default one.
        xfb::glDeleteTransformFeedbacks(1, &a);
        assert_eq!(xfb::glIsTransformFeedback(a), 0);
        get::glGetIntegerv(glow::TRANSFORM_FEEDBACK_BINDING, &mut v);
        assert_eq!(v, 0);
        state::glDisable(glow::RASTERIZER_DISCARD);
        common::no_gl_error("objects");
    }
}
