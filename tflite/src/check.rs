//! Checks what [`Model::read`](crate::Model::read) promises about operators: the data flow
//! (each tensor written once, before it is read), each operator's operand count, element types
//! and shapes (as TFLite's kernels compute them), and constant weights; completes the options
//! that come from constant operands (MEAN's axes, PAD's paddings) or from the rank
//! (CONCATENATION's axis).

use crate::error::Fault;
use crate::model::{DType, Model, Op, Operator, Padding, Tensor};
use crate::{Error, ErrorKind, Location};

fn invalid(message: impl Into<String>) -> Fault {
    Fault::invalid(message)
}

fn unsupported(message: impl Into<String>) -> Fault {
    Fault::unsupported(message)
}

pub(crate) fn check(model: &mut Model, concat_axes: &[i32], bytes: &[u8]) -> Result<(), Error> {
    let file = model.file.clone();
    let n = model.tensors.len();
    // Whether each tensor holds a value at the current point of execution.
    let mut ready: Vec<bool> = model.tensors.iter().map(Tensor::is_constant).collect();
    let mut writer: Vec<Option<usize>> = vec![None; n];
    for &t in &model.inputs {
        if model.tensors[t].is_constant() {
            return Err(Error::new(
                &file,
                tensor_location(model, t),
                ErrorKind::Invalid,
                "a model input with constant data",
            ));
        }
        ready[t] = true;
    }
    for i in 0..model.operators.len() {
        let op = &model.operators[i];
        let fail = |f: Fault| {
            f.at(
                &file,
                Location::Operator {
                    index: i,
                    name: op.op.name().to_owned(),
                },
            )
        };
        for t in op.read_tensors() {
            if !ready[t] {
                return Err(fail(invalid(format!(
                    "reads {} before any operator writes it",
                    describe(model, t)
                ))));
            }
        }
        for &t in &op.outputs {
            if model.tensors[t].is_constant() {
                return Err(fail(invalid(format!(
                    "writes {}, which is constant",
                    describe(model, t)
                ))));
            }
            if model.inputs.contains(&t) {
                return Err(fail(invalid(format!(
                    "writes {}, a model input",
                    describe(model, t)
                ))));
            }
            if let Some(w) = writer[t] {
                return Err(fail(invalid(format!(
                    "writes {}, which operator {w} writes too",
                    describe(model, t)
                ))));
            }
            writer[t] = Some(i);
            ready[t] = true;
        }
        let axis = concat_axes.get(i).copied().unwrap_or(0);
        let completed = Operands { model, op, bytes }.check(axis).map_err(fail)?;
        if let Some(completed) = completed {
            model.operators[i].op = completed;
        }
    }
    for (k, &t) in model.outputs.iter().enumerate() {
        if !ready[t] || model.tensors[t].is_constant() {
            return Err(Error::new(
                &file,
                Location::Model,
                ErrorKind::Invalid,
                format!("model output {k} ({}) is never written", describe(model, t)),
            ));
        }
    }
    Ok(())
}

fn tensor_location(model: &Model, t: usize) -> Location {
    Location::Tensor {
        index: t,
        name: model.tensors[t].name.clone(),
    }
}

/// "tensor 5 (name)", for messages about an operator's operands.
fn describe(model: &Model, t: usize) -> String {
    match model.tensors[t].name.as_str() {
        "" => format!("tensor {t}"),
        name => format!("tensor {t} ({name})"),
    }
}

/// One operator's operands, for the checks of its kind.
struct Operands<'a> {
    model: &'a Model,
    op: &'a Operator,
    bytes: &'a [u8],
}

