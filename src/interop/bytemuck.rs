//! Typed views over bytes, and tensors as bytes (feature `bytemuck`), for plain-old-data
//! elements ([`bytemuck::Pod`]: the primitive numbers, and `f16`/`bf16` with feature `half`).
//!
//! A view borrows the bytes and copies nothing, so weights kept in flash (a `static` array,
//! `include_bytes!`) are read in place. The bytes must hold exactly the shape's size and start
//! at a multiple of the element's alignment; anything else is an error value
//! ([`ErrorKind::ByteLength`], [`ErrorKind::Misaligned`]). Elements are read in the machine's
//! own byte order.

use core::mem::{align_of, size_of};

use bytemuck::Pod;

use crate::error::{Error, ErrorKind, Operation};
use crate::rules::{self, MAX_RANK};
use crate::runtime::ArrayRef;
use crate::tensor::{Tensor, TensorView, TensorViewMut};
use crate::typed::shape::{Shape, StaticShape};
use crate::typed::storage::{Data, DataMut};

/// The element count of `dims` when `bytes` is exactly their size as `T`s (checked
/// arithmetic), or the error naming the shape.
fn count_of<T>(dims: &[usize], bytes: &[u8]) -> Result<usize, Error> {
    let layout = |kind| Error::new(kind, Operation::Layout, dims, &[]);
    if dims.len() > MAX_RANK {
        return Err(layout(ErrorKind::RankLimit { max: MAX_RANK }));
    }
    let count = rules::checked_element_count(dims).ok_or_else(|| layout(ErrorKind::Overflow))?;
    let expected = count
        .checked_mul(size_of::<T>())
        .ok_or_else(|| layout(ErrorKind::Overflow))?;
    // A zero-sized `T` cannot be counted from bytes: only an empty shape fits.
    if bytes.len() != expected || (size_of::<T>() == 0 && count != 0) {
        let kind = ErrorKind::ByteLength {
            expected,
            actual: bytes.len(),
        };
        return Err(layout(kind));
    }
    Ok(count)
}

/// [`count_of`], then that `bytes` is aligned for `T`.
fn check<T: Pod>(dims: &[usize], bytes: &[u8]) -> Result<usize, Error> {
    let count = count_of::<T>(dims, bytes)?;
    let expected = bytes.len();
    let layout = |kind| Error::new(kind, Operation::Layout, dims, &[]);
    // Empty data needs no alignment: the view is the empty slice.
    if expected != 0 && (bytes.as_ptr() as usize) % align_of::<T>() != 0 {
        let kind = ErrorKind::Misaligned {
            align: align_of::<T>(),
        };
        return Err(layout(kind));
    }
    Ok(count)
}

/// `bytes` as `T`s, after [`check`].
fn cast<'a, T: Pod>(dims: &[usize], bytes: &'a [u8]) -> Result<&'a [T], Error> {
    if check::<T>(dims, bytes)? == 0 {
        return Ok(&[]);
    }
    // Cannot fail after `check` but for a zero-sized `T`, whose bytes cannot count elements.
    bytemuck::try_cast_slice(bytes).map_err(|_| zero_sized(dims))
}

/// `bytes` as `T`s, mutably, after [`check`].
fn cast_mut<'a, T: Pod>(dims: &[usize], bytes: &'a mut [u8]) -> Result<&'a mut [T], Error> {
    if check::<T>(dims, bytes)? == 0 {
        return Ok(&mut []);
    }
    bytemuck::try_cast_slice_mut(bytes).map_err(|_| zero_sized(dims))
}

/// Whether `len` bytes at address `addr` are exactly a static shape `S` of `T`s, aligned for
/// `T` (`T` not zero-sized): the test of the views' in-line path, where both sides are often
/// constants. [`check`] decides the rest and builds the error.
#[inline(always)]
fn fits_static<T, S: StaticShape>(len: usize, addr: usize) -> bool {
    struct Bytes<T, S>(core::marker::PhantomData<(T, S)>);
    impl<T, S: StaticShape> Bytes<T, S> {
        // `None` (never equal to a length) when the byte count overflows `usize`.
        const LEN: Option<usize> = S::LEN.checked_mul(size_of::<T>());
    }
    size_of::<T>() != 0 && Some(len) == Bytes::<T, S>::LEN && addr % align_of::<T>() == 0
}

fn zero_sized(dims: &[usize]) -> Error {
    let kind = ErrorKind::ByteLength {
        expected: 0,
        actual: 0,
    };
    Error::new(kind, Operation::Layout, dims, &[])
}

