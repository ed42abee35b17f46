//! Doorbells: a `u32` in shared memory and the non-private futex calls, so
//! a wake in one process reaches a waiter in another (same physical page).
//!
//! Protocol (no lost wake-up): the waiter spins briefly, then stores
//! [`SLEEPING`], re-checks its condition, and only then waits with the
//! expected value [`SLEEPING`]; the waker publishes its data first, then
//! rings only when it sees [`SLEEPING`] ([`ring`]). Both sides use `SeqCst`
//! for the publish/check pair, so at least one sees the other's store.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

/// The waiter is not asleep.
pub const AWAKE: u32 = 0;
/// The waiter published that it is going to sleep.
pub const SLEEPING: u32 = 1;

/// `FUTEX_WAIT(word, expected)`: returns when woken, when the word no longer
/// holds `expected`, on a signal, or after `timeout` (None: no timeout).
pub fn wait(word: &AtomicU32, expected: u32, timeout: Option<Duration>) {
    let ts = timeout.map(|d| libc::timespec {
        tv_sec: d.as_secs().min(i64::MAX as u64) as libc::time_t,
        tv_nsec: d.subsec_nanos() as libc::c_long,
    });
    let ts_ptr = ts
        .as_ref()
        .map_or(std::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: `word` is a live, 4-aligned u32 (an AtomicU32) for the duration
    // of the call; `ts_ptr` is null or points at a timespec on this stack
    // frame. FUTEX_WAIT (not _PRIVATE) so the word may live in memory shared
    // with another process. Errors (EAGAIN, EINTR, ETIMEDOUT) all mean
    // "re-check", which every caller does.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT,
            expected,
            ts_ptr,
            std::ptr::null::<u32>(),
            0u32,
        );
    }
}

/// `FUTEX_WAKE(word, all)`.
pub fn wake(word: &AtomicU32) {
    // SAFETY: `word` is a live, aligned u32; FUTEX_WAKE only uses the address
    // as a key and never dereferences anything else.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAKE,
            i32::MAX,
            std::ptr::null::<libc::timespec>(),
            std::ptr::null::<u32>(),
            0u32,
        );
    }
}

/// Waker side: after publishing (with `SeqCst`), ring only if the peer said
/// it sleeps. Returns true when a wake syscall was made.
pub fn ring(word: &AtomicU32) -> bool {
    if word.load(Ordering::SeqCst) == SLEEPING {
        word.store(AWAKE, Ordering::SeqCst);
        wake(word);
        true
    } else {
        false
    }
}

/// How long a waiter spins before it publishes SLEEPING.
pub const SPIN_ROUNDS: u32 = 64;
/// How many `yield_now` rounds follow the spin.
pub const YIELD_ROUNDS: u32 = 4;
/// How long a waiter keeps polling (yielding) before it sleeps.
pub const POLL_WINDOW: Duration = Duration::from_micros(100);

/// Waiter side. Blocks until `ready()` holds, using `word` as this waiter's
/// doorbell. `slice` bounds each futex wait (None: unbounded; a wake is
/// guaranteed by the protocol). Returns how many times it slept (futex
/// waits), 0 when the condition held while it spun or polled.
pub fn wait_until(word: &AtomicU32, slice: Option<Duration>, ready: impl FnMut() -> bool) -> u32 {
    wait_until_polling(word, slice, true, ready)
}

/// [`wait_until`], where `poll: false` skips the yield rounds and the poll
/// window: for a waiter that knows the condition is far off (a long
/// backlog ahead of its request), polling would only burn its CPU time.
pub fn wait_until_polling(
    word: &AtomicU32,
    slice: Option<Duration>,
    poll: bool,
    mut ready: impl FnMut() -> bool,
) -> u32 {
    for _ in 0..SPIN_ROUNDS {
        if ready() {
            return 0;
        }
        std::hint::spin_loop();
    }
    if poll {
        for _ in 0..YIELD_ROUNDS {
            if ready() {
                return 0;
            }
            std::thread::yield_now();
        }
        // Then poll for a bounded time, yielding between looks: on small
        // machines (and VMs, where a wake-up is an IPI) a futex sleep/wake
        // pair costs tens of microseconds, more than the usual gap between
        // a batch and the next one, or a request and its reply.
        let start = std::time::Instant::now();
        while start.elapsed() < POLL_WINDOW {
            if ready() {
                return 0;
            }
            std::thread::yield_now();
        }
    }
    let mut sleeps = 0u32;
    loop {
        word.store(SLEEPING, Ordering::SeqCst);
        if ready() {
            word.store(AWAKE, Ordering::SeqCst);
            return sleeps;
        }
        wait(word, SLEEPING, slice);
        sleeps = sleeps.saturating_add(1);
        word.store(AWAKE, Ordering::SeqCst);
        if ready() {
            return sleeps;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    #[test]
    fn no_lost_wakeup_under_ping_pong() {
        let bell = Arc::new(AtomicU32::new(AWAKE));
        let flag = Arc::new(AtomicU32::new(0));
        let done = Arc::new(AtomicBool::new(false));
        let (b2, f2, d2) = (bell.clone(), flag.clone(), done.clone());
        let t = std::thread::spawn(move || {
            for i in 1..=2000u32 {
                wait_until(&b2, None, || f2.load(Ordering::SeqCst) >= i);
            }
            d2.store(true, Ordering::SeqCst);
        });
        for i in 1..=2000u32 {
            flag.store(i, Ordering::SeqCst);
            ring(&bell);
            if i % 97 == 0 {
                std::thread::yield_now();
            }
        }
        t.join().unwrap();
        assert!(done.load(Ordering::SeqCst));
    }
}
