//! Feature `rayon` on this machine's cores: the five large runtime cases, the fused
//! `relu(x + bias) * scale` primitive, the 1024x1024 sums, unary math and matrix products,
//! each on one thread (`single_threaded`) and on the whole pool, against ndarray's parallel
//! `Zip` into a preallocated output (`dot` for products), and against a single-threaded ceiling kernel with the same memory
//! traffic (a copy, a STREAM-style add, a fill). Then the pool's break-even size.
//!
//! ```text
//! cargo bench --features rayon --bench parallel
//! ```

use std::sync::atomic::{AtomicBool, Ordering};

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion};
use ndarray::{Array2, ArrayD, ArrayViewD, Axis, IxDyn, Zip};
use rayon::prelude::*;
use shaped::primitive::{Alg, Binary, Eltwise, Layout, MemMut, MemRef, PostOp};
use shaped::runtime::{binary_into, single_threaded, ArrayRef};
use shaped::{AutoBroadcast, BinaryOp, DynTensor};

#[path = "support/quick.rs"]
mod quick;
#[path = "support/relu_scale.rs"]
#[allow(dead_code)] // the NHWC loop is for the other benches
mod relu_scale;

fn data(n: usize, seed: f32) -> Vec<f32> {
    (0..n).map(|i| (i % 97) as f32 * 0.5 + seed).collect()
}

/// The ceiling kernels: one thread, the same bytes moved as the case, no arithmetic to speak
/// of.
mod ceiling {
    /// Reads the large operand once and writes the output once (a small second operand).
    pub fn copy(a: &[f32], out: &mut [f32]) {
        out.copy_from_slice(a);
    }
    /// Reads two operands and writes the output (equal shapes). Compiled for AVX2 where the
    /// CPU has it, as shaped's kernels are: the ceiling is the fastest loop this machine runs.
    pub fn stream_add(a: &[f32], b: &[f32], out: &mut [f32]) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: this CPU has AVX2 (checked just above).
            return unsafe { stream_add_avx2(a, b, out) };
        }
        stream_add_here(a, b, out)
    }
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn stream_add_avx2(a: &[f32], b: &[f32], out: &mut [f32]) {
        stream_add_here(a, b, out)
    }
    #[inline(always)]
    fn stream_add_here(a: &[f32], b: &[f32], out: &mut [f32]) {
        for ((o, x), y) in out.iter_mut().zip(a).zip(b) {
            *o = x + y;
        }
    }
    /// The 1024x1024+1x1024 add written out for its shape: each row of `a` plus the row `b`.
    /// Not a ceiling: it tells how much of the gap to `copy` any loop of this shape pays for
    /// its third stream (`b`, read from L1 on every row).
    pub fn row_add(a: &[f32], b: &[f32], out: &mut [f32]) {
        for (o, x) in out.chunks_exact_mut(b.len()).zip(a.chunks_exact(b.len())) {
            for ((o, x), y) in o.iter_mut().zip(x).zip(b) {
                *o = x + y;
            }
        }
    }
    /// Writes the output only (an outer sum reads next to nothing).
    pub fn fill(out: &mut [f32]) {
        out.fill(black_box(1.5));
    }
    use criterion::black_box;
}

