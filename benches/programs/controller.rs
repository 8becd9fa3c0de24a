//! A no_std-style controller on small static tensors: a policy network 8 -> 16 ReLU -> 2
//! (`layer::Dense`) fed the state's error from a target, and linear dynamics
//! `s' = clip(s A + u B)` fed back, for 1000 steps. No allocation in the shaped and hand
//! versions.

use ndarray::{Array1, Array2};
use shaped::layer::{Dense, Identity, Relu};
use shaped::{Shape, Tensor};

use crate::common::{Check, Rng};

const STATE: usize = 8;
const HIDDEN: usize = 16;
const ACT: usize = 2;
const STEPS: usize = 1000;
const LIMIT: f32 = 10.0;

/// The policy's weights, as arrays a microcontroller keeps in flash; shared by all versions.
struct Policy {
    w1: [[f32; HIDDEN]; STATE],
    b1: [f32; HIDDEN],
    w2: [[f32; ACT]; HIDDEN],
    b2: [f32; ACT],
}

pub struct ShapedIn {
    w1: [[f32; HIDDEN]; STATE],
    b1: [f32; HIDDEN],
    w2: [[f32; ACT]; HIDDEN],
    b2: [f32; ACT],
    a: Tensor<f32, Shape![8, 8]>,
    b: Tensor<f32, Shape![2, 8]>,
    target: Tensor<f32, Shape![8]>,
    s0: Tensor<f32, Shape![8]>,
}

pub struct NdIn {
    w1: Array2<f32>,
    b1: Array1<f32>,
    w2: Array2<f32>,
    b2: Array1<f32>,
    a: Array2<f32>,
    b: Array2<f32>,
    target: Array1<f32>,
    s0: Array1<f32>,
}

pub struct HandIn {
    w1: [[f32; HIDDEN]; STATE],
    b1: [f32; HIDDEN],
    w2: [[f32; ACT]; HIDDEN],
    b2: [f32; ACT],
    a: [[f32; STATE]; STATE],
    b: [[f32; STATE]; ACT],
    target: [f32; STATE],
    s0: [f32; STATE],
}

pub struct Inputs {
    pub shaped: ShapedIn,
    pub ndarray: NdIn,
    pub hand: HandIn,
}

fn mat<const R: usize, const C: usize>(rng: &mut Rng, scale: f32) -> [[f32; C]; R] {
    std::array::from_fn(|_| std::array::from_fn(|_| scale * rng.next_f32()))
}

fn vecn<const N: usize>(rng: &mut Rng, scale: f32) -> [f32; N] {
    std::array::from_fn(|_| scale * rng.next_f32())
}

pub fn inputs() -> Inputs {
    let mut rng = Rng::new(6);
    let p = Policy {
        w1: mat(&mut rng, 0.5),
        b1: vecn(&mut rng, 0.1),
        w2: mat(&mut rng, 0.5),
        b2: vecn(&mut rng, 0.1),
    };
    // Stable dynamics: 0.9 on the diagonal, small couplings.
    let mut a: [[f32; STATE]; STATE] = mat(&mut rng, 0.05);
    for (i, row) in a.iter_mut().enumerate() {
        row[i] += 0.9;
    }
    let b: [[f32; STATE]; ACT] = mat(&mut rng, 0.3);
    let target: [f32; STATE] = vecn(&mut rng, 1.0);
    let s0: [f32; STATE] = vecn(&mut rng, 2.0);
    let a2 = |m: &[[f32; STATE]]| {
        Array2::from_shape_vec((m.len(), STATE), m.as_flattened().to_vec()).unwrap()
    };
    Inputs {
        shaped: ShapedIn {
            w1: p.w1,
            b1: p.b1,
            w2: p.w2,
            b2: p.b2,
            a: Tensor::from(a),
            b: Tensor::from(b),
            target: Tensor::from(target),
            s0: Tensor::from(s0),
        },
        ndarray: NdIn {
            w1: Array2::from_shape_vec((STATE, HIDDEN), p.w1.as_flattened().to_vec()).unwrap(),
            b1: Array1::from_vec(p.b1.to_vec()),
            w2: Array2::from_shape_vec((HIDDEN, ACT), p.w2.as_flattened().to_vec()).unwrap(),
            b2: Array1::from_vec(p.b2.to_vec()),
            a: a2(&a),
            b: a2(&b),
            target: Array1::from_vec(target.to_vec()),
            s0: Array1::from_vec(s0.to_vec()),
        },
        hand: HandIn {
            w1: p.w1,
            b1: p.b1,
            w2: p.w2,
            b2: p.b2,
            a,
            b,
            target,
            s0,
        },
    }
}

