//! The rules of convolutions and pools (K1-K4, A28-A30): output sizes and padding as TFLite
//! computes them, and the exact text of every error, on the runtime, `_into`, mixed and static
//! paths. K5-K8 (the arithmetic) are checked against TFLM itself in `conv_tflm.rs`.

use shaped::conv::{ConvParams, DynQConv2d, Padding, Window2d, MAX_ACCUMULATED_TERMS, SAME, VALID};
use shaped::quant::{Activation, DynPerAxis, Quant, Rounding};
use shaped::runtime::{conv2d_into, ArrayRef};
use shaped::{DynTensor, ErrorKind, Shape, Tensor};

fn ones(shape: [usize; 4]) -> DynTensor<f32> {
    DynTensor::from_shape_vec(shape, vec![1.0; shape.iter().product()]).unwrap()
}

#[test]
fn k1_output_sizes_and_padding_are_tflites() {
    // (in, kernel, stride, dilation, padding) -> (out, pad before), TFLite's formulas.
    let cases = [
        (24, 3, 1, 1, Padding::Same, 24, 1),
        (24, 3, 2, 1, Padding::Same, 12, 0), // total 1: the odd one goes after
        (25, 3, 2, 1, Padding::Same, 13, 1),
        (5, 4, 1, 1, Padding::Same, 5, 1), // total 3: 1 before, 2 after
        (3, 7, 1, 1, Padding::Same, 3, 3), // a kernel larger than the input
        (3, 1, 5, 1, Padding::Same, 1, 0), // a stride larger than the input
        (3, 2, 1, 4, Padding::Same, 3, 2), // a dilation past the input: span 5
        (0, 3, 1, 1, Padding::Same, 0, 0), // an empty input
        (24, 3, 1, 1, Padding::Valid, 22, 0),
        (24, 3, 2, 2, Padding::Valid, 10, 0), // span 5
        (7, 7, 3, 1, Padding::Valid, 1, 0),   // the kernel equals the input
        (9, 3, 4, 1, Padding::Valid, 2, 0),
    ];
    for (input, k, s, d, padding, out, pad) in cases {
        let g = Window2d::new([k, 1], padding)
            .stride([s, 1])
            .dilation([d, 1])
            .resolve([input, 1])
            .unwrap();
        assert_eq!(
            (g.output()[0], g.pad_before()[0]),
            (out, pad),
            "{input} {k} {s} {d} {padding:?}"
        );
    }

    // The same sizes through a convolution on every path: runtime, `_into`, mixed, static.
    let x = ones([1, 5, 5, 2]);
    let w = ones([3, 4, 4, 2]);
    let y = x
        .conv2d(&w, None, &ConvParams::new(Padding::Same).stride([2, 2]))
        .unwrap();
    assert_eq!(y.shape(), &[1, 3, 3, 3]);
    // Output (0, 0) starts at -1 (pad 1 of total 3): rows and columns 0..3 inside, 2 channels.
    assert_eq!(y.as_slice()[0], 18.0);
    let mut out = [0.0f32; 27];
    let dims = conv2d_into(
        ArrayRef::new(&[1, 5, 5, 2], x.as_slice()).unwrap(),
        ArrayRef::new(&[3, 4, 4, 2], w.as_slice()).unwrap(),
        None,
        &ConvParams::new(Padding::Same).stride([2, 2]),
        &mut out,
    )
    .unwrap();
    assert_eq!((dims, &out[..]), ([1, 3, 3, 3], y.as_slice()));
    let xm =
        Tensor::<f32, Shape![_, _, _, _]>::from_shape_vec([1, 5, 5, 2], vec![1.0; 50]).unwrap();
    let wm =
        Tensor::<f32, Shape![_, _, _, _]>::from_shape_vec([3, 4, 4, 2], vec![1.0; 96]).unwrap();
    let ym = xm.conv2d(&wm, (), SAME.stride::<2, 2>());
    assert_eq!((ym.shape(), ym.as_slice()), ([1, 3, 3, 3], y.as_slice()));
    let xs = Tensor::<f32, Shape![1, 5, 5, 2]>::splat(1.0);
    let ws = Tensor::<f32, Shape![3, 4, 4, 2]>::splat(1.0);
    let ys: Tensor<f32, Shape![1, 3, 3, 3]> = xs.conv2d(&ws, (), SAME.stride::<2, 2>());
    assert_eq!(ys.as_slice(), y.as_slice());

    // An empty batch and an empty image give empty outputs.
    let empty = DynTensor::<f32>::from_shape_vec([0, 4, 4, 2], vec![]).unwrap();
    let y = empty
        .conv2d(&w, None, &ConvParams::new(Padding::Same))
        .unwrap();
    assert_eq!(y.shape(), &[0, 4, 4, 3]);
    let flat = DynTensor::<f32>::from_shape_vec([1, 0, 4, 2], vec![]).unwrap();
    assert_eq!(
        flat.max_pool2d(&Window2d::new([2, 2], Padding::Same))
            .unwrap()
            .shape(),
        &[1, 0, 4, 2]
    );
}

