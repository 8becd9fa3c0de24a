//! [`DynTensor`]: a tensor whose shape is known only at run time (feature `alloc`).
//!
//! Every method returns a `Result`; shapes follow the runtime rules of [`crate::rules`] and the
//! work is done by the kernels of [`crate::runtime`]. The operators (`+ - * / %`, the
//! comparisons' methods aside) broadcast like numpy and panic with the error's message on a
//! mismatch, as the operators of mixed shapes do; the `try_*` methods return the error.

use alloc::vec::Vec;
use core::fmt;
use core::mem::MaybeUninit;
use core::ops::{Index, IndexMut};

use super::array_ref::ArrayRef;
use super::by_op::ByOp;
use super::kernels::{self, Apply, Here, Split};
use super::{element_count, filled_vec};
use crate::element::Element;
use crate::error::{Error, ErrorKind, Operation, OrPanic};
use crate::op::{BinaryOp, CompareOp, LogicalOp};
use crate::rules::{self, AutoBroadcast, BroadcastToMode};
use crate::util::fmt::{debug_elem, display_elem, write_nested};
use crate::util::row_major_offset;

/// `f` of each pair of elements of two inputs broadcast under `mode`: `zip_with` of tensors
/// and views.
pub(crate) fn zip_inputs<T, U, V>(
    lhs: ArrayRef<'_, T>,
    rhs: ArrayRef<'_, U>,
    mode: AutoBroadcast,
    f: impl FnMut(&T, &U) -> V,
) -> Result<DynTensor<V>, Error> {
    unchecked_inputs(lhs, rhs, mode, Here(f))
}

/// [`zip_inputs`] with an [`Apply`] of the caller's (the int8 add's row form).
#[cfg(all(feature = "std", any(target_arch = "x86", target_arch = "x86_64")))]
pub(crate) fn zip_inputs_with<T, U, V>(
    lhs: ArrayRef<'_, T>,
    rhs: ArrayRef<'_, U>,
    mode: AutoBroadcast,
    f: impl Apply<T, U, V>,
) -> Result<DynTensor<V>, Error> {
    unchecked_inputs(lhs, rhs, mode, f)
}

/// `where` (`mode` `None`, W1) or `select` (W2) into a new tensor.
fn select_inputs<T: Clone>(
    cond: ArrayRef<'_, bool>,
    then: ArrayRef<'_, T>,
    otherwise: ArrayRef<'_, T>,
    mode: Option<AutoBroadcast>,
) -> Result<DynTensor<T>, Error> {
    let (dims, at) = rules::resolve_select::<{ rules::MAX_RANK }>(
        cond.shape,
        then.shape,
        otherwise.shape,
        mode,
    )?;
    let count = super::element_count::<T>(&dims)?;
    // SAFETY: `fill` writes every element of an output of `dims` (`count` of them) when it
    // returns `Ok`.
    let data = unsafe {
        super::filled_vec(count, &dims, |out| {
            super::select::fill(&dims, &cond, [&then, &otherwise], at, out)
        })?
    };
    Ok(DynTensor::from_parts(&dims, data))
}

/// The operations of runtime shapes on two inputs run the same kernels on each.
pub(crate) fn binary_inputs<T: Element>(
    lhs: ArrayRef<'_, T>,
    rhs: ArrayRef<'_, T>,
    op: BinaryOp,
    mode: AutoBroadcast,
) -> Result<DynTensor<T>, Error> {
    let check = || kernels::check_values(&lhs, &rhs, op);
    new_tensor(lhs, rhs, mode, check, ByOp::new(op))
}

/// [`binary_inputs`] for an operation known where it is called: `f` is its element function
/// ([`binary_fn!`](crate::op::binary_fn)), and only its loops are compiled (the operators of
/// a program using `+` alone compile one kernel, not ten).
#[inline(always)]
pub(crate) fn binary_known<T: Element>(
    lhs: ArrayRef<'_, T>,
    rhs: ArrayRef<'_, T>,
    op: BinaryOp,
    f: impl Fn(&T, &T) -> T + Sync + Send,
) -> Result<DynTensor<T>, Error> {
    let check = || kernels::check_values(&lhs, &rhs, op);
    new_tensor(lhs, rhs, AutoBroadcast::Numpy, check, Split(f))
}

/// See [`binary_inputs`].
pub(crate) fn compare_inputs<T: PartialOrd + Sync>(
    lhs: ArrayRef<'_, T>,
    rhs: ArrayRef<'_, T>,
    op: CompareOp,
    mode: AutoBroadcast,
) -> Result<DynTensor<bool>, Error> {
    unchecked_inputs(lhs, rhs, mode, ByOp::new(op))
}

/// See [`binary_inputs`]. `#[inline]`: see [`kernels::logical_into`](super::kernels::logical_into).
#[inline]
pub(crate) fn logical_inputs(
    lhs: ArrayRef<'_, bool>,
    rhs: ArrayRef<'_, bool>,
    op: LogicalOp,
    mode: AutoBroadcast,
) -> Result<DynTensor<bool>, Error> {
    unchecked_inputs(lhs, rhs, mode, ByOp::new(op))
}

/// An operation no input value can fail, into a new tensor.
#[inline(always)]
fn unchecked_inputs<X, Y, V>(
    lhs: ArrayRef<'_, X>,
    rhs: ArrayRef<'_, Y>,
    mode: AutoBroadcast,
    f: impl Apply<X, Y, V>,
) -> Result<DynTensor<V>, Error> {
    new_tensor(lhs, rhs, mode, || Ok(()), f)
}

