//! Reductions over axes (numpy's axis conventions) and `sum_to`, the adjoint of NUMPY
//! broadcasting: which axes a reduction takes, and the shape it leaves.

use super::{broadcast_op, BroadcastToMode, ShapeBuf, MAX_RANK};
use crate::error::{Error, ErrorKind, Operation};
use crate::op::ReduceOp;

/// Which axes a reduction takes (R5): every axis, none, or a list.
///
/// A list converts from an array or a slice of `i64` (`&[-1]`, `&axes[..]`), so
/// `t.sum(&[0, 1], false)` reads as before; an empty list is an error
/// ([`ErrorKind::NoAxes`]) because numpy reads `axis=()` as "reduce nothing" and ONNX reads an
/// empty `axes` as "reduce everything" (unless `noop_with_empty_axes`): say [`Axes::All`] or
/// [`Axes::Nothing`].
///
/// ```
/// use shaped::rules::Axes;
/// use shaped::DynTensor;
/// let d = DynTensor::from_shape_vec([2, 3], vec![1, 2, 3, 4, 5, 6]).unwrap();
/// assert_eq!(d.sum(Axes::All, false).unwrap().as_slice(), &[21]);
/// assert_eq!(d.sum(Axes::Nothing, false).unwrap().as_slice(), d.as_slice());
/// assert_eq!(d.sum(&[1], false).unwrap().as_slice(), &[6, 15]);
/// let none: &[i64] = &[];
/// let e = d.sum(none, false).unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "cannot reduce [2, 3] (sum): no axes given: Axes::All reduces every axis (numpy's \
///      axis=None, ONNX's default), Axes::Nothing none (numpy's axis=()) (R5)"
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Axes<'a> {
    /// Every axis: numpy's `axis=None`, ONNX's empty `axes` by default. A rank-0 input has
    /// none, and is returned unchanged.
    All,
    /// No axis: the input unchanged (numpy's `axis=()`, ONNX's `noop_with_empty_axes=1`).
    Nothing,
    /// These axes (R1: negative from the end, each once, not empty).
    List(&'a [i64]),
}

impl<'a> From<&'a [i64]> for Axes<'a> {
    fn from(axes: &'a [i64]) -> Self {
        Axes::List(axes)
    }
}

impl<'a, const N: usize> From<&'a [i64; N]> for Axes<'a> {
    fn from(axes: &'a [i64; N]) -> Self {
        Axes::List(axes)
    }
}

#[cfg(feature = "alloc")]
impl<'a> From<&'a alloc::vec::Vec<i64>> for Axes<'a> {
    fn from(axes: &'a alloc::vec::Vec<i64>) -> Self {
        Axes::List(axes)
    }
}

/// The axes of a rank-`rank` shape that a reduction takes, as a bit set: bit `i` for axis `i`.
/// Negative axes count from the end, as in numpy; an axis outside `-rank..rank` or given twice,
/// or an empty list (R5), is an error.
///
/// ```
/// use shaped::op::ReduceOp;
/// use shaped::rules::{reduce_axes, reduce_shape, Axes};
/// assert_eq!(reduce_axes(&[2, 3, 4], &[-1, 0], ReduceOp::Sum).unwrap(), 0b101);
/// assert_eq!(reduce_axes(&[2, 3, 4], Axes::All, ReduceOp::Sum).unwrap(), 0b111);
/// assert_eq!(reduce_axes(&[2, 3, 4], Axes::Nothing, ReduceOp::Sum).unwrap(), 0);
/// assert_eq!(reduce_shape(&[2, 3, 4], &[-1], true, ReduceOp::Sum).unwrap(), [2, 3, 1]);
/// assert_eq!(reduce_shape(&[2, 3, 4], &[1], false, ReduceOp::Sum).unwrap(), [2, 4]);
/// let e = reduce_axes(&[2, 3], &[2], ReduceOp::Max).unwrap_err();
/// assert_eq!(e.to_string(), "cannot reduce [2, 3] (max): axis 2 is out of range for rank 2");
/// let e = reduce_axes(&[2, 3], &[1, -1], ReduceOp::Sum).unwrap_err();
/// assert_eq!(e.to_string(), "cannot reduce [2, 3] (sum): axis 1 is given twice");
/// ```
pub fn reduce_axes<'a>(
    shape: &[usize],
    axes: impl Into<Axes<'a>>,
    op: ReduceOp,
) -> Result<u64, Error> {
    let err = |kind| Error::new(kind, Operation::Reduce { op }, shape, &[]);
    if shape.len() > MAX_RANK {
        return Err(err(ErrorKind::RankLimit { max: MAX_RANK }));
    }
    let rank = shape.len();
    let axes = match axes.into() {
        // The low `rank` bits (none for rank 0, all 64 at `MAX_RANK` 64).
        Axes::All => return Ok(u64::MAX.checked_shr(64 - rank as u32).unwrap_or(0)),
        Axes::Nothing => return Ok(0),
        Axes::List([]) => return Err(err(ErrorKind::NoAxes)),
        Axes::List(axes) => axes,
    };
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
pub fn reduce_shape<'a>(
    shape: &[usize],
    axes: impl Into<Axes<'a>>,
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
