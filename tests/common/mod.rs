//! A deliberately simple reference for broadcasting: index by index, no cleverness.
#![allow(dead_code)]

/// The NUMPY output shape by the textbook rule (pad left with 1s, compare per position).
pub fn numpy_shape(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let rank = a.len().max(b.len());
    let pad = |s: &[usize]| {
        let mut v = vec![1; rank - s.len()];
        v.extend_from_slice(s);
        v
    };
    let (a, b) = (pad(a), pad(b));
    a.iter()
        .zip(&b)
        .map(|(&x, &y)| match (x, y) {
            _ if x == y => Some(x),
            (1, y) => Some(y),
            (x, 1) => Some(x),
            _ => None,
        })
        .collect()
}

/// Reads `data` (row-major, shape `dims`) at the output multi-index `out_index`, stretching
/// size-1 and missing leading dims.
pub fn read_broadcast<T: Copy>(data: &[T], dims: &[usize], out_index: &[usize]) -> T {
    let pad = out_index.len() - dims.len();
    let mut offset = 0;
    for (d, &n) in dims.iter().enumerate() {
        let i = if n == 1 { 0 } else { out_index[pad + d] };
        offset = offset * n + i;
    }
    data[offset]
}

/// Calls `f` with every multi-index of `dims` in row-major order, in one buffer: the
/// references run under Miri too, where a vector allocated for each index took most of the
/// time of the large tests.
pub fn for_each_index(dims: &[usize], mut f: impl FnMut(&[usize])) {
    if dims.contains(&0) {
        return;
    }
    let mut idx = vec![0; dims.len()];
    loop {
        f(&idx);
        let mut axis = dims.len();
        loop {
            if axis == 0 {
                return;
            }
            axis -= 1;
            idx[axis] += 1;
            if idx[axis] < dims[axis] {
                break;
            }
            idx[axis] = 0;
        }
    }
}

/// Every multi-index of `dims` in row-major order.
pub fn indices(dims: &[usize]) -> Vec<Vec<usize>> {
    let mut all = Vec::new();
    for_each_index(dims, |idx| all.push(idx.to_vec()));
    all
}

/// The elementwise result by the reference rule.
pub fn reference<T: Copy, V>(
    a: &[T],
    ad: &[usize],
    b: &[T],
    bd: &[usize],
    f: impl Fn(T, T) -> V,
) -> (Vec<usize>, Vec<V>) {
    let out = numpy_shape(ad, bd).expect("reference: shapes broadcast");
    let mut values = Vec::with_capacity(out.iter().product());
    for_each_index(&out, |i| {
        values.push(f(read_broadcast(a, ad, i), read_broadcast(b, bd, i)))
    });
    (out, values)
}

/// A small deterministic generator (no dependency needed for test data).
pub struct Lcg(pub u64);

impl Lcg {
    pub fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
    pub fn below(&mut self, n: u64) -> usize {
        (self.next() % n) as usize
    }
}
