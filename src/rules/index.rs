//! Indexing and slicing (rules M3, M8-M11): which elements a slice with a step takes (numpy's
//! and ONNX's clamped bounds), how `split` cuts an axis, which axes `squeeze_axes` and
//! `squeeze_all` remove, and the shapes `gather` and `gather_elements` give. The tensors'
//! methods take their shapes and their checks from here.

// The runtime tensors (feature `alloc`) are the users of the crate-private forms.
#![cfg_attr(not(feature = "alloc"), allow(dead_code))]

use super::manipulate::error;
use super::{checked_element_count, ShapeBuf, MAX_RANK};
use crate::error::{Error, ErrorKind};
use crate::op::ShapeOp;

/// Axis `axis` of `shape` (negative from the end), or the shape operation's error.
fn axis_of(op: ShapeOp, shape: &[usize], axis: i64) -> Result<usize, Error> {
    super::manipulate::axis_of(op, shape, axis, shape.len())
}

/// The shape of `dims`, refused past [`MAX_RANK`] or when its element count overflows.
fn shape_of(
    op: ShapeOp,
    from: &[usize],
    dims: impl IntoIterator<Item = usize>,
) -> Result<ShapeBuf, Error> {
    let mut out = ShapeBuf::new();
    for d in dims {
        if out.len == MAX_RANK {
            let kind = ErrorKind::RankLimit { max: MAX_RANK };
            return Err(error(op, kind, from, &[]));
        }
        out.dims[out.len] = d;
        out.len += 1;
    }
    if checked_element_count(out.as_ref()).is_none() {
        return Err(error(op, ErrorKind::Overflow, from, out.as_ref()));
    }
    Ok(out)
}

/// One axis's slice, numpy's `start:end:step` (M8). `None` bounds are numpy's defaults: the
/// whole axis in the step's direction. Negative bounds count from the end; bounds past either
/// end are clamped (ONNX's `Slice` clamps its `starts` and `ends` the same way).
///
/// ```
/// use shaped::rules::Slice;
/// assert_eq!(Slice::ALL.resolve(5), Some((0, 5)));
/// assert_eq!(Slice::range(1, -1).resolve(5), Some((1, 3)));           // x[1:-1]
/// assert_eq!(Slice::new(None, None, -1).resolve(5), Some((4, 5)));    // x[::-1]
/// assert_eq!(Slice::new(Some(-2), Some(-10), -2).resolve(5), Some((3, 2))); // x[-2:-10:-2]
/// assert_eq!(Slice::new(Some(i64::MAX), None, 1).resolve(5), Some((0, 0)));
/// assert_eq!(Slice::new(None, None, 0).resolve(5), None);             // a step of 0
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Slice {
    /// The first index (inclusive); `None` for the start of the axis in the step's direction.
    pub start: Option<i64>,
    /// The index to stop before; `None` to run to the end in the step's direction.
    pub end: Option<i64>,
    /// The step: any nonzero value; negative walks the axis backwards.
    pub step: i64,
}

impl Slice {
    /// The whole axis, `::`.
    pub const ALL: Slice = Slice {
        start: None,
        end: None,
        step: 1,
    };

    /// `start:end:step`.
    pub const fn new(start: Option<i64>, end: Option<i64>, step: i64) -> Slice {
        Slice { start, end, step }
    }

    /// `start:end`, step 1.
    pub const fn range(start: i64, end: i64) -> Slice {
        Slice {
            start: Some(start),
            end: Some(end),
            step: 1,
        }
    }

    /// `::step`.
    pub const fn step(step: i64) -> Slice {
        Slice {
            start: None,
            end: None,
            step,
        }
    }

    /// The first index and the number of elements this slice takes from an axis of `dim`
    /// (the first index is 0 when none are taken), or `None` for a step of 0 (M8).
    pub fn resolve(self, dim: usize) -> Option<(usize, usize)> {
        if self.step == 0 {
            return None;
        }
        // In i128, where `dim` (at most usize::MAX) and any i64 add without overflow.
        let n = dim as i128;
        let step = i128::from(self.step);
        let at = |v: i64| {
            let v = i128::from(v);
            if v < 0 {
                v + n
            } else {
                v
            }
        };
        let (first, len) = if step > 0 {
            let start = self.start.map_or(0, at).clamp(0, n);
            let end = self.end.map_or(n, at).clamp(0, n);
            let len = if end > start {
                (end - start + step - 1) / step
            } else {
                0
            };
            (start, len)
        } else {
            // Backwards: the bounds clamp to -1 ..= n - 1, -1 standing for "before 0".
            let start = self.start.map_or(n - 1, at).clamp(-1, n - 1);
            let end = self.end.map_or(-1, at).clamp(-1, n - 1);
            let len = if start > end {
                (start - end - step - 1) / -step
            } else {
                0
            };
            (start, len)
        };
        // Both are within 0..=dim when anything is taken.
        if len == 0 {
            Some((0, 0))
        } else {
            Some((first as usize, len as usize))
        }
    }
}

