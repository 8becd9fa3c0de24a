//! Instruction-count probe for callgrind: 1000 f32 adds of `4x4 + 4x1` (a small shape of the
//! static issue) through the runtime API chosen by `PROBE`: `none` (setup only), `dyn`
//! (`DynTensor::try_add`, allocating), `into` (`runtime::binary_into` into a preallocated
//! buffer), `prepared` (a `BinaryPlan` built once), and ndarray's `nd` (`&a + &b` on `ArrayD`,
//! allocating) and `ndzip` (`Zip` into an existing array), `nd2` and `ndzip2` the same on
//! `Array2` (ndarray's fastest form for these shapes). Per call = (variant - none) / 1000.
//!
//! Three large cases of the runtime benchmarks, run once each through `binary_into` after the
//! loop (so `none` subtracts their setup too): `big16` (`64x64x64x16 + 1x64x1x16`, rows of 16
//! under a broadcast axis), `outer` (`1024x1 + 1x1024`), `row` (`1024x1024 + 1x1024`).
//!
//! The allocating `1024x1024 + 1x1024`, run once after the loop: `heaprow` (static shapes,
//! `&HeapTensor + &HeapTensor`), `dynrow` (`DynTensor::try_add`), `handrow` (a hand loop
//! filling a new `Vec` row by row) and `ndrow` (`&a + &b` on `Array2`).
//!
//! ```text
//! cargo bench --no-run --bench runtime_probe
//! PROBE=dyn valgrind --tool=callgrind target/release/deps/runtime_probe-*[^.d]
//! ```

use std::hint::black_box;

use ndarray::{ArrayD, IxDyn, Zip};
use shaped::runtime::{binary_into, ArrayRef, BinaryPlan};
use shaped::{AutoBroadcast, BinaryOp, DynTensor};

