//! The oneDNN-style binary primitive (rules section 5): `dst = src0 (alg) src1`, where either
//! source may broadcast (O1-O3), followed by a chain of fused post-ops (eltwise, sum, binary
//! with its own operand, O4), over row-major, channels-last or strided memory with the `any`
//! destination rule (O5, A16). One pass over the data, no temporary tensor.
//!
//! ```
//! # #[cfg(feature = "std")] {
//! use shaped::primitive::{Alg, Binary, Eltwise, Layout, MemMut, MemRef, PostOp};
//! use shaped::DynTensor;
//! // NCHW [1, 2, 2, 2] data, a per-channel bias and a per-channel scale.
//! let x = DynTensor::from_shape_vec([1, 2, 2, 2], vec![-3.0f32, -1.0, 1.0, 3.0, -2.0, 0.0, 2.0, 4.0]).unwrap();
//! let bias = DynTensor::from_shape_vec([1, 2, 1, 1], vec![1.0f32, -1.0]).unwrap();
//! let scale = DynTensor::from_shape_vec([1, 2, 1, 1], vec![10.0f32, 100.0]).unwrap();
//! let prim = Binary::new(Alg::Add)
//!     .post_op(PostOp::Eltwise(Eltwise::Relu))
//!     .post_op(PostOp::binary(Alg::Mul, &scale));
//! let y = prim.run(&x, &bias).unwrap();
//! assert_eq!(y.shape(), [1, 2, 2, 2]);
//! assert_eq!(y.as_slice(), [0.0, 0.0, 20.0, 40.0, 0.0, 0.0, 100.0, 300.0]);
//!
//! // No allocation: the caller's buffer, its layout chosen by the primitive (O5).
//! let mut buf = [0.0f32; 8];
//! let mut dst = MemMut::any([1, 2, 2, 2], &mut buf).unwrap();
//! prim.run_into(&x, &bias, &mut dst).unwrap();
//! assert_eq!(dst.layout(), Layout::RowMajor);
//! # }
//! ```
//!
//! A post-op operand that would grow the destination is an error (O4):
//!
//! ```
//! # #[cfg(feature = "std")] {
//! use shaped::primitive::{Alg, Binary, PostOp};
//! use shaped::DynTensor;
//! let a = DynTensor::from_shape_vec([1, 3], vec![1.0f32, 2.0, 3.0]).unwrap();
//! let big = DynTensor::from_shape_vec([2, 3], vec![0.0f32; 6]).unwrap();
//! let err = Binary::new(Alg::Add).post_op(PostOp::binary(Alg::Mul, &big)).run(&a, &a).unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "cannot broadcast [2, 3] with [1, 3] (binary post-op 0): axis 0 has 2 vs 1; \
//!      a post-op operand dim must be 1 or the destination's (O4)"
//! );
//! # }
//! ```
//!
//! oneDNN's binary `select` algorithm (a third source, the condition) is not an `Alg` here:
//! every algorithm and post-op of this primitive is a function of two values computed in the
//! compute type, and the fused kernels walk exactly two sources and the destination, so a
//! condition source would be a third walk in every kernel and a `bool` beside the float data.
//! Selection is the runtime's [`select_into`](crate::runtime::select_into) and
//! `DynTensor::select` (W2, oneDNN's and OpenVINO's rule: the two values broadcast to each
//! other, the condition one way onto that), which read strided sources in place as the
//! primitive does.

mod blocked;
mod element;
mod fused;
mod memory;
mod quantized;

use core::marker::PhantomData;

pub use crate::element::Real;
pub use crate::typed::rules::{Cons, Nil, RuntimeChecked, Unranked};
pub use blocked::{Blocking, MAX_BLOCK, MAX_BLOCKS};
pub use element::{Alg, DataType, Eltwise};
#[cfg(feature = "alloc")]
pub use memory::Memory;
pub use memory::{reorder, Layout, MemMut, MemRef, Source, StaticMem};

