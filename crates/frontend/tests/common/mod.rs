//! Helpers shared by the frontend's end-to-end tests (each test binary
//! includes this module with `mod common;`).
#![allow(dead_code)]

use std::ffi::CString;

pub mod fbo;
pub mod xfb;

use mobilegl::egl::consts::*;
use mobilegl::egl::{self, EGLConfig};
use mobilegl::gl::{
    buffers, compute, draw, framebuffers, get, multisample, pixels, program_interface, shaders,
    state, textures, vertex,
};

/// The next GL error of the current context.
pub fn gl_error() -> u32 {
    // SAFETY: a context is current (every test makes one first).
    unsafe { mobilegl::gl::state::glGetError() }
}

pub fn no_gl_error(what: &str) {
    let e = gl_error();
    assert_eq!(e, glow::NO_ERROR, "{what}: GL error {e:#x}");
}

/// `want` is the next error, and the only one.
pub fn expect_error(what: &str, want: u32) {
    let e = gl_error();
    assert_eq!(e, want, "{what}: GL error {e:#x}, want {want:#x}");
    no_gl_error(what);
}

/// Position-dependent non-zero bytes: a misplaced or missing band shows.
pub fn pattern(len: usize, seed: u32) -> Vec<u8> {
    (0..len)
        .map(|i| ((i as u32 ^ seed).wrapping_mul(0x9E37_79B1) >> 24) as u8 | 1)
        .collect()
}

/// A current surfaceless GL 3.3 core context.
pub unsafe fn make_context() {
    // SAFETY: as `make_context_version`.
    unsafe { make_context_version(3, 3) }
}

/// A current surfaceless core context of (at least) `major.minor`.
pub unsafe fn make_context_version(major: i32, minor: i32) {
    // SAFETY: as `make_context_profile`.
    unsafe { make_context_profile(major, minor, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT) }
}

/// A current surfaceless compatibility-profile context of `major.minor`.
pub unsafe fn make_compat_context_version(major: i32, minor: i32) {
    // SAFETY: as `make_context_profile`.
    unsafe { make_context_profile(major, minor, EGL_CONTEXT_OPENGL_COMPATIBILITY_PROFILE_BIT) }
}

/// A current surfaceless context of `major.minor` and `profile` (an
/// `EGL_CONTEXT_OPENGL_*_PROFILE_BIT`).
pub unsafe fn make_context_profile(major: i32, minor: i32, profile: i32) {
    // SAFETY (whole body): EGL calls with valid pointers and EGL_NONE
    // terminated attribute lists.
    unsafe {
        let dpy = egl::eglGetDisplay(std::ptr::null_mut());
        assert!(!dpy.is_null());
        assert_eq!(
            egl::eglInitialize(dpy, std::ptr::null_mut(), std::ptr::null_mut()),
            1,
            "eglInitialize: {:#x} (is a backend reachable?)",
            egl::eglGetError()
        );
        assert_eq!(egl::eglBindAPI(EGL_OPENGL_API as u32), 1);
        let attribs = [
            EGL_RENDERABLE_TYPE,
            EGL_OPENGL_BIT,
            EGL_SURFACE_TYPE,
            EGL_PBUFFER_BIT,
            EGL_NONE,
        ];
        let mut config: EGLConfig = std::ptr::null_mut();
        let mut n = 0;
        assert_eq!(
            egl::eglChooseConfig(dpy, attribs.as_ptr(), &mut config, 1, &mut n),
            1
        );
        assert_eq!(n, 1);
        let ctx_attribs = [
            EGL_CONTEXT_MAJOR_VERSION,
            major,
            EGL_CONTEXT_MINOR_VERSION,
            minor,
            EGL_CONTEXT_OPENGL_PROFILE_MASK,
            profile,
            EGL_NONE,
        ];
        let ctx = egl::eglCreateContext(dpy, config, std::ptr::null_mut(), ctx_attribs.as_ptr());
        assert!(
            !ctx.is_null(),
            "eglCreateContext: {:#x}",
            egl::eglGetError()
        );
        assert_eq!(
            egl::eglMakeCurrent(dpy, std::ptr::null_mut(), std::ptr::null_mut(), ctx),
            1,
            "eglMakeCurrent: {:#x}",
            egl::eglGetError()
        );
    }
}

/// The RGBA8 pixel at (x, y) of the read framebuffer (asserts no GL error).
pub unsafe fn pixel(x: i32, y: i32) -> [u8; 4] {
    let mut px = [0u8; 4];
    // SAFETY: a context is current; `px` holds one RGBA8 pixel.
    unsafe {
        pixels::glReadPixels(
            x,
            y,
            1,
            1,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            px.as_mut_ptr().cast(),
        )
    };
    no_gl_error("reading a pixel");
    px
}

/// A new buffer bound to `target`, filled with `bytes`.
pub unsafe fn buffer_with(target: u32, bytes: &[u8]) -> u32 {
    let mut b = 0;
    // SAFETY: a context is current; `bytes` outlives the call.
    unsafe {
        buffers::glGenBuffers(1, &mut b);
        buffers::glBindBuffer(target, b);
        buffers::glBufferData(
            target,
            bytes.len() as isize,
            bytes.as_ptr().cast(),
            glow::STATIC_DRAW,
        );
    }
    b
}

/// A linked program of a vertex and a fragment shader (asserts the link).
pub unsafe fn link_program(vs: &str, fs: &str) -> u32 {
    // SAFETY: as `link_stages`.
    unsafe { link_stages(&[(glow::VERTEX_SHADER, vs), (glow::FRAGMENT_SHADER, fs)]) }
}

/// A linked program of `(shader type, source)` stages (asserts the link).
pub unsafe fn link_stages(stages: &[(u32, &str)]) -> u32 {
    // SAFETY: as `try_link_stages`.
    let (p, ok) = unsafe { try_link_stages(stages) };
    assert!(ok, "link failed");
    p
}

/// A program of `(shader type, source)` stages after glLinkProgram, and
/// whether it linked.
pub unsafe fn try_link_stages(stages: &[(u32, &str)]) -> (u32, bool) {
    // SAFETY (whole body): a context is current; the sources are
    // NUL-terminated and outlive the calls.
    unsafe {
        let p = shaders::glCreateProgram();
        for &(ty, src) in stages {
            let s = shaders::glCreateShader(ty);
            let c = CString::new(src).unwrap();
            let ptr = c.as_ptr();
            shaders::glShaderSource(s, 1, &ptr, std::ptr::null());
            shaders::glCompileShader(s);
            shaders::glAttachShader(p, s);
        }
        shaders::glLinkProgram(p);
        let mut ok = 0;
        shaders::glGetProgramiv(p, glow::LINK_STATUS, &mut ok);
        (p, ok == 1)
    }
}

