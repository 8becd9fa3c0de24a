//! Shape manipulation (rules M1-M7) against an index-by-index reference on random shapes of
//! ranks 0-5 with dims 0-3: runtime tensors, their zero-copy views and static tensors agree;
//! each rule has a test named after it, asserting the error's text.

use crate::common;

use common::{indices, Lcg};
use shaped::rules::INFER;
use shaped::{DynTensor, ErrorKind};

/// Random cases per test: fewer under Miri, which interprets every step.
const CASES: usize = if cfg!(miri) { 40 } else { 300 };

fn random_shape(rng: &mut Lcg, max_rank: u64) -> Vec<usize> {
    let rank = rng.below(max_rank + 1);
    (0..rank).map(|_| rng.below(4)).collect()
}

fn tensor(shape: &[usize]) -> DynTensor<i32> {
    let n: usize = shape.iter().product();
    DynTensor::from_shape_vec(shape, (0..n as i32).collect()).unwrap()
}

/// A random permutation of `0..rank` (Fisher-Yates).
fn permutation(rng: &mut Lcg, rank: usize) -> Vec<usize> {
    let mut p: Vec<usize> = (0..rank).collect();
    for i in (1..rank).rev() {
        p.swap(i, rng.below(i as u64 + 1));
    }
    p
}

#[test]
fn m1_reshape_keeps_row_major_order_and_the_count() {
    let t = tensor(&[2, 3, 4]);
    let r = t.clone().into_shape([4, 6]).unwrap();
    assert_eq!((r.shape(), r.as_slice()), (&[4, 6][..], t.as_slice()));
    assert_eq!(r[[1, 0]], 6);
    // The borrowing form is a view of the same elements.
    let v = t.reshape([4, 6]).unwrap();
    assert_eq!((v.shape(), v[[1, 0]]), (&[4, 6][..], 6));
    assert_eq!(v.to_tensor(), r);
    let f = t.clone().flatten();
    assert_eq!(f.shape(), [24]);
    let s = DynTensor::scalar(7).into_shape([1, 1]).unwrap();
    assert_eq!((s.shape(), s.as_slice()), (&[1, 1][..], &[7][..]));
    assert_eq!(DynTensor::scalar(7).flatten().shape(), [1]);
    let e = t.reshape([5, 5]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ShapeMismatch);
    assert_eq!(
        e.to_string(),
        "cannot reshape [2, 3, 4] into [5, 5]: the element counts differ (M1)"
    );
    // Zero-size shapes reshape among themselves by count.
    let z = tensor(&[0, 3]).into_shape([3, 0, 5]).unwrap();
    assert_eq!(z.shape(), [3, 0, 5]);
}

#[test]
fn m2_one_infer_dim_is_inferred() {
    let t = tensor(&[2, 3, 4]);
    assert_eq!(t.reshape([INFER]).unwrap().shape(), [24]);
    assert_eq!(
        t.clone().into_shape([2, INFER, 3]).unwrap().shape(),
        [2, 4, 3]
    );
    let e = t.reshape([INFER, 5]).unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::InferredDim {
            known: 5,
            count: 24
        }
    );
    assert_eq!(
        e.to_string(),
        "cannot reshape [2, 3, 4]: the other target dims multiply to 5, which does not divide 24 elements (M2)"
    );
    let e = t.reshape([INFER, INFER]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::SecondInferred { index: 1 });
    assert_eq!(
        e.to_string(),
        "cannot reshape [2, 3, 4]: target dim 1 is a second INFER; one dim may be inferred (M2)"
    );
    // A zero among the other dims leaves nothing to infer from, as in numpy.
    let e = tensor(&[0, 3]).reshape([0, INFER]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InferredDim { known: 0, count: 0 });
}

