//! Process-wide runtime: logging, the transport connection, surfaces and
//! the one lock that guards all GL state.
//!
//! Every GL/EGL entry point takes the world lock once (`parking_lot`, no
//! poisoning), so a GL call from any thread sees a consistent share group
//! and one ordered record stream. Records of different contexts interleave
//! on that stream with `make_current` records between them.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use mgpipe::{Caps, Handle, Pipe, SlotAllocator};
use parking_lot::Mutex;

use crate::context::GlState;
use crate::platform::{PlatformError, Surface, SurfaceDesc, SurfaceRef};

/// Slot allocators, one per handle kind (DESIGN §2.4).
#[derive(Debug, Default)]
pub struct Allocators {
    pub context: SlotAllocator,
    pub surface: SlotAllocator,
    pub resource: SlotAllocator,
    pub framebuffer: SlotAllocator,
    pub render_state: SlotAllocator,
    pub vertex_elements: SlotAllocator,
    pub sampler: SlotAllocator,
    pub sampler_view: SlotAllocator,
    pub shader: SlotAllocator,
    pub fence: SlotAllocator,
    pub query: SlotAllocator,
}

impl Allocators {
    fn new() -> Self {
        Allocators {
            context: SlotAllocator::new(),
            surface: SlotAllocator::new(),
            resource: SlotAllocator::new(),
            framebuffer: SlotAllocator::new(),
            render_state: SlotAllocator::new(),
            vertex_elements: SlotAllocator::new(),
            sampler: SlotAllocator::new(),
            sampler_view: SlotAllocator::new(),
            shader: SlotAllocator::new(),
            fence: SlotAllocator::new(),
            query: SlotAllocator::new(),
        }
    }
}

/// Why the client blocked on the server (DESIGN §2.1: each blocking point
/// has a counter).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockingCause {
    ReadPixels,
    BufferRead,
    UnpackFromBuffer,
    FenceWait,
    Finish,
    QueryResult,
    MapPersistent,
    IndirectDraw,
}

impl BlockingCause {
    pub const ALL: [BlockingCause; 8] = [
        Self::ReadPixels,
        Self::BufferRead,
        Self::UnpackFromBuffer,
        Self::FenceWait,
        Self::Finish,
        Self::QueryResult,
        Self::MapPersistent,
        Self::IndirectDraw,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Self::ReadPixels => "read_pixels",
            Self::BufferRead => "buffer_read",
            Self::UnpackFromBuffer => "unpack_from_buffer",
            Self::FenceWait => "fence_wait",
            Self::Finish => "finish",
            Self::QueryResult => "query_result",
            Self::MapPersistent => "map_persistent",
            Self::IndirectDraw => "indirect_draw",
        }
    }
}

/// Per-frame counters, logged at each swap when `MOBILEGL_STATS=1`.
#[derive(Debug, Default, Clone)]
pub struct FrameStats {
    pub frame: u64,
    pub blocking: [u64; 8],
    pub at_frame_start: remote::Stats,
}

/// The connection to one backend.
pub struct Conn {
    pub pipe: Box<dyn remote::Transport>,
    pub caps: Caps,
    pub alloc: Allocators,
    /// The context whose records were emitted last (index into `World::contexts`).
    pub last_emitter: Option<usize>,
    /// Largest reply one call may ask for; bigger reads are split into bands.
    pub max_reply: usize,
    /// Largest blob one upload record may carry; bigger uploads are split
    /// into several records (`gl::buffers::for_each_band`).
    pub max_blob: usize,
    pub stats_enabled: bool,
    pub frame_stats: FrameStats,
    lost_logged: bool,
    /// A blocking round trip happened: poll the reverse channel before the
    /// GL call returns (`gl::persistent::absorb_events`).
    pub events_due: bool,
    /// A finish or fence wait happened: persistent maps whose backend does
    /// not report GPU writes are pulled.
    pub pull_due: bool,
    pub event_scratch: Vec<mgpipe::event::Event>,
}

impl Conn {
    pub fn lost(&self) -> Option<String> {
        self.pipe.lost().map(|r| format!("{r}"))
    }

