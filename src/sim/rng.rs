//! The simulator's one source of randomness: a small seeded generator (SplitMix64) whose whole
//! state is a `u64`, so a snapshot of the simulator captures it and replay is exact.

use serde::{Deserialize, Serialize};

/// A seeded pseudo-random generator. The same seed gives the same sequence on every platform.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rng {
    state: u64,
}

/// The alphabet the API server's `generateName` and the pod-template hash use
/// (`k8s.io/apimachinery/pkg/util/rand`): no vowels, no confusable digits.
pub const SAFE_ALPHANUMS: &[u8; 27] = b"bcdfghjklmnpqrstvwxz2456789";

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform integer in `0..n` (`0` when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        // Multiply-shift keeps the bias negligible for the small ranges used here.
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }

    /// Appends `n` characters from the safe alphabet to `out`, as `utilrand.String(n)` makes
    /// them: a generated name is written straight after its prefix rather than made apart and
    /// copied in.
    pub fn push_safe_string(&mut self, out: &mut String, n: usize) {
        for _ in 0..n {
            out.push(SAFE_ALPHANUMS[self.below(SAFE_ALPHANUMS.len() as u64) as usize] as char);
        }
    }

    /// A UUID-shaped identifier (version 4 layout) for `metadata.uid`: the text
    /// `{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}` of five fields of two random words, written digit
    /// by digit into one string of its fixed length, without the formatter's padding machinery
    /// (every object the API server creates gets one).
    pub fn uid(&mut self) -> String {
        let a = self.next_u64();
        let b = self.next_u64();
        let mut out = String::with_capacity(36);
        push_hex(&mut out, a >> 32, 8);
        out.push('-');
        push_hex(&mut out, (a >> 16) & 0xffff, 4);
        out.push_str("-4");
        push_hex(&mut out, a & 0x0fff, 3);
        out.push('-');
        push_hex(&mut out, ((b >> 48) & 0x3fff) | 0x8000, 4);
        out.push('-');
        push_hex(&mut out, b & 0xffff_ffff_ffff, 12);
        out
    }

    /// A duration in `[base, base × factor)` milliseconds: the jitter upstream applies to
    /// retries (`wait.Jitter`).
    pub fn jitter_ms(&mut self, base_ms: u64, factor: f64) -> u64 {
        let extra = (base_ms as f64 * factor.max(0.0)) as u64;
        base_ms + self.below(extra.max(1))
    }
}

/// Appends the low `digits` hexadecimal digits of `v`, zero-padded, in lower case.
fn push_hex(out: &mut String, v: u64, digits: u32) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for i in (0..digits).rev() {
        out.push(char::from(HEX[((v >> (4 * i)) & 0xf) as usize]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The UID is the text the formatter gives its five fields.
    #[test]
    fn uids_read_as_formatted() {
        for seed in [0, 1, 42, u64::MAX] {
            let (mut rng, mut words) = (Rng::new(seed), Rng::new(seed));
            for _ in 0..100 {
                let (a, b) = (words.next_u64(), words.next_u64());
                let want = format!(
                    "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
                    (a >> 32) as u32,
                    (a >> 16) as u16,
                    (a & 0x0fff) as u16,
                    ((b >> 48) as u16 & 0x3fff) | 0x8000,
                    b & 0xffff_ffff_ffff
                );
                assert_eq!(rng.uid(), want);
            }
        }
    }
}
