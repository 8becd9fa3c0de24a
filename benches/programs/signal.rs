//! A signal-processing loop on small static tensors: a 16,384-sample signal in frames of 64,
//! each through an 8-tap FIR filter (its history carried from frame to frame), a Hann window,
//! then the frame's energy and peak, and an exponentially smoothed energy.

use ndarray::{concatenate, s, Array1, ArrayView1, Axis};
use shaped::{Shape, Tensor, TensorView};

use crate::common::{Check, Rng};

const FRAME: usize = 64;
const FRAMES: usize = 256;
const TAPS: usize = 8;
const SMOOTH: f32 = 0.9;

/// What every version returns: per frame the energy and the peak, and the smoothed energy at
/// the end.
pub struct Out {
    pub energy: Vec<f32>,
    pub peak: Vec<f32>,
    pub smoothed: f32,
}

pub struct ShapedIn {
    signal: Vec<f32>,
    taps: [f32; TAPS],
    window: Tensor<f32, Shape![64]>,
}

pub struct NdIn {
    signal: Vec<f32>,
    taps: [f32; TAPS],
    window: Array1<f32>,
}

pub struct HandIn {
    signal: Vec<f32>,
    taps: [f32; TAPS],
    window: [f32; FRAME],
}

pub struct Inputs {
    pub shaped: ShapedIn,
    pub ndarray: NdIn,
    pub hand: HandIn,
}

pub fn inputs() -> Inputs {
    let mut rng = Rng::new(5);
    let signal: Vec<f32> = (0..FRAME * FRAMES)
        .map(|i| {
            let t = i as f32;
            0.5 * (t * 0.05).sin() + 0.3 * (t * 0.31).sin() + 0.2 * rng.next_f32()
        })
        .collect();
    // A low-pass filter: positive taps that add up to 1.
    let raw: Vec<f32> = (0..TAPS).map(|_| 1.0 + 0.5 * rng.next_f32()).collect();
    let total: f32 = raw.iter().sum();
    let taps: [f32; TAPS] = std::array::from_fn(|k| raw[k] / total);
    let window: [f32; FRAME] = std::array::from_fn(|n| {
        let a = 2.0 * std::f32::consts::PI * n as f32 / (FRAME - 1) as f32;
        0.5 - 0.5 * a.cos()
    });
    Inputs {
        shaped: ShapedIn {
            signal: signal.clone(),
            taps,
            window: Tensor::from(window),
        },
        ndarray: NdIn {
            signal: signal.clone(),
            taps,
            window: Array1::from_vec(window.to_vec()),
        },
        hand: HandIn {
            signal,
            taps,
            window,
        },
    }
}

pub fn shaped(p: &ShapedIn) -> Out {
    let h = &p.taps;
    let mut hist = Tensor::<f32, Shape![7]>::zeros();
    let mut out = Out {
        energy: Vec::with_capacity(FRAMES),
        peak: Vec::with_capacity(FRAMES),
        smoothed: 0.0,
    };
    for chunk in p.signal.chunks_exact(FRAME) {
        let x = TensorView::<f32, Shape![64]>::new(chunk).unwrap();
        // The previous frame's last 7 samples, then this frame: y[n] = sum_k h[k] ext[n + 7 - k].
        let ext: Tensor<f32, Shape![71]> = hist.concat::<0, _, _>(&x);
        let mut y = ext.narrow::<0, 7, 64>() * h[0];
        y += ext.narrow::<0, 6, 64>() * h[1];
        y += ext.narrow::<0, 5, 64>() * h[2];
        y += ext.narrow::<0, 4, 64>() * h[3];
        y += ext.narrow::<0, 3, 64>() * h[4];
        y += ext.narrow::<0, 2, 64>() * h[5];
        y += ext.narrow::<0, 1, 64>() * h[6];
        y += ext.narrow::<0, 0, 64>() * h[7];
        hist = ext.narrow::<0, 64, 7>();
        let w = y * p.window;
        let energy = (w * w).sum_all();
        let peak = w.abs().max_axis::<0>().as_slice()[0];
        out.smoothed = SMOOTH * out.smoothed + (1.0 - SMOOTH) * energy;
        out.energy.push(energy);
        out.peak.push(peak);
    }
    out
}

pub fn ndarray(p: &NdIn) -> Out {
    let mut hist = Array1::<f32>::zeros(TAPS - 1);
    let mut out = Out {
        energy: Vec::with_capacity(FRAMES),
        peak: Vec::with_capacity(FRAMES),
        smoothed: 0.0,
    };
    for chunk in p.signal.chunks_exact(FRAME) {
        let x = ArrayView1::from(chunk);
        let ext = concatenate![Axis(0), hist, x];
        let mut y = Array1::<f32>::zeros(FRAME);
        for (k, &t) in p.taps.iter().enumerate() {
            y.scaled_add(t, &ext.slice(s![TAPS - 1 - k..TAPS - 1 - k + FRAME]));
        }
        hist = ext.slice(s![FRAME..]).to_owned();
        let w = &y * &p.window;
        let energy = w.dot(&w);
        let peak = w.fold(0.0f32, |a, &b| a.max(b.abs()));
        out.smoothed = SMOOTH * out.smoothed + (1.0 - SMOOTH) * energy;
        out.energy.push(energy);
        out.peak.push(peak);
    }
    out
}

pub fn hand(p: &HandIn) -> Out {
    let mut hist = [0.0f32; TAPS - 1];
    let mut out = Out {
        energy: Vec::with_capacity(FRAMES),
        peak: Vec::with_capacity(FRAMES),
        smoothed: 0.0,
    };
    for chunk in p.signal.chunks_exact(FRAME) {
        let mut ext = [0.0f32; FRAME + TAPS - 1];
        ext[..TAPS - 1].copy_from_slice(&hist);
        ext[TAPS - 1..].copy_from_slice(chunk);
        let mut energy = 0.0f32;
        let mut peak = 0.0f32;
        for (n, win) in p.window.iter().enumerate() {
            let mut acc = 0.0f32;
            for (k, t) in p.taps.iter().enumerate() {
                acc += t * ext[n + TAPS - 1 - k];
            }
            let w = acc * win;
            energy += w * w;
            peak = peak.max(w.abs());
        }
        hist.copy_from_slice(&ext[FRAME..]);
        out.smoothed = SMOOTH * out.smoothed + (1.0 - SMOOTH) * energy;
        out.energy.push(energy);
        out.peak.push(peak);
    }
    out
}

/// Energies up to about 20 (64 squares of windowed samples below 1), each a sum of 64 terms
/// that the versions add in different orders (pairwise, unrolled, in sequence): a relative
/// 64 * 2^-24 = 4e-6, 8e-5 absolute at most; the filter's 8 terms are added in one order by
/// all three. 1e-4 bounds it.
pub const TOLERANCE: f32 = 1e-4;

fn flat(o: &Out) -> Vec<f32> {
    let mut v = o.energy.clone();
    v.extend_from_slice(&o.peak);
    v.push(o.smoothed);
    v
}

pub fn check() -> Check {
    let inp = inputs();
    Check::new(
        "signal",
        &flat(&shaped(&inp.shaped)),
        &flat(&ndarray(&inp.ndarray)),
        &flat(&hand(&inp.hand)),
        TOLERANCE,
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn three_versions_agree() {
        let c = super::check();
        println!("{}", c.report());
        assert!(c.passes(), "{}", c.report());
    }
}
