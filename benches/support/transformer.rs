//! The transformer block of `examples/transformer_block.rs` twice more, with the same
//! parameters: on ndarray as its users write it (2-D products over the merged batch, a loop over
//! heads), and as hand-written loops over flat `f32` buffers (each product `i`-`k`-`j` so that
//! the inner loop runs over contiguous rows; layer norm, softmax, bias and GELU fused per row).
//! `transformer.rs` times all three; `transformer_probe.rs` counts their instructions.

#![allow(dead_code)]

use ndarray::{s, Array1, Array2, Axis};

#[path = "../../examples/transformer_block.rs"]
pub mod block;

pub const BATCH: usize = 2;
pub const TOKENS: usize = 16;
pub const WIDTH: usize = 64;
pub const HEADS: usize = 4;
pub const HEAD: usize = 16;
pub const HIDDEN: usize = 256;
const ROWS: usize = BATCH * TOKENS;

/// Flat copies of the shaped block's parameters.
pub struct Params {
    pub ln1: (Vec<f32>, Vec<f32>),
    pub wqkv: (Vec<f32>, Vec<f32>),
    pub wo: (Vec<f32>, Vec<f32>),
    pub ln2: (Vec<f32>, Vec<f32>),
    pub w1: (Vec<f32>, Vec<f32>),
    pub w2: (Vec<f32>, Vec<f32>),
}

impl Params {
    pub fn of(b: &block::Block) -> Self {
        let v = |t: &[f32]| t.to_vec();
        Params {
            ln1: (v(b.ln1.0.as_slice()), v(b.ln1.1.as_slice())),
            wqkv: (v(b.wqkv.0.as_slice()), v(b.wqkv.1.as_slice())),
            wo: (v(b.wo.0.as_slice()), v(b.wo.1.as_slice())),
            ln2: (v(b.ln2.0.as_slice()), v(b.ln2.1.as_slice())),
            w1: (v(b.w1.0.as_slice()), v(b.w1.1.as_slice())),
            w2: (v(b.w2.0.as_slice()), v(b.w2.1.as_slice())),
        }
    }
}

/// shaped's GELU (tanh form), for the twins.
#[inline(always)]
pub fn gelu(x: f32) -> f32 {
    let k = 0.797_884_6_f32;
    0.5 * x * (1.0 + (k * (x + 0.044_715 * x * x * x)).tanh())
}

// ---------------------------------------------------------------- ndarray

/// The block on ndarray.
pub struct NdBlock {
    ln1: (Array1<f32>, Array1<f32>),
    wqkv: (Array2<f32>, Array1<f32>),
    wo: (Array2<f32>, Array1<f32>),
    ln2: (Array1<f32>, Array1<f32>),
    w1: (Array2<f32>, Array1<f32>),
    w2: (Array2<f32>, Array1<f32>),
}

impl NdBlock {
    pub fn of(p: &Params) -> Self {
        let m = |w: &[f32], r: usize, c: usize| Array2::from_shape_vec((r, c), w.to_vec()).unwrap();
        let v = |w: &[f32]| Array1::from_vec(w.to_vec());
        NdBlock {
            ln1: (v(&p.ln1.0), v(&p.ln1.1)),
            wqkv: (m(&p.wqkv.0, WIDTH, 3 * WIDTH), v(&p.wqkv.1)),
            wo: (m(&p.wo.0, WIDTH, WIDTH), v(&p.wo.1)),
            ln2: (v(&p.ln2.0), v(&p.ln2.1)),
            w1: (m(&p.w1.0, WIDTH, HIDDEN), v(&p.w1.1)),
            w2: (m(&p.w2.0, HIDDEN, WIDTH), v(&p.w2.1)),
        }
    }

    /// `x` is `[batch * tokens, width]`.
    pub fn forward(&self, x: &Array2<f32>) -> Array2<f32> {
        let h = nd_layer_norm(x, &self.ln1);
        let qkv = h.dot(&self.wqkv.0) + &self.wqkv.1;
        let mut attended = Array2::<f32>::zeros((ROWS, WIDTH));
        for b in 0..BATCH {
            let rows = b * TOKENS..(b + 1) * TOKENS;
            for head in 0..HEADS {
                let cols =
                    |part: usize| part * WIDTH + head * HEAD..part * WIDTH + (head + 1) * HEAD;
                let q = qkv.slice(s![rows.clone(), cols(0)]);
                let k = qkv.slice(s![rows.clone(), cols(1)]);
                let v = qkv.slice(s![rows.clone(), cols(2)]);
                let scores = q.dot(&k.t()) * 0.25;
                let max = scores.map_axis(Axis(1), |r| r.fold(f32::NEG_INFINITY, |a, &x| a.max(x)));
                let e = (&scores - &max.insert_axis(Axis(1))).mapv(f32::exp);
                let sum = e.sum_axis(Axis(1)).insert_axis(Axis(1));
                let p = &e / &sum;
                attended
                    .slice_mut(s![rows.clone(), head * HEAD..(head + 1) * HEAD])
                    .assign(&p.dot(&v));
            }
        }
        let x = x + &(attended.dot(&self.wo.0) + &self.wo.1);
        let h = nd_layer_norm(&x, &self.ln2);
        let m = (h.dot(&self.w1.0) + &self.w1.1).mapv(gelu);
        &x + &(m.dot(&self.w2.0) + &self.w2.1)
    }
}

