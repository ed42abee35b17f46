//! Load one EGL provider with `dlopen` and make a surfaceless desktop GL 3.3
//! core context current on the calling thread.
//!
//! The display comes from `EGL_MESA_platform_surfaceless` when the provider
//! offers it (Mesa, MobileGL), else from `EGL_EXT_platform_device` (the
//! first device: NVIDIA's driver on a headless GPU box), else from
//! `eglGetDisplay(EGL_DEFAULT_DISPLAY)`.

use std::ffi::{c_char, c_void, CStr, CString};
use std::mem::ManuallyDrop;

type EGLDisplay = *mut c_void;
type EGLConfig = *mut c_void;
type EGLContext = *mut c_void;
type EGLSurface = *mut c_void;
type EGLDeviceEXT = *mut c_void;
type EGLint = i32;
type EGLenum = u32;
type EGLBoolean = u32;

const EGL_NONE: EGLint = 0x3038;
const EGL_EXTENSIONS: EGLint = 0x3055;
const EGL_VENDOR: EGLint = 0x3053;
const EGL_VERSION: EGLint = 0x3054;
const EGL_OPENGL_API: EGLenum = 0x30A2;
const EGL_RENDERABLE_TYPE: EGLint = 0x3040;
const EGL_OPENGL_BIT: EGLint = 0x0008;
const EGL_SURFACE_TYPE: EGLint = 0x3033;
const EGL_PBUFFER_BIT: EGLint = 0x0001;
const EGL_RED_SIZE: EGLint = 0x3024;
const EGL_GREEN_SIZE: EGLint = 0x3023;
const EGL_BLUE_SIZE: EGLint = 0x3022;
const EGL_ALPHA_SIZE: EGLint = 0x3021;
const EGL_CONTEXT_MAJOR_VERSION: EGLint = 0x3098;
const EGL_CONTEXT_MINOR_VERSION: EGLint = 0x30FB;
const EGL_CONTEXT_OPENGL_PROFILE_MASK: EGLint = 0x30FD;
const EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT: EGLint = 0x0001;
const EGL_PLATFORM_SURFACELESS_MESA: EGLenum = 0x31DD;
const EGL_PLATFORM_DEVICE_EXT: EGLenum = 0x313F;

type GetProcAddress = unsafe extern "C" fn(*const c_char) -> *const c_void;
type QueryString = unsafe extern "C" fn(EGLDisplay, EGLint) -> *const c_char;
type GetPlatformDisplay = unsafe extern "C" fn(EGLenum, *mut c_void, *const EGLint) -> EGLDisplay;
type GetDisplay = unsafe extern "C" fn(*mut c_void) -> EGLDisplay;
type QueryDevices = unsafe extern "C" fn(EGLint, *mut EGLDeviceEXT, *mut EGLint) -> EGLBoolean;
type Initialize = unsafe extern "C" fn(EGLDisplay, *mut EGLint, *mut EGLint) -> EGLBoolean;
type BindApi = unsafe extern "C" fn(EGLenum) -> EGLBoolean;
type ChooseConfig = unsafe extern "C" fn(
    EGLDisplay,
    *const EGLint,
    *mut EGLConfig,
    EGLint,
    *mut EGLint,
) -> EGLBoolean;
type CreateContext =
    unsafe extern "C" fn(EGLDisplay, EGLConfig, EGLContext, *const EGLint) -> EGLContext;
type MakeCurrent =
    unsafe extern "C" fn(EGLDisplay, EGLSurface, EGLSurface, EGLContext) -> EGLBoolean;
type GetError = unsafe extern "C" fn() -> EGLint;
type DestroyContext = unsafe extern "C" fn(EGLDisplay, EGLContext) -> EGLBoolean;
type Terminate = unsafe extern "C" fn(EGLDisplay) -> EGLBoolean;

/// A loaded provider with a current context.
pub struct Egl {
    /// Never unloaded: drivers do not all survive `dlclose`, and the
    /// process ends right after the benchmark anyway.
    _lib: ManuallyDrop<libloading::Library>,
    get_proc: GetProcAddress,
    make_current: MakeCurrent,
    destroy_context: DestroyContext,
    terminate: Terminate,
    display: EGLDisplay,
    context: EGLContext,
    /// How the display was obtained, for the report.
    pub platform: &'static str,
    pub egl_vendor: String,
    pub egl_version: String,
}

