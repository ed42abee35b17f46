//! Exported symbols of libmobilegl.so and an EGL smoke test through the rlib.
//!
//! `cargo test -p frontend --test exports`

use std::collections::BTreeSet;
use std::ffi::{c_void, CStr};
use std::path::PathBuf;
use std::process::Command;

use mobilegl::egl::consts::*;
use mobilegl::egl::{self, EGLConfig, EGLint};

const MUST_EXPORT: &[&str] = &[
    "glClear",
    "glDrawElements",
    "glDispatchCompute",  // 4.3
    "glSpecializeShader", // 4.6
    "glBegin",            // legacy, removed from core
    "glGetString",
    "eglGetProcAddress",
    "eglGetPlatformDisplay",
    "eglGetPlatformDisplayEXT",
    "glXGetProcAddressARB",
    "glXGetProcAddress",
    "glXChooseVisual",
];

/// target/<profile>/libmobilegl.so, next to this test's `deps/` folder.
fn cdylib() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let profile_dir = exe.parent()?.parent()?;
    let so = profile_dir.join("libmobilegl.so");
    so.is_file().then_some(so)
}

fn exported_symbols() -> Option<BTreeSet<String>> {
    let so = cdylib()?;
    let out = Command::new("nm")
        .args(["-D", "--defined-only"])
        .arg(&so)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    Some(
        text.lines()
            .filter_map(|l| l.split_whitespace().last())
            .map(str::to_owned)
            .collect(),
    )
}

#[test]
fn required_entry_points_are_exported_or_resolvable() {
    for name in MUST_EXPORT {
        let b = name.as_bytes();
        let found = mobilegl::exports::lookup(b)
            .or_else(|| mobilegl::exports::lookup_egl(b))
            .or_else(|| mobilegl::glx::lookup_glx(b));
        assert!(found.is_some(), "{name} is not in any GetProcAddress table");
    }
    assert!(mobilegl::exports::lookup(b"glNotAFunction").is_none());
    assert!(mobilegl::exports::lookup(b"glClear\0").is_none());
    // Extension-only commands resolve through the table.
    assert!(mobilegl::exports::lookup(b"glDebugMessageCallbackARB").is_some());
    assert!(mobilegl::exports::lookup(b"glPathGlyphIndexRangeNV").is_some());

    let Some(syms) = exported_symbols() else {
        eprintln!(
            "note: no libmobilegl.so next to the test binary (or no nm): checked the tables only"
        );
        return;
    };
    for name in MUST_EXPORT {
        assert!(
            syms.contains(*name),
            "{name} is not exported by libmobilegl.so"
        );
    }
    // Every EGL entry point we resolve is exported.
    for name in mobilegl::exports::egl_proc_names() {
        let name = String::from_utf8_lossy(name);
        assert!(syms.contains(name.as_ref()), "{name} is not exported");
    }
    for name in mobilegl::glx::glx_proc_names() {
        let name = String::from_utf8_lossy(name);
        assert!(syms.contains(name.as_ref()), "{name} is not exported");
    }
    // Exactly the core GL commands are exported under gl* names: extension
    // stubs stay private to GetProcAddress.
    let gl_exported = syms
        .iter()
        .filter(|s| s.starts_with("gl") && !s.starts_with("glX"))
        .count();
    assert_eq!(
        gl_exported,
        mobilegl::exports::COUNTS.core,
        "exported gl* symbols vs core commands"
    );
    assert!(
        !syms.contains("glPathGlyphIndexRangeNV"),
        "an extension-only stub is exported"
    );
}

#[test]
fn glx_get_proc_address_resolves_gl_glx_and_egl() {
    // SAFETY: NUL-terminated names.
    unsafe {
        assert!(mobilegl::glx::glXGetProcAddressARB(c"glClear".as_ptr().cast()).is_some());
        assert!(mobilegl::glx::glXGetProcAddress(c"glXChooseVisual".as_ptr().cast()).is_some());
        assert!(mobilegl::glx::glXGetProcAddress(c"eglGetError".as_ptr().cast()).is_some());
        assert!(mobilegl::glx::glXGetProcAddress(c"glNotAFunction".as_ptr().cast()).is_none());
        assert!(mobilegl::glx::glXGetProcAddress(std::ptr::null()).is_none());
        // A GLX stub answers null and does not crash.
        assert!(
            mobilegl::glx::glXChooseVisual(std::ptr::null_mut(), 0, std::ptr::null_mut()).is_null()
        );
    }
}

