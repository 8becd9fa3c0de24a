//! Runtime-shape kernels that need no allocator: inputs are slices with a shape and optional
//! strides, the output is a caller's `&mut [T]` in row-major order.
//!
//! Every call works out its loop plan once: each input's strides in the output's index space
//! (0 where it is stretched), size-1 axes dropped, adjacent axes merged wherever every operand
//! steps through them alike. The innermost axis then runs as a contiguous run, a broadcast
//! scalar, or a plain strided loop, and an odometer walks the outer axes with no division.
//! Ranks go up to [`MAX_RANK`]; calls whose ranks are at most 8 use
//! small fixed buffers, so the per-call setup stays in the tens of nanoseconds.

use crate::elementwise::{pick, BinaryOp, CompareOp, Element, LogicalOp};
use crate::error::{BroadcastError, ErrorKind, Operation};
use crate::rules::{self, AutoBroadcast, BroadcastMode, Placement, ShapeBuf, MAX_RANK};

/// The capacity of the per-call buffers when every rank involved is at most this: the common
/// case pays for eight slots, not [`MAX_RANK`].
const SMALL: usize = 8;

/// A read-only n-dimensional input: elements, shape and strides (in elements).
///
/// ```
/// use shaped::strided::ArrayRef;
/// let data = [1, 2, 3, 4, 5, 6];
/// let a = ArrayRef::new(&data, &[2, 3]).unwrap();
/// // The transpose of `a`: shape [3, 2], strides [1, 3].
/// let t = ArrayRef::with_strides(&data, &[3, 2], &[1, 3]).unwrap();
/// assert!(ArrayRef::new(&data, &[4, 2]).is_err());
/// # let _ = (a, t);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct ArrayRef<'a, T> {
    data: &'a [T],
    shape: &'a [usize],
    strides: Strides<'a>,
}

#[derive(Clone, Copy, Debug)]
enum Strides<'a> {
    RowMajor,
    Given(&'a [usize]),
}

impl<'a, T> ArrayRef<'a, T> {
    /// A row-major input; `data.len()` must be the element count of `shape`.
    pub fn new(data: &'a [T], shape: &'a [usize]) -> Result<Self, BroadcastError> {
        let layout = |kind| BroadcastError::new(kind, Operation::Layout, shape, &[]);
        if shape.len() > MAX_RANK {
            return Err(layout(ErrorKind::RankLimit { max: MAX_RANK }));
        }
        let expected =
            rules::checked_element_count(shape).ok_or_else(|| layout(ErrorKind::Overflow))?;
        if expected != data.len() {
            let kind = ErrorKind::LengthMismatch {
                expected,
                actual: data.len(),
            };
            return Err(layout(kind));
        }
        Ok(ArrayRef {
            data,
            shape,
            strides: Strides::RowMajor,
        })
    }

    /// An input with explicit strides (one per dim, in elements, 0 allowed): a transposed or
    /// sliced view. Every addressed element must lie inside `data`.
    pub fn with_strides(
        data: &'a [T],
        shape: &'a [usize],
        strides: &'a [usize],
    ) -> Result<Self, BroadcastError> {
        let err = |kind| BroadcastError::new(kind, Operation::Layout, shape, strides);
        if shape.len() > MAX_RANK {
            return Err(err(ErrorKind::RankLimit { max: MAX_RANK }));
        }
        if strides.len() != shape.len() {
            return Err(err(ErrorKind::BadStrides));
        }
        // The same count rule as row-major inputs: a zero dim does not excuse the others.
        if rules::checked_element_count(shape).is_none() {
            return Err(err(ErrorKind::Overflow));
        }
        if shape.contains(&0) {
            return Ok(ArrayRef {
                data,
                shape,
                strides: Strides::Given(strides),
            });
        }
        let last =
            rules::checked_last_offset(shape, strides).ok_or_else(|| err(ErrorKind::Overflow))?;
        if last >= data.len() {
            return Err(err(ErrorKind::BadStrides));
        }
        Ok(ArrayRef {
            data,
            shape,
            strides: Strides::Given(strides),
        })
    }

    /// The shape.
    pub fn shape(&self) -> &'a [usize] {
        self.shape
    }
}

