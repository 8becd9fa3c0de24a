//! Instruction-count probe for callgrind: short inner rows, per element. `PROBE` picks one
//! call, measured alone (`--toggle-collect='*short_rows_probe::measure*'`); `PERIOD` the row
//! length `n` (default 3), over `16384 * 3 / n` rows:
//!
//! * `sub` / `handsub`: `[m, n] - [n]` through `runtime::binary_into` into a buffer, and the
//!   hand loop over rows (`chunks_exact(n)`);
//! * `dynsub`: the same through `DynTensor::binary` (allocating);
//! * `staticsub`: `HeapTensor<[16384, 3]> - Tensor<[3]>` (period 3 only);
//! * `sum` / `handsum`: the sum over axis 0 of `[m, n]` (`DynTensor::sum`), and the hand loop
//!   accumulating each row into `n` sums;
//! * `max` / `handmax`: the same for the maximum.
//!
//! ```text
//! cargo bench --no-run --bench short_rows_probe
//! PROBE=sub valgrind --tool=callgrind --toggle-collect='*short_rows_probe::measure*' \
//!     target/release/deps/short_rows_probe-*[^.d]
//! ```

// `&a - &b` on static tensors, as the docs write it (clippy would copy the right one).
#![allow(clippy::op_ref)]

use std::hint::black_box;

use shaped::runtime::{binary_into, ArrayRef};
use shaped::{AutoBroadcast, BinaryOp, DynTensor, HeapTensor, Shape, Tensor};

const ELEMENTS: usize = 16384 * 3;

#[inline(never)]
fn measure<R>(f: impl FnOnce() -> R) -> R {
    black_box(f())
}

fn main() {
    let which = std::env::var("PROBE").unwrap_or_else(|_| "sub".into());
    let n: usize = std::env::var("PERIOD")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(3);
    let m = ELEMENTS / n;
    let a: Vec<f32> = (0..m * n)
        .map(|i| (i % 1000) as f32 * 0.001 + 0.25)
        .collect();
    let b: Vec<f32> = (0..n).map(|i| i as f32 + 0.5).collect();
    let mut out = vec![0.0f32; m * n];
    let da = DynTensor::from_shape_vec([m, n], a.clone()).unwrap();
    let db = DynTensor::from_shape_vec([n], b.clone()).unwrap();
    let sa =
        HeapTensor::<f32, Shape![16384, 3]>::from_vec((0..ELEMENTS).map(|i| i as f32).collect())
            .unwrap();
    let sb = Tensor::<f32, Shape![3]>::try_from(&[0.5f32, 1.5, 2.5][..]).unwrap();
    let mut acc = 0.0f32;
    match which.as_str() {
        "sub" => measure(|| {
            binary_into(
                ArrayRef::new(&[m, n], &a).unwrap(),
                ArrayRef::new(&[n], &b).unwrap(),
                BinaryOp::Sub,
                AutoBroadcast::Numpy,
                &mut out,
            )
            .unwrap()
        }),
        "handsub" => measure(|| {
            for (o, x) in out.chunks_exact_mut(n).zip(a.chunks_exact(n)) {
                for ((o, x), y) in o.iter_mut().zip(x).zip(&b) {
                    *o = x - y;
                }
            }
        }),
        "dynsub" => {
            acc += measure(|| da.binary(&db, BinaryOp::Sub, AutoBroadcast::Numpy).unwrap())
                .as_slice()[1]
        }
        "staticsub" => acc += measure(|| &sa - &sb).as_slice()[1],
        "sum" => acc += measure(|| da.sum(&[0], false).unwrap()).as_slice()[0],
        "handsum" => {
            acc += measure(|| {
                let mut s = vec![0.0f32; n];
                for row in a.chunks_exact(n) {
                    for (s, &x) in s.iter_mut().zip(row) {
                        *s += x;
                    }
                }
                s
            })[0]
        }
        "max" => acc += measure(|| da.max(&[0], false).unwrap()).as_slice()[0],
        "handmax" => {
            acc += measure(|| {
                let mut s = a[..n].to_vec();
                for row in a.chunks_exact(n) {
                    for (s, &x) in s.iter_mut().zip(row) {
                        *s = s.max(x);
                    }
                }
                s
            })[0]
        }
        _ => {}
    }
    black_box((acc, &out));
}
