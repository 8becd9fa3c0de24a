//! `DynTensor`: a tensor whose shape is known only at run time (feature `alloc`).
//!
//! Every operation returns a `Result`; shapes follow the runtime rules of [`crate::rules`] and
//! the work is done by the kernels of [`crate::strided`].

use alloc::vec::Vec;
use core::fmt;

use crate::elementwise::{BinaryOp, CompareOp, Element, LogicalOp};
use crate::error::{BroadcastError, ErrorKind, Operation};
use crate::rules::{self, AutoBroadcast, BroadcastMode};
use crate::shape::{Shape, StaticShape};
use crate::storage::Data;
use crate::strided::{self, ArrayRef};
use crate::tensor::Tensor;

/// A row-major tensor with a runtime shape (rank up to [`MAX_RANK`](crate::rules::MAX_RANK)).
///
/// ```
/// use shaped::{AutoBroadcast, BinaryOp, CompareOp, DynTensor};
/// let a = DynTensor::from_shape_vec(&[2, 1, 5], (0..10).map(|x| x as f32).collect())?;
/// let b = DynTensor::from_shape_vec(&[4, 1], vec![1.0; 4])?;
/// let c = a.binary(&b, BinaryOp::Add, AutoBroadcast::Numpy)?;
/// assert_eq!(c.shape(), &[2, 4, 5]);
/// let m = a.compare(&b, CompareOp::Less, AutoBroadcast::Numpy)?;
/// assert_eq!(m.as_slice()[..3], [true, false, false]);
/// # Ok::<(), shaped::BroadcastError>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct DynTensor<T> {
    shape: Vec<usize>,
    data: Vec<T>,
}

impl<T> DynTensor<T> {
    /// Takes `data` as a row-major tensor of `shape`; its length must be the element count.
    pub fn from_shape_vec(shape: &[usize], data: Vec<T>) -> Result<Self, BroadcastError> {
        ArrayRef::new(&data, shape)?;
        Ok(DynTensor {
            shape: shape.to_vec(),
            data,
        })
    }

    /// A rank-0 tensor.
    pub fn scalar(value: T) -> Self {
        DynTensor {
            shape: Vec::new(),
            data: alloc::vec![value],
        }
    }

    /// The dims.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The number of dims.
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// True when some dim is 0.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The elements in row-major order.
    pub fn as_slice(&self) -> &[T] {
        &self.data
    }

