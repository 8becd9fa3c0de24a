//! Reductions and permutations against a hand-written loop and against ndarray (`sum_axis`,
//! `mean_axis`, `permuted_axes` + `to_owned`), all in one criterion run: f32 sums over the last
//! and the first axis of 1024x1024, `x - x.mean_keepdims()` over the last axis of 4096x1024,
//! a 1024x1024 transpose and an NCHW to NHWC permutation of 8x64x56x56; then small static sums
//! over each axis of a 4x4 against the loop written for that shape.

use criterion::{black_box, criterion_group, criterion_main, Criterion};

#[path = "support/quick.rs"]
mod quick;
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

    /// The transpose of a square matrix, element by element in output order.
    pub fn transpose(x: &[f32], n: usize, out: &mut [f32]) {
        for i in 0..n {
            for j in 0..n {
                out[i * n + j] = x[j * n + i];
            }
        }
    }

    /// NCHW to NHWC, in output order.
    pub fn nchw_to_nhwc(x: &[f32], [n, c, h, w]: [usize; 4], out: &mut [f32]) {
        let mut o = 0;
        for b in 0..n {
            for y in 0..h {
                for z in 0..w {
                    for k in 0..c {
                        out[o] = x[((b * c + k) * h + y) * w + z];
                        o += 1;
                    }
                }
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

fn permute(c: &mut Criterion) {
    let n = 1024;
    let x = data(n * n);
    let d = DynTensor::from_shape_vec([n, n], x.clone()).unwrap();
    let h = HeapTensor::<f32, Shape![1024, 1024]>::from_vec(x.clone()).unwrap();
    let nd = Array2::from_shape_vec((n, n), x.clone()).unwrap();
    let mut out = vec![0.0f32; n * n];
    hand::transpose(&x, n, &mut out);
    assert_eq!(d.transpose().as_slice(), &out[..]);
    assert_eq!(h.transpose().as_slice(), &out[..]);
    let mut g = c.benchmark_group("transpose 1024x1024 f32");
    g.bench_function("hand loop", |b| {
        b.iter(|| hand::transpose(black_box(&x), n, &mut out))
    });
    g.bench_function("shaped DynTensor", |b| b.iter(|| black_box(&d).transpose()));
    g.bench_function("shaped static (heap)", |b| {
        b.iter(|| black_box(&h).transpose())
    });
    // ndarray's `to_owned` keeps the permuted strides (a copy in memory order); the
    // row-major result that shaped builds is `as_standard_layout`.
    g.bench_function("ndarray permuted_axes + to_owned", |b| {
        b.iter(|| black_box(&nd).view().permuted_axes([1, 0]).to_owned())
    });
    g.bench_function("ndarray permuted_axes + as_standard_layout", |b| {
        b.iter(|| {
            black_box(&nd)
                .view()
                .permuted_axes([1, 0])
                .as_standard_layout()
                .into_owned()
        })
    });
    g.finish();

    let dims = [8, 64, 56, 56];
    let x = data(dims.iter().product());
    let d = DynTensor::from_shape_vec(dims, x.clone()).unwrap();
    let nd = ndarray::Array4::from_shape_vec(dims, x.clone()).unwrap();
    let mut out = vec![0.0f32; x.len()];
    hand::nchw_to_nhwc(&x, dims, &mut out);
    assert_eq!(d.permute([0, 2, 3, 1]).unwrap().as_slice(), &out[..]);
    let mut g = c.benchmark_group("NCHW to NHWC 8x64x56x56 f32");
    g.bench_function("hand loop", |b| {
        b.iter(|| hand::nchw_to_nhwc(black_box(&x), dims, &mut out))
    });
    g.bench_function("shaped DynTensor", |b| {
        b.iter(|| black_box(&d).permute([0, 2, 3, 1]).unwrap())
    });
    g.bench_function("ndarray permuted_axes + to_owned", |b| {
        b.iter(|| black_box(&nd).view().permuted_axes([0, 2, 3, 1]).to_owned())
    });
    g.bench_function("ndarray permuted_axes + as_standard_layout", |b| {
        b.iter(|| {
            black_box(&nd)
                .view()
                .permuted_axes([0, 2, 3, 1])
                .as_standard_layout()
                .into_owned()
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

criterion_group! { name = benches; config = quick::config(); targets = large, permute, small }
criterion_main!(benches);
