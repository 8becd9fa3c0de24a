//! Shape manipulation at run time (rules M1-M7): [`DynTensor`]'s `reshape`, `flatten`,
//! `insert_axis`, `squeeze` (no copy: the elements move), `permute`, `transpose`, `narrow`
//! (copies), `concat` and `stack`; and [`DynView`], the strided view that permutes and narrows
//! without copying and feeds the runtime kernels and the binary primitive.

use alloc::vec::Vec;

use super::array_ref::ArrayRef;
use super::dyn_tensor::{
    binary_inputs, compare_inputs, logical_inputs, zip_inputs, AsInput, DynTensor,
};
use super::manipulate::{gather_vec, interleave};
use crate::element::Element;
use crate::error::{Error, ErrorKind, Operation, OrPanic};
use crate::op::ShapeOp;
use crate::op::{BinaryOp, CompareOp, LogicalOp};
use crate::rules;
use crate::rules::AutoBroadcast;
use crate::util::row_major_strides;

/// A read-only view of a [`DynTensor`]'s elements (or of another view's) under a shape and
/// strides of its own: permuting, transposing, narrowing, inserting or squeezing an axis
/// costs no copy. Pass [`as_array_ref`](Self::as_array_ref) to the runtime kernels, or the
/// view itself to the binary primitive; [`to_tensor`](Self::to_tensor) copies it out.
///
/// ```
/// use shaped::{runtime::binary_into, AutoBroadcast, BinaryOp, DynTensor};
/// let x = DynTensor::from_shape_vec([2, 3], vec![1, 2, 3, 4, 5, 6])?;
/// let t = x.strided().transpose();                 // [3, 2], no copy
/// assert_eq!(t.shape(), [3, 2]);
/// assert_eq!(t.strides(), [1, 3]);
/// assert_eq!(t[[2, 1]], 6);
/// let mut out = [0; 6];
/// binary_into(t.as_array_ref(), x.strided().transpose().as_array_ref(), BinaryOp::Add, AutoBroadcast::None, &mut out)?;
/// assert_eq!(out, [2, 8, 4, 10, 6, 12]);
/// assert_eq!(t.narrow(0, 1, 2)?.to_tensor().as_slice(), &[2, 5, 3, 6]);
/// # Ok::<(), shaped::Error>(())
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
#[derive(Clone, Debug)]
pub struct DynView<'a, T> {
    // Every element the shape and strides address lies inside `data` (each constructor keeps
    // this), so `as_array_ref` need not check again.
    data: &'a [T],
    shape: Vec<usize>,
    strides: Vec<usize>,
}

impl<'a, T> DynView<'a, T> {
    /// The elements `taken` along each axis (every step positive, or a length of at most 1):
    /// the first element's offset, and each stride times its step (M8).
    pub(crate) fn sliced(&self, shape: &[usize], taken: &[crate::rules::Taken]) -> Self {
        // An empty view addresses nothing; else each first index is an element of its axis.
        let offset = if shape.contains(&0) {
            0
        } else {
            taken
                .iter()
                .zip(&self.strides)
                .map(|(t, &s)| t.first * s)
                .sum()
        };
        let strides = taken
            .iter()
            .zip(&self.strides)
            .map(|(t, &s)| {
                // One element or none: the stride is never used, and a huge step must not
                // overflow it.
                if t.len <= 1 {
                    s
                } else {
                    s * t.step.unsigned_abs() as usize
                }
            })
            .collect();
        DynView {
            data: &self.data[offset..],
            shape: shape.to_vec(),
            strides,
        }
    }

    /// The view without the axes of `mask`, each of size 1, whose strides go unused (M3).
    pub(crate) fn without_axes(&self, shape: &[usize], mask: u64) -> Self {
        let strides = self
            .strides
            .iter()
            .enumerate()
            .filter(|&(a, _)| mask & (1 << a) == 0)
            .map(|(_, &s)| s)
            .collect();
        DynView {
            data: self.data,
            shape: shape.to_vec(),
            strides,
        }
    }

