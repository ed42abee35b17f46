//! Server object tables indexed by handle slot (shared implementation in
//! `mgpipe::table`) and the backend's fast hasher.

pub use mgpipe::table::{Table, MAX_SLOT};

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
