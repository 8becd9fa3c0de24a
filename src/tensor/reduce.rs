//! Reductions over one axis of a static shape, the axis a const generic: `x.sum_axis::<1>()`
//! removes it, `x.sum_keepdims::<1>()` keeps it as 1 so that the result broadcasts back
//! (`&x - &x.mean_keepdims::<2>()`). An axis outside the shape, or an empty axis for `max`,
//! `min`, `argmax` and `argmin`, is a compile error. `sum_to::<S>()` is the adjoint of
//! broadcasting. Nothing allocates: the results are stored like `self` (stack or heap). The
//! kernels are those of `DynTensor`'s reductions (`runtime/reduce.rs`), pairwise float sums
//! included.

use super::result::{ResultStorage, Storable, Stored};
use super::{OwnedIn, Tensor};
use crate::typed::storage::fits_inline;

use core::cmp::Ordering;

use crate::element::{pick, Element, Mean};
use crate::runtime::reduce::{arg_into, extreme_into, prod_axis_into, sum_axis_into, Choice};
use crate::typed::rules::axis_index;
use crate::typed::rules::{
    BroadcastToShape, KeepAxis, KeepDims, NonEmptyAxis, RemoveAxis, WithoutAxis,
};
use crate::typed::shape::{Shape, StaticShape, MAX_STATIC_RANK};
use crate::typed::storage::Data;

/// Below this many elements a static reduction is a loop nest with constant trip counts and
/// strides, which LLVM unrolls (a 4x4 sum over either axis: the hand loop's instructions);
/// above, the shared kernels with pairwise sums. The same threshold as the elementwise kernel.
const SMALL: usize = 4096;

impl<T, S: Shape, D: Data<T>> Tensor<T, S, D> {
    /// The dims left by reducing `axis`: removed when `O` has a lower rank, else kept as 1.
    #[inline(always)]
    fn reduced_dims<O: Shape>(dims: &[usize], axis: usize) -> ([usize; MAX_STATIC_RANK], usize) {
        let mut out = [0usize; MAX_STATIC_RANK];
        let removed = O::RANK < dims.len();
        let mut len = 0;
        for (d, &n) in dims.iter().enumerate() {
            if d == axis && removed {
                continue;
            }
            out[len] = if d == axis { 1 } else { n };
            len += 1;
        }
        (out, len)
    }

    /// For shapes below [`SMALL`]: each output element of `O` (axis `axis` removed, or kept
    /// as 1) folds the elements along the axis in order: `empty` for none, else `first` and
    /// `step`, then `finish` with the axis length. For a static shape every dim and stride is a constant, so it all unrolls.
    #[inline(always)]
    #[track_caller]
    fn fold_small<V, A, O: Storable>(
        &self,
        axis: usize,
        empty: V,
        first: impl Fn(T) -> A,
        step: impl Fn(A, usize, T) -> A,
        finish: impl Fn(A, usize) -> V,
    ) -> Stored<D::Family, V, O>
    where
        T: Copy,
        V: Copy,
    {
        let dims = self.shape.dims();
        let dims = dims.as_ref();
        let data = self.as_slice();
        let n = dims[axis];
        let strides: [usize; MAX_STATIC_RANK] = crate::util::row_major_strides(dims);
        let removed = O::RANK < dims.len();
        let (out_dims, out_rank) = Self::reduced_dims::<O>(dims, axis);
        <O::Kind as ResultStorage<O>>::from_fn::<D::Family, _>(&out_dims[..out_rank], |index| {
            let mut base = 0;
            for (j, &i) in index.iter().enumerate() {
                let d = if removed && j >= axis { j + 1 } else { j };
                base += i * strides[d];
            }
            if n == 0 {
                return empty;
            }
            let mut acc = first(data[base]);
            for k in 1..n {
                acc = step(acc, k, data[base + k * strides[axis]]);
            }
            finish(acc, n)
        })
    }

