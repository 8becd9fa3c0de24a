//! Quantized static and mixed tensors (rules Q1-Q9): [`Quantized`] over a [`Tensor`], the
//! conversions to and from `f32`, and TFLM's add and multiply with NUMPY broadcasting, checked
//! at compile time for static shapes.

use super::matmul::{checked_layout, static_plan, Layout};
use super::ops::{check_same_shape, map_into, BroadcastWith};
use super::result::ResultStorage;
use super::result::{Storable, Stored};
use super::{JoinOf, Tensor};
use crate::error::{Error, Operation};
use crate::op::CompareOp;
use crate::quant::elementwise::{
    check_inputs, output_is_large, static_count, with_element_fn, TABLE_MIN,
};
use crate::quant::matmul::{
    check_bias, check_per_channel, product_fixed, product_into, ProductRequant, Walk,
};
use crate::quant::per_axis::{check_axis, dequantize_along, quantize_along};
use crate::quant::{
    Activation, AxisParams, DynPerAxis, PerAxis, QAdd, QCompare, QExtreme, QMatMul,
    QMatMulPerChannel, QMul, QRequant, QSub, Quant, QuantElement, Quantized, QuantizedPerAxis,
    Rounding,
};
use crate::rules::AutoBroadcast;
use crate::typed::rules::{BroadcastOutput, Broadcasts, MatMulOutputT, MatMulShapeT, PerAxisShape};
use crate::typed::shape::{Shape, StaticShape};
use crate::typed::storage::fits_inline;
use crate::typed::storage::{Data, DataMut};

/// The `bool` result of comparing `Tensor<E, S, D>` with `Tensor<E, S2, D2>`, broadcast.
pub type ComparedBroadcast<E, S, D, S2, D2> =
    Stored<JoinOf<E, D, D2>, bool, <S as BroadcastWith<S2>>::Output>;

/// `Tensor<f32, S, D>` quantized along an axis by parameters `P` (the same shape, `E` values).
pub type QuantizedAlong<E, S, D, P> = QuantizedPerAxis<Stored<<D as Data<f32>>::Family, E, S>, P>;

/// The quantized result of a broadcast of `Tensor<E, S, D>` with `Tensor<E, S2, D2>`.
pub type QuantizedBroadcast<E, S, D, S2, D2> =
    Quantized<Stored<JoinOf<E, D, D2>, E, <S as BroadcastWith<S2>>::Output>, E>;

/// # Quantization
///
/// Tensors of `i8` or `u8` take parameters with [`quantized`](Self::quantized); tensors of
/// `f32` are quantized by [`quantize`](Self::quantize) (rules Q1-Q9, module
/// [`quant`](crate::quant)).
impl<E: QuantElement, S: Shape, D: Data<E>> Tensor<E, S, D> {
    /// These integers, with the parameters that give them meaning (Q1).
    ///
    /// ```
    /// use shaped::quant::Quant;
    /// use shaped::{Shape, Tensor};
    /// let q = Tensor::<i8, Shape![2]>::from([10, -10]).quantized(Quant::new(0.5, 0)?);
    /// assert_eq!(q.dequantize().as_slice(), &[5.0, -5.0]);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    #[inline]
    pub fn quantized(self, quant: Quant<E>) -> Quantized<Self, E> {
        Quantized::new(self, quant)
    }
}

/// # Quantization: from `f32`
impl<S: Shape, D: Data<f32>> Tensor<f32, S, D> {
    /// Each value as `zero_point + round(x / scale)`, clamped to `E`'s range (Q10: TFLM's
    /// `QUANTIZE`, the division in `f32`, ties away from zero; NaN becomes the zero point).
    ///
    /// ```
    /// use shaped::quant::Quant;
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<f32, Shape![4]>::from([0.5, -1.0, 3.1, 0.25]);
    /// let q = x.quantize(Quant::<i8>::new(0.02, -5)?);
    /// assert_eq!(q.values().as_slice(), &[20, -55, 127, 8]);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    #[inline]
    pub fn quantize<E: QuantElement>(
        &self,
        quant: Quant<E>,
    ) -> Quantized<Stored<D::Family, E, S>, E>
    where
        S: Storable,
    {
        fits_inline!(Stored<D::Family, E, S>);
        Quantized::new(self.map(|&x| crate::quant::quantize_value(x, quant)), quant)
    }

    /// [`quantize`](Self::quantize) into `out` (its integers under `quant`), without an
    /// allocator: TFLM's float-to-integer `QUANTIZE`. `out` has `self`'s shape (a `Dyn` dim of
    /// either that does not fit: an error value).
    ///
    /// ```
    /// use shaped::quant::Quant;
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<f32, Shape![2]>::from([0.5, -1.0]);
    /// let mut q = Tensor::<i8, Shape![2]>::zeros();
    /// x.quantize_into(Quant::new(0.02, -5)?, &mut q)?;
    /// assert_eq!(q.as_slice(), &[20, -55]);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    #[inline]
    pub fn quantize_into<E: QuantElement, O: DataMut<E>>(
        &self,
        quant: Quant<E>,
        out: &mut Tensor<E, S, O>,
    ) -> Result<(), Error> {
        map_into(self, out, Operation::Quantize, |&x| {
            crate::quant::quantize_value(x, quant)
        })
    }
}