    /// A row-major view of `data` with `shape` (its element count, which the caller has).
    pub(crate) fn row_major(shape: &[usize], data: &'a [T]) -> Self {
        DynView {
            data,
            shape: shape.to_vec(),
            strides: row_major_strides::<{ rules::MAX_RANK }>(shape)[..shape.len()].to_vec(),
        }
    }

    /// The dims.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The strides, in elements.
    pub fn strides(&self) -> &[usize] {
        &self.strides
    }

    /// The number of dims.
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        // Cannot overflow: every tensor's non-zero dims multiply without overflow (its
        // constructors check it), and a view's dims are some of them, or 1s.
        self.shape.iter().product()
    }

    /// True when some dim is 0.
    pub fn is_empty(&self) -> bool {
        self.shape.contains(&0)
    }

    /// True when the elements are row-major and contiguous, as in a tensor.
    pub fn is_row_major(&self) -> bool {
        self.is_empty() || {
            let row_major: [usize; rules::MAX_RANK] = row_major_strides(&self.shape);
            self.shape
                .iter()
                .zip(&self.strides)
                .zip(row_major.iter())
                .all(|((&d, &s), &r)| d == 1 || s == r)
        }
    }

    /// The element at `index`, or `None` if the rank or a coordinate is wrong.
    pub fn get(&self, index: impl AsRef<[usize]>) -> Option<&'a T> {
        let index = index.as_ref();
        if index.len() != self.shape.len() || index.iter().zip(&self.shape).any(|(i, d)| i >= d) {
            return None;
        }
        // Inside the dims, the offset is one the view addresses, inside `data` (the struct's
        // invariant): no overflow.
        let offset: usize = index.iter().zip(&self.strides).map(|(i, s)| i * s).sum();
        self.data.get(offset)
    }

    /// The elements, shape and strides, for the binary primitive's sources.
    pub(crate) fn parts(&self) -> (&'a [T], &[usize], &[usize]) {
        (self.data, &self.shape, &self.strides)
    }

    /// The input the runtime kernels take (`binary_into`, `compare_into`, `zip_into`, ...).
    pub fn as_array_ref(&self) -> ArrayRef<'_, T> {
        ArrayRef::trusted_strided(&self.shape, &self.strides, self.data)
    }

    /// The elements copied into a row-major tensor.
    ///
    /// If `Clone` panics part-way, the elements already copied into the result are leaked (never
    /// dropped twice, never read).
    pub fn to_tensor(&self) -> DynTensor<T>
    where
        T: Clone,
    {
        self.map(T::clone)
    }

    /// The axes reordered: output axis `i` is axis `axes[i]` (negative from the end), which
    /// must name every axis once (M4). No copy.
    pub fn permute(&self, axes: impl AsRef<[i64]>) -> Result<Self, Error> {
        let (shape, resolved) = rules::permute_shape(&self.shape, axes.as_ref())?;
        Ok(DynView {
            data: self.data,
            shape: shape.to_vec(),
            strides: resolved.iter().map(|&a| self.strides[a]).collect(),
        })
    }

    /// The last two axes swapped, at any rank (numpy's `.mT`; M4). No copy. A rank-0 or
    /// rank-1 view is returned as it is (as a product's `transpose_a` treats it, G2).
    pub fn transpose(&self) -> Self {
        let mut t = DynView {
            data: self.data,
            shape: self.shape.clone(),
            strides: self.strides.clone(),
        };
        let r = t.shape.len();
        if r >= 2 {
            t.shape.swap(r - 2, r - 1);
            t.strides.swap(r - 2, r - 1);
        }
        t
    }

    /// Every axis in reverse order (numpy's `.T`; M4). No copy.
    pub fn reversed(&self) -> Self {
        DynView {
            data: self.data,
            shape: self.shape.iter().rev().copied().collect(),
            strides: self.strides.iter().rev().copied().collect(),
        }
    }

    /// Elements `start..start + len` of axis `axis` (M5). No copy.
    pub fn narrow(&self, axis: i64, start: usize, len: usize) -> Result<Self, Error> {
        let (shape, a) = rules::narrow_shape(&self.shape, axis, start, len)?;
        // An empty view addresses nothing; else `start` is an element of the axis.
        let offset = if shape.contains(&0) {
            0
        } else {
            start * self.strides[a]
        };
        Ok(DynView {
            data: &self.data[offset..],
            shape: shape.to_vec(),
            strides: self.strides.clone(),
        })
    }

    /// A dim of 1 inserted before axis `axis` (`-r - 1..=r`; M3). No copy.
    pub fn insert_axis(&self, axis: i64) -> Result<Self, Error> {
        let (shape, a) = rules::insert_axis_shape(&self.shape, axis)?;
        let mut strides = self.strides.clone();
        strides.insert(a, 0);
        Ok(DynView {
            data: self.data,
            shape: shape.to_vec(),
            strides,
        })
    }

    /// Axis `axis` removed; it must be 1 (M3). No copy.
    pub fn squeeze(&self, axis: i64) -> Result<Self, Error> {
        let (shape, a) = rules::squeeze_shape(&self.shape, axis)?;
        let mut strides = self.strides.clone();
        strides.remove(a);
        Ok(DynView {
            data: self.data,
            shape: shape.to_vec(),
            strides,
        })
    }
}

