//! Indexing and slicing at run time (M3, M8-M11): `DynTensor`'s `slice` with any nonzero step,
//! `split` and `split_equal`, `squeeze_axes` and `squeeze_all`, `gather` and
//! `gather_elements`; and `DynView::slice`, the same elements without a copy when every step
//! is positive. The shapes and checks are `rules::index`'s; every index is checked before any
//! element is copied, and every allocation is checked.

use alloc::vec::Vec;

use super::dyn_shape::DynView;
use super::dyn_tensor::DynTensor;
use super::try_vec;
use crate::error::{Error, ErrorKind, Operation};
use crate::op::ShapeOp;
use crate::rules::{self, IndexElement, Slice, MAX_RANK};
use crate::util::{next_index, row_major_strides};

/// Calls `f` with the row-major offset into `shape`'s data of every element of the slice
/// `taken` (`first + i * step` along each axis), in row-major order of the slice.
fn each_sliced_offset(shape: &[usize], taken: &[rules::Taken], mut f: impl FnMut(usize)) {
    let rank = shape.len();
    let strides: [usize; MAX_RANK] = row_major_strides(shape);
    if taken[..rank].iter().any(|t| t.len == 0) {
        return;
    }
    // The offset of the first element and the counters of an odometer; every index stays in
    // its axis, so the offsets stay inside the data (i128 keeps the arithmetic exact).
    let mut index = [0usize; MAX_RANK];
    let offset_of = |index: &[usize]| -> usize {
        let mut o: i128 = 0;
        for a in 0..rank {
            let at = taken[a].first as i128 + index[a] as i128 * i128::from(taken[a].step);
            o += at * strides[a] as i128;
        }
        o as usize
    };
    let mut lens = [0usize; MAX_RANK];
    for (l, t) in lens.iter_mut().zip(&taken[..rank]) {
        *l = t.len;
    }
    loop {
        f(offset_of(&index[..rank]));
        if !next_index(&mut index[..rank], &lens[..rank]) {
            return;
        }
    }
}

impl<T: Clone> DynTensor<T> {
    /// The elements that `slices` take from the leading axes, numpy's `x[a:b:c, d:e:f]` (M8):
    /// any nonzero step, negative ones walking backwards, bounds negative from the end and
    /// clamped to the axis as numpy and ONNX's `Slice` clamp them. Axes past `slices` are
    /// whole. A copy; [`DynView::slice`] takes positive steps without one.
    ///
    /// ```
    /// use shaped::{rules::Slice, DynTensor};
    /// let x = DynTensor::from_shape_vec([3, 4], (0..12).collect())?;
    /// let y = x.slice(&[Slice::new(None, None, -1), Slice::new(Some(1), None, 2)])?; // x[::-1, 1::2]
    /// assert_eq!((y.shape(), y.as_slice()), (&[3, 2][..], &[9, 11, 5, 7, 1, 3][..]));
    /// assert_eq!(x.slice(&[(1..100).into()])?.shape(), &[2, 4]);              // clamped
    /// let e = x.slice(&[Slice::step(0)]).unwrap_err();
    /// assert_eq!(e.to_string(), "cannot slice [3, 4]: the step along axis 0 is 0 (M8)");
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn slice(&self, slices: &[Slice]) -> Result<DynTensor<T>, Error> {
        let (shape, taken) = rules::slice_axes(self.shape(), slices)?;
        let count = super::element_count::<T>(&shape)?;
        let mut data = try_vec(count, &shape)?;
        let src = self.as_slice();
        each_sliced_offset(self.shape(), &taken, |o| data.push(src[o].clone()));
        Ok(DynTensor::from_parts(&shape, data))
    }

    /// One axis sliced, the others whole (M8): `slice_axis(1, s)` is `x[:, s]`.
    pub fn slice_axis(&self, axis: i64, slice: Slice) -> Result<DynTensor<T>, Error> {
        let rank = self.rank();
        let a = rules::resolve_shape_axis(axis, rank).ok_or_else(|| {
            let kind = ErrorKind::BadAxis { axis, rank };
            Error::new(
                kind,
                Operation::Shape { op: ShapeOp::Slice },
                self.shape(),
                &[],
            )
        })?;
        let mut slices = [Slice::ALL; MAX_RANK];
        slices[a] = slice;
        self.slice(&slices[..=a])
    }

