//! Process-wide EGL objects and per-thread EGL state.
//!
//! Every EGLDisplay / EGLContext / EGLSurface handed to the application is an
//! opaque number minted here and kept in a registry; an incoming handle is
//! only ever looked up, never dereferenced, so a stale or garbage handle
//! becomes the right `EGL_BAD_*` error instead of undefined behaviour.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::thread::ThreadId;

use parking_lot::Mutex;

use super::consts::*;
use super::EglError;
use crate::platform::{self, ContextAttribs, ContextRef, SurfaceRef};

/// First minted context/surface/display handle, and the step between two.
/// Stays within 32 bits so that the same scheme works on 32-bit targets.
const FIRST_HANDLE: usize = 0x5047_0000;
const HANDLE_STEP: usize = 0x10;

#[derive(Debug)]
pub struct DisplayRec {
    /// EGL_PLATFORM_SURFACELESS_MESA, or 0 for `eglGetDisplay`'s default.
    pub platform: i32,
    pub initialized: bool,
}

#[derive(Debug)]
pub struct ContextRec {
    pub display: usize,
    /// Config id, `None` for EGL_NO_CONFIG_KHR.
    pub config_id: Option<i32>,
    pub attribs: ContextAttribs,
    pub ctx: ContextRef,
    /// Thread it is current on.
    pub bound: Option<ThreadId>,
    /// eglDestroyContext / eglTerminate was called while it was current: it
    /// is invalid for the API and is freed when released.
    pub doomed: bool,
}

#[derive(Debug)]
pub struct SurfaceRec {
    pub display: usize,
    pub config_id: i32,
    pub width: i32,
    pub height: i32,
    pub largest: bool,
    pub surf: SurfaceRef,
    pub bound: Option<ThreadId>,
    pub doomed: bool,
}

/// An EGL fence sync: a GL fence in the share group of the context that
/// was current when it was made (`egl::sync`).
#[derive(Debug, Clone, Copy)]
pub struct SyncRec {
    pub display: usize,
    /// Index of the share group (`runtime::World::shares`, never reused).
    pub share: usize,
    /// The fence's id in that group's sync table (`gl::sync`).
    pub gl_sync: usize,
    /// Seen signaled once: it stays so.
    pub signaled: bool,
}

/// All live EGL objects of the process.
pub struct Registry {
    pub displays: BTreeMap<usize, DisplayRec>,
    pub contexts: BTreeMap<usize, ContextRec>,
    pub surfaces: BTreeMap<usize, SurfaceRec>,
    pub syncs: BTreeMap<usize, SyncRec>,
    next: usize,
}

pub static REGISTRY: Mutex<Registry> = Mutex::new(Registry::new());

impl Registry {
    const fn new() -> Self {
        Registry {
            displays: BTreeMap::new(),
            contexts: BTreeMap::new(),
            surfaces: BTreeMap::new(),
            syncs: BTreeMap::new(),
            next: FIRST_HANDLE,
        }
    }

    /// A fresh handle value, never reused within the process.
    pub fn mint(&mut self) -> usize {
        let h = self.next;
        self.next = self.next.wrapping_add(HANDLE_STEP);
        if self.next == 0 {
            self.next = FIRST_HANDLE;
        }
        h
    }

    /// The display for (platform, default native display), created on first
    /// request: repeated calls return the same EGLDisplay.
    pub fn display_for(&mut self, platform: i32) -> usize {
        if let Some((h, _)) = self.displays.iter().find(|(_, d)| d.platform == platform) {
            return *h;
        }
        let h = self.mint();
        self.displays.insert(
            h,
            DisplayRec {
                platform,
                initialized: false,
            },
        );
        h
    }

    pub fn display(&self, dpy: usize) -> Result<&DisplayRec, EglError> {
        self.displays.get(&dpy).ok_or(EglError::new(
            EGL_BAD_DISPLAY,
            "not an EGLDisplay of this library",
        ))
    }

    /// A valid, initialised display.
    pub fn initialized(&self, dpy: usize) -> Result<&DisplayRec, EglError> {
        let d = self.display(dpy)?;
        if !d.initialized {
            return Err(EglError::new(
                EGL_NOT_INITIALIZED,
                "display is not initialized",
            ));
        }
        Ok(d)
    }

