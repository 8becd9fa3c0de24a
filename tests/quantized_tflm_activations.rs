//! TFLM's int8 SOFTMAX, LOGISTIC, TANH, MEAN, PAD/PADV2 and CONCATENATION against TensorFlow
//! Lite Micro itself (rules Q20-Q25): the expected bytes in
//! `tests/reference/tflm_{softmax,logistic,tanh,mean,pad,concatenation}.{txt,bin}` were
//! computed by the `tflite-micro` package's kernels (`tests/reference/tflm_activations.py`).
//!
//! Every case runs on the runtime path (`DynTensor`) and must give TFLM's bytes, every one of
//! them; softmax, logistic, tanh and mean also run every case (or every case of a few row
//! lengths) on a mixed path (`Shape![_, N]`, `Shape![_]`, `Shape![_, _, _, _]`), and a few
//! cases of each op on static shapes. The tests named after the rules check the contracts'
//! edges and the exact error texts.
#![cfg(feature = "alloc")]

use crate::tflm::q8;
use crate::tflm_conv::{
    concatenation_cases, logistic_cases, mean_cases, pad_cases, softmax_cases, tanh_cases,
    ActivationCase, MeanCase,
};

use shaped::quant::{QLogistic, QMean, QSoftmax, QTanh, Quant, Quantized, Rounding};
use shaped::{Const, Dyn, DynTensor, Shape, Tensor, TensorView};

/// The case's input as a quantized runtime tensor.
fn dyn_input(shape: &[usize], values: &[i8], q: (f32, i32)) -> Quantized<DynTensor<i8>, i8> {
    DynTensor::from_shape_vec(shape, values.to_vec())
        .unwrap()
        .quantized(q8(q))
}

/// `got` must be TFLM's bytes; the number of bytes compared.
fn same(got: &[i8], want: &[i8], what: &str, line: usize) -> usize {
    assert_eq!(got.len(), want.len(), "{what}, line {line}: output length");
    if let Some(i) = got.iter().zip(want).position(|(a, b)| a != b) {
        panic!(
            "{what}, line {line}: output {i} is {} where TFLM has {}",
            got[i], want[i]
        );
    }
    got.len()
}

#[test]
fn softmax_is_tflm_s_on_the_runtime_path() {
    let (mut cases, mut bytes) = (0, 0);
    for c in softmax_cases() {
        let x = dyn_input(&c.shape, &c.input, c.input_q);
        let y = x.softmax(c.beta).unwrap();
        assert_eq!(y.quant(), q8(c.output_q));
        assert_eq!(y.values().shape(), &c.shape[..]);
        bytes += same(y.values().as_slice(), &c.expected, "softmax", c.line);
        // The prepared form, row by row into a slice.
        let op = QSoftmax::new(q8(c.input_q), c.beta, q8(c.output_q)).unwrap();
        let depth = *c.shape.last().unwrap();
        let mut out = vec![0i8; c.input.len()];
        for (row, o) in c.input.chunks(depth).zip(out.chunks_mut(depth)) {
            op.apply_row(row, o).unwrap();
        }
        same(&out, &c.expected, "softmax rows", c.line);
        cases += 1;
    }
    assert!(
        cases >= 200 && bytes >= 100_000,
        "{cases} cases, {bytes} bytes"
    );
}

/// The cases whose rows have `N` elements, on `Shape![_, N]` (`(Dyn, Const<N>)`); their
/// number.
fn softmax_mixed<const N: usize>() -> usize {
    let mut n = 0;
    for c in softmax_cases().into_iter().filter(|c| c.shape[1] == N) {
        let x = TensorView::<i8, (Dyn, Const<N>)>::with_shape(&c.shape, &c.input)
            .unwrap()
            .quantized(q8(c.input_q));
        let y = x.softmax(c.beta).unwrap();
        same(y.values().as_slice(), &c.expected, "mixed softmax", c.line);
        n += 1;
    }
    n
}

