//! The broadcast rules of `spec/broadcast-rules.md`, in one place.
//!
//! * Per-dim and per-shape `const fn`s ([`numpy_dim`], [`numpy_shape`], ...) that the
//!   compile-time path re-checks itself against.
//! * [`broadcast_shapes`]: the four elementwise modes (NONE/EXPLICIT, NUMPY, PDPD with `axis`,
//!   Bidirectional) with the spec's decisions at each ambiguity (A1-A16).
//! * [`broadcast_shapes_n`]: n-ary NUMPY (P8).
//! * [`broadcast_to_shape`]: the Broadcast op's own modes (B5).
//!
//! The kernels and the dynamic tensors take their output shapes and input placements from
//! here and nowhere else. Nothing in this module allocates or panics.

use core::fmt;
use core::ops::Deref;

use crate::error::{BroadcastError, ErrorKind, Operation};

/// The largest rank the runtime rules and kernels accept: 64 with the `alloc` feature, 16
/// without (every shape buffer is inline, so the limit sets their size).
#[cfg(feature = "alloc")]
pub const MAX_RANK: usize = 64;
/// The largest rank the runtime rules and kernels accept: 64 with the `alloc` feature, 16
/// without (every shape buffer is inline, so the limit sets their size).
#[cfg(not(feature = "alloc"))]
pub const MAX_RANK: usize = 16;

/// A shape held inline (up to [`MAX_RANK`] dims): what the shape functions return.
///
/// ```
/// use shaped::{broadcast_shapes, AutoBroadcast};
/// let s = broadcast_shapes(&[2, 1, 5], &[4, 1], AutoBroadcast::Numpy).unwrap();
/// assert_eq!(s.as_ref(), &[2, 4, 5]);
/// assert_eq!(s, [2, 4, 5]);
/// assert_eq!(s.to_string(), "[2, 4, 5]");
/// ```
///
/// `CAP` is the capacity; the kernels use a small one internally for the common ranks, so a
/// call does not zero and copy 64-dim buffers.
#[derive(Clone, Copy)]
pub struct ShapeBuf<const CAP: usize = MAX_RANK> {
    dims: [usize; CAP],
    len: usize,
}

impl<const CAP: usize> ShapeBuf<CAP> {
    /// An empty (rank 0) shape.
    pub const fn new() -> Self {
        ShapeBuf {
            dims: [0; CAP],
            len: 0,
        }
    }

    /// Copies `dims`, or `None` when the rank is above the capacity.
    pub fn from_slice(dims: &[usize]) -> Option<Self> {
        let mut out = ShapeBuf::new();
        out.dims.get_mut(..dims.len())?.copy_from_slice(dims);
        out.len = dims.len();
        Some(out)
    }

    /// The dims.
    pub fn as_slice(&self) -> &[usize] {
        &self.dims[..self.len]
    }

    /// The element count, or `None` on overflow.
    pub fn element_count(&self) -> Option<usize> {
        checked_element_count(self.as_slice())
    }
}

impl<const CAP: usize> Default for ShapeBuf<CAP> {
    fn default() -> Self {
        ShapeBuf::new()
    }
}

impl<const CAP: usize> Deref for ShapeBuf<CAP> {
    type Target = [usize];
    fn deref(&self) -> &[usize] {
        self.as_slice()
    }
}

impl<const CAP: usize> AsRef<[usize]> for ShapeBuf<CAP> {
    fn as_ref(&self) -> &[usize] {
        self.as_slice()
    }
}

impl<const CAP: usize> PartialEq for ShapeBuf<CAP> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}
impl<const CAP: usize> Eq for ShapeBuf<CAP> {}

impl<const CAP: usize> PartialEq<[usize]> for ShapeBuf<CAP> {
    fn eq(&self, other: &[usize]) -> bool {
        self.as_slice() == other
    }
}

impl<const CAP: usize> PartialEq<&[usize]> for ShapeBuf<CAP> {
    fn eq(&self, other: &&[usize]) -> bool {
        self.as_slice() == *other
    }
}

