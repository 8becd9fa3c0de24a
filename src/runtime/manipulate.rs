//! The copies behind shape manipulation when the layout does not allow a view (M4-M7):
//! `permute` and `narrow` gather through a strided view, `concat` and `stack` interleave
//! contiguous blocks. No allocation; `DynTensor`'s owned forms build on these.

use super::array_ref::ArrayRef;
use super::kernels::broadcast_into_with;
use crate::error::Error;
use crate::rules::{BroadcastToMode, ShapeBuf};

/// Row-major strides of `shape`, in elements (each at most the element count, which the
/// caller has checked).
pub(crate) fn row_major_strides(shape: &[usize]) -> ShapeBuf {
    let mut out = ShapeBuf::from_slice(shape).unwrap_or_default();
    let mut step = 1usize;
    for (s, &d) in out.as_mut_slice().iter_mut().zip(shape).rev() {
        *s = step;
        step = step.wrapping_mul(d);
    }
    out
}

/// Writes the elements of a strided `src` in row-major order of its shape: the copy that
/// turns a permuted or narrowed view into a tensor. `out` must hold the element count.
pub(crate) fn gather_into<T, V>(
    src: ArrayRef<'_, T>,
    out: &mut [V],
    f: impl FnMut(&T) -> V,
) -> Result<(), Error> {
    broadcast_into_with(src, src.shape, BroadcastToMode::Numpy, out, f)
}

/// Joins row-major parts along one axis (M6, M7): `outer` blocks (the product of the dims
/// before the axis), each taking `block` contiguous elements from every part in turn. `out`
/// receives exactly the sum of the parts' lengths.
pub(crate) fn interleave<'a, T: 'a + Clone>(
    parts: impl Iterator<Item = &'a [T]> + Clone,
    outer: usize,
    mut push: impl FnMut(&'a [T]),
) {
    if outer == 0 {
        return;
    }
    for o in 0..outer {
        for part in parts.clone() {
            let block = part.len() / outer;
            push(&part[o * block..(o + 1) * block]);
        }
    }
}
