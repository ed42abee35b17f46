//! Host memory for the command pool: size-class free lists behind
//! `VkAllocationCallbacks`.
//!
//! Why: drivers that record commands on the host (lavapipe, and Mesa's
//! common `vk_cmd_queue` in general) allocate one entry per `vkCmd*` call,
//! plus one per array argument, from the command pool's allocator, and free
//! them all when the command buffer is reset. With the default allocator
//! that is five `malloc`/`free` pairs per indexed draw with dynamic offsets;
//! callgrind of `monolith+vulkan` `ubo` put glibc's allocator at a third of
//! our thread's instructions (1.7 k of 5.3 k per draw), most of it in
//! `_int_malloc`/`_int_free` walking fragmented bins. Entries have a few
//! fixed sizes and are recycled every frame, so a free list per size class
//! serves them in a handful of instructions.
//!
//! Owns: the blocks it carved chunks from (kept until it is dropped; a
//! class's free list holds the peak of what the pool needed). Large or
//! over-aligned requests go to the system allocator with a header saying
//! so. Must outlive every object created with its callbacks (the pool).

use ash::vk;
use parking_lot::Mutex;
use std::alloc::Layout;
use std::ffi::c_void;

/// Chunk sizes, header included. Requests above the last go to the system.
const CLASSES: [usize; 8] = [32, 64, 128, 256, 512, 1024, 2048, 4096];
/// Bytes before every returned pointer: the tag word and, for system
/// allocations, the total size.
const HEADER: usize = 16;
/// Alignment of every chunk (and of what `alloc` returns for small requests).
const CHUNK_ALIGN: usize = 16;
/// Blocks chunks are carved from.
const BLOCK: usize = 64 * 1024;
/// Tag bit of a system allocation; the low bits hold its alignment.
const SYSTEM: u64 = 1 << 63;

struct Inner {
    /// Head of each class's free list (null: empty). A free chunk keeps
    /// its class tag in its first word and the next free chunk in its
    /// second (both inside the header), so push and pop touch no other
    /// memory.
    free: [*mut u8; CLASSES.len()],
    blocks: Vec<*mut u8>,
    /// Unused tail of the newest block.
    cursor: *mut u8,
    left: usize,
}

/// The allocator; hand [`CommandAllocator::callbacks`] to the pool's create
/// and destroy calls. Boxed by the owner so the callbacks' user pointer
/// stays valid.
pub(crate) struct CommandAllocator {
    inner: Mutex<Inner>,
}

// SAFETY: the raw pointers in `Inner` are owned memory only reached under
// the mutex; nothing is tied to the thread that made them.
unsafe impl Send for CommandAllocator {}
// SAFETY: as above; every access goes through the mutex.
unsafe impl Sync for CommandAllocator {}

fn block_layout() -> Layout {
    // BLOCK and CHUNK_ALIGN are non-zero powers of two.
    Layout::from_size_align(BLOCK, CHUNK_ALIGN).unwrap_or(Layout::new::<[u128; 4096]>())
}

impl CommandAllocator {
    pub fn new() -> Box<Self> {
        Box::new(CommandAllocator {
            inner: Mutex::new(Inner {
                free: [std::ptr::null_mut(); CLASSES.len()],
                blocks: Vec::new(),
                cursor: std::ptr::null_mut(),
                left: 0,
            }),
        })
    }

