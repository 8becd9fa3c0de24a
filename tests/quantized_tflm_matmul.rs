//! Quantized products against TensorFlow Lite Micro itself (rules Q17, Q18): the expected bytes
//! in `tests/reference/tflm_{fully_connected,fully_connected_per_channel,batch_matmul}.{txt,bin}`
//! were computed by TFLM's kernels through the `tflite-micro` package
//! (`tests/reference/tflm_matmul.py`): FULLY_CONNECTED with per-tensor weights over 2x10^5
//! outputs and per-channel weights over 10^5 (random `[.., in]` inputs of rank 2 and 3, `in`
//! up to 64, up to 40 outputs, biases or none, every activation), BATCH_MATMUL over 10^5 (batch
//! dims of rank 0-2 broadcast, a rank-2 operand against a batched one).
//!
//! Each case runs on the runtime path (`DynTensor`) and the mixed path (every dim `Dyn`, or
//! the weights' output dim static for per-channel weights), and must give TFLM's bytes; static
//! shapes run with the parameters of every seventh case and must agree with the runtime path.
#![cfg(feature = "alloc")]

use crate::tflm;

use shaped::quant::{PerAxis, QMatMul, QMatMulPerChannel, Quantized, Rounding};
use shaped::rules::MatMulOptions;
use shaped::{Const, Dyn, DynTensor, Shape, Tensor};
use tflm::{activation, dims, params, q8, scale, xorshift_bytes};

/// One FULLY_CONNECTED case.
#[derive(Clone, Debug)]
struct Fc {
    x: Vec<usize>,
    w: Vec<usize>,
    qx: (f32, i32),
    w_scales: Vec<f32>,
    qo: (f32, i32),
    activation: shaped::quant::Activation,
    seed_x: u32,
    seed_w: u32,
    bias: Option<Vec<i32>>,
    line: usize,
}

fn fc_cases(op: &str) -> Vec<(Fc, Vec<i8>)> {
    let (lines, bytes) = tflm::reference(op);
    let mut offset = 0;
    let mut out = Vec::new();
    for (line, f) in lines {
        assert_eq!(f.len(), 13, "{op}, line {line}");
        let case = Fc {
            x: dims(&f[0]),
            w: dims(&f[1]),
            qx: params(&f[3], &f[4]),
            w_scales: f[5].split(',').map(scale).collect(),
            qo: params(&f[7], &f[8]),
            activation: activation(&f[9]),
            seed_x: f[10].parse().unwrap(),
            seed_w: f[11].parse().unwrap(),
            bias: (f[12] != "-").then(|| f[12].split(',').map(|v| v.parse().unwrap()).collect()),
            line,
        };
        assert_eq!(f[6], "0", "line {line}: weights are symmetric");
        let n: usize = dims(&f[2]).iter().product();
        let expected = bytes[offset..offset + n].iter().map(|&b| b as i8).collect();
        out.push((case, expected));
        offset += n;
    }
    assert_eq!(offset, bytes.len(), "{op}: more outputs than cases");
    out
}

impl Fc {
    fn inputs(&self) -> (Vec<i8>, Vec<i8>) {
        let count = |d: &[usize]| d.iter().product();
        (
            xorshift_bytes(self.seed_x, count(&self.x)),
            xorshift_bytes(self.seed_w, count(&self.w)),
        )
    }

    fn per_tensor(&self) -> QMatMul<i8> {
        let qw = q8((self.w_scales[0], 0));
        QMatMul::new(
            q8(self.qx),
            qw,
            q8(self.qo),
            self.activation,
            Rounding::Double,
        )
        .unwrap()
    }
}

/// The runtime path and the mixed path (rank 2 or 3, every dim `Dyn`) of a per-tensor case.
fn run_per_tensor(case: &Fc) -> (Vec<i8>, Vec<i8>) {
    let op = case.per_tensor();
    let (qx, qw) = op.inputs();
    let (x, w) = case.inputs();
    let bias = case.bias.as_deref();
    let xd = DynTensor::from_shape_vec(&case.x[..], x.clone())
        .unwrap()
        .quantized(qx);
    let wd = DynTensor::from_shape_vec(&case.w[..], w.clone())
        .unwrap()
        .quantized(qw);
    let runtime = op.fully_connected_dyn(&xd, &wd, bias).unwrap();
    let wm = Tensor::<i8, Shape![_, _]>::from_shape_vec(&case.w[..], w)
        .unwrap()
        .quantized(qw);
    let mixed = match case.x.len() {
        2 => {
            let xm = Tensor::<i8, Shape![_, _]>::from_shape_vec(&case.x[..], x).unwrap();
            let y = op.fully_connected(&xm.quantized(qx), &wm, bias).unwrap();
            y.values().as_slice().to_vec()
        }
        _ => {
            let xm = Tensor::<i8, Shape![_, _, _]>::from_shape_vec(&case.x[..], x).unwrap();
            let y = op.fully_connected(&xm.quantized(qx), &wm, bias).unwrap();
            y.values().as_slice().to_vec()
        }
    };
    (runtime.values().as_slice().to_vec(), mixed)
}

