//! Public value types of the remote crate: transport kinds, link terms,
//! statistics, and the named failures.

use std::fmt;
use std::str::FromStr;

use crate::layout::Layout;

/// How the frontend reaches its backend (`MOBILEGL_TRANSPORT`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TransportKind {
    /// Direct calls on the app thread: no records, no copy, no thread.
    Monolith,
    /// Shared-memory rings to a server thread of this process, through a
    /// second mapping of the same memfds.
    Inproc,
    /// Shared-memory rings to a spawned `mobilegl-server` child.
    Spawn,
}

impl TransportKind {
    pub const ALL: [TransportKind; 3] = [
        TransportKind::Monolith,
        TransportKind::Inproc,
        TransportKind::Spawn,
    ];
    pub const ENV: &'static str = "MOBILEGL_TRANSPORT";

    pub fn as_str(self) -> &'static str {
        match self {
            TransportKind::Monolith => "monolith",
            TransportKind::Inproc => "inproc",
            TransportKind::Spawn => "spawn",
        }
    }

    /// `MOBILEGL_TRANSPORT`, default `inproc`. An unknown value is an error
    /// naming the valid ones, never a silent default.
    pub fn from_env() -> Result<TransportKind, TransportError> {
        match std::env::var(Self::ENV) {
            Ok(v) if v.trim().is_empty() => Ok(TransportKind::Inproc),
            Ok(v) => v.parse(),
            Err(std::env::VarError::NotPresent) => Ok(TransportKind::Inproc),
            Err(std::env::VarError::NotUnicode(v)) => Err(TransportError::UnknownTransport(
                v.to_string_lossy().into_owned(),
            )),
        }
    }
}

impl fmt::Display for TransportKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for TransportKind {
    type Err = TransportError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "monolith" => Ok(TransportKind::Monolith),
            "inproc" => Ok(TransportKind::Inproc),
            "spawn" => Ok(TransportKind::Spawn),
            _ => Err(TransportError::UnknownTransport(s.to_string())),
        }
    }
}

/// Segment sizes (data capacities, bytes) and spawn options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkConfig {
    /// Record ring (client→server).
    pub cmd_bytes: usize,
    /// Blob byte ring (client→server). A single blob larger than this is a
    /// named loss ([`FatalReason::RecordTooLarge`]).
    pub stage_bytes: usize,
    /// Reply data area (server→client). A larger reply is logged and
    /// answered empty (see [`Stats::reply_overflows`]).
    pub reply_bytes: usize,
    /// Event ring (server→client).
    pub event_bytes: usize,
    /// Backend kind sent in `Hello` (spawn). None: `MOBILEGL_BACKEND`,
    /// default "gles".
    pub backend_kind: Option<String>,
    /// Extra arguments for the spawned server, after `--fd N`.
    pub server_args: Vec<String>,
    /// Shared objects the spawned server must not see (the client's own
    /// libEGL/libGL): `LD_LIBRARY_PATH` directories that provide them and
    /// `LD_PRELOAD` entries naming them are removed from the server's
    /// environment. A driver in the server that opens `libEGL.so.1` (NVIDIA's
    /// Vulkan ICD does) must get the system's, not ours.
    pub hide_from_server: Vec<std::path::PathBuf>,
}

impl Default for LinkConfig {
    fn default() -> Self {
        LinkConfig {
            cmd_bytes: 4 << 20,
            stage_bytes: 64 << 20,
            reply_bytes: 32 << 20,
            event_bytes: 256 << 10,
            backend_kind: None,
            server_args: Vec::new(),
            hide_from_server: Vec::new(),
        }
    }
}

impl LinkConfig {
    pub(crate) fn layout(&self) -> Layout {
        Layout {
            cmd: self.cmd_bytes,
            stage: self.stage_bytes,
            reply: self.reply_bytes,
            event: self.event_bytes,
        }
    }

    /// The backend kind to ask a spawned server for.
    pub fn resolved_backend_kind(&self) -> Result<String, TransportError> {
        let kind = match &self.backend_kind {
            Some(k) => k.clone(),
            None => match std::env::var("MOBILEGL_BACKEND") {
                Ok(v) if !v.trim().is_empty() => v.trim().to_ascii_lowercase(),
                Ok(_) | Err(std::env::VarError::NotPresent) => "gles".to_string(),
                Err(std::env::VarError::NotUnicode(v)) => {
                    return Err(TransportError::UnknownBackend(
                        v.to_string_lossy().into_owned(),
                    ))
                }
            },
        };
        match kind.as_str() {
            "gles" | "vulkan" => Ok(kind),
            _ => Err(TransportError::UnknownBackend(kind)),
        }
    }
}

/// Counters of one transport (DESIGN §2.1: every blocking point counted).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Records pushed (monolith: calls forwarded).
    pub records: u64,
    /// Record bytes plus blob bytes pushed.
    pub bytes: u64,
    /// Synchronous calls that waited for the server.
    pub blocking_round_trips: u64,
    /// Futex wakes the client issued to the server.
    pub doorbells: u64,
    /// Times the client waited for CMD or STAGE space.
    pub stage_waits: u64,
    /// Times the client slept on its doorbell (futex waits, for space or a
    /// reply). The server rings a client waiting for a reply only with the
    /// reply, not once per record it consumes meanwhile.
    pub client_sleeps: u64,
    /// Publishes of pending records.
    pub publishes: u64,
    /// Replies that did not fit the REPLY area (answered empty).
    pub reply_overflows: u64,
    /// Blobs placed at the front of an empty STAGE ring instead of after
    /// the previous one (keeps uploads on cache-warm bytes).
    pub stage_rewinds: u64,
    /// Replies the server wrote straight into the caller's memory instead
    /// of REPLY (`inproc` `call_into`, e.g. `glReadPixels`).
    pub direct_replies: u64,
    /// `call_into` replies copied out band by band while the server read
    /// the next band (`spawn`, and `inproc` when nothing was lent).
    pub banded_replies: u64,
}

