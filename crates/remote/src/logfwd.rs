//! `on_log` for a spawned server: a `tracing` layer that queues the server's
//! own log lines while a client is attached, so the serve loop forwards them
//! through the EVENT ring (the client re-logs them tagged with the server's
//! pid). While forwarding is on, the server's stderr layer stays quiet
//! ([`forwarding`]) so a line is not printed twice; before the handshake and
//! after the client is gone, lines go to stderr as usual.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use mgpipe::event::{Event, LogLevel};
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::Context;
use tracing_subscriber::Layer;

/// Lines queued and not yet forwarded; older lines win when it is full.
const QUEUE_MAX: usize = 1024;

static ACTIVE: AtomicBool = AtomicBool::new(false);
static QUEUE: Mutex<VecDeque<(LogLevel, String)>> = Mutex::new(VecDeque::new());
static DROPPED: AtomicU64 = AtomicU64::new(0);

/// Whether log lines currently travel to the client (the stderr layer's
/// filter: `!forwarding()`).
pub fn forwarding() -> bool {
    ACTIVE.load(Relaxed)
}

/// Turn forwarding on (a client is attached and the serve loop runs) or off.
pub(crate) fn set_forwarding(on: bool) {
    ACTIVE.store(on, Relaxed);
}

/// Move queued lines into `out` as `Event::Log`, oldest first.
pub(crate) fn drain(out: &mut Vec<Event>) {
    if !forwarding() {
        return;
    }
    let Ok(mut q) = QUEUE.lock() else {
        return;
    };
    out.extend(q.drain(..).map(|(level, text)| Event::Log { level, text }));
    let dropped = DROPPED.swap(0, Relaxed);
    if dropped > 0 {
        out.push(Event::Log {
            level: LogLevel::Warn,
            text: format!("{dropped} server log lines dropped (forwarding queue full)"),
        });
    }
}

/// The layer that queues formatted lines while forwarding is on.
pub struct ForwardLayer;

struct Line(String);

impl Visit for Line {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.0, "{value:?}");
        } else {
            let _ = write!(self.0, " {}={value:?}", field.name());
        }
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.0.push_str(value);
        } else {
            let _ = write!(self.0, " {}={value}", field.name());
        }
    }
}

impl<S: tracing::Subscriber> Layer<S> for ForwardLayer {
    fn on_event(&self, event: &tracing::Event<'_>, _ctx: Context<'_, S>) {
        if !forwarding() {
            return;
        }
        let meta = event.metadata();
        let level = match *meta.level() {
            tracing::Level::ERROR => LogLevel::Error,
            tracing::Level::WARN => LogLevel::Warn,
            _ => LogLevel::Info,
        };
        let mut line = Line(String::new());
        event.record(&mut line);
        let Ok(mut q) = QUEUE.lock() else {
            return;
        };
        if q.len() >= QUEUE_MAX {
            DROPPED.fetch_add(1, Relaxed);
        } else {
            q.push_back((level, line.0));
        }
    }
}
