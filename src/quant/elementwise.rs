//! Prepared quantized elementwise operations (rules Q8, Q9): the multipliers and shifts are
//! derived once from the parameters, in `const` context when they are constants, and each
//! element is then a handful of integer operations ([`fixedpoint`](super::fixedpoint)).

use super::fixedpoint::{
    multiply_by_quantized_multiplier_double_nonneg, multiply_by_quantized_multiplier_double_small,
    multiply_by_quantized_multiplier_single,
};
use super::multiplier::{quantize_multiplier, quantize_multiplier_below_one};
use super::params::{quant_error, Activation, Quant, QuantElement, Rounding};
use crate::error::{Error, QuantProblem};

#[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
mod rows;
#[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
pub(crate) use rows::{AddRows, Held};

/// A `Q31` multiplier and its shift, applied in the chosen rounding mode.
///
/// Five bytes, unaligned: a prepared per-channel convolution in flash holds one per output
/// channel, and the shift (in `-31..=30`, Q3) needs no more than a byte. TFLM's person
/// detection model has 2,738 channels: 13.7 kB of multipliers at five bytes, 21.9 kB at
/// eight (`qemu-tests/README.md`). The multiplier is read once per output channel, never in
/// a kernel's inner loop, and the Cortex-M4 and x86 load unaligned words in one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, packed)]
pub(crate) struct Requant {
    multiplier: i32,
    shift: i8,
}

impl Requant {
    /// The zero multiplier (a placeholder before the real ones are derived).
    pub(crate) const ZERO: Requant = Requant {
        multiplier: 0,
        shift: 0,
    };

    /// `real` as a multiplier (Q3), or the error naming it.
    pub(crate) const fn new(
        real: f64,
        rounding: Rounding,
        below_one: bool,
    ) -> Result<Requant, Error> {
        let q = if below_one {
            quantize_multiplier_below_one(real, rounding)
        } else {
            quantize_multiplier(real, rounding)
        };
        match q {
            // Double rounding shifts left by the shift in 32 bits first, which C leaves
            // undefined past 31 bits: such a multiplier (2^30 or more) is an error (Q3).
            Some((_, shift)) if shift > 30 => Err(quant_error(QuantProblem::Multiplier {
                bits: real.to_bits(),
            })),
            // In `-31..=30` (`quantize_multiplier` gives no shift below -31): a byte.
            Some((multiplier, shift)) => Ok(Requant {
                multiplier,
                shift: shift as i8,
            }),
            None => Err(quant_error(QuantProblem::Multiplier {
                bits: real.to_bits(),
            })),
        }
    }

    /// A multiplier and shift as given (a derived one adjusted: MEAN's, Q23). A shift above
    /// 30 (a ratio of scales of `2^31` or more, which only double rounding leaves unsaturated,
    /// Q3) is kept as the one of `32..64` with its low five bits: the double rounding form
    /// shifts left by those bits alone (`wrapping_shl`), so every result is unchanged.
    pub(crate) const fn from_parts(multiplier: i32, shift: i32) -> Requant {
        let shift = if shift > 30 { 32 + (shift & 31) } else { shift };
        Requant {
            multiplier,
            shift: shift as i8,
        }
    }

    /// The `Q31` multiplier and the shift.
    pub(crate) const fn parts(self) -> (i32, i32) {
        (self.multiplier, self.shift as i32)
    }

    /// `x` requantized. The multiplier is the derivation's, never negative, so the double
    /// rounding form without its saturating case gives the same result.
    #[inline(always)]
    pub(crate) fn apply(self, x: i32, rounding: Rounding) -> i32 {
        match rounding {
            Rounding::Double => multiply_by_quantized_multiplier_double_nonneg(
                x,
                self.multiplier,
                self.shift as i32,
            ),
            Rounding::Single => {
                multiply_by_quantized_multiplier_single(x, self.multiplier, self.shift as i32)
            }
        }
    }

