//! Shape manipulation of typed tensors (rules M1-M7), every shape decided at compile time.
//!
//! `reshape`, `flatten`, `insert_axis` and `squeeze` keep the row-major order, so they are
//! views over the same elements ([`TensorView`], usable wherever a tensor is: every
//! elementwise operation, the binary primitive). `permute`, `transpose`, `narrow`, `concat`
//! and `stack` reorder or gather elements, so they build a tensor stored like `self` (a typed
//! tensor is always contiguous; `DynTensor::strided` gives zero-copy strided views at run
//! time). The misuses are compile errors: a reshape that changes the count, squeezing a dim
//! that is not 1, an axis out of range, a range past the end, a permutation that repeats an
//! axis, a concat with other dims unequal.

use super::{JoinOf, OwnedIn, Tensor, TensorView, TensorViewMut};
use crate::typed::dim::Const;
use crate::typed::rules::{
    axis_index, Concat, Concatenated, Flatten, InsertAxis, Narrow, Narrowed, Permute, RemoveAxis,
    ReshapeInto, Reverse, SqueezeAxis, Step, Stepped, TransposeIf, Transposed, WithAxis,
    WithoutAxis,
};
use crate::typed::shape::{Shape, StaticShape, MAX_STATIC_RANK};
use crate::typed::storage::fits_inline;
use crate::typed::storage::{Build, Data, DataMut, Family};
use crate::util::{fill_out_of_line, large, row_major_strides, Push};
#[cfg(feature = "alloc")]
use crate::{error::Error, typed::dim::Dyn, typed::rules::ReplaceAxis};
use core::mem::MaybeUninit;

/// The axes `0, 1, .., rank - 1` with the last two swapped (none below rank 2): the
/// permutation of `transpose`.
const fn swap_last_two(rank: usize) -> [usize; MAX_STATIC_RANK] {
    let mut axes = [0usize; MAX_STATIC_RANK];
    let mut i = 0;
    while i < MAX_STATIC_RANK {
        axes[i] = i;
        i += 1;
    }
    if rank >= 2 {
        axes[rank - 2] = rank - 1;
        axes[rank - 1] = rank - 2;
    }
    axes
}

/// The row-major offset of `index` under `strides`, the index along axis `a` mapped by `at`
/// first: the source element of `step` (`i * STEP`), `flip` (`n - 1 - i`) and the pads.
#[inline(always)]
pub(super) fn offset_along(
    index: &[usize],
    strides: &[usize],
    a: usize,
    at: impl Fn(usize) -> usize,
) -> usize {
    index
        .iter()
        .zip(strides)
        .enumerate()
        .map(|(k, (&i, &s))| if k == a { at(i) * s } else { i * s })
        .sum()
}

/// A static result of shape `Out` holding `data[at(index)]` at each multi-index, `data` being
/// the `S::LEN` elements of a tensor of shape `S` (the gathers: `permute`, `narrow`, the
/// pads). A large result is written out of line ([`fill_out_of_line`]); `at` names its
/// constants inside rather than capturing them, since there a captured stride is a load and
/// its index a bounds check (a head split's permute took 5.4 instructions an element that
/// way).
#[inline(always)]
pub(super) fn gathered<F, T, S, Out, G>(data: &[T], at: G) -> OwnedIn<F, T, Out>
where
    F: Family,
    T: Clone,
    S: StaticShape,
    Out: StaticShape,
    G: Fn(&[usize]) -> usize,
{
    if const { !large::<T>(Out::LEN) } {
        let data = &data[..S::LEN];
        return OwnedIn::<F, T, Out>::from_fn(|index| data[at(index.as_ref())].clone());
    }
    let fill = |slots: &mut [MaybeUninit<T>], (data, at): (&[T], G)| {
        let data = &data[..S::LEN];
        let mut out = Push::new(slots);
        Out::for_each_index(|index| {
            let value = data[at(index.as_ref())].clone();
            // SAFETY: `for_each_index` visits each of the `Out::LEN` indices once, so at most
            // `Out::LEN` values are pushed into the `Out::LEN` slots.
            unsafe { out.push(value) };
        });
        // SAFETY: `for_each_index` visits all `Out::LEN` indices, so every slot was pushed.
        unsafe { out.finish() };
    };
    // SAFETY: `fill` pushed all `Out::LEN` slots before `finish`.
    let storage = unsafe {
        <F::Owned<T, Out> as Build<T, Out>>::build_written(|slots| {
            fill_out_of_line(slots, (data, at), fill)
        })
    };
    Tensor::from_parts(storage, Out::default())
}

