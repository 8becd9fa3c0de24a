//! One test per quantization rule id (Q1-Q18 of `RULES.md`), with exact values and error
//! texts, on the static, mixed and runtime paths. The bulk comparison with TFLM is in
//! `quantized_tflm.rs`.

use shaped::quant::fixedpoint::{
    multiply_by_quantized_multiplier_double, multiply_by_quantized_multiplier_single,
    rounding_divide_by_pot, saturating_rounding_doubling_high_mul,
};
use shaped::quant::multiplier::quantize_multiplier;
use shaped::quant::{Activation, QAdd, QMul, QSub, Quant, Rounding};
use shaped::{CompareOp, Shape, Tensor};

fn q8(scale: f32, zero_point: i32) -> Quant<i8> {
    Quant::new(scale, zero_point).unwrap()
}

#[test]
fn q1_parameters_are_a_finite_positive_scale_and_a_zero_point_in_range() {
    let text = |r: Result<Quant<i8>, shaped::Error>| r.unwrap_err().to_string();
    assert_eq!(
        text(Quant::new(0.0, 0)),
        "invalid quantization: the scale 0 must be finite and positive (Q1)"
    );
    assert_eq!(
        text(Quant::new(-0.5, 0)),
        "invalid quantization: the scale -0.5 must be finite and positive (Q1)"
    );
    assert_eq!(
        text(Quant::new(f32::NAN, 0)),
        "invalid quantization: the scale NaN must be finite and positive (Q1)"
    );
    assert_eq!(
        text(Quant::new(f32::INFINITY, 0)),
        "invalid quantization: the scale inf must be finite and positive (Q1)"
    );
    assert_eq!(
        text(Quant::new(0.5, 128)),
        "invalid quantization: the zero point 128 is outside the element range -128..=127 (Q1)"
    );
    assert_eq!(
        Quant::<u8>::new(0.5, 256).unwrap_err().to_string(),
        "invalid quantization: the zero point 256 is outside the element range 0..=255 (Q1)"
    );
    assert_eq!(Quant::<u8>::new(0.5, 255).unwrap().zero_point(), 255);
    const Q: Quant<i8> = Quant::new_const(1.5, -128);
    assert_eq!((Q.scale(), Q.zero_point()), (1.5, -128));
}

/// The tie vectors of `tests/reference/tflm_ties.txt`: the double-rounding outputs as TFLM
/// computed them, and the single-rounding ones by the contract's arithmetic (Q6).
#[test]
fn q2_the_two_rounding_modes_differ_on_ties() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/reference/tflm_ties.txt"
    ))
    .unwrap();
    let single: [&[i8]; 4] = [
        &[-1, 0, 1, 2, -2, 3],
        &[0, 1, -1, 2, 1, -1],
        &[-1, 0, 0, 0, 1, 1],
        &[-1, 0, 1, 2, -2, 3],
    ];
    let double: [&[i8]; 4] = [
        &[-2, -1, 1, 2, -3, 3],
        &[-1, 1, -2, 2, 1, -1],
        &[-1, -1, 0, 1, 1, 1],
        &[-1, 0, 1, 2, -2, 3],
    ];
    let rows: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(rows.len(), 4);
    for (i, row) in rows.iter().enumerate() {
        let parts: Vec<&str> = row.split(" | ").collect();
        let fields: Vec<&str> = parts[0].split(' ').collect();
        let quant = |k: usize| q8(fields[k].parse().unwrap(), fields[k + 1].parse().unwrap());
        let (qa, qb, qo) = (quant(1), quant(3), quant(5));
        let a: Vec<i8> = fields[7..].iter().map(|v| v.parse().unwrap()).collect();
        let b: Vec<i8> = parts[1].split(' ').map(|v| v.parse().unwrap()).collect();
        let tflm: Vec<i8> = parts[2].split(' ').map(|v| v.parse().unwrap()).collect();
        let run = |rounding| -> Vec<i8> {
            a.iter()
                .zip(&b)
                .map(|(&x, &y)| match fields[0] {
                    "add" => QAdd::new(qa, qb, qo, Activation::None, rounding)
                        .unwrap()
                        .apply(x, y),
                    _ => QMul::new(qa, qb, qo, Activation::None, rounding)
                        .unwrap()
                        .apply(x, y),
                })
                .collect()
        };
        assert_eq!(tflm, double[i], "row {i}: TFLM's bytes");
        assert_eq!(run(Rounding::Double), double[i], "row {i}: double rounding");
        assert_eq!(run(Rounding::Single), single[i], "row {i}: single rounding");
    }
}

#[test]
fn q3_multipliers_are_q31_fractions_with_a_shift() {
    assert_eq!(
        quantize_multiplier(0.75, Rounding::Double),
        Some((3 << 29, 0))
    );
    assert_eq!(
        quantize_multiplier(6.0, Rounding::Double),
        Some((3 << 29, 3))
    );
    assert_eq!(
        quantize_multiplier(2f64.powi(-40), Rounding::Double),
        Some((0, 0))
    );
    assert_eq!(
        quantize_multiplier(2f64.powi(31), Rounding::Single),
        Some((i32::MAX, 30))
    );
    // An output scale below 2 max(sa, sb) / 2^20 has no add multiplier below one.
    let err = QAdd::new(
        q8(1.0, 0),
        q8(1.0, 0),
        q8(2f32.powi(-21), 0),
        Activation::None,
        Rounding::Double,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid quantization: the multiplier 4 derived from the scales is outside what the \
         contract allows (Q3)"
    );
}

#[test]
fn q4_the_high_multiply_rounds_ties_toward_positive_infinity() {
    assert_eq!(saturating_rounding_doubling_high_mul(1 << 30, 1), 1);
    assert_eq!(saturating_rounding_doubling_high_mul(-(1 << 30), 1), 0);
    assert_eq!(saturating_rounding_doubling_high_mul(-(3 << 29), 2), -1);
    assert_eq!(
        saturating_rounding_doubling_high_mul(i32::MIN, i32::MIN),
        i32::MAX
    );
    // A positive shift multiplies first, wrapping.
    assert_eq!(multiply_by_quantized_multiplier_double(3, 1 << 30, 2), 6);
    assert_eq!(
        multiply_by_quantized_multiplier_double(1 << 30, 1 << 30, 2),
        0
    );
}

#[test]
fn q5_the_divide_by_a_power_of_two_rounds_ties_away_from_zero() {
    assert_eq!(rounding_divide_by_pot(5, 1), 3);
    assert_eq!(rounding_divide_by_pot(-5, 1), -3);
    assert_eq!(rounding_divide_by_pot(-6, 2), -2);
    assert_eq!(rounding_divide_by_pot(-7, 2), -2);
}