fn large(c: &mut Criterion) {
    #[derive(Clone, Copy)]
    enum Ceiling {
        Copy,
        Stream,
        Fill,
    }
    let cases: [(&str, &[usize], &[usize], Ceiling); 5] = [
        ("1024x1024+1x1024", &[1024, 1024], &[1, 1024], Ceiling::Copy),
        ("1024x1+1x1024", &[1024, 1], &[1, 1024], Ceiling::Fill),
        (
            "64x64x64x16+1x64x1x16",
            &[64, 64, 64, 16],
            &[1, 64, 1, 16],
            Ceiling::Copy,
        ),
        (
            "8x256x56x56+1x256x1x1",
            &[8, 256, 56, 56],
            &[1, 256, 1, 1],
            Ceiling::Copy,
        ),
        (
            "2048x2048+2048x2048",
            &[2048, 2048],
            &[2048, 2048],
            Ceiling::Stream,
        ),
    ];
    for (name, sa, sb, ceiling) in cases {
        let out_shape = shaped::broadcast_shapes(sa, sb, AutoBroadcast::Numpy).unwrap();
        let n_out: usize = out_shape.iter().product();
        let (a, b) = (
            data(sa.iter().product(), 1.0),
            data(sb.iter().product(), 2.0),
        );
        let (da, db) = (
            DynTensor::from_shape_vec(sa, a.clone()).unwrap(),
            DynTensor::from_shape_vec(sb, b.clone()).unwrap(),
        );
        let mut out = vec![0.0f32; n_out];
        let add = |out: &mut [f32]| {
            binary_into(
                ArrayRef::new(sa, &a).unwrap(),
                ArrayRef::new(sb, &b).unwrap(),
                BinaryOp::Add,
                AutoBroadcast::Numpy,
                out,
            )
            .unwrap()
        };
        let av = ArrayViewD::from_shape(IxDyn(sa), &a).unwrap();
        let bv = ArrayViewD::from_shape(IxDyn(sb), &b).unwrap();
        let mut nd = ArrayD::<f32>::zeros(IxDyn(&out_shape));
        let mut g = c.benchmark_group(format!("parallel {name}"));
        g.sample_size(20);
        g.bench_function("binary_into, 1 thread", |bch| {
            bch.iter(|| single_threaded(|| add(&mut out)))
        });
        g.bench_function("binary_into, pool", |bch| bch.iter(|| add(&mut out)));
        g.bench_function("DynTensor, 1 thread", |bch| {
            bch.iter(|| single_threaded(|| black_box(&da).try_add(black_box(&db)).unwrap()))
        });
        g.bench_function("DynTensor, pool", |bch| {
            bch.iter(|| black_box(&da).try_add(black_box(&db)).unwrap())
        });
        g.bench_function("ndarray par_for_each", |bch| {
            bch.iter(|| {
                Zip::from(&mut nd)
                    .and_broadcast(&av)
                    .and_broadcast(&bv)
                    .par_for_each(|o, &x, &y| *o = x + y)
            })
        });
        g.bench_function("ceiling, 1 thread", |bch| match ceiling {
            Ceiling::Copy => bch.iter(|| ceiling::copy(black_box(&a), &mut out)),
            Ceiling::Stream => {
                bch.iter(|| ceiling::stream_add(black_box(&a), black_box(&b), &mut out))
            }
            Ceiling::Fill => bch.iter(|| ceiling::fill(&mut out)),
        });
        if name == "1024x1024+1x1024" {
            g.bench_function("hand loop, 1 thread", |bch| {
                bch.iter(|| ceiling::row_add(black_box(&a), black_box(&b), &mut out))
            });
        }
        // The same ceiling kernel on the pool, in as many chunks as shaped splits into: what
        // two threads can get out of this machine's caches and memory for this traffic.
        let chunk = n_out.div_ceil(rayon::current_num_threads() * 4);
        g.bench_function("ceiling, pool", |bch| match ceiling {
            Ceiling::Copy if n_out == a.len() => bch.iter(|| {
                out.par_chunks_mut(chunk)
                    .zip(a.par_chunks(chunk))
                    .for_each(|(o, x)| ceiling::copy(x, o))
            }),
            Ceiling::Copy | Ceiling::Fill => {
                bch.iter(|| out.par_chunks_mut(chunk).for_each(ceiling::fill))
            }
            Ceiling::Stream => bch.iter(|| {
                out.par_chunks_mut(chunk)
                    .zip(a.par_chunks(chunk).zip(b.par_chunks(chunk)))
                    .for_each(|(o, (x, y))| ceiling::stream_add(x, y, o))
            }),
        });
        g.finish();
    }
}

