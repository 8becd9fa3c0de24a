//! [`Dense`]: `act(x W + b)` in one pass (G7), and the activations it applies.

use super::{check_output, output, DenseShape};
use crate::element::{Element, Real};
use crate::error::Error;
use crate::tensor::{Storable, Stored, Tensor};
use crate::typed::storage::{Data, DataMut};
use crate::util::{for_rows, Slot};

/// What a layer applies to each output element after its bias (G7): the post-op of a fused
/// layer. [`Identity`], [`Relu`], [`Clip`], or any function through [`Map`]; a type of its own
/// per activation, so a layer carries no code for the others.
pub trait Activation<T>: Copy {
    /// The activation of one output.
    fn apply(&self, x: T) -> T;
}

/// No activation: the output is the sum and bias.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Identity;

impl<T> Activation<T> for Identity {
    #[inline(always)]
    fn apply(&self, x: T) -> T {
        x
    }
}

/// `max(x, 0)` as [`Tensor::relu`](crate::Tensor::relu) computes it (NaN and `-0.0` stay).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Relu;

impl<T: Real> Activation<T> for Relu {
    #[inline(always)]
    fn apply(&self, x: T) -> T {
        crate::element::relu(x)
    }
}

/// `x` clamped to `[min, max]` as [`Tensor::clip`](crate::Tensor::clip) computes it (NaN stays).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clip<T> {
    /// The lower bound.
    pub min: T,
    /// The upper bound.
    pub max: T,
}

impl<T: PartialOrd + Copy> Activation<T> for Clip<T> {
    #[inline(always)]
    fn apply(&self, x: T) -> T {
        crate::element::clip(x, self.min, self.max)
    }
}

/// Any function as an activation: `Map(|x: f32| x.tanh())`, or a `fn(f32) -> f32` in a
/// `const` layer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Map<F>(pub F);

impl<T, F: Fn(T) -> T + Copy> Activation<T> for Map<F> {
    #[inline(always)]
    fn apply(&self, x: T) -> T {
        (self.0)(x)
    }
}

/// A dense (fully connected) layer, `act(x W + b)`, fused (G7): weights `W` stored
/// `[in, out]` (as `x.matmul(&w)` reads them, Keras's layout), an optional bias of `OUT`
/// values, an [`Activation`]. Each output element is G6's sum in `k` order from its first term,
/// then the bias, then the activation, written once: the same bits as
/// `act(x.matmul(&w) + &b)` wherever that product adds in `k` order (every product but the
/// large `f32`/`f64` ones, which take a blocked gemm), without its three intermediate tensors.
///
/// The weights and bias are borrowed arrays, so a layer can be a `const` over `static`
/// parameters (in flash, read in place). Inputs are `[..., IN]` of any rank from 1
/// ([`DenseShape`]); `IN` is checked at compile time.
///
/// ```
/// use shaped::layer::{Clip, Dense, Identity};
/// use shaped::{Shape, Tensor};
/// static W1: [[f32; 2]; 3] = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]];
/// static W2: [[f32; 1]; 2] = [[0.5], [0.25]];
/// const L1: Dense<'static, f32, Identity, 3, 2> = Dense::new(&W1, None, Identity);
/// const L2: Dense<'static, f32, Clip<f32>, 2, 1> =
///     Dense::new(&W2, Some(&[0.5]), Clip { min: -1.0, max: 1.0 });
/// let x = Tensor::<f32, Shape![3]>::from([1.0, 2.0, 3.0]);
/// let y = L2.forward(&L1.forward(&x));
/// assert_eq!(y.into_inner(), [1.0]); // 0.5 * 4 + 0.25 * 5 + 0.5, clipped
/// ```
///
/// An input whose last dim is not `IN` does not compile:
///
/// ```compile_fail
/// use shaped::layer::{Dense, Identity};
/// use shaped::{Shape, Tensor};
/// static W: [[f32; 2]; 3] = [[0.0; 2]; 3];
/// let layer: Dense<'_, f32, Identity, 3, 2> = Dense::new(&W, None, Identity);
/// let y = layer.forward(&Tensor::<f32, Shape![1, 4]>::zeros()); // 4 inputs, not 3
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dense<'w, T, A, const IN: usize, const OUT: usize> {
    weights: &'w [[T; OUT]; IN],
    bias: Option<&'w [T; OUT]>,
    activation: A,
}

impl<'w, T, A, const IN: usize, const OUT: usize> Dense<'w, T, A, IN, OUT> {
    /// The layer with weights `[in, out]`, an optional bias and an activation.
    #[inline(always)]
    pub const fn new(
        weights: &'w [[T; OUT]; IN],
        bias: Option<&'w [T; OUT]>,
        activation: A,
    ) -> Self {
        Dense {
            weights,
            bias,
            activation,
        }
    }

    /// The weights, `[in, out]`.
    #[inline(always)]
    pub const fn weights(&self) -> &'w [[T; OUT]; IN] {
        self.weights
    }

    /// The bias, if any.
    #[inline(always)]
    pub const fn bias(&self) -> Option<&'w [T; OUT]> {
        self.bias
    }

    /// The activation.
    #[inline(always)]
    pub const fn activation(&self) -> &A {
        &self.activation
    }
}