#[test]
fn a28_a_valid_kernel_larger_than_the_input_is_an_error_naming_both() {
    let x = ones([1, 3, 3, 1]);
    let w = ones([1, 2, 2, 1]);
    let e = x
        .conv2d(&w, None, &ConvParams::new(Padding::Valid).dilation([1, 3]))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot conv2d [1, 3, 3, 1] with filter [1, 2, 2, 1]: the kernel spans 4 along the \
         width but the input has 3; VALID padding needs the input at least as large as the \
         dilated kernel (K1)"
    );
    let e = x
        .avg_pool2d(&Window2d::new([4, 1], Padding::Valid))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot avg_pool2d [1, 3, 3, 1] with window [4, 1]: the kernel spans 4 along the height \
         but the input has 3; VALID padding needs the input at least as large as the dilated \
         kernel (K1)"
    );
    // An empty image under VALID: no kernel fits.
    let flat = DynTensor::<f32>::from_shape_vec([1, 0, 3, 1], vec![]).unwrap();
    let e = flat
        .max_pool2d(&Window2d::new([1, 1], Padding::Valid))
        .unwrap_err();
    assert!(e
        .to_string()
        .contains("the kernel spans 1 along the height but the input has 0"));
    // The same on mixed shapes: the panic of a `Dyn` dim that does not fit.
    let xm = Tensor::<f32, Shape![_, _, _, _]>::from_shape_vec([1, 3, 3, 1], vec![1.0; 9]).unwrap();
    let wm = Tensor::<f32, Shape![_, _, _, _]>::from_shape_vec([1, 2, 2, 1], vec![1.0; 4]).unwrap();
    let panic =
        std::panic::catch_unwind(|| xm.conv2d(&wm, (), VALID.dilation::<1, 3>())).unwrap_err();
    let message = panic.downcast_ref::<String>().unwrap();
    assert!(
        message.contains("the kernel spans 4 along the width but the input has 3"),
        "{message}"
    );
}

#[test]
fn k2_zero_kernels_strides_and_dilations_are_errors() {
    let x = ones([1, 4, 4, 1]);
    let w = ones([1, 2, 2, 1]);
    let e = x
        .conv2d(&w, None, &ConvParams::new(Padding::Same).stride([1, 0]))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot conv2d [1, 4, 4, 1] with filter [1, 2, 2, 1]: the stride along the width is 0; \
         kernels, strides and dilations are at least 1 (K2)"
    );
    let e = x
        .conv2d(&w, None, &ConvParams::new(Padding::Same).dilation([0, 1]))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot conv2d [1, 4, 4, 1] with filter [1, 2, 2, 1]: the dilation along the height is \
         0; kernels, strides and dilations are at least 1 (K2)"
    );
    let e = x
        .max_pool2d(&Window2d::new([0, 2], Padding::Same))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot max_pool2d [1, 4, 4, 1] with window [0, 2]: the kernel's height is 0; kernels, \
         strides and dilations are at least 1 (K2)"
    );
    let e = Window2d::new([2, usize::MAX], Padding::Valid)
        .dilation([1, 2])
        .resolve([4, 4])
        .unwrap_err();
    assert_eq!(e.to_string(), "a size overflows usize (K2)");
    assert!(matches!(e.kind(), ErrorKind::Window(_)));
}