#[test]
fn q17_fully_connected_per_tensor_is_tflm_s() {
    let cases = fc_cases("fully_connected");
    assert!(cases.len() > 2000);
    for (case, want) in &cases {
        let (runtime, mixed) = run_per_tensor(case);
        assert_eq!(runtime, *want, "runtime, line {}: {case:?}", case.line);
        assert_eq!(mixed, *want, "mixed, line {}", case.line);
    }
}

/// Static shapes: `[3, 24] x [10, 24]^T` with the parameters of every seventh case, against the
/// runtime path on the same inputs.
#[test]
fn q17_static_fully_connected_agrees_with_the_runtime_path() {
    let mut checked = 0;
    for (case, _) in fc_cases("fully_connected").iter().step_by(7) {
        let op = case.per_tensor();
        let (qx, qw) = op.inputs();
        let x = xorshift_bytes(case.seed_x, 72);
        let w = xorshift_bytes(case.seed_w, 240);
        let bias: Option<Vec<i32>> = case
            .bias
            .as_ref()
            .map(|b| b.iter().cycle().take(10).copied().collect());
        let xs = Tensor::<i8, Shape![3, 24]>::try_from(&x[..])
            .unwrap()
            .quantized(qx);
        let ws = Tensor::<i8, Shape![10, 24]>::try_from(&w[..])
            .unwrap()
            .quantized(qw);
        let y = op.fully_connected(&xs, &ws, bias.as_deref()).unwrap();
        let mut into = Tensor::<i8, Shape![3, 10]>::zeros();
        op.fully_connected_into(&xs, &ws, bias.as_deref(), &mut into)
            .unwrap();
        let xd = DynTensor::from_shape_vec([3, 24], x).unwrap().quantized(qx);
        let wd = DynTensor::from_shape_vec([10, 24], w)
            .unwrap()
            .quantized(qw);
        let runtime = op.fully_connected_dyn(&xd, &wd, bias.as_deref()).unwrap();
        assert_eq!(
            y.values().as_slice(),
            runtime.values().as_slice(),
            "line {}",
            case.line
        );
        assert_eq!(
            into.as_slice(),
            runtime.values().as_slice(),
            "line {}",
            case.line
        );
        checked += 1;
    }
    assert!(checked > 300);
}

/// The per-channel case through the runtime path, the mixed path (the weights' output dim
/// static, as a per-channel product needs) and, for rank-2 inputs of the first few cases of each
/// width, a static path.
macro_rules! per_channel {
    ($case:expr, $($n:literal)*) => {
        match $case.w[0] {
            $($n => {
                let case = $case;
                let scales: [f32; $n] = case.w_scales.clone().try_into().unwrap();
                let zeros = [0i32; $n];
                let pw = PerAxis::<i8, $n>::new(&scales, &zeros).unwrap();
                let op = QMatMulPerChannel::new(
                    q8(case.qx),
                    pw,
                    q8(case.qo),
                    case.activation,
                    Rounding::Double,
                )
                .unwrap();
                let qx = op.inputs().0;
                let (x, w) = case.inputs();
                let bias = case.bias.as_deref();
                let xd = DynTensor::from_shape_vec(&case.x[..], x.clone()).unwrap().quantized(qx);
                let wd = DynTensor::from_shape_vec(&case.w[..], w.clone())
                    .unwrap()
                    .try_quantized_per_axis(0, pw)
                    .unwrap();
                let runtime = op.fully_connected_dyn(&xd, &wd, bias).unwrap();
                let wm = Tensor::<i8, (Const<$n>, Dyn)>::from_shape_vec(&case.w[..], w)
                    .unwrap()
                    .quantized_per_axis::<0, $n>(pw);
                let mixed = match case.x.len() {
                    2 => {
                        let xm = Tensor::<i8, Shape![_, _]>::from_shape_vec(&case.x[..], x).unwrap();
                        let y = op.fully_connected(&xm.quantized(qx), &wm, bias).unwrap();
                        y.values().as_slice().to_vec()
                    }
                    _ => {
                        let xm = Tensor::<i8, Shape![_, _, _]>::from_shape_vec(&case.x[..], x).unwrap();
                        let y = op.fully_connected(&xm.quantized(qx), &wm, bias).unwrap();
                        y.values().as_slice().to_vec()
                    }
                };
                (runtime.values().as_slice().to_vec(), mixed)
            })*
            other => panic!("no per-channel test of {other} columns"),
        }
    };
}

