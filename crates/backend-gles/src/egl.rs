//! The native EGL, loaded explicitly and isolated from our own exported
//! `egl*` / `gl*` symbols (DESIGN §5).

use std::ffi::c_void;

use khronos_egl as egl;
use tracing::{debug, info, warn};

use crate::GlesError;

pub(crate) type EglInstance = egl::DynamicInstance<egl::EGL1_4>;

const EGL_PLATFORM_SURFACELESS_MESA: egl::Enum = 0x31DD;
const EGL_CONTEXT_MAJOR_VERSION: egl::Int = 0x3098;
const EGL_CONTEXT_MINOR_VERSION: egl::Int = 0x30FB;
const EGL_OPENGL_ES3_BIT: egl::Int = 0x0040;

/// The native EGL display, config and the root context every server
/// context shares with.
pub(crate) struct Egl {
    pub inst: EglInstance,
    pub display: egl::Display,
    pub config: egl::Config,
    /// EGL_KHR_surfaceless_context; otherwise `pbuffer` is made current.
    pub pbuffer: Option<egl::Surface>,
    /// The context that holds the share group and is current whenever no
    /// client context is.
    pub root: egl::Context,
    /// GLES minor version the contexts were created with (3.x).
    pub minor: i32,
    /// Fallback symbol source when eglGetProcAddress returns null for core
    /// entry points (pre-EGL-1.5 drivers).
    gles_lib: Option<libloading::Library>,
}

fn open_isolated(path: &str) -> Result<libloading::Library, libloading::Error> {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    let flags = libc::RTLD_NOW | libc::RTLD_LOCAL | libc::RTLD_DEEPBIND;
    // bionic and musl have no RTLD_DEEPBIND; Android's linker namespaces
    // keep the vendor driver apart instead.
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let flags = libc::RTLD_NOW | libc::RTLD_LOCAL;
    // SAFETY: loading a shared library runs its initialisers; the path is the
    // platform EGL the operator pointed us at, and DEEPBIND keeps its symbol
    // lookups inside its own dependency tree (never our exported egl*/gl*).
    let lib = unsafe { libloading::os::unix::Library::open(Some(path), flags)? };
    Ok(lib.into())
}

