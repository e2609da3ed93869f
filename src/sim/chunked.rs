//! A chunked map: an ordered map kept as a sorted run of small, shared chunks of entries, for
//! the simulator's work queue.
//!
//! The queue is written on every piece of work (taken out at the front, added again near the
//! back) and cloned with the simulator for every timeline snapshot. A persistent tree clones in
//! constant time, but each write walks and copies a path of small nodes, which on the queue's
//! hot path costs more than the work it orders. Here a write finds its chunk by a binary search
//! over the chunks' last keys, held in one flat vector, and edits one chunk in place (copying it
//! first only if a snapshot still shares it). A clone copies the two flat vectors, one entry per
//! chunk, and shares every chunk.

use std::fmt;
use std::sync::Arc;

/// A chunk is split in two when it grows past this many entries.
const MAX_CHUNK: usize = 64;
/// A chunk that shrinks below this many entries is merged into its neighbour when both fit in
/// one, so that random removals cannot leave a long run of nearly empty chunks.
const MIN_CHUNK: usize = MAX_CHUNK / 4;

/// An ordered map from `K` to `V` in shared chunks. Every chunk is non-empty and sorted, and the
/// chunks follow one another in key order.
#[derive(Clone)]
pub struct ChunkedMap<K, V> {
    /// The last (greatest) key of each chunk, so that finding a key's chunk reads one vector.
    bounds: Vec<K>,
    chunks: Vec<Arc<Vec<(K, V)>>>,
    len: usize,
}