#[test]
fn softmax_is_tflm_s_on_mixed_and_static_shapes() {
    let n = softmax_mixed::<7>()
        + softmax_mixed::<12>()
        + softmax_mixed::<25>()
        + softmax_mixed::<35>()
        + softmax_mixed::<38>()
        + softmax_mixed::<51>()
        + softmax_mixed::<55>();
    assert!(n >= 40, "{n} cases");
    let cases = softmax_cases();
    // Static shapes: the first two cases, [10, 59] and [26, 45].
    let (a, b) = (&cases[0], &cases[1]);
    assert_eq!((&a.shape[..], &b.shape[..]), (&[10, 59][..], &[26, 45][..]));
    let x = TensorView::<i8, Shape![10, 59]>::new(&a.input)
        .unwrap()
        .quantized(q8(a.input_q));
    let op = QSoftmax::new(x.quant(), a.beta, QSoftmax::OUTPUT).unwrap();
    let y: Tensor<i8, Shape![10, 59]> = op.run(&x).unwrap().into_parts().0;
    same(y.as_slice(), &a.expected, "static softmax", a.line);
    let x = TensorView::<i8, Shape![26, 45]>::new(&b.input)
        .unwrap()
        .quantized(q8(b.input_q));
    same(
        x.softmax(b.beta).unwrap().values().as_slice(),
        &b.expected,
        "static softmax",
        b.line,
    );
}

/// Logistic (`tanh: false`) or tanh of every case on every path.
fn activation(cases: Vec<ActivationCase>, tanh: bool) -> (usize, usize) {
    let (mut n, mut bytes) = (0, 0);
    for c in cases {
        let what = if tanh { "tanh" } else { "logistic" };
        assert_eq!(c.shape, [256]);
        let q = q8(c.input_q);
        // Runtime.
        let x = dyn_input(&c.shape, &c.input, c.input_q);
        let y = if tanh { x.tanh() } else { x.logistic() }.unwrap();
        assert_eq!(y.quant(), q8(c.output_q));
        bytes += same(y.values().as_slice(), &c.expected, what, c.line);
        // Static.
        let s = TensorView::<i8, Shape![256]>::new(&c.input)
            .unwrap()
            .quantized(q);
        let ys = if tanh { s.tanh() } else { s.logistic() }.unwrap();
        same(ys.values().as_slice(), &c.expected, what, c.line);
        // Mixed, through the prepared form.
        let m = TensorView::<i8, Shape![_]>::with_shape([256], &c.input)
            .unwrap()
            .quantized(q);
        let ym = if tanh {
            QTanh::new(q, QTanh::OUTPUT).unwrap().run(&m).unwrap()
        } else {
            QLogistic::new(q, QLogistic::OUTPUT)
                .unwrap()
                .run(&m)
                .unwrap()
        };
        same(ym.values().as_slice(), &c.expected, what, c.line);
        n += 1;
    }
    (n, bytes)
}

#[test]
fn logistic_is_tflm_s_on_every_input_byte() {
    let (n, bytes) = activation(logistic_cases(), false);
    assert!(n >= 390 && bytes >= 100_000, "{n} cases, {bytes} bytes");
}

#[test]
fn tanh_is_tflm_s_on_every_input_byte() {
    let (n, bytes) = activation(tanh_cases(), true);
    assert!(n >= 390 && bytes >= 100_000, "{n} cases, {bytes} bytes");
}

/// The mean of a case on the mixed path (every dim `Dyn`), its bytes.
fn mean_mixed(c: &MeanCase) -> Vec<i8> {
    let x = TensorView::<i8, Shape![_, _, _, _]>::with_shape(c.input_shape, &c.input)
        .unwrap()
        .quantized(q8(c.input_q));
    let out = q8(c.output_q);
    if c.keep_dims {
        let y = x.mean_hw_keepdims(out).unwrap();
        assert_eq!(y.values().shape().as_ref(), &c.output_shape[..]);
        y.values().as_slice().to_vec()
    } else {
        let y = x.mean_hw(out).unwrap();
        assert_eq!(y.values().shape().as_ref(), &c.output_shape[..]);
        y.values().as_slice().to_vec()
    }
}