impl From<core::ops::Range<i64>> for Slice {
    fn from(r: core::ops::Range<i64>) -> Slice {
        Slice::range(r.start, r.end)
    }
}

impl From<core::ops::RangeFull> for Slice {
    fn from(_: core::ops::RangeFull) -> Slice {
        Slice::ALL
    }
}

impl From<core::ops::RangeFrom<i64>> for Slice {
    fn from(r: core::ops::RangeFrom<i64>) -> Slice {
        Slice::new(Some(r.start), None, 1)
    }
}

impl From<core::ops::RangeTo<i64>> for Slice {
    fn from(r: core::ops::RangeTo<i64>) -> Slice {
        Slice::new(None, Some(r.end), 1)
    }
}

/// One axis of a resolved slice: the first index, the length, the step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Taken {
    pub first: usize,
    pub len: usize,
    pub step: i64,
}

/// Each axis of `shape` as `slices` take it (M8): the slices apply to the leading axes, the
/// rest are whole. More slices than axes, or a step of 0, is an error.
pub(crate) fn slice_axes(
    shape: &[usize],
    slices: &[Slice],
) -> Result<(ShapeBuf, [Taken; MAX_RANK]), Error> {
    let op = ShapeOp::Slice;
    if slices.len() > shape.len() {
        let kind = ErrorKind::SliceCount {
            given: slices.len(),
            rank: shape.len(),
        };
        return Err(error(op, kind, shape, &[]));
    }
    let mut taken = [Taken {
        first: 0,
        len: 0,
        step: 1,
    }; MAX_RANK];
    for (a, &dim) in shape.iter().enumerate() {
        let s = slices.get(a).copied().unwrap_or(Slice::ALL);
        let (first, len) = s
            .resolve(dim)
            .ok_or_else(|| error(op, ErrorKind::ZeroStep { axis: a }, shape, &[]))?;
        taken[a] = Taken {
            first,
            len,
            step: s.step,
        };
    }
    let out = shape_of(op, shape, taken[..shape.len()].iter().map(|t| t.len))?;
    Ok((out, taken))
}

/// The start of each part of `split(axis, sizes)` (M9): the sizes must add up to the axis.
/// Returns the axis resolved.
pub(crate) fn split_check(shape: &[usize], axis: i64, sizes: &[usize]) -> Result<usize, Error> {
    let op = ShapeOp::Split;
    let a = axis_of(op, shape, axis)?;
    let sum = sizes.iter().try_fold(0usize, |s, &n| s.checked_add(n));
    if sum != Some(shape[a]) {
        let kind = ErrorKind::SplitSizes {
            axis: a,
            sum: sum.unwrap_or(usize::MAX),
            dim: shape[a],
        };
        return Err(error(op, kind, shape, &[]));
    }
    Ok(a)
}

/// The size of each of `parts` equal parts of axis `axis` (M9, numpy's `split` with a
/// count): the parts must divide the axis.
pub(crate) fn split_equal_size(
    shape: &[usize],
    axis: i64,
    parts: usize,
) -> Result<(usize, usize), Error> {
    let op = ShapeOp::Split;
    let a = axis_of(op, shape, axis)?;
    let dim = shape[a];
    if parts == 0 || dim % parts != 0 {
        let kind = ErrorKind::SplitParts {
            axis: a,
            parts,
            dim,
        };
        return Err(error(op, kind, shape, &[]));
    }
    Ok((a, dim / parts))
}

