//! The broadcast rules, in the project's own words, and their runtime form.
//!
//! The document below defines every rule id (`N1`, `P2`, `D3`, `B5`, `O4`, `I2`, `A1`, ...)
//! that the code, the error messages, the compile errors and the tests cite. It ships with the
//! crate as `RULES.md`. Each mode's runtime form sits in a file named after it, and the
//! type-level form of the same rule in the file of the same name under
//! [`typed::rules`](crate::typed::rules).
//!
//! | file | rules | runtime form |
//! |---|---|---|
//! | `none.rs` | N1-N6 | [`none_compatible`], NONE in [`broadcast_shapes`] |
//! | `numpy.rs` | P1-P8 | [`numpy_dim`], [`numpy_shape`], [`broadcast_shapes_n`], [`broadcast_strides`] |
//! | `pdpd.rs` | D1-D11 | PDPD in [`broadcast_shapes`] |
//! | `broadcast_op.rs` | B1-B5 | [`broadcast_to_shape`] with a [`BroadcastToMode`] |
//! | `primitive.rs` | O1-O6, O8 | [`binary_dst_shape`], [`binary_check_dst`], [`post_op_fits`], [`binary_in_place_fits`] |
//! | `stretch.rs` | B6: the axes an input was stretched along | [`stretched_axes`], [`stretched_axes_to`], [`AxisSet`] |
//! | `partial.rs` | I1-I9: intervals, dynamic ranks, symbols, the Broadcast op and stretched axes on partial shapes | [`partial::broadcast_partial`], [`partial::broadcast_to_partial`], [`partial::stretched_axes_partial`], [`partial::Symbol`] |
//! | `reduce.rs` | R1-R6: reductions and the axes they take; `sum_to` (the adjoint of P1-P6, via B5) | [`reduce_axes`], [`reduce_shape`], [`sum_to_axes`], [`Axes`] |
//! | `matmul.rs` | G1-G6: matrix products | [`matmul_shape`] with [`MatMulOptions`] |
//! | `manipulate.rs` | M1-M7: reshape, insert/squeeze, permute, narrow, concat, stack | [`reshape_shape`], [`insert_axis_shape`], [`squeeze_shape`], [`permute_shape`], [`narrow_shape`], [`concat_shape`], [`stack_shape`] |
//! | `index.rs` | M3, M8-M11: slices, split, gather, several axes squeezed | [`gather_shape`], [`gather_elements_check`], [`squeeze_all_shape`], [`Slice`] |
//! | `range.rs` | M12: range | [`range_len`], [`RangeElement`] |
//! | `pad.rs` | M13: pad | [`pad_shape`], [`PadMode`] |
//!
//! The kernels and the tensors take their output shapes and input placements from here and
//! nowhere else. Nothing in this module allocates or panics.
//!
#![doc = include_str!("../../RULES.md")]

mod broadcast_op;
mod index;
mod manipulate;
mod matmul;
mod none;
mod numpy;
mod pad;
pub mod partial;
mod pdpd;
mod primitive;
mod range;
mod reduce;
mod select;
mod shape_buf;
mod stretch;

pub(crate) use broadcast_op::resolve_to;
pub use broadcast_op::{broadcast_to_shape, BroadcastToMode};
pub use index::{gather_elements_check, gather_shape, squeeze_all_shape, IndexElement, Slice};
#[cfg(feature = "alloc")]
pub(crate) use index::{
    resolve_index, slice_axes, split_check, split_equal_size, squeeze_axes_shape, Taken,
};
#[cfg(feature = "alloc")]
pub(crate) use manipulate::resolve_axis as resolve_shape_axis;
pub use manipulate::{
    concat_shape, insert_axis_shape, narrow_shape, permute_shape, reshape_shape, squeeze_shape,
    stack_check, stack_shape, INFER,
};
pub(crate) use matmul::{matmul_error, resolve as resolve_matmul, MatMulDims};
pub use matmul::{matmul_shape, MatMulOptions};
pub use none::none_compatible;
pub(crate) use numpy::checked_last_offset;
pub use numpy::{
    broadcast_shapes_n, broadcast_strides, checked_element_count, numpy_dim, numpy_shape,
};
pub(crate) use pad::pad_source;
pub use pad::{pad_shape, PadMode};
#[cfg(feature = "alloc")]
pub(crate) use pad::{resolve_pads, PadPlan};
pub(crate) use pdpd::resolve_axis;
pub use primitive::{
    binary_check_dst, binary_dst_shape, binary_in_place_fits, post_op_fits, BINARY_MAX_NDIMS,
};
pub(crate) use range::range_value;
pub use range::{range_len, RangeElement};
#[cfg(feature = "alloc")]
pub(crate) use reduce::reduced_shape;
pub use reduce::{reduce_axes, reduce_shape, sum_to_axes, Axes};
pub(crate) use select::resolve_select;
pub use select::{select_shape, where_shape};
pub use shape_buf::ShapeBuf;
pub use stretch::{stretched_axes, stretched_axes_to, AxisSet};

