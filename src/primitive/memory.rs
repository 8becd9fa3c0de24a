//! Memory descriptors of the binary primitive: dims, strides and a layout tag, over borrowed or
//! owned elements; the `any` destination rule (O5, A16).

use core::fmt;
use core::marker::PhantomData;

use super::blocked::Blocking;
#[cfg(feature = "alloc")]
use crate::error::OrPanic;
use crate::error::{Error, ErrorKind, Operation};
use crate::rules::{self, BINARY_MAX_NDIMS};
use crate::typed::rules::Unranked;
use crate::typed::shape::{Shape, StaticShape};
use crate::typed::storage::Data;
use crate::util::next_index;
#[cfg(feature = "alloc")]
use crate::DynTensor;
use crate::Tensor;

/// How a memory's dims map to offsets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// Plain row-major (`abcd`): the last dim is contiguous.
    RowMajor,
    /// Channels last (`acdb`, NHWC for rank 4): dim 1 is contiguous, the others follow in order.
    /// For ranks below 3 this is the same as [`Layout::RowMajor`].
    ChannelsLast,
    /// Any other strides, given explicitly.
    Strided,
    /// A blocked format (O7): oneDNN's `nChw16c`, `ABcd16a16b` and their kin. A dim that is
    /// not a multiple of its block is padded; the buffer holds [`Layout::buffer_len`]
    /// elements and the padding is never read or written.
    Blocked(Blocking),
    /// Destination only: let the primitive choose (O5). The layout of the source that is not
    /// broadcast, blocked ones included; `src0`'s when neither is (A16); row-major when both
    /// are.
    Any,
}

impl Layout {
    /// The elements a buffer in this layout needs for `shape`: the element count, or for a
    /// blocked layout the count with each blocked dim rounded up to its block. An error for
    /// [`Layout::Strided`] (its strides decide), a format that does not fit the rank, or a
    /// count that overflows.
    ///
    /// ```
    /// use shaped::primitive::{Blocking, Layout};
    /// assert_eq!(Layout::RowMajor.buffer_len([2, 20, 3, 3]).unwrap(), 360);
    /// let nchw8c = Layout::Blocked(Blocking::blocked::<1, 8>());
    /// assert_eq!(nchw8c.buffer_len([2, 20, 3, 3]).unwrap(), 432);
    /// ```
    pub fn buffer_len(self, shape: impl AsRef<[usize]>) -> Result<usize, Error> {
        let layout = if self == Layout::Any {
            Layout::RowMajor
        } else {
            self
        };
        Ok(Desc::dense::<u8>(shape.as_ref(), layout)?.required_len())
    }
}

/// Dims and strides, inline.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Desc {
    pub(crate) ndims: usize,
    pub(crate) dims: [usize; BINARY_MAX_NDIMS],
    pub(crate) strides: [usize; BINARY_MAX_NDIMS],
    pub(crate) layout: Layout,
}

impl fmt::Debug for Desc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.debug_as("Desc", f)
    }
}

fn layout_error(kind: ErrorKind, dims: &[usize], strides: &[usize]) -> Error {
    Error::new(kind, Operation::Layout, dims, strides)
}

/// Whether `elements` of `T` stay within `isize::MAX` bytes, like any Rust allocation.
fn fits_in_isize_bytes<T>(elements: usize) -> bool {
    elements
        .checked_mul(core::mem::size_of::<T>())
        .is_some_and(|bytes| bytes <= isize::MAX as usize)
}

impl Desc {
    pub(crate) fn dims(&self) -> &[usize] {
        &self.dims[..self.ndims]
    }

    pub(crate) fn strides(&self) -> &[usize] {
        &self.strides[..self.ndims]
    }

    /// The `Debug` output of a memory type named `name`: its dims, strides and layout.
    fn debug_as(&self, name: &str, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct(name)
            .field("shape", &self.dims())
            .field("strides", &self.strides())
            .field("layout", &self.layout)
            .finish()
    }

