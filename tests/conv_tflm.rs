//! Convolutions and pools against TensorFlow Lite Micro itself (rules K1-K8): every case of
//! `tests/reference/tflm_{conv2d,depthwise_conv2d,average_pool2d,max_pool2d}{,_f32}`, made by
//! `tflm_conv.py` with the `tflite-micro` package, through the runtime path (`DynTensor`), the
//! no-allocator `_into` forms and the typed path on mixed shapes (every dim `Dyn`), each
//! output equal to TFLM's to the bit; and one case of each file through static shapes, its
//! output shape computed at compile time.

use crate::tflm::{activation, q8};
use crate::tflm_conv::{
    conv_cases, float_conv_cases, float_pool_cases, pool_cases, ConvCase, FloatConvCase,
};
use shaped::conv::{ConvParams, DynQConv2d, Padding, QConv2d, Window2d, SAME, VALID};
use shaped::quant::{Activation, DynPerAxis, PerAxis, Quant, Rounding};
use shaped::runtime::{self, ArrayRef};
use shaped::{DynTensor, Shape, Tensor, TensorViewMut};

fn padding(same: bool) -> Padding {
    if same {
        Padding::Same
    } else {
        Padding::Valid
    }
}

fn conv_params(same: bool, stride: [usize; 2], dilation: [usize; 2]) -> ConvParams {
    ConvParams::new(padding(same))
        .stride(stride)
        .dilation(dilation)
}

/// TFLite's float activation, through the library's `clip` (a clamp: TFLite's min/max).
fn activate(y: DynTensor<f32>, name: &str) -> DynTensor<f32> {
    match activation(name) {
        Activation::None => y,
        Activation::Relu => y.clip(0.0, f32::INFINITY),
        Activation::Relu6 => y.clip(0.0, 6.0),
        Activation::ReluN1To1 => y.clip(-1.0, 1.0),
    }
}

/// `a` and `b` equal as bits (so -0.0 is not 0.0).
fn same_bits(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

fn prepared(c: &ConvCase, zeros: &[i32]) -> DynQConv2d<'static> {
    let scales: &'static [f32] = Box::leak(c.weight_scales.clone().into_boxed_slice());
    let zeros: &'static [i32] = Box::leak(zeros.to_vec().into_boxed_slice());
    let w = DynPerAxis::new(scales, zeros).unwrap();
    let act = activation(&c.activation);
    DynQConv2d::new(q8(c.input_q), w, q8(c.output_q), act, Rounding::Double).unwrap()
}

