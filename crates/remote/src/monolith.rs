//! `monolith`: the applier called directly on the app thread through
//! `mgpipe::Direct` (no records, no copy, no thread).
//!
//! Differences from the ring transports, named: there is no STAGE/REPLY
//! segment, so no blob or reply size limit applies; `doorbells`,
//! `stage_waits` and `publishes` stay 0. A backend panic is caught and named
//! (`BackendPanic`) exactly like a server would publish it.
//!
//! Threads: the transport (and with it the applier) may move between
//! threads and is used from one thread at a time (the frontend serialises
//! all GL work under one lock). The factory's applier type is not `Send`, so
//! this relies on the [`BackendFactory`](crate::BackendFactory) contract: an
//! applier tolerates being called from whichever thread holds the transport
//! (`GlesBackend` re-makes its native context current on the calling
//! thread). A change of thread is logged once.

use std::panic::{catch_unwind, AssertUnwindSafe};

use mgpipe::{Applier, Caps, Direct};

use crate::types::{FatalReason, LostReason, Stats, TransportError, TransportKind};
use crate::Transport;

pub(crate) struct Monolith {
    pub(crate) direct: Direct<Box<dyn Applier>>,
    caps: Caps,
    stats: Stats,
    lost: Option<LostReason>,
}

// SAFETY: the only non-Send part is the applier. `Monolith` is never shared
// (`&Monolith` exposes no applier access) and every use needs `&mut self`,
// so the applier is only ever used by one thread at a time; moving it
// between threads is what the `BackendFactory` contract allows (appliers
// must not depend on thread identity beyond re-binding their driver context
// on the calling thread, which `GlesBackend::prepare` does).
unsafe impl Send for Monolith {}

impl Monolith {
    pub(crate) fn connect(factory: &crate::BackendFactory) -> Result<Monolith, TransportError> {
        let mut applier = match catch_unwind(AssertUnwindSafe(|| factory())) {
            Ok(Ok(a)) => a,
            Ok(Err(e)) => return Err(TransportError::Backend(e)),
            Err(p) => {
                return Err(TransportError::Backend(format!(
                    "backend factory panicked: {}",
                    crate::panic_text(&*p)
                )))
            }
        };
        let caps = crate::query_caps(&mut *applier)?;
        Ok(Monolith {
            direct: Direct(applier),
            caps,
            stats: Stats::default(),
            lost: None,
        })
    }

    /// Called by the generated Pipe methods before forwarding: false after
    /// loss (the call is a no-op).
    #[inline(always)]
    pub(crate) fn begin(&mut self, bytes: usize, sync: bool) -> bool {
        if self.lost.is_some() {
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
    #[inline(always)]
    pub(crate) fn end(&mut self, opcode: mgpipe::Opcode, r: std::thread::Result<()>) -> bool {
        match r {
            Ok(()) => true,
            Err(p) => {
                self.backend_panicked(opcode, p);
                false
            }
        }
    }

    #[cold]
    #[inline(never)]
    fn backend_panicked(&mut self, opcode: mgpipe::Opcode, p: Box<dyn std::any::Any + Send>) {
        self.lose(LostReason::ProtocolFatal {
            reason: FatalReason::BackendPanic,
            opcode: Some(opcode as u16),
            detail: format!(
                "backend panicked in {}: {}",
                opcode.name(),
                crate::panic_text(&*p)
            ),
        });
    }

    fn lose(&mut self, why: LostReason) {
        if self.lost.is_none() {
            tracing::error!(
                transport = "monolith",
                "transport lost: {why}; GL calls continue as no-ops (context lost)"
            );
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
    fn poll_events(&mut self, out: &mut Vec<mgpipe::event::Event>) {
        if self.lost.is_some() {
            return;
        }
        let start = out.len();
        let a = &mut self.direct.0;
        if catch_unwind(AssertUnwindSafe(|| a.drain_events(out))).is_err() {
            tracing::error!("backend panicked while draining events; events dropped");
            out.truncate(start);
            return;
        }
        crate::log_backend_lines(out, start);
    }

    fn read_pixels_into(&mut self, p: &mgpipe::calls::ReadPixels, dst: &mut [u8]) -> bool {
        if !self.begin(core::mem::size_of::<mgpipe::calls::ReadPixels>(), true) {
            return false;
        }
        let a = &mut self.direct.0;
        let mut done = false;
        let r = catch_unwind(AssertUnwindSafe(|| done = a.read_pixels_into(p, dst)));
        self.end(mgpipe::Opcode::ReadPixels, r) && done
    }

    /// Decoded and dispatched on the calling thread, exactly as a server
    /// would (same checks, same named failure).
    fn push_raw(&mut self, record: &[u8], blob: &[u8]) {
        if self.lost.is_some() {
            return;
        }
        self.stats.records += 1;
        self.stats.bytes += (record.len() + blob.len()) as u64;
        let r = mgpipe::wire::split_record(record, 0).and_then(|(h, payload, _)| {
            let mut reply = Vec::new();
            let a = &mut self.direct.0;
            match catch_unwind(AssertUnwindSafe(|| {
                mgpipe::dispatch(&mut **a, h.opcode, payload, blob, &mut reply, 0)
            })) {
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