impl<const CAP: usize, const N: usize> PartialEq<[usize; N]> for ShapeBuf<CAP> {
    fn eq(&self, other: &[usize; N]) -> bool {
        self.as_slice() == other
    }
}

impl<const CAP: usize> fmt::Debug for ShapeBuf<CAP> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_slice(), f)
    }
}

impl<const CAP: usize> fmt::Display for ShapeBuf<CAP> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_slice(), f)
    }
}

/// The largest rank of the [binary primitive](crate::binary) (oneDNN's `DNNL_MAX_NDIMS`).
pub const BINARY_MAX_NDIMS: usize = 12;

/// The binary primitive's destination shape (spec section 5, O1-O3).
///
/// * O1: `src0` and `src1` have the same rank; there is no implicit rank extension.
/// * O2: per dim, the two are equal or one of them is 1 (either source may broadcast, so `1x4`
///   with `4x1` gives `4x4`).
/// * O3: 1 against 0 gives 0, as in NUMPY (P5), not `max`.
///
/// ```
/// use shaped::rules::binary_dst_shape;
/// assert_eq!(binary_dst_shape(&[1, 4], &[4, 1]).unwrap(), [4, 4]);
/// assert_eq!(binary_dst_shape(&[1, 3], &[0, 1]).unwrap(), [0, 3]);
/// let e = binary_dst_shape(&[2, 3], &[3]).unwrap_err();
/// assert_eq!(e.to_string(), "cannot broadcast [2, 3] with [3] (binary): ranks 2 and 1 differ");
/// ```
pub fn binary_dst_shape(
    src0: &[usize],
    src1: &[usize],
) -> Result<ShapeBuf<BINARY_MAX_NDIMS>, BroadcastError> {
    let err = |kind| BroadcastError::new(kind, Operation::Binary, src0, src1);
    if src0.len() != src1.len() {
        return Err(err(ErrorKind::RankMismatch));
    }
    let mut out = ShapeBuf::from_slice(src0).ok_or_else(|| {
        err(ErrorKind::RankLimit {
            max: BINARY_MAX_NDIMS,
        })
    })?;
    for (axis, (o, (&a, &b))) in out.dims.iter_mut().zip(src0.iter().zip(src1)).enumerate() {
        *o = numpy_dim(a, b).ok_or_else(|| {
            err(ErrorKind::DimMismatch {
                axis,
                lhs: a,
                rhs: b,
            })
        })?;
    }
    Ok(out)
}

/// A destination given with the sources must have exactly their broadcast shape (O2: a source
/// dim is 1 or the destination's, and when `src0` differs from `dst`, `src1` equals it).
///
/// ```
/// use shaped::rules::binary_check_dst;
/// assert!(binary_check_dst(&[1, 4], &[4, 1], &[4, 4]).is_ok());
/// let e = binary_check_dst(&[1, 4], &[1, 4], &[3, 4]).unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "destination [3, 4] is not [1, 4], the broadcast of the sources (binary)"
/// );
/// ```
pub fn binary_check_dst(
    src0: &[usize],
    src1: &[usize],
    dst: &[usize],
) -> Result<ShapeBuf<BINARY_MAX_NDIMS>, BroadcastError> {
    let out = binary_dst_shape(src0, src1)?;
    if out.as_slice() != dst {
        return Err(BroadcastError::new(
            ErrorKind::ShapeMismatch,
            Operation::Binary,
            dst,
            &out,
        ));
    }
    Ok(out)
}