    /// A reduction over `axis` by the shared kernel `fill` (pairwise sums and the like).
    #[inline(always)]
    #[track_caller]
    pub(super) fn reduce_large<V: Copy, O: Storable>(
        &self,
        axis: usize,
        init: V,
        fill: impl FnOnce(&[T], &[usize], usize, &mut [V]),
    ) -> Stored<D::Family, V, O> {
        let dims = self.shape.dims();
        let dims = dims.as_ref();
        let (out_dims, out_rank) = Self::reduced_dims::<O>(dims, axis);
        <O::Kind as ResultStorage<O>>::filled::<D::Family, V>(&out_dims[..out_rank], init, |out| {
            fill(self.as_slice(), dims, axis, out)
        })
    }

    /// The element count, a constant for a static shape.
    #[inline(always)]
    fn count(&self) -> usize {
        self.shape.element_count()
    }

    /// Panics with the [`EmptyReduction`](crate::ErrorKind::EmptyReduction) error when a `Dyn`
    /// axis turns out empty for a reduction with no identity (a static one cannot compile).
    #[inline(always)]
    #[track_caller]
    fn check_nonempty(&self, axis: usize, op: crate::op::ReduceOp) {
        let dims = self.shape.dims();
        if dims.as_ref()[axis] == 0 {
            let kind = crate::error::ErrorKind::EmptyReduction { axis };
            let op = crate::error::Operation::Reduce { op };
            super::ops::fail(crate::error::Error::new(kind, op, dims.as_ref(), &[]))
        }
    }
}