#[test]
fn q6_single_rounding_rounds_once_ties_up() {
    // x / 4 with the multiplier 1/2 and shift -1.
    let quarter = |x| multiply_by_quantized_multiplier_single(x, 1 << 30, -1);
    assert_eq!(
        [quarter(-10), quarter(-6), quarter(2), quarter(10)],
        [-2, -1, 1, 3]
    );
    // 1 * 3/4 / 2 = 0.375: one rounding gives 0, two give 1.
    assert_eq!(multiply_by_quantized_multiplier_single(1, 3 << 29, -1), 0);
    assert_eq!(multiply_by_quantized_multiplier_double(1, 3 << 29, -1), 1);
}

#[test]
fn q7_activation_bounds_are_quantized_with_the_output_parameters() {
    let out = q8(0.05, 3);
    assert_eq!(Activation::Relu.range(out, -128, 127), Some((3, 127)));
    assert_eq!(Activation::Relu6.range(out, -128, 127), Some((3, 123)));
    assert_eq!(Activation::ReluN1To1.range(out, -128, 127), Some((-17, 23)));
    // 0.5 / 0.2 = 2.5 exactly in f32: ties away from zero, 3 and -3.
    assert_eq!(
        Activation::ReluN1To1.range(q8(0.4, 0), -128, 127),
        Some((-3, 3))
    );
    // Bounds past the element range are the range.
    assert_eq!(
        Activation::Relu6.range(q8(0.01, 0), -128, 127),
        Some((0, 127))
    );
    // The clamp applies after the output zero point: 0.02 * 105 + 0.03 * 43 = 3.39 = 67.8
    // steps, + 3 = 71, clamped to ReLU6's 123 (no clamp) and ReLU_N1_TO_1's 23.
    let q = |act| QAdd::new(q8(0.02, -5), q8(0.03, 7), out, act, Rounding::Double).unwrap();
    assert_eq!(q(Activation::Relu6).apply(100, 50), 71);
    assert_eq!(q(Activation::ReluN1To1).apply(100, 50), 23);
    assert_eq!(q(Activation::Relu).apply(-100, -100), 3);
    // A representable multiplier (1e-15 * 1e-15 / 1e-30 = 1), bounds that are not: 6 / 1e-30.
    let err = QMul::new(
        q8(1e-15, 0),
        q8(1e-15, 0),
        q8(1e-30, 0),
        Activation::Relu6,
        Rounding::Double,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid quantization: an activation bound does not fit in i32 at the output's scale (Q7)"
    );
}

#[test]
fn q8_add_on_the_static_mixed_and_runtime_paths() {
    let (qa, qb, qo) = (q8(0.02, -5), q8(0.03, 7), q8(0.05, 3));
    let a = Tensor::<i8, Shape![2, 3]>::from([[100, -100, 0], [127, -128, 5]]).quantized(qa);
    let b = Tensor::<i8, Shape![3]>::from([50, -100, 127]).quantized(qb);
    let c = a.add(&b, qo, Activation::None).unwrap();
    // 0.02 * 105 + 0.03 * 43 = 3.39 -> 67.8 -> 71; 0.02 * -95 + 0.03 * -107 = -5.11 ->
    // -102.2 -> -99; 0.02 * 5 + 0.03 * 120 = 3.7 -> 74 -> 77; 0.02 * 132 + 0.03 * 43 = 3.93
    // -> 78.6 -> 82; 0.02 * -123 + 0.03 * -107 = -5.67 -> -113.4 -> -110; 3.8 -> 76 -> 79.
    assert_eq!(c.values().as_slice(), &[71, -99, 77, 82, -110, 79]);
    assert_eq!(c.quant(), qo);
    #[cfg(feature = "alloc")]
    {
        use shaped::{AutoBroadcast, DynTensor};
        let m = Tensor::<i8, Shape![_, 3]>::from_shape_vec([2, 3], a.values().as_slice().to_vec())
            .unwrap()
            .quantized(qa);
        assert_eq!(
            m.add(&b, qo, Activation::None).unwrap().values().as_slice(),
            c.values().as_slice()
        );
        let d = DynTensor::from_shape_vec([2, 3], a.values().as_slice().to_vec())
            .unwrap()
            .quantized(qa);
        let e = DynTensor::from_shape_vec([3], b.values().as_slice().to_vec())
            .unwrap()
            .quantized(qb);
        let r = d
            .add(&e, qo, Activation::None, AutoBroadcast::Numpy)
            .unwrap();
        assert_eq!(r.values().as_slice(), c.values().as_slice());
        // PDPD places b at axis 1 of [2, 3].
        let f = DynTensor::from_shape_vec([2], vec![50i8, -100])
            .unwrap()
            .quantized(qb);
        let p = d
            .add(&f, qo, Activation::None, AutoBroadcast::Pdpd { axis: 0 })
            .unwrap();
        assert_eq!(p.values().shape(), &[2, 3]);
    }
}