#[test]
fn m3_insert_axis_and_squeeze() {
    let t = tensor(&[2, 3]);
    for (axis, shape) in [
        (0, [1, 2, 3]),
        (1, [2, 1, 3]),
        (2, [2, 3, 1]),
        (-1, [2, 3, 1]),
        (-3, [1, 2, 3]),
    ] {
        let u = t.clone().insert_axis(axis).unwrap();
        assert_eq!(
            (u.shape(), u.as_slice()),
            (&shape[..], t.as_slice()),
            "axis {axis}"
        );
        assert_eq!(u.clone().squeeze(axis).unwrap(), t);
        let v = t.strided().insert_axis(axis).unwrap();
        assert_eq!(v.to_tensor(), u);
        assert_eq!(v.squeeze(axis).unwrap().to_tensor(), t);
    }
    let e = t.clone().insert_axis(3).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot insert_axis [2, 3]: axis 3 is out of range for rank 3 (M3)"
    );
    let e = t.clone().squeeze(1).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotOne { axis: 1, dim: 3 });
    assert_eq!(
        e.to_string(),
        "cannot squeeze [2, 3]: axis 1 has 3 elements, not 1 (M3)"
    );
    let e = DynTensor::scalar(1).squeeze(0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot squeeze []: axis 0 is out of range for rank 0 (M3)"
    );
}

#[test]
fn m4_permute_matches_the_reference_on_random_shapes() {
    let mut rng = Lcg(5);
    for _ in 0..CASES {
        let shape = random_shape(&mut rng, 5);
        let t = tensor(&shape);
        let p = permutation(&mut rng, shape.len());
        let axes: Vec<i64> = p
            .iter()
            .map(|&a| {
                if rng.below(2) == 0 {
                    a as i64
                } else {
                    a as i64 - shape.len() as i64
                }
            })
            .collect();
        let out = t.permute(&axes).unwrap();
        let expected_shape: Vec<usize> = p.iter().map(|&a| shape[a]).collect();
        assert_eq!(out.shape(), expected_shape, "{shape:?} {axes:?}");
        let view = t.strided().permute(&axes).unwrap();
        for idx in indices(&expected_shape) {
            let mut src = vec![0; shape.len()];
            for (i, &a) in p.iter().enumerate() {
                src[a] = idx[i];
            }
            assert_eq!(out[&idx], t[&src], "{shape:?} {axes:?} at {idx:?}");
            assert_eq!(view[&idx], t[&src]);
        }
        assert_eq!(view.to_tensor(), out);
    }
}

#[test]
fn m4_permutation_errors() {
    let t = tensor(&[2, 3, 4]);
    let e = t.permute([0, 0, 1]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::DuplicateAxis { axis: 0 });
    assert_eq!(
        e.to_string(),
        "cannot permute [2, 3, 4]: axis 0 is given twice (M4)"
    );
    let e = t.permute([0, 1]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot permute [2, 3, 4]: 2 axes given for rank 3; a permutation names every axis once (M4)"
    );
    let e = t.permute([0, 1, 3]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot permute [2, 3, 4]: axis 3 is out of range for rank 3 (M4)"
    );
    let m = tensor(&[2, 3]);
    assert_eq!(m.transpose().as_slice(), &[0, 3, 1, 4, 2, 5]);
    assert!(m.strided().transpose().to_tensor() == m.transpose());
    // Any rank: the last two axes swap; below rank 2 nothing moves.
    let tt = t.transpose();
    assert_eq!(tt.shape(), &[2, 4, 3]);
    assert_eq!(tt, t.permute([0, 2, 1]).unwrap());
    let v = tensor(&[5]);
    assert_eq!(v.transpose(), v);
    // `reversed` reverses every axis, on tensors and views, static and runtime.
    let r = t.reversed();
    assert_eq!(r, t.permute([2, 1, 0]).unwrap());
    assert_eq!(t.strided().reversed().to_tensor(), r);
    use shaped::{Shape, Tensor};
    let s =
        Tensor::<i32, Shape![2, 3, 4]>::from_shape_vec([2, 3, 4], t.as_slice().to_vec()).unwrap();
    let sr: Tensor<i32, Shape![4, 3, 2]> = s.reversed();
    assert_eq!(sr.as_slice(), r.as_slice());
    assert_eq!(DynTensor::scalar(3).transpose(), DynTensor::scalar(3));
}