#[test]
fn q18_fully_connected_per_channel_is_tflm_s() {
    let cases = fc_cases("fully_connected_per_channel");
    assert!(cases.len() > 1000);
    let mut widths = std::collections::BTreeSet::new();
    for (case, want) in &cases {
        let (runtime, mixed) = per_channel!(case, 1 3 8 16 33);
        assert_eq!(runtime, *want, "runtime, line {}: {case:?}", case.line);
        assert_eq!(mixed, *want, "mixed, line {}", case.line);
        widths.insert(case.w[0]);
    }
    assert_eq!(widths.len(), 5, "every width of the generator");
}

/// A static per-channel product: `[4, 16] x [8, 16]^T` with each per-channel case of 8
/// columns, against the runtime path; and into a caller's tensor.
#[test]
fn q18_static_per_channel_agrees_with_the_runtime_path() {
    let mut checked = 0;
    for (case, _) in fc_cases("fully_connected_per_channel")
        .iter()
        .filter(|(c, _)| c.w[0] == 8)
    {
        let scales: [f32; 8] = case.w_scales.clone().try_into().unwrap();
        let zeros = [0i32; 8];
        let pw = PerAxis::<i8, 8>::new(&scales, &zeros).unwrap();
        let op = QMatMulPerChannel::new(
            q8(case.qx),
            pw,
            q8(case.qo),
            case.activation,
            Rounding::Double,
        )
        .unwrap();
        let qx = op.inputs().0;
        let x = xorshift_bytes(case.seed_x, 64);
        let w = xorshift_bytes(case.seed_w, 128);
        let bias = case.bias.as_deref();
        let xs = Tensor::<i8, Shape![4, 16]>::try_from(&x[..])
            .unwrap()
            .quantized(qx);
        let ws = Tensor::<i8, Shape![8, 16]>::try_from(&w[..])
            .unwrap()
            .quantized_per_axis::<0, 8>(pw);
        let y = op.fully_connected(&xs, &ws, bias).unwrap();
        let mut into = Tensor::<i8, Shape![4, 8]>::zeros();
        op.fully_connected_into(&xs, &ws, bias, &mut into).unwrap();
        let xd = DynTensor::from_shape_vec([4, 16], x).unwrap().quantized(qx);
        let wd = DynTensor::from_shape_vec([8, 16], w)
            .unwrap()
            .try_quantized_per_axis(0, pw)
            .unwrap();
        let runtime = op.fully_connected_dyn(&xd, &wd, bias).unwrap();
        assert_eq!(
            y.values().as_slice(),
            runtime.values().as_slice(),
            "line {}",
            case.line
        );
        assert_eq!(
            into.as_slice(),
            runtime.values().as_slice(),
            "line {}",
            case.line
        );
        checked += 1;
    }
    assert!(checked > 100, "{checked}");
}