    fn empty(dims: &[usize], layout: Layout) -> Result<Self, Error> {
        let mut d = Desc {
            ndims: dims.len(),
            dims: [0; BINARY_MAX_NDIMS],
            strides: [0; BINARY_MAX_NDIMS],
            layout,
        };
        let max = BINARY_MAX_NDIMS;
        d.dims
            .get_mut(..dims.len())
            .ok_or_else(|| layout_error(ErrorKind::RankLimit { max }, dims, &[]))?
            .copy_from_slice(dims);
        Ok(d)
    }

    /// A dense descriptor: row-major or channels-last strides; `Any` keeps strides unset.
    pub(crate) fn dense<T>(dims: &[usize], layout: Layout) -> Result<Self, Error> {
        let mut d = Desc::empty(dims, layout)?;
        // The element count and the byte size (at most `isize::MAX`) must fit.
        if !rules::checked_element_count(dims).is_some_and(fits_in_isize_bytes::<T>) {
            return Err(layout_error(ErrorKind::Overflow, dims, &[]));
        }
        match layout {
            Layout::RowMajor | Layout::ChannelsLast => {
                let order = Order::of_layout(layout, d.ndims);
                d.fill_dense(&order);
            }
            Layout::Blocked(b) => d.fill_blocked::<T>(b)?,
            Layout::Any => {}
            Layout::Strided => {
                return Err(layout_error(ErrorKind::BadStrides, dims, &[]));
            }
        }
        Ok(d)
    }

    /// Strides for a blocked format: each dim's stride is that of its outer block index. The
    /// format is kept as given (`aBx16b` stays so, equal to what the caller holds); a format
    /// with no blocks in a plain order is stored as that plain layout.
    fn fill_blocked<T>(&mut self, b: Blocking) -> Result<(), Error> {
        let rank_error =
            || layout_error(ErrorKind::LayoutRank { rank: self.ndims }, self.dims(), &[]);
        let order = b.outer_order(self.ndims).ok_or_else(rank_error)?;
        if b.blocks().next().is_none() {
            for plain in [Layout::RowMajor, Layout::ChannelsLast] {
                if Order::of_layout(plain, self.ndims).axes[..self.ndims] == order[..self.ndims] {
                    self.layout = plain;
                    self.fill_dense(&Order::of_layout(plain, self.ndims));
                    return Ok(());
                }
            }
        }
        let mut step: usize = b.blocks().map(|(_, size)| size).product();
        let mut fits = true;
        for &axis in order[..self.ndims].iter().rev() {
            self.strides[axis] = step;
            let (block, _) = b.block_of(axis);
            let next = step.checked_mul(self.dims[axis].div_ceil(block));
            fits &= next.is_some();
            step = next.unwrap_or(0);
        }
        if !fits || !fits_in_isize_bytes::<T>(step) {
            return Err(layout_error(ErrorKind::Overflow, self.dims(), &[]));
        }
        self.layout = Layout::Blocked(b);
        Ok(())
    }

    /// The block of `dim` and the step between values inside it; `(1, 0)` unless blocked.
    pub(crate) fn block_of(&self, dim: usize) -> (usize, usize) {
        match self.layout {
            Layout::Blocked(b) => b.block_of(dim),
            _ => (1, 0),
        }
    }

    /// The elements a buffer needs: one past the largest offset, or for a blocked layout the
    /// whole padded count (0 when a dim is 0).
    pub(crate) fn required_len(&self) -> usize {
        match self.layout {
            Layout::Blocked(_) if !self.dims().contains(&0) => {
                // Checked when the descriptor was made.
                (0..self.ndims).fold(1usize, |acc, d| {
                    let (block, _) = self.block_of(d);
                    acc.saturating_mul(self.dims[d].div_ceil(block) * block)
                })
            }
            // Strides not chosen yet: a dense buffer of the element count (checked when made).
            Layout::Any => rules::checked_element_count(self.dims()).unwrap_or(usize::MAX),
            _ => self.span(),
        }
    }