/// # Bytes: a view of bytes (feature `bytemuck`)
#[cfg_attr(docsrs, doc(cfg(feature = "bytemuck")))]
impl<'a, T: Pod, S: StaticShape> TensorView<'a, T, S> {
    /// A view of `bytes` as a tensor of shape `S`, without a copy: weights in flash, a
    /// memory-mapped file, a network buffer. `bytes` must be exactly the shape's size and start
    /// at a multiple of `T`'s alignment. Elements are in the machine's byte order.
    ///
    /// Feature `bytemuck`.
    ///
    /// ```
    /// use shaped::{Shape, TensorView};
    /// #[repr(C, align(4))]
    /// struct Aligned([u8; 16]);
    /// static BYTES: Aligned = Aligned(*b"\x00\x00\x80\x3f\x00\x00\x00\x40\x00\x00\x40\x40\x00\x00\x80\x40");
    /// # if cfg!(target_endian = "little") {
    /// let w = TensorView::<f32, Shape![2, 2]>::from_bytes(&BYTES.0).unwrap();
    /// assert_eq!(w.as_slice(), &[1.0, 2.0, 3.0, 4.0]);
    /// # }
    /// let err = TensorView::<f32, Shape![2, 2]>::from_bytes(&BYTES.0[..12]).unwrap_err();
    /// assert_eq!(err.to_string(), "shape [2, 2] needs 16 bytes, but the buffer holds 12");
    /// let err = TensorView::<f32, Shape![3]>::from_bytes(&BYTES.0[1..13]).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "the bytes for shape [3] must start at a multiple of 4 (the element type's alignment), and do not"
    /// );
    /// ```
    #[inline]
    pub fn from_bytes(bytes: &'a [u8]) -> Result<Self, Error> {
        // The usual case in line, so that a constant length and a known alignment fold (the
        // arenas of `include_model!`); anything else, errors included, out of line.
        if fits_static::<T, S>(bytes.len(), bytes.as_ptr() as usize) {
            if let Ok(data) = bytemuck::try_cast_slice(bytes) {
                return Ok(Tensor::from_parts(data, S::default()));
            }
        }
        Self::from_bytes_checked(bytes)
    }

    #[cold]
    #[inline(never)]
    fn from_bytes_checked(bytes: &'a [u8]) -> Result<Self, Error> {
        TensorView::new(cast::<T>(S::DIMS, bytes)?)
    }
}

/// # Bytes: a writable view of bytes (feature `bytemuck`)
#[cfg_attr(docsrs, doc(cfg(feature = "bytemuck")))]
impl<'a, T: Pod, S: StaticShape> TensorViewMut<'a, T, S> {
    /// A writable view of `bytes` as a tensor of shape `S`, without a copy; the same checks as
    /// [`TensorView::from_bytes`].
    ///
    /// Feature `bytemuck`.
    #[inline]
    pub fn from_bytes_mut(bytes: &'a mut [u8]) -> Result<Self, Error> {
        // As in `TensorView::from_bytes`: the usual case in line, the rest out of line.
        if fits_static::<T, S>(bytes.len(), bytes.as_ptr() as usize) {
            return match bytemuck::try_cast_slice_mut(bytes) {
                Ok(data) => Ok(Tensor::from_parts(data, S::default())),
                // Never taken: `fits_static` checked what `try_cast_slice_mut` checks (and the
                // bytes, moved into it, are gone: the error is that of an empty buffer).
                Err(_) => Self::from_bytes_mut_checked(&mut []),
            };
        }
        Self::from_bytes_mut_checked(bytes)
    }

    #[cold]
    #[inline(never)]
    fn from_bytes_mut_checked(bytes: &'a mut [u8]) -> Result<Self, Error> {
        TensorViewMut::new(cast_mut::<T>(S::DIMS, bytes)?)
    }
}

/// # Bytes: a view of bytes, any shape type (feature `bytemuck`)
#[cfg_attr(docsrs, doc(cfg(feature = "bytemuck")))]
impl<'a, T: Pod, S: Shape> TensorView<'a, T, S> {
    /// A view of `bytes` as a tensor of `shape`, any shape type (`Dyn` dims included), without
    /// a copy. The static dims of `S` must match `shape`; the bytes are checked as in
    /// [`TensorView::from_bytes`].
    ///
    /// Feature `bytemuck`.
    ///
    /// ```
    /// use shaped::{Shape, TensorView};
    /// let data = [1u16, 2, 3, 4, 5, 6];
    /// let bytes: &[u8] = bytemuck::cast_slice(&data);
    /// let v = TensorView::<u16, Shape![_, 3]>::from_bytes_with_shape([2, 3], bytes).unwrap();
    /// assert_eq!(v[[1, 0]], 4);
    /// ```
    pub fn from_bytes_with_shape(
        shape: impl AsRef<[usize]>,
        bytes: &'a [u8],
    ) -> Result<Self, Error> {
        let dims = shape.as_ref();
        TensorView::with_shape(dims, cast::<T>(dims, bytes)?)
    }
}

