//! Error texts and the rarer operators, on models made with planus's builder (the generated
//! object API, private to the crate, hence unit tests): real models mutated, and small ones
//! built from scratch.

use planus::ReadAsRoot;

use crate::schema_generated::tflite as fb;
use crate::{Activation, ErrorKind, Model, Op, Padding, Plan, PlanOptions};

fn repo_model(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/../tests/models/{name}.tflite",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn object(bytes: &[u8]) -> fb::Model {
    fb::Model::try_from(fb::ModelRef::read_as_root(bytes).unwrap()).unwrap()
}

/// The model as a `.tflite` file. planus 1.2's builder writes a file identifier after the
/// root offset's place rather than before, so the buffer is built without one and the
/// identifier inserted here: every offset in a flatbuffer is relative but the root's, so
/// shifting the rest by four bytes only moves the root offset.
fn serialize(m: &fb::Model) -> Vec<u8> {
    let plain = planus::Builder::new().finish(m, None).to_vec();
    let root = u32::from_le_bytes(plain[..4].try_into().unwrap());
    let mut bytes = (root + 4).to_le_bytes().to_vec();
    bytes.extend_from_slice(b"TFL3");
    bytes.extend_from_slice(&plain[4..]);
    bytes
}

fn error(bytes: &[u8], file: &str) -> crate::Error {
    match Model::read(bytes, file) {
        Ok(_) => panic!("{file}: read without an error"),
        Err(e) => e,
    }
}

fn subgraph(m: &mut fb::Model) -> &mut fb::SubGraph {
    &mut m.subgraphs.as_mut().unwrap()[0]
}

fn tensors(m: &mut fb::Model) -> &mut Vec<fb::Tensor> {
    subgraph(m).tensors.as_mut().unwrap()
}

fn operators(m: &mut fb::Model) -> &mut Vec<fb::Operator> {
    subgraph(m).operators.as_mut().unwrap()
}

/// `speech`, mutated by `f` and written back.
fn speech_with(f: impl FnOnce(&mut fb::Model)) -> Vec<u8> {
    let mut m = object(&repo_model("speech"));
    f(&mut m);
    serialize(&m)
}

/// The operator code entry that operator `op` of `m` uses.
fn code_of(m: &mut fb::Model, op: usize) -> &mut fb::OperatorCode {
    let k = operators(m)[op].opcode_index as usize;
    &mut m.operator_codes.as_mut().unwrap()[k]
}

/// Input `i` of operator `op`, a tensor index.
fn input_of(m: &mut fb::Model, op: usize, i: usize) -> usize {
    operators(m)[op].inputs.as_ref().unwrap()[i] as usize
}

#[test]
fn written_back_speech_reads_as_the_original() {
    let original = repo_model("speech");
    let a = Model::read(&original, "speech.tflite").unwrap();
    let b = Model::read(&speech_with(|_| {}), "speech.tflite").unwrap();
    assert_eq!(a.operators, b.operators);
    assert_eq!((a.inputs, a.outputs), (b.inputs, b.outputs));
    for (x, y) in a.tensors.iter().zip(&b.tensors) {
        assert_eq!(
            (&x.name, x.dtype, &x.shape, &x.quantization),
            (&y.name, y.dtype, &y.shape, &y.quantization)
        );
    }
}

#[test]
fn unsupported_operator() {
    let bytes = speech_with(|m| {
        let c = code_of(m, 2);
        c.builtin_code = 99;
        c.deprecated_builtin_code = 99;
    });
    let e = error(&bytes, "speech.tflite");
    assert_eq!(
        e.to_string(),
        "speech.tflite: operator 2 (SQUARED_DIFFERENCE): shaped does not support this operator"
    );
    assert_eq!(e.kind(), ErrorKind::Unsupported);
}

