//! Feature `half`: `f16` and `bf16` elements give, on every path, the `f32` computation of the
//! widened values rounded once; the binary primitive rounds once after its whole chain.

use half::{bf16, f16};
use shaped::primitive::{Alg, Binary, Eltwise, Layout, MemMut, MemRef, PostOp};
use shaped::runtime::{binary_into, ArrayRef};
use shaped::{AutoBroadcast, BinaryOp, DynTensor, Real, Shape, Tensor};

/// Values that exercise rounding: fractions, large and small magnitudes, signs, a zero.
fn values(n: usize, seed: u32) -> Vec<f32> {
    let mut x = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
    (0..n)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let v = (x % 20_000) as f32 / 997.0 - 10.0;
            if i % 11 == 0 {
                0.0
            } else {
                v
            }
        })
        .collect()
}

fn bits<T: Real<Compute = f32>>(xs: &[T]) -> Vec<f32> {
    xs.iter().map(|x| x.to_compute()).collect()
}

/// The check for one element type: `narrow(f32 op of widened values) == narrow op`.
macro_rules! elementwise_checks {
    ($name:ident, $t:ty) => {
        #[test]
        fn $name() {
            let a32: Vec<f32> = values(24, 1);
            let b32: Vec<f32> = values(4, 2).into_iter().map(|x| x + 0.5).collect();
            let a: Vec<$t> = a32.iter().map(|&x| <$t>::from_f32(x)).collect();
            let b: Vec<$t> = b32.iter().map(|&x| <$t>::from_f32(x)).collect();
            // The widened values, which the reference computes on in f32.
            let aw: Vec<f32> = a.iter().map(|x| x.to_f32()).collect();
            let bw: Vec<f32> = b.iter().map(|x| x.to_f32()).collect();

            let ops: [(BinaryOp, fn(f32, f32) -> f32); 6] = [
                (BinaryOp::Add, |x, y| x + y),
                (BinaryOp::Sub, |x, y| x - y),
                (BinaryOp::Mul, |x, y| x * y),
                (BinaryOp::Div, |x, y| x / y),
                (BinaryOp::Maximum, f32::max),
                (BinaryOp::SquaredDifference, |x, y| (x - y) * (x - y)),
            ];
            for (op, f) in ops {
                // [6, 4] op [4]: the reference, rounded once.
                let expected: Vec<$t> = (0..24)
                    .map(|i| <$t>::from_f32(f(aw[i], bw[i % 4])))
                    .collect();
                let da = DynTensor::from_shape_vec([6, 4], a.clone()).unwrap();
                let db = DynTensor::from_shape_vec([4], b.clone()).unwrap();
                let got = da.binary(&db, op, AutoBroadcast::Numpy).unwrap();
                assert_eq!(got.as_slice(), &expected[..], "{op:?} DynTensor");
                let mut out = vec![<$t>::ZERO; 24];
                binary_into(
                    ArrayRef::new(&[6, 4], &a).unwrap(),
                    ArrayRef::new(&[4], &b).unwrap(),
                    op,
                    AutoBroadcast::Numpy,
                    &mut out,
                )
                .unwrap();
                assert_eq!(out, expected, "{op:?} binary_into");
            }
            // Static operators and methods agree.
            let sa = Tensor::<$t, Shape![6, 4]>::try_from(&a[..]).unwrap();
            let sb = Tensor::<$t, Shape![4]>::try_from(&b[..]).unwrap();
            let sum: Vec<$t> = (0..24).map(|i| <$t>::from_f32(aw[i] + bw[i % 4])).collect();
            assert_eq!((&sa + &sb).as_slice(), &sum[..]);
            let prod: Vec<$t> = (0..24).map(|i| <$t>::from_f32(aw[i] * bw[i % 4])).collect();
            assert_eq!((&sa * &sb).as_slice(), &prod[..]);
            let mixed = Tensor::<$t, Shape![_, 4]>::from_shape_vec([6, 4], a.clone()).unwrap();
            assert_eq!(mixed.try_add(&sb).unwrap().as_slice(), &sum[..]);
            let two = <$t>::from_f32(2.0);
            let scaled: Vec<$t> = aw.iter().map(|&x| <$t>::from_f32(x * 2.0)).collect();
            assert_eq!((&sa * two).as_slice(), &scaled[..]);
            let neg: Vec<$t> = aw.iter().map(|&x| <$t>::from_f32(-x)).collect();
            assert_eq!((-sa).as_slice(), &neg[..]);
            // Comparisons read the values exactly.
            let gt: Vec<bool> = (0..24).map(|i| aw[i] > bw[i % 4]).collect();
            assert_eq!(sa.gt(&sb).as_slice(), &gt[..]);
            assert_eq!(bits(sa.as_slice()), aw);
        }
    };
}

