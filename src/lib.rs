//! # shaped
//!
//! Tensors whose shape is part of their type. Broadcasting two statically shaped tensors is
//! checked by the compiler, and the elementwise kernels compile to the loop you would write by
//! hand for that shape.
//!
//! ```
//! use shaped::{Shape, Tensor};
//! let a = Tensor::<f32, Shape![2, 1, 5]>::from_fn(|[i, _, k]| (i * 5 + k) as f32);
//! let b = Tensor::<f32, Shape![4, 1]>::splat(1.0);
//! let c: Tensor<f32, Shape![2, 4, 5]> = &a + &b;          // NUMPY (P1-P6)
//! let d = a.broadcast_to::<Shape![3, 2, 4, 5]>();          // Bidirectional (B1-B3)
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
//! ## Map of the crate
//! * [`dim`]: `Const<N>` dims and the table that lets the compiler compare them.
//! * [`shape`](mod@shape): shapes as tuples of dims, the [`Shape!`] macro.
//! * [`rules`]: every broadcast rule of the spec at run time: the single source of truth.
//! * [`interval`]: the same rules over interval dims and dynamic ranks.
//! * [`typelevel`]: the static rules as traits, with the compile-error messages.
//! * [`storage`]: inline, borrowed and heap element storage.
//! * [`Tensor`]: construction, access, formatting.
//! * `kernel`: the one elementwise loop nest of the static path.
//! * [`ops`]: static operators and elementwise methods.
//! * `mixed`: shapes with [`Dyn`] dims (`Shape![_, 3, 4]`) and their `try_*` operations.
//! * [`elementwise`]: the runtime operations and element semantics.
//! * [`strided`]: runtime kernels over slices and strides, no allocator.
//! * `DynTensor` (feature `alloc`): tensors with runtime shapes.
//! * [`binary`]: the oneDNN-style binary primitive: both sources broadcast, fused post-ops,
//!   memory layouts (spec section 5).
//! * [`error`]: `Copy`, allocation-free error values.
//!
//! ## Features
//! * `std` (default): implies `alloc`; float `pow` through `std`.
//! * `alloc`: `HeapTensor`, static shapes stored on the heap; `DynTensor`; runtime ranks up
//!   to 64 (16 without).
//! * `libm`: float `pow` and the binary primitive's transcendental post-ops without `std`.
//!
//! Without any feature the crate is `no_std` with no allocator, for embedded targets.

#![no_std]
#![warn(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod binary;
pub mod dim;
#[cfg(feature = "alloc")]
pub(crate) mod dyn_tensor;
pub mod elementwise;
pub mod error;
pub mod interval;
mod kernel;
mod mixed;
pub mod ops;
pub mod rules;
pub mod shape;
pub mod storage;
pub mod strided;
mod tensor;
pub mod typelevel;

pub use dim::{Const, Dim, Dyn, StaticDim};
#[cfg(feature = "alloc")]
pub use dyn_tensor::DynTensor;
pub use elementwise::{BinaryOp, CompareOp, Element, LogicalOp};
pub use error::{BroadcastError, ErrorKind, LengthMismatch};
pub use ops::{Boolean, Operand, Scalar};
pub use rules::{broadcast_shapes, AutoBroadcast, BroadcastMode, ShapeBuf};
pub use shape::{Shape, StaticShape, TensorIndex, MAX_STATIC_RANK};
#[cfg(feature = "alloc")]
pub use tensor::HeapTensor;
pub use tensor::{OwnedIn, Tensor, TensorView, TensorViewMut};
