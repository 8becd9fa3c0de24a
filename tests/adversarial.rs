//! The nastiest inputs found (by hand, by the fuzz targets in `fuzz/`, and by the Cortex-M run
//! in `qemu-tests/`), each with the error value it must produce. None may panic.

use shaped::primitive::{Alg, Binary, Layout, MemMut, MemRef, PostOp};
use shaped::rules::partial::{broadcast_partial, PartialShape};
use shaped::rules::{broadcast_to_shape, checked_element_count, BroadcastToMode, MAX_RANK};
use shaped::runtime::{binary_into, broadcast_into, ArrayRef, BinaryPlan};
use shaped::{broadcast_shapes, AutoBroadcast, BinaryOp, DynTensor, ErrorKind};

const MAX: usize = usize::MAX;

fn err_text<T>(r: Result<T, shaped::Error>) -> (ErrorKind, String) {
    match r {
        Ok(_) => panic!("accepted"),
        Err(e) => (e.kind(), e.to_string()),
    }
}

/// Fuzz finding (`strided_kernels`): an output `[0, MAX, 2]` has no elements, but merging its
/// other dims overflowed (a panic in debug builds). A stride-0 input makes it reachable.
#[test]
fn zero_size_output_with_huge_other_dims() {
    let a = ArrayRef::<i32>::new(&[0, 1, 2], &[]).unwrap();
    let b = ArrayRef::with_strides(&[1, MAX, 1], &[0, 0, 0], &[1i32]).unwrap();
    let (kind, text) = err_text(binary_into(
        a,
        b,
        BinaryOp::Add,
        AutoBroadcast::Numpy,
        &mut [],
    ));
    assert_eq!(kind, ErrorKind::Overflow);
    assert_eq!(
        text,
        format!("cannot broadcast [0, {MAX}, 2] with [] (numpy): the element count or byte size overflows")
    );
}

/// Fuzz finding (`dyn_tensor`): the count of `[3, MAX, 0]` overflowed while `[0, MAX, 3]` gave
/// 0. A zero dim no longer excuses the other dims, wherever it sits.
#[test]
fn element_count_does_not_depend_on_where_the_zero_is() {
    assert_eq!(checked_element_count(&[0, MAX, 3]), None);
    assert_eq!(checked_element_count(&[3, MAX, 0]), None);
    assert_eq!(checked_element_count(&[MAX, 0]), Some(0));
    assert_eq!(checked_element_count(&[0, 0, 7]), Some(0));
    for shape in [[0, MAX, 2], [2, MAX, 0]] {
        let (kind, _) = err_text(DynTensor::<u8>::from_shape_vec(shape, vec![]));
        assert_eq!(kind, ErrorKind::Overflow);
        let (kind, _) = err_text(ArrayRef::<u8>::with_strides(&shape, &[0, 0, 0], &[]));
        assert_eq!(kind, ErrorKind::Overflow);
    }
    // Numpy output [1, 3, 2^63, 0]: no elements, yet not a shape that can exist.
    let a = DynTensor::from_shape_vec([1, 3, 1, 1], vec![1i32, 2, 3]).unwrap();
    let b = DynTensor::<i32>::from_shape_vec([1 << 63, 0], vec![]).unwrap();
    let (kind, _) = err_text(a.binary(&b, BinaryOp::Add, AutoBroadcast::Numpy));
    assert_eq!(kind, ErrorKind::Overflow);
}