    /// Whether the link is gone; logs the cause once. Inlined into every
    /// GL entry point: the live case is one check.
    #[inline]
    pub fn check_lost(&mut self) -> bool {
        if self.pipe.lost().is_none() {
            return false;
        }
        self.note_lost();
        true
    }

    #[cold]
    #[inline(never)]
    fn note_lost(&mut self) {
        if !self.lost_logged {
            self.lost_logged = true;
            if let Some(r) = self.pipe.lost() {
                tracing::error!(
                    "MobileGL context lost: {r}; GL calls keep returning, rendering stops"
                );
            }
        }
    }

    /// Count one blocking round trip.
    pub fn blocking(&mut self, cause: BlockingCause) {
        self.events_due = true;
        if matches!(cause, BlockingCause::Finish | BlockingCause::FenceWait) {
            self.pull_due = true;
        }
        if let Some(i) = BlockingCause::ALL.iter().position(|c| *c == cause) {
            self.frame_stats.blocking[i] += 1;
        }
    }

    /// End of a frame: log the counters (MOBILEGL_STATS=1) and reset them.
    pub fn end_frame(&mut self) {
        let now = self.pipe.stats();
        if self.stats_enabled {
            let b = &self.frame_stats.at_frame_start;
            let causes: Vec<String> = BlockingCause::ALL
                .iter()
                .zip(self.frame_stats.blocking.iter())
                .filter(|(_, n)| **n > 0)
                .map(|(c, n)| format!("{}={n}", c.name()))
                .collect();
            tracing::info!(
                target: "mobilegl::stats",
                "frame {}: records={} bytes={} blocking_round_trips={} [{}] doorbells={} stage_waits={} client_sleeps={} publishes={}",
                self.frame_stats.frame,
                now.records - b.records,
                now.bytes - b.bytes,
                self.frame_stats.blocking.iter().sum::<u64>(),
                causes.join(" "),
                now.doorbells - b.doorbells,
                now.stage_waits - b.stage_waits,
                now.client_sleeps - b.client_sleeps,
                now.publishes - b.publishes,
            );
        }
        self.frame_stats.frame += 1;
        self.frame_stats.blocking = [0; 8];
        self.frame_stats.at_frame_start = now;
    }
}

/// Everything GL: the connection and all contexts. One lock.
pub struct World {
    pub conn: Option<Conn>,
    pub contexts: Vec<Option<GlState>>,
    pub shares: Vec<Option<crate::context::Shared>>,
    pub connect_error: Option<String>,
}

static WORLD: Mutex<World> = Mutex::new(World {
    conn: None,
    contexts: Vec::new(),
    shares: Vec::new(),
    connect_error: None,
});
static LOGGING: OnceLock<()> = OnceLock::new();

pub fn world() -> parking_lot::MutexGuard<'static, World> {
    WORLD.lock()
}

thread_local! {
    /// Torn down with this thread's other thread-locals. At process exit
    /// they go before the `atexit` handlers run, and an application's
    /// handler may still call EGL/GL (piglit releases its context there),
    /// when the fmt layer's own thread-local buffer is gone and would
    /// panic: events of a thread whose guard is gone are dropped.
    static THREAD_LOCALS_ALIVE: AliveGuard = AliveGuard::new();
}

/// Threads (by `pthread_self`) whose thread-locals are destroyed.
static DEAD_THREADS: parking_lot::Mutex<Vec<usize>> = parking_lot::Mutex::new(Vec::new());

fn this_thread() -> usize {
    // SAFETY: pthread_self has no preconditions.
    unsafe { libc::pthread_self() as usize }
}

/// Registered on a thread after the fmt layer's buffer (it is first
/// touched after an event was written), so it is destroyed before it.
struct AliveGuard;

impl AliveGuard {
    fn new() -> Self {
        // A new thread may reuse a dead one's id.
        DEAD_THREADS.lock().retain(|t| *t != this_thread());
        AliveGuard
    }
}

impl Drop for AliveGuard {
    fn drop(&mut self) {
        DEAD_THREADS.lock().push(this_thread());
    }
}

