//! TFLM's int8 `SOFTMAX`, `LOGISTIC`, `TANH`, `MEAN`, `PAD`/`PADV2` and `CONCATENATION` on
//! quantized static and mixed tensors (rules Q20-Q25): result shapes computed at compile time
//! (the mean's axes removed or kept, the padded or joined axis), `Dyn` dims at run time.

use super::matmul::JoinOf;
use super::ops::{check_same_shape, map_into};
use super::result::{ResultStorage, Storable, Stored};
use super::{OwnedIn, Tensor};
use crate::error::{Error, Operation};
use crate::quant::activation::softmax_rank_error;
use crate::quant::elementwise::not_prepared;
use crate::quant::mean::{check_concat, mean_blocks, mean_blocks_into};
use crate::quant::Rounding;
use crate::quant::{QLogistic, QMean, QRequant, QSoftmax, QTanh, Quant, QuantElement, Quantized};
use crate::typed::rules::{
    Concat, Concatenated, KeepAxis, KeepDims, PadStatic, Padded, RemoveAxis, WithoutAxis,
};
use crate::typed::shape::{Shape, StaticShape, MAX_STATIC_RANK};
use crate::typed::storage::{fits_inline, Data, DataMut};

/// An int8 quantized result of shape `O`, computed from tensors stored in the family `F`.
pub type QuantizedI8<F, O> = Quantized<Stored<F, i8, O>, i8>;

/// The shape of a mean over axes 1 and 2 of `S` with the axes removed (`[N, C]` from NHWC).
pub type MeanHw<S> = WithoutAxis<WithoutAxis<S, 2>, 1>;

/// The shape of a mean over axes 1 and 2 of `S` with the axes kept as 1 (`[N, 1, 1, C]`).
pub type MeanHwKeep<S> = KeepDims<KeepDims<S, 1>, 2>;

/// The error of an input quantized by other parameters than `prepared`.
#[inline(always)]
fn check_input(prepared: Quant<i8>, given: Quant<i8>) -> Result<(), Error> {
    if prepared == given {
        Ok(())
    } else {
        Err(not_prepared())
    }
}

/// The same-shape result of `f` applied to each byte of `x`, quantized by `out`.
#[inline(always)]
fn each<S: Storable, D: Data<i8>>(
    x: &Tensor<i8, S, D>,
    out: Quant<i8>,
    f: impl Fn(i8) -> i8,
) -> QuantizedI8<D::Family, S> {
    Quantized::new(x.map(|&v| f(v)), out)
}

/// The index along axis `a` of the element at row-major position `i` of a tensor of `dims`.
#[inline(always)]
fn index_along(dims: &[usize], a: usize, i: usize) -> usize {
    let inner: usize = dims[a + 1..].iter().product();
    (i / inner.max(1)) % dims[a].max(1)
}

impl QSoftmax {
    /// The softmax along the last axis of `x` (Q20), quantized by [`QSoftmax::OUTPUT`]: an
    /// error value when `x` carries other parameters than the prepared ones, has rank 0, or a
    /// row's exponentials add up to 512 or more.
    ///
    /// ```
    /// use shaped::quant::{QSoftmax, Quant};
    /// use shaped::{Shape, Tensor};
    /// let q = Quant::new(0.5, 3)?;
    /// let op = QSoftmax::new(q, 1.0, QSoftmax::OUTPUT)?;
    /// let x = Tensor::<i8, Shape![2, 2]>::from([[4, 0], [1, 1]]).quantized(q);
    /// assert_eq!(op.run(&x)?.values().as_slice(), &[97, -97, 0, 0]);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn run<S: Storable, D: Data<i8>>(
        &self,
        x: &Quantized<Tensor<i8, S, D>, i8>,
    ) -> Result<QuantizedI8<D::Family, S>, Error> {
        fits_inline!(Stored<D::Family, i8, S>);
        check_input(self.input(), x.quant())?;
        let values = x.values();
        let dims = values.shape();
        let Some(&depth) = dims.as_ref().last() else {
            return Err(softmax_rank_error(dims.as_ref()));
        };
        let mut out = values.map(|_| 0i8);
        self.rows(values.as_slice(), depth, out.as_mut_slice())?;
        Ok(Quantized::new(out, Self::OUTPUT))
    }

    /// [`run`](Self::run) into `out` (quantized by [`QSoftmax::OUTPUT`]), without an
    /// allocator; `out` has `x`'s shape.
    ///
    /// ```
    /// use shaped::quant::{QSoftmax, Quant};
    /// use shaped::{Shape, Tensor};
    /// let q = Quant::new(0.5, 3)?;
    /// let op = QSoftmax::new(q, 1.0, QSoftmax::OUTPUT)?;
    /// let x = Tensor::<i8, Shape![1, 2]>::from([[4, 0]]).quantized(q);
    /// let mut y = Tensor::<i8, Shape![1, 2]>::zeros();
    /// op.run_into(&x, &mut y)?;
    /// assert_eq!(y.as_slice(), &[97, -97]);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    #[inline]
    pub fn run_into<S: Shape, D: Data<i8>, O: DataMut<i8>>(
        &self,
        x: &Quantized<Tensor<i8, S, D>, i8>,
        out: &mut Tensor<i8, S, O>,
    ) -> Result<(), Error> {
        check_input(self.input(), x.quant())?;
        let values = x.values();
        let dims = values.shape();
        let Some(&depth) = dims.as_ref().last() else {
            return Err(softmax_rank_error(dims.as_ref()));
        };
        check_same_shape(out.shape().as_ref(), dims.as_ref(), Operation::Quantize)?;
        self.rows(values.as_slice(), depth, out.as_mut_slice())
    }
}