/// Bind a new framebuffer with a `w`x`h` RGBA8 renderbuffer as colour
/// attachment 0: a complete draw framebuffer for a surfaceless context.
pub unsafe fn bind_rgba8_framebuffer(w: i32, h: i32) {
    // SAFETY (whole body): a context is current; the names are ours.
    unsafe {
        let (mut fbo, mut rb) = (0, 0);
        framebuffers::glGenFramebuffers(1, &mut fbo);
        framebuffers::glBindFramebuffer(glow::FRAMEBUFFER, fbo);
        framebuffers::glGenRenderbuffers(1, &mut rb);
        framebuffers::glBindRenderbuffer(glow::RENDERBUFFER, rb);
        framebuffers::glRenderbufferStorage(glow::RENDERBUFFER, glow::RGBA8, w, h);
        framebuffers::glFramebufferRenderbuffer(
            glow::FRAMEBUFFER,
            glow::COLOR_ATTACHMENT0,
            glow::RENDERBUFFER,
            rb,
        );
    }
}

const POINT_VS: &str = "#version 330 core
void main() { gl_Position = vec4(0.0, 0.0, 0.0, 1.0); gl_PointSize = 8.0; }
";
const POINT_FS: &str = "#version 330 core
out vec4 o;
// Components one at a time (access chains into the built-in) and the whole
// vector (a load) in one shader.
void main() { o = vec4(gl_PointCoord.x, gl_PointCoord.y, 0.0, 1.0) * 0.5 + vec4(gl_PointCoord, 0.0, 1.0) * 0.5; }
";

/// Draw an 8x8 point with `gl_PointCoord` as its colour and check the
/// origin is GL's default, upper-left (`point_coord*.rs`).
pub unsafe fn check_point_coord_origin() {
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
        shaders::glUseProgram(link_program(POINT_VS, POINT_FS));
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

const FULL_VS: &str = "#version 330 core
void main() {
    vec2 p = vec2(float((gl_VertexID & 1) * 4 - 1), float((gl_VertexID >> 1) * 4 - 1));
    gl_Position = vec4(p, 0.0, 1.0);
}
";
const COLOR_FS: &str = "#version 330 core
uniform vec4 u_color;
out vec4 o;
void main() { o = u_color; }
";
const FETCH_FS: &str = "#version 330 core
uniform sampler2DMS u_tex;
uniform int u_sample;
out vec4 o;
void main() { o = texelFetch(u_tex, ivec2(gl_FragCoord.xy), u_sample); }
";

/// Every sample of a multisample texture, read one at a time with
/// `texelFetch` into a single-sampled `size`² target: the RGBA8 pixel at
/// (1, 1) per sample.
unsafe fn fetch_samples(tex: u32, size: i32, samples: i32) -> Vec<[u8; 4]> {
    // SAFETY (whole body): a context is current; names are ours; `px`
    // holds one RGBA8 pixel.
    unsafe {
        let prog = link_program(FULL_VS, FETCH_FS);
        shaders::glUseProgram(prog);
        let name = CString::new("u_tex").unwrap();
        shaders::glUniform1i(shaders::glGetUniformLocation(prog, name.as_ptr()), 0);
        let name = CString::new("u_sample").unwrap();
        let sample_loc = shaders::glGetUniformLocation(prog, name.as_ptr());
        bind_rgba8_framebuffer(size, size);
        textures::glActiveTexture(glow::TEXTURE0);
        textures::glBindTexture(glow::TEXTURE_2D_MULTISAMPLE, tex);
        (0..samples)
            .map(|s| {
                shaders::glUniform1i(sample_loc, s);
                draw::glDrawArrays(glow::TRIANGLES, 0, 3);
                pixel(1, 1)
            })
            .collect()
    }
}

/// Multisample textures end to end (`multisample*.rs`): the errors and
/// queries of GL 4.6 §8.8, framebuffer completeness, rendering into one
/// under GL_SAMPLE_MASK and reading every sample back with `texelFetch`,
/// and re-specifying it while attached.
pub unsafe fn check_multisample_textures() {
    const SIZE: i32 = 8;
    const RED: [u8; 4] = [255, 0, 0, 255];
    const GREEN: [u8; 4] = [0, 255, 0, 255];
    // SAFETY (whole body): GL calls on this thread with a current context
    // and out pointers to locals.
    unsafe {
        make_context();
        let mut vao = 0;
        vertex::glGenVertexArrays(1, &mut vao);
        vertex::glBindVertexArray(vao);
        let mut max = 0;
        get::glGetIntegerv(glow::MAX_COLOR_TEXTURE_SAMPLES, &mut max);
        assert!(max >= 4, "GL_MAX_COLOR_TEXTURE_SAMPLES {max}");

        let mut tex = 0;
        textures::glGenTextures(1, &mut tex);
        textures::glBindTexture(glow::TEXTURE_2D_MULTISAMPLE, tex);
        multisample::glTexImage2DMultisample(glow::TEXTURE_2D_MULTISAMPLE, 0, glow::RGBA8, 4, 4, 1);
        expect_error("zero samples", glow::INVALID_VALUE);
        multisample::glTexImage2DMultisample(glow::TEXTURE_2D, 4, glow::RGBA8, 4, 4, 1);
        expect_error("not a multisample target", glow::INVALID_ENUM);
        multisample::glTexImage2DMultisample(
            glow::TEXTURE_2D_MULTISAMPLE,
            max + 1,
            glow::RGBA8,
            4,
            4,
            1,
        );
        expect_error("too many samples", glow::INVALID_OPERATION);
        multisample::glTexImage2DMultisample(
            glow::TEXTURE_2D_MULTISAMPLE,
            4,
            glow::RGBA8,
            SIZE,
            SIZE,
            1,
        );
        no_gl_error("glTexImage2DMultisample");
        let mut v = 0;
        textures::glGetTexLevelParameteriv(
            glow::TEXTURE_2D_MULTISAMPLE,
            0,
            glow::TEXTURE_SAMPLES,
            &mut v,
        );
        assert_eq!(v, 4, "GL_TEXTURE_SAMPLES");
        textures::glTexParameteri(
            glow::TEXTURE_2D_MULTISAMPLE,
            glow::TEXTURE_MIN_FILTER,
            glow::NEAREST as i32,
        );
        expect_error("sampler state of a multisample texture", glow::INVALID_ENUM);

        let mut fbo = 0;
        framebuffers::glGenFramebuffers(1, &mut fbo);
        framebuffers::glBindFramebuffer(glow::FRAMEBUFFER, fbo);
        framebuffers::glFramebufferTexture2D(
            glow::FRAMEBUFFER,
            glow::COLOR_ATTACHMENT0,
            glow::TEXTURE_2D_MULTISAMPLE,
            tex,
            1,
        );
        expect_error("level 1 of a multisample texture", glow::INVALID_VALUE);
        framebuffers::glFramebufferTexture2D(
            glow::FRAMEBUFFER,
            glow::COLOR_ATTACHMENT0,
            glow::TEXTURE_2D_MULTISAMPLE,
            tex,
            0,
        );
        assert_eq!(
            framebuffers::glCheckFramebufferStatus(glow::FRAMEBUFFER),
            glow::FRAMEBUFFER_COMPLETE
        );
        get::glGetIntegerv(glow::SAMPLES, &mut v);
        assert_eq!(v, 4, "GL_SAMPLES of the multisample framebuffer");
        // A single-sampled depth buffer beside it: sample counts differ.
        let mut rb = 0;
        framebuffers::glGenRenderbuffers(1, &mut rb);
        framebuffers::glBindRenderbuffer(glow::RENDERBUFFER, rb);
        framebuffers::glRenderbufferStorage(
            glow::RENDERBUFFER,
            glow::DEPTH_COMPONENT24,
            SIZE,
            SIZE,
        );
        framebuffers::glFramebufferRenderbuffer(
            glow::FRAMEBUFFER,
            glow::DEPTH_ATTACHMENT,
            glow::RENDERBUFFER,
            rb,
        );
        assert_eq!(
            framebuffers::glCheckFramebufferStatus(glow::FRAMEBUFFER),
            glow::FRAMEBUFFER_INCOMPLETE_MULTISAMPLE
        );
        framebuffers::glFramebufferRenderbuffer(
            glow::FRAMEBUFFER,
            glow::DEPTH_ATTACHMENT,
            glow::RENDERBUFFER,
            0,
        );
        no_gl_error("framebuffer set-up");

        // Samples 0 and 1 red, 2 and 3 green, under the sample mask.
        let prog = link_program(FULL_VS, COLOR_FS);
        shaders::glUseProgram(prog);
        let name = CString::new("u_color").unwrap();
        let color = shaders::glGetUniformLocation(prog, name.as_ptr());
        let paint = |fbo: u32| {
            framebuffers::glBindFramebuffer(glow::FRAMEBUFFER, fbo);
            state::glViewport(0, 0, SIZE, SIZE);
            shaders::glUseProgram(prog);
            state::glEnable(glow::SAMPLE_MASK);
            state::glSampleMaski(0, 0x3);
            shaders::glUniform4f(color, 1.0, 0.0, 0.0, 1.0);
            draw::glDrawArrays(glow::TRIANGLES, 0, 3);
            state::glSampleMaski(0, 0xC);
            shaders::glUniform4f(color, 0.0, 1.0, 0.0, 1.0);
            draw::glDrawArrays(glow::TRIANGLES, 0, 3);
            state::glDisable(glow::SAMPLE_MASK);
            no_gl_error("draw under the sample mask");
        };
        paint(fbo);
        let mut m = 0;
        get::glGetIntegeri_v(glow::SAMPLE_MASK_VALUE, 0, &mut m);
        assert_eq!(m, 0xC, "GL_SAMPLE_MASK_VALUE");
        get::glGetIntegeri_v(glow::SAMPLE_MASK_VALUE, 1, &mut m);
        expect_error("sample mask word 1", glow::INVALID_VALUE);
        assert_eq!(fetch_samples(tex, SIZE, 4), [RED, RED, GREEN, GREEN]);

        // Re-specified while attached (a new identity on the server): the
        // framebuffer renders into the new storage.
        textures::glBindTexture(glow::TEXTURE_2D_MULTISAMPLE, tex);
        multisample::glTexImage2DMultisample(
            glow::TEXTURE_2D_MULTISAMPLE,
            4,
            glow::RGBA8,
            SIZE,
            SIZE,
            1,
        );
        no_gl_error("re-specify");
        paint(fbo);
        assert_eq!(fetch_samples(tex, SIZE, 4), [RED, RED, GREEN, GREEN]);

        // Immutable storage refuses re-specification.
        let mut imm = 0;
        textures::glGenTextures(1, &mut imm);
        textures::glBindTexture(glow::TEXTURE_2D_MULTISAMPLE, imm);
        multisample::glTexStorage2DMultisample(
            glow::TEXTURE_2D_MULTISAMPLE,
            4,
            glow::RGBA8,
            SIZE,
            SIZE,
            1,
        );
        no_gl_error("glTexStorage2DMultisample");
        multisample::glTexImage2DMultisample(
            glow::TEXTURE_2D_MULTISAMPLE,
            4,
            glow::RGBA8,
            SIZE,
            SIZE,
            1,
        );
        expect_error("re-specify immutable storage", glow::INVALID_OPERATION);
    }
}

const RECT_FS: &str = "#version 140
uniform sampler2DRect u_rect;
out vec4 o;
void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    ivec2 size = textureSize(u_rect);
    // Pixel x < 2: sampled at texel centres; x == 2: fetched; x == 3: the
    // size, then a projective sample of texel (0, 1).
    if (p.x < 2) {
        o = texture(u_rect, gl_FragCoord.xy);
    } else if (p.x == 2) {
        o = texelFetch(u_rect, p);
    } else if (p.y == 0) {
        o = vec4(float(size.x) / 255.0, float(size.y) / 255.0, 0.0, 1.0);
    } else {
        o = textureProj(u_rect, vec3(1.0, 3.0, 2.0));
    }
}
";