/// A static result of shape `Out` holding `data[Σ index[a] * strides[a]]` at each multi-index
/// (`data` the `S::LEN` elements of a tensor of shape `S`, `strides` the source stride of each
/// output axis): the gathers whose source is a strided view, `permute`, `narrow` (`data`
/// starting at the first element taken) and `step`. A small result is built as
/// [`gathered`] builds it; a large one is written out of line row by row
/// ([`push_strided`]): in a head split's permute `[2, 16, 4, 16] -> [2, 4, 16, 16]` of
/// `f32`, the offset of every element computed from its multi-index cost 72 K instructions,
/// the rows 2.6 K (a hand loop 2.4 K; `benches/numerics_probe.rs`).
#[inline(always)]
fn strided<F, T, S, Out>(data: &[T], strides: [usize; MAX_STATIC_RANK]) -> OwnedIn<F, T, Out>
where
    F: Family,
    T: Clone,
    S: StaticShape,
    Out: StaticShape,
{
    if const { !large::<T>(Out::LEN) } {
        return gathered::<F, T, S, Out, _>(data, |index| {
            index
                .iter()
                .zip(&strides)
                .map(|(&i, &s)| i * s)
                .sum::<usize>()
        });
    }
    let fill = |slots: &mut [MaybeUninit<T>], (data, strides): (&[T], [usize; MAX_STATIC_RANK])| {
        let mut out = Push::new(slots);
        push_strided(data, Out::DIMS, &strides[..Out::RANK], &mut out);
        // SAFETY: `push_strided` pushes one value per multi-index of `Out::DIMS` (none when a
        // dim is 0), so all `Out::LEN` slots were pushed.
        unsafe { out.finish() };
    };
    // SAFETY: `fill` pushed all `Out::LEN` slots before `finish`.
    let storage = unsafe {
        <F::Owned<T, Out> as Build<T, Out>>::build_written(|slots| {
            fill_out_of_line(slots, (data, strides), fill)
        })
    };
    Tensor::from_parts(storage, Out::default())
}

/// Pushes `data[Σ index[a] * strides[a]]` for each multi-index of `dims` in row-major order
/// (`dims.len() == strides.len()`, at most [`MAX_STATIC_RANK`], every offset inside `data`,
/// `out` with room for the product of `dims`). The trailing axes that are adjacent in `data`
/// make one row; a row of stride 1 is a slice copied in one loop that vectorizes, and the
/// rows' offsets move by additions (an odometer), not a sum of products per element.
#[inline]
fn push_strided<T: Clone>(data: &[T], dims: &[usize], strides: &[usize], out: &mut Push<T>) {
    let Some(last) = dims.len().checked_sub(1) else {
        // SAFETY: a rank-0 result has one slot.
        unsafe { out.push(data[0].clone()) };
        return;
    };
    if dims.contains(&0) {
        return;
    }
    // The row: the last axis, with every axis before it whose stride steps over exactly it.
    let step = strides[last];
    let (mut row, mut first) = (dims[last], last);
    while first > 0 && strides[first - 1] == row * step {
        first -= 1;
        row *= dims[first];
    }
    let mut index = [0usize; MAX_STATIC_RANK];
    let mut base = 0usize;
    loop {
        if step == 1 {
            for v in &data[base..base + row] {
                // SAFETY: each multi-index of `dims` is visited once, so at most the product
                // of `dims` values are pushed, the slots there are (this function's contract).
                unsafe { out.push(v.clone()) };
            }
        } else {
            for k in 0..row {
                // SAFETY: as above.
                unsafe { out.push(data[base + k * step].clone()) };
            }
        }
        // The next row: the odometer over the axes before it, the last moving fastest.
        let mut a = first;
        loop {
            if a == 0 {
                return;
            }
            a -= 1;
            index[a] += 1;
            base += strides[a];
            if index[a] < dims[a] {
                break;
            }
            // Back to 0 on this axis: `base` holds `dims[a]` steps of it.
            base -= strides[a] * dims[a];
            index[a] = 0;
        }
    }
}

