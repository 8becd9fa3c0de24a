//! Feature `ndarray`: views both ways without a copy where the layout allows, copies
//! otherwise, shapes checked; results agree with ndarray's own arithmetic.

use ndarray::{array, s, Array, ArrayD, Axis, IxDyn};
use shaped::runtime::DynView;
use shaped::{
    AutoBroadcast, BinaryOp, DynTensor, ErrorKind, Shape, Tensor, TensorView, TensorViewMut,
};

#[test]
fn tensors_as_ndarray_views_share_their_elements() {
    let t = Tensor::<f32, Shape![2, 3, 4]>::from_fn(|[i, j, k]| (i * 12 + j * 4 + k) as f32);
    let a = t.as_array_view().unwrap();
    assert_eq!(a.shape(), &[2, 3, 4]);
    assert_eq!(a.as_ptr(), t.as_slice().as_ptr());
    assert_eq!(a[[1, 2, 3]], 23.0);
    // ndarray's reduction over the view agrees with shaped's.
    let ours = t.sum_axis::<1>();
    let theirs = a.sum_axis(Axis(1));
    assert_eq!(theirs.as_slice().unwrap(), ours.as_slice());

    let mut m = Tensor::<i32, Shape![_, 2]>::from_shape_vec([2, 2], vec![1, 2, 3, 4]).unwrap();
    m.as_array_view_mut().unwrap()[[1, 1]] = 40;
    assert_eq!(m.as_slice(), &[1, 2, 3, 40]);

    let s = Tensor::<u8, Shape![]>::scalar(9);
    assert_eq!(s.as_array_view().unwrap().ndim(), 0);
    assert_eq!(s.as_array_view().unwrap()[[]], 9);
}

