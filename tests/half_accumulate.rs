//! `f16` and `bf16` (feature `half`) are computed in `f32` and rounded once per result,
//! reductions and products included: every sum, mean and product over any axes, `sum_to`,
//! `matmul` in all its forms, the dense layer and the numerics accumulate in `f32`
//! ([`Element::Acc`]), on the static, mixed and runtime paths alike (the same bits).
//!
//! The expected values come from `tests/reference/half_accumulate.py` (numpy: the sum in
//! float32 of the 16-bit values, rounded once; the data in `tests/reference/half_accumulate.txt`),
//! on inputs both compute from a seed. Before the accumulation was widened, a sum over the
//! leading axis of `[2048, 1, 1]` (a 3, then ones) gave 2048 where the contract gives 2050.
//!
//! The workspace's tests (`cargo test --workspace`) enable `half` (the integration tests ask
//! for it); alone, run `cargo test --features half --test half_accumulate`.
#![cfg(feature = "half")]

use shaped::layer::{Dense, Identity};
use shaped::rules::{Axes, MatMulOptions};
use shaped::{bf16, f16, DynTensor, Mean, Real, Shape, Tensor};

/// The two 16-bit float types, through the same calls.
trait Half: Real<Compute = f32> + Mean + core::fmt::Display {
    const NAME: &'static str;
    /// Significand bits, the implicit one included.
    const BITS: u32;
    fn of(x: f64) -> Self;
    fn bits(self) -> u16;
}

impl Half for f16 {
    const NAME: &'static str = "f16";
    const BITS: u32 = 11;
    fn of(x: f64) -> Self {
        f16::from_f64(x)
    }
    fn bits(self) -> u16 {
        self.to_bits()
    }
}

impl Half for bf16 {
    const NAME: &'static str = "bf16";
    const BITS: u32 = 8;
    fn of(x: f64) -> Self {
        bf16::from_f64(x)
    }
    fn bits(self) -> u16 {
        self.to_bits()
    }
}

fn bits<T: Half>(v: &[T]) -> Vec<u16> {
    v.iter().map(|x| x.bits()).collect()
}

/// splitmix64, as the reference script computes it.
fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Element `i` of an input of `kind` and `seed` (the script's `value`): exactly
/// representable in `T`, so converting it does not round.
fn value<T: Half>(kind: &str, seed: u64, i: u64) -> T {
    let h = splitmix((seed << 32) | i);
    let top = (h >> 40) as i64;
    let e = ((h >> 20) % 8) as i32;
    let bits = T::BITS as i64;
    let x = match kind {
        "signed" => (top % (1 << bits) - (1 << (bits - 1))) as f64 * 2f64.powi(-(e + 6)),
        "positive" => (top % (1 << (bits - 1))) as f64 * 2f64.powi(-(e + 10)),
        "near_one" => {
            let m = if T::BITS == 11 {
                top % 64 - 32
            } else {
                top % 8 - 4
            };
            1.0 + m as f64 * 2f64.powi(-(bits as i32 - 1))
        }
        _ => panic!("unknown kind {kind}"),
    };
    let v = T::of(x);
    assert_eq!(v.to_compute() as f64, x, "{kind} {seed} {i} is not exact");
    v
}

fn input<T: Half>(kind: &str, seed: u64, dims: &[usize]) -> DynTensor<T> {
    let n: usize = dims.iter().product();
    let data = (0..n as u64).map(|i| value(kind, seed, i)).collect();
    DynTensor::from_shape_vec(dims, data).unwrap()
}

/// One line of the reference data.
struct Case {
    op: String,
    dtype: String,
    dims: Vec<Vec<usize>>,
    params: String,
    kind: String,
    seed: u64,
    expected: Vec<f64>,
}

impl Case {
    fn name(&self) -> String {
        let (op, dtype, dims, params) = (&self.op, &self.dtype, &self.dims, &self.params);
        format!("{op} {dtype} {dims:?} {params}")
    }

    fn expected<T: Half>(&self) -> Vec<u16> {
        self.expected.iter().map(|&x| T::of(x).bits()).collect()
    }

    fn p(&self, i: usize) -> &str {
        self.params.split_whitespace().nth(i).unwrap()
    }
}

fn cases() -> Vec<Case> {
    let list = |f: &str| -> Vec<usize> {
        match f.trim() {
            "-" => Vec::new(),
            f => f.split_whitespace().map(|v| v.parse().unwrap()).collect(),
        }
    };
    include_str!("reference/half_accumulate.txt")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|line| {
            let f: Vec<&str> = line.split(" | ").collect();
            let (kind, seed) = f[4].split_once(' ').unwrap();
            Case {
                op: f[0].to_string(),
                dtype: f[1].to_string(),
                dims: f[2].split(';').map(list).collect(),
                params: f[3].to_string(),
                kind: kind.to_string(),
                seed: seed.parse().unwrap(),
                expected: f[5]
                    .split_whitespace()
                    .map(|v| v.parse().unwrap())
                    .collect(),
            }
        })
        .collect()
}

