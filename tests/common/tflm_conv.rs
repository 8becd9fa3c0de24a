//! Reading the TFLM reference files of `tests/reference/` made by `tflm_conv.py` (CONV_2D,
//! DEPTHWISE_CONV_2D, AVERAGE_POOL_2D, MAX_POOL_2D, int8 and f32) and `tflm_activations.py`
//! (int8 SOFTMAX, LOGISTIC, TANH, MEAN, PAD/PADV2, CONCATENATION): each case line parsed into
//! a struct, its inputs and filters regenerated from the seeds, its expected outputs sliced
//! from the `.bin` file. Shapes are NHWC; filters are `[OC, KH, KW, IC]` for CONV_2D and
//! `[1, KH, KW, IC * M]` for DEPTHWISE_CONV_2D; strides, dilations and pool filters are
//! `[height, width]`; `same` is the padding (SAME, else VALID); activations keep the files'
//! names (`none`, `relu`, `relu6`, `relu_n1_to_1`, see `tflm::activation`). f32 inputs and
//! filters are the generator's int8 values divided by 32. The scripts' docstrings say what
//! TFLM computes and requires.
#![allow(dead_code)]

use super::tflm::{dims, params, reference, scale, xorshift_bytes};

/// An int8 CONV_2D or DEPTHWISE_CONV_2D case (`op` is `conv2d` or `depthwise_conv2d`):
/// weights quantized per output channel (zero points 0), an int32 bias or none.
#[derive(Clone, Debug)]
pub struct ConvCase {
    pub line: usize,
    pub op: String,
    pub input_shape: [usize; 4],
    pub filter_shape: [usize; 4],
    pub output_shape: [usize; 4],
    pub stride: [usize; 2],
    pub dilation: [usize; 2],
    pub same: bool,
    pub activation: String,
    /// 1 for CONV_2D.
    pub depth_multiplier: usize,
    pub input_q: (f32, i32),
    pub output_q: (f32, i32),
    /// One per output channel.
    pub weight_scales: Vec<f32>,
    pub bias: Option<Vec<i32>>,
    pub seed_input: u32,
    pub seed_filter: u32,
    pub input: Vec<i8>,
    pub filter: Vec<i8>,
    pub expected: Vec<i8>,
}

/// An f32 CONV_2D or DEPTHWISE_CONV_2D case.
#[derive(Clone, Debug)]
pub struct FloatConvCase {
    pub line: usize,
    pub op: String,
    pub input_shape: [usize; 4],
    pub filter_shape: [usize; 4],
    pub output_shape: [usize; 4],
    pub stride: [usize; 2],
    pub dilation: [usize; 2],
    pub same: bool,
    pub activation: String,
    /// 1 for CONV_2D.
    pub depth_multiplier: usize,
    pub bias: Option<Vec<f32>>,
    pub seed_input: u32,
    pub seed_filter: u32,
    pub input: Vec<f32>,
    pub filter: Vec<f32>,
    pub expected: Vec<f32>,
}

/// An int8 AVERAGE_POOL_2D or MAX_POOL_2D case (`op` is `average_pool2d` or `max_pool2d`);
/// TFLM requires `output_q == input_q`.
#[derive(Clone, Debug)]
pub struct PoolCase {
    pub line: usize,
    pub op: String,
    pub input_shape: [usize; 4],
    /// The window, `[height, width]`.
    pub filter: [usize; 2],
    pub output_shape: [usize; 4],
    pub stride: [usize; 2],
    pub same: bool,
    pub activation: String,
    pub input_q: (f32, i32),
    pub output_q: (f32, i32),
    pub seed: u32,
    pub input: Vec<i8>,
    pub expected: Vec<i8>,
}

/// An f32 AVERAGE_POOL_2D or MAX_POOL_2D case.
#[derive(Clone, Debug)]
pub struct FloatPoolCase {
    pub line: usize,
    pub op: String,
    pub input_shape: [usize; 4],
    pub filter: [usize; 2],
    pub output_shape: [usize; 4],
    pub stride: [usize; 2],
    pub same: bool,
    pub activation: String,
    pub seed: u32,
    pub input: Vec<f32>,
    pub expected: Vec<f32>,
}

