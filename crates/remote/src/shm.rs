//! Shared-memory segments: one memfd each, mapped `MAP_SHARED`.
//!
//! Every mapping of a segment is its own `mmap` of the fd: the inproc server
//! thread maps the memfd a second time exactly like a spawned child would, so
//! no pointer is ever shared between the two sides (DESIGN §1, rule E).
//!
//! All access goes through bounds-checked copies or through atomics at fixed
//! header offsets; the few raw-pointer operations carry a `// SAFETY:` line.

use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU32, AtomicU64};

use rustix::fs::MemfdFlags;
use rustix::mm::{MapFlags, ProtFlags};

/// One mapping of one shared segment.
#[derive(Debug)]
pub struct Segment {
    fd: OwnedFd,
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is plain shared memory owned by this value; every
// access from safe code goes through atomics or bounds-checked byte copies,
// which are sound from any thread. The pointer is not tied to a thread.
unsafe impl Send for Segment {}
// SAFETY: as above; `&Segment` only allows atomic access and copies.
unsafe impl Sync for Segment {}

impl Segment {
    /// Create a new zero-filled memfd of `len` bytes and map it.
    pub fn create(name: &str, len: usize) -> io::Result<Segment> {
        if len == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "zero-length segment",
            ));
        }
        let fd = rustix::fs::memfd_create(name, MemfdFlags::CLOEXEC | MemfdFlags::ALLOW_SEALING)?;
        rustix::fs::ftruncate(&fd, len as u64)?;
        Self::map(fd, len)
    }

    /// Map a segment received from a peer. Its size must be exactly
    /// `expected_len` (the size named in the handshake).
    pub fn from_fd(fd: OwnedFd, expected_len: usize) -> io::Result<Segment> {
        let st = rustix::fs::fstat(&fd)?;
        if st.st_size < 0 || st.st_size as u64 != expected_len as u64 || expected_len == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "segment is {} bytes, the link terms say {expected_len}",
                    st.st_size
                ),
            ));
        }
        Self::map(fd, expected_len)
    }

    /// A second, independent mapping of the same memfd (a dup of the fd,
    /// mapped again): what the inproc server thread uses.
    pub fn map_again(&self) -> io::Result<Segment> {
        let fd = self.fd.try_clone()?;
        Self::map(fd, self.len)
    }

    fn map(fd: OwnedFd, len: usize) -> io::Result<Segment> {
        // SAFETY: a fresh shared mapping of a file we hold open, at an address
        // the kernel picks; nothing else in this process aliases it as a Rust
        // object. It is unmapped exactly once in Drop.
        let ptr = unsafe {
            rustix::mm::mmap(
                std::ptr::null_mut(),
                len,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::SHARED,
                &fd,
                0,
            )?
        };
        let ptr =
            NonNull::new(ptr.cast::<u8>()).ok_or_else(|| io::Error::other("mmap returned null"))?;
        Ok(Segment { fd, ptr, len })
    }

    pub fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// The atomic `u32` at byte offset `off`. `None` when out of bounds or
    /// misaligned (callers use fixed header offsets checked at link setup).
    pub fn u32_at(&self, off: usize) -> Option<&AtomicU32> {
        if off & 3 != 0 || off.checked_add(4)? > self.len {
            return None;
        }
        // SAFETY: in bounds and 4-aligned (the mapping is page-aligned); the
        // memory lives as long as `self`; shared memory is only ever accessed
        // atomically at this offset by both peers.
        Some(unsafe { &*self.ptr.as_ptr().add(off).cast::<AtomicU32>() })
    }

    /// The atomic `u64` at byte offset `off` (see [`Segment::u32_at`]).
    pub fn u64_at(&self, off: usize) -> Option<&AtomicU64> {
        if off & 7 != 0 || off.checked_add(8)? > self.len {
            return None;
        }
        // SAFETY: in bounds and 8-aligned; lives as long as `self`; accessed
        // only atomically at this offset by both peers.
        Some(unsafe { &*self.ptr.as_ptr().add(off).cast::<AtomicU64>() })
    }

    /// Copy `src` into the segment at `off`. False when out of bounds.
    #[inline]
    pub fn write(&self, off: usize, src: &[u8]) -> bool {
        match off.checked_add(src.len()) {
            Some(end) if end <= self.len => {}
            _ => return false,
        }
        // SAFETY: the destination range is inside the mapping (checked above)
        // and cannot overlap `src`, which is process-private memory. The ring
        // protocol gives this side exclusive ownership of the range.
        unsafe { copy_raw(self.ptr.as_ptr().add(off), src.as_ptr(), src.len()) };
        true
    }

    /// Replace `out`'s contents with the `len` bytes at `off` (no zero fill
    /// first: the per-record copy of the server loop). False, `out` empty,
    /// when out of bounds.
    pub fn read_to_vec(&self, off: usize, len: usize, out: &mut Vec<u8>) -> bool {
        out.clear();
        match off.checked_add(len) {
            Some(end) if end <= self.len => {}
            _ => return false,
        }
        out.reserve(len);
        // SAFETY: the source range is inside the mapping (checked above);
        // `out` has room for `len` bytes (reserved) in process-private
        // memory, so the ranges cannot overlap; all `len` bytes are written
        // before the length is set.
        unsafe {
            copy_raw(out.as_mut_ptr(), self.ptr.as_ptr().add(off), len);
            out.set_len(len);
        }
        true
    }

    /// Copy bytes at `off` out of the segment into `dst`. False when out of
    /// bounds.
    pub fn read(&self, off: usize, dst: &mut [u8]) -> bool {
        match off.checked_add(dst.len()) {
            Some(end) if end <= self.len => {}
            _ => return false,
        }
        // SAFETY: the source range is inside the mapping (checked above);
        // `dst` is process-private memory, so the ranges cannot overlap.
        unsafe { copy_raw(dst.as_mut_ptr(), self.ptr.as_ptr().add(off), dst.len()) };
        true
    }

    /// Borrow `len` bytes at `off` in place (zero-copy blobs on the server).
    /// `None` when out of bounds.
    ///
    /// # Safety
    /// The caller must hold the ring-protocol ownership of the range for the
    /// whole borrow: the peer does not write it until this side releases it.
    pub unsafe fn slice(&self, off: usize, len: usize) -> Option<&[u8]> {
        match off.checked_add(len) {
            Some(end) if end <= self.len => {}
            _ => return None,
        }
        // SAFETY: in bounds (checked above); the caller guarantees nobody
        // writes the range while the borrow lives.
        Some(unsafe { std::slice::from_raw_parts(self.ptr.as_ptr().add(off), len) })
    }
}

