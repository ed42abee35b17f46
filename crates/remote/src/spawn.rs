//! `spawn`: the ring protocol to a child `mobilegl-server` process.
//!
//! Set-up: a `SOCK_SEQPACKET` socketpair; the child inherits its end (the
//! only fd whose close-on-exec flag is cleared, in the child) and gets its
//! number as `--fd N`. The client sends `Hello` with the four segment memfds
//! by `SCM_RIGHTS`; the server answers `Welcome` + `CapsSnapshot` or a named
//! `Refuse`. Liveness: a watcher thread blocks in `poll` on the socket (and a
//! stop eventfd); a hang-up marks the peer dead and rings the client's
//! doorbell at once, so no wait ever needs a timeout to notice death.

use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::Ordering::SeqCst;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use mgpipe::Encoder;
use rustix::event::{PollFd, PollFlags};

use crate::client::{PeerFlags, PeerLife, RingLink};
use crate::control::{self, LinkTerms, Msg, Received};
use crate::futex;
use crate::layout::{self, Segments, C_CLIENT_BELL};
use crate::shm::Segment;
use crate::types::{LinkConfig, TransportError, TransportKind};
use crate::Transport;

/// How long an orderly close waits for the child to exit after `Goodbye`
/// before it is killed (shutdown only; never used to declare death).
const EXIT_GRACE: Duration = Duration::from_secs(5);

/// The server binary: the given path, else `MOBILEGL_SERVER`, else a
/// `mobilegl-server` next to the current executable.
pub(crate) fn resolve_server(server_path: Option<&Path>) -> Result<PathBuf, TransportError> {
    if let Some(p) = server_path {
        return Ok(p.to_path_buf());
    }
    if let Some(p) = std::env::var_os("MOBILEGL_SERVER").filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(p));
    }
    if let Ok(exe) = std::env::current_exe() {
        if let Some(dir) = exe.parent() {
            for cand in [dir.join("mobilegl-server"), dir.join("../mobilegl-server")] {
                if cand.is_file() {
                    return Ok(cand);
                }
            }
        }
    }
    Err(TransportError::NoServer(
        "no server path given, MOBILEGL_SERVER is unset and no mobilegl-server sits next to the executable".into(),
    ))
}

struct SpawnPeer {
    child: Child,
    pid: u32,
    sock: Arc<OwnedFd>,
    stop: Arc<OwnedFd>,
    watcher: Option<JoinHandle<()>>,
    flags: Arc<PeerFlags>,
    reaped: bool,
}

impl SpawnPeer {
    fn status_text(st: std::process::ExitStatus) -> String {
        use std::os::unix::process::ExitStatusExt;
        match (st.code(), st.signal()) {
            (Some(c), _) => format!("server exited with status {c}"),
            (None, Some(s)) => format!("server killed by signal {s}"),
            _ => format!("server ended: {st}"),
        }
    }

    fn reap(&mut self, grace: Duration) {
        if self.reaped {
            return;
        }
        let deadline = Instant::now() + grace;
        loop {
            match self.child.try_wait() {
                Ok(Some(st)) => {
                    tracing::debug!(pid = self.pid, "{}", Self::status_text(st));
                    self.reaped = true;
                    return;
                }
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(2))
                }
                Ok(None) => {
                    tracing::warn!(
                        pid = self.pid,
                        "server did not exit after Goodbye; killing it"
                    );
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    self.reaped = true;
                    return;
                }
                Err(e) => {
                    tracing::warn!(pid = self.pid, "waitpid failed: {e}");
                    self.reaped = true;
                    return;
                }
            }
        }
    }

    fn stop_watcher(&mut self) {
        let _ = rustix::io::write(&*self.stop, &1u64.to_ne_bytes());
        if let Some(w) = self.watcher.take() {
            let _ = w.join();
        }
    }
}

impl PeerLife for SpawnPeer {
    fn shutdown(&mut self) {
        if !self.flags.dead.load(SeqCst) {
            if let Err(e) = control::send(self.sock.as_fd(), &Msg::Goodbye, &[]) {
                tracing::debug!("sending Goodbye failed: {e}");
            }
        }
        self.reap(EXIT_GRACE);
        self.stop_watcher();
    }