/// The operands of a case: its input, and for a product the right operand (the next seed).
fn operands<T: Half>(c: &Case) -> (DynTensor<T>, Option<DynTensor<T>>) {
    let a = input(&c.kind, c.seed, &c.dims[0]);
    let b = c.dims.get(1).map(|d| input(&c.kind, c.seed + 1, d));
    (a, b)
}

fn options(c: &Case) -> MatMulOptions {
    MatMulOptions {
        transpose_a: c.p(0) == "1",
        transpose_b: c.p(1) == "1",
    }
}

/// The runtime result of a case.
fn run<T: Half>(c: &Case) -> Vec<T> {
    let (x, b) = operands::<T>(c);
    let list: Vec<i64> = match c.params.as_str() {
        "all" | "-" => Vec::new(),
        p => p
            .split_whitespace()
            .map(|a| a.parse().unwrap_or(0))
            .collect(),
    };
    let axes = || match c.params.as_str() {
        "all" => Axes::All,
        _ => Axes::from(&list[..]),
    };
    let eps = || c.p(1).parse::<f32>().unwrap();
    let y = match c.op.as_str() {
        "sum" => x.sum(axes(), false).unwrap(),
        "mean" => x.mean(axes(), true).unwrap(),
        "prod" => x.prod(axes(), false).unwrap(),
        "sum_to" => {
            let target: Vec<usize> = c
                .params
                .split_whitespace()
                .map(|t| t.parse().unwrap())
                .collect();
            x.sum_to(&target).unwrap()
        }
        "matmul" => {
            let b = b.unwrap();
            let y = x.matmul_with(&b, options(c)).unwrap();
            // Transposed views, read in place, give the same bits.
            let (o, none) = (options(c), MatMulOptions::default());
            let (xv, bv) = (x.strided(), b.strided());
            let xv = if o.transpose_a { xv.transpose() } else { xv };
            let bv = if o.transpose_b { bv.transpose() } else { bv };
            let v = xv.matmul_with(&bv, none).unwrap();
            assert_eq!(bits(v.as_slice()), bits(y.as_slice()), "{}", c.name());
            y
        }
        "sum_all" => DynTensor::from_shape_vec([1], vec![x.sum_all()]).unwrap(),
        "mean_all" => DynTensor::from_shape_vec([1], vec![x.mean_all()]).unwrap(),
        "var" => x.var(&[list[0]], c.p(1).parse().unwrap(), false).unwrap(),
        "softmax" => x.softmax(list[0]).unwrap(),
        "layer_norm" => x.layer_norm(list[0], eps()).unwrap(),
        "rms_norm" => x.rms_norm(list[0], eps()).unwrap(),
        op => panic!("unknown op {op}"),
    };
    y.as_slice().to_vec()
}

