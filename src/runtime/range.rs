//! Ranges at run time (M12): [`DynTensor::range`], numpy's `arange` with ONNX's count, for
//! every numeric element type. The count and the values are `rules::range`'s.

use super::dyn_tensor::DynTensor;
use super::{element_count, try_vec};
use crate::error::{Error, Operation};
use crate::op::ShapeOp;
use crate::rules::{self, RangeElement};

impl<T: RangeElement> DynTensor<T> {
    /// The values `start`, `start + delta`, `start + 2 * delta`, ... up to `limit`, which is
    /// not included (M12, ONNX's `Range`, numpy's `arange`): a rank-1 tensor of
    /// `max(ceil((limit - start) / delta), 0)` values. Integers count exactly and never
    /// overflow (`-128i8` to `127` by 1 is 255 values); floats count and compute in `f64` and
    /// round each value once, as ONNX's reference does. A delta of 0, a NaN count and a count
    /// that does not fit in memory are errors.
    ///
    /// ```
    /// use shaped::DynTensor;
    /// assert_eq!(DynTensor::range(1, 10, 3)?.as_slice(), &[1, 4, 7]);
    /// assert_eq!(DynTensor::range(10, 4, -2)?.as_slice(), &[10, 8, 6]);
    /// assert_eq!(DynTensor::range(0, 5, -1)?.shape(), &[0]);
    /// assert_eq!(DynTensor::range(0.0f32, 1.0, 0.25)?.as_slice(), &[0.0, 0.25, 0.5, 0.75]);
    /// let e = DynTensor::range(0, 5, 0).unwrap_err();
    /// assert_eq!(e.to_string(), "cannot range: the delta is 0 (M12)");
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn range(start: T, limit: T, delta: T) -> Result<Self, Error> {
        let n = rules::range_len(start, limit, delta)?;
        let shape = [n];
        // A count whose bytes overflow is the range's own error, as one past `usize` is.
        let count = element_count::<T>(&shape).map_err(|e| {
            let op = Operation::Shape { op: ShapeOp::Range };
            Error::new(e.kind(), op, &[], &[])
        })?;
        let mut data = try_vec(count, &shape)?;
        data.extend((0..n).map(|i| rules::range_value(start, delta, i)));
        Ok(DynTensor::from_parts(&shape, data))
    }
}
