//! Fused layers (`shaped::layer`) against the same network written with shaped's operators,
//! a hand-fused loop nest of the same arithmetic, and ndarray (`dot`, a broadcast bias add,
//! `mapv_inplace`), in the same run: an f32 mlp `relu(x W1 + b1) W2 + b2` (16 -> 32 -> 4, batch
//! 2, the Cortex-M suite's), a wide f32 layer (256 -> 256, ReLU, batch 32: past 4096
//! multiply-adds, where a layer runs `matmul`'s shared kernel), and TFLM's int8 dense layer (64 -> 64,
//! ReLU, batch 16) against `QMatMul::fully_connected`. The mlp runs through the layers' two
//! forms: `forward` (a new tensor per layer) and `forward_into` (into the caller's tensors).
#![allow(clippy::op_ref, clippy::needless_range_loop)]

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use shaped::layer::{Dense, Identity, QDense, Relu};
use shaped::quant::{Activation, QMatMul, Quant, Rounding};
use shaped::{Shape, Tensor};

fn weight(i: usize, j: usize, seed: usize) -> f32 {
    ((i * 7 + j * 3 + seed) % 11) as f32 * 0.1 - 0.5
}

/// The hand-fused layer: each output's sum over `k` in order, bias, activation.
#[inline(always)]
fn hand_layer<const IN: usize, const OUT: usize>(
    x: &[f32; IN],
    w: &[[f32; OUT]; IN],
    b: &[f32; OUT],
    relu: bool,
    y: &mut [f32; OUT],
) {
    for j in 0..OUT {
        let mut s = x[0] * w[0][j];
        for k in 1..IN {
            s += x[k] * w[k][j];
        }
        let v = s + b[j];
        y[j] = if relu && 0.0 > v { 0.0 } else { v };
    }
}

fn mlp(c: &mut Criterion) {
    let x: [[f32; 16]; 2] =
        core::array::from_fn(|b| core::array::from_fn(|i| ((b * 16 + i) % 5) as f32 * 0.25));
    let w1: [[f32; 32]; 16] = core::array::from_fn(|i| core::array::from_fn(|j| weight(i, j, 1)));
    let b1: [f32; 32] = core::array::from_fn(|j| j as f32 * 0.01);
    let w2: [[f32; 4]; 32] = core::array::from_fn(|i| core::array::from_fn(|j| weight(i, j, 2)));
    let b2 = [-0.1f32; 4];
    let (xt, w1t, b1t, w2t, b2t) = (
        Tensor::<f32, Shape![2, 16]>::from(x),
        Tensor::<f32, Shape![16, 32]>::from(w1),
        Tensor::<f32, Shape![32]>::from(b1),
        Tensor::<f32, Shape![32, 4]>::from(w2),
        Tensor::<f32, Shape![4]>::from(b2),
    );
    let (l1, l2) = (
        Dense::new(&w1, Some(&b1), Relu),
        Dense::new(&w2, Some(&b2), Identity),
    );
    let (nx, nw1, nb1, nw2, nb2) = (
        ndarray::Array2::from_shape_vec((2, 16), x.as_flattened().to_vec()).unwrap(),
        ndarray::Array2::from_shape_vec((16, 32), w1.as_flattened().to_vec()).unwrap(),
        ndarray::Array1::from_vec(b1.to_vec()),
        ndarray::Array2::from_shape_vec((32, 4), w2.as_flattened().to_vec()).unwrap(),
        ndarray::Array1::from_vec(b2.to_vec()),
    );
    // The same outputs from the layers, the operators and the hand loops.
    let by_layers = l2.forward(&l1.forward(&xt));
    let by_operators = ((xt.matmul(&w1t) + &b1t).relu()).matmul(&w2t) + &b2t;
    assert_eq!(by_layers, by_operators);

    let mut group = c.benchmark_group("f32 mlp 16 -> 32 ReLU -> 4, batch 2");
    group.throughput(Throughput::Elements(2 * (16 * 32 + 32 * 4)));
    group.bench_function("shaped layers", |b| {
        b.iter(|| black_box(l2.forward(&l1.forward(black_box(&xt)))))
    });
    group.bench_function("shaped layers into", |b| {
        let mut h = Tensor::<f32, Shape![2, 32]>::zeros();
        let mut y = Tensor::<f32, Shape![2, 4]>::zeros();
        b.iter(|| {
            l1.forward_into(black_box(&xt), &mut h).unwrap();
            l2.forward_into(&h, &mut y).unwrap();
            black_box(&y);
        })
    });
    group.bench_function("shaped operators", |b| {
        b.iter(|| {
            let x = black_box(&xt);
            black_box((x.matmul(&w1t) + &b1t).relu().matmul(&w2t) + &b2t)
        })
    });
    group.bench_function("hand loop", |b| {
        b.iter(|| {
            let x = black_box(&x);
            let mut out = [[0.0f32; 4]; 2];
            for (x, y) in x.iter().zip(out.iter_mut()) {
                let mut h = [0.0f32; 32];
                hand_layer(x, &w1, &b1, true, &mut h);
                hand_layer(&h, &w2, &b2, false, y);
            }
            black_box(out)
        })
    });
    group.bench_function("ndarray", |b| {
        b.iter(|| {
            let mut h = black_box(&nx).dot(&nw1) + &nb1;
            h.mapv_inplace(|v| if 0.0 > v { 0.0 } else { v });
            black_box(h.dot(&nw2) + &nb2)
        })
    });
    group.finish();
}