macro_rules! static_reductions {
    ($(
        $axis_name:ident $keep_name:ident [$($bound:tt)*] ($v:ty, $init:expr) $op:ident
        [$($extra:tt)*] |$data:ident, $dims:ident, $a:ident, $out:ident| $body:expr;
        small($empty:expr, $first:expr, $step:expr, $finish:expr)
        $doc:literal;
    )*) => {
        /// # Reductions over an axis
        ///
        /// Reductions over one axis `A` (R1; `A` counts from 0, or from the end when negative,
        /// `-1` the last axis; a compile error outside the shape). `*_axis` removes the axis,
        /// `*_keepdims` keeps it as 1 (R2). A generic caller writes `O: Storable` for the
        /// result's shape `O` ([`WithoutAxis`](crate::bounds::WithoutAxis)`<S, A>` or
        /// [`KeepDims`](crate::bounds::KeepDims)`<S, A>`, spelled out: `(B,)` for
        /// `(B, Const<N>)` and `A = -1`), and `S: NonEmptyAxis<A>` for `max`, `min`, `argmax`
        /// and `argmin` ([`bounds`](crate::bounds)).
        ///
        /// On mixed shapes the other dims keep their types (a `Dyn` stays `Dyn`) and the
        /// result with a `Dyn` dim is in a `Vec` (feature `alloc`); `max`, `min`, `argmax` and
        /// `argmin` of a `Dyn` axis that turns out empty panic with the
        /// [`EmptyReduction`](crate::ErrorKind::EmptyReduction) error (R3), like the operators
        /// on a runtime mismatch (`DynTensor`'s reductions return it).
        ///
        /// ```
        /// use shaped::{Shape, Tensor};
        /// let x = Tensor::<f32, Shape![2, 3, 4]>::from_fn(|[i, j, k]| (i * 12 + j * 4 + k) as f32);
        /// let m: Tensor<f32, Shape![2, 3, 1]> = x.mean_keepdims::<2>();
        /// let centered = &x - &m;                      // broadcasts back by construction
        /// assert_eq!(centered[[1, 2, 0]], -1.5);
        /// let s: Tensor<f32, Shape![2, 4]> = x.sum_axis::<1>();
        /// assert_eq!(s[[0, 0]], 0.0 + 4.0 + 8.0);
        /// assert_eq!(x.argmax_axis::<0>()[[2, 3]], 1);
        /// # #[cfg(feature = "alloc")] {
        /// let batch: Tensor<f32, Shape![_, 4]> = Tensor::from_shape_vec([3, 4], vec![1.0; 12]).unwrap();
        /// let rows: Tensor<f32, Shape![_]> = batch.sum_axis::<1>();   // the `Dyn` dim stays
        /// assert_eq!(rows.as_slice(), &[4.0; 3]);
        /// let cols: Tensor<f32, Shape![4]> = batch.sum_axis::<0>();   // static again
        /// assert_eq!(cols.as_slice(), &[3.0; 4]);
        /// # }
        /// ```
        impl<T, S: Shape, D: Data<T>> Tensor<T, S, D> {$(
            #[doc = $doc]
            #[doc = ""]
            #[doc = "The axis is removed from the shape."]
            #[inline]
            #[track_caller]
            pub fn $axis_name<const A: isize>(&self) -> Stored<D::Family, $v, WithoutAxis<S, A>>
            where
                S: RemoveAxis<A> $($extra)*,
                WithoutAxis<S, A>: Storable,
                T: $($bound)*,
            {
                fits_inline!(Stored<D::Family, $v, WithoutAxis<S, A>>);
                static_reductions!(@body self, { const { axis_index(A, S::RANK) } }, WithoutAxis<S, A>, $op, $v, $init, [$($extra)*],
                    |$data, $dims, $a, $out| $body, small($empty, $first, $step, $finish))
            }

            #[doc = $doc]
            #[doc = ""]
            #[doc = "The axis is kept as 1, so the result broadcasts against `self`."]
            #[inline]
            #[track_caller]
            pub fn $keep_name<const A: isize>(&self) -> Stored<D::Family, $v, KeepDims<S, A>>
            where
                S: KeepAxis<A> $($extra)*,
                KeepDims<S, A>: Storable,
                T: $($bound)*,
            {
                fits_inline!(Stored<D::Family, $v, KeepDims<S, A>>);
                static_reductions!(@body self, { const { axis_index(A, S::RANK) } }, KeepDims<S, A>, $op, $v, $init, [$($extra)*],
                    |$data, $dims, $a, $out| $body, small($empty, $first, $step, $finish))
            }
        )*}
    };
    (@body $self:ident, $axis:expr, $o:ty, $op:ident, $v:ty, $init:expr, [],
        |$data:ident, $dims:ident, $a:ident, $out:ident| $body:expr,
        small($empty:expr, $first:expr, $step:expr, $finish:expr)) => {{
        if $self.count() < SMALL {
            return $self.fold_small::<$v, _, $o>($axis, $empty, $first, $step, $finish);
        }
        $self.reduce_large::<$v, $o>($axis, $init, |$data, $dims, $a, $out| $body)
    }};
    (@body $self:ident, $axis:expr, $o:ty, $op:ident, $v:ty, $init:expr, [$($extra:tt)+],
        |$data:ident, $dims:ident, $a:ident, $out:ident| $body:expr,
        small($empty:expr, $first:expr, $step:expr, $finish:expr)) => {{
        // No identity: a static empty axis does not compile, a `Dyn` one is checked here.
        $self.check_nonempty($axis, crate::op::ReduceOp::$op);
        static_reductions!(@body $self, $axis, $o, $op, $v, $init, [], |$data, $dims, $a, $out| $body,
            small($empty, $first, $step, $finish))
    }};
}

