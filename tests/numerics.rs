//! Softmax, log-softmax, variance, standard deviation, layer and RMS normalization and the
//! sums of all elements, against outputs computed by the references themselves
//! (`tests/reference/numerics.py`: ONNX's reference evaluator and numpy; the data in
//! `tests/reference/numerics.txt`): random shapes, every axis (negative too), empty axes,
//! `ddof` past the count, lanes with NaN, infinities and values whose `exp` overflows. Static,
//! mixed and runtime tensors give the same bits (one kernel), checked on every static shape of
//! the data.
#![cfg(any(feature = "std", feature = "libm"))]

use std::str::FromStr;

use shaped::{DynTensor, Real, Shape, Tensor};

/// One line of the reference data.
struct Case {
    op: String,
    dtype: String,
    dims: Vec<usize>,
    params: Vec<String>,
    input: Vec<f64>,
    expected: Vec<f64>,
    extra: Vec<Vec<f64>>,
}

fn list<T: FromStr>(field: &str) -> Vec<T>
where
    T::Err: std::fmt::Debug,
{
    if field.trim() == "-" {
        return Vec::new();
    }
    field
        .split_whitespace()
        .map(|v| v.parse().unwrap())
        .collect()
}

fn cases() -> Vec<Case> {
    let text = include_str!("reference/numerics.txt");
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|line| {
            let f: Vec<&str> = line.split(" | ").collect();
            Case {
                op: f[0].to_string(),
                dtype: f[1].to_string(),
                dims: list(f[2]),
                params: f[3].split_whitespace().map(str::to_string).collect(),
                input: list(f[4]),
                expected: list(f[5]),
                extra: f[6..].iter().map(|e| list(e)).collect(),
            }
        })
        .collect()
}

/// Whether `got` matches the reference: NaN where it is NaN, infinities exactly, else within
/// a few units in the last place of the type (the summation orders differ).
fn close(got: f64, want: f64, f32: bool) -> bool {
    if want.is_nan() {
        return got.is_nan();
    }
    if want.is_infinite() {
        return got == want;
    }
    let (rel, abs) = if f32 { (4e-6, 2e-6) } else { (1e-12, 1e-13) };
    (got - want).abs() <= rel * want.abs() + abs
}

/// The element types of the data, each through the same runtime calls.
trait Float: Real + FromStr + Into<f64> {
    fn of(x: f64) -> Self;
}
impl Float for f32 {
    fn of(x: f64) -> Self {
        x as f32
    }
}
impl Float for f64 {
    fn of(x: f64) -> Self {
        x
    }
}

fn tensor<T: Float>(dims: &[usize], values: &[f64]) -> DynTensor<T> {
    DynTensor::from_shape_vec(dims, values.iter().map(|&v| T::of(v)).collect()).unwrap()
}

/// The runtime result of a case: its shape and elements.
fn run<T: Float>(c: &Case) -> (Vec<usize>, Vec<f64>) {
    let x = tensor::<T>(&c.dims, &c.input);
    let p = |i: usize| c.params[i].parse::<i64>().unwrap();
    let eps = || c.params[1].parse::<f32>().unwrap();
    let norm_dims = |axis: i64| {
        let a = if axis < 0 {
            axis + c.dims.len() as i64
        } else {
            axis
        } as usize;
        c.dims[a..].to_vec()
    };
    let y = match c.op.as_str() {
        "softmax" => x.softmax(p(0)).unwrap(),
        "log_softmax" => x.log_softmax(p(0)).unwrap(),
        "var" => x.var(&[p(0)], p(1) as usize, p(2) == 1).unwrap(),
        "std" => x.std(&[p(0)], p(1) as usize, p(2) == 1).unwrap(),
        "layer_norm" => x.layer_norm(p(0), eps()).unwrap(),
        "rms_norm" => x.rms_norm(p(0), eps()).unwrap(),
        "layer_norm_affine" => {
            let nd = norm_dims(p(0));
            let (s, b) = (tensor::<T>(&nd, &c.extra[0]), tensor::<T>(&nd, &c.extra[1]));
            x.layer_norm_scaled(p(0), eps(), Some(&s), Some(&b))
                .unwrap()
        }
        "rms_norm_scaled" => {
            let s = tensor::<T>(&norm_dims(p(0)), &c.extra[0]);
            x.rms_norm_scaled(p(0), eps(), Some(&s)).unwrap()
        }
        "sum_all" => DynTensor::from_shape_vec([1], vec![x.sum_all()]).unwrap(),
        "mean_all" => DynTensor::from_shape_vec([1], vec![x.mean_all()]).unwrap(),
        op => panic!("unknown op {op}"),
    };
    let values = y.iter().map(|&v| v.into()).collect();
    (y.shape().to_vec(), values)
}