use crate::error::{Error, ErrorKind, Operation};

/// The largest rank the runtime rules and kernels accept: 64 with the `alloc` feature, 16
/// without (every shape buffer is inline, so the limit sets their size).
#[cfg(feature = "alloc")]
pub const MAX_RANK: usize = 64;
/// The largest rank the runtime rules and kernels accept: 64 with the `alloc` feature, 16
/// without (every shape buffer is inline, so the limit sets their size).
#[cfg(not(feature = "alloc"))]
pub const MAX_RANK: usize = 16;

/// The auto-broadcast type of an elementwise operation (sections 1-4 of the rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AutoBroadcast {
    /// NONE: identical shapes only (N1-N5). [`AutoBroadcast::EXPLICIT`] is the same value (N6).
    None,
    /// NUMPY: right-aligned, either side's 1s stretch (P1-P8).
    Numpy,
    /// PDPD: the second shape onto the first starting at `axis`; -1 is the default and means
    /// `rank(A) - rank(B)`; trailing 1s of B are ignored (D1-D10).
    Pdpd {
        /// The start axis, or -1.
        axis: i64,
    },
    /// Bidirectional: the first shape is the input, the second the target; the result is the
    /// NUMPY broadcast of the two, so it may differ from the target (B1-B4).
    Bidirectional,
}

impl AutoBroadcast {
    /// `EXPLICIT` is the same enum value as `NONE` for elementwise ops (N6).
    pub const EXPLICIT: AutoBroadcast = AutoBroadcast::None;
    /// PDPD with the default axis -1 (D2).
    pub const PDPD: AutoBroadcast = AutoBroadcast::Pdpd { axis: -1 };

    pub(crate) fn operation(self) -> Operation {
        match self {
            AutoBroadcast::None => Operation::None,
            AutoBroadcast::Numpy => Operation::Numpy,
            AutoBroadcast::Pdpd { axis } => Operation::Pdpd { axis },
            AutoBroadcast::Bidirectional => Operation::Bidirectional,
        }
    }
}

/// Where an input's dims sit in the output: dim `i` at output axis `at + i`, or at
/// `axes[i]` (explicit mode). A dim that falls outside the output is a size-1 dim that PDPD
/// trimmed (D3); it is read with stride 0 like any other 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Placement<'a> {
    At(usize),
    Axes(&'a [usize]),
}

impl Placement<'_> {
    pub(crate) fn axis_of(&self, dim: usize) -> Option<usize> {
        match *self {
            Placement::At(at) => at.checked_add(dim),
            Placement::Axes(axes) => axes.get(dim).copied(),
        }
    }
}

/// A resolved broadcast: the output shape and where each input sits in it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Resolved<'a, const CAP: usize> {
    pub(crate) out: ShapeBuf<CAP>,
    pub(crate) lhs: Placement<'a>,
    pub(crate) rhs: Placement<'a>,
}

/// Ranks above [`MAX_RANK`] are refused; a caller choosing a smaller `CAP` has checked that
/// the ranks fit it.
pub(crate) fn check_rank<const CAP: usize>(
    a: &[usize],
    b: &[usize],
    op: Operation,
) -> Result<(), Error> {
    if a.len() > MAX_RANK.min(CAP) || b.len() > MAX_RANK.min(CAP) {
        return Err(Error::new(ErrorKind::RankLimit { max: MAX_RANK }, op, a, b));
    }
    Ok(())
}

/// The output shape of `a` with `b` under `mode`, and where each input sits in it.
///
/// Only a dispatch, always inlined; each rule is a call of its own. As one function holding
/// the rules inlined into it, it compiled differently from build to build (in one, NONE's
/// check was inlined and the frame grew to 1.7 KB): 30 instructions a call in one build of a
/// `4x4 + 4x1` `DynTensor` add, 37 in the build with feature `rayon`, neither counting
/// NUMPY's own (callgrind, `benches/runtime_probe.rs`).
#[inline(always)]
pub(crate) fn resolve<'a, const CAP: usize>(
    a: &[usize],
    b: &[usize],
    mode: AutoBroadcast,
) -> Result<Resolved<'a, CAP>, Error> {
    match mode {
        AutoBroadcast::None => none::resolve(a, b),
        AutoBroadcast::Numpy | AutoBroadcast::Bidirectional => {
            numpy::resolve(a, b, mode.operation())
        }
        AutoBroadcast::Pdpd { axis } => pdpd::resolve(a, b, axis, mode.operation()),
    }
}

