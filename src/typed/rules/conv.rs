//! Convolutions and pools at compile time (rules K1-K4): the output shape of a window over
//! static dims, computed with typenum from TFLite's formulas, and the compile errors of a
//! kernel larger than a VALID input, a zero stride, dilation or kernel, a filter whose
//! channels are not the input's, and a depth multiplier that does not divide. A `Dyn` dim
//! gives a `Dyn` output, checked at run time. The runtime forms are in
//! [`conv`](crate::conv).

use core::ops::{Add, Div, Mul, Rem, Sub};

use typenum::{Add1, Diff, IsEqual, IsGreater, IsGreaterOrEqual, Prod, Quot, Sub1, Sum, B1, U0};

use super::manipulate::ToConst;
use crate::conv::{PaddingKind, SamePadding, Spec2d, ValidPadding};
use crate::typed::dim::{Const, Dim, Dyn, ToUnsigned};
use crate::typed::shape::Shape;

/// The typenum number of `Const<N>`.
type U<const N: usize> = <Const<N> as ToUnsigned>::Output;

/// The output size of an input dim `Self` under a kernel dim `K`, stride `S`, dilation `D` and
/// padding `P` (K1): `ceil(in / S)` for SAME, `(in - span) / S + 1` for VALID with `span =
/// (K - 1) D + 1`, computed at compile time for static dims; `Dyn` when either is `Dyn`.
pub trait AxisOut<K: Dim, const S: usize, const D: usize, P>: Dim {
    /// The output dim.
    type Output: Dim;
}

impl<K: Dim, const S: usize, const D: usize, P> AxisOut<K, S, D, P> for Dyn {
    type Output = Dyn;
}

impl<const N: usize, const S: usize, const D: usize, P> AxisOut<Dyn, S, D, P> for Const<N> {
    type Output = Dyn;
}

/// Whether kernel, stride and dilation are each at least 1, as typenum bits.
type AtLeastOne<const K: usize, const S: usize, const D: usize> = (
    typenum::Gr<U<K>, U0>,
    typenum::Gr<U<S>, U0>,
    typenum::Gr<U<D>, U0>,
);

impl<const N: usize, const K: usize, const S: usize, const D: usize, P> AxisOut<Const<K>, S, D, P>
    for Const<N>
where
    P: PaddingKind,
    Const<N>: ToUnsigned,
    Const<K>: ToUnsigned,
    Const<S>: ToUnsigned,
    Const<D>: ToUnsigned,
    U<K>: IsGreater<U0>,
    U<S>: IsGreater<U0>,
    U<D>: IsGreater<U0>,
    AtLeastOne<K, S, D>: WindowOut<N, K, S, D, P>,
{
    type Output = <AtLeastOne<K, S, D> as WindowOut<N, K, S, D, P>>::Output;
}

/// The output size, for a window whose kernel, stride and dilation are each at least 1 (the
/// bits `(B1, B1, B1)`); its message is the error of a 0 (K2). The size is computed only
/// past that check, so a 0 is this one error.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "a window with kernel {K}, stride {S} and dilation {D}: each must be at least 1 (K2)",
    label = "a zero kernel, stride or dilation"
)]
pub trait WindowOut<const N: usize, const K: usize, const S: usize, const D: usize, P> {
    /// The output size.
    type Output: Dim;
}

impl<const N: usize, const K: usize, const S: usize, const D: usize>
    WindowOut<N, K, S, D, SamePadding> for (B1, B1, B1)
where
    Const<N>: ToUnsigned,
    Const<S>: ToUnsigned,
    U<S>: Sub<B1>,
    U<N>: Add<Sub1<U<S>>>,
    Sum<U<N>, Sub1<U<S>>>: Div<U<S>>,
    Quot<Sum<U<N>, Sub1<U<S>>>, U<S>>: ToConst,
{
    type Output = <Quot<Sum<U<N>, Sub1<U<S>>>, U<S>> as ToConst>::Output;
}

/// `(K - 1) * D + 1`, the dilated kernel's span, as a typenum number.
type Span<const K: usize, const D: usize> = Add1<Prod<Sub1<U<K>>, U<D>>>;

impl<const N: usize, const K: usize, const S: usize, const D: usize>
    WindowOut<N, K, S, D, ValidPadding> for (B1, B1, B1)
