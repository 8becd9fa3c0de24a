//! Runtime-shape kernels (`runtime::binary_into`) against a hand-written loop for each exact
//! shape and against ndarray's broadcasting `Zip`, f32 add, all writing into a preallocated
//! output; and the dynamic path against the static one on the static issue's small shapes.
//! The small shapes run first: the large cases' setup grows the heap and, with feature
//! `rayon`, starts the pool, and the small allocating calls should be timed the same way in
//! both builds.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use ndarray::{ArrayD, ArrayViewD, IxDyn, Zip};
use shaped::runtime::{binary_into, ArrayRef, BinaryPlan};
use shaped::{AutoBroadcast, BinaryOp, DynTensor, Shape, Tensor};

fn data(n: usize, seed: f32) -> Vec<f32> {
    (0..n).map(|i| (i % 97) as f32 * 0.5 + seed).collect()
}

fn shaped_add(a: &[f32], sa: &[usize], b: &[f32], sb: &[usize], out: &mut [f32]) {
    binary_into(
        ArrayRef::new(sa, a).unwrap(),
        ArrayRef::new(sb, b).unwrap(),
        BinaryOp::Add,
        AutoBroadcast::Numpy,
        out,
    )
    .unwrap();
}

fn ndarray_add(a: &ArrayViewD<f32>, b: &ArrayViewD<f32>, out: &mut ArrayD<f32>) {
    Zip::from(out)
        .and_broadcast(a)
        .and_broadcast(b)
        .for_each(|o, &x, &y| *o = x + y);
}

/// Hand-written loops for each exact shape, as a careful programmer would write them:
/// contiguous rows through zipped iterators, broadcast values hoisted.
mod hand {
    pub fn row_bias(a: &[f32], b: &[f32], out: &mut [f32], cols: usize) {
        for (orow, arow) in out.chunks_exact_mut(cols).zip(a.chunks_exact(cols)) {
            for ((o, x), y) in orow.iter_mut().zip(arow).zip(b) {
                *o = x + y;
            }
        }
    }
    pub fn outer(a: &[f32], b: &[f32], out: &mut [f32]) {
        for (orow, x) in out.chunks_exact_mut(b.len()).zip(a) {
            for (o, y) in orow.iter_mut().zip(b) {
                *o = x + y;
            }
        }
    }
    /// (64, 64, 64, 16) + (1, 64, 1, 16)
    pub fn four_d(a: &[f32], b: &[f32], out: &mut [f32]) {
        for (oblock, ablock) in out
            .chunks_exact_mut(64 * 64 * 16)
            .zip(a.chunks_exact(64 * 64 * 16))
        {
            for ((oc, ac), bc) in oblock
                .chunks_exact_mut(64 * 16)
                .zip(ablock.chunks_exact(64 * 16))
                .zip(b.chunks_exact(16))
            {
                for (orow, arow) in oc.chunks_exact_mut(16).zip(ac.chunks_exact(16)) {
                    for ((o, x), y) in orow.iter_mut().zip(arow).zip(bc) {
                        *o = x + y;
                    }
                }
            }
        }
    }
    /// (8, 256, 56, 56) + (1, 256, 1, 1)
    pub fn channel_bias(a: &[f32], b: &[f32], out: &mut [f32]) {
        for (oimg, aimg) in out
            .chunks_exact_mut(256 * 56 * 56)
            .zip(a.chunks_exact(256 * 56 * 56))
        {
            for ((oc, ac), bias) in oimg
                .chunks_exact_mut(56 * 56)
                .zip(aimg.chunks_exact(56 * 56))
                .zip(b)
            {
                for (o, x) in oc.iter_mut().zip(ac) {
                    *o = x + bias;
                }
            }
        }
    }
    pub fn same(a: &[f32], b: &[f32], out: &mut [f32]) {
        for ((o, x), y) in out.iter_mut().zip(a).zip(b) {
            *o = x + y;
        }
    }
}