/// # Per-axis quantization
///
/// One scale and zero point per index along an axis (Q16): [`quantized_per_axis`](
/// Self::quantized_per_axis) checks at compile time that the parameters fit an axis of static
/// size, [`try_quantized_per_axis`](Self::try_quantized_per_axis) at run time for any axis.
impl<E: QuantElement, S: Shape, D: Data<E>> Tensor<E, S, D> {
    /// These integers quantized along axis `A` by `N` parameters, one per index of the axis,
    /// whose static size must be `N` (Q16; a compile error otherwise).
    ///
    /// ```
    /// use shaped::quant::PerAxis;
    /// use shaped::{Shape, Tensor};
    /// static SCALES: [f32; 2] = [0.5, 0.25];
    /// static ZEROS: [i32; 2] = [0, 10];
    /// let p = PerAxis::new(&SCALES, &ZEROS)?;
    /// let w = Tensor::<i8, Shape![2, 3]>::from([[2, 4, 6], [10, 14, 18]]).quantized_per_axis::<0, 2>(p);
    /// assert_eq!(w.dequantize().as_slice(), &[1.0, 2.0, 3.0, 0.0, 1.0, 2.0]);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    ///
    /// Parameters of another length do not compile:
    ///
    /// ```compile_fail
    /// # use shaped::quant::PerAxis;
    /// # use shaped::{Shape, Tensor};
    /// let p = PerAxis::<i8, 3>::new(&[0.5; 3], &[0; 3]).unwrap();
    /// let w = Tensor::<i8, Shape![2, 3]>::splat(1).quantized_per_axis::<0, 3>(p);
    /// ```
    #[inline]
    pub fn quantized_per_axis<'p, const A: usize, const N: usize>(
        self,
        params: PerAxis<'p, E, N>,
    ) -> QuantizedPerAxis<Self, PerAxis<'p, E, N>>
    where
        S: PerAxisShape<A, N>,
    {
        QuantizedPerAxis::new_unchecked(self, params, A)
    }

    /// These integers quantized along `axis` by `params` ([`PerAxis`] or [`DynPerAxis`]), one
    /// per index of the axis: an error value when the axis is outside the shape or its size is
    /// not `params.len()` (Q16). For axes of runtime size, and parameters read at run time.
    ///
    /// ```
    /// use shaped::quant::DynPerAxis;
    /// use shaped::{Shape, TensorView};
    /// let scales = [0.5, 0.25, 1.0];
    /// let zeros = [0, 0, 0];
    /// let p = DynPerAxis::new(&scales, &zeros)?;
    /// let data = [1i8, 2, 3, 4, 5, 6];
    /// let t = TensorView::<i8, Shape![2, _]>::with_shape([2, 3], &data)?;
    /// let q = t.try_quantized_per_axis(1, p)?;
    /// assert_eq!(q.dequantize().as_slice(), &[0.5, 0.5, 3.0, 2.0, 1.25, 6.0]);
    /// assert_eq!(
    ///     t.try_quantized_per_axis(0, p).unwrap_err().to_string(),
    ///     "invalid quantization: 3 per-axis parameters for axis 0 of size 2; the axis needs \
    ///      one per index (Q16)"
    /// );
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn try_quantized_per_axis<P: AxisParams<E>>(
        self,
        axis: usize,
        params: P,
    ) -> Result<QuantizedPerAxis<Self, P>, Error> {
        check_axis(self.shape().as_ref(), axis, params.as_dyn())?;
        Ok(QuantizedPerAxis::new_unchecked(self, params, axis))
    }
}

