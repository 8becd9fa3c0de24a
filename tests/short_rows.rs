//! Short inner rows: elementwise operations where one operand repeats with a short period along
//! the innermost axes (`[m, n]` with `[n]`, read through a tile of whole periods), and sums and
//! means over a leading axis whose rows are short (`[m, n]` over axis 0, read as wider rows).
//! Periods 1 to 7 and 12, row counts that are not multiples of what fits in a tile, zero-size
//! dims and rank 0, on the runtime, static and mixed paths: elementwise results bit for bit
//! against one element at a time, sums exactly on integers and against `f64` on floats.

use crate::common;

use common::{reference, Lcg};
use shaped::runtime::{binary_into, ArrayRef};
use shaped::{AutoBroadcast, BinaryOp, DynTensor, HeapTensor, Shape, Tensor};

const PERIODS: [usize; 8] = [1, 2, 3, 4, 5, 6, 7, 12];
/// Rows: one, fewer than a tile holds, not a multiple of a tile, and enough for the AVX2 loops.
const ROWS: [usize; 6] = [1, 2, 5, 23, 67, 700];

fn floats(rng: &mut Lcg, n: usize) -> Vec<f32> {
    (0..n)
        .map(|_| match rng.below(16) {
            0 => -0.0,
            1 => f32::INFINITY,
            _ => (rng.below(20_000) as f32 - 10_000.0) / 37.0,
        })
        .collect()
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// An operation and its element function.
type Op = (BinaryOp, fn(f32, f32) -> f32);

const OPS: [Op; 5] = [
    (BinaryOp::Add, |x, y| x + y),
    (BinaryOp::Sub, |x, y| x - y),
    (BinaryOp::Mul, |x, y| x * y),
    (BinaryOp::Div, |x, y| x / y),
    (BinaryOp::Maximum, |x, y| if y > x { y } else { x }),
];

/// Each shape pair: the repeating operand on either side, with and without leading 1s, with an
/// outer axis above the rows, and zero-size dims.
fn shape_pairs(m: usize, n: usize) -> Vec<(Vec<usize>, Vec<usize>)> {
    vec![
        (vec![m, n], vec![n]),
        (vec![n], vec![m, n]),
        (vec![m, n], vec![1, n]),
        (vec![3, m, n], vec![1, 1, n]),
        (vec![1, 1, n], vec![2, m, n]),
        (vec![2, m, n], vec![2, 1, n]),
        (vec![0, n], vec![n]),
        (vec![m, 0], vec![0]),
    ]
}

#[test]
fn runtime_operations_with_a_short_period_match_one_element_at_a_time() {
    let mut rng = Lcg(0x5407_0001);
    for n in PERIODS {
        for m in ROWS {
            for (sa, sb) in shape_pairs(m, n) {
                let a = floats(&mut rng, sa.iter().product());
                let b = floats(&mut rng, sb.iter().product());
                let ta = DynTensor::from_shape_vec(&sa[..], a.clone()).unwrap();
                let tb = DynTensor::from_shape_vec(&sb[..], b.clone()).unwrap();
                for (op, f) in OPS {
                    let (shape, want) = reference(&a, &sa, &b, &sb, f);
                    let what = format!("{sa:?} {op:?} {sb:?}");
                    let t = ta.binary(&tb, op, AutoBroadcast::Numpy).unwrap();
                    assert_eq!(t.shape(), &shape[..], "{what}");
                    assert_eq!(bits(t.as_slice()), bits(&want), "DynTensor {what}");
                    let mut out = vec![0.5f32; want.len()];
                    binary_into(
                        ArrayRef::new(&sa, &a).unwrap(),
                        ArrayRef::new(&sb, &b).unwrap(),
                        op,
                        AutoBroadcast::Numpy,
                        &mut out,
                    )
                    .unwrap();
                    assert_eq!(bits(&out), bits(&want), "binary_into {what}");
                }
            }
        }
    }
}

#[test]
fn rank_zero_and_integer_operations_with_a_short_period() {
    let s = DynTensor::from_shape_vec(&[][..], vec![2.5f32]).unwrap();
    let t = DynTensor::from_shape_vec(&[][..], vec![4.0f32]).unwrap();
    let r = s.binary(&t, BinaryOp::Sub, AutoBroadcast::Numpy).unwrap();
    assert_eq!((r.shape(), r.as_slice()), (&[][..], &[-1.5f32][..]));
    // Integers wrap in the tile as in the rows.
    let a: Vec<i32> = (0..700 * 5)
        .map(|i| (i32::MAX - 2).wrapping_add(i))
        .collect();
    let b: Vec<i32> = vec![1, 2, 3, -4, 5];
    let ta = DynTensor::from_shape_vec(&[700, 5][..], a.clone()).unwrap();
    let tb = DynTensor::from_shape_vec(&[5][..], b.clone()).unwrap();
    let (_, want) = reference(&a, &[700, 5], &b, &[5], |x: i32, y: i32| x.wrapping_add(y));
    let got = ta.binary(&tb, BinaryOp::Add, AutoBroadcast::Numpy).unwrap();
    assert_eq!(got.as_slice(), &want[..]);
    assert_eq!(got.as_slice()[..3], [i32::MAX - 1, i32::MIN, i32::MIN + 2]);
}

macro_rules! static_cases {
    ($($m:literal x $n:literal),*) => {$({
        let mut rng = Lcg(0x5407_0002 + $n);
        let a = floats(&mut rng, $m * $n);
        let b = floats(&mut rng, $n);
        let x = HeapTensor::<f32, Shape![$m, $n]>::from_vec(a.clone()).unwrap();
        let p = Tensor::<f32, Shape![$n]>::try_from(&b[..]).unwrap();
        let q = Tensor::<f32, Shape![2, 1, $n]>::try_from(&[&b[..], &b[..]].concat()[..]).unwrap();
        let what = concat!("[", $m, ", ", $n, "]");
        let (_, sub) = reference(&a, &[$m, $n], &b, &[$n], |x, y| x - y);
        let (_, div) = reference(&b, &[$n], &a, &[$m, $n], |x, y| x / y);
        let (_, add3) = reference(&a, &[1, $m, $n], &[&b[..], &b[..]].concat(), &[2, 1, $n], |x, y| x + y);
        assert_eq!(bits((&x - &p).as_slice()), bits(&sub), "static {}", what);
        assert_eq!(bits((&p / &x).as_slice()), bits(&div), "static {}", what);
        assert_eq!(bits((&x + &q).as_slice()), bits(&add3), "static {}", what);
        // Mixed: the row count at run time.
        let y = Tensor::<f32, Shape![_, $n]>::from_shape_vec([$m, $n], a.clone()).unwrap();
        assert_eq!(bits(y.try_sub(&p).unwrap().as_slice()), bits(&sub), "mixed {}", what);
        assert_eq!(bits(p.try_div(&y).unwrap().as_slice()), bits(&div), "mixed {}", what);
        let z = Tensor::<f32, Shape![_, _]>::from_shape_vec([$m, $n], a.clone()).unwrap();
        assert_eq!(bits(z.try_sub(&p).unwrap().as_slice()), bits(&sub), "mixed {}", what);
    })*};
}

#[test]
fn static_and_mixed_operations_with_a_short_period_match_one_element_at_a_time() {
    // From 4096 elements the static kernel takes the loop planner (and the tile).
    static_cases!(4160 x 1, 2048 x 2, 1367 x 3, 1025 x 4, 821 x 5, 683 x 6, 587 x 7, 342 x 12, 700 x 3);
}

/// Column sums of `[m, n]` in `f64`.
fn column_sums(a: &[f32], m: usize, n: usize) -> Vec<f64> {
    (0..n)
        .map(|c| (0..m).map(|r| a[r * n + c] as f64).sum())
        .collect()
}

#[test]
fn sums_over_a_leading_axis_of_short_rows() {
    let mut rng = Lcg(0x5407_0003);
    for n in PERIODS {
        for m in [0, 1, 3, 4, 5, 23, 67, 700, 5000, 70_001] {
            // Integers: exact (and wrapping) whatever the order.
            let ints: Vec<i32> = (0..m * n).map(|_| rng.next() as i32).collect();
            let ti = DynTensor::from_shape_vec(&[m, n][..], ints.clone()).unwrap();
            let want: Vec<i32> = (0..n)
                .map(|c| (0..m).fold(0i32, |s, r| s.wrapping_add(ints[r * n + c])))
                .collect();
            assert_eq!(
                ti.sum(&[0], false).unwrap().as_slice(),
                &want[..],
                "[{m}, {n}]"
            );
            // Over axis 1 of [2, m, n]: the same columns, twice.
            let t3 =
                DynTensor::from_shape_vec(&[2, m, n][..], [&ints[..], &ints[..]].concat()).unwrap();
            assert_eq!(
                t3.sum(&[1], false).unwrap().as_slice(),
                &[&want[..], &want[..]].concat()[..]
            );
            // Floats: within a few roundings of the f64 sum.
            let a: Vec<f32> = (0..m * n)
                .map(|_| rng.below(1000) as f32 / 999.0 + 0.5)
                .collect();
            let t = DynTensor::from_shape_vec(&[m, n][..], a.clone()).unwrap();
            let exact = column_sums(&a, m, n);
            let got = t.sum(&[0], false).unwrap();
            let mean = t.mean(&[0], false).unwrap();
            assert_eq!(got.shape(), &[n][..]);
            for (c, &exact) in exact.iter().enumerate() {
                let s = got.as_slice()[c] as f64;
                assert!(
                    (s - exact).abs() <= 2e-6 * exact.abs() + 1e-6,
                    "[{m}, {n}] column {c}: {s} against {exact}"
                );
                let mu = mean.as_slice()[c];
                if m == 0 {
                    assert!(mu.is_nan());
                } else {
                    assert_eq!(mu, (got.as_slice()[c] / m as f32), "mean [{m}, {n}]");
                }
            }
        }
    }
}

#[test]
fn static_and_mixed_sums_of_short_rows_agree_with_the_runtime_path() {
    let mut rng = Lcg(0x5407_0004);
    let a: Vec<f32> = (0..16384 * 3)
        .map(|_| rng.below(1000) as f32 / 7.0)
        .collect();
    let x = HeapTensor::<f32, Shape![16384, 3]>::from_vec(a.clone()).unwrap();
    let y = Tensor::<f32, Shape![_, 3]>::from_shape_vec([16384, 3], a.clone()).unwrap();
    let d = DynTensor::from_shape_vec(&[16384, 3][..], a.clone()).unwrap();
    let want = d.mean(&[0], false).unwrap();
    assert_eq!(bits(x.mean_axis::<0>().as_slice()), bits(want.as_slice()));
    assert_eq!(bits(y.mean_axis::<0>().as_slice()), bits(want.as_slice()));
    let exact = column_sums(&a, 16384, 3);
    for (c, &s) in d.sum(&[0], false).unwrap().as_slice().iter().enumerate() {
        assert!((s as f64 - exact[c]).abs() <= 1e-6 * exact[c]);
    }
}
