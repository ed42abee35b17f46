//! EGL 1.5 implementation.
//!
//! Enough EGL for waffle's `surfaceless_egl` platform (piglit), SDL, GLFW and
//! LWJGL on headless devices: the EGL_MESA_platform_surfaceless display (and
//! `eglGetDisplay(EGL_DEFAULT_DISPLAY)`), pbuffer-only configs renderable by
//! desktop OpenGL and OpenGL ES 2/3, EGL_KHR_create_context /
//! EGL_KHR_surfaceless_context / EGL_KHR_no_config_context, `eglBindAPI` of
//! EGL_OPENGL_API and EGL_OPENGL_ES_API (an ES context: ES 2.0 and 3.x over
//! the same GL core, `platform::Api`), fence syncs (EGL 1.5,
//! EGL_KHR_fence_sync, EGL_KHR_wait_sync: `sync.rs`). Native windows and
//! pixmaps, images and OpenGL ES 1.x are refused with the EGL error the
//! specification names, and a log line.
//!
//! Contexts and surfaces are created through the `crate::platform` seam; this
//! module never touches GL state, except that a fence sync inserts and waits
//! on a GL fence through `gl::sync`.
//!
//! Every exported function runs its body through [`entry`], which catches
//! panics (nothing unwinds across the C ABI), sets the thread's EGL error and
//! logs failures. Handles are opaque numbers kept in [`state::REGISTRY`]:
//! an unknown handle is an `EGL_BAD_*` error, never a dereference.

// C entry points keep their Khronos names; their safety contract is the EGL
// specification (valid pointers where the spec requires them).
#![allow(non_snake_case, clippy::missing_safety_doc)]

pub mod config;
pub mod consts;
pub mod state;
pub mod sync;

pub use sync::{
    eglClientWaitSync, eglClientWaitSyncKHR, eglCreateSync, eglCreateSyncKHR, eglDestroySync,
    eglDestroySyncKHR, eglGetSyncAttrib, eglGetSyncAttribKHR, eglWaitSync, eglWaitSyncKHR,
};

use std::borrow::Cow;
use std::ffi::{c_char, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

use consts::*;
use state::{ContextRec, SurfaceRec, REGISTRY};

use crate::platform::{self, Api, ContextAttribs, PlatformError, Profile, SurfaceDesc};

pub type EGLBoolean = u32;
pub type EGLint = i32;
pub type EGLenum = u32;
pub type EGLAttrib = isize;
pub type EGLTime = u64;
pub type EGLDisplay = *mut c_void;
pub type EGLConfig = *mut c_void;
pub type EGLContext = *mut c_void;
pub type EGLSurface = *mut c_void;
pub type EGLSync = *mut c_void;
pub type EGLImage = *mut c_void;
pub type EGLClientBuffer = *mut c_void;
pub type EGLNativeDisplayType = *mut c_void;
/// `Window` (an XID) or `ANativeWindow*`: pointer-sized either way.
pub type EGLNativeWindowType = usize;
/// `Pixmap` (an XID): pointer-sized.
pub type EGLNativePixmapType = usize;

const TRUE: EGLBoolean = 1;
const FALSE: EGLBoolean = 0;
const NO_HANDLE: *mut c_void = std::ptr::null_mut();

/// Most attribute pairs we read from one list before calling it malformed.
const MAX_ATTRIBS: usize = 1024;

/// Client extensions (`eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS)`).
const CLIENT_EXTENSIONS: &[u8] = b"EGL_EXT_client_extensions EGL_EXT_platform_base \
EGL_KHR_client_get_all_proc_addresses EGL_MESA_platform_surfaceless\0";
/// Display extensions.
const DISPLAY_EXTENSIONS: &[u8] = b"EGL_KHR_create_context EGL_KHR_fence_sync \
EGL_KHR_get_all_proc_addresses EGL_KHR_no_config_context EGL_KHR_surfaceless_context \
EGL_KHR_wait_sync\0";
const VENDOR: &[u8] = b"MobileGL\0";
const VERSION: &[u8] = b"1.5 MobileGL\0";
const CLIENT_APIS: &[u8] = b"OpenGL OpenGL_ES\0";

/// An EGL error code and why it was raised.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}: {why}", error_name(*.code))]
pub struct EglError {
    pub code: EGLint,
    pub why: Cow<'static, str>,
}

impl EglError {
    pub const fn new(code: EGLint, why: &'static str) -> Self {
        EglError {
            code,
            why: Cow::Borrowed(why),
        }
    }
}

impl From<PlatformError> for EglError {
    fn from(e: PlatformError) -> Self {
        let code = match &e {
            PlatformError::NoBackend(_) => EGL_BAD_ALLOC,
            PlatformError::BadVersion { .. } | PlatformError::BadMatch(_) => EGL_BAD_MATCH,
            PlatformError::ContextLost(_) => EGL_CONTEXT_LOST,
        };
        EglError {
            code,
            why: Cow::Owned(e.to_string()),
        }
    }
}

/// The symbolic name of an EGL error code.
pub fn error_name(code: EGLint) -> &'static str {
    match code {
        EGL_SUCCESS => "EGL_SUCCESS",
        EGL_NOT_INITIALIZED => "EGL_NOT_INITIALIZED",
        EGL_BAD_ACCESS => "EGL_BAD_ACCESS",
        EGL_BAD_ALLOC => "EGL_BAD_ALLOC",
        EGL_BAD_ATTRIBUTE => "EGL_BAD_ATTRIBUTE",
        EGL_BAD_CONFIG => "EGL_BAD_CONFIG",
        EGL_BAD_CONTEXT => "EGL_BAD_CONTEXT",
        EGL_BAD_CURRENT_SURFACE => "EGL_BAD_CURRENT_SURFACE",
        EGL_BAD_DISPLAY => "EGL_BAD_DISPLAY",
        EGL_BAD_MATCH => "EGL_BAD_MATCH",
        EGL_BAD_NATIVE_PIXMAP => "EGL_BAD_NATIVE_PIXMAP",
        EGL_BAD_NATIVE_WINDOW => "EGL_BAD_NATIVE_WINDOW",
        EGL_BAD_PARAMETER => "EGL_BAD_PARAMETER",
        EGL_BAD_SURFACE => "EGL_BAD_SURFACE",
        EGL_CONTEXT_LOST => "EGL_CONTEXT_LOST",
        _ => "unknown EGL error",
    }
}

fn set_error(code: EGLint) {
    state::update_thread(|t| t.error = code);
}

/// The boundary every exported EGL function goes through: runs `body`,
/// catching panics; on success sets EGL_SUCCESS and returns its value; on
/// failure sets the error, logs it, and returns `fail`.
fn entry<T>(func: &'static str, fail: T, body: impl FnOnce() -> Result<T, EglError>) -> T {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(v)) => {
            set_error(EGL_SUCCESS);
            v
        }
        Ok(Err(e)) => {
            tracing::warn!(target: "mobilegl::egl", "{func} failed: {e}");
            set_error(e.code);
            fail
        }
        Err(_) => {
            tracing::error!(target: "mobilegl::egl", "{func}: internal panic caught at the EGL boundary");
            set_error(EGL_BAD_ALLOC);
            fail
        }
    }
}

