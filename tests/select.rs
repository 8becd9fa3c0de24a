//! Selection by a condition (rules W1, W2): numpy's and ONNX's `where` against an
//! index-by-index reference on random shapes, OpenVINO's and oneDNN's `select` in its three
//! modes, the runtime kernels into a buffer and the `DynTensor` methods agreeing, exact error
//! texts.

use crate::common;

use common::{indices, numpy_shape, read_broadcast, Lcg};
use shaped::rules::{select_shape, where_shape};
use shaped::runtime::{select_into, where_into, ArrayRef, AsInput};
use shaped::{AutoBroadcast, DynTensor};

/// A random shape of rank 0-4 with dims 0-3, mostly nonzero.
fn shape(rng: &mut Lcg) -> Vec<usize> {
    let rank = rng.below(5);
    (0..rank)
        .map(|_| match rng.below(10) {
            0 => 0,
            1..=4 => 1,
            n => n % 3 + 1,
        })
        .collect()
}

/// A shape that broadcasts with `out` in one direction: some of its trailing dims, some made 1.
fn onto(rng: &mut Lcg, out: &[usize]) -> Vec<usize> {
    let keep = rng.below(out.len() as u64 + 1);
    out[out.len() - keep..]
        .iter()
        .map(|&d| if rng.below(3) == 0 { 1 } else { d })
        .collect()
}

fn count(dims: &[usize]) -> usize {
    dims.iter().product()
}

/// The selection index by index: each input read at the output index, right-aligned.
fn reference<T: Copy>(
    out: &[usize],
    (cond, cd): (&[bool], &[usize]),
    (then, td): (&[T], &[usize]),
    (other, ed): (&[T], &[usize]),
) -> Vec<T> {
    indices(out)
        .iter()
        .map(|i| {
            if read_broadcast(cond, cd, i) {
                read_broadcast(then, td, i)
            } else {
                read_broadcast(other, ed, i)
            }
        })
        .collect()
}

/// W1: the three shapes broadcast together by NUMPY, then `then` where the condition holds.
#[test]
fn w1_where_broadcasts_all_three_inputs_together() {
    let mut rng = Lcg(41);
    let mut checked = 0;
    for _ in 0..3000 {
        let (cd, td, ed) = (shape(&mut rng), shape(&mut rng), shape(&mut rng));
        let cond: Vec<bool> = (0..count(&cd)).map(|_| rng.below(2) == 1).collect();
        let then: Vec<i32> = (0..count(&td)).map(|i| i as i32 + 1).collect();
        let other: Vec<i32> = (0..count(&ed)).map(|i| -(i as i32) - 1).collect();
        let want_shape = numpy_shape(&cd, &td).and_then(|s| numpy_shape(&s, &ed));
        let got = DynTensor::where_cond(
            &ArrayRef::new(&cd, &cond).unwrap(),
            &ArrayRef::new(&td, &then).unwrap(),
            &ArrayRef::new(&ed, &other).unwrap(),
        );
        let Some(out) = want_shape else {
            assert!(got.is_err(), "{cd:?} {td:?} {ed:?}");
            assert!(where_shape(&cd, &td, &ed).is_err());
            continue;
        };
        let got = got.unwrap();
        assert_eq!(got.shape(), &out[..]);
        assert_eq!(where_shape(&cd, &td, &ed).unwrap(), &out[..]);
        let want = reference(&out, (&cond, &cd), (&then, &td), (&other, &ed));
        assert_eq!(got.as_slice(), &want[..], "{cd:?} {td:?} {ed:?}");
        // The kernel into a buffer: the same elements.
        let mut buf = vec![0; want.len()];
        where_into(
            ArrayRef::new(&cd, &cond).unwrap(),
            ArrayRef::new(&td, &then).unwrap(),
            ArrayRef::new(&ed, &other).unwrap(),
            &mut buf,
        )
        .unwrap();
        assert_eq!(buf, want);
        checked += 1;
    }
    assert!(checked > 600, "{checked}");
}