    /// [`apply`](Self::apply) for a multiplier below one and `|x| < 2^29` (an add's terms and
    /// sums), where double rounding has a shorter form with the same result.
    #[inline(always)]
    fn apply_below_one(self, x: i32, rounding: Rounding) -> i32 {
        match rounding {
            Rounding::Double => {
                multiply_by_quantized_multiplier_double_small(x, self.multiplier, self.shift as i32)
            }
            Rounding::Single => {
                multiply_by_quantized_multiplier_single(x, self.multiplier, self.shift as i32)
            }
        }
    }
}

/// What every prepared operation holds besides its multipliers: the zero points as offsets,
/// the clamp of the fused activation (Q7), the rounding mode and the output's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Frame<E> {
    pub(crate) a_offset: i32,
    pub(crate) b_offset: i32,
    out_offset: i32,
    min: i32,
    max: i32,
    pub(crate) rounding: Rounding,
    pub(crate) inputs: (Quant<E>, Quant<E>),
    pub(crate) output: Quant<E>,
}

impl<E: QuantElement> Frame<E> {
    pub(crate) const fn new(
        a: Quant<E>,
        b: Quant<E>,
        out: Quant<E>,
        activation: Activation,
        rounding: Rounding,
    ) -> Result<Self, Error> {
        let Some((min, max)) = activation.range(out, E::MIN, E::MAX) else {
            return Err(quant_error(QuantProblem::ActivationRange));
        };
        Ok(Frame {
            a_offset: -a.zero_point(),
            b_offset: -b.zero_point(),
            out_offset: out.zero_point(),
            min,
            max,
            rounding,
            inputs: (a, b),
            output: out,
        })
    }

    /// `rq(x)` in this frame's rounding.
    #[inline(always)]
    fn requant(&self, x: i32, r: Requant) -> i32 {
        r.apply(x, self.rounding)
    }

    /// The requantized value with the output zero point, clamped (Q7) and stored.
    #[inline(always)]
    pub(crate) fn finish(&self, scaled: i32) -> E {
        // `max` then `min`, not `clamp`, which checks `min <= max` (true by construction) and
        // keeps a panic path in every kernel.
        E::saturate((scaled + self.out_offset).max(self.min).min(self.max))
    }
}

/// The frame and the one multiplier `sa sb / so` of a multiply or a matrix product (Q9, Q17):
/// the scales widened to `f64` and multiplied there, as TFLM's `MUL` and its
/// `GetQuantizedConvolutionMultipler` do, any size below `2^30` (Q3).
pub(crate) const fn scaled_product<E: QuantElement>(
    a: Quant<E>,
    b: Quant<E>,
    out: Quant<E>,
    activation: Activation,
    rounding: Rounding,
) -> Result<(Frame<E>, Requant), Error> {
    let real = a.scale() as f64 * b.scale() as f64 / out.scale() as f64;
    let requant = match Requant::new(real, rounding, false) {
        Ok(r) => r,
        Err(e) => return Err(e),
    };
    match Frame::new(a, b, out, activation, rounding) {
        Ok(frame) => Ok((frame, requant)),
        Err(e) => Err(e),
    }
}

/// `?` for `const fn`.
macro_rules! try_const {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return Err(e),
        }
    };
}

/// A prepared quantized add (Q8) or subtract (Q11), TFLM's `ADD` and `SUB` for `i8` and `u8`
/// ([`QAdd`], [`QSub`]): both inputs are rescaled to
/// a common scale, twice the larger input scale, with 20 bits of headroom, added, and
/// requantized to the output:
///
/// ```text
/// a' = requant((a - za) * 2^20, sa / (2 max(sa, sb)))
/// b' = requant((b - zb) * 2^20, sb / (2 max(sa, sb)))
/// out = clamp(requant(a' + b', 2 max(sa, sb) / (2^20 so)) + zo, activation)
/// ```
///
/// each `requant` a `Q31` multiplier below one (Q3) in the chosen rounding (Q6).
///
/// ```
/// use shaped::quant::{Activation, QAdd, Quant, Rounding};
/// const ADD: QAdd<i8> = match QAdd::new(
///     Quant::new_const(0.02, -5),
///     Quant::new_const(0.03, 7),
///     Quant::new_const(0.05, 3),
///     Activation::None,
///     Rounding::Double,
/// ) {
///     Ok(add) => add,
///     Err(_) => panic!(),
/// };
/// // 0.02 * (100 + 5) + 0.03 * (-100 - 7) = 2.1 - 3.21 = -1.11: -22.2 steps of 0.05, + 3.
/// assert_eq!(ADD.apply(100, -100), -19);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QAddSub<E, const SUB: bool> {
    frame: Frame<E>,
    a: Requant,
    b: Requant,
    out: Requant,
}