/// Drops the events of a thread whose thread-locals are gone (checked only
/// for events the level filter let through: `event_enabled` leaves every
/// callsite's cached interest as the EnvFilter decided it), and touches the
/// guard after the fmt layer has written an event.
struct AliveGate;

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for AliveGate {
    fn event_enabled(
        &self,
        _event: &tracing::Event<'_>,
        _ctx: tracing_subscriber::layer::Context<'_, S>,
    ) -> bool {
        !DEAD_THREADS.lock().contains(&this_thread())
    }

    fn on_event(
        &self,
        _event: &tracing::Event<'_>,
        _ctx: tracing_subscriber::layer::Context<'_, S>,
    ) {
        touch_alive_guard();
    }
}

/// Register this thread's guard (a thread that calls EGL/GL: done when it
/// makes a context current), so that after its thread-locals are gone its
/// late events (an `atexit` handler releasing the context) are dropped.
pub(crate) fn touch_alive_guard() {
    let _ = THREAD_LOCALS_ALIVE.try_with(|_| ());
}

fn init_logging() {
    touch_alive_guard();
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    LOGGING.get_or_init(|| {
        let filter = std::env::var("MOBILEGL_LOG").unwrap_or_else(|_| "warn".to_string());
        let filter = tracing_subscriber::EnvFilter::try_new(&filter)
            .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
        let fmt = tracing_subscriber::fmt::layer()
            .with_writer(std::io::stderr)
            .with_target(false);
        // A host application may already own the global subscriber: that is fine.
        let _ = tracing_subscriber::registry()
            .with(filter)
            .with(AliveGate)
            .with(fmt)
            .try_init();
    });
}

/// Where the spawned server lives: `MOBILEGL_SERVER`, else
/// `<dir of libmobilegl.so>/../bin/mobilegl-server` (the dist layout).
fn server_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("MOBILEGL_SERVER") {
        return Some(PathBuf::from(p));
    }
    let lib = own_library_path()?;
    let dir = lib.parent()?;
    let candidates = [
        dir.join("../bin/mobilegl-server"),
        dir.join("mobilegl-server"),
    ];
    candidates.into_iter().find(|c| c.exists())
}

/// The path of the shared object this code was loaded from.
fn own_library_path() -> Option<PathBuf> {
    let mut info = libc::Dl_info {
        dli_fname: std::ptr::null(),
        dli_fbase: std::ptr::null_mut(),
        dli_sname: std::ptr::null(),
        dli_saddr: std::ptr::null_mut(),
    };
    let addr = own_library_path as *const libc::c_void;
    // SAFETY: dladdr only reads loader tables; `info` is a valid out-pointer.
    let ok = unsafe { libc::dladdr(addr, &mut info) };
    if ok == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dladdr returned a NUL-terminated path owned by the loader.
    let name = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) };
    let p = PathBuf::from(std::ffi::OsStr::new(name.to_str().ok()?));
    std::fs::canonicalize(&p).ok().or(Some(p))
}

fn backend_factory() -> remote::BackendFactory {
    Arc::new(|| {
        let kind = std::env::var("MOBILEGL_BACKEND").unwrap_or_else(|_| "gles".to_string());
        match kind.as_str() {
            "gles" => backend_gles::GlesBackend::open_default()
                .map(|b| Box::new(b) as Box<dyn mgpipe::Applier>)
                .map_err(|e| format!("GLES backend: {e}")),
            "vulkan" => backend_vulkan::VulkanBackend::open_default()
                .map(|b| Box::new(b) as Box<dyn mgpipe::Applier>)
                .map_err(|e| {
                    // Seen on NVIDIA desktop drivers: their Vulkan ICD opens
                    // libEGL.so.1 by name, and with our directory on
                    // LD_LIBRARY_PATH it gets MobileGL and gives up.
                    format!(
                        "Vulkan backend: {e} (if this is NVIDIA's driver and MobileGL was \
                         found through LD_LIBRARY_PATH: load it with LD_PRELOAD or by path \
                         instead, or use MOBILEGL_TRANSPORT=spawn)"
                    )
                }),
            other => Err(format!(
                "unknown MOBILEGL_BACKEND={other:?} (valid: gles, vulkan)"
            )),
        }
    })
}

