//! Instruction-count probe for callgrind: the built-in numerics (`softmax`, `log_softmax`,
//! `layer_norm`, `rms_norm`) against the same steps composed from the public operators, on
//! static `Tensor`s and on `DynTensor`s, and a head-split permute against a hand loop and
//! ndarray. `PROBE` picks the case (`none` is setup only), `SHAPE` the shape (`32x64`, the
//! default, or `128x512`, a `HeapTensor`; the permute cases are `[2, 16, 4, 16] -> [2, 4, 16, 16]`), `N`
//! the calls (default 1000). Per call = (case - none) / N.
//!
//! ```text
//! cargo bench --no-run --bench numerics_probe
//! PROBE=softmax-static SHAPE=32x64 valgrind --tool=callgrind target/release/deps/numerics_probe-*[^.d]
//! ./numerics_probe.sh            # every case, the instructions a call
//! ```
//!
//! Cases: `{softmax,log_softmax,layer_norm,rms_norm}-{static,dyn}` (built-in),
//! `{...}-{static,dyn}-composed` (operators), `permute-{static,dyn,hand,ndarray}`, and
//! `std` along axis 0: `std0-{dyn,ndarray,hand}` on `[100000, 12]`, `std0-{static,ndarray3,hand3}`
//! on `[16384, 3]` (setup only: `none-std0`, `none-std03`).

// By-reference operands: the tensors here are kilobytes, and a by-value operand is a copy.
#![allow(clippy::op_ref)]

use std::hint::black_box;

use ndarray::{Array4, ArrayD};
use shaped::{Axes, DynTensor, HeapTensor, Shape, Tensor};

const EPS: f32 = 1e-5;

/// Deterministic values in about [-4, 4): element `i`.
fn value(i: usize) -> f32 {
    ((i * 7919) % 1000) as f32 / 125.0 - 4.0
}

/// One call of `case` on static `[R, C]` data (a function per shape), its last axis
/// normalized; an element of the result, so that nothing is optimized away.
macro_rules! static_case {
    ($name:ident, $t:ty) => {
        fn $name(case: &str, x: &$t) -> f32 {
            let x = black_box(x);
            let y = match case {
                "softmax-static" => x.softmax::<1>(),
                "log_softmax-static" => x.log_softmax::<1>(),
                "layer_norm-static" => x.layer_norm::<1>(EPS),
                "rms_norm-static" => x.rms_norm::<1>(EPS),
                "softmax-static-composed" => {
                    let e = (x - &x.max_keepdims::<1>()).exp();
                    &e / &e.sum_keepdims::<1>()
                }
                "log_softmax-static-composed" => {
                    let d = x - &x.max_keepdims::<1>();
                    let ls = d.exp().sum_keepdims::<1>().ln();
                    &d - &ls
                }
                "layer_norm-static-composed" => {
                    let centered = x - &x.mean_keepdims::<1>();
                    let var = (&centered * &centered).mean_keepdims::<1>();
                    &centered / &(var + EPS).sqrt()
                }
                "rms_norm-static-composed" => {
                    let ms = (x * x).mean_keepdims::<1>();
                    x / &(ms + EPS).sqrt()
                }
                _ => return 0.0,
            };
            black_box(&y).as_slice()[7]
        }
    };
}
static_case!(static_small, Tensor<f32, Shape![32, 64]>);
// Past the inline limit (64 KiB): on the heap.
static_case!(static_large, HeapTensor<f32, Shape![128, 512]>);

/// One call of `case` on a `DynTensor`, its last axis normalized.
fn dyn_case(case: &str, x: &DynTensor<f32>) -> f32 {
    let x = black_box(x);
    let y = match case {
        "softmax-dyn" => x.softmax(-1).unwrap(),
        "log_softmax-dyn" => x.log_softmax(-1).unwrap(),
        "layer_norm-dyn" => x.layer_norm(-1, EPS).unwrap(),
        "rms_norm-dyn" => x.rms_norm(-1, EPS).unwrap(),
        "softmax-dyn-composed" => {
            let e = (x - &x.max(&[-1], true).unwrap()).exp();
            &e / &e.sum(&[-1], true).unwrap()
        }
        "log_softmax-dyn-composed" => {
            let d = x - &x.max(&[-1], true).unwrap();
            let ls = d.exp().sum(&[-1], true).unwrap().ln();
            &d - &ls
        }
        "layer_norm-dyn-composed" => {
            let centered = x - &x.mean(&[-1], true).unwrap();
            let var = (&centered * &centered).mean(&[-1], true).unwrap();
            &centered / &(&var + EPS).sqrt()
        }
        "rms_norm-dyn-composed" => {
            let ms = (x * x).mean(&[-1], true).unwrap();
            x / &(&ms + EPS).sqrt()
        }
        _ => return 0.0,
    };
    black_box(&y).as_slice()[7]
}

type Split = Tensor<f32, Shape![2, 16, 4, 16]>;

/// `[2, 16, 4, 16] -> [2, 4, 16, 16]` by hand: runs of 16 copied in output order.
#[inline(never)]
fn hand_permute(x: &[f32], out: &mut [f32]) {
    for b in 0..2 {
        for h in 0..4 {
            for t in 0..16 {
                let src = ((b * 16 + t) * 4 + h) * 16;
                let dst = ((b * 4 + h) * 16 + t) * 16;
                out[dst..dst + 16].copy_from_slice(&x[src..src + 16]);
            }
        }
    }
}

