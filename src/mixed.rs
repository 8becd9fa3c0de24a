//! Shapes that mix static and [`Dyn`](crate::Dyn) dims: `Shape![_, 3, 4]`.
//!
//! Static dims are checked at compile time, as for fully static shapes (a mismatch between two
//! static dims does not compile); the dims that involve a `Dyn` are checked at run time by the
//! same runtime rules as the dynamic path ([`crate::rules`]), so the `try_*` methods return
//! `Result`s. Output types keep every static dim the rules allow: `Const<N>` (N != 1) against
//! `Dyn` gives `Const<N>` (the runtime dim must be 1 or N), `Const<1>` or `Dyn` against `Dyn`
//! gives `Dyn`.
//!
//! Owned tensors with a `Dyn` dim keep their elements in a `Vec` (feature `alloc`); without
//! `alloc` they exist as views ([`TensorView::with_shape`]).
//!
//! ```
//! use shaped::{Shape, Tensor};
//! let batch = 2;
//! let x: Tensor<f32, Shape![_, 3, 4]> = Tensor::from_shape_vec([batch, 3, 4], vec![1.0; 24])?;
//! let bias = Tensor::<f32, Shape![1, 4]>::zeros();
//! let y: Tensor<f32, Shape![_, 3, 4]> = x.try_add(&bias)?;
//! assert_eq!(y.shape(), [2, 3, 4]);
//! # Ok::<(), shaped::BroadcastError>(())
//! ```

use crate::error::{BroadcastError, ErrorKind, Operation};
use crate::shape::Shape;
use crate::strided::ArrayRef;
use crate::tensor::{Tensor, TensorView, TensorViewMut};

// Owned results need a Vec: everything below these imports but the views is `alloc`-only.
#[cfg(feature = "alloc")]
use {
    crate::rules,
    crate::rules::{AutoBroadcast, BroadcastMode},
    crate::storage::{Data, Owned},
    crate::strided,
    crate::typelevel::{
        Bidirectional, BidirectionalOutput, BroadcastShape, NoneShape, Numpy, NumpyOutput,
    },
    alloc::vec::Vec,
    core::ops,
};

/// The shape value for runtime `dims`, or an error naming what the type allows.
fn shape_for<S: Shape>(dims: S::Index) -> Result<S, BroadcastError> {
    S::from_dims(dims.as_ref()).ok_or_else(|| {
        let expected = S::expected_dims(dims);
        BroadcastError::new(
            ErrorKind::ShapeMismatch,
            Operation::ToStatic,
            dims.as_ref(),
            expected.as_ref(),
        )
    })
}

#[cfg(feature = "alloc")]
impl<T, S: Shape> Tensor<T, S> {
    /// A tensor of shape `dims` owning `data` (row-major). Every static dim of `S` must equal
    /// the corresponding value of `dims`, and `data` must hold the element count.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<u8, Shape![_, 2]>::from_shape_vec([3, 2], vec![0; 6]).unwrap();
    /// assert_eq!(t.shape(), [3, 2]);
    /// let e = Tensor::<u8, Shape![_, 2]>::from_shape_vec([3, 4], vec![0; 12]).unwrap_err();
    /// assert_eq!(e.to_string(), "shape [3, 4] is not the static shape [3, 2]");
    /// ```
    pub fn from_shape_vec(dims: S::Index, data: Vec<T>) -> Result<Self, BroadcastError> {
        let shape = shape_for::<S>(dims)?;
        // The same length and overflow checks as every runtime input.
        ArrayRef::new(&data, dims.as_ref())?;
        let buffer = shape.buffer_from_vec(data).ok_or_else(|| {
            BroadcastError::new(
                ErrorKind::ShapeMismatch,
                Operation::Layout,
                dims.as_ref(),
                &[],
            )
        })?;
        Ok(Tensor::from_parts(Owned(buffer), shape))
    }
}