fn connect() -> Result<Conn, String> {
    let kind = remote::TransportKind::from_env().map_err(|e| e.to_string())?;
    // Opt-in only: the game's allocator is the user's to change.
    let alloc = remote::server::configure_client_allocator()?;
    if alloc == remote::server::AllocatorSetup::Retaining {
        tracing::info!("MOBILEGL_MALLOC=retain: this process keeps freed memory mapped");
    }
    let stats_enabled = match std::env::var("MOBILEGL_STATS").as_deref() {
        Err(_) | Ok("") | Ok("0") => false,
        Ok("1") => true,
        Ok(other) => return Err(format!("MOBILEGL_STATS={other:?}: expected 0 or 1")),
    };
    let cfg = remote::LinkConfig {
        // The server must load the system's libEGL, never ours.
        hide_from_server: own_library_path().into_iter().collect(),
        ..Default::default()
    };
    // Leave room for the reply header inside the REPLY area.
    let max_reply = cfg.reply_bytes.saturating_sub(4096).max(4096);
    // A blob larger than the STAGE ring loses the link, and one larger than
    // half of it makes the producer wait until the server has drained
    // everything: a quarter keeps several uploads in flight. Monolith passes
    // the application's bytes by reference (no STAGE), so nothing is split.
    let max_blob = match kind {
        remote::TransportKind::Monolith => usize::MAX,
        remote::TransportKind::Inproc | remote::TransportKind::Spawn => {
            (cfg.stage_bytes / 4).max(1)
        }
    };
    let server = server_path();
    let pipe = remote::connect(kind, &cfg, backend_factory(), server.as_deref())
        .map_err(|e| format!("transport {kind}: {e}"))?;
    let caps = *pipe.caps();
    crate::shader::set_draw_buffers(caps.max_draw_buffers);
    tracing::info!(
        "MobileGL connected: transport={kind} backend renderer={:?}",
        Caps::get_str(&caps.driver_renderer)
    );
    let frame_stats = FrameStats {
        at_frame_start: pipe.stats(),
        ..Default::default()
    };
    Ok(Conn {
        pipe,
        caps,
        alloc: Allocators::new(),
        last_emitter: None,
        max_reply,
        max_blob,
        stats_enabled,
        frame_stats,
        lost_logged: false,
        events_due: false,
        pull_due: false,
        event_scratch: Vec::new(),
    })
}

/// Initialise logging and connect to a backend once per process.
pub fn ensure_runtime() -> Result<(), PlatformError> {
    init_logging();
    let mut w = world();
    ensure_conn(&mut w).map(|_| ())
}

pub(crate) fn ensure_conn(w: &mut World) -> Result<&mut Conn, PlatformError> {
    if w.conn.is_none() {
        if let Some(e) = &w.connect_error {
            return Err(PlatformError::NoBackend(e.clone()));
        }
        match connect() {
            Ok(c) => {
                w.conn = Some(c);
                register_exit_hook();
            }
            Err(e) => {
                tracing::error!("MobileGL cannot start its backend: {e}");
                w.connect_error = Some(e.clone());
                return Err(PlatformError::NoBackend(e));
            }
        }
    }
    w.conn
        .as_mut()
        .ok_or_else(|| PlatformError::NoBackend("no connection".into()))
}

/// How long the exit hook waits for an inproc server thread's current call.
const EXIT_GRACE: std::time::Duration = std::time::Duration::from_millis(500);

