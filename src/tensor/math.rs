//! Unary math on static and mixed tensors: `abs`, `relu`, `clip`, and with `std` or `libm`
//! `sqrt`, `exp`, `ln`, `tanh`, `sigmoid`, `erf`, `gelu` (exact) and `gelu_tanh`. Each is the same formula as the binary
//! primitive's eltwise post-op of that name (`element::unary_functions!`). `-t` is the `Neg`
//! operator. A static result is stored like `self`; these cannot fail. With feature `rayon`,
//! a large heap-backed or mixed result is computed on several threads.

use super::result::{Storable, Stored};
use super::Tensor;
use crate::element::Element;
use crate::typed::shape::Shape;
use crate::typed::storage::fits_inline;
use crate::typed::storage::Data;

macro_rules! tensor_unary {
    ($([$($cfg:tt)*] [$bound:ident] $name:ident $doc:literal |$x:ident| $body:expr;)*) => {
        /// # Unary math
        ///
        /// Elementwise, on tensors of any shape and storage: `abs`, `relu`, `sign` and `clip`
        /// for integers and floats, the others for floats. A generic caller writes
        /// `S: Storable` ([`bounds`](crate::bounds)).
        ///
        /// ```
        /// # #[cfg(any(feature = "std", feature = "libm"))] {
        /// use shaped::{Shape, Tensor};
        /// let x = Tensor::<f32, Shape![2, 2]>::from([[-1.0, 0.0], [1.0, 2.0]]);
        /// assert_eq!(x.relu().as_slice(), &[0.0, 0.0, 1.0, 2.0]);
        /// assert_eq!(x.abs().as_slice(), &[1.0, 0.0, 1.0, 2.0]);
        /// assert_eq!(x.exp().ln()[[0, 1]], 0.0);
        /// assert_eq!(x.clip(-0.5, 1.5).as_slice(), &[-0.5, 0.0, 1.0, 1.5]);
        /// # }
        /// ```
        impl<T: Element, S: Shape, D: Data<T>> Tensor<T, S, D> {
            $(
                #[cfg($($cfg)*)]
                #[doc = $doc]
                #[inline(always)]
                pub fn $name(&self) -> Stored<D::Family, T, S>
                where
                    S: Storable,
                    T: crate::element::$bound,
                {
                    fits_inline!(Stored<D::Family, T, S>);
                    self.map_shared(|&$x| $body)
                }
            )*

            /// `x` clamped to `[lo, hi]`, numpy's `clip` (`minimum(maximum(x, lo), hi)`): NaN
            /// in `x` or in a bound gives NaN; `lo > hi` gives `hi`. Integers too.
            #[inline(always)]
            pub fn clip(&self, lo: T, hi: T) -> Stored<D::Family, T, S>
            where
                S: Storable,
            {
                fits_inline!(Stored<D::Family, T, S>);
                self.map_shared(move |&x| crate::element::clip_numpy(x, lo, hi))
            }
        }
    };
}

crate::element::unary_functions!(tensor_unary);
