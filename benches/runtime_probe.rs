//! Instruction-count probe for callgrind: 1000 f32 adds of `4x4 + 4x1` (a small shape of the
//! static issue) through the runtime API chosen by `PROBE`: `none` (setup only), `dyn`
//! (`DynTensor::try_add`, allocating), `into` (`runtime::binary_into` into a preallocated
//! buffer), `prepared` (a `BinaryPlan` built once). Per call = (variant - none) / 1000.
//!
//! Three large cases of the runtime benchmarks, run once each through `binary_into` after the
//! loop (so `none` subtracts their setup too): `big16` (`64x64x64x16 + 1x64x1x16`, rows of 16
//! under a broadcast axis), `outer` (`1024x1 + 1x1024`), `row` (`1024x1024 + 1x1024`).
//!
//! ```text
//! cargo bench --no-run --bench runtime_probe
//! PROBE=dyn valgrind --tool=callgrind target/release/deps/runtime_probe-*[^.d]
//! ```

use std::hint::black_box;

use shaped::runtime::{binary_into, ArrayRef, BinaryPlan};
use shaped::{AutoBroadcast, BinaryOp, DynTensor};

fn main() {
    let which = std::env::var("PROBE").unwrap_or_else(|_| "none".into());
    // `SHAPE=44` probes `4x4 + 4x4` (one contiguous run of 16) instead of `4x4 + 4x1`.
    let b_rows = match std::env::var("SHAPE").as_deref() {
        Ok("44") => 4,
        _ => 1,
    };
    let (sa, sb) = ([4usize, 4], [4usize, b_rows]);
    let a: Vec<f32> = (0..16).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..4 * b_rows).map(|i| i as f32 + 0.5).collect();
    let (da, db) = (
        DynTensor::from_shape_vec(sa, a.clone()).unwrap(),
        DynTensor::from_shape_vec(sb, b.clone()).unwrap(),
    );
    let plan = BinaryPlan::new(&sa, &sb, AutoBroadcast::Numpy).unwrap();
    let mut out = vec![0.0f32; 16];
    let mut sum = 0.0f32;
    for _ in 0..1000 {
        match which.as_str() {
            "dyn" => sum += black_box(&da).try_add(black_box(&db)).unwrap().as_slice()[5],
            "into" => {
                binary_into(
                    ArrayRef::new(black_box(&sa), black_box(&a)).unwrap(),
                    ArrayRef::new(black_box(&sb), black_box(&b)).unwrap(),
                    BinaryOp::Add,
                    AutoBroadcast::Numpy,
                    &mut out,
                )
                .unwrap();
                sum += out[5];
            }
            "prepared" => {
                plan.binary(black_box(&a), black_box(&b), BinaryOp::Add, &mut out)
                    .unwrap();
                sum += out[5];
            }
            _ => {}
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
    println!("{which}: {sum}");
}
