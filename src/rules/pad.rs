//! Pad (rule M13): the shape that padding gives, its errors, and which input element each
//! output element takes. The runtime form is `DynTensor::pad`; the static one pads one axis
//! by amounts fixed at compile time (`Tensor::pad_constant::<A, BEFORE, AFTER>` and its kin).

use super::manipulate::axis_of;
use super::{checked_element_count, ShapeBuf, MAX_RANK};
use crate::error::{Error, ErrorKind, Operation};
use crate::op::ShapeOp;

fn error(kind: ErrorKind, shape: &[usize]) -> Error {
    Error::new(kind, Operation::Shape { op: ShapeOp::Pad }, shape, &[])
}

pub use crate::op::PadMode;

/// Padding resolved against a shape: for each axis, the elements added before the kept ones,
/// where the kept ones start in the input (past a negative begin pad) and how many there are.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PadPlan {
    pub(crate) out: ShapeBuf,
    pub(crate) before: [usize; MAX_RANK],
    pub(crate) first: [usize; MAX_RANK],
    pub(crate) kept: [usize; MAX_RANK],
}

/// The padding of `shape` by `pads` (M13): ONNX's layout, every begin then every end, for
/// the axes of `axes` in that order, or for every axis when `axes` is `None`.
pub(crate) fn resolve_pads(
    shape: &[usize],
    pads: &[i64],
    axes: Option<&[i64]>,
    mode: PadMode,
) -> Result<PadPlan, Error> {
    let op = ShapeOp::Pad;
    let rank = shape.len();
    if rank > MAX_RANK {
        return Err(error(ErrorKind::RankLimit { max: MAX_RANK }, shape));
    }
    let count = axes.map_or(rank, <[i64]>::len);
    if count.checked_mul(2) != Some(pads.len()) {
        let kind = ErrorKind::PadsLength {
            len: pads.len(),
            axes: count,
        };
        return Err(error(kind, shape));
    }
    let (mut begin, mut end) = ([0i64; MAX_RANK], [0i64; MAX_RANK]);
    match axes {
        None => {
            begin[..rank].copy_from_slice(&pads[..rank]);
            end[..rank].copy_from_slice(&pads[rank..]);
        }
        Some(axes) => {
            let mut seen = [false; MAX_RANK];
            for (i, &axis) in axes.iter().enumerate() {
                let a = axis_of(op, shape, axis, rank)?;
                if core::mem::replace(&mut seen[a], true) {
                    return Err(error(ErrorKind::DuplicateAxis { axis: a }, shape));
                }
                (begin[a], end[a]) = (pads[i], pads[count + i]);
            }
        }
    }
    let mut plan = PadPlan {
        out: ShapeBuf::new(),
        before: [0; MAX_RANK],
        first: [0; MAX_RANK],
        kept: [0; MAX_RANK],
    };
    for (a, &dim) in shape.iter().enumerate() {
        let (b, e) = (begin[a], end[a]);
        // In u128 every sum below is exact: two i64 magnitudes and a usize.
        let crop = |p: i64| {
            if p < 0 {
                u128::from(p.unsigned_abs())
            } else {
                0
            }
        };
        let add = |p: i64| u128::try_from(p).unwrap_or(0);
        let Some(kept) = (dim as u128).checked_sub(crop(b) + crop(e)) else {
            let kind = ErrorKind::PadCrop {
                axis: a,
                begin: b,
                end: e,
                dim,
            };
            return Err(error(kind, shape));
        };
        if kept == 0 && add(b) + add(e) > 0 && mode != PadMode::Constant {
            return Err(error(ErrorKind::PadEmptyAxis { axis: a, mode }, shape));
        }
        let out = usize::try_from(kept + add(b) + add(e))
            .map_err(|_| error(ErrorKind::Overflow, shape))?;
        // Each is at most `out` (the positive begin, the kept count) or `dim` (the crop).
        plan.before[a] = add(b) as usize;
        plan.first[a] = crop(b) as usize;
        plan.kept[a] = kept as usize;
        plan.out.dims[a] = out;
    }
    plan.out.len = rank;
    if checked_element_count(&plan.out).is_none() {
        return Err(error(ErrorKind::Overflow, shape));
    }
    Ok(plan)
}

