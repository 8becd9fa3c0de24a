//! # shaped
//!
//! Tensors whose shape is part of their type. Broadcasting two statically shaped tensors is
//! checked by the compiler, and the elementwise kernels compile to the loop you would write by
//! hand for that shape. Shapes known only at run time follow the same rules and return errors
//! as values.
//!
//! ```
//! use shaped::{Shape, Tensor};
//! let a = Tensor::<f32, Shape![2, 1, 5]>::from_fn(|[i, _, k]| (i * 5 + k) as f32);
//! let b = Tensor::<f32, Shape![4, 1]>::splat(1.0);
//! let c: Tensor<f32, Shape![2, 4, 5]> = &a + &b;          // NUMPY (P1-P6)
//! let d = a.broadcast_to::<Shape![3, 2, 4, 5]>();          // numpy broadcast_to (B5)
//! let e = c.zip_map(&c, |x, y| x * y);                     // NONE: identical shapes (N1-N3)
//! assert_eq!(d.shape(), [3, 2, 4, 5]);
//! assert_eq!(e[[1, 2, 3]], (8.0 + 1.0) * (8.0 + 1.0));
//! ```
//!
//! A mismatch does not compile, and the error names the dims and the rule:
//!
//! ```compile_fail
//! use shaped::{Shape, Tensor};
//! let bad = &Tensor::<f32, Shape![3]>::splat(0.0) + &Tensor::<f32, Shape![2]>::splat(0.0);
//! // error: cannot broadcast dim `Const<3>` with dim `Const<2>` (NUMPY)
//! ```
//!
//! Shapes known only at run time use the same rules and return errors as values:
//!
//! ```
//! use shaped::{broadcast_shapes, AutoBroadcast};
//! let s = broadcast_shapes(&[2, 3, 4, 5], &[3, 1], AutoBroadcast::Pdpd { axis: 1 }).unwrap();
//! assert_eq!(s, [2, 3, 4, 5]);
//! let e = broadcast_shapes(&[3, 1, 5], &[4, 4, 5], AutoBroadcast::Numpy).unwrap_err();
//! assert_eq!(e.to_string(), "cannot broadcast [3, 1, 5] with [4, 4, 5] (numpy): axis 0 has 3 vs 4");
//! ```
//!
//! Reductions and shape manipulation keep the shapes in the types (rules R1-R6, M1-M7):
//!
//! ```
//! use shaped::{Axes, Shape, Tensor};
//! let x = Tensor::<f32, Shape![2, 3, 4]>::from_fn(|[i, j, k]| (i * 12 + j * 4 + k) as f32);
//! let centered = &x - &x.mean_keepdims::<2>();             // [2, 3, 1] broadcasts back
//! let g: Tensor<f32, Shape![3, 1]> = centered.sum_to::<Shape![3, 1]>(); // adjoint of broadcasting
//! let r = x.reshape::<Shape![6, 4]>();                      // a view; 24 = 24 checked at compile time
//! let p: Tensor<f32, Shape![4, 2, 3]> = x.permute::<Axes![2, 0, 1]>();
//! assert_eq!((g[[0, 0]], r[[5, 3]], p[[3, 1, 2]]), (0.0, 23.0, 23.0));
//! ```
//!
//! ## Functions generic over shapes
//!
//! State the rule as a bound: [`Broadcasts`] reads like NUMPY broadcasting, and its
//! [`BroadcastOutput`] is the result's shape. A generic dim is written `{ N }` in
//! [`Shape!`]; the bound is then checked for each caller's concrete `N`.
//!
//! ```
//! use shaped::{BroadcastOutput, Broadcasts, StaticShape, Tensor};
//! fn add_bias<S: Broadcasts<B>, B: StaticShape>(
//!     x: &Tensor<f32, S>,
//!     bias: &Tensor<f32, B>,
//! ) -> Tensor<f32, BroadcastOutput<S, B>> {
//!     x + bias
//! }
//! # let y = add_bias(&Tensor::<f32, shaped::Shape![2, 3]>::splat(1.0), &Tensor::<f32, shaped::Shape![3]>::splat(1.0));
//! # assert_eq!(y.as_slice(), &[2.0; 6]);
//! ```
//!
//! ## Map of the crate
//! Dependency order: the leaves, then [`rules`], [`runtime`], [`typed`], [`Tensor`], and
//! [`primitive`] on top.
//! * Leaves: [`error`] (the one [`Error`] type), [`element`] (what elements compute: one
//!   integer contract), [`op`] (one vocabulary of operation names), [`interval`] (interval
//!   dims), `util`.
//! * [`rules`]: the rules document (every rule id) and each mode's runtime form, one file per
//!   mode.
//! * [`runtime`]: kernels over slices with shapes and strides (no allocator), the prepared
//!   [`BinaryPlan`](runtime::BinaryPlan), and `DynTensor` (feature `alloc`).
//! * [`typed`]: type-level dims and shapes, the rules as traits (the same file names as
//!   [`rules`]), storage, and the static kernel.
//! * [`Tensor`] (`src/tensor/`): construction, access, operators, `try_*`, conversions,
//!   formatting; static and mixed shapes (`Shape![_, 3, 4]`) alike.
//! * [`primitive`]: the oneDNN-style binary primitive: both sources broadcast, fused post-ops,
//!   memory layouts (rules section 5).
//!
//! ## Features
//! * `std` (default): implies `alloc`; float `pow` through `std`.
//! * `alloc`: `HeapTensor`, static shapes stored on the heap; `DynTensor`; owned tensors of
//!   mixed shapes; runtime ranks up to 64 (16 without).
//! * `libm`: float `pow` and the binary primitive's transcendental post-ops without `std`.
//! * `matrixmultiply` (default): large `f32`/`f64` matrix products through `matrixmultiply`.
//! * `rayon`: large runtime work split across threads, bit for bit the one-thread result.
//! * `serde`: `Serialize`/`Deserialize` for every tensor (`{ shape, data }`, shapes checked).
//! * `bytemuck`: typed views over `&[u8]` without a copy, and tensors as bytes.
//! * `generic-array`: rank-1 tensors to and from `GenericArray`.
//! * `nalgebra`: `SMatrix`/`SVector`/`DMatrix` to and from tensors.
//! * `ndarray`: ndarray views of tensors, `ArrayD` <-> `DynTensor`, views of contiguous arrays.
//! * `half`: `f16`/`bf16` elements, computed in `f32` and rounded once per result.
//! * `model`: `include_model!`, a `.tflite` model as a typed Rust model made at build time.
//!
//! Without any feature the crate is `no_std` with no allocator, for embedded targets.
//! Items that need a feature say so in these docs.

