//! Matrix products of typed tensors (rules G1-G6): `a.matmul(&b)`, the shape computed and
//! checked at compile time for static shapes (inner dims equal, batch dims broadcast), at run
//! time for the `Dyn` dims of mixed shapes.

use super::result::{ResultStorage, Stored};
use super::Tensor;
use crate::element::Element;
use crate::rules::MatMulOptions;
use crate::typed::rules::{MatMulOutput, MatMulOutputT, MatMulShape, TransposeIf};
use crate::typed::shape::{Shape, MAX_STATIC_RANK};
use crate::typed::storage::{Data, Join};
use crate::util::row_major_strides;

/// Below this many multiply-adds a product is computed output element by output element, a
/// loop nest that unrolls to straight-line code for static shapes (a `[4, 4] x [4, 4]` `f32`
/// product: the hand-written triple loop's instructions); above, the shared kernel (and the
/// blocked gemm for large `f32`/`f64` products).
const SMALL: usize = 4096;

/// The result family of an operation of tensors stored in `D` and `D2`.
type JoinOf<T, D, D2> = <<D as Data<T>>::Family as Join<<D2 as Data<T>>::Family>>::Out;

impl<T: Element, S: Shape, D: Data<T>> Tensor<T, S, D> {
    /// The matrix product, numpy's `matmul` (G1-G6): the last two dims multiply, the batch
    /// dims before them broadcast by NUMPY, a rank-1 left operand is a row and a rank-1 right
    /// operand a column (their 1 removed from the result). For static shapes the inner dims
    /// and the batch dims are checked at compile time; a `Dyn` dim is checked at run time and
    /// a mismatch panics with the error (as operators do; `DynTensor::matmul` returns it).
    /// Integers wrap. Each output element adds its terms in `k` order, starting from the first
    /// term, except in large `f32`/`f64` products, which take a blocked gemm (feature
    /// `matrixmultiply`).
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<f32, Shape![4, 8]>::splat(1.0);
    /// let w = Tensor::<f32, Shape![8, 16]>::splat(0.5);
    /// let b = Tensor::<f32, Shape![16]>::splat(0.1);
    /// let y: Tensor<f32, Shape![4, 16]> = (x.matmul(&w) + &b).relu();
    /// assert_eq!(y[[3, 15]], 4.1);
    /// let q = Tensor::<f32, Shape![2, 1, 5, 3]>::splat(1.0);
    /// let k = Tensor::<f32, Shape![4, 3, 7]>::splat(1.0);
    /// let s: Tensor<f32, Shape![2, 4, 5, 7]> = q.matmul(&k);
    /// assert_eq!(s[[1, 3, 4, 6]], 3.0);
    /// ```
    ///
    /// ```compile_fail
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<f32, Shape![4, 8]>::splat(1.0);
    /// let bad = x.matmul(&x);                              // inner dims 8 vs 4
    /// ```
    #[inline]
    #[track_caller]
    pub fn matmul<S2, D2>(
        &self,
        rhs: &Tensor<T, S2, D2>,
    ) -> Stored<JoinOf<T, D, D2>, T, MatMulOutput<S, S2>>
    where
        S2: Shape,
        D2: Data<T>,
        S: MatMulShape<S2>,
        D::Family: Join<D2::Family>,
        <MatMulOutput<S, S2> as Shape>::Kind: ResultStorage<JoinOf<T, D, D2>, MatMulOutput<S, S2>>,
    {
        self.matmul_t::<false, false, S2, D2>(rhs)
    }

