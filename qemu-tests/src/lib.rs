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

/// The two-layer perceptron of `examples/dense_layer.rs` (16 -> 32 -> 4, ReLU between), with
/// the same deterministic weights: its outputs are checked to the bit against the example's.
pub mod mlp {
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

    /// What `cargo run --example dense_layer` prints as its exact output.
    pub const EXPECTED: [f32; 8] = [
        0.27100003, 1.7440001, -2.0245004, 0.3285, 0.16400003, 0.97950006, -0.2234999, -1.4100001,
    ];
}
