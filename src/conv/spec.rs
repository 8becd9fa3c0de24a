//! A window's options as types (rules K1, K2): the padding, strides and dilations of a typed
//! convolution or pool, from which the output shape is computed at compile time.

use super::{ConvParams, Padding};

/// SAME padding as a type ([`Padding::Same`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SamePadding;

/// VALID padding as a type ([`Padding::Valid`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ValidPadding;

/// [`SamePadding`] or [`ValidPadding`]. Sealed.
pub trait PaddingKind: Copy + Default + private::Sealed {
    /// The runtime value.
    const PADDING: Padding;
}

impl PaddingKind for SamePadding {
    const PADDING: Padding = Padding::Same;
}

impl PaddingKind for ValidPadding {
    const PADDING: Padding = Padding::Valid;
}

mod private {
    pub trait Sealed {}
    impl Sealed for super::SamePadding {}
    impl Sealed for super::ValidPadding {}
    impl<P, const SH: usize, const SW: usize, const DH: usize, const DW: usize> Sealed
        for super::Spec2d<P, SH, SW, DH, DW>
    {
    }
}

/// A typed window's options (K1, K2): padding `P`, strides `SH`, `SW` and dilations `DH`,
/// `DW`, all known at compile time. Start from [`SAME`] or [`VALID`]:
///
/// ```
/// use shaped::conv::{SAME, VALID};
/// let s = SAME.stride::<2, 2>();
/// let v = VALID.dilation::<2, 1>();
/// # let _ = (s, v);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Spec2d<P, const SH: usize, const SW: usize, const DH: usize, const DW: usize>(P);

/// SAME padding, strides and dilations 1.
pub const SAME: Spec2d<SamePadding, 1, 1, 1, 1> = Spec2d(SamePadding);

/// VALID padding, strides and dilations 1.
pub const VALID: Spec2d<ValidPadding, 1, 1, 1, 1> = Spec2d(ValidPadding);

impl<P: PaddingKind, const SH: usize, const SW: usize, const DH: usize, const DW: usize>
    Spec2d<P, SH, SW, DH, DW>
{
    /// The same options with strides `H` and `W`.
    pub const fn stride<const H: usize, const W: usize>(self) -> Spec2d<P, H, W, DH, DW> {
        Spec2d(self.0)
    }

    /// The same options with dilations `H` and `W`.
    pub const fn dilation<const H: usize, const W: usize>(self) -> Spec2d<P, SH, SW, H, W> {
        Spec2d(self.0)
    }
}

/// A window's options known at compile time: a [`Spec2d`]. Sealed.
pub trait ConvSpec: Copy + private::Sealed {
    /// The padding.
    type Padding: PaddingKind;
    /// The strides (height, width).
    const STRIDE: [usize; 2];
    /// The dilations (height, width).
    const DILATION: [usize; 2];

    /// The same options as runtime values.
    const PARAMS: ConvParams = ConvParams::new(Self::Padding::PADDING)
        .stride(Self::STRIDE)
        .dilation(Self::DILATION);

    /// [`PARAMS`](Self::PARAMS).
    fn params() -> ConvParams {
        Self::PARAMS
    }
}

impl<P: PaddingKind, const SH: usize, const SW: usize, const DH: usize, const DW: usize> ConvSpec
    for Spec2d<P, SH, SW, DH, DW>
{
    type Padding = P;
    const STRIDE: [usize; 2] = [SH, SW];
    const DILATION: [usize; 2] = [DH, DW];
}