static_reductions! {
    sum_axis sum_keepdims [Element] (T, T::ZERO) Sum [] |data, dims, a, out| sum_axis_into(data, dims, a, out, T::from_acc);
        small(T::ZERO, |x: T| x.to_acc(), |a, _, x: T| <T::Acc as Element>::add(a, x.to_acc()), |a, _| T::from_acc(a))
        "The sum along axis `A` (integers wrap; floats are summed pairwise, so long axes stay \
         accurate, in [`Element::Acc`]: `f32` for `f16`/`bf16`, each result rounded once). An \
         empty axis sums to 0 (R3).";
    prod_axis prod_keepdims [Element] (T, T::ONE) Prod [] |data, dims, a, out| prod_axis_into(data, dims, a, out, T::from_acc);
        small(T::ONE, |x: T| x.to_acc(), |a, _, x: T| <T::Acc as Element>::mul(a, x.to_acc()), |a, _| T::from_acc(a))
        "The product along axis `A` (integers wrap), in order, in [`Element::Acc`] (`f32` for \
         `f16`/`bf16`, each result rounded once). An empty axis gives 1 (R3).";
    max_axis max_keepdims [Element] (T, T::ZERO) Max [+ NonEmptyAxis<A>] |data, dims, a, out| {
        extreme_into(data, dims, a, out, core::cmp::Ordering::Greater)
    };
        small(T::ZERO, |x| x, |a, _, x| crate::element::pick(a, x, core::cmp::Ordering::Greater), |a, _| a)
        "The largest element along axis `A`, NaN-propagating like `maximum`. An axis of size 0 \
         is a compile error (R3).";
    min_axis min_keepdims [Element] (T, T::ZERO) Min [+ NonEmptyAxis<A>] |data, dims, a, out| {
        extreme_into(data, dims, a, out, core::cmp::Ordering::Less)
    };
        small(T::ZERO, |x| x, |a, _, x| crate::element::pick(a, x, core::cmp::Ordering::Less), |a, _| a)
        "The smallest element along axis `A`, NaN-propagating like `minimum`. An axis of size 0 \
         is a compile error (R3).";
    argmax_axis argmax_keepdims [crate::element::Ordered] (usize, 0) ArgMax [+ NonEmptyAxis<A>] |data, dims, a, out| {
        arg_into(data, dims, a, out, Choice::FirstMax)
    };
        small(0, |x| (0, x), |(b, v): (usize, T), k, x| if Choice::FirstMax.replaces(x, v) { (k, x) } else { (b, v) }, |(b, _), _| b)
        "The index along axis `A` of the first largest element (of the first NaN, if any, as \
         numpy's `argmax`). An axis of size 0 is a compile error (R3).";
    argmax_last_axis argmax_last_keepdims [crate::element::Ordered] (usize, 0) ArgMax [+ NonEmptyAxis<A>] |data, dims, a, out| {
        arg_into(data, dims, a, out, Choice::LastMax)
    };
        small(0, |x| (0, x), |(b, v): (usize, T), k, x| if Choice::LastMax.replaces(x, v) { (k, x) } else { (b, v) }, |(b, _), _| b)
        "The index along axis `A` of the last largest element (of the last NaN, if any; ONNX's \
         `select_last_index=1`, R6). An axis of size 0 is a compile error (R3).";
    argmin_axis argmin_keepdims [crate::element::Ordered] (usize, 0) ArgMin [+ NonEmptyAxis<A>] |data, dims, a, out| {
        arg_into(data, dims, a, out, Choice::FirstMin)
    };
        small(0, |x| (0, x), |(b, v): (usize, T), k, x| if Choice::FirstMin.replaces(x, v) { (k, x) } else { (b, v) }, |(b, _), _| b)
        "The index along axis `A` of the first smallest element (of the first NaN, if any). An \
         axis of size 0 is a compile error (R3).";
    argmin_last_axis argmin_last_keepdims [crate::element::Ordered] (usize, 0) ArgMin [+ NonEmptyAxis<A>] |data, dims, a, out| {
        arg_into(data, dims, a, out, Choice::LastMin)
    };
        small(0, |x| (0, x), |(b, v): (usize, T), k, x| if Choice::LastMin.replaces(x, v) { (k, x) } else { (b, v) }, |(b, _), _| b)
        "The index along axis `A` of the last smallest element (of the last NaN, if any, R6). \
         An axis of size 0 is a compile error (R3).";
    all_axis all_keepdims [crate::element::Boolean + PartialEq + From<bool> + Send + Sync] (T, T::from(true)) All [] |data, dims, a, out| {
        crate::runtime::reduce::fold_axis_into(data, dims, a, out, T::from(true), |_, v| v, |p, _, v| p & v)
    };
        small(T::from(true), |x| x, |a, _, x| a & x, |a, _| a)
        "Whether every element along axis `A` is `true` (`true` for an empty axis, R3).";
    any_axis any_keepdims [crate::element::Boolean + PartialEq + From<bool> + Send + Sync] (T, T::from(false)) Any [] |data, dims, a, out| {
        crate::runtime::reduce::fold_axis_into(data, dims, a, out, T::from(false), |_, v| v, |p, _, v| p | v)
    };
        small(T::from(false), |x| x, |a, _, x| a | x, |a, _| a)
        "Whether some element along axis `A` is `true` (`false` for an empty axis, R3).";
}

