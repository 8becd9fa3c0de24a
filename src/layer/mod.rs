//! Fused layers: a matrix product, its bias and its activation in one pass over the output,
//! the way a hand-written loop nest computes a neural network layer. The operators build each
//! intermediate result as a whole tensor (`(x.matmul(&w) + &b).relu()` makes three); a layer
//! here writes each output element once, from its sum, with nothing in between: the same
//! numbers, less code and less memory (the Cortex-M suite's `code_size.sh` compares both with
//! hand-fused loops). Layers of 4096 multiply-adds or more run the operators' own product
//! kernels (their blocked and AVX2 forms) and then the bias and activation in place.
//!
//! Layers are for static parameter shapes: the weights and bias are arrays whose sizes are
//! type parameters (`static` data in flash on a microcontroller, read in place), prepared once
//! (in a `const` when the parameters are constants) and applied to inputs `[..., IN]` of any
//! rank from 1, their leading dims static or runtime ([`DenseShape`]).
//!
//! | layer | rule | computes |
//! |---|---|---|
//! | [`Dense`] | G7 | `act(x W + b)` for any [`Element`](crate::Element), weights `[in, out]` |
//! | [`QDense`] | Q19 | TFLM's int8 `FULLY_CONNECTED`, per-tensor weights `[out, in]` |
//! | [`QDensePerChannel`] | Q19 | the same with per-channel weights |
//!
//! ```
//! use shaped::layer::{Dense, Relu};
//! use shaped::{Shape, Tensor};
//! static W: [[f32; 3]; 2] = [[1.0, -1.0, 0.5], [2.0, 1.0, -0.5]];
//! static B: [f32; 3] = [0.0, 0.5, -1.0];
//! const LAYER: Dense<'static, f32, Relu, 2, 3> = Dense::new(&W, Some(&B), Relu);
//! let x = Tensor::<f32, Shape![2, 2]>::from([[1.0, 1.0], [0.5, -1.0]]);
//! let y: Tensor<f32, Shape![2, 3]> = LAYER.forward(&x);
//! assert_eq!(y.into_inner(), [[3.0, 0.5, 0.0], [0.0, 0.0, 0.0]]);
//! ```

mod dense;
mod quantized;

pub use crate::typed::rules::DenseShape;
pub use dense::{Activation, Clip, Dense, Identity, Map, Relu};
pub use quantized::{QDense, QDenseOutput, QDensePerChannel};

use crate::error::{Error, ErrorKind, Operation};
use crate::tensor::{ResultStorage, Storable, Stored, Tensor};
use crate::typed::shape::{Shape, MAX_STATIC_RANK};
use crate::typed::storage::{Data, DataMut};
use core::mem::MaybeUninit;

/// The output of a layer with `OUT` outputs on `x`, built in place: `fill(x, out)` gets the
/// input's row-major elements and the output's slots, and must write every slot (each layer's
/// kernel writes each output element once, row by row). No zero fill first: on a Cortex-M4
/// it cost a `memclr` call per layer and the result's copy (`qemu-tests/code_size.sh`).
#[inline(always)]
fn output<T, V, S, D, const IN: usize, const OUT: usize>(
    x: &Tensor<T, S, D>,
    fill: impl FnOnce(&[T], &mut [MaybeUninit<V>]),
) -> Stored<D::Family, V, S::Output<OUT>>
where
    S: DenseShape<IN>,
    D: Data<T>,
    S::Output<OUT>: Storable,
{
    let dims = output_dims::<OUT>(x.shape().as_ref());
    let rank = S::RANK;
    // SAFETY: every layer's `fill` writes each of the output's rows (as many as `x` has: the
    // dims are `x`'s with `OUT` last), every element of each, or panics.
    unsafe {
        <<S::Output<OUT> as Shape>::Kind as ResultStorage<S::Output<OUT>>>::written::<D::Family, V>(
            &dims[..rank],
            |out| fill(x.as_slice(), out),
        )
    }
}

/// [`output`] filled with `init` first, for a kernel that writes into initialised elements
/// (the shared product kernels of large layers; their zero fill is small beside the product).
#[inline(always)]
fn output_filled<T, V: Copy, S, D, const IN: usize, const OUT: usize>(
    x: &Tensor<T, S, D>,
    init: V,
    fill: impl FnOnce(&[T], &mut [V]),
) -> Stored<D::Family, V, S::Output<OUT>>
where
    S: DenseShape<IN>,
    D: Data<T>,
    S::Output<OUT>: Storable,
{
    let dims = output_dims::<OUT>(x.shape().as_ref());
    <<S::Output<OUT> as Shape>::Kind as ResultStorage<S::Output<OUT>>>::filled::<D::Family, V>(
        &dims[..S::RANK],
        init,
        |out| fill(x.as_slice(), out),
    )
}