fn main() {
    let which = std::env::var("PROBE").unwrap_or_else(|_| "none".into());
    // `SHAPE` picks the small case: `41` (the default) `4x4 + 4x1`, `44` `4x4 + 4x4` (one
    // contiguous run of 16), `14` `4x4 + 1x4`, `31` `3x1 + 1x3`.
    let (sa, sb): ([usize; 2], [usize; 2]) = match std::env::var("SHAPE").as_deref() {
        Ok("44") => ([4, 4], [4, 4]),
        Ok("14") => ([4, 4], [1, 4]),
        Ok("31") => ([3, 1], [1, 3]),
        _ => ([4, 4], [4, 1]),
    };
    let a: Vec<f32> = (0..sa[0] * sa[1]).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..sb[0] * sb[1]).map(|i| i as f32 + 0.5).collect();
    let (na, nb) = (
        ArrayD::from_shape_vec(IxDyn(&sa), a.clone()).unwrap(),
        ArrayD::from_shape_vec(IxDyn(&sb), b.clone()).unwrap(),
    );
    let mut nout = &na + &nb;
    let (na2, nb2) = (
        ndarray::Array2::from_shape_vec((sa[0], sa[1]), a.clone()).unwrap(),
        ndarray::Array2::from_shape_vec((sb[0], sb[1]), b.clone()).unwrap(),
    );
    let mut nout2 = &na2 + &nb2;
    // A small product, `[4, 4] x [4, 4]`: `mm` through `DynTensor::matmul`, `ndmm` ndarray's
    // `dot` on `Array2`.
    let m4: Vec<f32> = (0..16).map(|i| i as f32 * 0.5 - 3.0).collect();
    let dm = DynTensor::from_shape_vec([4, 4], m4.clone()).unwrap();
    let nm = ndarray::Array2::from_shape_vec((4, 4), m4).unwrap();
    let (da, db) = (
        DynTensor::from_shape_vec(sa, a.clone()).unwrap(),
        DynTensor::from_shape_vec(sb, b.clone()).unwrap(),
    );
    let plan = BinaryPlan::new(&sa, &sb, AutoBroadcast::Numpy).unwrap();
    let mut out = vec![0.0f32; nout.len()];
    let mut sum = 0.0f32;
    for _ in 0..1000 {
        match which.as_str() {
            "dyn" => sum += black_box(&da).try_add(black_box(&db)).unwrap().as_slice()[1],
            "into" => {
                binary_into(
                    ArrayRef::new(black_box(&sa), black_box(&a)).unwrap(),
                    ArrayRef::new(black_box(&sb), black_box(&b)).unwrap(),
                    BinaryOp::Add,
                    AutoBroadcast::Numpy,
                    &mut out,
                )
                .unwrap();
                sum += out[1];
            }
            "mm" => sum += black_box(&dm).matmul(black_box(&dm)).unwrap().as_slice()[1],
            "ndmm" => sum += black_box(&nm).dot(black_box(&nm))[[0, 1]],
            // ndarray: the allocating operator, and `Zip` into an existing array.
            "nd" => sum += (black_box(&na) + black_box(&nb)).as_slice().unwrap()[1],
            "nd2" => sum += (black_box(&na2) + black_box(&nb2)).as_slice().unwrap()[1],
            "ndzip2" => {
                Zip::from(&mut nout2)
                    .and_broadcast(black_box(&na2))
                    .and_broadcast(black_box(&nb2))
                    .for_each(|o, &x, &y| *o = x + y);
                sum += nout2.as_slice().unwrap()[1];
            }
            "ndzip" => {
                Zip::from(&mut nout)
                    .and_broadcast(black_box(&na))
                    .and_broadcast(black_box(&nb))
                    .for_each(|o, &x, &y| *o = x + y);
                sum += nout.as_slice().unwrap()[1];
            }
            "prepared" => {
                plan.binary(black_box(&a), black_box(&b), BinaryOp::Add, &mut out)
                    .unwrap();
                sum += out[1];
            }
            _ => {}
        }
    }
    // A mean over rows of 56 with kept axes, `[8, 256, 56, 56]` over its last axis: `mean`
    // through `DynTensor`, `ndmean` ndarray's `mean_axis`. Run once, after the loop.
    if which == "mean" || which == "ndmean" {
        let shape = [8usize, 256, 56, 56];
        let data: Vec<f32> = (0..shape.iter().product::<usize>())
            .map(|i| (i % 61) as f32 * 0.25)
            .collect();
        if which == "mean" {
            let t = DynTensor::from_shape_vec(shape, data).unwrap();
            sum += black_box(&t).mean(&[3], true).unwrap().as_slice()[3];
        } else {
            // `Array4`, and the axis kept (no copy), as `keepdims` does.
            let t = ndarray::Array4::from_shape_vec(shape, data).unwrap();
            let m = black_box(&t)
                .mean_axis(ndarray::Axis(3))
                .unwrap()
                .insert_axis(ndarray::Axis(3));
            sum += m.as_slice().unwrap()[3];
        }
    }
    let large: [(&str, &[usize], &[usize]); 3] = [
        ("big16", &[64, 64, 64, 16], &[1, 64, 1, 16]),
        ("outer", &[1024, 1], &[1, 1024]),
        ("row", &[1024, 1024], &[1, 1024]),
    ];
    for (name, sa, sb) in large {
        let (na, nb) = (sa.iter().product::<usize>(), sb.iter().product::<usize>());
        let out_len = na.max(nb) * if name == "outer" { 1024 } else { 1 };
        let a: Vec<f32> = (0..na).map(|i| (i % 97) as f32).collect();
        let b: Vec<f32> = (0..nb).map(|i| (i % 89) as f32 * 0.5).collect();
        let mut out = vec![0.0f32; out_len];
        if which == name {
            binary_into(
                ArrayRef::new(black_box(sa), black_box(&a)).unwrap(),
                ArrayRef::new(black_box(sb), black_box(&b)).unwrap(),
                BinaryOp::Add,
                AutoBroadcast::Numpy,
                &mut out,
            )
            .unwrap();
        }
        sum += black_box(&out)[out_len - 1];
    }
    // The allocating `1024x1024 + 1x1024` on static shapes, `DynTensor`, a hand loop and
    // ndarray; the inputs are made in every variant, so `none` subtracts them.
    {
        type A = shaped::Shape![1024, 1024];
        type B = shaped::Shape![1, 1024];
        let a: Vec<f32> = (0..1024 * 1024).map(|i| (i % 97) as f32).collect();
        let b: Vec<f32> = (0..1024).map(|i| (i % 89) as f32 * 0.5).collect();
        let ha = shaped::HeapTensor::<f32, A>::from_vec(a.clone()).unwrap();
        let hb = shaped::HeapTensor::<f32, B>::from_vec(b.clone()).unwrap();
        let da = DynTensor::from_shape_vec([1024, 1024], a.clone()).unwrap();
        let db = DynTensor::from_shape_vec([1, 1024], b.clone()).unwrap();
        let na = ndarray::Array2::from_shape_vec((1024, 1024), a.clone()).unwrap();
        let nb = ndarray::Array2::from_shape_vec((1, 1024), b.clone()).unwrap();
        let last = match which.as_str() {
            "heaprow" => (black_box(&ha) + black_box(&hb)).as_slice()[1024 * 1024 - 1],
            "dynrow" => black_box(&da).try_add(black_box(&db)).unwrap().as_slice()[1024 * 1024 - 1],
            "ndrow" => (black_box(&na) + black_box(&nb)).as_slice().unwrap()[1024 * 1024 - 1],
            "handrow" => {
                let (a, b) = (black_box(&a), black_box(&b));
                let mut out = Vec::with_capacity(a.len());
                for row in a.chunks_exact(1024) {
                    out.extend(row.iter().zip(b).map(|(x, y)| x + y));
                }
                out[1024 * 1024 - 1]
            }
            _ => 0.0,
        };
        sum += last;
    }
    println!("{which}: {sum}");
}