/// # Per-axis quantization: from `f32`
impl<S: Shape, D: Data<f32>> Tensor<f32, S, D> {
    /// Each value quantized with the parameters of its index along axis `A` (Q10 per index,
    /// Q16), whose static size must be `N`.
    ///
    /// ```
    /// use shaped::quant::PerAxis;
    /// use shaped::{Shape, Tensor};
    /// let p = PerAxis::<i8, 3>::new(&[0.1, 0.01, 1.0], &[0, 0, -3])?;
    /// let x = Tensor::<f32, Shape![2, 3]>::from([[0.25, 0.25, 0.25], [-1.0, 2.0, 300.0]]);
    /// let q = x.quantize_per_axis::<1, i8, 3>(p);
    /// assert_eq!(q.values().as_slice(), &[3, 25, -3, -10, 127, 127]);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn quantize_per_axis<'p, const A: usize, E: QuantElement, const N: usize>(
        &self,
        params: PerAxis<'p, E, N>,
    ) -> QuantizedAlong<E, S, D, PerAxis<'p, E, N>>
    where
        S: Storable + PerAxisShape<A, N>,
    {
        fits_inline!(Stored<D::Family, E, S>);
        let mut out = self.map(|_| E::saturate(0));
        let (dims, values) = (self.shape(), self.as_slice());
        quantize_along(
            values,
            dims.as_ref(),
            A,
            params.as_dyn(),
            out.as_mut_slice(),
        );
        QuantizedPerAxis::new_unchecked(out, params, A)
    }

    /// [`quantize_per_axis`](Self::quantize_per_axis) along `axis` with parameters counted at
    /// run time: an error value when they do not fit the axis (Q16).
    pub fn try_quantize_per_axis<'p, E: QuantElement>(
        &self,
        axis: usize,
        params: DynPerAxis<'p, E>,
    ) -> Result<QuantizedAlong<E, S, D, DynPerAxis<'p, E>>, Error>
    where
        S: Storable,
    {
        fits_inline!(Stored<D::Family, E, S>);
        let dims = self.shape();
        check_axis(dims.as_ref(), axis, params)?;
        let mut out = self.map(|_| E::saturate(0));
        quantize_along(
            self.as_slice(),
            dims.as_ref(),
            axis,
            params,
            out.as_mut_slice(),
        );
        Ok(QuantizedPerAxis::new_unchecked(out, params, axis))
    }
}

impl<E: QuantElement, S: Shape, D: Data<E>, P: AxisParams<E>> QuantizedPerAxis<Tensor<E, S, D>, P> {
    /// The real values, `scale_c * (q - zero_point_c)` with the parameters of each value's index
    /// `c` along the axis (Q10 per index, Q16).
    pub fn dequantize(&self) -> Stored<D::Family, f32, S>
    where
        S: Storable,
    {
        fits_inline!(Stored<D::Family, f32, S>);
        let (values, params) = (self.values(), self.params().as_dyn());
        let mut out = values.map(|_| 0.0f32);
        let (dims, axis) = (values.shape(), self.axis());
        dequantize_along(
            values.as_slice(),
            dims.as_ref(),
            axis,
            params,
            out.as_mut_slice(),
        );
        out
    }
}

// The convenience form of each prepared operation: the parameters prepared for this call, in
// double rounding.
macro_rules! quantized_ops {
    ($($name:ident $Op:ident $doc:literal;)*) => {$(
        #[doc = $doc]
        #[track_caller]
        pub fn $name<S2, D2>(
            &self,
            rhs: &Quantized<Tensor<E, S2, D2>, E>,
            out: Quant<E>,
            activation: Activation,
        ) -> Result<QuantizedBroadcast<E, S, D, S2, D2>, Error>
        where
            S: BroadcastWith<S2>,
            S2: Shape,
            D2: Data<E>,
        {
            fits_inline!(Stored<JoinOf<E, D, D2>, E, <S as BroadcastWith<S2>>::Output>);
            let op = $Op::new(self.quant(), rhs.quant(), out, activation, Rounding::Double)?;
            op.run(self, rhs)
        }
    )*};
}

// Maximum and minimum: the prepared form for this call.
macro_rules! extreme_ops {
    ($($name:ident $largest:literal $doc:literal;)*) => {$(
        #[doc = $doc]
        #[track_caller]
        pub fn $name<S2, D2>(
            &self,
            rhs: &Quantized<Tensor<E, S2, D2>, E>,
        ) -> Result<QuantizedBroadcast<E, S, D, S2, D2>, Error>
        where
            S: BroadcastWith<S2>,
            S2: Shape,
            D2: Data<E>,
        {
            fits_inline!(Stored<JoinOf<E, D, D2>, E, <S as BroadcastWith<S2>>::Output>);
            QExtreme::new(self.quant(), rhs.quant(), $largest)?.run(self, rhs)
        }
    )*};
}

/// # Quantized arithmetic
///
/// TFLM's integer contract (rules Q1-Q9), NUMPY-broadcast like the float operators: static
/// shapes checked at compile time, `Dyn` dims at run time (a mismatch panics, as the operators
/// do). The `Result` is for the parameters: a derived multiplier or an activation bound the
/// contract cannot represent.
impl<E: QuantElement, S: Shape, D: Data<E>> Quantized<Tensor<E, S, D>, E> {
    /// The real values, `scale * (q - zero_point)` in `f32` (Q10: TFLM's `DEQUANTIZE`).
    #[inline]
    pub fn dequantize(&self) -> Stored<D::Family, f32, S>
    where
        S: Storable,
    {
        fits_inline!(Stored<D::Family, f32, S>);
        let quant = self.quant();
        self.values()
            .map(|&q| crate::quant::dequantize_value(q, quant))
    }

