//! Mixed shapes: static and `Dyn` dims in one shape. Output types are checked with a type
//! equality helper; runtime checks, values and errors against the dynamic path.

use shaped::typed::rules::{BroadcastShape, NoneShape, Numpy};
use shaped::{Const, Dyn, ErrorKind, Shape, Tensor, TensorView};

/// Compiles only when `A` and `B` are the same type.
trait SameType<B> {}
impl<A> SameType<A> for A {}
fn same_type<A: SameType<B>, B>() {}

#[test]
fn output_types_keep_every_static_dim_the_rules_allow() {
    // static N (N != 1) vs Dyn: static N, runtime check.
    same_type::<<Shape![3] as BroadcastShape<Shape![_], Numpy>>::Output, Shape![3]>();
    same_type::<<Shape![_] as BroadcastShape<Shape![3], Numpy>>::Output, Shape![3]>();
    // Const<1> vs Dyn and Dyn vs Dyn: Dyn.
    same_type::<<Shape![1] as BroadcastShape<Shape![_], Numpy>>::Output, Shape![_]>();
    same_type::<<Shape![_] as BroadcastShape<Shape![_], Numpy>>::Output, Shape![_]>();
    // Padding on the left acts as a 1: the Dyn passes through.
    same_type::<<Shape![_, 3, 4] as BroadcastShape<Shape![1, 4], Numpy>>::Output, Shape![_, 3, 4]>(
    );
    same_type::<<Shape![_, 64] as BroadcastShape<Shape![1, 64], Numpy>>::Output, Shape![_, 64]>();
    same_type::<<Shape![_, 1] as BroadcastShape<Shape![2, _], Numpy>>::Output, (Const<2>, Dyn)>();
    // NONE: the static dim wins, Dyn vs Dyn stays Dyn.
    same_type::<<Shape![_, 3] as NoneShape<Shape![4, _]>>::Output, Shape![4, 3]>();
    same_type::<<Shape![_, _] as NoneShape<Shape![_, 2]>>::Output, Shape![_, 2]>();
}

fn x(batch: usize) -> Tensor<f32, Shape![_, 3, 4]> {
    Tensor::from_shape_vec([batch, 3, 4], (0..batch * 12).map(|v| v as f32).collect()).unwrap()
}

#[test]
fn static_dims_need_no_runtime_check_and_dyn_dims_get_one() {
    let bias = Tensor::<f32, Shape![1, 4]>::from([[0.5, 1.0, 1.5, 2.0]]);
    let y: Tensor<f32, Shape![_, 3, 4]> = x(2).try_add(&bias).unwrap();
    assert_eq!(y.shape(), [2, 3, 4]);
    assert_eq!(y[[1, 2, 3]], 23.0 + 2.0);
    let per_item =
        Tensor::<f32, Shape![_, 1, 1]>::from_shape_vec([2, 1, 1], vec![100.0, 200.0]).unwrap();
    let z: Tensor<f32, Shape![_, 3, 4]> = x(2).try_add(&per_item).unwrap();
    assert_eq!(z[[1, 0, 0]], 12.0 + 200.0);
    let wrong = Tensor::<f32, Shape![_, 1, 1]>::from_shape_vec([3, 1, 1], vec![0.0; 3]).unwrap();
    let e = x(2).try_add(&wrong).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot broadcast [2, 3, 4] with [3, 1, 1] (numpy): axis 0 has 2 vs 3"
    );
    assert_eq!(
        e.kind(),
        ErrorKind::DimMismatch {
            axis: 0,
            lhs: 2,
            rhs: 3
        }
    );
}

#[test]
fn a_static_dim_against_dyn_gives_a_static_output() {
    let a = Tensor::<i32, Shape![_, 3]>::from_shape_vec([2, 3], vec![1, 2, 3, 4, 5, 6]).unwrap();
    let b = Tensor::<i32, Shape![2, 1]>::from([[10], [20]]);
    let c: Tensor<i32, Shape![2, 3]> = a.try_mul(&b).unwrap();
    assert_eq!(c, Tensor::from([[10, 20, 30], [80, 100, 120]]));
    let a1 = Tensor::<i32, Shape![_, 3]>::from_shape_vec([1, 3], vec![1, 2, 3]).unwrap();
    let c1: Tensor<i32, Shape![2, 3]> = a1.try_mul(&b).unwrap();
    assert_eq!(
        c1.as_slice(),
        &[10, 20, 30, 20, 40, 60],
        "a runtime 1 stretches to the static 2"
    );
    let a4 = Tensor::<i32, Shape![_, 3]>::from_shape_vec([4, 3], vec![0; 12]).unwrap();
    assert_eq!(
        a4.try_mul(&b).unwrap_err().kind(),
        ErrorKind::DimMismatch {
            axis: 0,
            lhs: 4,
            rhs: 2
        }
    );
}

