//! Feature `nalgebra`: static and dynamic matrices to and from tensors (copies, since nalgebra
//! is column-major), and zero-copy nalgebra views of rank-2 tensors.

use nalgebra::{DMatrix, Matrix2x3, Matrix3, SMatrix, Vector4};
use shaped::{DynTensor, ErrorKind, Shape, Tensor, TensorView};

#[test]
fn static_matrices_round_trip_and_keep_element_positions() {
    let m = Matrix2x3::new(1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0);
    // nalgebra's storage is column-major; the tensor's is row-major.
    assert_eq!(m.as_slice(), &[1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    let t = Tensor::<f32, Shape![2, 3]>::from(m);
    assert_eq!(t.as_slice(), &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    for i in 0..2 {
        for j in 0..3 {
            assert_eq!(t[[i, j]], m[(i, j)]);
        }
    }
    assert_eq!(Matrix2x3::from(t), m);
    assert_eq!(Matrix2x3::from(&t.view()), m);
    // From a nalgebra view: the transpose of the top-left 3x2 block of a 3x3.
    let big = Matrix3::from_fn(|i, j| (i * 3 + j) as i32);
    let block = big.fixed_view::<3, 2>(0, 0);
    let t = Tensor::<i32, Shape![3, 2]>::from(&block);
    assert_eq!(t, Tensor::from([[0, 1], [3, 4], [6, 7]]));
}

#[test]
fn vectors_and_rank_one_tensors() {
    let v = Vector4::new(1u16, 2, 3, 4);
    let t = Tensor::<u16, Shape![4]>::from(&v);
    assert_eq!(t.as_slice(), &[1, 2, 3, 4]);
    assert_eq!(Vector4::from(&(t * 2)), Vector4::new(2, 4, 6, 8));
}

#[test]
fn transposed_matrix_views_share_the_tensor_elements() {
    let t = Tensor::<f64, Shape![2, 3]>::from_fn(|[i, j]| (i * 3 + j) as f64);
    let v = t.as_transposed_matrix_view();
    assert_eq!(v.as_ptr(), t.as_slice().as_ptr());
    assert_eq!((v.nrows(), v.ncols(), v[(2, 1)]), (3, 2, 5.0));
    assert_eq!(v.transpose(), SMatrix::<f64, 2, 3>::from(&t));
    // nalgebra's product on the views, as (t w)^T = w^T t^T, agrees with shaped's matmul.
    let w = Tensor::<f64, Shape![3, 2]>::from_fn(|[i, j]| (i + 2 * j) as f64 - 1.0);
    let ours = t.matmul(&w);
    let theirs = w.as_transposed_matrix_view() * v;
    assert_eq!(SMatrix::<f64, 2, 2>::from(&ours), theirs.transpose());
    let view = TensorView::<f64, Shape![2, 3]>::new(t.as_slice()).unwrap();
    assert_eq!(view.as_transposed_matrix_view(), v);
}

#[test]
fn dynamic_matrices_and_dyn_tensors() {
    let m = DMatrix::from_fn(3, 4, |i, j| (10 * i + j) as i64);
    let t = DynTensor::try_from(&m).unwrap();
    assert_eq!(t.shape(), &[3, 4]);
    assert_eq!(&t.as_slice()[..5], &[0, 1, 2, 3, 10]);
    assert_eq!(DMatrix::try_from(&t).unwrap(), m);
    let v = t.as_transposed_matrix_view().unwrap();
    assert_eq!(v.as_ptr(), t.as_slice().as_ptr());
    assert_eq!(v.transpose(), m);
    // Static nalgebra matrices go to DynTensor too; empty matrices keep their dims.
    let e = DynTensor::try_from(&DMatrix::<f32>::zeros(0, 3)).unwrap();
    assert_eq!(e.shape(), &[0, 3]);
    assert_eq!(DMatrix::try_from(&e).unwrap().shape(), (0, 3));
    assert_eq!(
        DynTensor::try_from(&Matrix2x3::<u8>::zeros())
            .unwrap()
            .shape(),
        &[2, 3]
    );

    for shape in [&[6][..], &[1, 2, 3], &[]] {
        let n = shape.iter().product();
        let d = DynTensor::from_shape_vec(shape, vec![0u8; n]).unwrap();
        assert!(d.as_transposed_matrix_view().is_err());
        let err = DMatrix::try_from(&d).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::ShapeMismatch);
        assert_eq!(
            err.to_string(),
            format!(
                "shape {shape:?} has rank {}, but the shape type has rank 2",
                shape.len()
            )
        );
    }
}

/// A nalgebra view with stride 0 shows far more elements than it holds: its copy into a
/// `DynTensor` is an error value (`Overflow` past `isize::MAX` bytes, `OutOfMemory` where the
/// allocator refuses), never an abort.
#[test]
#[cfg_attr(miri, ignore)] // Miri stops at an allocation this size instead of refusing it
fn a_stride_0_view_too_large_to_copy_is_an_error() {
    use nalgebra::{DMatrixView, Dyn};
    let one = [1.5f64];
    let wide = DMatrixView::from_slice_with_strides_generic(
        &one,
        Dyn(1 << 24),
        Dyn(1 << 21),
        Dyn(0),
        Dyn(0),
    );
    let e = DynTensor::try_from(&wide).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::OutOfMemory { bytes: 1 << 48 });
    assert_eq!(
        e.to_string(),
        "cannot allocate 281474976710656 bytes for a result of shape [16777216, 2097152]"
    );
    let past = DMatrixView::from_slice_with_strides_generic(
        &one,
        Dyn(1 << 40),
        Dyn(1 << 30),
        Dyn(0),
        Dyn(0),
    );
    assert_eq!(
        DynTensor::try_from(&past).unwrap_err().kind(),
        ErrorKind::Overflow
    );
}
