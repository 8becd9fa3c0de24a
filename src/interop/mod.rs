//! Conversions to and from other crates' types, each behind the feature named after the crate.
//! Nothing here is needed by the rest of shaped: these modules only add trait impls and
//! constructors.

#[cfg(feature = "serde")]
mod serde;

#[cfg(feature = "bytemuck")]
mod bytemuck;

#[cfg(feature = "generic-array")]
mod generic_array;

#[cfg(feature = "nalgebra")]
mod nalgebra;

#[cfg(feature = "ndarray")]
mod ndarray;

#[cfg(feature = "half")]
mod half;