/// W2, NUMPY: `then` and `otherwise` broadcast to each other and the condition one way onto
/// the result; where the condition would grow it, an error value (where `where` accepts it).
#[test]
fn w2_select_numpy_broadcasts_the_condition_one_way() {
    let mut rng = Lcg(42);
    for _ in 0..3000 {
        let (td, ed) = (shape(&mut rng), shape(&mut rng));
        let Some(out) = numpy_shape(&td, &ed) else {
            let err = select_shape(&[], &td, &ed, AutoBroadcast::Numpy).unwrap_err();
            assert!(err.to_string().starts_with("cannot broadcast"), "{err}");
            continue;
        };
        let cd = if rng.below(4) == 0 {
            shape(&mut rng)
        } else {
            onto(&mut rng, &out)
        };
        let cond: Vec<bool> = (0..count(&cd)).map(|_| rng.below(2) == 1).collect();
        let then: Vec<u8> = (0..count(&td)).map(|i| i as u8).collect();
        let other: Vec<u8> = (0..count(&ed)).map(|i| 200 - i as u8).collect();
        let got = DynTensor::select(
            &ArrayRef::new(&cd, &cond).unwrap(),
            &ArrayRef::new(&td, &then).unwrap(),
            &ArrayRef::new(&ed, &other).unwrap(),
            AutoBroadcast::Numpy,
        );
        let one_way = numpy_shape(&out, &cd).is_some_and(|s| s == out);
        if !one_way {
            let err = got.unwrap_err();
            if numpy_shape(&out, &cd).is_some() {
                assert_eq!(
                    err.to_string(),
                    format!(
                        "cannot select: condition {cd:?} would grow {out:?}, the broadcast of \
                         the two values (numpy, W2)"
                    )
                );
            }
            continue;
        }
        let got = got.unwrap();
        assert_eq!(got.shape(), &out[..]);
        let want = reference(&out, (&cond, &cd), (&then, &td), (&other, &ed));
        assert_eq!(got.as_slice(), &want[..]);
        let mut buf = vec![0; want.len()];
        select_into(
            ArrayRef::new(&cd, &cond).unwrap(),
            ArrayRef::new(&td, &then).unwrap(),
            ArrayRef::new(&ed, &other).unwrap(),
            AutoBroadcast::Numpy,
            &mut buf,
        )
        .unwrap();
        assert_eq!(buf, want);
    }
}

/// W2, PDPD: `otherwise` and the condition are each placed onto `then` from the axis (D1-D10);
/// the output is `then`'s shape.
#[test]
fn w2_select_pdpd_places_both_onto_then() {
    let then = DynTensor::from_shape_vec([2, 3, 2], (1..=12).collect::<Vec<i32>>()).unwrap();
    let other = DynTensor::from_shape_vec([3, 1], vec![-1, -2, -3]).unwrap();
    let cond = DynTensor::from_shape_vec([3], vec![true, false, true]).unwrap();
    let y = DynTensor::select(&cond, &then, &other, AutoBroadcast::Pdpd { axis: 1 }).unwrap();
    assert_eq!(y.shape(), &[2, 3, 2]);
    assert_eq!(y.as_slice(), &[1, 2, -2, -2, 5, 6, 7, 8, -2, -2, 11, 12]);
    // The default axis -1 aligns on the right (after trimming trailing 1s).
    let y = DynTensor::select(
        &DynTensor::from_shape_vec([2], vec![false, true]).unwrap(),
        &then,
        &DynTensor::scalar(0),
        AutoBroadcast::PDPD,
    )
    .unwrap();
    assert_eq!(y.as_slice(), &[0, 2, 0, 4, 0, 6, 0, 8, 0, 10, 0, 12]);
    // `otherwise` may not be larger than `then` (D1), nor may the condition.
    let big = DynTensor::from_shape_vec([2, 2, 3, 2], vec![0; 24]).unwrap();
    assert_eq!(
        DynTensor::select(&cond, &then, &big, AutoBroadcast::PDPD)
            .unwrap_err()
            .to_string(),
        "cannot broadcast [2, 3, 2] with [2, 2, 3, 2] (pdpd, axis -1): the second shape has the \
         larger rank"
    );
    let wide = DynTensor::from_shape_vec([2, 2, 3, 2], vec![true; 24]).unwrap();
    assert_eq!(
        DynTensor::select(&wide, &then, &other, AutoBroadcast::Pdpd { axis: 1 })
            .unwrap_err()
            .to_string(),
        "cannot broadcast [2, 3, 2] with [2, 2, 3, 2] (pdpd, axis 1): the second shape has the \
         larger rank"
    );
}

