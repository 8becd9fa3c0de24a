//! Reductions on runtime shapes against an index-by-index reference: random shapes of ranks 0-5
//! with dims 0-3, every reduction, every axis and pair of axes (positive and negative), both
//! keepdims settings; the accuracy of float sums; `sum_to` as the adjoint of broadcasting; and
//! the error of each misuse, with its text.

use crate::common;

use common::Lcg;
use shaped::{DynTensor, ErrorKind};

/// `f` folded over the input elements that map to each output position (keepdims shape), in
/// row-major order of the reduced axes.
fn reference<T: Copy, A: Clone>(
    shape: &[usize],
    data: &[T],
    reduced: &[bool],
    init: A,
    f: impl Fn(A, usize, T) -> A,
) -> (Vec<usize>, Vec<A>) {
    let out_shape: Vec<usize> = shape
        .iter()
        .zip(reduced)
        .map(|(&d, &r)| if r { 1 } else { d })
        .collect();
    let out_idx = common::indices(&out_shape);
    let mut out = vec![init; out_idx.len()];
    for (flat, idx) in common::indices(shape).iter().enumerate() {
        let target: Vec<usize> = idx
            .iter()
            .zip(reduced)
            .map(|(&i, &r)| if r { 0 } else { i })
            .collect();
        let o = out_idx.iter().position(|t| *t == target).unwrap();
        // The position along the reduced axes, row-major (for argmax with one axis: the index).
        let k = idx
            .iter()
            .zip(shape)
            .zip(reduced)
            .filter(|&(_, &r)| r)
            .fold(0, |acc, ((&i, &d), _)| acc * d + i);
        out[o] = f(out[o].clone(), k, data[flat]);
    }
    (out_shape, out)
}

fn drop_reduced(shape: &[usize], reduced: &[bool]) -> Vec<usize> {
    shape
        .iter()
        .zip(reduced)
        .filter(|&(_, &r)| !r)
        .map(|(&d, _)| d)
        .collect()
}

#[test]
fn every_reduction_matches_the_reference_on_random_shapes() {
    let mut rng = Lcg(7);
    let mut cases = 0;
    for _ in 0..300 {
        let rank = rng.below(6);
        let shape: Vec<usize> = (0..rank).map(|_| rng.below(4)).collect();
        let n: usize = shape.iter().product();
        let ints: Vec<i64> = (0..n).map(|_| rng.below(7) as i64 - 3).collect();
        let floats: Vec<f64> = ints.iter().map(|&x| x as f64 * 0.5).collect();
        let bools: Vec<bool> = ints.iter().map(|&x| x > 0).collect();
        let ti = DynTensor::from_shape_vec(&shape, ints.clone()).unwrap();
        let tf = DynTensor::from_shape_vec(&shape, floats.clone()).unwrap();
        let tb = DynTensor::from_shape_vec(&shape, bools.clone()).unwrap();
        // Every single axis, each pair, and all axes; negative spellings half the time.
        let mut axis_sets: Vec<Vec<usize>> = (0..rank).map(|a| vec![a]).collect();
        for a in 0..rank {
            for b in a + 1..rank {
                axis_sets.push(vec![a, b]);
            }
        }
        axis_sets.push((0..rank).collect());
        for axes in axis_sets {
            let reduced: Vec<bool> = (0..rank).map(|a| axes.contains(&a)).collect();
            let given: Vec<i64> = axes
                .iter()
                .map(|&a| {
                    if rng.below(2) == 0 {
                        a as i64
                    } else {
                        a as i64 - rank as i64
                    }
                })
                .collect();
            // Every axis said as `Axes::All` half the time; rank 0 has only `Nothing` (R5).
            let sel = if axes.len() == rank && rng.below(2) == 0 {
                shaped::Axes::All
            } else if given.is_empty() {
                shaped::Axes::Nothing
            } else {
                shaped::Axes::List(&given)
            };
            let count: usize = axes.iter().map(|&a| shape[a]).product();
            let out_empty = drop_reduced(&shape, &reduced).iter().product::<usize>() == 0;
            for keepdims in [false, true] {
                let want_shape = |s: Vec<usize>| {
                    if keepdims {
                        s
                    } else {
                        drop_reduced(&s, &reduced)
                    }
                };
                let (s, want) = reference(&shape, &ints, &reduced, 0i64, |a, _, v| a + v);
                let got = ti.sum(sel, keepdims).unwrap();
                assert_eq!(
                    (got.shape(), got.as_slice()),
                    (&want_shape(s)[..], &want[..]),
                    "sum {shape:?} {given:?}"
                );
                let (_, want) = reference(&shape, &ints, &reduced, 1i64, |a, _, v| a * v);
                assert_eq!(ti.prod(sel, keepdims).unwrap().as_slice(), &want[..]);
                let (_, want) = reference(&shape, &floats, &reduced, 0.0, |a, _, v| a + v);
                let mean = tf.mean(sel, keepdims).unwrap();
                for (m, w) in mean.as_slice().iter().zip(&want) {
                    let w = w / count as f64;
                    assert!(
                        m == &w || (m.is_nan() && w.is_nan()),
                        "mean {shape:?} {given:?}"
                    );
                }
                let (_, want) = reference(&shape, &bools, &reduced, true, |a, _, v| a && v);
                assert_eq!(tb.all(sel, keepdims).unwrap().as_slice(), &want[..]);
                let (_, want) = reference(&shape, &bools, &reduced, false, |a, _, v| a || v);
                assert_eq!(tb.any(sel, keepdims).unwrap().as_slice(), &want[..]);
                if count == 0 && !out_empty {
                    let e = ti.max(sel, keepdims).unwrap_err();
                    assert!(matches!(e.kind(), ErrorKind::EmptyReduction { .. }));
                } else {
                    let (_, want) =
                        reference(&shape, &ints, &reduced, None, |a: Option<i64>, _, v| {
                            Some(a.map_or(v, |a| a.max(v)))
                        });
                    let want: Vec<i64> = want.into_iter().flatten().collect();
                    assert_eq!(ti.max(sel, keepdims).unwrap().as_slice(), &want[..]);
                    let (_, want) =
                        reference(&shape, &ints, &reduced, None, |a: Option<i64>, _, v| {
                            Some(a.map_or(v, |a| a.min(v)))
                        });
                    let want: Vec<i64> = want.into_iter().flatten().collect();
                    assert_eq!(ti.min(sel, keepdims).unwrap().as_slice(), &want[..]);
                    if axes.len() == 1 {
                        let (_, want) = reference(
                            &shape,
                            &ints,
                            &reduced,
                            None,
                            |a: Option<(usize, i64)>, k, v| match a {
                                Some((_, b)) if v <= b => a,
                                _ => Some((k, v)),
                            },
                        );
                        let want: Vec<usize> = want.into_iter().flatten().map(|(k, _)| k).collect();
                        assert_eq!(ti.argmax(given[0], keepdims).unwrap().as_slice(), &want[..]);
                        // The last of the largest (R6).
                        let (_, want) = reference(
                            &shape,
                            &ints,
                            &reduced,
                            None,
                            |a: Option<(usize, i64)>, k, v| match a {
                                Some((_, b)) if v < b => a,
                                _ => Some((k, v)),
                            },
                        );
                        let want: Vec<usize> = want.into_iter().flatten().map(|(k, _)| k).collect();
                        let got = ti.argmax_last(given[0], keepdims).unwrap();
                        assert_eq!(got.as_slice(), &want[..]);
                    }
                }
                cases += 1;
            }
        }
    }
    assert!(cases > 1000, "{cases}");
}

