//! The checked description of a model (the importer's IR): tensors with static shapes and
//! their quantization, operators in execution order with decoded options, and the model's
//! inputs and outputs. [`Model::read`] builds it from a `.tflite` file and checks it, so code
//! generated from it can rely on every fact here.

use std::ops::Range;

use crate::Error;

/// A model read from a `.tflite` file and checked: one subgraph, every operator supported,
/// every shape static, every operator's inputs, outputs and options consistent.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// The file's display name, as passed to [`Model::read`]; errors about the model name it.
    pub file: String,
    /// The model's description string, if the file has one (converters write their name).
    pub description: Option<String>,
    /// Every tensor of the subgraph, by index.
    pub tensors: Vec<Tensor>,
    /// The operators in execution order; `operators[i].index == i`.
    pub operators: Vec<Operator>,
    /// The model's input tensors (indices into `tensors`), in the file's order.
    pub inputs: Vec<usize>,
    /// The model's output tensors (indices into `tensors`), in the file's order.
    pub outputs: Vec<usize>,
}

impl Model {
    /// Reads and checks the `.tflite` model in `bytes`. `file` is the name errors show for it
    /// (a path as the user wrote it, say); it is not opened.
    ///
    /// Corrupt input of any kind is an [`Error`], never a panic. Constant tensors refer to
    /// their bytes by position ([`TensorData::File`]), so keep `bytes` to read them.
    pub fn read(bytes: &[u8], file: &str) -> Result<Model, Error> {
        let read = crate::read::read(bytes, file)?;
        let mut model = read.model;
        crate::check::check(&mut model, &read.concat_axes, bytes)?;
        Ok(model)
    }

    /// Whether tensor `t` is one of the model's inputs or outputs (memory the caller owns).
    pub fn is_io(&self, t: usize) -> bool {
        self.inputs.contains(&t) || self.outputs.contains(&t)
    }
}

/// A tensor's element type. The importer takes int8 activations and weights, int32 biases and
/// shapes, and float32 throughout a float model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    /// `INT8`: quantized activations and weights.
    Int8,
    /// `INT32`: the biases of quantized models, and shape or axis operands.
    Int32,
    /// `FLOAT32`: float models.
    Float32,
}

impl DType {
    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            DType::Int8 => 1,
            DType::Int32 | DType::Float32 => 4,
        }
    }

    /// The lower-case name TFLite's tools print (`int8`, `int32`, `float32`).
    pub fn name(self) -> &'static str {
        match self {
            DType::Int8 => "int8",
            DType::Int32 => "int32",
            DType::Float32 => "float32",
        }
    }
}

/// Affine quantization: `real = scale * (q - zero_point)`, with one pair for the whole tensor
/// or one per index along `quantized_dimension`.
#[derive(Clone, Debug, PartialEq)]
pub struct Quantization {
    /// One scale (per tensor) or one per channel; finite and positive.
    pub scales: Vec<f32>,
    /// As many zero points as scales; within -128..=127 for int8 tensors.
    pub zero_points: Vec<i64>,
    /// The channel axis of per-channel quantization, as the file gives it. It is an axis of
    /// the shape whose length is the number of scales, except on one-dimensional tensors, where
    /// TFLM accepts any value (TFLM's own person_detect model has a bias saying 3); use
    /// [`Quantization::axis`] for the axis itself.
    pub quantized_dimension: usize,
}

impl Quantization {
    /// Whether there is one scale per channel rather than one for the tensor.
    pub fn is_per_channel(&self) -> bool {
        self.scales.len() > 1
    }

    /// The axis the scales run along for a tensor of `rank` dimensions: `quantized_dimension`,
    /// or 0 for a one-dimensional tensor (see [`Quantization::quantized_dimension`]).
    pub fn axis(&self, rank: usize) -> usize {
        if rank == 1 {
            0
        } else {
            self.quantized_dimension
        }
    }
}

/// Where a constant tensor's bytes are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TensorData {
    /// A byte range of the model file (what [`Model::read`] produces: nothing is copied).
    File(Range<usize>),
    /// Bytes held here (for models built or rewritten in memory).
    Owned(Vec<u8>),
}