fn fused(c: &mut Criterion) {
    use relu_scale::{relu, source, C, HW};
    let dims = [1, C, 56, 56];
    let src = source(C * HW);
    let (bias, scale) = relu_scale::bias_and_scale();
    let mut dst = vec![0.0f32; C * HW];
    let a = MemRef::new(dims, &src, Layout::RowMajor).unwrap();
    let b = MemRef::new([1, C, 1, 1], &bias, Layout::RowMajor).unwrap();
    let s = MemRef::new([1, C, 1, 1], &scale, Layout::RowMajor).unwrap();
    let op = Binary::new(Alg::Add)
        .post_op(PostOp::Eltwise(Eltwise::Relu))
        .post_op(PostOp::binary(Alg::Mul, &s));
    let run = |dst: &mut [f32]| {
        let mut d = MemMut::new(dims, dst, Layout::RowMajor).unwrap();
        op.run_into(&a, &b, &mut d).unwrap();
    };
    let x = Array2::from_shape_vec((C, HW), src.clone()).unwrap();
    let mut nd = Array2::<f32>::zeros((C, HW));
    let (bias_col, scale_col) = (
        Array2::from_shape_vec((C, 1), bias.clone()).unwrap(),
        Array2::from_shape_vec((C, 1), scale.clone()).unwrap(),
    );
    let mut g = c.benchmark_group("parallel relu(x + bias) * scale 1x256x56x56");
    g.sample_size(20);
    g.bench_function("primitive, 1 thread", |bch| {
        bch.iter(|| single_threaded(|| run(&mut dst)))
    });
    g.bench_function("primitive, pool", |bch| bch.iter(|| run(&mut dst)));
    g.bench_function("ndarray par_for_each", |bch| {
        bch.iter(|| {
            Zip::from(&mut nd)
                .and(&x)
                .and_broadcast(&bias_col)
                .and_broadcast(&scale_col)
                .par_for_each(|o, &v, &b, &s| *o = relu(v + b) * s)
        })
    });
    g.bench_function("hand fused loop, 1 thread", |bch| {
        bch.iter(|| relu_scale::hand_fused(black_box(&src), &bias, &scale, &mut dst))
    });
    g.bench_function("ceiling, 1 thread", |bch| {
        bch.iter(|| ceiling::copy(black_box(&src), &mut dst))
    });
    let chunk = dst.len().div_ceil(rayon::current_num_threads() * 4);
    g.bench_function("ceiling, pool", |bch| {
        bch.iter(|| {
            dst.par_chunks_mut(chunk)
                .zip(src.par_chunks(chunk))
                .for_each(|(o, x)| ceiling::copy(x, o))
        })
    });
    g.finish();
}

fn sums(c: &mut Criterion) {
    let n = 1024;
    let x = data(n * n, 0.25);
    let t = DynTensor::from_shape_vec([n, n], x.clone()).unwrap();
    let nx = Array2::from_shape_vec((n, n), x.clone()).unwrap();
    let mut nd = ndarray::Array1::<f32>::zeros(n);
    for (axis, label) in [(1usize, "last"), (0, "first")] {
        let mut g = c.benchmark_group(format!("parallel sum {label} axis 1024x1024"));
        g.sample_size(20);
        g.bench_function("DynTensor, 1 thread", |bch| {
            bch.iter(|| single_threaded(|| t.sum(&[axis as i64], false).unwrap()))
        });
        g.bench_function("DynTensor, pool", |bch| {
            bch.iter(|| t.sum(&[axis as i64], false).unwrap())
        });
        g.bench_function("ndarray par_for_each over lanes", |bch| {
            bch.iter(|| {
                Zip::from(&mut nd)
                    .and(nx.lanes(Axis(axis)))
                    .par_for_each(|o, lane| *o = lane.sum())
            })
        });
        g.bench_function("max, DynTensor, 1 thread", |bch| {
            bch.iter(|| single_threaded(|| t.max(&[axis as i64], false).unwrap()))
        });
        g.bench_function("max, DynTensor, pool", |bch| {
            bch.iter(|| t.max(&[axis as i64], false).unwrap())
        });
        g.finish();
    }
}