use crate::error::{Error, ErrorKind, Operation};
use crate::rules::{self, ShapeBuf};
use crate::tensor::{OwnedIn, Tensor};
use crate::typed::rules::{
    BinaryDst, BinaryOutput, BinaryShape, DstShape, InPlaceShape, PostOpShapes,
};
use crate::typed::shape::StaticShape;
use crate::typed::storage::{fits_inline, Data, DataMut, Family};

/// The largest rank the primitive takes (oneDNN's `DNNL_MAX_NDIMS`).
pub const MAX_NDIMS: usize = rules::BINARY_MAX_NDIMS;
use fused::{Job, Step};
use memory::Desc;

/// The most post-ops one primitive takes.
pub const MAX_POST_OPS: usize = 8;

/// A post-op: applied in order to each destination value, in the same pass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PostOp {
    /// An eltwise function of the value.
    Eltwise(Eltwise),
    /// `value + scale * (the destination's value before the run)`: accumulation. With
    /// `Binary::run` and [`Binary::apply`] the destination is new and starts at zero, so
    /// this adds nothing there; accumulate with `run_into` or `apply_into`.
    Sum {
        /// The factor on the old destination value.
        scale: f32,
    },
}

impl PostOp {
    /// A binary post-op: `value (alg) operand`. The operand may broadcast (each dim 1 or the
    /// destination's) but never grows the destination (O4).
    pub fn binary<X: ?Sized>(alg: Alg, operand: &X) -> BinaryPostOp<'_, X> {
        BinaryPostOp { alg, operand }
    }
}

/// A binary post-op and its operand; made by [`PostOp::binary`].
#[derive(Debug)]
pub struct BinaryPostOp<'a, X: ?Sized> {
    alg: Alg,
    operand: &'a X,
}

impl<X: ?Sized> Clone for BinaryPostOp<'_, X> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<X: ?Sized> Copy for BinaryPostOp<'_, X> {}

mod sealed {
    use super::{Alg, Eltwise, MemRef};
    use crate::error::Error;

    /// A stored post-op.
    pub enum Slot<'a, T> {
        Empty,
        Eltwise(Eltwise),
        Sum(f32),
        Binary(Alg, MemRef<'a, T>),
        /// An operand that could not be described (its error is reported by the run).
        Invalid(Error),
    }

    impl<T> Clone for Slot<'_, T> {
        fn clone(&self) -> Self {
            *self
        }
    }
    impl<T> Copy for Slot<'_, T> {}
}
use sealed::Slot;

/// Something [`Binary::post_op`] accepts: a [`PostOp`], an [`Eltwise`] or a [`BinaryPostOp`].
/// `List` records binary operands' static shapes, so [`Binary::apply`] can check them at
/// compile time.
pub trait IntoPostOp<'a, T, P> {
    /// The list of operand shapes after this post-op.
    type List;
    #[doc(hidden)]
    fn into_slot(self) -> Slot<'a, T>;
}

impl<'a, T, P> IntoPostOp<'a, T, P> for PostOp {
    type List = P;
    fn into_slot(self) -> Slot<'a, T> {
        match self {
            PostOp::Eltwise(e) => Slot::Eltwise(e),
            PostOp::Sum { scale } => Slot::Sum(scale),
        }
    }
}

impl<'a, T, P> IntoPostOp<'a, T, P> for Eltwise {
    type List = P;
    fn into_slot(self) -> Slot<'a, T> {
        Slot::Eltwise(self)
    }
}

impl<'a, T, P, X: Source<T> + ?Sized> IntoPostOp<'a, T, P> for BinaryPostOp<'a, X> {
    type List = Cons<X::Shape, P>;
    fn into_slot(self) -> Slot<'a, T> {
        match self.operand.mem() {
            Ok(m) => Slot::Binary(self.alg, m),
            Err(e) => Slot::Invalid(e),
        }
    }
}

