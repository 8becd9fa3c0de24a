//! Reads every model in the repository's `tests/models/` (and TFLM's three in
//! `../shared/models/` when that directory exists) and checks what the reader makes of it
//! against the header of the model's `.expected.txt`, which `tests/models/make_models.py`
//! wrote from TFLite's own reading of the file: the op list, the input and output (shape,
//! type, scale bits, zero point), and one line per operator (operand shapes and types,
//! constness, per-channel scales, options). The lines are rebuilt here in the script's format
//! and compared as text. Then plans each model's arena and compares it with TFLM's.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use shaped_tflite::{Model, Op, Plan, PlanOptions, Tensor};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The script's description of a tensor operand: `[1, 49, 40, 1] int8 const (8 scales, axis 0)`.
fn operand(model: &Model, t: Option<usize>) -> String {
    let Some(t) = t else { return "none".into() };
    let t: &Tensor = &model.tensors[t];
    let mut s = format!("{:?} {}", t.shape, t.dtype.name());
    if t.is_constant() {
        s += " const";
    }
    if let Some(q) = t.quantization.as_ref().filter(|q| q.is_per_channel()) {
        write!(
            s,
            " ({} scales, axis {})",
            q.scales.len(),
            q.quantized_dimension
        )
        .unwrap();
    }
    s
}

/// The script's option list for an operator (`SAME, stride 2x2, activation RELU`).
fn options(op: &Op) -> Vec<String> {
    let mut v = Vec::new();
    let act = |a: shaped_tflite::Activation| format!("activation {}", a.name());
    let pad = |p: shaped_tflite::Padding| match p {
        shaped_tflite::Padding::Same => "SAME".to_string(),
        shaped_tflite::Padding::Valid => "VALID".to_string(),
    };
    match op {
        Op::Conv2d(c) => {
            v.push(pad(c.padding));
            v.push(format!("stride {}x{}", c.stride_h, c.stride_w));
            if (c.dilation_h, c.dilation_w) != (1, 1) {
                v.push(format!("dilation {}x{}", c.dilation_h, c.dilation_w));
            }
            v.push(act(c.activation));
        }
        Op::DepthwiseConv2d(c) => {
            v.push(pad(c.padding));
            v.push(format!("stride {}x{}", c.stride_h, c.stride_w));
            if (c.dilation_h, c.dilation_w) != (1, 1) {
                v.push(format!("dilation {}x{}", c.dilation_h, c.dilation_w));
            }
            v.push(format!("depth multiplier {}", c.depth_multiplier));
            v.push(act(c.activation));
        }
        Op::AveragePool2d(p) | Op::MaxPool2d(p) => {
            v.push(pad(p.padding));
            v.push(format!("stride {}x{}", p.stride_h, p.stride_w));
            v.push(format!("filter {}x{}", p.filter_h, p.filter_w));
            v.push(act(p.activation));
        }
        Op::FullyConnected(f) => {
            v.push(act(f.activation));
            if f.keep_num_dims {
                v.push("keep_num_dims".into());
            }
        }
        // Python's repr of the f32 widened to a double.
        Op::Softmax { beta } => v.push(format!("beta {:?}", f64::from(*beta))),
        Op::Add { activation } | Op::Sub { activation } | Op::Mul { activation } => {
            v.push(act(*activation))
        }
        Op::Concatenation { activation, .. } => v.push(act(*activation)),
        _ => {}
    }
    v
}

fn op_line(model: &Model, i: usize) -> String {
    let op = &model.operators[i];
    let ins: Vec<String> = op.inputs.iter().map(|&t| operand(model, t)).collect();
    let outs: Vec<String> = op
        .outputs
        .iter()
        .map(|&t| operand(model, Some(t)))
        .collect();
    let mut line = format!(
        "# op {i}: {}({}) -> {}",
        op.op.name(),
        ins.join(", "),
        outs.join(", ")
    );
    let opts = options(&op.op);
    if !opts.is_empty() {
        line += &format!("; {}", opts.join(", "));
    }
    line
}

/// `# input: shape [1, 49, 40, 1] int8, scale 0.0078125 (0x3c000000), zero point 0`.
fn io_line(model: &Model, what: &str, t: usize) -> String {
    let t = &model.tensors[t];
    let q = match &t.quantization {
        None => "not quantized".to_string(),
        Some(q) if q.is_per_channel() => {
            format!(
                "per-axis {} scales, dimension {}",
                q.scales.len(),
                q.quantized_dimension
            )
        }
        Some(q) => format!(
            "scale {} (0x{:08x}), zero point {}",
            q.scales[0],
            q.scales[0].to_bits(),
            q.zero_points[0]
        ),
    };
    format!("# {what}: shape {:?} {}, {q}", t.shape, t.dtype.name())
}