    pub fn context(&self, dpy: usize, ctx: usize) -> Result<&ContextRec, EglError> {
        match self.contexts.get(&ctx) {
            Some(c) if c.display == dpy && !c.doomed => Ok(c),
            _ => Err(EglError::new(
                EGL_BAD_CONTEXT,
                "not a live EGLContext of this display",
            )),
        }
    }

    pub fn surface(&self, dpy: usize, surf: usize) -> Result<&SurfaceRec, EglError> {
        match self.surfaces.get(&surf) {
            Some(s) if s.display == dpy && !s.doomed => Ok(s),
            _ => Err(EglError::new(
                EGL_BAD_SURFACE,
                "not a live EGLSurface of this display",
            )),
        }
    }

    /// Mark a context unbound; free it if it was doomed.
    pub fn unbind_context(&mut self, h: usize) {
        let free = match self.contexts.get_mut(&h) {
            Some(c) => {
                c.bound = None;
                c.doomed
            }
            None => false,
        };
        if free {
            if let Some(c) = self.contexts.remove(&h) {
                platform::destroy_context(&c.ctx);
            }
        }
    }

    /// Mark a surface unbound; free it if it was doomed.
    pub fn unbind_surface(&mut self, h: usize) {
        let free = match self.surfaces.get_mut(&h) {
            Some(s) => {
                s.bound = None;
                s.doomed
            }
            None => false,
        };
        if free {
            if let Some(s) = self.surfaces.remove(&h) {
                platform::destroy_surface(&s.surf);
            }
        }
    }

    /// Destroy a context now, or when it stops being current.
    pub fn doom_context(&mut self, h: usize) {
        let now = match self.contexts.get_mut(&h) {
            Some(c) if c.bound.is_some() => {
                c.doomed = true;
                false
            }
            Some(_) => true,
            None => false,
        };
        if now {
            if let Some(c) = self.contexts.remove(&h) {
                platform::destroy_context(&c.ctx);
            }
        }
    }

    /// Destroy a surface now, or when it stops being current.
    pub fn doom_surface(&mut self, h: usize) {
        let now = match self.surfaces.get_mut(&h) {
            Some(s) if s.bound.is_some() => {
                s.doomed = true;
                false
            }
            Some(_) => true,
            None => false,
        };
        if now {
            if let Some(s) = self.surfaces.remove(&h) {
                platform::destroy_surface(&s.surf);
            }
        }
    }
}

/// What `eglGetCurrent*`, `eglQueryAPI` and `eglGetError` answer for the
/// calling thread.
#[derive(Clone, Copy, Debug)]
pub struct ThreadState {
    pub error: i32,
    pub api: i32,
    pub display: usize,
    pub context: usize,
    pub draw: usize,
    pub read: usize,
}

impl ThreadState {
    const INITIAL: ThreadState = ThreadState {
        error: EGL_SUCCESS,
        // EGL 1.5 §3.7: the initial API is EGL_OPENGL_ES_API when OpenGL ES
        // is supported (it is: ES 2.0 and 3.x contexts).
        api: EGL_OPENGL_ES_API,
        display: 0,
        context: 0,
        draw: 0,
        read: 0,
    };
}

/// Both client APIs we implement share one GL core and one current-context
/// slot per thread: either bound API reaches the current context.
pub fn gl_like_api(api: i32) -> bool {
    api == EGL_OPENGL_API || api == EGL_OPENGL_ES_API
}

thread_local! {
    static THREAD: Cell<ThreadState> = const { Cell::new(ThreadState::INITIAL) };
}

/// The calling thread's state (the initial state while the thread is being
/// torn down).
pub fn thread() -> ThreadState {
    THREAD.try_with(Cell::get).unwrap_or(ThreadState::INITIAL)
}

/// Update the calling thread's state; a no-op during thread teardown.
pub fn update_thread(f: impl FnOnce(&mut ThreadState)) {
    let _ = THREAD.try_with(|c| {
        let mut t = c.get();
        f(&mut t);
        c.set(t);
    });
}