/// A binary post-op's operand against the destination (O4): the same rank, and each dim 1 or
/// equal to the destination's. The operand may broadcast; it never grows the destination
/// (`index` is the post-op's position, for the message).
///
/// ```
/// use shaped::rules::post_op_fits;
/// assert!(post_op_fits(0, &[1, 8, 1, 1], &[2, 8, 5, 5]).is_ok());
/// let e = post_op_fits(1, &[2, 8], &[1, 8]).unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "cannot broadcast [2, 8] with [1, 8] (binary post-op 1): axis 0 has 2 vs 1; \
///      a post-op operand dim must be 1 or the destination's (O4)"
/// );
/// ```
pub fn post_op_fits(index: usize, operand: &[usize], dst: &[usize]) -> Result<(), BroadcastError> {
    let err = |kind| BroadcastError::new(kind, Operation::BinaryPostOp { index }, operand, dst);
    if operand.len() != dst.len() {
        return Err(err(ErrorKind::RankMismatch));
    }
    for (axis, (&a, &d)) in operand.iter().zip(dst).enumerate() {
        if a != 1 && a != d {
            return Err(err(ErrorKind::DimMismatch {
                axis,
                lhs: a,
                rhs: d,
            }));
        }
    }
    Ok(())
}

/// The auto-broadcast type of an elementwise operation (spec sections 1-4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AutoBroadcast {
    /// NONE: identical shapes only (N1-N5). [`AutoBroadcast::EXPLICIT`] is the same value (N6).
    None,
    /// NUMPY: right-aligned, either side's 1s stretch (P1-P8).
    Numpy,
    /// PDPD: the second shape onto the first starting at `axis`; -1 is the default and means
    /// `rank(A) - rank(B)`; trailing 1s of B are ignored (D1-D10).
    Pdpd {
        /// The start axis, or -1.
        axis: i64,
    },
    /// Bidirectional: the first shape is the input, the second the target; the result is the
    /// NUMPY broadcast of the two, so it may differ from the target (B1-B4).
    Bidirectional,
}

impl AutoBroadcast {
    /// `EXPLICIT` is the same enum value as `NONE` for elementwise ops (N6).
    pub const EXPLICIT: AutoBroadcast = AutoBroadcast::None;
    /// PDPD with the default axis -1 (D2).
    pub const PDPD: AutoBroadcast = AutoBroadcast::Pdpd { axis: -1 };

    fn operation(self) -> Operation {
        match self {
            AutoBroadcast::None => Operation::None,
            AutoBroadcast::Numpy => Operation::Numpy,
            AutoBroadcast::Pdpd { axis } => Operation::Pdpd { axis },
            AutoBroadcast::Bidirectional => Operation::Bidirectional,
        }
    }
}

/// The modes of the Broadcast op itself (B5), which broadcast data to a target shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BroadcastMode<'a> {
    /// One-directional, `np.broadcast_to`: the output is the target.
    Numpy,
    /// Data dim `i` goes to target axis `axes_mapping[i]`; the output is the target.
    Explicit {
        /// Strictly increasing target axes, one per data dim.
        axes_mapping: &'a [usize],
    },
    /// `np.broadcast_shapes(data, target)`: the output may differ from the target.
    Bidirectional,
    /// Data onto the target starting at `axis` (data 1s stretch); -1 resolves as in D2 (A12).
    Pdpd {
        /// The start axis, or -1.
        axis: i64,
    },
}

impl BroadcastMode<'_> {
    fn operation(&self) -> Operation {
        match *self {
            BroadcastMode::Numpy => Operation::BroadcastToNumpy,
            BroadcastMode::Explicit { .. } => Operation::BroadcastToExplicit,
            BroadcastMode::Bidirectional => Operation::Bidirectional,
            BroadcastMode::Pdpd { axis } => Operation::BroadcastToPdpd { axis },
        }
    }
}

/// Where an input's dims sit in the output: dim `i` at output axis `at + i`, or at
/// `axes[i]` (explicit mode). A dim that falls outside the output is a size-1 dim that PDPD
/// trimmed (D3); it is read with stride 0 like any other 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Placement<'a> {
    At(usize),
    Axes(&'a [usize]),
}

impl Placement<'_> {
    pub(crate) fn axis_of(&self, dim: usize) -> Option<usize> {
        match *self {
            Placement::At(at) => at.checked_add(dim),
            Placement::Axes(axes) => axes.get(dim).copied(),
        }
    }
}

/// A resolved broadcast: the output shape and where each input sits in it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Resolved<'a, const CAP: usize> {
    pub(crate) out: ShapeBuf<CAP>,
    pub(crate) lhs: Placement<'a>,
    pub(crate) rhs: Placement<'a>,
}

