//! Padding at run time (M13): [`DynTensor::pad`] and [`DynTensor::pad_axes`], with the
//! negative pads that crop. The shape and every check are `rules::pad`'s; the result is
//! written row by row, the kept part of each row copied as one slice.

use alloc::vec::Vec;

use super::dyn_tensor::DynTensor;
use super::{element_count, try_vec};
use crate::error::{Error, Operation};
use crate::op::ShapeOp;
use crate::rules::{self, pad_source, PadMode, PadPlan, MAX_RANK};
use crate::util::{next_index, row_major_strides};

/// Pushes the elements of `data` (of `shape`) padded as `plan` says, in row-major order of
/// `plan.out`, which has at least one element.
fn fill<T: Clone>(
    data: &[T],
    shape: &[usize],
    plan: &PadPlan,
    mode: PadMode,
    value: &T,
    out: &mut Vec<T>,
) {
    let Some(last) = shape.len().checked_sub(1) else {
        out.push(data[0].clone());
        return;
    };
    let dims = &plan.out[..];
    let strides: [usize; MAX_RANK] = row_major_strides(shape);
    let source = |a: usize, o: usize| pad_source(o, plan.before[a], plan.kept[a], mode);
    let (before, kept, first) = (plan.before[last], plan.kept[last], plan.first[last]);
    let mut index = [0usize; MAX_RANK];
    loop {
        // The offset of the row's input, or `None` for a row that is all padding.
        let base = (0..last).try_fold(0usize, |base, a| {
            source(a, index[a]).map(|i| base + (plan.first[a] + i) * strides[a])
        });
        match base {
            None => out.extend(core::iter::repeat_n(value, dims[last]).cloned()),
            Some(base) => {
                let row = &data[base + first..base + first + kept];
                let at = |o: usize| source(last, o).map_or(value, |i| &row[i]).clone();
                out.extend((0..before).map(at));
                out.extend_from_slice(row);
                out.extend((before + kept..dims[last]).map(at));
            }
        }
        if !next_index(&mut index[..last], &dims[..last]) {
            return;
        }
    }
}

impl<T: Clone> DynTensor<T> {
    /// The tensor padded (M13, ONNX's `Pad` with every axis, numpy's `pad`): `pads` holds the
    /// begin of every axis, then the end of every axis. A positive pad adds that many
    /// elements, filled as `mode` says (`value` for [`PadMode::Constant`], unused otherwise);
    /// a negative one removes that many from the end it names, before any are added.
    ///
    /// ```
    /// use shaped::{rules::PadMode, DynTensor};
    /// let x = DynTensor::from_shape_vec([2, 3], vec![1, 2, 3, 4, 5, 6])?;
    /// let c = x.pad(&[0, 1, 1, 0], PadMode::Constant, 0)?;
    /// assert_eq!((c.shape(), c.as_slice()), (&[3, 4][..], &[0, 1, 2, 3, 0, 4, 5, 6, 0, 0, 0, 0][..]));
    /// let r = x.pad(&[0, 2, 0, 2], PadMode::Reflect, 0)?;
    /// assert_eq!(r.as_slice(), &[3, 2, 1, 2, 3, 2, 1, 6, 5, 4, 5, 6, 5, 4]);
    /// let w = x.pad(&[0, -1, 0, 2], PadMode::Wrap, 0)?;   // crop one, then wrap [2, 3]
    /// assert_eq!(w.as_slice(), &[2, 3, 2, 3, 5, 6, 5, 6]);
    /// let e = x.pad(&[0, 0, 0], PadMode::Edge, 0).unwrap_err();
    /// assert_eq!(
    ///     e.to_string(),
    ///     "cannot pad [2, 3]: 3 pads given for 2 axes; each axis takes a begin and an end (M13)"
    /// );
    /// # Ok::<(), shaped::Error>(())
    /// ```
    ///
    /// If `Clone` panics part-way, the elements already copied are dropped.
    pub fn pad(&self, pads: &[i64], mode: PadMode, value: T) -> Result<Self, Error> {
        self.padded(pads, None, mode, value)
    }

    /// [`pad`](Self::pad) of the axes of `axes` only (ONNX's `Pad` with `axes`): `pads` holds
    /// the begin of each of them, then the end of each, in the order `axes` names them
    /// (negative from the end, each at most once); the other axes are kept whole.
    ///
    /// ```
    /// use shaped::{rules::PadMode, DynTensor};
    /// let x = DynTensor::from_shape_vec([2, 3], vec![1, 2, 3, 4, 5, 6])?;
    /// let e = x.pad_axes(&[1, 2], &[-1], PadMode::Edge, 0)?;
    /// assert_eq!(e.as_slice(), &[1, 1, 2, 3, 3, 3, 4, 4, 5, 6, 6, 6]);
    /// let err = x.pad_axes(&[1, 1, 1, 1], &[1, -1], PadMode::Edge, 0).unwrap_err();
    /// assert_eq!(err.to_string(), "cannot pad [2, 3]: axis 1 is given twice (M13)");
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn pad_axes(
        &self,
        pads: &[i64],
        axes: &[i64],
        mode: PadMode,
        value: T,
    ) -> Result<Self, Error> {
        self.padded(pads, Some(axes), mode, value)
    }

    fn padded(
        &self,
        pads: &[i64],
        axes: Option<&[i64]>,
        mode: PadMode,
        value: T,
    ) -> Result<Self, Error> {
        let plan = rules::resolve_pads(self.shape(), pads, axes, mode)?;
        let shape = &plan.out[..];
        // Bytes past `isize::MAX` are the pad's own overflow, as an element count past `usize`.
        let count = element_count::<T>(shape).map_err(|e| {
            let op = Operation::Shape { op: ShapeOp::Pad };
            Error::new(e.kind(), op, self.shape(), &[])
        })?;
        let mut data = try_vec(count, shape)?;
        // With no elements no row is walked: `[2^40, 0]` has 2^40 empty rows.
        if count > 0 {
            fill(
                self.as_slice(),
                self.shape(),
                &plan,
                mode,
                &value,
                &mut data,
            );
        }
        Ok(DynTensor::from_parts(shape, data))
    }
}
