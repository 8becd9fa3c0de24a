//! Selection by a condition, three inputs (W1, W2): the output shape of `where` (numpy,
//! ONNX) and of `select` (OpenVINO's `Select`, oneDNN's `select`), and where each input sits
//! in it.

use super::{resolve, AutoBroadcast, Placement, ShapeBuf, MAX_RANK};
use crate::error::{Error, ErrorKind, Operation};

/// The output shape of `where(cond, then, otherwise)` (W1): the three shapes broadcast
/// together by NUMPY (P1-P6, P8), as numpy's `where` and ONNX's `Where` do.
///
/// ```
/// use shaped::rules::where_shape;
/// assert_eq!(where_shape(&[3, 1], &[1, 4], &[4]).unwrap(), [3, 4]);
/// // The condition may grow the output.
/// assert_eq!(where_shape(&[2, 3, 4], &[4], &[]).unwrap(), [2, 3, 4]);
/// assert_eq!(
///     where_shape(&[3], &[4], &[1]).unwrap_err().to_string(),
///     "cannot broadcast [3] with [4] (numpy): axis 0 has 3 vs 4"
/// );
/// ```
pub fn where_shape(cond: &[usize], then: &[usize], otherwise: &[usize]) -> Result<ShapeBuf, Error> {
    resolve_select::<MAX_RANK>(cond, then, otherwise, None).map(|(out, _)| out)
}

/// The output shape of `select(cond, then, otherwise)` under OpenVINO's `auto_broadcast`
/// `mode` (W2): `then` and `otherwise` broadcast to each other (NONE: equal; NUMPY: P1-P6;
/// PDPD: `otherwise` placed onto `then` from the axis, D1-D10), then `cond` broadcasts one
/// way onto that result by the same rule: it may never grow it. `Bidirectional` is not a
/// mode of `Select` (an error value).
///
/// ```
/// use shaped::rules::select_shape;
/// use shaped::AutoBroadcast;
/// assert_eq!(select_shape(&[4], &[3, 1], &[4], AutoBroadcast::Numpy).unwrap(), [3, 4]);
/// // The condition may not grow the output (where_shape would give [2, 3, 4]).
/// assert_eq!(
///     select_shape(&[2, 3, 4], &[4], &[], AutoBroadcast::Numpy).unwrap_err().to_string(),
///     "cannot select: condition [2, 3, 4] would grow [4], the broadcast of the two values \
///      (numpy, W2)"
/// );
/// let pdpd = AutoBroadcast::Pdpd { axis: 1 };
/// assert_eq!(select_shape(&[3], &[2, 3, 4], &[3, 1], pdpd).unwrap(), [2, 3, 4]);
/// ```
pub fn select_shape(
    cond: &[usize],
    then: &[usize],
    otherwise: &[usize],
    mode: AutoBroadcast,
) -> Result<ShapeBuf, Error> {
    resolve_select::<MAX_RANK>(cond, then, otherwise, Some(mode)).map(|(out, _)| out)
}

/// The output shape and where `[cond, then, otherwise]` sit in it: `mode` `None` for W1's
/// three-way NUMPY broadcast, `Some` for W2.
pub(crate) fn resolve_select<const CAP: usize>(
    cond: &[usize],
    then: &[usize],
    otherwise: &[usize],
    mode: Option<AutoBroadcast>,
) -> Result<(ShapeBuf<CAP>, [Placement<'static>; 3]), Error> {
    // PDPD places `otherwise` and `cond` where its rule says; every other mode right-aligns.
    let (out, placed) = match mode {
        None => {
            let first = resolve::<CAP>(cond, then, AutoBroadcast::Numpy)?.out;
            (
                resolve::<CAP>(&first, otherwise, AutoBroadcast::Numpy)?.out,
                None,
            )
        }
        Some(AutoBroadcast::Bidirectional) => {
            return Err(Error::new(
                ErrorKind::SelectMode,
                Operation::Bidirectional,
                then,
                otherwise,
            ))
        }
        Some(mode) => {
            let values = resolve::<CAP>(then, otherwise, mode)?;
            let with_cond = resolve::<CAP>(&values.out, cond, mode)?;
            if with_cond.out != values.out {
                return Err(Error::new(
                    ErrorKind::ConditionGrows,
                    mode.operation(),
                    cond,
                    &values.out,
                ));
            }
            let placed = match mode {
                AutoBroadcast::Pdpd { .. } => {
                    Some([owned(with_cond.rhs), Placement::At(0), owned(values.rhs)])
                }
                _ => None,
            };
            (values.out, placed)
        }
    };
    let at = placed
        .unwrap_or_else(|| [cond, then, otherwise].map(|s| Placement::At(out.len() - s.len())));
    Ok((out, at))
}

/// A placement the elementwise rules made (always `At`: only the Broadcast op's explicit mode
/// places by an axes list), without the borrow.
fn owned(p: Placement<'_>) -> Placement<'static> {
    match p {
        Placement::At(at) => Placement::At(at),
        Placement::Axes(_) => Placement::At(0),
    }
}
