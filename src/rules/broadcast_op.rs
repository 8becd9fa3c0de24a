//! The Broadcast op's own modes (section 4 of the rules: B1-B5): data to a target shape.

use super::{check_rank, numpy, pdpd, Placement, ShapeBuf, MAX_RANK};
use crate::error::{Error, ErrorKind, Operation};

/// The modes of the Broadcast op itself (B5), which broadcast data to a target shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BroadcastToMode<'a> {
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

impl BroadcastToMode<'_> {
    pub(crate) fn operation(&self) -> Operation {
        match *self {
            BroadcastToMode::Numpy => Operation::BroadcastToNumpy,
            BroadcastToMode::Explicit { .. } => Operation::BroadcastToExplicit,
            BroadcastToMode::Bidirectional => Operation::Bidirectional,
            BroadcastToMode::Pdpd { axis } => Operation::BroadcastToPdpd { axis },
        }
    }
}

pub(crate) fn resolve_to<'a, const CAP: usize>(
    data: &[usize],
    target: &[usize],
    mode: BroadcastToMode<'a>,
) -> Result<(ShapeBuf<CAP>, Placement<'a>), Error> {
    let op = mode.operation();
    check_rank::<CAP>(data, target, op)?;
    let target_buf = ShapeBuf::from_slice(target).unwrap_or_default();
    match mode {
        BroadcastToMode::Bidirectional => {
            let r = numpy::resolve::<CAP>(data, target, op)?;
            Ok((r.out, r.lhs))
        }
        BroadcastToMode::Numpy => {
            if target.len() < data.len() {
                return Err(Error::new(ErrorKind::TargetRankTooSmall, op, data, target));
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
                    return Err(Error::new(kind, op, data, target));
                }
            }
            Ok((target_buf, Placement::At(pad)))
        }
        BroadcastToMode::Explicit { axes_mapping } => {
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
                return Err(Error::new(kind, op, data, target));
            }
            // The mapping itself first (order, range), then the dims it pairs.
            for (index, &axis) in axes_mapping.iter().enumerate() {
                if index > 0 && axis <= axes_mapping[index - 1] {
                    let kind = ErrorKind::AxesMappingOrder { index };
                    return Err(Error::new(kind, op, data, target));
                }
                if axis >= target.len() {
                    let kind = ErrorKind::AxesMappingRange { index, axis };
                    return Err(Error::new(kind, op, data, target));
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
                    return Err(Error::new(kind, op, data, target));
                }
            }
            Ok((target_buf, Placement::Axes(axes_mapping)))
        }
        BroadcastToMode::Pdpd { axis } => {
            let start =
                pdpd::place(target, data, axis, op).map_err(|e| swap_sides(e, data, target))?;
            Ok((target_buf, Placement::At(start)))
        }
    }
}

/// `pdpd_place` speaks of (A, B) = (target, data); the Broadcast op's errors speak of
/// (data, target), so the shapes and dims are swapped back.
fn swap_sides(e: Error, data: &[usize], target: &[usize]) -> Error {
    let kind = match e.kind() {
        ErrorKind::DimMismatch { axis, lhs, rhs } => ErrorKind::DimMismatch {
            axis,
            lhs: rhs,
            rhs: lhs,
        },
        ErrorKind::SecondRankTooLarge => ErrorKind::TargetRankTooSmall,
        other => other,
    };
    Error::new(kind, e.operation(), data, target)
}

/// The output shape of the Broadcast op (B5) broadcasting `data` to `target` under `mode`.
///
/// ```
/// use shaped::rules::{broadcast_to_shape, BroadcastToMode};
/// let s = broadcast_to_shape(&[3, 1], &[2, 3, 1], BroadcastToMode::Explicit { axes_mapping: &[1, 2] });
/// assert_eq!(s.unwrap(), [2, 3, 1]);
/// let err = broadcast_to_shape(&[5, 1, 1, 1], &[1, 2, 3, 4], BroadcastToMode::Numpy).unwrap_err();
/// assert_eq!(err.to_string(), "cannot broadcast [5, 1, 1, 1] with [1, 2, 3, 4] (broadcast_to numpy): axis 0 has 5 vs 1");
/// ```
pub fn broadcast_to_shape(
    data: &[usize],
    target: &[usize],
    mode: BroadcastToMode<'_>,
) -> Result<ShapeBuf, Error> {
    resolve_to::<MAX_RANK>(data, target, mode).map(|(out, _)| out)
}