    /// [`dequantize`](Self::dequantize) into `out`, without an allocator (TFLM's
    /// `DEQUANTIZE`).
    ///
    /// ```
    /// use shaped::quant::Quant;
    /// use shaped::{Shape, Tensor};
    /// let q = Tensor::<i8, Shape![2]>::from([20, -55]).quantized(Quant::new(0.5, -4)?);
    /// let mut x = Tensor::<f32, Shape![2]>::zeros();
    /// q.dequantize_into(&mut x)?;
    /// assert_eq!(x.as_slice(), &[12.0, -25.5]);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    #[inline]
    pub fn dequantize_into<O: DataMut<f32>>(
        &self,
        out: &mut Tensor<f32, S, O>,
    ) -> Result<(), Error> {
        let quant = self.quant();
        map_into(self.values(), out, Operation::Quantize, |&q| {
            crate::quant::dequantize_value(q, quant)
        })
    }

    /// [`requantize`](Self::requantize) into `out` (its integers under `to`), clamped by
    /// `activation` (Q7's bounds under `to`), without an allocator: TFLM's integer-to-integer
    /// `QUANTIZE` with [`Activation::None`], its int8 `RELU`, `RELU6` and `RELU_N1_TO_1`
    /// with the others (Q26). An error value when `activation`'s bounds do not fit `F`.
    ///
    /// ```
    /// use shaped::quant::{Activation, Quant};
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<i8, Shape![3]>::from([-20, 10, 100]).quantized(Quant::new(0.1, 0)?);
    /// let mut y = Tensor::<i8, Shape![3]>::zeros();
    /// x.requantize_into(Quant::new(0.05, -10)?, Activation::Relu6, &mut y)?;
    /// // -2.0 clamps to 0.0 (-10), 1.0 is 20 steps, 10.0 clamps to 6.0 (110).
    /// assert_eq!(y.as_slice(), &[-10, 10, 110]);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    #[inline]
    pub fn requantize_into<F: QuantElement, O: DataMut<F>>(
        &self,
        to: Quant<F>,
        activation: crate::quant::Activation,
        out: &mut Tensor<F, S, O>,
    ) -> Result<(), Error> {
        let values = self.values();
        // The destination first, then the activation's bounds.
        check_same_shape(
            out.shape().as_ref(),
            values.shape().as_ref(),
            Operation::Quantize,
        )?;
        let (lo, hi) = activation.range(to, F::MIN, F::MAX).ok_or_else(|| {
            crate::quant::params::quant_error(crate::error::QuantProblem::ActivationRange)
        })?;
        let op = QRequant::new(self.quant(), to, Rounding::Double);
        for (y, &q) in out.as_mut_slice().iter_mut().zip(values.as_slice()) {
            *y = F::saturate(op.apply(q).to_i32().clamp(lo, hi));
        }
        Ok(())
    }

    quantized_ops! {
        add QAdd "`self + rhs` quantized by `out` and clamped by `activation` (Q8), in TFLM's \
            default double rounding ([`QAdd`] prepares it once, in either rounding, for repeated \
            use).

```compile_fail
use shaped::quant::{Activation, Quant};
use shaped::{Shape, Tensor};
let q = Quant::<i8>::new(0.1, 0).unwrap();
let a = Tensor::<i8, Shape![2, 4]>::splat(1).quantized(q);
let b = Tensor::<i8, Shape![3]>::splat(1).quantized(q);
let c = a.add(&b, q, Activation::None); // 4 vs 3: a compile error
```";
        mul QMul "`self * rhs` quantized by `out` and clamped by `activation` (Q9), in TFLM's \
            default double rounding ([`QMul`] prepares it once, in either rounding).";
        sub QSub "`self - rhs` quantized by `out` and clamped by `activation` (Q11), in TFLM's \
            default double rounding ([`QSub`] prepares it once, in either rounding).";
    }

    extreme_ops! {
        maximum true "The elementwise maximum (Q13): both inputs must share their parameters, \
            which the result keeps.";
        minimum false "The elementwise minimum (Q13), as [`maximum`](Self::maximum).";
    }

    /// `op` on the real values of `self` and `rhs` (Q12), a `bool` tensor, in double rounding
    /// ([`QCompare`] for the other). An input scale of 1 or more is an error.
    ///
    /// ```
    /// use shaped::quant::Quant;
    /// use shaped::{CompareOp, Shape, Tensor};
    /// let a = Tensor::<i8, Shape![3]>::from([1, 2, 3]).quantized(Quant::new(0.5, 0)?);
    /// let b = Tensor::<i8, Shape![1]>::from([4]).quantized(Quant::new(0.25, 0)?);
    /// assert_eq!(a.compare(&b, CompareOp::Gt)?.as_slice(), &[false, false, true]);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    #[track_caller]
    pub fn compare<S2, D2>(
        &self,
        rhs: &Quantized<Tensor<E, S2, D2>, E>,
        op: CompareOp,
    ) -> Result<ComparedBroadcast<E, S, D, S2, D2>, Error>
    where
        S: BroadcastWith<S2>,
        S2: Shape,
        D2: Data<E>,
    {
        fits_inline!(ComparedBroadcast<E, S, D, S2, D2>);
        QCompare::new(self.quant(), rhs.quant(), op, Rounding::Double)?.run(self, rhs)
    }

