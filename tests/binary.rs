//! The binary primitive (RULES.md section 5): one test per rule (O1-O6, A16), every algorithm and
//! post-op, and a randomized check that layouts never change a result, against an index-by-index
//! reference.

use crate::common;

use shaped::primitive::{Alg, Binary, Eltwise, Layout, MemMut, MemRef, PostOp, MAX_POST_OPS};
use shaped::{broadcast_shapes, AutoBroadcast, BinaryOp, DynTensor, ErrorKind, Shape, Tensor};

fn dyn_t(dims: &[usize], data: &[f32]) -> DynTensor<f32> {
    DynTensor::from_shape_vec(dims, data.to_vec()).unwrap()
}

fn iota(dims: &[usize]) -> DynTensor<f32> {
    let n: usize = dims.iter().product();
    dyn_t(dims, &(0..n).map(|i| i as f32 - 3.0).collect::<Vec<_>>())
}

#[test]
fn o1_src0_src1_and_dst_have_the_same_rank() {
    let e = Binary::new(Alg::Add)
        .run(&iota(&[2, 3]), &iota(&[3]))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::RankMismatch);
    assert_eq!(
        e.to_string(),
        "cannot broadcast [2, 3] with [3] (binary): ranks 2 and 1 differ"
    );
    // A destination of another rank.
    let mut buf = [0.0f32; 6];
    let mut dst = MemMut::new([6], &mut buf, Layout::RowMajor).unwrap();
    let e = Binary::new(Alg::Add)
        .run_into(&iota(&[2, 3]), &iota(&[2, 3]), &mut dst)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "destination [6] is not [2, 3], the broadcast of the sources (binary)"
    );
}

#[test]
fn o2_either_source_may_broadcast() {
    // 1x4 with 4x1 gives 4x4 (the RFC's picture).
    let a = dyn_t(&[1, 4], &[1.0, 2.0, 3.0, 4.0]);
    let b = dyn_t(&[4, 1], &[10.0, 20.0, 30.0, 40.0]);
    let d = Binary::new(Alg::Add).run(&a, &b).unwrap();
    assert_eq!(d.shape(), [4, 4]);
    assert_eq!(d.get(&[2, 1]), Some(&32.0));
    assert_eq!(d.get(&[0, 3]), Some(&14.0));
    // A mismatch names the axis.
    let e = Binary::new(Alg::Add)
        .run(&iota(&[2, 3]), &iota(&[2, 4]))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot broadcast [2, 3] with [2, 4] (binary): axis 1 has 3 vs 4"
    );
    // O2: when src0 differs from dst, src1 must equal it: [1, 4] and [1, 4] cannot make [3, 4].
    let mut buf = [0.0f32; 12];
    let mut dst = MemMut::new([3, 4], &mut buf, Layout::RowMajor).unwrap();
    let e = Binary::new(Alg::Add)
        .run_into(&a, &a, &mut dst)
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ShapeMismatch);
    assert_eq!(
        e.to_string(),
        "destination [3, 4] is not [1, 4], the broadcast of the sources (binary)"
    );
}

#[test]
fn o3_one_against_zero_gives_zero_not_max() {
    let a = dyn_t(&[1, 3], &[1.0, 2.0, 3.0]);
    let b = dyn_t(&[0, 1], &[]);
    let d = Binary::new(Alg::Add).run(&a, &b).unwrap();
    assert_eq!(d.shape(), [0, 3]);
    assert!(d.as_slice().is_empty());
    assert_eq!(
        Binary::<f32>::new(Alg::Add)
            .dst_shape(&[1, 0], &[5, 1])
            .unwrap(),
        [5, 0]
    );
}

#[test]
fn o4_post_op_operand_broadcasts_but_never_grows_the_destination() {
    let x = iota(&[2, 3]);
    // Operand [1, 3] and [2, 1] broadcast onto [2, 3].
    let row = dyn_t(&[1, 3], &[1.0, 10.0, 100.0]);
    let col = dyn_t(&[2, 1], &[2.0, -1.0]);
    let d = Binary::new(Alg::Add)
        .post_op(PostOp::binary(Alg::Mul, &row))
        .post_op(PostOp::binary(Alg::Add, &col))
        .run(&x, &x)
        .unwrap();
    // x = [-3, -2, -1, 0, 1, 2]; 2x, times row, plus col.
    assert_eq!(d.as_slice(), [-4.0, -38.0, -198.0, -1.0, 19.0, 399.0]);
    // An operand bigger than dst: dst [1, 3] from [1, 3] + [1, 3]; operand [2, 3].
    let small = iota(&[1, 3]);
    let e = Binary::new(Alg::Add)
        .post_op(Eltwise::Relu)
        .post_op(PostOp::binary(Alg::Mul, &x))
        .run(&small, &small)
        .unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::DimMismatch {
            axis: 0,
            lhs: 2,
            rhs: 1
        }
    );
    assert_eq!(
        e.to_string(),
        "cannot broadcast [2, 3] with [1, 3] (binary post-op 1): axis 0 has 2 vs 1; \
         a post-op operand dim must be 1 or the destination's (O4)"
    );
    // Another rank.
    let e = Binary::new(Alg::Add)
        .post_op(PostOp::binary(Alg::Mul, &iota(&[3])))
        .run(&x, &x)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot broadcast [3] with [2, 3] (binary post-op 0): ranks 1 and 2 differ"
    );
}

