//! Quantized runtime tensors (rules Q1-Q10): [`Quantized`] over a [`DynTensor`], with every
//! broadcast mode of the runtime path (NONE, NUMPY, PDPD with an axis, Bidirectional) and a
//! `Result` for shapes and parameters alike.

use super::array_ref::ArrayRef;
use super::dyn_tensor::{AsInput, DynTensor};
use super::matmul::{reader, Reader};
use crate::error::Error;
use crate::op::CompareOp;
use crate::quant::matmul::{check_bias, check_per_channel, product_into, ProductRequant, Walk};
use crate::quant::per_axis::{check_axis, dequantize_along, quantize_along};
use crate::quant::{
    Activation, AxisParams, DynPerAxis, DynQMatMulPerChannel, PerAxis, QAdd, QCompare, QExtreme,
    QMatMul, QMatMulPerChannel, QMul, QRequant, QSub, Quant, QuantElement, Quantized,
    QuantizedPerAxis, Rounding,
};
use crate::rules::{AutoBroadcast, MatMulOptions};

/// # Quantization
impl<E: QuantElement> DynTensor<E> {
    /// These integers, with the parameters that give them meaning (Q1).
    #[inline]
    pub fn quantized(self, quant: Quant<E>) -> Quantized<Self, E> {
        Quantized::new(self, quant)
    }
}

impl DynTensor<f32> {
    /// Each value as `zero_point + round(x / scale)`, clamped to `E`'s range (Q10).
    ///
    /// ```
    /// use shaped::{quant::Quant, DynTensor};
    /// let x = DynTensor::from_shape_vec([3], vec![0.5f32, -1.0, 3.1]).unwrap();
    /// let q = x.quantize(Quant::<u8>::new(0.02, 128)?);
    /// assert_eq!(q.values().as_slice(), &[153, 78, 255]);
    /// assert_eq!(q.dequantize().as_slice(), &[0.5, -1.0, 2.54]);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn quantize<E: QuantElement>(&self, quant: Quant<E>) -> Quantized<DynTensor<E>, E> {
        Quantized::new(self.map(|&x| crate::quant::quantize_value(x, quant)), quant)
    }
}

/// # Per-axis quantization
impl<E: QuantElement> DynTensor<E> {
    /// These integers quantized along `axis` by `params` ([`PerAxis`] or [`DynPerAxis`]), one
    /// per index of the axis: an error value when the axis is outside the shape or its size is
    /// not `params.len()` (Q16).
    ///
    /// ```
    /// use shaped::{quant::DynPerAxis, DynTensor};
    /// let w = DynTensor::from_shape_vec([2, 2], vec![4i8, 8, 12, 16]).unwrap();
    /// let q = w.try_quantized_per_axis(0, DynPerAxis::new(&[0.5, 0.25], &[0, 4])?)?;
    /// assert_eq!(q.dequantize().as_slice(), &[2.0, 4.0, 2.0, 3.0]);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn try_quantized_per_axis<P: AxisParams<E>>(
        self,
        axis: usize,
        params: P,
    ) -> Result<QuantizedPerAxis<Self, P>, Error> {
        check_axis(self.shape(), axis, params.as_dyn())?;
        Ok(QuantizedPerAxis::new_unchecked(self, params, axis))
    }
}

impl DynTensor<f32> {
    /// Each value quantized with the parameters of its index along `axis` (Q10 per index,
    /// Q16): an error value when they do not fit the axis.
    ///
    /// ```
    /// use shaped::{quant::DynPerAxis, DynTensor};
    /// let x = DynTensor::from_shape_vec([2, 2], vec![1.0f32, -1.0, 1.0, -1.0]).unwrap();
    /// let q = x.try_quantize_per_axis::<u8>(1, DynPerAxis::new(&[0.5, 0.25], &[128, 0])?)?;
    /// assert_eq!(q.values().as_slice(), &[130, 0, 130, 0]);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn try_quantize_per_axis<'p, E: QuantElement>(
        &self,
        axis: usize,
        params: DynPerAxis<'p, E>,
    ) -> Result<QuantizedPerAxis<DynTensor<E>, DynPerAxis<'p, E>>, Error> {
        check_axis(self.shape(), axis, params)?;
        let mut out = self.map(|_| E::saturate(0));
        quantize_along(
            self.as_slice(),
            self.shape(),
            axis,
            params,
            out.as_mut_slice(),
        );
        Ok(QuantizedPerAxis::new_unchecked(out, params, axis))
    }
}

impl<E: QuantElement, P: AxisParams<E>> QuantizedPerAxis<DynTensor<E>, P> {
    /// The real values, `scale_c * (q - zero_point_c)` with the parameters of each value's index
    /// `c` along the axis (Q10 per index, Q16).
    pub fn dequantize(&self) -> DynTensor<f32> {
        let (values, params) = (self.values(), self.params().as_dyn());
        let mut out = values.map(|_| 0.0f32);
        let (dims, axis) = (values.shape(), self.axis());
        dequantize_along(values.as_slice(), dims, axis, params, out.as_mut_slice());
        out
    }
}

