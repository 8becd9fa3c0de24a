//! TFLM's int8 `SOFTMAX`, `LOGISTIC`, `TANH`, `MEAN`, `PAD`/`PADV2` and `CONCATENATION` on
//! quantized runtime tensors (rules Q20-Q25): shapes as values, every mismatch of shapes or
//! parameters an error value.

use alloc::vec::Vec;

use super::dyn_tensor::DynTensor;
use crate::error::{Error, ErrorKind, Operation};
use crate::op::ShapeOp;
use crate::quant::activation::softmax_rank_error;
use crate::quant::elementwise::not_prepared;
use crate::quant::mean::{check_concat, mean_blocks};
use crate::quant::{QLogistic, QMean, QSoftmax, QTanh, Quant, QuantElement, Quantized, Rounding};
use crate::rules::PadMode;

/// The error of an input quantized by other parameters than `prepared`.
#[inline(always)]
fn check_input(prepared: Quant<i8>, given: Quant<i8>) -> Result<(), Error> {
    if prepared == given {
        Ok(())
    } else {
        Err(not_prepared())
    }
}

/// # Int8 activations and means on runtime tensors
impl QSoftmax {
    /// The softmax along the last axis of `x` (Q20), quantized by [`QSoftmax::OUTPUT`]: an
    /// error value when `x` carries other parameters than the prepared ones, has rank 0, or a
    /// row's exponentials add up to 512 or more.
    pub fn run_dyn(
        &self,
        x: &Quantized<DynTensor<i8>, i8>,
    ) -> Result<Quantized<DynTensor<i8>, i8>, Error> {
        check_input(self.input(), x.quant())?;
        let values = x.values();
        let Some(&depth) = values.shape().last() else {
            return Err(softmax_rank_error(values.shape()));
        };
        let mut out = values.map(|_| 0i8);
        self.rows(values.as_slice(), depth, out.as_mut_slice())?;
        Ok(Quantized::new(out, Self::OUTPUT))
    }
}

impl QLogistic {
    /// The logistic function of each element of `x` (Q21), quantized by
    /// [`QLogistic::OUTPUT`]: an error value when `x` carries other parameters than the
    /// prepared ones.
    pub fn run_dyn(
        &self,
        x: &Quantized<DynTensor<i8>, i8>,
    ) -> Result<Quantized<DynTensor<i8>, i8>, Error> {
        check_input(self.input(), x.quant())?;
        Ok(Quantized::new(
            x.values().map(|&v| self.apply(v)),
            Self::OUTPUT,
        ))
    }
}

impl QTanh {
    /// The tanh of each element of `x` (Q22), quantized by [`QTanh::OUTPUT`]: an error value
    /// when `x` carries other parameters than the prepared ones.
    pub fn run_dyn(
        &self,
        x: &Quantized<DynTensor<i8>, i8>,
    ) -> Result<Quantized<DynTensor<i8>, i8>, Error> {
        check_input(self.input(), x.quant())?;
        Ok(Quantized::new(
            x.values().map(|&v| self.apply(v)),
            Self::OUTPUT,
        ))
    }
}

impl QMean {
    /// The mean over axes 1 and 2 of `x` (height and width of NHWC; any rank from 3, the
    /// axes after them kept), Q23: `[N, 1, 1, C]` with `keep_dims`, `[N, C]` without. An error
    /// value when `x` carries other parameters than the prepared ones or has no axis 2.
    ///
    /// ```
    /// use shaped::quant::{QMean, Quant, Rounding};
    /// use shaped::DynTensor;
    /// let q = Quant::<i8>::new(0.1, 0)?;
    /// let op = QMean::new(q, q, Rounding::Double)?;
    /// let x = DynTensor::from_shape_vec([1, 2, 2, 1], vec![1i8, 2, 3, 5])?.quantized(q);
    /// let y = op.run_dyn(&x, true)?;
    /// assert_eq!((y.values().shape(), y.values().as_slice()), (&[1, 1, 1, 1][..], &[3i8][..]));
    /// let flat = DynTensor::from_shape_vec([2, 2], vec![0i8; 4])?.quantized(q);
    /// assert_eq!(
    ///     op.run_dyn(&flat, false).unwrap_err().to_string(),
    ///     "cannot reduce [2, 2] (mean): axis 2 is out of range for rank 2"
    /// );
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn run_dyn(
        &self,
        x: &Quantized<DynTensor<i8>, i8>,
        keep_dims: bool,
    ) -> Result<Quantized<DynTensor<i8>, i8>, Error> {
        check_input(self.input(), x.quant())?;
        let dims = x.values().shape();
        let (outer, positions, inner) = mean_blocks(dims)?;
        let mut shape = Vec::with_capacity(dims.len());
        shape.push(dims[0]);
        if keep_dims {
            shape.extend_from_slice(&[1, 1]);
        }
        shape.extend_from_slice(&dims[3..]);
        let count = super::element_count::<i8>(&shape)?;
        let mut out = super::try_filled(count, 0i8, &shape)?;
        self.reduce_into(x.values().as_slice(), outer, positions, inner, &mut out);
        Ok(Quantized::new(
            DynTensor::from_parts(&shape, out),
            self.output(),
        ))
    }
}