#[test]
fn o5_any_destination_takes_the_layout_of_the_non_broadcast_source() {
    let dims = [2, 3, 2, 2];
    let big: Vec<f32> = (0..24).map(|i| i as f32).collect();
    let bias = [1.0f32, 2.0, 3.0];
    let nhwc = MemRef::new(dims, &big, Layout::ChannelsLast).unwrap();
    let nchw = MemRef::new(dims, &big, Layout::RowMajor).unwrap();
    let per_c = MemRef::new([1, 3, 1, 1], &bias, Layout::RowMajor).unwrap();
    let prim = Binary::new(Alg::Add);
    // src0 is the full one: its layout.
    assert_eq!(
        prim.run(&nhwc, &per_c).unwrap().layout(),
        Layout::ChannelsLast
    );
    assert_eq!(prim.run(&nchw, &per_c).unwrap().layout(), Layout::RowMajor);
    // src1 is the full one (src0 broadcasts): src1's layout.
    let d = prim.run(&per_c, &nhwc).unwrap();
    assert_eq!(d.layout(), Layout::ChannelsLast);
    assert_eq!(d.strides(), [12, 1, 6, 3]);
    // Both broadcast: plain row-major.
    let a = [1.0f32, 2.0];
    let col = MemRef::new([2, 1, 1, 1], &a, Layout::ChannelsLast).unwrap();
    assert_eq!(prim.run(&col, &per_c).unwrap().layout(), Layout::RowMajor);
    // A strided source's dim order is kept, densely: a transposed [3, 4] gives a dense transpose.
    let t_data: Vec<f32> = (0..12).map(|i| i as f32).collect();
    let t = MemRef::with_strides([3, 4], [1, 3], &t_data).unwrap();
    let d = prim
        .run(
            &t,
            &MemRef::new([1, 1], &[0.0f32], Layout::RowMajor).unwrap(),
        )
        .unwrap();
    assert_eq!(
        (d.layout(), d.strides()),
        (Layout::Strided, &[1usize, 3][..])
    );
    assert_eq!(d.get(&[2, 1]), t.get(&[2, 1]));
    // src0 itself may not be `any`.
    let e = MemRef::new(dims, &big, Layout::Any).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AnySource);
    assert_eq!(
        e.to_string(),
        "source [2, 3, 2, 2] has layout `any`, which only a destination may have (binary, O5)"
    );
    // The caller's `any` buffer reports the choice.
    let mut buf = [0.0f32; 24];
    let mut dst = MemMut::any(dims, &mut buf).unwrap();
    prim.run_into(&nhwc, &per_c, &mut dst).unwrap();
    assert_eq!(dst.layout(), Layout::ChannelsLast);
    assert_eq!(
        dst.get(&[1, 2, 0, 1]),
        Some(&(nhwc.get(&[1, 2, 0, 1]).unwrap() + 3.0))
    );
}

#[test]
fn a16_equal_sources_take_src0_layout() {
    let data: Vec<f32> = (0..24).map(|i| i as f32).collect();
    let dims = [2, 3, 2, 2];
    let rm = MemRef::new(dims, &data, Layout::RowMajor).unwrap();
    let cl = MemRef::new(dims, &data, Layout::ChannelsLast).unwrap();
    let prim = Binary::new(Alg::Sub);
    assert_eq!(prim.run(&rm, &cl).unwrap().layout(), Layout::RowMajor);
    assert_eq!(prim.run(&cl, &rm).unwrap().layout(), Layout::ChannelsLast);
}

#[test]
fn o6_benchdnn_pads_src1_on_the_right_which_is_pdpd_axis_0() {
    // benchdnn `3x7x5x1:3x7` means src1 3x7x1x1: left alignment, PDPD with axis 0, not NUMPY.
    let (a_dims, b_dims) = ([3, 7, 5, 1], [3, 7]);
    let pdpd = broadcast_shapes(&a_dims, &b_dims, AutoBroadcast::Pdpd { axis: 0 }).unwrap();
    assert_eq!(pdpd, a_dims);
    assert!(broadcast_shapes(&a_dims, &b_dims, AutoBroadcast::Numpy).is_err());
    let a = iota(&a_dims);
    let b = iota(&b_dims);
    let padded = b.clone().into_shape([3, 7, 1, 1]).unwrap();
    let prim = Binary::new(Alg::Mul).run(&a, &padded).unwrap();
    let reference = a
        .binary(&b, BinaryOp::Mul, AutoBroadcast::Pdpd { axis: 0 })
        .unwrap();
    assert_eq!(prim.as_slice(), reference.as_slice());
}

#[test]
fn every_algorithm_with_comparisons_writing_one_or_zero() {
    let a = dyn_t(&[5], &[1.0, 2.0, 3.0, f32::NAN, -0.0]);
    let b = dyn_t(&[5], &[2.0, 2.0, 1.0, 0.0, 0.0]);
    let run = |alg| Binary::new(alg).run(&a, &b).unwrap().as_slice().to_vec();
    assert_eq!(run(Alg::Add)[..3], [3.0, 4.0, 4.0]);
    assert_eq!(run(Alg::Sub)[..3], [-1.0, 0.0, 2.0]);
    assert_eq!(run(Alg::Mul)[..3], [2.0, 4.0, 3.0]);
    assert_eq!(run(Alg::Div)[..3], [0.5, 1.0, 3.0]);
    let max = run(Alg::Maximum);
    assert_eq!(max[..3], [2.0, 2.0, 3.0]);
    assert!(max[3].is_nan(), "max propagates NaN");
    let min = run(Alg::Minimum);
    assert_eq!(min[..3], [1.0, 2.0, 1.0]);
    assert!(min[3].is_nan(), "min propagates NaN");
    assert_eq!(run(Alg::Ge), [0.0, 1.0, 1.0, 0.0, 1.0]);
    assert_eq!(run(Alg::Gt), [0.0, 0.0, 1.0, 0.0, 0.0]);
    assert_eq!(run(Alg::Le), [1.0, 1.0, 0.0, 0.0, 1.0]);
    assert_eq!(run(Alg::Lt), [1.0, 0.0, 0.0, 0.0, 0.0]);
    assert_eq!(run(Alg::Eq), [0.0, 1.0, 0.0, 0.0, 1.0]);
    assert_eq!(run(Alg::Ne), [1.0, 0.0, 1.0, 1.0, 0.0]);
    // Division by zero is IEEE, not an error.
    let z = Binary::new(Alg::Div).run(&a, &dyn_t(&[1], &[0.0])).unwrap();
    assert_eq!(z.as_slice()[0], f32::INFINITY);
}

