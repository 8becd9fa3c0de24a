//! Padding of typed tensors (rule M13), one axis by amounts fixed at compile time: the padded
//! dim is computed at compile time, and padding an empty axis from its own elements is a
//! compile error.
//!
//! One axis at a time, so that every amount is a const parameter of its own: padding several
//! axes is padding each in turn, which gives what padding them together gives in every mode
//! (each axis's source index depends on that axis alone; numpy's `pad` works axis by axis
//! too). Removing elements, ONNX's negative pads, is [`narrow`](Tensor::narrow).

use super::manipulate::{gathered, offset_along};
use super::{OwnedIn, Tensor};
use crate::rules::{pad_source, PadMode};
use crate::typed::rules::{axis_index, PadFrom, PadStatic, Padded};
use crate::typed::shape::{StaticShape, MAX_STATIC_RANK};
use crate::typed::storage::{fits_inline, Data};
use crate::util::row_major_strides;

/// # Padding
///
/// One axis padded by amounts fixed at compile time, into a tensor stored like `self`. A
/// generic caller writes the rules the methods name: `S: PadStatic<A, BEFORE, AFTER>`, and
/// `PadFrom<A, BEFORE, AFTER>` for the modes that repeat the axis's elements.
impl<T: Clone, S: StaticShape, D: Data<T>> Tensor<T, S, D> {
    /// `BEFORE` copies of `value` added before axis `A` and `AFTER` after it (M13, ONNX's `Pad`
    /// and numpy's `pad` in `constant` mode): axis `A` becomes `N + BEFORE + AFTER`, computed
    /// at compile time. Several axes are padded one after the other.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<i32, Shape![2, 2]>::from([[1, 2], [3, 4]]);
    /// let y: Tensor<i32, Shape![3, 5]> = x.pad_constant::<1, 1, 2>(0).pad_constant::<0, 0, 1>(9);
    /// assert_eq!(y.as_slice(), &[0, 1, 2, 0, 0, 0, 3, 4, 0, 0, 9, 9, 9, 9, 9]);
    /// ```
    ///
    /// ```compile_fail
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<i32, Shape![2, 2]>::zeros();
    /// let y = x.pad_constant::<2, 1, 1>(0);              // no axis 2
    /// ```
    #[inline]
    pub fn pad_constant<const A: isize, const BEFORE: usize, const AFTER: usize>(
        &self,
        value: T,
    ) -> OwnedIn<D::Family, T, Padded<S, A, BEFORE, AFTER>>
    where
        S: PadStatic<A, BEFORE, AFTER>,
    {
        fits_inline!(OwnedIn<D::Family, T, Padded<S, A, BEFORE, AFTER>>);
        let data = &self.as_slice()[..S::LEN];
        OwnedIn::<D::Family, T, Padded<S, A, BEFORE, AFTER>>::from_fn(|index| {
            let index = index.as_ref();
            let strides = const { row_major_strides::<MAX_STATIC_RANK>(S::DIMS) };
            let a = const { axis_index(A, S::RANK) };
            match pad_source(index[a], BEFORE, S::DIMS[a], PadMode::Constant) {
                Some(i) => data[offset_along(index, &strides, a, |_| i)].clone(),
                None => value.clone(),
            }
        })
    }

    /// Axis `A` extended by `BEFORE` copies of its first element and `AFTER` of its last (M13,
    /// `edge` mode). An empty axis has no element to copy: padding it is a compile error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<i32, Shape![2, 2]>::from([[1, 2], [3, 4]]);
    /// let y: Tensor<i32, Shape![2, 5]> = x.pad_edge::<-1, 2, 1>();
    /// assert_eq!(y.as_slice(), &[1, 1, 1, 2, 2, 3, 3, 3, 4, 4]);
    /// ```
    ///
    /// ```compile_fail
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<i32, Shape![2, 0]>::zeros();
    /// let y = x.pad_edge::<1, 1, 0>();                    // nothing to copy
    /// ```
    #[inline]
    pub fn pad_edge<const A: isize, const BEFORE: usize, const AFTER: usize>(
        &self,
    ) -> OwnedIn<D::Family, T, Padded<S, A, BEFORE, AFTER>>
    where
        S: PadFrom<A, BEFORE, AFTER>,
    {
        fits_inline!(OwnedIn<D::Family, T, Padded<S, A, BEFORE, AFTER>>);
        self.padded_from::<A, BEFORE, AFTER>(PadMode::Edge)
    }

    /// Axis `A` extended by its reflection about its first and last elements, which are not
    /// repeated (M13, `reflect` mode), as many times over as the amounts need (numpy's
    /// `pad`); an axis of one element repeats it. An empty axis is a compile error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<i32, Shape![3]>::from([1, 2, 3]);
    /// let y: Tensor<i32, Shape![10]> = x.pad_reflect::<0, 2, 5>();
    /// assert_eq!(y.as_slice(), &[3, 2, 1, 2, 3, 2, 1, 2, 3, 2]);
    /// ```
    #[inline]
    pub fn pad_reflect<const A: isize, const BEFORE: usize, const AFTER: usize>(
        &self,
    ) -> OwnedIn<D::Family, T, Padded<S, A, BEFORE, AFTER>>
    where
        S: PadFrom<A, BEFORE, AFTER>,
    {
        fits_inline!(OwnedIn<D::Family, T, Padded<S, A, BEFORE, AFTER>>);
        self.padded_from::<A, BEFORE, AFTER>(PadMode::Reflect)
    }