/// A source with a static shape, for [`Binary::apply`]: a static tensor or view.
pub trait StaticSource<T>: Source<T, Shape = <Self as StaticSource<T>>::StaticShape> {
    /// The shape (the same type as `Source::Shape`).
    type StaticShape: StaticShape;
    /// Where a result computed from it is stored.
    type Family: Family;
}

impl<T, S: StaticShape, D: Data<T>> StaticSource<T> for Tensor<T, S, D> {
    type StaticShape = S;
    type Family = D::Family;
}

/// The static shape of a [`StaticSource`].
pub type ShapeOf<A, T> = <A as StaticSource<T>>::StaticShape;

/// The tensor [`Binary::apply`] returns for sources `A` and `B`.
pub type StaticOutput<A, B, T> = OwnedIn<
    <<A as StaticSource<T>>::Family as Family>::Join<<B as StaticSource<T>>::Family>,
    T,
    BinaryOutput<<A as StaticSource<T>>::StaticShape, <B as StaticSource<T>>::StaticShape>,
>;

/// The binary primitive: an algorithm, optional source scales, and up to [`MAX_POST_OPS`]
/// post-ops. Build it once, run it on many inputs.
///
/// `P` lists the static shapes of the binary post-ops' operands (see [`IntoPostOp`]).
pub struct Binary<'a, T, P = Nil> {
    alg: Alg,
    scales: [f32; 2],
    slots: [Slot<'a, T>; MAX_POST_OPS],
    len: usize,
    too_many: bool,
    dst_layout: Layout,
    list: PhantomData<fn() -> P>,
}

impl<T, P> Clone for Binary<'_, T, P> {
    fn clone(&self) -> Self {
        Binary {
            list: PhantomData,
            ..*self
        }
    }
}

impl<T, P> core::fmt::Debug for Binary<'_, T, P> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Binary")
            .field("alg", &self.alg)
            .field("scales", &self.scales)
            .field("post_ops", &self.len)
            .field("dst_layout", &self.dst_layout)
            .finish()
    }
}

impl<'a, T: Real> Binary<'a, T, Nil> {
    /// A primitive computing `src0 (alg) src1`, with no post-ops.
    pub fn new(alg: Alg) -> Self {
        Binary {
            alg,
            scales: [1.0; 2],
            slots: [Slot::Empty; MAX_POST_OPS],
            len: 0,
            too_many: false,
            dst_layout: Layout::Any,
            list: PhantomData,
        }
    }
}

impl<'a, T: Real, P> Binary<'a, T, P> {
    /// Scales applied to the sources first: `dst = (src0_scale * src0) (alg) (src1_scale * src1)`.
    ///
    /// ```
    /// # #[cfg(feature = "std")] {
    /// use shaped::primitive::{Alg, Binary};
    /// use shaped::DynTensor;
    /// let a = DynTensor::from_shape_vec([2], vec![1.0f32, 2.0]).unwrap();
    /// let b = DynTensor::from_shape_vec([1], vec![10.0f32]).unwrap();
    /// let d = Binary::new(Alg::Sub).scales(3.0, 0.5).run(&a, &b).unwrap();
    /// assert_eq!(d.as_slice(), [-2.0, 1.0]);
    /// # }
    /// ```
    pub fn scales(mut self, src0: f32, src1: f32) -> Self {
        self.scales = [src0, src1];
        self
    }

    /// The destination layout for `Binary::run`; [`Layout::Any`] (the default) follows O5.
    /// [`Layout::Strided`] has no strides to follow and makes `run` fail.
    pub fn dst_layout(mut self, layout: Layout) -> Self {
        self.dst_layout = layout;
        self
    }

    /// Appends a post-op. Past [`MAX_POST_OPS`] the runs return
    /// [`ErrorKind::TooManyPostOps`].
    pub fn post_op<O: IntoPostOp<'a, T, P>>(self, op: O) -> Binary<'a, T, O::List> {
        let mut next = self.with_list();
        next.push_slot(op.into_slot());
        next
    }