/// W2, NONE: the three shapes must be identical.
#[test]
fn w2_select_none_needs_identical_shapes() {
    let a = DynTensor::from_shape_vec([2], vec![1.5f32, 2.5]).unwrap();
    let b = DynTensor::from_shape_vec([2], vec![-1.0f32, -2.0]).unwrap();
    let c = DynTensor::from_shape_vec([2], vec![false, true]).unwrap();
    let y = DynTensor::select(&c, &a, &b, AutoBroadcast::None).unwrap();
    assert_eq!(y.as_slice(), &[-1.0, 2.5]);
    let c1 = DynTensor::from_shape_vec([1], vec![true]).unwrap();
    assert_eq!(
        DynTensor::select(&c1, &a, &b, AutoBroadcast::None)
            .unwrap_err()
            .to_string(),
        "cannot broadcast [2] with [1] (none): axis 0 has 2 vs 1"
    );
    // Bidirectional is the Broadcast op's mode, not Select's.
    assert_eq!(
        DynTensor::select(&c, &a, &b, AutoBroadcast::Bidirectional)
            .unwrap_err()
            .to_string(),
        "cannot select [2] or [2]: select broadcasts by none, numpy or pdpd, not bidirectional \
         (W2)"
    );
}

/// Rank 0, zero-size outputs, strided inputs, and an output buffer of the wrong length.
#[test]
fn w1_w2_edges() {
    let t = DynTensor::scalar(7);
    let e = DynTensor::scalar(9);
    let y = DynTensor::where_cond(&DynTensor::scalar(false), &t, &e).unwrap();
    assert_eq!((y.shape(), y.as_slice()), (&[][..], &[9][..]));
    let empty = DynTensor::from_shape_vec([0, 3], Vec::<bool>::new()).unwrap();
    let y = DynTensor::where_cond(&empty, &t, &e).unwrap();
    assert_eq!(y.shape(), &[0, 3]);
    // A transposed view as the condition: strides, not a copy.
    let c = DynTensor::from_shape_vec([2, 3], vec![true, false, true, false, false, true]).unwrap();
    let ct = c.strided().permute([1, 0]).unwrap();
    let then = DynTensor::from_shape_vec([3, 2], vec![1, 2, 3, 4, 5, 6]).unwrap();
    let y = DynTensor::select(&ct, &then, &DynTensor::scalar(0), AutoBroadcast::Numpy).unwrap();
    assert_eq!(y.as_slice(), &[1, 0, 0, 0, 5, 6]);
    let mut short = [0; 5];
    assert_eq!(
        select_into(
            ct.as_input(),
            then.view(),
            ArrayRef::new(&[], &[0]).unwrap(),
            AutoBroadcast::Numpy,
            &mut short
        )
        .unwrap_err()
        .to_string(),
        "shape [3, 2] needs 6 elements, but the buffer holds 5 (numpy)"
    );
}

/// W1 and W2 on static shapes: the same elements as the runtime path.
#[test]
fn w1_w2_static_shapes_agree_with_the_runtime_path() {
    use shaped::{Shape, Tensor};
    let cond =
        Tensor::<bool, Shape![2, 1, 3]>::from([[[true, false, true]], [[false, true, true]]]);
    let then = Tensor::<i32, Shape![4, 1]>::from([[1], [2], [3], [4]]);
    let other = Tensor::<i32, Shape![3]>::from([-1, -2, -3]);
    let y: Tensor<i32, Shape![2, 4, 3]> = cond.where_cond(&then, &other);
    let dyn_y = DynTensor::where_cond(&cond.to_dyn(), &then.to_dyn(), &other.to_dyn()).unwrap();
    assert_eq!(dyn_y.shape(), &[2, 4, 3]);
    assert_eq!(y.as_slice(), dyn_y.as_slice());
    assert_eq!(y[[1, 2, 0]], -1);
    assert_eq!(y[[1, 2, 1]], 3);

    // Select: the condition [3] onto the values' [4, 3].
    let c = Tensor::<bool, Shape![3]>::from([false, true, false]);
    let a = Tensor::<f32, Shape![4, 3]>::from_fn(|[i, j]| (i * 3 + j) as f32);
    let b = Tensor::<f32, Shape![1]>::from([0.5]);
    let y: Tensor<f32, Shape![4, 3]> = c.select(&a, &b);
    let dyn_y =
        DynTensor::select(&c.to_dyn(), &a.to_dyn(), &b.to_dyn(), AutoBroadcast::Numpy).unwrap();
    assert_eq!(y.as_slice(), dyn_y.as_slice());
    assert_eq!(y.into_inner()[3], [0.5, 10.0, 0.5]);
}