/// The loop nest for one call: merged axes, outermost first, with each input's stride.
#[derive(Debug)]
struct Plan<const CAP: usize> {
    rank: usize,
    dims: [usize; CAP],
    a: [usize; CAP],
    b: [usize; CAP],
}

/// Strides of `input` laid out in the output's index space by `placement`.
fn aligned_strides<T, const CAP: usize>(
    input: &ArrayRef<'_, T>,
    placement: Placement<'_>,
    out_rank: usize,
) -> [usize; CAP] {
    let mut strides = [0; CAP];
    // Row-major strides are accumulated from the innermost dim outwards.
    let mut row_major = 1usize;
    for (i, &d) in input.shape.iter().enumerate().rev() {
        let stride = match input.strides {
            Strides::Given(s) => s[i],
            Strides::RowMajor => row_major,
        };
        row_major = row_major.wrapping_mul(d); // exact while it matters: the elements exist
        if d == 1 {
            continue; // stretched (or a PDPD-trimmed trailing 1): read with stride 0
        }
        if let Some(axis) = placement.axis_of(i).filter(|&axis| axis < out_rank) {
            strides[axis] = stride;
        }
    }
    strides
}

impl<const CAP: usize> Plan<CAP> {
    fn new<X, Y>(
        out: &[usize],
        a: &ArrayRef<'_, X>,
        pa: Placement<'_>,
        b: &ArrayRef<'_, Y>,
        pb: Placement<'_>,
    ) -> Self {
        // An empty output runs nothing; its other dims may be huge (`[0, usize::MAX, 2]`), so
        // they are not merged (their product could overflow).
        if out.contains(&0) {
            return Plan {
                rank: 0,
                dims: [0; CAP],
                a: [0; CAP],
                b: [0; CAP],
            };
        }
        let sa: [usize; CAP] = aligned_strides(a, pa, out.len());
        let sb: [usize; CAP] = aligned_strides(b, pb, out.len());
        let mut plan = Plan {
            rank: 0,
            dims: [0; CAP],
            a: [0; CAP],
            b: [0; CAP],
        };
        for axis in 0..out.len() {
            let d = out[axis];
            if d == 1 {
                continue;
            }
            if plan.rank > 0 {
                let last = plan.rank - 1;
                // Merge with the previous (outer) axis when both inputs step through the pair
                // as through one axis: outer stride = inner stride * inner dim.
                let merges = |outer: usize, inner: usize| inner.checked_mul(d) == Some(outer);
                if merges(plan.a[last], sa[axis]) && merges(plan.b[last], sb[axis]) {
                    plan.dims[last] *= d; // fits: both are dims of the output, which exists
                    plan.a[last] = sa[axis];
                    plan.b[last] = sb[axis];
                    continue;
                }
            }
            plan.dims[plan.rank] = d;
            plan.a[plan.rank] = sa[axis];
            plan.b[plan.rank] = sb[axis];
            plan.rank += 1;
        }
        plan
    }

    /// Runs `f` over the plan, writing `out` in row-major order. `out.len()` is the element
    /// count of the plan and is non-zero. The inner-loop variant is chosen once per call.
    #[inline(always)]
    fn run<X, Y, V>(&self, a: &[X], b: &[Y], out: &mut [V], mut f: impl FnMut(&X, &Y) -> V) {
        if self.rank == 0 {
            out[0] = f(&a[0], &b[0]);
            return;
        }
        let inner = self.rank - 1;
        let (n, ia, ib) = (self.dims[inner], self.a[inner], self.b[inner]);
        match (ia, ib) {
            // Common short runs get a fixed-size body that LLVM unrolls completely.
            (1, 1) if n == 16 => self.drive(out, n, |row, oa, ob| {
                fixed::<16, _, _, _>(row, a, oa, b, ob, &mut f)
            }),
            (1, 1) if n == 8 => self.drive(out, n, |row, oa, ob| {
                fixed::<8, _, _, _>(row, a, oa, b, ob, &mut f)
            }),
            (1, 1) if n == 4 => self.drive(out, n, |row, oa, ob| {
                fixed::<4, _, _, _>(row, a, oa, b, ob, &mut f)
            }),
            (1, 1) => self.drive(out, n, |row, oa, ob| {
                for ((o, x), y) in row.iter_mut().zip(&a[oa..oa + n]).zip(&b[ob..ob + n]) {
                    *o = f(x, y);
                }
            }),
            (0, 1) => self.drive(out, n, |row, oa, ob| {
                let x = &a[oa];
                for (o, y) in row.iter_mut().zip(&b[ob..ob + n]) {
                    *o = f(x, y);
                }
            }),
            (1, 0) => self.drive(out, n, |row, oa, ob| {
                let y = &b[ob];
                for (o, x) in row.iter_mut().zip(&a[oa..oa + n]) {
                    *o = f(x, y);
                }
            }),
            _ => self.drive(out, n, |row, oa, ob| {
                for (k, o) in row.iter_mut().enumerate() {
                    *o = f(&a[oa + k * ia], &b[ob + k * ib]);
                }
            }),
        }
    }