/// numpy sums floats pairwise; so does shaped, along a contiguous axis and across rows.
#[test]
fn float_sums_are_accurate() {
    let n = 10_000_000;
    let d = DynTensor::from_shape_vec([n], vec![0.1f32; n]).unwrap();
    let s = d.sum(&[0], false).unwrap().as_slice()[0];
    assert!((s - 1e6).abs() / 1e6 < 1e-5, "contiguous: {s}");
    let d = d.into_shape([n / 4, 4]).unwrap();
    for s in d.sum(&[0], false).unwrap().as_slice() {
        assert!((s - 2.5e5).abs() / 2.5e5 < 1e-5, "across rows: {s}");
    }
    // A naive loop is far off, which is why this matters.
    let naive = (0..n).fold(0.0f32, |a, _| a + 0.1);
    assert!((naive - 1e6).abs() / 1e6 > 0.05, "{naive}");
}

#[test]
fn nan_and_empty_reductions_follow_numpy() {
    let d = DynTensor::from_shape_vec([2, 2], vec![1.0, f64::NAN, f64::NAN, 2.0]).unwrap();
    assert!(d
        .max(&[1], false)
        .unwrap()
        .as_slice()
        .iter()
        .all(|x| x.is_nan()));
    assert_eq!(d.argmax(1, false).unwrap().as_slice(), &[1, 0]);
    assert_eq!(d.argmin(0, false).unwrap().as_slice(), &[1, 0]);
    let empty = DynTensor::<f64>::from_shape_vec([2, 0], vec![]).unwrap();
    assert_eq!(empty.sum(&[1], false).unwrap().as_slice(), &[0.0, 0.0]);
    assert_eq!(empty.prod(&[1], false).unwrap().as_slice(), &[1.0, 1.0]);
    assert!(empty.mean(&[1], false).unwrap().as_slice()[0].is_nan());
    let e = empty.max(&[1], false).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot reduce [2, 0] (max): axis 1 has no elements, and max of no elements has no value"
    );
    let e = empty.argmin(-1, true).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::EmptyReduction { axis: 1 });
    // Over axis 0 of [0, 3] the axis is empty and the output has 3 elements: an error. Over
    // axis 1 the output itself is empty, so no value is needed.
    let e03 = DynTensor::<i32>::from_shape_vec([0, 3], vec![]).unwrap();
    assert!(e03.max(&[0], false).is_err());
    assert_eq!(e03.max(&[1], false).unwrap().shape(), &[0]);
    // Reducing no axes changes nothing; an empty list is refused (R5).
    assert_eq!(
        d.sum(shaped::Axes::Nothing, true).unwrap().as_slice()[0],
        1.0
    );
    assert_eq!(d.sum(&[], true).unwrap_err().kind(), ErrorKind::NoAxes);
}