#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]
#![warn(clippy::undocumented_unsafe_blocks)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod bounds;
pub mod cast;
pub mod conv;
pub mod element;
pub mod error;
mod interop;
pub mod interval;
pub mod layer;
pub mod op;
pub mod primitive;
pub mod quant;
pub mod rules;
pub mod runtime;
mod tensor;
pub mod typed;
mod util;

pub use cast::{CastElement, DType};
#[cfg(any(feature = "std", feature = "libm"))]
pub use element::Float;
pub use element::{Boolean, Element, Mean, Ordered, Real, Scalar};
pub use error::{Error, ErrorKind, Operation};
#[cfg(feature = "half")]
#[cfg_attr(docsrs, doc(cfg(feature = "half")))]
pub use half::{bf16, f16};
pub use op::{BinaryOp, CompareOp, LogicalOp, ReduceOp, ShapeOp};
pub use rules::{broadcast_shapes, AutoBroadcast, Axes, BroadcastToMode, ShapeBuf};
#[cfg(feature = "any-tensor")]
pub use runtime::any_tensor::{AnyElement, AnyTensor};
#[cfg(feature = "alloc")]
pub use runtime::dyn_tensor::DynTensor;
#[cfg(feature = "alloc")]
pub use tensor::HeapTensor;
pub use tensor::{Tensor, TensorView, TensorViewMut};
pub use typed::dim::{Const, Dim, Dyn, StaticDim};
pub use typed::rules::{BroadcastOutput, Broadcasts};
pub use typed::shape::{Shape, StaticShape, TensorIndex, MAX_STATIC_RANK};

#[cfg(feature = "model")]
#[cfg_attr(docsrs, doc(cfg(feature = "model")))]
pub use shaped_macros::include_model;

#[cfg(feature = "model")]
#[cfg_attr(docsrs, doc(cfg(feature = "model")))]
pub mod model;

/// What the code `include_model!` writes calls beyond the public API, so that the crate using
/// the macro needs no dependency of its own on `bytemuck`. Not a stable interface.
#[cfg(feature = "model")]
#[doc(hidden)]
pub mod __model {
    pub use bytemuck::must_cast;
}
