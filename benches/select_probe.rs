//! Instruction-count probe for callgrind: selection by a condition (`where_cond`, W1) on
//! `[100000, 12]` f32 values, the shapes of a statistics program, run `REPS` times through the
//! variant chosen by `PROBE` (per element = (variant - `none`) / (REPS * 1.2 M)).
//!
//! `CASE` picks the shapes: `col` (the default) a `[N, 1]` mask, `[N, 12]` values and a scalar
//! `0.0`; `full` three `[N, 12]` inputs; `row` a `[1, 12]` mask, `[N, 12]` values and a scalar.
//! `PROBE`: `none` (setup only), `dyn` (`DynTensor::where_cond`, allocating), `into`
//! (`runtime::where_into` into a preallocated buffer), `hand` (a hand loop into a new `Vec`),
//! `nd` (ndarray's `Zip` over the broadcast inputs into an existing `ArrayD`). And the line
//! that makes the mask: `gt` (`z.narrow(1, 0, 1)?.try_gt(&scalar)`), `narrow` (the narrow
//! alone), `add` (`z.narrow(1, 0, 1)?.try_add(&scalar)`, the binary op it is compared with).
//!
//! ```text
//! cargo bench --no-run --bench select_probe
//! CASE=col PROBE=dyn valgrind --tool=callgrind target/release/deps/select_probe-*[^.d]
//! ```

use std::hint::black_box;

use ndarray::{ArrayD, IxDyn, Zip};
use shaped::runtime::{where_into, ArrayRef};
use shaped::DynTensor;

const N: usize = 100_000;
const W: usize = 12;
const REPS: usize = 5;

fn main() {
    let which = std::env::var("PROBE").unwrap_or_else(|_| "none".into());
    let case = std::env::var("CASE").unwrap_or_else(|_| "col".into());
    let z: Vec<f32> = (0..N * W)
        .map(|i| ((i * 7919) % 1013) as f32 - 500.0)
        .collect();
    // The mask's and the other value's shapes per case.
    let (sm, se): (Vec<usize>, Vec<usize>) = match case.as_str() {
        "full" => (vec![N, W], vec![N, W]),
        "row" => (vec![1, W], vec![]),
        _ => (vec![N, 1], vec![]),
    };
    let m: Vec<bool> = (0..sm.iter().product::<usize>())
        .map(|i| (i * 31) % 7 < 4)
        .collect();
    let e: Vec<f32> = (0..se.iter().product::<usize>())
        .map(|i| i as f32 * 0.25)
        .collect();
    let shape = [N, W];
    let (dz, dm, de) = (
        DynTensor::from_shape_vec(shape, z.clone()).unwrap(),
        DynTensor::from_shape_vec(sm.clone(), m.clone()).unwrap(),
        DynTensor::from_shape_vec(se.clone(), e.clone()).unwrap(),
    );
    let (nz, nm, ne) = (
        ArrayD::from_shape_vec(IxDyn(&shape), z.clone()).unwrap(),
        ArrayD::from_shape_vec(IxDyn(&sm), m.clone()).unwrap(),
        ArrayD::from_shape_vec(IxDyn(&se), e.clone()).unwrap(),
    );
    let mut nout = ArrayD::<f32>::zeros(IxDyn(&shape));
    let mut out = vec![0.0f32; N * W];
    let zero = DynTensor::scalar(0.0f32);
    let mut sum = 0.0f32;
    for _ in 0..REPS {
        match which.as_str() {
            "dyn" => {
                let y = DynTensor::where_cond(black_box(&dm), black_box(&dz), black_box(&de));
                sum += y.unwrap().as_slice()[W + 1];
            }
            "into" => {
                where_into(
                    ArrayRef::new(&sm, black_box(&m)).unwrap(),
                    ArrayRef::new(&shape, black_box(&z)).unwrap(),
                    ArrayRef::new(&se, black_box(&e)).unwrap(),
                    &mut out,
                )
                .unwrap();
                sum += out[W + 1];
            }
            "hand" => {
                let y = hand(&case, black_box(&m), black_box(&z), black_box(&e));
                sum += y[W + 1];
            }
            "nd" => {
                let mask = black_box(&nm).broadcast(IxDyn(&shape)).unwrap();
                Zip::from(&mut nout)
                    .and(&mask)
                    .and(black_box(&nz))
                    .and_broadcast(black_box(&ne))
                    .for_each(|o, &c, &x, &y| *o = if c { x } else { y });
                sum += nout.as_slice().unwrap()[W + 1];
            }
            "gt" => {
                let keep = black_box(&dz).narrow(1, 0, 1).unwrap().try_gt(&zero);
                sum += f32::from(u8::from(keep.unwrap().as_slice()[1]));
            }
            "narrow" => sum += black_box(&dz).narrow(1, 0, 1).unwrap().as_slice()[1],
            "add" => {
                let y = black_box(&dz).narrow(1, 0, 1).unwrap().try_add(&zero);
                sum += y.unwrap().as_slice()[1];
            }
            _ => {}
        }
    }
    println!("{sum}");
}

/// The loop a user writes for each case, into a new `Vec`.
#[inline(never)]
fn hand(case: &str, m: &[bool], z: &[f32], e: &[f32]) -> Vec<f32> {
    let mut out = vec![0.0f32; N * W];
    let rows = out.chunks_exact_mut(W).zip(z.chunks_exact(W));
    match case {
        "full" => {
            for ((o, (&x, &y)), &c) in out.iter_mut().zip(z.iter().zip(e)).zip(m) {
                *o = if c { x } else { y };
            }
        }
        "row" => {
            let y = e[0];
            for (o, x) in rows {
                for ((o, &x), &c) in o.iter_mut().zip(x).zip(m) {
                    *o = if c { x } else { y };
                }
            }
        }
        _ => {
            let y = e[0];
            for ((o, x), &c) in rows.zip(m) {
                for (o, &x) in o.iter_mut().zip(x) {
                    *o = if c { x } else { y };
                }
            }
        }
    }
    out
}
