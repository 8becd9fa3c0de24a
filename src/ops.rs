//! Elementwise operations on static-shape tensors.
//!
//! * NUMPY broadcasting (P1-P6) for `+ - * / %`, `& | ^`, and the methods [`maximum`],
//!   [`minimum`], `pow` (with `std` or `libm`), [`squared_difference`], the comparisons and the logical operations.
//!   The right operand is anything that is an [`Operand`]: a tensor, a reference to one, or a
//!   scalar (a rank-0 operand, so `&a + 2.0` is broadcasting too).
//! * NONE (N1-N3): [`zip_map`], identical shapes only.
//! * Bidirectional (B1-B3): [`broadcast_to`].
//!
//! Shape errors are compile errors; none of these functions can fail at run time. Every one of
//! them is [`Tensor::broadcast_with`] (or the kernel directly) with a different closure.
//!
//! [`maximum`]: Tensor::maximum
//! [`minimum`]: Tensor::minimum
//! [`squared_difference`]: Tensor::squared_difference
//! [`zip_map`]: Tensor::zip_map
//! [`broadcast_to`]: Tensor::broadcast_to

use core::ops;

#[cfg(feature = "alloc")]
use crate::dim::DynKind;
use crate::dim::{DimKind, StaticKind};
use crate::elementwise::pick;
use crate::kernel;
#[cfg(feature = "alloc")]
use crate::rules::AutoBroadcast;
use crate::shape::{Shape, StaticShape};
use crate::storage::{Data, DataMut, Family, Join, Stack};
use crate::tensor::{OwnedIn, Tensor};
use crate::typelevel::{
    Bidirectional, BidirectionalOutput, BroadcastShape, Numpy, NumpyOutput, SameShape,
};

/// An element type that can stand alone as a rank-0 operand (`&a + 2.0`).
///
/// Implemented for the primitive numbers and `bool`; implement it for your own `Copy` element
/// types to use them as scalar operands.
pub trait Scalar: Copy {}

macro_rules! impl_scalar {
    ($($t:ty)*) => {$( impl Scalar for $t {} )*};
}
impl_scalar!(f32 f64 i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize bool);

/// The right-hand side of a broadcasting operation with elements of type `T`: a tensor (owned
/// or borrowed, any storage) or a scalar.
pub trait Operand<T> {
    /// The operand's shape (`()` for a scalar).
    type Shape: crate::shape::Shape;
    /// Where a result involving this operand is stored.
    type Family: Family;
    /// The elements, row-major.
    fn elements(&self) -> &[T];
    /// The operand's shape value (its runtime dims, for shapes with `Dyn` dims).
    fn shape_value(&self) -> Self::Shape;
}

impl<T, S: crate::shape::Shape, D: Data<T>> Operand<T> for &Tensor<T, S, D> {
    type Shape = S;
    type Family = D::Family;
    #[inline(always)]
    fn elements(&self) -> &[T] {
        self.as_slice()
    }
    #[inline(always)]
    fn shape_value(&self) -> S {
        Tensor::shape_value(self)
    }
}

impl<T, S: crate::shape::Shape, D: Data<T>> Operand<T> for Tensor<T, S, D> {
    type Shape = S;
    type Family = D::Family;
    #[inline(always)]
    fn elements(&self) -> &[T] {
        self.as_slice()
    }
    #[inline(always)]
    fn shape_value(&self) -> S {
        Tensor::shape_value(self)
    }
}

impl<T: Scalar> Operand<T> for T {
    type Shape = ();
    type Family = Stack;
    #[inline(always)]
    fn elements(&self) -> &[T] {
        core::slice::from_ref(self)
    }
    #[inline(always)]
    fn shape_value(&self) {}
}

/// What a NUMPY-broadcast operation of `Self` (the left tensor) with `R` needs: the output shape
/// and where the result is stored. Holds exactly when the shapes broadcast.
pub trait NumpyWith<U, R: Operand<U>> {
    /// The right operand's (static) shape.
    type RhsShape: StaticShape;
    /// The output shape.
    type Shape: StaticShape;
    /// Where the result is stored.
    type Family: Family;
}

