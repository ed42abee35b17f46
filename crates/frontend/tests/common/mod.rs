//! Helpers shared by the frontend's end-to-end tests (each test binary
//! includes this module with `mod common;`).
#![allow(dead_code)]

use std::ffi::CString;

use mobilegl::egl::consts::*;
use mobilegl::egl::{self, EGLConfig};
use mobilegl::gl::{draw, framebuffers, pixels, shaders, state, vertex};

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
            3,
            EGL_CONTEXT_MINOR_VERSION,
            3,
            EGL_CONTEXT_OPENGL_PROFILE_MASK,
            EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
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

/// A linked program of a vertex and a fragment shader (asserts the link).
pub unsafe fn link_program(vs: &str, fs: &str) -> u32 {
    // SAFETY: as `link_stages`.
    unsafe { link_stages(&[(glow::VERTEX_SHADER, vs), (glow::FRAGMENT_SHADER, fs)]) }
}

/// A linked program of `(shader type, source)` stages (asserts the link).
pub unsafe fn link_stages(stages: &[(u32, &str)]) -> u32 {
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
        assert_eq!(ok, 1, "link failed");
        p
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