/// # Reductions over an axis: means
///
/// The mean along axis `A` (R1, R2): for floats the pairwise sum over the count, NaN for an
/// empty axis (R3); for integers the wrapping sum over the count, truncated toward zero
/// (ONNX's `ReduceMean`; see [`Mean`]), and an empty axis has no integer mean: a static one
/// of size 0 panics with the [`EmptyReduction`](crate::ErrorKind::EmptyReduction) error, as
/// does a `Dyn` one that turns out empty.
///
/// ```
/// use shaped::{Shape, Tensor};
/// let x = Tensor::<i32, Shape![2, 3]>::from([[1, 2, 4], [-1, -2, -4]]);
/// assert_eq!(x.mean_axis::<1>().as_slice(), &[2, -2]);
/// let f = Tensor::<f32, Shape![2, 3]>::from([[1.0, 2.0, 4.0], [-1.0, -2.0, -4.0]]);
/// assert_eq!(f.mean_keepdims::<0>().as_slice(), &[0.0; 3]);
/// ```
impl<T: Mean, S: Shape, D: Data<T>> Tensor<T, S, D> {
    /// The mean along axis `A`, which is removed.
    #[inline]
    #[track_caller]
    pub fn mean_axis<const A: isize>(&self) -> Stored<D::Family, T, WithoutAxis<S, A>>
    where
        S: RemoveAxis<A>,
        WithoutAxis<S, A>: Storable,
    {
        fits_inline!(Stored<D::Family, T, WithoutAxis<S, A>>);
        self.mean_over::<WithoutAxis<S, A>>(const { axis_index(A, S::RANK) })
    }

    /// The mean along axis `A`, which is kept as 1, so the result broadcasts against `self`.
    #[inline]
    #[track_caller]
    pub fn mean_keepdims<const A: isize>(&self) -> Stored<D::Family, T, KeepDims<S, A>>
    where
        S: KeepAxis<A>,
        KeepDims<S, A>: Storable,
    {
        fits_inline!(Stored<D::Family, T, KeepDims<S, A>>);
        self.mean_over::<KeepDims<S, A>>(const { axis_index(A, S::RANK) })
    }

    #[inline(always)]
    #[track_caller]
    fn mean_over<O: Storable>(&self, axis: usize) -> Stored<D::Family, T, O> {
        // Floats have a mean of nothing (NaN); integers do not.
        let empty = T::mean_of(<T::Acc as Element>::ZERO, 0);
        if empty.is_none() {
            self.check_nonempty(axis, crate::op::ReduceOp::Mean);
        }
        let empty = empty.unwrap_or(T::ZERO);
        if self.count() < SMALL {
            return self.fold_small::<T, _, O>(
                axis,
                empty,
                |x| x.to_acc(),
                |a, _, x| <T::Acc as Element>::add(a, x.to_acc()),
                move |a, n| T::mean_of(a, n).unwrap_or(empty),
            );
        }
        self.reduce_large::<T, O>(axis, T::ZERO, |data, dims, a, out| {
            // The axis has elements here: this many are past `SMALL`.
            let n = dims[a];
            sum_axis_into(data, dims, a, out, |s| {
                T::mean_of(s, n).unwrap_or_else(|| T::from_acc(s))
            });
        })
    }
}