    fn death_detail(&mut self) -> Option<String> {
        if self.reaped {
            return None;
        }
        match self.child.try_wait() {
            Ok(Some(st)) => {
                self.reaped = true;
                Some(Self::status_text(st))
            }
            _ => None,
        }
    }

    fn pid(&self) -> Option<u32> {
        Some(self.pid)
    }
}

impl Drop for SpawnPeer {
    fn drop(&mut self) {
        // Only reached without `shutdown` on set-up failures: never leave a
        // child or a zombie behind.
        if !self.reaped {
            let _ = self.child.kill();
            let _ = self.child.wait();
            self.reaped = true;
        }
        self.stop_watcher();
    }
}

/// Socket watcher: blocks in poll; on hang-up marks the peer dead and rings
/// the client's doorbell (in its own mapping of CMD).
fn watch(sock: Arc<OwnedFd>, stop: Arc<OwnedFd>, flags: Arc<PeerFlags>, cmd: Segment) {
    let bell = layout::word!(cmd, u32, C_CLIENT_BELL);
    let detail = loop {
        let mut fds = [
            PollFd::new(&*sock, PollFlags::IN | PollFlags::RDHUP),
            PollFd::new(&*stop, PollFlags::IN),
        ];
        match rustix::event::poll(&mut fds, None) {
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => break format!("poll on the control socket failed: {e}"),
        }
        if !fds[1].revents().is_empty() {
            return;
        }
        let rev = fds[0].revents();
        if rev.contains(PollFlags::IN) {
            match control::recv(sock.as_fd()) {
                Ok(Ok(Received::HangUp)) => break "control socket hung up".to_string(),
                Ok(Ok(Received::Msg(Msg::Fatal { reason, detail }, _))) => {
                    tracing::error!(%reason, "server reported Fatal: {detail}");
                }
                Ok(Ok(Received::Msg(Msg::Goodbye, _))) => break "server said Goodbye".to_string(),
                Ok(Ok(Received::Msg(m, _))) => {
                    tracing::debug!("control message {} ignored", m.name())
                }
                Ok(Err(why)) => tracing::warn!("malformed control message: {why}"),
                Err(e) => break format!("control socket error: {e}"),
            }
        } else if rev
            .intersects(PollFlags::HUP | PollFlags::ERR | PollFlags::RDHUP | PollFlags::NVAL)
        {
            break "control socket hung up".to_string();
        }
    };
    tracing::debug!("server peer gone: {detail}");
    flags.mark_dead(detail);
    bell.store(futex::AWAKE, SeqCst);
    futex::wake(bell);
}

fn terms(cfg: &LinkConfig) -> LinkTerms {
    LinkTerms {
        cmd_bytes: cfg.cmd_bytes as u64,
        stage_bytes: cfg.stage_bytes as u64,
        reply_bytes: cfg.reply_bytes as u64,
        event_bytes: cfg.event_bytes as u64,
        max_reply_bytes: cfg.reply_bytes as u64,
        adoption_tier: 0,
    }
}

/// Remove the client's own libraries from the server's loader environment
/// (see [`LinkConfig::hide_from_server`]).
fn hide_client_libraries(cmd: &mut Command, hide: &[PathBuf]) {
    if hide.is_empty() {
        return;
    }
    for var in ["LD_LIBRARY_PATH", "LD_PRELOAD"] {
        let Some(value) = std::env::var_os(var) else {
            continue;
        };
        let value = value.to_string_lossy().into_owned();
        match filtered_loader_var(var, &value, hide) {
            None => {}
            Some(v) if v.is_empty() => {
                cmd.env_remove(var);
            }
            Some(v) => {
                cmd.env(var, v);
            }
        }
    }
}