impl<'a, T, S: Shape> TensorView<'a, T, S> {
    /// A view of `data` (row-major) with shape `dims`; works for any shape, `Dyn` dims
    /// included, and needs no allocator.
    pub fn with_shape(dims: S::Index, data: &'a [T]) -> Result<Self, BroadcastError> {
        let shape = shape_for::<S>(dims)?;
        ArrayRef::new(data, dims.as_ref())?;
        Ok(Tensor::from_parts(data, shape))
    }
}

impl<'a, T, S: Shape> TensorViewMut<'a, T, S> {
    /// A writable view of `data` (row-major) with shape `dims`; needs no allocator.
    pub fn with_shape(dims: S::Index, data: &'a mut [T]) -> Result<Self, BroadcastError> {
        let shape = shape_for::<S>(dims)?;
        ArrayRef::new(&*data, dims.as_ref())?;
        Ok(Tensor::from_parts(data, shape))
    }
}

#[cfg(feature = "alloc")]
impl<T, S: Shape, D: Data<T>> Tensor<T, S, D> {
    /// NUMPY-broadcasts `self` with `rhs` and combines elements with `f`. Static dims were
    /// checked at compile time; the dims that involve a [`Dyn`](crate::Dyn) are checked here.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<i32, Shape![_, 2]>::from_shape_vec([3, 2], vec![1, 2, 3, 4, 5, 6]).unwrap();
    /// let n = Tensor::<i32, Shape![_, 1]>::from_shape_vec([3, 1], vec![10, 20, 30]).unwrap();
    /// let y = x.try_broadcast_with(&n, |a, b| a * b).unwrap();
    /// assert_eq!(y.as_slice(), &[10, 20, 60, 80, 150, 180]);
    /// let bad = Tensor::<i32, Shape![_, 1]>::from_shape_vec([2, 1], vec![1, 2]).unwrap();
    /// assert_eq!(
    ///     x.try_broadcast_with(&bad, |a, b| a * b).unwrap_err().to_string(),
    ///     "cannot broadcast [3, 2] with [2, 1] (numpy): axis 0 has 3 vs 2"
    /// );
    /// ```
    pub fn try_broadcast_with<U, S2, E, V>(
        &self,
        rhs: &Tensor<U, S2, E>,
        mut f: impl FnMut(T, U) -> V,
    ) -> Result<Tensor<V, NumpyOutput<S, S2>>, BroadcastError>
    where
        S2: Shape,
        E: Data<U>,
        S: BroadcastShape<S2, Numpy>,
        T: Clone,
        U: Clone,
    {
        let (dims, out) = self.zip_runtime::<U, S2, V>(
            rhs.as_slice(),
            rhs.shape(),
            AutoBroadcast::Numpy,
            &mut f,
        )?;
        finish::<V, NumpyOutput<S, S2>>(&dims, out)
    }

    /// NONE (N1-N3) for shapes with [`Dyn`](crate::Dyn) dims: equal ranks and static dims are
    /// checked at compile time, the `Dyn` dims here.
    pub fn try_zip_map<U, S2, E, V>(
        &self,
        rhs: &Tensor<U, S2, E>,
        mut f: impl FnMut(T, U) -> V,
    ) -> Result<Tensor<V, <S as NoneShape<S2>>::Output>, BroadcastError>
    where
        S2: Shape,
        E: Data<U>,
        S: NoneShape<S2>,
        T: Clone,
        U: Clone,
    {
        let (dims, out) =
            self.zip_runtime::<U, S2, V>(rhs.as_slice(), rhs.shape(), AutoBroadcast::None, &mut f)?;
        finish::<V, <S as NoneShape<S2>>::Output>(&dims, out)
    }

