//! Unary math: every function on static, mixed and runtime tensors gives, bit for bit, what the
//! binary primitive's eltwise post-op of the same name gives (one formula each), on values that
//! include NaN, infinities and signed zeros.
#![cfg(any(feature = "std", feature = "libm"))]

use shaped::primitive::Eltwise;
use shaped::{DynTensor, Shape, Tensor};

const VALUES: [f32; 10] = [
    f32::NAN,
    f32::NEG_INFINITY,
    -3.5,
    -1.0,
    -0.0,
    0.0,
    0.25,
    1.0,
    7.5,
    f32::INFINITY,
];

fn bits(x: &[f32]) -> Vec<u32> {
    x.iter().map(|v| v.to_bits()).collect()
}

/// Each path's result for `f`, checked against `Eltwise::apply` element by element.
fn check(
    name: &str,
    e: Eltwise,
    stat: impl Fn(&Tensor<f32, Shape![10]>) -> Tensor<f32, Shape![10]>,
    mixed: impl Fn(&Tensor<f32, Shape![_]>) -> Tensor<f32, Shape![_]>,
    dynamic: impl Fn(&DynTensor<f32>) -> DynTensor<f32>,
) {
    let want: Vec<u32> = VALUES.iter().map(|&v| e.apply(v).to_bits()).collect();
    let s = Tensor::<f32, Shape![10]>::from(VALUES);
    let m = Tensor::<f32, Shape![_]>::from_shape_vec([10], VALUES.to_vec()).unwrap();
    let d = DynTensor::from_shape_vec([10], VALUES.to_vec()).unwrap();
    assert_eq!(bits(stat(&s).as_slice()), want, "{name}, static");
    assert_eq!(bits(mixed(&m).as_slice()), want, "{name}, mixed");
    assert_eq!(bits(dynamic(&d).as_slice()), want, "{name}, runtime");
}

macro_rules! same_as_eltwise {
    ($($name:ident $e:expr;)*) => {$(
        #[test]
        fn $name() {
            check(
                stringify!($name),
                $e,
                |t| t.$name(),
                |t| t.$name(),
                |t| t.$name(),
            );
        }
    )*};
}

same_as_eltwise! {
    abs Eltwise::Abs;
    relu Eltwise::Relu;
    sqrt Eltwise::Sqrt;
    exp Eltwise::Exp;
    ln Eltwise::Ln;
    tanh Eltwise::Tanh;
    sigmoid Eltwise::Sigmoid;
    erf Eltwise::Erf;
    gelu Eltwise::GeluErf;
    gelu_tanh Eltwise::GeluTanh;
}

#[test]
fn clip() {
    check(
        "clip",
        Eltwise::Clip { lo: -1.0, hi: 2.0 },
        |t| t.clip(-1.0, 2.0),
        |t| t.clip(-1.0, 2.0),
        |t| t.clip(-1.0, 2.0),
    );
}

#[test]
fn formulas_hold_at_known_points() {
    let x = Tensor::<f64, Shape![4]>::from([0.0, 1.0, -1.0, 4.0]);
    assert_eq!(x.sqrt()[[3]], 2.0);
    assert_eq!(x.exp()[[0]], 1.0);
    assert_eq!(x.sigmoid()[[0]], 0.5);
    assert!((x.gelu_tanh()[[1]] - 0.841_191_990_607_477_2).abs() < 1e-12);
    assert!((x.gelu()[[1]] - 0.841_344_746_068_542_9).abs() < 1e-15);
    assert!((x.tanh()[[2]] + 0.761_594_155_955_764_9).abs() < 1e-12);
    assert_eq!((-&x).abs().as_slice(), x.abs().as_slice());
    // Chains keep the type, and the unary functions compose with broadcasting.
    let y: Tensor<f64, Shape![2, 4]> =
        (x + Tensor::<f64, Shape![2, 1]>::from([[0.0], [1.0]])).relu();
    assert_eq!(y.as_slice(), &[0.0, 1.0, 0.0, 4.0, 1.0, 2.0, 0.0, 5.0]);
}