impl Operands<'_> {
    /// Checks the operator; returns its op with options completed where they depend on
    /// operands (MEAN, PAD, CONCATENATION).
    fn check(&self, concat_axis: i32) -> Result<Option<Op>, Fault> {
        match &self.op.op {
            Op::Conv2d(c) => {
                self.arity(2..=3, 1)?;
                let (x, w, y) = (self.input(0)?, self.input(1)?, self.output(0)?);
                let t = self.weighted(x, w, 0)?;
                self.rank("input", x, 4)?;
                self.rank("filter", w, 4)?;
                let (o, kh, kw, ci) = (w.shape[0], w.shape[1], w.shape[2], w.shape[3]);
                if ci != x.shape[3] {
                    return Err(if ci != 0 && x.shape[3] % ci == 0 {
                        unsupported("grouped convolution (input channels a multiple of the filter's) is not supported")
                    } else {
                        invalid(format!(
                            "filter {:?} does not fit input {:?}",
                            w.shape, x.shape
                        ))
                    });
                }
                let oh = window_out(c.padding, x.shape[1], kh, c.stride_h, c.dilation_h)?;
                let ow = window_out(c.padding, x.shape[2], kw, c.stride_w, c.dilation_w)?;
                self.bias(t, o)?;
                self.same_type("output", y, t)?;
                self.shape_is(y, &[x.shape[0], oh, ow, o])?;
                Ok(None)
            }
            Op::DepthwiseConv2d(c) => {
                self.arity(2..=3, 1)?;
                let (x, w, y) = (self.input(0)?, self.input(1)?, self.output(0)?);
                let t = self.weighted(x, w, 3)?;
                self.rank("input", x, 4)?;
                self.rank("filter", w, 4)?;
                let (kh, kw, o) = (w.shape[1], w.shape[2], w.shape[3]);
                if w.shape[0] != 1 || x.shape[3] == 0 || o % x.shape[3] != 0 {
                    return Err(invalid(format!(
                        "filter {:?} does not fit input {:?}",
                        w.shape, x.shape
                    )));
                }
                let oh = window_out(c.padding, x.shape[1], kh, c.stride_h, c.dilation_h)?;
                let ow = window_out(c.padding, x.shape[2], kw, c.stride_w, c.dilation_w)?;
                self.bias(t, o)?;
                self.same_type("output", y, t)?;
                self.shape_is(y, &[x.shape[0], oh, ow, o])?;
                Ok(None)
            }
            Op::FullyConnected(f) => {
                self.arity(2..=3, 1)?;
                let (x, w, y) = (self.input(0)?, self.input(1)?, self.output(0)?);
                let t = self.weighted(x, w, 0)?;
                self.rank("weights", w, 2)?;
                let (units, depth) = (w.shape[0], w.shape[1]);
                if depth == 0 || x.element_count() % depth != 0 {
                    return Err(invalid(format!(
                        "weights {:?} do not fit input {:?}",
                        w.shape, x.shape
                    )));
                }
                self.bias(t, units)?;
                self.same_type("output", y, t)?;
                let rows = x.element_count() / depth;
                let fits = if f.keep_num_dims {
                    x.shape.last() == Some(&depth)
                        && y.shape.len() == x.shape.len()
                        && y.shape[..y.shape.len() - 1] == x.shape[..x.shape.len() - 1]
                        && y.shape.last() == Some(&units)
                } else {
                    y.shape.last() == Some(&units)
                        && rows.checked_mul(units) == Some(y.element_count())
                };
                if !fits {
                    return Err(invalid(format!(
                        "output {:?} does not fit input {:?} and weights {:?}",
                        y.shape, x.shape, w.shape
                    )));
                }
                Ok(None)
            }
            Op::AveragePool2d(p) | Op::MaxPool2d(p) => {
                self.arity(1..=1, 1)?;
                let (x, y) = (self.input(0)?, self.output(0)?);
                let t = self.activation_type(x)?;
                self.same_type("output", y, t)?;
                self.rank("input", x, 4)?;
                let oh = window_out(p.padding, x.shape[1], p.filter_h, p.stride_h, 1)?;
                let ow = window_out(p.padding, x.shape[2], p.filter_w, p.stride_w, 1)?;
                self.shape_is(y, &[x.shape[0], oh, ow, x.shape[3]])?;
                Ok(None)
            }
            Op::Reshape { .. } => {
                self.arity(1..=2, 1)?;
                let (x, y) = (self.input(0)?, self.output(0)?);
                let t = self.activation_type(x)?;
                self.same_type("output", y, t)?;
                if x.element_count() != y.element_count() {
                    return Err(invalid(format!(
                        "reshapes {:?} to {:?}: the element counts differ",
                        x.shape, y.shape
                    )));
                }
                // The output is the input's bytes under another shape: no requantization.
                if x.quantization != y.quantization {
                    return Err(invalid("the input's and output's quantization differ"));
                }
                if let Some(s) = self.op.input(1) {
                    let s = &self.model.tensors[s];
                    self.same_type("shape operand", s, DType::Int32)?;
                    if s.shape.len() > 1 {
                        return Err(invalid(format!(
                            "shape operand of shape {:?}; must be a vector",
                            s.shape
                        )));
                    }
                    if s.is_constant() {
                        let v = self.int32_values(s)?;
                        let inferred = v.iter().filter(|&&d| d == -1).count();
                        let fits = v.len() == y.shape.len()
                            && inferred <= 1
                            && v.iter()
                                .zip(&y.shape)
                                .all(|(&d, &o)| d == -1 || usize::try_from(d) == Ok(o));
                        if !fits {
                            return Err(invalid(format!(
                                "shape operand {v:?} does not match the output {:?}",
                                y.shape
                            )));
                        }
                    }
                }
                Ok(None)
            }
            Op::Softmax { .. } | Op::Logistic | Op::Tanh | Op::Relu | Op::Relu6 => {
                self.arity(1..=1, 1)?;
                let (x, y) = (self.input(0)?, self.output(0)?);
                let t = self.activation_type(x)?;
                self.same_type("output", y, t)?;
                if matches!(self.op.op, Op::Softmax { .. }) && x.shape.is_empty() {
                    return Err(invalid("softmax of a scalar"));
                }
                self.shape_is(y, &x.shape)?;
                Ok(None)
            }
            Op::Quantize | Op::Dequantize => {
                self.arity(1..=1, 1)?;
                let (x, y) = (self.input(0)?, self.output(0)?);
                let (from, to) = if matches!(self.op.op, Op::Quantize) {
                    (&[DType::Float32, DType::Int8][..], DType::Int8)
                } else {
                    (&[DType::Int8][..], DType::Float32)
                };
                if !from.contains(&x.dtype) || y.dtype != to {
                    return Err(unsupported(format!(
                        "{} to {} is not supported",
                        x.dtype.name(),
                        y.dtype.name()
                    )));
                }
                for (what, t) in [("input", x), ("output", y)] {
                    self.per_tensor(what, t)?;
                }
                self.shape_is(y, &x.shape)?;
                Ok(None)
            }
            Op::Add { .. } | Op::Sub { .. } | Op::Mul { .. } => {
                self.arity(2..=2, 1)?;
                let (a, b, y) = (self.input(0)?, self.input(1)?, self.output(0)?);
                let t = self.activation_type(a)?;
                self.same_type("input 1", b, t)?;
                self.same_type("output", y, t)?;
                self.per_tensor("input 1", b)?;
                let Some(shape) = broadcast(&a.shape, &b.shape) else {
                    return Err(invalid(format!(
                        "shapes {:?} and {:?} do not broadcast",
                        a.shape, b.shape
                    )));
                };
                self.shape_is(y, &shape)?;
                Ok(None)
            }
            Op::Mean { keep_dims, .. } => {
                self.arity(2..=2, 1)?;
                let (x, a, y) = (self.input(0)?, self.input(1)?, self.output(0)?);
                let t = self.activation_type(x)?;
                self.same_type("output", y, t)?;
                self.same_type("axes operand", a, DType::Int32)?;
                if a.shape.len() > 1 || !a.is_constant() {
                    return Err(unsupported("the axes operand must be a constant vector"));
                }
                let mut axes = Vec::new();
                for v in self.int32_values(a)? {
                    axes.push(axis_index(v, x.shape.len())?);
                }
                axes.sort_unstable();
                axes.dedup();
                let shape: Vec<usize> = if *keep_dims {
                    x.shape
                        .iter()
                        .enumerate()
                        .map(|(i, &d)| if axes.contains(&i) { 1 } else { d })
                        .collect()
                } else {
                    x.shape
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| !axes.contains(i))
                        .map(|(_, &d)| d)
                        .collect()
                };
                self.shape_is(y, &shape)?;
                Ok(Some(Op::Mean {
                    axes,
                    keep_dims: *keep_dims,
                }))
            }
            Op::Pad { .. } => {
                self.arity(2..=2, 1)?;
                let (x, p, y) = (self.input(0)?, self.input(1)?, self.output(0)?);
                let t = self.activation_type(x)?;
                self.same_type("output", y, t)?;
                self.same_type("paddings operand", p, DType::Int32)?;
                if !p.is_constant() {
                    return Err(unsupported("the paddings operand must be constant"));
                }
                if p.shape != [x.shape.len(), 2] {
                    return Err(invalid(format!(
                        "paddings of shape {:?} for an input of rank {}",
                        p.shape,
                        x.shape.len()
                    )));
                }
                let v = self.int32_values(p)?;
                let mut paddings = Vec::new();
                let mut shape = Vec::new();
                for (pair, &d) in v.chunks_exact(2).zip(&x.shape) {
                    let (Ok(before), Ok(after)) =
                        (usize::try_from(pair[0]), usize::try_from(pair[1]))
                    else {
                        return Err(invalid(format!("negative padding {pair:?}")));
                    };
                    paddings.push((before, after));
                    shape.push(
                        d.checked_add(before)
                            .and_then(|d| d.checked_add(after))
                            .ok_or_else(|| invalid("the padded shape overflows"))?,
                    );
                }
                self.shape_is(y, &shape)?;
                Ok(Some(Op::Pad { paddings }))
            }
            Op::Concatenation { activation, .. } => {
                if self.op.inputs.is_empty() || self.op.outputs.len() != 1 {
                    return Err(invalid(format!(
                        "{} inputs and {} outputs; CONCATENATION takes at least 1 input and 1 output",
                        self.op.inputs.len(),
                        self.op.outputs.len()
                    )));
                }
                let (x, y) = (self.input(0)?, self.output(0)?);
                let t = self.activation_type(x)?;
                self.same_type("output", y, t)?;
                let axis = axis_index(concat_axis, x.shape.len())?;
                let mut shape = x.shape.clone();
                for i in 1..self.op.inputs.len() {
                    let z = self.input(i)?;
                    self.same_type(&format!("input {i}"), z, t)?;
                    self.per_tensor(&format!("input {i}"), z)?;
                    let fits = z.shape.len() == x.shape.len()
                        && z.shape
                            .iter()
                            .zip(&x.shape)
                            .enumerate()
                            .all(|(k, (a, b))| k == axis || a == b);
                    if !fits {
                        return Err(invalid(format!(
                            "input {i} {:?} does not concatenate with {:?} along axis {axis}",
                            z.shape, x.shape
                        )));
                    }
                    shape[axis] = shape[axis]
                        .checked_add(z.shape[axis])
                        .ok_or_else(|| invalid("the concatenated shape overflows"))?;
                }
                self.shape_is(y, &shape)?;
                Ok(Some(Op::Concatenation {
                    axis,
                    activation: *activation,
                }))
            }
        }
    }

    fn arity(&self, inputs: std::ops::RangeInclusive<usize>, outputs: usize) -> Result<(), Fault> {
        let (i, o) = (self.op.inputs.len(), self.op.outputs.len());
        if !inputs.contains(&i) || o != outputs {
            let expected = if inputs.start() == inputs.end() {
                format!("{}", inputs.start())
            } else {
                format!("{} or {}", inputs.start(), inputs.end())
            };
            return Err(invalid(format!(
                "{i} inputs and {o} outputs; {} takes {expected} inputs and {outputs} output",
                self.op.op.name()
            )));
        }
        Ok(())
    }

    /// Input `i`, which must be present (only biases may be absent).
    fn input(&self, i: usize) -> Result<&Tensor, Fault> {
        match self.op.inputs.get(i) {
            Some(Some(t)) => Ok(&self.model.tensors[*t]),
            _ => Err(invalid(format!("input {i} is absent"))),
        }
    }

    fn output(&self, i: usize) -> Result<&Tensor, Fault> {
        match self.op.outputs.get(i) {
            Some(t) => Ok(&self.model.tensors[*t]),
            None => Err(invalid(format!("output {i} is absent"))),
        }
    }

    /// The element type of the operator's data (int8 or float32), from its first input; an
    /// int8 one must be quantized per tensor.
    fn activation_type(&self, x: &Tensor) -> Result<DType, Fault> {
        match x.dtype {
            DType::Int8 | DType::Float32 => {
                self.per_tensor("input 0", x)?;
                Ok(x.dtype)
            }
            DType::Int32 => Err(unsupported(format!(
                "{} on int32 is not supported (int8 and float32 are)",
                self.op.op.name()
            ))),
        }
    }

    /// Checks that an operand has type `t` (and, for int8 data, one scale).
    fn same_type(&self, what: &str, x: &Tensor, t: DType) -> Result<(), Fault> {
        if x.dtype != t {
            return Err(invalid(format!(
                "{what} is {}, not {}",
                x.dtype.name(),
                t.name()
            )));
        }
        if t == DType::Int8 {
            self.per_tensor(what, x)?;
        }
        Ok(())
    }

    /// An int8 activation has one scale and zero point: kernels requantize per tensor.
    fn per_tensor(&self, what: &str, x: &Tensor) -> Result<(), Fault> {
        match &x.quantization {
            Some(q) if x.dtype == DType::Int8 && q.is_per_channel() => Err(unsupported(format!(
                "{what} is quantized per channel; activations must be quantized per tensor"
            ))),
            _ => Ok(()),
        }
    }

    /// The input and weights of a convolution or FULLY_CONNECTED: constant weights of the
    /// input's type, quantized along `channel_axis` if per channel. Returns the type.
    fn weighted(&self, x: &Tensor, w: &Tensor, channel_axis: usize) -> Result<DType, Fault> {
        let t = self.activation_type(x)?;
        if t == DType::Float32 && w.dtype == DType::Int8 {
            return Err(unsupported(
                "hybrid models (float32 activations, int8 weights) are not supported",
            ));
        }
        if w.dtype != t {
            return Err(invalid(format!(
                "weights are {}, not {}",
                w.dtype.name(),
                t.name()
            )));
        }
        if !w.is_constant() {
            return Err(unsupported(
                "the weights are not constant; shaped needs constant weights",
            ));
        }
        if let Some(q) = &w.quantization {
            if q.is_per_channel() && q.axis(w.shape.len()) != channel_axis {
                return Err(invalid(format!(
                    "weights quantized along axis {}; {}'s output channels are axis {channel_axis}",
                    q.quantized_dimension,
                    self.op.op.name()
                )));
            }
        }
        Ok(t)
    }

    /// The optional bias (input 2): constant, `[channels]`, int32 for int8 models and float32
    /// for float ones.
    fn bias(&self, t: DType, channels: usize) -> Result<(), Fault> {
        let Some(b) = self.op.input(2) else {
            return Ok(());
        };
        let b = &self.model.tensors[b];
        let expected = if t == DType::Int8 {
            DType::Int32
        } else {
            DType::Float32
        };
        if b.dtype != expected {
            return Err(unsupported(format!(
                "bias is {}; {} models need {} biases",
                b.dtype.name(),
                t.name(),
                expected.name()
            )));
        }
        if !b.is_constant() {
            return Err(unsupported(
                "the bias is not constant; shaped needs constant biases",
            ));
        }
        if b.shape != [channels] {
            return Err(invalid(format!(
                "bias of shape {:?} for {channels} output channels",
                b.shape
            )));
        }
        Ok(())
    }

    fn rank(&self, what: &str, x: &Tensor, rank: usize) -> Result<(), Fault> {
        if x.shape.len() != rank {
            return Err(invalid(format!(
                "{what} of shape {:?}; {} needs rank {rank}",
                x.shape,
                self.op.op.name()
            )));
        }
        Ok(())
    }

    fn shape_is(&self, y: &Tensor, shape: &[usize]) -> Result<(), Fault> {
        if y.shape != shape {
            return Err(invalid(format!(
                "output of shape {:?}; the inputs give {shape:?}",
                y.shape
            )));
        }
        Ok(())
    }

    /// A constant int32 operand's values.
    fn int32_values(&self, t: &Tensor) -> Result<Vec<i32>, Fault> {
        let bytes = t
            .bytes(self.bytes)
            .ok_or_else(|| invalid("constant operand without its data"))?;
        Ok(bytes
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }
}