    /// The runtime half of the `try_*` operations and of operators on mixed shapes: the output
    /// dims under `mode` (from the runtime rules) and the elements computed by the strided
    /// kernel, whose inner loop gets the trailing dims that are static in both shapes as a
    /// constant. The right operand comes as elements and dims, so scalars fit too.
    pub(crate) fn zip_runtime<U, S2, V>(
        &self,
        rhs_elements: &[U],
        rhs_dims: S2::Index,
        mode: AutoBroadcast,
        f: &mut impl FnMut(T, U) -> V,
    ) -> Result<(rules::ShapeBuf, Vec<V>), BroadcastError>
    where
        S2: Shape,
        T: Clone,
        U: Clone,
    {
        let (da, db) = (self.shape(), rhs_dims);
        let (da, db) = (da.as_ref(), db.as_ref());
        let out_dims = rules::broadcast_shapes(da, db, mode)?;
        let count = crate::dyn_tensor::element_count::<V>(&out_dims)?;
        let (a, b) = (
            ArrayRef::new(self.as_slice(), da)?,
            ArrayRef::new(rhs_elements, db)?,
        );
        // Trailing dims static in both shapes become a constant inner trip count: 7.3 us vs
        // 14.4 us without, on [_, 64] + [1, 64] with batch 1024 (benches/mixed_kernels.rs).
        let hint = strided::static_inner_run(S::STATIC_DIMS, S2::STATIC_DIMS);
        // Written in place into the spare capacity, without zero-filling first.
        let mut out: Vec<V> = Vec::with_capacity(count);
        let spare = &mut out.spare_capacity_mut()[..count];
        strided::zip_into_hinted(a, b, mode, spare, hint, |x, y| {
            core::mem::MaybeUninit::new(f(x.clone(), y.clone()))
        })?;
        // SAFETY: `zip_into_hinted` returned Ok for an output of exactly `count` elements (it
        // checks the length against the output shape), so it wrote each of them exactly once;
        // on an error (or a panic in `f`) this line is not reached and nothing is claimed.
        unsafe { out.set_len(count) };
        Ok((out_dims, out))
    }

    /// Bidirectional broadcasting (B1-B4) to a target shape type `Target` with runtime dims
    /// `target` (which must match `Target`'s static dims).
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<i32, Shape![_, 1]>::from_shape_vec([2, 1], vec![1, 2]).unwrap();
    /// let y = x.try_broadcast_to::<Shape![_]>([3]).unwrap();
    /// assert_eq!(y.shape(), [2, 3]);
    /// assert_eq!(y.as_slice(), &[1, 1, 1, 2, 2, 2]);
    /// ```
    pub fn try_broadcast_to<Target>(
        &self,
        target: Target::Index,
    ) -> Result<Tensor<T, BidirectionalOutput<S, Target>>, BroadcastError>
    where
        Target: Shape,
        S: BroadcastShape<Target, Bidirectional>,
        T: Default + Clone,
    {
        shape_for::<Target>(target)?;
        let da = self.shape();
        let (da, dt) = (da.as_ref(), target.as_ref());
        let out_dims = rules::broadcast_to_shape(da, dt, BroadcastMode::Bidirectional)?;
        let mut out = crate::dyn_tensor::output::<T>(&out_dims)?;
        strided::broadcast_into(
            ArrayRef::new(self.as_slice(), da)?,
            dt,
            BroadcastMode::Bidirectional,
            &mut out,
        )?;
        finish::<T, BidirectionalOutput<S, Target>>(&out_dims, out)
    }
}

/// Wraps a computed output in the output type, whose static dims the runtime rules have just
/// agreed to (a disagreement would be an error, never a panic).
#[cfg(feature = "alloc")]
pub(crate) fn finish<V, O: Shape>(
    dims: &[usize],
    out: Vec<V>,
) -> Result<Tensor<V, O>, BroadcastError> {
    let internal = || BroadcastError::new(ErrorKind::ShapeMismatch, Operation::ToStatic, dims, &[]);
    let shape = O::from_dims(dims).ok_or_else(internal)?;
    let buffer = shape.buffer_from_vec(out).ok_or_else(internal)?;
    Ok(Tensor::from_parts(Owned(buffer), shape))
}

