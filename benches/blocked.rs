//! Blocked layouts (O7) and runs in place (O8) in the binary primitive, one criterion group
//! (one run): an 8x256x56x56 f32 add of a `[1, 256, 1, 1]` bias,
//! * `hand NCHW` / `hand nChw16c` / `hand NCHW in place`: the loops one writes by hand;
//! * `shaped NCHW` / `shaped nChw16c`: the primitive on plain and on nChw16c memory (the bias
//!   plain in both, the destination in the source's layout);
//! * `shaped NCHW in place` / `shaped nChw16c in place`: the same runs with the destination
//!   being src0 (`run_in_place`);
//! * `ndarray NCHW` / `ndarray NCHW in place`: the peer (`Zip` with a broadcast bias into a
//!   destination, and `+=`); it has no blocked layouts.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use shaped::primitive::{reorder, Alg, Binary, Blocking, Layout, MemMut, MemRef};

const N: usize = 8;
const C: usize = 256;
const HW: usize = 56 * 56;
const DIMS: [usize; 4] = [N, C, 56, 56];
const LEN: usize = N * C * HW;

fn hand_nchw(a: &[f32], bias: &[f32], dst: &mut [f32]) {
    for (n_c, (d, a)) in dst.chunks_exact_mut(HW).zip(a.chunks_exact(HW)).enumerate() {
        let b = bias[n_c % C];
        for (d, &x) in d.iter_mut().zip(a) {
            *d = x + b;
        }
    }
}

fn hand_nchw_in_place(x: &mut [f32], bias: &[f32]) {
    for (n_c, x) in x.chunks_exact_mut(HW).enumerate() {
        let b = bias[n_c % C];
        for x in x.iter_mut() {
            *x += b;
        }
    }
}

/// nChw16c: per (n, block of 16 channels), HW pixels of 16 channels each.
fn hand_nchw16c(a: &[f32], bias: &[f32], dst: &mut [f32]) {
    for (n_cb, (d, a)) in dst
        .chunks_exact_mut(HW * 16)
        .zip(a.chunks_exact(HW * 16))
        .enumerate()
    {
        let cb = n_cb % (C / 16);
        let b: &[f32; 16] = bias[cb * 16..cb * 16 + 16].try_into().unwrap();
        for (d, a) in d.chunks_exact_mut(16).zip(a.chunks_exact(16)) {
            for i in 0..16 {
                d[i] = a[i] + b[i];
            }
        }
    }
}