impl<T: Element, A: Activation<T>, const IN: usize, const OUT: usize> Dense<'_, T, A, IN, OUT> {
    /// The layer on `x` (`[..., IN]`), into a new tensor `[..., OUT]`: on the stack for static
    /// shapes, on the heap for runtime leading dims (feature `alloc`), as the operators store
    /// their results.
    #[inline]
    pub fn forward<S, D>(&self, x: &Tensor<T, S, D>) -> Stored<D::Family, T, S::Output<OUT>>
    where
        S: DenseShape<IN>,
        D: Data<T>,
        S::Output<OUT>: Storable,
    {
        output::<T, T, S, D, IN, OUT>(x, |x, out| self.rows(x, out))
    }

    /// [`forward`](Self::forward) into `out`, without an allocator. An error value only when
    /// a runtime leading dim of `out` differs from `x`'s (static dims are checked at compile
    /// time).
    ///
    /// ```
    /// use shaped::layer::{Dense, Relu};
    /// use shaped::{Shape, TensorView, TensorViewMut};
    /// static W: [[f32; 2]; 2] = [[1.0, -1.0], [1.0, 1.0]];
    /// let layer: Dense<'_, f32, Relu, 2, 2> = Dense::new(&W, None, Relu);
    /// let x = [1.0, 2.0, 3.0, -4.0];
    /// let mut y = [0.0; 4];
    /// let xs = TensorView::<f32, Shape![_, 2]>::with_shape([2, 2], &x)?;
    /// let mut ys = TensorViewMut::<f32, Shape![_, 2]>::with_shape([2, 2], &mut y)?;
    /// layer.forward_into(&xs, &mut ys)?;
    /// assert_eq!(y, [3.0, 1.0, 0.0, 0.0]);
    /// let mut short = [0.0; 2];
    /// let mut one = TensorViewMut::<f32, Shape![_, 2]>::with_shape([1, 2], &mut short)?;
    /// assert_eq!(
    ///     layer.forward_into(&xs, &mut one).unwrap_err().to_string(),
    ///     "output [1, 2] is not [2, 2], the dense layer's output for its input (G7)"
    /// );
    /// # Ok::<(), shaped::Error>(())
    /// ```
    #[inline]
    pub fn forward_into<S, D, O>(
        &self,
        x: &Tensor<T, S, D>,
        out: &mut Tensor<T, S::Output<OUT>, O>,
    ) -> Result<(), Error>
    where
        S: DenseShape<IN>,
        D: Data<T>,
        O: DataMut<T>,
    {
        check_output::<T, T, S, D, O, IN, OUT>(x, out)?;
        self.rows(x.as_slice(), out.as_mut_slice());
        Ok(())
    }

    /// Each row of `OUT` outputs from its row of `IN` inputs, each output written once.
    #[inline(always)]
    fn rows<O: Slot<T>>(&self, x: &[T], out: &mut [O]) {
        if IN * OUT <= DOT_MAX {
            for_rows(x, out, |x: &[T; IN], y: &mut [O; OUT]| {
                self.finish(y, |j| self.dot(x, j))
            });
        } else {
            for_rows(x, out, |x: &[T; IN], y: &mut [O; OUT]| {
                self.row_blocks(x, y)
            });
        }
    }

    /// Writes `act(sum(j) + b[j])` into each `y[j]`.
    #[inline(always)]
    fn finish(&self, y: &mut [impl Slot<T>; OUT], mut sum: impl FnMut(usize) -> T) {
        let act = self.activation;
        for j in 0..OUT {
            let s = match self.bias {
                Some(bias) => T::add(sum(j), bias[j]),
                None => sum(j),
            };
            y[j].set(act.apply(s));
        }
    }

    /// Output `j`'s sum over `x` in `k` order from the first term (an empty sum is zero, G6):
    /// the loop nest a hand-written layer is.
    #[inline(always)]
    fn dot(&self, x: &[T; IN], j: usize) -> T {
        let Some(((x0, xs), (w0, ws))) = x.split_first().zip(self.weights.split_first()) else {
            return T::ZERO;
        };
        let mut s = T::mul(*x0, w0[j]);
        for (&xk, wk) in xs.iter().zip(ws) {
            s = T::add(s, T::mul(xk, wk[j]));
        }
        s
    }

    /// One row's outputs for a large layer, [`BLOCK`] at a time: the sums of a block run
    /// along contiguous weights (`s[j] += x[k] w[k][j]`, which vectorizes) instead of down
    /// the columns, each still in `k` order from its first term.
    #[inline(always)]
    fn row_blocks(&self, x: &[T; IN], y: &mut [impl Slot<T>; OUT]) {
        let mut sums = [T::ZERO; BLOCK];
        let mut j0 = 0;
        for block in y.chunks_mut(BLOCK) {
            let sums = &mut sums[..block.len()];
            for (k, (&xk, wk)) in x.iter().zip(self.weights).enumerate() {
                let wk = &wk[j0..j0 + sums.len()];
                if k == 0 {
                    for (s, &w) in sums.iter_mut().zip(wk) {
                        *s = T::mul(xk, w);
                    }
                } else {
                    for (s, &w) in sums.iter_mut().zip(wk) {
                        *s = T::add(*s, T::mul(xk, w));
                    }
                }
            }
            let bias = self.bias.map(|b| &b[j0..j0 + sums.len()]);
            let act = self.activation;
            for (j, (v, &s)) in block.iter_mut().zip(sums.iter()).enumerate() {
                let s = match bias {
                    Some(b) => T::add(s, b[j]),
                    None => s,
                };
                v.set(act.apply(s));
            }
            j0 += sums.len();
        }
    }
}

/// The largest layer (`IN * OUT` weights) whose outputs are summed one at a time down the
/// weight columns, the loop nest with the least code; larger layers sum [`BLOCK`] outputs at
/// a time along the weight rows.
const DOT_MAX: usize = 4096;

/// Outputs summed together by a large layer (on the stack).
const BLOCK: usize = 64;