#[test]
fn mean_is_tflm_s_on_every_path() {
    let (mut n, mut bytes) = (0, 0);
    let cases = mean_cases();
    for c in &cases {
        assert_eq!(c.axes, [1, 2]);
        let x = dyn_input(&c.input_shape, &c.input, c.input_q);
        let y = x.mean_hw(q8(c.output_q), c.keep_dims).unwrap();
        assert_eq!(y.values().shape(), &c.output_shape[..], "line {}", c.line);
        assert_eq!(y.quant(), q8(c.output_q));
        bytes += same(y.values().as_slice(), &c.expected, "mean", c.line);
        same(&mean_mixed(c), &c.expected, "mixed mean", c.line);
        // The slice form.
        let op = QMean::new(q8(c.input_q), q8(c.output_q), Rounding::Double).unwrap();
        let mut out = vec![0i8; c.expected.len()];
        op.apply_nhwc(&c.input, c.input_shape, &mut out).unwrap();
        same(&out, &c.expected, "mean slices", c.line);
        n += 1;
    }
    assert!(n >= 1000 && bytes >= 100_000, "{n} cases, {bytes} bytes");
    // Static shapes: the first two cases, [4, 7, 3, 16] removed and [2, 8, 1, 6] kept.
    let (a, b) = (&cases[0], &cases[1]);
    assert_eq!((a.input_shape, a.keep_dims), ([4, 7, 3, 16], false));
    assert_eq!((b.input_shape, b.keep_dims), ([2, 8, 1, 6], true));
    let x = TensorView::<i8, Shape![4, 7, 3, 16]>::new(&a.input)
        .unwrap()
        .quantized(q8(a.input_q));
    let op = QMean::new(x.quant(), q8(a.output_q), Rounding::Double).unwrap();
    let y: Tensor<i8, Shape![4, 16]> = op.run(&x).unwrap().into_parts().0;
    same(y.as_slice(), &a.expected, "static mean", a.line);
    let x = TensorView::<i8, Shape![2, 8, 1, 6]>::new(&b.input)
        .unwrap()
        .quantized(q8(b.input_q));
    let y: Tensor<i8, Shape![2, 1, 1, 6]> =
        x.mean_hw_keepdims(q8(b.output_q)).unwrap().into_parts().0;
    same(y.as_slice(), &b.expected, "static mean", b.line);
}

#[test]
fn pad_is_tflm_s_on_the_runtime_path() {
    let (mut n, mut bytes) = (0, 0);
    for c in pad_cases() {
        assert_eq!(c.input_q, c.output_q);
        let x = dyn_input(&c.input_shape, &c.input, c.input_q);
        let y = match c.constant {
            None => x.pad(&c.paddings).unwrap(),
            Some(v) => x.pad_with(&c.paddings, v).unwrap(),
        };
        assert_eq!(y.values().shape(), &c.output_shape[..], "line {}", c.line);
        assert_eq!(y.quant(), q8(c.output_q));
        bytes += same(y.values().as_slice(), &c.expected, &c.op, c.line);
        n += 1;
    }
    assert!(n >= 70 && bytes >= 100_000, "{n} cases, {bytes} bytes");
}

#[test]
fn pad_is_tflm_s_on_static_shapes() {
    let cases = pad_cases();
    // PAD of [1, 4, 4, 7] by one before axes 1 and 2.
    let c = &cases[0];
    assert_eq!((c.op.as_str(), c.input_shape), ("pad", [1, 4, 4, 7]));
    assert_eq!(c.paddings, [[0, 0], [1, 0], [1, 0], [0, 0]]);
    let x = TensorView::<i8, Shape![1, 4, 4, 7]>::new(&c.input)
        .unwrap()
        .quantized(q8(c.input_q));
    let y = x.pad::<1, 1, 0>().pad::<2, 1, 0>();
    let v: &Tensor<i8, Shape![1, 5, 5, 7]> = y.values();
    same(v.as_slice(), &c.expected, "static pad", c.line);
    // PADV2 of [2, 7, 6, 2] by 3 after axis 1, 3 before and 1 after axis 2, with 65.
    let c = &cases[2];
    assert_eq!((c.op.as_str(), c.input_shape), ("padv2", [2, 7, 6, 2]));
    assert_eq!(c.paddings, [[0, 0], [0, 3], [3, 1], [0, 0]]);
    let x = TensorView::<i8, Shape![2, 7, 6, 2]>::new(&c.input)
        .unwrap()
        .quantized(q8(c.input_q));
    let k = c.constant.unwrap();
    let y = x.pad_with::<1, 0, 3>(k).pad_with::<2, 3, 1>(k);
    let v: &Tensor<i8, Shape![2, 10, 10, 2]> = y.values();
    same(v.as_slice(), &c.expected, "static padv2", c.line);
}