/// Large adds and subtracts whose rows hold one input's value (on x86 with `std` read from
/// tables of output bytes, one per value held) against the contract element by element: rows
/// just below, at and above the 256 elements from which tables are used, either input held,
/// both element types, random parameters and values, on the runtime, static, mixed and
/// `run_into` paths.
#[cfg(feature = "alloc")]
#[test]
fn large_adds_with_rows_holding_one_input_are_the_contract() {
    use crate::common::{reference, Lcg};
    use shaped::quant::{QAddSub, QuantElement};
    use shaped::{AutoBroadcast, DynTensor, HeapTensor, TensorViewMut};

    fn quant<E: QuantElement>(rng: &mut Lcg) -> Quant<E> {
        let scale = 0.001 + rng.below(1000) as f32 * 0.0007;
        Quant::new(scale, E::MIN + rng.below(256) as i32).unwrap()
    }
    fn op<E: QuantElement, const SUB: bool>(rng: &mut Lcg) -> QAddSub<E, SUB> {
        loop {
            let (a, b, o) = (quant(rng), quant(rng), quant(rng));
            let act = [Activation::None, Activation::Relu, Activation::Relu6][rng.below(3)];
            let rounding = [Rounding::Double, Rounding::Single][rng.below(2)];
            if let Ok(op) = QAddSub::new(a, b, o, act, rounding) {
                return op;
            }
        }
    }
    fn values<E: QuantElement>(rng: &mut Lcg, n: usize) -> Vec<E> {
        (0..n)
            .map(|_| E::saturate(E::MIN + rng.below(256) as i32))
            .collect()
    }
    type Dyn<E> = shaped::quant::Quantized<DynTensor<E>, E>;
    fn runtime<E: QuantElement + PartialEq + std::fmt::Debug, const SUB: bool>(
        rng: &mut Lcg,
        (sa, sb): (&[usize], &[usize]),
        run: impl Fn(&QAddSub<E, SUB>, &Dyn<E>, &Dyn<E>) -> Dyn<E>,
    ) {
        let op = op::<E, SUB>(rng);
        let (qa, qb) = op.inputs();
        let a = values::<E>(rng, sa.iter().product());
        let b = values::<E>(rng, sb.iter().product());
        let (dims, want) = reference(&a, sa, &b, sb, |x, y| op.apply(x, y));
        let da = DynTensor::from_shape_vec(sa, a).unwrap().quantized(qa);
        let db = DynTensor::from_shape_vec(sb, b).unwrap().quantized(qb);
        let got = run(&op, &da, &db);
        assert_eq!(got.values().shape(), &dims[..]);
        assert_eq!(got.values().as_slice(), &want[..], "{sa:?} with {sb:?}");
    }
    let mut rng = Lcg(0x5eed);
    let shapes: &[(&[usize], &[usize])] = &[
        (&[8, 255], &[8, 1]),
        (&[8, 256], &[8, 1]),
        (&[8, 257], &[1, 1]),
        (&[5, 1], &[1, 300]),
        (&[300], &[4, 1]),
        (&[4, 1], &[256]),
        (&[1024], &[1]),
        (&[1], &[2000]),
        (&[3, 4, 256], &[4, 1]),
        (&[2, 3, 1, 260], &[3, 5, 1]),
        (&[2, 3, 5, 70], &[3, 1, 1]),
        (&[300, 4], &[300, 1]),
        (&[64, 64], &[64, 64]),
        // Rows of 16 take tables from 65536 outputs on.
        (&[4096, 16], &[4096, 1]),
        (&[4095, 16], &[4095, 1]),
        (&[1, 4096], &[16, 1]),
        (&[4400, 15], &[4400, 1]),
    ];
    let numpy = AutoBroadcast::Numpy;
    let check = |rng: &mut Lcg, sa: &[usize], sb: &[usize]| {
        runtime::<i8, false>(rng, (sa, sb), |op, a, b| op.run_dyn(a, b, numpy).unwrap());
        runtime::<u8, false>(rng, (sa, sb), |op, a, b| op.run_dyn(a, b, numpy).unwrap());
        runtime::<i8, true>(rng, (sb, sa), |op, a, b| op.run_dyn(a, b, numpy).unwrap());
        runtime::<u8, true>(rng, (sb, sa), |op, a, b| op.run_dyn(a, b, numpy).unwrap());
    };
    for &(sa, sb) in shapes {
        check(&mut rng, sa, sb);
    }
    // Random shapes whose innermost runs are often long with one side held.
    for _ in 0..40 {
        let rank = 1 + rng.below(3);
        let (mut sa, mut sb) = (Vec::new(), Vec::new());
        for axis in 0..rank {
            let d = [1, 2, 3, 200, 255, 256, 257, 513][rng.below(8)];
            let d = if axis + 1 < rank { d.min(5) } else { d };
            match rng.below(3) {
                0 => (sa.push(d), sb.push(1)),
                1 => (sa.push(1), sb.push(d)),
                _ => (sa.push(d), sb.push(d)),
            };
        }
        check(&mut rng, &sa, &sb);
    }

    // The static path (heap operands), the mixed path and `run_into`.
    let add = op::<i8, false>(&mut rng);
    let (qa, qb) = add.inputs();
    let av = values::<i8>(&mut rng, 8 * 600);
    let bv = values::<i8>(&mut rng, 8);
    let (_, want) = reference(&av, &[8, 600], &bv, &[8, 1], |x, y| add.apply(x, y));
    let a = HeapTensor::<i8, Shape![8, 600]>::from_vec(av.clone())
        .unwrap()
        .quantized(qa);
    let b = Tensor::<i8, Shape![8, 1]>::from_fn(|[i, _]| bv[i]).quantized(qb);
    assert_eq!(add.run(&a, &b).unwrap().values().as_slice(), &want[..]);
    let m = Tensor::<i8, Shape![_, 600]>::from_shape_vec([8, 600], av.clone())
        .unwrap()
        .quantized(qa);
    assert_eq!(add.run(&m, &b).unwrap().values().as_slice(), &want[..]);
    let mut buf = vec![0i8; 8 * 600];
    add.run_into(
        &a,
        &b,
        &mut TensorViewMut::<i8, Shape![8, 600]>::new(&mut buf).unwrap(),
    )
    .unwrap();
    assert_eq!(buf, want);
    let (_, want) = reference(&bv, &[8, 1], &av, &[8, 600], |x, y| add.apply(x, y));
    let held = Tensor::<i8, Shape![8, 1]>::from_fn(|[i, _]| bv[i]).quantized(qa);
    let run = HeapTensor::<i8, Shape![8, 600]>::from_vec(av)
        .unwrap()
        .quantized(qb);
    assert_eq!(add.run(&held, &run).unwrap().values().as_slice(), &want[..]);
}

#[test]
fn q9_mul_on_the_static_and_runtime_paths() {
    let (qa, qb, qo) = (q8(0.1, 0), q8(0.1, 0), q8(0.25, 0));
    let a = Tensor::<i8, Shape![3, 1]>::from([[10], [-10], [127]]).quantized(qa);
    let b = Tensor::<i8, Shape![2]>::from([20, -3]).quantized(qb);
    let c = a.mul(&b, qo, Activation::None).unwrap();
    // 1 * 2 = 2 -> 8; 1 * -0.3 = -0.3 -> -1.2 -> -1; -1 * 2 -> -8; 0.3 -> 1; 12.7 * 2 = 25.4
    // -> 101.6 -> 102; 12.7 * -0.3 = -3.81 -> -15.24 -> -15.
    assert_eq!(c.values().as_slice(), &[8, -1, -8, 1, 102, -15]);
    #[cfg(feature = "alloc")]
    {
        use shaped::{AutoBroadcast, DynTensor};
        let d = DynTensor::from_shape_vec([3, 1], vec![10i8, -10, 127])
            .unwrap()
            .quantized(qa);
        let e = DynTensor::from_shape_vec([2], vec![20i8, -3])
            .unwrap()
            .quantized(qb);
        let r = d
            .mul(&e, qo, Activation::None, AutoBroadcast::Numpy)
            .unwrap();
        assert_eq!(r.values().as_slice(), c.values().as_slice());
    }
}

