//! Static shapes too large for the stack (`[2, 512, 768]` f32: 3 MiB, more than a test
//! thread's 2 MiB stack) live on the heap, and every operation on them keeps its results
//! there: no stack overflow through `+`, `matmul`, reductions or `reshape`. The inline form of
//! the same shape does not compile, with an error at the caller's line that names `HeapTensor`
//! (`ui-tests/tests/build_fail.rs`).
//!
//! BERT-sized activations, `[128, 768]` (384 KiB) and `[2, 512, 768]` (3 MiB) of `f32`, go
//! through a layer norm and a matrix product, checked against sums in `f64`.

#![cfg(feature = "alloc")]
// By-reference operators are what users write for tensors that are used again.
#![allow(clippy::op_ref)]

use shaped::typed::storage::MAX_INLINE_BYTES;
use shaped::{HeapTensor, Shape, Tensor};

type Big = HeapTensor<f32, Shape![2, 512, 768]>;

fn big() -> Big {
    Big::from_fn(|[b, i, j]| ((b * 7 + i * 3 + j) % 11) as f32 - 5.0)
}

/// The value `big()` holds at `[b, i, j]`.
fn at(b: usize, i: usize, j: usize) -> f32 {
    ((b * 7 + i * 3 + j) % 11) as f32 - 5.0
}

#[test]
fn the_limit_is_64_kib_and_the_shape_exceeds_it() {
    assert_eq!(MAX_INLINE_BYTES, 65_536);
    assert_eq!(2 * 512 * 768 * core::mem::size_of::<f32>(), 3_145_728);
    // The largest f32 square that is still inline: 128 x 128, through a chain of operations
    // in a test thread (2 MiB of stack), debug builds included.
    let fits = Tensor::<f32, Shape![128, 128]>::from_fn(|[i, j]| (i * 128 + j) as f32);
    let sum = &fits + &fits;
    let product = fits.matmul(&fits.transpose());
    let centered = (&sum - &sum.mean_keepdims::<1>()).relu();
    let mut acc = fits;
    acc += &centered;
    assert_eq!(sum[[127, 127]], 2.0 * 16383.0);
    assert_eq!(
        product[[0, 1]],
        (0..128).map(|k| (k * (128 + k)) as f32).sum::<f32>()
    );
    assert_eq!(acc[[0, 0]], 0.0);
}

#[test]
fn add_of_a_large_static_shape_stays_on_the_heap() {
    let x = big();
    let y: HeapTensor<f32, Shape![2, 512, 768]> = &x + &x;
    assert_eq!(y.shape(), [2, 512, 768]);
    for (b, i, j) in [(0, 0, 0), (1, 511, 767), (1, 200, 3)] {
        assert_eq!(y[[b, i, j]], 2.0 * at(b, i, j));
    }
    // A bias broadcast over the rows (NUMPY), and in place.
    let bias = HeapTensor::<f32, Shape![768]>::from_fn(|[j]| j as f32);
    let mut z = &x + &bias;
    assert_eq!(z[[1, 5, 700]], at(1, 5, 700) + 700.0);
    z -= &bias;
    assert_eq!(z, x);
}

#[test]
fn matmul_of_a_large_static_shape_stays_on_the_heap() {
    let x = big();
    let w = HeapTensor::<f32, Shape![768, 64]>::from_fn(|[k, n]| ((k + n) % 3) as f32);
    let y: HeapTensor<f32, Shape![2, 512, 64]> = x.matmul(&w);
    for (b, i, n) in [(0, 0, 0), (1, 511, 63), (0, 17, 5)] {
        let expected: f32 = (0..768).map(|k| at(b, i, k) * ((k + n) % 3) as f32).sum();
        assert_eq!(y[[b, i, n]], expected, "[{b}, {i}, {n}]");
    }
}

#[test]
fn reductions_of_a_large_static_shape_stay_on_the_heap() {
    let x = big();
    let rows: HeapTensor<f32, Shape![2, 512]> = x.sum_axis::<2>();
    let expected: f32 = (0..768).map(|j| at(1, 100, j)).sum();
    assert_eq!(rows[[1, 100]], expected);
    let kept: HeapTensor<f32, Shape![2, 1, 768]> = x.max_keepdims::<1>();
    let expected = (0..512).map(|i| at(0, i, 9)).fold(f32::MIN, f32::max);
    assert_eq!(kept[[0, 0, 9]], expected);
    let mean: HeapTensor<f32, Shape![512, 768]> = x.mean_axis::<0>();
    assert_eq!(mean[[3, 4]], (at(0, 3, 4) + at(1, 3, 4)) / 2.0);
}

