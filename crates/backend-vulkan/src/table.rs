//! Server object tables indexed by client-minted handle slot (DESIGN §2.4):
//! arrays, not hash maps; the generation is checked on every lookup.

use mgpipe::Handle;

/// Slots above this are refused (a corrupt handle must not make us
/// allocate gigabytes).
pub const MAX_SLOT: u32 = 1 << 20;

pub struct Table<T> {
    slots: Vec<Option<(u32, T)>>,
}

impl<T> Default for Table<T> {
    fn default() -> Self {
        Table { slots: Vec::new() }
    }
}

impl<T> Table<T> {
    pub fn get(&self, h: Handle) -> Option<&T> {
        match self.slots.get(h.slot as usize) {
            Some(Some((gen, v))) if *gen == h.gen && !h.is_null() => Some(v),
            _ => None,
        }
    }

    pub fn get_mut(&mut self, h: Handle) -> Option<&mut T> {
        match self.slots.get_mut(h.slot as usize) {
            Some(Some((gen, v))) if *gen == h.gen && !h.is_null() => Some(v),
            _ => None,
        }
    }

    /// Store `v` at `h`. Returns Err(v) for a null or out-of-range handle,
    /// Ok(previous occupant of the slot, any generation) otherwise.
    pub fn insert(&mut self, h: Handle, v: T) -> Result<Option<T>, T> {
        if h.is_null() || h.slot >= MAX_SLOT {
            return Err(v);
        }
        let i = h.slot as usize;
        if self.slots.len() <= i {
            self.slots.resize_with(i + 1, || None);
        }
        Ok(self.slots[i].replace((h.gen, v)).map(|(_, old)| old))
    }

    /// Remove the entry if `h` (slot and gen) names it.
    pub fn remove(&mut self, h: Handle) -> Option<T> {
        let slot = self.slots.get_mut(h.slot as usize)?;
        match slot {
            Some((gen, _)) if *gen == h.gen && !h.is_null() => slot.take().map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn drain(&mut self) -> impl Iterator<Item = T> + '_ {
        self.slots.drain(..).flatten().map(|(_, v)| v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gen_is_checked() {
        let mut t = Table::default();
        let h = Handle::new(3, 1);
        assert!(t.insert(h, 7).unwrap().is_none());
        assert_eq!(t.get(h), Some(&7));
        assert_eq!(t.get(Handle::new(3, 2)), None);
        assert_eq!(t.get(Handle::new(99, 1)), None);
        assert!(t.insert(Handle::NULL, 1).is_err());
        assert!(t.insert(Handle::new(MAX_SLOT, 1), 1).is_err());
        assert_eq!(t.insert(Handle::new(3, 2), 8).unwrap(), Some(7));
        assert_eq!(t.remove(h), None);
        assert_eq!(t.remove(Handle::new(3, 2)), Some(8));
    }
}

/// A fast hasher for the backend's own keys (pipeline keys: word vectors
/// hashed on every draw). Not DoS-resistant; the keys come from this
/// process's own GL state, and SipHash showed up in draw profiles.
#[derive(Default, Clone, Copy)]
pub struct WordHasher(u64);

impl WordHasher {
    #[inline]
    fn mix(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl std::hash::Hasher for WordHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }

    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut b = [0u8; 8];
            b.copy_from_slice(c);
            self.mix(u64::from_le_bytes(b));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut b = [0u8; 8];
            b[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(b) ^ (rest.len() as u64) << 56);
        }
    }

    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.mix(n as u64);
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.mix(n);
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.mix(n as u64);
    }
}

/// `HashMap` state using [`WordHasher`].
pub type WordHash = std::hash::BuildHasherDefault<WordHasher>;

#[cfg(test)]
mod hash_tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn word_hash_map_finds_keys() {
        let mut m: HashMap<Vec<u32>, u32, WordHash> = HashMap::default();
        for i in 0..1000u32 {
            m.insert(vec![i, i.wrapping_mul(7), 3], i);
        }
        for i in 0..1000u32 {
            assert_eq!(m.get(&vec![i, i.wrapping_mul(7), 3]), Some(&i));
        }
        assert_eq!(m.get(&vec![1, 2]), None);
    }
}
