//! The server side of `spawn`: what `mobilegl-server` runs.

use std::os::fd::{AsFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::Ordering::SeqCst;
use std::sync::Arc;

use rustix::event::{PollFd, PollFlags};

use crate::control::{self, Msg, Received};
use crate::futex;
use crate::layout::{
    self, Layout, Segments, C_SERVER_BELL, C_SHUTDOWN, SHUTDOWN_DRAIN, SHUTDOWN_NOW,
};
use crate::server::{ServeEnd, ServerLink};
use crate::shm::Segment;
use crate::types::{RefuseReason, TransportError};
use crate::ApplierDispatch;

/// Knobs of the spawned server (tests use them to provoke refusals).
#[derive(Clone, Debug)]
pub struct ServerOptions {
    /// The catalogue hash this server was built with; a different one in
    /// `Hello` is refused with `CatalogueMismatch`.
    pub expected_catalogue_hash: u64,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            expected_catalogue_hash: mgpipe::CATALOGUE_HASH,
        }
    }
}

/// Take ownership of the inherited control socket named by `--fd N`,
/// checking that it is an open `SOCK_SEQPACKET` socket first.
pub fn adopt_fd(raw: RawFd) -> Result<OwnedFd, TransportError> {
    if raw < 0 {
        return Err(TransportError::BadConfig(format!(
            "--fd {raw}: not a descriptor"
        )));
    }
    // SAFETY: F_GETFD only inspects the descriptor table entry; any int is
    // acceptable (an invalid one yields EBADF).
    if unsafe { libc::fcntl(raw, libc::F_GETFD) } < 0 {
        return Err(TransportError::BadConfig(format!(
            "--fd {raw}: not an open descriptor"
        )));
    }
    // SAFETY: `raw` is open (checked above) and was handed to this process
    // for exclusive use by its parent (`--fd N`); nothing else in the
    // process owns it, so adopting it as an OwnedFd closes it exactly once.
    let fd = unsafe { OwnedFd::from_raw_fd(raw) };
    match rustix::net::sockopt::socket_type(&fd) {
        Ok(rustix::net::SocketType::SEQPACKET) => {}
        Ok(t) => {
            return Err(TransportError::BadConfig(format!(
                "--fd {raw}: socket type {t:?}, expected SEQPACKET"
            )))
        }
        Err(e) => {
            return Err(TransportError::BadConfig(format!(
                "--fd {raw}: not a socket ({e})"
            )))
        }
    }
    // Our own descriptors never leak into anything this server might spawn.
    let _ = rustix::io::fcntl_setfd(&fd, rustix::io::FdFlags::CLOEXEC);
    Ok(fd)
}

fn refuse(sock: &OwnedFd, reason: RefuseReason, detail: String) -> TransportError {
    tracing::error!(%reason, "refusing the link: {detail}");
    let _ = control::send(
        sock.as_fd(),
        &Msg::Refuse {
            reason,
            detail: detail.clone(),
        },
        &[],
    );
    TransportError::Refused { reason, detail }
}

/// Server-side socket watcher: Goodbye → drain and stop; hang-up → stop now.
/// Rings the server doorbell in its own CMD mapping.
fn watch(sock: Arc<OwnedFd>, stop: Arc<OwnedFd>, cmd: Segment) {
    let bell = layout::word!(cmd, u32, C_SERVER_BELL);
    let shut = layout::word!(cmd, u32, C_SHUTDOWN);
    let how = loop {
        let mut fds = [
            PollFd::new(&*sock, PollFlags::IN | PollFlags::RDHUP),
            PollFd::new(&*stop, PollFlags::IN),
        ];
        match rustix::event::poll(&mut fds, None) {
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => continue,
            Err(_) => break SHUTDOWN_NOW,
        }
        if !fds[1].revents().is_empty() {
            return;
        }
        let rev = fds[0].revents();
        if rev.contains(PollFlags::IN) {
            match control::recv(sock.as_fd()) {
                Ok(Ok(Received::Msg(Msg::Goodbye, _))) => break SHUTDOWN_DRAIN,
                Ok(Ok(Received::Msg(m, _))) => {
                    tracing::debug!("control message {} ignored", m.name())
                }
                Ok(Err(why)) => tracing::warn!("malformed control message: {why}"),
                Ok(Ok(Received::HangUp)) | Err(_) => break SHUTDOWN_NOW,
            }
        } else if rev
            .intersects(PollFlags::HUP | PollFlags::ERR | PollFlags::RDHUP | PollFlags::NVAL)
        {
            break SHUTDOWN_NOW;
        }
    };
    if how == SHUTDOWN_NOW {
        tracing::warn!("client hung up; stopping");
        shut.store(SHUTDOWN_NOW, SeqCst);
    } else {
        tracing::info!("client said Goodbye; draining and stopping");
        let _ = shut.compare_exchange(layout::SHUTDOWN_NONE, SHUTDOWN_DRAIN, SeqCst, SeqCst);
    }
    bell.store(futex::AWAKE, SeqCst);
    futex::wake(bell);
}