#[test]
fn every_eltwise_post_op() {
    let x = dyn_t(&[6], &[-2.0, -0.5, 0.0, 0.5, 2.0, 7.0]);
    let zero = dyn_t(&[1], &[0.0]);
    let run = |e: Eltwise| {
        Binary::new(Alg::Add)
            .post_op(PostOp::Eltwise(e))
            .run(&x, &zero)
            .unwrap()
    };
    let get = |e| run(e).as_slice().to_vec();
    assert_eq!(get(Eltwise::Relu), [0.0, 0.0, 0.0, 0.5, 2.0, 7.0]);
    assert_eq!(
        get(Eltwise::LeakyRelu { slope: 0.1 }),
        [-0.2, -0.05, 0.0, 0.5, 2.0, 7.0]
    );
    assert_eq!(
        get(Eltwise::Clip { lo: -1.0, hi: 6.0 }),
        [-1.0, -0.5, 0.0, 0.5, 2.0, 6.0]
    );
    assert_eq!(
        get(Eltwise::Linear {
            alpha: 2.0,
            beta: 1.0
        }),
        [-3.0, 0.0, 1.0, 2.0, 5.0, 15.0]
    );
    assert_eq!(get(Eltwise::Abs), [2.0, 0.5, 0.0, 0.5, 2.0, 7.0]);
    assert_eq!(get(Eltwise::Square), [4.0, 0.25, 0.0, 0.25, 4.0, 49.0]);
    let close = |e: Eltwise, f: fn(f32) -> f32| {
        for (&got, &v) in run(e).as_slice().iter().zip(x.as_slice()) {
            let want = f(v);
            assert!(
                got == want
                    || (got - want).abs() <= 1e-6 * want.abs().max(1.0)
                    || (got.is_nan() && want.is_nan()),
                "{e:?}({v}) = {got}, want {want}"
            );
        }
    };
    close(Eltwise::Sqrt, f32::sqrt);
    close(Eltwise::Exp, f32::exp);
    close(Eltwise::Tanh, f32::tanh);
    close(Eltwise::Sigmoid, |v| 1.0 / (1.0 + (-v).exp()));
    close(Eltwise::Ln, f32::ln);
    close(Eltwise::GeluTanh, |v| {
        0.5 * v * (1.0 + ((2.0 / std::f32::consts::PI).sqrt() * (v + 0.044715 * v * v * v)).tanh())
    });
    // The exact form through C's erf (std has none on stable): ONNX's reference values.
    assert_eq!(Eltwise::GeluErf.apply(1.0f64), 0.841_344_746_068_542_9);
    assert_eq!(Eltwise::Erf.apply(0.5f32), 0.520_499_9);
    // gelu(2) by the tanh form, computed independently.
    assert!((Eltwise::GeluTanh.apply(2.0f64) - 1.954_597_694_087_775).abs() < 1e-12);
}

#[test]
fn post_ops_apply_in_order_and_sum_accumulates_into_the_old_destination() {
    let a = dyn_t(&[4], &[-2.0, -1.0, 1.0, 2.0]);
    let b = dyn_t(&[1], &[0.5]);
    let mut buf = [10.0f32, 20.0, 30.0, 40.0];
    let mut dst = MemMut::new([4], &mut buf, Layout::RowMajor).unwrap();
    // (a + b), then relu, then + 0.5 * old, then * 2.
    Binary::new(Alg::Add)
        .post_op(Eltwise::Relu)
        .post_op(PostOp::Sum { scale: 0.5 })
        .post_op(Eltwise::Linear {
            alpha: 2.0,
            beta: 0.0,
        })
        .run_into(&a, &b, &mut dst)
        .unwrap();
    assert_eq!(buf, [10.0, 20.0, 33.0, 45.0]);
    // Order matters: sum first, relu after.
    let mut buf = [-10.0f32, 20.0, -30.0, 40.0];
    let mut dst = MemMut::new([4], &mut buf, Layout::RowMajor).unwrap();
    Binary::new(Alg::Add)
        .post_op(PostOp::Sum { scale: 1.0 })
        .post_op(Eltwise::Relu)
        .run_into(&a, &b, &mut dst)
        .unwrap();
    assert_eq!(buf, [0.0, 19.5, 0.0, 42.5]);
    // A new destination starts at zero: sum adds nothing.
    let d = Binary::new(Alg::Add)
        .post_op(PostOp::Sum { scale: 3.0 })
        .run(&a, &b)
        .unwrap();
    assert_eq!(d.as_slice(), [-1.5, -0.5, 1.5, 2.5]);
}

#[test]
fn source_scales_apply_before_the_algorithm() {
    let a = dyn_t(&[2, 1], &[1.0, 2.0]);
    let b = dyn_t(&[1, 2], &[10.0, 20.0]);
    let d = Binary::new(Alg::Add).scales(2.0, 0.1).run(&a, &b).unwrap();
    assert_eq!(d.as_slice(), [3.0, 4.0, 5.0, 6.0]);
    // Scales on strided inputs take the gather path.
    let data = [1.0f32, 3.0, 2.0, 4.0];
    let t = MemRef::with_strides([2, 2], [1, 2], &data).unwrap();
    let d = Binary::new(Alg::Mul).scales(-1.0, 1.0).run(&t, &t).unwrap();
    assert_eq!(d.to_row_major().as_slice(), [-1.0, -4.0, -9.0, -16.0]);
}

#[test]
fn zero_size_dims_and_rank_0() {
    let s = Binary::new(Alg::Mul)
        .post_op(Eltwise::Square)
        .run(&dyn_t(&[], &[3.0]), &dyn_t(&[], &[-2.0]))
        .unwrap();
    assert_eq!((s.shape(), s.as_slice()), (&[][..], &[36.0f32][..]));
    let e = Binary::new(Alg::Add)
        .post_op(PostOp::binary(Alg::Add, &iota(&[1, 0])))
        .run(&iota(&[2, 0]), &iota(&[1, 0]))
        .unwrap();
    assert_eq!(e.shape(), [2, 0]);
    // Every dim 1.
    let one = Binary::new(Alg::Sub)
        .run(&dyn_t(&[1, 1, 1], &[5.0]), &dyn_t(&[1, 1, 1], &[7.0]))
        .unwrap();
    assert_eq!(one.as_slice(), [-2.0]);
}

#[test]
fn bad_memory_is_an_error_value() {
    let data = [0.0f32; 6];
    let e = MemRef::new([2, 4], &data, Layout::RowMajor).unwrap_err();
    assert_eq!(
        e.to_string(),
        "shape [2, 4] needs 8 elements, but the buffer holds 6"
    );
    let e = MemRef::with_strides([2, 3], [4, 1], &data).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BadStrides);
    let e = MemRef::with_strides([usize::MAX, 2], [2, 1], &data).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Overflow);
    let e = MemRef::new([usize::MAX / 2, 4], &data, Layout::RowMajor).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Overflow);
    let e = MemRef::new([1; 13], &data, Layout::RowMajor).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::RankLimit { max: 12 });
    // A destination that would write an element twice.
    let mut buf = [0.0f32; 6];
    let e = MemMut::with_strides([2, 3], [1, 1], &mut buf).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BadStrides);
    let e = MemMut::with_strides([2, 3], [0, 1], &mut buf).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BadStrides);
    // A source may repeat elements (stride 0).
    assert!(MemRef::with_strides([4, 3], [0, 1], &data).is_ok());
}

#[test]
fn more_post_ops_than_the_limit_is_an_error() {
    let x = iota(&[2]);
    let mut prim = Binary::new(Alg::Add).post_op(Eltwise::Abs);
    for _ in 1..MAX_POST_OPS {
        prim = prim.post_op(Eltwise::Abs);
    }
    assert_eq!(prim.post_op_count(), MAX_POST_OPS);
    assert!(prim.run(&x, &x).is_ok());
    let e = prim.post_op(Eltwise::Abs).run(&x, &x).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::TooManyPostOps { max: MAX_POST_OPS });
    assert_eq!(
        e.to_string(),
        "the binary primitive takes at most 8 post-ops"
    );
}

