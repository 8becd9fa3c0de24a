//! Reductions over one axis of a static shape, the axis a const generic: `x.sum_axis::<1>()`
//! removes it, `x.sum_keepdims::<1>()` keeps it as 1 so that the result broadcasts back
//! (`&x - &x.mean_keepdims::<2>()`). An axis outside the shape, or an empty axis for `max`,
//! `min`, `argmax` and `argmin`, is a compile error. `sum_to::<S>()` is the adjoint of
//! broadcasting. Nothing allocates: the results are stored like `self` (stack or heap). The
//! kernels are those of `DynTensor`'s reductions (`runtime/reduce.rs`), pairwise float sums
//! included.

use super::{OwnedIn, Tensor};

/// NaN test for any `PartialOrd` element: NaN is the one value not equal to itself.
#[inline(always)]
#[allow(clippy::eq_op)]
fn is_nan<T: PartialOrd>(x: T) -> bool {
    x != x
}
use crate::element::{Element, Real};
use crate::runtime::reduce::{arg_into, extreme_into, sum_axis_into};
use crate::typed::rules::{BroadcastToShape, KeepAxis, NonEmptyAxis, RemoveAxis};
use crate::typed::shape::StaticShape;
use crate::typed::storage::Data;

/// Below this many elements a static reduction is a loop nest with constant trip counts and
/// strides, which LLVM unrolls (a 4x4 sum over either axis: the hand loop's instructions);
/// above, the shared kernels with pairwise sums. The same threshold as the elementwise kernel.
const SMALL: usize = 4096;

impl<T, S: StaticShape, D: Data<T>> Tensor<T, S, D> {
    /// A result of shape `O` whose elements `fill` writes (each of them).
    #[inline(always)]
    fn reduced<V: Copy, O: StaticShape, F>(init: V, fill: impl FnOnce(&mut [V])) -> OwnedIn<F, V, O>
    where
        F: crate::typed::storage::Family,
    {
        let mut out = OwnedIn::<F, V, O>::from_fn(|_| init);
        fill(out.as_mut_slice());
        out
    }

    /// For shapes below [`SMALL`]: each output element of `O` (axis `A` removed, or kept as 1)
    /// folds the elements along the axis in order: `empty` for none, else `first` and `step`.
    /// Every stride is a constant, so the whole reduction unrolls.
    #[inline(always)]
    fn fold_small<V, A, O: StaticShape, F>(
        &self,
        axis: usize,
        empty: V,
        first: impl Fn(T) -> A,
        step: impl Fn(A, usize, T) -> A,
        finish: impl Fn(A) -> V,
    ) -> OwnedIn<F, V, O>
    where
        T: Copy,
        V: Copy,
        F: crate::typed::storage::Family,
    {
        let data = &self.as_slice()[..S::LEN];
        let n = S::DIMS[axis];
        // Row-major strides of `S`; the output's coordinates skip `axis` when it is removed.
        let mut strides = [0usize; crate::typed::shape::MAX_STATIC_RANK];
        let mut step_size = 1;
        for d in (0..S::RANK).rev() {
            strides[d] = step_size;
            step_size *= S::DIMS[d];
        }
        let removed = O::RANK < S::RANK;
        OwnedIn::<F, V, O>::from_fn(|index| {
            let index = index.as_ref();
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
            finish(acc)
        })
    }
}

macro_rules! static_reductions {
    ($(
        $axis_name:ident $keep_name:ident [$($bound:tt)*] ($v:ty, $init:expr)
        [$($extra:tt)*] |$data:ident, $a:ident, $out:ident| $body:expr;
        small($empty:expr, $first:expr, $step:expr, $finish:expr)
        $doc:literal;
    )*) => {
        /// Reductions over one axis `A` of a static shape (`A` counts from 0; a compile error
        /// outside the shape). `*_axis` removes the axis, `*_keepdims` keeps it as 1.
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
        /// ```
        impl<T, S: StaticShape, D: Data<T>> Tensor<T, S, D> {$(
            #[doc = $doc]
            #[doc = ""]
            #[doc = "The axis is removed from the shape."]
            #[inline]
            pub fn $axis_name<const A: usize>(&self) -> OwnedIn<D::Family, $v, <S as RemoveAxis<A>>::Output>
            where
                S: RemoveAxis<A> $($extra)*,
                <S as RemoveAxis<A>>::Output: StaticShape,
                T: $($bound)*,
            {
                if S::LEN < SMALL {
                    return self.fold_small::<$v, _, _, D::Family>(A, $empty, $first, $step, $finish);
                }
                let $data = self.as_slice();
                let $a = A;
                Self::reduced::<$v, _, D::Family>($init, |$out| $body)
            }

            #[doc = $doc]
            #[doc = ""]
            #[doc = "The axis is kept as 1, so the result broadcasts against `self`."]
            #[inline]
            pub fn $keep_name<const A: usize>(&self) -> OwnedIn<D::Family, $v, <S as KeepAxis<A>>::Output>
            where
                S: KeepAxis<A> $($extra)*,
                <S as KeepAxis<A>>::Output: StaticShape,
                T: $($bound)*,
            {
                if S::LEN < SMALL {
                    return self.fold_small::<$v, _, _, D::Family>(A, $empty, $first, $step, $finish);
                }
                let $data = self.as_slice();
                let $a = A;
                Self::reduced::<$v, _, D::Family>($init, |$out| $body)
            }
        )*}
    };
}