/// Serve one client over the inherited control socket `fd` with the
/// default options (this build's catalogue hash).
pub fn run_spawned_server(
    fd: OwnedFd,
    make_backend: impl FnOnce(&str) -> Result<Box<dyn mgpipe::Applier>, String>,
) -> Result<(), TransportError> {
    run_spawned_server_with(fd, ServerOptions::default(), make_backend)
}

/// Serve one client: handshake (`Hello` → `Welcome` + `CapsSnapshot`, or a
/// named `Refuse`), then the decode loop on this thread (the backend is
/// created on it), until `Goodbye`, hang-up or a fatal error (sent as
/// `Fatal` and returned).
pub fn run_spawned_server_with(
    fd: OwnedFd,
    opts: ServerOptions,
    make_backend: impl FnOnce(&str) -> Result<Box<dyn mgpipe::Applier>, String>,
) -> Result<(), TransportError> {
    let sock = fd;
    let (hello, fds) = match control::recv(sock.as_fd()) {
        Ok(Ok(Received::Msg(m @ Msg::Hello { .. }, fds))) => (m, fds),
        Ok(Ok(Received::Msg(m, _))) => {
            return Err(refuse(
                &sock,
                RefuseReason::BadMessage,
                format!("expected Hello, got {}", m.name()),
            ))
        }
        Ok(Ok(Received::HangUp)) => {
            return Err(TransportError::ServerDied(
                "client hung up before Hello".into(),
            ))
        }
        Ok(Err(why)) => return Err(refuse(&sock, RefuseReason::BadMessage, why)),
        Err(e) => {
            return Err(TransportError::Io {
                context: "receiving Hello",
                source: e,
            })
        }
    };
    let Msg::Hello {
        abi_version,
        catalogue_hash,
        backend_kind,
        transport,
        link,
        segment_count,
    } = hello
    else {
        return Err(TransportError::Handshake("expected Hello".into()));
    };
    tracing::info!(
        "mobilegl-server pid={} transport={} backend={}",
        std::process::id(),
        transport,
        backend_kind
    );
    if abi_version != layout::ABI_VERSION {
        return Err(refuse(
            &sock,
            RefuseReason::AbiMismatch,
            format!(
                "client ABI {abi_version}, server ABI {}",
                layout::ABI_VERSION
            ),
        ));
    }
    if catalogue_hash != opts.expected_catalogue_hash {
        return Err(refuse(
            &sock,
            RefuseReason::CatalogueMismatch,
            format!(
                "client catalogue hash {catalogue_hash:#018x}, server catalogue hash {:#018x}",
                opts.expected_catalogue_hash
            ),
        ));
    }
    if transport != "spawn" {
        return Err(refuse(
            &sock,
            RefuseReason::UnsupportedTransport,
            format!("transport {transport:?} over a socket"),
        ));
    }
    let Ok(fds) = <[OwnedFd; 4]>::try_from(fds) else {
        return Err(refuse(
            &sock,
            RefuseReason::BadSegments,
            "expected exactly 4 segment fds".into(),
        ));
    };
    if segment_count != 4 {
        return Err(refuse(
            &sock,
            RefuseReason::BadSegments,
            format!("Hello names {segment_count} segments, expected 4"),
        ));
    }
    let to_usize = |v: u64| usize::try_from(v).unwrap_or(usize::MAX);
    let lay = Layout {
        cmd: to_usize(link.cmd_bytes),
        stage: to_usize(link.stage_bytes),
        reply: to_usize(link.reply_bytes),
        event: to_usize(link.event_bytes),
    };
    let seg = match Segments::from_fds(fds, lay) {
        Ok(s) => s,
        Err(e) => return Err(refuse(&sock, RefuseReason::BadSegments, e)),
    };
    let mut applier = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        make_backend(&backend_kind)
    })) {
        Ok(Ok(a)) => a,
        Ok(Err(e)) => return Err(refuse(&sock, RefuseReason::BackendUnavailable, e)),
        Err(p) => {
            return Err(refuse(
                &sock,
                RefuseReason::BackendUnavailable,
                format!("backend constructor panicked: {}", crate::panic_text(&*p)),
            ))
        }
    };
    let caps = match crate::query_caps(&mut *applier) {
        Ok(c) => c,
        Err(e) => {
            return Err(refuse(
                &sock,
                RefuseReason::BackendUnavailable,
                e.to_string(),
            ))
        }
    };
    let welcome = Msg::Welcome {
        abi_version: layout::ABI_VERSION,
        segments: vec![
            (0, lay.cmd_segment_len() as u64),
            (1, lay.stage_segment_len() as u64),
            (2, lay.reply_segment_len() as u64),
            (3, lay.event_segment_len() as u64),
        ],
        reply_slots: 1,
        backend_name: backend_kind.clone(),
    };
    control::send(sock.as_fd(), &welcome, &[]).map_err(|e| TransportError::Io {
        context: "sending Welcome",
        source: e,
    })?;
    control::send(
        sock.as_fd(),
        &Msg::CapsSnapshot(bytemuck::bytes_of(&caps).to_vec()),
        &[],
    )
    .map_err(|e| TransportError::Io {
        context: "sending CapsSnapshot",
        source: e,
    })?;

    let sock = Arc::new(sock);
    let stop = Arc::new(rustix::event::eventfd(
        0,
        rustix::event::EventfdFlags::CLOEXEC,
    )?);
    let watch_cmd = seg.cmd.map_again().map_err(|e| TransportError::Io {
        context: "mapping CMD",
        source: e,
    })?;
    let (s2, st2) = (sock.clone(), stop.clone());
    let watcher = std::thread::Builder::new()
        .name("mobilegl-watch".into())
        .spawn(move || watch(s2, st2, watch_cmd))
        .map_err(|e| TransportError::Io {
            context: "spawning the socket watcher",
            source: e,
        })?;

    let mut link = ServerLink::new(seg);
    link.log_event(
        mgpipe::event::LogLevel::Info,
        &format!(
            "mobilegl-server pid={} serving backend={backend_kind}",
            std::process::id()
        ),
    );
    crate::logfwd::set_forwarding(true);
    let end = link.serve(&mut ApplierDispatch(&mut *applier));
    // From here on nobody may be reading the EVENT ring: log to stderr.
    crate::logfwd::set_forwarding(false);
    let client_gone = matches!(end, ServeEnd::ClientGone);
    let result = match end {
        ServeEnd::Fatal(f) => {
            let _ = control::send(
                sock.as_fd(),
                &Msg::Fatal {
                    reason: f.reason,
                    detail: f.detail.clone(),
                },
                &[],
            );
            Err(TransportError::Fatal {
                reason: f.reason,
                detail: f.detail,
            })
        }
        ServeEnd::Shutdown => {
            tracing::info!("orderly shutdown");
            Ok(())
        }
        ServeEnd::ClientGone => {
            tracing::warn!("client gone; exiting");
            Ok(())
        }
    };
    let _ = rustix::io::write(&*stop, &1u64.to_ne_bytes());
    let _ = watcher.join();
    if client_gone {
        // Nobody is left to render for: skip the driver's own teardown
        // (llvmpipe's takes ~2 s) and let process exit reclaim everything.
        std::mem::forget(applier);
    } else {
        drop(applier);
    }
    result
}