/// A prepared quantized add (Q8): see [`QAddSub`].
pub type QAdd<E> = QAddSub<E, false>;

/// A prepared quantized subtract (Q11), TFLM's `SUB`: the add's rescaling and multipliers
/// (Q8) with the second input's term subtracted. See [`QAddSub`].
pub type QSub<E> = QAddSub<E, true>;

/// The headroom of the add's common scale for 8-bit elements (TFLM's `left_shift`).
const ADD_LEFT_SHIFT: u32 = 20;

impl<E: QuantElement, const SUB: bool> QAddSub<E, SUB> {
    /// The add (or subtract) of inputs quantized by `a` and `b` into `out`, clamped by
    /// `activation` (Q7), requantized with `rounding`. An error when a derived multiplier is
    /// not below one (the output scale is smaller than `2 max(sa, sb) / 2^20`) or an
    /// activation bound does not fit.
    pub const fn new(
        a: Quant<E>,
        b: Quant<E>,
        out: Quant<E>,
        activation: Activation,
        rounding: Rounding,
    ) -> Result<Self, Error> {
        // As TFLM: the larger scale in f32, then everything in f64 (for the subtract too:
        // the derivation cases of `tests/reference/tflm_sub.txt` tell the two apart).
        let larger = if a.scale() > b.scale() {
            a.scale()
        } else {
            b.scale()
        };
        let twice = 2.0 * larger as f64;
        let real_out = twice / ((1u32 << ADD_LEFT_SHIFT) as f64 * out.scale() as f64);
        let (ra, rb, ro) = (a.scale() as f64 / twice, b.scale() as f64 / twice, real_out);
        Ok(QAddSub {
            a: try_const!(Requant::new(ra, rounding, true)),
            b: try_const!(Requant::new(rb, rounding, true)),
            out: try_const!(Requant::new(ro, rounding, true)),
            frame: try_const!(Frame::new(a, b, out, activation, rounding)),
        })
    }

    /// The output's parameters.
    #[inline(always)]
    pub const fn output(&self) -> Quant<E> {
        self.frame.output
    }

    /// The parameters of the inputs it was prepared for; `run` refuses others.
    #[inline(always)]
    pub const fn inputs(&self) -> (Quant<E>, Quant<E>) {
        self.frame.inputs
    }

    /// The quantized sum (or difference) of one pair of elements.
    #[inline(always)]
    pub fn apply(&self, x: E, y: E) -> E {
        self.combine(self.term_a(x), self.term_b(y))
    }

    /// The first input's rescaled term: `rq((x - za) 2^20, sa / s)`.
    #[inline(always)]
    fn term_a(&self, x: E) -> i32 {
        let f = &self.frame;
        // |x - zx| <= 255 < 2^8, so the shifted values stay below 2^28, and the multiplier is
        // below one (Q3, checked when prepared).
        self.a
            .apply_below_one((x.to_i32() + f.a_offset) << ADD_LEFT_SHIFT, f.rounding)
    }

    /// The second input's rescaled term.
    #[inline(always)]
    fn term_b(&self, y: E) -> i32 {
        let f = &self.frame;
        self.b
            .apply_below_one((y.to_i32() + f.b_offset) << ADD_LEFT_SHIFT, f.rounding)
    }

    /// The output from the two terms.
    #[inline(always)]
    fn combine(&self, xs: i32, ys: i32) -> E {
        self.combine_in(self.frame.rounding, xs, ys)
    }

    /// [`combine`](Self::combine) with the frame's rounding given, so that a loop can be
    /// compiled for each rounding with no test inside it.
    #[inline(always)]
    fn combine_in(&self, rounding: Rounding, xs: i32, ys: i32) -> E {
        // Each term is below 2^28 (a value below 2^28 times a multiplier below one), so the
        // sum or difference is below 2^29.
        let combined = if SUB { xs - ys } else { xs + ys };
        self.frame
            .finish(self.out.apply_below_one(combined, rounding))
    }

