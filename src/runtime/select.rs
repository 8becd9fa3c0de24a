//! Selection kernels (W1, W2): each output element is `then`'s where the condition holds and
//! `otherwise`'s where it does not, the three inputs broadcast onto the output. No allocator.

use super::array_ref::ArrayRef;
use super::kernels::check_output;
use super::plan::aligned_strides;
use crate::error::{Error, ErrorKind, Operation};
use crate::rules::{resolve_select, AutoBroadcast, Placement, ShapeBuf, MAX_RANK};

/// `where(cond, then, otherwise)` into `out` (W1): the three shapes broadcast together by
/// NUMPY, as numpy's `where` and ONNX's `Where`; `out` holds the output's elements in
/// row-major order.
///
/// ```
/// use shaped::runtime::{where_into, ArrayRef};
/// let mut out = [0; 6];
/// where_into(
///     ArrayRef::new(&[3], &[true, false, true])?,
///     ArrayRef::new(&[2, 3], &[1, 2, 3, 4, 5, 6])?,
///     ArrayRef::new(&[1], &[-1])?,
///     &mut out,
/// )?;
/// assert_eq!(out, [1, -1, 3, 4, -1, 6]);
/// # Ok::<(), shaped::Error>(())
/// ```
pub fn where_into<T: Clone>(
    cond: ArrayRef<'_, bool>,
    then: ArrayRef<'_, T>,
    otherwise: ArrayRef<'_, T>,
    out: &mut [T],
) -> Result<(), Error> {
    select_with(cond, then, otherwise, None, out)
}

/// `select(cond, then, otherwise)` into `out` under OpenVINO's `auto_broadcast` `mode` (W2):
/// `then` and `otherwise` broadcast to each other, then `cond` one way onto the result (it
/// may not grow it).
///
/// ```
/// use shaped::runtime::{select_into, ArrayRef};
/// use shaped::AutoBroadcast;
/// let mut out = [0.0; 4];
/// select_into(
///     ArrayRef::new(&[2, 1], &[true, false])?,
///     ArrayRef::new(&[2, 2], &[1.0, 2.0, 3.0, 4.0])?,
///     ArrayRef::new(&[], &[0.0])?,
///     AutoBroadcast::Numpy,
///     &mut out,
/// )?;
/// assert_eq!(out, [1.0, 2.0, 0.0, 0.0]);
/// # Ok::<(), shaped::Error>(())
/// ```
pub fn select_into<T: Clone>(
    cond: ArrayRef<'_, bool>,
    then: ArrayRef<'_, T>,
    otherwise: ArrayRef<'_, T>,
    mode: AutoBroadcast,
    out: &mut [T],
) -> Result<(), Error> {
    select_with(cond, then, otherwise, Some(mode), out)
}

/// [`where_into`] (`mode` `None`) or [`select_into`]: shapes resolved, `out` checked, then
/// every element written.
fn select_with<T: Clone>(
    cond: ArrayRef<'_, bool>,
    then: ArrayRef<'_, T>,
    otherwise: ArrayRef<'_, T>,
    mode: Option<AutoBroadcast>,
    out: &mut [T],
) -> Result<(), Error> {
    let (dims, at) = resolve_select::<MAX_RANK>(cond.shape, then.shape, otherwise.shape, mode)?;
    let op = mode.map_or(Operation::Numpy, AutoBroadcast::operation);
    check_output(&dims, out.len(), op)?;
    let mut slots = out.iter_mut();
    each(&dims, &cond, [&then, &otherwise], at, |v| {
        if let Some(slot) = slots.next() {
            *slot = v;
        }
    })
}

/// The selected elements of an output of `dims` in row-major order, each handed to `emit`:
/// the last axis in a loop of its own, an odometer over the others. An error only if an input
/// addressed past its data, which validated inputs never do.
pub(crate) fn each<T: Clone, const CAP: usize>(
    dims: &ShapeBuf<CAP>,
    cond: &ArrayRef<'_, bool>,
    values: [&ArrayRef<'_, T>; 2],
    [pc, pt, pe]: [Placement<'_>; 3],
    mut emit: impl FnMut(T),
) -> Result<(), Error> {
    let rank = dims.len();
    if dims.contains(&0) {
        return Ok(());
    }
    let [then, otherwise] = values;
    let sc: [usize; CAP] = aligned_strides(cond, pc, rank);
    let st: [usize; CAP] = aligned_strides(then, pt, rank);
    let se: [usize; CAP] = aligned_strides(otherwise, pe, rank);
    let past = || Error::new(ErrorKind::BadStrides, Operation::Layout, dims, &[]);
    let (last, [lc, lt, le]) = match rank.checked_sub(1) {
        Some(axis) => (dims[axis], [sc[axis], st[axis], se[axis]]),
        None => (1, [0; 3]),
    };
    let rows = dims[..rank.saturating_sub(1)].iter().product::<usize>();
    let mut index = [0usize; CAP];
    let (mut oc, mut ot, mut oe) = (0usize, 0usize, 0usize);
    for _ in 0..rows {
        for j in 0..last {
            let c = *cond
                .data
                .get(oc.wrapping_add(j.wrapping_mul(lc)))
                .ok_or_else(past)?;
            let v = if c {
                then.data.get(ot.wrapping_add(j.wrapping_mul(lt)))
            } else {
                otherwise.data.get(oe.wrapping_add(j.wrapping_mul(le)))
            };
            emit(v.ok_or_else(past)?.clone());
        }
        // The odometer over the axes before the last, the last of them fastest.
        for axis in (0..rank.saturating_sub(1)).rev() {
            index[axis] += 1;
            oc = oc.wrapping_add(sc[axis]);
            ot = ot.wrapping_add(st[axis]);
            oe = oe.wrapping_add(se[axis]);
            if index[axis] < dims[axis] {
                break;
            }
            index[axis] = 0;
            oc = oc.wrapping_sub(sc[axis].wrapping_mul(dims[axis]));
            ot = ot.wrapping_sub(st[axis].wrapping_mul(dims[axis]));
            oe = oe.wrapping_sub(se[axis].wrapping_mul(dims[axis]));
        }
    }
    Ok(())
}