    /// [`run`](Self::run), but when the innermost run is contiguous in both inputs and its
    /// length equals `hint` (a constant after monomorphization, from the static dims of a
    /// mixed shape), the row loop has that constant trip count, as in a static kernel.
    #[inline(always)]
    fn run_hinted<X, Y, V>(
        &self,
        hint: usize,
        a: &[X],
        b: &[Y],
        out: &mut [V],
        mut f: impl FnMut(&X, &Y) -> V,
    ) {
        if self.rank > 0 {
            let inner = self.rank - 1;
            if hint > 1 && self.dims[inner] == hint && (self.a[inner], self.b[inner]) == (1, 1) {
                self.drive(out, hint, |row, oa, ob| {
                    for ((o, x), y) in row.iter_mut().zip(&a[oa..oa + hint]).zip(&b[ob..ob + hint])
                    {
                        *o = f(x, y);
                    }
                });
                return;
            }
        }
        self.run(a, b, out, f);
    }

    /// Calls `row(out_row, offset_a, offset_b)` for each innermost run: the second-innermost
    /// axis is a plain counted loop (short inner runs pay no odometer), the axes above it an
    /// odometer.
    #[inline(always)]
    fn drive<V>(&self, out: &mut [V], n: usize, mut row: impl FnMut(&mut [V], usize, usize)) {
        let (m, ja, jb) = if self.rank >= 2 {
            let k = self.rank - 2;
            (self.dims[k], self.a[k], self.b[k])
        } else {
            (1, 0, 0)
        };
        let outer = self.rank.saturating_sub(2);
        let mut index = [0usize; CAP];
        let (mut oa, mut ob) = (0usize, 0usize);
        for block in out.chunks_exact_mut(m * n) {
            let (mut ra, mut rb) = (oa, ob);
            for out_row in block.chunks_exact_mut(n) {
                row(out_row, ra, rb);
                ra += ja;
                rb += jb;
            }
            let mut axis = outer;
            while axis > 0 {
                axis -= 1;
                index[axis] += 1;
                oa += self.a[axis];
                ob += self.b[axis];
                if index[axis] < self.dims[axis] {
                    break;
                }
                oa -= self.a[axis] * self.dims[axis];
                ob -= self.b[axis] * self.dims[axis];
                index[axis] = 0;
            }
        }
    }
}

/// One row of exactly `N` contiguous elements from each input, as fixed-size arrays.
#[inline(always)]
fn fixed<const N: usize, X, Y, V>(
    row: &mut [V],
    a: &[X],
    oa: usize,
    b: &[Y],
    ob: usize,
    f: &mut impl FnMut(&X, &Y) -> V,
) {
    let (Ok(row), Ok(xs), Ok(ys)) = (
        <&mut [V; N]>::try_from(row),
        <&[X; N]>::try_from(&a[oa..oa + N]),
        <&[Y; N]>::try_from(&b[ob..ob + N]),
    ) else {
        return; // unreachable: the caller matched the row length
    };
    for k in 0..N {
        row[k] = f(&xs[k], &ys[k]);
    }
}