    /// The same real values under parameters `to` (Q14), in double rounding ([`QRequant`]
    /// for the other).
    #[inline]
    pub fn requantize<F: QuantElement>(&self, to: Quant<F>) -> Quantized<Stored<D::Family, F, S>, F>
    where
        S: Storable,
    {
        fits_inline!(Stored<D::Family, F, S>);
        let op = QRequant::new(self.quant(), to, Rounding::Double);
        Quantized::new(self.values().map(|&q| op.apply(q)), to)
    }
}

macro_rules! prepared_run {
    ($($kind:ident $Op:ident)*) => {$(
        impl<E: QuantElement> $Op<E> {
            /// The operation on two quantized tensors, NUMPY-broadcast (static shapes checked
            /// at compile time; `Dyn` dims at run time, a mismatch panics as the operators
            /// do). The result carries the output parameters the operation was prepared for;
            /// operands with other parameters than it was prepared for are an error.
            #[inline]
            #[track_caller]
            pub fn run<S, D, S2, D2>(
                &self,
                a: &Quantized<Tensor<E, S, D>, E>,
                b: &Quantized<Tensor<E, S2, D2>, E>,
            ) -> Result<QuantizedBroadcast<E, S, D, S2, D2>, Error>
            where
                S: BroadcastWith<S2>,
                D: Data<E>,
                S2: Shape,
                D2: Data<E>,
            {
                fits_inline!(Stored<JoinOf<E, D, D2>, E, <S as BroadcastWith<S2>>::Output>);
                check_inputs(self.inputs(), a.quant(), b.quant())?;
                // Decided at compile time for static shapes, so a small static operation
                // carries neither the tables' code nor their 2 KiB of stack (a Cortex-M4
                // residual network's stack: 2264 bytes before, `qemu-tests/model_size.sh`).
                let fixed = const {
                    static_count(<<S as BroadcastWith<S2>>::Output as Shape>::STATIC_DIMS)
                };
                let large = match fixed {
                    Some(n) => n >= TABLE_MIN,
                    None => {
                        let (sa, sb) = (a.values().shape(), b.values().shape());
                        output_is_large(sa.as_ref(), sb.as_ref(), AutoBroadcast::Numpy)
                    }
                };
                let values = with_element_fn!(
                    $kind self,
                    large,
                    |f| a.values().broadcast_with(b.values(), f),
                    |g| a.values().broadcast_apply(b.values(), crate::runtime::plan::Rows(g))
                );
                Ok(Quantized::new(values, self.output()))
            }

            /// [`run`](Self::run) into `out` (quantized by [`output`](Self::output)), for
            /// static shapes: no allocator, and a result as large as the caller's buffer.
            ///
            /// ```
            /// use shaped::quant::{Activation, QAdd, Quant, Rounding};
            /// use shaped::{Shape, Tensor, TensorViewMut};
            /// let q = Quant::<i8>::new(0.5, 0)?;
            /// let add = QAdd::new(q, q, q, Activation::None, Rounding::Double)?;
            /// let a = Tensor::<i8, Shape![2, 2]>::from([[1, 2], [3, 4]]).quantized(q);
            /// let b = Tensor::<i8, Shape![2]>::from([10, 20]).quantized(q);
            /// let mut buf = [0i8; 4];
            /// add.run_into(&a, &b, &mut TensorViewMut::<i8, Shape![2, 2]>::new(&mut buf)?)?;
            /// assert_eq!(buf, [11, 22, 13, 24]);
            /// # Ok::<(), shaped::Error>(())
            /// ```
            #[inline]
            pub fn run_into<S, D, S2, D2, O>(
                &self,
                a: &Quantized<Tensor<E, S, D>, E>,
                b: &Quantized<Tensor<E, S2, D2>, E>,
                out: &mut Tensor<E, BroadcastOutput<S, S2>, O>,
            ) -> Result<(), Error>
            where
                S: Broadcasts<S2>,
                D: Data<E>,
                S2: StaticShape,
                D2: Data<E>,
                O: DataMut<E>,
            {
                check_inputs(self.inputs(), a.quant(), b.quant())?;
                let large = BroadcastOutput::<S, S2>::LEN >= TABLE_MIN;
                with_element_fn!(
                    $kind self,
                    large,
                    |f| a.values().broadcast_with_into(b.values(), out, f),
                    |g| a.values().broadcast_apply_into(
                        b.values(),
                        out,
                        crate::runtime::plan::Rows(g)
                    )
                );
                Ok(())
            }
        }
    )*};
}

prepared_run!(tables QAdd direct QMul tables QSub direct QExtreme);