#[test]
fn op_code_is_the_larger_field() {
    // A code past 127: the byte says 127 (PLACEHOLDER_FOR_GREATER_OP_CODES).
    let bytes = speech_with(|m| {
        let c = code_of(m, 1);
        c.builtin_code = 150;
        c.deprecated_builtin_code = 127;
    });
    assert_eq!(
        error(&bytes, "m.tflite").to_string(),
        "m.tflite: operator 1 (GELU): shaped does not support this operator"
    );
    // An old file: only the byte field.
    let bytes = speech_with(|m| {
        let c = code_of(m, 2);
        c.builtin_code = 0;
        c.deprecated_builtin_code = 9;
    });
    let model = Model::read(&bytes, "m.tflite").unwrap();
    assert_eq!(model.operators[2].op.name(), "FULLY_CONNECTED");
    // A code no name is known for.
    let bytes = speech_with(|m| code_of(m, 0).builtin_code = 4000);
    assert_eq!(
        error(&bytes, "m.tflite").to_string(),
        "m.tflite: operator 0 (operator code 4000): unknown operator code (newer than this reader?); shaped does not support it"
    );
}

#[test]
fn custom_operator_names_its_code() {
    let bytes = speech_with(|m| {
        let c = code_of(m, 3);
        c.builtin_code = 32;
        c.deprecated_builtin_code = 32;
        c.custom_code = Some("TFLite_Detection_PostProcess".into());
    });
    assert_eq!(
        error(&bytes, "det.tflite").to_string(),
        "det.tflite: operator 3 (CUSTOM(TFLite_Detection_PostProcess)): shaped does not support custom operators"
    );
}

#[test]
fn int16_tensor() {
    let mut name = String::new();
    let mut index = 0;
    let bytes = speech_with(|m| {
        index = input_of(m, 0, 1);
        let t = &mut tensors(m)[index];
        t.type_ = 7;
        name = t.name.clone().unwrap();
    });
    assert_eq!(
        error(&bytes, "model.tflite").to_string(),
        format!("model.tflite: tensor {index} ({name}): type INT16 is not supported (int8, int32 biases and float32 are)")
    );
}

#[test]
fn two_subgraphs() {
    let bytes = speech_with(|m| {
        let s = m.subgraphs.as_ref().unwrap()[0].clone();
        m.subgraphs.as_mut().unwrap().push(s);
    });
    let e = error(&bytes, "model.tflite");
    assert_eq!(
        e.to_string(),
        "model.tflite: 2 subgraphs; shaped imports models of one"
    );
    let bytes = speech_with(|m| m.subgraphs = None);
    assert_eq!(
        error(&bytes, "model.tflite").to_string(),
        "model.tflite: 0 subgraphs; shaped imports models of one"
    );
}

#[test]
fn dynamic_shape() {
    let mut name = String::new();
    let bytes = speech_with(|m| {
        let t = &mut tensors(m)[0];
        t.shape_signature = Some(vec![1, -1, 40, 1]);
        name = t.name.clone().unwrap();
    });
    assert_eq!(
        error(&bytes, "model.tflite").to_string(),
        format!("model.tflite: tensor 0 ({name}): dynamic shape [1, -1, 40, 1] (shape_signature); shaped needs static shapes")
    );
    // An open batch with 1 in the shape is batch 1, as in TFLM (its hello_world model).
    let bytes = speech_with(|m| tensors(m)[0].shape_signature = Some(vec![-1, 49, 40, 1]));
    assert_eq!(
        Model::read(&bytes, "model.tflite").unwrap().tensors[0].shape,
        [1, 49, 40, 1]
    );
    // Not when the shape says something else there.
    let bytes = speech_with(|m| {
        let t = &mut tensors(m)[0];
        t.shape = Some(vec![2, 49, 40, 1]);
        t.shape_signature = Some(vec![-1, 49, 40, 1]);
    });
    assert!(error(&bytes, "model.tflite")
        .to_string()
        .ends_with("dynamic shape [-1, 49, 40, 1] (shape_signature); shaped needs static shapes"));
}

