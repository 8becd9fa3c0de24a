//! Quantized runtime tensors (rules Q1-Q10): [`Quantized`] over a [`DynTensor`], with every
//! broadcast mode of the runtime path (NONE, NUMPY, PDPD with an axis, Bidirectional) and a
//! `Result` for shapes and parameters alike.

use super::dyn_tensor::{AsInput, DynTensor};
use crate::error::Error;
use crate::op::CompareOp;
use crate::quant::per_axis::{check_axis, dequantize_along, quantize_along};
use crate::quant::{
    Activation, AxisParams, DynPerAxis, QAdd, QCompare, QExtreme, QMul, QRequant, QSub, Quant,
    QuantElement, Quantized, QuantizedPerAxis, Rounding,
};
use crate::rules::AutoBroadcast;

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
    /// These integers quantized along `axis` by `params`, one per index of the axis: an error
    /// value when the axis is outside the shape or its size is not `params.len()` (Q16).
    ///
    /// ```
    /// use shaped::{quant::DynPerAxis, DynTensor};
    /// let w = DynTensor::from_shape_vec([2, 2], vec![4i8, 8, 12, 16]).unwrap();
    /// let q = w.try_quantized_per_axis(0, DynPerAxis::new(&[0.5, 0.25], &[0, 4])?)?;
    /// assert_eq!(q.dequantize().as_slice(), &[2.0, 4.0, 2.0, 3.0]);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn try_quantized_per_axis<'p>(
        self,
        axis: usize,
        params: DynPerAxis<'p, E>,
    ) -> Result<QuantizedPerAxis<Self, DynPerAxis<'p, E>>, Error> {
        check_axis(self.shape(), axis, params)?;
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
                let out_len = crate::quant::elementwise::broadcast_len(a.shape, b.shape);
                let large = out_len >= crate::quant::elementwise::TABLE_MIN;
                let values = crate::quant::elementwise::with_element_fn!($kind self, large, |f| {
                    super::dyn_tensor::zip_inputs(a, b, mode, f)
                })?;
                Ok(Quantized::new(values, self.output()))
            }
        }
    )*};
}

prepared_run_dyn!(tables QAdd direct QMul tables QSub direct QExtreme);

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
