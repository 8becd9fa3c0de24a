//! Fused layers (rules G7, Q19): `Dense` gives the bits of the unfused operators
//! (`act(x.matmul(&w) + &b)`) at every size, and of an index-by-index reference in `k` order
//! below 4096 multiply-adds, static and mixed; `QDense` and `QDensePerChannel` give `QMatMul`'s integers
//! (which `tests/quantized_tflm_matmul.rs` checks against TFLM itself; the sine and residual
//! models, run through these layers, check them against TFLM whole).

use crate::common;

use common::Lcg;
use shaped::layer::{Clip, Dense, Identity, Map, QDense, QDensePerChannel, Relu};
use shaped::quant::{Activation as QAct, PerAxis, QMatMul, QMatMulPerChannel, Quant, Rounding};
use shaped::{Const, Dyn, Shape, Tensor, TensorView, TensorViewMut};

fn floats<const N: usize>(rng: &mut Lcg) -> [f32; N] {
    // Signed values with a spread of magnitudes and an exact -0.0 now and then.
    core::array::from_fn(|_| match rng.below(16) {
        0 => -0.0,
        n => (rng.below(2001) as f32 - 1000.0) / 256.0 * (n as f32 / 4.0),
    })
}

fn matrix<const R: usize, const C: usize>(rng: &mut Lcg) -> [[f32; C]; R] {
    core::array::from_fn(|_| floats::<C>(rng))
}