    /// Each input's term for every value of `E` (256 each): the per-element work of a large
    /// operation drops from three requantizations to one. The same numbers as [`apply`]
    /// computes, looked up.
    ///
    /// [`apply`]: Self::apply
    pub(crate) fn terms(&self) -> Terms {
        let mut terms = Terms {
            a: [0; 256],
            b: [0; 256],
        };
        for i in 0..256 {
            let v = E::saturate(E::MIN + i as i32);
            terms.a[i] = self.term_a(v);
            terms.b[i] = self.term_b(v);
        }
        terms
    }

    /// [`apply`](Self::apply) with the terms looked up in `terms` (from [`terms`](Self::terms)).
    #[inline(always)]
    pub(crate) fn apply_terms(&self, terms: &Terms, x: E, y: E) -> E {
        self.combine(terms.a[index(x)], terms.b[index(y)])
    }
}

/// The rescaled terms of an add or subtract for every input value ([`QAddSub::terms`]).
pub(crate) struct Terms {
    a: [i32; 256],
    b: [i32; 256],
}

/// `x`'s position among the 256 values of `E`.
#[inline(always)]
fn index<E: QuantElement>(x: E) -> usize {
    // In 0..=255 for i8 (-128..=127) and u8 alike; the mask lets the bounds check go.
    ((x.to_i32() - E::MIN) & 0xff) as usize
}

/// A prepared quantized multiply (Q9), TFLM's `MUL` for `i8` and `u8`: the product of the
/// zero-point-shifted inputs, requantized once by `sa sb / so` (any size, Q3):
///
/// ```text
/// out = clamp(requant((a - za) (b - zb), sa sb / so) + zo, activation)
/// ```
///
/// ```
/// use shaped::quant::{Activation, QMul, Quant, Rounding};
/// let mul = QMul::new(
///     Quant::<i8>::new(0.1, 0)?,
///     Quant::new(0.1, 0)?,
///     Quant::new(0.25, 0)?,
///     Activation::None,
///     Rounding::Double,
/// )?;
/// // 1.0 * 2.0 = 2.0: 8 steps of 0.25.
/// assert_eq!(mul.apply(10, 20), 8);
/// # Ok::<(), shaped::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QMul<E> {
    frame: Frame<E>,
    out: Requant,
}

impl<E: QuantElement> QMul<E> {
    /// The multiply of inputs quantized by `a` and `b` into `out`, clamped by `activation`,
    /// requantized with `rounding`. An error value when an activation bound does not fit, or,
    /// in double rounding, the multiplier `sa sb / so` is `2^30` or more (Q3).
    pub const fn new(
        a: Quant<E>,
        b: Quant<E>,
        out: Quant<E>,
        activation: Activation,
        rounding: Rounding,
    ) -> Result<Self, Error> {
        let (frame, out) = try_const!(scaled_product(a, b, out, activation, rounding));
        Ok(QMul { frame, out })
    }

    /// The output's parameters.
    #[inline(always)]
    pub const fn output(&self) -> Quant<E> {
        self.frame.output
    }

    /// The parameters of the inputs it was prepared for; `run` refuses others.
    #[inline(always)]
    pub const fn inputs(&self) -> (Quant<E>, Quant<E>) {
        self.frame.inputs
    }

    /// The quantized product of one pair of elements.
    #[inline(always)]
    pub fn apply(&self, x: E, y: E) -> E {
        let f = &self.frame;
        // |x - zx| <= 255, so the product is at most 65025 in magnitude.
        let product = (x.to_i32() + f.a_offset) * (y.to_i32() + f.b_offset);
        f.finish(f.requant(product, self.out))
    }
}

/// The headroom of the comparisons' rescaling (TFLM's `left_shift` for them).
const COMPARE_LEFT_SHIFT: u32 = 8;

