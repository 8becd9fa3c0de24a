//! int8 ADD and MUL against TensorFlow Lite Micro itself (rules Q1-Q9): the expected bytes in
//! `tests/reference/tflm_{add,mul}.{txt,bin}` were computed by TFLM's kernels through the
//! `tflite-micro` package (`tests/reference/tflm_elementwise.py`), over 10^6 outputs per
//! operation: random shapes of ranks 0-8 with broadcasting, log-uniform scales in
//! `[1e-4, 1]`, random zero points and activations, and a quarter of the cases with scales
//! that are powers of two (ties in every rounding step).
//!
//! Each case runs on the runtime path (`DynTensor`, NUMPY) and the mixed path (every dim
//! `Dyn`, both operands padded to the output's rank), and must give TFLM's bytes; a fixed set
//! of static shapes runs with every case's parameters and must agree with the runtime path.
#![cfg(feature = "alloc")]

use shaped::quant::{Activation, QAdd, QMul, Quant, Quantized, Rounding};
use shaped::{AutoBroadcast, Dyn, DynTensor, Shape, Tensor};

/// The inputs of a case: xorshift32 (13, 17, 5) from `seed`, the low byte of each state.
fn xorshift_bytes(seed: u32, n: usize) -> Vec<i8> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8 as i8
        })
        .collect()
}

#[derive(Clone, Debug)]
struct Case {
    a: Vec<usize>,
    b: Vec<usize>,
    out: Vec<usize>,
    qa: Quant<i8>,
    qb: Quant<i8>,
    qo: Quant<i8>,
    activation: Activation,
    seed_a: u32,
    seed_b: u32,
    line: usize,
}

fn dims(text: &str) -> Vec<usize> {
    if text == "-" {
        return vec![];
    }
    text.split('x').map(|d| d.parse().unwrap()).collect()
}

fn quant(bits: &str, zero_point: &str) -> Quant<i8> {
    let scale = f32::from_bits(u32::from_str_radix(bits, 16).unwrap());
    Quant::new(scale, zero_point.parse().unwrap()).unwrap()
}

/// The cases of `tflm_<op>.txt` and the expected outputs of each, from `tflm_<op>.bin`.
fn cases(op: &str) -> Vec<(Case, Vec<i8>)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/reference/");
    let text = std::fs::read_to_string(format!("{dir}tflm_{op}.txt")).unwrap();
    let bytes = std::fs::read(format!("{dir}tflm_{op}.bin")).unwrap();
    let mut offset = 0;
    let mut out = Vec::new();
    for (line, row) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#'))
    {
        let f: Vec<&str> = row.split(' ').collect();
        assert_eq!(f.len(), 13, "line {}", line + 1);
        let case = Case {
            a: dims(f[0]),
            b: dims(f[1]),
            out: dims(f[2]),
            qa: quant(f[3], f[4]),
            qb: quant(f[5], f[6]),
            qo: quant(f[7], f[8]),
            activation: match f[9] {
                "none" => Activation::None,
                "relu" => Activation::Relu,
                "relu6" => Activation::Relu6,
                "relu_n1_to_1" => Activation::ReluN1To1,
                other => panic!("activation {other}"),
            },
            seed_a: f[10].parse().unwrap(),
            seed_b: f[11].parse().unwrap(),
            line: line + 1,
        };
        let n: usize = case.out.iter().product();
        let expected = bytes[offset..offset + n].iter().map(|&b| b as i8).collect();
        offset += n;
        out.push((case, expected));
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
}

impl Op {
    fn prepare(name: &str, c: &Case, rounding: Rounding) -> Op {
        match name {
            "add" => Op::Add(QAdd::new(c.qa, c.qb, c.qo, c.activation, rounding).unwrap()),
            _ => Op::Mul(QMul::new(c.qa, c.qb, c.qo, c.activation, rounding).unwrap()),
        }
    }

    fn run_dyn(
        self,
        a: &Quantized<DynTensor<i8>, i8>,
        b: &Quantized<DynTensor<i8>, i8>,
    ) -> Vec<i8> {
        let r = match self {
            Op::Add(op) => op.run_dyn(a, b, AutoBroadcast::Numpy),
            Op::Mul(op) => op.run_dyn(a, b, AutoBroadcast::Numpy),
        };
        r.unwrap().values().as_slice().to_vec()
    }
}

