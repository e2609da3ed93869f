//! An order: the one stable sort that every list in the core is sorted with.
//!
//! The standard library's stable sort is generic over the element and the comparison, so each of
//! the core's sorted lists (ReplicaSets by age, events by time, conditions by type, …) used to
//! compile to its own copy of several kilobytes of sorting code, which the browser then had to
//! download. Here the sorting itself happens once, on positions, behind a `dyn` comparison; what
//! is generic per list is only the short loop that moves the elements into the order found. The
//! lists are short (a few ReplicaSets, a pod's conditions), so the indirect call costs nothing
//! measurable. The pod deletion ranking keeps its own merge sort
//! ([`crate::sim::controller::replica_set::merge_sort_by_less`]) because its order is not a total
//! one.

use std::cmp::Ordering;

/// Sorts `v` by `compare`, keeping equal elements in their original order, exactly as
/// `slice::sort_by` does.
pub fn sort_by<T>(v: &mut Vec<T>, compare: impl Fn(&T, &T) -> Ordering) {
    if v.len() < 2 {
        return;
    }
    let order = stable_order(v.len(), &|a, b| compare(&v[a], &v[b]));
    let mut slots: Vec<Option<T>> = std::mem::take(v).into_iter().map(Some).collect();
    // `order` is a permutation of the positions, so every slot is taken exactly once.
    v.extend(
        order
            .into_iter()
            .filter_map(|i| slots.get_mut(i).and_then(Option::take)),
    );
}

/// Sorts `v` by the key `key` gives each element, keeping equal keys in their original order, as
/// `slice::sort_by_key` does.
pub fn sort_by_key<T, K: Ord>(v: &mut Vec<T>, key: impl Fn(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `v` in ascending order, keeping equal elements in their original order.
pub fn sort<T: Ord>(v: &mut Vec<T>) {
    sort_by(v, T::cmp);
}

/// The positions `0..n` in the order `compare` (which compares the elements at two positions)
/// puts them, ties in ascending position: the only instance of the sorting code.
fn stable_order(n: usize, compare: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| compare(a, b));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_like_the_standard_library_and_keeps_ties_in_place() {
        // Pairs sorted by their first element only: the second shows where each tie came from.
        let input: Vec<(u8, u8)> = vec![(3, 0), (1, 1), (3, 2), (0, 3), (1, 4), (3, 5), (2, 6)];
        let mut ours = input.clone();
        sort_by_key(&mut ours, |p| p.0);
        let mut std_sorted = input.clone();
        std_sorted.sort_by_key(|p| p.0);
        assert_eq!(ours, std_sorted);
        assert_eq!(
            ours,
            vec![(0, 3), (1, 1), (1, 4), (2, 6), (3, 0), (3, 2), (3, 5)]
        );

        let mut reversed = input;
        sort_by(&mut reversed, |a, b| b.0.cmp(&a.0));
        assert_eq!(
            reversed,
            vec![(3, 0), (3, 2), (3, 5), (2, 6), (1, 1), (1, 4), (0, 3)]
        );

        let mut words = vec!["b".to_string(), "a".to_string(), "c".to_string()];
        sort(&mut words);
        assert_eq!(words, ["a", "b", "c"]);

        let mut empty: Vec<u8> = Vec::new();
        sort(&mut empty);
        assert!(empty.is_empty());
    }
}
