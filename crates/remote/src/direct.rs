//! `inproc` only: a reply written straight into the waiting caller's memory.
//!
//! The server thread of `inproc` lives in the application's process, and a
//! caller of `RingLink::call_into` (`glReadPixels` into client memory)
//! blocks until its reply is published. So instead of the server writing
//! the answer into REPLY and the client copying it out (a second pass over
//! every byte, across cores), the client lends its destination for that
//! one reply and the server writes there.
//!
//! The pointer never enters shared memory: it is handed over in this
//! process-private slot, which the spawn transport does not have (a child
//! process cannot write into the client). Lifetime rule: the server writes
//! only while holding the slot's lock and only for the reply sequence the
//! slot names; the client empties the slot under the same lock before
//! `call_into` returns, whatever the outcome (answer, loss, fatal stop), so
//! no write can land after the caller's buffer is given back.

use std::sync::{Mutex, MutexGuard};

/// The destination lent for the reply `seq`.
#[derive(Clone, Copy, Debug)]
struct Lent {
    seq: u32,
    /// Address of the caller's buffer (kept as an integer: the slot is
    /// shared with the server thread, and the address is only turned back
    /// into a slice under the lock).
    addr: usize,
    len: usize,
}

/// One lent destination at a time (the client has one call in flight).
#[derive(Debug, Default)]
pub(crate) struct DirectReply(Mutex<Option<Lent>>);

impl DirectReply {
    fn slot(&self) -> MutexGuard<'_, Option<Lent>> {
        // A panic while writing (caught by the server loop, which then
        // stops fatally) leaves nothing half-owned here: the slot is data.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Client: lend `dst` for the reply `seq`.
    pub fn lend(&self, seq: u32, dst: &mut [u8]) {
        *self.slot() = Some(Lent {
            seq,
            addr: dst.as_mut_ptr() as usize,
            len: dst.len(),
        });
    }

    /// Client: take the loan back. After this returns the server no longer
    /// writes into the buffer (it writes only under the lock, for a slot
    /// that is set).
    pub fn reclaim(&self) {
        *self.slot() = None;
    }

    /// Server: run `write` on the lent buffer when the slot is lent for
    /// `seq` and holds exactly `len` bytes; the result of `write` (true:
    /// the buffer was filled), or false when nothing was lent for it.
    pub fn write_with(&self, seq: u32, len: usize, write: impl FnOnce(&mut [u8]) -> bool) -> bool {
        let slot = self.slot();
        match *slot {
            Some(l) if l.seq == seq && l.len == len && len != 0 => {
                // SAFETY: the client lent `len` writable bytes at `addr`
                // for reply `seq` and blocks until that reply is published
                // or it reclaims the slot, which needs this lock: while we
                // hold it the buffer is live and nobody else touches it.
                let dst = unsafe { std::slice::from_raw_parts_mut(l.addr as *mut u8, l.len) };
                write(dst)
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_only_for_the_lent_sequence_and_length() {
        let d = DirectReply::default();
        let mut buf = [0u8; 4];
        assert!(!d.write_with(1, 4, |_| true), "nothing lent");
        d.lend(7, &mut buf);
        assert!(!d.write_with(6, 4, |_| true), "other sequence");
        assert!(!d.write_with(7, 3, |_| true), "other length");
        assert!(d.write_with(7, 4, |b| {
            b.copy_from_slice(&[1, 2, 3, 4]);
            true
        }));
        assert!(!d.write_with(7, 4, |_| false), "declined write");
        d.reclaim();
        assert!(!d.write_with(7, 4, |_| true), "reclaimed");
        assert_eq!(buf, [1, 2, 3, 4]);
    }
}