fn handle(p: *mut c_void) -> usize {
    p as usize
}

fn to_ptr(h: usize) -> *mut c_void {
    h as *mut c_void
}

/// Read an `EGLint` attribute list (null = empty) up to EGL_NONE.
///
/// # Safety
/// `list` is null or points to a readable EGL_NONE-terminated list.
unsafe fn read_attribs(list: *const EGLint) -> Result<Vec<(EGLint, EGLint)>, EglError> {
    let mut out = Vec::new();
    if list.is_null() {
        return Ok(out);
    }
    for i in 0..MAX_ATTRIBS {
        // SAFETY: the list is EGL_NONE-terminated (caller contract) and we
        // stop at the terminator; the value read is the one after the name.
        let name = unsafe { *list.add(2 * i) };
        if name == EGL_NONE {
            return Ok(out);
        }
        // SAFETY: as above: a name other than EGL_NONE is followed by a value.
        let value = unsafe { *list.add(2 * i + 1) };
        out.push((name, value));
    }
    Err(EglError::new(
        EGL_BAD_ATTRIBUTE,
        "attribute list is not EGL_NONE-terminated",
    ))
}

/// Read an `EGLAttrib` attribute list (null = empty) up to EGL_NONE.
///
/// # Safety
/// `list` is null or points to a readable EGL_NONE-terminated list.
unsafe fn read_attribs_wide(
    list: *const EGLAttrib,
) -> Result<Vec<(EGLAttrib, EGLAttrib)>, EglError> {
    let mut out = Vec::new();
    if list.is_null() {
        return Ok(out);
    }
    for i in 0..MAX_ATTRIBS {
        // SAFETY: as in `read_attribs`.
        let name = unsafe { *list.add(2 * i) };
        if name == EGL_NONE as EGLAttrib {
            return Ok(out);
        }
        // SAFETY: as in `read_attribs`.
        let value = unsafe { *list.add(2 * i + 1) };
        out.push((name, value));
    }
    Err(EglError::new(
        EGL_BAD_ATTRIBUTE,
        "attribute list is not EGL_NONE-terminated",
    ))
}

/// Write through an out-pointer that may be null (then EGL_BAD_PARAMETER).
///
/// # Safety
/// `out` is null or valid for a write of `T`.
unsafe fn write_out<T>(out: *mut T, v: T) -> Result<(), EglError> {
    if out.is_null() {
        return Err(EglError::new(EGL_BAD_PARAMETER, "null output pointer"));
    }
    // SAFETY: non-null, and valid for writes by the caller's contract.
    unsafe { out.write(v) };
    Ok(())
}

// ---------------------------------------------------------------------------
// Errors, API, proc addresses
// ---------------------------------------------------------------------------

#[no_mangle]
pub unsafe extern "C" fn eglGetError() -> EGLint {
    catch_unwind(|| {
        let e = state::thread().error;
        set_error(EGL_SUCCESS);
        e
    })
    .unwrap_or(EGL_BAD_ALLOC)
}

/// EGL functions, then every GL function (core and extension); null for
/// anything else.
#[no_mangle]
pub unsafe extern "C" fn eglGetProcAddress(procname: *const c_char) -> *const c_void {
    catch_unwind(|| {
        if procname.is_null() {
            return std::ptr::null();
        }
        // SAFETY: non-null and NUL-terminated by the EGL contract.
        let name = unsafe { CStr::from_ptr(procname) }.to_bytes();
        crate::exports::lookup_egl(name)
            .or_else(|| crate::exports::lookup(name))
            .unwrap_or(std::ptr::null())
    })
    .unwrap_or(std::ptr::null())
}

