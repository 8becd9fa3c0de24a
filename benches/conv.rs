//! Convolutions (issue 51's layers): int8 `CONV_2D` 3x3 24x24x16 -> 24x24x32 (SAME), 1x1
//! 6x6x128 -> 6x6x128, and `DEPTHWISE_CONV_2D` 3x3 48x48x8 (SAME), TFLM's contract, against a
//! plain Rust loop nest of the same contract (TFLM's reference loops, written here) and
//! against shaped's f32 convolution of the same shape; the f32 3x3 convolution against
//! ndarray's im2col + gemm. Throughput is in multiply-adds.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use ndarray::Array2;
use shaped::conv::{ConvParams, Padding, QConv2d};
use shaped::quant::{Activation, PerAxis, Quant, Rounding};
use shaped::runtime::{conv2d_into, depthwise_conv2d_into, ArrayRef};

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

/// TFLM's `MultiplyByQuantizedMultiplier` (double rounding) for a multiplier below 1.
#[inline(always)]
fn requant(x: i32, m: i32, shift: i32) -> i32 {
    divide_pot(high_mul(x, m), -shift)
}

/// TFLM's frexp-based `QuantizeMultiplier` for `0 < m < 1`.
fn multiplier(m: f64) -> (i32, i32) {
    let (mut f, mut e) = (m, 0);
    while f < 0.5 {
        f *= 2.0;
        e -= 1;
    }
    let mut q = (f * 2f64.powi(31)).round() as i64;
    if q == 1 << 31 {
        q /= 2;
        e += 1;
    }
    (q as i32, e)
}

struct Layer {
    name: &'static str,
    input: [usize; 4],
    filter: [usize; 4],
    depthwise: bool,
}

/// TFLM's `ConvPerChannel` / `DepthwiseConvPerChannel` loops, SAME padding, stride 1.
#[allow(clippy::too_many_arguments)]
fn hand_conv(
    l: &Layer,
    x: &[i8],
    w: &[i8],
    bias: &[i32],
    mult: &[(i32, i32)],
    in_off: i32,
    out_off: i32,
    out: &mut [i8],
) {
    let [_, h, wd, c] = l.input;
    let [f0, kh, kw, f3] = l.filter;
    let oc = if l.depthwise { f3 } else { f0 };
    let (ph, pw) = ((kh - 1) / 2, (kw - 1) / 2);
    for y in 0..h {
        for xx in 0..wd {
            for o in 0..oc {
                let mut acc = 0i32;
                for i in 0..kh {
                    let iy = y as isize + i as isize - ph as isize;
                    if iy < 0 || iy >= h as isize {
                        continue;
                    }
                    for j in 0..kw {
                        let ix = xx as isize + j as isize - pw as isize;
                        if ix < 0 || ix >= wd as isize {
                            continue;
                        }
                        let base = (iy as usize * wd + ix as usize) * c;
                        if l.depthwise {
                            let v = x[base + o] as i32 + in_off;
                            acc += w[(i * kw + j) * oc + o] as i32 * v;
                        } else {
                            for ci in 0..c {
                                let v = x[base + ci] as i32 + in_off;
                                acc += w[((o * kh + i) * kw + j) * c + ci] as i32 * v;
                            }
                        }
                    }
                }
                acc += bias[o];
                let (m, s) = mult[o];
                let v = requant(acc, m, s) + out_off;
                out[(y * wd + xx) * oc + o] = v.clamp(-128, 127) as i8;
            }
        }
    }
}

/// ndarray's im2col + gemm for a SAME, stride-1 f32 convolution.
fn ndarray_conv(l: &Layer, x: &[f32], w: &Array2<f32>, cols: &mut Array2<f32>) -> Array2<f32> {
    let [_, h, wd, c] = l.input;
    let [_, kh, kw, _] = l.filter;
    let (ph, pw) = ((kh - 1) / 2, (kw - 1) / 2);
    for y in 0..h {
        for xx in 0..wd {
            let mut row = cols.row_mut(y * wd + xx);
            let mut at = 0;
            for i in 0..kh {
                for j in 0..kw {
                    let (iy, ix) = (
                        y as isize + i as isize - ph as isize,
                        xx as isize + j as isize - pw as isize,
                    );
                    let inside = iy >= 0 && iy < h as isize && ix >= 0 && ix < wd as isize;
                    for ci in 0..c {
                        row[at] = if inside {
                            x[(iy as usize * wd + ix as usize) * c + ci]
                        } else {
                            0.0
                        };
                        at += 1;
                    }
                }
            }
        }
    }
    cols.dot(&w.t())
}