/// Ranks above [`MAX_RANK`] are refused; a caller choosing a smaller `CAP` has checked that
/// the ranks fit it.
fn check_rank<const CAP: usize>(
    a: &[usize],
    b: &[usize],
    op: Operation,
) -> Result<(), BroadcastError> {
    if a.len() > MAX_RANK.min(CAP) || b.len() > MAX_RANK.min(CAP) {
        return Err(BroadcastError::new(
            ErrorKind::RankLimit { max: MAX_RANK },
            op,
            a,
            b,
        ));
    }
    Ok(())
}

/// NUMPY over two shapes (P1-P6, and B1 for Bidirectional), reporting the output axis of a
/// mismatch.
fn numpy_resolve<'a, const CAP: usize>(
    a: &[usize],
    b: &[usize],
    op: Operation,
) -> Result<Resolved<'a, CAP>, BroadcastError> {
    check_rank::<CAP>(a, b, op)?;
    let rank = a.len().max(b.len());
    let mut out = ShapeBuf::new();
    out.len = rank;
    let (pad_a, pad_b) = (rank - a.len(), rank - b.len());
    for axis in 0..rank {
        let da = if axis >= pad_a { a[axis - pad_a] } else { 1 };
        let db = if axis >= pad_b { b[axis - pad_b] } else { 1 };
        out.dims[axis] = numpy_dim(da, db).ok_or_else(|| {
            BroadcastError::new(
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

/// NONE (N1-N3): same rank, every dim equal. Never a no-op (N5, A13).
fn none_resolve<'a, const CAP: usize>(
    a: &[usize],
    b: &[usize],
) -> Result<Resolved<'a, CAP>, BroadcastError> {
    let op = Operation::None;
    check_rank::<CAP>(a, b, op)?;
    if a.len() != b.len() {
        return Err(BroadcastError::new(ErrorKind::RankMismatch, op, a, b));
    }
    if let Some(axis) = (0..a.len()).find(|&i| a[i] != b[i]) {
        let kind = ErrorKind::DimMismatch {
            axis,
            lhs: a[axis],
            rhs: b[axis],
        };
        return Err(BroadcastError::new(kind, op, a, b));
    }
    Ok(Resolved {
        out: ShapeBuf::from_slice(a).unwrap_or_default(),
        lhs: Placement::At(0),
        rhs: Placement::At(0),
    })
}

/// Resolves a PDPD-style axis: -1 means `rank_a - rank_b` on the *untrimmed* B (D2); any other
/// negative value is an error (`None`). An axis beyond `usize` (on 32-bit targets) saturates,
/// so it is reported as out of range, not as negative.
pub(crate) fn resolve_axis(axis: i64, rank_a: usize, rank_b: usize) -> Option<usize> {
    match axis {
        -1 => Some(rank_a - rank_b),
        a if a < 0 => None,
        a => Some(usize::try_from(a).unwrap_or(usize::MAX)),
    }
}

/// Places `b` onto `a` from `axis` after trimming b's trailing 1s (D3-D5, D8, A2-A8). Shared
/// by elementwise PDPD and the Broadcast op's pdpd mode; the output is always `a` (D6).
fn pdpd_place(a: &[usize], b: &[usize], axis: i64, op: Operation) -> Result<usize, BroadcastError> {
    // D1 (A9): measured on the untrimmed B.
    if b.len() > a.len() {
        return Err(BroadcastError::new(ErrorKind::SecondRankTooLarge, op, a, b));
    }
    let start = resolve_axis(axis, a.len(), b.len())
        .ok_or_else(|| BroadcastError::new(ErrorKind::NegativeAxis, op, a, b))?;
    // D3: trim after the axis is resolved.
    let trimmed = &b[..b.iter().rposition(|&d| d != 1).map_or(0, |i| i + 1)];
    // D4, D8, A4, A5, A6: the trimmed B must fit.
    let max = a.len() - trimmed.len();
    if start > max {
        return Err(BroadcastError::new(
            ErrorKind::AxisOutOfRange { max },
            op,
            a,
            b,
        ));
    }
    // D5, A2, A3, A7, A8: each B dim equals A's or is 1; A never stretches.
    for (i, &db) in trimmed.iter().enumerate() {
        let da = a[start + i];
        if db != da && db != 1 {
            let kind = ErrorKind::DimMismatch {
                axis: start + i,
                lhs: da,
                rhs: db,
            };
            return Err(BroadcastError::new(kind, op, a, b));
        }
    }
    Ok(start)
}

pub(crate) fn resolve<'a, const CAP: usize>(
    a: &[usize],
    b: &[usize],
    mode: AutoBroadcast,
) -> Result<Resolved<'a, CAP>, BroadcastError> {
    match mode {
        AutoBroadcast::None => none_resolve(a, b),
        AutoBroadcast::Numpy | AutoBroadcast::Bidirectional => {
            numpy_resolve(a, b, mode.operation())
        }
        AutoBroadcast::Pdpd { axis } => {
            let op = mode.operation();
            check_rank::<CAP>(a, b, op)?;
            let start = pdpd_place(a, b, axis, op)?;
            Ok(Resolved {
                out: ShapeBuf::from_slice(a).unwrap_or_default(),
                lhs: Placement::At(0),
                rhs: Placement::At(start),
            })
        }
    }
}