#[test]
fn r7_g6_runtime_results_are_the_f32_computation_rounded_once() {
    let mut checked = 0;
    for c in cases() {
        let (got, want) = match c.dtype.as_str() {
            "f16" => (bits(&run::<f16>(&c)), c.expected::<f16>()),
            _ => (bits(&run::<bf16>(&c)), c.expected::<bf16>()),
        };
        assert_eq!(got.len(), want.len(), "{}", c.name());
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "{}: element {k} of {}", c.name(), want.len());
        }
        checked += 1;
    }
    assert_eq!(checked, 82);
}

/// The static and mixed (`Dyn` first dim) reductions over each single axis of the shapes of
/// the data, against the reference bits.
macro_rules! static_reductions {
    ($t:ty, $c:expr, $x:expr, $shape:ty, $mixed:ty, [$($a:literal)*]) => {{
        let (c, x): (&Case, &DynTensor<$t>) = ($c, $x);
        let s = Tensor::<$t, $shape>::from_shape_vec(x.shape(), x.as_slice().to_vec()).unwrap();
        let m = Tensor::<$t, $mixed>::from_shape_vec(x.shape(), x.as_slice().to_vec()).unwrap();
        let mut ran = 0;
        $(
            if c.params == stringify!($a) {
                let (st, mx) = match c.op.as_str() {
                    "sum" => (bits(s.sum_axis::<$a>().as_slice()), bits(m.sum_keepdims::<$a>().as_slice())),
                    "mean" => (bits(s.mean_keepdims::<$a>().as_slice()), bits(m.mean_axis::<$a>().as_slice())),
                    "prod" => (bits(s.prod_axis::<$a>().as_slice()), bits(m.prod_keepdims::<$a>().as_slice())),
                    op => panic!("unknown op {op}"),
                };
                assert_eq!(st, c.expected::<$t>(), "static {}", c.name());
                assert_eq!(mx, c.expected::<$t>(), "mixed {}", c.name());
                ran += 1;
            }
        )*
        ran
    }};
}

/// A static and a mixed product of the given shapes (`$f` the method: `matmul`,
/// `matmul_nt`, ...) against the reference bits.
macro_rules! static_product {
    ($t:ty, $c:expr, $f:ident, $sa:ty, $sb:ty, $ma:ty) => {{
        let c: &Case = $c;
        let (a, b) = operands::<$t>(c);
        let b = b.unwrap();
        let sa = Tensor::<$t, $sa>::from_shape_vec(a.shape(), a.as_slice().to_vec()).unwrap();
        let sb = Tensor::<$t, $sb>::from_shape_vec(b.shape(), b.as_slice().to_vec()).unwrap();
        let ma = Tensor::<$t, $ma>::from_shape_vec(a.shape(), a.as_slice().to_vec()).unwrap();
        assert_eq!(
            bits(sa.$f(&sb).as_slice()),
            c.expected::<$t>(),
            "static {}",
            c.name()
        );
        assert_eq!(
            bits(ma.$f(&sb).as_slice()),
            c.expected::<$t>(),
            "mixed {}",
            c.name()
        );
        1
    }};
}

