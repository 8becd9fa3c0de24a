//! Construction, access and formatting of static tensors of ranks 0 to 8.

use shaped::{HeapTensor, Shape, StaticShape, Tensor, TensorView, TensorViewMut};

#[test]
fn constructors_fill_every_element() {
    let s = Tensor::<u8, Shape![2, 2]>::splat(7);
    assert_eq!(s.as_slice(), &[7, 7, 7, 7]);
    let z = Tensor::<f64, Shape![3]>::zeros();
    assert_eq!(z.as_slice(), &[0.0; 3]);
    let f = Tensor::<usize, Shape![2, 3, 2]>::from_fn(|[i, j, k]| 100 * i + 10 * j + k);
    assert_eq!(f[[1, 2, 1]], 121);
    assert_eq!(f.as_slice()[..4], [0, 1, 10, 11]);
    let r0 = Tensor::scalar(3.5f32);
    assert_eq!(r0.shape(), [0usize; 0]);
    assert_eq!(r0[[]], 3.5);
}

#[test]
fn from_nested_arrays_of_each_rank() {
    let t1 = Tensor::from([1, 2, 3]);
    let _: &Tensor<i32, Shape![3]> = &t1;
    let t2 = Tensor::from([[1, 2, 3], [4, 5, 6]]);
    assert_eq!(t2.shape(), [2, 3]);
    assert_eq!(t2[[1, 0]], 4);
    let t3 = Tensor::from([[[1, 2]], [[3, 4]]]);
    assert_eq!(t3.shape(), [2, 1, 2]);
    assert_eq!(t3.into_inner(), [[[1, 2]], [[3, 4]]]);
    let t4 = Tensor::from([[[[9u8; 2]; 1]; 3]; 2]);
    assert_eq!(t4.shape(), [2, 3, 1, 2]);
    let t8 =
        Tensor::<u8, Shape![1, 2, 1, 2, 1, 2, 1, 2]>::from_fn(|i| i.iter().sum::<usize>() as u8);
    assert_eq!(t8.len(), 16);
    assert_eq!(t8[[0, 1, 0, 1, 0, 1, 0, 1]], 4);
}

#[test]
fn try_from_slice_checks_the_length() {
    let t = Tensor::<i16, Shape![2, 2]>::try_from(&[1, 2, 3, 4][..]).unwrap();
    assert_eq!(t[[1, 0]], 3);
    let err = Tensor::<i16, Shape![2, 2]>::try_from(&[1, 2, 3][..]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "shape [2, 2] needs 4 elements, but the buffer holds 3"
    );
    assert_eq!(
        (err.kind(), err.operation(), err.lhs().kept()),
        (
            shaped::ErrorKind::LengthMismatch {
                expected: 4,
                actual: 3
            },
            shaped::Operation::Layout,
            &[2, 2][..]
        )
    );
}

#[test]
fn get_index_and_iterators() {
    let mut t = Tensor::<i32, Shape![2, 3]>::from_fn(|[i, j]| (i * 3 + j) as i32);
    assert_eq!(t.get([1, 2]), Some(&5));
    assert_eq!(t.get([2, 0]), None);
    assert_eq!(t.get([0, 3]), None);
    *t.get_mut([0, 0]).unwrap() = 40;
    t[[0, 1]] = 41;
    for x in t.iter_mut() {
        *x += 1;
    }
    assert_eq!(t.iter().copied().collect::<Vec<_>>(), [41, 42, 3, 4, 5, 6]);
    assert_eq!((&t).into_iter().count(), 6);
    assert_eq!(t.rank(), 2);
}

#[test]
#[should_panic(expected = "index [0, 3] is out of bounds for shape [2, 3]")]
fn index_out_of_range_panics_with_the_shape() {
    let t = Tensor::<i32, Shape![2, 3]>::zeros();
    let _ = t[[0, 3]];
}

#[test]
fn zero_size_dims_everywhere() {
    let t = Tensor::<f32, Shape![3, 0, 2]>::zeros();
    assert!(t.is_empty());
    assert_eq!(t.get([0, 0, 0]), None);
    assert_eq!(t.to_string(), "[]");
    assert_eq!(<Shape![3, 0, 2]>::LEN, 0);
}

#[test]
fn display_is_numpy_like() {
    assert_eq!(Tensor::scalar(5).to_string(), "5");
    assert_eq!(Tensor::from([1, -2, 30]).to_string(), "[ 1 -2 30]");
    assert_eq!(
        Tensor::from([[1, 2], [3, 4]]).to_string(),
        "[[1 2]\n [3 4]]"
    );
    assert_eq!(
        Tensor::from([[[1, 2]], [[3, 4]]]).to_string(),
        "[[[1 2]]\n\n [[3 4]]]"
    );
    assert_eq!(
        format!("{:.2}", Tensor::from([0.5f32, 10.0])),
        "[ 0.50 10.00]"
    );
    assert_eq!(Tensor::from([true, false]).to_string(), "[ true false]");
}

#[test]
fn debug_adds_the_shape() {
    let t = Tensor::from([[1.0f32], [2.5]]);
    assert_eq!(format!("{t:?}"), "Tensor(shape=[2, 1], [[1.0]\n [2.5]])");
    assert_eq!(format!("{:?}", Tensor::scalar(1u8)), "Tensor(shape=[], 1)");
}

#[test]
fn views_check_length_and_write_through() {
    let mut data = [0i32; 6];
    {
        let mut v = TensorViewMut::<i32, Shape![3, 2]>::new(&mut data).unwrap();
        v[[2, 1]] = 9;
        v.as_mut_slice()[0] = 1;
    }
    assert_eq!(data, [1, 0, 0, 0, 0, 9]);
    let v = TensorView::<i32, Shape![3, 2]>::new(&data).unwrap();
    assert_eq!(v.to_stack(), Tensor::from([[1, 0], [0, 0], [0, 9]]));
    assert_eq!(
        TensorView::<i32, Shape![4]>::new(&data)
            .unwrap_err()
            .to_string(),
        "shape [4] needs 4 elements, but the buffer holds 6"
    );
    let owned = Tensor::from([[1, 2], [3, 4]]);
    assert_eq!(owned.view().as_slice(), &[1, 2, 3, 4]);
}

#[test]
fn heap_tensors_round_trip() {
    let h = HeapTensor::<u16, Shape![2, 2]>::from_vec(vec![1, 2, 3, 4]).unwrap();
    assert_eq!(h.to_stack(), Tensor::from([[1, 2], [3, 4]]));
    assert_eq!(Tensor::from([[1u16, 2], [3, 4]]).to_heap(), h);
    let err = HeapTensor::<u16, Shape![2, 2]>::from_vec(vec![1]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "shape [2, 2] needs 4 elements, but the buffer holds 1"
    );
    let z = HeapTensor::<f32, Shape![3]>::zeros();
    assert_eq!(z.as_slice(), &[0.0; 3]);
}

/// Dims outside the compile-time comparison table still work for everything that does not
/// compare dims: storage, views, indexing, NONE. (Skipped under Miri for its size.)
#[test]
#[cfg_attr(miri, ignore)]
fn dims_outside_the_table_work_without_broadcasting() {
    let data = vec![1.0f32; 2049];
    let v = TensorView::<f32, Shape![2049]>::new(&data).unwrap();
    let doubled = v.zip_map(&v, |x, y| x + y);
    assert_eq!(doubled[[2048]], 2.0);
    let h = HeapTensor::<u8, Shape![3, 100_003]>::splat(1);
    assert_eq!(h.len(), 300_009);
}