fn large(c: &mut Criterion) {
    type Hand = fn(&[f32], &[f32], &mut [f32]);
    let cases: [(&str, &[usize], &[usize], Hand); 5] = [
        ("1024x1024+1x1024", &[1024, 1024], &[1, 1024], |a, b, o| {
            hand::row_bias(a, b, o, 1024)
        }),
        ("1024x1+1x1024", &[1024, 1], &[1, 1024], hand::outer),
        (
            "64x64x64x16+1x64x1x16",
            &[64, 64, 64, 16],
            &[1, 64, 1, 16],
            hand::four_d,
        ),
        (
            "8x256x56x56+1x256x1x1",
            &[8, 256, 56, 56],
            &[1, 256, 1, 1],
            hand::channel_bias,
        ),
        (
            "2048x2048+2048x2048",
            &[2048, 2048],
            &[2048, 2048],
            hand::same,
        ),
    ];
    for (name, sa, sb, hand_fn) in cases {
        let out_shape = shaped::broadcast_shapes(sa, sb, AutoBroadcast::Numpy).unwrap();
        let n_out = out_shape.iter().product::<usize>();
        let a = data(sa.iter().product(), 1.0);
        let b = data(sb.iter().product(), 2.0);
        let mut out = vec![0.0f32; n_out];
        let mut check = vec![0.0f32; n_out];
        hand_fn(&a, &b, &mut check);
        shaped_add(&a, sa, &b, sb, &mut out);
        assert_eq!(out, check, "{name}: shaped disagrees with the hand loop");
        let av = ArrayViewD::from_shape(IxDyn(sa), &a).unwrap();
        let bv = ArrayViewD::from_shape(IxDyn(sb), &b).unwrap();
        let mut nd = ArrayD::<f32>::zeros(IxDyn(&out_shape));

        let mut group = c.benchmark_group(name);
        group.sample_size(20);
        group.bench_function("hand", |bch| {
            bch.iter(|| hand_fn(black_box(&a), black_box(&b), &mut out))
        });
        group.bench_function("shaped", |bch| {
            bch.iter(|| shaped_add(black_box(&a), sa, black_box(&b), sb, &mut out))
        });
        group.bench_function("ndarray", |bch| {
            bch.iter(|| ndarray_add(black_box(&av), black_box(&bv), &mut nd))
        });
        // The allocating forms: a new result each call (allocation and drop timed).
        let da = DynTensor::from_shape_vec(sa, a.clone()).unwrap();
        let db = DynTensor::from_shape_vec(sb, b.clone()).unwrap();
        assert_eq!(da.try_add(&db).unwrap().as_slice(), &check[..]);
        group.bench_function("shaped DynTensor (allocating)", |bch| {
            bch.iter(|| black_box(&da).try_add(black_box(&db)).unwrap())
        });
        let (na, nb) = (av.to_owned(), bv.to_owned());
        group.bench_function("ndarray &a + &b (allocating)", |bch| {
            bch.iter(|| black_box(&na) + black_box(&nb))
        });
        group.finish();
    }
}

/// The dynamic kernel on the static issue's small shapes, against the static operator.
fn small(c: &mut Criterion) {
    macro_rules! case {
        ($name:literal, [$($a:tt)*], [$($b:tt)*]) => {{
            let a = Tensor::<f32, Shape![$($a)*]>::from_fn(|i| i.iter().sum::<usize>() as f32);
            let b = Tensor::<f32, Shape![$($b)*]>::from_fn(|i| i.iter().sum::<usize>() as f32 + 0.5);
            let (sa, sb) = (a.shape(), b.shape());
            let mut out = vec![0.0f32; (&a + &b).len()];
            let mut group = c.benchmark_group(concat!("small ", $name));
            group.bench_function("static", |bch| bch.iter(|| black_box(black_box(&a) + black_box(&b))));
            group.bench_function("dynamic", |bch| {
                bch.iter(|| shaped_add(black_box(a.as_slice()), &sa, black_box(b.as_slice()), &sb, &mut out))
            });
            let plan = BinaryPlan::new(&sa, &sb, AutoBroadcast::Numpy).unwrap();
            group.bench_function("dynamic prepared", |bch| {
                bch.iter(|| plan.binary(black_box(a.as_slice()), black_box(b.as_slice()), BinaryOp::Add, &mut out).unwrap())
            });
            // The allocating forms, and ndarray's two forms, on the same shapes.
            let (da, db) = (DynTensor::from_shape_vec(sa, a.as_slice().to_vec()).unwrap(),
                DynTensor::from_shape_vec(sb, b.as_slice().to_vec()).unwrap());
            group.bench_function("DynTensor (allocating)", |bch| {
                bch.iter(|| black_box(&da).try_add(black_box(&db)).unwrap())
            });
            let na = ArrayD::from_shape_vec(IxDyn(&sa), a.as_slice().to_vec()).unwrap();
            let nb = ArrayD::from_shape_vec(IxDyn(&sb), b.as_slice().to_vec()).unwrap();
            group.bench_function("ndarray &a + &b (allocating)", |bch| {
                bch.iter(|| black_box(&na) + black_box(&nb))
            });
            let mut nd = &na + &nb;
            group.bench_function("ndarray Zip", |bch| {
                bch.iter(|| ndarray_add(&black_box(&na).view(), &black_box(&nb).view(), &mut nd))
            });
            group.finish();
        }};
    }
    case!("4x4+4x4", [4, 4], [4, 4]);
    case!("4x4+1x4", [4, 4], [1, 4]);
    case!("4x4+4x1", [4, 4], [4, 1]);
    case!("3x1+1x3", [3, 1], [1, 3]);
    case!("2x3x4+1x3x1", [2, 3, 4], [1, 3, 1]);
    case!("2x3x4+4", [2, 3, 4], [4]);
}