/// G7's definition, index by index: the sum in `k` order from its first term (an empty sum
/// is `+0.0`), then the bias, then the activation.
fn reference<const IN: usize, const OUT: usize>(
    x: &[f32],
    w: &[[f32; OUT]; IN],
    b: Option<&[f32; OUT]>,
    act: impl Fn(f32) -> f32,
) -> Vec<f32> {
    let mut out = Vec::new();
    for row in x
        .chunks(IN.max(1))
        .take(if IN == 0 { 2 } else { usize::MAX })
    {
        for j in 0..OUT {
            let mut s = if IN == 0 { 0.0 } else { row[0] * w[0][j] };
            for k in 1..IN {
                s += row[k] * w[k][j];
            }
            if let Some(b) = b {
                s += b[j];
            }
            out.push(act(s));
        }
    }
    out
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// One static size through every form: rank 1, 2 and 3, bias or none, each activation, the
/// unfused operators (for small products, which add in `k` order) and the mixed path.
macro_rules! dense_case {
    ($in:literal, $out:literal, $seed:literal) => {{
        const IN: usize = $in;
        const OUT: usize = $out;
        let seed: u64 = $seed;
        let mut rng = Lcg(seed);
        let w = matrix::<IN, OUT>(&mut rng);
        let b = floats::<OUT>(&mut rng);
        let x2 = matrix::<2, IN>(&mut rng);
        let xt = Tensor::<f32, (Const<2>, Const<IN>)>::from(x2);
        let wt = Tensor::<f32, (Const<IN>, Const<OUT>)>::from(w);
        let bt = Tensor::<f32, (Const<OUT>,)>::from(b);
        // Products below 4096 multiply-adds add in `k` order (G6); larger ones take
        // `matmul`'s shared kernel, and so do the layers.
        let small = |rows: usize| rows * IN * OUT < 4096;

        // No bias, no activation.
        let layer = Dense::new(&w, None, Identity);
        let y = layer.forward(&xt);
        assert_eq!(
            bits(y.as_slice()),
            bits(xt.matmul(&wt).as_slice()),
            "{IN} -> {OUT}"
        );
        if small(2) {
            assert_eq!(
                bits(y.as_slice()),
                bits(&reference(xt.as_slice(), &w, None, |v| v))
            );
        }

        // Bias and ReLU.
        let layer = Dense::new(&w, Some(&b), Relu);
        let y: Tensor<f32, (Const<2>, Const<OUT>)> = layer.forward(&xt);
        let want = reference(
            xt.as_slice(),
            &w,
            Some(&b),
            |v| if 0.0 > v { 0.0 } else { v },
        );
        if small(2) {
            assert_eq!(bits(y.as_slice()), bits(&want), "{IN} -> {OUT}, relu");
        }
        let unfused = (xt.matmul(&wt) + &bt).relu();
        assert_eq!(bits(y.as_slice()), bits(unfused.as_slice()));

        // Clip, on a rank-1 input.
        let clip = Clip {
            min: -1.5,
            max: 2.0,
        };
        let layer = Dense::new(&w, Some(&b), clip);
        let x1 = Tensor::<f32, (Const<IN>,)>::from(x2[0]);
        let y1: Tensor<f32, (Const<OUT>,)> = layer.forward(&x1);
        let want = reference(x1.as_slice(), &w, Some(&b), |v| v.clamp(-1.5, 2.0));
        if small(1) {
            assert_eq!(bits(y1.as_slice()), bits(&want[..OUT]));
        }
        let unfused = (x1.matmul(&wt) + &bt).clip(-1.5, 2.0);
        assert_eq!(bits(y1.as_slice()), bits(unfused.as_slice()));

        // Any function, on a rank-3 input of two batches of one row each.
        let layer = Dense::new(&w, Some(&b), Map(|v: f32| v * 0.5 - 1.0));
        let x3 = Tensor::<f32, (Const<2>, Const<1>, Const<IN>)>::from([[x2[0]], [x2[1]]]);
        let y3: Tensor<f32, (Const<2>, Const<1>, Const<OUT>)> = layer.forward(&x3);
        if small(2) {
            let want = reference(x3.as_slice(), &w, Some(&b), |v| v * 0.5 - 1.0);
            assert_eq!(bits(y3.as_slice()), bits(&want));
        }
        let unfused = (x3.matmul(&wt) + &bt).map(|&v| v * 0.5 - 1.0);
        assert_eq!(bits(y3.as_slice()), bits(unfused.as_slice()));

        // Mixed: a runtime batch, into a view (no allocator) and (feature alloc) into a new tensor.
        let layer = Dense::new(&w, Some(&b), Relu);
        let static_y = layer.forward(&xt);
        let xv = TensorView::<f32, (Dyn, Const<IN>)>::with_shape([2, IN], xt.as_slice()).unwrap();
        let mut buf = vec![f32::NAN; 2 * OUT];
        let mut yv =
            TensorViewMut::<f32, (Dyn, Const<OUT>)>::with_shape([2, OUT], &mut buf).unwrap();
        layer.forward_into(&xv, &mut yv).unwrap();
        assert_eq!(bits(&buf), bits(static_y.as_slice()));
        let heap: Tensor<f32, (Dyn, Const<OUT>)> = layer.forward(&xv);
        assert_eq!(heap.shape(), [2, OUT]);
        assert_eq!(bits(heap.as_slice()), bits(static_y.as_slice()));
        // And into a static output.
        let mut into = Tensor::<f32, (Const<2>, Const<OUT>)>::splat(f32::NAN);
        layer.forward_into(&xt, &mut into).unwrap();
        assert_eq!(bits(into.as_slice()), bits(static_y.as_slice()));
    }};
}

/// G7: each output is `matmul`'s sum (in `k` order from its first term below 4096
/// multiply-adds, the shared kernel's order above), then the bias, then the activation: the
/// unfused operators' bits at every size, on small layers, on layers past 4096 multiply-adds
/// (80 x 70 and 64 x 128 on two rows, the rank-1 ones below and above), single inputs and
/// outputs.
#[test]
fn g7_dense_layer_is_the_unfused_product_bias_and_activation() {
    dense_case!(1, 1, 1);
    dense_case!(3, 5, 2);
    dense_case!(8, 16, 3);
    dense_case!(16, 2, 4);
    dense_case!(33, 31, 5);
    dense_case!(80, 70, 6);
    dense_case!(64, 128, 7);
}

/// G7 and G6: a sum whose terms are all `-0.0` is `-0.0` (it starts from its first term);
/// with no inputs the sum is `+0.0`, so a bias of `-0.0` gives `+0.0`, as the operators do.
#[test]
fn g7_zero_signs_follow_g6() {
    let w = [[-0.0f32; 2]; 3];
    let x = Tensor::<f32, Shape![1, 3]>::from([[1.0, 2.0, 3.0]]);
    let y = Dense::new(&w, None, Identity).forward(&x);
    assert_eq!(bits(y.as_slice()), [0x8000_0000; 2]);
    assert_eq!(
        bits(y.as_slice()),
        bits(x.matmul(&Tensor::<f32, Shape![3, 2]>::from(w)).as_slice())
    );

    let none: [[f32; 2]; 0] = [];
    let b = [-0.0f32, 1.5];
    let x0 = Tensor::<f32, Shape![2, 0]>::from([[], []]);
    let y0 = Dense::new(&none, Some(&b), Identity).forward(&x0);
    assert_eq!(y0.shape(), [2, 2]);
    assert_eq!(bits(y0.as_slice()), bits(&[0.0, 1.5, 0.0, 1.5]));
    let unfused = x0.matmul(&Tensor::<f32, Shape![0, 2]>::from(none)) + Tensor::from(b);
    assert_eq!(bits(y0.as_slice()), bits(unfused.as_slice()));
}

/// G7: zero outputs, and zero rows (a runtime batch of 0).
#[test]
fn g7_zero_size_outputs_and_batches() {
    let w: [[f32; 0]; 3] = [[]; 3];
    let x = Tensor::<f32, Shape![2, 3]>::splat(1.0);
    let y: Tensor<f32, Shape![2, 0]> = Dense::new(&w, None, Relu).forward(&x);
    assert_eq!(y.shape(), [2, 0]);

    let w = [[1.0f32; 4]; 3];
    let empty: [f32; 0] = [];
    let x = TensorView::<f32, Shape![_, 3]>::with_shape([0, 3], &empty).unwrap();
    let y = Dense::new(&w, None, Relu).forward(&x);
    assert_eq!(y.shape(), [0, 4]);
}

/// G7: an output whose runtime dims are not the layer's output for its input is an error
/// value naming both, and the output is left as it was.
#[test]
fn g7_forward_into_a_wrong_runtime_output_is_an_error() {
    let w = [[1.0f32; 2]; 3];
    let layer = Dense::new(&w, None, Identity);
    let x = TensorView::<f32, Shape![_, 3]>::with_shape([2, 3], &[1.0; 6]).unwrap();
    let mut buf = [7.0f32; 6];
    let mut out = TensorViewMut::<f32, Shape![_, 2]>::with_shape([3, 2], &mut buf).unwrap();
    let err = layer.forward_into(&x, &mut out).unwrap_err();
    assert_eq!(
        err.to_string(),
        "output [3, 2] is not [2, 2], the dense layer's output for its input (G7)"
    );
    assert_eq!(buf, [7.0; 6]);
}

/// Integer layers follow the integer contract: the sums wrap.
#[test]
fn g7_integer_sums_wrap() {
    let w = [[i32::MAX, 1]];
    let x = Tensor::<i32, Shape![1]>::from([2]);
    let y = Dense::new(&w, Some(&[1, -2]), Identity).forward(&x);
    assert_eq!(y.into_inner(), [-1, 0]);
}

fn int8s<const N: usize>(rng: &mut Lcg) -> [i8; N] {
    core::array::from_fn(|_| (rng.below(256) as i32 - 128) as i8)
}

const fn q(scale: f32, zero_point: i32) -> Quant<i8> {
    Quant::new_const(scale, zero_point)
}

/// One static size of quantized layer against `QMatMul`: per tensor and per channel, bias or
/// none, each activation, ranks 1 and 2, static and mixed.
macro_rules! qdense_case {
    ($in:literal, $out:literal, $seed:literal) => {{
        const IN: usize = $in;
        const OUT: usize = $out;
        let seed: u64 = $seed;
        let mut rng = Lcg(seed);
        let w: [[i8; IN]; OUT] = core::array::from_fn(|_| int8s::<IN>(&mut rng));
        let bias: [i32; OUT] = core::array::from_fn(|_| rng.below(20001) as i32 - 10000);
        let x: [[i8; IN]; 3] = core::array::from_fn(|_| int8s::<IN>(&mut rng));
        let scales: [f32; OUT] = core::array::from_fn(|j| 0.001 + j as f32 * 0.0007);
        let zeros = [0i32; OUT];
        for (act, rounding) in [
            (QAct::None, Rounding::Double),
            (QAct::Relu, Rounding::Double),
            (QAct::Relu6, Rounding::Single),
        ] {
            let op = QMatMul::new(q(0.05, -3), q(0.02, 2), q(0.1, 5), act, rounding).unwrap();
            for b in [None, Some(&bias)] {
                let layer = QDense::new(op, &w, b);
                let xt = Tensor::<i8, (Const<3>, Const<IN>)>::from(x).quantized(layer.input());
                let wt =
                    TensorView::<i8, (Const<OUT>, Const<IN>)>::from(&w).quantized(op.inputs().1);
                let want = op.fully_connected(&xt, &wt, b.map(|b| &b[..])).unwrap();
                let got = layer.forward(&xt).unwrap();
                assert_eq!(got.values(), want.values(), "{IN} -> {OUT} {act:?} {b:?}");
                assert_eq!(got.quant(), op.output());
                // Rank 1.
                let x1 = Tensor::<i8, (Const<IN>,)>::from(x[1]).quantized(layer.input());
                assert_eq!(
                    layer.forward(&x1).unwrap().values().as_slice(),
                    &want.values().as_slice()[OUT..2 * OUT]
                );
                // Mixed, into a view.
                let xv =
                    TensorView::<i8, (Dyn, Const<IN>)>::with_shape([3, IN], xt.values().as_slice())
                        .unwrap()
                        .quantized(layer.input());
                let mut buf = vec![0i8; 3 * OUT];
                let mut yv =
                    TensorViewMut::<i8, (Dyn, Const<OUT>)>::with_shape([3, OUT], &mut buf).unwrap();
                layer.forward_into(&xv, &mut yv).unwrap();
                assert_eq!(&buf[..], want.values().as_slice());
                assert_eq!(
                    layer.forward(&xv).unwrap().values().as_slice(),
                    want.values().as_slice()
                );
            }
            // Per channel.
            let params = PerAxis::new(&scales, &zeros).unwrap();
            let op = QMatMulPerChannel::new(q(0.05, -3), params, q(0.1, 5), act, rounding).unwrap();
            let layer = QDensePerChannel::new(op, &w, Some(&bias));
            let xt = Tensor::<i8, (Const<3>, Const<IN>)>::from(x).quantized(layer.input());
            let wt = TensorView::<i8, (Const<OUT>, Const<IN>)>::from(&w)
                .quantized_per_axis::<0, OUT>(params);
            let want = op.fully_connected(&xt, &wt, Some(&bias)).unwrap();
            assert_eq!(layer.forward(&xt).unwrap().values(), want.values());
            let mut out = Tensor::<i8, (Const<3>, Const<OUT>)>::zeros();
            layer.forward_into(&xt, &mut out).unwrap();
            assert_eq!(&out, want.values());
        }
    }};
}

/// Q19: a quantized layer's outputs are Q17's (Q18's per channel), `QMatMul`'s integers.
#[test]
fn q19_quantized_layers_are_the_prepared_products() {
    qdense_case!(1, 1, 11);
    qdense_case!(8, 16, 12);
    qdense_case!(16, 8, 13);
    qdense_case!(37, 5, 14);
    qdense_case!(64, 64, 15);
}

/// Q19: a per-channel layer keeps its product's multipliers, not the weights' scales and zero
/// points: a layer prepared from parameters borrowed for one call outlives them (it would not
/// compile if the layer held them), and a `const` layer in flash carries no copy of them.
#[test]
fn q19_per_channel_layer_keeps_no_scales() {
    static W: [[i8; 3]; 2] = [[1, -2, 3], [-4, 5, -6]];
    static BIAS: [i32; 2] = [10, -10];
    fn layer() -> QDensePerChannel<'static, i8, 3, 2> {
        // The scales and zero points live on this call's stack only.
        let (scales, zeros) = ([0.5f32, 0.25], [0i32, 0]);
        let params = PerAxis::new(&scales, &zeros).unwrap();
        let op =
            QMatMulPerChannel::new(q(0.5, 1), params, q(0.25, -2), QAct::None, Rounding::Double)
                .unwrap();
        QDensePerChannel::new(op, &W, Some(&BIAS))
    }
    let layer = layer();
    let x = Tensor::<i8, (Const<1>, Const<3>)>::from([[3, 5, -7]]).quantized(layer.input());
    // Sums with the input offset -1: 10 + (2 - 8 - 24) = -20 and -10 + (-8 + 20 + 48) = 50;
    // scaled by 0.5 * 0.5 / 0.25 = 1 and by 0.5 * 0.25 / 0.25 = 0.5, then the zero point -2.
    assert_eq!(layer.forward(&x).unwrap().values().as_slice(), &[-22, 23]);
    assert_eq!(layer.output(), q(0.25, -2));
}

