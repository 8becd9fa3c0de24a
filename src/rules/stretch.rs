//! Which output axes an input was stretched along (B6): OpenVINO's `get_broadcast_axes`, for
//! the elementwise modes and for the Broadcast op's modes. The partial-shape form is
//! [`partial::stretched_axes_partial`](super::partial::stretched_axes_partial); the
//! compile-time form is [`Stretched`](crate::typed::rules::Stretched).

use core::fmt;

use super::{resolve, resolve_to, AutoBroadcast, BroadcastToMode, Placement, MAX_RANK};
use crate::error::Error;

/// A set of axes (each below 64), kept as bits. Iterates in increasing order.
///
/// ```
/// use shaped::rules::AxisSet;
/// let s = AxisSet::EMPTY.with(0).with(2);
/// assert!(s.contains(2) && !s.contains(1));
/// assert_eq!(s.iter().collect::<Vec<_>>(), [0, 2]);
/// assert_eq!(s.to_string(), "{0, 2}");
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct AxisSet(u64);

impl AxisSet {
    /// No axis.
    pub const EMPTY: AxisSet = AxisSet(0);

    /// The set with `axis` added (an axis of 64 or more is ignored: no rank reaches it).
    #[must_use]
    pub const fn with(self, axis: usize) -> AxisSet {
        if axis < 64 {
            AxisSet(self.0 | 1 << axis)
        } else {
            self
        }
    }

    /// Whether `axis` is in the set.
    pub const fn contains(self, axis: usize) -> bool {
        axis < 64 && self.0 >> axis & 1 == 1
    }

    /// The number of axes.
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The axes, in increasing order.
    pub fn iter(self) -> impl Iterator<Item = usize> {
        (0..64).filter(move |&a| self.contains(a))
    }

    /// The axes of the rank-`out` output that an input of dims `input` is stretched along when
    /// placed from axis `start`: those it has no dim at, and those where its 1 meets an output
    /// dim other than 1. For compile-time constants (see
    /// [`Stretched`](crate::typed::rules::Stretched)).
    pub const fn placed(input: &[usize], output: &[usize], start: usize) -> AxisSet {
        let mut set = AxisSet::EMPTY;
        let mut axis = 0;
        while axis < output.len() {
            let inside = axis >= start && axis - start < input.len();
            if !inside || (input[axis - start] == 1 && output[axis] != 1) {
                set = set.with(axis);
            }
            axis += 1;
        }
        set
    }
}

impl fmt::Debug for AxisSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl fmt::Display for AxisSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (i, a) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{a}")?;
        }
        f.write_str("}")
    }
}

/// B6 for an elementwise operation under `mode`: the output axes that `a` and that `b` were
/// each stretched along (the shapes checked as [`broadcast_shapes`](super::broadcast_shapes)
/// checks them). Under NONE
/// neither stretches; under PDPD `a` never does.
///
/// ```
/// use shaped::rules::stretched_axes;
/// use shaped::AutoBroadcast;
/// let [a, b] = stretched_axes(&[8, 1, 6, 1], &[7, 1, 5], AutoBroadcast::Numpy).unwrap();
/// assert_eq!((a.to_string(), b.to_string()), ("{1, 3}".into(), "{0, 2}".into()));
/// let [a, b] = stretched_axes(&[2, 3, 4, 5], &[3, 1], AutoBroadcast::Pdpd { axis: 1 }).unwrap();
/// assert_eq!((a.to_string(), b.to_string()), ("{}".into(), "{0, 2, 3}".into()));
/// ```
pub fn stretched_axes(
    a: &[usize],
    b: &[usize],
    mode: AutoBroadcast,
) -> Result<[AxisSet; 2], Error> {
    let r = resolve::<MAX_RANK>(a, b, mode)?;
    Ok([
        stretched_by(a, &r.out, r.lhs),
        stretched_by(b, &r.out, r.rhs),
    ])
}

/// B6 for the Broadcast op: the output axes `data` was stretched along when broadcast to
/// `target` under `mode` (the shapes checked as
/// [`broadcast_to_shape`](super::broadcast_to_shape) checks them). Under `explicit`, the axes
/// outside `axes_mapping`, and the mapped ones where a data 1 meets a target dim other than 1
/// (A18).
///
/// ```
/// use shaped::rules::{stretched_axes_to, BroadcastToMode};
/// let mapping = BroadcastToMode::Explicit { axes_mapping: &[1, 2] };
/// assert_eq!(stretched_axes_to(&[3, 1], &[2, 3, 4], mapping).unwrap().to_string(), "{0, 2}");
/// let numpy = stretched_axes_to(&[1, 4], &[2, 3, 4], BroadcastToMode::Numpy).unwrap();
/// assert_eq!(numpy.to_string(), "{0, 1}");
/// ```
pub fn stretched_axes_to(
    data: &[usize],
    target: &[usize],
    mode: BroadcastToMode<'_>,
) -> Result<AxisSet, Error> {
    let (out, placement) = resolve_to::<MAX_RANK>(data, target, mode)?;
    Ok(stretched_by(data, &out, placement))
}

/// The axes of `out` that `input`, placed as `placement` says, was stretched along.
fn stretched_by(input: &[usize], out: &[usize], placement: Placement<'_>) -> AxisSet {
    match placement {
        Placement::At(start) => AxisSet::placed(input, out, start),
        Placement::Axes(mapping) => {
            let mut set = AxisSet::EMPTY;
            for (axis, &o) in out.iter().enumerate() {
                let stretched = match mapping.iter().position(|&m| m == axis) {
                    // A scalar with a one-entry mapping counts as [1].
                    Some(i) => input.get(i).copied().unwrap_or(1) == 1 && o != 1,
                    None => true,
                };
                if stretched {
                    set = set.with(axis);
                }
            }
            set
        }
    }
}
