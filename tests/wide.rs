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

mod common;

use common::{reference, Lcg};
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