/// Rectangle textures (`rect*.rs`): `texture`, `texelFetch`, `textureSize`
/// and `textureProj` on a `sampler2DRect` read texel coordinates.
pub unsafe fn check_rect_textures() {
    const SIZE: i32 = 4;
    // Texel (x, y) = (40x, 40y + 1, 200, 255).
    let texels: Vec<u8> = (0..SIZE * SIZE)
        .flat_map(|i| [(i % SIZE * 40) as u8, (i / SIZE * 40 + 1) as u8, 200, 255])
        .collect();
    let mut px = vec![0u8; (SIZE * SIZE * 4) as usize];
    // SAFETY: GL calls on this thread with a current context; `texels`
    // and `px` outlive the calls.
    unsafe {
        make_context();
        bind_rgba8_framebuffer(SIZE, SIZE);
        state::glViewport(0, 0, SIZE, SIZE);
        let mut vao = 0;
        vertex::glGenVertexArrays(1, &mut vao);
        vertex::glBindVertexArray(vao);
        let mut tex = 0;
        textures::glGenTextures(1, &mut tex);
        textures::glBindTexture(glow::TEXTURE_RECTANGLE, tex);
        textures::glTexImage2D(
            glow::TEXTURE_RECTANGLE,
            0,
            glow::RGBA8 as i32,
            SIZE,
            SIZE,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            texels.as_ptr().cast(),
        );
        textures::glTexParameteri(
            glow::TEXTURE_RECTANGLE,
            glow::TEXTURE_MIN_FILTER,
            glow::NEAREST as i32,
        );
        textures::glTexParameteri(
            glow::TEXTURE_RECTANGLE,
            glow::TEXTURE_MAG_FILTER,
            glow::NEAREST as i32,
        );
        shaders::glUseProgram(link_program(FULL_VS, RECT_FS));
        draw::glDrawArrays(glow::TRIANGLES, 0, 3);
        pixels::glReadPixels(
            0,
            0,
            SIZE,
            SIZE,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            px.as_mut_ptr().cast(),
        );
        no_gl_error("rectangle texture draw");
    }
    let at = |x: i32, y: i32| {
        let i = ((y * SIZE + x) * 4) as usize;
        [px[i], px[i + 1], px[i + 2], px[i + 3]]
    };
    let texel = |x: i32, y: i32| [(x * 40) as u8, (y * 40 + 1) as u8, 200, 255];
    for y in 0..SIZE {
        for x in 0..3 {
            assert_eq!(at(x, y), texel(x, y), "pixel ({x}, {y})");
        }
    }
    assert_eq!(at(3, 0), [4, 4, 0, 255], "textureSize");
    // textureProj(vec3(1, 3, 2)) samples texel coordinate (0.5, 1.5).
    assert_eq!(at(3, 1), texel(0, 1), "textureProj");
}

