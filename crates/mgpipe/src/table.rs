//! Server object tables indexed by client-minted handle slot (DESIGN §2.4):
//! arrays, not hash maps; the generation is checked on every lookup. Shared
//! by every backend (the server side of the handle contract).

use crate::Handle;

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

    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.slots
            .iter_mut()
            .filter_map(|s| s.as_mut().map(|(_, v)| v))
    }

    pub fn into_values(self) -> impl Iterator<Item = T> {
        self.slots.into_iter().flatten().map(|(_, v)| v)
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
