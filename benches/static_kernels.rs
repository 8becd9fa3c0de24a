//! shaped's static-shape add against a hand-written loop for the exact same shape.
//!
//! Each case has two `#[inline(never)]` functions with the same signature (nested arrays in,
//! nested array out), so criterion times them alike and `benches/count_instructions.sh` can
//! count their instructions in the emitted assembly.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use shaped::{Shape, Tensor};

macro_rules! case {
    ($shaped:ident, $hand:ident, $a:ty, $b:ty, $out:ty,
     $sa:ty, $sb:ty, |$x:ident, $y:ident, $c:ident| $body:block) => {
        #[inline(never)]
        pub fn $shaped(a: &$a, b: &$b) -> $out {
            let a = Tensor::<f32, $sa>::from(*a);
            let b = Tensor::<f32, $sb>::from(*b);
            (&a + &b).into_inner()
        }

        #[inline(never)]
        pub fn $hand($x: &$a, $y: &$b) -> $out {
            let mut $c: $out = Default::default();
            $body
            $c
        }
    };
}

case!(
    shaped_4x4_4x4,
    hand_4x4_4x4,
    [[f32; 4]; 4],
    [[f32; 4]; 4],
    [[f32; 4]; 4],
    Shape![4, 4],
    Shape![4, 4],
    |a, b, c| {
        for i in 0..4 {
            for j in 0..4 {
                c[i][j] = a[i][j] + b[i][j];
            }
        }
    }
);
case!(
    shaped_4x4_1x4,
    hand_4x4_1x4,
    [[f32; 4]; 4],
    [[f32; 4]; 1],
    [[f32; 4]; 4],
    Shape![4, 4],
    Shape![1, 4],
    |a, b, c| {
        for i in 0..4 {
            for j in 0..4 {
                c[i][j] = a[i][j] + b[0][j];
            }
        }
    }
);
case!(
    shaped_4x4_4x1,
    hand_4x4_4x1,
    [[f32; 4]; 4],
    [[f32; 1]; 4],
    [[f32; 4]; 4],
    Shape![4, 4],
    Shape![4, 1],
    |a, b, c| {
        for i in 0..4 {
            for j in 0..4 {
                c[i][j] = a[i][j] + b[i][0];
            }
        }
    }
);
case!(
    shaped_3x1_1x3,
    hand_3x1_1x3,
    [[f32; 1]; 3],
    [[f32; 3]; 1],
    [[f32; 3]; 3],
    Shape![3, 1],
    Shape![1, 3],
    |a, b, c| {
        for i in 0..3 {
            for j in 0..3 {
                c[i][j] = a[i][0] + b[0][j];
            }
        }
    }
);
case!(
    shaped_2x3x4_1x3x1,
    hand_2x3x4_1x3x1,
    [[[f32; 4]; 3]; 2],
    [[[f32; 1]; 3]; 1],
    [[[f32; 4]; 3]; 2],
    Shape![2, 3, 4],
    Shape![1, 3, 1],
    |a, b, c| {
        for i in 0..2 {
            for j in 0..3 {
                for k in 0..4 {
                    c[i][j][k] = a[i][j][k] + b[0][j][0];
                }
            }
        }
    }
);
case!(
    shaped_2x3x4_4,
    hand_2x3x4_4,
    [[[f32; 4]; 3]; 2],
    [f32; 4],
    [[[f32; 4]; 3]; 2],
    Shape![2, 3, 4],
    Shape![4],
    |a, b, c| {
        for i in 0..2 {
            for j in 0..3 {
                for k in 0..4 {
                    c[i][j][k] = a[i][j][k] + b[k];
                }
            }
        }
    }
);

const BATCH: usize = 256;

/// Calls `kernel` on each input. One instance serves both sides of a case, so the timed loop
/// is the same code at the same address and only the callee differs: with a loop per side,
/// code alignment alone moved identical kernels by up to 20%.
#[inline(never)]
fn run_batch<A, B, O>(kernel: fn(&A, &B) -> O, inputs: &[(A, B)], outputs: &mut [O]) {
    for ((a, b), out) in black_box(inputs).iter().zip(outputs.iter_mut()) {
        *out = kernel(a, b);
    }
    black_box(outputs);
}