#[test]
fn reshape_of_a_large_static_shape_is_a_view() {
    let x = big();
    let flat = x.reshape::<Shape![1024, 768]>();
    assert_eq!(flat.shape(), [1024, 768]);
    assert_eq!(flat[[600, 10]], at(1, 600 - 512, 10));
    // A small result of a view of the large shape is inline, as any small result.
    let columns: Tensor<f32, Shape![768]> = flat.sum_axis::<0>();
    let expected: f32 = (0..2)
        .flat_map(|b| (0..512).map(move |i| at(b, i, 10)))
        .sum();
    assert_eq!(columns[[10]], expected);
}

/// The value of a BERT-sized activation at row `r` (over every leading axis), column `c`:
/// multiples of 1/4 in [-8, 9], a different mean in each row. Every product with the integer
/// weights of `weight` and every sum of 768 of them is a multiple of 1/4 below 2^13, so exact
/// in `f32` whatever the order of the additions.
fn activation(r: usize, c: usize) -> f32 {
    ((r * 7 + c * 3) % 17) as f32 - 8.0 + (r % 5) as f32 * 0.25
}

/// A `[768, 64]` weight of small integers.
fn weight(k: usize, n: usize) -> f32 {
    ((k * 5 + n * 11) % 7) as f32 - 3.0
}

/// Layer normalization of `x` over blocks of `block` consecutive elements, in `f64`: the mean,
/// then the mean of the squared deviations, as `layer_norm` does.
fn layer_norm_f64(x: &[f32], block: usize, epsilon: f64) -> Vec<f64> {
    let mut out = Vec::with_capacity(x.len());
    for lane in x.chunks(block) {
        let n = lane.len() as f64;
        let mean = lane.iter().map(|&v| f64::from(v)).sum::<f64>() / n;
        let var = lane
            .iter()
            .map(|&v| (f64::from(v) - mean).powi(2))
            .sum::<f64>()
            / n;
        let scale = 1.0 / (var + epsilon).sqrt();
        out.extend(lane.iter().map(|&v| (f64::from(v) - mean) * scale));
    }
    out
}

/// The largest difference between `got` and the `f64` reference, element by element.
fn max_error(got: &[f32], reference: &[f64]) -> f64 {
    assert_eq!(got.len(), reference.len());
    got.iter()
        .zip(reference)
        .map(|(&g, &r)| (f64::from(g) - r).abs())
        .fold(0.0, f64::max)
}

/// The tolerance of a layer norm in `f32` against `f64`, for these inputs (|x| <= 9, a
/// standard deviation above 4.5, so a scale below 0.23 and outputs below 4): the pairwise sums
/// of the mean and the variance err by at most log2(n) + 1 roundings of their terms (u = 2^-24
/// each), at most 20 for the 393216-element blocks: 20 * u * 9 < 1.1e-5 on the mean, which
/// the scale brings below 2.5e-6, and a relative 20 * u < 1.2e-6 on the variance, half that
/// on its inverse square root, below 2.5e-6 on an output below 4. With the roundings of the
/// subtraction and the product, 1e-5 bounds the error with room (measured: 1.7e-7). A
/// variance divided by n - 1 instead of n is off by 2.6e-3, a wrong block size by far more.
const LAYER_NORM_TOLERANCE: f64 = 1e-5;