/// Cortex-M finding: `i64::MAX` does not fit a 32-bit `usize` and was reported as negative.
#[test]
fn extreme_pdpd_axes() {
    for axis in [i64::MAX, 1 << 40, 3] {
        let (kind, _) = err_text(broadcast_shapes(
            &[2, 3],
            &[3],
            AutoBroadcast::Pdpd { axis },
        ));
        assert_eq!(kind, ErrorKind::AxisOutOfRange { max: 1 }, "axis {axis}");
    }
    for axis in [i64::MIN, -2] {
        let (kind, text) = err_text(broadcast_shapes(
            &[2, 3],
            &[3],
            AutoBroadcast::Pdpd { axis },
        ));
        assert_eq!(kind, ErrorKind::NegativeAxis);
        assert!(
            text.ends_with("the axis must be -1 (the default) or >= 0"),
            "{text}"
        );
    }
    let (kind, _) = err_text(broadcast_to_shape(
        &[3],
        &[2, 3],
        BroadcastToMode::Pdpd { axis: i64::MAX },
    ));
    assert_eq!(kind, ErrorKind::AxisOutOfRange { max: 1 });
    let two = PartialShape::fixed(&[2, 3]).unwrap();
    let one = PartialShape::fixed(&[3]).unwrap();
    let (kind, _) = err_text(broadcast_partial(
        &two,
        &one,
        AutoBroadcast::Pdpd { axis: i64::MAX },
    ));
    assert_eq!(kind, ErrorKind::AxisOutOfRange { max: 1 });
}

#[test]
fn hostile_axes_mappings() {
    let t = [2, 3, 4];
    let cases: [(&[usize], &[usize], ErrorKind); 4] = [
        (
            &[3],
            &[MAX],
            ErrorKind::AxesMappingRange {
                index: 0,
                axis: MAX,
            },
        ),
        (&[3, 4], &[2, 1], ErrorKind::AxesMappingOrder { index: 1 }),
        (&[3, 4], &[1, 1], ErrorKind::AxesMappingOrder { index: 1 }),
        (
            &[3],
            &[0, 1],
            ErrorKind::AxesMappingLength { len: 2, rank: 1 },
        ),
    ];
    for (data, mapping, want) in cases {
        let mode = BroadcastToMode::Explicit {
            axes_mapping: mapping,
        };
        assert_eq!(
            err_text(broadcast_to_shape(data, &t, mode)).0,
            want,
            "{data:?} {mapping:?}"
        );
    }
    // The same through the kernel, with an output buffer of the wrong size too.
    let data = ArrayRef::new(&[3], &[1, 2, 3]).unwrap();
    let mode = BroadcastToMode::Explicit {
        axes_mapping: &[MAX],
    };
    assert!(broadcast_into(data, &t, mode, &mut [0; 24]).is_err());
    let ok = BroadcastToMode::Explicit { axes_mapping: &[1] };
    let (kind, _) = err_text(broadcast_into(data, &t, ok, &mut [0; 23]));
    assert_eq!(
        kind,
        ErrorKind::LengthMismatch {
            expected: 24,
            actual: 23
        }
    );
}

#[test]
fn sizes_past_isize_max_bytes() {
    // 2^61 u64 elements: the count fits usize, the bytes (2^64) do not.
    let (kind, text) = err_text(MemRef::<u64>::new([1 << 61], &[], Layout::RowMajor));
    assert_eq!(kind, ErrorKind::Overflow);
    assert_eq!(
        text,
        "bad layout for shape [2305843009213693952]: the element count or byte size overflows"
    );
    // Exactly isize::MAX / 8 + 1 u64 elements: 2^63 bytes, one past isize::MAX.
    let (kind, _) = err_text(MemRef::<u64>::new(
        [(isize::MAX as usize) / 8 + 1],
        &[],
        Layout::RowMajor,
    ));
    assert_eq!(kind, ErrorKind::Overflow);
    let (kind, _) = err_text(ArrayRef::<u8>::new(&[MAX, 2], &[]));
    assert_eq!(kind, ErrorKind::Overflow);
    let (kind, _) = err_text(BinaryPlan::new(
        &[1 << 32, 1],
        &[1, 1 << 32],
        AutoBroadcast::Numpy,
    ));
    assert_eq!(kind, ErrorKind::Overflow);
    // A shape alone may be huge; only building it is an error.
    assert_eq!(
        broadcast_shapes(&[MAX], &[1], AutoBroadcast::Numpy).unwrap(),
        [MAX]
    );
}