#[test]
fn q17_batch_matmul_is_tflm_s() {
    let (lines, bytes) = tflm::reference("batch_matmul");
    let mut offset = 0;
    let mut ranks = std::collections::BTreeSet::new();
    for (line, f) in &lines {
        let (sa, sb, so) = (dims(&f[0]), dims(&f[1]), dims(&f[2]));
        let (qa, qb, qo) = (
            params(&f[3], &f[4]),
            params(&f[5], &f[6]),
            params(&f[7], &f[8]),
        );
        let op = QMatMul::new(q8(qa), q8(qb), q8(qo), activation(&f[9]), Rounding::Double).unwrap();
        let (seed_a, seed_b) = (f[10].parse().unwrap(), f[11].parse().unwrap());
        let a = xorshift_bytes(seed_a, sa.iter().product());
        let b = xorshift_bytes(seed_b, sb.iter().product());
        let n: usize = so.iter().product();
        let want: Vec<i8> = bytes[offset..offset + n].iter().map(|&v| v as i8).collect();
        offset += n;
        let ad = DynTensor::from_shape_vec(&sa[..], a.clone())
            .unwrap()
            .quantized(op.inputs().0);
        let bd = DynTensor::from_shape_vec(&sb[..], b.clone())
            .unwrap()
            .quantized(op.inputs().1);
        let runtime = op.matmul_dyn(&ad, &bd, MatMulOptions::default()).unwrap();
        assert_eq!(runtime.values().shape(), &so[..], "line {line}");
        assert_eq!(
            runtime.values().as_slice(),
            &want[..],
            "runtime, line {line}"
        );
        // The mixed path, both operands padded to rank 4 with 1s (a batch of 1 broadcasts).
        let pad = |s: &[usize]| {
            let mut p = vec![1; 4 - s.len()];
            p.extend_from_slice(s);
            p
        };
        let am = Tensor::<i8, Shape![_, _, _, _]>::from_shape_vec(pad(&sa), a).unwrap();
        let bm = Tensor::<i8, Shape![_, _, _, _]>::from_shape_vec(pad(&sb), b).unwrap();
        let mixed: Quantized<_, i8> = op
            .matmul(&am.quantized(op.inputs().0), &bm.quantized(op.inputs().1))
            .unwrap();
        assert_eq!(mixed.values().as_slice(), &want[..], "mixed, line {line}");
        ranks.insert((sa.len(), sb.len()));
    }
    assert_eq!(offset, bytes.len());
    assert!(lines.len() > 2000 && ranks.len() >= 6, "{ranks:?}");
}

/// Per-channel weights whose count is known only at run time (`DynQMatMulPerChannel`, a model
/// read at run time): every per-channel case, TFLM's bytes; and the errors of weights of
/// another count or quantized along the other axis.
#[test]
fn q18_runtime_counted_per_channel_is_tflm_s() {
    use shaped::quant::{DynPerAxis, DynQMatMulPerChannel};
    for (case, want) in &fc_cases("fully_connected_per_channel") {
        let zeros = vec![0i32; case.w_scales.len()];
        let pw = DynPerAxis::<i8>::new(&case.w_scales, &zeros).unwrap();
        let op = DynQMatMulPerChannel::new(
            q8(case.qx),
            pw,
            q8(case.qo),
            case.activation,
            Rounding::Double,
        )
        .unwrap();
        let (x, w) = case.inputs();
        let xd = DynTensor::from_shape_vec(&case.x[..], x)
            .unwrap()
            .quantized(op.inputs().0);
        let wd = DynTensor::from_shape_vec(&case.w[..], w)
            .unwrap()
            .try_quantized_per_axis(0, pw)
            .unwrap();
        let y = op
            .fully_connected_dyn(&xd, &wd, case.bias.as_deref())
            .unwrap();
        assert_eq!(y.values().as_slice(), &want[..], "line {}", case.line);
    }
    let scales = [0.5f32, 0.25];
    let pw = DynPerAxis::<i8>::new(&scales, &[0, 0]).unwrap();
    let q = q8((1.0, 0));
    let op = DynQMatMulPerChannel::new(q, pw, q, shaped::quant::Activation::None, Rounding::Double)
        .unwrap();
    let x = DynTensor::from_shape_vec([1, 2], vec![1i8, 1])
        .unwrap()
        .quantized(q);
    let along_in = DynTensor::from_shape_vec([2, 2], vec![1i8; 4])
        .unwrap()
        .try_quantized_per_axis(1, pw)
        .unwrap();
    assert_eq!(
        op.fully_connected_dyn(&x, &along_in, None)
            .unwrap_err()
            .to_string(),
        "invalid quantization: the operands' scales or zero points are not the ones the \
         operation was prepared for (Q1)"
    );
    let bad = DynPerAxis::<i8>::new(&scales, &[0, 3]).unwrap();
    assert_eq!(
        DynQMatMulPerChannel::new(q, bad, q, shaped::quant::Activation::None, Rounding::Double)
            .unwrap_err()
            .to_string(),
        "invalid quantization: the weights of output column 1 have the zero point 3; \
         per-channel weights are symmetric, every zero point 0 (Q18)"
    );
}