    /// A descriptor with explicit strides, tagged with the dense layout they match, if any.
    pub(crate) fn strided<T>(dims: &[usize], strides: &[usize]) -> Result<Self, Error> {
        if strides.len() != dims.len() {
            return Err(layout_error(ErrorKind::BadStrides, dims, strides));
        }
        let mut d = Desc::empty(dims, Layout::Strided)?;
        d.strides[..d.ndims].copy_from_slice(strides);
        // The byte size of the addressed span must fit `isize`, like any Rust allocation.
        if !dims.contains(&0) {
            let span = rules::checked_last_offset(dims, strides).and_then(|l| l.checked_add(1));
            if !span.is_some_and(fits_in_isize_bytes::<T>) {
                return Err(layout_error(ErrorKind::Overflow, dims, strides));
            }
        }
        d.layout = d.dense_tag();
        Ok(d)
    }

    /// The dense layout whose strides these are, or [`Layout::Strided`].
    fn dense_tag(&self) -> Layout {
        [Layout::RowMajor, Layout::ChannelsLast]
            .into_iter()
            .find(|&layout| {
                let mut dense = *self;
                dense.fill_dense(&Order::of_layout(layout, self.ndims));
                dense.same_strides_where_it_matters(self)
            })
            .unwrap_or(Layout::Strided)
    }

    /// Equal strides on every dim above 1 (a size-1 dim's stride is never used).
    fn same_strides_where_it_matters(&self, other: &Desc) -> bool {
        (0..self.ndims).all(|i| self.dims[i] == 1 || self.strides[i] == other.strides[i])
    }

    /// Dense strides for the dims, outermost axis first in `order`.
    fn fill_dense(&mut self, order: &Order) {
        let mut step = 1usize;
        for &axis in order.axes[..self.ndims].iter().rev() {
            self.strides[axis] = step;
            // Cannot overflow: the element count was checked.
            step = step.saturating_mul(self.dims[axis]);
        }
    }

    /// One past the largest offset of a plain or strided layout (0 when empty).
    fn span(&self) -> usize {
        if self.dims().contains(&0) {
            return 0;
        }
        // Checked when the descriptor was made.
        self.dims()
            .iter()
            .zip(self.strides())
            .fold(1, |acc, (&n, &s)| acc + (n - 1) * s)
    }

    /// A dense buffer holds exactly the element count (the padded count when blocked).
    pub(crate) fn check_dense_len(&self, len: usize) -> Result<(), Error> {
        let expected = self.required_len();
        if expected != len {
            let kind = ErrorKind::LengthMismatch {
                expected,
                actual: len,
            };
            return Err(layout_error(kind, self.dims(), &[]));
        }
        Ok(())
    }

    /// Every offset the strides address lies inside a buffer of `len` elements.
    pub(crate) fn check_span(&self, len: usize) -> Result<(), Error> {
        if let Layout::Blocked(_) = self.layout {
            let expected = self.required_len();
            if expected > len {
                let kind = ErrorKind::LengthMismatch {
                    expected,
                    actual: len,
                };
                return Err(layout_error(kind, self.dims(), &[]));
            }
            return Ok(());
        }
        if self.span() > len {
            return Err(layout_error(
                ErrorKind::BadStrides,
                self.dims(),
                self.strides(),
            ));
        }
        Ok(())
    }

    /// A destination must not write one element twice: sorted by stride, each dim above 1
    /// steps past everything the inner ones cover.
    pub(crate) fn check_no_overlap(&self) -> Result<(), Error> {
        if self.layout != Layout::Strided || self.dims().contains(&0) {
            return Ok(());
        }
        let mut order = Order::by_strides(self);
        order.axes[..self.ndims].reverse();
        let mut covered = 0usize;
        for &axis in &order.axes[..self.ndims] {
            let (n, s) = (self.dims[axis], self.strides[axis]);
            if n == 1 {
                continue;
            }
            if s <= covered {
                return Err(layout_error(
                    ErrorKind::BadStrides,
                    self.dims(),
                    self.strides(),
                ));
            }
            // Fits: the span was checked.
            covered += s * (n - 1);
        }
        Ok(())
    }

