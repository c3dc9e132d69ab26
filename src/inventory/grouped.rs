//! Items grouped by a small integer key, kept in order, in two flat arrays (compressed sparse
//! rows): the scopes' children and members, a graph's consumers per node. Built in two
//! linear passes, 4 bytes a key plus the items themselves.

/// Items grouped by key: group `k` is `items[starts[k]..starts[k + 1]]`.
#[derive(Debug, Clone)]
pub struct Grouped<T> {
    starts: Vec<u32>,
    items: Vec<T>,
}

impl<T> Default for Grouped<T> {
    fn default() -> Self {
        Grouped {
            starts: vec![0],
            items: Vec::new(),
        }
    }
}

impl<T: Copy + Default> Grouped<T> {
    /// Groups the `(item, key)` pairs by key, each group in the pairs' order; keys at or past
    /// `keys` are left out, and so is every pair past `u32::MAX - 1` in all, so no count
    /// overflows. `pairs` is walked twice: once to count, once to place.
    pub fn build(keys: usize, pairs: impl Iterator<Item = (T, u32)> + Clone) -> Self {
        let mut starts = vec![0u32; keys + 1];
        let mut total = 0u32;
        let kept = |&(_, key): &(T, u32)| (key as usize) < keys;
        for (_, key) in pairs.clone().filter(kept) {
            let Some(next) = total.checked_add(1).filter(|&t| t < u32::MAX) else {
                break;
            };
            total = next;
            starts[key as usize + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        let mut fill = starts.clone();
        let mut items = vec![T::default(); total as usize];
        for (item, key) in pairs.filter(kept) {
            let (Some(pos), Some(&end)) =
                (fill.get_mut(key as usize), starts.get(key as usize + 1))
            else {
                continue;
            };
            // A pair past the count (the cut above) finds its group full.
            if *pos < end {
                items[*pos as usize] = item;
                *pos += 1;
            }
        }
        Grouped { starts, items }
    }
}

impl<T> Grouped<T> {
    /// The items of group `key`, in order; none for a key out of range.
    pub fn get(&self, key: u32) -> &[T] {
        let i = key as usize;
        match (self.starts.get(i), self.starts.get(i + 1)) {
            (Some(&a), Some(&b)) => self.items.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// Bytes the two arrays hold.
    pub fn bytes(&self) -> usize {
        self.starts.len() * 4 + std::mem::size_of_val(&self.items[..])
    }
}

#[cfg(test)]
mod tests {
    use super::Grouped;

    #[test]
    fn groups_keep_their_order_and_leave_out_keys_out_of_range() {
        let pairs = [(10u32, 2u32), (11, 0), (12, 2), (13, 9), (14, 0)];
        let g = Grouped::build(3, pairs.iter().copied());
        assert_eq!(g.get(0), [11, 14]);
        assert_eq!(g.get(1), [] as [u32; 0]);
        assert_eq!(g.get(2), [10, 12]);
        assert_eq!(g.get(3), [] as [u32; 0]);
        assert_eq!(Grouped::<u32>::default().get(0), [] as [u32; 0]);
    }
}