impl<E: QuantElement> QCompare<E> {
    /// The comparison of two quantized tensors, NUMPY-broadcast as the operators, a `bool`
    /// tensor; operands with other parameters than it was prepared for are an error.
    #[track_caller]
    pub fn run<S, D, S2, D2>(
        &self,
        a: &Quantized<Tensor<E, S, D>, E>,
        b: &Quantized<Tensor<E, S2, D2>, E>,
    ) -> Result<ComparedBroadcast<E, S, D, S2, D2>, Error>
    where
        S: BroadcastWith<S2>,
        D: Data<E>,
        S2: Shape,
        D2: Data<E>,
    {
        fits_inline!(ComparedBroadcast<E, S, D, S2, D2>);
        check_inputs(self.inputs(), a.quant(), b.quant())?;
        Ok(a.values()
            .broadcast_with(b.values(), |&x, &y| self.apply(x, y)))
    }
}

/// The quantized result of the product of `Tensor<E, S, D>` and `Tensor<E, S2, D2>` with the
/// transposes `TA` and `TB` (G2).
pub type QuantizedProduct<E, S, D, S2, D2, const TA: bool, const TB: bool> =
    Quantized<ProductOf<E, S, D, S2, D2, TA, TB>, E>;

/// The integers of the product of `Tensor<E, S, D>` and `Tensor<E, S2, D2>`.
type ProductOf<E, S, D, S2, D2, const TA: bool, const TB: bool> =
    Stored<JoinOf<E, D, D2>, E, MatMulOutputT<S, S2, TA, TB>>;

/// The product of `a` and `b` (transposed as `TA`, `TB` say) requantized by `op`, into a new
/// tensor: the layout a constant for static shapes, a `Dyn` dim checked here.
#[inline(always)]
fn typed_product<E, P, S, D, S2, D2, const TA: bool, const TB: bool>(
    op: &P,
    a: &Tensor<E, S, D>,
    b: &Tensor<E, S2, D2>,
    bias: Option<&[i32]>,
) -> Result<ProductOf<E, S, D, S2, D2, TA, TB>, Error>
where
    E: QuantElement,
    P: ProductRequant<E>,
    S: Shape + MatMulShapeT<S2, TA, TB>,
    S2: Shape,
    D: Data<E>,
    D2: Data<E>,
    MatMulOutputT<S, S2, TA, TB>: Storable,
{
    type Out<S, S2, const TA: bool, const TB: bool> = MatMulOutputT<S, S2, TA, TB>;
    let rank = <Out<S, S2, TA, TB> as Shape>::RANK;
    let (ad, bd) = (a.shape(), b.shape());
    let (a, b) = (a.as_slice(), b.as_slice());
    // Static shapes borrow a constant layout, and the kernel is inlined so that it folds; a
    // `Dyn` dim is checked here, and the shared kernel runs.
    let fixed = &const { static_plan::<S, S2, TA, TB>() };
    let checked;
    let (p, dims) = match fixed {
        Some((p, dims)) => (p, dims),
        None => {
            checked = checked_layout::<S, S2, TA, TB>(ad.as_ref(), bd.as_ref())?;
            (&checked.0, &checked.1)
        }
    };
    check_bias(bias, p.n)?;
    Ok(<<Out<S, S2, TA, TB> as Shape>::Kind as ResultStorage<
        Out<S, S2, TA, TB>,
    >>::filled::<JoinOf<E, D, D2>, E>(
        &dims[..rank],
        E::saturate(0),
        |out| {
            if fixed.is_some() {
                product_fixed(op, walk(p), a, b, bias, out)
            } else {
                product_into(op, walk(p), a, b, bias, out)
            }
        },
    ))
}

/// [`typed_product`] into `out`, whose dims must be the product's (checked for `Dyn` dims).
#[inline(always)]
fn typed_product_into<E, P, S, D, S2, D2, O, const TA: bool, const TB: bool>(
    op: &P,
    a: &Tensor<E, S, D>,
    b: &Tensor<E, S2, D2>,
    bias: Option<&[i32]>,
    out: &mut Tensor<E, MatMulOutputT<S, S2, TA, TB>, O>,
) -> Result<(), Error>
where
    E: QuantElement,
    P: ProductRequant<E>,
    S: Shape + MatMulShapeT<S2, TA, TB>,
    S2: Shape,
    D: Data<E>,
    D2: Data<E>,
    O: DataMut<E>,
{
    let rank = <MatMulOutputT<S, S2, TA, TB> as Shape>::RANK;
    if let Some((p, _)) = &const { static_plan::<S, S2, TA, TB>() } {
        // Static shapes: `out`'s dims are the product's by its type; a constant layout, the
        // kernel inlined so that it folds.
        check_bias(bias, p.n)?;
        let (a, b, out) = (a.as_slice(), b.as_slice(), out.as_mut_slice());
        product_fixed(op, walk(p), a, b, bias, out);
        return Ok(());
    }
    let (ad, bd) = (a.shape(), b.shape());
    let (p, dims) = checked_layout::<S, S2, TA, TB>(ad.as_ref(), bd.as_ref())?;
    check_bias(bias, p.n)?;
    if out.shape().as_ref() != &dims[..rank] {
        let kind = crate::error::ErrorKind::LengthMismatch {
            expected: dims[..rank].iter().product(),
            actual: out.len(),
        };
        return Err(crate::rules::matmul_error(kind, ad.as_ref(), bd.as_ref()));
    }
    product_into(
        op,
        walk(&p),
        a.as_slice(),
        b.as_slice(),
        bias,
        out.as_mut_slice(),
    );
    Ok(())
}