impl Egl {
    pub fn load(path: &str) -> Result<Egl, GlesError> {
        let lib = open_isolated(path).map_err(|e| GlesError::EglLoad {
            path: path.to_string(),
            detail: e.to_string(),
        })?;
        // SAFETY: `lib` is an EGL implementation (checked by the symbol loads
        // inside); the instance owns it, so the symbols outlive their use.
        let inst =
            unsafe { EglInstance::load_required_from(lib) }.map_err(|e| GlesError::EglLoad {
                path: path.to_string(),
                detail: format!("{e:?}"),
            })?;

        let client_ext = inst
            .query_string(None, egl::EXTENSIONS)
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        debug!(client_ext = %client_ext, "native EGL client extensions");
        let display = Self::display(&inst, &client_ext)?;
        let (major, egl_minor) = inst
            .initialize(display)
            .map_err(|e| GlesError::Initialize {
                detail: e.to_string(),
            })?;
        let vendor = inst
            .query_string(Some(display), egl::VENDOR)
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        info!(path, egl_version = %format!("{major}.{egl_minor}"), vendor = %vendor, "native EGL initialised");

        inst.bind_api(egl::OPENGL_ES_API)
            .map_err(|e| GlesError::ContextCreate {
                detail: format!("eglBindAPI: {e}"),
            })?;
        let display_ext = inst
            .query_string(Some(display), egl::EXTENSIONS)
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let surfaceless = display_ext
            .split(' ')
            .any(|e| e == "EGL_KHR_surfaceless_context");

        let config = Self::choose_config(&inst, display, surfaceless)?;
        let (root, minor) = Self::create_context_versioned(&inst, display, config, None)?;
        let pbuffer = if surfaceless {
            None
        } else {
            let attrs = [egl::WIDTH, 1, egl::HEIGHT, 1, egl::NONE];
            let s = inst
                .create_pbuffer_surface(display, config, &attrs)
                .map_err(|e| GlesError::ContextCreate {
                    detail: format!("1x1 pbuffer: {e}"),
                })?;
            info!("EGL_KHR_surfaceless_context absent: contexts use a 1x1 pbuffer");
            Some(s)
        };
        let mut this = Egl {
            inst,
            display,
            config,
            pbuffer,
            root,
            minor,
            gles_lib: None,
        };
        this.make_current(root)
            .map_err(|e| GlesError::MakeCurrent {
                detail: e.to_string(),
            })?;
        // A sibling libGLESv2 only for drivers that may hand out nothing but
        // extension entry points through eglGetProcAddress (EGL < 1.5
        // without EGL_KHR_get_all_proc_addresses). Not otherwise: once
        // loaded, its soname "libGLESv2.so.2" would answer an OpenGL ES
        // application's own dlopen("libGLESv2.so.2") with the native library
        // instead of MobileGL (waffle does that for ES contexts).
        let display_ext = this
            .inst
            .query_string(Some(display), egl::EXTENSIONS)
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let all_procs = (major, egl_minor) >= (1, 5)
            || display_ext
                .split(' ')
                .chain(client_ext.split(' '))
                .any(|e| {
                    e == "EGL_KHR_get_all_proc_addresses"
                        || e == "EGL_KHR_client_get_all_proc_addresses"
                });
        let gles_path = std::path::Path::new(path).with_file_name("libGLESv2.so.2");
        if let (false, Some(p)) = (all_procs, gles_path.to_str()) {
            if gles_path.exists() {
                this.gles_lib = open_isolated(p).ok();
            }
        }
        Ok(this)
    }

    fn display(inst: &EglInstance, client_ext: &str) -> Result<egl::Display, GlesError> {
        let has = |name: &str| client_ext.split(' ').any(|e| e == name);
        if has("EGL_MESA_platform_surfaceless") {
            if let Some(i15) = inst.upcast::<egl::EGL1_5>() {
                // SAFETY: the surfaceless platform takes EGL_DEFAULT_DISPLAY as
                // its native display; the attribute list is NONE-terminated.
                match unsafe {
                    i15.get_platform_display(
                        EGL_PLATFORM_SURFACELESS_MESA,
                        egl::DEFAULT_DISPLAY,
                        &[egl::ATTRIB_NONE],
                    )
                } {
                    Ok(d) => return Ok(d),
                    Err(e) => warn!("eglGetPlatformDisplay(surfaceless) failed: {e}"),
                }
            } else if let Some(f) = inst.get_proc_address("eglGetPlatformDisplayEXT") {
                type GetPlatformDisplayExt = unsafe extern "system" fn(
                    egl::Enum,
                    *mut c_void,
                    *const egl::Int,
                )
                    -> egl::EGLDisplay;
                // SAFETY: eglGetPlatformDisplayEXT has exactly this signature
                // (EGL_EXT_platform_base).
                let f: GetPlatformDisplayExt = unsafe {
                    std::mem::transmute::<extern "system" fn(), GetPlatformDisplayExt>(f)
                };
                let attrs = [egl::NONE];
                // SAFETY: valid platform enum, default native display, NONE-terminated attributes.
                let d = unsafe {
                    f(
                        EGL_PLATFORM_SURFACELESS_MESA,
                        std::ptr::null_mut(),
                        attrs.as_ptr(),
                    )
                };
                if !d.is_null() {
                    // SAFETY: a non-null EGLDisplay returned by the driver.
                    return Ok(unsafe { egl::Display::from_ptr(d) });
                }
            }
        }
        // SAFETY: EGL_DEFAULT_DISPLAY is always a valid argument (Android path).
        unsafe { inst.get_display(egl::DEFAULT_DISPLAY) }.ok_or(GlesError::NoDisplay)
    }

