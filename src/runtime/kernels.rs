//! The runtime kernels: inputs are [`ArrayRef`]s (slices with a shape and optional strides),
//! the output is a caller's `&mut [T]` in row-major order. No allocator is needed.

use super::array_ref::ArrayRef;
use super::by_op::ByOp;
#[cfg(feature = "alloc")]
use super::plan::Hint;
use super::plan::{any, same_row_major, Plan, RowMajor, SMALL};
pub(crate) use super::plan::{Apply, ApplyUpdate, Here, NoHint, Split};
use crate::element::Element;
use crate::error::{Error, ErrorKind, Operation};
use crate::op::{BinaryOp, CompareOp, LogicalOp};
use crate::rules::{self, AutoBroadcast, BroadcastToMode, ShapeBuf, MAX_RANK};

pub(crate) fn check_output<const CAP: usize>(
    shape: &ShapeBuf<CAP>,
    len: usize,
    op: Operation,
) -> Result<usize, Error> {
    let expected = shape
        .element_count()
        .ok_or_else(|| Error::new(ErrorKind::Overflow, op, shape, &[]))?;
    if expected != len {
        let kind = ErrorKind::LengthMismatch {
            expected,
            actual: len,
        };
        return Err(Error::new(kind, op, shape, &[]));
    }
    Ok(expected)
}

/// Resolves the shapes, checks `out`, runs `check` (value checks, only for a non-empty
/// output, after the shapes so that shape errors win), then the kernel.
#[inline(always)]
fn zip_with_cap<const CAP: usize, X, Y, V>(
    a: &ArrayRef<'_, X>,
    b: &ArrayRef<'_, Y>,
    mode: AutoBroadcast,
    out: &mut [V],
    check: impl FnOnce() -> Result<(), Error>,
    f: impl Apply<X, Y, V>,
) -> Result<(), Error> {
    let resolved = rules::resolve::<CAP>(a.shape, b.shape, mode)?;
    if check_output(&resolved.out, out.len(), mode.operation())? > 0 {
        check()?;
        let plan = Plan::<CAP>::new(&resolved.out, a, resolved.lhs, b, resolved.rhs);
        f.apply(&plan.nest(), NoHint, a.data, b.data, out);
    }
    Ok(())
}

/// Broadcasts `a` with `b` under `mode` into a new `Vec` holding `f(a, b)` for each output
/// element, the shapes resolved once (they used to be resolved for the output's size and again
/// by the kernel: 207 of the 1879 instructions of a `4x4 + 4x1` `DynTensor` add, plus 316 of
/// `memcpy` moving 64-dim shape buffers). `check` runs after the shapes, for a non-empty
/// output, before anything is written; `hint` is [`Plan::run_hinted`]'s; `finish` receives the
/// output shape and the elements.
#[cfg(feature = "alloc")]
#[inline(always)]
pub(crate) fn zip_new<X, Y, V, R, F: Apply<X, Y, V>>(
    a: ArrayRef<'_, X>,
    b: ArrayRef<'_, Y>,
    mode: AutoBroadcast,
    hint: impl Hint,
    check: impl FnOnce() -> Result<(), Error>,
    f: F,
    finish: impl FnOnce(&[usize], alloc::vec::Vec<V>) -> R,
) -> Result<R, Error> {
    // The fast paths: identical shapes as one run, then NUMPY resolved and planned in one
    // pass; anything they do not take (errors included) goes the general way. A count whose
    // bytes overflow is left to the general path too, which reports it.
    let fits = |&count: &usize| {
        count
            .checked_mul(core::mem::size_of::<V>())
            .is_some_and(|bytes| bytes <= isize::MAX as usize)
    };
    if mode == AutoBroadcast::Numpy {
        if let Some(count) = same_row_major(&a, &b).filter(fits) {
            let plan = Plan::contiguous(count);
            let planned = Planned {
                shape: a.shape,
                nest: plan.nest(),
                count,
            };
            return zip_new_fast(&a, &b, planned, hint, check, f, finish);
        }
        let mut fast = RowMajor::new();
        if let Some(count) = fast.numpy(&a, &b).filter(fits) {
            let planned = Planned {
                shape: fast.out.as_slice(),
                nest: fast.plan.nest(),
                count,
            };
            return zip_new_fast(&a, &b, planned, hint, check, f, finish);
        }
    }
    if a.shape.len() <= SMALL && b.shape.len() <= SMALL {
        zip_new_cap::<SMALL, X, Y, V, R, _>(&a, &b, mode, hint, check, f, finish)
    } else {
        zip_new_cap::<MAX_RANK, X, Y, V, R, _>(&a, &b, mode, hint, check, f, finish)
    }
}

