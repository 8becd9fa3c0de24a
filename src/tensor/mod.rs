//! The [`Tensor`] type: a shape that is a type, over inline, borrowed or heap storage.
//!
//! One file per concern: `construct.rs` (making tensors), `access.rs` (reading and writing
//! elements), `ops.rs` (operators and elementwise methods, static and mixed shapes alike),
//! `math.rs` (unary math), `reduce.rs` (reductions over an axis, `sum_to`), `matmul.rs`
//! (matrix products), `manipulate.rs` (reshapes and views), `pad.rs` (padding one axis),
//! `result.rs` (where computed results are stored), `try_ops.rs` (the `try_*` methods that
//! return a `Result`), `convert.rs` (between static, mixed, heap and runtime tensors),
//! `cast.rs` (between element types), `fmt.rs` (`Display`, `Debug`).

use core::hash::{Hash, Hasher};
use core::marker::PhantomData;

#[cfg(feature = "alloc")]
use alloc::boxed::Box;

use crate::typed::shape::Shape;
use crate::typed::storage::{fits_inline, Data, Family, Owned};

// In the order the `Tensor` page lists their methods (rustdoc follows the declarations; the
// blank lines keep rustfmt from sorting them): making a tensor, reading it, computing with it,
// reshaping it, converting it, and the fallible forms last.
mod construct;

mod access;

pub(crate) mod ops;
// Declared next to `ops` so that the rendered page lists the fallible forms and the selection
// right after the elementwise operations they extend.
mod try_ops;

mod select;

mod conv;

mod math;

mod reduce;

mod normalize;

mod matmul;

mod manipulate;

mod pad;

mod convert;

mod cast;

mod quantized;
pub use quantized::QuantizedAlong;
mod quantized_nn;
pub use quantized_nn::{MeanHw, MeanHwKeep, QuantizedI8};

mod fmt;
mod result;

pub use conv::{ConvBias, Pooled, QuantizedConv, QuantizedPooled};
pub(crate) use matmul::SMALL_PRODUCT;
pub use matmul::{JoinOf, Joined, StorableProduct};
pub use ops::{
    AssignPath, BroadcastWith, Check, KindBroadcast, KindUpdate, Operand, OperatorPath, PathOutput,
    SameElement, StaticOperand, UpdateWith,
};
pub use result::{ResultStorage, Storable, Stored};
pub use select::{Chosen, SelectOutput, SelectShapes, Selected, Where, WhereOutput, WhereShapes};

#[cfg(any(all(feature = "nalgebra", feature = "alloc"), feature = "ndarray"))]
pub(crate) use construct::shape_for;
#[cfg(feature = "serde")]
pub(crate) use construct::shape_mismatch;

