//! From flatbuffer to [`Model`]: walks the file with planus's generated readers (every access
//! returns a `Result`, so corrupt input is an error), resolves indices, decodes element types,
//! shapes, quantization, constant data and operator options, and refuses what shaped does not
//! import. The operators' consistency (operands, shapes, data flow) is `check.rs`'s.

use planus::ReadAsRoot;

use crate::error::Fault;
use crate::model::{
    Activation, Conv2d, DType, DepthwiseConv2d, FullyConnected, Model, Op, Operator, Padding,
    Pool2d, Quantization, Tensor, TensorData,
};
use crate::schema_generated::tflite as fb;
use crate::{names, Error, ErrorKind, Location};

/// The schema version TFLite writes and reads (the "3" of "TFL3").
const SCHEMA_VERSION: u32 = 3;

fn invalid(message: impl Into<String>) -> Fault {
    Fault::invalid(message)
}

fn unsupported(message: impl Into<String>) -> Fault {
    Fault::unsupported(message)
}

/// What one entry of the operator code table says.
struct OpCode {
    /// The builtin operator: the larger of the two code fields, as TFLite takes it.
    code: i32,
    custom: Option<String>,
}

/// What [`read`] returns: the model, its operator options that need the tensors to be
/// completed (MEAN's axes, PAD's paddings and CONCATENATION's axis are left for `check.rs`),
/// and the file's CONCATENATION axes as written, per operator (0 for other operators).
pub(crate) struct Read {
    pub(crate) model: Model,
    pub(crate) concat_axes: Vec<i32>,
}

pub(crate) fn read(bytes: &[u8], file: &str) -> Result<Read, Error> {
    let at = |location: Location| move |f: Fault| f.at(file, location.clone());
    let not_tflite = |message: String| {
        Error::new(
            file,
            Location::Model,
            ErrorKind::NotTflite,
            format!("not a TFLite model: {message}"),
        )
    };
    if bytes.is_empty() {
        return Err(not_tflite("the file is empty".into()));
    }
    // The identifier is optional in flatbuffers, so only four printable characters that are
    // not "TFL3" (another format's identifier) are refused here.
    if let Some(id) = bytes.get(4..8) {
        if id != b"TFL3" && id.iter().all(u8::is_ascii_graphic) {
            return Err(not_tflite(format!(
                "file identifier \"{}\", not \"TFL3\"",
                String::from_utf8_lossy(id)
            )));
        }
    }
    let root = fb::ModelRef::read_as_root(bytes).map_err(|e| not_tflite(e.to_string()))?;
    let version = root.version().map_err(|e| not_tflite(e.to_string()))?;
    if version != SCHEMA_VERSION {
        return Err(not_tflite(format!(
            "schema version {version}, not {SCHEMA_VERSION}"
        )));
    }
    let subgraphs = root.subgraphs().map_err(|e| not_tflite(e.to_string()))?;
    let count = subgraphs.map_or(0, |s| s.len());
    if count != 1 {
        return Err(Error::new(
            file,
            Location::Model,
            ErrorKind::Unsupported,
            format!("{count} subgraphs; shaped imports models of one"),
        ));
    }
    let model_level = at(Location::Model);
    let subgraph = match subgraphs.and_then(|s| s.get(0)) {
        Some(s) => s.map_err(Fault::from).map_err(&model_level)?,
        None => unreachable_fault().map_err(&model_level)?,
    };
    let description = root
        .description()
        .map_err(Fault::from)
        .map_err(&model_level)?
        .map(str::to_owned);

    let codes = match root
        .operator_codes()
        .map_err(Fault::from)
        .map_err(&model_level)?
    {
        Some(v) => v
            .iter()
            .enumerate()
            .map(|(index, c)| opcode(c).map_err(at(Location::OperatorCode { index })))
            .collect::<Result<Vec<_>, _>>()?,
        None => Vec::new(),
    };
    let buffers = root.buffers().map_err(Fault::from).map_err(&model_level)?;
    let tensor_refs = subgraph
        .tensors()
        .map_err(Fault::from)
        .map_err(&model_level)?;
    let tensor_count = tensor_refs.map_or(0, |v| v.len());

    // Operators first: an unsupported operator is the error that matters most to the user,
    // whatever its tensors are.
    let mut operators = Vec::new();
    let mut concat_axes = Vec::new();
    if let Some(ops) = subgraph
        .operators()
        .map_err(Fault::from)
        .map_err(&model_level)?
    {
        for (index, op) in ops.iter().enumerate() {
            let (op, axis) = operator(index, op, &codes, tensor_count, file)?;
            operators.push(op);
            concat_axes.push(axis);
        }
    }

    let mut tensors = Vec::with_capacity(tensor_count);
    if let Some(refs) = tensor_refs {
        for (index, t) in refs.iter().enumerate() {
            let t = t.map_err(Fault::from).map_err(at(Location::Tensor {
                index,
                name: String::new(),
            }))?;
            let name = t
                .name()
                .map_err(Fault::from)
                .map_err(at(Location::Tensor {
                    index,
                    name: String::new(),
                }))?
                .unwrap_or("")
                .to_owned();
            let location = Location::Tensor {
                index,
                name: name.clone(),
            };
            tensors.push(tensor(t, name, bytes, buffers).map_err(at(location))?);
        }
    }

    let io = |v: Option<planus::Vector<'_, i32>>, what: &str| -> Result<Vec<usize>, Error> {
        v.iter()
            .flat_map(|v| v.iter())
            .enumerate()
            .map(|(i, t)| {
                tensor_index(t, tensor_count)
                    .ok_or_else(|| {
                        invalid(format!(
                            "{what} {i} is tensor {t}, out of range ({tensor_count} tensors)"
                        ))
                    })
                    .map_err(&model_level)
            })
            .collect()
    };
    let inputs = io(
        subgraph
            .inputs()
            .map_err(Fault::from)
            .map_err(&model_level)?,
        "model input",
    )?;
    let outputs = io(
        subgraph
            .outputs()
            .map_err(Fault::from)
            .map_err(&model_level)?,
        "model output",
    )?;

    let model = Model {
        file: file.to_owned(),
        description,
        tensors,
        operators,
        inputs,
        outputs,
    };
    Ok(Read { model, concat_axes })
}