#[test]
fn hostile_strides_and_lengths() {
    let data = [0u8; 4];
    let (kind, _) = err_text(ArrayRef::with_strides(&[2, 2], &[MAX, 1], &data));
    assert_eq!(kind, ErrorKind::Overflow);
    let (kind, text) = err_text(ArrayRef::with_strides(&[2, 2], &[2, 2], &data));
    assert_eq!(kind, ErrorKind::BadStrides);
    assert_eq!(
        text,
        "bad layout for shape [2, 2] with strides [2, 2]: one stride per dim is needed, addressing only inside the buffer"
    );
    let (kind, _) = err_text(ArrayRef::with_strides(&[2, 2], &[1], &data));
    assert_eq!(kind, ErrorKind::BadStrides);
    let (kind, _) = err_text(DynTensor::from_shape_vec([2, 3], vec![0u8; 5]));
    assert_eq!(
        kind,
        ErrorKind::LengthMismatch {
            expected: 6,
            actual: 5
        }
    );
    let (kind, text) = err_text(
        DynTensor::from_shape_vec([2, 3], vec![0u8; 6])
            .unwrap()
            .into_shape([usize::MAX / 2, 3, 0]),
    );
    assert_eq!(kind, ErrorKind::Overflow);
    assert_eq!(
        text,
        format!(
            "cannot reshape [2, 3] into [{}, 3, 0]: the element count or byte size overflows (M1)",
            i64::MAX
        )
    );
    // Binary primitive memory: overlapping destination, huge strides, `any` source.
    let mut buf = [0.0f32; 4];
    let (kind, _) = err_text(MemMut::with_strides([2, 2], [1, 1], &mut buf));
    assert_eq!(kind, ErrorKind::BadStrides);
    let (kind, _) = err_text(MemRef::<f32>::with_strides([2, 2], [MAX, 1], &[0.0; 4]));
    assert_eq!(kind, ErrorKind::Overflow);
    let (kind, _) = err_text(MemRef::<f32>::new([2, 2], &[0.0; 4], Layout::Any));
    assert_eq!(kind, ErrorKind::AnySource);
}

#[test]
fn ranks_past_the_limits() {
    let deep = vec![1usize; MAX_RANK + 1];
    let (kind, _) = err_text(broadcast_shapes(&deep, &[1], AutoBroadcast::Numpy));
    assert_eq!(kind, ErrorKind::RankLimit { max: MAX_RANK });
    let (kind, _) = err_text(DynTensor::from_shape_vec(&deep, vec![0u8]));
    assert_eq!(kind, ErrorKind::RankLimit { max: MAX_RANK });
    let (kind, _) = err_text(MemRef::new([1; 13], &[0.0f32], Layout::RowMajor));
    assert_eq!(kind, ErrorKind::RankLimit { max: 12 });
    let (kind, _) = err_text(shaped::rules::binary_dst_shape(&[1; 13], &[1; 13]));
    assert_eq!(kind, ErrorKind::RankLimit { max: 12 });
}