    /// O5 and A16: the destination layout for `Layout::Any`.
    pub(crate) fn resolve_any(&mut self, src0: &Desc, src1: &Desc) {
        let like = if src0.dims() == self.dims() {
            Some(src0)
        } else if src1.dims() == self.dims() {
            Some(src1)
        } else {
            None
        };
        if let Some(&Desc {
            layout: Layout::Blocked(b),
            ..
        }) = like
        {
            // The source's format, spelled for this rank already: it fits.
            if self.fill_blocked::<u8>(b).is_ok() {
                return;
            }
        }
        let order = match like {
            Some(src) if src.layout == Layout::Strided => Order::by_strides(src),
            Some(src) => Order::of_layout(src.layout, self.ndims),
            None => Order::of_layout(Layout::RowMajor, self.ndims),
        };
        self.fill_dense(&order);
        self.layout = match like {
            Some(src) if src.layout != Layout::Strided => src.layout,
            Some(_) => self.dense_tag(),
            None => Layout::RowMajor,
        };
    }
}

/// Axes from outermost to innermost.
pub(crate) struct Order {
    pub(crate) axes: [usize; BINARY_MAX_NDIMS],
}

impl Order {
    fn of_layout(layout: Layout, ndims: usize) -> Order {
        let mut axes = [0; BINARY_MAX_NDIMS];
        for (i, a) in axes.iter_mut().enumerate() {
            *a = i;
        }
        if layout == Layout::ChannelsLast && ndims >= 3 {
            // a, c, d, ..., b
            axes[1..ndims].rotate_left(1);
        }
        Order { axes }
    }

    /// By decreasing stride; ties keep the dim order (stable).
    pub(crate) fn by_strides(d: &Desc) -> Order {
        Order {
            axes: axes_by_stride(d.strides()),
        }
    }
}

/// The axes of `strides` by decreasing stride, ties in dim order (stable), in the first
/// `strides.len()` slots (at most `N`).
pub(crate) fn axes_by_stride<const N: usize>(strides: &[usize]) -> [usize; N] {
    let mut axes = [0; N];
    for (i, a) in axes.iter_mut().enumerate() {
        *a = i;
    }
    // Insertion sort: a handful of axes.
    for i in 1..strides.len() {
        let mut j = i;
        while j > 0 && strides[axes[j - 1]] < strides[axes[j]] {
            axes.swap(j - 1, j);
            j -= 1;
        }
    }
    axes
}

/// A read-only source: borrowed elements with dims and a layout.
///
/// ```
/// use shaped::primitive::{Layout, MemRef};
/// let data = [0.0f32; 24];
/// // NHWC elements of an NCHW tensor [1, 3, 2, 4].
/// let m = MemRef::new([1, 3, 2, 4], &data, Layout::ChannelsLast).unwrap();
/// assert_eq!(m.strides(), [24, 1, 12, 3]);
/// // A transposed [4, 6] view of the same buffer.
/// let t = MemRef::with_strides([4, 6], [1, 4], &data).unwrap();
/// assert_eq!(t.layout(), Layout::Strided);
/// assert!(MemRef::new([5, 5], &data, Layout::RowMajor).is_err());
/// ```
pub struct MemRef<'a, T> {
    pub(crate) data: &'a [T],
    pub(crate) desc: Desc,
}

impl<T> Clone for MemRef<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for MemRef<'_, T> {}

impl<T> fmt::Debug for MemRef<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.desc.debug_as("MemRef", f)
    }
}

impl<'a, T> MemRef<'a, T> {
    /// Elements in a dense layout ([`Layout::RowMajor`] or [`Layout::ChannelsLast`]);
    /// `data.len()` must be the element count. A source cannot be [`Layout::Any`].
    pub fn new(shape: impl AsRef<[usize]>, data: &'a [T], layout: Layout) -> Result<Self, Error> {
        let dims = shape.as_ref();
        if layout == Layout::Any {
            return Err(Error::new(
                ErrorKind::AnySource,
                Operation::Binary,
                dims,
                &[],
            ));
        }
        let desc = Desc::dense::<T>(dims, layout)?;
        desc.check_dense_len(data.len())?;
        Ok(MemRef { data, desc })
    }

    /// Elements at explicit strides (in elements; 0 allowed for a source). Every addressed
    /// offset must lie inside `data`. Strides that match a dense layout are tagged with it.
    pub fn with_strides(
        shape: impl AsRef<[usize]>,
        strides: impl AsRef<[usize]>,
        data: &'a [T],
    ) -> Result<Self, Error> {
        let desc = Desc::strided::<T>(shape.as_ref(), strides.as_ref())?;
        desc.check_span(data.len())?;
        Ok(MemRef { data, desc })
    }

