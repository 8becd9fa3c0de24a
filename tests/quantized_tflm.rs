//! Quantized operations against TensorFlow Lite Micro itself (rules Q1-Q14): the expected
//! bytes in `tests/reference/tflm_<op>.{txt,bin}` were computed by TFLM's kernels through the
//! `tflite-micro` package (`tests/reference/tflm_elementwise.py`): ADD and MUL over 10^6
//! outputs each, SUB, MAXIMUM, MINIMUM, the six comparisons and QUANTIZE (int8 to int8 or
//! uint8, a requantization) over fewer. Random shapes of ranks 0-8 with broadcasting,
//! log-uniform scales in `[1e-4, 1]`, random zero points and activations, a quarter of the
//! cases with scales that are powers of two (ties in every rounding step), and for ADD and SUB
//! three sets of parameters, found by search, where deriving the multipliers in `f32` instead
//! of `f64` changes outputs, each over every pair of inputs (they show both ops derive in
//! `f64`, whatever some versions of TFLM's `sub_common.cc` say).
//!
//! Each case runs on the runtime path (`DynTensor`, NUMPY) and the mixed path (every dim
//! `Dyn`, both operands padded to the output's rank), and must give TFLM's bytes; a fixed set
//! of static shapes runs with every seventh case's parameters and must agree with the runtime
//! path.
#![cfg(feature = "alloc")]

use crate::tflm;
use tflm::{dims, params, q8, xorshift_bytes};

use shaped::bounds::BroadcastWith;
use shaped::quant::{
    Activation, QAdd, QCompare, QExtreme, QMul, QRequant, QSub, Quant, Quantized, Rounding,
};
use shaped::{AutoBroadcast, CompareOp, Dyn, DynTensor, Shape, StaticShape, Tensor};

#[derive(Clone, Debug)]
struct Case {
    a: Vec<usize>,
    b: Vec<usize>,
    out: Vec<usize>,
    qa: (f32, i32),
    qb: (f32, i32),
    qo: (f32, i32),
    activation: Activation,
    seed_a: u32,
    seed_b: u32,
    unsigned_out: bool,
    line: usize,
}

/// The cases of `tflm_<op>.txt` and the expected output bytes of each, from `tflm_<op>.bin`.
fn cases(op: &str) -> Vec<(Case, Vec<u8>)> {
    let (lines, bytes) = tflm::reference(op);
    let mut offset = 0;
    let mut out = Vec::new();
    for (line, f) in lines {
        assert_eq!(f.len(), 14, "{op}, line {line}");
        let case = Case {
            a: dims(&f[0]),
            b: dims(&f[1]),
            out: dims(&f[2]),
            qa: params(&f[3], &f[4]),
            qb: params(&f[5], &f[6]),
            qo: params(&f[7], &f[8]),
            activation: tflm::activation(&f[9]),
            seed_a: f[10].parse().unwrap(),
            seed_b: f[11].parse().unwrap(),
            unsigned_out: f[13] == "u8",
            line,
        };
        let n: usize = case.out.iter().product();
        out.push((case, bytes[offset..offset + n].to_vec()));
        offset += n;
    }
    assert_eq!(
        offset,
        bytes.len(),
        "{op}: the .bin holds more outputs than the cases"
    );
    out
}

/// What every path runs: the prepared operation, double rounding as TFLM's package.
#[derive(Clone, Copy)]
enum Op {
    Add(QAdd<i8>),
    Mul(QMul<i8>),
    Sub(QSub<i8>),
    Extreme(QExtreme<i8>),
    Compare(QCompare<i8>),
    ToI8(QRequant<i8, i8>),
    ToU8(QRequant<i8, u8>),
}

fn compare_op(name: &str) -> Option<CompareOp> {
    Some(match name {
        "equal" => CompareOp::Eq,
        "not_equal" => CompareOp::Ne,
        "less" => CompareOp::Lt,
        "less_equal" => CompareOp::Le,
        "greater" => CompareOp::Gt,
        "greater_equal" => CompareOp::Ge,
        _ => return None,
    })
}

fn bytes<T: Copy>(values: &[T], f: impl Fn(T) -> u8) -> Vec<u8> {
    values.iter().map(|&v| f(v)).collect()
}