/// End the server process now, without running exit handlers or library
/// destructors: after the client is gone nothing is left to flush, and a
/// driver's own teardown (llvmpipe's joins its threads, LLVM's frees its
/// caches) can take a second or more, keeping a dead client's server alive.
pub fn exit_immediately(code: i32) -> ! {
    use std::io::Write;
    let _ = std::io::stderr().flush();
    // SAFETY: `_exit` never returns and touches no Rust state; buffered
    // output was flushed above.
    unsafe { libc::_exit(code) }
}

/// How the server process configured its allocator
/// ([`configure_allocator`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AllocatorSetup {
    /// glibc keeps freed memory for reuse (the server's default).
    Retaining,
    /// Left as the C library ships it (`MOBILEGL_SERVER_MALLOC=system`, or
    /// not glibc).
    System,
}

/// The server process is ours, so its allocator can suit the driver it
/// hosts. Software drivers (llvmpipe, lavapipe) allocate and free
/// multi-megabyte scene buffers on every draw or flush; with glibc's
/// defaults each free above the trim/mmap thresholds hands the pages back
/// to the kernel and the next draw faults them in again (measured: about
/// 80 % of llvmpipe's time per draw in the `vanilla` benchmark, and worse
/// in a process with a second thread, where every unmap also shoots down
/// TLBs). Raising both thresholds keeps those pages mapped. Costs: the
/// server's resident size stays at its peak. `MOBILEGL_SERVER_MALLOC=system`
/// keeps the C library's defaults (`retain`, the default, asks for the
/// above; any other value is an error naming the valid ones). The client
/// process (the game) is never touched: its allocator is the application's
/// business.
pub fn configure_allocator() -> Result<AllocatorSetup, String> {
    configure_allocator_from("MOBILEGL_SERVER_MALLOC", true)
}