    /// The dims.
    pub fn shape(&self) -> &[usize] {
        self.desc.dims()
    }

    /// The strides, in elements; for a blocked layout, each dim's outer block stride.
    pub fn strides(&self) -> &[usize] {
        self.desc.strides()
    }

    /// The layout.
    pub fn layout(&self) -> Layout {
        self.desc.layout
    }

    /// The element at a multi-index, `None` when out of range.
    pub fn get(&self, index: &[usize]) -> Option<&'a T> {
        offset(&self.desc, index).and_then(|o| self.data.get(o))
    }
}

/// Copies `src` into `dst` element by element, whatever their layouts (oneDNN's reorder): a
/// plain tensor into a blocked format and back. The shapes must be equal; the padding of a
/// blocked destination is not written. A [`Layout::Any`] destination takes `src`'s layout.
///
/// ```
/// use shaped::primitive::{reorder, Blocking, Layout, MemMut, MemRef};
/// let plain: Vec<f32> = (0..12).map(|i| i as f32).collect();
/// let src = MemRef::new([1, 3, 2, 2], &plain, Layout::RowMajor).unwrap();
/// let nchw2c = Layout::Blocked(Blocking::blocked::<1, 2>());
/// let mut buf = vec![-1.0f32; nchw2c.buffer_len([1, 3, 2, 2]).unwrap()];
/// reorder(&src, &mut MemMut::new([1, 3, 2, 2], &mut buf, nchw2c).unwrap()).unwrap();
/// // Channels 0 and 1 interleaved, then channel 2 beside the padding.
/// assert_eq!(buf, [0.0, 4.0, 1.0, 5.0, 2.0, 6.0, 3.0, 7.0, 8.0, -1.0, 9.0, -1.0, 10.0, -1.0, 11.0, -1.0]);
/// ```
pub fn reorder<T: Copy>(src: &MemRef<'_, T>, dst: &mut MemMut<'_, T>) -> Result<(), Error> {
    let dims = src.shape();
    if dims != dst.shape() {
        let kind = ErrorKind::ShapeMismatch;
        return Err(Error::new(kind, Operation::Layout, dims, dst.shape()));
    }
    if dst.desc.layout == Layout::Any {
        let like = src.desc;
        dst.desc.resolve_any(&like, &like);
    }
    dst.desc.check_span(dst.data.len())?;
    if dims.contains(&0) {
        return Ok(());
    }
    let mut index = [0usize; BINARY_MAX_NDIMS];
    let index = &mut index[..dims.len()];
    loop {
        // Both descriptors were checked against their buffers: every index has an offset.
        if let (Some(from), Some(to)) = (offset(&src.desc, index), offset(&dst.desc, index)) {
            if let (Some(&x), Some(slot)) = (src.data.get(from), dst.data.get_mut(to)) {
                *slot = x;
            }
        }
        if !next_index(index, dims) {
            return Ok(());
        }
    }
}

fn offset(desc: &Desc, index: &[usize]) -> Option<usize> {
    if index.len() != desc.ndims {
        return None;
    }
    let mut off = 0;
    for (d, ((&i, &n), &s)) in index
        .iter()
        .zip(desc.dims())
        .zip(desc.strides())
        .enumerate()
    {
        if i >= n {
            return None;
        }
        // A blocked dim: the block's stride, then the place inside the block.
        let (block, inner) = desc.block_of(d);
        off += i / block * s + i % block * inner;
    }
    Some(off)
}

/// A destination: borrowed, writable elements with dims and a layout, which may be
/// [`Layout::Any`] until the primitive runs.
///
/// ```
/// use shaped::primitive::{Layout, MemMut};
/// let mut buf = [0.0f32; 6];
/// let d = MemMut::any([2, 3], &mut buf).unwrap();
/// assert_eq!(d.layout(), Layout::Any);
/// ```
pub struct MemMut<'a, T> {
    pub(crate) data: &'a mut [T],
    pub(crate) desc: Desc,
}