#[test]
fn k7_int8_convolutions_are_tflms_bytes_on_every_path() {
    let (mut compared, mut mixed, mut mixed_into) = (0, 0, 0);
    for op in ["conv2d", "depthwise_conv2d"] {
        let depthwise = op == "depthwise_conv2d";
        let axis = if depthwise { 3 } else { 0 };
        for c in conv_cases(op) {
            let at = format!("{op} line {}", c.line);
            let zeros = vec![0; c.weight_scales.len()];
            let conv = prepared(&c, &zeros);
            let params = conv_params(c.same, c.stride, c.dilation);
            let bias = c.bias.as_deref();

            // The runtime tensors.
            let x = DynTensor::from_shape_vec(c.input_shape, c.input.clone())
                .unwrap()
                .quantized(q8(c.input_q));
            let w = DynTensor::from_shape_vec(c.filter_shape, c.filter.clone())
                .unwrap()
                .try_quantized_per_axis(axis, conv.weights())
                .unwrap();
            let y = if depthwise {
                conv.depthwise_conv2d_dyn(&x, &w, bias, &params)
            } else {
                conv.conv2d_dyn(&x, &w, bias, &params)
            }
            .unwrap();
            assert_eq!(y.values().shape(), &c.output_shape, "{at}");
            assert_eq!(y.values().as_slice(), &c.expected[..], "{at}");

            // The no-allocator form.
            let mut out = vec![0x55i8; c.expected.len()];
            let (xa, wa) = (
                ArrayRef::new(&c.input_shape, &c.input).unwrap(),
                ArrayRef::new(&c.filter_shape, &c.filter).unwrap(),
            );
            let dims = if depthwise {
                conv.depthwise_conv2d_array_into(xa, wa, bias, &params, &mut out)
            } else {
                conv.conv2d_array_into(xa, wa, bias, &params, &mut out)
            }
            .unwrap();
            assert_eq!((dims, &out[..]), (c.output_shape, &c.expected[..]), "{at}");

            // The typed path on mixed shapes, its spec as types for the common options.
            let xm =
                Tensor::<i8, Shape![_, _, _, _]>::from_shape_vec(c.input_shape, c.input.clone())
                    .unwrap()
                    .quantized(q8(c.input_q));
            let wm =
                Tensor::<i8, Shape![_, _, _, _]>::from_shape_vec(c.filter_shape, c.filter.clone())
                    .unwrap()
                    .try_quantized_per_axis(axis, conv.weights())
                    .unwrap();
            let bias_t = c
                .bias
                .clone()
                .map(|b| Tensor::<i32, Shape![_]>::from_shape_vec([b.len()], b).unwrap());
            let typed = match (c.same, c.stride, c.dilation, &bias_t) {
                (true, [1, 1], [1, 1], Some(b)) if !depthwise => {
                    Some(conv.conv2d(&xm, &wm, b, SAME))
                }
                (false, [1, 1], [1, 1], None) if !depthwise => {
                    Some(conv.conv2d(&xm, &wm, (), VALID))
                }
                (true, [2, 2], [1, 1], Some(b)) if !depthwise => {
                    Some(conv.conv2d(&xm, &wm, b, SAME.stride::<2, 2>()))
                }
                (true, [1, 1], [1, 1], Some(b)) if depthwise => {
                    Some(conv.depthwise_conv2d(&xm, &wm, b, SAME))
                }
                (false, [2, 2], [1, 1], Some(b)) if depthwise => {
                    Some(conv.depthwise_conv2d(&xm, &wm, b, VALID.stride::<2, 2>()))
                }
                _ => None,
            };
            if let Some(y) = typed {
                let y = y.unwrap();
                assert_eq!(y.values().shape(), c.output_shape, "{at} (mixed)");
                assert_eq!(y.values().as_slice(), &c.expected[..], "{at} (mixed)");
                mixed += 1;
            }

            // The typed `_into` form, into a mixed-shape output of the right dims.
            let fill = vec![0x55i8; c.expected.len()];
            let mut into =
                Tensor::<i8, Shape![_, _, _, _]>::from_shape_vec(c.output_shape, fill).unwrap();
            let w_values = wm.values();
            let written = match (c.same, c.stride, c.dilation, &bias_t) {
                (true, [1, 1], [1, 1], Some(b)) if !depthwise => {
                    Some(conv.conv2d_into(&xm, w_values, b, SAME, &mut into))
                }
                (false, [1, 1], [1, 1], None) if !depthwise => {
                    Some(conv.conv2d_into(&xm, w_values, (), VALID, &mut into))
                }
                (true, [1, 1], [1, 1], Some(b)) if depthwise => {
                    Some(conv.depthwise_conv2d_into(&xm, w_values, b, SAME, &mut into))
                }
                _ => None,
            };
            if let Some(r) = written {
                r.unwrap();
                assert_eq!(into.as_slice(), &c.expected[..], "{at} (mixed, into)");
                mixed_into += 1;
            }
            compared += c.expected.len();
        }
    }
    assert!(compared >= 200_000, "{compared} outputs");
    println!("K7 mixed-shape cases: {mixed}, into: {mixed_into}");
    assert!(
        mixed_into >= 5,
        "{mixed_into} mixed-shape cases of the _into forms"
    );
    assert!(mixed >= 10, "{mixed} mixed-shape cases");
}

