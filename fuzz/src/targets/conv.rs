//! Convolutions and pools (K1-K8) on any small shapes and windows: `DynTensor::conv2d`,
//! `depthwise_conv2d`, `avg_pool2d` and `max_pool2d` on `f32`, and the int8 convolution and
//! pools, against references that follow RULES.md tap by tap (K1's sizes and padding, the
//! taps outside the input skipped, K5's order, K7's and K8's integer steps). Floats are
//! compared as bits, weights include infinities and NaN; a shape or window the rules refuse
//! must be an error, and then the reference must have refused it too.
use super::super::Input;
use shaped::conv::{ConvParams, DynQConv2d, Padding, Window2d};
use shaped::quant::{fixedpoint, Activation, DynPerAxis, Quant, Rounding};
use shaped::DynTensor;

/// K1 for one axis: `(out, pad_before)`, or `None` where the rules refuse.
fn axis(input: usize, k: usize, s: usize, d: usize, same: bool) -> Option<(usize, usize)> {
    if k == 0 || s == 0 || d == 0 {
        return None;
    }
    let span = (k - 1) * d + 1;
    if same {
        let out = input.div_ceil(s);
        let total = if out == 0 {
            0
        } else {
            ((out - 1) * s + span).saturating_sub(input)
        };
        Some((out, total / 2))
    } else if input < span {
        None
    } else {
        Some(((input - span) / s + 1, 0))
    }
}

struct Geo {
    out: [usize; 2],
    pad: [usize; 2],
    s: [usize; 2],
    d: [usize; 2],
    inp: [usize; 2],
}

impl Geo {
    /// The input position of tap `t` of output `o` along `a`, if inside.
    fn at(&self, a: usize, o: usize, t: usize) -> Option<usize> {
        let p = (o * self.s[a] + t * self.d[a]) as isize - self.pad[a] as isize;
        (p >= 0 && (p as usize) < self.inp[a]).then_some(p as usize)
    }
}

fn clamp_f(x: f32, lo: f32, hi: f32) -> f32 {
    let x = if x < lo { lo } else { x };
    if hi < x {
        hi
    } else {
        x
    }
}