    /// The same primitive with its post-op operands checked at run time only, so that
    /// [`push_post_op`](Binary::push_post_op) can extend it in a loop.
    pub fn runtime_checked(self) -> Binary<'a, T, RuntimeChecked> {
        self.with_list()
    }

    /// The same primitive with another list of operand shapes (a type change only).
    fn with_list<Q>(self) -> Binary<'a, T, Q> {
        Binary {
            alg: self.alg,
            scales: self.scales,
            slots: self.slots,
            len: self.len,
            too_many: self.too_many,
            dst_layout: self.dst_layout,
            list: PhantomData,
        }
    }

    /// Stores a post-op, or records that there were too many.
    fn push_slot(&mut self, slot: Slot<'a, T>) {
        match self.slots.get_mut(self.len) {
            Some(free) => {
                *free = slot;
                self.len += 1;
            }
            None => self.too_many = true,
        }
    }

    /// The algorithm.
    pub fn alg(&self) -> Alg {
        self.alg
    }

    /// The number of post-ops.
    pub fn post_op_count(&self) -> usize {
        self.len
    }

    /// The descriptor of a new destination for these sources: [`Binary::dst_layout`], with
    /// `any` resolved (O5), so that its buffer can be sized (a blocked layout is padded).
    pub(crate) fn new_dst<D>(&self, a: &Desc, b: &Desc) -> Result<Desc, Error> {
        let dims = rules::binary_dst_shape(a.dims(), b.dims())?;
        let mut desc = Desc::dense::<D>(&dims, self.dst_layout)?;
        if desc.layout == Layout::Any {
            desc.resolve_any(a, b);
        }
        // The padded count of a blocked `any` choice in bytes fits, as for any allocation.
        let bytes = desc.required_len().checked_mul(core::mem::size_of::<D>());
        if bytes.is_none_or(|b| b > isize::MAX as usize) {
            return Err(Error::new(
                ErrorKind::Overflow,
                Operation::Layout,
                &dims,
                &[],
            ));
        }
        Ok(desc)
    }

    /// The layout `run` gives a destination for these sources ([`Binary::dst_layout`], or O5's
    /// choice), and the elements its buffer needs: to size a buffer for
    /// [`run_into`](Binary::run_into) when the choice may be a padded blocked layout.
    ///
    /// ```
    /// use shaped::primitive::{Alg, Binary, Blocking, Layout, MemRef};
    /// let nchw16c = Layout::Blocked(Blocking::blocked::<1, 16>());
    /// let x = vec![0.0f32; nchw16c.buffer_len([1, 20, 2, 2]).unwrap()];
    /// let bias = [0.0f32; 20];
    /// let src0 = MemRef::new([1, 20, 2, 2], &x, nchw16c).unwrap();
    /// let src1 = MemRef::new([1, 20, 1, 1], &bias, Layout::RowMajor).unwrap();
    /// let (layout, len) = Binary::<f32>::new(Alg::Add).dst_for(&src0, &src1).unwrap();
    /// assert_eq!(layout, nchw16c);
    /// assert_eq!(len, 128);
    /// ```
    ///
    /// The sources may be of other data types than the primitive's (O9), as for
    /// [`run_mixed_into`](Binary::run_mixed_into): only their shapes and layouts count.
    pub fn dst_for<XA, XB>(
        &self,
        src0: &(impl Source<XA> + ?Sized),
        src1: &(impl Source<XB> + ?Sized),
    ) -> Result<(Layout, usize), Error> {
        let (a, b) = (src0.mem()?, src1.mem()?);
        let desc = self.new_dst::<T>(&a.desc, &b.desc)?;
        Ok((desc.layout, desc.required_len()))
    }

    /// The destination shape for sources of these shapes (O1-O3).
    pub fn dst_shape(&self, src0: &[usize], src1: &[usize]) -> Result<ShapeBuf<MAX_NDIMS>, Error> {
        rules::binary_dst_shape(src0, src1)
    }

    /// Runs into a new destination in [`Binary::dst_layout`] (O5 by default).
    #[cfg(feature = "alloc")]
    pub fn run<A, B>(&self, src0: &A, src1: &B) -> Result<Memory<T>, Error>
    where
        A: Source<T> + ?Sized,
        B: Source<T> + ?Sized,
    {
        let (a, b) = (src0.mem()?, src1.mem()?);
        let mut desc = self.new_dst::<T>(&a.desc, &b.desc)?;
        let count = desc.required_len();
        let mut data = crate::runtime::try_filled(count, T::ZERO, desc.dims())?;
        self.execute(a, b, &mut data, &mut desc)?;
        Ok(Memory { data, desc })
    }

    /// Runs into the caller's destination, with no allocation. A [`Layout::Any`] destination
    /// takes its layout from O5; [`MemMut::layout`] reports the choice afterwards.
    pub fn run_into<A, B>(&self, src0: &A, src1: &B, dst: &mut MemMut<'_, T>) -> Result<(), Error>
    where
        A: Source<T> + ?Sized,
        B: Source<T> + ?Sized,
    {
        let (a, b) = (src0.mem()?, src1.mem()?);
        self.execute(a, b, dst.data, &mut dst.desc)
    }

    /// Runs in place (O8): `src0_dst` is src0 and the destination, oneDNN's `--inplace=true`
    /// (the destination's memory descriptor is src0's). src1 broadcasts onto it one way; it
    /// may not change its shape. Every value of src0 is read before its place is written,
    /// so the result equals an out-of-place run's; a `Sum` post-op reads src0's values.
    ///
    /// ```
    /// use shaped::primitive::{Alg, Binary, Eltwise, Layout, MemMut, MemRef};
    /// let mut x = [1.0f32, -2.0, 3.0, -4.0, 5.0, -6.0];
    /// let bias = [10.0f32, 20.0, 30.0];
    /// let b = MemRef::new([1, 3], &bias, Layout::RowMajor)?;
    /// let mut x_mem = MemMut::new([2, 3], &mut x, Layout::RowMajor)?;
    /// Binary::new(Alg::Sub).post_op(Eltwise::Relu).run_in_place(&mut x_mem, &b)?;
    /// assert_eq!(x, [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
    /// // src1 may not grow the destination.
    /// let mut y = [1.0f32; 3];
    /// let mut y_mem = MemMut::new([1, 3], &mut y, Layout::RowMajor)?;
    /// let two_rows = MemRef::new([2, 3], &x, Layout::RowMajor)?;
    /// assert_eq!(
    ///     Binary::new(Alg::Add).run_in_place(&mut y_mem, &two_rows).unwrap_err().to_string(),
    ///     "cannot broadcast [1, 3] with [2, 3] (binary in place): axis 0 has 1 vs 2; \
    ///      in place, src1 may not change src0's shape (O8)"
    /// );
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn run_in_place<B>(&self, src0_dst: &mut MemMut<'_, T>, src1: &B) -> Result<(), Error>
    where
        B: Source<T> + ?Sized,
    {
        self.in_place_job(src0_dst, src1.mem()?)
    }

    /// The in-place run (O8) with src0 (the destination) and src1 each of its own type (O9).
    pub(crate) fn in_place_job<D, B>(
        &self,
        src0_dst: &mut MemMut<'_, D>,
        b: MemRef<'_, B>,
    ) -> Result<(), Error>
    where
        D: DataType<T::Compute>,
        B: DataType<T::Compute>,
    {
        if src0_dst.desc.layout == Layout::Any {
            // An `any` memory holds no values yet: there is no src0 to read.
            let dims = src0_dst.desc.dims();
            return Err(Error::new(
                ErrorKind::AnySource,
                Operation::Binary,
                dims,
                b.shape(),
            ));
        }
        rules::binary_in_place_fits(src0_dst.shape(), b.shape())?;
        let a = MemRef::<D> {
            data: &[],
            desc: src0_dst.desc,
        };
        self.run_job(a, b, src0_dst.data, &mut src0_dst.desc, true)
    }

    /// [`Binary::run_in_place`] on a static tensor or view: src1's shape broadcasts onto the
    /// tensor's one way, and every static post-op operand fits it, checked at compile time.
    ///
    /// ```
    /// use shaped::primitive::{Alg, Binary};
    /// use shaped::{Shape, Tensor};
    /// let mut x = Tensor::<f32, Shape![2, 3]>::from([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]);
    /// let scale = Tensor::<f32, Shape![2, 1]>::from([[10.0], [-1.0]]);
    /// Binary::new(Alg::Mul).apply_in_place(&mut x, &scale).unwrap();
    /// assert_eq!(x, Tensor::from([[10.0, 20.0, 30.0], [-4.0, -5.0, -6.0]]));
    /// ```
    ///
    /// A source that would grow the tensor does not compile:
    ///
    /// ```compile_fail
    /// use shaped::primitive::{Alg, Binary};
    /// use shaped::{Shape, Tensor};
    /// let mut x = Tensor::<f32, Shape![1, 3]>::from([[1.0, 2.0, 3.0]]);
    /// let two_rows = Tensor::<f32, Shape![2, 3]>::from([[0.0; 3]; 2]);
    /// Binary::new(Alg::Add).apply_in_place(&mut x, &two_rows).unwrap();
    /// ```
    pub fn apply_in_place<S, DD, B>(
        &self,
        src0_dst: &mut Tensor<T, S, DD>,
        src1: &B,
    ) -> Result<(), Error>
    where
        S: StaticShape,
        B: StaticSource<T>,
        ShapeOf<B, T>: InPlaceShape<S>,
        P: PostOpShapes<S>,
        DD: DataMut<T>,
    {
        let mut desc = Desc::dense::<T>(S::DIMS, Layout::RowMajor)?;
        let a = MemRef::<T> { data: &[], desc };
        self.run_job(a, src1.mem()?, src0_dst.as_mut_slice(), &mut desc, true)
    }

    /// The static front end: sources with static shapes, every shape rule checked at compile
    /// time (O1-O4 for static post-op operands); the result is a new row-major tensor,
    /// on the heap when either source is.
    ///
    /// The remaining errors are run-time ones: too many post-ops, or a runtime-shaped post-op
    /// operand that does not fit.
    ///
    /// ```
    /// use shaped::primitive::{Alg, Binary, Eltwise, PostOp};
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<f32, Shape![2, 3]>::from([[-1.0, 0.5, 2.0], [3.0, -4.0, 1.0]]);
    /// let bias = Tensor::<f32, Shape![1, 3]>::from([[1.0, 1.0, -1.0]]);
    /// let scale = Tensor::<f32, Shape![2, 1]>::from([[2.0], [10.0]]);
    /// let y = Binary::new(Alg::Add)
    ///     .post_op(Eltwise::Relu)
    ///     .post_op(PostOp::binary(Alg::Mul, &scale))
    ///     .apply(&x, &bias)
    ///     .unwrap();
    /// let expected: Tensor<f32, Shape![2, 3]> = Tensor::from([[0.0, 3.0, 2.0], [40.0, 0.0, 0.0]]);
    /// assert_eq!(y, expected);
    /// ```
    pub fn apply<A, B>(&self, src0: &A, src1: &B) -> Result<StaticOutput<A, B, T>, Error>
    where
        A: StaticSource<T>,
        B: StaticSource<T>,
        ShapeOf<A, T>: BinaryShape<ShapeOf<B, T>>,
        BinaryOutput<ShapeOf<A, T>, ShapeOf<B, T>>: BinaryDst,
        P: PostOpShapes<BinaryOutput<ShapeOf<A, T>, ShapeOf<B, T>>>,
    {
        fits_inline!(StaticOutput<A, B, T>);
        let mut out = StaticOutput::<A, B, T>::from_fn(|_| T::ZERO);
        let mut desc = Desc::dense::<T>(
            BinaryOutput::<ShapeOf<A, T>, ShapeOf<B, T>>::DIMS,
            Layout::RowMajor,
        )?;
        self.execute(src0.mem()?, src1.mem()?, out.as_mut_slice(), &mut desc)?;
        Ok(out)
    }

    /// [`Binary::apply`] into the caller's static tensor or view, whose shape must be the
    /// sources' broadcast shape (checked at compile time). Sum post-ops accumulate into it.
    pub fn apply_into<A, B, SD, DD>(
        &self,
        src0: &A,
        src1: &B,
        dst: &mut Tensor<T, SD, DD>,
    ) -> Result<(), Error>
    where
        A: StaticSource<T>,
        B: StaticSource<T>,
        ShapeOf<A, T>: BinaryShape<ShapeOf<B, T>>,
        BinaryOutput<ShapeOf<A, T>, ShapeOf<B, T>>: BinaryDst,
        SD: StaticShape + DstShape<BinaryOutput<ShapeOf<A, T>, ShapeOf<B, T>>>,
        P: PostOpShapes<SD>,
        DD: DataMut<T>,
    {
        let mut desc = Desc::dense::<T>(SD::DIMS, Layout::RowMajor)?;
        self.execute(src0.mem()?, src1.mem()?, dst.as_mut_slice(), &mut desc)
    }

    /// The static front end over memory in any layout: sources with static shapes (static
    /// tensors, or [`MemRef::into_static`] memories, blocked formats included) into a
    /// destination memory of a static shape ([`MemMut::into_static`]), every shape rule
    /// checked at compile time (O1-O4), each memory of its own data type (O9). See
    /// [`StaticMem`] for an example.
    pub fn apply_mem<A, B, XA, XB, XD, SD>(
        &self,
        src0: &A,
        src1: &B,
        dst: &mut StaticMem<MemMut<'_, XD>, SD>,
    ) -> Result<(), Error>
    where
        A: Source<XA> + ?Sized,
        B: Source<XB> + ?Sized,
        XA: DataType<T::Compute>,
        XB: DataType<T::Compute>,
        XD: DataType<T::Compute>,
        A::Shape: BinaryShape<B::Shape>,
        BinaryOutput<A::Shape, B::Shape>: BinaryDst,
        SD: StaticShape + DstShape<BinaryOutput<A::Shape, B::Shape>>,
        P: PostOpShapes<SD>,
    {
        let d = &mut dst.mem;
        self.execute(src0.mem()?, src1.mem()?, d.data, &mut d.desc)
    }

    /// [`Binary::run_in_place`] on a memory of a static shape, in any layout: src1's shape
    /// broadcasts onto it one way, and every static post-op operand fits it, checked at
    /// compile time.
    pub fn apply_mem_in_place<B, SD>(
        &self,
        src0_dst: &mut StaticMem<MemMut<'_, T>, SD>,
        src1: &B,
    ) -> Result<(), Error>
    where
        B: Source<T> + ?Sized,
        SD: StaticShape,
        B::Shape: InPlaceShape<SD>,
        P: PostOpShapes<SD>,
    {
        self.run_in_place(&mut src0_dst.mem, src1)
    }

    /// Checks everything, resolves an `any` destination, then makes the one pass. The sources
    /// and the destination may be stored as other types than the post-op operands' `T`.
    fn execute<A, B, D>(
        &self,
        a: MemRef<'_, A>,
        b: MemRef<'_, B>,
        dst: &mut [D],
        dst_desc: &mut Desc,
    ) -> Result<(), Error>
    where
        A: DataType<T::Compute>,
        B: DataType<T::Compute>,
        D: DataType<T::Compute>,
    {
        self.run_job(a, b, dst, dst_desc, false)
    }

    /// [`Binary::execute`], or with `in_place` the run whose src0 is the destination (`a`
    /// then carries only its descriptor).
    fn run_job<A, B, D>(
        &self,
        a: MemRef<'_, A>,
        b: MemRef<'_, B>,
        dst: &mut [D],
        dst_desc: &mut Desc,
        in_place: bool,
    ) -> Result<(), Error>
    where
        A: DataType<T::Compute>,
        B: DataType<T::Compute>,
        D: DataType<T::Compute>,
    {
        if self.too_many {
            let kind = ErrorKind::TooManyPostOps { max: MAX_POST_OPS };
            return Err(Error::new(kind, Operation::Binary, a.shape(), b.shape()));
        }
        rules::binary_check_dst(a.shape(), b.shape(), dst_desc.dims())?;
        let mut chain = [Step::Sum(<T::Compute as crate::element::Element>::ZERO); MAX_POST_OPS];
        // Placeholders until the post-op operands are known; only the first `n_operands` are read.
        let mut operands = [MemRef::<T> {
            data: &[],
            desc: a.desc,
        }; MAX_POST_OPS];
        let (mut n_steps, mut n_operands) = (0, 0);
        // A ReLU right after the algorithm or a binary post-op joins that step's loop.
        let mut main_relu = false;
        for (index, slot) in self.slots[..self.len].iter().enumerate() {
            let step = match *slot {
                Slot::Empty => continue,
                Slot::Invalid(e) => return Err(e),
                Slot::Eltwise(Eltwise::Relu) if n_steps == 0 && !main_relu => {
                    main_relu = true;
                    continue;
                }
                Slot::Eltwise(Eltwise::Relu)
                    if n_steps > 0 && matches!(chain[n_steps - 1], Step::Binary(_, _, false)) =>
                {
                    if let Step::Binary(alg, k, _) = chain[n_steps - 1] {
                        chain[n_steps - 1] = Step::Binary(alg, k, true);
                    }
                    continue;
                }
                Slot::Eltwise(e) => Step::Eltwise(e),
                Slot::Sum(s) => Step::Sum(<T::Compute as Real>::from_f32(s)),
                Slot::Binary(alg, m) => {
                    rules::post_op_fits(index, m.shape(), dst_desc.dims())?;
                    operands[n_operands] = m;
                    n_operands += 1;
                    Step::Binary(alg, n_operands - 1, false)
                }
            };
            chain[n_steps] = step;
            n_steps += 1;
        }
        if dst_desc.layout == Layout::Any {
            dst_desc.resolve_any(&a.desc, &b.desc);
        }
        dst_desc.check_span(dst.len())?;
        let (descs, n) = fused::descs(&a.desc, &b.desc, &operands[..n_operands], dst_desc);
        let split = blocked::split(&descs[..n], a.shape(), b.shape())?;
        let scales = (self.scales != [1.0; 2]).then(|| {
            let c = <T::Compute as Real>::from_f32;
            [c(self.scales[0]), c(self.scales[1])]
        });
        fused::run(Job {
            alg: self.alg,
            relu: main_relu,
            scales,
            src0: a,
            src1: b,
            chain: &chain[..n_steps],
            operands: &operands[..n_operands],
            dst,
            dst_desc: *dst_desc,
            split,
            in_place,
        });
        Ok(())
    }
}

impl<'a, T: Real> Binary<'a, T, RuntimeChecked> {
    /// Appends a post-op in place, for chains read at run time (from a model file, say).
    ///
    /// ```
    /// # #[cfg(feature = "std")] {
    /// use shaped::primitive::{Alg, Binary, Eltwise, PostOp};
    /// use shaped::DynTensor;
    /// let x = DynTensor::from_shape_vec([3], vec![-1.0f32, 0.5, 2.0]).unwrap();
    /// let mut prim = Binary::new(Alg::Add).runtime_checked();
    /// for e in [Eltwise::Relu, Eltwise::Square] {
    ///     prim.push_post_op(PostOp::Eltwise(e));
    /// }
    /// prim.push_post_op(PostOp::binary(Alg::Sub, &x));
    /// assert_eq!(prim.run(&x, &x).unwrap().as_slice(), [1.0, 0.5, 14.0]);
    /// # }
    /// ```
    pub fn push_post_op<O: IntoPostOp<'a, T, RuntimeChecked>>(&mut self, op: O) {
        self.push_slot(op.into_slot());
    }
}
