//! Large elementwise work on x86 with `std` runs loops compiled for AVX2 when the CPU has them
//! (from 512 output elements). Every public path into those loops must give, bit for bit, what
//! the same operation gives one element at a time (rank-0 operands: always the baseline loops):
//! `binary_into`, `DynTensor`'s operations, the prepared plan, `+=`, comparisons, unary math,
//! closures. On a CPU without AVX2 both sides run the baseline loops and this checks nothing
//! new.
//!
//! One exception, by the language's rules rather than ours: where both operands are NaN, which
//! one's payload the result carries is unspecified in Rust (addition commutes for the code
//! generator), and vector and scalar code already chose differently before the AVX2 loops
//! existed. A NaN result is therefore only checked to be a NaN; every other bit is compared.

use crate::common;

use common::{reference, Lcg};
use shaped::primitive::{Alg, Binary, Eltwise, Layout, MemMut, MemRef, PostOp};
use shaped::runtime::{binary_into, ArrayRef, BinaryPlan};
use shaped::{AutoBroadcast, BinaryOp, CompareOp, DynTensor, Element};

/// Each inner-loop variant of the kernel, above the AVX2 threshold: (a, b) shapes.
const SHAPES: [(&[usize], &[usize]); 7] = [
    (&[40, 16], &[1, 16]), // rows of 16
    (&[80, 8], &[1, 8]),   // rows of 8
    (&[160, 4], &[1, 4]),  // rows of 4
    (&[24, 40], &[1, 40]), // rows of any length
    (&[30, 1], &[1, 37]),  // a is a scalar along each row (an outer sum)
    (&[37, 30], &[37, 1]), // b is a scalar along each row
    (&[3, 7, 37], &[37]),  // an odometer over two outer axes
];

const OPS: [BinaryOp; 10] = [
    BinaryOp::Add,
    BinaryOp::Sub,
    BinaryOp::Mul,
    BinaryOp::Div,
    BinaryOp::Rem,
    BinaryOp::FloorMod,
    BinaryOp::Maximum,
    BinaryOp::Minimum,
    BinaryOp::Pow,
    BinaryOp::SquaredDifference,
];

/// Element values with the cases where two vector widths could disagree: NaN payloads of both
/// signs, signed zeros, infinities, subnormals, the extremes.
fn floats(rng: &mut Lcg, n: usize) -> Vec<f32> {
    let specials = [
        f32::NAN,
        -f32::NAN,
        f32::from_bits(0x7fc0_1234),
        f32::from_bits(0xffa0_0001),
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1e-40,
        -1e-42,
        f32::MAX,
        f32::MIN_POSITIVE,
    ];
    (0..n)
        .map(|_| match rng.below(4) {
            0 => specials[rng.below(specials.len() as u64)],
            _ => (rng.below(20_000) as f32 - 10_000.0) / 37.0,
        })
        .collect()
}

/// Float operands of shapes `sa` and `sb`, as slices and as tensors.
fn operands(
    rng: &mut Lcg,
    sa: &[usize],
    sb: &[usize],
) -> (Vec<f32>, Vec<f32>, DynTensor<f32>, DynTensor<f32>) {
    let a = floats(rng, sa.iter().product());
    let b = floats(rng, sb.iter().product());
    let ta = DynTensor::from_shape_vec(sa, a.clone()).unwrap();
    let tb = DynTensor::from_shape_vec(sb, b.clone()).unwrap();
    (a, b, ta, tb)
}

/// `op` on one pair of elements, through rank-0 operands (the baseline loops).
fn one<T: Element + Copy>(x: T, y: T, op: BinaryOp) -> T {
    let mut out = [x];
    binary_into(
        ArrayRef::new(&[], &[x]).unwrap(),
        ArrayRef::new(&[], &[y]).unwrap(),
        op,
        AutoBroadcast::Numpy,
        &mut out,
    )
    .unwrap();
    out[0]
}

/// The bits of each element, every NaN as the one canonical NaN (see the module's note).
fn bits(v: &[f32]) -> Vec<u32> {
    v.iter()
        .map(|x| match x.is_nan() {
            true => f32::NAN.to_bits(),
            false => x.to_bits(),
        })
        .collect()
}

#[test]
fn float_operations_match_one_element_at_a_time() {
    let mut rng = Lcg(0x5eed_0001);
    for (sa, sb) in SHAPES {
        let (a, b, ta, tb) = operands(&mut rng, sa, sb);
        let plan = BinaryPlan::new(sa, sb, AutoBroadcast::Numpy).unwrap();
        for op in OPS {
            let (shape, want) = reference(&a, sa, &b, sb, |x, y| one(x, y, op));
            assert!(want.len() >= 512, "{sa:?}: below the AVX2 threshold");
            let what = format!("{sa:?} {op:?} {sb:?}");

            let mut out = vec![0.0f32; want.len()];
            binary_into(
                ArrayRef::new(sa, &a).unwrap(),
                ArrayRef::new(sb, &b).unwrap(),
                op,
                AutoBroadcast::Numpy,
                &mut out,
            )
            .unwrap();
            assert_eq!(bits(&out), bits(&want), "binary_into {what}");

            let t = ta.binary(&tb, op, AutoBroadcast::Numpy).unwrap();
            assert_eq!(t.shape(), &shape[..]);
            assert_eq!(bits(t.as_slice()), bits(&want), "DynTensor {what}");

            out.fill(0.0);
            plan.binary(&a, &b, op, &mut out).unwrap();
            assert_eq!(bits(&out), bits(&want), "BinaryPlan {what}");
        }
    }
}