/// The final state and the control effort, the sum over the steps of `|u|^2`.
pub fn shaped(p: &ShapedIn) -> (Tensor<f32, Shape![8]>, f32) {
    let l1: Dense<'_, f32, Relu, 8, 16> = Dense::new(&p.w1, Some(&p.b1), Relu);
    let l2: Dense<'_, f32, Identity, 16, 2> = Dense::new(&p.w2, Some(&p.b2), Identity);
    let mut s = p.s0;
    let mut effort = 0.0f32;
    for _ in 0..STEPS {
        let u = l2.forward(&l1.forward(&(s - p.target)));
        effort += (u * u).sum_all();
        s = (s.matmul(&p.a) + u.matmul(&p.b)).clip(-LIMIT, LIMIT);
    }
    (s, effort)
}

pub fn ndarray(p: &NdIn) -> (Array1<f32>, f32) {
    let mut s = p.s0.clone();
    let mut effort = 0.0f32;
    for _ in 0..STEPS {
        let h = ((&s - &p.target).dot(&p.w1) + &p.b1).mapv_into(|v| v.max(0.0));
        let u = h.dot(&p.w2) + &p.b2;
        effort += u.dot(&u);
        s = (s.dot(&p.a) + u.dot(&p.b)).mapv_into(|v| v.clamp(-LIMIT, LIMIT));
    }
    (s, effort)
}

pub fn hand(p: &HandIn) -> ([f32; STATE], f32) {
    let mut s = p.s0;
    let mut effort = 0.0f32;
    for _ in 0..STEPS {
        let e: [f32; STATE] = std::array::from_fn(|i| s[i] - p.target[i]);
        let mut h = [0.0f32; HIDDEN];
        for (j, hj) in h.iter_mut().enumerate() {
            let mut acc = 0.0;
            for (ek, wk) in e.iter().zip(&p.w1) {
                acc += ek * wk[j];
            }
            *hj = (acc + p.b1[j]).max(0.0);
        }
        let mut u = [0.0f32; ACT];
        for (j, uj) in u.iter_mut().enumerate() {
            let mut acc = 0.0;
            for (hk, wk) in h.iter().zip(&p.w2) {
                acc += hk * wk[j];
            }
            *uj = acc + p.b2[j];
        }
        effort += u[0] * u[0] + u[1] * u[1];
        let mut next = [0.0f32; STATE];
        for (j, nj) in next.iter_mut().enumerate() {
            let mut sa = 0.0;
            for (sk, ak) in s.iter().zip(&p.a) {
                sa += sk * ak[j];
            }
            let mut ub = 0.0;
            for (uk, bk) in u.iter().zip(&p.b) {
                ub += uk * bk[j];
            }
            *nj = (sa + ub).clamp(-LIMIT, LIMIT);
        }
        s = next;
    }
    (s, effort)
}

/// The state (of order 1) and the effort (a sum of 1000 squares, of order 100). The loop is
/// contracting (the dynamics' gain is below 1), so an order-of-summation difference of
/// 2^-24 relative in one step does not grow; the effort's 1000-term running sum may carry
/// 1000 * 2^-24 * its size, 6e-3 at 100. The effort is compared divided by the steps.
pub const TOLERANCE: f32 = 1e-5;

pub fn check() -> Check {
    let inp = inputs();
    let (ss, se) = shaped(&inp.shaped);
    let (ns, ne) = ndarray(&inp.ndarray);
    let (hs, he) = hand(&inp.hand);
    let flat = |s: &[f32], e: f32| [s, &[e / STEPS as f32]].concat();
    Check::new(
        "controller",
        &flat(ss.as_slice(), se),
        &flat(ns.as_slice().unwrap(), ne),
        &flat(&hs, he),
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