impl<K, V> Default for ChunkedMap<K, V> {
    fn default() -> Self {
        ChunkedMap {
            bounds: Vec::new(),
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<K: Ord + Copy, V: Clone> ChunkedMap<K, V> {
    /// The number of entries.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the map has no entries.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The entry with the least key.
    pub fn first(&self) -> Option<&(K, V)> {
        self.chunks.first().and_then(|c| c.first())
    }

    /// The entries in key order.
    pub fn iter(&self) -> impl Iterator<Item = &(K, V)> + '_ {
        self.chunks.iter().flat_map(|c| c.iter())
    }

    /// The chunk that holds `key` if the map does: the first whose last key is not below it.
    fn chunk_of(&self, key: &K) -> Option<usize> {
        let at = self.bounds.partition_point(|b| b < key);
        (at < self.chunks.len()).then_some(at)
    }

    /// Where `key` is filed, if it is: its chunk and its place in the chunk.
    fn position(&self, key: &K) -> Option<(usize, usize)> {
        let at = self.chunk_of(key)?;
        let i = self
            .chunks
            .get(at)?
            .binary_search_by(|(k, _)| k.cmp(key))
            .ok()?;
        Some((at, i))
    }

    /// The value under `key`.
    pub fn get(&self, key: &K) -> Option<&V> {
        let (at, i) = self.position(key)?;
        self.chunks.get(at)?.get(i).map(|(_, v)| v)
    }

    /// The value under `key`, to edit in place.
    pub fn get_mut(&mut self, key: &K) -> Option<&mut V> {
        let (at, i) = self.position(key)?;
        let chunk = Arc::make_mut(self.chunks.get_mut(at)?);
        chunk.get_mut(i).map(|(_, v)| v)
    }

    /// Files `value` under `key`, returning the value it replaces.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        // A key past every chunk's last goes at the end of the last chunk.
        let Some(at) = self
            .chunk_of(&key)
            .or_else(|| self.chunks.len().checked_sub(1))
        else {
            self.bounds.push(key);
            self.chunks.push(Arc::new(vec![(key, value)]));
            self.len = 1;
            return None;
        };
        let (Some(slot), Some(bound)) = (self.chunks.get_mut(at), self.bounds.get_mut(at)) else {
            return None;
        };
        let chunk = Arc::make_mut(slot);
        let i = match chunk.binary_search_by(|(k, _)| k.cmp(&key)) {
            Ok(i) => return chunk.get_mut(i).map(|e| std::mem::replace(&mut e.1, value)),
            Err(i) => i,
        };
        chunk.insert(i, (key, value));
        self.len += 1;
        if *bound < key {
            *bound = key;
        }
        if chunk.len() > MAX_CHUNK {
            let upper = chunk.split_off(chunk.len() / 2);
            if let (Some((low, _)), Some((high, _))) = (chunk.last(), upper.last()) {
                let (low, high) = (*low, *high);
                *bound = low;
                self.bounds.insert(at + 1, high);
                self.chunks.insert(at + 1, Arc::new(upper));
            }
        }
        None
    }

    /// Takes out the entry under `key`.
    pub fn remove(&mut self, key: &K) -> Option<V> {
        let (at, i) = self.position(key)?;
        self.remove_at(at, i).map(|(_, v)| v)
    }

    /// Takes out the entry with the least key.
    pub fn pop_first(&mut self) -> Option<(K, V)> {
        if self.chunks.is_empty() {
            return None;
        }
        self.remove_at(0, 0)
    }

    /// Takes out entry `i` of chunk `at`, then drops the chunk if it is empty or merges it with
    /// a neighbour if it has grown small.
    fn remove_at(&mut self, at: usize, i: usize) -> Option<(K, V)> {
        let chunk = Arc::make_mut(self.chunks.get_mut(at)?);
        if i >= chunk.len() {
            return None;
        }
        let entry = chunk.remove(i);
        self.len -= 1;
        match chunk.last() {
            None => {
                self.chunks.remove(at);
                self.bounds.remove(at);
                return Some(entry);
            }
            Some((last, _)) => {
                let last = *last;
                if let Some(bound) = self.bounds.get_mut(at) {
                    *bound = last;
                }
            }
        }
        // The front chunk drains as the queue is worked through and is dropped once empty;
        // merging it into the next on every removal would copy that chunk again and again.
        if at > 0 && chunk.len() < MIN_CHUNK {
            self.merge_into_previous(at);
        }
        Some(entry)
    }

    /// Moves chunk `at` onto the end of the chunk before it, if the two fit in one.
    fn merge_into_previous(&mut self, at: usize) {
        let fits = match (self.chunks.get(at - 1), self.chunks.get(at)) {
            (Some(prev), Some(this)) => prev.len() + this.len() <= MAX_CHUNK,
            _ => false,
        };
        if !fits {
            return;
        }
        let this = self.chunks.remove(at);
        let bound = self.bounds.remove(at);
        if let (Some(prev), Some(prev_bound)) =
            (self.chunks.get_mut(at - 1), self.bounds.get_mut(at - 1))
        {
            Arc::make_mut(prev).extend(this.iter().cloned());
            *prev_bound = bound;
        }
    }
}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for ChunkedMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(
                self.chunks
                    .iter()
                    .flat_map(|c| c.iter().map(|(k, v)| (k, v))),
            )
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// Every operation agrees with a `BTreeMap` over a long random mix of inserts, removals and
    /// pops, with clones taken along the way left untouched by later writes.
    #[test]
    fn behaves_as_an_ordered_map_and_clones_stay_unchanged() {
        let mut map: ChunkedMap<u32, u32> = ChunkedMap::default();
        let mut model: BTreeMap<u32, u32> = BTreeMap::new();
        let mut snapshots: Vec<(ChunkedMap<u32, u32>, BTreeMap<u32, u32>)> = Vec::new();
        let mut x: u64 = 99;
        let mut next = |n: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % n
        };
        for step in 0..40_000u32 {
            let key = next(3_000) as u32;
            match next(7) {
                0..=2 => assert_eq!(map.insert(key, step), model.insert(key, step)),
                3 => assert_eq!(map.remove(&key), model.remove(&key)),
                4 => assert_eq!(map.pop_first(), model.pop_first()),
                5 => {
                    if let Some(v) = map.get_mut(&key) {
                        *v += 1;
                    }
                    if let Some(v) = model.get_mut(&key) {
                        *v += 1;
                    }
                }
                _ => assert_eq!(map.get(&key), model.get(&key)),
            }
            assert_eq!(map.len(), model.len());
            assert_eq!(
                map.first(),
                model.iter().next().map(|(k, v)| (*k, *v)).as_ref()
            );
            if step % 997 == 0 {
                snapshots.push((map.clone(), model.clone()));
            }
        }
        let entries = |m: &ChunkedMap<u32, u32>| m.iter().copied().collect::<Vec<_>>();
        let model_entries =
            |m: &BTreeMap<u32, u32>| m.iter().map(|(k, v)| (*k, *v)).collect::<Vec<_>>();
        assert_eq!(entries(&map), model_entries(&model));
        for (snap, model) in &snapshots {
            assert_eq!(entries(snap), model_entries(model));
        }
        assert!(
            map.chunks
                .iter()
                .all(|c| !c.is_empty() && c.len() <= MAX_CHUNK)
        );
        assert!(
            map.bounds
                .iter()
                .zip(&map.chunks)
                .all(|(b, c)| c.last().is_some_and(|(k, _)| k == b))
        );
    }
}