/// The `k`-th input of a batch: `x` with every element shifted by `k`.
fn scale<A: Copy + Flat>(mut x: A, k: usize) -> A {
    x.flat_mut().iter_mut().for_each(|v| *v += k as f32);
    x
}

/// The elements of a nested f32 array, whatever its depth.
trait Flat {
    fn flat_mut(&mut self) -> &mut [f32];
}
impl<const N: usize> Flat for [f32; N] {
    fn flat_mut(&mut self) -> &mut [f32] {
        self
    }
}
impl<const N: usize, const M: usize> Flat for [[f32; N]; M] {
    fn flat_mut(&mut self) -> &mut [f32] {
        self.as_flattened_mut()
    }
}
impl<const N: usize, const M: usize, const K: usize> Flat for [[[f32; N]; M]; K] {
    fn flat_mut(&mut self) -> &mut [f32] {
        self.as_flattened_mut().as_flattened_mut()
    }
}

/// Values that are not all equal, so nothing folds away.
fn fill<const N: usize>() -> [f32; N] {
    core::array::from_fn(|i| i as f32 * 0.25 + 1.0)
}

fn bench(c: &mut Criterion) {
    macro_rules! run {
        ($name:literal, $shaped:ident, $hand:ident, $a:expr, $b:expr) => {{
            // A batch of distinct inputs per iteration: nanosecond calls alone are within the
            // timer's and the code layout's noise.
            let inputs: Vec<_> = (0..BATCH).map(|k| (scale($a, k), scale($b, k))).collect();
            for (a, b) in &inputs {
                assert_eq!($shaped(a, b), $hand(a, b), "{} disagrees", $name);
            }
            let mut outputs = vec![$hand(&inputs[0].0, &inputs[0].1); BATCH];
            let mut group = c.benchmark_group($name);
            group.bench_function("hand", |bch| {
                bch.iter(|| run_batch(black_box($hand), &inputs, &mut outputs))
            });
            group.bench_function("shaped", |bch| {
                bch.iter(|| run_batch(black_box($shaped), &inputs, &mut outputs))
            });
            group.finish();
        }};
    }
    let m44: [[f32; 4]; 4] = [fill(), fill(), fill(), fill()].map(|r: [f32; 4]| r.map(|x| x * 3.0));
    let r14: [[f32; 4]; 1] = [fill()];
    let c41: [[f32; 1]; 4] = [[1.0], [2.0], [3.0], [4.0]];
    let c31: [[f32; 1]; 3] = [[1.0], [2.0], [3.0]];
    let r13: [[f32; 3]; 1] = [fill()];
    let t234: [[[f32; 4]; 3]; 2] = [[fill(), fill(), fill()], [fill(), fill(), fill()]];
    let t131: [[[f32; 1]; 3]; 1] = [[[0.5], [1.5], [2.5]]];
    let v4: [f32; 4] = fill();
    run!("4x4+4x4", shaped_4x4_4x4, hand_4x4_4x4, m44, m44);
    run!("4x4+1x4", shaped_4x4_1x4, hand_4x4_1x4, m44, r14);
    run!("4x4+4x1", shaped_4x4_4x1, hand_4x4_4x1, m44, c41);
    run!("3x1+1x3", shaped_3x1_1x3, hand_3x1_1x3, c31, r13);
    run!(
        "2x3x4+1x3x1",
        shaped_2x3x4_1x3x1,
        hand_2x3x4_1x3x1,
        t234,
        t131
    );
    run!("2x3x4+4", shaped_2x3x4_4, hand_2x3x4_4, t234, v4);
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_secs(1))
        .measurement_time(std::time::Duration::from_secs(4));
    targets = bench
}
criterion_main!(benches);