#[cfg(feature = "alloc")]
#[inline(always)]
fn zip_new_cap<const CAP: usize, X, Y, V, R, F: Apply<X, Y, V>>(
    a: &ArrayRef<'_, X>,
    b: &ArrayRef<'_, Y>,
    mode: AutoBroadcast,
    hint: impl Hint,
    check: impl FnOnce() -> Result<(), Error>,
    f: F,
    finish: impl FnOnce(&[usize], alloc::vec::Vec<V>) -> R,
) -> Result<R, Error> {
    let resolved = rules::resolve::<CAP>(a.shape, b.shape, mode)?;
    let shape = resolved.out.as_slice();
    let count = super::element_count::<V>(shape)?;
    if count == 0 {
        return Ok(finish(shape, alloc::vec::Vec::new()));
    }
    check()?;
    // Work that may be split takes its own copy of the rest, out of line. Tested deep in the
    // inlined kernel (as `Plan::run_split` does), the size test reshuffled the registers of
    // the whole call: a 4x4 + 4x1 `DynTensor` add ran 22 more instructions with feature
    // `rayon`, spills among them, and the small adds took 7-15% longer in each of three code
    // layouts. Tested here, where few values are live, and with the operation matched after
    // it (`by_op`): no more instructions (callgrind, `benches/README.md`).
    if F::SPLITS && !super::parallel::small(count) {
        return zip_new_split(a, b, &resolved, count, hint, f, finish);
    }
    zip_new_rest(a, b, &resolved, count, hint, f.here(), finish)
}

/// [`zip_new_cap`] past the size test, for work that may be split across threads.
#[cfg(feature = "alloc")]
#[cold]
#[inline(never)]
fn zip_new_split<const CAP: usize, X, Y, V, R>(
    a: &ArrayRef<'_, X>,
    b: &ArrayRef<'_, Y>,
    resolved: &rules::Resolved<'_, CAP>,
    count: usize,
    hint: impl Hint,
    f: impl Apply<X, Y, V>,
    finish: impl FnOnce(&[usize], alloc::vec::Vec<V>) -> R,
) -> Result<R, Error> {
    zip_new_rest(a, b, resolved, count, hint, f, finish)
}

/// The plan, the new `Vec` of `count` elements written by `f`, and `finish`.
#[cfg(feature = "alloc")]
#[inline(always)]
fn zip_new_rest<const CAP: usize, X, Y, V, R>(
    a: &ArrayRef<'_, X>,
    b: &ArrayRef<'_, Y>,
    resolved: &rules::Resolved<'_, CAP>,
    count: usize,
    hint: impl Hint,
    f: impl Apply<X, Y, V>,
    finish: impl FnOnce(&[usize], alloc::vec::Vec<V>) -> R,
) -> Result<R, Error> {
    let shape = resolved.out.as_slice();
    let plan = Plan::<CAP>::new(shape, a, resolved.lhs, b, resolved.rhs);
    // SAFETY: the plan's loop nest covers its output, `count` elements, row by row, writing
    // each once.
    let data = unsafe {
        super::filled_vec(count, shape, |out| {
            let mut f = f;
            fill_new(&plan.nest(), hint, a.data, b.data, out, f.uninit());
            Ok(())
        })?
    };
    Ok(finish(shape, data))
}

/// An output planned by one of [`zip_new`]'s fast paths.
#[cfg(feature = "alloc")]
struct Planned<'p> {
    /// The output shape.
    shape: &'p [usize],
    /// The loop nest over it.
    nest: super::plan::Nest<'p>,
    /// Its element count (non-zero; its bytes fit a `Vec`).
    count: usize,
}

/// [`zip_new`] past a fast path's plan: `check`, the size test, the new `Vec` and `finish`.
#[cfg(feature = "alloc")]
#[inline(always)]
fn zip_new_fast<X, Y, V, R, F: Apply<X, Y, V>>(
    a: &ArrayRef<'_, X>,
    b: &ArrayRef<'_, Y>,
    planned: Planned<'_>,
    hint: impl Hint,
    check: impl FnOnce() -> Result<(), Error>,
    f: F,
    finish: impl FnOnce(&[usize], alloc::vec::Vec<V>) -> R,
) -> Result<R, Error> {
    check()?;
    if F::SPLITS && !super::parallel::small(planned.count) {
        return zip_new_split_planned(a, b, &planned, hint, f, finish);
    }
    zip_new_planned(a, b, &planned, hint, f.here(), finish)
}