#[test]
fn concatenation_is_tflm_s_on_the_runtime_path() {
    let (mut n, mut bytes) = (0, 0);
    for c in concatenation_cases() {
        let inputs: Vec<_> = c
            .inputs
            .iter()
            .map(|i| dyn_input(&i.shape, &i.values, i.q))
            .collect();
        let parts: Vec<_> = inputs.iter().collect();
        let y = Quantized::concat_dyn(&parts, c.axis as i64).unwrap();
        assert_eq!(y.values().shape(), &c.output_shape[..], "line {}", c.line);
        assert_eq!(y.quant(), q8(c.output_q));
        bytes += same(y.values().as_slice(), &c.expected, "concatenation", c.line);
        // Requantizing into the same parameters changes nothing.
        let r = Quantized::concat_requantized_dyn(&parts, c.axis as i64, q8(c.output_q)).unwrap();
        same(r.values().as_slice(), &c.expected, "requantized", c.line);
        n += 1;
    }
    assert!(n >= 100 && bytes >= 100_000, "{n} cases, {bytes} bytes");
}

#[test]
fn concatenation_is_tflm_s_on_static_shapes() {
    let cases = concatenation_cases();
    let find = |a: [usize; 4], b: [usize; 4]| {
        cases
            .iter()
            .find(|c| c.inputs.len() == 2 && c.inputs[0].shape == a && c.inputs[1].shape == b)
            .expect("the case is in the reference data")
    };
    let c = find([2, 5, 6, 11], [2, 5, 3, 11]);
    assert_eq!(c.axis, 2);
    let q = q8(c.output_q);
    let a = TensorView::<i8, Shape![2, 5, 6, 11]>::new(&c.inputs[0].values)
        .unwrap()
        .quantized(q);
    let b = TensorView::<i8, Shape![2, 5, 3, 11]>::new(&c.inputs[1].values)
        .unwrap()
        .quantized(q);
    let y = a.concat::<2, _, _>(&b).unwrap();
    let v: &Tensor<i8, Shape![2, 5, 9, 11]> = y.values();
    same(v.as_slice(), &c.expected, "static concatenation", c.line);
    let c = find([2, 1, 4, 6], [2, 1, 4, 7]);
    assert_eq!(c.axis, 3);
    let q = q8(c.output_q);
    let a = TensorView::<i8, Shape![2, 1, 4, 6]>::new(&c.inputs[0].values)
        .unwrap()
        .quantized(q);
    let b = TensorView::<i8, Shape![2, 1, 4, 7]>::new(&c.inputs[1].values)
        .unwrap()
        .quantized(q);
    let y = a.concat_requantized::<-1, _, _>(&b, q);
    let v: &Tensor<i8, Shape![2, 1, 4, 13]> = y.values();
    same(v.as_slice(), &c.expected, "static concatenation", c.line);
}