    fn choose_config(
        inst: &EglInstance,
        display: egl::Display,
        surfaceless: bool,
    ) -> Result<egl::Config, GlesError> {
        let surface_type = if surfaceless { 0 } else { egl::PBUFFER_BIT };
        let tries = [
            [
                egl::RENDERABLE_TYPE,
                EGL_OPENGL_ES3_BIT,
                egl::SURFACE_TYPE,
                surface_type,
                egl::NONE,
            ],
            [
                egl::RENDERABLE_TYPE,
                egl::OPENGL_ES2_BIT,
                egl::SURFACE_TYPE,
                surface_type,
                egl::NONE,
            ],
        ];
        for attrs in tries {
            if let Ok(Some(c)) = inst.choose_first_config(display, &attrs) {
                return Ok(c);
            }
        }
        Err(GlesError::NoConfig)
    }

    fn create_context_versioned(
        inst: &EglInstance,
        display: egl::Display,
        config: egl::Config,
        share: Option<egl::Context>,
    ) -> Result<(egl::Context, i32), GlesError> {
        let mut last = String::new();
        for minor in [2, 1, 0] {
            let attrs = [
                EGL_CONTEXT_MAJOR_VERSION,
                3,
                EGL_CONTEXT_MINOR_VERSION,
                minor,
                egl::NONE,
            ];
            match inst.create_context(display, config, share, &attrs) {
                Ok(c) => return Ok((c, minor)),
                Err(e) => last = format!("GLES 3.{minor}: {e}"),
            }
        }
        Err(GlesError::ContextCreate { detail: last })
    }

    /// A new context in the root's share group, same GLES version.
    pub fn create_context(&self) -> Result<egl::Context, GlesError> {
        // eglBindAPI is per thread.
        let _ = self.inst.bind_api(egl::OPENGL_ES_API);
        let attrs = [
            EGL_CONTEXT_MAJOR_VERSION,
            3,
            EGL_CONTEXT_MINOR_VERSION,
            self.minor,
            egl::NONE,
        ];
        self.inst
            .create_context(self.display, self.config, Some(self.root), &attrs)
            .map_err(|e| GlesError::ContextCreate {
                detail: e.to_string(),
            })
    }

    pub fn make_current(&self, ctx: egl::Context) -> Result<(), egl::Error> {
        self.inst
            .make_current(self.display, self.pbuffer, self.pbuffer, Some(ctx))
    }

    pub fn destroy_context(&self, ctx: egl::Context) {
        if let Err(e) = self.inst.destroy_context(self.display, ctx) {
            warn!("eglDestroyContext: {e}");
        }
    }

    /// GL entry point through the native eglGetProcAddress (then the sibling
    /// libGLESv2 for core symbols old drivers do not hand out).
    pub fn proc_address(&self, name: &str) -> *const c_void {
        if let Some(f) = self.inst.get_proc_address(name) {
            return f as *const c_void;
        }
        if let Some(lib) = &self.gles_lib {
            let mut sym = name.as_bytes().to_vec();
            sym.push(0);
            // SAFETY: we only read the symbol's address; glow casts it to the
            // GL signature of that name.
            if let Ok(s) = unsafe { lib.get::<*const c_void>(&sym) } {
                return *s;
            }
        }
        std::ptr::null()
    }

    pub fn release(&self) {
        let _ = self.inst.make_current(self.display, None, None, None);
    }
}

impl Drop for Egl {
    fn drop(&mut self) {
        // The display is process-wide and may be used by another backend in
        // this process: release and destroy what we made, never terminate.
        self.release();
        if let Some(p) = self.pbuffer.take() {
            let _ = self.inst.destroy_surface(self.display, p);
        }
        self.destroy_context(self.root);
    }
}