/// # Reductions over an axis: from an initial value
///
/// `max` and `min` over axis `A` folded from `initial` (numpy's `initial=`, R3): an empty
/// axis gives `initial`, a `Dyn` one too, so these have no `NonEmptyAxis` bound and never
/// panic. `initial` counts as the first element (NaN-propagating like `max_axis`).
///
/// ```
/// use shaped::{Shape, Tensor};
/// let x = Tensor::<i32, Shape![2, 3]>::from([[1, 7, 3], [-4, -2, -9]]);
/// assert_eq!(x.max_axis_initial::<1>(0).as_slice(), &[7, 0]);
/// assert_eq!(x.min_keepdims_initial::<0>(i32::MAX).as_slice(), &[-4, -2, -9]);
/// let e = Tensor::<f32, Shape![2, 0]>::from([[], []]);
/// assert_eq!(e.max_axis_initial::<1>(f32::NEG_INFINITY).as_slice(), &[f32::NEG_INFINITY; 2]);
/// ```
impl<T: crate::element::Ordered, S: Shape, D: Data<T>> Tensor<T, S, D> {
    /// The largest of `initial` and the elements along axis `A`, which is removed.
    #[inline]
    pub fn max_axis_initial<const A: isize>(
        &self,
        initial: T,
    ) -> Stored<D::Family, T, WithoutAxis<S, A>>
    where
        S: RemoveAxis<A>,
        WithoutAxis<S, A>: Storable,
    {
        fits_inline!(Stored<D::Family, T, WithoutAxis<S, A>>);
        let axis = const { axis_index(A, S::RANK) };
        self.extreme_from::<WithoutAxis<S, A>>(axis, initial, Ordering::Greater)
    }

    /// The largest of `initial` and the elements along axis `A`, which is kept as 1.
    #[inline]
    pub fn max_keepdims_initial<const A: isize>(
        &self,
        initial: T,
    ) -> Stored<D::Family, T, KeepDims<S, A>>
    where
        S: KeepAxis<A>,
        KeepDims<S, A>: Storable,
    {
        fits_inline!(Stored<D::Family, T, KeepDims<S, A>>);
        let axis = const { axis_index(A, S::RANK) };
        self.extreme_from::<KeepDims<S, A>>(axis, initial, Ordering::Greater)
    }

    /// The smallest of `initial` and the elements along axis `A`, which is removed.
    #[inline]
    pub fn min_axis_initial<const A: isize>(
        &self,
        initial: T,
    ) -> Stored<D::Family, T, WithoutAxis<S, A>>
    where
        S: RemoveAxis<A>,
        WithoutAxis<S, A>: Storable,
    {
        fits_inline!(Stored<D::Family, T, WithoutAxis<S, A>>);
        let axis = const { axis_index(A, S::RANK) };
        self.extreme_from::<WithoutAxis<S, A>>(axis, initial, Ordering::Less)
    }

    /// The smallest of `initial` and the elements along axis `A`, which is kept as 1.
    #[inline]
    pub fn min_keepdims_initial<const A: isize>(
        &self,
        initial: T,
    ) -> Stored<D::Family, T, KeepDims<S, A>>
    where
        S: KeepAxis<A>,
        KeepDims<S, A>: Storable,
    {
        fits_inline!(Stored<D::Family, T, KeepDims<S, A>>);
        let axis = const { axis_index(A, S::RANK) };
        self.extreme_from::<KeepDims<S, A>>(axis, initial, Ordering::Less)
    }