#[test]
fn q10_quantize_and_dequantize() {
    let q = Quant::<i8>::new(0.5, 1).unwrap();
    let x = Tensor::<f32, Shape![8]>::from([
        0.25,
        -0.25,
        0.75,
        -0.75,
        f32::NAN,
        f32::INFINITY,
        -1e9,
        63.0,
    ]);
    // 0.5 and -0.5 steps round away from zero; NaN is the zero point; the rest saturates.
    let y = x.quantize(q);
    assert_eq!(y.values().as_slice(), &[2, 0, 3, -1, 1, 127, -128, 127]);
    assert_eq!(
        y.dequantize().as_slice(),
        &[0.5, -0.5, 1.0, -1.0, 0.0, 63.0, -64.5, 63.0]
    );
    let u = Quant::<u8>::new(0.1, 128).unwrap();
    let z = Tensor::<f32, Shape![3]>::from([0.0, -12.8, 12.75]).quantize(u);
    assert_eq!(z.values().as_slice(), &[128, 0, 255]);
    #[cfg(feature = "alloc")]
    {
        let d = shaped::DynTensor::from_shape_vec([8], x.as_slice().to_vec())
            .unwrap()
            .quantize(q);
        assert_eq!(d.values().as_slice(), y.values().as_slice());
    }
}

#[test]
fn q11_subtract_is_the_add_with_the_second_term_negated() {
    let (qa, qb, qo) = (q8(0.02, -5), q8(0.03, 7), q8(0.05, 3));
    let a = Tensor::<i8, Shape![3]>::from([100, -100, 0]).quantized(qa);
    let b = Tensor::<i8, Shape![1]>::from([50]).quantized(qb);
    // 2.1 - 1.29 = 0.81 -> 16.2 -> 19; -1.9 - 1.29 = -3.19 -> -63.8 -> -61; 0.1 - 1.29 =
    // -1.19 -> -23.8 -> -21.
    let c = a.sub(&b, qo, Activation::None).unwrap();
    assert_eq!(c.values().as_slice(), &[19, -61, -21]);
    let prepared = QSub::new(qa, qb, qo, Activation::Relu, Rounding::Single).unwrap();
    assert_eq!(prepared.apply(-100, 50), 3);
}

#[test]
fn q12_comparisons_rescale_each_side_by_its_scale() {
    let a = Tensor::<i8, Shape![4]>::from([1, 2, 3, -4]).quantized(q8(0.5, 0));
    let b = Tensor::<i8, Shape![4]>::from([2, 4, 5, -8]).quantized(q8(0.25, 0));
    // 0.5, 1.0, 1.5, -2.0 against 0.5, 1.0, 1.25, -2.0.
    assert_eq!(
        a.compare(&b, CompareOp::Eq).unwrap().as_slice(),
        &[true, true, false, true]
    );
    assert_eq!(
        a.compare(&b, CompareOp::Gt).unwrap().as_slice(),
        &[false, false, true, false]
    );
    let err = a
        .compare(&a.values().quantized(q8(1.0, 0)), CompareOp::Lt)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid quantization: the multiplier 1 derived from the scales is outside what the \
         contract allows (Q3)"
    );
}

#[test]
fn q13_maximum_and_minimum_need_equal_parameters() {
    let q = q8(0.1, -3);
    let a = Tensor::<i8, Shape![3]>::from([1, -2, 3]).quantized(q);
    let b = Tensor::<i8, Shape![3]>::from([0, 5, 3]).quantized(q);
    assert_eq!(a.maximum(&b).unwrap().values().as_slice(), &[1, 5, 3]);
    assert_eq!(a.minimum(&b).unwrap().values().as_slice(), &[0, -2, 3]);
    assert_eq!(a.maximum(&b).unwrap().quant(), q);
    let c = Tensor::<i8, Shape![3]>::from([0, 5, 3]).quantized(q8(0.1, 0));
    assert_eq!(
        a.maximum(&c).unwrap_err().to_string(),
        "invalid quantization: a maximum or minimum compares stored integers, so both inputs \
         need the same scale and zero point (Q13)"
    );
}

#[test]
fn q14_requantize_moves_values_to_new_parameters() {
    let a = Tensor::<i8, Shape![4]>::from([-3, 0, 127, -128]).quantized(q8(0.5, 0));
    // -1.5, 0, 63.5, -64 in steps of 0.25 around 128, saturating.
    let u = a.requantize(Quant::<u8>::new(0.25, 128).unwrap());
    assert_eq!(u.values().as_slice(), &[122, 128, 255, 0]);
    let back = u.requantize(q8(0.5, 0));
    assert_eq!(back.values().as_slice(), &[-3, 0, 64, -64]);
}

/// Q26: a standalone int8 RELU is the requantization of Q14 clamped to the activation's
/// bounds under the output's parameters; TFLM's RELU6 clamps under the input's.
#[test]
fn q26_int8_relu_requantizes_then_clamps_to_the_activation() {
    let x = Tensor::<i8, Shape![6]>::from([-128, -20, -1, 0, 37, 127]).quantized(q8(0.1, -3));
    let to = q8(0.05, -10);
    let rq = x.requantize(to);
    let mut relu = Tensor::<i8, Shape![6]>::zeros();
    x.requantize_into(to, Activation::Relu, &mut relu).unwrap();
    let mut relu6 = Tensor::<i8, Shape![6]>::zeros();
    x.requantize_into(to, Activation::Relu6, &mut relu6)
        .unwrap();
    let mut none = Tensor::<i8, Shape![6]>::zeros();
    x.requantize_into(to, Activation::None, &mut none).unwrap();
    // Without an activation, Q14 exactly.
    assert_eq!(none.as_slice(), rq.values().as_slice());
    // ReLU: at least the zero point (0.0); ReLU6: at most -10 + 6 / 0.05 = 110.
    for ((&r, (&a, &b)), &q) in rq
        .values()
        .as_slice()
        .iter()
        .zip(relu.as_slice().iter().zip(relu6.as_slice()))
        .zip(x.values().as_slice())
    {
        assert_eq!(a, r.max(-10), "{q}");
        assert_eq!(b, r.clamp(-10, 110), "{q}");
    }
    // -1 steps of 0.1 around -3 are 0.2: 4 steps of 0.05 above -10; 127 is 13.0: 6.0 at most.
    assert_eq!(relu.as_slice()[2], -6);
    assert_eq!(relu6.as_slice()[5], 110);
    assert_eq!(relu.as_slice()[5], 127);
    // TFLM's RELU6 clamps in the input's parameters: [-3, -3 + 6 / 0.1], the bytes kept.
    let mut kept = Tensor::<i8, Shape![6]>::zeros();
    x.requantize_into(x.quant(), Activation::Relu6, &mut kept)
        .unwrap();
    assert_eq!(kept.as_slice(), &[-3, -3, -1, 0, 37, 57]);
}

include!("common/quant_pairs.rs");

/// The Cortex-M4 suite must find the same sums (`tests/common/quant_pairs.rs`).
#[test]
fn quantized_outputs_hash_as_on_the_cortex_m4() {
    assert_eq!(all_pairs_hashes().unwrap(), QUANT_HASHES);
}