/// `f` of the two inputs broadcast under `mode`, into a new tensor; `check` runs after the
/// shapes, before anything is written (the value checks of division and powers).
#[inline(always)]
fn new_tensor<X, Y, V>(
    lhs: ArrayRef<'_, X>,
    rhs: ArrayRef<'_, Y>,
    mode: AutoBroadcast,
    check: impl FnOnce() -> Result<(), Error>,
    f: impl Apply<X, Y, V>,
) -> Result<DynTensor<V>, Error> {
    kernels::zip_new(
        lhs,
        rhs,
        mode,
        kernels::NoHint,
        check,
        f,
        DynTensor::from_parts,
    )
}

/// Anything the runtime operations take as an operand: a [`DynTensor`], a
/// [`DynView`](crate::runtime::DynView) (a permuted or narrowed view, no copy) or an
/// [`ArrayRef`].
#[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
pub trait AsInput<T> {
    /// The elements with their shape and strides.
    fn as_input(&self) -> ArrayRef<'_, T>;
}

impl<T> AsInput<T> for DynTensor<T> {
    fn as_input(&self) -> ArrayRef<'_, T> {
        self.view()
    }
}

impl<T> AsInput<T> for ArrayRef<'_, T> {
    fn as_input(&self) -> ArrayRef<'_, T> {
        *self
    }
}

/// A row-major tensor with a runtime shape (rank up to [`MAX_RANK`](crate::rules::MAX_RANK)).
///
/// ```
/// use shaped::{AutoBroadcast, BinaryOp, CompareOp, DynTensor};
/// let a = DynTensor::from_shape_vec([2, 1, 5], (0..10).map(|x| x as f32).collect())?;
/// let b = DynTensor::from_shape_vec([4, 1], vec![1.0; 4])?;
/// let c = &a + &b;                                   // NUMPY; panics on a mismatch
/// assert_eq!(c.shape(), &[2, 4, 5]);
/// let d = a.try_add(&b)?;                            // the same, as a Result
/// assert_eq!(c, d);
/// let p = a.binary(&b, BinaryOp::Add, AutoBroadcast::Pdpd { axis: 1 }); // other modes
/// assert!(p.is_err());
/// let m = a.compare(&b, CompareOp::Lt, AutoBroadcast::Numpy)?;
/// assert_eq!(m.as_slice()[..3], [true, false, false]);
/// assert_eq!(c[[1, 3, 4]], 10.0);
/// # Ok::<(), shaped::Error>(())
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct DynTensor<T> {
    shape: Dims,
    data: Vec<T>,
}

/// How many dims a [`DynTensor`] keeps inline, without an allocation of their own.
const INLINE: usize = 6;

/// A [`DynTensor`]'s dims: up to [`INLINE`] of them in place, more on the heap. A `Vec` for
/// every shape cost each new tensor a second allocation and its free: about 150 of the 1284
/// instructions of a `4x4 + 4x1` `DynTensor` add (callgrind, `benches/runtime_probe.rs`).
/// Compared and hashed as the slice of dims, as the `Vec` was.
#[derive(Clone)]
enum Dims {
    Inline(u8, [usize; INLINE]),
    Heap(Vec<usize>),
}

impl Dims {
    fn new(dims: &[usize]) -> Self {
        if dims.len() <= INLINE {
            let mut inline = [0; INLINE];
            inline[..dims.len()].copy_from_slice(dims);
            // At most `INLINE`: fits a `u8`.
            Dims::Inline(dims.len() as u8, inline)
        } else {
            Dims::Heap(dims.to_vec())
        }
    }
}

impl core::ops::Deref for Dims {
    type Target = [usize];
    #[inline]
    fn deref(&self) -> &[usize] {
        match self {
            Dims::Inline(len, dims) => &dims[..usize::from(*len)],
            Dims::Heap(dims) => dims,
        }
    }
}

impl PartialEq for Dims {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for Dims {}

impl core::hash::Hash for Dims {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        (**self).hash(state)
    }
}

impl fmt::Debug for Dims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}

/// An empty rank-1 tensor, shape `[0]` (no element is made, so `T` needs no `Default`).
impl<T> Default for DynTensor<T> {
    fn default() -> Self {
        DynTensor {
            shape: Dims::new(&[0]),
            data: Vec::new(),
        }
    }
}

impl<T> DynTensor<T> {
    /// Takes `data` as a row-major tensor of `shape` (a slice, an array or a `Vec`); its length
    /// must be the element count.
    ///
    /// ```
    /// use shaped::DynTensor;
    /// let t = DynTensor::from_shape_vec(&[2, 3][..], vec![0u8; 6]).unwrap();
    /// let u = DynTensor::from_shape_vec(vec![3, 2], vec![0u8; 6]).unwrap();
    /// assert_eq!((t.shape(), u.shape()), (&[2, 3][..], &[3, 2][..]));
    /// let e = DynTensor::from_shape_vec([4], vec![0u8; 6]).unwrap_err();
    /// assert_eq!(e.to_string(), "shape [4] needs 4 elements, but the buffer holds 6");
    /// ```
    pub fn from_shape_vec(shape: impl AsRef<[usize]>, data: Vec<T>) -> Result<Self, Error> {
        let shape = shape.as_ref();
        ArrayRef::new(shape, &data)?;
        Ok(DynTensor {
            shape: Dims::new(shape),
            data,
        })
    }

