//! A tiny test report for bare-metal runs: each check prints `test NAME ... ok|FAILED` over
//! semihosting; `finish` prints `N passed, M failed` and exits QEMU with the matching status.
#![no_std]

use core::fmt;
use cortex_m_semihosting::{debug, hprintln};

/// Counts and prints checks.
pub struct Report {
    passed: u32,
    failed: u32,
}

impl Report {
    /// An empty report.
    pub const fn new() -> Self {
        Report {
            passed: 0,
            failed: 0,
        }
    }

    /// Records one named check.
    pub fn check(&mut self, name: &str, ok: bool) {
        if ok {
            self.passed += 1;
            hprintln!("test {} ... ok", name);
        } else {
            self.failed += 1;
            hprintln!("test {} ... FAILED", name);
        }
    }

    /// Records that `got` equals `want`, printing both when they differ.
    pub fn eq<T: PartialEq + fmt::Debug + ?Sized>(&mut self, name: &str, got: &T, want: &T) {
        let ok = got == want;
        if !ok {
            hprintln!("  {}: got {:?}, want {:?}", name, got, want);
        }
        self.check(name, ok);
    }

    /// Prints the totals and exits QEMU: status 0 when nothing failed, 1 otherwise.
    pub fn finish(self) -> ! {
        hprintln!("{} passed, {} failed", self.passed, self.failed);
        debug::exit(if self.failed == 0 {
            debug::EXIT_SUCCESS
        } else {
            debug::EXIT_FAILURE
        });
        #[allow(clippy::empty_loop)]
        loop {}
    }
}

impl Default for Report {
    fn default() -> Self {
        Report::new()
    }
}

/// A fixed-capacity string for `Display` output, no allocator.
pub struct FixedBuf<const N: usize> {
    bytes: [u8; N],
    len: usize,
}

impl<const N: usize> FixedBuf<N> {
    /// An empty buffer.
    pub const fn new() -> Self {
        FixedBuf {
            bytes: [0; N],
            len: 0,
        }
    }

    /// The text written so far.
    pub fn as_str(&self) -> &str {
        core::str::from_utf8(&self.bytes[..self.len]).unwrap_or("<invalid utf-8>")
    }
}

impl<const N: usize> Default for FixedBuf<N> {
    fn default() -> Self {
        FixedBuf::new()
    }
}