#[test]
fn runtime_numerics_match_onnx_and_numpy() {
    let mut checked = 0;
    for c in cases() {
        let f32 = c.dtype == "float32";
        let (shape, got) = if f32 { run::<f32>(&c) } else { run::<f64>(&c) };
        let context = format!("{} {} {:?} {:?}", c.op, c.dtype, c.dims, c.params);
        assert_eq!(got.len(), c.expected.len(), "{context}");
        if !c.op.ends_with("_all") {
            let count: usize = shape.iter().product();
            assert_eq!(count, c.expected.len(), "{context}: shape {shape:?}");
        }
        for (k, (&g, &w)) in got.iter().zip(&c.expected).enumerate() {
            assert!(
                close(g, w, f32),
                "{context}: element {k} is {g}, the reference {w}"
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 948);
}

/// The keepdims flags and output shapes of var and std follow numpy's.
#[test]
fn var_and_std_shapes_follow_numpy() {
    let x = DynTensor::from_shape_vec([2, 3, 4], vec![1.0f64; 24]).unwrap();
    assert_eq!(x.var(&[1], 0, false).unwrap().shape(), &[2, 4]);
    assert_eq!(x.std(&[-1], 1, true).unwrap().shape(), &[2, 3, 1]);
    let e = x.var(&[3], 0, false).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot reduce [2, 3, 4] (var): axis 3 is out of range for rank 3"
    );
    let e = x.softmax(-4).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot reduce [2, 3, 4] (softmax): axis -4 is out of range for rank 3"
    );
    let s = DynTensor::scalar(2.0f64);
    assert_eq!(
        s.layer_norm(0, 1e-5).unwrap_err().to_string(),
        "cannot reduce [] (layer_norm): axis 0 is out of range for rank 0"
    );
    // A scale that does not broadcast onto the input.
    let bad = DynTensor::from_shape_vec([3], vec![1.0f64; 3]).unwrap();
    assert_eq!(
        x.rms_norm_scaled(-1, 1e-5, Some(&bad))
            .unwrap_err()
            .to_string(),
        "cannot broadcast [3] with [2, 3, 4] (broadcast_to numpy): axis 2 has 3 vs 4"
    );
}

/// Every static-shape method against the runtime one on the same data: the same bits.
macro_rules! agree_on {
    ($t:ty, $shape:ty, $mixed:ty, [$($a:literal)*], $x:expr) => {{
        let x: DynTensor<$t> = $x;
        let s = Tensor::<$t, $shape>::from_shape_vec(x.shape(), x.as_slice().to_vec()).unwrap();
        let m = Tensor::<$t, $mixed>::from_shape_vec(x.shape(), x.as_slice().to_vec()).unwrap();
        let bits = |v: &[$t]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(s.sum_all().to_bits(), x.sum_all().to_bits());
        assert_eq!(m.mean_all().to_bits(), x.mean_all().to_bits());
        $(
            let want = x.softmax($a).unwrap();
            assert_eq!(bits(s.softmax::<$a>().as_slice()), bits(want.as_slice()));
            assert_eq!(bits(m.softmax::<$a>().as_slice()), bits(want.as_slice()));
            let want = x.log_softmax($a).unwrap();
            assert_eq!(bits(s.log_softmax::<$a>().as_slice()), bits(want.as_slice()));
            assert_eq!(bits(m.log_softmax::<$a>().as_slice()), bits(want.as_slice()));
            for ddof in [0, 1, 5] {
                let want = x.var(&[$a], ddof, false).unwrap();
                assert_eq!(bits(s.var_axis::<$a>(ddof).as_slice()), bits(want.as_slice()));
                assert_eq!(bits(m.var_keepdims::<$a>(ddof).as_slice()), bits(want.as_slice()));
                let want = x.std(&[$a], ddof, true).unwrap();
                assert_eq!(bits(s.std_keepdims::<$a>(ddof).as_slice()), bits(want.as_slice()));
                assert_eq!(bits(m.std_axis::<$a>(ddof).as_slice()), bits(want.as_slice()));
            }
            let want = x.layer_norm($a, 1e-5).unwrap();
            assert_eq!(bits(s.layer_norm::<$a>(1e-5).as_slice()), bits(want.as_slice()));
            assert_eq!(bits(m.layer_norm::<$a>(1e-5).as_slice()), bits(want.as_slice()));
            let want = x.rms_norm($a, 0.5).unwrap();
            assert_eq!(bits(s.rms_norm::<$a>(0.5).as_slice()), bits(want.as_slice()));
            assert_eq!(bits(m.rms_norm::<$a>(0.5).as_slice()), bits(want.as_slice()));
        )*
    }};
}