    /// A tensor of `shape` with every element `value`.
    pub fn from_elem(shape: impl AsRef<[usize]>, value: T) -> Result<Self, Error>
    where
        T: Clone,
    {
        let shape = shape.as_ref();
        if shape.len() > rules::MAX_RANK {
            let kind = ErrorKind::RankLimit {
                max: rules::MAX_RANK,
            };
            return Err(Error::new(kind, Operation::Layout, shape, &[]));
        }
        let count = element_count::<T>(shape)?;
        Ok(DynTensor {
            shape: Dims::new(shape),
            data: super::try_filled(count, value, shape)?,
        })
    }

    /// A rank-0 tensor.
    pub fn scalar(value: T) -> Self {
        DynTensor {
            shape: Dims::new(&[]),
            data: alloc::vec![value],
        }
    }

    /// Made from parts whose lengths agree (the crate's own results).
    /// The elements as a row-major input of the runtime kernels.
    pub(crate) fn array(&self) -> crate::runtime::ArrayRef<'_, T> {
        crate::runtime::ArrayRef::trusted(&self.shape, &self.data)
    }

    pub(crate) fn from_parts(shape: &[usize], data: Vec<T>) -> Self {
        debug_assert_eq!(rules::checked_element_count(shape), Some(data.len()));
        DynTensor {
            shape: Dims::new(shape),
            data,
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

    /// The elements, without copying.
    pub fn into_vec(self) -> Vec<T> {
        self.data
    }

    /// The element at `index`, or `None` if the rank or a coordinate is wrong.
    pub fn get(&self, index: impl AsRef<[usize]>) -> Option<&T> {
        let offset = self.offset(index.as_ref())?;
        self.data.get(offset)
    }

    /// The element at `index` mutably, or `None` if the rank or a coordinate is wrong.
    pub fn get_mut(&mut self, index: impl AsRef<[usize]>) -> Option<&mut T> {
        let offset = self.offset(index.as_ref())?;
        self.data.get_mut(offset)
    }

    fn offset(&self, index: &[usize]) -> Option<usize> {
        if index.len() != self.shape.len() {
            return None;
        }
        row_major_offset(&self.shape, index)
    }

    /// An iterator over the elements in row-major order.
    pub fn iter(&self) -> core::slice::Iter<'_, T> {
        self.data.iter()
    }

    /// An iterator over the elements in row-major order, mutably.
    pub fn iter_mut(&mut self) -> core::slice::IterMut<'_, T> {
        self.data.iter_mut()
    }

    /// A borrowed input for the [`runtime`](crate::runtime) kernels.
    pub fn view(&self) -> ArrayRef<'_, T> {
        ArrayRef::trusted(&self.shape, &self.data)
    }

    /// Applies `f` to each element (a cast, say). **Panics** with the error's message when
    /// the allocator refuses the result; [`try_map`](Self::try_map) returns it.
    ///
    /// ```
    /// use shaped::DynTensor;
    /// let t = DynTensor::from_shape_vec([3], vec![1.5f32, -2.0, 7.9])?;
    /// assert_eq!(t.map(|&x| x as i32).as_slice(), &[1, -2, 7]);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn map<U>(&self, f: impl FnMut(&T) -> U) -> DynTensor<U> {
        self.try_map(f).or_panic()
    }

    /// Applies `f` to each element, or returns [`ErrorKind::OutOfMemory`] when the allocator
    /// refuses the result (a cast to a wider type of a tensor that filled memory). If `f`
    /// panics part-way, the elements it already made are dropped.
    ///
    /// [`ErrorKind::OutOfMemory`]: crate::ErrorKind::OutOfMemory
    pub fn try_map<U>(&self, f: impl FnMut(&T) -> U) -> Result<DynTensor<U>, Error> {
        let mut data = super::try_vec(self.data.len(), &self.shape)?;
        data.extend(self.data.iter().map(f));
        Ok(DynTensor {
            shape: self.shape.clone(),
            data,
        })
    }

    /// [`map`](Self::map) with a function threads can share: a large result is computed on
    /// several threads (feature `rayon`), each element as on one. The unary operations: the
    /// binary kernel with a rank-0 `()` operand, as on mixed-shape tensors.
    pub(crate) fn map_shared<U: Send>(&self, f: impl Fn(&T) -> U + Sync + Send) -> DynTensor<U>
    where
        T: Sync,
    {
        let nothing = ArrayRef::trusted(&[], &[()]);
        let f = Split(move |x: &T, _: &()| f(x));
        // The input holds as many elements; only a full heap refuses the output.
        unchecked_inputs(self.view(), nothing, AutoBroadcast::Numpy, f).or_panic()
    }

    /// Broadcasts `self` with `rhs` under `mode` and combines elements with `f`. The result is
    /// written in place: if `f` panics part-way, the elements it already made are leaked
    /// (never dropped, and never dropped twice).
    ///
    /// ```
    /// use shaped::{AutoBroadcast, DynTensor};
    /// let a = DynTensor::from_shape_vec([2, 1], vec![1, 2]).unwrap();
    /// let b = DynTensor::from_shape_vec([3], vec!["x", "y", "z"]).unwrap();
    /// let c = a.zip_with(&b, AutoBroadcast::Numpy, |n, s| format!("{s}{n}")).unwrap();
    /// assert_eq!(c.as_slice(), ["x1", "y1", "z1", "x2", "y2", "z2"]);
    /// ```
    pub fn zip_with<U, V>(
        &self,
        rhs: &(impl AsInput<U> + ?Sized),
        mode: AutoBroadcast,
        f: impl FnMut(&T, &U) -> V,
    ) -> Result<DynTensor<V>, Error> {
        zip_inputs(self.view(), rhs.as_input(), mode, f)
    }

    /// numpy's `where` and ONNX's `Where` (W1): `then`'s element where `cond` holds, else
    /// `otherwise`'s, the three shapes broadcast together by NUMPY (the condition may grow the
    /// output). See [`select`](Self::select) for OpenVINO's and oneDNN's form.
    ///
    /// ```
    /// use shaped::DynTensor;
    /// let cond = DynTensor::from_shape_vec([2, 1], vec![true, false])?;
    /// let then = DynTensor::from_shape_vec([3], vec![1, 2, 3])?;
    /// let y = DynTensor::where_cond(&cond, &then, &DynTensor::scalar(0))?;
    /// assert_eq!((y.shape(), y.as_slice()), (&[2, 3][..], &[1, 2, 3, 0, 0, 0][..]));
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn where_cond(
        cond: &(impl AsInput<bool> + ?Sized),
        then: &(impl AsInput<T> + ?Sized),
        otherwise: &(impl AsInput<T> + ?Sized),
    ) -> Result<DynTensor<T>, Error>
    where
        T: Clone,
    {
        select_inputs(cond.as_input(), then.as_input(), otherwise.as_input(), None)
    }

    /// OpenVINO's `Select` and oneDNN's `select` (W2): `then` and `otherwise` broadcast to
    /// each other under `mode` (none, numpy, or pdpd with an axis), then `cond` one way onto
    /// that result; a condition that would grow it is an error value.
    ///
    /// ```
    /// use shaped::{AutoBroadcast, DynTensor};
    /// let cond = DynTensor::from_shape_vec([2, 1], vec![true, false])?;
    /// let then = DynTensor::from_shape_vec([2, 2], vec![1, 2, 3, 4])?;
    /// let y = DynTensor::select(&cond, &then, &DynTensor::scalar(0), AutoBroadcast::Numpy)?;
    /// assert_eq!(y.as_slice(), &[1, 2, 0, 0]);
    /// let wide = DynTensor::from_shape_vec([3, 2, 2], vec![true; 12])?;
    /// assert_eq!(
    ///     DynTensor::select(&wide, &then, &DynTensor::scalar(0), AutoBroadcast::Numpy)
    ///         .unwrap_err()
    ///         .to_string(),
    ///     "cannot select: condition [3, 2, 2] would grow [2, 2], the broadcast of the two \
    ///      values (numpy, W2)"
    /// );
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn select(
        cond: &(impl AsInput<bool> + ?Sized),
        then: &(impl AsInput<T> + ?Sized),
        otherwise: &(impl AsInput<T> + ?Sized),
        mode: AutoBroadcast,
    ) -> Result<DynTensor<T>, Error>
    where
        T: Clone,
    {
        select_inputs(
            cond.as_input(),
            then.as_input(),
            otherwise.as_input(),
            Some(mode),
        )
    }

    /// An arithmetic operation, broadcast under `mode`. Integer division by zero and negative
    /// integer exponents are errors; integer arithmetic wraps.
    pub fn binary(
        &self,
        rhs: &(impl AsInput<T> + ?Sized),
        op: BinaryOp,
        mode: AutoBroadcast,
    ) -> Result<DynTensor<T>, Error>
    where
        T: Element,
    {
        binary_inputs(self.view(), rhs.as_input(), op, mode)
    }

    /// A comparison, broadcast under `mode`, giving a `bool` tensor. Elements are `Sync` so
    /// that a large comparison can be split across threads (feature `rayon`).
    pub fn compare(
        &self,
        rhs: &(impl AsInput<T> + ?Sized),
        op: CompareOp,
        mode: AutoBroadcast,
    ) -> Result<DynTensor<bool>, Error>
    where
        T: PartialOrd + Sync,
    {
        compare_inputs(self.view(), rhs.as_input(), op, mode)
    }

    /// One-directional broadcasting to `target`, numpy's `broadcast_to` (B5): the result has
    /// exactly the target's shape, and each right-aligned dim of `self` must be 1 or the
    /// target's.
    ///
    /// ```
    /// use shaped::DynTensor;
    /// let t = DynTensor::from_shape_vec([3, 1], vec![1, 2, 3]).unwrap();
    /// assert_eq!(t.broadcast_to([2, 3, 4]).unwrap().shape(), &[2, 3, 4]);
    /// let e = t.broadcast_to([3]).unwrap_err();
    /// assert_eq!(e.to_string(), "cannot broadcast [3, 1] with [3] (broadcast_to numpy): target_shape has smaller rank");
    /// ```
    pub fn broadcast_to(&self, target: impl AsRef<[usize]>) -> Result<DynTensor<T>, Error>
    where
        T: Clone + Send + Sync,
    {
        self.broadcast(target, BroadcastToMode::Numpy)
    }

    /// Bidirectional broadcasting (B1-B4): the NUMPY broadcast of `self`'s shape with
    /// `target`, which may differ from the target.
    ///
    /// ```
    /// use shaped::DynTensor;
    /// let t = DynTensor::from_shape_vec([1, 4, 1], vec![1, 2, 3, 4]).unwrap();
    /// assert_eq!(t.broadcast_bidirectional([1, 4]).unwrap().shape(), &[1, 4, 4]);
    /// ```
    pub fn broadcast_bidirectional(
        &self,
        target: impl AsRef<[usize]>,
    ) -> Result<DynTensor<T>, Error>
    where
        T: Clone + Send + Sync,
    {
        self.broadcast(target, BroadcastToMode::Bidirectional)
    }

    /// The Broadcast op (B5) with any of its modes: `numpy` (as
    /// [`broadcast_to`](Self::broadcast_to)), `explicit` with an axes mapping, `bidirectional`,
    /// `pdpd` from an axis.
    ///
    /// ```
    /// use shaped::{BroadcastToMode, DynTensor};
    /// let t = DynTensor::from_shape_vec([3, 1], vec![1, 2, 3]).unwrap();
    /// let b = t.broadcast([2, 3, 6], BroadcastToMode::Pdpd { axis: 1 }).unwrap();
    /// assert_eq!(b.shape(), &[2, 3, 6]);
    /// assert_eq!(b[[1, 2, 5]], 3);
    /// ```
    ///
    /// If `Clone` panics part-way, the elements already copied into the result are leaked (never
    /// dropped twice, never read). (As for `broadcast_to` and `broadcast_bidirectional`.)
    pub fn broadcast(
        &self,
        target: impl AsRef<[usize]>,
        mode: BroadcastToMode<'_>,
    ) -> Result<DynTensor<T>, Error>
    where
        T: Clone + Send + Sync,
    {
        let target = target.as_ref();
        let shape = rules::broadcast_to_shape(&self.shape, target, mode)?;
        let count = element_count::<T>(&shape)?;
        // SAFETY: `broadcast_into` writes every element of its output when it returns Ok.
        let data = unsafe {
            filled_vec(count, &shape, |out| {
                let clone = Split(|x: &T, _: &T| MaybeUninit::new(x.clone()));
                kernels::broadcast_apply(self.view(), target, mode, out, clone)
            })?
        };
        Ok(DynTensor::from_parts(&shape, data))
    }
}

