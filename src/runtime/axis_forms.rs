//! The one-axis forms of the runtime reductions, named and ordered as on static and mixed
//! tensors (`x.sum_axis::<1>()` there, `x.sum_axis(1)?` here): the axis a value instead of a
//! const generic is the only difference. Each calls the general form over a list of axes
//! (`sum(&[axis], false)`), so the two cannot disagree.
//!
//! ```
//! use shaped::{DynTensor, Shape, Tensor};
//! let s = Tensor::<i32, Shape![2, 3]>::from([[1, 2, 3], [4, 5, 6]]);
//! let d = s.to_dyn();
//! assert_eq!(d.sum_axis(1)?.as_slice(), s.sum_axis::<1>().as_slice());
//! assert_eq!(d.max_keepdims(0)?.shape(), s.max_keepdims::<0>().shape().as_ref());
//! assert_eq!(d.argmax_axis(-1)?.as_slice(), s.argmax_axis::<-1>().as_slice());
//! assert_eq!(
//!     d.min_axis_initial(1, 2)?.as_slice(),
//!     s.min_axis_initial::<1>(2).as_slice()
//! );
//! # Ok::<(), shaped::Error>(())
//! ```

use super::dyn_tensor::DynTensor;
use crate::element::{Element, Ordered};
use crate::error::Error;

macro_rules! over_a_list {
    ($($axis_name:ident $keep_name:ident $full:ident [$($bound:tt)*];)*) => {
        /// One-axis reductions, as on static tensors (see the module's documentation).
        impl<T> DynTensor<T> {$(
            #[doc = concat!("[`", stringify!($full), "`](Self::", stringify!($full),
                ") along one axis (negative from the end), the axis removed: `",
                stringify!($axis_name), "::<A>()` of a static tensor, the axis a value.")]
            pub fn $axis_name(&self, axis: i64) -> Result<DynTensor<T>, Error>
            where
                T: $($bound)*
            {
                self.$full(&[axis], false)
            }

            #[doc = concat!("[`", stringify!($full), "`](Self::", stringify!($full),
                ") along one axis, the axis kept as a 1: `", stringify!($keep_name),
                "::<A>()` of a static tensor, the axis a value.")]
            pub fn $keep_name(&self, axis: i64) -> Result<DynTensor<T>, Error>
            where
                T: $($bound)*
            {
                self.$full(&[axis], true)
            }
        )*}
    };
}

over_a_list! {
    sum_axis sum_keepdims sum [Element];
    mean_axis mean_keepdims mean [crate::element::Mean];
    prod_axis prod_keepdims prod [Element];
    max_axis max_keepdims max [Ordered];
    min_axis min_keepdims min [Ordered];
}

macro_rules! from_initial {
    ($($axis_name:ident $keep_name:ident $full:ident;)*) => {
        /// One-axis reductions from an initial value, as on static tensors.
        impl<T: Ordered> DynTensor<T> {$(
            #[doc = concat!("[`", stringify!($full), "`](Self::", stringify!($full),
                ") along one axis, the axis removed: `", stringify!($axis_name),
                "::<A>(initial)` of a static tensor, the axis a value.")]
            pub fn $axis_name(&self, axis: i64, initial: T) -> Result<DynTensor<T>, Error> {
                self.$full(&[axis], initial, false)
            }

            #[doc = concat!("[`", stringify!($full), "`](Self::", stringify!($full),
                ") along one axis, kept as a 1: `", stringify!($keep_name),
                "::<A>(initial)` of a static tensor, the axis a value.")]
            pub fn $keep_name(&self, axis: i64, initial: T) -> Result<DynTensor<T>, Error> {
                self.$full(&[axis], initial, true)
            }
        )*}
    };
}

from_initial! {
    max_axis_initial max_keepdims_initial max_initial;
    min_axis_initial min_keepdims_initial min_initial;
}

macro_rules! indices {
    ($($axis_name:ident $keep_name:ident $full:ident;)*) => {
        /// One-axis index reductions, as on static tensors.
        impl<T: Ordered> DynTensor<T> {$(
            #[doc = concat!("[`", stringify!($full), "`](Self::", stringify!($full),
                ") with the axis removed: `", stringify!($axis_name),
                "::<A>()` of a static tensor, the axis a value.")]
            pub fn $axis_name(&self, axis: i64) -> Result<DynTensor<usize>, Error> {
                self.$full(axis, false)
            }

            #[doc = concat!("[`", stringify!($full), "`](Self::", stringify!($full),
                ") with the axis kept as a 1: `", stringify!($keep_name),
                "::<A>()` of a static tensor, the axis a value.")]
            pub fn $keep_name(&self, axis: i64) -> Result<DynTensor<usize>, Error> {
                self.$full(axis, true)
            }
        )*}
    };
}

indices! {
    argmax_axis argmax_keepdims argmax;
    argmax_last_axis argmax_last_keepdims argmax_last;
    argmin_axis argmin_keepdims argmin;
    argmin_last_axis argmin_last_keepdims argmin_last;
}

/// One-axis logical reductions, as on static tensors.
impl DynTensor<bool> {
    /// [`all`](Self::all) along one axis, the axis removed: `all_axis::<A>()` of a static
    /// tensor, the axis a value.
    pub fn all_axis(&self, axis: i64) -> Result<DynTensor<bool>, Error> {
        self.all(&[axis], false)
    }

    /// [`all`](Self::all) along one axis, kept as a 1: `all_keepdims::<A>()`.
    pub fn all_keepdims(&self, axis: i64) -> Result<DynTensor<bool>, Error> {
        self.all(&[axis], true)
    }

    /// [`any`](Self::any) along one axis, the axis removed: `any_axis::<A>()` of a static
    /// tensor, the axis a value.
    pub fn any_axis(&self, axis: i64) -> Result<DynTensor<bool>, Error> {
        self.any(&[axis], false)
    }

    /// [`any`](Self::any) along one axis, kept as a 1: `any_keepdims::<A>()`.
    pub fn any_keepdims(&self, axis: i64) -> Result<DynTensor<bool>, Error> {
        self.any(&[axis], true)
    }
}