    /// The axis cut into consecutive parts of the given sizes (M9, ONNX's `Split` with
    /// `split`, numpy's `split` at the running sums), which must add up to the axis.
    ///
    /// ```
    /// use shaped::DynTensor;
    /// let x = DynTensor::from_shape_vec([2, 5], (0..10).collect())?;
    /// let parts = x.split(1, &[2, 0, 3])?;
    /// assert_eq!(parts[0].as_slice(), &[0, 1, 5, 6]);
    /// assert_eq!(parts[1].shape(), &[2, 0]);
    /// assert_eq!(parts[2].as_slice(), &[2, 3, 4, 7, 8, 9]);
    /// let e = x.split(1, &[2, 2]).unwrap_err();
    /// assert_eq!(e.to_string(), "cannot split [2, 5]: the parts add up to 4, but axis 1 has 5 (M9)");
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn split(&self, axis: i64, sizes: &[usize]) -> Result<Vec<DynTensor<T>>, Error> {
        let a = rules::split_check(self.shape(), axis, sizes)?;
        let mut parts = try_vec(sizes.len(), self.shape())?;
        let mut start = 0usize;
        for &len in sizes {
            let s = Slice::range(start as i64, (start + len) as i64);
            // `start + len` is within the axis, whose dim a tensor's element count bounds
            // (or any value when another dim is 0): i64 holds it unless the dim is past
            // i64::MAX, which only an empty tensor can have.
            let part = if start + len > i64::MAX as usize {
                let mut shape = self.shape().to_vec();
                shape[a] = len;
                DynTensor::from_parts(&shape, Vec::new())
            } else {
                self.slice_axis(a as i64, s)?
            };
            parts.push(part);
            start += len;
        }
        Ok(parts)
    }

    /// The axis cut into `parts` equal parts (M9, numpy's `split` with a count), which must
    /// divide it.
    ///
    /// ```
    /// use shaped::DynTensor;
    /// let x = DynTensor::from_shape_vec([6], (0..6).collect())?;
    /// let p = x.split_equal(0, 3)?;
    /// assert_eq!(p[2].as_slice(), &[4, 5]);
    /// assert_eq!(
    ///     x.split_equal(0, 4).unwrap_err().to_string(),
    ///     "cannot split [6]: 4 equal parts do not divide axis 0, which has 6; give the sizes (M9)"
    /// );
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn split_equal(&self, axis: i64, parts: usize) -> Result<Vec<DynTensor<T>>, Error> {
        let (a, size) = rules::split_equal_size(self.shape(), axis, parts)?;
        let mut sizes = try_vec(parts, self.shape())?;
        sizes.resize(parts, size);
        self.split(a as i64, &sizes)
    }

    /// The elements at `indices` along `axis` (M10, numpy's `take`, ONNX's `Gather`): the
    /// result's shape is `self`'s dims before the axis, the indices' dims, then `self`'s dims
    /// after it. Indices of any integer type; negative ones count from the end; one outside
    /// the axis is an error naming it, found before anything is copied.
    ///
    /// ```
    /// use shaped::DynTensor;
    /// let x = DynTensor::from_shape_vec([2, 3], vec![10, 11, 12, 20, 21, 22])?;
    /// let i = DynTensor::from_shape_vec([2, 2], vec![2i64, 0, -1, 1])?;
    /// let y = x.gather(&i, 1)?;
    /// assert_eq!((y.shape(), y.as_slice()), (&[2, 2, 2][..], &[12, 10, 12, 11, 22, 20, 22, 21][..]));
    /// let bad = DynTensor::from_shape_vec([2], vec![0u8, 3])?;
    /// assert_eq!(
    ///     x.gather(&bad, 1).unwrap_err().to_string(),
    ///     "cannot gather [2, 3]: index 3 (at 1) is outside axis 1, which has 3 (M10)"
    /// );
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn gather<I: IndexElement>(
        &self,
        indices: &DynTensor<I>,
        axis: i64,
    ) -> Result<DynTensor<T>, Error> {
        let (shape, a) = rules::gather_shape(self.shape(), indices.shape(), axis)?;
        let dims = self.shape();
        let mut at = try_vec(indices.len(), dims)?;
        for (k, &i) in indices.iter().enumerate() {
            at.push(rules::resolve_index(ShapeOp::Gather, dims, a, k, i)?);
        }
        let count = super::element_count::<T>(&shape)?;
        let mut data = try_vec(count, &shape)?;
        if count > 0 {
            // Every dim is nonzero here, so these products are those of existing elements.
            let outer: usize = dims[..a].iter().product();
            let (n, inner): (usize, usize) = (dims[a], dims[a + 1..].iter().product());
            let src = self.as_slice();
            for o in 0..outer {
                for &j in &at {
                    let from = (o * n + j) * inner;
                    data.extend_from_slice(&src[from..from + inner]);
                }
            }
        }
        Ok(DynTensor::from_parts(&shape, data))
    }