/// A tensor of `T` whose shape `S` is a type, stored in `D`.
///
/// The storage defaults to [`Owned`], the elements inline in a nested array with no heap use.
/// [`TensorView`], [`TensorViewMut`] and (feature `alloc`) `HeapTensor` are the same type over
/// other storage, and take part in the same operations.
///
/// ```
/// use shaped::{Shape, Tensor};
/// let a = Tensor::<f32, Shape![2, 1, 5]>::from_fn(|[i, _, k]| (i * 5 + k) as f32);
/// let b = Tensor::<f32, Shape![4, 1]>::splat(1.0);
/// let c: Tensor<f32, Shape![2, 4, 5]> = &a + &b;
/// assert_eq!(c[[1, 3, 4]], 10.0);
/// ```
///
/// # Operations
///
/// * NUMPY broadcasting (P1-P6) for `+ - * / %`, `& | ^` and the methods
///   [`maximum`](Tensor::maximum), [`minimum`](Tensor::minimum), `pow` (with `std` or `libm`),
///   [`squared_difference`](Tensor::squared_difference), [`floor_mod`](Tensor::floor_mod),
///   [`eq`](Tensor::eq), [`ne`](Tensor::ne), [`lt`](Tensor::lt), [`le`](Tensor::le),
///   [`gt`](Tensor::gt), [`ge`](Tensor::ge), [`and`](Tensor::and), [`or`](Tensor::or),
///   [`xor`](Tensor::xor). The right operand is a tensor, a reference to one, or a scalar; a
///   scalar also works on the left (`2.0 - &a`).
/// * `+= -= *= /= %=`: the right side broadcasts onto the left, which never grows (B5).
/// * `-a` and [`map`](Tensor::map); [`zip_map`](Tensor::zip_map) (NONE, identical shapes);
///   [`broadcast_to`](Tensor::broadcast_to) (B5, exactly the target) and
///   [`broadcast_bidirectional`](Tensor::broadcast_bidirectional) (B1-B4).
/// * The `try_*` forms (feature `alloc`) return [`Error`](crate::Error) values.
///
/// Two static shapes are checked at compile time and cannot fail at run time. Integers follow
/// one contract on every path ([`Element`](crate::Element)): `+ - *` and negation wrap, and an
/// integer zero divisor makes `/` and `%` panic with the
/// [`DivisionByZero`](crate::ErrorKind::DivisionByZero) error's message.
///
/// # Mixed shapes (static and runtime dims in one shape)
///
/// A shape may mix static and [`Dyn`](crate::Dyn) dims: `Shape![_, 3, 4]`. Static dims are
/// checked at compile time, as for fully static shapes (a mismatch between two static dims does
/// not compile); the dims that involve a `Dyn` are checked at run time by the same runtime
/// rules as `DynTensor`. Output types keep every static dim the rules
/// allow: `Const<N>` (N != 1) against `Dyn` gives `Const<N>` (the runtime dim must be 1 or N),
/// `Const<1>` or `Dyn` against `Dyn` gives `Dyn`. The operators and methods panic with the
/// error's message on a runtime mismatch; the `try_*` methods return it.
///
/// Owned tensors with a `Dyn` dim keep their elements in a `Vec` (feature `alloc`); without
/// `alloc` they exist as views ([`TensorView::with_shape`]).
///
/// ```
/// # #[cfg(feature = "alloc")] {
/// use shaped::{Shape, Tensor};
/// let batch = 2;
/// let x: Tensor<f32, Shape![_, 3, 4]> = Tensor::from_shape_vec([batch, 3, 4], vec![1.0; 24])?;
/// let bias = Tensor::<f32, Shape![1, 4]>::zeros();
/// let y: Tensor<f32, Shape![_, 3, 4]> = x.try_add(&bias)?;
/// assert_eq!(y.shape(), [2, 3, 4]);
/// let z = &y * 2.0;                         // operators work too, panicking on a mismatch
/// assert_eq!(z[[1, 2, 3]], 2.0);
/// # }
/// # Ok::<(), shaped::Error>(())
/// ```
pub struct Tensor<T, S: Shape, D = Owned<T, S>> {
    data: D,
    shape: S,
    marker: PhantomData<T>,
}

/// A borrowed, read-only tensor over a `&[T]` of exactly the shape's element count.
pub type TensorView<'a, T, S> = Tensor<T, S, &'a [T]>;

/// A borrowed, writable tensor over a `&mut [T]` of exactly the shape's element count.
pub type TensorViewMut<'a, T, S> = Tensor<T, S, &'a mut [T]>;

/// A static-shape tensor whose elements are on the heap: for shapes too large for the stack.
#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
pub type HeapTensor<T, S> = Tensor<T, S, Box<[T]>>;

/// A tensor of `T` with shape `S`, owned in the storage family `F` (stack or heap): the type of
/// an operation's result.
pub type OwnedIn<F, T, S> = Tensor<T, S, <F as Family>::Owned<T, S>>;

impl<T, S: Shape, D> Tensor<T, S, D> {
    /// The one constructor every other one goes through: `data` holds the element count of
    /// `shape` (each caller has checked it, or the types guarantee it).
    #[inline(always)]
    pub(crate) fn from_parts(data: D, shape: S) -> Self {
        // Every inline tensor is checked against `MAX_INLINE_BYTES` here at the latest, with
        // the constant the public functions evaluate for their results first.
        fits_inline!(Self);
        Tensor {
            data,
            shape,
            marker: PhantomData,
        }
    }
}

impl<T: Clone, S: Shape, D: Clone> Clone for Tensor<T, S, D> {
    fn clone(&self) -> Self {
        Tensor::from_parts(self.data.clone(), self.shape)
    }
}

impl<T: Copy, S: Shape, D: Copy> Copy for Tensor<T, S, D> {}

/// Tensors of the same shape type compare their dims, then element by element, whatever
/// their storage.
impl<T, U, S: Shape, D: Data<T>, E: Data<U>> PartialEq<Tensor<U, S, E>> for Tensor<T, S, D>
where
    T: PartialEq<U>,
{
    fn eq(&self, other: &Tensor<U, S, E>) -> bool {
        self.shape.dims() == other.shape.dims() && self.as_slice() == other.as_slice()
    }
}

impl<T: Eq, S: Shape, D: Data<T>> Eq for Tensor<T, S, D> {}

/// Hashes the dims and the elements, consistently with `PartialEq`.
impl<T: Hash, S: Shape, D: Data<T>> Hash for Tensor<T, S, D> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.shape.dims().as_ref().hash(state);
        self.as_slice().hash(state);
    }
}