fn bench(c: &mut Criterion) {
    let layers = [
        Layer {
            name: "conv 3x3 24x24x16->32",
            input: [1, 24, 24, 16],
            filter: [32, 3, 3, 16],
            depthwise: false,
        },
        Layer {
            name: "conv 1x1 6x6x128->128",
            input: [1, 6, 6, 128],
            filter: [128, 1, 1, 128],
            depthwise: false,
        },
        Layer {
            name: "depthwise 3x3 48x48x8",
            input: [1, 48, 48, 8],
            filter: [1, 3, 3, 8],
            depthwise: true,
        },
    ];
    for l in &layers {
        let n_in: usize = l.input.iter().product();
        let n_w: usize = l.filter.iter().product();
        let oc = if l.depthwise {
            l.filter[3]
        } else {
            l.filter[0]
        };
        let n_out = l.input[1] * l.input[2] * oc;
        let macs =
            (n_out * l.filter[1] * l.filter[2] * if l.depthwise { 1 } else { l.input[3] }) as u64;
        let x: Vec<i8> = (0..n_in).map(|i| (i * 37 % 251) as i8).collect();
        let w: Vec<i8> = (0..n_w).map(|i| (i * 11 % 255) as i8).collect();
        let bias: Vec<i32> = (0..oc).map(|o| o as i32 * 97 - 1000).collect();
        let scales: Vec<f32> = (0..oc).map(|o| 0.002 + o as f32 * 1e-5).collect();
        let zeros = vec![0i32; oc];
        let (qin, qout) = (
            Quant::<i8>::new(0.05, -7).unwrap(),
            Quant::<i8>::new(0.08, 3).unwrap(),
        );
        let mult: Vec<(i32, i32)> = scales
            .iter()
            .map(|&s| multiplier(0.05f32 as f64 * s as f64 / 0.08f32 as f64))
            .collect();
        let params = ConvParams::new(Padding::Same);
        let mut out = vec![0i8; n_out];
        let mut expect = vec![0i8; n_out];
        hand_conv(l, &x, &w, &bias, &mult, 7, 3, &mut expect);

        macro_rules! run_shaped {
            ($n:literal) => {{
                let s: &'static [f32; $n] = Box::leak(scales.clone().try_into().unwrap());
                let z: &'static [i32; $n] = Box::leak(zeros.clone().try_into().unwrap());
                let op = QConv2d::new(
                    qin,
                    PerAxis::new(s, z).unwrap(),
                    qout,
                    Activation::None,
                    Rounding::Double,
                )
                .unwrap();
                let run = |out: &mut [i8]| {
                    let (xa, wa) = (
                        ArrayRef::new(&l.input, &x).unwrap(),
                        ArrayRef::new(&l.filter, &w).unwrap(),
                    );
                    if l.depthwise {
                        op.depthwise_conv2d_array_into(xa, wa, Some(&bias), &params, out)
                            .unwrap();
                    } else {
                        op.conv2d_array_into(xa, wa, Some(&bias), &params, out)
                            .unwrap();
                    }
                };
                run(&mut out);
                assert_eq!(out, expect, "{}: the hand loop is the contract", l.name);
                let mut group = c.benchmark_group(format!("int8 {}", l.name));
                group.throughput(Throughput::Elements(macs));
                group.sample_size(20);
                group.bench_function("shaped int8", |b| b.iter(|| run(black_box(&mut out))));
                group.bench_function("loop nest int8", |b| {
                    b.iter(|| {
                        hand_conv(
                            l,
                            black_box(&x),
                            black_box(&w),
                            &bias,
                            &mult,
                            7,
                            3,
                            black_box(&mut out),
                        )
                    })
                });
                let xf: Vec<f32> = x.iter().map(|&v| v as f32 / 32.0).collect();
                let wf: Vec<f32> = w.iter().map(|&v| v as f32 / 32.0).collect();
                let mut outf = vec![0.0f32; n_out];
                group.bench_function("shaped f32", |b| {
                    b.iter(|| {
                        let (xa, wa) = (
                            ArrayRef::new(&l.input, &xf).unwrap(),
                            ArrayRef::new(&l.filter, &wf).unwrap(),
                        );
                        if l.depthwise {
                            depthwise_conv2d_into(xa, wa, None, &params, black_box(&mut outf))
                                .unwrap()
                        } else {
                            conv2d_into(xa, wa, None, &params, black_box(&mut outf)).unwrap()
                        }
                    })
                });
                if !l.depthwise {
                    let k = l.filter[1] * l.filter[2] * l.input[3];
                    let wm = Array2::from_shape_vec((oc, k), wf.clone()).unwrap();
                    let mut cols = Array2::<f32>::zeros((l.input[1] * l.input[2], k));
                    let y = ndarray_conv(l, &xf, &wm, &mut cols);
                    let mut mine = vec![0.0f32; n_out];
                    conv2d_into(
                        ArrayRef::new(&l.input, &xf).unwrap(),
                        ArrayRef::new(&l.filter, &wf).unwrap(),
                        None,
                        &params,
                        &mut mine,
                    )
                    .unwrap();
                    for (a, b) in y.iter().zip(&mine) {
                        assert!((a - b).abs() <= 1e-3 * b.abs().max(1.0), "{a} vs {b}");
                    }
                    group.bench_function("ndarray f32 im2col+gemm", |b| {
                        b.iter(|| black_box(ndarray_conv(l, black_box(&xf), &wm, &mut cols)))
                    });
                }
                group.finish();
            }};
        }
        match oc {
            8 => run_shaped!(8),
            32 => run_shaped!(32),
            128 => run_shaped!(128),
            _ => unreachable!(),
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
