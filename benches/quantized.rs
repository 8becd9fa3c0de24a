//! Quantized int8 add (TFLM's contract, double rounding), broadcasting, against a plain scalar
//! loop of the same contract written for the exact shape, and against shaped's `f32` add of
//! the same shapes: `[8, 256, 56, 56] + [1, 256, 1, 1]` (a per-channel bias) and
//! `[1024, 1] + [1, 1024]` (an outer sum).

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use shaped::quant::{Activation, QAdd, Quant, Rounding};
use shaped::{HeapTensor, Shape, Tensor};

/// The contract by hand, for the loops below: TFLM's `AddFunc` with gemmlowp's two roundings.
#[derive(Clone, Copy)]
struct Hand {
    a: (i32, i32, i32),
    b: (i32, i32, i32),
    out: (i32, i32, i32),
    min: i32,
    max: i32,
}

#[inline(always)]
fn high_mul(a: i32, b: i32) -> i32 {
    if a == i32::MIN && b == i32::MIN {
        return i32::MAX;
    }
    ((a as i64 * b as i64 + (1 << 30)) >> 31) as i32
}

#[inline(always)]
fn divide_pot(x: i32, e: i32) -> i32 {
    let mask = ((1i64 << e) - 1) as i32;
    let threshold = (mask >> 1) + (x < 0) as i32;
    (x >> e) + ((x & mask) > threshold) as i32
}

impl Hand {
    /// The multipliers of the same parameters, derived as TFLM does (`frexp` and `round`).
    fn new(sa: f32, za: i32, sb: f32, zb: i32, so: f32, zo: i32) -> Hand {
        fn q(m: f64) -> (i32, i32) {
            let (mut f, mut e) = (m, 0);
            while f >= 1.0 {
                f /= 2.0;
                e += 1;
            }
            while f < 0.5 {
                f *= 2.0;
                e -= 1;
            }
            let mut q = (f * 2f64.powi(31)).round() as i64;
            if q == 1 << 31 {
                q /= 2;
                e += 1;
            }
            (q as i32, -e)
        }
        let twice = 2.0 * sa.max(sb) as f64;
        let (ma, ea) = q(sa as f64 / twice);
        let (mb, eb) = q(sb as f64 / twice);
        let (mo, eo) = q(twice / (1048576.0 * so as f64));
        Hand {
            a: (-za, ma, ea),
            b: (-zb, mb, eb),
            out: (zo, mo, eo),
            min: -128,
            max: 127,
        }
    }

    #[inline(always)]
    fn add(&self, x: i8, y: i8) -> i8 {
        let xa = divide_pot(high_mul((x as i32 + self.a.0) << 20, self.a.1), self.a.2);
        let yb = divide_pot(high_mul((y as i32 + self.b.0) << 20, self.b.1), self.b.2);
        let raw = divide_pot(high_mul(xa + yb, self.out.1), self.out.2) + self.out.0;
        raw.clamp(self.min, self.max) as i8
    }
}