fn check_output<const CAP: usize>(
    shape: &ShapeBuf<CAP>,
    len: usize,
    op: Operation,
) -> Result<usize, BroadcastError> {
    let expected = shape
        .element_count()
        .ok_or_else(|| BroadcastError::new(ErrorKind::Overflow, op, shape, &[]))?;
    if expected != len {
        let kind = ErrorKind::LengthMismatch {
            expected,
            actual: len,
        };
        return Err(BroadcastError::new(kind, op, shape, &[]));
    }
    Ok(expected)
}

fn operation(mode: AutoBroadcast) -> Operation {
    match mode {
        AutoBroadcast::None => Operation::None,
        AutoBroadcast::Numpy => Operation::Numpy,
        AutoBroadcast::Pdpd { axis } => Operation::Pdpd { axis },
        AutoBroadcast::Bidirectional => Operation::Bidirectional,
    }
}

/// Resolves the shapes, checks `out`, runs `check` (value checks, only for a non-empty
/// output, after the shapes so that shape errors win), then the kernel.
#[inline(always)]
fn zip_with_cap<const CAP: usize, X, Y, V>(
    a: &ArrayRef<'_, X>,
    b: &ArrayRef<'_, Y>,
    mode: AutoBroadcast,
    out: &mut [V],
    check: impl FnOnce() -> Result<(), BroadcastError>,
    hint: usize,
    f: impl FnMut(&X, &Y) -> V,
) -> Result<(), BroadcastError> {
    let resolved = rules::resolve::<CAP>(a.shape, b.shape, mode)?;
    if check_output(&resolved.out, out.len(), operation(mode))? > 0 {
        check()?;
        let plan = Plan::<CAP>::new(&resolved.out, a, resolved.lhs, b, resolved.rhs);
        plan.run_hinted(hint, a.data, b.data, out, f);
    }
    Ok(())
}

/// The product of the trailing dims that are static and equal in both shapes: a row length
/// known at compile time (0 when there is none). See [`Plan::run_hinted`].
pub(crate) const fn static_inner_run(a: &[Option<usize>], b: &[Option<usize>]) -> usize {
    let (mut i, mut j, mut run) = (a.len(), b.len(), 1usize);
    while i > 0 && j > 0 {
        match (a[i - 1], b[j - 1]) {
            (Some(x), Some(y)) if x == y && x > 1 => match run.checked_mul(x) {
                Some(r) => run = r,
                None => break,
            },
            _ => break,
        }
        i -= 1;
        j -= 1;
    }
    if run > 1 {
        run
    } else {
        0
    }
}

/// Writes `f(a, b)` for every element of `out_dims` into `out`, both inputs right-aligned and
/// broadcast onto `out_dims` one-directionally. For callers whose shapes are already known to
/// fit (the static kernel): no mode is resolved. `out.len()` is the element count.
#[inline(always)]
pub(crate) fn zip_onto<X, Y, V>(
    out_dims: &[usize],
    a: ArrayRef<'_, X>,
    b: ArrayRef<'_, Y>,
    out: &mut [V],
    hint: usize,
    f: impl FnMut(&X, &Y) -> V,
) {
    if out.is_empty() {
        return;
    }
    let (pa, pb) = (
        Placement::At(out_dims.len() - a.shape.len()),
        Placement::At(out_dims.len() - b.shape.len()),
    );
    if out_dims.len() <= SMALL {
        Plan::<SMALL>::new(out_dims, &a, pa, &b, pb).run_hinted(hint, a.data, b.data, out, f);
    } else {
        Plan::<MAX_RANK>::new(out_dims, &a, pa, &b, pb).run_hinted(hint, a.data, b.data, out, f);
    }
}

/// [`zip_into`] with a known inner run length (see [`Plan::run_hinted`]), for the
/// mixed-shape path.
#[cfg(feature = "alloc")]
#[inline(always)]
pub(crate) fn zip_into_hinted<X, Y, V>(
    a: ArrayRef<'_, X>,
    b: ArrayRef<'_, Y>,
    mode: AutoBroadcast,
    out: &mut [V],
    hint: usize,
    f: impl FnMut(&X, &Y) -> V,
) -> Result<(), BroadcastError> {
    if a.shape.len() <= SMALL && b.shape.len() <= SMALL {
        zip_with_cap::<SMALL, X, Y, V>(&a, &b, mode, out, || Ok(()), hint, f)
    } else {
        zip_with_cap::<MAX_RANK, X, Y, V>(&a, &b, mode, out, || Ok(()), hint, f)
    }
}

