//! PDPD (section 3 of the rules: D1-D11): the second shape onto the first from an axis.

use super::{check_rank, Placement, Resolved, ShapeBuf};
use crate::error::{Error, ErrorKind, Operation};

/// PDPD (D1-D11): `b` placed in `a` at `axis`; the output is `a`'s shape.
#[inline(never)]
pub(super) fn resolve<'a, const CAP: usize>(
    a: &[usize],
    b: &[usize],
    axis: i64,
    op: Operation,
) -> Result<Resolved<'a, CAP>, Error> {
    check_rank::<CAP>(a, b, op)?;
    let start = place(a, b, axis, op)?;
    Ok(Resolved {
        out: ShapeBuf::from_slice(a).unwrap_or_default(),
        lhs: Placement::At(0),
        rhs: Placement::At(start),
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
pub(super) fn place(a: &[usize], b: &[usize], axis: i64, op: Operation) -> Result<usize, Error> {
    // D1 (A9): measured on the untrimmed B.
    if b.len() > a.len() {
        return Err(Error::new(ErrorKind::SecondRankTooLarge, op, a, b));
    }
    let start = resolve_axis(axis, a.len(), b.len())
        .ok_or_else(|| Error::new(ErrorKind::NegativeAxis, op, a, b))?;
    // D3: trim after the axis is resolved.
    let trimmed = &b[..b.iter().rposition(|&d| d != 1).map_or(0, |i| i + 1)];
    // D4, D8, A4, A5, A6: the trimmed B must fit.
    let max = a.len() - trimmed.len();
    if start > max {
        return Err(Error::new(ErrorKind::AxisOutOfRange { max }, op, a, b));
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
            return Err(Error::new(kind, op, a, b));
        }
    }
    Ok(start)
}