#[test]
fn m5_narrow_matches_the_reference_on_random_shapes() {
    let mut rng = Lcg(9);
    for _ in 0..CASES {
        let shape = random_shape(&mut rng, 5);
        if shape.is_empty() {
            continue;
        }
        let t = tensor(&shape);
        let axis = rng.below(shape.len() as u64);
        let dim = shape[axis];
        let start = rng.below(dim as u64 + 1);
        let len = rng.below((dim - start) as u64 + 1);
        let out = t.narrow(axis as i64, start, len).unwrap();
        let mut expected_shape = shape.clone();
        expected_shape[axis] = len;
        assert_eq!(out.shape(), expected_shape);
        let view = t
            .strided()
            .narrow(axis as i64 - shape.len() as i64, start, len)
            .unwrap();
        for idx in indices(&expected_shape) {
            let mut src = idx.clone();
            src[axis] += start;
            assert_eq!(out[&idx], t[&src]);
            assert_eq!(view[&idx], t[&src]);
        }
        assert_eq!(view.to_tensor(), out);
    }
    let t = tensor(&[2, 4]);
    let e = t.narrow(1, 3, 2).unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::OutOfBounds {
            axis: 1,
            start: 3,
            len: 2,
            dim: 4
        }
    );
    assert_eq!(
        e.to_string(),
        "cannot narrow [2, 4]: 2 elements from 3 do not fit in axis 1, which has 4 (M5)"
    );
    // `start + len` past `usize::MAX` is the same error, not an overflow.
    let e = t.narrow(0, usize::MAX, 2).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::OutOfBounds { .. }));
    assert_eq!(t.narrow(1, 4, 0).unwrap().shape(), [2, 0]);
}

#[test]
fn m6_concat_matches_the_reference_on_random_shapes() {
    let mut rng = Lcg(13);
    for _ in 0..CASES {
        let shape = random_shape(&mut rng, 4);
        if shape.is_empty() {
            continue;
        }
        let axis = rng.below(shape.len() as u64);
        let parts: Vec<DynTensor<i32>> = (0..1 + rng.below(3))
            .map(|_| {
                let mut s = shape.clone();
                s[axis] = rng.below(4);
                let n: usize = s.iter().product();
                DynTensor::from_shape_vec(&s, (0..n as i32).map(|x| x * 7 + 1).collect()).unwrap()
            })
            .collect();
        let refs: Vec<&DynTensor<i32>> = parts.iter().collect();
        let out = DynTensor::concat(&refs, axis as i64).unwrap();
        let mut expected_shape = shape.clone();
        expected_shape[axis] = parts.iter().map(|p| p.shape()[axis]).sum();
        assert_eq!(out.shape(), expected_shape);
        for idx in indices(&expected_shape) {
            let (mut src, mut part) = (idx.clone(), 0);
            while src[axis] >= parts[part].shape()[axis] {
                src[axis] -= parts[part].shape()[axis];
                part += 1;
            }
            assert_eq!(out[&idx], parts[part][&src]);
        }
    }
    let (a, b) = (tensor(&[2, 3]), tensor(&[2, 4]));
    let e = DynTensor::concat(&[&a, &b], 0).unwrap_err();
    assert_eq!(
        e.kind(),
        ErrorKind::DimMismatch {
            axis: 1,
            lhs: 3,
            rhs: 4
        }
    );
    assert_eq!(
        e.to_string(),
        "cannot concat [2, 3] with [2, 4]: axis 1 has 3 vs 4; every axis but the joined one must be equal (M6)"
    );
    assert_eq!(DynTensor::concat(&[&a, &b], -1).unwrap().shape(), [2, 7]);
    let e = DynTensor::concat(&[&a, &tensor(&[2])], 0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot concat [2, 3] with [2]: ranks 2 and 1 differ (M6)"
    );
    let e = DynTensor::<i32>::concat(&[], 0).unwrap_err();
    assert_eq!(e.to_string(), "cannot concat: no tensors given (M6)");
    let e = DynTensor::concat(&[&a], 2).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot concat [2, 3]: axis 2 is out of range for rank 2 (M6)"
    );
    let e = DynTensor::concat(&[&DynTensor::scalar(1), &DynTensor::scalar(2)], 0).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::BadAxis { axis: 0, rank: 0 });
}