/// For a branch that the lines before it rule out; an error rather than a panic all the same.
fn unreachable_fault<T>() -> Result<T, Fault> {
    Err(invalid("internal error: the subgraph vanished"))
}

fn tensor_index(t: i32, count: usize) -> Option<usize> {
    usize::try_from(t).ok().filter(|&t| t < count)
}

fn opcode(c: planus::Result<fb::OperatorCodeRef<'_>>) -> Result<OpCode, Fault> {
    let c = c?;
    // Files before the 3a revision have only the byte field; newer ones write 127 there
    // (PLACEHOLDER_FOR_GREATER_OP_CODES) for codes past it. TFLite takes the larger.
    let code = i32::from(c.deprecated_builtin_code()?).max(c.builtin_code()?);
    let custom = c.custom_code()?.map(str::to_owned);
    Ok(OpCode { code, custom })
}

fn operator(
    index: usize,
    op: planus::Result<fb::OperatorRef<'_>>,
    codes: &[OpCode],
    tensor_count: usize,
    file: &str,
) -> Result<(Operator, i32), Error> {
    let fail = |name: &str| {
        let location = Location::Operator {
            index,
            name: name.to_owned(),
        };
        move |f: Fault| f.at(file, location.clone())
    };
    let op = op.map_err(Fault::from).map_err(fail(""))?;
    let k = op.opcode_index().map_err(Fault::from).map_err(fail(""))?;
    let Some(code) = usize::try_from(k).ok().and_then(|k| codes.get(k)) else {
        return Err(fail("")(invalid(format!(
            "operator code {k} out of range ({} operator codes)",
            codes.len()
        ))));
    };
    let builtin = fb::BuiltinOperator::try_from(code.code).ok();
    let name = match (builtin, names::builtin_operator(code.code)) {
        (Some(fb::BuiltinOperator::Custom), _) => {
            format!("CUSTOM({})", code.custom.as_deref().unwrap_or(""))
        }
        (_, Some(name)) => name.to_owned(),
        (_, None) => format!("operator code {}", code.code),
    };
    let fail = fail(&name);
    let Some(builtin) = builtin else {
        let message = if names::builtin_operator(code.code).is_some() {
            "shaped does not support this operator"
        } else {
            "unknown operator code (newer than this reader?); shaped does not support it"
        };
        return Err(fail(unsupported(message)));
    };
    if builtin == fb::BuiltinOperator::Custom {
        return Err(fail(unsupported(
            "shaped does not support custom operators",
        )));
    }

    let mut inputs = Vec::new();
    for (i, t) in op
        .inputs()
        .map_err(Fault::from)
        .map_err(&fail)?
        .iter()
        .flat_map(|v| v.iter())
        .enumerate()
    {
        inputs.push(match t {
            -1 => None,
            t => Some(tensor_index(t, tensor_count).ok_or_else(|| {
                fail(invalid(format!(
                    "input {i} is tensor {t}, out of range ({tensor_count} tensors)"
                )))
            })?),
        });
    }
    let mut outputs = Vec::new();
    for (i, t) in op
        .outputs()
        .map_err(Fault::from)
        .map_err(&fail)?
        .iter()
        .flat_map(|v| v.iter())
        .enumerate()
    {
        outputs.push(tensor_index(t, tensor_count).ok_or_else(|| {
            fail(invalid(format!(
                "output {i} is tensor {t}, out of range ({tensor_count} tensors)"
            )))
        })?);
    }
    let options = op.builtin_options().map_err(Fault::from).map_err(&fail)?;
    let mut raw_axis = 0;
    let op = options_of(builtin, options, &mut raw_axis).map_err(&fail)?;
    Ok((
        Operator {
            index,
            op,
            inputs,
            outputs,
        },
        raw_axis,
    ))
}