#[test]
fn dyn_tensors_and_arrays_move_without_a_copy() {
    let t = DynTensor::from_shape_vec([3, 2], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let ptr = t.as_slice().as_ptr();
    let a = ArrayD::try_from(t).unwrap();
    assert_eq!(a.as_ptr(), ptr);
    assert_eq!(a[[2, 1]], 6.0);
    let back = DynTensor::try_from(a).unwrap();
    assert_eq!(back.as_slice().as_ptr(), ptr);
    assert_eq!(back.shape(), &[3, 2]);

    // The same add through both crates.
    let b = DynTensor::from_shape_vec([2], vec![10.0, 20.0]).unwrap();
    let ours = back
        .binary(&b, BinaryOp::Add, AutoBroadcast::Numpy)
        .unwrap();
    let theirs = &back.as_array_view().unwrap() + &b.as_array_view().unwrap();
    assert_eq!(theirs.as_slice().unwrap(), ours.as_slice());

    let mut d = back;
    d.as_array_view_mut().unwrap().fill(0.5);
    assert_eq!(d.as_slice(), &[0.5; 6]);
}

#[test]
fn arrays_in_other_layouts_are_copied_in_row_major_order() {
    let a = Array::from_shape_vec((2, 3), (0..6).collect::<Vec<i32>>()).unwrap();
    let t = DynTensor::try_from(a.clone().reversed_axes()).unwrap();
    assert_eq!(
        (t.shape(), t.as_slice()),
        (&[3, 2][..], &[0, 3, 1, 4, 2, 5][..])
    );
    // A sliced owned array in standard layout: its rows 1.. only.
    let big = Array::from_shape_vec((3, 2), (0..6).collect::<Vec<i32>>()).unwrap();
    let tail = big.slice_move(s![1.., ..]);
    let t = DynTensor::try_from(tail).unwrap();
    assert_eq!((t.shape(), t.as_slice()), (&[2, 2][..], &[2, 3, 4, 5][..]));
    // A view with a step and reversed: copied.
    let t = DynTensor::from_array(&a.slice(s![.., ..;-2])).unwrap();
    assert_eq!((t.shape(), t.as_slice()), (&[2, 2][..], &[2, 0, 5, 3][..]));
    let t = Tensor::<i32, Shape![2, 2]>::try_from(a.slice(s![.., ..;-2])).unwrap();
    assert_eq!(t, Tensor::from([[2, 0], [5, 3]]));
}

#[test]
fn contiguous_views_become_tensor_views_with_the_shape_checked() {
    let a = array![[1u16, 2, 3], [4, 5, 6]];
    let v = TensorView::<u16, Shape![2, 3]>::try_from(a.view()).unwrap();
    assert_eq!(v.as_slice().as_ptr(), a.as_ptr());
    let m = TensorView::<u16, Shape![_, 3]>::try_from(a.view()).unwrap();
    assert_eq!(m.shape(), [2, 3]);
    // A row slice is still contiguous; a column slice is not.
    let row = TensorView::<u16, Shape![3]>::try_from(a.row(1)).unwrap();
    assert_eq!(row.as_slice(), &[4, 5, 6]);
    let err = TensorView::<u16, Shape![2]>::try_from(a.column(1)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NotContiguous);
    let err = TensorView::<u16, Shape![3, 2]>::try_from(a.t()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the array of shape [3, 2] is not contiguous in row-major order, so it cannot be viewed \
         without a copy (copy it with `to_owned`, or convert by value)"
    );
    let err = TensorView::<u16, Shape![6]>::try_from(a.view()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "shape [2, 3] has rank 2, but the shape type has rank 1"
    );
    let err = TensorView::<u16, Shape![2, 2]>::try_from(a.view()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "shape [2, 3] is not the static shape [2, 2]"
    );

    let mut b = Array::<i64, _>::zeros(IxDyn(&[2, 2]));
    {
        let mut w = TensorViewMut::<i64, Shape![2, 2]>::try_from(b.view_mut()).unwrap();
        w += &Tensor::<i64, Shape![2]>::from([1, 2]);
    }
    assert_eq!(b.as_slice().unwrap(), &[1, 2, 1, 2]);
}

#[test]
fn strided_dyn_views_keep_their_strides() {
    let t = DynTensor::from_shape_vec([2, 3, 4], (0..24).collect::<Vec<u32>>()).unwrap();
    let v: DynView<'_, u32> = t.strided().permute([2, 0, 1]).unwrap();
    let a = v.as_array_view().unwrap();
    assert_eq!(a.shape(), &[4, 2, 3]);
    assert_eq!(a.strides(), &[1, 12, 4]);
    let expected = t.as_array_view().unwrap().permuted_axes(IxDyn(&[2, 0, 1]));
    assert_eq!(a, expected);
    let n = t.strided().narrow(1, 1, 2).unwrap();
    assert_eq!(
        n.as_array_view().unwrap(),
        t.as_array_view()
            .unwrap()
            .slice(s![.., 1..3, ..])
            .into_dyn()
    );
}

/// Audit finding: `DynTensor::from(ArrayD)` accepted rank 70 (the limit is 64), and `concat`
/// on it then failed an internal assertion. The conversion is fallible now, with the limit.
#[test]
fn an_array_above_the_rank_limit_is_refused() {
    let a = ArrayD::<u8>::zeros(IxDyn(&[1; 70]));
    let text =
        "cannot take the array of shape [1, 1, 1, 1, 1, 1, 1, 1, … (70 dims)] (from ndarray): \
                rank above the supported 64";
    let e = DynTensor::try_from(a.clone()).unwrap_err();
    assert_eq!(e.to_string(), text);
    let e = DynTensor::from_array(&a.view()).unwrap_err();
    assert_eq!(e.to_string(), text);
}

/// Audit finding: `as_array_view` of an empty strided view (`[0, 5]` transposed, `[3, 0, 4]`
/// permuted) and of a `[0, 2^63]` tensor reached `unreachable!()`. Empty views work now;
/// a shape ndarray cannot hold is an error value.
#[test]
fn empty_views_and_shapes_ndarray_cannot_hold() {
    let t = DynTensor::<f32>::from_shape_vec([0, 5], vec![]).unwrap();
    let v = t.strided().transpose();
    assert_eq!(v.as_array_view().unwrap().shape(), &[5, 0]);
    let u = DynTensor::<f32>::from_shape_vec([3, 0, 4], vec![]).unwrap();
    let p = u.strided().permute([2, 0, 1]).unwrap();
    assert_eq!(p.as_array_view().unwrap().shape(), &[4, 3, 0]);
    let huge = DynTensor::<f32>::from_shape_vec([0, 1usize << 63], vec![]).unwrap();
    let text = "cannot give shape [0, 9223372036854775808] to ndarray: the element count or byte \
                size overflows";
    let e = huge.as_array_view().unwrap_err();
    assert_eq!(e.to_string(), text);
    let e = ArrayD::try_from(huge).unwrap_err();
    assert_eq!(e.to_string(), text);
}

/// Conversions copy what a view shows, and a broadcast view shows more than it holds: `[2^45]`
/// from one element asks for 256 TiB of `f64`. Every copying conversion refuses it with
/// `OutOfMemory` (the mixed-shape one aborted before); an empty view with huge dims copies
/// nothing, at once.
#[test]
#[cfg_attr(miri, ignore)] // Miri stops at an allocation this size instead of refusing it
fn copies_of_a_broadcast_view_too_large_for_memory_are_allocation_errors() {
    let one = Array::from_elem(IxDyn(&[1]), 2.5f64);
    let wide = one.broadcast(IxDyn(&[1 << 45])).unwrap();
    let text = "cannot allocate 281474976710656 bytes for a result of shape [35184372088832]";
    let e = DynTensor::from_array(&wide).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::OutOfMemory { bytes: 1 << 48 });
    assert_eq!(e.to_string(), text);
    let e = Tensor::<f64, Shape![_]>::try_from(wide.view()).unwrap_err();
    assert_eq!(e.to_string(), text);
    // Empty, with huge other dims: nothing to copy.
    let empty = Array::<f64, _>::zeros(IxDyn(&[0, 1 << 40]));
    let t = DynTensor::from_array(&empty).unwrap();
    assert_eq!((t.shape(), t.len()), (&[0, 1 << 40][..], 0));
    let m = Tensor::<f64, Shape![_, _]>::try_from(empty.view()).unwrap();
    assert_eq!(m.shape().as_ref(), &[0, 1 << 40]);
}