/// `x`'s dims with the last one replaced by `OUT` (`x` has at most `MAX_STATIC_RANK` dims and
/// at least one: a layer's input is `[..., IN]`). One indexed loop over the array, each index
/// checked against `x.len()`: `copy_from_slice` stayed an out-of-line call in `core` without
/// LTO, and its length check's panic linked `core::fmt` (3.4 kB) into every firmware with a
/// layer; a `zip` kept two calls and a loop. This loop folds to constants for static shapes.
#[inline(always)]
fn output_dims<const OUT: usize>(x: &[usize]) -> [usize; MAX_STATIC_RANK] {
    let mut dims = [0; MAX_STATIC_RANK];
    for (i, d) in dims.iter_mut().enumerate() {
        if i + 1 == x.len() {
            *d = OUT;
        } else if i < x.len() {
            *d = x[i];
        }
    }
    dims
}

/// The error of an output tensor whose dims are not the layer's output dims for `x`: only
/// possible for runtime leading dims (static ones are the same type, hence the same dims).
#[inline(always)]
fn check_output<T, V, S, D, O, const IN: usize, const OUT: usize>(
    x: &Tensor<T, S, D>,
    out: &Tensor<V, S::Output<OUT>, O>,
) -> Result<(), Error>
where
    S: DenseShape<IN>,
    D: Data<T>,
    O: DataMut<V>,
{
    let want = output_dims::<OUT>(x.shape().as_ref());
    let got = out.shape();
    if got.as_ref() == &want[..S::RANK] {
        Ok(())
    } else {
        Err(Error::new(
            ErrorKind::ShapeMismatch,
            Operation::Dense,
            got.as_ref(),
            &want[..S::RANK],
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quant::{Activation as QAct, QMatMul, Quant, Rounding};
    use crate::typed::dim::{Const, Dyn};
    use crate::TensorView;

    /// The layers' results are built in place from uninitialised slots (`output`): under Miri
    /// this reads every element of static and heap results, of zero-size ones too, so a slot
    /// left unwritten would be reported.
    #[test]
    fn layer_results_are_fully_written() {
        let w = [[1.0f32, -2.0, 0.5], [0.25, 1.0, -1.0]];
        let layer = Dense::new(&w, Some(&[0.5, 0.0, -0.5]), Relu);
        let x = Tensor::<f32, (Const<2>, Const<2>)>::from([[1.0, 2.0], [-1.0, 4.0]]);
        let y = layer.forward(&x);
        assert_eq!(y.into_inner(), [[2.0, 0.0, 0.0], [0.5, 6.0, 0.0]]);
        let empty: [f32; 0] = [];
        let none = TensorView::<f32, (Dyn, Const<2>)>::with_shape([0, 2], &empty).unwrap();
        assert_eq!(layer.forward(&none).shape(), [0, 3]);
        #[cfg(feature = "alloc")]
        {
            let xv = TensorView::<f32, (Dyn, Const<2>)>::with_shape([2, 2], x.as_slice()).unwrap();
            assert_eq!(layer.forward(&xv).as_slice(), y.as_slice());
        }
        let no_inputs: [[f32; 3]; 0] = [];
        let z =
            Dense::new(&no_inputs, None, Identity).forward(&Tensor::<f32, (Const<0>,)>::from([]));
        assert_eq!(z.into_inner(), [0.0; 3]);

        let op = QMatMul::new(
            Quant::new_const(0.5, 0),
            Quant::new_const(0.5, 0),
            Quant::new_const(0.25, 0),
            QAct::None,
            Rounding::Double,
        )
        .unwrap();
        let w = [[2i8, 4], [-2, 6]];
        let layer = QDense::new(op, &w, None);
        let x = Tensor::<i8, (Const<2>,)>::from([1, 3]).quantized(layer.input());
        // (2 + 12) and (-2 + 18) at scale 0.25, output scale 0.25.
        assert_eq!(layer.forward(&x).unwrap().values().into_inner(), [14, 16]);
    }
}
