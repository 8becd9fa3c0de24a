//! Static shapes too large for the stack (`[2, 512, 768]` f32: 3 MiB, more than a test
//! thread's 2 MiB stack) live on the heap, and every operation on them keeps its results
//! there: no stack overflow through `+`, `matmul`, reductions or `reshape`. The inline form of
//! the same shape does not compile (`ui-tests/tests/build_fail.rs`).

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