impl QLogistic {
    /// The logistic function of each element of `x` (Q21), quantized by
    /// [`QLogistic::OUTPUT`]: an error value when `x` carries other parameters than the
    /// prepared ones.
    pub fn run<S: Storable, D: Data<i8>>(
        &self,
        x: &Quantized<Tensor<i8, S, D>, i8>,
    ) -> Result<QuantizedI8<D::Family, S>, Error> {
        fits_inline!(Stored<D::Family, i8, S>);
        check_input(self.input(), x.quant())?;
        Ok(each(x.values(), Self::OUTPUT, |v| self.apply(v)))
    }

    /// [`run`](Self::run) into `out` (quantized by [`QLogistic::OUTPUT`]), without an
    /// allocator; `out` has `x`'s shape.
    pub fn run_into<S: Shape, D: Data<i8>, O: DataMut<i8>>(
        &self,
        x: &Quantized<Tensor<i8, S, D>, i8>,
        out: &mut Tensor<i8, S, O>,
    ) -> Result<(), Error> {
        check_input(self.input(), x.quant())?;
        map_into(x.values(), out, Operation::Quantize, |&v| self.apply(v))
    }
}

impl QTanh {
    /// The tanh of each element of `x` (Q22), quantized by [`QTanh::OUTPUT`]: an error value
    /// when `x` carries other parameters than the prepared ones.
    pub fn run<S: Storable, D: Data<i8>>(
        &self,
        x: &Quantized<Tensor<i8, S, D>, i8>,
    ) -> Result<QuantizedI8<D::Family, S>, Error> {
        fits_inline!(Stored<D::Family, i8, S>);
        check_input(self.input(), x.quant())?;
        Ok(each(x.values(), Self::OUTPUT, |v| self.apply(v)))
    }

    /// [`run`](Self::run) into `out` (quantized by [`QTanh::OUTPUT`]), without an allocator;
    /// `out` has `x`'s shape.
    pub fn run_into<S: Shape, D: Data<i8>, O: DataMut<i8>>(
        &self,
        x: &Quantized<Tensor<i8, S, D>, i8>,
        out: &mut Tensor<i8, S, O>,
    ) -> Result<(), Error> {
        check_input(self.input(), x.quant())?;
        map_into(x.values(), out, Operation::Quantize, |&v| self.apply(v))
    }
}

impl QMean {
    /// The mean of `x` over axes 1 and 2 into a tensor of shape `O` (their dims removed or
    /// kept as 1, as `keep` says).
    #[inline(always)]
    fn typed<S: Shape, D: Data<i8>, O: Storable>(
        &self,
        x: &Quantized<Tensor<i8, S, D>, i8>,
        keep: bool,
    ) -> Result<QuantizedI8<D::Family, O>, Error> {
        check_input(self.input(), x.quant())?;
        let dims = x.values().shape();
        let dims = dims.as_ref();
        // Axes 1 and 2 exist: the shape rules have proven it.
        let (outer, positions, inner) = mean_blocks(dims)?;
        let mut out_dims = [1usize; MAX_STATIC_RANK];
        out_dims[0] = dims[0];
        let kept = if keep { 3 } else { 1 };
        for (slot, &d) in out_dims[kept..].iter_mut().zip(&dims[3..]) {
            *slot = d;
        }
        let rank = O::RANK;
        let values = x.values().as_slice();
        let out =
            <O::Kind as ResultStorage<O>>::filled::<D::Family, i8>(&out_dims[..rank], 0, |out| {
                self.reduce_into(values, outer, positions, inner, out)
            });
        Ok(Quantized::new(out, self.output()))
    }