const COMPUTE_CS: &str = "#version 430 core
layout(local_size_x = 4, local_size_y = 2) in;
layout(rgba8, binding = 0) writeonly uniform image2D img;
layout(std430, binding = 1) buffer Out { uint vals[]; };
uniform uint base;
void main() {
    uvec2 g = gl_GlobalInvocationID.xy;
    imageStore(img, ivec2(g), vec4(float(g.x) / 8.0, float(g.y) / 4.0, 0.5, 1.0));
    vals[g.y * 8u + g.x] = base + g.x * 10u + g.y;
}
";

/// A 4.3 context, a compute shader writing an image (a mutable RGBA8
/// texture) and a storage buffer (its block re-bound with
/// glShaderStorageBlockBinding), read back through a framebuffer and
/// glGetBufferSubData; an indirect dispatch; the API errors of the new
/// entry points (`compute*.rs`).
pub unsafe fn check_compute() {
    const W: i32 = 8;
    const H: i32 = 4;
    let mut px = vec![0u8; (W * H * 4) as usize];
    let mut vals = vec![0u32; (W * H) as usize];
    // SAFETY: GL calls on this thread with a current context; every
    // pointer passed outlives its call.
    unsafe {
        make_context_version(4, 3);
        let version = std::ffi::CStr::from_ptr(get::glGetString(glow::VERSION).cast());
        assert!(version.to_bytes().starts_with(b"4.3"), "{version:?}");
        let mut count = [0i32; 3];
        for (i, c) in count.iter_mut().enumerate() {
            get::glGetIntegeri_v(glow::MAX_COMPUTE_WORK_GROUP_COUNT, i as u32, c);
        }
        assert!(count.iter().all(|&c| c >= 65535), "{count:?}");
        no_gl_error("limits");

        let mut tex = 0;
        textures::glGenTextures(1, &mut tex);
        textures::glBindTexture(glow::TEXTURE_2D, tex);
        textures::glTexImage2D(
            glow::TEXTURE_2D,
            0,
            glow::RGBA8 as i32,
            W,
            H,
            0,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            std::ptr::null(),
        );
        // Complete without mipmaps (GL 4.6 §8.26 wants a complete texture).
        textures::glTexParameteri(
            glow::TEXTURE_2D,
            glow::TEXTURE_MIN_FILTER,
            glow::NEAREST as i32,
        );
        compute::glBindImageTexture(0, tex, 0, 0, 0, glow::WRITE_ONLY, glow::RGBA8);
        no_gl_error("glBindImageTexture");
        let ssbo = buffer_with(glow::SHADER_STORAGE_BUFFER, &[0u8; (W * H * 4) as usize]);
        buffers::glBindBufferBase(glow::SHADER_STORAGE_BUFFER, 2, ssbo);

        let prog = link_stages(&[(glow::COMPUTE_SHADER, COMPUTE_CS)]);
        let mut size = [0i32; 3];
        shaders::glGetProgramiv(prog, glow::COMPUTE_WORK_GROUP_SIZE, size.as_mut_ptr());
        assert_eq!(size, [4, 2, 1]);
        // The block says binding 1; the program moves it to point 2.
        compute::glShaderStorageBlockBinding(prog, 0, 2);
        shaders::glUseProgram(prog);
        let base = shaders::glGetUniformLocation(prog, c"base".as_ptr());
        shaders::glUniform1ui(base, 7);
        compute::glDispatchCompute(2, 2, 1);
        mobilegl::gl::glMemoryBarrier(glow::ALL_BARRIER_BITS);
        no_gl_error("dispatch");

        let mut fbo = 0;
        framebuffers::glGenFramebuffers(1, &mut fbo);
        framebuffers::glBindFramebuffer(glow::FRAMEBUFFER, fbo);
        framebuffers::glFramebufferTexture2D(
            glow::FRAMEBUFFER,
            glow::COLOR_ATTACHMENT0,
            glow::TEXTURE_2D,
            tex,
            0,
        );
        pixels::glReadPixels(
            0,
            0,
            W,
            H,
            glow::RGBA,
            glow::UNSIGNED_BYTE,
            px.as_mut_ptr().cast(),
        );
        buffers::glGetBufferSubData(
            glow::SHADER_STORAGE_BUFFER,
            0,
            (W * H * 4) as isize,
            vals.as_mut_ptr().cast(),
        );
        no_gl_error("read back");
        for y in 0..H {
            for x in 0..W {
                let i = ((y * W + x) * 4) as usize;
                let want = [(x * 255 / 8) as u8, (y * 255 / 4) as u8, 128, 255];
                let got = &px[i..i + 4];
                for c in 0..4 {
                    assert!(
                        (i32::from(got[c]) - i32::from(want[c])).abs() <= 1,
                        "pixel ({x}, {y}): {got:?}, want {want:?}"
                    );
                }
                assert_eq!(vals[(y * W + x) as usize], 7 + x as u32 * 10 + y as u32);
            }
        }

        // Indirect: one group, (0, 0), with a new base.
        let cmd: Vec<u8> = [0u32, 1, 1, 1]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        buffer_with(glow::DISPATCH_INDIRECT_BUFFER, &cmd);
        shaders::glUniform1ui(base, 1000);
        compute::glDispatchComputeIndirect(4);
        mobilegl::gl::glMemoryBarrier(glow::BUFFER_UPDATE_BARRIER_BIT);
        buffers::glGetBufferSubData(
            glow::SHADER_STORAGE_BUFFER,
            0,
            (W * H * 4) as isize,
            vals.as_mut_ptr().cast(),
        );
        no_gl_error("indirect dispatch");
        assert_eq!(vals[0], 1000);
        assert_eq!(vals[8 + 3], 1000 + 31);
        assert_eq!(vals[4], 7 + 40, "group (1, 0) was not dispatched");

        // Errors (GL 4.6 §19, §8.26).
        compute::glDispatchComputeIndirect(2);
        expect_error("unaligned indirect offset", glow::INVALID_VALUE);
        compute::glDispatchComputeIndirect(8);
        expect_error("indirect command past the buffer", glow::INVALID_OPERATION);
        compute::glDispatchCompute(count[0] as u32 + 1, 1, 1);
        expect_error("too many groups", glow::INVALID_VALUE);
        compute::glBindImageTexture(0, tex, 0, 0, 0, glow::RGBA, glow::RGBA8);
        expect_error("bad access", glow::INVALID_ENUM);
        compute::glBindImageTexture(64, tex, 0, 0, 0, glow::READ_ONLY, glow::RGBA8);
        expect_error("bad unit", glow::INVALID_VALUE);
        compute::glBindImageTexture(0, tex, 0, 0, 0, glow::READ_ONLY, glow::RGB8);
        expect_error("bad format", glow::INVALID_VALUE);
        let graphics = link_program(
            FULL_VS,
            "#version 330 core\nout vec4 o;\nvoid main() { o = vec4(1.0); }\n",
        );
        shaders::glUseProgram(graphics);
        compute::glDispatchCompute(1, 1, 1);
        expect_error(
            "dispatch without a compute program",
            glow::INVALID_OPERATION,
        );
        shaders::glGetProgramiv(graphics, glow::COMPUTE_WORK_GROUP_SIZE, size.as_mut_ptr());
        expect_error(
            "work group size of a graphics program",
            glow::INVALID_OPERATION,
        );

        // Atomic counters: two buffers, two counters in one of them.
        let counters =
            |words: &[u32]| -> Vec<u8> { words.iter().flat_map(|w| w.to_le_bytes()).collect() };
        let a = buffer_with(glow::ATOMIC_COUNTER_BUFFER, &counters(&[10, 100]));
        let b = buffer_with(glow::ATOMIC_COUNTER_BUFFER, &counters(&[5]));
        buffers::glBindBufferBase(glow::ATOMIC_COUNTER_BUFFER, 1, a);
        buffers::glBindBufferBase(glow::ATOMIC_COUNTER_BUFFER, 0, b);
        let prog = link_stages(&[(glow::COMPUTE_SHADER, ATOMIC_CS)]);
        let mut n = 0;
        shaders::glGetProgramiv(prog, glow::ACTIVE_ATOMIC_COUNTER_BUFFERS, &mut n);
        assert_eq!(n, 2);
        assert_eq!(shaders::glGetUniformLocation(prog, c"misses".as_ptr()), -1);
        shaders::glUseProgram(prog);
        compute::glDispatchCompute(4, 1, 1);
        mobilegl::gl::glMemoryBarrier(glow::ATOMIC_COUNTER_BARRIER_BIT);
        let mut got = [0u32; 2];
        buffers::glBindBuffer(glow::ATOMIC_COUNTER_BUFFER, a);
        buffers::glGetBufferSubData(glow::ATOMIC_COUNTER_BUFFER, 0, 8, got.as_mut_ptr().cast());
        assert_eq!(got, [10 + 32, 100 - 4], "counters of binding 1");
        buffers::glBindBuffer(glow::ATOMIC_COUNTER_BUFFER, b);
        buffers::glGetBufferSubData(glow::ATOMIC_COUNTER_BUFFER, 0, 4, got.as_mut_ptr().cast());
        assert_eq!(got[0], 5 + 32, "counter of binding 0");
        no_gl_error("atomic counters");

        // Fragment-shader stores read back with no barrier in between:
        // desktop drivers make the read wait, and applications count on it.
        bind_rgba8_framebuffer(W, H);
        state::glViewport(0, 0, W, H);
        let mut vao = 0;
        vertex::glGenVertexArrays(1, &mut vao);
        vertex::glBindVertexArray(vao);
        let stores = link_program(FULL_VS, STORE_FS);
        shaders::glUseProgram(stores);
        buffers::glBindBufferBase(glow::SHADER_STORAGE_BUFFER, 1, ssbo);
        draw::glDrawArrays(glow::TRIANGLES, 0, 3);
        buffers::glBindBuffer(glow::SHADER_STORAGE_BUFFER, ssbo);
        buffers::glGetBufferSubData(
            glow::SHADER_STORAGE_BUFFER,
            0,
            (W * H * 4) as isize,
            vals.as_mut_ptr().cast(),
        );
        no_gl_error("fragment stores");
        for (i, v) in vals.iter().enumerate() {
            assert_eq!(*v, 900 + i as u32, "fragment store {i}");
        }

        // Deleting a texture unbinds it from its image units (GL 4.6 §8.26).
        compute::glBindImageTexture(5, tex, 0, 0, 0, glow::READ_ONLY, glow::RGBA8);
        let mut bound = -1;
        get::glGetIntegeri_v(glow::IMAGE_BINDING_NAME, 5, &mut bound);
        assert_eq!(bound, tex as i32);
        textures::glDeleteTextures(1, &tex);
        get::glGetIntegeri_v(glow::IMAGE_BINDING_NAME, 5, &mut bound);
        assert_eq!(bound, 0, "a deleted texture stays on its image unit");
        no_gl_error("image unit after delete");
    }
}