// The convenience form of each prepared operation: the parameters prepared for this call, in
// double rounding.
macro_rules! quantized_dyn_ops {
    ($($name:ident $Op:ident $doc:literal;)*) => {$(
        #[doc = $doc]
        pub fn $name(
            &self,
            rhs: &Quantized<DynTensor<E>, E>,
            out: Quant<E>,
            activation: Activation,
            mode: AutoBroadcast,
        ) -> Result<Self, Error> {
            let op = $Op::new(self.quant(), rhs.quant(), out, activation, Rounding::Double)?;
            op.run_dyn(self, rhs, mode)
        }
    )*};
}

/// # Quantized arithmetic
///
/// TFLM's integer contract (Q1-Q9) under any of the runtime broadcast modes; shape errors and
/// parameter errors are both error values.
impl<E: QuantElement> Quantized<DynTensor<E>, E> {
    /// The real values, `scale * (q - zero_point)` (Q10).
    pub fn dequantize(&self) -> DynTensor<f32> {
        let quant = self.quant();
        self.values()
            .map(|&q| crate::quant::dequantize_value(q, quant))
    }

    quantized_dyn_ops! {
        add QAdd "`self + rhs` under `mode`, quantized by `out` and clamped by `activation` \
            (Q8), in TFLM's default double rounding ([`QAdd`] for the other).

```
use shaped::quant::{Activation, Quant};
use shaped::{AutoBroadcast, DynTensor};
let q = Quant::<i8>::new(0.5, 0)?;
let a = DynTensor::from_shape_vec([2, 2], vec![1i8, 2, 3, 4])?.quantized(q);
let b = DynTensor::from_shape_vec([2], vec![10i8, 20])?.quantized(q);
let c = a.add(&b, q, Activation::None, AutoBroadcast::Numpy)?;
assert_eq!(c.values().as_slice(), &[11, 22, 13, 24]);
let bad = DynTensor::from_shape_vec([3], vec![0i8; 3])?.quantized(q);
assert_eq!(
    a.add(&bad, q, Activation::None, AutoBroadcast::Numpy).unwrap_err().to_string(),
    \"cannot broadcast [2, 2] with [3] (numpy): axis 1 has 2 vs 3\"
);
# Ok::<(), shaped::Error>(())
```";
        mul QMul "`self * rhs` under `mode`, quantized by `out` and clamped by `activation` \
            (Q9), in TFLM's default double rounding ([`QMul`] for the other).";
        sub QSub "`self - rhs` under `mode`, quantized by `out` and clamped by `activation` \
            (Q11), in TFLM's default double rounding ([`QSub`] for the other).";
    }

    /// The elementwise maximum (`largest`) or minimum under `mode` (Q13): both inputs must
    /// share their parameters, which the result keeps.
    pub fn extreme(
        &self,
        rhs: &Quantized<DynTensor<E>, E>,
        largest: bool,
        mode: AutoBroadcast,
    ) -> Result<Self, Error> {
        QExtreme::new(self.quant(), rhs.quant(), largest)?.run_dyn(self, rhs, mode)
    }

    /// `op` on the real values under `mode` (Q12), in double rounding.
    pub fn compare(
        &self,
        rhs: &Quantized<DynTensor<E>, E>,
        op: CompareOp,
        mode: AutoBroadcast,
    ) -> Result<DynTensor<bool>, Error> {
        QCompare::new(self.quant(), rhs.quant(), op, Rounding::Double)?.run_dyn(self, rhs, mode)
    }

    /// The same real values under parameters `to` (Q14), in double rounding.
    pub fn requantize<F: QuantElement>(&self, to: Quant<F>) -> Quantized<DynTensor<F>, F> {
        let op = QRequant::new(self.quant(), to, Rounding::Double);
        Quantized::new(self.values().map(|&q| op.apply(q)), to)
    }
}

macro_rules! prepared_run_dyn {
    ($($kind:ident $Op:ident)*) => {$(
        impl<E: QuantElement> $Op<E> {
            /// The operation on two quantized runtime tensors (or views: anything the runtime
            /// path takes as an input) broadcast under `mode`; the result carries the output
            /// parameters the operation was prepared for, and operands with other parameters
            /// are an error.
            pub fn run_dyn(
                &self,
                a: &Quantized<impl AsInput<E>, E>,
                b: &Quantized<impl AsInput<E>, E>,
                mode: AutoBroadcast,
            ) -> Result<Quantized<DynTensor<E>, E>, Error> {
                crate::quant::elementwise::check_inputs(self.inputs(), a.quant(), b.quant())?;
                let (a, b) = (a.values().as_input(), b.values().as_input());
                let large = crate::quant::elementwise::output_is_large(a.shape, b.shape, mode);
                let values = crate::quant::elementwise::with_element_fn!(
                    $kind self,
                    large,
                    |f| super::dyn_tensor::zip_inputs(a, b, mode, f),
                    |g| super::dyn_tensor::zip_inputs_with(a, b, mode, super::plan::Rows(g))
                )?;
                Ok(Quantized::new(values, self.output()))
            }
        }
    )*};
}