/// Q20: the output parameters are fixed, `beta * s_in * 2^26` must exceed 1, a row's
/// exponentials must add up to less than 512, and the input's zero point plays no part.
#[test]
fn q20_softmax_output_parameters_beta_and_row_sums() {
    let q = Quant::<i8>::new(0.05, 7).unwrap();
    let err = QSoftmax::new(q, 1.0, Quant::new(1.0 / 255.0, -128).unwrap()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid quantization: the output of softmax must have scale 0.00390625 and zero point \
         -128 (Q20)"
    );
    let err = QSoftmax::new(q, 0.0, QSoftmax::OUTPUT).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid quantization: beta * input scale * 2^26 must be above 1 for the softmax (Q20)"
    );
    assert!(QSoftmax::new(q, f32::NAN, QSoftmax::OUTPUT).is_err());
    assert!(QSoftmax::new(Quant::new(1e-9, 0).unwrap(), 1.0, QSoftmax::OUTPUT).is_err());
    // A large beta caps the multiplier at 2^31 - 1: every element below the row's largest
    // gives -128, the largest ones share the row.
    let op = QSoftmax::new(q, 1e9, QSoftmax::OUTPUT).unwrap();
    let mut out = [0i8; 4];
    op.apply_row(&[3, 5, 5, -100], &mut out).unwrap();
    assert_eq!(out, [-128, 0, 0, -128]);
    // 512 equal values: exponentials adding up to 512, where TFLM's kernel stops.
    let x = DynTensor::from_shape_vec([2, 512], vec![1i8; 1024])
        .unwrap()
        .quantized(q);
    assert_eq!(
        x.softmax(1.0).unwrap_err().to_string(),
        "invalid quantization: a softmax row's exponentials add up to 512 or more, past TFLM's \
         output shift (Q20)"
    );
    // 511 of them are fine: each is 1/511, half a step of 1/256.
    let x = DynTensor::from_shape_vec([511], vec![1i8; 511])
        .unwrap()
        .quantized(q);
    assert!(x
        .softmax(1.0)
        .unwrap()
        .values()
        .as_slice()
        .iter()
        .all(|&v| v == -127));
    // The zero point plays no part.
    let data = [1i8, 5, -3, 20];
    let a = TensorView::<i8, Shape![4]>::new(&data)
        .unwrap()
        .quantized(Quant::new(0.05, 0).unwrap());
    let b = TensorView::<i8, Shape![4]>::new(&data)
        .unwrap()
        .quantized(Quant::new(0.05, -90).unwrap());
    assert_eq!(
        a.softmax(1.0).unwrap().values().as_slice(),
        b.softmax(1.0).unwrap().values().as_slice()
    );
    // A rank-0 tensor has no last axis; other input parameters than the prepared ones.
    let scalar = DynTensor::from_shape_vec([], vec![1i8])
        .unwrap()
        .quantized(q);
    assert_eq!(
        scalar.softmax(1.0).unwrap_err().to_string(),
        "cannot reduce [] (softmax): axis -1 is out of range for rank 0"
    );
    let other = DynTensor::from_shape_vec([2], vec![1i8, 2])
        .unwrap()
        .quantized(Quant::new(0.5, 0).unwrap());
    assert_eq!(
        op.run_dyn(&other).unwrap_err().to_string(),
        "invalid quantization: the operands' scales or zero points are not the ones the \
         operation was prepared for (Q1)"
    );
    // Prepared in const context.
    const OP: Result<QSoftmax, shaped::Error> =
        QSoftmax::new(Quant::new_const(0.1, 0), 1.0, QSoftmax::OUTPUT);
    assert!(OP.is_ok());
}

/// Q21: logistic's output is 1/256 and -128 (TFLM checks only the zero point), the input
/// radius saturates, and input scales without a defined radius are refused.
#[test]
fn q21_logistic_output_parameters_radius_and_input_scale() {
    let q = Quant::<i8>::new(0.0625, 0).unwrap();
    let err = QLogistic::new(q, Quant::new(0.01, -128).unwrap()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid quantization: the output of logistic must have scale 0.00390625 and zero point \
         -128 (Q21)"
    );
    let err = QLogistic::new(Quant::new(1e-9, 0).unwrap(), QLogistic::OUTPUT).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid quantization: the input scale of logistic is outside [2^-28, 2^35), where \
         TFLM's input radius is defined (Q21)"
    );
    // Symmetric about zero: logistic(-x) = 1 - logistic(x), -128 and 127 at the ends.
    let op = QLogistic::new(q, QLogistic::OUTPUT).unwrap();
    assert_eq!((op.apply(0), op.apply(-128), op.apply(127)), (0, -128, 127));
    // A scale of 16 or more leaves a radius of 0: every input at or below the zero point
    // gives -128, every one above it 127 (TFLM's bytes, 0.5 as -128 included).
    let big = QLogistic::new(Quant::new(16.0, 3).unwrap(), QLogistic::OUTPUT).unwrap();
    assert_eq!(
        (big.apply(3), big.apply(4), big.apply(2)),
        (-128, 127, -128)
    );
    const OP: Result<QLogistic, shaped::Error> =
        QLogistic::new(Quant::new_const(0.1, 0), QLogistic::OUTPUT);
    assert_eq!(OP.unwrap().apply(0), 0);
}