/// The mixed path: both operands as all-`Dyn` shapes of the output's rank.
fn run_mixed<S>(op: Op, a: (&[usize], &[i8], Quant<i8>), b: (&[usize], &[i8], Quant<i8>)) -> Vec<i8>
where
    S: shaped::bounds::BroadcastWith<S>,
{
    let ta = Tensor::<i8, S>::from_shape_vec(a.0, a.1.to_vec())
        .unwrap()
        .quantized(a.2);
    let tb = Tensor::<i8, S>::from_shape_vec(b.0, b.1.to_vec())
        .unwrap()
        .quantized(b.2);
    match op {
        Op::Add(op) => op.run(&ta, &tb).values().as_slice().to_vec(),
        Op::Mul(op) => op.run(&ta, &tb).values().as_slice().to_vec(),
    }
}

fn padded(dims: &[usize], rank: usize) -> Vec<usize> {
    let mut p = vec![1; rank - dims.len()];
    p.extend_from_slice(dims);
    p
}

fn mixed(op: Op, c: &Case, a: &[i8], b: &[i8]) -> Vec<i8> {
    let r = c.out.len();
    let (pa, pb) = (padded(&c.a, r), padded(&c.b, r));
    let (a, b) = ((&pa[..], a, c.qa), (&pb[..], b, c.qb));
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

fn check_op(name: &str) {
    let cases = cases(name);
    assert!(cases.len() > 1000, "{} cases", cases.len());
    let mut outputs = 0;
    for (c, expected) in &cases {
        let a = xorshift_bytes(c.seed_a, c.a.iter().product());
        let b = xorshift_bytes(c.seed_b, c.b.iter().product());
        let op = Op::prepare(name, c, Rounding::Double);
        let qa = DynTensor::from_shape_vec(&c.a[..], a.clone())
            .unwrap()
            .quantized(c.qa);
        let qb = DynTensor::from_shape_vec(&c.b[..], b.clone())
            .unwrap()
            .quantized(c.qb);
        let runtime = op.run_dyn(&qa, &qb);
        assert!(
            runtime == *expected,
            "{name}, line {}: runtime path differs from TFLM",
            c.line
        );
        let mixed = mixed(op, c, &a, &b);
        assert!(
            mixed == *expected,
            "{name}, line {}: mixed path differs from TFLM",
            c.line
        );
        outputs += expected.len();
    }
    assert!(outputs >= 1_000_000, "{outputs} outputs");
}

#[test]
fn int8_add_is_tflm_bit_for_bit_on_every_path() {
    check_op("add");
}

#[test]
fn int8_mul_is_tflm_bit_for_bit_on_every_path() {
    check_op("mul");
}

/// Static shapes (checked at compile time) with every case's parameters agree with the
/// runtime path, which the tests above hold to TFLM's bytes.
fn static_agrees<SA, SB>(name: &str)
where
    SA: shaped::StaticShape + shaped::bounds::BroadcastWith<SB>,
    SB: shaped::StaticShape,
{
    for (c, _) in cases(name).iter().step_by(7) {
        let op = Op::prepare(name, c, Rounding::Double);
        let a = xorshift_bytes(c.seed_a, SA::LEN);
        let b = xorshift_bytes(c.seed_b, SB::LEN);
        let ta = Tensor::<i8, SA>::try_from(&a[..]).unwrap().quantized(c.qa);
        let tb = Tensor::<i8, SB>::try_from(&b[..]).unwrap().quantized(c.qb);
        let got = match op {
            Op::Add(op) => op.run(&ta, &tb).values().as_slice().to_vec(),
            Op::Mul(op) => op.run(&ta, &tb).values().as_slice().to_vec(),
        };
        let da = DynTensor::from_shape_vec(SA::DIMS, a)
            .unwrap()
            .quantized(c.qa);
        let db = DynTensor::from_shape_vec(SB::DIMS, b)
            .unwrap()
            .quantized(c.qb);
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
    for name in ["add", "mul"] {
        static_agrees::<Shape![8, 16, 4, 4], Shape![16, 1, 1]>(name);
        static_agrees::<Shape![], Shape![5]>(name);
        static_agrees::<Shape![7, 1], Shape![1, 9]>(name);
        static_agrees::<Shape![2, 1, 3, 1, 2, 1, 2, 1], Shape![3, 1, 2, 1, 2, 3]>(name);
        static_agrees::<Shape![4, 0, 3], Shape![1, 3]>(name);
        static_agrees::<Shape![3, 5], Shape![3, 5]>(name);
    }
}