/// Why a refused handshake or operation was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RefuseReason {
    Unknown,
    AbiMismatch,
    CatalogueMismatch,
    BackendUnavailable,
    BadSegments,
    UnsupportedTransport,
    UnsupportedSurface,
    BadMessage,
}

impl fmt::Display for RefuseReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// Why a server stopped serving (or the client gave up on a link).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FatalReason {
    Unknown,
    ProtocolCorruption,
    BackendPanic,
    BackendLost,
    OutOfResources,
    /// Client side: one record or blob is larger than its segment.
    RecordTooLarge,
}

impl fmt::Display for FatalReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

impl FatalReason {
    pub(crate) fn to_u32(self) -> u32 {
        match self {
            FatalReason::Unknown => 0,
            FatalReason::ProtocolCorruption => 1,
            FatalReason::BackendPanic => 2,
            FatalReason::BackendLost => 3,
            FatalReason::OutOfResources => 4,
            FatalReason::RecordTooLarge => 5,
        }
    }
    pub(crate) fn from_u32(v: u32) -> FatalReason {
        match v {
            1 => FatalReason::ProtocolCorruption,
            2 => FatalReason::BackendPanic,
            3 => FatalReason::BackendLost,
            4 => FatalReason::OutOfResources,
            5 => FatalReason::RecordTooLarge,
            _ => FatalReason::Unknown,
        }
    }
}

/// Why a transport is lost. After loss every Pipe call is a no-op and every
/// reply call answers an empty reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LostReason {
    /// The server process/thread went away (socket hang-up, exit, panic).
    ServerDied { detail: String },
    /// The server (or the client) stopped the link on a named fatal error.
    ProtocolFatal {
        reason: FatalReason,
        opcode: Option<u16>,
        detail: String,
    },
    /// The server refused the link.
    Refused {
        reason: RefuseReason,
        detail: String,
    },
}

impl fmt::Display for LostReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LostReason::ServerDied { detail } => write!(f, "server died: {detail}"),
            LostReason::ProtocolFatal {
                reason,
                opcode: Some(op),
                detail,
            } => {
                write!(f, "fatal {reason} (opcode {op}): {detail}")
            }
            LostReason::ProtocolFatal {
                reason,
                opcode: None,
                detail,
            } => write!(f, "fatal {reason}: {detail}"),
            LostReason::Refused { reason, detail } => write!(f, "refused {reason}: {detail}"),
        }
    }
}

/// Errors of connecting (and of the spawned server's own setup).
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    #[error(
        "unknown transport {0:?} in MOBILEGL_TRANSPORT: valid values are monolith, inproc, spawn"
    )]
    UnknownTransport(String),
    #[error("unknown backend {0:?} in MOBILEGL_BACKEND: valid values are gles, vulkan")]
    UnknownBackend(String),
    #[error("bad link configuration: {0}")]
    BadConfig(String),
    #[error("{context}: {source}")]
    Io {
        context: &'static str,
        #[source]
        source: std::io::Error,
    },
    #[error("backend could not be created: {0}")]
    Backend(String),
    #[error("backend caps snapshot is malformed: {0}")]
    BadCaps(String),
    #[error("no server binary: {0}")]
    NoServer(String),
    #[error("server refused the link: {reason}: {detail}")]
    Refused {
        reason: RefuseReason,
        detail: String,
    },
    #[error("server died during the handshake: {0}")]
    ServerDied(String),
    #[error("malformed control message: {0}")]
    Handshake(String),
    #[error("link stopped on a fatal error: {reason}: {detail}")]
    Fatal { reason: FatalReason, detail: String },
}

impl TransportError {
    pub(crate) fn io(context: &'static str) -> impl FnOnce(std::io::Error) -> TransportError {
        move |source| TransportError::Io { context, source }
    }
}

impl From<rustix::io::Errno> for TransportError {
    fn from(e: rustix::io::Errno) -> Self {
        TransportError::Io {
            context: "system call",
            source: e.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip_and_unknown_names_valid_values() {
        for k in TransportKind::ALL {
            assert_eq!(k.to_string().parse::<TransportKind>().unwrap(), k);
        }
        let e = "tcp".parse::<TransportKind>().unwrap_err();
        let msg = e.to_string();
        assert!(matches!(e, TransportError::UnknownTransport(ref s) if s == "tcp"));
        for v in ["monolith", "inproc", "spawn"] {
            assert!(msg.contains(v), "{msg}");
        }
    }

    #[test]
    fn default_link_sizes() {
        let c = LinkConfig::default();
        assert_eq!(
            (c.cmd_bytes, c.stage_bytes, c.reply_bytes, c.event_bytes),
            (4 << 20, 64 << 20, 32 << 20, 256 << 10)
        );
        c.layout().validate().unwrap();
    }
}