impl DynTensor<bool> {
    /// A logical operation on `bool` tensors, broadcast under `mode`.
    pub fn logical(
        &self,
        rhs: &(impl AsInput<bool> + ?Sized),
        op: LogicalOp,
        mode: AutoBroadcast,
    ) -> Result<DynTensor<bool>, Error> {
        logical_inputs(self.view(), rhs.as_input(), op, mode)
    }

    /// `self and rhs`, NUMPY-broadcast, an error value on a mismatch (as `&` panics with it).
    ///
    /// ```
    /// use shaped::DynTensor;
    /// let a = DynTensor::from_shape_vec([2, 1], vec![true, false])?;
    /// let b = DynTensor::from_shape_vec([2], vec![true, false])?;
    /// assert_eq!(a.try_and(&b)?.as_slice(), &[true, false, false, false]);
    /// let c = DynTensor::from_shape_vec([3], vec![true; 3])?;
    /// assert_eq!(
    ///     b.try_and(&c).unwrap_err().to_string(),
    ///     "cannot broadcast [2] with [3] (numpy): axis 0 has 2 vs 3"
    /// );
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn try_and(&self, rhs: &(impl AsInput<bool> + ?Sized)) -> Result<DynTensor<bool>, Error> {
        self.logical(rhs, LogicalOp::And, AutoBroadcast::Numpy)
    }