/// [`zip_new_planned`] for work that may be split across threads (out of line and cold, as
/// [`zip_new_split`]).
#[cfg(feature = "alloc")]
#[cold]
#[inline(never)]
fn zip_new_split_planned<X, Y, V, R>(
    a: &ArrayRef<'_, X>,
    b: &ArrayRef<'_, Y>,
    planned: &Planned<'_>,
    hint: impl Hint,
    f: impl Apply<X, Y, V>,
    finish: impl FnOnce(&[usize], alloc::vec::Vec<V>) -> R,
) -> Result<R, Error> {
    zip_new_planned(a, b, planned, hint, f, finish)
}

/// The new `Vec` of a [`Planned`] output written by `f`, and `finish`.
#[cfg(feature = "alloc")]
#[inline(always)]
fn zip_new_planned<X, Y, V, R>(
    a: &ArrayRef<'_, X>,
    b: &ArrayRef<'_, Y>,
    planned: &Planned<'_>,
    hint: impl Hint,
    f: impl Apply<X, Y, V>,
    finish: impl FnOnce(&[usize], alloc::vec::Vec<V>) -> R,
) -> Result<R, Error> {
    // SAFETY: the plan's loop nest covers its output, `count` elements, row by row, writing
    // each once.
    let data = unsafe {
        super::filled_vec(planned.count, planned.shape, |out| {
            let mut f = f;
            fill_new(&planned.nest, hint, a.data, b.data, out, f.uninit());
            Ok(())
        })?
    };
    Ok(finish(planned.shape, data))
}

/// [`zip_new_rest`]'s loop nest, out of line and independent of the plan's capacity: one
/// copy of the loops for both capacities, where inlined each had its own (a small `DynTensor`
/// program carried 7.5 and 13.8 KB of machine code for each of its operations, and its
/// release rebuild took longer than the same program's on ndarray).
#[cfg(feature = "alloc")]
#[inline(never)]
fn fill_new<X, Y, V>(
    nest: &super::plan::Nest<'_>,
    hint: impl Hint,
    a: &[X],
    b: &[Y],
    out: &mut [core::mem::MaybeUninit<V>],
    f: impl Apply<X, Y, core::mem::MaybeUninit<V>>,
) {
    f.apply(nest, hint, a, b, out)
}

#[inline(always)]
pub(crate) fn zip_checked<X, Y, V>(
    a: ArrayRef<'_, X>,
    b: ArrayRef<'_, Y>,
    mode: AutoBroadcast,
    out: &mut [V],
    check: impl FnOnce() -> Result<(), Error>,
    f: impl Apply<X, Y, V>,
) -> Result<(), Error> {
    if mode == AutoBroadcast::Numpy {
        if same_row_major(&a, &b) == Some(out.len()) {
            check()?;
            f.apply(
                &Plan::contiguous(out.len()).nest(),
                NoHint,
                a.data,
                b.data,
                out,
            );
            return Ok(());
        }
        let mut fast = RowMajor::new();
        if fast.numpy(&a, &b) == Some(out.len()) {
            check()?;
            f.apply(&fast.plan.nest(), NoHint, a.data, b.data, out);
            return Ok(());
        }
    }
    // Every mode's output rank is at most the larger input rank.
    if a.shape.len() <= SMALL && b.shape.len() <= SMALL {
        zip_with_cap::<SMALL, X, Y, V>(&a, &b, mode, out, check, f)
    } else {
        zip_with_cap::<MAX_RANK, X, Y, V>(&a, &b, mode, out, check, f)
    }
}

