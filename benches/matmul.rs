//! Matrix products against hand-written loops and ndarray's `dot`, in one criterion run:
//! small static products (`[4, 4] x [4, 4]`, `[3, 3] x [3, 1]`, `[2, 8] x [8, 4]`) against the
//! triple loop written for each exact shape (instruction counts: `./benches/count_instructions.sh
//! matmul`), then f32 512x512x512 and a batched `[64, 64, 64] x [64, 64]`.

use criterion::{black_box, criterion_group, criterion_main, Criterion};

#[path = "support/quick.rs"]
mod quick;
use ndarray::{s, Array2, Array3};
use shaped::{DynTensor, HeapTensor, Shape, Tensor};

/// The triple loops one writes for an exact shape: `k` innermost, summed in order.
mod hand {
    macro_rules! product {
        ($name:ident, $m:literal, $k:literal, $n:literal) => {
            #[inline(never)]
            pub fn $name(a: &[[f32; $k]; $m], b: &[[f32; $n]; $k]) -> [[f32; $n]; $m] {
                let mut c = [[0.0; $n]; $m];
                for i in 0..$m {
                    for j in 0..$n {
                        let mut s = 0.0;
                        for k in 0..$k {
                            s += a[i][k] * b[k][j];
                        }
                        c[i][j] = s;
                    }
                }
                c
            }
        };
    }
    /// The same loops writing a flattened output, `c[i * n + j]`, as one writes them for a
    /// row-major buffer: the same source semantics, scheduled differently by LLVM.
    macro_rules! product_flat {
        ($name:ident, $m:literal, $k:literal, $n:literal) => {
            #[inline(never)]
            pub fn $name(a: &[[f32; $k]; $m], b: &[[f32; $n]; $k]) -> [[f32; $n]; $m] {
                let mut c = [[0.0; $n]; $m];
                let out = c.as_flattened_mut();
                for i in 0..$m {
                    for j in 0..$n {
                        let mut s = 0.0;
                        for k in 0..$k {
                            s += a[i][k] * b[k][j];
                        }
                        out[i * $n + j] = s;
                    }
                }
                c
            }
        };
    }
    /// The `c[i][j]` loops with each sum started from its first term, as shaped's kernel does
    /// (G6), rather than from `0.0`: one add fewer per element.
    macro_rules! product_first {
        ($name:ident, $m:literal, $k:literal, $n:literal) => {
            #[inline(never)]
            pub fn $name(a: &[[f32; $k]; $m], b: &[[f32; $n]; $k]) -> [[f32; $n]; $m] {
                let mut c = [[0.0; $n]; $m];
                for i in 0..$m {
                    for j in 0..$n {
                        let mut s = a[i][0] * b[0][j];
                        for k in 1..$k {
                            s += a[i][k] * b[k][j];
                        }
                        c[i][j] = s;
                    }
                }
                c
            }
        };
    }
    product_first!(first_4x4x4, 4, 4, 4);
    product_first!(first_3x3x1, 3, 3, 1);
    product_first!(first_2x8x4, 2, 8, 4);
    product_flat!(flat_4x4x4, 4, 4, 4);
    product_flat!(flat_3x3x1, 3, 3, 1);
    product_flat!(flat_2x8x4, 2, 8, 4);
    product!(matmul_4x4x4, 4, 4, 4);
    product!(matmul_3x3x1, 3, 3, 1);
    product!(matmul_2x8x4, 2, 8, 4);

    /// A large product in the loop order that vectorizes (`i`, `k`, `j`).
    pub fn matmul(a: &[f32], b: &[f32], c: &mut [f32], m: usize, k: usize, n: usize) {
        for i in 0..m {
            let row = &mut c[i * n..(i + 1) * n];
            row.fill(0.0);
            for kk in 0..k {
                let x = a[i * k + kk];
                for (o, &y) in row.iter_mut().zip(&b[kk * n..(kk + 1) * n]) {
                    *o += x * y;
                }
            }
        }
    }
}

/// shaped's product for an exact shape, with the hand loops' signature: the arrays become
/// tensors and back at no cost (the same instructions as a `&Tensor` signature), so that all
/// three variants can be timed through one call site.
macro_rules! shaped_product {
    ($name:ident, $m:literal, $k:literal, $n:literal) => {
        #[inline(never)]
        fn $name(a: &[[f32; $k]; $m], b: &[[f32; $n]; $k]) -> [[f32; $n]; $m] {
            let (a, b) = (Tensor::from(*a), Tensor::from(*b));
            let c: Tensor<f32, Shape![$m, $n]> = a.matmul(&b);
            c.into_inner()
        }
    };
}
shaped_product!(shaped_matmul_4x4x4, 4, 4, 4);
shaped_product!(shaped_matmul_3x3x1, 3, 3, 1);
shaped_product!(shaped_matmul_2x8x4, 2, 8, 4);

/// A product for one exact shape, by function pointer.
type Product<A, B, C> = fn(&A, &B) -> C;

/// Times each variant through the same call site (one closure, one indirect call), so that
/// only the callee differs. Identical callees at different addresses measured up to 7% apart
/// when each was called from its own closure (see `benches/README.md`).
fn small_case<A, B, C: PartialEq + std::fmt::Debug>(
    c: &mut Criterion,
    label: &str,
    variants: [(&str, Product<A, B, C>); 4],
    a: &A,
    b: &B,
) {
    let expected = variants[0].1(a, b);
    let mut g = c.benchmark_group(label);
    for (name, f) in variants {
        assert_eq!(f(a, b), expected, "{label}: {name}");
        g.bench_function(name, |bch| bch.iter(|| f(black_box(a), black_box(b))));
    }
    g.finish();
}