#[test]
fn zero_size_dims_in_every_mode() {
    let ok = |a: &[usize], b: &[usize], mode| broadcast_shapes(a, b, mode).unwrap().to_vec();
    assert_eq!(ok(&[0, 3], &[0, 3], AutoBroadcast::None), [0, 3]);
    assert_eq!(ok(&[0], &[1], AutoBroadcast::Numpy), [0]);
    assert_eq!(ok(&[1], &[0], AutoBroadcast::Bidirectional), [0]);
    assert_eq!(ok(&[2, 0], &[0], AutoBroadcast::Pdpd { axis: 1 }), [2, 0]);
    assert_eq!(ok(&[2, 0], &[1], AutoBroadcast::Pdpd { axis: 0 }), [2, 0]);
    let (kind, _) = err_text(broadcast_shapes(&[0], &[2], AutoBroadcast::Numpy));
    assert_eq!(
        kind,
        ErrorKind::DimMismatch {
            axis: 0,
            lhs: 0,
            rhs: 2
        }
    );
    let (kind, _) = err_text(broadcast_shapes(
        &[2, 0],
        &[2],
        AutoBroadcast::Pdpd { axis: 1 },
    ));
    assert_eq!(
        kind,
        ErrorKind::DimMismatch {
            axis: 1,
            lhs: 0,
            rhs: 2
        }
    );
    let (kind, _) = err_text(broadcast_to_shape(&[0], &[1], BroadcastToMode::Numpy));
    assert_eq!(
        kind,
        ErrorKind::DimMismatch {
            axis: 0,
            lhs: 0,
            rhs: 1
        }
    );
    assert_eq!(
        broadcast_to_shape(&[1], &[0], BroadcastToMode::Numpy).unwrap(),
        [0]
    );
    // Kernels on empty outputs write nothing and succeed.
    let a = ArrayRef::<i32>::new(&[0, 3], &[]).unwrap();
    let b = ArrayRef::new(&[1, 3], &[1, 2, 3]).unwrap();
    binary_into(a, b, BinaryOp::Div, AutoBroadcast::Numpy, &mut []).unwrap();
    let x = DynTensor::<f32>::from_shape_vec([0, 2], vec![]).unwrap();
    let y = DynTensor::from_shape_vec([1, 2], vec![1.0f32, 2.0]).unwrap();
    let d = Binary::new(Alg::Div)
        .post_op(PostOp::binary(Alg::Add, &y))
        .run(&x, &y)
        .unwrap();
    assert_eq!(d.shape(), [0, 2]);
}

#[test]
fn rank_0_in_every_mode() {
    for mode in [
        AutoBroadcast::None,
        AutoBroadcast::Numpy,
        AutoBroadcast::Pdpd { axis: -1 },
        AutoBroadcast::Pdpd { axis: 0 },
        AutoBroadcast::Bidirectional,
    ] {
        assert_eq!(
            broadcast_shapes(&[], &[], mode).unwrap(),
            [0usize; 0],
            "{mode:?}"
        );
    }
    // D1: a scalar A takes only a scalar B, whatever the axis.
    let (kind, _) = err_text(broadcast_shapes(
        &[],
        &[1],
        AutoBroadcast::Pdpd { axis: -1 },
    ));
    assert_eq!(kind, ErrorKind::SecondRankTooLarge);
}

#[test]
fn value_errors_and_wrapping() {
    let a = DynTensor::from_shape_vec([2], vec![i32::MIN, 7]).unwrap();
    let minus_one = DynTensor::from_shape_vec([1], vec![-1]).unwrap();
    let zero = DynTensor::from_shape_vec([1], vec![0]).unwrap();
    // i32::MIN / -1 wraps (numpy's behaviour), it does not trap.
    let q = a
        .binary(&minus_one, BinaryOp::Div, AutoBroadcast::Numpy)
        .unwrap();
    assert_eq!(q.as_slice(), [i32::MIN, -7]);
    for op in [BinaryOp::Div, BinaryOp::Rem, BinaryOp::FloorMod] {
        let (kind, _) = err_text(a.binary(&zero, op, AutoBroadcast::Numpy));
        assert_eq!(kind, ErrorKind::DivisionByZero, "{op:?}");
    }
    let (kind, _) = err_text(a.binary(&minus_one, BinaryOp::Pow, AutoBroadcast::Numpy));
    assert_eq!(kind, ErrorKind::NegativeExponent);
}

#[test]
fn binary_primitive_hostile_chains() {
    let x = DynTensor::from_shape_vec([1, 3], vec![1.0f32, 2.0, 3.0]).unwrap();
    let big = DynTensor::from_shape_vec([2, 3], vec![0.0f32; 6]).unwrap();
    let (kind, _) = err_text(
        Binary::new(Alg::Add)
            .post_op(PostOp::binary(Alg::Mul, &big))
            .run(&x, &x),
    );
    assert_eq!(
        kind,
        ErrorKind::DimMismatch {
            axis: 0,
            lhs: 2,
            rhs: 1
        }
    );
    let mut prim = Binary::new(Alg::Add).runtime_checked();
    for _ in 0..100 {
        prim.push_post_op(PostOp::Sum { scale: 1.0 });
    }
    let (kind, _) = err_text(prim.run(&x, &x));
    assert_eq!(kind, ErrorKind::TooManyPostOps { max: 8 });
}