prepared_run_dyn!(tables QAdd direct QMul tables QSub direct QExtreme);

/// The add's and subtract's rows holding one input's value, read from byte tables.
#[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
impl<E: QuantElement, const SUB: bool> super::plan::RowFn<E, E, E>
    for crate::quant::elementwise::AddRows<'_, E, SUB>
{
    #[inline(always)]
    fn rows_pay(&self, n: usize, total: usize) -> bool {
        Self::rows_pay(n, total)
    }
    #[inline(always)]
    fn call(&mut self, x: &E, y: &E) -> E {
        crate::quant::elementwise::AddRows::call(self, *x, *y)
    }
    #[inline(always)]
    fn row_a<O: crate::util::Slot<E>>(&mut self, x: &E, ys: &[E], out: &mut [O]) {
        self.row(crate::quant::elementwise::Held::A, *x, ys, out);
    }
    #[inline(always)]
    fn row_b<O: crate::util::Slot<E>>(&mut self, xs: &[E], y: &E, out: &mut [O]) {
        self.row(crate::quant::elementwise::Held::B, *y, xs, out);
    }
}

impl<E: QuantElement> QCompare<E> {
    /// The comparison of two quantized runtime tensors (or views) under `mode`.
    pub fn run_dyn(
        &self,
        a: &Quantized<impl AsInput<E>, E>,
        b: &Quantized<impl AsInput<E>, E>,
        mode: AutoBroadcast,
    ) -> Result<DynTensor<bool>, Error> {
        crate::quant::elementwise::check_inputs(self.inputs(), a.quant(), b.quant())?;
        let (a, b) = (a.values().as_input(), b.values().as_input());
        super::dyn_tensor::zip_inputs(a, b, mode, |&x, &y| self.apply(x, y))
    }
}

/// The product of runtime tensors `a` and `b` (transposed as `options` says) requantized by
/// `op` into a new `DynTensor` (Q17, G1-G6): any rank the runtime takes, batch dims broadcast,
/// every shape problem an error value.
fn dyn_product<E: QuantElement>(
    op: &impl ProductRequant<E>,
    a: &DynTensor<E>,
    b: &DynTensor<E>,
    bias: Option<&[i32]>,
    options: MatMulOptions,
) -> Result<DynTensor<E>, Error> {
    let (a, b) = (
        ArrayRef::trusted(a.shape(), a.as_slice()),
        ArrayRef::trusted(b.shape(), b.as_slice()),
    );
    let dims =
        crate::rules::resolve_matmul::<{ crate::rules::MAX_RANK }>(a.shape, b.shape, options)?;
    check_bias(bias, dims.n)?;
    let rank = dims.batch.len();
    let ra: Reader<{ crate::rules::MAX_RANK }> = reader(&a, options.transpose_a, true, rank);
    let rb: Reader<{ crate::rules::MAX_RANK }> = reader(&b, options.transpose_b, false, rank);
    let walk = Walk {
        m: dims.m,
        k: dims.k,
        n: dims.n,
        batch: &dims.batch,
        a_batch: &ra.batch,
        b_batch: &rb.batch,
        a_row: ra.row,
        a_col: ra.col,
        b_row: rb.row,
        b_col: rb.col,
    };
    let count = super::element_count::<E>(&dims.out)?;
    let mut out = super::try_filled(count, E::saturate(0), &dims.out)?;
    product_into(op, walk, a.data, b.data, bias, &mut out);
    DynTensor::from_shape_vec(&dims.out[..], out)
}

