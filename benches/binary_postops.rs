//! The fused binary primitive on 8x256x56x56 f32 with a [1, 256, 1, 1] bias:
//! `relu(src0 + bias) * scale[1, C, 1, 1]`, all in one criterion group (one run):
//! * `hand fused NCHW`: the loop one would write by hand for exactly this chain.
//! * `hand three passes`: add, then relu in place, then the scale in place (three sweeps).
//! * `shaped three passes`: three primitives without post-ops, through two temporaries.
//! * `shaped fused NCHW` / `shaped fused NHWC`: one primitive with two post-ops, row-major and
//!   channels-last memory (the destination layout follows the source, O5).

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use shaped::primitive::{Alg, Binary, Eltwise, Layout, MemMut, MemRef, PostOp};

#[path = "support/relu_scale.rs"]
mod relu_scale;
use relu_scale::{hand_fused, hand_fused_nhwc, C, HW};

const N: usize = 8;
const DIMS: [usize; 4] = [N, C, 56, 56];
const LEN: usize = N * C * HW;

fn hand_three_passes(a: &[f32], bias: &[f32], scale: &[f32], dst: &mut [f32]) {
    for (n_c, (d, a)) in dst.chunks_exact_mut(HW).zip(a.chunks_exact(HW)).enumerate() {
        let b = bias[n_c % C];
        for (d, &x) in d.iter_mut().zip(a) {
            *d = x + b;
        }
    }
    for d in dst.iter_mut() {
        *d = if *d > 0.0 { *d } else { 0.0 };
    }
    for (n_c, d) in dst.chunks_exact_mut(HW).enumerate() {
        let s = scale[n_c % C];
        for d in d.iter_mut() {
            *d *= s;
        }
    }
}

fn bench(c: &mut Criterion) {
    let src = relu_scale::source(LEN);
    // The same tensor in channels-last memory.
    let mut src_nhwc = vec![0.0f32; LEN];
    for n in 0..N {
        for ch in 0..C {
            for hw in 0..HW {
                src_nhwc[(n * HW + hw) * C + ch] = src[(n * C + ch) * HW + hw];
            }
        }
    }
    let (bias, scale) = relu_scale::bias_and_scale();
    let zero = [0.0f32];

    let a = MemRef::new(DIMS, &src, Layout::RowMajor).unwrap();
    let a_nhwc = MemRef::new(DIMS, &src_nhwc, Layout::ChannelsLast).unwrap();
    let b = MemRef::new([1, C, 1, 1], &bias, Layout::RowMajor).unwrap();
    let s = MemRef::new([1, C, 1, 1], &scale, Layout::RowMajor).unwrap();
    let z = MemRef::new([1, 1, 1, 1], &zero, Layout::RowMajor).unwrap();
    let fused = Binary::new(Alg::Add)
        .post_op(PostOp::Eltwise(Eltwise::Relu))
        .post_op(PostOp::binary(Alg::Mul, &s));
    let (add, relu, mul) = (
        Binary::new(Alg::Add),
        Binary::new(Alg::Maximum),
        Binary::new(Alg::Mul),
    );

    let mut dst = vec![0.0f32; LEN];
    let mut t1 = vec![0.0f32; LEN];
    let mut t2 = vec![0.0f32; LEN];

    // Every variant computes the same values.
    let mut expected = vec![0.0f32; LEN];
    hand_fused(&src, &bias, &scale, &mut expected);
    fused
        .run_into(&a, &b, &mut MemMut::any(DIMS, &mut dst).unwrap())
        .unwrap();
    assert_eq!(dst, expected);
    hand_three_passes(&src, &bias, &scale, &mut dst);
    assert_eq!(dst, expected);
    let mut nhwc_dst = MemMut::any(DIMS, &mut dst).unwrap();
    fused.run_into(&a_nhwc, &b, &mut nhwc_dst).unwrap();
    assert_eq!(nhwc_dst.layout(), Layout::ChannelsLast);
    assert_eq!(
        nhwc_dst.get(&[3, 100, 7, 9]),
        Some(&expected[((3 * C + 100) * 56 + 7) * 56 + 9])
    );

    let mut group = c.benchmark_group("8x256x56x56 add+relu+mul[1,C,1,1]");
    group.sample_size(20);
    group.bench_function("hand fused NCHW", |bch| {
        bch.iter(|| hand_fused(black_box(&src), &bias, &scale, black_box(&mut dst)))
    });
    group.bench_function("hand fused NHWC", |bch| {
        bch.iter(|| hand_fused_nhwc(black_box(&src_nhwc), &bias, &scale, black_box(&mut dst)))
    });
    group.bench_function("hand three passes", |bch| {
        bch.iter(|| hand_three_passes(black_box(&src), &bias, &scale, black_box(&mut dst)))
    });
    group.bench_function("shaped three passes", |bch| {
        bch.iter(|| {
            add.run_into(&a, &b, &mut MemMut::any(DIMS, &mut t1).unwrap())
                .unwrap();
            let m1 = MemRef::new(DIMS, &t1, Layout::RowMajor).unwrap();
            relu.run_into(&m1, &z, &mut MemMut::any(DIMS, &mut t2).unwrap())
                .unwrap();
            let m2 = MemRef::new(DIMS, &t2, Layout::RowMajor).unwrap();
            mul.run_into(&m2, &s, &mut MemMut::any(DIMS, &mut dst).unwrap())
                .unwrap();
        })
    });
    group.bench_function("shaped fused NCHW", |bch| {
        bch.iter(|| {
            let mut d = MemMut::any(DIMS, black_box(&mut dst)).unwrap();
            fused.run_into(black_box(&a), &b, &mut d).unwrap()
        })
    });
    group.bench_function("shaped fused NHWC", |bch| {
        bch.iter(|| {
            let mut d = MemMut::any(DIMS, black_box(&mut dst)).unwrap();
            fused.run_into(black_box(&a_nhwc), &b, &mut d).unwrap()
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(4));
    targets = bench
}
criterion_main!(benches);