/// An int8 SOFTMAX case, along the last axis (output parameters 1/256 and -128).
#[derive(Clone, Debug)]
pub struct SoftmaxCase {
    pub line: usize,
    pub shape: Vec<usize>,
    pub input_q: (f32, i32),
    pub beta: f32,
    pub output_q: (f32, i32),
    pub seed: u32,
    pub input: Vec<i8>,
    pub expected: Vec<i8>,
}

/// An int8 LOGISTIC or TANH case (`op`), elementwise; seed 0 is every input value in order.
#[derive(Clone, Debug)]
pub struct ActivationCase {
    pub line: usize,
    pub op: String,
    pub shape: Vec<usize>,
    pub input_q: (f32, i32),
    pub output_q: (f32, i32),
    pub seed: u32,
    pub input: Vec<i8>,
    pub expected: Vec<i8>,
}

/// An int8 MEAN case.
#[derive(Clone, Debug)]
pub struct MeanCase {
    pub line: usize,
    pub input_shape: [usize; 4],
    /// `[N, 1, 1, C]` with `keep_dims`, else `[N, C]`.
    pub output_shape: Vec<usize>,
    pub axes: Vec<usize>,
    pub keep_dims: bool,
    pub input_q: (f32, i32),
    pub output_q: (f32, i32),
    pub seed: u32,
    pub input: Vec<i8>,
    pub expected: Vec<i8>,
}

/// An int8 PAD or PADV2 case (`op` is `pad` or `padv2`).
#[derive(Clone, Debug)]
pub struct PadCase {
    pub line: usize,
    pub op: String,
    pub input_shape: [usize; 4],
    pub output_shape: [usize; 4],
    /// `[before, after]` per axis.
    pub paddings: [[usize; 2]; 4],
    pub input_q: (f32, i32),
    pub output_q: (f32, i32),
    /// PADV2's fill byte; `None` for PAD, which fills with the output's zero point.
    pub constant: Option<i8>,
    pub seed: u32,
    pub input: Vec<i8>,
    pub expected: Vec<i8>,
}

/// One input of a CONCATENATION case.
#[derive(Clone, Debug)]
pub struct ConcatInput {
    pub shape: [usize; 4],
    pub q: (f32, i32),
    pub seed: u32,
    pub values: Vec<i8>,
}

/// An int8 CONCATENATION case (TFLM requires every input's parameters to be the output's).
#[derive(Clone, Debug)]
pub struct ConcatCase {
    pub line: usize,
    pub inputs: Vec<ConcatInput>,
    pub output_shape: [usize; 4],
    pub output_q: (f32, i32),
    pub axis: usize,
    pub expected: Vec<i8>,
}

fn shape4(text: &str) -> [usize; 4] {
    dims(text).try_into().unwrap()
}

fn pair(text: &str) -> [usize; 2] {
    dims(text).try_into().unwrap()
}

fn same(text: &str) -> bool {
    match text {
        "same" => true,
        "valid" => false,
        other => panic!("padding {other}"),
    }
}

fn seed(text: &str) -> u32 {
    text.parse().unwrap()
}

fn floats(seed: u32, n: usize) -> Vec<f32> {
    xorshift_bytes(seed, n)
        .into_iter()
        .map(|v| f32::from(v) / 32.0)
        .collect()
}

/// The expected outputs of the cases, in order: `int8(n)` or `float(n)` reads the next case's
/// `n` values.
struct Outputs {
    bytes: Vec<u8>,
    at: usize,
}

impl Outputs {
    fn int8(&mut self, n: usize) -> Vec<i8> {
        let out = self.bytes[self.at..self.at + n]
            .iter()
            .map(|&b| b as i8)
            .collect();
        self.at += n;
        out
    }
    fn float(&mut self, n: usize) -> Vec<f32> {
        let bytes = &self.bytes[self.at..self.at + 4 * n];
        self.at += 4 * n;
        bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
            .collect()
    }
    fn done(&self, file: &str) {
        assert_eq!(
            self.at,
            self.bytes.len(),
            "tflm_{file}.bin has bytes left over"
        );
    }
}

/// The case lines of `tflm_{file}.txt` and a reader of `tflm_{file}.bin`.
fn open(file: &str) -> (Vec<(usize, Vec<String>)>, Outputs) {
    let (lines, bytes) = reference(file);
    (lines, Outputs { bytes, at: 0 })
}