    /// Callbacks whose user pointer is `self` (valid while `self` lives at
    /// this address).
    pub fn callbacks(&self) -> vk::AllocationCallbacks<'_> {
        vk::AllocationCallbacks::default()
            .user_data((self as *const Self).cast_mut().cast())
            .pfn_allocation(Some(vk_alloc))
            .pfn_reallocation(Some(vk_realloc))
            .pfn_free(Some(vk_free))
    }

    /// `size` bytes aligned to `align`; null when out of memory.
    pub fn alloc(&self, size: usize, align: usize) -> *mut u8 {
        let align = align.max(1);
        if !align.is_power_of_two() {
            return std::ptr::null_mut();
        }
        if align <= CHUNK_ALIGN {
            if let Some(class) = class_of(size) {
                return self.alloc_small(class);
            }
        }
        alloc_system(size, align)
    }

    fn alloc_small(&self, class: usize) -> *mut u8 {
        let mut g = self.inner.lock();
        let head = g.free[class];
        let chunk = if !head.is_null() {
            // SAFETY: a chunk on the free list: its second word holds the
            // next free chunk of the class (written by `free`).
            g.free[class] = unsafe { head.add(8).cast::<*mut u8>().read() };
            head
        } else {
            let want = CLASSES[class];
            if g.left < want {
                // SAFETY: a non-zero layout.
                let b = unsafe { std::alloc::alloc(block_layout()) };
                if b.is_null() {
                    return b;
                }
                g.blocks.push(b);
                g.cursor = b;
                g.left = BLOCK;
            }
            let p = g.cursor;
            // SAFETY: `want <= left`, so the new cursor stays inside (or
            // one past) the block.
            g.cursor = unsafe { p.add(want) };
            g.left -= want;
            p
        };
        // SAFETY: `chunk` is CHUNK_ALIGN-aligned and at least HEADER + 16
        // bytes long; the tag goes in its first word.
        unsafe {
            chunk.cast::<u64>().write(class as u64);
            chunk.add(HEADER)
        }
    }

    /// Bytes usable at `p` (from this allocator, not null).
    ///
    /// # Safety
    /// `p` came from [`CommandAllocator::alloc`] and was not freed.
    unsafe fn usable(p: *mut u8) -> usize {
        // SAFETY: per the contract, the tag word precedes `p` (written by
        // `alloc_small` or `alloc_system`).
        let tag = unsafe { p.sub(HEADER).cast::<u64>().read() };
        if tag & SYSTEM != 0 {
            // SAFETY: system allocations also wrote the total size.
            let total = unsafe { p.sub(HEADER - 8).cast::<u64>().read() };
            total as usize - (tag & !SYSTEM) as usize
        } else {
            CLASSES[tag as usize] - HEADER
        }
    }

    /// Give `p` back (null: nothing).
    ///
    /// # Safety
    /// `p` is null or came from [`CommandAllocator::alloc`] and was not freed.
    pub unsafe fn free(&self, p: *mut u8) {
        if p.is_null() {
            return;
        }
        // SAFETY: per the contract, the tag word precedes `p`.
        let tag = unsafe { p.sub(HEADER).cast::<u64>().read() };
        if tag & SYSTEM != 0 {
            // SAFETY: system allocations also wrote the total size (small
            // chunks leave that word uninitialised, so it is read only here).
            let total = unsafe { p.sub(HEADER - 8).cast::<u64>().read() };
            let align = (tag & !SYSTEM) as usize;
            // SAFETY: the same layout `alloc_system` allocated with; the
            // block starts `align` bytes before `p`.
            unsafe {
                std::alloc::dealloc(
                    p.sub(align),
                    Layout::from_size_align_unchecked(total as usize, align),
                )
            };
        } else {
            let chunk = p.wrapping_sub(HEADER);
            let mut g = self.inner.lock();
            let class = (tag as usize).min(CLASSES.len() - 1);
            // SAFETY: the chunk's header is ours (HEADER bytes before `p`);
            // its second word holds the list link while the chunk is free.
            unsafe { chunk.add(8).cast::<*mut u8>().write(g.free[class]) };
            g.free[class] = chunk;
        }
    }

    /// Resize `p` (null: a fresh allocation; size 0: free).
    ///
    /// # Safety
    /// As for [`CommandAllocator::free`].
    pub unsafe fn realloc(&self, p: *mut u8, size: usize, align: usize) -> *mut u8 {
        if p.is_null() {
            return self.alloc(size, align);
        }
        if size == 0 {
            // SAFETY: forwarded contract.
            unsafe { self.free(p) };
            return std::ptr::null_mut();
        }
        let n = self.alloc(size, align);
        if !n.is_null() {
            // SAFETY: `p` holds `usable(p)` bytes, `n` at least `size`; the
            // two are distinct allocations.
            unsafe {
                std::ptr::copy_nonoverlapping(p, n, Self::usable(p).min(size));
                self.free(p);
            }
        }
        n
    }
}

/// The size class of a `size`-byte request (header included), None when
/// it is larger than the largest class.
#[inline]
fn class_of(size: usize) -> Option<usize> {
    let need = size.checked_add(HEADER)?;
    // CLASSES are 32 << class: 32 and below is class 0, else the power of
    // two at or above `need`.
    let class = if need <= CLASSES[0] {
        0
    } else {
        ((need - 1).ilog2() + 1 - CLASSES[0].trailing_zeros()) as usize
    };
    (class < CLASSES.len()).then_some(class)
}

/// A system allocation with the header in front: `align` (at least HEADER)
/// bytes of prefix, the tag in its last 16.
fn alloc_system(size: usize, align: usize) -> *mut u8 {
    let align = align.max(HEADER);
    let Some(total) = size.checked_add(align) else {
        return std::ptr::null_mut();
    };
    let Ok(layout) = Layout::from_size_align(total, align) else {
        return std::ptr::null_mut();
    };
    // SAFETY: `total > 0`.
    let raw = unsafe { std::alloc::alloc(layout) };
    if raw.is_null() {
        return raw;
    }
    // SAFETY: `align >= HEADER`, so the header fits in the prefix.
    unsafe {
        let p = raw.add(align);
        p.sub(HEADER).cast::<u64>().write(SYSTEM | align as u64);
        p.sub(HEADER - 8).cast::<u64>().write(total as u64);
        p
    }
}