/// # Int8 activations and means (TFLM)
///
/// TFLM's `SOFTMAX`, `LOGISTIC`, `TANH` (Q20-Q22) and `MEAN` (Q23) on `i8`, in its default
/// double rounding, each prepared for this call ([`QSoftmax`], [`QLogistic`], [`QTanh`],
/// [`QMean`] prepare them once).
impl Quantized<DynTensor<i8>, i8> {
    /// The softmax along the last axis with `beta` (Q20), quantized by [`QSoftmax::OUTPUT`]
    /// (scale 1/256, zero point -128).
    ///
    /// ```
    /// use shaped::quant::Quant;
    /// use shaped::DynTensor;
    /// let x = DynTensor::from_shape_vec([2, 2], vec![4i8, 0, 1, 1])?.quantized(Quant::new(0.5, 3)?);
    /// let p = x.softmax(1.0)?;
    /// assert_eq!(p.values().as_slice(), &[97, -97, 0, 0]);
    /// assert_eq!((p.quant().scale(), p.quant().zero_point()), (1.0 / 256.0, -128));
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn softmax(&self, beta: f32) -> Result<Self, Error> {
        QSoftmax::new(self.quant(), beta, QSoftmax::OUTPUT)?.run_dyn(self)
    }

    /// The logistic function of each element (Q21), quantized by [`QLogistic::OUTPUT`]
    /// (scale 1/256, zero point -128).
    pub fn logistic(&self) -> Result<Self, Error> {
        QLogistic::new(self.quant(), QLogistic::OUTPUT)?.run_dyn(self)
    }

    /// The tanh of each element (Q22), quantized by [`QTanh::OUTPUT`] (scale 1/128, zero
    /// point 0).
    pub fn tanh(&self) -> Result<Self, Error> {
        QTanh::new(self.quant(), QTanh::OUTPUT)?.run_dyn(self)
    }

    /// The mean over axes 1 and 2 (height and width of NHWC) into parameters `out` (Q23):
    /// `[N, 1, 1, C]` with `keep_dims`, `[N, C]` without.
    pub fn mean_hw(&self, out: Quant<i8>, keep_dims: bool) -> Result<Self, Error> {
        QMean::new(self.quant(), out, Rounding::Double)?.run_dyn(self, keep_dims)
    }
}

/// # Padding and concatenation (TFLM)
///
/// TFLM's `PAD`, `PADV2` (Q24) and `CONCATENATION` (Q25) copy the stored bytes: the result
/// keeps the parameters of the inputs, which concatenation requires to be equal
/// ([`concat_requantized_dyn`](Self::concat_requantized_dyn) brings differing ones to the output's
/// first).
impl<E: QuantElement> Quantized<DynTensor<E>, E> {
    /// The tensor padded with the zero point (TFLM's `PAD`, Q24): `paddings` holds one
    /// `[before, after]` per axis, TFLite's `[rank, 2]` paddings tensor; the added elements
    /// mean 0.0. An error value when there is not one pair per axis, or the result's size
    /// overflows.
    ///
    /// ```
    /// use shaped::quant::Quant;
    /// use shaped::DynTensor;
    /// let x = DynTensor::from_shape_vec([1, 2], vec![5i8, 6])?.quantized(Quant::new(0.5, -3)?);
    /// let y = x.pad(&[[0, 1], [1, 0]])?;
    /// assert_eq!((y.values().shape(), y.values().as_slice()), (&[2, 3][..], &[-3, 5, 6, -3, -3, -3][..]));
    /// assert_eq!(
    ///     x.pad(&[[1, 1]]).unwrap_err().to_string(),
    ///     "cannot pad [1, 2]: 2 pads given for 2 axes; each axis takes a begin and an end (M13)"
    /// );
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn pad(&self, paddings: &[[usize; 2]]) -> Result<Self, Error> {
        self.pad_with(paddings, E::saturate(self.quant().zero_point()))
    }