#[test]
fn axis_errors_name_the_axis_and_the_rank() {
    let d = DynTensor::from_shape_vec([2, 3], vec![0; 6]).unwrap();
    let cases: [(&[i64], ErrorKind, &str); 4] = [
        (
            &[2],
            ErrorKind::BadAxis { axis: 2, rank: 2 },
            "cannot reduce [2, 3] (sum): axis 2 is out of range for rank 2",
        ),
        (
            &[-3],
            ErrorKind::BadAxis { axis: -3, rank: 2 },
            "cannot reduce [2, 3] (sum): axis -3 is out of range for rank 2",
        ),
        (
            &[0, -2],
            ErrorKind::DuplicateAxis { axis: 0 },
            "cannot reduce [2, 3] (sum): axis 0 is given twice",
        ),
        (
            &[i64::MIN],
            ErrorKind::BadAxis {
                axis: i64::MIN,
                rank: 2,
            },
            "cannot reduce [2, 3] (sum): axis -9223372036854775808 is out of range for rank 2",
        ),
    ];
    for (axes, kind, text) in cases {
        let e = d.sum(axes, false).unwrap_err();
        assert_eq!((e.kind(), e.to_string().as_str()), (kind, text));
    }
    let scalar = DynTensor::scalar(5);
    assert_eq!(
        scalar.sum(shaped::Axes::Nothing, false).unwrap().as_slice(),
        &[5]
    );
    assert_eq!(
        scalar.sum(shaped::Axes::All, false).unwrap().as_slice(),
        &[5]
    );
    assert!(scalar.sum(&[0], false).is_err());
    assert!(d.argmax(2, false).is_err());
}

/// `a.broadcast_to(s).sum_to(a.shape())` is `a` times the stretch factor, for every shape pair
/// that broadcasts one-directionally.
#[test]
fn sum_to_is_the_adjoint_of_broadcasting() {
    let mut rng = Lcg(11);
    let mut checked = 0;
    for _ in 0..300 {
        let rank = rng.below(5);
        let big: Vec<usize> = (0..rank).map(|_| rng.below(4)).collect();
        let keep = rng.below(rank as u64 + 1);
        let small: Vec<usize> = big[rank - keep..]
            .iter()
            .map(|&d| if rng.below(2) == 0 { 1 } else { d })
            .collect();
        let n: usize = small.iter().product();
        let a = DynTensor::from_shape_vec(&small, (0..n as i64).collect()).unwrap();
        let stretched = a.broadcast_to(&big).unwrap();
        let back = stretched.sum_to(&small).unwrap();
        let factor = (big.iter().product::<usize>() / n.max(1)) as i64;
        assert_eq!(back.shape(), &small[..]);
        if n > 0 && big.iter().product::<usize>() > 0 {
            let want: Vec<i64> = a.as_slice().iter().map(|x| x * factor).collect();
            assert_eq!(back.as_slice(), &want[..], "{small:?} -> {big:?}");
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked}");
    let e = DynTensor::from_shape_vec([2, 3], vec![0; 6])
        .unwrap()
        .sum_to([4, 2, 3])
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot sum [2, 3] to [4, 2, 3] (sum_to): target_shape has smaller rank"
    );
}

