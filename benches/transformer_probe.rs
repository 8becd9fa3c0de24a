//! Instruction-count probe for callgrind: 100 forward passes of the transformer block of
//! `transformer.rs`, chosen by `PROBE`: `none` (setup only), `shaped`, `ndarray`, `hand`.
//! Per pass = (variant - none) / 100.
//!
//! ```text
//! cargo bench --no-run --bench transformer_probe
//! PROBE=shaped valgrind --tool=callgrind target/release/deps/transformer_probe-*[^.d]
//! ```

use std::hint::black_box;

use ndarray::Array2;

#[path = "support/transformer.rs"]
mod transformer;
use transformer::{block, hand_forward, NdBlock, Params, BATCH, TOKENS, WIDTH};

fn main() {
    let which = std::env::var("PROBE").unwrap_or_else(|_| "none".into());
    let shaped_block = block::Block::new();
    let x = block::input();
    let params = Params::of(&shaped_block);
    let nd = NdBlock::of(&params);
    let nx = Array2::from_shape_vec((BATCH * TOKENS, WIDTH), x.as_slice().to_vec()).unwrap();
    let mut sum = 0.0f32;
    for _ in 0..100 {
        sum += match which.as_str() {
            "shaped" => shaped_block.forward(black_box(&x)).as_slice()[7],
            "ndarray" => nd.forward(black_box(&nx))[[0, 7]],
            "hand" => hand_forward(black_box(&params), black_box(x.as_slice()))[7],
            _ => 0.0,
        };
    }
    println!("{which}: {sum}");
}
