//! A CNN-free image pipeline on a batch `[N, H, W, 3]` = `[16, 32, 32, 3]` (192 KiB of f32, so on
//! the heap): per-channel normalization by the mean and standard deviation over N, H and W,
//! a contrast and a brightness per image, a clip, then the mean and the maximum of each image's
//! channels over H and W.

use ndarray::{Array2, Array4, Axis};
use shaped::{HeapTensor, Shape, Tensor};

use crate::common::{Check, Rng};

const N: usize = 16;
const H: usize = 32;
const W: usize = 32;
const C: usize = 3;

/// A statistic per image and channel.
pub type PerImage = HeapTensor<f32, Shape![16, 3]>;

pub struct ShapedIn {
    x: HeapTensor<f32, Shape![16, 32, 32, 3]>,
    contrast: Tensor<f32, Shape![16, 1, 1, 1]>,
    brightness: Tensor<f32, Shape![16, 1, 1, 1]>,
}

pub struct NdIn {
    x: Array4<f32>,
    contrast: Array4<f32>,
    brightness: Array4<f32>,
}

pub struct HandIn {
    x: Vec<f32>,
    contrast: [f32; N],
    brightness: [f32; N],
}

pub struct Inputs {
    pub shaped: ShapedIn,
    pub ndarray: NdIn,
    pub hand: HandIn,
}

pub fn inputs() -> Inputs {
    let mut rng = Rng::new(3);
    // Pixels in [0, 1), each channel with its own level and spread.
    let x: Vec<f32> = (0..N * H * W * C)
        .map(|i| {
            let c = (i % C) as f32;
            0.2 + 0.1 * c + (0.3 - 0.05 * c) * (rng.next_f32() + 1.0)
        })
        .collect();
    let contrast: Vec<f32> = rng.vec(N, 0.5).iter().map(|v| 1.0 + v).collect();
    let brightness = rng.vec(N, 0.5);
    Inputs {
        shaped: ShapedIn {
            x: HeapTensor::from_vec(x.clone()).unwrap(),
            contrast: Tensor::try_from(&contrast[..]).unwrap(),
            brightness: Tensor::try_from(&brightness[..]).unwrap(),
        },
        ndarray: NdIn {
            x: Array4::from_shape_vec((N, H, W, C), x.clone()).unwrap(),
            contrast: Array4::from_shape_vec((N, 1, 1, 1), contrast.clone()).unwrap(),
            brightness: Array4::from_shape_vec((N, 1, 1, 1), brightness.clone()).unwrap(),
        },
        hand: HandIn {
            x,
            contrast: contrast.try_into().unwrap(),
            brightness: brightness.try_into().unwrap(),
        },
    }
}

/// Returns the per-image, per-channel mean and maximum, `[N, 3]` each.
pub fn shaped(p: &ShapedIn) -> (PerImage, PerImage) {
    // Every pixel as a row: the statistics over N, H and W are one reduction over axis 0.
    let pixels = p.x.reshape::<Shape![16384, 3]>();
    let mean = pixels.mean_axis::<0>();
    let std = pixels.std_axis::<0>(0);
    let norm = (&p.x - mean) / std;
    let y = (&norm * p.contrast + p.brightness).clip(-3.0, 3.0);
    let avg = y.mean_axis::<1>().mean_axis::<1>();
    let peak = y.max_axis::<1>().max_axis::<1>();
    (avg, peak)
}

pub fn ndarray(p: &NdIn) -> (Array2<f32>, Array2<f32>) {
    let pixels = p.x.view().into_shape_with_order((N * H * W, C)).unwrap();
    let mean = pixels.mean_axis(Axis(0)).unwrap();
    let std = pixels.std_axis(Axis(0), 0.0);
    let norm = (&p.x - mean) / std;
    let y = (norm * &p.contrast + &p.brightness).mapv_into(|v| v.clamp(-3.0, 3.0));
    let avg = y.mean_axis(Axis(1)).unwrap().mean_axis(Axis(1)).unwrap();
    let peak = y
        .fold_axis(Axis(1), f32::NEG_INFINITY, |&a, &b| a.max(b))
        .fold_axis(Axis(1), f32::NEG_INFINITY, |&a, &b| a.max(b));
    (avg, peak)
}

pub fn hand(p: &HandIn) -> ([[f32; C]; N], [[f32; C]; N]) {
    // Two passes in f64, as statistics over 16384 values are usually written.
    let count = (N * H * W) as f64;
    let mut sum = [0.0f64; C];
    for px in p.x.chunks_exact(C) {
        for c in 0..C {
            sum[c] += px[c] as f64;
        }
    }
    let mean = sum.map(|s| s / count);
    let mut sq = [0.0f64; C];
    for px in p.x.chunks_exact(C) {
        for c in 0..C {
            let d = px[c] as f64 - mean[c];
            sq[c] += d * d;
        }
    }
    let mean = mean.map(|m| m as f32);
    let std = sq.map(|s| (s / count).sqrt() as f32);

    let mut avg = [[0.0f32; C]; N];
    let mut peak = [[f32::NEG_INFINITY; C]; N];
    for (n, img) in p.x.chunks_exact(H * W * C).enumerate() {
        let mut acc = [0.0f32; C];
        for px in img.chunks_exact(C) {
            for c in 0..C {
                let v = (px[c] - mean[c]) / std[c];
                let v = (v * p.contrast[n] + p.brightness[n]).clamp(-3.0, 3.0);
                acc[c] += v;
                peak[n][c] = peak[n][c].max(v);
            }
        }
        avg[n] = acc.map(|a| a / (H * W) as f32);
    }
    (avg, peak)
}

/// Means in [-3, 3]. The hand version's f32 sum of each image's 1024 values may be off by
/// about sqrt(1024) * 2^-24 * 1024 * 1 = 2e-3 in the sum, 2e-6 in the mean, and the per-channel
/// statistics over 16384 values differ by their summation orders (ndarray adds rows in
/// sequence, shaped pairwise, the hand loop in f64): a relative 1e-5 of the normalized values,
/// up to 3e-5 after contrast. 1e-4 bounds both.
pub const TOLERANCE: f32 = 1e-4;

pub fn check() -> Check {
    let inp = inputs();
    let (sa, sp) = shaped(&inp.shaped);
    let (na, np) = ndarray(&inp.ndarray);
    let (ha, hp) = hand(&inp.hand);
    let cat = |a: &[f32], b: &[f32]| [a, b].concat();
    Check::new(
        "image",
        &cat(sa.as_slice(), sp.as_slice()),
        &cat(na.as_slice().unwrap(), np.as_slice().unwrap()),
        &cat(ha.as_flattened(), hp.as_flattened()),
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
