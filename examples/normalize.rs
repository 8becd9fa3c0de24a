//! Per-channel normalization of an NCHW batch: `(x - mean) / sqrt(var + eps)`, the mean and
//! variance taken over the batch, height and width of each channel. Once with static shapes,
//! where every broadcast below is checked by the compiler, and once with runtime shapes, where
//! the same rules return errors as values.

// `&a - &b` works for every element type; clippy prefers `a - b` only because tensors of `Copy`
// elements are themselves `Copy`.
#![allow(clippy::op_ref)]

use shaped::{Shape, Tensor};

const EPS: f32 = 1e-5;

fn main() -> Result<(), shaped::Error> {
    // Static shapes: N=2, C=3, H=2, W=2.
    let x = Tensor::<f32, Shape![2, 3, 2, 2]>::from_fn(|[n, c, h, w]| {
        (c * 10) as f32 + (n * 4 + h * 2 + w) as f32 * 0.5
    });
    // Mean over N, H and W, kept as 1s: [1, 3, 1, 1], which broadcasts back against x.
    let mean = x
        .mean_keepdims::<0>()
        .mean_keepdims::<2>()
        .mean_keepdims::<3>();
    let centered = &x - &mean;
    let var = (&centered * &centered)
        .mean_keepdims::<0>()
        .mean_keepdims::<2>()
        .mean_keepdims::<3>();
    let normalized = &centered / &(var + EPS).sqrt();
    println!("per-channel mean, shape {:?}:\n{:.2}\n", mean.shape(), mean);
    println!(
        "normalized, shape {:?}:\n{:.3}\n",
        normalized.shape(),
        normalized
    );
    // Without keepdims the axis is gone, and the shapes no longer line up: [2, 3, 2] against
    // [2, 3, 2, 2] right-aligned meets 2 with 3, a compile error (rule P2).
    // let bad = &x - &x.sum_axis::<3>();

    // Runtime shapes: the same computation, the axes given as values.
    let d = x.to_dyn();
    let mean = d.mean(&[0, 2, 3], true)?;
    let centered = d.try_sub(&mean)?;
    let var = (&centered * &centered).mean(&[0, -2, -1], true)?;
    let normalized_dyn = centered.try_div(&(&var + EPS).sqrt())?;
    println!(
        "runtime path, shape {:?}: same values as the static one: {}",
        normalized_dyn.shape(),
        normalized_dyn.as_slice() == normalized.as_slice()
    );
    // Each channel now has mean 0 and variance 1.
    let per_channel = normalized_dyn.mean(&[0, 2, 3], false)?;
    println!("per-channel means after normalizing: {:.3}", per_channel);
    match d.mean(&[0, 4], true) {
        Ok(_) => unreachable!("axis 4 does not exist"),
        Err(e) => println!("error: {e}"),
    }
    Ok(())
}