#[inline(always)]
fn zip_checked<X, Y, V>(
    a: ArrayRef<'_, X>,
    b: ArrayRef<'_, Y>,
    mode: AutoBroadcast,
    out: &mut [V],
    check: impl FnOnce() -> Result<(), BroadcastError>,
    f: impl FnMut(&X, &Y) -> V,
) -> Result<(), BroadcastError> {
    // Every mode's output rank is at most the larger input rank.
    if a.shape.len() <= SMALL && b.shape.len() <= SMALL {
        zip_with_cap::<SMALL, X, Y, V>(&a, &b, mode, out, check, 0, f)
    } else {
        zip_with_cap::<MAX_RANK, X, Y, V>(&a, &b, mode, out, check, 0, f)
    }
}

/// Broadcasts `a` with `b` under `mode` and writes `f(a, b)` for each output element into
/// `out`, which must hold exactly the output's element count (get the output shape from
/// [`broadcast_shapes`](crate::broadcast_shapes)).
///
/// ```
/// use shaped::{strided::{zip_into, ArrayRef}, broadcast_shapes, AutoBroadcast};
/// let (a, b) = ([1, 2, 3], [10, 20]);
/// assert_eq!(broadcast_shapes(&[3, 1], &[2], AutoBroadcast::Numpy).unwrap(), [3, 2]);
/// let mut out = [0; 6];
/// zip_into(
///     ArrayRef::new(&a, &[3, 1]).unwrap(),
///     ArrayRef::new(&b, &[2]).unwrap(),
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
) -> Result<(), BroadcastError> {
    zip_checked(a, b, mode, out, || Ok(()), f)
}

/// True if `pred` holds for some element of `input` (each logical element visited once).
fn any<T>(input: &ArrayRef<'_, T>, mut pred: impl FnMut(&T) -> bool) -> bool {
    if input.shape.contains(&0) {
        return false;
    }
    let mut found = false;
    // A walk over `input` alone: the plan of `input` on its own shape.
    let mut visit = |x: &T| found |= pred(x);
    if input.shape.len() <= SMALL {
        let plan = Plan::<SMALL>::new(
            input.shape,
            input,
            Placement::At(0),
            input,
            Placement::At(0),
        );
        walk(&plan, input.data, &mut visit);
    } else {
        let plan = Plan::<MAX_RANK>::new(
            input.shape,
            input,
            Placement::At(0),
            input,
            Placement::At(0),
        );
        walk(&plan, input.data, &mut visit);
    }
    found
}

/// Visits every element of the plan's input in row-major order, without an output buffer.
fn walk<T, const CAP: usize>(plan: &Plan<CAP>, data: &[T], visit: &mut impl FnMut(&T)) {
    if plan.rank == 0 {
        visit(&data[0]);
        return;
    }
    let inner = plan.rank - 1;
    let rows: usize = plan.dims[..inner].iter().product();
    let mut index = [0usize; CAP];
    let mut oa = 0usize;
    for _ in 0..rows {
        for k in 0..plan.dims[inner] {
            visit(&data[oa + k * plan.a[inner]]);
        }
        let mut axis = inner;
        while axis > 0 {
            axis -= 1;
            index[axis] += 1;
            oa += plan.a[axis];
            if index[axis] < plan.dims[axis] {
                break;
            }
            oa -= plan.a[axis] * plan.dims[axis];
            index[axis] = 0;
        }
    }
}

/// Refuses, before any element is written, the values an element type cannot compute:
/// integer division or remainder by zero, integer powers with a negative exponent, and float
/// powers in a build without `std` or `libm`.
fn check_values<T: Element>(
    a: &ArrayRef<'_, T>,
    b: &ArrayRef<'_, T>,
    op: BinaryOp,
) -> Result<(), BroadcastError> {
    let fail = |kind| {
        Err(BroadcastError::new(
            kind,
            Operation::Compute,
            a.shape,
            b.shape,
        ))
    };
    let integer_divisor = matches!(op, BinaryOp::Divide | BinaryOp::Mod | BinaryOp::FloorMod);
    if T::INTEGER && integer_divisor && any(b, |x| x.is_zero()) {
        return fail(ErrorKind::DivisionByZero);
    }
    if op == BinaryOp::Power && !T::HAS_POWER {
        return fail(ErrorKind::Unsupported);
    }
    if op == BinaryOp::Power && T::INTEGER && any(b, |x| x.is_negative()) {
        return fail(ErrorKind::NegativeExponent);
    }
    Ok(())
}

