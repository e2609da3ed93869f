//! Fingerprints: fixed, seedless 64-bit hashes of whatever implements `Hash`, the same on every
//! run, for indexes whose order or identity must be deterministic (the work queue's pending
//! index, the event recorder's aggregation records). Bytes are mixed a 64-bit word at a time
//! (the multiply-and-rotate step of rustc's FxHash), since every recorded event and queued piece
//! of work is fingerprinted; the inputs are the simulator's own names, not adversarial keys.

use std::hash::{Hash, Hasher};

/// The fingerprint of `value`.
pub fn of<T: Hash + ?Sized>(value: &T) -> u64 {
    let mut h = WordMix(0xcbf2_9ce4_8422_2325);
    value.hash(&mut h);
    h.finish()
}

struct WordMix(u64);

impl WordMix {
    fn mix(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for WordMix {
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            let mut word = [0u8; 8];
            word.copy_from_slice(w);
            self.mix(u64::from_le_bytes(word));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            // The tail, zero-padded, with its length in the top byte so that "a" and "a\0"
            // differ.
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            word[7] ^= rest.len() as u8;
            self.mix(u64::from_le_bytes(word));
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::of;

    #[test]
    fn fingerprints_are_fixed_and_tell_near_inputs_apart() {
        assert_eq!(of("web"), of("web"));
        let names = [
            "",
            "a",
            "a\0",
            "web-1",
            "web-2",
            "web-12345678",
            "web-12345679",
        ];
        for (i, a) in names.iter().enumerate() {
            for b in &names[i + 1..] {
                assert_ne!(of(*a), of(*b), "{a:?} {b:?}");
            }
        }
        assert_ne!(of(&("a", "bc")), of(&("ab", "c")));
    }
}