/// The output shape of an elementwise operation on shapes `a` and `b` under `mode`.
///
/// ```
/// use shaped::{broadcast_shapes, AutoBroadcast};
/// let s = broadcast_shapes(&[2, 3, 4, 5], &[3, 1], AutoBroadcast::Pdpd { axis: 1 }).unwrap();
/// assert_eq!(s.as_ref(), &[2, 3, 4, 5]);
/// // D3: B = (4, 5, 1) with the default axis resolves to axis 1 before trimming, so the
/// // trimmed (4, 5) meets the 3.
/// let err = broadcast_shapes(&[2, 3, 4, 5], &[4, 5, 1], AutoBroadcast::PDPD).unwrap_err();
/// assert_eq!(err.to_string(), "cannot broadcast [2, 3, 4, 5] with [4, 5, 1] (pdpd, axis -1): axis 1 has 3 vs 4");
/// ```
pub fn broadcast_shapes(
    a: &[usize],
    b: &[usize],
    mode: AutoBroadcast,
) -> Result<ShapeBuf, BroadcastError> {
    resolve::<MAX_RANK>(a, b, mode).map(|r| r.out)
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
pub fn broadcast_shapes_n(shapes: &[&[usize]]) -> Result<ShapeBuf, BroadcastError> {
    let mut acc = ShapeBuf::new();
    for shape in shapes {
        acc = numpy_resolve::<MAX_RANK>(acc.as_slice(), shape, Operation::Numpy)?.out;
    }
    Ok(acc)
}

pub(crate) fn resolve_to<'a, const CAP: usize>(
    data: &[usize],
    target: &[usize],
    mode: BroadcastMode<'a>,
) -> Result<(ShapeBuf<CAP>, Placement<'a>), BroadcastError> {
    let op = mode.operation();
    check_rank::<CAP>(data, target, op)?;
    let target_buf = ShapeBuf::from_slice(target).unwrap_or_default();
    match mode {
        BroadcastMode::Bidirectional => {
            let r = numpy_resolve::<CAP>(data, target, op)?;
            Ok((r.out, r.lhs))
        }
        BroadcastMode::Numpy => {
            if target.len() < data.len() {
                return Err(BroadcastError::new(
                    ErrorKind::TargetRankTooSmall,
                    op,
                    data,
                    target,
                ));
            }
            let pad = target.len() - data.len();
            for (i, &d) in data.iter().enumerate() {
                let t = target[pad + i];
                if d != 1 && d != t {
                    let kind = ErrorKind::DimMismatch {
                        axis: pad + i,
                        lhs: d,
                        rhs: t,
                    };
                    return Err(BroadcastError::new(kind, op, data, target));
                }
            }
            Ok((target_buf, Placement::At(pad)))
        }
        BroadcastMode::Explicit { axes_mapping } => {
            // A scalar with a non-empty mapping counts as rank 1 (shape [1]).
            let dims: &[usize] = if data.is_empty() && !axes_mapping.is_empty() {
                &[1]
            } else {
                data
            };
            if axes_mapping.len() != dims.len() {
                let kind = ErrorKind::AxesMappingLength {
                    len: axes_mapping.len(),
                    rank: dims.len(),
                };
                return Err(BroadcastError::new(kind, op, data, target));
            }
            // The mapping itself first (order, range), then the dims it pairs.
            for (index, &axis) in axes_mapping.iter().enumerate() {
                if index > 0 && axis <= axes_mapping[index - 1] {
                    let kind = ErrorKind::AxesMappingOrder { index };
                    return Err(BroadcastError::new(kind, op, data, target));
                }
                if axis >= target.len() {
                    let kind = ErrorKind::AxesMappingRange { index, axis };
                    return Err(BroadcastError::new(kind, op, data, target));
                }
            }
            for (&d, &axis) in dims.iter().zip(axes_mapping) {
                let t = target[axis];
                if d != 1 && d != t {
                    let kind = ErrorKind::DimMismatch {
                        axis,
                        lhs: d,
                        rhs: t,
                    };
                    return Err(BroadcastError::new(kind, op, data, target));
                }
            }
            Ok((target_buf, Placement::Axes(axes_mapping)))
        }
        BroadcastMode::Pdpd { axis } => {
            let start =
                pdpd_place(target, data, axis, op).map_err(|e| swap_sides(e, data, target))?;
            Ok((target_buf, Placement::At(start)))
        }
    }
}

