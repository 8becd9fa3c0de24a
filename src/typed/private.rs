//! Machinery users never name: the seals of the traits that the crate's `unsafe` code and
//! storage trust.
//!
//! [`Shape`](trait@crate::Shape)'s `LEN`/`DIMS`/buffer methods decide how many elements a result
//! has and where each one goes; [`Dim`](crate::Dim) and the storage traits decide how a
//! buffer is sliced. A user implementation that lied about any of them could make an
//! in-place result claim elements that were never written, so none of them can be implemented
//! outside this crate: each has a supertrait from this private module.
//! (`ui-tests/seal_static_shape.rs` shows a user impl of `StaticShape` rejected.)

/// Seal of [`Dim`](crate::Dim) and [`DimKind`](crate::typed::dim::DimKind).
pub trait SealedDim {}

/// Seal of [`Shape`](trait@crate::Shape) and [`StaticShape`](crate::StaticShape).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot implement `Shape`: the trait is sealed",
    label = "shapes are tuples of `Const<N>` and `Dyn` dims, written `Shape![...]`",
    note = "storage and the in-place kernels trust a shape's element count and layout, so only this crate implements it"
)]
pub trait SealedShape {
    /// Whether every dim is static: a kernel can then take the dims from
    /// [`DIMS_OR_ZERO`](Self::DIMS_OR_ZERO), a constant, instead of storing them for each call.
    const ALL_STATIC: bool;
    /// The dims, a [`Dyn`](crate::Dyn) one as 0.
    const DIMS_OR_ZERO: &'static [usize];
}

/// Seal of the storage traits ([`Data`](crate::typed::storage::Data) and the ones built on
/// it, [`Family`](crate::typed::storage::Family), [`Join`](crate::typed::storage::Join)).
pub trait SealedStorage {}

/// Seal of [`Operand`](crate::Operand): tensors, references to them and
/// [`Scalar`](crate::Scalar)s.
pub trait SealedOperand {}