#[test]
fn zero_size_dyn_dims_follow_the_rules() {
    let empty = Tensor::<f32, Shape![_, 4]>::from_shape_vec([0, 4], vec![]).unwrap();
    let row = Tensor::<f32, Shape![1, 4]>::zeros();
    let out = empty.try_add(&row).unwrap();
    assert_eq!(out.shape(), [0, 4]);
    let one = Tensor::<f32, Shape![_]>::from_shape_vec([1], vec![2.0]).unwrap();
    let zero = Tensor::<f32, Shape![_]>::from_shape_vec([0], vec![]).unwrap();
    assert_eq!(
        one.try_add(&zero).unwrap().shape(),
        [0],
        "1 against 0 gives 0 (P5)"
    );
}

#[test]
fn every_try_op_matches_the_dynamic_path() {
    use shaped::{AutoBroadcast, BinaryOp, CompareOp, DynTensor};
    let a = Tensor::<f32, Shape![_, 1, 3]>::from_shape_vec(
        [2, 1, 3],
        vec![1.5, -2.0, 3.0, 4.0, 0.5, -6.0],
    )
    .unwrap();
    let b = Tensor::<f32, Shape![4, 1]>::from([[2.0], [-1.0], [0.5], [3.0]]);
    let (da, db) = (
        DynTensor::from_shape_vec([2, 1, 3], a.as_slice().to_vec()).unwrap(),
        b.to_dyn(),
    );
    let dyn_op = |op| da.binary(&db, op, AutoBroadcast::Numpy).unwrap();
    assert_eq!(
        a.try_add(&b).unwrap().as_slice(),
        dyn_op(BinaryOp::Add).as_slice()
    );
    assert_eq!(
        a.try_sub(&b).unwrap().as_slice(),
        dyn_op(BinaryOp::Sub).as_slice()
    );
    assert_eq!(
        a.try_mul(&b).unwrap().as_slice(),
        dyn_op(BinaryOp::Mul).as_slice()
    );
    assert_eq!(
        a.try_div(&b).unwrap().as_slice(),
        dyn_op(BinaryOp::Div).as_slice()
    );
    assert_eq!(
        a.try_rem(&b).unwrap().as_slice(),
        dyn_op(BinaryOp::Rem).as_slice()
    );
    assert_eq!(
        a.try_maximum(&b).unwrap().as_slice(),
        dyn_op(BinaryOp::Maximum).as_slice()
    );
    assert_eq!(
        a.try_minimum(&b).unwrap().as_slice(),
        dyn_op(BinaryOp::Minimum).as_slice()
    );
    assert_eq!(
        a.try_squared_difference(&b).unwrap().as_slice(),
        dyn_op(BinaryOp::SquaredDifference).as_slice()
    );
    let p = a.try_pow(&b).unwrap();
    let q = dyn_op(BinaryOp::Pow);
    assert!(p
        .iter()
        .zip(q.as_slice())
        .all(|(x, y)| (x.is_nan() && y.is_nan()) || (x - y).abs() <= 1e-5 * y.abs().max(1.0)));
    let dyn_cmp = |op| da.compare(&db, op, AutoBroadcast::Numpy).unwrap();
    assert_eq!(
        a.try_eq(&b).unwrap().as_slice(),
        dyn_cmp(CompareOp::Eq).as_slice()
    );
    assert_eq!(
        a.try_ne(&b).unwrap().as_slice(),
        dyn_cmp(CompareOp::Ne).as_slice()
    );
    assert_eq!(
        a.try_lt(&b).unwrap().as_slice(),
        dyn_cmp(CompareOp::Lt).as_slice()
    );
    assert_eq!(
        a.try_le(&b).unwrap().as_slice(),
        dyn_cmp(CompareOp::Le).as_slice()
    );
    assert_eq!(
        a.try_gt(&b).unwrap().as_slice(),
        dyn_cmp(CompareOp::Gt).as_slice()
    );
    assert_eq!(
        a.try_ge(&b).unwrap().as_slice(),
        dyn_cmp(CompareOp::Ge).as_slice()
    );
    let m = Tensor::<bool, Shape![_, 2]>::from_shape_vec([2, 2], vec![true, false, true, true])
        .unwrap();
    let r = Tensor::<bool, Shape![2]>::from([true, false]);
    assert_eq!(
        m.try_and(&r).unwrap().as_slice(),
        &[true, false, true, false]
    );
    assert_eq!(m.try_or(&r).unwrap().as_slice(), &[true, false, true, true]);
    assert_eq!(
        m.try_xor(&r).unwrap().as_slice(),
        &[false, false, false, true]
    );
}