/// `u8` follows the same contract: a `u8` value `v` with zero point `z` is the real value of
/// the `i8` value `v - 128` with zero point `z - 128`, and every operation gives the same
/// integers shifted by 128 (the offsets cancel), over every pair of inputs. TFLM's current
/// kernels take `i8` only, so this ties `u8` to the data the `i8` paths are held to.
#[test]
fn u8_operations_are_the_i8_ones_shifted_by_128() {
    let pairs = || (0..=255u8).flat_map(|x| (0..=255u8).map(move |y| (x, y)));
    let shift = |v: u8| (v as i16 - 128) as i8;
    for (sa, za, sb, zb, so, zo) in [
        (0.02, 123, 0.03, 135, 0.05, 131),
        (0.0078125, 128, 0.00390625, 138, 0.015625, 125),
        (0.3, 0, 0.001, 255, 0.7, 200),
    ] {
        let (ua, ub, uo) = (
            Quant::<u8>::new(sa, za).unwrap(),
            Quant::<u8>::new(sb, zb).unwrap(),
            Quant::<u8>::new(so, zo).unwrap(),
        );
        let (ia, ib, io) = (q8(sa, za - 128), q8(sb, zb - 128), q8(so, zo - 128));
        for rounding in [Rounding::Double, Rounding::Single] {
            let act = Activation::Relu6;
            let (uadd, iadd) = (
                QAdd::new(ua, ub, uo, act, rounding).unwrap(),
                QAdd::new(ia, ib, io, act, rounding).unwrap(),
            );
            let (umul, imul) = (
                QMul::new(ua, ub, uo, act, rounding).unwrap(),
                QMul::new(ia, ib, io, act, rounding).unwrap(),
            );
            let (usub, isub) = (
                QSub::new(ua, ub, uo, act, rounding).unwrap(),
                QSub::new(ia, ib, io, act, rounding).unwrap(),
            );
            for (x, y) in pairs() {
                let (xi, yi) = (shift(x), shift(y));
                assert_eq!(shift(uadd.apply(x, y)), iadd.apply(xi, yi), "add {x} {y}");
                assert_eq!(shift(umul.apply(x, y)), imul.apply(xi, yi), "mul {x} {y}");
                assert_eq!(shift(usub.apply(x, y)), isub.apply(xi, yi), "sub {x} {y}");
            }
        }
    }
}

/// Q15's store on its own: `saturate_round_half_even` equals `round_ties_even` then a clamp, on
/// every half and quarter step across the 8-bit ranges and past them, on large and tiny values,
/// infinities and NaN (0).
#[test]
fn q15_store_rounds_ties_to_even_and_saturates() {
    use shaped::quant::saturate_round_half_even as store;
    let want = |x: f32, lo: f32, hi: f32| {
        if x.is_nan() {
            0
        } else {
            x.round_ties_even().clamp(lo, hi) as i32
        }
    };
    let mut values: Vec<f32> = (-2400..=2400).map(|k| k as f32 * 0.125).collect();
    for x in [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MAX,
        f32::MIN,
        1e-40,
        -1e-40,
        0.49999997,
        -0.49999997,
        0.50000006,
        126.5,
        127.5,
        -128.5,
        254.5,
        255.5,
        8_388_609.0,
        -16_777_217.0,
        3.0e9,
    ] {
        values.push(x);
    }
    for x in values {
        assert_eq!(store::<i8>(x) as i32, want(x, -128.0, 127.0), "i8 {x}");
        assert_eq!(store::<u8>(x) as i32, want(x, 0.0, 255.0), "u8 {x}");
    }
    assert_eq!(store::<i8>(2.5), 2);
    assert_eq!(store::<i8>(-2.5), -2);
    assert_eq!(store::<i8>(3.5), 4);
    assert_eq!(store::<u8>(-0.5), 0);
}

/// The binary primitive's integer contract (oneDNN's): sources scaled and combined in `f32`,
/// post-ops in `f32`, one rounding half to even, saturated; against an `f32` reference with
/// `round_ties_even`, over random broadcasts, and ties by value.
#[cfg(feature = "alloc")]
#[test]
fn q15_the_primitive_rounds_half_to_even_once_at_the_store() {
    use shaped::primitive::{Alg, Binary, Eltwise, Layout, MemRef};
    // Ties: 0.5 * [1, 3, 5, -1, -3, -5] + 0 rounds to [0, 2, 2, 0, -2, -2].
    let a = [1i8, 3, 5, -1, -3, -5];
    let zero = [0u8];
    let src0 = MemRef::new([6], &a, Layout::RowMajor).unwrap();
    let src1 = MemRef::new([1], &zero, Layout::RowMajor).unwrap();
    let d = Binary::new(Alg::Add)
        .scales(0.5, 1.0)
        .run_mixed::<i8, u8, i8>(&src0, &src1)
        .unwrap();
    assert_eq!(d.as_slice(), &[0, 2, 2, 0, -2, -2]);
    // Into the caller's buffer, a Sum post-op reading its old integers (0.5 of each): 0.5 +
    // 0.5 = 1, 1.5 + 0.5 = 2, then 2.5 -> 2, -0.5 -> 0, -1.5 -> -2, -2.5 -> -2 (ties to even).
    use shaped::primitive::{MemMut, PostOp};
    let mut buf = [1i8, 1, 0, 0, 0, 0];
    let mut dst = MemMut::new([6], &mut buf, Layout::RowMajor).unwrap();
    Binary::new(Alg::Add)
        .scales(0.5, 1.0)
        .post_op(PostOp::Sum { scale: 0.5 })
        .run_mixed_into::<i8, u8, i8>(&src0, &src1, &mut dst)
        .unwrap();
    assert_eq!(buf, [1, 2, 2, 0, -2, -2]);

    let mut x = 0x1234_5678u32;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    for round in 0..200 {
        let alg = [Alg::Add, Alg::Sub, Alg::Mul, Alg::Maximum, Alg::Minimum][round % 5];
        let relu = round % 3 == 0;
        let (s0, s1) = (
            (next() % 1000) as f32 / 997.0,
            (next() % 1000) as f32 / 331.0,
        );
        let a: Vec<i8> = (0..24).map(|_| next() as u8 as i8).collect();
        let b: Vec<u8> = (0..3).map(|_| next() as u8).collect();
        let src0 = MemRef::new([2, 3, 4], &a, Layout::RowMajor).unwrap();
        let src1 = MemRef::new([1, 3, 1], &b, Layout::RowMajor).unwrap();
        let mut prim = Binary::new(alg).scales(s0, s1).runtime_checked();
        if relu {
            prim.push_post_op(Eltwise::Relu);
        }
        let got = prim.run_mixed::<i8, u8, u8>(&src0, &src1).unwrap();
        let want: Vec<u8> = (0..24)
            .map(|i| {
                let (x, y) = (s0 * a[i] as f32, s1 * b[(i / 4) % 3] as f32);
                let mut v = match alg {
                    Alg::Add => x + y,
                    Alg::Sub => x - y,
                    Alg::Mul => x * y,
                    Alg::Maximum => x.max(y),
                    _ => x.min(y),
                };
                if relu {
                    v = v.max(0.0);
                }
                v.round_ties_even().clamp(0.0, 255.0) as u8
            })
            .collect();
        assert_eq!(got.as_slice(), &want[..], "round {round}, {alg:?}");
        // The same values from channels-last sources into an `any` destination (channels-last
        // too, O5), and into a caller's strided buffer: the same numbers at each index.
        let a_nhwc: Vec<i8> = (0..24)
            .map(|k| {
                // Memory order (axis 0, axis 2, axis 1): channels (axis 1) innermost.
                let (n, w, c) = (k / 12, (k / 3) % 4, k % 3);
                a[n * 12 + c * 4 + w]
            })
            .collect();
        let src0 = MemRef::new([2, 3, 4], &a_nhwc, Layout::ChannelsLast).unwrap();
        let got = prim.run_mixed::<i8, u8, u8>(&src0, &src1).unwrap();
        assert_eq!(got.layout(), Layout::ChannelsLast);
        let mut buf = [0u8; 24];
        let mut dst =
            shaped::primitive::MemMut::new([2, 3, 4], &mut buf, Layout::RowMajor).unwrap();
        prim.run_mixed_into::<i8, u8, u8>(&src0, &src1, &mut dst)
            .unwrap();
        for i in 0..24 {
            let index = [i / 12, (i / 4) % 3, i % 4];
            assert_eq!(
                *got.get(&index).unwrap(),
                want[i],
                "round {round} at {index:?}"
            );
            assert_eq!(buf[i], want[i], "round {round} at {index:?}");
        }
    }
}