/// The elementwise operations of [`DynTensor`], on a view: the same kernels read it through its
/// strides, with no copy. The right operand is a tensor, a view or an [`ArrayRef`].
///
/// ```
/// use shaped::{AutoBroadcast, BinaryOp, CompareOp, DynTensor};
/// let x = DynTensor::from_shape_vec([2, 3], vec![1, 2, 3, 4, 5, 6])?;
/// let col = DynTensor::from_shape_vec([2], vec![10, 20])?;
/// let t = x.strided().transpose();                          // [3, 2]
/// let y = t.binary(&col, BinaryOp::Mul, AutoBroadcast::Numpy)?;
/// assert_eq!(y.as_slice(), &[10, 80, 20, 100, 30, 120]);
/// let z = x.binary(&t.transpose(), BinaryOp::Sub, AutoBroadcast::None)?;
/// assert_eq!(z.as_slice(), &[0; 6]);
/// assert_eq!(t.compare(&t, CompareOp::Eq, AutoBroadcast::None)?.as_slice(), &[true; 6]);
/// # Ok::<(), shaped::Error>(())
/// ```
impl<T> DynView<'_, T> {
    /// [`DynTensor::zip_with`] on a view.
    pub fn zip_with<U, V>(
        &self,
        rhs: &(impl AsInput<U> + ?Sized),
        mode: AutoBroadcast,
        f: impl FnMut(&T, &U) -> V,
    ) -> Result<DynTensor<V>, Error> {
        zip_inputs(self.as_array_ref(), rhs.as_input(), mode, f)
    }

    /// [`DynTensor::binary`] on a view.
    pub fn binary(
        &self,
        rhs: &(impl AsInput<T> + ?Sized),
        op: BinaryOp,
        mode: AutoBroadcast,
    ) -> Result<DynTensor<T>, Error>
    where
        T: Element,
    {
        binary_inputs(self.as_array_ref(), rhs.as_input(), op, mode)
    }

    /// [`DynTensor::compare`] on a view.
    pub fn compare(
        &self,
        rhs: &(impl AsInput<T> + ?Sized),
        op: CompareOp,
        mode: AutoBroadcast,
    ) -> Result<DynTensor<bool>, Error>
    where
        T: PartialOrd + Sync,
    {
        compare_inputs(self.as_array_ref(), rhs.as_input(), op, mode)
    }

    /// [`DynTensor::map`] on a view: `f` of each element, into a row-major tensor, written in
    /// place (if `f` panics part-way, the elements it already made are leaked).
    ///
    /// **Panics** with the error's message when the allocator refuses the result;
    /// [`try_map`](Self::try_map) returns it.
    pub fn map<U>(&self, f: impl FnMut(&T) -> U) -> DynTensor<U> {
        self.try_map(f).or_panic()
    }

    /// [`map`](Self::map), or [`ErrorKind::OutOfMemory`] when the allocator refuses the
    /// result. If `f` panics part-way, the elements it already made are leaked.
    pub fn try_map<U>(&self, f: impl FnMut(&T) -> U) -> Result<DynTensor<U>, Error> {
        let data = gather_vec(self.as_array_ref(), f)?;
        Ok(DynTensor::from_parts(&self.shape, data))
    }
}