#[cfg(any(feature = "std", feature = "libm"))]
#[test]
fn layer_norm_of_bert_sized_activations_matches_f64() {
    let x = HeapTensor::<f32, Shape![128, 768]>::from_fn(|[r, c]| activation(r, c));
    let y: HeapTensor<f32, Shape![128, 768]> = x.layer_norm::<1>(1e-5);
    let reference = layer_norm_f64(x.as_slice(), 768, 1e-5);
    let error = max_error(y.as_slice(), &reference);
    assert!(error < LAYER_NORM_TOLERANCE, "{error}");
    // Normalized: a row sums to 0 and its squares to 768 (up to epsilon).
    let row = &y.as_slice()[5 * 768..6 * 768];
    assert!(row.iter().map(|&v| f64::from(v)).sum::<f64>().abs() < 768.0 * LAYER_NORM_TOLERANCE);
    let squares: f64 = row.iter().map(|&v| f64::from(v).powi(2)).sum();
    assert!((squares - 768.0).abs() < 0.01, "{squares}");
    // The runtime path computes the same elements, bit for bit.
    let dynamic = x.to_dyn().layer_norm(-1, 1e-5).unwrap();
    assert_eq!(dynamic.shape(), [128, 768]);
    assert_eq!(dynamic.as_slice(), y.as_slice());

    let x = HeapTensor::<f32, Shape![2, 512, 768]>::from_fn(|[b, i, c]| activation(b * 512 + i, c));
    // Each 768-element row (BERT's layer norm), and each [512, 768] block.
    let rows: HeapTensor<f32, Shape![2, 512, 768]> = x.layer_norm::<2>(1e-5);
    let blocks: HeapTensor<f32, Shape![2, 512, 768]> = x.layer_norm::<1>(1e-5);
    let error = max_error(rows.as_slice(), &layer_norm_f64(x.as_slice(), 768, 1e-5));
    assert!(error < LAYER_NORM_TOLERANCE, "{error}");
    let error = max_error(
        blocks.as_slice(),
        &layer_norm_f64(x.as_slice(), 512 * 768, 1e-5),
    );
    assert!(error < LAYER_NORM_TOLERANCE, "{error}");
    let dynamic = x.to_dyn();
    assert_eq!(
        dynamic.layer_norm(2, 1e-5).unwrap().as_slice(),
        rows.as_slice()
    );
    assert_eq!(
        dynamic.layer_norm(1, 1e-5).unwrap().as_slice(),
        blocks.as_slice()
    );
}

#[test]
fn matmul_of_bert_sized_activations_is_exact() {
    let w = HeapTensor::<f32, Shape![768, 64]>::from_fn(|[k, n]| weight(k, n));
    // The exact product at row `r`, column `n`, summed in f64.
    let expected = |r: usize, n: usize| -> f64 {
        (0..768)
            .map(|k| f64::from(activation(r, k)) * f64::from(weight(k, n)))
            .sum()
    };

    let x = HeapTensor::<f32, Shape![128, 768]>::from_fn(|[r, c]| activation(r, c));
    let y: HeapTensor<f32, Shape![128, 64]> = x.matmul(&w);
    for r in 0..128 {
        for n in 0..64 {
            assert_eq!(f64::from(y[[r, n]]), expected(r, n), "[{r}, {n}]");
        }
    }
    // A [128, 768] result, itself too large to be inline: the activation times a [768, 768]
    // weight, checked on a diagonal of rows and columns.
    let square = HeapTensor::<f32, Shape![768, 768]>::from_fn(|[k, n]| weight(k, n % 64));
    let z: HeapTensor<f32, Shape![128, 768]> = x.matmul(&square);
    for r in 0..128 {
        let n = (r * 6) % 768;
        assert_eq!(f64::from(z[[r, n]]), expected(r, n % 64), "[{r}, {n}]");
    }
    let dynamic = x.to_dyn().matmul(&w.to_dyn()).unwrap();
    assert_eq!(
        (dynamic.shape(), dynamic.as_slice()),
        (&[128, 64][..], y.as_slice())
    );

    let x = HeapTensor::<f32, Shape![2, 512, 768]>::from_fn(|[b, i, c]| activation(b * 512 + i, c));
    let y: HeapTensor<f32, Shape![2, 512, 64]> = x.matmul(&w);
    for b in 0..2 {
        for i in 0..512 {
            for n in [0, 17, 63] {
                let r = b * 512 + i;
                assert_eq!(f64::from(y[[b, i, n]]), expected(r, n), "[{b}, {i}, {n}]");
            }
        }
    }
    let dynamic = x.to_dyn().matmul(&w.to_dyn()).unwrap();
    assert_eq!(dynamic.shape(), [2, 512, 64]);
    assert_eq!(dynamic.as_slice(), y.as_slice());
    // The mixed path: a runtime batch of 1024 rows, the same products.
    let mixed: Tensor<f32, Shape![_, 768]> =
        Tensor::from_shape_vec([1024, 768], x.as_slice().to_vec()).unwrap();
    let product = mixed.matmul(&w);
    assert_eq!(product.shape(), [1024, 64]);
    assert_eq!(product.as_slice(), y.as_slice());
}