/// The runtime path takes every broadcast mode for quantized operations, with the shape errors
/// of the float ones.
#[cfg(feature = "alloc")]
#[test]
fn quantized_runtime_operations_take_all_four_modes() {
    use shaped::{AutoBroadcast, DynTensor};
    let q = q8(0.5, 0);
    let a = DynTensor::from_shape_vec([2, 3], vec![1i8, 2, 3, 4, 5, 6])
        .unwrap()
        .quantized(q);
    let b = DynTensor::from_shape_vec([2, 1], vec![10i8, 20])
        .unwrap()
        .quantized(q);
    let add = |x: &shaped::quant::Quantized<DynTensor<i8>, i8>, y, mode| {
        x.add(y, q, Activation::None, mode)
            .map(|r| r.values().as_slice().to_vec())
    };
    assert_eq!(
        add(&a, &b, AutoBroadcast::Numpy).unwrap(),
        [11, 12, 13, 24, 25, 26]
    );
    assert_eq!(
        add(&a, &b, AutoBroadcast::Bidirectional).unwrap(),
        [11, 12, 13, 24, 25, 26]
    );
    let c = DynTensor::from_shape_vec([2], vec![10i8, 20])
        .unwrap()
        .quantized(q);
    assert_eq!(
        add(&a, &c, AutoBroadcast::Pdpd { axis: 0 }).unwrap(),
        [11, 12, 13, 24, 25, 26]
    );
    assert_eq!(
        add(&a, &a, AutoBroadcast::None).unwrap(),
        [2, 4, 6, 8, 10, 12]
    );
    assert_eq!(
        add(&a, &b, AutoBroadcast::None).unwrap_err().to_string(),
        "cannot broadcast [2, 3] with [2, 1] (none): axis 1 has 3 vs 1"
    );
}

/// A prepared operation refuses operands whose parameters are not the ones it was prepared
/// for, on every path, rather than reading their integers under the wrong scales.
#[test]
fn prepared_operations_refuse_operands_of_other_parameters() {
    let (qa, qb, qo) = (q8(0.02, -5), q8(0.03, 7), q8(0.05, 3));
    let add = QAdd::new(qa, qb, qo, Activation::None, Rounding::Double).unwrap();
    assert_eq!(add.inputs(), (qa, qb));
    let a = Tensor::<i8, Shape![2]>::from([1, 2]).quantized(qa);
    let swapped = Tensor::<i8, Shape![2]>::from([1, 2]).quantized(qb);
    let text = "invalid quantization: the operands' scales or zero points are not the ones the \
                operation was prepared for (Q1)";
    assert_eq!(add.run(&swapped, &a).unwrap_err().to_string(), text);
    assert_eq!(add.run(&a, &swapped).unwrap().values().as_slice(), &[2, 3]);
    #[cfg(feature = "alloc")]
    {
        use shaped::{AutoBroadcast, DynTensor};
        let d = DynTensor::from_shape_vec([2], vec![1i8, 2])
            .unwrap()
            .quantized(qa);
        let err = add.run_dyn(&d, &d, AutoBroadcast::Numpy).unwrap_err();
        assert_eq!(err.to_string(), text);
    }
}