#[test]
fn integer_operations_match_one_element_at_a_time() {
    let mut rng = Lcg(0x5eed_0002);
    for (sa, sb) in SHAPES {
        let a: Vec<i32> = (0..sa.iter().product())
            .map(|_| rng.next() as i32)
            .collect();
        // Divisors and exponents in 1..=9: no zero divisor, no negative exponent.
        let b: Vec<i32> = (0..sb.iter().product())
            .map(|_| 1 + rng.below(9) as i32)
            .collect();
        let (ta, tb) = (
            DynTensor::from_shape_vec(sa, a.clone()).unwrap(),
            DynTensor::from_shape_vec(sb, b.clone()).unwrap(),
        );
        for op in OPS {
            let (_, want) = reference(&a, sa, &b, sb, |x, y| one(x, y, op));
            let t = ta.binary(&tb, op, AutoBroadcast::Numpy).unwrap();
            assert_eq!(t.as_slice(), &want[..], "{sa:?} {op:?} {sb:?}");
        }
    }
}

/// `+=` and its kin run the in-place loops: `b` broadcast onto `a`, which keeps its shape.
#[test]
fn in_place_operations_match_one_element_at_a_time() {
    let mut rng = Lcg(0x5eed_0003);
    for (sa, sb) in SHAPES.into_iter().filter(|(sa, _)| sa[sa.len() - 1] != 1) {
        let a = floats(&mut rng, sa.iter().product());
        let b = floats(&mut rng, sb.iter().product());
        let tb = DynTensor::from_shape_vec(sb, b.clone()).unwrap();
        let mut t = DynTensor::from_shape_vec(sa, a.clone()).unwrap();
        t += &tb;
        let (_, want) = reference(&a, sa, &b, sb, |x, y| one(x, y, BinaryOp::Add));
        assert_eq!(bits(t.as_slice()), bits(&want), "{sa:?} += {sb:?}");
        t /= &tb;
        let (_, want) = reference(&want, sa, &b, sb, |x, y| one(x, y, BinaryOp::Div));
        assert_eq!(bits(t.as_slice()), bits(&want), "{sa:?} /= {sb:?}");
    }
}

#[test]
fn comparisons_unary_math_and_closures_match_one_element_at_a_time() {
    let mut rng = Lcg(0x5eed_0004);
    for (sa, sb) in SHAPES {
        let (a, b, ta, tb) = operands(&mut rng, sa, sb);
        for op in [CompareOp::Lt, CompareOp::Ge, CompareOp::Eq, CompareOp::Ne] {
            let got = ta.compare(&tb, op, AutoBroadcast::Numpy).unwrap();
            let scalar = |x: f32, y: f32| {
                let (x, y) = (DynTensor::scalar(x), DynTensor::scalar(y));
                x.compare(&y, op, AutoBroadcast::Numpy).unwrap().as_slice()[0]
            };
            let (_, want) = reference(&a, sa, &b, sb, scalar);
            assert_eq!(got.as_slice(), &want[..], "{sa:?} {op:?} {sb:?}");
        }
        // Unary math goes through the same kernel with a rank-0 second operand.
        let at = |f: fn(&DynTensor<f32>) -> DynTensor<f32>| -> Vec<u32> {
            let got = f(&ta);
            let want: Vec<f32> = a
                .iter()
                .map(|&x| f(&DynTensor::scalar(x)).as_slice()[0])
                .collect();
            assert_eq!(bits(got.as_slice()), bits(&want), "{sa:?}");
            bits(got.as_slice())
        };
        at(|t| t.relu());
        at(|t| t.exp());
        at(|t| t.clip(-3.0, 250.0));
        at(|t| t.gelu());
        // A closure of the caller's.
        let f = |x: &f32, y: &f32| x * y - (x + 1.5) / y;
        let got = ta.zip_with(&tb, AutoBroadcast::Numpy, f).unwrap();
        let (_, want) = reference(&a, sa, &b, sb, |x, y| f(&x, &y));
        assert_eq!(bits(got.as_slice()), bits(&want), "{sa:?} zip_with {sb:?}");
    }
}

/// One binary-primitive case: the algorithm and source scales, the post-op chain, the shapes of
/// the sources and of the binary post-ops' operand, and the destination's layout.
struct PrimitiveCase {
    alg: Alg,
    scales: Option<(f32, f32)>,
    chain: &'static [Step],
    src0: &'static [usize],
    src1: &'static [usize],
    operand: &'static [usize],
    dst_layout: Layout,
}