const STORE_FS: &str = "#version 430 core
layout(std430, binding = 1) buffer Out { uint vals[]; };
out vec4 o;
void main() {
    uvec2 p = uvec2(gl_FragCoord.xy);
    vals[p.y * 8u + p.x] = 900u + p.y * 8u + p.x;
    o = vec4(1.0);
}
";

const ATOMIC_CS: &str = "#version 430 core
layout(local_size_x = 8) in;
layout(binding = 1, offset = 0) uniform atomic_uint hits;
layout(binding = 1) uniform atomic_uint misses;
layout(binding = 0) uniform atomic_uint other;
void main() {
    atomicCounterIncrement(hits);
    if (gl_LocalInvocationID.x == 0u) {
        atomicCounterDecrement(misses);
    }
    atomicCounterIncrement(other);
}
";

const DOUBLE_FS: &str = "#version 400 core
uniform double d;
uniform dvec2 v[2];
uniform dmat2 m;
out vec4 o;
void main() {
    bool ok = d == 0.1 && v[1] == dvec2(1.0e-20, -3.0) && m[1][0] == 2.5;
    o = ok ? vec4(0.0, 1.0, 0.0, 1.0) : vec4(1.0, 0.0, 0.0, 1.0);
}
";

/// Double-precision uniforms (GL 4.0 / ARB_gpu_shader_fp64): on a backend
/// with 64-bit floats the values reach the shader bit-exact and read back
/// with glGetUniformdv; without, the program fails to link with a log
/// (`double_uniforms*.rs`).
pub unsafe fn check_double_uniforms() {
    // SAFETY: GL calls on this thread with a current context; every
    // pointer passed outlives its call.
    unsafe {
        make_context_version(4, 3);
        let float64 = (0..)
            .map_while(|i| {
                let p = get::glGetStringi(glow::EXTENSIONS, i);
                (!p.is_null()).then(|| std::ffi::CStr::from_ptr(p.cast()).to_owned())
            })
            .any(|e| e.to_bytes() == b"GL_ARB_gpu_shader_fp64");
        let _ = gl_error();
        let p = shaders::glCreateProgram();
        for (ty, src) in [
            (glow::VERTEX_SHADER, FULL_VS),
            (glow::FRAGMENT_SHADER, DOUBLE_FS),
        ] {
            let s = shaders::glCreateShader(ty);
            let c = CString::new(src).unwrap();
            let ptr = c.as_ptr();
            shaders::glShaderSource(s, 1, &ptr, std::ptr::null());
            shaders::glCompileShader(s);
            shaders::glAttachShader(p, s);
        }
        shaders::glLinkProgram(p);
        let mut ok = 0;
        shaders::glGetProgramiv(p, glow::LINK_STATUS, &mut ok);
        if !float64 {
            assert_eq!(ok, 0, "doubles linked on a backend without 64-bit floats");
            let mut len = 0;
            shaders::glGetProgramiv(p, glow::INFO_LOG_LENGTH, &mut len);
            assert!(len > 1, "no link log");
            return;
        }
        assert_eq!(ok, 1, "link failed");
        bind_rgba8_framebuffer(4, 4);
        state::glViewport(0, 0, 4, 4);
        let mut vao = 0;
        vertex::glGenVertexArrays(1, &mut vao);
        vertex::glBindVertexArray(vao);
        shaders::glUseProgram(p);
        let loc = |n: &std::ffi::CStr| shaders::glGetUniformLocation(p, n.as_ptr());
        shaders::glUniform1d(loc(c"d"), 0.1);
        shaders::glUniform2dv(loc(c"v"), 2, [7.0, 8.0, 1.0e-20, -3.0].as_ptr());
        shaders::glUniformMatrix2dv(loc(c"m"), 1, 0, [1.0, 2.0, 2.5, 4.0].as_ptr());
        shaders::glUniform1f(loc(c"d"), 0.1);
        expect_error("glUniform1f on a double", glow::INVALID_OPERATION);
        let mut back = [0.0f64; 4];
        shaders::glGetUniformdv(p, loc(c"m"), back.as_mut_ptr());
        assert_eq!(back, [1.0, 2.0, 2.5, 4.0]);
        shaders::glGetUniformdv(p, loc(c"v[1]"), back.as_mut_ptr());
        assert_eq!(&back[..2], &[1.0e-20, -3.0]);
        let mut f = [0.0f32; 1];
        shaders::glGetUniformfv(p, loc(c"d"), f.as_mut_ptr());
        assert_eq!(f[0], 0.1f32);
        draw::glDrawArrays(glow::TRIANGLES, 0, 3);
        assert_eq!(pixel(1, 1), [0, 255, 0, 255], "the doubles the shader saw");
    }
}