impl<T> fmt::Debug for MemMut<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.desc.debug_as("MemMut", f)
    }
}

impl<'a, T> MemMut<'a, T> {
    /// A destination in a dense layout, or [`Layout::Any`]; `data.len()` must be the element
    /// count.
    pub fn new(
        shape: impl AsRef<[usize]>,
        data: &'a mut [T],
        layout: Layout,
    ) -> Result<Self, Error> {
        let desc = Desc::dense::<T>(shape.as_ref(), layout)?;
        desc.check_dense_len(data.len())?;
        Ok(MemMut { data, desc })
    }

    /// A destination whose layout the primitive chooses (O5).
    pub fn any(shape: impl AsRef<[usize]>, data: &'a mut [T]) -> Result<Self, Error> {
        MemMut::new(shape, data, Layout::Any)
    }

    /// A destination at explicit strides: addressed offsets inside `data`, and no element
    /// addressed twice.
    pub fn with_strides(
        shape: impl AsRef<[usize]>,
        strides: impl AsRef<[usize]>,
        data: &'a mut [T],
    ) -> Result<Self, Error> {
        let desc = Desc::strided::<T>(shape.as_ref(), strides.as_ref())?;
        desc.check_span(data.len())?;
        desc.check_no_overlap()?;
        Ok(MemMut { data, desc })
    }

    /// The dims.
    pub fn shape(&self) -> &[usize] {
        self.desc.dims()
    }

    /// The strides, in elements (all 0 while the layout is [`Layout::Any`]).
    pub fn strides(&self) -> &[usize] {
        self.desc.strides()
    }

    /// The layout; after a run, the one chosen for [`Layout::Any`].
    pub fn layout(&self) -> Layout {
        self.desc.layout
    }

    /// The element at a multi-index, `None` when out of range or still [`Layout::Any`].
    pub fn get(&self, index: &[usize]) -> Option<&T> {
        if self.desc.layout == Layout::Any {
            return None;
        }
        offset(&self.desc, index).and_then(|o| self.data.get(o))
    }

    /// The element at a multi-index, mutably; `None` when out of range or still
    /// [`Layout::Any`].
    pub fn get_mut(&mut self, index: &[usize]) -> Option<&mut T> {
        if self.desc.layout == Layout::Any {
            return None;
        }
        offset(&self.desc, index).and_then(|o| self.data.get_mut(o))
    }

    /// A read-only view, to feed this destination to another primitive.
    pub fn as_ref(&self) -> MemRef<'_, T> {
        MemRef {
            data: self.data,
            desc: self.desc,
        }
    }
}

/// An owned result of [`Binary::run`](crate::primitive::Binary::run): elements in the layout the
/// primitive chose or was told.
#[cfg(feature = "alloc")]
#[derive(Clone, PartialEq)]
pub struct Memory<T> {
    pub(crate) data: alloc::vec::Vec<T>,
    pub(crate) desc: Desc,
}

#[cfg(feature = "alloc")]
impl<T> Memory<T> {
    /// The dims.
    pub fn shape(&self) -> &[usize] {
        self.desc.dims()
    }

    /// The strides, in elements; for a blocked layout, each dim's outer block stride.
    pub fn strides(&self) -> &[usize] {
        self.desc.strides()
    }

    /// The layout.
    pub fn layout(&self) -> Layout {
        self.desc.layout
    }

    /// The elements in memory order.
    pub fn as_slice(&self) -> &[T] {
        &self.data
    }

    /// The element at a multi-index, `None` when out of range.
    pub fn get(&self, index: &[usize]) -> Option<&T> {
        offset(&self.desc, index).and_then(|o| self.data.get(o))
    }