/// The operator's kind with its options decoded. Tables absent from the file read as their
/// defaults, as flatbuffers has it, except where the defaults are meaningless (strides 0).
/// CONCATENATION's axis goes to `raw_axis` as the file has it (possibly negative).
fn options_of(
    builtin: fb::BuiltinOperator,
    options: Option<fb::BuiltinOptionsRef<'_>>,
    raw_axis: &mut i32,
) -> Result<Op, Fault> {
    use fb::BuiltinOperator as B;
    use fb::BuiltinOptionsRef as O;
    let wrong = |expected: &str| -> Fault {
        match options {
            None => invalid(format!("no {expected}")),
            Some(_) => invalid(format!("its options are not {expected}")),
        }
    };
    Ok(match builtin {
        B::Conv2d => {
            let Some(O::Conv2DOptions(o)) = options else {
                return Err(wrong("Conv2DOptions"));
            };
            bias_type(o.quantized_bias_type()?)?;
            Op::Conv2d(Conv2d {
                padding: padding(o.padding()?),
                stride_h: at_least_1(o.stride_h()?, "stride_h")?,
                stride_w: at_least_1(o.stride_w()?, "stride_w")?,
                dilation_h: at_least_1(o.dilation_h_factor()?, "dilation_h_factor")?,
                dilation_w: at_least_1(o.dilation_w_factor()?, "dilation_w_factor")?,
                activation: activation(o.fused_activation_function()?)?,
            })
        }
        B::DepthwiseConv2d => {
            let Some(O::DepthwiseConv2DOptions(o)) = options else {
                return Err(wrong("DepthwiseConv2DOptions"));
            };
            Op::DepthwiseConv2d(DepthwiseConv2d {
                padding: padding(o.padding()?),
                stride_h: at_least_1(o.stride_h()?, "stride_h")?,
                stride_w: at_least_1(o.stride_w()?, "stride_w")?,
                dilation_h: at_least_1(o.dilation_h_factor()?, "dilation_h_factor")?,
                dilation_w: at_least_1(o.dilation_w_factor()?, "dilation_w_factor")?,
                depth_multiplier: o.depth_multiplier()?,
                activation: activation(o.fused_activation_function()?)?,
            })
        }
        B::AveragePool2d | B::MaxPool2d => {
            let Some(O::Pool2DOptions(o)) = options else {
                return Err(wrong("Pool2DOptions"));
            };
            let pool = Pool2d {
                padding: padding(o.padding()?),
                stride_h: at_least_1(o.stride_h()?, "stride_h")?,
                stride_w: at_least_1(o.stride_w()?, "stride_w")?,
                filter_h: at_least_1(o.filter_height()?, "filter_height")?,
                filter_w: at_least_1(o.filter_width()?, "filter_width")?,
                activation: activation(o.fused_activation_function()?)?,
            };
            if builtin == B::AveragePool2d {
                Op::AveragePool2d(pool)
            } else {
                Op::MaxPool2d(pool)
            }
        }
        B::FullyConnected => match options {
            None => Op::FullyConnected(FullyConnected {
                activation: Activation::None,
                keep_num_dims: false,
            }),
            Some(O::FullyConnectedOptions(o)) => {
                if o.weights_format()? != fb::FullyConnectedOptionsWeightsFormat::Default {
                    return Err(unsupported(
                        "shuffled weights (SHUFFLED4x16INT8) are not supported",
                    ));
                }
                bias_type(o.quantized_bias_type()?)?;
                Op::FullyConnected(FullyConnected {
                    activation: activation(o.fused_activation_function()?)?,
                    keep_num_dims: o.keep_num_dims()?,
                })
            }
            Some(_) => return Err(wrong("FullyConnectedOptions")),
        },
        B::Reshape => match options {
            None => Op::Reshape { new_shape: None },
            Some(O::ReshapeOptions(o)) => Op::Reshape {
                new_shape: o.new_shape()?.map(|v| v.iter().collect()),
            },
            Some(_) => return Err(wrong("ReshapeOptions")),
        },
        B::Softmax => {
            let Some(O::SoftmaxOptions(o)) = options else {
                return Err(wrong("SoftmaxOptions"));
            };
            let beta = o.beta()?;
            if !(beta.is_finite() && beta > 0.0) {
                return Err(invalid(format!(
                    "softmax beta {beta:?}; must be positive and finite"
                )));
            }
            Op::Softmax { beta }
        }
        B::Add | B::Sub | B::Mul => {
            let a = match options {
                None => fb::ActivationFunctionType::None,
                Some(O::AddOptions(o)) if builtin == B::Add => o.fused_activation_function()?,
                Some(O::SubOptions(o)) if builtin == B::Sub => o.fused_activation_function()?,
                Some(O::MulOptions(o)) if builtin == B::Mul => o.fused_activation_function()?,
                Some(_) => {
                    return Err(wrong(match builtin {
                        B::Add => "AddOptions",
                        B::Sub => "SubOptions",
                        _ => "MulOptions",
                    }))
                }
            };
            let activation = activation(a)?;
            match builtin {
                B::Add => Op::Add { activation },
                B::Sub => Op::Sub { activation },
                _ => Op::Mul { activation },
            }
        }
        B::Concatenation => {
            let (axis, a) = match options {
                None => (0, fb::ActivationFunctionType::None),
                Some(O::ConcatenationOptions(o)) => (o.axis()?, o.fused_activation_function()?),
                Some(_) => return Err(wrong("ConcatenationOptions")),
            };
            // check.rs makes the axis an index once it knows the inputs' rank.
            *raw_axis = axis;
            Op::Concatenation {
                axis: 0,
                activation: activation(a)?,
            }
        }
        B::Mean => match options {
            None => Op::Mean {
                axes: Vec::new(),
                keep_dims: false,
            },
            Some(O::ReducerOptions(o)) => Op::Mean {
                axes: Vec::new(),
                keep_dims: o.keep_dims()?,
            },
            Some(_) => return Err(wrong("ReducerOptions")),
        },
        B::Pad => Op::Pad {
            paddings: Vec::new(),
        },
        B::Quantize => Op::Quantize,
        B::Dequantize => Op::Dequantize,
        B::Logistic => Op::Logistic,
        B::Tanh => Op::Tanh,
        B::Relu => Op::Relu,
        B::Relu6 => Op::Relu6,
        B::Custom => return Err(unsupported("shaped does not support custom operators")),
    })
}