    /// `self or rhs`, NUMPY-broadcast, an error value on a mismatch.
    pub fn try_or(&self, rhs: &(impl AsInput<bool> + ?Sized)) -> Result<DynTensor<bool>, Error> {
        self.logical(rhs, LogicalOp::Or, AutoBroadcast::Numpy)
    }

    /// `self xor rhs`, NUMPY-broadcast, an error value on a mismatch.
    pub fn try_xor(&self, rhs: &(impl AsInput<bool> + ?Sized)) -> Result<DynTensor<bool>, Error> {
        self.logical(rhs, LogicalOp::Xor, AutoBroadcast::Numpy)
    }
}

/// `!t`, elementwise: logical not of `bool`s, bitwise not of integers.
///
/// ```
/// use shaped::DynTensor;
/// let mask = DynTensor::from_shape_vec([2], vec![true, false])?;
/// assert_eq!((!&mask).as_slice(), &[false, true]);
/// # Ok::<(), shaped::Error>(())
/// ```
impl<T: Copy + core::ops::Not<Output = T>> core::ops::Not for &DynTensor<T> {
    type Output = DynTensor<T>;
    fn not(self) -> DynTensor<T> {
        DynTensor::from_parts(&self.shape, self.data.iter().map(|&x| !x).collect())
    }
}

/// `!t` in place.
impl<T: Copy + core::ops::Not<Output = T>> core::ops::Not for DynTensor<T> {
    type Output = DynTensor<T>;
    fn not(mut self) -> DynTensor<T> {
        for x in &mut self.data {
            *x = !*x;
        }
        self
    }
}

macro_rules! try_binary {
    ($($name:ident $op:ident $doc:literal;)*) => {
        /// NUMPY-broadcast arithmetic returning a `Result`, named as on static and mixed
        /// tensors.
        impl<T: Element> DynTensor<T> {$(
            #[doc = $doc]
            #[inline]
            pub fn $name(&self, rhs: &DynTensor<T>) -> Result<DynTensor<T>, Error> {
                let f = crate::op::binary_fn!($op, T);
                binary_known(self.view(), rhs.view(), BinaryOp::$op, f)
            }
        )*}
    };
}

