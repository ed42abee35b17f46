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
//! Owns nothing but its entries; iteration order is unspecified (as with
//! the hash map it replaces).

#![forbid(unsafe_code)]

use rustc_hash::FxHashMap;

/// Names below this are stored in the vector.
const DENSE_LIMIT: u32 = 1 << 14;

/// A map from GL names (`u32`) to `V` with the `HashMap` calls the
/// frontend uses.
#[derive(Clone, Debug)]
pub struct NameMap<V> {
    dense: Vec<Option<(u32, V)>>,
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
            self.dense.get(*name as usize)?.as_ref().map(|(_, v)| v)
        } else {
            self.sparse.get(name)
        }
    }

    #[inline]
    pub fn get_mut(&mut self, name: &u32) -> Option<&mut V> {
        if *name < DENSE_LIMIT {
            self.dense.get_mut(*name as usize)?.as_mut().map(|(_, v)| v)
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
            self.dense[i].replace((name, value)).map(|(_, v)| v)
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
            self.dense
                .get_mut(*name as usize)
                .and_then(Option::take)
                .map(|(_, v)| v)
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

    pub fn iter(&self) -> impl Iterator<Item = (&u32, &V)> {
        self.dense
            .iter()
            .filter_map(|e| e.as_ref().map(|(k, v)| (k, v)))
            .chain(self.sparse.iter())
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&u32, &mut V)> {
        self.dense
            .iter_mut()
            .filter_map(|e| e.as_mut().map(|(k, v)| (&*k, v)))
            .chain(self.sparse.iter_mut())
    }

    pub fn keys(&self) -> impl Iterator<Item = &u32> {
        self.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.iter().map(|(_, v)| v)
    }

    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.iter_mut().map(|(_, v)| v)
    }

    /// Keep the entries for which `keep` answers true.
    pub fn retain(&mut self, mut keep: impl FnMut(&u32, &mut V) -> bool) {
        let mut removed = 0;
        for e in &mut self.dense {
            if let Some((k, v)) = e {
                if !keep(k, v) {
                    *e = None;
                    removed += 1;
                }
            }
        }
        let before = self.sparse.len();
        self.sparse.retain(|k, v| keep(k, v));
        removed += before - self.sparse.len();
        self.len -= removed;
    }
}

impl<'a, V> IntoIterator for &'a NameMap<V> {
    type Item = (&'a u32, &'a V);
    type IntoIter = Box<dyn Iterator<Item = (&'a u32, &'a V)> + 'a>;
    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
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
        let mut keys: Vec<u32> = m.keys().copied().collect();
        keys.sort();
        assert_eq!(keys, vec![1, 7, DENSE_LIMIT - 1, u32::MAX]);
        m.retain(|k, _| *k != 1 && *k != u32::MAX);
        assert_eq!(m.len(), 2);
        assert_eq!(m.iter().count(), 2);
        m.clear();
        assert!(m.is_empty() && m.get(&7).is_none());
    }
}