fn small(c: &mut Criterion) {
    macro_rules! case {
        ($label:literal, $m:literal, $k:literal, $n:literal, $hand:path, $flat:path, $first:path, $shaped:ident) => {{
            let a = Tensor::<f32, Shape![$m, $k]>::from_fn(|[i, j]| (i * 3 + j) as f32 * 0.5);
            let b = Tensor::<f32, Shape![$k, $n]>::from_fn(|[i, j]| (i + 2 * j) as f32 - 1.0);
            let variants: [(
                &str,
                Product<[[f32; $k]; $m], [[f32; $n]; $k], [[f32; $n]; $m]>,
            ); 4] = [
                ("hand loop", $hand),
                ("hand loop, flat output", $flat),
                ("hand loop, first term", $first),
                ("shaped", $shaped),
            ];
            small_case(c, $label, variants, &a.into_inner(), &b.into_inner());
        }};
    }
    case!(
        "matmul 4x4 x 4x4 f32",
        4,
        4,
        4,
        hand::matmul_4x4x4,
        hand::flat_4x4x4,
        hand::first_4x4x4,
        shaped_matmul_4x4x4
    );
    case!(
        "matmul 3x3 x 3x1 f32",
        3,
        3,
        1,
        hand::matmul_3x3x1,
        hand::flat_3x3x1,
        hand::first_3x3x1,
        shaped_matmul_3x3x1
    );
    case!(
        "matmul 2x8 x 8x4 f32",
        2,
        8,
        4,
        hand::matmul_2x8x4,
        hand::flat_2x8x4,
        hand::first_2x8x4,
        shaped_matmul_2x8x4
    );
}

fn data(n: usize, seed: usize) -> Vec<f32> {
    (0..n)
        .map(|i| ((i * 7 + seed) % 13) as f32 * 0.25 - 1.5)
        .collect()
}

fn large(c: &mut Criterion) {
    let n = 512;
    let (x, y) = (data(n * n, 1), data(n * n, 2));
    let (da, db) = (
        DynTensor::from_shape_vec([n, n], x.clone()).unwrap(),
        DynTensor::from_shape_vec([n, n], y.clone()).unwrap(),
    );
    let ha = HeapTensor::<f32, Shape![512, 512]>::from_vec(x.clone()).unwrap();
    let hb = HeapTensor::<f32, Shape![512, 512]>::from_vec(y.clone()).unwrap();
    let (na, nb) = (
        Array2::from_shape_vec((n, n), x.clone()).unwrap(),
        Array2::from_shape_vec((n, n), y.clone()).unwrap(),
    );
    let mut out = vec![0.0f32; n * n];
    let mut g = c.benchmark_group("matmul 512x512x512 f32");
    g.bench_function("hand loop (i, k, j)", |b| {
        b.iter(|| hand::matmul(black_box(&x), black_box(&y), &mut out, n, n, n))
    });
    g.bench_function("shaped DynTensor", |b| {
        b.iter(|| black_box(&da).matmul(black_box(&db)).unwrap())
    });
    g.bench_function("shaped static (heap)", |b| {
        b.iter(|| black_box(&ha).matmul(black_box(&hb)))
    });
    g.bench_function("ndarray dot", |b| {
        b.iter(|| black_box(&na).dot(black_box(&nb)))
    });
    g.finish();

    let (bt, m) = (64, 64);
    let (x, w) = (data(bt * m * m, 3), data(m * m, 4));
    let dx = DynTensor::from_shape_vec([bt, m, m], x.clone()).unwrap();
    let dw = DynTensor::from_shape_vec([m, m], w.clone()).unwrap();
    let hx = HeapTensor::<f32, Shape![64, 64, 64]>::from_vec(x.clone()).unwrap();
    let hw = HeapTensor::<f32, Shape![64, 64]>::from_vec(w.clone()).unwrap();
    let nx = Array3::from_shape_vec((bt, m, m), x.clone()).unwrap();
    let nw = Array2::from_shape_vec((m, m), w.clone()).unwrap();
    let mut g = c.benchmark_group("matmul batched [64, 64, 64] x [64, 64] f32");
    g.bench_function("shaped DynTensor", |b| {
        b.iter(|| black_box(&dx).matmul(black_box(&dw)).unwrap())
    });
    g.bench_function("shaped static (heap)", |b| {
        b.iter(|| black_box(&hx).matmul(black_box(&hw)))
    });
    g.bench_function("ndarray dot per batch", |b| {
        b.iter(|| {
            let (nx, nw) = (black_box(&nx), black_box(&nw));
            let mut out = Array3::<f32>::zeros((bt, m, m));
            for i in 0..bt {
                out.slice_mut(s![i, .., ..])
                    .assign(&nx.slice(s![i, .., ..]).dot(nw));
            }
            out
        })
    });
    g.bench_function("ndarray dot on [4096, 64]", |b| {
        b.iter(|| {
            let nx = black_box(&nx)
                .view()
                .into_shape_with_order((bt * m, m))
                .unwrap();
            nx.dot(black_box(&nw))
        })
    });
    g.finish();
}

criterion_group! { name = benches; config = quick::config(); targets = small, large }
criterion_main!(benches);