/// The static and mixed paths of every case whose shape is listed here.
fn static_paths<T: Half>(c: &Case) -> usize {
    let x = input::<T>(&c.kind, c.seed, &c.dims[0]);
    let d: Vec<&[usize]> = c.dims.iter().map(Vec::as_slice).collect();
    let tn = c.params == "1 0";
    let nt = c.params == "0 1";
    let tt = c.params == "1 1";
    match (c.op.as_str(), &d[..]) {
        ("sum" | "mean" | "prod", [[64, 80]]) => {
            static_reductions!(T, c, &x, Shape![64, 80], Shape![_, 80], [0 1])
        }
        ("sum" | "mean" | "prod", [[8, 24, 24]]) => {
            static_reductions!(T, c, &x, Shape![8, 24, 24], Shape![_, 24, 24], [0 1 2])
        }
        ("sum" | "mean" | "prod", [[3, 700]]) => {
            static_reductions!(T, c, &x, Shape![3, 700], Shape![_, 700], [0 1])
        }
        ("sum" | "mean" | "prod", [[1500, 3]]) => {
            static_reductions!(T, c, &x, Shape![1500, 3], Shape![_, 3], [0 1])
        }
        ("sum" | "mean" | "prod", [[40, 30]]) => {
            static_reductions!(T, c, &x, Shape![40, 30], Shape![_, 30], [0 1])
        }
        ("sum" | "mean" | "prod", [[200, 30]]) => {
            static_reductions!(T, c, &x, Shape![200, 30], Shape![_, 30], [0 1])
        }
        ("sum" | "mean" | "prod", [[5, 2000]]) => {
            static_reductions!(T, c, &x, Shape![5, 2000], Shape![_, 2000], [0 1])
        }
        ("sum_to", [[8, 24, 24]]) => {
            let s =
                Tensor::<T, Shape![8, 24, 24]>::from_shape_vec(x.shape(), x.as_slice().to_vec())
                    .unwrap();
            let y: Tensor<T, Shape![24, 1]> = s.sum_to::<Shape![24, 1]>();
            assert_eq!(bits(y.as_slice()), c.expected::<T>(), "static {}", c.name());
            1
        }
        ("matmul", [[3, 64], [64, 5]]) => {
            static_product!(T, c, matmul, Shape![3, 64], Shape![64, 5], Shape![_, 64])
        }
        ("matmul", [[5, 40], [40, 4]]) => {
            static_product!(T, c, matmul, Shape![5, 40], Shape![40, 4], Shape![_, 40])
        }
        ("matmul", [[16, 16], [16, 16]]) => {
            static_product!(T, c, matmul, Shape![16, 16], Shape![16, 16], Shape![_, 16])
        }
        ("matmul", [[2, 4, 300], [300, 3]]) => {
            static_product!(
                T,
                c,
                matmul,
                Shape![2, 4, 300],
                Shape![300, 3],
                Shape![_, 4, 300]
            )
        }
        ("matmul", [[1, 2048], [2048, 1]]) => {
            static_product!(
                T,
                c,
                matmul,
                Shape![1, 2048],
                Shape![2048, 1],
                Shape![_, 2048]
            )
        }
        ("matmul", [[64, 3], [64, 5]]) if tn => {
            static_product!(T, c, matmul_tn, Shape![64, 3], Shape![64, 5], Shape![_, 3])
        }
        ("matmul", [[3, 64], [5, 64]]) if nt => {
            static_product!(T, c, matmul_nt, Shape![3, 64], Shape![5, 64], Shape![_, 64])
        }
        ("matmul", [[64, 3], [5, 64]]) if tt => {
            static_product!(T, c, matmul_tt, Shape![64, 3], Shape![5, 64], Shape![_, 3])
        }
        ("matmul", [[8, 32], [16, 32]]) if nt => {
            static_product!(
                T,
                c,
                matmul_nt,
                Shape![8, 32],
                Shape![16, 32],
                Shape![_, 32]
            )
        }
        ("sum_all" | "mean_all", [[1000]]) => {
            let s =
                Tensor::<T, Shape![1000]>::from_shape_vec([1000], x.as_slice().to_vec()).unwrap();
            let got = if c.op == "sum_all" {
                s.sum_all()
            } else {
                s.mean_all()
            };
            assert_eq!(vec![got.bits()], c.expected::<T>(), "static {}", c.name());
            1
        }
        ("var", [[30, 50]]) => {
            let s = Tensor::<T, Shape![30, 50]>::from_shape_vec(x.shape(), x.as_slice().to_vec())
                .unwrap();
            assert_eq!(
                bits(s.var_axis::<1>(0).as_slice()),
                c.expected::<T>(),
                "{}",
                c.name()
            );
            1
        }
        ("softmax" | "layer_norm" | "rms_norm", [[4, 50]]) => {
            let s = Tensor::<T, Shape![4, 50]>::from_shape_vec(x.shape(), x.as_slice().to_vec())
                .unwrap();
            let m = Tensor::<T, Shape![_, 50]>::from_shape_vec(x.shape(), x.as_slice().to_vec())
                .unwrap();
            let (st, mx) = match c.op.as_str() {
                "softmax" => (
                    bits(s.softmax::<1>().as_slice()),
                    bits(m.softmax::<1>().as_slice()),
                ),
                "layer_norm" => (
                    bits(s.layer_norm::<1>(1e-5).as_slice()),
                    bits(m.layer_norm::<1>(1e-5).as_slice()),
                ),
                _ => (
                    bits(s.rms_norm::<1>(1e-5).as_slice()),
                    bits(m.rms_norm::<1>(1e-5).as_slice()),
                ),
            };
            assert_eq!(st, c.expected::<T>(), "static {}", c.name());
            assert_eq!(mx, c.expected::<T>(), "mixed {}", c.name());
            1
        }
        _ => 0,
    }
}