#[test]
fn not_a_model() {
    let e = error(&[], "x.tflite");
    assert_eq!(
        e.to_string(),
        "x.tflite: not a TFLite model: the file is empty"
    );
    assert_eq!(e.kind(), ErrorKind::NotTflite);

    let mut bytes = repo_model("speech");
    bytes[4..8].copy_from_slice(b"ONNX");
    assert_eq!(
        error(&bytes, "x.tflite").to_string(),
        "x.tflite: not a TFLite model: file identifier \"ONNX\", not \"TFL3\""
    );

    assert_eq!(
        error(&[1, 2, 3], "x.tflite").to_string(),
        "x.tflite: not a TFLite model: In <[ModelRef]@0>::read_as_root(): Invalid offset"
    );

    // Random bytes: SplitMix64, as the test models' inputs are made.
    let mut state = 0x5eed_u64;
    let mut next = || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let random: Vec<u8> = (0..4096).map(|_| (next() >> 56) as u8).collect();
    let e = error(&random, "x.tflite");
    assert_eq!(
        e.to_string(),
        "x.tflite: not a TFLite model: In <[ModelRef]@0>::read_as_root(): Invalid offset"
    );
    assert_eq!(e.kind(), ErrorKind::NotTflite);
}

#[test]
fn truncated_file() {
    let bytes = repo_model("speech");
    let e = error(&bytes[..bytes.len() / 2], "speech.tflite");
    assert_eq!(
        e.to_string(),
        "speech.tflite: not a TFLite model: In <Model@1c>::subgraphs(): Invalid offset"
    );
    // Every truncation is an error, never a panic.
    for len in (0..bytes.len()).step_by(97) {
        assert!(
            Model::read(&bytes[..len], "speech.tflite").is_err(),
            "{len}"
        );
    }
}

#[test]
fn buffer_length_must_match_the_shape() {
    let mut index = 0;
    let mut name = String::new();
    let mut b = 0;
    let bytes = speech_with(|m| {
        index = input_of(m, 0, 1);
        b = tensors(m)[index].buffer as usize;
        name = tensors(m)[index].name.clone().unwrap();
        m.buffers.as_mut().unwrap()[b].data.as_mut().unwrap().pop();
    });
    assert_eq!(
        error(&bytes, "model.tflite").to_string(),
        format!("model.tflite: tensor {index} ({name}): buffer {b} holds 639 bytes; shape [8, 10, 8, 1] int8 needs 640")
    );
}

#[test]
fn indices_out_of_range() {
    let n = object(&repo_model("speech")).subgraphs.unwrap()[0]
        .tensors
        .as_ref()
        .unwrap()
        .len();
    let bytes = speech_with(|m| operators(m)[0].inputs.as_mut().unwrap()[0] = 999);
    assert_eq!(
        error(&bytes, "m.tflite").to_string(),
        format!(
            "m.tflite: operator 0 (CONV_2D): input 0 is tensor 999, out of range ({n} tensors)"
        )
    );
    let bytes = speech_with(|m| operators(m)[1].outputs.as_mut().unwrap()[0] = -1);
    assert_eq!(
        error(&bytes, "m.tflite").to_string(),
        format!(
            "m.tflite: operator 1 (RESHAPE): output 0 is tensor -1, out of range ({n} tensors)"
        )
    );
    let bytes = speech_with(|m| operators(m)[0].opcode_index = 7);
    assert_eq!(
        error(&bytes, "m.tflite").to_string(),
        "m.tflite: operator 0: operator code 7 out of range (4 operator codes)"
    );
    let mut buffers = 0;
    let bytes = speech_with(|m| {
        buffers = m.buffers.as_ref().unwrap().len();
        tensors(m)[0].buffer = 1000;
    });
    assert!(error(&bytes, "m.tflite")
        .to_string()
        .ends_with(&format!("buffer 1000 out of range ({buffers} buffers)")));
    let bytes = speech_with(|m| subgraph(m).outputs = Some(vec![-3]));
    assert_eq!(
        error(&bytes, "m.tflite").to_string(),
        format!("m.tflite: model output 0 is tensor -3, out of range ({n} tensors)")
    );
}

#[test]
fn int8_needs_quantization() {
    let bytes = speech_with(|m| tensors(m)[0].quantization = None);
    let e = error(&bytes, "m.tflite");
    assert!(
        e.to_string()
            .ends_with("int8 tensor without quantization parameters"),
        "{e}"
    );
    assert_eq!(e.kind(), ErrorKind::Invalid);
}