#[test]
fn m7_stack_inserts_a_dim_counting_the_tensors() {
    let (a, b) = (tensor(&[2, 3]), tensor(&[2, 3]).map(|x| x + 100));
    for axis in [0i64, 1, 2, -1, -3] {
        let s = DynTensor::stack(&[&a, &b, &a], axis).unwrap();
        let resolved = if axis < 0 { axis + 3 } else { axis } as usize;
        let mut shape = vec![2, 3];
        shape.insert(resolved, 3);
        assert_eq!(s.shape(), shape);
        for idx in indices(&shape) {
            let mut src = idx.clone();
            let which = src.remove(resolved);
            let part = [&a, &b, &a][which];
            assert_eq!(s[&idx], part[&src]);
        }
    }
    let e = DynTensor::stack(&[&a, &tensor(&[3, 2])], 0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot stack [2, 3] with [3, 2]: the shapes differ (M7)"
    );
    let e = DynTensor::<i32>::stack(&[], 0).unwrap_err();
    assert_eq!(e.to_string(), "cannot stack: no tensors given (M7)");
    let e = DynTensor::stack(&[&a], 3).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot stack [2, 3]: axis 3 is out of range for rank 3 (M7)"
    );
    let s = DynTensor::stack(&[&DynTensor::scalar(1), &DynTensor::scalar(2)], 0).unwrap();
    assert_eq!((s.shape(), s.as_slice()), (&[2][..], &[1, 2][..]));
}

#[test]
fn views_feed_the_kernels_and_the_primitive_without_copying() {
    use shaped::primitive::{Alg, Binary};
    use shaped::runtime::binary_into;
    use shaped::{AutoBroadcast, BinaryOp};
    let x = DynTensor::from_shape_vec([2, 3], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let t = x.strided().transpose();
    assert!(!t.is_row_major());
    assert!(x.strided().is_row_major());
    let row = DynTensor::from_shape_vec([2], vec![10.0f32, 20.0]).unwrap();
    let mut out = [0.0f32; 6];
    binary_into(
        t.as_array_ref(),
        row.view(),
        BinaryOp::Mul,
        AutoBroadcast::Numpy,
        &mut out,
    )
    .unwrap();
    assert_eq!(out, [10.0, 80.0, 20.0, 100.0, 30.0, 120.0]);
    // The tensor and view methods take views on either side.
    let m = t.binary(&row, BinaryOp::Mul, AutoBroadcast::Numpy).unwrap();
    assert_eq!(m.as_slice(), &out);
    let back = x
        .binary(&t.transpose(), BinaryOp::Sub, AutoBroadcast::None)
        .unwrap();
    assert_eq!(back.as_slice(), &[0.0; 6]);
    let e = x
        .binary(&t, BinaryOp::Add, AutoBroadcast::None)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot broadcast [2, 3] with [3, 2] (none): axis 0 has 2 vs 3"
    );
    let gt = t
        .compare(&row, shaped::CompareOp::Gt, AutoBroadcast::Numpy)
        .unwrap();
    assert_eq!(gt.shape(), [3, 2]);
    assert_eq!(
        t.map(|v| v * 2.0).as_slice(),
        &[2.0, 8.0, 4.0, 10.0, 6.0, 12.0]
    );
    let dst = Binary::<f32>::new(Alg::Add).run(&t, &t).unwrap();
    // The destination takes the transposed layout of its sources (O5).
    assert_eq!((dst.shape(), dst.strides()), (&[3, 2][..], &[1, 3][..]));
    assert_eq!(
        dst.to_row_major().as_slice(),
        &[2.0, 8.0, 4.0, 10.0, 6.0, 12.0]
    );
}

