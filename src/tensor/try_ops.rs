//! The `try_*` methods: every elementwise operation as a `Result`, for static and mixed shapes
//! (feature `alloc`: the result is a new tensor whose `Dyn` dims live in a `Vec`).
//!
//! Static dims are checked at compile time; the dims that involve a [`Dyn`](crate::Dyn) are
//! checked here, by the runtime rules, and a mismatch is an [`Error`] value. Integer division or
//! remainder by zero is an [`ErrorKind::DivisionByZero`] value (the operators panic with it).

#[cfg(feature = "alloc")]
use {
    super::Tensor,
    crate::element::{Boolean, Element},
    crate::error::{Error, ErrorKind, Operation},
    crate::op::BinaryOp,
    crate::rules::{self, AutoBroadcast, BroadcastToMode},
    crate::runtime::{element_count, filled_vec, kernels, plan, ArrayRef},
    crate::typed::rules::{
        Bidirectional, BidirectionalOutput, BroadcastShape, BroadcastToShape, NoneShape, Numpy,
        NumpyOutput,
    },
    crate::typed::shape::Shape,
    crate::typed::storage::{fits_inline, Data, Owned},
    alloc::vec::Vec,
    core::mem::MaybeUninit,
};

/// The runtime half of the `try_*` operations and of operators on mixed shapes: the output dims
/// under `mode` (from the runtime rules) and the elements computed in place by the runtime
/// kernel, whose inner loop gets the trailing dims that are static in both shapes as a
/// constant. The right operand comes as elements and dims, so scalars fit too. `check` (zero
/// divisors) runs after the shapes, before any element is written. `finish` gets the output's
/// dims and elements and decides where the result lives.
#[cfg(feature = "alloc")]
#[allow(clippy::too_many_arguments)]
pub(crate) fn zip_runtime_with<T, U, V, S: Shape, S2: Shape, R>(
    lhs: &[T],
    lhs_dims: &[usize],
    rhs: &[U],
    rhs_dims: &[usize],
    mode: AutoBroadcast,
    check: impl FnOnce(&ArrayRef<'_, T>, &ArrayRef<'_, U>) -> Result<(), Error>,
    f: impl kernels::Apply<T, U, V>,
    finish: impl FnOnce(&[usize], Vec<V>) -> R,
) -> Result<R, Error> {
    let (a, b) = (ArrayRef::new(lhs_dims, lhs)?, ArrayRef::new(rhs_dims, rhs)?);
    // Trailing dims static in both shapes become a constant inner trip count: 7.3 us vs
    // 14.4 us without, on [_, 64] + [1, 64] with batch 1024 (benches/mixed_kernels.rs).
    let hint = plan::static_inner_run(S::STATIC_DIMS, S2::STATIC_DIMS);
    kernels::zip_new(a, b, mode, hint, || check(&a, &b), f, finish)
}

/// No value check: shapes only.
#[cfg(feature = "alloc")]
fn no_check<T, U>(_: &ArrayRef<'_, T>, _: &ArrayRef<'_, U>) -> Result<(), Error> {
    Ok(())
}

/// Wraps a computed output in the output type, whose static dims the runtime rules have just
/// agreed to (a disagreement would be an error, never a panic).
#[cfg(feature = "alloc")]
pub(crate) fn finish<V, O: Shape>(dims: &[usize], out: Vec<V>) -> Result<Tensor<V, O>, Error> {
    let internal = || Error::new(ErrorKind::ShapeMismatch, Operation::ToStatic, dims, &[]);
    let shape = O::from_dims(dims).ok_or_else(internal)?;
    let buffer = shape.buffer_from_vec(out).ok_or_else(internal)?;
    Ok(Tensor::from_parts(Owned::new(buffer), shape))
}

