//! Client-minted object identity: `{slot, gen}` per kind (DESIGN §2.4).

use bytemuck::{Pod, Zeroable};

/// A client-minted handle. Slots are dense per kind, so server tables are
/// arrays; `gen` bumps only when a slot is reused.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Pod, Zeroable)]
pub struct Handle {
    pub slot: u32,
    pub gen: u32,
}

impl Handle {
    /// The null handle of every kind.
    pub const NULL: Handle = Handle { slot: 0, gen: 0 };
    /// Framebuffer kind only: the current surface (the default framebuffer).
    pub const DEFAULT_FRAMEBUFFER: Handle = Handle { slot: 0, gen: 1 };

    pub const fn new(slot: u32, gen: u32) -> Self {
        Handle { slot, gen }
    }
    pub const fn is_null(self) -> bool {
        self.slot == 0 && self.gen == 0
    }
}

/// The kinds of handle; each has its own slot namespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HandleKind {
    Context,
    Surface,
    Resource,
    Framebuffer,
    RenderState,
    VertexElements,
    Sampler,
    SamplerView,
    Shader,
    Fence,
}

/// Dense slot allocator for one handle kind: free list + high-water mark.
/// Slot 0 is never handed out (it carries the reserved null/default values).
#[derive(Debug, Default, Clone)]
pub struct SlotAllocator {
    next: u32,
    free: Vec<(u32, u32)>,
}

impl SlotAllocator {
    pub fn new() -> Self {
        SlotAllocator {
            next: 1,
            free: Vec::new(),
        }
    }

    /// Mint a new handle: reuse a freed slot with its generation bumped, or
    /// take the next fresh slot at generation 1.
    pub fn alloc(&mut self) -> Handle {
        if let Some((slot, gen)) = self.free.pop() {
            return Handle {
                slot,
                gen: gen.wrapping_add(1).max(1),
            };
        }
        if self.next == 0 {
            self.next = 1;
        }
        let slot = self.next;
        self.next += 1;
        Handle { slot, gen: 1 }
    }

    /// Return a handle's slot for reuse.
    pub fn free(&mut self, h: Handle) {
        if !h.is_null() {
            self.free.push((h.slot, h.gen));
        }
    }

    /// One past the largest slot ever handed out.
    pub fn high_water(&self) -> u32 {
        self.next.max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_dense_and_gen_bumps_on_reuse() {
        let mut a = SlotAllocator::new();
        let h1 = a.alloc();
        let h2 = a.alloc();
        assert_eq!((h1.slot, h1.gen), (1, 1));
        assert_eq!((h2.slot, h2.gen), (2, 1));
        a.free(h1);
        let h3 = a.alloc();
        assert_eq!((h3.slot, h3.gen), (1, 2));
        assert!(!h3.is_null());
        assert!(Handle::NULL.is_null());
        assert!(!Handle::DEFAULT_FRAMEBUFFER.is_null());
    }
}