/// Broadcasts `a` with `b` under `mode` and writes `f(a, b)` for each output element into
/// `out`, which must hold exactly the output's element count (get the output shape from
/// [`broadcast_shapes`](crate::broadcast_shapes)).
///
/// ```
/// use shaped::{runtime::{zip_into, ArrayRef}, broadcast_shapes, AutoBroadcast};
/// let (a, b) = ([1, 2, 3], [10, 20]);
/// assert_eq!(broadcast_shapes(&[3, 1], &[2], AutoBroadcast::Numpy).unwrap(), [3, 2]);
/// let mut out = [0; 6];
/// zip_into(
///     ArrayRef::new(&[3, 1], &a).unwrap(),
///     ArrayRef::new(&[2], &b).unwrap(),
///     AutoBroadcast::Numpy,
///     &mut out,
///     |x, y| x * y,
/// ).unwrap();
/// assert_eq!(out, [10, 20, 20, 40, 30, 60]);
/// ```
#[inline]
pub fn zip_into<X, Y, V>(
    a: ArrayRef<'_, X>,
    b: ArrayRef<'_, Y>,
    mode: AutoBroadcast,
    out: &mut [V],
    f: impl FnMut(&X, &Y) -> V,
) -> Result<(), Error> {
    zip_checked(a, b, mode, out, || Ok(()), Here(f))
}

/// Refuses, before any element is written, the values an element type cannot compute:
/// integer division or remainder by zero, integer powers with a negative exponent, and float
/// powers in a build without `std` or `libm`.
pub(crate) fn check_values<T: Element>(
    a: &ArrayRef<'_, T>,
    b: &ArrayRef<'_, T>,
    op: BinaryOp,
) -> Result<(), Error> {
    let fail = |kind| Err(Error::new(kind, Operation::Compute, a.shape, b.shape));
    if T::INTEGER && op.divides() && any(b, |x| x.is_zero()) {
        return fail(ErrorKind::DivisionByZero);
    }
    if op == BinaryOp::Pow && !T::HAS_POW {
        return fail(ErrorKind::Unsupported);
    }
    if op == BinaryOp::Pow && T::INTEGER && any(b, |x| x.is_negative()) {
        return fail(ErrorKind::NegativeExponent);
    }
    Ok(())
}

/// [`zip_into`] with an arithmetic [`BinaryOp`]. Integer division by zero and negative integer
/// exponents are errors (checked before anything is written), never panics.
///
/// ```
/// use shaped::{runtime::{binary_into, ArrayRef}, AutoBroadcast, BinaryOp};
/// let a = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
/// let b = [10.0f32, 20.0];
/// let mut out = [0.0f32; 6];
/// binary_into(
///     ArrayRef::new(&[2, 3], &a).unwrap(),
///     ArrayRef::new(&[2], &b).unwrap(),
///     BinaryOp::Add,
///     AutoBroadcast::Pdpd { axis: 0 },
///     &mut out,
/// ).unwrap();
/// assert_eq!(out, [11.0, 12.0, 13.0, 24.0, 25.0, 26.0]);
/// ```
pub fn binary_into<T: Element>(
    a: ArrayRef<'_, T>,
    b: ArrayRef<'_, T>,
    op: BinaryOp,
    mode: AutoBroadcast,
    out: &mut [T],
) -> Result<(), Error> {
    let check = || check_values(&a, &b, op);
    zip_checked(a, b, mode, out, check, ByOp::new(op))
}

/// [`zip_into`] with a [`CompareOp`], writing `bool`s.
pub fn compare_into<T: PartialOrd + Sync>(
    a: ArrayRef<'_, T>,
    b: ArrayRef<'_, T>,
    op: CompareOp,
    mode: AutoBroadcast,
    out: &mut [bool],
) -> Result<(), Error> {
    zip_checked(a, b, mode, out, || Ok(()), ByOp::new(op))
}

/// [`zip_into`] with a [`LogicalOp`] on `bool` inputs.
// Concrete, so `#[inline]` keeps its kernels out of the library's own build (compiled where
// a program calls it).
#[inline]
pub fn logical_into(
    a: ArrayRef<'_, bool>,
    b: ArrayRef<'_, bool>,
    op: LogicalOp,
    mode: AutoBroadcast,
    out: &mut [bool],
) -> Result<(), Error> {
    zip_checked(a, b, mode, out, || Ok(()), ByOp::new(op))
}

fn broadcast_with_cap<const CAP: usize, T, V>(
    data: &ArrayRef<'_, T>,
    target: &[usize],
    mode: BroadcastToMode<'_>,
    out: &mut [V],
    f: impl Apply<T, T, V>,
) -> Result<(), Error> {
    let (shape, placement) = rules::resolve_to::<CAP>(data.shape, target, mode)?;
    if check_output(&shape, out.len(), mode.operation())? > 0 {
        let plan = Plan::<CAP>::new(&shape, data, placement, data, placement);
        // The data stands in as both inputs; `f` reads the first.
        f.apply(&plan.nest(), NoHint, data.data, data.data, out);
    }
    Ok(())
}

