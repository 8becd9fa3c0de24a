//! Instruction-count probe for callgrind: products of the middle range (above the static
//! unrolled loops, below the blocked gemm), the products of a transformer block and an MLP
//! written from the docs, each as a static tensor, a `DynTensor`, ndarray's `dot` and a hand
//! triple loop (`i`-`k`-`j`, each sum from its first term). `SHAPE` picks the case, `PROBE`
//! the variant (`static`, `dyn`, `ndarray`, `hand`); the work runs 100 times inside
//! `measured`, which callgrind counts alone:
//!
//! ```text
//! cargo bench --no-run --bench matmul_probe
//! SHAPE=8x32x64 PROBE=static valgrind --tool=callgrind --toggle-collect='matmul_probe::measured' \
//!     target/release/deps/matmul_probe-*[^.d]
//! ```
//!
//! Instructions per call = the total / 100. `./matmul_probe.sh` runs the whole table.

use std::hint::black_box;

use ndarray::{s, Array1, Array2, Array4};
use shaped::{DynTensor, Shape, Tensor};

const CALLS: usize = 100;

fn data(len: usize, seed: usize) -> Vec<f32> {
    (0..len)
        .map(|i| ((i * 37 + seed * 11) % 29) as f32 / 16.0 - 0.9)
        .collect()
}

/// Yields `values` in order, for `Tensor::from_fn` (which visits row-major).
fn filled<I>(values: &[f32]) -> impl FnMut(I) -> f32 + '_ {
    let mut it = values.iter().copied();
    move |_| it.next().unwrap()
}

/// `c = a b` for row-major `a` `[m, k]`, `b` `[k, n]`: `i`, `k`, `j`, the first pass over `k`
/// writing each row (the same sums, in the same order, as shaped's kernel).
#[inline(never)]
fn hand(a: &[f32], b: &[f32], c: &mut [f32], m: usize, k: usize, n: usize) {
    for i in 0..m {
        let row = &mut c[i * n..(i + 1) * n];
        let x = a[i * k];
        for (o, &y) in row.iter_mut().zip(&b[..n]) {
            *o = x * y;
        }
        for kk in 1..k {
            let x = a[i * k + kk];
            for (o, &y) in row.iter_mut().zip(&b[kk * n..(kk + 1) * n]) {
                *o += x * y;
            }
        }
    }
}

/// One plain product `[m, k] x [k, n]` in each variant.
macro_rules! plain {
    ($which:expr, $m:literal, $k:literal, $n:literal) => {{
        let (ad, bd) = (data($m * $k, 1), data($k * $n, 2));
        let sa = Tensor::<f32, Shape![$m, $k]>::from_fn(filled(&ad));
        let sb = Tensor::<f32, Shape![$k, $n]>::from_fn(filled(&bd));
        let (da, db) = (
            DynTensor::from_shape_vec([$m, $k], ad.clone()).unwrap(),
            DynTensor::from_shape_vec([$k, $n], bd.clone()).unwrap(),
        );
        let (na, nb) = (
            Array2::from_shape_vec(($m, $k), ad.clone()).unwrap(),
            Array2::from_shape_vec(($k, $n), bd.clone()).unwrap(),
        );
        let mut c = vec![0.0f32; $m * $n];
        let mut run = |which: &str| -> f32 {
            match which {
                "static" => black_box(&black_box(&sa).matmul(black_box(&sb))).as_slice()[1],
                "dyn" => black_box(&black_box(&da).matmul(black_box(&db)).unwrap()).as_slice()[1],
                "ndarray" => black_box(&black_box(&na).dot(black_box(&nb)))[[0, 1]],
                "hand" => {
                    hand(black_box(&ad), black_box(&bd), &mut c, $m, $k, $n);
                    black_box(&c)[1]
                }
                _ => 0.0,
            }
        };
        measured(&mut run, $which)
    }};
}