/// Per-axis parameters (Q16): each index of the axis quantizes and dequantizes as a per-tensor
/// `Quant` of its own (Q10, itself checked against TFLM) would; static (compile-time length),
/// mixed and runtime paths agree on every axis of a rank-3 shape; bad parameters, a wrong
/// length and an axis outside the shape are error values with exact texts; empty axes work.
#[test]
fn q16_per_axis_parameters_quantize_each_index_with_its_own() {
    use shaped::quant::{DynPerAxis, PerAxis};
    use shaped::TensorView;
    static SCALES: [f32; 4] = [0.02, 0.5, 0.003, 1.25];
    static ZEROS: [i32; 4] = [-5, 0, 127, -128];
    let x = Tensor::<f32, Shape![3, 4, 2]>::from_fn(|[i, j, k]| {
        (i as f32 - 1.2) * 7.3 + j as f32 * 0.61 - k as f32 * 0.37
    });
    // Axis 1 has size 4: the parameters fit at compile time.
    let p = PerAxis::<i8, 4>::new(&SCALES, &ZEROS).unwrap();
    let q = x.quantize_per_axis::<1, i8, 4>(p);
    assert_eq!(q.axis(), 1);
    for (n, &v) in x.as_slice().iter().enumerate() {
        let [i, j, k] = [n / 8, (n / 2) % 4, n % 2];
        let own = Quant::<i8>::new(SCALES[j], ZEROS[j]).unwrap();
        let want = Tensor::<f32, Shape![1]>::from([v]).quantize(own);
        assert_eq!(
            q.values()[[i, j, k]],
            want.values()[[0]],
            "at {:?}",
            [i, j, k]
        );
        assert_eq!(
            q.dequantize()[[i, j, k]],
            want.dequantize()[[0]],
            "at {:?}",
            [i, j, k]
        );
    }
    // The integers, attached again: the same real values.
    let again = (*q.values()).quantized_per_axis::<1, 4>(p);
    assert_eq!(again.dequantize(), q.dequantize());

    // Mixed (a view whose axis 1 has a runtime size) and runtime paths, every axis.
    let dims = [3usize, 4, 2];
    let flat = x.as_slice();
    for axis in 0..3 {
        let n = dims[axis];
        let params = DynPerAxis::<i8>::new(&SCALES[..n], &ZEROS[..n]).unwrap();
        let typed_path = TensorView::<f32, Shape![3, _, 2]>::with_shape(dims, flat)
            .unwrap()
            .try_quantize_per_axis(axis, params)
            .unwrap();
        let inner: usize = dims[axis + 1..].iter().product();
        for (i, &v) in flat.iter().enumerate() {
            let c = (i / inner) % n;
            let own = Quant::<i8>::new(SCALES[c], ZEROS[c]).unwrap();
            let want = Tensor::<f32, Shape![1]>::from([v]).quantize(own);
            assert_eq!(typed_path.values().as_slice()[i], want.values()[[0]]);
            assert_eq!(
                typed_path.dequantize().as_slice()[i],
                want.dequantize()[[0]]
            );
        }
        #[cfg(feature = "alloc")]
        {
            let d = shaped::DynTensor::from_shape_vec(dims, flat.to_vec()).unwrap();
            let runtime = d.try_quantize_per_axis(axis, params).unwrap();
            assert_eq!(runtime.values().as_slice(), typed_path.values().as_slice());
            assert_eq!(
                runtime.dequantize().as_slice(),
                typed_path.dequantize().as_slice()
            );
            let attached = runtime
                .values()
                .clone()
                .try_quantized_per_axis(axis, params);
            assert_eq!(
                attached.unwrap().dequantize().as_slice(),
                typed_path.dequantize().as_slice()
            );
        }
    }

    // Errors, each an exact text.
    let err = |e: shaped::Error| e.to_string();
    assert_eq!(
        err(PerAxis::<i8, 2>::new(&[0.5, 0.0], &[0, 0]).unwrap_err()),
        "invalid quantization: the scale 0 must be finite and positive (Q1)"
    );
    assert_eq!(
        err(PerAxis::<u8, 2>::new(&[0.5, 0.5], &[0, 256]).unwrap_err()),
        "invalid quantization: the zero point 256 is outside the element range 0..=255 (Q1)"
    );
    assert_eq!(
        err(DynPerAxis::<i8>::new(&[0.5, 0.5, 0.5], &[0, 0]).unwrap_err()),
        "invalid quantization: 3 scales but 2 zero points; each index of the axis needs one of \
         each (Q16)"
    );
    let three = DynPerAxis::<i8>::new(&SCALES[..3], &ZEROS[..3]).unwrap();
    let v = TensorView::<f32, Shape![3, _, 2]>::with_shape(dims, flat).unwrap();
    assert_eq!(
        err(v.try_quantize_per_axis(1, three).map(|_| ()).unwrap_err()),
        "invalid quantization: 3 per-axis parameters for axis 1 of size 4; the axis needs one \
         per index (Q16)"
    );
    assert_eq!(
        err(v.try_quantize_per_axis(3, three).map(|_| ()).unwrap_err()),
        "invalid quantization: per-axis parameters along axis 3 of a rank-3 tensor (Q16)"
    );
    let scalar = Tensor::<i8, Shape![]>::from_fn(|_| 7);
    assert_eq!(
        err(scalar
            .try_quantized_per_axis(0, three)
            .map(|_| ())
            .unwrap_err()),
        "invalid quantization: per-axis parameters along axis 0 of a rank-0 tensor (Q16)"
    );

    // Zero-size: no parameters for an empty axis, and an empty tensor along a full one.
    let none = PerAxis::<i8, 0>::new(&[], &[]).unwrap();
    let empty = Tensor::<f32, Shape![2, 0]>::from_fn(|_| 1.0).quantize_per_axis::<1, i8, 0>(none);
    assert_eq!(empty.dequantize().as_slice(), &[] as &[f32]);
    let empty_rows = Tensor::<f32, Shape![0, 4]>::from_fn(|_| 1.0).quantize_per_axis::<1, i8, 4>(p);
    assert_eq!(empty_rows.values().as_slice(), &[] as &[i8]);
    assert_eq!(p.len(), 4);
    assert_eq!(p.get(3), Some(Quant::new(1.25, -128).unwrap()));
    assert_eq!(p.get(4), None);
}

