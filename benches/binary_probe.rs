//! Instruction-count probe for callgrind (deterministic, unlike wall time on a shared machine):
//! ten runs of `relu(x + bias) * scale` on 1x256x56x56 f32, chosen by `PROBE`:
//! `none` (setup only), `hand`, `hand_nhwc`, `nchw`, `nhwc`. Per-run instructions = (variant - none) / 10.
//!
//! ```text
//! cargo bench --no-run --bench binary_probe
//! PROBE=nchw valgrind --tool=callgrind target/release/deps/binary_probe-*[^.d]
//! ```

use shaped::primitive::{Alg, Binary, Eltwise, Layout, MemMut, MemRef, PostOp};

#[path = "support/relu_scale.rs"]
mod relu_scale;
use relu_scale::{hand_fused, hand_fused_nhwc, C, HW};

fn main() {
    let which = std::env::var("PROBE").unwrap_or_else(|_| "none".into());
    let dims = [1, C, 56, 56];
    let len = C * HW;
    let src = relu_scale::source(len);
    let (bias, scale) = relu_scale::bias_and_scale();
    let mut dst = vec![0.0f32; len];
    let a = MemRef::new(dims, &src, Layout::RowMajor).unwrap();
    let an = MemRef::new(dims, &src, Layout::ChannelsLast).unwrap();
    let b = MemRef::new([1, C, 1, 1], &bias, Layout::RowMajor).unwrap();
    let s = MemRef::new([1, C, 1, 1], &scale, Layout::RowMajor).unwrap();
    let fused = Binary::new(Alg::Add)
        .post_op(PostOp::Eltwise(Eltwise::Relu))
        .post_op(PostOp::binary(Alg::Mul, &s));
    for _ in 0..10 {
        match which.as_str() {
            "hand" => hand_fused(std::hint::black_box(&src), &bias, &scale, &mut dst),
            "hand_nhwc" => hand_fused_nhwc(std::hint::black_box(&src), &bias, &scale, &mut dst),
            "nchw" => fused
                .run_into(&a, &b, &mut MemMut::any(dims, &mut dst).unwrap())
                .unwrap(),
            "nhwc" => fused
                .run_into(&an, &b, &mut MemMut::any(dims, &mut dst).unwrap())
                .unwrap(),
            _ => {}
        }
    }
    std::hint::black_box(&dst);
}