/// `x` times the transpose of per-channel weights `w`, requantized by `op` (prepared for
/// `prepared`) into `output`'s parameters (Q18): both per-channel products' runtime form.
fn per_channel_fc<E: QuantElement, P: AxisParams<E>>(
    op: &impl ProductRequant<E>,
    prepared: (Quant<E>, DynPerAxis<'_, E>),
    x: &Quantized<DynTensor<E>, E>,
    w: &QuantizedPerAxis<DynTensor<E>, P>,
    bias: Option<&[i32]>,
    output: Quant<E>,
) -> Result<Quantized<DynTensor<E>, E>, Error> {
    let params = w.params().as_dyn();
    check_per_channel(prepared, x.quant(), params, w.axis(), w.values().shape())?;
    let options = MatMulOptions {
        transpose_a: false,
        transpose_b: true,
    };
    let y = dyn_product(op, x.values(), w.values(), bias, options)?;
    Ok(Quantized::new(y, output))
}

/// # Quantized products on runtime tensors
impl<E: QuantElement> QMatMul<E> {
    /// [`fully_connected`](QMatMul::fully_connected) on runtime tensors: `x` `[..., in]` times
    /// the transpose of `w` `[out, in]`, plus `bias`, requantized (Q17); shape, parameter and
    /// bias problems are error values.
    ///
    /// ```
    /// use shaped::quant::{Activation, QMatMul, Quant, Rounding};
    /// use shaped::DynTensor;
    /// let q = Quant::<i8>::new(0.5, 0)?;
    /// let op = QMatMul::new(q, q, q, Activation::None, Rounding::Double)?;
    /// let x = DynTensor::from_shape_vec([1, 2], vec![2i8, 4]).unwrap().quantized(q);
    /// let w = DynTensor::from_shape_vec([3, 2], vec![2i8, 0, 0, 2, 2, 2]).unwrap().quantized(q);
    /// let y = op.fully_connected_dyn(&x, &w, Some(&[0, 0, 4]))?;
    /// assert_eq!(y.values().shape(), [1, 3]);
    /// assert_eq!(y.values().as_slice(), &[2, 4, 8]);
    /// let bad = DynTensor::from_shape_vec([3, 4], vec![0i8; 12]).unwrap().quantized(q);
    /// assert_eq!(
    ///     op.fully_connected_dyn(&x, &bad, None).unwrap_err().to_string(),
    ///     "cannot multiply [1, 2] by [3, 4] (matmul): inner dims 2 vs 4 (G4)"
    /// );
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn fully_connected_dyn(
        &self,
        x: &Quantized<DynTensor<E>, E>,
        w: &Quantized<DynTensor<E>, E>,
        bias: Option<&[i32]>,
    ) -> Result<Quantized<DynTensor<E>, E>, Error> {
        crate::quant::elementwise::check_inputs(self.inputs(), x.quant(), w.quant())?;
        let options = MatMulOptions {
            transpose_a: false,
            transpose_b: true,
        };
        let y = dyn_product(self, x.values(), w.values(), bias, options)?;
        Ok(Quantized::new(y, self.output()))
    }

    /// [`matmul`](QMatMul::matmul) on runtime tensors (TFLM's `BATCH_MATMUL`, with OpenVINO's
    /// transposes in `options`), requantized (Q17).
    pub fn matmul_dyn(
        &self,
        a: &Quantized<DynTensor<E>, E>,
        b: &Quantized<DynTensor<E>, E>,
        options: MatMulOptions,
    ) -> Result<Quantized<DynTensor<E>, E>, Error> {
        crate::quant::elementwise::check_inputs(self.inputs(), a.quant(), b.quant())?;
        let y = dyn_product(self, a.values(), b.values(), None, options)?;
        Ok(Quantized::new(y, self.output()))
    }
}

impl<'p, E: QuantElement, const N: usize> QMatMulPerChannel<'p, E, N> {
    /// [`fully_connected`](QMatMulPerChannel::fully_connected) on runtime tensors: the weights
    /// `[N, in]` quantized along axis 0 (an error value otherwise, or when the parameters are
    /// not the prepared ones), each output column requantized by its own multiplier (Q18).
    pub fn fully_connected_dyn(
        &self,
        x: &Quantized<DynTensor<E>, E>,
        w: &QuantizedPerAxis<DynTensor<E>, PerAxis<'p, E, N>>,
        bias: Option<&[i32]>,
    ) -> Result<Quantized<DynTensor<E>, E>, Error> {
        let (qx, qw) = self.inputs();
        per_channel_fc(
            self.requants(),
            (qx, qw.to_dyn()),
            x,
            w,
            bias,
            self.output(),
        )
    }
}

impl<'p, E: QuantElement> DynQMatMulPerChannel<'p, E> {
    /// `x` `[..., in]` times the transpose of `w` `[out, in]` quantized along axis 0 by the
    /// prepared per-channel parameters, plus `bias`, each output column requantized by its own
    /// multiplier (Q18): an error value when the parameters are not the prepared ones, the
    /// weights are not quantized along their output axis, or a shape or the bias does not fit.
    pub fn fully_connected_dyn(
        &self,
        x: &Quantized<DynTensor<E>, E>,
        w: &QuantizedPerAxis<DynTensor<E>, DynPerAxis<'p, E>>,
        bias: Option<&[i32]>,
    ) -> Result<Quantized<DynTensor<E>, E>, Error> {
        per_channel_fc(self, self.inputs(), x, w, bias, self.output())
    }
}