/// `value` of loader variable `var` without the entries that bring in one
/// of `hide` (compared by canonical path): for `LD_PRELOAD` an entry naming
/// it, for `LD_LIBRARY_PATH` a directory whose `libEGL.so.1`, `libGL.so.1`
/// or `libGLX.so.0` is it. None when nothing changes.
fn filtered_loader_var(var: &str, value: &str, hide: &[PathBuf]) -> Option<String> {
    let canon = |p: &Path| std::fs::canonicalize(p).ok();
    let hidden: Vec<PathBuf> = hide.iter().filter_map(|p| canon(p)).collect();
    let is_hidden = |p: &Path| canon(p).is_some_and(|c| hidden.contains(&c));
    const SONAMES: [&str; 3] = ["libEGL.so.1", "libGL.so.1", "libGLX.so.0"];
    let preload = var == "LD_PRELOAD";
    let sep = if preload { " " } else { ":" };
    let entries: Vec<&str> = value
        .split(|c: char| c == ':' || (preload && c == ' '))
        .filter(|e| !e.is_empty())
        .collect();
    let kept: Vec<&str> = entries
        .iter()
        .copied()
        .filter(|e| {
            let p = Path::new(e);
            let drop = if preload {
                is_hidden(p)
            } else {
                SONAMES.iter().any(|n| is_hidden(&p.join(n)))
            };
            if drop {
                tracing::debug!(var, entry = *e, "hidden from the spawned server");
            }
            !drop
        })
        .collect();
    (kept.len() != entries.len()).then(|| kept.join(sep))
}

