//! The transformer encoder block of `examples/transformer_block.rs` (batch 2, 16 tokens, width
//! 64, 4 heads, MLP 256, static shapes) against the same block on ndarray and as hand-written
//! loops, one forward pass each, with the same parameters. The three results agree to 1e-4.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use ndarray::Array2;

#[path = "support/transformer.rs"]
mod transformer;
use transformer::{block, hand_forward, NdBlock, Params, BATCH, TOKENS, WIDTH};

fn forward(c: &mut Criterion) {
    let shaped_block = block::Block::new();
    let x = block::input();
    let params = Params::of(&shaped_block);
    let nd = NdBlock::of(&params);
    let nx = Array2::from_shape_vec((BATCH * TOKENS, WIDTH), x.as_slice().to_vec()).unwrap();

    let (s, n, h) = (
        shaped_block.forward(&x),
        nd.forward(&nx),
        hand_forward(&params, x.as_slice()),
    );
    for ((a, b), c) in s.as_slice().iter().zip(n.as_slice().unwrap()).zip(&h) {
        assert!((a - b).abs() < 1e-4 && (a - c).abs() < 1e-4, "{a} {b} {c}");
    }

    let mut g = c.benchmark_group("transformer_block");
    g.bench_function("shaped", |b| b.iter(|| shaped_block.forward(black_box(&x))));
    g.bench_function("ndarray", |b| b.iter(|| nd.forward(black_box(&nx))));
    g.bench_function("hand", |b| {
        b.iter(|| hand_forward(black_box(&params), black_box(x.as_slice())))
    });
    g.finish();
}

criterion_group!(benches, forward);
criterion_main!(benches);
