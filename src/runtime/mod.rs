//! Runtime shapes: the kernels over slices with shapes and strides (no allocator), the prepared
//! [`BinaryPlan`], and `DynTensor` (feature `alloc`).
//!
//! Every call works out its loop plan once: each input's strides in the output's index space
//! (0 where it is stretched), size-1 axes dropped, adjacent axes merged wherever every operand
//! steps through them alike. The innermost axis then runs as a contiguous run, a broadcast
//! scalar, or a plain strided loop, and an odometer walks the outer axes with no division.
//! Ranks go up to [`MAX_RANK`](crate::rules::MAX_RANK); calls whose ranks are at most 8 use
//! small fixed buffers, so the per-call setup stays in the tens of nanoseconds.
//!
//! ```
//! use shaped::runtime::{binary_into, ArrayRef};
//! use shaped::{AutoBroadcast, BinaryOp};
//! let (a, b) = ([1, 2, 3, 4, 5, 6], [10, 20, 30]);
//! let mut out = [0; 6];
//! binary_into(
//!     ArrayRef::new(&[2, 3], &a)?,
//!     ArrayRef::new(&[3], &b)?,
//!     BinaryOp::Add,
//!     AutoBroadcast::Numpy,
//!     &mut out,
//! )?;
//! assert_eq!(out, [11, 22, 33, 14, 25, 36]);
//! # Ok::<(), shaped::Error>(())
//! ```

#[cfg(feature = "any-tensor")]
pub(crate) mod any_tensor;
mod array_ref;
#[cfg(feature = "alloc")]
mod axis_forms;
pub(crate) mod by_op;
pub(crate) mod cast;
mod concat;
pub(crate) mod conv;
#[cfg(feature = "alloc")]
mod dyn_shape;
#[cfg(feature = "alloc")]
pub(crate) mod dyn_tensor;
#[cfg(feature = "alloc")]
mod index;
pub(crate) mod kernels;
#[cfg(feature = "alloc")]
pub(crate) mod manipulate;
pub(crate) mod matmul;
pub(crate) mod normalize;
#[cfg(feature = "alloc")]
mod pad;
pub(crate) mod parallel;
pub(crate) mod plan;
mod prepared;
#[cfg(feature = "alloc")]
mod quantized;
#[cfg(feature = "alloc")]
mod quantized_nn;
#[cfg(feature = "alloc")]
mod range;
pub(crate) mod reduce;
pub(crate) mod select;
// Only where there is a wider copy to choose: x86 with `std` to detect the CPU's features.
#[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
mod tiles;
#[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
pub(crate) mod wide;

pub use array_ref::ArrayRef;
pub use concat::concat_into;
pub use conv::{
    avg_pool2d_into, conv2d_into, depthwise_conv2d_into, max_pool2d_into, quantized_pool2d_into,
};
#[cfg(feature = "alloc")]
pub use dyn_shape::DynView;
#[cfg(feature = "alloc")]
pub use dyn_tensor::AsInput;
pub use kernels::{binary_into, broadcast_into, compare_into, logical_into, zip_into};
pub use matmul::matmul_into;
pub use parallel::{single_threaded, MIN_PARALLEL};
pub use prepared::BinaryPlan;
pub use select::{select_into, where_into};

#[cfg(feature = "alloc")]
use crate::error::{Error, ErrorKind, Operation};

/// The element count of a new buffer of `V`s for `shape`, refused (before asking the
/// allocator) when it or its size in bytes overflows, or the bytes exceed `isize::MAX`, the
/// most a `Vec` may hold.
#[cfg(feature = "alloc")]
pub(crate) fn element_count<V>(shape: &[usize]) -> Result<usize, Error> {
    let n = crate::rules::checked_element_count(shape);
    match n.and_then(|n| n.checked_mul(core::mem::size_of::<V>())) {
        Some(bytes) if bytes <= isize::MAX as usize => Ok(n.unwrap_or(0)),
        _ => Err(Error::new(
            ErrorKind::Overflow,
            Operation::Layout,
            shape,
            &[],
        )),
    }
}

/// An empty `Vec` with room for exactly `count` elements of a result of `shape`, or an
/// [`ErrorKind::OutOfMemory`] error when the allocator refuses: a valid but enormous shape
/// (a broadcast to 2^34 elements) is an error value, never an abort.
#[cfg(feature = "alloc")]
pub(crate) fn try_vec<V>(count: usize, shape: &[usize]) -> Result<alloc::vec::Vec<V>, Error> {
    let mut out = alloc::vec::Vec::new();
    match out.try_reserve_exact(count) {
        Ok(()) => Ok(out),
        Err(_) => {
            // `element_count` has checked that the byte size fits in `isize`.
            let bytes = count.saturating_mul(core::mem::size_of::<V>());
            let kind = ErrorKind::OutOfMemory { bytes };
            Err(Error::new(kind, Operation::Layout, shape, &[]))
        }
    }
}

/// A `Vec` of `count` copies of `value`, with the allocation checked as in [`try_vec`].
#[cfg(feature = "alloc")]
pub(crate) fn try_filled<V: Clone>(
    count: usize,
    value: V,
    shape: &[usize],
) -> Result<alloc::vec::Vec<V>, Error> {
    let mut out = try_vec(count, shape)?;
    out.resize(count, value);
    Ok(out)
}

/// A new `Vec` of `count` elements (a result of `shape`), each written once by `fill` into
/// the spare capacity: results are written in place, never zero-filled first (7.3 us vs
/// 14.4 us on a mixed `[_, 64] + [1, 64]` add with batch 1024, `benches/mixed_kernels.rs`),
/// and no element type needs `Default` or `Clone`. The allocation is checked as in
/// [`try_vec`].
///
/// # Safety
/// `fill` must have written every element of the slice it is given whenever it returns `Ok`
/// (the kernels check the slice's length against the output shape and cover it row by row).
#[cfg(feature = "alloc")]
pub(crate) unsafe fn filled_vec<V>(
    count: usize,
    shape: &[usize],
    fill: impl FnOnce(&mut [core::mem::MaybeUninit<V>]) -> Result<(), Error>,
) -> Result<alloc::vec::Vec<V>, Error> {
    let mut out = try_vec(count, shape)?;
    fill(&mut out.spare_capacity_mut()[..count])?;
    // SAFETY: `fill` returned Ok, so by this function's contract it wrote each of the `count`
    // slots. On an error, or a panic inside `fill`, this line is not reached and no element
    // is claimed: written ones leak, none is read uninitialised.
    unsafe { out.set_len(count) };
    Ok(out)
}