pub(crate) fn connect(
    cfg: &LinkConfig,
    server_path: Option<&Path>,
) -> Result<Box<dyn Transport>, TransportError> {
    let layout = cfg.layout();
    layout.validate().map_err(TransportError::BadConfig)?;
    let backend_kind = cfg.resolved_backend_kind()?;
    let path = resolve_server(server_path)?;
    let seg =
        Segments::create(layout).map_err(TransportError::io("creating the shared segments"))?;
    let (ours, theirs) = control::socketpair().map_err(TransportError::io("socketpair"))?;
    let child_fd = theirs.as_raw_fd();
    let mut cmd = Command::new(&path);
    hide_client_libraries(&mut cmd, &cfg.hide_from_server);
    cmd.arg("--fd")
        .arg(child_fd.to_string())
        .args(&cfg.server_args)
        .stdin(Stdio::null());
    // SAFETY: the closure runs in the forked child before exec and only
    // calls fcntl, which is async-signal-safe; it touches no allocator,
    // lock or Rust object. It clears FD_CLOEXEC on the one inherited socket.
    unsafe {
        cmd.pre_exec(move || {
            let flags = libc::fcntl(child_fd, libc::F_GETFD);
            if flags < 0 || libc::fcntl(child_fd, libc::F_SETFD, flags & !libc::FD_CLOEXEC) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let child = cmd
        .spawn()
        .map_err(|e| TransportError::NoServer(format!("cannot start {}: {e}", path.display())))?;
    drop(theirs);
    let pid = child.id();
    let flags = Arc::new(PeerFlags::default());
    let stop = rustix::event::eventfd(0, rustix::event::EventfdFlags::CLOEXEC)?;
    let mut peer = SpawnPeer {
        child,
        pid,
        sock: Arc::new(ours),
        stop: Arc::new(stop),
        watcher: None,
        flags: flags.clone(),
        reaped: false,
    };
    tracing::info!(pid, server = %path.display(), backend = %backend_kind, "spawned mobilegl-server");

    let hello = Msg::Hello {
        abi_version: layout::ABI_VERSION,
        catalogue_hash: mgpipe::CATALOGUE_HASH,
        backend_kind: backend_kind.clone(),
        transport: TransportKind::Spawn.to_string(),
        link: terms(cfg),
        segment_count: 4,
    };
    let fds = [seg.cmd.fd(), seg.stage.fd(), seg.reply.fd(), seg.event.fd()];
    if let Err(e) = control::send(peer.sock.as_fd(), &hello, &fds) {
        peer.reap(Duration::ZERO);
        return Err(TransportError::ServerDied(format!(
            "sending Hello failed: {e}"
        )));
    }

    let mut caps = None;
    let mut welcomed = false;
    while caps.is_none() {
        let got = control::recv(peer.sock.as_fd());
        let died = |peer: &mut SpawnPeer, what: &str| {
            let st = peer
                .child
                .wait()
                .map(SpawnPeer::status_text)
                .unwrap_or_else(|e| format!("wait failed: {e}"));
            peer.reaped = true;
            TransportError::ServerDied(format!("{what} ({st})"))
        };
        match got {
            Ok(Ok(Received::Msg(Msg::Welcome { abi_version, .. }, _)))
                if abi_version == layout::ABI_VERSION =>
            {
                welcomed = true
            }
            Ok(Ok(Received::Msg(Msg::Welcome { abi_version, .. }, _))) => {
                peer.reap(Duration::ZERO);
                return Err(TransportError::Handshake(format!(
                    "server ABI {abi_version}, client ABI {}",
                    layout::ABI_VERSION
                )));
            }
            Ok(Ok(Received::Msg(Msg::CapsSnapshot(bytes), _))) if welcomed => {
                match crate::caps_from_bytes(&bytes) {
                    Ok(c) => caps = Some(c),
                    Err(e) => {
                        peer.reap(Duration::ZERO);
                        return Err(e);
                    }
                }
            }
            Ok(Ok(Received::Msg(Msg::Refuse { reason, detail }, _))) => {
                tracing::error!(%reason, "server refused the link: {detail}");
                peer.reap(EXIT_GRACE);
                return Err(TransportError::Refused { reason, detail });
            }
            Ok(Ok(Received::Msg(Msg::Fatal { reason, detail }, _))) => {
                peer.reap(EXIT_GRACE);
                return Err(TransportError::Fatal { reason, detail });
            }
            Ok(Ok(Received::Msg(m, _))) => {
                peer.reap(Duration::ZERO);
                return Err(TransportError::Handshake(format!(
                    "unexpected {} during the handshake",
                    m.name()
                )));
            }
            Ok(Ok(Received::HangUp)) => {
                return Err(died(&mut peer, "server hung up during the handshake"))
            }
            Ok(Err(why)) => {
                peer.reap(Duration::ZERO);
                return Err(TransportError::Handshake(why));
            }
            Err(e) => {
                return Err(died(
                    &mut peer,
                    &format!("control socket error during the handshake: {e}"),
                ))
            }
        }
    }
    let caps = caps.ok_or_else(|| TransportError::Handshake("no caps".into()))?;

    let watch_cmd = seg
        .cmd
        .map_again()
        .map_err(TransportError::io("mapping CMD for the watcher"))?;
    let (s2, st2, f2) = (peer.sock.clone(), peer.stop.clone(), flags.clone());
    peer.watcher = Some(
        std::thread::Builder::new()
            .name("mobilegl-watch".into())
            .spawn(move || watch(s2, st2, f2, watch_cmd))
            .map_err(TransportError::io("spawning the socket watcher"))?,
    );
    let link = RingLink::new(TransportKind::Spawn, seg, caps, flags, Box::new(peer));
    Ok(Box::new(Encoder(link)))
}

#[cfg(test)]
mod loader_env_tests {
    use super::filtered_loader_var;
    use std::path::PathBuf;

    #[test]
    fn the_clients_own_library_is_hidden_from_the_server() {
        let dir = std::env::temp_dir().join(format!("mgl-hide-{}", std::process::id()));
        let ours = dir.join("ours");
        let other = dir.join("other");
        std::fs::create_dir_all(&ours).unwrap();
        std::fs::create_dir_all(&other).unwrap();
        let lib = ours.join("libmobilegl.so");
        std::fs::write(&lib, b"x").unwrap();
        std::os::unix::fs::symlink(&lib, ours.join("libEGL.so.1")).unwrap();
        std::fs::write(other.join("libEGL.so.1"), b"y").unwrap();
        let hide = vec![lib.clone()];
        let path = format!("{}:{}:/nonexistent", ours.display(), other.display());
        assert_eq!(
            filtered_loader_var("LD_LIBRARY_PATH", &path, &hide),
            Some(format!("{}:/nonexistent", other.display()))
        );
        let pre = format!("{} /lib/x.so", lib.display());
        assert_eq!(
            filtered_loader_var("LD_PRELOAD", &pre, &hide),
            Some("/lib/x.so".to_string())
        );
        let untouched = format!("{}", other.display());
        assert_eq!(
            filtered_loader_var("LD_LIBRARY_PATH", &untouched, &hide),
            None
        );
        assert_eq!(
            filtered_loader_var("LD_LIBRARY_PATH", &untouched, &[PathBuf::from("/none")]),
            None
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