/// Runs `$body` with `$f` bound to the element function of `$op` for element type `$t`: the
/// one place that says what each [`BinaryOp`] computes.
macro_rules! with_binary_op {
    ($op:expr, $t:ty, $f:ident => $body:expr) => {
        match $op {
            BinaryOp::Add => {
                let $f = |x: &$t, y: &$t| <$t>::add(*x, *y);
                $body
            }
            BinaryOp::Subtract => {
                let $f = |x: &$t, y: &$t| <$t>::sub(*x, *y);
                $body
            }
            BinaryOp::Multiply => {
                let $f = |x: &$t, y: &$t| <$t>::mul(*x, *y);
                $body
            }
            BinaryOp::Divide => {
                let $f = |x: &$t, y: &$t| <$t>::div(*x, *y);
                $body
            }
            BinaryOp::Maximum => {
                let $f = |x: &$t, y: &$t| pick(*x, *y, core::cmp::Ordering::Greater);
                $body
            }
            BinaryOp::Minimum => {
                let $f = |x: &$t, y: &$t| pick(*x, *y, core::cmp::Ordering::Less);
                $body
            }
            BinaryOp::Power => {
                let $f = |x: &$t, y: &$t| <$t>::pow(*x, *y);
                $body
            }
            BinaryOp::SquaredDifference => {
                let $f = |x: &$t, y: &$t| {
                    let d = <$t>::sub(*x, *y);
                    <$t>::mul(d, d)
                };
                $body
            }
            BinaryOp::Mod => {
                let $f = |x: &$t, y: &$t| <$t>::rem(*x, *y);
                $body
            }
            BinaryOp::FloorMod => {
                let $f = |x: &$t, y: &$t| <$t>::floor_mod(*x, *y);
                $body
            }
        }
    };
}

/// [`zip_into`] with an arithmetic [`BinaryOp`]. Integer division by zero and negative integer
/// exponents are errors (checked before anything is written), never panics.
///
/// ```
/// use shaped::{strided::{binary_into, ArrayRef}, AutoBroadcast, BinaryOp};
/// let a = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
/// let b = [10.0f32, 20.0];
/// let mut out = [0.0f32; 6];
/// binary_into(
///     ArrayRef::new(&a, &[2, 3]).unwrap(),
///     ArrayRef::new(&b, &[2]).unwrap(),
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
) -> Result<(), BroadcastError> {
    let check = || check_values(&a, &b, op);
    with_binary_op!(op, T, f => zip_checked(a, b, mode, out, check, f))
}

/// [`zip_into`] with a [`CompareOp`], writing `bool`s.
pub fn compare_into<T: PartialOrd>(
    a: ArrayRef<'_, T>,
    b: ArrayRef<'_, T>,
    op: CompareOp,
    mode: AutoBroadcast,
    out: &mut [bool],
) -> Result<(), BroadcastError> {
    match op {
        CompareOp::Equal => zip_into(a, b, mode, out, |x, y| x == y),
        CompareOp::NotEqual => zip_into(a, b, mode, out, |x, y| x != y),
        CompareOp::Less => zip_into(a, b, mode, out, |x, y| x < y),
        CompareOp::LessEqual => zip_into(a, b, mode, out, |x, y| x <= y),
        CompareOp::Greater => zip_into(a, b, mode, out, |x, y| x > y),
        CompareOp::GreaterEqual => zip_into(a, b, mode, out, |x, y| x >= y),
    }
}

/// [`zip_into`] with a [`LogicalOp`] on `bool` inputs.
pub fn logical_into(
    a: ArrayRef<'_, bool>,
    b: ArrayRef<'_, bool>,
    op: LogicalOp,
    mode: AutoBroadcast,
    out: &mut [bool],
) -> Result<(), BroadcastError> {
    match op {
        LogicalOp::And => zip_into(a, b, mode, out, |x, y| *x && *y),
        LogicalOp::Or => zip_into(a, b, mode, out, |x, y| *x || *y),
        LogicalOp::Xor => zip_into(a, b, mode, out, |x, y| *x != *y),
    }
}