/// Q22: tanh's output is 1/128 and 0 (TFLM checks neither); it is odd but for the clamp,
/// which keeps 1.0 (128) at 127 and -1.0 at -128.
#[test]
fn q22_tanh_output_parameters_and_symmetry() {
    let q = Quant::<i8>::new(0.03, 0).unwrap();
    let err = QTanh::new(q, QLogistic::OUTPUT).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid quantization: the output of tanh must have scale 0.0078125 and zero point 0 \
         (Q22)"
    );
    let op = QTanh::new(q, QTanh::OUTPUT).unwrap();
    for x in -127..=127i8 {
        let (neg, pos) = (op.apply(-x), op.apply(x));
        let clamped = (neg.min(pos), neg.max(pos)) == (-128, 127);
        assert!(i32::from(neg) == -i32::from(pos) || clamped, "x = {x}");
    }
    assert_eq!((op.apply(-127), op.apply(127)), (-128, 127));
    assert_eq!((op.apply(0), op.apply(-128), op.apply(127)), (0, -128, 127));
    let err = QTanh::new(Quant::new(1e12, 0).unwrap(), QTanh::OUTPUT).unwrap_err();
    assert!(err
        .to_string()
        .ends_with("where TFLM's input radius is defined (Q22)"));
}

/// Q23: the division by the count folded into the multiplier, the sums from the stored
/// values, axes 1 and 2 of any rank from 3, and no average of nothing.
#[test]
fn q23_mean_folds_the_count_into_the_multiplier() {
    let q = Quant::<i8>::new(0.5, -1).unwrap();
    let op = QMean::new(q, q, Rounding::Double).unwrap();
    // (1 + 2 + 3 + 4) with zero point -1 over 4 is 3.5: multiplier 1 (2^30, 1) folded by
    // s = 2 into (2^30, -1); 14 -> 7 -> 3.5, rounded away from zero: 4, then -1.
    let mut out = [0i8; 1];
    op.apply_nhwc(&[1, 2, 3, 4], [1, 2, 2, 1], &mut out)
        .unwrap();
    assert_eq!(out, [3]);
    // Rank 5: the axes after 2 are kept.
    let x = DynTensor::from_shape_vec([1, 2, 1, 2, 1], vec![1i8, 2, 5, 6])
        .unwrap()
        .quantized(q);
    let y = op.run_dyn(&x, false).unwrap();
    assert_eq!(
        (y.values().shape(), y.values().as_slice()),
        (&[1, 2, 1][..], &[3i8, 4][..])
    );
    // An empty height: every output is 0, as TFLM leaves it.
    let x = DynTensor::from_shape_vec([2, 0, 3, 2], vec![])
        .unwrap()
        .quantized(q);
    let y = x.mean_hw(Quant::new(0.5, 50).unwrap(), true).unwrap();
    assert_eq!(
        (y.values().shape(), y.values().as_slice()),
        (&[2, 1, 1, 2][..], &[0i8; 4][..])
    );
    let flat = DynTensor::from_shape_vec([3], vec![0i8; 3])
        .unwrap()
        .quantized(q);
    assert_eq!(
        flat.mean_hw(q, false).unwrap_err().to_string(),
        "cannot reduce [3] (mean): axis 1 is out of range for rank 1"
    );
    let mut short = [0i8; 1];
    assert_eq!(
        op.apply_nhwc(&[0; 8], [1, 2, 2, 2], &mut short)
            .unwrap_err()
            .to_string(),
        "shape [1, 2] needs 2 elements, but the buffer holds 1 (mean)"
    );
    // Single rounding: one rounding of 14 / 4 = 3.5, upward: 4, then -1.
    let single = QMean::new(q, q, Rounding::Single).unwrap();
    single
        .apply_nhwc(&[1, 2, 3, 4], [1, 2, 2, 1], &mut out)
        .unwrap();
    assert_eq!(out, [3]);
    single
        .apply_nhwc(&[-4, -3, -2, -1], [1, 2, 2, 1], &mut out)
        .unwrap();
    // -6 / 4 = -1.5: double rounding gives -2, single -1; then -1.
    assert_eq!(out, [-2]);
    op.apply_nhwc(&[-4, -3, -2, -1], [1, 2, 2, 1], &mut out)
        .unwrap();
    assert_eq!(out, [-3]);
    let err = QMean::new(q, Quant::new(1e-30, 0).unwrap(), Rounding::Double).unwrap_err();
    assert!(err
        .to_string()
        .ends_with("is outside what the contract allows (Q3)"));
}