/// The quantized kernel's view of a product layout. Always inlined, so that a constant layout
/// stays a constant in the kernel.
#[inline(always)]
fn walk(p: &Layout) -> Walk<'_> {
    // `batch` is at most the arrays' length already; the `min` lets the compiler see it, so
    // the slicing keeps no panic path (and no `core::fmt` in firmware).
    let batch = p.batch.min(p.count.len());
    Walk {
        m: p.m,
        k: p.k,
        n: p.n,
        batch: &p.count[..batch],
        a_batch: &p.a_step[..batch],
        b_batch: &p.b_step[..batch],
        a_row: p.a_row,
        a_col: p.a_col,
        b_row: p.b_row,
        b_col: p.b_col,
    }
}

/// # Quantized products on static and mixed tensors
///
/// TFLM's `FULLY_CONNECTED` (`x` times the transpose of weights stored `[out, in]`) and
/// `BATCH_MATMUL` (numpy's `matmul`, batch dims broadcast), rule Q17: the shapes checked at
/// compile time for static dims and at run time (an error value) for `Dyn` dims.
impl<E: QuantElement> QMatMul<E> {
    /// `x` times the transpose of `w` (TFLM's `FULLY_CONNECTED`: `x` is `[..., in]`, `w` is
    /// `[out, in]`, the result `[..., out]`), plus `bias` (one `i32` per output column, at
    /// scale `sa sb` and zero point 0), requantized (Q17). An error value when the operands
    /// carry other parameters than the prepared ones, or the bias has another length.
    #[inline]
    pub fn fully_connected<S, D, S2, D2>(
        &self,
        x: &Quantized<Tensor<E, S, D>, E>,
        w: &Quantized<Tensor<E, S2, D2>, E>,
        bias: Option<&[i32]>,
    ) -> Result<QuantizedProduct<E, S, D, S2, D2, false, true>, Error>
    where
        S: Shape + MatMulShapeT<S2, false, true>,
        S2: Shape,
        D: Data<E>,
        D2: Data<E>,
        MatMulOutputT<S, S2, false, true>: Storable,
    {
        fits_inline!(ProductOf<E, S, D, S2, D2, false, true>);
        check_inputs(self.inputs(), x.quant(), w.quant())?;
        let y = typed_product::<_, _, _, _, _, _, false, true>(self, x.values(), w.values(), bias)?;
        Ok(Quantized::new(y, self.output()))
    }

    /// [`fully_connected`](Self::fully_connected) into `out` (quantized by
    /// [`output`](Self::output)), without an allocator.
    #[inline]
    pub fn fully_connected_into<S, D, S2, D2, O>(
        &self,
        x: &Quantized<Tensor<E, S, D>, E>,
        w: &Quantized<Tensor<E, S2, D2>, E>,
        bias: Option<&[i32]>,
        out: &mut Tensor<E, MatMulOutputT<S, S2, false, true>, O>,
    ) -> Result<(), Error>
    where
        S: Shape + MatMulShapeT<S2, false, true>,
        S2: Shape,
        D: Data<E>,
        D2: Data<E>,
        O: DataMut<E>,
    {
        check_inputs(self.inputs(), x.quant(), w.quant())?;
        typed_product_into::<_, _, _, _, _, _, _, false, true>(
            self,
            x.values(),
            w.values(),
            bias,
            out,
        )
    }