/// A valid shape whose result no allocator can hold (2^45 `f64`s, 256 TiB: more than the
/// address space) is an `OutOfMemory` error value from every allocating runtime API, never an
/// abort. Stride-0 inputs make such shapes cheap to build.
#[test]
#[cfg_attr(miri, ignore)] // Miri stops at an allocation this size instead of refusing it
fn hostile_shapes_are_out_of_memory_errors() {
    let bytes = 1usize << 48;
    let one = [1.0f64];
    let wide = ArrayRef::with_strides(&[1, 1 << 24], &[0, 0], &one).unwrap();
    let column = DynTensor::from_elem([1 << 21, 1], 1.0f64).unwrap();
    let expect = |r: Result<DynTensor<f64>, shaped::Error>, shape: &str| {
        let (kind, text) = err_text(r);
        assert_eq!(kind, ErrorKind::OutOfMemory { bytes });
        assert_eq!(
            text,
            format!("cannot allocate {bytes} bytes for a result of shape {shape}")
        );
    };
    let big = "[2097152, 16777216]";
    expect(
        column.binary(&wide, BinaryOp::Add, AutoBroadcast::Numpy),
        big,
    );
    expect(column.matmul(&wide), big);
    expect(DynTensor::from_elem([1 << 45], 0.0), "[35184372088832]");
    expect(
        DynTensor::scalar(1.0).broadcast([1 << 45], BroadcastToMode::Numpy),
        "[35184372088832]",
    );
    // The binary primitive: both sources broadcast.
    let (a, b) = (
        MemRef::with_strides([1 << 21, 1], [0, 0], &one).unwrap(),
        MemRef::with_strides([1, 1 << 24], [0, 0], &one).unwrap(),
    );
    let (kind, text) = err_text(Binary::new(Alg::Add).run(&a, &b));
    assert_eq!(kind, ErrorKind::OutOfMemory { bytes });
    assert_eq!(
        text,
        format!("cannot allocate {bytes} bytes for a result of shape {big}")
    );
}

/// Audit finding: a valid empty tensor `[2^50, 0]` summed over axis 1 needs a `[2^50]` result
/// of zeros, 4 PiB: an allocation failure is an error value, not an abort.
#[test]
#[cfg_attr(miri, ignore)] // Miri stops at an allocation this size instead of refusing it
fn reduction_of_an_empty_tensor_with_a_huge_result_is_an_allocation_error() {
    let t = DynTensor::<f32>::from_shape_vec([1usize << 50, 0], vec![]).unwrap();
    let huge = 1usize << 50;
    for (r, shape) in [
        (t.sum(&[1], false), format!("[{huge}]")),
        (t.mean(&[1], true), format!("[{huge}, 1]")),
        (t.prod(&[-1], false), format!("[{huge}]")),
    ] {
        let (kind, text) = err_text(r);
        assert_eq!(kind, ErrorKind::OutOfMemory { bytes: 1 << 52 });
        assert_eq!(
            text,
            format!("cannot allocate 4503599627370496 bytes for a result of shape {shape}")
        );
    }
    // `max` has no identity: the empty axis is the error.
    let (_, text) = err_text(t.max(&[1], false));
    assert_eq!(
        text,
        format!("cannot reduce [{huge}, 0] (max): axis 1 has no elements, and max of no elements has no value")
    );
    // `sum_to` a target the empty tensor broadcasts to: the same refusal.
    let (kind, text) = err_text(t.sum_to([huge, 1]));
    assert_eq!(kind, ErrorKind::OutOfMemory { bytes: 1 << 52 });
    assert_eq!(
        text,
        format!("cannot allocate 4503599627370496 bytes for a result of shape [{huge}, 1]")
    );
    // Over axis 0 the result is `[0]`: empty, at once.
    assert_eq!(t.sum(&[0], false).unwrap().shape(), &[0]);
    assert_eq!(t.max(&[0], true).unwrap().shape(), &[1, 0]);
    assert_eq!(t.argmax(0, false).unwrap().shape(), &[0]);
    assert_eq!(t.sum_to([1, 0]).unwrap().shape(), &[1, 0]);
    // (A valid non-empty shape cannot ask for more than it holds: a reduction's result is
    // never larger than its input.)
}

