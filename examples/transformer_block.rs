//! One pre-norm transformer encoder block on static shapes, as a newcomer would write it:
//! batch 2, 16 tokens, width 64, 4 heads of 16, an MLP of 256 with GELU. Every shape below is
//! checked by the compiler (a wrong head split or weight shape does not build).
//!
//! `benches/transformer.rs` times it against the same block on ndarray and as hand-written
//! loops (`benches/support/transformer.rs`), and counts their instructions.

// By-reference operands: the tensors here are kilobytes, and a by-value operand is a copy.
#![allow(clippy::op_ref)]

use shaped::{Axes, Shape, Tensor};

/// The activations: `[batch, tokens, width]`.
pub type Act = Tensor<f32, Shape![2, 16, 64]>;

/// A layer norm's scale and shift.
pub type Norm = (Tensor<f32, Shape![64]>, Tensor<f32, Shape![64]>);

/// A dense layer from `I` to `O` features: weights and bias.
pub type Dense<const I: usize, const O: usize> = (
    Tensor<f32, Shape![{ I }, { O }]>,
    Tensor<f32, Shape![{ O }]>,
);

/// The block's parameters.
pub struct Block {
    /// First layer norm.
    pub ln1: Norm,
    /// Query, key and value projections side by side.
    pub wqkv: Dense<64, 192>,
    /// The attention's output projection.
    pub wo: Dense<64, 64>,
    /// Second layer norm.
    pub ln2: Norm,
    /// The MLP's first layer.
    pub w1: Dense<64, 256>,
    /// The MLP's second layer.
    pub w2: Dense<256, 64>,
}

/// Deterministic values in [-0.5, 0.5): parameter `seed`, element `i`.
pub fn value(seed: usize, i: usize) -> f32 {
    ((i * 7919 + seed * 104_729) % 1000) as f32 / 1000.0 - 0.5
}

impl Block {
    /// Deterministic parameters (weights scaled down so activations stay moderate).
    pub fn new() -> Self {
        fn t<S: shaped::StaticShape>(seed: usize, scale: f32) -> Tensor<f32, S> {
            let mut i = 0;
            Tensor::from_fn(|_| {
                i += 1;
                value(seed, i) * scale
            })
        }
        Block {
            ln1: (t::<Shape![64]>(1, 0.2) + 1.0, t(2, 0.2)),
            wqkv: (t(3, 0.25), t(4, 0.1)),
            wo: (t(5, 0.25), t(6, 0.1)),
            ln2: (t::<Shape![64]>(7, 0.2) + 1.0, t(8, 0.2)),
            w1: (t(9, 0.25), t(10, 0.1)),
            w2: (t(11, 0.12), t(12, 0.1)),
        }
    }

    /// `x + attention(ln1(x))`, then `+ mlp(ln2(.))`.
    pub fn forward(&self, x: &Act) -> Act {
        let h = layer_norm(x, &self.ln1);
        // [2, 16, 192]: queries, keys and values side by side.
        let qkv = h.matmul(&self.wqkv.0) + &self.wqkv.1;
        // [2, 16, 64] -> [2, 16, 4, 16] -> [2, 4, 16, 16]: one matrix per head.
        let heads = |part: Tensor<f32, Shape![2, 16, 64]>| {
            part.reshape::<Shape![2, 16, 4, 16]>()
                .permute::<Axes![0, 2, 1, 3]>()
        };
        let q = heads(qkv.narrow::<2, 0, 64>());
        let k = heads(qkv.narrow::<2, 64, 64>());
        let v = heads(qkv.narrow::<2, 128, 64>());
        let scores = q.matmul_t::<false, true, _, _>(&k) * 0.25; // 1 / sqrt(16)
        let p = softmax(&scores);
        let attended = p.matmul(&v).permute::<Axes![0, 2, 1, 3]>(); // [2, 16, 4, 16]
        let attended = attended.reshape::<Shape![2, 16, 64]>();
        let x = x + &(attended.matmul(&self.wo.0) + &self.wo.1);
        let h = layer_norm(&x, &self.ln2);
        let m = (h.matmul(&self.w1.0) + &self.w1.1).gelu_tanh();
        &x + &(m.matmul(&self.w2.0) + &self.w2.1)
    }
}

impl Default for Block {
    fn default() -> Self {
        Block::new()
    }
}

/// Normalizes each token over the width, then scales and shifts.
fn layer_norm(x: &Act, (g, b): &Norm) -> Act {
    let centered = x - &x.mean_keepdims::<2>();
    let var = (&centered * &centered).mean_keepdims::<2>();
    let std = (var + 1e-5).sqrt();
    &(&(&centered / &std) * g) + b
}

/// Softmax over the last axis.
fn softmax(s: &Tensor<f32, Shape![2, 4, 16, 16]>) -> Tensor<f32, Shape![2, 4, 16, 16]> {
    let e = (s - &s.max_keepdims::<3>()).exp();
    &e / &e.sum_keepdims::<3>()
}

/// The input tokens.
pub fn input() -> Act {
    let mut i = 0;
    Act::from_fn(|_| {
        i += 1;
        value(99, i) * 2.0
    })
}

#[allow(dead_code)]
fn main() {
    let block = Block::new();
    let y = block.forward(&input());
    let sum: f32 = y.iter().sum();
    println!(
        "output [2, 16, 64]: sum {sum:.6}, y[0, 0, 0..4] = {:?}",
        &y.as_slice()[..4]
    );
}