macro_rules! try_ops {
    ($($name:ident $(<$bound:path>)? |$x:ident, $y:ident| $body:expr, $out:ty, $doc:literal;)*) => {
        /// Fallible elementwise operations for shapes with [`Dyn`](crate::Dyn) dims (they work
        /// for static shapes too, where they cannot fail).
        #[cfg(feature = "alloc")]
        impl<T, S: Shape, D: Data<T>> Tensor<T, S, D> {$(
            #[doc = $doc]
            pub fn $name<S2, E>(&self, rhs: &Tensor<T, S2, E>) -> Result<Tensor<$out, NumpyOutput<S, S2>>, BroadcastError>
            where
                S2: Shape,
                E: Data<T>,
                S: BroadcastShape<S2, Numpy>,
                T: Copy + Default $(+ $bound)?,
            {
                self.try_broadcast_with(rhs, |$x, $y| $body)
            }
        )*}
    };
}

try_ops! {
    try_add<ops::Add<Output = T>> |x, y| x + y, T, "`self + rhs`, NUMPY-broadcast.";
    try_sub<ops::Sub<Output = T>> |x, y| x - y, T, "`self - rhs`, NUMPY-broadcast.";
    try_mul<ops::Mul<Output = T>> |x, y| x * y, T, "`self * rhs`, NUMPY-broadcast.";
    try_div<ops::Div<Output = T>> |x, y| x / y, T, "`self / rhs`, NUMPY-broadcast.";
    try_rem<ops::Rem<Output = T>> |x, y| x % y, T, "`self % rhs`, NUMPY-broadcast.";
    try_maximum<PartialOrd> |x, y| crate::elementwise::pick(x, y, core::cmp::Ordering::Greater), T, "Elementwise maximum (NaN-propagating), NUMPY-broadcast.";
    try_minimum<PartialOrd> |x, y| crate::elementwise::pick(x, y, core::cmp::Ordering::Less), T, "Elementwise minimum (NaN-propagating), NUMPY-broadcast.";
    try_eq_elem<PartialEq> |x, y| x == y, bool, "Elementwise `self == rhs`.";
    try_ne_elem<PartialEq> |x, y| x != y, bool, "Elementwise `self != rhs`.";
    try_lt<PartialOrd> |x, y| x < y, bool, "Elementwise `self < rhs`.";
    try_le<PartialOrd> |x, y| x <= y, bool, "Elementwise `self <= rhs`.";
    try_gt<PartialOrd> |x, y| x > y, bool, "Elementwise `self > rhs`.";
    try_ge<PartialOrd> |x, y| x >= y, bool, "Elementwise `self >= rhs`.";
    try_and<crate::ops::Boolean> |x, y| x & y, T, "Elementwise logical and (bool tensors).";
    try_or<crate::ops::Boolean> |x, y| x | y, T, "Elementwise logical or (bool tensors).";
    try_xor<crate::ops::Boolean> |x, y| x ^ y, T, "Elementwise logical exclusive or (bool tensors).";
}

#[cfg(all(feature = "alloc", any(feature = "std", feature = "libm")))]
impl<T, S: Shape, D: Data<T>> Tensor<T, S, D> {
    /// Elementwise `self.powf(rhs)` for float elements, NUMPY-broadcast.
    pub fn try_pow<S2, E>(
        &self,
        rhs: &Tensor<T, S2, E>,
    ) -> Result<Tensor<T, NumpyOutput<S, S2>>, BroadcastError>
    where
        S2: Shape,
        E: Data<T>,
        S: BroadcastShape<S2, Numpy>,
        T: crate::ops::Float + Default,
    {
        self.try_broadcast_with(rhs, |x, y| x.powf(y))
    }
}

#[cfg(feature = "alloc")]
impl<T, S: Shape, D: Data<T>> Tensor<T, S, D> {
    /// Elementwise `(self - rhs)²`, NUMPY-broadcast.
    pub fn try_squared_difference<S2, E>(
        &self,
        rhs: &Tensor<T, S2, E>,
    ) -> Result<Tensor<T, NumpyOutput<S, S2>>, BroadcastError>
    where
        S2: Shape,
        E: Data<T>,
        S: BroadcastShape<S2, Numpy>,
        T: Copy + Default + ops::Sub<Output = T> + ops::Mul<Output = T>,
    {
        self.try_broadcast_with(rhs, |x, y| {
            let d = x - y;
            d * d
        })
    }
}