// One impl per kind of right operand, so both shapes are plain types in the impl header: with a
// projection there (`R::Shape`), rustc reports a failed dim lookup against the wrong impl.
macro_rules! impl_numpy_with {
    ($([$($lt:lifetime)?; $($gen:tt)*] $rhs:ty => $rs:ty, $rf:ty;)*) => {$(
        impl<$($lt,)? T, S, D, U, $($gen)*> NumpyWith<U, $rhs> for Tensor<T, S, D>
        where
            S: StaticShape + BroadcastShape<$rs, Numpy>,
            NumpyOutput<S, $rs>: StaticShape,
            D: Data<T>,
            D::Family: Join<$rf>,
            $rhs: Operand<U>,
        {
            type RhsShape = $rs;
            type Shape = NumpyOutput<S, $rs>;
            type Family = <D::Family as Join<$rf>>::Out;
        }
    )*};
}

impl_numpy_with! {
    ['r; S2: StaticShape, E: Data<U>] &'r Tensor<U, S2, E> => S2, E::Family;
    [; S2: StaticShape, E: Data<U>] Tensor<U, S2, E> => S2, E::Family;
    [; ] U => (), Stack;
}

/// The tensor produced by a NUMPY-broadcast operation of `L` with `R` (elements `U`), holding `V`.
pub type Broadcasted<L, U, R, V> =
    OwnedIn<<L as NumpyWith<U, R>>::Family, V, <L as NumpyWith<U, R>>::Shape>;

/// Operations for every kind of storage.
impl<T, S: StaticShape, D: Data<T>> Tensor<T, S, D> {
    /// NUMPY-broadcasts `self` with `rhs` and combines each pair of elements with `f`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<i32, Shape![2, 1]>::from([[1], [2]]);
    /// let b = Tensor::<i32, Shape![3]>::from([10, 20, 30]);
    /// let c = a.broadcast_with(&b, |x, y| x * y);
    /// assert_eq!(c.as_slice(), &[10, 20, 30, 20, 40, 60]);
    /// ```
    #[inline(always)]
    pub fn broadcast_with<U, R, V>(
        &self,
        rhs: R,
        mut f: impl FnMut(T, U) -> V,
    ) -> Broadcasted<Self, U, R, V>
    where
        R: Operand<U>,
        Self: NumpyWith<U, R>,
        T: Clone,
        U: Clone,
    {
        let data = kernel::zip::<
            <Self as NumpyWith<U, R>>::Family,
            T,
            U,
            V,
            S,
            <Self as NumpyWith<U, R>>::RhsShape,
            <Self as NumpyWith<U, R>>::Shape,
        >(self.as_slice(), rhs.elements(), |x, y| {
            f(x.clone(), y.clone())
        });
        Tensor::from_parts(data, Default::default())
    }

    /// Like [`broadcast_with`](Self::broadcast_with), writing into `out` instead of building a
    /// new tensor: the way to produce a result too large for the stack without a heap.
    ///
    /// ```
    /// use shaped::{Shape, Tensor, TensorViewMut};
    /// let a = Tensor::<f32, Shape![2, 1]>::from([[1.0], [2.0]]);
    /// let b = Tensor::<f32, Shape![2]>::from([10.0, 20.0]);
    /// let mut buf = [0.0f32; 4];
    /// let mut out = TensorViewMut::<f32, Shape![2, 2]>::new(&mut buf).unwrap();
    /// a.broadcast_with_into(&b, &mut out, |x, y| x + y);
    /// assert_eq!(buf, [11.0, 21.0, 12.0, 22.0]);
    /// ```
    #[inline(always)]
    pub fn broadcast_with_into<U, R, V, E>(
        &self,
        rhs: R,
        out: &mut Tensor<V, <Self as NumpyWith<U, R>>::Shape, E>,
        mut f: impl FnMut(T, U) -> V,
    ) where
        R: Operand<U>,
        Self: NumpyWith<U, R>,
        E: DataMut<V>,
        T: Clone,
        U: Clone,
    {
        kernel::zip_into::<
            T,
            U,
            V,
            S,
            <Self as NumpyWith<U, R>>::RhsShape,
            <Self as NumpyWith<U, R>>::Shape,
        >(
            self.as_slice(),
            rhs.elements(),
            out.as_mut_slice(),
            |x, y| f(x.clone(), y.clone()),
        );
    }

    /// NONE broadcasting (N1-N3): combines two tensors of *identical* shape with `f`. A shape
    /// mismatch, a rank mismatch included, is a compile error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<i32, Shape![3]>::from([1, 2, 3]);
    /// let p = a.zip_map(&a, |x, y| x * y);
    /// assert_eq!(p.as_slice(), &[1, 4, 9]);
    /// ```
    #[inline(always)]
    pub fn zip_map<U, S2, E, V>(
        &self,
        rhs: &Tensor<U, S2, E>,
        mut f: impl FnMut(T, U) -> V,
    ) -> OwnedIn<<D::Family as Join<E::Family>>::Out, V, S>
    where
        S2: StaticShape + SameShape<S>,
        E: Data<U>,
        D::Family: Join<E::Family>,
        T: Clone,
        U: Clone,
    {
        let data = kernel::zip::<<D::Family as Join<E::Family>>::Out, T, U, V, S, S, S>(
            self.as_slice(),
            rhs.as_slice(),
            |x, y| f(x.clone(), y.clone()),
        );
        Tensor::from_parts(data, Default::default())
    }

    /// Bidirectional broadcasting (B1-B3) to the target shape `Target`: the output shape is the
    /// NUMPY broadcast of the two shapes, so it may differ from `Target` where the target has 1s
    /// or a smaller rank.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![1, 4, 1]>::from([[[1], [2], [3], [4]]]);
    /// let b: Tensor<i32, Shape![1, 4, 4]> = t.broadcast_to::<Shape![1, 4]>();
    /// assert_eq!(b[[0, 2, 3]], 3);
    /// ```
    #[inline(always)]
    pub fn broadcast_to<Target>(&self) -> OwnedIn<D::Family, T, BidirectionalOutput<S, Target>>
    where
        Target: StaticShape,
        S: BroadcastShape<Target, Bidirectional>,
        BidirectionalOutput<S, Target>: StaticShape,
        T: Clone,
    {
        let data = kernel::zip::<D::Family, T, T, T, S, S, BidirectionalOutput<S, Target>>(
            self.as_slice(),
            self.as_slice(),
            |x, _| x.clone(),
        );
        Tensor::from_parts(data, Default::default())
    }

    /// Elementwise maximum, NUMPY-broadcast. A NaN in either operand gives NaN, as in numpy.
    #[inline(always)]
    pub fn maximum<R>(&self, rhs: R) -> Broadcasted<Self, T, R, T>
    where
        R: Operand<T>,
        Self: NumpyWith<T, R>,
        T: PartialOrd + Copy,
    {
        self.broadcast_with(rhs, |x, y| pick(x, y, core::cmp::Ordering::Greater))
    }

    /// Elementwise minimum, NUMPY-broadcast. A NaN in either operand gives NaN, as in numpy.
    #[inline(always)]
    pub fn minimum<R>(&self, rhs: R) -> Broadcasted<Self, T, R, T>
    where
        R: Operand<T>,
        Self: NumpyWith<T, R>,
        T: PartialOrd + Copy,
    {
        self.broadcast_with(rhs, |x, y| pick(x, y, core::cmp::Ordering::Less))
    }

    /// Elementwise `(self - rhs)²`, NUMPY-broadcast.
    #[inline(always)]
    pub fn squared_difference<R>(&self, rhs: R) -> Broadcasted<Self, T, R, T>
    where
        R: Operand<T>,
        Self: NumpyWith<T, R>,
        T: Copy + ops::Sub<Output = T> + ops::Mul<Output = T>,
    {
        self.broadcast_with(rhs, |x, y| {
            let d = x - y;
            d * d
        })
    }

    /// Elementwise `self.powf(rhs)` for float elements, NUMPY-broadcast. Needs the `std` or the
    /// `libm` feature.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![2]>::from([2.0, 3.0]).pow(2.0);
    /// assert_eq!(t.as_slice(), &[4.0, 9.0]);
    /// ```
    #[cfg(any(feature = "std", feature = "libm"))]
    #[inline(always)]
    pub fn pow<R>(&self, rhs: R) -> Broadcasted<Self, T, R, T>
    where
        R: Operand<T>,
        Self: NumpyWith<T, R>,
        T: Float,
    {
        self.broadcast_with(rhs, |x, y| x.powf(y))
    }
}

/// A floating-point element type: what [`Tensor::pow`] needs.
#[cfg(any(feature = "std", feature = "libm"))]
#[diagnostic::on_unimplemented(
    message = "`pow` needs floating-point elements, but the elements are `{Self}`",
    label = "`pow` is defined for f32 and f64 tensors",
    note = "for integer powers, use `map(|x| x.pow(n))`"
)]
pub trait Float: Copy {
    /// `self` raised to the power `exp`.
    fn powf(self, exp: Self) -> Self;
}