fn nd_layer_norm(x: &Array2<f32>, (g, b): &(Array1<f32>, Array1<f32>)) -> Array2<f32> {
    let mean = x.mean_axis(Axis(1)).unwrap().insert_axis(Axis(1));
    let centered = x - &mean;
    let var = (&centered * &centered)
        .mean_axis(Axis(1))
        .unwrap()
        .insert_axis(Axis(1));
    let std = var.mapv(|v| (v + 1e-5).sqrt());
    &(&(&centered / &std) * g) + b
}

// ---------------------------------------------------------------- hand-written loops

/// `out[r][j] = bias[j] + sum_k a[r][k] w[k][j]`, rows of `a` `k` long.
#[inline(always)]
fn dense(a: &[f32], w: &[f32], bias: &[f32], k: usize, out: &mut [f32]) {
    let n = bias.len();
    for (row, o) in a.chunks_exact(k).zip(out.chunks_exact_mut(n)) {
        o.copy_from_slice(bias);
        for (kk, &x) in row.iter().enumerate() {
            for (oj, &wj) in o.iter_mut().zip(&w[kk * n..(kk + 1) * n]) {
                *oj += x * wj;
            }
        }
    }
}

/// Layer norm of each `WIDTH`-long row.
#[inline(always)]
fn layer_norm(x: &[f32], (g, b): &(Vec<f32>, Vec<f32>), out: &mut [f32]) {
    for (row, o) in x.chunks_exact(WIDTH).zip(out.chunks_exact_mut(WIDTH)) {
        let mean = row.iter().sum::<f32>() / WIDTH as f32;
        let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / WIDTH as f32;
        let std = (var + 1e-5).sqrt();
        for (((o, &v), &g), &b) in o.iter_mut().zip(row).zip(g).zip(b) {
            *o = (v - mean) / std * g + b;
        }
    }
}

/// The block as hand-written loops; `x` and the result are `[batch * tokens * width]`.
pub fn hand_forward(p: &Params, x: &[f32]) -> Vec<f32> {
    let mut h = vec![0.0f32; ROWS * WIDTH];
    layer_norm(x, &p.ln1, &mut h);
    let mut qkv = vec![0.0f32; ROWS * 3 * WIDTH];
    dense(&h, &p.wqkv.0, &p.wqkv.1, WIDTH, &mut qkv);
    let mut attended = vec![0.0f32; ROWS * WIDTH];
    let at = |r: usize, part: usize, head: usize| r * 3 * WIDTH + part * WIDTH + head * HEAD;
    for b in 0..BATCH {
        for head in 0..HEADS {
            for i in 0..TOKENS {
                let q = &qkv[at(b * TOKENS + i, 0, head)..][..HEAD];
                let mut scores = [0.0f32; TOKENS];
                for (j, s) in scores.iter_mut().enumerate() {
                    let k = &qkv[at(b * TOKENS + j, 1, head)..][..HEAD];
                    *s = q.iter().zip(k).map(|(a, b)| a * b).sum::<f32>() * 0.25;
                }
                let max = scores.iter().fold(f32::NEG_INFINITY, |a, &x| a.max(x));
                let mut sum = 0.0;
                for s in &mut scores {
                    *s = (*s - max).exp();
                    sum += *s;
                }
                let o = &mut attended[(b * TOKENS + i) * WIDTH + head * HEAD..][..HEAD];
                o.fill(0.0);
                for (j, &s) in scores.iter().enumerate() {
                    let v = &qkv[at(b * TOKENS + j, 2, head)..][..HEAD];
                    let w = s / sum;
                    for (oo, &vv) in o.iter_mut().zip(v) {
                        *oo += w * vv;
                    }
                }
            }
        }
    }
    let mut x1 = vec![0.0f32; ROWS * WIDTH];
    dense(&attended, &p.wo.0, &p.wo.1, WIDTH, &mut x1);
    for (o, &v) in x1.iter_mut().zip(x) {
        *o += v;
    }
    layer_norm(&x1, &p.ln2, &mut h);
    let mut m = vec![0.0f32; ROWS * HIDDEN];
    dense(&h, &p.w1.0, &p.w1.1, WIDTH, &mut m);
    for v in &mut m {
        *v = gelu(*v);
    }
    let mut y = vec![0.0f32; ROWS * WIDTH];
    dense(&m, &p.w2.0, &p.w2.1, HIDDEN, &mut y);
    for (o, &v) in y.iter_mut().zip(&x1) {
        *o += v;
    }
    y
}
