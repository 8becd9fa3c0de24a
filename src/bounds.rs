//! The bounds a shape-generic function writes, and the names of the results it returns, in one
//! place.
//!
//! A function generic over a dim (a batch of any size, static or [`Dyn`]) calls the same
//! methods as concrete code, but the compiler can no longer see that the shapes fit; the bound
//! that says so is named here. The one every computed result needs is [`Storable`]: the result
//! shape can be stored (every shape can; a generic one must say so). Its result type is
//! [`Out`] for inline tensors and views (or [`Stored`] with the storage family, `Heap` for a
//! `HeapTensor`).
//!
//! | operation | bound on the input shape `S` | result |
//! |---|---|---|
//! | `a + b`, `- * / %`, `& \| ^`, `maximum`, `eq` and the other elementwise methods of two tensors | `S: BroadcastWith<R, Output = O>`, `O: Storable` | [`Out<T, O>`](Out) |
//! | the same with a scalar, `-a`, `map`, `exp`, `relu` and the other unary math | `S: Storable` | `Out<T, S>` |
//! | `a += b` and its kin, a tensor on the right | `S: UpdateWith<R>` | (in place) |
//! | `a += 2.0` and its kin, a scalar on the right | none | (in place) |
//! | `softmax::<A>()`, `log_softmax`, `layer_norm`, `rms_norm` | `S: Storable` (and `KeepAxis<A>`, which every axis inside a generic tuple has) | [`Out<T, S>`](Out) |
//! | `sum_axis::<A>()` and the other reductions | `WithoutAxis<S, A>: Storable` | `Out<T, WithoutAxis<S, A>>` ([`WithoutAxis`]) |
//! | `*_keepdims::<A>()` | `KeepDims<S, A>: Storable` | `Out<T, KeepDims<S, A>>` ([`KeepDims`]) |
//! | `matmul(&w)` | `S: MatMulShape<W, Output = O>`, `O: Storable` | `Out<T, O>` ([`MatMulOutput<S, W>`](MatMulOutput)) |
//! | `matmul_nt(&w)`, `matmul_tn`, `matmul_tt`, `matmul_t::<TA, TB, _, _>` | `S: MatMulShapeT<W, TA, TB, Output = O>`, `O: Storable` | `Out<T, O>` ([`MatMulOutputT`]) |
//! | `permute::<P>()`, `reversed()`, `transpose()` | `S: Permute<P>` / `Reverse` / `TransposeIf<true>` | the permuted shape, [`Transposed<S>`](Transposed) |
//! | `concat::<A, _, _>(&r)`, `insert_axis`, `stack`, `narrow` | `S: Concat<A, R>` / `InsertAxis<A, N>` / `Narrow<A, START, LEN>` | [`Concatenated`], [`WithAxis`], [`Narrowed`] |
//! | quantized int8 `softmax(beta)`, `logistic()`, `tanh()` | `S: Storable` | [`QuantizedI8<F, S>`](QuantizedI8) |
//! | quantized int8 `mean_hw(out)`, `mean_hw_keepdims(out)` | `S: RemoveAxis<2>`, `WithoutAxis<S, 2>: RemoveAxis<1>`, `MeanHw<S>: Storable` (`KeepAxis<1>`, `KeepAxis<2>` and `MeanHwKeep<S>` kept) | `QuantizedI8<F, MeanHw<S>>` ([`MeanHw`], [`MeanHwKeep`]) |
//!
//! Where `S` is partly concrete (`(B, Const<N>)`), write each result shape as the rule makes
//! it: `sum_axis::<-1>()` of `(B, Const<N>)` is `(B,)`, so the bound is `(B,): Storable`; the
//! compiler does not take a bound written on the alias (`WithoutAxis<(B, Const<N>), -1>:
//! Storable`) for the shape it stands for.
//!
//! A missing bound is a compile error that names it, ready to paste into the `where` clause.
//! Each result is again an [`Out`] (or a `Stored` in the operands' family), so a chain of
//! operations needs no more bounds than its steps.
//!
//! ```
//! # #[cfg(any(feature = "std", feature = "libm"))] {
//! use shaped::bounds::{Const, Dim, MatMulShape, Out, Storable};
//! use shaped::{Shape, Tensor};
//!
//! /// Softmax over the features of a batch of any size.
//! fn softmax_rows<B: Dim, const N: usize>(x: &Tensor<f32, (B, Const<N>)>) -> Out<f32, (B, Const<N>)>
//! where
//!     (B, Const<N>): Storable,
//! {
//!     x.softmax::<-1>()
//! }
//!
//! /// A linear layer over a batch of any size.
//! fn linear<B: Dim, const I: usize, const O: usize>(
//!     x: &Tensor<f32, (B, Const<I>)>,
//!     w: &Tensor<f32, (Const<I>, Const<O>)>,
//! ) -> Out<f32, (B, Const<O>)>
//! where
//!     (B, Const<I>): MatMulShape<(Const<I>, Const<O>), Output = (B, Const<O>)>,
//!     (B, Const<O>): Storable,
//! {
//!     x.matmul(w)
//! }
//!
//! let x = Tensor::<f32, Shape![2, 3]>::splat(1.0);
//! let w = Tensor::<f32, Shape![3, 4]>::splat(0.5);
//! assert_eq!(linear(&x, &w).as_slice(), &[1.5; 8]);
//! assert_eq!(softmax_rows(&x).as_slice()[0], 1.0 / 3.0);
//! // The same functions on a batch whose size is known at run time.
//! let batch = Tensor::<f32, Shape![_, 3]>::from_shape_vec([5, 3], vec![1.0; 15]).unwrap();
//! assert_eq!(linear(&batch, &w).shape().as_ref(), &[5, 4]);
//! # }
//! ```

