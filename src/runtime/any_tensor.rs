//! A tensor whose element type is known only at run time (feature `any-tensor`): one enum
//! over a [`DynTensor`] of each element type, whose methods dispatch to the typed ones.
//!
//! Every method is one `match` over the element type and a call of the `DynTensor` method of
//! the same name: the results, the errors and the rules are that method's. What this adds is
//! the element type as a value ([`DType`]), the errors of a mismatch (two element types in one
//! operation, [`ErrorKind::ElementTypes`]) or of an operation the type lacks (arithmetic on
//! `bool`, `sqrt` on integers, [`ErrorKind::UnsupportedDType`]), and casts to a type chosen at
//! run time. It sits behind a feature because each method is compiled once per element type:
//! see the measurements in `Cargo.toml`.

use alloc::vec::Vec;

use super::dyn_tensor::DynTensor;
use crate::cast::{CastElement, DType};
use crate::error::{Error, ErrorKind, Operation};
use crate::op::{AnyOp, BinaryOp, CompareOp, LogicalOp, ReduceOp, ShapeOp};
use crate::rules::{AutoBroadcast, Axes, BroadcastToMode, MatMulOptions, PadMode, RangeElement};

/// A tensor of any element type, known at run time (feature `any-tensor`): what an inference
/// runtime holds when a model file says the type.
///
/// Build one from a `DynTensor` (`AnyTensor::from(t)`), ask its [`dtype`](Self::dtype), and get
/// the typed tensor back with [`typed`](Self::typed) or [`into_typed`](Self::into_typed)
/// (an error naming both element types if it is another). Operations on two tensors need the
/// same element type; casts convert between any two ([`cast`](Self::cast), C1-C3).
///
/// ```
/// use shaped::{AnyTensor, BinaryOp, AutoBroadcast, DType, DynTensor};
/// let a = AnyTensor::from(DynTensor::from_shape_vec([2, 2], vec![1.5f32, -2.0, 3.0, 0.5])?);
/// let b = AnyTensor::from(DynTensor::from_shape_vec([2], vec![1i32, 2])?);
/// assert_eq!(a.dtype(), DType::F32);
/// let e = a.binary(&b, BinaryOp::Add, AutoBroadcast::Numpy).unwrap_err();
/// assert_eq!(e.to_string(), "cannot compute add of f32 [2, 2] and i32 [2]: the element types differ");
/// let sum = a.binary(&b.cast(DType::F32), BinaryOp::Add, AutoBroadcast::Numpy)?;
/// assert_eq!(sum.typed::<f32>()?.as_slice(), &[2.5, 0.0, 4.0, 2.5]);
/// let ints = sum.try_cast(DType::I8)?;
/// assert_eq!(ints.into_typed::<i8>()?.as_slice(), &[2, 0, 4, 2]);
/// # Ok::<(), shaped::Error>(())
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "any-tensor")))]
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum AnyTensor {
    /// `bool` elements.
    Bool(DynTensor<bool>),
    /// `i8` elements.
    I8(DynTensor<i8>),
    /// `i16` elements.
    I16(DynTensor<i16>),
    /// `i32` elements.
    I32(DynTensor<i32>),
    /// `i64` elements.
    I64(DynTensor<i64>),
    /// `isize` elements.
    ISize(DynTensor<isize>),
    /// `u8` elements.
    U8(DynTensor<u8>),
    /// `u16` elements.
    U16(DynTensor<u16>),
    /// `u32` elements.
    U32(DynTensor<u32>),
    /// `u64` elements.
    U64(DynTensor<u64>),
    /// `usize` elements (the indices of `argmax` and `argmin`).
    USize(DynTensor<usize>),
    /// `f16` elements (feature `half`).
    #[cfg(feature = "half")]
    F16(DynTensor<half::f16>),
    /// `bf16` elements (feature `half`).
    #[cfg(feature = "half")]
    BF16(DynTensor<half::bf16>),
    /// `f32` elements.
    F32(DynTensor<f32>),
    /// `f64` elements.
    F64(DynTensor<f64>),
}

/// `$body` with `$t` the typed tensor of whichever variant `$value` is.
macro_rules! each {
    ($value:expr, |$t:ident| $body:expr) => {
        match $value {
            AnyTensor::Bool($t) => $body,
            AnyTensor::I8($t) => $body,
            AnyTensor::I16($t) => $body,
            AnyTensor::I32($t) => $body,
            AnyTensor::I64($t) => $body,
            AnyTensor::ISize($t) => $body,
            AnyTensor::U8($t) => $body,
            AnyTensor::U16($t) => $body,
            AnyTensor::U32($t) => $body,
            AnyTensor::U64($t) => $body,
            AnyTensor::USize($t) => $body,
            #[cfg(feature = "half")]
            AnyTensor::F16($t) => $body,
            #[cfg(feature = "half")]
            AnyTensor::BF16($t) => $body,
            AnyTensor::F32($t) => $body,
            AnyTensor::F64($t) => $body,
        }
    };
}

