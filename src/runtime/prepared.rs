//! [`BinaryPlan`]: a broadcast resolved once, run many times.

use super::array_ref::ArrayRef;
use super::by_op::ByOp;
use super::kernels::check_values;
use super::plan::{Apply, Plan};
use crate::element::Element;
use crate::error::{Error, ErrorKind, Operation};
use crate::op::BinaryOp;
use crate::rules::{self, AutoBroadcast, ShapeBuf, MAX_RANK};

/// A broadcast worked out once for fixed input layouts, to run many times: the shapes are
/// resolved and the loop plan built at creation, so each call only checks buffer lengths and
/// runs the loops. This is how a runtime engine uses a kernel whose shapes are known when the
/// graph is built.
///
/// ```
/// use shaped::{runtime::BinaryPlan, AutoBroadcast, BinaryOp};
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
    pub fn new(a: &[usize], b: &[usize], mode: AutoBroadcast) -> Result<Self, Error> {
        let layout = |shape: &[usize]| {
            rules::checked_element_count(shape)
                .ok_or_else(|| Error::new(ErrorKind::Overflow, Operation::Layout, shape, &[]))
        };
        let (a_len, b_len) = (layout(a)?, layout(b)?);
        let resolved = rules::resolve::<MAX_RANK>(a, b, mode)?;
        let op = mode.operation();
        let out_len = resolved
            .out
            .element_count()
            .ok_or_else(|| Error::new(ErrorKind::Overflow, op, &resolved.out, &[]))?;
        // Strides are only read for dims > 1, so empty data is never indexed.
        let (da, db): (&[u8], &[u8]) = (&[], &[]);
        let (ra, rb) = (ArrayRef::trusted(a, da), ArrayRef::trusted(b, db));
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

    fn check_lengths(&self, a: usize, b: usize, out: usize) -> Result<(), Error> {
        let mismatch = |shape: &[usize], expected, actual| {
            let kind = ErrorKind::LengthMismatch { expected, actual };
            Err(Error::new(kind, self.operation, shape, &[]))
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
    ) -> Result<(), Error> {
        self.check_lengths(a.len(), b.len(), out.len())?;
        if self.out_len > 0 {
            self.plan.nest().run(a, b, out, f);
        }
        Ok(())
    }

    /// Writes `a op b` for each output element into `out`; integer division by zero and
    /// negative integer exponents are errors, as in [`binary_into`](crate::runtime::binary_into).
    pub fn binary<T: Element>(
        &self,
        a: &[T],
        b: &[T],
        op: BinaryOp,
        out: &mut [T],
    ) -> Result<(), Error> {
        self.check_lengths(a.len(), b.len(), out.len())?;
        if self.out_len == 0 {
            return Ok(());
        }
        let (ra, rb) = (ArrayRef::trusted(&self.a, a), ArrayRef::trusted(&self.b, b));
        check_values(&ra, &rb, op)?;
        ByOp::new(op).apply(&self.plan.nest(), super::plan::NoHint, a, b, out);
        Ok(())
    }
}