/// The same policy for the game's own process, only when the user asks for
/// it (`MOBILEGL_MALLOC=retain`; unset or `system`: untouched): with the
/// in-process transports the driver runs in the game's process, and whether
/// its allocator may keep freed memory is the user's call, never ours.
pub fn configure_client_allocator() -> Result<AllocatorSetup, String> {
    configure_allocator_from("MOBILEGL_MALLOC", false)
}

/// Read `var` (`retain` or `system`; unset or empty: `retain` when
/// `default_retain`, else `system`) and apply it.
fn configure_allocator_from(var: &str, default_retain: bool) -> Result<AllocatorSetup, String> {
    let default = if default_retain { "retain" } else { "system" };
    let retain = match std::env::var(var).as_deref() {
        Err(std::env::VarError::NotPresent) | Ok("") => default_retain,
        Ok("retain") => true,
        Ok("system") => false,
        Ok(other) => {
            return Err(format!(
                "{var}={other:?}: expected retain or system (default {default})"
            ))
        }
        Err(std::env::VarError::NotUnicode(v)) => {
            return Err(format!(
                "{var}={v:?}: expected retain or system (default {default})"
            ))
        }
    };
    if !retain {
        return Ok(AllocatorSetup::System);
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // Largest values glibc accepts for a 64-bit heap (mmap threshold at
        // most HEAP_MAX_SIZE / 2 = 32 MiB); allocations above it still use
        // their own mappings.
        const MMAP_THRESHOLD: i32 = 32 << 20;
        const TRIM_THRESHOLD: i32 = 256 << 20;
        // SAFETY: mallopt only changes glibc's allocation policy (it takes
        // glibc's own lock); called once at start-up.
        let ok = unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1
                && libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1
        };
        if ok {
            return Ok(AllocatorSetup::Retaining);
        }
    }
    Ok(AllocatorSetup::System)
}

#[cfg(test)]
mod allocator_tests {
    use super::*;

    #[test]
    fn the_games_allocator_is_left_alone_unless_asked() {
        if std::env::var_os("MOBILEGL_MALLOC").is_none() {
            assert_eq!(configure_client_allocator(), Ok(AllocatorSetup::System));
        }
    }

    #[test]
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn glibc_takes_the_retaining_thresholds() {
        match std::env::var("MOBILEGL_SERVER_MALLOC").as_deref() {
            Ok("system") => assert_eq!(configure_allocator(), Ok(AllocatorSetup::System)),
            Err(_) | Ok("") | Ok("retain") => {
                assert_eq!(configure_allocator(), Ok(AllocatorSetup::Retaining))
            }
            Ok(_) => assert!(configure_allocator().is_err()),
        }
    }
}