/// The shape value of `Out` for `dims`, which the type-level rule has already proven right.
#[inline(always)]
fn shape_of<Out: Shape>(dims: &[usize]) -> Out {
    match Out::from_dims(dims) {
        Some(s) => s,
        None => unreachable!("the output shape type is derived from these dims"),
    }
}

/// # Shape manipulation: views
///
/// Reshapes and axes added or removed, as views of the same elements (no copy). A generic
/// caller writes the rule each method names: `S: ReshapeInto<Target>`, `S: Flatten`,
/// `S: InsertAxis<A, Const<1>>`, `S: SqueezeAxis<A>` ([`bounds`](crate::bounds)).
impl<T, S: Shape, D: Data<T>> Tensor<T, S, D> {
    /// The same elements under the static shape `Target`, which must have the same element
    /// count: a compile error otherwise (M1). No copy.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<i32, Shape![2, 3, 4]>::from_fn(|[i, j, k]| (i * 12 + j * 4 + k) as i32);
    /// let r = x.reshape::<Shape![6, 4]>();
    /// assert_eq!(r[[5, 3]], 23);
    /// let y = &r + 1;                                   // a view is an operand like any tensor
    /// assert_eq!(y[[0, 0]], 1);
    /// ```
    ///
    /// ```compile_fail
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<i32, Shape![2, 3, 4]>::zeros();
    /// let r = x.reshape::<Shape![5, 5]>();              // 24 elements vs 25
    /// ```
    #[inline]
    pub fn reshape<Target: StaticShape>(&self) -> TensorView<'_, T, Target>
    where
        S: ReshapeInto<Target>,
    {
        Tensor::from_parts(self.as_slice(), Target::default())
    }

    /// [`reshape`](Self::reshape), writable. No copy.
    #[inline]
    pub fn reshape_mut<Target: StaticShape>(&mut self) -> TensorViewMut<'_, T, Target>
    where
        S: ReshapeInto<Target>,
        D: DataMut<T>,
    {
        Tensor::from_parts(self.as_mut_slice(), Target::default())
    }

    /// The elements as one static dim (M1). No copy. The count must be in the static-dim
    /// table; [`reshape`](Self::reshape) to `Shape![N]` names it otherwise.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<i32, Shape![2, 3]>::from_fn(|[i, j]| (i * 3 + j) as i32);
    /// let f: shaped::TensorView<i32, Shape![6]> = x.flatten();
    /// assert_eq!(f.as_slice(), &[0, 1, 2, 3, 4, 5]);
    /// ```
    #[inline]
    pub fn flatten(&self) -> TensorView<'_, T, <S as Flatten>::Output>
    where
        S: Flatten,
        <S as Flatten>::Output: StaticShape,
    {
        Tensor::from_parts(self.as_slice(), Default::default())
    }

    /// A dim of 1 inserted before axis `A` (`0..=rank`, or negative from the end of the
    /// result, `-1` making it the last; M3). No copy; works on mixed shapes.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<i32, Shape![2, 3]>::zeros();
    /// let y: shaped::TensorView<i32, Shape![2, 1, 3]> = x.insert_axis::<1>();
    /// let back: shaped::TensorView<i32, Shape![2, 3]> = y.squeeze::<1>();
    /// # let _ = back;
    /// ```
    #[inline]
    pub fn insert_axis<const A: isize>(&self) -> TensorView<'_, T, WithAxis<S, A, Const<1>>>
    where
        S: InsertAxis<A, Const<1>>,
    {
        let a = const { axis_index(A, S::RANK + 1) };
        let dims = self.shape.dims();
        let dims = dims.as_ref();
        let mut out = [1usize; crate::typed::shape::MAX_STATIC_RANK];
        out[..a].copy_from_slice(&dims[..a]);
        out[a + 1..=dims.len()].copy_from_slice(&dims[a..]);
        Tensor::from_parts(self.as_slice(), shape_of(&out[..=dims.len()]))
    }

