//! Weights stored as bytes in a `static`, as a microcontroller keeps them in flash, and the
//! network run on typed views of those bytes: no copy, no allocator, every shape checked.
//!
//! `data/mlp_f32le.bin` holds the parameters of `examples/dense_layer.rs` (16 -> 32 -> 4, ReLU
//! between) as little-endian `f32`s: `w1` [16, 32], `b1` [32], `w2` [32, 4], `b2` [4]. The
//! outputs are those of `dense_layer`, bit for bit; the Cortex-M suite (`qemu-tests/`) runs the
//! same code from the same bytes.
//!
//! ```sh
//! cargo run --example weights_in_flash --features bytemuck
//! ```

use shaped::{Error, Shape, Tensor, TensorView};

/// Bytes aligned for `f32`: `include_bytes!` alone promises no alignment, and a view of `f32`s
/// needs 4 (`TensorView::from_bytes` refuses misaligned bytes with an error).
#[repr(C, align(4))]
struct Flash<const N: usize>([u8; N]);

// The file is little-endian; so are x86, Arm Cortex-M and RISC-V.
#[cfg(target_endian = "big")]
compile_error!("data/mlp_f32le.bin holds little-endian f32s");

static PARAMS: Flash<2704> = Flash(*include_bytes!("data/mlp_f32le.bin"));

fn main() -> Result<(), Error> {
    let p = &PARAMS.0;
    let w1 = TensorView::<f32, Shape![16, 32]>::from_bytes(&p[..2048])?;
    let b1 = TensorView::<f32, Shape![32]>::from_bytes(&p[2048..2176])?;
    let w2 = TensorView::<f32, Shape![32, 4]>::from_bytes(&p[2176..2688])?;
    let b2 = TensorView::<f32, Shape![4]>::from_bytes(&p[2688..])?;
    // The views read the static in place.
    assert_eq!(w1.as_bytes().as_ptr(), p.as_ptr());

    let x = Tensor::<f32, Shape![2, 16]>::from_fn(|[b, i]| ((b * 16 + i) % 5) as f32 * 0.25);
    let hidden: Tensor<f32, Shape![2, 32]> = (x.matmul(&w1) + b1).relu();
    let y: Tensor<f32, Shape![2, 4]> = hidden.matmul(&w2) + b2;
    println!("output, shape {:?}:\n{:.4}", y.shape(), y);
    println!("exactly: {:?}", y.as_slice());

    // A slice of the wrong size, or one starting off an f32 boundary, is an error value.
    let short = TensorView::<f32, Shape![16, 32]>::from_bytes(&p[..2044]).unwrap_err();
    println!("short:      {short}");
    let misaligned = TensorView::<f32, Shape![4]>::from_bytes(&p[2..18]).unwrap_err();
    println!("misaligned: {misaligned}");
    Ok(())
}