// The `try_*` forms of the operators, comparisons and logical operations, inside the impl
// block below: one signature (`@method`), a body per group.
#[cfg(feature = "alloc")]
macro_rules! try_ops {
    (@method $name:ident $v:ty, [$($bound:tt)*], $doc:literal, |$lhs:ident, $rhs:ident| $body:expr) => {
        #[doc = $doc]
        pub fn $name<S2, E>(&self, rhs: &Tensor<T, S2, E>) -> Result<Tensor<$v, NumpyOutput<S, S2>>, Error>
        where
            S2: Shape,
            E: Data<T>,
            S: BroadcastShape<S2, Numpy>,
            T: $($bound)*,
        {
            fits_inline!(Tensor<$v, NumpyOutput<S, S2>>);
            let ($lhs, $rhs) = (self, rhs);
            $body
        }
    };
    (
        binary { $($name:ident $op:ident $doc:literal;)* }
        compare { $($cname:ident $cop:ident $cdoc:literal;)* }
        logical { $($lname:ident $lop:tt $ldoc:literal;)* }
    ) => {
        $(try_ops!(@method $name T, [Element], $doc, |a, b| {
            a.try_binary(b, BinaryOp::$op, crate::op::binary_fn!($op, T))
        });)*
        $(try_ops!(@method $cname bool, [PartialOrd + Sync], $cdoc, |a, b| {
            a.try_compare(b, crate::op::compare_fn!($cop))
        });)*
        $(try_ops!(@method $lname T, [Boolean + Send + Sync], $ldoc, |a, b| {
            a.try_zip_as::<T, S2, E, T, NumpyOutput<S, S2>>(
                b,
                AutoBroadcast::Numpy,
                no_check,
                kernels::Split(|x: &T, y: &T| *x $lop *y),
            )
        });)*
    };
}

/// # Fallible operations (`try_*`)
///
/// Every elementwise operation as a `Result` (feature `alloc`): static dims checked at compile
/// time, `Dyn` ones here, a mismatch an [`Error`] value.
#[cfg(feature = "alloc")]
impl<T, S: Shape, D: Data<T>> Tensor<T, S, D> {
    /// NUMPY-broadcasts `self` with `rhs` and combines elements with `f`. Static dims were
    /// checked at compile time; the dims that involve a [`Dyn`](crate::Dyn) are checked here.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<i32, Shape![_, 2]>::from_shape_vec([3, 2], vec![1, 2, 3, 4, 5, 6]).unwrap();
    /// let n = Tensor::<i32, Shape![_, 1]>::from_shape_vec([3, 1], vec![10, 20, 30]).unwrap();
    /// let y = x.try_broadcast_with(&n, |a, b| a * b).unwrap();
    /// assert_eq!(y.as_slice(), &[10, 20, 60, 80, 150, 180]);
    /// let bad = Tensor::<i32, Shape![_, 1]>::from_shape_vec([2, 1], vec![1, 2]).unwrap();
    /// assert_eq!(
    ///     x.try_broadcast_with(&bad, |a, b| a * b).unwrap_err().to_string(),
    ///     "cannot broadcast [3, 2] with [2, 1] (numpy): axis 0 has 3 vs 2"
    /// );
    /// ```
    ///
    /// If `f` panics part-way, the elements already made are leaked (the result is written in
    /// place).
    #[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
    pub fn try_broadcast_with<U, S2: Shape, E: Data<U>, V>(
        &self,
        rhs: &Tensor<U, S2, E>,
        mut f: impl FnMut(&T, &U) -> V,
    ) -> Result<Tensor<V, NumpyOutput<S, S2>>, Error>
    where
        S: BroadcastShape<S2, Numpy>,
    {
        fits_inline!(Tensor<V, NumpyOutput<S, S2>>);
        self.try_zip_as::<U, S2, E, V, NumpyOutput<S, S2>>(
            rhs,
            AutoBroadcast::Numpy,
            no_check,
            kernels::Here(&mut f),
        )
    }