/// Static reductions give what the runtime ones give, on each axis of several shapes.
#[test]
fn static_and_runtime_reductions_agree() {
    use shaped::{Shape, Tensor};
    macro_rules! agree {
        ($shape:ty, $dims:expr, $($axis:literal)*) => {{
            let n: usize = $dims.iter().product();
            let t = Tensor::<i64, $shape>::from_fn(|idx| {
                let flat = idx.iter().zip($dims.iter()).fold(0, |a, (&i, &d)| a * d + i);
                (flat as i64 * 7919) % 11 - 5
            });
            let d = t.to_dyn();
            assert_eq!(d.len(), n);
            let f = t.map(|&x| x as f64 / 4.0);
            let df = f.to_dyn();
            $(
                let a = $axis as i64;
                assert_eq!(t.sum_axis::<$axis>().as_slice(), d.sum(&[a], false).unwrap().as_slice());
                assert_eq!(t.sum_keepdims::<$axis>().shape().as_ref(), d.sum(&[a], true).unwrap().shape());
                assert_eq!(t.prod_axis::<$axis>().as_slice(), d.prod(&[a], false).unwrap().as_slice());
                assert_eq!(t.max_axis::<$axis>().as_slice(), d.max(&[a], false).unwrap().as_slice());
                assert_eq!(t.min_keepdims::<$axis>().as_slice(), d.min(&[a], true).unwrap().as_slice());
                assert_eq!(t.argmax_axis::<$axis>().as_slice(), d.argmax(a, false).unwrap().as_slice());
                assert_eq!(t.argmin_keepdims::<$axis>().as_slice(), d.argmin(a, true).unwrap().as_slice());
                assert_eq!(f.mean_axis::<$axis>().as_slice(), df.mean(&[a], false).unwrap().as_slice());
                let b = t.map(|&x| x > 0);
                let db = b.to_dyn();
                assert_eq!(b.all_axis::<$axis>().as_slice(), db.all(&[a], false).unwrap().as_slice());
                assert_eq!(b.any_keepdims::<$axis>().as_slice(), db.any(&[a], true).unwrap().as_slice());
            )*
        }};
    }
    agree!(Shape![2, 3, 4], [2usize, 3, 4], 0 1 2);
    agree!(Shape![1, 5], [1usize, 5], 0 1);
    agree!(Shape![7], [7usize], 0);
    agree!(Shape![3, 1, 2, 2], [3usize, 1, 2, 2], 0 1 2 3);
    // An empty axis: sums are 0; an empty output needs no value.
    let e = Tensor::<f32, Shape![2, 0, 3]>::from_fn(|_| 1.0);
    assert_eq!(e.sum_axis::<1>().as_slice(), &[0.0; 6]);
    assert_eq!(e.max_axis::<0>().shape(), [0, 3]);
    // sum_to agrees with the runtime one and undoes broadcast_to up to the stretch factor.
    let a = Tensor::<i64, Shape![3, 1]>::from([[1], [2], [3]]);
    let big = a.broadcast_to::<Shape![2, 3, 4]>();
    let back: Tensor<i64, Shape![3, 1]> = big.sum_to::<Shape![3, 1]>();
    assert_eq!(back.as_slice(), &[8, 16, 24]);
    assert_eq!(
        back.as_slice(),
        big.to_dyn().sum_to([3, 1]).unwrap().as_slice()
    );
    assert_eq!(big.sum_to::<Shape![]>().as_slice(), &[48]);
}

/// Static shapes of 4096 elements or more take the shared kernels (below, an unrolled loop
/// nest): both agree with the runtime reductions.
#[test]
fn large_static_reductions_take_the_shared_kernels_and_agree() {
    use shaped::{HeapTensor, Shape};
    let data: Vec<i64> = (0..64 * 80).map(|i| (i * 7919) % 23 - 11).collect();
    let t = HeapTensor::<i64, Shape![64, 80]>::from_vec(data.clone()).unwrap();
    let d = DynTensor::from_shape_vec([64, 80], data).unwrap();
    assert_eq!(
        t.sum_axis::<0>().as_slice(),
        d.sum(&[0], false).unwrap().as_slice()
    );
    assert_eq!(
        t.sum_keepdims::<1>().as_slice(),
        d.sum(&[1], true).unwrap().as_slice()
    );
    assert_eq!(
        t.prod_axis::<1>().as_slice(),
        d.prod(&[1], false).unwrap().as_slice()
    );
    assert_eq!(
        t.max_axis::<0>().as_slice(),
        d.max(&[0], false).unwrap().as_slice()
    );
    assert_eq!(
        t.min_axis::<1>().as_slice(),
        d.min(&[1], false).unwrap().as_slice()
    );
    assert_eq!(
        t.argmax_axis::<1>().as_slice(),
        d.argmax(1, false).unwrap().as_slice()
    );
    assert_eq!(
        t.argmin_keepdims::<0>().as_slice(),
        d.argmin(0, true).unwrap().as_slice()
    );
    let f = t.map(|&x| x as f32);
    let df = f.to_dyn();
    assert_eq!(
        f.mean_axis::<0>().as_slice(),
        df.mean(&[0], false).unwrap().as_slice()
    );
    let b = t.map(|&x| x > -8);
    let db = b.to_dyn();
    assert_eq!(
        b.all_axis::<1>().as_slice(),
        db.all(&[1], false).unwrap().as_slice()
    );
    assert_eq!(
        b.any_axis::<0>().as_slice(),
        db.any(&[0], false).unwrap().as_slice()
    );
    let s = t.sum_to::<Shape![1, 80]>();
    assert_eq!(s.as_slice(), d.sum_to([1, 80]).unwrap().as_slice());
}