    /// The elements in row-major order, mutably.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.data
    }

    /// The shape and the elements, borrowed together.
    pub(crate) fn parts_mut(&mut self) -> (&[usize], &mut [T]) {
        (&self.shape, &mut self.data)
    }

    /// The elements.
    pub fn into_vec(self) -> Vec<T> {
        self.data
    }

    /// The element at `index`, or `None` if the rank or a coordinate is wrong.
    pub fn get(&self, index: &[usize]) -> Option<&T> {
        if index.len() != self.shape.len() {
            return None;
        }
        self.data
            .get(crate::shape::row_major_offset(&self.shape, index)?)
    }

    /// A borrowed input for the [`strided`] kernels.
    pub fn view(&self) -> ArrayRef<'_, T> {
        // Cannot fail: the length was checked when the tensor was made.
        ArrayRef::new(&self.data, &self.shape).unwrap_or_else(|_| unreachable!())
    }

    /// The same elements under another shape with the same element count.
    ///
    /// ```
    /// use shaped::DynTensor;
    /// let t = DynTensor::from_shape_vec(&[2, 3], vec![0; 6]).unwrap();
    /// assert_eq!(t.clone().reshape(&[3, 2]).unwrap().shape(), &[3, 2]);
    /// let err = t.reshape(&[4, 2]).unwrap_err();
    /// assert_eq!(err.to_string(), "cannot reshape [2, 3] into [4, 2]: the element counts differ");
    /// ```
    pub fn reshape(self, shape: &[usize]) -> Result<Self, BroadcastError> {
        let err = |kind| BroadcastError::new(kind, Operation::Reshape, &self.shape, shape);
        if shape.len() > rules::MAX_RANK {
            return Err(err(ErrorKind::RankLimit {
                max: rules::MAX_RANK,
            }));
        }
        match rules::checked_element_count(shape) {
            None => Err(err(ErrorKind::Overflow)),
            Some(n) if n != self.data.len() => Err(err(ErrorKind::ShapeMismatch)),
            Some(_) => Ok(DynTensor {
                shape: shape.to_vec(),
                data: self.data,
            }),
        }
    }

    /// Applies `f` to each element.
    pub fn map<U>(&self, mut f: impl FnMut(T) -> U) -> DynTensor<U>
    where
        T: Clone,
    {
        DynTensor {
            shape: self.shape.clone(),
            data: self.data.iter().map(|x| f(x.clone())).collect(),
        }
    }

    /// The shared body of the elementwise operations: the output shape of `self` with `rhs`
    /// under `mode`, a new buffer of that size, and `run` (a [`strided`] kernel) to fill it.
    fn elementwise<U, V: Default + Clone>(
        &self,
        rhs: &DynTensor<U>,
        mode: AutoBroadcast,
        run: impl FnOnce(ArrayRef<'_, T>, ArrayRef<'_, U>, &mut [V]) -> Result<(), BroadcastError>,
    ) -> Result<DynTensor<V>, BroadcastError> {
        let shape = rules::broadcast_shapes(&self.shape, &rhs.shape, mode)?;
        let mut out = output::<V>(&shape)?;
        run(self.view(), rhs.view(), &mut out)?;
        Ok(DynTensor {
            shape: shape.to_vec(),
            data: out,
        })
    }

    /// Broadcasts `self` with `rhs` under `mode` and combines elements with `f`.
    pub fn zip_with<U, V: Default + Clone>(
        &self,
        rhs: &DynTensor<U>,
        mode: AutoBroadcast,
        mut f: impl FnMut(&T, &U) -> V,
    ) -> Result<DynTensor<V>, BroadcastError> {
        self.elementwise(rhs, mode, |a, b, out| {
            strided::zip_into(a, b, mode, out, &mut f)
        })
    }

    /// An arithmetic operation, broadcast under `mode`. Integer division by zero and negative
    /// integer exponents are errors.
    pub fn binary(
        &self,
        rhs: &DynTensor<T>,
        op: BinaryOp,
        mode: AutoBroadcast,
    ) -> Result<DynTensor<T>, BroadcastError>
    where
        T: Element,
    {
        self.elementwise(rhs, mode, |a, b, out| {
            strided::binary_into(a, b, op, mode, out)
        })
    }

    /// A comparison, broadcast under `mode`, giving a `bool` tensor.
    pub fn compare(
        &self,
        rhs: &DynTensor<T>,
        op: CompareOp,
        mode: AutoBroadcast,
    ) -> Result<DynTensor<bool>, BroadcastError>
    where
        T: PartialOrd,
    {
        self.elementwise(rhs, mode, |a, b, out| {
            strided::compare_into(a, b, op, mode, out)
        })
    }

    /// The Broadcast op (B5): `self` broadcast to `target` under `mode`.
    ///
    /// ```
    /// use shaped::{BroadcastMode, DynTensor};
    /// let t = DynTensor::from_shape_vec(&[3, 1], vec![1, 2, 3]).unwrap();
    /// let b = t.broadcast_to(&[2, 3, 6], BroadcastMode::Pdpd { axis: 1 }).unwrap();
    /// assert_eq!(b.shape(), &[2, 3, 6]);
    /// assert_eq!(b.get(&[1, 2, 5]), Some(&3));
    /// ```
    pub fn broadcast_to(
        &self,
        target: &[usize],
        mode: BroadcastMode<'_>,
    ) -> Result<DynTensor<T>, BroadcastError>
    where
        T: Clone,
    {
        let shape = rules::broadcast_to_shape(&self.shape, target, mode)?;
        let count = element_count::<T>(&shape)?;
        // A non-empty output implies a non-empty input, so there is a first element to fill with.
        let mut out = match self.data.first() {
            Some(first) if count > 0 => alloc::vec![first.clone(); count],
            _ => Vec::new(),
        };
        strided::broadcast_into(self.view(), target, mode, &mut out)?;
        Ok(DynTensor {
            shape: shape.to_vec(),
            data: out,
        })
    }

    /// Copies the elements into a static tensor of shape `S`, if the shapes are equal.
    ///
    /// ```
    /// use shaped::{DynTensor, Shape, Tensor};
    /// let d = DynTensor::from_shape_vec(&[2, 2], vec![1, 2, 3, 4]).unwrap();
    /// let s: Tensor<i32, Shape![2, 2]> = d.try_into_static().unwrap();
    /// assert_eq!(s[[1, 0]], 3);
    /// assert!(d.try_into_static::<Shape![4]>().is_err());
    /// ```
    pub fn try_into_static<S: StaticShape>(&self) -> Result<Tensor<T, S>, BroadcastError>
    where
        T: Clone,
    {
        if self.shape != S::DIMS {
            return Err(BroadcastError::new(
                ErrorKind::ShapeMismatch,
                Operation::ToStatic,
                &self.shape,
                S::DIMS,
            ));
        }
        let mut elements = self.data.iter();
        // Cannot run short: the element counts are equal because the shapes are.
        Ok(Tensor::from_fn(|_| {
            elements.next().cloned().unwrap_or_else(|| unreachable!())
        }))
    }
}