static_reductions! {
    sum_axis sum_keepdims [Element] (T, T::ZERO) [] |data, a, out| sum_axis_into(data, S::DIMS, a, out);
        small(T::ZERO, |x| x, |a, _, x| <T as Element>::add(a, x), |a| a)
        "The sum along axis `A` (integers wrap; floats are summed pairwise, so long axes stay \
         accurate). An empty axis sums to 0.";
    mean_axis mean_keepdims [Real] (T, T::ZERO) [] |data, a, out| {
        sum_axis_into(data, S::DIMS, a, out);
        let n = T::from_f64(S::DIMS[a] as f64);
        for x in out {
            *x = *x / n;
        }
    };
        small(T::from_f64(f64::NAN), |x| x, |a, _, x| <T as Element>::add(a, x), |a| a / T::from_f64(S::DIMS[A] as f64))
        "The mean along axis `A` (NaN for an empty axis).";
    prod_axis prod_keepdims [Element] (T, T::ONE) [] |data, a, out| {
        crate::runtime::reduce::fold_axis_into(data, S::DIMS, a, out, T::ONE, |_, v| v, |p, _, v| T::mul(p, v))
    };
        small(T::ONE, |x| x, |a, _, x| <T as Element>::mul(a, x), |a| a)
        "The product along axis `A` (integers wrap). An empty axis gives 1.";
    max_axis max_keepdims [Element] (T, T::ZERO) [+ NonEmptyAxis<A>] |data, a, out| {
        extreme_into(data, S::DIMS, a, out, core::cmp::Ordering::Greater)
    };
        small(T::ZERO, |x| x, |a, _, x| crate::element::pick(a, x, core::cmp::Ordering::Greater), |a| a)
        "The largest element along axis `A`, NaN-propagating like `maximum`. An axis of size 0 \
         is a compile error.";
    min_axis min_keepdims [Element] (T, T::ZERO) [+ NonEmptyAxis<A>] |data, a, out| {
        extreme_into(data, S::DIMS, a, out, core::cmp::Ordering::Less)
    };
        small(T::ZERO, |x| x, |a, _, x| crate::element::pick(a, x, core::cmp::Ordering::Less), |a| a)
        "The smallest element along axis `A`, NaN-propagating like `minimum`. An axis of size 0 \
         is a compile error.";
    argmax_axis argmax_keepdims [PartialOrd + Copy] (usize, 0) [+ NonEmptyAxis<A>] |data, a, out| {
        arg_into(data, S::DIMS, a, out, |x, best| x > best)
    };
        small(0, |x| (0, x), |(b, v): (usize, T), k, x| if is_nan(v) || !(is_nan(x) || x > v) { (b, v) } else { (k, x) }, |(b, _)| b)
        "The index along axis `A` of the first largest element (of the first NaN, if any, as \
         numpy's `argmax`). An axis of size 0 is a compile error.";
    argmin_axis argmin_keepdims [PartialOrd + Copy] (usize, 0) [+ NonEmptyAxis<A>] |data, a, out| {
        arg_into(data, S::DIMS, a, out, |x, best| x < best)
    };
        small(0, |x| (0, x), |(b, v): (usize, T), k, x| if is_nan(v) || !(is_nan(x) || x < v) { (b, v) } else { (k, x) }, |(b, _)| b)
        "The index along axis `A` of the first smallest element (of the first NaN, if any). An \
         axis of size 0 is a compile error.";
    all_axis all_keepdims [crate::element::Boolean + PartialEq + From<bool>] (T, T::from(true)) [] |data, a, out| {
        crate::runtime::reduce::fold_axis_into(data, S::DIMS, a, out, T::from(true), |_, v| v, |p, _, v| p & v)
    };
        small(T::from(true), |x| x, |a, _, x| a & x, |a| a)
        "Whether every element along axis `A` is `true` (`true` for an empty axis).";
    any_axis any_keepdims [crate::element::Boolean + PartialEq + From<bool>] (T, T::from(false)) [] |data, a, out| {
        crate::runtime::reduce::fold_axis_into(data, S::DIMS, a, out, T::from(false), |_, v| v, |p, _, v| p | v)
    };
        small(T::from(false), |x| x, |a, _, x| a | x, |a| a)
        "Whether some element along axis `A` is `true` (`false` for an empty axis).";
}

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
        // The axes that broadcasting stretches, each summed in turn (highest first) between two
        // buffers of this tensor's size, kept as 1s; the result has the target's elements.
        let mask = crate::rules::sum_to_axes(S::DIMS, Target::DIMS).unwrap_or(0);
        let mut a = OwnedIn::<D::Family, T, S>::from_fn(|_| T::ZERO);
        let mut b = OwnedIn::<D::Family, T, S>::from_fn(|_| T::ZERO);
        a.as_mut_slice().copy_from_slice(self.as_slice());
        let mut dims = [0usize; crate::typed::shape::MAX_STATIC_RANK];
        dims[..S::RANK].copy_from_slice(S::DIMS);
        let mut len = S::LEN;
        for axis in (0..S::RANK).rev().filter(|&ax| mask & (1 << ax) != 0) {
            let dims_now = &dims[..S::RANK];
            let (outer, _, inner) = crate::runtime::reduce::split(dims_now, axis);
            let out_len = outer * inner;
            sum_axis_into(
                &a.as_slice()[..len],
                dims_now,
                axis,
                &mut b.as_mut_slice()[..out_len],
            );
            len = out_len;
            dims[axis] = 1;
            core::mem::swap(&mut a, &mut b);
        }
        let mut out = OwnedIn::<D::Family, T, Target>::from_fn(|_| T::ZERO);
        out.as_mut_slice()
            .copy_from_slice(&a.as_slice()[..Target::LEN]);
        out
    }
}