where
    Const<N>: ToUnsigned,
    Const<K>: ToUnsigned,
    Const<S>: ToUnsigned,
    Const<D>: ToUnsigned,
    U<K>: Sub<B1>,
    Sub1<U<K>>: Mul<U<D>>,
    Prod<Sub1<U<K>>, U<D>>: Add<B1>,
    U<N>: IsGreaterOrEqual<Span<K, D>>,
    typenum::GrEq<U<N>, Span<K, D>>: KernelFits<N, K, S, D>,
{
    type Output = <typenum::GrEq<U<N>, Span<K, D>> as KernelFits<N, K, S, D>>::Output;
}

/// Holds (`B1`) when the input `N` is at least the dilated kernel's span under VALID padding,
/// and gives the output size `(N - span) / S + 1`; its message is the error (K1).
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "the kernel {K} with dilation {D} spans more than the input's {N} under VALID padding (K1)",
    label = "VALID padding needs the input at least as large as the dilated kernel `(K - 1) * D + 1`",
    note = "SAME padding pads the input instead"
)]
pub trait KernelFits<const N: usize, const K: usize, const S: usize, const D: usize> {
    /// The output size.
    type Output: Dim;
}

impl<const N: usize, const K: usize, const S: usize, const D: usize> KernelFits<N, K, S, D> for B1
where
    Const<N>: ToUnsigned,
    Const<K>: ToUnsigned,
    Const<S>: ToUnsigned,
    Const<D>: ToUnsigned,
    U<K>: Sub<B1>,
    Sub1<U<K>>: Mul<U<D>>,
    Prod<Sub1<U<K>>, U<D>>: Add<B1>,
    U<N>: Sub<Span<K, D>>,
    Diff<U<N>, Span<K, D>>: Div<U<S>>,
    Quot<Diff<U<N>, Span<K, D>>, U<S>>: Add<B1>,
    Add1<Quot<Diff<U<N>, Span<K, D>>, U<S>>>: ToConst,
{
    type Output = <Add1<Quot<Diff<U<N>, Span<K, D>>, U<S>>> as ToConst>::Output;
}

/// The input's channels `Self` are the filter's `C` (K3): equal static dims, or a `Dyn` one
/// checked at run time.
#[diagnostic::on_unimplemented(
    message = "the input's channels `{Self}` are not the filter's `{C}` (K3)",
    label = "a convolution's filter is [out channels, kernel height, kernel width, in channels], its last dim the input's channels"
)]
pub trait ChannelsMatch<C: Dim>: Dim {}
impl<const A: usize> ChannelsMatch<Const<A>> for Const<A> {}
impl<const A: usize> ChannelsMatch<Dyn> for Const<A> {}
impl<C: Dim> ChannelsMatch<C> for Dyn {}

/// The depthwise filter's channels `Self` are a multiple of the input's `C` (K4): static dims
/// checked at compile time, a `Dyn` one at run time.
pub trait DepthMultiple<C: Dim>: Dim {}
impl<const A: usize> DepthMultiple<Dyn> for Const<A> {}
impl<C: Dim> DepthMultiple<C> for Dyn {}
impl<const OC: usize, const C: usize> DepthMultiple<Const<C>> for Const<OC>
where
    Const<OC>: ToUnsigned,
    Const<C>: ToUnsigned,
    U<OC>: Rem<U<C>>,
    typenum::Mod<U<OC>, U<C>>: IsEqual<U0>,
    typenum::Eq<typenum::Mod<U<OC>, U<C>>, U0>: Divides<OC, C>,
{
}

/// Holds when `C` divides `OC`; its message is the error (K4).
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "the depthwise filter's {OC} channels are not a multiple of the input's {C} (K4)",
    label = "a depthwise filter is [1, height, width, channels * multiplier]"
)]
pub trait Divides<const OC: usize, const C: usize> {}
impl<const OC: usize, const C: usize> Divides<OC, C> for B1 {}

/// A depthwise filter's first dim: 1, or `Dyn` checked at run time (K4).
#[diagnostic::on_unimplemented(
    message = "a depthwise filter's first dim is 1, not `{Self}` (K4)",
    label = "a depthwise filter is [1, height, width, channels * multiplier]"
)]
pub trait DepthwiseFirst: Dim {}
impl DepthwiseFirst for Const<1> {}
impl DepthwiseFirst for Dyn {}