/// `$body` for the numeric variants, `$other` for `bool`.
macro_rules! numeric {
    ($value:expr, $other:expr, |$t:ident| $body:expr) => {
        match $value {
            AnyTensor::Bool(_) => $other,
            AnyTensor::I8($t) => $body,
            AnyTensor::I16($t) => $body,
            AnyTensor::I32($t) => $body,
            AnyTensor::I64($t) => $body,
            AnyTensor::ISize($t) => $body,
            AnyTensor::U8($t) => $body,
            AnyTensor::U16($t) => $body,
            AnyTensor::U32($t) => $body,
            AnyTensor::U64($t) => $body,
            AnyTensor::USize($t) => $body,
            #[cfg(feature = "half")]
            AnyTensor::F16($t) => $body,
            #[cfg(feature = "half")]
            AnyTensor::BF16($t) => $body,
            AnyTensor::F32($t) => $body,
            AnyTensor::F64($t) => $body,
        }
    };
}

/// The reductions of numbers only: `bool` is the unsupported-type error.
macro_rules! numeric_reductions {
    ($($name:ident $op:ident $doc:literal;)*) => {$(
        #[doc = $doc]
        #[inline]
        pub fn $name<'a>(
            &self,
            axes: impl Into<Axes<'a>>,
            keepdims: bool,
        ) -> Result<AnyTensor, Error> {
            let axes = axes.into();
            numeric!(
                self,
                Err(self.unsupported(AnyOp::Reduce(ReduceOp::$op))),
                |t| t.$name(axes, keepdims).map(AnyTensor::from)
            )
        }
    )*};
}

/// `$body` for the float variants, `$other` for the rest.
#[allow(unused_macros)]
macro_rules! float {
    ($value:expr, $other:expr, |$t:ident| $body:expr) => {
        match $value {
            #[cfg(feature = "half")]
            AnyTensor::F16($t) => $body,
            #[cfg(feature = "half")]
            AnyTensor::BF16($t) => $body,
            AnyTensor::F32($t) => $body,
            AnyTensor::F64($t) => $body,
            _ => $other,
        }
    };
}

/// The element types an `AnyTensor` holds: each wraps its `DynTensor` and finds it again.
/// Sealed (implemented for the types of [`DType`]).
#[cfg_attr(docsrs, doc(cfg(feature = "any-tensor")))]
pub trait AnyElement: CastElement + private::Sealed {
    #[doc(hidden)]
    fn wrap(t: DynTensor<Self>) -> AnyTensor;
    #[doc(hidden)]
    fn peek(t: &AnyTensor) -> Option<&DynTensor<Self>>;
    #[doc(hidden)]
    fn take(t: AnyTensor) -> Result<DynTensor<Self>, AnyTensor>;
}

mod private {
    pub trait Sealed {}
}

