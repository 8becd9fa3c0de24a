//! The binary primitive on other data types than its own, oneDNN's way: sources and
//! destination of any [`DataType`] computed in `f32` (`i8` and `u8` beside the floats),
//! loaded exactly, the algorithm and every post-op computed in the compute type, and one
//! conversion at the store. For 8-bit integers that is rule Q15: each source scaled by its
//! [`Binary::scales`], computed in `f32`, rounded half to even and saturated once. This is not
//! TFLM's integer contract (the quantized tensors of [`quant`](crate::quant) follow that
//! one): a model converted for TFLM needs those.
//!
//! The same single pass as every other run: no working copies, no allocation for the `_into`
//! form.

use super::element::DataType;
#[cfg(feature = "alloc")]
use super::memory::Memory;
use super::memory::{MemMut, Source};
use super::Binary;
use crate::error::Error;

impl<P> Binary<'_, f32, P> {
    /// `dst = post_ops((s0 * src0) (alg) (s1 * src1))` with sources and destination of any
    /// [`DataType`] computed in `f32` (`i8`, `u8`, `i32`, `f32`, and `f16`/`bf16` with feature
    /// `half`), each source its own type (O9), computed in `f32` and converted once at the
    /// store: for the integers, rounded half to even and saturated (Q15, O9). A new destination in [`Binary::dst_layout`], as
    /// [`run`](Binary::run). Feature `alloc`.
    ///
    /// ```
    /// use shaped::primitive::{Alg, Binary, Eltwise, MemRef, Layout};
    /// let a = [100i8, -100, 7, 0];
    /// let b = [3u8, 4];
    /// let src0 = MemRef::new([2, 2], &a, Layout::RowMajor)?;
    /// let src1 = MemRef::new([1, 2], &b, Layout::RowMajor)?;
    /// let prim = Binary::new(Alg::Mul).scales(0.5, 2.5).post_op(Eltwise::Relu);
    /// let d = prim.run_mixed::<i8, u8, i8>(&src0, &src1)?;
    /// // 50 * 7.5 = 375 saturates; -50 * 10 = -500 after ReLU is 0; 3.5 * 7.5 = 26.25 -> 26;
    /// // 0 * 10 = 0.
    /// assert_eq!(d.as_slice(), &[127, 0, 26, 0]);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    #[cfg(feature = "alloc")]
    pub fn run_mixed<A, B, D>(
        &self,
        src0: &(impl Source<A> + ?Sized),
        src1: &(impl Source<B> + ?Sized),
    ) -> Result<Memory<D>, Error>
    where
        A: DataType<f32>,
        B: DataType<f32>,
        D: DataType<f32>,
    {
        let (a, b) = (src0.mem()?, src1.mem()?);
        let mut desc = self.new_dst::<D>(&a.desc, &b.desc)?;
        let count = desc.required_len();
        let zero = D::store(0.0);
        let mut data = crate::runtime::try_filled(count, zero, desc.dims())?;
        self.execute(a, b, &mut data, &mut desc)?;
        Ok(Memory { data, desc })
    }

    /// `dst = post_ops((s0 * src0) (alg) (s1 * src1))` into the caller's destination, with no
    /// allocation: sources and destination of any [`DataType`] computed in `f32`, converted
    /// once at the store (for `i8`/`u8`, rounded half to even and saturated, Q15). A `Sum`
    /// post-op reads the destination's old values, loaded as the sources are. `run_mixed`
    /// (feature `alloc`) returns a new destination instead.
    ///
    /// ```
    /// use shaped::primitive::{Alg, Binary, Layout, MemMut, MemRef};
    /// let a = [10u8, 20, 30];
    /// let b = [-4i8];
    /// let mut out = [0i8; 3];
    /// let prim = Binary::new(Alg::Add).scales(0.25, 1.0);
    /// prim.run_mixed_into(
    ///     &MemRef::new([3], &a, Layout::RowMajor)?,
    ///     &MemRef::new([1], &b, Layout::RowMajor)?,
    ///     &mut MemMut::new([3], &mut out, Layout::RowMajor)?,
    /// )?;
    /// // 2.5 - 4 = -1.5 -> -2 (ties to even); 5 - 4 = 1; 7.5 - 4 = 3.5 -> 4.
    /// assert_eq!(out, [-2, 1, 4]);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn run_mixed_into<A, B, D>(
        &self,
        src0: &(impl Source<A> + ?Sized),
        src1: &(impl Source<B> + ?Sized),
        dst: &mut MemMut<'_, D>,
    ) -> Result<(), Error>
    where
        A: DataType<f32>,
        B: DataType<f32>,
        D: DataType<f32>,
    {
        let (a, b) = (src0.mem()?, src1.mem()?);
        self.execute(a, b, dst.data, &mut dst.desc)
    }

    /// [`run_in_place`](Binary::run_in_place) with src0 (which is the destination) and src1
    /// each of its own [`DataType`] (O8, O9): oneDNN runs a `bf16` src0 with an `f32` src1 in
    /// place. src0's values are loaded into `f32`, combined, and stored back once in src0's
    /// type (for `i8`/`u8`, rounded half to even and saturated, Q15).
    ///
    /// ```
    /// use shaped::primitive::{Alg, Binary, Layout, MemMut, MemRef};
    /// let mut x = [10i8, -20, 120];
    /// let bias = [0.5f32, 0.5, 30.0];
    /// Binary::new(Alg::Add).run_in_place_mixed(
    ///     &mut MemMut::new([3], &mut x, Layout::RowMajor)?,
    ///     &MemRef::new([3], &bias, Layout::RowMajor)?,
    /// )?;
    /// // 10.5 -> 10 and -19.5 -> -20 (ties to even); 150 saturates.
    /// assert_eq!(x, [10, -20, 127]);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn run_in_place_mixed<D, B>(
        &self,
        src0_dst: &mut MemMut<'_, D>,
        src1: &(impl Source<B> + ?Sized),
    ) -> Result<(), Error>
    where
        D: DataType<f32>,
        B: DataType<f32>,
    {
        self.in_place_job(src0_dst, src1.mem()?)
    }
}
