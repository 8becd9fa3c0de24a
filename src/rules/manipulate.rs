//! Shape manipulation (rules M1-M7): the shape that `reshape`, `insert_axis`, `squeeze`,
//! `permute`, `narrow`, `concat` and `stack` give, or the error. The static forms are in
//! [`typed::rules`](crate::typed::rules); the tensors' methods take their shapes from here.

use super::{checked_element_count, ShapeBuf, MAX_RANK};
use crate::error::{Error, ErrorKind, Operation};
use crate::op::ShapeOp;

pub(super) fn error(op: ShapeOp, kind: ErrorKind, lhs: &[usize], rhs: &[usize]) -> Error {
    Error::new(kind, Operation::Shape { op }, lhs, rhs)
}

/// Axis `axis` of a rank-`rank` shape, negative counting from the end (R1, M3-M7).
pub(crate) fn resolve_axis(axis: i64, rank: usize) -> Option<usize> {
    if axis < 0 {
        // `unsigned_abs` cannot overflow for i64::MIN, unlike `-axis`.
        rank.checked_sub(usize::try_from(axis.unsigned_abs()).unwrap_or(usize::MAX))
    } else {
        usize::try_from(axis).ok().filter(|&a| a < rank)
    }
}

pub(super) fn axis_of(
    op: ShapeOp,
    shape: &[usize],
    axis: i64,
    rank: usize,
) -> Result<usize, Error> {
    resolve_axis(axis, rank).ok_or_else(|| error(op, ErrorKind::BadAxis { axis, rank }, shape, &[]))
}

fn buf(
    op: ShapeOp,
    shape: &[usize],
    dims: impl IntoIterator<Item = usize>,
) -> Result<ShapeBuf, Error> {
    let mut out = ShapeBuf::new();
    for d in dims {
        if out.len == MAX_RANK {
            return Err(error(
                op,
                ErrorKind::RankLimit { max: MAX_RANK },
                shape,
                &[],
            ));
        }
        out.dims[out.len] = d;
        out.len += 1;
    }
    Ok(out)
}

/// A `reshape` target dim to infer from the element count, as numpy's `-1` (M2): at most one
/// per target. (`usize::MAX` is never a dim of a tensor that reshapes: its element count could
/// not match.)
pub const INFER: usize = usize::MAX;

/// The shape `reshape(target)` gives a tensor of `shape` (M1, M2): `target` with its one
/// [`INFER`] dim inferred; the element counts must agree.
///
/// ```
/// use shaped::rules::{reshape_shape, INFER};
/// assert_eq!(reshape_shape(&[2, 3, 4], &[INFER, 4]).unwrap(), [6, 4]);
/// assert_eq!(reshape_shape(&[2, 3, 4], &[24]).unwrap(), [24]);
/// let e = reshape_shape(&[2, 3], &[4, INFER]).unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "cannot reshape [2, 3]: the other target dims multiply to 4, which does not divide 6 elements (M2)"
/// );
/// let e = reshape_shape(&[2, 3], &[4, 2]).unwrap_err();
/// assert_eq!(e.to_string(), "cannot reshape [2, 3] into [4, 2]: the element counts differ (M1)");
/// ```
pub fn reshape_shape(shape: &[usize], target: &[usize]) -> Result<ShapeBuf, Error> {
    let op = ShapeOp::Reshape;
    let count =
        checked_element_count(shape).ok_or_else(|| error(op, ErrorKind::Overflow, shape, &[]))?;
    if target.len() > MAX_RANK {
        return Err(error(
            op,
            ErrorKind::RankLimit { max: MAX_RANK },
            shape,
            &[],
        ));
    }
    let mut out = ShapeBuf::new();
    let mut inferred = None;
    for (index, &dim) in target.iter().enumerate() {
        out.dims[index] = match dim {
            INFER if inferred.is_none() => {
                inferred = Some(index);
                1
            }
            INFER => return Err(error(op, ErrorKind::SecondInferred { index }, shape, &[])),
            d => d,
        };
    }
    out.len = target.len();
    // Every given dim counts, a 0 included (the rule of every shape: see `ArrayRef::new`).
    let known =
        checked_element_count(&out).ok_or_else(|| error(op, ErrorKind::Overflow, shape, &out))?;
    if let Some(index) = inferred {
        if known == 0 || count % known != 0 {
            return Err(error(
                op,
                ErrorKind::InferredDim { known, count },
                shape,
                &[],
            ));
        }
        out.dims[index] = count / known;
    } else if known != count {
        return Err(error(op, ErrorKind::ShapeMismatch, shape, &out));
    }
    Ok(out)
}