fn wide(c: &mut Criterion) {
    const N: usize = 256;
    let w: Box<[[f32; N]; N]> = Box::new(core::array::from_fn(|i| {
        core::array::from_fn(|j| weight(i, j, 3))
    }));
    let bias: [f32; N] = core::array::from_fn(|j| j as f32 * 0.001 - 0.1);
    let x: Box<[[f32; N]; 32]> = Box::new(core::array::from_fn(|b| {
        core::array::from_fn(|i| ((b * 5 + i) % 9) as f32 * 0.125 - 0.5)
    }));
    let xt =
        shaped::HeapTensor::<f32, Shape![32, 256]>::from_vec(x.as_flattened().to_vec()).unwrap();
    let wt =
        shaped::HeapTensor::<f32, Shape![256, 256]>::from_vec(w.as_flattened().to_vec()).unwrap();
    let bt = Tensor::<f32, Shape![256]>::from(bias);
    let layer = Dense::new(&w, Some(&bias), Relu);
    let (nx, nw, nb) = (
        ndarray::Array2::from_shape_vec((32, N), x.as_flattened().to_vec()).unwrap(),
        ndarray::Array2::from_shape_vec((N, N), w.as_flattened().to_vec()).unwrap(),
        ndarray::Array1::from_vec(bias.to_vec()),
    );
    let mut group = c.benchmark_group("f32 dense 256 -> 256 ReLU, batch 32");
    group.throughput(Throughput::Elements((32 * N * N) as u64));
    group.bench_function("shaped layer", |b| {
        b.iter(|| black_box(layer.forward(black_box(&xt))))
    });
    group.bench_function("shaped operators", |b| {
        b.iter(|| black_box((black_box(&xt).matmul(&wt) + &bt).relu()))
    });
    group.bench_function("hand loop", |b| {
        let mut out = vec![[0.0f32; N]; 32];
        b.iter(|| {
            for (x, y) in black_box(&*x).iter().zip(out.iter_mut()) {
                hand_layer(x, &w, &bias, true, y);
            }
            black_box(&out);
        })
    });
    group.bench_function("ndarray", |b| {
        b.iter(|| {
            let mut h = black_box(&nx).dot(&nw) + &nb;
            h.mapv_inplace(|v| if 0.0 > v { 0.0 } else { v });
            black_box(h)
        })
    });
    group.finish();
}

fn int8(c: &mut Criterion) {
    let op = QMatMul::new(
        Quant::<i8>::new(0.05, 3).unwrap(),
        Quant::new(0.02, 0).unwrap(),
        Quant::new(0.25, -128).unwrap(),
        Activation::Relu,
        Rounding::Double,
    )
    .unwrap();
    let w: [[i8; 64]; 64] =
        core::array::from_fn(|j| core::array::from_fn(|k| ((j * 37 + k * 11) % 251) as i8));
    let bias: [i32; 64] = core::array::from_fn(|j| j as i32 * 100 - 3000);
    let x: [[i8; 64]; 16] =
        core::array::from_fn(|b| core::array::from_fn(|k| ((b * 13 + k * 7) % 256) as u8 as i8));
    let layer = QDense::new(op, &w, Some(&bias));
    let xt = Tensor::<i8, Shape![16, 64]>::from(x).quantized(layer.input());
    let wt = Tensor::<i8, Shape![64, 64]>::from(w).quantized(op.inputs().1);
    assert_eq!(
        layer.forward(&xt).unwrap().values(),
        op.fully_connected(&xt, &wt, Some(&bias)).unwrap().values()
    );
    let mut group = c.benchmark_group("int8 dense 64 -> 64 ReLU, batch 16");
    group.throughput(Throughput::Elements(16 * 64 * 64));
    group.bench_function("shaped layer", |b| {
        b.iter(|| black_box(layer.forward(black_box(&xt)).unwrap()))
    });
    group.bench_function("shaped QMatMul::fully_connected", |b| {
        b.iter(|| {
            black_box(
                op.fully_connected(black_box(&xt), &wt, Some(&bias))
                    .unwrap(),
            )
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(std::time::Duration::from_millis(500)).measurement_time(std::time::Duration::from_secs(2));
    targets = mlp, wide, int8
}
criterion_main!(benches);