impl DynView<'_, bool> {
    /// [`DynTensor::logical`] on a view.
    pub fn logical(
        &self,
        rhs: &(impl AsInput<bool> + ?Sized),
        op: LogicalOp,
        mode: AutoBroadcast,
    ) -> Result<DynTensor<bool>, Error> {
        logical_inputs(self.as_array_ref(), rhs.as_input(), op, mode)
    }
}

impl<T> AsInput<T> for DynView<'_, T> {
    fn as_input(&self) -> ArrayRef<'_, T> {
        self.as_array_ref()
    }
}

impl<T, I: AsRef<[usize]>> core::ops::Index<I> for DynView<'_, T> {
    type Output = T;

    /// Panics when the index does not fit the shape, naming both.
    fn index(&self, index: I) -> &T {
        let index = index.as_ref();
        match self.get(index) {
            Some(x) => x,
            None => panic!(
                "index {index:?} is out of bounds for shape {:?}",
                self.shape
            ),
        }
    }
}

impl<T> DynTensor<T> {
    /// A zero-copy strided view of the elements, to permute or narrow without copying.
    pub fn strided(&self) -> DynView<'_, T> {
        DynView::row_major(self.shape(), self.as_slice())
    }

    /// A view of the same elements under another shape (M1), one dim of which may be
    /// [`INFER`](crate::rules::INFER), inferred as numpy's `-1` (M2). No copy, and `self`
    /// stays as it is, as the static `reshape`; [`into_shape`](Self::into_shape) moves the
    /// elements into a tensor of the new shape instead.
    ///
    /// ```
    /// use shaped::{rules::INFER, DynTensor};
    /// let t = DynTensor::from_shape_vec([2, 3, 4], (0..24).collect())?;
    /// let r = t.reshape([INFER, 4])?;
    /// assert_eq!((r.shape(), r[[5, 3]]), (&[6, 4][..], 23));
    /// let e = t.reshape([5, 5]).unwrap_err();
    /// assert_eq!(e.to_string(), "cannot reshape [2, 3, 4] into [5, 5]: the element counts differ (M1)");
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn reshape(&self, shape: impl AsRef<[usize]>) -> Result<DynView<'_, T>, Error> {
        let shape = rules::reshape_shape(self.shape(), shape.as_ref())?;
        Ok(DynView::row_major(&shape, self.as_slice()))
    }

    /// The elements moved into a tensor of another shape (M1, M2, `INFER` as in
    /// [`reshape`](Self::reshape)). No copy.
    ///
    /// ```
    /// use shaped::{rules::INFER, DynTensor};
    /// let t = DynTensor::from_shape_vec([2, 3], vec![1, 2, 3, 4, 5, 6])?;
    /// assert_eq!(t.into_shape([3, INFER])?.shape(), [3, 2]);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn into_shape(self, shape: impl AsRef<[usize]>) -> Result<Self, Error> {
        let shape = rules::reshape_shape(self.shape(), shape.as_ref())?;
        Ok(DynTensor::from_parts(&shape, self.into_vec()))
    }

    /// The elements as one dim (M1). No copy.
    pub fn flatten(self) -> Self {
        let n = self.len();
        DynTensor::from_parts(&[n], self.into_vec())
    }

    /// A dim of 1 inserted before axis `axis` (`-r - 1..=r`, negative from the end of the
    /// result; M3). No copy.
    ///
    /// ```
    /// use shaped::DynTensor;
    /// let t = DynTensor::from_shape_vec([2, 3], vec![0; 6])?;
    /// assert_eq!(t.insert_axis(-1)?.squeeze(0).unwrap_err().to_string(),
    ///            "cannot squeeze [2, 3, 1]: axis 0 has 2 elements, not 1 (M3)");
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn insert_axis(self, axis: i64) -> Result<Self, Error> {
        let (shape, _) = rules::insert_axis_shape(self.shape(), axis)?;
        Ok(DynTensor::from_parts(&shape, self.into_vec()))
    }

    /// Axis `axis` removed; it must be 1 (M3). No copy.
    pub fn squeeze(self, axis: i64) -> Result<Self, Error> {
        let (shape, _) = rules::squeeze_shape(self.shape(), axis)?;
        Ok(DynTensor::from_parts(&shape, self.into_vec()))
    }

    /// The axes reordered into a new tensor: output axis `i` is axis `axes[i]` (negative from
    /// the end), which must name every axis once (M4). [`strided`](Self::strided)`.permute`
    /// is the view that does not copy.
    ///
    /// ```
    /// use shaped::DynTensor;
    /// let x = DynTensor::from_shape_vec([2, 3, 4], (0..24).collect())?;
    /// let p = x.permute([2, 0, 1])?;
    /// assert_eq!(p.shape(), [4, 2, 3]);
    /// assert_eq!(p[[3, 1, 2]], x[[1, 2, 3]]);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    ///
    /// If `Clone` panics part-way, the elements already copied into the result are leaked (never
    /// dropped twice, never read).
    pub fn permute(&self, axes: impl AsRef<[i64]>) -> Result<Self, Error>
    where
        T: Clone,
    {
        Ok(self.strided().permute(axes)?.to_tensor())
    }

    /// The last two axes swapped, at any rank (numpy's `.mT`; M4), into a new tensor: `[b, m,
    /// n]` becomes `[b, n, m]`. A rank-0 or rank-1 tensor is copied as it is (as a product's
    /// `transpose_a` treats it, G2); [`permute`](Self::permute) reverses or reorders any axes,
    /// and [`strided`](Self::strided)`.transpose()` is the view that does not copy.
    ///
    /// ```
    /// use shaped::DynTensor;
    /// let x = DynTensor::from_shape_vec([2, 2, 3], (0..12).collect())?;
    /// let t = x.transpose();
    /// assert_eq!((t.shape(), t[[1, 2, 0]]), (&[2, 3, 2][..], x[[1, 0, 2]]));
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn transpose(&self) -> Self
    where
        T: Clone,
    {
        self.strided().transpose().to_tensor()
    }

    /// Every axis in reverse order (numpy's `.T`; M4), into a new tensor: `[a, b, c]` becomes
    /// `[c, b, a]`. [`strided`](Self::strided)`.reversed()` is the view that does not copy.
    ///
    /// ```
    /// use shaped::DynTensor;
    /// let x = DynTensor::from_shape_vec([2, 3, 4], (0..24).collect())?;
    /// assert_eq!(x.reversed()[[3, 1, 0]], x[[0, 1, 3]]);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn reversed(&self) -> Self
    where
        T: Clone,
    {
        self.strided().reversed().to_tensor()
    }

    /// Elements `start..start + len` of axis `axis` (negative from the end), into a new tensor
    /// (M5). Narrowing axis 0 of a tensor keeps the layout; [`strided`](Self::strided) gives
    /// the view of any axis without copying.
    ///
    /// ```
    /// use shaped::DynTensor;
    /// let x = DynTensor::from_shape_vec([2, 4], (0..8).collect())?;
    /// assert_eq!(x.narrow(-1, 1, 2)?.as_slice(), &[1, 2, 5, 6]);
    /// assert_eq!(
    ///     x.narrow(1, 3, 2).unwrap_err().to_string(),
    ///     "cannot narrow [2, 4]: 2 elements from 3 do not fit in axis 1, which has 4 (M5)"
    /// );
    /// # Ok::<(), shaped::Error>(())
    /// ```
    ///
    /// If `Clone` panics part-way, the elements already copied into the result are leaked (never
    /// dropped twice, never read).
    pub fn narrow(&self, axis: i64, start: usize, len: usize) -> Result<Self, Error>
    where
        T: Clone,
    {
        Ok(self.strided().narrow(axis, start, len)?.to_tensor())
    }

    /// The tensors joined along axis `axis` (negative from the end): equal ranks, equal dims on
    /// every other axis, and the axis the sum (M6).
    ///
    /// ```
    /// use shaped::DynTensor;
    /// let a = DynTensor::from_shape_vec([2, 1], vec![1, 2])?;
    /// let b = DynTensor::from_shape_vec([2, 2], vec![3, 4, 5, 6])?;
    /// let c = DynTensor::concat(&[&a, &b], 1)?;
    /// assert_eq!((c.shape(), c.as_slice()), (&[2, 3][..], &[1, 3, 4, 2, 5, 6][..]));
    /// let e = DynTensor::concat(&[&a, &b], 0).unwrap_err();
    /// assert_eq!(
    ///     e.to_string(),
    ///     "cannot concat [2, 1] with [2, 2]: axis 1 has 1 vs 2; every axis but the joined one must be equal (M6)"
    /// );
    /// # Ok::<(), shaped::Error>(())
    /// ```
    ///
    /// If `Clone` panics part-way, the elements already copied are dropped.
    pub fn concat(parts: &[&DynTensor<T>], axis: i64) -> Result<Self, Error>
    where
        T: Clone,
    {
        let Some((first, rest)) = parts.split_first() else {
            let op = Operation::Shape {
                op: ShapeOp::Concat,
            };
            return Err(Error::new(ErrorKind::NoTensors, op, &[], &[]));
        };
        let op = Operation::Shape {
            op: ShapeOp::Concat,
        };
        let Some(mut shape) = rules::ShapeBuf::from_slice(first.shape()) else {
            // Unreachable for tensors made by this crate (their rank is checked); an error
            // rather than a joined shape that lost its dims.
            let kind = ErrorKind::RankLimit {
                max: rules::MAX_RANK,
            };
            return Err(Error::new(kind, op, first.shape(), &[]));
        };
        let mut a = rules::resolve_shape_axis(axis, first.rank());
        for part in rest {
            let (joined, resolved) = rules::concat_shape(&shape, part.shape(), axis)?;
            (shape, a) = (joined, Some(resolved));
        }
        let Some(a) = a else {
            // A single part: the axis must still be one of its axes.
            let rank = first.rank();
            return Err(Error::new(
                ErrorKind::BadAxis { axis, rank },
                op,
                first.shape(),
                &[],
            ));
        };
        Self::joined(parts, &shape, a)
    }

    /// The tensors, all of one shape, stacked along a new axis `axis` (`-r - 1..=r`) whose dim
    /// is their number (M7).
    ///
    /// ```
    /// use shaped::DynTensor;
    /// let a = DynTensor::from_shape_vec([2], vec![1, 2])?;
    /// let b = DynTensor::from_shape_vec([2], vec![3, 4])?;
    /// let s = DynTensor::stack(&[&a, &b], 1)?;
    /// assert_eq!((s.shape(), s.as_slice()), (&[2, 2][..], &[1, 3, 2, 4][..]));
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn stack(parts: &[&DynTensor<T>], axis: i64) -> Result<Self, Error>
    where
        T: Clone,
    {
        let first = parts.first().map_or(&[][..], |p| p.shape());
        let (shape, a) = rules::stack_shape(first, parts.len(), axis)?;
        for part in parts {
            rules::stack_check(first, part.shape())?;
        }
        Self::joined(parts, &shape, a)
    }

    /// `parts` interleaved in blocks of everything from axis `a` on into a tensor of `shape`
    /// (checked by the caller). Time and memory go with the elements: with none, no loop runs
    /// over the dims before the axis (`[2^62, 0]` joined along axis 1 looped over its 2^62
    /// empty blocks), and the result's allocation is checked.
    fn joined(parts: &[&DynTensor<T>], shape: &[usize], a: usize) -> Result<Self, Error>
    where
        T: Clone,
    {
        let count = super::element_count::<T>(shape)?;
        let mut data = super::try_vec(count, shape)?;
        if count > 0 {
            // Not 0, and no overflow: the dims before the axis multiply to at most `count`.
            let outer = shape[..a].iter().product();
            interleave(parts.iter().map(|p| p.as_slice()), outer, |block| {
                data.extend_from_slice(block)
            });
        }
        Ok(DynTensor::from_parts(shape, data))
    }
}
