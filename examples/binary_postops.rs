//! A small NCHW bias + ReLU + per-channel scale, fused into one pass by the binary primitive:
//! once with static shapes (checked by the compiler), once with runtime shapes in channels-last
//! memory, with the destination layout chosen by the `any` rule.

use shaped::primitive::{Alg, Binary, Eltwise, Layout, MemMut, MemRef, PostOp};
use shaped::{Shape, Tensor};

fn main() -> Result<(), shaped::Error> {
    // x: [N=1, C=2, H=3, W=3], values -4 .. 13.
    let x =
        Tensor::<f32, Shape![1, 2, 3, 3]>::from_fn(|[_, c, h, w]| (c * 9 + h * 3 + w) as f32 - 4.0);
    let bias = Tensor::<f32, Shape![1, 2, 1, 1]>::from([[[[0.5]], [[-6.0]]]]);
    let scale = Tensor::<f32, Shape![1, 2, 1, 1]>::from([[[[10.0]], [[0.5]]]]);

    let prim = Binary::new(Alg::Add)
        .post_op(PostOp::Eltwise(Eltwise::Relu))
        .post_op(PostOp::binary(Alg::Mul, &scale));

    // Static path: a [1, 2, 3, 3] result; a wrong bias or scale shape would not compile.
    let y = prim.apply(&x, &bias)?;
    println!("x =\n{x}\n");
    println!("relu(x + bias) * scale =\n{y}\n");

    // Runtime path, no allocation: the same data in channels-last (NHWC) memory.
    let mut nhwc = [0.0f32; 18];
    for (i, v) in nhwc.iter_mut().enumerate() {
        let (h, w, c) = (i / 6, (i / 2) % 3, i % 2);
        *v = x[[0, c, h, w]];
    }
    let src = MemRef::new([1, 2, 3, 3], &nhwc, Layout::ChannelsLast)?;
    let mut out = [0.0f32; 18];
    let mut dst = MemMut::any([1, 2, 3, 3], &mut out)?;
    prim.run_into(&src, &bias, &mut dst)?;
    println!(
        "channels-last source, `any` destination: chose {:?}, strides {:?}",
        dst.layout(),
        dst.strides()
    );
    for c in 0..2 {
        let row: Vec<f32> = (0..9)
            .map(|i| *dst.get(&[0, c, i / 3, i % 3]).unwrap())
            .collect();
        assert_eq!(row, y.as_slice()[c * 9..(c + 1) * 9]);
    }
    println!("same values as the static path: yes");

    // A post-op operand that would grow the destination is an error value at run time.
    let wide = [1.0f32; 36];
    let wide = MemRef::new([2, 2, 3, 3], &wide, Layout::RowMajor)?;
    let err = Binary::new(Alg::Add)
        .post_op(PostOp::binary(Alg::Mul, &wide))
        .run_into(&src, &bias, &mut dst)
        .unwrap_err();
    println!("error: {err}");
    Ok(())
}