/// Audit finding: a 40-byte JSON document decodes to `[2^50, 0]`, and summing it over both
/// axes reduced axis by axis through a `[2^50]` intermediate (an abort). The result is one 0.
#[test]
fn reduction_of_an_empty_tensor_over_every_axis_is_its_identity_at_once() {
    let t = DynTensor::<f32>::from_shape_vec([1usize << 50, 0], vec![]).unwrap();
    assert_eq!(t.sum(&[0, 1], false).unwrap().as_slice(), &[0.0]);
    assert_eq!(t.prod(&[0, 1], true).unwrap().as_slice(), &[1.0]);
    assert!(t.mean(&[0, 1], false).unwrap().as_slice()[0].is_nan());
    let b = DynTensor::<bool>::from_shape_vec([1usize << 50, 0], vec![]).unwrap();
    assert_eq!(b.all(&[0, 1], false).unwrap().as_slice(), &[true]);
    assert_eq!(b.any(&[0, 1], false).unwrap().as_slice(), &[false]);
    let (_, text) = err_text(t.min(&[0, 1], false));
    assert_eq!(
        text,
        "cannot reduce [1125899906842624, 0] (min): axis 1 has no elements, and min of no elements has no value"
    );
}

/// Audit finding: `concat`/`stack` of empty `[2^62, 0]` tensors looped over the 2^62 empty
/// blocks (3.2 s at 2^28); `permute`/`transpose` of an empty `[0, 2^40]` walked its tiles.
/// Now time goes with the elements.
#[test]
fn joins_and_permutes_of_empty_tensors_with_huge_dims_return_at_once() {
    let t = DynTensor::<f32>::from_shape_vec([1usize << 62, 0], vec![]).unwrap();
    let c = DynTensor::concat(&[&t, &t], 1).unwrap();
    assert_eq!(c.shape(), &[1 << 62, 0]);
    let s = DynTensor::stack(&[&t, &t], 1).unwrap();
    assert_eq!(s.shape(), &[1 << 62, 2, 0]);
    let w = DynTensor::<f32>::from_shape_vec([0, 1usize << 40], vec![]).unwrap();
    assert_eq!(w.permute([1, 0]).unwrap().shape(), &[1 << 40, 0]);
    assert_eq!(w.transpose().shape(), &[1 << 40, 0]);
    let v = DynTensor::<f32>::from_shape_vec([3, 0, 1usize << 40], vec![]).unwrap();
    assert_eq!(v.permute([2, 0, 1]).unwrap().shape(), &[1 << 40, 3, 0]);
}

/// Audit finding: `matmul_into` of `[3, 0] x [0, 2]` with strides of `usize::MAX` overflowed
/// the row offsets (a panic in debug builds). With no terms the strides address nothing: the
/// result is six zeros.
#[test]
fn product_with_an_empty_inner_dim_ignores_its_strides() {
    use shaped::runtime::matmul_into;
    let a = ArrayRef::<f32>::with_strides(&[3, 0], &[MAX, MAX], &[]).unwrap();
    let b = ArrayRef::<f32>::with_strides(&[0, 2], &[MAX, MAX], &[]).unwrap();
    let mut out = [7.0f32; 6];
    matmul_into(a, b, Default::default(), &mut out).unwrap();
    assert_eq!(out, [0.0; 6]);
}