try_binary! {
    try_add Add "`self + rhs`, NUMPY-broadcast (integers wrap).";
    try_sub Sub "`self - rhs`, NUMPY-broadcast (integers wrap).";
    try_mul Mul "`self * rhs`, NUMPY-broadcast (integers wrap).";
    try_div Div "`self / rhs`, NUMPY-broadcast; an integer zero divisor is an error.";
    try_rem Rem "`self % rhs`, NUMPY-broadcast; an integer zero divisor is an error.";
    try_floor_mod FloorMod "Python's `self % rhs`, NUMPY-broadcast; an integer zero divisor is an error.";
    try_maximum Maximum "Elementwise maximum (NaN-propagating), NUMPY-broadcast.";
    try_minimum Minimum "Elementwise minimum (NaN-propagating), NUMPY-broadcast.";
    try_pow Pow "`self` to the power `rhs`, NUMPY-broadcast; a negative integer exponent is an error.";
    try_squared_difference SquaredDifference "`(self - rhs)²`, NUMPY-broadcast.";
}

macro_rules! try_compare {
    ($($name:ident $op:ident $doc:literal;)*) => {
        /// NUMPY-broadcast comparisons returning a `Result`, named as on static and mixed
        /// tensors.
        impl<T: PartialOrd + Sync> DynTensor<T> {$(
            #[doc = $doc]
            pub fn $name(&self, rhs: &DynTensor<T>) -> Result<DynTensor<bool>, Error> {
                let f = crate::op::compare_fn!($op);
                unchecked_inputs(self.view(), rhs.view(), AutoBroadcast::Numpy, Split(f))
            }
        )*}
    };
}

try_compare! {
    try_eq Eq "Elementwise `self == rhs`, NUMPY-broadcast.";
    try_ne Ne "Elementwise `self != rhs`, NUMPY-broadcast.";
    try_lt Lt "Elementwise `self < rhs`, NUMPY-broadcast.";
    try_le Le "Elementwise `self <= rhs`, NUMPY-broadcast.";
    try_gt Gt "Elementwise `self > rhs`, NUMPY-broadcast.";
    try_ge Ge "Elementwise `self >= rhs`, NUMPY-broadcast.";
}

/// Whether `b` stretches onto `out` one-directionally (B5): the NUMPY broadcast of the two is
/// `out` itself, so an owned `out` can hold the result.
fn stretches_onto(b: &[usize], out: &[usize]) -> bool {
    b.len() <= out.len()
        && b.iter()
            .rev()
            .zip(out.iter().rev())
            .all(|(&x, &o)| x == o || x == 1)
}

macro_rules! operators {
    ($($Trait:ident $method:ident $Assign:ident $assign:ident $op:ident;)*) => {$(
        /// NUMPY-broadcast operator (integers wrap). **Panics** with the error's message when
        /// the shapes do not broadcast or an integer divisor is zero; use the `try_` method
        /// for a `Result`.
        impl<T: Element> core::ops::$Trait<&DynTensor<T>> for &DynTensor<T> {
            type Output = DynTensor<T>;
            #[track_caller]
            fn $method(self, rhs: &DynTensor<T>) -> DynTensor<T> {
                let f = crate::op::binary_fn!($op, T);
                binary_known(self.view(), rhs.view(), BinaryOp::$op, f).or_panic()
            }
        }

        /// NUMPY-broadcast operator with an owned left side. When the result has the left
        /// side's shape (`rhs` stretches onto it), it is computed in the left side's buffer,
        /// with no allocation.
        impl<T: Element> core::ops::$Trait<&DynTensor<T>> for DynTensor<T> {
            type Output = DynTensor<T>;
            #[track_caller]
            fn $method(mut self, rhs: &DynTensor<T>) -> DynTensor<T> {
                if stretches_onto(rhs.shape(), self.shape()) {
                    let f = crate::op::binary_fn!($op, T);
                    self.update_op(rhs.view(), BinaryOp::$op, f).or_panic();
                    return self;
                }
                core::ops::$Trait::$method(&self, rhs)
            }
        }

        /// A scalar on the right of an owned tensor (P3): computed in its buffer.
        impl<T: Element + crate::element::Scalar> core::ops::$Trait<T> for DynTensor<T> {
            type Output = DynTensor<T>;
            #[track_caller]
            fn $method(mut self, rhs: T) -> DynTensor<T> {
                let rhs = ArrayRef::trusted(&[], core::slice::from_ref(&rhs));
                let f = crate::op::binary_fn!($op, T);
                self.update_op(rhs, BinaryOp::$op, f).or_panic();
                self
            }
        }

        /// A scalar on the right: rank 0 against any shape (P3).
        impl<T: Element + crate::element::Scalar> core::ops::$Trait<T> for &DynTensor<T> {
            type Output = DynTensor<T>;
            #[track_caller]
            fn $method(self, rhs: T) -> DynTensor<T> {
                let rhs = ArrayRef::trusted(&[], core::slice::from_ref(&rhs));
                let f = crate::op::binary_fn!($op, T);
                binary_known(self.view(), rhs, BinaryOp::$op, f).or_panic()
            }
        }

        /// `self op= rhs`, `rhs` broadcast onto `self`, which never grows (B5). **Panics** with
        /// the error's message on a mismatch or an integer zero divisor.
        impl<T: Element> core::ops::$Assign<&DynTensor<T>> for DynTensor<T> {
            #[track_caller]
            fn $assign(&mut self, rhs: &DynTensor<T>) {
                let f = crate::op::binary_fn!($op, T);
                self.update_op(rhs.view(), BinaryOp::$op, f).or_panic()
            }
        }

        /// `self op= scalar`.
        impl<T: Element + crate::element::Scalar> core::ops::$Assign<T> for DynTensor<T> {
            #[track_caller]
            fn $assign(&mut self, rhs: T) {
                let rhs = ArrayRef::trusted(&[], core::slice::from_ref(&rhs));
                let f = crate::op::binary_fn!($op, T);
                self.update_op(rhs, BinaryOp::$op, f).or_panic()
            }
        }
    )*};
}