#[test]
fn static_mixed_and_runtime_agree_bit_for_bit() {
    let mut seen = std::collections::HashSet::new();
    for c in cases() {
        // Each input once (the data repeats it for every operation).
        let key = (c.dtype.clone(), c.dims.clone(), format!("{:?}", c.input));
        if !seen.insert(key) {
            continue;
        }
        match (c.dtype.as_str(), c.dims.as_slice()) {
            ("float64", [2, 3, 4]) => {
                agree_on!(f64, Shape![2, 3, 4], Shape![_, 3, 4], [0 1 2], tensor(&c.dims, &c.input))
            }
            ("float32", [2, 3, 4]) => {
                agree_on!(f32, Shape![2, 3, 4], Shape![2, _, 4], [0 1 2], tensor(&c.dims, &c.input))
            }
            ("float64", [2, 0, 3]) => {
                agree_on!(f64, Shape![2, 0, 3], Shape![_, _, 3], [0 1 2], tensor(&c.dims, &c.input))
            }
            ("float64", [2, 3]) => {
                agree_on!(f64, Shape![2, 3], Shape![2, _], [0 1], tensor(&c.dims, &c.input))
            }
            ("float32", [6, 3]) => {
                agree_on!(f32, Shape![6, 3], Shape![_, 3], [0 1], tensor(&c.dims, &c.input))
            }
            _ => {}
        }
    }
    assert_eq!(seen.len(), 18);
}

/// S1: the maximum is subtracted first (no overflow), and NaN, `+inf` or only `-inf` in a
/// lane make it all NaN; an empty axis gives an empty result.
#[test]
fn s1_softmax_subtracts_the_maximum_and_its_edges_are_nan() {
    let x = DynTensor::from_shape_vec(
        [4, 2],
        vec![
            f64::NAN,
            1.0,
            f64::INFINITY,
            0.0,
            f64::NEG_INFINITY,
            f64::NEG_INFINITY,
            1e308,
            -1e308,
        ],
    )
    .unwrap();
    let p = x.softmax(1).unwrap();
    assert!(p.as_slice()[..6].iter().all(|v| v.is_nan()));
    assert_eq!(&p.as_slice()[6..], &[1.0, 0.0]);
    let big = DynTensor::from_shape_vec([2], vec![1000.0f32, 999.0]).unwrap();
    let q = big.softmax(0).unwrap();
    assert!(
        (q.as_slice()[0] - 0.7310586).abs() < 1e-6,
        "{:?}",
        q.as_slice()
    );
    let e = DynTensor::<f64>::from_shape_vec([2, 0], vec![]).unwrap();
    assert_eq!(e.softmax(1).unwrap().shape(), &[2, 0]);
    assert_eq!(e.softmax(0).unwrap().shape(), &[2, 0]);
}

/// S7: TFLite's float softmax sums the exponentials in order (S1 sums them pairwise) and
/// scales the differences by `beta`.
#[test]
fn s7_tflite_softmax_sums_in_order_and_scales_by_beta() {
    let row = [0.3f32, -1.7, 2.9, 0.01, -0.4];
    let x = Tensor::<f32, Shape![2, 5]>::from_fn(|[i, j]| row[j] * (i + 1) as f32);
    let mut y = Tensor::<f32, Shape![2, 5]>::zeros();
    x.tflite_softmax_into(0.5, &mut y).unwrap();
    for i in 0..2 {
        let lane: Vec<f32> = row.iter().map(|v| v * (i + 1) as f32).collect();
        let m = lane
            .iter()
            .fold(f32::MIN, |m, &v| if m < v { v } else { m });
        let e: Vec<f32> = lane.iter().map(|&v| ((v - m) * 0.5).exp()).collect();
        let sum = e.iter().fold(0.0f32, |s, &v| s + v);
        for j in 0..5 {
            assert_eq!(y[[i, j]].to_bits(), (e[j] / sum).to_bits(), "[{i}, {j}]");
        }
    }
    // An empty last axis: nothing to write. Rank 0: the error.
    let empty = Tensor::<f32, Shape![3, 0]>::zeros();
    let mut none = Tensor::<f32, Shape![3, 0]>::zeros();
    empty.tflite_softmax_into(1.0, &mut none).unwrap();
    let scalar = Tensor::<f32, Shape![]>::scalar(1.0);
    let mut out = Tensor::<f32, Shape![]>::scalar(0.0);
    let e = scalar.tflite_softmax_into(1.0, &mut out).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot reduce [] (softmax): axis -1 is out of range for rank 0"
    );
}