/// The shape `shape` padded by `pads` takes (M13). `pads` is ONNX's: the begin of each axis
/// padded, then the end of each, for the axes of `axes` (negative from the end, each once) or
/// for every axis when `axes` is `None`. A positive pad adds that many elements, a negative
/// one removes them (before any are added). Checks what the mode needs: edge, reflect and
/// wrap pad from an axis's own elements, so an axis left empty cannot be padded by them.
///
/// ```
/// use shaped::rules::{pad_shape, PadMode};
/// assert_eq!(pad_shape(&[2, 3], &[1, 0, 1, 2], None, PadMode::Constant).unwrap(), [4, 5]);
/// assert_eq!(pad_shape(&[2, 3], &[-1, 2], Some(&[-1]), PadMode::Edge).unwrap(), [2, 4]);
/// let e = pad_shape(&[2, 3], &[1, 1], None, PadMode::Constant).unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "cannot pad [2, 3]: 2 pads given for 2 axes; each axis takes a begin and an end (M13)"
/// );
/// let e = pad_shape(&[2, 3], &[0, -2, 0, -2], None, PadMode::Constant).unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "cannot pad [2, 3]: pads -2 and -2 remove more elements than axis 1 has (3) (M13)"
/// );
/// let e = pad_shape(&[0, 3], &[1, 0, 0, 0], None, PadMode::Reflect).unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "cannot pad [0, 3]: axis 0 has no elements to pad from in reflect mode; only constant mode pads an empty axis (M13)"
/// );
/// ```
pub fn pad_shape(
    shape: &[usize],
    pads: &[i64],
    axes: Option<&[i64]>,
    mode: PadMode,
) -> Result<ShapeBuf, Error> {
    resolve_pads(shape, pads, axes, mode).map(|plan| plan.out)
}

/// The input index that output index `o` of a padded axis takes (M13), counted among the
/// `kept` elements that start after `before` added ones; `None` where the constant fills it.
/// Reflection has period `2 * (kept - 1)` (a single element reflects onto itself), wrapping
/// period `kept`.
#[inline(always)]
pub(crate) fn pad_source(o: usize, before: usize, kept: usize, mode: PadMode) -> Option<usize> {
    if o >= before && o - before < kept {
        return Some(o - before);
    }
    if kept == 0 {
        return None;
    }
    // `o - before` as a distance below the first kept element or a position past it.
    let (below, at) = if o < before {
        (true, before - o)
    } else {
        (false, o - before)
    };
    match mode {
        PadMode::Constant => None,
        PadMode::Edge => Some(if below { 0 } else { kept - 1 }),
        PadMode::Wrap => {
            let r = at % kept;
            Some(if below && r != 0 { kept - r } else { r })
        }
        PadMode::Reflect if kept == 1 => Some(0),
        PadMode::Reflect => {
            // No overflow: `kept` counts elements of a tensor, at most `isize::MAX`.
            let period = 2 * (kept - 1);
            let r = at % period;
            let j = if below && r != 0 { period - r } else { r };
            Some(if j < kept { j } else { period - j })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every mode against numpy's `pad` of `[0, 1, 2]` by 5 on each side.
    #[test]
    fn m13_sources_match_numpy() {
        let taken = |mode| -> [i64; 13] {
            core::array::from_fn(|o| pad_source(o, 5, 3, mode).map_or(-1, |i| i as i64))
        };
        assert_eq!(
            taken(PadMode::Reflect),
            [1, 0, 1, 2, 1, 0, 1, 2, 1, 0, 1, 2, 1]
        );
        assert_eq!(
            taken(PadMode::Wrap),
            [1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1]
        );
        assert_eq!(
            taken(PadMode::Edge),
            [0, 0, 0, 0, 0, 0, 1, 2, 2, 2, 2, 2, 2]
        );
        assert_eq!(
            taken(PadMode::Constant),
            [-1, -1, -1, -1, -1, 0, 1, 2, -1, -1, -1, -1, -1]
        );
        assert_eq!(pad_source(0, 2, 1, PadMode::Reflect), Some(0));
        assert_eq!(pad_source(0, 2, 0, PadMode::Wrap), None);
    }

    #[test]
    fn m13_extreme_pads_are_errors_not_overflows() {
        let e = pad_shape(&[2], &[i64::MAX, i64::MAX], None, PadMode::Constant).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Overflow);
        let e = pad_shape(&[2], &[i64::MIN, i64::MIN], None, PadMode::Constant).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::PadCrop { .. }));
        let e = pad_shape(&[usize::MAX, 2], &[0, 1, 0, 0], None, PadMode::Wrap).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Overflow);
        assert_eq!(
            pad_shape(&[usize::MAX, 0], &[0, 0, 0, 0], None, PadMode::Wrap).unwrap(),
            [usize::MAX, 0]
        );
    }
}