fn padding(p: fb::Padding) -> Padding {
    match p {
        fb::Padding::Same => Padding::Same,
        fb::Padding::Valid => Padding::Valid,
    }
}

fn activation(a: fb::ActivationFunctionType) -> Result<Activation, Fault> {
    use fb::ActivationFunctionType as A;
    Ok(match a {
        A::None => Activation::None,
        A::Relu => Activation::Relu,
        A::ReluN1To1 => Activation::ReluN1To1,
        A::Relu6 => Activation::Relu6,
        A::Tanh => return Err(unsupported("fused activation TANH is not supported")),
        A::SignBit => return Err(unsupported("fused activation SIGN_BIT is not supported")),
    })
}

fn at_least_1(v: i32, what: &str) -> Result<usize, Fault> {
    match usize::try_from(v) {
        Ok(v) if v >= 1 => Ok(v),
        _ => Err(invalid(format!("{what} {v}; must be at least 1"))),
    }
}

/// `quantized_bias_type`: unset (0) or INT32 are what int8 kernels use; INT64 biases belong to
/// int16 activations.
fn bias_type(t: i8) -> Result<(), Fault> {
    match t {
        0 | 2 => Ok(()),
        t => Err(unsupported(format!(
            "quantized bias type {} is not supported",
            names::tensor_type(t)
        ))),
    }
}