    /// Axis `A` removed, which must be a static 1: squeezing any other dim is a compile error
    /// (M3). No copy; works on mixed shapes.
    ///
    /// ```compile_fail
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<i32, Shape![2, 3]>::zeros();
    /// let y = x.squeeze::<1>();                         // axis 1 is 3, not 1
    /// ```
    #[inline]
    pub fn squeeze<const A: isize>(&self) -> TensorView<'_, T, WithoutAxis<S, A>>
    where
        S: RemoveAxis<A> + SqueezeAxis<A>,
    {
        let a = const { axis_index(A, S::RANK) };
        let dims = self.shape.dims();
        let dims = dims.as_ref();
        let mut out = [0usize; crate::typed::shape::MAX_STATIC_RANK];
        out[..a].copy_from_slice(&dims[..a]);
        out[a..dims.len() - 1].copy_from_slice(&dims[a + 1..]);
        Tensor::from_parts(self.as_slice(), shape_of(&out[..dims.len() - 1]))
    }
}

/// # Shape manipulation: copies
///
/// Permutations, slices, joins and stacks of static tensors, checked at compile time, into new
/// tensors stored like `self`. A generic caller writes the rule each method names
/// (`Permute<P>`, `Reverse`, `TransposeIf<true>`, `Narrow<A, START, LEN>`, `Concat<A, R>`,
/// `InsertAxis<A, Const<N>>`, all in [`bounds`](crate::bounds)).
impl<T: Clone, S: StaticShape, D: Data<T>> Tensor<T, S, D> {
    /// The axes reordered by `P`, written [`Axes!`](crate::Axes!): output axis `i` is axis
    /// `P[i]`, and `P` must name every axis once (M4), a compile error otherwise. Builds a
    /// tensor stored like `self`.
    ///
    /// ```
    /// use shaped::{Axes, Shape, Tensor};
    /// let nchw = Tensor::<i32, Shape![1, 3, 2, 2]>::from_fn(|[_, c, h, w]| (c * 100 + h * 10 + w) as i32);
    /// let nhwc: Tensor<i32, Shape![1, 2, 2, 3]> = nchw.permute::<Axes![0, 2, 3, 1]>();
    /// assert_eq!(nhwc[[0, 1, 0, 2]], 210);
    /// ```
    ///
    /// ```compile_fail
    /// use shaped::{Axes, Shape, Tensor};
    /// let x = Tensor::<i32, Shape![2, 3]>::zeros();
    /// let y = x.permute::<Axes![0, 0]>();               // axis 0 twice
    /// ```
    #[inline]
    pub fn permute<P>(&self) -> OwnedIn<D::Family, T, <S as Permute<P>>::Output>
    where
        S: Permute<P>,
        <S as Permute<P>>::Output: StaticShape,
    {
        fits_inline!(OwnedIn<D::Family, T, <S as Permute<P>>::Output>);
        self.permuted_by::<<S as Permute<P>>::Output>(<S as Permute<P>>::AXES)
    }

    /// Output axis `i` is input axis `axes[i]`, into a tensor of shape `Out` (its dims those
    /// of `S` so permuted, which the caller's bound has proven).
    #[inline(always)]
    fn permuted_by<Out: StaticShape>(&self, axes: &'static [usize]) -> OwnedIn<D::Family, T, Out> {
        let data = self.as_slice();
        // The source stride of each output axis.
        let strides = const { row_major_strides::<MAX_STATIC_RANK>(S::DIMS) };
        let mut permuted = [0usize; MAX_STATIC_RANK];
        for (p, &a) in permuted.iter_mut().zip(axes) {
            *p = strides[a];
        }
        // A heap result is written by the tiled copy of `DynTensor::permute`: in output order
        // a 1024x1024 `f32` transpose takes 3.4 ms, tiled 0.7 ms.
        #[cfg(feature = "alloc")]
        if <D::Family as crate::typed::storage::Family>::HEAP {
            let gathered =
                crate::runtime::ArrayRef::with_strides(Out::DIMS, &permuted[..S::RANK], data)
                    .and_then(|src| crate::runtime::manipulate::gather_vec(src, T::clone));
            if let Some(owned) = gathered
                .ok()
                .and_then(<D::Family as crate::typed::storage::Family>::from_vec)
            {
                return Tensor::from_parts(owned, Default::default());
            }
        }
        strided::<D::Family, T, S, Out>(data, permuted)
    }

