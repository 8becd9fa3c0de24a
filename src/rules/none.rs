//! NONE / EXPLICIT (section 1 of the rules: N1-N6).

use super::{check_rank, Placement, Resolved, ShapeBuf};
use crate::error::{Error, ErrorKind, Operation};

/// NONE (N1-N3): same rank, every dim equal. Never a no-op (N5, A13).
#[inline(never)]
pub(super) fn resolve<'a, const CAP: usize>(
    a: &[usize],
    b: &[usize],
) -> Result<Resolved<'a, CAP>, Error> {
    let op = Operation::None;
    check_rank::<CAP>(a, b, op)?;
    if a.len() != b.len() {
        return Err(Error::new(ErrorKind::RankMismatch, op, a, b));
    }
    if let Some(axis) = (0..a.len()).find(|&i| a[i] != b[i]) {
        let kind = ErrorKind::DimMismatch {
            axis,
            lhs: a[axis],
            rhs: b[axis],
        };
        return Err(Error::new(kind, op, a, b));
    }
    Ok(Resolved {
        out: ShapeBuf::from_slice(a).unwrap_or_default(),
        lhs: Placement::At(0),
        rhs: Placement::At(0),
    })
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
