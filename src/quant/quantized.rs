//! [`Quantized`]: a tensor of `i8` or `u8` with its parameters.

use super::params::Quant;

/// Values of any tensor type `X` (a static or mixed `Tensor`, a view, a `DynTensor`) with
/// the quantization parameters that give them meaning (Q1). The operations live with each
/// tensor type; the parameters travel with the result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Quantized<X, E> {
    values: X,
    quant: Quant<E>,
}

impl<X, E> Quantized<X, E> {
    /// `values` quantized by `quant`.
    #[inline]
    pub const fn new(values: X, quant: Quant<E>) -> Self {
        Quantized { values, quant }
    }

    /// The stored integers.
    #[inline]
    pub const fn values(&self) -> &X {
        &self.values
    }

    /// The stored integers, to change in place.
    #[inline]
    pub fn values_mut(&mut self) -> &mut X {
        &mut self.values
    }

    /// The parameters.
    #[inline]
    pub const fn quant(&self) -> Quant<E> {
        self.quant
    }

    /// The values and the parameters.
    #[inline]
    pub fn into_parts(self) -> (X, Quant<E>) {
        (self.values, self.quant)
    }
}
