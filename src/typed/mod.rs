//! The static path: dims and shapes as types, the broadcast rules as traits, storage, and the
//! one elementwise kernel of static shapes.
//!
//! * [`dim`]: `Const<N>` and `Dyn`, and the table that lets the compiler compare dims.
//! * [`shape`]: shapes as tuples of dims, the [`Shape!`](crate::Shape!) macro.
//! * [`rules`]: each rule of [`crate::rules`] as traits, in files of the same names, with the
//!   compile-error messages.
//! * [`storage`]: inline, borrowed and heap element storage, and where results go.
//! * `kernel`: the loop nest that every static operation is.
//!
//! The traits that storage and the in-place kernels trust ([`Dim`](crate::Dim),
//! [`Shape`](trait@crate::Shape), [`StaticShape`](crate::StaticShape), the storage traits) are
//! sealed: they cannot be implemented outside this crate.

pub mod dim;
pub(crate) mod kernel;
pub(crate) mod private;
pub mod rules;
pub mod shape;
pub mod storage;
