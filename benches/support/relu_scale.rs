//! What `binary_postops.rs` (time) and `binary_probe.rs` (instructions) both measure against:
//! the hand-written fused loops for `relu(x + bias[c]) * scale[c]` and their inputs.

/// Channels.
pub const C: usize = 256;
/// Height times width.
pub const HW: usize = 56 * 56;

/// `len` source values, spread over about -10 to 10.
pub fn source(len: usize) -> Vec<f32> {
    (0..len)
        .map(|i| ((i * 7919) % 2003) as f32 * 0.01 - 10.0)
        .collect()
}

/// The per-channel bias and scale.
pub fn bias_and_scale() -> (Vec<f32>, Vec<f32>) {
    let bias = (0..C).map(|i| (i % 13) as f32 - 6.0).collect();
    let scale = (0..C).map(|i| 0.5 + (i % 5) as f32 * 0.25).collect();
    (bias, scale)
}

/// The ReLU shaped computes (`maximum(v, 0)`, NaN propagated), written as one would by hand so
/// that both sides compute the same function. The NaN-dropping `if v > 0.0 { v } else { 0.0 }`
/// is one SSE instruction per vector cheaper (0.25 instructions per element here).
#[inline(always)]
pub fn relu(v: f32) -> f32 {
    if 0.0 > v {
        0.0
    } else {
        v
    }
}

/// The loop one writes by hand for NCHW data.
pub fn hand_fused(a: &[f32], bias: &[f32], scale: &[f32], dst: &mut [f32]) {
    for (n_c, (d, a)) in dst.chunks_exact_mut(HW).zip(a.chunks_exact(HW)).enumerate() {
        let (b, s) = (bias[n_c % C], scale[n_c % C]);
        for (d, &x) in d.iter_mut().zip(a) {
            let v = x + b;
            *d = relu(v) * s;
        }
    }
}

/// The loop one writes by hand for NHWC data.
pub fn hand_fused_nhwc(a: &[f32], bias: &[f32], scale: &[f32], dst: &mut [f32]) {
    for (d, a) in dst.chunks_exact_mut(C).zip(a.chunks_exact(C)) {
        for (((d, &x), &b), &s) in d.iter_mut().zip(a).zip(bias).zip(scale) {
            let v = x + b;
            *d = relu(v) * s;
        }
    }
}