/// Mixed shapes (`Dyn` dims among static ones): the same values and dims as `DynTensor` on
/// random dims 0-3, every reduction and axis; a `Dyn` dim stays `Dyn`.
#[test]
fn mixed_and_runtime_reductions_agree() {
    use shaped::{Shape, Tensor};
    let mut rng = Lcg(23);
    macro_rules! agree {
        ($shape:ty, $fixed:expr, $($axis:literal)*) => {{
            for _ in 0..40 {
                let dims: Vec<usize> = $fixed.iter().map(|f: &Option<usize>| f.unwrap_or_else(|| rng.below(4))).collect();
                let n: usize = dims.iter().product();
                let data: Vec<i64> = (0..n).map(|i| (i as i64 * 7919) % 11 - 5).collect();
                let t = Tensor::<i64, $shape>::from_shape_vec(&dims, data.clone()).unwrap();
                let d = DynTensor::from_shape_vec(&dims, data).unwrap();
                let f = t.map(|&x| x as f64 / 4.0);
                let df = f.to_dyn();
                let b = t.map(|&x| x > 0);
                let db = b.to_dyn();
                $(
                    let a = $axis as i64;
                    let (s, r) = (t.sum_axis::<$axis>(), d.sum(&[a], false).unwrap());
                    assert_eq!((s.shape().as_ref(), s.as_slice()), (r.shape(), r.as_slice()), "{dims:?} axis {a}");
                    assert_eq!(t.sum_keepdims::<$axis>().shape().as_ref(), d.sum(&[a], true).unwrap().shape());
                    assert_eq!(t.prod_keepdims::<$axis>().as_slice(), d.prod(&[a], true).unwrap().as_slice());
                    // Compared as text: the mean of an empty axis is NaN on both paths.
                    assert_eq!(format!("{:?}", f.mean_axis::<$axis>().to_dyn()), format!("{:?}", df.mean(&[a], false).unwrap()));
                    assert_eq!(b.all_axis::<$axis>().as_slice(), db.all(&[a], false).unwrap().as_slice());
                    assert_eq!(b.any_keepdims::<$axis>().as_slice(), db.any(&[a], true).unwrap().as_slice());
                    if dims[$axis] > 0 {
                        assert_eq!(t.max_axis::<$axis>().as_slice(), d.max(&[a], false).unwrap().as_slice());
                        assert_eq!(t.min_keepdims::<$axis>().as_slice(), d.min(&[a], true).unwrap().as_slice());
                        assert_eq!(t.argmax_axis::<$axis>().as_slice(), d.argmax(a, false).unwrap().as_slice());
                        assert_eq!(t.argmin_keepdims::<$axis>().as_slice(), d.argmin(a, true).unwrap().as_slice());
                    }
                )*
            }
        }};
    }
    agree!(Shape![_, 3, 4], [None, Some(3), Some(4)], 0 1 2);
    agree!(Shape![2, _, _], [Some(2), None, None], 0 1 2);
    agree!(Shape![_], [None], 0);
    agree!(Shape![_, 1, _, 2], [None, Some(1), None, Some(2)], 0 1 2 3);
    // Types: a `Dyn` dim stays `Dyn`; reducing it away leaves a static shape.
    let t = Tensor::<f32, Shape![_, 4]>::from_shape_vec([3, 4], vec![1.0; 12]).unwrap();
    let rows: Tensor<f32, Shape![_]> = t.sum_axis::<1>();
    let cols: Tensor<f32, Shape![4]> = t.sum_axis::<0>();
    let kept: Tensor<f32, Shape![1, 4]> = t.mean_keepdims::<0>();
    assert_eq!(
        (rows.shape(), cols.as_slice(), kept.as_slice()),
        ([3], &[3.0; 4][..], &[1.0; 4][..])
    );
    let centered = &t - kept;
    assert_eq!(centered.as_slice(), &[0.0; 12]);
    // Above the small-shape threshold, the shared kernels.
    let data: Vec<f32> = (0..128 * 64).map(|i| (i % 13) as f32).collect();
    let big = Tensor::<f32, Shape![_, 64]>::from_shape_vec([128, 64], data.clone()).unwrap();
    let d = DynTensor::from_shape_vec([128, 64], data).unwrap();
    assert_eq!(
        big.sum_axis::<0>().as_slice(),
        d.sum(&[0], false).unwrap().as_slice()
    );
    assert_eq!(
        big.max_keepdims::<1>().as_slice(),
        d.max(&[1], true).unwrap().as_slice()
    );
    assert_eq!(
        big.argmin_axis::<1>().as_slice(),
        d.argmin(1, false).unwrap().as_slice()
    );
}

#[test]
#[should_panic(
    expected = "cannot reduce [0, 4] (max): axis 0 has no elements, and max of no elements has no value"
)]
fn mixed_max_of_an_empty_dyn_axis_panics_with_the_error() {
    use shaped::{Shape, Tensor};
    let t = Tensor::<f32, Shape![_, 4]>::from_shape_vec([0, 4], vec![]).unwrap();
    let _ = t.max_axis::<0>();
}

/// R1: a negative static axis counts from the end, as at run time: `-1` is the last axis, the
/// same result type and elements as the axis counted from the start.
#[test]
fn r1_static_negative_axes_count_from_the_end() {
    use shaped::{Shape, Tensor};
    let x = Tensor::<f32, Shape![2, 3, 4]>::from_fn(|[i, j, k]| (i * 12 + j * 4 + k) as f32);
    let last: Tensor<f32, Shape![2, 3, 1]> = x.max_keepdims::<-1>();
    assert_eq!(last, x.max_keepdims::<2>());
    let mid: Tensor<f32, Shape![2, 4]> = x.sum_axis::<-2>();
    assert_eq!(mid, x.sum_axis::<1>());
    assert_eq!(x.argmin_axis::<-3>(), x.argmin_axis::<0>());
    assert_eq!(x.mean_keepdims::<-3>(), x.mean_keepdims::<0>());
    let m =
        Tensor::<f32, Shape![_, 4]>::from_shape_vec([3, 4], (0..12).map(|v| v as f32).collect())
            .unwrap();
    assert_eq!(m.sum_axis::<-1>().as_slice(), m.sum_axis::<1>().as_slice());
    assert_eq!(
        m.var_axis::<-2>(1).as_slice(),
        m.var_axis::<0>(1).as_slice()
    );
    assert_eq!(m.softmax::<-1>().as_slice(), m.softmax::<1>().as_slice());
    let col = Tensor::<f32, Shape![3, 1]>::from([[1.0], [2.0], [3.0]]);
    let v: shaped::TensorView<f32, Shape![3]> = col.squeeze::<-1>();
    assert_eq!(v.as_slice(), &[1.0, 2.0, 3.0]);
}