/// `pdpd_place` speaks of (A, B) = (target, data); the Broadcast op's errors speak of
/// (data, target), so the shapes and dims are swapped back.
fn swap_sides(e: BroadcastError, data: &[usize], target: &[usize]) -> BroadcastError {
    let kind = match e.kind() {
        ErrorKind::DimMismatch { axis, lhs, rhs } => ErrorKind::DimMismatch {
            axis,
            lhs: rhs,
            rhs: lhs,
        },
        ErrorKind::SecondRankTooLarge => ErrorKind::TargetRankTooSmall,
        other => other,
    };
    BroadcastError::new(kind, e.operation(), data, target)
}

/// The output shape of the Broadcast op (B5) broadcasting `data` to `target` under `mode`.
///
/// ```
/// use shaped::rules::{broadcast_to_shape, BroadcastMode};
/// let s = broadcast_to_shape(&[3, 1], &[2, 3, 1], BroadcastMode::Explicit { axes_mapping: &[1, 2] });
/// assert_eq!(s.unwrap(), [2, 3, 1]);
/// let err = broadcast_to_shape(&[5, 1, 1, 1], &[1, 2, 3, 4], BroadcastMode::Numpy).unwrap_err();
/// assert_eq!(err.to_string(), "cannot broadcast [5, 1, 1, 1] with [1, 2, 3, 4] (broadcast_to numpy): axis 0 has 5 vs 1");
/// ```
pub fn broadcast_to_shape(
    data: &[usize],
    target: &[usize],
    mode: BroadcastMode<'_>,
) -> Result<ShapeBuf, BroadcastError> {
    resolve_to::<MAX_RANK>(data, target, mode).map(|(out, _)| out)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// An axis too large for `usize` (reachable on 32-bit targets, where `i64::MAX` does not
    /// fit) is out of range, not negative: the Cortex-M run found it reported as negative.
    #[test]
    fn d2_huge_axes_are_out_of_range_not_negative() {
        assert_eq!(resolve_axis(-1, 4, 2), Some(2));
        assert_eq!(resolve_axis(-2, 4, 2), None);
        assert_eq!(resolve_axis(i64::MIN, 4, 2), None);
        let huge = resolve_axis(i64::MAX, 4, 2).unwrap();
        assert!(huge >= usize::try_from(i64::MAX).unwrap_or(usize::MAX));
    }

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