/// The int8 cases of `op` (`conv2d` or `depthwise_conv2d`).
pub fn conv_cases(op: &str) -> Vec<ConvCase> {
    let (lines, mut out) = open(op);
    let cases = lines
        .into_iter()
        .map(|(line, f)| {
            let (input_shape, filter_shape) = (shape4(&f[0]), shape4(&f[1]));
            let output_shape = shape4(&f[2]);
            let (seed_input, seed_filter) = (seed(&f[13]), seed(&f[14]));
            ConvCase {
                line,
                op: op.to_string(),
                input_shape,
                filter_shape,
                output_shape,
                stride: pair(&f[3]),
                dilation: pair(&f[4]),
                same: same(&f[5]),
                activation: f[6].clone(),
                depth_multiplier: f[7].parse().unwrap(),
                input_q: params(&f[8], &f[9]),
                weight_scales: f[10].split(',').map(scale).collect(),
                output_q: params(&f[11], &f[12]),
                seed_input,
                seed_filter,
                bias: (f[15] != "-")
                    .then(|| f[15].split(',').map(|b| b.parse().unwrap()).collect()),
                input: xorshift_bytes(seed_input, input_shape.iter().product()),
                filter: xorshift_bytes(seed_filter, filter_shape.iter().product()),
                expected: out.int8(output_shape.iter().product()),
            }
        })
        .collect();
    out.done(op);
    cases
}

/// The f32 cases of `op` (`conv2d` or `depthwise_conv2d`), from `tflm_{op}_f32`.
pub fn float_conv_cases(op: &str) -> Vec<FloatConvCase> {
    let file = format!("{op}_f32");
    let (lines, mut out) = open(&file);
    let cases = lines
        .into_iter()
        .map(|(line, f)| {
            let (input_shape, filter_shape) = (shape4(&f[0]), shape4(&f[1]));
            let output_shape = shape4(&f[2]);
            let (seed_input, seed_filter) = (seed(&f[8]), seed(&f[9]));
            FloatConvCase {
                line,
                op: op.to_string(),
                input_shape,
                filter_shape,
                output_shape,
                stride: pair(&f[3]),
                dilation: pair(&f[4]),
                same: same(&f[5]),
                activation: f[6].clone(),
                depth_multiplier: f[7].parse().unwrap(),
                seed_input,
                seed_filter,
                bias: (f[10] != "-").then(|| f[10].split(',').map(scale).collect()),
                input: floats(seed_input, input_shape.iter().product()),
                filter: floats(seed_filter, filter_shape.iter().product()),
                expected: out.float(output_shape.iter().product()),
            }
        })
        .collect();
    out.done(&file);
    cases
}

/// The int8 cases of `op` (`average_pool2d` or `max_pool2d`).
pub fn pool_cases(op: &str) -> Vec<PoolCase> {
    let (lines, mut out) = open(op);
    let cases = lines
        .into_iter()
        .map(|(line, f)| {
            let (input_shape, output_shape) = (shape4(&f[0]), shape4(&f[2]));
            let seed = seed(&f[10]);
            PoolCase {
                line,
                op: op.to_string(),
                input_shape,
                filter: pair(&f[1]),
                output_shape,
                stride: pair(&f[3]),
                same: same(&f[4]),
                activation: f[5].clone(),
                input_q: params(&f[6], &f[7]),
                output_q: params(&f[8], &f[9]),
                seed,
                input: xorshift_bytes(seed, input_shape.iter().product()),
                expected: out.int8(output_shape.iter().product()),
            }
        })
        .collect();
    out.done(op);
    cases
}

/// The f32 cases of `op` (`average_pool2d` or `max_pool2d`), from `tflm_{op}_f32`.
pub fn float_pool_cases(op: &str) -> Vec<FloatPoolCase> {
    let file = format!("{op}_f32");
    let (lines, mut out) = open(&file);
    let cases = lines
        .into_iter()
        .map(|(line, f)| {
            let (input_shape, output_shape) = (shape4(&f[0]), shape4(&f[2]));
            let seed = seed(&f[6]);
            FloatPoolCase {
                line,
                op: op.to_string(),
                input_shape,
                filter: pair(&f[1]),
                output_shape,
                stride: pair(&f[3]),
                same: same(&f[4]),
                activation: f[5].clone(),
                seed,
                input: floats(seed, input_shape.iter().product()),
                expected: out.float(output_shape.iter().product()),
            }
        })
        .collect();
    out.done(&file);
    cases
}