impl Segment {
    /// Borrow `len` bytes at `off` mutably, in place (a reply written where
    /// the peer reads it). `None` when out of bounds.
    ///
    /// # Safety
    /// The caller must hold the ring-protocol ownership of the range for the
    /// whole borrow (the peer neither reads nor writes it until this side
    /// publishes), and must not create another borrow of it meanwhile.
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn slice_mut(&self, off: usize, len: usize) -> Option<&mut [u8]> {
        match off.checked_add(len) {
            Some(end) if end <= self.len => {}
            _ => return None,
        }
        // SAFETY: in bounds (checked above); exclusive by the caller's
        // ownership of the range.
        Some(unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr().add(off), len) })
    }
}

/// `copy_nonoverlapping` in the pieces `mgpipe::bytes::piece_len` asks for
/// (a large copy whose addresses would stall glibc's `rep movsb`).
///
/// # Safety
/// As `std::ptr::copy_nonoverlapping(src, dst, n)`.
unsafe fn copy_raw(dst: *mut u8, src: *const u8, n: usize) {
    let piece = mgpipe::bytes::piece_len(dst as usize, src as usize, n).max(1);
    let mut at = 0;
    while at < n {
        let len = piece.min(n - at);
        // SAFETY: `at + len <= n`; the caller's guarantee for the whole
        // ranges covers every piece.
        unsafe { std::ptr::copy_nonoverlapping(src.add(at), dst.add(at), len) };
        at += len;
    }
}

impl Drop for Segment {
    fn drop(&mut self) {
        // SAFETY: `ptr`/`len` are exactly the mapping created in `map`, not
        // unmapped before; every reference handed out borrows `self`, so none
        // outlives this call.
        let _ = unsafe { rustix::mm::munmap(self.ptr.as_ptr().cast(), self.len) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn second_mapping_sees_the_same_bytes_at_a_different_address() {
        let a = Segment::create("mgl-test", 8192).unwrap();
        let b = a.map_again().unwrap();
        assert_ne!(a.ptr, b.ptr, "a second mapping, never an alias");
        assert!(a.write(100, b"hello"));
        let mut buf = [0u8; 5];
        assert!(b.read(100, &mut buf));
        assert_eq!(&buf, b"hello");
        a.u64_at(8).unwrap().store(42, Ordering::Release);
        assert_eq!(b.u64_at(8).unwrap().load(Ordering::Acquire), 42);
        assert!(!a.write(8190, b"abc"));
        assert!(a.u32_at(8190).is_none());
        assert!(a.u64_at(4).is_none());
    }

    #[test]
    fn from_fd_checks_the_size() {
        let a = Segment::create("mgl-test", 4096).unwrap();
        let fd = a.fd().try_clone_to_owned().unwrap();
        assert!(Segment::from_fd(fd, 8192).is_err());
        let fd = a.fd().try_clone_to_owned().unwrap();
        assert!(Segment::from_fd(fd, 4096).is_ok());
    }
}