/// Unary math and a method on 1024x1024 f32: GELU (tanh, a few dozen instructions an
/// element: compute-bound) and ReLU (a compare: memory-bound) through `DynTensor`, and
/// `maximum` on a mixed-shape tensor, against ndarray's parallel `Zip` with the same formula.
fn unary(c: &mut Criterion) {
    use shaped::{Shape, Tensor};
    let n = 1024;
    let x = data(n * n, -24.0)
        .iter()
        .map(|v| v / 16.0)
        .collect::<Vec<_>>();
    let t = DynTensor::from_shape_vec([n, n], x.clone()).unwrap();
    let mixed = Tensor::<f32, Shape![_, 1024]>::from_shape_vec([n, n], x.clone()).unwrap();
    let nx = Array2::from_shape_vec((n, n), x.clone()).unwrap();
    let mut nd = Array2::<f32>::zeros((n, n));
    let gelu = |v: f32| {
        let k = 0.797_884_6f32;
        0.5 * v * (1.0 + (k * (v + 0.044_715 * v * v * v)).tanh())
    };
    assert!((t.gelu_tanh()[[3, 5]] - gelu(x[3 * n + 5])).abs() < 1e-6);
    let mut g = c.benchmark_group("parallel unary 1024x1024");
    g.sample_size(20);
    g.bench_function("gelu, DynTensor, 1 thread", |bch| {
        bch.iter(|| single_threaded(|| t.gelu_tanh()))
    });
    g.bench_function("gelu, DynTensor, pool", |bch| bch.iter(|| t.gelu_tanh()));
    g.bench_function("gelu, ndarray par_for_each", |bch| {
        bch.iter(|| {
            Zip::from(&mut nd)
                .and(&nx)
                .par_for_each(|o, &v| *o = gelu(v))
        })
    });
    g.bench_function("relu, DynTensor, 1 thread", |bch| {
        bch.iter(|| single_threaded(|| t.relu()))
    });
    g.bench_function("relu, DynTensor, pool", |bch| bch.iter(|| t.relu()));
    g.bench_function("relu, ndarray par_for_each", |bch| {
        bch.iter(|| {
            Zip::from(&mut nd)
                .and(&nx)
                .par_for_each(|o, &v| *o = v.max(0.0))
        })
    });
    g.bench_function("maximum, mixed, 1 thread", |bch| {
        bch.iter(|| single_threaded(|| mixed.maximum(0.0)))
    });
    g.bench_function("maximum, mixed, pool", |bch| {
        bch.iter(|| mixed.maximum(0.0))
    });
    g.finish();
}

/// f32 matrix products split into blocks of output rows, one thread against the pool: 1024^3
/// (the blocked gemm's own speed), and 96^3 and 128^3 on either side of the threshold
/// (`MADDS_PER_ELEMENT`: a product of 128^3 multiply-adds is the first to split).
fn products(c: &mut Criterion) {
    let mut g = c.benchmark_group("parallel matmul");
    g.sample_size(20);
    for n in [96usize, 128, 1024] {
        let a = DynTensor::from_shape_vec([n, n], data(n * n, 0.5)).unwrap();
        let b = DynTensor::from_shape_vec([n, n], data(n * n, -0.25)).unwrap();
        g.bench_with_input(BenchmarkId::new("DynTensor, 1 thread", n), &n, |bch, _| {
            bch.iter(|| single_threaded(|| a.matmul(&b).unwrap()))
        });
        g.bench_with_input(BenchmarkId::new("DynTensor, pool", n), &n, |bch, _| {
            bch.iter(|| a.matmul(&b).unwrap())
        });
        let (na, nb) = (
            Array2::from_shape_vec((n, n), a.as_slice().to_vec()).unwrap(),
            Array2::from_shape_vec((n, n), b.as_slice().to_vec()).unwrap(),
        );
        g.bench_with_input(BenchmarkId::new("ndarray dot", n), &n, |bch, _| {
            bch.iter(|| na.dot(&nb))
        });
    }
    g.finish();
}