impl DynTensor<bool> {
    /// A logical operation on `bool` tensors, broadcast under `mode`.
    pub fn logical(
        &self,
        rhs: &DynTensor<bool>,
        op: LogicalOp,
        mode: AutoBroadcast,
    ) -> Result<DynTensor<bool>, BroadcastError> {
        self.elementwise(rhs, mode, |a, b, out| {
            strided::logical_into(a, b, op, mode, out)
        })
    }
}

/// The element count of an output of `V`s, refused (before asking the allocator) when it or
/// its size in bytes overflows, or the bytes exceed `isize::MAX`, the most a `Vec` may hold.
pub(crate) fn element_count<V>(shape: &[usize]) -> Result<usize, BroadcastError> {
    let n = rules::checked_element_count(shape);
    match n.and_then(|n| n.checked_mul(core::mem::size_of::<V>())) {
        Some(bytes) if bytes <= isize::MAX as usize => Ok(n.unwrap_or(0)),
        _ => Err(BroadcastError::new(
            ErrorKind::Overflow,
            Operation::Layout,
            shape,
            &[],
        )),
    }
}

pub(crate) fn output<V: Default + Clone>(shape: &[usize]) -> Result<Vec<V>, BroadcastError> {
    Ok(alloc::vec![V::default(); element_count::<V>(shape)?])
}

/// numpy-like nested brackets, like the static tensor.
impl<T: fmt::Display> fmt::Display for DynTensor<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::tensor::fmt::write_nested(
            f,
            &self.shape,
            &self.data,
            crate::tensor::fmt::display_elem::<T>,
        )
    }
}

/// The shape, then the elements with their `Debug` form, like the static tensor.
impl<T: fmt::Debug> fmt::Debug for DynTensor<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DynTensor(shape={:?}, ", self.shape)?;
        crate::tensor::fmt::write_nested(
            f,
            &self.shape,
            &self.data,
            crate::tensor::fmt::debug_elem::<T>,
        )?;
        f.write_str(")")
    }
}