/// Attention's `[2, 4, 16, 16]` products: `q kᵀ` (`nt`) and `p v` (`nn`).
fn attention(which: &str, transposed: bool) -> f32 {
    let (ad, bd) = (data(2 * 4 * 16 * 16, 1), data(2 * 4 * 16 * 16, 2));
    type S = Shape![2, 4, 16, 16];
    let (sa, sb) = (
        Tensor::<f32, S>::from_fn(filled(&ad)),
        Tensor::<f32, S>::from_fn(filled(&bd)),
    );
    let (da, db) = (
        DynTensor::from_shape_vec([2, 4, 16, 16], ad.clone()).unwrap(),
        DynTensor::from_shape_vec([2, 4, 16, 16], bd.clone()).unwrap(),
    );
    let (na, nb) = (
        Array4::from_shape_vec((2, 4, 16, 16), ad.clone()).unwrap(),
        Array4::from_shape_vec((2, 4, 16, 16), bd.clone()).unwrap(),
    );
    let options = shaped::rules::MatMulOptions {
        transpose_a: false,
        transpose_b: transposed,
    };
    let mut c = vec![0.0f32; 2 * 4 * 16 * 16];
    let mut bt = vec![0.0f32; 16 * 16];
    let mut nc = Array4::<f32>::zeros((2, 4, 16, 16));
    let mut run = |which: &str| -> f32 {
        match which {
            "static" if transposed => {
                black_box(&black_box(&sa).matmul_nt(black_box(&sb))).as_slice()[1]
            }
            "static" => black_box(&black_box(&sa).matmul(black_box(&sb))).as_slice()[1],
            "dyn" => black_box(&black_box(&da).matmul_with(black_box(&db), options).unwrap())
                .as_slice()[1],
            "ndarray" => {
                let (na, nb) = (black_box(&na), black_box(&nb));
                for t in 0..2 {
                    for h in 0..4 {
                        let q: ndarray::ArrayView2<f32> = na.slice(s![t, h, .., ..]);
                        let k: ndarray::ArrayView2<f32> = nb.slice(s![t, h, .., ..]);
                        let p = if transposed { q.dot(&k.t()) } else { q.dot(&k) };
                        nc.slice_mut(s![t, h, .., ..]).assign(&p);
                    }
                }
                black_box(&nc)[[0, 0, 0, 1]]
            }
            "hand" => {
                for t in 0..8 {
                    let (a, b) = (&ad[t * 256..(t + 1) * 256], &bd[t * 256..(t + 1) * 256]);
                    let b = if transposed {
                        for (i, v) in bt.iter_mut().enumerate() {
                            *v = b[(i % 16) * 16 + i / 16];
                        }
                        &bt[..]
                    } else {
                        b
                    };
                    hand(
                        black_box(a),
                        black_box(b),
                        &mut c[t * 256..(t + 1) * 256],
                        16,
                        16,
                        16,
                    );
                }
                black_box(&c)[1]
            }
            _ => 0.0,
        }
    };
    measured(&mut run, which)
}

