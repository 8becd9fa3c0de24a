//! A pre-norm transformer encoder block: batch 2, sequence 16, d_model 64, 4 heads of 16,
//! an MLP of 256 with the exact (erf) GELU. Static shapes throughout.

use ndarray::{s, Array1, Array2, Array3, ArrayView2, Axis};
use shaped::{Axes, Shape, Tensor};

use crate::common::{gelu, Check, Rng};

const B: usize = 2;
const S: usize = 16;
const D: usize = 64;
const H: usize = 4;
const DH: usize = 16;
const F: usize = 256;
const EPS: f32 = 1e-5;
/// 1 / sqrt(DH), exact in f32.
const SCALE: f32 = 0.25;

/// The block's parameters, as one flat list each: the inputs of all three versions.
struct Raw {
    x: Vec<f32>,
    ln1_g: Vec<f32>,
    ln1_b: Vec<f32>,
    wq: Vec<f32>,
    wk: Vec<f32>,
    wv: Vec<f32>,
    wo: Vec<f32>,
    ln2_g: Vec<f32>,
    ln2_b: Vec<f32>,
    w1: Vec<f32>,
    c1: Vec<f32>,
    w2: Vec<f32>,
    c2: Vec<f32>,
}

fn raw() -> Raw {
    let mut rng = Rng::new(2);
    let wd = 1.0 / (D as f32).sqrt();
    Raw {
        x: rng.vec(B * S * D, 1.0),
        ln1_g: rng.vec(D, 0.2).iter().map(|v| 1.0 + v).collect(),
        ln1_b: rng.vec(D, 0.1),
        wq: rng.vec(D * D, wd),
        wk: rng.vec(D * D, wd),
        wv: rng.vec(D * D, wd),
        wo: rng.vec(D * D, wd),
        ln2_g: rng.vec(D, 0.2).iter().map(|v| 1.0 + v).collect(),
        ln2_b: rng.vec(D, 0.1),
        w1: rng.vec(D * F, wd),
        c1: rng.vec(F, 0.1),
        w2: rng.vec(F * D, 1.0 / (F as f32).sqrt()),
        c2: rng.vec(D, 0.1),
    }
}

pub struct ShapedIn {
    x: Tensor<f32, Shape![2, 16, 64]>,
    ln1_g: Tensor<f32, Shape![64]>,
    ln1_b: Tensor<f32, Shape![64]>,
    wq: Tensor<f32, Shape![64, 64]>,
    wk: Tensor<f32, Shape![64, 64]>,
    wv: Tensor<f32, Shape![64, 64]>,
    wo: Tensor<f32, Shape![64, 64]>,
    ln2_g: Tensor<f32, Shape![64]>,
    ln2_b: Tensor<f32, Shape![64]>,
    w1: Tensor<f32, Shape![64, 256]>,
    c1: Tensor<f32, Shape![256]>,
    w2: Tensor<f32, Shape![256, 64]>,
    c2: Tensor<f32, Shape![64]>,
}

pub struct NdIn {
    x: Array3<f32>,
    ln1_g: Array1<f32>,
    ln1_b: Array1<f32>,
    wq: Array2<f32>,
    wk: Array2<f32>,
    wv: Array2<f32>,
    wo: Array2<f32>,
    ln2_g: Array1<f32>,
    ln2_b: Array1<f32>,
    w1: Array2<f32>,
    c1: Array1<f32>,
    w2: Array2<f32>,
    c2: Array1<f32>,
}

/// Row-major `Vec`s, as a C programmer would keep them.
pub struct HandIn {
    x: Vec<f32>,
    ln1_g: Vec<f32>,
    ln1_b: Vec<f32>,
    wq: Vec<f32>,
    wk: Vec<f32>,
    wv: Vec<f32>,
    wo: Vec<f32>,
    ln2_g: Vec<f32>,
    ln2_b: Vec<f32>,
    w1: Vec<f32>,
    c1: Vec<f32>,
    w2: Vec<f32>,
    c2: Vec<f32>,
}

pub struct Inputs {
    pub shaped: ShapedIn,
    pub ndarray: NdIn,
    pub hand: HandIn,
}