/// The small 2-D adds against ndarray's fastest form for them, `Array2` (`&a + &b`, and
/// `Zip` into an existing array against `binary_into`); the allocating `1024x1024 + 1x1024`
/// with static shapes on the heap, `DynTensor`, a hand loop filling a new `Vec` and ndarray's
/// `Array2`; and a mean over the last axis of `[8, 256, 56, 56]` with the axis kept.
/// Instruction counts of the same cases: `runtime_probe.rs`.
fn against_array2(c: &mut Criterion) {
    use ndarray::Array2;
    let cases: [(&str, [usize; 2], [usize; 2]); 4] = [
        ("4x4+4x4", [4, 4], [4, 4]),
        ("4x4+1x4", [4, 4], [1, 4]),
        ("4x4+4x1", [4, 4], [4, 1]),
        ("3x1+1x3", [3, 1], [1, 3]),
    ];
    for (name, sa, sb) in cases {
        let a = data(sa[0] * sa[1], 1.0);
        let b = data(sb[0] * sb[1], 2.0);
        let (da, db) = (
            DynTensor::from_shape_vec(sa, a.clone()).unwrap(),
            DynTensor::from_shape_vec(sb, b.clone()).unwrap(),
        );
        let (na, nb) = (
            Array2::from_shape_vec((sa[0], sa[1]), a.clone()).unwrap(),
            Array2::from_shape_vec((sb[0], sb[1]), b.clone()).unwrap(),
        );
        let mut nout = &na + &nb;
        let mut out = vec![0.0f32; nout.len()];
        assert_eq!(
            da.try_add(&db).unwrap().as_slice(),
            nout.as_slice().unwrap()
        );
        let mut g = c.benchmark_group(format!("array2 {name}"));
        g.bench_function("DynTensor", |bch| {
            bch.iter(|| black_box(&da).try_add(black_box(&db)).unwrap())
        });
        g.bench_function("ndarray &a + &b", |bch| {
            bch.iter(|| black_box(&na) + black_box(&nb))
        });
        g.bench_function("binary_into", |bch| {
            bch.iter(|| shaped_add(black_box(&a), &sa, black_box(&b), &sb, &mut out))
        });
        g.bench_function("ndarray Zip", |bch| {
            bch.iter(|| {
                Zip::from(&mut nout)
                    .and_broadcast(black_box(&na))
                    .and_broadcast(black_box(&nb))
                    .for_each(|o, &x, &y| *o = x + y)
            })
        });
        g.finish();
    }

    type A = Shape![1024, 1024];
    type B = Shape![1, 1024];
    let a = data(1024 * 1024, 1.0);
    let b = data(1024, 2.0);
    let ha = shaped::HeapTensor::<f32, A>::from_vec(a.clone()).unwrap();
    let hb = shaped::HeapTensor::<f32, B>::from_vec(b.clone()).unwrap();
    let da = DynTensor::from_shape_vec([1024, 1024], a.clone()).unwrap();
    let db = DynTensor::from_shape_vec([1, 1024], b.clone()).unwrap();
    let na = Array2::from_shape_vec((1024, 1024), a.clone()).unwrap();
    let nb = Array2::from_shape_vec((1, 1024), b.clone()).unwrap();
    let hand = |a: &[f32], b: &[f32]| {
        let mut out = Vec::with_capacity(a.len());
        for row in a.chunks_exact(1024) {
            out.extend(row.iter().zip(b).map(|(x, y)| x + y));
        }
        out
    };
    assert_eq!((&ha + &hb).as_slice(), &hand(&a, &b)[..]);
    let mut g = c.benchmark_group("allocating 1024x1024+1x1024");
    g.sample_size(30);
    g.bench_function("static HeapTensor", |bch| {
        bch.iter(|| black_box(&ha) + black_box(&hb))
    });
    g.bench_function("DynTensor", |bch| {
        bch.iter(|| black_box(&da).try_add(black_box(&db)).unwrap())
    });
    g.bench_function("hand", |bch| {
        bch.iter(|| hand(black_box(&a), black_box(&b)))
    });
    g.bench_function("ndarray Array2", |bch| {
        bch.iter(|| black_box(&na) + black_box(&nb))
    });
    g.finish();

    let shape = [8usize, 256, 56, 56];
    let x = data(shape.iter().product(), 0.25);
    let dx = DynTensor::from_shape_vec(shape, x.clone()).unwrap();
    let nx = ndarray::Array4::from_shape_vec(shape, x).unwrap();
    let mut g = c.benchmark_group("mean last axis keepdims 8x256x56x56");
    g.sample_size(20);
    g.bench_function("DynTensor", |bch| {
        bch.iter(|| black_box(&dx).mean(&[3], true).unwrap())
    });
    g.bench_function("ndarray mean_axis", |bch| {
        bch.iter(|| {
            black_box(&nx)
                .mean_axis(ndarray::Axis(3))
                .unwrap()
                .insert_axis(ndarray::Axis(3))
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2));
    targets = small, large, against_array2
}
criterion_main!(benches);