/// S8: TFLite's float LOGISTIC (its two cutoffs), TANH, RELU, RELU6 and MEAN over height and
/// width, each by its formula.
#[test]
fn s8_tflite_float_kernels_follow_its_formulas() {
    let x = Tensor::<f32, Shape![1, 2, 2, 2]>::from([[
        [[0.5, -10.0], [17.0, 3.0]],
        [[-0.25, 7.5], [f32::NAN, -2.0]],
    ]]);
    let mut y = Tensor::<f32, Shape![1, 2, 2, 2]>::zeros();
    x.tflite_logistic_into(&mut y).unwrap();
    let want = |v: f32| {
        if v > 16.619_047 {
            1.0
        } else if v < -9.0 {
            v.exp()
        } else {
            1.0 / (1.0 + (-v).exp())
        }
    };
    for (got, &v) in y.as_slice().iter().zip(x.as_slice()) {
        assert_eq!(got.to_bits(), want(v).to_bits(), "logistic({v})");
    }
    // Past the upper cutoff exactly 1; below -9 `exp(x)`, not `1 / (1 + exp(-x))`.
    assert_eq!(y[[0, 0, 1, 0]], 1.0);
    assert_eq!(y[[0, 0, 0, 1]], (-10.0f32).exp());
    x.tflite_tanh_into(&mut y).unwrap();
    assert_eq!(y[[0, 1, 0, 1]], 7.5f32.tanh());
    x.tflite_relu_into(false, &mut y).unwrap();
    assert_eq!(&y.as_slice()[..4], &[0.5, 0.0, 17.0, 3.0]);
    assert!(y[[0, 1, 1, 0]].is_nan());
    x.tflite_relu_into(true, &mut y).unwrap();
    assert_eq!(&y.as_slice()[..4], &[0.5, 0.0, 6.0, 3.0]);
    // The mean of each channel over the 2x2 window, NaN included; keep_dims or not.
    let mut m = Tensor::<f32, Shape![1, 2]>::zeros();
    x.tflite_mean_hw_into(&mut m).unwrap();
    assert!(m[[0, 0]].is_nan());
    assert_eq!(m[[0, 1]], (((-10.0f32 + 3.0) + 7.5) + -2.0) / 4.0);
    let mut kept = Tensor::<f32, Shape![1, 1, 1, 2]>::zeros();
    x.tflite_mean_hw_into(&mut kept).unwrap();
    assert_eq!(kept[[0, 0, 0, 1]], m[[0, 1]]);
    let mut wrong = Tensor::<f32, Shape![1, 3]>::zeros();
    let e = x.tflite_mean_hw_into(&mut wrong).unwrap_err();
    assert_eq!(
        e.to_string(),
        "destination [1, 3] is not [1, 2], the mean output"
    );
}

/// S2: finite where `ln(softmax)` would be `-inf`.
#[test]
fn s2_log_softmax_stays_finite_where_softmax_underflows() {
    let x = DynTensor::from_shape_vec([2], vec![0.0f32, -200.0]).unwrap();
    assert_eq!(x.softmax(0).unwrap().as_slice(), &[1.0, 0.0]);
    assert_eq!(x.log_softmax(0).unwrap().as_slice(), &[0.0, -200.0]);
    let n = DynTensor::from_shape_vec([2], vec![f64::NAN, 0.0]).unwrap();
    assert!(n.log_softmax(0).unwrap().iter().all(|v| v.is_nan()));
}

/// S3: numpy's two-pass variance; an empty axis is NaN, `ddof >= n` divides by 0.
#[test]
fn s3_var_and_std_divide_by_n_minus_ddof() {
    let x = DynTensor::from_shape_vec([4], vec![1.0f64, 2.0, 3.0, 4.0]).unwrap();
    assert_eq!(x.var(&[0], 0, false).unwrap().as_slice(), &[1.25]);
    assert_eq!(x.var(&[0], 1, false).unwrap().as_slice(), &[5.0 / 3.0]);
    assert_eq!(x.std(&[0], 0, true).unwrap().as_slice(), &[1.25f64.sqrt()]);
    assert_eq!(x.var(&[0], 4, false).unwrap().as_slice(), &[f64::INFINITY]);
    let same = DynTensor::from_shape_vec([2], vec![1.0f64, 1.0]).unwrap();
    assert!(same.var(&[0], 2, false).unwrap().as_slice()[0].is_nan());
    let e = DynTensor::<f64>::from_shape_vec([2, 0], vec![]).unwrap();
    assert!(e.var(&[1], 0, false).unwrap().iter().all(|v| v.is_nan()));
    assert_eq!(e.std(&[0], 0, false).unwrap().shape(), &[0]);
}