operators! {
    Add add AddAssign add_assign Add;
    Sub sub SubAssign sub_assign Sub;
    Mul mul MulAssign mul_assign Mul;
    Div div DivAssign div_assign Div;
    Rem rem RemAssign rem_assign Rem;
}

// The impls are concrete (`bool` only), so without `#[inline]` the library compiled their
// kernels whether or not a program used them: 244 of its 1945 functions in a debug build.
macro_rules! logical_operators {
    ($($Trait:ident $method:ident $try:ident;)*) => {$(
        /// NUMPY-broadcast logical operator on `bool` tensors. **Panics** with the error's
        /// message when the shapes do not broadcast; the `try_` method returns it.
        impl core::ops::$Trait<&DynTensor<bool>> for &DynTensor<bool> {
            type Output = DynTensor<bool>;
            #[inline]
            #[track_caller]
            fn $method(self, rhs: &DynTensor<bool>) -> DynTensor<bool> {
                self.$try(rhs).or_panic()
            }
        }

        /// NUMPY-broadcast logical operator with an owned left side.
        impl core::ops::$Trait<&DynTensor<bool>> for DynTensor<bool> {
            type Output = DynTensor<bool>;
            #[inline]
            #[track_caller]
            fn $method(self, rhs: &DynTensor<bool>) -> DynTensor<bool> {
                core::ops::$Trait::$method(&self, rhs)
            }
        }

        /// A `bool` on the right: rank 0 against any shape (P3).
        impl core::ops::$Trait<bool> for &DynTensor<bool> {
            type Output = DynTensor<bool>;
            #[inline]
            #[track_caller]
            fn $method(self, rhs: bool) -> DynTensor<bool> {
                let rhs = ArrayRef::trusted(&[], core::slice::from_ref(&rhs));
                self.$try(&rhs).or_panic()
            }
        }
    )*};
}

logical_operators! {
    BitAnd bitand try_and;
    BitOr bitor try_or;
    BitXor bitxor try_xor;
}

impl<T: Element> DynTensor<T> {
    /// `self = self op rhs` in place, `rhs` broadcast onto `self` one-directionally (B5): the
    /// body of `+=` and its kin.
    pub(crate) fn update_op(
        &mut self,
        rhs: ArrayRef<'_, T>,
        op: BinaryOp,
        f: impl Fn(&T, &T) -> T + Sync + Send,
    ) -> Result<(), Error> {
        // The value check names this tensor's shape; only the shape of `a` is read.
        let shape =
            rules::ShapeBuf::<{ rules::MAX_RANK }>::from_slice(&self.shape).unwrap_or_default();
        let a = ArrayRef::trusted(&shape, &[] as &[T]);
        let check = || kernels::check_values(&a, &rhs, op);
        let f = Split(move |x: &mut T, y: &T| *x = f(x, y));
        kernels::update_into(&self.shape, &mut self.data, rhs, check, f)
    }
}

macro_rules! scalar_lhs {
    ($($t:ty)*) => {$(
        scalar_lhs!(@each $t; Add add, Sub sub, Mul mul, Div div, Rem rem);
    )*};
    (@each $t:ty; $($Trait:ident $method:ident),*) => {$(
        /// A scalar on the left: rank 0 against any shape (P3). Panics like the other
        /// operators.
        impl core::ops::$Trait<&DynTensor<$t>> for $t {
            type Output = DynTensor<$t>;
            #[inline]
            #[track_caller]
            fn $method(self, rhs: &DynTensor<$t>) -> DynTensor<$t> {
                let lhs = DynTensor::scalar(self);
                core::ops::$Trait::$method(&lhs, rhs)
            }
        }
    )*};
}

scalar_lhs!(f32 f64 i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize);

/// `-t`, elementwise (integers wrap).
impl<T: Element + core::ops::Neg<Output = T>> core::ops::Neg for &DynTensor<T> {
    type Output = DynTensor<T>;
    fn neg(self) -> DynTensor<T> {
        self.map_shared(|&x| <T as Element>::neg(x))
    }
}

/// `-t`, elementwise (integers wrap).
impl<T: Element + core::ops::Neg<Output = T>> core::ops::Neg for DynTensor<T> {
    type Output = DynTensor<T>;
    fn neg(mut self) -> DynTensor<T> {
        for x in &mut self.data {
            *x = <T as Element>::neg(*x);
        }
        self
    }
}