elementwise_checks!(f16_elementwise_ops_round_once, f16);
elementwise_checks!(bf16_elementwise_ops_round_once, bf16);

macro_rules! unary_checks {
    ($name:ident, $t:ty) => {
        #[test]
        fn $name() {
            let a: Vec<$t> = values(32, 3)
                .iter()
                .map(|&x| <$t>::from_f32(x / 3.0))
                .collect();
            let t = Tensor::<$t, Shape![4, 8]>::try_from(&a[..]).unwrap();
            let w = t.map(|x| x.to_f32());
            let round = |x: Tensor<f32, Shape![4, 8]>| x.map(|&v| <$t>::from_f32(v));
            // Each function of the f32 tensor, rounded once, is the function of the narrow one.
            assert_eq!(t.exp(), round(w.exp()));
            assert_eq!(t.tanh(), round(w.tanh()));
            assert_eq!(t.sigmoid(), round(w.sigmoid()));
            assert_eq!(t.gelu(), round(w.gelu()));
            assert_eq!(t.gelu_tanh(), round(w.gelu_tanh()));
            assert_eq!(t.erf(), round(w.erf()));
            assert_eq!(t.relu(), round(w.relu()));
            assert_eq!(t.abs(), round(w.abs()));
            assert_eq!(t.abs().sqrt(), round(w.abs().sqrt()));
            assert_eq!(t.abs().ln(), round(w.abs().ln()));
            let p = t.abs().pow(&t.map(|_| <$t>::from_f32(1.5)));
            assert_eq!(p, round(w.abs().pow(&w.map(|_| 1.5))));
        }
    };
}

unary_checks!(f16_unary_math_rounds_once, f16);
unary_checks!(bf16_unary_math_rounds_once, bf16);

/// `gelu(relu(1.25 a - 0.75 b) * c + 0.5 dst)` through the primitive, `b` broadcast per channel.
fn run<T: Real>(dims: [usize; 4], layout: Layout, a: &[T], b: &[T], c: &[T], dst: &mut [T]) {
    let ma = MemRef::new(dims, a, layout).unwrap();
    let mb = MemRef::new([1, 3, 1, 1], b, layout).unwrap();
    let mc = MemRef::new(dims, c, layout).unwrap();
    let mut md = MemMut::new(dims, dst, layout).unwrap();
    Binary::new(Alg::Add)
        .scales(1.25, -0.75)
        .post_op(Eltwise::Relu)
        .post_op(PostOp::binary(Alg::Mul, &mc))
        .post_op(PostOp::Sum { scale: 0.5 })
        .post_op(Eltwise::GeluTanh)
        .run_into(&ma, &mb, &mut md)
        .unwrap();
}

/// The primitive: `relu(s0 * a + s1 * b) * c + 0.5 * dst`, in both layouts, every step in f32
/// and one rounding at the store; the f32 primitive on the widened values, rounded, is the
/// reference.
macro_rules! primitive_checks {
    ($name:ident, $t:ty) => {
        #[test]
        fn $name() {
            let dims = [2, 3, 4, 5];
            let n = 120;
            let narrow =
                |v: Vec<f32>| -> Vec<$t> { v.iter().map(|&x| <$t>::from_f32(x)).collect() };
            let a = narrow(values(n, 4));
            let b = narrow(values(3, 5));
            let c = narrow(values(n, 6));
            let old = narrow(values(n, 7));
            let wide = |v: &[$t]| -> Vec<f32> { v.iter().map(|x| x.to_f32()).collect() };
            for layout in [Layout::RowMajor, Layout::ChannelsLast] {
                let mut got = old.clone();
                run(dims, layout, &a, &b, &c, &mut got);
                let mut reference = wide(&old);
                run(
                    dims,
                    layout,
                    &wide(&a),
                    &wide(&b),
                    &wide(&c),
                    &mut reference,
                );
                assert_eq!(got, narrow(reference), "{layout:?}");
            }
            // A lone eltwise and algorithm, too.
            let x = <$t>::from_f32(0.3);
            assert_eq!(
                Eltwise::GeluTanh.apply(x),
                <$t>::from_f32(Eltwise::GeluTanh.apply(x.to_f32()))
            );
            assert_eq!(
                Alg::Div.apply(x, <$t>::from_f32(3.0)),
                <$t>::from_f32(x.to_f32() / <$t>::from_f32(3.0).to_f32())
            );
        }
    };
}

