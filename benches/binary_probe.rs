//! Instruction-count probe for callgrind (deterministic, unlike wall time on a shared machine):
//! ten runs of `relu(x + bias) * scale` on 1x256x56x56 f32, chosen by `PROBE`:
//! `none` (setup only), `hand`, `hand_nhwc`, `nchw`, `nhwc`. Per-run instructions = (variant - none) / 10.
//!
//! ```text
//! cargo bench --no-run --bench binary_probe
//! PROBE=nchw valgrind --tool=callgrind target/release/deps/binary_probe-*[^.d]
//! ```

use shaped::binary::{Alg, Binary, Eltwise, Layout, MemMut, MemRef, PostOp};
const C: usize = 256;
const HW: usize = 56 * 56;
fn hand_fused(a: &[f32], bias: &[f32], scale: &[f32], dst: &mut [f32]) {
    for (n_c, (d, a)) in dst.chunks_exact_mut(HW).zip(a.chunks_exact(HW)).enumerate() {
        let (b, s) = (bias[n_c % C], scale[n_c % C]);
        for (d, &x) in d.iter_mut().zip(a) {
            let v = x + b;
            *d = if v > 0.0 { v } else { 0.0 } * s;
        }
    }
}
fn hand_fused_nhwc(a: &[f32], bias: &[f32], scale: &[f32], dst: &mut [f32]) {
    for (d, a) in dst.chunks_exact_mut(C).zip(a.chunks_exact(C)) {
        for (((d, &x), &b), &s) in d.iter_mut().zip(a).zip(bias).zip(scale) {
            let v = x + b;
            *d = if v > 0.0 { v } else { 0.0 } * s;
        }
    }
}

fn main() {
    let which = std::env::var("PROBE").unwrap_or_else(|_| "none".into());
    let dims = [1, C, 56, 56];
    let len = C * HW;
    let src: Vec<f32> = (0..len)
        .map(|i| ((i * 7919) % 2003) as f32 * 0.01 - 10.0)
        .collect();
    let bias: Vec<f32> = (0..C).map(|i| (i % 13) as f32 - 6.0).collect();
    let scale: Vec<f32> = (0..C).map(|i| 0.5 + (i % 5) as f32 * 0.25).collect();
    let mut dst = vec![0.0f32; len];
    let a = MemRef::new(&src, &dims, Layout::RowMajor).unwrap();
    let an = MemRef::new(&src, &dims, Layout::ChannelsLast).unwrap();
    let b = MemRef::new(&bias, &[1, C, 1, 1], Layout::RowMajor).unwrap();
    let s = MemRef::new(&scale, &[1, C, 1, 1], Layout::RowMajor).unwrap();
    let fused = Binary::new(Alg::Add)
        .post_op(PostOp::Eltwise(Eltwise::Relu))
        .post_op(PostOp::binary(Alg::Mul, &s));
    for _ in 0..10 {
        match which.as_str() {
            "hand" => hand_fused(std::hint::black_box(&src), &bias, &scale, &mut dst),
            "hand_nhwc" => hand_fused_nhwc(std::hint::black_box(&src), &bias, &scale, &mut dst),
            "nchw" => fused
                .run_into(&a, &b, &mut MemMut::any(&mut dst, &dims).unwrap())
                .unwrap(),
            "nhwc" => fused
                .run_into(&an, &b, &mut MemMut::any(&mut dst, &dims).unwrap())
                .unwrap(),
            _ => {}
        }
    }
    std::hint::black_box(&dst);
}
