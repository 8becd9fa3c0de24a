//! Matrix products of typed tensors (rules G1-G6): `a.matmul(&b)`, the shape computed and
//! checked at compile time for static shapes (inner dims equal, batch dims broadcast), at run
//! time for the `Dyn` dims of mixed shapes.

use super::result::{ResultStorage, Storable, Stored};
use super::Tensor;
use crate::element::Element;
use crate::rules::MatMulOptions;
use crate::typed::rules::{MatMulOutput, MatMulOutputT, MatMulShape, MatMulShapeT};
use crate::typed::shape::{Shape, MAX_STATIC_RANK};
use crate::typed::storage::fits_inline;
use crate::typed::storage::{Data, Family};
use crate::util::row_major_strides;

/// Below this many multiply-adds a product is computed output element by output element, a
/// loop nest that unrolls to straight-line code for static shapes (a `[4, 4] x [4, 4]` `f32`
/// product: the hand-written triple loop's instructions); above, the shared kernel (and the
/// blocked gemm for large `f32`/`f64` products).
const SMALL: usize = 4096;

/// [`SMALL`] for the layers, which give `matmul`'s bits (G7).
pub(crate) const SMALL_PRODUCT: usize = SMALL;

/// The storage family of the result of an operation on tensors stored in `D` and `D2` (the
/// heap if either is on the heap, else the stack).
pub type JoinOf<T, D, D2> = <<D as Data<T>>::Family as Family>::Join<<D2 as Data<T>>::Family>;

/// A result of shape `O` holding `T`s, from operands stored in `D` and `D2`: [`Stored`] in
/// their [`JoinOf`] (inline when both are, and `O` is small enough; else on the heap).
pub type Joined<T, D, D2, O> = Stored<JoinOf<T, D, D2>, T, O>;

/// `Self` times `R` with the transposes `TA` and `TB` (G1-G6), into a result that can be stored:
/// the bound of `matmul_t` and its named forms, a [`MatMulShapeT`] whose output is
/// [`Storable`].
pub trait StorableProduct<R: Shape, const TA: bool, const TB: bool>:
    MatMulShapeT<R, TA, TB, Output: Storable>
{
}

impl<S, R: Shape, const TA: bool, const TB: bool> StorableProduct<R, TA, TB> for S where
    S: MatMulShapeT<R, TA, TB, Output: Storable>
{
}

/// `matmul_t` with its transposes fixed, under a name: no placeholder arguments.
macro_rules! transposed_products {
    ($($name:ident $ta:literal $tb:literal $doc:literal;)*) => {$(
        #[doc = $doc]
        #[inline]
        #[track_caller]
        pub fn $name<S2: Shape, D2: Data<T>>(
            &self,
            rhs: &Tensor<T, S2, D2>,
        ) -> Joined<T, D, D2, MatMulOutputT<S, S2, $ta, $tb>>
        where
            S: StorableProduct<S2, $ta, $tb>,
        {
            fits_inline!(Stored<JoinOf<T, D, D2>, T, MatMulOutputT<S, S2, $ta, $tb>>);
            self.matmul_t::<$ta, $tb, S2, D2>(rhs)
        }
    )*};
}

