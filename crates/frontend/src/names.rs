//! `NameMap`: GL object names to objects, indexed directly for small names.
//!
//! GL names are small integers handed out from 1 upwards (`glGen*`), and
//! every GL call looks one up (a bind, the buffers and VAO a draw reads):
//! a vector slot costs a bounds check where a hash map costs hashing and a
//! probe (~30 instructions a lookup in callgrind, eight lookups per
//! `glBindBufferRange` + `glBindBuffer` + `glDrawElements` op). Names at or
//! above `DENSE_LIMIT` (an application binding arbitrary numbers, or a
//! name space that grew that far) live in a hash map, so memory stays
//! bounded by the names in use.
//!
//! Owns nothing but its entries. It offers only the calls the frontend
//! makes (lookups, insert/remove, `len`, `clear`, `values_mut`); iteration
//! order is unspecified, as with the hash map it replaces.

#![forbid(unsafe_code)]

use rustc_hash::FxHashMap;

/// Names below this are stored in the vector.
const DENSE_LIMIT: u32 = 1 << 14;

/// A map from GL names (`u32`) to `V` with the `HashMap` calls the
/// frontend uses.
#[derive(Clone, Debug)]
pub struct NameMap<V> {
    dense: Vec<Option<V>>,
    sparse: FxHashMap<u32, V>,
    len: usize,
}

impl<V> Default for NameMap<V> {
    fn default() -> Self {
        NameMap {
            dense: Vec::new(),
            sparse: FxHashMap::default(),
            len: 0,
        }
    }
}

impl<V> NameMap<V> {
    #[inline]
    pub fn get(&self, name: &u32) -> Option<&V> {
        if *name < DENSE_LIMIT {
            self.dense.get(*name as usize)?.as_ref()
        } else {
            self.sparse.get(name)
        }
    }

    #[inline]
    pub fn get_mut(&mut self, name: &u32) -> Option<&mut V> {
        if *name < DENSE_LIMIT {
            self.dense.get_mut(*name as usize)?.as_mut()
        } else {
            self.sparse.get_mut(name)
        }
    }

    #[inline]
    pub fn contains_key(&self, name: &u32) -> bool {
        self.get(name).is_some()
    }

    /// Insert, returning the previous value.
    pub fn insert(&mut self, name: u32, value: V) -> Option<V> {
        let old = if name < DENSE_LIMIT {
            let i = name as usize;
            if i >= self.dense.len() {
                self.dense.resize_with(i + 1, || None);
            }
            self.dense[i].replace(value)
        } else {
            self.sparse.insert(name, value)
        };
        if old.is_none() {
            self.len += 1;
        }
        old
    }

    pub fn remove(&mut self, name: &u32) -> Option<V> {
        let old = if *name < DENSE_LIMIT {
            self.dense.get_mut(*name as usize).and_then(Option::take)
        } else {
            self.sparse.remove(name)
        };
        if old.is_some() {
            self.len -= 1;
        }
        old
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn clear(&mut self) {
        self.dense.clear();
        self.sparse.clear();
        self.len = 0;
    }

    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.dense
            .iter_mut()
            .flatten()
            .chain(self.sparse.values_mut())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_and_sparse_names_behave_like_a_map() {
        let mut m = NameMap::default();
        assert!(m.is_empty());
        for n in [1u32, 7, 3, DENSE_LIMIT - 1, DENSE_LIMIT, u32::MAX] {
            assert_eq!(m.insert(n, n.wrapping_mul(2)), None);
        }
        assert_eq!(m.len(), 6);
        assert_eq!(m.insert(7, 0), Some(14), "replacing keeps the count");
        assert_eq!(m.len(), 6);
        assert_eq!(m.get(&7), Some(&0));
        assert_eq!(m.get(&u32::MAX), Some(&u32::MAX.wrapping_mul(2)));
        assert_eq!(m.get(&2), None);
        assert_eq!(m.get(&(DENSE_LIMIT + 1)), None);
        *m.get_mut(&3).unwrap() = 33;
        assert_eq!(m.remove(&3), Some(33));
        assert_eq!(m.remove(&3), None);
        assert_eq!(m.remove(&DENSE_LIMIT), Some(DENSE_LIMIT * 2));
        assert!(!m.contains_key(&DENSE_LIMIT));
        assert_eq!(m.len(), 4);
        for n in [1u32, 7, DENSE_LIMIT - 1, u32::MAX] {
            assert!(m.contains_key(&n), "{n}");
        }
        // values_mut reaches dense and sparse entries alike.
        for v in m.values_mut() {
            *v = v.wrapping_add(1);
        }
        assert_eq!(m.values_mut().count(), 4);
        assert_eq!(m.get(&1), Some(&3));
        assert_eq!(
            m.get(&u32::MAX),
            Some(&u32::MAX.wrapping_mul(2).wrapping_add(1))
        );
        m.clear();
        assert!(m.is_empty() && m.get(&7).is_none());
    }
}