/// W1 and W2 with a scalar for a value: the rank-0 tensor it stands for, on static and mixed
/// shapes, as the runtime path gives it.
#[test]
fn w1_w2_a_scalar_value_is_a_rank_0_tensor() {
    use shaped::{Shape, Tensor};
    let cond = Tensor::<bool, Shape![2, 1]>::from([[true], [false]]);
    let then = Tensor::<f32, Shape![3]>::from([1.0, 2.0, 3.0]);
    let y: Tensor<f32, Shape![2, 3]> = cond.where_cond(&then, -1.5);
    let zero_d = DynTensor::from_shape_vec([], vec![-1.5f32]).unwrap();
    let want = DynTensor::where_cond(&cond.to_dyn(), &then.to_dyn(), &zero_d).unwrap();
    assert_eq!(y.as_slice(), want.as_slice());
    assert_eq!(y.as_slice(), &[1.0, 2.0, 3.0, -1.5, -1.5, -1.5]);

    // Both values scalars: the condition's shape, on a mixed shape.
    let c = Tensor::<bool, Shape![_]>::from_shape_vec([3], vec![false, true, true]).unwrap();
    let y = c.where_cond(1u8, 0u8);
    assert_eq!((y.shape(), y.as_slice()), ([3], &[0u8, 1, 1][..]));

    // Select: the scalar takes the other value's shape, by value or by reference.
    let c = Tensor::<bool, Shape![3]>::from([true, false, true]);
    let y: Tensor<f32, Shape![3]> = c.select(7.0, then);
    assert_eq!(y.as_slice(), &[7.0, 2.0, 7.0]);
}

/// W1 and W2 on mixed shapes (every dim `Dyn`): the runtime path's elements, and its error
/// text as the panic message on a mismatch.
#[test]
fn w1_w2_mixed_shapes_agree_with_the_runtime_path() {
    use shaped::{Shape, Tensor};
    let mut rng = Lcg(43);
    let dims = |rng: &mut Lcg| [rng.below(3) + 1, rng.below(3) + 1];
    for _ in 0..400 {
        let (cd, td, ed) = (dims(&mut rng), dims(&mut rng), dims(&mut rng));
        let cond: Vec<bool> = (0..count(&cd)).map(|_| rng.below(2) == 1).collect();
        let then: Vec<i64> = (0..count(&td)).map(|i| i as i64).collect();
        let other: Vec<i64> = (0..count(&ed)).map(|i| 100 + i as i64).collect();
        let c = Tensor::<bool, Shape![_, _]>::from_shape_vec(cd, cond.clone()).unwrap();
        let t = Tensor::<i64, Shape![_, _]>::from_shape_vec(td, then.clone()).unwrap();
        let e = Tensor::<i64, Shape![_, _]>::from_shape_vec(ed, other.clone()).unwrap();
        let (dc, dt, de) = (
            DynTensor::from_shape_vec(cd, cond).unwrap(),
            DynTensor::from_shape_vec(td, then).unwrap(),
            DynTensor::from_shape_vec(ed, other).unwrap(),
        );
        for select in [false, true] {
            let want = if select {
                DynTensor::select(&dc, &dt, &de, AutoBroadcast::Numpy)
            } else {
                DynTensor::where_cond(&dc, &dt, &de)
            };
            let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                if select {
                    let y = c.select(&t, &e);
                    (y.shape().to_vec(), y.as_slice().to_vec())
                } else {
                    let y = c.where_cond(&t, &e);
                    (y.shape().to_vec(), y.as_slice().to_vec())
                }
            }));
            match (want, got) {
                (Ok(w), Ok((shape, values))) => {
                    assert_eq!(shape, w.shape());
                    assert_eq!(values, w.as_slice());
                }
                (Err(e), Err(panic)) => {
                    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
                    assert_eq!(message, e.to_string());
                }
                (w, g) => panic!("{cd:?} {td:?} {ed:?}: {w:?} against {:?}", g.is_ok()),
            }
        }
    }
}