#[test]
fn try_zip_map_and_try_broadcast_to() {
    let a = Tensor::<i32, Shape![_, 3]>::from_shape_vec([2, 3], vec![1, 2, 3, 4, 5, 6]).unwrap();
    let b = Tensor::<i32, Shape![2, _]>::from_shape_vec([2, 3], vec![10; 6]).unwrap();
    let c: Tensor<i32, Shape![2, 3]> = a.try_zip_map(&b, |x, y| x + y).unwrap();
    assert_eq!(c.as_slice(), &[11, 12, 13, 14, 15, 16]);
    let b3 = Tensor::<i32, Shape![2, _]>::from_shape_vec([2, 1], vec![0; 2]).unwrap();
    assert_eq!(
        a.try_zip_map(&b3, |x, y| x + y).unwrap_err().to_string(),
        "cannot broadcast [2, 3] with [2, 1] (none): axis 1 has 3 vs 1"
    );
    let col = Tensor::<i32, Shape![_, 1]>::from_shape_vec([2, 1], vec![7, 8]).unwrap();
    let wide: Tensor<i32, Shape![_, 4]> =
        col.try_broadcast_bidirectional::<Shape![4]>([4]).unwrap();
    assert_eq!(wide.as_slice(), &[7, 7, 7, 7, 8, 8, 8, 8]);
    let grown: Tensor<i32, (Const<3>, Dyn, Dyn)> = col
        .try_broadcast_bidirectional::<Shape![3, 1, _]>([3, 1, 5])
        .unwrap();
    assert_eq!(
        grown.shape(),
        [3, 2, 5],
        "the output may differ from the target (B2)"
    );
    assert_eq!(
        col.try_broadcast_bidirectional::<Shape![_]>([3])
            .unwrap()
            .shape(),
        [2, 3]
    );
    let e = col
        .try_broadcast_bidirectional::<Shape![3, _]>([4, 2])
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "shape [4, 2] does not fit the shape type [3, _]"
    );
}

#[test]
fn construction_checks_and_views_without_alloc() {
    let e = Tensor::<u8, Shape![_, 2]>::from_shape_vec([3, 2], vec![0; 5]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "shape [3, 2] needs 6 elements, but the buffer holds 5"
    );
    let e = Tensor::<u8, Shape![_, 2]>::from_shape_vec([usize::MAX, 2], vec![]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::Overflow);
    let data = [1.0f32, 2.0, 3.0, 4.0];
    let v = TensorView::<f32, Shape![_, 2]>::with_shape([2, 2], &data).unwrap();
    assert_eq!(v[[1, 0]], 3.0);
    assert_eq!(v.to_string(), "[[1 2]\n [3 4]]");
    let doubled = v.try_add(&v).unwrap();
    assert_eq!(doubled.as_slice(), &[2.0, 4.0, 6.0, 8.0]);
}

/// Operators on shapes with `Dyn` dims: static dims still checked at compile time, the `Dyn`
/// dims at run time; a runtime mismatch panics with the error's message (documented on the
/// operators); the `try_*` methods return it instead.
#[test]
#[allow(clippy::op_ref)]
fn operators_on_mixed_shapes_return_results() {
    let bias = Tensor::<f32, Shape![1, 4]>::from([[0.5, 1.0, 1.5, 2.0]]);
    let y: Tensor<f32, Shape![_, 3, 4]> = &x(2) + &bias;
    assert_eq!(y, x(2).try_add(&bias).unwrap());
    let scaled: Tensor<f32, Shape![_, 3, 4]> = &x(2) * 2.0;
    assert_eq!(scaled[[1, 2, 3]], 46.0);
    let owned = x(2) - &bias;
    assert_eq!(owned[[0, 0, 0]], -0.5);
    let per_item =
        Tensor::<f32, Shape![_, 1, 1]>::from_shape_vec([2, 1, 1], vec![10.0, 20.0]).unwrap();
    let z = &x(2) / &per_item;
    assert_eq!(z[[1, 0, 0]], 12.0 / 20.0);
    let a = Tensor::<i32, Shape![_, 3]>::from_shape_vec([2, 3], vec![1, 2, 3, 4, 5, 6]).unwrap();
    let b = Tensor::<i32, Shape![2, 1]>::from([[10], [20]]);
    let c: Tensor<i32, Shape![2, 3]> = &a % &b;
    assert_eq!(c.as_slice(), &[1, 2, 3, 4, 5, 6]);
}

#[test]
#[should_panic(expected = "cannot broadcast [2, 3, 4] with [3, 1, 1] (numpy): axis 0 has 2 vs 3")]
fn operators_on_mixed_shapes_panic_with_the_error_message() {
    let wrong = Tensor::<f32, Shape![_, 1, 1]>::from_shape_vec([3, 1, 1], vec![0.0; 3]).unwrap();
    let _ = &x(2) + &wrong;
}

/// A shape that does not fit a mixed shape type is reported against the type as written, a
/// `Dyn` position shown as `_` (it fits any dim), not as the dim the user gave there.
#[test]
fn a_misfit_names_the_shape_type_with_its_dyn_positions() {
    use shaped::error::DYN_DIM;
    let e = Tensor::<f32, Shape![_, 3]>::from_shape_vec([2, 4], vec![0.0; 8]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "shape [2, 4] does not fit the shape type [_, 3]"
    );
    assert_eq!(e.rhs().kept(), &[DYN_DIM, 3]);
    let d = shaped::DynTensor::from_shape_vec([2, 4], vec![0.0f32; 8]).unwrap();
    let e = d.try_to_shape::<Shape![_, 3]>().unwrap_err();
    assert_eq!(
        e.to_string(),
        "shape [2, 4] does not fit the shape type [_, 3]"
    );
    let e = d.try_to_shape::<Shape![2, 3]>().unwrap_err();
    assert_eq!(e.to_string(), "shape [2, 4] is not the static shape [2, 3]");
}