fn broadcast_with_cap<const CAP: usize, T: Clone>(
    data: &ArrayRef<'_, T>,
    target: &[usize],
    mode: BroadcastMode<'_>,
    out: &mut [T],
) -> Result<(), BroadcastError> {
    let (shape, placement) = rules::resolve_to::<CAP>(data.shape, target, mode)?;
    let op = match mode {
        BroadcastMode::Numpy => Operation::BroadcastToNumpy,
        BroadcastMode::Explicit { .. } => Operation::BroadcastToExplicit,
        BroadcastMode::Bidirectional => Operation::Bidirectional,
        BroadcastMode::Pdpd { axis } => Operation::BroadcastToPdpd { axis },
    };
    if check_output(&shape, out.len(), op)? > 0 {
        let plan = Plan::<CAP>::new(&shape, data, placement, data, placement);
        plan.run(data.data, data.data, out, |x, _| x.clone());
    }
    Ok(())
}

/// The Broadcast op (B5): writes `data` broadcast to `target` under `mode` into `out`, which
/// must hold the output's element count (the output shape is the target, or for
/// Bidirectional the NUMPY broadcast of both: see
/// [`broadcast_to_shape`](crate::rules::broadcast_to_shape)).
///
/// ```
/// use shaped::{rules::BroadcastMode, strided::{broadcast_into, ArrayRef}};
/// let data = [1, 2, 3];
/// let mut out = [0; 6];
/// let mode = BroadcastMode::Explicit { axes_mapping: &[1] };
/// broadcast_into(ArrayRef::new(&data, &[3]).unwrap(), &[2, 3], mode, &mut out).unwrap();
/// assert_eq!(out, [1, 2, 3, 1, 2, 3]);
/// ```
pub fn broadcast_into<T: Clone>(
    data: ArrayRef<'_, T>,
    target: &[usize],
    mode: BroadcastMode<'_>,
    out: &mut [T],
) -> Result<(), BroadcastError> {
    if data.shape.len() <= SMALL && target.len() <= SMALL {
        broadcast_with_cap::<SMALL, T>(&data, target, mode, out)
    } else {
        broadcast_with_cap::<MAX_RANK, T>(&data, target, mode, out)
    }
}

/// A broadcast worked out once for fixed input layouts, to run many times: the shapes are
/// resolved and the loop plan built at creation, so each call only checks buffer lengths and
/// runs the loops. This is how a runtime engine uses a kernel whose shapes are known when the
/// graph is built.
///
/// ```
/// use shaped::{strided::BinaryPlan, AutoBroadcast, BinaryOp};
/// let plan = BinaryPlan::new(&[2, 3], &[3], AutoBroadcast::Numpy).unwrap();
/// assert_eq!(plan.output_shape(), &[2, 3]);
/// let mut out = [0; 6];
/// plan.binary(&[1, 2, 3, 4, 5, 6], &[10, 20, 30], BinaryOp::Add, &mut out).unwrap();
/// assert_eq!(out, [11, 22, 33, 14, 25, 36]);
/// // Buffers of the wrong length are errors, not panics.
/// assert!(plan.binary(&[1, 2, 3], &[10, 20, 30], BinaryOp::Add, &mut out).is_err());
/// ```
#[derive(Debug)]
pub struct BinaryPlan {
    out: ShapeBuf,
    out_len: usize,
    a: ShapeBuf,
    b: ShapeBuf,
    /// Elements each input buffer must hold (one past the largest offset read).
    a_len: usize,
    b_len: usize,
    plan: Plan<MAX_RANK>,
    operation: Operation,
}

