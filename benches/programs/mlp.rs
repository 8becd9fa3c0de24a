//! An MLP forward pass on a batch: 8 x 32 -> 64 ReLU -> 10, softmax over the classes.

use ndarray::{Array1, Array2};
use shaped::{Shape, Tensor};

use crate::common::{Check, Rng};

const BATCH: usize = 8;
const IN: usize = 32;
const HIDDEN: usize = 64;
const OUT: usize = 10;

pub struct ShapedIn {
    x: Tensor<f32, Shape![8, 32]>,
    w1: Tensor<f32, Shape![32, 64]>,
    b1: Tensor<f32, Shape![64]>,
    w2: Tensor<f32, Shape![64, 10]>,
    b2: Tensor<f32, Shape![10]>,
}

pub struct NdIn {
    x: Array2<f32>,
    w1: Array2<f32>,
    b1: Array1<f32>,
    w2: Array2<f32>,
    b2: Array1<f32>,
}

pub struct HandIn {
    x: [[f32; IN]; BATCH],
    w1: [[f32; HIDDEN]; IN],
    b1: [f32; HIDDEN],
    w2: [[f32; OUT]; HIDDEN],
    b2: [f32; OUT],
}

pub struct Inputs {
    pub shaped: ShapedIn,
    pub ndarray: NdIn,
    pub hand: HandIn,
}

fn rows<const R: usize, const C: usize>(v: &[f32]) -> [[f32; C]; R] {
    core::array::from_fn(|i| core::array::from_fn(|j| v[i * C + j]))
}

pub fn inputs() -> Inputs {
    let mut rng = Rng::new(1);
    let x = rng.vec(BATCH * IN, 1.0);
    let w1 = rng.vec(IN * HIDDEN, 1.0 / (IN as f32).sqrt());
    let b1 = rng.vec(HIDDEN, 0.1);
    let w2 = rng.vec(HIDDEN * OUT, 1.0 / (HIDDEN as f32).sqrt());
    let b2 = rng.vec(OUT, 0.1);
    Inputs {
        shaped: ShapedIn {
            x: Tensor::try_from(&x[..]).unwrap(),
            w1: Tensor::try_from(&w1[..]).unwrap(),
            b1: Tensor::try_from(&b1[..]).unwrap(),
            w2: Tensor::try_from(&w2[..]).unwrap(),
            b2: Tensor::try_from(&b2[..]).unwrap(),
        },
        ndarray: NdIn {
            x: Array2::from_shape_vec((BATCH, IN), x.clone()).unwrap(),
            w1: Array2::from_shape_vec((IN, HIDDEN), w1.clone()).unwrap(),
            b1: Array1::from_vec(b1.clone()),
            w2: Array2::from_shape_vec((HIDDEN, OUT), w2.clone()).unwrap(),
            b2: Array1::from_vec(b2.clone()),
        },
        hand: HandIn {
            x: rows(&x),
            w1: rows(&w1),
            b1: b1.try_into().unwrap(),
            w2: rows(&w2),
            b2: b2.try_into().unwrap(),
        },
    }
}

pub fn shaped(p: &ShapedIn) -> Tensor<f32, Shape![8, 10]> {
    let h = (p.x.matmul(&p.w1) + p.b1).relu();
    let logits = h.matmul(&p.w2) + p.b2;
    logits.softmax::<-1>()
}

pub fn ndarray(p: &NdIn) -> Array2<f32> {
    let h = (p.x.dot(&p.w1) + &p.b1).mapv_into(|v| v.max(0.0));
    let mut z = h.dot(&p.w2) + &p.b2;
    for mut row in z.rows_mut() {
        let m = row.fold(f32::NEG_INFINITY, |a, &b| a.max(b));
        row.mapv_inplace(|v| (v - m).exp());
        let s = row.sum();
        row /= s;
    }
    z
}

pub fn hand(p: &HandIn) -> [[f32; OUT]; BATCH] {
    let mut out = [[0.0f32; OUT]; BATCH];
    for (x, o) in p.x.iter().zip(out.iter_mut()) {
        let mut h = [0.0f32; HIDDEN];
        for (j, hj) in h.iter_mut().enumerate() {
            let mut acc = 0.0;
            for (xk, wk) in x.iter().zip(&p.w1) {
                acc += xk * wk[j];
            }
            *hj = (acc + p.b1[j]).max(0.0);
        }
        for (j, oj) in o.iter_mut().enumerate() {
            let mut acc = 0.0;
            for (hk, wk) in h.iter().zip(&p.w2) {
                acc += hk * wk[j];
            }
            *oj = acc + p.b2[j];
        }
        let m = o.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
        let mut s = 0.0;
        for v in o.iter_mut() {
            *v = (*v - m).exp();
            s += *v;
        }
        for v in o.iter_mut() {
            *v /= s;
        }
    }
    out
}

/// Probabilities in [0, 1]. Each logit is a sum of 64 products of magnitude below 1 and the
/// three versions add them in different orders (ndarray's gemm blocks them, with FMA where the
/// CPU has it), so a logit may differ by up to 64 * 2^-24 * sum|terms| (about 4e-6 * 5), and a
/// probability by as much times itself: 1e-5 bounds it.
pub const TOLERANCE: f32 = 1e-5;

pub fn check() -> Check {
    let inp = inputs();
    let s = shaped(&inp.shaped);
    let n = ndarray(&inp.ndarray);
    let h = hand(&inp.hand);
    Check::new(
        "mlp",
        s.as_slice(),
        n.as_slice().unwrap(),
        h.as_flattened(),
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