/// Contiguous f32 adds of growing size, one thread against the pool with the threshold
/// bypassed by making every size large enough: where splitting starts to pay.
fn threshold(c: &mut Criterion) {
    let mut g = c.benchmark_group("parallel break-even");
    g.sample_size(20);
    for shift in [14usize, 15, 16, 17, 18, 19] {
        let n = 1 << shift;
        let (a, b) = (data(n, 1.0), data(n, 2.0));
        let mut out = vec![0.0f32; n];
        let shape = [n];
        let add = |out: &mut [f32]| {
            binary_into(
                ArrayRef::new(&shape, &a).unwrap(),
                ArrayRef::new(&shape, &b).unwrap(),
                BinaryOp::Add,
                AutoBroadcast::Numpy,
                out,
            )
            .unwrap()
        };
        g.bench_with_input(BenchmarkId::new("1 thread", n), &n, |bch, _| {
            bch.iter(|| single_threaded(|| add(&mut out)))
        });
        let halves = |out: &mut [f32]| {
            let (lo, hi) = out.split_at_mut(n / 2);
            rayon::join(
                || ceiling::stream_add(&a[..n / 2], &b[..n / 2], lo),
                || ceiling::stream_add(&a[n / 2..], &b[n / 2..], hi),
            );
        };
        g.bench_with_input(BenchmarkId::new("2 halves on the pool", n), &n, |bch, _| {
            bch.iter(|| halves(&mut out))
        });
        // How shaped shares work from outside the pool: this thread takes one half at once,
        // a worker the other as soon as it wakes, and this thread spins for it at the end.
        let shared = |out: &mut [f32]| {
            let (lo, hi) = out.split_at_mut(n / 2);
            let done = AtomicBool::new(false);
            rayon::in_place_scope(|s| {
                s.spawn(|_| {
                    ceiling::stream_add(&a[n / 2..], &b[n / 2..], hi);
                    done.store(true, Ordering::Release);
                });
                ceiling::stream_add(&a[..n / 2], &b[..n / 2], lo);
                while !done.load(Ordering::Acquire) {
                    std::hint::spin_loop();
                }
            });
        };
        g.bench_with_input(
            BenchmarkId::new("this thread + a worker", n),
            &n,
            |bch, _| bch.iter(|| shared(&mut out)),
        );
    }
    g.finish();
}

/// The calls a user writes, timed as a user times them: each in a rayon pool of one thread
/// and in a pool of two (`ThreadPool::install`), the operators allocating their result. The
/// reference is a plain rayon loop writing a freshly allocated output of the same size: what
/// a second core gives a program that splits its own loop.
fn user_calls(c: &mut Criterion) {
    let n = 1024;
    let col = DynTensor::from_shape_vec([n, 1], data(n, 1.0)).unwrap();
    let row = DynTensor::from_shape_vec([1, n], data(n, 2.0)).unwrap();
    let x = DynTensor::from_shape_vec([n, n], data(n * n, 3.0)).unwrap();
    let (xs, rs) = (x.as_slice().to_vec(), row.as_slice().to_vec());
    let pools = [1, 2].map(|t| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build()
            .unwrap()
    });
    type Call<'a> = Box<dyn Fn() -> f32 + Sync + 'a>;
    let calls: [(&str, Call); 5] = [
        (
            "&col + &row 1024x1+1x1024",
            Box::new(|| (&col + &row)[[5, 5]]),
        ),
        (
            "&x + &row 1024x1024+1x1024",
            Box::new(|| (&x + &row)[[5, 5]]),
        ),
        (
            "row sums 1024x1024",
            Box::new(|| x.sum(&[1], false).unwrap()[[5]]),
        ),
        (
            "column sums 1024x1024",
            Box::new(|| x.sum(&[0], false).unwrap()[[5]]),
        ),
        (
            "plain rayon loop, fresh output",
            Box::new(|| {
                // An indexed collect: rayon writes each task's part straight into the
                // fresh vector (`n` is a power of two, so the mask is the row position).
                let out: Vec<f32> = (0..n * n)
                    .into_par_iter()
                    .map(|i| xs[i] + rs[i & (n - 1)])
                    .collect();
                out[5]
            }),
        ),
    ];
    for (name, call) in &calls {
        let mut g = c.benchmark_group(format!("parallel user {name}"));
        for pool in &pools {
            let threads = pool.current_num_threads();
            g.bench_function(format!("{threads} thread(s)"), |bch| {
                bch.iter(|| pool.install(|| black_box(call())))
            });
        }
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = quick::config();
    targets = threshold, large, fused, sums, unary, products, user_calls
}
criterion_main!(benches);
