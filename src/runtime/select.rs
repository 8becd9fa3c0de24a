//! Selection kernels (W1, W2): each output element is `then`'s where the condition holds and
//! `otherwise`'s where it does not, the three inputs broadcast onto the output. No allocator.

use core::mem::MaybeUninit;

use super::array_ref::ArrayRef;
use super::kernels::check_output;
use super::plan::{aligned_strides, SMALL};
use crate::error::{Error, ErrorKind, Operation};
use crate::rules::{resolve_select, AutoBroadcast, Placement, MAX_RANK};

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
    fill(&dims, &cond, [&then, &otherwise], at, out)
}

/// Where a selected element goes: a caller's element (the `_into` forms, overwritten) or an
/// uninitialised slot of a new result.
pub(crate) trait Slot<T> {
    /// Stores `v`.
    fn put(&mut self, v: T);
}

impl<T> Slot<T> for T {
    #[inline(always)]
    fn put(&mut self, v: T) {
        *self = v;
    }
}

impl<T> Slot<T> for MaybeUninit<T> {
    #[inline(always)]
    fn put(&mut self, v: T) {
        self.write(v);
    }
}

/// The loop nest of one selection, as [`Plan`](super::plan::Plan)'s for two inputs: each
/// input's strides in the output's index space (0 where it is stretched), size-1 axes dropped,
/// adjacent axes merged wherever all three inputs step through them alike. `s[0]` are the
/// condition's strides, `s[1]` `then`'s, `s[2]` `otherwise`'s.
struct Nest3<const CAP: usize> {
    rank: usize,
    dims: [usize; CAP],
    s: [[usize; CAP]; 3],
}

