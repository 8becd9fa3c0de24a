//! Feature `generic-array`: rank-1 tensors and `GenericArray`s, by value and by reference.

use generic_array::typenum::{U0, U1024, U16, U3};
use generic_array::GenericArray;
use shaped::{HeapTensor, Shape, Tensor, TensorView};

#[test]
fn by_value_both_ways_at_several_lengths() {
    let g = GenericArray::<i64, U3>::from([7, -8, 9]);
    let t = Tensor::<i64, Shape![3]>::from(g);
    assert_eq!(t.as_slice(), &[7, -8, 9]);
    assert_eq!(GenericArray::<i64, U3>::from(t), g);

    let g = GenericArray::<f32, U16>::from(core::array::from_fn::<f32, 16, _>(|i| i as f32));
    let t = Tensor::<f32, Shape![16]>::from(g);
    assert_eq!(t.as_slice(), g.as_slice());
    let doubled: GenericArray<f32, U16> = (t + t).into();
    assert_eq!(doubled[15], 30.0);

    let g = GenericArray::<u8, U1024>::from([3u8; 1024]);
    let t = Tensor::<u8, Shape![1024]>::from(g);
    assert_eq!((t.as_slice().len(), t[[1023]]), (1024, 3));

    let e = Tensor::<u8, Shape![0]>::from(GenericArray::<u8, U0>::default());
    assert!(e.as_slice().is_empty());
}

#[test]
fn views_and_references_share_the_elements() {
    let g = GenericArray::<i32, U3>::from([1, 2, 3]);
    let v = TensorView::<i32, Shape![3]>::from(&g);
    assert_eq!(v.as_slice().as_ptr(), g.as_ptr());
    let bias = Tensor::<i32, Shape![1]>::from([10]);
    assert_eq!((v + bias).as_slice(), &[11, 12, 13]);
    assert_eq!(v.as_generic_array(), &g);
    assert_eq!(v.as_generic_array().as_ptr(), g.as_ptr());

    let h = HeapTensor::<i32, Shape![3]>::from_vec(vec![4, 5, 6]).unwrap();
    assert_eq!(h.as_generic_array().as_slice(), &[4, 5, 6]);
}