#[test]
fn f64_elements() {
    let a = DynTensor::from_shape_vec([2, 1], vec![1.0f64, -2.0]).unwrap();
    let b = DynTensor::from_shape_vec([1, 2], vec![0.25f64, 0.5]).unwrap();
    let d = Binary::new(Alg::Mul)
        .post_op(Eltwise::Abs)
        .run(&a, &b)
        .unwrap();
    assert_eq!(d.as_slice(), [0.25, 0.5, 0.5, 1.0]);
}

#[test]
fn run_into_needs_no_allocation_views_over_arrays() {
    let src = [1.0f32, -2.0, 3.0, -4.0, 5.0, -6.0];
    let bias = [1.0f32, 2.0];
    let mut out = [0.0f32; 6];
    let a = MemRef::new([2, 3], &src, Layout::RowMajor).unwrap();
    let b = MemRef::new([2, 1], &bias, Layout::RowMajor).unwrap();
    // A column-major destination.
    let mut dst = MemMut::with_strides([2, 3], [1, 2], &mut out).unwrap();
    Binary::new(Alg::Add)
        .post_op(Eltwise::Relu)
        .run_into(&a, &b, &mut dst)
        .unwrap();
    assert_eq!(dst.layout(), Layout::Strided);
    // Row-major values [[2, 0, 4], [0, 7, 0]], stored column by column.
    assert_eq!(out, [2.0, 0.0, 0.0, 7.0, 4.0, 0.0]);
}

// ---- static front end ----

#[test]
fn static_front_end_agrees_with_the_runtime_path() {
    let x = Tensor::<f32, Shape![2, 3, 2]>::from_fn(|[i, j, k]| (i * 6 + j * 2 + k) as f32 - 5.0);
    let bias = Tensor::<f32, Shape![1, 3, 1]>::from([[[1.0], [-1.0], [0.5]]]);
    let scale = Tensor::<f32, Shape![2, 1, 2]>::from([[[2.0, 3.0]], [[-1.0, 0.5]]]);
    let prim = Binary::new(Alg::Add)
        .post_op(Eltwise::Relu)
        .post_op(PostOp::binary(Alg::Mul, &scale));
    let stat: Tensor<f32, Shape![2, 3, 2]> = prim.apply(&x, &bias).unwrap();
    let dynamic = prim.run(&x.to_dyn(), &bias.to_dyn()).unwrap();
    assert_eq!(dynamic.shape(), stat.shape());
    assert_eq!(dynamic.as_slice(), stat.as_slice());
    // Both sources broadcast: [1, 3, 1] with [2, 1, 2].
    let both: Tensor<f32, Shape![2, 3, 2]> = Binary::new(Alg::Sub).apply(&bias, &scale).unwrap();
    assert_eq!(both[[1, 2, 1]], 0.5 - 0.5);
    // Into a view, accumulating.
    let mut buf = [1.0f32; 12];
    let mut view = shaped::TensorViewMut::<f32, Shape![2, 3, 2]>::new(&mut buf).unwrap();
    Binary::new(Alg::Add)
        .post_op(PostOp::Sum { scale: 10.0 })
        .apply_into(&x, &bias, &mut view)
        .unwrap();
    assert_eq!(buf[0], -5.0 + 1.0 + 10.0);
    // A runtime-shaped operand in a static chain: checked at run time.
    let wrong = iota(&[2, 3, 3]);
    let e = Binary::new(Alg::Add)
        .post_op(PostOp::binary(Alg::Add, &wrong))
        .apply(&x, &bias)
        .unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::DimMismatch {
            axis: 2,
            lhs: 3,
            rhs: 2
        }
    );
}

// ---- layouts never change a result (randomized, against a reference) ----

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A source layout: row-major, channels-last, or a random dim order with padding.
fn random_strides(rng: &mut Rng, dims: &[usize]) -> (Vec<usize>, usize) {
    let mut order: Vec<usize> = (0..dims.len()).collect();
    match rng.below(3) {
        0 => {}
        1 if dims.len() >= 3 => order[1..].rotate_left(1),
        _ => {
            for i in (1..order.len()).rev() {
                order.swap(i, rng.below(i + 1));
            }
        }
    }
    let pad = rng.below(2);
    let mut strides = vec![0; dims.len()];
    let mut step = 1;
    for &axis in order.iter().rev() {
        strides[axis] = step;
        step *= dims[axis] + pad;
    }
    (strides, step)
}

fn at(data: &[f32], dims: &[usize], strides: &[usize], out_index: &[usize]) -> f32 {
    let off: usize = out_index
        .iter()
        .zip(dims)
        .zip(strides)
        .map(|((&i, &n), &s)| if n == 1 { 0 } else { i * s })
        .sum();
    data[off]
}