impl<const CAP: usize> Nest3<CAP> {
    /// The nest of an output of `dims` (non-empty: no dim is 0, so merged dims fit).
    fn new<T>(
        dims: &[usize],
        cond: &ArrayRef<'_, bool>,
        [then, otherwise]: [&ArrayRef<'_, T>; 2],
        [pc, pt, pe]: [Placement<'_>; 3],
    ) -> Self {
        let rank = dims.len();
        let given: [[usize; CAP]; 3] = [
            aligned_strides(cond, pc, rank),
            aligned_strides(then, pt, rank),
            aligned_strides(otherwise, pe, rank),
        ];
        let mut nest = Nest3 {
            rank: 0,
            dims: [0; CAP],
            s: [[0; CAP]; 3],
        };
        for (axis, &d) in dims.iter().enumerate() {
            if d == 1 {
                continue;
            }
            if let Some(last) = nest.rank.checked_sub(1) {
                // Merge with the previous (outer) axis when every input steps through the pair
                // as through one axis: outer stride = inner stride * inner dim.
                let merges = (0..3).all(|k| given[k][axis].checked_mul(d) == Some(nest.s[k][last]));
                if merges {
                    nest.dims[last] = nest.dims[last].wrapping_mul(d); // a product of output dims
                    for (s, g) in nest.s.iter_mut().zip(&given) {
                        s[last] = g[axis];
                    }
                    continue;
                }
            }
            nest.dims[nest.rank] = d;
            for (s, g) in nest.s.iter_mut().zip(&given) {
                s[nest.rank] = g[axis];
            }
            nest.rank += 1;
        }
        nest
    }
}

/// Writes the selected elements of an output of `dims` into `out` (row-major, the output's
/// element count, checked by the caller). An error only if an input addressed past its data,
/// which validated inputs never do.
pub(crate) fn fill<T: Clone, S: Slot<T>>(
    dims: &[usize],
    cond: &ArrayRef<'_, bool>,
    values: [&ArrayRef<'_, T>; 2],
    at: [Placement<'_>; 3],
    out: &mut [S],
) -> Result<(), Error> {
    if out.is_empty() || dims.contains(&0) {
        return Ok(());
    }
    let past = || Error::new(ErrorKind::BadStrides, Operation::Layout, dims, &[]);
    let [then, otherwise] = values;
    let data = (cond.data, then.data, otherwise.data);
    let done = if dims.len() <= SMALL {
        let nest = Nest3::<SMALL>::new(dims, cond, values, at);
        let mut index = [0usize; SMALL];
        let r = nest.rank;
        let s = [&nest.s[0][..r], &nest.s[1][..r], &nest.s[2][..r]];
        run(&nest.dims[..r], s, &mut index, data, out)
    } else {
        let nest = Nest3::<MAX_RANK>::new(dims, cond, values, at);
        let mut index = [0usize; MAX_RANK];
        let r = nest.rank;
        let s = [&nest.s[0][..r], &nest.s[1][..r], &nest.s[2][..r]];
        run(&nest.dims[..r], s, &mut index, data, out)
    };
    done.ok_or_else(past)
}

/// `data.get(o..o + n)`, `None` past the end (or on a wrapped offset).
#[inline(always)]
fn run_of<T>(data: &[T], o: usize, n: usize) -> Option<&[T]> {
    data.get(o..o.wrapping_add(n))
}

/// The `n` elements of `data` from `o` at stride `s` (any stride, 0 included: the one
/// element repeated), or `None` past the end.
#[inline(always)]
fn strided<T>(data: &[T], o: usize, s: usize, n: usize) -> Option<impl Iterator<Item = &T>> {
    let last = o.wrapping_add(n.wrapping_sub(1).wrapping_mul(s));
    Some(data.get(o..=last)?.iter().step_by(s.max(1)).cycle())
}

/// `x` if `c`, else `y`, cloned. For a type without drop glue (numbers, `bool`, arrays of
/// them: cloning one costs a copy) both are read first and the choice is between values, so
/// the row loops vectorise as a blend; branching on `c` first let the compiler load through
/// a chosen pointer, one element at a time (three `[100000, 12]` f32 inputs: 6.5 -> 3.1
/// instructions per element, `benches/select_probe.rs`).
#[inline(always)]
fn pick<T: Clone>(c: bool, x: &T, y: &T) -> T {
    if core::mem::needs_drop::<T>() {
        if c {
            x.clone()
        } else {
            y.clone()
        }
    } else {
        let (x, y) = (x.clone(), y.clone());
        if c {
            x
        } else {
            y
        }
    }
}

/// The loop nest of [`fill`], independent of the plan's capacity. The inner row body is
/// chosen once per call by the inner strides: a condition constant along the row copies one
/// side's row (or fills it with a broadcast scalar); a contiguous condition picks per element
/// from contiguous or broadcast values; anything else reads every input at its stride.
fn run<T: Clone, S: Slot<T>>(
    dims: &[usize],
    s: [&[usize]; 3],
    index: &mut [usize],
    (cond, then, other): (&[bool], &[T], &[T]),
    out: &mut [S],
) -> Option<()> {
    let Some(inner) = dims.len().checked_sub(1) else {
        let c = *cond.first()?;
        let v = if c { then.first() } else { other.first() };
        out.first_mut()?.put(v?.clone());
        return Some(());
    };
    let n = dims[inner];
    match (s[0][inner], s[1][inner], s[2][inner]) {
        (0, it, ie) => drive(dims, s, index, out, n, |row, [oc, ot, oe]| {
            let (src, o, st) = if *cond.get(oc)? {
                (then, ot, it)
            } else {
                (other, oe, ie)
            };
            match st {
                1 => {
                    for (slot, x) in row.iter_mut().zip(run_of(src, o, n)?) {
                        slot.put(x.clone());
                    }
                }
                0 => {
                    let x = src.get(o)?;
                    for slot in row.iter_mut() {
                        slot.put(x.clone());
                    }
                }
                _ => {
                    for (slot, x) in row.iter_mut().zip(strided(src, o, st, n)?) {
                        slot.put(x.clone());
                    }
                }
            }
            Some(())
        }),
        (1, 1, 1) => drive(dims, s, index, out, n, |row, [oc, ot, oe]| {
            let pairs = run_of(then, ot, n)?.iter().zip(run_of(other, oe, n)?);
            for ((slot, &c), (x, y)) in row.iter_mut().zip(run_of(cond, oc, n)?).zip(pairs) {
                slot.put(pick(c, x, y));
            }
            Some(())
        }),
        (1, 1, 0) => drive(dims, s, index, out, n, |row, [oc, ot, oe]| {
            let y = other.get(oe)?;
            let xs = run_of(then, ot, n)?;
            for ((slot, &c), x) in row.iter_mut().zip(run_of(cond, oc, n)?).zip(xs) {
                slot.put(pick(c, x, y));
            }
            Some(())
        }),
        (1, 0, 1) => drive(dims, s, index, out, n, |row, [oc, ot, oe]| {
            let x = then.get(ot)?;
            let ys = run_of(other, oe, n)?;
            for ((slot, &c), y) in row.iter_mut().zip(run_of(cond, oc, n)?).zip(ys) {
                slot.put(pick(c, x, y));
            }
            Some(())
        }),
        (ic, it, ie) => drive(dims, s, index, out, n, |row, [oc, ot, oe]| {
            let pairs = strided(then, ot, it, n)?.zip(strided(other, oe, ie, n)?);
            for ((slot, &c), (x, y)) in row.iter_mut().zip(strided(cond, oc, ic, n)?).zip(pairs) {
                slot.put(pick(c, x, y));
            }
            Some(())
        }),
    }
}

/// Calls `row(out_row, [offset_cond, offset_then, offset_otherwise])` for each innermost run
/// of `n` elements: the second-innermost axis a counted loop (short rows pay no odometer),
/// an odometer (in `index`, one slot per axis) over the axes above it. `None` as soon as a
/// row returns it.
#[inline(always)]
fn drive<S>(
    dims: &[usize],
    s: [&[usize]; 3],
    index: &mut [usize],
    out: &mut [S],
    n: usize,
    mut row: impl FnMut(&mut [S], [usize; 3]) -> Option<()>,
) -> Option<()> {
    let rank = dims.len();
    let (m, step) = match rank.checked_sub(2) {
        Some(k) => (dims[k], [s[0][k], s[1][k], s[2][k]]),
        None => (1, [0; 3]),
    };
    let outer = rank.saturating_sub(2);
    let mut at = [0usize; 3];
    for block in out.chunks_exact_mut(m.wrapping_mul(n)) {
        let mut o = at;
        for out_row in block.chunks_exact_mut(n) {
            row(out_row, o)?;
            for k in 0..3 {
                o[k] = o[k].wrapping_add(step[k]);
            }
        }
        // The odometer over the axes above the two innermost, the last of them fastest.
        for axis in (0..outer).rev() {
            let i = index.get_mut(axis)?;
            *i += 1;
            let wraps = *i >= dims[axis];
            for k in 0..3 {
                at[k] = at[k].wrapping_add(s[k][axis]);
                if wraps {
                    at[k] = at[k].wrapping_sub(s[k][axis].wrapping_mul(dims[axis]));
                }
            }
            if !wraps {
                break;
            }
            *i = 0;
        }
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::{fill, where_into};
    use crate::rules::{resolve_select, MAX_RANK};
    use crate::runtime::ArrayRef;
    use core::mem::MaybeUninit;
    use std::vec::Vec;

    /// One input: its shape, its strides, and the length of its data.
    type Input<'a> = (&'a [usize], &'a [usize]);

    fn span((shape, strides): Input<'_>) -> usize {
        if shape.contains(&0) {
            return 0;
        }
        shape
            .iter()
            .zip(strides)
            .map(|(d, s)| (d - 1) * s)
            .sum::<usize>()
            + 1
    }

    /// The element of `input` at output index `index`, right-aligned, its size-1 dims read at
    /// 0: the definition of W1, written out per element.
    fn at((shape, strides): Input<'_>, index: &[usize]) -> usize {
        let lead = index.len() - shape.len();
        (0..shape.len())
            .map(|i| {
                if shape[i] == 1 {
                    0
                } else {
                    index[lead + i] * strides[i]
                }
            })
            .sum()
    }

    /// Every inner-row body of the loop nest (a condition constant along the row, a
    /// contiguous one with contiguous or broadcast values, strided reads, explicit stride-0
    /// inputs), merged axes, a nest deeper than the small buffers, an empty and a rank-0
    /// output: written by `where_into` (into `T`s) and by the allocating path's `fill` (into
    /// uninitialised slots), both against the definition element by element.
    #[test]
    fn every_loop_body_writes_what_the_definition_selects() {
        let deep: &[usize] = &[2, 1, 2, 1, 2, 1, 2, 1, 2, 3];
        let deep_strides: &[usize] = &[48, 48, 24, 24, 12, 12, 6, 6, 3, 1];
        let cases: [[Input<'_>; 3]; 12] = [
            // The statistics program: a column mask, a scalar.
            [(&[5, 1], &[1, 1]), (&[5, 12], &[12, 1]), (&[], &[])],
            // A column mask choosing between a broadcast row and a transposed view.
            [(&[5, 1], &[1, 1]), (&[12], &[1]), (&[5, 12], &[1, 5])],
            // A row mask.
            [(&[1, 12], &[12, 1]), (&[5, 12], &[12, 1]), (&[], &[])],
            [(&[1, 12], &[12, 1]), (&[], &[]), (&[5, 12], &[12, 1])],
            // Three full inputs (one run of 60 after merging), and a scalar on either side.
            [
                (&[5, 12], &[12, 1]),
                (&[5, 12], &[12, 1]),
                (&[5, 12], &[12, 1]),
            ],
            [(&[5, 12], &[12, 1]), (&[1], &[1]), (&[5, 12], &[12, 1])],
            [
                (&[5, 12], &[12, 1]),
                (&[5, 12], &[12, 1]),
                (&[1, 1], &[1, 1]),
            ],
            // Strided and explicit stride-0 inputs.
            [
                (&[12, 5], &[1, 12]),
                (&[12, 5], &[5, 1]),
                (&[12, 5], &[0, 1]),
            ],
            [(&[4, 3], &[0, 1]), (&[4, 3], &[6, 2]), (&[3], &[0])],
            // Deeper than eight axes, size-1 axes among them; and broadcast onto the cond.
            [
                (deep, deep_strides),
                (&[3], &[1]),
                (&[2, 1, 1, 1, 1, 1, 1, 1, 1, 1], &[1; 10]),
            ],
            // An empty output, and a rank-0 one.
            [(&[0, 3], &[3, 1]), (&[3], &[1]), (&[], &[])],
            [(&[], &[]), (&[], &[]), (&[], &[])],
        ];
        for [c, t, e] in cases {
            let cd: Vec<bool> = (0..span(c)).map(|i| (i * 7) % 5 < 2).collect();
            let td: Vec<i32> = (0..span(t)).map(|i| i as i32 + 1).collect();
            let ed: Vec<i32> = (0..span(e)).map(|i| -(i as i32) - 1).collect();
            let rc = ArrayRef::with_strides(c.0, c.1, &cd).unwrap();
            let rt = ArrayRef::with_strides(t.0, t.1, &td).unwrap();
            let re = ArrayRef::with_strides(e.0, e.1, &ed).unwrap();
            let (dims, placed) = resolve_select::<MAX_RANK>(c.0, t.0, e.0, None).unwrap();
            let count: usize = dims.iter().product();
            let mut want = Vec::with_capacity(count);
            let mut index = std::vec![0usize; dims.len()];
            for _ in 0..count {
                let v = match cd[at(c, &index)] {
                    true => td[at(t, &index)],
                    false => ed[at(e, &index)],
                };
                want.push(v);
                for (i, &d) in index.iter_mut().zip(dims.iter()).rev() {
                    *i += 1;
                    if *i < d {
                        break;
                    }
                    *i = 0;
                }
            }
            let mut out = std::vec![0; count];
            where_into(rc, rt, re, &mut out).unwrap();
            assert_eq!(out, want, "{c:?} {t:?} {e:?}");
            let mut slots = std::vec![MaybeUninit::new(0); count];
            fill(&dims, &rc, [&rt, &re], placed, &mut slots).unwrap();
            // SAFETY: every slot was initialised when made.
            let got: Vec<i32> = slots.iter().map(|s| unsafe { s.assume_init() }).collect();
            assert_eq!(got, want, "{c:?} {t:?} {e:?}, uninit slots");
        }
    }

    /// A type with drop glue takes the branch that clones only the chosen element.
    #[test]
    fn elements_with_drop_glue_are_selected_too() {
        use std::string::{String, ToString};
        let cond = [true, false, false, true];
        let then: Vec<String> = ["a", "b", "c", "d"].iter().map(|s| s.to_string()).collect();
        let other = ["-".to_string()];
        let mut out = std::vec![String::new(); 4];
        where_into(
            ArrayRef::new(&[4], &cond).unwrap(),
            ArrayRef::new(&[4], &then).unwrap(),
            ArrayRef::new(&[1], &other).unwrap(),
            &mut out,
        )
        .unwrap();
        assert_eq!(out, ["a", "-", "-", "d"]);
    }
}