/// Products (Q17) by hand: the sum from the bias with the zero points taken off, requantized
/// with the output zero point and clamp; an empty inner dim leaves the bias alone; rank-1
/// operands; and each error value with its text. `tests/quantized_tflm_matmul.rs` holds the
/// bulk comparison with TFLM.
#[test]
fn q17_products_sum_from_the_bias_and_requantize_once() {
    use shaped::quant::QMatMul;
    use shaped::rules::MatMulOptions;
    let (qx, qw, qo) = (q8(0.5, 1), q8(0.25, 0), q8(1.0, -3));
    let op = QMatMul::new(qx, qw, qo, Activation::None, Rounding::Double).unwrap();
    // x = [3, 5] means [1, 2]; w rows [4, 8] and [-4, 0] mean [1, 2] and [-1, 0].
    let x = Tensor::<i8, Shape![1, 2]>::from([[3, 5]]).quantized(qx);
    let w = Tensor::<i8, Shape![2, 2]>::from([[4, 8], [-4, 0]]).quantized(qw);
    // Sums at scale 1/8: (2*4 + 4*8) = 40 and -8; bias [8, 0] (1.0 at 1/8) -> 48 and -8, i.e.
    // 6.0 and -1.0, stored with zero point -3.
    let y = op.fully_connected(&x, &w, Some(&[8, 0])).unwrap();
    assert_eq!(y.values().as_slice(), &[3, -4]);
    assert_eq!(y.quant(), qo);
    // ReLU clamps at the output zero point.
    let relu = QMatMul::new(qx, qw, qo, Activation::Relu, Rounding::Double).unwrap();
    assert_eq!(
        relu.fully_connected(&x, &w, Some(&[8, 0]))
            .unwrap()
            .values()
            .as_slice(),
        &[3, -3]
    );
    // A rank-1 input is one row, and its 1 is not in the result.
    let row = Tensor::<i8, Shape![2]>::from([3, 5]).quantized(qx);
    let y1: Tensor<i8, Shape![2]> = *op
        .fully_connected(&row, &w, Some(&[8, 0]))
        .unwrap()
        .values();
    assert_eq!(y1.as_slice(), &[3, -4]);
    // No inner terms: the bias alone, requantized (24 at 1/8 is 3.0).
    let empty_x = Tensor::<i8, Shape![2, 0]>::zeros().quantized(qx);
    let empty_w = Tensor::<i8, Shape![2, 0]>::zeros().quantized(qw);
    let y0 = op
        .fully_connected(&empty_x, &empty_w, Some(&[24, -8]))
        .unwrap();
    assert_eq!(y0.values().as_slice(), &[0, -4, 0, -4]);
    // No rows: nothing.
    let none = Tensor::<i8, Shape![0, 2]>::zeros().quantized(qx);
    assert!(op
        .fully_connected(&none, &w, None)
        .unwrap()
        .values()
        .as_slice()
        .is_empty());

    let err = |e: shaped::Error| e.to_string();
    assert_eq!(
        err(op
            .fully_connected(&x, &w, Some(&[1, 2, 3]))
            .map(|_| ())
            .unwrap_err()),
        "invalid quantization: a bias of 3 values for 2 output columns; it needs one per \
         column (Q17)"
    );
    let other = Tensor::<i8, Shape![2, 2]>::from([[4, 8], [-4, 0]]).quantized(qx);
    assert_eq!(
        err(op
            .fully_connected(&x, &other, None)
            .map(|_| ())
            .unwrap_err()),
        "invalid quantization: the operands' scales or zero points are not the ones the \
         operation was prepared for (Q1)"
    );
    #[cfg(feature = "alloc")]
    {
        let xd = shaped::DynTensor::from_shape_vec([1, 3], vec![1i8, 2, 3])
            .unwrap()
            .quantized(qx);
        let wd = shaped::DynTensor::from_shape_vec([2, 2], vec![4i8, 8, -4, 0])
            .unwrap()
            .quantized(qw);
        assert_eq!(
            err(op.fully_connected_dyn(&xd, &wd, None).unwrap_err()),
            "cannot multiply [1, 3] by [2, 2] (matmul): inner dims 3 vs 2 (G4)"
        );
        let a = shaped::DynTensor::from_shape_vec([2, 1, 2], vec![3i8, 5, 1, 1])
            .unwrap()
            .quantized(qx);
        let b = shaped::DynTensor::from_shape_vec([3, 2, 1], vec![4i8; 6])
            .unwrap()
            .quantized(qw);
        assert_eq!(
            err(op.matmul_dyn(&a, &b, MatMulOptions::default()).unwrap_err()),
            "cannot multiply [2, 1, 2] by [3, 2, 1] (matmul): batch axis 0 has 2 vs 3 (G5)"
        );
    }
    // A multiplier the contract cannot hold: 2^40 is past the largest shift.
    assert_eq!(
        err(QMatMul::new(
            q8(1.0, 0),
            q8(1.0, 0),
            q8(1e-12, 0),
            Activation::None,
            Rounding::Double
        )
        .unwrap_err()),
        "invalid quantization: the multiplier 1000000003995.8029 derived from the scales is \
         outside what the contract allows (Q3)"
    );
}

/// Per-channel products (Q18): each output column requantized by its own multiplier; weight
/// zero points must be 0; weights quantized along another axis are refused.
#[test]
fn q18_per_channel_columns_requantize_by_their_own_scale() {
    use shaped::quant::{PerAxis, QMatMulPerChannel};
    static SCALES: [f32; 3] = [1.0, 0.5, 0.25];
    static ZEROS: [i32; 3] = [0, 0, 0];
    let pw = PerAxis::<i8, 3>::new(&SCALES, &ZEROS).unwrap();
    let (qx, qo) = (q8(1.0, 0), q8(1.0, 0));
    let op = QMatMulPerChannel::new(qx, pw, qo, Activation::None, Rounding::Double).unwrap();
    let x = Tensor::<i8, Shape![1, 2]>::from([[1, 2]]).quantized(qx);
    let w =
        Tensor::<i8, Shape![3, 2]>::from([[4, 4], [4, 4], [4, 4]]).quantized_per_axis::<0, 3>(pw);
    // 12 at scales 1, 0.5, 0.25.
    assert_eq!(
        op.fully_connected(&x, &w, None)
            .unwrap()
            .values()
            .as_slice(),
        &[12, 6, 3]
    );
    let mut out = Tensor::<i8, Shape![1, 3]>::zeros();
    op.fully_connected_into(&x, &w, Some(&[4, 4, 4]), &mut out)
        .unwrap();
    assert_eq!(out.as_slice(), &[16, 8, 4]);
    static NONZERO: [i32; 3] = [0, 5, 0];
    let bad = PerAxis::<i8, 3>::new(&SCALES, &NONZERO).unwrap();
    assert_eq!(
        QMatMulPerChannel::new(qx, bad, qo, Activation::None, Rounding::Double)
            .unwrap_err()
            .to_string(),
        "invalid quantization: the weights of output column 1 have the zero point 5; \
         per-channel weights are symmetric, every zero point 0 (Q18)"
    );
    // Square weights quantized along their input axis: the right length, the wrong axis.
    static SQUARE: [f32; 2] = [1.0, 1.0];
    let p2 = PerAxis::<i8, 2>::new(&SQUARE, &[0, 0]).unwrap();
    let op2 = QMatMulPerChannel::new(qx, p2, qo, Activation::None, Rounding::Double).unwrap();
    let along_in = Tensor::<i8, Shape![2, 2]>::splat(1)
        .try_quantized_per_axis(1, p2)
        .unwrap();
    let wrong = shaped::quant::QuantizedPerAxis::clone(&along_in);
    let x2 = Tensor::<i8, Shape![1, 2]>::splat(1).quantized(qx);
    let (values, params, axis) = wrong.into_parts();
    assert_eq!(axis, 1);
    let _ = (values, params);
    let typed = Tensor::<i8, Shape![2, 2]>::splat(1).quantized_per_axis::<0, 2>(p2);
    assert_eq!(
        op2.fully_connected(&x2, &typed, None)
            .unwrap()
            .values()
            .as_slice(),
        &[2, 2]
    );
    #[cfg(feature = "alloc")]
    {
        let wd = shaped::DynTensor::from_shape_vec([2, 2], vec![1i8; 4])
            .unwrap()
            .try_quantized_per_axis(1, p2)
            .unwrap();
        let xd = shaped::DynTensor::from_shape_vec([1, 2], vec![1i8; 2])
            .unwrap()
            .quantized(qx);
        assert_eq!(
            op2.fully_connected_dyn(&xd, &wd, None)
                .unwrap_err()
                .to_string(),
            "invalid quantization: the operands' scales or zero points are not the ones the \
             operation was prepared for (Q1)"
        );
    }
}