#[test]
fn k3_a_convolutions_operands_are_checked() {
    let x = ones([1, 4, 4, 3]);
    let e = x
        .conv2d(&ones([2, 3, 3, 4]), None, &ConvParams::new(Padding::Same))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot conv2d [1, 4, 4, 3] with filter [2, 3, 3, 4]: the input has 3 channels but the \
         filter takes 4 (K3)"
    );
    let e = x
        .conv2d(
            &ones([2, 3, 3, 3]),
            Some(&[0.0; 3]),
            &ConvParams::new(Padding::Same),
        )
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot conv2d [1, 4, 4, 3] with filter [2, 3, 3, 3]: a bias of 3 values for 2 output \
         channels; it needs one per channel (K3)"
    );
    let flat = DynTensor::from_shape_vec([4, 4, 3], vec![1.0f32; 48]).unwrap();
    let e = flat
        .conv2d(&ones([2, 3, 3, 3]), None, &ConvParams::new(Padding::Same))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot conv2d [4, 4, 3] with filter [2, 3, 3, 3]: the input has rank 3; it must have \
         rank 4 (NHWC) (K3)"
    );
    let w3 = DynTensor::from_shape_vec([3, 3, 3], vec![1.0f32; 27]).unwrap();
    let e = x
        .conv2d(&w3, None, &ConvParams::new(Padding::Same))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot conv2d [1, 4, 4, 3] with filter [3, 3, 3]: the filter has rank 3; it must have \
         rank 4 ([out channels, height, width, in channels]) (K3)"
    );
    // The `_into` form: a destination of the wrong length.
    let mut out = [0.0f32; 5];
    let e = conv2d_into(
        ArrayRef::new(&[1, 4, 4, 3], x.as_slice()).unwrap(),
        ArrayRef::new(&[2, 1, 1, 3], &[1.0; 6]).unwrap(),
        None,
        &ConvParams::new(Padding::Same),
        &mut out,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "shape [1, 4, 4, 2] needs 32 elements, but the buffer holds 5 (conv2d)"
    );
}

#[test]
fn k4_a_depthwise_filter_is_a_multiple_of_the_channels() {
    let x = ones([1, 4, 4, 3]);
    let e = x
        .depthwise_conv2d(&ones([1, 3, 3, 4]), None, &ConvParams::new(Padding::Same))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot depthwise_conv2d [1, 4, 4, 3] with filter [1, 3, 3, 4]: the filter's 4 channels \
         are not a multiple of the input's 3 (K4)"
    );
    let e = x
        .depthwise_conv2d(&ones([2, 3, 3, 6]), None, &ConvParams::new(Padding::Same))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot depthwise_conv2d [1, 4, 4, 3] with filter [2, 3, 3, 6]: a depthwise filter is \
         [1, height, width, channels]; its first dim is 2 (K4)"
    );
    // Multiplier 2: output channel 2c + j reads input channel c.
    let x = DynTensor::from_shape_vec([1, 1, 1, 3], vec![1.0f32, 10.0, 100.0]).unwrap();
    let w = DynTensor::from_shape_vec([1, 1, 1, 6], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let y = x
        .depthwise_conv2d(&w, None, &ConvParams::new(Padding::Valid))
        .unwrap();
    assert_eq!(y.as_slice(), &[1.0, 2.0, 30.0, 40.0, 500.0, 600.0]);
    let xs = Tensor::<f32, Shape![1, 1, 1, 3]>::from([[[[1.0, 10.0, 100.0]]]]);
    let ws = Tensor::<f32, Shape![1, 1, 1, 6]>::from([[[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]]]]);
    let ys: Tensor<f32, Shape![1, 1, 1, 6]> = xs.depthwise_conv2d(&ws, (), VALID);
    assert_eq!(ys.as_slice(), y.as_slice());
}