#[test]
fn static_and_mixed_results_are_the_runtime_bits() {
    let mut checked = 0;
    for c in cases() {
        checked += match c.dtype.as_str() {
            "f16" => static_paths::<f16>(&c),
            _ => static_paths::<bf16>(&c),
        };
    }
    // Every case but the sums over several axes or all of them, and the runtime-only shapes
    // (a million rows, 65536, 20000).
    assert_eq!(checked, 64);
}

/// The case of the report, by value: a 3 and 2047 ones along the leading axis of `[2048, 1,
/// 1]` sum to 2050, which `f16` holds. Added in `f16` one by one (the small static loop) the
/// sum stopped at 2048, where `2048 + 1` rounds back to 2048 (ties to even). `bf16` holds
/// 258 = 3 + 255 ones, and stopped at 256 the same way.
#[test]
fn r7_a_long_sum_is_rounded_once() {
    fn check<T: Half>(n: usize, want: f64) {
        let data: Vec<T> = (0..n)
            .map(|i| T::of(if i == 0 { 3.0 } else { 1.0 }))
            .collect();
        let want = T::of(want);
        assert_eq!(want.to_compute() as f64, (n + 2) as f64, "{}", T::NAME);
        let d = DynTensor::from_shape_vec([n, 1, 1], data.clone()).unwrap();
        assert_eq!(d.sum(&[0], false).unwrap().as_slice(), &[want]);
        assert_eq!(d.sum(Axes::All, false).unwrap().as_slice(), &[want]);
        assert_eq!(d.sum(&[0, 2], true).unwrap().as_slice(), &[want]);
        let mean = T::of((n + 2) as f64 / n as f64);
        assert_eq!(d.mean(&[0], false).unwrap().as_slice(), &[mean]);
        // The product of ones and a 3 is 3.
        assert_eq!(d.prod(Axes::All, false).unwrap().as_slice(), &[T::of(3.0)]);
        // A row times a column of ones: the same sum.
        let row = DynTensor::from_shape_vec([1, n], data.clone()).unwrap();
        let ones = DynTensor::from_elem([n, 1], T::of(1.0)).unwrap();
        assert_eq!(row.matmul(&ones).unwrap().as_slice(), &[want]);
        // Both read transposed in place: `[1, n]` times `[n, 1]` again.
        assert_eq!(ones.matmul_with(&row, tn()).unwrap().as_slice(), &[want]);
    }
    fn tn() -> MatMulOptions {
        MatMulOptions {
            transpose_a: true,
            transpose_b: true,
        }
    }
    check::<f16>(2048, 2050.0);
    check::<bf16>(256, 258.0);

    // The static and mixed paths (below 4096 elements, a loop in order; the shared kernels
    // above), the same values.
    let three = |i: usize| f16::from_f32(if i == 0 { 3.0 } else { 1.0 });
    let want = f16::from_f32(2050.0);
    let s = Tensor::<f16, Shape![2048, 1, 1]>::from_fn(|[i, _, _]| three(i));
    assert_eq!(s.sum_axis::<0>().as_slice(), &[want]);
    assert_eq!(s.sum_keepdims::<0>().as_slice(), &[want]);
    assert_eq!(s.sum_to::<Shape![1]>().as_slice(), &[want]);
    assert_eq!(
        s.mean_axis::<0>().as_slice(),
        &[f16::from_f32(2050.0 / 2048.0)]
    );
    let m: Tensor<f16, Shape![_, 1, 1]> =
        Tensor::from_shape_vec([2048, 1, 1], s.as_slice().to_vec()).unwrap();
    assert_eq!(m.sum_axis::<0>().as_slice(), &[want]);
    let wide = Tensor::<f16, Shape![2048, 2, 1]>::from_fn(|[i, _, _]| three(i));
    assert_eq!(wide.sum_axis::<0>().as_slice(), &[want, want]);
    let row = Tensor::<f16, Shape![1, 2048]>::from_fn(|[_, k]| three(k));
    let ones = Tensor::<f16, Shape![2048, 1]>::splat(f16::from_f32(1.0));
    assert_eq!(row.matmul(&ones).as_slice(), &[want]);
    let weights = [[f16::from_f32(1.0)]; 2048];
    let layer = Dense::new(&weights, None, Identity);
    assert_eq!(layer.forward(&row).as_slice(), &[want]);
    let s = Tensor::<bf16, Shape![256, 1]>::from_fn(|[i, _]| {
        bf16::from_f32(if i == 0 { 3.0 } else { 1.0 })
    });
    assert_eq!(s.sum_axis::<0>().as_slice(), &[bf16::from_f32(258.0)]);
}