macro_rules! any_element {
    ($($(#[$m:meta])* $t:ty => $v:ident;)*) => {$(
        $(#[$m])*
        impl private::Sealed for $t {}
        $(#[$m])*
        impl AnyElement for $t {
            #[inline]
            fn wrap(t: DynTensor<Self>) -> AnyTensor {
                AnyTensor::$v(t)
            }
            #[inline]
            fn peek(t: &AnyTensor) -> Option<&DynTensor<Self>> {
                match t {
                    AnyTensor::$v(t) => Some(t),
                    _ => None,
                }
            }
            #[inline]
            fn take(t: AnyTensor) -> Result<DynTensor<Self>, AnyTensor> {
                match t {
                    AnyTensor::$v(t) => Ok(t),
                    other => Err(other),
                }
            }
        }
        $(#[$m])*
        impl From<DynTensor<$t>> for AnyTensor {
            #[inline]
            fn from(t: DynTensor<$t>) -> Self {
                AnyTensor::$v(t)
            }
        }
    )*};
}

any_element! {
    bool => Bool;
    i8 => I8;
    i16 => I16;
    i32 => I32;
    i64 => I64;
    isize => ISize;
    u8 => U8;
    u16 => U16;
    u32 => U32;
    u64 => U64;
    usize => USize;
    #[cfg(feature = "half")]
    half::f16 => F16;
    #[cfg(feature = "half")]
    half::bf16 => BF16;
    f32 => F32;
    f64 => F64;
}

/// The typed tensor of `T` made by `make`, wrapped: how a run-time `DType` picks a type.
macro_rules! for_dtype {
    ($dtype:expr, |$t:ident| $make:expr) => {
        match $dtype {
            DType::Bool => {
                type $t = bool;
                $make
            }
            DType::I8 => {
                type $t = i8;
                $make
            }
            DType::I16 => {
                type $t = i16;
                $make
            }
            DType::I32 => {
                type $t = i32;
                $make
            }
            DType::I64 => {
                type $t = i64;
                $make
            }
            DType::ISize => {
                type $t = isize;
                $make
            }
            DType::U8 => {
                type $t = u8;
                $make
            }
            DType::U16 => {
                type $t = u16;
                $make
            }
            DType::U32 => {
                type $t = u32;
                $make
            }
            DType::U64 => {
                type $t = u64;
                $make
            }
            DType::USize => {
                type $t = usize;
                $make
            }
            #[cfg(feature = "half")]
            DType::F16 => {
                type $t = half::f16;
                $make
            }
            #[cfg(feature = "half")]
            DType::BF16 => {
                type $t = half::bf16;
                $make
            }
            DType::F32 => {
                type $t = f32;
                $make
            }
            DType::F64 => {
                type $t = f64;
                $make
            }
            #[allow(unreachable_patterns)]
            _ => None,
        }
    };
}

impl AnyTensor {
    /// The element type.
    #[inline]
    pub fn dtype(&self) -> DType {
        fn of<T: CastElement>(_: &DynTensor<T>) -> DType {
            T::DTYPE
        }
        each!(self, |t| of(t))
    }

    /// The dims.
    #[inline]
    pub fn shape(&self) -> &[usize] {
        each!(self, |t| t.shape())
    }

    /// The number of dims.
    #[inline]
    pub fn rank(&self) -> usize {
        self.shape().len()
    }

    /// The number of elements.
    #[inline]
    pub fn len(&self) -> usize {
        each!(self, |t| t.len())
    }

    /// Whether there are no elements.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A tensor of `dtype` of the given shape with every element zero (`false` for `bool`);
    /// `None` for a `dtype` this build does not hold (`f16` and `bf16` without feature
    /// `half`). Errors as [`DynTensor::from_elem`].
    ///
    /// ```
    /// use shaped::{AnyTensor, DType};
    /// let z = AnyTensor::zeros(DType::U16, [2, 3]).unwrap()?;
    /// assert_eq!((z.dtype(), z.shape()), (DType::U16, &[2, 3][..]));
    /// # Ok::<(), shaped::Error>(())
    /// ```
    #[inline]
    pub fn zeros(dtype: DType, shape: impl AsRef<[usize]>) -> Option<Result<AnyTensor, Error>> {
        let shape = shape.as_ref();
        for_dtype!(dtype, |T| Some(
            DynTensor::<T>::from_elem(shape, crate::cast::cast::<bool, T>(false))
                .map(AnyTensor::from)
        ))
    }

    /// The typed tensor, if the elements are `T`s; otherwise the error naming both types.
    ///
    /// ```
    /// use shaped::{AnyTensor, DynTensor};
    /// let a = AnyTensor::from(DynTensor::from_shape_vec([3], vec![1u8, 2, 3])?);
    /// assert_eq!(a.typed::<u8>()?.as_slice(), &[1, 2, 3]);
    /// assert_eq!(a.typed::<f32>().unwrap_err().to_string(), "the elements of [3] are u8, not f32");
    /// # Ok::<(), shaped::Error>(())
    /// ```
    #[inline]
    pub fn typed<T: AnyElement>(&self) -> Result<&DynTensor<T>, Error> {
        T::peek(self).ok_or_else(|| self.wrong_type::<T>())
    }

    /// The typed tensor by value, if the elements are `T`s; otherwise the error naming both
    /// types (the tensor is dropped; check [`dtype`](Self::dtype) first to keep it).
    #[inline]
    pub fn into_typed<T: AnyElement>(self) -> Result<DynTensor<T>, Error> {
        T::take(self).map_err(|t| t.wrong_type::<T>())
    }

    #[inline]
    fn wrong_type<T: CastElement>(&self) -> Error {
        let kind = ErrorKind::ElementTypes {
            op: AnyOp::Typed,
            lhs: self.dtype(),
            rhs: T::DTYPE,
        };
        Error::new(kind, Operation::Compute, self.shape(), &[])
    }

    #[inline]
    fn unsupported(&self, op: AnyOp) -> Error {
        let kind = ErrorKind::UnsupportedDType {
            op,
            dtype: self.dtype(),
        };
        Error::new(kind, Operation::Compute, self.shape(), &[])
    }

    #[inline]
    fn differ(&self, other: &AnyTensor, op: AnyOp) -> Error {
        let kind = ErrorKind::ElementTypes {
            op,
            lhs: self.dtype(),
            rhs: other.dtype(),
        };
        Error::new(kind, Operation::Compute, self.shape(), other.shape())
    }

    // ------------------------------------------------------------------ casts (C1-C3)

    /// Each element converted to `dtype` by C1 ([`DynTensor::cast`]).
    ///
    /// # Panics
    ///
    /// If `dtype` is `F16` or `BF16` in a build without feature `half` (they cannot be
    /// held), or if the heap cannot hold the result; [`try_cast`](Self::try_cast) returns
    /// errors instead.
    #[inline]
    pub fn cast(&self, dtype: DType) -> AnyTensor {
        self.convert(dtype, crate::cast::Mode::As)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// Each element converted to `dtype` by C2 ([`DynTensor::cast_saturating`]).
    ///
    /// # Panics
    ///
    /// As [`cast`](Self::cast).
    #[inline]
    pub fn cast_saturating(&self, dtype: DType) -> AnyTensor {
        self.convert(dtype, crate::cast::Mode::Saturating)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// Each element converted to `dtype` by C3 ([`DynTensor::try_cast`]): the error of the
    /// first element with no value there. A `dtype` this build cannot hold is an error too.
    #[inline]
    pub fn try_cast(&self, dtype: DType) -> Result<AnyTensor, Error> {
        self.convert(dtype, crate::cast::Mode::Checked)
    }

    /// The casts' one loop per pair of types, the mode a value: each pair is compiled once
    /// (three calls of the typed casts, through their parallel kernel, made this feature's
    /// build several times slower).
    #[inline]
    fn convert(&self, dtype: DType, mode: crate::cast::Mode) -> Result<AnyTensor, Error> {
        use crate::cast::Mode;
        fn go<T: CastElement, U: AnyElement>(
            t: &DynTensor<T>,
            mode: Mode,
        ) -> Result<AnyTensor, Error> {
            if mode == Mode::Checked {
                super::cast::check_cast::<T, U>(t.as_slice(), t.shape())?;
            }
            // Where C3 has a value, C1 gives the same one.
            let mode = if mode == Mode::Checked {
                Mode::As
            } else {
                mode
            };
            t.try_map(|&x| crate::cast::convert::<T, U>(x, mode))
                .map(U::wrap)
        }
        let r = for_dtype!(dtype, |U| Some(each!(self, |t| go::<_, U>(t, mode))));
        // Only `f16` and `bf16` without feature `half` have no typed tensor here.
        r.unwrap_or_else(|| {
            let kind = ErrorKind::UnsupportedDType {
                op: AnyOp::Unary("cast"),
                dtype,
            };
            Err(Error::new(kind, Operation::Compute, self.shape(), &[]))
        })
    }

    // ------------------------------------------------------------------ elementwise

    /// An arithmetic operation ([`DynTensor::binary`]): both tensors of one numeric element
    /// type.
    #[inline]
    pub fn binary(
        &self,
        rhs: &AnyTensor,
        op: BinaryOp,
        mode: AutoBroadcast,
    ) -> Result<AnyTensor, Error> {
        fn go<T: AnyElement + crate::element::Element>(
            a: &DynTensor<T>,
            rhs: &AnyTensor,
            op: BinaryOp,
            mode: AutoBroadcast,
        ) -> Result<AnyTensor, Error> {
            a.binary(other::<T>(a, rhs, AnyOp::Binary(op))?, op, mode)
                .map(T::wrap)
        }
        numeric!(
            self,
            Err(self.first_unsupported(rhs, AnyOp::Binary(op))),
            |a| go(a, rhs, op, mode)
        )
    }

    /// A comparison ([`DynTensor::compare`]), giving a `bool` tensor: both tensors of one
    /// element type (`bool` too: `false < true`).
    #[inline]
    pub fn compare(
        &self,
        rhs: &AnyTensor,
        op: CompareOp,
        mode: AutoBroadcast,
    ) -> Result<AnyTensor, Error> {
        fn go<T: AnyElement + PartialOrd>(
            a: &DynTensor<T>,
            rhs: &AnyTensor,
            op: CompareOp,
            mode: AutoBroadcast,
        ) -> Result<AnyTensor, Error> {
            a.compare(other::<T>(a, rhs, AnyOp::Compare(op))?, op, mode)
                .map(AnyTensor::Bool)
        }
        each!(self, |a| go(a, rhs, op, mode))
    }

    /// A logical operation ([`DynTensor::logical`]) on two `bool` tensors.
    #[inline]
    pub fn logical(
        &self,
        rhs: &AnyTensor,
        op: LogicalOp,
        mode: AutoBroadcast,
    ) -> Result<AnyTensor, Error> {
        match (self, rhs) {
            (AnyTensor::Bool(a), AnyTensor::Bool(b)) => a.logical(b, op, mode).map(AnyTensor::Bool),
            (AnyTensor::Bool(_), _) => Err(self.differ(rhs, AnyOp::Logical(op))),
            _ => Err(self.unsupported(AnyOp::Logical(op))),
        }
    }

    /// `then` where `self` is true, `otherwise` where it is false, the three broadcast together
    /// (W1, [`DynTensor::where_cond`]): `self` is `bool`, `then` and `otherwise` of one type.
    #[inline]
    pub fn where_cond(&self, then: &AnyTensor, otherwise: &AnyTensor) -> Result<AnyTensor, Error> {
        self.choose(then, otherwise, None)
    }

    /// Select under a broadcast mode (W2, [`DynTensor::select`]): `self` is `bool`, `then` and
    /// `otherwise` of one type.
    #[inline]
    pub fn select(
        &self,
        then: &AnyTensor,
        otherwise: &AnyTensor,
        mode: AutoBroadcast,
    ) -> Result<AnyTensor, Error> {
        self.choose(then, otherwise, Some(mode))
    }

    #[inline]
    fn choose(
        &self,
        then: &AnyTensor,
        otherwise: &AnyTensor,
        mode: Option<AutoBroadcast>,
    ) -> Result<AnyTensor, Error> {
        fn go<T: AnyElement>(
            cond: &DynTensor<bool>,
            a: &DynTensor<T>,
            otherwise: &AnyTensor,
            mode: Option<AutoBroadcast>,
        ) -> Result<AnyTensor, Error> {
            let b = other::<T>(a, otherwise, AnyOp::Select)?;
            match mode {
                None => DynTensor::where_cond(cond, a, b),
                Some(mode) => DynTensor::select(cond, a, b, mode),
            }
            .map(T::wrap)
        }
        let AnyTensor::Bool(cond) = self else {
            return Err(self.unsupported(AnyOp::Select));
        };
        each!(then, |a| go(cond, a, otherwise, mode))
    }

    /// `-x` (numbers; integers wrap), or `!x` for `bool` ([`not`](Self::not)).
    #[inline]
    pub fn neg(&self) -> Result<AnyTensor, Error> {
        numeric!(self, Err(self.unsupported(AnyOp::Unary("neg"))), |t| Ok(
            AnyTensor::from(t.map_shared(|&x| crate::element::Element::neg(x)))
        ))
    }

    /// `!x`: logical for `bool`, bitwise for integers; not defined for floats.
    #[inline]
    pub fn not(&self) -> Result<AnyTensor, Error> {
        match self {
            AnyTensor::Bool(t) => Ok(AnyTensor::from(!t)),
            AnyTensor::I8(t) => Ok(AnyTensor::from(!t)),
            AnyTensor::I16(t) => Ok(AnyTensor::from(!t)),
            AnyTensor::I32(t) => Ok(AnyTensor::from(!t)),
            AnyTensor::I64(t) => Ok(AnyTensor::from(!t)),
            AnyTensor::ISize(t) => Ok(AnyTensor::from(!t)),
            AnyTensor::U8(t) => Ok(AnyTensor::from(!t)),
            AnyTensor::U16(t) => Ok(AnyTensor::from(!t)),
            AnyTensor::U32(t) => Ok(AnyTensor::from(!t)),
            AnyTensor::U64(t) => Ok(AnyTensor::from(!t)),
            AnyTensor::USize(t) => Ok(AnyTensor::from(!t)),
            _ => Err(self.unsupported(AnyOp::Unary("not"))),
        }
    }

    /// `x` clamped to `[lo, hi]`, the bounds converted to the element type by C1 (numbers).
    #[inline]
    pub fn clip(&self, lo: f64, hi: f64) -> Result<AnyTensor, Error> {
        fn go<T: crate::element::Element + CastElement + AnyElement>(
            t: &DynTensor<T>,
            lo: f64,
            hi: f64,
        ) -> AnyTensor {
            let (lo, hi) = (
                crate::cast::cast::<f64, T>(lo),
                crate::cast::cast::<f64, T>(hi),
            );
            T::wrap(t.clip(lo, hi))
        }
        numeric!(self, Err(self.unsupported(AnyOp::Unary("clip"))), |t| Ok(
            go(t, lo, hi)
        ))
    }

    // ------------------------------------------------------------------ products

    /// The matrix product ([`DynTensor::matmul_with`], G1-G6): one numeric element type.
    #[inline]
    pub fn matmul(&self, rhs: &AnyTensor, options: MatMulOptions) -> Result<AnyTensor, Error> {
        fn go<T: AnyElement + crate::element::Element>(
            a: &DynTensor<T>,
            rhs: &AnyTensor,
            options: MatMulOptions,
        ) -> Result<AnyTensor, Error> {
            a.matmul_with(other::<T>(a, rhs, AnyOp::MatMul)?, options)
                .map(T::wrap)
        }
        numeric!(self, Err(self.first_unsupported(rhs, AnyOp::MatMul)), |a| {
            go(a, rhs, options)
        })
    }

    // ------------------------------------------------------------------ reductions

    numeric_reductions! {
        sum Sum "The sum over `axes` (R1-R5, [`DynTensor::sum`]), numbers.";
        prod Prod "The product over `axes` ([`DynTensor::prod`]), numbers.";
        mean Mean "The mean over `axes` ([`DynTensor::mean`]; integers truncate), numbers.";
    }

    /// The largest element over `axes` ([`DynTensor::max`]); `bool` too.
    #[inline]
    pub fn max<'a>(&self, axes: impl Into<Axes<'a>>, keepdims: bool) -> Result<AnyTensor, Error> {
        let axes = axes.into();
        each!(self, |t| t.max(axes, keepdims).map(AnyTensor::from))
    }

    /// The smallest element over `axes` ([`DynTensor::min`]); `bool` too.
    #[inline]
    pub fn min<'a>(&self, axes: impl Into<Axes<'a>>, keepdims: bool) -> Result<AnyTensor, Error> {
        let axes = axes.into();
        each!(self, |t| t.min(axes, keepdims).map(AnyTensor::from))
    }

    /// The index of the first (`last == false`) or last largest element along `axis` (R6,
    /// [`DynTensor::argmax`]), a `usize` tensor.
    #[inline]
    pub fn argmax(&self, axis: i64, keepdims: bool, last: bool) -> Result<AnyTensor, Error> {
        each!(self, |t| if last {
            t.argmax_last(axis, keepdims)
        } else {
            t.argmax(axis, keepdims)
        }
        .map(AnyTensor::USize))
    }

    /// The index of the first or last smallest element along `axis` (R6), a `usize` tensor.
    #[inline]
    pub fn argmin(&self, axis: i64, keepdims: bool, last: bool) -> Result<AnyTensor, Error> {
        each!(self, |t| if last {
            t.argmin_last(axis, keepdims)
        } else {
            t.argmin(axis, keepdims)
        }
        .map(AnyTensor::USize))
    }

    /// Whether every element over `axes` is true (`bool` tensors).
    #[inline]
    pub fn all<'a>(&self, axes: impl Into<Axes<'a>>, keepdims: bool) -> Result<AnyTensor, Error> {
        match self {
            AnyTensor::Bool(t) => t.all(axes, keepdims).map(AnyTensor::Bool),
            _ => Err(self.unsupported(AnyOp::Reduce(ReduceOp::All))),
        }
    }

    /// Whether some element over `axes` is true (`bool` tensors).
    #[inline]
    pub fn any<'a>(&self, axes: impl Into<Axes<'a>>, keepdims: bool) -> Result<AnyTensor, Error> {
        match self {
            AnyTensor::Bool(t) => t.any(axes, keepdims).map(AnyTensor::Bool),
            _ => Err(self.unsupported(AnyOp::Reduce(ReduceOp::Any))),
        }
    }

    // ------------------------------------------------------------------ shapes

    /// The same elements under `shape` (M1, M2: one dim may be `INFER`).
    #[inline]
    pub fn into_shape(self, shape: impl AsRef<[usize]>) -> Result<AnyTensor, Error> {
        let shape = shape.as_ref();
        each!(self, |t| t.into_shape(shape).map(AnyTensor::from))
    }

    /// The elements as one dim.
    #[inline]
    pub fn flatten(self) -> AnyTensor {
        each!(self, |t| AnyTensor::from(t.flatten()))
    }

    /// A dim of 1 inserted at `axis` (M3).
    #[inline]
    pub fn insert_axis(self, axis: i64) -> Result<AnyTensor, Error> {
        each!(self, |t| t.insert_axis(axis).map(AnyTensor::from))
    }

    /// The dim of 1 at `axis` removed (M3).
    #[inline]
    pub fn squeeze(self, axis: i64) -> Result<AnyTensor, Error> {
        each!(self, |t| t.squeeze(axis).map(AnyTensor::from))
    }

    /// The axes reordered (M4).
    #[inline]
    pub fn permute(&self, axes: impl AsRef<[i64]>) -> Result<AnyTensor, Error> {
        let axes = axes.as_ref();
        each!(self, |t| t.permute(axes).map(AnyTensor::from))
    }

    /// The Broadcast op under `mode` (B5, [`DynTensor::broadcast`]).
    #[inline]
    pub fn broadcast(
        &self,
        target: impl AsRef<[usize]>,
        mode: BroadcastToMode<'_>,
    ) -> Result<AnyTensor, Error> {
        let target = target.as_ref();
        each!(self, |t| t.broadcast(target, mode).map(AnyTensor::from))
    }

    /// The elements `slices` take (M8, [`DynTensor::slice`]): any step, clamped bounds.
    #[inline]
    pub fn slice(&self, slices: &[crate::rules::Slice]) -> Result<AnyTensor, Error> {
        each!(self, |t| t.slice(slices).map(AnyTensor::from))
    }

    /// The axis cut into parts of the given sizes (M9, [`DynTensor::split`]).
    #[inline]
    pub fn split(&self, axis: i64, sizes: &[usize]) -> Result<Vec<AnyTensor>, Error> {
        each!(self, |t| t
            .split(axis, sizes)
            .map(|parts| parts.into_iter().map(AnyTensor::from).collect()))
    }

    /// The axes of `axes` removed, each a 1 (M3).
    #[inline]
    pub fn squeeze_axes(self, axes: &[i64]) -> Result<AnyTensor, Error> {
        each!(self, |t| t.squeeze_axes(axes).map(AnyTensor::from))
    }

    /// Every axis of size 1 removed (M3).
    #[inline]
    pub fn squeeze_all(self) -> AnyTensor {
        each!(self, |t| AnyTensor::from(t.squeeze_all()))
    }

    /// The elements at `indices` along `axis` (M10, [`DynTensor::gather`]); the indices are a
    /// tensor of any integer type.
    #[inline]
    pub fn gather(&self, indices: &AnyTensor, axis: i64) -> Result<AnyTensor, Error> {
        self.gather_by(indices, axis, false)
    }

    /// The element at each index along `axis` (M11, [`DynTensor::gather_elements`]).
    #[inline]
    pub fn gather_elements(&self, indices: &AnyTensor, axis: i64) -> Result<AnyTensor, Error> {
        self.gather_by(indices, axis, true)
    }

    #[inline]
    fn gather_by(
        &self,
        indices: &AnyTensor,
        axis: i64,
        elements: bool,
    ) -> Result<AnyTensor, Error> {
        fn go<T: AnyElement, I: crate::rules::IndexElement>(
            t: &DynTensor<T>,
            i: &DynTensor<I>,
            axis: i64,
            elements: bool,
        ) -> Result<AnyTensor, Error> {
            if elements {
                t.gather_elements(i, axis)
            } else {
                t.gather(i, axis)
            }
            .map(T::wrap)
        }
        let op = AnyOp::Shape(if elements {
            ShapeOp::GatherElements
        } else {
            ShapeOp::Gather
        });
        macro_rules! with_indices {
            ($i:expr) => {
                each!(self, |t| go(t, $i, axis, elements))
            };
        }
        match indices {
            AnyTensor::I8(i) => with_indices!(i),
            AnyTensor::I16(i) => with_indices!(i),
            AnyTensor::I32(i) => with_indices!(i),
            AnyTensor::I64(i) => with_indices!(i),
            AnyTensor::ISize(i) => with_indices!(i),
            AnyTensor::U8(i) => with_indices!(i),
            AnyTensor::U16(i) => with_indices!(i),
            AnyTensor::U32(i) => with_indices!(i),
            AnyTensor::U64(i) => with_indices!(i),
            AnyTensor::USize(i) => with_indices!(i),
            _ => Err(indices.unsupported(op)),
        }
    }

    /// The tensor padded (M13, [`DynTensor::pad`]): `pads` holds every axis's begin, then
    /// every axis's end; `value` is the constant, a tensor of one element of the same type
    /// (ONNX's `constant_value`), or 0 (`false`) when `None`.
    ///
    /// ```
    /// use shaped::{rules::PadMode, AnyTensor, DynTensor};
    /// let x = AnyTensor::from(DynTensor::from_shape_vec([3], vec![1i8, 2, 3])?);
    /// let nine = AnyTensor::from(DynTensor::scalar(9i8));
    /// let p = x.pad(&[1, 2], PadMode::Constant, Some(&nine))?;
    /// assert_eq!(p.typed::<i8>()?.as_slice(), &[9, 1, 2, 3, 9, 9]);
    /// let e = x.pad(&[1, 2], PadMode::Constant, Some(&AnyTensor::from(DynTensor::scalar(9.0f32))));
    /// assert_eq!(
    ///     e.unwrap_err().to_string(),
    ///     "cannot compute pad of i8 [3] and f32 []: the element types differ"
    /// );
    /// # Ok::<(), shaped::Error>(())
    /// ```
    #[inline]
    pub fn pad(
        &self,
        pads: &[i64],
        mode: PadMode,
        value: Option<&AnyTensor>,
    ) -> Result<AnyTensor, Error> {
        self.padded(pads, None, mode, value)
    }

    /// [`pad`](Self::pad) of the axes of `axes` only (M13, [`DynTensor::pad_axes`]).
    #[inline]
    pub fn pad_axes(
        &self,
        pads: &[i64],
        axes: &[i64],
        mode: PadMode,
        value: Option<&AnyTensor>,
    ) -> Result<AnyTensor, Error> {
        self.padded(pads, Some(axes), mode, value)
    }

    #[inline]
    fn padded(
        &self,
        pads: &[i64],
        axes: Option<&[i64]>,
        mode: PadMode,
        value: Option<&AnyTensor>,
    ) -> Result<AnyTensor, Error> {
        fn go<T: AnyElement + Default>(
            t: &DynTensor<T>,
            pads: &[i64],
            axes: Option<&[i64]>,
            mode: PadMode,
            value: Option<&AnyTensor>,
        ) -> Result<AnyTensor, Error> {
            let value = match value {
                None => T::default(),
                Some(v) => {
                    let v = other::<T>(t, v, AnyOp::Shape(ShapeOp::Pad))?;
                    one(t, v, ShapeOp::Pad, 0)?
                }
            };
            match axes {
                None => t.pad(pads, mode, value),
                Some(axes) => t.pad_axes(pads, axes, mode, value),
            }
            .map(T::wrap)
        }
        each!(self, |t| go(t, pads, axes, mode, value))
    }

    /// The values from `start` up to `limit` by `delta` (M12, [`DynTensor::range`]), each
    /// given as a tensor of one element, all of one numeric type (ONNX's `Range` inputs).
    ///
    /// ```
    /// use shaped::{AnyTensor, DynTensor};
    /// let s = |v: i64| AnyTensor::from(DynTensor::scalar(v));
    /// let r = AnyTensor::range(&s(1), &s(10), &s(4))?;
    /// assert_eq!(r.typed::<i64>()?.as_slice(), &[1, 5, 9]);
    /// let two = AnyTensor::from(DynTensor::from_shape_vec([2], vec![1i64, 2])?);
    /// assert_eq!(
    ///     AnyTensor::range(&s(1), &two, &s(1)).unwrap_err().to_string(),
    ///     "cannot range: the limit has shape [2]; start, limit and delta hold one element each (M12)"
    /// );
    /// # Ok::<(), shaped::Error>(())
    /// ```
    #[inline]
    pub fn range(
        start: &AnyTensor,
        limit: &AnyTensor,
        delta: &AnyTensor,
    ) -> Result<AnyTensor, Error> {
        fn go<T: AnyElement + RangeElement>(
            first: &DynTensor<T>,
            limit: &AnyTensor,
            delta: &AnyTensor,
        ) -> Result<AnyTensor, Error> {
            let (op, any) = (ShapeOp::Range, AnyOp::Shape(ShapeOp::Range));
            let start = one(first, first, op, 0)?;
            let limit = one(first, other::<T>(first, limit, any)?, op, 1)?;
            let delta = one(first, other::<T>(first, delta, any)?, op, 2)?;
            DynTensor::range(start, limit, delta).map(T::wrap)
        }
        numeric!(
            start,
            Err(start.unsupported(AnyOp::Shape(ShapeOp::Range))),
            |t| go(t, limit, delta)
        )
    }

    /// Tensors of one element type joined along `axis` (M6, [`DynTensor::concat`]); a part of
    /// another type is an error naming both.
    #[inline]
    pub fn concat(parts: &[&AnyTensor], axis: i64) -> Result<AnyTensor, Error> {
        fn go<T: AnyElement>(
            first: &DynTensor<T>,
            parts: &[&AnyTensor],
            axis: i64,
        ) -> Result<AnyTensor, Error> {
            let typed = typed_parts(first, parts, ShapeOp::Concat)?;
            DynTensor::concat(&typed, axis).map(T::wrap)
        }
        match parts.first() {
            Some(first) => each!(first, |t| go(t, parts, axis)),
            None => DynTensor::<f32>::concat(&[], axis).map(AnyTensor::from),
        }
    }

    /// Tensors of one element type joined along a new axis (M7, [`DynTensor::stack`]).
    #[inline]
    pub fn stack(parts: &[&AnyTensor], axis: i64) -> Result<AnyTensor, Error> {
        fn go<T: AnyElement>(
            first: &DynTensor<T>,
            parts: &[&AnyTensor],
            axis: i64,
        ) -> Result<AnyTensor, Error> {
            let typed = typed_parts(first, parts, ShapeOp::Stack)?;
            DynTensor::stack(&typed, axis).map(T::wrap)
        }
        match parts.first() {
            Some(first) => each!(first, |t| go(t, parts, axis)),
            None => DynTensor::<f32>::stack(&[], axis).map(AnyTensor::from),
        }
    }

    /// The error of an operation `self`'s type lacks; if `rhs` has another type, that first.
    #[inline]
    fn first_unsupported(&self, rhs: &AnyTensor, op: AnyOp) -> Error {
        if rhs.dtype() != self.dtype() {
            self.differ(rhs, op)
        } else {
            self.unsupported(op)
        }
    }
}

/// `rhs`'s typed tensor when it holds `T`s like `a`; else the error naming both types.
fn other<'r, T: AnyElement>(
    a: &DynTensor<T>,
    rhs: &'r AnyTensor,
    op: AnyOp,
) -> Result<&'r DynTensor<T>, Error> {
    T::peek(rhs).ok_or_else(|| {
        let kind = ErrorKind::ElementTypes {
            op,
            lhs: T::DTYPE,
            rhs: rhs.dtype(),
        };
        Error::new(kind, Operation::Compute, a.shape(), rhs.shape())
    })
}

/// The one element of `value`: a range's start, limit or delta (at `position`), or a pad's
/// constant (of a pad of `a`). Else the error naming the shape.
fn one<T: Copy>(
    a: &DynTensor<T>,
    value: &DynTensor<T>,
    op: ShapeOp,
    position: usize,
) -> Result<T, Error> {
    match value.as_slice() {
        [v] => Ok(*v),
        _ => {
            let kind = ErrorKind::NotScalar { position };
            let operation = Operation::Shape { op };
            // A range names the input's shape; a pad names the data's, then the value's.
            Err(match op {
                ShapeOp::Pad => Error::new(kind, operation, a.shape(), value.shape()),
                _ => Error::new(kind, operation, value.shape(), &[]),
            })
        }
    }
}

/// Every part's typed tensor, all `T`s like `first`'s; else the error naming both types.
fn typed_parts<'p, T: AnyElement>(
    first: &DynTensor<T>,
    parts: &[&'p AnyTensor],
    op: ShapeOp,
) -> Result<Vec<&'p DynTensor<T>>, Error> {
    parts
        .iter()
        .map(|p| other::<T>(first, p, AnyOp::Shape(op)))
        .collect()
}