#[test]
fn layouts_do_not_change_results_randomized_against_a_reference() {
    let algs = [
        Alg::Add,
        Alg::Sub,
        Alg::Mul,
        Alg::Div,
        Alg::Maximum,
        Alg::Minimum,
        Alg::Ge,
        Alg::Gt,
        Alg::Le,
        Alg::Lt,
        Alg::Eq,
        Alg::Ne,
    ];
    let eltwise = [
        Eltwise::Relu,
        Eltwise::LeakyRelu { slope: 0.25 },
        Eltwise::Clip { lo: -2.0, hi: 3.0 },
        Eltwise::Linear {
            alpha: 0.5,
            beta: 1.0,
        },
        Eltwise::Abs,
        Eltwise::Square,
    ];
    let mut rng = Rng(0x00B1_4A27_5EED_0005);
    let mut checked = 0;
    for case in 0..1500 {
        let rank = rng.below(5);
        // Long rows sometimes, so blocks of 64 split them.
        let mut dst: Vec<usize> = (0..rank).map(|_| rng.below(4)).collect();
        if rank > 0 && rng.below(3) == 0 {
            // One long dim, so blocks of 64 split its rows.
            let axis = rng.below(rank);
            dst[axis] = 60 + rng.below(90);
        }
        let mask = |rng: &mut Rng| -> Vec<usize> {
            dst.iter()
                .map(|&d| if rng.below(2) == 0 { 1 } else { d })
                .collect()
        };
        // Per dim: both full, or one of the two sources 1 (O2: never both below dst).
        let (mut d0, mut d1) = (dst.clone(), dst.clone());
        for axis in 0..rank {
            match rng.below(3) {
                0 => d0[axis] = 1,
                1 => d1[axis] = 1,
                _ => {}
            }
        }
        let n_post = rng.below(4);
        let make = |rng: &mut Rng, dims: &[usize]| {
            let (strides, span) = random_strides(rng, dims);
            let data: Vec<f32> = (0..span)
                .map(|_| (rng.below(17) as f32 - 8.0) * 0.5)
                .collect();
            (data, strides)
        };
        let (a_data, a_str) = make(&mut rng, &d0);
        let (b_data, b_str) = make(&mut rng, &d1);
        let alg = algs[rng.below(algs.len())];
        let scales = if rng.below(3) == 0 {
            [0.5, -2.0]
        } else {
            [1.0, 1.0]
        };
        enum Post {
            E(Eltwise),
            S(f32),
            B(Alg, Vec<usize>, Vec<f32>, Vec<usize>),
        }
        let mut posts = Vec::new();
        for _ in 0..n_post {
            posts.push(match rng.below(3) {
                0 => Post::E(eltwise[rng.below(eltwise.len())]),
                1 => Post::S(0.5),
                _ => {
                    let od = mask(&mut rng);
                    let (data, strides) = make(&mut rng, &od);
                    Post::B(algs[rng.below(algs.len())], od, data, strides)
                }
            });
        }
        let old: Vec<f32> = (0..dst.iter().product::<usize>())
            .map(|i| (i % 7) as f32)
            .collect();
        // Reference, element by element.
        let expected: Vec<f32> = common::indices(&dst)
            .into_iter()
            .enumerate()
            .map(|(flat, idx)| {
                let mut a = at(&a_data, &d0, &a_str, &idx);
                let mut b = at(&b_data, &d1, &b_str, &idx);
                if scales != [1.0, 1.0] {
                    a *= scales[0];
                    b *= scales[1];
                }
                let mut v = alg.apply(a, b);
                for p in &posts {
                    v = match p {
                        Post::E(e) => e.apply(v),
                        Post::S(s) => v + s * old[flat],
                        Post::B(alg, od, data, strides) => {
                            alg.apply(v, at(data, od, strides, &idx))
                        }
                    };
                }
                v
            })
            .collect();
        // The primitive, into a random destination layout (row-major, channels-last, permuted, any).
        let a = MemRef::with_strides(&d0, &a_str, &a_data).unwrap();
        let b = MemRef::with_strides(&d1, &b_str, &b_data).unwrap();
        let mut chained = Binary::new(alg)
            .scales(scales[0], scales[1])
            .runtime_checked();
        let operands: Vec<_> = posts
            .iter()
            .map(|p| match p {
                Post::B(_, od, data, strides) => {
                    Some(MemRef::with_strides(od, strides, data).unwrap())
                }
                _ => None,
            })
            .collect();
        for (p, m) in posts.iter().zip(&operands) {
            match (p, m) {
                (Post::E(e), _) => chained.push_post_op(*e),
                (Post::S(s), _) => chained.push_post_op(PostOp::Sum { scale: *s }),
                (Post::B(alg, ..), Some(m)) => chained.push_post_op(PostOp::binary(*alg, m)),
                _ => unreachable!(),
            }
        }
        let (d_str, span) = random_strides(&mut rng, &dst);
        let mut buf = vec![f32::NAN; span];
        let mut any_buf = vec![0.0f32; old.len()];
        if case % 4 == 0 {
            // `any` resolves before the run; write old values in the layout it will choose.
            let probe = {
                let mut probe_buf = vec![0.0f32; old.len()];
                let mut probe = MemMut::any(&dst, &mut probe_buf).unwrap();
                Binary::new(Alg::Add).run_into(&a, &b, &mut probe).unwrap();
                probe.strides().to_vec()
            };
            fill_old(&mut any_buf, &dst, &probe, &old);
            let mut dst_mem = MemMut::any(&dst, &mut any_buf).unwrap();
            chained.run_into(&a, &b, &mut dst_mem).unwrap();
            let got = read_all(&dst_mem.as_ref(), &dst);
            assert_same(&got, &expected, case);
        } else {
            fill_old(&mut buf, &dst, &d_str, &old);
            let mut dst_mem = MemMut::with_strides(&dst, &d_str, &mut buf).unwrap();
            chained.run_into(&a, &b, &mut dst_mem).unwrap();
            let got = read_all(&dst_mem.as_ref(), &dst);
            assert_same(&got, &expected, case);
        }
        checked += expected.len();
    }
    assert!(checked > 20_000, "only {checked} elements checked");
}

fn fill_old(buf: &mut [f32], dims: &[usize], strides: &[usize], old: &[f32]) {
    for (idx, &v) in common::indices(dims).iter().zip(old) {
        let off: usize = idx.iter().zip(strides).map(|(&i, &s)| i * s).sum();
        buf[off] = v;
    }
}

fn read_all(m: &MemRef<'_, f32>, dims: &[usize]) -> Vec<f32> {
    common::indices(dims)
        .iter()
        .map(|idx| *m.get(idx).unwrap())
        .collect()
}

fn assert_same(got: &[f32], want: &[f32], case: usize) {
    assert_eq!(got.len(), want.len(), "case {case}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            g == w || (g.is_nan() && w.is_nan()),
            "case {case}, element {i}: got {g}, want {w}"
        );
    }
}

