//! The inputs and expected outputs of the models in `tests/models/` (see its README): input `k`
//! of model `name` is drawn from SplitMix64 seeded with `fnv1a64(name) ^ k`, one
//! `(next() >> 56) as i8` per element, and `tests/models/<name>.expected.txt` holds TFLM's
//! outputs, a line `k: v0 v1 ...` for each input. Everything here is `const` or allocation free.

/// FNV-1a, 64 bits, of `s`.
pub const fn fnv1a64(s: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut i = 0;
    while i < s.len() {
        h = (h ^ s[i] as u64).wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    h
}

/// SplitMix64.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next value.
    pub const fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Input `k` of model `name`, `N` int8 elements in row-major order (evaluated at compile time
/// for a `static`).
pub const fn input<const N: usize>(name: &[u8], k: u64) -> [i8; N] {
    let mut out = [0i8; N];
    let mut g = SplitMix64(fnv1a64(name) ^ k);
    let mut i = 0;
    while i < N {
        out[i] = (g.next() >> 56) as i8;
        i += 1;
    }
    out
}

/// Input `k` of model `name` written into `out` (at run time).
pub fn fill_input(name: &[u8], k: u64, out: &mut [i8]) {
    let mut g = SplitMix64(fnv1a64(name) ^ k);
    for x in out {
        *x = (g.next() >> 56) as i8;
    }
}

/// The values of the expected file's line for input `k` into `out`: `Some(n)` with the count
/// of values the line holds (which may differ from `out.len()`: the caller compares), or `None`
/// when no line is for `k` or a value is not an int8 number. Values past `out.len()` are
/// counted, not stored.
pub fn expected_line(text: &str, k: u64, out: &mut [i8]) -> Option<usize> {
    for line in text.lines() {
        if line.starts_with('#') {
            continue;
        }
        let Some((key, values)) = line.split_once(": ") else {
            continue;
        };
        if key.parse::<u64>().ok() != Some(k) {
            continue;
        }
        let mut n = 0;
        for v in values.split(' ') {
            let v = v.parse::<i8>().ok()?;
            if let Some(slot) = out.get_mut(n) {
                *slot = v;
            }
            n += 1;
        }
        return Some(n);
    }
    None
}

// The checks of `tests/models/README.md`, at compile time.
const _: () = assert!(fnv1a64(b"a") == 0xaf63_dc4c_8601_ec8c);
const _: () = assert!(SplitMix64(0).next() == 0xe220_a839_7b1d_cdaf);