fn tensor(
    t: fb::TensorRef<'_>,
    name: String,
    bytes: &[u8],
    buffers: Option<planus::Vector<'_, planus::Result<fb::BufferRef<'_>>>>,
) -> Result<Tensor, Fault> {
    let dtype = match t.type_()? {
        0 => DType::Float32,
        2 => DType::Int32,
        9 => DType::Int8,
        other => {
            return Err(unsupported(format!(
                "type {} is not supported (int8, int32 biases and float32 are)",
                names::tensor_type(other)
            )));
        }
    };
    let raw: Vec<i32> = t.shape()?.map(|v| v.iter().collect()).unwrap_or_default();
    if let Some(signature) = t.shape_signature()? {
        let signature: Vec<i32> = signature.iter().collect();
        // A batch left open when converting (-1 first, 1 in `shape`) is the converter's
        // default: TFLM runs the model at batch 1, its hello_world model among them, and so
        // does shaped. Any other unknown dimension is refused: `shape` holds a placeholder
        // there, not the size the model is meant for.
        let batch_only = signature.len() == raw.len()
            && signature
                .iter()
                .zip(&raw)
                .enumerate()
                .all(|(i, (&s, &d))| s == d || (i == 0 && s == -1 && d == 1));
        if signature.iter().any(|&d| d < 0) && !batch_only {
            return Err(unsupported(format!(
                "dynamic shape {signature:?} (shape_signature); shaped needs static shapes"
            )));
        }
    }
    let Some(shape) = raw
        .iter()
        .map(|&d| usize::try_from(d).ok())
        .collect::<Option<Vec<usize>>>()
    else {
        return Err(invalid(format!("shape {raw:?} has a negative dimension")));
    };
    let size = shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .and_then(|n| n.checked_mul(dtype.size()))
        .ok_or_else(|| {
            invalid(format!(
                "shape {raw:?} {}: its size in bytes overflows",
                dtype.name()
            ))
        })?;
    if t.is_variable()? {
        return Err(unsupported("variable tensors are not supported"));
    }
    if t.sparsity()?.is_some() {
        return Err(unsupported("sparse tensors are not supported"));
    }

    let quantization = match t.quantization()? {
        None => None,
        Some(q) => quantization(q, dtype, &shape)?,
    };
    if dtype == DType::Int8 && quantization.is_none() {
        return Err(invalid("int8 tensor without quantization parameters"));
    }

    let b = t.buffer()?;
    let count = buffers.map_or(0, |v| v.len());
    let buffer = usize::try_from(b)
        .ok()
        .and_then(|i| buffers.and_then(|v| v.get(i)))
        .ok_or_else(|| invalid(format!("buffer {b} out of range ({count} buffers)")))??;
    let data = buffer_data(buffer, bytes, b)?;
    if let Some(range) = &data {
        if range.len() != size {
            return Err(invalid(format!(
                "buffer {b} holds {} bytes; shape {shape:?} {} needs {size}",
                range.len(),
                dtype.name()
            )));
        }
    }
    Ok(Tensor {
        name,
        dtype,
        shape,
        quantization,
        data: data.map(TensorData::File),
    })
}