/// # Matrix products
///
/// numpy's `matmul` (G1-G6) and its transposed forms, static and mixed. A generic caller writes
/// `S: MatMulShape<W, Output = O>` and `O: Storable`, or [`StorableProduct`] for the transposed
/// forms ([`bounds`](crate::bounds)).
impl<T: Element, S: Shape, D: Data<T>> Tensor<T, S, D> {
    /// The matrix product, numpy's `matmul` (G1-G6): the last two dims multiply, the batch
    /// dims before them broadcast by NUMPY, a rank-1 left operand is a row and a rank-1 right
    /// operand a column (their 1 removed from the result). For static shapes the inner dims
    /// and the batch dims are checked at compile time; a `Dyn` dim is checked at run time and
    /// a mismatch panics with the error (as operators do; `DynTensor::matmul` returns it).
    /// Integers wrap. Each output element adds its terms in `k` order, starting from the first
    /// term, except in large `f32`/`f64` products, which take a blocked gemm (feature
    /// `matrixmultiply`). The terms and their sum are computed in [`Element::Acc`] (`f32` for
    /// `f16` and `bf16`), and each result is rounded once.
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
    pub fn matmul<S2, D2>(&self, rhs: &Tensor<T, S2, D2>) -> Joined<T, D, D2, MatMulOutput<S, S2>>
    where
        S2: Shape,
        D2: Data<T>,
        S: MatMulShape<S2, Output: Storable>,
    {
        fits_inline!(Stored<JoinOf<T, D, D2>, T, MatMulOutput<S, S2>>);
        self.matmul_t::<false, false, S2, D2>(rhs)
    }

