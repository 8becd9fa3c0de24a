//! Dense layers at compile time (G7, Q19): an input `[..., IN]` becomes an output `[..., OUT]`,
//! the leading dims (static or runtime) kept as they are.

use crate::typed::dim::{Const, Dim};
use crate::typed::shape::Shape;

/// A shape whose last dim is the static `IN`: the input of a dense layer with `IN` inputs
/// (G7, Q19). [`Output<OUT>`](Self::Output) is the same shape with `OUT` as its last dim.
///
/// ```
/// use shaped::{typed::rules::DenseShape, Shape};
/// fn output<S: DenseShape<8>>() -> usize {
///     <S::Output<16> as Shape>::RANK
/// }
/// assert_eq!(output::<Shape![2, 8]>(), 2);
/// assert_eq!(output::<Shape![_, 3, 8]>(), 3);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not the input of a dense layer with {IN} inputs (G7)",
    label = "the last dim must be `Const<{IN}>`",
    note = "a dense layer maps `[..., IN]` to `[..., OUT]`; rank 0 has no last dim"
)]
pub trait DenseShape<const IN: usize>: Shape {
    /// The layer's output: the last dim replaced by `OUT`.
    type Output<const OUT: usize>: Shape;
}

/// `DenseShape` for each rank from 1 to 8: any leading dims, the last one `Const<IN>`.
macro_rules! dense_shape {
    ($($d:ident)*) => {
        impl<$($d: Dim,)* const IN: usize> DenseShape<IN> for ($($d,)* Const<IN>,) {
            type Output<const OUT: usize> = ($($d,)* Const<OUT>,);
        }
    };
}

dense_shape!();
dense_shape!(D0);
dense_shape!(D0 D1);
dense_shape!(D0 D1 D2);
dense_shape!(D0 D1 D2 D3);
dense_shape!(D0 D1 D2 D3 D4);
dense_shape!(D0 D1 D2 D3 D4 D5);
dense_shape!(D0 D1 D2 D3 D4 D5 D6);