/// R5: every reduction takes `Axes::All` (every axis), `Axes::Nothing` (none: the input
/// unchanged) or a non-empty list; the empty list is an error with the same text for each.
#[test]
fn r5_the_axes_of_a_reduction_are_said_never_guessed() {
    use shaped::Axes;
    let d = DynTensor::from_shape_vec([2, 3], vec![1, -2, 3, 4, 5, -6]).unwrap();
    let f = DynTensor::from_shape_vec([2, 3], vec![1.0f64, -2.0, 3.0, 4.0, 5.0, -6.0]).unwrap();
    let b = DynTensor::from_shape_vec([2, 3], vec![true, true, false, true, true, true]).unwrap();
    // Every axis: one element, and [1, 1] with keepdims.
    assert_eq!(d.sum(Axes::All, false).unwrap().as_slice(), &[5]);
    assert_eq!(d.sum(Axes::All, true).unwrap().shape(), &[1, 1]);
    assert_eq!(d.prod(Axes::All, false).unwrap().as_slice(), &[720]);
    assert_eq!(d.max(Axes::All, false).unwrap().as_slice(), &[5]);
    assert_eq!(d.min(Axes::All, false).unwrap().as_slice(), &[-6]);
    assert_eq!(f.mean(Axes::All, false).unwrap().as_slice(), &[5.0 / 6.0]);
    assert_eq!(b.all(Axes::All, false).unwrap().as_slice(), &[false]);
    assert_eq!(b.any(Axes::All, false).unwrap().as_slice(), &[true]);
    // The same as listing every axis.
    assert_eq!(
        d.sum(Axes::All, true).unwrap(),
        d.sum(&[0, 1], true).unwrap()
    );
    // No axis: the input, whatever keepdims says.
    for keep in [false, true] {
        assert_eq!(d.sum(Axes::Nothing, keep).unwrap(), d);
        assert_eq!(d.max(Axes::Nothing, keep).unwrap(), d);
        assert_eq!(f.mean(Axes::Nothing, keep).unwrap(), f);
        assert_eq!(b.all(Axes::Nothing, keep).unwrap(), b);
    }
    // The empty list, as a slice, a Vec or a literal.
    let text = "no axes given: Axes::All reduces every axis (numpy's axis=None, ONNX's default), \
                Axes::Nothing none (numpy's axis=()) (R5)";
    let none: Vec<i64> = Vec::new();
    let errors = [
        ("sum", d.sum(&none, false).unwrap_err()),
        ("sum", d.sum(&[], true).unwrap_err()),
        ("prod", d.prod(&none[..], false).unwrap_err()),
        ("max", d.max(Axes::List(&[]), false).unwrap_err()),
        ("min", d.min(&none, false).unwrap_err()),
        ("mean", f.mean(&none, false).unwrap_err()),
        ("all", b.all(&none, false).unwrap_err()),
        ("any", b.any(&none, false).unwrap_err()),
        ("max", d.max_initial(&none, 0, false).unwrap_err()),
    ];
    for (op, e) in errors {
        assert_eq!(e.kind(), ErrorKind::NoAxes);
        assert_eq!(
            e.to_string(),
            format!("cannot reduce [2, 3] ({op}): {text}")
        );
    }
    // Rank 0: every axis is none of them; an empty input with every axis gives the identity.
    let s = DynTensor::scalar(7);
    assert_eq!(s.sum(Axes::All, true).unwrap().as_slice(), &[7]);
    assert_eq!(s.sum(Axes::All, true).unwrap().shape(), &[] as &[usize]);
    let e = DynTensor::<i32>::from_shape_vec([0, 4], vec![]).unwrap();
    assert_eq!(e.sum(Axes::All, false).unwrap().as_slice(), &[0]);
    assert_eq!(
        e.max(Axes::All, false).unwrap_err().kind(),
        ErrorKind::EmptyReduction { axis: 0 }
    );
    assert_eq!(
        shaped::rules::reduce_axes(&[1; 64], Axes::All, shaped::ReduceOp::Sum).unwrap(),
        u64::MAX
    );
}