/// A convolution's or pooling window's output length along one axis, as TFLite computes it.
fn window_out(
    padding: Padding,
    input: usize,
    filter: usize,
    stride: usize,
    dilation: usize,
) -> Result<usize, Fault> {
    let overflow = || invalid("the window's size overflows");
    let effective = filter
        .checked_sub(1)
        .ok_or_else(|| invalid("a filter of size 0"))?
        .checked_mul(dilation)
        .and_then(|d| d.checked_add(1))
        .ok_or_else(overflow)?;
    Ok(match padding {
        Padding::Same => input.div_ceil(stride),
        Padding::Valid if input >= effective => (input - effective) / stride + 1,
        Padding::Valid => 0,
    })
}

/// numpy's broadcast of two shapes.
fn broadcast(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let rank = a.len().max(b.len());
    let dim = |s: &[usize], i: usize| {
        if i + s.len() < rank {
            1
        } else {
            s[i + s.len() - rank]
        }
    };
    (0..rank)
        .map(|i| match (dim(a, i), dim(b, i)) {
            (x, y) if x == y => Some(x),
            (1, y) => Some(y),
            (x, 1) => Some(x),
            _ => None,
        })
        .collect()
}

/// An axis in `-rank..rank` as an index.
fn axis_index(axis: i32, rank: usize) -> Result<usize, Fault> {
    let r = i64::try_from(rank).unwrap_or(i64::MAX);
    let a = i64::from(axis);
    if a < -r || a >= r {
        return Err(invalid(format!(
            "axis {axis} is out of range for rank {rank}"
        )));
    }
    Ok(usize::try_from(if a < 0 { a + r } else { a }).unwrap_or(0))
}
