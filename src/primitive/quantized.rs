//! The binary primitive on 8-bit integers, oneDNN's contract (rule Q15): `i8` or `u8` sources
//! (each with its scale, [`Binary::scales`]) and destination, the algorithm and every post-op
//! computed in `f32`, and one rounding, half to even, saturated to the destination's range,
//! at the store. This is not TFLM's integer contract (the quantized tensors of
//! [`quant`](crate::quant) follow that one): a model converted for TFLM needs those.

use super::memory::{Desc, MemMut, MemRef, Memory, Source};
use super::Binary;
use crate::error::Error;
use crate::quant::{saturate_round_half_even, QuantElement};

/// The elements of `m` as `f32`s under the same description (layout and strides kept).
fn widen<E: QuantElement>(m: MemRef<'_, E>) -> Result<(alloc::vec::Vec<f32>, Desc), Error> {
    let mut data = crate::runtime::try_vec(m.data.len(), m.shape())?;
    data.extend(m.data.iter().map(|&x| x.to_i32() as f32));
    Ok((data, m.desc))
}

/// A source widened to `f32`.
struct Wide(alloc::vec::Vec<f32>, Desc);

impl Wide {
    fn of<E: QuantElement>(src: &(impl Source<E> + ?Sized)) -> Result<Wide, Error> {
        let (data, desc) = widen(src.mem()?)?;
        Ok(Wide(data, desc))
    }

    fn mem(&self) -> MemRef<'_, f32> {
        MemRef {
            data: &self.0,
            desc: self.1,
        }
    }
}

impl<P> Binary<'_, f32, P> {
    /// `dst = round_half_even(post_ops((s0 * src0) (alg) (s1 * src1)))`, saturated, for
    /// `i8`/`u8` sources (of either type each) and destination, every step in `f32` (Q15). A
    /// new destination in [`Binary::dst_layout`], as [`run`](Binary::run).
    ///
    /// ```
    /// use shaped::primitive::{Alg, Binary, Eltwise, MemRef, Layout};
    /// let a = [100i8, -100, 7, 0];
    /// let b = [3u8, 4];
    /// let src0 = MemRef::new([2, 2], &a, Layout::RowMajor)?;
    /// let src1 = MemRef::new([1, 2], &b, Layout::RowMajor)?;
    /// let prim = Binary::new(Alg::Mul).scales(0.5, 2.5).post_op(Eltwise::Relu);
    /// let d = prim.run_int::<i8, u8, i8>(&src0, &src1)?;
    /// // 50 * 7.5 = 375 saturates; -50 * 10 = -500 after ReLU is 0; 3.5 * 7.5 = 26.25 -> 26;
    /// // 0 * 10 = 0.
    /// assert_eq!(d.as_slice(), &[127, 0, 26, 0]);
    /// # Ok::<(), shaped::Error>(())
    /// ```
    pub fn run_int<E0, E1, F>(
        &self,
        src0: &(impl Source<E0> + ?Sized),
        src1: &(impl Source<E1> + ?Sized),
    ) -> Result<Memory<F>, Error>
    where
        E0: QuantElement,
        E1: QuantElement,
        F: QuantElement,
    {
        let (a, b) = (Wide::of(src0)?, Wide::of(src1)?);
        let out = self.run(&a.mem(), &b.mem())?;
        let mut data = crate::runtime::try_vec(out.data.len(), out.shape())?;
        data.extend(out.data.iter().map(|&x| saturate_round_half_even::<F>(x)));
        Ok(Memory {
            data,
            desc: out.desc,
        })
    }

    /// [`run_int`](Self::run_int) into the caller's destination (a `Sum` post-op reads its
    /// old values, widened to `f32`). It allocates the `f32` working copies.
    pub fn run_int_into<E0, E1, F>(
        &self,
        src0: &(impl Source<E0> + ?Sized),
        src1: &(impl Source<E1> + ?Sized),
        dst: &mut MemMut<'_, F>,
    ) -> Result<(), Error>
    where
        E0: QuantElement,
        E1: QuantElement,
        F: QuantElement,
    {
        let (a, b) = (Wide::of(src0)?, Wide::of(src1)?);
        let (mut wide, desc) = widen(dst.as_ref())?;
        let mut wide_dst = MemMut {
            data: &mut wide,
            desc,
        };
        self.run_into(&a.mem(), &b.mem(), &mut wide_dst)?;
        dst.desc = wide_dst.desc;
        for (d, &x) in dst.data.iter_mut().zip(wide.iter()) {
            *d = saturate_round_half_even::<F>(x);
        }
        Ok(())
    }
}