impl Drop for CommandAllocator {
    fn drop(&mut self) {
        let g = self.inner.get_mut();
        for b in g.blocks.drain(..) {
            // SAFETY: every block was allocated with this layout; the pool
            // using the chunks is gone (the owner drops us after destroying
            // it).
            unsafe { std::alloc::dealloc(b, block_layout()) };
        }
    }
}

/// Recover the allocator from a callback's user pointer.
///
/// # Safety
/// `user` is the pointer [`CommandAllocator::callbacks`] put there.
unsafe fn this<'a>(user: *mut c_void) -> &'a CommandAllocator {
    // SAFETY: per the contract, `user` points at a live allocator.
    unsafe { &*user.cast::<CommandAllocator>() }
}

unsafe extern "system" fn vk_alloc(
    user: *mut c_void,
    size: usize,
    align: usize,
    _scope: vk::SystemAllocationScope,
) -> *mut c_void {
    // SAFETY: the driver passes back the user pointer of our callbacks.
    unsafe { this(user) }.alloc(size, align).cast()
}

unsafe extern "system" fn vk_realloc(
    user: *mut c_void,
    original: *mut c_void,
    size: usize,
    align: usize,
    _scope: vk::SystemAllocationScope,
) -> *mut c_void {
    // SAFETY: the user pointer is ours; `original` is null or one of our
    // allocations (Vulkan's contract for pfnReallocation).
    unsafe { this(user).realloc(original.cast(), size, align) }.cast()
}

unsafe extern "system" fn vk_free(user: *mut c_void, memory: *mut c_void) {
    // SAFETY: the user pointer is ours; `memory` is null or one of our
    // allocations (Vulkan's contract for pfnFree).
    unsafe { this(user).free(memory.cast()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_of_is_the_smallest_class_that_fits() {
        for size in 0..5000usize {
            let want = CLASSES.iter().position(|c| size + HEADER <= *c);
            assert_eq!(class_of(size), want, "size {size}");
        }
        assert_eq!(class_of(usize::MAX), None);
    }

    #[test]
    fn small_chunks_are_recycled_by_class() {
        let a = CommandAllocator::new();
        let p = a.alloc(40, 8);
        assert!(!p.is_null());
        assert_eq!(p as usize % CHUNK_ALIGN, 0);
        // SAFETY: `p` is live and 40 bytes long.
        unsafe {
            std::ptr::write_bytes(p, 0xab, 40);
            a.free(p);
        }
        // Same class (64-byte chunks): the freed chunk comes back.
        assert_eq!(a.alloc(33, 16), p);
        // Another class: another chunk.
        assert_ne!(a.alloc(200, 8), p);
    }

    #[test]
    fn large_and_overaligned_requests_use_the_system() {
        let a = CommandAllocator::new();
        for (size, align) in [(10_000, 8), (64, 256), (0, 4096)] {
            let p = a.alloc(size, align);
            assert!(!p.is_null());
            assert_eq!(p as usize % align, 0, "{size} bytes at {align}");
            // SAFETY: `p` is live and `size` bytes long.
            unsafe {
                std::ptr::write_bytes(p, 1, size);
                a.free(p);
            }
        }
        assert!(a.alloc(8, 3).is_null(), "alignment must be a power of two");
    }

    #[test]
    fn realloc_keeps_contents_across_classes() {
        let a = CommandAllocator::new();
        let p = a.alloc(16, 8);
        // SAFETY: every pointer below is live for the sizes used.
        unsafe {
            for i in 0..16 {
                p.add(i).write(i as u8);
            }
            let q = a.realloc(p, 3000, 8);
            let r = a.realloc(q, 9000, 8);
            for i in 0..16 {
                assert_eq!(r.add(i).read(), i as u8);
            }
            let s = a.realloc(r, 8, 8);
            assert_eq!(s.add(7).read(), 7);
            assert!(a.realloc(s, 0, 8).is_null());
        }
    }

    #[test]
    fn blocks_are_carved_until_exhausted() {
        let a = CommandAllocator::new();
        let n = BLOCK / 4096 + 3;
        let ps: Vec<_> = (0..n).map(|_| a.alloc(4000, 16)).collect();
        assert!(ps.iter().all(|p| !p.is_null()));
        let mut sorted = ps.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), n, "chunks are distinct");
        assert_eq!(a.inner.lock().blocks.len(), 2);
    }
}