/// One head-split permute.
fn permute_case(
    case: &str,
    s: &Split,
    d: &DynTensor<f32>,
    n: &Array4<f32>,
    buf: &mut [f32],
) -> f32 {
    match case {
        "permute-static" => {
            let y: Tensor<f32, Shape![2, 4, 16, 16]> = black_box(s).permute::<Axes![0, 2, 1, 3]>();
            black_box(&y).as_slice()[7]
        }
        "permute-dyn" => {
            let y = black_box(d).permute([0, 2, 1, 3]).unwrap();
            black_box(&y).as_slice()[7]
        }
        "permute-hand" => {
            hand_permute(black_box(s.as_slice()), buf);
            black_box(&buf)[7]
        }
        "permute-ndarray" => {
            let y = black_box(n)
                .view()
                .permuted_axes([0, 2, 1, 3])
                .as_standard_layout()
                .into_owned();
            black_box(&y).as_slice().unwrap()[7]
        }
        _ => 0.0,
    }
}

/// `calls` calls of `case` on `[rows, cols]` data; `stat` is the static case of that shape.
fn run<X>(case: &str, calls: usize, x: &X, d: &DynTensor<f32>, stat: fn(&str, &X) -> f32) {
    let s = Split::from_fn(|[a, b, c, e]| value(((a * 16 + b) * 4 + c) * 16 + e));
    let ds = DynTensor::from_shape_vec([2, 16, 4, 16], s.as_slice().to_vec()).unwrap();
    let n = ArrayD::from_shape_vec(vec![2, 16, 4, 16], s.as_slice().to_vec())
        .unwrap()
        .into_dimensionality()
        .unwrap();
    let mut buf = vec![0.0f32; 2048];
    let mut sum = 0.0f32;
    for _ in 0..calls {
        sum += if case.starts_with("permute") {
            permute_case(case, &s, &ds, &n, &mut buf)
        } else if case.contains("-static") {
            stat(case, x)
        } else {
            dyn_case(case, d)
        };
    }
    println!("{case}: {sum}");
}

/// `[a, b]` by hand: per column, the mean, then the sum of squared deviations, both in
/// order along the rows, then `sqrt(ss / n)`: the two passes walked by whole rows.
#[inline(never)]
fn hand_std0(x: &[f32], cols: usize, mean: &mut [f32], out: &mut [f32]) {
    let rows = x.len() / cols;
    mean.fill(0.0);
    out.fill(0.0);
    for row in x.chunks_exact(cols) {
        for (m, &v) in mean.iter_mut().zip(row) {
            *m += v;
        }
    }
    for m in mean.iter_mut() {
        *m /= rows as f32;
    }
    for row in x.chunks_exact(cols) {
        for ((s, &m), &v) in out.iter_mut().zip(mean.iter()).zip(row) {
            *s += (v - m) * (v - m);
        }
    }
    for s in out.iter_mut() {
        *s = (*s / rows as f32).sqrt();
    }
}

/// `std` along axis 0 (strided lanes): `std0-{dyn,ndarray,hand}` on `[100000, 12]`,
/// `std0-{static,ndarray3,hand3}` on `[16384, 3]` (a `HeapTensor`); `calls` calls.
fn run_std0(case: &str, calls: usize) {
    let wide = !case.ends_with('3') && case != "std0-static";
    let (rows, cols) = if wide { (100_000, 12) } else { (16_384, 3) };
    let data: Vec<f32> = (0..rows * cols).map(value).collect();
    let d = DynTensor::from_shape_vec([rows, cols], data.clone()).unwrap();
    let n = ndarray::Array2::from_shape_vec((rows, cols), data.clone()).unwrap();
    let s = HeapTensor::<f32, Shape![16384, 3]>::from_fn(|[i, j]| value(i * 3 + j));
    let (mut mean, mut out) = (vec![0.0f32; cols], vec![0.0f32; cols]);
    let mut sum = 0.0f32;
    for _ in 0..calls {
        sum += match case {
            "std0-dyn" => black_box(&d).std(&[0], 0, true).unwrap().as_slice()[1],
            "std0-static" => black_box(&s).std_axis::<0>(0).as_slice()[1],
            "std0-ndarray" | "std0-ndarray3" => black_box(&n).std_axis(ndarray::Axis(0), 0.0)[1],
            "std0-hand" | "std0-hand3" => {
                hand_std0(black_box(&data), cols, &mut mean, &mut out);
                black_box(&out)[1]
            }
            _ => 0.0,
        };
    }
    println!("{case}: {sum}");
}

fn main() {
    let case = std::env::var("PROBE").unwrap_or_else(|_| "none".into());
    let calls = std::env::var("N")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1000);
    if case.starts_with("std0") || case.starts_with("none-std0") {
        run_std0(&case, calls);
        return;
    }
    let large = std::env::var("SHAPE").as_deref() == Ok("128x512");
    let (rows, cols) = if large { (128, 512) } else { (32, 64) };
    let d = DynTensor::from_shape_vec([rows, cols], (0..rows * cols).map(value).collect()).unwrap();
    if large {
        let x = HeapTensor::<f32, Shape![128, 512]>::from_fn(|[i, j]| value(i * 512 + j));
        run(&case, calls, &x, &d, static_large);
    } else {
        let x = Tensor::<f32, Shape![32, 64]>::from_fn(|[i, j]| value(i * 64 + j));
        run(&case, calls, &x, &d, static_small);
    }
}