    /// The last two axes swapped, at any rank (numpy's `.mT`; M4): `[b, m, n]` becomes
    /// `[b, n, m]`. A rank-0 or rank-1 tensor is copied as it is (as a product's `transpose_a`
    /// treats it, G2). Builds a tensor stored like `self`; `permute` reverses or reorders any
    /// axes.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<i32, Shape![2, 3]>::from_fn(|[i, j]| (i * 3 + j) as i32);
    /// let t: Tensor<i32, Shape![3, 2]> = x.transpose();
    /// assert_eq!(t.as_slice(), &[0, 3, 1, 4, 2, 5]);
    /// let batch = Tensor::<i32, Shape![4, 2, 3]>::from_fn(|[b, i, j]| (b * 6 + i * 3 + j) as i32);
    /// let bt: Tensor<i32, Shape![4, 3, 2]> = batch.transpose();
    /// assert_eq!(bt[[3, 2, 1]], batch[[3, 1, 2]]);
    /// ```
    #[inline]
    pub fn transpose(&self) -> OwnedIn<D::Family, T, Transposed<S>>
    where
        S: StaticShape + TransposeIf<true>,
        Transposed<S>: StaticShape,
    {
        fits_inline!(OwnedIn<D::Family, T, Transposed<S>>);
        let axes: &'static [usize] = const { &swap_last_two(S::RANK) };
        self.permuted_by::<Transposed<S>>(&axes[..S::RANK])
    }

    /// Every axis in reverse order (numpy's `.T`; M4): `[a, b, c]` becomes `[c, b, a]`. Builds a
    /// tensor stored like `self`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<i32, Shape![2, 3, 4]>::from_fn(|[i, j, k]| (i * 12 + j * 4 + k) as i32);
    /// let r: Tensor<i32, Shape![4, 3, 2]> = x.reversed();
    /// assert_eq!(r[[3, 1, 0]], x[[0, 1, 3]]);
    /// ```
    #[inline]
    pub fn reversed(&self) -> OwnedIn<D::Family, T, <S as Reverse>::Output>
    where
        S: StaticShape + Reverse,
        <S as Reverse>::Output: StaticShape,
    {
        fits_inline!(OwnedIn<D::Family, T, <S as Reverse>::Output>);
        self.permuted_by::<<S as Reverse>::Output>(<S as Reverse>::AXES)
    }

    /// Elements `START..START + LEN` of axis `A`, which must fit: a compile error otherwise
    /// (M5). Axis `A` becomes `Const<LEN>`. Builds a tensor stored like `self`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<i32, Shape![2, 5]>::from_fn(|[i, j]| (i * 5 + j) as i32);
    /// let n: Tensor<i32, Shape![2, 2]> = x.narrow::<1, 3, 2>();
    /// assert_eq!(n.as_slice(), &[3, 4, 8, 9]);
    /// ```
    ///
    /// ```compile_fail
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<i32, Shape![2, 5]>::zeros();
    /// let n = x.narrow::<1, 4, 2>();                    // elements 4..6 of 5
    /// ```
    #[inline]
    pub fn narrow<const A: isize, const START: usize, const LEN: usize>(
        &self,
    ) -> OwnedIn<D::Family, T, Narrowed<S, A, START, LEN>>
    where
        S: Narrow<A, START, LEN, Output: StaticShape>,
    {
        fits_inline!(OwnedIn<D::Family, T, Narrowed<S, A, START, LEN>>);
        gathered::<D::Family, T, S, Narrowed<S, A, START, LEN>, _>(self.as_slice(), |index| {
            let strides = const { row_major_strides::<MAX_STATIC_RANK>(S::DIMS) };
            let offset = index
                .iter()
                .zip(&strides)
                .map(|(&i, &s)| i * s)
                .sum::<usize>();
            START * strides[const { axis_index(A, S::RANK) }] + offset
        })
    }