/// The same cases through static tensors, mixed shapes and `DynTensor`: the same shapes and
/// elements.
#[test]
fn static_mixed_and_runtime_agree() {
    use shaped::{Axes, Shape, Tensor, TensorView};
    let x = Tensor::<i32, Shape![2, 3, 4]>::from_fn(|[i, j, k]| (i * 12 + j * 4 + k) as i32);
    let d = x.to_dyn();
    // M1: reshape and flatten are views over the same elements.
    let r: TensorView<i32, Shape![6, 4]> = x.reshape::<Shape![6, 4]>();
    assert_eq!(r.as_slice().as_ptr(), x.as_slice().as_ptr());
    assert_eq!(r.to_dyn(), d.clone().into_shape([6, INFER]).unwrap());
    assert_eq!(x.flatten().to_dyn(), d.clone().flatten());
    let mut y = x;
    y.reshape_mut::<Shape![24]>()[[23]] = -1;
    assert_eq!(y[[1, 2, 3]], -1);
    // M3, on static and mixed shapes.
    assert_eq!(
        x.insert_axis::<3>().to_dyn(),
        d.clone().insert_axis(3).unwrap()
    );
    assert_eq!(x.insert_axis::<0>().squeeze::<0>().to_dyn(), d);
    let m = Tensor::<i32, Shape![_, 1, 4]>::from_shape_vec([2, 1, 4], (0..8).collect()).unwrap();
    let s: TensorView<i32, Shape![_, 4]> = m.squeeze::<1>();
    assert_eq!(s.shape(), [2, 4]);
    let u: TensorView<i32, Shape![_, 1, 1, 4]> = m.insert_axis::<2>();
    assert_eq!(u.shape(), [2, 1, 1, 4]);
    // M4.
    let p: Tensor<i32, Shape![4, 2, 3]> = x.permute::<Axes![2, 0, 1]>();
    assert_eq!(p.to_dyn(), d.permute([2, 0, 1]).unwrap());
    assert_eq!(
        p.to_dyn(),
        d.strided().permute([-1, 0, 1]).unwrap().to_tensor()
    );
    // On the heap, the tiled copy (tiles of 8 along the two axes, partial ones at the edges).
    let big = Tensor::<i32, Shape![3, 17, 20]>::from_fn(|[i, j, k]| (i * 1000 + j * 20 + k) as i32);
    let heap = big.to_heap();
    assert_eq!(
        heap.permute::<Axes![2, 0, 1]>().to_dyn(),
        big.permute::<Axes![2, 0, 1]>().to_dyn()
    );
    assert_eq!(
        heap.permute::<Axes![0, 2, 1]>().to_dyn(),
        big.to_dyn().permute([0, 2, 1]).unwrap()
    );
    let t = Tensor::<i32, Shape![2, 3]>::from_fn(|[i, j]| (i * 3 + j) as i32);
    assert_eq!(t.transpose().to_dyn(), t.to_dyn().transpose());
    // M5: static range, runtime range (a `Dyn` axis), runtime tensor.
    let n: Tensor<i32, Shape![2, 2, 4]> = x.narrow::<1, 1, 2>();
    assert_eq!(n.to_dyn(), d.narrow(1, 1, 2).unwrap());
    let nd: Tensor<i32, Shape![2, _, 4]> = x.narrow_dyn::<1>(1, 2).unwrap();
    assert_eq!(nd.to_dyn(), n.to_dyn());
    let e = x.narrow_dyn::<2>(3, 2).unwrap_err();
    assert_eq!(e.to_string(), d.narrow(2, 3, 2).unwrap_err().to_string());
    assert_eq!(x.narrow::<0, 2, 0>().shape(), [0, 3, 4]);
    // M6 and M7.
    let c: Tensor<i32, Shape![2, 5, 4]> = x.concat::<1, _, _>(&n);
    assert_eq!(
        c.to_dyn(),
        DynTensor::concat(&[&d, &n.to_dyn()], 1).unwrap()
    );
    let st: Tensor<i32, Shape![2, 3, 2, 4]> = Tensor::stack::<2, 2>([&x, &y]);
    assert_eq!(
        st.to_dyn(),
        DynTensor::stack(&[&d, &y.to_dyn()], 2).unwrap()
    );
    // Rank 0.
    let z = Tensor::<i32, Shape![]>::from_fn(|[]| 7);
    let one: TensorView<i32, Shape![1]> = z.insert_axis::<0>();
    assert_eq!(one.as_slice(), &[7]);
    assert_eq!(z.flatten().shape(), [1]);
}

/// A zero-copy view takes part in elementwise operations and the binary primitive like any
/// tensor, with the static shape checks.
#[test]
fn static_views_are_operands() {
    use shaped::primitive::{Alg, Binary};
    use shaped::{Shape, Tensor};
    let x = Tensor::<f32, Shape![2, 3, 4]>::from_fn(|[i, j, k]| (i * 12 + j * 4 + k) as f32);
    let rows = x.reshape::<Shape![6, 4]>();
    let bias = Tensor::<f32, Shape![4]>::from_fn(|[k]| k as f32 * 100.0);
    let y: Tensor<f32, Shape![6, 4]> = rows + bias;
    assert_eq!(y[[5, 3]], 23.0 + 300.0);
    let col = x.sum_keepdims::<2>().reshape::<Shape![6, 1]>().to_stack();
    let centered: Tensor<f32, Shape![6, 4]> = rows - col.map(|s| s / 4.0);
    assert_eq!(centered[[0, 0]], -1.5);
    // O1: equal ranks, so the bias gains its leading 1 as a view.
    let dst = Binary::<f32>::new(Alg::Mul)
        .apply(&rows, &bias.insert_axis::<0>())
        .unwrap();
    assert_eq!(dst[[1, 2]], 6.0 * 200.0);
}