#[no_mangle]
pub unsafe extern "C" fn eglBindAPI(api: EGLenum) -> EGLBoolean {
    entry("eglBindAPI", FALSE, || match api as EGLint {
        EGL_OPENGL_API => {
            state::update_thread(|t| t.api = EGL_OPENGL_API);
            Ok(TRUE)
        }
        EGL_OPENGL_ES_API => {
            state::update_thread(|t| t.api = EGL_OPENGL_ES_API);
            Ok(TRUE)
        }
        _ => Err(EglError::new(EGL_BAD_PARAMETER, "unsupported client API")),
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglQueryAPI() -> EGLenum {
    entry("eglQueryAPI", EGL_NONE as EGLenum, || {
        Ok(state::thread().api as EGLenum)
    })
}

// ---------------------------------------------------------------------------
// Displays
// ---------------------------------------------------------------------------

/// `eglGetDisplay(EGL_DEFAULT_DISPLAY)` is a surfaceless display. Other
/// native displays (X11, Wayland) are not supported yet: EGL_NO_DISPLAY
/// (no error, as the spec says for an unavailable display).
#[no_mangle]
pub unsafe extern "C" fn eglGetDisplay(display_id: EGLNativeDisplayType) -> EGLDisplay {
    entry("eglGetDisplay", NO_HANDLE, || {
        if !display_id.is_null() {
            tracing::warn!(
                target: "mobilegl::egl",
                "eglGetDisplay: native displays are not supported yet (only EGL_DEFAULT_DISPLAY): returning EGL_NO_DISPLAY"
            );
            return Ok(NO_HANDLE);
        }
        Ok(to_ptr(REGISTRY.lock().display_for(0)))
    })
}

fn platform_display(
    platform: EGLenum,
    native: *mut c_void,
    attribs: Vec<(EGLAttrib, EGLAttrib)>,
) -> Result<EGLDisplay, EglError> {
    if platform as EGLint != EGL_PLATFORM_SURFACELESS_MESA {
        tracing::warn!(
            target: "mobilegl::egl",
            "eglGetPlatformDisplay: platform {platform:#x} is not supported; only EGL_PLATFORM_SURFACELESS_MESA (0x31DD)"
        );
        return Err(EglError::new(EGL_BAD_PARAMETER, "unsupported platform"));
    }
    if !native.is_null() {
        return Err(EglError::new(
            EGL_BAD_PARAMETER,
            "the surfaceless platform takes EGL_DEFAULT_DISPLAY",
        ));
    }
    if !attribs.is_empty() {
        return Err(EglError::new(
            EGL_BAD_ATTRIBUTE,
            "the surfaceless platform takes no display attributes",
        ));
    }
    Ok(to_ptr(
        REGISTRY.lock().display_for(EGL_PLATFORM_SURFACELESS_MESA),
    ))
}

#[no_mangle]
pub unsafe extern "C" fn eglGetPlatformDisplay(
    platform: EGLenum,
    native_display: *mut c_void,
    attrib_list: *const EGLAttrib,
) -> EGLDisplay {
    entry("eglGetPlatformDisplay", NO_HANDLE, || {
        // SAFETY: EGL contract: null or an EGL_NONE-terminated list.
        let attribs = unsafe { read_attribs_wide(attrib_list) }?;
        platform_display(platform, native_display, attribs)
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglGetPlatformDisplayEXT(
    platform: EGLenum,
    native_display: *mut c_void,
    attrib_list: *const EGLint,
) -> EGLDisplay {
    entry("eglGetPlatformDisplayEXT", NO_HANDLE, || {
        // SAFETY: EGL contract: null or an EGL_NONE-terminated list.
        let attribs = unsafe { read_attribs(attrib_list) }?;
        let wide = attribs
            .into_iter()
            .map(|(n, v)| (n as EGLAttrib, v as EGLAttrib))
            .collect();
        platform_display(platform, native_display, wide)
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglInitialize(
    dpy: EGLDisplay,
    major: *mut EGLint,
    minor: *mut EGLint,
) -> EGLBoolean {
    entry("eglInitialize", FALSE, || {
        let mut reg = REGISTRY.lock();
        reg.display(handle(dpy))?;
        if let Err(e) = platform::ensure_runtime() {
            tracing::error!(target: "mobilegl::egl", "eglInitialize: the MobileGL runtime could not start: {e}");
            return Err(EglError {
                code: EGL_NOT_INITIALIZED,
                why: Cow::Owned(format!("runtime failed to start: {e}")),
            });
        }
        if let Some(d) = reg.displays.get_mut(&handle(dpy)) {
            d.initialized = true;
        }
        if !major.is_null() {
            // SAFETY: non-null out-pointer supplied by the caller.
            unsafe { major.write(1) };
        }
        if !minor.is_null() {
            // SAFETY: non-null out-pointer supplied by the caller.
            unsafe { minor.write(5) };
        }
        Ok(TRUE)
    })
}

/// Marks the display uninitialised and frees its contexts and surfaces;
/// those current to some thread are freed when released.
#[no_mangle]
pub unsafe extern "C" fn eglTerminate(dpy: EGLDisplay) -> EGLBoolean {
    entry("eglTerminate", FALSE, || {
        let dpy = handle(dpy);
        let mut reg = REGISTRY.lock();
        reg.display(dpy)?;
        let ctxs: Vec<usize> = reg
            .contexts
            .iter()
            .filter(|(_, c)| c.display == dpy)
            .map(|(h, _)| *h)
            .collect();
        for h in ctxs {
            reg.doom_context(h);
        }
        let surfs: Vec<usize> = reg
            .surfaces
            .iter()
            .filter(|(_, s)| s.display == dpy)
            .map(|(h, _)| *h)
            .collect();
        for h in surfs {
            reg.doom_surface(h);
        }
        if let Some(d) = reg.displays.get_mut(&dpy) {
            d.initialized = false;
        }
        let syncs = sync::take_display_syncs(&mut reg, dpy);
        drop(reg);
        sync::forget(&syncs);
        Ok(TRUE)
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglQueryString(dpy: EGLDisplay, name: EGLint) -> *const c_char {
    entry("eglQueryString", std::ptr::null(), || {
        let s: &'static [u8] = if dpy.is_null() {
            match name {
                EGL_EXTENSIONS => CLIENT_EXTENSIONS,
                EGL_VERSION => VERSION,
                _ => {
                    return Err(EglError::new(
                        EGL_BAD_DISPLAY,
                        "EGL_NO_DISPLAY only answers EGL_EXTENSIONS and EGL_VERSION",
                    ))
                }
            }
        } else {
            REGISTRY.lock().initialized(handle(dpy))?;
            match name {
                EGL_VENDOR => VENDOR,
                EGL_VERSION => VERSION,
                EGL_EXTENSIONS => DISPLAY_EXTENSIONS,
                EGL_CLIENT_APIS => CLIENT_APIS,
                _ => {
                    return Err(EglError::new(
                        EGL_BAD_PARAMETER,
                        "unknown eglQueryString name",
                    ))
                }
            }
        };
        Ok(s.as_ptr().cast::<c_char>())
    })
}

// ---------------------------------------------------------------------------
// Configs
// ---------------------------------------------------------------------------

/// Copy config handles out (`configs` null: count only).
///
/// # Safety
/// `configs` null or valid for `size` writes; `num_config` null or valid.
unsafe fn return_configs(
    list: &[&'static config::Config],
    configs: *mut EGLConfig,
    size: EGLint,
    num_config: *mut EGLint,
) -> Result<EGLBoolean, EglError> {
    if num_config.is_null() {
        return Err(EglError::new(EGL_BAD_PARAMETER, "num_config is null"));
    }
    let n = if configs.is_null() {
        list.len()
    } else {
        let room = usize::try_from(size).unwrap_or(0);
        let n = list.len().min(room);
        for (i, c) in list.iter().take(n).enumerate() {
            // SAFETY: i < size, and `configs` holds `size` slots (caller contract).
            unsafe { configs.add(i).write(to_ptr(config::handle_of(c))) };
        }
        n
    };
    // SAFETY: checked non-null above; valid by the caller's contract.
    unsafe { num_config.write(EGLint::try_from(n).unwrap_or(EGLint::MAX)) };
    Ok(TRUE)
}

#[no_mangle]
pub unsafe extern "C" fn eglGetConfigs(
    dpy: EGLDisplay,
    configs: *mut EGLConfig,
    config_size: EGLint,
    num_config: *mut EGLint,
) -> EGLBoolean {
    entry("eglGetConfigs", FALSE, || {
        REGISTRY.lock().initialized(handle(dpy))?;
        let all: Vec<&'static config::Config> = config::CONFIGS.iter().collect();
        // SAFETY: pointers from the caller, EGL contract.
        unsafe { return_configs(&all, configs, config_size, num_config) }
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglChooseConfig(
    dpy: EGLDisplay,
    attrib_list: *const EGLint,
    configs: *mut EGLConfig,
    config_size: EGLint,
    num_config: *mut EGLint,
) -> EGLBoolean {
    entry("eglChooseConfig", FALSE, || {
        REGISTRY.lock().initialized(handle(dpy))?;
        // SAFETY: EGL contract: null or an EGL_NONE-terminated list.
        let attribs = unsafe { read_attribs(attrib_list) }?;
        let chosen = config::Request::parse(&attribs)?.choose();
        // SAFETY: pointers from the caller, EGL contract.
        unsafe { return_configs(&chosen, configs, config_size, num_config) }
    })
}

fn config_of(h: EGLConfig) -> Result<&'static config::Config, EglError> {
    config::from_handle(handle(h)).ok_or(EglError::new(
        EGL_BAD_CONFIG,
        "not an EGLConfig of this library",
    ))
}

#[no_mangle]
pub unsafe extern "C" fn eglGetConfigAttrib(
    dpy: EGLDisplay,
    config: EGLConfig,
    attribute: EGLint,
    value: *mut EGLint,
) -> EGLBoolean {
    entry("eglGetConfigAttrib", FALSE, || {
        REGISTRY.lock().initialized(handle(dpy))?;
        let c = config_of(config)?;
        let v = c
            .attrib(attribute)
            .ok_or(EglError::new(EGL_BAD_ATTRIBUTE, "not a config attribute"))?;
        // SAFETY: out-pointer from the caller.
        unsafe { write_out(value, v) }?;
        Ok(TRUE)
    })
}

// ---------------------------------------------------------------------------
// Contexts
// ---------------------------------------------------------------------------

const EGL_NO_CONFIG_KHR: usize = 0;
const FLAG_DEBUG: EGLint = EGL_CONTEXT_OPENGL_DEBUG_BIT_KHR;
const FLAG_FORWARD: EGLint = EGL_CONTEXT_OPENGL_FORWARD_COMPATIBLE_BIT_KHR;
const FLAG_ROBUST: EGLint = EGL_CONTEXT_OPENGL_ROBUST_ACCESS_BIT_KHR;

fn egl_bool(v: EGLint) -> Result<bool, EglError> {
    match v {
        EGL_TRUE => Ok(true),
        EGL_FALSE => Ok(false),
        _ => Err(EglError::new(
            EGL_BAD_ATTRIBUTE,
            "boolean attribute is neither EGL_TRUE nor EGL_FALSE",
        )),
    }
}

/// The `eglCreateContext` attribute list, read once for either client API
/// (EGL_KHR_create_context / EGL 1.5 §3.7.1): version, profile mask and
/// flags as given. The desktop-only attributes (profile mask,
/// forward-compatible) are EGL_BAD_ATTRIBUTE for an OpenGL ES context.
struct RawContextAttribs {
    major: EGLint,
    minor: EGLint,
    profile_mask: EGLint,
    flags: EGLint,
}

fn scan_context_attribs(
    pairs: &[(EGLint, EGLint)],
    es: bool,
) -> Result<RawContextAttribs, EglError> {
    // Both APIs default to version 1.0 (EGL 1.5 §3.7.1.1).
    let mut raw = RawContextAttribs {
        major: 1,
        minor: 0,
        profile_mask: EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
        flags: 0,
    };
    let known_flags = if es {
        FLAG_DEBUG | FLAG_ROBUST
    } else {
        FLAG_DEBUG | FLAG_FORWARD | FLAG_ROBUST
    };
    for &(name, value) in pairs {
        match name {
            // Same value as EGL_CONTEXT_CLIENT_VERSION.
            EGL_CONTEXT_MAJOR_VERSION => raw.major = value,
            EGL_CONTEXT_MINOR_VERSION => raw.minor = value,
            EGL_CONTEXT_OPENGL_PROFILE_MASK if !es => raw.profile_mask = value,
            EGL_CONTEXT_FLAGS_KHR => {
                if value & !known_flags != 0 {
                    return Err(EglError::new(
                        EGL_BAD_ATTRIBUTE,
                        "unknown bits in EGL_CONTEXT_FLAGS_KHR (for OpenGL ES: only debug and robust)",
                    ));
                }
                raw.flags = value;
            }
            EGL_CONTEXT_OPENGL_DEBUG => {
                raw.flags = set_flag(raw.flags, FLAG_DEBUG, egl_bool(value)?)
            }
            EGL_CONTEXT_OPENGL_FORWARD_COMPATIBLE if !es => {
                raw.flags = set_flag(raw.flags, FLAG_FORWARD, egl_bool(value)?)
            }
            EGL_CONTEXT_OPENGL_ROBUST_ACCESS => {
                raw.flags = set_flag(raw.flags, FLAG_ROBUST, egl_bool(value)?)
            }
            EGL_CONTEXT_OPENGL_RESET_NOTIFICATION_STRATEGY => {
                if value != EGL_NO_RESET_NOTIFICATION && value != EGL_LOSE_CONTEXT_ON_RESET {
                    return Err(EglError::new(
                        EGL_BAD_ATTRIBUTE,
                        "bad reset notification strategy",
                    ));
                }
                // Not carried by ContextAttribs yet: every context behaves as
                // EGL_NO_RESET_NOTIFICATION until the GL core reports resets.
            }
            _ => {
                return Err(EglError::new(
                    EGL_BAD_ATTRIBUTE,
                    "unknown eglCreateContext attribute for this client API",
                ))
            }
        }
    }
    Ok(raw)
}

/// EGL_KHR_create_context / EGL 1.5 §3.7.1 attributes for an OpenGL context.
/// The default (no attributes) is OpenGL 1.0; the GL core decides what it
/// actually provides.
pub fn parse_context_attribs(pairs: &[(EGLint, EGLint)]) -> Result<ContextAttribs, EglError> {
    let RawContextAttribs {
        major,
        minor,
        profile_mask,
        flags,
    } = scan_context_attribs(pairs, false)?;
    let valid_version = match major {
        1 => (0..=5).contains(&minor),
        2 => (0..=1).contains(&minor),
        3 => (0..=3).contains(&minor),
        4 => (0..=6).contains(&minor),
        _ => false,
    };
    if !valid_version {
        return Err(EglError::new(EGL_BAD_MATCH, "not an OpenGL version"));
    }
    let forward_compatible = flags & FLAG_FORWARD != 0;
    if forward_compatible && major < 3 {
        return Err(EglError::new(
            EGL_BAD_MATCH,
            "forward-compatible contexts need OpenGL 3.0 or later",
        ));
    }
    let profile = if (major, minor) >= (3, 2) {
        match profile_mask {
            EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT => Profile::Core,
            EGL_CONTEXT_OPENGL_COMPATIBILITY_PROFILE_BIT => Profile::Compatibility,
            _ => {
                return Err(EglError::new(
                    EGL_BAD_MATCH,
                    "profile mask must name exactly one of core, compatibility",
                ))
            }
        }
    } else {
        Profile::Compatibility
    };
    Ok(ContextAttribs {
        major: major as u32,
        minor: minor as u32,
        profile,
        debug: flags & FLAG_DEBUG != 0,
        forward_compatible,
        robust: flags & FLAG_ROBUST != 0,
        api: Api::OpenGl,
    })
}

/// `eglCreateContext` attributes for an OpenGL ES context (EGL 1.5 §3.7.1,
/// EGL_KHR_create_context): ES 2.0 and 3.0–3.2.
pub fn parse_es_context_attribs(pairs: &[(EGLint, EGLint)]) -> Result<ContextAttribs, EglError> {
    let RawContextAttribs {
        major,
        minor,
        flags,
        ..
    } = scan_context_attribs(pairs, true)?;
    match (major, minor) {
        (2, 0) | (3, 0..=2) => {}
        (1, 0 | 1) => {
            return Err(EglError::new(
                EGL_BAD_MATCH,
                "OpenGL ES 1.x contexts are not supported (ES 2.0 and 3.x are)",
            ))
        }
        _ => return Err(EglError::new(EGL_BAD_MATCH, "not an OpenGL ES version")),
    }
    Ok(ContextAttribs {
        major: major as u32,
        minor: minor as u32,
        profile: Profile::Compatibility,
        debug: flags & FLAG_DEBUG != 0,
        forward_compatible: false,
        robust: flags & FLAG_ROBUST != 0,
        api: Api::OpenGlEs(major as u32, minor as u32),
    })
}

fn set_flag(flags: EGLint, bit: EGLint, on: bool) -> EGLint {
    if on {
        flags | bit
    } else {
        flags & !bit
    }
}

#[no_mangle]
pub unsafe extern "C" fn eglCreateContext(
    dpy: EGLDisplay,
    config: EGLConfig,
    share_context: EGLContext,
    attrib_list: *const EGLint,
) -> EGLContext {
    entry("eglCreateContext", NO_HANDLE, || {
        let dpy = handle(dpy);
        let mut reg = REGISTRY.lock();
        reg.initialized(dpy)?;
        let config_id = if handle(config) == EGL_NO_CONFIG_KHR {
            None
        } else {
            Some(config_of(config)?.id)
        };
        let api = state::thread().api;
        if !state::gl_like_api(api) {
            return Err(EglError::new(
                EGL_BAD_MATCH,
                "no client API bound: call eglBindAPI(EGL_OPENGL_API) first",
            ));
        }
        let share = if share_context.is_null() {
            None
        } else {
            Some(reg.context(dpy, handle(share_context))?.ctx.clone())
        };
        // SAFETY: EGL contract: null or an EGL_NONE-terminated list.
        let pairs = unsafe { read_attribs(attrib_list) }?;
        let attribs = if api == EGL_OPENGL_ES_API {
            parse_es_context_attribs(&pairs)?
        } else {
            parse_context_attribs(&pairs)?
        };
        let ctx = platform::create_context(&attribs, share.as_ref())?;
        let h = reg.mint();
        reg.contexts.insert(
            h,
            ContextRec {
                display: dpy,
                config_id,
                attribs,
                ctx,
                bound: None,
                doomed: false,
            },
        );
        Ok(to_ptr(h))
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglDestroyContext(dpy: EGLDisplay, ctx: EGLContext) -> EGLBoolean {
    entry("eglDestroyContext", FALSE, || {
        let mut reg = REGISTRY.lock();
        reg.initialized(handle(dpy))?;
        reg.context(handle(dpy), handle(ctx))?;
        reg.doom_context(handle(ctx));
        Ok(TRUE)
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglQueryContext(
    dpy: EGLDisplay,
    ctx: EGLContext,
    attribute: EGLint,
    value: *mut EGLint,
) -> EGLBoolean {
    entry("eglQueryContext", FALSE, || {
        let reg = REGISTRY.lock();
        reg.initialized(handle(dpy))?;
        let c = reg.context(handle(dpy), handle(ctx))?;
        let v = match attribute {
            EGL_CONFIG_ID => c.config_id.unwrap_or(0),
            EGL_CONTEXT_CLIENT_TYPE => match c.attribs.api {
                Api::OpenGl => EGL_OPENGL_API,
                Api::OpenGlEs(..) => EGL_OPENGL_ES_API,
            },
            EGL_CONTEXT_CLIENT_VERSION => match c.attribs.api {
                Api::OpenGl => c.attribs.major as EGLint,
                Api::OpenGlEs(major, _) => major as EGLint,
            },
            EGL_RENDER_BUFFER => {
                let t = state::thread();
                if c.bound.is_some() && t.context == handle(ctx) && t.draw != 0 {
                    EGL_BACK_BUFFER
                } else {
                    EGL_NONE
                }
            }
            _ => return Err(EglError::new(EGL_BAD_ATTRIBUTE, "not a context attribute")),
        };
        // SAFETY: out-pointer from the caller.
        unsafe { write_out(value, v) }?;
        Ok(TRUE)
    })
}

/// Release whatever the calling thread has current (registry side).
fn unbind_thread(reg: &mut state::Registry) {
    let t = state::thread();
    if t.context != 0 {
        reg.unbind_context(t.context);
    }
    for s in [t.draw, t.read] {
        if s != 0 {
            reg.unbind_surface(s);
        }
    }
    state::update_thread(|t| {
        t.display = 0;
        t.context = 0;
        t.draw = 0;
        t.read = 0;
    });
}

#[no_mangle]
pub unsafe extern "C" fn eglMakeCurrent(
    dpy: EGLDisplay,
    draw: EGLSurface,
    read: EGLSurface,
    ctx: EGLContext,
) -> EGLBoolean {
    entry("eglMakeCurrent", FALSE, || {
        let (dpy, draw, read, ctx) = (handle(dpy), handle(draw), handle(read), handle(ctx));
        let me = std::thread::current().id();
        let mut reg = REGISTRY.lock();
        reg.display(dpy)?;
        if ctx == 0 {
            // Release: allowed on an uninitialised (terminated) display.
            if draw != 0 || read != 0 {
                return Err(EglError::new(
                    EGL_BAD_MATCH,
                    "surfaces given without a context",
                ));
            }
            if state::thread().context != 0 {
                platform::make_current(None, None, None)?;
            }
            unbind_thread(&mut reg);
            return Ok(TRUE);
        }
        reg.initialized(dpy)?;
        let c = reg.context(dpy, ctx)?;
        if c.bound.is_some_and(|t| t != me) {
            return Err(EglError::new(
                EGL_BAD_ACCESS,
                "context is current to another thread",
            ));
        }
        let ctx_ref = c.ctx.clone();
        if (draw == 0) != (read == 0) {
            return Err(EglError::new(
                EGL_BAD_MATCH,
                "draw and read must both be EGL_NO_SURFACE or both surfaces",
            ));
        }
        let mut surfs = Vec::new();
        for s in [draw, read] {
            if s == 0 {
                continue;
            }
            let rec = reg.surface(dpy, s)?;
            if rec.bound.is_some_and(|t| t != me) {
                return Err(EglError::new(
                    EGL_BAD_ACCESS,
                    "surface is current to another thread",
                ));
            }
            surfs.push(rec.surf.clone());
        }
        let (d, r) = (surfs.first(), surfs.get(1));
        platform::make_current(Some(&ctx_ref), d, r)?;
        unbind_thread(&mut reg);
        if let Some(c) = reg.contexts.get_mut(&ctx) {
            c.bound = Some(me);
        }
        for s in [draw, read] {
            if let Some(rec) = reg.surfaces.get_mut(&s) {
                rec.bound = Some(me);
            }
        }
        state::update_thread(|t| {
            t.display = dpy;
            t.context = ctx;
            t.draw = draw;
            t.read = read;
        });
        Ok(TRUE)
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglGetCurrentContext() -> EGLContext {
    entry("eglGetCurrentContext", NO_HANDLE, || {
        Ok(to_ptr(state::thread().context))
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglGetCurrentDisplay() -> EGLDisplay {
    entry("eglGetCurrentDisplay", NO_HANDLE, || {
        Ok(to_ptr(state::thread().display))
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglGetCurrentSurface(readdraw: EGLint) -> EGLSurface {
    entry("eglGetCurrentSurface", NO_HANDLE, || {
        let t = state::thread();
        match readdraw {
            EGL_DRAW => Ok(to_ptr(t.draw)),
            EGL_READ => Ok(to_ptr(t.read)),
            _ => Err(EglError::new(
                EGL_BAD_PARAMETER,
                "readdraw must be EGL_DRAW or EGL_READ",
            )),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglReleaseThread() -> EGLBoolean {
    entry("eglReleaseThread", FALSE, || {
        let mut reg = REGISTRY.lock();
        if state::thread().context != 0 {
            if let Err(e) = platform::make_current(None, None, None) {
                tracing::warn!(target: "mobilegl::egl", "eglReleaseThread: releasing the context failed: {e}");
            }
        }
        unbind_thread(&mut reg);
        state::update_thread(|t| t.api = EGL_NONE);
        Ok(TRUE)
    })
}

/// The implemented `glFinish`, when a context is current.
fn finish_current() {
    if state::thread().context == 0 {
        return;
    }
    if let Some(finish) = crate::exports::GL_FINISH {
        // SAFETY: `glFinish` takes no arguments; a context is current.
        unsafe { finish() };
    }
}

#[no_mangle]
pub unsafe extern "C" fn eglWaitClient() -> EGLBoolean {
    entry("eglWaitClient", FALSE, || {
        finish_current();
        Ok(TRUE)
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglWaitGL() -> EGLBoolean {
    entry("eglWaitGL", FALSE, || {
        finish_current();
        Ok(TRUE)
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglWaitNative(engine: EGLint) -> EGLBoolean {
    entry("eglWaitNative", FALSE, || {
        if engine != EGL_CORE_NATIVE_ENGINE {
            return Err(EglError::new(EGL_BAD_PARAMETER, "unknown native engine"));
        }
        Ok(TRUE)
    })
}

// ---------------------------------------------------------------------------
// Surfaces
// ---------------------------------------------------------------------------

fn create_pbuffer(
    dpy: usize,
    config: EGLConfig,
    pairs: &[(EGLint, EGLint)],
) -> Result<EGLSurface, EglError> {
    let mut reg = REGISTRY.lock();
    reg.initialized(dpy)?;
    let c = config_of(config)?;
    if c.surface_type() & EGL_PBUFFER_BIT == 0 {
        return Err(EglError::new(
            EGL_BAD_MATCH,
            "config does not support pbuffers",
        ));
    }
    let (mut width, mut height, mut largest) = (0, 0, false);
    for &(name, value) in pairs {
        match name {
            EGL_WIDTH => width = value,
            EGL_HEIGHT => height = value,
            EGL_LARGEST_PBUFFER => largest = egl_bool(value)?,
            EGL_GL_COLORSPACE => {
                if value != EGL_GL_COLORSPACE_LINEAR {
                    return Err(EglError::new(
                        EGL_BAD_MATCH,
                        "only EGL_GL_COLORSPACE_LINEAR surfaces are supported",
                    ));
                }
            }
            EGL_TEXTURE_FORMAT | EGL_TEXTURE_TARGET | EGL_MIPMAP_TEXTURE => {
                // EGL 1.5 §3.5.2: texture attributes need an OpenGL ES config.
                return Err(EglError::new(
                    EGL_BAD_ATTRIBUTE,
                    "texture binding attributes need an OpenGL ES config",
                ));
            }
            // OpenVG-only attributes: accepted and ignored.
            EGL_VG_COLORSPACE | EGL_VG_ALPHA_FORMAT => {}
            _ => {
                return Err(EglError::new(
                    EGL_BAD_ATTRIBUTE,
                    "unknown pbuffer attribute",
                ))
            }
        }
    }
    if width < 0 || height < 0 {
        return Err(EglError::new(EGL_BAD_PARAMETER, "negative pbuffer size"));
    }
    if width > config::MAX_PBUFFER_SIDE || height > config::MAX_PBUFFER_SIDE {
        if !largest {
            return Err(EglError::new(
                EGL_BAD_ALLOC,
                "pbuffer larger than EGL_MAX_PBUFFER_WIDTH/HEIGHT",
            ));
        }
        width = width.min(config::MAX_PBUFFER_SIDE);
        height = height.min(config::MAX_PBUFFER_SIDE);
    }
    let desc = SurfaceDesc {
        width: width as u32,
        height: height as u32,
        color_format: c.color_format(),
        depth_stencil_format: c.depth_stencil_format(),
        samples: 0,
    };
    let surf = platform::create_surface(&desc)?;
    let h = reg.mint();
    reg.surfaces.insert(
        h,
        SurfaceRec {
            display: dpy,
            config_id: c.id,
            width,
            height,
            largest,
            surf,
            bound: None,
            doomed: false,
        },
    );
    Ok(to_ptr(h))
}

#[no_mangle]
pub unsafe extern "C" fn eglCreatePbufferSurface(
    dpy: EGLDisplay,
    config: EGLConfig,
    attrib_list: *const EGLint,
) -> EGLSurface {
    entry("eglCreatePbufferSurface", NO_HANDLE, || {
        // SAFETY: EGL contract: null or an EGL_NONE-terminated list.
        let pairs = unsafe { read_attribs(attrib_list) }?;
        create_pbuffer(handle(dpy), config, &pairs)
    })
}

/// Native windows are not supported yet (surfaceless and pbuffers only).
fn refuse_window(dpy: EGLDisplay, config: EGLConfig) -> Result<EGLSurface, EglError> {
    REGISTRY.lock().initialized(handle(dpy))?;
    config_of(config)?;
    tracing::warn!(target: "mobilegl::egl", "window surfaces are not supported yet: use a pbuffer or EGL_KHR_surfaceless_context");
    Err(EglError::new(
        EGL_BAD_NATIVE_WINDOW,
        "window surfaces are not supported yet",
    ))
}

/// Native pixmaps: none of our configs has EGL_PIXMAP_BIT.
fn refuse_pixmap(dpy: EGLDisplay, config: EGLConfig) -> Result<EGLSurface, EglError> {
    REGISTRY.lock().initialized(handle(dpy))?;
    config_of(config)?;
    Err(EglError::new(
        EGL_BAD_MATCH,
        "no config supports pixmap surfaces",
    ))
}

#[no_mangle]
pub unsafe extern "C" fn eglCreateWindowSurface(
    dpy: EGLDisplay,
    config: EGLConfig,
    _win: EGLNativeWindowType,
    _attrib_list: *const EGLint,
) -> EGLSurface {
    entry("eglCreateWindowSurface", NO_HANDLE, || {
        refuse_window(dpy, config)
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglCreatePlatformWindowSurface(
    dpy: EGLDisplay,
    config: EGLConfig,
    _native_window: *mut c_void,
    _attrib_list: *const EGLAttrib,
) -> EGLSurface {
    entry("eglCreatePlatformWindowSurface", NO_HANDLE, || {
        refuse_window(dpy, config)
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglCreatePlatformWindowSurfaceEXT(
    dpy: EGLDisplay,
    config: EGLConfig,
    _native_window: *mut c_void,
    _attrib_list: *const EGLint,
) -> EGLSurface {
    entry("eglCreatePlatformWindowSurfaceEXT", NO_HANDLE, || {
        refuse_window(dpy, config)
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglCreatePixmapSurface(
    dpy: EGLDisplay,
    config: EGLConfig,
    _pixmap: EGLNativePixmapType,
    _attrib_list: *const EGLint,
) -> EGLSurface {
    entry("eglCreatePixmapSurface", NO_HANDLE, || {
        refuse_pixmap(dpy, config)
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglCreatePlatformPixmapSurface(
    dpy: EGLDisplay,
    config: EGLConfig,
    _native_pixmap: *mut c_void,
    _attrib_list: *const EGLAttrib,
) -> EGLSurface {
    entry("eglCreatePlatformPixmapSurface", NO_HANDLE, || {
        refuse_pixmap(dpy, config)
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglCreatePlatformPixmapSurfaceEXT(
    dpy: EGLDisplay,
    config: EGLConfig,
    _native_pixmap: *mut c_void,
    _attrib_list: *const EGLint,
) -> EGLSurface {
    entry("eglCreatePlatformPixmapSurfaceEXT", NO_HANDLE, || {
        refuse_pixmap(dpy, config)
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglCreatePbufferFromClientBuffer(
    dpy: EGLDisplay,
    _buftype: EGLenum,
    _buffer: EGLClientBuffer,
    _config: EGLConfig,
    _attrib_list: *const EGLint,
) -> EGLSurface {
    entry("eglCreatePbufferFromClientBuffer", NO_HANDLE, || {
        REGISTRY.lock().initialized(handle(dpy))?;
        Err(EglError::new(
            EGL_BAD_PARAMETER,
            "no client buffer types are supported",
        ))
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglDestroySurface(dpy: EGLDisplay, surface: EGLSurface) -> EGLBoolean {
    entry("eglDestroySurface", FALSE, || {
        let mut reg = REGISTRY.lock();
        reg.initialized(handle(dpy))?;
        reg.surface(handle(dpy), handle(surface))?;
        reg.doom_surface(handle(surface));
        Ok(TRUE)
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglQuerySurface(
    dpy: EGLDisplay,
    surface: EGLSurface,
    attribute: EGLint,
    value: *mut EGLint,
) -> EGLBoolean {
    entry("eglQuerySurface", FALSE, || {
        let reg = REGISTRY.lock();
        reg.initialized(handle(dpy))?;
        let s = reg.surface(handle(dpy), handle(surface))?;
        let v = match attribute {
            // The live size: a backend may resize a surface (on_surface_changed).
            EGL_WIDTH => s.surf.size().0 as EGLint,
            EGL_HEIGHT => s.surf.size().1 as EGLint,
            EGL_CONFIG_ID => s.config_id,
            EGL_LARGEST_PBUFFER => s.largest as EGLint,
            EGL_TEXTURE_FORMAT | EGL_TEXTURE_TARGET => EGL_NO_TEXTURE,
            EGL_MIPMAP_TEXTURE | EGL_MIPMAP_LEVEL => 0,
            EGL_RENDER_BUFFER => EGL_BACK_BUFFER,
            EGL_SWAP_BEHAVIOR => EGL_BUFFER_DESTROYED,
            EGL_MULTISAMPLE_RESOLVE => EGL_MULTISAMPLE_RESOLVE_DEFAULT,
            EGL_HORIZONTAL_RESOLUTION | EGL_VERTICAL_RESOLUTION | EGL_PIXEL_ASPECT_RATIO => {
                EGL_UNKNOWN
            }
            EGL_GL_COLORSPACE => EGL_GL_COLORSPACE_LINEAR,
            EGL_VG_COLORSPACE => EGL_VG_COLORSPACE_LINEAR,
            EGL_VG_ALPHA_FORMAT => EGL_VG_ALPHA_FORMAT_NONPRE,
            _ => return Err(EglError::new(EGL_BAD_ATTRIBUTE, "not a surface attribute")),
        };
        // SAFETY: out-pointer from the caller.
        unsafe { write_out(value, v) }?;
        Ok(TRUE)
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglSurfaceAttrib(
    dpy: EGLDisplay,
    surface: EGLSurface,
    attribute: EGLint,
    value: EGLint,
) -> EGLBoolean {
    entry("eglSurfaceAttrib", FALSE, || {
        let reg = REGISTRY.lock();
        reg.initialized(handle(dpy))?;
        reg.surface(handle(dpy), handle(surface))?;
        match (attribute, value) {
            (EGL_SWAP_BEHAVIOR, EGL_BUFFER_DESTROYED)
            | (EGL_MULTISAMPLE_RESOLVE, EGL_MULTISAMPLE_RESOLVE_DEFAULT) => Ok(TRUE),
            (EGL_MIPMAP_LEVEL, _) => Ok(TRUE),
            (EGL_SWAP_BEHAVIOR, EGL_BUFFER_PRESERVED) => Err(EglError::new(
                EGL_BAD_MATCH,
                "no config has EGL_SWAP_BEHAVIOR_PRESERVED_BIT",
            )),
            (EGL_MULTISAMPLE_RESOLVE, EGL_MULTISAMPLE_RESOLVE_BOX) => Err(EglError::new(
                EGL_BAD_MATCH,
                "no config has EGL_MULTISAMPLE_RESOLVE_BOX_BIT",
            )),
            (EGL_SWAP_BEHAVIOR, _) | (EGL_MULTISAMPLE_RESOLVE, _) => Err(EglError::new(
                EGL_BAD_PARAMETER,
                "bad value for a surface attribute",
            )),
            _ => Err(EglError::new(
                EGL_BAD_ATTRIBUTE,
                "not a settable surface attribute",
            )),
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglBindTexImage(
    dpy: EGLDisplay,
    surface: EGLSurface,
    _buffer: EGLint,
) -> EGLBoolean {
    entry("eglBindTexImage", FALSE, || {
        let reg = REGISTRY.lock();
        reg.initialized(handle(dpy))?;
        reg.surface(handle(dpy), handle(surface))?;
        Err(EglError::new(
            EGL_BAD_MATCH,
            "surface has EGL_TEXTURE_FORMAT EGL_NO_TEXTURE",
        ))
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglReleaseTexImage(
    dpy: EGLDisplay,
    surface: EGLSurface,
    _buffer: EGLint,
) -> EGLBoolean {
    entry("eglReleaseTexImage", FALSE, || {
        let reg = REGISTRY.lock();
        reg.initialized(handle(dpy))?;
        reg.surface(handle(dpy), handle(surface))?;
        Err(EglError::new(
            EGL_BAD_MATCH,
            "surface has EGL_TEXTURE_FORMAT EGL_NO_TEXTURE",
        ))
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglSwapBuffers(dpy: EGLDisplay, surface: EGLSurface) -> EGLBoolean {
    entry("eglSwapBuffers", FALSE, || {
        let reg = REGISTRY.lock();
        reg.initialized(handle(dpy))?;
        let s = reg.surface(handle(dpy), handle(surface))?;
        let t = state::thread();
        if t.context == 0 || t.draw != handle(surface) {
            return Err(EglError::new(
                EGL_BAD_SURFACE,
                "surface is not the calling thread's current draw surface",
            ));
        }
        platform::swap_buffers(&s.surf)?;
        Ok(TRUE)
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglSwapInterval(dpy: EGLDisplay, _interval: EGLint) -> EGLBoolean {
    entry("eglSwapInterval", FALSE, || {
        REGISTRY.lock().initialized(handle(dpy))?;
        let t = state::thread();
        if t.context == 0 {
            return Err(EglError::new(EGL_BAD_CONTEXT, "no current context"));
        }
        // Pbuffers do not present: any interval is accepted and has no effect.
        Ok(TRUE)
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglCopyBuffers(
    dpy: EGLDisplay,
    surface: EGLSurface,
    _target: EGLNativePixmapType,
) -> EGLBoolean {
    entry("eglCopyBuffers", FALSE, || {
        let reg = REGISTRY.lock();
        reg.initialized(handle(dpy))?;
        reg.surface(handle(dpy), handle(surface))?;
        Err(EglError::new(
            EGL_BAD_NATIVE_PIXMAP,
            "native pixmaps are not supported",
        ))
    })
}

// ---------------------------------------------------------------------------
// Images: not supported yet (no EGL image extensions are advertised; the
// EGL 1.5 entry points exist and refuse). Sync objects: `sync.rs`.
// ---------------------------------------------------------------------------

#[no_mangle]
pub unsafe extern "C" fn eglCreateImage(
    dpy: EGLDisplay,
    _ctx: EGLContext,
    _target: EGLenum,
    _buffer: EGLClientBuffer,
    _attrib_list: *const EGLAttrib,
) -> EGLImage {
    entry("eglCreateImage", NO_HANDLE, || {
        REGISTRY.lock().initialized(handle(dpy))?;
        Err(EglError::new(
            EGL_BAD_PARAMETER,
            "EGLImage targets are not supported yet",
        ))
    })
}

#[no_mangle]
pub unsafe extern "C" fn eglDestroyImage(dpy: EGLDisplay, _image: EGLImage) -> EGLBoolean {
    entry("eglDestroyImage", FALSE, || {
        REGISTRY.lock().initialized(handle(dpy))?;
        Err(EglError::new(
            EGL_BAD_PARAMETER,
            "not an EGLImage (images are not supported yet)",
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn es_context_attribs() {
        let es = |p: &[(EGLint, EGLint)]| parse_es_context_attribs(p).map(|a| a.api);
        let code = |p: &[(EGLint, EGLint)]| parse_es_context_attribs(p).err().map(|e| e.code);
        assert_eq!(
            es(&[(EGL_CONTEXT_CLIENT_VERSION, 2)]).ok(),
            Some(Api::OpenGlEs(2, 0))
        );
        assert_eq!(
            es(&[
                (EGL_CONTEXT_MAJOR_VERSION, 3),
                (EGL_CONTEXT_MINOR_VERSION, 1)
            ])
            .ok(),
            Some(Api::OpenGlEs(3, 1))
        );
        // The default is ES 1.0, which we do not make.
        assert_eq!(code(&[]), Some(EGL_BAD_MATCH));
        assert_eq!(
            code(&[(EGL_CONTEXT_CLIENT_VERSION, 4)]),
            Some(EGL_BAD_MATCH)
        );
        assert_eq!(
            code(&[
                (EGL_CONTEXT_MAJOR_VERSION, 3),
                (EGL_CONTEXT_MINOR_VERSION, 3)
            ]),
            Some(EGL_BAD_MATCH)
        );
        // Desktop-only attributes.
        assert_eq!(
            code(&[
                (EGL_CONTEXT_CLIENT_VERSION, 3),
                (
                    EGL_CONTEXT_OPENGL_PROFILE_MASK,
                    EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT
                )
            ]),
            Some(EGL_BAD_ATTRIBUTE)
        );
        assert_eq!(
            code(&[
                (EGL_CONTEXT_CLIENT_VERSION, 3),
                (EGL_CONTEXT_FLAGS_KHR, FLAG_FORWARD)
            ]),
            Some(EGL_BAD_ATTRIBUTE)
        );
    }

    #[test]
    fn context_attribs_defaults_and_profiles() {
        let a = parse_context_attribs(&[]).ok();
        assert_eq!(a, Some(ContextAttribs::default()));
        let core = parse_context_attribs(&[
            (EGL_CONTEXT_MAJOR_VERSION, 4),
            (EGL_CONTEXT_MINOR_VERSION, 5),
        ])
        .ok();
        assert_eq!(core.map(|a| a.profile), Some(Profile::Core));
        let compat = parse_context_attribs(&[
            (EGL_CONTEXT_MAJOR_VERSION, 3),
            (EGL_CONTEXT_MINOR_VERSION, 3),
            (
                EGL_CONTEXT_OPENGL_PROFILE_MASK,
                EGL_CONTEXT_OPENGL_COMPATIBILITY_PROFILE_BIT,
            ),
            (EGL_CONTEXT_FLAGS_KHR, FLAG_DEBUG | FLAG_FORWARD),
        ])
        .ok();
        assert_eq!(
            compat.map(|a| (a.profile, a.debug, a.forward_compatible)),
            Some((Profile::Compatibility, true, true))
        );
    }

    #[test]
    fn context_attrib_errors() {
        let code = |p: &[(EGLint, EGLint)]| parse_context_attribs(p).err().map(|e| e.code);
        assert_eq!(
            code(&[
                (EGL_CONTEXT_MAJOR_VERSION, 3),
                (EGL_CONTEXT_MINOR_VERSION, 4)
            ]),
            Some(EGL_BAD_MATCH)
        );
        assert_eq!(
            code(&[
                (EGL_CONTEXT_MAJOR_VERSION, 2),
                (EGL_CONTEXT_FLAGS_KHR, FLAG_FORWARD)
            ]),
            Some(EGL_BAD_MATCH)
        );
        assert_eq!(
            code(&[(EGL_CONTEXT_FLAGS_KHR, 0x100)]),
            Some(EGL_BAD_ATTRIBUTE)
        );
        assert_eq!(code(&[(0x1234, 0)]), Some(EGL_BAD_ATTRIBUTE));
        assert_eq!(
            code(&[
                (EGL_CONTEXT_MAJOR_VERSION, 4),
                (EGL_CONTEXT_OPENGL_PROFILE_MASK, 3)
            ]),
            Some(EGL_BAD_MATCH)
        );
    }
}