/// Stop the transport before the driver's own exit-time teardown runs.
///
/// `exit()` runs `atexit` handlers (newest first) before the loader runs
/// library destructors, and this one is registered after the backend loaded
/// its driver, so it runs before the driver's own: an inproc server thread
/// is told to stop now (queued records are dropped: the process is ending)
/// and waited for while the driver is still whole. The wait is bounded
/// (`EXIT_GRACE`): some driver state registers its destructors lazily, after
/// this hook (LLVM's, on the first shader compile), so a server thread
/// still inside such a call when the application exits could otherwise
/// keep the exit waiting forever (seen with piglit's `fbo-generatemipmap`
/// exiting on a failure while draws were queued). Monolith and spawn links
/// are left as they are: a spawned server sees the hang-up.
extern "C" fn stop_transport_at_exit() {
    let Some(mut w) = WORLD.try_lock() else {
        return;
    };
    w.connect_error = Some("the process is exiting".to_string());
    if let Some(mut conn) = w.conn.take() {
        if conn.pipe.kind() == remote::TransportKind::Inproc {
            // Records still queued are dropped (the process is ending);
            // the one running is given a bounded time to finish.
            conn.pipe.stop_at_exit(EXIT_GRACE);
        }
        std::mem::forget(conn);
    }
}

fn register_exit_hook() {
    static REGISTERED: OnceLock<()> = OnceLock::new();
    REGISTERED.get_or_init(|| {
        // SAFETY: registers a plain `extern "C" fn()` with no captured state.
        let rc = unsafe { libc::atexit(stop_transport_at_exit) };
        if rc != 0 {
            tracing::warn!(
                "atexit registration failed; an inproc server may race driver teardown at exit"
            );
        }
    });
}

pub fn create_surface(desc: &SurfaceDesc) -> Result<SurfaceRef, PlatformError> {
    init_logging();
    let mut w = world();
    let conn = ensure_conn(&mut w)?;
    let handle = conn.alloc.surface.alloc();
    conn.pipe.surface_create(&mgpipe::calls::SurfaceCreate {
        surface: handle,
        width: desc.width,
        height: desc.height,
        color_format: desc.color_format,
        depth_stencil_format: desc.depth_stencil_format,
        samples: desc.samples,
        ..Default::default()
    });
    let surface = Arc::new(Surface::new(handle, *desc));
    let mut live = LIVE_SURFACES.lock();
    live.retain(|(_, w)| w.strong_count() > 0);
    live.push((handle, Arc::downgrade(&surface)));
    Ok(surface)
}

/// Every surface made here, by handle, for `on_surface_changed` (a leaf
/// lock: nothing else is taken while it is held).
static LIVE_SURFACES: Mutex<Vec<(mgpipe::Handle, std::sync::Weak<Surface>)>> =
    Mutex::new(Vec::new());

/// `on_surface_changed`: the backend's surface now has this size; the
/// default framebuffer (and `eglQuerySurface`) follow it.
pub fn surface_changed(handle: mgpipe::Handle, width: u32, height: u32) {
    let live = LIVE_SURFACES.lock();
    let Some(s) = live
        .iter()
        .find(|(h, _)| *h == handle)
        .and_then(|(_, w)| w.upgrade())
    else {
        tracing::debug!(
            ?handle,
            "on_surface_changed for an unknown surface; ignored"
        );
        return;
    };
    if width == 0 || height == 0 {
        tracing::warn!(
            ?handle,
            width,
            height,
            "on_surface_changed with an empty size; ignored"
        );
        return;
    }
    let packed = (u64::from(width) << 32) | u64::from(height);
    s.resized
        .store(packed, std::sync::atomic::Ordering::Relaxed);
    tracing::info!(width, height, "surface resized by the backend");
}

pub fn destroy_surface(s: &SurfaceRef) {
    let mut w = world();
    if let Some(conn) = w.conn.as_mut() {
        conn.pipe
            .surface_destroy(&mgpipe::calls::SurfaceDestroy { surface: s.handle });
        conn.alloc.surface.free(s.handle);
    }
}

/// eglSwapBuffers: present the surface and publish the batch.
pub fn swap_buffers(s: &SurfaceRef) -> Result<(), PlatformError> {
    let mut w = world();
    let conn = ensure_conn(&mut w)?;
    if let Some(reason) = conn.lost() {
        return Err(PlatformError::ContextLost(reason));
    }
    conn.pipe
        .present(&mgpipe::calls::Present { surface: s.handle });
    remote::Transport::flush(&mut *conn.pipe);
    conn.end_frame();
    Ok(())
}

/// A null handle helper used by callers that build payloads.
pub const NULL: Handle = Handle::NULL;