/// S4: ONNX's layer normalization over the axes from `a` on, then scale and bias (B5).
#[test]
fn s4_layer_norm_normalizes_the_trailing_block() {
    let x = DynTensor::from_shape_vec([2, 2], vec![1.0f64, 3.0, 5.0, 9.0]).unwrap();
    // Rows: mean 2, deviations 1, variance 1; mean 7, deviations 2, variance 4.
    let rows = x.layer_norm(-1, 0.0).unwrap();
    assert_eq!(rows.as_slice(), &[-1.0, 1.0, -1.0, 1.0]);
    let whole = x.layer_norm(0, 0.0).unwrap();
    let (mean, var) = (4.5, (12.25 + 2.25 + 0.25 + 20.25) / 4.0);
    let inv = 1.0 / f64::sqrt(var);
    let want: Vec<f64> = [1.0, 3.0, 5.0, 9.0]
        .iter()
        .map(|v| (v - mean) * inv)
        .collect();
    assert_eq!(whole.as_slice(), &want[..]);
    let g = DynTensor::from_shape_vec([2], vec![2.0f64, 10.0]).unwrap();
    let b = DynTensor::from_shape_vec([2], vec![0.5f64, -0.5]).unwrap();
    let y = x.layer_norm_scaled(1, 0.0, Some(&g), Some(&b)).unwrap();
    assert_eq!(y.as_slice(), &[-1.5, 9.5, -1.5, 9.5]);
    // A constant block with epsilon 0: 0 * (1 / 0), NaN, as the formula gives.
    let flat = DynTensor::from_shape_vec([2], vec![4.0f64, 4.0]).unwrap();
    assert!(flat.layer_norm(0, 0.0).unwrap().iter().all(|v| v.is_nan()));
    assert_eq!(flat.layer_norm(0, 1e-5).unwrap().as_slice(), &[0.0, 0.0]);
}

/// S5: ONNX's RMS normalization, then scale (B5).
#[test]
fn s5_rms_norm_divides_by_the_root_mean_square() {
    let x = DynTensor::from_shape_vec([1, 2], vec![3.0f64, 4.0]).unwrap();
    let inv = 1.0 / (12.5f64 + 0.5).sqrt();
    assert_eq!(
        x.rms_norm(1, 0.5).unwrap().as_slice(),
        &[3.0 * inv, 4.0 * inv]
    );
    let g = DynTensor::from_shape_vec([2], vec![2.0f64, 0.0]).unwrap();
    assert_eq!(
        x.rms_norm_scaled(-1, 0.5, Some(&g)).unwrap().as_slice(),
        &[3.0 * inv * 2.0, 0.0]
    );
}

/// S6: the pairwise sum of every element; the mean of none is NaN.
#[test]
fn s6_sum_all_and_mean_all() {
    let tenths = DynTensor::from_shape_vec([1000], vec![0.1f32; 1000]).unwrap();
    assert!(
        (tenths.sum_all() - 100.0).abs() < 1e-4,
        "{}",
        tenths.sum_all()
    );
    let t = Tensor::<f64, Shape![2, 2]>::from([[1.0, 2.0], [3.0, 4.0]]);
    assert_eq!((t.sum_all(), t.mean_all()), (10.0, 2.5));
    let e = DynTensor::<f64>::from_shape_vec([0, 3], vec![]).unwrap();
    assert_eq!(e.sum_all(), 0.0);
    assert!(e.mean_all().is_nan());
}

/// `f16` and `bf16` compute in `f32` and round once a result: each numeric's result is its
/// `f32` result (on the widened input) rounded, bit for bit, on a lane walked contiguously
/// (the last axis) and on one walked by index (the first axis).
#[cfg(feature = "half")]
#[test]
fn narrow_floats_round_the_f32_result_once() {
    use shaped::{bf16, f16};
    let values: Vec<f32> = (0..6 * 40)
        .map(|i| ((i * 37) % 101) as f32 / 12.5 - 4.0)
        .collect();
    macro_rules! check {
        ($t:ty) => {{
            let narrow = DynTensor::from_shape_vec(
                [6, 40],
                values.iter().map(|&v| <$t>::from_f32(v)).collect(),
            )
            .unwrap();
            let widened = narrow.map(|v| v.to_f32());
            let bits = |v: &DynTensor<$t>| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            let rounded = |v: DynTensor<f32>| v.map(|&x| <$t>::from_f32(x));
            for axis in [0, 1] {
                assert_eq!(
                    bits(&narrow.softmax(axis).unwrap()),
                    bits(&rounded(widened.softmax(axis).unwrap()))
                );
                assert_eq!(
                    bits(&narrow.log_softmax(axis).unwrap()),
                    bits(&rounded(widened.log_softmax(axis).unwrap()))
                );
            }
            assert_eq!(
                bits(&narrow.layer_norm(1, 1e-5).unwrap()),
                bits(&rounded(widened.layer_norm(1, 1e-5).unwrap()))
            );
            assert_eq!(
                bits(&narrow.rms_norm(0, 1e-5).unwrap()),
                bits(&rounded(widened.rms_norm(0, 1e-5).unwrap()))
            );
        }};
    }
    check!(f16);
    check!(bf16);
}