    /// One fold from `initial` per output: in order below [`SMALL`], else the shared kernel's
    /// extreme then `pick` against `initial` (the same bits: `pick`'s choice of the first
    /// preferred element is associative).
    #[inline(always)]
    fn extreme_from<O: Storable>(
        &self,
        axis: usize,
        initial: T,
        keep: Ordering,
    ) -> Stored<D::Family, T, O> {
        if self.count() < SMALL {
            return self.fold_small::<T, _, O>(
                axis,
                initial,
                move |x| pick(initial, x, keep),
                move |a, _, x| pick(a, x, keep),
                |a, _| a,
            );
        }
        self.reduce_large::<T, O>(axis, initial, |data, dims, a, out| {
            extreme_into(data, dims, a, out, keep);
            for o in out {
                *o = pick(initial, *o, keep);
            }
        })
    }
}

/// # Reductions: to a broadcast source's shape
impl<T: Element, S: StaticShape, D: Data<T>> Tensor<T, S, D> {
    /// The adjoint of NUMPY broadcasting: sums every axis that broadcasting `Target` to this
    /// shape would have stretched, so `a.broadcast_to::<S>().sum_to::<A>()` is `a` times the
    /// stretch factor (the gradient of a broadcast). `Target` must broadcast to this shape
    /// (one-directionally, B5): a compile error otherwise, naming both dims.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let g = Tensor::<i32, Shape![2, 3, 2]>::from_fn(|[i, j, k]| (i * 6 + j * 2 + k + 1) as i32);
    /// let s: Tensor<i32, Shape![3, 1]> = g.sum_to::<Shape![3, 1]>();
    /// assert_eq!(s.as_slice(), &[1 + 2 + 7 + 8, 3 + 4 + 9 + 10, 5 + 6 + 11 + 12]);
    /// ```
    pub fn sum_to<Target>(&self) -> OwnedIn<D::Family, T, Target>
    where
        Target: StaticShape + BroadcastToShape<S>,
    {
        fits_inline!(OwnedIn<D::Family, T, Target>);
        // The axes that broadcasting stretches, each summed in turn (highest first): from this
        // tensor into two buffers of its size by turns, kept as 1s, then the last into the
        // result. The buffers hold accumulators (`f32` for `f16`/`bf16`), so each result is
        // rounded once, however many axes are summed.
        let mask = crate::rules::sum_to_axes(S::DIMS, Target::DIMS).unwrap_or(0);
        let mut out = OwnedIn::<D::Family, T, Target>::from_fn(|_| T::ZERO);
        if mask == 0 {
            out.as_mut_slice()
                .copy_from_slice(&self.as_slice()[..Target::LEN]);
            return out;
        }
        let zero = <T::Acc as Element>::ZERO;
        let mut a = OwnedIn::<D::Family, T::Acc, S>::from_fn(|_| zero);
        let mut b = OwnedIn::<D::Family, T::Acc, S>::from_fn(|_| zero);
        let mut dims = [0usize; crate::typed::shape::MAX_STATIC_RANK];
        dims[..S::RANK].copy_from_slice(S::DIMS);
        let (last, mut len, mut first) = (mask.trailing_zeros() as usize, S::LEN, true);
        for axis in (0..S::RANK).rev().filter(|&ax| mask & (1 << ax) != 0) {
            let dims_now = &dims[..S::RANK];
            let (outer, _, inner) = crate::runtime::reduce::split(dims_now, axis);
            let out_len = outer * inner;
            let from = &a.as_slice()[..len];
            match (axis == last, first) {
                (true, true) => sum_axis_into(
                    self.as_slice(),
                    dims_now,
                    axis,
                    out.as_mut_slice(),
                    T::from_acc,
                ),
                (true, false) => {
                    sum_axis_into(from, dims_now, axis, out.as_mut_slice(), T::from_acc)
                }
                (false, true) => sum_axis_into(
                    self.as_slice(),
                    dims_now,
                    axis,
                    &mut b.as_mut_slice()[..out_len],
                    |x| x,
                ),
                (false, false) => sum_axis_into(
                    from,
                    dims_now,
                    axis,
                    &mut b.as_mut_slice()[..out_len],
                    |x| x,
                ),
            }
            len = out_len;
            first = false;
            dims[axis] = 1;
            core::mem::swap(&mut a, &mut b);
        }
        out
    }
}