fn bench(c: &mut Criterion) {
    let (qa, qb, qo) = (
        Quant::<i8>::new(0.02, -5).unwrap(),
        Quant::new(0.03, 7).unwrap(),
        Quant::new(0.05, 3).unwrap(),
    );
    let add = QAdd::new(qa, qb, qo, Activation::None, Rounding::Double).unwrap();
    let hand = Hand::new(0.02, -5, 0.03, 7, 0.05, 3);

    // [8, 256, 56, 56] + [1, 256, 1, 1]
    const N: usize = 8 * 256 * 56 * 56;
    let data: Vec<i8> = (0..N).map(|i| (i * 7 % 251) as i8).collect();
    let a = HeapTensor::<i8, Shape![8, 256, 56, 56]>::from_vec(data.clone())
        .unwrap()
        .quantized(qa);
    let b = Tensor::<i8, Shape![1, 256, 1, 1]>::from_fn(|[_, c, _, _]| (c * 3) as i8).quantized(qb);
    let fa = HeapTensor::<f32, Shape![8, 256, 56, 56]>::from_vec(
        data.iter().map(|&x| x as f32).collect(),
    )
    .unwrap();
    let fb = Tensor::<f32, Shape![1, 256, 1, 1]>::from_fn(|[_, c, _, _]| c as f32);
    let hand_loop = |a: &[i8], b: &[i8], out: &mut [i8]| {
        for n in 0..8 {
            for (c, &y) in b.iter().enumerate() {
                let base = (n * 256 + c) * 56 * 56;
                for i in base..base + 56 * 56 {
                    out[i] = hand.add(a[i], y);
                }
            }
        }
    };
    let mut out = vec![0i8; N];
    hand_loop(&data, b.values().as_slice(), &mut out);
    assert_eq!(
        add.run(&a, &b).unwrap().values().as_slice(),
        &out[..],
        "the hand loop is the contract"
    );

    let mut group = c.benchmark_group("int8 add [8,256,56,56] + [1,256,1,1]");
    group.throughput(Throughput::Elements(N as u64));
    group.sample_size(10);
    group.bench_function("shaped int8", |x| {
        x.iter(|| black_box(add.run(black_box(&a), black_box(&b)).unwrap()))
    });
    group.bench_function("scalar loop", |x| {
        x.iter(|| {
            hand_loop(
                black_box(&data),
                black_box(b.values().as_slice()),
                black_box(&mut out),
            )
        })
    });
    group.bench_function("shaped f32", |x| {
        x.iter(|| black_box(black_box(&fa) + black_box(&fb)))
    });
    group.finish();

    // The primitive's int8 contract (Q15) on the same shapes: scales, ReLU, one rounding.
    use shaped::primitive::{Alg, Binary, Eltwise, Layout, MemMut, MemRef};
    const DIMS: [usize; 4] = [8, 256, 56, 56];
    let prim = Binary::new(Alg::Add)
        .scales(0.5, 0.25)
        .post_op(Eltwise::Relu);
    let b8: Vec<i8> = b.values().as_slice().to_vec();
    let src0 = MemRef::new(DIMS, &data, Layout::RowMajor).unwrap();
    let src1 = MemRef::new([1, 256, 1, 1], &b8, Layout::RowMajor).unwrap();
    let fb_mem: Vec<f32> = b8.iter().map(|&x| x as f32).collect();
    let fdata: Vec<f32> = data.iter().map(|&x| x as f32).collect();
    let (fsrc0, fsrc1) = (
        MemRef::new(DIMS, &fdata, Layout::RowMajor).unwrap(),
        MemRef::new([1, 256, 1, 1], &fb_mem, Layout::RowMajor).unwrap(),
    );
    let q15_loop = |a: &[i8], b: &[i8], out: &mut [i8]| {
        for n in 0..8 {
            for (c, &y) in b.iter().enumerate() {
                let base = (n * 256 + c) * 56 * 56;
                let y = 0.25 * y as f32;
                for i in base..base + 56 * 56 {
                    let v = (0.5 * a[i] as f32 + y).max(0.0);
                    out[i] = v.round_ties_even().clamp(-128.0, 127.0) as i8;
                }
            }
        }
    };
    let mut want = vec![0i8; N];
    q15_loop(&data, &b8, &mut want);
    prim.run_mixed_into(&src0, &src1, &mut MemMut::any(DIMS, &mut out).unwrap())
        .unwrap();
    assert_eq!(out, want, "the loop is the primitive's contract");
    let mut fout = vec![0f32; N];
    // Before: each source widened to f32, the f32 run, then one rounding pass.
    let widened = |a: &[i8], b: &[i8], wide_out: &mut [f32], out: &mut [i8]| {
        let wa: Vec<f32> = a.iter().map(|&x| x as f32).collect();
        let wb: Vec<f32> = b.iter().map(|&x| x as f32).collect();
        let (ma, mb) = (
            MemRef::new(DIMS, &wa, Layout::RowMajor).unwrap(),
            MemRef::new([1, 256, 1, 1], &wb, Layout::RowMajor).unwrap(),
        );
        prim.run_into(&ma, &mb, &mut MemMut::any(DIMS, wide_out).unwrap())
            .unwrap();
        for (o, &x) in out.iter_mut().zip(wide_out.iter()) {
            *o = shaped::quant::saturate_round_half_even(x);
        }
    };
    let mut group = c.benchmark_group("int8 primitive add+relu [8,256,56,56] + [1,256,1,1]");
    group.throughput(Throughput::Elements(N as u64));
    group.sample_size(10);
    group.bench_function("shaped run_mixed_into", |x| {
        x.iter(|| {
            prim.run_mixed_into(
                black_box(&src0),
                black_box(&src1),
                &mut MemMut::any(DIMS, &mut out).unwrap(),
            )
            .unwrap()
        })
    });
    group.bench_function("widened to f32 (before)", |x| {
        x.iter(|| widened(black_box(&data), black_box(&b8), &mut fout, &mut out))
    });
    group.bench_function("scalar loop", |x| {
        x.iter(|| q15_loop(black_box(&data), black_box(&b8), black_box(&mut out)))
    });
    group.bench_function("shaped f32 run_into", |x| {
        x.iter(|| {
            prim.run_into(
                black_box(&fsrc0),
                black_box(&fsrc1),
                &mut MemMut::any(DIMS, &mut fout).unwrap(),
            )
            .unwrap()
        })
    });
    group.finish();

    // [1024, 1] + [1, 1024]
    let a = Tensor::<i8, Shape![1024, 1]>::from_fn(|[i, _]| (i * 5 % 253) as i8).quantized(qa);
    let b = Tensor::<i8, Shape![1, 1024]>::from_fn(|[_, j]| (j * 11 % 247) as i8).quantized(qb);
    let fa = Tensor::<f32, Shape![1024, 1]>::from_fn(|[i, _]| i as f32);
    let fb = Tensor::<f32, Shape![1, 1024]>::from_fn(|[_, j]| j as f32);
    let ha = HeapTensor::<i8, Shape![1024, 1]>::from_vec(a.values().as_slice().to_vec())
        .unwrap()
        .quantized(qa);
    let mut out = vec![0i8; 1024 * 1024];
    let outer = |a: &[i8], b: &[i8], out: &mut [i8]| {
        for i in 0..1024 {
            for j in 0..1024 {
                out[i * 1024 + j] = hand.add(a[i], b[j]);
            }
        }
    };
    outer(a.values().as_slice(), b.values().as_slice(), &mut out);
    assert_eq!(add.run(&ha, &b).unwrap().values().as_slice(), &out[..]);
    let fha = HeapTensor::<f32, Shape![1024, 1]>::from_vec(fa.as_slice().to_vec()).unwrap();
    let mut group = c.benchmark_group("int8 add [1024,1] + [1,1024]");
    group.throughput(Throughput::Elements(1024 * 1024));
    group.bench_function("shaped int8", |x| {
        x.iter(|| black_box(add.run(black_box(&ha), black_box(&b)).unwrap()))
    });
    group.bench_function("scalar loop", |x| {
        x.iter(|| {
            outer(
                black_box(a.values().as_slice()),
                black_box(b.values().as_slice()),
                black_box(&mut out),
            )
        })
    });
    group.bench_function("shaped f32", |x| {
        x.iter(|| black_box(black_box(&fha) + black_box(&fb)))
    });
    group.finish();
}