/// The header lines the reader can reproduce, and TFLM's arena size from the header.
fn expected(name: &str) -> (Vec<String>, usize) {
    let path = repo()
        .join("tests/models")
        .join(format!("{name}.expected.txt"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = Vec::new();
    let mut arena = None;
    for line in text.lines().take_while(|l| l.starts_with('#')) {
        if let Some(rest) = line.strip_prefix("# arena: ") {
            arena = rest.split(' ').next().and_then(|n| n.parse().ok());
        }
        if ["# ops (", "# input: ", "# output: ", "# op "]
            .iter()
            .any(|p| line.starts_with(p))
        {
            lines.push(line.to_owned());
        }
    }
    (lines, arena.expect("an arena line"))
}

fn rendered(model: &Model) -> Vec<String> {
    let names: Vec<&str> = model.operators.iter().map(|o| o.op.name()).collect();
    let mut lines = vec![format!("# ops ({}): {}", names.len(), names.join(" "))];
    assert_eq!(model.inputs.len(), 1, "the test models have one input");
    assert_eq!(model.outputs.len(), 1, "the test models have one output");
    lines.push(io_line(model, "input", model.inputs[0]));
    lines.push(io_line(model, "output", model.outputs[0]));
    lines.extend((0..model.operators.len()).map(|i| op_line(model, i)));
    lines
}

/// Reads `file`, compares it with `expected_name`'s header, plans it; returns a summary line.
fn check_model(file: &Path, expected_name: &str) -> String {
    let bytes = std::fs::read(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    let display = file.file_name().unwrap().to_string_lossy().into_owned();
    let model = Model::read(&bytes, &display).unwrap_or_else(|e| panic!("{e}"));
    let (want, tflm_arena) = expected(expected_name);
    let got = rendered(&model);
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(
            g, w,
            "{expected_name}: the reader disagrees with the header"
        );
    }
    assert_eq!(got.len(), want.len(), "{expected_name}: header line count");

    // Every constant's bytes are in the file, the right length; every int8 tensor is quantized.
    for t in &model.tensors {
        if t.is_constant() {
            assert_eq!(
                t.bytes(&bytes).map(<[u8]>::len),
                Some(t.byte_size()),
                "{}",
                t.name
            );
        }
        if t.dtype == shaped_tflite::DType::Int8 {
            assert!(t.quantization.is_some(), "{}", t.name);
        }
    }

    let plan = Plan::new(&model).unwrap();
    plan.verify(&model).unwrap();
    let with_io = Plan::with_options(&model, PlanOptions { include_io: true }).unwrap();
    with_io.verify(&model).unwrap();
    // The intermediate tensors alone must fit in less than TFLM's whole arena, which also
    // holds the input, the output and the interpreter's own structures.
    assert!(
        plan.arena_size <= tflm_arena,
        "{expected_name}: planned {} bytes, TFLM {tflm_arena}\n{}",
        plan.arena_size,
        plan.report(&model)
    );
    if expected_name == "speech" {
        print!("{}", plan.report(&model));
    }
    format!(
        "{expected_name:<22} TFLM arena {tflm_arena:>7} B | planned: intermediates {:>7} B, with input and output {:>7} B",
        plan.arena_size, with_io.arena_size
    )
}

#[test]
fn project_models() {
    let mut summary = Vec::new();
    for name in [
        "speech",
        "speech_f32",
        "person_detection",
        "vww",
        "kws",
        "anomaly",
        "resnet8",
        "ops",
        "ops_f32",
        "ops2",
        "ops2_f32",
    ] {
        let file = repo().join("tests/models").join(format!("{name}.tflite"));
        summary.push(check_model(&file, name));
    }
    println!("{}", summary.join("\n"));
}

#[test]
fn tflm_models() {
    let dir = repo().join("../shared/models");
    if !dir.is_dir() {
        println!(
            "skipped: {} is absent (TFLM's models are not in the repository)",
            dir.display()
        );
        return;
    }
    let mut summary = Vec::new();
    for name in ["sine", "speech", "person_detect"] {
        summary.push(check_model(
            &dir.join(format!("{name}.tflite")),
            &format!("shared_{name}"),
        ));
    }
    println!("{}", summary.join("\n"));
}