/// Static gathers and elementwise results of 2 KiB and more are written out of line, straight
/// into the result: the same elements as the runtime path, for a type that owns heap memory
/// too (each element cloned once, none leaked or dropped twice: checked under Miri).
#[test]
#[allow(clippy::op_ref)] // by reference: the tensors are kilobytes
fn large_static_gathers_and_elementwise_results_match_the_runtime_path() {
    use shaped::{Axes, Shape, Tensor};
    let x = Tensor::<i32, Shape![4, 8, 32]>::from_fn(|[i, j, k]| (i * 1000 + j * 40 + k) as i32);
    let dynamic = DynTensor::from_shape_vec([4, 8, 32], x.as_slice().to_vec()).unwrap();
    let permuted = x.permute::<Axes![2, 0, 1]>();
    assert_eq!(
        permuted.as_slice(),
        dynamic.permute([2, 0, 1]).unwrap().as_slice()
    );
    let narrowed = x.narrow::<2, 8, 24>();
    assert_eq!(narrowed[[3, 7, 0]], 3000 + 7 * 40 + 8);
    assert_eq!(
        narrowed.as_slice(),
        dynamic.narrow(2, 8, 24).unwrap().as_slice()
    );
    let row = Tensor::<i32, Shape![32]>::from_fn(|[k]| k as i32 * 3);
    let sum = &x + &row;
    assert_eq!(sum[[2, 5, 31]], 2000 + 5 * 40 + 31 + 93);
    assert_eq!(
        sum.as_slice(),
        (&dynamic + &DynTensor::from_shape_vec([32], row.as_slice().to_vec()).unwrap()).as_slice()
    );
    let names = Tensor::<String, Shape![16, 8]>::from_fn(|[i, j]| format!("{i}.{j}"));
    let t = names.permute::<Axes![1, 0]>();
    assert_eq!(t[[7, 15]], "15.7");
    assert_eq!(t[[0, 1]], "1.0");
}

/// M3, M5, M6, M7: static axes may be negative, counted from the end (for `insert_axis` and
/// `stack`, from the end of the result, as numpy's `expand_dims`); each gives what the axis
/// counted from the start gives.
#[test]
fn m6_static_negative_axes_count_from_the_end() {
    use shaped::{Shape, Tensor, TensorView};
    let x = Tensor::<i32, Shape![2, 3]>::from_fn(|[i, j]| (i * 3 + j) as i32);
    let last: TensorView<i32, Shape![2, 3, 1]> = x.insert_axis::<-1>();
    assert_eq!(last.as_slice(), x.insert_axis::<2>().as_slice());
    let first: TensorView<i32, Shape![1, 2, 3]> = x.insert_axis::<-3>();
    assert_eq!(first.shape(), x.insert_axis::<0>().shape());
    let n: Tensor<i32, Shape![2, 2]> = x.narrow::<-1, 1, 2>();
    assert_eq!(n, x.narrow::<1, 1, 2>());
    let y = Tensor::<i32, Shape![2, 1]>::from([[7], [8]]);
    let c: Tensor<i32, Shape![2, 4]> = x.concat::<-1, _, _>(&y);
    assert_eq!(c, x.concat::<1, _, _>(&y));
    let s: Tensor<i32, Shape![2, 3, 2]> = Tensor::stack::<-1, 2>([&x, &x]);
    assert_eq!(s, Tensor::stack::<2, 2>([&x, &x]));
    let m = Tensor::<i32, Shape![_, 3]>::from_shape_vec([2, 3], x.as_slice().to_vec()).unwrap();
    let d = m.narrow_dyn::<-1>(1, 2).unwrap();
    assert_eq!(d.as_slice(), n.as_slice());
}