#[test]
fn shape_overflow() {
    let bytes = speech_with(|m| tensors(m)[0].shape = Some(vec![i32::MAX, i32::MAX, i32::MAX, 2]));
    assert!(error(&bytes, "m.tflite").to_string().ends_with(
        "shape [2147483647, 2147483647, 2147483647, 2] int8: its size in bytes overflows"
    ));
}

#[test]
fn shapes_must_agree() {
    let mut out = 0;
    let bytes = speech_with(|m| {
        out = operators(m)[0].outputs.as_ref().unwrap()[0] as usize;
        tensors(m)[out].shape = Some(vec![1, 25, 21, 8]);
    });
    assert_eq!(
        error(&bytes, "m.tflite").to_string(),
        "m.tflite: operator 0 (CONV_2D): output of shape [1, 25, 21, 8]; the inputs give [1, 25, 20, 8]"
    );
    // An operator reading a tensor no earlier operator wrote.
    let bytes = speech_with(|m| operators(m).swap(0, 1));
    assert!(error(&bytes, "m.tflite")
        .to_string()
        .contains("before any operator writes it"));
}

#[test]
fn per_channel_axis_and_tflm_bias_quirk() {
    // A per-channel filter quantized along the wrong axis.
    let bytes = speech_with(|m| {
        let w = input_of(m, 0, 1);
        let t = &mut tensors(m)[w];
        let q = t.quantization.as_mut().unwrap();
        q.quantized_dimension = 1;
    });
    assert!(error(&bytes, "m.tflite")
        .to_string()
        .ends_with("8 scales along axis 1 of shape [8, 10, 8, 1]"));
    // A one-dimensional bias may name any axis (TFLM's person_detect says 3).
    let bytes = speech_with(|m| {
        let b = input_of(m, 0, 2);
        tensors(m)[b]
            .quantization
            .as_mut()
            .unwrap()
            .quantized_dimension = 3;
    });
    let model = Model::read(&bytes, "m.tflite").unwrap();
    let q = model.tensors[model.operators[0].input(2).unwrap()]
        .quantization
        .as_ref()
        .unwrap();
    assert_eq!((q.quantized_dimension, q.axis(1)), (3, 0));
}

// --- a small model built from scratch: the operators the test models do not have -----------

struct Builder {
    model: fb::Model,
}

impl Builder {
    fn new() -> Builder {
        let model = fb::Model {
            version: 3,
            operator_codes: Some(Vec::new()),
            subgraphs: Some(vec![fb::SubGraph {
                tensors: Some(Vec::new()),
                inputs: Some(Vec::new()),
                outputs: Some(Vec::new()),
                operators: Some(Vec::new()),
                name: Some("main".into()),
            }]),
            description: Some("built by shaped-tflite's tests".into()),
            // Buffer 0 is the empty one every TFLite file has.
            buffers: Some(vec![fb::Buffer::default()]),
        };
        Builder { model }
    }

    /// A tensor; `data` makes it constant; int8 ones get scale 0.5 and zero point -1.
    fn tensor(&mut self, name: &str, type_: i8, shape: &[i32], data: Option<Vec<u8>>) -> i32 {
        let buffer = match data {
            Some(d) => {
                let buffers = self.model.buffers.as_mut().unwrap();
                buffers.push(fb::Buffer {
                    data: Some(d),
                    offset: 0,
                    size: 0,
                });
                (buffers.len() - 1) as u32
            }
            None => 0,
        };
        let quantization = (type_ == 9).then(|| {
            Box::new(fb::QuantizationParameters {
                scale: Some(vec![0.5]),
                zero_point: Some(vec![-1]),
                details: None,
                quantized_dimension: 0,
            })
        });
        let t = fb::Tensor {
            shape: Some(shape.to_vec()),
            type_,
            buffer,
            name: Some(name.into()),
            quantization,
            is_variable: false,
            sparsity: None,
            shape_signature: None,
        };
        let ts = tensors(&mut self.model);
        ts.push(t);
        (ts.len() - 1) as i32
    }

    fn i32s(&mut self, name: &str, shape: &[i32], values: &[i32]) -> i32 {
        let data = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        self.tensor(name, 2, shape, Some(data))
    }