impl Op {
    fn prepare(name: &str, c: &Case) -> Op {
        let (a, b, o, act, r) = (q8(c.qa), q8(c.qb), c.qo, c.activation, Rounding::Double);
        match name {
            "add" => Op::Add(QAdd::new(a, b, q8(o), act, r).unwrap()),
            "mul" => Op::Mul(QMul::new(a, b, q8(o), act, r).unwrap()),
            "sub" => Op::Sub(QSub::new(a, b, q8(o), act, r).unwrap()),
            "maximum" | "minimum" => Op::Extreme(QExtreme::new(a, b, name == "maximum").unwrap()),
            "requantize" if c.unsigned_out => {
                Op::ToU8(QRequant::new(a, Quant::new(o.0, o.1).unwrap(), r))
            }
            "requantize" => Op::ToI8(QRequant::new(a, q8(o), r)),
            _ => Op::Compare(QCompare::new(a, b, compare_op(name).unwrap(), r).unwrap()),
        }
    }

    /// The runtime path: two `DynTensor`s of the case's shapes.
    fn run_dyn(
        self,
        a: &Quantized<DynTensor<i8>, i8>,
        b: &Quantized<DynTensor<i8>, i8>,
    ) -> Vec<u8> {
        let m = AutoBroadcast::Numpy;
        let i8s = |r: Result<Quantized<DynTensor<i8>, i8>, shaped::Error>| {
            bytes(r.unwrap().values().as_slice(), |v| v as u8)
        };
        match self {
            Op::Add(op) => i8s(op.run_dyn(a, b, m)),
            Op::Mul(op) => i8s(op.run_dyn(a, b, m)),
            Op::Sub(op) => i8s(op.run_dyn(a, b, m)),
            Op::Extreme(op) => i8s(op.run_dyn(a, b, m)),
            Op::Compare(op) => bytes(op.run_dyn(a, b, m).unwrap().as_slice(), u8::from),
            Op::ToI8(op) => bytes(a.requantize(op.output()).values().as_slice(), |v| v as u8),
            Op::ToU8(op) => a.requantize(op.output()).values().as_slice().to_vec(),
        }
    }

    /// The typed path: `Tensor`s of shapes `SA` and `SB` (static or mixed).
    fn run_typed<SA, SB>(
        self,
        a: &Quantized<Tensor<i8, SA>, i8>,
        b: &Quantized<Tensor<i8, SB>, i8>,
    ) -> Vec<u8>
    where
        SA: BroadcastWith<SB> + shaped::bounds::Storable,
        SB: shaped::Shape,
    {
        match self {
            Op::Add(op) => bytes(op.run(a, b).unwrap().values().as_slice(), |v| v as u8),
            Op::Mul(op) => bytes(op.run(a, b).unwrap().values().as_slice(), |v| v as u8),
            Op::Sub(op) => bytes(op.run(a, b).unwrap().values().as_slice(), |v| v as u8),
            Op::Extreme(op) => bytes(op.run(a, b).unwrap().values().as_slice(), |v| v as u8),
            Op::Compare(op) => bytes(op.run(a, b).unwrap().as_slice(), u8::from),
            Op::ToI8(op) => bytes(a.requantize(op.output()).values().as_slice(), |v| v as u8),
            Op::ToU8(op) => a.requantize(op.output()).values().as_slice().to_vec(),
        }
    }
}

/// The mixed path: both operands as all-`Dyn` shapes of rank `S::RANK`.
fn run_mixed<S>(op: Op, a: (&[usize], &[i8], Quant<i8>), b: (&[usize], &[i8], Quant<i8>)) -> Vec<u8>
where
    S: BroadcastWith<S> + shaped::bounds::Storable,
{
    let ta = Tensor::<i8, S>::from_shape_vec(a.0, a.1.to_vec())
        .unwrap()
        .quantized(a.2);
    let tb = Tensor::<i8, S>::from_shape_vec(b.0, b.1.to_vec())
        .unwrap()
        .quantized(b.2);
    op.run_typed(&ta, &tb)
}

fn padded(dims: &[usize], rank: usize) -> Vec<usize> {
    let mut p = vec![1; rank - dims.len()];
    p.extend_from_slice(dims);
    p
}

fn mixed(op: Op, c: &Case, a: &[i8], b: &[i8]) -> Vec<u8> {
    let r = c.out.len();
    let (pa, pb) = (padded(&c.a, r), padded(&c.b, r));
    let (a, b) = ((&pa[..], a, q8(c.qa)), (&pb[..], b, q8(c.qb)));
    type D = Dyn;
    match r {
        0 => run_mixed::<()>(op, a, b),
        1 => run_mixed::<(D,)>(op, a, b),
        2 => run_mixed::<(D, D)>(op, a, b),
        3 => run_mixed::<(D, D, D)>(op, a, b),
        4 => run_mixed::<(D, D, D, D)>(op, a, b),
        5 => run_mixed::<(D, D, D, D, D)>(op, a, b),
        6 => run_mixed::<(D, D, D, D, D, D)>(op, a, b),
        7 => run_mixed::<(D, D, D, D, D, D, D)>(op, a, b),
        _ => run_mixed::<(D, D, D, D, D, D, D, D)>(op, a, b),
    }
}