/// One tensor: an activation, a constant (weights, biases, shapes) or a model input or output.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    /// The tensor's name in the file (may be empty).
    pub name: String,
    /// Element type.
    pub dtype: DType,
    /// Static shape (row-major, TFLite's NHWC for images); `[]` is a scalar. A batch the
    /// converter left open (`shape_signature` -1, `shape` 1) is 1, as TFLM runs it.
    pub shape: Vec<usize>,
    /// Quantization parameters; always present on int8 tensors.
    pub quantization: Option<Quantization>,
    /// The constant data, for weights and other constants; `None` for activations.
    pub data: Option<TensorData>,
}

impl Tensor {
    /// The number of elements (the product of the shape; checked not to overflow when read).
    pub fn element_count(&self) -> usize {
        self.shape.iter().product()
    }

    /// The size in bytes.
    pub fn byte_size(&self) -> usize {
        self.element_count() * self.dtype.size()
    }

    /// Whether the tensor holds constant data.
    pub fn is_constant(&self) -> bool {
        self.data.is_some()
    }

    /// The constant data's bytes, given the model file's bytes (for [`TensorData::File`]);
    /// `None` for a tensor without data or a range outside `file`.
    pub fn bytes<'a>(&'a self, file: &'a [u8]) -> Option<&'a [u8]> {
        match &self.data {
            Some(TensorData::File(range)) => file.get(range.clone()),
            Some(TensorData::Owned(bytes)) => Some(bytes),
            None => None,
        }
    }
}

/// Padding of a convolution or pooling window, as TFLite defines it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Padding {
    /// Output size `ceil(input / stride)`, the input padded evenly (the extra row or column
    /// after).
    Same,
    /// No padding: output size `ceil((input - window + 1) / stride)`.
    Valid,
}

/// An activation function fused into an operator (clamping its output).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Activation {
    /// No clamping.
    None,
    /// `max(x, 0)`.
    Relu,
    /// `clamp(x, -1, 1)`.
    ReluN1To1,
    /// `clamp(x, 0, 6)`.
    Relu6,
}

impl Activation {
    /// TFLite's name (`NONE`, `RELU`, `RELU_N1_TO_1`, `RELU6`).
    pub fn name(self) -> &'static str {
        match self {
            Activation::None => "NONE",
            Activation::Relu => "RELU",
            Activation::ReluN1To1 => "RELU_N1_TO_1",
            Activation::Relu6 => "RELU6",
        }
    }
}

/// CONV_2D's options. Strides and dilations are at least 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Conv2d {
    /// Padding scheme.
    pub padding: Padding,
    /// Vertical stride.
    pub stride_h: usize,
    /// Horizontal stride.
    pub stride_w: usize,
    /// Vertical dilation factor.
    pub dilation_h: usize,
    /// Horizontal dilation factor.
    pub dilation_w: usize,
    /// Fused activation.
    pub activation: Activation,
}

/// DEPTHWISE_CONV_2D's options. Strides and dilations are at least 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DepthwiseConv2d {
    /// Padding scheme.
    pub padding: Padding,
    /// Vertical stride.
    pub stride_h: usize,
    /// Horizontal stride.
    pub stride_w: usize,
    /// Vertical dilation factor.
    pub dilation_h: usize,
    /// Horizontal dilation factor.
    pub dilation_w: usize,
    /// Output channels per input channel, as the file states it. TFLite calls the field
    /// redundant: its kernels use the shapes' ratio (output channels / input channels, checked
    /// to be a whole number) and so should generated code; this value is not checked.
    pub depth_multiplier: i32,
    /// Fused activation.
    pub activation: Activation,
}

/// AVERAGE_POOL_2D's and MAX_POOL_2D's options. Strides and filter sizes are at least 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pool2d {
    /// Padding scheme.
    pub padding: Padding,
    /// Vertical stride.
    pub stride_h: usize,
    /// Horizontal stride.
    pub stride_w: usize,
    /// Window height.
    pub filter_h: usize,
    /// Window width.
    pub filter_w: usize,
    /// Fused activation.
    pub activation: Activation,
}

/// FULLY_CONNECTED's options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FullyConnected {
    /// Fused activation.
    pub activation: Activation,
    /// Whether the output keeps the input's leading dimensions (`[.., units]`) rather than
    /// being `[batch, units]` with the input flattened to rows of the weights' width.
    pub keep_num_dims: bool,
}