pub fn softmax_cases() -> Vec<SoftmaxCase> {
    let (lines, mut out) = open("softmax");
    let cases = lines
        .into_iter()
        .map(|(line, f)| {
            let shape = dims(&f[0]);
            let seed = seed(&f[6]);
            let n = shape.iter().product();
            SoftmaxCase {
                line,
                input_q: params(&f[1], &f[2]),
                beta: scale(&f[3]),
                output_q: params(&f[4], &f[5]),
                seed,
                input: xorshift_bytes(seed, n),
                expected: out.int8(n),
                shape,
            }
        })
        .collect();
    out.done("softmax");
    cases
}

fn activation_cases(op: &str) -> Vec<ActivationCase> {
    let (lines, mut out) = open(op);
    let cases = lines
        .into_iter()
        .map(|(line, f)| {
            let shape = dims(&f[0]);
            let seed = seed(&f[5]);
            let n = shape.iter().product();
            ActivationCase {
                line,
                op: op.to_string(),
                input_q: params(&f[1], &f[2]),
                output_q: params(&f[3], &f[4]),
                seed,
                input: xorshift_bytes(seed, n),
                expected: out.int8(n),
                shape,
            }
        })
        .collect();
    out.done(op);
    cases
}

pub fn logistic_cases() -> Vec<ActivationCase> {
    activation_cases("logistic")
}

pub fn tanh_cases() -> Vec<ActivationCase> {
    activation_cases("tanh")
}

pub fn mean_cases() -> Vec<MeanCase> {
    let (lines, mut out) = open("mean");
    let cases = lines
        .into_iter()
        .map(|(line, f)| {
            let input_shape = shape4(&f[0]);
            let output_shape = dims(&f[1]);
            let seed = seed(&f[8]);
            MeanCase {
                line,
                input_shape,
                axes: f[2].split(',').map(|a| a.parse().unwrap()).collect(),
                keep_dims: f[3] == "1",
                input_q: params(&f[4], &f[5]),
                output_q: params(&f[6], &f[7]),
                seed,
                input: xorshift_bytes(seed, input_shape.iter().product()),
                expected: out.int8(output_shape.iter().product()),
                output_shape,
            }
        })
        .collect();
    out.done("mean");
    cases
}

pub fn pad_cases() -> Vec<PadCase> {
    let (lines, mut out) = open("pad");
    let cases = lines
        .into_iter()
        .map(|(line, f)| {
            let (input_shape, output_shape) = (shape4(&f[1]), shape4(&f[2]));
            let pads: Vec<usize> = f[3].split(',').map(|p| p.parse().unwrap()).collect();
            let seed = seed(&f[9]);
            PadCase {
                line,
                op: f[0].clone(),
                input_shape,
                output_shape,
                paddings: core::array::from_fn(|axis| [pads[2 * axis], pads[2 * axis + 1]]),
                input_q: params(&f[4], &f[5]),
                output_q: params(&f[6], &f[7]),
                constant: (f[8] != "-").then(|| f[8].parse().unwrap()),
                seed,
                input: xorshift_bytes(seed, input_shape.iter().product()),
                expected: out.int8(output_shape.iter().product()),
            }
        })
        .collect();
    out.done("pad");
    cases
}

pub fn concatenation_cases() -> Vec<ConcatCase> {
    let (lines, mut out) = open("concatenation");
    let cases = lines
        .into_iter()
        .map(|(line, f)| {
            let list = |i: usize| f[i].split(',').collect::<Vec<_>>();
            let (shapes, scales, zero_points, seeds) = (list(0), list(1), list(2), list(7));
            let inputs = (0..shapes.len())
                .map(|i| {
                    let (shape, seed) = (shape4(shapes[i]), seed(seeds[i]));
                    ConcatInput {
                        shape,
                        q: params(scales[i], zero_points[i]),
                        seed,
                        values: xorshift_bytes(seed, shape.iter().product()),
                    }
                })
                .collect();
            let output_shape = shape4(&f[3]);
            ConcatCase {
                line,
                inputs,
                output_shape,
                output_q: params(&f[4], &f[5]),
                axis: f[6].parse().unwrap(),
                expected: out.int8(output_shape.iter().product()),
            }
        })
        .collect();
    out.done("concatenation");
    cases
}