#[test]
fn k7_static_shapes_give_tflms_bytes_with_the_shape_as_a_type() {
    // conv2d line 9: [2, 5, 5, 12] by [8, 4, 4, 12], VALID, stride 1, relu.
    let c = &conv_cases("conv2d")[8];
    assert_eq!(
        (c.input_shape, c.filter_shape),
        ([2, 5, 5, 12], [8, 4, 4, 12])
    );
    assert_eq!((c.same, c.stride, c.dilation), (false, [1, 1], [1, 1]));
    let scales: [f32; 8] = c.weight_scales.clone().try_into().unwrap();
    let zeros = [0; 8];
    let w_params = PerAxis::new(&scales, &zeros).unwrap();
    let act = activation(&c.activation);
    let op = QConv2d::new(
        q8(c.input_q),
        w_params,
        q8(c.output_q),
        act,
        Rounding::Double,
    )
    .unwrap();
    let x = Tensor::<i8, Shape![2, 5, 5, 12]>::try_from(&c.input[..])
        .unwrap()
        .quantized(op.input());
    let w = Tensor::<i8, Shape![8, 4, 4, 12]>::try_from(&c.filter[..])
        .unwrap()
        .quantized_per_axis::<0, 8>(w_params);
    let y = match c.bias.clone() {
        Some(b) => {
            let b: [i32; 8] = b.try_into().unwrap();
            op.conv2d(&x, &w, &b, VALID)
        }
        None => op.conv2d(&x, &w, (), VALID),
    }
    .unwrap();
    let values: &Tensor<i8, Shape![2, 2, 2, 8]> = y.values();
    assert_eq!(values.as_slice(), &c.expected[..]);
    // The `_into` form, into a buffer the output's shape types.
    let mut buf = [0x55i8; 2 * 2 * 2 * 8];
    let mut out = TensorViewMut::<i8, Shape![2, 2, 2, 8]>::new(&mut buf).unwrap();
    match c.bias.clone() {
        Some(b) => {
            let b: [i32; 8] = b.try_into().unwrap();
            op.conv2d_into(&x, w.values(), &b, VALID, &mut out)
        }
        None => op.conv2d_into(&x, w.values(), (), VALID, &mut out),
    }
    .unwrap();
    assert_eq!(&buf[..], &c.expected[..]);
    // The kernel alone (no weights' parameters) writes the same bytes.
    let kernel = op.kernel();
    let mut again = Tensor::<i8, Shape![2, 2, 2, 8]>::splat(0x55);
    match c.bias.clone() {
        Some(b) => {
            let b: [i32; 8] = b.try_into().unwrap();
            kernel.conv2d_into(&x, w.values(), &b, VALID, &mut again)
        }
        None => kernel.conv2d_into(&x, w.values(), (), VALID, &mut again),
    }
    .unwrap();
    assert_eq!(again.as_slice(), &c.expected[..]);

    // depthwise line 6: [1, 3, 10, 15] by [1, 3, 4, 15], VALID, stride [1, 2], dilation [1, 3].
    let c = &conv_cases("depthwise_conv2d")[5];
    assert_eq!(
        (c.input_shape, c.filter_shape),
        ([1, 3, 10, 15], [1, 3, 4, 15])
    );
    assert_eq!((c.same, c.stride, c.dilation), (false, [1, 2], [1, 3]));
    let scales: [f32; 15] = c.weight_scales.clone().try_into().unwrap();
    let zeros = [0; 15];
    let w_params = PerAxis::new(&scales, &zeros).unwrap();
    let act = activation(&c.activation);
    let op = QConv2d::new(
        q8(c.input_q),
        w_params,
        q8(c.output_q),
        act,
        Rounding::Double,
    )
    .unwrap();
    let x = Tensor::<i8, Shape![1, 3, 10, 15]>::try_from(&c.input[..])
        .unwrap()
        .quantized(op.input());
    let w = Tensor::<i8, Shape![1, 3, 4, 15]>::try_from(&c.filter[..])
        .unwrap()
        .quantized_per_axis::<3, 15>(w_params);
    let spec = VALID.stride::<1, 2>().dilation::<1, 3>();
    let y = match c.bias.clone() {
        Some(b) => {
            let b: [i32; 15] = b.try_into().unwrap();
            op.depthwise_conv2d(&x, &w, &b, spec)
        }
        None => op.depthwise_conv2d(&x, &w, (), spec),
    }
    .unwrap();
    let values: &Tensor<i8, Shape![1, 1, 1, 15]> = y.values();
    assert_eq!(values.as_slice(), &c.expected[..]);
    let mut out = Tensor::<i8, Shape![1, 1, 1, 15]>::splat(0x55);
    match c.bias.clone() {
        Some(b) => {
            let b: [i32; 15] = b.try_into().unwrap();
            op.depthwise_conv2d_into(&x, w.values(), &b, spec, &mut out)
        }
        None => op.depthwise_conv2d_into(&x, w.values(), (), spec, &mut out),
    }
    .unwrap();
    assert_eq!(out.as_slice(), &c.expected[..]);
}