pub fn run(data: &[u8]) {
    let mut input = Input::new(data);
    let n = input.below(3);
    let (h, w, c) = (input.below(7), input.below(7), input.below(5));
    let k = [input.below(5), input.below(5)];
    let s = [input.below(4), input.below(4)];
    let d = [input.below(4), input.below(4)];
    let same = input.byte() & 1 == 0;
    let depthwise = matches!(input.byte() % 3, 0);
    let m = 1 + input.below(3);
    let oc = if depthwise { c * m } else { 1 + input.below(5) };
    let shape = [n, h, w, c];
    let filter = if depthwise {
        [1, k[0], k[1], oc]
    } else {
        [oc, k[0], k[1], c]
    };
    let nx: usize = shape.iter().product();
    let nw: usize = filter.iter().product();
    let special = [f32::INFINITY, f32::NEG_INFINITY, f32::NAN, -0.0];
    let xs: Vec<i8> = (0..nx).map(|_| input.byte() as i8).collect();
    let ws: Vec<i8> = (0..nw).map(|_| input.byte() as i8).collect();
    let odd = input.byte();
    let xf: Vec<f32> = xs.iter().map(|&v| v as f32 / 8.0).collect();
    let mut wf: Vec<f32> = ws.iter().map(|&v| v as f32 / 16.0).collect();
    if matches!(odd % 5, 0) && !wf.is_empty() {
        let at = odd as usize % wf.len();
        wf[at] = special[odd as usize % 4];
    }
    let bias: Vec<f32> = (0..oc).map(|o| o as f32 - 1.5).collect();

    let geo = match (
        axis(h, k[0], s[0], d[0], same),
        axis(w, k[1], s[1], d[1], same),
    ) {
        (Some((oh, ph)), Some((ow, pw))) => Some(Geo {
            out: [oh, ow],
            pad: [ph, pw],
            s,
            d,
            inp: [h, w],
        }),
        _ => None,
    };
    let x = DynTensor::from_shape_vec(shape, xf.clone()).unwrap();
    let wt = DynTensor::from_shape_vec(filter, wf.clone()).unwrap();
    let params = ConvParams::new(if same { Padding::Same } else { Padding::Valid })
        .stride(s)
        .dilation(d);
    let got = if depthwise {
        x.depthwise_conv2d(&wt, Some(&bias), &params)
    } else {
        x.conv2d(&wt, Some(&bias), &params)
    };
    let Some(g) = geo else {
        assert!(
            got.is_err(),
            "{shape:?} {filter:?} {k:?} {s:?} {d:?} {same}"
        );
        return;
    };
    let got = got.unwrap();
    assert_eq!(got.shape(), &[n, g.out[0], g.out[1], oc]);
    // K5: the sum in tap order from 0, then the bias.
    let mut at = 0;
    for b in 0..n {
        for oy in 0..g.out[0] {
            for ox in 0..g.out[1] {
                for o in 0..oc {
                    let mut total = 0.0f32;
                    for i in 0..k[0] {
                        for j in 0..k[1] {
                            let (Some(iy), Some(ix)) = (g.at(0, oy, i), g.at(1, ox, j)) else {
                                continue;
                            };
                            let base = ((b * h + iy) * w + ix) * c;
                            if depthwise {
                                total += xf[base + o / m] * wf[(i * k[1] + j) * oc + o];
                            } else {
                                for ci in 0..c {
                                    total +=
                                        xf[base + ci] * wf[((o * k[0] + i) * k[1] + j) * c + ci];
                                }
                            }
                        }
                    }
                    let want = total + bias[o];
                    let have = got.as_slice()[at];
                    assert!(
                        want.to_bits() == have.to_bits() || (want.is_nan() && have.is_nan()),
                        "{shape:?} {filter:?} at {at}: {have} vs {want}"
                    );
                    at += 1;
                }
            }
        }
    }

    // Pools (K6, K8) over the same window, dilation 1.
    let pool_geo =
        |k: [usize; 2]| match (axis(h, k[0], s[0], 1, same), axis(w, k[1], s[1], 1, same)) {
            (Some((oh, ph)), Some((ow, pw))) => Some(Geo {
                out: [oh, ow],
                pad: [ph, pw],
                s,
                d: [1, 1],
                inp: [h, w],
            }),
            _ => None,
        };
    let window = Window2d::new(k, if same { Padding::Same } else { Padding::Valid }).stride(s);
    let (avg, max) = (x.avg_pool2d(&window), x.max_pool2d(&window));
    let q = Quant::<i8>::new(0.5, (odd as i8 / 4) as i32).unwrap();
    let xq = DynTensor::from_shape_vec(shape, xs.clone())
        .unwrap()
        .quantized(q);
    let (qavg, qmax) = (
        xq.avg_pool2d(&window, Activation::Relu6),
        xq.max_pool2d(&window, Activation::None),
    );
    let Some(g) = pool_geo(k) else {
        assert!(avg.is_err() && max.is_err() && qavg.is_err() && qmax.is_err());
        return;
    };
    let (avg, max, qavg, qmax) = (avg.unwrap(), max.unwrap(), qavg.unwrap(), qmax.unwrap());
    let (lo6, hi6) = Activation::Relu6.range(q, -128, 127).unwrap();
    let mut at = 0;
    for b in 0..n {
        for oy in 0..g.out[0] {
            for ox in 0..g.out[1] {
                for ch in 0..c {
                    let (mut sum, mut count, mut top, mut isum, mut imax) =
                        (0.0f32, 0usize, f32::MIN, 0i32, i8::MIN);
                    for i in 0..k[0] {
                        for j in 0..k[1] {
                            if let (Some(iy), Some(ix)) = (g.at(0, oy, i), g.at(1, ox, j)) {
                                let v = ((b * h + iy) * w + ix) * c + ch;
                                sum += xf[v];
                                count += 1;
                                if top < xf[v] {
                                    top = xf[v];
                                }
                                isum += xs[v] as i32;
                                imax = imax.max(xs[v]);
                            }
                        }
                    }
                    assert_eq!(avg.as_slice()[at].to_bits(), (sum / count as f32).to_bits());
                    assert_eq!(
                        max.as_slice()[at].to_bits(),
                        clamp_f(top, f32::NEG_INFINITY, f32::INFINITY).to_bits()
                    );
                    let nn = count as i32;
                    let ia = if isum > 0 {
                        (isum + nn / 2) / nn
                    } else {
                        (isum - nn / 2) / nn
                    };
                    assert_eq!(qavg.values().as_slice()[at] as i32, ia.max(lo6).min(hi6));
                    assert_eq!(qmax.values().as_slice()[at], imax);
                    at += 1;
                }
            }
        }
    }

    // K7: the int8 convolution, one weight scale per channel.
    let scales: Vec<f32> = (0..oc).map(|o| 0.001 * (1 + o) as f32).collect();
    let zeros = vec![0; oc];
    let qo = Quant::<i8>::new(0.25, -3).unwrap();
    let op = DynQConv2d::new(
        q,
        DynPerAxis::new(&scales, &zeros).unwrap(),
        qo,
        Activation::None,
        Rounding::Double,
    )
    .unwrap();
    let ibias: Vec<i32> = (0..oc).map(|o| o as i32 * 1000 - 2000).collect();
    let wq = DynTensor::from_shape_vec(filter, ws.clone())
        .unwrap()
        .try_quantized_per_axis(if depthwise { 3 } else { 0 }, op.weights())
        .unwrap();
    let got = if depthwise {
        op.depthwise_conv2d_dyn(&xq, &wq, Some(&ibias), &params)
    } else {
        op.conv2d_dyn(&xq, &wq, Some(&ibias), &params)
    };
    let Some(g) = geo_again(h, w, k, s, d, same) else {
        assert!(got.is_err());
        return;
    };
    let got = got.unwrap();
    let mut at = 0;
    for b in 0..n {
        for oy in 0..g.out[0] {
            for ox in 0..g.out[1] {
                for o in 0..oc {
                    let mut acc = 0i32;
                    for i in 0..k[0] {
                        for j in 0..k[1] {
                            let (Some(iy), Some(ix)) = (g.at(0, oy, i), g.at(1, ox, j)) else {
                                continue;
                            };
                            let base = ((b * h + iy) * w + ix) * c;
                            if depthwise {
                                acc += ws[(i * k[1] + j) * oc + o] as i32
                                    * (xs[base + o / m] as i32 - q.zero_point());
                            } else {
                                for ci in 0..c {
                                    acc += ws[((o * k[0] + i) * k[1] + j) * c + ci] as i32
                                        * (xs[base + ci] as i32 - q.zero_point());
                                }
                            }
                        }
                    }
                    acc += ibias[o];
                    let (mq, sh) = shaped::quant::multiplier::quantize_multiplier(
                        0.5f64 * scales[o] as f64 / 0.25f64,
                        Rounding::Double,
                    )
                    .unwrap();
                    let v = fixedpoint::multiply_by_quantized_multiplier_double(acc, mq, sh) - 3;
                    assert_eq!(
                        got.values().as_slice()[at] as i32,
                        v.clamp(-128, 127),
                        "int8 at {at}"
                    );
                    at += 1;
                }
            }
        }
    }
}

fn geo_again(
    h: usize,
    w: usize,
    k: [usize; 2],
    s: [usize; 2],
    d: [usize; 2],
    same: bool,
) -> Option<Geo> {
    match (
        axis(h, k[0], s[0], d[0], same),
        axis(w, k[1], s[1], d[1], same),
    ) {
        (Some((oh, ph)), Some((ow, pw))) => Some(Geo {
            out: [oh, ow],
            pad: [ph, pw],
            s,
            d,
            inp: [h, w],
        }),
        _ => None,
    }
}
