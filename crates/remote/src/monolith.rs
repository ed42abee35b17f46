//! `monolith`: the applier called directly on the app thread through
//! `mgpipe::Direct` (no records, no copy, no thread).
//!
//! Differences from the ring transports, named: there is no STAGE/REPLY
//! segment, so no blob or reply size limit applies; `doorbells`,
//! `stage_waits` and `publishes` stay 0. A backend panic is caught and named
//! (`BackendPanic`) exactly like a server would publish it.
//!
//! Thread affinity: the factory's applier is not `Send` (a GLES backend binds
//! its context to the creating thread). The transport may move between
//! threads, but the applier is only ever called — and dropped — on the
//! thread that created it: a call from another thread makes the link lost
//! (`WrongThread`) and a drop there leaks the applier instead of running its
//! destructor on the wrong thread.

use std::mem::ManuallyDrop;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::thread::ThreadId;

use mgpipe::{Applier, Caps, Direct};

use crate::types::{FatalReason, LostReason, Stats, TransportError, TransportKind};
use crate::Transport;

pub(crate) struct Monolith {
    pub(crate) direct: ManuallyDrop<Direct<Box<dyn Applier>>>,
    owner: ThreadId,
    caps: Caps,
    stats: Stats,
    lost: Option<LostReason>,
}

// SAFETY: the only non-Send part is the applier, and it is touched (called
// or dropped) exclusively on `owner`, the thread that created it: `begin`
// and `push_raw` refuse other threads before any access, and `Drop` leaks
// the applier when run elsewhere. Moving the Box pointer itself between
// threads accesses nothing.
unsafe impl Send for Monolith {}

impl Drop for Monolith {
    fn drop(&mut self) {
        if std::thread::current().id() == self.owner {
            // SAFETY: dropped exactly once, here; never used afterwards.
            unsafe { ManuallyDrop::drop(&mut self.direct) };
        } else {
            tracing::warn!("monolith transport dropped off its backend's thread; backend leaked, not destroyed");
        }
    }
}

impl Monolith {
    pub(crate) fn connect(factory: &crate::BackendFactory) -> Result<Monolith, TransportError> {
        let mut applier = match catch_unwind(AssertUnwindSafe(|| factory())) {
            Ok(Ok(a)) => a,
            Ok(Err(e)) => return Err(TransportError::Backend(e)),
            Err(p) => return Err(TransportError::Backend(format!("backend factory panicked: {}", crate::panic_text(&*p)))),
        };
        let caps = crate::query_caps(&mut *applier)?;
        Ok(Monolith {
            direct: ManuallyDrop::new(Direct(applier)),
            owner: std::thread::current().id(),
            caps,
            stats: Stats::default(),
            lost: None,
        })
    }

    /// Called by the generated Pipe methods before forwarding: false after
    /// loss (the call is a no-op).
    #[inline]
    pub(crate) fn begin(&mut self, bytes: usize, sync: bool) -> bool {
        if self.lost.is_some() || !self.on_owner() {
            return false;
        }
        self.stats.records += 1;
        self.stats.bytes += bytes as u64;
        if sync {
            self.stats.blocking_round_trips += 1;
        }
        true
    }

    /// Called with the outcome of one forwarded call; false when it panicked
    /// (the transport is then lost with `BackendPanic`).
    #[inline]
    pub(crate) fn end(&mut self, opcode: mgpipe::Opcode, r: std::thread::Result<()>) -> bool {
        match r {
            Ok(()) => true,
            Err(p) => {
                self.lose(LostReason::ProtocolFatal {
                    reason: FatalReason::BackendPanic,
                    opcode: Some(opcode as u16),
                    detail: format!("backend panicked in {}: {}", opcode.name(), crate::panic_text(&*p)),
                });
                false
            }
        }
    }

    /// True on the backend's thread; elsewhere the link is lost by name.
    fn on_owner(&mut self) -> bool {
        if std::thread::current().id() == self.owner {
            return true;
        }
        self.lose(LostReason::ProtocolFatal {
            reason: FatalReason::WrongThread,
            opcode: None,
            detail: "monolith transport used from a thread other than its backend's".into(),
        });
        false
    }

    fn lose(&mut self, why: LostReason) {
        if self.lost.is_none() {
            tracing::error!(transport = "monolith", "transport lost: {why}; GL calls continue as no-ops (context lost)");
            self.lost = Some(why);
        }
    }
}

impl Transport for Monolith {
    fn kind(&self) -> TransportKind {
        TransportKind::Monolith
    }
    fn caps(&self) -> &Caps {
        &self.caps
    }
    fn flush(&mut self) {}
    fn lost(&self) -> Option<&LostReason> {
        self.lost.as_ref()
    }
    fn stats(&self) -> Stats {
        self.stats
    }

    /// Decoded and dispatched on the calling thread, exactly as a server
    /// would (same checks, same named failure).
    fn push_raw(&mut self, record: &[u8], blob: &[u8]) {
        if self.lost.is_some() || !self.on_owner() {
            return;
        }
        self.stats.records += 1;
        self.stats.bytes += (record.len() + blob.len()) as u64;
        let r = mgpipe::wire::split_record(record, 0).and_then(|(h, payload, _)| {
            let mut reply = Vec::new();
            let a = &mut self.direct.0;
            match catch_unwind(AssertUnwindSafe(|| mgpipe::dispatch(&mut **a, h.opcode, payload, blob, &mut reply, 0))) {
                Ok(r) => r,
                Err(p) => {
                    let msg = crate::panic_text(&*p);
                    self.lost = Some(LostReason::ProtocolFatal {
                        reason: FatalReason::BackendPanic,
                        opcode: Some(h.opcode),
                        detail: format!("backend panicked in opcode {}: {msg}", h.opcode),
                    });
                    Ok(())
                }
            }
        });
        if let Err(c) = r {
            self.lose(LostReason::ProtocolFatal {
                reason: FatalReason::ProtocolCorruption,
                opcode: (c.opcode != u16::MAX).then_some(c.opcode),
                detail: c.to_string(),
            });
        }
    }
}

include!(concat!(env!("OUT_DIR"), "/remote_glue_monolith.rs"));