/// # Bytes: a writable view of bytes, any shape type (feature `bytemuck`)
#[cfg_attr(docsrs, doc(cfg(feature = "bytemuck")))]
impl<'a, T: Pod, S: Shape> TensorViewMut<'a, T, S> {
    /// A writable view of `bytes` as a tensor of `shape`, any shape type, without a copy.
    ///
    /// Feature `bytemuck`.
    pub fn from_bytes_mut_with_shape(
        shape: impl AsRef<[usize]>,
        bytes: &'a mut [u8],
    ) -> Result<Self, Error> {
        let dims = shape.as_ref();
        TensorViewMut::with_shape(dims, cast_mut::<T>(dims, bytes)?)
    }
}

/// # Bytes: the elements as bytes (feature `bytemuck`)
#[cfg_attr(docsrs, doc(cfg(feature = "bytemuck")))]
impl<T: Pod, S: Shape, D: Data<T>> Tensor<T, S, D> {
    /// The elements as bytes, row-major, in the machine's byte order; no copy.
    ///
    /// Feature `bytemuck`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<u16, Shape![2]>::from([1, 0x0203]);
    /// assert_eq!(t.as_bytes(), &[1u16.to_ne_bytes(), 0x0203u16.to_ne_bytes()].concat()[..]);
    /// ```
    pub fn as_bytes(&self) -> &[u8] {
        bytemuck::cast_slice(self.as_slice())
    }
}

/// # Bytes: the elements as writable bytes (feature `bytemuck`)
#[cfg_attr(docsrs, doc(cfg(feature = "bytemuck")))]
impl<T: Pod, S: Shape, D: DataMut<T>> Tensor<T, S, D> {
    /// The elements as writable bytes, row-major, in the machine's byte order; no copy.
    ///
    /// Feature `bytemuck`.
    pub fn as_bytes_mut(&mut self) -> &mut [u8] {
        bytemuck::cast_slice_mut(self.as_mut_slice())
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "bytemuck")))]
impl<'a, T: Pod> ArrayRef<'a, T> {
    /// A row-major runtime input over `bytes`, without a copy: the kernels of
    /// [`runtime`](crate::runtime) read it with no allocator. The bytes are checked as in
    /// [`TensorView::from_bytes`].
    ///
    /// Feature `bytemuck`.
    ///
    /// ```
    /// use shaped::runtime::ArrayRef;
    /// let data = [1i32, 2, 3, 4, 5, 6];
    /// let a = ArrayRef::<i32>::from_bytes(&[3, 2], bytemuck::cast_slice(&data)).unwrap();
    /// assert_eq!(a.shape(), [3, 2]);
    /// ```
    pub fn from_bytes<Sh: AsRef<[usize]> + ?Sized>(
        shape: &'a Sh,
        bytes: &'a [u8],
    ) -> Result<Self, Error> {
        let dims = shape.as_ref();
        ArrayRef::new(dims, cast::<T>(dims, bytes)?)
    }
}

#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(all(feature = "bytemuck", feature = "alloc"))))]
impl<T: Pod> crate::DynTensor<T> {
    /// A tensor of `shape` with its elements copied out of `bytes`, which may start at any
    /// address (a file read into a `Vec<u8>`, say); the length must be the shape's size.
    ///
    /// Feature `bytemuck`.
    ///
    /// ```
    /// use shaped::DynTensor;
    /// let bytes: Vec<u8> = [1.5f64, -2.0].iter().flat_map(|x| x.to_ne_bytes()).collect();
    /// let t = DynTensor::<f64>::from_bytes([2, 1], &bytes).unwrap();
    /// assert_eq!(t.as_slice(), &[1.5, -2.0]);
    /// ```
    pub fn from_bytes(shape: impl AsRef<[usize]>, bytes: &[u8]) -> Result<Self, Error> {
        let dims = shape.as_ref();
        let count = count_of::<T>(dims, bytes)?;
        let mut data = crate::runtime::try_vec::<T>(count, dims)?;
        data.resize(count, T::zeroed());
        bytemuck::cast_slice_mut::<T, u8>(&mut data).copy_from_slice(bytes);
        crate::DynTensor::from_shape_vec(dims, data)
    }

    /// The elements as bytes, row-major, in the machine's byte order; no copy.
    ///
    /// Feature `bytemuck`.
    pub fn as_bytes(&self) -> &[u8] {
        bytemuck::cast_slice(self.as_slice())
    }
}