    /// The element at each index along `axis`, the others where the index sits (M11, ONNX's
    /// `GatherElements`; numpy's `take_along_axis` when the dims off the axis are equal): the
    /// result has the indices' shape, which has `self`'s rank and off the axis no dim past
    /// `self`'s.
    ///
    /// ```
    /// use shaped::DynTensor;
    /// let x = DynTensor::from_shape_vec([2, 3], vec![1, 2, 3, 4, 5, 6])?;
    /// let i = DynTensor::from_shape_vec([2, 2], vec![2i32, 0, -1, 1])?;
    /// assert_eq!(x.gather_elements(&i, 1)?.as_slice(), &[3, 1, 6, 5]);
    /// let wide = DynTensor::from_shape_vec([3, 1], vec![0i32; 3])?;
    /// assert_eq!(
    ///     x.gather_elements(&wide, 1).unwrap_err().to_string(),
    ///     "cannot gather_elements of [2, 3] by indices [3, 1]: axis 0 has 3 indices for 2 \
    ///      elements; off the gathered axis there may be no more (M11)"
    /// );
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn gather_elements<I: IndexElement>(
        &self,
        indices: &DynTensor<I>,
        axis: i64,
    ) -> Result<DynTensor<T>, Error> {
        let dims = self.shape();
        let a = rules::gather_elements_check(dims, indices.shape(), axis)?;
        let mut at = try_vec(indices.len(), dims)?;
        for (k, &i) in indices.iter().enumerate() {
            at.push(rules::resolve_index(
                ShapeOp::GatherElements,
                dims,
                a,
                k,
                i,
            )?);
        }
        let mut data = try_vec(indices.len(), indices.shape())?;
        if !at.is_empty() {
            let strides: [usize; MAX_RANK] = row_major_strides(dims);
            let ishape = indices.shape();
            let rank = ishape.len();
            let mut index = [0usize; MAX_RANK];
            let src = self.as_slice();
            for &j in &at {
                let mut o = j * strides[a];
                for k in (0..rank).filter(|&k| k != a) {
                    o += index[k] * strides[k];
                }
                data.push(src[o].clone());
                next_index(&mut index[..rank], ishape);
            }
        }
        Ok(DynTensor::from_parts(indices.shape(), data))
    }
}

impl<T> DynTensor<T> {
    /// The axes of `axes` removed, each of which must be 1 (M3, numpy's `squeeze(axis=...)`,
    /// ONNX's `Squeeze`). No copy.
    ///
    /// ```
    /// use shaped::DynTensor;
    /// let x = DynTensor::from_shape_vec([1, 3, 1, 1], vec![1, 2, 3])?;
    /// assert_eq!(x.clone().squeeze_axes(&[0, -1])?.shape(), &[3, 1]);
    /// assert_eq!(x.clone().squeeze_all().shape(), &[3]);
    /// assert_eq!(
    ///     x.squeeze_axes(&[1]).unwrap_err().to_string(),
    ///     "cannot squeeze [1, 3, 1, 1]: axis 1 has 3 elements, not 1 (M3)"
    /// );
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn squeeze_axes(self, axes: &[i64]) -> Result<Self, Error> {
        let (shape, _) = rules::squeeze_axes_shape(self.shape(), axes)?;
        Ok(DynTensor::from_parts(&shape, self.into_vec()))
    }

    /// Every axis of size 1 removed (M3, numpy's `squeeze()` without an axis). No copy.
    pub fn squeeze_all(self) -> Self {
        let shape = rules::squeeze_all_shape(self.shape());
        DynTensor::from_parts(&shape, self.into_vec())
    }
}

impl<'a, T> DynView<'a, T> {
    /// The elements that `slices` take from the leading axes (M8), as [`DynTensor::slice`],
    /// without a copy: the view's strides grow by each step. A negative step is an error here
    /// (a view's strides do not run backwards); [`DynTensor::slice`] copies instead.
    ///
    /// ```
    /// use shaped::{rules::Slice, DynTensor};
    /// let x = DynTensor::from_shape_vec([4, 6], (0..24).collect())?;
    /// let v = x.strided().slice(&[Slice::new(Some(1), None, 2), Slice::new(None, Some(-1), 3)])?;
    /// assert_eq!((v.shape(), v.strides()), ([2, 2].as_slice(), [12, 3].as_slice()));
    /// assert_eq!(v.to_tensor().as_slice(), &[6, 9, 18, 21]);
    /// assert!(x.strided().slice(&[Slice::step(-1)]).is_err());
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn slice(&self, slices: &[Slice]) -> Result<DynView<'a, T>, Error> {
        let (shape, taken) = rules::slice_axes(self.shape(), slices)?;
        if let Some(axis) = (0..shape.len()).find(|&a| taken[a].step < 0 && taken[a].len > 1) {
            let kind = ErrorKind::NegativeStepView { axis };
            let op = Operation::Shape { op: ShapeOp::Slice };
            return Err(Error::new(kind, op, self.shape(), &[]));
        }
        Ok(self.sliced(&shape, &taken[..shape.len()]))
    }

    /// The axes of `axes` removed, each a 1 (M3). No copy.
    pub fn squeeze_axes(&self, axes: &[i64]) -> Result<Self, Error> {
        let (shape, mask) = rules::squeeze_axes_shape(self.shape(), axes)?;
        Ok(self.without_axes(&shape, mask))
    }

    /// Every axis of size 1 removed (M3). No copy.
    pub fn squeeze_all(&self) -> Self {
        let shape = rules::squeeze_all_shape(self.shape());
        let mask = self
            .shape()
            .iter()
            .enumerate()
            .filter(|&(_, &d)| d == 1)
            .fold(0u64, |m, (a, _)| m | (1 << a));
        self.without_axes(&shape, mask)
    }
}