    /// The mean over axes 1 and 2 of `x` (height and width of NHWC; any rank from 3), both
    /// removed: `[N, C]` from `[N, H, W, C]` (Q23), the result's shape computed at compile
    /// time. An error value when `x` carries other parameters than the prepared ones.
    ///
    /// ```
    /// use shaped::quant::{QMean, Quant, Rounding};
    /// use shaped::{Shape, Tensor};
    /// let q = Quant::<i8>::new(0.1, 0)?;
    /// let op = QMean::new(q, Quant::new(0.05, 0)?, Rounding::Double)?;
    /// let x = Tensor::<i8, Shape![1, 2, 2, 1]>::from([[[[1], [2]], [[3], [5]]]]).quantized(q);
    /// let y: Tensor<i8, Shape![1, 1]> = op.run(&x)?.into_parts().0;
    /// assert_eq!(y.as_slice(), &[6]); // 0.275 is 5.5 steps of 0.05
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn run<S, D>(
        &self,
        x: &Quantized<Tensor<i8, S, D>, i8>,
    ) -> Result<QuantizedI8<D::Family, MeanHw<S>>, Error>
    where
        S: RemoveAxis<2>,
        WithoutAxis<S, 2>: RemoveAxis<1>,
        MeanHw<S>: Storable,
        D: Data<i8>,
    {
        fits_inline!(Stored<D::Family, i8, MeanHw<S>>);
        self.typed(x, false)
    }

    /// The mean over axes 1 and 2 of `x` into `out` (quantized by [`output`](Self::output)),
    /// without an allocator: `out` is `x`'s shape with both axes removed or kept as 1 (TFLite's
    /// `keep_dims`), any shape of those dims and in that order. An error value when `x`
    /// carries other parameters than the prepared ones, or `out`'s dims are not those.
    ///
    /// ```
    /// use shaped::quant::{QMean, Quant, Rounding};
    /// use shaped::{Shape, Tensor};
    /// let q = Quant::<i8>::new(0.1, 0)?;
    /// let op = QMean::new(q, Quant::new(0.05, 0)?, Rounding::Double)?;
    /// let x = Tensor::<i8, Shape![1, 2, 2, 1]>::from([[[[1], [2]], [[3], [5]]]]).quantized(q);
    /// let mut y = Tensor::<i8, Shape![1, 1, 1, 1]>::zeros();
    /// op.run_into(&x, &mut y)?;
    /// assert_eq!(y.as_slice(), &[6]);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn run_into<S: Shape, D: Data<i8>, S2: Shape, O: DataMut<i8>>(
        &self,
        x: &Quantized<Tensor<i8, S, D>, i8>,
        out: &mut Tensor<i8, S2, O>,
    ) -> Result<(), Error> {
        check_input(self.input(), x.quant())?;
        let (dims, got) = (x.values().shape(), out.shape());
        let (outer, positions, inner) = mean_blocks_into(dims.as_ref(), got.as_ref())?;
        let values = x.values().as_slice();
        self.reduce_into(values, outer, positions, inner, out.as_mut_slice());
        Ok(())
    }

    /// [`run`](Self::run) with axes 1 and 2 kept as 1: `[N, 1, 1, C]` (TFLite's `keep_dims`).
    pub fn run_keepdims<S, D>(
        &self,
        x: &Quantized<Tensor<i8, S, D>, i8>,
    ) -> Result<QuantizedI8<D::Family, MeanHwKeep<S>>, Error>
    where
        S: KeepAxis<1>,
        KeepDims<S, 1>: KeepAxis<2>,
        MeanHwKeep<S>: Storable,
        D: Data<i8>,
    {
        fits_inline!(Stored<D::Family, i8, MeanHwKeep<S>>);
        self.typed(x, true)
    }
}