/// The shape with a dim of 1 inserted before axis `axis` (`-r - 1..=r`, negative counting from
/// the end of the result), and the axis resolved (M3).
///
/// ```
/// use shaped::rules::insert_axis_shape;
/// let (shape, axis) = insert_axis_shape(&[2, 3], 1).unwrap();
/// assert_eq!((shape, axis), ([2, 1, 3].into(), 1));
/// assert_eq!(insert_axis_shape(&[2, 3], -1).unwrap().0, [2, 3, 1]);
/// let e = insert_axis_shape(&[2, 3], 3).unwrap_err();
/// assert_eq!(e.to_string(), "cannot insert_axis [2, 3]: axis 3 is out of range for rank 3 (M3)");
/// ```
pub fn insert_axis_shape(shape: &[usize], axis: i64) -> Result<(ShapeBuf, usize), Error> {
    let op = ShapeOp::InsertAxis;
    let a = axis_of(op, shape, axis, shape.len() + 1)?;
    let dims = shape[..a].iter().chain(&[1]).chain(&shape[a..]).copied();
    Ok((buf(op, shape, dims)?, a))
}

/// The shape with axis `axis` removed, which must be 1, and the axis resolved (M3).
///
/// ```
/// use shaped::rules::squeeze_shape;
/// assert_eq!(squeeze_shape(&[2, 1, 3], 1).unwrap().0, [2, 3]);
/// let e = squeeze_shape(&[2, 3], -1).unwrap_err();
/// assert_eq!(e.to_string(), "cannot squeeze [2, 3]: axis 1 has 3 elements, not 1 (M3)");
/// ```
pub fn squeeze_shape(shape: &[usize], axis: i64) -> Result<(ShapeBuf, usize), Error> {
    let op = ShapeOp::Squeeze;
    let a = axis_of(op, shape, axis, shape.len())?;
    if shape[a] != 1 {
        let kind = ErrorKind::NotOne {
            axis: a,
            dim: shape[a],
        };
        return Err(error(op, kind, shape, &[]));
    }
    let dims = shape[..a].iter().chain(&shape[a + 1..]).copied();
    Ok((buf(op, shape, dims)?, a))
}

/// The shape `permute(axes)` gives (output axis `i` is input axis `axes[i]`, negative counting
/// from the end) and the axes resolved; `axes` must name every axis once (M4).
///
/// ```
/// use shaped::rules::permute_shape;
/// let (shape, axes) = permute_shape(&[2, 3, 4], &[2, 0, -2]).unwrap();
/// assert_eq!((shape, axes), ([4, 2, 3].into(), [2, 0, 1].into()));
/// let e = permute_shape(&[2, 3, 4], &[0, 0, 1]).unwrap_err();
/// assert_eq!(e.to_string(), "cannot permute [2, 3, 4]: axis 0 is given twice (M4)");
/// let e = permute_shape(&[2, 3, 4], &[1, 0]).unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "cannot permute [2, 3, 4]: 2 axes given for rank 3; a permutation names every axis once (M4)"
/// );
/// ```
pub fn permute_shape(shape: &[usize], axes: &[i64]) -> Result<(ShapeBuf, ShapeBuf), Error> {
    let op = ShapeOp::Permute;
    let rank = shape.len();
    if rank > MAX_RANK {
        return Err(error(
            op,
            ErrorKind::RankLimit { max: MAX_RANK },
            shape,
            &[],
        ));
    }
    if axes.len() != rank {
        let kind = ErrorKind::PermutationLength {
            len: axes.len(),
            rank,
        };
        return Err(error(op, kind, shape, &[]));
    }
    let (mut out, mut resolved) = (ShapeBuf::new(), ShapeBuf::new());
    let mut seen = [false; MAX_RANK];
    for (i, &axis) in axes.iter().enumerate() {
        let a = axis_of(op, shape, axis, rank)?;
        if core::mem::replace(&mut seen[a], true) {
            return Err(error(op, ErrorKind::DuplicateAxis { axis: a }, shape, &[]));
        }
        out.dims[i] = shape[a];
        resolved.dims[i] = a;
    }
    out.len = rank;
    resolved.len = rank;
    Ok((out, resolved))
}