fn has_ext(list: *const std::ffi::c_char, ext: &str) -> bool {
    assert!(!list.is_null());
    // SAFETY: eglQueryString returns a static NUL-terminated string.
    let s = unsafe { CStr::from_ptr(list) }
        .to_string_lossy()
        .into_owned();
    s.split(' ').any(|e| e == ext)
}

#[test]
fn egl_smoke() {
    // SAFETY: the EGL calls below follow the EGL contract: valid pointers,
    // EGL_NONE-terminated attribute lists.
    unsafe {
        // Client extensions work before any display exists.
        let client = egl::eglQueryString(std::ptr::null_mut(), EGL_EXTENSIONS);
        for ext in [
            "EGL_EXT_client_extensions",
            "EGL_EXT_platform_base",
            "EGL_MESA_platform_surfaceless",
        ] {
            assert!(has_ext(client, ext), "client extension {ext} missing");
        }
        assert!(!egl::eglGetProcAddress(c"eglGetPlatformDisplayEXT".as_ptr()).is_null());
        assert!(!egl::eglGetProcAddress(c"glClear".as_ptr()).is_null());
        assert!(egl::eglGetProcAddress(c"eglNotAFunction".as_ptr()).is_null());

        // Unsupported platform → EGL_BAD_PARAMETER.
        let x11 = egl::eglGetPlatformDisplay(0x31D5, std::ptr::null_mut(), std::ptr::null());
        assert!(x11.is_null());
        assert_eq!(egl::eglGetError(), EGL_BAD_PARAMETER);
        assert_eq!(
            egl::eglGetError(),
            EGL_SUCCESS,
            "eglGetError resets the error"
        );
        // Surfaceless with a display attribute → EGL_BAD_ATTRIBUTE.
        let bad_attribs = [0x3200 as egl::EGLAttrib, 1, EGL_NONE as egl::EGLAttrib];
        let d = egl::eglGetPlatformDisplay(
            EGL_PLATFORM_SURFACELESS_MESA as u32,
            std::ptr::null_mut(),
            bad_attribs.as_ptr(),
        );
        assert!(d.is_null());
        assert_eq!(egl::eglGetError(), EGL_BAD_ATTRIBUTE);

        let dpy = egl::eglGetPlatformDisplay(
            EGL_PLATFORM_SURFACELESS_MESA as u32,
            std::ptr::null_mut(),
            std::ptr::null(),
        );
        assert!(!dpy.is_null());
        assert_eq!(
            dpy,
            egl::eglGetPlatformDisplayEXT(
                EGL_PLATFORM_SURFACELESS_MESA as u32,
                std::ptr::null_mut(),
                std::ptr::null()
            )
        );

        // Before eglInitialize.
        assert!(egl::eglQueryString(dpy, EGL_EXTENSIONS).is_null());
        assert_eq!(egl::eglGetError(), EGL_NOT_INITIALIZED);

        let (mut major, mut minor) = (0, 0);
        let ok = egl::eglInitialize(dpy, &mut major, &mut minor);
        assert_eq!(
            ok,
            1,
            "eglInitialize failed with {:#x} (is a backend reachable?)",
            egl::eglGetError()
        );
        assert_eq!((major, minor), (1, 5));

        let exts = egl::eglQueryString(dpy, EGL_EXTENSIONS);
        for ext in [
            "EGL_KHR_create_context",
            "EGL_KHR_surfaceless_context",
            "EGL_KHR_no_config_context",
        ] {
            assert!(has_ext(exts, ext), "display extension {ext} missing");
        }
        assert!(has_ext(egl::eglQueryString(dpy, EGL_CLIENT_APIS), "OpenGL"));
        let version = CStr::from_ptr(egl::eglQueryString(dpy, EGL_VERSION))
            .to_string_lossy()
            .into_owned();
        assert!(version.starts_with("1.5"), "{version}");

        // waffle's request for an RGBA, depth visual, pbuffer surface.
        let attribs = [
            EGL_RED_SIZE,
            1,
            EGL_GREEN_SIZE,
            1,
            EGL_BLUE_SIZE,
            1,
            EGL_ALPHA_SIZE,
            1,
            EGL_DEPTH_SIZE,
            1,
            EGL_STENCIL_SIZE,
            EGL_DONT_CARE,
            EGL_SAMPLE_BUFFERS,
            EGL_DONT_CARE,
            EGL_RENDERABLE_TYPE,
            EGL_OPENGL_BIT,
            EGL_SURFACE_TYPE,
            EGL_PBUFFER_BIT,
            EGL_NONE,
        ];
        let mut config: EGLConfig = std::ptr::null_mut();
        let mut n: EGLint = 0;
        assert_eq!(
            egl::eglChooseConfig(dpy, attribs.as_ptr(), &mut config, 1, &mut n),
            1
        );
        assert_eq!(n, 1);
        let mut v = 0;
        assert_eq!(
            egl::eglGetConfigAttrib(dpy, config, EGL_RENDERABLE_TYPE, &mut v),
            1
        );
        assert_eq!(v & EGL_OPENGL_BIT, EGL_OPENGL_BIT);
        assert_eq!(
            egl::eglGetConfigAttrib(dpy, config, EGL_DEPTH_SIZE, &mut v),
            1
        );
        assert!(v >= 1);
        // Window surfaces are not offered.
        let win = [
            EGL_RENDERABLE_TYPE,
            EGL_OPENGL_BIT,
            EGL_SURFACE_TYPE,
            EGL_WINDOW_BIT,
            EGL_NONE,
        ];
        assert_eq!(
            egl::eglChooseConfig(dpy, win.as_ptr(), &mut config, 1, &mut n),
            1
        );
        assert_eq!(n, 0);
        // Counting all configs.
        assert_eq!(egl::eglGetConfigs(dpy, std::ptr::null_mut(), 0, &mut n), 1);
        assert!(n >= 3);

        // EGL 1.5 §3.7: OpenGL ES is supported, so it is the initial API.
        assert_eq!(egl::eglQueryAPI(), EGL_OPENGL_ES_API as u32);
        assert!(has_ext(
            egl::eglQueryString(dpy, EGL_CLIENT_APIS),
            "OpenGL_ES"
        ));
        assert_eq!(egl::eglBindAPI(0x30A1 /* EGL_OPENVG_API */), 0);
        assert_eq!(egl::eglGetError(), EGL_BAD_PARAMETER);
        assert_eq!(egl::eglBindAPI(EGL_OPENGL_API as u32), 1);
        assert_eq!(egl::eglQueryAPI(), EGL_OPENGL_API as u32);

        // Error paths.
        let bogus = 0x1234_5678usize as *mut c_void;
        assert_eq!(
            egl::eglInitialize(bogus, std::ptr::null_mut(), std::ptr::null_mut()),
            0
        );
        assert_eq!(egl::eglGetError(), EGL_BAD_DISPLAY);
        let bad = [0x7777, 1, EGL_NONE];
        assert_eq!(
            egl::eglChooseConfig(dpy, bad.as_ptr(), &mut config, 1, &mut n),
            0
        );
        assert_eq!(egl::eglGetError(), EGL_BAD_ATTRIBUTE);
        assert_eq!(egl::eglGetConfigAttrib(dpy, bogus, EGL_RED_SIZE, &mut v), 0);
        assert_eq!(egl::eglGetError(), EGL_BAD_CONFIG);
        assert_eq!(
            egl::eglChooseConfig(dpy, attribs.as_ptr(), &mut config, 1, std::ptr::null_mut()),
            0
        );
        assert_eq!(egl::eglGetError(), EGL_BAD_PARAMETER);
        assert!(egl::eglCreateContext(dpy, config, bogus, std::ptr::null()).is_null());
        assert_eq!(egl::eglGetError(), EGL_BAD_CONTEXT);
        assert_eq!(
            egl::eglMakeCurrent(dpy, std::ptr::null_mut(), std::ptr::null_mut(), bogus),
            0
        );
        assert_eq!(egl::eglGetError(), EGL_BAD_CONTEXT);
        assert_eq!(egl::eglDestroySurface(dpy, bogus), 0);
        assert_eq!(egl::eglGetError(), EGL_BAD_SURFACE);
        let bad_ctx = [EGL_CONTEXT_MAJOR_VERSION, 4, 0x7777, 0, EGL_NONE];
        assert!(
            egl::eglCreateContext(dpy, config, std::ptr::null_mut(), bad_ctx.as_ptr()).is_null()
        );
        assert_eq!(egl::eglGetError(), EGL_BAD_ATTRIBUTE);
        let bad_version = [
            EGL_CONTEXT_MAJOR_VERSION,
            3,
            EGL_CONTEXT_MINOR_VERSION,
            7,
            EGL_NONE,
        ];
        assert!(
            egl::eglCreateContext(dpy, config, std::ptr::null_mut(), bad_version.as_ptr())
                .is_null()
        );
        assert_eq!(egl::eglGetError(), EGL_BAD_MATCH);
        assert!(egl::eglCreateWindowSurface(dpy, config, 0, std::ptr::null()).is_null());
        assert_eq!(egl::eglGetError(), EGL_BAD_NATIVE_WINDOW);
        // Releasing with nothing current is fine.
        assert_eq!(
            egl::eglMakeCurrent(
                dpy,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut()
            ),
            1
        );
        assert!(egl::eglGetCurrentContext().is_null());
    }
}

