//! Conversions between inline, heap, mixed and runtime tensors. Every one of them copies the
//! elements, so they are named `to_*` (`into_*` is kept for moves without a copy, such as
//! [`Tensor::into_inner`] and [`DynTensor::into_vec`](crate::DynTensor::into_vec)).

use super::Tensor;
use crate::typed::shape::StaticShape;
use crate::typed::storage::fits_inline;
use crate::typed::storage::{Data, Stack};
#[cfg(feature = "alloc")]
use {
    super::construct::{shape_for, shape_mismatch},
    super::HeapTensor,
    crate::error::{Error, OrPanic},
    crate::runtime::dyn_tensor::DynTensor,
    crate::typed::shape::Shape,
    crate::typed::storage::Owned,
};

/// # Conversion: to the stack
impl<T: Clone, S: StaticShape, D: Data<T>> Tensor<T, S, D> {
    /// Copies the elements into an inline (stack) tensor.
    #[inline]
    pub fn to_stack(&self) -> Tensor<T, S> {
        fits_inline!(Tensor<T, S>);
        let data = crate::typed::kernel::zip::<Stack, T, (), T, S, (), S, _>(
            self.as_slice(),
            &[()],
            crate::runtime::plan::Here(|x: &T, _: &()| x.clone()),
        );
        Tensor::from_parts(data, self.shape)
    }
}

/// # Conversion: to the heap and to runtime shapes
#[cfg(feature = "alloc")]
impl<T: Clone, S: Shape, D: Data<T>> Tensor<T, S, D> {
    /// Copies the elements into a heap tensor of the same shape type.
    #[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
    pub fn to_heap(&self) -> HeapTensor<T, S>
    where
        S: StaticShape,
    {
        Tensor::from_parts(self.as_slice().into(), self.shape)
    }

    /// Copies this tensor (static or mixed shape) into a [`DynTensor`] of the same shape and
    /// elements.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let d = Tensor::<u8, Shape![2, 3]>::splat(7).to_dyn();
    /// assert_eq!(d.shape(), &[2, 3]);
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
    ///
    /// **Panics** with the error's message when the allocator refuses the copy, as a mixed
    /// shape's results do.
    pub fn to_dyn(&self) -> DynTensor<T> {
        let dims = self.shape();
        let data = copied(dims.as_ref(), self.as_slice()).or_panic();
        DynTensor::from_parts(dims.as_ref(), data)
    }

    /// Copies this tensor into a tensor of shape type `S2` with the same dims: from a mixed
    /// shape to a static one (`Shape![_, 3]` to `Shape![2, 3]`) or back.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let m = Tensor::<i32, Shape![_, 2]>::from_shape_vec([2, 2], vec![1, 2, 3, 4]).unwrap();
    /// let s: Tensor<i32, Shape![2, 2]> = m.try_to_shape().unwrap();
    /// let back: Tensor<i32, Shape![_, _]> = s.try_to_shape().unwrap();
    /// assert_eq!(back.shape(), [2, 2]);
    /// let e = m.try_to_shape::<Shape![4, 1]>().unwrap_err();
    /// assert_eq!(e.to_string(), "shape [2, 2] is not the static shape [4, 1]");
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
    pub fn try_to_shape<S2: Shape>(&self) -> Result<Tensor<T, S2>, Error> {
        fits_inline!(Tensor<T, S2>);
        to_shape::<T, S2>(self.shape().as_ref(), self.as_slice())
    }
}

/// `data` (row-major, of `dims`) copied into a new `Vec`, its allocation checked
/// ([`ErrorKind::OutOfMemory`](crate::ErrorKind::OutOfMemory)).
#[cfg(feature = "alloc")]
fn copied<T: Clone>(dims: &[usize], data: &[T]) -> Result<alloc::vec::Vec<T>, Error> {
    let mut out = crate::runtime::try_vec(data.len(), dims)?;
    out.extend_from_slice(data);
    Ok(out)
}

/// The elements of `data` (row-major, of `dims`) copied into a tensor of shape type `S`.
#[cfg(feature = "alloc")]
fn to_shape<T: Clone, S: Shape>(dims: &[usize], data: &[T]) -> Result<Tensor<T, S>, Error> {
    let shape = shape_for::<S>(dims)?;
    let buffer = shape
        .buffer_from_vec(copied(dims, data)?)
        .ok_or_else(|| shape_mismatch::<S>(dims))?;
    Ok(Tensor::from_parts(Owned::new(buffer), shape))
}

#[cfg(feature = "alloc")]
impl<T: Clone> DynTensor<T> {
    /// Copies the elements into a tensor of shape type `S` (static or mixed) if the dims fit.
    ///
    /// ```
    /// use shaped::{DynTensor, Shape, Tensor};
    /// let d = DynTensor::from_shape_vec([5, 3], vec![0.0f32; 15]).unwrap();
    /// let m: Tensor<f32, Shape![_, 3]> = d.try_to_shape().unwrap();
    /// assert_eq!(m.shape(), [5, 3]);
    /// let s: Tensor<f32, Shape![5, 3]> = d.try_to_shape().unwrap();
    /// assert_eq!(s[[4, 2]], 0.0);
    /// let e = d.try_to_shape::<Shape![_, 4]>().unwrap_err();
    /// assert_eq!(e.to_string(), "shape [5, 3] does not fit the shape type [_, 4]");
    /// ```
    #[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
    pub fn try_to_shape<S: Shape>(&self) -> Result<Tensor<T, S>, Error> {
        fits_inline!(Tensor<T, S>);
        to_shape::<T, S>(self.shape(), self.as_slice())
    }
}