    /// `a` times `b`, numpy's `matmul` with the batch dims broadcast (TFLM's `BATCH_MATMUL`),
    /// requantized (Q17).
    ///
    /// ```
    /// use shaped::quant::{Activation, QMatMul, Quant, Rounding};
    /// use shaped::{Shape, Tensor};
    /// let q = Quant::<i8>::new(0.5, 0)?;
    /// let op = QMatMul::new(q, q, q, Activation::None, Rounding::Double)?;
    /// let a = Tensor::<i8, Shape![2, 1, 2]>::from([[[2, 4]], [[6, 8]]]).quantized(q);
    /// let b = Tensor::<i8, Shape![2, 2]>::from([[2, 0], [0, 2]]).quantized(q);
    /// // Each batch of `a` times the one `b`: [1, 2] and [3, 4] times the identity.
    /// assert_eq!(op.matmul(&a, &b)?.values().as_slice(), &[2, 4, 6, 8]);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn matmul<S, D, S2, D2>(
        &self,
        a: &Quantized<Tensor<E, S, D>, E>,
        b: &Quantized<Tensor<E, S2, D2>, E>,
    ) -> Result<QuantizedProduct<E, S, D, S2, D2, false, false>, Error>
    where
        S: Shape + MatMulShapeT<S2, false, false>,
        S2: Shape,
        D: Data<E>,
        D2: Data<E>,
        MatMulOutputT<S, S2, false, false>: Storable,
    {
        fits_inline!(ProductOf<E, S, D, S2, D2, false, false>);
        check_inputs(self.inputs(), a.quant(), b.quant())?;
        let y =
            typed_product::<_, _, _, _, _, _, false, false>(self, a.values(), b.values(), None)?;
        Ok(Quantized::new(y, self.output()))
    }

    /// [`matmul`](Self::matmul) into `out`, without an allocator.
    pub fn matmul_into<S, D, S2, D2, O>(
        &self,
        a: &Quantized<Tensor<E, S, D>, E>,
        b: &Quantized<Tensor<E, S2, D2>, E>,
        out: &mut Tensor<E, MatMulOutputT<S, S2, false, false>, O>,
    ) -> Result<(), Error>
    where
        S: Shape + MatMulShapeT<S2, false, false>,
        S2: Shape,
        D: Data<E>,
        D2: Data<E>,
        O: DataMut<E>,
    {
        check_inputs(self.inputs(), a.quant(), b.quant())?;
        typed_product_into::<_, _, _, _, _, _, _, false, false>(
            self,
            a.values(),
            b.values(),
            None,
            out,
        )
    }
}

/// # Per-channel quantized products on static and mixed tensors
///
/// TFLM's per-channel `FULLY_CONNECTED` (Q18): weights `[out, in]` quantized along axis 0, the
/// number of scales checked against `out` at compile time.
impl<'p, E: QuantElement, const N: usize> QMatMulPerChannel<'p, E, N> {
    /// The error of operands whose parameters are not the prepared ones, or weights not
    /// quantized along their output axis (Q18). Inlined, as `check_per_channel` is.
    #[inline(always)]
    fn check_operands<S: Shape, D: Data<E>, S2: Shape, D2: Data<E>>(
        &self,
        x: &Quantized<Tensor<E, S, D>, E>,
        w: &QuantizedPerAxis<Tensor<E, S2, D2>, PerAxis<'p, E, N>>,
    ) -> Result<(), Error> {
        let (qx, qw) = self.inputs();
        let dims = w.values().shape();
        check_per_channel(
            (qx, qw.to_dyn()),
            x.quant(),
            w.params().to_dyn(),
            w.axis(),
            dims.as_ref(),
        )
    }

    /// `x` times the transpose of `w` plus `bias`, each output column requantized by its own
    /// multiplier (Q18). An error value when the operands carry other parameters than the
    /// prepared ones (or `w` is not quantized along its output axis), or the bias has another
    /// length.
    #[inline]
    pub fn fully_connected<S, D, S2, D2>(
        &self,
        x: &Quantized<Tensor<E, S, D>, E>,
        w: &QuantizedPerAxis<Tensor<E, S2, D2>, PerAxis<'p, E, N>>,
        bias: Option<&[i32]>,
    ) -> Result<QuantizedProduct<E, S, D, S2, D2, false, true>, Error>
    where
        S: Shape + MatMulShapeT<S2, false, true>,
        S2: Shape + PerAxisShape<0, N>,
        D: Data<E>,
        D2: Data<E>,
        MatMulOutputT<S, S2, false, true>: Storable,
    {
        fits_inline!(ProductOf<E, S, D, S2, D2, false, true>);
        self.check_operands(x, w)?;
        let y = typed_product::<_, _, _, _, _, _, false, true>(
            self.requants(),
            x.values(),
            w.values(),
            bias,
        )?;
        Ok(Quantized::new(y, self.output()))
    }

    /// [`fully_connected`](Self::fully_connected) into `out`, without an allocator.
    #[inline]
    pub fn fully_connected_into<S, D, S2, D2, O>(
        &self,
        x: &Quantized<Tensor<E, S, D>, E>,
        w: &QuantizedPerAxis<Tensor<E, S2, D2>, PerAxis<'p, E, N>>,
        bias: Option<&[i32]>,
        out: &mut Tensor<E, MatMulOutputT<S, S2, false, true>, O>,
    ) -> Result<(), Error>
    where
        S: Shape + MatMulShapeT<S2, false, true>,
        S2: Shape + PerAxisShape<0, N>,
        D: Data<E>,
        D2: Data<E>,
        O: DataMut<E>,
    {
        self.check_operands(x, w)?;
        typed_product_into::<_, _, _, _, _, _, _, false, true>(
            self.requants(),
            x.values(),
            w.values(),
            bias,
            out,
        )
    }
}