    /// Every `STEP`-th element of axis `A`, from the first (M8, numpy's `x[..., ::STEP, ...]`):
    /// axis `A` becomes `ceil(N / STEP)`, computed at compile time; a step of 0 does not
    /// compile. With [`narrow`](Self::narrow) and [`flip`](Self::flip) it makes any static
    /// slice: `x[1:7:2]` is `x.narrow::<0, 1, 6>().step::<0, 2>()`, `x[::-1]` is `x.flip::<0>()`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<i32, Shape![2, 5]>::from_fn(|[i, j]| (i * 5 + j) as i32);
    /// let s: Tensor<i32, Shape![2, 3]> = x.step::<1, 2>();
    /// assert_eq!(s.as_slice(), &[0, 2, 4, 5, 7, 9]);
    /// let r: Tensor<i32, Shape![2, 2]> = x.narrow::<1, 1, 3>().step::<-1, 2>().flip::<1>();
    /// assert_eq!(r.as_slice(), &[3, 1, 8, 6]);
    /// ```
    ///
    /// ```compile_fail
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<i32, Shape![2, 5]>::zeros();
    /// let s = x.step::<1, 0>();                          // a step of 0
    /// ```
    #[inline]
    pub fn step<const A: isize, const STEP: usize>(
        &self,
    ) -> OwnedIn<D::Family, T, Stepped<S, A, STEP>>
    where
        S: Step<A, STEP>,
        Stepped<S, A, STEP>: StaticShape,
    {
        fits_inline!(OwnedIn<D::Family, T, Stepped<S, A, STEP>>);
        gathered::<D::Family, T, S, Stepped<S, A, STEP>, _>(self.as_slice(), |index| {
            let strides = const { row_major_strides::<MAX_STATIC_RANK>(S::DIMS) };
            let a = const { axis_index(A, S::RANK) };
            offset_along(index, &strides, a, |i| i * STEP)
        })
    }

    /// Axis `A` in reverse order (M8, numpy's `flip` and `x[::-1]`); the shape is unchanged.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<i32, Shape![2, 3]>::from([[1, 2, 3], [4, 5, 6]]);
    /// assert_eq!(x.flip::<0>().as_slice(), &[4, 5, 6, 1, 2, 3]);
    /// assert_eq!(x.flip::<-1>().as_slice(), &[3, 2, 1, 6, 5, 4]);
    /// ```
    #[inline]
    pub fn flip<const A: isize>(&self) -> OwnedIn<D::Family, T, S>
    where
        S: StaticShape + RemoveAxis<A>,
    {
        fits_inline!(OwnedIn<D::Family, T, S>);
        gathered::<D::Family, T, S, S, _>(self.as_slice(), |index| {
            let strides = const { row_major_strides::<MAX_STATIC_RANK>(S::DIMS) };
            let a = const { axis_index(A, S::RANK) };
            offset_along(index, &strides, a, |i| S::DIMS[a] - 1 - i)
        })
    }

    /// `self` and `other` joined along axis `A` (M6): equal ranks and equal dims off the axis,
    /// a compile error otherwise; axis `A` of the result is the sum, computed at compile time.
    /// Stored on the heap if either operand is.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<i32, Shape![2, 1]>::from_fn(|[i, _]| i as i32);
    /// let b = Tensor::<i32, Shape![2, 2]>::from_fn(|[i, j]| (10 + i * 2 + j) as i32);
    /// let c: Tensor<i32, Shape![2, 3]> = a.concat::<1, _, _>(&b);
    /// assert_eq!(c.as_slice(), &[0, 10, 11, 1, 12, 13]);
    /// ```
    #[inline]
    // The type is the joined shape in the joined storage family, each already an alias.
    #[allow(clippy::type_complexity)]
    pub fn concat<const A: isize, S2: StaticShape, D2: Data<T>>(
        &self,
        other: &Tensor<T, S2, D2>,
    ) -> OwnedIn<JoinOf<T, D, D2>, T, Concatenated<S, A, S2>>
    where
        S: Concat<A, S2, Output: StaticShape>,
    {
        fits_inline!(OwnedIn<JoinOf<T, D, D2>, T, Concatenated<S, A, S2>>);
        let (left, right) = (self.as_slice(), other.as_slice());
        let (ls, rs) = (
            row_major_strides::<MAX_STATIC_RANK>(S::DIMS),
            row_major_strides::<MAX_STATIC_RANK>(S2::DIMS),
        );
        let a = const { axis_index(A, S::RANK) };
        let split = S::DIMS[a];
        OwnedIn::<JoinOf<T, D, D2>, T, <S as Concat<A, S2>>::Output>::from_fn(|index| {
            let index = index.as_ref();
            // Below `split` on axis `A` the element is the left operand's, else the right's
            // at the index shifted back.
            let (data, strides, shift) = if index[a] < split {
                (left, &ls, 0)
            } else {
                (right, &rs, split)
            };
            let mut offset = 0;
            for (d, &i) in index.iter().enumerate() {
                offset += if d == a { i - shift } else { i } * strides[d];
            }
            data[offset].clone()
        })
    }