/// The dims a shape type `S` expects when given `dims`: its static dims, with each `Dyn`
/// position taken from `dims` (0 past their end), for error messages.
fn expected_dims<S: Shape>(dims: &[usize]) -> rules::ShapeBuf {
    let mut expected = [0usize; rules::MAX_RANK];
    for (i, slot) in expected.iter_mut().enumerate().take(S::RANK) {
        *slot = S::STATIC_DIMS[i].unwrap_or_else(|| dims.get(i).copied().unwrap_or(0));
    }
    rules::ShapeBuf::from_slice(&expected[..S::RANK.min(rules::MAX_RANK)]).unwrap_or_default()
}

impl<T: Clone, S: Shape, D: Data<T>> Tensor<T, S, D> {
    /// Copies this tensor (static or mixed shape) into a [`DynTensor`] of the same shape and
    /// elements.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let d = Tensor::<u8, Shape![2, 3]>::splat(7).into_dyn();
    /// assert_eq!(d.shape(), &[2, 3]);
    /// ```
    pub fn into_dyn(self) -> DynTensor<T> {
        DynTensor {
            shape: self.shape().as_ref().to_vec(),
            data: self.as_slice().to_vec(),
        }
    }

    /// Copies this tensor into a tensor of shape type `S2` with the same dims: from a mixed
    /// shape to a static one (`Shape![_, 3]` to `Shape![2, 3]`) or back.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let m = Tensor::<i32, Shape![_, 2]>::from_shape_vec([2, 2], vec![1, 2, 3, 4]).unwrap();
    /// let s: Tensor<i32, Shape![2, 2]> = m.try_into_shape().unwrap();
    /// let back: Tensor<i32, Shape![_, _]> = s.try_into_shape().unwrap();
    /// assert_eq!(back.shape(), [2, 2]);
    /// let e = m.try_into_shape::<Shape![4, 1]>().unwrap_err();
    /// assert_eq!(e.to_string(), "shape [2, 2] is not the static shape [4, 1]");
    /// ```
    pub fn try_into_shape<S2: Shape>(&self) -> Result<Tensor<T, S2>, BroadcastError> {
        let dims = self.shape();
        let err = || {
            let expected = expected_dims::<S2>(dims.as_ref());
            BroadcastError::new(
                ErrorKind::ShapeMismatch,
                Operation::ToStatic,
                dims.as_ref(),
                &expected,
            )
        };
        let shape = S2::from_dims(dims.as_ref()).ok_or_else(err)?;
        let buffer = shape
            .buffer_from_vec(self.as_slice().to_vec())
            .ok_or_else(err)?;
        Ok(Tensor::from_parts(crate::storage::Owned(buffer), shape))
    }
}

impl<T: Clone> DynTensor<T> {
    /// Copies the elements into a tensor of shape type `S` (static or mixed) if the dims fit.
    ///
    /// ```
    /// use shaped::{DynTensor, Shape, Tensor};
    /// let d = DynTensor::from_shape_vec(&[5, 3], vec![0.0f32; 15]).unwrap();
    /// let m: Tensor<f32, Shape![_, 3]> = d.try_into_shape().unwrap();
    /// assert_eq!(m.shape(), [5, 3]);
    /// let e = d.try_into_shape::<Shape![_, 4]>().unwrap_err();
    /// assert_eq!(e.to_string(), "shape [5, 3] is not the static shape [5, 4]");
    /// ```
    pub fn try_into_shape<S: Shape>(&self) -> Result<Tensor<T, S>, BroadcastError> {
        let err = || {
            let expected = expected_dims::<S>(&self.shape);
            BroadcastError::new(
                ErrorKind::ShapeMismatch,
                Operation::ToStatic,
                &self.shape,
                &expected,
            )
        };
        let shape = S::from_dims(&self.shape).ok_or_else(err)?;
        let buffer = shape.buffer_from_vec(self.data.clone()).ok_or_else(err)?;
        Ok(Tensor::from_parts(crate::storage::Owned(buffer), shape))
    }
}