/// Deterministic values in about [-50, 50) with a common offset of 1000 (so a one-pass
/// variance would lose digits): element `i` of a data set `seed`.
fn offset_values(len: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            1000.0 + ((s >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 100.0
        })
        .collect()
}

/// The pairwise sum of `f(0) + ... + f(n - 1)` in `f32`, halves recursively, runs of 8 in
/// order: the order S3's sums take along a lane, written out here by index.
fn pairwise32(lo: usize, hi: usize, f: &dyn Fn(usize) -> f32) -> f32 {
    if hi - lo <= 8 {
        (lo..hi).fold(0.0, |s, k| s + f(k))
    } else {
        let mid = lo + (hi - lo) / 2;
        pairwise32(lo, mid, f) + pairwise32(mid, hi, f)
    }
}

/// A strided lane's sum of `f(k)` over its `n` rows in S3's order: pairwise by index, or, for
/// an inner width of 2 to 8 and at least `l = 16 / inner` rows, the `l` partial sums over
/// every `l`-th row of the first `n - n mod l` (each pairwise by index) added pairwise, then
/// the last `n mod l` rows' pairwise sum.
fn lane_sum32(n: usize, inner: usize, f: &dyn Fn(usize) -> f32) -> f32 {
    if !(2..=8).contains(&inner) || n < 16 / inner {
        return pairwise32(0, n, f);
    }
    let l = 16 / inner;
    let rows = n / l;
    let mut parts: Vec<f32> = (0..l)
        .map(|j| pairwise32(0, rows, &|k| f(k * l + j)))
        .collect();
    while parts.len() > 1 {
        let half = parts.len().div_ceil(2);
        for i in 0..parts.len() / 2 {
            parts[i] += parts[i + half];
        }
        parts.truncate(half);
    }
    parts[0] + pairwise32(rows * l, n, f)
}

/// S3 along an axis before the last (strided lanes, walked by whole rows): every lane of
/// `[outer, n, inner]` along axis 1, with inner widths below, at and past the sixteen columns
/// summed at once, gives the bits of the pairwise two-pass variance in S3's order
/// ([`lane_sum32`]), and is within a few `f32` roundings of the `f64` variance.
#[test]
fn s3_strided_lanes_match_the_lane_by_lane_sums() {
    for &(outer, n, inner) in &[
        (1, 100_000, 3),
        (1, 1000, 12),
        (2, 100, 16),
        (3, 9, 17),
        (2, 7, 40),
        (1, 1, 5),
        (4, 2, 1),
        (2, 37, 2),
        (3, 10, 5),
        (1, 33, 8),
    ] {
        let data = offset_values(outer * n * inner, (outer * n * inner) as u64);
        let x = DynTensor::from_shape_vec([outer, n, inner], data.clone()).unwrap();
        for ddof in [0, 1] {
            let var = x.var(&[1], ddof, false).unwrap();
            let std = x.std(&[-2], ddof, true).unwrap();
            assert_eq!(var.shape(), &[outer, inner]);
            assert_eq!(std.shape(), &[outer, 1, inner]);
            for o in 0..outer {
                for i in 0..inner {
                    let at = |k: usize| data[(o * n + k) * inner + i];
                    let mean = lane_sum32(n, inner, &at) / n as f32;
                    let ss = lane_sum32(n, inner, &|k| (at(k) - mean) * (at(k) - mean));
                    let want = ss / (n - ddof.min(n)) as f32;
                    let got = var.as_slice()[o * inner + i];
                    assert_eq!(
                        got.to_bits(),
                        want.to_bits(),
                        "{outer}x{n}x{inner} [{o}, {i}]"
                    );
                    assert_eq!(
                        std.as_slice()[o * inner + i].to_bits(),
                        got.sqrt().to_bits()
                    );
                    // Against f64: within 16 units of f32 rounding of the result.
                    let m64 = (0..n).map(|k| at(k) as f64).sum::<f64>() / n as f64;
                    let ss64: f64 = (0..n).map(|k| (at(k) as f64 - m64).powi(2)).sum();
                    let want64 = ss64 / (n - ddof.min(n)) as f64;
                    if want64.is_finite() && want64 > 0.0 {
                        let rel = ((got as f64 - want64) / want64).abs();
                        assert!(
                            rel < 16.0 * f32::EPSILON as f64,
                            "{outer}x{n}x{inner}: {rel}"
                        );
                    }
                }
            }
        }
    }
}

