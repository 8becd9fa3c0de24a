//! Logical not and the `Result` forms of the logical operations on runtime shapes: static,
//! mixed and runtime paths agree, exact values and error texts.

use shaped::{DynTensor, Shape, Tensor};

#[test]
fn not_is_logical_for_bools_and_bitwise_for_integers_on_every_path() {
    let bools = [[true, false, false], [false, true, true]];
    let s = Tensor::<bool, Shape![2, 3]>::from(bools);
    let m = Tensor::<bool, Shape![_, 3]>::from_shape_vec([2, 3], s.as_slice().to_vec()).unwrap();
    let d = DynTensor::from_shape_vec([2, 3], s.as_slice().to_vec()).unwrap();
    let want = [false, true, true, true, false, false];
    assert_eq!((!&s).as_slice(), &want);
    assert_eq!((!s).as_slice(), &want);
    assert_eq!((!&m).as_slice(), &want);
    assert_eq!((!&m).shape(), [2, 3]);
    assert_eq!((!&d).as_slice(), &want);
    assert_eq!((!d).shape(), &[2, 3]);
    // Integers: numpy's `invert`.
    let i = Tensor::<i8, Shape![3]>::from([0, -1, 5]);
    assert_eq!((!i).into_inner(), [-1, 0, -6]);
    let u = DynTensor::from_shape_vec([2], vec![0u16, 0x00ff]).unwrap();
    assert_eq!((!u).as_slice(), &[0xffff, 0xff00]);
    // Rank 0 and zero-size.
    assert!((!Tensor::<bool, Shape![]>::splat(false)).into_inner());
    let empty = DynTensor::from_shape_vec([0, 4], Vec::<bool>::new()).unwrap();
    assert_eq!((!&empty).shape(), &[0, 4]);
}

#[test]
fn try_and_or_xor_on_runtime_shapes() {
    let a = DynTensor::from_shape_vec([2, 1], vec![true, false]).unwrap();
    let b = DynTensor::from_shape_vec([3], vec![true, false, true]).unwrap();
    assert_eq!(
        a.try_and(&b).unwrap().as_slice(),
        &[true, false, true, false, false, false]
    );
    assert_eq!(
        a.try_or(&b).unwrap().as_slice(),
        &[true, true, true, true, false, true]
    );
    let x = a.try_xor(&b).unwrap();
    assert_eq!(x.shape(), &[2, 3]);
    assert_eq!(x.as_slice(), &[false, true, false, true, false, true]);
    // The same as the static methods.
    let sa = Tensor::<bool, Shape![2, 1]>::from([[true], [false]]);
    let sb = Tensor::<bool, Shape![3]>::from([true, false, true]);
    assert_eq!(sa.xor(&sb).as_slice(), x.as_slice());
    let c = DynTensor::from_shape_vec([2], vec![true, true]).unwrap();
    let err = "cannot broadcast [3] with [2] (numpy): axis 0 has 3 vs 2";
    assert_eq!(b.try_and(&c).unwrap_err().to_string(), err);
    assert_eq!(b.try_or(&c).unwrap_err().to_string(), err);
    assert_eq!(b.try_xor(&c).unwrap_err().to_string(), err);
}

/// `& | ^` on `DynTensor<bool>`, NUMPY-broadcast like the other operators; a mismatch panics
/// with the `try_` method's error text.
#[test]
fn dyn_bool_operators_broadcast_and_panic_with_the_error() {
    use shaped::DynTensor;
    let a = DynTensor::from_shape_vec([2, 1], vec![true, false]).unwrap();
    let b = DynTensor::from_shape_vec([2], vec![true, false]).unwrap();
    assert_eq!((&a & &b).as_slice(), &[true, false, false, false]);
    assert_eq!((&a | &b).as_slice(), &[true, true, true, false]);
    assert_eq!((a.clone() ^ &b).as_slice(), &[false, true, true, false]);
    assert_eq!((&b & true).as_slice(), &[true, false]);
    assert_eq!((&a & &b), a.try_and(&b).unwrap());
    let c = DynTensor::from_shape_vec([3], vec![true; 3]).unwrap();
    let caught = std::panic::catch_unwind(|| &b | &c).unwrap_err();
    assert_eq!(
        caught.downcast_ref::<String>().unwrap(),
        "cannot broadcast [2] with [3] (numpy): axis 0 has 2 vs 3"
    );
}