/// The int8 products (TFLM's `BATCH_MATMUL` contract, `QMatMul::matmul`) against a plain
/// triple loop of the same contract and shaped's `f32` product of the same shapes.
fn products(c: &mut Criterion) {
    use shaped::quant::QMatMul;
    let (qa, qb, qo) = (
        Quant::<i8>::new(0.05, 3).unwrap(),
        Quant::new(0.02, -7).unwrap(),
        Quant::new(0.5, 1).unwrap(),
    );
    let op = QMatMul::new(qa, qb, qo, Activation::None, Rounding::Double).unwrap();
    // The same multiplier by hand: 0.05 * 0.02 / 0.5 = 0.002 = 0.512 * 2^-8.
    let hand = Hand::new(1.0, 0, 1.0, 0, 1.0, 0);
    let _ = hand;
    let m = 0.05f32 as f64 * 0.02f32 as f64 / 0.5f32 as f64;
    let (mut f, mut e) = (m, 0);
    while f < 0.5 {
        f *= 2.0;
        e += 1;
    }
    let mq = (f * 2f64.powi(31)).round() as i32;
    let requant =
        move |acc: i32| -> i8 { (divide_pot(high_mul(acc, mq), e) + 1).clamp(-128, 127) as i8 };
    // Rows of `a` times `b` [k, n], each row of the output requantized: the plain i-j-k loop.
    let plain = move |a: &[i8], b: &[i8], out: &mut [i8], m: usize, k: usize, n: usize| {
        for i in 0..m {
            for j in 0..n {
                let mut acc = 0i32;
                for kk in 0..k {
                    let x = a[i * k + kk] as i32 - 3;
                    let y = b[kk * n + j] as i32 + 7;
                    acc = acc.wrapping_add(x * y);
                }
                out[i * n + j] = requant(acc);
            }
        }
    };
    let bytes = |n: usize, seed: usize| -> Vec<i8> {
        (0..n).map(|i| ((i * 37 + seed) % 251) as i8).collect()
    };

    // [64, 64, 64] x [64, 64]: 64 products sharing one right operand.
    let (av, bv) = (bytes(64 * 64 * 64, 1), bytes(64 * 64, 2));
    let a = HeapTensor::<i8, Shape![64, 64, 64]>::from_vec(av.clone())
        .unwrap()
        .quantized(qa);
    let b = HeapTensor::<i8, Shape![64, 64]>::from_vec(bv.clone())
        .unwrap()
        .quantized(qb);
    let mut out = vec![0i8; 64 * 64 * 64];
    plain(&av, &bv, &mut out, 64 * 64, 64, 64);
    assert_eq!(
        op.matmul(&a, &b).unwrap().values().as_slice(),
        &out[..],
        "the loop is the contract"
    );
    let fa =
        HeapTensor::<f32, Shape![64, 64, 64]>::from_vec(av.iter().map(|&x| x as f32).collect())
            .unwrap();
    let fb = HeapTensor::<f32, Shape![64, 64]>::from_vec(bv.iter().map(|&x| x as f32).collect())
        .unwrap();
    let mut group = c.benchmark_group("int8 product [64,64,64] x [64,64]");
    group.throughput(Throughput::Elements(64 * 64 * 64 * 64));
    group.sample_size(10);
    group.bench_function("shaped int8", |x| {
        x.iter(|| black_box(op.matmul(black_box(&a), black_box(&b)).unwrap()))
    });
    group.bench_function("plain loop", |x| {
        x.iter(|| {
            plain(
                black_box(&av),
                black_box(&bv),
                black_box(&mut out),
                64 * 64,
                64,
                64,
            )
        })
    });
    group.bench_function("shaped f32", |x| {
        x.iter(|| black_box(black_box(&fa).matmul(black_box(&fb))))
    });
    group.finish();

    // [512, 512] x [512, 512].
    let (av, bv) = (bytes(512 * 512, 3), bytes(512 * 512, 4));
    let a = HeapTensor::<i8, Shape![512, 512]>::from_vec(av.clone())
        .unwrap()
        .quantized(qa);
    let b = HeapTensor::<i8, Shape![512, 512]>::from_vec(bv.clone())
        .unwrap()
        .quantized(qb);
    let mut out = vec![0i8; 512 * 512];
    plain(&av, &bv, &mut out, 512, 512, 512);
    assert_eq!(
        op.matmul(&a, &b).unwrap().values().as_slice(),
        &out[..],
        "the loop is the contract"
    );
    let fa = HeapTensor::<f32, Shape![512, 512]>::from_vec(av.iter().map(|&x| x as f32).collect())
        .unwrap();
    let fb = HeapTensor::<f32, Shape![512, 512]>::from_vec(bv.iter().map(|&x| x as f32).collect())
        .unwrap();
    let mut group = c.benchmark_group("int8 product [512,512] x [512,512]");
    group.throughput(Throughput::Elements(512 * 512 * 512));
    group.sample_size(10);
    group.bench_function("shaped int8", |x| {
        x.iter(|| black_box(op.matmul(black_box(&a), black_box(&b)).unwrap()))
    });
    group.bench_function("plain loop", |x| {
        x.iter(|| {
            plain(
                black_box(&av),
                black_box(&bv),
                black_box(&mut out),
                512,
                512,
                512,
            )
        })
    });
    group.bench_function("shaped f32", |x| {
        x.iter(|| black_box(black_box(&fa).matmul(black_box(&fb))))
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(3));
    targets = bench, products
}
criterion_main!(benches);