    /// The tensor padded with the stored value `value` (TFLM's `PADV2`, whose constant has the
    /// output's parameters, Q24), `paddings` as in [`pad`](Self::pad).
    ///
    /// ```
    /// use shaped::quant::Quant;
    /// use shaped::DynTensor;
    /// let x = DynTensor::from_shape_vec([2], vec![5i8, 6])?.quantized(Quant::new(0.5, -3)?);
    /// assert_eq!(x.pad_with(&[[1, 2]], 127)?.values().as_slice(), &[127, 5, 6, 127, 127]);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn pad_with(&self, paddings: &[[usize; 2]], value: E) -> Result<Self, Error> {
        // The crate's pads: every begin, then every end (M13). A pad past `i64` overflows the
        // result's size, which the pad reports.
        let amount = |p: usize| i64::try_from(p).unwrap_or(i64::MAX);
        let pads: Vec<i64> = paddings
            .iter()
            .map(|&[before, _]| amount(before))
            .chain(paddings.iter().map(|&[_, after]| amount(after)))
            .collect();
        let values = self.values().pad(&pads, PadMode::Constant, value)?;
        Ok(Quantized::new(values, self.quant()))
    }

    /// The tensors joined along `axis` (negative from the end) as TFLM's `CONCATENATION`
    /// does (Q25): their bytes side by side, so every one must have the parameters of the
    /// first, which the result keeps (an error value naming the first that does not; TFLM
    /// refuses such a model). Shapes as [`DynTensor::concat`] (M6).
    ///
    /// ```
    /// use shaped::quant::Quant;
    /// use shaped::DynTensor;
    /// let q = Quant::<i8>::new(0.5, 0)?;
    /// let a = DynTensor::from_shape_vec([1, 2], vec![1i8, 2])?.quantized(q);
    /// let b = DynTensor::from_shape_vec([1, 1], vec![3i8])?.quantized(q);
    /// let c = DynTensor::from_shape_vec([1, 1], vec![3i8])?.quantized(Quant::new(0.25, 0)?);
    /// let joined = shaped::quant::Quantized::concat_dyn(&[&a, &b], 1)?;
    /// assert_eq!(joined.values().as_slice(), &[1, 2, 3]);
    /// assert_eq!(
    ///     shaped::quant::Quantized::concat_dyn(&[&a, &b, &c], 1).unwrap_err().to_string(),
    ///     "invalid quantization: an input has other parameters than the output; a \
    ///      concatenation copies bytes, so every input needs the output's parameters (Q25)"
    /// );
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn concat_dyn(parts: &[&Self], axis: i64) -> Result<Self, Error> {
        let Some(first) = parts.first() else {
            let op = Operation::Shape {
                op: ShapeOp::Concat,
            };
            return Err(Error::new(ErrorKind::NoTensors, op, &[], &[]));
        };
        let out = first.quant();
        for part in parts.iter() {
            check_concat(part.quant(), out)?;
        }
        let values: Vec<&DynTensor<E>> = parts.iter().map(|p| p.values()).collect();
        Ok(Quantized::new(DynTensor::concat(&values, axis)?, out))
    }

    /// The tensors joined along `axis` into parameters `out`, each requantized to them first
    /// (Q14) unless it already has them: for inputs whose parameters differ, which TFLM's
    /// `CONCATENATION` refuses (Q25). Shapes as [`DynTensor::concat`] (M6).
    ///
    /// ```
    /// use shaped::quant::{Quant, Quantized};
    /// use shaped::DynTensor;
    /// let a = DynTensor::from_shape_vec([2], vec![4i8, 8])?.quantized(Quant::new(0.5, 0)?);
    /// let b = DynTensor::from_shape_vec([1], vec![4i8])?.quantized(Quant::new(0.25, 0)?);
    /// let out = Quant::new(0.25, 0)?;
    /// let c = Quantized::concat_requantized_dyn(&[&a, &b], 0, out)?;
    /// assert_eq!(c.values().as_slice(), &[8, 16, 4]); // 2.0, 4.0, 1.0
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn concat_requantized_dyn(
        parts: &[&Self],
        axis: i64,
        out: Quant<E>,
    ) -> Result<Self, Error> {
        let moved: Vec<Option<DynTensor<E>>> = parts
            .iter()
            .map(|p| (p.quant() != out).then(|| p.requantize(out).into_parts().0))
            .collect();
        let values: Vec<&DynTensor<E>> = moved
            .iter()
            .zip(parts)
            .map(|(m, p)| m.as_ref().unwrap_or(p.values()))
            .collect();
        Ok(Quantized::new(DynTensor::concat(&values, axis)?, out))
    }
}
