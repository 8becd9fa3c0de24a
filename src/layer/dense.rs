//! [`Dense`]: `act(x W + b)` in one pass (G7), and the activations it applies.

use super::{check_output, output, output_filled, DenseShape};
use crate::element::{Element, Real};
use crate::error::Error;
use crate::quant::elementwise::static_count;
use crate::rules::MatMulOptions;
use crate::runtime::ArrayRef;
use crate::tensor::SMALL_PRODUCT;
use crate::tensor::{Storable, Stored, Tensor};
use crate::typed::shape::Shape;
use crate::typed::storage::fits_inline;
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
/// values, an [`Activation`]. Each output element is `matmul`'s sum, then the bias, then the
/// activation: the bits of `act(x.matmul(&w) + &b)` at every size. Below 4096 multiply-adds
/// (the products `matmul` adds in `k` order) each output is written once, from its sum,
/// without the operators' three intermediate tensors; larger layers run `matmul`'s shared
/// kernel (the blocked gemm for `f32`/`f64`) and then the bias and activation in place.
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
        fits_inline!(Stored<D::Family, T, S::Output<OUT>>);
        if Self::large::<S>(x.len()) {
            let dims = x.shape();
            output_filled::<T, T, S, D, IN, OUT>(x, T::ZERO, |x, out| {
                if let Err(e) = self.product(dims.as_ref(), x, out) {
                    crate::error::panic_with(e)
                }
            })
        } else {
            output::<T, T, S, D, IN, OUT>(x, |x, out| self.rows(x, out))
        }
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
        if Self::large::<S>(x.len()) {
            self.product(x.shape().as_ref(), x.as_slice(), out.as_mut_slice())
        } else {
            self.rows(x.as_slice(), out.as_mut_slice());
            Ok(())
        }
    }

    /// Each row of `OUT` outputs from its row of `IN` inputs, each output written once.
    #[inline(always)]
    fn rows<O: Slot<T>>(&self, x: &[T], out: &mut [O]) {
        for_rows(x, out, |x: &[T; IN], y: &mut [O; OUT]| self.row(x, y));
    }

    /// One row: each output's sum in `k` order from its first term (an empty sum is zero,
    /// G6), its bias, its activation. Indexed by the two loop counters, as a hand-written
    /// layer is: every bound is a constant at every opt-level (at "z", a sum over zipped
    /// iterators kept a bounds check, whose panic linked `core::fmt`: the Cortex-M controller
    /// took 3228 bytes instead of 1104), and on x86 the outputs vectorize across `j`
    /// (2.7x faster than a sum over `x` and the weight rows zipped, `benches/layers.rs`).
    #[inline(always)]
    #[allow(clippy::needless_range_loop)]
    fn row<O: Slot<T>>(&self, x: &[T; IN], y: &mut [O; OUT]) {
        let (w, act) = (self.weights, self.activation);
        for j in 0..OUT {
            // `matmul`'s sum: in the accumulator type, rounded once before the bias.
            let (add, mul) = (<T::Acc as Element>::add, <T::Acc as Element>::mul);
            let mut s = if IN == 0 {
                <T::Acc as Element>::ZERO
            } else {
                mul(x[0].to_acc(), w[0][j].to_acc())
            };
            for k in 1..IN {
                s = add(s, mul(x[k].to_acc(), w[k][j].to_acc()));
            }
            let mut s = T::from_acc(s);
            if let Some(bias) = self.bias {
                s = T::add(s, bias[j]);
            }
            y[j].set(act.apply(s));
        }
    }

    /// Whether the input (of `x_len` elements, of shape `S`) makes a product of
    /// [`SMALL_PRODUCT`] multiply-adds or more, which `matmul` computes with its shared
    /// kernel. A constant for static shapes, so that a small static layer never compiles the
    /// shared kernel's call (a count at run time is what once kept it in the Cortex-M
    /// controller's firmware at opt-level "s": 13 kB, `qemu-tests/README.md`).
    #[inline(always)]
    fn large<S: Shape>(x_len: usize) -> bool {
        match const { static_count(S::STATIC_DIMS) } {
            Some(_) => const { large_count(static_count(S::STATIC_DIMS), OUT) },
            None => x_len.saturating_mul(OUT) >= SMALL_PRODUCT,
        }
    }

    /// A large layer: the product by `matmul`'s own kernel for its size (the same sums in the
    /// same order as `x.matmul(&w)`: the blocked gemm for large `f32`/`f64` products, 3.7x
    /// faster than summing 64 outputs at a time along the weight rows, `benches/layers.rs`),
    /// then the bias and the activation in place.
    fn product(&self, x_dims: &[usize], x: &[T], out: &mut [T]) -> Result<(), Error> {
        let w = ArrayRef::trusted(&[IN, OUT], self.weights.as_flattened());
        let x = ArrayRef::trusted(x_dims, x);
        crate::runtime::matmul_into(x, w, MatMulOptions::default(), out)?;
        let act = self.activation;
        if OUT > 0 {
            for y in out.chunks_exact_mut(OUT) {
                match self.bias {
                    Some(bias) => {
                        for (v, &b) in y.iter_mut().zip(bias) {
                            *v = act.apply(T::add(*v, b));
                        }
                    }
                    None => {
                        for v in y {
                            *v = act.apply(*v);
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// Whether a static input of `count` elements (`None`: not static) times `OUT` outputs is a
/// large product.
const fn large_count(count: Option<usize>, out: usize) -> bool {
    match count {
        Some(n) => n.saturating_mul(out) >= SMALL_PRODUCT,
        None => false,
    }
}