/// A prepared quantized comparison (Q12), TFLM's `EQUAL`, `NOT_EQUAL`, `LESS`, ... on 8-bit
/// inputs: each side is rescaled to its real value times a common power of two,
/// `rq((x - zx) 2^8, sx)` with the scale itself as a multiplier below one, and the rescaled
/// integers compared. An input scale of 1 or more is an error (TFLM refuses it).
///
/// ```
/// use shaped::quant::{QCompare, Quant, Rounding};
/// use shaped::CompareOp;
/// let lt = QCompare::new(Quant::<i8>::new(0.5, 0)?, Quant::new(0.25, 0)?, CompareOp::Lt, Rounding::Double)?;
/// assert!(lt.apply(1, 3)); // 0.5 < 0.75
/// assert!(!lt.apply(1, 2)); // 0.5 < 0.5
/// # Ok::<(), shaped::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QCompare<E> {
    a_offset: i32,
    b_offset: i32,
    a: Requant,
    b: Requant,
    op: crate::op::CompareOp,
    rounding: Rounding,
    inputs: (Quant<E>, Quant<E>),
}

impl<E: QuantElement> QCompare<E> {
    /// `op` on inputs quantized by `a` and `b`, rescaled with `rounding`.
    pub const fn new(
        a: Quant<E>,
        b: Quant<E>,
        op: crate::op::CompareOp,
        rounding: Rounding,
    ) -> Result<Self, Error> {
        Ok(QCompare {
            a_offset: -a.zero_point(),
            b_offset: -b.zero_point(),
            a: try_const!(Requant::new(a.scale() as f64, rounding, true)),
            b: try_const!(Requant::new(b.scale() as f64, rounding, true)),
            op,
            rounding,
            inputs: (a, b),
        })
    }

    /// The parameters of the inputs it was prepared for; `run` refuses others.
    #[inline(always)]
    pub const fn inputs(&self) -> (Quant<E>, Quant<E>) {
        self.inputs
    }

    /// The comparison of one pair of elements.
    #[inline(always)]
    pub fn apply(&self, x: E, y: E) -> bool {
        use crate::op::CompareOp;
        let xs = self.a.apply(
            (x.to_i32() + self.a_offset) << COMPARE_LEFT_SHIFT,
            self.rounding,
        );
        let ys = self.b.apply(
            (y.to_i32() + self.b_offset) << COMPARE_LEFT_SHIFT,
            self.rounding,
        );
        match self.op {
            CompareOp::Eq => xs == ys,
            CompareOp::Ne => xs != ys,
            CompareOp::Lt => xs < ys,
            CompareOp::Le => xs <= ys,
            CompareOp::Gt => xs > ys,
            CompareOp::Ge => xs >= ys,
        }
    }
}

/// A prepared quantized maximum or minimum (Q13): TFLM compares the stored integers as they
/// are, which means something only when both inputs share their parameters, so here they must
/// (an error otherwise); the result has those parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QExtreme<E> {
    largest: bool,
    output: Quant<E>,
}

impl<E: QuantElement> QExtreme<E> {
    /// The elementwise maximum (`largest`) or minimum of inputs quantized by `a` and `b`.
    pub fn new(a: Quant<E>, b: Quant<E>, largest: bool) -> Result<Self, Error> {
        if a != b {
            return Err(quant_error(QuantProblem::Mismatch));
        }
        Ok(QExtreme { largest, output: a })
    }

    /// The output's parameters (the inputs').
    #[inline(always)]
    pub const fn output(&self) -> Quant<E> {
        self.output
    }

    /// The parameters of the inputs it was prepared for (both the same); `run` refuses
    /// others.
    #[inline(always)]
    pub const fn inputs(&self) -> (Quant<E>, Quant<E>) {
        (self.output, self.output)
    }

    /// The larger (or smaller) of one pair of elements.
    #[inline(always)]
    pub fn apply(&self, x: E, y: E) -> E {
        let (x, y) = (x.to_i32(), y.to_i32());
        E::saturate(if self.largest { x.max(y) } else { x.min(y) })
    }
}