/// The Broadcast op (B5): writes `data` broadcast to `target` under `mode` into `out`, which
/// must hold the output's element count (the output shape is the target, or for
/// Bidirectional the NUMPY broadcast of both: see
/// [`broadcast_to_shape`](crate::rules::broadcast_to_shape)).
///
/// ```
/// use shaped::{runtime::{broadcast_into, ArrayRef}, BroadcastToMode};
/// let data = [1, 2, 3];
/// let mut out = [0; 6];
/// let mode = BroadcastToMode::Explicit { axes_mapping: &[1] };
/// broadcast_into(ArrayRef::new(&[3], &data).unwrap(), &[2, 3], mode, &mut out).unwrap();
/// assert_eq!(out, [1, 2, 3, 1, 2, 3]);
/// ```
pub fn broadcast_into<T: Clone>(
    data: ArrayRef<'_, T>,
    target: &[usize],
    mode: BroadcastToMode<'_>,
    out: &mut [T],
) -> Result<(), Error> {
    broadcast_into_with(data, target, mode, out, T::clone)
}

/// [`broadcast_into`] writing `f(element)`: the owned results build on it.
pub(crate) fn broadcast_into_with<T, V>(
    data: ArrayRef<'_, T>,
    target: &[usize],
    mode: BroadcastToMode<'_>,
    out: &mut [V],
    mut f: impl FnMut(&T) -> V,
) -> Result<(), Error> {
    broadcast_apply(data, target, mode, out, Here(move |x: &T, _: &T| f(x)))
}

/// [`broadcast_into_with`] with the element function's [`Apply`] (`f(element, element)`):
/// `Split` lets a large broadcast run on several threads.
pub(crate) fn broadcast_apply<T, V>(
    data: ArrayRef<'_, T>,
    target: &[usize],
    mode: BroadcastToMode<'_>,
    out: &mut [V],
    f: impl Apply<T, T, V>,
) -> Result<(), Error> {
    if data.shape.len() <= SMALL && target.len() <= SMALL {
        broadcast_with_cap::<SMALL, T, V>(&data, target, mode, out, f)
    } else {
        broadcast_with_cap::<MAX_RANK, T, V>(&data, target, mode, out, f)
    }
}

/// `f(out[i], b[i])` in place, with `b` broadcast one-directionally onto `out`'s shape (B5:
/// each right-aligned dim of `b` is 1 or `out`'s, so `out` never grows): the kernel behind
/// `+=` and its kin on runtime shapes. `out` is row-major with `out_shape`; `check` runs after
/// the shapes (value checks such as zero divisors), before anything is written.
pub(crate) fn update_into<Y, V>(
    out_shape: &[usize],
    out: &mut [V],
    b: ArrayRef<'_, Y>,
    check: impl FnOnce() -> Result<(), Error>,
    f: impl ApplyUpdate<Y, V>,
) -> Result<(), Error> {
    let mode = BroadcastToMode::Numpy;
    if b.shape.len() <= SMALL && out_shape.len() <= SMALL {
        update_with_cap::<SMALL, Y, V>(out_shape, out, &b, mode, check, f)
    } else {
        update_with_cap::<MAX_RANK, Y, V>(out_shape, out, &b, mode, check, f)
    }
}

fn update_with_cap<const CAP: usize, Y, V>(
    out_shape: &[usize],
    out: &mut [V],
    b: &ArrayRef<'_, Y>,
    mode: BroadcastToMode<'_>,
    check: impl FnOnce() -> Result<(), Error>,
    f: impl ApplyUpdate<Y, V>,
) -> Result<(), Error> {
    let (shape, placement) = rules::resolve_to::<CAP>(b.shape, out_shape, mode)?;
    if check_output(&shape, out.len(), mode.operation())? > 0 {
        check()?;
        // The output's own (row-major) strides stand in for the first input: only the shape
        // is read, never the (empty) data.
        let own = ArrayRef::<u8>::trusted(out_shape, &[]);
        let plan = Plan::<CAP>::new(&shape, &own, rules::Placement::At(0), b, placement);
        f.apply_update(&plan.nest(), b.data, out);
    }
    Ok(())
}
