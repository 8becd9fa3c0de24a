//! Shape inference with dynamic dims (RULES.md section 6): a dim is an interval `[lo, hi]`, `hi`
//! possibly unbounded, and a shape may have a dynamic rank.
//!
//! * I1 / N4: NONE merges each pair by intersection; an empty one is an error.
//! * I2: NUMPY and Bidirectional use `broadcast_merge` (below), an optimistic rule.
//! * I3: a dynamic rank on either side gives a dynamic rank (NUMPY, PDPD); NONE merges ranks,
//!   so a dynamic rank takes the other side's.
//! * D11: PDPD checks "B must be 1 or equal to A" only when both dims are static; otherwise
//!   `broadcast_merge` writes into A's dim.
//!
//! The static rules are the special case of one-point intervals; a test checks that
//! [`broadcast_partial`] agrees with [`broadcast_shapes`](crate::broadcast_shapes) there.

use core::fmt;

use super::{AutoBroadcast, MAX_RANK};
use crate::error::{Error, ErrorKind, Operation};
pub use crate::interval::Interval;

/// A shape whose rank may be unknown and whose dims are intervals (up to
/// [`MAX_RANK`] dims).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct PartialShape {
    dims: [Interval; MAX_RANK],
    rank: Option<usize>,
}

impl PartialShape {
    /// A shape of unknown rank.
    pub const DYNAMIC_RANK: PartialShape = PartialShape {
        dims: [Interval::DYNAMIC; MAX_RANK],
        rank: None,
    };

    /// A shape of known rank, or `None` above [`MAX_RANK`].
    pub fn new(dims: &[Interval]) -> Option<Self> {
        let mut out = PartialShape {
            dims: [Interval::DYNAMIC; MAX_RANK],
            rank: Some(dims.len()),
        };
        out.dims.get_mut(..dims.len())?.copy_from_slice(dims);
        Some(out)
    }

    /// A fully static shape.
    pub fn fixed(dims: &[usize]) -> Option<Self> {
        let mut out = PartialShape {
            dims: [Interval::DYNAMIC; MAX_RANK],
            rank: Some(dims.len()),
        };
        for (slot, &d) in out.dims.get_mut(..dims.len())?.iter_mut().zip(dims) {
            *slot = Interval::fixed(d);
        }
        Some(out)
    }

    /// The dims, or `None` for a dynamic rank.
    pub fn dims(&self) -> Option<&[Interval]> {
        self.rank.map(|r| &self.dims[..r])
    }
}

impl fmt::Debug for PartialShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for PartialShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.dims() {
            None => f.write_str("[...]"),
            Some(dims) => {
                f.write_str("{")?;
                for (i, d) in dims.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{d}")?;
                }
                f.write_str("}")
            }
        }
    }
}

/// An error about partial shapes: they cannot be kept as numbers, so the error keeps their
/// ranks and, for a dim mismatch, the two intervals.
fn partial_error(kind: ErrorKind, op: Operation, a: &[Interval], b: &[Interval]) -> Error {
    const ZEROS: [usize; MAX_RANK] = [0; MAX_RANK];
    Error::new_partial(kind, op, &ZEROS[..a.len()], &ZEROS[..b.len()])
}

/// Shape inference for an elementwise operation on partial shapes under `mode`.
///
/// ```
/// use shaped::rules::partial::{broadcast_partial, Interval, PartialShape};
/// use shaped::AutoBroadcast;
/// let a = PartialShape::new(&[Interval::new(1, 3).unwrap(), Interval::DYNAMIC]).unwrap();
/// let b = PartialShape::new(&[Interval::new(2, 7).unwrap(), Interval::fixed(2)]).unwrap();
/// let out = broadcast_partial(&a, &b, AutoBroadcast::Numpy).unwrap();
/// assert_eq!(out.to_string(), "{[2,7],2}");
/// ```
pub fn broadcast_partial(
    a: &PartialShape,
    b: &PartialShape,
    mode: AutoBroadcast,
) -> Result<PartialShape, Error> {
    let op = match mode {
        AutoBroadcast::None => Operation::None,
        AutoBroadcast::Numpy => Operation::Numpy,
        AutoBroadcast::Pdpd { axis } => Operation::Pdpd { axis },
        AutoBroadcast::Bidirectional => Operation::Bidirectional,
    };
    let (da, db) = match (a.dims(), b.dims()) {
        (Some(da), Some(db)) => (da, db),
        // I3: NONE takes the ranked side (both dynamic: dynamic).
        (None, _) if mode == AutoBroadcast::None => return Ok(*b),
        (_, None) if mode == AutoBroadcast::None => return Ok(*a),
        _ => return Ok(PartialShape::DYNAMIC_RANK),
    };
    match mode {
        AutoBroadcast::None => {
            if da.len() != db.len() {
                return Err(partial_error(ErrorKind::RankMismatch, op, da, db));
            }
            let mut out = *a;
            for (i, (&x, &y)) in da.iter().zip(db).enumerate() {
                let kind = ErrorKind::IntervalMismatch {
                    axis: i,
                    lhs: x,
                    rhs: y,
                };
                out.dims[i] = x.merge(y).ok_or_else(|| partial_error(kind, op, da, db))?;
            }
            Ok(out)
        }
        AutoBroadcast::Numpy | AutoBroadcast::Bidirectional => {
            let rank = da.len().max(db.len());
            let mut out = PartialShape {
                dims: [Interval::DYNAMIC; MAX_RANK],
                rank: Some(rank),
            };
            let (pa, pb) = (rank - da.len(), rank - db.len());
            for axis in 0..rank {
                let x = if axis >= pa {
                    da[axis - pa]
                } else {
                    Interval::fixed(1)
                };
                let y = if axis >= pb {
                    db[axis - pb]
                } else {
                    Interval::fixed(1)
                };
                let kind = ErrorKind::IntervalMismatch {
                    axis,
                    lhs: x,
                    rhs: y,
                };
                out.dims[axis] = x
                    .broadcast_merge(y)
                    .ok_or_else(|| partial_error(kind, op, da, db))?;
            }
            Ok(out)
        }
        AutoBroadcast::Pdpd { axis } => {
            let rank_error = |kind| partial_error(kind, op, da, db);
            if db.len() > da.len() {
                return Err(rank_error(ErrorKind::SecondRankTooLarge));
            }
            let start = super::resolve_axis(axis, da.len(), db.len())
                .ok_or_else(|| rank_error(ErrorKind::NegativeAxis))?;
            // D3: only static 1s are trimmed.
            let keep = db
                .iter()
                .rposition(|d| d.as_static() != Some(1))
                .map_or(0, |i| i + 1);
            let max = da.len() - keep;
            if start > max {
                return Err(rank_error(ErrorKind::AxisOutOfRange { max }));
            }
            let mut out = *a;
            for (i, &y) in db[..keep].iter().enumerate() {
                let x = da[start + i];
                let kind = ErrorKind::IntervalMismatch {
                    axis: start + i,
                    lhs: x,
                    rhs: y,
                };
                let fail = || partial_error(kind, op, da, db);
                out.dims[start + i] = match (x.as_static(), y.as_static()) {
                    // D5 with static dims: B is 1 or equal; A never stretches.
                    (Some(xs), Some(ys)) if ys == xs || ys == 1 => x,
                    (Some(_), Some(_)) => return Err(fail()),
                    // D11: otherwise broadcast_merge writes into A's dim.
                    _ => x.broadcast_merge(y).ok_or_else(fail)?,
                };
            }
            Ok(out)
        }
    }
}
