//! Reductions over axes (numpy's axis conventions) and `sum_to`, the adjoint of NUMPY
//! broadcasting: which axes a reduction takes, and the shape it leaves.

use super::{broadcast_op, BroadcastToMode, ShapeBuf, MAX_RANK};
use crate::error::{Error, ErrorKind, Operation};
use crate::op::ReduceOp;

/// The axes of a rank-`rank` shape that a reduction takes, as a bit set: bit `i` for axis `i`.
/// Negative axes count from the end, as in numpy; an axis outside `-rank..rank` or given twice
/// is an error.
///
/// ```
/// use shaped::op::ReduceOp;
/// use shaped::rules::{reduce_axes, reduce_shape};
/// assert_eq!(reduce_axes(&[2, 3, 4], &[-1, 0], ReduceOp::Sum).unwrap(), 0b101);
/// assert_eq!(reduce_shape(&[2, 3, 4], &[-1], true, ReduceOp::Sum).unwrap(), [2, 3, 1]);
/// assert_eq!(reduce_shape(&[2, 3, 4], &[1], false, ReduceOp::Sum).unwrap(), [2, 4]);
/// let e = reduce_axes(&[2, 3], &[2], ReduceOp::Max).unwrap_err();
/// assert_eq!(e.to_string(), "cannot reduce [2, 3] (max): axis 2 is out of range for rank 2");
/// let e = reduce_axes(&[2, 3], &[1, -1], ReduceOp::Sum).unwrap_err();
/// assert_eq!(e.to_string(), "cannot reduce [2, 3] (sum): axis 1 is given twice");
/// ```
pub fn reduce_axes(shape: &[usize], axes: &[i64], op: ReduceOp) -> Result<u64, Error> {
    let err = |kind| Error::new(kind, Operation::Reduce { op }, shape, &[]);
    if shape.len() > MAX_RANK {
        return Err(err(ErrorKind::RankLimit { max: MAX_RANK }));
    }
    let rank = shape.len();
    let mut mask = 0u64;
    for &axis in axes {
        let a = super::manipulate::resolve_axis(axis, rank)
            .ok_or_else(|| err(ErrorKind::BadAxis { axis, rank }))?;
        if mask & (1 << a) != 0 {
            return Err(err(ErrorKind::DuplicateAxis { axis: a }));
        }
        mask |= 1 << a;
    }
    Ok(mask)
}

/// The shape a reduction over `mask`'s axes leaves: each reduced axis becomes 1 (`keepdims`)
/// or is removed.
pub(crate) fn reduced_shape(shape: &[usize], mask: u64, keepdims: bool) -> ShapeBuf {
    let mut out = ShapeBuf::new();
    for (i, &d) in shape.iter().enumerate() {
        let reduced = mask & (1 << i) != 0;
        if !reduced {
            out.dims[out.len] = d;
            out.len += 1;
        } else if keepdims {
            out.dims[out.len] = 1;
            out.len += 1;
        }
    }
    out
}

/// The shape a reduction over `axes` leaves, or the error of [`reduce_axes`].
pub fn reduce_shape(
    shape: &[usize],
    axes: &[i64],
    keepdims: bool,
    op: ReduceOp,
) -> Result<ShapeBuf, Error> {
    let mask = reduce_axes(shape, axes, op)?;
    Ok(reduced_shape(shape, mask, keepdims))
}

/// The axes of `shape` that `sum_to(target)` sums (with keepdims): every axis that broadcasting
/// `target` to `shape` one-directionally (B5) stretches, the padded leading ones included.
/// `target` must broadcast to `shape`.
///
/// ```
/// use shaped::rules::sum_to_axes;
/// // [3, 1] broadcasts to [2, 3, 4] by adding axis 0 and stretching axis 2.
/// assert_eq!(sum_to_axes(&[2, 3, 4], &[3, 1]).unwrap(), 0b101);
/// let e = sum_to_axes(&[2, 3, 4], &[4, 1]).unwrap_err();
/// assert_eq!(e.to_string(), "cannot sum [2, 3, 4] to [4, 1] (sum_to): axis 1 has 4 vs 3");
/// ```
pub fn sum_to_axes(shape: &[usize], target: &[usize]) -> Result<u64, Error> {
    let op = Operation::Reduce {
        op: ReduceOp::SumTo,
    };
    broadcast_op::resolve_to::<MAX_RANK>(target, shape, BroadcastToMode::Numpy)
        .map_err(|e| Error::new(e.kind(), op, shape, target))?;
    let pad = shape.len() - target.len();
    let mut mask = 0u64;
    for (i, &d) in shape.iter().enumerate() {
        if i < pad || (target[i - pad] == 1 && d != 1) {
            mask |= 1 << i;
        }
    }
    Ok(mask)
}