const INTERFACE_FS: &str = "#version 330 core
#extension GL_ARB_shader_storage_buffer_object : require
uniform vec4 tint;
uniform float scales[3];
layout(std140) uniform Light { vec4 color; mat4 m; } light;
layout(std430, binding = 2) buffer Counts { uint n; uint values[]; };
layout(location = 0) out vec4 o;
void main() {
    values[0] = n;
    o = tint * scales[2] + light.color;
}
";

/// Program interface queries (GL 4.3 §7.3.1) over uniforms, uniform
/// blocks, storage blocks, inputs and outputs (`program_interface.rs`).
pub unsafe fn check_program_interface() {
    // SAFETY: GL calls on this thread with a current context; every
    // pointer passed outlives its call.
    unsafe {
        make_context();
        let p = link_program(FULL_VS, INTERFACE_FS);
        let count = |iface: u32, pname: u32| {
            let mut v = -1;
            program_interface::glGetProgramInterfaceiv(p, iface, pname, &mut v);
            v
        };
        assert_eq!(count(glow::SHADER_STORAGE_BLOCK, glow::ACTIVE_RESOURCES), 1);
        assert_eq!(count(glow::UNIFORM_BLOCK, glow::ACTIVE_RESOURCES), 1);
        assert_eq!(count(glow::PROGRAM_OUTPUT, glow::ACTIVE_RESOURCES), 1);
        assert_eq!(
            count(glow::UNIFORM_BLOCK, glow::MAX_NUM_ACTIVE_VARIABLES),
            2
        );
        assert_eq!(count(glow::SHADER_STORAGE_BLOCK, glow::MAX_NAME_LENGTH), 7);
        no_gl_error("interface counts");
        count(glow::UNIFORM, glow::MAX_NUM_ACTIVE_VARIABLES);
        expect_error(
            "MAX_NUM_ACTIVE_VARIABLES of UNIFORM",
            glow::INVALID_OPERATION,
        );
        count(glow::TEXTURE_2D, glow::ACTIVE_RESOURCES);
        expect_error("bad interface", glow::INVALID_ENUM);

        let index = |iface: u32, n: &std::ffi::CStr| {
            program_interface::glGetProgramResourceIndex(p, iface, n.as_ptr())
        };
        let ssbo = index(glow::SHADER_STORAGE_BLOCK, c"Counts");
        assert_ne!(ssbo, glow::INVALID_INDEX);
        assert_eq!(
            index(glow::SHADER_STORAGE_BLOCK, c"Nope"),
            glow::INVALID_INDEX
        );
        let props = [glow::BUFFER_BINDING, glow::NAME_LENGTH];
        let mut vals = [0i32; 2];
        let mut len = 0;
        program_interface::glGetProgramResourceiv(
            p,
            glow::SHADER_STORAGE_BLOCK,
            ssbo,
            2,
            props.as_ptr(),
            2,
            &mut len,
            vals.as_mut_ptr(),
        );
        assert_eq!((len, vals), (2, [2, 7]));
        compute::glShaderStorageBlockBinding(p, ssbo, 5);
        program_interface::glGetProgramResourceiv(
            p,
            glow::SHADER_STORAGE_BLOCK,
            ssbo,
            1,
            props.as_ptr(),
            1,
            std::ptr::null_mut(),
            vals.as_mut_ptr(),
        );
        assert_eq!(vals[0], 5, "glShaderStorageBlockBinding");

        let scales = index(glow::UNIFORM, c"scales[2]");
        assert_eq!(scales, index(glow::UNIFORM, c"scales"));
        let uprops = [
            glow::TYPE,
            glow::ARRAY_SIZE,
            glow::BLOCK_INDEX,
            glow::LOCATION,
        ];
        let mut u = [0i32; 4];
        program_interface::glGetProgramResourceiv(
            p,
            glow::UNIFORM,
            scales,
            4,
            uprops.as_ptr(),
            4,
            std::ptr::null_mut(),
            u.as_mut_ptr(),
        );
        let loc = shaders::glGetUniformLocation(p, c"scales".as_ptr());
        assert_eq!(u, [glow::FLOAT as i32, 3, -1, loc]);
        assert_eq!(
            program_interface::glGetProgramResourceLocation(
                p,
                glow::UNIFORM,
                c"scales[1]".as_ptr()
            ),
            shaders::glGetUniformLocation(p, c"scales[1]".as_ptr())
        );
        assert_eq!(
            program_interface::glGetProgramResourceLocation(p, glow::PROGRAM_OUTPUT, c"o".as_ptr()),
            0
        );
        let mut name = [0u8; 16];
        let mut n = 0;
        let out = index(glow::PROGRAM_OUTPUT, c"o");
        program_interface::glGetProgramResourceName(
            p,
            glow::PROGRAM_OUTPUT,
            out,
            16,
            &mut n,
            name.as_mut_ptr().cast(),
        );
        assert_eq!(&name[..n as usize], b"o");
        program_interface::glGetProgramResourceName(
            p,
            glow::PROGRAM_OUTPUT,
            7,
            16,
            &mut n,
            name.as_mut_ptr().cast(),
        );
        expect_error("resource index out of range", glow::INVALID_VALUE);
        no_gl_error("program interface queries");

        // Explicit uniform locations (GL 4.3, ARB_explicit_uniform_location).
        let fs = "#version 330 core\n#extension GL_ARB_explicit_uniform_location : require\nlayout(location = 5) uniform vec4 e;\nlayout(location = 8) uniform float f[2];\nuniform float g;\nout vec4 o;\nvoid main() { o = e * f[1] + vec4(g); }\n";
        let q = link_program(FULL_VS, fs);
        let at = |n: &std::ffi::CStr| shaders::glGetUniformLocation(q, n.as_ptr());
        assert_eq!((at(c"e"), at(c"f"), at(c"f[1]"), at(c"g")), (5, 8, 9, 0));
        shaders::glUseProgram(q);
        shaders::glUniform4f(5, 1.0, 2.0, 3.0, 4.0);
        shaders::glUniform1f(9, 0.5);
        let mut v = [0.0f32; 4];
        shaders::glGetUniformfv(q, 5, v.as_mut_ptr());
        assert_eq!(v, [1.0, 2.0, 3.0, 4.0]);
        shaders::glGetUniformfv(q, 9, v.as_mut_ptr());
        assert_eq!(v[0], 0.5);
        shaders::glUniform1f(3, 1.0);
        expect_error("a hole between explicit locations", glow::INVALID_OPERATION);
        shaders::glUseProgram(0);

        // glProgramParameteri state (no binaries are offered).
        shaders::glProgramParameteri(p, glow::PROGRAM_SEPARABLE, 1);
        let mut v = 0;
        shaders::glGetProgramiv(p, glow::PROGRAM_SEPARABLE, &mut v);
        assert_eq!(v, 1);
        shaders::glProgramParameteri(p, glow::PROGRAM_BINARY_RETRIEVABLE_HINT, 2);
        expect_error("hint value 2", glow::INVALID_VALUE);
        shaders::glProgramParameteri(p, glow::LINK_STATUS, 1);
        expect_error("bad pname", glow::INVALID_ENUM);
    }
}

