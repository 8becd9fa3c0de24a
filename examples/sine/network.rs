//! The int8 sine model as a shaped network: three fused fully connected layers on static
//! shapes, TFLM's arithmetic (rules Q17, Q18, Q19), every parameter a constant read from `model.rs` (made
//! from `sine_int8.tflite` by `make_model.py`). The converter gave the two hidden layers
//! per-channel weights and the last layer per-tensor ones. No allocator: the weights are read in
//! place from `static`s, the activations live on the stack.

use shaped::layer::{QDense, QDensePerChannel};
use shaped::quant::{PerAxis, QMatMul, QMatMulPerChannel, Quant, Rounding};
use shaped::{Const, Error, Tensor};

include!("model.rs");

const fn q((scale, zero_point): (f32, i32)) -> Quant<i8> {
    Quant::new_const(scale, zero_point)
}

/// The hidden layers' per-channel weight parameters.
const W1: PerAxis<'static, i8, L1_OUT> =
    PerAxis::new_const(&L1_WEIGHT_SCALES, &L1_WEIGHT_ZERO_POINTS);
const W2: PerAxis<'static, i8, L2_OUT> =
    PerAxis::new_const(&L2_WEIGHT_SCALES, &L2_WEIGHT_ZERO_POINTS);

/// Each layer prepared at compile time: its multipliers, shifts and clamp are constants, its
/// weights and bias bound (`static`s, read in place), one loop nest per layer (rule Q19).
const FC1: QDensePerChannel<'static, i8, L1_IN, L1_OUT> = QDensePerChannel::new(
    match QMatMulPerChannel::new(
        q(L1_INPUT),
        W1,
        q(L1_OUTPUT),
        L1_ACTIVATION,
        Rounding::Double,
    ) {
        Ok(op) => op,
        Err(_) => panic!("layer 1's parameters are valid"),
    },
    &L1_WEIGHTS,
    Some(&L1_BIAS),
);
const FC2: QDensePerChannel<'static, i8, L2_IN, L2_OUT> = QDensePerChannel::new(
    match QMatMulPerChannel::new(
        q(L2_INPUT),
        W2,
        q(L2_OUTPUT),
        L2_ACTIVATION,
        Rounding::Double,
    ) {
        Ok(op) => op,
        Err(_) => panic!("layer 2's parameters are valid"),
    },
    &L2_WEIGHTS,
    Some(&L2_BIAS),
);
const FC3: QDense<'static, i8, L3_IN, L3_OUT> = QDense::new(
    match QMatMul::new(
        q(L3_INPUT),
        q((L3_WEIGHT_SCALES[0], L3_WEIGHT_ZERO_POINTS[0])),
        q(L3_OUTPUT),
        L3_ACTIVATION,
        Rounding::Double,
    ) {
        Ok(op) => op,
        Err(_) => panic!("layer 3's parameters are valid"),
    },
    &L3_WEIGHTS,
    Some(&L3_BIAS),
);

/// The bytes of every tensor an inference holds (input, the two hidden layers, output), all
/// static: the RAM the activations take, known before the model runs. TFLM sizes its arena by
/// trial; `qemu-tests/model_size.sh` checks this against the stack the firmware uses.
pub const ACTIVATION_BYTES: usize = core::mem::size_of::<[i8; L1_IN]>()
    + core::mem::size_of::<[i8; L1_OUT]>()
    + core::mem::size_of::<[i8; L2_OUT]>()
    + core::mem::size_of::<[i8; L3_OUT]>();

/// The model's input parameters: `x` is stored as `round(x / scale) + zero_point`.
pub const INPUT: Quant<i8> = q(L1_INPUT);
/// The model's output parameters.
pub const OUTPUT: Quant<i8> = q(L3_OUTPUT);

/// The model on one int8 input, as TFLM computes it. The `Result` is each layer's check of
/// its input's parameters, which these constants pass (each layer's output parameters are
/// the next one's input parameters; the comparisons are of constants and fold away).
pub fn forward(x: i8) -> Result<i8, Error> {
    let x = Tensor::<i8, (Const<L1_IN>,)>::from([x]).quantized(INPUT);
    let h1 = FC1.forward(&x)?;
    let h2 = FC2.forward(&h1)?;
    let y: Tensor<i8, (Const<L3_OUT>,)> = *FC3.forward(&h2)?.values();
    // The array, not `y[[0]]`: indexing by a runtime multi-index links its panic message
    // (1.2 kB of `core::fmt` in a Cortex-M firmware at opt-level "s", `qemu-tests/model_size.sh`).
    Ok(y.into_inner()[0])
}

/// The cases of `expected.txt`: `x`, its int8 input and TFLM's int8 output.
pub fn expected() -> impl Iterator<Item = (f32, i8, i8)> {
    include_str!("expected.txt")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let mut f = l.split(' ');
            let x = f.next()?.parse().ok()?;
            let q = f.next()?.parse().ok()?;
            let y = f.next()?.parse().ok()?;
            Some((x, q, y))
        })
}