/// S3's edges along a leading axis: a lane of one element has variance 0 (`ddof` 0) and
/// divides by 0 past it (NaN: every deviation is 0); a zero-size axis gives NaN for every
/// lane; zero lanes give an empty result; `ddof` past `n` divides by 0 (`inf`).
#[test]
fn s3_strided_edges() {
    let one = DynTensor::from_shape_vec([1, 3], vec![1.0f32, -2.0, 7.5]).unwrap();
    assert_eq!(
        one.var(&[0], 0, false).unwrap().as_slice(),
        &[0.0, 0.0, 0.0]
    );
    assert!(one.std(&[0], 1, false).unwrap().iter().all(|v| v.is_nan()));
    let empty = DynTensor::<f32>::from_shape_vec([0, 20], vec![]).unwrap();
    let v = empty.var(&[0], 0, true).unwrap();
    assert_eq!(v.shape(), &[1, 20]);
    assert!(v.iter().all(|v| v.is_nan()));
    let no_lanes = DynTensor::<f32>::from_shape_vec([3, 4, 0], vec![]).unwrap();
    assert_eq!(no_lanes.std(&[1], 0, false).unwrap().shape(), &[3, 0]);
    let none_outer = DynTensor::<f32>::from_shape_vec([0, 4, 3], vec![]).unwrap();
    assert_eq!(none_outer.var(&[1], 0, false).unwrap().shape(), &[0, 3]);
    let x = DynTensor::from_shape_vec([2, 2], vec![1.0f32, 5.0, 3.0, 5.0]).unwrap();
    let past = x.var(&[0], 3, false).unwrap();
    assert_eq!(past.as_slice()[0], f32::INFINITY);
    assert!(past.as_slice()[1].is_nan());
    assert_eq!(x.var(&[0], 1, false).unwrap().as_slice(), &[2.0, 0.0]);
}

/// The strided path on static, mixed and runtime tensors: one kernel, the same bits, on
/// shapes whose inner width is past the sixteen columns summed at once.
#[test]
fn strided_var_agrees_across_paths() {
    let data = offset_values(5 * 37 * 19, 7);
    let x = DynTensor::from_shape_vec([5, 37, 19], data).unwrap();
    agree_on!(f32, Shape![5, 37, 19], Shape![_, 37, _], [0 1 2], x.clone());
    let data = offset_values(300 * 3, 9);
    let x = DynTensor::from_shape_vec([300, 3], data).unwrap();
    agree_on!(f32, Shape![300, 3], Shape![_, 3], [0 1], x.clone());
}

/// S3 over several axes: each result is the variance of its elements taken in row-major order
/// of the reduced axes, as one axis (adjacent axes merged in place, others moved last); every
/// subset of the axes of a rank-4 tensor, with keepdims, against that definition (the values
/// gathered by hand, then the one-axis kernel); no axis gives lanes of one.
#[test]
fn s3_var_over_several_axes_is_the_variance_of_the_axes_as_one() {
    let dims = [3usize, 4, 2, 5];
    let n: usize = dims.iter().product();
    let x: Vec<f64> = (0..n).map(|i| ((i * 37) % 23) as f64 * 0.5 - 3.0).collect();
    let t = DynTensor::from_shape_vec(dims, x.clone()).unwrap();
    for mask in 1u32..16 {
        let axes: Vec<i64> = (0..4).filter(|a| mask & (1 << a) != 0).collect();
        let kept: Vec<usize> = (0..4).filter(|a| mask & (1 << a) == 0).collect();
        let red: Vec<usize> = (0..4).filter(|a| mask & (1 << a) != 0).collect();
        let lanes: usize = kept.iter().map(|&a| dims[a]).product();
        let len: usize = red.iter().map(|&a| dims[a]).product();
        // Gather each lane in row-major order of the reduced axes.
        let mut gathered = vec![0.0f64; lanes * len];
        for (flat, &v) in x.iter().enumerate() {
            let mut idx = [0usize; 4];
            let mut r = flat;
            for a in (0..4).rev() {
                idx[a] = r % dims[a];
                r /= dims[a];
            }
            let lane = kept.iter().fold(0, |acc, &a| acc * dims[a] + idx[a]);
            let at = red.iter().fold(0, |acc, &a| acc * dims[a] + idx[a]);
            gathered[lane * len + at] = v;
        }
        let g = DynTensor::from_shape_vec([lanes, len], gathered).unwrap();
        for ddof in [0, 1] {
            let want = g.var(&[1], ddof, false).unwrap();
            let got = t.var(&axes[..], ddof, false).unwrap();
            let shape: Vec<usize> = kept.iter().map(|&a| dims[a]).collect();
            assert_eq!(got.shape(), &shape[..], "{axes:?}");
            // Summed in another order where the lane is strided (S3): equal to rounding.
            for (g, w) in got.iter().zip(want.iter()) {
                assert!(
                    (g - w).abs() <= 1e-14 * w.abs(),
                    "{axes:?} ddof {ddof}: {g} vs {w}"
                );
            }
            // Adjacent axes are the one merged axis of a reshape, bit for bit.
            if red.windows(2).all(|p| p[1] == p[0] + 1) {
                let (a, b) = (red[0], red[red.len() - 1] + 1);
                let before: usize = dims[..a].iter().product();
                let after: usize = dims[b..].iter().product();
                let merged = DynTensor::from_shape_vec([before, len, after], x.clone()).unwrap();
                let same = merged.var(&[1], ddof, false).unwrap();
                assert_eq!(got.as_slice(), same.as_slice(), "{axes:?} merged");
            }
            let kd = t.std(&axes[..], ddof, true).unwrap();
            let kshape: Vec<usize> = (0..4)
                .map(|a| if mask & (1 << a) != 0 { 1 } else { dims[a] })
                .collect();
            assert_eq!(kd.shape(), &kshape[..]);
            let roots: Vec<f64> = got.iter().map(|v| v.sqrt()).collect();
            assert_eq!(kd.as_slice(), &roots[..], "std {axes:?}");
        }
    }
    // Every axis, and no axis: lanes of one element have variance 0 (ddof 0).
    let all = t.var(shaped::rules::Axes::All, 0, false).unwrap();
    let flat = DynTensor::from_shape_vec([1, n], x.clone()).unwrap();
    assert_eq!(all.as_slice(), flat.var(&[1], 0, false).unwrap().as_slice());
    let none = t.var(shaped::rules::Axes::Nothing, 0, false).unwrap();
    assert_eq!(none.shape(), &dims);
    assert!(none.iter().all(|&v| v == 0.0));
    let e = t.var(&[1, 4], 0, false).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot reduce [3, 4, 2, 5] (var): axis 4 is out of range for rank 4"
    );
}