    /// A read-only view, to feed this result to another primitive.
    pub fn as_ref(&self) -> MemRef<'_, T> {
        MemRef {
            data: &self.data,
            desc: self.desc,
        }
    }

    /// The elements copied in row-major order, as a [`DynTensor`]. **Panics** with the
    /// error's message when the allocator refuses the copy;
    /// [`try_to_row_major`](Self::try_to_row_major) returns it.
    pub fn to_row_major(&self) -> DynTensor<T>
    where
        T: Clone,
    {
        self.try_to_row_major().or_panic()
    }

    /// The elements copied in row-major order, as a [`DynTensor`], or
    /// [`ErrorKind::OutOfMemory`](crate::ErrorKind::OutOfMemory) when the allocator refuses
    /// the copy.
    pub fn try_to_row_major(&self) -> Result<DynTensor<T>, Error>
    where
        T: Clone,
    {
        let dims = self.shape();
        // At most the buffer's length (the descriptor was checked against the buffer when
        // the primitive made it), so never `None`; but no arithmetic is trusted blindly.
        let count = rules::checked_element_count(dims)
            .ok_or_else(|| Error::new(ErrorKind::Overflow, Operation::Layout, dims, &[]))?;
        let mut out = crate::runtime::try_vec(count, dims)?;
        if !dims.contains(&0) {
            let mut index = [0usize; BINARY_MAX_NDIMS];
            let index = &mut index[..dims.len()];
            loop {
                // Every index inside the dims has an offset inside the buffer (the check
                // above): `get` cannot return `None` here.
                out.push(self.get(index).expect("index in range").clone());
                if !next_index(index, dims) {
                    break;
                }
            }
        }
        Ok(DynTensor::from_parts(dims, out))
    }
}

#[cfg(feature = "alloc")]
impl<T: fmt::Debug> fmt::Debug for Memory<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Memory")
            .field("shape", &self.shape())
            .field("layout", &self.layout())
            .field("data", &self.data)
            .finish()
    }
}

/// Shown row-major, whatever the layout, like a [`DynTensor`](crate::DynTensor).
#[cfg(feature = "alloc")]
impl<T: Clone + fmt::Display> fmt::Display for Memory<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.to_row_major(), f)
    }
}

/// A [`MemRef`] or [`MemMut`] whose dims are the static shape `S`, checked once when made
/// (`into_static`): every shape rule of a run against it is then checked at compile time
/// ([`Binary::apply_mem`](crate::primitive::Binary::apply_mem)), in any layout, blocked
/// formats included.
///
/// ```
/// use shaped::primitive::{Alg, Binary, Blocking, Layout, MemMut, MemRef};
/// use shaped::{Shape, Tensor};
/// let nchw4c = Layout::Blocked(Blocking::blocked::<1, 4>());
/// let data = vec![1.0f32; nchw4c.buffer_len([1, 6, 2, 2]).unwrap()];
/// let x = MemRef::new([1, 6, 2, 2], &data, nchw4c)?.into_static::<Shape![1, 6, 2, 2]>()?;
/// let bias = Tensor::<f32, Shape![1, 6, 1, 1]>::from_fn(|i| i[1] as f32);
/// let mut out = vec![0.0f32; data.len()];
/// let mut dst = MemMut::new([1, 6, 2, 2], &mut out, nchw4c)?.into_static::<Shape![1, 6, 2, 2]>()?;
/// Binary::<f32>::new(Alg::Add).apply_mem(&x, &bias, &mut dst)?;
/// assert_eq!(dst.inner().get(&[0, 5, 1, 1]), Some(&6.0));
/// # Ok::<(), shaped::Error>(())
/// ```
///
/// A bias of the wrong shape does not compile:
///
/// ```compile_fail
/// use shaped::primitive::{Alg, Binary, Layout, MemMut, MemRef};
/// use shaped::{Shape, Tensor};
/// let data = [0.0f32; 24];
/// let x = MemRef::new([1, 6, 2, 2], &data, Layout::RowMajor).unwrap().into_static::<Shape![1, 6, 2, 2]>().unwrap();
/// let bias = Tensor::<f32, Shape![1, 5, 1, 1]>::default();
/// let mut out = [0.0f32; 24];
/// let mut dst = MemMut::new([1, 6, 2, 2], &mut out, Layout::RowMajor).unwrap().into_static::<Shape![1, 6, 2, 2]>().unwrap();
/// Binary::<f32>::new(Alg::Add).apply_mem(&x, &bias, &mut dst).unwrap();
/// ```
pub struct StaticMem<M, S> {
    pub(crate) mem: M,
    shape: PhantomData<fn() -> S>,
}