impl<const N: usize> fmt::Write for FixedBuf<N> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self
            .len
            .checked_add(s.len())
            .filter(|&e| e <= N)
            .ok_or(fmt::Error)?;
        self.bytes[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// `value` formatted into a fresh buffer.
pub fn text<const N: usize>(value: impl fmt::Display) -> FixedBuf<N> {
    let mut buf = FixedBuf::new();
    // Overflow leaves the buffer truncated, which the comparison then reports.
    let _ = fmt::write(&mut buf, format_args!("{value}"));
    buf
}

/// The generated inputs and TFLM's expected outputs of the models in `tests/models/`.
pub mod imported;

/// Instructions counted under QEMU: SysTick, calibrated.
pub mod icount;

/// The two-layer perceptron of `examples/dense_layer.rs` (16 -> 32 -> 4, ReLU between), with
/// the same deterministic weights: its outputs are checked to the bit against the example's.
pub mod hand_models;

/// int8 convolutions by hand (TFLM's contract) and the layers `icount_conv.sh` measures.
pub mod hand_conv;

pub mod mlp {
    use shaped::layer::{Dense, Identity, Relu};
    use shaped::{Shape, Tensor};

    /// A batch of inputs.
    pub type Input = Tensor<f32, Shape![2, 16]>;
    /// The first layer's weights and bias.
    pub type Layer1 = (Tensor<f32, Shape![16, 32]>, Tensor<f32, Shape![32]>);
    /// The second layer's weights and bias.
    pub type Layer2 = (Tensor<f32, Shape![32, 4]>, Tensor<f32, Shape![4]>);
    /// The outputs.
    pub type Output = Tensor<f32, Shape![2, 4]>;

    /// The example's weight at `(i, j)` of the layer numbered `seed`.
    pub fn weight(i: usize, j: usize, seed: usize) -> f32 {
        ((i * 7 + j * 3 + seed) % 11) as f32 * 0.1 - 0.5
    }

    /// The example's input and weights.
    pub fn parameters() -> (Input, Layer1, Layer2) {
        (
            Input::from_fn(|[b, i]| ((b * 16 + i) % 5) as f32 * 0.25),
            (
                Tensor::from_fn(|[i, j]: [usize; 2]| weight(i, j, 1)),
                Tensor::from_fn(|[j]: [usize; 1]| j as f32 * 0.01),
            ),
            (
                Tensor::from_fn(|[i, j]: [usize; 2]| weight(i, j, 2)),
                Tensor::splat(-0.1),
            ),
        )
    }

    /// The forward pass: `relu(x w1 + b1) w2 + b2`.
    #[inline(always)]
    pub fn forward(x: &Input, l1: &Layer1, l2: &Layer2) -> Output {
        let hidden = (x.matmul(&l1.0) + l1.1).relu();
        hidden.matmul(&l2.0) + l2.1
    }

    /// The forward pass as two fused layers (`shaped::layer::Dense`): the same bits.
    #[inline(always)]
    pub fn layers(x: &Input, l1: &Layer1, l2: &Layer2) -> Output {
        let (w1, b1) = (l1.0.into_inner(), l1.1.into_inner());
        let (w2, b2) = (l2.0.into_inner(), l2.1.into_inner());
        let hidden = Dense::new(&w1, Some(&b1), Relu).forward(x);
        Dense::new(&w2, Some(&b2), Identity).forward(&hidden)
    }

    /// By hand: the same network, each sum over `k` in order from its first term.
    #[inline(always)]
    pub fn hand(
        x: &[[f32; 16]; 2],
        (w1, b1): (&[[f32; 32]; 16], &[f32; 32]),
        (w2, b2): (&[[f32; 4]; 32], &[f32; 4]),
        out: &mut [[f32; 4]; 2],
    ) {
        // Constant loop bounds, so that no index can fail (no panic path to link).
        for b in 0..2 {
            let mut hidden = [0.0f32; 32];
            for j in 0..32 {
                let mut s = x[b][0] * w1[0][j];
                for i in 1..16 {
                    s += x[b][i] * w1[i][j];
                }
                let v = s + b1[j];
                hidden[j] = if 0.0 > v { 0.0 } else { v };
            }
            for o in 0..4 {
                let mut s = hidden[0] * w2[0][o];
                for j in 1..32 {
                    s += hidden[j] * w2[j][o];
                }
                out[b][o] = s + b2[o];
            }
        }
    }

    /// What `cargo run --example dense_layer` prints as its exact output.
    pub const EXPECTED: [f32; 8] = [
        0.27100003, 1.7440001, -2.0245004, 0.3285, 0.16400003, 0.97950006, -0.2234999, -1.4100001,
    ];
}

/// A two-layer controller as firmware writes it: 8 sensor readings -> 16 ReLU units -> 2
/// actuator commands clipped to [-1, 1], static shapes, the weights in `static` arrays used in
/// place (flash). [`forward`](controller::forward) is shaped; [`hand`](controller::hand) the
/// same arithmetic as plain loops, each sum over `k` in order from its first term, as shaped
/// adds them; `code_size.sh` measures both as whole firmware.
pub mod controller {
    use shaped::layer::{Clip, Dense, Relu};
    use shaped::{Shape, Tensor, TensorView};

    /// The sensor readings.
    pub type Input = Tensor<f32, Shape![8]>;
    /// The commands.
    pub type Output = Tensor<f32, Shape![2]>;

    /// The first layer's weights, `[input][unit]`.
    pub static W1: [[f32; 16]; 8] = weights::<8, 16>(1);
    /// The first layer's bias.
    pub static B1: [f32; 16] = bias::<16>(1);
    /// The second layer's weights, `[unit][command]`.
    pub static W2: [[f32; 2]; 16] = weights::<16, 2>(2);
    /// The second layer's bias.
    pub static B2: [f32; 2] = bias::<2>(2);

    /// Deterministic weights in [-0.5, 0.5], made at compile time.
    const fn weights<const R: usize, const C: usize>(seed: usize) -> [[f32; C]; R] {
        let mut w = [[0.0; C]; R];
        let mut i = 0;
        while i < R {
            let mut j = 0;
            while j < C {
                w[i][j] = ((i * 7 + j * 3 + seed) % 11) as f32 * 0.1 - 0.5;
                j += 1;
            }
            i += 1;
        }
        w
    }

    /// Deterministic biases.
    const fn bias<const N: usize>(seed: usize) -> [f32; N] {
        let mut b = [0.0; N];
        let mut j = 0;
        while j < N {
            b[j] = ((j + seed) % 5) as f32 * 0.05 - 0.1;
            j += 1;
        }
        b
    }

    /// The readings the checks use.
    pub fn input() -> Input {
        Input::from_fn(|[i]| (i as f32 - 3.5) * 0.3)
    }

    /// shaped: `clip(relu(x W1 + b1) W2 + b2, -1, 1)`.
    #[inline(always)]
    pub fn forward(x: &Input) -> Output {
        let (w1, b1) = (TensorView::from(&W1), TensorView::from(&B1));
        let (w2, b2) = (TensorView::from(&W2), TensorView::from(&B2));
        let hidden = (x.matmul(&w1) + b1).relu();
        (hidden.matmul(&w2) + b2).clip(-1.0, 1.0)
    }

    /// The first layer, fused: `relu(x W1 + b1)` in one pass.
    pub const LAYER1: Dense<'static, f32, Relu, 8, 16> = Dense::new(&W1, Some(&B1), Relu);
    /// The second layer, fused: `clip(h W2 + b2, -1, 1)`.
    pub const LAYER2: Dense<'static, f32, Clip<f32>, 16, 2> = Dense::new(
        &W2,
        Some(&B2),
        Clip {
            min: -1.0,
            max: 1.0,
        },
    );

    /// The same controller as two fused layers: the same bits as [`forward`].
    #[inline(always)]
    pub fn layers(x: &Input) -> Output {
        LAYER2.forward(&LAYER1.forward(x))
    }

    /// By hand: the same arithmetic in the same order.
    #[inline(always)]
    pub fn hand(x: &[f32; 8], out: &mut [f32; 2]) {
        // Constant loop bounds, so that no index can fail (no panic path to link).
        let mut hidden = [0.0f32; 16];
        for j in 0..16 {
            let mut s = x[0] * W1[0][j];
            for i in 1..8 {
                s += x[i] * W1[i][j];
            }
            let v = s + B1[j];
            hidden[j] = if 0.0 > v { 0.0 } else { v };
        }
        for (o, y) in out.iter_mut().enumerate() {
            let mut s = hidden[0] * W2[0][o];
            for j in 1..16 {
                s += hidden[j] * W2[j][o];
            }
            let v = s + B2[o];
            // shaped's clip, written out (NaN stays NaN, as with `clamp`).
            #[allow(clippy::manual_clamp)]
            let clipped = if v < -1.0 {
                -1.0
            } else if v > 1.0 {
                1.0
            } else {
                v
            };
            *y = clipped;
        }
    }
}

/// TFLM's int8 add of `a` (0.02, -5) and `b` (0.03, 7) into (0.05, 3), double rounding, as a
/// hand-written kernel carries it: the multipliers and shifts worked out beforehand, three
/// requantizations per element (TFLM's reference kernel does this, plus its index arithmetic).
/// The baseline of `code_size.sh` and `icount.sh`.
#[inline(always)]
pub fn hand_qadd(x: i8, y: i8) -> i8 {
    use hand_models::{divide_pot, high_mul};
    let xa = divide_pot(high_mul((x as i32 + 5) << 20, 1_431_655_765), 1);
    let yb = high_mul((y as i32 - 7) << 20, 1_073_741_824);
    let raw = divide_pot(high_mul(xa + yb, 1_288_490_141), 19) + 3;
    raw.clamp(-128, 127) as i8
}