/// The shape with the axes of `axes` removed, each a 1 (M3); the axes as a bit set.
pub(crate) fn squeeze_axes_shape(shape: &[usize], axes: &[i64]) -> Result<(ShapeBuf, u64), Error> {
    let op = ShapeOp::Squeeze;
    let mut mask = 0u64;
    for &axis in axes {
        let a = axis_of(op, shape, axis)?;
        if mask & (1 << a) != 0 {
            return Err(error(op, ErrorKind::DuplicateAxis { axis: a }, shape, &[]));
        }
        if shape[a] != 1 {
            let kind = ErrorKind::NotOne {
                axis: a,
                dim: shape[a],
            };
            return Err(error(op, kind, shape, &[]));
        }
        mask |= 1 << a;
    }
    let dims = shape
        .iter()
        .enumerate()
        .filter(|&(a, _)| mask & (1 << a) == 0)
        .map(|(_, &d)| d);
    Ok((shape_of(op, shape, dims)?, mask))
}

/// The shape with every axis of size 1 removed (M3, numpy's `squeeze()`).
pub fn squeeze_all_shape(shape: &[usize]) -> ShapeBuf {
    let mut out = ShapeBuf::new();
    for &d in shape.iter().filter(|&&d| d != 1) {
        // Never longer than `shape`, which a tensor holds within the rank limit.
        if out.len < MAX_RANK {
            out.dims[out.len] = d;
            out.len += 1;
        }
    }
    out
}

/// An integer type that indexes along an axis (`gather`, `gather_elements`): every primitive
/// integer; a negative index counts from the end, as in numpy (M10). Sealed.
pub trait IndexElement: Copy + Send + Sync + private::Sealed {
    #[doc(hidden)]
    fn wide(self) -> i128;
}

mod private {
    pub trait Sealed {}
}

macro_rules! index_element {
    ($($t:ty)*) => {$(
        impl private::Sealed for $t {}
        impl IndexElement for $t {
            #[inline(always)]
            fn wide(self) -> i128 {
                self as i128
            }
        }
    )*};
}
index_element!(i8 i16 i32 i64 isize u8 u16 u32 u64 usize);

/// `index` into an axis of `dim` (M10): negative from the end, otherwise the error naming the
/// index's position among the indices and its value.
pub(crate) fn resolve_index<I: IndexElement>(
    op: ShapeOp,
    shape: &[usize],
    axis: usize,
    position: usize,
    index: I,
) -> Result<usize, Error> {
    let dim = shape[axis];
    let i = index.wide();
    let at = if i < 0 { i + dim as i128 } else { i };
    if (0..dim as i128).contains(&at) {
        Ok(at as usize)
    } else {
        let kind = ErrorKind::IndexOutOfRange {
            axis,
            position,
            index: i.clamp(i64::MIN as i128, i64::MAX as i128) as i64,
            dim,
        };
        Err(error(op, kind, shape, &[]))
    }
}

/// The shape `gather(indices, axis)` gives (M10, numpy's `take`, ONNX's `Gather`): `data`'s
/// dims before the axis, then the indices' dims, then `data`'s dims after it. Returns the axis
/// resolved.
///
/// ```
/// use shaped::rules::gather_shape;
/// let (shape, axis) = gather_shape(&[2, 5, 3], &[4, 1], -2).unwrap();
/// assert_eq!((shape.as_ref(), axis), (&[2, 4, 1, 3][..], 1));
/// let e = gather_shape(&[], &[2], 0).unwrap_err();
/// assert_eq!(e.to_string(), "cannot gather []: axis 0 is out of range for rank 0 (M10)");
/// ```
pub fn gather_shape(
    data: &[usize],
    indices: &[usize],
    axis: i64,
) -> Result<(ShapeBuf, usize), Error> {
    let op = ShapeOp::Gather;
    let a = axis_of(op, data, axis)?;
    let dims = data[..a]
        .iter()
        .chain(indices)
        .chain(&data[a + 1..])
        .copied();
    Ok((shape_of(op, data, dims)?, a))
}

/// The checks of `gather_elements(indices, axis)` (M11, ONNX's `GatherElements`, numpy's
/// `take_along_axis` where the dims off the axis are equal): equal ranks, each of the indices'
/// dims off the axis at most `data`'s. The output has the indices' shape. Returns the axis.
pub fn gather_elements_check(data: &[usize], indices: &[usize], axis: i64) -> Result<usize, Error> {
    let op = ShapeOp::GatherElements;
    let a = axis_of(op, data, axis)?;
    if indices.len() != data.len() {
        return Err(error(op, ErrorKind::RankMismatch, data, indices));
    }
    if let Some(k) = (0..data.len()).find(|&k| k != a && indices[k] > data[k]) {
        let kind = ErrorKind::DimMismatch {
            axis: k,
            lhs: data[k],
            rhs: indices[k],
        };
        return Err(error(op, kind, data, indices));
    }
    Ok(a)
}