#[cfg(any(feature = "std", feature = "libm"))]
macro_rules! impl_float {
    ($($t:ty)*) => {$(
        impl Float for $t {
            #[inline(always)]
            fn powf(self, exp: Self) -> Self {
                num_traits::Float::powf(self, exp)
            }
        }
    )*};
}
#[cfg(any(feature = "std", feature = "libm"))]
impl_float!(f32 f64);

macro_rules! comparison {
    ($($name:ident $bound:ident $op:tt $doc:literal;)*) => {
        /// Comparisons, NUMPY-broadcast, giving `bool` tensors.
        impl<T, S: StaticShape, D: Data<T>> Tensor<T, S, D> {$(
            #[doc = $doc]
            #[inline(always)]
            pub fn $name<R>(&self, rhs: R) -> Broadcasted<Self, T, R, bool>
            where
                R: Operand<T>,
                Self: NumpyWith<T, R>,
                T: $bound + Copy,
            {
                self.broadcast_with(rhs, |x, y| x $op y)
            }
        )*}
    };
}

comparison! {
    eq_elem PartialEq == "Elementwise `self == rhs`.";
    ne_elem PartialEq != "Elementwise `self != rhs`.";
    lt PartialOrd < "Elementwise `self < rhs`.";
    le PartialOrd <= "Elementwise `self <= rhs`.";
    gt PartialOrd > "Elementwise `self > rhs`.";
    ge PartialOrd >= "Elementwise `self >= rhs`.";
}