    /// Axis `A` extended as if it were periodic (M13, `wrap` mode): the elements before it
    /// are its last ones, those after it its first ones, repeated as the amounts need. An
    /// empty axis is a compile error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<i32, Shape![3]>::from([1, 2, 3]);
    /// let y: Tensor<i32, Shape![8]> = x.pad_wrap::<0, 4, 1>();
    /// assert_eq!(y.as_slice(), &[3, 1, 2, 3, 1, 2, 3, 1]);
    /// ```
    #[inline]
    pub fn pad_wrap<const A: isize, const BEFORE: usize, const AFTER: usize>(
        &self,
    ) -> OwnedIn<D::Family, T, Padded<S, A, BEFORE, AFTER>>
    where
        S: PadFrom<A, BEFORE, AFTER>,
    {
        fits_inline!(OwnedIn<D::Family, T, Padded<S, A, BEFORE, AFTER>>);
        self.padded_from::<A, BEFORE, AFTER>(PadMode::Wrap)
    }

    /// Axis `A` padded from its own elements under `mode` (edge, reflect or wrap), into a
    /// tensor of the shape the caller's bounds have proven.
    #[inline(always)]
    fn padded_from<const A: isize, const BEFORE: usize, const AFTER: usize>(
        &self,
        mode: PadMode,
    ) -> OwnedIn<D::Family, T, Padded<S, A, BEFORE, AFTER>>
    where
        S: PadStatic<A, BEFORE, AFTER>,
    {
        gathered::<D::Family, T, S, Padded<S, A, BEFORE, AFTER>, _>(self.as_slice(), |index| {
            let strides = const { row_major_strides::<MAX_STATIC_RANK>(S::DIMS) };
            let a = const { axis_index(A, S::RANK) };
            // Always `Some`: `PadFrom` has proven the axis has elements, or that it adds none
            // (then the result is empty where the axis is, and nothing is read).
            let i = pad_source(index[a], BEFORE, S::DIMS[a], mode).unwrap_or(0);
            offset_along(index, &strides, a, |_| i)
        })
    }
}

/// # Padding into a buffer
impl<T: Clone, S: crate::typed::shape::Shape, D: Data<T>> Tensor<T, S, D> {
    /// `self` placed at offset `before` (one count per axis) in `out`, every other element of
    /// `out` set to `value`, without an allocator (M13's `constant` mode on every axis at once,
    /// TFLite's `PAD`): `out`'s dims are `self`'s plus `before` plus any amount after. An
    /// error value when `before` does not name every axis, or `out` is too small on an axis.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<i32, Shape![1, 2]>::from([[1, 2]]);
    /// let mut y = Tensor::<i32, Shape![2, 4]>::zeros();
    /// x.pad_into(&[1, 1], -1, &mut y)?;
    /// assert_eq!(y.as_slice(), &[-1, -1, -1, -1, -1, 1, 2, -1]);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn pad_into<S2: crate::typed::shape::Shape, O: crate::typed::storage::DataMut<T>>(
        &self,
        before: &[usize],
        value: T,
        out: &mut Tensor<T, S2, O>,
    ) -> Result<(), crate::Error> {
        use crate::error::{Error, ErrorKind, Operation};
        use crate::op::ShapeOp;
        let op = Operation::Shape { op: ShapeOp::Pad };
        let (dims, out_dims) = (self.shape(), out.shape());
        let (dims, out_dims) = (dims.as_ref(), out_dims.as_ref());
        if before.len() != dims.len() {
            let kind = ErrorKind::PadsLength {
                len: before.len(),
                axes: dims.len(),
            };
            return Err(Error::new(kind, op, dims, &[]));
        }
        let fits = dims.len() == out_dims.len()
            && dims
                .iter()
                .zip(before)
                .zip(out_dims)
                .all(|((&d, &b), &o)| d.checked_add(b).is_some_and(|end| end <= o));
        if !fits {
            return Err(Error::new(ErrorKind::ShapeMismatch, op, dims, out_dims));
        }
        let y = out.as_mut_slice();
        y.fill(value);
        let x = self.as_slice();
        let rank = dims.len();
        let Some(&last) = dims.last() else {
            // Rank 0: the one element.
            y.clone_from_slice(x);
            return Ok(());
        };
        if x.is_empty() {
            return Ok(());
        }
        // Each row of the last axis is copied to its place: the row's index along the other
        // axes, shifted by `before`, in `out`'s strides.
        let out_strides = row_major_strides::<MAX_STATIC_RANK>(out_dims);
        let mut index = [0usize; MAX_STATIC_RANK];
        for row in x.chunks_exact(last) {
            let at: usize = (0..rank)
                .map(|i| (index[i] + before[i]) * out_strides[i])
                .sum();
            y[at..at + last].clone_from_slice(row);
            // The next row: the odometer over every axis but the last.
            for i in (0..rank - 1).rev() {
                index[i] += 1;
                if index[i] < dims[i] {
                    break;
                }
                index[i] = 0;
            }
        }
        Ok(())
    }
}