#[test]
fn k8_int8_pools_are_tflms_bytes_on_every_path() {
    let (mut compared, mut mixed, mut mixed_into) = (0, 0, 0);
    for op in ["average_pool2d", "max_pool2d"] {
        let largest = op == "max_pool2d";
        for c in pool_cases(op) {
            let at = format!("{op} line {}", c.line);
            assert_eq!(
                c.input_q, c.output_q,
                "{at}: TFLM's pools keep the parameters"
            );
            let q = q8(c.input_q);
            let window = Window2d::new(c.filter, padding(c.same)).stride(c.stride);
            let act = activation(&c.activation);
            let x = DynTensor::from_shape_vec(c.input_shape, c.input.clone())
                .unwrap()
                .quantized(q);
            let y = if largest {
                x.max_pool2d(&window, act)
            } else {
                x.avg_pool2d(&window, act)
            }
            .unwrap();
            assert_eq!(y.values().shape(), &c.output_shape, "{at}");
            assert_eq!(y.values().as_slice(), &c.expected[..], "{at}");
            assert_eq!(y.quant(), q);

            let mut out = vec![0x55i8; c.expected.len()];
            let xa = ArrayRef::new(&c.input_shape, &c.input).unwrap();
            let dims =
                runtime::quantized_pool2d_into(xa, q, &window, act, largest, &mut out).unwrap();
            assert_eq!((dims, &out[..]), (c.output_shape, &c.expected[..]), "{at}");

            // Mixed shapes, for the windows and options the typed path names here (the
            // ones the file has most of), as types.
            let xm =
                Tensor::<i8, Shape![_, _, _, _]>::from_shape_vec(c.input_shape, c.input.clone())
                    .unwrap()
                    .quantized(q);
            macro_rules! typed_pools {
                ($(($kh:literal, $kw:literal, $sh:literal, $sw:literal, $same:literal)),*) => {
                    match (c.filter, c.stride, c.same) {
                        $(([$kh, $kw], [$sh, $sw], $same) => Some(match ($same, largest) {
                            (true, true) => xm.max_pool2d::<$kh, $kw, _>(SAME.stride::<$sh, $sw>(), act),
                            (true, false) => xm.avg_pool2d::<$kh, $kw, _>(SAME.stride::<$sh, $sw>(), act),
                            (false, true) => xm.max_pool2d::<$kh, $kw, _>(VALID.stride::<$sh, $sw>(), act),
                            (false, false) => xm.avg_pool2d::<$kh, $kw, _>(VALID.stride::<$sh, $sw>(), act),
                        }),)*
                        _ => None,
                    }
                };
            }
            let typed = typed_pools!(
                (5, 5, 1, 3, true),
                (3, 4, 1, 3, true),
                (2, 5, 1, 3, true),
                (1, 4, 3, 1, true),
                (1, 2, 3, 3, false),
                (1, 2, 2, 2, true),
                (1, 1, 2, 3, true),
                (1, 1, 2, 2, true),
                (5, 4, 2, 3, true),
                (5, 4, 2, 1, true),
                (5, 3, 3, 2, true),
                (5, 3, 2, 3, true),
                (5, 3, 1, 2, true),
                (5, 2, 1, 3, true),
                (4, 5, 3, 1, true),
                (4, 4, 3, 3, true)
            );
            if let Some(y) = typed {
                let y = y.unwrap();
                assert_eq!(y.values().shape(), c.output_shape, "{at} (mixed)");
                assert_eq!(y.values().as_slice(), &c.expected[..], "{at} (mixed)");
                mixed += 1;
            }

            // The typed `_into` forms, for the SAME windows of stride 1 x 3 above.
            let fill = vec![0x55i8; c.expected.len()];
            let mut into =
                Tensor::<i8, Shape![_, _, _, _]>::from_shape_vec(c.output_shape, fill).unwrap();
            let spec = SAME.stride::<1, 3>();
            let written = match (c.filter, c.stride, c.same, largest) {
                ([5, 5], [1, 3], true, true) => {
                    Some(xm.max_pool2d_into::<5, 5, _, _>(spec, act, &mut into))
                }
                ([5, 5], [1, 3], true, false) => {
                    Some(xm.avg_pool2d_into::<5, 5, _, _>(spec, act, &mut into))
                }
                ([3, 4], [1, 3], true, true) => {
                    Some(xm.max_pool2d_into::<3, 4, _, _>(spec, act, &mut into))
                }
                ([3, 4], [1, 3], true, false) => {
                    Some(xm.avg_pool2d_into::<3, 4, _, _>(spec, act, &mut into))
                }
                ([2, 5], [1, 3], true, true) => {
                    Some(xm.max_pool2d_into::<2, 5, _, _>(spec, act, &mut into))
                }
                ([2, 5], [1, 3], true, false) => {
                    Some(xm.avg_pool2d_into::<2, 5, _, _>(spec, act, &mut into))
                }
                _ => None,
            };
            if let Some(r) = written {
                r.unwrap();
                assert_eq!(into.as_slice(), &c.expected[..], "{at} (mixed, into)");
                mixed_into += 1;
            }
            compared += c.expected.len();
        }
    }
    assert!(compared >= 200_000, "{compared} outputs");
    println!("K8 mixed-shape cases: {mixed}, into: {mixed_into}");
    assert!(
        mixed_into >= 3,
        "{mixed_into} mixed-shape cases of the _into forms"
    );
    assert!(mixed >= 10, "{mixed} mixed-shape cases");

    // Static: average_pool2d line 3, [2, 15, 3, 21], 3x3, VALID, stride 2.
    let c = &pool_cases("average_pool2d")[2];
    assert_eq!(
        (c.input_shape, c.filter, c.same, c.stride),
        ([2, 15, 3, 21], [3, 3], false, [2, 2])
    );
    let x = Tensor::<i8, Shape![2, 15, 3, 21]>::try_from(&c.input[..])
        .unwrap()
        .quantized(q8(c.input_q));
    let y = x
        .avg_pool2d::<3, 3, _>(VALID.stride::<2, 2>(), activation(&c.activation))
        .unwrap();
    let values: &Tensor<i8, Shape![2, 7, 1, 21]> = y.values();
    assert_eq!(values.as_slice(), &c.expected[..]);
    let mut out = Tensor::<i8, Shape![2, 7, 1, 21]>::splat(0x55);
    x.avg_pool2d_into::<3, 3, _, _>(VALID.stride::<2, 2>(), activation(&c.activation), &mut out)
        .unwrap();
    assert_eq!(out.as_slice(), &c.expected[..]);
}