/// The byte range of the file a buffer's data occupies; `None` for a buffer without data.
fn buffer_data(
    buffer: fb::BufferRef<'_>,
    bytes: &[u8],
    b: u32,
) -> Result<Option<std::ops::Range<usize>>, Fault> {
    if let Some(data) = buffer.data()? {
        if !data.is_empty() {
            // planus hands out subslices of `bytes`: the distance between the pointers is the
            // data's position in the file.
            let start = (data.as_ptr() as usize).wrapping_sub(bytes.as_ptr() as usize);
            let range = start..start.wrapping_add(data.len());
            return match bytes.get(range.clone()) {
                Some(_) => Ok(Some(range)),
                None => Err(invalid(format!("buffer {b}: data outside the file"))),
            };
        }
    }
    // Files over 2 GB keep data after the flatbuffer; `offset` 0 or 1 means there is none.
    let (offset, size) = (buffer.offset()?, buffer.size()?);
    if offset <= 1 {
        return Ok(None);
    }
    let range = usize::try_from(offset)
        .ok()
        .zip(usize::try_from(size).ok())
        .and_then(|(o, s)| Some(o..o.checked_add(s)?))
        .filter(|r| r.end <= bytes.len());
    match range {
        Some(r) if !r.is_empty() => Ok(Some(r)),
        Some(_) => Ok(None),
        None => Err(invalid(format!(
            "buffer {b}: data at offset {offset}, {size} bytes, is outside the file ({} bytes)",
            bytes.len()
        ))),
    }
}

fn quantization(
    q: fb::QuantizationParametersRef<'_>,
    dtype: DType,
    shape: &[usize],
) -> Result<Option<Quantization>, Fault> {
    if q.details()?.is_some() {
        return Err(unsupported("custom quantization is not supported"));
    }
    let scales: Vec<f32> = q.scale()?.map(|v| v.iter().collect()).unwrap_or_default();
    let zero_points: Vec<i64> = q
        .zero_point()?
        .map(|v| v.iter().collect())
        .unwrap_or_default();
    // TFLite treats parameters without scales as no quantization (converters write empty
    // tables for float tensors).
    if scales.is_empty() {
        return Ok(None);
    }
    if zero_points.len() != scales.len() {
        return Err(invalid(format!(
            "{} scales but {} zero points",
            scales.len(),
            zero_points.len()
        )));
    }
    if let Some(s) = scales.iter().find(|s| !(s.is_finite() && **s > 0.0)) {
        return Err(invalid(format!(
            "quantization scale {s:?}; must be positive and finite"
        )));
    }
    if dtype == DType::Int8 {
        if let Some(z) = zero_points.iter().find(|z| !(-128..=127).contains(*z)) {
            return Err(invalid(format!("zero point {z} is outside int8's range")));
        }
    }
    let dim = q.quantized_dimension()?;
    let quantized_dimension = usize::try_from(dim)
        .map_err(|_| invalid(format!("quantized_dimension {dim} is negative")))?;
    if scales.len() > 1 {
        // TFLM accepts any quantized_dimension on a one-dimensional tensor (its own
        // person_detect model has a bias with 3).
        let axis = if shape.len() == 1 {
            0
        } else {
            quantized_dimension
        };
        if shape.get(axis) != Some(&scales.len()) {
            return Err(invalid(format!(
                "{} scales along axis {quantized_dimension} of shape {shape:?}",
                scales.len()
            )));
        }
    }
    Ok(Some(Quantization {
        scales,
        zero_points,
        quantized_dimension,
    }))
}