fn check_op(name: &str, least: usize) {
    let cases = cases(name);
    let mut outputs = 0;
    for (c, expected) in &cases {
        let a = xorshift_bytes(c.seed_a, c.a.iter().product());
        let b = xorshift_bytes(c.seed_b, c.b.iter().product());
        let op = Op::prepare(name, c);
        let qa = DynTensor::from_shape_vec(&c.a[..], a.clone())
            .unwrap()
            .quantized(q8(c.qa));
        let qb = DynTensor::from_shape_vec(&c.b[..], b.clone())
            .unwrap()
            .quantized(q8(c.qb));
        let runtime = op.run_dyn(&qa, &qb);
        assert!(
            runtime == *expected,
            "{name}, line {}: runtime path differs from TFLM",
            c.line
        );
        // A requantization has one operand: the mixed path takes b as a scalar-shaped 1.
        let b = if name == "requantize" { vec![0] } else { b };
        let mut c = c.clone();
        if name == "requantize" {
            c.b = vec![];
        }
        let mixed = mixed(op, &c, &a, &b);
        assert!(
            mixed == *expected,
            "{name}, line {}: mixed path differs from TFLM",
            c.line
        );
        outputs += expected.len();
    }
    assert!(outputs >= least, "{name}: {outputs} outputs");
}

#[test]
fn int8_add_is_tflm_bit_for_bit_on_every_path() {
    check_op("add", 1_000_000);
}

#[test]
fn int8_mul_is_tflm_bit_for_bit_on_every_path() {
    check_op("mul", 1_000_000);
}

#[test]
fn int8_sub_is_tflm_bit_for_bit_on_every_path() {
    check_op("sub", 200_000);
}

#[test]
fn int8_maximum_and_minimum_are_tflm_bit_for_bit_on_every_path() {
    check_op("maximum", 50_000);
    check_op("minimum", 50_000);
}

#[test]
fn int8_comparisons_are_tflm_bit_for_bit_on_every_path() {
    for name in [
        "equal",
        "not_equal",
        "less",
        "less_equal",
        "greater",
        "greater_equal",
    ] {
        check_op(name, 50_000);
    }
}

#[test]
fn int8_requantization_is_tflm_bit_for_bit_on_every_path() {
    check_op("requantize", 100_000);
}

/// Static shapes (checked at compile time) with every seventh case's parameters agree with
/// the runtime path, which the tests above hold to TFLM's bytes.
fn static_agrees<SA, SB>(name: &str)
where
    SA: StaticShape + BroadcastWith<SB>,
    SB: StaticShape,
{
    for (c, _) in cases(name).iter().step_by(7) {
        let op = Op::prepare(name, c);
        let a = xorshift_bytes(c.seed_a, SA::LEN);
        let b = xorshift_bytes(c.seed_b, SB::LEN);
        let ta = Tensor::<i8, SA>::try_from(&a[..])
            .unwrap()
            .quantized(q8(c.qa));
        let tb = Tensor::<i8, SB>::try_from(&b[..])
            .unwrap()
            .quantized(q8(c.qb));
        let got = op.run_typed(&ta, &tb);
        let da = DynTensor::from_shape_vec(SA::DIMS, a)
            .unwrap()
            .quantized(q8(c.qa));
        let db = DynTensor::from_shape_vec(SB::DIMS, b)
            .unwrap()
            .quantized(q8(c.qb));
        assert_eq!(
            got,
            op.run_dyn(&da, &db),
            "{name}, line {}, {:?} with {:?}",
            c.line,
            SA::DIMS,
            SB::DIMS
        );
    }
}

#[test]
fn static_shapes_agree_with_the_runtime_path() {
    for name in [
        "add",
        "mul",
        "sub",
        "maximum",
        "less",
        "equal",
        "requantize",
    ] {
        static_agrees::<Shape![8, 16, 4, 4], Shape![16, 1, 1]>(name);
        static_agrees::<Shape![], Shape![5]>(name);
        static_agrees::<Shape![7, 1], Shape![1, 9]>(name);
        static_agrees::<Shape![2, 1, 3, 1, 2, 1, 2, 1], Shape![3, 1, 2, 1, 2, 3]>(name);
        static_agrees::<Shape![4, 0, 3], Shape![1, 3]>(name);
        static_agrees::<Shape![3, 5], Shape![3, 5]>(name);
    }
}