fn float_conv(c: &FloatConvCase) -> DynTensor<f32> {
    let x = DynTensor::from_shape_vec(c.input_shape, c.input.clone()).unwrap();
    let w = DynTensor::from_shape_vec(c.filter_shape, c.filter.clone()).unwrap();
    let params = conv_params(c.same, c.stride, c.dilation);
    let y = if c.op == "depthwise_conv2d" {
        x.depthwise_conv2d(&w, c.bias.as_deref(), &params)
    } else {
        x.conv2d(&w, c.bias.as_deref(), &params)
    };
    activate(y.unwrap(), &c.activation)
}

#[test]
fn k5_float_convolutions_are_tflites_bits() {
    let (mut compared, mut mixed) = (0, 0);
    for op in ["conv2d", "depthwise_conv2d"] {
        for c in float_conv_cases(op) {
            let at = format!("{op}_f32 line {}", c.line);
            let y = float_conv(&c);
            assert_eq!(y.shape(), &c.output_shape, "{at}");
            assert!(same_bits(y.as_slice(), &c.expected), "{at}");

            // Mixed shapes through the typed path, for the options it names here.
            let xm =
                Tensor::<f32, Shape![_, _, _, _]>::from_shape_vec(c.input_shape, c.input.clone())
                    .unwrap();
            let wm =
                Tensor::<f32, Shape![_, _, _, _]>::from_shape_vec(c.filter_shape, c.filter.clone())
                    .unwrap();
            let b = c
                .bias
                .clone()
                .map(|b| Tensor::<f32, Shape![_]>::from_shape_vec([b.len()], b).unwrap());
            let typed = match (op, c.same, c.stride, c.dilation, &b) {
                ("conv2d", true, [1, 1], [1, 1], Some(b)) => Some(xm.conv2d(&wm, b, SAME)),
                ("conv2d", false, [1, 1], [1, 1], Some(b)) => Some(xm.conv2d(&wm, b, VALID)),
                ("conv2d", true, [1, 3], [1, 1], Some(b)) => {
                    Some(xm.conv2d(&wm, b, SAME.stride::<1, 3>()))
                }
                ("depthwise_conv2d", true, [1, 1], [1, 1], Some(b)) => {
                    Some(xm.depthwise_conv2d(&wm, b, SAME))
                }
                _ => None,
            };
            if let Some(y) = typed {
                let y = activate(y.to_dyn(), &c.activation);
                assert!(same_bits(y.as_slice(), &c.expected), "{at} (mixed)");
                mixed += 1;
            }
            compared += c.expected.len();
        }
    }
    assert!(compared >= 40_000, "{compared} outputs");
    println!("K5 mixed-shape cases: {mixed}");
    assert!(mixed >= 3, "{mixed} mixed-shape cases");

    // Static: conv2d_f32 line 2, [2, 13, 11, 20] by [2, 2, 4, 20], SAME, stride [1, 3].
    let c = &float_conv_cases("conv2d")[1];
    assert_eq!(
        (c.input_shape, c.filter_shape, c.same, c.stride),
        ([2, 13, 11, 20], [2, 2, 4, 20], true, [1, 3])
    );
    let x = Tensor::<f32, Shape![2, 13, 11, 20]>::try_from(&c.input[..]).unwrap();
    let w = Tensor::<f32, Shape![2, 2, 4, 20]>::try_from(&c.filter[..]).unwrap();
    let bias: [f32; 2] = c.bias.clone().unwrap().try_into().unwrap();
    let y: Tensor<f32, Shape![2, 13, 4, 2]> = x.conv2d(&w, &bias, SAME.stride::<1, 3>());
    assert!(same_bits(
        activate(y.to_dyn(), &c.activation).as_slice(),
        &c.expected
    ));
    // The `_into` form fuses the activation.
    let mut out = Tensor::<f32, Shape![2, 13, 4, 2]>::splat(f32::NAN);
    x.conv2d_into(
        &w,
        &bias,
        SAME.stride::<1, 3>(),
        activation(&c.activation),
        &mut out,
    )
    .unwrap();
    assert!(same_bits(out.as_slice(), &c.expected));
}