    fn op(
        &mut self,
        code: i32,
        inputs: &[i32],
        outputs: &[i32],
        options: Option<fb::BuiltinOptions>,
    ) {
        let codes = self.model.operator_codes.as_mut().unwrap();
        let k = match codes.iter().position(|c| c.builtin_code == code) {
            Some(k) => k,
            None => {
                codes.push(fb::OperatorCode {
                    deprecated_builtin_code: code.min(127) as i8,
                    custom_code: None,
                    version: 1,
                    builtin_code: code,
                });
                codes.len() - 1
            }
        };
        operators(&mut self.model).push(fb::Operator {
            opcode_index: k as u32,
            inputs: Some(inputs.to_vec()),
            outputs: Some(outputs.to_vec()),
            builtin_options: options,
        });
    }

    fn io(&mut self, inputs: &[i32], outputs: &[i32]) {
        let s = subgraph(&mut self.model);
        s.inputs = Some(inputs.to_vec());
        s.outputs = Some(outputs.to_vec());
    }

    fn bytes(&self) -> Vec<u8> {
        serialize(&self.model)
    }
}

fn f32s(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// float input -> QUANTIZE -> MAX_POOL_2D -> RESHAPE -> LOGISTIC -> CONCATENATION (with the
/// reshape's output) -> DEQUANTIZE -> PAD -> MEAN -> TANH -> MUL (by a constant) -> SUB ->
/// RELU6 -> RELU, the output.
fn small_model() -> Builder {
    use fb::BuiltinOptions as O;
    let mut b = Builder::new();
    let x = b.tensor("x", 0, &[1, 4, 4, 2], None);
    let q = b.tensor("q", 9, &[1, 4, 4, 2], None);
    b.op(114, &[x], &[q], None);
    let p = b.tensor("pooled", 9, &[1, 2, 2, 2], None);
    let pool = fb::Pool2DOptions {
        padding: fb::Padding::Valid,
        stride_w: 2,
        stride_h: 2,
        filter_width: 2,
        filter_height: 2,
        fused_activation_function: fb::ActivationFunctionType::Relu,
    };
    b.op(17, &[q], &[p], Some(O::Pool2DOptions(Box::new(pool))));
    let shape = b.i32s("shape", &[2], &[1, -1]);
    let flat = b.tensor("flat", 9, &[1, 8], None);
    let reshape = fb::ReshapeOptions {
        new_shape: Some(vec![1, 8]),
    };
    b.op(
        22,
        &[p, shape],
        &[flat],
        Some(O::ReshapeOptions(Box::new(reshape))),
    );
    let s = b.tensor("sigmoid", 9, &[1, 8], None);
    b.op(14, &[flat], &[s], None);
    let c = b.tensor("concat", 9, &[1, 16], None);
    let concat = fb::ConcatenationOptions {
        axis: -1,
        fused_activation_function: fb::ActivationFunctionType::None,
    };
    b.op(
        2,
        &[s, flat],
        &[c],
        Some(O::ConcatenationOptions(Box::new(concat))),
    );
    let d = b.tensor("dequantized", 0, &[1, 16], None);
    b.op(6, &[c], &[d], None);
    let paddings = b.i32s("paddings", &[2, 2], &[0, 0, 1, 2]);
    let padded = b.tensor("padded", 0, &[1, 19], None);
    b.op(34, &[d, paddings], &[padded], None);
    let axes = b.i32s("axes", &[1], &[-1]);
    let mean = b.tensor("mean", 0, &[1, 1], None);
    b.op(
        40,
        &[padded, axes],
        &[mean],
        Some(O::ReducerOptions(Box::new(fb::ReducerOptions {
            keep_dims: true,
        }))),
    );
    let th = b.tensor("tanh", 0, &[1, 1], None);
    b.op(28, &[mean], &[th], None);
    let k = b.tensor("k", 0, &[3], Some(f32s(&[1.0, 2.0, 3.0])));
    let prod = b.tensor("product", 0, &[1, 3], None);
    let mul = fb::MulOptions {
        fused_activation_function: fb::ActivationFunctionType::ReluN1To1,
    };
    b.op(18, &[th, k], &[prod], Some(O::MulOptions(Box::new(mul))));
    let diff = b.tensor("difference", 0, &[1, 3], None);
    b.op(41, &[prod, th], &[diff], None);
    let r6 = b.tensor("relu6", 0, &[1, 3], None);
    b.op(21, &[diff], &[r6], None);
    let y = b.tensor("y", 0, &[1, 3], None);
    b.op(19, &[r6], &[y], None);
    b.io(&[x], &[y]);
    b
}

#[test]
fn small_model_reads() {
    let bytes = small_model().bytes();
    let m = Model::read(&bytes, "small.tflite").unwrap();
    let names: Vec<&str> = m.operators.iter().map(|o| o.op.name()).collect();
    assert_eq!(
        names,
        [
            "QUANTIZE",
            "MAX_POOL_2D",
            "RESHAPE",
            "LOGISTIC",
            "CONCATENATION",
            "DEQUANTIZE",
            "PAD",
            "MEAN",
            "TANH",
            "MUL",
            "SUB",
            "RELU6",
            "RELU"
        ]
    );
    assert_eq!(
        m.description.as_deref(),
        Some("built by shaped-tflite's tests")
    );
    let Op::MaxPool2d(p) = &m.operators[1].op else {
        panic!()
    };
    assert_eq!(
        (
            p.padding,
            p.stride_h,
            p.stride_w,
            p.filter_h,
            p.filter_w,
            p.activation
        ),
        (Padding::Valid, 2, 2, 2, 2, Activation::Relu)
    );
    assert_eq!(
        m.operators[2].op,
        Op::Reshape {
            new_shape: Some(vec![1, 8])
        }
    );
    assert_eq!(
        m.operators[4].op,
        Op::Concatenation {
            axis: 1,
            activation: Activation::None
        }
    );
    assert_eq!(
        m.operators[6].op,
        Op::Pad {
            paddings: vec![(0, 0), (1, 2)]
        }
    );
    assert_eq!(
        m.operators[7].op,
        Op::Mean {
            axes: vec![1],
            keep_dims: true
        }
    );
    assert_eq!(
        m.operators[9].op,
        Op::Mul {
            activation: Activation::ReluN1To1
        }
    );
    assert_eq!(
        m.operators[10].op,
        Op::Sub {
            activation: Activation::None
        }
    );
    let q = m.tensors[1].quantization.as_ref().unwrap();
    assert_eq!(
        (q.scales.as_slice(), q.zero_points.as_slice()),
        (&[0.5f32][..], &[-1i64][..])
    );
    let k = &m.tensors[m.operators[9].input(1).unwrap()];
    assert_eq!(k.bytes(&bytes), Some(&f32s(&[1.0, 2.0, 3.0])[..]));

    // The plan: RESHAPE's output shares the pooled tensor's bytes, but "flat" is read after
    // LOGISTIC too, so it stays alive to CONCATENATION.
    let plan = Plan::new(&m).unwrap();
    plan.verify(&m).unwrap();
    let flat = plan.placement(4).unwrap();
    assert_eq!(
        (flat.alias_of, flat.first_op, flat.last_op),
        (Some(2), 2, 4)
    );
    assert_eq!(plan.placement(2).unwrap().offset, flat.offset);
    // The float tensors are 16-byte aligned.
    for p in &plan.placements {
        if m.tensors[p.tensor].dtype == crate::DType::Float32 {
            assert_eq!(p.offset % 16, 0);
        }
    }
    assert!(plan.placement(0).is_none() && plan.placement(m.outputs[0]).is_none());
    let with_io = Plan::with_options(&m, PlanOptions { include_io: true }).unwrap();
    with_io.verify(&m).unwrap();
    assert!(with_io.placement(0).is_some());
    let report = plan.report(&m).to_string();
    assert!(
        report.starts_with(&format!("arena: {} bytes for ", plan.arena_size)),
        "{report}"
    );
    assert!(report.contains("(RESHAPE: tensor 2's bytes)"), "{report}");
}

#[test]
fn small_model_errors() {
    use fb::BuiltinOptions as O;
    // MAX_POOL_2D's output not what the window gives.
    let mut b = small_model();
    tensors(&mut b.model)[2].shape = Some(vec![1, 3, 2, 2]);
    assert_eq!(
        error(&b.bytes(), "small.tflite").to_string(),
        "small.tflite: operator 1 (MAX_POOL_2D): output of shape [1, 3, 2, 2]; the inputs give [1, 2, 2, 2]"
    );
    // A stride of 0.
    let mut b = small_model();
    let Some(O::Pool2DOptions(p)) = &mut operators(&mut b.model)[1].builtin_options else {
        panic!()
    };
    p.stride_w = 0;
    assert_eq!(
        error(&b.bytes(), "small.tflite").to_string(),
        "small.tflite: operator 1 (MAX_POOL_2D): stride_w 0; must be at least 1"
    );
    // Options of another operator.
    let mut b = small_model();
    operators(&mut b.model)[1].builtin_options =
        Some(O::SoftmaxOptions(Box::new(fb::SoftmaxOptions {
            beta: 1.0,
        })));
    assert_eq!(
        error(&b.bytes(), "small.tflite").to_string(),
        "small.tflite: operator 1 (MAX_POOL_2D): its options are not Pool2DOptions"
    );
    // A fused TANH.
    let mut b = small_model();
    let Some(O::MulOptions(o)) = &mut operators(&mut b.model)[9].builtin_options else {
        panic!()
    };
    o.fused_activation_function = fb::ActivationFunctionType::Tanh;
    assert_eq!(
        error(&b.bytes(), "small.tflite").to_string(),
        "small.tflite: operator 9 (MUL): fused activation TANH is not supported"
    );
    // CONCATENATION's axis out of range.
    let mut b = small_model();
    let Some(O::ConcatenationOptions(o)) = &mut operators(&mut b.model)[4].builtin_options else {
        panic!()
    };
    o.axis = 2;
    assert_eq!(
        error(&b.bytes(), "small.tflite").to_string(),
        "small.tflite: operator 4 (CONCATENATION): axis 2 is out of range for rank 2"
    );
    // SUB's operands that do not broadcast.
    let mut b = small_model();
    let two = b.tensor("two", 0, &[2], Some(f32s(&[1.0, 2.0])));
    operators(&mut b.model)[10].inputs = Some(vec![14, two]);
    assert_eq!(
        error(&b.bytes(), "small.tflite").to_string(),
        "small.tflite: operator 10 (SUB): shapes [1, 3] and [2] do not broadcast"
    );
    // A variable tensor, a sparse one, custom quantization.
    let mut b = small_model();
    tensors(&mut b.model)[1].is_variable = true;
    assert_eq!(
        error(&b.bytes(), "small.tflite").to_string(),
        "small.tflite: tensor 1 (q): variable tensors are not supported"
    );
    let mut b = small_model();
    tensors(&mut b.model)[1].sparsity = Some(Box::new(fb::SparsityParameters {}));
    assert_eq!(
        error(&b.bytes(), "small.tflite").to_string(),
        "small.tflite: tensor 1 (q): sparse tensors are not supported"
    );
    let mut b = small_model();
    tensors(&mut b.model)[1]
        .quantization
        .as_mut()
        .unwrap()
        .details = Some(fb::QuantizationDetails::CustomQuantization(Box::new(
        fb::CustomQuantization {},
    )));
    assert_eq!(
        error(&b.bytes(), "small.tflite").to_string(),
        "small.tflite: tensor 1 (q): custom quantization is not supported"
    );
    // DEQUANTIZE of a float32 tensor.
    let mut b = small_model();
    operators(&mut b.model)[5].inputs = Some(vec![0]);
    assert_eq!(
        error(&b.bytes(), "small.tflite").to_string(),
        "small.tflite: operator 5 (DEQUANTIZE): float32 to float32 is not supported"
    );
    // Schema version.
    let mut b = small_model();
    b.model.version = 2;
    assert_eq!(
        error(&b.bytes(), "small.tflite").to_string(),
        "small.tflite: not a TFLite model: schema version 2, not 3"
    );
}