    transposed_products! {
        matmul_nt false true
            "`self` times `rhs` with `rhs`'s last two dims swapped (G2): a linear layer with \
             weights stored `[out, in]`, as PyTorch's `Linear` keeps them. \
             `matmul_t::<false, true, _, _>` without the placeholders.

```
use shaped::{Shape, Tensor};
let x = Tensor::<f32, Shape![2, 3]>::from_fn(|[i, j]| (i * 3 + j) as f32);
let w = Tensor::<f32, Shape![4, 3]>::from_fn(|[o, i]| (o == i) as u8 as f32);
let y: Tensor<f32, Shape![2, 4]> = x.matmul_nt(&w);
assert_eq!(y.as_slice(), &[0.0, 1.0, 2.0, 0.0, 3.0, 4.0, 5.0, 0.0]);
```";
        matmul_tn true false
            "`self` with its last two dims swapped (G2) times `rhs`: a Gram matrix (`x^T x`), a \
             gradient. `matmul_t::<true, false, _, _>` without the placeholders.";
        matmul_tt true true
            "Both operands with their last two dims swapped (G2): \
             `matmul_t::<true, true, _, _>` without the placeholders.";
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
    pub fn matmul_t<const TA: bool, const TB: bool, S2: Shape, D2: Data<T>>(
        &self,
        rhs: &Tensor<T, S2, D2>,
    ) -> Joined<T, D, D2, MatMulOutputT<S, S2, TA, TB>>
    where
        S: StorableProduct<S2, TA, TB>,
    {
        fits_inline!(Stored<JoinOf<T, D, D2>, T, MatMulOutputT<S, S2, TA, TB>>);
        type Out<S, S2, const TA: bool, const TB: bool> = MatMulOutputT<S, S2, TA, TB>;
        let options = MatMulOptions {
            transpose_a: TA,
            transpose_b: TB,
        };
        let (ad, bd) = (self.shape.dims(), rhs.shape.dims());
        let (ad, bd) = (ad.as_ref(), bd.as_ref());
        // For static shapes the whole loop layout (dims, strides, multiply-adds) is a
        // constant, so the choice of loop and every index folds: the shared kernel and its
        // shape resolution never reach a static program that does not use them, and the loops
        // have constant strides at any opt-level (a Cortex-M controller at opt-level "s"
        // carried 13 KB of them, `qemu-tests/code_size.sh`).
        let fixed = const { static_layout(S::STATIC_DIMS, S2::STATIC_DIMS, TA, TB) };
        // Static shapes were checked by the compiler; a `Dyn` dim is checked here, and the
        // result's dims come from the same rule.
        let mut out_dims = [0usize; MAX_STATIC_RANK];
        let out_rank = <Out<S, S2, TA, TB> as Shape>::RANK;
        let p = match fixed {
            Some(p) => p,
            None => {
                match crate::rules::matmul_shape(ad, bd, options) {
                    Ok(dims) => out_dims[..out_rank].copy_from_slice(&dims),
                    Err(e) => super::ops::fail(e),
                }
                layout(ad, bd, TA, TB)
            }
        };
        let out_dims = &out_dims[..out_rank];
        let (a, b) = (self.as_slice(), rhs.as_slice());
        // Known small at compile time: the kernel call below is not even compiled (`if
        // const`), so the inliner sees only the loops (at opt-level "s" the call's code kept
        // a Cortex-M controller's products out of line: 792 bytes instead of 396).
        let small = const {
            match static_layout(S::STATIC_DIMS, S2::STATIC_DIMS, TA, TB) {
                Some(p) => p.work < SMALL,
                None => false,
            }
        };
        if !small && p.work >= SMALL {
            // The layout is resolved and checked already (a constant for static shapes): the
            // runtime kernel runs it without resolving the shapes again (two products of an
            // MLP spent 760 of 23,050 instructions doing so).
            let fill = |out: &mut [core::mem::MaybeUninit<T>]| product_with_layout(&p, a, b, out);
            // SAFETY: `product_with_layout` writes every element of `out`, whose length is
            // the product's.
            return unsafe {
                <<Out<S, S2, TA, TB> as Shape>::Kind as ResultStorage<Out<S, S2, TA, TB>>>::written::<
                    JoinOf<T, D, D2>,
                    T,
                >(out_dims, fill)
            };
        }
        let Layout { m, k, n, .. } = p;
        <<Out<S, S2, TA, TB> as Shape>::Kind as ResultStorage<Out<S, S2, TA, TB>>>::filled::<
            JoinOf<T, D, D2>,
            T,
        >(out_dims, T::ZERO, |out| {
            // Plain loops with constant bounds and strides: unrolled where the optimizer
            // finds it pays (a [4, 4] x [4, 4] product is straight-line at opt-level 3),
            // rolled at opt-level "s".
            let mut index = [0usize; MAX_STATIC_RANK];
            for block in out.chunks_exact_mut((m * n).max(1)) {
                let (mut a0, mut b0) = (0, 0);
                for (t, &i) in index[..p.batch].iter().enumerate() {
                    a0 += i * p.a_step[t];
                    b0 += i * p.b_step[t];
                }
                for i in 0..m {
                    for j in 0..n {
                        let (ai, bj) = (a0 + i * p.a_row, b0 + j * p.b_col);
                        // From the first term, not from zero (G6): one add fewer per
                        // element, on the critical path (a [3, 3] x [3, 1] `f32` product:
                        // 29 instructions instead of 35).
                        block[i * n + j] = if k == 0 {
                            T::ZERO
                        } else {
                            // In the accumulator type, rounded once (`f32` for the half
                            // floats; the element itself otherwise).
                            let (add, mul) = (<T::Acc as Element>::add, <T::Acc as Element>::mul);
                            let term = |kk: usize| {
                                mul(a[ai + kk * p.a_col].to_acc(), b[bj + kk * p.b_row].to_acc())
                            };
                            let mut acc = term(0);
                            for kk in 1..k {
                                acc = add(acc, term(kk));
                            }
                            T::from_acc(acc)
                        };
                    }
                }
                // The batch odometer, last axis fastest.
                for t in (0..p.batch).rev() {
                    index[t] += 1;
                    if index[t] < p.count[t] {
                        break;
                    }
                    index[t] = 0;
                }
            }
        })
    }
}

/// The layout and output dims of a product of tensors of static shapes `S` and `S2`, a
/// constant: `None` when a dim is `Dyn`. The quantized products borrow it (`&const { .. }`),
/// so that their inlined loops read constants and fold, with no copy of the layout (a
/// Cortex-M4 int8 fully connected layer at opt-level "s" without LTO: 4,200 bytes of `.text`
/// through the shared kernel and a runtime layout, `qemu-tests/code_size.sh`).
pub(crate) const fn static_plan<S, S2, const TA: bool, const TB: bool>(
) -> Option<(Layout, [usize; MAX_STATIC_RANK])>
where
    S: MatMulShapeT<S2, TA, TB>,
    S2: Shape,
{
    match static_layout(S::STATIC_DIMS, S2::STATIC_DIMS, TA, TB) {
        Some(p) => {
            let out_rank = <MatMulOutputT<S, S2, TA, TB> as Shape>::RANK;
            let dims = output_dims(&p, S::STATIC_DIMS.len(), S2::STATIC_DIMS.len(), out_rank);
            Some((p, dims))
        }
        None => None,
    }
}

/// The output dims of a product of layout `p` whose operands have ranks `a_rank` and
/// `b_rank`: the batch counts, then the rows and the columns of the operands of rank 2 or
/// more (G3). Indices below both lengths, so no panic path (whose message would link
/// `core::fmt` into firmware).
const fn output_dims(
    p: &Layout,
    a_rank: usize,
    b_rank: usize,
    out_rank: usize,
) -> [usize; MAX_STATIC_RANK] {
    let mut out = [0usize; MAX_STATIC_RANK];
    let end = if out_rank < MAX_STATIC_RANK {
        out_rank
    } else {
        MAX_STATIC_RANK
    };
    let mut r = 0;
    while r < p.batch && r < end {
        out[r] = p.count[r];
        r += 1;
    }
    if a_rank > 1 && r < end {
        out[r] = p.m;
        r += 1;
    }
    if b_rank > 1 && r < end {
        out[r] = p.n;
    }
    out
}

/// The layout and output dims of a product of tensors of shapes `S` and `S2` with dims `ad` and
/// `bd`, checked at run time (an error value) when a dim is `Dyn`. For the quantized products,
/// whose kernels return their errors; with static shapes they take [`static_plan`] instead.
pub(crate) fn checked_layout<S, S2, const TA: bool, const TB: bool>(
    ad: &[usize],
    bd: &[usize],
) -> Result<(Layout, [usize; MAX_STATIC_RANK]), crate::error::Error>
where
    S: MatMulShapeT<S2, TA, TB>,
    S2: Shape,
{
    let options = MatMulOptions {
        transpose_a: TA,
        transpose_b: TB,
    };
    crate::rules::matmul_shape(ad, bd, options)?;
    let p = layout(ad, bd, TA, TB);
    let out_rank = <MatMulOutputT<S, S2, TA, TB> as Shape>::RANK;
    let dims = output_dims(&p, ad.len(), bd.len(), out_rank);
    Ok((p, dims))
}

/// The runtime kernel over a resolved layout into `out`, every element written. Out of line,
/// so that the caller has no branch between the call and the result (tested in the caller, a
/// `Result` made LLVM write the product into a temporary and copy it: an 8 KiB `memcpy` after
/// each product of a transformer block, `benches/transformer_probe.rs`).
#[inline(never)]
fn product_with_layout<T: Element>(
    p: &Layout,
    a: &[T],
    b: &[T],
    out: &mut [core::mem::MaybeUninit<T>],
) {
    // `run` writes `batches * m * n` elements, which the caller's `written` relies on being
    // all of `out`: the layout and the result's dims come from the same shapes (a constant
    // comparison for static shapes, which folds).
    let count = crate::rules::checked_element_count(&p.count[..p.batch])
        .and_then(|batches| batches.checked_mul(p.m)?.checked_mul(p.n));
    assert!(
        count == Some(out.len()),
        "matmul: the layout does not cover the result"
    );
    let readers = [
        (&p.a_step[..p.batch], p.a_row, p.a_col),
        (&p.b_step[..p.batch], p.b_row, p.b_col),
    ];
    crate::runtime::matmul::run([p.m, p.k, p.n], &p.count[..p.batch], readers, a, b, out)
}

/// How a product walks its operands: the matrix dims as the product reads them (G2: a
/// transpose swaps the last two), each operand's row and column strides, and for each batch
/// axis of the result its count and each operand's stride (0 where a 1 stretches, P5, or the
/// operand has no such axis, P1).
#[derive(Clone, Copy)]
pub(crate) struct Layout {
    pub(crate) m: usize,
    pub(crate) k: usize,
    pub(crate) n: usize,
    pub(crate) a_row: usize,
    pub(crate) a_col: usize,
    pub(crate) b_row: usize,
    pub(crate) b_col: usize,
    pub(crate) batch: usize,
    pub(crate) count: [usize; MAX_STATIC_RANK],
    pub(crate) a_step: [usize; MAX_STATIC_RANK],
    pub(crate) b_step: [usize; MAX_STATIC_RANK],
    /// The multiply-adds (saturating): the broadcast batch count times `m * k * n`.
    work: usize,
}

/// The [`Layout`] of the product of row-major operands of dims `ad` and `bd` (ranks 1 to
/// `MAX_STATIC_RANK`, already checked to multiply).
const fn layout(ad: &[usize], bd: &[usize], ta: bool, tb: bool) -> Layout {
    let (ra, rb) = (ad.len(), bd.len());
    let (sa, sb): ([usize; MAX_STATIC_RANK], [usize; MAX_STATIC_RANK]) =
        (row_major_strides(ad), row_major_strides(bd));
    let (m, k, a_row, a_col) = if ra == 1 {
        (1, ad[0], 0, 1)
    } else if ta {
        (ad[ra - 1], ad[ra - 2], sa[ra - 1], sa[ra - 2])
    } else {
        (ad[ra - 2], ad[ra - 1], sa[ra - 2], sa[ra - 1])
    };
    let (n, b_row, b_col) = if rb == 1 {
        (1, 1, 0)
    } else if tb {
        (bd[rb - 2], sb[rb - 1], sb[rb - 2])
    } else {
        (bd[rb - 1], sb[rb - 2], sb[rb - 1])
    };
    let (ba, bb) = (ra.saturating_sub(2), rb.saturating_sub(2));
    let batch = if ba > bb { ba } else { bb };
    let mut p = Layout {
        m,
        k,
        n,
        a_row,
        a_col,
        b_row,
        b_col,
        batch,
        count: [1; MAX_STATIC_RANK],
        a_step: [0; MAX_STATIC_RANK],
        b_step: [0; MAX_STATIC_RANK],
        work: 1,
    };
    let mut t = 0;
    while t < batch {
        let (mut x, mut y) = (1, 1);
        if t + ba >= batch {
            x = ad[t + ba - batch];
            if x != 1 {
                p.a_step[t] = sa[t + ba - batch];
            }
        }
        if t + bb >= batch {
            y = bd[t + bb - batch];
            if y != 1 {
                p.b_step[t] = sb[t + bb - batch];
            }
        }
        p.count[t] = if x == 1 { y } else { x };
        p.work = p.work.saturating_mul(p.count[t]);
        t += 1;
    }
    p.work = p.work.saturating_mul(m).saturating_mul(k).saturating_mul(n);
    p
}

/// The [`Layout`] of a product of two static shapes, computed at compile time; `None` when a
/// dim is `Dyn`, or a rank is outside 1 to `MAX_STATIC_RANK` (the compiler refuses those
/// products, G1).
const fn static_layout(
    a: &[Option<usize>],
    b: &[Option<usize>],
    ta: bool,
    tb: bool,
) -> Option<Layout> {
    match (known(a), known(b)) {
        (Some((ad, ra)), Some((bd, rb))) => {
            Some(layout(ad.split_at(ra).0, bd.split_at(rb).0, ta, tb))
        }
        _ => None,
    }
}

/// The dims of a static shape and its rank, when every dim is static and the rank is 1 to
/// `MAX_STATIC_RANK`.
const fn known(dims: &[Option<usize>]) -> Option<([usize; MAX_STATIC_RANK], usize)> {
    if dims.is_empty() || dims.len() > MAX_STATIC_RANK {
        return None;
    }
    let mut out = [0; MAX_STATIC_RANK];
    let mut i = 0;
    while i < dims.len() {
        match dims[i] {
            Some(d) => out[i] = d,
            None => return None,
        }
        i += 1;
    }
    Some((out, dims.len()))
}