/// A post-op, with the binary one's operand left to the case.
#[derive(Clone, Copy)]
enum Step {
    Eltwise(Eltwise),
    Binary(Alg),
    Sum(f32),
}

/// The primitive of `case` on `src0` and `src1` into `dst`, its binary post-ops reading
/// `operand`.
fn primitive_into(
    case: &PrimitiveCase,
    src0: &MemRef<'_, f32>,
    src1: &MemRef<'_, f32>,
    operand: &MemRef<'_, f32>,
    dst: &mut MemMut<'_, f32>,
) {
    let mut prim = Binary::new(case.alg).runtime_checked();
    if let Some((s0, s1)) = case.scales {
        prim = prim.scales(s0, s1);
    }
    for step in case.chain {
        match *step {
            Step::Eltwise(e) => prim.push_post_op(PostOp::Eltwise(e)),
            Step::Binary(alg) => prim.push_post_op(PostOp::binary(alg, operand)),
            Step::Sum(scale) => prim.push_post_op(PostOp::Sum { scale }),
        }
    }
    prim.run_into(src0, src1, dst).unwrap();
}

/// The binary primitive's single pass (`run_into`, post-ops fused) takes the AVX2 loops from
/// 512 destination elements: each case against the same primitive run one element at a time
/// (one-element memories: the baseline loops). The cases cover the fused pair of the usual
/// bias-ReLU-scale chain, source scales, a sum post-op (the destination's old values), eltwise
/// steps, and a channels-last destination (written through the block buffer).
#[test]
fn binary_primitive_matches_one_element_at_a_time() {
    let cases = [
        PrimitiveCase {
            alg: Alg::Add,
            scales: None,
            chain: &[Step::Eltwise(Eltwise::Relu), Step::Binary(Alg::Mul)],
            src0: &[2, 16, 8, 8],
            src1: &[1, 16, 1, 1],
            operand: &[1, 16, 1, 1],
            dst_layout: Layout::RowMajor,
        },
        PrimitiveCase {
            alg: Alg::Sub,
            scales: Some((0.5, -3.0)),
            chain: &[
                Step::Binary(Alg::Maximum),
                Step::Eltwise(Eltwise::Abs),
                Step::Sum(0.75),
            ],
            src0: &[3, 1, 200],
            src1: &[3, 4, 1],
            operand: &[3, 4, 200],
            dst_layout: Layout::RowMajor,
        },
        PrimitiveCase {
            alg: Alg::Mul,
            scales: None,
            chain: &[
                Step::Eltwise(Eltwise::Square),
                Step::Binary(Alg::Add),
                Step::Eltwise(Eltwise::Sqrt),
            ],
            src0: &[2, 8, 6, 7],
            src1: &[2, 8, 6, 7],
            operand: &[1, 8, 1, 1],
            dst_layout: Layout::ChannelsLast,
        },
    ];
    let mut rng = Lcg(0x5eed_0005);
    for case in &cases {
        let dims = common::numpy_shape(case.src0, case.src1).unwrap();
        let n: usize = dims.iter().product();
        assert!(n >= 512, "{dims:?}: below the AVX2 threshold");
        let (a, b, c) = (
            floats(&mut rng, case.src0.iter().product()),
            floats(&mut rng, case.src1.iter().product()),
            floats(&mut rng, case.operand.iter().product()),
        );
        let old = floats(&mut rng, n);
        let mut got = old.clone();
        primitive_into(
            case,
            &MemRef::new(case.src0, &a, Layout::RowMajor).unwrap(),
            &MemRef::new(case.src1, &b, Layout::RowMajor).unwrap(),
            &MemRef::new(case.operand, &c, Layout::RowMajor).unwrap(),
            &mut MemMut::new(&dims, &mut got, case.dst_layout).unwrap(),
        );
        // The destination read back in its own layout, index by index, against one element.
        let view = MemRef::new(&dims, &got, case.dst_layout).unwrap();
        let old_view = MemRef::new(&dims, &old, case.dst_layout).unwrap();
        let mut checked = 0;
        for index in common::indices(&dims) {
            let (x, y, z) = (
                [common::read_broadcast(&a, case.src0, &index)],
                [common::read_broadcast(&b, case.src1, &index)],
                [common::read_broadcast(&c, case.operand, &index)],
            );
            let mut want = [*old_view.get(&index).unwrap()];
            primitive_into(
                case,
                &MemRef::new([1], &x, Layout::RowMajor).unwrap(),
                &MemRef::new([1], &y, Layout::RowMajor).unwrap(),
                &MemRef::new([1], &z, Layout::RowMajor).unwrap(),
                &mut MemMut::new([1], &mut want, Layout::RowMajor).unwrap(),
            );
            let got = *view.get(&index).unwrap();
            assert_eq!(bits(&[got]), bits(&want), "{:?} at {index:?}", case.alg);
            checked += 1;
        }
        assert_eq!(checked, n);
    }
}