/// Every algorithm pair, with and without ReLU between and after, over every lane shape:
/// covers the loops that join the algorithm with the first post-op and a ReLU.
#[test]
fn joined_loops_match_the_step_by_step_definition() {
    let algs = [
        Alg::Add,
        Alg::Sub,
        Alg::Mul,
        Alg::Div,
        Alg::Maximum,
        Alg::Minimum,
        Alg::Ge,
        Alg::Gt,
        Alg::Le,
        Alg::Lt,
        Alg::Eq,
        Alg::Ne,
    ];
    let a = dyn_t(&[2, 3], &[-2.0, -0.5, 0.0, 1.5, 3.0, -4.0]);
    let shapes: [&[usize]; 3] = [&[2, 3], &[1, 3], &[2, 1]];
    for alg in algs {
        for alg2 in algs {
            for relu_between in [false, true] {
                for relu_after in [false, true] {
                    for b_dims in shapes {
                        for c_dims in shapes {
                            let b = iota(b_dims);
                            let c = iota(c_dims);
                            let mut prim = Binary::new(alg).runtime_checked();
                            if relu_between {
                                prim.push_post_op(Eltwise::Relu);
                            }
                            prim.push_post_op(PostOp::binary(alg2, &c));
                            if relu_after {
                                prim.push_post_op(Eltwise::Relu);
                            }
                            let got = prim.run(&a, &b).unwrap();
                            for i in 0..2 {
                                for j in 0..3 {
                                    let pick = |t: &DynTensor<f32>, d: &[usize]| {
                                        *t.get([i.min(d[0] - 1), j.min(d[1] - 1)]).unwrap()
                                    };
                                    let mut v = alg.apply(pick(&a, &[2, 3]), pick(&b, b_dims));
                                    if relu_between {
                                        v = Eltwise::Relu.apply(v);
                                    }
                                    v = alg2.apply(v, pick(&c, c_dims));
                                    if relu_after {
                                        v = Eltwise::Relu.apply(v);
                                    }
                                    let g = *got.get(&[i, j]).unwrap();
                                    assert!(
                                        g == v || (g.is_nan() && v.is_nan()),
                                        "{alg:?} relu={relu_between} {alg2:?} relu={relu_after} \
                                         b{b_dims:?} c{c_dims:?} at [{i}, {j}]: {g} vs {v}"
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

// ---- in place (O8) ----

/// O8: a run in place writes what the same run out of place writes, for every algorithm and
/// post-op kind, with scales, on random shapes, in row-major, channels-last, strided (padded,
/// permuted) and blocked memory; src1 broadcasts onto src0 one way.
#[test]
fn o8_in_place_equals_out_of_place() {
    use shaped::primitive::Blocking;
    let algs = [
        Alg::Add,
        Alg::Sub,
        Alg::Mul,
        Alg::Div,
        Alg::Maximum,
        Alg::Ge,
    ];
    let mut rng = Rng(0x1A_91AC_E5EE_D008);
    for case in 0..300 {
        let rank = 1 + rng.below(4);
        let dims: Vec<usize> = (0..rank)
            .map(|_| match rng.below(6) {
                0 => 1,
                5 => 20 + rng.below(60),
                _ => 1 + rng.below(5),
            })
            .collect();
        let d1: Vec<usize> = dims
            .iter()
            .map(|&d| if rng.below(2) == 0 { 1 } else { d })
            .collect();
        let n: usize = dims.iter().product();
        let n1: usize = d1.iter().product();
        let values = |rng: &mut Rng, n: usize| -> Vec<f32> {
            (0..n)
                .map(|_| (rng.below(33) as f32 - 16.0) * 0.5)
                .collect()
        };
        let (x, y, z) = (
            values(&mut rng, n),
            values(&mut rng, n1),
            values(&mut rng, n1),
        );
        // The memory of src0 and the destination: dense, strided with padding, or blocked.
        let (strides, span) = random_strides(&mut rng, &dims);
        let layout = match rng.below(4) {
            0 if rank >= 2 => Some(Layout::Blocked(Blocking::blocked::<1, 4>())),
            1 => Some(Layout::RowMajor),
            _ => None,
        };
        let mut buf = match layout {
            Some(l) => vec![f32::NAN; l.buffer_len(&dims).unwrap()],
            None => vec![f32::NAN; span],
        };
        {
            let src = MemRef::new(&dims, &x, Layout::RowMajor).unwrap();
            let mut m = match layout {
                Some(l) => MemMut::new(&dims, &mut buf, l).unwrap(),
                None => MemMut::with_strides(&dims, &strides, &mut buf).unwrap(),
            };
            shaped::primitive::reorder(&src, &mut m).unwrap();
        }
        let y_mem = MemRef::new(&d1, &y, Layout::RowMajor).unwrap();
        let z_mem = MemRef::new(&d1, &z, Layout::RowMajor).unwrap();
        let alg = algs[rng.below(algs.len())];
        let mut prim = Binary::new(alg).runtime_checked();
        if rng.below(3) == 0 {
            prim = prim.scales(1.5, -0.5);
        }
        match rng.below(4) {
            0 => {}
            1 => prim.push_post_op(PostOp::Eltwise(Eltwise::Relu)),
            2 => prim.push_post_op(PostOp::Sum { scale: 2.0 }),
            _ => {
                prim.push_post_op(PostOp::binary(Alg::Add, &z_mem));
                prim.push_post_op(PostOp::Eltwise(Eltwise::Relu));
            }
        }
        // Out of place, into a destination holding src0's values (what a sum post-op reads
        // in place too).
        let mut want = x.clone();
        let src0 = MemRef::new(&dims, &x, Layout::RowMajor).unwrap();
        let mut want_mem = MemMut::new(&dims, &mut want, Layout::RowMajor).unwrap();
        prim.run_into(&src0, &y_mem, &mut want_mem).unwrap();
        let mut m = match layout {
            Some(l) => MemMut::new(&dims, &mut buf, l).unwrap(),
            None => MemMut::with_strides(&dims, &strides, &mut buf).unwrap(),
        };
        prim.run_in_place(&mut m, &y_mem).unwrap();
        for (row, index) in common::indices(&dims).into_iter().enumerate() {
            let (got, expected) = (*m.get(&index).unwrap(), want[row]);
            assert!(
                got.to_bits() == expected.to_bits() || (got.is_nan() && expected.is_nan()),
                "case {case}: {alg:?} {dims:?} {d1:?} at {index:?}: {got} vs {expected}"
            );
        }
    }
}

/// O8: the errors of a run in place, and its static and `DynTensor` forms.
#[test]
fn o8_in_place_src1_may_not_change_the_shape() {
    let mut x = DynTensor::from_shape_vec([1, 3], vec![1.0f32, 2.0, 3.0]).unwrap();
    let e = Binary::new(Alg::Add)
        .run_in_place(&mut MemMut::try_from(&mut x).unwrap(), &iota(&[2, 3]))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot broadcast [1, 3] with [2, 3] (binary in place): axis 0 has 1 vs 2; in place, \
         src1 may not change src0's shape (O8)"
    );
    // O1 and O2 still come first.
    let e = Binary::new(Alg::Add)
        .run_in_place(&mut MemMut::try_from(&mut x).unwrap(), &iota(&[3]))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot broadcast [1, 3] with [3] (binary in place): ranks 2 and 1 differ"
    );
    // src1 [1, 0] against [1, 3]: 3 vs 0 is a mismatch (O2).
    let e = Binary::new(Alg::Add)
        .run_in_place(&mut MemMut::try_from(&mut x).unwrap(), &iota(&[1, 0]))
        .unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::DimMismatch {
            axis: 1,
            lhs: 3,
            rhs: 0
        }
    );
    // An `any` memory has no values to read.
    let mut buf = [0.0f32; 3];
    let e = Binary::new(Alg::Add)
        .run_in_place(&mut MemMut::any([1, 3], &mut buf).unwrap(), &iota(&[1, 3]))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AnySource);
    // The DynTensor form: bias and ReLU in place.
    let bias = dyn_t(&[1, 3], &[-2.0, 0.0, 1.0]);
    Binary::new(Alg::Add)
        .post_op(Eltwise::Relu)
        .run_in_place(&mut MemMut::try_from(&mut x).unwrap(), &bias)
        .unwrap();
    assert_eq!(x.as_slice(), [0.0, 2.0, 4.0]);
    // Zero-size and rank 0.
    let mut empty = DynTensor::<f32>::from_shape_vec([2, 0], vec![]).unwrap();
    Binary::new(Alg::Add)
        .run_in_place(&mut MemMut::try_from(&mut empty).unwrap(), &iota(&[1, 0]))
        .unwrap();
    let mut scalar = DynTensor::from_shape_vec([], vec![2.0f32]).unwrap();
    Binary::new(Alg::Mul)
        .run_in_place(
            &mut MemMut::try_from(&mut scalar).unwrap(),
            &dyn_t(&[], &[4.0]),
        )
        .unwrap();
    assert_eq!(scalar.as_slice(), [8.0]);
    // The static form agrees with the runtime one.
    let mut t = Tensor::<f32, Shape![2, 3]>::from([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]]);
    let s = Tensor::<f32, Shape![1, 3]>::from([[2.0, 2.0, -1.0]]);
    let mut d = DynTensor::from_shape_vec([2, 3], t.as_slice().to_vec()).unwrap();
    let prim = Binary::new(Alg::Mul).post_op(Eltwise::Relu);
    prim.apply_in_place(&mut t, &s).unwrap();
    prim.run_in_place(&mut MemMut::try_from(&mut d).unwrap(), &s)
        .unwrap();
    assert_eq!(t.as_slice(), d.as_slice());
    assert_eq!(t.as_slice(), [2.0, 0.0, 0.0, 0.0, 10.0, 6.0]);
}

// ---- element types per memory (O9) ----

/// O9: oneDNN's `s32` beside the other data types. Loaded as the nearest `f32`; stored rounded
/// half to even and saturated, NaN as 0.
#[test]
fn o9_s32_loads_as_the_nearest_f32_and_stores_rounded_and_saturated() {
    let x = [
        2.5f32,
        3.5,
        -2.5,
        3e9,
        -3e9,
        f32::NAN,
        16_777_217.0,
        1e-3,
        -0.5,
        2_147_483_520.0,
    ];
    let zero = [0.0f32];
    let src0 = MemRef::new([10], &x, Layout::RowMajor).unwrap();
    let z = MemRef::new([1], &zero, Layout::RowMajor).unwrap();
    let d = Binary::new(Alg::Add)
        .run_mixed::<f32, f32, i32>(&src0, &z)
        .unwrap();
    assert_eq!(
        d.as_slice(),
        [
            2,
            4,
            -2,
            i32::MAX,
            i32::MIN,
            0,
            16_777_216,
            0,
            0,
            2_147_483_520
        ]
    );
    // 16777217 has no f32: it loads as 16777216 (and 2^31 - 1 as 2^31, which saturates back).
    let ints = [16_777_217i32, i32::MAX, -7];
    let s = MemRef::new([3], &ints, Layout::RowMajor).unwrap();
    let f = Binary::new(Alg::Add)
        .run_mixed::<i32, f32, f32>(&s, &z)
        .unwrap();
    assert_eq!(f.as_slice(), [16_777_216.0, 2_147_483_648.0, -7.0]);
    let i = Binary::new(Alg::Add)
        .run_mixed::<i32, f32, i32>(&s, &z)
        .unwrap();
    assert_eq!(i.as_slice(), [16_777_216, i32::MAX, -7]);
}

/// The cross-check of every element type in every role (the `half` types come with the
/// workspace's tests).
#[cfg(feature = "half")]
mod mixed_types {
    use super::*;

    /// The element-type contract in one place, for the cross-check below.
    trait Elem: Copy + std::fmt::Debug + PartialEq {
        fn to_f32(self) -> f32;
        fn from_f32(x: f32) -> Self;
    }
    macro_rules! int_elem {
        ($($t:ty)*) => {$(
            impl Elem for $t {
                fn to_f32(self) -> f32 { self as f32 }
                fn from_f32(x: f32) -> Self { x.round_ties_even() as $t }
            }
        )*};
    }
    int_elem!(i8 u8 i32);
    impl Elem for f32 {
        fn to_f32(self) -> f32 {
            self
        }
        fn from_f32(x: f32) -> Self {
            x
        }
    }
    impl Elem for shaped::f16 {
        fn to_f32(self) -> f32 {
            self.to_f32()
        }
        fn from_f32(x: f32) -> Self {
            shaped::f16::from_f32(x)
        }
    }
    impl Elem for shaped::bf16 {
        fn to_f32(self) -> f32 {
            self.to_f32()
        }
        fn from_f32(x: f32) -> Self {
            shaped::bf16::from_f32(x)
        }
    }

    /// A random `[rows, cols]` src0 of `A` and a `[cols]` row of `B` for src1, their values
    /// exact in every element type.
    fn operands<A: Elem, B: Elem>(rng: &mut Rng) -> ([usize; 2], Vec<A>, Vec<B>) {
        let dims = [3 + rng.below(5), 2 + rng.below(40)];
        let a = (0..dims[0] * dims[1])
            .map(|_| A::from_f32(rng.below(200) as f32 - 60.0))
            .collect();
        let b = (0..dims[1])
            .map(|_| B::from_f32(rng.below(100) as f32 * 0.5))
            .collect();
        (dims, a, b)
    }

    /// One mixed run against the contract (the `half` types come with the workspace's tests): each source loaded into `f32`, scaled, the algorithm
    /// and a ReLU and a per-row multiply computed in `f32`, one conversion at the store.
    fn mixed_case<A, B, D>(rng: &mut Rng)
    where
        A: Elem + shaped::primitive::DataType<f32>,
        B: Elem + shaped::primitive::DataType<f32>,
        D: Elem + shaped::primitive::DataType<f32>,
    {
        let (dims, a, b) = operands::<A, B>(rng);
        let m: Vec<f32> = (0..dims[0]).map(|i| 0.25 + i as f32).collect();
        let (sa, sb) = (0.75f32, -1.5f32);
        let src0 = MemRef::new(dims, &a, Layout::RowMajor).unwrap();
        let src1 = MemRef::new([1, dims[1]], &b, Layout::RowMajor).unwrap();
        let mul = MemRef::new([dims[0], 1], &m, Layout::RowMajor).unwrap();
        let prim = Binary::new(Alg::Sub)
            .scales(sa, sb)
            .post_op(Eltwise::Relu)
            .post_op(PostOp::binary(Alg::Mul, &mul));
        let got = prim.run_mixed::<A, B, D>(&src0, &src1).unwrap();
        for r in 0..dims[0] {
            for c in 0..dims[1] {
                let v = (sa * a[r * dims[1] + c].to_f32() - sb * b[c].to_f32()).max(0.0) * m[r];
                assert_eq!(
                    *got.get(&[r, c]).unwrap(),
                    D::from_f32(v),
                    "{} {} -> {} at {r},{c}",
                    std::any::type_name::<A>(),
                    std::any::type_name::<B>(),
                    std::any::type_name::<D>()
                );
            }
        }
    }

    /// The same contract in place (O8): src0 is the destination, of its own type.
    fn in_place_case<A, B>(rng: &mut Rng)
    where
        A: Elem + shaped::primitive::DataType<f32>,
        B: Elem + shaped::primitive::DataType<f32>,
    {
        let (dims, a, b) = operands::<A, B>(rng);
        let (sa, sb) = (0.75f32, -1.5f32);
        let src1 = MemRef::new([1, dims[1]], &b, Layout::RowMajor).unwrap();
        let prim = Binary::new(Alg::Sub)
            .scales(sa, sb)
            .post_op(PostOp::Sum { scale: 0.5 });
        let mut x = a.clone();
        prim.run_in_place_mixed(
            &mut MemMut::new(dims, &mut x, Layout::RowMajor).unwrap(),
            &src1,
        )
        .unwrap();
        for (i, (&got, &old)) in x.iter().zip(&a).enumerate() {
            let v = sa * old.to_f32() - sb * b[i % dims[1]].to_f32() + 0.5 * old.to_f32();
            assert_eq!(
                got,
                A::from_f32(v),
                "{} with {} in place at {i}",
                std::any::type_name::<A>(),
                std::any::type_name::<B>()
            );
        }
    }

    /// O8 with O9: in place, src0 (the destination) and src1 each of its own type; oneDNN's
    /// `bf16` src0 with an `f32` src1 among them, blocked by different sizes too.
    #[test]
    fn o8_o9_in_place_with_two_data_types() {
        use shaped::bf16;
        use shaped::primitive::Blocking;
        let mut rng = Rng(0x001A_91AC);
        for _ in 0..10 {
            in_place_case::<bf16, f32>(&mut rng);
            in_place_case::<i8, f32>(&mut rng);
            in_place_case::<u8, bf16>(&mut rng);
            in_place_case::<f32, i32>(&mut rng);
        }
        // nChw8c bf16 data with an nChw16c f32 operand, against the row-major run.
        let dims = [2, 20, 2, 2];
        let n: usize = dims.iter().product();
        let x: Vec<bf16> = (0..n)
            .map(|i| bf16::from_f32(i as f32 * 0.75 - 9.0))
            .collect();
        let y: Vec<f32> = (0..n).map(|i| (i % 7) as f32 * 0.5).collect();
        let prim = Binary::new(Alg::Mul);
        let mut want = x.clone();
        prim.run_in_place_mixed(
            &mut MemMut::new(dims, &mut want, Layout::RowMajor).unwrap(),
            &MemRef::new(dims, &y, Layout::RowMajor).unwrap(),
        )
        .unwrap();
        let c8 = Layout::Blocked(Blocking::blocked::<1, 8>());
        let c16 = Layout::Blocked(Blocking::blocked::<1, 16>());
        let to = |data: &[f32], l: Layout| {
            let mut buf = vec![0.0f32; l.buffer_len(dims).unwrap()];
            shaped::primitive::reorder(
                &MemRef::new(dims, data, Layout::RowMajor).unwrap(),
                &mut MemMut::new(dims, &mut buf, l).unwrap(),
            )
            .unwrap();
            buf
        };
        let xf: Vec<f32> = x.iter().map(|v| v.to_f32()).collect();
        let mut xb: Vec<bf16> = to(&xf, c8).iter().map(|&v| bf16::from_f32(v)).collect();
        let yb = to(&y, c16);
        prim.run_in_place_mixed(
            &mut MemMut::new(dims, &mut xb, c8).unwrap(),
            &MemRef::new(dims, &yb, c16).unwrap(),
        )
        .unwrap();
        let back: Vec<f32> = xb.iter().map(|v| v.to_f32()).collect();
        let mut plain = vec![0.0f32; n];
        shaped::primitive::reorder(
            &MemRef::new(dims, &back, c8).unwrap(),
            &mut MemMut::new(dims, &mut plain, Layout::RowMajor).unwrap(),
        )
        .unwrap();
        let want: Vec<f32> = want.iter().map(|v| v.to_f32()).collect();
        assert_eq!(plain, want);
        // An `any` destination for sources of two types: O5 takes the unbroadcast source's.
        let (layout, len) = Binary::<f32>::new(Alg::Add)
            .dst_layout(Layout::Any)
            .dst_for(
                &MemRef::new(dims, &xb, c8).unwrap(),
                &MemRef::new([1, 20, 1, 1], &y[..20], Layout::RowMajor).unwrap(),
            )
            .unwrap();
        assert_eq!((layout, len), (c8, 2 * 24 * 4));
    }

    /// O9: each of src0, src1 and dst is any of `f32`, `bf16`, `f16`, `s8`, `u8` and `s32` in one
    /// call; every type in every role against the contract.
    #[test]
    fn o9_each_memory_has_its_own_element_type() {
        use shaped::{bf16, f16};
        let mut rng = Rng(0x0D47_A7E5_0009);
        for _ in 0..10 {
            mixed_case::<f32, i8, u8>(&mut rng);
            mixed_case::<i8, u8, i32>(&mut rng);
            mixed_case::<u8, i32, f16>(&mut rng);
            mixed_case::<i32, f16, bf16>(&mut rng);
            mixed_case::<f16, bf16, f32>(&mut rng);
            mixed_case::<bf16, f32, i8>(&mut rng);
            mixed_case::<i32, i32, i32>(&mut rng);
            mixed_case::<bf16, bf16, bf16>(&mut rng);
        }
        // bf16 in, f16 out, into the caller's buffer.
        let x = [bf16::from_f32(1.5), bf16::from_f32(-2.0)];
        let two = [2.0f32];
        let src = MemRef::new([2], &x, Layout::RowMajor).unwrap();
        let mut out = [f16::from_f32(0.0); 2];
        Binary::new(Alg::Mul)
            .run_mixed_into(
                &src,
                &MemRef::new([1], &two, Layout::RowMajor).unwrap(),
                &mut MemMut::new([2], &mut out, Layout::RowMajor).unwrap(),
            )
            .unwrap();
        assert_eq!(out, [f16::from_f32(3.0), f16::from_f32(-4.0)]);
    }
}