fn sym<T: Copy>(lib: &libloading::Library, name: &str) -> Result<T, String> {
    let c = CString::new(name).map_err(|e| e.to_string())?;
    // SAFETY: the caller names T as the C signature of `name` in EGL 1.5.
    unsafe {
        lib.get::<T>(c.as_bytes_with_nul())
            .map(|s| *s)
            .map_err(|e| format!("the EGL provider lacks {name}: {e}"))
    }
}

fn cstr_or(p: *const c_char) -> String {
    if p.is_null() {
        String::new()
    } else {
        // SAFETY: EGL returns NUL-terminated static strings.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }
}

fn has_ext(list: &str, ext: &str) -> bool {
    list.split_ascii_whitespace().any(|e| e == ext)
}

impl Egl {
    /// `dlopen` the provider at `path` (a bare name goes through the
    /// loader's search path) and make a 3.3 core context current.
    pub fn open(path: &str) -> Result<Egl, String> {
        // SAFETY: loading a library runs its initialisers; an EGL provider
        // is meant to be loaded into any process.
        let lib =
            unsafe { libloading::Library::new(path) }.map_err(|e| format!("dlopen {path}: {e}"))?;
        let get_proc: GetProcAddress = sym(&lib, "eglGetProcAddress")?;
        let query_string: QueryString = sym(&lib, "eglQueryString")?;
        let get_display: GetDisplay = sym(&lib, "eglGetDisplay")?;
        let initialize: Initialize = sym(&lib, "eglInitialize")?;
        let bind_api: BindApi = sym(&lib, "eglBindAPI")?;
        let choose_config: ChooseConfig = sym(&lib, "eglChooseConfig")?;
        let create_context: CreateContext = sym(&lib, "eglCreateContext")?;
        let make_current: MakeCurrent = sym(&lib, "eglMakeCurrent")?;
        let get_error: GetError = sym(&lib, "eglGetError")?;
        let destroy_context: DestroyContext = sym(&lib, "eglDestroyContext")?;
        let terminate: Terminate = sym(&lib, "eglTerminate")?;

        let proc_addr = |name: &str| -> *const c_void {
            match CString::new(name) {
                // SAFETY: a NUL-terminated name; the result may be NULL.
                Ok(c) => unsafe { get_proc(c.as_ptr()) },
                Err(_) => std::ptr::null(),
            }
        };
        // SAFETY: EGL_NO_DISPLAY + EGL_EXTENSIONS queries client extensions.
        let client_ext = cstr_or(unsafe { query_string(std::ptr::null_mut(), EGL_EXTENSIONS) });
        let gpd = proc_addr("eglGetPlatformDisplayEXT");
        let mut platform = "default";
        let mut display: EGLDisplay = std::ptr::null_mut();
        if !gpd.is_null() && has_ext(&client_ext, "EGL_MESA_platform_surfaceless") {
            // SAFETY: non-null pointer for eglGetPlatformDisplayEXT.
            let gpd: GetPlatformDisplay = unsafe { std::mem::transmute(gpd) };
            // SAFETY: a valid platform enum, default native display, no attribs.
            display = unsafe {
                gpd(
                    EGL_PLATFORM_SURFACELESS_MESA,
                    std::ptr::null_mut(),
                    std::ptr::null(),
                )
            };
            platform = "surfaceless";
        }
        if display.is_null() && !gpd.is_null() && has_ext(&client_ext, "EGL_EXT_platform_device") {
            let qd = proc_addr("eglQueryDevicesEXT");
            if !qd.is_null() {
                // SAFETY: non-null pointer for eglQueryDevicesEXT.
                let qd: QueryDevices = unsafe { std::mem::transmute(qd) };
                let mut devs = [std::ptr::null_mut(); 8];
                let mut n = 0;
                // SAFETY: `devs` holds 8 entries, as passed.
                if unsafe { qd(8, devs.as_mut_ptr(), &mut n) } != 0 && n > 0 {
                    // SAFETY: as above, for eglGetPlatformDisplayEXT.
                    let gpd: GetPlatformDisplay = unsafe { std::mem::transmute(gpd) };
                    // SAFETY: a device returned by eglQueryDevicesEXT.
                    display = unsafe { gpd(EGL_PLATFORM_DEVICE_EXT, devs[0], std::ptr::null()) };
                    platform = "device";
                }
            }
        }
        if display.is_null() {
            // SAFETY: EGL_DEFAULT_DISPLAY.
            display = unsafe { get_display(std::ptr::null_mut()) };
            platform = "default";
        }
        if display.is_null() {
            // SAFETY: plain error query.
            let e = unsafe { get_error() };
            return Err(format!("no EGL display (eglGetError 0x{e:x})"));
        }
        let (mut major, mut minor) = (0, 0);
        // SAFETY: a display from above and two out-pointers.
        if unsafe { initialize(display, &mut major, &mut minor) } == 0 {
            // SAFETY: plain error query.
            let e = unsafe { get_error() };
            return Err(format!("eglInitialize ({platform}) failed: 0x{e:x}"));
        }
        // SAFETY: queries on an initialised display.
        let egl_vendor = cstr_or(unsafe { query_string(display, EGL_VENDOR) });
        // SAFETY: as above.
        let egl_version = cstr_or(unsafe { query_string(display, EGL_VERSION) });
        // SAFETY: a valid API enum.
        if unsafe { bind_api(EGL_OPENGL_API) } == 0 {
            // SAFETY: plain error query.
            let e = unsafe { get_error() };
            return Err(format!("eglBindAPI(EGL_OPENGL_API) failed: 0x{e:x}"));
        }
        let with_pbuffer = [
            EGL_RENDERABLE_TYPE,
            EGL_OPENGL_BIT,
            EGL_SURFACE_TYPE,
            EGL_PBUFFER_BIT,
            EGL_RED_SIZE,
            8,
            EGL_GREEN_SIZE,
            8,
            EGL_BLUE_SIZE,
            8,
            EGL_ALPHA_SIZE,
            8,
            EGL_NONE,
        ];
        // The same without the surface type (some providers list no
        // pbuffer configs on a surfaceless display).
        let without_surface = [
            EGL_RENDERABLE_TYPE,
            EGL_OPENGL_BIT,
            EGL_RED_SIZE,
            8,
            EGL_GREEN_SIZE,
            8,
            EGL_BLUE_SIZE,
            8,
            EGL_NONE,
        ];
        let mut config: EGLConfig = std::ptr::null_mut();
        let mut found = 0;
        for attrs in [&with_pbuffer[..], &without_surface[..]] {
            // SAFETY: a NONE-terminated attribute list and room for 1 config.
            let ok = unsafe { choose_config(display, attrs.as_ptr(), &mut config, 1, &mut found) };
            if ok != 0 && found >= 1 {
                break;
            }
        }
        if found < 1 {
            // SAFETY: plain error query.
            let e = unsafe { get_error() };
            return Err(format!(
                "eglChooseConfig found no EGL_OPENGL_BIT RGB8 config (0x{e:x})"
            ));
        }
        let ctx_attrs = [
            EGL_CONTEXT_MAJOR_VERSION,
            3,
            EGL_CONTEXT_MINOR_VERSION,
            3,
            EGL_CONTEXT_OPENGL_PROFILE_MASK,
            EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
            EGL_NONE,
        ];
        // SAFETY: display and config from above, NONE-terminated attribs.
        let context =
            unsafe { create_context(display, config, std::ptr::null_mut(), ctx_attrs.as_ptr()) };
        if context.is_null() {
            // SAFETY: plain error query.
            let e = unsafe { get_error() };
            return Err(format!("eglCreateContext(3.3 core) failed: 0x{e:x}"));
        }
        // SAFETY: no surfaces (EGL_KHR_surfaceless_context), our context.
        if unsafe { make_current(display, std::ptr::null_mut(), std::ptr::null_mut(), context) }
            == 0
        {
            // SAFETY: plain error query.
            let e = unsafe { get_error() };
            return Err(format!(
                "eglMakeCurrent(no surface) failed: 0x{e:x} (EGL {major}.{minor}, {platform})"
            ));
        }
        Ok(Egl {
            _lib: ManuallyDrop::new(lib),
            get_proc,
            make_current,
            destroy_context,
            terminate,
            display,
            context,
            platform,
            egl_vendor,
            egl_version,
        })
    }

    /// `eglGetProcAddress`.
    pub fn proc_address(&self, name: &CStr) -> *const c_void {
        // SAFETY: a NUL-terminated name; the result may be NULL.
        unsafe { (self.get_proc)(name.as_ptr()) }
    }

    /// Release and destroy the context, terminate the display.
    pub fn shutdown(self) {
        // SAFETY: the display and context this struct created.
        unsafe {
            (self.make_current)(
                self.display,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            );
            (self.destroy_context)(self.display, self.context);
            (self.terminate)(self.display);
        }
    }
}