/// M4 on static shapes large enough (2 KiB and more) to be gathered row by row: runs of 16
/// adjacent elements (a head split), rows of stride 1 merged across axes, rows with a stride
/// (a transpose), and non-`Copy` elements, each against the runtime permute and the index.
#[test]
fn m4_large_static_permutes_match_the_runtime_permute() {
    use shaped::{Axes, Shape, Tensor};
    let x = Tensor::<i32, Shape![2, 16, 4, 16]>::from_fn(|[a, b, c, d]| {
        (((a * 16 + b) * 4 + c) * 16 + d) as i32
    });
    let dx = DynTensor::from_shape_vec([2, 16, 4, 16], x.as_slice().to_vec()).unwrap();
    let heads: Tensor<i32, Shape![2, 4, 16, 16]> = x.permute::<Axes![0, 2, 1, 3]>();
    assert_eq!(
        heads.as_slice(),
        dx.permute([0, 2, 1, 3]).unwrap().as_slice()
    );
    assert_eq!(heads[[1, 3, 5, 7]], x[[1, 5, 3, 7]]);
    // Axes 2 and 3 stay adjacent: rows of 64.
    let merged: Tensor<i32, Shape![16, 2, 4, 16]> = x.permute::<Axes![1, 0, 2, 3]>();
    assert_eq!(
        merged.as_slice(),
        dx.permute([1, 0, 2, 3]).unwrap().as_slice()
    );
    assert_eq!(merged[[15, 1, 2, 9]], x[[1, 15, 2, 9]]);
    // The last axis moves: rows of stride 16.
    let t: Tensor<i32, Shape![2, 16, 16, 4]> = x.permute::<Axes![0, 1, 3, 2]>();
    assert_eq!(t.as_slice(), dx.permute([0, 1, 3, 2]).unwrap().as_slice());
    assert_eq!(t[[0, 4, 11, 2]], x[[0, 4, 2, 11]]);
    let words = Tensor::<String, Shape![8, 4, 16]>::from_fn(|[a, b, c]| format!("{a}.{b}.{c}"));
    let moved: Tensor<String, Shape![4, 8, 16]> = words.permute::<Axes![1, 0, 2]>();
    assert_eq!(moved[[3, 7, 15]], "7.3.15");
    assert_eq!(moved[[0, 1, 2]], "1.0.2");
}

/// M6 without an allocator: `runtime::concat_into` gives `DynTensor::concat`'s elements, and
/// its errors before writing anything.
#[test]
fn m6_concat_into_joins_without_an_allocator() {
    use shaped::runtime::{concat_into, ArrayRef};
    let mut g = Lcg(7);
    for axis in [0i64, 1, 2, -1] {
        let shapes = [[2, 3, 4], [2, 3, 4]].map(|mut s| {
            let a = axis.rem_euclid(3) as usize;
            s[a] = 1 + (g.next() % 3) as usize;
            s
        });
        let data: Vec<Vec<i32>> = shapes
            .iter()
            .map(|s| {
                (0..s.iter().product::<usize>())
                    .map(|_| g.next() as i32)
                    .collect()
            })
            .collect();
        let tensors: Vec<DynTensor<i32>> = shapes
            .iter()
            .zip(&data)
            .map(|(s, d)| DynTensor::from_shape_vec(*s, d.clone()).unwrap())
            .collect();
        let want = DynTensor::concat(&[&tensors[0], &tensors[1]], axis).unwrap();
        let mut out = vec![0; want.len()];
        let parts = [
            ArrayRef::new(&shapes[0], &data[0]).unwrap(),
            ArrayRef::new(&shapes[1], &data[1]).unwrap(),
        ];
        let dims = concat_into(&parts, axis, &mut out).unwrap();
        assert_eq!(
            (&dims[..], &out[..]),
            (want.shape(), want.as_slice()),
            "axis {axis}"
        );
        // A destination of another length: nothing written.
        let mut short = vec![-1; want.len() - 1];
        let e = concat_into(&parts, axis, &mut short).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::LengthMismatch { .. }), "{e}");
        assert!(short.iter().all(|&v| v == -1));
    }
    let (a, b) = ([1, 2, 3, 4], [5, 6, 7]);
    let parts = [
        ArrayRef::new(&[2, 2], &a).unwrap(),
        ArrayRef::new(&[1, 3], &b).unwrap(),
    ];
    let e = concat_into(&parts, 0, &mut [0; 7]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot concat [2, 2] with [1, 3]: axis 1 has 2 vs 3; every axis but the joined one must be equal (M6)"
    );
    let e = concat_into::<i32>(&[], 0, &mut []).unwrap_err();
    assert_eq!(e.to_string(), "cannot concat: no tensors given (M6)");
    let e = concat_into(&parts[..1], 2, &mut [0; 4]).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::BadAxis { axis: 2, rank: 2 }),
        "{e}"
    );
}