    /// The tensors stacked along a new axis `A` (`0..=rank`, or negative from the end of the
    /// result) of dim `N`, their number (M7).
    /// They share one shape by their type.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<i32, Shape![2]>::from_fn(|[i]| i as i32);
    /// let b = Tensor::<i32, Shape![2]>::from_fn(|[i]| 10 + i as i32);
    /// let s: Tensor<i32, Shape![2, 2]> = Tensor::stack::<1, 2>([&a, &b]);
    /// assert_eq!(s.as_slice(), &[0, 10, 1, 11]);
    /// ```
    #[inline]
    pub fn stack<const A: isize, const N: usize>(
        parts: [&Self; N],
    ) -> OwnedIn<D::Family, T, WithAxis<S, A, Const<N>>>
    where
        S: InsertAxis<A, Const<N>>,
        WithAxis<S, A, Const<N>>: StaticShape,
    {
        fits_inline!(OwnedIn<D::Family, T, WithAxis<S, A, Const<N>>>);
        let strides = row_major_strides::<MAX_STATIC_RANK>(S::DIMS);
        let a = const { axis_index(A, S::RANK + 1) };
        OwnedIn::<D::Family, T, WithAxis<S, A, Const<N>>>::from_fn(|index| {
            let index = index.as_ref();
            let mut offset = 0;
            for (d, &i) in index.iter().enumerate() {
                match d.cmp(&a) {
                    core::cmp::Ordering::Less => offset += i * strides[d],
                    core::cmp::Ordering::Equal => {}
                    core::cmp::Ordering::Greater => offset += i * strides[d - 1],
                }
            }
            parts[index[a]].as_slice()[offset].clone()
        })
    }
}

/// # Shape manipulation: slices at run time
#[cfg(feature = "alloc")]
impl<T: Clone, S: Shape, D: Data<T>> Tensor<T, S, D> {
    /// Elements `start..start + len` of axis `A`, both known only at run time: axis `A`
    /// becomes [`Dyn`](crate::Dyn), the others keep their types (M5). An error when the range
    /// does not fit. Works on mixed shapes; feature `alloc`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<i32, Shape![2, 5]>::from_fn(|[i, j]| (i * 5 + j) as i32);
    /// let n: Tensor<i32, Shape![2, _]> = x.narrow_dyn::<1>(1, 3)?;
    /// assert_eq!((n.shape(), n.as_slice()), ([2, 3], &[1, 2, 3, 6, 7, 8][..]));
    /// let e = x.narrow_dyn::<1>(4, 2).unwrap_err();
    /// assert_eq!(e.to_string(), "cannot narrow [2, 5]: 2 elements from 4 do not fit in axis 1, which has 5 (M5)");
    /// # Ok::<(), shaped::Error>(())
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
    pub fn narrow_dyn<const A: isize>(
        &self,
        start: usize,
        len: usize,
    ) -> Result<Tensor<T, <S as ReplaceAxis<A, Dyn>>::Output>, Error>
    where
        S: ReplaceAxis<A, Dyn>,
    {
        fits_inline!(Tensor<T, <S as ReplaceAxis<A, Dyn>>::Output>);
        // The runtime view's narrow (M5), then its copy: one body for every path.
        let dims = self.shape.dims();
        let view = crate::runtime::DynView::row_major(dims.as_ref(), self.as_slice())
            .narrow(A as i64, start, len)?;
        let data = crate::runtime::manipulate::gather_vec(view.as_array_ref(), T::clone)?;
        Tensor::from_shape_vec(view.shape(), data)
    }
}