/// A prepared requantization (Q14), TFLM's `QUANTIZE` from 8-bit to 8-bit: each value moves
/// from parameters `from` (elements `E`) to `to` (elements `F`) by one multiplier
/// `s_from / s_to` (any size, Q3): `clamp(rq(q - z_from, s_from / s_to) + z_to)`.
///
/// ```
/// use shaped::quant::{QRequant, Quant, Rounding};
/// let r = QRequant::new(Quant::<i8>::new(0.5, 0)?, Quant::<u8>::new(0.25, 128)?, Rounding::Double);
/// assert_eq!(r.apply(-3i8), 122u8); // -1.5 = 0.25 * (122 - 128)
/// # Ok::<(), shaped::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QRequant<E, F> {
    from_offset: i32,
    to: Quant<F>,
    multiplier: Requant,
    rounding: Rounding,
    element: core::marker::PhantomData<E>,
}

impl<E: QuantElement, F: QuantElement> QRequant<E, F> {
    /// From `from` to `to` with `rounding`. Valid scales always give a representable
    /// multiplier (Q3).
    pub const fn new(from: Quant<E>, to: Quant<F>, rounding: Rounding) -> Self {
        let real = from.scale() as f64 / to.scale() as f64;
        // A ratio of two finite positive f32s is a normal positive f64, which Q3 represents.
        let multiplier = match quantize_multiplier(real, rounding) {
            Some((multiplier, shift)) => Requant::from_parts(multiplier, shift),
            None => Requant {
                multiplier: 0,
                shift: 0,
            },
        };
        QRequant {
            from_offset: -from.zero_point(),
            to,
            multiplier,
            rounding,
            element: core::marker::PhantomData,
        }
    }

    /// The output's parameters.
    #[inline(always)]
    pub const fn output(&self) -> Quant<F> {
        self.to
    }

    /// One value, requantized.
    #[inline(always)]
    pub fn apply(&self, q: E) -> F {
        let scaled = self
            .multiplier
            .apply(q.to_i32() + self.from_offset, self.rounding);
        F::saturate(scaled.saturating_add(self.to.zero_point()))
    }
}

/// From this many elements, an add or subtract looks its input terms up in tables (built
/// once per call from 512 requantizations) instead of computing them for each element: on x86
/// the `[8, 256, 56, 56] + [1, 256, 1, 1]` add ran at 129 Melem/s computing each term and at
/// 1646 Melem/s looking them up, the one requantization left vectorized (`benches/quantized.rs`).
/// Static shapes decide at compile time, so a small static add keeps the short code. It is the
/// output that counts: `[256, 1] + [1, 256]` has 256-element inputs and 65536 outputs, and on
/// the Cortex-M4 took 46.9 instructions per element computing each term against 36.9 with the
/// tables (`qemu-tests/icount.sh`).
pub(crate) const TABLE_MIN: usize = 1024;

/// The number of elements of a shape whose every dim is static, `None` when one is not (or
/// the count overflows): a constant, to choose a kernel at compile time.
pub(crate) const fn static_count(dims: &[Option<usize>]) -> Option<usize> {
    let mut n = 1usize;
    let mut i = 0;
    while i < dims.len() {
        match dims[i] {
            Some(d) => match n.checked_mul(d) {
                Some(m) => n = m,
                None => return None,
            },
            None => return None,
        }
        i += 1;
    }
    Some(n)
}

/// Whether the broadcast of shapes `a` and `b` under `mode` has at least [`TABLE_MIN`]
/// elements: the output's size decides between computed and looked-up terms. Shapes that do
/// not broadcast answer `false`, and the broadcast itself then reports the error.
pub(crate) fn output_is_large(a: &[usize], b: &[usize], mode: crate::rules::AutoBroadcast) -> bool {
    crate::rules::broadcast_shapes(a, b, mode)
        .ok()
        .and_then(|out| crate::rules::checked_element_count(&out))
        .is_some_and(|n| n >= TABLE_MIN)
}