impl<M: fmt::Debug, S> fmt::Debug for StaticMem<M, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.mem.fmt(f)
    }
}

impl<M, S> StaticMem<M, S> {
    /// The memory.
    pub fn inner(&self) -> &M {
        &self.mem
    }

    /// The memory, its static shape given up.
    pub fn into_inner(self) -> M {
        self.mem
    }
}

/// The memory's dims must be `S`'s.
fn static_mem<M, S: StaticShape>(mem: M, dims: &[usize]) -> Result<StaticMem<M, S>, Error> {
    if dims != S::DIMS {
        return Err(Error::new(
            ErrorKind::ShapeMismatch,
            Operation::ToStatic,
            dims,
            S::DIMS,
        ));
    }
    Ok(StaticMem {
        mem,
        shape: PhantomData,
    })
}

impl<'a, T> MemRef<'a, T> {
    /// This memory with the static shape `S`, for runs checked at compile time
    /// ([`StaticMem`]); [`ErrorKind::ShapeMismatch`] when its dims are not `S`'s.
    pub fn into_static<S: StaticShape>(self) -> Result<StaticMem<MemRef<'a, T>, S>, Error> {
        let dims = self.desc;
        static_mem(self, dims.dims())
    }
}

impl<'a, T> MemMut<'a, T> {
    /// This memory with the static shape `S`, for runs checked at compile time
    /// ([`StaticMem`]); [`ErrorKind::ShapeMismatch`] when its dims are not `S`'s.
    pub fn into_static<S: StaticShape>(self) -> Result<StaticMem<MemMut<'a, T>, S>, Error> {
        let dims = self.desc;
        static_mem(self, dims.dims())
    }
}

impl<T, S> Source<T> for StaticMem<MemRef<'_, T>, S> {
    type Shape = S;
    fn mem(&self) -> Result<MemRef<'_, T>, Error> {
        Ok(self.mem)
    }
}

/// Anything the binary primitive reads: tensors, views, [`MemRef`], and with `alloc`
/// `Memory` and `DynTensor`.
pub trait Source<T> {
    /// The type-level shape that static post-op checks use ([`Unranked`] when there is none).
    type Shape;
    /// The elements with their dims and layout.
    fn mem(&self) -> Result<MemRef<'_, T>, Error>;
}

impl<T> Source<T> for MemRef<'_, T> {
    type Shape = Unranked;
    fn mem(&self) -> Result<MemRef<'_, T>, Error> {
        Ok(*self)
    }
}

#[cfg(feature = "alloc")]
impl<T> Source<T> for Memory<T> {
    type Shape = Unranked;
    fn mem(&self) -> Result<MemRef<'_, T>, Error> {
        Ok(self.as_ref())
    }
}

#[cfg(feature = "alloc")]
impl<T> Source<T> for DynTensor<T> {
    type Shape = Unranked;
    fn mem(&self) -> Result<MemRef<'_, T>, Error> {
        MemRef::new(self.shape(), self.as_slice(), Layout::RowMajor)
    }
}

/// A strided view is a source like a tensor; its strides become the source's (no copy).
#[cfg(feature = "alloc")]
impl<T> Source<T> for crate::runtime::DynView<'_, T> {
    type Shape = Unranked;
    fn mem(&self) -> Result<MemRef<'_, T>, Error> {
        let (data, shape, strides) = self.parts();
        MemRef::with_strides(shape, strides, data)
    }
}

impl<T, S: Shape, D: Data<T>> Source<T> for Tensor<T, S, D> {
    type Shape = S;
    fn mem(&self) -> Result<MemRef<'_, T>, Error> {
        MemRef::new(self.shape(), self.as_slice(), Layout::RowMajor)
    }
}

#[cfg(feature = "alloc")]
impl<'a, T> TryFrom<&'a mut DynTensor<T>> for MemMut<'a, T> {
    type Error = Error;
    /// A row-major destination over the tensor's elements (an error above rank 12).
    fn try_from(t: &'a mut DynTensor<T>) -> Result<Self, Error> {
        let (dims, data) = t.parts_mut();
        MemMut::new(dims, data, Layout::RowMajor)
    }
}