/// The output shape of a CONV_2D of an NHWC input `Self` by a filter `F` (`[out channels,
/// kh, kw, in channels]`) under the options `P` (K1-K3).
pub trait Conv2dShape<F: Shape, P>: Shape {
    /// The output's shape, `[n, out h, out w, out channels]`.
    type Output: Shape;
    /// The output channels (a bias's length).
    type Channels: Dim;
}

impl<
        N,
        H,
        W,
        C,
        O,
        KH,
        KW,
        C2,
        P,
        const SH: usize,
        const SW: usize,
        const DH: usize,
        const DW: usize,
    > Conv2dShape<(O, KH, KW, C2), Spec2d<P, SH, SW, DH, DW>> for (N, H, W, C)
where
    (N, H, W, C): Shape,
    (O, KH, KW, C2): Shape,
    (N, H::Output, W::Output, O): Shape,
    N: Dim,
    O: Dim,
    KH: Dim,
    KW: Dim,
    C2: Dim,
    P: PaddingKind,
    H: AxisOut<KH, SH, DH, P>,
    W: AxisOut<KW, SW, DW, P>,
    C: ChannelsMatch<C2>,
{
    type Output = (N, H::Output, W::Output, O);
    type Channels = O;
}

/// The output shape of a DEPTHWISE_CONV_2D of an NHWC input `Self` by a filter `F` (`[1, kh,
/// kw, channels * multiplier]`) under the options `P` (K1, K2, K4).
pub trait DepthwiseShape<F: Shape, P>: Shape {
    /// The output's shape, `[n, out h, out w, filter channels]`.
    type Output: Shape;
    /// The output channels (a bias's length).
    type Channels: Dim;
}

impl<
        N,
        H,
        W,
        C,
        F0,
        KH,
        KW,
        OC,
        P,
        const SH: usize,
        const SW: usize,
        const DH: usize,
        const DW: usize,
    > DepthwiseShape<(F0, KH, KW, OC), Spec2d<P, SH, SW, DH, DW>> for (N, H, W, C)
where
    (N, H, W, C): Shape,
    (F0, KH, KW, OC): Shape,
    (N, H::Output, W::Output, OC): Shape,
    N: Dim,
    C: Dim,
    F0: DepthwiseFirst,
    KH: Dim,
    KW: Dim,
    P: PaddingKind,
    H: AxisOut<KH, SH, DH, P>,
    W: AxisOut<KW, SW, DW, P>,
    OC: DepthMultiple<C>,
{
    type Output = (N, H::Output, W::Output, OC);
    type Channels = OC;
}

/// The output shape of a `KH` x `KW` pool of an NHWC input `Self` under the options `P` (K1,
/// K2).
pub trait PoolShape<const KH: usize, const KW: usize, P>: Shape {
    /// The output's shape, `[n, out h, out w, channels]`.
    type Output: Shape;
}

impl<
        N,
        H,
        W,
        C,
        P,
        const KH: usize,
        const KW: usize,
        const SH: usize,
        const SW: usize,
        const DH: usize,
        const DW: usize,
    > PoolShape<KH, KW, Spec2d<P, SH, SW, DH, DW>> for (N, H, W, C)
where
    (N, H, W, C): Shape,
    (N, H::Output, W::Output, C): Shape,
    N: Dim,
    C: Dim,
    P: PaddingKind,
    H: AxisOut<Const<KH>, SH, DH, P>,
    W: AxisOut<Const<KW>, SW, DW, P>,
{
    type Output = (N, H::Output, W::Output, C);
}

/// The output shape of `conv2d` ([`Conv2dShape`]).
pub type Conv2dOutput<S, F, P> = <S as Conv2dShape<F, P>>::Output;

/// The output shape of `depthwise_conv2d` ([`DepthwiseShape`]).
pub type DepthwiseOutput<S, F, P> = <S as DepthwiseShape<F, P>>::Output;

/// The output shape of a `KH` x `KW` pool ([`PoolShape`]).
pub type PoolOutput<S, const KH: usize, const KW: usize, P> = <S as PoolShape<KH, KW, P>>::Output;