/// Runs `$body` with `$f`, the element function of the prepared operation `$op`: computed
/// (`direct`), or for `tables` operations, looked up when the operands are `$large`. On x86
/// with `std`, a large `tables` operation runs `$rows` instead, with `$g` an [`AddRows`]: its
/// rows holding one input's value read their outputs from byte tables (module `rows`).
macro_rules! with_element_fn {
    (direct $op:expr, $large:expr, |$f:ident| $body:expr, |$g:ident| $rows:expr) => {{
        let _ = $large;
        let $f = |x: &E, y: &E| $op.apply(*x, *y);
        $body
    }};
    (tables $op:expr, $large:expr, |$f:ident| $body:expr, |$g:ident| $rows:expr) => {{
        if $large {
            #[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
            {
                let $g = $crate::quant::elementwise::AddRows::new($op);
                $rows
            }
            #[cfg(not(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64"))))]
            {
                let terms = $op.terms();
                let $f = |x: &E, y: &E| $op.apply_terms(&terms, *x, *y);
                $body
            }
        } else {
            let $f = |x: &E, y: &E| $op.apply(*x, *y);
            $body
        }
    }};
}
pub(crate) use with_element_fn;

/// The error when operands do not carry the parameters an operation was prepared for.
///
/// Inlined, with the error out of line: parameters known where the operation is called fold
/// the comparison, and the error value with it (see [`not_prepared`]).
#[inline(always)]
pub(crate) fn check_inputs<E>(
    prepared: (Quant<E>, Quant<E>),
    a: Quant<E>,
    b: Quant<E>,
) -> Result<(), Error> {
    if (a, b) == prepared {
        return Ok(());
    }
    Err(not_prepared())
}

/// The error of operands that carry other parameters than the prepared ones (Q1). Out of
/// line and cold, so that the checks that return it stay small where they are inlined.
#[cold]
#[inline(never)]
pub(crate) fn not_prepared() -> Error {
    quant_error(QuantProblem::NotPrepared)
}

#[cfg(test)]
mod tests {
    use super::Requant;
    use crate::quant::fixedpoint::multiply_by_quantized_multiplier_double_nonneg as double;
    use crate::quant::fixedpoint::multiply_by_quantized_multiplier_single as single;
    use crate::quant::Rounding;

    #[test]
    fn a_multiplier_and_its_shift_take_five_bytes() {
        assert_eq!(core::mem::size_of::<Requant>(), 5);
        assert_eq!(core::mem::size_of::<[Requant; 2738]>(), 13_690);
    }

    #[test]
    fn every_shift_gives_the_result_of_the_shift_as_derived() {
        let xs = [0, 1, -1, 7, -7, 1000, -1000, 1 << 20, i32::MAX, i32::MIN];
        let m = 1_518_500_250; // 2^31 / sqrt(2)
        for shift in (-40..=300).chain([i32::MIN / 2, i32::MAX / 2]) {
            let r = Requant::from_parts(m, shift.max(-31));
            let (got_m, got_shift) = r.parts();
            assert_eq!(got_m, m);
            assert!(
                (-31..64).contains(&got_shift),
                "{shift} kept as {got_shift}"
            );
            for x in xs {
                let expected = double(x, m, shift.max(-31));
                assert_eq!(r.apply(x, Rounding::Double), expected, "{x} {shift}");
                let expected = single(x, m, shift.max(-31));
                assert_eq!(r.apply(x, Rounding::Single), expected, "{x} {shift}");
            }
        }
    }

    #[test]
    fn static_count_is_the_product_of_static_dims_only() {
        use super::static_count;
        assert_eq!(static_count(&[Some(2), Some(3)]), Some(6));
        assert_eq!(static_count(&[]), Some(1));
        assert_eq!(static_count(&[Some(2), None]), None);
        assert_eq!(static_count(&[Some(usize::MAX), Some(2)]), None);
    }

    #[test]
    fn the_output_size_decides_the_tables() {
        use super::output_is_large;
        use crate::rules::AutoBroadcast::{Numpy, Pdpd};
        // 256-element inputs, 65536 outputs.
        assert!(output_is_large(&[256, 1], &[1, 256], Numpy));
        assert!(output_is_large(&[8, 256, 56, 56], &[256, 1, 1], Numpy));
        assert!(!output_is_large(&[32], &[32], Numpy));
        assert!(!output_is_large(&[0, 4096], &[1, 4096], Numpy));
        // PDPD keeps the first operand's shape.
        assert!(output_is_large(&[64, 64], &[64], Pdpd { axis: 0 }));
        // Shapes that do not broadcast: the computed terms, and the broadcast's error.
        assert!(!output_is_large(&[4096], &[3], Numpy));
    }
}