/// # Int8 activations and means (TFLM)
///
/// TFLM's `SOFTMAX`, `LOGISTIC`, `TANH` (Q20-Q22) and `MEAN` (Q23) on `i8`, in its default
/// double rounding, each prepared for this call ([`QSoftmax`], [`QLogistic`], [`QTanh`],
/// [`QMean`] prepare them once, in `const` context too).
impl<S: Shape, D: Data<i8>> Quantized<Tensor<i8, S, D>, i8> {
    /// The softmax along the last axis with `beta` (Q20), quantized by [`QSoftmax::OUTPUT`].
    ///
    /// ```
    /// use shaped::quant::Quant;
    /// use shaped::{Shape, Tensor, TensorView};
    /// let data = [4i8, 0, 1, 1, 2, 0];
    /// let x = TensorView::<i8, Shape![_, 2]>::with_shape([3, 2], &data)?.quantized(Quant::new(0.5, 3)?);
    /// assert_eq!(x.softmax(1.0)?.values().as_slice(), &[97, -97, 0, 0, 59, -59]);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn softmax(&self, beta: f32) -> Result<QuantizedI8<D::Family, S>, Error>
    where
        S: Storable,
    {
        QSoftmax::new(self.quant(), beta, QSoftmax::OUTPUT)?.run(self)
    }

    /// The logistic function of each element (Q21), quantized by [`QLogistic::OUTPUT`].
    pub fn logistic(&self) -> Result<QuantizedI8<D::Family, S>, Error>
    where
        S: Storable,
    {
        QLogistic::new(self.quant(), QLogistic::OUTPUT)?.run(self)
    }

    /// The tanh of each element (Q22), quantized by [`QTanh::OUTPUT`].
    pub fn tanh(&self) -> Result<QuantizedI8<D::Family, S>, Error>
    where
        S: Storable,
    {
        QTanh::new(self.quant(), QTanh::OUTPUT)?.run(self)
    }

    /// The mean over axes 1 and 2 into parameters `out`, both axes removed (Q23):
    /// [`QMean::run`] prepared for this call.
    pub fn mean_hw(&self, out: Quant<i8>) -> Result<QuantizedI8<D::Family, MeanHw<S>>, Error>
    where
        S: RemoveAxis<2>,
        WithoutAxis<S, 2>: RemoveAxis<1>,
        MeanHw<S>: Storable,
    {
        QMean::new(self.quant(), out, Rounding::Double)?.run(self)
    }

    /// The mean over axes 1 and 2 into parameters `out`, both axes kept as 1 (Q23).
    pub fn mean_hw_keepdims(
        &self,
        out: Quant<i8>,
    ) -> Result<QuantizedI8<D::Family, MeanHwKeep<S>>, Error>
    where
        S: KeepAxis<1>,
        KeepDims<S, 1>: KeepAxis<2>,
        MeanHwKeep<S>: Storable,
    {
        QMean::new(self.quant(), out, Rounding::Double)?.run_keepdims(self)
    }
}

/// # Padding and concatenation (TFLM)
///
/// TFLM's `PAD`, `PADV2` (Q24) and `CONCATENATION` (Q25) on static shapes, one axis by
/// amounts fixed at compile time as the tensors' own [`pad_constant`](Tensor::pad_constant)
/// and [`concat`](Tensor::concat): the stored bytes are copied, and the result keeps the
/// parameters of the inputs.
impl<E: QuantElement, S: StaticShape, D: Data<E>> Quantized<Tensor<E, S, D>, E> {
    /// `BEFORE` zero points added before axis `A` and `AFTER` after it (TFLM's `PAD`, Q24):
    /// the added elements mean 0.0.
    ///
    /// ```
    /// use shaped::quant::Quant;
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<i8, Shape![2]>::from([5, 6]).quantized(Quant::new(0.5, -3)?);
    /// let y = x.pad::<0, 1, 2>();
    /// let v: &Tensor<i8, Shape![5]> = y.values();
    /// assert_eq!(v.as_slice(), &[-3, 5, 6, -3, -3]);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    #[inline]
    pub fn pad<const A: isize, const BEFORE: usize, const AFTER: usize>(
        &self,
    ) -> Quantized<OwnedIn<D::Family, E, Padded<S, A, BEFORE, AFTER>>, E>
    where
        S: PadStatic<A, BEFORE, AFTER>,
    {
        self.pad_with::<A, BEFORE, AFTER>(E::saturate(self.quant().zero_point()))
    }