/// R3: `max` and `min` from an initial value, numpy's `initial=`: it joins the elements, and
/// an empty axis gives it; the static, mixed and runtime paths agree, below and above the
/// size where the static path changes kernels.
#[test]
fn r3_max_and_min_from_an_initial_value() {
    use shaped::{Axes, Shape, Tensor};
    let d = DynTensor::from_shape_vec([2, 3], vec![1, 7, 3, -4, -2, -9]).unwrap();
    assert_eq!(d.max_initial(&[1], 0, false).unwrap().as_slice(), &[7, 0]);
    assert_eq!(d.min_initial(&[1], -5, true).unwrap().as_slice(), &[-5, -9]);
    assert_eq!(d.min_initial(&[1], -5, true).unwrap().shape(), &[2, 1]);
    assert_eq!(
        d.max_initial(Axes::All, 100, false).unwrap().as_slice(),
        &[100]
    );
    // numpy: np.max(x, axis=(), initial=0) is the elementwise maximum with 0.
    assert_eq!(
        d.max_initial(Axes::Nothing, 0, false).unwrap().as_slice(),
        &[1, 7, 3, 0, 0, 0]
    );
    // An empty axis: the initial value, where `max` has none; ONNX's ReduceMax of nothing.
    let e = DynTensor::<f32>::from_shape_vec([3, 0], vec![]).unwrap();
    assert_eq!(
        e.max(&[1], false).unwrap_err().kind(),
        ErrorKind::EmptyReduction { axis: 1 }
    );
    assert_eq!(
        e.max_initial(&[1], f32::NEG_INFINITY, false)
            .unwrap()
            .as_slice(),
        &[f32::NEG_INFINITY; 3]
    );
    assert_eq!(
        e.min_initial(&[-1, 0], f32::INFINITY, true)
            .unwrap()
            .as_slice(),
        &[f32::INFINITY]
    );
    assert_eq!(
        e.min_initial(&[-1, 0], f32::INFINITY, true)
            .unwrap()
            .shape(),
        &[1, 1]
    );
    // NaN: the initial value counts as the first element, so a NaN one gives NaN, and a NaN
    // element beats a number.
    let n = DynTensor::from_shape_vec([2], vec![1.0f32, f32::NAN]).unwrap();
    assert!(n.max_initial(&[0], 5.0, false).unwrap().as_slice()[0].is_nan());
    let one = DynTensor::from_shape_vec([1], vec![1.0f32]).unwrap();
    assert!(one.max_initial(&[0], f32::NAN, false).unwrap().as_slice()[0].is_nan());
    // Ties keep the first: -0.0 from the initial value before 0.0 from the data.
    let z = DynTensor::from_shape_vec([1], vec![0.0f32]).unwrap();
    assert_eq!(
        z.max_initial(&[0], -0.0, false).unwrap().as_slice()[0].to_bits(),
        (-0.0f32).to_bits()
    );

    // The typed paths against the runtime one, small (in-order fold) and large (the kernels).
    let small = Tensor::<i32, Shape![4, 5]>::from_fn(|[i, j]| ((i * 7 + j * 3) % 11) as i32 - 5);
    let big =
        Tensor::<f32, Shape![64, 80]>::from_fn(|[i, j]| ((i * 37 + j * 11) % 101) as f32 - 50.0);
    for init in [-3, 0, 4, 9] {
        let ds = DynTensor::from_shape_vec([4, 5], small.as_slice().to_vec()).unwrap();
        let mixed =
            Tensor::<i32, Shape![_, 5]>::from_shape_vec([4, 5], small.as_slice().to_vec()).unwrap();
        let want = ds.max_initial(&[1], init, false).unwrap();
        assert_eq!(
            small.max_axis_initial::<1>(init).as_slice(),
            want.as_slice()
        );
        assert_eq!(
            mixed.max_axis_initial::<1>(init).as_slice(),
            want.as_slice()
        );
        let want = ds.min_initial(&[0], init, true).unwrap();
        assert_eq!(
            small.min_keepdims_initial::<0>(init).as_slice(),
            want.as_slice()
        );
        assert_eq!(
            mixed.min_keepdims_initial::<0>(init).as_slice(),
            want.as_slice()
        );
        let db = DynTensor::from_shape_vec([64, 80], big.as_slice().to_vec()).unwrap();
        let fi = init as f32 * 12.0;
        assert_eq!(
            big.max_keepdims_initial::<0>(fi).as_slice(),
            db.max_initial(&[0], fi, true).unwrap().as_slice()
        );
        assert_eq!(
            big.min_axis_initial::<-1>(fi).as_slice(),
            db.min_initial(&[-1], fi, false).unwrap().as_slice()
        );
    }
    // A `Dyn` axis that turns out empty gives the initial value, never a panic.
    let em = Tensor::<f32, Shape![_, 3]>::from_shape_vec([0, 3], vec![]).unwrap();
    assert_eq!(em.max_axis_initial::<0>(-1.0).as_slice(), &[-1.0; 3]);
    let es = Tensor::<f32, Shape![2, 0]>::from([[], []]);
    assert_eq!(es.min_keepdims_initial::<1>(2.5).as_slice(), &[2.5; 2]);
}