/// A sum over several axes is rounded once, not once per axis: each row of `[[2047, 2],
/// [2047, 2]]` sums to 2049, a tie that `f16` rounds to 2048, so rounding after the first axis
/// would give 4096; the whole sum is 4098, which `f16` holds.
#[test]
fn r7_several_axes_are_rounded_once() {
    let x: Vec<f16> = [2047.0, 2.0, 2047.0, 2.0]
        .iter()
        .map(|&v| f16::from_f32(v))
        .collect();
    let d = DynTensor::from_shape_vec([2, 2], x.clone()).unwrap();
    assert_eq!(
        d.sum(Axes::All, false).unwrap().as_slice(),
        &[f16::from_f32(4098.0)]
    );
    assert_eq!(
        d.sum(&[1], false).unwrap().as_slice(),
        &[f16::from_f32(2048.0); 2]
    );
    assert_eq!(
        d.sum_to([1, 1]).unwrap().as_slice(),
        &[f16::from_f32(4098.0)]
    );
    let s = Tensor::<f16, Shape![2, 2]>::from_shape_vec([2, 2], x).unwrap();
    assert_eq!(
        s.sum_to::<Shape![1, 1]>().as_slice(),
        &[f16::from_f32(4098.0)]
    );
    assert_eq!(s.sum_all(), f16::from_f32(4098.0));
}

/// `AnyTensor` dispatches its sums and products to the same kernels.
#[cfg(feature = "any-tensor")]
#[test]
fn r7_any_tensor_sums_in_f32() {
    use shaped::AnyTensor;
    let data: Vec<f16> = (0..2048)
        .map(|i| f16::from_f32(if i == 0 { 3.0 } else { 1.0 }))
        .collect();
    let want = [f16::from_f32(2050.0)];
    let a = AnyTensor::from(DynTensor::from_shape_vec([2048, 1, 1], data.clone()).unwrap());
    let s = a.sum(&[0], false).unwrap();
    assert_eq!(s.typed::<f16>().unwrap().as_slice(), &want);
    let row = AnyTensor::from(DynTensor::from_shape_vec([1, 2048], data).unwrap());
    let ones = AnyTensor::from(DynTensor::from_elem([2048, 1], f16::from_f32(1.0)).unwrap());
    let p = row.matmul(&ones, MatMulOptions::default()).unwrap();
    assert_eq!(p.typed::<f16>().unwrap().as_slice(), &want);
}