/// The shape `narrow(axis, start, len)` gives: axis `axis` becomes `len`, and
/// `start..start + len` must lie inside it (M5). Returns the axis resolved.
///
/// ```
/// use shaped::rules::narrow_shape;
/// assert_eq!(narrow_shape(&[4, 5], -1, 1, 3).unwrap().0, [4, 3]);
/// let e = narrow_shape(&[4, 5], 1, 3, 3).unwrap_err();
/// assert_eq!(e.to_string(), "cannot narrow [4, 5]: 3 elements from 3 do not fit in axis 1, which has 5 (M5)");
/// ```
pub fn narrow_shape(
    shape: &[usize],
    axis: i64,
    start: usize,
    len: usize,
) -> Result<(ShapeBuf, usize), Error> {
    let op = ShapeOp::Narrow;
    let a = axis_of(op, shape, axis, shape.len())?;
    let dim = shape[a];
    if start.checked_add(len).is_none_or(|end| end > dim) {
        let kind = ErrorKind::OutOfBounds {
            axis: a,
            start,
            len,
            dim,
        };
        return Err(error(op, kind, shape, &[]));
    }
    let mut out = buf(op, shape, shape.iter().copied())?;
    out.dims[a] = len;
    Ok((out, a))
}

/// The shape of `first` and `second` joined along `axis` (M6): equal ranks, equal dims off the
/// axis (NONE, N1), and the axis the sum. Returns the axis resolved. Several tensors join one
/// after the other.
///
/// ```
/// use shaped::rules::concat_shape;
/// assert_eq!(concat_shape(&[2, 3], &[4, 3], 0).unwrap().0, [6, 3]);
/// let e = concat_shape(&[2, 3], &[2, 4], 0).unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "cannot concat [2, 3] with [2, 4]: axis 1 has 3 vs 4; every axis but the joined one must be equal (M6)"
/// );
/// ```
pub fn concat_shape(
    first: &[usize],
    second: &[usize],
    axis: i64,
) -> Result<(ShapeBuf, usize), Error> {
    let op = ShapeOp::Concat;
    let err = |kind| error(op, kind, first, second);
    if first.len() != second.len() {
        return Err(err(ErrorKind::RankMismatch));
    }
    let rank = first.len();
    let a = resolve_axis(axis, rank).ok_or_else(|| err(ErrorKind::BadAxis { axis, rank }))?;
    let mut out = buf(op, first, first.iter().copied())?;
    for (i, (&x, &y)) in first.iter().zip(second).enumerate() {
        if i == a {
            out.dims[i] = x.checked_add(y).ok_or_else(|| err(ErrorKind::Overflow))?;
        } else if x != y {
            return Err(err(ErrorKind::DimMismatch {
                axis: i,
                lhs: x,
                rhs: y,
            }));
        }
    }
    if checked_element_count(&out).is_none() {
        return Err(err(ErrorKind::Overflow));
    }
    Ok((out, a))
}

/// The shape of `count` tensors of `shape` stacked along a new axis `axis` (`-r - 1..=r`): the
/// axis resolved is inserted with dim `count` (M7). The shapes must be identical; a caller with
/// several shapes checks each against the first with [`stack_check`].
///
/// ```
/// use shaped::rules::stack_shape;
/// assert_eq!(stack_shape(&[2, 3], 4, -1).unwrap().0, [2, 3, 4]);
/// ```
pub fn stack_shape(shape: &[usize], count: usize, axis: i64) -> Result<(ShapeBuf, usize), Error> {
    let op = ShapeOp::Stack;
    if count == 0 {
        return Err(error(op, ErrorKind::NoTensors, shape, &[]));
    }
    let a = axis_of(op, shape, axis, shape.len() + 1)?;
    let middle = [count];
    let dims = shape[..a].iter().chain(&middle).chain(&shape[a..]).copied();
    let out = buf(op, shape, dims)?;
    if checked_element_count(&out).is_none() {
        return Err(error(op, ErrorKind::Overflow, shape, &[]));
    }
    Ok((out, a))
}

/// `Ok` when a tensor of `other` may be stacked with one of `first`: the shapes are identical
/// (M7, NONE).
///
/// ```
/// use shaped::rules::stack_check;
/// let e = stack_check(&[2, 3], &[2, 4]).unwrap_err();
/// assert_eq!(e.to_string(), "cannot stack [2, 3] with [2, 4]: the shapes differ (M7)");
/// ```
pub fn stack_check(first: &[usize], other: &[usize]) -> Result<(), Error> {
    if first == other {
        Ok(())
    } else {
        Err(error(
            ShapeOp::Stack,
            ErrorKind::ShapeMismatch,
            first,
            other,
        ))
    }
}
