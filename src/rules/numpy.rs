//! NUMPY (section 2 of the rules: P1-P8), and the element counts and strides that every
//! path derives from shapes.

use super::{check_rank, Placement, Resolved, ShapeBuf, MAX_RANK};
use crate::error::{Error, ErrorKind, Operation};

/// NUMPY over two shapes (P1-P6, and B1 for Bidirectional), reporting the output axis of a
/// mismatch.
#[inline(never)]
pub(super) fn resolve<'a, const CAP: usize>(
    a: &[usize],
    b: &[usize],
    op: Operation,
) -> Result<Resolved<'a, CAP>, Error> {
    check_rank::<CAP>(a, b, op)?;
    let rank = a.len().max(b.len());
    let mut out = ShapeBuf::new();
    out.len = rank;
    let (pad_a, pad_b) = (rank - a.len(), rank - b.len());
    for axis in 0..rank {
        let da = if axis >= pad_a { a[axis - pad_a] } else { 1 };
        let db = if axis >= pad_b { b[axis - pad_b] } else { 1 };
        out.dims[axis] = numpy_dim(da, db).ok_or_else(|| {
            Error::new(
                ErrorKind::DimMismatch {
                    axis,
                    lhs: da,
                    rhs: db,
                },
                op,
                a,
                b,
            )
        })?;
    }
    Ok(Resolved {
        out,
        lhs: Placement::At(pad_a),
        rhs: Placement::At(pad_b),
    })
}

/// n-ary NUMPY broadcasting (P8): the left fold of the binary rule. An error names the
/// accumulated shape and the shape that failed to join it. No shapes give `[]`.
///
/// ```
/// use shaped::rules::broadcast_shapes_n;
/// let s = broadcast_shapes_n(&[&[1, 2], &[3, 1], &[3, 2]]).unwrap();
/// assert_eq!(s, [3, 2]);
/// let err = broadcast_shapes_n(&[&[1, 2], &[3, 1], &[3, 2], &[10, 5]]).unwrap_err();
/// assert_eq!(err.to_string(), "cannot broadcast [3, 2] with [10, 5] (numpy): axis 0 has 3 vs 10");
/// ```
pub fn broadcast_shapes_n(shapes: &[&[usize]]) -> Result<ShapeBuf, Error> {
    let mut acc = ShapeBuf::new();
    for shape in shapes {
        acc = resolve::<MAX_RANK>(acc.as_slice(), shape, Operation::Numpy)?.out;
    }
    Ok(acc)
}

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

/// The element count of `dims` (1 for rank 0), or `None` if the product of the **non-zero**
/// dims overflows `usize`.
///
/// A zero dim makes the count 0, but the other dims must still multiply without overflow (as
/// in ndarray): strides are products of dims, and the answer must not depend on where the 0
/// sits (`[0, usize::MAX, 2]` and `[2, usize::MAX, 0]` are both `None`).
///
/// ```
/// use shaped::rules::checked_element_count;
/// assert_eq!(checked_element_count(&[2, 3, 4]), Some(24));
/// assert_eq!(checked_element_count(&[]), Some(1));
/// assert_eq!(checked_element_count(&[usize::MAX, 0]), Some(0));
/// assert_eq!(checked_element_count(&[0, usize::MAX, 2]), None);
/// assert_eq!(checked_element_count(&[2, usize::MAX, 0]), None);
/// ```
pub const fn checked_element_count(dims: &[usize]) -> Option<usize> {
    let mut nonzero: usize = 1;
    let mut zero = false;
    let mut i = 0;
    while i < dims.len() {
        if dims[i] == 0 {
            zero = true;
        } else {
            nonzero = match nonzero.checked_mul(dims[i]) {
                Some(l) => l,
                None => return None,
            };
        }
        i += 1;
    }
    if zero {
        Some(0)
    } else {
        Some(nonzero)
    }
}

/// The largest offset that `dims` address at `strides`, `Σ (dim - 1) · stride`, or `None` if
/// it overflows `usize`. Callers handle shapes with a zero dim first: those address nothing.
pub(crate) fn checked_last_offset(dims: &[usize], strides: &[usize]) -> Option<usize> {
    dims.iter().zip(strides).try_fold(0usize, |last, (&d, &s)| {
        d.saturating_sub(1).checked_mul(s)?.checked_add(last)
    })
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