/// The output shape of an elementwise operation on shapes `a` and `b` under `mode`.
///
/// ```
/// use shaped::{broadcast_shapes, AutoBroadcast};
/// let s = broadcast_shapes(&[2, 3, 4, 5], &[3, 1], AutoBroadcast::Pdpd { axis: 1 }).unwrap();
/// assert_eq!(s.as_ref(), &[2, 3, 4, 5]);
/// // D3: B = (4, 5, 1) with the default axis resolves to axis 1 before trimming, so the
/// // trimmed (4, 5) meets the 3.
/// let err = broadcast_shapes(&[2, 3, 4, 5], &[4, 5, 1], AutoBroadcast::PDPD).unwrap_err();
/// assert_eq!(err.to_string(), "cannot broadcast [2, 3, 4, 5] with [4, 5, 1] (pdpd, axis -1): axis 1 has 3 vs 4");
/// ```
pub fn broadcast_shapes(a: &[usize], b: &[usize], mode: AutoBroadcast) -> Result<ShapeBuf, Error> {
    resolve::<MAX_RANK>(a, b, mode).map(|r| r.out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An axis too large for `usize` (reachable on 32-bit targets, where `i64::MAX` does not
    /// fit) is out of range, not negative: the Cortex-M run found it reported as negative.
    #[test]
    fn d2_huge_axes_are_out_of_range_not_negative() {
        assert_eq!(resolve_axis(-1, 4, 2), Some(2));
        assert_eq!(resolve_axis(-2, 4, 2), None);
        assert_eq!(resolve_axis(i64::MIN, 4, 2), None);
        let huge = resolve_axis(i64::MAX, 4, 2).unwrap();
        assert!(huge >= usize::try_from(i64::MAX).unwrap_or(usize::MAX));
    }

    #[test]
    fn p2_p5_numpy_dim_table() {
        assert_eq!(numpy_dim(3, 3), Some(3));
        assert_eq!(numpy_dim(1, 3), Some(3));
        assert_eq!(numpy_dim(3, 1), Some(3));
        assert_eq!(numpy_dim(1, 1), Some(1));
        assert_eq!(numpy_dim(1, 0), Some(0));
        assert_eq!(numpy_dim(0, 1), Some(0));
        assert_eq!(numpy_dim(0, 0), Some(0));
        assert_eq!(numpy_dim(0, 2), None);
        assert_eq!(numpy_dim(3, 2), None);
    }

    #[test]
    fn p3_p6_numpy_shape_ranks() {
        let mut out = [9; 3];
        assert_eq!(numpy_shape(&[], &[], &mut out), Some(0));
        assert_eq!(numpy_shape(&[], &[2, 3], &mut out), Some(2));
        assert_eq!(out[..2], [2, 3]);
        assert_eq!(numpy_shape(&[1, 1], &[3], &mut out), Some(2));
        assert_eq!(out[..2], [1, 3]);
        assert_eq!(numpy_shape(&[1, 2], &[3], &mut out), None);
        assert_eq!(
            numpy_shape(&[1, 2, 3, 4], &[1], &mut out),
            None,
            "out too short"
        );
    }

    #[test]
    fn n1_none_needs_identical_shapes() {
        assert!(none_compatible(&[2, 3], &[2, 3]));
        assert!(none_compatible(&[], &[]));
        assert!(!none_compatible(&[1], &[]));
        assert!(!none_compatible(&[0], &[1]));
    }

    #[test]
    fn element_count_checks_overflow() {
        assert_eq!(checked_element_count(&[]), Some(1));
        assert_eq!(checked_element_count(&[2, 0, 5]), Some(0));
        assert_eq!(checked_element_count(&[usize::MAX, 2]), None);
        assert_eq!(checked_element_count(&[usize::MAX, 0]), Some(0));
    }

    #[test]
    fn strides_are_zero_where_src_stretches() {
        assert_eq!(
            broadcast_strides::<4>(&[3, 1], &[2, 3, 4]),
            Some([0, 1, 0, 0])
        );
        assert_eq!(
            broadcast_strides::<3>(&[2, 3, 4], &[2, 3, 4]),
            Some([12, 4, 1])
        );
        assert_eq!(broadcast_strides::<2>(&[1], &[0]), Some([0, 0]));
        assert_eq!(broadcast_strides::<2>(&[3], &[4]), None);
        assert_eq!(
            broadcast_strides::<2>(&[1, 3], &[3]),
            None,
            "src rank above out rank"
        );
    }
}