/// An operator's kind with its decoded options. Tensor operands that are options in effect
/// (MEAN's axes, PAD's paddings) are decoded too, from their constant data.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Op {
    /// `CONV_2D`: input `[N, H, W, C]`, filter `[O, KH, KW, C]`, optional bias `[O]`.
    Conv2d(Conv2d),
    /// `DEPTHWISE_CONV_2D`: input `[N, H, W, C]`, filter `[1, KH, KW, O]` (O a multiple of C),
    /// optional bias `[O]`.
    DepthwiseConv2d(DepthwiseConv2d),
    /// `FULLY_CONNECTED`: input, weights `[units, depth]`, optional bias `[units]`.
    FullyConnected(FullyConnected),
    /// `AVERAGE_POOL_2D` on `[N, H, W, C]`.
    AveragePool2d(Pool2d),
    /// `MAX_POOL_2D` on `[N, H, W, C]`.
    MaxPool2d(Pool2d),
    /// `RESHAPE`: the output shape is the output tensor's; the elements are not moved.
    Reshape {
        /// `ReshapeOptions.new_shape` if the file has it (TFLM uses the shape operand when
        /// there is one; both agree with the output tensor's shape here).
        new_shape: Option<Vec<i32>>,
    },
    /// `SOFTMAX` along the last axis.
    Softmax {
        /// The logits' multiplier.
        beta: f32,
    },
    /// `ADD`, with numpy broadcasting.
    Add {
        /// Fused activation.
        activation: Activation,
    },
    /// `SUB`, with numpy broadcasting.
    Sub {
        /// Fused activation.
        activation: Activation,
    },
    /// `MUL`, with numpy broadcasting.
    Mul {
        /// Fused activation.
        activation: Activation,
    },
    /// `QUANTIZE`: float32 to int8, or int8 to int8 with other parameters.
    Quantize,
    /// `DEQUANTIZE`: int8 to float32.
    Dequantize,
    /// `LOGISTIC` (sigmoid).
    Logistic,
    /// `TANH`.
    Tanh,
    /// `MEAN` over some axes.
    Mean {
        /// The axes reduced, non-negative, sorted, without repeats (decoded from the constant
        /// second operand).
        axes: Vec<usize>,
        /// Whether reduced axes stay as length 1.
        keep_dims: bool,
    },
    /// `PAD` with zeros (the zero point, for int8).
    Pad {
        /// `(before, after)` for each axis (decoded from the constant second operand).
        paddings: Vec<(usize, usize)>,
    },
    /// `CONCATENATION` of the inputs along `axis`.
    Concatenation {
        /// The axis, made non-negative.
        axis: usize,
        /// Fused activation.
        activation: Activation,
    },
    /// `RELU`.
    Relu,
    /// `RELU6`.
    Relu6,
}

impl Op {
    /// TFLite's name for the operator (`CONV_2D`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            Op::Conv2d(_) => "CONV_2D",
            Op::DepthwiseConv2d(_) => "DEPTHWISE_CONV_2D",
            Op::FullyConnected(_) => "FULLY_CONNECTED",
            Op::AveragePool2d(_) => "AVERAGE_POOL_2D",
            Op::MaxPool2d(_) => "MAX_POOL_2D",
            Op::Reshape { .. } => "RESHAPE",
            Op::Softmax { .. } => "SOFTMAX",
            Op::Add { .. } => "ADD",
            Op::Sub { .. } => "SUB",
            Op::Mul { .. } => "MUL",
            Op::Quantize => "QUANTIZE",
            Op::Dequantize => "DEQUANTIZE",
            Op::Logistic => "LOGISTIC",
            Op::Tanh => "TANH",
            Op::Mean { .. } => "MEAN",
            Op::Pad { .. } => "PAD",
            Op::Concatenation { .. } => "CONCATENATION",
            Op::Relu => "RELU",
            Op::Relu6 => "RELU6",
        }
    }
}

/// One operator of the model, in execution order.
#[derive(Clone, Debug, PartialEq)]
pub struct Operator {
    /// Its position in execution order.
    pub index: usize,
    /// What it computes, with its options.
    pub op: Op,
    /// Input tensor indices, in TFLite's operand order; `None` for an absent optional input
    /// (a bias, written as -1 in the file).
    pub inputs: Vec<Option<usize>>,
    /// Output tensor indices.
    pub outputs: Vec<usize>,
}

impl Operator {
    /// The tensor of input `i`, if the operator has that input.
    pub fn input(&self, i: usize) -> Option<usize> {
        self.inputs.get(i).copied().flatten()
    }

    /// The tensors the operator reads (its present inputs).
    pub fn read_tensors(&self) -> impl Iterator<Item = usize> + '_ {
        self.inputs.iter().flatten().copied()
    }
}
