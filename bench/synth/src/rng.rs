//! Random numbers that are the same on every machine: SplitMix64 streams, each keyed by what it
//! is drawn for, so that a draw never depends on the order the rows are written in (the files are
//! written by parallel threads) or on how many draws another count point made.

// The purposes of the streams, one key each: a stream is keyed by (seed, a, b, purpose), so that
// two purposes never share draws. Keep them distinct.

/// A count point's years, methods, directions and flow level (a = count point).
pub const KEY_CP: u64 = 1;
/// A count point's AADF in a year (a = count point, b = year).
pub const KEY_AADF: u64 = 2;
/// The split of an AADF by direction (a = count point, b = year).
pub const KEY_DIR: u64 = 3;
/// A manual count's day and hours (a = count point, b = year).
pub const KEY_RAW: u64 = 4;
/// An LA's count point identities (a = LA).
pub const KEY_LA: u64 = 5;
/// The sharing of the count points among the LAs.
pub const KEY_ALLOC: u64 = 6;
/// The perturbation of a summary table row (`KEY_SUMMARY * 16 + table`).
pub const KEY_SUMMARY: u64 = 7;

/// SplitMix64.
#[derive(Clone)]
pub struct Rng(u64);

fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Rng {
    /// The stream of `purpose` (a `KEY_*`) for `a` and `b` in a run of PRNG seed `seed`.
    pub fn keyed(seed: u64, a: u64, b: u64, purpose: u64) -> Rng {
        let mut k = mix64(seed ^ 0x5eed_0f7a_4ff1_c0de);
        k = mix64(k ^ a.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        k = mix64(k ^ b.wrapping_mul(0xc2b2_ae3d_27d4_eb4f));
        k = mix64(k ^ purpose.wrapping_mul(0x1656_67b1_9e37_79f9));
        Rng(k)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        mix64(self.0)
    }
    /// Uniform in [0, 1).
    pub fn f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
    /// Uniform in 0..n (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() as u128 * n as u128) >> 64) as u64
    }
    /// Uniform in lo..=hi.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }
    pub fn chance(&mut self, p: f64) -> bool {
        self.f64() < p
    }
    /// Approximately standard normal (Irwin-Hall of 4 uniforms, scaled to variance 1).
    pub fn normal(&mut self) -> f64 {
        let s = self.f64() + self.f64() + self.f64() + self.f64();
        (s - 2.0) * 1.732_050_807_568_877_2
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
    /// Index drawn with the given (non-negative, not all zero) weights.
    pub fn weighted(&mut self, weights: &[f64]) -> usize {
        let total: f64 = weights.iter().sum();
        let mut x = self.f64() * total;
        for (i, w) in weights.iter().enumerate() {
            if x < *w {
                return i;
            }
            x -= w;
        }
        weights.len() - 1
    }
    /// Round x to an integer, up with probability frac(x) (keeps small counts unbiased).
    pub fn round_stoch(&mut self, x: f64) -> i64 {
        if x <= 0.0 {
            return 0;
        }
        (x + self.f64()).floor() as i64
    }
}