/// Q24: PAD fills with the zero point and PADV2 with its byte, the input's bytes copied, the
/// input's parameters kept; one `[before, after]` per axis.
#[test]
fn q24_pad_copies_bytes_and_fills_with_the_zero_point() {
    let q = Quant::<u8>::new(0.1, 200).unwrap();
    let x = DynTensor::from_shape_vec([2, 1], vec![7u8, 9])
        .unwrap()
        .quantized(q);
    let y = x.pad(&[[1, 0], [0, 2]]).unwrap();
    assert_eq!(y.quant(), q);
    assert_eq!(
        (y.values().shape(), y.values().as_slice()),
        (
            &[3, 3][..],
            &[200u8, 200, 200, 7, 200, 200, 9, 200, 200][..]
        )
    );
    assert_eq!(
        x.pad_with(&[[0, 1], [0, 0]], 1)
            .unwrap()
            .values()
            .as_slice(),
        &[7, 9, 1]
    );
    assert_eq!(
        x.pad(&[[1, 1]]).unwrap_err().to_string(),
        "cannot pad [2, 1]: 2 pads given for 2 axes; each axis takes a begin and an end (M13)"
    );
    assert_eq!(x.pad(&[[0, 0], [0, 0]]).unwrap(), x);
    let s = Tensor::<i8, Shape![2]>::from([1, 2]).quantized(Quant::new(0.5, -7).unwrap());
    let p = s.pad::<-1, 2, 1>();
    assert_eq!(p.values().as_slice(), &[-7, -7, 1, 2, -7]);
    assert_eq!(p.quant(), s.quant());
}

/// Q25: TFLM's concatenation copies bytes and needs every input's parameters to be the
/// output's; the requantizing form moves each input to the output's parameters (Q14).
#[test]
fn q25_concatenation_needs_equal_parameters() {
    let (qa, qb) = (
        Quant::<i8>::new(0.5, 0).unwrap(),
        Quant::new(0.25, 4).unwrap(),
    );
    let a = DynTensor::from_shape_vec([1, 2], vec![2i8, -2])
        .unwrap()
        .quantized(qa);
    let b = DynTensor::from_shape_vec([1, 1], vec![8i8])
        .unwrap()
        .quantized(qb);
    assert_eq!(
        Quantized::concat_dyn(&[&a, &a, &b], -1)
            .unwrap_err()
            .to_string(),
        "invalid quantization: an input has other parameters than the output; a concatenation \
         copies bytes, so every input needs the output's parameters (Q25)"
    );
    assert_eq!(
        Quantized::<DynTensor<i8>, i8>::concat_dyn(&[], 0)
            .unwrap_err()
            .to_string(),
        "cannot concat: no tensors given (M6)"
    );
    // 8 at (0.25, 4) is 1.0: 2 at (0.5, 0).
    let c = Quantized::concat_requantized_dyn(&[&a, &b], 1, qa).unwrap();
    assert_eq!((c.values().as_slice(), c.quant()), (&[2i8, -2, 2][..], qa));
    let bad = DynTensor::from_shape_vec([2, 1], vec![0i8; 2])
        .unwrap()
        .quantized(qa);
    assert_eq!(
        Quantized::concat_dyn(&[&a, &bad], 1)
            .unwrap_err()
            .to_string(),
        "cannot concat [1, 2] with [2, 1]: axis 0 has 1 vs 2; every axis but the joined one \
         must be equal (M6)"
    );
    let sa = Tensor::<i8, Shape![2]>::from([1, 2]).quantized(qa);
    let sb = Tensor::<i8, Shape![1]>::from([8]).quantized(qb);
    assert_eq!(
        sa.concat::<0, _, _>(&sb).unwrap_err().to_string(),
        "invalid quantization: an input has other parameters than the output; a concatenation \
         copies bytes, so every input needs the output's parameters (Q25)"
    );
    let joined = sa.concat_requantized::<0, _, _>(&sb, qb);
    assert_eq!(joined.values().as_slice(), &[6, 8, 8]);
}