/// A full-viewport strip of `vec4` positions in generic attribute 0 (which
/// also feeds a compatibility shader's `gl_Vertex`).
pub unsafe fn fullscreen_strip() {
    let v: [f32; 16] = [
        -1.0, -1.0, 0.0, 1.0, 1.0, -1.0, 0.0, 1.0, -1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0,
    ];
    // SAFETY: a context is current; the buffer holds the four vertices.
    unsafe {
        buffer_with(glow::ARRAY_BUFFER, bytemuck::cast_slice(&v));
        vertex::glVertexAttribPointer(0, 4, glow::FLOAT, 0, 0, std::ptr::null());
        vertex::glEnableVertexAttribArray(0);
    }
}

/// A new 1x1 texture of `internal` holding one pixel of `format`/`ty` at
/// `data`, bound to GL_TEXTURE_2D on the active unit with NEAREST
/// minification (complete without mipmaps); its name.
pub unsafe fn texture_1x1(internal: u32, format: u32, ty: u32, data: *const u8) -> u32 {
    let mut t = 0;
    // SAFETY: a context is current; `data` holds one pixel of the pair.
    unsafe {
        textures::glGenTextures(1, &mut t);
        textures::glBindTexture(glow::TEXTURE_2D, t);
        textures::glTexImage2D(
            glow::TEXTURE_2D,
            0,
            internal as i32,
            1,
            1,
            0,
            format,
            ty,
            data.cast(),
        );
        textures::glTexParameteri(
            glow::TEXTURE_2D,
            glow::TEXTURE_MIN_FILTER,
            glow::NEAREST as i32,
        );
    }
    t
}

/// Attach a new `size`x`size` DEPTH24_STENCIL8 renderbuffer to the bound
/// framebuffer.
unsafe fn attach_depth_stencil(size: i32) {
    use framebuffers as fb;
    let mut rb = 0;
    // SAFETY: a context is current with a framebuffer object bound.
    unsafe {
        fb::glGenRenderbuffers(1, &mut rb);
        fb::glBindRenderbuffer(glow::RENDERBUFFER, rb);
        fb::glRenderbufferStorage(glow::RENDERBUFFER, glow::DEPTH24_STENCIL8, size, size);
        fb::glFramebufferRenderbuffer(
            glow::FRAMEBUFFER,
            glow::DEPTH_STENCIL_ATTACHMENT,
            glow::RENDERBUFFER,
            rb,
        );
    }
    no_gl_error("attaching depth/stencil");
}

/// Stencil pixels (every bit pattern, under a write mask), depth pixels
/// and a depth copy, and a colour draw, in a compatibility context with an
/// 8x8 RGBA8 + DEPTH24_STENCIL8 target (`pixel_rectangles*.rs`).
pub unsafe fn check_pixel_rectangles() {
    use mobilegl::gl::{pixel_rect as pr, raster};
    use pixels::glReadPixels;
    const SIZE: i32 = 8;
    // SAFETY: GL calls on this thread with a current context; the images
    // outlive the calls.
    unsafe {
        make_compat_context_version(2, 1);
        bind_rgba8_framebuffer(SIZE, SIZE);
        state::glViewport(0, 0, SIZE, SIZE);
        attach_depth_stencil(SIZE);
        state::glClearStencil(0xFE);
        state::glClearDepth(0.0);
        state::glClear(glow::STENCIL_BUFFER_BIT | glow::DEPTH_BUFFER_BIT);
        state::glPixelStorei(glow::UNPACK_ALIGNMENT, 1);
        // Stencil: every bit pattern survives the per-bit passes, bits the
        // write mask leaves out keep the cleared value.
        let stencil = [0x00u8, 0x5A, 0xA5, 0xFF];
        raster::glWindowPos2i(0, 0);
        pr::glDrawPixels(
            4,
            1,
            glow::STENCIL_INDEX,
            glow::UNSIGNED_BYTE,
            stencil.as_ptr().cast(),
        );
        no_gl_error("stencil glDrawPixels");
        state::glStencilMask(0x0F);
        raster::glWindowPos2i(0, 1);
        pr::glDrawPixels(
            4,
            1,
            glow::STENCIL_INDEX,
            glow::UNSIGNED_BYTE,
            stencil.as_ptr().cast(),
        );
        state::glStencilMask(0xFF);
        let mut got = [0u8; 8];
        state::glPixelStorei(glow::PACK_ALIGNMENT, 1);
        glReadPixels(
            0,
            0,
            4,
            2,
            glow::STENCIL_INDEX,
            glow::UNSIGNED_BYTE,
            got.as_mut_ptr().cast(),
        );
        no_gl_error("reading stencil");
        assert_eq!(got[..4], stencil, "stencil row 0");
        assert_eq!(got[4..], [0xF0, 0xFA, 0xF5, 0xFF], "masked stencil row 1");

        // Depth through the depth test (func ALWAYS), and copied.
        state::glEnable(glow::DEPTH_TEST);
        state::glDepthFunc(glow::ALWAYS);
        let depth = [0.25f32, 0.75];
        raster::glWindowPos2i(0, 4);
        pr::glDrawPixels(
            2,
            1,
            glow::DEPTH_COMPONENT,
            glow::FLOAT,
            depth.as_ptr().cast(),
        );
        raster::glWindowPos2i(4, 4);
        pr::glCopyPixels(0, 4, 2, 1, 0x1801);
        state::glDisable(glow::DEPTH_TEST);
        no_gl_error("depth glDrawPixels/glCopyPixels");
        let mut z = [0.0f32; 6];
        glReadPixels(
            0,
            4,
            6,
            1,
            glow::DEPTH_COMPONENT,
            glow::FLOAT,
            z.as_mut_ptr().cast(),
        );
        no_gl_error("reading depth");
        for (got, want) in z.iter().zip([0.25, 0.75, 0.0, 0.0, 0.25, 0.75]) {
            assert!((got - want).abs() < 1e-3, "depth {z:?}");
        }

        // Colour, zoomed, under a colour mask.
        state::glClearColor(0.0, 0.0, 0.0, 0.0);
        state::glClear(glow::COLOR_BUFFER_BIT);
        state::glColorMask(1, 1, 0, 1);
        let texel = [255u8, 128, 255, 255];
        raster::glWindowPos2i(6, 6);
        raster::glPixelZoom(2.0, 2.0);
        pr::glDrawPixels(1, 1, glow::RGBA, glow::UNSIGNED_BYTE, texel.as_ptr().cast());
        raster::glPixelZoom(1.0, 1.0);
        state::glColorMask(1, 1, 1, 1);
        no_gl_error("colour glDrawPixels");
        assert_eq!(pixel(7, 7), [255, 128, 0, 255]);
        assert_eq!(pixel(5, 5), [0, 0, 0, 0]);
    }
}