/// The one-axis forms of the runtime reductions agree with the static methods of the same
/// name (the axis a value there, a const here), and with the general form over a list.
#[test]
fn one_axis_forms_agree_with_the_static_methods() {
    use shaped::{Shape, Tensor};
    let s = Tensor::<f32, Shape![3, 4]>::from_fn(|[i, j]| ((i * 7 + j * 3) % 5) as f32 - 1.5);
    let d = s.to_dyn();
    assert_eq!(
        d.sum_axis(0).unwrap().as_slice(),
        s.sum_axis::<0>().as_slice()
    );
    assert_eq!(
        d.sum_keepdims(-1).unwrap().as_slice(),
        s.sum_keepdims::<-1>().as_slice()
    );
    assert_eq!(
        d.mean_axis(1).unwrap().as_slice(),
        s.mean_axis::<1>().as_slice()
    );
    assert_eq!(
        d.prod_keepdims(0).unwrap().as_slice(),
        s.prod_keepdims::<0>().as_slice()
    );
    assert_eq!(
        d.max_axis(1).unwrap().as_slice(),
        s.max_axis::<1>().as_slice()
    );
    assert_eq!(
        d.min_keepdims(0).unwrap().as_slice(),
        s.min_keepdims::<0>().as_slice()
    );
    assert_eq!(
        d.max_axis_initial(1, 10.0).unwrap().as_slice(),
        s.max_axis_initial::<1>(10.0).as_slice()
    );
    assert_eq!(
        d.argmin_axis(0).unwrap().as_slice(),
        s.argmin_axis::<0>().as_slice()
    );
    assert_eq!(
        d.argmax_last_keepdims(1).unwrap().as_slice(),
        s.argmax_last_keepdims::<1>().as_slice()
    );
    assert_eq!(
        d.var_axis(0, 1).unwrap().as_slice(),
        s.var_axis::<0>(1).as_slice()
    );
    assert_eq!(
        d.std_keepdims(1, 0).unwrap().as_slice(),
        s.std_keepdims::<1>(0).as_slice()
    );
    assert_eq!(d.sum_keepdims(1).unwrap(), d.sum(&[1], true).unwrap());
    assert_eq!(
        d.layer_norm(-1, 1e-5).unwrap().as_slice(),
        s.layer_norm::<-1>(1e-5).as_slice()
    );
    assert_eq!(
        d.rms_norm(1, 1e-5).unwrap().as_slice(),
        s.rms_norm::<1>(1e-5).as_slice()
    );
    let b = d.try_gt(&DynTensor::scalar(0.0)).unwrap();
    assert_eq!(b.any_axis(1).unwrap().shape(), &[3]);
    assert_eq!(
        d.sum_axis(2).unwrap_err().to_string(),
        "cannot reduce [3, 4] (sum): axis 2 is out of range for rank 2"
    );
}