    /// The runtime half of [`try_broadcast_with`](Self::try_broadcast_with) and
    /// [`try_zip_map`](Self::try_zip_map): `f` over `self` and `rhs` under `mode`, as a tensor
    /// of the output shape type `O` (which the type rules derived for `mode`).
    fn try_zip_as<U, S2, E, V, O>(
        &self,
        rhs: &Tensor<U, S2, E>,
        mode: AutoBroadcast,
        check: impl FnOnce(&ArrayRef<'_, T>, &ArrayRef<'_, U>) -> Result<(), Error>,
        f: impl kernels::Apply<T, U, V>,
    ) -> Result<Tensor<V, O>, Error>
    where
        S2: Shape,
        E: Data<U>,
        O: Shape,
    {
        zip_runtime_with::<T, U, V, S, S2, _>(
            self.as_slice(),
            self.shape().as_ref(),
            rhs.as_slice(),
            rhs.shape().as_ref(),
            mode,
            check,
            f,
            finish::<V, O>,
        )?
    }

    /// An arithmetic [`BinaryOp`] with its value checks, NUMPY-broadcast.
    fn try_binary<S2, E>(
        &self,
        rhs: &Tensor<T, S2, E>,
        op: BinaryOp,
        f: impl Fn(&T, &T) -> T + Sync + Send,
    ) -> Result<Tensor<T, NumpyOutput<S, S2>>, Error>
    where
        S2: Shape,
        E: Data<T>,
        S: BroadcastShape<S2, Numpy>,
        T: Element,
    {
        let check = |a: &ArrayRef<'_, T>, b: &ArrayRef<'_, T>| kernels::check_values(a, b, op);
        self.try_zip_as::<T, S2, E, T, NumpyOutput<S, S2>>(
            rhs,
            AutoBroadcast::Numpy,
            check,
            kernels::Split(f),
        )
    }

    /// A comparison, NUMPY-broadcast.
    fn try_compare<S2, E>(
        &self,
        rhs: &Tensor<T, S2, E>,
        f: impl Fn(&T, &T) -> bool + Sync + Send,
    ) -> Result<Tensor<bool, NumpyOutput<S, S2>>, Error>
    where
        S2: Shape,
        E: Data<T>,
        S: BroadcastShape<S2, Numpy>,
        T: PartialOrd + Sync,
    {
        self.try_zip_as::<T, S2, E, bool, NumpyOutput<S, S2>>(
            rhs,
            AutoBroadcast::Numpy,
            no_check,
            kernels::Split(f),
        )
    }

    /// NONE (N1-N3) for shapes with [`Dyn`](crate::Dyn) dims: equal ranks and static dims are
    /// checked at compile time, the `Dyn` dims here.
    ///
    /// If `f` panics part-way, the elements already made are leaked (the result is written in
    /// place).
    #[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
    pub fn try_zip_map<U, S2, E, V>(
        &self,
        rhs: &Tensor<U, S2, E>,
        mut f: impl FnMut(&T, &U) -> V,
    ) -> Result<Tensor<V, <S as NoneShape<S2>>::Output>, Error>
    where
        S2: Shape,
        E: Data<U>,
        S: NoneShape<S2>,
    {
        fits_inline!(Tensor<V, <S as NoneShape<S2>>::Output>);
        self.try_zip_as::<U, S2, E, V, <S as NoneShape<S2>>::Output>(
            rhs,
            AutoBroadcast::None,
            no_check,
            kernels::Here(&mut f),
        )
    }

    try_ops! {
        binary {
        try_add Add "`self + rhs` (integers wrap).";
        try_sub Sub "`self - rhs` (integers wrap).";
        try_mul Mul "`self * rhs` (integers wrap).";
        try_div Div "`self / rhs`; an integer zero divisor is [`ErrorKind::DivisionByZero`].";
        try_rem Rem "`self % rhs`; an integer zero divisor is [`ErrorKind::DivisionByZero`].";
        try_floor_mod FloorMod "Python's `self % rhs`; an integer zero divisor is [`ErrorKind::DivisionByZero`].";
        try_maximum Maximum "Elementwise maximum (NaN-propagating).";
        try_minimum Minimum "Elementwise minimum (NaN-propagating).";
        try_pow Pow "`self` to the power `rhs`; a negative integer exponent is [`ErrorKind::NegativeExponent`], and float powers need `std` or `libm` ([`ErrorKind::Unsupported`] otherwise).";
        try_squared_difference SquaredDifference "`(self - rhs)²` (integers wrap).";
        }
        compare {
        try_eq Eq "Elementwise `self == rhs`.";
        try_ne Ne "Elementwise `self != rhs`.";
        try_lt Lt "Elementwise `self < rhs`.";
        try_le Le "Elementwise `self <= rhs`.";
        try_gt Gt "Elementwise `self > rhs`.";
        try_ge Ge "Elementwise `self >= rhs`.";
        }
        logical {
        try_and & "Elementwise logical and.";
        try_or | "Elementwise logical or.";
        try_xor ^ "Elementwise logical exclusive or.";
        }
    }
}

