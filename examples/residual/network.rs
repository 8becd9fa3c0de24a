//! The int8 residual network as a shaped network on static shapes, TFLM's arithmetic (rules
//! Q8, Q17, Q18, Q19), every parameter a constant read from `model.rs` (made from
//! `residual_int8.tflite` by `make_model.py`):
//!
//! ```text
//! x [1, 8] -> FC 16, ReLU -> FC 8 -> ADD x (other scales) -> FC 4, ReLU -> ADD b [4] (broadcast)
//! ```
//!
//! The converter gave every layer per-channel weights. No allocator: the weights are read in
//! place from `static`s, the activations live on the stack.

use shaped::layer::QDensePerChannel;
use shaped::quant::{PerAxis, QAdd, QMatMulPerChannel, Quant, Rounding};
use shaped::{Const, Error, Tensor, TensorView};

/// The generated constants: more than the network reads (tensor indices, shapes, the bias
/// scales TFLM checks), kept as the `.tflite` has them.
#[allow(dead_code)]
mod model {
    include!("model.rs");
}
use model::*;

const fn q((scale, zero_point): (f32, i32)) -> Quant<i8> {
    Quant::new_const(scale, zero_point)
}

/// Each layer's weight parameters, one scale per output column.
const W0: PerAxis<'static, i8, 16> = PerAxis::new_const(&OP0_IN1_SCALES, &OP0_IN1_ZERO_POINTS);
const W1: PerAxis<'static, i8, 8> = PerAxis::new_const(&OP1_IN1_SCALES, &OP1_IN1_ZERO_POINTS);
const W3: PerAxis<'static, i8, 4> = PerAxis::new_const(&OP3_IN1_SCALES, &OP3_IN1_ZERO_POINTS);

/// A fused per-channel layer (Q19) over its weights and bias, or a compile error naming it.
macro_rules! layer {
    ($name:literal, $in:literal, $n:literal, $input:expr, $w:expr, $output:expr, $act:expr,
     $weights:expr, $bias:expr) => {
        QDensePerChannel::<'static, i8, $in, $n>::new(
            match QMatMulPerChannel::<'static, i8, $n>::new(
                q($input),
                $w,
                q($output),
                $act,
                Rounding::Double,
            ) {
                Ok(op) => op,
                Err(_) => panic!(concat!($name, "'s parameters are valid")),
            },
            &$weights,
            Some(&$bias),
        )
    };
}

const FC0: QDensePerChannel<'static, i8, 8, 16> = layer!(
    "layer 0",
    8,
    16,
    OP0_IN0_QUANT,
    W0,
    OP0_OUT_QUANT,
    OP0_ACTIVATION,
    OP0_IN1_DATA,
    OP0_IN2_DATA
);
const FC1: QDensePerChannel<'static, i8, 16, 8> = layer!(
    "layer 1",
    16,
    8,
    OP1_IN0_QUANT,
    W1,
    OP1_OUT_QUANT,
    OP1_ACTIVATION,
    OP1_IN1_DATA,
    OP1_IN2_DATA
);
const FC3: QDensePerChannel<'static, i8, 8, 4> = layer!(
    "layer 3",
    8,
    4,
    OP3_IN0_QUANT,
    W3,
    OP3_OUT_QUANT,
    OP3_ACTIVATION,
    OP3_IN1_DATA,
    OP3_IN2_DATA
);

/// The skip connection: the second layer's output plus the network's input, each with its own
/// scale.
const SKIP: QAdd<i8> = match QAdd::new(
    q(OP2_IN0_QUANT),
    q(OP2_IN1_QUANT),
    q(OP2_OUT_QUANT),
    OP2_ACTIVATION,
    Rounding::Double,
) {
    Ok(op) => op,
    Err(_) => panic!("the skip connection's parameters are valid"),
};

/// The bias added last, a constant `[4]` broadcast onto the `[1, 4]` output.
const BIAS: QAdd<i8> = match QAdd::new(
    q(OP4_IN0_QUANT),
    q(OP4_IN1_QUANT),
    q(OP4_OUT_QUANT),
    OP4_ACTIVATION,
    Rounding::Double,
) {
    Ok(op) => op,
    Err(_) => panic!("the bias's parameters are valid"),
};

/// The bytes of every tensor an inference holds (input, four intermediate results, output),
/// all static: the RAM the activations take, known before the network runs
/// (`qemu-tests/model_size.sh` checks it against the stack the firmware uses).
pub const ACTIVATION_BYTES: usize = core::mem::size_of::<[i8; 8]>()
    + core::mem::size_of::<[i8; 16]>()
    + core::mem::size_of::<[i8; 8]>()
    + core::mem::size_of::<[i8; 8]>()
    + core::mem::size_of::<[i8; 4]>()
    + core::mem::size_of::<[i8; 4]>();

/// The network's input parameters.
pub const INPUT: Quant<i8> = q(OP0_IN0_QUANT);

/// The network on one `[1, 8]` int8 input, as TFLM computes it. The `Result` is the prepared
/// layers' check of their operands' parameters, which these constants always pass.
pub fn forward(x: [i8; 8]) -> Result<[i8; 4], Error> {
    let x = Tensor::<i8, (Const<1>, Const<8>)>::from([x]).quantized(INPUT);
    let h0 = FC0.forward(&x)?;
    let h1 = FC1.forward(&h0)?;
    let skip = SKIP.run(&h1, &x)?;
    let h3 = FC3.forward(&skip)?;
    let b = TensorView::<i8, (Const<4>,)>::from(&OP4_IN1_DATA).quantized(q(OP4_IN1_QUANT));
    let y: Tensor<i8, (Const<1>, Const<4>)> = *BIAS.run(&h3, &b)?.values();
    Ok(y.into_inner()[0])
}

/// The cases of `expected.txt`: 8 int8 inputs and TFLM's 4 int8 outputs.
pub fn expected() -> impl Iterator<Item = ([i8; 8], [i8; 4])> {
    include_str!("expected.txt")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let mut values = l.split(' ').map(|v| v.parse::<i8>().unwrap_or(0));
            let x = core::array::from_fn(|_| values.next().unwrap_or(0));
            let y = core::array::from_fn(|_| values.next().unwrap_or(0));
            (x, y)
        })
}