/// Indexing with one coordinate per dim (an array, a slice or a `Vec`). Panics, naming the
/// index and the shape, when the rank or a coordinate is wrong; [`DynTensor::get`] returns an
/// `Option`.
impl<T, I: AsRef<[usize]>> Index<I> for DynTensor<T> {
    type Output = T;
    #[track_caller]
    fn index(&self, index: I) -> &T {
        let index = index.as_ref();
        match self.offset(index) {
            Some(offset) => &self.data[offset],
            None => out_of_bounds(index, &self.shape),
        }
    }
}

impl<T, I: AsRef<[usize]>> IndexMut<I> for DynTensor<T> {
    #[track_caller]
    fn index_mut(&mut self, index: I) -> &mut T {
        let index = index.as_ref();
        match self.offset(index) {
            Some(offset) => &mut self.data[offset],
            None => out_of_bounds(index, &self.shape),
        }
    }
}

#[cold]
#[track_caller]
fn out_of_bounds(index: &[usize], dims: &[usize]) -> ! {
    panic!("index {index:?} is out of bounds for shape {dims:?}")
}

impl<T> AsRef<[T]> for DynTensor<T> {
    fn as_ref(&self) -> &[T] {
        &self.data
    }
}

impl<T> AsMut<[T]> for DynTensor<T> {
    fn as_mut(&mut self) -> &mut [T] {
        &mut self.data
    }
}

impl<T> IntoIterator for DynTensor<T> {
    type Item = T;
    type IntoIter = alloc::vec::IntoIter<T>;
    fn into_iter(self) -> Self::IntoIter {
        self.data.into_iter()
    }
}

impl<'a, T> IntoIterator for &'a DynTensor<T> {
    type Item = &'a T;
    type IntoIter = core::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.data.iter()
    }
}

impl<'a, T> IntoIterator for &'a mut DynTensor<T> {
    type Item = &'a mut T;
    type IntoIter = core::slice::IterMut<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.data.iter_mut()
    }
}

/// numpy-like nested brackets, like the static tensor.
impl<T: fmt::Display> fmt::Display for DynTensor<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_nested(f, &self.shape, &self.data, display_elem::<T>)
    }
}

/// The shape, then the elements with their `Debug` form, like the static tensor.
impl<T: fmt::Debug> fmt::Debug for DynTensor<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DynTensor(shape={:?}, ", self.shape)?;
        write_nested(f, &self.shape, &self.data, debug_elem::<T>)?;
        f.write_str(")")
    }
}

macro_rules! dyn_unary {
    ($([$($cfg:tt)*] [$bound:ident] $name:ident $doc:literal |$x:ident| $body:expr;)*) => {
        /// Unary math, elementwise, as on static tensors and with the binary primitive's
        /// formulas: `abs`, `relu`, `sign` and `clip` for integers and floats, the others for
        /// floats. With feature `rayon`, a large tensor is computed on several threads.
        ///
        /// ```
        /// use shaped::DynTensor;
        /// let x = DynTensor::from_shape_vec([3], vec![-1.0f32, 0.5, 2.0]).unwrap();
        /// assert_eq!(x.relu().as_slice(), &[0.0, 0.5, 2.0]);
        /// assert_eq!(x.clip(0.0, 1.0).as_slice(), &[0.0, 0.5, 1.0]);
        /// ```
        impl<T: crate::element::Element> DynTensor<T> {
            $(
                #[cfg($($cfg)*)]
                #[doc = $doc]
                pub fn $name(&self) -> DynTensor<T>
                where
                    T: crate::element::$bound,
                {
                    self.map_shared(|&$x| $body)
                }
            )*

            /// `x` clamped to `[lo, hi]`, numpy's `clip` (`minimum(maximum(x, lo), hi)`): NaN
            /// in `x` or in a bound gives NaN; `lo > hi` gives `hi`.
            pub fn clip(&self, lo: T, hi: T) -> DynTensor<T> {
                self.map_shared(move |&x| crate::element::clip_numpy(x, lo, hi))
            }
        }
    };
}

crate::element::unary_functions!(dyn_unary);

#[cfg(test)]
mod tests {
    use super::DynTensor;
    use alloc::string::{String, ToString};
    use alloc::vec;

    /// The unary operations' results (written in place, then claimed): every element once,
    /// owned results dropped as usual (Miri checks both), empty and rank-0 tensors included.
    #[test]
    fn map_shared_writes_each_element_once() {
        let words = DynTensor::from_shape_vec([2, 2], vec!["a", "bb", "ccc", ""]).unwrap();
        let lengths = words.map_shared(|w| w.to_string() + "!");
        assert_eq!(lengths.shape(), [2, 2]);
        assert_eq!(lengths.as_slice(), ["a!", "bb!", "ccc!", "!"]);
        let empty = DynTensor::<f32>::from_shape_vec([3, 0], vec![]).unwrap();
        assert_eq!(empty.relu().shape(), [3, 0]);
        let scalar = DynTensor::scalar(-2.5f32);
        assert_eq!((-&scalar).as_slice(), [2.5]);
        assert_eq!(scalar.abs().shape(), [] as [usize; 0]);
        let x = DynTensor::from_shape_vec([4], vec![-1.0f32, -0.0, 0.5, f32::NAN]).unwrap();
        let y = x.clip(0.0, 0.25);
        assert_eq!(y.as_slice()[..3], [0.0, 0.0, 0.25]);
        assert!(y.as_slice()[3].is_nan());
        let strings: DynTensor<String> =
            DynTensor::scalar(String::from("x")).map_shared(|s| s.repeat(3));
        assert_eq!(strings.as_slice(), ["xxx"]);
    }
}