/// R6: `argmax`/`argmin` take the first of equal extremes, `argmax_last`/`argmin_last` the
/// last (ONNX's `select_last_index`); NaN is an extreme both ways. The static, mixed and
/// runtime paths agree, on the in-order fold and on the shared kernel.
#[test]
fn r6_arg_extremes_choose_the_first_or_the_last_of_equals() {
    use shaped::{Shape, Tensor};
    let nan = f32::NAN;
    let d = DynTensor::from_shape_vec(
        [3, 4],
        vec![5.0, 1.0, 5.0, 0.0, 2.0, nan, 7.0, nan, 1.0, 1.0, 1.0, 1.0],
    )
    .unwrap();
    assert_eq!(d.argmax(-1, false).unwrap().as_slice(), &[0, 1, 0]);
    assert_eq!(d.argmax_last(-1, false).unwrap().as_slice(), &[2, 3, 3]);
    assert_eq!(d.argmin(-1, false).unwrap().as_slice(), &[3, 1, 0]);
    assert_eq!(d.argmin_last(-1, true).unwrap().as_slice(), &[3, 3, 3]);
    assert_eq!(d.argmin_last(-1, true).unwrap().shape(), &[3, 1]);
    // Along the first axis: column 1 holds a NaN in the middle.
    assert_eq!(d.argmax(0, false).unwrap().as_slice(), &[0, 1, 1, 1]);
    assert_eq!(d.argmax_last(0, false).unwrap().as_slice(), &[0, 1, 1, 1]);
    assert_eq!(d.argmin_last(0, false).unwrap().as_slice(), &[2, 1, 2, 1]);
    let e = DynTensor::<i32>::from_shape_vec([2, 0], vec![]).unwrap();
    assert_eq!(
        e.argmax_last(1, false).unwrap_err().to_string(),
        "cannot reduce [2, 0] (argmax): axis 1 has no elements, and argmax of no elements has no value"
    );

    let s = Tensor::<f32, Shape![3, 4]>::from_fn(|[i, j]| d.as_slice()[i * 4 + j]);
    let m = Tensor::<f32, Shape![_, 4]>::from_shape_vec([3, 4], d.as_slice().to_vec()).unwrap();
    assert_eq!(s.argmax_last_axis::<1>().as_slice(), &[2, 3, 3]);
    assert_eq!(m.argmax_last_axis::<1>().as_slice(), &[2, 3, 3]);
    assert_eq!(s.argmin_last_keepdims::<0>().as_slice(), &[2, 1, 2, 1]);
    assert_eq!(m.argmin_last_keepdims::<0>().as_slice(), &[2, 1, 2, 1]);
    assert_eq!(s.argmax_axis::<1>().as_slice(), &[0, 1, 0]);

    // Many ties, above the static kernel threshold: every path gives the runtime's indices.
    let big = Tensor::<i8, Shape![64, 80]>::from_fn(|[i, j]| ((i * 5 + j * 3) % 4) as i8);
    let db = DynTensor::from_shape_vec([64, 80], big.as_slice().to_vec()).unwrap();
    let mb =
        Tensor::<i8, Shape![_, 80]>::from_shape_vec([64, 80], big.as_slice().to_vec()).unwrap();
    for axis in [0usize, 1] {
        let a = axis as i64;
        let runs = [
            (
                db.argmax(a, false).unwrap(),
                db.argmax_last(a, false).unwrap(),
            ),
            (
                db.argmin(a, false).unwrap(),
                db.argmin_last(a, false).unwrap(),
            ),
        ];
        let (first, last) = &runs[0];
        // Each lane's first and last index of its maximum, by hand.
        let lanes = if axis == 0 { 80 } else { 64 };
        for lane in 0..lanes {
            let at = |k: usize| {
                if axis == 0 {
                    big.as_slice()[k * 80 + lane]
                } else {
                    big.as_slice()[lane * 80 + k]
                }
            };
            let n = if axis == 0 { 64 } else { 80 };
            let top = (0..n).map(at).max().unwrap();
            assert_eq!(
                first.as_slice()[lane],
                (0..n).position(|k| at(k) == top).unwrap()
            );
            assert_eq!(
                last.as_slice()[lane],
                (0..n).rposition(|k| at(k) == top).unwrap()
            );
        }
        let typed = if axis == 0 {
            [
                big.argmax_axis::<0>().as_slice().to_vec(),
                big.argmax_last_axis::<0>().as_slice().to_vec(),
                big.argmin_axis::<0>().as_slice().to_vec(),
                big.argmin_last_axis::<0>().as_slice().to_vec(),
                mb.argmax_last_axis::<0>().as_slice().to_vec(),
            ]
        } else {
            [
                big.argmax_axis::<1>().as_slice().to_vec(),
                big.argmax_last_axis::<1>().as_slice().to_vec(),
                big.argmin_axis::<1>().as_slice().to_vec(),
                big.argmin_last_axis::<1>().as_slice().to_vec(),
                mb.argmax_last_axis::<1>().as_slice().to_vec(),
            ]
        };
        assert_eq!(typed[0], runs[0].0.as_slice());
        assert_eq!(typed[1], runs[0].1.as_slice());
        assert_eq!(typed[2], runs[1].0.as_slice());
        assert_eq!(typed[3], runs[1].1.as_slice());
        assert_eq!(typed[4], runs[0].1.as_slice());
    }
}