/// Occlusion queries count drawn samples only: clears (full, colour-masked
/// and stencil-masked, which a backend may draw) add none, a draw adds its
/// samples (GL 4.6 §4.2.1).
pub unsafe fn check_occlusion_ignores_clears() {
    use mobilegl::gl::queries;
    // SAFETY (whole body): GL calls on this thread with a current context;
    // every pointer outlives its call.
    unsafe {
        make_context();
        // 8x8 RGBA8 colour with a depth-stencil renderbuffer.
        bind_rgba8_framebuffer(8, 8);
        let mut ds = 0;
        framebuffers::glGenRenderbuffers(1, &mut ds);
        framebuffers::glBindRenderbuffer(glow::RENDERBUFFER, ds);
        framebuffers::glRenderbufferStorage(glow::RENDERBUFFER, glow::DEPTH24_STENCIL8, 8, 8);
        framebuffers::glFramebufferRenderbuffer(
            glow::FRAMEBUFFER,
            glow::DEPTH_STENCIL_ATTACHMENT,
            glow::RENDERBUFFER,
            ds,
        );
        state::glViewport(0, 0, 8, 8);
        let mut q = 0;
        queries::glGenQueries(1, &mut q);
        let samples = |q: u32| {
            let mut v = u32::MAX;
            queries::glGetQueryObjectuiv(q, glow::QUERY_RESULT, &mut v);
            v
        };
        let clears: [(&str, &dyn Fn()); 3] = [
            ("full clear", &|| {
                state::glClear(
                    glow::COLOR_BUFFER_BIT | glow::DEPTH_BUFFER_BIT | glow::STENCIL_BUFFER_BIT,
                )
            }),
            ("colour-masked clear", &|| {
                state::glColorMask(1, 0, 1, 1);
                state::glClear(glow::COLOR_BUFFER_BIT);
                state::glColorMask(1, 1, 1, 1);
            }),
            ("stencil-masked clear", &|| {
                state::glStencilMask(1);
                state::glClear(glow::STENCIL_BUFFER_BIT);
                state::glStencilMask(0xff);
            }),
        ];
        for (what, clear) in clears {
            queries::glBeginQuery(glow::SAMPLES_PASSED, q);
            clear();
            queries::glEndQuery(glow::SAMPLES_PASSED);
            no_gl_error(what);
            assert_eq!(samples(q), 0, "{what}");
        }
        // A draw inside the same query as a masked clear still counts.
        let p = link_program(FULL_VS, COLOR_FS);
        shaders::glUseProgram(p);
        let mut vao = 0;
        vertex::glGenVertexArrays(1, &mut vao);
        vertex::glBindVertexArray(vao);
        // A query object keeps its first target: a new one.
        let mut q = 0;
        queries::glGenQueries(1, &mut q);
        queries::glBeginQuery(glow::ANY_SAMPLES_PASSED, q);
        state::glColorMask(1, 0, 1, 1);
        state::glClear(glow::COLOR_BUFFER_BIT);
        state::glColorMask(1, 1, 1, 1);
        draw::glDrawArrays(glow::TRIANGLE_STRIP, 0, 4);
        state::glColorMask(0, 1, 1, 1);
        state::glClear(glow::COLOR_BUFFER_BIT);
        state::glColorMask(1, 1, 1, 1);
        queries::glEndQuery(glow::ANY_SAMPLES_PASSED);
        no_gl_error("draw between masked clears");
        assert_eq!(samples(q), 1, "the draw counts");
    }
}

/// A compute shader counting (atomic counter) the texels of a depth
/// texture that differ from `want`.
const DEPTH_PROBE_CS: &str = "#version 430\nlayout(local_size_x = 1) in;\nlayout(binding = 0) uniform atomic_uint differences;\nuniform sampler2D source;\nuniform float want;\nvoid main() {\n  if (abs(texelFetch(source, ivec2(gl_GlobalInvocationID.xy), 0).r - want) > 0.001)\n    atomicCounterIncrement(differences);\n}\n";

/// A depth texture cleared through its framebuffer is what a compute
/// dispatch then fetches, also when the program and texture bindings are
/// those of the previous dispatch (no barrier needed: GL 4.6 §7.13.1
/// covers only incoherent writes).
pub unsafe fn check_compute_reads_cleared_depth() {
    const N: i32 = 8;
    // SAFETY: GL calls on this thread with a current context; every
    // pointer passed outlives its call.
    unsafe {
        make_context_version(4, 3);
        let mut f = 0;
        framebuffers::glGenFramebuffers(1, &mut f);
        framebuffers::glBindFramebuffer(glow::FRAMEBUFFER, f);
        let mut t = 0;
        textures::glGenTextures(1, &mut t);
        textures::glBindTexture(glow::TEXTURE_2D, t);
        textures::glTexStorage2D(glow::TEXTURE_2D, 1, glow::DEPTH_COMPONENT24, N, N);
        framebuffers::glFramebufferTexture2D(
            glow::FRAMEBUFFER,
            glow::DEPTH_ATTACHMENT,
            glow::TEXTURE_2D,
            t,
            0,
        );
        framebuffers::glDrawBuffer(glow::NONE);
        let prog = link_stages(&[(glow::COMPUTE_SHADER, DEPTH_PROBE_CS)]);
        shaders::glUseProgram(prog);
        let want = shaders::glGetUniformLocation(prog, c"want".as_ptr());
        let counter = buffer_with(glow::ATOMIC_COUNTER_BUFFER, &[0u8; 4]);
        buffers::glBindBufferBase(glow::ATOMIC_COUNTER_BUFFER, 0, counter);
        for depth in [0.25f32, 0.75, 0.5] {
            state::glClearBufferfv(glow::DEPTH, 0, &depth);
            buffers::glBufferSubData(glow::ATOMIC_COUNTER_BUFFER, 0, 4, [0u8; 4].as_ptr().cast());
            shaders::glUniform1f(want, depth);
            compute::glDispatchCompute(N as u32, N as u32, 1);
            mobilegl::gl::persistent::glMemoryBarrier(glow::ALL_BARRIER_BITS);
            let mut got = [0u32; 1];
            buffers::glGetBufferSubData(glow::ATOMIC_COUNTER_BUFFER, 0, 4, got.as_mut_ptr().cast());
            assert_eq!(got[0], 0, "texels differing from the cleared {depth}");
        }
        no_gl_error("depth probe");
    }
}