    /// [`matmul`](Self::matmul) with OpenVINO's `transpose_a` (`TA`) and `transpose_b`
    /// (`TB`): the last two dims of an operand of rank 2 or more are swapped before the
    /// product (G2), checked at compile time like the rest, and the operand is read in place
    /// (no transposed copy).
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<f32, Shape![2, 3]>::from_fn(|[i, j]| (i * 3 + j) as f32);
    /// // x times x transposed: [2, 3] x [3, 2] -> [2, 2]
    /// let g: Tensor<f32, Shape![2, 2]> = x.matmul_t::<false, true, _, _>(&x);
    /// assert_eq!(g.as_slice(), &[5.0, 14.0, 14.0, 50.0]);
    /// ```
    #[inline]
    #[track_caller]
    pub fn matmul_t<const TA: bool, const TB: bool, S2, D2>(
        &self,
        rhs: &Tensor<T, S2, D2>,
    ) -> Stored<JoinOf<T, D, D2>, T, MatMulOutputT<S, S2, TA, TB>>
    where
        S2: Shape + TransposeIf<TB>,
        D2: Data<T>,
        S: TransposeIf<TA>,
        <S as TransposeIf<TA>>::Output: MatMulShape<<S2 as TransposeIf<TB>>::Output>,
        D::Family: Join<D2::Family>,
        <MatMulOutputT<S, S2, TA, TB> as Shape>::Kind:
            ResultStorage<JoinOf<T, D, D2>, MatMulOutputT<S, S2, TA, TB>>,
    {
        type Out<S, S2, const TA: bool, const TB: bool> = MatMulOutputT<S, S2, TA, TB>;
        let options = MatMulOptions {
            transpose_a: TA,
            transpose_b: TB,
        };
        let (ad, bd) = (self.shape.dims(), rhs.shape.dims());
        let (ad, bd) = (ad.as_ref(), bd.as_ref());
        let (ra, rb) = (ad.len(), bd.len());
        let is_static = |dims: &[Option<usize>]| dims.iter().all(Option::is_some);
        // Static shapes were checked by the compiler; a `Dyn` dim is checked here, and the
        // result's dims come from the same rule.
        let mut out_dims = [0usize; MAX_STATIC_RANK];
        let out_rank = <Out<S, S2, TA, TB> as Shape>::RANK;
        if !(is_static(S::STATIC_DIMS) && is_static(S2::STATIC_DIMS)) {
            match crate::rules::matmul_shape(ad, bd, options) {
                Ok(dims) => out_dims[..out_rank].copy_from_slice(&dims),
                Err(e) => super::ops::fail(e),
            }
        }
        let out_dims = &out_dims[..out_rank];
        // The matrix dims as the product reads them (G2: a transpose swaps the last two).
        let (m, k) = match ra {
            1 => (1, ad[0]),
            _ if TA => (ad[ra - 1], ad[ra - 2]),
            _ => (ad[ra - 2], ad[ra - 1]),
        };
        let n = match rb {
            1 => 1,
            _ if TB => bd[rb - 2],
            _ => bd[rb - 1],
        };
        let batch = out_rank - usize::from(ra > 1) - usize::from(rb > 1);
        // The multiply-adds: the broadcast batch count (a 1 stretches) times `m * k * n`.
        let dim_at = |dims: &[usize], t: usize| {
            (t + dims.len().saturating_sub(2))
                .checked_sub(batch)
                .map_or(1, |x| dims[x])
        };
        let batches = (0..batch).fold(1usize, |c, t| {
            let (x, y) = (dim_at(ad, t), dim_at(bd, t));
            c.saturating_mul(if x == 1 { y } else { x })
        });
        let (a, b) = (self.as_slice(), rhs.as_slice());
        let work = batches
            .saturating_mul(m)
            .saturating_mul(k)
            .saturating_mul(n);
        if work >= SMALL {
            return <<Out<S, S2, TA, TB> as Shape>::Kind as ResultStorage<_, Out<S, S2, TA, TB>>>::filled(
                out_dims,
                T::ZERO,
                |out| {
                    let (a, b) = (
                        crate::runtime::ArrayRef::trusted(ad, a),
                        crate::runtime::ArrayRef::trusted(bd, b),
                    );
                    if let Err(e) = crate::runtime::matmul_into(a, b, options, out)
                    {
                        super::ops::fail(e)
                    }
                },
            );
        }
        // Element by element: every stride is a constant for static shapes.
        let (sa, sb): ([usize; MAX_STATIC_RANK], [usize; MAX_STATIC_RANK]) =
            (row_major_strides(ad), row_major_strides(bd));
        let (a_row, a_col) = match ra {
            1 => (0, 1),
            _ if TA => (sa[ra - 1], sa[ra - 2]),
            _ => (sa[ra - 2], sa[ra - 1]),
        };
        let (b_row, b_col) = match rb {
            1 => (1, 0),
            _ if TB => (sb[rb - 1], sb[rb - 2]),
            _ => (sb[rb - 2], sb[rb - 1]),
        };
        <<Out<S, S2, TA, TB> as Shape>::Kind as ResultStorage<_, Out<S, S2, TA, TB>>>::filled(
            out_dims,
            T::ZERO,
            |out| {
                // Plain loops with constant bounds: unrolled where the optimizer finds it
                // pays (a [4, 4] x [4, 4] product is straight-line at opt-level 3), rolled at
                // opt-level "s".
                let mut index = [0usize; MAX_STATIC_RANK];
                for block in out.chunks_exact_mut((m * n).max(1)) {
                    let (mut a0, mut b0) = (0, 0);
                    // Batch axes, right-aligned on each operand's own (P1); a 1 stretches (P5).
                    for (t, &i) in index[..batch].iter().enumerate() {
                        if let Some(x) = (t + ra.saturating_sub(2)).checked_sub(batch) {
                            if ad[x] != 1 {
                                a0 += i * sa[x];
                            }
                        }
                        if let Some(x) = (t + rb.saturating_sub(2)).checked_sub(batch) {
                            if bd[x] != 1 {
                                b0 += i * sb[x];
                            }
                        }
                    }
                    for i in 0..m {
                        for j in 0..n {
                            let (ai, bj) = (a0 + i * a_row, b0 + j * b_col);
                            // From the first term, not from zero (G6): one add fewer per
                            // element, on the critical path (a [3, 3] x [3, 1] `f32` product:
                            // 29 instructions instead of 35). The test folds when unrolled.
                            let mut acc = T::ZERO;
                            for kk in 0..k {
                                let term = T::mul(a[ai + kk * a_col], b[bj + kk * b_row]);
                                acc = if kk == 0 { term } else { T::add(acc, term) };
                            }
                            block[i * n + j] = acc;
                        }
                    }
                    // The batch odometer, last axis fastest.
                    for t in (0..batch).rev() {
                        index[t] += 1;
                        let (x, y) = (dim_at(ad, t), dim_at(bd, t));
                        if index[t] < if x == 1 { y } else { x } {
                            break;
                        }
                        index[t] = 0;
                    }
                }
            },
        )
    }
}