primitive_checks!(f16_binary_primitive_rounds_once_after_the_chain, f16);
primitive_checks!(bf16_binary_primitive_rounds_once_after_the_chain, bf16);

/// Mixed data types in one call (`run_mixed_into`, f32 computation): an `f16` source, an `i8`
/// source and a `bf16` destination give the `f32` primitive's values on the widened sources,
/// rounded once to `bf16`; an `f32` destination gets them unrounded.
#[test]
fn mixed_data_types_load_exactly_and_round_once() {
    let dims = [2, 3, 4, 5];
    let a: Vec<f16> = values(120, 8).iter().map(|&x| f16::from_f32(x)).collect();
    let b: Vec<i8> = (0..3).map(|i| i * 37 - 50).collect();
    let ma = MemRef::new(dims, &a, Layout::RowMajor).unwrap();
    let mb = MemRef::new([1, 3, 1, 1], &b, Layout::RowMajor).unwrap();
    let prim = Binary::new(Alg::Mul)
        .scales(0.5, 0.01)
        .post_op(Eltwise::Tanh);
    let mut wide = vec![0f32; 120];
    prim.run_mixed_into(
        &ma,
        &mb,
        &mut MemMut::new(dims, &mut wide, Layout::RowMajor).unwrap(),
    )
    .unwrap();
    let mut narrow = vec![bf16::ZERO; 120];
    prim.run_mixed_into(
        &ma,
        &mb,
        &mut MemMut::new(dims, &mut narrow, Layout::RowMajor).unwrap(),
    )
    .unwrap();
    let (fa, fb): (Vec<f32>, Vec<f32>) = (
        a.iter().map(|x| x.to_f32()).collect(),
        b.iter().map(|&x| x as f32).collect(),
    );
    let mut reference = vec![0f32; 120];
    prim.run_into(
        &MemRef::new(dims, &fa, Layout::RowMajor).unwrap(),
        &MemRef::new([1, 3, 1, 1], &fb, Layout::RowMajor).unwrap(),
        &mut MemMut::new(dims, &mut reference, Layout::RowMajor).unwrap(),
    )
    .unwrap();
    assert_eq!(wide, reference);
    let rounded: Vec<bf16> = reference.iter().map(|&x| bf16::from_f32(x)).collect();
    assert_eq!(narrow, rounded);
    assert!(wide
        .iter()
        .any(|&x| x != 0.0 && bf16::from_f32(x).to_f32() != x));
}

#[test]
fn half_floats_as_bytes_and_in_serde() {
    let t = Tensor::<f16, Shape![2]>::from([f16::from_f32(1.5), f16::from_f32(-2.0)]);
    assert_eq!(t.as_bytes(), &[0x00, 0x3e, 0x00, 0xc0]);
    let v = shaped::TensorView::<f16, Shape![2]>::from_bytes(t.as_bytes()).unwrap();
    assert_eq!(v, t);
    // Elements as half writes them: their bits.
    let text = serde_json::to_string(&t).unwrap();
    assert_eq!(text, r#"{"shape":[2],"data":[15872,49152]}"#);
    let back: Tensor<f16, Shape![2]> = serde_json::from_str(&text).unwrap();
    assert_eq!(back, t);
    let b = Tensor::<bf16, Shape![1]>::from([bf16::from_f32(3.0)]);
    let text = serde_json::to_string(&b).unwrap();
    let d = serde_json::from_str::<DynTensor<bf16>>(&text).unwrap();
    assert_eq!(d.as_slice(), b.as_slice());
}