pub use crate::tensor::{
    Chosen, SelectOutput, SelectShapes, Selected, Stored, Tensor, TensorView, Where, WhereOutput,
    WhereShapes,
};

pub use crate::tensor::Storable;
/// The machinery behind the operators and the result types: named in the signatures of
/// `Tensor`'s methods, rarely in users' code (the aliases above, [`Storable`] and the rules'
/// traits are the bounds to write).
pub use crate::tensor::{
    AssignPath, Check, JoinOf, Joined, KindBroadcast, KindUpdate, Operand, OperatorPath, OwnedIn,
    PathOutput, QuantizedAlong, ResultStorage, SameElement, StaticOperand, StorableProduct,
};
pub use crate::tensor::{BroadcastWith, UpdateWith};
pub use crate::tensor::{ConvBias, Pooled, QuantizedConv, QuantizedPooled};
/// The int8 quantized results of the TFLM activations and means, and the shapes of the means
/// over height and width (Q20-Q23).
pub use crate::tensor::{MeanHw, MeanHwKeep, QuantizedI8};
pub use crate::typed::dim::{Const, Dim, Dyn};
pub use crate::typed::rules::{
    BroadcastToShape, Concat, Concatenated, Flatten, InsertAxis, KeepAxis, KeepDims, MatMulOutput,
    MatMulOutputT, MatMulShape, MatMulShapeT, Narrow, Narrowed, NonEmptyAxis, Permute, RemoveAxis,
    ReshapeInto, Reverse, SqueezeAxis, TransposeIf, Transposed, WithAxis, WithoutAxis,
};
pub use crate::typed::shape::{Shape, StaticShape};
#[cfg(feature = "alloc")]
pub use crate::typed::storage::Heap;
pub use crate::typed::storage::{Data, DataMut, Family, Stack};

/// The result of shape `S` holding `T`s, computed from inline tensors or views: a
/// `Tensor<T, S>` stored on the stack when `S` is static, in a `Vec` when it has a `Dyn` dim.
pub type Out<T, S> = Stored<Stack, T, S>;