    /// `BEFORE` copies of the stored value `value` added before axis `A` and `AFTER` after it
    /// (TFLM's `PADV2`, whose constant has the output's parameters, Q24).
    #[inline]
    pub fn pad_with<const A: isize, const BEFORE: usize, const AFTER: usize>(
        &self,
        value: E,
    ) -> Quantized<OwnedIn<D::Family, E, Padded<S, A, BEFORE, AFTER>>, E>
    where
        S: PadStatic<A, BEFORE, AFTER>,
    {
        Quantized::new(
            self.values().pad_constant::<A, BEFORE, AFTER>(value),
            self.quant(),
        )
    }

    /// `self` and `other` joined along axis `A` as TFLM's `CONCATENATION` does (Q25): their
    /// bytes side by side, the shapes checked at compile time (M6). `other` must have
    /// `self`'s parameters, which the result keeps: an error value otherwise, naming input 1
    /// (TFLM refuses such a model; [`concat_requantized`](Self::concat_requantized) moves both
    /// to other parameters first).
    ///
    /// ```
    /// use shaped::quant::Quant;
    /// use shaped::{Shape, Tensor};
    /// let q = Quant::<i8>::new(0.5, 0)?;
    /// let a = Tensor::<i8, Shape![1, 2]>::from([[1, 2]]).quantized(q);
    /// let b = Tensor::<i8, Shape![1, 1]>::from([[3]]).quantized(q);
    /// let c = a.concat::<1, _, _>(&b)?;
    /// let v: &Tensor<i8, Shape![1, 3]> = c.values();
    /// assert_eq!(v.as_slice(), &[1, 2, 3]);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    // The type is the joined shape in the joined storage family, each already an alias.
    #[allow(clippy::type_complexity)]
    #[inline]
    pub fn concat<const A: isize, S2: StaticShape, D2: Data<E>>(
        &self,
        other: &Quantized<Tensor<E, S2, D2>, E>,
    ) -> Result<Quantized<OwnedIn<JoinOf<E, D, D2>, E, Concatenated<S, A, S2>>, E>, Error>
    where
        S: Concat<A, S2, Output: StaticShape>,
    {
        check_concat(other.quant(), self.quant())?;
        Ok(Quantized::new(
            self.values().concat::<A, S2, D2>(other.values()),
            self.quant(),
        ))
    }

    /// `self` and `other` joined along axis `A` into parameters `out`, each requantized to
    /// them (Q14) unless it has them already: for inputs whose parameters differ, which TFLM's
    /// `CONCATENATION` refuses (Q25).
    ///
    /// ```
    /// use shaped::quant::Quant;
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<i8, Shape![2]>::from([4, 8]).quantized(Quant::new(0.5, 0)?);
    /// let b = Tensor::<i8, Shape![1]>::from([4]).quantized(Quant::new(0.25, 0)?);
    /// let c = a.concat_requantized::<0, _, _>(&b, Quant::new(0.25, 0)?);
    /// assert_eq!(c.values().as_slice(), &[8, 16, 4]);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    #[allow(clippy::type_complexity)]
    #[inline]
    pub fn concat_requantized<const A: isize, S2: StaticShape, D2: Data<E>>(
        &self,
        other: &Quantized<Tensor<E, S2, D2>, E>,
        out: Quant<E>,
    ) -> Quantized<OwnedIn<JoinOf<E, D, D2>, E, Concatenated<S, A, S2>>, E>
    where
        S: Concat<A, S2, Output: StaticShape>,
    {
        let mut joined = self.values().concat::<A, S2, D2>(other.values());
        let (left, right) = (self.quant(), other.quant());
        if left != out || right != out {
            let (rl, rr) = (
                QRequant::new(left, out, Rounding::Double),
                QRequant::new(right, out, Rounding::Double),
            );
            let dims = <Concatenated<S, A, S2> as StaticShape>::DIMS;
            let a = const { crate::typed::rules::axis_index(A, S::RANK) };
            let split = S::DIMS[a];
            for (i, v) in joined.as_mut_slice().iter_mut().enumerate() {
                *v = if index_along(dims, a, i) < split {
                    rl.apply(*v)
                } else {
                    rr.apply(*v)
                };
            }
        }
        Quantized::new(joined, out)
    }
}