/// The element type of the logical operations: `bool`.
#[diagnostic::on_unimplemented(
    message = "logical operations need `bool` elements, but the elements are `{Self}`",
    label = "`and`, `or` and `xor` are defined for `Tensor<bool, _>`",
    note = "compare first to get a bool tensor, e.g. `t.gt(0.0)`"
)]
pub trait Boolean:
    Copy + ops::BitAnd<Output = Self> + ops::BitOr<Output = Self> + ops::BitXor<Output = Self>
{
}
impl Boolean for bool {}

macro_rules! logical {
    ($($name:ident $op:tt $doc:literal;)*) => {
        /// Logical operations on `bool` tensors, NUMPY-broadcast.
        impl<T, S: StaticShape, D: Data<T>> Tensor<T, S, D> {$(
            #[doc = $doc]
            #[inline(always)]
            pub fn $name<R>(&self, rhs: R) -> Broadcasted<Self, T, R, T>
            where
                T: Boolean,
                R: Operand<T>,
                Self: NumpyWith<T, R>,
            {
                self.broadcast_with(rhs, |x, y| x $op y)
            }
        )*}
    };
}

logical! {
    and & "Elementwise logical and.";
    or | "Elementwise logical or.";
    xor ^ "Elementwise logical exclusive or.";
}

/// The kind of the pair of shapes of an operator: static only if both are.
type PairKind<A, B> = <<A as Shape>::Kind as DimKind>::And<<B as Shape>::Kind>;

/// Where an operator's work goes, chosen by the kind of both shapes ([`StaticKind`] or
/// `DynKind`): two impls keyed on different kinds, so they never overlap.
///
/// * Both static: the static kernel, no runtime check, the result stored like the operands.
/// * A [`Dyn`](crate::Dyn) dim on either side (feature `alloc`): the runtime rules and kernel,
///   as the `try_*` methods; **a runtime mismatch panics** with the error's message. Use the
///   `try_*` methods to get a `Result` instead.
pub trait OperatorPath<T, U, R: Operand<U>, K> {
    /// The result, holding `V`s.
    type Output<V>;
    /// Combines `self` with `rhs` elementwise through `f`.
    fn apply<V>(&self, rhs: R, f: impl FnMut(T, U) -> V) -> Self::Output<V>;
}