#[test]
fn k6_float_pools_are_tflites_bits() {
    let mut compared = 0;
    for op in ["average_pool2d", "max_pool2d"] {
        for c in float_pool_cases(op) {
            let at = format!("{op}_f32 line {}", c.line);
            let window = Window2d::new(c.filter, padding(c.same)).stride(c.stride);
            let x = DynTensor::from_shape_vec(c.input_shape, c.input.clone()).unwrap();
            let y = if op == "max_pool2d" {
                x.max_pool2d(&window)
            } else {
                x.avg_pool2d(&window)
            }
            .unwrap();
            let y = activate(y, &c.activation);
            assert_eq!(y.shape(), &c.output_shape, "{at}");
            assert!(same_bits(y.as_slice(), &c.expected), "{at}");

            let mut out = vec![f32::NAN; c.expected.len()];
            let xa = ArrayRef::new(&c.input_shape, &c.input).unwrap();
            if op == "max_pool2d" {
                runtime::max_pool2d_into(xa, &window, &mut out).unwrap();
            } else {
                runtime::avg_pool2d_into(xa, &window, &mut out).unwrap();
            }
            let out = DynTensor::from_shape_vec(c.output_shape, out).unwrap();
            assert!(
                same_bits(activate(out, &c.activation).as_slice(), &c.expected),
                "{at}"
            );
            compared += c.expected.len();
        }
    }
    assert!(compared >= 40_000, "{compared} outputs");
}