/// The MLP of the docs, batch 8: `softmax((relu(x w1 + b1)) w2 + b2)`, 32 -> 64 -> 10.
fn mlp(which: &str) -> f32 {
    let (xd, w1d, b1d, w2d, b2d) = (
        data(8 * 32, 1),
        data(32 * 64, 2),
        data(64, 3),
        data(64 * 10, 4),
        data(10, 5),
    );
    let x = Tensor::<f32, Shape![8, 32]>::from_fn(filled(&xd));
    let w1 = Tensor::<f32, Shape![32, 64]>::from_fn(filled(&w1d));
    let b1 = Tensor::<f32, Shape![64]>::from_fn(filled(&b1d));
    let w2 = Tensor::<f32, Shape![64, 10]>::from_fn(filled(&w2d));
    let b2 = Tensor::<f32, Shape![10]>::from_fn(filled(&b2d));
    let dx = DynTensor::from_shape_vec([8, 32], xd.clone()).unwrap();
    let dw1 = DynTensor::from_shape_vec([32, 64], w1d.clone()).unwrap();
    let db1 = DynTensor::from_shape_vec([64], b1d.clone()).unwrap();
    let dw2 = DynTensor::from_shape_vec([64, 10], w2d.clone()).unwrap();
    let db2 = DynTensor::from_shape_vec([10], b2d.clone()).unwrap();
    let nx = Array2::from_shape_vec((8, 32), xd.clone()).unwrap();
    let nw1 = Array2::from_shape_vec((32, 64), w1d.clone()).unwrap();
    let nb1 = Array1::from_vec(b1d.clone());
    let nw2 = Array2::from_shape_vec((64, 10), w2d.clone()).unwrap();
    let nb2 = Array1::from_vec(b2d.clone());
    let (mut h, mut y) = (vec![0.0f32; 8 * 64], vec![0.0f32; 8 * 10]);
    let mut run = |which: &str| -> f32 {
        match which {
            "static" => {
                let x = black_box(&x);
                let h = (x.matmul(&w1) + b1).relu();
                let y = (h.matmul(&w2) + b2).softmax::<-1>();
                black_box(&y).as_slice()[1]
            }
            "dyn" => {
                let x = black_box(&dx);
                let h = (x.matmul(&dw1).unwrap() + &db1).relu();
                let y = (h.matmul(&dw2).unwrap() + &db2).softmax(-1).unwrap();
                black_box(&y).as_slice()[1]
            }
            "ndarray" => {
                let x = black_box(&nx);
                let h = (x.dot(&nw1) + &nb1).mapv(|v| v.max(0.0));
                let mut y = h.dot(&nw2) + &nb2;
                for mut row in y.rows_mut() {
                    let top = row.fold(f32::NEG_INFINITY, |m, &v| m.max(v));
                    row.mapv_inplace(|v| (v - top).exp());
                    let sum = row.sum();
                    row.mapv_inplace(|v| v / sum);
                }
                black_box(&y)[[0, 1]]
            }
            "hand" => {
                hand(black_box(&xd), &w1d, &mut h, 8, 32, 64);
                for row in h.chunks_exact_mut(64) {
                    for (v, b) in row.iter_mut().zip(&b1d) {
                        *v = (*v + b).max(0.0);
                    }
                }
                hand(&h, &w2d, &mut y, 8, 64, 10);
                for row in y.chunks_exact_mut(10) {
                    let mut top = f32::NEG_INFINITY;
                    for (v, b) in row.iter_mut().zip(&b2d) {
                        *v += b;
                        top = top.max(*v);
                    }
                    let mut sum = 0.0;
                    for v in row.iter_mut() {
                        *v = (*v - top).exp();
                        sum += *v;
                    }
                    for v in row.iter_mut() {
                        *v /= sum;
                    }
                }
                black_box(&y)[1]
            }
            _ => 0.0,
        }
    };
    measured(&mut run, which)
}

/// The counted part: `CALLS` runs of the variant.
#[inline(never)]
fn measured(run: &mut dyn FnMut(&str) -> f32, which: &str) -> f32 {
    (0..CALLS).map(|_| run(which)).sum()
}

fn main() {
    let which = std::env::var("PROBE").unwrap_or_else(|_| "none".into());
    let shape = std::env::var("SHAPE").unwrap_or_else(|_| "8x32x64".into());
    let sum = match shape.as_str() {
        "8x32x64" => plain!(&which, 8, 32, 64),
        "8x64x10" => plain!(&which, 8, 64, 10),
        "16x16x16" => plain!(&which, 16, 16, 16),
        "32x64x64" => plain!(&which, 32, 64, 64),
        "32x64x256" => plain!(&which, 32, 64, 256),
        "32x256x64" => plain!(&which, 32, 256, 64),
        "attn_nt" => attention(&which, true),
        "attn_nn" => attention(&which, false),
        "mlp" => mlp(&which),
        other => panic!("unknown SHAPE {other}"),
    };
    println!("{shape} {which}: {sum}");
}
