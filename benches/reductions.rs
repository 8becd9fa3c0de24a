//! Reductions against a hand-written loop and against ndarray (`sum_axis`, `mean_axis`), all in
//! one criterion run: f32 sums over the last and the first axis of 1024x1024, and
//! `x - x.mean_keepdims()` over the last axis of 4096x1024; then small static sums over each
//! axis of a 4x4 against the loop written for that shape.

use std::time::Duration;

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use ndarray::{Array2, Axis};
use shaped::{DynTensor, HeapTensor, Shape, Tensor};

fn data(n: usize) -> Vec<f32> {
    (0..n).map(|i| (i % 97) as f32 * 0.25 - 12.0).collect()
}

/// The loops a careful programmer writes by hand for each case.
mod hand {
    /// Row sums: one sequential sum per row.
    pub fn sum_last(x: &[f32], cols: usize, out: &mut [f32]) {
        for (o, row) in out.iter_mut().zip(x.chunks_exact(cols)) {
            *o = row.iter().sum();
        }
    }

    /// Column sums: rows added into the output, which vectorizes across the row.
    pub fn sum_first(x: &[f32], cols: usize, out: &mut [f32]) {
        out.fill(0.0);
        for row in x.chunks_exact(cols) {
            for (o, &v) in out.iter_mut().zip(row) {
                *o += v;
            }
        }
    }

    /// Each row minus its mean.
    pub fn center_rows(x: &[f32], cols: usize, out: &mut [f32]) {
        for (orow, row) in out.chunks_exact_mut(cols).zip(x.chunks_exact(cols)) {
            let mean = row.iter().sum::<f32>() / cols as f32;
            for (o, &v) in orow.iter_mut().zip(row) {
                *o = v - mean;
            }
        }
    }

    #[inline(never)]
    pub fn sum4x4_axis0(x: &[[f32; 4]; 4]) -> [f32; 4] {
        let mut out = [0.0; 4];
        for row in x {
            for (o, &v) in out.iter_mut().zip(row) {
                *o += v;
            }
        }
        out
    }

    #[inline(never)]
    pub fn sum4x4_axis1(x: &[[f32; 4]; 4]) -> [f32; 4] {
        let mut out = [0.0; 4];
        for (o, row) in out.iter_mut().zip(x) {
            *o = row[0] + row[1] + row[2] + row[3];
        }
        out
    }
}

#[inline(never)]
fn shaped_sum4x4_axis0(x: &Tensor<f32, Shape![4, 4]>) -> Tensor<f32, Shape![4]> {
    x.sum_axis::<0>()
}

#[inline(never)]
fn shaped_sum4x4_axis1(x: &Tensor<f32, Shape![4, 4]>) -> Tensor<f32, Shape![4]> {
    x.sum_axis::<1>()
}

fn large(c: &mut Criterion) {
    let (rows, cols) = (1024, 1024);
    let x = data(rows * cols);
    let d = DynTensor::from_shape_vec([rows, cols], x.clone()).unwrap();
    let h = HeapTensor::<f32, Shape![1024, 1024]>::from_vec(x.clone()).unwrap();
    let nd = Array2::from_shape_vec((rows, cols), x.clone()).unwrap();
    let mut out = vec![0.0f32; rows];

    let mut g = c.benchmark_group("sum last axis 1024x1024 f32");
    g.bench_function("hand loop", |b| {
        b.iter(|| hand::sum_last(black_box(&x), cols, &mut out))
    });
    g.bench_function("shaped DynTensor", |b| {
        b.iter(|| black_box(&d).sum(&[-1], false).unwrap())
    });
    g.bench_function("shaped static (heap)", |b| {
        b.iter(|| black_box(&h).sum_axis::<1>())
    });
    g.bench_function("ndarray sum_axis", |b| {
        b.iter(|| black_box(&nd).sum_axis(Axis(1)))
    });
    g.finish();

    let mut g = c.benchmark_group("sum first axis 1024x1024 f32");
    g.bench_function("hand loop", |b| {
        b.iter(|| hand::sum_first(black_box(&x), cols, &mut out))
    });
    g.bench_function("shaped DynTensor", |b| {
        b.iter(|| black_box(&d).sum(&[0], false).unwrap())
    });
    g.bench_function("shaped static (heap)", |b| {
        b.iter(|| black_box(&h).sum_axis::<0>())
    });
    g.bench_function("ndarray sum_axis", |b| {
        b.iter(|| black_box(&nd).sum_axis(Axis(0)))
    });
    g.finish();

    let (rows, cols) = (4096, 1024);
    let x = data(rows * cols);
    let d = DynTensor::from_shape_vec([rows, cols], x.clone()).unwrap();
    let h = HeapTensor::<f32, Shape![4096, 1024]>::from_vec(x.clone()).unwrap();
    let nd = Array2::from_shape_vec((rows, cols), x.clone()).unwrap();
    let mut out = vec![0.0f32; rows * cols];
    let mut g = c.benchmark_group("x - mean(x, last, keepdims) 4096x1024 f32");
    g.bench_function("hand loop", |b| {
        b.iter(|| hand::center_rows(black_box(&x), cols, &mut out))
    });
    g.bench_function("shaped DynTensor", |b| {
        b.iter(|| {
            let d = black_box(&d);
            d - &d.mean(&[-1], true).unwrap()
        })
    });
    g.bench_function("shaped static (heap)", |b| {
        b.iter(|| {
            let h = black_box(&h);
            h - &h.mean_keepdims::<1>()
        })
    });
    g.bench_function("ndarray mean_axis", |b| {
        b.iter(|| {
            let nd = black_box(&nd);
            nd - &nd.mean_axis(Axis(1)).unwrap().insert_axis(Axis(1))
        })
    });
    g.finish();
}

fn small(c: &mut Criterion) {
    let t = Tensor::<f32, Shape![4, 4]>::from_fn(|[i, j]| (i * 4 + j) as f32);
    let raw = t.into_inner();
    assert_eq!(
        shaped_sum4x4_axis0(&t).into_inner(),
        hand::sum4x4_axis0(&raw)
    );
    assert_eq!(
        shaped_sum4x4_axis1(&t).into_inner(),
        hand::sum4x4_axis1(&raw)
    );
    let mut g = c.benchmark_group("sum 4x4 f32");
    g.bench_function("axis 0 hand", |b| {
        b.iter(|| hand::sum4x4_axis0(black_box(&raw)))
    });
    g.bench_function("axis 0 shaped", |b| {
        b.iter(|| shaped_sum4x4_axis0(black_box(&t)))
    });
    g.bench_function("axis 1 hand", |b| {
        b.iter(|| hand::sum4x4_axis1(black_box(&raw)))
    });
    g.bench_function("axis 1 shaped", |b| {
        b.iter(|| shaped_sum4x4_axis1(black_box(&t)))
    });
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(30)
}

criterion_group! { name = benches; config = config(); targets = large, small }
criterion_main!(benches);
