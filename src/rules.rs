//! The broadcast rules of `spec/broadcast-rules.md`, as plain `const fn`s over dims.
//!
//! This module is the single source of truth: the compile-time path (`typelevel`) encodes the
//! same decisions as types, and the static kernels re-check every shape pair with these
//! functions while computing their strides, so the two cannot drift apart silently.

/// NUMPY per-dim rule (P2, P5, A1): two dims broadcast when they are equal or one of them is 1;
/// the result is the dim that is not 1. Decided by "is this dim 1", never by `max`, so
/// `1` against `0` gives `0`.
///
/// ```
/// use shaped::rules::numpy_dim;
/// assert_eq!(numpy_dim(1, 4), Some(4));
/// assert_eq!(numpy_dim(1, 0), Some(0));
/// assert_eq!(numpy_dim(0, 3), None);
/// ```
pub const fn numpy_dim(a: usize, b: usize) -> Option<usize> {
    if a == b {
        Some(a)
    } else if a == 1 {
        Some(b)
    } else if b == 1 {
        Some(a)
    } else {
        None
    }
}

/// NUMPY shape rule (P1-P6): right-align, pad the shorter shape with 1s on the left, apply
/// [`numpy_dim`] per position. Writes the result into `out` (which must hold
/// `max(a.len(), b.len())` dims) and returns its rank, or `None` when a pair is incompatible
/// or `out` is too short.
///
/// Bidirectional broadcasting (B1) is this rule applied to (input shape, target shape).
///
/// ```
/// use shaped::rules::numpy_shape;
/// let mut out = [0; 4];
/// assert_eq!(numpy_shape(&[8, 1, 6, 1], &[7, 1, 5], &mut out), Some(4));
/// assert_eq!(out, [8, 7, 6, 5]);
/// ```
pub const fn numpy_shape(a: &[usize], b: &[usize], out: &mut [usize]) -> Option<usize> {
    let rank = if a.len() > b.len() { a.len() } else { b.len() };
    if out.len() < rank {
        return None;
    }
    let mut k = 0;
    while k < rank {
        // Position k counted from the right; a missing dim is an implicit 1 (P1).
        let da = if k < a.len() { a[a.len() - 1 - k] } else { 1 };
        let db = if k < b.len() { b[b.len() - 1 - k] } else { 1 };
        match numpy_dim(da, db) {
            Some(d) => out[rank - 1 - k] = d,
            None => return None,
        }
        k += 1;
    }
    Some(rank)
}

/// NONE rule (N1-N3): the shapes must be identical, rank included; nothing stretches.
pub const fn none_compatible(a: &[usize], b: &[usize]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The element count of `dims` (1 for rank 0), or `None` if the product overflows `usize`.
pub const fn checked_element_count(dims: &[usize]) -> Option<usize> {
    let mut len: usize = 1;
    let mut i = 0;
    while i < dims.len() {
        len = match len.checked_mul(dims[i]) {
            Some(l) => l,
            None => return None,
        };
        i += 1;
    }
    Some(len)
}

/// Strides for reading a row-major `src` as if it had shape `out`, right-aligned (P1):
/// stride 0 on every dim that `src` stretches (a 1, or a padded dim), row-major strides
/// elsewhere. Entry `d` is for output dim `d`; entries past `out.len()` are 0.
///
/// Returns `None` unless `src` broadcasts onto `out` in one direction (each right-aligned src
/// dim is 1 or equal to the out dim), or if `out.len() > N`.
pub const fn broadcast_strides<const N: usize>(src: &[usize], out: &[usize]) -> Option<[usize; N]> {
    let mut strides = [0usize; N];
    if out.len() > N || src.len() > out.len() {
        return None;
    }
    let pad = out.len() - src.len();
    let mut step: usize = 1;
    let mut i = src.len();
    while i > 0 {
        i -= 1;
        let d = src[i];
        if d == out[pad + i] && d != 1 {
            strides[pad + i] = step;
        } else if d != 1 {
            return None;
        }
        step = match step.checked_mul(d) {
            Some(s) => s,
            None => return None,
        };
    }
    Some(strides)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p2_p5_numpy_dim_table() {
        assert_eq!(numpy_dim(3, 3), Some(3));
        assert_eq!(numpy_dim(1, 3), Some(3));
        assert_eq!(numpy_dim(3, 1), Some(3));
        assert_eq!(numpy_dim(1, 1), Some(1));
        assert_eq!(numpy_dim(1, 0), Some(0));
        assert_eq!(numpy_dim(0, 1), Some(0));
        assert_eq!(numpy_dim(0, 0), Some(0));
        assert_eq!(numpy_dim(0, 2), None);
        assert_eq!(numpy_dim(3, 2), None);
    }

    #[test]
    fn p3_p6_numpy_shape_ranks() {
        let mut out = [9; 3];
        assert_eq!(numpy_shape(&[], &[], &mut out), Some(0));
        assert_eq!(numpy_shape(&[], &[2, 3], &mut out), Some(2));
        assert_eq!(out[..2], [2, 3]);
        assert_eq!(numpy_shape(&[1, 1], &[3], &mut out), Some(2));
        assert_eq!(out[..2], [1, 3]);
        assert_eq!(numpy_shape(&[1, 2], &[3], &mut out), None);
        assert_eq!(
            numpy_shape(&[1, 2, 3, 4], &[1], &mut out),
            None,
            "out too short"
        );
    }

    #[test]
    fn n1_none_needs_identical_shapes() {
        assert!(none_compatible(&[2, 3], &[2, 3]));
        assert!(none_compatible(&[], &[]));
        assert!(!none_compatible(&[1], &[]));
        assert!(!none_compatible(&[0], &[1]));
    }

    #[test]
    fn element_count_checks_overflow() {
        assert_eq!(checked_element_count(&[]), Some(1));
        assert_eq!(checked_element_count(&[2, 0, 5]), Some(0));
        assert_eq!(checked_element_count(&[usize::MAX, 2]), None);
        assert_eq!(checked_element_count(&[usize::MAX, 0]), Some(0));
    }

    #[test]
    fn strides_are_zero_where_src_stretches() {
        assert_eq!(
            broadcast_strides::<4>(&[3, 1], &[2, 3, 4]),
            Some([0, 1, 0, 0])
        );
        assert_eq!(
            broadcast_strides::<3>(&[2, 3, 4], &[2, 3, 4]),
            Some([12, 4, 1])
        );
        assert_eq!(broadcast_strides::<2>(&[1], &[0]), Some([0, 0]));
        assert_eq!(broadcast_strides::<2>(&[3], &[4]), None);
        assert_eq!(
            broadcast_strides::<2>(&[1, 3], &[3]),
            None,
            "src rank above out rank"
        );
    }
}