impl BinaryPlan {
    /// A plan for row-major inputs of shapes `a` and `b` under `mode`.
    pub fn new(a: &[usize], b: &[usize], mode: AutoBroadcast) -> Result<Self, BroadcastError> {
        let layout = |shape: &[usize]| {
            rules::checked_element_count(shape).ok_or_else(|| {
                BroadcastError::new(ErrorKind::Overflow, Operation::Layout, shape, &[])
            })
        };
        let (a_len, b_len) = (layout(a)?, layout(b)?);
        let resolved = rules::resolve::<MAX_RANK>(a, b, mode)?;
        let op = operation(mode);
        let out_len = resolved
            .out
            .element_count()
            .ok_or_else(|| BroadcastError::new(ErrorKind::Overflow, op, &resolved.out, &[]))?;
        // Strides are only read for dims > 1, so empty data is never indexed.
        let (da, db): (&[u8], &[u8]) = (&[], &[]);
        let ra = ArrayRef {
            data: da,
            shape: a,
            strides: Strides::RowMajor,
        };
        let rb = ArrayRef {
            data: db,
            shape: b,
            strides: Strides::RowMajor,
        };
        let plan = Plan::new(&resolved.out, &ra, resolved.lhs, &rb, resolved.rhs);
        Ok(BinaryPlan {
            out: resolved.out,
            out_len,
            a: ShapeBuf::from_slice(a).unwrap_or_default(),
            b: ShapeBuf::from_slice(b).unwrap_or_default(),
            a_len,
            b_len,
            plan,
            operation: op,
        })
    }

    /// The output shape.
    pub fn output_shape(&self) -> &[usize] {
        &self.out
    }

    fn check_lengths(&self, a: usize, b: usize, out: usize) -> Result<(), BroadcastError> {
        let mismatch = |shape: &[usize], expected, actual| {
            let kind = ErrorKind::LengthMismatch { expected, actual };
            Err(BroadcastError::new(kind, self.operation, shape, &[]))
        };
        if a != self.a_len {
            return mismatch(&self.a, self.a_len, a);
        }
        if b != self.b_len {
            return mismatch(&self.b, self.b_len, b);
        }
        if out != self.out_len {
            return mismatch(&self.out, self.out_len, out);
        }
        Ok(())
    }

    /// Writes `f(a, b)` for each output element into `out`.
    #[inline]
    pub fn zip<X, Y, V>(
        &self,
        a: &[X],
        b: &[Y],
        out: &mut [V],
        f: impl FnMut(&X, &Y) -> V,
    ) -> Result<(), BroadcastError> {
        self.check_lengths(a.len(), b.len(), out.len())?;
        if self.out_len > 0 {
            self.plan.run(a, b, out, f);
        }
        Ok(())
    }

    /// Writes `a op b` for each output element into `out`; integer division by zero and
    /// negative integer exponents are errors, as in [`binary_into`].
    pub fn binary<T: Element>(
        &self,
        a: &[T],
        b: &[T],
        op: BinaryOp,
        out: &mut [T],
    ) -> Result<(), BroadcastError> {
        self.check_lengths(a.len(), b.len(), out.len())?;
        if self.out_len == 0 {
            return Ok(());
        }
        let (ra, rb) = (
            ArrayRef {
                data: a,
                shape: &self.a,
                strides: Strides::RowMajor,
            },
            ArrayRef {
                data: b,
                shape: &self.b,
                strides: Strides::RowMajor,
            },
        );
        check_values(&ra, &rb, op)?;
        with_binary_op!(op, T, f => self.plan.run(a, b, out, f));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::static_inner_run;

    #[test]
    fn static_inner_run_takes_trailing_dims_static_and_equal_in_both() {
        assert_eq!(
            static_inner_run(&[None, Some(64)], &[Some(1), Some(64)]),
            64
        );
        assert_eq!(
            static_inner_run(&[Some(2), Some(3)], &[Some(2), Some(3)]),
            6
        );
        assert_eq!(static_inner_run(&[Some(2), Some(3)], &[Some(3)]), 3);
        assert_eq!(
            static_inner_run(&[Some(3)], &[Some(1)]),
            0,
            "a broadcast dim ends the run"
        );
        assert_eq!(static_inner_run(&[None], &[None]), 0);
        assert_eq!(static_inner_run(&[], &[]), 0);
        let big = Some(usize::MAX);
        assert_eq!(
            static_inner_run(&[big, Some(2)], &[big, Some(2)]),
            2,
            "overflow stops the run"
        );
    }
}