#[test]
fn a29_an_int8_convolution_longer_than_the_accumulator_is_an_error() {
    let q = Quant::<i8>::new(0.5, 0).unwrap();
    let scales = [0.01f32];
    let zeros = [0];
    let op = DynQConv2d::new(
        q,
        DynPerAxis::new(&scales, &zeros).unwrap(),
        q,
        Activation::None,
        Rounding::Double,
    )
    .unwrap();
    // 3 x 3 x 7282 = 65538 products per output, two past the bound.
    let c = 7282;
    assert!(9 * c > MAX_ACCUMULATED_TERMS);
    let x = vec![1i8; 9 * c];
    let w = vec![1i8; 9 * c];
    let mut out = [0i8; 1];
    let e = op
        .conv2d_array_into(
            ArrayRef::new(&[1, 3, 3, c], &x).unwrap(),
            ArrayRef::new(&[1, 3, 3, c], &w).unwrap(),
            None,
            &ConvParams::new(Padding::Valid),
            &mut out,
        )
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot conv2d [1, 3, 3, 7282] with filter [1, 3, 3, 7282]: 65538 products per output; \
         an i32 accumulator sums at most 65536 of them without overflow (K7)"
    );
    // At the bound it runs: 65536 products of 127 * 128 fit.
    let c = 65536 / 16;
    let (x, w) = (vec![127i8; 16 * c], vec![-128i8; 16 * c]);
    let q0 = Quant::<i8>::new(1.0, 0).unwrap();
    let big = [1.0f32 / 65536.0 / 16384.0];
    let op = DynQConv2d::new(
        q0,
        DynPerAxis::new(&big, &zeros).unwrap(),
        q0,
        Activation::None,
        Rounding::Double,
    )
    .unwrap();
    op.conv2d_array_into(
        ArrayRef::new(&[1, 4, 4, c], &x).unwrap(),
        ArrayRef::new(&[1, 4, 4, c], &w).unwrap(),
        None,
        &ConvParams::new(Padding::Valid),
        &mut out,
    )
    .unwrap();
    // 65536 products of 127 * -128: -1065353216 (in range), times 2^-30: -0.992 rounds to -1.
    assert_eq!(out, [-1]);
}

#[test]
fn a30_the_output_shape_is_computed_not_stated() {
    // A static output shape is a type: naming another one does not compile, so the only
    // shape a typed convolution can return is K1's (here `ceil(7 / 2) = 4`, `(7 - 3) / 2 + 1`).
    let x = Tensor::<f32, Shape![1, 7, 7, 1]>::splat(1.0);
    let w = Tensor::<f32, Shape![1, 3, 3, 1]>::splat(1.0);
    let same: Tensor<f32, Shape![1, 4, 4, 1]> = x.conv2d(&w, (), SAME.stride::<2, 2>());
    let valid: Tensor<f32, Shape![1, 3, 3, 1]> = x.conv2d(&w, (), VALID.stride::<2, 2>());
    assert_eq!((same[[0, 0, 0, 0]], valid[[0, 0, 0, 0]]), (4.0, 9.0));
    // At run time the output's dims are returned with it, and an `_into` destination of
    // other dims is refused (K3's test).
    let y = x.to_dyn().conv2d(
        &w.to_dyn(),
        None,
        &ConvParams::new(Padding::Same).stride([2, 2]),
    );
    assert_eq!(y.unwrap().shape(), &[1, 4, 4, 1]);
}