/// Audit finding: the mixed-shape `sum_axis` of a `[2^50, 0]` tensor aborted on its 4 PiB
/// result. These methods return the tensor itself, so the refusal is a panic with the error's
/// text (as a runtime shape mismatch is on mixed shapes), which a caller can catch; over the
/// other axis the empty result comes at once.
#[test]
#[cfg_attr(miri, ignore)] // Miri stops at an allocation this size instead of refusing it
fn mixed_reduction_with_a_huge_result_panics_with_the_error_instead_of_aborting() {
    use shaped::{Shape, Tensor};
    let t = Tensor::<f32, Shape![_, 0]>::from_shape_vec([1usize << 50, 0], vec![]).unwrap();
    assert_eq!(t.sum_axis::<0>().shape().as_ref(), &[0]);
    let caught = std::panic::catch_unwind(|| t.sum_axis::<1>()).unwrap_err();
    let text = caught.downcast_ref::<String>().unwrap();
    assert_eq!(
        text,
        "cannot allocate 4503599627370496 bytes for a result of shape [1125899906842624]"
    );
}

/// Products (item: every allocating API refuses what memory cannot hold). Empty operands
/// `[2^24, 0] x [0, 2^24]` ask for a `[2^24, 2^24]` result of zeros, 1 PiB of `f32`: an
/// allocation error, not an abort; their product with an empty other side is empty at once.
/// (A valid shape whose product exceeds memory, from stride-0 operands, is in
/// `hostile_shapes_are_out_of_memory_errors`.)
#[test]
#[cfg_attr(miri, ignore)] // Miri stops at an allocation this size instead of refusing it
fn product_of_empty_operands_with_a_huge_result_is_an_allocation_error() {
    let big = 1usize << 24;
    let a = DynTensor::<f32>::from_shape_vec([big, 0], vec![]).unwrap();
    let b = DynTensor::<f32>::from_shape_vec([0, big], vec![]).unwrap();
    let (kind, text) = err_text(a.matmul(&b));
    assert_eq!(kind, ErrorKind::OutOfMemory { bytes: 1 << 50 });
    assert_eq!(
        text,
        "cannot allocate 1125899906842624 bytes for a result of shape [16777216, 16777216]"
    );
    // Batched: the batch dims of the empty side make the result huge too.
    let batch = DynTensor::<f32>::from_shape_vec([big, big, 0], vec![]).unwrap();
    let k = DynTensor::<f32>::from_shape_vec([0, 4], vec![]).unwrap();
    let (kind, _) = err_text(batch.matmul(&k));
    assert_eq!(kind, ErrorKind::OutOfMemory { bytes: 1 << 52 });
    // With no rows, nothing to allocate.
    let none = DynTensor::<f32>::from_shape_vec([0, 0], vec![]).unwrap();
    assert_eq!(none.matmul(&b).unwrap().shape(), &[0, big]);
}

/// Casts (`try_map`), copies out of views (`DynView::try_map`, `to_tensor`), joins and
/// conversions make results as large as their inputs, which exist: an empty input with huge
/// dims gives an empty result at once, whatever the dims. (Their allocations are checked all
/// the same: `try_map` returns `OutOfMemory` where `map` panics with its text.)
#[test]
fn copies_of_empty_tensors_with_huge_dims_are_empty_at_once() {
    let huge = 1usize << 50;
    let t = DynTensor::<f32>::from_shape_vec([huge, 0], vec![]).unwrap();
    let cast = t.try_map(|&x| x as f64).unwrap();
    assert_eq!((cast.shape(), cast.len()), (&[huge, 0][..], 0));
    let v = t.strided().transpose();
    assert_eq!(v.try_map(|&x| x as i8).unwrap().shape(), &[0, huge]);
    assert_eq!(v.to_tensor().shape(), &[0, huge]);
    let m = t.try_to_shape::<shaped::Shape![_, 0]>().unwrap();
    assert_eq!(m.shape().as_ref(), &[huge, 0]);
    assert_eq!(m.to_dyn().shape(), &[huge, 0]);
    let s = DynTensor::stack(&[&t, &t, &t], 0).unwrap();
    assert_eq!(s.shape(), &[3, huge, 0]);
    let n = t.narrow(0, 1, huge - 1).unwrap();
    assert_eq!(n.shape(), &[huge - 1, 0]);
}