#[test]
fn k7_a_mixed_output_of_other_dims_is_an_error_of_the_into_forms() {
    let c = &conv_cases("conv2d")[8]; // [2, 5, 5, 12] by [8, 4, 4, 12], VALID: [2, 2, 2, 8]
    let zeros = vec![0; c.weight_scales.len()];
    let conv = prepared(c, &zeros);
    let x = Tensor::<i8, Shape![_, _, _, _]>::from_shape_vec(c.input_shape, c.input.clone())
        .unwrap()
        .quantized(q8(c.input_q));
    let w =
        Tensor::<i8, Shape![_, _, _, _]>::from_shape_vec(c.filter_shape, c.filter.clone()).unwrap();
    let mut out =
        Tensor::<i8, Shape![_, _, _, _]>::from_shape_vec([2, 2, 1, 16], vec![0; 64]).unwrap();
    let e = conv.conv2d_into(&x, &w, (), VALID, &mut out).unwrap_err();
    assert_eq!(
        e.to_string(),
        "destination [2, 2, 1, 16] is not [2, 2, 2, 8], the conv2d output (K1)"
    );
}

#[test]
fn k7_other_parameters_than_the_prepared_ones_are_an_error() {
    let c = &conv_cases("conv2d")[0];
    let zeros = vec![0; c.weight_scales.len()];
    let conv = prepared(c, &zeros);
    let other = Quant::<i8>::new(c.input_q.0 * 2.0, c.input_q.1).unwrap();
    let x = DynTensor::from_shape_vec(c.input_shape, c.input.clone())
        .unwrap()
        .quantized(other);
    let w = DynTensor::from_shape_vec(c.filter_shape, c.filter.clone())
        .unwrap()
        .try_quantized_per_axis(0, conv.weights())
        .unwrap();
    let e = conv
        .conv2d_dyn(&x, &w, None, &conv_params(c.same, c.stride, c.dilation))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid quantization: the operands' scales or zero points are not the ones the \
         operation was prepared for (Q1)"
    );
}

/// A filter with other than the prepared number of output channels is an error naming both
/// counts (Q16), on the static path as on the runtime one.
#[test]
fn k7_a_filter_with_other_channels_than_the_prepared_ones_names_both_counts() {
    let scales = [0.5f32; 4];
    let zeros = [0; 4];
    let op = QConv2d::new(
        Quant::new_const(0.5, 1),
        PerAxis::new(&scales, &zeros).unwrap(),
        Quant::new_const(0.25, -2),
        Activation::None,
        Rounding::Double,
    )
    .unwrap();
    let x = Tensor::<i8, Shape![1, 3, 3, 2]>::splat(1).quantized(op.input());
    let (scales8, zeros8) = ([0.5f32; 8], [0; 8]);
    let w8 = PerAxis::new(&scales8, &zeros8).unwrap();
    let w = Tensor::<i8, Shape![8, 1, 1, 2]>::splat(1).quantized_per_axis::<0, 8>(w8);
    let text = "invalid quantization: 4 per-axis parameters for axis 0 of size 8; the axis \
                needs one per index (Q16)";
    let e = op.conv2d(&x, &w, (), VALID).unwrap_err();
    assert_eq!(e.to_string(), text);
    let mut out = [0i8; 9 * 8];
    let xs = ArrayRef::new(&[1, 3, 3, 2], &[1i8; 18]).unwrap();
    let ws = ArrayRef::new(&[8, 1, 1, 2], &[1i8; 16]).unwrap();
    let params = ConvParams::new(Padding::Valid);
    let e = op
        .conv2d_array_into(xs, ws, None, &params, &mut out)
        .unwrap_err();
    assert_eq!(e.to_string(), text);
}