pub fn inputs() -> Inputs {
    let r = raw();
    let a1 = |v: &Vec<f32>| Array1::from_vec(v.clone());
    let a2 = |v: &Vec<f32>, m, n| Array2::from_shape_vec((m, n), v.clone()).unwrap();
    Inputs {
        shaped: ShapedIn {
            x: Tensor::try_from(&r.x[..]).unwrap(),
            ln1_g: Tensor::try_from(&r.ln1_g[..]).unwrap(),
            ln1_b: Tensor::try_from(&r.ln1_b[..]).unwrap(),
            wq: Tensor::try_from(&r.wq[..]).unwrap(),
            wk: Tensor::try_from(&r.wk[..]).unwrap(),
            wv: Tensor::try_from(&r.wv[..]).unwrap(),
            wo: Tensor::try_from(&r.wo[..]).unwrap(),
            ln2_g: Tensor::try_from(&r.ln2_g[..]).unwrap(),
            ln2_b: Tensor::try_from(&r.ln2_b[..]).unwrap(),
            w1: Tensor::try_from(&r.w1[..]).unwrap(),
            c1: Tensor::try_from(&r.c1[..]).unwrap(),
            w2: Tensor::try_from(&r.w2[..]).unwrap(),
            c2: Tensor::try_from(&r.c2[..]).unwrap(),
        },
        ndarray: NdIn {
            x: Array3::from_shape_vec((B, S, D), r.x.clone()).unwrap(),
            ln1_g: a1(&r.ln1_g),
            ln1_b: a1(&r.ln1_b),
            wq: a2(&r.wq, D, D),
            wk: a2(&r.wk, D, D),
            wv: a2(&r.wv, D, D),
            wo: a2(&r.wo, D, D),
            ln2_g: a1(&r.ln2_g),
            ln2_b: a1(&r.ln2_b),
            w1: a2(&r.w1, D, F),
            c1: a1(&r.c1),
            w2: a2(&r.w2, F, D),
            c2: a1(&r.c2),
        },
        hand: HandIn {
            x: r.x,
            ln1_g: r.ln1_g,
            ln1_b: r.ln1_b,
            wq: r.wq,
            wk: r.wk,
            wv: r.wv,
            wo: r.wo,
            ln2_g: r.ln2_g,
            ln2_b: r.ln2_b,
            w1: r.w1,
            c1: r.c1,
            w2: r.w2,
            c2: r.c2,
        },
    }
}

pub fn shaped(p: &ShapedIn) -> Tensor<f32, Shape![2, 16, 64]> {
    let h = p.x.layer_norm::<-1>(EPS) * p.ln1_g + p.ln1_b;
    // [2, 16, 64] -> [2, 16, 4, 16] -> [2, 4, 16, 16]: batch, head, position, feature.
    let q = h.matmul(&p.wq);
    let k = h.matmul(&p.wk);
    let v = h.matmul(&p.wv);
    let q = q
        .reshape::<Shape![2, 16, 4, 16]>()
        .permute::<Axes![0, 2, 1, 3]>();
    let k = k
        .reshape::<Shape![2, 16, 4, 16]>()
        .permute::<Axes![0, 2, 1, 3]>();
    let v = v
        .reshape::<Shape![2, 16, 4, 16]>()
        .permute::<Axes![0, 2, 1, 3]>();
    let scores = q.matmul_nt(&k) * SCALE;
    let attn = scores.softmax::<-1>();
    let ctx = attn.matmul(&v).permute::<Axes![0, 2, 1, 3]>();
    let ctx = ctx.reshape::<Shape![2, 16, 64]>();
    let x1 = p.x + ctx.matmul(&p.wo);
    let h2 = x1.layer_norm::<-1>(EPS) * p.ln2_g + p.ln2_b;
    let m = (h2.matmul(&p.w1) + p.c1).gelu();
    x1 + (m.matmul(&p.w2) + p.c2)
}

fn nd_layer_norm(x: &ArrayView2<f32>, g: &Array1<f32>, b: &Array1<f32>) -> Array2<f32> {
    let mean = x.mean_axis(Axis(1)).unwrap().insert_axis(Axis(1));
    let var = x.var_axis(Axis(1), 0.0).insert_axis(Axis(1));
    let inv = var.mapv(|v| 1.0 / (v + EPS).sqrt());
    (&(x - &mean) * &inv) * g + b
}

pub fn ndarray(p: &NdIn) -> Array3<f32> {
    let x = p.x.view().into_shape_with_order((B * S, D)).unwrap();
    let h = nd_layer_norm(&x, &p.ln1_g, &p.ln1_b);
    let q = h.dot(&p.wq);
    let k = h.dot(&p.wk);
    let v = h.dot(&p.wv);
    let mut ctx = Array2::<f32>::zeros((B * S, D));
    for b in 0..B {
        for hd in 0..H {
            let rows = b * S..(b + 1) * S;
            let cols = hd * DH..(hd + 1) * DH;
            let qs = q.slice(s![rows.clone(), cols.clone()]);
            let ks = k.slice(s![rows.clone(), cols.clone()]);
            let vs = v.slice(s![rows.clone(), cols.clone()]);
            let mut scores = qs.dot(&ks.t()) * SCALE;
            for mut row in scores.rows_mut() {
                let m = row.fold(f32::NEG_INFINITY, |a, &b| a.max(b));
                row.mapv_inplace(|v| (v - m).exp());
                let s = row.sum();
                row /= s;
            }
            ctx.slice_mut(s![rows, cols]).assign(&scores.dot(&vs));
        }
    }
    let x1 = &x + &ctx.dot(&p.wo);
    let h2 = nd_layer_norm(&x1.view(), &p.ln2_g, &p.ln2_b);
    let m = (h2.dot(&p.w1) + &p.c1).mapv_into(gelu);
    let y = x1 + m.dot(&p.w2) + &p.c2;
    y.into_shape_with_order((B, S, D)).unwrap()
}

