//! `inproc`: the ring protocol to a server thread of this process. The
//! thread maps every memfd a second time (never the client's pointers) and
//! creates the applier itself (a GLES backend binds its context to the
//! thread that creates it).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::thread::JoinHandle;

use mgpipe::{Caps, Encoder};

use crate::client::{PeerFlags, PeerLife, RingLink};
use crate::direct::DirectReply;
use crate::layout::{Segments, ServerState};
use crate::server::{FatalInfo, ServeEnd, ServerLink};
use crate::types::{FatalReason, LinkConfig, TransportError, TransportKind};
use crate::{ApplierDispatch, BackendFactory, Transport};

struct InprocPeer {
    thread: Option<JoinHandle<()>>,
}

impl PeerLife for InprocPeer {
    fn shutdown(&mut self) {
        if let Some(t) = self.thread.take() {
            if t.join().is_err() {
                tracing::error!("inproc server thread panicked");
            }
        }
    }

    fn shutdown_within(&mut self, grace: std::time::Duration) {
        let Some(t) = self.thread.take() else {
            return;
        };
        let until = std::time::Instant::now() + grace;
        while !t.is_finished() && std::time::Instant::now() < until {
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        if t.is_finished() {
            let _ = t.join();
        } else {
            // Left to the process exit: joining could wait forever on a
            // driver whose statics are already destroyed.
            tracing::warn!(
                ?grace,
                "inproc server thread still busy at exit; not waited for"
            );
        }
    }
}

pub(crate) fn connect(
    cfg: &LinkConfig,
    factory: BackendFactory,
) -> Result<Box<dyn Transport>, TransportError> {
    let layout = cfg.layout();
    layout.validate().map_err(TransportError::BadConfig)?;
    let seg =
        Segments::create(layout).map_err(TransportError::io("creating the shared segments"))?;
    let server_seg = seg
        .map_again()
        .map_err(TransportError::io("mapping the shared segments again"))?;
    let direct = Arc::new(DirectReply::default());
    let server_direct = direct.clone();
    let (tx, rx) = std::sync::mpsc::channel::<Result<Caps, TransportError>>();
    let thread = std::thread::Builder::new()
        .name("mobilegl-server".into())
        .spawn(move || {
            let mut link = ServerLink::new(server_seg).with_direct(server_direct);
            let made = catch_unwind(AssertUnwindSafe(|| factory()));
            let mut applier = match made {
                Ok(Ok(a)) => a,
                Ok(Err(e)) => {
                    link.set_state(ServerState::Exited);
                    let _ = tx.send(Err(TransportError::Backend(e)));
                    return;
                }
                Err(p) => {
                    link.set_state(ServerState::Exited);
                    let _ = tx.send(Err(TransportError::Backend(format!(
                        "backend factory panicked: {}",
                        crate::panic_text(&*p)
                    ))));
                    return;
                }
            };
            match crate::query_caps(&mut *applier) {
                Ok(caps) => {
                    let _ = tx.send(Ok(caps));
                }
                Err(e) => {
                    link.set_state(ServerState::Exited);
                    let _ = tx.send(Err(e));
                    return;
                }
            }
            drop(tx);
            tracing::info!("mobilegl inproc server thread running");
            let served = catch_unwind(AssertUnwindSafe(|| {
                link.serve(&mut ApplierDispatch(&mut *applier))
            }));
            match served {
                Ok(ServeEnd::Fatal(f)) => {
                    tracing::error!(reason = %f.reason, "inproc server stopped: {}", f.detail)
                }
                Ok(end) => tracing::debug!(?end, "inproc server stopped"),
                // Never leave the client waiting on a dead thread.
                Err(p) => link.publish_fatal(&FatalInfo {
                    reason: FatalReason::BackendPanic,
                    opcode: None,
                    offset: 0,
                    detail: format!("inproc server thread panicked: {}", crate::panic_text(&*p)),
                }),
            }
        })
        .map_err(TransportError::io("spawning the inproc server thread"))?;
    let caps = match rx.recv() {
        Ok(Ok(caps)) => caps,
        Ok(Err(e)) => {
            let _ = thread.join();
            return Err(e);
        }
        Err(_) => {
            let _ = thread.join();
            return Err(TransportError::ServerDied(
                "inproc server thread ended before it reported caps".into(),
            ));
        }
    };
    let flags = Arc::new(PeerFlags::default());
    let link = RingLink::new(
        TransportKind::Inproc,
        seg,
        caps,
        flags,
        Box::new(InprocPeer {
            thread: Some(thread),
        }),
    )
    .with_direct(direct);
    Ok(Box::new(Encoder(link)))
}