/// Q19: no inputs (each output its bias alone), no outputs; an input of other parameters is
/// an error value with Q1's text, and nothing is written.
#[test]
fn q19_edges_and_errors() {
    let op = QMatMul::new(
        q(0.5, 0),
        q(0.5, 0),
        q(1.0, 0),
        QAct::None,
        Rounding::Double,
    )
    .unwrap();
    let none: [[i8; 0]; 2] = [[], []];
    let layer = QDense::new(op, &none, Some(&[8, -9]));
    let x = Tensor::<i8, Shape![1, 0]>::from([[]]).quantized(layer.input());
    // 8 * 0.25 = 2, -9 * 0.25 = -2.25 -> -2.
    assert_eq!(layer.forward(&x).unwrap().values().as_slice(), &[2, -2]);

    let w: [[i8; 3]; 0] = [];
    let layer = QDense::new(op, &w, None);
    let x = Tensor::<i8, Shape![2, 3]>::zeros().quantized(layer.input());
    assert_eq!(layer.forward(&x).unwrap().values().shape(), [2, 0]);

    let w = [[1i8; 3]; 2];
    let layer = QDense::new(op, &w, None);
    let x = Tensor::<i8, Shape![2, 3]>::zeros().quantized(q(0.25, 0));
    let want = "invalid quantization: the operands' scales or zero points are not the ones the \
                operation was prepared for (Q1)";
    assert_eq!(layer.forward(&x).unwrap_err().to_string(), want);
    let mut out = Tensor::<i8, Shape![2, 2]>::splat(7);
    assert_eq!(
        layer.forward_into(&x, &mut out).unwrap_err().to_string(),
        want
    );
    assert_eq!(out.into_inner(), [[7; 2]; 2]);

    let x = TensorView::<i8, Shape![_, 3]>::with_shape([2, 3], &[0; 6])
        .unwrap()
        .quantized(layer.input());
    let mut buf = [7i8; 2];
    let mut out = TensorViewMut::<i8, Shape![_, 2]>::with_shape([1, 2], &mut buf).unwrap();
    assert_eq!(
        layer.forward_into(&x, &mut out).unwrap_err().to_string(),
        "output [1, 2] is not [2, 2], the dense layer's output for its input (G7)"
    );
    assert_eq!(buf, [7; 2]);
}

/// A layer is a `const` over `static` parameters.
#[test]
fn layers_are_constants() {
    static W: [[f32; 2]; 2] = [[1.0, 2.0], [3.0, 4.0]];
    const L: Dense<'static, f32, Relu, 2, 2> = Dense::new(&W, None, Relu);
    assert_eq!(
        L.forward(&Tensor::<f32, Shape![2]>::from([1.0, -1.0]))
            .into_inner(),
        [0.0, 0.0]
    );
    assert_eq!(L.weights(), &W);
    assert!(L.bias().is_none());
}