fn bench(c: &mut Criterion) {
    let src: Vec<f32> = (0..LEN)
        .map(|i| ((i * 7919) % 2003) as f32 * 0.01 - 10.0)
        .collect();
    let bias: Vec<f32> = (0..C).map(|i| (i % 13) as f32 - 6.0).collect();
    let nchw16c = Layout::Blocked(Blocking::blocked::<1, 16>());
    let mut src16 = vec![0.0f32; LEN];
    let plain = MemRef::new(DIMS, &src, Layout::RowMajor).unwrap();
    reorder(&plain, &mut MemMut::new(DIMS, &mut src16, nchw16c).unwrap()).unwrap();
    let a16 = MemRef::new(DIMS, &src16, nchw16c).unwrap();
    let b = MemRef::new([1, C, 1, 1], &bias, Layout::RowMajor).unwrap();
    let add = Binary::new(Alg::Add);

    // Every variant computes the same values.
    let mut want = vec![0.0f32; LEN];
    hand_nchw(&src, &bias, &mut want);
    let mut dst = vec![0.0f32; LEN];
    add.run_into(&plain, &b, &mut MemMut::any(DIMS, &mut dst).unwrap())
        .unwrap();
    assert_eq!(dst, want);
    let mut want16 = vec![0.0f32; LEN];
    hand_nchw16c(&src16, &bias, &mut want16);
    let mut dst16 = vec![0.0f32; LEN];
    add.run_into(
        &a16,
        &b,
        &mut MemMut::new(DIMS, &mut dst16, nchw16c).unwrap(),
    )
    .unwrap();
    assert_eq!(dst16, want16);
    let back = MemRef::new(DIMS, &dst16, nchw16c).unwrap();
    assert_eq!(
        back.get(&[5, 200, 7, 9]),
        Some(&want[((5 * C + 200) * 56 + 7) * 56 + 9])
    );
    let mut inplace = src.clone();
    add.run_in_place(
        &mut MemMut::new(DIMS, &mut inplace, Layout::RowMajor).unwrap(),
        &b,
    )
    .unwrap();
    assert_eq!(inplace, want);
    let mut inplace16 = src16.clone();
    add.run_in_place(&mut MemMut::new(DIMS, &mut inplace16, nchw16c).unwrap(), &b)
        .unwrap();
    assert_eq!(inplace16, want16);

    let mut group = c.benchmark_group("8x256x56x56 add [1,C,1,1]: layouts and in place");
    group.sample_size(20);
    group.bench_function("hand NCHW", |bch| {
        bch.iter(|| hand_nchw(black_box(&src), &bias, black_box(&mut dst)))
    });
    group.bench_function("hand nChw16c", |bch| {
        bch.iter(|| hand_nchw16c(black_box(&src16), &bias, black_box(&mut dst16)))
    });
    let nd_src = ndarray::Array4::from_shape_vec(DIMS, src.clone()).unwrap();
    let nd_bias = ndarray::Array4::from_shape_vec([1, C, 1, 1], bias.clone()).unwrap();
    let mut nd_dst = ndarray::Array4::<f32>::zeros(DIMS);
    let mut nd_inplace = nd_src.clone();
    let bias_view = nd_bias.broadcast(DIMS).unwrap();
    ndarray::Zip::from(&mut nd_dst)
        .and(&nd_src)
        .and(&bias_view)
        .for_each(|d, &x, &y| *d = x + y);
    assert_eq!(nd_dst.as_slice().unwrap(), &want[..]);
    group.bench_function("ndarray NCHW", |bch| {
        bch.iter(|| {
            ndarray::Zip::from(black_box(&mut nd_dst))
                .and(black_box(&nd_src))
                .and(&bias_view)
                .for_each(|d, &x, &y| *d = x + y)
        })
    });
    group.bench_function("ndarray NCHW in place", |bch| {
        bch.iter(|| *black_box(&mut nd_inplace) += &nd_bias)
    });
    group.bench_function("shaped NCHW", |bch| {
        bch.iter(|| {
            let mut d = MemMut::new(DIMS, black_box(&mut dst), Layout::RowMajor).unwrap();
            add.run_into(black_box(&plain), &b, &mut d).unwrap()
        })
    });
    group.bench_function("shaped nChw16c", |bch| {
        bch.iter(|| {
            let mut d = MemMut::new(DIMS, black_box(&mut dst16), nchw16c).unwrap();
            add.run_into(black_box(&a16), &b, &mut d).unwrap()
        })
    });
    // In place the values grow by the bias each run; they stay finite over any run's count.
    let mut hand_inplace = src.clone();
    group.bench_function("hand NCHW in place", |bch| {
        bch.iter(|| hand_nchw_in_place(black_box(&mut hand_inplace), &bias))
    });
    group.bench_function("shaped NCHW in place", |bch| {
        bch.iter(|| {
            let mut d = MemMut::new(DIMS, black_box(&mut inplace), Layout::RowMajor).unwrap();
            add.run_in_place(&mut d, &b).unwrap()
        })
    });
    group.bench_function("shaped nChw16c in place", |bch| {
        bch.iter(|| {
            let mut d = MemMut::new(DIMS, black_box(&mut inplace16), nchw16c).unwrap();
            add.run_in_place(&mut d, &b).unwrap()
        })
    });
    // The bias, ReLU, scale chain (the fused pair out of place), both ways.
    let scale: Vec<f32> = (0..C).map(|i| 0.5 + (i % 5) as f32 * 0.25).collect();
    let s = MemRef::new([1, C, 1, 1], &scale, Layout::RowMajor).unwrap();
    let chain = Binary::new(Alg::Add)
        .post_op(shaped::primitive::Eltwise::Relu)
        .post_op(shaped::primitive::PostOp::binary(Alg::Mul, &s));
    group.bench_function("shaped NCHW add+relu+mul", |bch| {
        bch.iter(|| {
            let mut d = MemMut::new(DIMS, black_box(&mut dst), Layout::RowMajor).unwrap();
            chain.run_into(black_box(&plain), &b, &mut d).unwrap()
        })
    });
    let mut chain_inplace = src.clone();
    group.bench_function("shaped NCHW add+relu+mul in place", |bch| {
        bch.iter(|| {
            // The chain's fixed point: ReLU and a scale of at most 1.5 keep values bounded.
            let mut d = MemMut::new(DIMS, black_box(&mut chain_inplace), Layout::RowMajor).unwrap();
            chain.run_in_place(&mut d, &b).unwrap()
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