impl<T, S, D, U, R> OperatorPath<T, U, R, StaticKind> for Tensor<T, S, D>
where
    S: StaticShape,
    D: Data<T>,
    R: Operand<U>,
    Self: NumpyWith<U, R>,
    T: Clone,
    U: Clone,
{
    type Output<V> = Broadcasted<Self, U, R, V>;
    #[inline(always)]
    fn apply<V>(&self, rhs: R, f: impl FnMut(T, U) -> V) -> Self::Output<V> {
        self.broadcast_with(rhs, f)
    }
}

#[cfg(feature = "alloc")]
impl<T, S, D, U, R> OperatorPath<T, U, R, DynKind> for Tensor<T, S, D>
where
    S: Shape + BroadcastShape<R::Shape, Numpy>,
    D: Data<T>,
    R: Operand<U>,
    T: Clone,
    U: Clone,
{
    type Output<V> = Tensor<V, NumpyOutput<S, R::Shape>>;
    #[track_caller]
    fn apply<V>(&self, rhs: R, mut f: impl FnMut(T, U) -> V) -> Self::Output<V> {
        let result = self
            .zip_runtime::<U, R::Shape, V>(
                rhs.elements(),
                rhs.shape_value().dims(),
                AutoBroadcast::Numpy,
                &mut f,
            )
            .and_then(|(dims, out)| {
                crate::mixed::finish::<V, NumpyOutput<S, R::Shape>>(&dims, out)
            });
        match result {
            Ok(tensor) => tensor,
            Err(e) => panic!("{e}"),
        }
    }
}

macro_rules! binary_operator {
    ($($Trait:ident $method:ident;)*) => {$(
        /// NUMPY-broadcast operator; the right side is a tensor, a reference to one, or a scalar.
        /// Fully static shapes are checked at compile time and cannot fail; with a `Dyn` dim
        /// the runtime check panics on a mismatch (see [`OperatorPath`]; `try_*` methods return
        /// a `Result`).
        impl<T, S, D, R> ops::$Trait<R> for &Tensor<T, S, D>
        where
            S: Shape,
            D: Data<T>,
            R: Operand<T>,
            Tensor<T, S, D>: OperatorPath<T, T, R, PairKind<S, R::Shape>>,
            T: Copy + ops::$Trait<Output = T>,
        {
            type Output = <Tensor<T, S, D> as OperatorPath<T, T, R, PairKind<S, R::Shape>>>::Output<T>;
            #[inline(always)]
            #[track_caller]
            fn $method(self, rhs: R) -> Self::Output {
                OperatorPath::apply(self, rhs, |x, y| ops::$Trait::$method(x, y))
            }
        }

        /// NUMPY-broadcast operator on an owned left side.
        impl<T, S, D, R> ops::$Trait<R> for Tensor<T, S, D>
        where
            S: Shape,
            D: Data<T>,
            R: Operand<T>,
            Tensor<T, S, D>: OperatorPath<T, T, R, PairKind<S, R::Shape>>,
            T: Copy + ops::$Trait<Output = T>,
        {
            type Output = <Tensor<T, S, D> as OperatorPath<T, T, R, PairKind<S, R::Shape>>>::Output<T>;
            #[inline(always)]
            #[track_caller]
            fn $method(self, rhs: R) -> Self::Output {
                OperatorPath::apply(&self, rhs, |x, y| ops::$Trait::$method(x, y))
            }
        }
    )*};
}

binary_operator! {
    Add add;
    Sub sub;
    Mul mul;
    Div div;
    Rem rem;
    BitAnd bitand;
    BitOr bitor;
    BitXor bitxor;
}

macro_rules! scalar_lhs_operator {
    ($($t:ty)*) => {$(
        scalar_lhs_operator!(@each $t; Add add, Sub sub, Mul mul, Div div, Rem rem);
    )*};
    (@each $t:ty; $($Trait:ident $method:ident),*) => {$(
        /// A scalar on the left: rank 0 against any shape gives that shape (P3).
        impl<S, D> ops::$Trait<&Tensor<$t, S, D>> for $t
        where
            S: StaticShape,
            D: Data<$t>,
        {
            type Output = OwnedIn<D::Family, $t, S>;
            #[inline(always)]
            fn $method(self, rhs: &Tensor<$t, S, D>) -> Self::Output {
                rhs.map(|y| ops::$Trait::$method(self, y))
            }
        }
    )*};
}

scalar_lhs_operator!(f32 f64 i8 i16 i32 i64 isize u8 u16 u32 u64 usize);