/// `[rows, cols]` row by row: `(x - mean) / sqrt(var + eps) * g + b`.
fn hand_layer_norm(x: &[f32], g: &[f32], b: &[f32]) -> Vec<f32> {
    let mut out = vec![0.0f32; x.len()];
    for (xr, or) in x.chunks_exact(D).zip(out.chunks_exact_mut(D)) {
        let mean = xr.iter().sum::<f32>() / D as f32;
        let var = xr.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / D as f32;
        let inv = 1.0 / (var + EPS).sqrt();
        for (((o, x), g), b) in or.iter_mut().zip(xr).zip(g).zip(b) {
            *o = (x - mean) * inv * g + b;
        }
    }
    out
}

/// `a [m, k]` times `w [k, n]`, row-major, the k loop in the middle so the inner loop runs
/// along a row of `w`.
fn hand_matmul(a: &[f32], w: &[f32], k: usize, n: usize) -> Vec<f32> {
    let m = a.len() / k;
    let mut out = vec![0.0f32; m * n];
    for (ar, o) in a.chunks_exact(k).zip(out.chunks_exact_mut(n)) {
        for (aik, wr) in ar.iter().zip(w.chunks_exact(n)) {
            for (o, w) in o.iter_mut().zip(wr) {
                *o += aik * w;
            }
        }
    }
    out
}

pub fn hand(p: &HandIn) -> Vec<f32> {
    let h = hand_layer_norm(&p.x, &p.ln1_g, &p.ln1_b);
    let q = hand_matmul(&h, &p.wq, D, D);
    let k = hand_matmul(&h, &p.wk, D, D);
    let v = hand_matmul(&h, &p.wv, D, D);
    let mut ctx = vec![0.0f32; B * S * D];
    for b in 0..B {
        for hd in 0..H {
            let off = hd * DH;
            for i in 0..S {
                let qi = &q[(b * S + i) * D + off..][..DH];
                let mut sc = [0.0f32; S];
                for (j, scj) in sc.iter_mut().enumerate() {
                    let kj = &k[(b * S + j) * D + off..][..DH];
                    let mut acc = 0.0;
                    for (a, b) in qi.iter().zip(kj) {
                        acc += a * b;
                    }
                    *scj = acc * SCALE;
                }
                let m = sc.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b));
                let mut sum = 0.0;
                for e in sc.iter_mut() {
                    *e = (*e - m).exp();
                    sum += *e;
                }
                let c = &mut ctx[(b * S + i) * D + off..][..DH];
                for (j, e) in sc.iter().enumerate() {
                    let w = e / sum;
                    let vj = &v[(b * S + j) * D + off..][..DH];
                    for (c, v) in c.iter_mut().zip(vj) {
                        *c += w * v;
                    }
                }
            }
        }
    }
    let o = hand_matmul(&ctx, &p.wo, D, D);
    let x1: Vec<f32> = p.x.iter().zip(&o).map(|(a, b)| a + b).collect();
    let h2 = hand_layer_norm(&x1, &p.ln2_g, &p.ln2_b);
    let mut m = hand_matmul(&h2, &p.w1, D, F);
    for row in m.chunks_exact_mut(F) {
        for (v, c) in row.iter_mut().zip(&p.c1) {
            *v = gelu(*v + c);
        }
    }
    let y2 = hand_matmul(&m, &p.w2, F, D);
    let mut y = x1;
    for (row, y2r) in y.chunks_exact_mut(D).zip(y2.chunks_exact(D)) {
        for ((y, a), c) in row.iter_mut().zip(y2r).zip(&p.c2) {
            *y += a + c;
        }
    }
    y
}

/// Outputs of magnitude up to about 4. The versions sum the 64- and 256-term products and the
/// layer norms' means in different orders (each a relative error up to n * 2^-24 of the sum
/// of magnitudes: 256 * 6e-8 * ~10 = 1.5e-4 in the worst case), and the twins' erf is
/// Abramowitz-Stegun's (1.5e-7 absolute) against shaped's libm erf: 2e-4 bounds it.
pub const TOLERANCE: f32 = 2e-4;

pub fn check() -> Check {
    let inp = inputs();
    let s = shaped(&inp.shaped);
    let n = ndarray(&inp.ndarray);
    let h = hand(&inp.hand);
    Check::new(
        "transformer",
        s.as_slice(),
        n.as_slice().unwrap(),
        &h,
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