/// The path waffle's surfaceless_egl platform takes: a core context, a
/// pbuffer "window", make current, swap, tear down. Uses the default display
/// so that its eglTerminate cannot race `egl_smoke`.
#[test]
fn egl_waffle_path() {
    // SAFETY: as in `egl_smoke`.
    unsafe {
        let dpy = egl::eglGetDisplay(std::ptr::null_mut());
        assert!(!dpy.is_null());
        assert_eq!(
            egl::eglInitialize(dpy, std::ptr::null_mut(), std::ptr::null_mut()),
            1,
            "eglInitialize: {:#x}",
            egl::eglGetError()
        );
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

        // Without eglBindAPI the API is EGL_NONE: EGL_BAD_MATCH.
        assert!(
            egl::eglCreateContext(dpy, config, std::ptr::null_mut(), std::ptr::null()).is_null()
        );
        assert_eq!(egl::eglGetError(), EGL_BAD_MATCH);
        assert_eq!(egl::eglBindAPI(EGL_OPENGL_API as u32), 1);

        let ctx_attribs = [
            EGL_CONTEXT_MAJOR_VERSION,
            3,
            EGL_CONTEXT_MINOR_VERSION,
            3,
            EGL_CONTEXT_OPENGL_PROFILE_MASK,
            EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
            EGL_CONTEXT_FLAGS_KHR,
            EGL_CONTEXT_OPENGL_FORWARD_COMPATIBLE_BIT_KHR,
            EGL_NONE,
        ];
        let ctx = egl::eglCreateContext(dpy, config, std::ptr::null_mut(), ctx_attribs.as_ptr());
        assert!(
            !ctx.is_null(),
            "eglCreateContext: {:#x}",
            egl::eglGetError()
        );
        let mut v = 0;
        assert_eq!(
            egl::eglQueryContext(dpy, ctx, EGL_CONTEXT_CLIENT_TYPE, &mut v),
            1
        );
        assert_eq!(v, EGL_OPENGL_API);

        // Surfaceless first (EGL_KHR_surfaceless_context).
        assert_eq!(
            egl::eglMakeCurrent(dpy, std::ptr::null_mut(), std::ptr::null_mut(), ctx),
            1,
            "{:#x}",
            egl::eglGetError()
        );
        assert_eq!(egl::eglGetCurrentContext(), ctx);

        let pb_attribs = [EGL_WIDTH, 64, EGL_HEIGHT, 32, EGL_NONE];
        let surf = egl::eglCreatePbufferSurface(dpy, config, pb_attribs.as_ptr());
        assert!(
            !surf.is_null(),
            "eglCreatePbufferSurface: {:#x}",
            egl::eglGetError()
        );
        assert_eq!(egl::eglQuerySurface(dpy, surf, EGL_WIDTH, &mut v), 1);
        assert_eq!(v, 64);
        assert_eq!(
            egl::eglMakeCurrent(dpy, surf, surf, ctx),
            1,
            "{:#x}",
            egl::eglGetError()
        );
        assert_eq!(egl::eglGetCurrentSurface(EGL_DRAW), surf);
        assert_eq!(
            egl::eglSwapBuffers(dpy, surf),
            1,
            "{:#x}",
            egl::eglGetError()
        );

        // Destroying while current defers; the handle is dead at once.
        assert_eq!(egl::eglDestroySurface(dpy, surf), 1);
        assert_eq!(egl::eglQuerySurface(dpy, surf, EGL_WIDTH, &mut v), 0);
        assert_eq!(egl::eglGetError(), EGL_BAD_SURFACE);
        assert_eq!(
            egl::eglMakeCurrent(
                dpy,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut()
            ),
            1
        );
        assert_eq!(egl::eglDestroyContext(dpy, ctx), 1);
        assert_eq!(egl::eglDestroyContext(dpy, ctx), 0);
        assert_eq!(egl::eglGetError(), EGL_BAD_CONTEXT);
        assert_eq!(egl::eglTerminate(dpy), 1);
        assert!(egl::eglQueryString(dpy, EGL_VENDOR).is_null());
        assert_eq!(egl::eglGetError(), EGL_NOT_INITIALIZED);
        assert_eq!(egl::eglReleaseThread(), 1);
    }
}