/// # Broadcasting to a shape, checked at run time
///
/// The target a shape type with its runtime dims: what `broadcast_to` and
/// `broadcast_bidirectional` do for shapes with `Dyn` dims, a mismatch returned as an error.
#[cfg(feature = "alloc")]
impl<T: Clone + Send + Sync, S: Shape, D: Data<T>> Tensor<T, S, D> {
    /// numpy's `broadcast_to` (B5, one-directional) to a target shape type `To` with the
    /// runtime dims `target` (which must match `To`'s static dims): the result has exactly
    /// the target's shape.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<i32, Shape![_, 1]>::from_shape_vec([2, 1], vec![1, 2]).unwrap();
    /// let y = x.try_broadcast_to::<Shape![_, 3]>([2, 3]).unwrap();
    /// assert_eq!(y.as_slice(), &[1, 1, 1, 2, 2, 2]);
    /// let e = x.try_broadcast_to::<Shape![_, 3]>([4, 3]).unwrap_err();
    /// assert_eq!(e.to_string(), "cannot broadcast [2, 1] with [4, 3] (broadcast_to numpy): axis 0 has 2 vs 4");
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
    pub fn try_broadcast_to<To>(&self, target: impl AsRef<[usize]>) -> Result<Tensor<T, To>, Error>
    where
        To: Shape,
        S: BroadcastToShape<To>,
    {
        fits_inline!(Tensor<T, To>);
        super::construct::shape_for::<To>(target.as_ref())?;
        self.try_broadcast_mode::<To>(target.as_ref(), BroadcastToMode::Numpy)
    }

    /// Bidirectional broadcasting (B1-B4) to a target shape type `To` with runtime dims
    /// `target`: the NUMPY broadcast of both shapes.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<i32, Shape![_, 1]>::from_shape_vec([2, 1], vec![1, 2]).unwrap();
    /// let y = x.try_broadcast_bidirectional::<Shape![_]>([3]).unwrap();
    /// assert_eq!(y.shape(), [2, 3]);
    /// assert_eq!(y.as_slice(), &[1, 1, 1, 2, 2, 2]);
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
    pub fn try_broadcast_bidirectional<To: Shape>(
        &self,
        target: impl AsRef<[usize]>,
    ) -> Result<Tensor<T, BidirectionalOutput<S, To>>, Error>
    where
        S: BroadcastShape<To, Bidirectional>,
    {
        fits_inline!(Tensor<T, BidirectionalOutput<S, To>>);
        super::construct::shape_for::<To>(target.as_ref())?;
        self.try_broadcast_mode::<BidirectionalOutput<S, To>>(
            target.as_ref(),
            BroadcastToMode::Bidirectional,
        )
    }

    fn try_broadcast_mode<O: Shape>(
        &self,
        target: &[usize],
        mode: BroadcastToMode<'_>,
    ) -> Result<Tensor<T, O>, Error> {
        let da = self.shape();
        let out_dims = rules::broadcast_to_shape(da.as_ref(), target, mode)?;
        let count = element_count::<T>(&out_dims)?;
        let data = ArrayRef::new(da.as_ref(), self.as_slice())?;
        // SAFETY: `broadcast_apply` writes every element of its output when it returns Ok.
        let out = unsafe {
            filled_vec(count, &out_dims, |spare| {
                let clone = kernels::Split(|x: &T, _: &T| MaybeUninit::new(x.clone()));
                kernels::broadcast_apply(data, target, mode, spare, clone)
            })?
        };
        finish::<T, O>(&out_dims, out)
    }
}
